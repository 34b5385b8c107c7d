#include "context.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cuda_runtime_api.h>

#include "../cuda/counters.h"

#include "sb_version.h"

/* cmake -DSB_CDP=OFF builds without dynamic parallelism (SB_NO_CDP), where the host also drives
 * the device-side graph loops: the records say which (such records are not timings to compare). */
#ifdef SB_NO_CDP
#define SB_HAVE_CDP 0
#else
#define SB_HAVE_CDP 1
#endif

static double cpu_mhz(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    double mhz = 0;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "cpu MHz", 7) == 0 && strchr(line, ':')) {
            mhz = atof(strchr(line, ':') + 1);
            break;
        }
    if (f)
        fclose(f);
    return mhz;
}

/* Google Benchmark's meaning: frequency scaling is on unless the governor is "performance". */
static int cpu_scaling_enabled(void)
{
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "r");
    char governor[64] = "";
    if (!f)
        return 0;
    if (!fgets(governor, sizeof governor, f))
        governor[0] = '\0';
    fclose(f);
    return strncmp(governor, "performance", 11) != 0;
}

static json_t *device_json(const sb_device_info *d)
{
    char cc[16];
    snprintf(cc, sizeof cc, "%d.%d", d->cc_major, d->cc_minor);
    return json_pack("{s:i, s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:I, s:i, s:i, s:f, s:f}",
                     "ordinal", d->ordinal, "name", d->name, "uuid", d->uuid,
                     "compute_capability", cc, "sm_count", d->sm_count, "sm_clock_max_mhz",
                     d->sm_clock_max_mhz, "memory_clock_max_mhz", d->memory_clock_max_mhz,
                     "memory_bus_bits", d->memory_bus_bits, "memory_bytes",
                     (json_int_t)d->memory_bytes, "l2_bytes", d->l2_bytes,
                     "single_to_double_perf_ratio", d->single_to_double_perf_ratio,
                     "peak_dram_bytes_per_second", d->peak_bw_measured,
                     "peak_dram_bytes_per_second_theoretical", d->peak_bw_theoretical);
}

json_t *sb_context_json(int argc, char **argv, const sb_device_info *devices, int ndevices,
                        const sb_measure_options *opt)
{
    char date[64], host[256] = "", command[4096] = "";
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S+00:00", gmtime(&now));
    gethostname(host, sizeof host - 1);
    for (int i = 0; i < argc; i++) {
        strncat(command, i ? " " : "", sizeof command - strlen(command) - 1);
        strncat(command, argv[i], sizeof command - strlen(command) - 1);
    }
    double load[3] = {0, 0, 0};
    if (getloadavg(load, 3) != 3)
        load[0] = load[1] = load[2] = 0;

    json_t *cuda = json_null();
    int driver = 0, runtime = 0;
    if (cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0 &&
        cudaRuntimeGetVersion(&runtime) == cudaSuccess)
        cuda = json_pack("{s:i, s:i, s:s}", "driver_version", driver, "runtime_version", runtime,
                         "cupti_version", sb_cupti_version());
    cudaGetLastError();
    json_t *devs = json_array();
    for (int i = 0; i < ndevices; i++)
        json_array_append_new(devs, device_json(&devices[i]));

    json_t *sb = json_pack(
        "{s:i, s:s, s:s, s:{s:s, s:s, s:s, s:s, s:s, s:b}, s:o, s:o, "
        "s:{s:f, s:i, s:f, s:f, s:i, s:s}}",
        "schema", 1, "command", command, "git_commit", SB_GIT_COMMIT, "build", "c_compiler",
        SB_C_COMPILER, "cuda_compiler", SB_CUDA_COMPILER, "c_flags", SB_C_FLAGS, "cuda_flags",
        SB_CUDA_FLAGS, "cuda_architectures", SB_CUDA_ARCHS, "dynamic_parallelism", SB_HAVE_CDP,
        "cuda", cuda, "devices", devs,
        "measurement", "max_noise", opt->max_noise, "min_samples", opt->min_samples,
        "min_time_s", opt->min_time, "timeout_s", opt->timeout, "warmup_runs", opt->warmup_runs,
        "cold", opt->cold == SB_COLD_KERNEL_LEVEL ? "kernel-level" : opt->cold ? "all" : "none");
    const char *counters[] = {"off", "if-available", "required"};
    json_t *metrics = json_array();
    for (int i = 0; i < opt->nmetrics; i++)
        json_array_append_new(metrics, json_string(opt->metrics[i]));
    json_t *measurement = json_object_get(sb, "measurement");
    json_object_set_new(measurement, "counters", json_string(counters[opt->counters]));
    json_object_set_new(measurement, "metrics", opt->nmetrics ? metrics : json_string("default"));
    if (!opt->nmetrics)
        json_decref(metrics);
    json_object_set_new(measurement, "warmup_time_s", json_real(opt->warmup_time));
    json_object_set_new(measurement, "sample_time_s", json_real(opt->sample_time));
    json_object_set_new(measurement, "noise_measure",
                        json_string(opt->noise_measure == SB_NOISE_STDEV ? "stdev" : "robust"));
    json_object_set_new(measurement, "activity", json_boolean(opt->activity));
    json_object_set_new(measurement, "repetitions", json_integer(opt->repetitions));
    json_object_set_new(measurement, "isolate", json_boolean(opt->isolate));
    json_object_set_new(measurement, "variant_timeout_s",
                        opt->isolate ? json_real(sb_variant_time_limit(opt)) : json_null());
    return json_pack("{s:s, s:s, s:s, s:i, s:i, s:b, s:[], s:[f,f,f], s:s, s:o}", "date", date,
                     "host_name", host, "executable", argc > 0 ? argv[0] : "stagebench",
                     "num_cpus", (int)sysconf(_SC_NPROCESSORS_ONLN), "mhz_per_cpu", (int)cpu_mhz(),
                     "cpu_scaling_enabled", cpu_scaling_enabled(), "caches", "load_avg", load[0],
                     load[1], load[2], "library_build_type", "release", "stagebench", sb);
}

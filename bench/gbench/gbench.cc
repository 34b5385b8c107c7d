// bench/gbench/gbench.h over Google Benchmark's C++ API: the project's only C++ file. It uses only API
// present in Debian's 1.7.1 and in 1.8.3 (1.8 takes std::string where 1.7 takes const char *;
// the const char * calls below compile against both).
#include "gbench.h"

#include <benchmark/benchmark.h>

// sb_gb_state is never defined: a pointer to it is a benchmark::State seen from C.
static benchmark::State &state_of(sb_gb_state *st)
{
    return *reinterpret_cast<benchmark::State *>(st);
}

// Google Benchmark's flag bits differ from ours (kAvgIterations is 1 << 3), so map them.
static benchmark::Counter::Flags counter_flags(unsigned flags)
{
    int f = benchmark::Counter::kDefaults;
    if (flags & SB_GB_COUNTER_RATE)
        f |= benchmark::Counter::kIsRate;
    if (flags & SB_GB_COUNTER_AVG_ITERATIONS)
        f |= benchmark::Counter::kAvgIterations;
    if (flags & SB_GB_COUNTER_ITERATION_INVARIANT)
        f |= benchmark::Counter::kIsIterationInvariant;
    return static_cast<benchmark::Counter::Flags>(f);
}

extern "C" {

void sb_gb_initialize(int *argc, char **argv)
{
    benchmark::Initialize(argc, argv);
}

int sb_gb_report_unrecognized(int argc, char **argv)
{
    return benchmark::ReportUnrecognizedArguments(argc, argv) ? 1 : 0;
}

void sb_gb_register(const char *name, sb_gb_function fn, void *arg)
{
    benchmark::RegisterBenchmark(name, [fn, arg](benchmark::State &st) {
        fn(reinterpret_cast<sb_gb_state *>(&st), arg);
    })->UseManualTime()->Unit(benchmark::kMillisecond);
}

void sb_gb_add_custom_context(const char *key, const char *value)
{
    benchmark::AddCustomContext(key, value);
}

size_t sb_gb_run(void)
{
    return benchmark::RunSpecifiedBenchmarks();
}

void sb_gb_shutdown(void)
{
    benchmark::Shutdown();
}

int sb_gb_keep_running(sb_gb_state *st)
{
    return state_of(st).KeepRunning() ? 1 : 0;
}

void sb_gb_set_iteration_time(sb_gb_state *st, double seconds)
{
    state_of(st).SetIterationTime(seconds);
}

void sb_gb_counter(sb_gb_state *st, const char *name, double value, unsigned flags)
{
    state_of(st).counters[name] = benchmark::Counter(value, counter_flags(flags));
}

void sb_gb_set_label(sb_gb_state *st, const char *label)
{
    state_of(st).SetLabel(label);
}

void sb_gb_skip_with_error(sb_gb_state *st, const char *msg)
{
    state_of(st).SkipWithError(msg);
}

} // extern "C"

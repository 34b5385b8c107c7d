#include "smclock.h"

#include <dlfcn.h>
#include <stddef.h>

/* The few NVML entry points used, with their documented C signatures (nvml.h is not part of the
 * toolkit here; the library comes with the driver). */
typedef int (*nvml_init_fn)(void);
typedef int (*nvml_by_uuid_fn)(const char *uuid, void **device);
typedef int (*nvml_clock_fn)(void *device, int clock_type, unsigned *mhz);
typedef int (*nvml_reasons_fn)(void *device, unsigned long long *reasons);
typedef int (*nvml_temperature_fn)(void *device, int sensor, unsigned *celsius);

enum { NVML_SUCCESS = 0, NVML_CLOCK_SM = 1, NVML_TEMPERATURE_GPU = 0 };
/* SwPowerCap | HwSlowdown | SwThermalSlowdown | HwThermalSlowdown | HwPowerBrakeSlowdown */
#define SLOWDOWN_REASONS 0xecull

static nvml_clock_fn get_clock;
static nvml_reasons_fn get_reasons;
static nvml_temperature_fn get_temperature;

void sb_smclock_open(sb_smclock *c, const char *uuid)
{
    static void *lib;
    static int initialised;
    c->available = 0;
    c->device = NULL;
    if (!initialised) {
        initialised = 1;
        lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
        nvml_init_fn init = lib ? (nvml_init_fn)dlsym(lib, "nvmlInit_v2") : NULL;
        if (!init || init() != NVML_SUCCESS) {
            lib = NULL;
            return;
        }
        get_clock = (nvml_clock_fn)dlsym(lib, "nvmlDeviceGetClockInfo");
        get_reasons = (nvml_reasons_fn)dlsym(lib, "nvmlDeviceGetCurrentClocksEventReasons");
        if (!get_reasons)
            get_reasons = (nvml_reasons_fn)dlsym(lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
        get_temperature = (nvml_temperature_fn)dlsym(lib, "nvmlDeviceGetTemperature");
    }
    nvml_by_uuid_fn by_uuid = lib ? (nvml_by_uuid_fn)dlsym(lib, "nvmlDeviceGetHandleByUUID") : NULL;
    if (!by_uuid || !get_clock || by_uuid(uuid, &c->device) != NVML_SUCCESS)
        return;
    unsigned mhz;
    c->available = get_clock(c->device, NVML_CLOCK_SM, &mhz) == NVML_SUCCESS;
}

int sb_smclock_read(const sb_smclock *c, unsigned *mhz, int *throttled)
{
    unsigned long long reasons = 0;
    *mhz = 0;
    *throttled = 0;
    if (!c->available || get_clock(c->device, NVML_CLOCK_SM, mhz) != NVML_SUCCESS)
        return -1;
    if (get_reasons && get_reasons(c->device, &reasons) == NVML_SUCCESS)
        *throttled = (reasons & SLOWDOWN_REASONS) != 0;
    return 0;
}

int sb_smclock_temperature(const sb_smclock *c, unsigned *celsius)
{
    *celsius = 0;
    if (!c->available || !get_temperature ||
        get_temperature(c->device, NVML_TEMPERATURE_GPU, celsius) != NVML_SUCCESS)
        return -1;
    return 0;
}

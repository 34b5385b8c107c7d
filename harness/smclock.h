/* SM clock and slowdown reasons through NVML, loaded at run time (so the suite still runs where
 * there is no driver). NVML may be missing or refuse: then `available` is 0 and records say so. */
#ifndef SB_SMCLOCK_H
#define SB_SMCLOCK_H

typedef struct sb_smclock {
    int available;
    void *device; /* nvmlDevice_t */
} sb_smclock;

/* uuid as "GPU-xxxxxxxx-..." (sb_device_info.uuid). Never fails: sets available. */
void sb_smclock_open(sb_smclock *c, const char *uuid);
/* Current SM clock (MHz) and whether a power, thermal or hardware slowdown is active. */
int sb_smclock_read(const sb_smclock *c, unsigned *mhz, int *throttled);
/* The GPU's temperature (degrees Celsius); -1 where NVML cannot say. */
int sb_smclock_temperature(const sb_smclock *c, unsigned *celsius);

#endif

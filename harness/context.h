/* The environment a run measured in: host, build, CUDA versions, devices, measurement settings. */
#ifndef SB_CONTEXT_H
#define SB_CONTEXT_H

#include <jansson.h>

#include "../cuda/devinfo.h"
#include "measure.h"

#ifdef __cplusplus
extern "C" {
#endif

json_t *sb_context_json(int argc, char **argv, const sb_device_info *devices, int ndevices,
                        const sb_measure_options *opt);

#ifdef __cplusplus
}
#endif

#endif

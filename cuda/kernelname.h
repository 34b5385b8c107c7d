/* Readable short names of kernels, from the Itanium-mangled symbols CUPTI reports. */
#ifndef SB_KERNELNAME_H
#define SB_KERNELNAME_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The kernel's qualified name without parameters or template arguments, joined with "::":
 * "_ZN3cub17CUB_300001_SM_9006detail4scan16DeviceScanKernelINS2_...EEvT0_T1_T2_iT3_T4_T5_" gives
 * "cub::detail::scan::DeviceScanKernel". CCCL's versioned inline namespace (CUB_300001_SM_900)
 * is left out, so that a kernel keeps its name from one toolkit to the next; an anonymous
 * namespace reads "(anonymous namespace)". A name that is not mangled is copied as it is, and a
 * mangled one this cannot read is copied whole. Bytes outside printable ASCII become '?' (the
 * name goes into JSON and text tables). Writes at most cap bytes, NUL included (the name cut
 * short if need be); returns out. */
const char *sb_kernel_short_name(const char *symbol, char *out, size_t cap);

#ifdef __cplusplus
}
#endif

#endif

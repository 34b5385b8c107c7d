/* One spelling for functions compiled for both host and device. */
#ifndef SB_HD_H
#define SB_HD_H

#ifdef __CUDACC__
#define SB_HD static inline __host__ __device__
#else
#define SB_HD static inline
#endif

#endif

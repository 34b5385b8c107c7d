/* The copies workload (Lattice Microbes' multi-GPU paper, fig. 4): one payload of `bytes` bytes
 * copied once, from the host to a GPU or from one GPU to another. The payload is a formula of
 * the byte's index and the seed, so every variant can make it where it starts and the received
 * bytes can be compared bitwise with the CPU reference's copy. */
#ifndef CP_MODEL_H
#define CP_MODEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cp_model {
    size_t bytes;
    uint32_t seed;
} cp_model;

/* What a variant received: `bytes` bytes, on the host. */
typedef struct cp_output {
    size_t bytes;
    uint8_t *data;
} cp_output;

/* Byte i of the payload: a 64-bit multiplicative hash of (i, seed), so that neighbouring bytes
 * differ and a shifted, truncated or repeated copy shows up at its first wrong byte. */
static inline uint8_t cp_payload_byte(size_t i, uint32_t seed)
{
    uint64_t x = ((uint64_t)i + 1) * 0x9e3779b97f4a7c15ull ^ (uint64_t)seed * 0xc2b2ae3d27d4eb4full;
    x ^= x >> 29;
    return (uint8_t)(x >> 56);
}

void cp_payload_fill(uint8_t *buf, const cp_model *m);

#ifdef __cplusplus
}
#endif

#endif

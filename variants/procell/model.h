/* ProCell: stochastic proliferation of a cell population from a fluorescence histogram.
 * See ../shared/spec/procell.md. This header holds the model as every variant sees it. */
#ifndef PC_MODEL_H
#define PC_MODEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PC_MAX_TYPES 16
/* A cell's path within its root's tree is one bit per generation in a uint64. */
#define PC_MAX_GEN 63

/* Everything that decides a cell's fate: small, passed to kernels by value. */
typedef struct pc_rules {
    uint32_t seed;
    int ntypes;
    int async_start;
    double t_max, phi_min;
    double cum[PC_MAX_TYPES];  /* cumulative proportions: type j when u < cum[j] */
    double mean[PC_MAX_TYPES]; /* hours; quiescent types are flagged, not infinite */
    double sd[PC_MAX_TYPES];
    int quiescent[PC_MAX_TYPES];
} pc_rules;

/* The initial population, row by row (rows with count 0 dropped), and the table of every
 * fluorescence a counted cell can have. Root r belongs to the row i with
 * root_start[i] <= r < root_start[i+1]; rows are in file order. */
typedef struct pc_model {
    pc_rules rules;
    int nrows;
    double *phi;          /* fluorescence of each row */
    uint64_t *root_start; /* nrows + 1 */
    uint64_t nroots;
    /* Omega: sorted distinct values phi_i / 2^g a terminal cell can have. */
    int nomega;
    double *omega;
    /* omega_index[i * gen_stride + g]: index in omega of phi_i / 2^g; gen_stride = deepest
     * generation any row reaches + 1. */
    int gen_stride;
    uint32_t *omega_index;
    int deepest_generation; /* by fluorescence alone: a bound for stacks and level counts */
    char histogram_path[1024];
    char types_desc[1024];  /* preset name or path */
} pc_model;

/* Final histogram and totals: what every variant must reproduce bit for bit. */
typedef struct pc_output {
    int nomega;
    unsigned long long *counts; /* per omega entry */
    unsigned long long divisions, terminal, vanished;
} pc_output;

/* Parsed inputs (parse.c). Errors name file:line and the fix. */
typedef struct pc_histogram_row {
    double phi;
    uint64_t count;
} pc_histogram_row;

int pc_parse_histogram(const char *path, pc_histogram_row **rows, int *nrows);
int pc_parse_types(const char *path, pc_rules *rules);
/* m1..m4: the published ProCell parameter sets; 0 when `name` is not one of them. */
int pc_types_preset(const char *name, pc_rules *rules);
/* Their names, as the types parameter declares them (`stagebench list` shows them). */
#define PC_TYPES_PRESETS "m1|m2|m3|m4"
/* The types parameter's value: a preset, else a types file. A value that is neither (a mistyped
 * preset, a missing file) is refused naming the presets and the file form. */
int pc_types_load(const char *value, pc_rules *rules);

/* Builds the model (model.c): replicate multiplies counts; phi_min < 0 means "from the data". */
int pc_model_build(pc_model *m, const pc_histogram_row *rows, int nrows, uint64_t replicate,
                   double phi_min, double t_max, int async_start, uint32_t seed);
void pc_model_free(pc_model *m);

int pc_output_init(pc_output *o, const pc_model *m);
void pc_output_free(pc_output *o);
void pc_output_zero(pc_output *o);
void pc_output_copy(pc_output *dst, const pc_output *src);

#ifdef __cplusplus
}
#endif

#endif

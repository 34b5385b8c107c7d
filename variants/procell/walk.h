/* Depth-first walk of one root's tree with a small explicit stack: ProCell's algorithm, per root.
 * Shared by cpu-openmp, subtree-dfs and multi-gpu, so the walk is written once; those variants
 * differ in how they spread roots and merge counts. (cpu-reference keeps its own LIFO loop: the
 * oracle should not share the code it checks beyond the rule in fate.h.) */
#ifndef PC_WALK_H
#define PC_WALK_H

#include "fate.h"

typedef struct pc_tally {
    unsigned long long divisions, terminal, vanished, too_deep;
} pc_tally;

/* Where the walk finds its tables: host or device pointers, as the caller runs. */
typedef struct pc_tables {
    const double *phi;
    const uint64_t *root_start;
    const uint32_t *omega_index;
    int nrows, gen_stride;
} pc_tables;

SB_HD void pc_count_terminal(unsigned long long *hist, uint32_t i)
{
#ifdef __CUDA_ARCH__
    atomicAdd(&hist[i], 1ull); /* shared or global: the generic address picks */
#else
    hist[i]++;
#endif
}

/* The generation -> Omega bin row of a root's cells (a tree's cells all share its root's row). */
SB_HD const uint32_t *pc_omega_row(const pc_tables *tab, uint32_t root)
{
    int row = pc_row_of_root(tab->root_start, tab->nrows, root);
    return tab->omega_index + (size_t)row * tab->gen_stride;
}

/* Cell c's fate, counted where the cell ends (terminal into hist, vanished, too deep); 1 when it
 * divides at *t_division instead, its two daughters still to walk. */
SB_HD int pc_visit(const pc_rules *r, const pc_cell *c, const uint32_t *omega_of_generation,
                   unsigned long long *hist, pc_tally *tally, double *t_division)
{
    int fate = pc_fate(r, c, t_division);
    if (fate == PC_TERMINAL) {
        pc_count_terminal(hist, omega_of_generation[c->g]);
        tally->terminal++;
        return 0;
    }
    if (fate == PC_VANISHES) {
        tally->vanished++;
        return 0;
    }
    if (fate == PC_TOO_DEEP) {
        tally->too_deep++;
        return 0;
    }
    tally->divisions++;
    return 1;
}

SB_HD void pc_walk_root(const pc_rules *r, const pc_tables *tab, uint32_t root,
                        unsigned long long *hist, pc_tally *tally)
{
    int row = pc_row_of_root(tab->root_start, tab->nrows, root);
    const uint32_t *omega_of_generation = tab->omega_index + (size_t)row * tab->gen_stride;
    pc_cell stack[PC_MAX_GEN + 1]; /* one pending second daughter per generation at most */
    int top = 0;
    stack[top++] = pc_root_cell(r, root, tab->phi[row]);
    while (top > 0) {
        pc_cell c = stack[--top];
        double t_division;
        while (pc_visit(r, &c, omega_of_generation, hist, tally, &t_division)) {
            stack[top++] = pc_daughter(&c, t_division, 1);
            c = pc_daughter(&c, t_division, 0);
        }
    }
}

#endif

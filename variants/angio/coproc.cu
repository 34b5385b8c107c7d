/* The co-processor engine of the paper's GPU stages (coproc.h). Per step: the host's cell lists;
 * the cell-cell phase (convert, copy in, kernels, copy out, add into the host's cells); the
 * tube-cell phase likewise; the life cycle on the host. The tubes' geometry and their box lists
 * are static and go to the GPU once, at setup; their TAF gains come back every step. */
#include <stdlib.h>
#include <string.h>

#include "../../cuda/check.h"
#include "../../cuda/base/error.h"
#include "box-tubes.cuh"
#include "coproc.h"
#include "host.h"
#include "physics.h"

#define THREADS 256

/* Lists that fill up are rebuilt larger, never truncated. */
#define FIRST_NEIGHBOURS 32
#define FIRST_TUBES 8

typedef struct geom {
    float edge;
    int nbox;
    float r_max;
} geom;

typedef struct coproc {
    ag_stage *st; /* the host simulation and phases */
    ag_coproc_stage stage;
    cudaStream_t stream;
    int cap;       /* cells (the model's max_cells) */
    int box_cap;   /* slots per box for the shared-memory list builder */
    int nbr_cap;   /* neighbours per cell */
    int tube_cap;  /* tubes per cell */
    long long rebuilds;
    /* host buffers (page-locked for the pinned stage) */
    float4 *h_pos, *h_eff;
    float2 *h_ca, *h_ex;
    int *h_box_start, *h_box_cells, *h_slots;
    float *h_gain;
    unsigned long long *h_pairs;
    int *h_most;
    /* device */
    float4 *d_pos, *d_eff;
    float2 *d_ca, *d_ex;
    int *d_box_start, *d_box_cells, *d_slots, *d_nbr, *d_nbr_count, *d_tube_list,
        *d_tube_count, *d_tube_start, *d_tube_boxes;
    ag_tube *d_tubes;
    float *d_gain;
    unsigned long long *d_pairs;
    int *d_most;
    cudaTextureObject_t tex_pos, tex_ca;
} coproc;

/* ---- kernels ---- */

__device__ void load_cell(const float4 *pos, const float2 *ca, int i, float *x, float *r,
                          float *c, float *a)
{
    float4 p = pos[i];
    float2 q = ca[i];
    x[0] = p.x, x[1] = p.y, x[2] = p.z, *r = p.w, *c = q.x, *a = q.y;
}

__device__ void add_effect(const ag_effect *e, float4 *eff, float2 *ex)
{
    eff->x += e->f[0], eff->y += e->f[1], eff->z += e->f[2], eff->w += e->p;
    ex->x += e->dc, ex->y += e->da;
}

/* Alg. 3: a thread per cell over the 27 boxes around it, every interaction in one kernel. */
__global__ void cell_cell_naive(ag_laws l, geom g, const float4 *pos, const float2 *ca,
                                const int *box_start, const int *box_cells, int n, float4 *eff,
                                float2 *ex, unsigned long long *pairs)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x[3], r, c, a;
    load_cell(pos, ca, i, x, &r, &c, &a);
    int b[3];
    for (int k = 0; k < 3; k++)
        b[k] = ag_box_at(x[k], g.edge, g.nbox);
    float4 f = make_float4(0, 0, 0, 0);
    float2 e2 = make_float2(0, 0);
    unsigned long long met = 0;
    for (int z = b[2] - 1; z <= b[2] + 1; z++)
        for (int y = b[1] - 1; y <= b[1] + 1; y++)
            for (int xb = b[0] - 1; xb <= b[0] + 1; xb++) {
                if (xb < 0 || xb >= g.nbox || y < 0 || y >= g.nbox || z < 0 || z >= g.nbox)
                    continue;
                int box = xb + g.nbox * (y + g.nbox * z);
                for (int k = box_start[box]; k < box_start[box + 1]; k++) {
                    int j = box_cells[k];
                    float xj[3], rj, cj, aj;
                    load_cell(pos, ca, j, xj, &rj, &cj, &aj);
                    ag_effect e;
                    if (j != i && ag_cell_pair(&l, x, r, c, a, xj, rj, cj, aj, &e)) {
                        add_effect(&e, &f, &e2);
                        met++;
                    }
                }
            }
    eff[i] = f;
    ex[i] = e2;
    atomicAdd(pairs, met);
}

/* 3.3: a thread per cell lists the cells within range in its 27 boxes. */
__global__ void list_neighbours(ag_laws l, geom g, const float4 *pos, const int *box_start,
                                const int *box_cells, int n, int *nbr, int *count, int cap,
                                int *most)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float4 p = pos[i];
    float x[3] = {p.x, p.y, p.z};
    int b[3], found = 0;
    for (int k = 0; k < 3; k++)
        b[k] = ag_box_at(x[k], g.edge, g.nbox);
    for (int z = b[2] - 1; z <= b[2] + 1; z++)
        for (int y = b[1] - 1; y <= b[1] + 1; y++)
            for (int xb = b[0] - 1; xb <= b[0] + 1; xb++) {
                if (xb < 0 || xb >= g.nbox || y < 0 || y >= g.nbox || z < 0 || z >= g.nbox)
                    continue;
                int box = xb + g.nbox * (y + g.nbox * z);
                for (int k = box_start[box]; k < box_start[box + 1]; k++) {
                    int j = box_cells[k];
                    float4 q = pos[j];
                    float xj[3] = {q.x, q.y, q.z};
                    if (j != i && ag_cells_meet(&l, x, p.w, xj, q.w)) {
                        if (found < cap)
                            nbr[(size_t)i * cap + found] = j;
                        found++;
                    }
                }
            }
    count[i] = found;
    atomicMax(most, found);
}

/* Alg. 4: a block per box, a thread per slot of it (the block is the box's capacity); each of
 * the 27 boxes around is staged in shared memory, a cell a thread, and every thread of the box
 * tests its cell against them. */
__global__ void list_neighbours_shared(ag_laws l, geom g, const float4 *pos, const int *box_start,
                                       const int *slots, int box_cap, int *nbr, int *count,
                                       int cap, int *most)
{
    extern __shared__ float4 staged[];
    int *staged_id = (int *)(staged + box_cap);
    int box = blockIdx.x, t = threadIdx.x;
    int bx = box % g.nbox, by = box / g.nbox % g.nbox, bz = box / (g.nbox * g.nbox);
    int i = t < box_start[box + 1] - box_start[box] ? slots[(size_t)box * box_cap + t] : -1;
    float4 p = i >= 0 ? pos[i] : make_float4(0, 0, 0, 0);
    float x[3] = {p.x, p.y, p.z};
    int found = 0;
    for (int k = 0; k < 27; k++) {
        int xb = bx + k % 3 - 1, y = by + k / 3 % 3 - 1, z = bz + k / 9 - 1;
        bool inside = xb >= 0 && xb < g.nbox && y >= 0 && y < g.nbox && z >= 0 && z < g.nbox;
        int other = inside ? xb + g.nbox * (y + g.nbox * z) : 0;
        int n2 = inside ? box_start[other + 1] - box_start[other] : 0;
        __syncthreads(); /* the previous box's stage is read by every thread */
        int j = t < n2 ? slots[(size_t)other * box_cap + t] : -1;
        staged_id[t] = j;
        if (j >= 0)
            staged[t] = pos[j];
        __syncthreads();
        if (i < 0)
            continue;
        for (int s = 0; s < n2; s++) {
            float4 q = staged[s];
            float xj[3] = {q.x, q.y, q.z};
            if (staged_id[s] != i && ag_cells_meet(&l, x, p.w, xj, q.w)) {
                if (found < cap)
                    nbr[(size_t)i * cap + found] = staged_id[s];
                found++;
            }
        }
    }
    if (i >= 0) {
        count[i] = found;
        atomicMax(most, found);
    }
}

/* 3.3, 3.5: the interactions of a cell with its listed neighbours, their properties read through
 * plain loads or, with TEXTURE, texture objects (the read-only cache). */
template <bool TEXTURE>
__global__ void interact_listed(ag_laws l, const float4 *pos, const float2 *ca,
                                cudaTextureObject_t tex_pos, cudaTextureObject_t tex_ca,
                                const int *nbr, const int *count, int cap, int n, float4 *eff,
                                float2 *ex, unsigned long long *pairs)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x[3], r, c, a;
    load_cell(pos, ca, i, x, &r, &c, &a);
    float4 f = make_float4(0, 0, 0, 0);
    float2 e2 = make_float2(0, 0);
    int listed = count[i];
    for (int k = 0; k < listed; k++) {
        int j = nbr[(size_t)i * cap + k];
        float4 q = TEXTURE ? tex1Dfetch<float4>(tex_pos, j) : pos[j];
        float2 w = TEXTURE ? tex1Dfetch<float2>(tex_ca, j) : ca[j];
        float xj[3] = {q.x, q.y, q.z};
        ag_effect e;
        if (ag_cell_pair(&l, x, r, c, a, xj, q.w, w.x, w.y, &e))
            add_effect(&e, &f, &e2);
    }
    eff[i] = f;
    ex[i] = e2;
    atomicAdd(pairs, (unsigned long long)listed);
}

/* Before tube lists: each cell searches the tubes listed for its box, adding its TAF to the tube
 * with an atomic (two cells may feed one tube). */
__global__ void tube_search(ag_laws l, geom g, const float4 *pos, const float2 *ca, int n,
                            const ag_tube *tubes, const int *tube_start, const int *tube_boxes,
                            float4 *eff, float2 *ex, float *gain, unsigned long long *pairs)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x[3], r, c, a;
    load_cell(pos, ca, i, x, &r, &c, &a);
    int box = ag_box_at(x[0], g.edge, g.nbox) +
              g.nbox * (ag_box_at(x[1], g.edge, g.nbox) + g.nbox * ag_box_at(x[2], g.edge, g.nbox));
    ag_cell sum = {};
    unsigned met = ag_box_tubes(&l, tubes, tube_boxes, tube_start[box], tube_start[box + 1], 1, x,
                                r, c, a, &sum, gain, sizeof *gain);
    eff[i] = make_float4(sum.f[0], sum.f[1], sum.f[2], sum.p);
    ex[i] = make_float2(sum.dc, sum.da);
    atomicAdd(pairs, (unsigned long long)met);
}

/* Alg. 5: a thread per tube over the cells of the boxes it reaches: the tube's own TAF, and the
 * tube appended to each cell it meets (atomicAdd on the cell's count). */
__global__ void tube_lists_build(ag_laws l, geom g, const ag_tube *tubes, int ntubes,
                                 const float4 *pos, const float2 *ca, const int *box_start,
                                 const int *box_cells, int *list, int *count, int cap,
                                 float *gain, unsigned long long *pairs)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= ntubes)
        return;
    ag_tube tube = tubes[t];
    int lo[3], hi[3];
    ag_tube_box_range(&tube, l.k_c, g.r_max, g.edge, g.nbox, lo, hi);
    float taf_sum = 0;
    unsigned long long met = 0;
    for (int z = lo[2]; z <= hi[2]; z++)
        for (int y = lo[1]; y <= hi[1]; y++)
            for (int x = lo[0]; x <= hi[0]; x++) {
                int box = x + g.nbox * (y + g.nbox * z);
                for (int k = box_start[box]; k < box_start[box + 1]; k++) {
                    int j = box_cells[k];
                    float xj[3], rj, cj, aj;
                    load_cell(pos, ca, j, xj, &rj, &cj, &aj);
                    ag_effect e;
                    float taf;
                    if (!ag_tube_cell(&l, &tube, xj, rj, cj, aj, &e, &taf))
                        continue;
                    int slot = atomicAdd(&count[j], 1);
                    if (slot < cap)
                        list[(size_t)j * cap + slot] = t;
                    taf_sum += taf;
                    met++;
                }
            }
    gain[t] = taf_sum;
    atomicAdd(pairs, met);
}

/* Alg. 6: a thread per cell over the tubes listed for it. */
__global__ void tube_lists_gather(ag_laws l, const ag_tube *tubes, const float4 *pos,
                                  const float2 *ca, int n, const int *list, const int *count,
                                  int cap, float4 *eff, float2 *ex, int *most)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x[3], r, c, a;
    load_cell(pos, ca, i, x, &r, &c, &a);
    float4 f = make_float4(0, 0, 0, 0);
    float2 e2 = make_float2(0, 0);
    int listed = count[i];
    atomicMax(most, listed);
    for (int k = 0; k < listed && k < cap; k++) {
        ag_effect e;
        float taf;
        if (ag_tube_cell(&l, &tubes[list[(size_t)i * cap + k]], x, r, c, a, &e, &taf))
            add_effect(&e, &f, &e2);
    }
    eff[i] = f;
    ex[i] = e2;
}

/* ---- buffers ---- */

static int host_alloc(coproc *g, void **p, size_t bytes)
{
    if (g->stage.pinned) {
        SB_CUDA(cudaMallocHost(p, bytes));
        return 0;
    }
    *p = malloc(bytes);
    return *p ? 0 : sb_fail("out of host memory (%zu bytes)", bytes);
}

static void host_free(const coproc *g, void *p)
{
    if (!p)
        return;
    if (g->stage.pinned)
        cudaFreeHost(p);
    else
        free(p);
}

static int dev_alloc(coproc *g, void **p, size_t bytes, const char *what)
{
    sb_env *env = g->st->env;
    return sb_dev_alloc(&env->mem, env->devices[0], p, bytes ? bytes : 4, what);
}

/* Lists of `per_cell` entries a cell (neighbours, tubes), allocated again when they grow. */
static int alloc_lists(coproc *g, int **list, int per_cell, const char *what)
{
    if (*list)
        sb_dev_free(&g->st->env->mem, *list);
    *list = NULL;
    return dev_alloc(g, (void **)list, (size_t)g->cap * per_cell * sizeof(int), what);
}

static int alloc_slots(coproc *g)
{
    sb_env *env = g->st->env;
    size_t n = (size_t)g->st->sim.nboxes * g->box_cap;
    host_free(g, g->h_slots);
    g->h_slots = NULL;
    if (g->d_slots)
        sb_dev_free(&env->mem, g->d_slots);
    g->d_slots = NULL;
    if (host_alloc(g, (void **)&g->h_slots, n * sizeof(int)) != 0)
        return -1;
    return dev_alloc(g, (void **)&g->d_slots, n * sizeof(int), "box slots");
}

static int copy_in(coproc *g, void *dst, const void *src, size_t bytes)
{
    return sb_copy(&g->st->env->xfer, dst, src, bytes, cudaMemcpyHostToDevice, g->stream);
}

static int copy_out(coproc *g, void *dst, const void *src, size_t bytes)
{
    return sb_copy(&g->st->env->xfer, dst, src, bytes, cudaMemcpyDeviceToHost, g->stream);
}

/* ---- the phases ---- */

/* The host's cells as arrays per property, in id order (and, for the shared-memory builder,
 * into box slots, which grow when a box holds more cells than the block has threads). */
static int convert_cells(coproc *g, int slots)
{
    ag_sim *s = &g->st->sim;
    for (int i = 0; i < s->ncells; i++) {
        const ag_cell *c = &s->cells[i];
        g->h_pos[i] = make_float4(c->x[0], c->x[1], c->x[2], c->r);
        g->h_ca[i] = make_float2(c->c, c->a);
    }
    memcpy(g->h_box_start, s->box_start, ((size_t)s->nboxes + 1) * sizeof(int));
    memcpy(g->h_box_cells, s->box_cells, (size_t)s->ncells * sizeof(int));
    if (!slots)
        return 0;
    int fullest = 0;
    for (int b = 0; b < s->nboxes; b++)
        if (s->box_start[b + 1] - s->box_start[b] > fullest)
            fullest = s->box_start[b + 1] - s->box_start[b];
    if (fullest > g->box_cap) {
        if (fullest > 1024)
            return sb_fail("step %lld: a box holds %d cells, more than a block's 1024 threads: "
                           "lower the density or the radius",
                           s->step, fullest);
        while (g->box_cap < fullest)
            g->box_cap *= 2;
        g->rebuilds++;
        if (alloc_slots(g) != 0)
            return -1;
    }
    for (int b = 0; b < s->nboxes; b++) {
        int *slot = g->h_slots + (size_t)b * g->box_cap, n = s->box_start[b + 1] - s->box_start[b];
        memcpy(slot, s->box_cells + s->box_start[b], (size_t)n * sizeof(int));
        for (int k = n; k < g->box_cap; k++)
            slot[k] = -1;
    }
    return 0;
}

static int copy_cells_in(coproc *g, int slots)
{
    ag_sim *s = &g->st->sim;
    size_t n = (size_t)s->ncells;
    if (copy_in(g, g->d_pos, g->h_pos, n * sizeof(float4)) != 0 ||
        copy_in(g, g->d_ca, g->h_ca, n * sizeof(float2)) != 0 ||
        copy_in(g, g->d_box_start, g->h_box_start, ((size_t)s->nboxes + 1) * sizeof(int)) != 0 ||
        copy_in(g, g->d_box_cells, g->h_box_cells, n * sizeof(int)) != 0 ||
        (slots && copy_in(g, g->d_slots, g->h_slots,
                          (size_t)s->nboxes * g->box_cap * sizeof(int)) != 0))
        return -1;
    SB_CUDA(cudaStreamSynchronize(g->stream));
    return 0;
}

/* The phase's results back, added into the host's cells. */
static int copy_effects_out(coproc *g, int tubes)
{
    ag_sim *s = &g->st->sim;
    size_t n = (size_t)s->ncells;
    if (copy_out(g, g->h_eff, g->d_eff, n * sizeof(float4)) != 0 ||
        copy_out(g, g->h_ex, g->d_ex, n * sizeof(float2)) != 0 ||
        copy_out(g, g->h_pairs, g->d_pairs, sizeof *g->h_pairs) != 0 ||
        (tubes && copy_out(g, g->h_gain, g->d_gain, (size_t)s->m->ntubes * sizeof(float)) != 0))
        return -1;
    SB_CUDA(cudaStreamSynchronize(g->stream));
    return 0;
}

static void add_effects(coproc *g)
{
    ag_sim *s = &g->st->sim;
    for (int i = 0; i < s->ncells; i++) {
        ag_cell *c = &s->cells[i];
        float4 e = g->h_eff[i];
        c->f[0] += e.x, c->f[1] += e.y, c->f[2] += e.z, c->p += e.w;
        c->dc += g->h_ex[i].x, c->da += g->h_ex[i].y;
    }
}

static unsigned blocks(int n)
{
    return (unsigned)((n + THREADS - 1) / THREADS);
}

static int read_most(coproc *g, int *most)
{
    if (copy_out(g, g->h_most, g->d_most, sizeof(int)) != 0)
        return -1;
    SB_CUDA(cudaStreamSynchronize(g->stream));
    *most = *g->h_most;
    return 0;
}

/* The neighbour lists (not gpu-naive), built again larger when a cell has more neighbours
 * than they hold. */
static int cell_cell_lists(coproc *g)
{
    ag_sim *s = &g->st->sim;
    const ag_model *m = s->m;
    geom ge = {m->box_edge, m->nbox, m->r_max};
    int n = s->ncells;
    if (n == 0 || g->stage.cells == AG_CC_NAIVE)
        return 0;
    for (;;) {
        SB_CUDA(cudaMemsetAsync(g->d_most, 0, sizeof(int), g->stream));
        if (g->stage.cells == AG_CC_LIST)
            list_neighbours<<<blocks(n), THREADS, 0, g->stream>>>(
                m->laws, ge, g->d_pos, g->d_box_start, g->d_box_cells, n, g->d_nbr,
                g->d_nbr_count, g->nbr_cap, g->d_most);
        else
            list_neighbours_shared<<<(unsigned)s->nboxes, (unsigned)g->box_cap,
                                     (size_t)g->box_cap * (sizeof(float4) + sizeof(int)),
                                     g->stream>>>(m->laws, ge, g->d_pos, g->d_box_start,
                                                  g->d_slots, g->box_cap, g->d_nbr,
                                                  g->d_nbr_count, g->nbr_cap, g->d_most);
        SB_LAUNCHED("list_neighbours");
        int most = 0;
        if (read_most(g, &most) != 0)
            return -1;
        if (most <= g->nbr_cap)
            return 0;
        while (g->nbr_cap < most)
            g->nbr_cap *= 2;
        g->rebuilds++;
        if (alloc_lists(g, &g->d_nbr, g->nbr_cap, "neighbour lists") != 0)
            return -1;
    }
}

static int cell_cell_kernels(coproc *g)
{
    ag_sim *s = &g->st->sim;
    const ag_model *m = s->m;
    geom ge = {m->box_edge, m->nbox, m->r_max};
    int n = s->ncells;
    SB_CUDA(cudaMemsetAsync(g->d_pairs, 0, sizeof *g->d_pairs, g->stream));
    if (n == 0)
        return 0;
    if (g->stage.cells == AG_CC_NAIVE) {
        cell_cell_naive<<<blocks(n), THREADS, 0, g->stream>>>(m->laws, ge, g->d_pos, g->d_ca,
                                                              g->d_box_start, g->d_box_cells, n,
                                                              g->d_eff, g->d_ex, g->d_pairs);
        SB_LAUNCHED("cell_cell_naive");
        return 0;
    }
    if (g->stage.cells == AG_CC_LIST_TEXTURE)
        interact_listed<true><<<blocks(n), THREADS, 0, g->stream>>>(
            m->laws, g->d_pos, g->d_ca, g->tex_pos, g->tex_ca, g->d_nbr, g->d_nbr_count,
            g->nbr_cap, n, g->d_eff, g->d_ex, g->d_pairs);
    else
        interact_listed<false><<<blocks(n), THREADS, 0, g->stream>>>(
            m->laws, g->d_pos, g->d_ca, g->tex_pos, g->tex_ca, g->d_nbr, g->d_nbr_count,
            g->nbr_cap, n, g->d_eff, g->d_ex, g->d_pairs);
    SB_LAUNCHED("interact_listed");
    return 0;
}

static int tube_cell_kernels(coproc *g)
{
    ag_sim *s = &g->st->sim;
    const ag_model *m = s->m;
    geom ge = {m->box_edge, m->nbox, m->r_max};
    int n = s->ncells;
    SB_CUDA(cudaMemsetAsync(g->d_pairs, 0, sizeof *g->d_pairs, g->stream));
    SB_CUDA(cudaMemsetAsync(g->d_gain, 0, (size_t)m->ntubes * sizeof(float), g->stream));
    if (n == 0 || m->ntubes == 0)
        return 0;
    if (!g->stage.tube_lists) {
        tube_search<<<blocks(n), THREADS, 0, g->stream>>>(m->laws, ge, g->d_pos, g->d_ca, n,
                                                          g->d_tubes, g->d_tube_start,
                                                          g->d_tube_boxes, g->d_eff, g->d_ex,
                                                          g->d_gain, g->d_pairs);
        SB_LAUNCHED("tube_search");
        return 0;
    }
    for (;;) {
        SB_CUDA(cudaMemsetAsync(g->d_tube_count, 0, (size_t)n * sizeof(int), g->stream));
        SB_CUDA(cudaMemsetAsync(g->d_pairs, 0, sizeof *g->d_pairs, g->stream));
        SB_CUDA(cudaMemsetAsync(g->d_most, 0, sizeof(int), g->stream));
        tube_lists_build<<<blocks(m->ntubes), THREADS, 0, g->stream>>>(
            m->laws, ge, g->d_tubes, m->ntubes, g->d_pos, g->d_ca, g->d_box_start,
            g->d_box_cells, g->d_tube_list, g->d_tube_count, g->tube_cap, g->d_gain, g->d_pairs);
        SB_LAUNCHED("tube_lists_build");
        tube_lists_gather<<<blocks(n), THREADS, 0, g->stream>>>(
            m->laws, g->d_tubes, g->d_pos, g->d_ca, n, g->d_tube_list, g->d_tube_count,
            g->tube_cap, g->d_eff, g->d_ex, g->d_most);
        SB_LAUNCHED("tube_lists_gather");
        int most = 0;
        if (read_most(g, &most) != 0)
            return -1;
        if (most <= g->tube_cap)
            return 0;
        while (g->tube_cap < most)
            g->tube_cap *= 2;
        g->rebuilds++;
        if (alloc_lists(g, &g->d_tube_list, g->tube_cap, "tube lists") != 0)
            return -1;
    }
}

/* Host clock around each part, the stream drained at its end: the paper's split of a phase. */
#define TIMED(name, call)                                                                          \
    do {                                                                                           \
        double t_ = sb_phase_begin(st->env, name);                                                 \
        int rc_ = (call);                                                                          \
        if (rc_ == 0)                                                                              \
            rc_ = cudaStreamSynchronize(g->stream) == cudaSuccess                                  \
                      ? 0                                                                          \
                      : sb_fail("%s: %s", name, cudaGetErrorString(cudaGetLastError()));           \
        sb_phase_end(&st->phases, name, t_);                                                       \
        if (rc_ != 0)                                                                              \
            return -1;                                                                             \
    } while (0)

static int add_cell_phase(coproc *g)
{
    add_effects(g);
    g->st->sim.cell_pairs += (long long)(*g->h_pairs / 2); /* every pair seen from both cells */
    return 0;
}

static int add_tube_phase(coproc *g)
{
    ag_sim *s = &g->st->sim;
    add_effects(g);
    for (int t = 0; t < s->m->ntubes; t++)
        s->tubes[t].taf += g->h_gain[t];
    s->tube_pairs += (long long)*g->h_pairs;
    return 0;
}

static int step(ag_stage *st)
{
    coproc *g = (coproc *)st->gpu;
    ag_sim *s = &st->sim;
    int slots = g->stage.cells >= AG_CC_LIST_SHARED;
    TIMED("cell lists", (ag_sim_bin(s), ag_sim_clear_effects(s), 0));
    TIMED("cell-cell conversion", convert_cells(g, slots));
    TIMED("cell-cell copies", copy_cells_in(g, slots));
    if (g->stage.cells != AG_CC_NAIVE)
        TIMED("cell-cell lists", cell_cell_lists(g));
    TIMED("cell-cell kernels", cell_cell_kernels(g));
    TIMED("cell-cell copies", copy_effects_out(g, 0));
    TIMED("cell-cell conversion", add_cell_phase(g));
    if (s->m->ntubes > 0) {
        TIMED("tube-cell conversion", convert_cells(g, 0));
        TIMED("tube-cell copies", copy_cells_in(g, 0));
        TIMED("tube-cell kernels", tube_cell_kernels(g));
        TIMED("tube-cell copies", copy_effects_out(g, 1));
        TIMED("tube-cell conversion", add_tube_phase(g));
    }
    TIMED("life cycle", ag_sim_life(s));
    return 0;
}

/* ---- set-up ---- */

static int texture_of(void *data, size_t bytes, cudaChannelFormatDesc format,
                      cudaTextureObject_t *tex)
{
    cudaResourceDesc res;
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = data;
    res.res.linear.desc = format;
    res.res.linear.sizeInBytes = bytes;
    cudaTextureDesc desc;
    memset(&desc, 0, sizeof desc);
    desc.readMode = cudaReadModeElementType;
    SB_CUDA(cudaCreateTextureObject(tex, &res, &desc, NULL));
    return 0;
}

static int open_gpu(coproc *g)
{
    ag_sim *s = &g->st->sim;
    const ag_model *m = s->m;
    size_t cap = (size_t)g->cap, boxes = (size_t)s->nboxes + 1, tubes = (size_t)m->ntubes + 1;
    if (host_alloc(g, (void **)&g->h_pos, cap * sizeof(float4)) != 0 ||
        host_alloc(g, (void **)&g->h_eff, cap * sizeof(float4)) != 0 ||
        host_alloc(g, (void **)&g->h_ca, cap * sizeof(float2)) != 0 ||
        host_alloc(g, (void **)&g->h_ex, cap * sizeof(float2)) != 0 ||
        host_alloc(g, (void **)&g->h_box_start, boxes * sizeof(int)) != 0 ||
        host_alloc(g, (void **)&g->h_box_cells, cap * sizeof(int)) != 0 ||
        host_alloc(g, (void **)&g->h_gain, tubes * sizeof(float)) != 0 ||
        host_alloc(g, (void **)&g->h_pairs, sizeof *g->h_pairs) != 0 ||
        host_alloc(g, (void **)&g->h_most, sizeof(int)) != 0)
        return -1;
    if (dev_alloc(g, (void **)&g->d_pos, cap * sizeof(float4), "cell positions") != 0 ||
        dev_alloc(g, (void **)&g->d_eff, cap * sizeof(float4), "forces") != 0 ||
        dev_alloc(g, (void **)&g->d_ca, cap * sizeof(float2), "oxygen and TAF") != 0 ||
        dev_alloc(g, (void **)&g->d_ex, cap * sizeof(float2), "exchange") != 0 ||
        dev_alloc(g, (void **)&g->d_box_start, boxes * sizeof(int), "box starts") != 0 ||
        dev_alloc(g, (void **)&g->d_box_cells, cap * sizeof(int), "box lists") != 0 ||
        dev_alloc(g, (void **)&g->d_nbr_count, cap * sizeof(int), "neighbour counts") != 0 ||
        dev_alloc(g, (void **)&g->d_tube_count, cap * sizeof(int), "tube counts") != 0 ||
        dev_alloc(g, (void **)&g->d_tubes, tubes * sizeof(ag_tube), "tubes") != 0 ||
        dev_alloc(g, (void **)&g->d_gain, tubes * sizeof(float), "tube TAF") != 0 ||
        dev_alloc(g, (void **)&g->d_tube_start, boxes * sizeof(int), "tube box starts") != 0 ||
        dev_alloc(g, (void **)&g->d_tube_boxes,
                  ((size_t)s->tube_start[s->nboxes] + 1) * sizeof(int), "tube box lists") != 0 ||
        dev_alloc(g, (void **)&g->d_pairs, sizeof *g->d_pairs, "pair count") != 0 ||
        dev_alloc(g, (void **)&g->d_most, sizeof(int), "list lengths") != 0)
        return -1;
    if (g->stage.cells != AG_CC_NAIVE && alloc_lists(g, &g->d_nbr, g->nbr_cap, "neighbour lists") != 0)
        return -1;
    if (g->stage.cells >= AG_CC_LIST_SHARED && alloc_slots(g) != 0)
        return -1;
    if (g->stage.tube_lists && alloc_lists(g, &g->d_tube_list, g->tube_cap, "tube lists") != 0)
        return -1;
    if (g->stage.cells == AG_CC_LIST_TEXTURE &&
        (texture_of(g->d_pos, cap * sizeof(float4), cudaCreateChannelDesc<float4>(),
                    &g->tex_pos) != 0 ||
         texture_of(g->d_ca, cap * sizeof(float2), cudaCreateChannelDesc<float2>(),
                    &g->tex_ca) != 0))
        return -1;
    /* the tubes' geometry and box lists are static: once */
    if (m->ntubes > 0 &&
        (copy_in(g, g->d_tubes, m->tubes, (size_t)m->ntubes * sizeof(ag_tube)) != 0 ||
         copy_in(g, g->d_tube_start, s->tube_start, boxes * sizeof(int)) != 0 ||
         copy_in(g, g->d_tube_boxes, s->tube_list, (size_t)s->tube_start[s->nboxes] * sizeof(int)) !=
             0))
        return -1;
    SB_CUDA(cudaStreamSynchronize(g->stream));
    return 0;
}

extern "C" int ag_coproc_setup(sb_env *env, const void *model, void **state,
                               const ag_coproc_stage *stage)
{
    ag_stage *st;
    if (ag_stage_open(env, model, step, &st) != 0)
        return -1;
    coproc *g = (coproc *)calloc(1, sizeof *g);
    if (!g) {
        ag_stage_teardown(st);
        return sb_fail("out of host memory");
    }
    st->gpu = g;
    g->st = st;
    g->stage = *stage;
    g->stream = env->streams[0];
    g->cap = st->sim.capacity;
    g->box_cap = (int)sb_param_num(env->params, "box_capacity");
    g->nbr_cap = FIRST_NEIGHBOURS;
    g->tube_cap = FIRST_TUBES;
    *state = st;
    return open_gpu(g);
}

extern "C" int ag_coproc_run(void *state)
{
    ag_stage *st = (ag_stage *)state;
    ((coproc *)st->gpu)->rebuilds = 0;
    return ag_stage_run(state);
}

extern "C" int ag_coproc_output(void *state, void *out)
{
    return ag_stage_output(state, out);
}

extern "C" void ag_coproc_teardown(void *state)
{
    ag_stage *st = (ag_stage *)state;
    coproc *g = (coproc *)st->gpu;
    if (g) {
        if (g->tex_pos)
            cudaDestroyTextureObject(g->tex_pos);
        if (g->tex_ca)
            cudaDestroyTextureObject(g->tex_ca);
        void *host[] = {g->h_pos, g->h_eff, g->h_ca,    g->h_ex,    g->h_box_start,
                        g->h_box_cells, g->h_slots, g->h_gain, g->h_pairs, g->h_most};
        for (size_t k = 0; k < sizeof host / sizeof host[0]; k++)
            host_free(g, host[k]);
        free(g); /* the harness frees the tracked device memory */
    }
    ag_stage_teardown(st);
}

/* The phases, and how often a box or a list outgrew its capacity in the last run (series
 * "capacity_rebuilds", one point). */
extern "C" void ag_coproc_report(void *state, sb_report *r)
{
    ag_stage *st = (ag_stage *)state;
    ag_stage_report(state, r);
    sb_series *s = &r->series[r->nseries++];
    s->name = "capacity_rebuilds";
    s->x_name = "run";
    s->n = 1;
    s->x[0] = 0;
    s->y[0] = (double)((coproc *)st->gpu)->rebuilds;
}

/* ---- inspection (tests): outside the timed runs ---- */

/* Lists of `cap` slots a cell (d_list) and their lengths (d_count) back from the GPU as runs of
 * entries, packed in place: cell i's run starts at or before its row i * cap. `built` is 0 when
 * the step had nothing to list (no tubes), the lengths then never written. */
static int lists_back(coproc *g, const int *d_list, const int *d_count, int cap, int n, int built,
                      const char *what, ag_lists *out)
{
    if (ag_lists_alloc(out, n, (size_t)n * cap) != 0)
        return -1;
    if (!built) {
        memset(out->start, 0, ((size_t)n + 1) * sizeof *out->start);
        return 0;
    }
    SB_CUDA(cudaMemcpyAsync(out->start + 1, d_count, (size_t)n * sizeof(int),
                            cudaMemcpyDeviceToHost, g->stream));
    SB_CUDA(cudaMemcpyAsync(out->entry, d_list, (size_t)n * cap * sizeof(int),
                            cudaMemcpyDeviceToHost, g->stream));
    SB_CUDA(cudaStreamSynchronize(g->stream));
    for (int i = 0; i < n; i++) {
        int listed = out->start[i + 1];
        if (listed < 0 || listed > cap)
            return sb_fail("cell %u has %d %s in lists of %d: the rebuild missed it",
                           g->st->sim.m->cells[i].id, listed, what, cap);
        memmove(out->entry + out->start[i], out->entry + (size_t)i * cap,
                (size_t)listed * sizeof *out->entry);
        out->start[i + 1] = out->start[i] + listed;
    }
    return 0;
}

/* The lists hold cells by their place in the host's array at the step's start; the life cycle
 * ends the step by removing the dead and appending daughters, so that array is known here only
 * after one step: it was the model's cells. Neighbours become those cells' ids; tubes are
 * already indices in the model's tubes (static, in the model's order). */
extern "C" int ag_coproc_step_lists(void *state, ag_step_lists *out)
{
    ag_stage *st = (ag_stage *)state;
    coproc *g = (coproc *)st->gpu;
    const ag_model *m = st->sim.m;
    int n = m->ncells;
    memset(out, 0, sizeof *out);
    if (st->sim.step != 1)
        return sb_fail("the lists are known by cell only after a one-step run (steps=1), not "
                       "after %lld steps",
                       st->sim.step);
    out->ncells = n;
    out->id = (uint32_t *)malloc(((size_t)n + 1) * sizeof *out->id);
    if (!out->id)
        return sb_fail("out of host memory for %d cell ids", n);
    for (int i = 0; i < n; i++)
        out->id[i] = m->cells[i].id;
    out->has_neighbours = g->stage.cells != AG_CC_NAIVE;
    out->has_tubes = g->stage.tube_lists;
    if (out->has_neighbours) {
        ag_lists *l = &out->neighbours;
        if (lists_back(g, g->d_nbr, g->d_nbr_count, g->nbr_cap, n, 1, "neighbours", l) != 0)
            return -1;
        for (int k = 0; k < l->start[n]; k++) {
            if (l->entry[k] >= (uint32_t)n)
                return sb_fail("a neighbour list holds cell %u of a step of %d cells",
                               l->entry[k], n);
            l->entry[k] = m->cells[l->entry[k]].id;
        }
    }
    if (out->has_tubes) {
        ag_lists *l = &out->tubes;
        if (lists_back(g, g->d_tube_list, g->d_tube_count, g->tube_cap, n, m->ntubes > 0,
                       "tubes", l) != 0)
            return -1;
        for (int k = 0; k < l->start[n]; k++)
            if (l->entry[k] >= (uint32_t)m->ntubes)
                return sb_fail("a tube list holds tube %u of %d", l->entry[k], m->ntubes);
    }
    return 0;
}

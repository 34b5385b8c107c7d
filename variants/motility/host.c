/* The CPU stages' simulation: state, the outer step's parts, the stage plumbing (host.h). */
#include "host.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../cuda/base/error.h"
#include "../../harness/hostmem.h"
#include "physics.h"

static size_t cells_of(const mm_model *m)
{
    return (size_t)m->n_outer * m->n_outer;
}

/* Entries of one tail's M_b. */
static size_t tail_size(const mm_model *m)
{
    return (size_t)m->window * m->n_inner * m->n_inner;
}

static size_t band_size(const mm_sim *s)
{
    return 2 * (size_t)(2 * s->band_reach + 1) * s->m->n_outer;
}

int mm_sim_open(mm_sim *s, const mm_model *m, int threads, int banded, int host_micro)
{
    memset(s, 0, sizeof *s);
    s->m = m;
    s->threads = threads;
    size_t cells = cells_of(m), psi = cells * m->n_inner;
    /* a configuration's attachment point x + s p lies within W + ell/2 of its tail: its
     * bilinear corners within B rows */
    s->band_reach = m->half + (int)ceil(m->laws.ell / 2) + 1;
    s->psi = malloc(psi * sizeof *s->psi);
    s->psi_next = malloc(psi * sizeof *s->psi_next);
    s->m_f = malloc(cells * sizeof *s->m_f);
    s->coarse = malloc(cells * sizeof *s->coarse);
    s->beta = malloc(cells * sizeof *s->beta);
    s->force = malloc(2 * cells * sizeof *s->force);
    s->sigma = malloc(3 * cells * sizeof *s->sigma);
    if (banded)
        s->bands = malloc(m->n_outer * band_size(s) * sizeof *s->bands);
    if (!s->psi || !s->psi_next || !s->m_f || !s->coarse || !s->beta || !s->force || !s->sigma ||
        (banded && !s->bands)) {
        mm_sim_close(s);
        return sb_fail("out of host memory for the outer fields of %d^2 x %d", m->n_outer,
                       m->n_inner);
    }
    if (host_micro)
        s->m_b = malloc(cells * tail_size(m) * sizeof *s->m_b);
    if (host_micro && m->ab2) {
        s->rate_prev = malloc(cells * tail_size(m) * sizeof *s->rate_prev);
        s->dt_prev = malloc(cells * sizeof *s->dt_prev);
    }
    if (host_micro && (!s->m_b || (m->ab2 && (!s->rate_prev || !s->dt_prev)))) {
        mm_sim_close(s);
        return sb_fail("out of host memory for M_b: %.2f GiB at outer=%d inner=%d%s (lower outer "
                       "or inner)",
                       (m->ab2 ? 2 : 1) * mm_bound_bytes(m) / (1 << 30), m->n_outer, m->n_inner,
                       m->ab2 ? " with ab2's previous rates" : "");
    }
    if (mm_fluid_open(&s->fluid, m->n_outer, m->layers, m->kappa_layer, m->laws.mu, m->laws.stress,
                      threads) != 0) {
        mm_sim_close(s);
        return -1;
    }
    return 0;
}

void mm_sim_close(mm_sim *s)
{
    free(s->psi);
    free(s->psi_next);
    free(s->m_b);
    free(s->rate_prev);
    free(s->dt_prev);
    free(s->m_f);
    free(s->coarse);
    free(s->beta);
    free(s->force);
    free(s->sigma);
    free(s->bands);
    if (s->fluid.n)
        mm_fluid_close(&s->fluid);
    memset(s, 0, sizeof *s);
}

void mm_sim_reset(mm_sim *s)
{
    const mm_model *m = s->m;
    size_t cells = cells_of(m);
    memcpy(s->psi, m->psi0, cells * m->n_inner * sizeof *s->psi);
    if (s->m_b)
        memset(s->m_b, 0, cells * tail_size(m) * sizeof *s->m_b);
    if (s->rate_prev) {
        memset(s->rate_prev, 0, cells * tail_size(m) * sizeof *s->rate_prev);
        memset(s->dt_prev, 0, cells * sizeof *s->dt_prev);
    }
    memcpy(s->m_f, m->m_tot, cells * sizeof *s->m_f);
    memset(s->coarse, 0, cells * sizeof *s->coarse);
    memset(s->force, 0, 2 * cells * sizeof *s->force);
    memset(s->fluid.u, 0, (size_t)m->layers * 2 * cells * sizeof *s->fluid.u);
    s->t = 0;
    s->inner_steps = 0;
}

/* ---- Psi: outer step and transport ---- */

/* An outer cell and its four neighbours (periodic). */
typedef struct mm_nbrs {
    int c, xm, xp, ym, yp;
} mm_nbrs;

static mm_nbrs nbrs_of(int n, int i, int j)
{
    mm_nbrs q = {i + n * j, mm_wrap(i - 1, n) + n * j, mm_wrap(i + 1, n) + n * j,
                 i + n * mm_wrap(j - 1, n), i + n * mm_wrap(j + 1, n)};
    return q;
}

/* The velocities through a Psi cell's six faces at orientation k: x before/after, y
 * before/after, theta before/after. g is the cell's velocity gradient. */
static void face_speeds(const mm_sim *s, const mm_nbrs *q, const double g[4], int k, double a[6])
{
    const mm_model *m = s->m;
    const double *ux = mm_fluid_layer(&s->fluid, 0), *uy = ux + cells_of(m), *b = s->beta;
    double v = m->laws.v_glide, cos_t = m->cos_theta[k], sin_t = m->sin_theta[k];
    int before = mm_wrap(k - 1, m->n_inner);
    a[0] = mm_face_speed(ux[q->xm], ux[q->c], b[q->xm], b[q->c], v, cos_t);
    a[1] = mm_face_speed(ux[q->c], ux[q->xp], b[q->c], b[q->xp], v, cos_t);
    a[2] = mm_face_speed(uy[q->ym], uy[q->c], b[q->ym], b[q->c], v, sin_t);
    a[3] = mm_face_speed(uy[q->c], uy[q->yp], b[q->c], b[q->yp], v, sin_t);
    a[4] = mm_jeffery(g[0], g[1], g[2], g[3], m->cos_face[before], m->sin_face[before]);
    a[5] = mm_jeffery(g[0], g[1], g[2], g[3], m->cos_face[k], m->sin_face[k]);
}

/* grad u of layer 0 at a cell by central differences: xx, xy, yx, yy (g_ab = d u_a / d x_b). */
static void gradient(const mm_sim *s, const mm_nbrs *q, double g[4])
{
    const double *ux = mm_fluid_layer(&s->fluid, 0), *uy = ux + cells_of(s->m);
    g[0] = 0.5 * (ux[q->xp] - ux[q->xm]);
    g[1] = 0.5 * (ux[q->yp] - ux[q->ym]);
    g[2] = 0.5 * (uy[q->xp] - uy[q->xm]);
    g[3] = 0.5 * (uy[q->yp] - uy[q->ym]);
}

double mm_outer_dt(const mm_sim *s)
{
    const mm_model *m = s->m;
    const mm_laws *l = &m->laws;
    int n = m->n_outer;
    double dth = m->dtheta, diffusion = 4 * l->d_t + 2 * l->d_r / (dth * dth), fastest = 0;
#pragma omp parallel for schedule(static) reduction(max : fastest) num_threads(s->threads) \
    if (s->threads > 1)
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            mm_nbrs q = nbrs_of(n, i, j);
            double g[4], a[6];
            gradient(s, &q, g);
            for (int k = 0; k < m->n_inner; k++) {
                face_speeds(s, &q, g, k, a);
                double rate = mm_outflow(a[0], a[1]) + mm_outflow(a[2], a[3]) +
                              mm_outflow(a[4], a[5]) / dth + diffusion;
                fastest = fmax(fastest, rate);
            }
        }
    return fastest > 0 ? fmin(l->dt_max, l->cfl_outer / fastest) : l->dt_max;
}

/* Psi of one cell at t + dt: conservative upwind fluxes through its six faces, central
 * diffusion (h = 1). */
static void transport_cell(const mm_sim *s, int i, int j, double dt)
{
    const mm_model *m = s->m;
    const mm_laws *l = &m->laws;
    int ni = m->n_inner;
    mm_nbrs q = nbrs_of(m->n_outer, i, j);
    const double *p = s->psi + (size_t)q.c * ni, *pxm = s->psi + (size_t)q.xm * ni,
                 *pxp = s->psi + (size_t)q.xp * ni, *pym = s->psi + (size_t)q.ym * ni,
                 *pyp = s->psi + (size_t)q.yp * ni;
    double *out = s->psi_next + (size_t)q.c * ni, dth = m->dtheta, g[4], a[6];
    gradient(s, &q, g);
    for (int k = 0; k < ni; k++) {
        int kb = mm_wrap(k - 1, ni), ka = mm_wrap(k + 1, ni);
        face_speeds(s, &q, g, k, a);
        double net = mm_upwind(a[1], p[k], pxp[k]) - mm_upwind(a[0], pxm[k], p[k]) +
                     mm_upwind(a[3], p[k], pyp[k]) - mm_upwind(a[2], pym[k], p[k]) +
                     (mm_upwind(a[5], p[k], p[ka]) - mm_upwind(a[4], p[kb], p[k])) / dth;
        double spread = l->d_t * (pxm[k] + pxp[k] + pym[k] + pyp[k] - 4 * p[k]) +
                        l->d_r * (p[kb] + p[ka] - 2 * p[k]) / (dth * dth);
        out[k] = p[k] - dt * net + dt * spread;
    }
}

static void transport(mm_sim *s, double dt)
{
    int n = s->m->n_outer;
#pragma omp parallel for schedule(static) num_threads(s->threads) if (s->threads > 1)
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            transport_cell(s, i, j, dt);
    double *swap = s->psi;
    s->psi = s->psi_next;
    s->psi_next = swap;
}

/* ---- microscale ---- */

/* The outer cells of a tail's window, w = (dy + W) (2W + 1) + (dx + W). */
static void window_cells(const mm_model *m, int r0, int *cells)
{
    int n = m->n_outer, i0 = r0 % n, j0 = r0 / n;
    for (int w = 0; w < m->window; w++)
        cells[w] =
            mm_wrap(i0 + w % m->side - m->half, n) + n * mm_wrap(j0 + w / m->side - m->half, n);
}

double mm_capacity(const mm_model *m, const double *psi, int r0)
{
    int ni = m->n_inner, cells[MM_MAX_WINDOW];
    window_cells(m, r0, cells);
    double sum = 0;
    for (int w = 0; w < m->window; w++)
        for (int k = 0; k < ni; k++)
            sum += psi[(size_t)cells[w] * ni + k] *
                   (m->line_end[w * ni + k] - m->line_first[w * ni + k]);
    return sum * m->dtheta * m->ds;
}

void mm_split_rows(const mm_model *m, const double *psi, int parts, int *row_first)
{
    int n = m->n_outer;
    double *weight = malloc((size_t)n * sizeof *weight), total = 0, steps_total = 0;
    if (!weight) { /* no room to weigh: equal rows */
        for (int i = 0; i <= parts; i++)
            row_first[i] = (int)((long long)n * i / parts);
        return;
    }
    /* each row on its own, then summed in order: every process of an MPI run splits alike */
#pragma omp parallel for schedule(static)
    for (int j = 0; j < n; j++) {
        double steps = 0;
        for (int i = 0; i < n; i++)
            steps += m->laws.dt_max /
                     mm_inner_limit(&m->laws, m->ds, mm_capacity(m, psi, j * n + i));
        weight[j] = steps;
    }
    for (int j = 0; j < n; j++)
        steps_total += weight[j];
    double force = 0.2 * steps_total / n; /* a row's force pass, in inner steps */
    for (int j = 0; j < n; j++)
        total += weight[j] += force;
    /* boundary i after the first row where the running sum reaches i / parts of the total,
     * leaving a row at least for this slice and each after it */
    row_first[0] = 0;
    double sum = 0;
    int j = 0;
    for (int i = 1; i < parts; i++) {
        double goal = total * i / parts;
        while (j < n - (parts - i) && (j < row_first[i - 1] + 1 || sum + weight[j] / 2 < goal))
            sum += weight[j++];
        row_first[i] = j;
    }
    row_first[parts] = n;
    free(weight);
}

int mm_psi_rows(const mm_model *m, int first, int end, int from[2], int count[2])
{
    int n = m->n_outer, lo = first - m->half, hi = end + m->half;
    if (hi - lo >= n) {
        from[0] = 0, count[0] = n;
        return 1;
    }
    if (lo < 0) {
        from[0] = lo + n, count[0] = -lo, from[1] = 0, count[1] = hi;
        return 2;
    }
    if (hi > n) {
        from[0] = lo, count[0] = n - lo, from[1] = 0, count[1] = hi - n;
        return 2;
    }
    from[0] = lo, count[0] = hi - lo;
    return 1;
}

/* The s-fluxes of a line from `from` on: flux[m + 1] through the face after cell m,
 * flux[from] = 0 through the one before. */
static void line_fluxes(const double *line, int from, int n, double v, double *flux)
{
    for (int m = from - 1; m < n; m++)
        flux[m + 1] = mm_face_flux(line, m, from, n, v);
}

void mm_line_heun(const mm_model *m, double *line, int from, int end, double dt, double source)
{
    const mm_laws *l = &m->laws;
    int n = m->n_inner;
    double flux[MM_MAX_INNER + 1], stage[MM_MAX_INNER];
    if (from >= n)
        return; /* nothing on the line to move */
    line_fluxes(line, from, n, l->v, flux);
    for (int s = from; s < n; s++)
        stage[s] = mm_euler(
            line[s], mm_rate(flux[s], flux[s + 1], line[s], m->ds, l->k_off, s < end ? source : 0),
            dt);
    line_fluxes(stage, from, n, l->v, flux);
    for (int s = from; s < n; s++)
        line[s] = mm_heun(
            line[s], stage[s],
            mm_rate(flux[s], flux[s + 1], stage[s], m->ds, l->k_off, s < end ? source : 0), dt);
}

void mm_line_ab2(const mm_model *m, double *line, double *rate_prev, int from, int end, double dt,
                 double dt_prev, double source)
{
    const mm_laws *l = &m->laws;
    int n = m->n_inner;
    double flux[MM_MAX_INNER + 1];
    line_fluxes(line, from, n, l->v, flux);
    for (int s = from; s < n; s++) {
        double rate = mm_rate(flux[s], flux[s + 1], line[s], m->ds, l->k_off, s < end ? source : 0);
        line[s] = mm_ab2(line[s], rate, rate_prev[s], dt, dt_prev);
        rate_prev[s] = rate;
    }
}

int mm_micro_tail(mm_sim *s, int r0, double dt, double limit)
{
    const mm_model *m = s->m;
    int ni = m->n_inner, cells[MM_MAX_WINDOW], steps = 0;
    window_cells(m, r0, cells);
    double *tail = s->m_b + (size_t)r0 * tail_size(m);
    double *prev = m->ab2 ? s->rate_prev + (size_t)r0 * tail_size(m) : NULL;
    double m_tot = m->m_tot[r0], measure = m->dtheta * m->ds;
    for (double left = dt; left > 0; steps++) {
        double step = mm_inner_step(limit, left), source = m->laws.k_on * s->m_f[r0];
        double coarse = 0;
        for (int w = 0; w < m->window; w++)
            for (int k = 0; k < ni; k++) {
                int from = m->line_first[w * ni + k], end = m->line_end[w * ni + k];
                if (from == end)
                    continue; /* never meets the capture disc: no motors, ever */
                size_t at = ((size_t)w * ni + k) * ni;
                if (m->ab2)
                    mm_line_ab2(m, tail + at, prev + at, from, end, step, s->dt_prev[r0], source);
                else
                    mm_line_heun(m, tail + at, from, end, step, source);
                double bound = 0;
                for (int x = from; x < ni; x++)
                    bound += tail[at + x];
                coarse += s->psi[(size_t)cells[w] * ni + k] * bound;
            }
        coarse *= measure;
        /* more motors bound than the tail has (the step overshot, or Psi grew under them):
         * every configuration scaled down alike */
        if (coarse > m_tot) {
            double scale = m_tot / coarse;
            for (int w = 0; w < m->window; w++)
                for (int k = 0; k < ni; k++) {
                    int from = m->line_first[w * ni + k];
                    if (from == m->line_end[w * ni + k])
                        continue;
                    double *line = tail + ((size_t)w * ni + k) * ni;
                    for (int x = from; x < ni; x++)
                        line[x] *= scale;
                }
            coarse = m_tot;
        }
        s->coarse[r0] = coarse;
        s->m_f[r0] = m_tot - coarse;
        if (m->ab2)
            s->dt_prev[r0] = step;
        left = step < left ? left - step : 0;
    }
    return steps;
}

/* Every tail's motors to t + dt: one inner-step limit per tail (local), or the smallest of them
 * for all (global, the original algorithm's reduction over every tail). */
static void micro(mm_sim *s, double dt)
{
    const mm_model *m = s->m;
    int n = m->n_outer;
    double global = INFINITY;
    if (m->global_dt) {
#pragma omp parallel for schedule(static) reduction(min : global) num_threads(s->threads) \
    if (s->threads > 1)
        for (int r0 = 0; r0 < n * n; r0++)
            global = fmin(global, mm_inner_limit(&m->laws, m->ds, mm_capacity(m, s->psi, r0)));
    }
    long long inner = 0;
    /* tails take different numbers of inner steps: rows handed out as threads free up */
#pragma omp parallel for schedule(dynamic) reduction(+ : inner) num_threads(s->threads) \
    if (s->threads > 1)
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            int r0 = i + n * j;
            double limit =
                m->global_dt ? global : mm_inner_limit(&m->laws, m->ds, mm_capacity(m, s->psi, r0));
            inner += mm_micro_tail(s, r0, dt, limit);
        }
    s->inner_steps += inner;
}

/* ---- motor force (eq. 10) ---- */

/* Tail r0's bound motors pull with F0 p Psi M_b h^2 dtheta ds at their attachment points
 * x + s p, spread bilinearly into planes fx, fy of `rows` rows of n_outer columns, the tail's
 * own row at `row0`: the periodic grid (row0 = the tail's row, rows = n_outer), or a band of
 * 2B + 1 rows around it (row0 = B). */
static void spread_tail(const mm_sim *s, int r0, int row0, int rows, double *fx, double *fy)
{
    const mm_model *m = s->m;
    int n = m->n_outer, ni = m->n_inner, i0 = r0 % n, cells[MM_MAX_WINDOW];
    window_cells(m, r0, cells);
    const double *tail = s->m_b + (size_t)r0 * tail_size(m);
    double per_motor = m->laws.f0 * m->dtheta * m->ds;
    for (int w = 0; w < m->window; w++) {
        double dx = w % m->side - m->half, dy = w / m->side - m->half;
        for (int k = 0; k < ni; k++) {
            int from = m->line_first[w * ni + k];
            if (from == m->line_end[w * ni + k])
                continue;
            const double *line = tail + ((size_t)w * ni + k) * ni;
            double cos_t = m->cos_theta[k], sin_t = m->sin_theta[k];
            double weight = per_motor * s->psi[(size_t)cells[w] * ni + k];
            for (int x = from; x < ni; x++) {
                int bx, by;
                double gx, gy, pull = weight * line[x];
                mm_spread_at(dx + m->s_mid[x] * cos_t, dy + m->s_mid[x] * sin_t, &bx, &by, &gx,
                             &gy);
                int c0 = mm_wrap(i0 + bx, n), c1 = mm_wrap(i0 + bx + 1, n);
                int r_0 = mm_wrap(row0 + by, rows) * n, r_1 = mm_wrap(row0 + by + 1, rows) * n;
                double w00 = pull * (1 - gx) * (1 - gy), w10 = pull * gx * (1 - gy),
                       w01 = pull * (1 - gx) * gy, w11 = pull * gx * gy;
                fx[r_0 + c0] += w00 * cos_t;
                fy[r_0 + c0] += w00 * sin_t;
                fx[r_0 + c1] += w10 * cos_t;
                fy[r_0 + c1] += w10 * sin_t;
                fx[r_1 + c0] += w01 * cos_t;
                fy[r_1 + c0] += w01 * sin_t;
                fx[r_1 + c1] += w11 * cos_t;
                fy[r_1 + c1] += w11 * sin_t;
            }
        }
    }
}

void mm_motor_force(mm_sim *s)
{
    int n = s->m->n_outer, reach = s->band_reach, band_rows = 2 * reach + 1;
    size_t plane = cells_of(s->m);
    double *fx = s->force, *fy = fx + plane;
    memset(s->force, 0, 2 * plane * sizeof *s->force);
    if (!s->bands) {
        for (int r0 = 0; r0 < n * n; r0++)
            spread_tail(s, r0, r0 / n, n, fx, fy);
        return;
    }
    /* each row of tails into its own band, the bands then added in row order (the same sums
     * whatever the number of threads) */
#pragma omp parallel for schedule(static) num_threads(s->threads) if (s->threads > 1)
    for (int j = 0; j < n; j++) {
        double *bx = s->bands + (size_t)j * band_size(s), *by = bx + (size_t)band_rows * n;
        memset(bx, 0, band_size(s) * sizeof *bx);
        for (int i = 0; i < n; i++)
            spread_tail(s, i + n * j, reach, band_rows, bx, by);
    }
    for (int j = 0; j < n; j++) {
        const double *bx = s->bands + (size_t)j * band_size(s), *by = bx + (size_t)band_rows * n;
        for (int r = 0; r < band_rows; r++) {
            size_t row = (size_t)(((j + r - reach) % n + n) % n) * n;
            for (int i = 0; i < n; i++) {
                fx[row + i] += bx[(size_t)r * n + i];
                fy[row + i] += by[(size_t)r * n + i];
            }
        }
    }
}

/* ---- the rest of the macroscale ---- */

/* Bound fraction per tail: the share of its motors bound, what drives the gliding. */
static void bound_fraction(mm_sim *s)
{
    size_t cells = cells_of(s->m);
    for (size_t c = 0; c < cells; c++)
        s->beta[c] = s->m->m_tot[c] > 0 ? s->coarse[c] / s->m->m_tot[c] : 0;
}

/* The extra stress, Psi's second moment: sigma = sum_k p p^T Psi dtheta. */
static void extra_stress(mm_sim *s)
{
    const mm_model *m = s->m;
    size_t cells = cells_of(m);
    double *xx = s->sigma, *xy = xx + cells, *yy = xy + cells;
#pragma omp parallel for schedule(static) num_threads(s->threads) if (s->threads > 1)
    for (size_t c = 0; c < cells; c++) {
        const double *psi = s->psi + c * m->n_inner;
        double a = 0, b = 0, d = 0;
        for (int k = 0; k < m->n_inner; k++) {
            double cs = m->cos_theta[k], sn = m->sin_theta[k];
            a += cs * cs * psi[k];
            b += cs * sn * psi[k];
            d += sn * sn * psi[k];
        }
        xx[c] = a * m->dtheta;
        xy[c] = b * m->dtheta;
        yy[c] = d * m->dtheta;
    }
}

double mm_macro_psi(mm_sim *s)
{
    bound_fraction(s);
    double dt = mm_outer_dt(s);
    transport(s, dt);
    return dt;
}

void mm_macro_fluid(mm_sim *s)
{
    extra_stress(s);
    mm_fluid_solve(&s->fluid, s->force, s->sigma);
}

void mm_sim_step(mm_sim *s, const sb_env *env, sb_phases *phases)
{
    double t0 = sb_phase_begin(env, "psi");
    double dt = mm_macro_psi(s);
    sb_phase_end(phases, "psi", t0);
    t0 = sb_phase_begin(env, "micro");
    micro(s, dt);
    sb_phase_end(phases, "micro", t0);
    t0 = sb_phase_begin(env, "force");
    mm_motor_force(s);
    sb_phase_end(phases, "force", t0);
    t0 = sb_phase_begin(env, "fluid");
    mm_macro_fluid(s);
    sb_phase_end(phases, "fluid", t0);
    s->t += dt;
}

void mm_sim_output(const mm_sim *s, mm_output *o)
{
    if (s->m_b) /* a GPU stage fills M_b itself */
        memcpy(o->m_b, s->m_b, o->bound * sizeof *o->m_b);
    memcpy(o->coarse, s->coarse, o->cells * sizeof *o->coarse);
    memcpy(o->m_f, s->m_f, o->cells * sizeof *o->m_f);
    memcpy(o->force, s->force, 2 * o->cells * sizeof *o->force);
    memcpy(o->psi, s->psi, o->psi_size * sizeof *o->psi);
    memcpy(o->u, mm_fluid_layer(&s->fluid, 0), 2 * o->cells * sizeof *o->u);
    o->t = s->t;
    o->inner_steps = s->inner_steps;
    o->mixed = 0;
}

/* ---- the CPU stages ---- */

/* Whether the stage's M_b (and AB2's rates), with the two copies the harness holds for
 * validation (the reference's output and this stage's), fit in the host's memory available now:
 * refused before the system starts swapping or killing. */
static int fits_host(const mm_model *m)
{
    char what[160];
    snprintf(what, sizeof what, "M_b at outer=%d inner=%d (the stage's copy%s and the two the "
             "harness holds for validation)", m->n_outer, m->n_inner,
             m->ab2 ? ", AB2's rates" : "");
    return sb_host_check_fits((m->ab2 ? 4 : 3) * mm_bound_bytes(m), what,
                              "lower outer or inner");
}

int mm_stage_open(sb_env *env, const void *model, int threads, int banded, void **out)
{
    int rc = fits_host(model);
    if (rc != 0)
        return rc;
    mm_stage *st = calloc(1, sizeof *st);
    if (!st)
        return sb_fail("out of host memory");
    if (mm_sim_open(&st->sim, model, threads, banded, 1) != 0) {
        free(st);
        return -1;
    }
    st->env = env;
    *out = st;
    return 0;
}

int mm_stage_run(void *state)
{
    mm_stage *st = state;
    sb_phases_clear(&st->phases);
    mm_sim_reset(&st->sim);
    for (long long k = 0; k < st->sim.m->steps; k++)
        mm_sim_step(&st->sim, st->env, &st->phases);
    return 0;
}

int mm_stage_output(void *state, void *out)
{
    mm_stage *st = state;
    mm_sim_output(&st->sim, out);
    return 0;
}

void mm_stage_teardown(void *state)
{
    mm_stage *st = state;
    mm_sim_close(&st->sim);
    free(st);
}

void mm_stage_report(void *state, sb_report *r)
{
    mm_stage *st = state;
    r->phases = st->phases;
}

/* GPU test: motility's macroscale on the GPU (variants/motility/macro.cu) against the host's
 * (host.c's mm_macro_psi and mm_macro_fluid) from the same state: the outer step, Psi after the
 * transport and u of every fluid layer, two macro steps in a row, each within the workload's
 * rtol (1e-12) relative. The states: a host run's after two outer steps (motors bound, F and u
 * from them), and host macro steps driven by a made-up force on grids whose M_b the host need
 * not hold (64^2 x 32, and an odd 33^2 with the dt_max cap binding). Coarse densities from 0 to
 * 0.6 M_tot and a tail with no motors take both branches of the bound fraction. Then a reset:
 * Psi0 and a still fluid, where nothing moves and the outer step is dt_max. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/devinfo.h"
#include "motility_fixture.h"
#include "variants/motility/host.h"
#include "variants/motility/macro.h"
#include "variants/motility/physics.h"

static const int device = 0;

static void cuda_ok(cudaError_t err, const char *what)
{
    if (err != cudaSuccess)
        fail_msg("%s: %s", what, cudaGetErrorString(err));
}

static double *device_array(size_t count)
{
    void *p = NULL;
    cuda_ok(cudaMalloc(&p, count * sizeof(double)), "cudaMalloc");
    return p;
}

static void upload(double *to, const double *from, size_t count)
{
    cuda_ok(cudaMemcpy(to, from, count * sizeof *to, cudaMemcpyHostToDevice), "upload");
}

static double *download(const double *from, size_t count)
{
    double *to = malloc(count * sizeof *to);
    assert_non_null(to);
    cuda_ok(cudaMemcpy(to, from, count * sizeof *to, cudaMemcpyDeviceToHost), "download");
    return to;
}

static size_t cells_of(const mm_model *m)
{
    return (size_t)m->n_outer * m->n_outer;
}

/* Coarse densities from 0 to 0.6 M_tot varying cell to cell, and one tail without motors. */
static void set_coarse(mm_model *m, mm_sim *s)
{
    size_t cells = cells_of(m);
    m->m_tot[cells / 3] = 0;
    for (size_t c = 0; c < cells; c++)
        s->coarse[c] = 0.6 * m->m_tot[c] * (double)(c * 37 % 101) / 100;
}

/* A force with a smooth part and noise in every mode (the Nyquist modes included). */
static void made_up_force(const mm_model *m, double *force)
{
    int n = m->n_outer;
    uint64_t x = 88172645463325252ull;
    double noise[2];
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            for (int a = 0; a < 2; a++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                noise[a] = (double)(x >> 11) * 0x1p-53 - 0.5;
            }
            force[i + n * j] = 0.5 * sin(2 * MM_PI * (2 * i + j) / n) + 0.2 * noise[0];
            force[cells_of(m) + i + n * j] =
                0.5 * cos(2 * MM_PI * (i - 3 * j) / n) + 0.2 * noise[1];
        }
}

/* From s's state (Psi, u of every layer, coarse, F), two macro steps on the GPU and on the host
 * side by side, compared after each. */
static void compare_steps(mm_sim *s, const char *name)
{
    const mm_model *m = s->m;
    size_t cells = cells_of(m), psi_size = cells * m->n_inner,
           u_size = 2 * (size_t)m->layers * cells;
    sb_env env;
    memset(&env, 0, sizeof env);
    cudaStream_t stream;
    cuda_ok(cudaSetDevice(device), "cudaSetDevice");
    cuda_ok(cudaStreamCreate(&stream), "cudaStreamCreate");
    mm_dmacro d;
    if (mm_dmacro_open(&d, &env, m, device, stream) != 0)
        fail_msg("%s: %s", name, sb_error());
    double *d_coarse = device_array(cells), *d_force = device_array(2 * cells),
           *d_dt = device_array(1);
    upload(d.psi, s->psi, psi_size);
    upload(d.u, s->fluid.u, u_size);
    upload(d_coarse, s->coarse, cells);
    upload(d_force, s->force, 2 * cells);
    double *psi_before = malloc(psi_size * sizeof *psi_before);
    assert_non_null(psi_before);
    memcpy(psi_before, s->psi, psi_size * sizeof *psi_before);
    double dt = 0, worst_dt = 0, worst_psi = 0, worst_u = 0, largest_u = 0;
    for (int step = 0; step < 2; step++) {
        if (mm_dmacro_psi(&d, d_coarse, d_dt) != 0 || mm_dmacro_fluid(&d, d_force) != 0)
            fail_msg("%s: %s", name, sb_error());
        dt = mm_macro_psi(s);
        mm_macro_fluid(s);
        cuda_ok(cudaStreamSynchronize(stream), "the macro's kernels and transforms");
        double *got_dt = download(d_dt, 1), *psi = download(d.psi, psi_size),
               *u = download(d.u, u_size);
        worst_dt = fmax(worst_dt, fabs(*got_dt - dt) / dt);
        worst_psi = fmax(worst_psi, motility_max_rel(psi, s->psi, psi_size));
        for (int l = 0; l < m->layers; l++) {
            const double *want = mm_fluid_layer(&s->fluid, l);
            worst_u = fmax(worst_u, motility_max_rel(u + 2 * l * cells, want, 2 * cells));
            for (size_t e = 0; e < 2 * cells; e++)
                largest_u = fmax(largest_u, fabs(want[e]));
        }
        free(got_dt);
        free(psi);
        free(u);
    }
    double moved = motility_max_rel(s->psi, psi_before, psi_size);
    printf("%s: dt %.6g (%s), GPU's within %.2g; Psi (moved by %.2g) within %.2g; u of %d layers "
           "(largest %.3g) within %.2g; rtol %g\n",
           name, dt, dt < m->laws.dt_max ? "CFL" : "dt_max", worst_dt, moved, worst_psi,
           m->layers, largest_u, worst_u, m->rtol);
    assert_true(moved > 1e-6);
    assert_true(largest_u > 1e-3);
    assert_true(worst_dt <= m->rtol);
    assert_true(worst_psi <= m->rtol);
    assert_true(worst_u <= m->rtol);
    free(psi_before);
    cuda_ok(cudaFree(d_coarse), "cudaFree");
    cuda_ok(cudaFree(d_force), "cudaFree");
    cuda_ok(cudaFree(d_dt), "cudaFree");
    mm_dmacro_close(&d);
    assert_int_equal(env.mem.current, 0);
    sb_dev_free_all(&env.mem);
    cuda_ok(cudaStreamDestroy(stream), "cudaStreamDestroy");
}

/* A host run's state after two outer steps of cpu-reference's code. */
static void after_host_steps(void **unused)
{
    (void)unused;
    const char *inits[] = {"init=rings", "init=random"};
    for (int v = 0; v < 2; v++) {
        const sb_params *p =
            motility_params("outer=32", "inner=16", "ring_radius=4", inits[v], NULL);
        mm_model *m = motility_load(p);
        mm_sim s;
        sb_env env;
        sb_phases phases;
        memset(&env, 0, sizeof env);
        sb_phases_clear(&phases);
        assert_int_equal(mm_sim_open(&s, m, 1, 0, 1), 0);
        mm_sim_reset(&s);
        for (int step = 0; step < 2; step++)
            mm_sim_step(&s, &env, &phases);
        set_coarse(m, &s);
        compare_steps(&s, m->scenario);
        mm_sim_close(&s);
        motility_free(m, NULL);
    }
}

/* Host macro steps from Psi0 under a made-up force (no host M_b). */
static void made_up_state(void **unused)
{
    (void)unused;
    const char *cases[][4] = {{"outer=64", "inner=32", "init=random", "dt_max=0.5"},
                              {"outer=33", "inner=8", "init=rings", "dt_max=0.01"}};
    for (int v = 0; v < 2; v++) {
        const sb_params *p =
            motility_params(cases[v][0], cases[v][1], cases[v][2], cases[v][3], NULL);
        mm_model *m = motility_load(p);
        mm_sim s;
        assert_int_equal(mm_sim_open(&s, m, 1, 0, 0), 0);
        mm_sim_reset(&s);
        set_coarse(m, &s);
        made_up_force(m, s.force);
        for (int step = 0; step < 2; step++) {
            mm_macro_psi(&s);
            mm_macro_fluid(&s);
        }
        compare_steps(&s, m->scenario);
        mm_sim_close(&s);
        motility_free(m, NULL);
    }
}

/* After a reset (over a state of NaNs): Psi0 and a still fluid, bit for bit; with no gliding and
 * no diffusion nothing moves, every rate is 0 and the outer step is dt_max, as on the host. */
static void reset_is_still(void **unused)
{
    (void)unused;
    const sb_params *p =
        motility_params("outer=16", "inner=8", "v_glide=0", "d_t=0", "d_r=0", NULL);
    mm_model *m = motility_load(p);
    size_t cells = cells_of(m), psi_size = cells * m->n_inner,
           u_size = 2 * (size_t)m->layers * cells;
    mm_sim s;
    assert_int_equal(mm_sim_open(&s, m, 1, 0, 0), 0);
    mm_sim_reset(&s);
    sb_env env;
    memset(&env, 0, sizeof env);
    cudaStream_t stream;
    cuda_ok(cudaSetDevice(device), "cudaSetDevice");
    cuda_ok(cudaStreamCreate(&stream), "cudaStreamCreate");
    mm_dmacro d;
    if (mm_dmacro_open(&d, &env, m, device, stream) != 0)
        fail_msg("%s", sb_error());
    cuda_ok(cudaMemset(d.psi, 0xff, psi_size * sizeof *d.psi), "cudaMemset");
    cuda_ok(cudaMemset(d.u, 0xff, u_size * sizeof *d.u), "cudaMemset");
    double *d_coarse = device_array(cells), *d_dt = device_array(1);
    cuda_ok(cudaMemset(d_coarse, 0, cells * sizeof *d_coarse), "cudaMemset");
    if (mm_dmacro_reset(&d) != 0 || mm_dmacro_psi(&d, d_coarse, d_dt) != 0)
        fail_msg("%s", sb_error());
    cuda_ok(cudaStreamSynchronize(stream), "the macro's kernels");
    double *dt = download(d_dt, 1), *psi = download(d.psi, psi_size), *u = download(d.u, u_size);
    double host_dt = mm_macro_psi(&s), largest_u = 0; /* coarse 0 since the reset, as on the GPU */
    for (size_t e = 0; e < u_size; e++)
        largest_u = fmax(largest_u, fabs(u[e]));
    printf("after reset: dt %g (host %g, dt_max %g); Psi0 %s; largest |u| %g\n", *dt, host_dt,
           m->laws.dt_max, memcmp(psi, m->psi0, psi_size * sizeof *psi) ? "differs" : "kept",
           largest_u);
    assert_true(*dt == m->laws.dt_max);
    assert_true(host_dt == m->laws.dt_max);
    assert_memory_equal(psi, m->psi0, psi_size * sizeof *psi);
    assert_true(largest_u == 0);
    free(dt);
    free(psi);
    free(u);
    cuda_ok(cudaFree(d_coarse), "cudaFree");
    cuda_ok(cudaFree(d_dt), "cudaFree");
    mm_dmacro_close(&d);
    sb_dev_free_all(&env.mem);
    cuda_ok(cudaStreamDestroy(stream), "cudaStreamDestroy");
    mm_sim_close(&s);
    motility_free(m, NULL);
}

int main(void)
{
    if (sb_device_count() == 0) {
        printf("SKIPPED: %s\n", sb_no_device_reason());
        return 77;
    }
    const struct CMUnitTest tests[] = {cmocka_unit_test(after_host_steps),
                                       cmocka_unit_test(made_up_state),
                                       cmocka_unit_test(reset_is_still)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

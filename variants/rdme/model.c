/* Building an RDME model: geometry, species, rates, placement; the derived tables; outputs. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cuda/base/error.h"
#include "../../harness/hostmem.h"
#include "model.h"
#include "rules.h"

void rd_model_init(rd_model *m, int nx, int ny, int nz, double spacing, double tau)
{
    memset(m, 0, sizeof *m);
    m->nx = nx;
    m->ny = ny;
    m->nz = nz;
    m->nsites = (size_t)nx * ny * nz;
    m->spacing = spacing;
    m->tau = tau;
}

int rd_find_species(const rd_model *m, const char *name)
{
    for (int i = 1; i <= m->nspecies; i++)
        if (strcmp(m->species[i], name) == 0)
            return i;
    return -1;
}

int rd_find_type(const rd_model *m, const char *name)
{
    for (int i = 0; i < m->ntypes; i++)
        if (strcmp(m->type_names[i], name) == 0)
            return i;
    return -1;
}

int rd_add_species(rd_model *m, const char *name)
{
    if (rd_find_species(m, name) >= 0)
        return sb_fail("species '%s' declared twice; declare it once", name);
    if (m->nspecies == RD_MAX_SPECIES)
        return sb_fail("species '%s': at most %d species fit the 4-bit slots", name,
                       RD_MAX_SPECIES);
    if (strlen(name) >= RD_MAX_NAME)
        return sb_fail("species name '%s' is longer than %d characters; shorten it", name,
                       RD_MAX_NAME - 1);
    snprintf(m->species[++m->nspecies], RD_MAX_NAME, "%s", name);
    return m->nspecies;
}

int rd_add_type(rd_model *m, const char *name)
{
    if (rd_find_type(m, name) >= 0)
        return sb_fail("site type '%s' declared twice; declare it once", name);
    if (m->ntypes == RD_MAX_TYPES)
        return sb_fail("site type '%s': at most %d site types fit the 4-bit field", name,
                       RD_MAX_TYPES);
    if (strlen(name) >= RD_MAX_NAME)
        return sb_fail("site type name '%s' is longer than %d characters; shorten it", name,
                       RD_MAX_NAME - 1);
    snprintf(m->type_names[m->ntypes], RD_MAX_NAME, "%s", name);
    return m->ntypes++;
}

void rd_set_transition(rd_model *m, int sp, int from, int to, double d)
{
    for (int s = sp ? sp : 1; s <= (sp ? sp : RD_MAX_SPECIES); s++)
        m->diffusion[s][from][to] = d;
}

void rd_set_diffusion(rd_model *m, int sp, int t, double d)
{
    rd_set_transition(m, sp, t, t, d);
}

int rd_add_reaction(rd_model *m, int nreactants, const int *reactants, int nproducts,
                    const int *products, double k, uint16_t where)
{
    if (m->nreactions == RD_MAX_REACTIONS)
        return sb_fail("more than %d reactions", RD_MAX_REACTIONS);
    if (nreactants < 0 || nreactants > 2)
        return sb_fail("a reaction has 0, 1 or 2 reactants, not %d", nreactants);
    if (nproducts < 0 || nproducts > RD_MAX_PRODUCTS)
        return sb_fail("a reaction has at most %d products, not %d", RD_MAX_PRODUCTS, nproducts);
    if (!(k >= 0) || !isfinite(k))
        return sb_fail("reaction rate %g: expected a finite rate >= 0", k);
    rd_reaction *r = &m->reactions[m->nreactions++];
    memset(r, 0, sizeof *r);
    r->nreactants = nreactants;
    for (int i = 0; i < nreactants; i++)
        r->reactant[i] = (uint8_t)reactants[i];
    r->nproducts = nproducts;
    for (int i = 0; i < nproducts; i++)
        r->product[i] = (uint8_t)products[i];
    r->k = k;
    r->where = where ? where : 0xffff;
    return 0;
}

/* Host bytes a run holds: the model (the site types and the initial lattice), the two outputs
 * the harness keeps for validation (a lattice and the samples each) and a variant's working
 * lattice (the CPU reference's second lattice, a GPU stage's pinned copy). */
static double run_host_bytes(const rd_model *m, rd_site_format format, double nsamples,
                             int nspecies)
{
    double sites = (double)m->nsites, site = (double)rd_site_bytes(format);
    double samples = nsamples * (sizeof(long long) + sizeof(uint64_t) * (nspecies + 1.0) +
                                 sizeof(uint32_t) * (double)m->nz * (nspecies + 1.0));
    return sites * (1 + site) + 2 * (sites * site + samples) + sites * site;
}

/* Refuses, before allocating, a run whose host memory would not fit; `least`: the format is not
 * chosen yet, and the smallest is counted. */
static int check_host(const rd_model *m, rd_site_format format, double nsamples, int nspecies,
                      int least)
{
    char what[256];
    snprintf(what, sizeof what, "a %d x %d x %d lattice %s (its site types, the initial "
             "lattice, the two outputs kept for validation and a working lattice)", m->nx,
             m->ny, m->nz, least ? "even in the smallest site format, 4 bytes"
                           : format == RD_PACKED32 ? "of 4-byte sites" : "of 16-byte sites");
    return sb_host_check_fits(run_host_bytes(m, format, nsamples, nspecies), what,
                              "use a smaller lattice (or a coarser spacing)") ? -1 : 0;
}

int rd_model_alloc(rd_model *m)
{
    if (m->nx < 1 || m->ny < 1 || m->nz < 1)
        return sb_fail("lattice %d x %d x %d: every dimension must be at least 1", m->nx, m->ny,
                       m->nz);
    if (m->nsites >= (1ull << 40) / 2)
        return sb_fail("lattice of %zu sites: at most 2^39 sites", m->nsites);
    /* The site format and the samples are chosen later (rd_model_finish checks again): here the
     * least any run of this lattice needs. */
    if (check_host(m, RD_PACKED32, 2, 1, 1) != 0)
        return -1;
    m->types = calloc(m->nsites, 1);
    return m->types ? 0 : sb_fail("out of host memory for %zu site types", m->nsites);
}

void rd_set_box(rd_model *m, int type, int x0, int y0, int z0, int x1, int y1, int z1)
{
    x0 = x0 < 0 ? 0 : x0, y0 = y0 < 0 ? 0 : y0, z0 = z0 < 0 ? 0 : z0;
    x1 = x1 > m->nx ? m->nx : x1, y1 = y1 > m->ny ? m->ny : y1, z1 = z1 > m->nz ? m->nz : z1;
    for (int z = z0; z < z1; z++)
        for (int y = y0; y < y1; y++)
            for (int x = x0; x < x1; x++)
                m->types[x + (size_t)m->nx * (y + (size_t)m->ny * z)] = (uint8_t)type;
}

/* Distance from a site centre to the capsule's axis segment, in sites. */
static double capsule_distance(const rd_model *m, double length, double radius, int x, int y,
                               int z)
{
    double cx = 0.5 * m->nx, cy = 0.5 * m->ny, cz = 0.5 * m->nz;
    double half = 0.5 * length - radius; /* half length of the cylinder part */
    double dz = fabs(z + 0.5 - cz) - half;
    dz = dz > 0 ? dz : 0;
    double dx = x + 0.5 - cx, dy = y + 0.5 - cy;
    return sqrt(dx * dx + dy * dy + dz * dz);
}

void rd_set_capsule(rd_model *m, double radius, double length, int inner_type, int shell,
                    int shell_type)
{
    for (int z = 0; z < m->nz; z++)
        for (int y = 0; y < m->ny; y++)
            for (int x = 0; x < m->nx; x++) {
                double d = capsule_distance(m, length, radius, x, y, z);
                if (d < radius)
                    m->types[x + (size_t)m->nx * (y + (size_t)m->ny * z)] =
                        (uint8_t)(d < radius - shell ? inner_type : shell_type);
            }
}

size_t rd_site_bytes(rd_site_format f)
{
    return f == RD_PACKED32 ? 4 : 16;
}

double rd_pass_bytes(const rd_model *m)
{
    double site = 2.0 * (double)rd_site_bytes(m->format) + (m->format == RD_BYTE16 ? 1 : 0);
    return site * (double)m->nsites;
}

void rd_site_get(const rd_model *m, const void *lattice, size_t i, rd_site *s)
{
    s->n = 0;
    if (m->format == RD_PACKED32) {
        uint32_t w = ((const uint32_t *)lattice)[i];
        s->type = (int)(w >> 28);
        for (int k = 0; k < 7 && (w >> (4 * k) & 15); k++)
            s->sp[s->n++] = (uint8_t)(w >> (4 * k) & 15);
    } else {
        const uint8_t *b = (const uint8_t *)lattice + 16 * i;
        s->type = m->types[i];
        for (int k = 0; k < 16 && b[k]; k++)
            s->sp[s->n++] = b[k];
    }
}

void rd_site_put(const rd_model *m, void *lattice, size_t i, const rd_site *s)
{
    if (m->format == RD_PACKED32) {
        uint32_t w = (uint32_t)s->type << 28;
        for (int k = 0; k < s->n; k++)
            w |= (uint32_t)s->sp[k] << (4 * k);
        ((uint32_t *)lattice)[i] = w;
    } else {
        uint8_t *b = (uint8_t *)lattice + 16 * i;
        memset(b, 0, 16);
        memcpy(b, s->sp, (size_t)s->n);
    }
}

static double site_litres(const rd_model *m)
{
    return m->spacing * m->spacing * m->spacing * 1e3;
}

int rd_model_finish(rd_model *m, rd_site_format format, uint32_t seed, long long steps,
                    long long sample_steps)
{
    if (m->nspecies < 1)
        return sb_fail("the model declares no species; declare them with 'species NAME...'");
    if (!(m->spacing > 0) || !(m->tau > 0))
        return sb_fail("spacing %g m and time step %g s must both be positive", m->spacing,
                       m->tau);
    m->format = format;
    m->capacity = format == RD_PACKED32 ? 7 : 16;
    m->seed = seed;
    m->steps = steps;
    m->sample_steps = sample_steps;
    if (m->ntypes == 0)
        rd_add_type(m, "cytoplasm");
    double per_d = m->tau / (m->spacing * m->spacing);
    memset(m->threshold, 0, sizeof m->threshold);
    for (int sp = 1; sp <= m->nspecies; sp++)
        for (int a = 0; a < m->ntypes; a++)
            for (int b = 0; b < m->ntypes; b++) {
                double q = m->diffusion[sp][a][b] * per_d;
                if (!(m->diffusion[sp][a][b] >= 0) || !isfinite(m->diffusion[sp][a][b]))
                    return sb_fail("species %s, %s -> %s: diffusion coefficient %g: expected a "
                                   "finite value >= 0 (m^2/s)",
                                   m->species[sp], m->type_names[a], m->type_names[b],
                                   m->diffusion[sp][a][b]);
                if (q > 0.5)
                    return sb_fail("species %s, %s -> %s: D tau / lambda^2 = %.4g exceeds 0.5 "
                                   "(D %.3g m^2/s, tau %.3g s, lambda %.3g m): shorten the time "
                                   "step to at most %.3g s",
                                   m->species[sp], m->type_names[a], m->type_names[b], q,
                                   m->diffusion[sp][a][b], m->tau, m->spacing,
                                   0.5 * m->spacing * m->spacing / m->diffusion[sp][a][b]);
                m->threshold[RD_THRESHOLD_INDEX(sp, a, b)] = (uint32_t)floor(q * 0x1p32);
            }
    m->has_order0 = 0;
    double nav = RD_AVOGADRO * site_litres(m);
    for (int i = 0; i < m->nreactions; i++) {
        const rd_reaction *r = &m->reactions[i];
        for (int k = 0; k < r->nreactants; k++)
            if (r->reactant[k] < 1 || r->reactant[k] > m->nspecies)
                return sb_fail("reaction %d: reactant species %d is not declared", i + 1,
                               r->reactant[k]);
        for (int k = 0; k < r->nproducts; k++)
            if (r->product[k] < 1 || r->product[k] > m->nspecies)
                return sb_fail("reaction %d: product species %d is not declared", i + 1,
                               r->product[k]);
        /* order 0: k [M/s] * N_A V; order 1: k [1/s]; order 2: k [1/(M s)] / (N_A V), twice
         * that for A + A (d[A]/dt = -2 k [A]^2 with n(n-1)/2 pairs). */
        m->rate[i] = r->nreactants == 0   ? r->k * nav
                     : r->nreactants == 1 ? r->k
                     : r->reactant[0] == r->reactant[1] ? 2.0 * r->k / nav
                                                        : r->k / nav;
        m->has_order0 |= r->nreactants == 0;
    }
    /* int samples (rd_output_nsamples), and host memory for the run, before the lattice */
    double nsamples =
        sample_steps <= 0 || sample_steps >= steps ? 2 : (double)((steps - 1) / sample_steps) + 2;
    if (nsamples > INT_MAX)
        return sb_fail("%lld steps sampled every %lld make %.0f samples, more than %d: raise "
                       "sample_steps", steps, sample_steps, nsamples, INT_MAX);
    if (check_host(m, format, nsamples, m->nspecies, 0) != 0)
        return -1;
    free(m->lattice0);
    m->lattice0 = calloc(m->nsites, rd_site_bytes(format));
    if (!m->lattice0)
        return sb_fail("out of host memory for a lattice of %zu sites", m->nsites);
    if (format == RD_PACKED32)
        for (size_t i = 0; i < m->nsites; i++)
            ((uint32_t *)m->lattice0)[i] = (uint32_t)m->types[i] << 28;
    return 0;
}

void rd_reaction_table_of(const rd_model *m, rd_reaction_table *t)
{
    memset(t, 0, sizeof *t);
    t->n = m->nreactions;
    t->has_order0 = m->has_order0;
    t->tau = m->tau;
    for (int i = 0; i < m->nreactions; i++) {
        const rd_reaction *r = &m->reactions[i];
        t->rate[i] = m->rate[i];
        t->where[i] = r->where;
        t->order[i] = (uint8_t)r->nreactants;
        t->a[i] = r->nreactants > 0 ? r->reactant[0] : 0;
        t->b[i] = r->nreactants > 1 ? r->reactant[1] : 0;
        t->nproducts[i] = (uint8_t)r->nproducts;
        for (int k = 0; k < r->nproducts; k++)
            t->product[i][k] = r->product[k];
    }
    /* a0 of n particles is at most the sum of each reaction's rate times its most reactant
     * combinations among n; the margin covers the device's rounding of its own sum (64 terms,
     * each rounded once: a relative 1e-14 at most), and det_mul is monotonic, so the bound's test
     * passing implies the reference's */
    for (int type = 0; type < RD_MAX_TYPES; type++)
        for (int n = 0; n <= RD_MAX_CAPACITY; n++) {
            double bound = 0.0;
            for (int i = 0; i < t->n; i++) {
                if (!(t->where[i] >> type & 1))
                    continue;
                double most = t->order[i] == 0   ? 1.0
                              : t->order[i] == 1 ? n
                              : t->a[i] == t->b[i] ? n * (n - 1) / 2
                                                   : (n / 2) * ((n + 1) / 2);
                bound += t->rate[i] * most;
            }
            bound *= 1.0 + 1e-9;
            t->no_fire[type][n] = bound > 0.0 ? det_mul(2.0, det_mul(bound, t->tau)) : 0.0;
        }
}

/* May species sp sit in a site of type t? Yes unless every move into t is forbidden for it and
 * it does not diffuse there. */
static int may_occupy(const rd_model *m, int sp, int t)
{
    for (int a = 0; a < m->ntypes; a++)
        if (m->diffusion[sp][a][t] > 0)
            return 1;
    return 0;
}

int rd_place_at(rd_model *m, int sp, int x, int y, int z)
{
    if (x < 0 || y < 0 || z < 0 || x >= m->nx || y >= m->ny || z >= m->nz)
        return sb_fail("particle at (%d, %d, %d): outside the %d x %d x %d lattice; give "
                       "0 <= X < %d, 0 <= Y < %d, 0 <= Z < %d", x, y, z, m->nx, m->ny, m->nz,
                       m->nx, m->ny, m->nz);
    size_t i = x + (size_t)m->nx * (y + (size_t)m->ny * z);
    rd_site s;
    rd_site_get(m, m->lattice0, i, &s);
    if (s.n == m->capacity)
        return sb_fail("particle at (%d, %d, %d): the site already holds %d particles", x, y, z,
                       m->capacity);
    s.sp[s.n++] = (uint8_t)sp;
    rd_site_put(m, m->lattice0, i, &s);
    m->nparticles_placed++;
    return 0;
}

int rd_place_random(rd_model *m, int sp, uint64_t count, int t, int z0, int z1)
{
    z0 = z0 < 0 ? 0 : z0;
    z1 = z1 > m->nz || z1 <= 0 ? m->nz : z1;
    if (z0 >= z1)
        return sb_fail("particles of %s: empty z range %d..%d", m->species[sp], z0, z1 - 1);
    size_t first = (size_t)z0 * m->nx * m->ny, n = (size_t)(z1 - z0) * m->nx * m->ny;
    /* the sites a particle may be put in, and the room they have */
    uint64_t room = 0;
    for (size_t i = first; i < first + n; i++) {
        int type = m->types[i];
        if (t >= 0 ? type == t : may_occupy(m, sp, type)) {
            rd_site s;
            rd_site_get(m, m->lattice0, i, &s);
            room += (uint64_t)(m->capacity - s.n);
        }
    }
    if (count > room)
        return sb_fail("%llu particles of %s do not fit: the %s sites in z %d..%d have room for "
                       "%llu; place fewer or give them more sites",
                       (unsigned long long)count, m->species[sp],
                       t >= 0 ? m->type_names[t] : "allowed", z0, z1 - 1,
                       (unsigned long long)room);
    uint64_t placed = 0;
    for (uint64_t attempt = 0; placed < count; attempt++) {
        /* the purpose in counter word 2, where no step's draw has it */
        sb_rng_block r = sb_philox(m->seed, 0, (uint32_t)sp,
                                   (uint32_t)(m->nparticles_placed + placed),
                                   RD_PURPOSE_PLACEMENT, (uint32_t)attempt);
        size_t i = first + (size_t)(sb_uniform(r.v[0], r.v[1]) * (double)n);
        int type = m->types[i];
        if (!(t >= 0 ? type == t : may_occupy(m, sp, type)))
            continue;
        rd_site s;
        rd_site_get(m, m->lattice0, i, &s);
        if (s.n == m->capacity)
            continue;
        s.sp[s.n++] = (uint8_t)sp;
        rd_site_put(m, m->lattice0, i, &s);
        placed++;
    }
    m->nparticles_placed += placed;
    return 0;
}

void rd_model_free(rd_model *m)
{
    free(m->types);
    free(m->lattice0);
    m->types = NULL;
    m->lattice0 = NULL;
}

int rd_output_nsamples(const rd_model *m)
{
    if (m->sample_steps <= 0 || m->sample_steps >= m->steps)
        return m->steps > 0 ? 2 : 1;
    return (int)((m->steps - 1) / m->sample_steps) + 2;
}

long long rd_output_sample_step(const rd_model *m, int k)
{
    int n = rd_output_nsamples(m);
    return k == n - 1 ? m->steps : (long long)k * m->sample_steps;
}

int rd_output_init(rd_output *o, const rd_model *m)
{
    memset(o, 0, sizeof *o);
    o->nsites = m->nsites;
    o->site_bytes = (int)rd_site_bytes(m->format);
    o->nsamples = rd_output_nsamples(m);
    o->nspecies = m->nspecies;
    o->nz = m->nz;
    o->lattice = malloc(m->nsites * (size_t)o->site_bytes);
    o->sample_step = calloc((size_t)o->nsamples, sizeof *o->sample_step);
    o->counts = calloc((size_t)o->nsamples * (o->nspecies + 1), sizeof *o->counts);
    o->plane_counts =
        calloc((size_t)o->nsamples * o->nz * (o->nspecies + 1), sizeof *o->plane_counts);
    if (!o->lattice || !o->sample_step || !o->counts || !o->plane_counts) {
        rd_output_free(o);
        return sb_fail("out of host memory for the output of %zu sites", m->nsites);
    }
    for (int k = 0; k < o->nsamples; k++)
        o->sample_step[k] = rd_output_sample_step(m, k);
    return 0;
}

void rd_output_free(rd_output *o)
{
    free(o->lattice);
    free(o->sample_step);
    free(o->counts);
    free(o->plane_counts);
    memset(o, 0, sizeof *o);
}

void rd_output_copy(rd_output *dst, const rd_output *src)
{
    memcpy(dst->lattice, src->lattice, src->nsites * (size_t)src->site_bytes);
    memcpy(dst->sample_step, src->sample_step, (size_t)src->nsamples * sizeof *src->sample_step);
    memcpy(dst->counts, src->counts,
           (size_t)src->nsamples * (src->nspecies + 1) * sizeof *src->counts);
    memcpy(dst->plane_counts, src->plane_counts,
           (size_t)src->nsamples * src->nz * (src->nspecies + 1) * sizeof *src->plane_counts);
    dst->overflow_particles = src->overflow_particles;
    dst->reactions_fired = src->reactions_fired;
}

void rd_output_count(const rd_model *m, const void *lattice, rd_output *o, int k)
{
    int w = o->nspecies + 1;
    uint64_t *c = o->counts + (size_t)k * w;
    uint32_t *pc = o->plane_counts + (size_t)k * o->nz * w;
    memset(c, 0, (size_t)w * sizeof *c);
    memset(pc, 0, (size_t)o->nz * w * sizeof *pc);
    size_t plane = (size_t)m->nx * m->ny;
    for (size_t i = 0; i < m->nsites; i++) {
        rd_site s;
        rd_site_get(m, lattice, i, &s);
        uint32_t *p = pc + (i / plane) * w;
        for (int j = 0; j < s.n; j++) {
            c[s.sp[j]]++;
            p[s.sp[j]]++;
        }
        c[0] += (uint64_t)s.n;
        p[0] += (uint32_t)s.n;
    }
}

void rd_output_counts_from_planes(const rd_model *m, rd_output *o)
{
    int w = m->nspecies + 1;
    for (int k = 0; k < o->nsamples; k++)
        for (int sp = 0; sp < w; sp++) {
            uint64_t sum = 0;
            for (int z = 0; z < m->nz; z++)
                sum += o->plane_counts[((size_t)k * m->nz + z) * w + sp];
            o->counts[(size_t)k * w + sp] = sum;
        }
}

/* Particles that did not fit their site: placed after the step in the nearest site of the
 * origin's type with room. The entries come in any order (GPU atomics); sorting them as integers
 * orders them by (pass, site, rank), which is the order the CPU reference meets them in. The
 * paper resolves overflow on the host; so does every variant here. */
#include <stdlib.h>

#include "../../cuda/base/error.h"
#include "model.h"

static int compare_entries(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* 1 when site i has the origin's type and room (s then holds its content). */
static int has_room(const rd_model *m, const void *lattice, size_t i, int type, rd_site *s)
{
    if (m->types[i] != type)
        return 0;
    rd_site_get(m, lattice, i, s);
    return s->n < m->capacity;
}

/* The first site with room in the Chebyshev shell of radius d around (x, y, z), in z, y, x
 * order; the lattice size if none. */
static size_t search_shell(const rd_model *m, const void *lattice, int x, int y, int z, int d,
                           int type, rd_site *s)
{
    for (int dz = -d; dz <= d; dz++) {
        int cz = z + dz;
        if (cz < 0 || cz >= m->nz)
            continue;
        for (int dy = -d; dy <= d; dy++) {
            int cy = y + dy;
            if (cy < 0 || cy >= m->ny)
                continue;
            int on_face = dz == -d || dz == d || dy == -d || dy == d;
            for (int dx = -d; dx <= d; dx += on_face ? 1 : 2 * d) {
                int cx = x + dx;
                if (cx >= 0 && cx < m->nx) {
                    size_t i = cx + (size_t)m->nx * (cy + (size_t)m->ny * cz);
                    if (has_room(m, lattice, i, type, s))
                        return i;
                }
                if (d == 0)
                    break;
            }
        }
    }
    return m->nsites;
}

int rd_overflow_resolve(const rd_model *m, void *lattice, uint64_t *entries, size_t n)
{
    if (n == 0)
        return 0;
    qsort(entries, n, sizeof *entries, compare_entries);
    int reach = m->nx > m->ny ? m->nx : m->ny;
    reach = reach > m->nz ? reach : m->nz;
    for (size_t e = 0; e < n; e++) {
        size_t origin = RD_OVF_SITE(entries[e]);
        int type = m->types[origin];
        int x = (int)(origin % m->nx), y = (int)(origin / m->nx % m->ny),
            z = (int)(origin / ((size_t)m->nx * m->ny));
        rd_site s;
        size_t i = m->nsites;
        for (int d = 0; d < reach && i == m->nsites; d++)
            i = search_shell(m, lattice, x, y, z, d, type, &s);
        if (i == m->nsites)
            return sb_fail("a particle of species %d that did not fit at (%d, %d, %d) finds no "
                           "%s site with room in the lattice: lower the particle count",
                           RD_OVF_SPECIES(entries[e]), x, y, z, m->type_names[type]);
        s.sp[s.n++] = (uint8_t)RD_OVF_SPECIES(entries[e]);
        rd_site_put(m, lattice, i, &s);
    }
    return 0;
}

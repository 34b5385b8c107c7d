/* The rdme model file (variants/rdme/parse.c, format in variants/rdme/MODEL-FORMAT.md). Each
 * case writes its own small file into a temporary directory. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda/base/error.h"
#include "variants/rdme/model.h"

/* Lines 1 to 3 of most cases: a 8 x 8 x 8 lattice where D = 1e-12 gives q = 0.01. */
#define HEADER "lattice 8 8 8\nspacing 1e-8\ntimestep 1e-6\n"

#define PARSE_FIXTURE_DIR "/tmp/test_rdme_parse_XXXXXX"
#include "parse_fixture.h"


static void parse_ok(const char *path, rd_site_format format, uint32_t seed, rd_model *m)
{
    sb_error_clear();
    int rc = rd_parse_model(m, path, format, seed, 10, 0);
    if (rc != 0)
        print_error("%s\n", sb_error());
    assert_int_equal(rc, 0);
}

/* A failed parse returns -1 and leaves nothing allocated. */
static void assert_parse_fails(const char *name, const char *text, int line, const char *what)
{
    const char *path = write_case(name, text);
    rd_model m;
    sb_error_clear();
    assert_int_equal(rd_parse_model(&m, path, RD_PACKED32, 1, 10, 0), -1);
    assert_null(m.types);
    assert_null(m.lattice0);
    assert_error_names(path, line, what);
}

static void assert_close(double value, double expected)
{
    if (!(fabs(value - expected) <= 1e-12 * fabs(expected)))
        print_error("%.17g is not %.17g\n", value, expected);
    assert_true(fabs(value - expected) <= 1e-12 * fabs(expected));
}

/* How many particles of each species the initial lattice holds. */
static void count_particles(const rd_model *m, uint64_t count[RD_MAX_SPECIES + 1])
{
    memset(count, 0, (RD_MAX_SPECIES + 1) * sizeof *count);
    for (size_t i = 0; i < m->nsites; i++) {
        rd_site s;
        rd_site_get(m, m->lattice0, i, &s);
        for (int k = 0; k < s.n; k++)
            count[s.sp[k]]++;
    }
}

static size_t site_index(const rd_model *m, int x, int y, int z)
{
    return (size_t)x + (size_t)m->nx * ((size_t)y + (size_t)m->ny * (size_t)z);
}

/* ---- a complete model ---- */

static const char complete_model[] =
    "# every statement once or more\n"
    "lattice 16 16 32\n"
    "spacing 1e-8\n"
    "timestep 1e-6\n"
    "boundary periodic\n"
    "species A B\n"
    "species C D\n"
    "sitetype cytoplasm membrane obstacle\n"
    "diffusion * cytoplasm 1e-12\n"
    "diffusion A membrane 2.5e-13\n"
    "transition A cytoplasm membrane 5e-13\n"
    "transition * membrane cytoplasm 0\n"
    "reaction 0 -> A 2 in cytoplasm\n"
    "reaction A -> B 0.5\n"
    "reaction B + C -> D 1e6 in membrane,cytoplasm\n"
    "reaction A + A -> B 3e5\n"
    "reaction D -> B + C + A + A 0.7\n"
    "reaction A -> 0 1.5\n"
    "region obstacle box 0 0 0 16 16 2\n"
    "region membrane box 0 0 0 1 1 1\n"
    "region cytoplasm capsule 7 28 shell 2 membrane\n"
    "particles A 100 in cytoplasm z 4 28\n"
    "particles B 50\n"
    "particle C 3 4 5\n"
    "particle C 3 4 5\n"
    "particles D 10 in membrane\n";

static void check_complete_model(const rd_model *m)
{
    assert_int_equal(m->nx, 16);
    assert_int_equal(m->ny, 16);
    assert_int_equal(m->nz, 32);
    assert_int_equal(m->nsites, 16 * 16 * 32);
    assert_true(m->spacing == 1e-8);
    assert_true(m->tau == 1e-6);
    assert_int_equal(m->periodic, 1);
    assert_string_equal(m->scenario, "file complete.txt");

    assert_int_equal(m->nspecies, 4);
    assert_int_equal(rd_find_species(m, "A"), 1);
    assert_int_equal(rd_find_species(m, "B"), 2);
    assert_int_equal(rd_find_species(m, "C"), 3);
    assert_int_equal(rd_find_species(m, "D"), 4);
    assert_int_equal(m->ntypes, 3);
    assert_string_equal(m->type_names[0], "cytoplasm");
    assert_string_equal(m->type_names[1], "membrane");
    assert_string_equal(m->type_names[2], "obstacle");

    for (int sp = 1; sp <= 4; sp++)
        assert_true(m->diffusion[sp][0][0] == 1e-12);
    assert_true(m->diffusion[1][1][1] == 2.5e-13);
    assert_true(m->diffusion[2][1][1] == 0);
    assert_true(m->diffusion[1][0][1] == 5e-13);
    assert_true(m->diffusion[2][0][1] == 0);
    assert_true(m->diffusion[1][1][0] == 0);
    assert_true(m->diffusion[1][2][2] == 0);

    /* k as written; the per-site constant with N_A lambda^3 (litres), twice for A + A */
    double nav = RD_AVOGADRO * 1e-24 * 1e3;
    const rd_reaction *r = m->reactions;
    assert_int_equal(m->nreactions, 6);
    assert_int_equal(r[0].nreactants, 0);
    assert_int_equal(r[0].nproducts, 1);
    assert_int_equal(r[0].product[0], 1);
    assert_true(r[0].k == 2);
    assert_int_equal(r[0].where, 1 << 0);
    assert_close(m->rate[0], 2 * nav);

    assert_int_equal(r[1].nreactants, 1);
    assert_int_equal(r[1].reactant[0], 1);
    assert_int_equal(r[1].nproducts, 1);
    assert_int_equal(r[1].product[0], 2);
    assert_int_equal(r[1].where, 0xffff);
    assert_close(m->rate[1], 0.5);

    assert_int_equal(r[2].nreactants, 2);
    assert_int_equal(r[2].reactant[0], 2);
    assert_int_equal(r[2].reactant[1], 3);
    assert_int_equal(r[2].nproducts, 1);
    assert_int_equal(r[2].product[0], 4);
    assert_int_equal(r[2].where, (1 << 1) | (1 << 0));
    assert_close(m->rate[2], 1e6 / nav);

    assert_int_equal(r[3].nreactants, 2);
    assert_int_equal(r[3].reactant[0], 1);
    assert_int_equal(r[3].reactant[1], 1);
    assert_close(m->rate[3], 2 * 3e5 / nav);

    assert_int_equal(r[4].nreactants, 1);
    assert_int_equal(r[4].nproducts, 4);
    assert_int_equal(r[4].product[0], 2);
    assert_int_equal(r[4].product[1], 3);
    assert_int_equal(r[4].product[2], 1);
    assert_int_equal(r[4].product[3], 1);
    assert_close(m->rate[4], 0.7);

    assert_int_equal(r[5].nreactants, 1);
    assert_int_equal(r[5].nproducts, 0);
    assert_close(m->rate[5], 1.5);
    assert_int_equal(m->has_order0, 1);

    /* the regions as the builders make them, later lines over earlier ones */
    rd_model ref;
    rd_model_init(&ref, 16, 16, 32, 1e-8, 1e-6);
    assert_int_equal(rd_model_alloc(&ref), 0);
    rd_set_box(&ref, 2, 0, 0, 0, 16, 16, 2);
    rd_set_box(&ref, 1, 0, 0, 0, 1, 1, 1);
    rd_set_capsule(&ref, 7, 28, 0, 2, 1);
    assert_memory_equal(m->types, ref.types, m->nsites);
    rd_model_free(&ref);
    assert_int_equal(m->types[site_index(m, 0, 0, 0)], 1);
    assert_int_equal(m->types[site_index(m, 5, 5, 0)], 2);
    assert_int_equal(m->types[site_index(m, 8, 8, 16)], 0);
    assert_int_equal(m->types[site_index(m, 1, 8, 16)], 1); /* in the shell */

    uint64_t count[RD_MAX_SPECIES + 1];
    count_particles(m, count);
    assert_true(count[1] == 100 && count[2] == 50 && count[3] == 2 && count[4] == 10);
    assert_true(m->nparticles_placed == 162);
    for (size_t i = 0; i < m->nsites; i++) {
        rd_site s;
        rd_site_get(m, m->lattice0, i, &s);
        int z = (int)(i / (16 * 16));
        assert_int_equal(s.type, m->types[i]);
        for (int k = 0; k < s.n; k++) {
            if (s.sp[k] == 1) /* in cytoplasm, 4 <= z < 28 */
                assert_true(s.type == 0 && z >= 4 && z < 28);
            if (s.sp[k] == 2) /* anywhere B diffuses: cytoplasm only */
                assert_int_equal(s.type, 0);
            if (s.sp[k] == 3)
                assert_true(i == site_index(m, 3, 4, 5));
            if (s.sp[k] == 4)
                assert_int_equal(s.type, 1);
        }
    }
    rd_site s;
    rd_site_get(m, m->lattice0, site_index(m, 3, 4, 5), &s);
    int c_here = 0;
    for (int k = 0; k < s.n; k++)
        c_here += s.sp[k] == 3;
    assert_int_equal(c_here, 2);
}

static void test_complete_model(void **state)
{
    (void)state;
    const char *path = write_case("complete.txt", complete_model);
    rd_model m;
    parse_ok(path, RD_PACKED32, 7, &m);
    assert_int_equal(m.format, RD_PACKED32);
    assert_int_equal(m.capacity, 7);
    assert_true(m.seed == 7 && m.steps == 10 && m.sample_steps == 0);
    check_complete_model(&m);
    rd_model_free(&m);

    parse_ok(path, RD_BYTE16, 7, &m);
    assert_int_equal(m.format, RD_BYTE16);
    assert_int_equal(m.capacity, 16);
    check_complete_model(&m);
    rd_model_free(&m);
}

/* The example of MODEL-FORMAT.md is the built-in min-system scenario, bit for bit. */
static void test_documented_example(void **state)
{
    (void)state;
    FILE *f = fopen("variants/rdme/MODEL-FORMAT.md", "r");
    assert_non_null(f);
    static char doc[16384];
    size_t len = fread(doc, 1, sizeof doc - 1, f);
    fclose(f);
    doc[len] = '\0';
    const char *example = strstr(doc, "## Example");
    assert_non_null(example);
    char *begin = strstr(example, "```text\n");
    assert_non_null(begin);
    begin += strlen("```text\n");
    char *end = strstr(begin, "```");
    assert_non_null(end);
    *end = '\0';

    rd_model file, built;
    parse_ok(write_case("example.txt", begin), RD_PACKED32, 3, &file);
    rd_scenario_args args = {"min-system", NULL, "ecoli", 16, -1, -1};
    assert_int_equal(rd_build_scenario(&built, &args, RD_PACKED32, 3, 10, 0), 0);
    assert_true(file.nx == built.nx && file.ny == built.ny && file.nz == built.nz);
    assert_true(file.spacing == built.spacing && file.tau == built.tau);
    assert_int_equal(file.periodic, built.periodic);
    assert_int_equal(file.nspecies, built.nspecies);
    assert_memory_equal(file.species, built.species, sizeof file.species);
    assert_int_equal(file.ntypes, built.ntypes);
    assert_memory_equal(file.type_names, built.type_names, sizeof file.type_names);
    assert_memory_equal(file.diffusion, built.diffusion, sizeof file.diffusion);
    assert_memory_equal(file.threshold, built.threshold, sizeof file.threshold);
    assert_int_equal(file.nreactions, built.nreactions);
    for (int i = 0; i < file.nreactions; i++) {
        const rd_reaction *a = &file.reactions[i], *b = &built.reactions[i];
        assert_int_equal(a->nreactants, b->nreactants);
        assert_memory_equal(a->reactant, b->reactant, (size_t)a->nreactants);
        assert_int_equal(a->nproducts, b->nproducts);
        assert_memory_equal(a->product, b->product, (size_t)a->nproducts);
        assert_int_equal(a->where, b->where);
        assert_close(a->k, b->k); /* 0.78125 written, 0.0125e-6 / 16e-9 computed */
    }
    assert_memory_equal(file.types, built.types, file.nsites);
    assert_true(file.nparticles_placed == 1758 + 1758 + 914);
    assert_true(file.nparticles_placed == built.nparticles_placed);
    assert_memory_equal(file.lattice0, built.lattice0, file.nsites * 4);
    rd_model_free(&file);
    rd_model_free(&built);
}

/* Placement is keyed on the seed: the same seed gives the same lattice, another seed another. */
static void test_placement_follows_seed(void **state)
{
    (void)state;
    const char *path = write_case("seeded.txt", HEADER "species A\nsitetype c\n"
                                                       "diffusion A c 1e-12\nparticles A 40\n");
    rd_model a, b, c;
    parse_ok(path, RD_PACKED32, 1, &a);
    parse_ok(path, RD_PACKED32, 1, &b);
    parse_ok(path, RD_PACKED32, 2, &c);
    assert_memory_equal(a.lattice0, b.lattice0, a.nsites * 4);
    assert_memory_not_equal(a.lattice0, c.lattice0, a.nsites * 4);
    rd_model_free(&a);
    rd_model_free(&b);
    rd_model_free(&c);
}

/* ---- what the files may look like ---- */

static void test_comments_blank_lines_crlf(void **state)
{
    (void)state;
    const char *text = "# the header in any order\r\n"
                       "\r\n"
                       "spacing 16e-9   # lambda\r\n"
                       "\ttimestep\t5e-5\r\n"
                       "   \r\n"
                       "lattice 4 5 6# no blank before the comment\r\n"
                       "boundary reflect\r\n"
                       "species A#B\r\n"
                       "sitetype c\r\n"
                       "diffusion A   c 1e-12\r\n"
                       "#\r\n"
                       "particle A 3 4 5"; /* no line end at the end */
    rd_model m;
    parse_ok(write_case("crlf.txt", text), RD_PACKED32, 1, &m);
    assert_true(m.nx == 4 && m.ny == 5 && m.nz == 6);
    assert_true(m.spacing == 16e-9 && m.tau == 5e-5);
    assert_int_equal(m.periodic, 0);
    assert_int_equal(m.nspecies, 1);
    assert_string_equal(m.species[1], "A");
    assert_true(m.diffusion[1][0][0] == 1e-12);
    rd_site s;
    rd_site_get(&m, m.lattice0, site_index(&m, 3, 4, 5), &s);
    assert_true(s.n == 1 && s.sp[0] == 1);
    assert_true(m.nparticles_placed == 1);
    rd_model_free(&m);
}

/* Without a sitetype line every site is "cytoplasm"; boundaries reflect. */
static void test_defaults(void **state)
{
    (void)state;
    rd_model m;
    parse_ok(write_case("defaults.txt", HEADER "species A B\nreaction A -> B 1\n"
                                               "particle A 0 0 0\nparticle A 7 7 7\n"),
             RD_PACKED32, 1, &m);
    assert_int_equal(m.ntypes, 1);
    assert_string_equal(m.type_names[0], "cytoplasm");
    assert_int_equal(m.periodic, 0);
    assert_string_equal(m.scenario, "file defaults.txt");
    uint64_t count[RD_MAX_SPECIES + 1];
    count_particles(&m, count);
    assert_true(count[1] == 2 && count[2] == 0);
    rd_model_free(&m);
}

/* '*' is every species, those declared further down included (rd_set_diffusion with 0). */
static void test_star_covers_every_species(void **state)
{
    (void)state;
    rd_model m;
    parse_ok(write_case("star.txt", HEADER "species A\nsitetype c m\ndiffusion * c 1e-12\n"
                                           "transition * c m 2e-12\nspecies B\n"),
             RD_PACKED32, 1, &m);
    for (int sp = 1; sp <= 2; sp++) {
        assert_true(m.diffusion[sp][0][0] == 1e-12);
        assert_true(m.diffusion[sp][0][1] == 2e-12);
        assert_true(m.diffusion[sp][1][0] == 0);
    }
    rd_model_free(&m);
}

static void test_fifteen_species(void **state)
{
    (void)state;
    char text[512] = HEADER "species";
    for (int i = 1; i <= RD_MAX_SPECIES; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), " S%d", i);
    strcat(text, "\n");
    rd_model m;
    parse_ok(write_case("fifteen.txt", text), RD_PACKED32, 1, &m);
    assert_int_equal(m.nspecies, RD_MAX_SPECIES);
    assert_int_equal(rd_find_species(&m, "S15"), 15);
    rd_model_free(&m);
    strcat(text, "\nspecies S16\n");
    assert_parse_fails("sixteen.txt", text, 6, "at most 15 species");
}

/* Lines hold at most 1024 characters, not counting the line end. */
static void test_line_length(void **state)
{
    (void)state;
    char text[2048] = HEADER "species A\n#";
    size_t at = strlen(text);
    memset(text + at, 'c', 1023);
    strcpy(text + at + 1023, "\r\n");
    rd_model m;
    parse_ok(write_case("longest.txt", text), RD_PACKED32, 1, &m);
    rd_model_free(&m);
    strcpy(text + at + 1023, "c\n");
    assert_parse_fails("too_long.txt", text, 5, "line of 1025 characters; lines hold at most 1024");
}

/* ---- errors: each names file:line and what is wrong ---- */

static void test_missing_file(void **state)
{
    (void)state;
    char path[1100];
    snprintf(path, sizeof path, "%s/missing.txt", tmpdir);
    rd_model m;
    assert_int_equal(rd_parse_model(&m, path, RD_PACKED32, 1, 10, 0), -1);
    assert_null(m.types);
    assert_error_names(path, 0, "cannot open: No such file or directory");
}

static void test_unknown_statement(void **state)
{
    (void)state;
    assert_parse_fails("keyword.txt", HEADER "speces A\n", 4, "unknown statement 'speces'");
    assert_parse_fails("keyword_first.txt", "latice 8 8 8\n", 1, "unknown statement 'latice'");
    const char *path = write_bytes("nul.txt", HEADER "species A\0B\n", sizeof HEADER + 11);
    rd_model m;
    assert_int_equal(rd_parse_model(&m, path, RD_PACKED32, 1, 10, 0), -1);
    assert_error_names(path, 4, "NUL byte");
}

static void test_wrong_number_of_fields(void **state)
{
    (void)state;
    assert_parse_fails("f_lattice.txt", "lattice 8 8\n", 1,
                       "wrong number of fields (2 after 'lattice'); write 'lattice NX NY NZ'");
    assert_parse_fails("f_spacing.txt", "lattice 8 8 8\nspacing 1e-8 m\n", 2,
                       "wrong number of fields (2 after 'spacing')");
    assert_parse_fails("f_species.txt", HEADER "species\n", 4, "wrong number of fields");
    assert_parse_fails("f_diffusion.txt", HEADER "species A\nsitetype c\ndiffusion A c\n", 6,
                       "write 'diffusion SPECIES|* TYPE D'");
    assert_parse_fails("f_transition.txt", HEADER "species A\nsitetype c m\ntransition A c 1\n",
                       6, "wrong number of fields (3 after 'transition')");
    assert_parse_fails("f_particle.txt", HEADER "species A\nparticle A 1 2\n", 5,
                       "write 'particle SPECIES X Y Z'");
    assert_parse_fails("f_particles.txt", HEADER "species A\nparticles A 1 in\n", 5,
                       "unexpected 'in'; write 'particles SPECIES COUNT [in TYPE] [z Z0 Z1]'");
    assert_parse_fails("f_particles_z.txt", HEADER "species A\nparticles A 1 z 0 4 5\n", 5,
                       "unexpected '5'");
    assert_parse_fails("f_box.txt", HEADER "sitetype c\nregion c box 0 0 0 4 4\n", 5,
                       "wrong number of fields for a box");
    assert_parse_fails("f_capsule.txt", HEADER "sitetype c m\nregion c capsule 2 6 shell 1\n", 5,
                       "wrong fields for a capsule");
    assert_parse_fails("f_shape.txt", HEADER "sitetype c\nregion c sphere 2 6\n", 5,
                       "unknown region shape 'sphere'");
}

static void test_bad_numbers(void **state)
{
    (void)state;
    assert_parse_fails("n_1e.txt", "lattice 8 8 8\nspacing 1e\n", 2,
                       "spacing '1e' is not a finite number > 0");
    assert_parse_fails("n_nan.txt", "lattice 8 8 8\nspacing 1e-8\ntimestep nan\n", 3,
                       "timestep 'nan' is not a finite number > 0");
    assert_parse_fails("n_inf.txt", "spacing inf\n", 1, "spacing 'inf'");
    assert_parse_fails("n_zero.txt", "timestep 0\n", 1, "timestep '0' is not a finite number > 0");
    assert_parse_fails("n_hex.txt", "spacing 0x1p-20\n", 1, "spacing '0x1p-20'");
    assert_parse_fails("n_plus.txt", "spacing +1e-8\n", 1, "spacing '+1e-8'");
    assert_parse_fails("n_negative_d.txt", HEADER "species A\nsitetype c\ndiffusion A c -1e-12\n",
                       6, "diffusion coefficient '-1e-12' is not a finite number >= 0");
    assert_parse_fails("n_nan_d.txt", HEADER "species A\nsitetype c\ndiffusion A c nan\n", 6,
                       "diffusion coefficient 'nan'");
    assert_parse_fails("n_rate.txt", HEADER "species A B\nreaction A -> B -1\n", 5,
                       "rate '-1' is not a finite number >= 0; write it in 1/s");
    assert_parse_fails("n_rate2.txt", HEADER "species A B\nreaction A + B -> B 1e\n", 5,
                       "rate '1e' is not a finite number >= 0; write it in 1/(M s)");
    assert_parse_fails("n_lattice0.txt", "lattice 8 0 8\n", 1, "NY '0' is not a whole number");
    assert_parse_fails("n_lattice_frac.txt", "lattice 8 8 8.5\n", 1, "NZ '8.5'");
    assert_parse_fails("n_lattice_huge.txt", "lattice 99999999999 8 8\n", 1, "NX '99999999999'");
    assert_parse_fails("n_lattice_sites.txt", "lattice 10000 10000 10000\n", 1,
                       "more than 2^39 sites");
    assert_parse_fails("n_count.txt", HEADER "species A\nparticles A -5\n", 5, "COUNT '-5'");
    assert_parse_fails("n_coord.txt", HEADER "species A\nparticle A 1 2 3x\n", 5, "Z '3x'");
    assert_parse_fails("n_boundary.txt", "boundary open\n", 1,
                       "boundary 'open' is neither reflect nor periodic");
}

static void test_unknown_names(void **state)
{
    (void)state;
    assert_parse_fails("u_species.txt", HEADER "species A\nsitetype c\ndiffusion X c 1e-12\n", 6,
                       "unknown species 'X'; declare it with 'species X' above");
    assert_parse_fails("u_type.txt", HEADER "species A\nsitetype c\ndiffusion A cyto 1e-12\n", 6,
                       "unknown site type 'cyto'; declare it with 'sitetype cyto' above");
    /* names are known from the line that declares them on */
    assert_parse_fails("u_later.txt", HEADER "species A\nreaction A -> B 1\nspecies B\n", 5,
                       "unknown species 'B'");
    assert_parse_fails("u_where.txt", HEADER "species A B\nsitetype c\nreaction A -> B 1 in c,m\n",
                       6, "unknown site type 'm'");
    assert_parse_fails("u_where_empty.txt", HEADER "species A B\nsitetype c\n"
                                                   "reaction A -> B 1 in c,,c\n",
                       6, "empty site type");
    assert_parse_fails("u_particles.txt", HEADER "species A\nparticles A 4 in c\n", 5,
                       "unknown site type 'c'");
    assert_parse_fails("u_region.txt", HEADER "sitetype c\nregion m box 0 0 0 1 1 1\n", 5,
                       "unknown site type 'm'");
    assert_parse_fails("u_particle.txt", HEADER "species A\nparticle B 0 0 0\n", 5,
                       "unknown species 'B'");
}

static void test_names(void **state)
{
    (void)state;
    assert_parse_fails("dup_species.txt", HEADER "species A B\n\nspecies B\n", 6,
                       "species 'B' declared twice");
    assert_parse_fails("dup_species_line.txt", HEADER "species A A\n", 4,
                       "species 'A' declared twice");
    assert_parse_fails("dup_type.txt", HEADER "sitetype c m\nsitetype c\n", 5,
                       "site type 'c' declared twice");
    assert_parse_fails("bad_name.txt", HEADER "species 1A\n", 4, "species name '1A' is not a name");
    assert_parse_fails("in_name.txt", HEADER "sitetype in\n", 4, "site type name 'in'");
    assert_parse_fails("star_name.txt", HEADER "species *\n", 4, "species name '*'");
    assert_parse_fails("long_name.txt", HEADER "species A2345678901234567890123456789012\n", 4,
                       "longer than 31 characters");
    char text[1024] = HEADER "sitetype";
    for (int i = 0; i <= RD_MAX_TYPES; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), " t%d", i);
    assert_parse_fails("types17.txt", text, 4, "at most 16 site types");
}

static void test_header_order(void **state)
{
    (void)state;
    assert_parse_fails("h_first.txt", "# c\nspecies A\n", 2,
                       "'species' before 'lattice NX NY NZ': declare the lattice first");
    assert_parse_fails("h_spacing.txt", "lattice 8 8 8\ntimestep 1e-6\nsitetype c\n", 3,
                       "'sitetype' before 'spacing METRES': declare the spacing first");
    assert_parse_fails("h_timestep.txt", "lattice 8 8 8\nspacing 1e-8\nspecies A\n", 3,
                       "'species' before 'timestep SECONDS'");
    assert_parse_fails("h_after.txt", HEADER "species A\nboundary periodic\n", 5,
                       "'boundary' after the model's statements (which begin at line 4)");
    assert_parse_fails("h_twice.txt", HEADER "lattice 4 4 4\n", 4,
                       "'lattice' given twice (first at line 1)");
}

static void test_missing_at_end(void **state)
{
    (void)state;
    assert_parse_fails("e_empty.txt", "", 0, "no 'lattice NX NY NZ' line");
    assert_parse_fails("e_comments.txt", "# nothing\n\n", 0, "no 'lattice NX NY NZ' line");
    assert_parse_fails("e_spacing.txt", "lattice 8 8 8\ntimestep 1e-6\n", 0,
                       "no 'spacing METRES' line");
    assert_parse_fails("e_timestep.txt", "lattice 8 8 8\nspacing 1e-8\n", 0,
                       "no 'timestep SECONDS' line");
    assert_parse_fails("e_species.txt", HEADER "sitetype c\n", 0, "declares no species");
    assert_parse_fails("e_header_only.txt", HEADER, 0, "declares no species");
}

/* The check is rd_model_finish's; the parser puts the file name in front. */
static void test_q_above_half(void **state)
{
    (void)state;
    assert_parse_fails("q.txt", HEADER "species A\nsitetype c m\ntransition A c m 1e-10\n", 0,
                       "species A, c -> m: D tau / lambda^2 = 1 exceeds 0.5");
    assert_parse_fails("q2.txt", HEADER "species A\nsitetype c\ndiffusion * c 5.1e-11\n", 0,
                       "exceeds 0.5");
    rd_model m;
    parse_ok(write_case("q_ok.txt", HEADER "species A\nsitetype c\ndiffusion * c 4.9e-11\n"),
             RD_PACKED32, 1, &m);
    rd_model_free(&m);
}

static void test_placement_errors(void **state)
{
    (void)state;
    /* 2 x 2 x 2 sites of 7 slots hold 56 particles */
    const char *small = "lattice 2 2 2\nspacing 1e-8\ntimestep 1e-6\nspecies A\nsitetype c\n"
                        "diffusion A c 1e-12\n";
    char text[512];
    snprintf(text, sizeof text, "%sparticles A 50\nparticles A 7\n", small);
    assert_parse_fails("room.txt", text, 8, "7 particles of A do not fit");
    rd_model m;
    snprintf(text, sizeof text, "%sparticles A 50\nparticles A 6\n", small);
    parse_ok(write_case("room_ok.txt", text), RD_PACKED32, 1, &m);
    assert_true(m.nparticles_placed == 56);
    rd_model_free(&m);
    snprintf(text, sizeof text, "%sparticles A 29 z 1 2\n", small);
    assert_parse_fails("room_z.txt", text, 7, "have room for 28");
    snprintf(text, sizeof text, "%sparticle A 2 0 0\n", small);
    assert_parse_fails("outside.txt", text, 7, "particle at (2, 0, 0): outside the");
    snprintf(text, sizeof text, "%sparticle A 0 -1 0\n", small);
    assert_parse_fails("outside_neg.txt", text, 7, "outside the 2 x 2 x 2 lattice");
    snprintf(text, sizeof text, "%s%s", small, "particle A 1 1 1\n"
                                               "particle A 1 1 1\nparticle A 1 1 1\n"
                                               "particle A 1 1 1\nparticle A 1 1 1\n"
                                               "particle A 1 1 1\nparticle A 1 1 1\n"
                                               "particle A 1 1 1\n");
    assert_parse_fails("full_site.txt", text, 14, "already holds 7 particles");
    snprintf(text, sizeof text, "%sparticles A 1 z 1 1\n", small);
    assert_parse_fails("z_empty.txt", text, 7, "empty z range");
    snprintf(text, sizeof text, "%sparticles A 1 z 0 3\n", small);
    assert_parse_fails("z_outside.txt", text, 7, "Z1 '3' is not a whole number in 1..2");
    /* A species that diffuses nowhere may be placed only with 'in TYPE' or 'particle' */
    assert_parse_fails("nowhere.txt", HEADER "species A\nparticles A 1\n", 5,
                       "1 particles of A do not fit");
}

static void test_reaction_errors(void **state)
{
    (void)state;
    assert_parse_fails("r_three.txt", HEADER "species A B C\nreaction A + B + C -> A 1\n", 5,
                       "3 reactants; a reaction has at most 2");
    assert_parse_fails("r_five.txt", HEADER "species A\nreaction A -> A + A + A + A + A 1\n", 5,
                       "5 products; a reaction has at most 4");
    assert_parse_fails("r_arrow.txt", HEADER "species A B\nreaction A + B 1\n", 5, "no '->'");
    assert_parse_fails("r_arrows.txt", HEADER "species A B\nreaction A -> B -> A 1\n", 5,
                       "more than one '->'");
    assert_parse_fails("r_plus.txt", HEADER "species A B\nreaction A B -> A 1\n", 5,
                       "'B' left of '->' where '+' belongs");
    assert_parse_fails("r_dangling.txt", HEADER "species A B\nreaction A -> A + 1\n", 5,
                       "'+' with nothing after it right of '->'");
    assert_parse_fails("r_zero.txt", HEADER "species A B\nreaction 0 + A -> B 1\n", 5,
                       "'0' left of '->' where a species belongs");
    assert_parse_fails("r_empty.txt", HEADER "species A B\nreaction A + B -> 2\n", 5,
                       "nothing right of '->'; write 0 for no products");
    assert_parse_fails("r_norate.txt", HEADER "species A B\nreaction A -> B\n", 5,
                       "wrong number of fields");
    assert_parse_fails("r_norate2.txt", HEADER "species A B\nreaction A + B -> B\n", 5,
                       "rate 'B' is not a finite number");
    assert_parse_fails("r_nolhs.txt", HEADER "species A B\nreaction -> B 1 2\n", 5,
                       "nothing left of '->'; write 0 for no reactants");
    char text[4096] = HEADER "species A\n";
    for (int i = 0; i <= RD_MAX_REACTIONS; i++)
        strcat(text, "reaction A -> 0 1\n");
    assert_parse_fails("r_many.txt", text, 5 + RD_MAX_REACTIONS, "more than 64 reactions");
}

static void test_region_errors(void **state)
{
    (void)state;
    assert_parse_fails("b_outside.txt", HEADER "sitetype c\nregion c box 0 0 0 9 8 8\n", 5,
                       "X1 '9' is not a whole number in 1..8");
    assert_parse_fails("b_negative.txt", HEADER "sitetype c\nregion c box 0 -1 0 8 8 8\n", 5,
                       "Y0 '-1'");
    assert_parse_fails("b_empty.txt", HEADER "sitetype c\nregion c box 0 0 4 8 8 4\n", 5,
                       "empty box: Z0 4 is not below Z1 4");
    assert_parse_fails("c_wide.txt", HEADER "sitetype c\nregion c capsule 4.5 9\n", 5,
                       "does not fit the 8 x 8 x 8 lattice");
    assert_parse_fails("c_long.txt", HEADER "sitetype c\nregion c capsule 2 9\n", 5,
                       "does not fit");
    assert_parse_fails("c_short.txt", HEADER "sitetype c\nregion c capsule 3 5\n", 5,
                       "capsule length 5 is less than its diameter 6");
    assert_parse_fails("c_radius.txt", HEADER "sitetype c\nregion c capsule 0 5\n", 5,
                       "radius '0' is not a finite number > 0");
    assert_parse_fails("c_shell.txt", HEADER "sitetype c m\nregion c capsule 3 8 shell 0 m\n", 5,
                       "shell '0'");
    assert_parse_fails("c_shell_type.txt", HEADER "sitetype c\nregion c capsule 3 8 shell 1 m\n",
                       5, "unknown site type 'm'");
    assert_parse_fails("c_word.txt", HEADER "sitetype c m\nregion c capsule 3 8 skin 1 m\n", 5,
                       "wrong fields for a capsule");
    assert_parse_fails("t_self.txt", HEADER "species A\nsitetype c\ntransition A c c 1e-12\n", 6,
                       "transition from 'c' into itself; use 'diffusion A c D'");
}

/* A lattice whose run would not fit the host's memory is refused at its line, before anything
 * is allocated, with the needed and available sizes; $SB_HOST_MEMORY (a smaller host) too. */
static void test_host_memory(void **state)
{
    (void)state;
    /* 2^38 sites: at least 17 bytes a site (4.25 TiB), more than any host has */
    assert_parse_fails("huge.txt", "# a comment\nlattice 8192 8192 4096\nspacing 1e-8\n"
                       "timestep 1e-6\nspecies A\n", 2,
                       "needs 4.25 TiB of host memory for a 8192 x 8192 x 4096 lattice even in the "
                       "smallest site format, 4 bytes");
    assert_non_null(strstr(sb_error(), ", and the host has "));
    assert_non_null(strstr(sb_error(), " free: use a smaller lattice"));
    /* 64^3 sites fit 1 MiB no more: 17 B a site at least (a byte of type, four lattices) */
    const char *text = "lattice 64 64 64\nspacing 1e-8\ntimestep 1e-6\nspecies A\n";
    setenv("SB_HOST_MEMORY", "1M", 1);
    assert_parse_fails("small_host.txt", text, 1,
                       "needs 4.25 MiB of host memory for a 64 x 64 x 64 lattice even in the "
                       "smallest site format, 4 bytes (its site types, the initial lattice, the "
                       "two outputs kept for validation and a working lattice), and the host "
                       "has 1.00 MiB free "
                       "(as $SB_HOST_MEMORY says): use a smaller lattice");
    /* the format and the samples counted once they are known: byte16 needs 65 B a site */
    setenv("SB_HOST_MEMORY", "8M", 1);
    const char *path = write_case("byte16.txt", text);
    rd_model m;
    sb_error_clear();
    assert_int_equal(rd_parse_model(&m, path, RD_BYTE16, 1, 10, 0), -1);
    assert_null(m.types);
    assert_error_names(path, 0, "needs 16.25 MiB of host memory for a 64 x 64 x 64 lattice of "
                       "16-byte sites");
    parse_ok(path, RD_PACKED32, 1, &m);
    rd_model_free(&m);
    /* samples past an int: refused, not wrapped */
    unsetenv("SB_HOST_MEMORY");
    sb_error_clear();
    assert_int_equal(rd_parse_model(&m, path, RD_PACKED32, 1, 1LL << 40, 1), -1);
    assert_error_names(path, 0, "1099511627776 steps sampled every 1 make 1099511627777 "
                       "samples, more than 2147483647: raise sample_steps");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_complete_model),
        cmocka_unit_test(test_documented_example),
        cmocka_unit_test(test_placement_follows_seed),
        cmocka_unit_test(test_comments_blank_lines_crlf),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_star_covers_every_species),
        cmocka_unit_test(test_fifteen_species),
        cmocka_unit_test(test_line_length),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_unknown_statement),
        cmocka_unit_test(test_wrong_number_of_fields),
        cmocka_unit_test(test_bad_numbers),
        cmocka_unit_test(test_unknown_names),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_header_order),
        cmocka_unit_test(test_missing_at_end),
        cmocka_unit_test(test_q_above_half),
        cmocka_unit_test(test_placement_errors),
        cmocka_unit_test(test_reaction_errors),
        cmocka_unit_test(test_region_errors),
        cmocka_unit_test(test_host_memory),
    };
    return cmocka_run_group_tests_name("rdme_parse", tests, make_tmpdir, remove_tmpdir) ? 1 : 0;
}

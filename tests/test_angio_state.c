/* The angio saved state (variants/angio/state.c, format in variants/angio/STATE-FORMAT.md).
 * Each case writes its own small file into a temporary directory. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cuda/base/error.h"
#include "variants/angio/model.h"

#define PARSE_FIXTURE_DIR "/tmp/test_angio_state_XXXXXX"
#include "parse_fixture.h"

/* Lines 1 and 2 of most cases, and a good cell and tube for a domain of side 100. */
#define HEAD "angio-state 1\nside 100\n"
#define CELL "50 50 50 5 1 0 new 0 0\n"
#define TUBE "0 50 50 100 50 50 4 3 1\n"

/* A model as the caller hands it to ag_state_read: laws, seed, steps and the cell limit set,
 * none of which the file may change. */
static void model_init(ag_model *m)
{
    memset(m, 0, sizeof *m);
    m->laws.k_c = 1.2f;
    m->laws.dt = 0.5f;
    m->seed = 7;
    m->steps = 10;
    m->max_cells = 1000;
}

static void assert_caller_fields_kept(const ag_model *m)
{
    assert_true(m->laws.k_c == 1.2f && m->laws.dt == 0.5f);
    assert_true(m->seed == 7 && m->steps == 10 && m->max_cells == 1000);
}

static void read_ok(const char *path, ag_model *m)
{
    model_init(m);
    sb_error_clear();
    int rc = ag_state_read(m, path);
    if (rc != 0)
        print_error("%s\n", sb_error());
    assert_int_equal(rc, 0);
    assert_caller_fields_kept(m);
}

/* A failed read returns -1 and leaves no cells and no tubes. */
static void assert_read_fails(const char *name, const char *text, int line, const char *what)
{
    const char *path = write_case(name, text);
    ag_model m;
    model_init(&m);
    sb_error_clear();
    assert_int_equal(ag_state_read(&m, path), -1);
    assert_null(m.cells);
    assert_null(m.tubes);
    assert_int_equal(m.ncells, 0);
    assert_int_equal(m.ntubes, 0);
    assert_caller_fields_kept(&m);
    assert_error_names(path, line, what);
}

static void free_model(ag_model *m)
{
    free(m->cells);
    free(m->tubes);
}

/* Two models hold the same domain, cells and tubes, bit for bit. */
static void assert_same_state(const ag_model *a, const ag_model *b)
{
    assert_memory_equal(&a->side, &b->side, sizeof a->side);
    assert_int_equal(a->ncells, b->ncells);
    assert_int_equal(a->ntubes, b->ntubes);
    assert_memory_equal(a->cells, b->cells, (size_t)a->ncells * sizeof *a->cells);
    if (a->ntubes > 0)
        assert_memory_equal(a->tubes, b->tubes, (size_t)a->ntubes * sizeof *a->tubes);
}

/* ---- good files ---- */

/* The example of STATE-FORMAT.md, field by field. */
static void test_documented_example(void **state)
{
    (void)state;
    FILE *f = fopen("variants/angio/STATE-FORMAT.md", "r");
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

    ag_model m;
    read_ok(write_case("example.txt", begin), &m);
    assert_string_equal(m.scenario, "file example.txt");
    assert_true(m.side == 400);
    assert_int_equal(m.ncells, 4);
    assert_int_equal(m.ntubes, 2);
    assert_true(m.r_max == 8 && m.tube_r_max == 10);
    /* the domain was set after the radii: the box edge covers a cell beside the widest tube */
    assert_true(m.nbox >= 1);
    assert_true(m.box_edge >= 1.2f * (8 + 10) * 0.9999f);

    static const int states[4] = {AG_MATURE, AG_NEW, AG_HYPOXIC, AG_HYPOXIC};
    for (int i = 0; i < 4; i++) {
        const ag_cell *c = &m.cells[i];
        assert_int_equal(c->id, i);
        assert_int_equal(c->state, states[i]);
        assert_true(c->f[0] == 0 && c->f[1] == 0 && c->f[2] == 0);
        assert_true(c->dc == 0 && c->da == 0 && c->p == 0);
    }
    const ag_cell *c = &m.cells[3];
    assert_true(c->x[0] == 207 && c->x[1] == 207 && c->x[2] == 213);
    assert_true(c->r == 7.5f && c->c == 0.05f && c->a == 0.2f);
    assert_true(c->age == 3000 && c->t_low == 120);
    const ag_tube *t = &m.tubes[1];
    assert_true(t->p0[0] == 240 && t->p0[1] == 200 && t->p0[2] == 200);
    assert_true(t->p1[0] == 240 && t->p1[1] == 400 && t->p1[2] == 200);
    assert_true(t->r0 == 9 && t->r1 == 8 && t->cb == 1);
    assert_true(m.tubes[0].taf == 0 && t->taf == 0);
    free_model(&m);
}

/* Read, write, read again: the same state bit for bit. */
static void test_round_trip_example(void **state)
{
    (void)state;
    const char *text = "angio-state 1\nside 400\ncells 2\n"
                       "200 200 200 8 0.9 0 mature 1500 0\n"
                       "214.1 200.3 199.7 8.25 0.1 0.3 hypoxic 20.5 3.25\n"
                       "tubes 1\n240 0 200 240 400 200 10 9 1\n";
    ag_model a, b;
    read_ok(write_case("first.txt", text), &a);
    char path[1024];
    snprintf(path, sizeof path, "%s/second.txt", tmpdir);
    assert_int_equal(ag_state_write(&a, path), 0);
    read_ok(path, &b);
    assert_same_state(&a, &b);
    assert_true(a.r_max == b.r_max && a.tube_r_max == b.tube_r_max);
    assert_string_equal(b.scenario, "file second.txt");
    free_model(&a);
    free_model(&b);
}

/* Uniform in [0, 1) with all 24 bits of a float's mantissa in play. */
static float uniform(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (float)(*s >> 40) * 0x1p-24f;
}

/* Awkward floats written and read back bit for bit: %.9g suffices for every float, -0 and
 * subnormals included, and the largest float below the side stays inside. */
static void test_round_trip_every_float(void **state)
{
    (void)state;
    const int n = 2000, ntubes = 300;
    ag_model m;
    model_init(&m);
    m.side = 1000.123f;
    m.ncells = n;
    m.ntubes = ntubes;
    m.cells = calloc((size_t)n, sizeof *m.cells);
    m.tubes = calloc((size_t)ntubes, sizeof *m.tubes);
    assert_non_null(m.cells);
    assert_non_null(m.tubes);
    uint64_t s = 12345;
    for (int i = 0; i < n; i++) {
        ag_cell *c = &m.cells[i];
        c->id = (uint32_t)i;
        c->state = i % 3; /* new, mature, hypoxic */
        for (int k = 0; k < 3; k++)
            c->x[k] = fminf(uniform(&s) * m.side, nextafterf(m.side, 0));
        c->r = 0.5f + 20 * uniform(&s);
        c->c = 2 * uniform(&s);
        c->a = uniform(&s) * 1e-3f;
        c->age = 1e4f * uniform(&s);
        c->t_low = 500 * uniform(&s);
    }
    m.cells[0].c = -0.0f;
    m.cells[1].a = 1e-40f;
    m.cells[2].x[0] = nextafterf(m.side, 0);
    m.cells[3].r = 1e-30f;
    m.cells[4].age = 3.4e38f;
    for (int i = 0; i < ntubes; i++) {
        ag_tube *t = &m.tubes[i];
        for (int k = 0; k < 3; k++) {
            t->p0[k] = uniform(&s) * m.side;
            t->p1[k] = uniform(&s) * m.side;
        }
        t->r0 = 1 + 10 * uniform(&s);
        t->r1 = 1 + 10 * uniform(&s);
        t->cb = uniform(&s);
    }
    m.tubes[0].p1[2] = m.side; /* the closed cube */
    memcpy(m.tubes[1].p1, m.tubes[1].p0, sizeof m.tubes[1].p0); /* zero length */

    char path[1024];
    snprintf(path, sizeof path, "%s/random.txt", tmpdir);
    assert_int_equal(ag_state_write(&m, path), 0);
    assert_int_equal(ag_state_write(&m, path), 0); /* replaces the file */
    ag_model back;
    read_ok(path, &back);
    assert_same_state(&m, &back);
    free_model(&m);
    free_model(&back);
}

static void test_comments_blank_lines_crlf(void **state)
{
    (void)state;
    const char *text = "# a saved state\r\n"
                       "\r\n"
                       "angio-state 1   # version\r\n"
                       "\tside\t100\r\n"
                       "cells 2# no blank before the comment\r\n"
                       "   \r\n"
                       "1 2 3 4 0.5 0.25 mature 10 0\r\n"
                       "# between cell lines\r\n"
                       "\r\n"
                       "  99.5\t2 3 4.5 0 0 hypoxic 0 1.5\r\n"
                       "tubes 1\r\n"
                       "5 5 5 5 5 5 2 2 0.5"; /* zero length; no line end at the end */
    ag_model m;
    read_ok(write_case("crlf.txt", text), &m);
    assert_int_equal(m.ncells, 2);
    assert_int_equal(m.ntubes, 1);
    assert_true(m.cells[1].x[0] == 99.5f && m.cells[1].r == 4.5f && m.cells[1].t_low == 1.5f);
    assert_int_equal(m.cells[1].id, 1);
    assert_true(m.r_max == 4.5f && m.tube_r_max == 2);
    assert_true(m.tubes[0].cb == 0.5f);
    free_model(&m);
}

/* No tubes at all; radii give r_max and tube_r_max even when the largest comes last. */
static void test_no_tubes(void **state)
{
    (void)state;
    ag_model m;
    read_ok(write_case("notubes.txt", HEAD "cells 2\n" CELL "1 1 1 6 0 0 new 0 0\ntubes 0\n"),
            &m);
    assert_int_equal(m.ntubes, 0);
    assert_null(m.tubes);
    assert_true(m.r_max == 6 && m.tube_r_max == 0);
    free_model(&m);
}

/* ---- errors ---- */

static void test_missing_file(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/absent.txt", tmpdir);
    ag_model m;
    model_init(&m);
    assert_int_equal(ag_state_read(&m, path), -1);
    assert_null(m.cells);
    assert_null(m.tubes);
    assert_error_names(path, 0, "cannot open: No such file or directory");
}

static void test_header(void **state)
{
    (void)state;
    assert_read_fails("empty.txt", "", 0, "no 'angio-state 1' line");
    assert_read_fails("comments.txt", "# nothing\n\n", 0, "no 'angio-state 1' line");
    assert_read_fails("no_header.txt", "# a state\nside 100\n", 2,
                      "not an angio state file: it must begin with 'angio-state 1'");
    assert_read_fails("numbers.txt", "1 2 3\n", 1, "not an angio state file");
    assert_read_fails("version.txt", "angio-state 2\n", 1,
                      "version '2' is not known; this build reads 'angio-state 1'");
    assert_read_fails("header_bare.txt", "angio-state\n", 1,
                      "wrong number of fields (0 after 'angio-state'); write 'angio-state 1'");
    assert_read_fails("header_long.txt", "angio-state 1 2\n", 1, "wrong number of fields");

    static const char nul[] = "angio-state 1\nside 1\0 00\n";
    const char *path = write_bytes("nul.txt", nul, sizeof nul - 1);
    ag_model m;
    model_init(&m);
    assert_int_equal(ag_state_read(&m, path), -1);
    assert_null(m.cells);
    assert_error_names(path, 2, "the line contains a NUL byte");
}

static void test_order(void **state)
{
    (void)state;
    assert_read_fails("cells_first.txt", "angio-state 1\ncells 1\n", 2,
                      "'cells' before 'side S': the statements come in the order");
    assert_read_fails("tubes_first.txt", HEAD "tubes 0\n", 3, "'tubes' before 'cells N'");
    assert_read_fails("side_twice.txt", HEAD "side 100\n", 3,
                      "'side' given twice (first at line 2)");
    assert_read_fails("header_twice.txt", HEAD "cells 1\n" CELL "tubes 0\nangio-state 1\n", 6,
                      "'angio-state' given twice (first at line 1)");
    assert_read_fails("unknown.txt", "angio-state 1\nsides 100\n", 2,
                      "unknown keyword 'sides'; the keywords are");
    assert_read_fails("unknown_end.txt", HEAD "cells 1\n" CELL "tubes 0\nvessels 2\n", 6,
                      "unknown keyword 'vessels'");
    assert_read_fails("no_side.txt", "angio-state 1\n", 0, "no 'side S' line after line 1");
    assert_read_fails("no_cells.txt", HEAD, 0, "no 'cells N' line");
    assert_read_fails("no_tubes.txt", HEAD "cells 1\n" CELL, 0,
                      "no 'tubes M' line after line 4; a saved state gives");
    assert_read_fails("side_bare.txt", "angio-state 1\nside\n", 2, "write 'side S'");
}

static void test_counts(void **state)
{
    (void)state;
    assert_read_fails("few_cells.txt", HEAD "cells 3\n" CELL "\n" CELL "tubes 0\n", 7,
                      "'tubes' after 2 of the 3 cell lines announced at line 3; add the "
                      "missing lines or lower the count to the lines given");
    assert_read_fails("few_cells_end.txt", HEAD "cells 3\n" CELL, 3,
                      "'cells 3' announces 3 cell lines but the file ends after 1");
    assert_read_fails("few_tubes_end.txt", HEAD "cells 1\n" CELL "tubes 2\n" TUBE "# end\n", 5,
                      "'tubes 2' announces 2 tube lines but the file ends after 1; add the "
                      "missing lines or lower the count");
    assert_read_fails("many_cells.txt", HEAD "cells 1\n" CELL CELL "tubes 0\n", 5,
                      "a cell line beyond the 1 announced at line 3");
    assert_read_fails("many_tubes.txt", HEAD "cells 1\n" CELL "tubes 1\n" TUBE "\n" TUBE, 8,
                      "a tube line beyond the 1 announced at line 5");
    assert_read_fails("many_zero.txt", HEAD "cells 1\n" CELL "tubes 0\n" TUBE, 6,
                      "a tube line beyond the 0 announced at line 5");
    assert_read_fails("cells0.txt", HEAD "cells 0\ntubes 0\n", 3,
                      "N '0' is not a whole number in 1..67108864");
    assert_read_fails("cells_neg.txt", HEAD "cells -1\n", 3, "N '-1'");
    assert_read_fails("cells_big.txt", HEAD "cells 67108865\n", 3, "N '67108865'");
    assert_read_fails("cells_huge.txt", HEAD "cells 99999999999999999999999\n", 3, "N '9999");
    assert_read_fails("cells_real.txt", HEAD "cells 1.5\n", 3, "N '1.5'");
    assert_read_fails("tubes_big.txt", HEAD "cells 1\n" CELL "tubes 4194305\n", 5,
                      "M '4194305' is not a whole number in 0..4194304");
    assert_read_fails("tubes_neg.txt", HEAD "cells 1\n" CELL "tubes -1\n", 5, "M '-1'");
}

/* Found by fuzzing (tests/fuzz/corpus/angio_state/regress-oom-cells-announced.txt): a file that
 * announced 2^26 cells took their 4 GiB at the count, before a single cell line. The arrays now
 * grow with the lines given: under an address-space limit of 256 MiB above what the process
 * has, the largest counts are refused at the end of a short file as before. (Not under
 * AddressSanitizer, whose shadow memory needs the address space.) */
static void test_counts_grow_with_lines(void **state)
{
    (void)state;
    const char *text = HEAD "cells 67108864\n" CELL CELL;
#if !defined(__SANITIZE_ADDRESS__)
    struct rlimit old, cap;
    unsigned long pages = 0;
    FILE *statm = fopen("/proc/self/statm", "r");
    int limited = statm && fscanf(statm, "%lu", &pages) == 1 && getrlimit(RLIMIT_AS, &old) == 0;
    if (statm)
        fclose(statm);
    if (limited) {
        cap = old;
        cap.rlim_cur = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)256 << 20);
        limited = setrlimit(RLIMIT_AS, &cap) == 0;
    }
#endif
    assert_read_fails("announced.txt", text, 3,
                      "'cells 67108864' announces 67108864 cell lines but the file ends after 2");
    assert_read_fails("announced_tubes.txt", HEAD "cells 1\n" CELL "tubes 4194304\n" TUBE, 5,
                      "'tubes 4194304' announces 4194304 tube lines but the file ends after 1");
#if !defined(__SANITIZE_ADDRESS__)
    if (limited)
        setrlimit(RLIMIT_AS, &old);
#endif
    /* 4097 cells: the array grows past its first 4096 */
    size_t n = 4097, len = strlen(HEAD) + 32 + n * strlen(CELL) + 16;
    char *big = malloc(len), *p = big;
    assert_non_null(big);
    p += sprintf(p, HEAD "cells %zu\n", n);
    for (size_t i = 0; i < n; i++)
        p += sprintf(p, "%s", CELL);
    sprintf(p, "tubes 0\n");
    ag_model m;
    read_ok(write_case("grown.txt", big), &m);
    assert_int_equal(m.ncells, (int)n);
    assert_int_equal(m.cells[n - 1].id, (int)n - 1);
    assert_true(m.cells[n - 1].f[0] == 0 && m.cells[n - 1].p == 0); /* zero past the lines */
    free_model(&m);
    free(big);
}

/* Found by fuzzing (tests/fuzz/corpus/angio_state/regress-side-boxes-int.txt): a side of 1.7e14
 * um made 1.4e13 boxes a side, converted to an int before the check against 1024 (undefined
 * behaviour, caught by UBSan). */
static void test_side_too_many_boxes(void **state)
{
    (void)state;
    assert_read_fails("side_huge.txt", "angio-state 1\r\nside 167108867108864\r\ncells 1\r\n"
                      "50 50 50 5 1 0 new 0 0\r\ntubes 0\r\n", 0,
                      "a domain of side 1.67109e+14 um holds 1392573");
    assert_non_null(strstr(sb_error(), " boxes a side (at most 1024): use fewer cells or a "
                                       "higher density"));
}

static void test_fields(void **state)
{
    (void)state;
    assert_read_fails("cell8.txt", HEAD "cells 1\n50 50 50 5 1 0 new 0\n", 4,
                      "a cell line needs 9 fields, 'x y z r c a state age t_low'; this one has "
                      "8");
    assert_read_fails("cell12.txt", HEAD "cells 1\n50 50 50 5 1 0 new 0 0 1 2 3\n", 4,
                      "this one has 12");
    assert_read_fails("tube8.txt", HEAD "cells 1\n" CELL "tubes 1\n0 0 0 1 1 1 2 2\n", 6,
                      "a tube line needs 9 fields, 'x0 y0 z0 x1 y1 z1 r0 r1 cb'; this one has 8");
    assert_read_fails("word.txt", HEAD "cells 1\n50 abc 50 5 1 0 new 0 0\n", 4,
                      "y 'abc' is not a finite number in [0, 100); write it in micrometres");
    assert_read_fails("suffix.txt", HEAD "cells 1\n50 50 50 5x 1 0 new 0 0\n", 4,
                      "r '5x' is not a finite number > 0");
    assert_read_fails("nan.txt", HEAD "cells 1\n50 50 50 5 nan 0 new 0 0\n", 4,
                      "c 'nan' is not a finite number >= 0");
    assert_read_fails("inf.txt", HEAD "cells 1\n50 50 50 5 1 inf new 0 0\n", 4,
                      "a 'inf' is not a finite number");
    assert_read_fails("overflow.txt", HEAD "cells 1\n50 50 50 5 1 0 new 1e39 0\n", 4,
                      "age '1e39' is not a finite number");
    assert_read_fails("hex.txt", HEAD "cells 1\n0x10 50 50 5 1 0 new 0 0\n", 4, "x '0x10'");
    assert_read_fails("plus.txt", HEAD "cells 1\n50 50 +50 5 1 0 new 0 0\n", 4, "z '+50'");
    assert_read_fails("side0.txt", "angio-state 1\nside 0\n", 2,
                      "side '0' is not a finite number > 0; write it in micrometres");
    assert_read_fails("side_neg.txt", "angio-state 1\nside -4\n", 2, "side '-4'");
    assert_read_fails("side_inf.txt", "angio-state 1\nside inf\n", 2, "side 'inf'");
}

static void test_values(void **state)
{
    (void)state;
    assert_read_fails("r0.txt", HEAD "cells 1\n50 50 50 0 1 0 new 0 0\n", 4,
                      "r '0' is not a finite number > 0");
    assert_read_fails("r_neg.txt", HEAD "cells 1\n50 50 50 -2 1 0 new 0 0\n", 4, "r '-2'");
    assert_read_fails("x_neg.txt", HEAD "cells 2\n" CELL "-1 50 50 5 1 0 new 0 0\n", 5,
                      "x '-1' is not a finite number in [0, 100); write it in micrometres, "
                      "inside the domain [0, side)^3");
    assert_read_fails("x_side.txt", HEAD "cells 1\n50 100 50 5 1 0 new 0 0\n", 4,
                      "y '100' is not a finite number in [0, 100)");
    assert_read_fails("c_neg.txt", HEAD "cells 1\n50 50 50 5 -0.1 0 new 0 0\n", 4,
                      "c '-0.1' is not a finite number >= 0; write it in units of the blood's "
                      "oxygen level");
    assert_read_fails("a_neg.txt", HEAD "cells 1\n50 50 50 5 1 -1 new 0 0\n", 4, "a '-1'");
    assert_read_fails("age_neg.txt", HEAD "cells 1\n50 50 50 5 1 0 new -1 0\n", 4,
                      "age '-1' is not a finite number >= 0; write it in minutes");
    assert_read_fails("tlow_neg.txt", HEAD "cells 1\n50 50 50 5 1 0 new 0 -1\n", 4,
                      "t_low '-1'");
    assert_read_fails("dead.txt", HEAD "cells 2\n" CELL "50 50 50 5 0 0 dead 9 9\n", 5,
                      "state 'dead': a saved state holds no dead cells");
    assert_read_fails("state.txt", HEAD "cells 1\n50 50 50 5 1 0 alive 0 0\n", 4,
                      "state 'alive' is not a state; write new, mature or hypoxic");
    assert_read_fails("state_case.txt", HEAD "cells 1\n50 50 50 5 1 0 New 0 0\n", 4,
                      "state 'New'");
    assert_read_fails("tube_r0.txt", HEAD "cells 1\n" CELL "tubes 1\n0 0 0 9 9 9 0 2 1\n", 6,
                      "r0 '0' is not a finite number > 0");
    assert_read_fails("tube_r1.txt", HEAD "cells 1\n" CELL "tubes 1\n0 0 0 9 9 9 2 -2 1\n", 6,
                      "r1 '-2'");
    assert_read_fails("tube_out.txt", HEAD "cells 1\n" CELL "tubes 1\n0 0 0 9 100.5 9 2 2 1\n",
                      6, "y1 '100.5' is not a finite number in [0, 100]; write it in "
                         "micrometres, in the closed cube");
    assert_read_fails("tube_cb.txt", HEAD "cells 1\n" CELL "tubes 1\n0 0 0 9 9 9 2 2 -1\n", 6,
                      "cb '-1' is not a finite number >= 0");
}

/* The writer refuses what the reader would refuse, and a failed write leaves no file. */
static void test_write_refuses(void **state)
{
    (void)state;
    ag_cell cell = {.state = AG_DEAD, .x = {1, 1, 1}, .r = 1};
    ag_model m;
    model_init(&m);
    m.side = 10;
    m.ncells = 1;
    m.cells = &cell;
    char path[1024];
    snprintf(path, sizeof path, "%s/dead_out.txt", tmpdir);
    sb_error_clear();
    assert_int_equal(ag_state_write(&m, path), -1);
    assert_error_names(path, 0, "cannot save cell 0 in state 3");
    assert_null(fopen(path, "r"));

    m.ncells = 0;
    assert_int_equal(ag_state_write(&m, path), -1);
    assert_error_names(path, 0, "cannot save 0 cells and 0 tubes");
    assert_null(fopen(path, "r"));

    /* a directory that cannot be made: its name is a regular file */
    cell.state = AG_NEW;
    m.ncells = 1;
    write_case("plain.txt", "not a directory\n");
    snprintf(path, sizeof path, "%s/plain.txt/out.txt", tmpdir);
    assert_int_equal(ag_state_write(&m, path), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_documented_example),
        cmocka_unit_test(test_round_trip_example),
        cmocka_unit_test(test_round_trip_every_float),
        cmocka_unit_test(test_comments_blank_lines_crlf),
        cmocka_unit_test(test_no_tubes),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_header),
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_counts_grow_with_lines),
        cmocka_unit_test(test_side_too_many_boxes),
        cmocka_unit_test(test_fields),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_write_refuses),
    };
    return cmocka_run_group_tests_name("angio_state", tests, make_tmpdir, remove_tmpdir) ? 1 : 0;
}

/* The motility saved state (variants/motility/state.c, format in
 * variants/motility/STATE-FORMAT.md): the documented example, a built model written and read back
 * bit for bit, a run from the file equal to the run from the model it was written from, and every
 * error a file can hold, each naming file:line. Each case writes its own small file into a
 * temporary directory. */
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

#define PARSE_FIXTURE_DIR "/tmp/test_motility_state_XXXXXX"
#include "parse_fixture.h"

#include "motility_fixture.h"

/* Lines 1 to 3 of most cases: an 8^2 x 4^2 grid, the smallest the parameters allow. */
#define HEAD "motility-state 1\nouter 8\ninner 4\n"
#define N_O 8
#define N_I 4
#define CELLS (N_O * N_O)

/* A model as the caller hands it to mm_state_read: laws and run settings set, none of which the
 * file may change, and no grid yet. */
static void model_init(mm_model *m)
{
    memset(m, 0, sizeof *m);
    m->laws.ell = 4;
    m->laws.r_c = 1;
    m->laws.kappa = 2;
    m->layers = 3;
    m->steps = 7;
    m->seed = 11;
}

static void assert_caller_fields_kept(const mm_model *m)
{
    assert_true(m->laws.ell == 4 && m->laws.r_c == 1 && m->laws.kappa == 2);
    assert_true(m->layers == 3 && m->steps == 7 && m->seed == 11);
}

static void read_ok(const char *path, mm_model *m)
{
    model_init(m);
    sb_error_clear();
    int rc = mm_state_read(m, path);
    if (rc != 0)
        print_error("%s\n", sb_error());
    assert_int_equal(rc, 0);
    assert_caller_fields_kept(m);
}

/* A failed read returns -1 and leaves no grid, no Psi and no M_tot. */
static void assert_read_fails(const char *name, const char *text, int line, const char *what)
{
    const char *path = write_case(name, text);
    mm_model m;
    model_init(&m);
    sb_error_clear();
    assert_int_equal(mm_state_read(&m, path), -1);
    assert_int_equal(m.n_outer, 0);
    assert_int_equal(m.n_inner, 0);
    assert_null(m.cos_theta);
    assert_null(m.line_first);
    assert_null(m.kappa_layer);
    assert_null(m.psi0);
    assert_null(m.m_tot);
    assert_caller_fields_kept(&m);
    assert_error_names(path, line, what);
}

/* HEAD, the lines `before`, a line for every cell of the 8^2 x 4^2 grid in storage order but
 * cell `skip` (-1: none), then the lines `after`. Cell c's line is line 4 + c when `before` and
 * `skip` leave it there. Valid until the next call. */
static const char *state_text(const char *before, int skip, const char *after)
{
    static char text[8192];
    size_t len = (size_t)snprintf(text, sizeof text, HEAD "%s", before);
    for (int c = 0; c < CELLS; c++)
        if (c != skip)
            len += (size_t)snprintf(text + len, sizeof text - len, "%d %d 1 0.25 0 0.5 0\n",
                                    c % N_O, c / N_O);
    snprintf(text + len, sizeof text - len, "%s", after);
    return text;
}

/* Two models hold the same grid, Psi and M_tot, bit for bit. */
static void assert_same_state(const mm_model *a, const mm_model *b)
{
    assert_int_equal(a->n_outer, b->n_outer);
    assert_int_equal(a->n_inner, b->n_inner);
    size_t cells = (size_t)a->n_outer * a->n_outer;
    assert_memory_equal(a->m_tot, b->m_tot, cells * sizeof *a->m_tot);
    assert_memory_equal(a->psi0, b->psi0, cells * a->n_inner * sizeof *a->psi0);
}

/* ---- good files ---- */

/* The example of STATE-FORMAT.md, field by field, and the grid set for the caller's laws. */
static void test_documented_example(void **state)
{
    (void)state;
    FILE *f = fopen("variants/motility/STATE-FORMAT.md", "r");
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

    mm_model m;
    read_ok(write_case("example.txt", begin), &m);
    assert_string_equal(m.scenario, "file example.txt, 8^2 x 4^2");
    assert_int_equal(m.n_outer, 8);
    assert_int_equal(m.n_inner, 4);
    /* mm_model_set_grid ran with the caller's laws */
    assert_int_equal(m.half, 3);
    assert_int_equal(m.window, 49);
    assert_true(m.ds == 1 && m.s_mid[0] == -1.5);
    assert_true(m.kappa_layer[0] == 2 && m.kappa_layer[2] == 2.0 / 9);
    for (int c = 0; c < CELLS; c++) {
        assert_true(m.m_tot[c] == 1);
        for (int k = 0; k < N_I; k++)
            assert_true(m.psi0[c * N_I + k] == (c < N_O && k == 0 ? 0.5 : 0));
    }
    mm_model_free(&m);
}

static void test_comments_blank_lines_crlf_any_order(void **state)
{
    (void)state;
    static char text[8192];
    size_t len = (size_t)snprintf(text, sizeof text,
                                  "# a saved state\r\n\r\n"
                                  "motility-state 1   # version\r\n"
                                  "\touter\t8\r\n"
                                  "inner 4# no blank before the comment\r\n   \r\n");
    for (int c = CELLS - 1; c >= 0; c--) /* the last cell first */
        len += (size_t)snprintf(text + len, sizeof text - len, "  %d\t%d %d 0 1.5e-1 %d 0%s",
                                c % N_O, c / N_O, c, c, c ? "\r\n# between\r\n\r\n" : "");
    /* the last line has no line end */
    mm_model m;
    read_ok(write_case("crlf.txt", text), &m);
    for (int c = 0; c < CELLS; c++) {
        assert_true(m.m_tot[c] == c);
        assert_true(m.psi0[c * N_I] == 0 && m.psi0[c * N_I + 1] == 0.15);
        assert_true(m.psi0[c * N_I + 2] == c && m.psi0[c * N_I + 3] == 0);
    }
    mm_model_free(&m);
}

/* A built rings model, given awkward M_tot and Psi values, written and read back: the same grid,
 * M_tot and Psi bit for bit (%.17g suffices for every double, subnormals included), and the same
 * tables from the same laws. Writing again replaces the file. */
static void test_round_trip_rings(void **state)
{
    (void)state;
    mm_model *built = motility_load(motility_params("outer=16", "inner=8", "ring_radius=4", NULL));
    built->m_tot[0] = 0;
    built->m_tot[1] = 0.1;
    built->m_tot[2] = 4.9e-324;
    built->m_tot[3] = 1.7976931348623157e308;
    built->m_tot[4] = nextafter(1, 2);
    built->psi0[5] = 1.0 / 3;
    built->psi0[6] = 2.2250738585072014e-308;
    char path[1024];
    snprintf(path, sizeof path, "%s/rings.txt", tmpdir);
    assert_int_equal(mm_state_write(built, path), 0);
    assert_int_equal(mm_state_write(built, path), 0);

    mm_model back;
    model_init(&back);
    back.laws = built->laws;
    back.layers = built->layers;
    sb_error_clear();
    if (mm_state_read(&back, path) != 0)
        fail_msg("%s", sb_error());
    assert_same_state(built, &back);
    assert_string_equal(back.scenario, "file rings.txt, 16^2 x 8^2");
    assert_int_equal(back.window, built->window);
    assert_memory_equal(back.line_first, built->line_first,
                        (size_t)built->window * built->n_inner * sizeof *built->line_first);
    assert_memory_equal(back.line_end, built->line_end,
                        (size_t)built->window * built->n_inner * sizeof *built->line_end);
    mm_model_free(&back);
    motility_free(built, NULL);
}

/* Two runs' outputs, bit for bit. */
static void assert_same_output(const mm_output *a, const mm_output *b)
{
    assert_true(a->t == b->t);
    assert_true(a->inner_steps == b->inner_steps);
    assert_int_equal(a->bound, b->bound);
    assert_memory_equal(a->m_b, b->m_b, a->bound * sizeof *a->m_b);
    assert_memory_equal(a->coarse, b->coarse, a->cells * sizeof *a->coarse);
    assert_memory_equal(a->m_f, b->m_f, a->cells * sizeof *a->m_f);
    assert_memory_equal(a->force, b->force, 2 * a->cells * sizeof *a->force);
    assert_memory_equal(a->psi, b->psi, a->psi_size * sizeof *a->psi);
    assert_memory_equal(a->u, b->u, 2 * a->cells * sizeof *a->u);
}

/* Through the harness as a user runs it: a rings model saved, then init=file on that file gives
 * cpu-reference the same output, bit for bit; outer and inner given as well and agreeing are
 * accepted. */
static void test_run_from_file(void **state)
{
    (void)state;
    char path[1024], state_param[1100];
    snprintf(path, sizeof path, "%s/run.txt", tmpdir);
    snprintf(state_param, sizeof state_param, "state=%s", path);

    const sb_params *p = motility_params("outer=16", "inner=8", "steps=2", "ring_radius=4", NULL);
    mm_model *built = motility_load(p);
    assert_int_equal(mm_state_write(built, path), 0);
    mm_output *ref = motility_run("cpu-reference", built, p);

    p = motility_params("init=file", state_param, "steps=2", NULL);
    mm_model *from_file = motility_load(p);
    assert_string_equal(from_file->scenario, "file run.txt, 16^2 x 8^2");
    mm_output *got = motility_run("cpu-reference", from_file, p);
    printf("%s: t = %.17g after %lld inner steps, the same bits as %s\n", from_file->scenario,
           got->t, got->inner_steps, built->scenario);
    assert_true(got->inner_steps > 0);
    assert_same_output(ref, got);
    motility_free(from_file, got);

    p = motility_params("init=file", state_param, "outer=16", "inner=8", NULL);
    motility_free(motility_load(p), NULL);
    motility_free(built, ref);
}

/* ---- errors ---- */

static void test_missing_file(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/absent.txt", tmpdir);
    mm_model m;
    model_init(&m);
    assert_int_equal(mm_state_read(&m, path), -1);
    assert_null(m.psi0);
    assert_error_names(path, 0, "cannot open: No such file or directory");
}

static void test_header(void **state)
{
    (void)state;
    assert_read_fails("empty.txt", "", 0, "no 'motility-state 1' line");
    assert_read_fails("comments.txt", "# nothing\n\n", 0, "no 'motility-state 1' line");
    assert_read_fails("no_header.txt", "# a state\nouter 8\n", 2,
                      "not a motility state file: it must begin with 'motility-state 1'");
    assert_read_fails("numbers.txt", "0 0 1 0 0 0 0\n", 1, "not a motility state file");
    assert_read_fails("angio.txt", "angio-state 1\n", 1, "not a motility state file");
    assert_read_fails("version.txt", "motility-state 2\n", 1,
                      "version '2' is not known; this build reads 'motility-state 1'");
    assert_read_fails("header_bare.txt", "motility-state\n", 1,
                      "wrong number of fields (0 after 'motility-state'); write "
                      "'motility-state 1'");
    assert_read_fails("header_long.txt", "motility-state 1 2\n", 1, "wrong number of fields");

    static const char nul[] = "motility-state 1\nouter 8\0 00\n";
    const char *path = write_bytes("nul.txt", nul, sizeof nul - 1);
    mm_model m;
    model_init(&m);
    assert_int_equal(mm_state_read(&m, path), -1);
    assert_null(m.psi0);
    assert_error_names(path, 2, "the line contains a NUL byte");
}

static void test_order(void **state)
{
    (void)state;
    assert_read_fails("inner_first.txt", "motility-state 1\ninner 4\n", 2,
                      "'inner' before 'outer N_o': the statements come in the order");
    assert_read_fails("outer_twice.txt", "motility-state 1\nouter 8\nouter 8\n", 3,
                      "'outer' given twice (first at line 2); keep one");
    assert_read_fails("cell_early.txt", "motility-state 1\nouter 8\n0 0 1 0 0 0 0\n", 3,
                      "a cell line before 'inner N_i': the grid comes first");
    assert_read_fails("unknown.txt", "motility-state 1\nouters 8\n", 2,
                      "unknown keyword 'outers'; the keywords are motility-state, outer and "
                      "inner");
    assert_read_fails("no_outer.txt", "motility-state 1\n", 0,
                      "no 'outer N_o' line after line 1; a saved state gives");
    assert_read_fails("no_inner.txt", "motility-state 1\nouter 8\n# end\n", 0,
                      "no 'inner N_i' line after line 3");
    assert_read_fails("outer_bare.txt", "motility-state 1\nouter\n", 2, "write 'outer N_o'");
}

/* N_o and N_i within the parameters' ranges, and a grid that holds the laws' window. */
static void test_grid(void **state)
{
    (void)state;
    assert_read_fails("outer7.txt", "motility-state 1\nouter 7\n", 2,
                      "N_o '7' is not a whole number in 8..512 (the outer parameter's range); "
                      "write one in that range, in digits");
    assert_read_fails("outer513.txt", "motility-state 1\nouter 513\n", 2, "N_o '513'");
    assert_read_fails("outer_neg.txt", "motility-state 1\nouter -8\n", 2, "N_o '-8'");
    assert_read_fails("outer_real.txt", "motility-state 1\nouter 8.0\n", 2, "N_o '8.0'");
    assert_read_fails("outer_exp.txt", "motility-state 1\nouter 1e1\n", 2, "N_o '1e1'");
    assert_read_fails("outer_huge.txt", "motility-state 1\nouter 99999999999999999999\n", 2,
                      "N_o '9999");
    assert_read_fails("inner3.txt", "motility-state 1\nouter 8\ninner 3\n", 3,
                      "N_i '3' is not a whole number in 4..64 (the inner parameter's range)");
    assert_read_fails("inner65.txt", "motility-state 1\nouter 8\ninner 65\n", 3, "N_i '65'");

    /* ell = 8, r_c = 2: W = 6, a window of 13 cells, wider than the grid */
    const char *path = write_case("narrow.txt", state_text("", -1, ""));
    mm_model m;
    model_init(&m);
    m.laws.ell = 8;
    m.laws.r_c = 2;
    sb_error_clear();
    assert_int_equal(mm_state_read(&m, path), -1);
    assert_null(m.cos_theta);
    assert_null(m.psi0);
    assert_error_names(path, 2,
                       "outer=8 is narrower than a tail's window of 13 cells (ell=8, r_c=2): "
                       "raise outer to at least 13 or lower ell or r_c");
}

/* Every cell exactly once; the file's lines and nothing after them. */
static void test_cells(void **state)
{
    (void)state;
    assert_read_fails("no_cells.txt", HEAD, 2,
                      "'outer 8' makes 64 cells but the file gives 0 cell lines; cell (0, 0) has "
                      "none: give every outer cell one line");
    assert_read_fails("missing.txt", state_text("", 8 * 2 + 3, ""), 2,
                      "'outer 8' makes 64 cells but the file gives 63 cell lines; cell (3, 2) "
                      "has none");
    assert_read_fails("twice.txt", state_text("", -1, "3 2 7 0 0 0 0\n"), 4 + CELLS,
                      "cell (3, 2) given twice (first at line 23); keep one");
    assert_read_fails("twice_early.txt", state_text("5 1 1 0 0 0 0\n", -1, ""), 4 + 1 + 13,
                      "cell (5, 1) given twice (first at line 4)");
    assert_read_fails("trailing_word.txt", state_text("", -1, "end\n"), 4 + CELLS,
                      "unknown keyword 'end'");
    assert_read_fails("trailing_inner.txt", state_text("", -1, "inner 4\n"), 4 + CELLS,
                      "'inner' given twice (first at line 3)");
    assert_read_fails("header_again.txt", state_text("", -1, "motility-state 1\n"), 4 + CELLS,
                      "'motility-state' given twice (first at line 1)");
    assert_read_fails("i_big.txt", state_text("8 0 1 0 0 0 0\n", -1, ""), 4,
                      "i '8' is not a whole number in 0..7; write one in that range, in digits");
    assert_read_fails("j_neg.txt", state_text("0 -1 1 0 0 0 0\n", -1, ""), 4, "j '-1'");
    assert_read_fails("i_real.txt", state_text("0.5 0 1 0 0 0 0\n", -1, ""), 4, "i '0.5'");
}

static void test_fields(void **state)
{
    (void)state;
    assert_read_fails("short.txt", state_text("0 0 1 0 0 0\n", 0, ""), 4,
                      "a cell line needs 3 + N_i = 7 fields, 'i j m_tot psi_0 ... psi_3'; this "
                      "one has 6");
    assert_read_fails("long.txt", state_text("0 0 1 0 0 0 0 9\n", 0, ""), 4, "this one has 8");
    /* more fields than the most a line may have (3 + 64) are counted too */
    char very_long[256] = "0 0 1";
    for (int k = 0; k < 74; k++)
        strcat(very_long, " 0");
    strcat(very_long, "\n");
    assert_read_fails("very_long.txt", state_text(very_long, 0, ""), 4, "this one has 77");
    assert_read_fails("m_neg.txt", state_text("0 0 -1 0 0 0 0\n", 0, ""), 4,
                      "m_tot '-1' is not a finite number >= 0; write the motors of the tail at "
                      "cell (0, 0)");
    assert_read_fails("m_nan.txt", state_text("0 0 nan 0 0 0 0\n", 0, ""), 4, "m_tot 'nan'");
    assert_read_fails("m_inf.txt", state_text("0 0 inf 0 0 0 0\n", 0, ""), 4, "m_tot 'inf'");
    assert_read_fails("m_over.txt", state_text("0 0 1e309 0 0 0 0\n", 0, ""), 4,
                      "m_tot '1e309'");
    assert_read_fails("psi_neg.txt", state_text("1 1 1 0 0 -0.5 0\n", 9, ""), 4,
                      "psi_2 '-0.5' is not a finite number >= 0; write cell (1, 1)'s filaments "
                      "per unit area and radian at theta_2 = 2 pi 2 / 4");
    assert_read_fails("psi_nan.txt", state_text("0 0 1 nan 0 0 0\n", 0, ""), 4, "psi_0 'nan'");
    assert_read_fails("psi_inf.txt", state_text("0 0 1 0 0 0 -inf\n", 0, ""), 4,
                      "psi_3 '-inf'");
    assert_read_fails("psi_suffix.txt", state_text("0 0 1 0 0.5x 0 0\n", 0, ""), 4,
                      "psi_1 '0.5x'");
    assert_read_fails("psi_dots.txt", state_text("0 0 1 0 1.5.2 0 0\n", 0, ""), 4,
                      "psi_1 '1.5.2'");
    assert_read_fails("psi_hex.txt", state_text("0 0 1 0x1p-2 0 0 0\n", 0, ""), 4,
                      "psi_0 '0x1p-2'");
    assert_read_fails("psi_plus.txt", state_text("0 0 1 0 0 +1 0\n", 0, ""), 4, "psi_2 '+1'");
}

/* The writer refuses what the reader would refuse, and a failed write leaves no file. */
static void test_write_refuses(void **state)
{
    (void)state;
    double psi[CELLS * N_I] = {0}, m_tot[CELLS] = {0};
    mm_model m;
    model_init(&m);
    m.n_outer = N_O;
    m.n_inner = N_I;
    m.psi0 = psi;
    m.m_tot = m_tot;
    char path[1024];
    snprintf(path, sizeof path, "%s/refused.txt", tmpdir);

    psi[9 * N_I + 2] = -1;
    sb_error_clear();
    assert_int_equal(mm_state_write(&m, path), -1);
    assert_error_names(path, 0, "cannot save Psi -1 at cell (1, 1), theta_2");
    assert_null(fopen(path, "r"));
    psi[9 * N_I + 2] = 0;

    m_tot[10] = NAN;
    assert_int_equal(mm_state_write(&m, path), -1);
    assert_error_names(path, 0, "cannot save M_tot nan at cell (2, 1)");
    assert_null(fopen(path, "r"));
    m_tot[10] = 0;

    m.n_outer = 4;
    assert_int_equal(mm_state_write(&m, path), -1);
    assert_error_names(path, 0, "cannot save a 4^2 x 4^2 grid; a saved state holds N_o in 8..512 "
                                "and N_i in 4..64");
    assert_null(fopen(path, "r"));
    m.n_outer = N_O;

    /* a directory that cannot be made: its name is a regular file */
    write_case("plain.txt", "not a directory\n");
    snprintf(path, sizeof path, "%s/plain.txt/out.txt", tmpdir);
    assert_int_equal(mm_state_write(&m, path), -1);
}

/* init=file as the workload loads it: the state parameter is needed, and an outer or inner
 * given beside the file must agree with it. */
static void test_load_errors(void **state)
{
    (void)state;
    char state_param[1100];
    snprintf(state_param, sizeof state_param, "state=%s",
             write_case("grid.txt", state_text("", -1, "")));
    const char *cases[][3] = {
        {"init=file", NULL, "init=file needs --param state=FILE (format: "
                            "variants/motility/STATE-FORMAT.md)"},
        {state_param, "outer=16", "outer=16 but the state file "},
        {state_param, "inner=16", "inner=16 but the state file "},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        void *m;
        sb_error_clear();
        const sb_params *p = cases[i][1] ? motility_params("init=file", cases[i][0], cases[i][1],
                                                           NULL)
                                         : motility_params(cases[i][0], NULL);
        assert_int_equal(sb_workload_motility.load(p, &m), -1);
        printf("%s\n", sb_error());
        assert_non_null(strstr(sb_error(), cases[i][2]));
    }
    assert_non_null(strstr(sb_error(), "grid.txt gives 'inner 4'; drop the parameter (the file "
                                       "sets the grid) or give inner=4"));
    /* the reader's own errors come through as they are */
    void *m;
    sb_error_clear();
    assert_int_equal(sb_workload_motility.load(
                         motility_params("init=file", "state=/nonexistent/s.txt", NULL), &m),
                     -1);
    assert_string_equal(sb_error(), "/nonexistent/s.txt: cannot open: No such file or directory");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_documented_example),
        cmocka_unit_test(test_comments_blank_lines_crlf_any_order),
        cmocka_unit_test(test_round_trip_rings),
        cmocka_unit_test(test_run_from_file),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_header),
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_grid),
        cmocka_unit_test(test_cells),
        cmocka_unit_test(test_fields),
        cmocka_unit_test(test_write_refuses),
        cmocka_unit_test(test_load_errors),
    };
    return cmocka_run_group_tests_name("motility_state", tests, make_tmpdir, remove_tmpdir) ? 1
                                                                                             : 0;
}

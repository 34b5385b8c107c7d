/* procell input files: the histogram and types parsers (variants/procell/parse.c) and the
 * published presets. Each case writes its own synthetic file into a temporary directory; one
 * group reads the real histograms in $SB_SHARED_DATA when they are there. */
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
#include "variants/procell/model.h"

#define PARSE_FIXTURE_DIR "/tmp/test_procell_parse_XXXXXX"
#include "parse_fixture.h"


/* Parses a histogram that must be accepted; returns its row count. */
static int parse_histogram_ok(const char *path, pc_histogram_row **rows)
{
    int nrows = -1;
    sb_error_clear();
    int rc = pc_parse_histogram(path, rows, &nrows);
    if (rc != 0)
        print_error("%s\n", sb_error());
    assert_int_equal(rc, 0);
    return nrows;
}

static void assert_histogram_fails(const char *name, const char *text, int line,
                                   const char *what)
{
    const char *path = write_case(name, text);
    pc_histogram_row *rows = NULL;
    int nrows = -7;
    sb_error_clear();
    assert_int_equal(pc_parse_histogram(path, &rows, &nrows), -1);
    assert_null(rows);
    assert_int_equal(nrows, -7);
    assert_error_names(path, line, what);
}

static void parse_types_ok(const char *path, pc_rules *rules)
{
    sb_error_clear();
    int rc = pc_parse_types(path, rules);
    if (rc != 0)
        print_error("%s\n", sb_error());
    assert_int_equal(rc, 0);
}

/* A failed parse must also leave the rules as they were. */
static void assert_types_fail(const char *name, const char *text, int line, const char *what)
{
    const char *path = write_case(name, text);
    pc_rules rules = {.ntypes = -7};
    sb_error_clear();
    assert_int_equal(pc_parse_types(path, &rules), -1);
    assert_int_equal(rules.ntypes, -7);
    assert_error_names(path, line, what);
}

/* The types in `rules` are exactly these, with cum the running sum of the proportions. */
static void assert_types(const pc_rules *rules, int ntypes, const double *proportion,
                         const double *mean, const double *sd, const int *quiescent)
{
    assert_int_equal(rules->ntypes, ntypes);
    double cum = 0;
    for (int j = 0; j < ntypes; j++) {
        cum += proportion[j];
        assert_true(fabs(rules->cum[j] - cum) < 1e-12);
        assert_true(rules->mean[j] == mean[j]);
        assert_true(rules->sd[j] == sd[j]);
        assert_int_equal(rules->quiescent[j], quiescent[j]);
    }
    assert_true(fabs(rules->cum[ntypes - 1] - 1.0) < 1e-12);
}

/* ---- histogram: what real exports contain ---- */

static void test_histogram_crlf(void **state)
{
    (void)state;
    pc_histogram_row *rows;
    int n = parse_histogram_ok(write_case("crlf.txt", "1.5\t0\r\n2.25\t3\r\n\r\n4.0 7\r\n"), &rows);
    assert_int_equal(n, 3);
    assert_true(rows[0].phi == 1.5 && rows[0].count == 0);
    assert_true(rows[1].phi == 2.25 && rows[1].count == 3);
    assert_true(rows[2].phi == 4.0 && rows[2].count == 7);
    free(rows);
}

static void test_histogram_comments_and_blank_lines(void **state)
{
    (void)state;
    const char *text = "# exported by a cytometer\n"
                       "\n"
                       "   \n"
                       "1.0 2 # trailing comment\n"
                       "\t# indented comment\n"
                       "2.0\t3# no blank before the comment\n"
                       "#\n"
                       "\n";
    pc_histogram_row *rows;
    int n = parse_histogram_ok(write_case("comments.txt", text), &rows);
    assert_int_equal(n, 2);
    assert_true(rows[0].phi == 1.0 && rows[0].count == 2);
    assert_true(rows[1].phi == 2.0 && rows[1].count == 3);
    free(rows);
}

/* getline: no line length limit, neither in comments nor in the blanks of a data row. */
static void test_histogram_long_lines(void **state)
{
    (void)state;
    size_t pad = 100000;
    char *text = malloc(2 * pad + 64);
    assert_non_null(text);
    char *p = text;
    *p++ = '#';
    memset(p, 'c', pad);
    p += pad;
    *p++ = '\n';
    memset(p, ' ', pad);
    p += pad;
    strcpy(p, "1.0 2\n5 x\n");
    assert_histogram_fails("long.txt", text, 3, "count 'x'");
    strcpy(p, "1.0 2\n");
    pc_histogram_row *rows;
    assert_int_equal(parse_histogram_ok(write_case("long.txt", text), &rows), 1);
    assert_true(rows[0].phi == 1.0 && rows[0].count == 2);
    free(rows);
    free(text);
}

/* Zero-count rows stay (the model drops them), negative or nan fluorescence included. */
static void test_histogram_zero_counts_kept(void **state)
{
    (void)state;
    pc_histogram_row *rows;
    const char *text = "-5.5 0\n-0.25 0\nnan 0\n0 0\n1.5 4\n";
    int n = parse_histogram_ok(write_case("zeros.txt", text), &rows);
    assert_int_equal(n, 5);
    assert_true(rows[0].phi == -5.5 && rows[0].count == 0);
    assert_true(rows[1].phi == -0.25 && rows[1].count == 0);
    assert_true(isnan(rows[2].phi) && rows[2].count == 0);
    assert_true(rows[3].phi == 0.0 && rows[3].count == 0);
    assert_true(rows[4].phi == 1.5 && rows[4].count == 4);
    free(rows);
}

/* Nothing counted is the model's error to report, not the parser's. */
static void test_histogram_all_counts_zero(void **state)
{
    (void)state;
    pc_histogram_row *rows;
    assert_int_equal(parse_histogram_ok(write_case("allzero.txt", "1 0\n2 0\n"), &rows), 2);
    free(rows);
}

static void test_histogram_whole_counts(void **state)
{
    (void)state;
    pc_histogram_row *rows;
    const char *text = "1 3.0\n2 3e2\n3 0.0\n4 30E-1\n5 9007199254740992\n";
    int n = parse_histogram_ok(write_case("whole.txt", text), &rows);
    assert_int_equal(n, 5);
    assert_true(rows[0].count == 3);
    assert_true(rows[1].count == 300);
    assert_true(rows[2].count == 0);
    assert_true(rows[3].count == 3);
    assert_true(rows[4].count == UINT64_C(9007199254740992));
    free(rows);
}

/* ---- histogram: errors name file:line ---- */

static void test_histogram_no_data_rows(void **state)
{
    (void)state;
    assert_histogram_fails("only_comments.txt", "# nothing here\n\n  # nor here\n", 0,
                           "no data rows");
    assert_histogram_fails("empty.txt", "", 0, "no data rows");
}

static void test_histogram_cannot_open(void **state)
{
    (void)state;
    char path[1100];
    snprintf(path, sizeof path, "%s/missing.txt", tmpdir);
    pc_histogram_row *rows = NULL;
    int nrows = 0;
    assert_int_equal(pc_parse_histogram(path, &rows, &nrows), -1);
    assert_error_names(path, 0, "cannot open: No such file or directory");
}

static void test_histogram_negative_fluorescence_counted(void **state)
{
    (void)state;
    assert_histogram_fails("negphi.txt", "-1 0\n1 2\n-0.5 3\n", 3, "fluorescence '-0.5'");
}

static void test_histogram_nonfinite_fluorescence_counted(void **state)
{
    (void)state;
    assert_histogram_fails("nan.txt", "nan 1\n", 1, "fluorescence 'nan'");
    assert_histogram_fails("inf.txt", "1 1\ninf 2\n", 2, "fluorescence 'inf'");
    assert_histogram_fails("neginf.txt", "1 1\n\n-inf 5\n", 3, "fluorescence '-inf'");
}

static void test_histogram_fractional_count(void **state)
{
    (void)state;
    assert_histogram_fails("frac.txt", "1 2.5\n", 1, "count '2.5' is not a whole number");
    assert_histogram_fails("frac2.txt", "1 2\n2 0.5\n", 2, "count '0.5' is not a whole number");
}

static void test_histogram_negative_count(void **state)
{
    (void)state;
    assert_histogram_fails("negcount.txt", "1 2\n2 -3\n", 2, "count '-3' is negative");
}

static void test_histogram_huge_count(void **state)
{
    (void)state;
    assert_histogram_fails("huge.txt", "1 1e16\n", 1, "count '1e16' is above 2^53");
    assert_histogram_fails("infcount.txt", "1 inf\n", 1, "count 'inf' is above 2^53");
    assert_histogram_fails("nancount.txt", "1 nan\n", 1, "count 'nan' is not a number");
}

static void test_histogram_malformed_rows(void **state)
{
    (void)state;
    assert_histogram_fails("words.txt", "abc def\n", 1, "fluorescence 'abc' is not a number");
    assert_histogram_fails("trailing.txt", "# c\n\n1.0 2x\n", 3, "count '2x' is not a number");
    assert_histogram_fails("lone.txt", "1 2\n7.0\n", 2, "found 1");
    assert_histogram_fails("three.txt", "1 2\n3 4\n1 2 3\n", 3, "found 3");
    assert_histogram_fails("comma.txt", "1,5 3\n", 1, "fluorescence '1,5' is not a number");
    assert_histogram_fails("crlf_bad.txt", "1 2\r\n3 4\r\n5 x\r\n", 3, "count 'x'");
    /* a comment cuts the row: what is left is one field */
    assert_histogram_fails("cut.txt", "1.0#3 5\n", 1, "found 1");
    const char *path = write_bytes("nul.txt", "1 2\n3 4\0 junk\n", 14);
    pc_histogram_row *rows = NULL;
    int nrows;
    assert_int_equal(pc_parse_histogram(path, &rows, &nrows), -1);
    assert_error_names(path, 2, "NUL byte");
}

/* The files are plain decimal: no hex floats, no leading '+'. */
static void test_histogram_number_syntax(void **state)
{
    (void)state;
    assert_histogram_fails("hex.txt", "0x10 3\n", 1, "fluorescence '0x10' is not a number");
    assert_histogram_fails("hexcount.txt", "1 0x3\n", 1, "count '0x3' is not a number");
    assert_histogram_fails("plus.txt", "+1.0 3\n", 1, "fluorescence '+1.0' is not a number");
    assert_histogram_fails("pluscount.txt", "1 +3\n", 1, "count '+3' is not a number");
}

/* ---- types ---- */

static void test_types_parsed(void **state)
{
    (void)state;
    const char *text = "# proportion mean stddev\r\n"
                       "0.25 40 10\r\n"
                       "\n"
                       "0.75 60.5 0 # stddev 0: every timer is the mean\n";
    /* the parser fills the types and nothing else */
    pc_rules rules = {.seed = 99, .async_start = 1, .t_max = 240, .phi_min = 11};
    parse_types_ok(write_case("types.txt", text), &rules);
    assert_types(&rules, 2, (double[]){0.25, 0.75}, (double[]){40, 60.5}, (double[]){10, 0},
                 (int[]){0, 0});
    assert_true(rules.seed == 99 && rules.async_start == 1);
    assert_true(rules.t_max == 240 && rules.phi_min == 11);
}

static void test_types_quiescent_inf(void **state)
{
    (void)state;
    pc_rules rules = {0};
    parse_types_ok(write_case("q_inf.txt", "0.86 46.0 26.4\n0.14 inf 0\n"), &rules);
    assert_types(&rules, 2, (double[]){0.86, 0.14}, (double[]){46.0, 0}, (double[]){26.4, 0},
                 (int[]){0, 1});
    /* the stddev of a quiescent type is ignored, whatever number it is */
    parse_types_ok(write_case("q_inf2.txt", "0.5 INF -5\n0.5 infinity nan\n"), &rules);
    assert_types(&rules, 2, (double[]){0.5, 0.5}, (double[]){0, 0}, (double[]){0, 0},
                 (int[]){1, 1});
}

static void test_types_quiescent_minus_one(void **state)
{
    (void)state;
    pc_rules rules = {0};
    parse_types_ok(write_case("q_m1.txt", "0.5 -1 -1\n0.5 40 10\n"), &rules);
    assert_types(&rules, 2, (double[]){0.5, 0.5}, (double[]){0, 40}, (double[]){0, 10},
                 (int[]){1, 0});
}

static void test_types_sum_not_one(void **state)
{
    (void)state;
    assert_types_fail("sum.txt", "0.5 40 10\n0.45 60 10\n", 0,
                      "proportions sum to 0.95, not 1 (within 1e-6)");
    assert_types_fail("sum2.txt", "0.5 40 10\n0.5 60 10\n0.1 70 10\n", 0,
                      "proportions sum to 1.1, not 1");
    pc_rules rules = {0};
    parse_types_ok(write_case("sum_ok.txt", "0.5000005 40 10\n0.5 60 10\n"), &rules);
    assert_int_equal(rules.ntypes, 2);
}

static void test_types_bad_proportion(void **state)
{
    (void)state;
    assert_types_fail("p_big.txt", "1.5 40 10\n", 1, "proportion '1.5'");
    assert_types_fail("p_neg.txt", "0.5 40 10\n-0.1 40 10\n", 2, "proportion '-0.1'");
    assert_types_fail("p_word.txt", "abc 40 10\n", 1, "proportion 'abc'");
    assert_types_fail("p_nan.txt", "nan 40 10\n", 1, "proportion 'nan'");
}

static void test_types_bad_mean(void **state)
{
    (void)state;
    assert_types_fail("m_zero.txt", "1 0 10\n", 1, "mean '0'");
    assert_types_fail("m_neg.txt", "# c\n1 -5 10\n", 2, "mean '-5'");
    assert_types_fail("m_minus_one.txt", "1 -1 10\n", 1, "mean '-1'"); /* only with stddev -1 */
    assert_types_fail("m_neginf.txt", "1 -inf 10\n", 1, "mean '-inf'");
    assert_types_fail("m_nan.txt", "1 nan 10\n", 1, "mean 'nan'");
    assert_types_fail("m_word.txt", "1 x 10\n", 1, "mean 'x'");
}

static void test_types_bad_stddev(void **state)
{
    (void)state;
    assert_types_fail("s_neg.txt", "1 40 -1\n", 1, "stddev '-1'");
    assert_types_fail("s_nan.txt", "1 40 nan\n", 1, "stddev 'nan'");
    assert_types_fail("s_inf.txt", "\n1 40 inf\n", 2, "stddev 'inf'");
    assert_types_fail("s_word.txt", "1 inf abc\n", 1, "stddev 'abc'");
}

static void test_types_wrong_fields(void **state)
{
    (void)state;
    assert_types_fail("f_two.txt", "1 40\n", 1, "found 2");
    assert_types_fail("f_four.txt", "# c\n1 40 10 5\n", 2, "found 4");
}

static void test_types_too_many(void **state)
{
    (void)state;
    char text[64 * (PC_MAX_TYPES + 1)] = "";
    for (int j = 0; j < PC_MAX_TYPES; j++)
        strcat(text, "0.0625 40 10\n"); /* 16 x 1/16: exactly 1 */
    pc_rules rules = {0};
    parse_types_ok(write_case("max.txt", text), &rules);
    assert_int_equal(rules.ntypes, PC_MAX_TYPES);
    assert_true(rules.cum[PC_MAX_TYPES - 1] == 1.0);
    strcat(text, "0 40 10\n");
    assert_types_fail("too_many.txt", text, PC_MAX_TYPES + 1, "more than 16 cell types");
}

static void test_types_none(void **state)
{
    (void)state;
    assert_types_fail("none.txt", "# proportion mean stddev\n\n", 0, "no cell types");
    assert_types_fail("none_empty.txt", "", 0, "no cell types");
    char path[1100];
    snprintf(path, sizeof path, "%s/missing_types.txt", tmpdir);
    pc_rules rules = {0};
    assert_int_equal(pc_parse_types(path, &rules), -1);
    assert_error_names(path, 0, "cannot open: ");
}

/* ---- presets ---- */

static void test_preset_contents(void **state)
{
    (void)state;
    pc_rules rules = {.seed = 5, .t_max = 240};
    assert_int_equal(pc_types_preset("m1", &rules), 1);
    assert_types(&rules, 1, (double[]){1.0}, (double[]){46.1}, (double[]){28.9}, (int[]){0});
    assert_int_equal(pc_types_preset("m2", &rules), 1);
    assert_types(&rules, 2, (double[]){0.86, 0.14}, (double[]){46.0, 0}, (double[]){26.4, 0},
                 (int[]){0, 1});
    assert_int_equal(pc_types_preset("m3", &rules), 1);
    assert_types(&rules, 3, (double[]){0.06, 0.47, 0.47}, (double[]){0, 63.7, 41.1},
                 (double[]){0, 28.9, 14.3}, (int[]){1, 0, 0});
    assert_int_equal(pc_types_preset("m4", &rules), 1);
    assert_types(&rules, 2, (double[]){0.28, 0.72}, (double[]){83.9, 44.2},
                 (double[]){26.6, 19.5}, (int[]){0, 0});
    assert_true(rules.seed == 5 && rules.t_max == 240);
}

static void test_preset_unknown(void **state)
{
    (void)state;
    const char *names[] = {"m5", "M1", "m", "m10", "", "m1 "};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        pc_rules rules = {.ntypes = -7};
        assert_int_equal(pc_types_preset(names[i], &rules), 0);
        assert_int_equal(rules.ntypes, -7);
    }
}

/* The names the types parameter declares (`stagebench list` shows them) are the presets, and a
 * value that is neither a preset nor a file is refused naming them and the file form. */
static void test_preset_names_declared(void **state)
{
    (void)state;
    char names[] = PC_TYPES_PRESETS;
    int n = 0;
    for (char *save = NULL, *name = strtok_r(names, "|", &save); name;
         name = strtok_r(NULL, "|", &save), n++) {
        pc_rules rules = {0};
        assert_int_equal(pc_types_preset(name, &rules), 1);
        assert_int_equal(pc_types_load(name, &rules), 0);
    }
    assert_int_equal(n, 4);
    pc_rules rules = {.ntypes = -7};
    sb_error_clear();
    assert_int_equal(pc_types_load("m9", &rules), -1);
    assert_int_equal(rules.ntypes, -7);
    assert_non_null(strstr(sb_error(), "parameter types: 'm9' is not a preset (m1, m2, m3, m4)"));
    assert_non_null(strstr(sb_error(), "or the path of a file of 'proportion mean stddev'"));
}

/* ---- the real histograms, when this machine has them ---- */

static const char *shared_data(void)
{
    const char *dir = getenv("SB_SHARED_DATA");
    return dir && *dir ? dir : "../shared/data/procell";
}

static void skip_without_shared_data(void)
{
    DIR *dir = opendir(shared_data());
    if (!dir)
        skip();
    closedir(dir);
}

static int parse_real(const char *name, pc_histogram_row **rows, uint64_t *total)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", shared_data(), name);
    int n = parse_histogram_ok(path, rows);
    *total = 0;
    for (int i = 0; i < n; i++)
        *total += (*rows)[i].count;
    return n;
}

static void test_real_ut1_bm(void **state)
{
    (void)state;
    skip_without_shared_data();
    pc_histogram_row *rows;
    uint64_t total;
    int n = parse_real("AML9_Exp3_t10d_UT1_BM_GFPpos.txt", &rows, &total);
    assert_int_equal(n, 1024);
    assert_true(total == 53546);
    int first = 0;
    while (first < n && rows[first].count == 0)
        first++;
    assert_true(first < n);
    assert_true(rows[first].phi == 11.1397386);
    free(rows);
}

/* CRLF line ends, and 4096 rows that begin with negative fluorescence, all with count 0. */
static void test_real_t21d_ut_spl(void **state)
{
    (void)state;
    skip_without_shared_data();
    const char *name = "AML9_Exp3_t21d_UT_SPL_GFPpos.txt";
    char path[1024], first_line[256];
    snprintf(path, sizeof path, "%s/%s", shared_data(), name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_non_null(fgets(first_line, sizeof first_line, f));
    fclose(f);
    assert_non_null(strstr(first_line, "\r\n"));

    pc_histogram_row *rows;
    uint64_t total;
    int n = parse_real(name, &rows, &total);
    assert_int_equal(n, 4096);
    assert_true(total == 22089);
    assert_true(rows[0].phi < 0);
    int negative = 0;
    for (int i = 0; i < n; i++) {
        if (rows[i].phi < 0) {
            negative++;
            assert_true(rows[i].count == 0);
        }
    }
    assert_true(negative > 0);
    free(rows);
}

static void test_real_all_files_parse(void **state)
{
    (void)state;
    skip_without_shared_data();
    DIR *dir = opendir(shared_data());
    assert_non_null(dir);
    int files = 0;
    struct dirent *e;
    while ((e = readdir(dir))) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 4, ".txt") != 0)
            continue;
        pc_histogram_row *rows;
        uint64_t total;
        int n = parse_real(e->d_name, &rows, &total);
        assert_true(n == 1024 || n == 4096);
        assert_true(total > 0);
        free(rows);
        files++;
    }
    closedir(dir);
    assert_true(files > 0);
}

int main(void)
{
    const struct CMUnitTest parse_tests[] = {
        cmocka_unit_test(test_histogram_crlf),
        cmocka_unit_test(test_histogram_comments_and_blank_lines),
        cmocka_unit_test(test_histogram_long_lines),
        cmocka_unit_test(test_histogram_zero_counts_kept),
        cmocka_unit_test(test_histogram_all_counts_zero),
        cmocka_unit_test(test_histogram_whole_counts),
        cmocka_unit_test(test_histogram_no_data_rows),
        cmocka_unit_test(test_histogram_cannot_open),
        cmocka_unit_test(test_histogram_negative_fluorescence_counted),
        cmocka_unit_test(test_histogram_nonfinite_fluorescence_counted),
        cmocka_unit_test(test_histogram_fractional_count),
        cmocka_unit_test(test_histogram_negative_count),
        cmocka_unit_test(test_histogram_huge_count),
        cmocka_unit_test(test_histogram_malformed_rows),
        cmocka_unit_test(test_histogram_number_syntax),
        cmocka_unit_test(test_types_parsed),
        cmocka_unit_test(test_types_quiescent_inf),
        cmocka_unit_test(test_types_quiescent_minus_one),
        cmocka_unit_test(test_types_sum_not_one),
        cmocka_unit_test(test_types_bad_proportion),
        cmocka_unit_test(test_types_bad_mean),
        cmocka_unit_test(test_types_bad_stddev),
        cmocka_unit_test(test_types_wrong_fields),
        cmocka_unit_test(test_types_too_many),
        cmocka_unit_test(test_types_none),
        cmocka_unit_test(test_preset_contents),
        cmocka_unit_test(test_preset_unknown),
        cmocka_unit_test(test_preset_names_declared),
    };
    const struct CMUnitTest real_data_tests[] = {
        cmocka_unit_test(test_real_ut1_bm),
        cmocka_unit_test(test_real_t21d_ut_spl),
        cmocka_unit_test(test_real_all_files_parse),
    };
    int failed = cmocka_run_group_tests_name("procell_parse", parse_tests, make_tmpdir,
                                             remove_tmpdir);
    failed += cmocka_run_group_tests_name("procell_parse_real_data", real_data_tests, NULL, NULL);
    return failed ? 1 : 0;
}

/* Unit tests of a sweep row's statistics columns (sp_coll_row_set_stats) and of how the table
 * marks them: the dependence-aware CI, lag-1, n_eff, the trend and the drift flag; a drifting
 * point is never converged and is marked '~'; p99 is NaN where it would be the maximum. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "coll_result.h"
#include "coll_table.h"
#include "runstop.h"

#define N 400

static double x[N];
static double scratch[4 * N + 256];

/* A level that rises by rise over the n samples, with +-2% deterministic noise. */
static void series(size_t n, double rise)
{
    uint32_t s = 4242u;

    for (size_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        x[i] = 50.0 * (1.0 + rise * (double)i / (double)n) *
               (1.0 + 0.04 * ((double)(s >> 8) / 16777216.0 - 0.5));
    }
}

/* The row of x[0..n) as the sweep fills it: the rule's statistics and its verdict. */
static void fill(size_t n, double epsilon, sp_coll_row_t *row, sp_seqstats_t *q_p)
{
    const sp_stop_rule_t rule = {
        .fixed = 0, .min_samples = 10, .max_samples = 1000, .max_time_s = 10.0, .epsilon = epsilon};
    double copy[N];
    sp_summary_t s;
    int converged = 0;

    sp_stop_rule_check(&rule, x, n, 0.0, scratch, &converged);
    sp_stop_rule_stats(&rule, x, n, scratch, q_p);
    memcpy(copy, x, n * sizeof(*x));
    sp_stats_summarize(copy, n, copy, &s);
    memset(row, 0, sizeof(*row));
    row->samples = (uint32_t)n;
    sp_coll_row_set_stats(row, &s, q_p, converged);
}

static void test_drifting_point(void **state)
{
    sp_coll_row_t row;
    sp_seqstats_t q;

    (void)state;
    series(N, 0.04);
    fill(N, 0.03, &row, &q);
    assert_int_equal(row.drift, 1);
    assert_int_equal(row.converged, 0);
    assert_true(row.trend_p < 0.05);
    assert_true(row.trend_rel > 0.03 && row.trend_rel < 0.05);
    /* the interval alone met the 3% target: the drift is what keeps it from converging */
    assert_true(row.ci_rel <= 0.03);
    assert_true(row.ci_lo_us == q.med_lo && row.ci_hi_us == q.med_hi);
    assert_true(row.ci_lo_us < row.time_us && row.time_us < row.ci_hi_us);
    assert_true(row.lag1 == q.lag1 && row.n_eff == q.n_eff);
    assert_true(row.n_eff > 0.0 && row.n_eff <= (double)N);
    /* a converged verdict passed in is cleared by the drift */
    sp_coll_row_set_stats(&row, &(sp_summary_t){.n = N}, &q, 1);
    assert_int_equal(row.converged, 0);
}

static void test_steady_point(void **state)
{
    sp_coll_row_t row;
    sp_seqstats_t q;

    (void)state;
    series(N, 0.0);
    fill(N, 0.03, &row, &q);
    assert_int_equal(row.drift, 0);
    assert_int_equal(row.converged, 1);
    assert_true(row.ci_rel <= 0.03);
    assert_true(fabs(row.time_us - 50.0) < 1.0);
}

/* Below 100 samples the nearest-rank p99 is the largest sample: the row says NaN, max_us keeps
 * the maximum; from 100 on it is x_(ceil(0.99 n)). */
static void test_p99_named(void **state)
{
    sp_coll_row_t row;
    sp_seqstats_t q;

    (void)state;
    for (size_t i = 0; i < N; i++) {
        x[i] = (double)((i * 37) % N) + 1.0; /* a permutation of 1..N */
    }
    fill(99, 0.03, &row, &q);
    assert_true(isnan(row.p99_us));
    assert_true(row.max_us >= 99.0);
    fill(100, 0.03, &row, &q);
    assert_false(isnan(row.p99_us));
    assert_true(row.p99_us < row.max_us); /* x_(99) of 100 distinct values */
    fill(N, 0.03, &row, &q);
    assert_true(row.p99_us == 396.0); /* x_(ceil(0.99 * 400)) of 1..400 */
    assert_true(row.max_us == 400.0);
}

/* The ci+-% column: '~' for a drifting point, '!' for one that missed the target otherwise;
 * the footer counts the drifting ones. */
static void test_table_marks(void **state)
{
    sp_coll_row_t rows[3];
    sp_coll_totals_t totals;
    char buf[2048];
    FILE *f;

    (void)state;
    memset(rows, 0, sizeof(rows));
    memset(&totals, 0, sizeof(totals));
    totals.nranks = 2;
    for (int i = 0; i < 3; i++) {
        rows[i].bytes = 1024;
        rows[i].count = 256;
        rows[i].redop = SP_REDOP_NONE;
        rows[i].time_us = 10.0;
        rows[i].ci_rel = 0.0125;
    }
    rows[0].converged = 1;
    rows[1].drift = 1;
    for (int i = 0; i < 3; i++) {
        sp_coll_totals_add(&totals, &rows[i]);
    }
    f = fmemopen(buf, sizeof(buf), "w");
    assert_non_null(f);
    sp_coll_table_line(f, &rows[0], &rows[1]);
    sp_coll_table_line(f, &rows[2], NULL);
    sp_coll_table_footer(f, &totals);
    fclose(f);
    assert_non_null(strstr(buf, "  1.25      0   1.25~"));
    assert_non_null(strstr(buf, "  1.25!      0       -"));
    assert_non_null(strstr(buf, "1 of 3 points met the CI target"));
    assert_non_null(strstr(buf, "Drift                : 1 point(s)"));
}

static void test_file_columns(void **state)
{
    static const char *cols[] = {"lag1", "n_eff", "trend_p", "trend_rel", "drift"};
    hid_t t = sp__coll_row_type();
    int n = H5Tget_nmembers(t);

    (void)state;
    /* appended at the end, in this order, so older columns keep their positions */
    for (int i = 0; i < 5; i++) {
        char *name = H5Tget_member_name(t, (unsigned)(n - 5 + i));
        assert_string_equal(name, cols[i]);
        H5free_memory(name);
    }
    H5Tclose(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_drifting_point), cmocka_unit_test(test_steady_point),
        cmocka_unit_test(test_p99_named),      cmocka_unit_test(test_table_marks),
        cmocka_unit_test(test_file_columns),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}

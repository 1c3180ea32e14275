/* Unit tests of collectives/coll_split.h: nccl-tests' NCCL_TESTS_SPLIT grammar plus node and
 * rail, the colors it gives, the checks of the groups (a lone rank, one group, unequal sizes),
 * and the verdict naming the slowest group against the median of the others. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "coll_split.h"

static sp_split_t parse_ok(const char *spec)
{
    sp_split_t s;
    char err[512] = "";

    assert_int_equal(sp_split_parse(spec, &s, err, sizeof(err)), SP_OK);
    assert_string_equal(err, "");
    return s;
}

static void parse_bad(const char *spec, const char *why)
{
    sp_split_t s = {SP_SPLIT_RAIL, 77};
    char err[512] = "";

    assert_int_equal(sp_split_parse(spec, &s, err, sizeof(err)), SP_ERR_INVALID);
    assert_non_null(strstr(err, why));
    assert_int_equal(s.kind, SP_SPLIT_RAIL); /* untouched on failure */
}

static void test_grammar(void **state)
{
    struct {
        const char *spec;
        sp_split_kind_t kind;
        unsigned long value;
        const char *canon;
    } ok[] = {
        {"AND 0x7", SP_SPLIT_AND, 7, "AND 7"}, {"and 3", SP_SPLIT_AND, 3, "AND 3"},
        {"&1", SP_SPLIT_AND, 1, "AND 1"},      {"OR 4", SP_SPLIT_OR, 4, "OR 4"},
        {"| 010", SP_SPLIT_OR, 8, "OR 8"},     {"MOD 8", SP_SPLIT_MOD, 8, "MOD 8"},
        {" %2 ", SP_SPLIT_MOD, 2, "MOD 2"},    {"DIV 8", SP_SPLIT_DIV, 8, "DIV 8"},
        {"/4", SP_SPLIT_DIV, 4, "DIV 4"},      {"0x6", SP_SPLIT_AND, 6, "AND 6"},
        {"5", SP_SPLIT_AND, 5, "AND 5"},       {"node", SP_SPLIT_NODE, 0, "node"},
        {"RAIL", SP_SPLIT_RAIL, 0, "rail"},    {"", SP_SPLIT_NONE, 0, "none"},
        {"none", SP_SPLIT_NONE, 0, "none"},
    };
    char buf[32];

    (void)state;
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        sp_split_t s = parse_ok(ok[i].spec);
        assert_int_equal(s.kind, ok[i].kind);
        assert_int_equal(s.value, ok[i].value);
        sp_split_format(&s, buf, sizeof(buf));
        assert_string_equal(buf, ok[i].canon);
    }
    parse_bad("XOR 3", "unknown split");
    parse_bad("nodes", "unknown split");
    parse_bad("MOD", "needs a non-negative integer");
    parse_bad("MOD -2", "needs a non-negative integer");
    parse_bad("MOD 2 3", "needs a non-negative integer");
    parse_bad("DIV 0x", "needs a non-negative integer");
    parse_bad("MODULO 2", "unknown split");
    parse_bad("MOD 0", "modulo by 0");
    parse_bad("/0", "division by 0");
    parse_bad("7abc", "not a mask");
    parse_bad("99999999999", "not a mask");
}

static void test_colors(void **state)
{
    sp_split_t s;

    (void)state;
    s = parse_ok("MOD 8"); /* 16 ranks, 8 a node: one group per rail */
    assert_int_equal(sp_split_color(&s, 13, 1, 5), 5);
    s = parse_ok("DIV 8"); /* one group per node */
    assert_int_equal(sp_split_color(&s, 13, 1, 5), 1);
    s = parse_ok("AND 0x7");
    assert_int_equal(sp_split_color(&s, 13, 1, 5), 5);
    s = parse_ok("OR 1"); /* pairs {0,1}, {2,3}, ... */
    assert_int_equal(sp_split_color(&s, 12, 1, 4), 13);
    assert_int_equal(sp_split_color(&s, 13, 1, 5), 13);
    s = parse_ok("node"); /* from the node map, not from rank arithmetic */
    assert_int_equal(sp_split_color(&s, 13, 3, 1), 3);
    assert_true(sp_split_needs_topology(&s));
    s = parse_ok("rail");
    assert_int_equal(sp_split_color(&s, 13, 3, 1), 1);
    s = parse_ok("MOD 2");
    assert_false(sp_split_needs_topology(&s));
}

static void test_check(void **state)
{
    sp_split_t s = parse_ok("MOD 2");
    long colors[8];
    char err[512] = "";
    int ngroups = 0;
    int sizes[2] = {-1, -1};

    (void)state;
    for (int r = 0; r < 4; r++) {
        colors[r] = sp_split_color(&s, r, 0, 0);
    }
    assert_int_equal(sp_split_check(&s, colors, 4, &ngroups, sizes, err, sizeof(err)), SP_OK);
    assert_int_equal(ngroups, 2);
    assert_int_equal(sizes[0], 2);
    assert_int_equal(sizes[1], 2);
    /* 5 ranks MOD 2: groups of 3 and 2, allowed and flagged */
    for (int r = 0; r < 5; r++) {
        colors[r] = sp_split_color(&s, r, 0, 0);
    }
    assert_int_equal(sp_split_check(&s, colors, 5, &ngroups, sizes, err, sizeof(err)), SP_OK);
    assert_int_equal(sizes[0], 2);
    assert_int_equal(sizes[1], 3);
    /* 3 ranks MOD 2: rank 1 alone */
    assert_int_equal(sp_split_check(&s, colors, 3, &ngroups, sizes, err, sizeof(err)),
                     SP_ERR_INVALID);
    assert_non_null(strstr(err, "rank 1 is alone in its group"));
    /* MOD 8 on 4 ranks: every rank alone; the message names the first */
    s = parse_ok("MOD 8");
    for (int r = 0; r < 4; r++) {
        colors[r] = sp_split_color(&s, r, 0, 0);
    }
    assert_int_equal(sp_split_check(&s, colors, 4, &ngroups, sizes, err, sizeof(err)),
                     SP_ERR_INVALID);
    assert_non_null(strstr(err, "rank 0 is alone"));
    /* DIV 8 on 4 ranks: one group */
    s = parse_ok("DIV 8");
    for (int r = 0; r < 4; r++) {
        colors[r] = sp_split_color(&s, r, 0, 0);
    }
    assert_int_equal(sp_split_check(&s, colors, 4, &ngroups, sizes, err, sizeof(err)),
                     SP_ERR_INVALID);
    assert_non_null(strstr(err, "all 4 ranks in one group"));
}

static sp_coll_group_row_t grp(double t, double half)
{
    sp_coll_group_row_t g;

    memset(&g, 0, sizeof(g));
    g.time_us = t;
    g.ci_lo_us = t - half;
    g.ci_hi_us = t + half;
    return g;
}

static void test_verdict(void **state)
{
    sp_coll_group_row_t g[5];
    sp_split_verdict_t v;

    (void)state;
    /* two groups: the other one is the reference */
    g[0] = grp(100.0, 2.0);
    g[1] = grp(250.0, 5.0);
    sp_split_verdict(g, 2, SP_SPLIT_THRESHOLD, &v);
    assert_int_equal(v.slowest, 1);
    assert_int_equal(v.reference, 0);
    assert_true(v.ratio > 0.39 && v.ratio < 0.41);
    assert_true(v.significant);
    /* 5% slower: below the threshold, no culprit */
    g[1] = grp(105.0, 1.0);
    sp_split_verdict(g, 2, SP_SPLIT_THRESHOLD, &v);
    assert_int_equal(v.slowest, 1);
    assert_false(v.significant);
    /* 30% slower but the CIs overlap: no culprit */
    g[1] = grp(130.0, 40.0);
    sp_split_verdict(g, 2, SP_SPLIT_THRESHOLD, &v);
    assert_false(v.significant);
    /* five groups: the reference is the lower median of the four others */
    g[0] = grp(100.0, 1.0);
    g[1] = grp(90.0, 1.0);
    g[2] = grp(300.0, 1.0);
    g[3] = grp(110.0, 1.0);
    g[4] = grp(95.0, 1.0);
    sp_split_verdict(g, 5, SP_SPLIT_THRESHOLD, &v);
    assert_int_equal(v.slowest, 2);
    assert_int_equal(v.reference, 4); /* others by time: 90, 95, 100, 110 */
    assert_true(v.significant);
    /* equal times: some group is "slowest", never significant */
    for (int i = 0; i < 3; i++) {
        g[i] = grp(100.0, 1.0);
    }
    sp_split_verdict(g, 3, SP_SPLIT_THRESHOLD, &v);
    assert_true(v.reference >= 0 && v.reference != v.slowest);
    assert_false(v.significant);
    assert_true(v.ratio == 1.0);
}

/* rows of npoints points of 2 groups: group 1 at slow[i] x group 0's time at point i */
static void points(sp_coll_group_row_t *rows, const double *slow, int npoints)
{
    for (int i = 0; i < npoints; i++) {
        rows[2 * i] = grp(100.0, 2.0);
        rows[2 * i + 1] = grp(100.0 * slow[i], 2.0);
        for (int g = 0; g < 2; g++) {
            rows[2 * i + g].row = (uint64_t)i;
            rows[2 * i + g].group = g;
            rows[2 * i + g].nranks = 2;
            rows[2 * i + g].first_rank = g;
        }
    }
}

static void test_summary(void **state)
{
    const double bad[4] = {3.0, 5.0, 1.0, 4.0};  /* slow at 3 of 4 points */
    const double half[4] = {3.0, 1.0, 1.0, 4.0}; /* slow at 2 of 4: not more than half */
    sp_coll_group_row_t rows[8];
    sp_split_summary_t s;

    (void)state;
    points(rows, bad, 4);
    sp_split_summarize(rows, 8, SP_SPLIT_THRESHOLD, &s);
    assert_true(s.found);
    assert_int_equal(s.group, 1);
    assert_int_equal(s.first_rank, 1);
    assert_int_equal(s.points, 4);
    assert_int_equal(s.slow_points, 3);
    assert_true(s.ratio > 0.249 && s.ratio < 0.251); /* the median of 1/3, 1/5, 1/4 */
    points(rows, half, 4);
    sp_split_summarize(rows, 8, SP_SPLIT_THRESHOLD, &s);
    assert_false(s.found);
    assert_int_equal(s.slow_points, 2);
    /* no groups at all */
    sp_split_summarize(rows, 0, SP_SPLIT_THRESHOLD, &s);
    assert_false(s.found);
    assert_int_equal(s.points, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grammar), cmocka_unit_test(test_colors),
        cmocka_unit_test(test_check),   cmocka_unit_test(test_verdict),
        cmocka_unit_test(test_summary),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}

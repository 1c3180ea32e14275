/* Unit tests of links/links_verdict.h: a slow node is named as a node (and only it), a slow
 * link as a link (not either of its nodes), a healthy matrix names nothing; one-sided faults
 * (send only, receive only), two slow nodes, a sampled matrix with gaps, two nodes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "links_verdict.h"

#define MAXN 16
#define FAST 10.0

/* A matrix of n units, every link at FAST with a +-2% CI and a small deterministic spread. */
static void healthy(int n, sp_node_est_t *est)
{
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            double m = FAST * (1.0 + 0.01 * (double)((i * 7 + j * 3) % 5 - 2));
            est[i * n + j].median = i == j ? NAN : m;
            est[i * n + j].ci_lo = m * 0.98;
            est[i * n + j].ci_hi = m * 1.02;
        }
    }
}

static void slow(sp_node_est_t *est, int n, int i, int j, double factor)
{
    est[i * n + j].median *= factor;
    est[i * n + j].ci_lo *= factor;
    est[i * n + j].ci_hi *= factor;
}

static int classify(int n, const sp_node_est_t *est, sp_links_finding_t *out)
{
    int nout = -1;
    double cohort = NAN;

    assert_int_equal(sp_links_classify(n, est, 0.2, out, &nout, &cohort), SP_OK);
    if (n >= 4) {
        /* the cohort is the healthy links' level (with 2 or 3 units, half their links are the
         * slow ones, and it moves) */
        assert_true(fabs(cohort - FAST) < 0.5);
    }
    return nout;
}

static void test_healthy_names_nothing(void **state)
{
    sp_node_est_t est[MAXN * MAXN];
    sp_links_finding_t out[MAXN * MAXN];

    (void)state;
    for (int n = 2; n <= MAXN; n++) {
        healthy(n, est);
        assert_int_equal(classify(n, est, out), 0);
    }
}

static void test_slow_node_is_a_node(void **state)
{
    sp_node_est_t est[MAXN * MAXN];
    sp_links_finding_t out[MAXN * MAXN];

    (void)state;
    for (int n = 3; n <= MAXN; n++) {
        for (int x = 0; x < n; x++) {
            healthy(n, est);
            for (int j = 0; j < n; j++) {
                if (j != x) {
                    slow(est, n, x, j, 0.1);
                    slow(est, n, j, x, 0.1);
                }
            }
            assert_int_equal(classify(n, est, out), 1);
            assert_int_equal(out[0].kind, SP_LINKS_FIND_NODE);
            assert_int_equal(out[0].a, x);
            assert_int_equal(out[0].side, SP_LINKS_SIDE_BOTH);
            assert_int_equal(out[0].nlinks, 2 * (n - 1));
            assert_true(out[0].ratio < (n == 3 ? 0.2 : 0.12) && out[0].ratio_hi < 0.8);
            assert_true(out[0].ratio_lo <= out[0].ratio && out[0].ratio <= out[0].ratio_hi);
        }
    }
}

static void test_one_sided_node(void **state)
{
    sp_node_est_t est[6 * 6];
    sp_links_finding_t out[6 * 6];

    (void)state;
    healthy(6, est);
    for (int j = 0; j < 6; j++) {
        if (j != 2) {
            slow(est, 6, 2, j, 0.3); /* what node 2 sends: its row */
        }
    }
    assert_int_equal(classify(6, est, out), 1);
    assert_int_equal(out[0].kind, SP_LINKS_FIND_NODE);
    assert_int_equal(out[0].a, 2);
    assert_int_equal(out[0].side, SP_LINKS_SIDE_SEND);
    healthy(6, est);
    for (int j = 0; j < 6; j++) {
        if (j != 5) {
            slow(est, 6, j, 5, 0.3); /* what node 5 receives: its column */
        }
    }
    assert_int_equal(classify(6, est, out), 1);
    assert_int_equal(out[0].a, 5);
    assert_int_equal(out[0].side, SP_LINKS_SIDE_RECV);
}

static void test_slow_link_is_a_link(void **state)
{
    sp_node_est_t est[MAXN * MAXN];
    sp_links_finding_t out[MAXN * MAXN];

    (void)state;
    for (int n = 2; n <= MAXN; n++) {
        /* one direction of the pair (n-1, 0): the lower unit is a = 0, so it is b -> a */
        healthy(n, est);
        slow(est, n, n - 1, 0, 0.2);
        assert_int_equal(classify(n, est, out), 1);
        assert_int_equal(out[0].kind, SP_LINKS_FIND_LINK);
        assert_int_equal(out[0].a, 0);
        assert_int_equal(out[0].b, n - 1);
        assert_int_equal(out[0].side, SP_LINKS_SIDE_RECV);
        assert_int_equal(out[0].nslow, 1);
        /* both directions of one pair */
        if (n >= 3) {
            healthy(n, est);
            slow(est, n, 1, 2, 0.2);
            slow(est, n, 2, 1, 0.3);
            assert_int_equal(classify(n, est, out), 1);
            assert_int_equal(out[0].kind, SP_LINKS_FIND_LINK);
            assert_int_equal(out[0].a, 1);
            assert_int_equal(out[0].b, 2);
            assert_int_equal(out[0].side, SP_LINKS_SIDE_BOTH);
            if (n >= 4) {
                assert_true(fabs(out[0].ratio - 0.2) < 0.03); /* the worse direction */
            }
        }
    }
}

static void test_two_slow_nodes_and_a_link(void **state)
{
    sp_node_est_t est[8 * 8];
    sp_links_finding_t out[8 * 8];
    int nodes = 0;

    (void)state;
    healthy(8, est);
    for (int j = 0; j < 8; j++) {
        if (j != 1) {
            slow(est, 8, 1, j, 0.1);
            slow(est, 8, j, 1, 0.1);
        }
        if (j != 6) {
            slow(est, 8, 6, j, 0.4);
            slow(est, 8, j, 6, 0.4);
        }
    }
    slow(est, 8, 3, 4, 0.5);
    assert_int_equal(classify(8, est, out), 3);
    for (int i = 0; i < 3; i++) {
        if (out[i].kind == SP_LINKS_FIND_NODE) {
            assert_true(out[i].a == 1 || out[i].a == 6);
            nodes++;
        } else {
            assert_int_equal(out[i].a, 3);
            assert_int_equal(out[i].b, 4);
        }
    }
    assert_int_equal(nodes, 2);
    assert_int_equal(out[0].a, 1); /* the slowest first */
}

static void test_gaps_and_noise(void **state)
{
    sp_node_est_t est[6 * 6];
    sp_links_finding_t out[6 * 6];
    int nout = 0;
    double cohort = 0;

    (void)state;
    /* a sampled matrix: pairs (0,1), (2,3), (4,5) never measured; node 4 slow */
    healthy(6, est);
    for (int i = 0; i < 6; i += 2) {
        est[i * 6 + i + 1].median = NAN;
        est[(i + 1) * 6 + i].median = NAN;
    }
    for (int j = 0; j < 6; j++) {
        if (j != 4) {
            slow(est, 6, 4, j, 0.1);
            slow(est, 6, j, 4, 0.1);
        }
    }
    assert_int_equal(classify(6, est, out), 1);
    assert_int_equal(out[0].a, 4);
    assert_int_equal(out[0].nlinks, 8);
    /* a link whose CI reaches above 1 - threshold is not flagged, however low its median */
    healthy(6, est);
    est[0 * 6 + 1].median = 7.0;
    est[0 * 6 + 1].ci_lo = 1.0;
    est[0 * 6 + 1].ci_hi = 9.0;
    assert_int_equal(classify(6, est, out), 0);
    assert_int_equal(sp_links_classify(1, est, 0.2, out, &nout, &cohort), SP_ERR_INVALID);
    assert_int_equal(sp_links_classify(6, est, 0.0, out, &nout, &cohort), SP_ERR_INVALID);
    assert_int_equal(sp_links_classify(6, est, 1.0, out, &nout, &cohort), SP_ERR_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_healthy_names_nothing),
        cmocka_unit_test(test_slow_node_is_a_node),
        cmocka_unit_test(test_one_sided_node),
        cmocka_unit_test(test_slow_link_is_a_link),
        cmocka_unit_test(test_two_slow_nodes_and_a_link),
        cmocka_unit_test(test_gaps_and_noise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

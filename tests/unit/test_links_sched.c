/* Unit tests of links/links_sched.h: the round schedule is a proper 1-factorization for every n
 * from 2 to 64 (every round a set of disjoint pairs covering all units but the bye, every pair
 * in exactly one round, so both directions are measured once each), the rail schedule of
 * --per rail (n nodes x g rails: only same-rail pairs, each once, every rank busy in each of the
 * node schedule's rounds), and --rounds picks. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "links_sched.h"

#define MAXN 64

static void check_n(int n)
{
    static unsigned char seen_pair[MAXN][MAXN];
    int pairs[MAXN];
    int nr = sp_links_nrounds(n);
    int byes[MAXN + 1];

    memset(seen_pair, 0, sizeof(seen_pair));
    memset(byes, 0, sizeof(byes));
    assert_int_equal(nr, n % 2 == 0 ? n - 1 : n);
    for (int r = 0; r < nr; r++) {
        unsigned char busy[MAXN] = {0};
        int bye = -2;
        int np = sp_links_round(n, r, pairs, &bye);
        assert_int_equal(np, n / 2);
        for (int i = 0; i < np; i++) {
            int a = pairs[2 * i];
            int b = pairs[2 * i + 1];
            assert_true(0 <= a && a < b && b < n);
            assert_int_equal(busy[a], 0); /* disjoint within the round */
            assert_int_equal(busy[b], 0);
            busy[a] = busy[b] = 1;
            assert_int_equal(seen_pair[a][b], 0); /* never twice */
            seen_pair[a][b] = 1;
        }
        if (n % 2 == 0) {
            assert_int_equal(bye, -1);
        } else {
            assert_true(bye >= 0 && bye < n);
            assert_int_equal(busy[bye], 0); /* the bye is the one unit not in a pair */
            byes[bye]++;
        }
        for (int u = 0; u < n; u++) {
            assert_true(busy[u] || u == bye);
        }
    }
    /* every pair, i.e. both directions of every link, once */
    for (int a = 0; a < n; a++) {
        for (int b = a + 1; b < n; b++) {
            assert_int_equal(seen_pair[a][b], 1);
        }
        if (n % 2 == 1) {
            assert_int_equal(byes[a], 1); /* each unit sits out exactly once */
        }
    }
}

static void test_one_factorization_2_to_64(void **state)
{
    (void)state;
    for (int n = 2; n <= MAXN; n++) {
        check_n(n);
    }
}

static void test_edges(void **state)
{
    int pairs[4];

    (void)state;
    assert_int_equal(sp_links_nrounds(1), 0);
    assert_int_equal(sp_links_nrounds(0), 0);
    assert_int_equal(sp_links_round(1, 0, pairs, NULL), -1);
    assert_int_equal(sp_links_round(4, 3, pairs, NULL), -1);
    assert_int_equal(sp_links_round(4, -1, pairs, NULL), -1);
    assert_int_equal(sp_links_round(2, 0, pairs, NULL), 1);
    assert_int_equal(pairs[0], 0);
    assert_int_equal(pairs[1], 1);
}

/* n nodes x g rails, units rail-major: every round pairs units of one rail only, keeps every
 * unit busy but the bye node's (one per rail, odd n), and the node schedule's rounds cover every
 * same-rail pair once; both directions of a pair are measured in its round. */
static void check_rails(int n, int g)
{
    static unsigned char seen[MAXN][MAXN];
    int pairs[MAXN];
    int nu = n * g;
    int nr = sp_links_nrounds(n);
    int npairs = 0;

    memset(seen, 0, sizeof(seen));
    assert_int_equal(nr, n % 2 == 0 ? n - 1 : n); /* the node matrix's cost, not n * g - 1 */
    for (int r = 0; r < nr; r++) {
        unsigned char busy[MAXN] = {0};
        int bye = -2;
        int np = sp_links_rail_round(n, g, r, pairs, &bye);
        assert_int_equal(np, g * (n / 2));
        for (int i = 0; i < np; i++) {
            int a = pairs[2 * i];
            int b = pairs[2 * i + 1];
            assert_true(0 <= a && a < b && b < nu);
            assert_int_equal(a / n, b / n); /* no cross-rail pair */
            assert_int_equal(busy[a] + busy[b], 0);
            busy[a] = busy[b] = 1;
            assert_int_equal(seen[a][b], 0);
            seen[a][b] = 1;
            npairs++;
        }
        if (n % 2 == 0) {
            assert_int_equal(bye, -1);
        } else {
            assert_true(bye >= 0 && bye < n); /* a node: it sits out on every rail */
        }
        for (int u = 0; u < nu; u++) {
            assert_true(busy[u] || u % n == bye); /* every rank busy but the bye node's */
        }
    }
    for (int a = 0; a < nu; a++) {
        for (int b = a + 1; b < nu; b++) {
            assert_int_equal(seen[a][b], a / n == b / n);
        }
    }
    assert_int_equal(npairs, g * n * (n - 1) / 2);
}

static void test_rail_rounds(void **state)
{
    int pairs[16];

    (void)state;
    for (int n = 2; n <= 16; n++) {
        for (int g = 1; g * n <= MAXN && g <= 8; g++) {
            check_rails(n, g);
        }
    }
    /* 4 nodes x 2 rails, round 0: the node pairs on rail 0, the same shifted by 4 on rail 1 */
    assert_int_equal(sp_links_rail_round(4, 2, 0, pairs, NULL), 4);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(pairs[4 + i], pairs[i] + 4);
    }
    assert_int_equal(sp_links_rail_round(1, 2, 0, pairs, NULL), -1);
    assert_int_equal(sp_links_rail_round(4, 0, 0, pairs, NULL), -1);
    assert_int_equal(sp_links_rail_round(4, 2, 3, pairs, NULL), -1);
}

static void test_pick_rounds(void **state)
{
    int rounds[64];

    (void)state;
    assert_int_equal(sp_links_pick_rounds(63, 0, rounds), 63);
    assert_int_equal(rounds[62], 62);
    assert_int_equal(sp_links_pick_rounds(63, 100, rounds), 63);
    assert_int_equal(sp_links_pick_rounds(63, 4, rounds), 4);
    /* spread over the schedule, distinct, increasing */
    assert_int_equal(rounds[0], 0);
    assert_int_equal(rounds[1], 15);
    assert_int_equal(rounds[2], 31);
    assert_int_equal(rounds[3], 47);
    assert_int_equal(sp_links_pick_rounds(5, 5, rounds), 5);
    for (int i = 0; i < 5; i++) {
        assert_int_equal(rounds[i], i);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_factorization_2_to_64),
        cmocka_unit_test(test_edges),
        cmocka_unit_test(test_rail_rounds),
        cmocka_unit_test(test_pick_rounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

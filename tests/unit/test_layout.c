/* Unit tests of proxies/layout.h: DP x PP x TP coordinates (TP innermost), the members of every
 * rank's TP, PP and DP groups, pipeline neighbours, MPI_Comm_split colors/keys and the checks.
 * Expected layouts are written out rank by rank. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "layout.h"

/* One rank of an expected layout: coordinates, the three groups, pipeline neighbours. */
typedef struct {
    int dp, pp, tp;
    int tp_group[4];
    int pp_group[4];
    int dp_group[2];
    int prev, next;
} rank_row_t;

static void assert_group(const sp_layout_t *l, sp_layout_group_t g, int rank, const int *expect,
                         int n)
{
    int members[16];
    int got = -1;

    assert_int_equal(sp_layout_group_members(l, g, rank, members, 16, &got), SP_OK);
    assert_int_equal(got, n);
    for (int i = 0; i < n; i++) {
        if (members[i] != expect[i]) {
            print_error("rank %d group %d member %d: expected %d, got %d\n", rank, (int)g, i,
                        expect[i], members[i]);
            fail();
        }
    }
}

static void assert_rows(const sp_layout_t *l, const rank_row_t *rows, int world)
{
    assert_int_equal(sp_layout_world(l), world);
    for (int r = 0; r < world; r++) {
        const rank_row_t *e = &rows[r];
        sp_layout_coord_t c;
        int prev, next;

        assert_int_equal(sp_layout_coord(l, r, &c), SP_OK);
        assert_int_equal(c.dp, e->dp);
        assert_int_equal(c.pp, e->pp);
        assert_int_equal(c.tp, e->tp);
        assert_int_equal(sp_layout_rank(l, &c), r);
        assert_group(l, SP_LAYOUT_GROUP_TP, r, e->tp_group, l->tp);
        assert_group(l, SP_LAYOUT_GROUP_PP, r, e->pp_group, l->pp);
        assert_group(l, SP_LAYOUT_GROUP_DP, r, e->dp_group, l->dp);
        assert_int_equal(sp_layout_pp_neighbors(l, r, &prev, &next), SP_OK);
        assert_int_equal(prev, e->prev);
        assert_int_equal(next, e->next);
    }
}

/* world 8 = dp 2 x pp 2 x tp 2; rank = (dp * 2 + pp) * 2 + tp. */
static const rank_row_t world8[8] = {
    /* dp pp tp   TP group   PP group   DP group  prev next */
    {0, 0, 0, {0, 1}, {0, 2}, {0, 4}, -1, 2}, {0, 0, 1, {0, 1}, {1, 3}, {1, 5}, -1, 3},
    {0, 1, 0, {2, 3}, {0, 2}, {2, 6}, 0, -1}, {0, 1, 1, {2, 3}, {1, 3}, {3, 7}, 1, -1},
    {1, 0, 0, {4, 5}, {4, 6}, {0, 4}, -1, 6}, {1, 0, 1, {4, 5}, {5, 7}, {1, 5}, -1, 7},
    {1, 1, 0, {6, 7}, {4, 6}, {2, 6}, 4, -1}, {1, 1, 1, {6, 7}, {5, 7}, {3, 7}, 5, -1},
};

static void test_world8_dp2_pp2_tp2(void **state)
{
    const sp_layout_t l = {.dp = 2, .pp = 2, .tp = 2, .v = 1};

    (void)state;
    assert_rows(&l, world8, 8);
}

/* world 16 = dp 1 x pp 4 x tp 4; rank = pp * 4 + tp, every DP group is the rank alone. */
static const rank_row_t world16[16] = {
    {0, 0, 0, {0, 1, 2, 3}, {0, 4, 8, 12}, {0}, -1, 4},
    {0, 0, 1, {0, 1, 2, 3}, {1, 5, 9, 13}, {1}, -1, 5},
    {0, 0, 2, {0, 1, 2, 3}, {2, 6, 10, 14}, {2}, -1, 6},
    {0, 0, 3, {0, 1, 2, 3}, {3, 7, 11, 15}, {3}, -1, 7},
    {0, 1, 0, {4, 5, 6, 7}, {0, 4, 8, 12}, {4}, 0, 8},
    {0, 1, 1, {4, 5, 6, 7}, {1, 5, 9, 13}, {5}, 1, 9},
    {0, 1, 2, {4, 5, 6, 7}, {2, 6, 10, 14}, {6}, 2, 10},
    {0, 1, 3, {4, 5, 6, 7}, {3, 7, 11, 15}, {7}, 3, 11},
    {0, 2, 0, {8, 9, 10, 11}, {0, 4, 8, 12}, {8}, 4, 12},
    {0, 2, 1, {8, 9, 10, 11}, {1, 5, 9, 13}, {9}, 5, 13},
    {0, 2, 2, {8, 9, 10, 11}, {2, 6, 10, 14}, {10}, 6, 14},
    {0, 2, 3, {8, 9, 10, 11}, {3, 7, 11, 15}, {11}, 7, 15},
    {0, 3, 0, {12, 13, 14, 15}, {0, 4, 8, 12}, {12}, 8, -1},
    {0, 3, 1, {12, 13, 14, 15}, {1, 5, 9, 13}, {13}, 9, -1},
    {0, 3, 2, {12, 13, 14, 15}, {2, 6, 10, 14}, {14}, 10, -1},
    {0, 3, 3, {12, 13, 14, 15}, {3, 7, 11, 15}, {15}, 11, -1},
};

static void test_world16_dp1_pp4_tp4(void **state)
{
    const sp_layout_t l = {.dp = 1, .pp = 4, .tp = 4, .v = 1};
    sp_layout_target_t t = {.world = 16, .ranks_per_node = 8, .layers = 96, .heads = 96};
    int warn = -1;

    (void)state;
    assert_rows(&l, world16, 16);
    assert_int_equal(sp_layout_check(&l, &t, &warn, NULL, 0), SP_OK);
    assert_int_equal(warn, 0);
}

/* Interleaved (v 2) pipelines wrap: in world 8 stage 0's previous is stage 1 and vice versa. */
static void test_interleaved_wraps(void **state)
{
    const sp_layout_t l = {.dp = 2, .pp = 2, .tp = 2, .v = 2};
    const sp_layout_t l4 = {.dp = 1, .pp = 4, .tp = 4, .v = 2};
    int prev, next;

    (void)state;
    assert_int_equal(sp_layout_pp_neighbors(&l, 0, &prev, &next), SP_OK);
    assert_int_equal(prev, 2);
    assert_int_equal(next, 2);
    assert_int_equal(sp_layout_pp_neighbors(&l, 7, &prev, &next), SP_OK);
    assert_int_equal(prev, 5);
    assert_int_equal(next, 5);
    /* pp 4: rank 1 (stage 0) <- 13 (stage 3); rank 13 -> 1 */
    assert_int_equal(sp_layout_pp_neighbors(&l4, 1, &prev, &next), SP_OK);
    assert_int_equal(prev, 13);
    assert_int_equal(next, 5);
    assert_int_equal(sp_layout_pp_neighbors(&l4, 13, &prev, &next), SP_OK);
    assert_int_equal(prev, 9);
    assert_int_equal(next, 1);
}

/* Split keys for world 8: TP color = dp*2 + pp, PP color = dp*2 + tp, DP color = pp*2 + tp;
 * key = the coordinate in the group. Members of a group share a color, groups differ. */
static void test_split_world8(void **state)
{
    const sp_layout_t l = {.dp = 2, .pp = 2, .tp = 2, .v = 1};
    static const int tp_color[8] = {0, 0, 1, 1, 2, 2, 3, 3};
    static const int pp_color[8] = {0, 1, 0, 1, 2, 3, 2, 3};
    static const int dp_color[8] = {0, 1, 2, 3, 0, 1, 2, 3};

    (void)state;
    for (int r = 0; r < 8; r++) {
        int color, key;

        assert_int_equal(sp_layout_split(&l, SP_LAYOUT_GROUP_TP, r, &color, &key), SP_OK);
        assert_int_equal(color, tp_color[r]);
        assert_int_equal(key, world8[r].tp);
        assert_int_equal(sp_layout_split(&l, SP_LAYOUT_GROUP_PP, r, &color, &key), SP_OK);
        assert_int_equal(color, pp_color[r]);
        assert_int_equal(key, world8[r].pp);
        assert_int_equal(sp_layout_split(&l, SP_LAYOUT_GROUP_DP, r, &color, &key), SP_OK);
        assert_int_equal(color, dp_color[r]);
        assert_int_equal(key, world8[r].dp);
    }
}

/* Split for world 16 = 1 x 4 x 4: a rank's key in each group is its index in the member list,
 * and two ranks share a color exactly when they are in the same group. */
static void test_split_matches_groups(void **state)
{
    const sp_layout_t l = {.dp = 1, .pp = 4, .tp = 4, .v = 1};
    const sp_layout_group_t groups[3] = {SP_LAYOUT_GROUP_TP, SP_LAYOUT_GROUP_PP,
                                         SP_LAYOUT_GROUP_DP};

    (void)state;
    for (int g = 0; g < 3; g++) {
        for (int a = 0; a < 16; a++) {
            int members[16], n, ca, ka;
            int in_group[16];

            memset(in_group, 0, sizeof(in_group));
            assert_int_equal(sp_layout_group_members(&l, groups[g], a, members, 16, &n), SP_OK);
            for (int i = 0; i < n; i++) {
                in_group[members[i]] = 1;
            }
            assert_int_equal(sp_layout_split(&l, groups[g], a, &ca, &ka), SP_OK);
            assert_true(ca >= 0);
            assert_int_equal(members[ka], a);
            for (int b = 0; b < 16; b++) {
                int cb, kb;

                assert_int_equal(sp_layout_split(&l, groups[g], b, &cb, &kb), SP_OK);
                assert_int_equal(ca == cb, in_group[b]);
            }
        }
    }
}

/* ---- checks ---- */

static void test_check_errors(void **state)
{
    char err[200];
    int warn = -1;
    const sp_layout_t l222 = {.dp = 2, .pp = 2, .tp = 2, .v = 1};
    sp_layout_target_t t = {.world = 12, .ranks_per_node = 4, .layers = 32, .heads = 32};

    (void)state;
    /* 2 x 2 x 2 = 8 ranks on a world of 12 */
    assert_int_equal(sp_layout_check(&l222, &t, &warn, err, sizeof(err)), SP_ERR_INVALID);
    assert_string_equal(err, "dp 2 x pp 2 x tp 2 = 8 ranks, but the world has 12");
    assert_int_equal(warn, -1); /* untouched on error */

    /* 30 layers over pp 4 (30 % 4 = 2) */
    {
        const sp_layout_t l = {.dp = 1, .pp = 4, .tp = 2, .v = 1};
        t = (sp_layout_target_t){.world = 8, .ranks_per_node = 8, .layers = 30, .heads = 32};
        assert_int_equal(sp_layout_check(&l, &t, &warn, err, sizeof(err)), SP_ERR_INVALID);
        assert_string_equal(err, "30 layers do not split into pp 4 equal stages");
    }
    /* interleaved: 32 layers over pp 4 x v 3 = 12 chunks (32 % 12 = 8); v 2 fits (32 % 8 = 0) */
    {
        sp_layout_t l = {.dp = 1, .pp = 4, .tp = 2, .v = 3};
        t = (sp_layout_target_t){.world = 8, .ranks_per_node = 8, .layers = 32, .heads = 32};
        assert_int_equal(sp_layout_check(&l, &t, &warn, err, sizeof(err)), SP_ERR_INVALID);
        assert_string_equal(err, "32 layers do not split into pp 4 x v 3 = 12 equal model chunks");
        l.v = 2;
        assert_int_equal(sp_layout_check(&l, &t, &warn, err, sizeof(err)), SP_OK);
        assert_int_equal(warn, 0);
    }
    /* 12 heads over tp 8 (12 % 8 = 4) */
    {
        const sp_layout_t l = {.dp = 1, .pp = 1, .tp = 8, .v = 1};
        t = (sp_layout_target_t){.world = 8, .ranks_per_node = 8, .layers = 32, .heads = 12};
        assert_int_equal(sp_layout_check(&l, &t, &warn, err, sizeof(err)), SP_ERR_INVALID);
        assert_string_equal(err, "12 attention heads do not split over tp 8");
    }
    /* interleaving without a pipeline */
    {
        const sp_layout_t l = {.dp = 8, .pp = 1, .tp = 1, .v = 2};
        t = (sp_layout_target_t){.world = 8, .ranks_per_node = 8, .layers = 32, .heads = 32};
        assert_int_equal(sp_layout_check(&l, &t, &warn, err, sizeof(err)), SP_ERR_INVALID);
        assert_string_equal(err, "interleaving (v 2) needs pp >= 2");
    }
    /* a zero size */
    {
        const sp_layout_t l = {.dp = 0, .pp = 1, .tp = 1, .v = 1};
        assert_int_equal(sp_layout_check(&l, &t, &warn, err, sizeof(err)), SP_ERR_INVALID);
        assert_string_equal(err, "parallel sizes must be >= 1 (dp 0, pp 1, tp 1, v 1)");
    }
    assert_int_equal(sp_layout_check(NULL, &t, &warn, NULL, 0), SP_ERR_INVALID);
}

/* tp 4 on nodes of 6 ranks (6 % 4 = 2): a TP group would span two nodes. A warning, not an
 * error: SP_OK, *warn = 1 and the message. tp 8 on nodes of 4 likewise; tp 2 on 6 is fine. */
static void test_check_node_warning(void **state)
{
    char err[200];
    int warn = -1;
    const sp_layout_t l = {.dp = 3, .pp = 1, .tp = 4, .v = 1};
    const sp_layout_t l8 = {.dp = 1, .pp = 1, .tp = 8, .v = 1};
    const sp_layout_t l2 = {.dp = 6, .pp = 1, .tp = 2, .v = 1};
    sp_layout_target_t t = {.world = 12, .ranks_per_node = 6, .layers = 32, .heads = 32};

    (void)state;
    assert_int_equal(sp_layout_check(&l, &t, &warn, err, sizeof(err)), SP_OK);
    assert_int_equal(warn, 1);
    assert_string_equal(err, "warning: tp 4 does not divide the 6 ranks per node, so "
                             "tensor-parallel groups span nodes and their traffic crosses the "
                             "network");

    t = (sp_layout_target_t){.world = 8, .ranks_per_node = 4, .layers = 32, .heads = 32};
    warn = -1;
    assert_int_equal(sp_layout_check(&l8, &t, &warn, err, sizeof(err)), SP_OK);
    assert_int_equal(warn, 1);

    t = (sp_layout_target_t){.world = 12, .ranks_per_node = 6, .layers = 32, .heads = 32};
    warn = -1;
    assert_int_equal(sp_layout_check(&l2, &t, &warn, err, sizeof(err)), SP_OK);
    assert_int_equal(warn, 0);

    /* ranks_per_node unknown: no node check */
    t.ranks_per_node = 0;
    warn = -1;
    assert_int_equal(sp_layout_check(&l, &t, &warn, NULL, 0), SP_OK);
    assert_int_equal(warn, 0);
}

static void test_bad_arguments(void **state)
{
    const sp_layout_t l = {.dp = 2, .pp = 2, .tp = 2, .v = 1};
    sp_layout_coord_t c = {.dp = 0, .pp = 0, .tp = 0};
    int members[2], n = -1, a = -1, b = -1;

    (void)state;
    assert_int_equal(sp_layout_coord(&l, 8, &c), SP_ERR_INVALID);
    assert_int_equal(sp_layout_coord(&l, -1, &c), SP_ERR_INVALID);
    c = (sp_layout_coord_t){.dp = 2, .pp = 0, .tp = 0};
    assert_int_equal(sp_layout_rank(&l, &c), -1);
    c = (sp_layout_coord_t){.dp = 1, .pp = 1, .tp = 0};
    assert_int_equal(sp_layout_rank(&l, &c), 6);
    /* too small a members array: nothing written */
    assert_int_equal(sp_layout_group_members(&l, SP_LAYOUT_GROUP_TP, 0, members, 1, &n),
                     SP_ERR_INVALID);
    assert_int_equal(n, -1);
    assert_int_equal(sp_layout_group_members(&l, (sp_layout_group_t)7, 0, members, 2, &n),
                     SP_ERR_INVALID);
    assert_int_equal(sp_layout_split(&l, (sp_layout_group_t)7, 0, &a, &b), SP_ERR_INVALID);
    assert_int_equal(sp_layout_pp_neighbors(&l, 9, &a, &b), SP_ERR_INVALID);
    assert_int_equal(sp_layout_group_size(&l, SP_LAYOUT_GROUP_DP), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_world8_dp2_pp2_tp2),   cmocka_unit_test(test_world16_dp1_pp4_tp4),
        cmocka_unit_test(test_interleaved_wraps),    cmocka_unit_test(test_split_world8),
        cmocka_unit_test(test_split_matches_groups), cmocka_unit_test(test_check_errors),
        cmocka_unit_test(test_check_node_warning),   cmocka_unit_test(test_bad_arguments),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests of the interleaved schedule's microbatch group size N (Megatron-LM's
 * --microbatch-group-size-per-virtual-pipeline-stage): the order worked out by hand from
 * Megatron's table and warm-up, its checks, and that every stage's list replays without
 * deadlock. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "program.h"
#include "replay.h"
#include "schedule.h"

#define MAX_OPS 256

typedef struct {
    char type; /* 'F' or 'B' */
    int mb, chunk;
} want_op_t;

static void check_order(int p, int m, int v, int n, int stage, const want_op_t *want, size_t nw)
{
    sp_sched_op_t ops[MAX_OPS];
    size_t got = 0;

    assert_int_equal(sp_schedule_build_grouped(SP_SCHED_INTERLEAVED, p, m, v, n, stage, ops,
                                               MAX_OPS, &got),
                     SP_OK);
    assert_int_equal(got, nw);
    for (size_t k = 0; k < nw; k++) {
        assert_int_equal(ops[k].type, want[k].type == 'F' ? SP_SCHED_OP_F : SP_SCHED_OP_B);
        assert_int_equal(ops[k].microbatch, want[k].mb);
        assert_int_equal(ops[k].chunk, want[k].chunk);
    }
}

/* p = 2, m = 4, v = 2, N = 4: one group, so the table is (mb, chunk) = (0,0) (1,0) (2,0) (3,0)
 * (0,1) (1,1) (2,1) (3,1); backward k runs entry k's microbatch on chunk 1 - chunk.
 * Stage 0: warm-up (2-0-1)*2 + (2-1)*4 = 6 forwards, then F6 B0, F7 B1, then B2..B7.
 * Stage 1: warm-up 0 + 4 = 4 forwards, then F4 B0 .. F7 B3, then B4..B7. */
static void test_order_n4(void **state)
{
    static const want_op_t s0[] = {
        {'F', 0, 0}, {'F', 1, 0}, {'F', 2, 0}, {'F', 3, 0}, {'F', 0, 1}, {'F', 1, 1},
        {'F', 2, 1}, {'B', 0, 1}, {'F', 3, 1}, {'B', 1, 1}, {'B', 2, 1}, {'B', 3, 1},
        {'B', 0, 0}, {'B', 1, 0}, {'B', 2, 0}, {'B', 3, 0},
    };
    static const want_op_t s1[] = {
        {'F', 0, 0}, {'F', 1, 0}, {'F', 2, 0}, {'F', 3, 0}, {'F', 0, 1}, {'B', 0, 1},
        {'F', 1, 1}, {'B', 1, 1}, {'F', 2, 1}, {'B', 2, 1}, {'F', 3, 1}, {'B', 3, 1},
        {'B', 0, 0}, {'B', 1, 0}, {'B', 2, 0}, {'B', 3, 0},
    };

    (void)state;
    check_order(2, 4, 2, 4, 0, s0, sizeof(s0) / sizeof(s0[0]));
    check_order(2, 4, 2, 4, 1, s1, sizeof(s1) / sizeof(s1[0]));
}

/* N = p is the default: the same lists as sp_schedule_build. */
static void test_default_is_p(void **state)
{
    (void)state;
    for (int p = 2; p <= 4; p++) {
        for (int stage = 0; stage < p; stage++) {
            sp_sched_op_t a[MAX_OPS], b[MAX_OPS];
            size_t na = 0, nb = 0;
            assert_int_equal(sp_schedule_build(SP_SCHED_INTERLEAVED, p, 3 * p, 2, stage, a, MAX_OPS,
                                               &na),
                             SP_OK);
            assert_int_equal(sp_schedule_build_grouped(SP_SCHED_INTERLEAVED, p, 3 * p, 2, p, stage,
                                                       b, MAX_OPS, &nb),
                             SP_OK);
            assert_int_equal(na, nb);
            for (size_t k = 0; k < na; k++) {
                assert_int_equal(a[k].type, b[k].type);
                assert_int_equal(a[k].microbatch, b[k].microbatch);
                assert_int_equal(a[k].chunk, b[k].chunk);
            }
        }
    }
}

/* Megatron's rules: N in [p, m]; m % N is 0 or at least p (then m % p need not be 0); only the
 * interleaved schedule has N. */
static void test_checks(void **state)
{
    (void)state;
    assert_null(sp_schedule_why_invalid_grouped(SP_SCHED_INTERLEAVED, 2, 4, 2, 0));
    assert_null(sp_schedule_why_invalid_grouped(SP_SCHED_INTERLEAVED, 2, 4, 2, 4));
    assert_non_null(sp_schedule_why_invalid_grouped(SP_SCHED_INTERLEAVED, 2, 4, 2, 1)); /* < p */
    assert_non_null(sp_schedule_why_invalid_grouped(SP_SCHED_INTERLEAVED, 2, 4, 2, 5)); /* > m */
    assert_non_null(sp_schedule_why_invalid_grouped(SP_SCHED_INTERLEAVED, 4, 6, 2, 4)); /* 6%4=2 */
    assert_null(sp_schedule_why_invalid_grouped(SP_SCHED_INTERLEAVED, 4, 6, 2, 6));
    assert_null(sp_schedule_why_invalid_grouped(SP_SCHED_INTERLEAVED, 2, 5, 2, 3)); /* 5%3=2 */
    assert_non_null(sp_schedule_why_invalid(SP_SCHED_INTERLEAVED, 2, 5, 2));       /* N = p */
    assert_non_null(sp_schedule_why_invalid_grouped(SP_SCHED_1F1B, 2, 4, 1, 2));
    assert_null(sp_schedule_why_invalid_grouped(SP_SCHED_1F1B, 2, 4, 1, 0));
}

/* Every stage's list with N in [p, m] (valid ones) replays to the end; the idle time is at least
 * the pipeline's fill and drain, (p-1)(t_f + t_b), equal to it for N = p. */
static void test_replay(void **state)
{
    (void)state;
    for (int p = 2; p <= 4; p++) {
        for (int m = p; m <= 3 * p; m++) {
            for (int n = p; n <= m; n++) {
                sp_sched_op_t all[4][MAX_OPS];
                const sp_sched_op_t *lists[4];
                size_t counts[4];
                int64_t idle[4], makespan = 0;
                const sp_replay_cost_t cost = {.t_f = 3, .t_b = 5, .t_w = 0};
                if (sp_schedule_why_invalid_grouped(SP_SCHED_INTERLEAVED, p, m, 2, n) != NULL) {
                    continue;
                }
                for (int r = 0; r < p; r++) {
                    assert_int_equal(sp_schedule_build_grouped(SP_SCHED_INTERLEAVED, p, m, 2, n, r,
                                                               all[r], MAX_OPS, &counts[r]),
                                     SP_OK);
                    lists[r] = all[r];
                }
                assert_int_equal(sp_replay_run(SP_SCHED_INTERLEAVED, p, m, 2, lists, counts, &cost,
                                               NULL, idle, &makespan),
                                 SP_OK);
                assert_true(idle[0] >= (p - 1) * 8);
                if (n == p) {
                    assert_int_equal(idle[0], (p - 1) * 8);
                }
            }
        }
    }
}

/* The program takes N from its configuration; a bad N is refused. */
static void test_program(void **state)
{
    sp_program_config_t c = {
        .kind = SP_SCHED_INTERLEAVED, .p = 2, .m = 4, .v = 2, .stage = 0, .mb_group = 4,
        .tp = 1, .dp = 1, .layers_per_chunk = 1, .dtype = SP_DTYPE_FLOAT,
        .grad_dtype = SP_DTYPE_FLOAT, .flops_mlp = 10, .flops_per_ns = 1.0, .p2p_bytes = 8,
        .layer_param_bytes = 8, .bucket_bytes = 8,
    };
    sp_program_t pr;

    (void)state;
    assert_int_equal(sp_program_build(&c, &pr), SP_OK);
    assert_int_equal(pr.n_sched_ops, 16);
    assert_int_equal(pr.sched[6].type, SP_SCHED_OP_F); /* six forwards of warm-up, then F6 */
    assert_int_equal(pr.sched[7].type, SP_SCHED_OP_B);
    sp_program_free(&pr);
    c.mb_group = 5;
    assert_int_equal(sp_program_build(&c, &pr), SP_ERR_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_n4), cmocka_unit_test(test_default_is_p),
        cmocka_unit_test(test_checks),   cmocka_unit_test(test_replay),
        cmocka_unit_test(test_program),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

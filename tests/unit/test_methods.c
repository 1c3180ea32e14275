/* Unit tests of the peer methods' arithmetic (collectives/method.h) against cases computed by
 * hand from the peers' documented formulas: nccl-tests' time per operation (host-timed batch
 * over -n), its -a modes over ranks, algbw = S/t and busbw = algbw x the collective's factor
 * (nccl-tests' doc/PERFORMANCE.md); OSU's per-rank mean latency and its average, minimum and
 * maximum over ranks (OMB README, "Collective Latency Tests"); the counts each method runs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "coll.h"
#include "method.h"

static void assert_close(double actual, double expected, double rel)
{
    if (!(fabs(actual - expected) <= rel * fabs(expected))) {
        print_error("got %.17g, expected %.17g (relative tolerance %g)\n", actual, expected, rel);
        fail();
    }
}

/* Four ranks whose batches of 20 operations took 2.0, 2.2, 1.8 and 2.6 ms. */
static const uint64_t batch_ns[4] = {2000000, 2200000, 1800000, 2600000};
#define ITERS 20

static void test_nccltests_time_per_op(void **state)
{
    static const double want_us[4] = {100.0, 110.0, 90.0, 130.0};

    (void)state;
    for (int r = 0; r < 4; r++) {
        assert_close(sp_nccltests_op_us(batch_ns[r], ITERS), want_us[r], 1e-15);
    }
    /* 1,234,567 ns over 7 operations: 176.3667142857... us */
    assert_close(sp_nccltests_op_us(1234567, 7), 176.36671428571428, 1e-14);
    assert_true(isnan(sp_nccltests_op_us(1000, 0)));
}

static void test_nccltests_average_modes(void **state)
{
    double t[4];
    static const double one[1] = {42.0};

    (void)state;
    for (int r = 0; r < 4; r++) {
        t[r] = sp_nccltests_op_us(batch_ns[r], ITERS);
    }
    assert_close(sp_method_over_ranks(t, 4, SP_OVER_RANKS_RANK0), 100.0, 1e-15);
    assert_close(sp_method_over_ranks(t, 4, SP_OVER_RANKS_MEAN), 107.5, 1e-15);
    assert_close(sp_method_over_ranks(t, 4, SP_OVER_RANKS_MIN), 90.0, 1e-15);
    assert_close(sp_method_over_ranks(t, 4, SP_OVER_RANKS_MAX), 130.0, 1e-15);
    /* rank 0 is not the smallest nor the largest: swap it to the end and RANK0 follows it */
    {
        double u[4] = {t[3], t[1], t[2], t[0]};
        assert_close(sp_method_over_ranks(u, 4, SP_OVER_RANKS_RANK0), 130.0, 1e-15);
        assert_close(sp_method_over_ranks(u, 4, SP_OVER_RANKS_MEAN), 107.5, 1e-15);
    }
    for (int a = 0; a <= 3; a++) {
        assert_close(sp_method_over_ranks(one, 1, (sp_over_ranks_t)a), 42.0, 0.0);
    }
    assert_true(isnan(sp_method_over_ranks(t, 0, SP_OVER_RANKS_MEAN)));
    assert_true(isnan(sp_method_over_ranks(t, 4, (sp_over_ranks_t)4)));
    assert_true(isnan(sp_method_over_ranks(t, 4, (sp_over_ranks_t)-1)));
}

/* algbw and busbw of a 1 MiB float point on 4 ranks at each -a mode's time, every collective.
 * By hand: S = 1048576 B for every collective here (all_gather and friends: 65536 floats per
 * rank x 4 B x 4 ranks), algbw = S / t / 1e9; busbw factors 2(n-1)/n = 1.5 (all_reduce),
 * (n-1)/n = 0.75 (all_gather, reduce_scatter, alltoall, alltoallv, gather, scatter), 1
 * (broadcast, reduce, sendrecv). */
static void test_nccltests_bandwidths(void **state)
{
    static const struct {
        sp_over_ranks_t mode;
        double time_us;
        double algbw; /* 1048576 / t / 1e9 */
    } modes[] = {
        {SP_OVER_RANKS_RANK0, 100.0, 10.48576},
        {SP_OVER_RANKS_MEAN, 107.5, 9.754195348837209},
        {SP_OVER_RANKS_MIN, 90.0, 11.650844444444445},
        {SP_OVER_RANKS_MAX, 130.0, 8.065969230769232},
    };
    static const struct {
        sp_coll_kind_t kind;
        double factor;
    } colls[] = {
        {SP_COLL_ALL_REDUCE, 1.5}, {SP_COLL_ALL_GATHER, 0.75}, {SP_COLL_REDUCE_SCATTER, 0.75},
        {SP_COLL_BROADCAST, 1.0},  {SP_COLL_REDUCE, 1.0},      {SP_COLL_ALLTOALL, 0.75},
        {SP_COLL_SENDRECV, 1.0},   {SP_COLL_GATHER, 0.75},     {SP_COLL_SCATTER, 0.75},
        {SP_COLL_ALLTOALLV, 0.75},
    };
    double t[4];

    (void)state;
    for (int r = 0; r < 4; r++) {
        t[r] = sp_nccltests_op_us(batch_ns[r], ITERS);
    }
    for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
        double time_us = sp_method_over_ranks(t, 4, modes[m].mode);

        assert_close(time_us, modes[m].time_us, 1e-15);
        for (size_t c = 0; c < sizeof(colls) / sizeof(colls[0]); c++) {
            sp_coll_args_t args;
            double algbw;
            double busbw;

            sp_coll_args_init(&args, colls[c].kind, 0, 4, SP_DTYPE_FLOAT, SP_REDOP_SUM, 0, 0,
                              1048576);
            sp_coll_bandwidth(sp_coll_get(colls[c].kind), &args, time_us, &algbw, &busbw);
            assert_close(algbw, modes[m].algbw, 1e-12);
            assert_close(busbw, modes[m].algbw * colls[c].factor, 1e-12);
        }
    }
    /* two of them written out: all_reduce at -a 1, 14.631293023255814; all_gather at -a 3,
     * 6.049476923076924 */
    {
        sp_coll_args_t args;
        double algbw;
        double busbw;

        sp_coll_args_init(&args, SP_COLL_ALL_REDUCE, 0, 4, SP_DTYPE_FLOAT, SP_REDOP_SUM, 0, 0,
                          1048576);
        sp_coll_bandwidth(sp_coll_get(SP_COLL_ALL_REDUCE), &args, 107.5, &algbw, &busbw);
        assert_close(busbw, 14.631293023255814, 1e-12);
        sp_coll_args_init(&args, SP_COLL_ALL_GATHER, 0, 4, SP_DTYPE_FLOAT, SP_REDOP_SUM, 0, 0,
                          1048576);
        sp_coll_bandwidth(sp_coll_get(SP_COLL_ALL_GATHER), &args, 130.0, &algbw, &busbw);
        assert_close(busbw, 6.049476923076924, 1e-12);
    }
}

/* Three ranks, four timed operations each. Rank means 11.5, 22 and 9; over ranks the average
 * is 42.5 / 3 = 14.1666..., the minimum 9, the maximum 22. */
static void test_osu_reduction(void **state)
{
    static const double ops_us[3][4] = {
        {10.0, 12.0, 11.0, 13.0},
        {20.0, 22.0, 21.0, 25.0},
        {9.0, 9.0, 10.0, 8.0},
    };
    static const double want_rank[3] = {11.5, 22.0, 9.0};
    double rank_us[3];
    double avg;
    double lo;
    double hi;

    (void)state;
    for (int r = 0; r < 3; r++) {
        rank_us[r] = sp_osu_rank_us(ops_us[r], 4);
        assert_close(rank_us[r], want_rank[r], 1e-15);
    }
    sp_osu_over_ranks(rank_us, 3, &avg, &lo, &hi);
    assert_close(avg, 14.166666666666666, 1e-15);
    assert_close(lo, 9.0, 0.0);
    assert_close(hi, 22.0, 0.0);
    /* OSU's average is nccl-tests' -a 1 over the same per-rank values */
    assert_true(fabs(avg - sp_method_over_ranks(rank_us, 3, SP_OVER_RANKS_MEAN)) < 1e-12);

    /* one rank: all three are its mean */
    sp_osu_over_ranks(&rank_us[1], 1, &avg, &lo, &hi);
    assert_close(avg, 22.0, 0.0);
    assert_close(lo, 22.0, 0.0);
    assert_close(hi, 22.0, 0.0);
    assert_true(isnan(sp_osu_rank_us(ops_us[0], 0)));
    sp_osu_over_ranks(rank_us, 0, &avg, &lo, &hi);
    assert_true(isnan(avg) && isnan(lo) && isnan(hi));
}

/* Counts per point: -n when given; else 20 (nccl-tests), 1000 at <= 8 KiB and 100 above (OSU),
 * 0 (the default method samples to its stopping rule). Warm-up: -w, or OSU's 200 / 10 when the
 * parser left -1. Stored samples: 1 batch for nccl-tests, the largest OSU count. */
static void test_counts(void **state)
{
    sp_coll_opts_t o;

    (void)state;
    memset(&o, 0, sizeof(o));
    o.max_samples = 200;
    o.warmup = 5;
    o.method = SP_METHOD_DEFAULT;
    assert_int_equal(sp_method_iters(&o, 8), 0);
    assert_int_equal(sp_method_max_samples(&o), 200);
    o.method = SP_METHOD_NCCL_TESTS;
    assert_int_equal(sp_method_iters(&o, 8), 20);
    assert_int_equal(sp_method_iters(&o, 1 << 30), 20);
    assert_int_equal(sp_method_max_samples(&o), 1);
    assert_int_equal(sp_method_warmup(&o, 8), 5);
    o.method = SP_METHOD_OSU;
    assert_int_equal(sp_method_iters(&o, 8192), 1000);
    assert_int_equal(sp_method_iters(&o, 8193), 100);
    assert_int_equal(sp_method_max_samples(&o), 1000);
    o.warmup = -1;
    assert_int_equal(sp_method_warmup(&o, 8192), 200);
    assert_int_equal(sp_method_warmup(&o, 8193), 10);
    o.warmup = 0;
    assert_int_equal(sp_method_warmup(&o, 8), 0);
    o.iters = 7;
    for (int m = 0; m < SP_METHOD_COUNT; m++) {
        o.method = m;
        assert_int_equal(sp_method_iters(&o, 1 << 20), 7);
    }
    o.method = SP_METHOD_OSU;
    assert_int_equal(sp_method_max_samples(&o), 7);
    o.method = SP_METHOD_DEFAULT;
    assert_int_equal(sp_method_max_samples(&o), 7);
    assert_string_equal(sp_method_names[SP_METHOD_DEFAULT], "default");
    assert_string_equal(sp_method_names[SP_METHOD_NCCL_TESTS], "nccl-tests");
    assert_string_equal(sp_method_names[SP_METHOD_OSU], "osu");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nccltests_time_per_op),
        cmocka_unit_test(test_nccltests_average_modes),
        cmocka_unit_test(test_nccltests_bandwidths),
        cmocka_unit_test(test_osu_reduction),
        cmocka_unit_test(test_counts),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}

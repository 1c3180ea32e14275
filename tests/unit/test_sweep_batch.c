/* The batch size rule (collectives/sweep_batch.h): 1-2-5 series, bounds, and stability of k
 * under the timing noise that made the former ceil(batch_us / t) rule jitter. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "sweep_batch.h"

static int in_series(long k)
{
    while (k >= 10 && k % 10 == 0) {
        k /= 10;
    }
    return k == 1 || k == 2 || k == 5;
}

static void test_series_and_bounds(void **state)
{
    (void)state;
    assert_int_equal(sp_sweep_batch_k(1000.0, 1000.0, 1), 1);
    assert_int_equal(sp_sweep_batch_k(5000.0, 1000.0, 1), 1);    /* an op longer than the batch */
    assert_int_equal(sp_sweep_batch_k(500.0, 1000.0, 1), 2);
    assert_int_equal(sp_sweep_batch_k(330.0, 1000.0, 1), 2);     /* 3.03: log-nearer 2 than 5 */
    assert_int_equal(sp_sweep_batch_k(300.0, 1000.0, 1), 5);     /* 3.33: past sqrt(10) = 3.16 */
    assert_int_equal(sp_sweep_batch_k(1.0, 1000.0, 1), 1000);
    assert_int_equal(sp_sweep_batch_k(1.3, 1000.0, 1), 1000);    /* 769 */
    assert_int_equal(sp_sweep_batch_k(1.7, 1000.0, 1), 500);     /* 588 */
    assert_int_equal(sp_sweep_batch_k(0.01, 1000.0, 1), SP_MAX_BATCH);
    assert_int_equal(sp_sweep_batch_k(0.0, 1000.0, 1), SP_MAX_BATCH);
    assert_int_equal(sp_sweep_batch_k(NAN, 1000.0, 1), SP_MAX_BATCH);
    assert_int_equal(sp_sweep_batch_k(-1.0, 1000.0, 1), SP_MAX_BATCH);
    for (double t = 0.05; t < 5000.0; t *= 1.07) {
        long k = sp_sweep_batch_k(t, 1000.0, 1);
        assert_true(k >= 1 && k <= SP_MAX_BATCH);
        assert_true(in_series(k));
        /* within a factor sqrt(2.5) of the raw quotient, or clamped */
        assert_true(k == 1 || k == SP_MAX_BATCH || fabs(log(k * t / 1000.0)) <= log(sqrt(2.5)) + 1e-9);
    }
}

/* The case: identical 1 KiB points gave k 201..781 under the old rule (ceil of batch_us
 * over one timed op). With k from the median of 5 timed ops, the estimate's spread is smaller;
 * at +-10% around a centre the series rule keeps one k for most centres, the old rule for
 * almost none (it moves whenever the time moves by 1/k), and two neighbours of the series are
 * never more than 2.5x apart. */
static void test_stable_under_noise(void **state)
{
    int series_same = 0;
    int old_same = 0;
    int centres = 0;

    (void)state;
    for (double centre = 0.1; centre < 100.0; centre *= 1.03) { /* raw k 10..10000 */
        long lo = sp_sweep_batch_k(centre * 1.1, 1000.0, 1);
        long hi = sp_sweep_batch_k(centre * 0.9, 1000.0, 1);
        long old_lo = (long)ceil(1000.0 / (centre * 1.1));
        long old_hi = (long)ceil(1000.0 / (centre * 0.9));
        centres++;
        assert_true((double)hi / (double)lo <= 2.5 + 1e-9);
        series_same += lo == hi;
        old_same += old_lo == old_hi;
    }
    print_message("k unchanged over +-10%% timing spread: series rule %d of %d centres, "
                  "ceil rule %d\n", series_same, centres, old_same);
    assert_true(series_same >= centres * 6 / 10);
    assert_true(old_same <= centres / 10);
}

/* The minimum k (--min-batch, default 2): an operation that outlasts the batch target is still
 * timed twice back to back, the series value is kept above the minimum, the minimum is capped at
 * SP_MAX_BATCH, and a minimum below 1 means 1. Across the 1 <-> 2 boundary (raw quotient near
 * sqrt(2), an op of ~707 us) the rule with minimum 2 gives one k where the rule without flips. */
static void test_minimum(void **state)
{
    (void)state;
    assert_int_equal(sp_sweep_batch_k(5000.0, 1000.0, 2), 2);
    assert_int_equal(sp_sweep_batch_k(1000.0, 1000.0, 2), 2);
    assert_int_equal(sp_sweep_batch_k(300.0, 1000.0, 2), 5);
    assert_int_equal(sp_sweep_batch_k(1.0, 1000.0, 2), 1000);
    assert_int_equal(sp_sweep_batch_k(NAN, 1000.0, 2), SP_MAX_BATCH);
    assert_int_equal(sp_sweep_batch_k(5000.0, 1000.0, 10), 10);
    assert_int_equal(sp_sweep_batch_k(5000.0, 1000.0, 0), 1);
    assert_int_equal(sp_sweep_batch_k(5000.0, 1000.0, 2 * SP_MAX_BATCH), SP_MAX_BATCH);
    assert_int_equal(sp_sweep_batch_k(650.0, 1000.0, 1), 2);
    assert_int_equal(sp_sweep_batch_k(780.0, 1000.0, 1), 1);
    assert_int_equal(sp_sweep_batch_k(650.0, 1000.0, 2), sp_sweep_batch_k(780.0, 1000.0, 2));
    for (double t = 0.05; t < 50000.0; t *= 1.07) {
        long k1 = sp_sweep_batch_k(t, 1000.0, 1);
        long k2 = sp_sweep_batch_k(t, 1000.0, 2);
        assert_int_equal(k2, k1 < 2 ? 2 : k1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_series_and_bounds),
        cmocka_unit_test(test_stable_under_noise),
        cmocka_unit_test(test_minimum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

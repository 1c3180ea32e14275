/* Unit tests of links/links_bisect.h on simulated group times: the search names the one slow
 * unit for every n from 4 to 64 and every position, within ceil(log2 n) decisions (fewer rounds
 * than the n - 1 of the pairwise matrix for n >= 6), names none in a healthy cluster, repeats
 * an inconclusive split under noise, and pads groups with cleared units only. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "links_bisect.h"

typedef struct {
    int slow;          /* the slow unit, -1: none */
    double factor;     /* a group with it takes this many times as long */
    double noise;      /* relative noise of each sample, uniform +-noise */
    int noisy_calls;   /* the first calls are pure noise of this size (a disturbed machine) */
    uint64_t rng;
    int calls;
} sim_t;

static double uniform(sim_t *s)
{
    s->rng = s->rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(s->rng >> 11) / 9007199254740992.0;
}

static int has(const int *g, int n, int u)
{
    for (int i = 0; i < n; i++) {
        if (g[i] == u) {
            return 1;
        }
    }
    return 0;
}

static sp_status_t sim_measure(void *arg, const int *a, int na, const int *b, int nb,
                               size_t min_samples, double *ta, double *tb, size_t cap,
                               size_t *n_p)
{
    sim_t *s = arg;
    size_t n = min_samples + 4 < cap ? min_samples + 4 : cap;
    double noise = s->calls < s->noisy_calls ? 1.0 : s->noise;

    assert_int_equal(na, nb); /* equal sizes, so the times compare */
    assert_true(na >= 2);
    for (int i = 0; i < na; i++) {
        assert_false(has(b, nb, a[i])); /* disjoint groups */
    }
    for (size_t i = 0; i < n; i++) {
        ta[i] = 1e-3 * (1.0 + noise * (2.0 * uniform(s) - 1.0)) *
                (has(a, na, s->slow) ? s->factor : 1.0);
        tb[i] = 1e-3 * (1.0 + noise * (2.0 * uniform(s) - 1.0)) *
                (has(b, nb, s->slow) ? s->factor : 1.0);
    }
    s->calls++;
    *n_p = n;
    return SP_OK;
}

static const sp_links_bisect_params_t params = {
    .alpha = 0.05, .threshold = 0.1, .repeats = 3, .max_samples = 200};

static void test_finds_every_slow_unit(void **state)
{
    sp_links_bisect_step_t steps[64];
    sp_links_bisect_result_t res;
    int nsteps = 0;

    (void)state;
    for (int n = 4; n <= 64; n++) {
        for (int x = 0; x < n; x++) {
            sim_t s = {.slow = x, .factor = 1.5, .noise = 0.05, .rng = (uint64_t)(n * 131 + x)};
            assert_int_equal(sp_links_bisect(n, &params, sim_measure, &s, steps, 64, &nsteps,
                                             &res),
                             SP_OK);
            assert_int_equal(res.verdict, x);
            assert_true(res.levels <= sp_links_bisect_max_levels(n));
            assert_int_equal(res.rounds, nsteps);
            if (n >= 6) {
                assert_true(res.rounds < n - 1);
            }
            assert_true(res.conf >= 0.95 - 1e-12);
            for (int i = 0; i < nsteps; i++) {
                /* the slow unit is never a pad: pads are cleared units */
                const sp_links_bisect_step_t *st = &steps[i];
                int ga[64];
                int gb[64];
                int m = sp_links_bisect_groups(n, st->a_lo, st->a_hi, st->b_lo, st->b_hi, ga, gb);
                assert_int_equal(m, st->group_size);
                for (int k = st->a_hi - st->a_lo; k < m; k++) {
                    assert_int_not_equal(ga[k], x);
                }
                for (int k = st->b_hi - st->b_lo; k < m; k++) {
                    assert_int_not_equal(gb[k], x);
                }
                /* every split decides at once, but the first one of an odd n when the slow
                 * unit is the one held out of it (its halves are even) */
                if (!(n % 2 == 1 && x == n - 1 && steps[i].level == 0)) {
                    assert_true(steps[i].decision != 0);
                }
            }
        }
    }
}

static void test_healthy_names_none(void **state)
{
    sp_links_bisect_step_t steps[64];
    sp_links_bisect_result_t res;
    int nsteps = 0;

    (void)state;
    for (int n = 4; n <= 64; n += 3) {
        sim_t s = {.slow = -1, .factor = 1.0, .noise = 0.05, .rng = (uint64_t)n};
        assert_int_equal(sp_links_bisect(n, &params, sim_measure, &s, steps, 64, &nsteps, &res),
                         SP_OK);
        assert_int_equal(res.verdict, -1);
        /* the first split, repeated; odd n: then the held-out unit, repeated */
        assert_int_equal(res.rounds, (n % 2 == 1 ? 2 : 1) * params.repeats);
        assert_int_equal(res.levels, 0);
    }
}

static void test_noise_repeats_the_split(void **state)
{
    sp_links_bisect_step_t steps[64];
    sp_links_bisect_result_t res;
    int nsteps = 0;
    sim_t s = {.slow = 4, .factor = 1.5, .noise = 0.02, .noisy_calls = 2, .rng = 7};

    (void)state;
    assert_int_equal(sp_links_bisect(6, &params, sim_measure, &s, steps, 64, &nsteps, &res),
                     SP_OK);
    assert_int_equal(res.verdict, 4);
    assert_int_equal(steps[0].decision, 0); /* the disturbed measurements decide nothing */
    assert_int_equal(steps[1].decision, 0);
    assert_int_equal(steps[2].attempt, 2);
    assert_true(res.rounds < 6 + 2);
}

static void test_groups_and_edges(void **state)
{
    int a[8];
    int b[8];
    sp_links_bisect_step_t steps[4];
    sp_links_bisect_result_t res;
    int nsteps = 0;
    sim_t s = {.slow = 0, .factor = 2.0, .rng = 1};

    (void)state;
    /* candidates 3 | 4, 5 of 6: a padded with one cleared unit, b as is */
    assert_int_equal(sp_links_bisect_groups(6, 3, 4, 4, 6, a, b), 2);
    assert_int_equal(a[0], 3);
    assert_int_equal(a[1], 0);
    assert_int_equal(b[0], 4);
    assert_int_equal(b[1], 5);
    /* candidates 0 | 1 of 4: both padded, from 2 and 3 */
    assert_int_equal(sp_links_bisect_groups(4, 0, 1, 1, 2, a, b), 2);
    assert_int_equal(a[1], 2);
    assert_int_equal(b[1], 3);
    /* too few cleared units */
    assert_int_equal(sp_links_bisect_groups(3, 0, 1, 1, 3, a, b), -1);
    assert_int_equal(sp_links_bisect_groups(5, 0, 2, 2, 5, a, b), -1);
    /* odd n's held-out unit 4 of 5 against half 0, 1, padded from 2 */
    assert_int_equal(sp_links_bisect_groups(5, 4, 5, 0, 2, a, b), 2);
    assert_int_equal(a[0], 4);
    assert_int_equal(a[1], 2);
    assert_int_equal(b[1], 1);
    assert_int_equal(sp_links_bisect(3, &params, sim_measure, &s, steps, 4, &nsteps, &res),
                     SP_ERR_INVALID);
    assert_true(sp_links_bisect_min_samples(0.95) == 6);
    assert_true(sp_links_bisect_min_samples(0.995) > 6);
    assert_int_equal(sp_links_bisect_max_levels(4), 2);
    assert_int_equal(sp_links_bisect_max_levels(6), 3);
    assert_int_equal(sp_links_bisect_max_levels(64), 6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_finds_every_slow_unit),
        cmocka_unit_test(test_healthy_names_none),
        cmocka_unit_test(test_noise_repeats_the_split),
        cmocka_unit_test(test_groups_and_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

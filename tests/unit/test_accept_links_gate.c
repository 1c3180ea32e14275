/* Unit tests of the links gate's offline half (accept/links_gate.h) and its check: a matrix of
 * 5 nodes with node 4 slow (a tenth of the bandwidth) and the link 0-1 slow (a fifth, both
 * directions) gives node 4 a FAIL (the links verdict names it), nodes 0 and 1 a WARN (a slow
 * link), the others a PASS; a GB/s floor fails a node by its median; a better attempt replaces
 * a worse one and a worse one does not; fewer than 2 units is refused. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "links_gate.h"
#include "links_verdict.h"
#include "spec.h"

#define N 5
#define BYTES 1e6

static void add(sp_links_pair_row_t *p, int src, int dst, double us)
{
    memset(p, 0, sizeof(*p));
    p->metric = SP_LINKS_BW;
    p->src = src;
    p->dst = dst;
    p->bytes = (uint64_t)BYTES;
    p->samples = 10;
    p->median_us = us;
    p->ci_lo_us = us * 0.99;
    p->ci_hi_us = us * 1.01;
    p->value = BYTES / us * 1e-3;
    p->value_lo = BYTES / p->ci_hi_us * 1e-3;
    p->value_hi = BYTES / p->ci_lo_us * 1e-3;
}

/* every directed link at 100 us (10 GB/s); node 4's at 1000 us; 0 <-> 1 at 500 us unless
 * healthy */
static void build(sp_links_result_data_t *d, sp_links_unit_row_t *u, sp_links_pair_row_t *p,
                  int healthy)
{
    size_t k = 0;

    memset(d, 0, sizeof(*d));
    for (int i = 0; i < N; i++) {
        u[i].unit = i;
        u[i].rank = i;
        u[i].node = i;
        snprintf(u[i].host, sizeof(u[i].host), "h%d", i + 1);
        for (int j = 0; j < N; j++) {
            double us = healthy                  ? 100.0
                        : i == 4 || j == 4       ? 1000.0
                        : (i + j == 1 && i != j) ? 500.0
                                                 : 100.0;
            if (i != j) {
                add(&p[k++], i, j, us);
            }
        }
    }
    d->units = u;
    d->nunits = N;
    d->pairs = p;
    d->npairs = k;
}

static void fresh(sp_perf_node_t *perf)
{
    for (int n = 0; n < N; n++) {
        memset(&perf[n], 0, sizeof(perf[n]));
        perf[n].links_gbps = perf[n].links_ratio = perf[n].links_worst_gbps = NAN;
        perf[n].attempts = 1;
    }
}

/* the links_matrix check of a one-type spec with these thresholds */
static sp_spec_check_t check_of(const char *params)
{
    char text[256], err[256] = "";
    sp_spec_t *s = calloc(1, sizeof(*s));
    sp_spec_check_t c;

    snprintf(text, sizeof(text), "{\"node_types\": {\"a\": {\"checks\": {\"links_matrix\": %s}}}}",
             params);
    assert_int_equal(sp_spec_parse(text, "t.json", s, err, sizeof(err)), SP_OK);
    c = s->types[0].checks[0];
    free(s);
    return c;
}

static sp_verdict_t verdict(const sp_spec_check_t *c, const sp_perf_node_t *p)
{
    sp_health_node_t h;
    sp_check_input_t in = {.h = &h, .perf = p};
    sp_check_result_t r;

    memset(&h, 0, sizeof(h));
    sp_check_eval(c, &in, &r);
    return r.verdict;
}

static void test_slow_node_and_link(void **state)
{
    sp_links_result_data_t d;
    sp_links_unit_row_t u[N];
    sp_links_pair_row_t p[N * N];
    sp_perf_node_t perf[N];
    sp_spec_check_t ratio = check_of("{\"min_ratio\": 0.5}");
    sp_spec_check_t floor = check_of("{\"min\": 9}");

    (void)state;
    build(&d, u, p, 0);
    fresh(perf);
    assert_int_equal(sp_accept_links_fold(&d, N, 0.5, 1, "f.h5", perf), SP_OK);
    assert_true(perf[4].links_node);
    assert_true(fabs(perf[4].links_gbps - 1.0) < 1e-9); /* every link of node 4: 1 GB/s */
    assert_true(perf[0].links_slow_link && perf[1].links_slow_link && !perf[0].links_node);
    assert_false(perf[2].links_node || perf[2].links_slow_link);
    assert_non_null(strstr(perf[4].links_evidence, "SLOW NODE h5"));
    assert_non_null(strstr(perf[0].links_evidence, "SLOW LINK h1-h2"));
    assert_int_equal(verdict(&ratio, &perf[4]), SP_VERDICT_FAIL);
    assert_int_equal(verdict(&ratio, &perf[0]), SP_VERDICT_WARN);
    assert_int_equal(verdict(&ratio, &perf[1]), SP_VERDICT_WARN);
    assert_int_equal(verdict(&ratio, &perf[2]), SP_VERDICT_PASS);
    /* a floor of 9 GB/s: node 4's median (1) fails, node 2's (10, its slowest link 1 GB/s to
     * node 4) warns, never fails */
    assert_int_equal(verdict(&floor, &perf[4]), SP_VERDICT_FAIL);
    assert_int_equal(verdict(&floor, &perf[2]), SP_VERDICT_WARN);
}

static void test_attempts(void **state)
{
    sp_links_result_data_t d;
    sp_links_unit_row_t u[N];
    sp_links_pair_row_t p[N * N];
    sp_perf_node_t perf[N];

    (void)state;
    fresh(perf);
    build(&d, u, p, 0);
    assert_int_equal(sp_accept_links_fold(&d, N, 0.5, 1, "a1.h5", perf), SP_OK);
    build(&d, u, p, 1); /* attempt 2 healthy: replaces the slow node's values */
    assert_int_equal(sp_accept_links_fold(&d, N, 0.5, 2, "a2.h5", perf), SP_OK);
    assert_false(perf[4].links_node);
    assert_non_null(strstr(perf[4].links_evidence, "attempt 2"));
    build(&d, u, p, 0); /* attempt 3 slow again: kept out */
    assert_int_equal(sp_accept_links_fold(&d, N, 0.5, 3, "a3.h5", perf), SP_OK);
    assert_false(perf[4].links_node);
    assert_non_null(strstr(perf[4].links_evidence, "attempt 2"));
    d.nunits = 1;
    assert_int_equal(sp_accept_links_fold(&d, N, 0.5, 4, "a4.h5", perf), SP_ERR_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slow_node_and_link),
        cmocka_unit_test(test_attempts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* compare's checks that runs are comparable (issue 14): a different timing method (/config
 * method; a file without it used the default) refuses, a different batch size k at a point
 * warns; both name the two files. Sides built in memory. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "compare_internal.h"

static run_t runs[2][2];
static metric_t metric[2][2];
static side_t sides[2];

static void setup_sides(void)
{
    memset(runs, 0, sizeof(runs));
    memset(metric, 0, sizeof(metric));
    for (int s = 0; s < 2; s++) {
        for (int i = 0; i < 2; i++) {
            run_t *r = &runs[s][i];
            snprintf(r->rd.path, sizeof(r->rd.path), "%c%d.h5", s ? 'B' : 'A', i + 1);
            snprintf(r->method, sizeof(r->method), "default");
            snprintf(metric[s][i].label, sizeof(metric[s][i].label), "all_reduce 65536 B");
            metric[s][i].batch = 1;
            r->ms.m = &metric[s][i];
            r->ms.n = 1;
        }
        sides[s].runs = runs[s];
        sides[s].n = 2;
    }
}

static void test_same(void **state)
{
    char why[2048];

    (void)state;
    setup_sides();
    sp__cmp_method_difference(sides, 2, why, sizeof(why));
    assert_string_equal(why, "");
    sp__cmp_batch_difference(sides, 2, why, sizeof(why));
    assert_string_equal(why, "");
}

static void test_method_differs(void **state)
{
    char why[2048];

    (void)state;
    setup_sides();
    snprintf(runs[1][1].method, sizeof(runs[1][1].method), "osu");
    sp__cmp_method_difference(sides, 2, why, sizeof(why));
    assert_non_null(strstr(why, "different timing methods (A1.h5: default, B2.h5: osu)"));
    /* one side only is checked against A's first run too */
    setup_sides();
    snprintf(runs[0][1].method, sizeof(runs[0][1].method), "nccl-tests");
    sp__cmp_method_difference(sides, 1, why, sizeof(why));
    assert_non_null(strstr(why, "A2.h5: nccl-tests"));
}

static void test_batch_differs(void **state)
{
    char why[2048];

    (void)state;
    setup_sides();
    metric[1][0].batch = 8;
    sp__cmp_batch_difference(sides, 2, why, sizeof(why));
    assert_non_null(strstr(why, "different batch sizes k (A1.h5: 1, B1.h5: 8 at all_reduce"));
    /* a point the other run lacks is not a batch difference */
    setup_sides();
    snprintf(metric[1][0].label, sizeof(metric[1][0].label), "broadcast 65536 B");
    metric[1][0].batch = 8;
    sp__cmp_batch_difference(sides, 2, why, sizeof(why));
    assert_string_equal(why, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same),
        cmocka_unit_test(test_method_differs),
        cmocka_unit_test(test_batch_differs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Fingerprint differences between two runs (fpdiff): the pure key/value comparison and the
 * majority summary of a file's rows. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "fpdiff.h"

static void kv(sp_kv_t *p, const char *k, const char *v)
{
    snprintf(p->key, sizeof(p->key), "%s", k);
    snprintf(p->value, sizeof(p->value), "%s", v);
}

static void test_kv_diff(void **state)
{
    sp_kv_t a[4], b[4];
    sp_fpdiff_t d[8];

    (void)state;
    kv(&a[0], "nodes", "4");
    kv(&a[1], "driver", "550.54");
    kv(&a[2], "nccl", "2.21.5");
    kv(&a[3], "ucx", "1.16.0");
    kv(&b[0], "nodes", "8");
    kv(&b[1], "driver", "550.54");
    kv(&b[2], "nccl", "2.23.4");
    kv(&b[3], "nics", "mlx5_0,mlx5_1");
    assert_int_equal(sp_fpdiff_kv(a, 4, b, 4, d, 8), 4);
    assert_string_equal(d[0].field, "nodes");
    assert_string_equal(d[0].a, "4");
    assert_string_equal(d[0].b, "8");
    assert_string_equal(d[1].field, "nccl");
    assert_string_equal(d[1].b, "2.23.4");
    assert_string_equal(d[2].field, "ucx");
    assert_string_equal(d[2].b, "none");
    assert_string_equal(d[3].field, "nics");
    assert_string_equal(d[3].a, "none");
    /* the count is complete even when out is short */
    assert_int_equal(sp_fpdiff_kv(a, 4, b, 4, d, 1), 4);
    assert_int_equal(sp_fpdiff_kv(a, 4, a, 4, d, 8), 0);
    assert_int_equal(sp_fpdiff_kv(NULL, 0, NULL, 0, d, 8), 0);
}

static void test_summary_rows(void **state)
{
    sp_fp_rank_t rows[6];
    sp_kv_t out[64];
    const char *driver = NULL, *nodes = NULL;
    int n;

    (void)state;
    memset(rows, 0, sizeof(rows));
    for (int i = 0; i < 6; i++) {
        rows[i].rank = i;
        rows[i].node = i / 2;
        snprintf(rows[i].driver, sizeof(rows[i].driver), "%s", i >= 4 ? "560.1" : "550.54");
        rows[i].differs = 1; /* stale flags in the input are neither used nor changed */
    }
    n = sp_fpdiff_summary_rows(rows, 6, out, 64);
    assert_true(n > 2);
    for (int i = 0; i < n; i++) {
        if (strcmp(out[i].key, "driver") == 0) {
            driver = out[i].value;
        } else if (strcmp(out[i].key, "nodes") == 0) {
            nodes = out[i].value;
        }
    }
    assert_non_null(driver);
    assert_string_equal(driver, "550.54");
    assert_string_equal(nodes, "3");
    assert_int_equal(rows[0].differs, 1);
}

static void test_listed(void **state)
{
    (void)state;
    assert_true(sp_fpdiff_listed("kernel,driver", "driver"));
    assert_true(sp_fpdiff_listed("kernel,driver", "kernel"));
    assert_false(sp_fpdiff_listed("cuda_driver", "driver"));
    assert_false(sp_fpdiff_listed("", "driver"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kv_diff),
        cmocka_unit_test(test_summary_rows),
        cmocka_unit_test(test_listed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

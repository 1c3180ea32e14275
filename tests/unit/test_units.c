/* Unit tests of src/base/units.h: the units read off column names, for the columns the result
 * file and the CSV export have, including the names that end like another unit's tail. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "units.h"

static void test_column_units(void **state)
{
    /* written out by hand from docs/SCHEMA.md ("Units and descriptions") */
    static const struct {
        const char *column;
        const char *units;
    } rows[] = {
        {"time_us", "us"},
        {"ci_lo_us", "us"},
        {"step_ms", "ms"},
        {"start_ns", "ns"},
        {"elapsed_s", "s"},
        {"time_s", "s"},
        {"busbw_gbps", "GB/s"},
        {"algbw_gbps", "GB/s"},
        {"bytes", "bytes"},
        {"bucket_mib", "MiB"},
        {"mem_gib", "GiB"},
        {"tflops", "TFLOP/s"},
        {"peak_tflops", "TFLOP/s"},
        {"flops", "FLOP"},
        {"flops_per_step", "FLOP"},
        {"bubble_frac", "fraction"},
        {"predicted_frac", "fraction"},
        {"ci_rel", "fraction"},
        {"trend_rel", "fraction"},
        {"dp_overlap", "fraction"},
        {"late_p", "probability"},
        {"trend_p", "probability"},
        {"rank", ""},
        {"op", ""},
        {"samples", ""},
        {"dp", ""},
        {"tp", ""},
        {"step", ""},
        {"in_place", ""},
        {"n_eff", ""},
        {"", ""},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        const char *got = sp_units_of(rows[i].column);
        if (strcmp(got, rows[i].units) != 0) {
            fail_msg("units of '%s': got '%s', want '%s'", rows[i].column, got, rows[i].units);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_column_units),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

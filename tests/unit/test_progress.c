/* The progress line's text (src/runtime/progress.c) and the live table's time units
 * (collectives/coll_table.c): counts, elapsed, ETA, last item, when it is drawn at all; bare
 * microseconds below 1 ms, ms and s above, every column the same width. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "coll_table.h"
#include "progress.h"

static void test_format(void **state)
{
    char line[256];

    (void)state;
    sp_progress_format(3, 10, "point", 6.0, "all_reduce 64 MiB float", 0.0, line, sizeof(line));
    /* 2 s per item so far, 7 items left */
    assert_string_equal(line, "[3/10 points] all_reduce 64 MiB float  elapsed 6.00 s  ETA 14.0 s");
    sp_progress_format(4, 40, "step", 90.0, "done", 2.5, line, sizeof(line));
    assert_string_equal(line, "[4/40 steps] done  elapsed 1m30s  ETA 13m30s  last 2.50 s");
    /* nothing done yet: no ETA; no total: no ETA and no "/total" */
    sp_progress_format(0, 10, "point", 1.0, "x", 0.0, line, sizeof(line));
    assert_non_null(strstr(line, "ETA ?"));
    sp_progress_format(5, 0, "step", 1.0, "x", 0.0, line, sizeof(line));
    assert_string_equal(line, "[5 steps] x  elapsed 1.00 s  ETA ?");
}

static void test_duration(void **state)
{
    char d[32];

    (void)state;
    sp_progress_duration(0.84, d, sizeof(d));
    assert_string_equal(d, "0.84 s");
    sp_progress_duration(245.0, d, sizeof(d));
    assert_string_equal(d, "4m05s");
    sp_progress_duration(7620.0, d, sizeof(d));
    assert_string_equal(d, "2h07m");
    sp_progress_duration(-1.0, d, sizeof(d));
    assert_string_equal(d, "?");
}

static void test_wanted(void **state)
{
    (void)state;
    assert_true(sp_progress_wanted(0, 0, 1));
    assert_false(sp_progress_wanted(0, 0, 0)); /* piped or a file */
    assert_false(sp_progress_wanted(0, 1, 1)); /* --quiet */
    assert_false(sp_progress_wanted(1, 0, 1)); /* rank 0 only */
}

static void test_time_units(void **state)
{
    char t[32];

    (void)state;
    sp_format_time_us(12.345, 7, t, sizeof(t));
    assert_string_equal(t, "12.35");
    sp_format_time_us(999.5, 7, t, sizeof(t));
    assert_string_equal(t, "999.50");
    sp_format_time_us(1234.5, 7, t, sizeof(t));
    assert_string_equal(t, "1.23ms");
    sp_format_time_us(56789.0, 7, t, sizeof(t));
    assert_string_equal(t, "56.79ms");
    sp_format_time_us(987654.0, 7, t, sizeof(t));
    assert_string_equal(t, "987.7ms");
    sp_format_time_us(1.5e6, 7, t, sizeof(t));
    assert_string_equal(t, "1.50s");
    sp_format_time_us(4.2e7, 7, t, sizeof(t));
    assert_string_equal(t, "42.00s");
    sp_format_time_us(1.2e9, 7, t, sizeof(t));
    assert_true(strlen(t) <= 7);
}

/* Lines with times of 8 us, 12 ms and 1.5 s: every column ends where the header's does. */
static void test_table_aligned(void **state)
{
    const double times[] = {8.0, 12345.0, 1.5e6};
    char buf[4096];
    char *lines[3];
    FILE *f = fmemopen(buf, sizeof(buf), "w");

    (void)state;
    assert_non_null(f);
    for (size_t i = 0; i < 3; i++) {
        sp_coll_row_t r;
        memset(&r, 0, sizeof(r));
        r.bytes = 1024;
        r.count = 256;
        r.time_us = times[i];
        r.algbw_gbps = r.busbw_gbps = 1.0;
        r.late_rank = -1;
        r.converged = 1;
        sp_coll_table_line(f, &r, &r);
    }
    fclose(f);
    lines[0] = strtok(buf, "\n");
    lines[1] = strtok(NULL, "\n");
    lines[2] = strtok(NULL, "\n");
    assert_non_null(lines[2]);
    assert_non_null(strstr(lines[1], "12.35ms"));
    assert_non_null(strstr(lines[2], "  1.50s"));
    assert_int_equal(strlen(lines[0]), strlen(lines[1]));
    assert_int_equal(strlen(lines[0]), strlen(lines[2]));
    /* the algbw column starts at the same place in every line */
    assert_int_equal(strstr(lines[0], "1.00") - lines[0], strstr(lines[1], "1.00") - lines[1]);
    assert_int_equal(strstr(lines[0], "1.00") - lines[0], strstr(lines[2], "1.00") - lines[2]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_duration),
        cmocka_unit_test(test_wanted),
        cmocka_unit_test(test_time_units),
        cmocka_unit_test(test_table_aligned),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}

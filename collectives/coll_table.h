/* The nccl-tests-style sweep table, printed live by `coll` and again by `report` from the file:
 * one formatter for both, so the two never drift apart. */
#ifndef SP_COLL_TABLE_H
#define SP_COLL_TABLE_H

#include <stdio.h>

#include "coll_result.h"

/* Header lines for one collective's table (nccl-tests' columns, then scaleprobe's CI and
 * late-rank (`slow`, by arrival) columns). */
void sp_coll_table_header(FILE *out, const char *coll_name);

/* One line for a size: out-of-place and in-place rows; either may be NULL (printed as "-"). */
void sp_coll_table_line(FILE *out, const sp_coll_row_t *out_row, const sp_coll_row_t *in_row);

/* Format v in at most width characters as nccl-tests does (%.2f, then %.1f, %.0f, %.1e). */
void sp_format_number(double v, int width, char *out, size_t outlen);

/* Format a time in microseconds in at most width characters: bare microseconds below 1 ms
 * (as sp_format_number), else with its unit: "12.35ms", "1.234s". */
void sp_format_time_us(double us, int width, char *out, size_t outlen);

/* Totals over printed rows, for the footer. */
typedef struct {
    double busbw_sum;
    long busbw_n;
    long rows;
    long not_converged;
    long drifting; /* points flagged as drifting (counted in not_converged too) */
    long long wrong;
    int checked;
    int nranks;
} sp_coll_totals_t;

void sp_coll_totals_add(sp_coll_totals_t *t, const sp_coll_row_t *row);

/* Footer lines: wrong values, average bus bandwidth, convergence. */
void sp_coll_table_footer(FILE *out, const sp_coll_totals_t *t);

#endif

/* The proxy's tables, printed live by `proxy` and again by `report` from the file: one formatter
 * for both. */
#ifndef SP_PROXY_TABLE_H
#define SP_PROXY_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "proxy_result.h"

/* One line per measured step over rows[0..n) (every rank's row of that step). */
void sp_proxy_table_header(FILE *out);
void sp_proxy_table_step(FILE *out, const sp_proxy_rank_row_t *rows, size_t n);

/* Over all steps: step time (median and mean with dependence-aware 95% CIs, a drift warning),
 * tokens/s over the mean step with its CI, schedule efficiency (against --tflops), MFU only
 * against a hardware peak (--peak-tflops); per stage the bubble against the
 * prediction, its split by phase, exposed communication and overlap per lane, compute slowdown
 * under overlap; the rank and step with the most compute time against its stage's mean. */
void sp_proxy_table_summary(FILE *out, const sp_proxy_info_t *info, const sp_proxy_rank_row_t *rows,
                            size_t n);

#endif

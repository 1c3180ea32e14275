/* The proxy's per-stage table, printed live by `proxy` and again by `report` from the file: one
 * formatter for both. */
#ifndef SP_PROXY_TABLE_H
#define SP_PROXY_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "result.h"

void sp_proxy_table_header(FILE *out);
void sp_proxy_table_rows(FILE *out, const sp_proxy_stage_row_t *rows, size_t n);

/* Per stage over all steps: median step time, mean bubble fraction against the mean prediction. */
void sp_proxy_table_summary(FILE *out, const sp_proxy_stage_row_t *rows, size_t n, int stages);

#endif

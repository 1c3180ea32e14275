/* Data patterns that make verification exact by construction: every input value is a small
 * integer, and reduction inputs are sparse enough that every partial result stays exactly
 * representable in the data type, whatever order the reduction runs in. Expected outputs are
 * closed forms, so a rank checks its output in O(count) without knowing other ranks' data. */
#ifndef SP_PATTERN_H
#define SP_PATTERN_H

#include <stddef.h>

#include "dtype.h"

/* Contribution of rank r to element g of a reduction over nranks ranks. */
double sp_pattern_red_input(sp_redop_t redop, sp_dtype_t dtype, int nranks, int r, size_t g);

/* Exact result of reducing element g over all nranks ranks (avg already divided). */
double sp_pattern_red_expected(sp_redop_t redop, sp_dtype_t dtype, int nranks, size_t g);

/* Value that rank src contributes at global index g in a data-movement collective. Integers in
 * [0, 96], exact in every type. */
double sp_pattern_data(int src, size_t g);

/* Write sp_pattern_red_input / sp_pattern_data for g = g0 .. g0+count-1 into buf. */
void sp_pattern_fill_red(void *buf, sp_dtype_t dtype, sp_redop_t redop, int nranks, int r,
                         size_t g0, size_t count);
void sp_pattern_fill_data(void *buf, sp_dtype_t dtype, int src, size_t g0, size_t count);

#endif

/* Exact-by-construction data patterns (see pattern.h). The spacing S spreads non-zero
 * contributions so that at most E ranks contribute to an element, with E chosen from the type's
 * exact range: the largest possible partial result stays exact. */
#include "pattern.h"

#include <math.h>

/* Ranks r in [0, nranks) with (r + g) % S == 0 are r0 + j*S, j = 0..c-1; returns c. */
static size_t selected_count(int nranks, size_t spacing, size_t g)
{
    size_t r0 = (spacing - g % spacing) % spacing;

    return r0 < (size_t)nranks ? ((size_t)nranks - 1 - r0) / spacing + 1 : 0;
}

static size_t spacing_for(int nranks, double max_contributors)
{
    size_t e = max_contributors < 1.0 ? 1 : (size_t)max_contributors;

    return ((size_t)nranks + e - 1) / e;
}

static size_t sum_spacing(sp_dtype_t dtype, int nranks)
{
    /* each contribution is at most 2, so E = L/2 contributors keep every partial sum <= L */
    return spacing_for(nranks, floor(sp_dtype_exact_limit(dtype) / 2.0));
}

static size_t prod_spacing(sp_dtype_t dtype, int nranks)
{
    /* each contribution is 1 or 2, so E = max_pow2 contributors keep every product exact */
    return spacing_for(nranks, (double)sp_dtype_max_pow2(dtype));
}

static size_t minmax_modulus(int nranks)
{
    return nranks < 64 ? (size_t)nranks : 64;
}

double sp_pattern_red_input(sp_redop_t redop, sp_dtype_t dtype, int nranks, int r, size_t g)
{
    size_t s;

    switch (redop) {
    case SP_REDOP_SUM:
    case SP_REDOP_AVG:
        s = sum_spacing(dtype, nranks);
        if (((size_t)r + g) % s != 0) {
            return 0.0;
        }
        return 1.0 + (double)(((size_t)r / s + g) % 2);
    case SP_REDOP_PROD:
        s = prod_spacing(dtype, nranks);
        return (((size_t)r + g) % s == 0 && ((size_t)r / s + g) % 2 == 0) ? 2.0 : 1.0;
    case SP_REDOP_MAX:
    case SP_REDOP_MIN:
    default:
        return (double)(g % 17 + ((size_t)r + g) % minmax_modulus(nranks));
    }
}

double sp_pattern_red_expected(sp_redop_t redop, sp_dtype_t dtype, int nranks, size_t g)
{
    size_t s;
    size_t c;

    switch (redop) {
    case SP_REDOP_SUM:
    case SP_REDOP_AVG: {
        double sum;
        s = sum_spacing(dtype, nranks);
        c = selected_count(nranks, s, g);
        /* sum of 1 + (j+g)%2 over j < c */
        sum = (double)(c + (g % 2 == 0 ? c / 2 : (c + 1) / 2));
        return redop == SP_REDOP_AVG ? sp_redop_avg_finish(dtype, sum, nranks) : sum;
    }
    case SP_REDOP_PROD:
        s = prod_spacing(dtype, nranks);
        c = selected_count(nranks, s, g);
        /* a factor 2 for every j < c with (j+g) even */
        return ldexp(1.0, (int)(g % 2 == 0 ? (c + 1) / 2 : c / 2));
    case SP_REDOP_MAX:
        return (double)(g % 17 + minmax_modulus(nranks) - 1);
    case SP_REDOP_MIN:
    default:
        return (double)(g % 17);
    }
}

double sp_pattern_data(int src, size_t g)
{
    return (double)(((size_t)src % 97 * 31 + g % 97 * 7 + 3) % 97);
}

void sp_pattern_fill_red(void *buf, sp_dtype_t dtype, sp_redop_t redop, int nranks, int r,
                         size_t g0, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        sp_dtype_set(dtype, buf, i, sp_pattern_red_input(redop, dtype, nranks, r, g0 + i));
    }
}

void sp_pattern_fill_data(void *buf, sp_dtype_t dtype, int src, size_t g0, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        sp_dtype_set(dtype, buf, i, sp_pattern_data(src, g0 + i));
    }
}

/* Data patterns that make verification exact by construction: every input value is a small
 * integer, and reduction inputs are sparse enough that every partial result stays exactly
 * representable in the data type, whatever order the reduction runs in. Expected outputs are
 * closed forms, so a rank checks its output in O(count) without knowing other ranks' data.
 *
 * A pattern is a small descriptor (sp_pattern_t) evaluated by inline functions that CUDA
 * kernels compile too: the host and the GPU fill and check with the same formulas. */
#ifndef SP_PATTERN_H
#define SP_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#include "dtype.h"

typedef struct {
    int is_red;            /* reduction values (else data-movement values) */
    int redop;             /* sp_redop_t, reductions */
    int dtype;             /* sp_dtype_t */
    int nranks;
    uint64_t sum_spacing;  /* S for sum/avg: ranks with (r + g) % S == 0 contribute */
    uint64_t prod_spacing; /* S for prod */
    uint64_t minmax_mod;   /* min(nranks, 64) */
    int src;               /* input: this rank; output: the source rank when block == 0 */
    uint64_t block;        /* output of data movement: element i comes from rank i / block */
    uint64_t g_offset;     /* global index of element 0 (output: of the block) */
} sp_pattern_t;

/* This rank's input of a reduction (is_red) or a data movement: element i has index g = i. */
void sp_pattern_input(sp_pattern_t *p, int is_red, sp_redop_t redop, sp_dtype_t dtype,
                      int nranks, int rank);

/* Output of a reduction: element i is the reduction of index g_offset + i over all ranks. */
void sp_pattern_output_red(sp_pattern_t *p, sp_redop_t redop, sp_dtype_t dtype, int nranks,
                           uint64_t g_offset);

/* Output of a data movement: element i comes from rank (block ? i / block : src), index
 * g_offset + (block ? i % block : i). */
void sp_pattern_output_data(sp_pattern_t *p, sp_dtype_t dtype, int nranks, int src,
                            uint64_t block, uint64_t g_offset);

/* Fill buf[0..count) with the input pattern; count elements of output that differ. */
void sp_pattern_fill(const sp_pattern_t *p, void *buf, size_t count);
uint64_t sp_pattern_check(const sp_pattern_t *p, const void *buf, size_t count);

/* ---- the formulas, inline for host and device ---- */

/* Value that rank src contributes at global index g in a data-movement collective. Integers in
 * [0, 96], exact in every type. */
static inline SP_HOSTDEV double sp_pattern_data(int src, uint64_t g)
{
    return (double)(((uint64_t)src % 97 * 31 + g % 97 * 7 + 3) % 97);
}

/* Ranks r in [0, nranks) with (r + g) % S == 0 are r0 + j*S, j = 0..c-1; returns c. */
static inline SP_HOSTDEV uint64_t sp__pattern_selected(int nranks, uint64_t spacing, uint64_t g)
{
    uint64_t r0 = (spacing - g % spacing) % spacing;

    return r0 < (uint64_t)nranks ? ((uint64_t)nranks - 1 - r0) / spacing + 1 : 0;
}

/* Contribution of rank r to element g of a reduction. */
static inline SP_HOSTDEV double sp_pattern_red_input(const sp_pattern_t *p, int r, uint64_t g)
{
    uint64_t s;

    switch (p->redop) {
    case 0: /* sum */
    case 4: /* avg */
    case 5: /* premulsum: the unscaled input; the operator scales it */
        s = p->sum_spacing;
        if (((uint64_t)r + g) % s != 0) {
            return 0.0;
        }
        return 1.0 + (double)(((uint64_t)r / s + g) % 2);
    case 1: /* prod */
        s = p->prod_spacing;
        return (((uint64_t)r + g) % s == 0 && ((uint64_t)r / s + g) % 2 == 0) ? 2.0 : 1.0;
    default: /* max, min */
        return (double)(g % 17 + ((uint64_t)r + g) % p->minmax_mod);
    }
}

/* premulsum of element g: the ranks r0 + j*S (j < c) contribute a_j * b_j, with the scalar
 * a_j = 1 + (r0 + j*S) % 2 (sp_redop_premul_scalar) and the input b_j = 1 + (j + g) % 2. */
static inline SP_HOSTDEV double sp__pattern_premulsum(const sp_pattern_t *p, uint64_t g)
{
    uint64_t s = p->sum_spacing;
    uint64_t c = sp__pattern_selected(p->nranks, s, g);
    uint64_t r0 = (s - g % s) % s;
    uint64_t b_twos = g % 2 == 0 ? c / 2 : (c + 1) / 2; /* j < c with (j + g) odd */

    if (s % 2 == 0) {
        return (double)((1 + r0 % 2) * (c + b_twos)); /* every contributor's rank has r0's parity */
    }
    if (r0 % 2 == g % 2) {
        return (double)(c + 3 * b_twos); /* a_j == b_j: 1*1 or 2*2 */
    }
    return (double)(2 * c); /* a_j != b_j: 1*2 or 2*1 */
}

/* Exact result of reducing element g over all ranks (avg already divided). */
static inline SP_HOSTDEV double sp_pattern_red_expected(const sp_pattern_t *p, uint64_t g)
{
    uint64_t c;

    switch (p->redop) {
    case 0:
    case 4: {
        double sum;
        c = sp__pattern_selected(p->nranks, p->sum_spacing, g);
        /* sum of 1 + (j+g)%2 over j < c */
        sum = (double)(c + (g % 2 == 0 ? c / 2 : (c + 1) / 2));
        return p->redop == 4 ? sp_redop_avg_finish(p->dtype, sum, p->nranks) : sum;
    }
    case 5:
        return sp__pattern_premulsum(p, g);
    case 1:
        c = sp__pattern_selected(p->nranks, p->prod_spacing, g);
        /* a factor 2 for every j < c with (j+g) even */
        return ldexp(1.0, (int)(g % 2 == 0 ? (c + 1) / 2 : c / 2));
    case 2: /* max */
        return (double)(g % 17 + p->minmax_mod - 1);
    default: /* min */
        return (double)(g % 17);
    }
}

/* Input element i (index g = i) of this rank (p->src). */
static inline SP_HOSTDEV double sp_pattern_input_at(const sp_pattern_t *p, uint64_t i)
{
    return p->is_red ? sp_pattern_red_input(p, p->src, i) : sp_pattern_data(p->src, i);
}

/* Expected output element i, before the fp8 rounding below. */
static inline SP_HOSTDEV double sp__pattern_output_exact(const sp_pattern_t *p, uint64_t i)
{
    if (p->is_red) {
        return sp_pattern_red_expected(p, p->g_offset + i);
    }
    if (p->block > 0) {
        return sp_pattern_data((int)(i / p->block), p->g_offset + i % p->block);
    }
    return sp_pattern_data(p->src, p->g_offset + i);
}

/* Expected output element i. The fp8 types (10, 11) store only integers up to 16 (e4m3) and 8
 * (e5m2) exactly: data values (0..96) and min/max values are rounded when filled, and since
 * rounding is monotonic, a correct min or max of rounded inputs is the rounded min or max;
 * sums and products stay exact by the spacing (pattern.c). */
static inline SP_HOSTDEV double sp_pattern_output_at(const sp_pattern_t *p, uint64_t i)
{
    double v = sp__pattern_output_exact(p, i);

    return p->dtype >= 10 ? sp_dtype_round(p->dtype, v) : v;
}

#endif

/* Pattern descriptors (see pattern.h). The spacing S spreads non-zero contributions so that at
 * most E ranks contribute to an element, with E chosen from the type's exact range: the largest
 * possible partial result stays exact. */
#include "pattern.h"

#include <math.h>
#include <string.h>

static uint64_t spacing_for(int nranks, double max_contributors)
{
    uint64_t e = max_contributors < 1.0 ? 1 : (uint64_t)max_contributors;

    return ((uint64_t)nranks + e - 1) / e;
}

static void init_common(sp_pattern_t *p, int is_red, sp_redop_t redop, sp_dtype_t dtype,
                        int nranks)
{
    memset(p, 0, sizeof(*p));
    p->is_red = is_red;
    p->redop = (int)redop;
    p->dtype = (int)dtype;
    p->nranks = nranks;
    /* sum: each contribution is at most 2, so E = L/2 contributors keep partial sums <= L;
     * premulsum's contributions are at most 2 * 2 (input times scalar), so E = L/4 */
    p->sum_spacing = spacing_for(nranks, floor(sp_dtype_exact_limit(dtype) /
                                               (redop == SP_REDOP_PREMULSUM ? 4.0 : 2.0)));
    /* prod: each contribution is 1 or 2, so E = max_pow2 contributors keep products exact */
    p->prod_spacing = spacing_for(nranks, (double)sp_dtype_max_pow2(dtype));
    p->minmax_mod = nranks < 64 ? (uint64_t)nranks : 64;
}

void sp_pattern_input(sp_pattern_t *p, int is_red, sp_redop_t redop, sp_dtype_t dtype,
                      int nranks, int rank)
{
    init_common(p, is_red, redop, dtype, nranks);
    p->src = rank;
}

void sp_pattern_output_red(sp_pattern_t *p, sp_redop_t redop, sp_dtype_t dtype, int nranks,
                           uint64_t g_offset)
{
    init_common(p, 1, redop, dtype, nranks);
    p->g_offset = g_offset;
}

void sp_pattern_output_data(sp_pattern_t *p, sp_dtype_t dtype, int nranks, int src,
                            uint64_t block, uint64_t g_offset)
{
    init_common(p, 0, SP_REDOP_SUM, dtype, nranks);
    p->src = src;
    p->block = block;
    p->g_offset = g_offset;
}

void sp_pattern_fill(const sp_pattern_t *p, void *buf, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        sp_dtype_set(p->dtype, buf, i, sp_pattern_input_at(p, i));
    }
}

uint64_t sp_pattern_check(const sp_pattern_t *p, const void *buf, size_t count)
{
    uint64_t wrong = 0;

    for (size_t i = 0; i < count; i++) {
        /* != on doubles: every expected value is exact, and NaN counts as wrong */
        if (!(sp_dtype_get(p->dtype, buf, i) == sp_pattern_output_at(p, i))) {
            wrong++;
        }
    }
    return wrong;
}

/* Bounded median (see sketch.h). */
#include "sketch.h"

#include "lateness.h"

#include <stdlib.h>
#include <string.h>

#define SUB (1 << SP_SKETCH_SUB_BITS)

static size_t bin_of(int64_t v)
{
    int e;

    if (v < SUB) {
        return (size_t)v;
    }
    e = 63 - __builtin_clzll((unsigned long long)v); /* >= SP_SKETCH_SUB_BITS */
    return (size_t)SUB + (size_t)(e - SP_SKETCH_SUB_BITS) * SUB +
           (size_t)(((uint64_t)v >> (e - SP_SKETCH_SUB_BITS)) & (SUB - 1));
}

/* The midpoint of bin b (its only value below SUB). */
static int64_t bin_value(size_t b)
{
    size_t shift;
    uint64_t low;

    if (b < SUB) {
        return (int64_t)b;
    }
    shift = (b - SUB) / SUB;
    low = ((uint64_t)SUB + (b - SUB) % SUB) << shift;
    return (int64_t)(low + ((1ull << shift) >> 1));
}

void sp_sketch_init(sp_sketch_t *s, size_t cap)
{
    memset(s, 0, sizeof(*s));
    s->cap = cap;
}

void sp_sketch_free(sp_sketch_t *s)
{
    free(s->vals);
    free(s->bins);
    s->vals = NULL;
    s->bins = NULL;
    s->nvals = s->room = 0;
    s->total = 0;
}

int sp_sketch_exact(const sp_sketch_t *s)
{
    return s->bins == NULL;
}

/* From exact values to the histogram, for good. */
static sp_status_t to_bins(sp_sketch_t *s)
{
    s->bins = calloc(SP_SKETCH_BINS, sizeof(*s->bins));
    if (s->bins == NULL) {
        return SP_ERR_NOMEM;
    }
    for (size_t i = 0; i < s->nvals; i++) {
        s->bins[bin_of(s->vals[i])]++;
    }
    free(s->vals);
    s->vals = NULL;
    s->nvals = s->room = 0;
    return SP_OK;
}

sp_status_t sp_sketch_add(sp_sketch_t *s, int64_t v)
{
    v = v < 0 ? 0 : v;
    if (s->bins == NULL && s->nvals == s->cap) {
        sp_status_t st = to_bins(s);
        if (st != SP_OK) {
            return st;
        }
    }
    if (s->bins != NULL) {
        s->bins[bin_of(v)]++;
        s->total++;
        return SP_OK;
    }
    if (s->nvals == s->room) {
        size_t room = s->room == 0 ? 16 : 2 * s->room;
        int64_t *grown;

        room = room > s->cap ? s->cap : room;
        grown = realloc(s->vals, room * sizeof(*grown));
        if (grown == NULL) {
            return SP_ERR_NOMEM;
        }
        s->vals = grown;
        s->room = room;
    }
    s->vals[s->nvals++] = v;
    s->total++;
    return SP_OK;
}

/* The value of rank k (0-based) in the histogram. */
static int64_t bins_rank(const sp_sketch_t *s, uint64_t k)
{
    uint64_t seen = 0;

    for (size_t b = 0; b < SP_SKETCH_BINS; b++) {
        seen += s->bins[b];
        if (seen > k) {
            return bin_value(b);
        }
    }
    return bin_value(SP_SKETCH_BINS - 1);
}

sp_status_t sp_sketch_middle(sp_sketch_t *s, int64_t *lo_p, int64_t *hi_p)
{
    if (s->total == 0) {
        return SP_ERR_INVALID;
    }
    if (s->bins != NULL) {
        *lo_p = bins_rank(s, (s->total - 1) / 2);
        *hi_p = bins_rank(s, s->total / 2);
        return SP_OK;
    }
    /* a selection, not a sort: O(n) on the up to 2^20 values of a big file */
    sp_middle_pair_i64(s->vals, s->nvals, lo_p, hi_p);
    return SP_OK;
}

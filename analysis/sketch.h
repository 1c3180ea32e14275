/* A bounded median: the exact values while they fit in a fixed budget, then a log-linear
 * histogram with a stated precision, so a median over 10^9 values costs kilobytes. */
#ifndef SP_SKETCH_H
#define SP_SKETCH_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

/* Values below 2^SP_SKETCH_SUB_BITS fall in bins of width 1 (exact); above, every power of two
 * is cut into 2^SP_SKETCH_SUB_BITS equal bins and a bin stands for its midpoint, so a value
 * read back from the histogram is within 2^-(SP_SKETCH_SUB_BITS + 1) = 0.78% of the true one. */
#define SP_SKETCH_SUB_BITS 6
#define SP_SKETCH_BINS ((64 - SP_SKETCH_SUB_BITS + 1) << SP_SKETCH_SUB_BITS)

typedef struct {
    int64_t *vals;  /* exact values, while total <= cap */
    size_t nvals;
    size_t room;    /* allocated entries of vals (grows by doubling up to cap) */
    size_t cap;     /* exact values kept at most */
    uint64_t *bins; /* SP_SKETCH_BINS counts, once more than cap values were added */
    uint64_t total;
} sp_sketch_t;

/* An empty sketch keeping up to cap exact values (no allocation yet). */
void sp_sketch_init(sp_sketch_t *s, size_t cap);
void sp_sketch_free(sp_sketch_t *s); /* a zeroed or freed sketch is fine */

/* Add v (negative values count as 0). SP_ERR_NOMEM. */
sp_status_t sp_sketch_add(sp_sketch_t *s, int64_t v);

/* The two middle values of the sorted values (equal for an odd count): exact while the sketch
 * holds its values, else bin midpoints. Reorders vals. SP_ERR_INVALID when empty. */
sp_status_t sp_sketch_middle(sp_sketch_t *s, int64_t *lo_p, int64_t *hi_p);

/* 1 when the sketch's figures are exact (no histogram yet). */
int sp_sketch_exact(const sp_sketch_t *s);

#endif

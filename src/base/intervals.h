/* Interval arithmetic on half-open [start, end) nanosecond intervals: unions, covered length,
 * intersections and clipping, the building blocks of the overlap and bubble metrics.
 * An interval with end_ns <= start_ns is empty and is ignored everywhere. */
#ifndef SP_INTERVALS_H
#define SP_INTERVALS_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

typedef struct {
    int64_t start_ns;
    int64_t end_ns;
} sp_interval_t;

/* A "union list" below is what sp_intervals_union produces: non-empty intervals, sorted by
 * start, pairwise disjoint and not touching. Lengths are int64 nanoseconds; intervals are
 * assumed to span less than 2^63 ns in total (about 292 years), so nothing overflows. */

/* Merge in[0..n) (any order, overlapping, touching or nested, empty ones allowed) into a union
 * list in out. out must have room for n intervals; it may be the same array as in (in place),
 * but must not partially overlap it. Allocates nothing.
 * Returns SP_ERR_INVALID for NULL pointers (in and out may be NULL when n is 0); *nout_p is set
 * to the number of intervals written only on success. */
sp_status_t sp_intervals_union(const sp_interval_t *in, size_t n, sp_interval_t *out,
                               size_t *nout_p);

/* Total length covered by a union list (for a list with overlaps, overlaps count twice).
 * Empty intervals contribute 0. */
int64_t sp_intervals_length(const sp_interval_t *u, size_t n);

/* Length of the intersection of two union lists, by one linear merge: O(na + nb). */
int64_t sp_intervals_intersect_length(const sp_interval_t *a, size_t na, const sp_interval_t *b,
                                      size_t nb);

/* Clip every interval of list[0..n) to [lo_ns, hi_ns) in place, dropping those that become
 * empty and keeping the order of the others (a union list stays a union list). Returns the new
 * count; everything is dropped when hi_ns <= lo_ns. */
size_t sp_intervals_clip(sp_interval_t *list, size_t n, int64_t lo_ns, int64_t hi_ns);

#endif

/* Interval arithmetic on [start, end) nanosecond intervals (see intervals.h). */
#include "intervals.h"

#include <stdlib.h>

static int interval_cmp(const void *pa, const void *pb)
{
    const sp_interval_t *a = pa;
    const sp_interval_t *b = pb;

    if (a->start_ns != b->start_ns) {
        return a->start_ns < b->start_ns ? -1 : 1;
    }
    if (a->end_ns != b->end_ns) {
        return a->end_ns < b->end_ns ? -1 : 1;
    }
    return 0;
}

sp_status_t sp_intervals_union(const sp_interval_t *in, size_t n, sp_interval_t *out,
                               size_t *nout_p)
{
    size_t nvalid = 0;
    size_t nout = 0;

    if (nout_p == NULL || (n > 0 && (in == NULL || out == NULL))) {
        return SP_ERR_INVALID;
    }
    /* Filtering first keeps empty intervals out of the merge; the write index never passes the
     * read index, so this is also safe when out == in. */
    for (size_t i = 0; i < n; i++) {
        if (in[i].end_ns > in[i].start_ns) {
            out[nvalid++] = in[i];
        }
    }
    if (nvalid > 1) {
        qsort(out, nvalid, sizeof(*out), interval_cmp);
    }
    for (size_t i = 0; i < nvalid; i++) {
        /* Touching intervals merge too, so the result has no zero-length gaps. */
        if (nout > 0 && out[i].start_ns <= out[nout - 1].end_ns) {
            if (out[i].end_ns > out[nout - 1].end_ns) {
                out[nout - 1].end_ns = out[i].end_ns;
            }
        } else {
            out[nout++] = out[i];
        }
    }
    *nout_p = nout;
    return SP_OK;
}

int64_t sp_intervals_length(const sp_interval_t *u, size_t n)
{
    int64_t total = 0;

    for (size_t i = 0; i < n; i++) {
        if (u[i].end_ns > u[i].start_ns) {
            total += u[i].end_ns - u[i].start_ns;
        }
    }
    return total;
}

int64_t sp_intervals_intersect_length(const sp_interval_t *a, size_t na, const sp_interval_t *b,
                                      size_t nb)
{
    int64_t total = 0;
    size_t i = 0;
    size_t j = 0;

    while (i < na && j < nb) {
        int64_t lo = a[i].start_ns > b[j].start_ns ? a[i].start_ns : b[j].start_ns;
        int64_t hi = a[i].end_ns < b[j].end_ns ? a[i].end_ns : b[j].end_ns;

        if (hi > lo) {
            total += hi - lo;
        }
        /* The interval that ends first cannot meet anything later in the other list. */
        if (a[i].end_ns < b[j].end_ns) {
            i++;
        } else {
            j++;
        }
    }
    return total;
}

size_t sp_intervals_clip(sp_interval_t *list, size_t n, int64_t lo_ns, int64_t hi_ns)
{
    size_t nout = 0;

    for (size_t i = 0; i < n; i++) {
        sp_interval_t c = list[i];

        if (c.start_ns < lo_ns) {
            c.start_ns = lo_ns;
        }
        if (c.end_ns > hi_ns) {
            c.end_ns = hi_ns;
        }
        if (c.end_ns > c.start_ns) {
            list[nout++] = c;
        }
    }
    return nout;
}

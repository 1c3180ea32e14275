/* Cross-rank matching of collective instances by seq, and arrival skew (see skew.h). */
#include "skew.h"

#include <stdlib.h>

#include "log.h"

/* One coll event, in the order that makes an instance contiguous and its arrivals sorted. */
typedef struct {
    uint64_t seq;
    int64_t start_ns;
    int32_t rank;
    size_t idx; /* into the caller's event array */
} coll_key_t;

static int coll_key_cmp(const void *pa, const void *pb)
{
    const coll_key_t *a = pa;
    const coll_key_t *b = pb;

    if (a->seq != b->seq) {
        return a->seq < b->seq ? -1 : 1;
    }
    if (a->start_ns != b->start_ns) {
        return a->start_ns < b->start_ns ? -1 : 1;
    }
    /* Rank then index make the order total, so ties resolve the same way on every run. */
    if (a->rank != b->rank) {
        return a->rank < b->rank ? -1 : 1;
    }
    if (a->idx != b->idx) {
        return a->idx < b->idx ? -1 : 1;
    }
    return 0;
}

/* The coll events of ev as sorted keys; *keys_p is NULL when there are none. */
static sp_status_t coll_keys_build(const sp_event_rec_t *ev, size_t n, coll_key_t **keys_p,
                                   size_t *nkeys_p)
{
    coll_key_t *keys = NULL;
    size_t nkeys = 0;

    for (size_t i = 0; i < n; i++) {
        nkeys += ev[i].kind == SP_EV_COLL;
    }
    if (nkeys > 0) {
        keys = malloc(nkeys * sizeof(*keys));
        if (keys == NULL) {
            return SP_ERR_NOMEM;
        }
        nkeys = 0;
        for (size_t i = 0; i < n; i++) {
            if (ev[i].kind == SP_EV_COLL) {
                keys[nkeys++] = (coll_key_t){ev[i].seq, ev[i].start_ns, ev[i].rank, i};
            }
        }
        qsort(keys, nkeys, sizeof(*keys), coll_key_cmp);
    }
    *keys_p = keys;
    *nkeys_p = nkeys;
    return SP_OK;
}

/* End (exclusive) of the instance that starts at keys[begin]. */
static size_t instance_end(const coll_key_t *keys, size_t nkeys, size_t begin)
{
    size_t end = begin + 1;

    while (end < nkeys && keys[end].seq == keys[begin].seq) {
        end++;
    }
    return end;
}

sp_status_t sp_skew_match(const sp_event_rec_t *ev, size_t n, int nranks, int64_t err_ns,
                          sp_instance_t **inst_p, size_t *ninst_p)
{
    sp_status_t st;
    coll_key_t *keys = NULL;
    size_t nkeys = 0;
    sp_instance_t *inst = NULL;
    size_t ninst = 0;
    size_t *seen_in = NULL; /* per rank: 1 + index of the last instance it appeared in */

    if (inst_p == NULL || ninst_p == NULL || (ev == NULL && n > 0) || nranks <= 0 || err_ns < 0) {
        return SP_ERR_INVALID;
    }
    st = coll_keys_build(ev, n, &keys, &nkeys);
    if (st != SP_OK) {
        return st;
    }
    if (nkeys == 0) {
        *inst_p = NULL;
        *ninst_p = 0;
        return SP_OK;
    }
    /* At most one instance per key; the array is shrunk to size at the end. */
    inst = malloc(nkeys * sizeof(*inst));
    seen_in = calloc((size_t)nranks, sizeof(*seen_in));
    if (inst == NULL || seen_in == NULL) {
        st = SP_ERR_NOMEM;
        goto free_arrays;
    }
    for (size_t b = 0, e; b < nkeys; b = e) {
        const coll_key_t *first = &keys[b];
        const coll_key_t *last;
        sp_instance_t *in = &inst[ninst];

        e = instance_end(keys, nkeys, b);
        last = &keys[e - 1];
        in->seq = first->seq;
        in->op = ev[first->idx].op;
        in->nops = ev[first->idx].nops;
        for (size_t k = b; k < e; k++) {
            int32_t r = keys[k].rank;

            if (r < 0 || r >= nranks) {
                /* damage in a file: the caller goes on without the timeline's sections */
                sp_warn("timeline: coll event seq %llu has rank %d, outside [0, %d)",
                         (unsigned long long)keys[k].seq, (int)r, nranks);
                st = SP_ERR_INVALID;
                goto free_arrays;
            }
            if (seen_in[r] == ninst + 1) {
                sp_warn("timeline: rank %d has two coll events with seq %llu", (int)r,
                         (unsigned long long)keys[k].seq);
                st = SP_ERR_INVALID;
                goto free_arrays;
            }
            seen_in[r] = ninst + 1;
            /* Ranks that disagree on what the instance was point at a seq mismatch upstream;
             * the timing is still reported, the label says "unknown". */
            if (ev[keys[k].idx].op != in->op) {
                in->op = -1;
            }
            if (ev[keys[k].idx].nops != in->nops) {
                in->nops = -1;
            }
        }
        in->nranks_seen = (int)(e - b);
        in->complete = in->nranks_seen == nranks;
        in->first_rank = first->rank;
        in->last_rank = last->rank;
        in->first_start_ns = first->start_ns;
        in->last_start_ns = last->start_ns;
        in->skew_ns = last->start_ns - first->start_ns;
        in->last_margin_ns = e - b > 1 ? last->start_ns - keys[e - 2].start_ns : 0;
        /* With one rank the margin is 0 and err_ns >= 0, so a lone rank is never "late". */
        in->resolved = in->last_margin_ns > err_ns;
        ninst++;
    }
    if (ninst < nkeys) {
        sp_instance_t *shrunk = realloc(inst, ninst * sizeof(*inst));

        if (shrunk != NULL) { /* a failed shrink leaves the larger block, still valid */
            inst = shrunk;
        }
    }
    *inst_p = inst;
    *ninst_p = ninst;
    inst = NULL;
    st = SP_OK;
free_arrays:
    free(seen_in);
    free(inst);
    free(keys);
    return st;
}

sp_status_t sp_skew_waits(const sp_event_rec_t *ev, size_t n, int64_t *wait_ns)
{
    sp_status_t st;
    coll_key_t *keys = NULL;
    size_t nkeys = 0;

    if (n > 0 && (ev == NULL || wait_ns == NULL)) {
        return SP_ERR_INVALID;
    }
    st = coll_keys_build(ev, n, &keys, &nkeys);
    if (st != SP_OK) {
        return st;
    }
    for (size_t i = 0; i < n; i++) {
        wait_ns[i] = -1;
    }
    for (size_t b = 0, e; b < nkeys; b = e) {
        e = instance_end(keys, nkeys, b);
        for (size_t k = b; k < e; k++) {
            wait_ns[keys[k].idx] = keys[e - 1].start_ns - keys[k].start_ns;
        }
    }
    free(keys);
    return SP_OK;
}

sp_status_t sp_skew_node_lateness(const sp_event_rec_t *ev, size_t n, const int *node_of,
                                  int nranks, int nnodes, int64_t err_ns, uint64_t *last_count,
                                  int64_t *late_ns, size_t *resolved_p)
{
    coll_key_t *keys = NULL;
    size_t nkeys = 0, resolved = 0;
    int64_t *ready = NULL;
    int *touched = NULL;
    sp_status_t st;

    if (node_of == NULL || last_count == NULL || late_ns == NULL || resolved_p == NULL ||
        nnodes < 1 || (n > 0 && ev == NULL)) {
        return SP_ERR_INVALID;
    }
    for (int r = 0; r < nranks; r++) {
        if (node_of[r] < 0 || node_of[r] >= nnodes) {
            return SP_ERR_INVALID;
        }
    }
    st = coll_keys_build(ev, n, &keys, &nkeys);
    if (st != SP_OK) {
        return st;
    }
    ready = malloc((size_t)nnodes * sizeof(*ready));
    touched = malloc((size_t)nnodes * sizeof(*touched));
    if (ready == NULL || touched == NULL) {
        free(keys);
        free(ready);
        free(touched);
        return SP_ERR_NOMEM;
    }
    for (int i = 0; i < nnodes; i++) {
        ready[i] = INT64_MIN;
        last_count[i] = 0;
        late_ns[i] = 0;
    }
    for (size_t b = 0, e; b < nkeys; b = e) {
        int nt = 0, last = -1, second = -1;
        e = instance_end(keys, nkeys, b);
        for (size_t k = b; k < e; k++) {
            int r = keys[k].rank;
            int node = r >= 0 && r < nranks ? node_of[r] : -1;
            if (node < 0) {
                continue;
            }
            if (ready[node] == INT64_MIN) {
                touched[nt++] = node;
            }
            ready[node] = keys[k].start_ns > ready[node] ? keys[k].start_ns : ready[node];
        }
        for (int t = 0; t < nt; t++) {
            int node = touched[t];
            if (last < 0 || ready[node] > ready[last]) {
                second = last;
                last = node;
            } else if (second < 0 || ready[node] > ready[second]) {
                second = node;
            }
        }
        if (second >= 0 && ready[last] - ready[second] > err_ns) {
            last_count[last]++;
            late_ns[last] += ready[last] - ready[second];
            resolved++;
        }
        for (int t = 0; t < nt; t++) {
            ready[touched[t]] = INT64_MIN;
        }
    }
    free(keys);
    free(ready);
    free(touched);
    *resolved_p = resolved;
    return SP_OK;
}

/* Close the point accumulated in acc into points[*np], if it has samples. */
static void point_close(sp_late_acc_t *acc, sp_late_t *points, size_t *np)
{
    if (acc->samples > 0) {
        sp_late_result(acc, &points[(*np)++]);
        sp_late_reset(acc);
    }
}

sp_status_t sp_skew_point_lateness(const sp_event_rec_t *ev, size_t n, int nranks, int64_t err_ns,
                                   sp_late_t **points_p, size_t *npoints_p)
{
    coll_key_t *keys = NULL;
    size_t nkeys = 0, np = 0;
    sp_late_t *points = NULL;
    int64_t *arrival = NULL;
    int64_t batch_ns;
    sp_late_acc_t acc;
    sp_status_t st;

    if (points_p == NULL || npoints_p == NULL || (ev == NULL && n > 0) || nranks <= 0 ||
        err_ns < 0) {
        return SP_ERR_INVALID;
    }
    st = coll_keys_build(ev, n, &keys, &nkeys);
    if (st != SP_OK) {
        return st;
    }
    st = sp_late_init(&acc, nranks, err_ns);
    if (st != SP_OK) {
        goto free_keys;
    }
    /* at most one point per instance */
    points = nkeys > 0 ? malloc(nkeys * sizeof(*points)) : NULL;
    arrival = malloc((size_t)nranks * sizeof(*arrival));
    if ((nkeys > 0 && points == NULL) || arrival == NULL) {
        st = SP_ERR_NOMEM;
        goto free_all;
    }
    for (size_t b = 0, e; b < nkeys; b = e) {
        e = instance_end(keys, nkeys, b);
        if (ev[keys[b].idx].step == 0) {
            point_close(&acc, points, &np);
        }
        if (e - b != (size_t)nranks) {
            continue;
        }
        batch_ns = 0;
        for (int r = 0; r < nranks; r++) {
            arrival[r] = INT64_MIN;
        }
        for (size_t k = b; k < e; k++) {
            const sp_event_rec_t *x = &ev[keys[k].idx];

            batch_ns = x->end_ns - x->start_ns > batch_ns ? x->end_ns - x->start_ns : batch_ns;
            if (keys[k].rank < 0 || keys[k].rank >= nranks || arrival[keys[k].rank] != INT64_MIN) {
                st = SP_ERR_INVALID; /* out of range, or one rank twice in an instance */
                goto free_all;
            }
            arrival[keys[k].rank] = keys[k].start_ns;
        }
        sp_late_add(&acc, arrival, batch_ns);
    }
    point_close(&acc, points, &np);
    *points_p = points;
    *npoints_p = np;
    points = NULL;
free_all:
    free(arrival);
    free(points);
    sp_late_cleanup(&acc);
free_keys:
    free(keys);
    return st;
}

void sp_skew_last_counts(const sp_instance_t *inst, size_t ninst, int nranks, uint64_t *counts)
{
    for (int r = 0; r < nranks; r++) {
        counts[r] = 0;
    }
    for (size_t i = 0; i < ninst; i++) {
        if (inst[i].resolved && inst[i].last_rank >= 0 && inst[i].last_rank < nranks) {
            counts[inst[i].last_rank]++;
        }
    }
}

static int int64_cmp(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa;
    int64_t b = *(const int64_t *)pb;

    return (a > b) - (a < b);
}

sp_status_t sp_skew_summary(const sp_instance_t *inst, size_t ninst, int64_t *median_skew_ns_p,
                            size_t *resolved_count_p)
{
    int64_t *skew;
    int64_t median;
    size_t resolved = 0;

    if (inst == NULL || ninst == 0 || median_skew_ns_p == NULL || resolved_count_p == NULL) {
        return SP_ERR_INVALID;
    }
    skew = malloc(ninst * sizeof(*skew));
    if (skew == NULL) {
        return SP_ERR_NOMEM;
    }
    for (size_t i = 0; i < ninst; i++) {
        skew[i] = inst[i].skew_ns;
        resolved += inst[i].resolved != 0;
    }
    qsort(skew, ninst, sizeof(*skew), int64_cmp);
    if (ninst % 2 == 1) {
        median = skew[ninst / 2];
    } else {
        /* Sorted, so the difference is >= 0 and halving it rounds down (no (a + b) overflow). */
        median = skew[ninst / 2 - 1] + (skew[ninst / 2] - skew[ninst / 2 - 1]) / 2;
    }
    free(skew);
    *median_skew_ns_p = median;
    *resolved_count_p = resolved;
    return SP_OK;
}

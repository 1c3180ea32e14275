/* Streaming arrival analysis (see arrivals.h): per-rank cursors, a k-way merge by seq, and an
 * accumulator that takes one complete collective instance at a time. */
#include "arrivals.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lateness.h"
#include "log.h"
#include "timeline.h"

/* All the cursors' rings together stay near this: reads shrink down to MIN_READ rows for it
 * and at most one stored chunk of the events table. */
#define RING_BUDGET_BYTES ((size_t)64 << 20)
#define MIN_READ ((uint64_t)256)
#define MAX_READ ((uint64_t)1 << 16)

/* Up to this many ranks the merge scans the cursors; above, it keeps a heap. */
#define SCAN_RANKS 64

/* What the analysis needs of a coll event (kind is read, then not looked at again). */
typedef sp_arrival_ev_t cev_t;

/* One rank's stream: its coll events not yet merged, sorted by seq in a ring. */
typedef struct {
    int rank;
    uint64_t next;  /* its next event to read, from 0 */
    uint64_t count; /* its events */
    uint64_t base;  /* its first row in /timeline/events (reads align to chunk rows) */
    cev_t *ring;
    size_t head;
    size_t n;
    size_t mask; /* ring size - 1 */
} cursor_t;

/* The per-instance accumulator: everything report prints, gathered as instances complete. */
typedef struct {
    sp_arrivals_t *a;
    const int *node_of;
    uint64_t *stamp; /* per rank: 1 + the instance it was last seen in */
    uint64_t ninst_all;
    int64_t *arrival;
    sp_late_acc_t late;
    sp_late_t point;
    sp_sketch_t skew;
    int64_t *ready; /* per node: its last rank's arrival in this instance */
    int *touched;
} acc_t;

static int cev_before(const cev_t *x, const cev_t *y)
{
    return x->seq != y->seq ? x->seq < y->seq : x->rank < y->rank;
}

static void point_close(acc_t *c)
{
    sp_arrivals_t *a = c->a;

    if (c->late.samples == 0) {
        return;
    }
    sp_late_result(&c->late, &c->point);
    sp_late_reset(&c->late);
    a->npoints++;
    if (c->point.significant && c->point.rank >= 0 && c->point.rank < a->nranks) {
        a->point_count[c->point.rank]++;
        a->point_sum_us[c->point.rank] += c->point.margin_us;
        a->named++;
    }
}

/* The late node of one instance, by sp_skew_node_lateness's rule. */
static void node_instance(acc_t *c, const cev_t *e, size_t n)
{
    sp_arrivals_t *a = c->a;
    int nt = 0, last = -1, second = -1;

    for (size_t k = 0; k < n; k++) {
        int node = c->node_of[e[k].rank];

        if (e[k].bytes == 0) {
            continue;
        }
        if (c->ready[node] == INT64_MIN) {
            c->touched[nt++] = node;
        }
        c->ready[node] = e[k].start_ns > c->ready[node] ? e[k].start_ns : c->ready[node];
    }
    for (int t = 0; t < nt; t++) {
        int node = c->touched[t];
        if (last < 0 || c->ready[node] > c->ready[last]) {
            second = last;
            last = node;
        } else if (second < 0 || c->ready[node] > c->ready[second]) {
            second = node;
        }
    }
    if (second >= 0 && c->ready[last] - c->ready[second] > a->err_ns) {
        a->node_count[last]++;
        a->node_late_ns[last] += c->ready[last] - c->ready[second];
        a->node_resolved++;
    }
    for (int t = 0; t < nt; t++) {
        c->ready[c->touched[t]] = INT64_MIN;
    }
}

/* First, last and second-latest arrival among the events with bytes (the order of
 * sp_skew_match: by start, ties by rank); returns how many there are. */
static size_t extremes(const cev_t *e, size_t n, size_t *first_p, size_t *last_p,
                       int64_t *second_p)
{
    size_t m = 0, first = 0, last = 0;
    int64_t second = INT64_MIN;

    for (size_t k = 0; k < n; k++) {
        if (e[k].bytes == 0) {
            continue;
        }
        if (m == 0) {
            first = last = k;
        } else {
            if (e[k].start_ns < e[first].start_ns ||
                (e[k].start_ns == e[first].start_ns && e[k].rank < e[first].rank)) {
                first = k;
            }
            if (e[k].start_ns > e[last].start_ns ||
                (e[k].start_ns == e[last].start_ns && e[k].rank > e[last].rank)) {
                second = e[last].start_ns;
                last = k;
            } else if (e[k].start_ns > second) {
                second = e[k].start_ns;
            }
        }
        m++;
    }
    *first_p = first;
    *last_p = last;
    *second_p = second;
    return m;
}

/* Last arrivers and skew of one instance (its events with bytes). */
static sp_status_t arrival_instance(acc_t *c, const cev_t *e, size_t n)
{
    sp_arrivals_t *a = c->a;
    size_t first, last;
    int64_t second, margin;
    size_t m = extremes(e, n, &first, &last, &second);
    sp_status_t st;

    if (m == 0) {
        return SP_OK;
    }
    a->ninst++;
    st = sp_sketch_add(&c->skew, e[last].start_ns - e[first].start_ns);
    margin = m > 1 ? e[last].start_ns - second : 0;
    /* with one rank the margin is 0 and err_ns >= 0, so a lone rank is never "late" */
    if (st == SP_OK && margin > a->err_ns) {
        int r = e[last].rank;
        a->resolved++;
        a->last_count[r]++;
        a->late_ns[r] += margin;
        st = sp_sketch_add(&a->margin[r], margin);
    }
    if (st == SP_OK && a->nnodes >= 2) {
        node_instance(c, e, n);
    }
    return st;
}

/* One complete instance: all coll events of one seq, any order. */
static sp_status_t instance(acc_t *c, const cev_t *e, size_t n)
{
    sp_arrivals_t *a = c->a;
    size_t first = 0;
    int64_t batch_ns = 0;

    c->ninst_all++;
    for (size_t k = 0; k < n; k++) {
        if (c->stamp[e[k].rank] == c->ninst_all) {
            sp_warn("timeline: rank %d has two coll events with seq %llu", (int)e[k].rank,
                    (unsigned long long)e[k].seq);
            return SP_ERR_INVALID;
        }
        c->stamp[e[k].rank] = c->ninst_all;
        if (e[k].start_ns < e[first].start_ns ||
            (e[k].start_ns == e[first].start_ns && e[k].rank < e[first].rank)) {
            first = k;
        }
    }
    /* a point starts at an instance whose earliest event has step 0 */
    if (e[first].step == 0) {
        point_close(c);
    }
    if (n == (size_t)a->nranks) {
        for (size_t k = 0; k < n; k++) {
            int64_t d = e[k].end_ns - e[k].start_ns;
            batch_ns = d > batch_ns ? d : batch_ns;
            c->arrival[e[k].rank] = e[k].start_ns;
        }
        sp_late_add(&c->late, c->arrival, batch_ns);
    }
    return arrival_instance(c, e, n);
}

/* The coll events of rank's rows buf[0..n), compacted in place; SP_ERR_FORMAT for a row of
 * another rank (a damaged rank table), SP_ERR_INVALID for a rank out of range (warned). */
static sp_status_t take_coll(cev_t *buf, size_t n, int rank, int nranks, size_t *nout_p)
{
    size_t m = 0;

    for (size_t i = 0; i < n; i++) {
        if (buf[i].rank != rank) {
            sp_warn("timeline: /timeline/ranks does not match /timeline/events: an event of rank "
                    "%d belongs to rank %d",
                    rank, (int)buf[i].rank);
            return SP_ERR_FORMAT;
        }
        if (buf[i].kind != SP_EV_COLL) {
            continue;
        }
        if (rank >= nranks) {
            sp_warn("timeline: coll event seq %llu has rank %d, outside [0, %d)",
                    (unsigned long long)buf[i].seq, rank, nranks);
            return SP_ERR_INVALID;
        }
        buf[m++] = buf[i];
    }
    *nout_p = m;
    return SP_OK;
}

/* A cursor in the heap, with its head's key (no pointer chase per comparison). */
typedef struct {
    uint64_t seq;
    int32_t rank;
    cursor_t *c;
} heap_entry_t;

/* The merge: a cursor per rank of the timeline, a binary heap of the cursors by head seq. */
typedef struct {
    const sp_arrivals_source_t *src;
    int nranks;
    uint64_t read_rows;
    cev_t *buf; /* read_rows rows, shared by the cursors */
    cursor_t *cur;
    size_t ncur;
    heap_entry_t *heap;
    size_t nheap;
    cev_t *inst; /* the instance being gathered */
    size_t inst_cap;
    int closed_any;
    uint64_t watermark; /* seq of the last instance closed */
    int disorder;       /* a rank's event came after its instance was closed */
} merge_t;

static const cev_t *head_of(const cursor_t *c)
{
    return &c->ring[c->head];
}

static int entry_before(const heap_entry_t *x, const heap_entry_t *y)
{
    return x->seq != y->seq ? x->seq < y->seq : x->rank < y->rank;
}

/* c goes in keyed by its head, which stays until it is popped */
static void heap_push(merge_t *m, cursor_t *c)
{
    heap_entry_t x = {head_of(c)->seq, c->rank, c};
    size_t i = m->nheap++;

    while (i > 0 && entry_before(&x, &m->heap[(i - 1) / 2])) {
        m->heap[i] = m->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    m->heap[i] = x;
}

static cursor_t *heap_pop(merge_t *m)
{
    cursor_t *top = m->heap[0].c;
    heap_entry_t x = m->heap[--m->nheap];
    size_t i = 0;

    for (;;) {
        size_t k = 2 * i + 1;
        if (k >= m->nheap) {
            break;
        }
        if (k + 1 < m->nheap && entry_before(&m->heap[k + 1], &m->heap[k])) {
            k++;
        }
        if (!entry_before(&m->heap[k], &x)) {
            break;
        }
        m->heap[i] = m->heap[k];
        i = k;
    }
    if (m->nheap > 0) {
        m->heap[i] = x;
    }
    return top;
}

/* Insert e into c's ring by seq (after its equals); the ring has room. */
static void ring_insert(cursor_t *c, const cev_t *e)
{
    size_t pos = c->n;

    while (pos > 0 && c->ring[(c->head + pos - 1) & c->mask].seq > e->seq) {
        c->ring[(c->head + pos) & c->mask] = c->ring[(c->head + pos - 1) & c->mask];
        pos--;
    }
    c->ring[(c->head + pos) & c->mask] = *e;
    c->n++;
}

/* Read c's rank until its ring holds read_rows coll events or its events end; reads start at
 * multiples of read_rows in the table, so each stored chunk is decompressed once. */
static sp_status_t cursor_fill(merge_t *m, cursor_t *c)
{
    while (c->n < m->read_rows && c->next < c->count && !m->disorder) {
        uint64_t len = m->read_rows - (c->base + c->next) % m->read_rows;
        size_t got = 0, ncoll = 0;
        sp_status_t st;

        len = len < c->count - c->next ? len : c->count - c->next;
        st = m->src->read(m->src->ctx, c->rank, m->buf, (size_t)len, c->next, &got);
        if (st != SP_OK) {
            return st;
        }
        c->next = got > 0 ? c->next + got : c->count;
        st = take_coll(m->buf, got, c->rank, m->nranks, &ncoll);
        if (st != SP_OK) {
            return st;
        }
        for (size_t i = 0; i < ncoll; i++) {
            if (m->closed_any && m->buf[i].seq <= m->watermark) {
                m->disorder = 1;
                break;
            }
            ring_insert(c, &m->buf[i]);
        }
    }
    return SP_OK;
}

/* Move c's events of seq into the instance (more than one is a duplicate, which the instance
 * check reports), refilling c as it empties. */
static sp_status_t take_head(merge_t *m, cursor_t *c, uint64_t seq, size_t *n_p)
{
    sp_status_t st = SP_OK;

    while (st == SP_OK && !m->disorder && c->n > 0 && head_of(c)->seq == seq) {
        if (*n_p == m->inst_cap) {
            sp_warn("timeline: rank %d has two coll events with seq %llu", c->rank,
                    (unsigned long long)seq);
            return SP_ERR_INVALID;
        }
        m->inst[(*n_p)++] = *head_of(c);
        c->head = (c->head + 1) & c->mask;
        c->n--;
        st = cursor_fill(m, c);
    }
    return st;
}

/* The instance of seq is complete: no cursor can add to it. */
static sp_status_t close_instance(merge_t *m, acc_t *acc, uint64_t seq, size_t n)
{
    m->closed_any = 1;
    m->watermark = seq;
    return instance(acc, m->inst, n);
}

/* Few ranks: the smallest head by a scan of the cursors (2 compares per rank and instance,
 * cheaper than a heap when most ranks take part in most instances). */
static sp_status_t merge_scan(merge_t *m, acc_t *acc)
{
    sp_status_t st = SP_OK;

    while (st == SP_OK && !m->disorder) {
        uint64_t seq = 0;
        size_t n = 0;
        int any = 0;

        for (size_t i = 0; i < m->ncur; i++) {
            const cursor_t *c = &m->cur[i];
            if (c->n > 0 && (!any || head_of(c)->seq < seq)) {
                seq = head_of(c)->seq;
                any = 1;
            }
        }
        if (!any) {
            break;
        }
        for (size_t i = 0; i < m->ncur && st == SP_OK; i++) {
            st = take_head(m, &m->cur[i], seq, &n);
        }
        if (st == SP_OK && !m->disorder) {
            st = close_instance(m, acc, seq, n);
        }
    }
    return st;
}

/* Many ranks: a heap of the cursors by head. */
static sp_status_t merge_heap(merge_t *m, acc_t *acc)
{
    sp_status_t st = SP_OK;

    for (size_t i = 0; i < m->ncur; i++) {
        if (m->cur[i].n > 0) {
            heap_push(m, &m->cur[i]);
        }
    }
    while (st == SP_OK && !m->disorder && m->nheap > 0) {
        uint64_t seq = m->heap[0].seq;
        size_t n = 0;

        while (st == SP_OK && !m->disorder && m->nheap > 0 && m->heap[0].seq == seq) {
            cursor_t *c = heap_pop(m);
            st = take_head(m, c, seq, &n);
            if (st == SP_OK && c->n > 0) {
                heap_push(m, c);
            }
        }
        if (st == SP_OK && !m->disorder) {
            st = close_instance(m, acc, seq, n);
        }
    }
    return st;
}

static sp_status_t merge_run(merge_t *m, acc_t *acc)
{
    sp_status_t st = SP_OK;

    for (size_t i = 0; i < m->ncur && st == SP_OK && !m->disorder; i++) {
        st = cursor_fill(m, &m->cur[i]);
    }
    if (st != SP_OK || m->disorder) {
        return st;
    }
    return m->ncur <= SCAN_RANKS ? merge_scan(m, acc) : merge_heap(m, acc);
}

static int cev_cmp(const void *pa, const void *pb)
{
    const cev_t *a = pa;
    const cev_t *b = pb;

    return cev_before(a, b) ? -1 : cev_before(b, a);
}

/* The fallback for a rank whose seq order strays beyond the window: every coll event in
 * memory, sorted, then the same accumulator. */
static sp_status_t load_sorted(merge_t *m, acc_t *acc)
{
    cev_t *all = NULL;
    size_t n = 0, room = 0;
    sp_status_t st = SP_OK;

    for (size_t i = 0; i < m->ncur && st == SP_OK; i++) {
        cursor_t *c = &m->cur[i];
        for (uint64_t from = 0; from < c->count && st == SP_OK;) {
            size_t got = 0, ncoll = 0;
            st = m->src->read(m->src->ctx, c->rank, m->buf, (size_t)m->read_rows, from, &got);
            if (st != SP_OK) {
                break;
            }
            from = got > 0 ? from + got : c->count;
            st = take_coll(m->buf, got, c->rank, m->nranks, &ncoll);
            if (st == SP_OK && n + ncoll > room) {
                size_t want = 2 * (n + ncoll);
                cev_t *grown = realloc(all, want * sizeof(*all));
                st = grown != NULL ? SP_OK : SP_ERR_NOMEM;
                all = grown != NULL ? grown : all;
                room = grown != NULL ? want : room;
            }
            if (st == SP_OK && ncoll > 0) {
                memcpy(all + n, m->buf, ncoll * sizeof(*all));
                n += ncoll;
            }
        }
    }
    if (st == SP_OK && n > 1) {
        qsort(all, n, sizeof(*all), cev_cmp);
    }
    for (size_t b = 0, e; b < n && st == SP_OK; b = e) {
        for (e = b + 1; e < n && all[e].seq == all[b].seq; e++) {
        }
        st = instance(acc, all + b, e - b);
    }
    free(all);
    return st;
}

static void result_free(sp_arrivals_t *a)
{
    if (a->margin != NULL) {
        for (int r = 0; r < a->nranks; r++) {
            sp_sketch_free(&a->margin[r]);
        }
    }
    free(a->margin);
    free(a->point_count);
    free(a->point_sum_us);
    free(a->last_count);
    free(a->late_ns);
    free(a->node_count);
    free(a->node_late_ns);
    a->margin = NULL;
    a->point_count = NULL;
    a->point_sum_us = NULL;
    a->last_count = NULL;
    a->late_ns = NULL;
    a->node_count = NULL;
    a->node_late_ns = NULL;
}

/* Free the accumulator's scratch (the figures in c->a stay). */
static void acc_close(acc_t *c)
{
    sp_late_cleanup(&c->late);
    sp_sketch_free(&c->skew);
    free(c->stamp);
    free(c->arrival);
    free(c->ready);
    free(c->touched);
    memset(c, 0, sizeof(*c));
}

/* Zeroed figures in a (nranks, nnodes, err_ns set) and the accumulator's scratch. */
static sp_status_t acc_open(acc_t *c, sp_arrivals_t *a, const int *node_of)
{
    size_t nr = (size_t)a->nranks;
    size_t nn = a->nnodes >= 2 ? (size_t)a->nnodes : 1;
    sp_status_t st;

    memset(c, 0, sizeof(*c));
    c->a = a;
    c->node_of = node_of;
    a->npoints = a->named = a->ninst = a->resolved = a->node_resolved = 0;
    a->point_count = calloc(nr, sizeof(*a->point_count));
    a->point_sum_us = calloc(nr, sizeof(*a->point_sum_us));
    a->last_count = calloc(nr, sizeof(*a->last_count));
    a->late_ns = calloc(nr, sizeof(*a->late_ns));
    a->margin = calloc(nr, sizeof(*a->margin));
    a->node_count = calloc(nn, sizeof(*a->node_count));
    a->node_late_ns = calloc(nn, sizeof(*a->node_late_ns));
    c->stamp = calloc(nr, sizeof(*c->stamp));
    c->arrival = calloc(nr, sizeof(*c->arrival));
    c->ready = malloc(nn * sizeof(*c->ready));
    c->touched = calloc(nn, sizeof(*c->touched));
    sp_sketch_init(&c->skew, SP_ARRIVALS_EXACT_SKEW);
    st = sp_late_init(&c->late, a->nranks, a->err_ns);
    if (st == SP_OK &&
        (a->point_count == NULL || a->point_sum_us == NULL || a->last_count == NULL ||
         a->late_ns == NULL || a->margin == NULL || a->node_count == NULL ||
         a->node_late_ns == NULL || c->stamp == NULL || c->arrival == NULL || c->ready == NULL ||
         c->touched == NULL)) {
        st = SP_ERR_NOMEM;
    }
    if (st != SP_OK) {
        result_free(a);
        acc_close(c);
        return st;
    }
    for (size_t r = 0; r < nr; r++) {
        sp_sketch_init(&a->margin[r], SP_ARRIVALS_EXACT_MARGIN);
    }
    for (size_t d = 0; d < nn; d++) {
        c->ready[d] = INT64_MIN;
    }
    return SP_OK;
}

/* The close of the pass: the last point, the median skew. */
static sp_status_t acc_finish(acc_t *c)
{
    sp_arrivals_t *a = c->a;
    int64_t lo, hi;

    point_close(c);
    if (a->ninst > 0) {
        sp_status_t st = sp_sketch_middle(&c->skew, &lo, &hi);
        if (st != SP_OK) {
            return st;
        }
        /* lo <= hi, so halving the difference rounds down without (lo + hi) overflow */
        a->median_skew_ns = lo + (hi - lo) / 2;
        a->median_skew_exact = sp_sketch_exact(&c->skew);
    }
    return SP_OK;
}

static void merge_close(merge_t *m)
{
    if (m->cur != NULL) {
        for (size_t i = 0; i < m->ncur; i++) {
            free(m->cur[i].ring);
        }
    }
    free(m->cur);
    free(m->heap);
    free(m->buf);
    free(m->inst);
}

/* Rows per read: one stored chunk when the rings of all ranks fit the budget, else fewer. */
static uint64_t read_rows_for(const sp_arrivals_source_t *src)
{
    uint64_t rows = src->chunk_rows <= 1 ? 8192 : src->chunk_rows;
    uint64_t budget = src->ring_budget > 0 ? src->ring_budget : RING_BUDGET_BYTES;

    rows = rows > MAX_READ ? MAX_READ : rows;
    /* a ring holds up to 2 reads, rounded up to a power of two */
    while (rows > MIN_READ && (uint64_t)src->nranks * 4 * rows * sizeof(cev_t) > budget) {
        rows /= 2;
    }
    return rows;
}

static sp_status_t merge_open(merge_t *m, const sp_arrivals_source_t *src, int nranks)
{
    size_t ring = 1;

    memset(m, 0, sizeof(*m));
    m->src = src;
    m->nranks = nranks;
    m->read_rows = read_rows_for(src);
    while (ring < 2 * m->read_rows) {
        ring *= 2;
    }
    m->ncur = src->nranks;
    m->inst_cap = 2 * (size_t)nranks;
    m->buf = malloc((size_t)m->read_rows * sizeof(*m->buf));
    m->cur = calloc(m->ncur > 0 ? m->ncur : 1, sizeof(*m->cur));
    m->heap = calloc(m->ncur > 0 ? m->ncur : 1, sizeof(*m->heap));
    m->inst = malloc(m->inst_cap * sizeof(*m->inst));
    if (m->buf == NULL || m->cur == NULL || m->heap == NULL || m->inst == NULL) {
        return SP_ERR_NOMEM;
    }
    for (size_t i = 0; i < m->ncur; i++) {
        cursor_t *c = &m->cur[i];
        c->rank = src->ranks[i].rank;
        c->count = src->ranks[i].count;
        c->base = src->ranks[i].offset;
        c->mask = ring - 1;
        c->ring = malloc(ring * sizeof(*c->ring));
        if (c->ring == NULL) {
            return SP_ERR_NOMEM;
        }
    }
    return SP_OK;
}

/* The pass: streamed, or loaded and sorted after a disorder. */
static sp_status_t run(const sp_arrivals_source_t *src, const int *node_of, sp_arrivals_t *a)
{
    merge_t m;
    acc_t acc;
    sp_status_t st = merge_open(&m, src, a->nranks);

    if (st == SP_OK) {
        st = acc_open(&acc, a, node_of);
    }
    if (st == SP_OK) {
        st = merge_run(&m, &acc);
        a->streamed = !m.disorder;
        if (st == SP_OK && m.disorder) {
            /* start over: nothing of the first pass is kept */
            result_free(a);
            acc_close(&acc);
            st = acc_open(&acc, a, node_of);
            if (st == SP_OK) {
                st = load_sorted(&m, &acc);
            }
        }
        if (st == SP_OK) {
            st = acc_finish(&acc);
        }
        if (st != SP_OK) {
            result_free(a);
        }
        acc_close(&acc);
    }
    merge_close(&m);
    return st;
}

/* Figures zeroed, nodes checked: a damaged rank table gives no node figures. */
static void result_init(sp_arrivals_t *a, int nranks, const int *node_of, int nnodes)
{
    memset(a, 0, sizeof(*a));
    a->nranks = nranks;
    a->nnodes = node_of != NULL && nnodes >= 2 ? nnodes : 0;
    for (int r = 0; r < nranks && a->nnodes > 0; r++) {
        if (node_of[r] < 0 || node_of[r] >= nnodes) {
            a->nnodes = 0;
        }
    }
}

sp_status_t sp_arrivals_run(const sp_arrivals_source_t *src, int nranks, const int *node_of,
                            int nnodes, sp_arrivals_t *a)
{
    if (src == NULL || src->read == NULL || (src->ranks == NULL && src->nranks > 0) ||
        a == NULL || nranks < 1) {
        return SP_ERR_INVALID;
    }
    result_init(a, nranks, node_of, nnodes);
    a->present = 1;
    a->err_ns = src->err_ns < 0 ? 0 : src->err_ns;
    return run(src, a->nnodes > 0 ? node_of : NULL, a);
}

double sp_arrivals_margin_median(sp_arrivals_t *a, int rank, int *exact_p)
{
    int64_t lo, hi;

    if (a == NULL || a->margin == NULL || rank < 0 || rank >= a->nranks ||
        sp_sketch_middle(&a->margin[rank], &lo, &hi) != SP_OK) {
        return NAN;
    }
    if (exact_p != NULL) {
        *exact_p = sp_sketch_exact(&a->margin[rank]);
    }
    return 0.5 * ((double)lo + (double)hi);
}

void sp_arrivals_free(sp_arrivals_t *a)
{
    if (a != NULL) {
        result_free(a);
    }
}

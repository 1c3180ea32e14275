/* The predictor's cost models (see predict_sim.h): alpha-beta, and measured sweeps
 * interpolated in size, picked by group size and scaled by the bus factor. */
#include "predict_sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- cost models ---- */

static double bus_factor(int op, int nranks)
{
    if (op == SP_PREDICT_OP_P2P || op == SP_COLL_SENDRECV) {
        return 1.0;
    }
    if (op < 0 || op >= SP_COLL_COUNT || nranks < 1) {
        return NAN;
    }
    return sp_coll_get((sp_coll_kind_t)op)->busbw_factor(nranks);
}

double sp_predict_cost_ab(void *arg, int op, uint64_t bytes, int nranks)
{
    const sp_predict_ab_t *ab = arg;

    /* GB/s = bytes per ns */
    return ab->alpha_us * 1e3 + (double)bytes * bus_factor(op, nranks) / ab->beta_gbps;
}

/* Index of the last point with bytes <= x (0 < x, b[0] <= x < b[n-1]). */
static size_t floor_point(const sp_predict_curve_t *c, uint64_t x)
{
    size_t lo = 0, hi = c->n - 1;

    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->bytes[mid] <= x) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return lo;
}

double sp_predict_curve_eval(const sp_predict_curve_t *c, uint64_t bytes)
{
    double x = (double)bytes;
    size_t n = c != NULL ? c->n : 0;

    if (n == 0) {
        return NAN;
    }
    if (n == 1) {
        return bytes <= c->bytes[0] ? c->time_ns[0]
                                    : c->time_ns[0] * x / (double)c->bytes[0];
    }
    if (bytes <= c->bytes[0]) {
        double slope = (c->time_ns[1] - c->time_ns[0]) / (double)(c->bytes[1] - c->bytes[0]);
        double t = c->time_ns[0] - slope * ((double)c->bytes[0] - x);
        return t < 0.0 ? 0.0 : (t > c->time_ns[0] ? c->time_ns[0] : t);
    }
    if (bytes >= c->bytes[n - 1]) {
        double b1 = (double)c->bytes[n - 1], t1 = c->time_ns[n - 1];
        double slope = (t1 - c->time_ns[n - 2]) / (b1 - (double)c->bytes[n - 2]);
        return slope > 0.0 ? t1 + slope * (x - b1) : t1 * x / b1;
    }
    {
        /* one alpha-beta line per pair of neighbouring sizes: flat where latency rules, the
         * bandwidth's slope where bytes do */
        size_t k = floor_point(c, bytes);
        double f = (x - (double)c->bytes[k]) / (double)(c->bytes[k + 1] - c->bytes[k]);
        return c->time_ns[k] + f * (c->time_ns[k + 1] - c->time_ns[k]);
    }
}

void sp_predict_sweep_init(sp_predict_sweep_t *sw, int nranks)
{
    memset(sw, 0, sizeof(*sw));
    sw->nranks = nranks;
}

static int curve_index(int op)
{
    return op == SP_PREDICT_OP_P2P ? SP_COLL_SENDRECV : op;
}

sp_status_t sp_predict_sweep_add(sp_predict_sweep_t *sw, int op, uint64_t bytes, double time_us)
{
    int k = curve_index(op);
    sp_predict_curve_t *c;

    if (k < 0 || k >= SP_COLL_COUNT || bytes == 0 || !(time_us > 0.0) || !isfinite(time_us)) {
        return SP_ERR_INVALID;
    }
    c = &sw->curve[k];
    if (c->n == sw->cap[k]) {
        size_t cap = sw->cap[k] ? 2 * sw->cap[k] : 32;
        uint64_t *b = realloc(c->bytes, cap * sizeof(*b));
        double *t;
        if (b == NULL) {
            return SP_ERR_NOMEM;
        }
        c->bytes = b;
        t = realloc(c->time_ns, cap * sizeof(*t));
        if (t == NULL) {
            return SP_ERR_NOMEM;
        }
        c->time_ns = t;
        sw->cap[k] = cap;
    }
    c->bytes[c->n] = bytes;
    c->time_ns[c->n] = time_us * 1e3;
    c->n++;
    return SP_OK;
}

typedef struct {
    uint64_t bytes;
    double time_ns;
} point_t;

static int cmp_point(const void *a, const void *b)
{
    const point_t *x = a, *y = b;

    return x->bytes < y->bytes ? -1 : (x->bytes > y->bytes ? 1 : 0);
}

void sp_predict_sweep_finish(sp_predict_sweep_t *sw)
{
    for (int k = 0; k < SP_COLL_COUNT; k++) {
        sp_predict_curve_t *c = &sw->curve[k];
        point_t *pt = c->n > 0 ? malloc(c->n * sizeof(*pt)) : NULL;
        size_t out = 0;
        if (pt == NULL) {
            continue; /* empty, or left unsorted only when out of memory for a copy */
        }
        for (size_t i = 0; i < c->n; i++) {
            pt[i] = (point_t){c->bytes[i], c->time_ns[i]};
        }
        qsort(pt, c->n, sizeof(*pt), cmp_point);
        for (size_t i = 0; i < c->n;) {
            double sum = 0.0;
            size_t j = i;
            while (j < c->n && pt[j].bytes == pt[i].bytes) {
                sum += pt[j++].time_ns;
            }
            c->bytes[out] = pt[i].bytes;
            c->time_ns[out++] = sum / (double)(j - i);
            i = j;
        }
        c->n = out;
        /* the same operation on more bytes cannot cost less (it could carry the smaller buffer
         * padded), so a time measured at a size bounds every smaller size: a point above a
         * larger size's time is contamination (a loaded host descheduling a polling rank), and
         * each size takes the least time measured at it or above (docs/METHODOLOGY.md) */
        for (size_t i = out; i-- > 1;) {
            if (c->time_ns[i - 1] > c->time_ns[i]) {
                c->time_ns[i - 1] = c->time_ns[i];
            }
        }
        free(pt);
    }
}

void sp_predict_sweep_cleanup(sp_predict_sweep_t *sw)
{
    for (int k = 0; k < SP_COLL_COUNT; k++) {
        free(sw->curve[k].bytes);
        free(sw->curve[k].time_ns);
    }
    memset(sw, 0, sizeof(*sw));
}

int sp_predict_sweep_has(const sp_predict_sweep_t *sw, int op)
{
    int k = curve_index(op);

    return k >= 0 && k < SP_COLL_COUNT && sw->curve[k].n > 0;
}

double sp_predict_cost_sweep(void *arg, int op, uint64_t bytes, int nranks)
{
    const sp_predict_sweep_t *sw = arg;
    int k = curve_index(op);
    double t, from, to;

    if (k < 0 || k >= SP_COLL_COUNT) {
        return NAN;
    }
    t = sp_predict_curve_eval(&sw->curve[k], bytes);
    if (op == SP_PREDICT_OP_P2P || nranks == sw->nranks) {
        return t;
    }
    from = bus_factor(op, sw->nranks);
    to = bus_factor(op, nranks);
    return from > 0.0 ? t * to / from : NAN;
}

double sp_predict_cost_free(void *arg, int op, uint64_t bytes, int nranks)
{
    (void)arg;
    (void)op;
    (void)bytes;
    (void)nranks;
    return 0.0;
}

sp_predict_sweep_t *sp_predict_sweeps_at(sp_predict_sweeps_t *s, int nranks)
{
    for (int i = 0; i < s->n; i++) {
        if (s->set[i].nranks == nranks) {
            return &s->set[i];
        }
    }
    if (s->n == SP_PREDICT_MAX_SWEEPS) {
        return NULL;
    }
    sp_predict_sweep_init(&s->set[s->n], nranks);
    return &s->set[s->n++];
}

const sp_predict_sweep_t *sp_predict_sweeps_pick(const sp_predict_sweeps_t *s, int op,
                                                 int nranks)
{
    const sp_predict_sweep_t *best = NULL;
    double best_d = INFINITY;

    for (int i = 0; i < s->n; i++) {
        const sp_predict_sweep_t *sw = &s->set[i];
        double d;
        if (!sp_predict_sweep_has(sw, op) || sw->nranks < 1) {
            continue;
        }
        d = fabs(log((double)sw->nranks) - log((double)(nranks > 0 ? nranks : 1)));
        /* a tie goes to the larger sweep: its bus factor is nearer the limit */
        if (d < best_d || (d == best_d && best != NULL && sw->nranks > best->nranks)) {
            best = sw;
            best_d = d;
        }
    }
    return best;
}

double sp_predict_cost_sweeps(void *arg, int op, uint64_t bytes, int nranks)
{
    const sp_predict_sweep_t *sw = sp_predict_sweeps_pick(arg, op, nranks);

    return sw != NULL ? sp_predict_cost_sweep((void *)sw, op, bytes, nranks) : NAN;
}

void sp_predict_sweeps_cleanup(sp_predict_sweeps_t *s)
{
    for (int i = 0; i < s->n; i++) {
        sp_predict_sweep_cleanup(&s->set[i]);
    }
    memset(s, 0, sizeof(*s));
}

static void note_scaled(sp_predict_coverage_t *cov, int from, int to)
{
    for (int i = 0; i < 4; i++) {
        if (cov->scaled_from[i] == from && cov->scaled_to[i] == to) {
            return;
        }
        if (cov->scaled_from[i] == 0) {
            cov->scaled_from[i] = from;
            cov->scaled_to[i] = to;
            return;
        }
    }
}

void sp_predict_coverage(const sp_program_t *progs, int p, int tp, int dp,
                         const sp_predict_sweeps_t *s, sp_predict_coverage_t *cov)
{
    memset(cov, 0, sizeof(*cov));
    cov->min_bytes = UINT64_MAX;
    for (int st = 0; st < p; st++) {
        for (size_t i = 0; i < progs[st].n; i++) {
            const sp_task_t *t = &progs[st].tasks[i];
            int coll = t->kind == SP_TASK_COLL;
            int op = coll ? t->coll : SP_PREDICT_OP_P2P;
            int n = coll ? sp_predict_group_size(t->lane, tp, dp) : 2;
            const sp_predict_sweep_t *sw;
            const sp_predict_curve_t *c;
            double ns;
            if (!(coll || t->kind == SP_TASK_SEND) || (sw = sp_predict_sweeps_pick(s, op, n)) == NULL) {
                continue;
            }
            c = &sw->curve[curve_index(op)];
            ns = sp_predict_cost_sweep((void *)sw, op, t->bytes, n);
            ns = isfinite(ns) ? ns : 0.0;
            cov->calls++;
            cov->time_ns += ns;
            cov->min_bytes = t->bytes < cov->min_bytes ? t->bytes : cov->min_bytes;
            cov->max_bytes = t->bytes > cov->max_bytes ? t->bytes : cov->max_bytes;
            if (t->bytes < c->bytes[0] || t->bytes > c->bytes[c->n - 1]) {
                cov->beyond++;
                cov->beyond_ns += ns;
            }
            if (coll && sw->nranks != n) {
                cov->scaled++;
                cov->scaled_ns += ns;
                note_scaled(cov, sw->nranks, n);
            }
        }
    }
    if (cov->calls == 0) {
        cov->min_bytes = 0;
    }
}

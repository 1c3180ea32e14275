/* Screening by bisection (see links_bisect.h). */
#include "links_bisect.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

int sp_links_bisect_max_levels(int n)
{
    int l = 0;

    while ((1 << l) < n && l < 30) {
        l++;
    }
    return l;
}

size_t sp_links_bisect_min_samples(double conf)
{
    size_t l = 0;
    size_t u = 0;

    for (size_t n = 6; n < 10000; n++) {
        if (sp_stats_median_ci_ranks(n, conf, &l, &u) == SP_OK) {
            return n;
        }
    }
    return 10000;
}

/* The next unit from *next on that is in neither range, or n. */
static int next_cleared(int n, int a_lo, int a_hi, int b_lo, int b_hi, int *next)
{
    while (*next < n && ((*next >= a_lo && *next < a_hi) || (*next >= b_lo && *next < b_hi))) {
        (*next)++;
    }
    return *next < n ? (*next)++ : n;
}

int sp_links_bisect_groups(int n, int a_lo, int a_hi, int b_lo, int b_hi, int *a, int *b)
{
    int na = a_hi - a_lo;
    int nb = b_hi - b_lo;
    int m = na > nb ? na : nb;
    int next = 0;

    m = m < 2 ? 2 : m;
    if (n - na - nb < (m - na) + (m - nb)) {
        return -1;
    }
    for (int i = 0; i < na; i++) {
        a[i] = a_lo + i;
    }
    for (int i = 0; i < nb; i++) {
        b[i] = b_lo + i;
    }
    /* pads: cleared units (in neither range) in unit order */
    for (int i = na; i < m; i++) {
        a[i] = next_cleared(n, a_lo, a_hi, b_lo, b_hi, &next);
    }
    for (int i = nb; i < m; i++) {
        b[i] = next_cleared(n, a_lo, a_hi, b_lo, b_hi, &next);
    }
    return m;
}

int sp_links_bisect_decide(const double *ta, const double *tb, size_t n, double conf,
                           double threshold, double *scratch, sp_links_bisect_step_t *step)
{
    size_t l = 1;
    size_t u = n;
    size_t m = 0;

    for (size_t i = 0; i < n; i++) {
        if (ta[i] > 0.0 && tb[i] > 0.0) {
            scratch[m++] = tb[i] / ta[i];
        }
    }
    step->samples = m;
    step->decision = 0;
    if (m == 0) {
        step->ratio = step->ratio_lo = step->ratio_hi = NAN;
        return 0;
    }
    step->ratio = sp_stats_median(scratch, m, scratch); /* scratch is sorted from here */
    if (sp_stats_median_ci_ranks(m, conf, &l, &u) != SP_OK) {
        /* too few samples for the confidence: the CI is the whole range, never a decision */
        step->ratio_lo = scratch[0];
        step->ratio_hi = scratch[m - 1];
        return 0;
    }
    step->ratio_lo = scratch[l - 1];
    step->ratio_hi = scratch[u - 1];
    if (step->ratio_lo > 1.0 + threshold) {
        step->decision = 1;
    } else if (step->ratio_hi < 1.0 / (1.0 + threshold)) {
        step->decision = -1;
    }
    return step->decision;
}

/* One measurement of the split [lo, mid) | [mid, hi) into *st. */
static sp_status_t measure_split(int n, const sp_links_bisect_params_t *p, double conf,
                                 sp_links_group_fn measure, void *arg, const int *range,
                                 double *buf, int *groups, sp_links_bisect_step_t *st)
{
    size_t cap = p->max_samples;
    double *ta = buf;
    double *tb = buf + cap;
    double *scratch = buf + 2 * cap;
    size_t ns = 0;
    int m = sp_links_bisect_groups(n, range[0], range[1], range[2], range[3], groups,
                                   groups + n);
    sp_status_t status;

    if (m < 0) {
        return SP_ERR_INVALID; /* n >= 4 always leaves enough cleared units */
    }
    st->a_lo = range[0];
    st->a_hi = range[1];
    st->b_lo = range[2];
    st->b_hi = range[3];
    st->group_size = m;
    status = measure(arg, groups, m, groups + n, m, sp_links_bisect_min_samples(conf), ta, tb,
                     cap, &ns);
    if (status != SP_OK) {
        return status;
    }
    st->ta_median = sp_stats_median(ta, ns, scratch);
    st->tb_median = sp_stats_median(tb, ns, scratch);
    sp_links_bisect_decide(ta, tb, ns, conf, p->threshold, scratch, st);
    return SP_OK;
}

/* Measure the split `range` until it decides or the repeats run out; the decision. */
static sp_status_t decide_split(int n, const sp_links_bisect_params_t *p, sp_links_group_fn measure,
                                void *arg, const int *range, double *buf, int *groups,
                                sp_links_bisect_step_t *steps, int cap, int *nsteps_p,
                                sp_links_bisect_result_t *res, int level, int *decision_p)
{
    sp_status_t status = SP_OK;

    *decision_p = 0;
    for (int attempt = 0; attempt < p->repeats && *decision_p == 0 && *nsteps_p < cap;
         attempt++) {
        sp_links_bisect_step_t *st = &steps[*nsteps_p];
        memset(st, 0, sizeof(*st));
        st->level = level;
        st->attempt = attempt;
        status = measure_split(n, p, res->conf_step, measure, arg, range, buf, groups, st);
        if (status != SP_OK) {
            return status;
        }
        (*nsteps_p)++;
        res->rounds++;
        *decision_p = st->decision;
    }
    return status;
}

sp_status_t sp_links_bisect(int n, const sp_links_bisect_params_t *p, sp_links_group_fn measure,
                            void *arg, sp_links_bisect_step_t *steps, int cap, int *nsteps_p,
                            sp_links_bisect_result_t *res)
{
    /* odd n: the first split cannot be padded (nothing is cleared yet), so the last unit is
     * held out of it and checked alone against a cleared half when that split is even */
    int held = n % 2 == 1 ? n - 1 : -1;
    int lo = 0;
    int hi = held >= 0 ? n - 1 : n;
    int nsteps = 0;
    int decision = 0;
    double *buf;
    int *groups;
    sp_status_t status = SP_OK;

    if (n < 4 || p->repeats < 1 || p->max_samples < 6 || !(p->alpha > 0.0 && p->alpha < 1.0)) {
        return SP_ERR_INVALID;
    }
    memset(res, 0, sizeof(*res));
    res->conf_step = 1.0 - p->alpha / (double)(sp_links_bisect_max_levels(n) * p->repeats);
    res->conf = 1.0 - p->alpha;
    buf = calloc(3 * p->max_samples, sizeof(double));
    groups = calloc(2 * (size_t)n, sizeof(int));
    if (buf == NULL || groups == NULL) {
        free(buf);
        free(groups);
        return SP_ERR_NOMEM;
    }
    while (hi - lo > 1 && status == SP_OK) {
        int mid = lo + (hi - lo) / 2;
        int range[4] = {lo, mid, mid, hi};
        status = decide_split(n, p, measure, arg, range, buf, groups, steps, cap, &nsteps, res,
                              res->levels, &decision);
        if (status != SP_OK || decision == 0) {
            break;
        }
        res->levels++;
        held = -1; /* cleared: the slow unit is in the slower half */
        if (decision < 0) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    res->verdict = hi - lo == 1 ? lo : (lo == 0 && hi >= n - 1 ? -1 : -2);
    if (status == SP_OK && held >= 0 && res->verdict == -1) {
        /* the halves were even: the held-out unit (padded with half a) against half b */
        int range[4] = {held, held + 1, 0, (n - 1) / 2};
        status = decide_split(n, p, measure, arg, range, buf, groups, steps, cap, &nsteps, res,
                              res->levels, &decision);
        if (status == SP_OK && decision < 0) {
            res->levels++;
            lo = held;
            hi = held + 1;
            res->verdict = held;
        }
    }
    res->cand_lo = res->verdict == -1 ? 0 : lo;
    res->cand_hi = res->verdict == -1 ? n : hi;
    *nsteps_p = nsteps;
    free(buf);
    free(groups);
    return status;
}

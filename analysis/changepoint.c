/* Outlier screen and E-divisive change points with a permutation test (see changepoint.h). */
#include "changepoint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "abstats.h"
#include "smallsample.h"
#include "stats.h"

/* Relative slack when a permuted statistic is compared with the observed one: the mirror image
 * of a series gives the same Q up to rounding, and must count as "at least as large". */
#define TIE_REL 1e-9

/* How many first differences near a value give the outlier screen's local noise scale. */
#define SCALE_DIFFS 10

void sp_cp_opts_default(sp_cp_opts_t *opts)
{
    opts->min_segment = 3;
    opts->permutations = 199;
    opts->max_permutations = 9999;
    opts->alpha = 0.05;
    opts->seed = 0x5ca1ab1e2026ull;
    opts->max_changes = 0;
    opts->outlier_z = 5.0;
    opts->outlier_min_dev = 0.0;
    opts->method = SP_CP_AUTO;
    opts->nseries = 1;
    opts->block = 0;
}

/* splitmix64: a small, well-mixed stream for shuffling. */
static uint64_t next_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Fisher-Yates. The modulo bias is below 2^-50 for the lengths of a run series. */
static void shuffle(double *x, size_t n, uint64_t *s)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(next_u64(s) % (uint64_t)i);
        double t = x[i - 1];
        x[i - 1] = x[j];
        x[j] = t;
    }
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;

    return a < b ? -1 : (a > b ? 1 : 0);
}

static int all_finite(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i])) {
            return 0;
        }
    }
    return 1;
}

static int opts_valid(const sp_cp_opts_t *o)
{
    return o != NULL && o->min_segment >= 2 && o->permutations >= 19 && o->alpha > 0.0 &&
           o->alpha < 1.0 && !(o->outlier_min_dev < 0.0) && !isnan(o->outlier_z) &&
           o->method >= SP_CP_AUTO && o->method <= SP_CP_TSCAN;
}

/*
 * The best split of x[0..m) and its statistic (-INFINITY when no split leaves min_seg values each
 * side). Moving value t from the right part to the left updates the three sums of |differences|
 * in O(m), so the scan over all splits is O(m^2).
 */
static double best_split(const double *x, size_t m, size_t min_seg, size_t *tau_p)
{
    double between = 0.0, within_l = 0.0, within_r = 0.0, best = -INFINITY;

    if (m < 2 * min_seg) {
        return -INFINITY;
    }
    for (size_t j = 0; j < m; j++) {
        for (size_t k = j + 1; k < m; k++) {
            within_r += fabs(x[j] - x[k]);
        }
    }
    for (size_t t = 0; t + min_seg < m; t++) {
        double row_l = 0.0, row_r = 0.0;
        size_t m1 = t + 1, m2 = m - t - 1;
        for (size_t i = 0; i < t; i++) {
            row_l += fabs(x[i] - x[t]);
        }
        for (size_t k = t + 1; k < m; k++) {
            row_r += fabs(x[t] - x[k]);
        }
        within_l += row_l;
        within_r -= row_r;
        between += row_r - row_l;
        if (m1 >= min_seg && m2 >= min_seg) {
            double e = 2.0 * between / ((double)m1 * (double)m2) -
                       within_l / (0.5 * (double)m1 * (double)(m1 - 1)) -
                       within_r / (0.5 * (double)m2 * (double)(m2 - 1));
            double q = (double)m1 * (double)m2 / (double)m * e;
            if (q > best) {
                best = q;
                *tau_p = m1;
            }
        }
    }
    return best;
}

/* Largest best-split statistic over the segments bounds[s]..bounds[s+1] of x; its segment and
 * split (absolute index) in *seg_p and *at_p. -INFINITY when no segment can be split (Q itself
 * may be negative: the estimate of a zero energy distance). */
static double best_over_segments(const double *x, const size_t *bounds, size_t nseg, size_t min_seg,
                                 size_t *seg_p, size_t *at_p)
{
    double best = -INFINITY;

    for (size_t s = 0; s < nseg; s++) {
        size_t tau = 0;
        double q = best_split(x + bounds[s], bounds[s + 1] - bounds[s], min_seg, &tau);
        if (q > best) {
            best = q;
            *seg_p = s;
            *at_p = bounds[s] + tau;
        }
    }
    return best;
}

size_t sp_cp_block_len(const sp_cp_opts_t *opts, size_t n)
{
    size_t b;

    if (opts->block > 0) {
        return opts->block;
    }
    if (n < SP_CP_BLOCK_MIN_N) {
        return 1;
    }
    b = (size_t)floor(pow((double)n, 0.25) + 1e-9);
    return b < 1 ? 1 : b;
}

double sp_cp_perm_floor(const sp_cp_opts_t *opts, size_t n)
{
    return sp_ss_perm_floor(n / sp_cp_block_len(opts, n));
}

sp_cp_method_t sp_cp_method_for(const sp_cp_opts_t *opts, size_t n)
{
    double m = opts->nseries > 0 ? (double)opts->nseries : 1.0;

    if (opts->method != SP_CP_AUTO) {
        return opts->method;
    }
    /* Benjamini-Hochberg over m series multiplies a lone p-value by m: a permutation test whose
     * floor does not stay 4x below alpha / m cannot report a change, however large */
    return sp_cp_perm_floor(opts, n) * m <= opts->alpha / 4.0 ? SP_CP_PERMUTATION : SP_CP_TSCAN;
}

/* Fisher-Yates over the whole blocks of len values in blocks of blk (the remainder, fewer than
 * blk values at the end, stays in place: the rearrangements then form a group, which keeps the
 * test exact for exchangeable blocks). tmp: len values. */
static void shuffle_blocks(double *x, size_t len, size_t blk, double *tmp, uint64_t *s)
{
    size_t nb = len / blk;

    if (blk <= 1) {
        shuffle(x, len, s);
        return;
    }
    memcpy(tmp, x, nb * blk * sizeof(*tmp));
    for (size_t i = nb; i > 1; i--) {
        size_t j = (size_t)(next_u64(s) % (uint64_t)i);
        if (j != i - 1) {
            memcpy(x + (i - 1) * blk, tmp + j * blk, blk * sizeof(*x));
            memcpy(tmp + j * blk, tmp + (i - 1) * blk, blk * sizeof(*tmp));
        } else {
            memcpy(x + (i - 1) * blk, tmp + j * blk, blk * sizeof(*x));
        }
    }
    if (nb > 0) {
        memcpy(x, tmp, blk * sizeof(*x));
    }
}

/* One test of binary segmentation: where to split and its p-value. */
typedef struct {
    size_t seg, at, candidates;
    double stat, p;
    int perms;
} step_t;

/* TSCAN: per segment the split of largest |t|, Bonferroni over its candidate splits; the segment
 * with the smallest adjusted p. 0 when no segment can be split. */
static int tscan_step(const double *x, const size_t *bounds, size_t nseg, size_t min_seg,
                      step_t *st)
{
    int any = 0;

    for (size_t s = 0; s < nseg; s++) {
        size_t m = bounds[s + 1] - bounds[s], best_k = 0;
        double best_t = -1.0, p;
        if (m < 2 * min_seg) {
            continue;
        }
        for (size_t k = min_seg; k + min_seg <= m; k++) {
            double t = fabs(sp_ss_split_t(x + bounds[s], m, k));
            if (t > best_t) {
                best_t = t;
                best_k = k;
            }
        }
        p = sp_ab_t_two_sided_p(best_t, (double)(m - 2)) * (double)(m - 2 * min_seg + 1);
        p = p > 1.0 ? 1.0 : p;
        if (!any || p < st->p || (p == st->p && best_t > st->stat)) {
            st->seg = s;
            st->at = bounds[s] + best_k;
            st->candidates = m - 2 * min_seg + 1;
            st->stat = sp_ss_split_t(x + bounds[s], m, best_k);
            st->p = p;
            st->perms = 0;
            any = 1;
        }
    }
    return any;
}

/* PERMUTATION: the largest Q over the segments, its p-value from nperm rearrangements of the
 * blocks within every segment. 0 when no segment can be split. work, tmp: n values. */
static int perm_step(const double *x, size_t n, const size_t *bounds, size_t nseg,
                     const sp_cp_opts_t *o, size_t blk, int nperm, double *work, double *tmp,
                     uint64_t *rng, step_t *st)
{
    size_t pseg = 0, pat = 0, hits = 0;
    double q = best_over_segments(x, bounds, nseg, o->min_segment, &st->seg, &st->at);

    if (q == -INFINITY) {
        return 0; /* no segment long enough to split */
    }
    /* Under "no further change" the blocks of each segment are exchangeable, so rearranging
     * them within every segment draws from the statistic's null distribution. */
    memcpy(work, x, n * sizeof(*work));
    for (int r = 0; r < nperm; r++) {
        for (size_t s = 0; s < nseg; s++) {
            shuffle_blocks(work + bounds[s], bounds[s + 1] - bounds[s], blk, tmp, rng);
        }
        hits += best_over_segments(work, bounds, nseg, o->min_segment, &pseg, &pat) >=
                q - TIE_REL * fabs(q);
    }
    st->stat = q;
    st->p = (1.0 + (double)hits) / (1.0 + (double)nperm);
    st->perms = nperm;
    st->candidates = bounds[st->seg + 1] - bounds[st->seg] - 2 * o->min_segment + 1;
    return 1;
}

/* Permutations for a series of n values: more for short series (see SP_CP_PERM_BUDGET). */
static int perm_count(const sp_cp_opts_t *o, size_t n)
{
    int nperm = o->permutations;

    /* A Monte Carlo p-value near alpha flips with the seed; where it is cheap (short series),
     * more permutations make the decision that of the exact test. */
    if (o->max_permutations > nperm) {
        double fit = SP_CP_PERM_BUDGET / ((double)n * (double)n);
        nperm = fit >= (double)o->max_permutations ? o->max_permutations
                                                   : (fit > (double)nperm ? (int)fit : nperm);
    }
    return nperm;
}

/* Order the found changes by position and fill in their segments, medians, means and
 * intervals. work: n values. */
static void describe_changes(const double *x, size_t n, sp_cp_change_t *changes, size_t nfound,
                             double *work)
{
    for (size_t i = 1; i < nfound; i++) {
        sp_cp_change_t c = changes[i];
        size_t j = i;
        for (; j > 0 && changes[j - 1].index > c.index; j--) {
            changes[j] = changes[j - 1];
        }
        changes[j] = c;
    }
    for (size_t i = 0; i < nfound; i++) {
        size_t a = i > 0 ? changes[i - 1].index : 0, c = changes[i].index;
        size_t b = i + 1 < nfound ? changes[i + 1].index : n;
        sp_ss_welch_t w;
        double conf = 1.0 - 0.05 / (double)(changes[i].candidates ? changes[i].candidates : 1);
        changes[i].before_start = a;
        changes[i].after_end = b;
        changes[i].median_before = sp_stats_median(x + a, c - a, work);
        changes[i].median_after = sp_stats_median(x + c, b - c, work);
        changes[i].diff_lo = changes[i].diff_hi = NAN;
        changes[i].mean_before = changes[i].mean_after = NAN;
        if (sp_ss_welch(x + a, c - a, x + c, b - c, conf, &w) == SP_OK) {
            double mb = 0.0;
            for (size_t k = a; k < c; k++) {
                mb += x[k];
            }
            changes[i].mean_before = mb / (double)(c - a);
            changes[i].mean_after = changes[i].mean_before + w.diff;
            changes[i].diff_lo = w.lo;
            changes[i].diff_hi = w.hi;
        }
    }
}

sp_status_t sp_cp_detect(const double *x, size_t n, const sp_cp_opts_t *opts,
                         sp_cp_change_t *changes, size_t max, size_t *nchanges_p)
{
    return sp_cp_detect_first(x, n, opts, changes, max, nchanges_p, NULL, NULL);
}

sp_status_t sp_cp_detect_first(const double *x, size_t n, const sp_cp_opts_t *opts,
                               sp_cp_change_t *changes, size_t max, size_t *nchanges_p,
                               double *first_p, int *first_perms_p)
{
    size_t *bounds;
    double *work, *tmp;
    size_t nseg = 1, nfound = 0, blk;
    uint64_t rng;
    int nperm;
    sp_cp_method_t method;

    if (!opts_valid(opts) || nchanges_p == NULL || (n > 0 && x == NULL) ||
        (max > 0 && changes == NULL) || !all_finite(x, n)) {
        return SP_ERR_INVALID;
    }
    if (first_p != NULL) {
        *first_p = NAN; /* no test made */
    }
    if (n < 2 * opts->min_segment || max == 0) {
        *nchanges_p = 0;
        return SP_OK;
    }
    bounds = malloc((n + 2) * sizeof(*bounds));
    work = malloc(n * sizeof(*work));
    tmp = malloc(n * sizeof(*tmp));
    if (bounds == NULL || work == NULL || tmp == NULL) {
        free(bounds);
        free(work);
        free(tmp);
        return SP_ERR_NOMEM;
    }
    bounds[0] = 0;
    bounds[1] = n;
    rng = opts->seed;
    nperm = perm_count(opts, n);
    method = sp_cp_method_for(opts, n);
    blk = sp_cp_block_len(opts, n);
    while (nfound < max && (opts->max_changes == 0 || nfound < opts->max_changes)) {
        step_t st = {0, 0, 0, 0.0, 1.0, 0};
        int ok = method == SP_CP_TSCAN
                     ? tscan_step(x, bounds, nseg, opts->min_segment, &st)
                     : perm_step(x, n, bounds, nseg, opts, blk, nperm, work, tmp, &rng, &st);
        if (!ok) {
            break;
        }
        if (nfound == 0 && first_p != NULL) {
            *first_p = st.p;
            if (first_perms_p != NULL) {
                *first_perms_p = st.perms;
            }
        }
        if (!(st.p < opts->alpha)) {
            break;
        }
        memset(&changes[nfound], 0, sizeof(changes[nfound]));
        changes[nfound].index = st.at;
        changes[nfound].method = method;
        changes[nfound].stat = st.stat;
        changes[nfound].p = st.p;
        changes[nfound].permutations = st.perms;
        changes[nfound].candidates = st.candidates;
        nfound++;
        memmove(&bounds[st.seg + 2], &bounds[st.seg + 1], (nseg - st.seg) * sizeof(*bounds));
        bounds[st.seg + 1] = st.at;
        nseg++;
    }
    /* found in order of strength; report in order of position */
    describe_changes(x, n, changes, nfound, work);
    free(tmp);
    free(work);
    free(bounds);
    *nchanges_p = nfound;
    return SP_OK;
}

/* Median of the up to 2 nearest values on one side of i (dir -1 or +1); NaN when none. */
static double side_median(const double *x, size_t n, size_t i, int dir)
{
    double v[2];
    int k = 0;

    for (size_t d = 1; d <= 2; d++) {
        if (dir < 0 ? i >= d : i + d < n) {
            v[k++] = x[dir < 0 ? i - d : i + d];
        }
    }
    return k == 0 ? NAN : (k == 1 ? v[0] : 0.5 * (v[0] + v[1]));
}

sp_status_t sp_cp_outliers(const double *x, size_t n, const sp_cp_opts_t *opts, double *clean,
                           int *flags, double *z, size_t *nout_p)
{
    double *repl, floor_scale;
    size_t nout = 0;

    if (opts == NULL || nout_p == NULL || (n > 0 && (x == NULL || clean == NULL)) ||
        !all_finite(x, n) || !(opts->outlier_min_dev >= 0.0)) {
        return SP_ERR_INVALID;
    }
    if (n < 3 || !(opts->outlier_z > 0.0)) {
        if (n > 0) {
            memmove(clean, x, n * sizeof(*clean));
        }
        for (size_t i = 0; i < n; i++) {
            if (flags != NULL) {
                flags[i] = 0;
            }
            if (z != NULL) {
                z[i] = 0.0;
            }
        }
        *nout_p = 0;
        return SP_OK;
    }
    repl = malloc(n * sizeof(*repl));
    if (repl == NULL) {
        return SP_ERR_NOMEM;
    }
    /* A floor for the local scale: the lower quartile of all first differences (for normal
     * noise of sd s, 0.3186 * sqrt(2) * s). Few local differences can be small by chance; the
     * quartile of all of them rarely is, and a noisy stretch elsewhere does not raise it. */
    for (size_t i = 0; i + 1 < n; i++) {
        repl[i] = fabs(x[i + 1] - x[i]);
    }
    qsort(repl, n - 1, sizeof(*repl), cmp_double);
    floor_scale = repl[(n - 2) / 4] / (0.3186 * sqrt(2.0));
    for (size_t i = 0; i < n; i++) {
        double dist = INFINITY, zi, scale = 0.0, local[SCALE_DIFFS];
        size_t nl = 0;
        for (size_t d = 1; d <= 2; d++) {
            if (i >= d) {
                dist = fmin(dist, fabs(x[i] - x[i - d]));
            }
            if (i + d < n) {
                dist = fmin(dist, fabs(x[i] - x[i + d]));
            }
        }
        /* The noise around i: the SCALE_DIFFS first differences nearest to it that do not
         * involve x[i], alternately left and right (all on one side at an end). Local, so a
         * noisy stretch elsewhere does not hide a spike in a quiet one; a median, so a step or
         * another spike among them moves it little. */
        for (size_t d = 1; nl < SCALE_DIFFS && (i >= d + 1 || i + d + 1 < n); d++) {
            if (i >= d + 1) {
                local[nl++] = fabs(x[i - d] - x[i - d - 1]);
            }
            if (i + d + 1 < n && nl < SCALE_DIFFS) {
                local[nl++] = fabs(x[i + d + 1] - x[i + d]);
            }
        }
        if (nl > 0) {
            /* for normal noise of sd s, |x[j+1] - x[j]| has median 0.6745 * sqrt(2) * s */
            scale = fmax(sp_stats_median(local, nl, local) / (0.6745 * sqrt(2.0)), floor_scale);
        } else {
            dist = 0.0; /* nothing to judge it against (3 values, the middle one) */
        }
        /* the difference of two values with noise s has sd sqrt(2) s */
        zi = scale > 0.0 ? dist / (sqrt(2.0) * scale) : (dist > 0.0 ? INFINITY : 0.0);
        repl[i] = NAN;
        if (z != NULL) {
            z[i] = zi;
        }
        if (dist > opts->outlier_min_dev && zi > opts->outlier_z) {
            double l = side_median(x, n, i, -1), r = side_median(x, n, i, +1);
            /* the closer side's level, so a value next to a level shift keeps its level */
            repl[i] = isnan(l) ? r : (isnan(r) ? l : (fabs(x[i] - l) <= fabs(x[i] - r) ? l : r));
            nout++;
        }
    }
    /* replace only after every value was judged against the original neighbours (clean may
     * alias x) */
    for (size_t i = 0; i < n; i++) {
        int is_out = !isnan(repl[i]);
        clean[i] = is_out ? repl[i] : x[i];
        if (flags != NULL) {
            flags[i] = is_out;
        }
    }
    free(repl);
    *nout_p = nout;
    return SP_OK;
}

sp_status_t sp_cp_analyze(const double *x, size_t n, const sp_cp_opts_t *opts, sp_cp_result_t *res)
{
    sp_cp_result_t r;
    int *flags = NULL;
    double *z = NULL;
    size_t nout = 0;
    sp_status_t status;

    memset(&r, 0, sizeof(r));
    if (res == NULL || !opts_valid(opts) || (n > 0 && x == NULL) || !all_finite(x, n)) {
        return SP_ERR_INVALID;
    }
    r.n = n;
    r.clean = malloc((n + 1) * sizeof(*r.clean));
    flags = malloc((n + 1) * sizeof(*flags));
    z = malloc((n + 1) * sizeof(*z));
    r.changes = malloc((n / 2 + 1) * sizeof(*r.changes));
    if (r.clean == NULL || flags == NULL || z == NULL || r.changes == NULL) {
        status = SP_ERR_NOMEM;
        goto out_free;
    }
    status = sp_cp_outliers(x, n, opts, r.clean, flags, z, &nout);
    if (status != SP_OK) {
        goto out_free;
    }
    r.outliers = malloc((nout + 1) * sizeof(*r.outliers));
    if (r.outliers == NULL) {
        status = SP_ERR_NOMEM;
        goto out_free;
    }
    for (size_t i = 0; i < n; i++) {
        if (flags[i]) {
            sp_cp_outlier_t *o = &r.outliers[r.noutliers++];
            o->index = i;
            o->value = x[i];
            o->replacement = r.clean[i];
            o->z = z[i];
        }
    }
    r.method = sp_cp_method_for(opts, n);
    r.block = sp_cp_block_len(opts, n);
    r.floor = sp_cp_perm_floor(opts, n);
    status = sp_cp_detect_first(r.clean, n, opts, r.changes, n / 2 + 1, &r.nchanges, &r.first_p,
                                &r.first_permutations);
    if (status != SP_OK) {
        goto out_free;
    }
    free(z);
    free(flags);
    *res = r;
    return SP_OK;

out_free:
    free(z);
    free(flags);
    sp_cp_result_cleanup(&r);
    return status;
}

void sp_cp_result_cleanup(sp_cp_result_t *res)
{
    if (res == NULL) {
        return;
    }
    free(res->changes);
    free(res->outliers);
    free(res->clean);
    memset(res, 0, sizeof(*res));
}

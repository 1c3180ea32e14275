/* The late rank of a point by arrival time (see lateness.h): streaming per-rank counts, so a
 * point costs O(nranks) memory whatever its number of samples. */
#include "lateness.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

sp_status_t sp_late_init(sp_late_acc_t *acc, int nranks, int64_t err_ns)
{
    size_t n = (size_t)nranks;

    memset(acc, 0, sizeof(*acc));
    if (nranks < 1 || err_ns < 0) {
        return SP_ERR_INVALID;
    }
    acc->nranks = nranks;
    acc->err_ns = err_ns;
    acc->last = calloc(n, sizeof(*acc->last));
    acc->beyond = calloc(n, sizeof(*acc->beyond));
    acc->late_ns = calloc(n, sizeof(*acc->late_ns));
    acc->scratch = calloc(n, sizeof(*acc->scratch));
    if (acc->last == NULL || acc->beyond == NULL || acc->late_ns == NULL || acc->scratch == NULL) {
        sp_late_cleanup(acc);
        return SP_ERR_NOMEM;
    }
    return SP_OK;
}

void sp_late_cleanup(sp_late_acc_t *acc)
{
    free(acc->scratch);
    free(acc->late_ns);
    free(acc->beyond);
    free(acc->last);
    memset(acc, 0, sizeof(*acc));
}

void sp_late_reset(sp_late_acc_t *acc)
{
    size_t n = (size_t)acc->nranks;

    acc->samples = 0;
    memset(acc->last, 0, n * sizeof(*acc->last));
    memset(acc->beyond, 0, n * sizeof(*acc->beyond));
    memset(acc->late_ns, 0, n * sizeof(*acc->late_ns));
}

static void swap64(int64_t *a, int64_t *b)
{
    int64_t t = *a;

    *a = *b;
    *b = t;
}

/* Partially order v[0..n) so that v[k] is the k-th smallest (0-based), smaller ones before it
 * (Hoare's selection, median-of-three pivot; expected O(n), no allocation). */
static void select_kth(int64_t *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;

    while (hi > lo) {
        size_t mid = lo + (hi - lo) / 2;
        size_t i = lo, j = hi;
        int64_t pivot;

        if (v[mid] < v[lo]) {
            swap64(&v[mid], &v[lo]);
        }
        if (v[hi] < v[lo]) {
            swap64(&v[hi], &v[lo]);
        }
        if (v[hi] < v[mid]) {
            swap64(&v[hi], &v[mid]);
        }
        pivot = v[mid];
        while (i <= j) {
            while (v[i] < pivot) {
                i++;
            }
            while (v[j] > pivot) {
                j--;
            }
            if (i <= j) {
                swap64(&v[i], &v[j]);
                i++;
                if (j == 0) {
                    break;
                }
                j--;
            }
        }
        /* now v[lo..j] <= pivot <= v[i..hi], and j < i */
        if (k <= j) {
            hi = j;
        } else if (k >= i) {
            lo = i;
        } else {
            return; /* between j and i: equal to the pivot, in place */
        }
    }
}

void sp_middle_pair_i64(int64_t *v, size_t n, int64_t *lo_p, int64_t *hi_p)
{
    size_t k = n / 2;

    if (n <= 32) { /* a few ranks' arrivals, once per instance: insertion sort is quicker */
        for (size_t i = 1; i < n; i++) {
            int64_t x = v[i];
            size_t j = i;
            for (; j > 0 && v[j - 1] > x; j--) {
                v[j] = v[j - 1];
            }
            v[j] = x;
        }
        *lo_p = v[(n - 1) / 2];
        *hi_p = v[k];
        return;
    }
    select_kth(v, n, k);
    *lo_p = *hi_p = v[k];
    if (n % 2 == 0) { /* the lower middle one: the largest before index k */
        *lo_p = v[0];
        for (size_t i = 1; i < k; i++) {
            *lo_p = v[i] > *lo_p ? v[i] : *lo_p;
        }
    }
}

void sp_late_add(sp_late_acc_t *acc, const int64_t *arrival_ns, int64_t batch_ns)
{
    double threshold = SP_LATE_MIN_FRAC * (double)batch_ns;
    size_t n = (size_t)acc->nranks;
    int64_t upper, lower, latest = INT64_MIN;
    int last = -1, ties = 0;
    double median_off; /* the median arrival, as an offset from `lower` */

    memcpy(acc->scratch, arrival_ns, n * sizeof(*arrival_ns));
    sp_middle_pair_i64(acc->scratch, n, &lower, &upper);
    median_off = (double)(upper - lower) / 2.0;
    threshold = threshold > (double)acc->err_ns ? threshold : (double)acc->err_ns;
    for (int r = 0; r < acc->nranks; r++) {
        double late = (double)(arrival_ns[r] - lower) - median_off;

        acc->late_ns[r] += late;
        acc->beyond[r] += late > threshold;
        if (arrival_ns[r] > latest) {
            latest = arrival_ns[r];
            last = r;
            ties = 0;
        } else if (arrival_ns[r] == latest) {
            ties = 1;
        }
    }
    /* an exact tie for last names nobody */
    if (last >= 0 && !ties && acc->nranks > 1) {
        acc->last[last]++;
    }
    acc->samples++;
}

double sp_late_sign_p(uint64_t n, uint64_t k)
{
    double p = 0.0;
    double lg_n;

    if (k == 0) {
        return 1.0;
    }
    if (k > n) {
        return 0.0;
    }
    lg_n = lgamma((double)n + 1.0) - (double)n * log(2.0);
    for (uint64_t i = k; i <= n; i++) {
        p += exp(lg_n - lgamma((double)i + 1.0) - lgamma((double)(n - i) + 1.0));
    }
    return p < 1.0 ? p : 1.0;
}

void sp_late_result(const sp_late_acc_t *acc, sp_late_t *out_p)
{
    sp_late_t v = {.rank = -1, .p = 1.0};
    int c = -1;

    v.samples = acc->samples;
    for (int r = 0; r < acc->nranks && acc->nranks > 1 && acc->samples > 0; r++) {
        if (c < 0 || acc->last[r] > acc->last[c] ||
            (acc->last[r] == acc->last[c] && acc->late_ns[r] > acc->late_ns[c])) {
            c = r;
        }
    }
    if (c >= 0) {
        double p = (double)acc->nranks * sp_late_sign_p(acc->samples, acc->beyond[c]);

        v.rank = c;
        v.last = acc->last[c];
        v.beyond = acc->beyond[c];
        v.margin_us = acc->late_ns[c] / (double)acc->samples / 1e3;
        v.p = p < 1.0 ? p : 1.0;
        /* a mean inside the clock bound is no lateness, whatever the signs say */
        v.significant = v.p < SP_LATE_ALPHA && v.margin_us * 1e3 > (double)acc->err_ns;
    }
    *out_p = v;
}

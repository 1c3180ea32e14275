/* The node section of `scaleprobe report`: per kind the cohort and every rank (up to 64), the
 * outliers from /node/outliers, and the burn per rank with the intervals that had wrong results.
 * It gets the /node data read back (node_result.h) and the rank map, not the whole reader. */
#include "node_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "stats.h"

#define MAX_RANK_LINES 64

/* Host name of a rank, "?" when unknown. */
static const char *host_of(const sp_topo_rank_t *ranks, int world_size, int rank)
{
    return ranks == NULL || rank < 0 || rank >= world_size ? "?" : ranks[rank].host;
}

static void print_kind(const sp_node_result_data_t *nd, int kind, double *scratch, FILE *out)
{
    size_t n = 0;
    size_t notconv = 0;
    const sp_node_row_t *lo = NULL;
    const sp_node_row_t *hi = NULL;
    double cohort;

    for (size_t i = 0; i < nd->nrows; i++) {
        const sp_node_row_t *r = &nd->rows[i];
        if (r->kind != kind) {
            continue;
        }
        scratch[n++] = r->median;
        notconv += r->converged ? 0 : 1;
        lo = lo == NULL || r->median < lo->median ? r : lo;
        hi = hi == NULL || r->median > hi->median ? r : hi;
    }
    if (n == 0) {
        return;
    }
    cohort = sp_stats_median(scratch, n, scratch);
    fprintf(out, "# %-9s %5zu ranks, cohort median %12.4f %-7s min %.4f (rank %d, %s), max %.4f "
                 "(rank %d), %zu not converged\n",
            sp_node_kind_names[kind], n, cohort, lo->units, lo->median, lo->rank, lo->host,
            hi->median, hi->rank, notconv);
    if (n > MAX_RANK_LINES) {
        return;
    }
    for (size_t i = 0; i < nd->nrows; i++) {
        const sp_node_row_t *r = &nd->rows[i];
        if (r->kind != kind) {
            continue;
        }
        fprintf(out, "  %-9s rank %5d node %4d %-20.20s %12.4f [%.4f, %.4f] %-7s %4u samples%s "
                     "ratio %.3f (%s)\n",
                sp_node_kind_names[kind], r->rank, r->node, r->host, r->median, r->ci_lo,
                r->ci_hi, r->units, r->samples, r->converged ? "" : " (not converged)",
                cohort > 0.0 ? r->median / cohort : NAN, sp_dtype_name((sp_dtype_t)r->dtype));
    }
}

static int cmp_burn_rank(const void *pa, const void *pb)
{
    const sp_node_burn_row_t *a = *(const sp_node_burn_row_t *const *)pa;
    const sp_node_burn_row_t *b = *(const sp_node_burn_row_t *const *)pb;

    return a->rank != b->rank ? (a->rank < b->rank ? -1 : 1)
                              : (a->interval < b->interval ? -1 : a->interval > b->interval);
}

static void print_burn(const sp_node_result_data_t *nd, const sp_topo_rank_t *ranks, int nranks,
                       FILE *out)
{
    size_t n = nd->nburn;
    double *rates = calloc(n + 1, sizeof(double));
    const sp_node_burn_row_t **by_rank = calloc(n + 1, sizeof(*by_rank));
    size_t nwrong = 0;

    if (rates == NULL || by_rank == NULL) {
        free(rates);
        free(by_rank);
        return;
    }
    fprintf(out, "# Burn: %zu rows (rank x interval), GFLOP/s over each interval's GEMMs\n", n);
    /* one pass over the rows sorted by rank, not one pass per rank */
    for (size_t i = 0; i < n; i++) {
        by_rank[i] = &nd->burn[i];
    }
    qsort(by_rank, n, sizeof(*by_rank), cmp_burn_rank);
    for (size_t i = 0; i < n;) {
        int rank = by_rank[i]->rank;
        size_t m = 0;
        uint64_t wrong = 0;
        double mn = INFINITY;
        for (; i < n && by_rank[i]->rank == rank; i++) {
            rates[m++] = by_rank[i]->rate;
            mn = by_rank[i]->rate < mn ? by_rank[i]->rate : mn;
            wrong += by_rank[i]->wrong;
        }
        if (nranks <= MAX_RANK_LINES || wrong > 0) {
            fprintf(out, "  burn rank %5d %-20.20s %4zu intervals, median %10.3f, min %10.3f, "
                         "wrong elements %llu\n",
                    rank, host_of(ranks, nranks, rank), m, sp_stats_median(rates, m, rates), mn,
                    (unsigned long long)wrong);
        }
    }
    free(by_rank);
    for (size_t i = 0; i < nd->nburn; i++) {
        const sp_node_burn_row_t *b = &nd->burn[i];
        if (b->wrong == 0) {
            continue;
        }
        if (nwrong++ < 50) {
            fprintf(out, "# WRONG RESULT: rank %d (%s) at t=%.2f s (interval %d): %llu element(s) "
                         "differ from the reference\n",
                    b->rank, host_of(ranks, nranks, b->rank), b->t_s, b->interval,
                    (unsigned long long)b->wrong);
        }
    }
    if (nwrong == 0) {
        fprintf(out, "# Burn: every result check matched the reference\n");
    }
    free(rates);
}

void sp_node_report_print(const sp_node_result_data_t *nd, const sp_topo_rank_t *ranks,
                          int world_size, FILE *out)
{
    double *scratch = calloc(nd->nrows + 1, sizeof(double));

    if (scratch == NULL) {
        return;
    }
    fprintf(out, "# node baselines: host GEMM %s; GPU %s\n", nd->blas, nd->gpu);
    if (nd->nrows == 0) {
        fprintf(out, "# no baseline measurements in this file\n");
    }
    for (int k = 0; k < SP_NODE_KIND_COUNT; k++) {
        print_kind(nd, k, scratch, out);
    }
    if (nd->nrows > 0) {
        fprintf(out, "# Outliers (CI of the median entirely below (1 - %s) x the cohort median): "
                     "%zu\n",
                nd->threshold, nd->noutliers);
    }
    for (size_t i = 0; i < nd->noutliers; i++) {
        const sp_node_outlier_row_t *o = &nd->outliers[i];
        if (o->kind < 0 || o->kind >= SP_NODE_KIND_COUNT) {
            continue; /* a kind this version does not know */
        }
        fprintf(out, "# OUTLIER %s: %s %d (%s) at %.3f of the cohort median (CI %.3f-%.3f), "
                     "%.4f vs %.4f %s\n",
                sp_node_kind_names[o->kind], o->scope == SP_NODE_SCOPE_RANK ? "rank" : "node",
                o->id, o->host, o->ratio, o->ratio_lo, o->ratio_hi, o->median, o->cohort,
                sp_node_kind_units((sp_node_kind_t)o->kind));
    }
    if (nd->nburn > 0) {
        print_burn(nd, ranks, world_size, out);
    }
    free(scratch);
}

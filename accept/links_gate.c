/* The links gate's per-node values from a link matrix (see links_gate.h). */
#include "links_gate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "links_report.h"
#include "links_verdict.h"
#include "stats.h"

typedef struct {
    double median, worst, ratio;
    int named, slow_link, nlinks;
    char worst_text[2 * SP_HOST_LEN + 8];
    char finding[200];
} node_links_t;

/* The node's directed links (either end on one of its units) from the best rows. */
static void node_values(const sp_links_result_data_t *d, const sp_links_pair_row_t **best,
                        int node, double *v, node_links_t *nl)
{
    int n = (int)d->nunits;
    size_t k = 0;

    nl->worst = NAN;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            const sp_links_pair_row_t *r = best[(size_t)i * (size_t)n + (size_t)j];
            if (i == j || r == NULL || !isfinite(r->value) ||
                (d->units[i].node != node && d->units[j].node != node)) {
                continue;
            }
            v[k++] = r->value;
            if (isnan(nl->worst) || r->value < nl->worst) {
                nl->worst = r->value;
                snprintf(nl->worst_text, sizeof(nl->worst_text), "%s->%s", d->units[i].host,
                         d->units[j].host);
            }
        }
    }
    nl->nlinks = (int)k;
    nl->median = k > 0 ? sp_stats_median(v, k, v + k) : NAN;
}

/* The bandwidth findings that name node (a slow node) or end on it (a slow link). */
static void node_findings(const sp_links_result_data_t *d, const sp_links_outlier_row_t *o,
                          size_t nout, int node, node_links_t *nl)
{
    for (size_t i = 0; i < nout; i++) {
        int na = d->units[o[i].a].node, nb = o[i].b >= 0 ? d->units[o[i].b].node : -1;
        if (o[i].metric != SP_LINKS_BW || (na != node && nb != node)) {
            continue;
        }
        if (o[i].kind == SP_LINKS_FIND_NODE && !nl->named) {
            nl->named = 1;
            snprintf(nl->finding, sizeof(nl->finding),
                     "; SLOW NODE %s: %.2fx cohort (95%% CI %.2f-%.2f), %d of %d links slow",
                     o[i].host_a, o[i].ratio, o[i].ratio_lo, o[i].ratio_hi, o[i].nslow,
                     o[i].nlinks);
        } else if (o[i].kind == SP_LINKS_FIND_LINK && !nl->named && !nl->slow_link) {
            nl->slow_link = 1;
            snprintf(nl->finding, sizeof(nl->finding),
                     "; SLOW LINK %s-%s: %.2fx cohort (95%% CI %.2f-%.2f)", o[i].host_a,
                     o[i].host_b, o[i].ratio, o[i].ratio_lo, o[i].ratio_hi);
        }
    }
}

/* 1 when this attempt's values of a node beat the ones kept. */
static int better(const node_links_t *nl, const sp_perf_node_t *p)
{
    if (isnan(p->links_gbps)) {
        return 1;
    }
    if (nl->named != p->links_node) {
        return nl->named < p->links_node;
    }
    return nl->median > p->links_gbps;
}

sp_status_t sp_accept_links_fold(const sp_links_result_data_t *d, int nnodes, double threshold,
                                 int attempt, const char *source, sp_perf_node_t *cur)
{
    int n = (int)d->nunits;
    size_t nn = (size_t)n * (size_t)n;
    const double thr[SP_LINKS_METRIC_COUNT] = {threshold, 0.5};
    sp_links_outlier_row_t *out = calloc(2 * ((size_t)n + nn) + 1, sizeof(*out));
    double *v = calloc(4 * nn + 2, sizeof(*v));
    const sp_links_pair_row_t **best = NULL;
    double cohort[SP_LINKS_METRIC_COUNT] = {NAN, NAN};
    size_t nout = 0;
    sp_status_t status = out != NULL && v != NULL ? SP_OK : SP_ERR_NOMEM;

    if (status == SP_OK && n < 2) {
        status = SP_ERR_INVALID;
    }
    if (status == SP_OK) {
        status = sp_links_analyze(d, thr, out, &nout, cohort);
    }
    if (status == SP_OK && (best = sp_links_best_rows(d, SP_LINKS_BW, n)) == NULL) {
        status = SP_ERR_NOMEM;
    }
    for (int node = 0; status == SP_OK && node < nnodes; node++) {
        node_links_t nl;
        sp_perf_node_t *p = &cur[node];
        memset(&nl, 0, sizeof(nl));
        node_values(d, best, node, v, &nl);
        if (nl.nlinks == 0) {
            continue;
        }
        node_findings(d, out, nout, node, &nl);
        nl.ratio = nl.median / cohort[SP_LINKS_BW];
        if (!better(&nl, p)) {
            continue;
        }
        p->links_gbps = nl.median;
        p->links_ratio = nl.ratio;
        p->links_worst_gbps = nl.worst;
        p->links_node = nl.named;
        p->links_slow_link = nl.slow_link;
        snprintf(p->links_evidence, sizeof(p->links_evidence),
                 "attempt %d: median of %d link directions %.4g GB/s, %.2fx the cohort %.4g "
                 "GB/s; slowest %.40s %.4g GB/s%.150s (%.60s)",
                 attempt, nl.nlinks, nl.median, nl.ratio, cohort[SP_LINKS_BW], nl.worst_text,
                 nl.worst, nl.finding, source);
    }
    free(best);
    free(out);
    free(v);
    return status;
}

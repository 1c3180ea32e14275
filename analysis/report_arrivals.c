/* report's late arrivals and late nodes (see report_arrivals.h), moved out of report.c when
 * they became a single streaming pass. */
#include "report_arrivals.h"

#include <math.h>
#include <stdlib.h>

sp_status_t sp_report_arrivals_scan(const sp_reader_t *rd, sp_arrivals_t *a)
{
    int *node_of = NULL;
    sp_status_t st;

    if (rd->world_size < 2) {
        return SP_ERR_INVALID;
    }
    if (rd->node_count >= 2 && rd->ranks != NULL) {
        node_of = calloc((size_t)rd->world_size, sizeof(*node_of));
        for (int r = 0; node_of != NULL && r < rd->world_size; r++) {
            node_of[r] = rd->ranks[r].node;
        }
    }
    st = sp_arrivals_scan(rd->path, rd->world_size, node_of, rd->node_count, a);
    free(node_of);
    return st;
}

/* A node slow as a whole: its ranks arrive late together, so no rank is last on its own. */
static void print_node_arrivals(const sp_reader_t *rd, sp_arrivals_t *a, FILE *out)
{
    size_t resolved = a->node_resolved;

    if (a->nnodes < 2 || resolved == 0) {
        return;
    }
    fprintf(out, "# Late nodes (a node arrives with its last rank): %zu instances with a "
                 "resolvable last node\n",
            resolved);
    for (int k = 0; k < 2; k++) {
        int best = -1;
        const char *host = "?";

        for (int d = 0; d < a->nnodes; d++) {
            if (a->node_count[d] > 0 && (best < 0 || a->node_late_ns[d] > a->node_late_ns[best])) {
                best = d;
            }
        }
        if (best < 0) {
            break;
        }
        for (int r = 0; r < rd->world_size; r++) {
            if (rd->ranks[r].node == best) {
                host = sp_reader_host(rd, r);
                break;
            }
        }
        fprintf(out, "#   node %d (%s): last to arrive in %llu of %zu (%.0f%%), %.3f ms in all\n",
                best, host, (unsigned long long)a->node_count[best], resolved,
                100.0 * (double)a->node_count[best] / (double)resolved,
                (double)a->node_late_ns[best] / 1e6);
        a->node_count[best] = 0;
    }
}

/* Late arrivals from the timeline: who starts collective instances last, by arrival time on
 * rank 0's clock, only where the clock model can resolve the order. */
void sp_report_arrivals_print(const sp_reader_t *rd, sp_status_t st, sp_arrivals_t *a,
                              FILE *out)
{
    if (st == SP_ERR_IO || st == SP_ERR_FORMAT || st == SP_ERR_NOMEM) {
        fprintf(out, "# PARTIAL REPORT: /timeline is damaged (see the warning); the late "
                     "arrivals are left out\n");
        return;
    }
    if (st != SP_OK || !a->present || a->ninst == 0) {
        return;
    }
    fprintf(out,
            "# Late arrivals (timeline, by arrival time on rank 0's clock, error bound %.1f us): "
            "%zu collective instances, median skew %.1f us%s, %zu with a resolvable last "
            "arriver\n",
            (double)a->err_ns / 1e3, a->ninst, (double)a->median_skew_ns / 1e3,
            a->median_skew_exact ? "" : " (+-0.8%)", a->resolved);
    /* ranked by the time the others waited for them, not by how often they were last: one
     * rank 8 ms late 45 times delays the job more than another 26 us late 224 times */
    for (int k = 0; k < 3 && a->resolved > 0; k++) {
        int best = -1, exact = 1;
        double median;

        for (int r = 0; r < rd->world_size; r++) {
            if (a->last_count[r] > 0 && (best < 0 || a->late_ns[r] > a->late_ns[best])) {
                best = r;
            }
        }
        if (best < 0) {
            break;
        }
        median = sp_arrivals_margin_median(a, best, &exact);
        fprintf(out,
                "#   rank %d (%s, node %d): last to arrive in %llu of %zu resolved instances "
                "(%.0f%%), by a median %.1f us%s after the next rank, %.3f ms in all\n",
                best, sp_reader_host(rd, best), rd->ranks ? rd->ranks[best].node : -1,
                (unsigned long long)a->last_count[best], a->resolved,
                100.0 * (double)a->last_count[best] / (double)a->resolved, median / 1e3,
                exact ? "" : " (+-0.8%)", (double)a->late_ns[best] / 1e6);
        a->last_count[best] = 0;
    }
    print_node_arrivals(rd, a, out);
}

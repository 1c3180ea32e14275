/* The human summary of a result file: the nccl-tests-style table again (same formatter as the
 * live run), then peak bus bandwidth per collective, points that missed the CI target, ranks
 * late most often (by arrival) and, apart, those with the highest own median most often, and any
 * wrong data with the ranks that had it. */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "coll_table.h"
#include "dtype.h"
#include "fpdiff.h"
#include "launcher.h"
#include "links_report.h"
#include "node_report.h"
#include "proxy_options.h"
#include "proxy_table.h"
#include "report_arrivals.h"
#include "stats.h"

static int same_point(const sp_coll_row_t *a, const sp_coll_row_t *b)
{
    return a->op == b->op && a->dtype == b->dtype && a->redop == b->redop && a->root == b->root &&
           a->bytes == b->bytes;
}

static const char *redop_str(const sp_coll_row_t *r)
{
    return r->redop < 0 ? "none" : sp_redop_name((sp_redop_t)r->redop);
}

/* A split sweep: each group's busbw at row i of /coll/results, and the slowest group. */
static void print_groups(const sp_reader_t *rd, size_t i, FILE *out)
{
    size_t first = 0;
    int n = sp_coll_groups_of_row(rd->groups, rd->ngroups, i, &first);

    if (n > 0) {
        sp_split_print_point(out, rd->rows[i].in_place ? "in-place" : "out-of-place",
                             rd->groups + first, n);
    }
}

/* A split sweep: the group slow in most points, or none. */
static void print_split(const sp_reader_t *rd, FILE *out)
{
    sp_split_summary_t s;

    if (rd->ngroups == 0) {
        return;
    }
    sp_split_summarize(rd->groups, rd->ngroups, SP_SPLIT_THRESHOLD, &s);
    if (s.found) {
        fprintf(out, "# Split %s: slowest group %lld (%d ranks from rank %d, %s): slower than "
                "the median group in %zu of %zu points, busbw at %.2fx the median group's "
                "(median over those points)\n", rd->split, (long long)s.group, (int)s.nranks,
                (int)s.first_rank, sp_reader_host(rd, s.first_rank), s.slow_points, s.points,
                s.ratio);
    } else {
        fprintf(out, "# Split %s: no slow group: none is slower than the median group by %.0f%% "
                "with CIs apart in more than half of the %zu points (most: group %lld in %zu)\n",
                rd->split, 100.0 * SP_SPLIT_THRESHOLD, s.points, (long long)s.group,
                s.slow_points);
    }
}

static void print_table(const sp_reader_t *rd, FILE *out)
{
    sp_coll_totals_t totals;
    int last_op = -1;

    memset(&totals, 0, sizeof(totals));
    totals.nranks = rd->world_size;
    for (size_t i = 0; i < rd->nrows; i++) {
        const sp_coll_row_t *r = &rd->rows[i];
        const sp_coll_row_t *in = NULL;

        if (r->op != last_op) {
            sp_coll_table_header(out, sp_coll_names[r->op]);
            last_op = r->op;
        }
        sp_coll_totals_add(&totals, r);
        if (r->in_place) {
            sp_coll_table_line(out, NULL, r);
            print_groups(rd, i, out);
            continue;
        }
        /* the sweep writes a size's out-of-place row and then its in-place row */
        if (i + 1 < rd->nrows && rd->rows[i + 1].in_place && same_point(r, &rd->rows[i + 1])) {
            in = &rd->rows[++i];
            sp_coll_totals_add(&totals, in);
        }
        sp_coll_table_line(out, r, in);
        print_groups(rd, in != NULL ? i - 1 : i, out);
        if (in != NULL) {
            print_groups(rd, i, out);
        }
    }
    sp_coll_table_footer(out, &totals);
}

/* The bandwidth at the ends of a row's CI of the median time: bw scales as 1/time. */
static void bw_interval(const sp_coll_row_t *r, double bw, double *lo_p, double *hi_p)
{
    *lo_p = r->ci_hi_us > 0.0 ? bw * r->time_us / r->ci_hi_us : NAN;
    *hi_p = r->ci_lo_us > 0.0 ? bw * r->time_us / r->ci_lo_us : NAN;
}

static void print_peaks(const sp_reader_t *rd, FILE *out)
{
    int multi = rd->world_size > 1;

    fprintf(out, "# Peak bus bandwidth per collective (the best point's median time; [95%% CI of "
                 "that point]; the largest of many noisy estimates reads high, so points whose "
                 "CI reaches it are counted):\n");
    for (int c = 0; c < SP_COLL_COUNT; c++) {
        const sp_coll_row_t *best = NULL;
        double best_bw = -1.0;
        double lo;
        double hi;
        int reach = 0;

        for (size_t i = 0; i < rd->nrows; i++) {
            const sp_coll_row_t *r = &rd->rows[i];
            double bw = multi ? r->busbw_gbps : r->algbw_gbps;
            if (r->op != c || isnan(bw)) {
                continue;
            }
            if (bw > best_bw) {
                best = r;
                best_bw = bw;
            }
        }
        if (best == NULL) {
            continue;
        }
        bw_interval(best, best_bw, &lo, &hi);
        for (size_t i = 0; i < rd->nrows; i++) {
            const sp_coll_row_t *r = &rd->rows[i];
            double bw = multi ? r->busbw_gbps : r->algbw_gbps;
            double rlo;
            double rhi;
            if (r->op != c || r == best || isnan(bw)) {
                continue;
            }
            bw_interval(r, bw, &rlo, &rhi);
            reach += rhi >= lo;
        }
        fprintf(out, "#   %-15s %s%9.3f GB/s %s [%.3f, %.3f] at %llu B %s %s %s%s",
                sp_coll_names[c], multi ? "" : "busbw n/a with 1 rank; ", best_bw,
                multi ? "busbw" : "algbw", lo, hi,
                (unsigned long long)best->bytes, sp_dtype_name((sp_dtype_t)best->dtype),
                redop_str(best), best->in_place ? "in-place" : "out-of-place",
                best->drift ? " (drifting)" : (best->converged ? "" : " (missed the CI target)"));
        if (multi) {
            fprintf(out, " (algbw %.3f GB/s)", best->algbw_gbps);
        }
        fprintf(out, "; %d other point(s) whose CI reaches %.3f\n", reach, lo);
    }
}

/* ", cycle C of N" for row i of a sweep run with -N cycles (as coll's "# cycle C of N"), else "". */
static const char *cycle_text(const sp_reader_t *rd, size_t i, char *buf, size_t len)
{
    size_t n = sp_reader_point_rows(rd, i);

    buf[0] = '\0';
    if (n > 1) {
        snprintf(buf, len, ", cycle %zu of %zu", sp_reader_point_cycle(rd, i) + 1, n);
    }
    return buf;
}

static void print_not_converged(const sp_reader_t *rd, FILE *out)
{
    char cyc[64];
    size_t n = 0;
    size_t ndrift = 0;

    for (size_t i = 0; i < rd->nrows; i++) {
        ndrift += rd->rows[i].drift ? 1 : 0;
        n += !rd->rows[i].converged && !rd->rows[i].drift ? 1 : 0;
    }
    if (n == 0 && ndrift == 0) {
        fprintf(out, "# Every point met its CI target.\n");
        return;
    }
    if (ndrift > 0) {
        fprintf(out, "# %zu of %zu points drifted while measured (a trend over their samples; "
                     "not converged, their median depends on when it was taken):\n",
                ndrift, rd->nrows);
        for (size_t i = 0, shown = 0; i < rd->nrows && shown < 20; i++) {
            const sp_coll_row_t *r = &rd->rows[i];
            if (!r->drift) {
                continue;
            }
            fprintf(out, "#   %-15s %12llu B %-8s %-4s %-12s %+.1f%% over %u samples (trend "
                         "p %.2g), CI +-%.1f%%, lag-1 %.2f%s\n",
                    sp_coll_names[r->op], (unsigned long long)r->bytes,
                    sp_dtype_name((sp_dtype_t)r->dtype), redop_str(r),
                    r->in_place ? "in-place" : "out-of-place", 100.0 * r->trend_rel, r->samples,
                    r->trend_p, r->ci_rel * 100.0, r->lag1, cycle_text(rd, i, cyc, sizeof(cyc)));
            shown++;
        }
        if (ndrift > 20) {
            fprintf(out, "#   ... and %zu more\n", ndrift - 20);
        }
    }
    if (n == 0) {
        return;
    }
    fprintf(out, "# %zu of %zu points stopped before the CI target (time or sample cap):\n", n,
            rd->nrows);
    for (size_t i = 0, shown = 0; i < rd->nrows && shown < 20; i++) {
        const sp_coll_row_t *r = &rd->rows[i];
        if (r->converged || r->drift) {
            continue;
        }
        fprintf(out, "#   %-15s %12llu B %-8s %-4s %-12s CI +-%.1f%% after %u samples",
                sp_coll_names[r->op], (unsigned long long)r->bytes,
                sp_dtype_name((sp_dtype_t)r->dtype), redop_str(r),
                r->in_place ? "in-place" : "out-of-place", r->ci_rel * 100.0, r->samples);
        if (r->n_eff > 0.0) { /* files written before these columns read 0 */
            fprintf(out, " (n_eff %.0f, lag-1 %.2f)", r->n_eff, r->lag1);
        }
        fprintf(out, "%s\n", cycle_text(rd, i, cyc, sizeof(cyc)));
        shown++;
    }
    if (n > 20) {
        fprintf(out, "#   ... and %zu more\n", n - 20);
    }
}

/* The three ranks counted most often in count[] (of total points), each line led by what. */
static void print_top_ranks(const sp_reader_t *rd, int *count, const double *sum_us,
                            size_t total, const char *what, FILE *out)
{
    int shown = 0;

    for (int k = 0; k < 3; k++) {
        int best = -1;
        for (int r = 0; r < rd->world_size; r++) {
            if (count[r] > 0 && (best < 0 || count[r] > count[best])) {
                best = r;
            }
        }
        if (best < 0) {
            break;
        }
        fprintf(out, "#   rank %d (%s, node %d): %s in %d of %zu points (%.0f%%)", best,
                sp_reader_host(rd, best), rd->ranks ? rd->ranks[best].node : -1, what,
                count[best], total, 100.0 * count[best] / (double)total);
        if (sum_us != NULL) {
            fprintf(out, ", by a mean %.1f us after the median arrival", sum_us[best] / count[best]);
        }
        fprintf(out, "\n");
        count[best] = 0;
        shown++;
    }
    if (shown == 0) {
        fprintf(out, "#   none\n");
    }
}

/* Ranks late most often, by arrival: from the timeline when the file has one, else the sweep's
 * own verdicts (late_rank); then, clearly apart, the ranks with the highest own median, which in
 * a synchronizing collective are the late rank's victims. */
static void print_slowest(const sp_reader_t *rd, const sp_arrivals_t *tl, FILE *out)
{
    int *count;
    double *sum_us;
    size_t npoints = tl != NULL ? tl->npoints : 0, named = 0;

    if (rd->world_size < 2 || rd->nrows == 0) {
        return;
    }
    count = calloc((size_t)rd->world_size, sizeof(*count));
    sum_us = calloc((size_t)rd->world_size, sizeof(*sum_us));
    if (count == NULL || sum_us == NULL) {
        goto out;
    }
    if (npoints > 0) {
        named = tl->named;
        memcpy(count, tl->point_count, (size_t)rd->world_size * sizeof(*count));
        memcpy(sum_us, tl->point_sum_us, (size_t)rd->world_size * sizeof(*sum_us));
        fprintf(out, "# Ranks late most often (timeline, arrival on rank 0's clock, error bound "
                     "%.1f us; per point the rank last most often, named when later than the "
                     "median arrival beyond the bound and 5%% of the batch in a sign test): %zu "
                     "of %zu points have a late rank\n",
                (double)tl->err_ns / 1e3, named, npoints);
    } else {
        npoints = rd->nrows;
        for (size_t i = 0; i < rd->nrows; i++) {
            int r = rd->rows[i].late_rank;
            if (r >= 0 && r < rd->world_size) {
                count[r]++;
                sum_us[r] += rd->rows[i].late_margin_us;
                named++;
            }
        }
        fprintf(out, "# Ranks late most often (no timeline: the sweep's late_rank, arrival on the "
                     "start-of-run clock model): %zu of %zu points have a late rank\n",
                named, npoints);
    }
    print_top_ranks(rd, count, sum_us, npoints, "late", out);

    memset(count, 0, (size_t)rd->world_size * sizeof(*count));
    for (size_t i = 0; i < rd->nrows; i++) {
        int r = rd->rows[i].slowest_rank;
        if (r >= 0 && r < rd->world_size) {
            count[r]++;
        }
    }
    fprintf(out, "# Ranks with the highest own median time most often (slowest_rank; in a "
                 "synchronizing collective these wait for the late rank, they are not it):\n");
    print_top_ranks(rd, count, NULL, rd->nrows, "highest own median", out);
out:
    free(sum_us);
    free(count);
}

static void print_wrong(const sp_reader_t *rd, FILE *out)
{
    if (rd->nwrong == 0) {
        return;
    }
    fprintf(out, "# WRONG DATA on %zu (point, rank) pairs:\n", rd->nwrong);
    for (size_t i = 0; i < rd->nwrong && i < 50; i++) {
        const sp_coll_wrong_t *w = &rd->wrong[i];
        const sp_coll_row_t *r = w->row < rd->nrows ? &rd->rows[w->row] : NULL;
        char cyc[64];
        if (r == NULL) {
            continue;
        }
        fprintf(out, "#   rank %d (%s): %llu wrong elements in %s %llu B %s %s %s%s\n", w->rank,
                sp_reader_host(rd, w->rank), (unsigned long long)w->wrong, sp_coll_names[r->op],
                (unsigned long long)r->bytes, sp_dtype_name((sp_dtype_t)r->dtype), redop_str(r),
                r->in_place ? "in-place" : "out-of-place",
                cycle_text(rd, (size_t)w->row, cyc, sizeof(cyc)));
    }
    if (rd->nwrong > 50) {
        fprintf(out, "#   ... and %zu more (all in /coll/wrong)\n", rd->nwrong - 50);
    }
}

/* One pass over the timeline for its sections: with_slowest adds "Ranks late most often"
 * (which falls back to the sweep's own verdicts without a timeline). */
static void print_arrivals(const sp_reader_t *rd, int with_slowest, FILE *out)
{
    sp_arrivals_t tl;
    sp_status_t st = sp_report_arrivals_scan(rd, &tl);

    if (with_slowest) {
        print_slowest(rd, st == SP_OK ? &tl : NULL, out);
    }
    sp_report_arrivals_print(rd, st, &tl, out);
    if (st == SP_OK) {
        sp_arrivals_free(&tl);
    }
}

/* The node section, from a view of rd's /node (the reader keeps ownership). */
static void print_node(const sp_reader_t *rd, FILE *out)
{
    sp_node_result_data_t nd = {
        .present = rd->has_node,
        .rows = rd->node_rows,
        .nrows = rd->nnode_rows,
        .burn = rd->node_burn,
        .nburn = rd->nnode_burn,
        .outliers = rd->node_outliers,
        .noutliers = rd->nnode_outliers,
    };

    snprintf(nd.blas, sizeof(nd.blas), "%s", rd->node_blas);
    snprintf(nd.gpu, sizeof(nd.gpu), "%s", rd->node_gpu);
    snprintf(nd.threshold, sizeof(nd.threshold), "%s", rd->node_threshold);
    sp_node_report_print(&nd, rd->ranks, rd->world_size, out);
}

void sp_report_print(const sp_reader_t *rd, FILE *out)
{
    fprintf(out, "# scaleprobe report: %s\n", rd->path);
    fprintf(out, "# created %s by scaleprobe %s (schema %ld), status %s\n", rd->created,
            rd->tool_version, rd->schema_version, rd->status);
    fprintf(out, "# command: %s\n", rd->command_line);
    fprintf(out, "# %d ranks on %d nodes, backend %s\n", rd->world_size, rd->node_count,
            rd->backend);
    if (rd->launch[0] != '\0') {
        fprintf(out, "# launched by %s\n", rd->launch);
    }
    if (strcmp(rd->status, "complete") != 0) {
        fprintf(out, "# NOTE: the run did not complete; the points below are those it finished\n");
    }
    sp_fpdiff_print_report(rd->fp, (int)rd->nfp, out);
    if (rd->has_node) {
        print_node(rd, out);
        return;
    }
    if (rd->links.present) {
        sp_links_report_print(&rd->links, out);
        return;
    }
    if (rd->has_proxy) {
        const sp_proxy_info_t *in = &rd->proxy_info;
        if (rd->proxy_predicted) {
            fprintf(out, "# PREDICTED by scaleprobe predict, not measured; cost model: %s\n",
                    rd->proxy_predicted_source);
        }
        fprintf(out, "# training proxy%s: %s, schedule %s, dp %d x pp %d x tp %d, %d "
                     "microbatches, %d chunk(s), dp %s%s, overlap %s\n",
                rd->proxy_predicted ? " (predicted)" : "", rd->proxy_model, rd->proxy_schedule,
                in->dp, in->pp, in->tp, in->microbatches, in->chunks, rd->proxy_dp_mode,
                in->dist_opt ? " with the distributed optimizer" : "",
                sp_proxy_overlap_desc(in->overlap, in->overlap_param_gather,
                                      in->dist_opt || strcmp(rd->proxy_dp_mode, "fsdp") == 0));
        if (rd->proxy_compute[0] != '\0') {
            fprintf(out, "# compute: %s\n", rd->proxy_compute);
        }
        if (rd->proxy_sharing_warning[0] != '\0') {
            fprintf(out, "# warning: %s\n", rd->proxy_sharing_warning);
        }
        sp_proxy_table_header(out);
        for (size_t i = 0; i < rd->nproxy; i += (size_t)rd->world_size) {
            size_t k = rd->nproxy - i < (size_t)rd->world_size ? rd->nproxy - i
                                                               : (size_t)rd->world_size;
            sp_proxy_table_step(out, rd->proxy + i, k);
        }
        sp_proxy_table_summary(out, in, rd->proxy, rd->nproxy);
        if (!rd->proxy_predicted) {
            print_arrivals(rd, 0, out); /* a prediction's groups arrive together by construction */
        }
        return;
    }
    if (rd->nrows == 0) {
        fprintf(out, "# no sweep points in this file\n");
        return;
    }
    fprintf(out, "# issue: %s%s\n", rd->issue,
            strcmp(rd->issue, "stream") == 0
                ? " (each operation enqueued on a backend stream, as the proxy issues it)"
                : " (blocking calls of the measuring thread)");
    if (rd->stream_wait_ns > 0) {
        fprintf(out, "# cross-stream wait: median %.1f us (a stream waiting on another's event, "
                     "max over ranks; predict adds it to every cross-lane dependency)\n",
                (double)rd->stream_wait_ns / 1e3);
    }
    print_table(rd, out);
    fprintf(out, "# Summary\n");
    print_peaks(rd, out);
    print_split(rd, out);
    print_not_converged(rd, out);
    print_arrivals(rd, 1, out);
    print_wrong(rd, out);
}

int sp_report_main(int argc, char **argv)
{
    sp_reader_t rd;
    sp_status_t status;

    if (argc == 3 && (strcmp(argv[2], "-h") == 0 || strcmp(argv[2], "--help") == 0)) {
        printf("usage: scaleprobe report FILE\nPrint the sweep table and a summary of a result "
               "file. Needs no MPI launch.\n");
        return 0;
    }
    if (argc != 3) {
        sp_launcher_error("report", "expected exactly one result file (usage: scaleprobe report FILE)");
        return 2;
    }
    status = sp_reader_open_for("report", argv[2], &rd);
    if (status != SP_OK) {
        return 2;
    }
    sp_report_print(&rd, stdout);
    sp_reader_close(&rd);
    return 0;
}

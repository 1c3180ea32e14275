/* The proxy's tables. */
#include "proxy_table.h"

#include <math.h>
#include <stdlib.h>

#include "seqstats.h"

/* The idle share of a rank's step; files before the split (NaN idle_ms): the whole bubble. */
static double idle_frac(const sp_proxy_rank_row_t *r)
{
    if (isnan(r->idle_ms) || !(r->step_ms > 0)) {
        return r->bubble_frac;
    }
    return r->idle_ms / r->step_ms;
}

/* The cost model's idle share of the rank's stage; files without it (a prediction, older
 * versions): the schedule's replay. */
static double pred_idle_frac(const sp_proxy_rank_row_t *r)
{
    if (isnan(r->pred_idle_ms) || !(r->pred_step_ms > 0)) {
        return r->predicted_frac;
    }
    return r->pred_idle_ms / r->pred_step_ms;
}

void sp_proxy_table_header(FILE *out)
{
    fprintf(out, "%6s %12s %10s %10s %6s %12s %6s\n", "step", "step_ms", "idle", "max_idle",
            "rank", "max_exposed", "rank");
}

void sp_proxy_table_step(FILE *out, const sp_proxy_rank_row_t *rows, size_t n)
{
    double sum = 0.0;
    size_t ib = 0, ie = 0;

    if (n == 0) {
        return;
    }
    /* idle: the pipeline bubble proper (no compute, no communication but receives waiting) */
    for (size_t i = 0; i < n; i++) {
        sum += idle_frac(&rows[i]);
        ib = idle_frac(&rows[i]) > idle_frac(&rows[ib]) ? i : ib;
        ie = rows[i].exposed_ms > rows[ie].exposed_ms ? i : ie;
    }
    fprintf(out, "%6d %12.3f %10.4f %10.4f %6d %9.3f ms %6d\n", rows[0].step, rows[0].step_ms,
            sum / (double)n, idle_frac(&rows[ib]), rows[ib].rank, rows[ie].exposed_ms,
            rows[ie].rank);
    fflush(out);
}

/* Mean of a field over the rows of one stage (all steps, all ranks), NaNs skipped. */
enum {
    F_IDLE, F_PRED, F_NONCOMP, F_TPX, F_PPX, F_DPX, F_TPO, F_PPO, F_DPO, F_SLOW, F_BUSY,
    F_STEP, F_IDLE_MS, F_P_STEP, F_P_BUSY, F_P_IDLE, F_P_TPX, F_P_PPX, F_P_DPX, N_FIELDS
};
static void stage_means(const sp_proxy_rank_row_t *rows, size_t n, int stage, double *mean)
{
    double sum[N_FIELDS] = {0}, cnt[N_FIELDS] = {0};

    for (size_t i = 0; i < n; i++) {
        const sp_proxy_rank_row_t *r = &rows[i];
        double x[N_FIELDS] = {
            idle_frac(r),    pred_idle_frac(r),  r->bubble_frac,     r->tp_excl_ms,
            r->pp_excl_ms,   r->dp_excl_ms,      r->tp_overlap,      r->pp_overlap,
            r->dp_overlap,   r->slowdown,        r->busy_ms,         r->step_ms,
            r->idle_ms,      r->pred_step_ms,    r->pred_busy_ms,    r->pred_idle_ms,
            r->pred_tp_excl_ms, r->pred_pp_excl_ms, r->pred_dp_excl_ms};
        if (r->stage != stage) {
            continue;
        }
        for (int f = 0; f < N_FIELDS; f++) {
            if (!isnan(x[f])) {
                sum[f] += x[f];
                cnt[f] += 1.0;
            }
        }
    }
    for (int f = 0; f < N_FIELDS; f++) {
        mean[f] = cnt[f] > 0 ? sum[f] / cnt[f] : NAN;
    }
}

/* The rate compute ran at, in words: --tflops, or what --compute gemm measured. */
static const char *rate_name(const sp_proxy_info_t *info)
{
    return info->compute == 1 ? "the measured GEMM rate" : "--tflops";
}

static void num_or_na(char *buf, size_t len, double x)
{
    if (isnan(x)) {
        snprintf(buf, len, "n/a");
    } else {
        snprintf(buf, len, "%.3f", x);
    }
}

/* Smallest change over the measured steps that counts as drift: the default --epsilon (the
 * summary is also printed by `report`, which does not know the run's --epsilon). */
#define STEP_DRIFT_MIN_REL 0.02

static void print_overall(FILE *out, const sp_proxy_info_t *info, const sp_proxy_rank_row_t *rows,
                          size_t n)
{
    size_t k = 0;
    double *steps;
    sp_seq_params_t par = sp_seq_params_default();
    sp_seqstats_t s;
    int world = info->pp * info->tp * info->dp;
    int ci;

    for (size_t i = 0; i < n; i++) {
        k += rows[i].rank == 0;
    }
    steps = calloc(k + sp_seq_scratch_len(k) + 1, sizeof(*steps));
    if (steps == NULL) {
        return;
    }
    /* rank 0's step times in step order (rows are stored step by step) */
    k = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].rank == 0) {
            steps[k++] = rows[i].step_ms;
        }
    }
    par.drift_min_rel = STEP_DRIFT_MIN_REL;
    sp_seq_analyze(steps, k, &par, steps + k, &s);
    /* the dependence-aware intervals need 10 batches of at least sqrt(k) steps */
    ci = s.enough_batches && s.ci_valid;
    if (ci) {
        fprintf(out,
                "# step time: median %.3f ms, 95%% CI [%.3f, %.3f] (+-%.1f%%) over %zu measured "
                "steps (dependence-aware: lag-1 %.2f, n_eff %.0f)\n",
                s.median, s.med_lo, s.med_hi, 100.0 * sp_seq_rel_halfwidth(&s), k, s.lag1,
                s.n_eff);
        fprintf(out, "# step time: mean %.3f ms, 95%% CI [%.3f, %.3f]\n", s.mean, s.mean_lo,
                s.mean_hi);
    } else {
        fprintf(out,
                "# step time: median %.3f ms over %zu measured step(s), mean %.3f ms (a 95%% "
                "CI needs 10 batches of at least sqrt(n) steps: 100 steps or more)\n",
                s.median, k, s.mean);
    }
    if (s.drift) {
        fprintf(out, "# step time DRIFTS: %+.1f%% over the measured steps (trend p %.2g); the "
                     "figures depend on when they were taken\n",
                100.0 * s.trend_rel, s.trend_p);
    }
    if (s.mean > 0) {
        /* sustained throughput: tokens over the total time, i.e. over the mean step */
        double sec = s.mean / 1e3;
        fprintf(out, "# tokens/s %.1f (%.0f tokens per step over the mean step time)",
                info->tokens_per_step / sec, info->tokens_per_step);
        if (ci && s.mean_lo > 0) {
            fprintf(out, ", 95%% CI [%.1f, %.1f]", info->tokens_per_step / (s.mean_hi / 1e3),
                    info->tokens_per_step / (s.mean_lo / 1e3));
        }
        fprintf(out, "\n");
        /* against the rate compute is run at, not a hardware peak: about 1 - bubble */
        fprintf(out, "# schedule efficiency %.2f%% (model FLOPs per step over mean step time x "
                     "%d devices x %s %.3g: the share of device time spent computing; not "
                     "MFU)\n",
                100.0 * info->flops_per_step / (sec * world * info->tflops * 1e12), world,
                rate_name(info), info->tflops);
        if (info->peak_tflops > 0) {
            fprintf(out, "# MFU %.2f%% of a %.3g TFLOP/s peak per device (--peak-tflops; %.4g "
                         "model FLOPs per step, %d devices, mean step time)\n",
                    100.0 * info->flops_per_step / (sec * world * info->peak_tflops * 1e12),
                    info->peak_tflops, info->flops_per_step, world);
        } else {
            fprintf(out, "# MFU not reported: it needs the hardware's peak (--peak-tflops)\n");
        }
    }
    free(steps);
}

/* Per stage: the stage table (idle, the schedule's prediction, exposed communication by
 * cause, overlaps, slowdown). */
static void print_stages(FILE *out, const sp_proxy_info_t *info, const sp_proxy_rank_row_t *rows,
                         size_t n)
{
    fprintf(out, "# per stage, means over its ranks and the measured steps (idle: share of the "
                 "step with no compute and nothing in flight but pipeline receives; predicted: "
                 "the same by the cost model below; non_compute: idle and exposed "
                 "communication; *_exp: exposed communication, ms, each instant charged once, "
                 "tp before dp before pp sends; overlap = |comm and compute| / |comm|; n/a: no "
                 "traffic)\n");
    fprintf(out, "# %5s %8s %9s %8s %11s %9s %9s %9s %7s %7s %7s %8s\n", "stage", "idle",
            "predicted", "excess", "non_compute", "tp_exp", "pp_exp", "dp_exp", "tp_ovl",
            "pp_ovl", "dp_ovl", "slowdown");
    for (int st = 0; st < info->pp; st++) {
        double m[N_FIELDS];
        char ovl[4][16];
        stage_means(rows, n, st, m);
        if (isnan(m[F_STEP])) {
            continue;
        }
        for (int f = 0; f < 4; f++) {
            num_or_na(ovl[f], sizeof(ovl[f]), m[F_TPO + f]);
        }
        /* excess: the idle time the schedule does not explain (late neighbours, stragglers) */
        fprintf(out, "# %5d %8.4f %9.4f %+7.1f%% %11.4f %9.3f %9.3f %9.3f %7s %7s %7s %8s\n", st,
                m[F_IDLE], m[F_PRED], m[F_PRED] > 0 ? 100.0 * (m[F_IDLE] / m[F_PRED] - 1.0) : 0.0,
                m[F_NONCOMP], m[F_TPX], m[F_PPX], m[F_DPX], ovl[0], ovl[1], ovl[2], ovl[3]);
    }
}

static const char *const gap_names[5] = {
    "compute", "pipeline idle", "exposed TP communication", "exposed PP communication",
    "exposed DP communication"};

/* The five parts of a stage's gap from its means: compute, pipeline idle, exposed TP, PP and DP
 * communication, each measured minus predicted. */
static void gap_parts(const double *m, double part[5])
{
    part[0] = m[F_BUSY] - m[F_P_BUSY];
    part[1] = m[F_IDLE_MS] - m[F_P_IDLE];
    part[2] = m[F_TPX] - m[F_P_TPX];
    part[3] = m[F_PPX] - m[F_P_PPX];
    part[4] = m[F_DPX] - m[F_P_DPX];
}

/* A part of one stage's gap. */
typedef struct {
    int stage, part;
    double ms; /* its mean over the measured steps */
} gap_part_t;

/* The per-step difference of part a and part b (each the mean over its stage's ranks in that
 * step): its mean, 95% half-width (Student t over the steps) and the number of steps. */
static void gap_diff(const sp_proxy_rank_row_t *rows, size_t n, gap_part_t a, gap_part_t b,
                     double *mean_p, double *half_p, size_t *steps_p)
{
    double mean = 0.0, m2 = 0.0;
    size_t k = 0;

    /* rows are stored step by step: one run of equal steps is one step */
    for (size_t i = 0, j; i < n; i = j) {
        double ma[N_FIELDS], mb[N_FIELDS], pa[5], pb[5], x, dx;
        for (j = i; j < n && rows[j].step == rows[i].step; j++) {
        }
        stage_means(rows + i, j - i, a.stage, ma);
        stage_means(rows + i, j - i, b.stage, mb);
        gap_parts(ma, pa);
        gap_parts(mb, pb);
        x = pa[a.part] - pb[b.part];
        if (isnan(x)) {
            continue;
        }
        k++;
        dx = x - mean;
        mean += dx / (double)k;
        m2 += dx * (x - mean);
    }
    *mean_p = k > 0 ? mean : NAN;
    *half_p = k >= 2 ? sp_seq_t_quantile(0.975, (double)(k - 1)) * sqrt(m2 / (double)(k - 1)) /
                           sqrt((double)k)
                     : INFINITY;
    *steps_p = k;
}

/* The sentence on the gap's largest part: named only when it exceeds the largest other part
 * (of any stage) in every step by more than the step-to-step noise, i.e. when the 95% CI of
 * their per-step difference lies above 0; otherwise the two leading parts, said to be within
 * the noise of each other. */
static void print_gap_sentence(FILE *out, const sp_proxy_rank_row_t *rows, size_t n,
                               gap_part_t best, gap_part_t next, double gap_ms)
{
    double diff, half;
    size_t steps;

    if (next.part < 0) {
        fprintf(out, "# the largest part of the gap: %s, %+.3f ms of the %+.3f ms between the "
                     "measured and the predicted step (stage %d); no other part has a value\n",
                gap_names[best.part], best.ms, gap_ms, best.stage);
        return;
    }
    gap_diff(rows, n, best, next, &diff, &half, &steps);
    if (diff - half > 0) {
        fprintf(out, "# the largest part of the gap: %s, %+.3f ms of the %+.3f ms between the "
                     "measured and the predicted step (stage %d); %+.3f ms above the next, %s "
                     "(stage %d), 95%% CI +-%.3f ms over %zu steps\n",
                gap_names[best.part], best.ms, gap_ms, best.stage, diff, gap_names[next.part],
                next.stage, half, steps);
    } else {
        fprintf(out, "# the two largest parts of the gap are within the step-to-step noise of "
                     "each other: %s %+.3f ms (stage %d) and %s %+.3f ms (stage %d) of the "
                     "%+.3f ms between the measured and the predicted step; their difference "
                     "%+.3f ms, 95%% CI +-%.3f ms over %zu steps: neither is named the largest\n",
                gap_names[best.part], best.ms, best.stage, gap_names[next.part], next.ms,
                next.stage, gap_ms, diff, half, steps);
    }
}

/* Per stage: the measured step against the cost model's, the gap split into compute, pipeline
 * idle and exposed TP, PP, DP communication; then one sentence on the largest part. */
static void print_gap(FILE *out, const sp_proxy_info_t *info, const sp_proxy_rank_row_t *rows,
                      size_t n)
{
    gap_part_t best = {-1, -1, 0.0}, next = {-1, -1, -INFINITY};
    double best_gap = 0.0;
    int any = 0;

    for (int st = 0; st < info->pp; st++) {
        double m[N_FIELDS], part[5];
        stage_means(rows, n, st, m);
        if (isnan(m[F_STEP]) || isnan(m[F_P_STEP])) {
            continue;
        }
        if (!any) {
            fprintf(out, "# where the step's time goes, per stage, against the cost model's "
                         "prediction (ms; predicted: compute at %s, communication free, "
                         "the simulation of `scaleprobe predict`; gap = measured - predicted = "
                         "the sum of the five parts)\n",
                    rate_name(info));
            fprintf(out, "# %5s %10s %10s %10s %9s %9s %9s %9s %9s\n", "stage", "measured",
                    "predicted", "gap", "compute", "idle", "tp_exp", "pp_exp", "dp_exp");
            any = 1;
        }
        gap_parts(m, part);
        fprintf(out, "# %5d %10.3f %10.3f %+10.3f %+9.3f %+9.3f %+9.3f %+9.3f %+9.3f\n", st,
                m[F_STEP], m[F_P_STEP], m[F_STEP] - m[F_P_STEP], part[0], part[1], part[2],
                part[3], part[4]);
        for (int k = 0; k < 5; k++) {
            if (part[k] > best.ms) {
                best = (gap_part_t){st, k, part[k]};
                best_gap = m[F_STEP] - m[F_P_STEP];
            }
        }
    }
    if (best.part < 0) {
        if (any) {
            fprintf(out, "# the measured step is no longer than the prediction in any part\n");
        }
        return;
    }
    /* the runner-up: the largest part of another kind (the same part on another stage does
     * not change what the sentence names) */
    for (int st = 0; st < info->pp; st++) {
        double m[N_FIELDS], part[5];
        stage_means(rows, n, st, m);
        gap_parts(m, part);
        for (int k = 0; k < 5; k++) {
            if (k != best.part && !isnan(m[F_P_STEP]) && part[k] > next.ms) {
                next = (gap_part_t){st, k, part[k]};
            }
        }
    }
    print_gap_sentence(out, rows, n, best, next, best_gap);
}

void sp_proxy_table_summary(FILE *out, const sp_proxy_info_t *info, const sp_proxy_rank_row_t *rows,
                            size_t n)
{
    size_t slow = 0;

    if (n == 0) {
        fprintf(out, "# no measured step finished (the run stopped in its warm-up or its first "
                     "measured step): no step time, throughput or per-stage figures\n");
        return;
    }
    print_overall(out, info, rows, n);
    print_stages(out, info, rows, n);
    print_gap(out, info, rows, n);
    for (size_t i = 0; i < n; i++) {
        slow = rows[i].busy_ms > rows[slow].busy_ms ? i : slow;
    }
    {
        double m[N_FIELDS];
        stage_means(rows, n, rows[slow].stage, m);
        fprintf(out, "# most compute time: rank %d (stage %d, dp %d, tp %d) %.3f ms in step %d; "
                     "its stage's mean %.3f ms\n",
                rows[slow].rank, rows[slow].stage, rows[slow].dp, rows[slow].tp,
                rows[slow].busy_ms, rows[slow].step, m[F_BUSY]);
    }
}

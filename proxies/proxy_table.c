/* The proxy's tables. */
#include "proxy_table.h"

#include <math.h>
#include <stdlib.h>

#include "seqstats.h"

void sp_proxy_table_header(FILE *out)
{
    fprintf(out, "%6s %12s %10s %10s %6s %12s %6s\n", "step", "step_ms", "bubble", "max_bubble",
            "rank", "max_exposed", "rank");
}

void sp_proxy_table_step(FILE *out, const sp_proxy_rank_row_t *rows, size_t n)
{
    double sum = 0.0;
    size_t ib = 0, ie = 0;

    if (n == 0) {
        return;
    }
    for (size_t i = 0; i < n; i++) {
        sum += rows[i].bubble_frac;
        ib = rows[i].bubble_frac > rows[ib].bubble_frac ? i : ib;
        ie = rows[i].exposed_ms > rows[ie].exposed_ms ? i : ie;
    }
    fprintf(out, "%6d %12.3f %10.4f %10.4f %6d %9.3f ms %6d\n", rows[0].step, rows[0].step_ms,
            sum / (double)n, rows[ib].bubble_frac, rows[ib].rank, rows[ie].exposed_ms,
            rows[ie].rank);
    fflush(out);
}

/* Mean of a field over the rows of one stage (all steps, all ranks), NaNs skipped. */
#define N_FIELDS 14
static void stage_means(const sp_proxy_rank_row_t *rows, size_t n, int stage, double *mean)
{
    double sum[N_FIELDS] = {0}, cnt[N_FIELDS] = {0};

    for (size_t i = 0; i < n; i++) {
        const sp_proxy_rank_row_t *r = &rows[i];
        double x[N_FIELDS] = {r->bubble_frac,   r->predicted_frac, r->warmup_ms,
                              r->steady_ms,     r->cooldown_ms,    r->tp_exposed_ms,
                              r->pp_exposed_ms, r->dp_exposed_ms,  r->tp_overlap,
                              r->pp_overlap,    r->dp_overlap,     r->slowdown,
                              r->busy_ms,       r->exposed_ms};
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
                     "%d devices x --tflops %.3g: the share of device time spent computing; not "
                     "MFU)\n",
                100.0 * info->flops_per_step / (sec * world * info->tflops * 1e12), world,
                info->tflops);
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

void sp_proxy_table_summary(FILE *out, const sp_proxy_info_t *info, const sp_proxy_rank_row_t *rows,
                            size_t n)
{
    size_t slow = 0;

    print_overall(out, info, rows, n);
    fprintf(out, "# per stage, means over its ranks and the measured steps (ms; overlap = "
                 "|comm and compute| / |comm|; n/a: no traffic)\n");
    fprintf(out, "# %5s %8s %9s %8s %9s %9s %9s %9s %9s %9s %7s %7s %7s %8s\n", "stage",
            "bubble", "predicted", "excess", "warmup", "steady", "cooldown", "tp_exp", "pp_exp",
            "dp_exp", "tp_ovl", "pp_ovl", "dp_ovl", "slowdown");
    for (int st = 0; st < info->pp; st++) {
        double m[N_FIELDS];
        stage_means(rows, n, st, m);
        if (isnan(m[0])) {
            continue;
        }
        char ovl[4][16];
        for (int f = 0; f < 4; f++) {
            num_or_na(ovl[f], sizeof(ovl[f]), m[8 + f]);
        }
        /* excess: what the schedule does not explain: communication, latency, stragglers */
        fprintf(out, "# %5d %8.4f %9.4f %+7.1f%% %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %7s %7s "
                     "%7s %8s\n",
                st, m[0], m[1], m[1] > 0 ? 100.0 * (m[0] / m[1] - 1.0) : 0.0, m[2], m[3], m[4],
                m[5], m[6], m[7], ovl[0], ovl[1], ovl[2], ovl[3]);
    }
    for (size_t i = 0; i < n; i++) {
        slow = rows[i].busy_ms > rows[slow].busy_ms ? i : slow;
    }
    if (n > 0) {
        double m[N_FIELDS];
        stage_means(rows, n, rows[slow].stage, m);
        fprintf(out, "# most compute time: rank %d (stage %d, dp %d, tp %d) %.3f ms in step %d; "
                     "its stage's mean %.3f ms\n",
                rows[slow].rank, rows[slow].stage, rows[slow].dp, rows[slow].tp,
                rows[slow].busy_ms, rows[slow].step, m[12]);
    }
}

/* The proxy's per-stage table and its summary. */
#include "proxy_table.h"

#include <stdlib.h>

#include "stats.h"

void sp_proxy_table_header(FILE *out)
{
    fprintf(out, "%6s %6s %12s %12s %12s %10s %10s\n", "step", "stage", "step_ms", "busy_ms",
            "bubble_ms", "bubble", "predicted");
}

void sp_proxy_table_rows(FILE *out, const sp_proxy_stage_row_t *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const sp_proxy_stage_row_t *x = &rows[i];
        fprintf(out, "%6d %6d %12.3f %12.3f %12.3f %10.4f %10.4f\n", x->step, x->stage, x->step_ms,
                x->busy_ms, x->bubble_ms, x->bubble_frac, x->predicted_frac);
    }
    fflush(out);
}

void sp_proxy_table_summary(FILE *out, const sp_proxy_stage_row_t *rows, size_t n, int stages)
{
    double *steps = calloc(n > 0 ? n : 1, sizeof(*steps));
    size_t nsteps = 0;

    if (steps == NULL) {
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (rows[i].stage == 0) {
            steps[nsteps++] = rows[i].step_ms;
        }
    }
    fprintf(out, "# step time: median %.3f ms over %zu measured step(s)\n",
            sp_stats_median(steps, nsteps, steps), nsteps);
    fprintf(out, "# %6s %14s %14s %10s\n", "stage", "bubble (mean)", "predicted", "excess");
    for (int s = 0; s < stages; s++) {
        double b = 0.0;
        double p = 0.0;
        int k = 0;
        for (size_t i = 0; i < n; i++) {
            if (rows[i].stage == s) {
                b += rows[i].bubble_frac;
                p += rows[i].predicted_frac;
                k++;
            }
        }
        if (k > 0) {
            /* what the schedule does not explain: communication, latency, stragglers */
            fprintf(out, "# %6d %14.4f %14.4f %+9.1f%%\n", s, b / k, p / k,
                    p > 0.0 ? 100.0 * (b / p - 1.0) : 0.0);
        }
    }
    free(steps);
}

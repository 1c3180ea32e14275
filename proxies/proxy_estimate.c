/* The proxy's prediction of its own step and the guard against runs longer than --max-time
 * (proxy_estimate.h). */
#include "proxy_estimate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "model.h"
#include "predict_sim.h"

/* Communication free: the prediction is the compute and the schedule alone. */
static double free_comm(void *arg, int op, uint64_t bytes, int nranks)
{
    (void)arg;
    (void)op;
    (void)bytes;
    (void)nranks;
    return 0.0;
}

sp_status_t sp_proxy_estimate(const sp_program_config_t *cfg, sp_proxy_estimate_t *est)
{
    int p = cfg->p;
    sp_program_t *progs = calloc((size_t)p, sizeof(*progs));
    sp_predict_result_t res;
    sp_status_t st = progs != NULL ? SP_OK : SP_ERR_NOMEM;
    int built = 0;

    memset(est, 0, sizeof(*est));
    memset(&res, 0, sizeof(res));
    for (int s = 0; s < p && st == SP_OK; s++, built++) {
        sp_program_config_t c = *cfg;
        c.stage = s;
        st = sp_program_build(&c, &progs[s]);
    }
    if (st == SP_OK) {
        st = sp_predict_run(progs, p, cfg->tp, cfg->dp, free_comm, NULL, &res);
    }
    if (st == SP_OK) {
        est->stage = calloc((size_t)p, sizeof(*est->stage));
        st = est->stage != NULL ? SP_OK : SP_ERR_NOMEM;
    }
    if (st == SP_OK) {
        est->p = p;
        est->step_ms = (double)res.step_ns / 1e6;
        for (int s = 0; s < p; s++) {
            est->stage[s] = res.stages[s].m;
        }
    }
    sp_predict_result_free(&res);
    for (int s = 0; s < built && s < p; s++) {
        sp_program_free(&progs[s]);
    }
    free(progs);
    return st;
}

void sp_proxy_estimate_free(sp_proxy_estimate_t *est)
{
    free(est->stage);
    memset(est, 0, sizeof(*est));
}

void sp_proxy_estimate_apply(const sp_proxy_estimate_t *est, sp_proxy_rank_row_t *row)
{
    const sp_proxy_rank_row_t *s;

    if (est->stage == NULL || row->stage < 0 || row->stage >= est->p) {
        row->pred_step_ms = row->pred_busy_ms = row->pred_idle_ms = NAN;
        row->pred_tp_excl_ms = row->pred_dp_excl_ms = row->pred_pp_excl_ms = NAN;
        return;
    }
    s = &est->stage[row->stage];
    row->pred_step_ms = est->step_ms;
    row->pred_busy_ms = s->busy_ms;
    row->pred_idle_ms = s->idle_ms;
    row->pred_tp_excl_ms = s->tp_excl_ms;
    row->pred_dp_excl_ms = s->dp_excl_ms;
    row->pred_pp_excl_ms = s->pp_excl_ms;
}

/* A duration in the unit that reads best: "2.4 s", "48.0 min", "13.2 h". */
static void human_time(double s, char *out, size_t len)
{
    if (s >= 7200.0) {
        snprintf(out, len, "%.1f h", s / 3600.0);
    } else if (s >= 120.0) {
        snprintf(out, len, "%.1f min", s / 60.0);
    } else {
        snprintf(out, len, "%.3g s", s);
    }
}

sp_status_t sp_proxy_guard(const sp_proxy_opts_t *opts, int nranks, char *err, size_t errlen)
{
    sp_layout_t layout;
    sp_program_config_t cfg;
    sp_proxy_estimate_t est;
    sp_model_t model;
    long steps = opts->warmup_steps + (opts->steps > 0 ? opts->steps : opts->min_steps);
    double need_s;
    char step_txt[32], need_txt[32];
    sp_status_t st = sp_proxy_layout(opts, nranks, &layout, err, errlen);

    if (st == SP_OK) {
        st = sp_proxy_program_config(opts, &layout, &cfg);
    }
    if (st == SP_OK) {
        st = sp_proxy_model(opts, &model);
    }
    if (st == SP_OK) {
        st = sp_proxy_estimate(&cfg, &est);
    }
    if (st != SP_OK) {
        snprintf(err, errlen, "cannot predict the step of this configuration (%s)",
                 sp_status_str(st));
        return st == SP_ERR_NOMEM ? st : SP_ERR_INVALID;
    }
    need_s = (double)steps * est.step_ms / 1e3;
    sp_proxy_estimate_free(&est);
    if (need_s <= opts->max_time) {
        return SP_OK;
    }
    human_time(need_s / (double)steps, step_txt, sizeof(step_txt));
    human_time(need_s, need_txt, sizeof(need_txt));
    snprintf(err, errlen,
             "one step of %s (%ld layers, hidden %ld, dp %d x pp %d x tp %d) is predicted to take "
             "%s at --tflops %.3g (the cost model of `scaleprobe predict`, communication not "
             "counted), so %ld warm-up and %ld measured step(s) need at least %s, more than "
             "--max-time %.3g s. Give a larger --max-time, a smaller model (--model, --layers, "
             "--hidden), a higher --tflops, or fewer steps (--warmup-steps, --min-steps, --steps)",
             model.name, model.layers, model.hidden, layout.dp, layout.pp, layout.tp, step_txt,
             opts->tflops, opts->warmup_steps, steps - opts->warmup_steps, need_txt,
             opts->max_time);
    return SP_ERR_INVALID;
}

/* The proxy step gate: the proxy's runs and their verdict against a baseline's runs. */
#include "perf_proxy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abstats.h"
#include "proxy_args.h"
#include "scratch.h"
#include "proxy_cmd.h"
#include "stats.h"

#define GATE_FDR 0.05   /* compare's default --fdr */
#define GATE_POWER 0.8  /* compare's power for the minimum detectable change */

const sp_spec_check_t *sp__accept_proxy_check(const sp_spec_t *spec)
{
    const sp_spec_check_t *found = NULL;

    for (int t = 0; t < spec->ntypes; t++) {
        for (int c = 0; c < spec->types[t].nchecks; c++) {
            if (strcmp(sp_check_defs[spec->types[t].checks[c].def].name, "proxy_step") == 0) {
                found = &spec->types[t].checks[c];
            }
        }
    }
    return found;
}

sp_status_t sp__accept_proxy_check_world(const sp_spec_t *spec, int nranks, char *err,
                                         size_t errlen)
{
    const sp_spec_check_t *c = sp__accept_proxy_check(spec);
    sp_proxy_opts_t *po = c != NULL ? calloc(1, sizeof(*po)) : NULL;
    sp_status_t st = c == NULL ? SP_OK : po == NULL ? SP_ERR_NOMEM : sp_accept_proxy_args(c, po, err, errlen);

    if (c != NULL && st == SP_OK) {
        char why[512] = "";
        st = sp_proxy_opts_check_world(po, nranks, why, sizeof(why));
        if (st != SP_OK) {
            snprintf(err, errlen, "%.200s:%d: proxy_step: %.700s", spec->path, c->line, why);
        }
    }
    free(po);
    return st;
}

sp_status_t sp__accept_proxy_summary(const sp_reader_t *rd, char *buf, size_t len, double *ms_p)
{
    const sp_proxy_info_t *i = &rd->proxy_info;
    double *v = NULL, *scratch;
    size_t n = 0;
    sp_status_t st;

    if (!rd->has_proxy || rd->proxy_predicted) {
        return SP_ERR_FORMAT;
    }
    st = sp_reader_proxy_steps(rd, offsetof(sp_proxy_rank_row_t, step_ms), &v, &n);
    if (st != SP_OK || n < 1) {
        free(v);
        return st != SP_OK ? st : SP_ERR_FORMAT;
    }
    scratch = malloc(n * sizeof(*scratch));
    if (scratch == NULL) {
        free(v);
        return SP_ERR_NOMEM;
    }
    *ms_p = sp_stats_median(v, n, scratch);
    free(scratch);
    free(v);
    snprintf(buf, len,
             "%s %s %s, world %d (dp %d pp %d tp %d), %d microbatches, %d chunks, layers %lld, "
             "hidden %lld, seq %lld, %g TFLOP/s, backend %s",
             rd->proxy_model, rd->proxy_schedule, rd->proxy_dp_mode, rd->world_size, i->dp, i->pp,
             i->tp, i->microbatches, i->chunks, (long long)i->layers, (long long)i->hidden,
             (long long)i->seq, i->tflops, rd->backend);
    return SP_OK;
}

/* Compare's test of one point over runs: baseline runs (A) against these (B). */
static sp_status_t judge(const sp_spec_check_t *c, const double *runs, int n, sp_ab_mintest_t *t,
                         sp_ab_verdict_t *v, double q[2])
{
    double thr = c->val[0].num / 100.0;
    sp_status_t st = sp_ab_min_effect(c->base_runs_ms, (size_t)c->nbase_runs, runs, (size_t)n,
                                      thr, GATE_FDR, GATE_POWER, 0.95, t);

    if (st == SP_OK) {
        st = sp_ab_verdicts(t, 1, GATE_FDR, &q[0], &q[1], v);
    }
    return st;
}

/* FAIL (the severity) when slower beyond the threshold, WARN when the runs cannot tell, PASS
 * when within the threshold or faster. */
static sp_verdict_t verdict_of(const sp_spec_check_t *c, sp_ab_verdict_t v)
{
    return v == SP_AB_SLOWER         ? (c->severity == SP_SEV_WARN ? SP_VERDICT_WARN
                                                                    : SP_VERDICT_FAIL)
           : v == SP_AB_INCONCLUSIVE ? SP_VERDICT_WARN
                                     : SP_VERDICT_PASS;
}

void sp__check_proxy(const sp_spec_check_t *c, const sp_check_input_t *in, sp_check_result_t *r)
{
    const sp_perf_node_t *p = in->perf;
    sp_ab_mintest_t t;
    sp_ab_verdict_t v;
    double q[2];

    snprintf(r->threshold, sizeof(r->threshold), "<= +%g%%", c->val[0].num);
    if (p == NULL || p->nproxy_runs == 0) {
        snprintf(r->value_text, sizeof(r->value_text), "-");
        sp__check_note(r, "not measured: %s", p == NULL ? "health only" : "the gate did not run");
        return;
    }
    if (strcmp(c->base_workload, p->proxy_workload) != 0) {
        r->verdict = SP_VERDICT_FAIL;
        snprintf(r->value_text, sizeof(r->value_text), "not comparable");
        sp__check_note(r, "the baseline ran %.200s; this run %.200s", c->base_workload,
                       p->proxy_workload);
        return;
    }
    if (judge(c, p->proxy_runs_ms, p->nproxy_runs, &t, &v, q) != SP_OK) {
        r->verdict = SP_VERDICT_FAIL;
        snprintf(r->value_text, sizeof(r->value_text), "no test");
        sp__check_note(r, "the runs' step times cannot be compared (a zero or missing value)");
        return;
    }
    r->value = t.ratio;
    snprintf(r->value_text, sizeof(r->value_text), "%.4fx", t.ratio);
    r->verdict = verdict_of(c, v);
    sp__check_note(r,
                   "%s: step time %.4fx the baseline (95%% CI %.4f-%.4f) over %d run(s) against "
                   "%d; q %.3g (slower/faster beyond %g%%), equivalence q %.3g, detectable "
                   "change %.1f%%; compare's minimum-effect test, FDR %.2f",
                   sp_ab_verdict_name(v), t.ratio, t.lo, t.hi, p->nproxy_runs, c->nbase_runs, q[0],
                   c->val[0].num, q[1], 100.0 * t.mde, GATE_FDR);
}

/* Rank 0: one run's file read back into its median step time and workload. */
static sp_status_t read_run(const char *path, double *ms_p, char *workload, size_t len)
{
    sp_reader_t *rd = calloc(1, sizeof(*rd));
    sp_status_t st = rd != NULL ? sp_reader_open(path, rd) : SP_ERR_NOMEM;

    if (st == SP_OK) {
        st = sp__accept_proxy_summary(rd, workload, len, ms_p);
        sp_reader_close(rd);
    }
    free(rd);
    return st;
}

/* One proxy run into OUTPUT.proxyK-R.h5, its median into *ms_p (rank 0). Collective. */
static sp_status_t one_run(sp_ctx_t *ctx, const sp_accept_opts_t *o, const sp_proxy_opts_t *po,
                           int attempt, int run, double *ms_p, char *workload, size_t len)
{
    char kind[32], path[SP_OPT_STRLEN + 32] = "";
    sp_result_t *scratch = NULL;
    sp_ctx_t sub = *ctx;
    sp_status_t st = SP_OK;

    snprintf(kind, sizeof(kind), "proxy%d-", attempt);
    if (ctx->rank == 0) {
        st = sp_accept_scratch_create(ctx, o, kind, "proxy", run, path, sizeof(path), &scratch);
    }
    st = sp_ctx_agree(ctx, st);
    if (st == SP_OK) {
        /* the proxy sizes a timeline of its own (accept keeps none) */
        memset(&sub.timeline, 0, sizeof(sub.timeline));
        sub.result = scratch;
        st = sp_proxy_run(&sub, po);
        sp_timeline_cleanup(&sub.timeline);
    }
    if (scratch != NULL) {
        sp_status_t cl = sp_result_close(scratch, st == SP_OK ? "complete" : "failed");
        st = st == SP_OK ? cl : st;
        if (st == SP_OK) {
            st = read_run(path, ms_p, workload, len);
        }
    }
    return sp_ctx_agree(ctx, st);
}

/* Rank 0: keep this attempt's runs when they judge better than the kept ones (a verdict nearer
 * PASS, then the lower ratio). */
static void keep_better(const sp_spec_check_t *c, const double *ms, int n, const char *workload,
                        int nnodes, sp_perf_node_t *cur)
{
    sp_ab_mintest_t tn, tk;
    sp_ab_verdict_t vn = SP_AB_INCONCLUSIVE, vk = SP_AB_INCONCLUSIVE;
    double q[2];
    int have = cur[0].nproxy_runs > 0, take = !have;

    if (have && judge(c, ms, n, &tn, &vn, q) == SP_OK &&
        judge(c, cur[0].proxy_runs_ms, cur[0].nproxy_runs, &tk, &vk, q) == SP_OK) {
        sp_verdict_t a = verdict_of(c, vn), b = verdict_of(c, vk);
        take = a < b || (a == b && tn.ratio < tk.ratio);
    }
    for (int node = 0; take && node < nnodes; node++) {
        memcpy(cur[node].proxy_runs_ms, ms, (size_t)n * sizeof(*ms));
        cur[node].nproxy_runs = n;
        snprintf(cur[node].proxy_workload, sizeof(cur[node].proxy_workload), "%s", workload);
    }
}

sp_status_t sp__accept_proxy_attempt(sp_ctx_t *ctx, const sp_accept_opts_t *o, int attempt,
                                     sp_perf_node_t *cur)
{
    const sp_spec_check_t *c = sp__accept_proxy_check(&o->spec);
    int runs = c->val[2].set ? (int)c->val[2].num : SP_PROXY_GATE_RUNS;
    sp_proxy_opts_t *po = calloc(1, sizeof(*po));
    double ms[SP_SPEC_MAX_LIST];
    char err[256] = "", workload[200] = "";
    sp_status_t st = po != NULL ? sp_accept_proxy_args(c, po, err, sizeof(err)) : SP_ERR_NOMEM;

    for (int r = 0; st == SP_OK && r < runs; r++) {
        if (ctx->rank == 0) {
            fprintf(stdout, "# accept: proxy step gate, attempt %d, run %d of %d\n", attempt,
                    r + 1, runs);
            fflush(stdout);
        }
        st = one_run(ctx, o, po, attempt, r + 1, &ms[r], workload, sizeof(workload));
    }
    if (st == SP_OK && ctx->rank == 0) {
        keep_better(c, ms, runs, workload, ctx->topo.nnodes, cur);
    }
    free(po);
    return st;
}

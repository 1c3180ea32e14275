/* The GPU checks' evaluations: a GPU count, per-GPU numbers against a limit, throttle reasons.
 * On a node where NVML sees no GPU every GPU check is "not applicable", never a pass. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks.h"

/* 1 (and r set to N/A) when the node has no GPU to judge. */
static int no_gpus(const sp_check_input_t *in, sp_check_result_t *r)
{
    if (in->h->ngpus > 0) {
        return 0;
    }
    r->verdict = SP_VERDICT_NA;
    snprintf(r->value_text, sizeof(r->value_text), "-");
    sp__check_note(r, "no GPU (NVML: %s)", in->h->ngpus < 0 ? in->h->nvml : "0 devices");
    return 1;
}

void sp__check_gpu_count(const sp_spec_check_t *c, const sp_check_input_t *in, sp_check_result_t *r)
{
    const sp_health_node_t *h = in->h;
    int n = h->ngpus < 0 ? 0 : h->ngpus;
    double want = c->val[0].num;

    r->value = n;
    snprintf(r->value_text, sizeof(r->value_text), "%d", n);
    snprintf(r->threshold, sizeof(r->threshold), "== %g", want);
    r->verdict = n == want                    ? SP_VERDICT_PASS
                 : c->severity == SP_SEV_WARN ? SP_VERDICT_WARN
                                              : SP_VERDICT_FAIL;
    sp__check_note(r, "NVML %s", h->nvml);
    if (h->ngpus >= 0 && h->nvml_count != h->ngpus) {
        sp__check_note(r, ", lists %d GPU(s) but opens %d", h->nvml_count, h->ngpus);
    }
    for (int i = 0; i < h->ngpus; i++) {
        sp__check_note(r, "%s gpu%d %s %s", i == 0 ? ":" : ";", h->gpu[i].index, h->gpu[i].name,
                       h->gpu[i].bus_id);
    }
}

void sp__check_gpu_numeric(const sp_spec_check_t *c, const sp_check_input_t *in,
                           sp_check_result_t *r)
{
    const sp_check_def_t *d = &sp_check_defs[c->def];
    int is_max = strcmp(d->params[0].name, "max") == 0;
    double limit = c->val[0].num, worst = NAN;
    int worst_gpu = -1, known = 0;

    if (no_gpus(in, r)) {
        return;
    }
    for (int i = 0; i < in->h->ngpus; i++) {
        const sp_health_gpu_t *g = &in->h->gpu[i];
        double v = d->gpu_value(g);
        int broken = v >= 0 && (is_max ? v > limit : v < limit);
        if (v < 0) {
            sp__check_note(r, "%sgpu%d ?", i > 0 ? " " : "", g->index);
            continue;
        }
        known++;
        sp__check_note(r, "%sgpu%d %g%s", i > 0 ? " " : "", g->index, v, broken ? "!" : "");
        if (worst_gpu < 0 || (is_max ? v > worst : v < worst)) {
            worst = v;
            worst_gpu = g->index;
        }
    }
    if (known == 0) {
        r->verdict = SP_VERDICT_NA;
        snprintf(r->value_text, sizeof(r->value_text), "-");
        snprintf(r->threshold, sizeof(r->threshold), "%s %g", is_max ? "<=" : ">=", limit);
        sp__check_note(r, " (NVML: not supported on these GPUs)");
        return;
    }
    sp__check_limit(c, worst, limit, is_max, r);
    snprintf(r->value_text, sizeof(r->value_text), "%g (gpu%d)", worst, worst_gpu);
}

/* Names of the reasons in bits that are in the spec's list p, into out; count of them. */
static int reasons_in(unsigned long long bits, const sp_spec_val_t *p, char *out, size_t len)
{
    int n = 0;

    out[0] = '\0';
    for (int t = 0; t < sp_health_nthrottles; t++) {
        if (!(bits & sp_health_throttles[t].bit)) {
            continue;
        }
        for (int k = 0; k < p->nlist; k++) {
            if (strcmp(p->names[k], sp_health_throttles[t].name) == 0) {
                size_t m = strlen(out);
                snprintf(out + m, len - m, "%s%s", n++ > 0 ? "," : "", p->names[k]);
            }
        }
    }
    return n;
}

void sp__check_throttle(const sp_spec_check_t *c, const sp_check_input_t *in, sp_check_result_t *r)
{
    unsigned long long all = 0;
    int nfail = 0, nwarn = 0, known = 0;

    snprintf(r->threshold, sizeof(r->threshold), "none of fail list; warn list warns");
    if (no_gpus(in, r)) {
        return;
    }
    for (int i = 0; i < in->h->ngpus; i++) {
        const sp_health_gpu_t *g = &in->h->gpu[i];
        char f[160], w[160];
        if (g->throttle < 0) {
            sp__check_note(r, "%sgpu%d ?", i > 0 ? " " : "", g->index);
            continue;
        }
        known++;
        all |= (unsigned long long)g->throttle;
        nfail += reasons_in((unsigned long long)g->throttle, &c->val[0], f, sizeof(f)) > 0;
        nwarn += reasons_in((unsigned long long)g->throttle, &c->val[1], w, sizeof(w)) > 0;
        sp__check_note(r, "%sgpu%d 0x%llx%s%s%s%s", i > 0 ? " " : "", g->index,
                       (unsigned long long)g->throttle, f[0] ? " fail:" : "", f,
                       w[0] ? " warn:" : "", w);
    }
    if (known == 0) {
        r->verdict = SP_VERDICT_NA;
        snprintf(r->value_text, sizeof(r->value_text), "-");
        return;
    }
    r->value = (double)all;
    snprintf(r->value_text, sizeof(r->value_text), "0x%llx", all);
    r->verdict = nfail > 0   ? (c->severity == SP_SEV_WARN ? SP_VERDICT_WARN : SP_VERDICT_FAIL)
                 : nwarn > 0 ? SP_VERDICT_WARN
                             : SP_VERDICT_PASS;
}

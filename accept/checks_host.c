/* The host checks' evaluations (memory, governor, InfiniBand/RoCE ports and counters, Xid
 * events) and the performance gates' comparison against their floors. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks.h"

void sp__check_memory(const sp_spec_check_t *c, const sp_check_input_t *in, sp_check_result_t *r)
{
    sp__check_limit(c, in->h->mem_gib, c->val[0].num, 0, r);
    snprintf(r->value_text, sizeof(r->value_text), "%.1f GiB", in->h->mem_gib);
    sp__check_note(r, "sysconf(_SC_PHYS_PAGES)");
}

void sp__check_governor(const sp_spec_check_t *c, const sp_check_input_t *in, sp_check_result_t *r)
{
    const sp_spec_val_t *want = &c->val[0];
    int ok = 0;

    snprintf(r->value_text, sizeof(r->value_text), "%s", in->h->governor);
    snprintf(r->threshold, sizeof(r->threshold), "one of");
    for (int k = 0; k < want->nlist; k++) {
        size_t n = strlen(r->threshold);
        snprintf(r->threshold + n, sizeof(r->threshold) - n, "%s%s", k > 0 ? "," : " ",
                 want->names[k]);
        ok |= strcmp(want->names[k], in->h->governor) == 0;
    }
    if (strncmp(in->h->governor, "none", 4) == 0) {
        r->verdict = SP_VERDICT_NA;
        sp__check_note(r, "no cpufreq under the sysfs root (a VM or container hides it)");
        return;
    }
    r->verdict =
        ok ? SP_VERDICT_PASS : (c->severity == SP_SEV_WARN ? SP_VERDICT_WARN : SP_VERDICT_FAIL);
    sp__check_note(r, "cpu*/cpufreq/scaling_governor");
}

static int port_active(const sp_health_port_t *p)
{
    return strcmp(p->state, "ACTIVE") == 0 && strcmp(p->phys_state, "LinkUp") == 0;
}

static void port_list(const sp_health_node_t *h, sp_check_result_t *r)
{
    for (int i = 0; i < h->nports; i++) {
        const sp_health_port_t *p = &h->port[i];
        sp__check_note(r, "%s%s/%d %s %s %gGb/s %s", i > 0 ? "; " : "", p->dev, p->port, p->state,
                       p->phys_state, p->rate_gbps, p->link_layer);
    }
    if (h->nports == 0) {
        sp__check_note(r, "%s", h->ib_source);
    }
}

void sp__check_ib_ports(const sp_spec_check_t *c, const sp_check_input_t *in, sp_check_result_t *r)
{
    int n = 0;

    for (int i = 0; i < in->h->nports; i++) {
        n += port_active(&in->h->port[i]);
    }
    sp__check_limit(c, n, c->val[0].num, 0, r);
    snprintf(r->value_text, sizeof(r->value_text), "%d of %d", n, in->h->nports);
    port_list(in->h, r);
}

void sp__check_ib_rate(const sp_spec_check_t *c, const sp_check_input_t *in, sp_check_result_t *r)
{
    double low = INFINITY;

    for (int i = 0; i < in->h->nports; i++) {
        if (port_active(&in->h->port[i]) && in->h->port[i].rate_gbps < low) {
            low = in->h->port[i].rate_gbps;
        }
    }
    if (isinf(low)) {
        r->verdict = SP_VERDICT_NA;
        snprintf(r->value_text, sizeof(r->value_text), "-");
        snprintf(r->threshold, sizeof(r->threshold), ">= %g", c->val[0].num);
        sp__check_note(r, "no active port: ");
        port_list(in->h, r);
        return;
    }
    sp__check_limit(c, low, c->val[0].num, 0, r);
    snprintf(r->value_text, sizeof(r->value_text), "%g Gb/s", low);
    port_list(in->h, r);
}

static int counter_wanted(const sp_spec_val_t *which, int counter)
{
    if (!which->set) {
        return 1;
    }
    for (int k = 0; k < which->nlist; k++) {
        if (strcmp(which->names[k], sp_health_ib_counter_names[counter]) == 0) {
            return 1;
        }
    }
    return 0;
}

void sp__check_ib_counters(const sp_spec_check_t *c, const sp_check_input_t *in,
                           sp_check_result_t *r)
{
    long long worst = -1;
    int nread = 0;

    for (int i = 0; i < in->h->nports; i++) {
        const sp_health_port_t *p = &in->h->port[i];
        for (int k = 0; k < SP_IB_NCOUNTERS; k++) {
            long long d;
            if (!counter_wanted(&c->val[1], k) || p->before[k] < 0 || p->after[k] < 0) {
                continue;
            }
            nread++;
            d = p->after[k] - p->before[k];
            if (d != 0) {
                sp__check_note(r, "%s%s/%d %s %lld->%lld (+%lld)", r->evidence[0] ? "; " : "",
                               p->dev, p->port, sp_health_ib_counter_names[k], p->before[k],
                               p->after[k], d);
            }
            worst = d > worst ? d : worst;
        }
    }
    if (nread == 0) {
        r->verdict = SP_VERDICT_NA;
        snprintf(r->value_text, sizeof(r->value_text), "-");
        snprintf(r->threshold, sizeof(r->threshold), "growth <= %g", c->val[0].num);
        sp__check_note(r, "no counter read: ");
        port_list(in->h, r);
        return;
    }
    sp__check_limit(c, (double)worst, c->val[0].num, 1, r);
    snprintf(r->value_text, sizeof(r->value_text), "+%lld", worst);
    snprintf(r->threshold, sizeof(r->threshold), "growth <= %g", c->val[0].num);
    if (r->evidence[0] == '\0') {
        sp__check_note(r, "%d counter(s) read before and after, none grew", nread);
    }
}

void sp__check_xid(const sp_spec_check_t *c, const sp_check_input_t *in, sp_check_result_t *r)
{
    const sp_health_node_t *h = in->h;
    int warn_unlisted = !c->val[1].set || c->val[1].num != 0;
    int nfail = 0, nwarn = 0;

    snprintf(r->threshold, sizeof(r->threshold), "no listed code%s",
             warn_unlisted ? "; others warn" : "");
    if (!h->xid_readable) {
        /* an unreadable log proves nothing: a warning, never a pass */
        r->verdict = SP_VERDICT_WARN;
        snprintf(r->value_text, sizeof(r->value_text), "unknown");
        sp__check_note(r, "%s", h->xid_source);
        return;
    }
    for (int i = 0; i < h->nxids && i < SP_HEALTH_MAX_XIDS; i++) {
        int listed = 0;
        for (int k = 0; k < c->val[0].nlist; k++) {
            listed |= (int)c->val[0].list[k] == h->xid[i].code;
        }
        nfail += listed;
        nwarn += !listed;
        sp__check_note(r, "%s%s", i > 0 ? " | " : "", h->xid[i].line);
    }
    r->value = h->nxids;
    snprintf(r->value_text, sizeof(r->value_text), "%d event(s)", h->nxids);
    if (h->nxids == 0) {
        sp__check_note(r, "none in %s", h->xid_source);
    }
    r->verdict = nfail > 0 ? (c->severity == SP_SEV_WARN ? SP_VERDICT_WARN : SP_VERDICT_FAIL)
                 : nwarn > 0 && warn_unlisted ? SP_VERDICT_WARN
                                              : SP_VERDICT_PASS;
}

void sp__check_perf(const sp_spec_check_t *c, const sp_check_input_t *in, sp_check_result_t *r)
{
    const char *name = sp_check_defs[c->def].name;
    const sp_perf_node_t *p = in->perf;
    int gemm = strcmp(name, "gemm_tflops") == 0, busbw = strcmp(name, "allreduce_busbw_gbps") == 0;
    double v = NAN;
    const char *evidence = "";

    if (p != NULL) {
        v = gemm ? p->gemm_tflops : busbw ? p->busbw_gbps : p->triad_gbps;
        evidence = gemm ? p->gemm_evidence : busbw ? p->busbw_evidence : p->triad_evidence;
    }
    double limit = c->val[0].set ? c->val[0].num : -INFINITY;
    double from_base = c->val[1].set ? c->val[1].num / 100.0 * c->baseline : NAN;

    /* the higher of the two floors when both are given */
    if (!isnan(from_base) && from_base > limit) {
        limit = from_base;
    }
    snprintf(r->threshold, sizeof(r->threshold), ">= %.4g", limit);
    if (isinf(limit)) {
        snprintf(r->threshold, sizeof(r->threshold), ">= %g%% of a baseline", c->val[1].num);
    }
    if (!isnan(from_base)) {
        snprintf(r->threshold, sizeof(r->threshold), ">= %.4g (%g%% of %.4g)", limit, c->val[1].num,
                 c->baseline);
    }
    if (isnan(v)) {
        r->verdict = SP_VERDICT_NA;
        snprintf(r->value_text, sizeof(r->value_text), "-");
        sp__check_note(r, "not measured: %s",
                       p == NULL             ? "health only"
                       : evidence[0] != '\0' ? evidence
                                             : "the gate did not run");
        return;
    }
    {
        char threshold[sizeof(r->threshold)];
        memcpy(threshold, r->threshold, sizeof(threshold));
        sp__check_limit(c, v, limit, 0, r);
        memcpy(r->threshold, threshold, sizeof(threshold));
    }
    snprintf(r->value_text, sizeof(r->value_text), "%.4g", v);
    sp__check_note(r, "best of %d attempt(s): %s", p->attempts, evidence);
    if (gemm && p->gemm_wrong > 0) {
        /* a wrong result is never a pass, however fast */
        r->verdict = SP_VERDICT_FAIL;
        snprintf(r->value_text, sizeof(r->value_text), "%lld wrong", p->gemm_wrong);
    }
    if (busbw && r->verdict != SP_VERDICT_PASS && !p->busbw_slowest) {
        /* the job's number is below its limit, but the slowest rank is on another node */
        r->verdict = SP_VERDICT_WARN;
        sp__check_note(r, "; the slowest rank is on another node");
    }
}

/* The links gate: a node fails when its median link is below "min" or when the links verdict
 * (its CI rule at 1 - min_ratio) names it a slow node; a slow link, or a link below "min", warns
 * at both ends (a cable or a switch port is no reason to drain a node). */
void sp__check_links(const sp_spec_check_t *c, const sp_check_input_t *in, sp_check_result_t *r)
{
    const sp_perf_node_t *p = in->perf;
    int has_min = c->val[0].set, has_ratio = c->val[1].set;
    double min = has_min ? c->val[0].num : 0.0;
    int node_bad, link_bad;

    /* ">= 2 | 0.8x": a median link in GB/s, and a share of the cohort */
    if (has_min && has_ratio) {
        snprintf(r->threshold, sizeof(r->threshold), ">= %.4g | %.4gx", min, c->val[1].num);
    } else if (has_min) {
        snprintf(r->threshold, sizeof(r->threshold), ">= %.4g", min);
    } else {
        snprintf(r->threshold, sizeof(r->threshold), ">= %.4gx cohort", c->val[1].num);
    }
    if (p == NULL || isnan(p->links_gbps)) {
        snprintf(r->value_text, sizeof(r->value_text), "-");
        sp__check_note(r, "not measured: %s",
                       p == NULL                       ? "health only"
                       : p->links_evidence[0] != '\0' ? p->links_evidence
                                                       : "the gate did not run");
        return;
    }
    node_bad = (has_min && p->links_gbps < min) || (has_ratio && p->links_node);
    link_bad = (has_min && p->links_worst_gbps < min) || (has_ratio && p->links_slow_link);
    r->value = p->links_gbps;
    snprintf(r->value_text, sizeof(r->value_text), "%.4g (%.2fx)", p->links_gbps, p->links_ratio);
    r->verdict = node_bad && c->severity == SP_SEV_FAIL ? SP_VERDICT_FAIL
                 : node_bad || link_bad                 ? SP_VERDICT_WARN
                                                        : SP_VERDICT_PASS;
    sp__check_note(r, "best of %d attempt(s): %s", p->attempts, p->links_evidence);
    if (!node_bad && link_bad) {
        sp__check_note(r, "; a slow link, not a slow node: check the cable and switch ports");
    }
}

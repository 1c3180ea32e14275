/* Verdicts: each node's type, its checks evaluated, the node's and the job's verdict. */
#include "verdict.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sp_verdict_t worse(sp_verdict_t a, sp_verdict_t b)
{
    /* N/A ranks below PASS here: a node of checks that do not apply passes, no check does */
    int ra = a == SP_VERDICT_NA ? 0 : a == SP_VERDICT_PASS ? 1 : (int)a;
    int rb = b == SP_VERDICT_NA ? 0 : b == SP_VERDICT_PASS ? 1 : (int)b;

    return ra >= rb ? a : b;
}

const char *sp_accept_row_check(const sp_accept_row_t *row)
{
    return row->check < 0 ? "node_type" : sp_check_defs[row->check].name;
}

static void no_type_row(const sp_spec_t *spec, const sp_health_node_t *h, sp_accept_row_t *row)
{
    sp_check_result_t *r = &row->res;

    snprintf(row->type, sizeof(row->type), "-");
    row->check = -1;
    r->verdict = SP_VERDICT_FAIL;
    r->value = NAN;
    snprintf(r->value_text, sizeof(r->value_text), "%d GPU(s)", h->ngpus < 0 ? 0 : h->ngpus);
    snprintf(r->threshold, sizeof(r->threshold), "a node type of the spec");
    snprintf(r->evidence, sizeof(r->evidence),
             "host %s with %d GPU(s) (NVML %s) matches none of:", h->host,
             h->ngpus < 0 ? 0 : h->ngpus, h->nvml);
    for (int t = 0; t < spec->ntypes; t++) {
        size_t n = strlen(r->evidence);
        snprintf(r->evidence + n, sizeof(r->evidence) - n, " %s(hosts %s, gpus %d)",
                 spec->types[t].name, spec->types[t].hosts, spec->types[t].gpus);
    }
}

sp_status_t sp_accept_evaluate(const sp_spec_t *spec, const sp_health_node_t *nodes,
                               const sp_perf_node_t *perf, int nnodes, sp_accept_eval_t *ev)
{
    memset(ev, 0, sizeof(*ev));
    ev->rows = calloc((size_t)nnodes * (SP_SPEC_MAX_CHECKS + 1), sizeof(*ev->rows));
    ev->node_verdict = calloc((size_t)nnodes, sizeof(*ev->node_verdict));
    if (ev->rows == NULL || ev->node_verdict == NULL) {
        sp_accept_eval_cleanup(ev);
        return SP_ERR_NOMEM;
    }
    ev->nnodes = nnodes;
    ev->job = SP_VERDICT_NA;
    for (int n = 0; n < nnodes; n++) {
        const sp_health_node_t *h = &nodes[n];
        int t = sp_spec_match(spec, h->host, h->ngpus);
        sp_check_input_t in = {.h = h, .perf = perf != NULL ? &perf[n] : NULL};
        sp_verdict_t nv = SP_VERDICT_NA;

        if (t < 0) {
            sp_accept_row_t *row = &ev->rows[ev->nrows++];
            row->node = n;
            snprintf(row->host, sizeof(row->host), "%s", h->host);
            no_type_row(spec, h, row);
            nv = SP_VERDICT_FAIL;
        }
        for (int c = 0; t >= 0 && c < spec->types[t].nchecks; c++) {
            const sp_spec_check_t *sc = &spec->types[t].checks[c];
            sp_accept_row_t *row = &ev->rows[ev->nrows++];
            row->node = n;
            snprintf(row->host, sizeof(row->host), "%s", h->host);
            snprintf(row->type, sizeof(row->type), "%s", spec->types[t].name);
            row->check = sc->def;
            row->line = sc->line;
            sp_check_eval(sc, &in, &row->res);
            nv = worse(nv, row->res.verdict);
        }
        ev->node_verdict[n] = nv == SP_VERDICT_NA ? SP_VERDICT_PASS : nv;
        ev->job = worse(ev->job, ev->node_verdict[n]);
    }
    for (int i = 0; i < ev->nrows; i++) {
        ev->counts[ev->rows[i].res.verdict]++;
    }
    if (ev->job == SP_VERDICT_NA) {
        ev->job = SP_VERDICT_PASS;
    }
    return SP_OK;
}

void sp_accept_eval_cleanup(sp_accept_eval_t *ev)
{
    free(ev->rows);
    free(ev->node_verdict);
    memset(ev, 0, sizeof(*ev));
}

/* Baselines: medians and spreads of good runs per node type and check, and their use as floors. */
#include "baseline.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "accept_result.h"
#include "checks.h"
#include "json.h"
#include "launcher.h"
#include "options.h"
#include "perf_proxy.h"
#include "stats.h"
#include "timeutil.h"

typedef struct {
    sp_opt_args_t files;
    int make;
    char output[SP_OPT_STRLEN];
    int force;
} mb_opts_t;

#define OFF(field) offsetof(mb_opts_t, field)

static const sp_opt_def_t mb_defs[] = {
    {"runs", 0, SP_OPT_ARGS, OFF(files), NULL, "RUN",
     "result files of good accept runs (their /accept/checks) and of good proxy runs (their step "
     "times, for proxy_step)", 1, -1, NULL, 0},
    {"make-baseline", 0, SP_OPT_FLAG, OFF(make), NULL, NULL, "build a baseline file", 0, -1, NULL,
     0},
    {"output", 'O', SP_OPT_STRING, OFF(output), "", "FILE", "the baseline file (JSON); required", 0,
     -1, NULL, 0},
    {"force", 0, SP_OPT_FLAG, OFF(force), NULL, NULL, "overwrite an existing baseline file", 0, -1,
     NULL, 0},
};

static const sp_opt_table_t mb_table = {
    .command = "accept --make-baseline",
    .summary = "Pool the measured values of good accept runs per node type and check: median, "
               "MAD, min, max,\ncount and runs, as a JSON baseline for 'accept --baseline'.",
    .defs = mb_defs,
    .ndefs = (int)(sizeof(mb_defs) / sizeof(mb_defs[0])),
};

/* The proxy runs among the files: each run's median step time, one workload for all. */
typedef struct {
    double ms[SP_SPEC_MAX_LIST];
    const char *file[SP_SPEC_MAX_LIST];
    int n;
    char workload[200];
} proxy_runs_t;

/* A (type, check) metric with its pooled values. */
typedef struct {
    char type[32];
    char check[32];
    double *v;
    size_t n, cap;
    int runs;
    int last_run;
} metric_t;

static metric_t *metric_of(metric_t **ms, size_t *nm, const sp_accept_check_row_t *r)
{
    metric_t *more;

    for (size_t i = 0; i < *nm; i++) {
        if (strcmp((*ms)[i].type, r->type) == 0 && strcmp((*ms)[i].check, r->check) == 0) {
            return &(*ms)[i];
        }
    }
    more = realloc(*ms, (*nm + 1) * sizeof(**ms));
    if (more == NULL) {
        return NULL;
    }
    *ms = more;
    memset(&more[*nm], 0, sizeof(more[*nm]));
    snprintf(more[*nm].type, sizeof(more[*nm].type), "%s", r->type);
    snprintf(more[*nm].check, sizeof(more[*nm].check), "%s", r->check);
    more[*nm].last_run = -1;
    return &more[(*nm)++];
}

static int add_value(metric_t *m, double v, int run)
{
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 16;
        double *more = realloc(m->v, cap * sizeof(double));
        if (more == NULL) {
            return 0;
        }
        m->v = more;
        m->cap = cap;
    }
    m->v[m->n++] = v;
    if (m->last_run != run) {
        m->runs++;
        m->last_run = run;
    }
    return 1;
}

static void write_metric(FILE *out, const metric_t *m, double *scratch)
{
    double med = sp_stats_median(m->v, m->n, scratch), mn = m->v[0], mx = m->v[0];
    double *dev = scratch + m->n;

    for (size_t i = 0; i < m->n; i++) {
        dev[i] = fabs(m->v[i] - med);
        mn = m->v[i] < mn ? m->v[i] : mn;
        mx = m->v[i] > mx ? m->v[i] : mx;
    }
    fprintf(out, "\"median\": %.9g", med);
    sp_json_num(out, "mad", sp_stats_median(dev, m->n, scratch));
    sp_json_num(out, "min", mn);
    sp_json_num(out, "max", mx);
    fprintf(out, ", \"n\": %zu, \"runs\": %d", m->n, m->runs);
}

static void write_proxy(FILE *out, const proxy_runs_t *pr)
{
    fprintf(out, ",\n \"proxy_step\": {\"workload\": ");
    sp_json_str(out, pr->workload);
    fprintf(out, ", \"run_medians_ms\": [");
    for (int i = 0; i < pr->n; i++) {
        fprintf(out, "%s%.9g", i > 0 ? ", " : "", pr->ms[i]);
    }
    fprintf(out, "], \"runs\": [");
    for (int i = 0; i < pr->n; i++) {
        fprintf(out, "%s", i > 0 ? ", " : "");
        sp_json_str(out, pr->file[i]);
    }
    fprintf(out, "]}");
}

static void write_baseline(FILE *out, const mb_opts_t *o, metric_t *ms, size_t nm, double *scratch,
                           const proxy_runs_t *pr)
{
    char created[32];

    sp_time_iso8601(time(NULL), created, sizeof(created));
    fprintf(out, "{\"scaleprobe_baseline\": 1, \"created\": \"%s\", \"runs\": [", created);
    for (int i = 0; i < o->files.n; i++) {
        fprintf(out, "%s", i > 0 ? ", " : "");
        sp_json_str(out, o->files.v[i]);
    }
    fprintf(out, "],\n \"metrics\": {");
    for (size_t i = 0; i < nm; i++) {
        int first = i == 0 || strcmp(ms[i - 1].type, ms[i].type) != 0;
        if (first) {
            fprintf(out, "%s\n  ", i > 0 ? "}," : "");
            sp_json_str(out, ms[i].type);
            fprintf(out, ": {");
        }
        fprintf(out, "%s\n    ", first ? "" : ",");
        sp_json_str(out, ms[i].check);
        fprintf(out, ": {");
        write_metric(out, &ms[i], scratch);
        fprintf(out, "}");
    }
    fprintf(out, "%s\n}", nm > 0 ? "}" : "");
    if (pr->n > 0) {
        write_proxy(out, pr);
    }
    fprintf(out, "}\n");
}

static int by_type(const void *a, const void *b)
{
    const metric_t *x = a, *y = b;
    int c = strcmp(x->type, y->type);

    return c != 0 ? c : strcmp(x->check, y->check);
}

/* A file without /accept: a proxy run (its median step time), else not a run to pool. */
static sp_status_t pool_proxy(const char *path, proxy_runs_t *pr, char *err, size_t errlen)
{
    sp_reader_t *rd = calloc(1, sizeof(*rd));
    char workload[sizeof(pr->workload)];
    double ms = NAN;
    sp_status_t st = rd == NULL ? SP_ERR_NOMEM : sp_reader_open(path, rd);

    if (st == SP_OK) {
        st = sp__accept_proxy_summary(rd, workload, sizeof(workload), &ms);
        sp_reader_close(rd);
    }
    free(rd);
    if (st != SP_OK) {
        snprintf(err, errlen, "%.600s: %s", path,
                 st == SP_ERR_NOMEM ? "out of memory"
                                    : "neither an accept result (/accept/checks) nor a measured "
                                      "proxy run (/proxy)");
        return st == SP_ERR_NOMEM ? st : SP_ERR_INVALID;
    }
    if (pr->n > 0 && strcmp(pr->workload, workload) != 0) {
        snprintf(err, errlen, "%.300s ran another proxy than %.300s: %.300s", path, pr->file[0],
                 workload);
        return SP_ERR_INVALID;
    }
    if (pr->n == SP_SPEC_MAX_LIST) {
        snprintf(err, errlen, "more than %d proxy runs", SP_SPEC_MAX_LIST);
        return SP_ERR_INVALID;
    }
    memcpy(pr->workload, workload, sizeof(workload));
    pr->file[pr->n] = path;
    pr->ms[pr->n++] = ms;
    return SP_OK;
}

/* Pool every file's measured values of PASS or WARN rows (a failed value is no baseline), and
 * the proxy runs. */
static sp_status_t pool(const mb_opts_t *o, metric_t **ms, size_t *nm, size_t *most,
                        proxy_runs_t *pr, char *err, size_t errlen)
{
    for (int f = 0; f < o->files.n; f++) {
        sp_accept_check_row_t *rows = NULL;
        size_t n = 0;
        sp_status_t st = sp_accept_result_read_checks(o->files.v[f], &rows, &n);
        if (st == SP_ERR_FORMAT) {
            st = pool_proxy(o->files.v[f], pr, err, errlen);
            if (st != SP_OK) {
                return st;
            }
            continue;
        }
        if (st != SP_OK) {
            snprintf(err, errlen, "%.600s: cannot read it", o->files.v[f]);
            return st;
        }
        for (size_t i = 0; i < n; i++) {
            metric_t *m;
            if (isnan(rows[i].value) ||
                (rows[i].verdict != SP_VERDICT_PASS && rows[i].verdict != SP_VERDICT_WARN)) {
                continue;
            }
            if ((m = metric_of(ms, nm, &rows[i])) == NULL || !add_value(m, rows[i].value, f)) {
                free(rows);
                return SP_ERR_NOMEM;
            }
            *most = m->n > *most ? m->n : *most;
        }
        free(rows);
    }
    if (pr->n == 1) {
        snprintf(err, errlen, "one proxy run (%.600s): the test needs at least 2", pr->file[0]);
        return SP_ERR_INVALID;
    }
    return SP_OK;
}

int sp_accept_make_baseline_main(int argc, char **argv)
{
    mb_opts_t o;
    char *store[256], err[1024] = "";
    metric_t *ms = NULL;
    proxy_runs_t pr;
    size_t nm = 0, most = 0;
    int help = 0, rc = 0;
    FILE *out;
    double *scratch;
    sp_status_t st;

    memset(&o, 0, sizeof(o));
    memset(&pr, 0, sizeof(pr));
    o.files.v = store;
    o.files.cap = argc < 256 ? argc : 256;
    st = sp_opts_parse(&mb_table, argc, argv, 2, &o, &help, NULL, err, sizeof(err));
    if (st == SP_OK && help) {
        sp_opts_help(&mb_table, stdout);
        return 0;
    }
    if (st == SP_OK && o.output[0] == '\0') {
        snprintf(err, sizeof(err), "give the baseline file with -O FILE");
        st = SP_ERR_INVALID;
    }
    if (st == SP_OK && !o.force && access(o.output, F_OK) == 0) {
        snprintf(err, sizeof(err), "%.900s exists (use --force to overwrite)", o.output);
        st = SP_ERR_EXISTS;
    }
    if (st == SP_OK) {
        st = pool(&o, &ms, &nm, &most, &pr, err, sizeof(err));
    }
    if (st == SP_OK && nm == 0 && pr.n == 0) {
        snprintf(err, sizeof(err), "the runs hold no measured value that passed");
        st = SP_ERR_INVALID;
    }
    scratch = st == SP_OK ? calloc(2 * most + 1, sizeof(double)) : NULL;
    if (st == SP_OK && scratch == NULL) {
        st = SP_ERR_NOMEM;
    }
    if (st == SP_OK) {
        if (nm > 0) {
            qsort(ms, nm, sizeof(*ms), by_type); /* ms is NULL when only proxies were pooled */
        }
        out = fopen(o.output, "w");
        if (out == NULL) {
            snprintf(err, sizeof(err), "cannot write %.900s: %s", o.output, strerror(errno));
            st = SP_ERR_IO;
        } else {
            write_baseline(out, &o, ms, nm, scratch, &pr);
            st = fclose(out) == 0 ? SP_OK : SP_ERR_IO;
            printf("# baseline: %zu metric(s) from %d run(s), %d proxy run(s) -> %s\n", nm,
                   o.files.n - pr.n, pr.n, o.output);
        }
    }
    if (st != SP_OK) {
        sp_launcher_error("accept", err[0] ? err : sp_status_str(st));
        rc = sp_status_exit_code(st);
    }
    for (size_t i = 0; i < nm; i++) {
        free(ms[i].v);
    }
    free(ms);
    free(scratch);
    return rc;
}

static const cJSON *baseline_entry(const cJSON *root, const char *type, const char *check)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(root, "metrics");
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(m, type);
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(t, check);

    return cJSON_GetObjectItemCaseSensitive(c, "median");
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    long n;

    if (f != NULL && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && n < (1 << 24) &&
        fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)n + 1)) != NULL) {
        if (fread(text, 1, (size_t)n, f) != (size_t)n) {
            free(text);
            text = NULL;
        } else {
            text[n] = '\0';
        }
    }
    if (f != NULL) {
        fclose(f);
    }
    return text;
}

/* proxy_step: the baseline's proxy runs into the check (at least 2, with their workload). */
static sp_status_t apply_proxy(const cJSON *root, const char *path, const sp_spec_t *spec,
                               sp_spec_check_t *sc, char *err, size_t errlen)
{
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(root, "proxy_step");
    const cJSON *runs = cJSON_GetObjectItemCaseSensitive(p, "run_medians_ms");
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(p, "workload");
    const cJSON *v;
    int n = 0;

    cJSON_ArrayForEach(v, runs)
    {
        if (!cJSON_IsNumber(v) || !(v->valuedouble > 0.0) || n == SP_SPEC_MAX_LIST) {
            n = -1;
            break;
        }
        sc->base_runs_ms[n++] = v->valuedouble;
    }
    if (root == NULL || !cJSON_IsString(w) || n < 2) {
        snprintf(err, errlen,
                 "%.200s:%d: check 'proxy_step' needs %s%.400s holding 2 to %d proxy runs "
                 "('accept --make-baseline PROXY_RUNS... -O FILE')",
                 spec->path, sc->line, root == NULL ? "--baseline FILE" : "a baseline ",
                 root == NULL ? "" : path, SP_SPEC_MAX_LIST);
        return SP_ERR_INVALID;
    }
    sc->nbase_runs = n;
    snprintf(sc->base_workload, sizeof(sc->base_workload), "%s", w->valuestring);
    return SP_OK;
}

sp_status_t sp_accept_baseline_apply(const char *path, sp_spec_t *spec, char *err, size_t errlen)
{
    cJSON *root = NULL;
    sp_status_t st = SP_OK;

    if (path[0] != '\0') {
        char *text = read_text(path);
        root = text != NULL ? cJSON_Parse(text) : NULL;
        free(text);
        if (root == NULL || !cJSON_IsNumber(cJSON_GetObjectItem(root, "scaleprobe_baseline"))) {
            snprintf(err, errlen,
                     "--baseline %.600s: not a baseline file of 'accept "
                     "--make-baseline'",
                     path);
            cJSON_Delete(root);
            return SP_ERR_INVALID;
        }
    }
    for (int t = 0; t < spec->ntypes && st == SP_OK; t++) {
        for (int c = 0; c < spec->types[t].nchecks && st == SP_OK; c++) {
            sp_spec_check_t *sc = &spec->types[t].checks[c];
            const sp_check_def_t *d = &sp_check_defs[sc->def];
            const cJSON *med;
            if (strcmp(d->name, "proxy_step") == 0) {
                st = apply_proxy(root, path, spec, sc, err, errlen);
                continue;
            }
            if (d->params[1].name == NULL || strcmp(d->params[1].name, "baseline_pct") != 0 ||
                !sc->val[1].set) {
                continue;
            }
            med = root != NULL ? baseline_entry(root, spec->types[t].name, d->name) : NULL;
            if (!cJSON_IsNumber(med)) {
                snprintf(err, errlen,
                         "%.200s:%d: check '%s' of node type '%s' has baseline_pct "
                         "but %s%.400s",
                         spec->path, sc->line, d->name, spec->types[t].name,
                         root == NULL ? "no --baseline FILE is given" : "no entry in ",
                         root == NULL ? "" : path);
                st = SP_ERR_INVALID;
            } else {
                sc->baseline = med->valuedouble;
            }
        }
    }
    cJSON_Delete(root);
    return st;
}

/* Verdicts, printing and the exclude list of `scaleprobe links` (see links_report.h). */
#include "links_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "links_verdict.h"
#include "stats.h"

#define MAX_MATRIX_UNITS 16

static const char *const side_names[] = {"both", "send", "recv"};

static const char *host_of(const sp_links_result_data_t *d, int unit)
{
    return unit >= 0 && (size_t)unit < d->nunits ? d->units[unit].host : "?";
}

/* A unit's matrix label: its host, or host:rank when the units are ranks. */
static const char *label_of(const sp_links_result_data_t *d, int unit, char *buf, size_t len)
{
    if (strcmp(d->per, "rank") != 0 || unit < 0 || (size_t)unit >= d->nunits) {
        return host_of(d, unit);
    }
    snprintf(buf, len, "%s:%d", d->units[unit].host, d->units[unit].rank);
    return buf;
}

const sp_links_pair_row_t **sp_links_best_rows(const sp_links_result_data_t *d,
                                               sp_links_metric_t m, int n)
{
    const sp_links_pair_row_t **best = calloc((size_t)n * (size_t)n, sizeof(*best));

    for (size_t k = 0; k < d->npairs && best != NULL; k++) {
        const sp_links_pair_row_t *p = &d->pairs[k];
        if (p->metric != (int8_t)m || p->src < 0 || p->dst < 0 || p->src >= n || p->dst >= n) {
            continue;
        }
        for (int t = 0; t < (m == SP_LINKS_LAT ? 2 : 1); t++) {
            /* latency: one value, both ways */
            size_t at = t == 0 ? (size_t)p->src * (size_t)n + (size_t)p->dst
                               : (size_t)p->dst * (size_t)n + (size_t)p->src;
            if (best[at] == NULL || sp_links_row_better(p, best[at])) {
                best[at] = p;
            }
        }
    }
    return best;
}

/* The matrix of one metric as rates (higher is better) for the classifier. */
static sp_status_t rates_of(const sp_links_result_data_t *d, sp_links_metric_t m, int n,
                            sp_node_est_t *est)
{
    const sp_links_pair_row_t **best = sp_links_best_rows(d, m, n);

    if (best == NULL) {
        return SP_ERR_NOMEM;
    }
    for (size_t i = 0; i < (size_t)n * (size_t)n; i++) {
        const sp_links_pair_row_t *p = best[i];
        /* 1 / time: bandwidth up to the constant bytes, latency inverted */
        est[i].median = p != NULL ? 1.0 / p->median_us : NAN;
        est[i].ci_lo = p != NULL ? 1.0 / p->ci_hi_us : NAN;
        est[i].ci_hi = p != NULL ? 1.0 / p->ci_lo_us : NAN;
    }
    free(best);
    return SP_OK;
}

/* The bytes of the metric's messages (one size per run). */
static double bytes_of(const sp_links_result_data_t *d, sp_links_metric_t m)
{
    for (size_t k = 0; k < d->npairs; k++) {
        if (d->pairs[k].metric == (int8_t)m) {
            return (double)d->pairs[k].bytes;
        }
    }
    return NAN;
}

int sp_links_rails(const sp_links_result_data_t *d, int *nodes_p)
{
    int nrails = 0;
    int k;

    *nodes_p = (int)d->nunits;
    if (strcmp(d->per, "rail") != 0 || d->nunits == 0) {
        return 1;
    }
    for (size_t u = 0; u < d->nunits; u++) {
        nrails = d->units[u].rail >= nrails ? d->units[u].rail + 1 : nrails;
    }
    k = nrails > 0 ? (int)d->nunits / nrails : 0;
    /* rail-major, every rail the same node count: else one block (a damaged file) */
    for (size_t u = 0; u < d->nunits && k > 0; u++) {
        if (k * nrails != (int)d->nunits || d->units[u].rail != (int)u / k) {
            return 1;
        }
    }
    *nodes_p = k;
    return k > 0 ? nrails : 1;
}

sp_status_t sp_links_analyze_rail(const sp_links_result_data_t *d,
                                  const double threshold[SP_LINKS_METRIC_COUNT], int rail,
                                  sp_links_outlier_row_t *out, size_t *nout_p, double *cohort)
{
    int n = (int)d->nunits;
    int k = 0;
    int nrails = sp_links_rails(d, &k);
    int off = rail * k;
    size_t nn = (size_t)n * (size_t)n;
    sp_node_est_t *est = calloc(nn + (size_t)k * (size_t)k, sizeof(*est));
    sp_node_est_t *blk = est + nn;
    sp_links_finding_t *f = calloc((size_t)k + (size_t)k * (size_t)k, sizeof(*f));
    size_t nout = 0;
    sp_status_t status = est != NULL && f != NULL ? SP_OK : SP_ERR_NOMEM;

    if (rail < 0 || rail >= nrails) {
        status = SP_ERR_INVALID;
    }
    for (int m = 0; m < SP_LINKS_METRIC_COUNT && status == SP_OK; m++) {
        int nf = 0;
        double c = NAN;
        double b = bytes_of(d, (sp_links_metric_t)m);
        cohort[m] = NAN;
        if (isnan(b)) {
            continue; /* not measured */
        }
        status = rates_of(d, (sp_links_metric_t)m, n, est);
        /* the rail's block of the matrix (all of it without rails) */
        for (int i = 0; i < k * k; i++) {
            blk[i] = est[(size_t)(off + i / k) * (size_t)n + (size_t)(off + i % k)];
        }
        if (status == SP_OK) {
            status = sp_links_classify(k, blk, threshold[m], f, &nf, &c);
        }
        /* back from 1 / time to the metric's units (GB/s, us); a latency ratio is the
         * inverse of the rate ratio and its CI swaps ends */
        cohort[m] = m == SP_LINKS_BW ? b * c * 1e-3 : 1.0 / c;
        for (int i = 0; i < nf && status == SP_OK; i++) {
            sp_links_outlier_row_t *o = &out[nout++];
            memset(o, 0, sizeof(*o));
            o->metric = (int8_t)m;
            o->kind = (int8_t)f[i].kind;
            o->side = (int8_t)f[i].side;
            o->a = off + f[i].a;
            o->b = f[i].b >= 0 ? off + f[i].b : -1;
            snprintf(o->host_a, sizeof(o->host_a), "%s", host_of(d, o->a));
            snprintf(o->host_b, sizeof(o->host_b), "%s", o->b >= 0 ? host_of(d, o->b) : "");
            o->ratio = m == SP_LINKS_BW ? f[i].ratio : 1.0 / f[i].ratio;
            o->ratio_lo = m == SP_LINKS_BW ? f[i].ratio_lo : 1.0 / f[i].ratio_hi;
            o->ratio_hi = m == SP_LINKS_BW ? f[i].ratio_hi : 1.0 / f[i].ratio_lo;
            o->cohort = cohort[m];
            o->nslow = f[i].nslow;
            o->nlinks = f[i].nlinks;
            o->rail = strcmp(d->per, "rail") == 0 ? rail : -1;
        }
    }
    *nout_p = nout;
    free(f);
    free(est);
    return status;
}

sp_status_t sp_links_analyze(const sp_links_result_data_t *d,
                             const double threshold[SP_LINKS_METRIC_COUNT],
                             sp_links_outlier_row_t *out, size_t *nout_p, double *cohort)
{
    int k = 0;
    int nrails = sp_links_rails(d, &k);
    /* the rails' cohorts, then the values of one metric and sort space */
    double *rc = calloc((size_t)nrails * (SP_LINKS_METRIC_COUNT + 2), sizeof(double));
    double *v = rc + (size_t)nrails * SP_LINKS_METRIC_COUNT;
    size_t nout = 0;
    sp_status_t status = rc != NULL ? SP_OK : SP_ERR_NOMEM;

    for (int q = 0; q < nrails && status == SP_OK; q++) {
        size_t nq = 0;
        status = sp_links_analyze_rail(d, threshold, q, out + nout, &nq,
                                       rc + (size_t)q * SP_LINKS_METRIC_COUNT);
        nout += nq;
    }
    /* one cohort per metric: the rails' median (the rail's own is in its outlier rows) */
    for (int m = 0; m < SP_LINKS_METRIC_COUNT && status == SP_OK; m++) {
        int nv = 0;
        for (int q = 0; q < nrails; q++) {
            double c = rc[(size_t)q * SP_LINKS_METRIC_COUNT + (size_t)m];
            if (!isnan(c)) {
                v[nv++] = c;
            }
        }
        cohort[m] = nv > 0 ? sp_stats_median(v, (size_t)nv, v + nrails) : NAN;
    }
    *nout_p = nout;
    free(rc);
    return status;
}

/* The matrix of metric m, one block of k units from off per rail (all units without rails). */
static void print_matrix(const sp_links_result_data_t *d, sp_links_metric_t m, FILE *out)
{
    int n = (int)d->nunits;
    int k = 0;
    int nrails = sp_links_rails(d, &k);
    char label[SP_HOST_LEN + 16];
    const sp_links_pair_row_t **best;

    if (k > MAX_MATRIX_UNITS || isnan(bytes_of(d, m))) {
        return;
    }
    best = sp_links_best_rows(d, m, n);
    for (int q = 0; q < nrails && best != NULL; q++) {
        int off = q * k;
        char rail[32] = "";
        if (strcmp(d->per, "rail") == 0) {
            snprintf(rail, sizeof(rail), ", rail %d", q);
        }
        fprintf(out, "#\n# %s (%s, %.0f B%s%s), row: from, column: to\n# %12s",
                sp_links_metric_names[m], sp_links_metric_units(m), bytes_of(d, m),
                m == SP_LINKS_BW ? " one way" : " exchanged", rail, "");
        for (int j = off; j < off + k; j++) {
            fprintf(out, " %9.9s", label_of(d, j, label, sizeof(label)));
        }
        fprintf(out, "\n");
        for (int i = off; i < off + k; i++) {
            fprintf(out, "# %12.12s", label_of(d, i, label, sizeof(label)));
            for (int j = off; j < off + k; j++) {
                const sp_links_pair_row_t *p = best[i * n + j];
                if (p == NULL) {
                    fprintf(out, " %9s", i == j ? "-" : ".");
                } else {
                    fprintf(out, " %9.3f", p->value);
                }
            }
            fprintf(out, "\n");
        }
    }
    free(best);
}

static void print_outlier(const sp_links_outlier_row_t *o, int per_rail, FILE *out)
{
    const char *m = sp_links_metric_names[o->metric];
    const char *what = o->metric == SP_LINKS_BW ? "the cohort's bandwidth" : "the cohort's latency";
    char rail[32] = "";

    if (per_rail) {
        snprintf(rail, sizeof(rail), " on rail %d", o->rail);
    }
    if (o->kind == SP_LINKS_FIND_NODE) {
        fprintf(out,
                "# SLOW NODE %s: %s%s (unit %d): its links at %.3f x %s (95%% CI %.3f-%.3f), %d "
                "of %d slow, side %s (%s)\n",
                m, o->host_a, rail, o->a, o->ratio, what, o->ratio_lo, o->ratio_hi, o->nslow,
                o->nlinks, side_names[o->side],
                o->side == 0 ? "sending and receiving" : (o->side == 1 ? "what it sends"
                                                                       : "what it receives"));
        return;
    }
    fprintf(out, "# SLOW LINK %s: %s %s %s%s (units %d, %d): %.3f x %s (95%% CI %.3f-%.3f)\n",
            m, o->side == SP_LINKS_SIDE_RECV ? o->host_b : o->host_a,
            o->side == SP_LINKS_SIDE_BOTH || o->metric == SP_LINKS_LAT ? "<->" : "->",
            o->side == SP_LINKS_SIDE_RECV ? o->host_a : o->host_b, rail, o->a, o->b, o->ratio,
            what, o->ratio_lo, o->ratio_hi);
}

/* Per rail: for each host a rail's matrix names as a node, on how many of the rails (all: the
 * node; some: those rails' NICs, cables or switch ports). */
static void print_rail_verdicts(const sp_links_result_data_t *d, FILE *out)
{
    int k = 0;
    int nrails = sp_links_rails(d, &k);

    for (size_t i = 0; i < d->noutliers; i++) {
        const sp_links_outlier_row_t *o = &d->outliers[i];
        char rails[256] = "";
        size_t at = 0;
        int nslow = 0;
        int first = 1;
        if (o->kind != SP_LINKS_FIND_NODE) {
            continue;
        }
        for (size_t j = 0; j < d->noutliers; j++) {
            const sp_links_outlier_row_t *p = &d->outliers[j];
            if (p->kind != SP_LINKS_FIND_NODE || p->metric != o->metric ||
                strcmp(p->host_a, o->host_a) != 0) {
                continue;
            }
            first &= j >= i; /* printed at the host's first row of the metric */
            nslow++;
            if (at < sizeof(rails)) {
                at += (size_t)snprintf(rails + at, sizeof(rails) - at, " %d", p->rail);
            }
        }
        if (!first) {
            continue;
        }
        fprintf(out, "# RAILS %s: %s slow on %d of %d rails (%s): %s\n",
                sp_links_metric_names[o->metric], o->host_a, nslow, nrails, rails + 1,
                nslow == nrails ? "a node fault (all its rails)"
                                : "a rail fault (the NIC, cable or switch port of those rails)");
    }
}

static void print_screen(const sp_links_result_data_t *d, FILE *out)
{
    for (size_t i = 0; i < d->nscreen; i++) {
        const sp_links_bisect_step_t *s = &d->screen[i];
        fprintf(out,
                "# screen round %zu (split %d, try %d): units %d-%d (%s..) vs %d-%d (%s..), groups "
                "of %d: t_b/t_a %.3f (CI %.3f-%.3f, %zu samples) -> %s\n",
                i + 1, s->level, s->attempt, s->a_lo, s->a_hi - 1, host_of(d, s->a_lo), s->b_lo,
                s->b_hi - 1, host_of(d, s->b_lo), s->group_size, s->ratio, s->ratio_lo,
                s->ratio_hi, s->samples,
                s->decision < 0 ? "first slower" : (s->decision > 0 ? "second slower"
                                                                    : "inconclusive"));
    }
    if (d->screen_verdict[0] != '\0') {
        fprintf(out, "# SCREEN: %s\n", d->screen_verdict);
    }
}

int sp_links_screen_host(const sp_links_result_data_t *d, char *host, size_t len)
{
    const char *p = d->screen_verdict + 10;
    size_t n;

    host[0] = '\0';
    if (strncmp(d->screen_verdict, "slow node ", 10) != 0) {
        return 0;
    }
    n = strcspn(p, " ");
    if (n == 0 || n >= len) {
        return 0;
    }
    memcpy(host, p, n);
    host[n] = '\0';
    return 1;
}

/* 1 when host is one of the comma list's names. */
static int listed(const char *list, const char *host)
{
    size_t n = strlen(host);

    for (const char *p = list; *p != '\0'; p += strcspn(p, ",") + (p[strcspn(p, ",")] != '\0')) {
        if (strncmp(p, host, n) == 0 && (p[n] == ',' || p[n] == '\0')) {
            return 1;
        }
    }
    return 0;
}

int sp_links_exclude_hosts(const sp_links_result_data_t *d, char *buf, size_t len)
{
    int n = 0;
    size_t at = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < d->noutliers; i++) {
        const sp_links_outlier_row_t *o = &d->outliers[i];
        int dup = 0;
        if (o->kind != SP_LINKS_FIND_NODE) {
            continue;
        }
        for (size_t j = 0; j < i; j++) {
            /* by host: units per rank or rail share it */
            dup |= d->outliers[j].kind == SP_LINKS_FIND_NODE &&
                   strcmp(d->outliers[j].host_a, o->host_a) == 0;
        }
        if (!dup && at < len) {
            at += (size_t)snprintf(buf + at, len - at, "%s%s", n > 0 ? "," : "", o->host_a);
            n++;
        }
    }
    /* the screen's node, when the matrix did not already name it */
    {
        char host[SP_HOST_LEN];
        if (sp_links_screen_host(d, host, sizeof(host)) && !listed(buf, host) && at < len) {
            at += (size_t)snprintf(buf + at, len - at, "%s%s", n > 0 ? "," : "", host);
            n++;
        }
    }
    return n;
}

void sp_links_report_print(const sp_links_result_data_t *d, FILE *out)
{
    char hosts[4096];
    int nn = 0;
    int per_rail = strcmp(d->per, "rail") == 0;

    char rails[64] = "";
    int k = 0;
    int nrails = sp_links_rails(d, &k);

    if (per_rail) {
        snprintf(rails, sizeof(rails), ": %d rail(s) x %d nodes", nrails, k);
    }
    fprintf(out, "# links: %zu units (per %s%s), mode %s, rounds %s, threshold %s\n",
            d->nunits, d->per, rails, d->mode, d->rounds[0] ? d->rounds : "-", d->threshold);
    print_matrix(d, SP_LINKS_BW, out);
    print_matrix(d, SP_LINKS_LAT, out);
    if (d->npairs > 0) {
        for (size_t i = 0; i < d->noutliers; i++) {
            print_outlier(&d->outliers[i], per_rail, out);
        }
        if (per_rail) {
            print_rail_verdicts(d, out);
        }
        if (d->noutliers == 0) {
            fprintf(out, "# no slow node or link (none below the threshold with its whole CI)\n");
        }
    }
    print_screen(d, out);
    nn = sp_links_exclude_hosts(d, hosts, sizeof(hosts));
    if (nn > 0) {
        fprintf(out, "# exclude (%d node(s)): %s\n", nn, hosts);
        fprintf(out, "# slurm (printed, not run): sbatch --exclude=%s ...\n", hosts);
        /* one drain per host, with its first finding as the reason */
        for (char *h = strtok(hosts, ","); h != NULL; h = strtok(NULL, ",")) {
            char reason[128] = "slow in the screen";
            for (size_t i = d->noutliers; i-- > 0;) {
                const sp_links_outlier_row_t *o = &d->outliers[i];
                if (o->kind == SP_LINKS_FIND_NODE && strcmp(o->host_a, h) == 0) {
                    snprintf(reason, sizeof(reason), "%s %.2fx cohort",
                             sp_links_metric_names[o->metric], o->ratio);
                }
            }
            fprintf(out, "# slurm (printed, not run): scontrol update nodename=%s state=drain "
                         "reason=\"scaleprobe links: %s\"\n",
                    h, reason);
        }
    } else {
        fprintf(out, "# exclude: none\n");
    }
}

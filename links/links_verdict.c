/* Node faults and link faults from a link matrix (see links_verdict.h). */
#include "links_verdict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

typedef struct {
    int n;
    double threshold;
    const sp_node_est_t *est;
    sp_node_verdict_t *v;  /* n * n, valid where est is measured */
    unsigned char *named;  /* n */
    double *ratios;        /* 2n: one unit's link ratios */
    double *scratch;       /* 4n: sort space, then the units' medians at 2n */
} classify_t;

static int measured(const classify_t *c, int i, int j)
{
    return i != j && !isnan(c->est[(size_t)i * (size_t)c->n + (size_t)j].median);
}

/* One side of unit u (row: u -> j, column: j -> u) over units not named: links, flagged
 * links, and their ratios into dst (n entries). */
static int side_links(const classify_t *c, int u, int row, double *dst, int *nslow_p)
{
    int m = 0;
    int slow = 0;

    for (int j = 0; j < c->n; j++) {
        int a = row ? u : j;
        int b = row ? j : u;
        if (j == u || c->named[j] || !measured(c, a, b)) {
            continue;
        }
        const sp_node_verdict_t *v = &c->v[(size_t)a * (size_t)c->n + (size_t)b];
        dst[m++] = v->ratio;
        slow += v->flagged;
    }
    *nslow_p = slow;
    return m;
}

/* The node fault of unit u on the given sides, if its slow share and CI qualify. */
static int node_finding(classify_t *c, int u, sp_links_finding_t *f)
{
    int nr_slow = 0;
    int nc_slow = 0;
    int nr = side_links(c, u, 1, c->ratios, &nr_slow);
    int nc = side_links(c, u, 0, c->ratios + nr, &nc_slow);
    int row_bad = nr >= 2 && 2 * nr_slow > nr;
    int col_bad = nc >= 2 && 2 * nc_slow > nc;
    int m = nr + nc;
    sp_node_est_t e;

    if (!row_bad && !col_bad) {
        return 0;
    }
    /* the ratios of the slow side(s) only */
    if (!row_bad) {
        memmove(c->ratios, c->ratios + nr, (size_t)nc * sizeof(double));
        m = nc;
    } else if (!col_bad) {
        m = nr;
    }
    sp_node_estimate(c->ratios, (size_t)m, c->scratch, &e);
    if (!(e.ci_hi < 1.0 - c->threshold)) {
        return 0;
    }
    memset(f, 0, sizeof(*f));
    f->kind = SP_LINKS_FIND_NODE;
    f->side = row_bad && col_bad ? SP_LINKS_SIDE_BOTH
                                 : (row_bad ? SP_LINKS_SIDE_SEND : SP_LINKS_SIDE_RECV);
    f->a = u;
    f->b = -1;
    f->ratio = e.median;
    f->ratio_lo = e.ci_lo;
    f->ratio_hi = e.ci_hi;
    f->nslow = (row_bad ? nr_slow : 0) + (col_bad ? nc_slow : 0);
    f->nlinks = m;
    return 1;
}

/* Name node faults one at a time, the most clearly slow first. */
static int name_nodes(classify_t *c, sp_links_finding_t *out)
{
    int nout = 0;

    for (;;) {
        sp_links_finding_t best;
        int have = 0;
        for (int u = 0; u < c->n; u++) {
            sp_links_finding_t f;
            if (c->named[u] || !node_finding(c, u, &f)) {
                continue;
            }
            if (!have || f.ratio < best.ratio) {
                best = f;
                have = 1;
            }
        }
        if (!have) {
            return nout;
        }
        c->named[best.a] = 1;
        out[nout++] = best;
    }
}

static int name_links(const classify_t *c, sp_links_finding_t *out)
{
    int nout = 0;

    for (int a = 0; a < c->n; a++) {
        for (int b = a + 1; b < c->n; b++) {
            const sp_node_verdict_t *ab = &c->v[(size_t)a * (size_t)c->n + (size_t)b];
            const sp_node_verdict_t *ba = &c->v[(size_t)b * (size_t)c->n + (size_t)a];
            int fab = measured(c, a, b) && ab->flagged;
            int fba = measured(c, b, a) && ba->flagged;
            if (c->named[a] || c->named[b] || (!fab && !fba)) {
                continue;
            }
            const sp_node_verdict_t *w = fab && (!fba || ab->ratio <= ba->ratio) ? ab : ba;
            sp_links_finding_t *f = &out[nout++];
            memset(f, 0, sizeof(*f));
            f->kind = SP_LINKS_FIND_LINK;
            f->side = fab && fba ? SP_LINKS_SIDE_BOTH
                                 : (fab ? SP_LINKS_SIDE_SEND : SP_LINKS_SIDE_RECV);
            f->a = a;
            f->b = b;
            f->ratio = w->ratio;
            f->ratio_lo = w->ratio_lo;
            f->ratio_hi = w->ratio_hi;
            f->nslow = fab + fba;
            f->nlinks = measured(c, a, b) + measured(c, b, a);
        }
    }
    return nout;
}

/* The cohort: the median over units of each unit's median link rate (its row and column), so
 * one slow node moves it no more than one unit's worth, whatever n. */
static double cohort_of(const classify_t *c)
{
    int nu = 0;

    for (int u = 0; u < c->n; u++) {
        int m = 0;
        for (int j = 0; j < c->n; j++) {
            if (measured(c, u, j)) {
                c->ratios[m++] = c->est[(size_t)u * (size_t)c->n + (size_t)j].median;
            }
            if (measured(c, j, u)) {
                c->ratios[m++] = c->est[(size_t)j * (size_t)c->n + (size_t)u].median;
            }
        }
        if (m > 0) {
            c->scratch[2 * c->n + nu++] = sp_stats_median(c->ratios, (size_t)m, c->scratch);
        }
    }
    return nu > 0 ? sp_stats_median(c->scratch + 2 * c->n, (size_t)nu, c->scratch) : NAN;
}

/* Every measured link against the cohort: the node baselines' rule (node_outliers.h), a link
 * flagged when its whole CI lies below (1 - threshold) x the cohort. */
static void judge_links(classify_t *c, double cohort)
{
    for (int i = 0; i < c->n; i++) {
        for (int j = 0; j < c->n; j++) {
            const sp_node_est_t *e = &c->est[(size_t)i * (size_t)c->n + (size_t)j];
            sp_node_verdict_t *v = &c->v[(size_t)i * (size_t)c->n + (size_t)j];
            if (!measured(c, i, j) || !(cohort > 0.0)) {
                continue;
            }
            v->ratio = e->median / cohort;
            v->ratio_lo = e->ci_lo / cohort;
            v->ratio_hi = e->ci_hi / cohort;
            v->flagged = v->ratio_hi < 1.0 - c->threshold;
        }
    }
}

sp_status_t sp_links_classify(int n, const sp_node_est_t *est, double threshold,
                              sp_links_finding_t *out, int *nout_p, double *cohort_p)
{
    classify_t c = {.n = n, .threshold = threshold, .est = est};
    double cohort;
    int nout;

    if (n < 2 || !(threshold > 0.0 && threshold < 1.0)) {
        return SP_ERR_INVALID;
    }
    c.v = calloc((size_t)n * (size_t)n, sizeof(*c.v));
    c.named = calloc((size_t)n, 1);
    c.ratios = calloc(2 * (size_t)n, sizeof(double));
    c.scratch = calloc(4 * (size_t)n, sizeof(double));
    if (c.v == NULL || c.named == NULL || c.ratios == NULL || c.scratch == NULL) {
        free(c.scratch);
        free(c.ratios);
        free(c.named);
        free(c.v);
        return SP_ERR_NOMEM;
    }
    cohort = cohort_of(&c);
    judge_links(&c, cohort);
    nout = n >= 3 ? name_nodes(&c, out) : 0;
    nout += name_links(&c, out + nout);
    *nout_p = nout;
    *cohort_p = cohort;
    free(c.scratch);
    free(c.ratios);
    free(c.named);
    free(c.v);
    return SP_OK;
}

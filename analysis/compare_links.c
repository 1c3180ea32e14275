/* compare of two link matrices (/links): which links changed. Each link (metric, from host, to
 * host; the pass that counts, sp_links_best_rows) of A is matched with B's by host names (and
 * ranks, with units per rank; rails, with units per rail), and the ratio of their median times
 * is given with a bootstrap CI of its samples (sp_ab_ratio): slower or faster when the CI lies
 * beyond the threshold, else within noise. */
#include "compare_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "abstats.h"
#include "links_report.h"

#define LINKS_BOOT_ITERS 2000
#define LINKS_BOOT_SEED 0x6c696e6bu

typedef struct {
    int slower, faster, same, missing;
} tally_t;

/* The samples (us) of a pair row. */
static const double *samples_of(const sp_links_result_data_t *d, const sp_links_pair_row_t *p)
{
    if (p->sample_offset + p->samples > d->nsamples) {
        return NULL;
    }
    return &d->samples[p->sample_offset].time_us;
}

/* How units of A and B are matched: by host; per rank, also by rank; per rail, by rail. */
enum { BY_HOST, BY_RANK, BY_RAIL };

/* 1 when unit u of B is unit a of A. */
static int same_unit(const sp_links_unit_row_t *a, const sp_links_unit_row_t *u, int by)
{
    return strcmp(a->host, u->host) == 0 && (by != BY_RANK || a->rank == u->rank) &&
           (by != BY_RAIL || a->rail == u->rail);
}

/* B's row of the link from A's unit s to A's unit t, NULL when B has none. */
static const sp_links_pair_row_t *match(const sp_links_result_data_t *b,
                                        const sp_links_pair_row_t **best, int n,
                                        const sp_links_unit_row_t *s,
                                        const sp_links_unit_row_t *t, int by)
{
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            if (best[i * n + j] != NULL && same_unit(s, &b->units[i], by) &&
                same_unit(t, &b->units[j], by)) {
                return best[i * n + j];
            }
        }
    }
    return NULL;
}

static void compare_one(const sp_links_pair_row_t *pa, const sp_links_pair_row_t *pb,
                        const sp_links_result_data_t *a, const sp_links_result_data_t *b,
                        double threshold, const char *s, const char *t, int rail,
                        sp_links_metric_t m, tally_t *tl, FILE *out)
{
    const double *xa = samples_of(a, pa);
    const double *xb = samples_of(b, pb);
    sp_ab_ratio_t r;
    const char *v;
    char on[32] = "";

    /* sample_offset indexes rows of one double each (sp_links_sample_row_t) */
    if (xa == NULL || xb == NULL ||
        sp_ab_ratio(xa, pa->samples, xb, pb->samples, LINKS_BOOT_ITERS, 0.95, LINKS_BOOT_SEED,
                    &r) != SP_OK) {
        tl->missing++;
        return;
    }
    if (r.lo > 1.0 + threshold) {
        v = "SLOWER";
        tl->slower++;
    } else if (r.hi < 1.0 / (1.0 + threshold)) {
        v = "FASTER";
        tl->faster++;
    } else {
        tl->same++;
        return;
    }
    if (rail >= 0) {
        snprintf(on, sizeof(on), " on rail %d", rail);
    }
    fprintf(out, "#   %s %s %s %s%s: A %.4g %s, B %.4g %s, time B/A %.3f (95%% CI %.3f-%.3f) %s\n",
            sp_links_metric_names[m], s, m == SP_LINKS_LAT ? "<->" : "->", t, on, pa->value,
            sp_links_metric_units(m), pb->value, sp_links_metric_units(m), r.ratio, r.lo, r.hi,
            v);
}

int sp__cmp_links(const sp_reader_t *ra, const sp_reader_t *rb, double threshold, FILE *out)
{
    const sp_links_result_data_t *a = &ra->links;
    const sp_links_result_data_t *b = &rb->links;
    int na = (int)a->nunits;
    int nb = (int)b->nunits;
    tally_t tl = {0, 0, 0, 0};
    /* units per rank or rail share host names: match them by rank or rail as well */
    int by = strcmp(a->per, "rank") == 0 || strcmp(b->per, "rank") == 0   ? BY_RANK
             : strcmp(a->per, "rail") == 0 || strcmp(b->per, "rail") == 0 ? BY_RAIL
                                                                           : BY_HOST;

    fprintf(out, "# compare links: A %s (%d units), B %s (%d units), threshold %.1f%%\n",
            ra->path, na, rb->path, nb, 100.0 * threshold);
    fprintf(out, "# links that changed (time per message B/A; bandwidth: above 1 is slower):\n");
    for (int m = 0; m < SP_LINKS_METRIC_COUNT; m++) {
        const sp_links_pair_row_t **ba = sp_links_best_rows(a, (sp_links_metric_t)m, na);
        const sp_links_pair_row_t **bb = sp_links_best_rows(b, (sp_links_metric_t)m, nb);
        for (int i = 0; ba != NULL && bb != NULL && i < na; i++) {
            for (int j = 0; j < na; j++) {
                const sp_links_pair_row_t *pa = ba[i * na + j];
                const char *s = a->units[i].host;
                const char *t = a->units[j].host;
                if (pa == NULL || (m == SP_LINKS_LAT && i > j)) {
                    continue; /* latency: one value per pair */
                }
                const sp_links_pair_row_t *pb =
                    match(b, bb, nb, &a->units[i], &a->units[j], by);
                if (pb == NULL) {
                    tl.missing++;
                    continue;
                }
                compare_one(pa, pb, a, b, threshold, s, t, by == BY_RAIL ? a->units[i].rail : -1,
                            (sp_links_metric_t)m, &tl, out);
            }
        }
        free(ba);
        free(bb);
    }
    fprintf(out, "# %d slower, %d faster, %d within noise, %d in A only or without samples\n",
            tl.slower, tl.faster, tl.same, tl.missing);
    return 0;
}

/* The compare command (see compare.h; statistics in abstats.h, docs/METHODOLOGY.md): the option
 * table, the sides, then expected-vs-actual or the per-point comparison and its report. The
 * parts are in compare_runs.c, compare_diff.c, compare_points.c and compare_scaling.c. */
#include "compare.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_internal.h"
#include "launcher.h"
#include "options.h"

typedef struct {
    sp_opt_args_t files;
    int vs; /* 1 + the files before --vs; 0: no --vs */
    double threshold_pct;
    double fdr;
    double run_cv_pct;
    int common;
    int json;
} compare_opts_t;

#define OFF(field) offsetof(compare_opts_t, field)

static const sp_opt_def_t compare_defs[] = {
    {"files", 0, SP_OPT_ARGS, OFF(files), NULL, "FILE",
     "result files: A B, or runs of A --vs runs of B, or one side's runs at several node counts", 1,
     -1, NULL, 0},
    {"vs", 0, SP_OPT_MARK, OFF(vs), NULL, NULL,
     "the files before are side A's runs, the files after side B's", 0, -1, NULL, 0},
    {"threshold", 0, SP_OPT_DOUBLE, OFF(threshold_pct), "3", "PCT",
     "slower/faster means changed by more than this, percent in [0, 100)", 0, -1, NULL, 0},
    {"fdr", 0, SP_OPT_DOUBLE, OFF(fdr), "0.05", "Q",
     "false-discovery rate of the verdicts (Benjamini-Hochberg over the points), in (0, 0.5)", 0,
     -1, NULL, 0},
    {"run-cv", 0, SP_OPT_DOUBLE, OFF(run_cv_pct), "0", "PCT",
     "run-to-run spread (percent) assumed with one run a side for the runs suggested; 0: 2", 0, -1,
     NULL, 0},
    {"common", 0, SP_OPT_FLAG, OFF(common), NULL, NULL, "compare the points both have", 0, -1, NULL,
     0},
    {"json", 0, SP_OPT_FLAG, OFF(json), NULL, NULL, "the comparison as JSON", 0, -1, NULL, 0},
};

static const sp_opt_table_t compare_table = {
    .command = "compare",
    .summary =
        "  scaleprobe compare A.h5 B.h5 [options]\n"
        "  scaleprobe compare A1.h5 [A2.h5 ...] --vs B1.h5 [B2.h5 ...] [options]\n"
        "  scaleprobe compare A_2node.h5 A_4node.h5 ... [--vs B_2node.h5 B_4node.h5 ...]\n"
        "What differs between two clusters' runs, then every matching point as B/A with a 95% CI.\n"
        "One run per side: no verdicts (its CI is within-run noise only), and how many runs per\n"
        "side a verdict needs. 2+ runs per side (--vs): per point slower/faster (changed by more\n"
        "than the threshold, minimum-effect t test over the runs' medians), within threshold\n"
        "(equivalence) or inconclusive, Benjamini-Hochberg over the points, and the minimum\n"
        "detectable change. Runs at several node counts: a scaling table with efficiency.\n"
        "Exit 0: nothing changed beyond the threshold; 1: something slower or faster by more;\n"
        "2: bad input or not comparable.",
    .defs = compare_defs,
    .ndefs = (int)(sizeof(compare_defs) / sizeof(compare_defs[0])),
};

/* One comparison: the options, the files of each side, the opened sides and the points. */
typedef struct {
    compare_opts_t o;
    double threshold; /* fraction */
    cmp_settings_t cs;
    verdict_counts_t counts;
    char **files[2];
    size_t nfiles[2];
    side_t sides[2];
    int nsides;
    point_t *pts;
    size_t npts;
} compare_t;

static int bad_usage(const char *msg)
{
    sp_launcher_error("compare", msg);
    return 2;
}

/* Parse and check argv, and split the files into the sides. 0 to go on, else the exit code
 * (-1: --help shown). */
static int parse(compare_t *c, int argc, char **argv)
{
    compare_opts_t *o = &c->o;
    char msg[512];
    int help = 0;
    size_t before;

    if (sp_opts_parse(&compare_table, argc, argv, 2, o, &help, NULL, msg, sizeof(msg)) != SP_OK) {
        return bad_usage(msg);
    }
    if (help) {
        sp_opts_help(&compare_table, stdout);
        return -1;
    }
    if (!(o->threshold_pct >= 0.0 && o->threshold_pct < 100.0)) {
        return bad_usage("--threshold takes a percentage in [0, 100)");
    }
    if (!(o->fdr > 0.0 && o->fdr < 0.5)) {
        return bad_usage("--fdr takes a false-discovery rate in (0, 0.5)");
    }
    if (!(o->run_cv_pct >= 0.0 && o->run_cv_pct < 100.0)) {
        return bad_usage("--run-cv takes a percentage in [0, 100) (0: from the runs)");
    }
    c->threshold = o->threshold_pct / 100.0;
    c->cs.threshold = c->threshold;
    c->cs.fdr = o->fdr;
    c->cs.run_cv = o->run_cv_pct / 100.0;
    before = o->vs > 0 ? (size_t)o->vs - 1 : (size_t)o->files.n;
    if (o->vs == 0 && o->files.n == 2) {
        before = 1; /* A B: the classic pair */
    }
    c->files[0] = o->files.v;
    c->nfiles[0] = before;
    c->files[1] = o->files.v + before;
    c->nfiles[1] = (size_t)o->files.n - before;
    if (c->nfiles[0] == 0 || (o->vs && c->nfiles[1] == 0) ||
        (c->nfiles[1] == 0 && c->nfiles[0] < 2)) {
        return bad_usage("expected two result files, or runs of A --vs runs of B (scaleprobe "
                         "compare --help)");
    }
    return 0;
}

/* Open the sides and check that every run measured the same workload as A's first. 0 to go on,
 * else 2 after one message. */
static int open_sides(compare_t *c)
{
    char why[2048] = "";

    c->nsides = c->nfiles[1] > 0 ? 2 : 1;
    for (int s = 0; s < c->nsides; s++) {
        if (sp__cmp_side_open(&c->sides[s], s ? "B" : "A", c->files[s], c->nfiles[s]) != SP_OK) {
            return 2;
        }
    }
    if (c->nsides == 1 && c->sides[0].nshapes == 1) {
        return bad_usage("runs of one shape on one side only: say which are B with --vs");
    }
    /* the shape may differ in a series */
    for (int s = 0; s < c->nsides && why[0] == '\0'; s++) {
        for (size_t i = 0; i < c->sides[s].n && why[0] == '\0'; i++) {
            const run_t *x = &c->sides[0].runs[0], *y = &c->sides[s].runs[i];
            int same_shape =
                x->rd.world_size == y->rd.world_size && x->rd.node_count == y->rd.node_count;
            sp__cmp_workload_difference(x, y, same_shape, c->o.common, why, sizeof(why));
        }
    }
    if (why[0] == '\0') {
        sp__cmp_method_difference(c->sides, c->nsides, why, sizeof(why));
    }
    if (why[0] != '\0') {
        fprintf(stderr, "scaleprobe compare: error: not comparable: %s\n", why);
        return 2;
    }
    sp__cmp_batch_difference(c->sides, c->nsides, why, sizeof(why));
    if (why[0] != '\0') {
        fprintf(stderr, "scaleprobe compare: warning: %s\n", why);
    }
    return 0;
}

/* One side a prediction, the other measured runs of its shape: the expected-vs-actual table. */
static int expected_vs_actual(const compare_t *c)
{
    const side_t *sides = c->sides;
    int p = sp__cmp_all_predicted(&sides[0]) ? 0 : 1;
    eva_row_t rows[PM_COUNT];
    size_t n;

    if (sides[p].n != 1 || sides[1 - p].nshapes != 1 ||
        sides[1 - p].shapes[0].world != sides[p].runs[0].rd.world_size) {
        return bad_usage("expected vs actual takes one prediction and measured runs of its "
                         "shape");
    }
    n = sp__cmp_expected_vs_actual(&sides[p].runs[0], &sides[1 - p], rows);
    if (c->o.json) {
        printf("{\"predicted\": \"%s\", \"expected_vs_actual\": [", p ? "b" : "a");
        sp__cmp_json_eva(rows, n, stdout);
        printf("]}\n");
    } else {
        sp__cmp_print_eva(rows, n, &sides[p].runs[0], sides[1 - p].n, stdout);
    }
    return 0;
}

/* The points both sides measured at each shape of A, judged (c->counts). 0, or -1 after one
 * message. */
static int collect_points(compare_t *c)
{
    size_t cap = 0;

    for (size_t g = 0; g < c->sides[0].nshapes; g++) {
        cap += c->sides[0].shapes[g].runs[0]->ms.n;
    }
    c->pts = calloc(cap + 1, sizeof(*c->pts));
    if (c->pts == NULL) {
        fprintf(stderr, "scaleprobe compare: error: out of memory\n");
        return -1;
    }
    for (size_t g = 0; c->nsides == 2 && g < c->sides[0].nshapes; g++) {
        const shape_t *ga = &c->sides[0].shapes[g];
        const shape_t *gb = sp__cmp_find_shape(&c->sides[1], ga->world, ga->nodes);
        if (gb != NULL) {
            c->npts += sp__cmp_compare_shape(ga, gb, &c->cs, c->pts + c->npts, cap - c->npts);
        }
    }
    if (c->nsides == 2 && c->npts == 0) {
        fprintf(stderr, "scaleprobe compare: error: not comparable: no point measured in both "
                        "with 2+ samples at the same shape (ranks and nodes)\n");
        return -1;
    }
    if (sp__cmp_judge(c->pts, c->npts, c->o.fdr, &c->counts) != SP_OK) {
        fprintf(stderr, "scaleprobe compare: error: out of memory\n");
        return -1;
    }
    return 0;
}

/* Whether every compared point was judged over repeated runs (2+ runs per side). */
static int between_runs(const compare_t *c)
{
    return c->nsides == 2 && c->npts > 0 && (size_t)c->counts.judged == c->npts;
}

static const char *const cv_key[] = {"given", "observed", "default"};

static void report_json(const compare_t *c, const scale_row_t *srows, size_t nsrows)
{
    const verdict_counts_t *k = &c->counts;
    emit_t e = {stdout, 1, 0};
    int most, median;

    sp__cmp_runs_suggested(c->pts, c->npts, &most, &median);
    printf("{\"runs\": {\"a\": %zu, \"b\": %zu}, \"between_runs\": %s, \"verdicts\": %s, "
           "\"threshold\": %.6g, \"fdr\": %.6g, \"power\": %.6g,\n  \"slower\": %d, "
           "\"faster\": %d, \"within\": %d, \"inconclusive\": %d, \"runs_suggested\": %d, "
           "\"run_cv_source\": \"%s\",\n  \"differences\": [",
           c->sides[0].n, c->sides[1].n, between_runs(c) ? "true" : "false",
           k->judged > 0 ? "true" : "false", c->threshold * 100.0, c->o.fdr, SP_CMP_POWER,
           k->slower, k->faster, k->within, k->inconclusive, most,
           cv_key[c->npts > 0 ? c->pts[0].cv_source : CV_DEFAULT]);
    if (c->nsides == 2) {
        sp__cmp_emit_differences(&c->sides[0].runs[0].rd, &c->sides[1].runs[0].rd, &e);
    }
    printf("],\n  \"points\": [");
    sp__cmp_json_points(c->pts, c->npts, stdout);
    printf("],\n  \"scaling\": [");
    sp__cmp_json_scaling(srows, nsrows, stdout);
    printf("]}\n");
}

/* The most cycles (-N) any file's sweep ran: every point repeats once a cycle. */
static size_t most_cycles(const compare_t *c)
{
    size_t most = 1;

    for (int s = 0; s < c->nsides; s++) {
        for (size_t i = 0; i < c->sides[s].n; i++) {
            const sp_reader_t *rd = &c->sides[s].runs[i].rd;
            size_t n = rd->nrows > 0 ? sp_reader_point_rows(rd, 0) : 1;
            most = n > most ? n : most;
        }
    }
    return most;
}

/* What the table means (before it) and, where points have no verdict, how many runs a verdict
 * needs (after it). */
static void explain(const compare_t *c, int after)
{
    const verdict_counts_t *k = &c->counts;
    double thr = 100.0 * c->threshold, target = c->threshold > 0.0 ? 2.0 * thr : 1.0;
    int most, median, src = c->pts[0].cv_source;
    char cv_text[32];

    if (!after && k->judged > 0) {
        printf("# Runs: A %zu, B %zu file(s). Per point: B/A ratio of the geometric means of the "
               "runs' medians (above 1: B\n# slower), 95%% CI (Welch t over runs); q: "
               "Benjamini-Hochberg-adjusted p of \"changed by more than\n# %.1f%%\" (one-sided "
               "minimum-effect t tests); slower/faster: q < %.2f; within threshold: adjusted\n# "
               "equivalence (TOST) p < %.2f; else inconclusive. MDE: the change found with %.0f%% "
               "power at these runs;\n# runs: runs per side to find a %.1f%% change with that "
               "power.\n",
               c->sides[0].n, c->sides[1].n, thr, c->o.fdr, c->o.fdr, 100.0 * SP_CMP_POWER, target);
    }
    if (!after && (size_t)k->judged < c->npts) {
        printf("# Runs: A %zu, B %zu file(s). %s: no verdicts. B/A ratio of medians with a 95%% "
               "CI that covers\n# %s, not the variation between runs.\n",
               c->sides[0].n, c->sides[1].n,
               k->judged > 0 ? "Shapes with one run on a side" : "One run on a side",
               c->sides[0].n == 1 && c->sides[1].n == 1 ? "within-run noise only (bootstrap)"
                                                        : "the runs there are");
    }
    if (!after && most_cycles(c) > 1) {
        printf("# A file of a sweep run with -N cycles is one run: a point's samples of every "
               "cycle are pooled\n# (consecutive cycles of one job agree more closely than "
               "separate jobs do; docs/METHODOLOGY.md).\n");
    }
    if (!after || (size_t)k->judged == c->npts) {
        return;
    }
    snprintf(cv_text, sizeof(cv_text), "%.2f%%", 100.0 * c->cs.run_cv);
    sp__cmp_runs_suggested(c->pts, c->npts, &most, &median);
    printf("# Verdicts need repeated runs per side, interleaved in time (A1 B1 A2 B2 ...): "
           "%s %d per side\n# (the most any point needs; median %d) to find a %.1f%% change "
           "with %.0f%% power at alpha %.2f\n# (threshold %.1f%%), from each point's within-run "
           "spread and a run-to-run spread\n# %s%s.\n",
           most > 1000 ? "more than" : "about", most > 1000 ? 1000 : most, median, target,
           100.0 * SP_CMP_POWER, c->o.fdr, thr,
           src == CV_OBSERVED ? "observed over the runs of one side"
           : src == CV_GIVEN  ? "given by --run-cv: "
                              : "of 2% (assumed: a documented default; these files hold no "
                                "run-to-run information; --run-cv sets it)",
           src == CV_GIVEN ? cv_text : "");
}

static void report_text(const compare_t *c, const scale_row_t *srows, size_t nsrows)
{
    const side_t *sides = c->sides;
    const verdict_counts_t *k = &c->counts;
    emit_t e = {stdout, 0, 0};

    if (c->nsides == 2) {
        printf("# What differs (A: %s, B: %s; communication settings first, per-job ids "
               "and ports left out)\n",
               sides[0].runs[0].rd.path, sides[1].runs[0].rd.path);
        sp__cmp_emit_differences(&sides[0].runs[0].rd, &sides[1].runs[0].rd, &e);
        if (e.n == 0) {
            printf("#   nothing recorded differs\n");
        }
    }
    if (c->npts > 0) {
        explain(c, 0);
        sp__cmp_print_table(c->pts, c->npts, stdout);
        sp__cmp_print_most_changed(c->pts, c->npts, stdout);
        explain(c, 1);
    }
    if (nsrows > 0) {
        sp__cmp_print_scaling(srows, nsrows, c->nsides, sides[0].runs[0].rd.has_proxy, stdout);
    }
    if (c->nsides == 2 && k->judged > 0) {
        printf("# %zu points compared, %d with verdicts: %d slower, %d faster, %d within "
               "threshold, %d inconclusive in B\n",
               c->npts, k->judged, k->slower, k->faster, k->within, k->inconclusive);
    } else if (c->nsides == 2) {
        printf("# %zu points compared: no verdicts (one run on a side)\n", c->npts);
    }
}

/* The per-point comparison and the scaling table, reported. Exit code 0, 1 (slower or faster
 * by more than the threshold) or 2. */
static int compare_points(compare_t *c)
{
    int scaling = c->sides[0].nshapes > 1 || (c->nsides == 2 && c->sides[1].nshapes > 1);
    scale_row_t *srows = NULL;
    size_t nsrows;

    if (collect_points(c) < 0) {
        return 2;
    }
    nsrows = scaling ? sp__cmp_scaling_rows(c->sides, c->nsides, &srows) : 0;
    if (c->o.json) {
        report_json(c, srows, nsrows);
    } else {
        report_text(c, srows, nsrows);
    }
    free(srows);
    return c->counts.slower + c->counts.faster > 0 ? 1 : 0;
}

int sp_compare_main(int argc, char **argv)
{
    compare_t *c = calloc(1, sizeof(*c));
    char **files = calloc((size_t)argc + 1, sizeof(*files));
    int rc;

    if (c == NULL || files == NULL) {
        free(c);
        free(files);
        return bad_usage("out of memory");
    }
    c->o.files.v = files;
    c->o.files.cap = argc;
    rc = parse(c, argc, argv);
    if (rc == 0) {
        rc = open_sides(c);
    }
    if (rc == 0 && c->nsides == 2 && c->sides[0].n == 1 && c->sides[1].n == 1 &&
        c->sides[0].runs[0].rd.links.present && c->sides[1].runs[0].rd.links.present) {
        rc = sp__cmp_links(&c->sides[0].runs[0].rd, &c->sides[1].runs[0].rd,
                           c->o.threshold_pct / 100.0, stdout);
    } else if (rc == 0) {
        if (c->nsides == 2 &&
            sp__cmp_all_predicted(&c->sides[0]) != sp__cmp_all_predicted(&c->sides[1])) {
            rc = expected_vs_actual(c);
        } else {
            rc = compare_points(c);
        }
    }
    free(c->pts);
    sp__cmp_side_close(&c->sides[0]);
    sp__cmp_side_close(&c->sides[1]);
    free(files);
    free(c);
    return rc < 0 ? 0 : rc;
}

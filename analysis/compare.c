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
     "a verdict needs the CI beyond this change, percent in [0, 100)", 0, -1, NULL, 0},
    {"fdr", 0, SP_OPT_DOUBLE, OFF(fdr), "0.05", "Q",
     "a verdict needs a Benjamini-Hochberg q at most Q, in (0, 1)", 0, -1, NULL, 0},
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
        "What differs between two clusters' runs, then every matching point as B/A with a 95% CI\n"
        "and a verdict (Benjamini-Hochberg over the points). One run per side: the CI is a\n"
        "bootstrap of the samples (within-run noise only). Several runs of one shape per side\n"
        "(--vs): Student t over the runs' medians, which carries the spread between runs. Runs\n"
        "at several node counts: a scaling table with efficiency.\n"
        "Exit 0: nothing slower; 1: something slower; 2: bad input or not comparable.",
    .defs = compare_defs,
    .ndefs = (int)(sizeof(compare_defs) / sizeof(compare_defs[0])),
};

/* One comparison: the options, the files of each side, the opened sides and the points. */
typedef struct {
    compare_opts_t o;
    double threshold; /* fraction */
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
    if (!(o->fdr > 0.0 && o->fdr < 1.0)) {
        return bad_usage("--fdr takes a false-discovery rate in (0, 1)");
    }
    c->threshold = o->threshold_pct / 100.0;
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
    if (why[0] != '\0') {
        fprintf(stderr, "scaleprobe compare: error: not comparable: %s\n", why);
        return 2;
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

/* The points both sides measured at each shape of A, judged. Returns how many are slower in B,
 * or -1 after one message. */
static int collect_points(compare_t *c)
{
    size_t cap = 0;
    int slower;

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
            c->npts += sp__cmp_compare_shape(ga, gb, c->pts + c->npts, cap - c->npts);
        }
    }
    if (c->nsides == 2 && c->npts == 0) {
        fprintf(stderr, "scaleprobe compare: error: not comparable: no point measured in both "
                        "with 2+ samples at the same shape (ranks and nodes)\n");
        return -1;
    }
    slower = sp__cmp_judge(c->pts, c->npts, c->threshold, c->o.fdr);
    if (slower < 0) {
        fprintf(stderr, "scaleprobe compare: error: out of memory or a p-value that is not a "
                        "number\n");
    }
    return slower;
}

/* Whether the CIs come from the spread between runs: some shape has 3+ runs over both sides. */
static int between_runs(const compare_t *c)
{
    int between = c->nsides == 2 && c->npts > 0;

    for (size_t g = 0; between && g < c->sides[0].nshapes; g++) {
        const shape_t *ga = &c->sides[0].shapes[g];
        const shape_t *gb = sp__cmp_find_shape(&c->sides[1], ga->world, ga->nodes);
        between = gb == NULL || ga->n + gb->n > 2;
    }
    return between;
}

static void report_json(const compare_t *c, int slower, const scale_row_t *srows, size_t nsrows)
{
    emit_t e = {stdout, 1, 0};

    printf("{\"runs\": {\"a\": %zu, \"b\": %zu}, \"between_runs\": %s, \"threshold\": "
           "%.6g, \"fdr\": %.6g, \"slower\": %d,\n  \"differences\": [",
           c->sides[0].n, c->sides[1].n, between_runs(c) ? "true" : "false", c->threshold * 100.0,
           c->o.fdr, slower);
    if (c->nsides == 2) {
        sp__cmp_emit_differences(&c->sides[0].runs[0].rd, &c->sides[1].runs[0].rd, &e);
    }
    printf("],\n  \"points\": [");
    sp__cmp_json_points(c->pts, c->npts, stdout);
    printf("],\n  \"scaling\": [");
    sp__cmp_json_scaling(srows, nsrows, stdout);
    printf("]}\n");
}

static void report_text(const compare_t *c, int slower, const scale_row_t *srows, size_t nsrows)
{
    const side_t *sides = c->sides;
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
        printf("# Runs: A %zu, B %zu file(s). Per point: B/A ratio of medians (above 1: B "
               "slower; over runs, of the\n# geometric means of the runs' medians), 95%% "
               "CI, Benjamini-Hochberg q; a verdict needs q <= %.2f and "
               "the CI beyond %.1f%%. %s\n",
               sides[0].n, sides[1].n, c->o.fdr, 100.0 * c->threshold,
               between_runs(c) ? "CI from the spread of the runs' medians (Student t over runs)."
                               : "One run per side: the CI is a bootstrap of its samples and "
                                 "does not cover\n# run-to-run variation; repeat runs (A1 A2 A3 "
                                 "--vs B1 B2 B3) to include it.");
        sp__cmp_print_table(c->pts, c->npts, stdout);
        sp__cmp_print_most_changed(c->pts, c->npts, stdout);
    }
    if (nsrows > 0) {
        sp__cmp_print_scaling(srows, nsrows, c->nsides, sides[0].runs[0].rd.has_proxy, stdout);
    }
    if (c->nsides == 2) {
        printf("# %zu points compared: %d slower in B\n", c->npts, slower);
    }
}

/* The per-point comparison and the scaling table, reported. Exit code 0, 1 (slower) or 2. */
static int compare_points(compare_t *c)
{
    int slower = collect_points(c);
    int scaling = c->sides[0].nshapes > 1 || (c->nsides == 2 && c->sides[1].nshapes > 1);
    scale_row_t *srows = NULL;
    size_t nsrows;

    if (slower < 0) {
        return 2;
    }
    nsrows = scaling ? sp__cmp_scaling_rows(c->sides, c->nsides, &srows) : 0;
    if (c->o.json) {
        report_json(c, slower, srows, nsrows);
    } else {
        report_text(c, slower, srows, nsrows);
    }
    free(srows);
    return slower > 0 ? 1 : 0;
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
    if (rc == 0) {
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

/* The compare command (see compare.h; statistics in abstats.h, docs/METHODOLOGY.md). */
#include "compare.h"

#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abstats.h"
#include "coll.h"
#include "dtype.h"
#include "kv.h"
#include "launcher.h"
#include "reader.h"
#include "stats.h"

#define BOOT_ITERS 2000
#define BOOT_SEED 20261203u
#define FDR_Q 0.05
#define MAX_KV 512

typedef struct {
    char label[96];
    double a_us, b_us;
    sp_ab_ratio_t r;
    double q;
    const char *verdict;
} point_t;

/* ---- what differs ---- */

typedef struct {
    sp_kv_t *kv;
    int n;
} kv_list_t;

static herr_t collect_attr(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    kv_list_t *l = data;
    hid_t a, t;

    (void)info;
    if (l->n >= MAX_KV) {
        return 0;
    }
    a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0) {
        return 0;
    }
    t = H5Aget_type(a);
    snprintf(l->kv[l->n].key, sizeof(l->kv[l->n].key), "%s", name);
    l->kv[l->n].value[0] = '\0';
    if (H5Tget_class(t) == H5T_STRING && !H5Tis_variable_str(t)) {
        size_t sz = H5Tget_size(t);
        char *buf = calloc(1, sz + 1);
        if (buf != NULL && H5Aread(a, t, buf) >= 0) {
            snprintf(l->kv[l->n].value, sizeof(l->kv[l->n].value), "%s", buf);
        }
        free(buf);
    }
    H5Tclose(t);
    H5Aclose(a);
    l->n++;
    return 0;
}

/* The string attributes of group `path` of a file (none when it does not exist). */
static void read_kv(const char *file, const char *path, kv_list_t *l)
{
    hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t g;

    l->n = 0;
    if (f < 0) {
        return;
    }
    if (H5Lexists(f, path, H5P_DEFAULT) > 0 && (g = H5Gopen2(f, path, H5P_DEFAULT)) >= 0) {
        H5Aiterate2(g, H5_INDEX_NAME, H5_ITER_INC, NULL, collect_attr, l);
        H5Gclose(g);
    }
    H5Fclose(f);
}

static const char *kv_get(const kv_list_t *l, const char *key)
{
    for (int i = 0; i < l->n; i++) {
        if (strcmp(l->kv[i].key, key) == 0) {
            return l->kv[i].value;
        }
    }
    return NULL;
}

/* Variables the launcher sets anew for every job (ids, ports, session directories): they differ
 * between any two runs and explain nothing. */
static int volatile_name(const char *k)
{
    static const char *const prefixes[] = {
        "PMIX_",           "OMPI_MCA_orte_",  "OMPI_MCA_ess_",     "OMPI_COMM_WORLD_",
        "OMPI_FILE_LOCATION", "OMPI_ARGV",    "OMPI_COMMAND",      "OMPI_APP_CTX_",
        "OMPI_FIRST_RANKS", "OMPI_UNIVERSE_SIZE", "OMPI_NUM_APP_CTX", "OMPI_MCA_initial_wdir",
        "SLURM_JOB_ID",    "SLURM_JOBID",     "SLURM_STEP_ID",     "SLURM_STEPID",
        "SLURM_TASK_PID",  "SLURM_PROCID",    "SLURM_LOCALID",     "SLURM_NODEID",
        "SLURM_SRUN_COMM_", "SLURM_LAUNCH_NODE_IPADDR", "SLURM_JOB_START_TIME",
        "SLURM_JOB_END_TIME", "SLURM_STEP_LAUNCHER_PORT", "SLURM_TOPOLOGY_ADDR"};

    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
        if (strncmp(k, prefixes[i], strlen(prefixes[i])) == 0) {
            return 1;
        }
    }
    return 0;
}

/* Print the keys whose values differ between a and b; first pass NCCL_ and UCX_ names only
 * (communication settings explain the most), second pass the rest. Returns how many. */
static int diff_kv(const char *what, const kv_list_t *a, const kv_list_t *b, int comm_first,
                   FILE *out)
{
    int n = 0;

    for (int pass = 0; pass < (comm_first ? 2 : 1); pass++) {
        for (int side = 0; side < 2; side++) {
            const kv_list_t *x = side ? b : a, *y = side ? a : b;
            for (int i = 0; i < x->n; i++) {
                const char *k = x->kv[i].key;
                const char *other = kv_get(y, k);
                int comm = strncmp(k, "NCCL_", 5) == 0 || strncmp(k, "UCX_", 4) == 0;
                if ((comm_first && comm != (pass == 0)) || (comm_first && volatile_name(k))) {
                    continue;
                }
                if (side == 1 && other != NULL) {
                    continue; /* keys in both were handled from a's side */
                }
                if (other == NULL || strcmp(other, x->kv[i].value) != 0) {
                    fprintf(out, "#   %s %s: A %s, B %s\n", what, k,
                            side ? (other ? other : "(unset)") : x->kv[i].value,
                            side ? x->kv[i].value : (other ? other : "(unset)"));
                    n++;
                }
            }
        }
    }
    return n;
}

static int print_differences(const sp_reader_t *a, const sp_reader_t *b, FILE *out)
{
    kv_list_t ea = {calloc(MAX_KV, sizeof(sp_kv_t)), 0}, eb = {calloc(MAX_KV, sizeof(sp_kv_t)), 0};
    int n = 0;

    fprintf(out, "# What differs (A: %s, B: %s; communication settings first, per-job ids and "
                 "ports left out)\n",
            a->path, b->path);
    if (ea.kv != NULL && eb.kv != NULL) {
        read_kv(a->path, "/fingerprint/environment", &ea);
        read_kv(b->path, "/fingerprint/environment", &eb);
        n += diff_kv("environment", &ea, &eb, 1, out);
        read_kv(a->path, "/fingerprint", &ea);
        read_kv(b->path, "/fingerprint", &eb);
        n += diff_kv("version", &ea, &eb, 0, out);
        read_kv(a->path, "/launch", &ea);
        read_kv(b->path, "/launch", &eb);
        n += diff_kv("launch", &ea, &eb, 0, out);
    }
    if (a->world_size != b->world_size || a->node_count != b->node_count) {
        fprintf(out, "#   shape: A %d ranks on %d nodes, B %d ranks on %d nodes\n", a->world_size,
                a->node_count, b->world_size, b->node_count);
        n++;
    }
    if (strcmp(a->backend, b->backend) != 0) {
        fprintf(out, "#   backend: A %s, B %s\n", a->backend, b->backend);
        n++;
    }
    if (n == 0) {
        fprintf(out, "#   nothing recorded differs\n");
    }
    free(ea.kv);
    free(eb.kv);
    return n;
}

/* ---- matching points ---- */

static int same_point(const sp_coll_row_t *x, const sp_coll_row_t *y)
{
    return x->op == y->op && x->dtype == y->dtype && x->redop == y->redop &&
           x->in_place == y->in_place && x->root == y->root && x->bytes == y->bytes;
}

static double *sample_times(const sp_reader_t *rd, size_t i, size_t *n_p)
{
    sp_coll_sample_t *s = NULL;
    double *t = NULL;

    *n_p = 0;
    if (sp_reader_samples(rd, i, &s) != SP_OK) {
        return NULL;
    }
    t = malloc((rd->rows[i].samples + 1) * sizeof(*t));
    for (uint32_t k = 0; t != NULL && k < rd->rows[i].samples; k++) {
        t[k] = s[k].time_us;
    }
    *n_p = t != NULL ? rd->rows[i].samples : 0;
    free(s);
    return t;
}

/* The proxy's step times (rank 0's rows), the one metric of a proxy file. */
static double *step_times(const sp_reader_t *rd, size_t *n_p)
{
    double *t = malloc((rd->nproxy + 1) * sizeof(*t));
    size_t n = 0;

    for (size_t i = 0; t != NULL && i < rd->nproxy; i++) {
        if (rd->proxy[i].rank == 0) {
            t[n++] = rd->proxy[i].step_ms * 1e3;
        }
    }
    *n_p = n;
    return t;
}

static int add_point(point_t *p, const char *label, const double *a, size_t na, const double *b,
                     size_t nb)
{
    snprintf(p->label, sizeof(p->label), "%s", label);
    if (a == NULL || b == NULL || sp_ab_ratio(a, na, b, nb, BOOT_ITERS, 0.95, BOOT_SEED, &p->r) != SP_OK) {
        return 0;
    }
    {
        double *t = malloc((na > nb ? na : nb) * sizeof(*t));
        if (t == NULL) {
            return 0;
        }
        memcpy(t, a, na * sizeof(*t));
        p->a_us = sp_stats_median(t, na, t);
        memcpy(t, b, nb * sizeof(*t));
        p->b_us = sp_stats_median(t, nb, t);
        free(t);
    }
    return 1;
}

static size_t match_points(const sp_reader_t *a, const sp_reader_t *b, point_t *pts, size_t max)
{
    size_t n = 0;

    if (a->has_proxy && b->has_proxy) {
        size_t na, nb;
        double *ta = step_times(a, &na), *tb = step_times(b, &nb);
        n += (size_t)add_point(&pts[0], "proxy step time", ta, na, tb, nb);
        free(ta);
        free(tb);
        return n;
    }
    for (size_t i = 0; i < a->nrows && n < max; i++) {
        for (size_t j = 0; j < b->nrows; j++) {
            if (same_point(&a->rows[i], &b->rows[j])) {
                const sp_coll_row_t *r = &a->rows[i];
                char label[96];
                size_t na, nb;
                double *ta = sample_times(a, i, &na), *tb = sample_times(b, j, &nb);
                snprintf(label, sizeof(label), "%s %llu B %s%s%s", sp_coll_names[r->op],
                         (unsigned long long)r->bytes, sp_dtype_names[r->dtype],
                         r->redop >= 0 && r->redop < SP_REDOP_COUNT ? " " : "",
                         r->redop >= 0 && r->redop < SP_REDOP_COUNT ? sp_redop_names[r->redop]
                                                                    : "");
                if (r->in_place) {
                    strncat(label, " in-place", sizeof(label) - strlen(label) - 1);
                }
                n += (size_t)add_point(&pts[n], label, ta, na, tb, nb);
                free(ta);
                free(tb);
                break;
            }
        }
    }
    return n;
}

/* ---- verdicts and output ---- */

static int judge(point_t *pts, size_t n, double threshold)
{
    double *p = malloc((n + 1) * sizeof(*p));
    int slower = 0;

    if (p == NULL) {
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        p[i] = pts[i].r.p;
    }
    sp_ab_bh_adjust(p, n, p);
    for (size_t i = 0; i < n; i++) {
        int signif = p[i] <= FDR_Q;
        pts[i].q = p[i];
        pts[i].verdict = signif && pts[i].r.lo > 1.0 + threshold   ? "slower"
                         : signif && pts[i].r.hi < 1.0 - threshold ? "faster"
                                                                   : "within noise";
        slower += strcmp(pts[i].verdict, "slower") == 0;
    }
    free(p);
    return slower;
}

static void print_table(const point_t *pts, size_t n, double threshold, FILE *out)
{
    size_t most = 0;

    fprintf(out, "# Per point: B/A ratio of median times (above 1: B slower), bootstrap 95%% CI, "
                 "Benjamini-Hochberg q; a verdict needs q <= %.2f and the CI beyond %.1f%%\n",
            FDR_Q, 100.0 * threshold);
    fprintf(out, "%-44s %12s %12s %8s %18s %8s  %s\n", "point", "A (us)", "B (us)", "ratio",
            "95% CI", "q", "verdict");
    for (size_t i = 0; i < n; i++) {
        char ci[40];
        snprintf(ci, sizeof(ci), "[%.3f, %.3f]", pts[i].r.lo, pts[i].r.hi);
        fprintf(out, "%-44s %12.2f %12.2f %8.3f %18s %8.4f  %s\n", pts[i].label, pts[i].a_us,
                pts[i].b_us, pts[i].r.ratio, ci, pts[i].q, pts[i].verdict);
        most = fabs(log(pts[i].r.ratio)) > fabs(log(pts[most].r.ratio)) ? i : most;
    }
    if (n > 0) {
        fprintf(out, "# changed most: %s, ratio %.3f [%.3f, %.3f] (%s)\n", pts[most].label,
                pts[most].r.ratio, pts[most].r.lo, pts[most].r.hi, pts[most].verdict);
    }
}

static void print_json(const point_t *pts, size_t n, int slower, FILE *out)
{
    fprintf(out, "{\"slower\": %d, \"points\": [", slower);
    for (size_t i = 0; i < n; i++) {
        fprintf(out,
                "%s\n  {\"point\": \"%s\", \"a_us\": %.6g, \"b_us\": %.6g, \"ratio\": %.6g, "
                "\"ci_lo\": %.6g, \"ci_hi\": %.6g, \"p\": %.6g, \"q\": %.6g, \"verdict\": \"%s\"}",
                i ? "," : "", pts[i].label, pts[i].a_us, pts[i].b_us, pts[i].r.ratio, pts[i].r.lo,
                pts[i].r.hi, pts[i].r.p, pts[i].q, pts[i].verdict);
    }
    fprintf(out, "\n]}\n");
}

int sp_compare_main(int argc, char **argv)
{
    const char *files[2] = {NULL, NULL};
    double threshold = 0.03;
    int json = 0, nfiles = 0, slower, rc = 2;
    sp_reader_t a, b;
    point_t *pts = NULL;
    size_t n;

    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (strcmp(argv[i], "--threshold") == 0 && i + 1 < argc) {
            char *end = NULL;
            threshold = strtod(argv[++i], &end) / 100.0;
            if (end == argv[i] || *end != '\0' || !(threshold >= 0.0 && threshold < 1.0)) {
                sp_launcher_error("compare", "--threshold takes a percentage in [0, 100)");
                return 2;
            }
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("usage: scaleprobe compare A.h5 B.h5 [--threshold PCT] [--json]\n"
                   "What differs between two runs, then every matching point as B/A with a "
                   "bootstrap 95%% CI\nand a verdict (Benjamini-Hochberg over the points, "
                   "threshold default 3%%).\nExit 0: nothing slower; 1: something slower; 2: "
                   "bad input or not comparable.\n");
            return 0;
        } else if (argv[i][0] != '-' && nfiles < 2) {
            files[nfiles++] = argv[i];
        } else {
            sp_launcher_error("compare", "usage: scaleprobe compare A.h5 B.h5 [--threshold PCT] "
                                         "[--json]");
            return 2;
        }
    }
    if (nfiles != 2) {
        sp_launcher_error("compare", "expected two result files (usage: scaleprobe compare "
                                     "A.h5 B.h5)");
        return 2;
    }
    if (sp_reader_open(files[0], &a) != SP_OK) {
        return 2;
    }
    if (sp_reader_open(files[1], &b) != SP_OK) {
        sp_reader_close(&a);
        return 2;
    }
    print_differences(&a, &b, json ? stderr : stdout);
    pts = calloc(a.nrows + 1, sizeof(*pts));
    n = pts != NULL ? match_points(&a, &b, pts, a.nrows + 1) : 0;
    if (strcmp(a.subcommand, b.subcommand) != 0 || n == 0) {
        fprintf(stderr,
                "scaleprobe compare: error: not comparable: %s (A: %s, B: %s)\n",
                strcmp(a.subcommand, b.subcommand) != 0 ? "different commands"
                                                        : "no point measured in both with 2+ samples",
                a.subcommand, b.subcommand);
    } else if ((slower = judge(pts, n, threshold)) >= 0) {
        if (json) {
            print_json(pts, n, slower, stdout);
        } else {
            print_table(pts, n, threshold, stdout);
            printf("# %zu points compared: %d slower in B\n", n, slower);
        }
        rc = slower > 0 ? 1 : 0;
    } else {
        fprintf(stderr, "scaleprobe compare: error: out of memory\n");
        rc = 1;
    }
    free(pts);
    sp_reader_close(&a);
    sp_reader_close(&b);
    return rc;
}

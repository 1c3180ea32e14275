/* The export command: every input is checked before anything is written, and outputs are
 * written to temporary files that are renamed into place only once all of them are complete, so
 * a failed export leaves nothing. The writers are in export_writers.c. */
#include "export.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher.h"
#include "options.h"
#include "units.h"

#define CMD "export"
#define PATH_LEN 4096

/* ---- the command ---- */

/* What the command line asks for (pointers into opts; NULL: not asked). */
typedef struct {
    const char *file;
    const char *chrome;  /* NULL: no trace */
    const char *csv_dir; /* NULL: no CSV */
    const char *ranks;   /* NULL: every rank */
    int force;
    int help;
    uint8_t csv_wanted[16]; /* which CSV files this file gets (plan_csvs) */
} export_args_t;

typedef struct {
    sp_opt_args_t files;
    char chrome[SP_OPT_STRLEN];
    char csv_dir[SP_OPT_STRLEN];
    char ranks[SP_OPT_STRLEN];
    int force;
} export_opts_t;

#define OFF(field) offsetof(export_opts_t, field)

enum { ROW_FILES, ROW_CHROME, ROW_CSV, ROW_RANKS, ROW_FORCE, NROWS };

static const sp_opt_def_t export_defs[NROWS] = {
    [ROW_FILES] = {"file", 0, SP_OPT_ARGS, OFF(files), NULL, "FILE", "the result file to export", 1,
                   1, NULL, 0},
    [ROW_CHROME] = {"chrome", 0, SP_OPT_STRING, OFF(chrome), NULL, "OUT.json",
                    "the timeline as a Chrome/Perfetto trace (ui.perfetto.dev, chrome://tracing): "
                    "one process per rank, one thread per lane",
                    0, -1, NULL, 0},
    [ROW_CSV] = {"csv", 0, SP_OPT_STRING, OFF(csv_dir), NULL, "DIR",
                 "DIR/events.csv, clock.csv, ranks.csv, columns.csv (every column's units) and the "
                 "tables the file has: coll_results.csv, coll_rank_times.csv, links.csv, "
                 "proxy_info.csv, proxy_ranks.csv, node_*.csv (DIR is created when missing)",
                 0, -1, NULL, 0},
    [ROW_RANKS] = {"ranks", 0, SP_OPT_STRING, OFF(ranks), NULL, "LIST",
                   "only these ranks, e.g. 0-3,8,12-15 (default: all)", 0, -1, NULL, 0},
    [ROW_FORCE] = {"force", 0, SP_OPT_FLAG, OFF(force), NULL, NULL,
                   "overwrite existing output files", 0, -1, NULL, 0},
};

static const sp_opt_table_t export_table = {
    .command = CMD,
    .summary = "Export a result file for other tools. Needs no MPI launch.\nAt least one of "
               "--chrome and --csv is needed.",
    .defs = export_defs,
    .ndefs = NROWS,
};

/* The file and at least one output, each value usable as a path. */
static sp_status_t check_args(const export_opts_t *o, const unsigned char *seen, char *msg,
                              size_t len)
{
    static const int valued[] = {ROW_CHROME, ROW_CSV, ROW_RANKS};

    for (size_t k = 0; k < sizeof(valued) / sizeof(valued[0]); k++) {
        const sp_opt_def_t *d = &export_defs[valued[k]];
        const char *value = (const char *)o + d->offset;
        if (seen[valued[k]] && value[0] == '\0') {
            snprintf(msg, len, "--%s needs a value", d->long_name);
            return SP_ERR_INVALID;
        }
        if (strlen(value) >= PATH_LEN - 32) {
            snprintf(msg, len, "--%s: value too long", d->long_name);
            return SP_ERR_INVALID;
        }
    }
    if (o->files.n > 1) {
        snprintf(msg, len, "expected one result file, got '%.200s' and '%.200s'", o->files.v[0],
                 o->files.v[1]);
        return SP_ERR_INVALID;
    }
    if (o->files.n == 0) {
        snprintf(msg, len,
                 "no result file given (usage: scaleprobe export FILE --chrome OUT.json "
                 "| --csv DIR)");
        return SP_ERR_INVALID;
    }
    if (!seen[ROW_CHROME] && !seen[ROW_CSV]) {
        snprintf(msg, len, "nothing to export: give --chrome OUT.json and/or --csv DIR");
        return SP_ERR_INVALID;
    }
    return SP_OK;
}

/* Parse argv into o (o->files.v: caller storage of argc entries) and a. */
static sp_status_t parse_args(int argc, char **argv, export_opts_t *o, export_args_t *a, char *msg,
                              size_t len)
{
    unsigned char seen[NROWS];
    sp_status_t status;

    memset(a, 0, sizeof(*a));
    status = sp_opts_parse(&export_table, argc, argv, 2, o, &a->help, seen, msg, len);
    if (status != SP_OK || a->help) {
        return status;
    }
    status = check_args(o, seen, msg, len);
    if (status != SP_OK) {
        return status;
    }
    a->file = o->files.v[0];
    a->chrome = seen[ROW_CHROME] ? o->chrome : NULL;
    a->csv_dir = seen[ROW_CSV] ? o->csv_dir : NULL;
    a->ranks = seen[ROW_RANKS] ? o->ranks : NULL;
    a->force = o->force;
    return SP_OK;
}

/* A decimal rank (digits only) at *s, advancing *s past its digits; -1 when there is none.
 * Values past INT_MAX saturate there, so they fail the range check, not the syntax check. */
static long parse_rank(const char **s)
{
    long v = 0;
    const char *p = *s;

    if (*p < '0' || *p > '9') {
        return -1;
    }
    for (; *p >= '0' && *p <= '9'; p++) {
        v = v * 10 + (*p - '0');
        v = v > INT_MAX ? INT_MAX : v;
    }
    *s = p;
    return v;
}

/* "0-3,8,12-15" over [0, nranks) into selected (nranks flags, set only on success). */
static sp_status_t parse_rank_list(const char *list, int nranks, uint8_t *selected, char *msg,
                                   size_t len)
{
    uint8_t *sel = calloc(nranks > 0 ? (size_t)nranks : 1, 1);
    const char *s = list;
    sp_status_t status = SP_OK;

    if (sel == NULL) {
        snprintf(msg, len, "out of memory");
        return SP_ERR_NOMEM;
    }
    for (;;) {
        const char *item = s;
        long lo = parse_rank(&s);
        long hi = lo;
        if (lo >= 0 && *s == '-') {
            s++;
            hi = parse_rank(&s);
        }
        if (lo < 0 || hi < 0 || (*s != ',' && *s != '\0')) {
            snprintf(msg, len, "bad rank list '%.200s': expected ranks and ranges like 0-3,8,12-15",
                     list);
            status = SP_ERR_INVALID;
            break;
        }
        if (hi < lo) {
            snprintf(msg, len, "bad rank list '%.200s': range %.*s is backwards", list,
                     (int)(s - item), item);
            status = SP_ERR_INVALID;
            break;
        }
        if (hi >= nranks) {
            snprintf(msg, len, "rank list '%.200s': %.*s is out of range, the file has ranks 0-%d",
                     list, (int)(s - item), item, nranks - 1);
            status = SP_ERR_INVALID;
            break;
        }
        memset(sel + lo, 1, (size_t)(hi - lo + 1));
        if (*s == '\0') {
            break;
        }
        s++;
    }
    if (status == SP_OK) {
        memcpy(selected, sel, (size_t)nranks);
    }
    free(sel);
    return status;
}

/* The CSV files, in the order they are written: a file gets only those whose data it has. */
enum {
    CSV_EVENTS,
    CSV_CLOCK,
    CSV_RANKS,
    CSV_COLL_RESULTS,
    CSV_COLL_RANK_TIMES,
    CSV_COLL_GROUPS,
    CSV_COLL_GROUP_RANKS,
    CSV_LINKS,
    CSV_PROXY_INFO,
    CSV_PROXY_RANKS,
    CSV_NODE_RESULTS,
    CSV_NODE_BURN,
    CSV_NODE_OUTLIERS,
    CSV_COLUMNS, /* last: the units of every column of the others */
    NCSV
};

static const struct {
    const char *name;
    const char *needs; /* written only when the file has this object; NULL: always */
    const char *table; /* written by the generic table writer; NULL: by its own */
} csvs[NCSV] = {
    [CSV_EVENTS] = {"events.csv", NULL, NULL},
    [CSV_CLOCK] = {"clock.csv", NULL, NULL},
    [CSV_RANKS] = {"ranks.csv", NULL, NULL},
    [CSV_COLL_RESULTS] = {"coll_results.csv", "/coll/results", NULL},
    [CSV_COLL_RANK_TIMES] = {"coll_rank_times.csv", "/coll/rank_times", NULL},
    [CSV_COLL_GROUPS] = {"coll_groups.csv", "/coll/groups", "/coll/groups"},
    [CSV_COLL_GROUP_RANKS] = {"coll_group_ranks.csv", "/coll/group_ranks", "/coll/group_ranks"},
    [CSV_LINKS] = {"links.csv", "/links/pairs", NULL},
    [CSV_PROXY_INFO] = {"proxy_info.csv", "/proxy/info", "/proxy/info"},
    [CSV_PROXY_RANKS] = {"proxy_ranks.csv", "/proxy/ranks", "/proxy/ranks"},
    [CSV_NODE_RESULTS] = {"node_results.csv", "/node/results", "/node/results"},
    [CSV_NODE_BURN] = {"node_burn.csv", "/node/burn", "/node/burn"},
    [CSV_NODE_OUTLIERS] = {"node_outliers.csv", "/node/outliers", "/node/outliers"},
    [CSV_COLUMNS] = {"columns.csv", NULL, NULL},
};

/* Which CSV files file gets (wanted[i] for csvs[i]). */
static void plan_csvs(const char *file, uint8_t *wanted)
{
    for (size_t i = 0; i < NCSV; i++) {
        wanted[i] = csvs[i].needs == NULL || sp_export_has(file, csvs[i].needs);
    }
}

/* One output file: written to a temporary name next to it, renamed when everything is done. */
typedef struct {
    char path[PATH_LEN];
    char tmp[PATH_LEN + 16];
    FILE *f;
} out_file_t;

_Static_assert(NCSV <= sizeof(((export_args_t *)0)->csv_wanted), "csv_wanted too small");

/* Can path be written (it does not exist, or --force and it is a writable file)? */
static sp_status_t check_output(const char *path, int force, char *msg, size_t len)
{
    sp_status_t status = sp_result_check_path(path, force);

    if (status == SP_ERR_EXISTS) {
        snprintf(msg, len, "%.1000s exists (use --force to overwrite)", path);
    } else if (status != SP_OK) {
        snprintf(msg, len,
                 "%.1000s cannot be written (not a regular file, or no writable "
                 "directory to create it in)",
                 path);
    }
    return status;
}

static sp_status_t check_csv_dir(const char *dir, const uint8_t *wanted, int force, char *msg,
                                 size_t len)
{
    struct stat st;
    char path[PATH_LEN];

    if (stat(dir, &st) != 0) {
        /* missing: its nearest existing ancestor must let us create it */
        return check_output(dir, 0, msg, len);
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(msg, len, "%.1000s exists and is not a directory", dir);
        return SP_ERR_INVALID;
    }
    for (size_t i = 0; i < NCSV; i++) {
        sp_status_t status;
        if (!wanted[i]) {
            continue;
        }
        snprintf(path, sizeof(path), "%s/%s", dir, csvs[i].name);
        status = check_output(path, force, msg, len);
        if (status != SP_OK) {
            return status;
        }
    }
    return SP_OK;
}

/* Directories an export created, so a failed export can take them away again. */
typedef struct {
    char top[PATH_LEN];     /* the first one created ("" when none was) */
    char deepest[PATH_LEN]; /* the last one made sure of */
} made_dirs_t;

/* mkdir -p of path itself (with_last) or of its parent directories only. */
static sp_status_t make_dirs(const char *path, int with_last, made_dirs_t *made)
{
    char buf[PATH_LEN];

    made->top[0] = made->deepest[0] = '\0';
    snprintf(buf, sizeof(buf), "%s", path);
    for (char *p = buf + 1;; p++) {
        char c = *p;
        if (c != '/' && c != '\0') {
            continue;
        }
        if (c == '\0' && !with_last) {
            break;
        }
        *p = '\0';
        if (mkdir(buf, 0777) == 0) {
            if (made->top[0] == '\0') {
                snprintf(made->top, sizeof(made->top), "%s", buf);
            }
        } else if (errno != EEXIST) {
            return SP_ERR_IO;
        }
        snprintf(made->deepest, sizeof(made->deepest), "%s", buf);
        *p = c;
        if (c == '\0') {
            break;
        }
    }
    return SP_OK;
}

/* Remove what make_dirs created, deepest first; directories that are not empty stay. */
static void remove_made_dirs(const made_dirs_t *made)
{
    char buf[PATH_LEN];

    if (made->top[0] == '\0') {
        return;
    }
    snprintf(buf, sizeof(buf), "%s", made->deepest);
    for (;;) {
        char *slash;
        rmdir(buf);
        slash = strrchr(buf, '/');
        if (strcmp(buf, made->top) == 0 || slash == NULL || slash == buf) {
            break;
        }
        *slash = '\0';
    }
}

static sp_status_t out_open(out_file_t *o, const char *path)
{
    mode_t mask;
    int fd;

    snprintf(o->path, sizeof(o->path), "%s", path);
    snprintf(o->tmp, sizeof(o->tmp), "%s.tmpXXXXXX", path);
    fd = mkstemp(o->tmp);
    if (fd < 0) {
        o->tmp[0] = '\0';
        return SP_ERR_IO;
    }
    /* mkstemp makes the file private; give it the mode a plain fopen would have */
    mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    o->f = fdopen(fd, "w");
    if (o->f == NULL) {
        close(fd);
        unlink(o->tmp);
        o->tmp[0] = '\0';
        return SP_ERR_IO;
    }
    return SP_OK;
}

/* Close the temporary file; SP_ERR_IO when any write to it failed. */
static sp_status_t out_close(out_file_t *o)
{
    int bad;

    if (o->f == NULL) {
        return SP_OK;
    }
    bad = ferror(o->f);
    bad = fclose(o->f) != 0 || bad;
    o->f = NULL;
    return bad ? SP_ERR_IO : SP_OK;
}

static void out_discard(out_file_t *o)
{
    out_close(o);
    if (o->tmp[0] != '\0') {
        unlink(o->tmp);
        o->tmp[0] = '\0';
    }
}

static void warn(const char *msg)
{
    if (sp_launcher_rank() <= 0) {
        fprintf(stderr, "scaleprobe " CMD ": warning: %s\n", msg);
    }
}

/* columns.csv: file, column and units of every column of the CSV files written before it
 * (outs[0..n), whose headers are read back from their temporary files). */
static sp_status_t write_columns(const out_file_t *outs, size_t n, FILE *out)
{
    char line[8192];

    fputs("file,column,units\n", out);
    for (size_t i = 0; i < n; i++) {
        const char *base = strrchr(outs[i].path, '/');
        FILE *f;
        base = base != NULL ? base + 1 : outs[i].path;
        if (strstr(base, ".csv") == NULL || (f = fopen(outs[i].tmp, "r")) == NULL) {
            continue; /* the trace */
        }
        if (fgets(line, sizeof(line), f) != NULL) {
            /* headers are plain names: no quotes, no commas inside */
            for (char *col = strtok(line, ",\r\n"); col != NULL; col = strtok(NULL, ",\r\n")) {
                fprintf(out, "%s,%s,%s\n", base, col, sp_units_of(col));
            }
        }
        fclose(f);
    }
    return ferror(out) ? SP_ERR_IO : SP_OK;
}

/* Write one requested output file (the trace is number 0, csvs[i] number i + 1). */
static sp_status_t write_output(size_t which, const sp_export_src_t *src, FILE *out,
                                sp_export_stats_t *chrome_stats, sp_export_stats_t *csv_stats)
{
    if (which == 0) {
        return sp_export_chrome(src, out, chrome_stats);
    }
    if (csvs[which - 1].table != NULL) {
        return sp_export_table_csv(src->rd->path, csvs[which - 1].table, out);
    }
    switch (which - 1) {
    case CSV_EVENTS:
        return sp_export_events_csv(src, out, csv_stats);
    case CSV_CLOCK:
        return sp_export_clock_csv(src, out);
    case CSV_RANKS:
        return sp_export_ranks_csv(src, out);
    case CSV_COLL_RESULTS:
        return sp_export_results_csv(src, out);
    case CSV_COLL_RANK_TIMES:
        return sp_export_rank_times_csv(src, out);
    default:
        return sp_export_links_csv(src, out);
    }
}

static void print_summary(const export_args_t *a, const sp_export_src_t *src,
                          const sp_export_stats_t *chrome_stats, const sp_export_stats_t *csv_stats)
{
    char msg[256];

    if (a->chrome != NULL) {
        printf("# %s: %llu events\n", a->chrome, (unsigned long long)chrome_stats->events);
    }
    if (a->csv_dir != NULL) {
        printf("# %s: events.csv (%llu events)", a->csv_dir,
               (unsigned long long)csv_stats->events);
        for (size_t i = CSV_EVENTS + 1; i < NCSV; i++) {
            if (!a->csv_wanted[i]) {
                continue;
            }
            printf(", %s", csvs[i].name);
            if (i == CSV_COLL_RESULTS) {
                printf(" (%zu rows)", src->rd->nrows);
            } else if (i == CSV_LINKS) {
                printf(" (%zu rows)", src->rd->links.npairs);
            } else if (i == CSV_PROXY_RANKS) {
                printf(" (%zu rows)", src->rd->nproxy);
            }
        }
        printf("\n");
    }
    if (chrome_stats->negative + csv_stats->negative > 0) {
        /* both outputs hold the same events: either count is the number of such events */
        snprintf(msg, sizeof(msg),
                 "%llu events end before they start (a clock model problem?); "
                 "the trace shows them with duration 0",
                 (unsigned long long)(chrome_stats->negative > csv_stats->negative
                                          ? chrome_stats->negative
                                          : csv_stats->negative));
        warn(msg);
    }
}

/* Write every requested output. On failure remove the temporary files and the directories
 * made for them, say why, and return 2 for bad input (a damaged input file, an output path
 * that cannot be created), 1 for a write error once writing began (a full disk). */
static int write_outputs(const export_args_t *a, const sp_export_src_t *src)
{
    out_file_t outs[1 + NCSV];
    made_dirs_t made[2]; /* for the trace, for the CSV directory */
    size_t nouts = 0;
    sp_export_stats_t chrome_stats = {0, 0};
    sp_export_stats_t csv_stats = {0, 0};
    char msg[PATH_LEN + 512];
    sp_status_t status = SP_OK;
    int rc = 1;

    memset(outs, 0, sizeof(outs));
    memset(made, 0, sizeof(made));
    if (a->chrome != NULL && make_dirs(a->chrome, 0, &made[0]) != SP_OK) {
        snprintf(msg, sizeof(msg), "cannot create the directory of %.1000s: %s", a->chrome,
                 strerror(errno));
        rc = 2;
        goto remove_dirs;
    }
    if (a->csv_dir != NULL && make_dirs(a->csv_dir, 1, &made[1]) != SP_OK) {
        snprintf(msg, sizeof(msg), "cannot create %.1000s: %s", a->csv_dir, strerror(errno));
        rc = 2;
        goto remove_dirs;
    }
    for (size_t which = a->chrome != NULL ? 0 : 1; which <= (a->csv_dir != NULL ? NCSV : 0);
         which++) {
        char path[PATH_LEN];
        out_file_t *o = &outs[nouts];
        if (which > 0 && !a->csv_wanted[which - 1]) {
            continue;
        }
        if (which == 0) {
            snprintf(path, sizeof(path), "%s", a->chrome);
        } else {
            snprintf(path, sizeof(path), "%s/%s", a->csv_dir, csvs[which - 1].name);
        }
        if (out_open(o, path) != SP_OK) {
            snprintf(msg, sizeof(msg), "cannot create %.1000s: %s", path, strerror(errno));
            rc = 2;
            goto discard;
        }
        nouts++;
        status = which == 1 + CSV_COLUMNS
                     ? write_columns(outs, nouts - 1, o->f)
                     : write_output(which, src, o->f, &chrome_stats, &csv_stats);
        if (status != SP_OK) {
            /* a write error shows in the stream; anything else came from reading the file */
            if (ferror(o->f)) {
                snprintf(msg, sizeof(msg), "%.1000s: write failed: %s", path, strerror(errno));
            } else {
                snprintf(msg, sizeof(msg), "%.1000s: is a damaged scaleprobe result file: %s",
                         src->rd->path,
                         src->tl->why[0] != '\0' ? src->tl->why : sp_status_str(status));
                rc = 2;
            }
            goto discard;
        }
        if (out_close(o) != SP_OK) {
            snprintf(msg, sizeof(msg), "%.1000s: write failed: %s", path, strerror(errno));
            goto discard;
        }
    }
    /* everything is complete: only now do the outputs appear under their names */
    for (size_t i = 0; i < nouts; i++) {
        if (rename(outs[i].tmp, outs[i].path) != 0) {
            snprintf(msg, sizeof(msg), "cannot rename %.1000s to %.1000s: %s", outs[i].tmp,
                     outs[i].path, strerror(errno));
            goto discard;
        }
        outs[i].tmp[0] = '\0';
    }
    print_summary(a, src, &chrome_stats, &csv_stats);
    return 0;

discard:
    for (size_t i = 0; i < nouts; i++) {
        out_discard(&outs[i]);
    }
remove_dirs:
    remove_made_dirs(&made[1]);
    remove_made_dirs(&made[0]);
    sp_launcher_error(CMD, msg);
    return rc;
}

/* The ranks an export can name: the world, and any timeline rank beyond it. */
static int rank_universe(const sp_reader_t *rd, const sp_tlread_t *tl)
{
    int n = rd->world_size > 0 ? rd->world_size : 0;

    if (tl->nranks > 0 && tl->ranks[tl->nranks - 1].rank >= n) {
        n = tl->ranks[tl->nranks - 1].rank + 1;
    }
    return n;
}

int sp_export_main(int argc, char **argv)
{
    export_opts_t *o = calloc(1, sizeof(*o));
    char **files = calloc((size_t)argc + 1, sizeof(*files));
    export_args_t a;
    sp_reader_t rd;
    sp_tlread_t tl;
    sp_export_src_t src;
    uint8_t *selected;
    uint64_t dropped = 0;
    int nranks;
    char msg[PATH_LEN + 512];
    int rc = 2;

    if (o == NULL || files == NULL) {
        sp_launcher_error(CMD, "out of memory");
        rc = 1;
        goto free_opts;
    }
    o->files.v = files;
    o->files.cap = argc;
    if (parse_args(argc, argv, o, &a, msg, sizeof(msg)) != SP_OK) {
        sp_launcher_error(CMD, msg);
        goto free_opts;
    }
    if (a.help) {
        sp_opts_help(&export_table, stdout);
        rc = 0;
        goto free_opts;
    }
    if (sp_tlread_open(a.file, &tl) != SP_OK) {
        snprintf(msg, sizeof(msg), "%.1000s: %s", a.file, tl.why);
        sp_launcher_error(CMD, msg);
        goto free_opts;
    }
    if (sp_reader_open(a.file, &rd) != SP_OK) {
        snprintf(msg, sizeof(msg), "%.1000s: %s", a.file, rd.why);
        sp_launcher_error(CMD, msg);
        goto close_tl;
    }
    plan_csvs(a.file, a.csv_wanted);
    nranks = rank_universe(&rd, &tl);
    selected = malloc(nranks > 0 ? (size_t)nranks : 1);
    if (selected == NULL) {
        sp_launcher_error(CMD, "out of memory");
        rc = 1;
        goto close_reader;
    }
    memset(selected, 1, (size_t)nranks);
    if (a.ranks != NULL && parse_rank_list(a.ranks, nranks, selected, msg, sizeof(msg)) != SP_OK) {
        sp_launcher_error(CMD, msg);
        goto free_selected;
    }
    if ((a.chrome != NULL && check_output(a.chrome, a.force, msg, sizeof(msg)) != SP_OK) ||
        (a.csv_dir != NULL &&
         check_csv_dir(a.csv_dir, a.csv_wanted, a.force, msg, sizeof(msg)) != SP_OK)) {
        sp_launcher_error(CMD, msg);
        goto free_selected;
    }

    if (!tl.present) {
        snprintf(msg, sizeof(msg),
                 "%.1000s has no /timeline (an older file, or a run that "
                 "ended before gathering it): no events to export",
                 a.file);
        warn(msg);
    }
    for (size_t i = 0; i < tl.nranks; i++) {
        int r = tl.ranks[i].rank;
        dropped += r < nranks && selected[r] ? tl.ranks[i].dropped : 0;
    }
    if (dropped > 0) {
        snprintf(msg, sizeof(msg),
                 "%llu events were dropped while recording (timeline buffers "
                 "full); the export has the ones that were kept",
                 (unsigned long long)dropped);
        warn(msg);
    }
    src.rd = &rd;
    src.tl = &tl;
    src.selected = selected;
    src.nranks = nranks;
    rc = write_outputs(&a, &src);

free_selected:
    free(selected);
close_reader:
    sp_reader_close(&rd);
close_tl:
    sp_tlread_close(&tl);
free_opts:
    free(files);
    free(o);
    return rc;
}

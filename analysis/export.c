/* Export of a result file: the timeline as a Chrome/Perfetto trace, the tables as CSV. Every
 * input is checked before anything is written, and outputs are written to temporary files that
 * are renamed into place only once all of them are complete, so a failed export leaves nothing. */
#include "export.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "coll.h"
#include "dtype.h"
#include "json.h"
#include "launcher.h"

#define CMD "export"
#define PATH_LEN 4096
#define CHUNK_EVENTS 8192 /* events per read: one chunk of the writer's /timeline/events */
#define NLANES 65536      /* lanes are int16 */

/* ---- names and formatting ---- */

static const char *kind_name(int kind)
{
    return kind >= 0 && kind < SP_EV_KIND_COUNT ? sp_ev_kind_names[kind] : "unknown";
}

static const char *op_name(int op)
{
    return op >= 0 && op < SP_COLL_COUNT ? sp_coll_names[op] : "none";
}

static const char *dtype_name(int dtype)
{
    return dtype >= 0 && dtype < SP_DTYPE_COUNT ? sp_dtype_names[dtype] : "none";
}

/* A CSV field: quoted (quotes doubled) only when it holds a separator, quote or line break. */
static void csv_str(FILE *out, const char *s)
{
    if (strpbrk(s, ",\"\r\n") == NULL) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s != '\0'; s++) {
        if (*s == '"') {
            fputc('"', out);
        }
        fputc(*s, out);
    }
    fputc('"', out);
}

/* Doubles in CSV: "nan" and "inf" spelled the same on every libc (no "-nan"). */
static void csv_double(FILE *out, double v)
{
    if (isnan(v)) {
        fputs("nan", out);
    } else if (isinf(v)) {
        fputs(v > 0 ? "inf" : "-inf", out);
    } else {
        fprintf(out, "%.10g", v);
    }
}

/* Nanoseconds as microseconds with three decimals, exactly (no binary rounding). */
static void put_us(FILE *out, uint64_t ns)
{
    fprintf(out, "%llu.%03u", (unsigned long long)(ns / 1000), (unsigned)(ns % 1000));
}

/* SP_ERR_IO once any write to out has failed (the stream remembers it). */
static sp_status_t check_stream(FILE *out)
{
    return ferror(out) ? SP_ERR_IO : SP_OK;
}

/* ---- Chrome trace ---- */

/* The trace being written: events are separated by ",\n" (no comma before the first). */
typedef struct {
    FILE *out;
    int first;
    int64_t t0_ns;
    sp_export_stats_t stats;
} chrome_t;

static void chrome_begin(chrome_t *c)
{
    fputs(c->first ? "\n" : ",\n", c->out);
    c->first = 0;
}

static void chrome_event(chrome_t *c, const sp_event_rec_t *ev)
{
    static const struct {
        const char *name;
        size_t offset;
    } labels[] = {
        {"step", offsetof(sp_event_rec_t, step)},
        {"microbatch", offsetof(sp_event_rec_t, microbatch)},
        {"chunk", offsetof(sp_event_rec_t, chunk)},
        {"layer", offsetof(sp_event_rec_t, layer)},
        {"bucket", offsetof(sp_event_rec_t, bucket)},
        {"peer", offsetof(sp_event_rec_t, peer)},
    };
    FILE *out = c->out;
    /* unsigned differences: exact for any two int64 times, and t0 is the earliest start */
    uint64_t ts = (uint64_t)ev->start_ns - (uint64_t)c->t0_ns;
    uint64_t dur = 0;

    if (ev->end_ns >= ev->start_ns) {
        dur = (uint64_t)ev->end_ns - (uint64_t)ev->start_ns;
    } else {
        c->stats.negative++; /* trace viewers reject negative durations */
    }
    chrome_begin(c);
    fprintf(out, "{\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":", (int)ev->rank, (int)ev->lane);
    put_us(out, ts);
    fputs(",\"dur\":", out);
    put_us(out, dur);
    fprintf(out,
            ",\"name\":\"%s\",\"cat\":\"%s\",\"args\":{\"bytes\":%llu,\"nops\":%d,\"seq\":%llu",
            ev->op >= 0 && ev->op < SP_COLL_COUNT ? sp_coll_names[ev->op] : kind_name(ev->kind),
            kind_name(ev->kind), (unsigned long long)ev->bytes, (int)ev->nops,
            (unsigned long long)ev->seq);
    if (ev->dtype >= 0) {
        fprintf(out, ",\"dtype\":\"%s\"", dtype_name(ev->dtype));
    }
    for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]); i++) {
        int32_t v;
        memcpy(&v, (const char *)ev + labels[i].offset, sizeof(v));
        if (v != -1) {
            fprintf(out, ",\"%s\":%d", labels[i].name, (int)v);
        }
    }
    if (ev->flops != 0.0 && isfinite(ev->flops)) {
        fprintf(out, ",\"flops\":%.17g", ev->flops);
    }
    fputs("}}", out);
    c->stats.events++;
}

static void chrome_rank_meta(chrome_t *c, const sp_export_src_t *src, int rank)
{
    const sp_tl_rank_t *row = sp_tlread_find(src->tl, rank);
    char name[128];

    snprintf(name, sizeof(name), "rank %d (%s)", rank, sp_reader_host(src->rd, rank));
    chrome_begin(c);
    fprintf(c->out, "{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_name\",\"args\":{\"name\":", rank);
    sp_json_str(c->out, name);
    fputs("}}", c->out);
    chrome_begin(c);
    fprintf(
        c->out,
        "{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_sort_index\",\"args\":{\"sort_index\":%d}}",
        rank, rank);
    if (row != NULL && row->dropped > 0) {
        /* shown under the rank's name: this rank's trace is incomplete */
        chrome_begin(c);
        fprintf(c->out,
                "{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_labels\",\"args\":{\"labels\":"
                "\"%llu events dropped (timeline buffer full)\"}}",
                rank, (unsigned long long)row->dropped);
    }
}

static void chrome_lane_meta(chrome_t *c, int rank, int lane)
{
    chrome_begin(c);
    fprintf(c->out,
            "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"thread_name\",\"args\":{\"name\":"
            "\"lane %d\"}}",
            rank, lane, lane);
}

/* The earliest start over the selected ranks; INT64_MAX when they have no events. */
static sp_status_t earliest_start(const sp_export_src_t *src, int64_t *t0_ns_p)
{
    int64_t t0 = INT64_MAX;

    for (int r = 0; r < src->nranks; r++) {
        int64_t lo;
        int64_t hi;
        sp_status_t status;
        if (!src->selected[r]) {
            continue;
        }
        status = sp_tlread_span(src->tl, r, &lo, &hi);
        if (status != SP_OK) {
            return status;
        }
        t0 = lo < t0 ? lo : t0;
    }
    *t0_ns_p = t0;
    return SP_OK;
}

/* One rank: its metadata, its events chunk by chunk, then a name for each lane it used.
 * lane_seen (a bitmap over the int16 lanes) is all clear on entry and on return. */
static sp_status_t chrome_rank(chrome_t *c, const sp_export_src_t *src, int rank,
                               sp_event_rec_t *buf, uint64_t *lane_seen, int32_t *lanes)
{
    size_t nlanes = 0;
    size_t n = CHUNK_EVENTS;
    sp_status_t status = SP_OK;

    chrome_rank_meta(c, src, rank);
    for (uint64_t from = 0; n == CHUNK_EVENTS && status == SP_OK; from += n) {
        status = sp_tlread_rank(src->tl, rank, buf, CHUNK_EVENTS, from, &n);
        for (size_t i = 0; i < n && status == SP_OK; i++) {
            unsigned bit = (unsigned)(buf[i].lane + 32768);
            if (!(lane_seen[bit / 64] & (1ull << (bit % 64)))) {
                lane_seen[bit / 64] |= 1ull << (bit % 64);
                lanes[nlanes++] = buf[i].lane;
            }
            chrome_event(c, &buf[i]);
        }
        if (status == SP_OK) {
            status = check_stream(c->out);
        }
    }
    for (size_t i = 0; i < nlanes; i++) {
        unsigned bit = (unsigned)(lanes[i] + 32768);
        lane_seen[bit / 64] &= ~(1ull << (bit % 64));
        chrome_lane_meta(c, rank, (int)lanes[i]);
    }
    return status;
}

sp_status_t sp_export_chrome(const sp_export_src_t *src, FILE *out, sp_export_stats_t *stats_p)
{
    chrome_t c;
    sp_event_rec_t *buf;
    uint64_t *lane_seen;
    int32_t *lanes; /* the lanes the current rank used, in order of appearance */
    sp_status_t status;

    memset(&c, 0, sizeof(c));
    c.out = out;
    c.first = 1;
    buf = malloc(CHUNK_EVENTS * sizeof(*buf));
    lane_seen = calloc(NLANES / 64, sizeof(*lane_seen));
    lanes = malloc(NLANES * sizeof(*lanes));
    if (buf == NULL || lane_seen == NULL || lanes == NULL) {
        status = SP_ERR_NOMEM;
        goto free_buffers;
    }
    /* a first pass over the time columns only: ts stays small when it counts from the start */
    status = earliest_start(src, &c.t0_ns);
    if (status != SP_OK) {
        goto free_buffers;
    }
    fputs("{\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"source\":", out);
    sp_json_str(out, src->rd->path);
    fprintf(out,
            ",\"time_base\":\"rank 0's CLOCK_MONOTONIC; ts in microseconds from t0_ns\","
            "\"clock_err_ns\":\"%lld\",\"t0_ns\":\"%lld\"},\n\"traceEvents\":[",
            (long long)src->tl->clock_err_ns, c.t0_ns == INT64_MAX ? 0LL : (long long)c.t0_ns);
    for (int r = 0; r < src->nranks && status == SP_OK; r++) {
        if (src->selected[r]) {
            status = chrome_rank(&c, src, r, buf, lane_seen, lanes);
        }
    }
    if (status == SP_OK) {
        fputs("\n]}\n", out);
        status = check_stream(out);
    }
    if (status == SP_OK && stats_p != NULL) {
        *stats_p = c.stats;
    }
free_buffers:
    free(lanes);
    free(lane_seen);
    free(buf);
    return status;
}

/* ---- CSV ---- */

sp_status_t sp_export_events_csv(const sp_export_src_t *src, FILE *out, sp_export_stats_t *stats_p)
{
    sp_export_stats_t stats = {0, 0};
    sp_event_rec_t *buf = malloc(CHUNK_EVENTS * sizeof(*buf));
    sp_status_t status = SP_OK;

    if (buf == NULL) {
        return SP_ERR_NOMEM;
    }
    fputs("rank,lane,kind,op,dtype,step,microbatch,chunk,layer,bucket,peer,nops,bytes,flops,seq,"
          "start_ns,end_ns\n",
          out);
    for (int r = 0; r < src->nranks && status == SP_OK; r++) {
        size_t n = CHUNK_EVENTS;
        if (!src->selected[r]) {
            continue;
        }
        for (uint64_t from = 0; n == CHUNK_EVENTS && status == SP_OK; from += n) {
            status = sp_tlread_rank(src->tl, r, buf, CHUNK_EVENTS, from, &n);
            for (size_t i = 0; i < n && status == SP_OK; i++) {
                const sp_event_rec_t *e = &buf[i];
                fprintf(out, "%d,%d,%s,%s,%s,%d,%d,%d,%d,%d,%d,%d,%llu,", (int)e->rank,
                        (int)e->lane, kind_name(e->kind), op_name(e->op), dtype_name(e->dtype),
                        (int)e->step, (int)e->microbatch, (int)e->chunk, (int)e->layer,
                        (int)e->bucket, (int)e->peer, (int)e->nops, (unsigned long long)e->bytes);
                csv_double(out, e->flops);
                fprintf(out, ",%llu,%lld,%lld\n", (unsigned long long)e->seq,
                        (long long)e->start_ns, (long long)e->end_ns);
                stats.negative += e->end_ns < e->start_ns ? 1 : 0;
                stats.events++;
            }
            if (status == SP_OK) {
                status = check_stream(out);
            }
        }
    }
    free(buf);
    if (status == SP_OK && stats_p != NULL) {
        *stats_p = stats;
    }
    return status;
}

sp_status_t sp_export_clock_csv(const sp_export_src_t *src, FILE *out)
{
    sp_clock_rank_t *rows = NULL;
    size_t n = 0;
    sp_status_t status = sp_tlread_clock(src->tl, &rows, &n);

    if (status != SP_OK) {
        return status;
    }
    fputs("rank,node,measured,offset_ns,offset_end_ns,drift,err_ns,rtt_ns,sync_start_ns,"
          "sync_end_ns\n",
          out);
    for (size_t i = 0; i < n; i++) {
        const sp_clock_rank_t *c = &rows[i];
        if (c->rank < 0 || c->rank >= src->nranks || !src->selected[c->rank]) {
            continue;
        }
        fprintf(out, "%d,%d,%d,%lld,%lld,", (int)c->rank, (int)c->node, (int)c->measured,
                (long long)c->offset_ns, (long long)c->offset_end_ns);
        csv_double(out, c->drift);
        fprintf(out, ",%lld,%lld,%lld,%lld\n", (long long)c->err_ns, (long long)c->rtt_ns,
                (long long)c->sync_start_ns, (long long)c->sync_end_ns);
    }
    free(rows);
    return check_stream(out);
}

sp_status_t sp_export_ranks_csv(const sp_export_src_t *src, FILE *out)
{
    fputs("rank,node,local_rank,local_size,host,device,bus_id\n", out);
    for (int i = 0; i < src->rd->world_size && src->rd->ranks != NULL; i++) {
        const sp_topo_rank_t *t = &src->rd->ranks[i];
        if (t->rank < 0 || t->rank >= src->nranks || !src->selected[t->rank]) {
            continue;
        }
        fprintf(out, "%d,%d,%d,%d,", t->rank, t->node, t->local_rank, t->local_size);
        csv_str(out, t->host);
        fputc(',', out);
        csv_str(out, t->device);
        fputc(',', out);
        csv_str(out, t->bus_id);
        fputc('\n', out);
    }
    return check_stream(out);
}

sp_status_t sp_export_results_csv(const sp_export_src_t *src, FILE *out)
{
    fputs("op,dtype,redop,in_place,bytes,count,samples,converged,time_us,ci_lo_us,ci_hi_us,"
          "algbw_gbps,busbw_gbps,wrong,slowest_rank\n",
          out);
    for (size_t i = 0; i < src->rd->nrows; i++) {
        const sp_coll_row_t *r = &src->rd->rows[i];
        const double v[] = {r->time_us, r->ci_lo_us, r->ci_hi_us, r->algbw_gbps, r->busbw_gbps};
        fprintf(out, "%s,%s,%s,%d,%llu,%llu,%u,%d", op_name(r->op), dtype_name(r->dtype),
                r->redop >= 0 && r->redop < SP_REDOP_COUNT ? sp_redop_names[r->redop] : "none",
                (int)r->in_place, (unsigned long long)r->bytes, (unsigned long long)r->count,
                (unsigned)r->samples, (int)r->converged);
        for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
            fputc(',', out);
            csv_double(out, v[k]);
        }
        fprintf(out, ",%lld,%d\n", (long long)r->wrong, (int)r->slowest_rank);
    }
    return check_stream(out);
}

/* ---- the command ---- */

typedef struct {
    const char *file;
    const char *chrome;  /* NULL: no trace */
    const char *csv_dir; /* NULL: no CSV */
    const char *ranks;   /* NULL: every rank */
    int force;
    int help;
} export_args_t;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: scaleprobe export FILE [--chrome OUT.json] [--csv DIR] [--ranks LIST] "
            "[--force]\n"
            "Export a result file for other tools. Needs no MPI launch.\n"
            "  --chrome OUT.json  the timeline as a Chrome/Perfetto trace (ui.perfetto.dev,\n"
            "                     chrome://tracing): one process per rank, one thread per lane\n"
            "  --csv DIR          DIR/events.csv, clock.csv, ranks.csv and coll_results.csv\n"
            "                     (DIR is created when missing)\n"
            "  --ranks LIST       only these ranks, e.g. 0-3,8,12-15 (default: all)\n"
            "  --force            overwrite existing output files\n"
            "At least one of --chrome and --csv is needed.\n");
}

/* Options take their value as the next argument or after '='. */
static sp_status_t parse_args(int argc, char **argv, export_args_t *a, char *msg, size_t len)
{
    static const char *const valued[] = {"--chrome", "--csv", "--ranks"};

    memset(a, 0, sizeof(*a));
    for (int i = 2; i < argc; i++) {
        const char *arg = argv[i];
        const char **slot = NULL;
        const char *value = NULL;
        size_t k;

        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            a->help = 1;
            return SP_OK;
        }
        if (strcmp(arg, "--force") == 0) {
            a->force = 1;
            continue;
        }
        if (arg[0] != '-' || arg[1] == '\0') {
            if (a->file != NULL) {
                snprintf(msg, len, "expected one result file, got '%.200s' and '%.200s'", a->file,
                         arg);
                return SP_ERR_INVALID;
            }
            a->file = arg;
            continue;
        }
        for (k = 0; k < sizeof(valued) / sizeof(valued[0]); k++) {
            size_t n = strlen(valued[k]);
            if (strncmp(arg, valued[k], n) == 0 && (arg[n] == '\0' || arg[n] == '=')) {
                value = arg[n] == '=' ? arg + n + 1 : (i + 1 < argc ? argv[++i] : NULL);
                break;
            }
        }
        if (k == sizeof(valued) / sizeof(valued[0])) {
            snprintf(msg, len, "unknown option '%.200s' (see 'scaleprobe export --help')", arg);
            return SP_ERR_INVALID;
        }
        slot = k == 0 ? &a->chrome : k == 1 ? &a->csv_dir : &a->ranks;
        if (value == NULL || value[0] == '\0') {
            snprintf(msg, len, "%s needs a value", valued[k]);
            return SP_ERR_INVALID;
        }
        if (*slot != NULL) {
            snprintf(msg, len, "%s given twice", valued[k]);
            return SP_ERR_INVALID;
        }
        if (strlen(value) >= PATH_LEN - 32) {
            snprintf(msg, len, "%s: value too long", valued[k]);
            return SP_ERR_INVALID;
        }
        *slot = value;
    }
    if (a->file == NULL) {
        snprintf(msg, len,
                 "no result file given (usage: scaleprobe export FILE --chrome OUT.json "
                 "| --csv DIR)");
        return SP_ERR_INVALID;
    }
    if (a->chrome == NULL && a->csv_dir == NULL) {
        snprintf(msg, len, "nothing to export: give --chrome OUT.json and/or --csv DIR");
        return SP_ERR_INVALID;
    }
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

/* The CSV files, in the order they are written. */
static const char *const csv_names[] = {"events.csv", "clock.csv", "ranks.csv", "coll_results.csv"};
#define NCSV (sizeof(csv_names) / sizeof(csv_names[0]))

/* One output file: written to a temporary name next to it, renamed when everything is done. */
typedef struct {
    char path[PATH_LEN];
    char tmp[PATH_LEN + 16];
    FILE *f;
} out_file_t;

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

static sp_status_t check_csv_dir(const char *dir, int force, char *msg, size_t len)
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
        snprintf(path, sizeof(path), "%s/%s", dir, csv_names[i]);
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

/* Write one requested output file (the trace is number 0, the CSV files 1..NCSV). */
static sp_status_t write_output(size_t which, const sp_export_src_t *src, FILE *out,
                                sp_export_stats_t *chrome_stats, sp_export_stats_t *csv_stats)
{
    switch (which) {
    case 0:
        return sp_export_chrome(src, out, chrome_stats);
    case 1:
        return sp_export_events_csv(src, out, csv_stats);
    case 2:
        return sp_export_clock_csv(src, out);
    case 3:
        return sp_export_ranks_csv(src, out);
    default:
        return sp_export_results_csv(src, out);
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
        printf("# %s: events.csv (%llu events), clock.csv, ranks.csv, coll_results.csv (%zu "
               "rows)\n",
               a->csv_dir, (unsigned long long)csv_stats->events, src->rd->nrows);
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
 * made for them, say why, and return 2 for a damaged input file, 1 for a write error. */
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
        goto remove_dirs;
    }
    if (a->csv_dir != NULL && make_dirs(a->csv_dir, 1, &made[1]) != SP_OK) {
        snprintf(msg, sizeof(msg), "cannot create %.1000s: %s", a->csv_dir, strerror(errno));
        goto remove_dirs;
    }
    for (size_t which = a->chrome != NULL ? 0 : 1; which <= (a->csv_dir != NULL ? NCSV : 0);
         which++) {
        char path[PATH_LEN];
        out_file_t *o = &outs[nouts];
        if (which == 0) {
            snprintf(path, sizeof(path), "%s", a->chrome);
        } else {
            snprintf(path, sizeof(path), "%s/%s", a->csv_dir, csv_names[which - 1]);
        }
        if (out_open(o, path) != SP_OK) {
            snprintf(msg, sizeof(msg), "cannot create %.1000s: %s", path, strerror(errno));
            goto discard;
        }
        nouts++;
        status = write_output(which, src, o->f, &chrome_stats, &csv_stats);
        if (status != SP_OK) {
            /* a write error shows in the stream; anything else came from reading the file */
            if (ferror(o->f)) {
                snprintf(msg, sizeof(msg), "%.1000s: write failed: %s", path, strerror(errno));
            } else {
                snprintf(msg, sizeof(msg), "%.1000s: %s", src->rd->path,
                         src->tl->why[0] != '\0' ? src->tl->why : sp_status_str(status));
                rc = sp_status_exit_code(status);
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
    export_args_t a;
    sp_reader_t rd;
    sp_tlread_t tl;
    sp_export_src_t src;
    uint8_t *selected;
    uint64_t dropped = 0;
    int nranks;
    char msg[PATH_LEN + 512];
    int rc = 2;

    if (parse_args(argc, argv, &a, msg, sizeof(msg)) != SP_OK) {
        sp_launcher_error(CMD, msg);
        return 2;
    }
    if (a.help) {
        usage(stdout);
        return 0;
    }
    if (sp_tlread_open(a.file, &tl) != SP_OK) {
        snprintf(msg, sizeof(msg), "%.1000s: %s", a.file, tl.why);
        sp_launcher_error(CMD, msg);
        return 2;
    }
    if (sp_reader_open(a.file, &rd) != SP_OK) {
        snprintf(msg, sizeof(msg),
                 "%.1000s: not a readable scaleprobe result file (its "
                 "/topology, /coll tables are damaged)",
                 a.file);
        sp_launcher_error(CMD, msg);
        goto close_tl;
    }
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
        (a.csv_dir != NULL && check_csv_dir(a.csv_dir, a.force, msg, sizeof(msg)) != SP_OK)) {
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
    return rc;
}

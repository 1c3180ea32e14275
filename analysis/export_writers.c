/* The writers of `scaleprobe export`: the timeline as a Chrome/Perfetto trace, the tables as
 * CSV (see export.h). Events are streamed rank by rank, one chunk at a time. */
#include "export.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "dtype.h"
#include "json.h"
#include "links_report.h"
#include "program.h"

#define CHUNK_EVENTS 8192 /* events per read: one chunk of the writer's /timeline/events */
#define NLANES 65536      /* lanes are int16 */

static const char *kind_name(int kind)
{
    return kind >= 0 && kind < SP_EV_KIND_COUNT ? sp_ev_kind_names[kind] : "unknown";
}

static const char *op_name(int op)
{
    return op >= 0 && op < SP_COLL_COUNT ? sp_coll_names[op] : "none";
}

static const char *redop_name(int redop)
{
    return redop >= 0 && redop < SP_REDOP_COUNT ? sp_redop_names[redop] : "none";
}

static const char *dtype_name(int dtype)
{
    return dtype >= 0 && dtype < SP_DTYPE_COUNT ? sp_dtype_names[dtype] : "none";
}

/* The proxy's lanes by what runs on them (docs/SCHEMA.md, /timeline): the lane class
 * (compute, tp, pp, dp) and, where a class has several lanes, which one. */
static const char *const lane_names[SP_LANE_COUNT] = {
    [SP_LANE_COMPUTE] = "compute",  [SP_LANE_TP] = "tp",
    [SP_LANE_PP_FWD0] = "pp_fwd0",  [SP_LANE_PP_FWD1] = "pp_fwd1",
    [SP_LANE_PP_FWD2] = "pp_fwd2",  [SP_LANE_PP_FWD3] = "pp_fwd3",
    [SP_LANE_PP_BWD0] = "pp_bwd0",  [SP_LANE_PP_BWD1] = "pp_bwd1",
    [SP_LANE_PP_BWD2] = "pp_bwd2",  [SP_LANE_PP_BWD3] = "pp_bwd3",
    [SP_LANE_DP] = "dp",            [SP_LANE_DP_GATHER] = "dp_gather",
    [SP_LANE_EMB] = "emb",
};

const char *sp_export_lane_name(const sp_export_src_t *src, int lane)
{
    if (!src->rd->has_proxy) {
        return lane == 0 ? "sweep" : "other";
    }
    return lane >= 0 && lane < SP_LANE_COUNT ? lane_names[lane] : "other";
}

static const char *placement_name(int in_place)
{
    return in_place ? "in_place" : "out_of_place";
}

/* A CSV field: quoted (quotes doubled) only when it holds a separator, quote or line break. */
void sp__export_csv_str(FILE *out, const char *s)
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
void sp__export_csv_double(FILE *out, double v)
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

/* Metadata events carry "cat" too: DevTools' trace parser requires it on every event. */
#define META_HEAD "{\"ph\":\"M\",\"cat\":\"__metadata\",\"pid\":%d,"

static void chrome_rank_meta(chrome_t *c, const sp_export_src_t *src, int rank)
{
    const sp_tl_rank_t *row = sp_tlread_find(src->tl, rank);
    char name[128];

    snprintf(name, sizeof(name), "rank %d (%s)", rank, sp_reader_host(src->rd, rank));
    chrome_begin(c);
    fprintf(c->out, META_HEAD "\"name\":\"process_name\",\"args\":{\"name\":", rank);
    sp_json_str(c->out, name);
    fputs("}}", c->out);
    chrome_begin(c);
    fprintf(c->out, META_HEAD "\"name\":\"process_sort_index\",\"args\":{\"sort_index\":%d}}",
            rank, rank);
    if (row != NULL && row->dropped > 0) {
        /* shown under the rank's name: this rank's trace is incomplete */
        chrome_begin(c);
        fprintf(c->out,
                META_HEAD "\"name\":\"process_labels\",\"args\":{\"labels\":"
                          "\"%llu events dropped (timeline buffer full)\"}}",
                rank, (unsigned long long)row->dropped);
    }
}

static void chrome_lane_meta(chrome_t *c, const sp_export_src_t *src, int rank, int lane)
{
    chrome_begin(c);
    fprintf(c->out,
            META_HEAD "\"tid\":%d,\"name\":\"thread_name\",\"args\":{\"name\":\"%s (lane %d)\"}}",
            rank, lane, sp_export_lane_name(src, lane), lane);
    chrome_begin(c);
    fprintf(c->out,
            META_HEAD "\"tid\":%d,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%d}}",
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
        chrome_lane_meta(c, src, rank, (int)lanes[i]);
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
    fputs("rank,lane,lane_name,kind,op,dtype,step,microbatch,chunk,layer,bucket,peer,nops,bytes,"
          "flops,seq,start_ns,end_ns\n",
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
                fprintf(out, "%d,%d,%s,%s,%s,%s,%d,%d,%d,%d,%d,%d,%d,%llu,", (int)e->rank,
                        (int)e->lane, sp_export_lane_name(src, e->lane), kind_name(e->kind),
                        op_name(e->op), dtype_name(e->dtype),
                        (int)e->step, (int)e->microbatch, (int)e->chunk, (int)e->layer,
                        (int)e->bucket, (int)e->peer, (int)e->nops, (unsigned long long)e->bytes);
                sp__export_csv_double(out, e->flops);
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
        sp__export_csv_double(out, c->drift);
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
        sp__export_csv_str(out, t->host);
        fputc(',', out);
        sp__export_csv_str(out, t->device);
        fputc(',', out);
        sp__export_csv_str(out, t->bus_id);
        fputc('\n', out);
    }
    return check_stream(out);
}

/* Every column of /coll/results (docs/SCHEMA.md) but sample_offset, names for enums, with
 * the late rank before the own-median one (the culprit before its victims), then the row's
 * cycle (-N; from 0). */
sp_status_t sp_export_results_csv(const sp_export_src_t *src, FILE *out)
{
    fputs("op,dtype,redop,in_place,placement,root,bytes,count,samples,batch,converged,drift,"
          "time_us,mean_us,stddev_us,min_us,max_us,p99_us,ci_lo_us,ci_hi_us,ci_rel,algbw_gbps,"
          "busbw_gbps,wrong,wrong_ranks,late_rank,late_margin_us,late_p,slowest_rank,"
          "slowest_margin,lag1,n_eff,trend_p,trend_rel,elapsed_s,cycle\n",
          out);
    for (size_t i = 0; i < src->rd->nrows; i++) {
        const sp_coll_row_t *r = &src->rd->rows[i];
        const double v[] = {r->time_us,  r->mean_us,   r->stddev_us,  r->min_us,
                            r->max_us,   r->p99_us,    r->ci_lo_us,   r->ci_hi_us,
                            r->ci_rel,   r->algbw_gbps, r->busbw_gbps};
        const double w[] = {r->slowest_margin, r->lag1, r->n_eff, r->trend_p, r->trend_rel,
                            r->elapsed_s};

        fprintf(out, "%s,%s,%s,%d,%s,%d,%llu,%llu,%u,%u,%d,%d", op_name(r->op),
                dtype_name(r->dtype), redop_name(r->redop), (int)r->in_place,
                placement_name(r->in_place), (int)r->root, (unsigned long long)r->bytes,
                (unsigned long long)r->count, (unsigned)r->samples, (unsigned)r->batch,
                (int)r->converged, (int)r->drift);
        for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
            fputc(',', out);
            sp__export_csv_double(out, v[k]);
        }
        fprintf(out, ",%lld,%d,%d,", (long long)r->wrong, (int)r->wrong_ranks, (int)r->late_rank);
        sp__export_csv_double(out, r->late_margin_us);
        fputc(',', out);
        sp__export_csv_double(out, r->late_p);
        fprintf(out, ",%d", (int)r->slowest_rank);
        for (size_t k = 0; k < sizeof(w) / sizeof(w[0]); k++) {
            fputc(',', out);
            sp__export_csv_double(out, w[k]);
        }
        fprintf(out, ",%zu\n", sp_reader_point_cycle(src->rd, i));
    }
    return check_stream(out);
}

sp_status_t sp_export_rank_times_csv(const sp_export_src_t *src, FILE *out)
{
    const sp_reader_t *rd = src->rd;
    sp_status_t status = SP_OK;

    fputs("op,dtype,redop,placement,root,bytes,rank,host,time_us,cycle\n", out);
    for (size_t i = 0; i < rd->nrows && status == SP_OK; i++) {
        const sp_coll_row_t *r = &rd->rows[i];
        size_t cycle = sp_reader_point_cycle(rd, i);
        double *times = NULL;
        status = sp_reader_rank_times(rd, i, &times);
        for (int k = 0; k < rd->world_size && status == SP_OK; k++) {
            if (k >= src->nranks || !src->selected[k]) {
                continue;
            }
            fprintf(out, "%s,%s,%s,%s,%d,%llu,%d,", op_name(r->op), dtype_name(r->dtype),
                    redop_name(r->redop), placement_name(r->in_place), (int)r->root,
                    (unsigned long long)r->bytes, k);
            sp__export_csv_str(out, sp_reader_host(rd, k));
            fputc(',', out);
            sp__export_csv_double(out, times[k]);
            fprintf(out, ",%zu\n", cycle);
        }
        free(times);
        status = status == SP_OK ? check_stream(out) : status;
    }
    return status;
}

sp_status_t sp_export_links_csv(const sp_export_src_t *src, FILE *out)
{
    const sp_links_result_data_t *d = &src->rd->links;
    int n = (int)d->nunits;
    const sp_links_pair_row_t **best[SP_LINKS_METRIC_COUNT] = {NULL, NULL};
    int per_rail = strcmp(d->per, "rail") == 0;

    fputs("metric,pass,round,src,dst,src_host,dst_host,bytes,batch,samples,converged,median_us,"
          "ci_lo_us,ci_hi_us,value,value_lo,value_hi,units,counts,rail\n",
          out);
    for (int m = 0; m < SP_LINKS_METRIC_COUNT && n > 0; m++) {
        best[m] = sp_links_best_rows(d, (sp_links_metric_t)m, n);
    }
    for (size_t i = 0; i < d->npairs; i++) {
        const sp_links_pair_row_t *p = &d->pairs[i];
        const double v[] = {p->median_us, p->ci_lo_us, p->ci_hi_us, p->value, p->value_lo,
                            p->value_hi};
        int ok = p->metric >= 0 && p->metric < SP_LINKS_METRIC_COUNT && p->src >= 0 &&
                 p->dst >= 0 && p->src < n && p->dst < n;
        int counts = ok && best[p->metric] != NULL && best[p->metric][p->src * n + p->dst] == p;
        fprintf(out, "%s,%d,%d,%d,%d,%s,%s,%llu,%u,%u,%d",
                ok ? sp_links_metric_names[p->metric] : "?", (int)p->pass, (int)p->round,
                (int)p->src, (int)p->dst, ok ? d->units[p->src].host : "?",
                ok ? d->units[p->dst].host : "?", (unsigned long long)p->bytes,
                (unsigned)p->batch, (unsigned)p->samples, (int)p->converged);
        for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
            fputc(',', out);
            sp__export_csv_double(out, v[k]);
        }
        fprintf(out, ",%s,%d,", ok ? sp_links_metric_units((sp_links_metric_t)p->metric) : "?",
                counts);
        if (ok && per_rail) {
            fprintf(out, "%d", (int)d->units[p->src].rail); /* a pair's units share it */
        }
        fputc('\n', out);
    }
    free(best[0]);
    free(best[1]);
    return check_stream(out);
}

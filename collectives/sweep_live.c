/* The sweep's live output beyond the table (sweep_live.h). The JSON follows nccl-tests' -J
 * layout: version, start_time, args, config (with the devices), results (size, count, type,
 * redop, root, out_of_place/in_place {time, alg_bw, bus_bw, nwrong}), out_of_bounds,
 * average_bus_bandwidth, errors, end_time; scaleprobe's own figures are extra keys. */
#include "sweep_live.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "coll.h"
#include "dtype.h"
#include "json.h"
#include "method.h"

static void now_string(char *out, size_t outlen)
{
    time_t t = time(NULL);
    struct tm tm;

    strftime(out, outlen, "%Y-%m-%d %H:%M:%S", localtime_r(&t, &tm));
}

static void print_params(FILE *out, const sp_ctx_t *ctx, const sp_coll_opts_t *opts)
{
    int factor = opts->stepfactor > 1;

    fprintf(out, "# scaleprobe coll: %d ranks on %d nodes, backend %s\n", ctx->nranks,
            ctx->topo.nnodes, ctx->backend.ops->name);
    fprintf(out,
            "# nThread 1 nGpus 1 minBytes %llu maxBytes %llu step: %llu(%s) warmup iters: "
            "%ld iters: %ld agg iters: 1 validation: %d graph: %d cycles: %ld\n",
            (unsigned long long)opts->minbytes, (unsigned long long)opts->maxbytes,
            factor ? (unsigned long long)opts->stepfactor : (unsigned long long)opts->stepbytes,
            factor ? "factor" : "bytes", opts->warmup, opts->iters, !opts->no_check,
            opts->cuda_graph, opts->cycles);
    if (opts->method == SP_METHOD_DEFAULT) {
        fprintf(out, "# method default: %s; time = median over samples of the max over ranks\n",
                opts->iters > 0 ? "fixed -n samples per point"
                                : "samples until the 95% CI of the median meets --epsilon, at "
                                  "most --max-time per point");
    }
    if (opts->issue == SP_ISSUE_STREAM) {
        fprintf(out, "# issue stream: each operation enqueued on a %s stream and waited for as "
                "the proxy's lanes are\n", ctx->backend.ops->name);
    }
}

/* The device list: every rank's pid, host and device (GPU name and bus id, or "host"). */
static void print_devices(FILE *out, const sp_ctx_t *ctx, const int *pids)
{
    fprintf(out, "# Using devices\n");
    for (int r = 0; r < ctx->nranks; r++) {
        const sp_topo_rank_t *t = &ctx->topo.ranks[r];
        int host = strcmp(t->bus_id, "-") == 0 || t->bus_id[0] == '\0';
        fprintf(out, "#  Rank %2d Pid %6d on %10s device %s [%s] %s\n", r, pids[r], t->host,
                host ? "host" : t->device, host ? "-" : t->bus_id,
                host ? "(MPI over host memory)" : t->device);
    }
}

static void json_devices(FILE *f, const sp_ctx_t *ctx, const int *pids)
{
    fprintf(f, ", \"devices\": [");
    for (int r = 0; r < ctx->nranks; r++) {
        const sp_topo_rank_t *t = &ctx->topo.ranks[r];
        int host = strcmp(t->bus_id, "-") == 0 || t->bus_id[0] == '\0';
        fprintf(f, "%s{\"rank\": %d, \"group\": 0, \"pid\": %d, \"hostname\": ", r ? ", " : "", r,
                pids[r]);
        sp_json_str(f, t->host);
        if (host) {
            fprintf(f, ", \"device\": null, \"device_hex\": \"-\", \"device_info\": \"host\"}");
        } else {
            fprintf(f, ", \"device\": %d, \"device_hex\": ", t->local_rank);
            sp_json_str(f, t->bus_id);
            fprintf(f, ", \"device_info\": ");
            sp_json_str(f, t->device);
            fprintf(f, "}");
        }
    }
    fprintf(f, "]");
}

/* The JSON's head: everything up to the open "results" list. */
static void json_head(FILE *f, const sp_ctx_t *ctx, const sp_coll_opts_t *opts, const int *pids)
{
    char when[64];
    char word[SP_OPT_STRLEN];
    const char *p = ctx->command_line != NULL ? ctx->command_line : "";
    int first = 1;

    now_string(when, sizeof(when));
    fprintf(f, "{\"version\": 1, \"start_time\": \"%s\", \"args\": [", when);
    /* the command line as rank 0 joined it (one space between arguments) */
    while (*p != '\0') {
        size_t n = strcspn(p, " ");
        snprintf(word, sizeof(word), "%.*s", (int)n, p);
        if (n > 0) {
            fprintf(f, "%s", first ? "" : ", ");
            sp_json_str(f, word);
            first = 0;
        }
        p += n + (p[n] == ' ');
    }
    fprintf(f, "], \"env\": [], \"nccl_version\": null, \"tool\": \"scaleprobe\", \"backend\": ");
    sp_json_str(f, ctx->backend.ops->name);
    fprintf(f, ", \"method\": ");
    sp_json_str(f, sp_method_names[opts->method]);
    fprintf(f,
            ",\n \"config\": {\"nthreads\": 1, \"ngpus\": 1, \"minimum_bytes\": %llu, "
            "\"maximum_bytes\": %llu, ",
            (unsigned long long)opts->minbytes, (unsigned long long)opts->maxbytes);
    if (opts->stepfactor > 1) {
        fprintf(f, "\"step_factor\": %ld, ", opts->stepfactor);
    } else {
        fprintf(f, "\"step_bytes\": %llu, ", (unsigned long long)opts->stepbytes);
    }
    fprintf(f,
            "\"warmup_iters\": %ld, \"iterations\": %ld, \"aggregated_iterations\": 1, "
            "\"validation\": %d, \"graph\": %d, \"blocking_collectives\": \"%s\", "
            "\"parallel_init\": \"false\", \"run_cycles\": %ld",
            opts->warmup, opts->iters, !opts->no_check, opts->cuda_graph,
            opts->blocking ? "true" : "false", opts->cycles);
    json_devices(f, ctx, pids);
    fprintf(f, "},\n \"results\": [");
}

sp_status_t sp_sweep_live_begin(sp_sweep_live_t *lv, sp_ctx_t *ctx, const sp_coll_opts_t *opts,
                                size_t npoints)
{
    int mine = (int)getpid();
    int *pids = NULL;
    sp_status_t status = SP_OK;

    memset(lv, 0, sizeof(*lv));
    sp_progress_init(&lv->progress, ctx->rank, opts->quiet, npoints, "point");
    sp_progress_heartbeat(&lv->progress, ctx->rank, opts->quiet, opts->heartbeat);
    if (ctx->rank == 0) {
        pids = calloc((size_t)ctx->nranks, sizeof(*pids));
        status = pids != NULL ? SP_OK : SP_ERR_NOMEM;
    }
    MPI_Gather(&mine, 1, MPI_INT, pids != NULL ? pids : &mine, 1, MPI_INT, 0, ctx->world);
    if (ctx->rank == 0 && pids != NULL) {
        print_params(stdout, ctx, opts);
        print_devices(stdout, ctx, pids);
        if (opts->json[0] != '\0') {
            lv->json_path = opts->json;
            snprintf(lv->json_part, sizeof(lv->json_part), "%s.part", opts->json);
            lv->json = fopen(lv->json_part, "w");
            if (lv->json == NULL) {
                fprintf(stderr, "scaleprobe coll: error: cannot write the JSON file %s\n",
                        lv->json_part);
                status = SP_ERR_IO;
            } else {
                json_head(lv->json, ctx, opts, pids);
                fprintf(stdout, "# Writing JSON output to %s\n", opts->json);
            }
        }
        fflush(stdout);
    }
    free(pids);
    return sp_ctx_agree(ctx, status);
}

static void json_half(FILE *f, const char *key, const sp_coll_row_t *r)
{
    fprintf(f, ", \"%s\": ", key);
    if (r == NULL) {
        fprintf(f, "null");
        return;
    }
    /* nccl-tests' "time" is microseconds, as the table's plain numbers */
    if (isfinite(r->time_us)) {
        fprintf(f, "{\"time\": %.6g", r->time_us);
    } else {
        fprintf(f, "{\"time\": null");
    }
    sp_json_num(f, "alg_bw", r->algbw_gbps);
    sp_json_num(f, "bus_bw", r->busbw_gbps);
    if (r->wrong < 0) {
        fprintf(f, ", \"nwrong\": null");
    } else {
        fprintf(f, ", \"nwrong\": %lld", (long long)r->wrong);
    }
    sp_json_num(f, "ci_rel", r->ci_rel);
    fprintf(f, ", \"samples\": %u, \"batch\": %u, \"converged\": %s}", (unsigned)r->samples,
            (unsigned)r->batch, r->converged ? "true" : "false");
}

void sp_sweep_live_row(sp_sweep_live_t *lv, const char *coll_name, long cycle,
                       const sp_coll_row_t *out_row, const sp_coll_row_t *in_row)
{
    const sp_coll_row_t *r = out_row != NULL ? out_row : in_row;
    FILE *f = lv->json;

    if (f == NULL || r == NULL) {
        return;
    }
    fprintf(f,
            "%s\n  {\"size\": %llu, \"count\": %llu, \"type\": \"%s\", \"redop\": \"%s\", "
            "\"root\": \"%6d\"",
            lv->json_rows ? "," : "", (unsigned long long)r->bytes, (unsigned long long)r->count,
            sp_dtype_name((sp_dtype_t)r->dtype),
            r->redop < 0 ? "none" : sp_redop_name((sp_redop_t)r->redop), (int)r->root);
    json_half(f, "out_of_place", out_row);
    json_half(f, "in_place", in_row);
    fprintf(f, ", \"actual_iterations\": %u, \"experiment_name\": ", (unsigned)r->samples);
    sp_json_str(f, coll_name);
    fprintf(f, ", \"cycle\": %ld}", cycle);
    lv->json_rows++;
}

sp_status_t sp_sweep_live_end(sp_sweep_live_t *lv, const sp_coll_totals_t *t, sp_status_t status)
{
    FILE *f = lv->json;
    char when[64];
    int ok;

    sp_progress_clear(&lv->progress);
    if (f == NULL) {
        return status;
    }
    lv->json = NULL;
    now_string(when, sizeof(when));
    fprintf(f, "\n ],\n \"out_of_bounds\": {\"count\": %lld, \"okay\": \"%s\"}", t->wrong,
            t->wrong == 0 ? "true" : "false");
    fprintf(f, ",\n \"average_bus_bandwidth\": {\"bandwidth\": ");
    if (t->busbw_n > 0) {
        fprintf(f, "%.6g", t->busbw_sum / (double)t->busbw_n);
    } else {
        fprintf(f, "null");
    }
    fprintf(f, ", \"okay\": \"unchecked\"},\n \"errors\": [], \"end_time\": \"%s\"}\n", when);
    ok = ferror(f) == 0;
    ok = fclose(f) == 0 && ok;
    if (ok && (status == SP_OK || status == SP_ERR_WRONG_DATA) &&
        rename(lv->json_part, lv->json_path) == 0) {
        fprintf(stdout, "# JSON file: %s\n", lv->json_path);
        return status;
    }
    remove(lv->json_part);
    if (status == SP_OK) {
        fprintf(stderr, "scaleprobe coll: error: cannot write the JSON file %s\n", lv->json_path);
        status = SP_ERR_IO;
    }
    return status;
}

/* The burn of `scaleprobe node`: sustained GEMM in intervals, one throughput row per rank and
 * interval, and exact checks of every result against the rank's first one and of the first
 * ones across ranks of one device. docs/METHODOLOGY.md ("Node baselines") states the rules. */
#include "node_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "signals.h"
#include "stats.h"
#include "timeutil.h"

static uint64_t count_wrong(const unsigned char *a, const unsigned char *b, size_t bytes,
                            size_t esize)
{
    uint64_t wrong = 0;

    for (size_t i = 0; i < bytes; i += esize) {
        wrong += memcmp(a + i, b + i, esize) != 0;
    }
    return wrong;
}

/* Rank 0: one interval's rows written, one line printed, wrong results named. */
static sp_status_t burn_publish(node_run_t *nr, const sp_node_burn_row_t *rows,
                                uint64_t *wrong_total_p)
{
    sp_ctx_t *ctx = nr->ctx;
    size_t nranks = (size_t)ctx->nranks;
    sp_status_t status = sp_node_result_burn(ctx->result, rows, nranks);
    int slowest = 0;

    for (size_t r = 0; r < nranks; r++) {
        nr->pool[r] = rows[r].rate;
        if (rows[r].rate < rows[slowest].rate) {
            slowest = (int)r;
        }
        if (rows[r].wrong > 0) {
            fprintf(stdout,
                    "# WRONG RESULT: rank %zu (%s) at t=%.2f s (interval %d): %llu element(s) of "
                    "the GEMM differ from the reference\n",
                    r, ctx->topo.ranks[r].host, rows[r].t_s, rows[r].interval,
                    (unsigned long long)rows[r].wrong);
            *wrong_total_p += rows[r].wrong;
        }
    }
    fprintf(stdout, "  burn %4d  t=%7.2f s  median %10.3f GFLOP/s  slowest rank %d (%s) %10.3f\n",
            rows[0].interval, rows[0].t_s, sp_stats_median(nr->pool, nranks, nr->pool_scratch),
            slowest, ctx->topo.ranks[slowest].host, rows[slowest].rate);
    fflush(stdout);
    return status;
}

/* FNV-1a over a result's bytes. */
static uint64_t result_hash(const unsigned char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;

    for (size_t i = 0; i < n; i++) {
        h = (h ^ p[i]) * 1099511628211ull;
    }
    return h;
}

/* A device that is wrong from its first GEMM on matches its own reference forever. Every rank
 * computes the same GEMM of the same inputs, so ranks with the same device (name, from the node
 * map) and a deterministic BLAS give the same bits: rank 0 gathers a hash of every reference and
 * names the ranks whose hash differs from a strict majority of their device group. Returns how
 * many ranks differ (rank 0; 0 elsewhere). Outside any timed region. */
static uint64_t check_references(node_run_t *nr, const unsigned char *ref, size_t bytes)
{
    sp_ctx_t *ctx = nr->ctx;
    uint64_t mine = result_hash(ref, bytes), *all = NULL, bad = 0;
    size_t n = (size_t)ctx->nranks, len = 0;
    char list[512] = "";

    if (ctx->rank == 0) {
        all = calloc(n, sizeof(*all));
    }
    /* without room rank 0 still takes part, into its own value, and checks nothing */
    MPI_Gather(&mine, 1, MPI_UINT64_T, all != NULL ? (void *)all : (void *)&mine, 1,
               MPI_UINT64_T, 0, ctx->world);
    for (size_t r = 0; all != NULL && r < n; r++) {
        size_t group = 0, same = 0, best = 0;
        uint64_t major = 0;
        /* the majority hash of r's device group: O(n^2) in the worst case, once per burn */
        for (size_t a = 0; a < n; a++) {
            size_t c = 0;
            if (strcmp(ctx->topo.ranks[a].device, ctx->topo.ranks[r].device) != 0) {
                continue;
            }
            group++;
            for (size_t b = 0; b < n; b++) {
                c += all[b] == all[a] &&
                     strcmp(ctx->topo.ranks[b].device, ctx->topo.ranks[r].device) == 0;
            }
            if (c > best) {
                best = c;
                major = all[a];
            }
        }
        same = all[r] == major ? best : 0;
        if (2 * best > group && same == 0) {
            fprintf(stdout,
                    "# WRONG RESULT: rank %zu (%s): its reference GEMM differs from that of %zu "
                    "of the %zu ranks with device '%s' (same inputs: a deterministic fault, or "
                    "another CPU or BLAS kernel)\n",
                    r, ctx->topo.ranks[r].host, best, group, ctx->topo.ranks[r].device);
            if (len < sizeof(list)) {
                len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%zu", bad ? "," : "",
                                        r);
            }
            bad++;
        }
    }
    if (bad > 0 && ctx->result != NULL) {
        sp_node_result_attr(ctx->result, "burn_reference_differs", list);
    }
    fflush(stdout);
    free(all);
    return bad;
}

/* What every interval of one burn shares. */
typedef struct {
    node_run_t *nr;
    const sp_node_dev_ops_t *ops;
    void *st;
    sp_node_kind_t kind;
    const unsigned char *ref; /* the rank's first result */
    unsigned char *cur;
    size_t bytes;
    size_t esize;
    double flops;             /* per GEMM */
    int corrupted;            /* the test fault was injected once already */
} burn_t;

/* One interval of GEMMs until its deadline (from start), then one exact check: this rank's row.
 * Not collective. */
static sp_status_t burn_interval(burn_t *b, long iv, uint64_t start, sp_node_burn_row_t *row_p)
{
    node_run_t *nr = b->nr;
    sp_ctx_t *ctx = nr->ctx;
    const sp_node_opts_t *o = nr->o;
    double end_s = (double)(iv + 1) * o->burn_interval;
    uint64_t deadline = start + (uint64_t)((end_s < o->burn ? end_s : o->burn) * 1e9);
    sp_node_burn_row_t row;
    double gemm_s = 0.0;
    double s = 0.0;
    sp_status_t status;

    memset(&row, 0, sizeof(row));
    row.interval = (int32_t)iv;
    row.rank = ctx->rank;
    row.node = ctx->topo.node;
    /* a beat per GEMM (outside its timed region): an interval may be longer than --timeout; a
     * signal ends the interval early, and the caller's agreement stops every rank */
    do {
        sp_watchdog_beat(ctx->watchdog, "node burn: interval %ld, GEMM %u", iv, row.gemms + 1);
        status = sp__node_timed_call(nr, b->ops, b->st, b->kind, &s);
        gemm_s += s;
        row.gemms++;
    } while (status == SP_OK && sp_time_ns() < deadline && !sp_signal_pending());
    if (status == SP_OK) {
        status = b->ops->result(b->st, b->kind, b->cur);
    }
    if (status == SP_OK) {
        if (ctx->rank == nr->corrupt_rank && nr->corrupt_always) {
            b->cur[0] ^= 1u; /* wrong the same way as its reference: no check sees it */
        } else if (ctx->rank == nr->corrupt_rank && !b->corrupted) {
            b->cur[0] ^= 1u; /* the lowest bit of the first element: caught as well */
            b->corrupted = 1;
        }
        row.checks = 1;
        row.wrong = count_wrong(b->ref, b->cur, b->bytes, b->esize > 0 ? b->esize : 1);
    }
    row.t_s = (double)(sp_time_ns() - start) * 1e-9;
    row.rate = gemm_s > 0.0 ? b->flops * row.gemms / gemm_s * 1e-9 : NAN;
    *row_p = row;
    return status;
}

sp_status_t sp__node_burn(node_run_t *nr)
{
    sp_ctx_t *ctx = nr->ctx;
    const sp_node_opts_t *o = nr->o;
    sp_node_kind_t kind = sp__node_burn_kind(o);
    void *st = NULL;
    const sp_node_dev_ops_t *ops = sp__node_dev_for(nr, kind, &st);
    size_t bytes = ops->result_bytes(st, kind);
    size_t esize = bytes / (nr->cfg.gemm_n * nr->cfg.gemm_n);
    uint64_t size = 0;
    double flops = sp__node_work_of(nr, kind, &size);
    long nintervals = (long)ceil(o->burn / o->burn_interval - 1e-9);
    unsigned char *ref = malloc(bytes > 0 ? bytes : 1);
    unsigned char *cur = malloc(bytes > 0 ? bytes : 1);
    sp_node_burn_row_t *all = ctx->rank == 0 ? calloc((size_t)ctx->nranks, sizeof(*all)) : NULL;
    uint64_t wrong_total = 0;
    int done = 0;
    uint64_t start;
    double s = 0.0;
    sp_status_t status = ref != NULL && cur != NULL && (ctx->rank != 0 || all != NULL)
                             ? SP_OK
                             : SP_ERR_NOMEM;
    burn_t b = {nr, ops, st, kind, ref, cur, bytes, esize, flops, 0};

    /* the reference: the first GEMM's result; the inputs never change, so every later result
     * of a deterministic GEMM must equal it bit for bit */
    sp_watchdog_beat(ctx->watchdog, "node burn: reference GEMM");
    if (status == SP_OK) {
        status = sp__node_timed_call(nr, ops, st, kind, &s);
    }
    if (status == SP_OK) {
        status = ops->result(st, kind, ref);
    }
    if (status == SP_OK && ctx->rank == nr->corrupt_rank && nr->corrupt_always) {
        ref[0] ^= 1u;
    }
    status = sp__node_agree3(nr, status, &done);
    if (status == SP_OK) {
        wrong_total += check_references(nr, ref, bytes);
    }
    if (status == SP_OK && ctx->rank == 0) {
        char v[160];
        snprintf(v, sizeof(v), "%s n %zu, %g s in intervals of %g s, one check per interval",
                 sp_node_kind_names[kind], nr->cfg.gemm_n, o->burn, o->burn_interval);
        status = sp_node_result_attr(ctx->result, "burn", v);
        if (status == SP_OK) {
            status = sp_node_result_attr(ctx->result, "burn_check",
                                         "exact: every element's bits equal the first GEMM's");
        }
        fprintf(stdout, "#\n# burn: %s\n", v);
        fflush(stdout);
    }
    status = sp_ctx_agree(ctx, status);
    MPI_Barrier(ctx->world);
    start = sp_time_ns();
    for (long iv = 0; iv < nintervals && status == SP_OK; iv++) {
        sp_node_burn_row_t row;

        status = burn_interval(&b, iv, start, &row);
        done = 0;
        status = sp__node_agree3(nr, status, &done);
        if (status != SP_OK) {
            break;
        }
        MPI_Gather(&row, (int)sizeof(row), MPI_BYTE, all, (int)sizeof(row), MPI_BYTE, 0,
                   ctx->world);
        if (ctx->rank == 0) {
            status = burn_publish(nr, all, &wrong_total);
        }
        status = sp_ctx_agree(ctx, status);
    }
    if (status == SP_OK && ctx->rank == 0) {
        fprintf(stdout, "# burn: %s\n",
                wrong_total > 0 ? "WRONG RESULTS found (rows of /node/burn with wrong > 0, ranks in "
                                  "/node attribute burn_reference_differs)"
                                : "every check matched the reference");
        fflush(stdout);
    }
    MPI_Bcast(&wrong_total, 1, MPI_UINT64_T, 0, ctx->world);
    free(all);
    free(cur);
    free(ref);
    if (status == SP_OK && wrong_total > 0) {
        status = SP_ERR_WRONG_DATA;
    }
    return status;
}


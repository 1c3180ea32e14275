/* The sweep's outer loops: collectives x types x reductions x roots x sizes, -N cycles of them,
 * one table line per size with the live output (sweep_live.h) around it. A size whose
 * per-rank count rounds to 0 elements (or to the previous size) measures nothing new: it is
 * skipped, and one line says so. */
#include <stdlib.h>
#include <string.h>

#include "coll_table.h"
#include "method_run.h"
#include "sweep.h"
#include "sweep_issue.h"
#include "sweep_live.h"
#include "sweep_split.h"

typedef struct {
    sp_ctx_t *ctx;
    const sp_coll_opts_t *opts;
    const uint64_t *sizes;
    size_t nsizes;
    sp_sweep_bufs_t bufs;
    sp_coll_totals_t totals;
    sp_sweep_live_t live;
    sp_sweep_split_t *split; /* --split: the groups; NULL: the world is measured as one */
    uint64_t bytes;          /* the size being measured, as asked for */
    size_t npoints; /* counted by a first walk that measures nothing */
    long cycle;
    int counting;
} sweep_run_t;

static int selected(uint32_t mask, int i)
{
    return (mask >> i) & 1u;
}

/* The rank count a size's counts are worked out for: with groups, the largest group's (its
 * per-rank count is the smallest, so a size kept for it is kept for every group). */
static int walk_nranks(const sweep_run_t *s)
{
    return s->split != NULL ? s->split->max_size : s->ctx->nranks;
}

/* One point, of the world or of every group at once. */
static sp_status_t measure_point(sweep_run_t *s, const sp_coll_t *coll, sp_coll_args_t *args,
                                 sp_coll_row_t *row_p)
{
    if (s->split != NULL) {
        return sp_sweep_split_point(s->split, s->ctx, s->opts, coll, args, s->bytes, row_p);
    }
    return sp__sweep_point(s->ctx, s->opts, coll, args, &s->bufs, row_p);
}

/* Which of out-of-place [0] and in-place [1] run for coll (the backend and --place). */
static void places(const sweep_run_t *s, const sp_coll_t *coll, int run[2])
{
    const sp_backend_ops_t *ops = s->ctx->backend.ops;
    void *st = s->ctx->backend.state;

    run[0] = s->opts->place != SP_PLACE_IN && ops->pattern_supported(st, coll->pattern, 0);
    run[1] = s->opts->place != SP_PLACE_OUT && ops->pattern_supported(st, coll->pattern, 1);
}

/* One line of the table: the size out-of-place and in-place, added to the totals, the JSON and
 * the progress line on rank 0. */
static sp_status_t sweep_line(sweep_run_t *s, const sp_coll_t *coll, sp_coll_args_t *args)
{
    sp_ctx_t *ctx = s->ctx;
    sp_coll_row_t rows[2];
    int run[2];
    sp_status_t status = SP_OK;

    places(s, coll, run);
    for (int ip = 0; ip < 2 && status == SP_OK; ip++) {
        char what[96];
        if (!run[ip]) {
            continue;
        }
        args->in_place = ip;
        snprintf(what, sizeof(what), "%s %llu B %s%s", coll->name,
                 (unsigned long long)sp_coll_size_bytes(args), sp_dtype_name(args->dtype),
                 ip ? " in-place" : "");
        sp_progress_start_item(&s->live.progress, what);
        status = measure_point(s, coll, args, &rows[ip]);
        sp_progress_item_done(&s->live.progress);
        if (status == SP_OK && ctx->rank == 0) {
            sp_coll_totals_add(&s->totals, &rows[ip]);
            if (rows[ip].wrong > 0) {
                sp_progress_clear(&s->live.progress);
                sp__sweep_print_wrong(ctx, &rows[ip],
                                      s->split != NULL ? &s->split->merged : &s->bufs.point);
            }
        }
    }
    if (status == SP_OK && ctx->rank == 0) {
        sp_progress_clear(&s->live.progress);
        sp_coll_table_line(stdout, run[0] ? &rows[0] : NULL, run[1] ? &rows[1] : NULL);
        for (int ip = 0; ip < 2 && s->split != NULL; ip++) {
            if (run[ip]) {
                sp_split_print_point(stdout, ip ? "in-place" : "out-of-place",
                                     s->split->groups[ip], s->split->ngroups);
            }
        }
        sp_sweep_live_row(&s->live, coll->name, s->cycle, run[0] ? &rows[0] : NULL,
                          run[1] ? &rows[1] : NULL);
        fflush(stdout);
    }
    return status;
}

/* Whether size si adds a point: its per-rank count is above 0 and differs from the last kept
 * size's (rounding can map two sizes to one). *last_p: the last kept count. */
static int keep_size(const sp_coll_args_t *args, size_t *last_p)
{
    if (args->counts.param_count == 0 || args->counts.param_count == *last_p) {
        return 0;
    }
    *last_p = args->counts.param_count;
    return 1;
}

/* Rank 0, first cycle: one line naming the sizes a table skips. */
static void print_skipped(const sweep_run_t *s, const sp_coll_t *coll, sp_dtype_t dt, int root)
{
    char list[256];
    size_t used = 0;
    size_t last = 0;
    int n = 0;

    list[0] = '\0';
    for (size_t si = 0; si < s->nsizes; si++) {
        sp_coll_args_t args;
        sp_coll_args_init(&args, coll->kind, 0, walk_nranks(s), dt, SP_REDOP_SUM, root, 0,
                          s->sizes[si]);
        if (!keep_size(&args, &last)) {
            if (used < sizeof(list) - 32) {
                used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%llu", n ? ", " : "",
                                         (unsigned long long)s->sizes[si]);
            }
            n++;
        }
    }
    if (n > 0) {
        fprintf(stdout,
                "# skipped %d size(s) (%s B): each rank's part of %s rounds down to 0 "
                "elements of %s on %d ranks, or to the same count as the size before "
                "(nccl-tests' per-rank rounding)\n",
                n, list, coll->name, sp_dtype_name(dt), walk_nranks(s));
    }
}

/* The sizes of one table section (collective, type, reduction, root). */
static sp_status_t walk_sizes(sweep_run_t *s, const sp_coll_t *coll, int d, int o, int root)
{
    size_t last = 0;
    sp_status_t status = SP_OK;
    int run[2];

    if (!s->counting && s->cycle == 0 && s->ctx->rank == 0) {
        print_skipped(s, coll, (sp_dtype_t)d, root < 0 ? 0 : root);
    }
    places(s, coll, run);
    for (size_t si = 0; si < s->nsizes && status == SP_OK; si++) {
        sp_coll_args_t args;

        sp_coll_args_init(&args, coll->kind, s->ctx->rank, walk_nranks(s), (sp_dtype_t)d,
                          coll->has_redop ? (sp_redop_t)o : SP_REDOP_SUM, root < 0 ? 0 : root, 0,
                          s->sizes[si]);
        if (!keep_size(&args, &last)) {
            continue;
        }
        s->bytes = s->sizes[si];
        if (s->counting) {
            s->npoints += (size_t)(run[0] + run[1]);
        } else {
            status = sweep_line(s, coll, &args);
        }
    }
    return status;
}

/* Every selected collective, type, reduction and root once (or only counted). */
static sp_status_t walk(sweep_run_t *s)
{
    const sp_coll_opts_t *opts = s->opts;
    sp_status_t status = SP_OK;

    for (int c = 0; c < SP_COLL_COUNT && status == SP_OK; c++) {
        const sp_coll_t *coll = sp_coll_get((sp_coll_kind_t)c);
        if (!selected(opts->colls, c)) {
            continue;
        }
        if (!s->counting && s->ctx->rank == 0) {
            sp_coll_table_header(stdout, coll->name);
        }
        for (int d = 0; d < SP_DTYPE_COUNT && status == SP_OK; d++) {
            for (int o = 0; o < SP_REDOP_COUNT && status == SP_OK && selected(opts->dtypes, d);
                 o++) {
                /* collectives without a reduction run once, not once per op */
                if (coll->has_redop ? !selected(opts->redops, o) : o > 0) {
                    continue;
                }
                int lo = coll->has_root ? (opts->root < 0 ? 0 : (int)opts->root) : -1;
                /* with groups, a root is a rank of every group */
                int nroots = s->split != NULL ? s->split->min_size : s->ctx->nranks;
                int hi = coll->has_root ? (opts->root < 0 ? nroots - 1 : (int)opts->root) : -1;
                for (int root = lo; root <= hi && status == SP_OK; root++) {
                    status = walk_sizes(s, coll, d, o, root);
                }
            }
        }
    }
    return status;
}

static sp_status_t run_cycles(sweep_run_t *s)
{
    sp_status_t status = SP_OK;

    for (s->cycle = 0; s->cycle < s->opts->cycles && status == SP_OK; s->cycle++) {
        if (s->opts->cycles > 1 && s->ctx->rank == 0) {
            fprintf(stdout, "#\n# cycle %ld of %ld\n", s->cycle + 1, s->opts->cycles);
        }
        status = walk(s);
    }
    if (s->ctx->rank == 0 && status == SP_OK) {
        sp_coll_table_footer(stdout, &s->totals);
        fflush(stdout);
    }
    return status;
}

sp_status_t sp_sweep_run(sp_ctx_t *ctx, const sp_coll_opts_t *opts)
{
    sweep_run_t *s = calloc(1, sizeof(*s));
    uint64_t *sizes = calloc(SP_MAX_SIZES, sizeof(*sizes));
    sp_status_t status = sp_ctx_agree(ctx, s != NULL && sizes != NULL ? SP_OK : SP_ERR_NOMEM);

    if (status != SP_OK) {
        goto out_free;
    }
    s->ctx = ctx;
    s->opts = opts;
    s->sizes = sizes;
    s->totals.nranks = ctx->nranks;
    sp_coll_sizes(opts, sizes, SP_MAX_SIZES, &s->nsizes);
    if (ctx->rank == 0 && ctx->result != NULL) {
        status = sp_coll_result_begin(ctx->result, ctx->nranks, sp_method_names[opts->method],
                                      sp_issue_names[opts->issue]);
    }
    /* every collective's send and receive counts are at most size/elt_size elements; with
     * groups, each group has buffers of its own (on its own backend) */
    status = sp_ctx_agree(ctx, status);
    if (status == SP_OK) {
        status = sp_sweep_split_open(ctx, opts, (size_t)opts->maxbytes, sp_method_max_samples(opts),
                                     &s->split);
    }
    if (status == SP_OK && s->split == NULL) {
        status = sp_sweep_bufs_init(ctx, (size_t)opts->maxbytes, sp_method_max_samples(opts),
                                    &s->bufs);
    }
    if (status == SP_OK && s->split == NULL) {
        status = sp_ctx_agree(ctx, sp__sweep_issue_begin(ctx, ctx, opts, &s->bufs));
        if (status != SP_OK) {
            sp_sweep_bufs_cleanup(ctx, &s->bufs);
        }
    } else if (status == SP_OK) { /* each group's stream, the wait's largest over the world */
        status = sp_ctx_agree(ctx, sp__sweep_issue_begin(ctx, &s->split->sub, opts,
                                                         &s->split->bufs));
        if (status != SP_OK) {
            sp_sweep_split_close(s->split);
        }
    }
    if (status != SP_OK) {
        goto out_free;
    }
    s->counting = 1;
    (void)walk(s);
    s->npoints *= (size_t)opts->cycles;
    s->counting = 0;
    status = sp_ctx_agree(ctx, status);
    if (status == SP_OK) {
        status = sp_sweep_live_begin(&s->live, ctx, opts, s->npoints);
    }
    if (status == SP_OK) {
        if (ctx->rank == 0) {
            sp_method_print_header(stdout, opts);
            sp__sweep_issue_print(stdout, s->split != NULL ? &s->split->bufs : &s->bufs);
            if (s->split != NULL) {
                sp_sweep_split_print_header(stdout, s->split);
            }
        }
        ctx->progress = ctx->rank == 0 ? &s->live.progress : NULL;
        status = run_cycles(s);
        ctx->progress = NULL;
        if (ctx->rank == 0) {
            status = sp_sweep_live_end(&s->live, &s->totals, status);
        }
    }
    if (s->split == NULL) {
        sp_sweep_bufs_cleanup(ctx, &s->bufs);
    }
    sp_sweep_split_close(s->split);
    if (status == SP_OK && s->totals.wrong > 0) {
        status = SP_ERR_WRONG_DATA;
    }
out_free:
    free(sizes);
    free(s);
    MPI_Bcast(&status, 1, MPI_INT, 0, ctx->world);
    return status;
}

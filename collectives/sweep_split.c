/* The split sweep: groups formed from --split, each measuring every point on its own
 * communicator and backend at the same time as the others; rank 0 merges (sweep_split.h). */
#include "sweep_split.h"

#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "method.h"
#include "runstop.h"

#define TAG_ROW 7301
#define TAG_TIMES 7302
#define TAG_NWRONG 7303
#define TAG_WRONG 7304
#define TAG_SAMPLES 7305

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a;
    long y = *(const long *)b;

    return (x > y) - (x < y);
}

/* The groups from every rank's color: sorted distinct colors, sizes, members by group. */
static sp_status_t build_groups(sp_sweep_split_t *sp, const long *colors, int nranks, int rank)
{
    long *sorted = malloc((size_t)nranks * sizeof(*sorted));
    int n = 0;

    sp->colors = calloc((size_t)sp->ngroups, sizeof(*sp->colors));
    sp->gsize = calloc((size_t)sp->ngroups, sizeof(*sp->gsize));
    sp->gstart = calloc((size_t)sp->ngroups, sizeof(*sp->gstart));
    sp->members = calloc((size_t)nranks, sizeof(*sp->members));
    if (sorted == NULL || sp->colors == NULL || sp->gsize == NULL || sp->gstart == NULL ||
        sp->members == NULL) {
        free(sorted);
        return SP_ERR_NOMEM;
    }
    memcpy(sorted, colors, (size_t)nranks * sizeof(*sorted));
    qsort(sorted, (size_t)nranks, sizeof(*sorted), cmp_long);
    for (int i = 0; i < nranks; i++) {
        if (i == 0 || sorted[i] != sorted[i - 1]) {
            sp->colors[n++] = sorted[i];
        }
    }
    free(sorted);
    sp->min_size = nranks;
    for (int g = 0, m = 0; g < sp->ngroups; g++) {
        sp->gstart[g] = m;
        for (int r = 0; r < nranks; r++) {
            if (colors[r] == sp->colors[g]) {
                sp->members[m++] = r;
                sp->gsize[g]++;
            }
        }
        sp->my_group = colors[rank] == sp->colors[g] ? g : sp->my_group;
        sp->min_size = sp->gsize[g] < sp->min_size ? sp->gsize[g] : sp->min_size;
        sp->max_size = sp->gsize[g] > sp->max_size ? sp->gsize[g] : sp->max_size;
    }
    return SP_OK;
}

/* Every rank's color into colors (nranks entries) and the checks of the groups and the root:
 * the same verdict on every rank, as the colors are gathered. Collective over world. */
static sp_status_t gather_check(const sp_split_t *spec, const sp_topo_t *topo, MPI_Comm world,
                                long root, long *colors, int *ngroups_p, int sizes_p[2], char *err,
                                size_t errlen)
{
    long mine = sp_split_color(spec, topo->rank, topo->node, topo->local_rank);
    sp_status_t status;

    MPI_Allgather(&mine, 1, MPI_LONG, colors, 1, MPI_LONG, world);
    status = sp_split_check(spec, colors, topo->nranks, ngroups_p, sizes_p, err, errlen);
    if (status == SP_OK) {
        status = sp_split_check_root(spec, root, sizes_p[0], err, errlen);
    }
    return status;
}

sp_status_t sp_sweep_split_check(const sp_coll_opts_t *opts, const sp_topo_t *topo, MPI_Comm world,
                                 char *err, size_t errlen)
{
    sp_split_t spec;
    long *colors = NULL;
    int ngroups = 0;
    int sizes[2];
    sp_status_t status = sp_split_parse(opts->split, &spec, err, errlen);

    if (status != SP_OK || spec.kind == SP_SPLIT_NONE) {
        return status;
    }
    colors = malloc((size_t)topo->nranks * sizeof(*colors));
    status = sp_agree(world, colors != NULL ? SP_OK : SP_ERR_NOMEM);
    if (status == SP_OK) {
        status = gather_check(&spec, topo, world, opts->root, colors, &ngroups, sizes, err, errlen);
    }
    free(colors);
    return status;
}

/* The groups, formed (sp_sweep_split_check has passed). */
static sp_status_t form_groups(sp_sweep_split_t *sp, sp_ctx_t *ctx, const sp_coll_opts_t *opts)
{
    long *colors = malloc((size_t)ctx->nranks * sizeof(*colors));
    char err[512];
    int sizes[2];
    sp_status_t status = sp_ctx_agree(ctx, colors != NULL ? SP_OK : SP_ERR_NOMEM);

    if (status == SP_OK) {
        status = gather_check(&sp->spec, &ctx->topo, ctx->world, opts->root, colors, &sp->ngroups,
                              sizes, err, sizeof(err));
        if (status == SP_ERR_INVALID && ctx->rank == 0) {
            fprintf(stderr, "scaleprobe coll: error: %s\n", err);
        }
    }
    if (status == SP_OK) {
        status = build_groups(sp, colors, ctx->nranks, ctx->rank);
    }
    free(colors);
    return sp_ctx_agree(ctx, status);
}

/* The group's communicator, context and backend (host or nccl as the run's: for nccl a
 * communicator of the group's own), and its buffers. Collective over ctx->world. */
static sp_status_t open_group(sp_sweep_split_t *sp, sp_ctx_t *ctx, const sp_coll_opts_t *opts,
                              size_t bytes, size_t max_samples)
{
    sp_backend_config_t cfg;
    char err[256] = "";
    sp_status_t status;
    int delayed;

    MPI_Comm_split(ctx->world, sp->my_group, ctx->rank, &sp->comm);
    sp->sub = *ctx;
    sp->sub.world = sp->comm;
    MPI_Comm_rank(sp->comm, &sp->sub.rank);
    MPI_Comm_size(sp->comm, &sp->sub.nranks);
    sp->sub.result = NULL;
    sp->sub.topo.ranks = NULL; /* the world's table stays with the world's rank 0 */
    memset(&sp->sub.backend, 0, sizeof(sp->sub.backend));
    memset(&cfg, 0, sizeof(cfg));
    cfg.local_rank = ctx->topo.local_rank;
    cfg.local_size = ctx->topo.local_size;
    cfg.device = (int)opts->run.device;
    cfg.timeout_s = opts->run.timeout;
    cfg.cuda_graph = opts->cuda_graph;
    status = sp_backend_open(ctx->backend.kind, sp->comm, &cfg, &sp->sub.backend, err, sizeof(err));
    sp->have_backend = status == SP_OK;
    if (status != SP_OK && sp->sub.rank == 0) {
        fprintf(stderr, "scaleprobe coll: error: backend of split group %d: %s\n", sp->my_group,
                err);
    }
    status = sp_ctx_agree(ctx, status);
    if (status == SP_OK) {
        status = sp_sweep_bufs_init(&sp->sub, bytes, max_samples, &sp->bufs);
        sp->have_bufs = status == SP_OK;
    }
    /* the test-only delay names a world rank: it applies to that rank's group rank */
    delayed = sp->bufs.delay_rank == ctx->rank;
    sp->bufs.delay_rank = delayed ? sp->sub.rank : -1;
    return sp_ctx_agree(ctx, status);
}

/* Rank 0: what merging needs, and the /coll/groups tables. */
static sp_status_t open_rank0(sp_sweep_split_t *sp, sp_ctx_t *ctx, size_t max_samples)
{
    sp_coll_group_rank_t *m = calloc((size_t)ctx->nranks, sizeof(*m));
    sp_status_t status = SP_OK;

    sp->groups[0] = calloc((size_t)sp->ngroups, sizeof(*sp->groups[0]));
    sp->groups[1] = calloc((size_t)sp->ngroups, sizeof(*sp->groups[1]));
    sp->merged.wrong = calloc((size_t)ctx->nranks, sizeof(*sp->merged.wrong));
    sp->merged.rank_times_us = calloc((size_t)ctx->nranks, sizeof(double));
    sp->merged.scratch = calloc((size_t)ctx->nranks, sizeof(double));
    sp->samples = calloc(max_samples, sizeof(*sp->samples));
    sp->scratch = calloc(max_samples, sizeof(*sp->scratch));
    if (m == NULL || sp->groups[0] == NULL || sp->groups[1] == NULL || sp->merged.wrong == NULL ||
        sp->merged.rank_times_us == NULL || sp->merged.scratch == NULL || sp->samples == NULL ||
        sp->scratch == NULL) {
        status = SP_ERR_NOMEM;
    }
    for (int g = 0; g < sp->ngroups && status == SP_OK; g++) {
        for (int i = 0; i < sp->gsize[g]; i++) {
            int r = sp->members[sp->gstart[g] + i];
            m[r].rank = r;
            m[r].group = sp->colors[g];
        }
    }
    if (status == SP_OK && ctx->result != NULL) {
        status = sp_coll_groups_begin(ctx->result, sp->name, sp->ngroups, m, ctx->nranks);
    }
    free(m);
    return status;
}

/* More ranks on a node than its online cores, with blocking calls on the host: every rank
 * busy-polls, and the scheduler can leave one group behind for a whole run, so a healthy group
 * reads slow (docs/METHODOLOGY.md, "Split groups"). Rank 0 warns once (stderr). Collective. */
static void warn_polling(const sp_ctx_t *ctx, const sp_coll_opts_t *opts)
{
    sp_topo_busiest_t b;

    if (ctx->backend.kind != SP_BACKEND_HOST || opts->issue != SP_ISSUE_BLOCKING) {
        return;
    }
    b = sp_topo_busiest_node(&ctx->topo, ctx->world, 1); /* one polling thread per rank */
    if (ctx->rank == 0 && b.threads > b.cores) {
        fprintf(stderr, "scaleprobe coll: warning: %d ranks on %d online cores of %s: with "
                "blocking calls every rank busy-polls and the groups time-share the cores "
                "unevenly, so a healthy group can read slow; --issue stream waits politely\n",
                b.threads, b.cores, ctx->topo.ranks != NULL ? ctx->topo.ranks[b.rank].host : "?");
    }
}

sp_status_t sp_sweep_split_open(sp_ctx_t *ctx, const sp_coll_opts_t *opts, size_t bytes,
                                size_t max_samples, sp_sweep_split_t **split_p)
{
    sp_sweep_split_t *sp = calloc(1, sizeof(*sp));
    char err[512];
    sp_status_t status = sp_ctx_agree(ctx, sp != NULL ? SP_OK : SP_ERR_NOMEM);

    *split_p = NULL;
    if (status != SP_OK) {
        free(sp);
        return status;
    }
    sp->comm = MPI_COMM_NULL;
    /* checked when the options were parsed */
    (void)sp_split_parse(opts->split, &sp->spec, err, sizeof(err));
    sp_split_format(&sp->spec, sp->name, sizeof(sp->name));
    if (sp->spec.kind == SP_SPLIT_NONE) {
        free(sp);
        return SP_OK;
    }
    warn_polling(ctx, opts);
    status = form_groups(sp, ctx, opts);
    if (status == SP_OK) {
        status = open_group(sp, ctx, opts, bytes, max_samples);
    }
    if (status == SP_OK && ctx->rank == 0) {
        status = open_rank0(sp, ctx, max_samples);
    }
    status = sp_ctx_agree(ctx, status);
    if (status != SP_OK) {
        sp_sweep_split_close(sp);
        return status;
    }
    *split_p = sp;
    return SP_OK;
}

void sp_sweep_split_close(sp_sweep_split_t *sp)
{
    if (sp == NULL) {
        return;
    }
    if (sp->have_bufs) {
        sp_sweep_bufs_cleanup(&sp->sub, &sp->bufs);
    }
    if (sp->have_backend) {
        sp_backend_close(&sp->sub.backend);
    }
    if (sp->comm != MPI_COMM_NULL) {
        MPI_Comm_free(&sp->comm);
    }
    free(sp->scratch);
    free(sp->samples);
    free(sp->merged.scratch);
    free(sp->merged.rank_times_us);
    free(sp->merged.wrong);
    free(sp->groups[1]);
    free(sp->groups[0]);
    free(sp->members);
    free(sp->gstart);
    free(sp->gsize);
    free(sp->colors);
    free(sp);
}

void sp_sweep_split_print_header(FILE *out, const sp_sweep_split_t *sp)
{
    fprintf(out, "# split %s: %d groups measured at once, each on its own communicator%s\n",
            sp->name, sp->ngroups,
            sp->min_size != sp->max_size ? " (groups of unequal size: each busbw uses its own "
                                           "group's rank count)"
                                         : "");
    for (int g = 0; g < sp->ngroups; g++) {
        fprintf(out, "#   group %ld: %d ranks:", sp->colors[g], sp->gsize[g]);
        for (int i = 0; i < sp->gsize[g] && i < 16; i++) {
            fprintf(out, " %d", sp->members[sp->gstart[g] + i]);
        }
        fprintf(out, "%s\n", sp->gsize[g] > 16 ? " ..." : "");
    }
}

/* The world rank of group g's rank i. */
static int world_rank(const sp_sweep_split_t *sp, int g, int i)
{
    return i >= 0 && i < sp->gsize[g] ? sp->members[sp->gstart[g] + i] : -1;
}

/* Lend the run's timeline and collective count to the group's context, and take them back:
 * the events the group recorded get their world rank, and each group's collective instances
 * numbers of their own (the groups ran different instances under the same count: group g's
 * follow the count at the start by g times the most any group ran), so the timeline's
 * arrivals compare only ranks of one instance. */
static void lend(sp_sweep_split_t *sp, const sp_ctx_t *ctx)
{
    sp->sub.timeline = ctx->timeline;
    sp->sub.coll_seq = ctx->coll_seq;
}

static void take_back(sp_sweep_split_t *sp, sp_ctx_t *ctx)
{
    uint64_t start = ctx->coll_seq;
    uint64_t ran = sp->sub.coll_seq - start;
    uint64_t most = 0;
    uint64_t shift;
    size_t n0 = ctx->timeline.count;

    MPI_Allreduce(&ran, &most, 1, MPI_UINT64_T, MPI_MAX, ctx->world);
    shift = (uint64_t)sp->my_group * most;
    ctx->timeline = sp->sub.timeline;
    for (size_t i = n0; i < ctx->timeline.count && ctx->timeline.events != NULL; i++) {
        ctx->timeline.events[i].rank = ctx->rank;
        ctx->timeline.events[i].seq += shift;
    }
    ctx->coll_seq = start + (uint64_t)sp->ngroups * most;
}

/* A group leader: its point in world ranks, to world rank 0 (itself when it is rank 0). */
static void leader_send(sp_sweep_split_t *sp, const sp_ctx_t *ctx)
{
    sp_sweep_point_t *p = &sp->bufs.point;
    int g = sp->my_group;
    int nwrong = (int)p->nwrong;

    for (size_t i = 0; i < p->nwrong; i++) {
        p->wrong[i].rank = world_rank(sp, g, p->wrong[i].rank);
    }
    for (uint32_t i = 0; i < p->row.samples; i++) {
        p->samples[i].slowest_rank = world_rank(sp, g, p->samples[i].slowest_rank);
    }
    p->row.slowest_rank = world_rank(sp, g, p->row.slowest_rank);
    p->row.late_rank = world_rank(sp, g, p->row.late_rank);
    if (ctx->rank == 0) {
        return; /* rank 0 reads its own group's point in place */
    }
    MPI_Send(&p->row, (int)sizeof(p->row), MPI_BYTE, 0, TAG_ROW, ctx->world);
    MPI_Send(p->rank_times_us, sp->gsize[g], MPI_DOUBLE, 0, TAG_TIMES, ctx->world);
    MPI_Send(&nwrong, 1, MPI_INT, 0, TAG_NWRONG, ctx->world);
    MPI_Send(p->wrong, (int)(p->nwrong * sizeof(*p->wrong)), MPI_BYTE, 0, TAG_WRONG, ctx->world);
    MPI_Send(p->samples, (int)(p->row.samples * sizeof(*p->samples)), MPI_BYTE, 0, TAG_SAMPLES,
             ctx->world);
}

/* Rank 0: one group's row as a /coll/groups row. */
static void group_row(const sp_sweep_split_t *sp, int g, const sp_coll_row_t *r,
                      sp_coll_group_row_t *out)
{
    memset(out, 0, sizeof(*out));
    out->group = sp->colors[g];
    out->nranks = sp->gsize[g];
    out->first_rank = world_rank(sp, g, 0);
    out->samples = r->samples;
    out->converged = r->converged;
    out->time_us = r->time_us;
    out->ci_lo_us = r->ci_lo_us;
    out->ci_hi_us = r->ci_hi_us;
    out->algbw_gbps = r->algbw_gbps;
    out->busbw_gbps = r->busbw_gbps;
    out->wrong = r->wrong;
    out->slowest_rank = r->slowest_rank;
    out->late_rank = r->late_rank;
}

/* Rank 0: every group's row first (to know the slowest), then the rest of each group's point:
 * rank times into world places, wrong lists appended, the slowest group's samples kept. */
static void rank0_receive(sp_sweep_split_t *sp, const sp_ctx_t *ctx, sp_coll_row_t *rows,
                          int *slowest_p)
{
    sp_sweep_point_t *own = &sp->bufs.point;
    int slowest = 0;

    for (int g = 0; g < sp->ngroups; g++) {
        if (g == sp->my_group) {
            rows[g] = own->row;
        } else {
            MPI_Recv(&rows[g], (int)sizeof(rows[g]), MPI_BYTE, world_rank(sp, g, 0), TAG_ROW,
                     ctx->world, MPI_STATUS_IGNORE);
        }
        slowest = rows[g].time_us > rows[slowest].time_us ? g : slowest;
    }
    sp->merged.nwrong = 0;
    for (int g = 0; g < sp->ngroups; g++) {
        int src = world_rank(sp, g, 0);
        int nwrong = (int)own->nwrong;
        double *times = sp->merged.scratch;
        sp_coll_sample_t *samples = g == slowest ? sp->samples : sp->scratch;
        sp_coll_wrong_t *wrong = sp->merged.wrong + sp->merged.nwrong;
        if (g == sp->my_group) {
            memcpy(times, own->rank_times_us, (size_t)sp->gsize[g] * sizeof(double));
            memcpy(wrong, own->wrong, own->nwrong * sizeof(*wrong));
            memcpy(samples, own->samples, rows[g].samples * sizeof(*samples));
        } else {
            MPI_Recv(times, sp->gsize[g], MPI_DOUBLE, src, TAG_TIMES, ctx->world,
                     MPI_STATUS_IGNORE);
            MPI_Recv(&nwrong, 1, MPI_INT, src, TAG_NWRONG, ctx->world, MPI_STATUS_IGNORE);
            MPI_Recv(wrong, (int)((size_t)nwrong * sizeof(*wrong)), MPI_BYTE, src, TAG_WRONG,
                     ctx->world, MPI_STATUS_IGNORE);
            MPI_Recv(samples, (int)(rows[g].samples * sizeof(*samples)), MPI_BYTE, src, TAG_SAMPLES,
                     ctx->world, MPI_STATUS_IGNORE);
        }
        for (int i = 0; i < sp->gsize[g]; i++) {
            sp->merged.rank_times_us[world_rank(sp, g, i)] = times[i];
        }
        sp->merged.nwrong += (size_t)nwrong;
    }
    *slowest_p = slowest;
}

/* Rank 0: the row written for the point: the slowest group's figures (its samples, statistics,
 * bandwidth with its own rank count, its late rank), wrong elements summed over the groups, and
 * the slowest rank by own median over the whole world. */
static void merge_row(sp_sweep_split_t *sp, const sp_ctx_t *ctx, const sp_coll_row_t *rows,
                      int slowest, sp_coll_row_t *out)
{
    const double *t = sp->merged.rank_times_us;
    double typical;
    int worst = 0;

    *out = rows[slowest];
    out->wrong = 0;
    out->wrong_ranks = 0;
    for (int g = 0; g < sp->ngroups; g++) {
        out->wrong = rows[g].wrong < 0 || out->wrong < 0 ? -1 : out->wrong + rows[g].wrong;
        out->wrong_ranks += rows[g].wrong_ranks;
        out->elapsed_s = rows[g].elapsed_s > out->elapsed_s ? rows[g].elapsed_s : out->elapsed_s;
    }
    for (int r = 1; r < ctx->nranks; r++) {
        worst = t[r] > t[worst] ? r : worst;
    }
    typical = sp_stats_median(t, (size_t)ctx->nranks, sp->merged.scratch);
    out->slowest_rank = worst;
    out->slowest_margin = typical > 0.0 ? t[worst] / typical - 1.0 : 0.0;
}

/* Rank 0: gather, merge, append the point's row and its groups' rows. */
static sp_status_t rank0_write(sp_sweep_split_t *sp, sp_ctx_t *ctx, int in_place,
                               sp_coll_row_t *row_p)
{
    sp_coll_row_t *rows = calloc((size_t)sp->ngroups, sizeof(*rows));
    sp_coll_group_row_t *groups = sp->groups[in_place ? 1 : 0];
    uint64_t nrows = 0;
    int slowest = 0;
    sp_status_t status = rows != NULL ? SP_OK : SP_ERR_NOMEM;

    if (status != SP_OK) {
        return status; /* the others' sends wait for the abort that follows */
    }
    rank0_receive(sp, ctx, rows, &slowest);
    merge_row(sp, ctx, rows, slowest, row_p);
    for (int g = 0; g < sp->ngroups; g++) {
        group_row(sp, g, &rows[g], &groups[g]);
    }
    if (ctx->result != NULL) {
        status = sp_result_table_rows(ctx->result, "/coll/results", &nrows);
        for (int g = 0; g < sp->ngroups; g++) {
            groups[g].row = nrows;
        }
        if (status == SP_OK) {
            status = sp_coll_groups_append(ctx->result, groups, sp->ngroups);
        }
        if (status == SP_OK) {
            status =
                sp_coll_result_append(ctx->result, row_p, sp->samples, sp->merged.rank_times_us,
                                      ctx->nranks, sp->merged.wrong, sp->merged.nwrong);
        }
    }
    sp->merged.row = *row_p;
    free(rows);
    return status;
}

sp_status_t sp_sweep_split_point(sp_sweep_split_t *sp, sp_ctx_t *ctx, const sp_coll_opts_t *opts,
                                 const sp_coll_t *coll, const sp_coll_args_t *wargs, uint64_t bytes,
                                 sp_coll_row_t *row_p)
{
    const sp_backend_ops_t *ops = sp->sub.backend.ops;
    sp_coll_args_t args;
    char name[128];
    sp_status_t status;

    /* a signal anywhere stops the sweep before the next point (the ranks agree) */
    if (sp_runstop_signal(ctx->world) != 0) {
        return SP_ERR_INTERRUPTED;
    }
    sp_coll_args_init(&args, coll->kind, sp->sub.rank, sp->sub.nranks, wargs->dtype, wargs->redop,
                      wargs->root, wargs->in_place, bytes);
    snprintf(name, sizeof(name), "%s %llu B group %ld%s", coll->name, (unsigned long long)bytes,
             sp->colors[sp->my_group], args.in_place ? " in-place" : "");
    lend(sp, ctx);
    ops->range_push(sp->sub.backend.state, name);
    status = sp_sweep_measure(&sp->sub, opts, coll, &args, &sp->bufs);
    ops->range_pop(sp->sub.backend.state);
    take_back(sp, ctx);
    status = sp_ctx_agree(ctx, status);
    if (status != SP_OK) {
        return status;
    }
    if (sp->sub.rank == 0) {
        leader_send(sp, ctx);
    }
    if (ctx->rank == 0) {
        status = rank0_write(sp, ctx, args.in_place, row_p);
    }
    return sp_ctx_agree(ctx, status);
}

/* The shared runner: every phase boundary is a status agreement, so a rank that fails never
 * leaves the others waiting, and bad input produces exactly one message (from rank 0) and exit
 * code 2 before anything is written. */
#include "runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "aggregate.h"
#include "fingerprint.h"
#include "launch.h"
#include "log.h"
#include "runstop.h"
#include "signals.h"
#include "timeutil.h"

#define SP_ERRLEN 1024
#define SP_CLOCK_PINGS 20
#define SP_AGGREGATE_BATCH 8192 /* events per message to rank 0 (~0.6 MiB) */

extern char **environ;

static void join_argv(int argc, char **argv, char *out, size_t outlen)
{
    size_t used = 0;

    out[0] = '\0';
    for (int i = 0; i < argc && used < outlen; i++) {
        used += (size_t)snprintf(out + used, outlen - used, "%s%s", i ? " " : "", argv[i]);
    }
}

/* Rank 0 prints one user-facing message; every rank gets the status back. */
static void bad_input(const sp_ctx_t *ctx, const char *cmd, const char *msg)
{
    if (ctx->rank == 0) {
        fprintf(stderr, "scaleprobe %s: error: %s\n", cmd, msg);
    }
}

/* Compare every rank's option hash with rank 0's; name the ranks that differ. */
static sp_status_t check_same_options(sp_ctx_t *ctx, const sp_workload_t *w, const void *opts)
{
    uint64_t mine = sp_opts_hash(w->table, opts);
    uint64_t lo = 0;
    uint64_t hi = 0;
    uint64_t *all = NULL;

    MPI_Allreduce(&mine, &lo, 1, MPI_UINT64_T, MPI_MIN, ctx->world);
    MPI_Allreduce(&mine, &hi, 1, MPI_UINT64_T, MPI_MAX, ctx->world);
    if (lo == hi) {
        return SP_OK;
    }
    if (ctx->rank == 0) {
        all = calloc((size_t)ctx->nranks, sizeof(*all));
    }
    /* without the table rank 0 still takes part, into a one-element buffer it ignores */
    MPI_Gather(&mine, 1, MPI_UINT64_T, all != NULL ? all : &lo, 1, MPI_UINT64_T, 0, ctx->world);
    if (ctx->rank == 0 && all == NULL) {
        fprintf(stderr,
                "scaleprobe %s: error: options differ between ranks; every rank must get "
                "the same command line\n",
                w->name);
        return SP_ERR_MISMATCH;
    }
    if (ctx->rank == 0) {
        char list[256];
        size_t used = 0;
        int ndiff = 0;
        list[0] = '\0';
        for (int r = 0; all != NULL && r < ctx->nranks; r++) {
            if (all[r] != all[0]) {
                if (used < sizeof(list) - 16) {
                    used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%d",
                                             ndiff ? "," : "", r);
                }
                ndiff++;
            }
        }
        fprintf(stderr,
                "scaleprobe %s: error: options differ between ranks: %d rank(s) parsed other "
                "values than rank 0 (ranks %s); every rank must get the same command line\n",
                w->name, ndiff, list);
        free(all);
    }
    return SP_ERR_MISMATCH;
}

/* Rank 0 picks the output path (default under results/) and checks it can be created. */
static sp_status_t resolve_output(sp_ctx_t *ctx, const sp_workload_t *w, sp_run_opts_t *ro)
{
    char *out = ro->output;
    int status = SP_OK;

    if (ctx->rank == 0) {
        if (out[0] == '\0') {
            /* the job id (or pid) keeps two runs started in the same second apart */
            char stamp[32];
            const char *job = getenv("SLURM_JOB_ID");
            sp_time_stamp(time(NULL), stamp, sizeof(stamp));
            if (job != NULL && *job != '\0') {
                snprintf(out, SP_OPT_STRLEN, "results/%s-%s-job%.32s.h5", w->name, stamp, job);
            } else {
                snprintf(out, SP_OPT_STRLEN, "results/%s-%s-%ld.h5", w->name, stamp,
                         (long)getpid());
            }
        }
        status = sp_result_check_path(out, ro->force);
        if (status == SP_ERR_EXISTS) {
            fprintf(stderr,
                    "scaleprobe %s: error: output file %s exists; choose another -O or add "
                    "--force to overwrite it\n",
                    w->name, out);
        } else if (status != SP_OK) {
            fprintf(stderr,
                    "scaleprobe %s: error: cannot write the output file %s (not a regular file, "
                    "or its directory is not writable)\n",
                    w->name, out);
            status = SP_ERR_INVALID;
        }
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, ctx->world);
    return (sp_status_t)status;
}

/* End synchronization, /clock, and every rank's timeline into /timeline. Collective. */
static sp_status_t finish_timeline(sp_ctx_t *ctx, const sp_workload_t *w, int clock_all, int mpiio)
{
    sp_clock_rank_t mine;
    sp_clock_rank_t *rows = NULL;
    sp_tl_own_t own = {&ctx->timeline, &ctx->clock};
    sp_tl_source_t src;
    sp_aggregate_stats_t stats;
    int64_t err = 0;
    int64_t worst = 0;
    sp_status_t status;

    sp_clock_sync(&ctx->clock, &ctx->topo, ctx->world, clock_all, SP_CLOCK_PINGS, 1);
    sp_clock_row(&ctx->clock, ctx->rank, ctx->topo.node, &mine);
    err = mine.err_ns;
    MPI_Allreduce(&err, &worst, 1, MPI_INT64_T, MPI_MAX, ctx->world);
    if (ctx->rank == 0) {
        rows = calloc((size_t)ctx->nranks, sizeof(*rows));
    }
    MPI_Gather(&mine, (int)sizeof(mine), MPI_BYTE, rows != NULL ? (void *)rows : (void *)&mine,
               (int)sizeof(mine), MPI_BYTE, 0, ctx->world);
    status = SP_OK;
    if (ctx->rank == 0) {
        status = rows == NULL ? SP_ERR_NOMEM
                              : sp_result_write_clock(ctx->result, rows, (size_t)ctx->nranks,
                                                      clock_all ? "min-rtt ping-pong, every rank"
                                                                : "min-rtt ping-pong, node "
                                                                  "leaders; ranks share their "
                                                                  "leader's model",
                                                      SP_CLOCK_PINGS);
        free(rows);
    }
    status = sp_ctx_agree(ctx, status);
    if (status != SP_OK || ctx->timeline.capacity == 0) {
        return status;
    }
    sp_tl_own_source(&own, &src);
    if (mpiio) {
        status =
            sp_aggregate_mpiio(ctx->world, ctx->result, &src, w->event_ops, w->nevent_ops, &stats);
    } else {
        status = sp_aggregate(ctx->world, ctx->result, ctx->nranks, &src, SP_AGGREGATE_BATCH, worst,
                              &stats);
    }
    if (ctx->rank == 0 && status == SP_OK) {
        status = sp_result_timeline_stats(ctx->result, stats.events, stats.dropped, stats.seconds,
                                          stats.peak_rss_kib, worst,
                                          mpiio ? "one collective MPI-IO write by every rank"
                                                : "rank 0, bounded batches pulled from each rank");
    }
    status = sp_ctx_agree(ctx, status);
    if (ctx->rank == 0 && status == SP_OK && stats.dropped > 0) {
        fprintf(stderr,
                "scaleprobe: warning: %llu timeline events did not fit the per-rank buffer "
                "(--timeline-events); /timeline/ranks says which ranks dropped how many\n",
                (unsigned long long)stats.dropped);
    }
    return status;
}

/* Rank 0's view: library versions, the backend's versions, the allow-listed environment; and
 * every rank's fingerprint (fp, gathered by sp_fp_gather). */
static sp_status_t write_fingerprint(sp_ctx_t *ctx, sp_fp_rank_t *fp)
{
    enum { MAX_VERSIONS = 32, MAX_ENV = 256 };
    sp_kv_t *versions = calloc(MAX_VERSIONS, sizeof(*versions));
    sp_kv_t *env = calloc(MAX_ENV, sizeof(*env));
    sp_status_t status = SP_ERR_NOMEM;
    int nv;
    int ne;

    if (versions != NULL && env != NULL) {
        nv = sp_fingerprint_versions(versions, MAX_VERSIONS);
        nv += ctx->backend.ops->versions(ctx->backend.state, versions + nv, MAX_VERSIONS - nv);
        ne = sp_env_capture(environ, env, MAX_ENV);
        status = sp_result_write_fingerprint(ctx->result, versions, nv, env, ne, fp, ctx->nranks,
                                             ctx->topo.nnodes);
    }
    free(env);
    free(versions);
    return status;
}

/* /launch: rank 0's view of the launcher and the Slurm job, and the PML every rank selected.
 * Collective (the PML names are gathered). */
static sp_status_t write_launch(sp_ctx_t *ctx, sp_status_t status)
{
    enum { MAX_KV = 16, PML_LEN = 16 };
    char mine[PML_LEN];
    char *all = ctx->rank == 0 ? calloc((size_t)ctx->nranks, PML_LEN) : NULL;
    sp_kv_t kv[MAX_KV];
    int n, odd = -1;

    memset(mine, 0, sizeof(mine));
    sp_launch_self_pml(mine, sizeof(mine));
    MPI_Gather(mine, PML_LEN, MPI_CHAR, all, PML_LEN, MPI_CHAR, 0, ctx->world);
    if (ctx->rank != 0 || status != SP_OK) {
        free(all);
        return status;
    }
    if (all == NULL) {
        return SP_ERR_NOMEM;
    }
    n = sp_launch_describe(environ, kv, MAX_KV - 3);
    snprintf(kv[n].key, sizeof(kv[n].key), "mpi_thread_level");
    snprintf(kv[n].value, sizeof(kv[n].value), "%s",
             ctx->mpi_thread >= MPI_THREAD_MULTIPLE     ? "multiple"
             : ctx->mpi_thread >= MPI_THREAD_SERIALIZED ? "serialized"
             : ctx->mpi_thread >= MPI_THREAD_FUNNELED   ? "funneled"
                                                        : "single");
    n++;
    for (int r = 1; r < ctx->nranks && odd < 0; r++) {
        odd = strncmp(all, all + (size_t)r * PML_LEN, PML_LEN) != 0 ? r : -1;
    }
    snprintf(kv[n].key, sizeof(kv[n].key), "pml");
    snprintf(kv[n].value, sizeof(kv[n].value), "%.15s", all);
    n++;
    snprintf(kv[n].key, sizeof(kv[n].key), "pml_ranks");
    if (odd < 0) {
        snprintf(kv[n].value, sizeof(kv[n].value), "the same on all %d ranks", ctx->nranks);
    } else {
        snprintf(kv[n].value, sizeof(kv[n].value), "differs: rank 0 %.15s, rank %d %.15s", all, odd,
                 all + (size_t)odd * PML_LEN);
    }
    n++;
    free(all);
    return sp_result_write_launch(ctx->result, kv, n);
}

/* Every rank's fingerprint, gathered to rank 0 (NULL elsewhere). Collective. */
static sp_status_t gather_fingerprint(sp_ctx_t *ctx, sp_fp_rank_t **fp_p)
{
    enum { MAX_KV = 32 };
    sp_kv_t kv[MAX_KV];
    char dev[SP_HOST_LEN];
    char bus[32];
    int n = ctx->backend.ops->versions(ctx->backend.state, kv, MAX_KV);

    ctx->backend.ops->device_info(ctx->backend.state, dev, sizeof(dev), bus, sizeof(bus));
    return sp_fp_gather(ctx->world, &ctx->topo, kv, n, bus, fp_p);
}

static sp_status_t open_result(sp_ctx_t *ctx, const sp_workload_t *w, const void *opts,
                               const sp_run_opts_t *ro)
{
    sp_fp_rank_t *fp = NULL;
    sp_status_t status = gather_fingerprint(ctx, &fp);

    if (ctx->rank == 0 && status == SP_OK) {
        sp_result_info_t info = {
            .command_line = ctx->command_line,
            .subcommand = w->name,
            .backend = ctx->backend.ops->name,
            .world_size = ctx->nranks,
            .node_count = ctx->topo.nnodes,
            .event_ops = w->event_ops,
            .nevent_ops = w->nevent_ops,
        };
        status = sp_result_create(ro->output, ro->force, &info, &ctx->result);
        if (status == SP_OK) {
            sp_result_set_timeline_filter(ctx->result, ro->timeline_compress
                                                           ? SP_H5_FILTER_SHUFFLE_DEFLATE1
                                                           : SP_H5_FILTER_TIMELINE);
            status = sp_result_write_config(ctx->result, w->table, opts);
        }
        if (status == SP_OK) {
            status = sp_result_write_topology(ctx->result, &ctx->topo);
        }
        if (status == SP_OK) {
            status = write_fingerprint(ctx, fp);
        }
    }
    free(fp);
    status = write_launch(ctx, status);
    return sp_ctx_agree(ctx, status);
}

/* One run of a workload: the context and everything the phases below hand on. */
typedef struct {
    sp_ctx_t ctx;
    const sp_workload_t *w;
    void *opts;
    sp_run_opts_t *ro; /* the shared options inside opts */
    sp_run_extras_t x;
    int backend; /* --backend after auto_is_host */
    int signo;   /* the signal that interrupted the run, agreed over the ranks */
    sp_status_t run_status;
    char err[SP_ERRLEN];
    char cmdline[4096];
} run_t;

/* MPI with threads, the world communicator, the log identity, the command line. */
static sp_status_t start_mpi(run_t *r, int *argc, char ***argv)
{
    char host[SP_HOST_LEN];
    int provided = 0;
    int threads = r->w->thread_multiple ||
                  (r->w->thread_multiple_for != NULL && r->w->thread_multiple_for(*argc, *argv, 2));
    int required = threads ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED;

    /* only what the workload needs: a plain MPI program runs at single or funneled, and what
     * MULTIPLE costs a small message is measured in docs/METHODOLOGY.md */
    MPI_Init_thread(argc, argv, required, &provided);
    r->ctx.mpi_thread = provided;
    sp_signals_install();
    MPI_Comm_dup(MPI_COMM_WORLD, &r->ctx.world);
    MPI_Comm_rank(r->ctx.world, &r->ctx.rank);
    MPI_Comm_size(r->ctx.world, &r->ctx.nranks);
    gethostname(host, sizeof(host));
    host[sizeof(host) - 1] = '\0';
    sp_log_set_identity(r->ctx.rank, host);
    join_argv(*argc, *argv, r->cmdline, sizeof(r->cmdline));
    r->ctx.command_line = r->cmdline;
    if (provided < required) {
        bad_input(&r->ctx, r->w->name,
                  required == MPI_THREAD_MULTIPLE
                      ? "the MPI library does not provide MPI_THREAD_MULTIPLE (the workload's "
                        "streams call MPI from threads of their own)"
                      : "the MPI library does not provide MPI_THREAD_FUNNELED (scaleprobe's "
                        "watchdog runs in a thread of its own)");
        return SP_ERR_UNSUPPORTED;
    }
    return SP_OK;
}

/* Options parsed and checked on every rank, the same on every rank, the output path usable.
 * help_p: --help was shown. Collective. */
static sp_status_t parse_options(run_t *r, int argc, char **argv, int *help_p)
{
    const sp_workload_t *w = r->w;
    sp_status_t status;

    r->opts = calloc(1, w->opts_size);
    status = r->opts != NULL ? SP_OK : SP_ERR_NOMEM;
    if (status == SP_OK) {
        r->ro = sp_run_opts_at(r->opts, w->run_opts_offset);
        status = w->parse(argc, argv, 2, r->opts, help_p, r->err, sizeof(r->err));
    }
    if (status == SP_OK && !*help_p && w->check_world != NULL) {
        status = w->check_world(r->opts, r->ctx.nranks, r->err, sizeof(r->err));
    }
    /* every rank parsed the same argv, so they normally agree; agreeing anyway means a rank with
     * a different command line cannot run on alone */
    status = sp_ctx_agree(&r->ctx, status);
    if (status != SP_OK) {
        bad_input(&r->ctx, w->name, r->err[0] ? r->err : sp_status_str(status));
        return status;
    }
    if (*help_p) {
        if (r->ctx.rank == 0) {
            sp_opts_help(w->table, stdout);
        }
        return SP_OK;
    }
    if (w->extras != NULL) {
        w->extras(r->opts, &r->x);
    }
    r->backend = r->ro->backend;
    if (w->auto_is_host && r->backend == SP_BACKEND_AUTO) {
        r->backend = SP_BACKEND_HOST;
    }
    status = check_same_options(&r->ctx, w, r->opts);
    if (status == SP_OK) {
        status = resolve_output(&r->ctx, w, r->ro);
    }
    return status;
}

/* The watchdog, then the backend (its start-up already bounded by --timeout), then every rank's
 * device in the node map. Collective. */
static sp_status_t open_backend(run_t *r)
{
    sp_ctx_t *ctx = &r->ctx;
    sp_backend_config_t cfg;
    sp_status_t status;
    char dev[SP_HOST_LEN];
    char bus[32];

    memset(&cfg, 0, sizeof(cfg));
    cfg.device = (int)r->ro->device;
    cfg.timeout_s = r->ro->timeout;
    cfg.cuda_graph = r->x.cuda_graph;
    cfg.blocking = r->x.blocking;
    cfg.streams = r->x.streams;
    cfg.local_rank = ctx->topo.local_rank;
    cfg.local_size = ctx->topo.local_size;
    status = sp_agree(ctx->world, sp_watchdog_start(ctx->world, cfg.timeout_s, &ctx->watchdog));
    if (status != SP_OK) {
        snprintf(r->err, sizeof(r->err), "cannot start the watchdog thread");
    }
    if (status == SP_OK) {
        sp_watchdog_beat(ctx->watchdog, "opening the backend");
        status = sp_backend_open((sp_backend_kind_t)r->backend, ctx->world, &cfg, &ctx->backend,
                                 r->err, sizeof(r->err));
    }
    if (status != SP_OK) {
        sp_watchdog_stop(ctx->watchdog);
        ctx->watchdog = NULL;
        if (ctx->rank == 0) {
            fprintf(stderr, "scaleprobe %s: error: backend %s: %s\n", r->w->name,
                    sp_backend_names[r->backend], r->err);
        }
        /* asking for a backend this job cannot run is bad input */
        return status == SP_ERR_UNSUPPORTED ? SP_ERR_INVALID : status;
    }
    if (ctx->backend.kind == SP_BACKEND_NCCL) {
        /* the nccl backend bounds its device waits by --timeout itself and reports them
         * (exit 1); the watchdog stays behind it, for waits outside the device */
        sp_watchdog_set_timeout(ctx->watchdog, cfg.timeout_s + SP_WATCHDOG_GRACE_S);
    }
    sp_watchdog_beat(ctx->watchdog, "opening the result file");
    ctx->backend.ops->device_info(ctx->backend.state, dev, sizeof(dev), bus, sizeof(bus));
    sp_topo_gather_devices(&ctx->topo, ctx->world, dev, bus);
    if (ctx->rank == 0 && r->backend == SP_BACKEND_AUTO) {
        fprintf(stderr, "scaleprobe %s: backend auto -> %s%s%s%s\n", r->w->name,
                ctx->backend.ops->name, r->err[0] ? " (" : "", r->err, r->err[0] ? ")" : "");
    }
    return SP_OK;
}

/* The result file, the timeline, the clock model at the start, the workload, then the end
 * synchronization and the timeline written. Returns the run's status (also in r->run_status).
 * Collective. */
static sp_status_t run_workload(run_t *r)
{
    sp_ctx_t *ctx = &r->ctx;
    sp_status_t status = open_result(ctx, r->w, r->opts, r->ro);

    if (status == SP_OK) {
        sp_clock_init(&ctx->clock, ctx->rank);
        status =
            sp_ctx_agree(ctx, sp_timeline_init(&ctx->timeline, ctx->rank, r->x.timeline_events));
    }
    if (status == SP_OK) {
        sp_watchdog_beat(ctx->watchdog, "clock synchronization at the start");
        status =
            sp_clock_sync(&ctx->clock, &ctx->topo, ctx->world, r->x.clock_all, SP_CLOCK_PINGS, 0);
    }
    if (status != SP_OK) {
        r->run_status = status; /* the file, if created, is closed as failed */
        return status;
    }
    r->run_status = r->w->run(ctx, r->opts);
    status = r->run_status;
    if (r->run_status == SP_ERR_INTERRUPTED) {
        /* the signal may have reached other ranks only: every rank takes the same number */
        r->signo = sp_runstop_signal(ctx->world);
    }
    /* the timeline and the clock model are written after the run (the drift needs the end
     * synchronization); a run with wrong data, or stopped by a signal that every rank agreed
     * on (a time limit: its straggler evidence matters most), still writes what it recorded */
    if (status == SP_OK || status == SP_ERR_WRONG_DATA || status == SP_ERR_INTERRUPTED) {
        sp_watchdog_beat(ctx->watchdog, "clock synchronization at the end and the timeline");
        sp_status_t tl_status = finish_timeline(ctx, r->w, r->x.clock_all, r->x.timeline_mpiio);
        status = status == SP_OK ? tl_status : status;
        r->run_status = r->run_status == SP_OK ? tl_status : r->run_status;
    }
    return status;
}

/* Rank 0 closes the result file as complete, partial or failed. Returns status, or the close's
 * failure when status was SP_OK. */
static sp_status_t close_result(run_t *r, sp_status_t status)
{
    sp_ctx_t *ctx = &r->ctx;
    sp_status_t close_status;
    const char *final;

    if (ctx->rank != 0 || ctx->result == NULL) {
        return status;
    }
    /* wrong data is a finding, not a failure of the run: the file is complete */
    final = r->run_status == SP_OK || r->run_status == SP_ERR_WRONG_DATA ? "complete"
            : r->run_status == SP_ERR_INTERRUPTED                        ? "partial"
                                                                         : "failed";
    if (r->run_status == SP_ERR_INTERRUPTED) {
        fprintf(stderr,
                "scaleprobe %s: interrupted by %s: stopped at the next safe point; the result "
                "file keeps everything finished before (status partial)\n",
                r->w->name, sp_signal_name(r->signo));
    }
    close_status = sp_result_close(ctx->result, final);
    ctx->result = NULL;
    if (close_status == SP_OK) {
        fprintf(stdout, "# Result file: %s (status %s)\n", r->ro->output, final);
        fflush(stdout);
    }
    return status == SP_OK ? close_status : status;
}

int sp_runner_main(int argc, char **argv, const sp_workload_t *w)
{
    run_t *r = calloc(1, sizeof(*r));
    sp_status_t status;
    int help = 0;
    int exit_code;

    if (r == NULL) {
        fprintf(stderr, "scaleprobe %s: error: out of memory\n", w->name);
        return 1;
    }
    r->w = w;
    status = start_mpi(r, &argc, &argv);
    if (status == SP_OK) {
        status = parse_options(r, argc, argv, &help);
    }
    if (status != SP_OK || help) {
        goto out_finalize;
    }
    status = sp_agree(r->ctx.world, sp_topo_init(r->ctx.world, &r->ctx.topo));
    if (status == SP_OK && w->check_topology != NULL) {
        status = sp_agree(r->ctx.world, w->check_topology(r->opts, &r->ctx.topo, r->ctx.world,
                                                          r->err, sizeof(r->err)));
        if (status != SP_OK) {
            bad_input(&r->ctx, w->name, r->err[0] ? r->err : sp_status_str(status));
        }
    }
    if (status == SP_OK) {
        status = open_backend(r);
    }
    if (status != SP_OK) {
        goto out_topo;
    }
    status = run_workload(r);
    status = close_result(r, status);
    sp_timeline_cleanup(&r->ctx.timeline);
    sp_watchdog_stop(r->ctx.watchdog);
    if (status != SP_OK) {
        sp_backend_abort(&r->ctx.backend); /* never a destroy that waits on a failed peer */
    }
    sp_backend_close(&r->ctx.backend);
out_topo:
    sp_topo_cleanup(&r->ctx.topo);
out_finalize:
    MPI_Bcast(&status, 1, MPI_INT, 0, r->ctx.world);
    exit_code = sp_status_exit_code(status);
    if (status == SP_ERR_INTERRUPTED && r->signo > 0) {
        exit_code = 128 + r->signo; /* as the shell reports a process the signal ended */
    }
    free(r->opts);
    MPI_Comm_free(&r->ctx.world);
    MPI_Finalize();
    free(r);
    return exit_code;
}

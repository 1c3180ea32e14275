/* `scaleprobe accept` as a workload of the shared runner: node leaders read their node's
 * health, the performance gates run (unless --health-only), the port counters are read again,
 * rank 0 gathers every node, evaluates the spec and writes the table, /accept, JSON, JUnit XML
 * and the exclude list. */
#include "accept_cmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "accept_options.h"
#include "baseline.h"
#include "accept_out.h"
#include "accept_result.h"
#include "log.h"
#include "perf.h"
#include "perf_proxy.h"
#include "program.h"
#include "runner.h"
#include "timeutil.h"
#include "verdict.h"

static sp_status_t accept_parse(int argc, char **argv, int first, void *opts, int *help_p,
                                char *err, size_t errlen)
{
    return sp_accept_opts_parse(argc, argv, first, opts, help_p, err, errlen);
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};

    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* Open path for writing unless it exists without --force; NULL with a message otherwise. */
static FILE *open_out(const char *path, int force)
{
    FILE *f;

    if (!force && access(path, F_OK) == 0) {
        fprintf(stderr, "scaleprobe accept: error: %s exists (use --force to overwrite)\n", path);
        return NULL;
    }
    f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "scaleprobe accept: error: cannot write %s: %s\n", path, strerror(errno));
    }
    return f;
}

static sp_status_t write_files(const sp_accept_opts_t *o, const sp_accept_eval_t *ev)
{
    const char *paths[3] = {o->json, o->junit, o->exclude};
    char created[32];

    sp_time_iso8601(time(NULL), created, sizeof(created));
    for (int k = 0; k < 3; k++) {
        FILE *f;
        int bad;
        if (paths[k][0] == '\0') {
            continue;
        }
        if ((f = open_out(paths[k], o->run.force)) == NULL) {
            return SP_ERR_IO;
        }
        if (k == 0) {
            sp_accept_write_json(f, &o->spec, ev);
        } else if (k == 1) {
            sp_accept_write_junit(f, ev, created);
        } else {
            sp_accept_write_exclude(f, ev);
        }
        bad = ferror(f);
        if (fclose(f) != 0 || bad) {
            fprintf(stderr, "scaleprobe accept: error: writing %s failed\n", paths[k]);
            return SP_ERR_IO;
        }
    }
    return SP_OK;
}

/* Rank 0: verdicts, table, /accept, the files. *failed_p: the job failed. */
static sp_status_t judge(sp_ctx_t *ctx, const sp_accept_opts_t *o, const sp_health_node_t *nodes,
                         const sp_perf_node_t *perf, int *failed_p)
{
    sp_accept_eval_t ev;
    sp_status_t status = sp_accept_evaluate(&o->spec, nodes, perf, ctx->topo.nnodes, &ev);

    if (status != SP_OK) {
        return status;
    }
    sp_accept_print(stdout, &o->spec, &ev);
    fflush(stdout);
    status = sp_accept_result_write(ctx->result, &o->spec, nodes, &ev);
    if (status == SP_OK) {
        status = write_files(o, &ev);
    }
    *failed_p = ev.job == SP_VERDICT_FAIL;
    sp_accept_eval_cleanup(&ev);
    return status;
}

/* The node leaders' records gathered at rank 0 (all, nnodes entries; rank 0 only). */
static sp_status_t gather_nodes(sp_ctx_t *ctx, const sp_health_node_t *mine, sp_health_node_t *all)
{
    int rc = MPI_SUCCESS;

    if (ctx->topo.leader_comm != MPI_COMM_NULL) {
        rc = MPI_Gather(mine, (int)sizeof(*mine), MPI_BYTE, all, (int)sizeof(*mine), MPI_BYTE, 0,
                        ctx->topo.leader_comm);
    }
    return sp_ctx_agree(ctx, rc == MPI_SUCCESS ? SP_OK : SP_ERR_MPI);
}

/* The counters' window without a performance gate: every rank waits for the leaders. */
static void wait_window(const sp_ctx_t *ctx, const sp_accept_opts_t *o)
{
    if (ctx->topo.local_rank == 0 && o->window > 0) {
        sleep_s(o->window);
    }
}

static sp_status_t accept_run(sp_ctx_t *ctx, const void *opts)
{
    const sp_accept_opts_t *o = opts;
    int leader = ctx->topo.local_rank == 0, nnodes = ctx->topo.nnodes;
    int perf_on = !o->health_only && sp_accept_perf_wanted(&o->spec);
    sp_health_src_t src;
    sp_health_node_t *mine = calloc(1, sizeof(*mine));
    sp_health_node_t *all = ctx->rank == 0 ? calloc((size_t)nnodes, sizeof(*all)) : NULL;
    sp_perf_node_t *perf = ctx->rank == 0 ? calloc((size_t)nnodes, sizeof(*perf)) : NULL;
    sp_status_t status =
        mine != NULL && (ctx->rank != 0 || (all != NULL && perf != NULL)) ? SP_OK : SP_ERR_NOMEM;
    int failed = 0;

    memset(&src, 0, sizeof(src));
    /* the option parser bounded both to fit */
    memcpy(src.sys_root, o->sys_root, strlen(o->sys_root) + 1);
    memcpy(src.kernel_log, o->kernel_log, strlen(o->kernel_log) + 1);
    if (status == SP_OK && leader) {
        snprintf(mine->host, sizeof(mine->host), "%s", ctx->topo.host);
        sp_health_read_gpus(mine);
        sp_health_read_host(&src, mine);
        sp_info("accept: health read, port counters before the run taken");
    }
    status = sp_ctx_agree(ctx, status);
    if (status == SP_OK) {
        /* rank 0 matches nodes to types before the gates (a re-run is decided per node) */
        status = gather_nodes(ctx, mine, all);
    }
    if (status == SP_OK && perf_on) {
        status = sp_accept_perf_run(ctx, o, all, perf);
    } else if (status == SP_OK) {
        wait_window(ctx, o);
    }
    if (status == SP_OK) {
        if (leader) {
            sp_health_read_ports_after(&src, mine);
            sp_info("accept: port counters after the run taken");
        }
        status = gather_nodes(ctx, mine, all);
    }
    if (status == SP_OK && ctx->rank == 0) {
        status = judge(ctx, o, all, perf_on ? perf : NULL, &failed);
    }
    status = sp_ctx_agree(ctx, status);
    MPI_Bcast(&failed, 1, MPI_INT, 0, ctx->world);
    free(mine);
    free(all);
    free(perf);
    /* failed checks are a finding, not a failure of the run: the file is complete, exit 1 */
    return status == SP_OK && failed ? SP_ERR_WRONG_DATA : status;
}

/* The proxy step gate's layout against the world: bad input before anything runs. */
static sp_status_t accept_check_world(const void *opts, int nranks, char *err, size_t errlen)
{
    const sp_accept_opts_t *o = opts;

    return o->health_only ? SP_OK : sp__accept_proxy_check_world(&o->spec, nranks, err, errlen);
}

/* The proxy step gate runs the proxy's lanes as streams of their own. */
static void accept_extras(const void *opts, sp_run_extras_t *x)
{
    const sp_accept_opts_t *o = opts;

    x->streams = sp__accept_proxy_check(&o->spec) != NULL ? SP_LANE_COUNT : 0;
}

static const sp_workload_t accept_workload = {
    .name = "accept",
    .table = &sp_accept_opt_table,
    .opts_size = sizeof(sp_accept_opts_t),
    .run_opts_offset = offsetof(sp_accept_opts_t, run),
    .auto_is_host = 0, /* auto: nccl where every rank sees a GPU (the GPU gates need it) */
    .thread_multiple = 1, /* its gates may run the proxy on host streams */
    .parse = accept_parse,
    .check_world = accept_check_world,
    .extras = accept_extras,
    .run = accept_run,
};

int sp_accept_main(int argc, char **argv)
{
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--list-checks") == 0) {
            sp_accept_list_checks(stdout);
            return 0;
        }
        if (strcmp(argv[i], "--make-baseline") == 0) {
            return sp_accept_make_baseline_main(argc, argv);
        }
        if (strcmp(argv[i], "--") == 0) {
            break;
        }
    }
    return sp_runner_main(argc, argv, &accept_workload);
}

/* Harness overhead: scaleprobe's all_reduce time (host backend, the sweep's own measurement
 * path) against a plain MPI_Allreduce loop, in the same job, on the same buffers, interleaved
 * sample by sample so both see the same machine. Prints the ratio of medians per size; 1.00
 * means no overhead.
 * MPI is initialised at the thread level `scaleprobe coll` asks for (funneled), or at the one
 * given ("multiple": what every workload asked for until the thread level became the
 * workload's), so the same run can be repeated at both.
 *   mpirun -np 4 bench_allreduce [maxbytes] [samples] [funneled|multiple] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "context.h"
#include "options.h"
#include "stats.h"
#include "sweep.h"
#include "timeutil.h"


/* The reference: what one writes by hand to time MPI_Allreduce (barrier, k back-to-back calls,
 * max over ranks of time/k). */
static double plain_sample(MPI_Comm comm, const float *send, float *recv, int count, long k)
{
    double mine;
    double worst;
    uint64_t t0;

    MPI_Barrier(comm);
    t0 = sp_time_ns();
    for (long i = 0; i < k; i++) {
        MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM, comm);
    }
    mine = (double)(sp_time_ns() - t0) / 1000.0 / (double)k;
    MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, comm);
    return worst;
}

/* -n 1 (one sample per call, so the two sides alternate), --batch k (0: calibrate, after a
 * warm-up like the sweep's default; the measured calls need none, the plain loop runs between) */
static void parse_fixed(sp_coll_opts_t *opts, long batch)
{
    char kbuf[32];
    char err[256];
    int help;
    char *argv[] = {"scaleprobe", "coll", "-n", "1", "-w", batch ? "0" : "5", "--no-check", "-k",
                    kbuf};

    snprintf(kbuf, sizeof(kbuf), "%ld", batch);
    /* -k 0 is no value (the default calibrates): leave -k out then */
    if (sp_coll_opts_parse(batch > 0 ? 9 : 7, argv, 2, opts, &help, err, sizeof(err)) != SP_OK) {
        fprintf(stderr, "bench: %s\n", err);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

int main(int argc, char **argv)
{
    uint64_t maxbytes = argc > 1 ? strtoull(argv[1], NULL, 0) : 64ull << 20;
    int nsamples = argc > 2 ? atoi(argv[2]) : 50;
    int multiple = argc > 3 && strcmp(argv[3], "multiple") == 0;
    sp_ctx_t ctx;
    sp_sweep_bufs_t bufs;
    MPI_Comm plain;
    const sp_coll_t *coll = sp_coll_get(SP_COLL_ALL_REDUCE);
    double ratios[64];
    int nratios = 0;
    int provided;
    float *send;
    float *recv;
    sp_backend_config_t cfg = {.device = -1, .timeout_s = 60.0};
    char err[256];

    memset(&ctx, 0, sizeof(ctx));
    MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED,
                    &provided);
    MPI_Comm_dup(MPI_COMM_WORLD, &ctx.world);
    MPI_Comm_dup(MPI_COMM_WORLD, &plain);
    MPI_Comm_rank(ctx.world, &ctx.rank);
    MPI_Comm_size(ctx.world, &ctx.nranks);
    if (sp_topo_init(ctx.world, &ctx.topo) != SP_OK) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    cfg.local_rank = ctx.topo.local_rank;
    cfg.local_size = ctx.topo.local_size;
    if (sp_backend_open(SP_BACKEND_HOST, ctx.world, &cfg, &ctx.backend, err, sizeof(err)) !=
            SP_OK ||
        sp_sweep_bufs_init(&ctx, (size_t)maxbytes, 1, &bufs) != SP_OK || nsamples < 1 ||
        nsamples > 1000) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* the plain loop runs on the sweep's own buffers, so both sides touch the same memory */
    send = bufs.send;
    recv = bufs.recv;
    if (ctx.rank == 0) {
        printf("# bench_allreduce: %d ranks, float sum, out-of-place, %d samples per side, "
               "alternating; MPI thread level %s\n",
               ctx.nranks, nsamples,
               provided == MPI_THREAD_MULTIPLE ? "multiple"
               : provided == MPI_THREAD_FUNNELED ? "funneled"
                                                 : "other");
        printf("# %10s %6s %12s %12s %8s\n", "size(B)", "batch", "plain(us)", "sp(us)",
               "sp/plain");
    }
    /* 8 B, 64 B, ... by factor 8, and maxbytes itself last */
    uint64_t sizes[32];
    int nsizes = 0;
    for (uint64_t b = 8; b < maxbytes && nsizes < 31; b *= 8) {
        sizes[nsizes++] = b;
    }
    sizes[nsizes++] = maxbytes;
    for (int si = 0; si < nsizes; si++) {
        uint64_t bytes = sizes[si];
        sp_coll_args_t args;
        sp_coll_opts_t opts;
        double plain_t[1000];
        double sp_t[1000];
        double scratch[1000];
        long k;

        sp_coll_args_init(&args, SP_COLL_ALL_REDUCE, ctx.rank, ctx.nranks, SP_DTYPE_FLOAT,
                          SP_REDOP_SUM, 0, 0, bytes);

        /* the sweep's own calibration picks k; both sides then use it */
        parse_fixed(&opts, 0);
        sp_sweep_measure(&ctx, &opts, coll, &args, &bufs);
        k = ctx.rank == 0 ? (long)bufs.point.row.batch : 0;
        MPI_Bcast(&k, 1, MPI_LONG, 0, ctx.world);
        parse_fixed(&opts, k);
        for (int i = 0; i < 2; i++) { /* warm-up of the plain loop */
            MPI_Allreduce(send, recv, (int)args.counts.param_count, MPI_FLOAT, MPI_SUM, plain);
        }
        for (int i = 0; i < nsamples; i++) {
            plain_t[i] = plain_sample(plain, send, recv, (int)args.counts.param_count, k);
            sp_sweep_measure(&ctx, &opts, coll, &args, &bufs);
            sp_t[i] = bufs.point.row.time_us;
        }
        if (ctx.rank == 0) {
            double pm = sp_stats_median(plain_t, (size_t)nsamples, scratch);
            double sm = sp_stats_median(sp_t, (size_t)nsamples, scratch);
            ratios[nratios++] = sm / pm;

            printf("  %10llu %6ld %12.2f %12.2f %8.3f\n", (unsigned long long)bytes, k, pm, sm,
                   sm / pm);
            fflush(stdout);
        }
    }
    if (ctx.rank == 0) {
        double scratch[64];
        printf("# median ratio over sizes: %.3f (target: within 0.97 .. 1.03)\n",
               sp_stats_median(ratios, (size_t)nratios, scratch));
    }
    sp_sweep_bufs_cleanup(&ctx, &bufs);
    sp_backend_close(&ctx.backend);
    sp_topo_cleanup(&ctx.topo);
    MPI_Comm_free(&plain);
    MPI_Comm_free(&ctx.world);
    MPI_Finalize();
    return 0;
}

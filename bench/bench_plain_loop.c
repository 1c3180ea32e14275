/* A plain MPI_Allreduce loop timed the way the sweep times a point, with none of scaleprobe's
 * harness: per size and place (out-of-place, then in-place), 5 untimed operations, k from the
 * max over ranks of each rank's median of 5 single timed operations (the sweep's rule,
 * sp_sweep_batch_k, with its default batch target and minimum), then SAMPLES samples of a barrier
 * and k back-to-back calls, each the max over ranks of time/k, stopping early after 2 s (the
 * sweep's --max-time). Rank 0 prints one CSV row per point: place,bytes,k,time_us (the median).
 * bench/bench_repeat.sh runs it twice beside two sweeps, to tell the harness's run-to-run spread
 * from the machine's.
 *   mpirun -np P bench_plain_loop [maxbytes (64M)] [samples (100)] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "stats.h"
#include "sweep_batch.h"
#include "timeutil.h"

#define MAX_SAMPLES 1000
#define WARMUP 5
#define BATCH_US 1000.0 /* the sweep's --batch-us default */
#define MIN_BATCH 2     /* the sweep's --min-batch default */
#define MAX_TIME_NS 2000000000ull

/* One batch of k calls after a barrier: this rank's time per call, us. */
static double batch_us(const float *send, float *recv, int count, long k)
{
    uint64_t t0;

    MPI_Barrier(MPI_COMM_WORLD);
    t0 = sp_time_ns();
    for (long i = 0; i < k; i++) {
        MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    }
    return (double)(sp_time_ns() - t0) / 1000.0 / (double)k;
}

/* One point: its k and the median over samples of the max over ranks of time/k. */
static double point(const float *send, float *recv, int count, int samples, long *k_p)
{
    double t[MAX_SAMPLES];
    double scratch[MAX_SAMPLES];
    double mine;
    double worst;
    int n = 0;
    uint64_t start = sp_time_ns();
    int stop = 0;

    for (int i = 0; i < WARMUP; i++) {
        MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    }
    for (int i = 0; i < SP_CALIBRATION_OPS; i++) {
        t[i] = batch_us(send, recv, count, 1);
    }
    mine = sp_stats_median(t, SP_CALIBRATION_OPS, scratch);
    MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    *k_p = sp_sweep_batch_k(worst, BATCH_US, MIN_BATCH);
    while (!stop) {
        mine = batch_us(send, recv, count, *k_p);
        MPI_Allreduce(&mine, &t[n], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        n++;
        stop = n >= samples || sp_time_ns() - start > MAX_TIME_NS;
        MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD); /* rank 0's clock decides, as the sweep */
    }
    return sp_stats_median(t, (size_t)n, scratch);
}

int main(int argc, char **argv)
{
    int provided;
    int rank;
    unsigned long long maxbytes = argc > 1 ? strtoull(argv[1], NULL, 0) : 64ull << 20;
    int samples = argc > 2 ? atoi(argv[2]) : 100;
    float *send;
    float *recv;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc > 3 || maxbytes < 4 || samples < 1 || samples > MAX_SAMPLES) {
        if (rank == 0) {
            fprintf(stderr, "usage: bench_plain_loop [maxbytes >= 4] [samples 1-%d]\n",
                    MAX_SAMPLES);
        }
        MPI_Finalize();
        return 2;
    }
    /* as a user's loop: malloc'd, and every page written before the first call (an untouched
     * calloc'd send buffer would read the kernel's shared zero page) */
    send = malloc(maxbytes);
    recv = malloc(maxbytes);
    if (send == NULL || recv == NULL) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (size_t i = 0; i < maxbytes / sizeof(float); i++) {
        send[i] = (float)(i % 251) * 0.25f;
        recv[i] = 0.0f;
    }
    if (rank == 0) {
        printf("place,bytes,batch,time_us\n");
    }
    for (int in_place = 0; in_place < 2; in_place++) {
        /* 8 B and up by 2x, as `coll -b 8 -e MAX -f 2` */
        for (unsigned long long bytes = 8; bytes <= maxbytes; bytes *= 2) {
            long k = 0;
            double med = point(in_place ? MPI_IN_PLACE : send, recv, (int)(bytes / sizeof(float)),
                               samples, &k);
            if (rank == 0) {
                printf("%s,%llu,%ld,%.3f\n", in_place ? "in" : "out", bytes, k, med);
            }
        }
    }
    free(recv);
    free(send);
    MPI_Finalize();
    return 0;
}

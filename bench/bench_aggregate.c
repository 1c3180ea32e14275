/* Aggregation at scale: a synthetic generator stands in for N ranks (virtual ranks spread over
 * the processes of this job) and pushes their timelines through the same pull-based path a real
 * run uses. Prints rank 0's peak memory and the events written per second; rank 0's memory must
 * not grow with N.
 *   mpirun -np 4 bench_aggregate NVRANKS EVENTS_PER_RANK OUT.h5 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "aggregate.h"
#include "result.h"
#include "coll.h"

typedef struct {
    uint64_t per_rank;
} synth_t;

static uint64_t synth_count(void *arg, int vrank)
{
    (void)vrank;
    return ((const synth_t *)arg)->per_rank;
}

static uint64_t synth_dropped(void *arg, int vrank)
{
    (void)arg;
    (void)vrank;
    return 0;
}

/* Events of a made-up training step: alternating compute and collectives, 10 us apart, with a
 * rank-dependent jitter so they compress like real data rather than like zeros. */
static size_t synth_produce(void *arg, int vrank, uint64_t from, sp_event_rec_t *out, size_t max)
{
    const synth_t *s = arg;
    size_t n = s->per_rank - from < max ? (size_t)(s->per_rank - from) : max;

    for (size_t i = 0; i < n; i++) {
        uint64_t k = from + i;
        sp_event_init(&out[i], vrank, k % 2 ? SP_EV_COLL : SP_EV_COMPUTE);
        out[i].lane = (int16_t)(k % 2);
        out[i].op = (int16_t)(k % 2 ? 0 : -1);
        out[i].step = (int32_t)(k / 1000);
        out[i].layer = (int32_t)(k % 80);
        out[i].bytes = k % 2 ? 1u << 20 : 0;
        out[i].seq = k;
        out[i].start_ns = (int64_t)(k * 10000 + (uint64_t)vrank * 37 % 1000);
        out[i].end_ns = out[i].start_ns + 8000;
    }
    return n;
}

int main(int argc, char **argv)
{
    int nvranks;
    synth_t synth;
    sp_tl_source_t src = {&synth, synth_count, synth_dropped, synth_produce};
    sp_aggregate_stats_t stats;
    sp_result_t *res = NULL;
    int rank;
    int nprocs;
    long rss_before = 0;
    sp_status_t status = SP_OK;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc != 4) {
        if (rank == 0) {
            fprintf(stderr, "usage: bench_aggregate NVRANKS EVENTS_PER_RANK OUT.h5\n");
        }
        MPI_Finalize();
        return 2;
    }
    nvranks = atoi(argv[1]);
    synth.per_rank = strtoull(argv[2], NULL, 10);
    if (rank == 0) {
        sp_result_info_t info = {"bench_aggregate", "bench",      "synthetic", nvranks, 1,
                                 sp_coll_names,     SP_COLL_COUNT};
        struct rusage ru;
        unlink(argv[3]);
        status = sp_result_create(argv[3], 1, &info, &res);
        getrusage(RUSAGE_SELF, &ru);
        rss_before = ru.ru_maxrss;
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (status != SP_OK) {
        MPI_Finalize();
        return 1;
    }
    status = sp_aggregate(MPI_COMM_WORLD, res, nvranks, &src, 8192, 0, &stats);
    if (rank == 0) {
        printf("virtual ranks %6d on %d processes: %10llu events in %.2f s = %.2f M events/s; "
               "rank 0 peak RSS %ld KiB (%ld KiB before aggregation)\n",
               nvranks, nprocs, (unsigned long long)stats.events, stats.seconds,
               (double)stats.events / stats.seconds / 1e6, stats.peak_rss_kib, rss_before);
        sp_result_close(res, status == SP_OK ? "complete" : "failed");
    }
    MPI_Finalize();
    return status == SP_OK ? 0 : 1;
}

/* Accuracy of the host's stand-in for a kernel: a stream compute of D is a timed wait on an
 * absolute deadline plus a short final spin. Prints the overshoot (actual - requested) per
 * compute, as median, p99 and max over all ranks, to put a figure on how exact host compute
 * durations are when ranks share cores.
 *   mpirun -np N bench_compute [duration_us] [count] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "backend.h"
#include "stats.h"
#include "topo.h"

static long sysconf_cores(void)
{
    return sysconf(_SC_NPROCESSORS_ONLN);
}

int main(int argc, char **argv)
{
    double dur_us = argc > 1 ? atof(argv[1]) : 1000.0;
    int count = argc > 2 ? atoi(argv[2]) : 200;
    sp_backend_t be;
    sp_topo_t topo;
    sp_backend_config_t cfg = {.device = -1, .timeout_s = 60.0};
    sp_stream_t *stream = NULL;
    sp_event_t **ev;
    double *over;
    double *all = NULL;
    char err[256];
    int provided;
    int rank;
    int nranks;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (count < 1 || dur_us <= 0 || sp_topo_init(MPI_COMM_WORLD, &topo) != SP_OK) {
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    cfg.local_rank = topo.local_rank;
    cfg.local_size = topo.local_size;
    if (sp_backend_open(SP_BACKEND_HOST, MPI_COMM_WORLD, &cfg, &be, err, sizeof(err)) != SP_OK ||
        be.ops->stream_create(be.state, MPI_COMM_NULL, &stream) != SP_OK) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    ev = calloc((size_t)count + 1, sizeof(*ev));
    over = calloc((size_t)count, sizeof(*over));
    for (int i = 0; i <= count; i++) {
        be.ops->event_create(be.state, &ev[i]);
    }
    /* back to back on the stream, as a proxy's compute ops run */
    be.ops->stream_record(be.state, stream, ev[0]);
    for (int i = 0; i < count; i++) {
        be.ops->stream_compute(be.state, stream, (uint64_t)(dur_us * 1000.0));
        be.ops->stream_record(be.state, stream, ev[i + 1]);
    }
    be.ops->stream_sync(be.state, stream);
    for (int i = 0; i < count; i++) {
        uint64_t ns = 0;
        be.ops->event_elapsed_ns(be.state, ev[i], ev[i + 1], &ns);
        over[i] = (double)ns / 1000.0 - dur_us;
    }
    if (rank == 0) {
        all = calloc((size_t)count * (size_t)nranks, sizeof(*all));
    }
    MPI_Gather(over, count, MPI_DOUBLE, all, count, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        sp_summary_t s;
        size_t n = (size_t)count * (size_t)nranks;
        sp_stats_summarize(all, n, all, &s);
        printf("compute %.0f us x %d on %d ranks (%ld cores online): overshoot median %.1f us, "
               "p99 %.1f us, max %.1f us, min %.1f us\n",
               dur_us, count, nranks, sysconf_cores(), s.median, s.p99, s.max, s.min);
    }
    for (int i = 0; i <= count; i++) {
        be.ops->event_destroy(be.state, ev[i]);
    }
    be.ops->stream_destroy(be.state, stream);
    sp_backend_close(&be);
    sp_topo_cleanup(&topo);
    free(all);
    free(over);
    free(ev);
    MPI_Finalize();
    return 0;
}

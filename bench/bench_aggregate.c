/* Aggregation at disk speed: every process of this job owns virtual ranks whose synthetic
 * timelines (produced before timing) go through the same pull-based path a real run uses, into
 * /timeline/events with each filter in turn, then fsync; `dd if=/dev/zero bs=1M conv=fsync` of
 * the same byte count in the same directory is the disk's speed. Interleaved rounds, medians;
 * prints per filter the event data rate, its ratio to dd, the file size, and rank 0's peak RSS
 * before and after (it must not grow with the ranks or the events).
 *   mpirun -np P bench_aggregate NVRANKS EVENTS_PER_RANK OUT.h5 [FILTERS [ROUNDS]]
 * FILTERS: comma-separated writers, at most four: none, deflate4, shuffle-deflate1 (each producing
 * rank compresses its whole chunks, rank 0 stores them), shuffle-deflate1-rank0 (rank 0 runs the
 * filter on every chunk); default: the file's default. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include "aggregate.h"
#include "coll.h"
#include "bench_fs.h"
#include "result.h"
#include "stats.h"
#include "timeutil.h"

#define MAX_ROUNDS 32
#define MAX_KINDS 5 /* dd and up to four writers */

typedef struct {
    uint64_t per_rank;
    sp_event_rec_t *tmpl; /* per_rank events of virtual rank 0, made before timing */
} synth_t;

/* A writer: a filter of /timeline/events and where it runs */
typedef struct {
    const char *name;
    sp_h5_filter_t filter;
    int producers;
} writer_t;

/* the first three in sp_h5_filter_t order, so writers[f] is filter f written the default way */
static const writer_t writers[] = {
    {"none", SP_H5_FILTER_NONE, 0},
    {"deflate4", SP_H5_FILTER_DEFLATE4, 0},
    {"shuffle-deflate1", SP_H5_FILTER_SHUFFLE_DEFLATE1, 1},
    {"shuffle-deflate1-rank0", SP_H5_FILTER_SHUFFLE_DEFLATE1, 0},
};
#define NWRITERS ((int)(sizeof(writers) / sizeof(writers[0])))

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

/* Events of a made-up training step: alternating compute and collectives, 10 us apart, with
 * jitter so they compress like real data rather than like zeros. */
static void synth_make(synth_t *s)
{
    for (uint64_t k = 0; k < s->per_rank; k++) {
        sp_event_rec_t *e = &s->tmpl[k];
        sp_event_init(e, 0, k % 2 ? SP_EV_COLL : SP_EV_COMPUTE);
        e->lane = (int16_t)(k % 2);
        e->op = (int16_t)(k % 2 ? 0 : -1);
        e->step = (int32_t)(k / 1000);
        e->layer = (int32_t)(k % 80);
        e->bytes = k % 2 ? 1u << 20 : 0;
        e->flops = k % 2 ? 0.0 : 1.5e9;
        e->seq = k;
        e->start_ns = (int64_t)(k * 10000 + k * 7919 % 113);
        e->end_ns = e->start_ns + 8000 + (int64_t)(k * 104729 % 997);
    }
}

/* A copy of the template with the rank and a rank-dependent clock offset: the per-event work a
 * real run's source does (own_produce maps each event to rank 0's clock). */
static size_t synth_produce(void *arg, int vrank, uint64_t from, sp_event_rec_t *out, size_t max)
{
    const synth_t *s = arg;
    size_t n = s->per_rank - from < max ? (size_t)(s->per_rank - from) : max;
    int64_t shift = (int64_t)((uint64_t)vrank * 37 % 1000);

    for (size_t i = 0; i < n; i++) {
        out[i] = s->tmpl[from + i];
        out[i].rank = vrank;
        out[i].start_ns += shift;
        out[i].end_ns += shift;
    }
    return n;
}

static long long file_size(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

static long peak_rss_kib(void)
{
    struct rusage ru;

    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* One aggregation into path with the filter, timed on rank 0 up to the fsync; -1 on failure. */
static double run_once(const char *path, int nvranks, const sp_tl_source_t *src,
                       const writer_t *w, long long *size_p)
{
    sp_result_info_t info = {"bench_aggregate", "bench", "synthetic", nvranks, 1,
                             sp_coll_names,     SP_COLL_COUNT};
    sp_result_t *res = NULL;
    sp_aggregate_stats_t stats;
    sp_status_t status = SP_OK;
    int rank;
    double t = -1.0;
    uint64_t t0;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        unlink(path);
        status = sp_result_create(path, 1, &info, &res);
        if (status == SP_OK) {
            sp_result_set_timeline_filter(res, w->filter);
            sp_result_set_timeline_producers(res, w->producers);
        }
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (status != SP_OK) {
        return -1.0;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = sp_time_ns();
    status = sp_aggregate(MPI_COMM_WORLD, res, nvranks, src, 8192, 0, &stats);
    if (rank == 0) {
        if (status == SP_OK && bench_fsync_path(path) == 0) {
            t = (double)(sp_time_ns() - t0) * 1e-9;
        }
        sp_result_close(res, status == SP_OK ? "complete" : "failed");
        printf("%s: %llu of %llu chunks compressed by the producing ranks, %llu through rank 0's "
               "HDF5 filter pipeline\n",
               w->name, (unsigned long long)stats.chunks,
               (unsigned long long)((stats.events + SP_TL_CHUNK_EVENTS - 1) / SP_TL_CHUNK_EVENTS),
               (unsigned long long)stats.rank0_chunks);
        if (w->producers) {
            printf("%s: %llu chunks compressed by their owners before rank 0 asked\n", w->name,
                   (unsigned long long)stats.ahead_chunks);
        }
        *size_p = file_size(path);
    }
    return t;
}

/* dd of the same bytes into the same directory: the disk's plain write speed. */
static double run_dd(const char *dir, double mbytes)
{
    char cmd[2 * 4096 + 256];
    uint64_t t0;
    int rc;

    snprintf(cmd, sizeof(cmd),
             "dd if=/dev/zero of=%s/bench_aggregate_dd.bin bs=1M count=%.0f conv=fsync "
             "status=none && rm -f %s/bench_aggregate_dd.bin",
             dir, mbytes / 1.048576 + 1.0, dir);
    t0 = sp_time_ns();
    rc = system(cmd);
    return rc == 0 ? (double)(sp_time_ns() - t0) * 1e-9 : -1.0;
}

static int parse_filters(const char *list, const writer_t **out)
{
    int n = 0;
    char buf[256];

    snprintf(buf, sizeof(buf), "%s", list);
    for (char *tok = strtok(buf, ","); tok != NULL; tok = strtok(NULL, ",")) {
        int found = -1;
        for (int f = 0; f < NWRITERS; f++) {
            found = strcmp(tok, writers[f].name) == 0 ? f : found;
        }
        if (found < 0 || n == MAX_KINDS - 1) {
            return -1;
        }
        out[n++] = &writers[found];
    }
    return n;
}

static void print_table(double t[MAX_KINDS][MAX_ROUNDS], int nkinds, int rounds,
                        const writer_t *const *filters, const long long *size, double mbytes)
{
    double med[MAX_KINDS];
    double scratch[MAX_ROUNDS];

    printf("%-22s %9s %9s %9s %10s\n", "writer", "time_s", "MB/s", "vs dd", "file_MB");
    for (int k = 0; k < nkinds; k++) {
        med[k] = sp_stats_median(t[k], (size_t)rounds, scratch);
        printf("%-22s %9.3f %9.1f %9.3f %10.2f\n",
               k == 0 ? "dd conv=fsync" : filters[k - 1]->name, med[k], mbytes / med[k],
               med[0] / med[k], k == 0 ? mbytes : 1e-6 * (double)size[k]);
    }
}

int main(int argc, char **argv)
{
    synth_t synth;
    sp_tl_source_t src = {&synth, synth_count, synth_dropped, synth_produce};
    const writer_t *filters[MAX_KINDS - 1] = {&writers[SP_H5_FILTER_TIMELINE]};
    double t[MAX_KINDS][MAX_ROUNDS];
    long long size[MAX_KINDS] = {0};
    char dir[4096];
    int nfilters = 1;
    int rounds = argc > 5 ? atoi(argv[5]) : 1;
    int rank;
    int nprocs;
    int nvranks;
    int bad = 0;
    long rss_before;
    double load[3] = {0, 0, 0};
    FILE *lf;
    double mbytes;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    nvranks = argc > 3 ? atoi(argv[1]) : 0;
    if (argc > 4) {
        nfilters = parse_filters(argv[4], filters);
    }
    if (argc < 4 || argc > 6 || nvranks < 1 || nfilters < 1 || rounds < 1 ||
        rounds > MAX_ROUNDS) {
        if (rank == 0) {
            fprintf(stderr, "usage: bench_aggregate NVRANKS EVENTS_PER_RANK OUT.h5 "
                            "[none,deflate4,shuffle-deflate1,shuffle-deflate1-rank0 "
                            "[ROUNDS(1-%d)]]\n",
                    MAX_ROUNDS);
        }
        MPI_Finalize();
        return 2;
    }
    synth.per_rank = strtoull(argv[2], NULL, 10);
    synth.tmpl = calloc(synth.per_rank > 0 ? synth.per_rank : 1, sizeof(*synth.tmpl));
    if (synth.tmpl == NULL) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    synth_make(&synth);
    snprintf(dir, sizeof(dir), "%s", argv[3]);
    if (strrchr(dir, '/') != NULL) {
        *strrchr(dir, '/') = '\0';
    } else {
        snprintf(dir, sizeof(dir), ".");
    }
    mbytes = 1e-6 * (double)((uint64_t)nvranks * synth.per_rank * sizeof(sp_event_rec_t));
    rss_before = peak_rss_kib();
    for (int r = 0; r < rounds && !bad; r++) {
        for (int i = 0; i <= nfilters && !bad; i++) {
            int k = (i + r) % (nfilters + 1); /* rotated, so no writer always follows another */
            if (k == 0) {
                MPI_Request req;
                t[0][r] = rank == 0 ? run_dd(dir, mbytes) : 0.0;
                /* the others wait without spinning, as they do while rank 0 aggregates */
                MPI_Ibarrier(MPI_COMM_WORLD, &req);
                sp_aggregate_wait(&req, 20000000);
            } else {
                t[k][r] = run_once(argv[3], nvranks, &src, filters[k - 1], &size[k]);
            }
            bad = rank == 0 && t[k][r] < 0.0;
            MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
        }
    }
    if (rank == 0 && !bad) {
        lf = fopen("/proc/loadavg", "r");
        if (lf == NULL || fscanf(lf, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3) {
            load[0] = load[1] = load[2] = -1.0; /* printed as unknown */
        }
        if (lf != NULL) {
            fclose(lf);
        }
        printf("virtual ranks %d on %d processes: %llu events (%.1f MB of event data), %d "
               "interleaved rounds, medians; load average %.2f %.2f %.2f\n",
               nvranks, nprocs, (unsigned long long)nvranks * synth.per_rank, mbytes, rounds,
               load[0], load[1], load[2]);
        print_table(t, nfilters + 1, rounds, filters, size, mbytes);
        printf("rank 0 peak RSS %ld KiB (%ld KiB before aggregation)\n", peak_rss_kib(),
               rss_before);
    } else if (rank == 0) {
        fprintf(stderr, "bench_aggregate: a write failed\n");
    }
    free(synth.tmpl);
    MPI_Finalize();
    return bad ? 1 : 0;
}

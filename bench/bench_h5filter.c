/* The result file's compression: rank 0 writes every timeline event, so its filter sets how fast a
 * run's events reach the disk. This writes the same synthetic events (a training step's pattern:
 * compute and collectives alternating, rank-dependent jitter) as /timeline/events rows in chunks
 * of 8192 with each filter, and the same bytes with plain write(2), each followed by fsync, in
 * interleaved rounds, and prints per filter the median time, the event data rate, the ratio to
 * the plain write's rate (the disk's speed, as `dd conv=fsync`) and the file size.
 *   bench_h5filter EVENTS ROUNDS DIR
 * No MPI: rank 0's write path alone. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_fs.h"
#include "result.h"
#include "timeline.h"

#define CHUNK 8192
#define MAX_ROUNDS 64

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void make_events(sp_event_rec_t *ev, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        int rank = (int)(k / 4096);
        sp_event_init(&ev[k], rank, k % 2 ? SP_EV_COLL : SP_EV_COMPUTE);
        ev[k].lane = (int16_t)(k % 2);
        ev[k].op = (int16_t)(k % 2 ? 0 : -1);
        ev[k].step = (int32_t)(k % 4096 / 400);
        ev[k].layer = (int32_t)(k % 80);
        ev[k].bytes = k % 2 ? 1u << 20 : 0;
        ev[k].flops = k % 2 ? 0.0 : 1.5e9;
        ev[k].seq = k % 4096;
        ev[k].start_ns = (int64_t)(k % 4096 * 10000 + (uint64_t)rank * 37 % 1000 + k * 7919 % 113);
        ev[k].end_ns = ev[k].start_ns + 8000 + (int64_t)(k * 104729 % 997);
    }
}

/* Plain write of the bytes, then fsync: the disk's speed. */
static double write_plain(const char *path, const sp_event_rec_t *ev, size_t n)
{
    double t0 = now_s();
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const char *p = (const char *)ev;
    size_t left = n * sizeof(*ev);

    if (fd < 0) {
        return -1.0;
    }
    while (left > 0) {
        ssize_t w = write(fd, p, left > (1u << 20) ? (1u << 20) : left);
        if (w <= 0) {
            close(fd);
            return -1.0;
        }
        p += w;
        left -= (size_t)w;
    }
    if (fsync(fd) != 0) {
        close(fd);
        return -1.0;
    }
    close(fd);
    return now_s() - t0;
}

/* The events as an extendible table with the filter, appended a chunk at a time as the
 * aggregation does, then closed and fsynced. */
static double write_h5(const char *path, const sp_event_rec_t *ev, size_t n, sp_h5_filter_t filter)
{
    static const char *const ops[] = {"all_reduce"};
    double t0 = now_s();
    hid_t type = sp__result_event_type(ops, 1);
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t dims[1] = {0};
    hsize_t maxdims[1] = {H5S_UNLIMITED};
    hsize_t chunk[1] = {CHUNK};
    hid_t space = H5Screate_simple(1, dims, maxdims);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hid_t ds;
    int bad = file < 0 || type < 0;

    H5Pset_chunk(dcpl, 1, chunk);
    sp__result_set_filter(dcpl, filter);
    ds = bad ? H5I_INVALID_HID : H5Dcreate2(file, "events", type, space, H5P_DEFAULT, dcpl,
                                            H5P_DEFAULT);
    bad = bad || ds < 0;
    for (size_t at = 0; !bad && at < n; at += CHUNK) {
        hsize_t start[1] = {at};
        hsize_t count[1] = {n - at < CHUNK ? n - at : CHUNK};
        hsize_t size[1] = {at + count[0]};
        hid_t fspace;
        hid_t mspace;
        H5Dset_extent(ds, size);
        fspace = H5Dget_space(ds);
        H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
        mspace = H5Screate_simple(1, count, NULL);
        bad = H5Dwrite(ds, type, mspace, fspace, H5P_DEFAULT, ev + at) < 0;
        H5Sclose(mspace);
        H5Sclose(fspace);
    }
    if (ds >= 0) {
        H5Dclose(ds);
    }
    H5Pclose(dcpl);
    H5Sclose(space);
    if (file >= 0) {
        H5Fclose(file);
    }
    if (type >= 0) {
        H5Tclose(type);
    }
    if (bad || bench_fsync_path(path) != 0) {
        return -1.0;
    }
    return now_s() - t0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a;
    double y = *(const double *)b;

    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    static const char *const names[] = {"plain write+fsync", "hdf5 no filter", "deflate 4",
                                        "shuffle+deflate 1"};
    enum { NKIND = 4 };
    double t[NKIND][MAX_ROUNDS];
    double med[NKIND];
    long long fsize[NKIND] = {0};
    sp_event_rec_t *ev;
    size_t n;
    int rounds;
    char path[NKIND][4096];

    if (argc != 4 || atol(argv[1]) < 1 || atoi(argv[2]) < 1 || atoi(argv[2]) > MAX_ROUNDS) {
        fprintf(stderr, "usage: bench_h5filter EVENTS ROUNDS(1-%d) DIR\n", MAX_ROUNDS);
        return 2;
    }
    n = (size_t)atol(argv[1]);
    rounds = atoi(argv[2]);
    ev = malloc(n * sizeof(*ev));
    if (ev == NULL) {
        return 1;
    }
    make_events(ev, n);
    for (int k = 0; k < NKIND; k++) {
        snprintf(path[k], sizeof(path[k]), "%s/bench_h5filter_%d.%s", argv[3], k, k ? "h5" : "bin");
    }
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < NKIND; i++) {
            int k = (i + r) % NKIND; /* rotate the order so no filter always follows another */
            t[k][r] = k == 0 ? write_plain(path[k], ev, n)
                             : write_h5(path[k], ev, n, (sp_h5_filter_t)(k - 1));
            if (t[k][r] < 0.0) {
                fprintf(stderr, "bench_h5filter: writing %s failed\n", path[k]);
                return 1;
            }
        }
    }
    printf("# %zu events (%.1f MB in memory), %d interleaved rounds, medians; rate = event bytes / "
           "time\n",
           n, 1e-6 * (double)(n * sizeof(*ev)), rounds);
    printf("%-20s %10s %10s %12s %12s\n", "filter", "time_s", "MB/s", "vs plain", "file_MB");
    for (int k = 0; k < NKIND; k++) {
        struct stat st;
        qsort(t[k], (size_t)rounds, sizeof(double), cmp_double);
        med[k] = rounds % 2 ? t[k][rounds / 2] : 0.5 * (t[k][rounds / 2 - 1] + t[k][rounds / 2]);
        fsize[k] = stat(path[k], &st) == 0 ? (long long)st.st_size : -1;
        printf("%-20s %10.3f %10.1f %12.3f %12.2f\n", names[k], med[k],
               1e-6 * (double)(n * sizeof(*ev)) / med[k], med[0] / med[k], 1e-6 * (double)fsize[k]);
        unlink(path[k]);
    }
    free(ev);
    return 0;
}

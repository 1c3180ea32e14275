/* The other way to /timeline: every process writes its own events into one contiguous,
 * uncompressed table with collective parallel HDF5 (MPI-IO), offsets from an MPI_Exscan. */
#include "aggregate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "context.h"
#include "log.h"
#include "timeutil.h"

#ifdef H5_HAVE_PARALLEL
/* Write this process's events at [offset, offset + count) of a table created collectively. */
static sp_status_t write_collective(const char *path, MPI_Comm comm, const sp_event_rec_t *ev,
                                    const char *const *ops, int nops, uint64_t count,
                                    uint64_t offset, uint64_t total, const sp_tl_rank_t *row,
                                    int nprocs)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    hid_t file;
    hid_t group = H5I_INVALID_HID;
    hid_t ev_type = sp__result_event_type(ops, nops);
    hid_t rk_type = sp__result_tl_rank_type();
    hsize_t dims[1];
    herr_t rc = -1;

    H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    file = H5Fopen(path, H5F_ACC_RDWR, fapl);
    if (file >= 0) {
        group = H5Gcreate2(file, "timeline", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    }
    if (group >= 0) {
        /* contiguous and uncompressed: every process writes its own slice in one call */
        hid_t tables[2];
        hid_t types[2] = {ev_type, rk_type};
        hsize_t sizes[2] = {total, (hsize_t)nprocs};
        hsize_t starts[2] = {offset, (hsize_t)row->rank};
        hsize_t counts[2] = {count, 1};
        const void *data[2] = {ev, row};
        const char *names[2] = {"events", "ranks"};
        rc = 0;
        for (int t = 0; t < 2; t++) {
            hid_t fspace;
            hid_t mspace;
            dims[0] = sizes[t];
            fspace = H5Screate_simple(1, dims, NULL);
            tables[t] = H5Dcreate2(group, names[t], types[t], fspace, H5P_DEFAULT, H5P_DEFAULT,
                                   H5P_DEFAULT);
            dims[0] = counts[t] > 0 ? counts[t] : 1;
            mspace = H5Screate_simple(1, dims, NULL);
            if (counts[t] > 0) {
                H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &starts[t], NULL, &counts[t], NULL);
            } else {
                H5Sselect_none(fspace);
                H5Sselect_none(mspace);
            }
            if (tables[t] < 0 || H5Dwrite(tables[t], types[t], mspace, fspace, dxpl, data[t]) < 0) {
                rc = -1;
            }
            H5Sclose(mspace);
            H5Sclose(fspace);
            if (tables[t] >= 0) {
                H5Dclose(tables[t]);
            }
        }
        H5Gclose(group);
    }
    if (file >= 0 && H5Fclose(file) < 0) {
        rc = -1;
    }
    H5Tclose(rk_type);
    H5Tclose(ev_type);
    H5Pclose(dxpl);
    H5Pclose(fapl);
    if (file < 0 || rc < 0) {
        sp_error("collective write of /timeline to %s failed: %s", path,
                 sp__result_h5_error().text);
        return SP_ERR_IO;
    }
    return SP_OK;
}
#endif

sp_status_t sp_aggregate_mpiio(MPI_Comm comm, sp_result_t *res, const sp_tl_source_t *src,
                               const char *const *ops, int nops, sp_aggregate_stats_t *stats_p)
{
#ifdef H5_HAVE_PARALLEL
    char path[4096] = "";
    sp_event_rec_t *ev = NULL;
    sp_tl_rank_t row;
    uint64_t offset = 0;
    uint64_t total = 0;
    uint64_t dropped_total = 0;
    uint64_t t0 = sp_time_ns();
    int rank;
    int nprocs;
    sp_status_t status = SP_OK;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nprocs);
    memset(&row, 0, sizeof(row));
    row.rank = rank;
    row.count = src->count(src->arg, rank);
    row.dropped = src->dropped(src->arg, rank);
    ev = calloc(row.count > 0 ? row.count : 1, sizeof(*ev));
    if (ev == NULL) {
        status = SP_ERR_NOMEM;
    } else if (row.count > 0) {
        src->produce(src->arg, rank, 0, ev, (size_t)row.count);
    }
    if (rank == 0 && status == SP_OK) {
        snprintf(path, sizeof(path), "%s", sp_result_path(res));
        status = sp_result_suspend(res);
    }
    status = sp_agree(comm, status);
    if (status != SP_OK) {
        free(ev);
        if (rank == 0) {
            sp_result_resume(res);
        }
        return status;
    }
    MPI_Bcast(path, (int)sizeof(path), MPI_CHAR, 0, comm);
    MPI_Exscan(&row.count, &offset, 1, MPI_UINT64_T, MPI_SUM, comm);
    if (rank == 0) {
        offset = 0; /* MPI_Exscan leaves rank 0's result undefined */
    }
    row.offset = offset;
    MPI_Allreduce(&row.count, &total, 1, MPI_UINT64_T, MPI_SUM, comm);
    MPI_Allreduce(&row.dropped, &dropped_total, 1, MPI_UINT64_T, MPI_SUM, comm);
    status = sp_agree(
        comm, write_collective(path, comm, ev, ops, nops, row.count, offset, total, &row, nprocs));
    free(ev);
    if (rank == 0) {
        sp_status_t s = sp_result_resume(res);
        status = status == SP_OK ? s : status;
        if (stats_p != NULL) {
            struct rusage ru;
            getrusage(RUSAGE_SELF, &ru);
            stats_p->events = total;
            stats_p->dropped = dropped_total;
            stats_p->seconds = (double)(sp_time_ns() - t0) * 1e-9;
            stats_p->peak_rss_kib = ru.ru_maxrss;
        }
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, comm);
    return status;
#else
    (void)comm;
    (void)res;
    (void)src;
    (void)ops;
    (void)nops;
    (void)stats_p;
    return SP_ERR_UNSUPPORTED;
#endif
}

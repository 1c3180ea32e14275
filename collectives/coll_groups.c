/* /coll/groups and /coll/group_ranks of a split sweep: compound types from the row structs, the
 * writer on the runtime's table helpers, and the reader (coll_groups.h). */
#include "coll_groups.h"

#include <stdlib.h>
#include <string.h>

#include "result_read.h"

hid_t sp__coll_group_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(sp_coll_group_row_t));

#define F(name, type) H5Tinsert(t, #name, HOFFSET(sp_coll_group_row_t, name), type)
    F(row, H5T_NATIVE_UINT64);
    F(group, H5T_NATIVE_INT64);
    F(nranks, H5T_NATIVE_INT32);
    F(first_rank, H5T_NATIVE_INT32);
    F(samples, H5T_NATIVE_UINT32);
    F(converged, H5T_NATIVE_INT8);
    F(time_us, H5T_NATIVE_DOUBLE);
    F(ci_lo_us, H5T_NATIVE_DOUBLE);
    F(ci_hi_us, H5T_NATIVE_DOUBLE);
    F(algbw_gbps, H5T_NATIVE_DOUBLE);
    F(busbw_gbps, H5T_NATIVE_DOUBLE);
    F(wrong, H5T_NATIVE_INT64);
    F(slowest_rank, H5T_NATIVE_INT32);
    F(late_rank, H5T_NATIVE_INT32);
#undef F
    return t;
}

hid_t sp__coll_group_rank_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(sp_coll_group_rank_t));

    H5Tinsert(t, "rank", HOFFSET(sp_coll_group_rank_t, rank), H5T_NATIVE_INT32);
    H5Tinsert(t, "group", HOFFSET(sp_coll_group_rank_t, group), H5T_NATIVE_INT64);
    return t;
}

sp_status_t sp_coll_groups_begin(sp_result_t *res, const char *split, int ngroups,
                                 const sp_coll_group_rank_t *members, int nranks)
{
    hid_t t = sp__coll_group_type();
    sp_status_t status = sp_result_table_create(res, "/coll/groups", t, 64);

    H5Tclose(t);
    if (status == SP_OK) {
        t = sp__coll_group_rank_type();
        status = sp_result_table_create(res, "/coll/group_ranks", t, 1024);
        if (status == SP_OK) {
            status = sp_result_table_append(res, "/coll/group_ranks", t, members, (size_t)nranks);
        }
        H5Tclose(t);
    }
    if (status == SP_OK) {
        status = sp_result_attr_str(res, "/coll", "split", split);
    }
    if (status == SP_OK) {
        status = sp_result_attr_int(res, "/coll", "groups", ngroups);
    }
    return status;
}

sp_status_t sp_coll_groups_append(sp_result_t *res, const sp_coll_group_row_t *rows, int n)
{
    hid_t t = sp__coll_group_type();
    sp_status_t status = sp_result_table_append(res, "/coll/groups", t, rows, (size_t)n);

    H5Tclose(t);
    return status;
}

sp_status_t sp_coll_groups_read(hid_t file, sp_coll_group_row_t **rows_p, size_t *n_p, char *split,
                                size_t len)
{
    hid_t t;
    void *p = NULL;
    sp_status_t status = SP_OK;

    *rows_p = NULL;
    *n_p = 0;
    split[0] = '\0';
    if (H5Lexists(file, "/coll", H5P_DEFAULT) <= 0 ||
        H5Lexists(file, "/coll/groups", H5P_DEFAULT) <= 0) {
        return SP_OK;
    }
    t = sp__coll_group_type();
    status = sp_result_read_table(file, "/coll/groups", t, sizeof(sp_coll_group_row_t), &p, n_p);
    H5Tclose(t);
    *rows_p = p;
    if (status == SP_OK) {
        hid_t g = H5Gopen2(file, "/coll", H5P_DEFAULT);
        if (g < 0 || sp__result_read_attr(g, "split", split, len) != SP_OK) {
            status = SP_ERR_FORMAT;
        }
        if (g >= 0) {
            H5Gclose(g);
        }
    }
    return status;
}

int sp_coll_groups_of_row(const sp_coll_group_row_t *rows, size_t n, uint64_t row, size_t *first_p)
{
    size_t i = 0;
    int count = 0;

    while (i < n && rows[i].row != row) {
        i++;
    }
    *first_p = i;
    while (i + (size_t)count < n && rows[i + (size_t)count].row == row) {
        count++;
    }
    return count;
}

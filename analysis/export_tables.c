/* `scaleprobe export`'s generic CSV writer: any compound table of the file (/proxy/ranks,
 * /node/results, ...) column by column from its HDF5 type, so the CSV has every column the file
 * has, and HDF5 enum columns by the names stored with their type (see export.h). */
#include "export.h"

#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_ROWS 4096

int sp_export_has(const char *file, const char *path)
{
    hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    int has = 0;

    if (f >= 0) {
        /* each component in turn: H5Lexists fails on a missing intermediate group */
        char buf[256];
        snprintf(buf, sizeof(buf), "%s", path);
        has = 1;
        for (char *p = buf + 1; has; p++) {
            if (*p == '/' || *p == '\0') {
                char c = *p;
                *p = '\0';
                has = H5Lexists(f, buf, H5P_DEFAULT) > 0;
                *p = c;
                if (c == '\0') {
                    break;
                }
            }
        }
        H5Fclose(f);
    }
    return has;
}

/* One member of one row as a CSV field. */
static void put_field(FILE *out, hid_t mtype, const char *p)
{
    H5T_class_t cls = H5Tget_class(mtype);
    size_t size = H5Tget_size(mtype);

    if (cls == H5T_INTEGER) {
        int is_signed = H5Tget_sign(mtype) == H5T_SGN_2;
        long long v = 0;
        unsigned long long u = 0;
        if (size == 1) {
            v = is_signed ? *(const int8_t *)p : *(const uint8_t *)p;
        } else if (size == 2) {
            v = is_signed ? *(const int16_t *)p : *(const uint16_t *)p;
        } else if (size == 4) {
            v = is_signed ? *(const int32_t *)p : (long long)*(const uint32_t *)p;
        } else if (size == 8 && is_signed) {
            v = *(const int64_t *)p;
        } else if (size == 8) {
            u = *(const uint64_t *)p;
            fprintf(out, "%llu", u);
            return;
        }
        fprintf(out, "%lld", v);
    } else if (cls == H5T_ENUM) {
        /* the file's own names: the table stores them with the type */
        char name[64];
        sp__export_csv_str(out, H5Tenum_nameof(mtype, p, name, sizeof(name)) >= 0 ? name : "none");
    } else if (cls == H5T_FLOAT) {
        sp__export_csv_double(out, size == 4 ? (double)*(const float *)p : *(const double *)p);
    } else if (cls == H5T_STRING && !H5Tis_variable_str(mtype)) {
        char buf[1024];
        size_t n = size < sizeof(buf) - 1 ? size : sizeof(buf) - 1;
        memcpy(buf, p, n);
        buf[n] = '\0';
        sp__export_csv_str(out, buf);
    }
}

/* The header and every row of the open dataset ds of type mtype (native, compound). */
static sp_status_t write_rows(FILE *out, hid_t ds, hid_t mtype)
{
    int nm = H5Tget_nmembers(mtype);
    size_t rsize = H5Tget_size(mtype);
    hid_t fspace = H5Dget_space(ds);
    hsize_t nrows = 0;
    char *buf = NULL;
    sp_status_t status = SP_OK;
    enum { MAX_COLS = 128 };
    hid_t mt[MAX_COLS];
    size_t off[MAX_COLS];

    if (nm <= 0 || nm > MAX_COLS || H5Sget_simple_extent_ndims(fspace) != 1) {
        H5Sclose(fspace);
        return SP_ERR_FORMAT;
    }
    H5Sget_simple_extent_dims(fspace, &nrows, NULL);
    for (int k = 0; k < nm; k++) {
        char *name = H5Tget_member_name(mtype, (unsigned)k);
        mt[k] = H5Tget_member_type(mtype, (unsigned)k);
        off[k] = H5Tget_member_offset(mtype, (unsigned)k);
        fputs(k > 0 ? "," : "", out);
        sp__export_csv_str(out, name != NULL ? name : "?");
        H5free_memory(name);
    }
    fputc('\n', out);
    buf = malloc(CHUNK_ROWS * rsize);
    status = buf == NULL ? SP_ERR_NOMEM : SP_OK;
    for (hsize_t from = 0; from < nrows && status == SP_OK; from += CHUNK_ROWS) {
        hsize_t count = nrows - from < CHUNK_ROWS ? nrows - from : CHUNK_ROWS;
        hid_t mspace = H5Screate_simple(1, &count, NULL);
        H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &from, NULL, &count, NULL);
        if (H5Dread(ds, mtype, mspace, fspace, H5P_DEFAULT, buf) < 0) {
            status = SP_ERR_FORMAT;
        }
        H5Sclose(mspace);
        for (hsize_t i = 0; i < count && status == SP_OK; i++) {
            for (int k = 0; k < nm; k++) {
                fputs(k > 0 ? "," : "", out);
                put_field(out, mt[k], buf + i * rsize + off[k]);
            }
            fputc('\n', out);
        }
        status = status == SP_OK && ferror(out) ? SP_ERR_IO : status;
    }
    for (int k = 0; k < nm; k++) {
        H5Tclose(mt[k]);
    }
    free(buf);
    H5Sclose(fspace);
    return status;
}

sp_status_t sp_export_table_csv(const char *file, const char *table, FILE *out)
{
    hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t ds = H5I_INVALID_HID;
    hid_t ftype = H5I_INVALID_HID;
    hid_t mtype = H5I_INVALID_HID;
    sp_status_t status = SP_ERR_FORMAT;

    if (f < 0) {
        return SP_ERR_IO;
    }
    ds = H5Dopen2(f, table, H5P_DEFAULT);
    if (ds < 0) {
        goto close_file;
    }
    ftype = H5Dget_type(ds);
    mtype = ftype >= 0 ? H5Tget_native_type(ftype, H5T_DIR_ASCEND) : H5I_INVALID_HID;
    if (mtype >= 0 && H5Tget_class(mtype) == H5T_COMPOUND) {
        status = write_rows(out, ds, mtype);
    }
    if (mtype >= 0) {
        H5Tclose(mtype);
    }
    if (ftype >= 0) {
        H5Tclose(ftype);
    }
    H5Dclose(ds);
close_file:
    H5Fclose(f);
    return status;
}

/* /accept: the verdict tables on the runtime's generic table helpers. */
#include "accept_result.h"

#include "result_read.h"

#include <hdf5.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int32_t node;
    char host[64];
    char type[32];
    int8_t verdict;
    int32_t gpus;
    char nvml[48];
    char governor[32];
    double mem_gib;
    int32_t xids;
    char xid_source[160];
    int32_t ib_ports;
    char ib_source[96];
} node_row_t;

#define STR(t, s, f) sp__result_insert_str(t, #f, HOFFSET(s, f), sizeof(((s *)0)->f))

static hid_t check_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(sp_accept_check_row_t));
    hid_t v = sp__result_enum8(sp_verdict_names, 4, 0);

    H5Tinsert(t, "node", HOFFSET(sp_accept_check_row_t, node), H5T_NATIVE_INT32);
    STR(t, sp_accept_check_row_t, host);
    STR(t, sp_accept_check_row_t, type);
    STR(t, sp_accept_check_row_t, check);
    H5Tinsert(t, "verdict", HOFFSET(sp_accept_check_row_t, verdict), v);
    H5Tinsert(t, "value", HOFFSET(sp_accept_check_row_t, value), H5T_NATIVE_DOUBLE);
    STR(t, sp_accept_check_row_t, value_text);
    STR(t, sp_accept_check_row_t, threshold);
    STR(t, sp_accept_check_row_t, evidence);
    H5Tinsert(t, "spec_line", HOFFSET(sp_accept_check_row_t, spec_line), H5T_NATIVE_INT32);
    H5Tclose(v);
    return t;
}

static hid_t node_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(node_row_t));
    hid_t v = sp__result_enum8(sp_verdict_names, 4, 0);

    H5Tinsert(t, "node", HOFFSET(node_row_t, node), H5T_NATIVE_INT32);
    STR(t, node_row_t, host);
    STR(t, node_row_t, type);
    H5Tinsert(t, "verdict", HOFFSET(node_row_t, verdict), v);
    H5Tinsert(t, "gpus", HOFFSET(node_row_t, gpus), H5T_NATIVE_INT32);
    STR(t, node_row_t, nvml);
    STR(t, node_row_t, governor);
    H5Tinsert(t, "mem_gib", HOFFSET(node_row_t, mem_gib), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "xids", HOFFSET(node_row_t, xids), H5T_NATIVE_INT32);
    STR(t, node_row_t, xid_source);
    H5Tinsert(t, "ib_ports", HOFFSET(node_row_t, ib_ports), H5T_NATIVE_INT32);
    STR(t, node_row_t, ib_source);
    H5Tclose(v);
    return t;
}

static sp_status_t write_checks(sp_result_t *res, const sp_accept_eval_t *ev)
{
    sp_accept_check_row_t *rows = calloc((size_t)ev->nrows + 1, sizeof(*rows));
    hid_t t;
    sp_status_t status;

    if (rows == NULL) {
        return SP_ERR_NOMEM;
    }
    for (int i = 0; i < ev->nrows; i++) {
        const sp_accept_row_t *r = &ev->rows[i];
        rows[i].node = r->node;
        snprintf(rows[i].host, sizeof(rows[i].host), "%s", r->host);
        snprintf(rows[i].type, sizeof(rows[i].type), "%s", r->type);
        snprintf(rows[i].check, sizeof(rows[i].check), "%s", sp_accept_row_check(r));
        rows[i].verdict = (int8_t)r->res.verdict;
        rows[i].value = r->res.value;
        memcpy(rows[i].value_text, r->res.value_text, sizeof(rows[i].value_text));
        memcpy(rows[i].threshold, r->res.threshold, sizeof(rows[i].threshold));
        memcpy(rows[i].evidence, r->res.evidence, sizeof(rows[i].evidence));
        rows[i].spec_line = r->line;
    }
    t = check_type();
    status = sp_result_table_create(res, "/accept/checks", t, 64);
    if (status == SP_OK && ev->nrows > 0) {
        status = sp_result_table_append(res, "/accept/checks", t, rows, (size_t)ev->nrows);
    }
    H5Tclose(t);
    free(rows);
    return status;
}

static sp_status_t write_nodes(sp_result_t *res, const sp_health_node_t *nodes,
                               const sp_accept_eval_t *ev)
{
    node_row_t *rows = calloc((size_t)ev->nnodes + 1, sizeof(*rows));
    hid_t t;
    sp_status_t status;

    if (rows == NULL) {
        return SP_ERR_NOMEM;
    }
    for (int n = 0; n < ev->nnodes; n++) {
        const sp_health_node_t *h = &nodes[n];
        rows[n].node = n;
        snprintf(rows[n].host, sizeof(rows[n].host), "%s", h->host);
        snprintf(rows[n].type, sizeof(rows[n].type), "-");
        for (int i = 0; i < ev->nrows; i++) {
            if (ev->rows[i].node == n) {
                snprintf(rows[n].type, sizeof(rows[n].type), "%s", ev->rows[i].type);
                break;
            }
        }
        rows[n].verdict = (int8_t)ev->node_verdict[n];
        rows[n].gpus = h->ngpus;
        snprintf(rows[n].nvml, sizeof(rows[n].nvml), "%s", h->nvml);
        snprintf(rows[n].governor, sizeof(rows[n].governor), "%s", h->governor);
        rows[n].mem_gib = h->mem_gib;
        rows[n].xids = h->nxids;
        snprintf(rows[n].xid_source, sizeof(rows[n].xid_source), "%s", h->xid_source);
        rows[n].ib_ports = h->nports;
        snprintf(rows[n].ib_source, sizeof(rows[n].ib_source), "%s", h->ib_source);
    }
    t = node_type();
    status = sp_result_table_create(res, "/accept/nodes", t, 64);
    if (status == SP_OK) {
        status = sp_result_table_append(res, "/accept/nodes", t, rows, (size_t)ev->nnodes);
    }
    H5Tclose(t);
    free(rows);
    return status;
}

sp_status_t sp_accept_result_write(sp_result_t *res, const sp_spec_t *spec,
                                   const sp_health_node_t *nodes, const sp_accept_eval_t *ev)
{
    sp_status_t status = sp_result_group_create(res, "/accept");

    if (status == SP_OK) {
        status = sp_result_attr_str(res, "/accept", "spec", spec->path);
    }
    if (status == SP_OK) {
        status = sp_result_attr_str(res, "/accept", "verdict", sp_verdict_names[ev->job]);
    }
    if (status == SP_OK) {
        status = sp_result_attr_int(res, "/accept", "repeats", spec->repeats);
    }
    for (int v = 0; v < 4 && status == SP_OK; v++) {
        char name[16];
        snprintf(name, sizeof(name), "checks_%s", v == SP_VERDICT_NA ? "na" : sp_verdict_names[v]);
        for (char *p = name; *p != '\0'; p++) {
            *p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
        }
        status = sp_result_attr_int(res, "/accept", name, ev->counts[v]);
    }
    if (status == SP_OK) {
        status = write_checks(res, ev);
    }
    if (status == SP_OK) {
        status = write_nodes(res, nodes, ev);
    }
    return status;
}

sp_status_t sp_accept_result_read_checks(const char *path, sp_accept_check_row_t **rows_p,
                                         size_t *n_p)
{
    hid_t f, ds, space, t;
    hssize_t n;
    sp_accept_check_row_t *rows = NULL;
    sp_status_t status = SP_ERR_FORMAT;

    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) {
        return SP_ERR_IO;
    }
    if (H5Lexists(f, "/accept", H5P_DEFAULT) <= 0 ||
        H5Lexists(f, "/accept/checks", H5P_DEFAULT) <= 0) {
        H5Fclose(f);
        return SP_ERR_FORMAT;
    }
    ds = H5Dopen2(f, "/accept/checks", H5P_DEFAULT);
    space = ds >= 0 ? H5Dget_space(ds) : -1;
    n = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    if (n >= 0) {
        hid_t ft = H5Dget_type(ds);
        if (ft < 0 || !sp_result_type_fits(ft)) {
            n = -1; /* a damaged datatype: HDF5 would convert it without checking */
            status = SP_ERR_FORMAT;
        }
        if (ft >= 0) {
            H5Tclose(ft);
        }
    }
    if (n >= 0) {
        rows = calloc((size_t)n + 1, sizeof(*rows));
        t = check_type();
        status = rows == NULL                                                         ? SP_ERR_NOMEM
                 : n == 0 || H5Dread(ds, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) >= 0 ? SP_OK
                                                                                      : SP_ERR_IO;
        H5Tclose(t);
    }
    if (space >= 0) {
        H5Sclose(space);
    }
    if (ds >= 0) {
        H5Dclose(ds);
    }
    H5Fclose(f);
    if (status != SP_OK) {
        free(rows);
        return status;
    }
    *rows_p = rows;
    *n_p = (size_t)n;
    return SP_OK;
}

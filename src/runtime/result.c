/* HDF5 result writer: the file, its root attributes and the groups every run has (/config,
 * /topology, /fingerprint, /launch, /clock); tables and /timeline are in result_tables.c, the
 * workloads' groups in their own folders. Every append is flushed: a killed run leaves every
 * finished point readable. String-valued columns are HDF5 enums, readable by h5dump and h5py. */
#include "result.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "result_internal.h"
#include "timeutil.h"

static sp_status_t make_parent_dirs(const char *path)
{
    char buf[4096];

    if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf)) {
        return SP_ERR_INVALID;
    }
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') {
            continue;
        }
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
            sp_error("cannot create directory %s: %s", buf, strerror(errno));
            return SP_ERR_IO;
        }
        *p = '/';
    }
    return SP_OK;
}

sp_status_t sp_result_check_path(const char *path, int force)
{
    struct stat st;
    char dir[4096];
    char *slash;

    if (path[0] == '\0' || snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir)) {
        return SP_ERR_INVALID;
    }
    if (stat(path, &st) == 0) {
        if (!force) {
            return SP_ERR_EXISTS;
        }
        if (!S_ISREG(st.st_mode) || access(path, W_OK) != 0) {
            return SP_ERR_INVALID;
        }
        return SP_OK;
    }
    /* the nearest existing ancestor must be a writable directory (missing ones get created) */
    for (;;) {
        slash = strrchr(dir, '/');
        if (slash == NULL) {
            snprintf(dir, sizeof(dir), ".");
        } else if (slash == dir) {
            dir[1] = '\0';
        } else {
            *slash = '\0';
        }
        if (stat(dir, &st) == 0) {
            return S_ISDIR(st.st_mode) && access(dir, W_OK | X_OK) == 0 ? SP_OK : SP_ERR_INVALID;
        }
        if (slash == NULL || slash == dir) {
            return SP_ERR_INVALID;
        }
    }
}

sp_status_t sp_result_create(const char *path, int force, const sp_result_info_t *info,
                             sp_result_t **res_p)
{
    sp_result_t *res;
    char created[64];
    sp_status_t status;

    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    status = sp_result_check_path(path, force);
    if (status != SP_OK) {
        return status;
    }
    status = make_parent_dirs(path);
    if (status != SP_OK) {
        return status;
    }
    res = calloc(1, sizeof(*res));
    if (res == NULL) {
        return SP_ERR_NOMEM;
    }
    res->tl_events = res->tl_ranks = res->tl_event_type = res->tl_rank_type = H5I_INVALID_HID;
    res->tl_filter = SP_H5_FILTER_TIMELINE;
    res->tl_producers = SP_TL_PRODUCER_COMPRESS;
    snprintf(res->path, sizeof(res->path), "%s", path);
    res->event_ops = info->event_ops;
    res->nevent_ops = info->nevent_ops;
    /* EXCL closes the race between the check above and the creation */
    res->file = H5Fcreate(path, force ? H5F_ACC_TRUNC : H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
    if (res->file < 0) {
        sp_error("cannot create result file %s: %s", path, sp__result_h5_error().text);
        free(res);
        return SP_ERR_IO;
    }

    sp_time_iso8601(time(NULL), created, sizeof(created));
    status = sp__result_attr_str(res->file, "format", "scaleprobe");
    if (status == SP_OK) {
        status = sp__result_attr_int(res->file, "schema_version", SP_SCHEMA_VERSION);
    }
    if (status == SP_OK) {
        status = sp__result_attr_str(res->file, "tool_version", SP_VERSION);
    }
    if (status == SP_OK) {
        status = sp__result_attr_str(res->file, "created", created);
    }
    if (status == SP_OK) {
        status = sp__result_attr_str(res->file, "command_line", info->command_line);
    }
    if (status == SP_OK) {
        status = sp__result_attr_str(res->file, "subcommand", info->subcommand);
    }
    if (status == SP_OK) {
        status = sp__result_attr_str(res->file, "backend", info->backend);
    }
    if (status == SP_OK) {
        status = sp__result_attr_int(res->file, "world_size", info->world_size);
    }
    if (status == SP_OK) {
        status = sp__result_attr_int(res->file, "node_count", info->node_count);
    }
    if (status == SP_OK) {
        status = sp__result_attr_str(res->file, "status", "partial");
    }
    if (status == SP_OK && H5Fflush(res->file, H5F_SCOPE_GLOBAL) < 0) {
        status = sp__result_h5_fail("flush");
    }
    if (status != SP_OK) {
        sp_result_close(res, "failed");
        return status;
    }
    *res_p = res;
    return SP_OK;
}

sp_status_t sp_result_write_config(sp_result_t *res, const sp_opt_table_t *table, const void *opts)
{
    hid_t group = H5Gcreate2(res->file, "config", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    char value[SP_OPT_STRLEN + 64];
    sp_status_t status = SP_OK;

    if (group < 0) {
        return sp__result_h5_fail("create /config");
    }
    for (int i = 0; i < table->ndefs && status == SP_OK; i++) {
        sp_opts_format(&table->defs[i], opts, value, sizeof(value));
        status = sp__result_attr_str(group, table->defs[i].long_name, value);
    }
    H5Gclose(group);
    return status;
}

sp_status_t sp_result_write_topology(sp_result_t *res, const sp_topo_t *topo)
{
    hid_t group = H5Gcreate2(res->file, "topology", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t type = sp__result_topo_type();
    hid_t ds;
    uint64_t n = 0;
    sp_status_t status;

    if (group < 0) {
        H5Tclose(type);
        return sp__result_h5_fail("create /topology");
    }
    ds = sp__result_create_table(group, "ranks", type,
                                 (hsize_t)(topo->nranks < 1024 ? topo->nranks : 1024));
    if (ds < 0) {
        status = sp__result_h5_fail("create /topology/ranks");
    } else {
        status = sp__result_append_rows(ds, type, &n, topo->ranks, (size_t)topo->nranks);
        H5Dclose(ds);
    }
    if (status == SP_OK) {
        status = sp__result_attr_int(group, "node_count", topo->nnodes);
    }
    H5Tclose(type);
    H5Gclose(group);
    return status;
}

static sp_status_t write_kv_attrs(hid_t group, const sp_kv_t *kv, int n)
{
    sp_status_t status = SP_OK;

    for (int i = 0; i < n && status == SP_OK; i++) {
        status = sp__result_attr_str(group, kv[i].key, kv[i].value);
    }
    return status;
}

/* /fingerprint/ranks and /fingerprint/nodes, with the majority flags computed here. */
static sp_status_t write_fp_tables(hid_t group, sp_fp_rank_t *ranks, int nranks, int nnodes)
{
    sp_fp_node_t *nodes = calloc((size_t)(nnodes > 0 ? nnodes : 1), sizeof(*nodes));
    char ties[SP_FP_FLAGS_LEN];
    hid_t type = -1;
    hid_t ds;
    uint64_t n = 0;
    sp_status_t status;

    if (nodes == NULL) {
        return SP_ERR_NOMEM;
    }
    status = sp_fp_majority(ranks, nranks, nodes, nnodes, NULL, NULL, ties, sizeof(ties));
    if (status == SP_OK) {
        type = sp__result_fp_rank_type();
        ds = sp__result_create_table(group, "ranks", type,
                                     (hsize_t)(nranks > 0 && nranks < 256 ? nranks : 256));
        status = ds < 0 ? sp__result_h5_fail("create /fingerprint/ranks")
                        : sp__result_append_rows(ds, type, &n, ranks, (size_t)nranks);
        if (ds >= 0) {
            H5Dclose(ds);
        }
        H5Tclose(type);
    }
    if (status == SP_OK) {
        n = 0;
        type = sp__result_fp_node_type();
        ds = sp__result_create_table(group, "nodes", type,
                                     (hsize_t)(nnodes > 0 && nnodes < 64 ? nnodes : 64));
        status = ds < 0 ? sp__result_h5_fail("create /fingerprint/nodes")
                        : sp__result_append_rows(ds, type, &n, nodes, (size_t)nnodes);
        if (status == SP_OK) {
            status = sp__result_attr_str(ds, "no_majority", ties);
        }
        if (ds >= 0) {
            H5Dclose(ds);
        }
        H5Tclose(type);
    }
    free(nodes);
    return status;
}

sp_status_t sp_result_write_fingerprint(sp_result_t *res, const sp_kv_t *versions, int nversions,
                                        const sp_kv_t *env, int nenv, sp_fp_rank_t *ranks,
                                        int nranks, int nnodes)
{
    hid_t group = H5Gcreate2(res->file, "fingerprint", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t envg;
    sp_status_t status;

    if (group < 0) {
        return sp__result_h5_fail("create /fingerprint");
    }
    status = write_kv_attrs(group, versions, nversions);
    envg = H5Gcreate2(group, "environment", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (envg < 0) {
        status = status == SP_OK ? sp__result_h5_fail("create /fingerprint/environment") : status;
    } else {
        if (status == SP_OK) {
            status = write_kv_attrs(envg, env, nenv);
        }
        H5Gclose(envg);
    }
    if (status == SP_OK && ranks != NULL) {
        status = write_fp_tables(group, ranks, nranks, nnodes);
    }
    H5Gclose(group);
    return status;
}

sp_status_t sp_result_write_launch(sp_result_t *res, const sp_kv_t *kv, int n)
{
    hid_t group = H5Gcreate2(res->file, "launch", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    sp_status_t status;

    if (group < 0) {
        return sp__result_h5_fail("create /launch");
    }
    status = write_kv_attrs(group, kv, n);
    H5Gclose(group);
    return status;
}

sp_status_t sp_result_write_clock(sp_result_t *res, const sp_clock_rank_t *rows, size_t n,
                                  const char *method, int pings)
{
    hid_t group = H5Gcreate2(res->file, "clock", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t type = sp__result_clock_type();
    hid_t ds;
    uint64_t cur = 0;
    sp_status_t status;

    if (group < 0) {
        H5Tclose(type);
        return sp__result_h5_fail("create /clock");
    }
    ds = sp__result_create_table(group, "ranks", type, 1024);
    status = ds < 0 ? sp__result_h5_fail("create /clock/ranks")
                    : sp__result_append_rows(ds, type, &cur, rows, n);
    if (ds >= 0) {
        H5Dclose(ds);
    }
    if (status == SP_OK) {
        status = sp__result_attr_str(group, "method", method);
    }
    if (status == SP_OK) {
        status = sp__result_attr_int(group, "pings", pings);
    }
    H5Tclose(type);
    H5Gclose(group);
    return status;
}

const char *sp_result_path(const sp_result_t *res)
{
    return res->path;
}

sp_status_t sp_result_suspend(sp_result_t *res)
{
    /* every object must be closed, or HDF5 keeps the file open behind H5Fclose */
    sp_result_timeline_close(res);
    sp__result_close_open(res);
    if (H5Fclose(res->file) < 0) {
        res->file = H5I_INVALID_HID;
        return sp__result_h5_fail("close for a collective write");
    }
    res->file = H5I_INVALID_HID;
    return SP_OK;
}

sp_status_t sp_result_resume(sp_result_t *res)
{
    res->file = H5Fopen(res->path, H5F_ACC_RDWR, H5P_DEFAULT);
    if (res->file < 0) {
        return sp__result_h5_fail("reopen after a collective write");
    }
    return SP_OK;
}

sp_status_t sp_result_close(sp_result_t *res, const char *status_str)
{
    sp_status_t status = SP_OK;

    if (res == NULL) {
        return SP_OK;
    }
    /* reopened first when suspended: the timeline's close flushes the file */
    if (res->file < 0 && sp_result_resume(res) != SP_OK) {
        free(res);
        return SP_ERR_IO;
    }
    sp_result_timeline_close(res);
    if (status_str != NULL) {
        status = sp__result_attr_str(res->file, "status", status_str);
    }
    sp__result_close_open(res);
    if (H5Fclose(res->file) < 0 && status == SP_OK) {
        status = sp__result_h5_fail("close");
    }
    free(res);
    return status;
}

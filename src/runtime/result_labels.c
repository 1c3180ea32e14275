/* Units and descriptions as attributes of every dataset the writer creates, so a reader of the
 * file alone (h5py, HDFView) knows what a column measures (docs/SCHEMA.md, "Units and
 * descriptions"). Column units come from the column names (units.h). */
#include <stdio.h>
#include <string.h>

#include "result_internal.h"
#include "units.h"

/* What each dataset holds; units and dimension labels only for arrays (tables have them per
 * column). A path not listed gets no description. */
static const struct {
    const char *path;
    const char *description;
    const char *units;      /* arrays only */
    const char *dimensions; /* arrays only: what each axis indexes */
} labels[] = {
    {"/coll/results", "one row per measured point (op, dtype, redop, root, bytes, in_place)", NULL,
     NULL},
    {"/coll/samples", "per-sample max over ranks of batch time / batch", NULL, NULL},
    {"/coll/wrong", "ranks with wrong output elements, per /coll/results row", NULL, NULL},
    {"/coll/rank_times", "element [i, r]: rank r's own median time per operation for row i", "us",
     "row of /coll/results, rank"},
    {"/coll/groups", "split sweep: one row per group and point (its busbw with its own rank "
     "count)", NULL, NULL},
    {"/coll/group_ranks", "split sweep: the group of each rank", NULL, NULL},
    {"/topology/ranks", "where each rank runs", NULL, NULL},
    {"/fingerprint/ranks", "per-rank environment fingerprint", NULL, NULL},
    {"/fingerprint/nodes", "per-node environment fingerprint", NULL, NULL},
    {"/clock/ranks", "each rank's clock model against rank 0", NULL, NULL},
    {"/timeline/events", "timed events of every rank on rank 0's clock", NULL, NULL},
    {"/timeline/ranks", "events recorded and dropped per rank", NULL, NULL},
    {"/proxy/info", "the proxy's model, layout and rates", NULL, NULL},
    {"/proxy/ranks", "one row per rank per measured step: step, bubble and communication metrics",
     NULL, NULL},
    {"/node/results", "one row per rank and measured kind", NULL, NULL},
    {"/node/samples", "one row per sample of a node measurement", NULL, NULL},
    {"/node/burn", "one row per rank and burn-in interval", NULL, NULL},
    {"/node/outliers", "flagged ranks and nodes", NULL, NULL},
    {"/links/units", "the measured units (ranks) of the link matrix", NULL, NULL},
    {"/links/pairs", "one row per measurement of a link", NULL, NULL},
    {"/links/samples", "per-sample times of the link measurements", NULL, NULL},
    {"/links/outliers", "slow links and units found", NULL, NULL},
    {"/links/screen", "one row per split of the screening search", NULL, NULL},
    {"/links/bandwidth_gbps", "element [s, d]: bandwidth from unit s to unit d", "GB/s",
     "source unit, destination unit"},
    {"/links/bandwidth_ci_lo", "element [s, d]: lower 95% bound of bandwidth_gbps", "GB/s",
     "source unit, destination unit"},
    {"/links/bandwidth_ci_hi", "element [s, d]: upper 95% bound of bandwidth_gbps", "GB/s",
     "source unit, destination unit"},
    {"/links/latency_us", "element [s, d]: latency from unit s to unit d", "us",
     "source unit, destination unit"},
    {"/links/latency_ci_lo", "element [s, d]: lower 95% bound of latency_us", "us",
     "source unit, destination unit"},
    {"/links/latency_ci_hi", "element [s, d]: upper 95% bound of latency_us", "us",
     "source unit, destination unit"},
    {"/accept/checks", "one row per node and check", NULL, NULL},
    {"/accept/nodes", "one row per node: its verdict", NULL, NULL},
};

/* A scalar UTF-8 string attribute (h5py reads it as str, not bytes). */
static sp_status_t attr_text(hid_t obj, const char *name, const char *value)
{
    hid_t type = H5Tcopy(H5T_C_S1);
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t attr;
    sp_status_t status = SP_OK;

    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    attr = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    if (attr < 0 || H5Awrite(attr, type, &value) < 0) {
        status = sp__result_h5_fail(name);
    }
    if (attr >= 0) {
        H5Aclose(attr);
    }
    H5Sclose(space);
    H5Tclose(type);
    return status;
}

/* `units` of a compound type: a JSON object of every member's units, in member order
 * ({"rank": "", "time_us": "us", ...}). A scalar string: an array attribute would show in
 * h5dump -H where scripts look for the dataset's own extent. */
static sp_status_t column_units(hid_t ds, hid_t type)
{
    char json[8192];
    size_t len = 0;
    int n = H5Tget_nmembers(type);

    len += (size_t)snprintf(json, sizeof(json), "{");
    for (int i = 0; i < n && len < sizeof(json); i++) {
        char *name = H5Tget_member_name(type, (unsigned)i);
        if (name != NULL) {
            len += (size_t)snprintf(json + len, sizeof(json) - len, "%s\"%s\": \"%s\"",
                                    i > 0 ? ", " : "", name, sp_units_of(name));
        }
        H5free_memory(name);
    }
    if (len + 2 > sizeof(json)) {
        return SP_OK; /* more columns than any table has: no units rather than broken JSON */
    }
    snprintf(json + len, sizeof(json) - len, "}");
    return attr_text(ds, "units", json);
}

sp_status_t sp__result_label(hid_t ds, hid_t type)
{
    char path[256];
    sp_status_t status = SP_OK;
    int compound = H5Tget_class(type) == H5T_COMPOUND;

    if (H5Iget_name(ds, path, sizeof(path)) <= 0) {
        return SP_OK;
    }
    if (compound) {
        status = column_units(ds, type);
    }
    for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]) && status == SP_OK; i++) {
        if (strcmp(labels[i].path, path) != 0) {
            continue;
        }
        status = attr_text(ds, "description", labels[i].description);
        if (status == SP_OK && !compound && labels[i].units != NULL) {
            status = attr_text(ds, "units", labels[i].units);
        }
        if (status == SP_OK && !compound && labels[i].dimensions != NULL) {
            status = attr_text(ds, "dimension_labels", labels[i].dimensions);
        }
        break;
    }
    return status;
}

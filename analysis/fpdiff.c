/* Fingerprint differences between two result files (see fpdiff.h). */
#include "fpdiff.h"

#include <hdf5.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "reader.h"
#include "result.h"

enum { FPDIFF_MAX = 64, FPDIFF_LINES = 20 };

static const char *kv_find(const sp_kv_t *kv, int n, const char *key)
{
    for (int i = 0; i < n; i++) {
        if (strcmp(kv[i].key, key) == 0) {
            return kv[i].value;
        }
    }
    return NULL;
}

static void put(sp_fpdiff_t *out, int max, int k, const char *field, const char *a, const char *b)
{
    if (k < max) {
        snprintf(out[k].field, sizeof(out[k].field), "%s", field);
        snprintf(out[k].a, sizeof(out[k].a), "%s", a);
        snprintf(out[k].b, sizeof(out[k].b), "%s", b);
    }
}

int sp_fpdiff_kv(const sp_kv_t *a, int na, const sp_kv_t *b, int nb, sp_fpdiff_t *out, int max)
{
    int k = 0;

    for (int i = 0; i < na; i++) {
        const char *vb = kv_find(b, nb, a[i].key);
        if (vb == NULL || strcmp(vb, a[i].value) != 0) {
            put(out, max, k++, a[i].key, a[i].value, vb != NULL ? vb : "none");
        }
    }
    for (int i = 0; i < nb; i++) {
        if (kv_find(a, na, b[i].key) == NULL) {
            put(out, max, k++, b[i].key, "none", b[i].value);
        }
    }
    return k;
}

int sp_fpdiff_summary_rows(const sp_fp_rank_t *rows, int nrows, sp_kv_t *out, int max)
{
    sp_fp_rank_t *copy;
    sp_fp_node_t *nodes;
    sp_kv_t *maj;
    int nnodes = 0;
    int nmaj = 0;
    int k = 0;
    sp_status_t status;

    for (int i = 0; i < nrows; i++) {
        nnodes = rows[i].node + 1 > nnodes ? rows[i].node + 1 : nnodes;
    }
    copy = calloc((size_t)(nrows > 0 ? nrows : 1), sizeof(*copy));
    nodes = calloc((size_t)(nnodes > 0 ? nnodes : 1), sizeof(*nodes));
    maj = calloc((size_t)sp_fp_nfields, sizeof(*maj));
    status = copy != NULL && nodes != NULL && maj != NULL ? SP_OK : SP_ERR_NOMEM;
    if (status == SP_OK) {
        memcpy(copy, rows, (size_t)nrows * sizeof(*copy));
        status = sp_fp_majority(copy, nrows, nodes, nnodes, maj, &nmaj, NULL, 0);
    }
    if (status == SP_OK && k < max) {
        snprintf(out[k].key, sizeof(out[k].key), "nodes");
        snprintf(out[k].value, sizeof(out[k].value), "%d", nnodes);
        k++;
    }
    if (status == SP_OK && k < max) {
        snprintf(out[k].key, sizeof(out[k].key), "ranks");
        snprintf(out[k].value, sizeof(out[k].value), "%d", nrows);
        k++;
    }
    for (int i = 0; status == SP_OK && i < nmaj && k < max; i++) {
        out[k++] = maj[i];
    }
    free(maj);
    free(nodes);
    free(copy);
    return status == SP_OK ? k : (int)status;
}

sp_status_t sp_fpdiff_summary(const char *path, sp_kv_t *out, int max, int *n_p)
{
    hid_t file;
    hid_t type;
    void *p = NULL;
    size_t n = 0;
    sp_status_t status;
    int k;

    *n_p = 0;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0) {
        return SP_ERR_IO;
    }
    type = sp__result_fp_rank_type();
    status = sp_reader_read_table(file, "/fingerprint/ranks", type, sizeof(sp_fp_rank_t), &p, &n);
    H5Tclose(type);
    H5Fclose(file);
    if (status != SP_OK || n == 0) {
        free(p);
        /* an older file, or one whose rows do not read as today's: no fingerprint to compare */
        return status == SP_ERR_NOMEM ? status : SP_OK;
    }
    k = sp_fpdiff_summary_rows(p, (int)n, out, max);
    free(p);
    if (k < 0) {
        return (sp_status_t)k;
    }
    *n_p = k;
    return SP_OK;
}

void sp_fpdiff_node_value(const sp_fp_rank_t *rows, int nrows, int node, int f, char *buf,
                          size_t len)
{
    int first = -1;

    for (int i = 0; i < nrows; i++) {
        if (rows[i].node != node) {
            continue;
        }
        if (first < 0) {
            first = i;
        }
        if (!sp_fpdiff_listed(rows[i].differs_in, sp_fp_fields[f].name)) {
            sp_fp_field_str(&rows[i], f, buf, len);
            return;
        }
    }
    if (first >= 0) {
        sp_fp_field_str(&rows[first], f, buf, len);
    } else {
        snprintf(buf, len, "?");
    }
}

int sp_fpdiff_listed(const char *list, const char *name)
{
    size_t k = strlen(name);

    for (const char *p = list; (p = strstr(p, name)) != NULL; p += k) {
        if ((p == list || p[-1] == ',') && (p[k] == ',' || p[k] == '\0')) {
            return 1;
        }
    }
    return 0;
}

int sp_fpdiff_files(const char *path_a, const char *path_b, FILE *text, FILE *json)
{
    sp_kv_t *a = calloc(FPDIFF_MAX, sizeof(*a));
    sp_kv_t *b = calloc(FPDIFF_MAX, sizeof(*b));
    sp_fpdiff_t *d = calloc(FPDIFF_MAX * 2, sizeof(*d));
    int na = 0, nb = 0, nd = 0;
    sp_status_t status = a != NULL && b != NULL && d != NULL ? SP_OK : SP_ERR_NOMEM;

    if (status == SP_OK) {
        status = sp_fpdiff_summary(path_a, a, FPDIFF_MAX, &na);
    }
    if (status == SP_OK) {
        status = sp_fpdiff_summary(path_b, b, FPDIFF_MAX, &nb);
    }
    if (status == SP_OK && na > 0 && nb > 0) {
        nd = sp_fpdiff_kv(a, na, b, nb, d, FPDIFF_MAX * 2);
        nd = nd < FPDIFF_MAX * 2 ? nd : FPDIFF_MAX * 2;
    }
    for (int i = 0; text != NULL && i < nd; i++) {
        fprintf(text, "  %s: %s -> %s\n", d[i].field, d[i].a, d[i].b);
    }
    if (json != NULL) {
        fputc('[', json);
        for (int i = 0; i < nd; i++) {
            fprintf(json, "%s{\"field\": ", i > 0 ? ", " : "");
            sp_json_str(json, d[i].field);
            fprintf(json, ", \"a\": ");
            sp_json_str(json, d[i].a);
            fprintf(json, ", \"b\": ");
            sp_json_str(json, d[i].b);
            fputc('}', json);
        }
        fputc(']', json);
    }
    free(d);
    free(b);
    free(a);
    return status == SP_OK ? nd : (int)status;
}

/* "field value (majority M)" for every field named in list, comma-separated. */
static void print_fields(FILE *out, const char *list, const sp_fp_rank_t *rows, int nrows, int node,
                         const sp_fp_rank_t *rank, const sp_kv_t *maj, int nmaj)
{
    char name[64];
    char val[256];
    char ref[256];
    const char *p = list;
    int first = 1;

    while (*p != '\0') {
        size_t k = strcspn(p, ",");
        int f;
        snprintf(name, sizeof(name), "%.*s", (int)k, p);
        p += k + (p[k] == ',');
        f = sp_fp_field_find(name);
        if (f < 0) {
            continue;
        }
        if (rank != NULL) {
            sp_fp_field_str(rank, f, val, sizeof(val));
            sp_fpdiff_node_value(rows, nrows, rank->node, f, ref, sizeof(ref));
        } else {
            const char *m = kv_find(maj, nmaj, name);
            sp_fpdiff_node_value(rows, nrows, node, f, val, sizeof(val));
            snprintf(ref, sizeof(ref), "%s", m != NULL ? m : "?");
        }
        fprintf(out, "%s%s %s (%s %s)", first ? "" : ", ", name, val,
                rank != NULL ? "node" : "majority", ref);
        first = 0;
    }
}

void sp_fpdiff_print_report(const sp_fp_rank_t *rows, int nrows, FILE *out)
{
    sp_fp_rank_t *copy = NULL;
    sp_fp_node_t *nodes = NULL;
    sp_kv_t maj[FPDIFF_MAX];
    char ties[SP_FP_FLAGS_LEN];
    int nnodes = 0, nmaj = 0, ndiff = 0, shown = 0;

    if (nrows <= 0) {
        return;
    }
    for (int i = 0; i < nrows; i++) {
        nnodes = rows[i].node + 1 > nnodes ? rows[i].node + 1 : nnodes;
    }
    copy = calloc((size_t)nrows, sizeof(*copy));
    nodes = calloc((size_t)nnodes, sizeof(*nodes));
    if (copy == NULL || nodes == NULL || sp_fp_field_find("nvlinks") < 0) {
        fprintf(out, "# Fingerprint: out of memory\n");
        goto out;
    }
    memcpy(copy, rows, (size_t)nrows * sizeof(*copy));
    if (sp_fp_majority(copy, nrows, nodes, nnodes, maj, &nmaj, ties, sizeof(ties)) != SP_OK) {
        fprintf(out, "# Fingerprint: /fingerprint/ranks has ranks on no node\n");
        goto out;
    }
#define M(k) (kv_find(maj, nmaj, (k)) != NULL ? kv_find(maj, nmaj, (k)) : "?")
    fprintf(out, "# Fingerprint (majority of %d node%s, %d ranks):\n", nnodes,
            nnodes == 1 ? "" : "s", nrows);
    fprintf(out, "#   cpu %s; nics %s; numa of rank 0: %s\n", M("cpu_model"), M("nics"),
            rows[0].numa);
    if (strcmp(M("gpu_name"), "none") == 0) {
        fprintf(out, "#   gpus %s (nvml %s)\n", M("gpus"), M("nvml"));
    } else {
        fprintf(out,
                "#   gpu %s, driver %s, SM %s MHz, mem %s MHz, %s W, ECC %s, %s NVLinks "
                "(hwloc: %s)\n",
                M("gpu_name"), M("driver"), M("sm_clock_mhz"), M("mem_clock_mhz"),
                M("power_limit_w"), strcmp(M("ecc"), "1") == 0 ? "on" : M("ecc"), M("nvlinks"),
                M("gpus"));
    }
    /* Open MPI's first line goes on with package and build details; the name and version lead */
    fprintf(out,
            "#   versions: kernel %s; mpi %.*s; ucx %s; nccl %s; cuda runtime %s, driver %s; "
            "hdf5 %s\n",
            M("kernel"), (int)strcspn(M("mpi"), ","), M("mpi"), M("ucx"), M("nccl"),
            M("cuda_runtime"), M("cuda_driver"), M("hdf5"));
#undef M
    for (int d = 0; d < nnodes; d++) {
        ndiff += nodes[d].differs;
    }
    if (ndiff == 0) {
        fprintf(out, "#   all %d nodes alike\n", nnodes);
    } else {
        fprintf(out, "#   nodes that differ from the majority:\n");
    }
    for (int d = 0; d < nnodes && ndiff > 0; d++) {
        if (!nodes[d].differs || shown++ >= FPDIFF_LINES) {
            continue;
        }
        fprintf(out, "#     node %d (%s): ", d, nodes[d].host);
        print_fields(out, nodes[d].differs_in, copy, nrows, d, NULL, maj, nmaj);
        fputc('\n', out);
    }
    if (ties[0] != '\0') {
        fprintf(out, "#   no majority across nodes (nothing flagged) for: %s\n", ties);
    }
    shown = 0;
    for (int i = 0; i < nrows; i++) {
        if (!copy[i].differs || shown++ >= FPDIFF_LINES) {
            continue;
        }
        if (shown == 1) {
            fprintf(out, "#   ranks that differ from their node:\n");
        }
        fprintf(out, "#     rank %d (%s, node %d): ", copy[i].rank, copy[i].host, copy[i].node);
        print_fields(out, copy[i].differs_in, copy, nrows, copy[i].node, &copy[i], maj, nmaj);
        fputc('\n', out);
    }
out:
    free(nodes);
    free(copy);
}

/* Environment capture by allow-list with redaction, the versions every run records, and the
 * per-rank fingerprint: its field table, the majority rule and the gather to rank 0. */
#include "fingerprint.h"

#include <ctype.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "hwinfo.h"
#include "log.h"
#include "redact.h"

static const char *const allowed_prefixes[] = {"NCCL_", "UCX_",   "OMPI_", "PMIX_", "SLURM_",
                                               "CUDA_", "NVIDIA_", "HWLOC_", "OMP_"};
static const char *const allowed_names[] = {"LD_LIBRARY_PATH", "PATH", "SCALEPROBE_LOG"};
/* PRECONDITION: Open MPI's OMPI_MCA_*_precondition_transports holds the job's PSM/OFI key */
static const char *const secret_words[] = {"TOKEN",      "SECRET", "KEY",         "PASSWORD",
                                           "PASSWD",     "CREDENTIAL", "PRECONDITION"};

int sp_env_allowed(const char *name)
{
    for (size_t i = 0; i < sizeof(allowed_prefixes) / sizeof(allowed_prefixes[0]); i++) {
        if (strncmp(name, allowed_prefixes[i], strlen(allowed_prefixes[i])) == 0) {
            return 1;
        }
    }
    for (size_t i = 0; i < sizeof(allowed_names) / sizeof(allowed_names[0]); i++) {
        if (strcmp(name, allowed_names[i]) == 0) {
            return 1;
        }
    }
    return 0;
}

int sp_env_secret(const char *name)
{
    char upper[256];
    size_t n = strlen(name);

    if (n >= sizeof(upper)) {
        n = sizeof(upper) - 1;
    }
    for (size_t i = 0; i < n; i++) {
        upper[i] = (char)toupper((unsigned char)name[i]);
    }
    upper[n] = '\0';
    for (size_t i = 0; i < sizeof(secret_words) / sizeof(secret_words[0]); i++) {
        if (strstr(upper, secret_words[i]) != NULL) {
            return 1;
        }
    }
    return 0;
}

static int cmp_kv(const void *a, const void *b)
{
    return strcmp(((const sp_kv_t *)a)->key, ((const sp_kv_t *)b)->key);
}

int sp_env_capture(char *const *env, sp_kv_t *out, int max)
{
    int n = 0;

    for (size_t i = 0; env != NULL && env[i] != NULL && n < max; i++) {
        const char *eq = strchr(env[i], '=');
        size_t len;
        if (eq == NULL) {
            continue;
        }
        len = (size_t)(eq - env[i]);
        if (len == 0 || len >= sizeof(out[n].key)) {
            continue;
        }
        memcpy(out[n].key, env[i], len);
        out[n].key[len] = '\0';
        if (!sp_env_allowed(out[n].key)) {
            continue;
        }
        if (sp_env_secret(out[n].key)) {
            snprintf(out[n].value, sizeof(out[n].value), "<redacted>");
        } else {
            /* an allow-listed name can still hold a credential: a URL's user-info, sshpass -p */
            sp_redact_value(eq + 1, out[n].value, sizeof(out[n].value));
        }
        n++;
    }
    qsort(out, (size_t)n, sizeof(*out), cmp_kv);
    return n;
}

int sp_fingerprint_versions(sp_kv_t *out, int max)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    int n = 0;
    unsigned maj = 0, min = 0, rel = 0;
    struct utsname u;

    if (n < max && MPI_Get_library_version(lib, &len) == MPI_SUCCESS) {
        char *nl = strchr(lib, '\n');
        if (nl != NULL) {
            *nl = '\0'; /* the first line names the library and its version */
        }
        snprintf(out[n].key, sizeof(out[n].key), "mpi_library");
        snprintf(out[n].value, sizeof(out[n].value), "%.255s", lib);
        n++;
    }
    if (n < max && H5get_libversion(&maj, &min, &rel) >= 0) {
        snprintf(out[n].key, sizeof(out[n].key), "hdf5_library");
        snprintf(out[n].value, sizeof(out[n].value), "%u.%u.%u", maj, min, rel);
        n++;
    }
    if (n < max && uname(&u) == 0) {
        snprintf(out[n].key, sizeof(out[n].key), "kernel");
        snprintf(out[n].value, sizeof(out[n].value), "%.64s %.64s %.64s", u.sysname, u.release,
                 u.machine);
        n++;
    }
    return n;
}

/* ---- per-rank fingerprint: the field table ---- */

#define FP_STR(name, scope)                                                                        \
    {#name, offsetof(sp_fp_rank_t, name), sizeof(((sp_fp_rank_t *)0)->name), SP_FP_STR, scope}
#define FP_INT(name, scope) {#name, offsetof(sp_fp_rank_t, name), sizeof(int), SP_FP_INT, scope}

const sp_fp_field_t sp_fp_fields[] = {
    FP_INT(rank, SP_FP_ID),
    FP_INT(node, SP_FP_ID),
    FP_INT(local_rank, SP_FP_ID),
    FP_STR(host, SP_FP_ID),
    FP_STR(cpuset, SP_FP_RANK),
    FP_STR(numa, SP_FP_RANK),
    FP_STR(nics_near, SP_FP_RANK),
    FP_STR(gpu_uuid, SP_FP_RANK),
    FP_STR(gpu_bus_id, SP_FP_RANK),
    FP_STR(gpu_source, SP_FP_RANK),
    FP_STR(cpu_model, SP_FP_COMPARE),
    FP_STR(kernel, SP_FP_COMPARE),
    FP_STR(mpi, SP_FP_COMPARE),
    FP_STR(ucx, SP_FP_COMPARE),
    FP_STR(nccl, SP_FP_COMPARE),
    FP_STR(cuda_runtime, SP_FP_COMPARE),
    FP_STR(cuda_driver, SP_FP_COMPARE),
    FP_STR(hdf5, SP_FP_COMPARE),
    FP_STR(nvml, SP_FP_COMPARE),
    FP_STR(driver, SP_FP_COMPARE),
    FP_STR(nics, SP_FP_COMPARE),
    FP_STR(gpus, SP_FP_COMPARE),
    FP_STR(gpu_name, SP_FP_COMPARE),
    FP_INT(sm_clock_mhz, SP_FP_COMPARE),
    FP_INT(mem_clock_mhz, SP_FP_COMPARE),
    FP_INT(power_limit_w, SP_FP_COMPARE),
    FP_INT(ecc, SP_FP_COMPARE),
    FP_INT(nvlinks, SP_FP_COMPARE),
    FP_INT(sm_clock_now_mhz, SP_FP_RANK),
    FP_INT(mem_clock_now_mhz, SP_FP_RANK),
    FP_STR(throttle, SP_FP_RANK),
    FP_INT(differs, SP_FP_FLAG),
    FP_STR(differs_in, SP_FP_FLAG),
};
const int sp_fp_nfields = (int)(sizeof(sp_fp_fields) / sizeof(sp_fp_fields[0]));

#undef FP_STR
#undef FP_INT

int sp_fp_field_find(const char *name)
{
    for (int f = 0; f < sp_fp_nfields; f++) {
        if (strcmp(sp_fp_fields[f].name, name) == 0) {
            return f;
        }
    }
    return -1;
}

void sp_fp_field_str(const sp_fp_rank_t *r, int f, char *buf, size_t len)
{
    const char *p = (const char *)r + sp_fp_fields[f].offset;
    int v;

    if (sp_fp_fields[f].kind == SP_FP_INT) {
        memcpy(&v, p, sizeof(v));
        snprintf(buf, len, "%d", v);
    } else {
        snprintf(buf, len, "%.*s", (int)sp_fp_fields[f].size, p);
    }
}

sp_status_t sp_fp_field_set(sp_fp_rank_t *r, int f, const char *value)
{
    char *p = (char *)r + sp_fp_fields[f].offset;
    char *end = NULL;
    long v;

    if (sp_fp_fields[f].kind == SP_FP_STR) {
        snprintf(p, sp_fp_fields[f].size, "%s", value);
        return SP_OK;
    }
    v = strtol(value, &end, 10);
    if (end == value || *end != '\0' || v < -1 || v > 1000000000L) {
        return SP_ERR_INVALID;
    }
    int iv = (int)v;
    memcpy(p, &iv, sizeof(iv));
    return SP_OK;
}

/* ---- the majority rule ---- */

enum { FP_VAL_LEN = 128 }; /* the longest field value, NUL included */

/* Append name to a comma-separated list of len bytes (dropped when it does not fit). */
static void flag_add(char *list, size_t len, const char *name)
{
    size_t n = strlen(list);

    if (n + 1 + strlen(name) + 1 <= len) {
        snprintf(list + n, len - n, "%s%s", n > 0 ? "," : "", name);
    }
}

static int cmp_str_p(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The most common of n strings (tmp: room for n pointers). Returns its count; *unique_p is 1
 * when no other value is as common. */
static int mode_of(const char **vals, int n, const char **tmp, const char **mode_p, int *unique_p)
{
    int best = 0;

    *mode_p = n > 0 ? vals[0] : "";
    *unique_p = 0;
    memcpy(tmp, vals, (size_t)n * sizeof(*tmp));
    qsort(tmp, (size_t)n, sizeof(*tmp), cmp_str_p);
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && strcmp(tmp[j], tmp[i]) == 0) {
            j++;
        }
        if (j - i > best) {
            best = j - i;
            *mode_p = tmp[i];
            *unique_p = 1;
        } else if (j - i == best) {
            *unique_p = 0;
        }
        i = j;
    }
    return best;
}

/* Working memory of sp_fp_majority. */
typedef struct {
    char *vals;            /* nranks values of the current field */
    const char **ptrs;     /* a node's values, then the nodes' values */
    const char **tmp;
    const char **node_val; /* each node's value of the current field */
    int *order;            /* ranks by node, lowest rank first */
    int *start;            /* node d's ranks: order[start[d]..start[d+1]) */
    int *fill;
} fp_scratch_t;

static void scratch_free(fp_scratch_t *s)
{
    free(s->fill);
    free(s->start);
    free(s->order);
    free(s->node_val);
    free(s->tmp);
    free(s->ptrs);
    free(s->vals);
}

static sp_status_t scratch_alloc(fp_scratch_t *s, int nranks, int nnodes)
{
    int n = nranks > nnodes ? nranks : nnodes;

    s->vals = calloc((size_t)(nranks > 0 ? nranks : 1), FP_VAL_LEN);
    s->ptrs = calloc((size_t)n + 1, sizeof(*s->ptrs));
    s->tmp = calloc((size_t)n + 1, sizeof(*s->tmp));
    s->node_val = calloc((size_t)nnodes + 1, sizeof(*s->node_val));
    s->order = calloc((size_t)nranks + 1, sizeof(*s->order));
    s->start = calloc((size_t)nnodes + 2, sizeof(*s->start));
    s->fill = calloc((size_t)nnodes + 1, sizeof(*s->fill));
    if (s->vals == NULL || s->ptrs == NULL || s->tmp == NULL || s->node_val == NULL ||
        s->order == NULL || s->start == NULL || s->fill == NULL) {
        scratch_free(s);
        return SP_ERR_NOMEM;
    }
    return SP_OK;
}

/* Order the ranks by node (a counting sort keeps world-rank order inside a node), clear their
 * flags and start every node's row. */
static void group_by_node(sp_fp_rank_t *ranks, int nranks, sp_fp_node_t *nodes, int nnodes,
                          fp_scratch_t *s)
{
    for (int i = 0; i < nranks; i++) {
        s->start[ranks[i].node + 1]++;
        ranks[i].differs = 0;
        ranks[i].differs_in[0] = '\0';
    }
    for (int d = 0; d < nnodes; d++) {
        s->start[d + 1] += s->start[d];
    }
    for (int i = 0; i < nranks; i++) {
        int d = ranks[i].node;
        s->order[s->start[d] + s->fill[d]++] = i;
    }
    for (int d = 0; d < nnodes; d++) {
        sp_fp_node_t *nd = &nodes[d];
        memset(nd, 0, sizeof(*nd));
        nd->node = d;
        nd->nranks = s->start[d + 1] - s->start[d];
        snprintf(nd->host, sizeof(nd->host), "%s",
                 nd->nranks > 0 ? ranks[s->order[s->start[d]]].host : "?");
    }
}

/* Field `name` (its values in s->vals) inside node d: the node's value (s->node_val[d]), the
 * ranks that differ from the node's majority, mixed_in, and the node's key. */
static void field_in_node(sp_fp_rank_t *ranks, sp_fp_node_t *nd, int d, const char *name,
                          fp_scratch_t *s)
{
    int k = nd->nranks;
    const char *mode;
    int unique;
    size_t kl;

    for (int j = 0; j < k; j++) {
        s->ptrs[j] = s->vals + (size_t)s->order[s->start[d] + j] * FP_VAL_LEN;
    }
    if (k == 0) {
        s->node_val[d] = "";
        return;
    }
    if (mode_of(s->ptrs, k, s->tmp, &mode, &unique) < k) {
        flag_add(nd->mixed_in, sizeof(nd->mixed_in), name);
    }
    /* a tie inside the node: its lowest rank speaks for it, and no rank is flagged */
    s->node_val[d] = unique ? mode : s->ptrs[0];
    for (int j = 0; unique && j < k; j++) {
        sp_fp_rank_t *r = &ranks[s->order[s->start[d] + j]];
        if (strcmp(s->ptrs[j], mode) != 0) {
            r->differs = 1;
            flag_add(r->differs_in, sizeof(r->differs_in), name);
        }
    }
    kl = strlen(nd->key);
    if (kl < sizeof(nd->key)) {
        snprintf(nd->key + kl, sizeof(nd->key) - kl, "%s%s=%s", kl > 0 ? ";" : "", name,
                 s->node_val[d]);
    }
}

/* Field `name` across nodes: flag the nodes that differ from the majority of the nodes' values;
 * *mode_p and *unique_p as mode_of. Nodes without ranks (only in a damaged file) have no say. */
static void field_across_nodes(sp_fp_node_t *nodes, int nnodes, const char *name,
                               fp_scratch_t *s, const char **mode_p, int *unique_p)
{
    int m = 0;

    for (int d = 0; d < nnodes; d++) {
        if (nodes[d].nranks > 0) {
            s->ptrs[m++] = s->node_val[d];
        }
    }
    mode_of(s->ptrs, m, s->tmp, mode_p, unique_p);
    for (int d = 0; *unique_p && d < nnodes; d++) {
        if (nodes[d].nranks > 0 && strcmp(s->node_val[d], *mode_p) != 0) {
            nodes[d].differs = 1;
            flag_add(nodes[d].differs_in, sizeof(nodes[d].differs_in), name);
        }
    }
}

sp_status_t sp_fp_majority(sp_fp_rank_t *ranks, int nranks, sp_fp_node_t *nodes, int nnodes,
                           sp_kv_t *majority, int *nmajority_p, char *ties, size_t tieslen)
{
    fp_scratch_t s = {0};
    int nmaj = 0;
    sp_status_t status;

    if (ties != NULL && tieslen > 0) {
        ties[0] = '\0';
    }
    for (int i = 0; i < nranks; i++) {
        if (ranks[i].node < 0 || ranks[i].node >= nnodes) {
            return SP_ERR_INVALID;
        }
    }
    status = scratch_alloc(&s, nranks, nnodes);
    if (status != SP_OK) {
        if (nmajority_p != NULL) {
            *nmajority_p = 0;
        }
        return status;
    }
    group_by_node(ranks, nranks, nodes, nnodes, &s);
    for (int f = 0; f < sp_fp_nfields; f++) {
        const char *name = sp_fp_fields[f].name;
        const char *mode;
        int unique;

        if (sp_fp_fields[f].scope != SP_FP_COMPARE) {
            continue;
        }
        for (int i = 0; i < nranks; i++) {
            sp_fp_field_str(&ranks[i], f, s.vals + (size_t)i * FP_VAL_LEN, FP_VAL_LEN);
        }
        for (int d = 0; d < nnodes; d++) {
            field_in_node(ranks, &nodes[d], d, name, &s);
        }
        field_across_nodes(nodes, nnodes, name, &s, &mode, &unique);
        if (!unique && nnodes > 0 && ties != NULL) {
            flag_add(ties, tieslen, name);
        }
        if (majority != NULL) {
            snprintf(majority[nmaj].key, sizeof(majority[nmaj].key), "%s", name);
            snprintf(majority[nmaj].value, sizeof(majority[nmaj].value), "%s",
                     unique ? mode : "mixed");
            nmaj++;
        }
    }
    scratch_free(&s);
    if (nmajority_p != NULL) {
        *nmajority_p = nmaj;
    }
    return status;
}

/* ---- collection and gather ---- */

/* Copy src into out of len bytes, cut to fit. */
static void copy_cut(char *out, size_t len, const char *src)
{
    size_t k = strnlen(src, len - 1);

    memcpy(out, src, k);
    out[k] = '\0';
}

static void kv_copy(const sp_kv_t *kv, int n, const char *key, char *out, size_t len)
{
    for (int i = 0; i < n; i++) {
        if (strcmp(kv[i].key, key) == 0 && kv[i].value[0] != '\0') {
            copy_cut(out, len, kv[i].value);
            return;
        }
    }
}

static void set_if_empty(char *field, size_t len, const char *value)
{
    if (field[0] == '\0') {
        snprintf(field, len, "%s", value);
    }
}

/* Test-only: SCALEPROBE_TEST_FINGERPRINT="field=value" replaces one field of this rank, so the
 * end-to-end test can make one rank differ without a second kind of machine. */
static void test_override(sp_fp_rank_t *r)
{
    const char *v = getenv("SCALEPROBE_TEST_FINGERPRINT");
    char name[64];
    const char *eq;
    int f;

    if (v == NULL || v[0] == '\0') {
        return;
    }
    eq = strchr(v, '=');
    if (eq == NULL || (size_t)(eq - v) >= sizeof(name)) {
        sp_warn("SCALEPROBE_TEST_FINGERPRINT=%s ignored: expected FIELD=VALUE", v);
        return;
    }
    snprintf(name, sizeof(name), "%.*s", (int)(eq - v), v);
    f = sp_fp_field_find(name);
    if (f < 0 || sp_fp_fields[f].scope == SP_FP_ID || sp_fp_fields[f].scope == SP_FP_FLAG ||
        sp_fp_field_set(r, f, eq + 1) != SP_OK) {
        sp_warn("SCALEPROBE_TEST_FINGERPRINT=%s ignored: no such field or a bad value", v);
    }
}

void sp_fp_collect(const sp_topo_t *topo, const sp_kv_t *backend_kv, int nbackend,
                   const char *bus_id, sp_fp_rank_t *out)
{
    sp_kv_t versions[4];
    int nv;
    struct utsname u;

    memset(out, 0, sizeof(*out));
    out->rank = topo->rank;
    out->node = topo->node;
    out->local_rank = topo->local_rank;
    snprintf(out->host, sizeof(out->host), "%s", topo->host);
    out->sm_clock_mhz = out->mem_clock_mhz = out->power_limit_w = out->ecc = out->nvlinks = -1;
    out->sm_clock_now_mhz = out->mem_clock_now_mhz = -1;

    sp_hwinfo_hwloc(out);
    sp_hwinfo_cpu_model(out);
    nv = sp_fingerprint_versions(versions, 4);
    kv_copy(versions, nv, "mpi_library", out->mpi, sizeof(out->mpi));
    kv_copy(versions, nv, "hdf5_library", out->hdf5, sizeof(out->hdf5));
    if (uname(&u) == 0) {
        snprintf(out->kernel, sizeof(out->kernel), "%.63s", u.release);
    }
    if (backend_kv != NULL) {
        kv_copy(backend_kv, nbackend, "nccl_version_library", out->nccl, sizeof(out->nccl));
        kv_copy(backend_kv, nbackend, "cuda_runtime", out->cuda_runtime,
                sizeof(out->cuda_runtime));
        kv_copy(backend_kv, nbackend, "cuda_driver", out->cuda_driver, sizeof(out->cuda_driver));
    }
    sp_hwinfo_nvml(bus_id, topo->local_rank, out);
    sp_hwinfo_libs(out);
    set_if_empty(out->mpi, sizeof(out->mpi), "unknown");
    set_if_empty(out->hdf5, sizeof(out->hdf5), "unknown");
    set_if_empty(out->kernel, sizeof(out->kernel), "unknown");
    set_if_empty(out->driver, sizeof(out->driver), "none");
    set_if_empty(out->gpu_name, sizeof(out->gpu_name), "none");
    set_if_empty(out->gpu_uuid, sizeof(out->gpu_uuid), "none");
    set_if_empty(out->gpu_bus_id, sizeof(out->gpu_bus_id), "none");
    test_override(out);
}

sp_status_t sp_fp_gather(MPI_Comm comm, const sp_topo_t *topo, const sp_kv_t *backend_kv,
                         int nbackend, const char *bus_id, sp_fp_rank_t **all_p)
{
    sp_fp_rank_t mine;
    sp_fp_rank_t *all = NULL;
    int ok;

    *all_p = NULL;
    sp_fp_collect(topo, backend_kv, nbackend, bus_id, &mine);
    if (topo->rank == 0) {
        all = calloc((size_t)topo->nranks, sizeof(*all));
    }
    /* rank 0 failing to allocate must not leave the others in the gather: agree first */
    ok = topo->rank != 0 || all != NULL;
    MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
    if (!ok) {
        sp_error("cannot allocate the fingerprints of %d ranks", topo->nranks);
        return SP_ERR_NOMEM;
    }
    MPI_Gather(&mine, (int)sizeof(mine), MPI_BYTE, all, (int)sizeof(mine), MPI_BYTE, 0, comm);
    *all_p = all;
    return SP_OK;
}

/* compare: what differs between two files (environment, fingerprint, versions, launch, options,
 * shape, backend), communication settings first. */
#include "compare_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpdiff.h"
#include "json.h"
#include "kv.h"
#include "reader_probe.h"

#define MAX_KV 512

typedef struct {
    sp_kv_t *kv;
    int n;
} kv_list_t;

/* The attributes of group `path` of a file (none when it does not exist). */
static void read_kv(const char *file, const char *path, kv_list_t *l)
{
    /* in a child process: a damaged attribute table cannot crash compare (none shown then) */
    l->n = sp_reader_attrs(file, path, l->kv, MAX_KV);
    l->n = l->n < 0 ? 0 : l->n;
}

static const char *kv_get(const kv_list_t *l, const char *key)
{
    for (int i = 0; i < l->n; i++) {
        if (strcmp(l->kv[i].key, key) == 0) {
            return l->kv[i].value;
        }
    }
    return NULL;
}

/* Variables the launcher sets anew for every job (ids, ports, session directories), and the
 * options naming the run's output: they differ between any two runs and explain nothing. */
static int volatile_name(const char *k)
{
    static const char *const prefixes[] = {"PMIX_",
                                           "OMPI_MCA_orte_",
                                           "OMPI_MCA_ess_",
                                           "OMPI_COMM_WORLD_",
                                           "OMPI_FILE_LOCATION",
                                           "OMPI_ARGV",
                                           "OMPI_COMMAND",
                                           "OMPI_APP_CTX_",
                                           "OMPI_FIRST_RANKS",
                                           "OMPI_UNIVERSE_SIZE",
                                           "OMPI_NUM_APP_CTX",
                                           "OMPI_MCA_initial_wdir",
                                           "SLURM_JOB_ID",
                                           "SLURM_JOBID",
                                           "SLURM_STEP_ID",
                                           "SLURM_STEPID",
                                           "SLURM_TASK_PID",
                                           "SLURM_PROCID",
                                           "SLURM_LOCALID",
                                           "SLURM_NODEID",
                                           "SLURM_SRUN_COMM_",
                                           "SLURM_LAUNCH_NODE_IPADDR",
                                           "SLURM_JOB_START_TIME",
                                           "SLURM_JOB_END_TIME",
                                           "SLURM_STEP_LAUNCHER_PORT",
                                           "SLURM_TOPOLOGY_ADDR",
                                           /* options that name the run's own output */
                                           "output",
                                           "force"};

    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
        if (strncmp(k, prefixes[i], strlen(prefixes[i])) == 0) {
            return 1;
        }
    }
    return 0;
}


static void emit_diff(emit_t *e, const char *what, const char *key, const char *a, const char *b)
{
    if (e->json) {
        fprintf(e->out, "%s\n    {\"what\": ", e->n ? "," : "");
        sp_json_str(e->out, what);
        fprintf(e->out, ", \"key\": ");
        sp_json_str(e->out, key);
        fprintf(e->out, ", \"a\": ");
        sp_json_str(e->out, a);
        fprintf(e->out, ", \"b\": ");
        sp_json_str(e->out, b);
        fputc('}', e->out);
    } else {
        fprintf(e->out, "#   %s%s%s: A %s, B %s\n", what, key[0] ? " " : "", key, a, b);
    }
    e->n++;
}

/* Emit the keys whose values differ between a and b; first pass NCCL_ and UCX_ names only
 * (communication settings explain the most), second pass the rest. */
static void diff_kv(emit_t *e, const char *what, const kv_list_t *a, const kv_list_t *b,
                    int comm_first, int only_pass)
{
    for (int pass = 0; pass < (comm_first ? 2 : 1); pass++) {
        if (only_pass >= 0 && pass != only_pass) {
            continue;
        }
        for (int side = 0; side < 2; side++) {
            const kv_list_t *x = side ? b : a, *y = side ? a : b;
            for (int i = 0; i < x->n; i++) {
                const char *k = x->kv[i].key;
                const char *other = kv_get(y, k);
                int comm = strncmp(k, "NCCL_", 5) == 0 || strncmp(k, "UCX_", 4) == 0;
                if ((comm_first && comm != (pass == 0)) || volatile_name(k)) {
                    continue;
                }
                if (side == 1 && other != NULL) {
                    continue; /* keys in both were handled from a's side */
                }
                if (other == NULL || strcmp(other, x->kv[i].value) != 0) {
                    const char *mine = x->kv[i].value, *theirs = other ? other : "(unset)";
                    emit_diff(e, what, k, side ? theirs : mine, side ? mine : theirs);
                }
            }
        }
    }
}

/* The majority fingerprints (fpdiff.h) of two files, field by field; node and rank counts are
 * the shape, emitted apart. */
static void emit_fingerprint(const char *pa, const char *pb, emit_t *e)
{
    sp_kv_t *fa = calloc(2 * MAX_KV, sizeof(sp_kv_t));
    sp_fpdiff_t *d = calloc(MAX_KV, sizeof(sp_fpdiff_t));
    int na = 0, nb = 0, nd;

    if (fa != NULL && d != NULL && sp_fpdiff_summary(pa, fa, MAX_KV, &na) == SP_OK &&
        sp_fpdiff_summary(pb, fa + MAX_KV, MAX_KV, &nb) == SP_OK && na > 0 && nb > 0) {
        nd = sp_fpdiff_kv(fa, na, fa + MAX_KV, nb, d, MAX_KV);
        for (int i = 0; i < nd && i < MAX_KV; i++) {
            if (strcmp(d[i].field, "nodes") != 0 && strcmp(d[i].field, "ranks") != 0) {
                emit_diff(e, "fingerprint", d[i].field, d[i].a, d[i].b);
            }
        }
    }
    free(fa);
    free(d);
}

/* What differs between the first runs of the two sides. */
void sp__cmp_emit_differences(const sp_reader_t *a, const sp_reader_t *b, emit_t *e)
{
    kv_list_t ea = {calloc(MAX_KV, sizeof(sp_kv_t)), 0}, eb = {calloc(MAX_KV, sizeof(sp_kv_t)), 0};

    if (ea.kv != NULL && eb.kv != NULL) {
        read_kv(a->path, "/fingerprint/environment", &ea);
        read_kv(b->path, "/fingerprint/environment", &eb);
        diff_kv(e, "environment", &ea, &eb, 1, 0);
        emit_fingerprint(a->path, b->path, e);
        diff_kv(e, "environment", &ea, &eb, 1, 1);
        read_kv(a->path, "/fingerprint", &ea);
        read_kv(b->path, "/fingerprint", &eb);
        diff_kv(e, "version", &ea, &eb, 0, -1);
        read_kv(a->path, "/launch", &ea);
        read_kv(b->path, "/launch", &eb);
        diff_kv(e, "launch", &ea, &eb, 0, -1);
        read_kv(a->path, "/config", &ea);
        read_kv(b->path, "/config", &eb);
        diff_kv(e, "option", &ea, &eb, 0, -1);
    }
    if (a->world_size != b->world_size || a->node_count != b->node_count) {
        char va[64], vb[64];
        snprintf(va, sizeof(va), "%d ranks on %d nodes", a->world_size, a->node_count);
        snprintf(vb, sizeof(vb), "%d ranks on %d nodes", b->world_size, b->node_count);
        emit_diff(e, "shape", "", va, vb);
    }
    if (strcmp(a->backend, b->backend) != 0) {
        emit_diff(e, "backend", "", a->backend, b->backend);
    }
    free(ea.kv);
    free(eb.kv);
}

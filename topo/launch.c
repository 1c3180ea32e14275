/* Launcher, Slurm job and PML detection (see launch.h). */
#include "launch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *env_get(char *const *env, const char *name)
{
    size_t n = strlen(name);

    for (size_t i = 0; env != NULL && env[i] != NULL; i++) {
        if (strncmp(env[i], name, n) == 0 && env[i][n] == '=') {
            return env[i] + n + 1;
        }
    }
    return NULL;
}

static const char *launcher(char *const *env)
{
    const char *ns = env_get(env, "PMIX_NAMESPACE");

    if (env_get(env, "OMPI_MCA_orte_hnp_uri") != NULL) {
        return "mpirun"; /* ORTE's daemons start the ranks, also inside a Slurm allocation */
    }
    if (ns != NULL && strncmp(ns, "prterun-", 8) == 0) {
        return "mpirun"; /* Open MPI 5: PRRTE's namespace, also inside a Slurm allocation */
    }
    if (ns != NULL && strncmp(ns, "slurm.pmix.", 11) == 0) {
        return "srun"; /* Slurm's PMIx plugin */
    }
    if (env_get(env, "PMIX_RANK") != NULL) {
        return env_get(env, "SLURM_STEP_ID") != NULL ? "srun" : "pmix";
    }
    if (env_get(env, "PMI_RANK") != NULL) { /* PMI-1/2: srun --mpi=pmi2, MPICH's hydra */
        return env_get(env, "SLURM_STEP_ID") != NULL ? "srun" : "pmi";
    }
    return "singleton";
}

int sp_launch_describe(char *const *env, sp_kv_t *out, int max)
{
    static const struct {
        const char *key;
        const char *var;
        const char *fallback; /* read when var is not set */
    } fields[] = {
        {"slurm_job_id", "SLURM_JOB_ID", NULL},
        {"slurm_step_id", "SLURM_STEP_ID", NULL},
        {"slurm_job_nodelist", "SLURM_JOB_NODELIST", NULL},
        {"slurm_job_num_nodes", "SLURM_JOB_NUM_NODES", "SLURM_NNODES"},
        {"slurm_ntasks", "SLURM_NTASKS", "SLURM_NPROCS"},
        {"slurm_tasks_per_node", "SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE"},
        {"slurm_cpus_per_task", "SLURM_CPUS_PER_TASK", NULL},
        {"slurm_gpus_per_task", "SLURM_GPUS_PER_TASK", NULL},
        {"slurm_partition", "SLURM_JOB_PARTITION", NULL},
        {"slurm_cluster_name", "SLURM_CLUSTER_NAME", NULL},
    };
    int n = 0;

    if (n < max) {
        snprintf(out[n].key, sizeof(out[n].key), "launcher");
        snprintf(out[n].value, sizeof(out[n].value), "%s", launcher(env));
        n++;
    }
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]) && n < max; i++) {
        const char *v = env_get(env, fields[i].var);
        if (v == NULL && fields[i].fallback != NULL) {
            v = env_get(env, fields[i].fallback);
        }
        if (v != NULL) {
            snprintf(out[n].key, sizeof(out[n].key), "%s", fields[i].key);
            snprintf(out[n].value, sizeof(out[n].value), "%.255s", v);
            n++;
        }
    }
    return n;
}

void sp_launch_pml_from_maps(const char *maps, char *out, size_t outlen)
{
    static const char tag[] = "mca_pml_";
    char found[64] = "";
    const char *p = maps;
    int distinct = 0;

    while (p != NULL && (p = strstr(p, tag)) != NULL) {
        const char *name = p + sizeof(tag) - 1;
        const char *dot = strstr(name, ".so");
        size_t len = dot != NULL ? (size_t)(dot - name) : 0;
        p = name;
        if (len == 0 || len >= sizeof(found) || memchr(name, '\n', len) != NULL) {
            continue;
        }
        /* a library is mapped several times (text, data): count distinct names */
        if (distinct == 0) {
            memcpy(found, name, len);
            found[len] = '\0';
            distinct = 1;
        } else if (strlen(found) != len || strncmp(found, name, len) != 0) {
            distinct = 2;
        }
    }
    snprintf(out, outlen, "%s", distinct == 0 ? "-" : distinct == 1 ? found : "?");
}

void sp_launch_self_pml(char *out, size_t outlen)
{
    FILE *f = fopen("/proc/self/maps", "r");
    size_t cap = 1 << 16, used = 0;
    char *text = malloc(cap + 1);

    if (f == NULL || text == NULL) {
        snprintf(out, outlen, "-");
        if (f != NULL) {
            fclose(f);
        }
        free(text);
        return;
    }
    for (;;) {
        size_t got = fread(text + used, 1, cap - used, f);
        used += got;
        if (used < cap) {
            break;
        }
        char *grown = realloc(text, 2 * cap + 1);
        if (grown == NULL) {
            break;
        }
        text = grown;
        cap *= 2;
    }
    text[used] = '\0';
    fclose(f);
    sp_launch_pml_from_maps(text, out, outlen);
    free(text);
}

/* Launch detection: the launcher from the environment Open MPI and Slurm give a rank, the Slurm
 * job's fields, and the PML from a /proc/self/maps text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "launch.h"

static const char *value_of(const sp_kv_t *kv, int n, const char *key)
{
    for (int i = 0; i < n; i++) {
        if (strcmp(kv[i].key, key) == 0) {
            return kv[i].value;
        }
    }
    return NULL;
}

static void test_launchers(void **state)
{
    char *mpirun[] = {"OMPI_MCA_orte_hnp_uri=1.0;tcp://10.0.0.1:5", "PMIX_RANK=0",
                      "SLURM_JOB_ID=7", "SLURM_STEP_ID=0", NULL};
    char *srun[] = {"PMIX_RANK=3", "SLURM_STEP_ID=2", "SLURM_JOB_ID=42", NULL};
    char *pmix[] = {"PMIX_RANK=1", NULL};
    char *alone[] = {"HOME=/root", NULL};
    /* Open MPI 5 (PRRTE) inside an allocation, Slurm's PMIx plugin, PMI-2 */
    char *prte[] = {"PMIX_NAMESPACE=prterun-node1-4242@1", "PMIX_RANK=0", "SLURM_STEP_ID=0",
                    NULL};
    char *slurm_ns[] = {"PMIX_NAMESPACE=slurm.pmix.42.0", "PMIX_RANK=0", NULL};
    char *pmi2[] = {"PMI_RANK=5", "PMI_FD=7", "SLURM_STEP_ID=1", NULL};
    char *hydra[] = {"PMI_RANK=5", "PMI_PORT=node1:3000", NULL};
    sp_kv_t kv[16];
    int n;

    (void)state;
    /* mpirun inside a Slurm allocation is still mpirun: its daemons start the ranks */
    n = sp_launch_describe(mpirun, kv, 16);
    assert_string_equal(value_of(kv, n, "launcher"), "mpirun");
    assert_string_equal(value_of(kv, n, "slurm_job_id"), "7");
    n = sp_launch_describe(srun, kv, 16);
    assert_string_equal(value_of(kv, n, "launcher"), "srun");
    assert_string_equal(value_of(kv, n, "slurm_step_id"), "2");
    n = sp_launch_describe(pmix, kv, 16);
    assert_string_equal(value_of(kv, n, "launcher"), "pmix");
    n = sp_launch_describe(alone, kv, 16);
    assert_int_equal(n, 1);
    assert_string_equal(value_of(kv, n, "launcher"), "singleton");
    assert_int_equal(sp_launch_describe(alone, kv, 0), 0);
    n = sp_launch_describe(prte, kv, 16);
    assert_string_equal(value_of(kv, n, "launcher"), "mpirun");
    n = sp_launch_describe(slurm_ns, kv, 16);
    assert_string_equal(value_of(kv, n, "launcher"), "srun");
    n = sp_launch_describe(pmi2, kv, 16);
    assert_string_equal(value_of(kv, n, "launcher"), "srun");
    n = sp_launch_describe(hydra, kv, 16);
    assert_string_equal(value_of(kv, n, "launcher"), "pmi");
}

static void test_slurm_fields(void **state)
{
    char *env[] = {"SLURM_JOB_ID=1234",
                   "SLURM_STEP_ID=0",
                   "PMIX_RANK=0",
                   "SLURM_JOB_NODELIST=h[1-2]",
                   "SLURM_NNODES=2",
                   "SLURM_NTASKS=4",
                   "SLURM_TASKS_PER_NODE=4(x2)",
                   "SLURM_STEP_TASKS_PER_NODE=2(x2)",
                   "SLURM_GPUS_PER_TASK=1",
                   "SLURM_JOB_PARTITION=ci",
                   "SLURM_JOB_NODELIST_X=ignored",
                   NULL};
    sp_kv_t kv[16];
    int n = sp_launch_describe(env, kv, 16);

    (void)state;
    assert_string_equal(value_of(kv, n, "slurm_job_nodelist"), "h[1-2]");
    assert_string_equal(value_of(kv, n, "slurm_job_num_nodes"), "2"); /* the fallback name */
    assert_string_equal(value_of(kv, n, "slurm_ntasks"), "4");
    /* the step's shape, not the allocation's */
    assert_string_equal(value_of(kv, n, "slurm_tasks_per_node"), "2(x2)");
    assert_string_equal(value_of(kv, n, "slurm_gpus_per_task"), "1");
    assert_string_equal(value_of(kv, n, "slurm_partition"), "ci");
    assert_null(value_of(kv, n, "slurm_cpus_per_task"));
    assert_int_equal(n, 9);
}

static void test_pml(void **state)
{
    const char *ob1 =
        "7f00-7f01 r-xp 0 08:01 1 /usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/mca_pml_ob1.so\n"
        "7f01-7f02 r--p 0 08:01 1 /usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/mca_pml_ob1.so\n"
        "7f02-7f03 r-xp 0 08:01 2 /usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/mca_btl_tcp.so\n";
    const char *two = "a /x/mca_pml_ob1.so\nb /x/mca_pml_ucx.so\n";
    char out[16];

    (void)state;
    sp_launch_pml_from_maps(ob1, out, sizeof(out));
    assert_string_equal(out, "ob1");
    sp_launch_pml_from_maps("a /x/mca_pml_ucx.so\n", out, sizeof(out));
    assert_string_equal(out, "ucx");
    sp_launch_pml_from_maps(two, out, sizeof(out));
    assert_string_equal(out, "?");
    sp_launch_pml_from_maps("a /lib/libc.so.6\n", out, sizeof(out));
    assert_string_equal(out, "-");
    sp_launch_pml_from_maps("a /x/mca_pml_\n", out, sizeof(out)); /* cut short */
    assert_string_equal(out, "-");
    sp_launch_self_pml(out, sizeof(out)); /* no MPI here: nothing mapped */
    assert_string_equal(out, "-");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_launchers),
        cmocka_unit_test(test_slurm_fields),
        cmocka_unit_test(test_pml),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The fingerprint majority rule (no MPI): which nodes and ranks differ from the majority, ties
 * flag nothing; the field table's text conversions and the /proc/cpuinfo parser. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "fingerprint.h"
#include "hwinfo.h"

enum { MAX_RANKS = 64, MAX_NODES = 16 };

static sp_fp_rank_t ranks[MAX_RANKS];
static sp_fp_node_t nodes[MAX_NODES];

/* nnodes nodes of per_node ranks each, every field alike */
static void make(int nnodes, int per_node)
{
    memset(ranks, 0, sizeof(ranks));
    for (int i = 0; i < nnodes * per_node; i++) {
        sp_fp_rank_t *r = &ranks[i];
        r->rank = i;
        r->node = i / per_node;
        r->local_rank = i % per_node;
        snprintf(r->host, sizeof(r->host), "n%02d", r->node);
        snprintf(r->cpuset, sizeof(r->cpuset), "%d", r->local_rank); /* per rank: not compared */
        snprintf(r->cpu_model, sizeof(r->cpu_model), "AMD EPYC 9654");
        snprintf(r->kernel, sizeof(r->kernel), "6.8.0-45-generic");
        snprintf(r->mpi, sizeof(r->mpi), "Open MPI v4.1.6");
        snprintf(r->driver, sizeof(r->driver), "550.54.15");
        snprintf(r->nccl, sizeof(r->nccl), "2.21.5");
        snprintf(r->nics, sizeof(r->nics), "mlx5_0,mlx5_1");
        snprintf(r->gpu_name, sizeof(r->gpu_name), "NVIDIA H100 80GB HBM3");
        snprintf(r->gpu_uuid, sizeof(r->gpu_uuid), "GPU-%d", i);
        r->sm_clock_mhz = 1980;
        r->mem_clock_mhz = 2619;
        r->power_limit_w = 700;
        r->ecc = 1;
        r->nvlinks = 18;
    }
}

static int flagged_nodes(int nnodes)
{
    int n = 0;
    for (int d = 0; d < nnodes; d++) {
        n += nodes[d].differs;
    }
    return n;
}

static int flagged_ranks(int nranks)
{
    int n = 0;
    for (int i = 0; i < nranks; i++) {
        n += ranks[i].differs;
    }
    return n;
}

static const char *maj(const sp_kv_t *kv, int n, const char *key)
{
    for (int i = 0; i < n; i++) {
        if (strcmp(kv[i].key, key) == 0) {
            return kv[i].value;
        }
    }
    return "(missing)";
}

static void test_one_node_other_driver(void **state)
{
    sp_kv_t m[64];
    int nm = 0;
    char ties[256];

    (void)state;
    make(5, 2);
    snprintf(ranks[6].driver, sizeof(ranks[6].driver), "560.28.03"); /* node 3: ranks 6, 7 */
    snprintf(ranks[7].driver, sizeof(ranks[7].driver), "560.28.03");
    assert_int_equal(sp_fp_majority(ranks, 10, nodes, 5, m, &nm, ties, sizeof(ties)), SP_OK);
    assert_int_equal(flagged_nodes(5), 1);
    assert_int_equal(nodes[3].differs, 1);
    assert_string_equal(nodes[3].differs_in, "driver");
    assert_string_equal(nodes[3].host, "n03");
    assert_int_equal(nodes[3].nranks, 2);
    assert_non_null(strstr(nodes[3].key, "driver=560.28.03"));
    assert_non_null(strstr(nodes[0].key, "driver=550.54.15"));
    /* the ranks agree with their own node */
    assert_int_equal(flagged_ranks(10), 0);
    assert_string_equal(ties, "");
    assert_string_equal(maj(m, nm, "driver"), "550.54.15");
    assert_string_equal(maj(m, nm, "sm_clock_mhz"), "1980");
    assert_string_equal(maj(m, nm, "gpu_uuid"), "(missing)"); /* per-rank fields: no majority */
}

static void test_all_alike(void **state)
{
    char ties[256];

    (void)state;
    make(4, 3);
    assert_int_equal(sp_fp_majority(ranks, 12, nodes, 4, NULL, NULL, ties, sizeof(ties)), SP_OK);
    assert_int_equal(flagged_nodes(4), 0);
    assert_int_equal(flagged_ranks(12), 0);
    assert_string_equal(ties, "");
    for (int d = 0; d < 4; d++) {
        assert_string_equal(nodes[d].key, nodes[0].key);
        assert_string_equal(nodes[d].mixed_in, "");
        assert_string_equal(nodes[d].differs_in, "");
    }
}

static void test_tie_flags_nothing(void **state)
{
    sp_kv_t m[64];
    int nm = 0;
    char ties[256];

    (void)state;
    make(4, 1);
    snprintf(ranks[2].nccl, sizeof(ranks[2].nccl), "2.23.4");
    snprintf(ranks[3].nccl, sizeof(ranks[3].nccl), "2.23.4");
    assert_int_equal(sp_fp_majority(ranks, 4, nodes, 4, m, &nm, ties, sizeof(ties)), SP_OK);
    assert_int_equal(flagged_nodes(4), 0);
    assert_string_equal(ties, "nccl");
    assert_string_equal(maj(m, nm, "nccl"), "mixed");
    assert_string_equal(maj(m, nm, "driver"), "550.54.15");
}

static void test_rank_with_lower_clock(void **state)
{
    char ties[256];

    (void)state;
    make(3, 4);
    ranks[5].sm_clock_mhz = 1410; /* node 1, local rank 1 */
    assert_int_equal(sp_fp_majority(ranks, 12, nodes, 3, NULL, NULL, ties, sizeof(ties)), SP_OK);
    assert_int_equal(flagged_ranks(12), 1);
    assert_int_equal(ranks[5].differs, 1);
    assert_string_equal(ranks[5].differs_in, "sm_clock_mhz");
    /* the node as a whole still has the majority's clock */
    assert_int_equal(flagged_nodes(3), 0);
    assert_string_equal(nodes[1].mixed_in, "sm_clock_mhz");
    assert_string_equal(nodes[0].mixed_in, "");
}

static void test_one_node_rank_differs(void **state)
{
    char ties[256];

    (void)state;
    /* what the end-to-end test sees: 3 ranks on one host, rank 2 with another kernel and driver */
    make(1, 3);
    snprintf(ranks[2].kernel, sizeof(ranks[2].kernel), "9.9");
    snprintf(ranks[2].driver, sizeof(ranks[2].driver), "1.0");
    assert_int_equal(sp_fp_majority(ranks, 3, nodes, 1, NULL, NULL, ties, sizeof(ties)), SP_OK);
    assert_int_equal(flagged_ranks(3), 1);
    assert_string_equal(ranks[2].differs_in, "kernel,driver");
    assert_int_equal(nodes[0].differs, 0); /* one node is its own majority */
    assert_string_equal(nodes[0].mixed_in, "kernel,driver");
    assert_non_null(strstr(nodes[0].key, "kernel=6.8.0-45-generic"));
}

static void test_two_rank_tie_in_node(void **state)
{
    char ties[256];

    (void)state;
    make(1, 2);
    ranks[1].ecc = 0;
    assert_int_equal(sp_fp_majority(ranks, 2, nodes, 1, NULL, NULL, ties, sizeof(ties)), SP_OK);
    assert_int_equal(flagged_ranks(2), 0); /* 1 vs 1: no majority, nobody flagged */
    assert_string_equal(nodes[0].mixed_in, "ecc");
    assert_non_null(strstr(nodes[0].key, "ecc=1")); /* the lowest rank speaks for the node */
}

static void test_bad_node(void **state)
{
    (void)state;
    make(2, 1);
    ranks[1].node = 2;
    assert_int_equal(sp_fp_majority(ranks, 2, nodes, 2, NULL, NULL, NULL, 0), SP_ERR_INVALID);
}

static void test_fields(void **state)
{
    sp_fp_rank_t r;
    char buf[128];
    int f;

    (void)state;
    memset(&r, 0, sizeof(r));
    f = sp_fp_field_find("sm_clock_mhz");
    assert_true(f >= 0);
    assert_int_equal(sp_fp_field_set(&r, f, "1410"), SP_OK);
    assert_int_equal(r.sm_clock_mhz, 1410);
    sp_fp_field_str(&r, f, buf, sizeof(buf));
    assert_string_equal(buf, "1410");
    assert_int_equal(sp_fp_field_set(&r, f, "fast"), SP_ERR_INVALID);
    assert_int_equal(sp_fp_field_set(&r, f, "12x"), SP_ERR_INVALID);
    f = sp_fp_field_find("kernel");
    assert_int_equal(sp_fp_field_set(&r, f, "9.9"), SP_OK);
    assert_string_equal(r.kernel, "9.9");
    assert_int_equal(sp_fp_field_find("no_such_field"), -1);
    /* the table covers the struct: the last member ends at its size (padding aside) */
    f = sp_fp_nfields - 1;
    assert_true(sp_fp_fields[f].offset + sp_fp_fields[f].size <= sizeof(sp_fp_rank_t));
    assert_true(sp_fp_fields[f].offset + sp_fp_fields[f].size + sizeof(int) > sizeof(sp_fp_rank_t));
}

static void test_cpuinfo(void **state)
{
    char out[96];

    (void)state;
    sp_hwinfo_cpuinfo_model("processor\t: 0\nvendor_id\t: GenuineIntel\nmodel\t\t: 143\n"
                            "model name\t: Intel(R) Xeon(R) Platinum 8480+  \nstepping\t: 8\n",
                            out, sizeof(out));
    assert_string_equal(out, "Intel(R) Xeon(R) Platinum 8480+");
    sp_hwinfo_cpuinfo_model("processor\t: 0\nCPU part\t: 0xd4f\n", out, sizeof(out));
    assert_string_equal(out, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_node_other_driver),
        cmocka_unit_test(test_all_alike),
        cmocka_unit_test(test_tie_flags_nothing),
        cmocka_unit_test(test_rank_with_lower_clock),
        cmocka_unit_test(test_one_node_rank_differs),
        cmocka_unit_test(test_two_rank_tie_in_node),
        cmocka_unit_test(test_bad_node),
        cmocka_unit_test(test_fields),
        cmocka_unit_test(test_cpuinfo),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

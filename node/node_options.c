/* The option table of `scaleprobe node`. */
#include "node_options.h"

#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "dtype.h"

#define OFF(field) offsetof(sp_node_opts_t, field)

static const sp_opt_def_t node_defs[] = {
    {"mem-mib", 0, SP_OPT_INT, OFF(mem_mib), "64", "MIB",
     "host triad: MiB per array (3 arrays; keep well above the last-level cache)", 1, 1 << 20,
     NULL, 0},
    {"dev-mib", 0, SP_OPT_INT, OFF(dev_mib), "1024", "MIB",
     "device copies (nccl): MiB per buffer for d2d, h2d and d2h", 1, 1 << 20, NULL, 0},
    {"gemm-n", 0, SP_OPT_INT, OFF(gemm_n), "0", "N",
     "GEMM size n (n x n times n x n, 2n^3 FLOPs); default: 1024 on host, 8192 on a GPU", 1,
     65536,
     NULL, 0},
    {"datatype", 'd', SP_OPT_SET, OFF(dtypes), "float,double", "LIST",
     "GEMM data types: a comma list of float, double, half, bfloat16 (on host half and bfloat16 "
     "are computed as float)",
     0, -1, sp_dtype_names, SP_DTYPE_COUNT},
    {"iters", 'n', SP_OPT_INT, OFF(iters), "0", "N",
     "fixed number of samples per measurement; default: sample until the CI target is met", 1,
     1e6,
     NULL, 0},
    {"warmup", 'w', SP_OPT_INT, OFF(warmup), "2", "N", "untimed calls before the samples", 0, 1e6,
     NULL, 0},
    {"epsilon", 0, SP_OPT_DOUBLE, OFF(epsilon), "0.02", "E",
     "stop when the 95% CI of every rank's median is within +-E (relative)", 0.0001, 1, NULL, 0},
    {"min-samples", 0, SP_OPT_INT, OFF(min_samples), "10", "N", "samples before stopping", 1, 1e6,
     NULL, 0},
    {"max-samples", 0, SP_OPT_INT, OFF(max_samples), "100", "N",
     "samples at most per measurement", 1, 1e6, NULL, 0},
    {"max-time", 0, SP_OPT_DOUBLE, OFF(max_time), "5", "SEC",
     "time cap per measurement; it is marked not converged when it stops here", 0.001, 86400,
     NULL, 0},
    {"threshold", 0, SP_OPT_DOUBLE, OFF(threshold), "0.1", "F",
     "outlier: a rank or node whose median's CI lies below (1 - F) x the cohort median", 0.001,
     0.99, NULL, 0},
    {"burn", 0, SP_OPT_DOUBLE, OFF(burn), "0", "SEC",
     "after the measurements, sustained GEMM for SEC seconds with result checks; 0: none", 0,
     1e6, NULL, 0},
    {"burn-interval", 0, SP_OPT_DOUBLE, OFF(burn_interval), "1", "SEC",
     "burn: one throughput row per rank and one result check per SEC", 0.01, 3600, NULL, 0},
    {"no-baseline", 0, SP_OPT_FLAG, OFF(no_baseline), NULL, NULL,
     "skip the measurements (with --burn: burn only)", 0, -1, NULL, 0},
    SP_RUN_OPT_ROWS(sp_node_opts_t, run, "node"),
};

const sp_opt_table_t sp_node_opt_table = {
    .command = "node",
    .summary = "Node baselines: every rank measures its own device (host memory triad, device "
               "copies,\nGEMM throughput), outlier ranks and nodes, and an optional burn with "
               "result checks.\nLaunch with mpirun or srun.",
    .defs = node_defs,
    .ndefs = (int)(sizeof(node_defs) / sizeof(node_defs[0])),
};

sp_status_t sp_node_opts_parse(int argc, char **argv, int first, sp_node_opts_t *opts,
                               int *help_p, char *err, size_t errlen)
{
    const uint32_t gemm_types = (1u << SP_DTYPE_FLOAT) | (1u << SP_DTYPE_DOUBLE) |
                                (1u << SP_DTYPE_HALF) | (1u << SP_DTYPE_BFLOAT16);
    sp_status_t status;

    memset(opts, 0, sizeof(*opts));
    status = sp_opts_parse(&sp_node_opt_table, argc, argv, first, opts, help_p, NULL, err,
                           errlen);
    if (status != SP_OK || *help_p) {
        return status;
    }
    if ((opts->dtypes & ~gemm_types) != 0 || opts->dtypes == 0) {
        snprintf(err, errlen, "--datatype: the GEMM measures float, double, half and bfloat16 "
                              "only");
        return SP_ERR_INVALID;
    }
    if (opts->min_samples > opts->max_samples) {
        snprintf(err, errlen, "--min-samples %ld is larger than --max-samples %ld",
                 opts->min_samples, opts->max_samples);
        return SP_ERR_INVALID;
    }
    if (opts->no_baseline && opts->burn <= 0.0) {
        snprintf(err, errlen, "--no-baseline without --burn leaves nothing to do");
        return SP_ERR_INVALID;
    }
    if (opts->burn > 0.0 && opts->burn_interval > opts->burn) {
        snprintf(err, errlen, "--burn-interval %g is longer than --burn %g", opts->burn_interval,
                 opts->burn);
        return SP_ERR_INVALID;
    }
    return SP_OK;
}

/* Options of `scaleprobe node`: the table, the struct it fills, and the checks across fields.
 * Pure C, no MPI. The sampling options are spelled as the sweep's (-n, -w, --epsilon, ...). */
#ifndef SP_NODE_OPTIONS_H
#define SP_NODE_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "options.h"
#include "runopts.h"

typedef struct {
    long mem_mib;          /* host triad: MiB per array */
    long dev_mib;          /* device copies: MiB per buffer (nccl backend) */
    long gemm_n;           /* n of the n x n x n GEMM; 0: 1024 on host, 8192 on a GPU */
    uint32_t dtypes;       /* GEMM data types: bit mask over sp_dtype_t */
    long iters;            /* fixed samples per measurement; 0: until the CI target */
    long warmup;
    double epsilon;        /* CI target (relative half-width of the median's CI) */
    long min_samples;
    long max_samples;
    double max_time;       /* seconds per measurement */
    double threshold;      /* outlier: CI entirely below (1 - threshold) x cohort median */
    double burn;           /* seconds of sustained GEMM after the measurements; 0: none */
    double burn_interval;  /* seconds per /node/burn row */
    int no_baseline;       /* skip the measurements (burn only) */
    sp_run_opts_t run;     /* -O, --force, --backend, --device, --timeout */
} sp_node_opts_t;

extern const sp_opt_table_t sp_node_opt_table;

/* Parse and check (argv[first..argc)); SP_ERR_INVALID with one message in err. */
sp_status_t sp_node_opts_parse(int argc, char **argv, int first, sp_node_opts_t *opts,
                               int *help_p, char *err, size_t errlen);

#endif

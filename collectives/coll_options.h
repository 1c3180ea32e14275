/* Options of `scaleprobe coll`: the table, the struct it fills, and the checks across fields.
 * Pure C, no MPI, so every error path is unit tested. */
#ifndef SP_COLL_OPTIONS_H
#define SP_COLL_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "options.h"
#include "runopts.h"

#define SP_MAX_SIZES 4096 /* sweep points per (collective, type, op, root) */

typedef enum { SP_PLACE_BOTH = 0, SP_PLACE_OUT, SP_PLACE_IN } sp_place_t;

typedef struct {
    uint32_t colls;       /* bit mask over sp_coll_kind_t */
    uint32_t dtypes;      /* bit mask over sp_dtype_t */
    uint32_t redops;      /* bit mask over sp_redop_t */
    uint64_t minbytes;
    uint64_t maxbytes;
    uint64_t stepbytes;
    long stepfactor;
    long root;            /* -1: every root */
    long iters;           /* fixed samples per point (peer methods: timed operations); 0: sample
                           * until the CI target (peer methods: the peer's default count) */
    long warmup;          /* -1 (only with --method osu and no -w): OSU's per-size default */
    long batch;           /* operations per sample; 0: calibrated */
    double batch_us;      /* calibration target for one batch */
    long min_batch;       /* smallest calibrated k */
    double epsilon;       /* CI target; 0: 0.01 above 64 KiB, 0.03 at or below */
    long min_samples;
    long max_samples;
    double max_time;      /* seconds per point (each of out-of-place / in-place) */
    int place;            /* sp_place_t */
    int no_check;
    int cuda_graph;       /* time batches as captured CUDA graphs */
    long timeline_events; /* timeline capacity per rank; 0: no timeline */
    int clock_sync;       /* 0: node leaders, 1: every rank */
    int timeline_io;      /* 0: rank 0 in bounded batches, 1: one collective MPI-IO write */
    int method;           /* sp_method_t (method.h): how a point is sampled and reported */
    int issue;            /* sp_issue_t (method.h): how each timed operation is issued */
    long average;         /* nccl-tests' -a: time over ranks, 0 rank 0, 1 mean, 2 min, 3 max */
    int average_given;    /* -a was on the command line (the default method applies it then) */
    int osu_full;         /* with --method osu: print OSU's -f min/max per point */
    long check;           /* nccl-tests' -c: 1 verify (default), 0 as --no-check */
    long cycles;          /* nccl-tests' -N: the sweep runs this many times */
    char json[SP_OPT_STRLEN]; /* nccl-tests' -J: JSON output path; "": none */
    int quiet;            /* no progress line, no heartbeat */
    double heartbeat;     /* seconds between progress lines when stderr is not a terminal; 0 */
    char split[SP_OPT_STRLEN]; /* --split (or NCCL_TESTS_SPLIT): groups measured at once
                                * (coll_split.h); "": none */
    /* nccl-tests' flags accepted at their one meaningful value (coll_options.c says why) */
    long ngpus;
    long nthreads;
    long agg_iters;
    long blocking;
    long report_cputime;
    long local_register;
    sp_run_opts_t run;    /* -O, --force, --backend, --device, --timeout */
} sp_coll_opts_t;

extern const sp_opt_table_t sp_coll_opt_table;

/*
 * Parse and check the options of `coll` (argv[first..argc)). On error returns SP_ERR_INVALID with
 * one message in err. help_p is set when --help was asked.
 */
sp_status_t sp_coll_opts_parse(int argc, char **argv, int first, sp_coll_opts_t *opts,
                               int *help_p, char *err, size_t errlen);

/* Checks that need the world size (root in range). */
sp_status_t sp_coll_opts_check_world(const sp_coll_opts_t *opts, int nranks, char *err,
                                     size_t errlen);

/* The sweep's sizes in bytes, as nccl-tests generates them from -b/-e/-f/-i (sizes may be NULL
 * to count only). Returns the number
 * of sizes written (at most max); SP_ERR_INVALID when there would be more than max. */
sp_status_t sp_coll_sizes(const sp_coll_opts_t *opts, uint64_t *sizes, size_t max, size_t *n_p);

/* The CI target for a point of this size. */
double sp_coll_epsilon(const sp_coll_opts_t *opts, uint64_t bytes);

#endif

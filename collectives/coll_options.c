/* The option table of `scaleprobe coll`, spelled as nccl-tests spells its flags where they
 * mean the same thing (-b -e -f -i -n -w -d -o -r -c -a -G -N -T -J -z); nccl-tests' flags that
 * make no sense here (-g -t -m -R, -C 1) are parsed so that their refusal says why. */
#include "coll_options.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "coll.h"
#include "coll_split.h"
#include "dtype.h"
#include "sweep_batch.h"
#include "method.h"

static const char *const place_names[] = {"both", "out", "in"};
static const char *const clock_names[] = {"leaders", "all"};
static const char *const tlio_names[] = {"rank0", "mpiio"};

#define OFF(field) offsetof(sp_coll_opts_t, field)

static const sp_opt_def_t coll_defs[] = {
    {"collectives", 0, SP_OPT_SET, OFF(colls), "all_reduce", "LIST",
     "collectives:",
     0, -1, sp_coll_names, SP_COLL_COUNT},
    {"minbytes", 'b', SP_OPT_SIZE, OFF(minbytes), "32M", "SIZE",
     "smallest size per rank (K/M/G suffixes, 1024-based)", 0, -1, NULL, 0},
    {"maxbytes", 'e', SP_OPT_SIZE, OFF(maxbytes), "32M", "SIZE", "largest size", 0, -1, NULL, 0},
    {"stepfactor", 'f', SP_OPT_INT, OFF(stepfactor), "1", "N",
     "multiply the size by N each step (N > 1), else add --stepbytes", 1, 1024, NULL, 0},
    {"stepbytes", 'i', SP_OPT_SIZE, OFF(stepbytes), "1M", "SIZE",
     "add SIZE each step when --stepfactor is 1", 0, -1, NULL, 0},
    {"datatype", 'd', SP_OPT_SET, OFF(dtypes), "float", "LIST",
     "data types:",
     0, -1, sp_dtype_names, SP_DTYPE_COUNT},
    {"op", 'o', SP_OPT_SET, OFF(redops), "sum", "LIST",
     "reductions:", 0, -1, sp_redop_names,
     SP_REDOP_COUNT},
    {"root", 'r', SP_OPT_INT, OFF(root), "0", "N", "root of rooted collectives; -1: every root",
     -1, 1e9, NULL, 0},
    {"iters", 'n', SP_OPT_INT, OFF(iters), "0", "N",
     "fixed number of samples per point; default: sample until the CI target is met (nccl-tests, "
     "osu methods: timed operations per point, default: the peer's)", 1, 1e6, NULL, 0},
    {"warmup", 'w', SP_OPT_INT, OFF(warmup), "5", "N",
     "untimed warm-up operations per point (osu method without -w: OSU's 200, 10 above 8K)", 0,
     1e6, NULL, 0},
    {"method", 0, SP_OPT_CHOICE, OFF(method), "default", "NAME",
     "how a point is timed and which time is reported (docs/METHODOLOGY.md):", 0, -1,
     sp_method_names, SP_METHOD_COUNT},
    {"issue", 0, SP_OPT_CHOICE, OFF(issue), "blocking", "MODE",
     "how each timed operation is issued: a blocking call, or enqueued on a backend stream and "
     "waited for as the proxy issues its collectives (docs/METHODOLOGY.md, \"Issue mode\"):",
     0, -1, sp_issue_names, SP_ISSUE_COUNT},
    {"average", 'a', SP_OPT_INT, OFF(average), "1", "N",
     "the time over ranks, 0 rank 0, 1 mean, 2 min, 3 max (nccl-tests' -a); default method: "
     "of every rank's own median, only when given",
     0, 3, NULL, 0},
    {"osu-full", 0, SP_OPT_FLAG, OFF(osu_full), NULL, NULL,
     "osu method: print OSU's -f min and max over ranks per point (comment lines)", 0, -1, NULL,
     0},
    {"batch", 'k', SP_OPT_INT, OFF(batch), "0", "N",
     "operations timed back to back per sample; default: calibrated to --batch-us", 1, 1e6, NULL,
     0},
    {"batch-us", 0, SP_OPT_DOUBLE, OFF(batch_us), "1000", "US",
     "calibration target for one sample's batch, microseconds", 1, 1e7, NULL, 0},
    {"min-batch", 0, SP_OPT_INT, OFF(min_batch), "2", "N",
     "smallest calibrated batch size k (a point whose operation outlasts --batch-us still times "
     "N back to back)",
     1, SP_MAX_BATCH, NULL, 0},
    {"epsilon", 0, SP_OPT_DOUBLE, OFF(epsilon), "0", "E",
     "stop when the 95% CI of the median is within +-E (relative); default: 0.01 above 64K, "
     "0.03 at or below",
     1e-6, 1, NULL, 0},
    {"min-samples", 0, SP_OPT_INT, OFF(min_samples), "10", "N", "samples before stopping", 1, 1e6,
     NULL, 0},
    {"max-samples", 0, SP_OPT_INT, OFF(max_samples), "200", "N", "samples at most per point", 1,
     1e6, NULL, 0},
    {"max-time", 0, SP_OPT_DOUBLE, OFF(max_time), "2", "SEC",
     "time cap per point; the point is marked not converged when it stops here", 0.001, 86400,
     NULL, 0},
    {"place", 0, SP_OPT_CHOICE, OFF(place), "both", "WHICH",
     "out-of-place, in-place or both (both columns of the table)", 0, -1, place_names, 3},
    {"no-check", 0, SP_OPT_FLAG, OFF(no_check), NULL, NULL,
     "skip data verification (#wrong shows N/A); the same as -c 0", 0, -1, NULL, 0},
    {"check", 'c', SP_OPT_INT, OFF(check), "1", "N",
     "nccl-tests' -c: 1 verifies every point's data once (on its timed buffers), 0 skips it",
     0, 1e6, NULL, 0},
    {"cycles", 'N', SP_OPT_INT, OFF(cycles), "1", "N",
     "run the whole sweep N times (nccl-tests' -N; every cycle's rows are kept)", 1, 1e6,
     NULL, 0},
    {"json", 'J', SP_OPT_STRING, OFF(json), "", "FILE",
     "also write the results as JSON in nccl-tests' -J layout (never overwritten without "
     "--force)",
     0, -1, NULL, 0},
    {"split", 0, SP_OPT_STRING, OFF(split), "", "SPEC",
     "measure in groups at once, each on its own communicator, and name the slowest group "
     "(nccl-tests' NCCL_TESTS_SPLIT, read when --split is absent): AND n, OR n, MOD n, DIV n, "
     "a bare mask, node (the ranks of a node together) or rail (one group per local rank)",
     0, -1, NULL, 0},
    {"quiet", 0, SP_OPT_FLAG, OFF(quiet), NULL, NULL,
     "no progress on stderr (the line on a terminal, the --heartbeat lines elsewhere)", 0, -1,
     NULL, 0},
    {"heartbeat", 0, SP_OPT_DOUBLE, OFF(heartbeat), "30", "SEC",
     "when stderr is not a terminal (a batch job's log, a pipe): a progress line every SEC "
     "seconds (points done / total, the current point, elapsed, ETA); 0: none",
     0, 1e6, NULL, 0},
    {"ngpus", 'g', SP_OPT_INT, OFF(ngpus), "1", "N",
     "nccl-tests' GPUs per thread: only 1 (one rank per GPU)", 1, 1e6, NULL, 0},
    {"nthreads", 't', SP_OPT_INT, OFF(nthreads), "1", "N",
     "nccl-tests' threads per process: only 1 (one rank per GPU)", 1, 1e6, NULL, 0},
    {"agg-iters", 'm', SP_OPT_INT, OFF(agg_iters), "1", "N",
     "nccl-tests' operations per group call: only 1", 1, 1e6, NULL, 0},
    {"blocking", 'z', SP_OPT_INT, OFF(blocking), "0", "0|1",
     "nccl-tests' -z: 1 completes each collective (and a barrier) before the next (nccl "
     "backend)", 0, 1, NULL, 0},
    {"report-cputime", 'C', SP_OPT_INT, OFF(report_cputime), "0", "0|1",
     "nccl-tests' -C: only 0 (times are completion times)", 0, 1, NULL, 0},
    {"local-register", 'R', SP_OPT_INT, OFF(local_register), "0", "0|1|2",
     "nccl-tests' -R: only 0 (no buffer registration)", 0, 2, NULL, 0},
    {"cuda-graph", 'G', SP_OPT_FLAG, OFF(cuda_graph), NULL, NULL,
     "capture each batch as a CUDA graph and time its replay (nccl; as nccl-tests -G)", 0, -1,
     NULL, 0},
    {"timeline-events", 0, SP_OPT_INT, OFF(timeline_events), "200000", "N",
     "timeline capacity per rank (one event per timed batch); 0: no timeline", 0, 1e9, NULL, 0},
    {"clock-sync", 0, SP_OPT_CHOICE, OFF(clock_sync), "leaders", "WHO",
     "clock synchronization against rank 0: node leaders (their ranks share the model) or all "
     "ranks",
     0, -1, clock_names, 2},
    {"timeline-io", 0, SP_OPT_CHOICE, OFF(timeline_io), "rank0", "HOW",
     "write the timeline from rank 0 in bounded batches (uncompressed, at disk speed), or by "
     "every rank in one collective MPI-IO write (parallel HDF5 builds)",
     0, -1, tlio_names, 2},
    SP_RUN_OPT_ROWS(sp_coll_opts_t, run, "coll"),
};

const sp_opt_table_t sp_coll_opt_table = {
    .command = "coll",
    .summary = "Collective sweep with nccl-tests' sizes, columns and bus bandwidth, verified "
               "data, and\nmedians with 95% confidence intervals. Launch with mpirun or srun.",
    .defs = coll_defs,
    .ndefs = (int)(sizeof(coll_defs) / sizeof(coll_defs[0])),
};

sp_status_t sp_coll_sizes(const sp_coll_opts_t *opts, uint64_t *sizes, size_t max, size_t *n_p)
{
    size_t n = 0;

    for (uint64_t size = opts->minbytes; size <= opts->maxbytes;) {
        if (n == max) {
            return SP_ERR_INVALID;
        }
        if (sizes != NULL) {
            sizes[n] = size;
        }
        n++;
        if (size == opts->maxbytes) {
            break;
        }
        if (opts->stepfactor > 1) {
            if (size > opts->maxbytes / (uint64_t)opts->stepfactor) {
                break;
            }
            size *= (uint64_t)opts->stepfactor;
        } else {
            if (opts->stepbytes == 0 || size > opts->maxbytes - opts->stepbytes) {
                break;
            }
            size += opts->stepbytes;
        }
    }
    *n_p = n;
    return SP_OK;
}

/* Whether the option named long_name was on the command line. */
static int given(const unsigned char *seen, const char *long_name)
{
    for (size_t i = 0; i < sizeof(coll_defs) / sizeof(coll_defs[0]); i++) {
        if (strcmp(coll_defs[i].long_name, long_name) == 0) {
            return seen[i];
        }
    }
    return 0;
}

/* Options that belong to one method only are refused with another; with --method osu and no
 * -w, the warm-up is OSU's per size (-1, method.h). */
static sp_status_t check_method(sp_coll_opts_t *opts, const unsigned char *seen, char *err,
                                size_t errlen)
{
    static const char *const default_only[] = {"batch", "batch-us", "epsilon", "min-samples",
                                               "max-samples", "max-time"};

    /* -a with the default method replaces the reported time by nccl-tests' figure over ranks
     * (docs/METHODOLOGY.md); OSU's method has its own (the mean of rank means) */
    if (opts->method == SP_METHOD_OSU && given(seen, "average")) {
        snprintf(err, errlen, "-a/--average applies to --method nccl-tests and default, not "
                 "osu (OSU reports the mean over ranks)");
        return SP_ERR_INVALID;
    }
    opts->average_given = given(seen, "average");
    if (opts->method != SP_METHOD_OSU && opts->osu_full) {
        snprintf(err, errlen, "--osu-full applies to --method osu only");
        return SP_ERR_INVALID;
    }
    for (size_t i = 0; i < sizeof(default_only) / sizeof(default_only[0]); i++) {
        if (opts->method != SP_METHOD_DEFAULT && given(seen, default_only[i])) {
            snprintf(err, errlen, "--%s applies to --method default only: --method %s times a "
                     "fixed count (-n)", default_only[i], sp_method_names[opts->method]);
            return SP_ERR_INVALID;
        }
    }
    if (opts->issue == SP_ISSUE_STREAM && opts->method != SP_METHOD_DEFAULT) {
        snprintf(err, errlen, "--issue stream applies to --method default only: --method %s "
                 "reproduces the peer's own loop of blocking calls", sp_method_names[opts->method]);
        return SP_ERR_INVALID;
    }
    if (opts->issue == SP_ISSUE_STREAM && (opts->cuda_graph || opts->blocking != 0)) {
        snprintf(err, errlen, "--issue stream enqueues each operation on a stream of its own: "
                 "it cannot be combined with %s", opts->cuda_graph ? "--cuda-graph (-G)" : "-z 1");
        return SP_ERR_INVALID;
    }
    if (opts->issue == SP_ISSUE_STREAM && (opts->redops & (1u << SP_REDOP_PREMULSUM))) {
        /* the nccl backend binds premulsum's operator to its own communicator, not a stream's */
        snprintf(err, errlen, "--issue stream does not time the mulsum reduction (premulsum): "
                 "the proxy never issues it, and NCCL binds its operator to one communicator; "
                 "leave mulsum out of -o");
        return SP_ERR_INVALID;
    }
    if (opts->method == SP_METHOD_OSU && !given(seen, "warmup")) {
        opts->warmup = -1;
    }
    return SP_OK;
}

/* Other names for the data types and reductions, as other tools and frameworks spell them
 * (premulsum: NCCL's name for nccl-tests' mulsum). */
static const char *const dtype_aliases[][2] = {
    {"bf16", "bfloat16"}, {"fp16", "half"},       {"float16", "half"},  {"fp32", "float"},
    {"float32", "float"}, {"fp64", "double"},     {"float64", "double"}, {"e4m3", "f8e4m3"},
    {"e5m2", "f8e5m2"},   {"fp8e4m3", "f8e4m3"}, {"fp8e5m2", "f8e5m2"}, {"premulsum", "mulsum"},
};

#define SP_ALIAS_SLOTS 8

typedef struct {
    char **argv; /* argc entries: the caller's, or a rewritten value in buf */
    char buf[SP_ALIAS_SLOTS][512];
    int used;
} alias_argv_t;

/* One -d or -o value with its aliases replaced (into out); SP_ERR_INVALID for "fp8", which
 * names two formats. */
static sp_status_t dtype_list(const char *in, char *out, size_t outlen, char *err, size_t errlen)
{
    size_t used = 0;

    out[0] = '\0';
    while (*in != '\0' && used < outlen) {
        size_t n = strcspn(in, ",");
        const char *name = in;
        int len = (int)n;
        if (n == 3 && strncmp(in, "fp8", 3) == 0) {
            snprintf(err, errlen, "--datatype fp8: say which format, f8e4m3 or f8e5m2 (as "
                     "nccl-tests names them)");
            return SP_ERR_INVALID;
        }
        for (size_t i = 0; i < sizeof(dtype_aliases) / sizeof(dtype_aliases[0]); i++) {
            if (strlen(dtype_aliases[i][0]) == n && strncmp(in, dtype_aliases[i][0], n) == 0) {
                name = dtype_aliases[i][1];
                len = (int)strlen(name);
            }
        }
        used += (size_t)snprintf(out + used, outlen - used, "%s%.*s", used ? "," : "", len,
                                 name);
        in += n + (in[n] == ',');
    }
    return SP_OK;
}

/* The value of -d/--datatype or -o/--op at argv[a] (the option itself), or NULL; *next_p:
 * whether the value is the next argument; *long_p: the option's long name. */
static const char *dtype_value(int argc, char **argv, int a, int *next_p, const char **long_p)
{
    static const char *const names[][2] = {{"-d", "--datatype"}, {"-o", "--op"}};
    const char *arg = argv[a];

    *next_p = 0;
    for (int o = 0; o < 2; o++) {
        size_t ln = strlen(names[o][1]);
        *long_p = names[o][1];
        if (strcmp(arg, names[o][0]) == 0 || strcmp(arg, names[o][1]) == 0) {
            *next_p = 1;
            return a + 1 < argc ? argv[a + 1] : NULL;
        }
        if (strncmp(arg, names[o][1], ln) == 0 && arg[ln] == '=') {
            return arg + ln + 1;
        }
        if (strncmp(arg, names[o][0], 2) == 0 && arg[1] != '-') {
            return arg + 2;
        }
    }
    return NULL;
}

/* argv with the -d aliases spelled as the table names them, into al. */
static sp_status_t resolve_aliases(int argc, char **argv, int first, alias_argv_t *al,
                                   char *err, size_t errlen)
{
    memcpy(al->argv, argv, (size_t)argc * sizeof(*argv));
    al->used = 0;
    for (int a = first; a < argc; a++) {
        int next;
        const char *opt;
        const char *v = dtype_value(argc, argv, a, &next, &opt);
        char *slot;
        if (v == NULL || al->used == SP_ALIAS_SLOTS || strlen(v) >= sizeof(al->buf[0]) / 2) {
            continue;
        }
        slot = al->buf[al->used++];
        if (dtype_list(v, slot, sizeof(al->buf[0]), err, errlen) != SP_OK) {
            return SP_ERR_INVALID;
        }
        if (next) {
            al->argv[++a] = slot;
        } else {
            /* -dX or --datatype=X: rebuild the whole word */
            char word[sizeof(al->buf[0])];
            if (argv[a][1] == '-') {
                snprintf(word, sizeof(word), "%s=%s", opt, slot);
            } else {
                snprintf(word, sizeof(word), "-%c%s", argv[a][1], slot);
            }
            strcpy(slot, word);
            al->argv[a] = slot;
        }
    }
    return SP_OK;
}

/* The collective list was -c before -c became nccl-tests' --check: a value that is not a
 * number gets the move explained instead of "not an integer". */
static void explain_old_c(int argc, char **argv, int first, char *err, size_t errlen)
{
    char value[160];

    if (strncmp(err, "--check: '", 10) != 0) {
        return;
    }
    for (int a = first; a < argc; a++) {
        const char *v = NULL;
        if (strcmp(argv[a], "-c") == 0 || strcmp(argv[a], "--check") == 0) {
            v = a + 1 < argc ? argv[a + 1] : NULL;
        } else if (strncmp(argv[a], "--check=", 8) == 0) {
            v = argv[a] + 8;
        } else if (strncmp(argv[a], "-c", 2) == 0) {
            v = argv[a] + 2;
        }
        if (v != NULL && v[0] != '\0' && (v[0] < '0' || v[0] > '9') && v[0] != '-') {
            snprintf(value, sizeof(value), "%.128s", v);
            snprintf(err, errlen, "-c is nccl-tests' --check N now (1: verify the data, 0: "
                     "skip it); the collectives moved to --collectives: --collectives %s",
                     value);
            return;
        }
    }
}

/* nccl-tests' flags that scaleprobe takes at one value only: any other value says why. */
static sp_status_t check_nccltests(sp_coll_opts_t *opts, char *err, size_t errlen)
{
    if (opts->ngpus != 1 || opts->nthreads != 1) {
        snprintf(err, errlen, "%s %ld: scaleprobe drives one GPU per MPI rank (no threads or "
                 "GPUs per process); launch one rank per GPU instead, e.g. mpirun -np <nodes x "
                 "GPUs per node> or srun --ntasks-per-node=<GPUs per node>",
                 opts->ngpus != 1 ? "-g/--ngpus" : "-t/--nthreads",
                 opts->ngpus != 1 ? opts->ngpus : opts->nthreads);
        return SP_ERR_INVALID;
    }
    if (opts->agg_iters != 1) {
        snprintf(err, errlen, "-m/--agg-iters %ld: aggregating operations into one group call "
                 "is not implemented; scaleprobe times batches of back-to-back operations "
                 "(-k/--batch)", opts->agg_iters);
        return SP_ERR_INVALID;
    }
    if (opts->blocking != 0 && opts->cuda_graph) {
        snprintf(err, errlen, "-z 1 with -G: a CUDA graph is captured without running, so it "
                 "cannot wait for each collective inside it; give one of them");
        return SP_ERR_INVALID;
    }
    if (opts->report_cputime != 0) {
        snprintf(err, errlen, "-C 1 (nccl-tests reports the host's time to launch the batch "
                 "instead of its completion time, with the bandwidths still from completion) is "
                 "not implemented: on the host backend every collective is a blocking MPI call, "
                 "so launch time and completion time are the same number, and the result file "
                 "has no column for a launch time on the nccl backend");
        return SP_ERR_INVALID;
    }
    if (opts->local_register != 0) {
        snprintf(err, errlen, "-R %ld: NCCL buffer registration is not implemented; buffers "
                 "are plain allocations", opts->local_register);
        return SP_ERR_INVALID;
    }
    if (opts->check > 1) {
        snprintf(err, errlen, "-c %ld: scaleprobe verifies each point once, on the buffers of "
                 "its timed operations; give -c 1 (or -c 0 to skip the check)", opts->check);
        return SP_ERR_INVALID;
    }
    if (opts->check == 0) {
        opts->no_check = 1;
    }
    return SP_OK;
}

/* --split, or else nccl-tests' NCCL_TESTS_SPLIT (then NCCL_TESTS_SPLIT_MASK, a mask) taken into
 * opts->split, so /config records the split that ran. */
static sp_status_t check_split(sp_coll_opts_t *opts, const unsigned char *seen, char *err,
                               size_t errlen)
{
    const char *from = "--split";
    sp_split_t split;
    sp_status_t status;

    if (!given(seen, "split")) {
        const char *env = getenv("NCCL_TESTS_SPLIT");
        const char *mask = getenv("NCCL_TESTS_SPLIT_MASK");
        from = env != NULL ? "NCCL_TESTS_SPLIT" : "NCCL_TESTS_SPLIT_MASK";
        env = env != NULL ? env : mask;
        if (env != NULL && strlen(env) >= sizeof(opts->split)) {
            snprintf(err, errlen, "%s is too long", from);
            return SP_ERR_INVALID;
        }
        snprintf(opts->split, sizeof(opts->split), "%s", env != NULL ? env : "");
    }
    status = sp_split_parse(opts->split, &split, err, errlen);
    if (status != SP_OK && strcmp(from, "--split") != 0) {
        /* name the variable the bad value came from */
        char why[SP_OPT_STRLEN * 2];
        snprintf(why, sizeof(why), "%s", err);
        snprintf(err, errlen, "%s (from %s)", why, from);
    }
    return status;
}

sp_status_t sp_coll_opts_parse(int argc, char **argv, int first, sp_coll_opts_t *opts,
                               int *help_p, char *err, size_t errlen)
{
    unsigned char seen[sizeof(coll_defs) / sizeof(coll_defs[0])];
    alias_argv_t *al;
    sp_status_t status;
    size_t nsizes;

    memset(opts, 0, sizeof(*opts));
    memset(seen, 0, sizeof(seen));
    *help_p = 0;
    al = calloc(1, sizeof(*al));
    if (al != NULL) {
        al->argv = calloc((size_t)argc + 1, sizeof(*al->argv));
    }
    if (al == NULL || al->argv == NULL) {
        free(al);
        snprintf(err, errlen, "out of memory");
        return SP_ERR_NOMEM;
    }
    status = resolve_aliases(argc, argv, first, al, err, errlen);
    if (status == SP_OK) {
        status = sp_opts_parse(&sp_coll_opt_table, argc, al->argv, first, opts, help_p, seen, err,
                               errlen);
    }
    free(al->argv);
    free(al);
    if (status != SP_OK) {
        explain_old_c(argc, argv, first, err, errlen);
    }
    if (status != SP_OK || *help_p) {
        return status;
    }
    status = check_nccltests(opts, err, errlen);
    if (status == SP_OK) {
        status = check_method(opts, seen, err, errlen);
    }
    if (status == SP_OK) {
        status = check_split(opts, seen, err, errlen);
    }
    if (status != SP_OK) {
        return status;
    }
    if (opts->maxbytes == 0) {
        snprintf(err, errlen, "no measurable size: --maxbytes 0 leaves only the 0-byte point, "
                 "which moves no data (give -e 1 or more)");
        return SP_ERR_INVALID;
    }
    if (opts->minbytes > opts->maxbytes) {
        snprintf(err, errlen, "invalid sizes: --minbytes %llu is larger than --maxbytes %llu",
                 (unsigned long long)opts->minbytes, (unsigned long long)opts->maxbytes);
        return SP_ERR_INVALID;
    }
    if (opts->stepfactor > 1 && opts->minbytes == 0 && opts->maxbytes > 0) {
        snprintf(err, errlen, "--minbytes 0 with --stepfactor %ld never grows; start at 1 or more",
                 opts->stepfactor);
        return SP_ERR_INVALID;
    }
    if (opts->stepfactor <= 1 && opts->stepbytes == 0 && opts->maxbytes > opts->minbytes) {
        snprintf(err, errlen, "--stepbytes 0 with --stepfactor 1 never grows");
        return SP_ERR_INVALID;
    }
    if (sp_coll_sizes(opts, NULL, SP_MAX_SIZES, &nsizes) != SP_OK) {
        snprintf(err, errlen, "the sizes from --minbytes to --maxbytes make more than %d points; "
                 "use a larger --stepfactor or --stepbytes", SP_MAX_SIZES);
        return SP_ERR_INVALID;
    }
    if (opts->min_samples > opts->max_samples) {
        snprintf(err, errlen, "--min-samples %ld is larger than --max-samples %ld",
                 opts->min_samples, opts->max_samples);
        return SP_ERR_INVALID;
    }
    return SP_OK;
}

/* Whether some size of the sweep moves data for collective kind of type dt on nranks: a sweep
 * whose every point rounds to zero elements (nccl-tests' per-rank rounding) measures nothing. */
static int moves_data(const sp_coll_opts_t *opts, sp_coll_kind_t kind, sp_dtype_t dt, int nranks)
{
    sp_coll_args_t args;

    sp_coll_args_init(&args, kind, 0, nranks, dt, SP_REDOP_SUM, 0, 0, opts->maxbytes);
    return args.counts.param_count > 0;
}

sp_status_t sp_coll_opts_check_world(const sp_coll_opts_t *opts, int nranks, char *err,
                                     size_t errlen)
{
    /* -J: on every rank, so a shared file system answers the same everywhere */
    if (opts->json[0] != '\0' && !opts->run.force && access(opts->json, F_OK) == 0) {
        snprintf(err, errlen, "JSON file %s exists; choose another -J or add --force to "
                 "overwrite it", opts->json);
        return SP_ERR_INVALID;
    }
    if (opts->json[0] != '\0' && strcmp(opts->json, opts->run.output) == 0) {
        snprintf(err, errlen, "-J %s names the result file (-O) too; give two paths", opts->json);
        return SP_ERR_INVALID;
    }
    if (opts->root >= nranks) {
        snprintf(err, errlen, "--root %ld is not a rank of this job (%d ranks: 0..%d, or -1 for all)",
                 opts->root, nranks, nranks - 1);
        return SP_ERR_INVALID;
    }
    for (int c = 0; c < SP_COLL_COUNT; c++) {
        for (int t = 0; t < SP_DTYPE_COUNT; t++) {
            if ((opts->colls & (1u << c)) && (opts->dtypes & (1u << t)) &&
                !moves_data(opts, (sp_coll_kind_t)c, (sp_dtype_t)t, nranks)) {
                snprintf(err, errlen, "no measurable size: %s of %s on %d ranks moves no data at "
                         "--maxbytes %llu (each rank's part rounds down to 0 elements; give a "
                         "larger -e)", sp_coll_names[c], sp_dtype_names[t], nranks,
                         (unsigned long long)opts->maxbytes);
                return SP_ERR_INVALID;
            }
        }
    }
    return SP_OK;
}

double sp_coll_epsilon(const sp_coll_opts_t *opts, uint64_t bytes)
{
    if (opts->epsilon > 0.0) {
        return opts->epsilon;
    }
    return bytes > 64 * 1024 ? 0.01 : 0.03;
}

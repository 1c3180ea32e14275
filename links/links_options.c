/* The option table of `scaleprobe links`. */
#include "links_options.h"

#include <stdio.h>
#include <string.h>

#define OFF(field) offsetof(sp_links_opts_t, field)

const char *const sp_links_per_names[SP_LINKS_PER_COUNT] = {"node", "rank", "rail"};
const char *const sp_links_mode_names[SP_LINKS_MODE_COUNT] = {"matrix", "screen", "both"};

static const sp_opt_def_t links_defs[] = {
    {"mode", 0, SP_OPT_CHOICE, OFF(mode), "matrix", "NAME",
     "matrix (pairwise rounds, n-1 of them), screen (bisection with group all_reduce, "
     "O(log n) rounds) or both (screen first)",
     0, -1, sp_links_mode_names, SP_LINKS_MODE_COUNT},
    {"per", 0, SP_OPT_CHOICE, OFF(per), "node", "UNIT",
     "a unit of the matrix: node (its lowest rank), rank (every rank) or rail (local rank r "
     "of every node paired only with local rank r of the others, all rails at once: one "
     "matrix per GPU/NIC rail in the node matrix's rounds)",
     0, -1,
     sp_links_per_names, SP_LINKS_PER_COUNT},
    {"size", 's', SP_OPT_SIZE, OFF(size), "4M", "BYTES",
     "bandwidth: bytes per message, one direction at a time", 1, 1ull << 34, NULL, 0},
    {"lat-size", 0, SP_OPT_SIZE, OFF(lat_size), "8", "BYTES",
     "latency: bytes per message, exchanged by both ends at once", 1, 1ull << 20, NULL, 0},
    {"screen-size", 0, SP_OPT_SIZE, OFF(screen_size), "1M", "BYTES",
     "screening: bytes per all_reduce", 4, 1ull << 34, NULL, 0},
    {"rounds", 0, SP_OPT_INT, OFF(rounds), "0", "K",
     "matrix: measure K rounds spread over the schedule (a fast screen); 0: all", 0, 1 << 20,
     NULL, 0},
    {"iters", 'n', SP_OPT_INT, OFF(iters), "0", "N",
     "fixed number of samples per measurement; 0: sample until the CI target is met", 0, 1e6,
     NULL, 0},
    {"warmup", 'w', SP_OPT_INT, OFF(warmup), "2", "N", "untimed calls before the samples", 0, 1e6,
     NULL, 0},
    {"epsilon", 0, SP_OPT_DOUBLE, OFF(epsilon), "0.02", "E",
     "stop when the 95% CI of every pair's median is within +-E (relative)", 0.0001, 1, NULL, 0},
    {"min-samples", 0, SP_OPT_INT, OFF(min_samples), "10", "N", "samples before stopping", 1, 1e6,
     NULL, 0},
    {"max-samples", 0, SP_OPT_INT, OFF(max_samples), "100", "N",
     "samples at most per measurement", 6, 1e6, NULL, 0},
    {"max-time", 0, SP_OPT_DOUBLE, OFF(max_time), "2", "SEC",
     "time cap per measurement; it is marked not converged when it stops here", 0.001, 86400,
     NULL, 0},
    {"batch-time", 0, SP_OPT_DOUBLE, OFF(batch_time), "0.002", "SEC",
     "a timed batch repeats the call until it lasts at least this long", 0, 10, NULL, 0},
    {"threshold", 0, SP_OPT_DOUBLE, OFF(threshold), "0.2", "F",
     "slow bandwidth: a link's CI entirely below (1 - F) x the cohort's; screening: a "
     "half's time ratio CI above 1 + F",
     0.001, 0.99, NULL, 0},
    {"confirm", 0, SP_OPT_INT, OFF(confirm), "1", "N",
     "matrix: measure the pairs of every slow node and link N more times, in rounds of "
     "disjoint pairs; a link counts with its fastest pass (slow only when slow every time)",
     0, 10, NULL, 0},
    {"lat-threshold", 0, SP_OPT_DOUBLE, OFF(lat_threshold), "0.5", "F",
     "slow latency: a pair's CI entirely above 1 / (1 - F) x the cohort's latency (0.5: twice "
     "it)",
     0.001, 0.99, NULL, 0},
    {"screen-repeats", 0, SP_OPT_INT, OFF(screen_repeats), "3", "N",
     "screening: measurements of one split at most while it is inconclusive", 1, 100, NULL, 0},
    {"exclude", 0, SP_OPT_STRING, OFF(exclude), "", "PREFIX",
     "write the nodes to drain to PREFIX.txt (one host a line) and PREFIX.json (reason, "
     "evidence); Slurm commands are printed, never run",
     0, -1, NULL, 0},
    SP_RUN_OPT_ROWS(sp_links_opts_t, run, "links"),
};

const sp_opt_table_t sp_links_opt_table = {
    .command = "links",
    .summary = "Find the bad node and the bad link: a pairwise link matrix (bandwidth per "
               "direction, latency)\nin rounds of disjoint pairs, its node and link outliers "
               "with CIs, a bisection screen,\nand an exclude list for Slurm. Launch with mpirun "
               "or srun.",
    .defs = links_defs,
    .ndefs = (int)(sizeof(links_defs) / sizeof(links_defs[0])),
};

sp_status_t sp_links_opts_parse(int argc, char **argv, int first, sp_links_opts_t *opts,
                                int *help_p, char *err, size_t errlen)
{
    sp_status_t status;

    memset(opts, 0, sizeof(*opts));
    status = sp_opts_parse(&sp_links_opt_table, argc, argv, first, opts, help_p, NULL, err,
                           errlen);
    if (status != SP_OK || *help_p) {
        return status;
    }
    if (opts->min_samples > opts->max_samples) {
        snprintf(err, errlen, "--min-samples %ld is larger than --max-samples %ld",
                 opts->min_samples, opts->max_samples);
        return SP_ERR_INVALID;
    }
    if (opts->iters > 0 && opts->iters < 6) {
        snprintf(err, errlen, "--iters %ld: a median's 95%% CI needs at least 6 samples",
                 opts->iters);
        return SP_ERR_INVALID;
    }
    if (opts->screen_size % 4 != 0) {
        snprintf(err, errlen, "--screen-size %llu: the all_reduce sums 4-byte floats; give a "
                              "multiple of 4",
                 (unsigned long long)opts->screen_size);
        return SP_ERR_INVALID;
    }
    return SP_OK;
}

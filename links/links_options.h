/* Options of `scaleprobe links`: the table, the struct it fills, and the checks across fields.
 * Pure C, no MPI. The sampling options are spelled as the sweep's (-n, -w, --epsilon, ...). */
#ifndef SP_LINKS_OPTIONS_H
#define SP_LINKS_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "options.h"
#include "runopts.h"

/* What a unit of the matrix is: one rank per node (the node's lowest rank), every rank, or
 * every rank with pairs only within its rail (local rank r of each node with local rank r of the
 * others: one matrix per rail, all rails measured at once). */
typedef enum {
    SP_LINKS_PER_NODE = 0,
    SP_LINKS_PER_RANK,
    SP_LINKS_PER_RAIL,
    SP_LINKS_PER_COUNT
} sp_links_per_t;
extern const char *const sp_links_per_names[SP_LINKS_PER_COUNT];

/* matrix: pairwise rounds; screen: bisection with group all_reduce; both: screen, then matrix */
typedef enum {
    SP_LINKS_MODE_MATRIX = 0,
    SP_LINKS_MODE_SCREEN,
    SP_LINKS_MODE_BOTH,
    SP_LINKS_MODE_COUNT
} sp_links_mode_t;
extern const char *const sp_links_mode_names[SP_LINKS_MODE_COUNT];

typedef struct {
    int per;               /* sp_links_per_t */
    int mode;              /* sp_links_mode_t */
    uint64_t size;         /* bandwidth: bytes per message, one direction */
    uint64_t lat_size;     /* latency: bytes per message, exchanged */
    uint64_t screen_size;  /* screening: bytes per all_reduce */
    long rounds;           /* matrix: rounds measured (0: all) */
    long iters;            /* fixed samples per measurement; 0: until the CI target */
    long warmup;
    double epsilon;        /* CI target (relative half-width of the median's CI) */
    long min_samples;
    long max_samples;
    double max_time;       /* seconds per measurement */
    double batch_time;     /* seconds a timed batch should last at least */
    double threshold;      /* slow: CI entirely below (1 - threshold) x the cohort */
    double lat_threshold;  /* the same for latency (as a rate, 1 / latency) */
    long confirm;          /* confirmation passes over the suspect pairs */
    long screen_repeats;   /* screening: measurements of one split while inconclusive */
    char exclude[SP_OPT_STRLEN]; /* exclude list prefix: PREFIX.txt and PREFIX.json; "": none */
    sp_run_opts_t run;     /* -O, --force, --backend, --device, --timeout */
} sp_links_opts_t;

extern const sp_opt_table_t sp_links_opt_table;

/* Parse and check (argv[first..argc)); SP_ERR_INVALID with one message in err. */
sp_status_t sp_links_opts_parse(int argc, char **argv, int first, sp_links_opts_t *opts,
                                int *help_p, char *err, size_t errlen);

#endif

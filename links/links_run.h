/* Internals of `scaleprobe links` shared by its measurement files (links_run.c: the pairwise
 * rounds; links_screen.c: the bisection screen). Not a public interface. */
#ifndef SP_LINKS_RUN_H
#define SP_LINKS_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "context.h"
#include "links_options.h"
#include "links_result.h"

typedef struct {
    sp_ctx_t *ctx;
    const sp_links_opts_t *o;
    int n;                 /* units */
    int nnodes;            /* --per rail: nodes per rail (units are rail-major) */
    int nrails;            /* --per rail: rails (ranks per node); else 1 */
    int *unit_rank;        /* n: the world rank of each unit */
    int my_unit;           /* this rank's unit, -1: none */
    void *sbuf;            /* backend memory, buf_bytes each */
    void *rbuf;
    size_t buf_bytes;
    sp_event_t *ev0;
    sp_event_t *ev1;
    size_t max_samples;
    double *times;         /* max_samples: this rank's samples of the current measurement */
    double *times_b;       /* max_samples: the screen's second group */
    double *scratch;       /* max_samples */
    double *all;           /* rank 0: nranks x max_samples gathered */
    sp_links_result_data_t acc; /* rank 0: units, pairs, samples, outliers, screen so far */
    size_t cap_pairs;
    size_t cap_samples;
    int pass;              /* 0: the matrix; 1..: confirmations of suspect pairs */
} links_run_t;

/* The stop rule of the workload's options, with at least min_samples samples. */
int sp__links_done(const links_run_t *lr, const double *x, size_t n, double elapsed_s,
                   size_t min_samples);

/* A barrier over comm; with nap, waiting in short sleeps instead of polling, so an idle rank
 * takes no core from the ranks being timed (they share cores in emulation, and the non-unit
 * ranks of a node share it with its unit). Collective over comm. */
void sp__links_quiet_barrier(MPI_Comm comm, int nap);

/* The screen (links_screen.c): the bisection over the units, its steps into lr->acc and the
 * file, its verdict printed. Collective over ctx->world. */
sp_status_t sp__links_screen(links_run_t *lr);

#endif

/* Screening for one slow node in O(log n) rounds of group collectives: split the candidates in
 * two halves, time an all_reduce in each half at once (padded to equal size with nodes already
 * cleared), keep the slower half, repeat until one node is left; an inconclusive round is
 * repeated. The logic here is pure (the measurement is a callback), so it is unit tested on
 * simulated group times; docs/METHODOLOGY.md ("Screening by bisection") states the rule. */
#ifndef SP_LINKS_BISECT_H
#define SP_LINKS_BISECT_H

#include <stddef.h>

#include "status.h"

/* Time groups a[0..na) and b[0..nb) (units) at once: paired samples ta[i], tb[i] (seconds per
 * operation, the slowest unit of each group), i < *n_p <= cap, at least min_samples. On the
 * MPI side this is collective over the world; every rank must return the same samples. */
typedef sp_status_t (*sp_links_group_fn)(void *arg, const int *a, int na, const int *b, int nb,
                                         size_t min_samples, double *ta, double *tb, size_t cap,
                                         size_t *n_p);

typedef struct {
    double alpha;     /* error allowed for the whole search (0.05: 95% confidence) */
    double threshold; /* a half is slower when the CI of median(t_b / t_a) lies above
                       * 1 + threshold (or below 1 / (1 + threshold)) */
    int repeats;      /* measurements of one split at most while it is inconclusive */
    size_t max_samples;
} sp_links_bisect_params_t;

/* One measurement of a split: candidates [a_lo, a_hi) against [b_lo, b_hi) (unit order), each
 * padded with cleared units to group_size. */
typedef struct {
    int level;
    int attempt;
    int a_lo, a_hi, b_lo, b_hi;
    int group_size;
    size_t samples;
    double ratio;      /* median over samples of t_b / t_a */
    double ratio_lo;   /* its CI at the per-decision confidence */
    double ratio_hi;
    double ta_median;  /* seconds per all_reduce */
    double tb_median;
    int decision;      /* -1: a is slower, +1: b is slower, 0: inconclusive */
} sp_links_bisect_step_t;

typedef struct {
    int verdict;       /* the slow unit; -1: no half was slower (none found); -2: stopped with
                        * several candidates left, [cand_lo, cand_hi) */
    int cand_lo, cand_hi;
    int rounds;        /* group measurements made (each a round of two group collectives) */
    int levels;        /* splits decided */
    double conf_step;  /* confidence of each decision: 1 - alpha / (max levels x repeats) */
    double conf;       /* of the verdict: 1 - alpha (Bonferroni over every decision allowed) */
} sp_links_bisect_result_t;

/* Decisions a search of n units may take at most: ceil(log2 n). */
int sp_links_bisect_max_levels(int n);

/* Samples needed for a median CI at confidence conf (order statistics). */
size_t sp_links_bisect_min_samples(double conf);

/*
 * The groups of one split: the candidates [a_lo, a_hi) and [b_lo, b_hi) of n units, each padded
 * to size m = max(size a, size b, 2) with units outside [a_lo, b_hi) (in unit order). Writes
 * both groups (a and b hold m entries) and returns m, or -1 when too few units are cleared.
 */
int sp_links_bisect_groups(int n, int a_lo, int a_hi, int b_lo, int b_hi, int *a, int *b);

/* Decide one split from n paired samples at confidence conf (see step.decision); scratch holds
 * n doubles. */
int sp_links_bisect_decide(const double *ta, const double *tb, size_t n, double conf,
                           double threshold, double *scratch, sp_links_bisect_step_t *step);

/*
 * Run the search over n >= 4 units. steps (cap entries) receives every measurement in order,
 * *nsteps_p how many. SP_ERR_INVALID for n < 4 or bad parameters; the callback's status
 * otherwise.
 */
sp_status_t sp_links_bisect(int n, const sp_links_bisect_params_t *p, sp_links_group_fn measure,
                            void *arg, sp_links_bisect_step_t *steps, int cap, int *nsteps_p,
                            sp_links_bisect_result_t *res);

#endif

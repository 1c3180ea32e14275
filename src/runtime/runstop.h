/* When a measurement loop stops, written once for every workload: the stop rule (a fixed count,
 * the confidence-interval target, a sample cap, a time cap) and the agreement among ranks on
 * stopping and on a pending SIGTERM/SIGINT. Agreement is MPI control traffic: call it outside
 * timed regions only. */
#ifndef SP_RUNSTOP_H
#define SP_RUNSTOP_H

#include <mpi.h>
#include <stddef.h>

#include "seqstats.h"
#include "status.h"

/* Fewest samples with which the CI target can be met: 10 batches of at least sqrt(n) samples. */
#define SP_STOP_RULE_MIN_CONVERGED (SP_SEQ_MIN_BATCHES * SP_SEQ_MIN_BATCHES)

/* The rule for one measurement (a sweep point, a node measurement, the proxy's steps). */
typedef struct {
    size_t fixed;       /* > 0: exactly this many samples; the CI is reported, not a reason */
    size_t min_samples; /* samples before the CI may stop it */
    size_t max_samples; /* samples at most */
    double max_time_s;  /* time cap */
    double epsilon;     /* CI target: relative half-width of the median's dependence-aware 95%
                           CI (seqstats.h); also the smallest change over the samples that
                           counts as drift */
} sp_stop_rule_t;

/* Doubles of scratch the functions below need for n samples. */
size_t sp_stop_rule_scratch_len(size_t n);

/*
 * The statistics the rule decides on, for x[0..n) in time order: sp_seq_analyze at 95% with the
 * drift flag's smallest change set to rule->epsilon. scratch holds sp_stop_rule_scratch_len(n)
 * doubles and must not alias x. Pure, no MPI.
 */
void sp_stop_rule_stats(const sp_stop_rule_t *rule, const double *x, size_t n, double *scratch,
                        sp_seqstats_t *s_p);

/*
 * Whether s (from sp_stop_rule_stats) meets the CI target: sp_seq_converged with at least
 * min_samples (1 with a fixed count) and rule->epsilon. A drifting series never does.
 */
int sp_stop_rule_converged(const sp_stop_rule_t *rule, const sp_seqstats_t *s);

/*
 * Whether a measurement with n samples x[0..n) (in time order) after elapsed_s seconds stops:
 * with a fixed count at n >= fixed; otherwise when the CI target is met
 * (sp_stop_rule_converged), n >= max_samples or elapsed_s >= max_time_s. converged_p (may be
 * NULL) says whether the CI target is met (with a fixed count: once n >= fixed). scratch holds
 * sp_stop_rule_scratch_len(n) doubles and must not alias x; x is not changed. Pure, no MPI.
 */
int sp_stop_rule_check(const sp_stop_rule_t *rule, const double *x, size_t n, double elapsed_s,
                       double *scratch, int *converged_p);

/* Who decides that a measurement is done. */
typedef enum {
    SP_RUNSTOP_RANK0 = 0, /* rank 0's decision holds for every rank */
    SP_RUNSTOP_ALL        /* done when every rank is done */
} sp_runstop_mode_t;

/*
 * Agree over comm on a status, on stopping and on a signal, in one all-reduce. done is this
 * rank's decision (read on rank 0 only in SP_RUNSTOP_RANK0 mode); *stop_p is set to the
 * agreed decision. Returns the agreed status (a failed rank keeps its own, as sp_agree), else
 * SP_ERR_INTERRUPTED when any rank got SIGTERM or SIGINT, else SP_OK. Collective over comm.
 */
sp_status_t sp_runstop_agree(MPI_Comm comm, sp_status_t status, sp_runstop_mode_t mode, int done,
                             int *stop_p);

/* The signal any rank of comm got (the largest number; 0: none). Collective over comm. */
int sp_runstop_signal(MPI_Comm comm);

#endif

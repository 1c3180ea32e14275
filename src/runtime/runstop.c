/* The stop rule and the stop agreement (see runstop.h). */
#include "runstop.h"

#include "signals.h"

size_t sp_stop_rule_scratch_len(size_t n)
{
    return sp_seq_scratch_len(n);
}

void sp_stop_rule_stats(const sp_stop_rule_t *rule, const double *x, size_t n, double *scratch,
                        sp_seqstats_t *s_p)
{
    sp_seq_params_t p = sp_seq_params_default();

    /* a change smaller than the precision asked for is not a defect of the measurement */
    p.drift_min_rel = rule->epsilon;
    sp_seq_analyze(x, n, &p, scratch, s_p);
}

int sp_stop_rule_converged(const sp_stop_rule_t *rule, const sp_seqstats_t *s)
{
    return sp_seq_converged(s, rule->fixed > 0 ? 1 : rule->min_samples, rule->epsilon);
}

int sp_stop_rule_check(const sp_stop_rule_t *rule, const double *x, size_t n, double elapsed_s,
                       double *scratch, int *converged_p)
{
    size_t need = rule->fixed > 0 ? rule->fixed : rule->min_samples;
    int converged = 0;

    if (n > 0 && n >= need) {
        sp_seqstats_t s;
        sp_stop_rule_stats(rule, x, n, scratch, &s);
        converged = sp_stop_rule_converged(rule, &s);
    }
    if (converged_p != NULL) {
        *converged_p = converged;
    }
    if (rule->fixed > 0) {
        return n >= rule->fixed;
    }
    return converged || n >= rule->max_samples || elapsed_s >= rule->max_time_s;
}

sp_status_t sp_runstop_agree(MPI_Comm comm, sp_status_t status, sp_runstop_mode_t mode, int done,
                             int *stop_p)
{
    int rank = 0;
    int in[3];
    int out[3];

    MPI_Comm_rank(comm, &rank);
    /* one MIN all-reduce: the lowest status, done only when every rank counted is done, and the
     * largest signal number (negated) */
    in[0] = (int)status;
    in[1] = mode == SP_RUNSTOP_RANK0 && rank != 0 ? 1 : done != 0;
    in[2] = -sp_signal_pending();
    MPI_Allreduce(in, out, 3, MPI_INT, MPI_MIN, comm);
    *stop_p = out[1];
    if (out[0] != SP_OK) {
        return status != SP_OK ? status : (sp_status_t)out[0];
    }
    return out[2] < 0 ? SP_ERR_INTERRUPTED : SP_OK;
}

int sp_runstop_signal(MPI_Comm comm)
{
    int mine = sp_signal_pending();
    int any = 0;

    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm);
    return any;
}

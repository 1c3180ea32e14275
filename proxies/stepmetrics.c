/* Step metrics from a task program and its intervals (see stepmetrics.h). */
#include "stepmetrics.h"

#include <math.h>

/* Union of the intervals of one lane class (all communication when cls < 0) into out (room for
 * prog->n); returns its length. */
static size_t class_union(const sp_program_t *prog, const sp_interval_t *iv, int cls,
                          sp_interval_t *out)
{
    size_t k = 0, nu = 0;

    for (size_t i = 0; i < prog->n; i++) {
        int c = sp_lane_class(prog->tasks[i].lane);
        if (cls < 0 ? c != SP_LANE_CLASS_COMPUTE : c == cls) {
            out[k++] = iv[i];
        }
    }
    sp_intervals_union(out, k, out, &nu);
    return nu;
}

static void lane_metrics(const sp_program_t *prog, const sp_interval_t *iv, int cls,
                         const sp_interval_t *u, size_t nu, sp_interval_t *scratch, double *ms,
                         double *overlap, double *exposed)
{
    size_t nc = class_union(prog, iv, cls, scratch);
    int64_t len = sp_intervals_length(scratch, nc);
    int64_t both = sp_intervals_intersect_length(scratch, nc, u, nu);

    *ms = (double)len / 1e6;
    *overlap = len > 0 ? (double)both / (double)len : NAN;
    *exposed = (double)(len - both) / 1e6;
}

/* Idle gaps of the compute lane, each charged to the phase of the task it precedes; the gap
 * after the last compute task, to the step's end, is cool-down. */
static void bubble_phases(const sp_program_t *prog, const sp_interval_t *iv, int64_t step_ns,
                          double ms[SP_PHASE_COUNT])
{
    int64_t prev = 0;

    for (size_t i = 0; i < prog->n; i++) {
        const sp_task_t *t = &prog->tasks[i];
        if (t->kind != SP_TASK_COMPUTE) {
            continue;
        }
        if (iv[i].start_ns > prev) {
            ms[t->phase] += (double)(iv[i].start_ns - prev) / 1e6;
        }
        prev = iv[i].end_ns > prev ? iv[i].end_ns : prev;
    }
    if (step_ns > prev) {
        ms[SP_PHASE_COOLDOWN] += (double)(step_ns - prev) / 1e6;
    }
}

/* Mean of measured / nominal compute time for tasks that ran with (1) and without (0)
 * communication in flight; their ratio, NaN when either set is empty. */
static double slowdown(const sp_program_t *prog, const sp_interval_t *iv,
                       const sp_interval_t *comm, size_t ncomm)
{
    double sum[2] = {0.0, 0.0}, cnt[2] = {0.0, 0.0};

    for (size_t i = 0; i < prog->n; i++) {
        const sp_task_t *t = &prog->tasks[i];
        int with;
        if (t->kind != SP_TASK_COMPUTE || t->dur_ns == 0) {
            continue;
        }
        with = sp_intervals_intersect_length(&iv[i], 1, comm, ncomm) > 0;
        sum[with] += (double)(iv[i].end_ns - iv[i].start_ns) / (double)t->dur_ns;
        cnt[with] += 1.0;
    }
    if (cnt[0] == 0.0 || cnt[1] == 0.0) {
        return NAN;
    }
    return (sum[1] / cnt[1]) / (sum[0] / cnt[0]);
}

/* Length of the task intervals of one lane class (sends only when sends_only) outside the
 * union list *cover (of *ncover intervals), then that class merged into *cover. set: room for
 * prog->n; cover: room for prog->n + 1 (every task's interval at most once in all). */
static int64_t charge_class(const sp_program_t *prog, const sp_interval_t *iv, int cls,
                            int sends_only, sp_interval_t *set, sp_interval_t *cover,
                            size_t *ncover)
{
    size_t k = 0, nu = 0;
    int64_t len, outside;

    for (size_t i = 0; i < prog->n; i++) {
        if ((int)sp_lane_class(prog->tasks[i].lane) == cls &&
            (!sends_only || prog->tasks[i].kind == SP_TASK_SEND)) {
            set[k++] = iv[i];
        }
    }
    sp_intervals_union(set, k, set, &nu);
    len = sp_intervals_length(set, nu);
    outside = len - sp_intervals_intersect_length(set, nu, cover, *ncover);
    for (size_t i = 0; i < nu; i++) {
        cover[*ncover + i] = set[i];
    }
    sp_intervals_union(cover, *ncover + nu, cover, ncover);
    return outside;
}

/* The time without compute split by cause (proxy_result.h: idle_ms and the *_excl_ms). */
static void split_non_compute(const sp_program_t *prog, const sp_interval_t *iv, int64_t step_ns,
                              const sp_interval_t *u, size_t nu, sp_interval_t *scratch,
                              sp_proxy_rank_row_t *r)
{
    sp_interval_t *cover = scratch, *set = scratch + prog->n + 1;
    size_t ncover = nu;
    int64_t tp, dp, pp, busy = sp_intervals_length(u, nu);

    for (size_t i = 0; i < nu; i++) {
        cover[i] = u[i];
    }
    tp = charge_class(prog, iv, SP_LANE_CLASS_TP, 0, set, cover, &ncover);
    dp = charge_class(prog, iv, SP_LANE_CLASS_DP, 0, set, cover, &ncover);
    pp = charge_class(prog, iv, SP_LANE_CLASS_PP, 1, set, cover, &ncover);
    r->tp_excl_ms = (double)tp / 1e6;
    r->dp_excl_ms = (double)dp / 1e6;
    r->pp_excl_ms = (double)pp / 1e6;
    r->idle_ms = (double)(step_ns - busy - tp - dp - pp) / 1e6;
}

void sp_step_metrics(const sp_program_t *prog, const sp_interval_t *iv, int64_t step_ns,
                     sp_interval_t *scratch, sp_proxy_rank_row_t *r, int64_t *busy_ns_p)
{
    sp_interval_t *u = scratch, *comm = scratch + prog->n + 1;
    double phase[SP_PHASE_COUNT] = {0};
    size_t nu = class_union(prog, iv, SP_LANE_CLASS_COMPUTE, u), ncomm;
    int64_t busy = sp_intervals_length(u, nu);

    r->step_ms = (double)step_ns / 1e6;
    r->busy_ms = (double)busy / 1e6;
    r->bubble_ms = (double)(step_ns - busy) / 1e6;
    r->bubble_frac = step_ns > 0 ? (double)(step_ns - busy) / (double)step_ns : 0.0;
    bubble_phases(prog, iv, step_ns, phase);
    r->warmup_ms = phase[SP_PHASE_WARMUP];
    r->steady_ms = phase[SP_PHASE_STEADY];
    r->cooldown_ms = phase[SP_PHASE_COOLDOWN];
    lane_metrics(prog, iv, SP_LANE_CLASS_TP, u, nu, comm, &r->tp_ms, &r->tp_overlap,
                 &r->tp_exposed_ms);
    lane_metrics(prog, iv, SP_LANE_CLASS_PP, u, nu, comm, &r->pp_ms, &r->pp_overlap,
                 &r->pp_exposed_ms);
    lane_metrics(prog, iv, SP_LANE_CLASS_DP, u, nu, comm, &r->dp_ms, &r->dp_overlap,
                 &r->dp_exposed_ms);
    ncomm = class_union(prog, iv, -1, comm);
    r->exposed_ms = (double)(sp_intervals_length(comm, ncomm) -
                             sp_intervals_intersect_length(comm, ncomm, u, nu)) /
                    1e6;
    r->slowdown = slowdown(prog, iv, comm, ncomm);
    split_non_compute(prog, iv, step_ns, u, nu, comm, r);
    if (busy_ns_p != NULL) {
        *busy_ns_p = busy;
    }
}

void sp_step_op_spans(const sp_program_t *prog, const sp_interval_t *iv, sp_interval_t *span,
                      double sums[3], double counts[3])
{
    for (size_t k = 0; k < prog->n_sched_ops; k++) {
        span[k].start_ns = INT64_MAX;
        span[k].end_ns = INT64_MIN;
    }
    for (size_t i = 0; i < prog->n; i++) {
        const sp_task_t *t = &prog->tasks[i];
        if (t->kind == SP_TASK_COMPUTE && t->sched_op >= 0 &&
            (size_t)t->sched_op < prog->n_sched_ops) {
            sp_interval_t *s = &span[t->sched_op];
            s->start_ns = iv[i].start_ns < s->start_ns ? iv[i].start_ns : s->start_ns;
            s->end_ns = iv[i].end_ns > s->end_ns ? iv[i].end_ns : s->end_ns;
        }
    }
    for (size_t k = 0; k < prog->n_sched_ops; k++) {
        if (span[k].end_ns >= span[k].start_ns) {
            sums[prog->sched[k].type] += (double)(span[k].end_ns - span[k].start_ns);
            counts[prog->sched[k].type] += 1.0;
        }
    }
}

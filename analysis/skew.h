/* Cross-rank matching of collective instances: for each instance (the events of all ranks that
 * share one seq), who arrived first and last, by how much, and how long each rank waited.
 *
 * A late rank is identified by its ARRIVAL time (start_ns), never by its duration. In a
 * synchronizing collective every rank leaves at about the same time, so the ranks that came
 * early spend the difference waiting inside the call and the late rank's own duration is the
 * SHORTEST: picking the longest duration names one of the victims, not the culprit.
 *
 * Times must already be on one global clock (the clock model applied). err_ns is that model's
 * error bound: two arrivals closer than or exactly err_ns apart cannot be ordered, so the last
 * arriver is only named ("resolved") when it is later than the next one by more than err_ns.
 *
 * An event that covers a timed batch (nops = k > 1) is matched by its seq, the seq of its first
 * operation: every rank records the same batch with the same seq, so the batch is one instance
 * and its arrival is the start of the batch. */
#ifndef SP_SKEW_H
#define SP_SKEW_H

#include <stddef.h>
#include <stdint.h>

#include "lateness.h"
#include "status.h"
#include "timeline.h"

/* One collective instance. Only events with kind == SP_EV_COLL take part. */
typedef struct {
    uint64_t seq;
    int32_t op;      /* the instance's op (sp_coll_kind_t); -1 when its events disagree */
    int32_t nops;    /* operations per event (a batch); -1 when its events disagree */
    int nranks_seen; /* ranks with an event in this instance */
    int complete;    /* 1 when nranks_seen == nranks; otherwise a rank is missing (e.g. its
                      * buffer dropped the event) and the true last arriver may be that
                      * one: first/last below are among the ranks seen */
    int first_rank;  /* earliest start_ns (ties: lowest rank) */
    int last_rank;   /* latest start_ns (ties: highest rank, and then never resolved) */
    int64_t first_start_ns;
    int64_t last_start_ns;
    int64_t skew_ns;        /* last_start_ns - first_start_ns */
    int64_t last_margin_ns; /* last start - second-latest start; 0 with one rank */
    int resolved;           /* last_margin_ns > err_ns: last_rank is really the last arriver */
} sp_instance_t;

/* Group the SP_EV_COLL events of ev[0..n) (any order, any mix of kinds) by seq, in O(n log n);
 * ev is not modified (a private key array is sorted instead).
 *   nranks: ranks of the job; every coll event's rank must be in [0, nranks)
 *   err_ns: clock error bound, >= 0
 * On success *inst_p is a malloc'ed array of *ninst_p instances sorted by seq, owned by the
 * caller (free()); NULL when there is no coll event. Outputs are set only on success.
 * Returns SP_ERR_INVALID for bad arguments, a rank out of range or a rank with two coll events
 * of the same seq (logged; seq is meant to be unique per rank); SP_ERR_NOMEM. */
sp_status_t sp_skew_match(const sp_event_rec_t *ev, size_t n, int nranks, int64_t err_ns,
                          sp_instance_t **inst_p, size_t *ninst_p);

/* For every event of ev[0..n), the time it waited for the last peer of its instance:
 * wait_ns[i] = (latest start_ns of ev[i]'s instance) - ev[i].start_ns, >= 0 for coll events (0 for
 * the last arriver) and -1 for events of other kinds. wait_ns has n entries, aligned with ev, and
 * is written only on success. O(n log n); ranks are not checked (see sp_skew_match).
 * Returns SP_ERR_INVALID for NULL pointers with n > 0, SP_ERR_NOMEM. */
sp_status_t sp_skew_waits(const sp_event_rec_t *ev, size_t n, int64_t *wait_ns);

/* The same at node level, for a node that is slow as a whole (all its ranks late together, so
 * no single rank is last): a node arrives when its last rank does; in every instance spanning
 * 2 or more nodes whose last node arrived more than err_ns after the second-latest, that node
 * gets one count (last_count[node]) and the margin (late_ns[node]). node_of[r] is rank r's node
 * in [0, nnodes); last_count and late_ns have nnodes entries and are zeroed first; *resolved_p
 * is the number of such instances. SP_ERR_INVALID for NULL pointers or a node out of range,
 * SP_ERR_NOMEM. */
sp_status_t sp_skew_node_lateness(const sp_event_rec_t *ev, size_t n, const int *node_of,
                                  int nranks, int nnodes, int64_t err_ns, uint64_t *last_count,
                                  int64_t *late_ns, size_t *resolved_p);

/* The late rank of every sweep point in a timeline, by the rule the sweep applies live
 * (lateness.h, docs/METHODOLOGY.md "The late rank"), but on the run's full clock model (start
 * and end synchronization) the timeline was mapped with. A point is the run of instances, in seq
 * order, that starts at one whose events have step 0 (the sweep numbers a point's samples from
 * 0); only instances with an event from every rank are counted (a dropped event leaves the
 * arrival order unknown). err_ns: the clock error bound, >= 0.
 * On success *points_p is a malloc'ed array of *npoints_p verdicts in sweep order, owned by the
 * caller (NULL when there is no coll event). SP_ERR_INVALID (bad arguments, a rank out of
 * range), SP_ERR_NOMEM. */
sp_status_t sp_skew_point_lateness(const sp_event_rec_t *ev, size_t n, int nranks, int64_t err_ns,
                                   sp_late_t **points_p, size_t *npoints_p);

/* counts[r] = number of resolved instances whose last arriver is rank r, for r in [0, nranks);
 * counts is zeroed first. Unresolved instances are not counted anywhere. */
void sp_skew_last_counts(const sp_instance_t *inst, size_t ninst, int nranks, uint64_t *counts);

/* Median skew over all instances (mean of the two middle ones, rounded down, for an even count)
 * and the number of resolved instances. Outputs set only on success.
 * Returns SP_ERR_INVALID when ninst is 0 (no median) or a pointer is NULL, SP_ERR_NOMEM. */
sp_status_t sp_skew_summary(const sp_instance_t *inst, size_t ninst, int64_t *median_skew_ns_p,
                            size_t *resolved_count_p);

#endif

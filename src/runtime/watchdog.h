/* The watchdog: bounds every wait of a run by --timeout. The main thread beats at each step of
 * its work (the same sequence of beats on every rank, so beat numbers compare across ranks); a
 * thread per rank checks the time since the last beat. When rank 0 has made no progress for
 * the timeout, its watchdog asks every other rank's watchdog (over a communicator of their own)
 * for its last beat, collects the answers for 3 s, names the ranks behind the most advanced one
 * (the ones that did not arrive) and those that did not answer, with what each was last doing,
 * and ends the job with MPI_Abort. A rank in a task predicted to be long gets longer
 * (sp_watchdog_expect). The result file needs nothing more: it is flushed after every point
 * and says "partial" until a clean close. A rank whose rank 0 never ends the job (rank 0 dead)
 * ends it itself 10 s later. */
#ifndef SP_WATCHDOG_H
#define SP_WATCHDOG_H

#include <mpi.h>
#include <stdint.h>

#include "status.h"

typedef struct sp_watchdog sp_watchdog_t;

/* Start the watchdog of this rank (collective over comm, which it duplicates). timeout_s <= 0
 * starts none (*wd_p = NULL; beats are then no-ops). */
sp_status_t sp_watchdog_start(MPI_Comm comm, double timeout_s, sp_watchdog_t **wd_p);

/* Mark progress: what the rank starts doing now (printf format, kept to 160 characters). Cheap:
 * a lock, a clock read and a format. NULL wd: nothing. */
void sp_watchdog_beat(sp_watchdog_t *wd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Mark the rank alive without a new beat (the same beat number and activity): a long phase
 * whose parts complete (the proxy's tasks) is progress, not a hang. NULL wd: nothing. */
void sp_watchdog_alive(sp_watchdog_t *wd);

/* The deadline of a predicted long task: a rank whose work in flight is predicted to last P
 * seconds with no progress to show (one long compute task) may stay silent for
 * max(timeout, SP_WATCHDOG_PREDICT_FACTOR x P + SP_WATCHDOG_PREDICT_MARGIN_S) since its last
 * progress; outside such a task the timeout holds. */
#define SP_WATCHDOG_PREDICT_FACTOR 3.0
#define SP_WATCHDOG_PREDICT_MARGIN_S 1.0

/* Say that the work now in flight is predicted to last predicted_s seconds without progress
 * (the rule above), until the next call or beat; predicted_s <= 0: the timeout alone again. Does
 * not count as progress. NULL wd: nothing. */
void sp_watchdog_expect(sp_watchdog_t *wd, double predicted_s);

/* Change the timeout (e.g. behind a backend that bounds its own waits). NULL wd: nothing. */
void sp_watchdog_set_timeout(sp_watchdog_t *wd, double timeout_s);

/* How far the watchdog stays behind a backend that bounds its own waits by the same timeout, so
 * the backend's own report comes first. */
#define SP_WATCHDOG_GRACE_S 30.0

/* Stop the thread and free the watchdog (collective over comm; NULL is a no-op). */
void sp_watchdog_stop(sp_watchdog_t *wd);

/* Exit status the job ends with when the watchdog fires. */
#define SP_WATCHDOG_EXIT 3

#endif

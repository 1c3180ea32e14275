/* The watchdog thread (see watchdog.h). It never calls MPI but to end the job: the other ranks
 * tell rank 0 their state over the watchdog's own channel (wdnet.h) once they have waited half
 * the timeout, every second while they wait, so what rank 0 reports is current. */
#include "watchdog.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "timeutil.h"
#include "wdnet.h"

#define WHAT_LEN 160
#define TICK_NS 100000000L          /* the thread looks every 100 ms */
#define COLLECT_S 3.0               /* rank 0 waits at least this long for the others' states */
#define COLLECT_MAX_S 30.0          /* and at most this long */
#define ORPHAN_S 10.0               /* a rank ends the job itself this long after expiring */
#define TELL_EVERY_NS 1000000000L   /* a waiting rank tells rank 0 its state this often */
#define FRESH_NS 2500000000ULL      /* a state older than this (rank 0's clock) is stale: the
                                     * rank has moved on since, or stopped telling */

/* What a rank tells rank 0 when its wait expires. */
typedef struct {
    int32_t rank;
    int32_t pad;
    uint64_t beats;   /* beats so far: equal on ranks at the same point of the run */
    double waited_s;  /* since the last beat */
    double timeout_s; /* the timeout in force */
    double limit_s;   /* the silence allowed now: timeout_s, longer in a predicted long task */
    double predicted_s; /* that task's predicted length, 0: none */
    char what[WHAT_LEN];
} state_t;

struct sp_watchdog {
    MPI_Comm comm; /* for MPI_Abort only */
    sp_wdnet_t *net;
    int rank, nranks;
    double timeout_s;
    double predicted_s; /* sp_watchdog_expect */
    pthread_t thread;
    pthread_mutex_t lock;
    uint64_t beats;
    uint64_t last_ns;
    char what[WHAT_LEN];
    int stop;
};

static void sleep_tick(void)
{
    struct timespec ts = {0, TICK_NS};
    nanosleep(&ts, NULL);
}

static void snapshot(sp_watchdog_t *wd, state_t *s)
{
    pthread_mutex_lock(&wd->lock);
    memset(s, 0, sizeof(*s));
    s->rank = wd->rank;
    s->beats = wd->beats;
    s->waited_s = (double)(sp_time_ns() - wd->last_ns) / 1e9;
    s->timeout_s = wd->timeout_s;
    s->predicted_s = wd->predicted_s;
    s->limit_s = SP_WATCHDOG_PREDICT_FACTOR * wd->predicted_s + SP_WATCHDOG_PREDICT_MARGIN_S;
    if (!(wd->predicted_s > 0.0) || s->limit_s < s->timeout_s) {
        s->limit_s = s->timeout_s;
    }
    memcpy(s->what, wd->what, WHAT_LEN);
    pthread_mutex_unlock(&wd->lock);
}

/* Rank 0: the states the others sent, the latest per rank, seen[r] when it came (rank 0's
 * clock). Cheap enough for every tick: no work when nothing came. */
static void drain(sp_watchdog_t *wd, state_t *all, uint64_t *seen)
{
    state_t in;

    while (sp_wdnet_recv(wd->net, &in, sizeof(in))) {
        if (in.rank > 0 && in.rank < wd->nranks) {
            in.what[WHAT_LEN - 1] = '\0';
            all[in.rank] = in;
            seen[in.rank] = sp_time_ns();
        }
    }
}

/* got[r] = 1 for the ranks whose state is still fresh; returns how many others lack one. */
static int fresh(const sp_watchdog_t *wd, const uint64_t *seen, int *got)
{
    uint64_t now = sp_time_ns();
    int missing = 0;

    for (int r = 1; r < wd->nranks; r++) {
        got[r] = seen[r] != 0 && now - seen[r] < FRESH_NS;
        missing += !got[r];
    }
    return missing;
}

/* Rank 0, expired: wait for every other rank's state for COLLECT_S, longer (up to a tenth of the
 * timeout, at most COLLECT_MAX_S) while some are missing: a rank whose last beat came after
 * rank 0's expires later. */
static void collect(sp_watchdog_t *wd, state_t *all, uint64_t *seen, int *got,
                    double timeout_s)
{
    double wait_s = timeout_s / 10.0 > COLLECT_S ? timeout_s / 10.0 : COLLECT_S;
    uint64_t deadline =
        sp_time_ns() + (uint64_t)((wait_s < COLLECT_MAX_S ? wait_s : COLLECT_MAX_S) * 1e9);

    while (sp_wdnet_ready(wd->net)) {
        drain(wd, all, seen);
        if (fresh(wd, seen, got) == 0 || sp_time_ns() >= deadline) {
            break;
        }
        {
            struct timespec ts = {0, 10000000L};
            nanosleep(&ts, NULL);
        }
    }
}

/* Other ranks: tell rank 0 the state, at most every TELL_EVERY_NS. */
static void tell(sp_watchdog_t *wd, const state_t *mine, uint64_t *told_ns)
{
    uint64_t now = sp_time_ns();

    if (now - *told_ns >= (uint64_t)TELL_EVERY_NS) {
        sp_wdnet_send(wd->net, mine, sizeof(*mine));
        *told_ns = now;
    }
}

/* Rank 0's report: one message naming the ranks behind the most advanced one. */
static void report(sp_watchdog_t *wd, const state_t *all, const int *got)
{
    uint64_t front = 0;
    int lead = 0;
    char behind[1024] = "", silent[512] = "", allowed[128] = "";
    size_t nb = 0, ns = 0;

    for (int r = 0; r < wd->nranks; r++) {
        if (got[r] && all[r].beats > front) {
            front = all[r].beats;
            lead = r;
        }
    }
    for (int r = 0; r < wd->nranks; r++) {
        if (!got[r] && ns < sizeof(silent)) {
            ns += (size_t)snprintf(silent + ns, sizeof(silent) - ns, "%s%d", ns ? ", " : "", r);
        } else if (got[r] && all[r].beats < front && nb < sizeof(behind)) {
            nb += (size_t)snprintf(behind + nb, sizeof(behind) - nb,
                                   "%s%d (last: %s, %.1f s ago)", nb ? "; " : "", r, all[r].what,
                                   all[r].waited_s);
        }
    }
    if (all[0].limit_s > all[0].timeout_s) {
        snprintf(allowed, sizeof(allowed), "; %.1f s allowed in a task predicted to last %.1f s",
                 all[0].limit_s, all[0].predicted_s);
    }
    fprintf(stderr,
            "scaleprobe: watchdog: no progress for %.1f s (--timeout %.1f%s) in %s; ranks that "
            "did not arrive: %s; ranks that did not answer: %s. Ending the job; the result file "
            "keeps every point finished before (status partial).\n",
            all[lead].waited_s, all[0].timeout_s, allowed, all[lead].what,
            nb ? behind : "none", ns ? silent : "none");
    fflush(stderr);
}

static void *watch(void *arg)
{
    sp_watchdog_t *wd = arg;
    state_t mine;
    uint64_t told_ns = 0;
    state_t *all = calloc((size_t)wd->nranks, sizeof(*all));
    int *got = calloc((size_t)wd->nranks, sizeof(*got));
    uint64_t *seen = calloc((size_t)wd->nranks, sizeof(*seen));

    for (;;) {
        int stop;
        sleep_tick();
        pthread_mutex_lock(&wd->lock);
        stop = wd->stop;
        pthread_mutex_unlock(&wd->lock);
        if (stop) {
            break;
        }
        snapshot(wd, &mine);
        if (wd->rank != 0) {
            if (mine.waited_s > 0.5 * mine.timeout_s) {
                tell(wd, &mine, &told_ns);
            }
            if (mine.waited_s > mine.limit_s + ORPHAN_S) {
                fprintf(stderr,
                        "scaleprobe: watchdog: rank %d: no progress for %.1f s in %s, and rank 0 "
                        "did not end the job; ending it\n",
                        wd->rank, mine.waited_s, mine.what);
                fflush(stderr);
                MPI_Abort(wd->comm, SP_WATCHDOG_EXIT);
            }
        } else if (all != NULL && got != NULL && seen != NULL) {
            drain(wd, all, seen);
            if (mine.waited_s > mine.limit_s) {
                collect(wd, all, seen, got, mine.timeout_s);
                snapshot(wd, &all[0]);
                got[0] = 1;
                report(wd, all, got);
                MPI_Abort(wd->comm, SP_WATCHDOG_EXIT);
            }
        } else if (mine.waited_s > mine.limit_s) {
            fprintf(stderr, "scaleprobe: watchdog: no progress for %.1f s in %s\n",
                    mine.waited_s, mine.what);
            MPI_Abort(wd->comm, SP_WATCHDOG_EXIT);
        }
    }
    free(seen);
    free(got);
    free(all);
    return NULL;
}

sp_status_t sp_watchdog_start(MPI_Comm comm, double timeout_s, sp_watchdog_t **wd_p)
{
    sp_watchdog_t *wd;

    *wd_p = NULL;
    if (!(timeout_s > 0.0)) {
        return SP_OK;
    }
    wd = calloc(1, sizeof(*wd));
    if (wd == NULL) {
        return SP_ERR_NOMEM;
    }
    if (MPI_Comm_dup(comm, &wd->comm) != MPI_SUCCESS) {
        free(wd);
        return SP_ERR_MPI;
    }
    MPI_Comm_rank(wd->comm, &wd->rank);
    MPI_Comm_size(wd->comm, &wd->nranks);
    if (sp_wdnet_open(wd->comm, &wd->net) != SP_OK) {
        MPI_Comm_free(&wd->comm);
        free(wd);
        return SP_ERR_NOMEM;
    }
    wd->timeout_s = timeout_s;
    wd->last_ns = sp_time_ns();
    snprintf(wd->what, sizeof(wd->what), "start-up");
    pthread_mutex_init(&wd->lock, NULL);
    if (pthread_create(&wd->thread, NULL, watch, wd) != 0) {
        pthread_mutex_destroy(&wd->lock);
        sp_wdnet_close(wd->net);
        MPI_Comm_free(&wd->comm);
        free(wd);
        return SP_ERR_NOMEM;
    }
    *wd_p = wd;
    return SP_OK;
}

void sp_watchdog_beat(sp_watchdog_t *wd, const char *fmt, ...)
{
    va_list ap;

    if (wd == NULL) {
        return;
    }
    pthread_mutex_lock(&wd->lock);
    va_start(ap, fmt);
    vsnprintf(wd->what, sizeof(wd->what), fmt, ap);
    va_end(ap);
    wd->beats++;
    wd->last_ns = sp_time_ns();
    wd->predicted_s = 0.0;
    pthread_mutex_unlock(&wd->lock);
}

void sp_watchdog_alive(sp_watchdog_t *wd)
{
    if (wd == NULL) {
        return;
    }
    pthread_mutex_lock(&wd->lock);
    wd->last_ns = sp_time_ns();
    pthread_mutex_unlock(&wd->lock);
}

void sp_watchdog_expect(sp_watchdog_t *wd, double predicted_s)
{
    if (wd == NULL) {
        return;
    }
    pthread_mutex_lock(&wd->lock);
    wd->predicted_s = predicted_s > 0.0 ? predicted_s : 0.0;
    pthread_mutex_unlock(&wd->lock);
}

void sp_watchdog_set_timeout(sp_watchdog_t *wd, double timeout_s)
{
    if (wd == NULL) {
        return;
    }
    pthread_mutex_lock(&wd->lock);
    wd->timeout_s = timeout_s;
    pthread_mutex_unlock(&wd->lock);
}

void sp_watchdog_stop(sp_watchdog_t *wd)
{
    if (wd == NULL) {
        return;
    }
    pthread_mutex_lock(&wd->lock);
    wd->stop = 1;
    pthread_mutex_unlock(&wd->lock);
    pthread_join(wd->thread, NULL);
    pthread_mutex_destroy(&wd->lock);
    sp_wdnet_close(wd->net);
    MPI_Comm_free(&wd->comm);
    free(wd);
}

/* The watchdog thread (see watchdog.h). Rank 0's thread asks the others for their state only
 * when its own wait has expired, so what it reports is current. */
#include "watchdog.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "timeutil.h"

#define WHAT_LEN 160
#define TICK_NS 100000000L          /* the thread looks every 100 ms */
#define COLLECT_S 3.0               /* rank 0 waits this long for the others' states */
#define ORPHAN_S 10.0               /* a rank ends the job itself this long after expiring */
#define TAG_STATE 1
#define TAG_ASK 2

/* What a rank tells rank 0 when its wait expires. */
typedef struct {
    int32_t rank;
    int32_t pad;
    uint64_t beats;   /* beats so far: equal on ranks at the same point of the run */
    double waited_s;  /* since the last beat */
    double timeout_s; /* the timeout in force */
    char what[WHAT_LEN];
} state_t;

struct sp_watchdog {
    MPI_Comm comm;
    int rank, nranks;
    double timeout_s;
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
    memcpy(s->what, wd->what, WHAT_LEN);
    pthread_mutex_unlock(&wd->lock);
}

/* Rank 0: ask every other rank's watchdog for its state and collect the answers for at most
 * COLLECT_S (got[r] = 0: no answer). */
static void collect(sp_watchdog_t *wd, state_t *all, int *got)
{
    MPI_Request *req = calloc((size_t)wd->nranks, sizeof(*req));
    MPI_Request *ask = calloc((size_t)wd->nranks, sizeof(*ask));
    uint64_t deadline = sp_time_ns() + (uint64_t)(COLLECT_S * 1e9);
    int pending = 0;
    int token = 0;

    for (int r = 1; r < wd->nranks && req != NULL && ask != NULL; r++) {
        MPI_Irecv(&all[r], (int)sizeof(state_t), MPI_BYTE, r, TAG_STATE, wd->comm, &req[r]);
        MPI_Isend(&token, 1, MPI_INT, r, TAG_ASK, wd->comm, &ask[r]);
        pending++;
    }
    while (pending > 0 && sp_time_ns() < deadline) {
        for (int r = 1; r < wd->nranks; r++) {
            int done = 0;
            if (!got[r]) {
                MPI_Test(&req[r], &done, MPI_STATUS_IGNORE);
                if (done) {
                    got[r] = 1;
                    pending--;
                }
            }
        }
        if (pending > 0) {
            struct timespec ts = {0, 10000000L};
            nanosleep(&ts, NULL);
        }
    }
    /* unfinished requests are abandoned: the job ends next */
    free(ask);
    free(req);
}

/* Other ranks: answer rank 0's question, if it asked. */
static void answer(sp_watchdog_t *wd)
{
    int asked = 0;
    MPI_Status status;

    MPI_Iprobe(0, TAG_ASK, wd->comm, &asked, &status);
    if (asked) {
        int token;
        state_t mine;
        MPI_Recv(&token, 1, MPI_INT, 0, TAG_ASK, wd->comm, MPI_STATUS_IGNORE);
        snapshot(wd, &mine);
        MPI_Send(&mine, (int)sizeof(mine), MPI_BYTE, 0, TAG_STATE, wd->comm);
    }
}

/* Rank 0's report: one message naming the ranks behind the most advanced one. */
static void report(sp_watchdog_t *wd, const state_t *all, const int *got)
{
    uint64_t front = 0;
    int lead = 0;
    char behind[1024] = "", silent[512] = "";
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
    fprintf(stderr,
            "scaleprobe: watchdog: no progress for %.1f s (--timeout %.1f) in %s; ranks that did "
            "not arrive: %s; ranks that did not answer: %s. Ending the job; the result file "
            "keeps every point finished before (status partial).\n",
            all[lead].waited_s, all[0].timeout_s, all[lead].what, nb ? behind : "none",
            ns ? silent : "none");
    fflush(stderr);
}

static void *watch(void *arg)
{
    sp_watchdog_t *wd = arg;
    state_t mine;

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
            answer(wd);
            if (mine.waited_s > mine.timeout_s + ORPHAN_S) {
                fprintf(stderr,
                        "scaleprobe: watchdog: rank %d: no progress for %.1f s in %s, and rank 0 "
                        "did not end the job; ending it\n",
                        wd->rank, mine.waited_s, mine.what);
                fflush(stderr);
                MPI_Abort(wd->comm, SP_WATCHDOG_EXIT);
            }
        } else if (mine.waited_s > mine.timeout_s) {
            state_t *all = calloc((size_t)wd->nranks, sizeof(*all));
            int *got = calloc((size_t)wd->nranks, sizeof(*got));
            if (all != NULL && got != NULL) {
                all[0] = mine;
                got[0] = 1;
                collect(wd, all, got);
                report(wd, all, got);
            } else {
                fprintf(stderr, "scaleprobe: watchdog: no progress for %.1f s in %s\n",
                        mine.waited_s, mine.what);
            }
            MPI_Abort(wd->comm, SP_WATCHDOG_EXIT);
        }
    }
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
    wd->timeout_s = timeout_s;
    wd->last_ns = sp_time_ns();
    snprintf(wd->what, sizeof(wd->what), "start-up");
    pthread_mutex_init(&wd->lock, NULL);
    if (pthread_create(&wd->thread, NULL, watch, wd) != 0) {
        pthread_mutex_destroy(&wd->lock);
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
    MPI_Comm_free(&wd->comm);
    free(wd);
}

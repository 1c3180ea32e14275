/* The watchdog's UDP channel (src/runtime/wdnet.c) at MPI_THREAD_FUNNELED: every other rank's
 * message reaches rank 0 (sent from a thread of its own, as the watchdog does, while the main
 * thread waits in MPI), messages of another length are dropped, and rank 0 sends nothing. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpitest.h"
#include "timeutil.h"
#include "wdnet.h"

typedef struct {
    int32_t rank;
    int32_t pad;
    uint64_t beats;
    char what[48];
} msg_t;

typedef struct {
    sp_wdnet_t *net;
    int rank;
} arg_t;

static void *sender(void *p)
{
    arg_t *a = p;
    msg_t m;
    char other[8] = "stray";

    memset(&m, 0, sizeof(m));
    m.rank = a->rank;
    m.beats = 1000u + (uint64_t)a->rank;
    snprintf(m.what, sizeof(m.what), "rank %d waits", a->rank);
    /* one message of a wrong length first: rank 0 must drop it */
    sp_wdnet_send(a->net, other, sizeof(other));
    for (int i = 0; i < 20; i++) { /* datagrams may be lost: a few, as the watchdog resends */
        struct timespec ts = {0, 50000000L};
        sp_wdnet_send(a->net, &m, sizeof(m));
        nanosleep(&ts, NULL);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank, nranks, got = 0;
    sp_wdnet_t *net = NULL;
    pthread_t thread;
    arg_t arg;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    SP_TEST_EQ_INT(sp_wdnet_open(MPI_COMM_WORLD, &net), SP_OK);
    SP_TEST_TRUE(sp_wdnet_ready(net));
    arg.net = net;
    arg.rank = rank;
    SP_TEST_EQ_INT(pthread_create(&thread, NULL, sender, &arg), 0);
    if (rank == 0) {
        unsigned char *seen = calloc((size_t)nranks, 1);
        uint64_t deadline = sp_time_ns() + 10000000000ULL;
        msg_t m;
        SP_TEST_TRUE(seen != NULL);
        while (got < nranks - 1 && sp_time_ns() < deadline) {
            struct timespec ts = {0, 10000000L};
            while (sp_wdnet_recv(net, &m, sizeof(m))) {
                SP_TEST_TRUE(m.rank > 0 && m.rank < nranks);
                SP_TEST_TRUE(m.beats == 1000u + (uint64_t)m.rank);
                if (!seen[m.rank]) {
                    seen[m.rank] = 1;
                    got++;
                }
            }
            nanosleep(&ts, NULL);
        }
        SP_TEST_EQ_INT(got, nranks - 1);
        free(seen);
    }
    /* the main thread inside MPI while the thread sends, as in a hung collective */
    MPI_Barrier(MPI_COMM_WORLD);
    pthread_join(thread, NULL);
    if (rank == 0) {
        msg_t m;
        /* rank 0's own sends went nowhere; what is left is other ranks' resends */
        while (sp_wdnet_recv(net, &m, sizeof(m))) {
            SP_TEST_TRUE(m.rank > 0);
        }
    }
    sp_wdnet_close(net);
    MPI_Finalize();
    return 0;
}

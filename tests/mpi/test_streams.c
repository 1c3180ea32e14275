/* Host streams: work runs in order on each stream and concurrently across streams, a wait holds
 * a stream until the event's latest record has run, a compute holds its stream at least its
 * duration (counted from when its stream reaches it: a compute enqueued onto an idle stream
 * still lasts its duration), and collectives on a stream produce verified data. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coll.h"
#include "mpitest.h"

#define COMPUTE_NS 200000000ull /* 200 ms: far longer than a small all_reduce, even shared */

static uint64_t elapsed(sp_ctx_t *ctx, sp_event_t *a, sp_event_t *b)
{
    uint64_t ns = 0;

    SP_TEST_EQ_INT(ctx->backend.ops->event_elapsed_ns(ctx->backend.state, a, b, &ns), SP_OK);
    return ns;
}

int main(int argc, char **argv)
{
    sp_ctx_t ctx;
    const sp_backend_ops_t *ops;
    void *st;
    sp_stream_t *compute = NULL;
    sp_stream_t *comm = NULL;
    sp_event_t *ev[5];
    sp_coll_args_t args;
    sp_comm_call_t call;
    const sp_coll_t *ar = sp_coll_get(SP_COLL_ALL_REDUCE);
    float send[256];
    float recv[256];
    float recv2[256];

    sp_test_ctx_init(&argc, &argv, &ctx);
    ops = ctx.backend.ops;
    st = ctx.backend.state;
    for (int i = 0; i < 5; i++) {
        SP_TEST_EQ_INT(ops->event_create(st, &ev[i]), SP_OK);
    }
    SP_TEST_EQ_INT(ops->stream_create(st, MPI_COMM_NULL, &compute), SP_OK);
    SP_TEST_EQ_INT(ops->stream_create(st, MPI_COMM_NULL, &comm), SP_OK);
    sp_coll_args_init(&args, SP_COLL_ALL_REDUCE, ctx.rank, ctx.nranks, SP_DTYPE_FLOAT,
                      SP_REDOP_SUM, 0, 0, sizeof(send));
    sp_coll_fill(ar, &args, send);
    SP_TEST_EQ_INT(sp_coll_call(&args, &call), SP_OK);
    MPI_Barrier(ctx.world);

    /* compute stream: e0, 200 ms of compute, e1 */
    SP_TEST_EQ_INT(ops->event_record(st, ev[0]), SP_OK);
    SP_TEST_EQ_INT(ops->stream_compute(st, compute, COMPUTE_NS), SP_OK);
    SP_TEST_EQ_INT(ops->stream_record(st, compute, ev[1]), SP_OK);
    /* comm stream, concurrently: an all_reduce, e2; then wait for e1, another all_reduce, e3 */
    SP_TEST_EQ_INT(ops->stream_coll(st, comm, &call, send, recv), SP_OK);
    SP_TEST_EQ_INT(ops->stream_record(st, comm, ev[2]), SP_OK);
    SP_TEST_EQ_INT(ops->stream_wait(st, comm, ev[1]), SP_OK);
    SP_TEST_EQ_INT(ops->stream_coll(st, comm, &call, send, recv2), SP_OK);
    SP_TEST_EQ_INT(ops->stream_record(st, comm, ev[3]), SP_OK);
    SP_TEST_EQ_INT(ops->stream_sync(st, comm), SP_OK);
    SP_TEST_EQ_INT(ops->stream_sync(st, compute), SP_OK);

    /* the compute held its stream at least its duration */
    SP_TEST_TRUE(elapsed(&ctx, ev[0], ev[1]) >= COMPUTE_NS);
    /* the first all_reduce ran during the compute (streams are concurrent) */
    SP_TEST_TRUE(elapsed(&ctx, ev[0], ev[2]) < COMPUTE_NS);
    /* the second waited for the compute's end (e1 <= e3: elapsed(e1, e3) clamps at 0, so compare
     * both against e0) */
    SP_TEST_TRUE(elapsed(&ctx, ev[0], ev[3]) >= elapsed(&ctx, ev[0], ev[1]));
    /* and both produced verified data */
    SP_TEST_EQ_INT(sp_coll_check(ar, &args, recv), 0);
    SP_TEST_EQ_INT(sp_coll_check(ar, &args, recv2), 0);

    /* a compute counts from when its stream reaches it: after a record, the stream left idle for
     * 30 ms, then 20 ms of compute end at least 50 ms after the record, not 20 ms after it */
    {
        struct timespec idle = {0, 30000000L};
        SP_TEST_EQ_INT(ops->stream_record(st, compute, ev[0]), SP_OK);
        SP_TEST_EQ_INT(ops->stream_sync(st, compute), SP_OK);
        nanosleep(&idle, NULL);
        SP_TEST_EQ_INT(ops->stream_compute(st, compute, 20000000ull), SP_OK);
        SP_TEST_EQ_INT(ops->stream_record(st, compute, ev[1]), SP_OK);
        /* back to back after a record: at least the duration from that record */
        SP_TEST_EQ_INT(ops->stream_compute(st, compute, 20000000ull), SP_OK);
        SP_TEST_EQ_INT(ops->stream_record(st, compute, ev[2]), SP_OK);
        SP_TEST_EQ_INT(ops->stream_sync(st, compute), SP_OK);
        SP_TEST_TRUE(elapsed(&ctx, ev[0], ev[1]) >= 50000000ull);
        SP_TEST_TRUE(elapsed(&ctx, ev[1], ev[2]) >= 20000000ull);
    }

    /* a wait on an event recorded later (not yet enqueued) does not wait for it: CUDA's rule */
    SP_TEST_EQ_INT(ops->stream_wait(st, comm, ev[4]), SP_OK);
    SP_TEST_EQ_INT(ops->stream_sync(st, comm), SP_OK);

    /* point-to-point on a stream over a sub-communicator: pairs (0,1), (2,3), ... exchange in a
     * pipeline-like order, the receiver's next send waiting for its receive */
    {
        MPI_Comm pairs;
        sp_stream_t *p2p = NULL;
        int mine[64];
        int got[64];
        int peer = ctx.rank ^ 1;
        int prank;
        MPI_Comm_split(ctx.world, ctx.rank / 2, ctx.rank, &pairs);
        MPI_Comm_rank(pairs, &prank);
        SP_TEST_EQ_INT(ops->stream_create(st, pairs, &p2p), SP_OK);
        for (int i = 0; i < 64; i++) {
            mine[i] = ctx.rank * 1000 + i;
            got[i] = -1;
        }
        if (peer < ctx.nranks) {
            int other = prank ^ 1;
            if (prank == 0) {
                SP_TEST_EQ_INT(ops->stream_send(st, p2p, mine, sizeof(mine), other, 1), SP_OK);
                SP_TEST_EQ_INT(ops->stream_recv(st, p2p, got, sizeof(got), other, 2), SP_OK);
            } else {
                SP_TEST_EQ_INT(ops->stream_recv(st, p2p, got, sizeof(got), other, 1), SP_OK);
                SP_TEST_EQ_INT(ops->stream_send(st, p2p, mine, sizeof(mine), other, 2), SP_OK);
            }
            SP_TEST_EQ_INT(ops->stream_sync(st, p2p), SP_OK);
            for (int i = 0; i < 64; i++) {
                SP_TEST_EQ_INT(got[i], peer * 1000 + i);
            }
        }
        ops->stream_destroy(st, p2p);
        MPI_Comm_free(&pairs);
    }

    ops->stream_destroy(st, comm);
    ops->stream_destroy(st, compute);
    for (int i = 0; i < 5; i++) {
        ops->event_destroy(st, ev[i]);
    }
    if (ctx.rank == 0) {
        printf("streams: ordered, concurrent, waits honoured, data verified on %d ranks\n",
               ctx.nranks);
    }
    sp_test_ctx_fini(&ctx);
    return 0;
}

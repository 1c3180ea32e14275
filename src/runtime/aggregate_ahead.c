/* An owner's chunks made ahead (aggregate_ahead.h): a FIFO of compressed chunks in the order
 * rank 0 asks for them, keyed by (vrank, first event), and a cursor on the next to make. */
#include "aggregate_ahead.h"

#include <stdlib.h>
#include <string.h>

#include "aggregate_chunk.h"

#define CHUNK ((uint64_t)SP_TL_CHUNK_EVENTS)

typedef struct {
    int64_t vrank;
    uint64_t from;
    size_t size;
    unsigned char *data;
} slot_t;

/* One owned vrank: its first event at a chunk boundary and its whole chunks from there. */
typedef struct {
    int64_t vrank;
    uint64_t first;
    uint64_t nchunks;
} owned_t;

struct sp_tl_ahead {
    const sp_tl_source_t *src;
    owned_t *owned;
    size_t nowned;
    size_t j;   /* cursor: owned[j], its chunk k */
    uint64_t k;
    slot_t slots[SP_TL_AHEAD_CHUNKS];
    size_t head;
    size_t n;
    uint64_t taken;
    sp_event_rec_t *ev;
    unsigned char *shuffled;
    unsigned char *out;
};

/* Move the cursor to the next chunk that exists (k within owned[j]'s), or past the end. */
static void normalize(sp_tl_ahead_t *a)
{
    while (a->j < a->nowned && a->k >= a->owned[a->j].nchunks) {
        a->j++;
        a->k = 0;
    }
}

sp_tl_ahead_t *sp_tl_ahead_new(const sp_tl_source_t *src, const uint64_t *counts, int nvranks,
                               int rank, int nprocs)
{
    sp_tl_ahead_t *a = calloc(1, sizeof(*a));
    uint64_t offset = 0;
    size_t most = nvranks > rank ? (size_t)((nvranks - 1 - rank) / nprocs + 1) : 0;

    if (a == NULL || most == 0) {
        free(a);
        return NULL;
    }
    a->src = src;
    a->owned = calloc(most, sizeof(*a->owned));
    a->ev = malloc(CHUNK * sizeof(*a->ev));
    a->shuffled = malloc(CHUNK * sizeof(*a->ev));
    a->out = malloc(sp_tl_chunk_bound());
    if (a->owned == NULL || a->ev == NULL || a->shuffled == NULL || a->out == NULL) {
        sp_tl_ahead_free(a);
        return NULL;
    }
    for (int v = 0; v < nvranks; v++) {
        if (v % nprocs == rank) {
            owned_t *o = &a->owned[a->nowned++];
            o->vrank = v;
            o->first = (CHUNK - offset % CHUNK) % CHUNK;
            o->nchunks = counts[v] > o->first ? (counts[v] - o->first) / CHUNK : 0;
        }
        offset += counts[v];
    }
    normalize(a);
    return a;
}

int sp_tl_ahead_step(sp_tl_ahead_t *a)
{
    const owned_t *o;
    uint64_t from;
    size_t z = 0;

    if (a->j >= a->nowned || a->n == SP_TL_AHEAD_CHUNKS) {
        return 0;
    }
    o = &a->owned[a->j];
    from = o->first + a->k * CHUNK;
    if (a->src->produce(a->src->arg, (int)o->vrank, from, a->ev, SP_TL_CHUNK_EVENTS) ==
        SP_TL_CHUNK_EVENTS) {
        z = sp_tl_chunk_compress(a->ev, a->shuffled, a->out, sp_tl_chunk_bound());
    }
    if (z > 0) {
        slot_t *s = &a->slots[(a->head + a->n) % SP_TL_AHEAD_CHUNKS];
        s->data = malloc(z);
        if (s->data != NULL) {
            memcpy(s->data, a->out, z);
            s->vrank = o->vrank;
            s->from = from;
            s->size = z;
            a->n++;
        }
    }
    a->k++;
    normalize(a);
    return 1;
}

static int before(int64_t v1, uint64_t f1, int64_t v2, uint64_t f2)
{
    return v1 < v2 || (v1 == v2 && f1 < f2);
}

static void pop(sp_tl_ahead_t *a)
{
    free(a->slots[a->head].data);
    a->slots[a->head].data = NULL;
    a->head = (a->head + 1) % SP_TL_AHEAD_CHUNKS;
    a->n--;
}

size_t sp_tl_ahead_take(sp_tl_ahead_t *a, int64_t vrank, uint64_t from, unsigned char *out,
                        size_t cap)
{
    size_t z = 0;

    while (a->n > 0 && before(a->slots[a->head].vrank, a->slots[a->head].from, vrank, from)) {
        pop(a);
    }
    if (a->n > 0 && a->slots[a->head].vrank == vrank && a->slots[a->head].from == from &&
        a->slots[a->head].size <= cap) {
        z = a->slots[a->head].size;
        memcpy(out, a->slots[a->head].data, z);
        pop(a);
        a->taken++;
    }
    /* the cursor moves past this chunk: what is asked for is never made again */
    while (a->j < a->nowned &&
           !before(vrank, from, a->owned[a->j].vrank, a->owned[a->j].first + a->k * CHUNK)) {
        a->k++;
        normalize(a);
    }
    return z;
}

uint64_t sp_tl_ahead_taken(const sp_tl_ahead_t *a)
{
    return a != NULL ? a->taken : 0;
}

void sp_tl_ahead_free(sp_tl_ahead_t *a)
{
    if (a == NULL) {
        return;
    }
    while (a->n > 0) {
        pop(a);
    }
    free(a->out);
    free(a->shuffled);
    free(a->ev);
    free(a->owned);
    free(a);
}

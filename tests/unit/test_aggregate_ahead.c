/* Chunks made ahead by their owner (src/runtime/aggregate_ahead.c): where the chunk boundaries
 * fall from the counts, the bound on chunks held, and that a chunk taken is the one the answer
 * would have compressed itself. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "aggregate_ahead.h"
#include "aggregate_chunk.h"

#define CHUNK SP_TL_CHUNK_EVENTS

/* 20,000 events before vrank 1, 5,000 in it, 55,000 before vrank 3: its first boundary is at its
 * event 8192 - 55000 % 8192 = 2344, and 200,000 events hold 24 whole chunks from there */
static const uint64_t counts[] = {20000, 5000, 30000, 200000, 8192};

static uint64_t count(void *arg, int vrank)
{
    (void)arg;
    return counts[vrank];
}

static uint64_t dropped(void *arg, int vrank)
{
    (void)arg;
    (void)vrank;
    return 0;
}

static size_t produce(void *arg, int vrank, uint64_t from, sp_event_rec_t *out, size_t max)
{
    size_t n = counts[vrank] - from < max ? (size_t)(counts[vrank] - from) : max;

    (void)arg;
    for (size_t i = 0; i < n; i++) {
        uint64_t e = from + i;
        sp_event_init(&out[i], vrank, e % 2 ? SP_EV_COLL : SP_EV_COMPUTE);
        out[i].step = (int32_t)(e / 100);
        out[i].start_ns = (int64_t)(e * 1000 + (uint64_t)vrank);
        out[i].end_ns = out[i].start_ns + 500 + (int64_t)(e % 7);
    }
    return n;
}

static const sp_tl_source_t src = {NULL, count, dropped, produce};

/* the chunk of vrank from `from` compressed here, compared with what the owner made ahead */
static void assert_same_chunk(const unsigned char *got, size_t z, int vrank, uint64_t from)
{
    sp_event_rec_t *ev = malloc(CHUNK * sizeof(*ev));
    unsigned char *scratch = malloc(CHUNK * sizeof(*ev));
    unsigned char *want = malloc(sp_tl_chunk_bound());
    size_t wz;

    assert_non_null(ev);
    assert_non_null(scratch);
    assert_non_null(want);
    assert_int_equal(produce(NULL, vrank, from, ev, CHUNK), CHUNK);
    wz = sp_tl_chunk_compress(ev, scratch, want, sp_tl_chunk_bound());
    assert_int_equal(z, wz);
    assert_memory_equal(got, want, z);
    free(want);
    free(scratch);
    free(ev);
}

static void test_ahead(void **state)
{
    sp_tl_ahead_t *a = sp_tl_ahead_new(&src, counts, 5, 1, 2); /* owns vranks 1 and 3 */
    unsigned char *out = malloc(sp_tl_chunk_bound());
    size_t z;
    int made = 0;

    (void)state;
    assert_non_null(a);
    assert_non_null(out);
    /* vrank 1 holds no whole chunk; vrank 3's first 16 are made, then the slots are full */
    while (sp_tl_ahead_step(a)) {
        made++;
    }
    assert_int_equal(made, SP_TL_AHEAD_CHUNKS);
    /* off the chunk grid: not made */
    assert_int_equal(sp_tl_ahead_take(a, 3, 0, out, sp_tl_chunk_bound()), 0);
    z = sp_tl_ahead_take(a, 3, 2344, out, sp_tl_chunk_bound());
    assert_true(z > 0);
    assert_same_chunk(out, z, 3, 2344);
    /* a slot is free again: chunk 16 of vrank 3 */
    assert_int_equal(sp_tl_ahead_step(a), 1);
    assert_int_equal(sp_tl_ahead_step(a), 0);
    /* asking for chunk 20 drops 1-16, finds it not made, and the next made is 21 */
    assert_int_equal(sp_tl_ahead_take(a, 3, 2344 + 20 * CHUNK, out, sp_tl_chunk_bound()), 0);
    assert_int_equal(sp_tl_ahead_step(a), 1);
    z = sp_tl_ahead_take(a, 3, 2344 + 21 * CHUNK, out, sp_tl_chunk_bound());
    assert_true(z > 0);
    assert_same_chunk(out, z, 3, 2344 + 21 * CHUNK);
    /* too small a buffer: not taken */
    assert_int_equal(sp_tl_ahead_step(a), 1);
    assert_int_equal(sp_tl_ahead_take(a, 3, 2344 + 22 * CHUNK, out, 16), 0);
    assert_int_equal(sp_tl_ahead_taken(a), 2);
    /* chunk 23 is the last whole one: vrank 3 ends 1,048 events after it */
    assert_int_equal(sp_tl_ahead_step(a), 1);
    assert_int_equal(sp_tl_ahead_step(a), 0);
    sp_tl_ahead_free(a);
    free(out);
}

static void test_nothing_owned(void **state)
{
    (void)state;
    assert_null(sp_tl_ahead_new(&src, counts, 5, 5, 8));
    assert_int_equal(sp_tl_ahead_taken(NULL), 0);
    sp_tl_ahead_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ahead),
        cmocka_unit_test(test_nothing_owned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

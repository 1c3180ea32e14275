/* Producer-side chunk compression (src/runtime/aggregate_chunk.c): the bytes are HDF5's
 * shuffle then a zlib stream, so inflating and un-shuffling gives back the events exactly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "aggregate_chunk.h"
#include "result.h"

static void test_round_trip(void **state)
{
    const size_t n = SP_TL_CHUNK_EVENTS;
    const size_t size = sizeof(sp_event_rec_t);
    sp_event_rec_t *ev = calloc(n, size);
    unsigned char *scratch = malloc(n * size);
    unsigned char *out = malloc(sp_tl_chunk_bound());
    unsigned char *back = malloc(n * size);
    unsigned char *plain = malloc(n * size);
    uLongf back_len = (uLongf)(n * size);
    size_t z;

    (void)state;
    assert_non_null(ev);
    assert_non_null(scratch);
    assert_non_null(out);
    assert_non_null(back);
    assert_non_null(plain);
    for (size_t i = 0; i < n; i++) {
        sp_event_init(&ev[i], 3, i % 2 ? SP_EV_COLL : SP_EV_COMPUTE);
        ev[i].step = (int32_t)(i / 100);
        ev[i].bytes = (uint64_t)i * 4096u;
        ev[i].start_ns = 1000000 + (int64_t)i * 10007;
        ev[i].end_ns = ev[i].start_ns + 5000 + (int64_t)(i % 13);
    }
    z = sp_tl_chunk_compress(ev, scratch, out, sp_tl_chunk_bound());
    assert_true(z > 0 && z < n * size / 4); /* shuffled timelines compress well */
    assert_int_equal(uncompress(back, &back_len, out, (uLong)z), Z_OK);
    assert_int_equal(back_len, n * size);
    /* un-shuffle: byte j of element i was at j * n + i */
    for (size_t j = 0; j < size; j++) {
        for (size_t i = 0; i < n; i++) {
            plain[i * size + j] = back[j * n + i];
        }
    }
    assert_memory_equal(plain, ev, n * size);
    /* too small an output buffer fails rather than writing past it */
    assert_int_equal(sp_tl_chunk_compress(ev, scratch, out, 16), 0);
    free(plain);
    free(back);
    free(out);
    free(scratch);
    free(ev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Producer-side compression of /timeline/events chunks (aggregate_chunk.h). */
#include "aggregate_chunk.h"

#include <zlib.h>

#include "result.h"

size_t sp_tl_chunk_bound(void)
{
    return (size_t)compressBound((uLong)(SP_TL_CHUNK_EVENTS * sizeof(sp_event_rec_t)));
}

size_t sp_tl_chunk_compress(const sp_event_rec_t *ev, unsigned char *scratch, unsigned char *out,
                            size_t cap)
{
    const size_t n = SP_TL_CHUNK_EVENTS;
    const size_t size = sizeof(sp_event_rec_t);
    const unsigned char *in = (const unsigned char *)ev;
    uLongf out_len = (uLongf)cap;

    /* H5Z_FILTER_SHUFFLE: byte j of every element, then byte j + 1, ...; a full chunk has no
     * leftover bytes */
    for (size_t j = 0; j < size; j++) {
        unsigned char *dst = scratch + j * n;
        for (size_t i = 0; i < n; i++) {
            dst[i] = in[i * size + j];
        }
    }
    /* H5Z_FILTER_DEFLATE with aggression 1: compress2 writes a zlib stream, which the filter's
     * inflate reads */
    if (compress2(out, &out_len, scratch, (uLong)(n * size), 1) != Z_OK) {
        return 0;
    }
    return (size_t)out_len;
}

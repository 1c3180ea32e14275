/* Full chunks of /timeline/events compressed where the events are: HDF5's shuffle filter
 * followed by its deflate filter at level 1, byte for byte the formats the library's own
 * pipeline writes, so rank 0 stores them with H5Dwrite_chunk (filter mask 0) and h5py/h5dump
 * read the file without plugins. */
#ifndef SP_AGGREGATE_CHUNK_H
#define SP_AGGREGATE_CHUNK_H

#include <stddef.h>

#include "timeline.h"

/* The most bytes one compressed chunk of SP_TL_CHUNK_EVENTS events can take. */
size_t sp_tl_chunk_bound(void);

/*
 * Shuffle the SP_TL_CHUNK_EVENTS events at ev (element size sizeof(sp_event_rec_t): byte j of
 * event i goes to j * n + i) into scratch (chunk bytes), then deflate that at level 1 (a zlib
 * stream, as H5Z_FILTER_DEFLATE) into out (cap bytes, at least sp_tl_chunk_bound()).
 * Returns the compressed size; 0 on failure. Pure apart from the buffers.
 */
size_t sp_tl_chunk_compress(const sp_event_rec_t *ev, unsigned char *scratch, unsigned char *out,
                            size_t cap);

#endif

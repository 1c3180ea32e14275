/* The reader's plausibility checks of a file's rows (internal to reader.c). */
#ifndef SP_READER_CHECK_H
#define SP_READER_CHECK_H

#include <hdf5.h>

#include "reader.h"
#include "status.h"

/* Check every row index, rank, registry index, count and offset of rd (just read from the open
 * file) against the registries, the world size and the file's extents. SP_ERR_FORMAT with the
 * reason in rd->why (after "is a damaged scaleprobe result file: ") when one is implausible. */
sp_status_t sp__reader_check(hid_t file, sp_reader_t *rd);

#endif

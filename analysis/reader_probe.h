/* A crash-proof first read of a result file in a child process (internal to the readers). */
#ifndef SP_READER_PROBE_H
#define SP_READER_PROBE_H

#include <stddef.h>

#include "kv.h"
#include "status.h"

/* Read every object, attribute and the start of every dataset of the HDF5 file at path in a
 * forked child, bounded in time. SP_ERR_FORMAT with the reason in why (after the path: "is a
 * damaged HDF5 file: ...") when the child was killed by a signal (the HDF5 library crashed on
 * corrupt metadata) or did not finish; SP_OK otherwise, errors included (the caller's own read
 * finds and names those). Not for MPI processes (it forks): the offline tools only. */
sp_status_t sp__reader_probe(const char *path, char *why, size_t len);

/* sp_h5attrs_read (the attributes of group of the file at path into kv, at most max) in a
 * forked child, the pairs sent back through a pipe: HDF5's attribute iteration crashes on some
 * corrupt attribute tables that open and read by name without trouble. How many were read; -1
 * when the child crashed or hung (the file is damaged). Offline tools only. */
int sp_reader_attrs(const char *path, const char *group, sp_kv_t *kv, int max);

#endif

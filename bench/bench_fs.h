/* File helpers the write benchmarks share. */
#ifndef SP_BENCH_FS_H
#define SP_BENCH_FS_H

/* fsync the file at path through a fresh descriptor (its dirty pages, whoever wrote them);
 * 0 on success, -1 on failure. */
int bench_fsync_path(const char *path);

#endif

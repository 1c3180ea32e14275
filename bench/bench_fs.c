/* File helpers the write benchmarks share (bench_fs.h). */
#include "bench_fs.h"

#include <fcntl.h>
#include <unistd.h>

int bench_fsync_path(const char *path)
{
    int fd = open(path, O_RDONLY);
    int rc;

    if (fd < 0) {
        return -1;
    }
    rc = fsync(fd);
    close(fd);
    return rc;
}

/* A crash-proof first read of a result file: the HDF5 library (1.10 here) can crash or loop on
 * corrupt metadata (a flipped bit in an object header, an attribute table, a B-tree), which no
 * check of ours can prevent, since it happens inside the library. So the offline tools read
 * every object of a file once in a child process first; if the child dies by a signal or does
 * not finish in time, the file is damaged and the tool says so instead of crashing. */
#include "reader_probe.h"

#include "h5attrs.h"
#include "result_read.h"

#include <errno.h>
#include <hdf5.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Bytes of one dataset the child reads (from its start): enough for every table of a sweep and
 * a large timeline's first chunks, bounded so a probe of a huge file stays short. */
#define PROBE_DATASET_BYTES (16u << 20)
#define PROBE_SECONDS 30
/* The child's exit status for a dataset whose datatype is not whole (sp_result_type_fits). */
#define PROBE_BAD_TYPE 3

/* A sanitizer's hook, present only in sanitized builds (weak: NULL otherwise). */
extern void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

static void child_fatal(int sig)
{
    _exit(128 + sig);
}

static void child_died(void)
{
    _exit(128 + SIGABRT);
}

/* In the child, a crash ends the child with 128 + the signal and nothing else: no core, no
 * fuzzer or sanitizer report that would take the child's crash (inside HDF5) for the parent's. */
static void child_setup(void)
{
    static const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = child_fatal;
    for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++) {
        sigaction(fatal[i], &sa, NULL);
    }
    if (__sanitizer_set_death_callback != NULL) {
        __sanitizer_set_death_callback(child_died);
    }
    /* the time bound ends the child: no inherited SIGALRM handler may catch it */
    signal(SIGALRM, SIG_DFL);
    alarm(PROBE_SECONDS);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    /* the child's death is the finding, and the parent names it in one line: a sanitizer's
     * report of the HDF5 library's overflow (a sanitized build) would add dozens */
    if (freopen("/dev/null", "w", stderr) == NULL) {
        _exit(0);
    }
}

static herr_t read_attr(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    hid_t attr = H5Aopen(loc, name, H5P_DEFAULT);
    hid_t type = attr >= 0 ? H5Aget_type(attr) : -1;
    hid_t space = attr >= 0 ? H5Aget_space(attr) : -1;
    hssize_t n = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    size_t size = type >= 0 ? H5Tget_size(type) : 0;

    (void)info;
    (void)data;
    if (n >= 0 && size > 0 && (double)n * (double)size < (double)PROBE_DATASET_BYTES) {
        void *buf = calloc((size_t)n + 1, size + 1);
        if (buf != NULL && H5Tget_class(type) != H5T_STRING) {
            H5Aread(attr, type, buf);
        }
        free(buf);
    }
    if (space >= 0) {
        H5Sclose(space);
    }
    if (type >= 0) {
        H5Tclose(type);
    }
    if (attr >= 0) {
        H5Aclose(attr);
    }
    return 0;
}

static void read_dataset(hid_t obj)
{
    hid_t type = H5Dget_type(obj);
    hid_t space = H5Dget_space(obj);
    hsize_t dims[H5S_MAX_RANK];
    int ndims = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
    size_t size = type >= 0 ? H5Tget_size(type) : 0;

    /* a member outside the element: the parent's read, which converts to its own struct, would
     * copy from outside the buffer (this read, in the file's own layout, would not notice) */
    if (type >= 0 && !sp_result_type_fits(type)) {
        _exit(PROBE_BAD_TYPE);
    }

    if (ndims >= 1 && ndims <= 2 && size > 0 && H5Sget_simple_extent_dims(space, dims, NULL) >= 0) {
        hsize_t per_row = ndims == 2 ? dims[1] : 1;
        hsize_t rows = dims[0];
        hsize_t start[2] = {0, 0};
        hsize_t count[2] = {0, per_row};
        void *buf;
        if (per_row > 0 && (double)per_row * (double)size < (double)PROBE_DATASET_BYTES) {
            hsize_t cap = PROBE_DATASET_BYTES / (per_row * size);
            count[0] = rows < cap ? rows : cap;
        }
        buf = count[0] > 0 ? malloc((size_t)(count[0] * per_row * size)) : NULL;
        if (buf != NULL) {
            hsize_t mcount = count[0] * per_row;
            hid_t mspace = H5Screate_simple(1, &mcount, NULL);
            H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
            H5Dread(obj, type, mspace, space, H5P_DEFAULT, buf);
            H5Sclose(mspace);
            free(buf);
        }
    }
    if (space >= 0) {
        H5Sclose(space);
    }
    if (type >= 0) {
        H5Tclose(type);
    }
}

#if H5_VERSION_GE(1, 12, 0)
typedef H5O_info2_t probe_info_t;
#else
typedef H5O_info_t probe_info_t;
#endif

static herr_t visit(hid_t root, const char *name, const probe_info_t *info, void *data)
{
    hid_t obj = H5Oopen(root, name, H5P_DEFAULT);

    (void)data;
    if (obj < 0) {
        return 0;
    }
    H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, NULL, read_attr, NULL);
    if (info->type == H5O_TYPE_DATASET) {
        read_dataset(obj);
    }
    H5Oclose(obj);
    return 0;
}

/* The child: read every object, attribute and (the start of every) dataset, and end. */
static void probe_child(const char *path)
{
    hid_t file;

    child_setup();
    file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file >= 0) {
#if H5_VERSION_GE(1, 12, 0)
        H5Ovisit3(file, H5_INDEX_NAME, H5_ITER_INC, visit, NULL, H5O_INFO_BASIC);
#else
        H5Ovisit2(file, H5_INDEX_NAME, H5_ITER_INC, visit, NULL, H5O_INFO_BASIC);
#endif
        H5Fclose(file);
    }
    /* errors are the parent's to find and name; only a crash or a hang matters here. _exit:
     * no atexit handler (HDF5's among them) of the parent's state runs twice */
    _exit(0);
}

/* Wait for the child pid: 0 when it ended by itself, else the signal that ended it (directly,
 * or through child_fatal's exit status 128 + signal). Its exit status in *code_p (0 after a
 * signal). */
static int wait_child(pid_t pid, int *code_p)
{
    int wstatus = 0;

    *code_p = 0;
    while (waitpid(pid, &wstatus, 0) < 0) {
        if (errno != EINTR) {
            return 0;
        }
    }
    if (WIFSIGNALED(wstatus)) {
        return WTERMSIG(wstatus);
    }
    if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) > 128) {
        return WEXITSTATUS(wstatus) - 128;
    }
    *code_p = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 0;
    return 0;
}

int sp_reader_attrs(const char *path, const char *group, sp_kv_t *kv, int max)
{
    int fds[2];
    pid_t pid;
    int n = 0, code;
    size_t want, got = 0;

    if (getenv("SCALEPROBE_TEST_NO_PROBE") != NULL) {
        return sp_h5attrs_read(path, group, kv, max);
    }
    if (pipe(fds) != 0) {
        return -1;
    }
    fflush(NULL);
    pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        child_setup();
        n = sp_h5attrs_read(path, group, kv, max);
        if (write(fds[1], &n, sizeof(n)) == (ssize_t)sizeof(n)) {
            for (size_t off = 0, all = (size_t)n * sizeof(*kv); off < all;) {
                ssize_t w = write(fds[1], (char *)kv + off, all - off);
                if (w <= 0) {
                    break;
                }
                off += (size_t)w;
            }
        }
        _exit(0);
    }
    close(fds[1]);
    if (read(fds[0], &n, sizeof(n)) != (ssize_t)sizeof(n) || n < 0 || n > max) {
        n = -1;
    }
    want = n > 0 ? (size_t)n * sizeof(*kv) : 0;
    while (got < want) {
        ssize_t r = read(fds[0], (char *)kv + got, want - got);
        if (r <= 0) {
            n = -1;
            break;
        }
        got += (size_t)r;
    }
    close(fds[0]);
    if (wait_child(pid, &code) != 0) {
        return -1;
    }
    return n;
}

sp_status_t sp__reader_probe(const char *path, char *why, size_t len)
{
    pid_t pid;
    int sig, code;

    /* the test-only switch of the libFuzzer harness: a fork of the (multithreaded) fuzzer can
     * deadlock in the child, and the fuzzer is meant to see every crash in the process anyway */
    if (getenv("SCALEPROBE_TEST_NO_PROBE") != NULL) {
        return SP_OK;
    }
    fflush(NULL);
    pid = fork();
    if (pid < 0) {
        return SP_OK; /* no probe possible: read as before */
    }
    if (pid == 0) {
        probe_child(path);
    }
    sig = wait_child(pid, &code);
    if (code == PROBE_BAD_TYPE) {
        snprintf(why, len, "is a damaged HDF5 file: a dataset's datatype places a member outside "
                 "its element");
        return SP_ERR_FORMAT;
    }
    if (sig != 0) {
        if (sig == SIGALRM) {
            snprintf(why, len, "is a damaged HDF5 file: reading its objects did not finish in "
                     "%d s", PROBE_SECONDS);
        } else {
            snprintf(why, len, "is a damaged HDF5 file: the HDF5 library crashed reading its "
                     "metadata (signal %d)", sig);
        }
        return SP_ERR_FORMAT;
    }
    return SP_OK;
}

/* scaleprobe status codes: one X-macro list gives the enum, its names and its messages. */
#ifndef SP_STATUS_H
#define SP_STATUS_H

/* X(name, value, message). SP_OK is zero, every error is negative. */
#define SP_STATUS_LIST(X)                                                                          \
    X(SP_OK, 0, "success")                                                                         \
    X(SP_ERR_INVALID, -1, "invalid argument or option")                                            \
    X(SP_ERR_NOMEM, -2, "out of memory")                                                           \
    X(SP_ERR_MPI, -3, "MPI call failed")                                                           \
    X(SP_ERR_IO, -4, "file or HDF5 I/O failed")                                                    \
    X(SP_ERR_EXISTS, -5, "output file exists (use --force to overwrite)")                          \
    X(SP_ERR_UNSUPPORTED, -6, "not supported by this backend or build")                            \
    X(SP_ERR_MISMATCH, -7, "ranks disagree")                                                       \
    X(SP_ERR_TIMEOUT, -8, "timed out")                                                             \
    X(SP_ERR_WRONG_DATA, -9, "data verification failed")                                           \
    X(SP_ERR_INTERRUPTED, -10, "interrupted by a signal")                                          \
    X(SP_ERR_PEER, -11, "another rank failed")                                                     \
    X(SP_ERR_FORMAT, -12, "not a scaleprobe result file or unsupported schema")                    \
    X(SP_ERR_DEVICE, -13, "device or device library call failed")

typedef enum {
#define SP_STATUS_ENUM(name, value, msg) name = value,
    SP_STATUS_LIST(SP_STATUS_ENUM)
#undef SP_STATUS_ENUM
} sp_status_t;

/* Message for a status; never NULL, static storage. */
const char *sp_status_str(sp_status_t status);

/* Symbolic name ("SP_ERR_MPI") for a status; never NULL, static storage. */
const char *sp_status_name(sp_status_t status);

/* Process exit code for a final status: 0 ok, 2 bad input, 1 anything else. */
int sp_status_exit_code(sp_status_t status);

#endif

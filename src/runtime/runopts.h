/* The options every MPI workload shares (-O, --force, --backend, --device, --timeout): one
 * struct that each workload embeds in its options, and one set of table rows that each workload
 * puts in its option table, so names, defaults, bounds and help never drift apart and the
 * runner reads them without asking the workload. */
#ifndef SP_RUNOPTS_H
#define SP_RUNOPTS_H

#include <stddef.h>

#include "backend.h"
#include "options.h"

typedef struct {
    char output[SP_OPT_STRLEN]; /* result file; "": the runner picks one under results/ */
    int force;                  /* overwrite an existing result file */
    int backend;                /* sp_backend_kind_t */
    long device;                /* GPU index on the node; -1: the node-local rank */
    double timeout;             /* seconds any wait may take */
    int timeline_compress;      /* /timeline/events with shuffle + deflate 1 (rank-0 writes) */
} sp_run_opts_t;

/* --timeout's bounds, one choice for every workload: below 0.1 s a healthy collective of a
 * large job (or a slow backend start) would already count as hung; a day is longer than any
 * batch job's time limit. */
#define SP_RUN_TIMEOUT_MIN_S 0.1
#define SP_RUN_TIMEOUT_MAX_S 86400.0

/* Where field of the sp_run_opts_t at member of type lies in type. */
#define SP__RUN_OFF(type, member, field) \
    (offsetof(type, member) + offsetof(sp_run_opts_t, field))

/* -O and --force alone, for a tool that writes a result file without a backend (predict);
 * default_path says in --help where the file goes without -O. */
#define SP_RUN_OUTPUT_ROWS(type, member, default_path)                                           \
    {"output", 'O', SP_OPT_STRING, SP__RUN_OFF(type, member, output), "", "PATH",                \
     "result file; default " default_path, 0, -1, NULL, 0},                                     \
    {"force", 0, SP_OPT_FLAG, SP__RUN_OFF(type, member, force), NULL, NULL,                      \
     "overwrite an existing result file", 0, -1, NULL, 0}

/* The fragment's rows, for an option table over type whose sp_run_opts_t is member; command is
 * the subcommand's name as a string literal (it names the default result file). */
#define SP_RUN_OPT_ROWS(type, member, command)                                                   \
    {"backend", 0, SP_OPT_CHOICE, SP__RUN_OFF(type, member, backend), "auto", "NAME",            \
     "auto (nccl when every rank sees a GPU, else host), host (MPI on host streams) or nccl",    \
     0, -1, sp_backend_names, SP_BACKEND_COUNT},                                                 \
    {"device", 0, SP_OPT_INT, SP__RUN_OFF(type, member, device), "-1", "N",                      \
     "GPU of this rank on its node (nccl); -1: the node-local rank", -1, 1024, NULL, 0},         \
    {"timeout", 'T', SP_OPT_DOUBLE, SP__RUN_OFF(type, member, timeout), "300", "SEC",              \
     "bound on every wait: the watchdog names what hung and ends the job (nccl: a device wait "  \
     "aborts the communicator)",                                                                 \
     SP_RUN_TIMEOUT_MIN_S, SP_RUN_TIMEOUT_MAX_S, NULL, 0},                                       \
    {"timeline-compress", 0, SP_OPT_FLAG, SP__RUN_OFF(type, member, timeline_compress), NULL,    \
     NULL,                                                                                       \
     "compress /timeline/events (shuffle + deflate 1, each rank its own chunks: files ~40x "      \
     "smaller, aggregation ~1.5-3x slower); default uncompressed, written at disk speed",        \
     0, -1, NULL, 0},                                                                            \
    SP_RUN_OUTPUT_ROWS(type, member, "results/" command "-<UTC time>-<pid or job id>.h5")

#define SP_RUN_OPT_NROWS 6

/* The fragment alone (offsets into sp_run_opts_t, command "<command>"): the reference every
 * workload's table is checked against. */
extern const sp_opt_table_t sp_run_opt_table;

/* The embedded fragment of a workload's options. */
static inline sp_run_opts_t *sp_run_opts_at(void *opts, size_t offset)
{
    return (sp_run_opts_t *)((char *)opts + offset);
}

#endif

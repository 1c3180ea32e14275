/* The shared option rows on their own (see runopts.h). */
#include "runopts.h"

typedef struct {
    sp_run_opts_t run;
} run_only_t;

static const sp_opt_def_t run_defs[] = {SP_RUN_OPT_ROWS(run_only_t, run, "<command>")};

const sp_opt_table_t sp_run_opt_table = {
    .command = "<command>",
    .summary = "The options every MPI-launched subcommand shares.",
    .defs = run_defs,
    .ndefs = SP_RUN_OPT_NROWS,
};

_Static_assert(sizeof(run_defs) / sizeof(run_defs[0]) == SP_RUN_OPT_NROWS,
               "SP_RUN_OPT_NROWS counts the rows of SP_RUN_OPT_ROWS");

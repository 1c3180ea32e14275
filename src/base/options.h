/* Table-driven command-line options: one table per subcommand drives parsing, --help and the
 * values written to /config. Pure C, no MPI: every rank parses its own argv. */
#ifndef SP_OPTIONS_H
#define SP_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "status.h"

typedef enum {
    SP_OPT_FLAG,    /* int, set to 1 when present; takes no value */
    SP_OPT_INT,     /* long, decimal, range [min, max] */
    SP_OPT_DOUBLE,  /* double, range [min, max] */
    SP_OPT_SIZE,    /* uint64_t bytes; K/M/G suffix (1024-based), fractions allowed: 1.5K */
    SP_OPT_STRING,  /* char[SP_OPT_STRLEN] */
    SP_OPT_CHOICE,  /* int index into names[] */
    SP_OPT_SET,     /* uint32_t bit mask over names[]; comma list or "all" */
    SP_OPT_ARGS,    /* sp_opt_args_t: the positional arguments in order; no option name on the
                     * command line (long_name names the row, metavar shows in the usage line);
                     * at most one such row per table; max 1 shows one in the usage line,
                     * else METAVAR... (the caller checks how many it got) */
    SP_OPT_MARK     /* int: a flag that also records where it stood among the positional
                     * arguments: 1 + the number given before it; 0 when absent; twice is an
                     * error (compare A1 A2 --vs B1 B2) */
} sp_opt_kind_t;

#define SP_OPT_STRLEN 1024

/* The positional arguments (SP_OPT_ARGS). The caller sets v to storage of cap entries before
 * parsing (argc entries always suffice); the parser appends pointers into argv. A lone "-" is a
 * positional argument, and so is everything after "--". */
typedef struct {
    char **v;
    int n;
    int cap;
} sp_opt_args_t;

typedef struct {
    const char *long_name;      /* "minbytes" for --minbytes */
    char short_name;            /* 'b' for -b, or 0 */
    sp_opt_kind_t kind;
    size_t offset;              /* offsetof the field in the subcommand's option struct */
    const char *default_value;  /* parsed like a command-line value; NULL: zero/empty */
    const char *metavar;        /* for --help */
    const char *help;
    double min;                 /* INT/DOUBLE/SIZE range, ignored when min > max */
    double max;
    const char *const *names;   /* CHOICE/SET; a help text ending in ':' is followed in --help
                                 * by the names ("all, or a comma list of ..." for a SET), so
                                 * a registry's new entry needs no edit here */
    int nnames;
} sp_opt_def_t;

typedef struct {
    const char *command;      /* "coll" */
    const char *summary;      /* one line for --help */
    const sp_opt_def_t *defs;
    int ndefs;
} sp_opt_table_t;

/*
 * Parse argv[first..argc) into opts (the caller's struct, defaults applied first). On a bad option
 * or value, returns SP_ERR_INVALID with one human message in err (never longer than errlen).
 * help_p is set to 1 when -h/--help was given (parsing stops there).
 * seen (optional, ndefs entries) records which options were given explicitly.
 */
sp_status_t sp_opts_parse(const sp_opt_table_t *table, int argc, char **argv, int first,
                          void *opts, int *help_p, unsigned char *seen, char *err, size_t errlen);

/* Apply defaults only. */
sp_status_t sp_opts_defaults(const sp_opt_table_t *table, void *opts, char *err, size_t errlen);

/* Format the value of option d in opts as it would be given on the command line. */
void sp_opts_format(const sp_opt_def_t *d, const void *opts, char *out, size_t outlen);

/* Print --help for the table: the usage line (with the positional row's metavar), the summary,
 * every option row, then -h. */
void sp_opts_help(const sp_opt_table_t *table, FILE *out);

/* Parse a size with an optional K/M/G suffix (1024-based), as nccl-tests does. */
sp_status_t sp_parse_size(const char *text, uint64_t *bytes_p);

/* Format bytes compactly: 8, 1K, 1.5K, 32M, 1G (exact when it can be). */
void sp_format_size(uint64_t bytes, char *out, size_t outlen);

/* FNV-1a hash of every formatted option value: equal on ranks that parsed the same options. */
uint64_t sp_opts_hash(const sp_opt_table_t *table, const void *opts);

#endif

/* scaleprobe: one binary, subcommands dispatched here and nowhere else. */
#include <stdio.h>
#include <string.h>

#include "accept_cmd.h"
#include "coll_cmd.h"
#include "compare.h"
#include "export.h"
#include "launcher.h"
#include "links_cmd.h"
#include "node_cmd.h"
#include "predict_cmd.h"
#include "proxy_cmd.h"
#include "regress.h"
#include "report.h"

typedef struct {
    const char *name;
    int (*main)(int argc, char **argv);
    const char *help;
} subcommand_t;

static const subcommand_t subcommands[] = {
    {"coll", sp_coll_main, "collective sweep (launch with mpirun or srun)"},
    {"proxy", sp_proxy_main, "training proxy: pipeline schedules, bubbles (mpirun or srun)"},
    {"node", sp_node_main, "node baselines: memory, GEMM, outliers, burn (mpirun or srun)"},
    {"links", sp_links_main, "find the bad node and link: pairwise matrix, screen (mpirun/srun)"},
    {"report", sp_report_main, "summarize a result file (no MPI launch needed)"},
    {"compare", sp_compare_main, "A/B of two result files: differences, ratios with CIs (no MPI)"},
    {"predict", sp_predict_main, "predict a proxy step from a sweep or alpha-beta model (no MPI)"},
    {"regress", sp_regress_main, "change points over a series of result files (no MPI)"},
    {"accept", sp_accept_main, "acceptance gates: health and performance against a spec"},
    {"export", sp_export_main, "timeline as a Chrome/Perfetto trace, tables as CSV (no MPI)"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: scaleprobe <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++) {
        fprintf(out, "  %-8s %s\n", subcommands[i].name, subcommands[i].help);
    }
    fprintf(out, "\n'scaleprobe <command> --help' shows a command's options.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        sp_launcher_error(NULL, "no command given (see 'scaleprobe --help')");
        return 2;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("scaleprobe %s\n", SP_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++) {
        if (strcmp(argv[1], subcommands[i].name) == 0) {
            return subcommands[i].main(argc, argv);
        }
    }
    {
        char msg[256];
        snprintf(msg, sizeof(msg), "unknown command '%.64s' (see 'scaleprobe --help')", argv[1]);
        sp_launcher_error(NULL, msg);
    }
    return 2;
}

/* libFuzzer harness: the option parsing of every subcommand. The input's first byte picks the
 * subcommand (and a world size for the checks that need one), the rest is its argv, one
 * argument per line. The MPI workloads' parsers and their world checks run directly; the offline
 * tools run their main function, whose options come first and whose files mostly do not exist
 * (run from a scratch directory, so nothing lands in the tree). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll_options.h"
#include "compare.h"
#include "export.h"
#include "node_options.h"
#include "proxy_options.h"
#include "regress.h"
#include "report.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    char dir[] = "/tmp/sp-fuzz-options.XXXXXX";

    (void)argc;
    (void)argv;
    if (mkdtemp(dir) != NULL && chdir(dir) != 0) {
        perror("chdir");
    }
    return 0;
}

static void workload(int which, int world, int argc, char **argv)
{
    char err[1024];
    int help = 0;

    if (which == 0) {
        sp_coll_opts_t o;
        if (sp_coll_opts_parse(argc, argv, 2, &o, &help, err, sizeof(err)) == SP_OK && !help) {
            sp_coll_opts_check_world(&o, world, err, sizeof(err));
        }
    } else if (which == 1) {
        sp_proxy_opts_t o;
        sp_layout_t layout;
        sp_program_config_t cfg;
        sp_proxy_info_t info;
        if (sp_proxy_opts_parse(argc, argv, 2, &o, &help, err, sizeof(err)) == SP_OK && !help &&
            sp_proxy_opts_check_world(&o, world, err, sizeof(err)) == SP_OK &&
            sp_proxy_layout(&o, world, &layout, err, sizeof(err)) == SP_OK) {
            sp_proxy_program_config(&o, &layout, &cfg);
            sp_proxy_info(&o, &layout, &info);
        }
    } else {
        sp_node_opts_t o;
        sp_node_opts_parse(argc, argv, 2, &o, &help, err, sizeof(err));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const commands[] = {"coll", "proxy", "node", "report", "compare",
                                           "regress", "export"};
    char *buf;
    char *argv[MAX_ARGS + 3];
    int argc = 2;
    int which;
    int world;

    if (size < 2 || size > 4096) {
        return 0;
    }
    which = data[0] % 7;
    world = 1 + data[1] % 64;
    buf = malloc(size - 1);
    if (buf == NULL) {
        return 0;
    }
    memcpy(buf, data + 2, size - 2);
    buf[size - 2] = '\0';
    argv[0] = "scaleprobe";
    argv[1] = (char *)commands[which];
    for (char *p = buf, *nl; argc < MAX_ARGS + 2; p = nl + 1) {
        nl = strchr(p, '\n');
        argv[argc++] = p;
        if (nl == NULL) {
            break;
        }
        *nl = '\0';
    }
    argv[argc] = NULL;
    switch (which) {
    case 3:
        sp_report_main(argc, argv);
        break;
    case 4:
        sp_compare_main(argc, argv);
        break;
    case 5:
        sp_regress_main(argc, argv);
        break;
    case 6:
        sp_export_main(argc, argv);
        break;
    default:
        workload(which, world, argc, argv);
    }
    free(buf);
    return 0;
}

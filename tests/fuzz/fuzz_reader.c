/* libFuzzer harness: the readers' entry points on a file made of the input. The input is
 * written to a temporary path, then read as `report` and `export --chrome` read it (the reader,
 * the plausibility checks, the timeline reader, the tables), opened by sp_reader_open, compared
 * with itself (`compare`: the sweep, proxy and node metrics, the configuration diff), and taken
 * as `predict`'s sweep and node input (those three only when the reader opens the file). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "export.h"
#include "predict_cmd.h"
#include "reader.h"
#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static char dir_path[64];
static char file_path[96];
static char json_path[96];
static char pred_path[96];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* The probe child stays on, as in every offline tool (reader_probe.c): HDF5 1.10 itself
     * overflows a heap buffer inside H5Aexists on some damaged files (found by this harness; the
     * input is kept in corpus/reader as crash-hdf5-attr-exists), and production contains that
     * in the child. What the fuzzer checks is this process: our reader on every file the probe
     * lets through. */
    snprintf(dir_path, sizeof(dir_path), "/tmp/sp-fuzz-reader.XXXXXX");
    if (mkdtemp(dir_path) == NULL) {
        perror("mkdtemp");
        return 0;
    }
    snprintf(file_path, sizeof(file_path), "%s/in.h5", dir_path);
    snprintf(json_path, sizeof(json_path), "%s/out.json", dir_path);
    snprintf(pred_path, sizeof(pred_path), "%s/pred.h5", dir_path);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *report_argv[] = {"scaleprobe", "report", file_path, NULL};
    char *export_argv[] = {"scaleprobe", "export", file_path, "--chrome", json_path, "--force",
                           NULL};
    char *compare_argv[] = {"scaleprobe", "compare", file_path, file_path, NULL};
    char *sweep_argv[] = {"scaleprobe", "predict", "--sweep", file_path, "--pp", "2", "--layers",
                          "2", "--hidden", "256", "--heads", "4", "--ffn", "512", "--seq", "64",
                          "--vocab", "1000", "--microbatches", "2", "-O", pred_path, "--force",
                          NULL};
    char *node_argv[] = {"scaleprobe", "predict", "--node", file_path, "--alpha-us", "5",
                         "--beta-gbps", "10", "--pp", "2", "--layers", "2", "--hidden", "256",
                         "--heads", "4", "--ffn", "512", "--seq", "64", "--vocab", "1000",
                         "--microbatches", "2", "-O", pred_path, "--force", NULL};
    sp_reader_t rd;
    FILE *f = fopen(file_path, "wb");

    if (f == NULL) {
        return 0;
    }
    if (size > 0 && fwrite(data, 1, size, f) != size) {
        fclose(f);
        return 0;
    }
    fclose(f);
    int opened = sp_reader_open(file_path, &rd) == SP_OK;

    if (opened) {
        sp_reader_close(&rd);
    }
    sp_report_main(3, report_argv);
    sp_export_main(6, export_argv);
    /* compare and predict open the file as the reader does (report and export above cover that
     * path and its errors); what they add is their own use of a file that opens: only those,
     * so that a slow damaged file (HDF5 under ASan can take seconds) is not read five times
     * more within the per-input time limit */
    if (opened) {
        sp_compare_main(4, compare_argv);
        sp_predict_main((int)(sizeof(sweep_argv) / sizeof(*sweep_argv)) - 1, sweep_argv);
        sp_predict_main((int)(sizeof(node_argv) / sizeof(*node_argv)) - 1, node_argv);
    }
    return 0;
}

/* `scaleprobe report FILE`: the sweep table and a summary, from the file alone (no MPI). */
#ifndef SP_REPORT_H
#define SP_REPORT_H

#include <stdio.h>

#include "reader.h"

/* argv[1] is "report"; returns the process exit code (2 for bad input or a bad file). */
int sp_report_main(int argc, char **argv);

/* Print the report of an opened file. */
void sp_report_print(const sp_reader_t *rd, FILE *out);

#endif

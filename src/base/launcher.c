/* Launcher environment. Offline tools and argument errors happen before MPI_Init, when only the
 * environment tells which process is rank 0. */
#include "launcher.h"

#include <stdio.h>
#include <stdlib.h>

int sp_launcher_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
                                       "SLURM_PROCID"};

    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        if (v != NULL && *v != '\0') {
            return atoi(v);
        }
    }
    return -1;
}

void sp_launcher_error(const char *cmd, const char *msg)
{
    if (sp_launcher_rank() > 0) {
        return;
    }
    if (cmd != NULL) {
        fprintf(stderr, "scaleprobe %s: error: %s\n", cmd, msg);
    } else {
        fprintf(stderr, "scaleprobe: error: %s\n", msg);
    }
}

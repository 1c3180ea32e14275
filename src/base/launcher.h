/* What the launcher (mpirun, srun) says about this process before MPI is initialized. */
#ifndef SP_LAUNCHER_H
#define SP_LAUNCHER_H

/* This process's rank as the launcher's environment gives it (Open MPI, PMIx, Slurm), or -1 when
 * not launched by one. */
int sp_launcher_rank(void);

/* Print "scaleprobe CMD: error: MSG" once per job: only where sp_launcher_rank() is 0 or -1.
 * For errors found before MPI is initialized (unknown command, offline tools). */
void sp_launcher_error(const char *cmd, const char *msg);

#endif

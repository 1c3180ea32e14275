/* SIGTERM and SIGINT (Slurm's time limit, scancel, mpirun forwarding Ctrl-C): the first one is
 * noted and the run stops at its next safe point (a sweep abandons the point it is measuring,
 * the proxy the step), closes the result file as "partial" with everything finished, and exits
 * with 128 + the signal's number; a second one ends the process at once with that status. */
#ifndef SP_SIGNALS_H
#define SP_SIGNALS_H

/* Install the handlers and ignore SIGPIPE (process-wide; call once, after MPI_Init). */
void sp_signals_install(void);

/* The first signal received (SIGTERM or SIGINT), 0 when none. Async-signal-safe to read. */
int sp_signal_pending(void);

/* Name of a signal number: "SIGTERM", "SIGINT", else "a signal" (static storage). */
const char *sp_signal_name(int signo);

#endif

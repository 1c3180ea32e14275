/* Signal handling (see signals.h). */
#include "signals.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The one piece of process-wide mutable state: a signal handler reaches no context object, and
 * only a volatile sig_atomic_t may be written from it. */
static volatile sig_atomic_t first_signal;

static void on_signal(int signo)
{
    static const char msg[] = "scaleprobe: second signal: exiting at once\n";

    if (first_signal != 0) {
        ssize_t rc = write(STDERR_FILENO, msg, sizeof(msg) - 1);
        (void)rc;
        _exit(128 + signo);
    }
    first_signal = signo;
}

void sp_signals_install(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART; /* waits in progress go on; the run checks at its safe points */
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);

    /* The launcher that forwards our output can be gone before we are (Open MPI 4's mpirun exits
     * at a second signal without waiting for its ranks): a write to its pipe must fail, not kill
     * rank 0 with the result file open. */
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = SIG_IGN;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGPIPE, &sa, NULL);
}

int sp_signal_pending(void)
{
    return first_signal;
}

const char *sp_signal_name(int signo)
{
    switch (signo) {
    case SIGTERM:
        return "SIGTERM";
    case SIGINT:
        return "SIGINT";
    default:
        return "a signal"; /* only SIGTERM and SIGINT are handled */
    }
}

/* The watchdog's channel to rank 0 outside MPI. The watchdog threads must not call MPI: coll,
 * node and links run with MPI_THREAD_FUNNELED (a library initialised for several threads costs
 * every small message, docs/METHODOLOGY.md), and a hung main thread may be inside MPI anyway.
 * So a rank's watchdog tells rank 0 its state in a UDP datagram: at the start, rank 0 opens a
 * socket on an ephemeral port and broadcasts (over MPI, in the main thread) its IPv4 addresses,
 * the port and a random nonce; a rank sends to every one of those addresses, rank 0 reads
 * without blocking and drops what does not carry the nonce. Datagrams can be lost: rank 0 then
 * reports the rank as one that did not answer, as before. Where the socket cannot be had the
 * channel is absent (sp_wdnet_ready 0) and the watchdog reports rank 0's own state only. */
#ifndef SP_WDNET_H
#define SP_WDNET_H

#include <mpi.h>
#include <stddef.h>

#include "status.h"

typedef struct sp_wdnet sp_wdnet_t;

/* Collective over comm (main thread). *net_p is set also when the channel could not be had
 * (then not ready). SP_ERR_NOMEM. */
sp_status_t sp_wdnet_open(MPI_Comm comm, sp_wdnet_t **net_p);
int sp_wdnet_ready(const sp_wdnet_t *net);
/* Ranks other than 0: send len (<= 512) bytes to rank 0. Never blocks. */
void sp_wdnet_send(sp_wdnet_t *net, const void *msg, size_t len);
/* Rank 0: 1 when a message of exactly len bytes from this job was read into msg, 0 when none
 * is waiting. Never blocks. */
int sp_wdnet_recv(sp_wdnet_t *net, void *msg, size_t len);
/* Not collective; NULL is a no-op. */
void sp_wdnet_close(sp_wdnet_t *net);

#endif

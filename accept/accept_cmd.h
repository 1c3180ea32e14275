/* `scaleprobe accept`: acceptance gates over a spec (a workload of the shared runner), and
 * `accept --make-baseline` (offline). */
#ifndef SP_ACCEPT_CMD_H
#define SP_ACCEPT_CMD_H

int sp_accept_main(int argc, char **argv);

#endif

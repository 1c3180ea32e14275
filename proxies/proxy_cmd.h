/* Entry point of `scaleprobe proxy`. */
#ifndef SP_PROXY_CMD_H
#define SP_PROXY_CMD_H

/* argv[1] is "proxy"; returns the process exit code. */
int sp_proxy_main(int argc, char **argv);

#endif

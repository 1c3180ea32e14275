/* Entry point of `scaleprobe coll`. */
#ifndef SP_COLL_CMD_H
#define SP_COLL_CMD_H

/* argv[1] is "coll"; returns the process exit code. */
int sp_coll_main(int argc, char **argv);

#endif

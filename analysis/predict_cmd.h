/* Entry point of `scaleprobe predict`: the training proxy's step predicted from a sweep or an
 * alpha-beta model, without running it (no MPI launch). */
#ifndef SP_PREDICT_CMD_H
#define SP_PREDICT_CMD_H

/* argv[1] is "predict"; returns the process exit code (0, 1 on a failure, 2 on bad input). */
int sp_predict_main(int argc, char **argv);

#endif

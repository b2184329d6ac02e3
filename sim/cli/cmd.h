/* sim/cli/cmd.h: the research-workflow commands of the command line, sweep
 * and capacity. Each takes its argv (argv[0] is the command's name) and
 * the root of the built-in data, prints its own messages and returns the
 * process's exit status (0 done, 1 a point failed, 2 bad input). */
#ifndef SIM_CMD_H
#define SIM_CMD_H

int sim_cmd_sweep(int argc, char **argv, const char *data_dir);
int sim_cmd_capacity(int argc, char **argv, const char *data_dir);

/* Time the sweep driver against a plain loop of the same runs (files go
 * under tmp_dir) and print the overhead per point; *over is incremented
 * when it is over its 5 ms budget. 0 or -1. */
int sim_cmd_bench_sweep(const char *data_dir, const char *tmp_dir, int *over);

#endif

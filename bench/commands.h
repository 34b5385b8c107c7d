/* The subcommands of `stagebench`. Each returns the process exit status: 0 success, 1 a result
 * the user must look at (failed validation, regression), 2 bad usage or input. */
#ifndef SB_COMMANDS_H
#define SB_COMMANDS_H

/* The whole command line: argv[1] names the subcommand. */
int sb_main(int argc, char **argv);
int sb_cmd_list(int argc, char **argv);
int sb_cmd_run(int argc, char **argv);
int sb_cmd_study(int argc, char **argv);
int sb_cmd_compare(int argc, char **argv);
int sb_cmd_suite(int argc, char **argv);
int sb_cmd_calibrate(int argc, char **argv);
int sb_cmd_plot(int argc, char **argv);
int sb_cmd_history(int argc, char **argv);
int sb_cmd_report(int argc, char **argv);

#endif

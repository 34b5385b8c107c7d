/* The subcommands of `stagebench`. Each returns the process exit status: 0 success, 1 a result
 * the user must look at (failed validation, regression), 2 bad usage or input. */
#ifndef SB_COMMANDS_H
#define SB_COMMANDS_H

#include <stddef.h>

/* A subcommand by name. */
typedef struct sb_command {
    const char *name;
    int (*run)(int argc, char **argv);
} sb_command;

/* Runs the command argv[1] names, with argv[1..]; with no argv[1] or -h/--help prints usage
 * (to stderr and returns 2, or to stdout and returns 0). An unknown name returns -1, for the
 * caller to say so in its own words. */
int sb_dispatch(const sb_command *commands, size_t n, const char *usage, int argc, char **argv);

/* The whole command line: argv[1] names the subcommand. */
int sb_main(int argc, char **argv);
int sb_cmd_list(int argc, char **argv);
int sb_cmd_run(int argc, char **argv);
int sb_cmd_study(int argc, char **argv);
int sb_cmd_compare(int argc, char **argv);
int sb_cmd_suite(int argc, char **argv);
int sb_cmd_calibrate(int argc, char **argv);
int sb_cmd_gate(int argc, char **argv);
int sb_cmd_plot(int argc, char **argv);
int sb_cmd_history(int argc, char **argv);
int sb_cmd_report(int argc, char **argv);

#endif

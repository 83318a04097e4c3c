/*
 * How a subcommand of `rdmatrace` describes itself.  Each cli/cmd_NAME.c
 * defines one `const struct rt_command rt_cmd_NAME`; the Makefile generates
 * the table from the files present, so adding a command touches no other
 * file.  `rdmatrace NAME --help` prints `usage` without calling run().
 */
#ifndef RDMATRACE_CLI_COMMAND_H
#define RDMATRACE_CLI_COMMAND_H

struct rt_command {
	const char *name;
	const char *summary;     /* one line for `rdmatrace --help` */
	const char *usage;       /* full help text: synopsis, options, examples */
	int (*run)(int argc, char **argv); /* argv[0] is the command name; returns the exit status */
	int builds_timelines;    /* touches much new memory: its heap set up for that (timeline_memory.c) */
};

#endif

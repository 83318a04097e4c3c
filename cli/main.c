/*
 * The `rdmatrace` command: finds the subcommand named by the first argument
 * and hands it the rest.  Help for every command comes from its table entry.
 */
#include <stdio.h>
#include <string.h>

#include "command.h"
#include "commands.h"
#include "timeline_memory.h"

#ifndef RDMATRACE_VERSION
#define RDMATRACE_VERSION "0.1.0"
#endif

static void print_overview(FILE *out)
{
	fprintf(out, "usage: rdmatrace COMMAND [ARGS...]\n\n"
		     "Trace and diagnose RDMA over Converged Ethernet (RoCEv2).\n\ncommands:\n");
	for (const struct rt_command *const *c = rt_commands; *c; c++)
		fprintf(out, "  %-12s %s\n", (*c)->name, (*c)->summary);
	fprintf(out, "\n`rdmatrace COMMAND --help` describes a command.\n");
}

static const struct rt_command *find_command(const char *name)
{
	for (const struct rt_command *const *c = rt_commands; *c; c++)
		if (strcmp((*c)->name, name) == 0)
			return *c;
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		if (argc >= 3 && strcmp(argv[1], "help") == 0) {
			const struct rt_command *cmd = find_command(argv[2]);
			if (cmd) {
				fputs(cmd->usage, stdout);
				return 0;
			}
		}
		print_overview(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("rdmatrace %s\n", RDMATRACE_VERSION);
		return 0;
	}
	const struct rt_command *cmd = find_command(argv[1]);
	if (!cmd) {
		fprintf(stderr, "rdmatrace: unknown command '%s' (see rdmatrace --help)\n", argv[1]);
		return 2;
	}
	rt_timeline_memory_start(argv, cmd->builds_timelines);
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(cmd->usage, stdout);
			return 0;
		}
	}
	return cmd->run(argc - 1, argv + 1);
}

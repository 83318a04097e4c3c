/*
 * `rdmatrace tshark`: run tshark on a run's annotated capture with the
 * rdmatrace plugin loaded, so its fields work in -Y filters and -e columns.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "command.h"
#include "wireshark_files.h"

static int cmd_tshark(int argc, char **argv)
{
	if (argc < 2 || argv[1][0] == '-') {
		fprintf(stderr, "rdmatrace tshark: which run? (rdmatrace tshark RUNDIR|CAPTURE [-- TSHARK-ARGS])\n");
		return 2;
	}
	const char *target = argv[1];
	int first_extra = 2;
	if (first_extra < argc && strcmp(argv[first_extra], "--") == 0)
		first_extra++;
	else if (first_extra < argc) {
		fprintf(stderr, "rdmatrace tshark: put tshark's arguments after `--`\n");
		return 2;
	}
	char dir[PATH_MAX], cap[PATH_MAX], err[512];
	int annotated;
	if (ws_find_plugin_dir(dir, sizeof(dir), err, sizeof(err)) != 0 ||
	    ws_resolve_capture(target, cap, sizeof(cap), &annotated, err, sizeof(err)) != 0) {
		fprintf(stderr, "rdmatrace tshark: %s\n", err);
		return 1;
	}
	char lua[PATH_MAX + 32];
	snprintf(lua, sizeof(lua), "lua_script:%s/rdmatrace.lua", dir);
	int extra = argc - first_extra;
	char *args[extra + 9];
	int n = 0;
	args[n++] = "tshark";
	args[n++] = "-X";
	args[n++] = lua;
	args[n++] = "--disable-protocol";
	args[n++] = "rpcordma";
	args[n++] = "-r";
	args[n++] = cap;
	for (int i = first_extra; i < argc; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	fflush(stdout);
	execvp("tshark", args);
	perror("rdmatrace tshark: cannot start tshark (install Debian's tshark package)");
	return 1;
}

const struct rt_command rt_cmd_tshark = {
	.name = "tshark",
	.summary = "run tshark on a run's annotated capture with the rdmatrace plugin",
	.usage = "usage: rdmatrace tshark RUNDIR|CAPTURE [-- TSHARK-ARGS...]\n"
		 "\n"
		 "Runs tshark -X lua_script:rdmatrace.lua --disable-protocol rpcordma -r CAPTURE\n"
		 "followed by TSHARK-ARGS, where CAPTURE is the run's annotated.pcapng (rebuilt\n"
		 "with `rdmatrace correlate` when missing or stale) or the capture file given.\n"
		 "\n"
		 "examples:\n"
		 "  rdmatrace tshark run -- -Y rdmatrace.retransmission\n"
		 "  rdmatrace tshark run -- -Y 'rdmatrace.rnr_wait_ms > 100' -T fields -e frame.number -e rdmatrace.wr_id\n"
		 "  rdmatrace tshark run -- -q -z expert\n",
	.run = cmd_tshark,
};

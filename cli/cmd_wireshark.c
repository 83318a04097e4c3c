/*
 * `rdmatrace wireshark`: open a run's annotated capture in Wireshark with
 * the rdmatrace plugin and profile, or print the commands that would when
 * there is no display.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "command.h"
#include "wireshark_files.h"
#include "number_arg.h"

static int on_path(const char *prog)
{
	const char *path = getenv("PATH");
	if (!path)
		return 0;
	char buf[PATH_MAX];
	const char *p = path;
	while (*p) {
		size_t n = strcspn(p, ":");
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, p, prog);
		if (access(buf, X_OK) == 0)
			return 1;
		p += n;
		if (*p == ':')
			p++;
	}
	return 0;
}

static int cmd_wireshark(int argc, char **argv)
{
	const char *target = NULL;
	long frame = 0;
	int print_only = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--frame") == 0 && i + 1 < argc) {
			uint64_t v;
			if (rt_parse_number_arg(argv[++i], 10, UINT32_MAX, &v) < 0 || v < 1) {
				fprintf(stderr, "rdmatrace wireshark: --frame needs a frame number, not '%s'\n", argv[i]);
				return 2;
			}
			frame = (long)v;
		} else if (strcmp(argv[i], "--print") == 0) {
			print_only = 1;
		} else if (argv[i][0] == '-') {
			fprintf(stderr, "rdmatrace wireshark: unknown option '%s' (see --help)\n", argv[i]);
			return 2;
		} else if (!target) {
			target = argv[i];
		} else {
			fprintf(stderr, "rdmatrace wireshark: one run directory or capture, please\n");
			return 2;
		}
	}
	if (!target) {
		fprintf(stderr, "rdmatrace wireshark: which run? (rdmatrace wireshark RUNDIR [--frame N])\n");
		return 2;
	}
	char dir[PATH_MAX], cap[PATH_MAX], prof[PATH_MAX], err[512];
	int annotated;
	if (ws_find_plugin_dir(dir, sizeof(dir), err, sizeof(err)) != 0 ||
	    ws_resolve_capture(target, cap, sizeof(cap), &annotated, err, sizeof(err)) != 0) {
		fprintf(stderr, "rdmatrace wireshark: %s\n", err);
		return 1;
	}
	int have_profile = ws_install_profile(dir, prof, sizeof(prof), err, sizeof(err)) == 0;
	if (!have_profile)
		fprintf(stderr, "rdmatrace wireshark: %s (continuing without the profile)\n", err);
	if (!annotated)
		fprintf(stderr, "rdmatrace wireshark: %s has no rdmatrace annotations; the plugin adds"
				" only what the packets themselves say\n", cap);

	char lua[PATH_MAX + 32], goto_arg[32] = "";
	snprintf(lua, sizeof(lua), "lua_script:%s/rdmatrace.lua", dir);
	if (frame > 0)
		snprintf(goto_arg, sizeof(goto_arg), "%ld", frame);
	int display = (getenv("DISPLAY") && *getenv("DISPLAY")) ||
		      (getenv("WAYLAND_DISPLAY") && *getenv("WAYLAND_DISPLAY"));
	if (!print_only && display && on_path("wireshark")) {
		char *args[12];
		int n = 0;
		args[n++] = "wireshark";
		args[n++] = "-X";
		args[n++] = lua;
		if (have_profile) {
			args[n++] = "-C";
			args[n++] = "rdmatrace";
		}
		args[n++] = "-r";
		args[n++] = cap;
		if (frame > 0) {
			args[n++] = "-g";
			args[n++] = goto_arg;
		}
		args[n] = NULL;
		execvp("wireshark", args);
		perror("rdmatrace wireshark: cannot start wireshark");
		return 1;
	}
	if (!print_only)
		printf("# no display (or no wireshark binary); run one of these where there is:\n");
	printf("wireshark -X '%s'%s -r '%s'%s%s\n", lua, have_profile ? " -C rdmatrace" : "", cap,
	       frame > 0 ? " -g " : "", goto_arg);
	printf("tshark -X '%s' --disable-protocol rpcordma -r '%s' -O rdmatrace%s%s\n", lua, cap,
	       frame > 0 ? " -Y frame.number==" : "", goto_arg);
	return 0;
}

const struct rt_command rt_cmd_wireshark = {
	.name = "wireshark",
	.summary = "open a run's annotated capture in Wireshark with the rdmatrace plugin",
	.usage = "usage: rdmatrace wireshark RUNDIR|CAPTURE [--frame N] [--print]\n"
		 "\n"
		 "Opens the run's annotated capture (RUNDIR/annotated.pcapng, rebuilt with\n"
		 "`rdmatrace correlate` when missing or stale) in Wireshark with the rdmatrace\n"
		 "Lua plugin (wireshark/rdmatrace.lua) and the `rdmatrace` profile (colouring\n"
		 "rules, QP/PSN/opcode/WR columns, RPC-over-RDMA heuristic off), which it copies\n"
		 "into Wireshark's personal profiles folder.  A plain capture file from any tool\n"
		 "works too: the plugin then adds what the packets say (RNR NAK waits, NAK\n"
		 "meanings).  Without a display it prints the wireshark and tshark commands.\n"
		 "\n"
		 "options:\n"
		 "  --frame N   select frame N when Wireshark opens\n"
		 "  --print     only print the commands\n"
		 "\n"
		 "Filter examples inside Wireshark: rdmatrace.retransmission,\n"
		 "rdmatrace.rnr_wait_ms > 100, rdmatrace.wr_id == 5, rdmatrace.icrc_bad.\n",
	.run = cmd_wireshark,
};

/*
 * `rdmatrace lab`: run a lab scenario end to end.  The work is done by
 * scripts/lab-run (a readable shell script with the scenario table); this
 * command finds it and hands it the arguments and this binary's path.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "command.h"
#include "datadir.h"

static int cmd_lab(int argc, char **argv)
{
	char script[PATH_MAX], exe[PATH_MAX];
	if (rt_find_data_file("scripts/lab-run", script, sizeof(script)) != 0) {
		fprintf(stderr, "rdmatrace lab: cannot find scripts/lab-run (set RDMATRACE_DATADIR to the rdmatrace tree)\n");
		return 2;
	}
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		setenv("RDMATRACE_BIN", exe, 0);
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = 0;
			setenv("RDMATRACE_BUILD", exe, 0);
		}
	}
	char **args = calloc((size_t)argc + 2, sizeof(*args));
	if (!args)
		return 1;
	args[0] = script;
	for (int i = 1; i < argc; i++)
		args[i] = argv[i];
	execv(script, args);
	perror("rdmatrace lab: cannot run scripts/lab-run");
	free(args);
	return 1;
}

const struct rt_command rt_cmd_lab = {
	.name = "lab",
	.summary = "run a lab scenario end to end and leave a run directory",
	.usage = "usage: rdmatrace lab SCENARIO [--backend uroce|vm|hosts] [-o RUNDIR] [options]\n"
		 "       rdmatrace lab --list\n"
		 "\n"
		 "Runs a lab scenario: its server and client (build/lab/rt-lab-*) traced with\n"
		 "rdmatrace record, the RoCEv2 packets captured, everything collected into\n"
		 "RUNDIR, the scenario's expectations checked, correlation and diagnosis run\n"
		 "when available.  Exit status 0 when the scenario showed what it should.\n"
		 "\n"
		 "options:\n"
		 "  --backend B      uroce (default; userspace RoCEv2 on loopback), vm (two\n"
		 "                   qemu machines with the kernel's SoftRoCE, scripts/lab-vm) or\n"
		 "                   hosts (two machines with rxe or RDMA NICs, over ssh)\n"
		 "  -o, --output DIR run directory (default runs/SCENARIO-YYYYmmdd-HHMMSS)\n"
		 "  --size BYTES     message or transfer size\n"
		 "  --count N        messages, batches or operations\n"
		 "  --loss PCT       inject this much random packet loss\n"
		 "  --netem \"OPTS\"   vm backend: raw netem options on each VM's egress instead\n"
		 "                   of --loss (\"delay 1ms reorder 25%\", \"duplicate 5%\")\n"
		 "  --seed N         seed for data patterns and injected faults (default 1)\n"
		 "  --timeout S      give up after S seconds\n"
		 "  --no-capture     do not capture packets\n"
		 "  -- ARGS          extra arguments for both lab programs\n"
		 "\n"
		 "hosts backend (rdmatrace built at the same path on both hosts, or --remote-dir):\n"
		 "  --server-host H  ssh destination of the server ([user@]host)\n"
		 "  --client-host H  ssh destination of the client\n"
		 "  --server-addr A  the server's address on the RDMA network\n"
		 "  --iface IF       capture on IF on the server host (omit: no capture)\n"
		 "  --remote-dir D   the rdmatrace tree on the hosts (default: this one's path)\n"
		 "  --remote-env \"V=x ...\"  environment for the programs on the hosts\n"
		 "  the ssh command is $RDMATRACE_SSH (default: ssh -o BatchMode=yes)\n"
		 "\n"
		 "scenarios: minimal imm sendrecv bulk atomics ud herd rnr loss error overflow (rdmatrace lab --list)\n",
	.run = cmd_lab,
};

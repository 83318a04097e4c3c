/*
 * `rdmatrace snapshot PID`: ask a traced process's collector (in-process
 * or `rdmatrace record`) to write its flight-recorder rings now, through
 * the trigger counter in the tracer's shared memory (no signal is sent).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "rdmatrace/collector.h"
#include "number_arg.h"

static const char usage[] =
	"usage: rdmatrace snapshot [--reason TEXT] [--timeout SECONDS] PID\n"
	"\n"
	"Make a traced process write its trace now.  In flight-recorder mode\n"
	"(RDMATRACE_MODE=flight) its rings are written to its trace file; in\n"
	"stream mode what is buffered is flushed.  Prints the trace file.\n"
	"Works through the tracer's shared memory: no signal is sent.\n"
	"\n"
	"options:\n"
	"  --reason TEXT     why (recorded for the collector; default \"rdmatrace snapshot\")\n"
	"  --timeout SECONDS how long to wait for the collector (default 5)\n"
	"\n"
	"Exit status: 0 written, 1 no traced process or no answer, 2 usage error.\n";

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"reason", required_argument, NULL, 'r'},
		{"timeout", required_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *reason = "rdmatrace snapshot";
	double timeout = 5;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			reason = optarg;
			break;
		case 't': {
			char *end;
			timeout = strtod(optarg, &end);
			if (*end || timeout <= 0 || timeout > 3600) {
				fprintf(stderr, "rdmatrace snapshot: bad timeout '%s'\n", optarg);
				return 2;
			}
			break;
		}
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "rdmatrace snapshot: give exactly one PID\n%s", usage);
		return 2;
	}
	uint64_t pid;
	if (rt_parse_number_arg(argv[optind], 10, INT32_MAX, &pid) < 0 || pid == 0) {
		fprintf(stderr, "rdmatrace snapshot: bad PID '%s'\n", argv[optind]);
		return 2;
	}
	char name[256], out[512] = "", err[512] = "";
	if (rt_collector_find_segment((int)pid, name, sizeof(name)) < 0) {
		fprintf(stderr, "rdmatrace snapshot: process %ld is not traced (no tracer segment in /dev/shm names it)\n",
			(long)pid);
		return 1;
	}
	int rc = rt_collector_request_snapshot(name, reason, (unsigned)(timeout * 1000), out, sizeof(out), err,
					       sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "rdmatrace snapshot: %s\n", err[0] ? err : strerror(-rc));
		return 1;
	}
	printf("%s\n", out);
	return 0;
}

const struct rt_command rt_cmd_snapshot = {
	.name = "snapshot",
	.summary = "make a traced process write its flight-recorder rings now",
	.usage = usage,
	.run = run,
};

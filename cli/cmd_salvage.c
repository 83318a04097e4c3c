/*
 * `rdmatrace salvage`: recover the events of a traced program that died
 * (SIGKILL, a crash its handlers could not report, a collector that died
 * with it) from the tracer's shared-memory segment, which outlives them.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "rdmatrace/collector.h"
#include "number_arg.h"

static const char usage[] =
	"usage: rdmatrace salvage [-o FILE] [--keep] [--force] PID|SEGMENT\n"
	"       rdmatrace salvage --list\n"
	"\n"
	"Write what a dead traced program left in its tracer shared memory\n"
	"(/dev/shm) to a trace file: in stream mode every record not yet drained,\n"
	"in flight-recorder mode the whole rings.  The segment is removed\n"
	"afterwards unless --keep is given.\n"
	"\n"
	"options:\n"
	"  -o, --output FILE  trace file to write (default salvage-PID.rtr)\n"
	"  --keep             leave the segment in /dev/shm\n"
	"  --force            even if the program or its collector still runs\n"
	"  --list             list tracer segments: processes, collector, records pending\n"
	"\n"
	"Exit status: 0 salvaged, 1 nothing to salvage or an error, 2 usage error.\n";

static int list_one(const struct rt_segment_info *s, void *arg)
{
	(void)arg;
	printf("%-32s mode=%s pids=", s->name, s->mode ? "flight" : "stream");
	for (unsigned i = 0; i < s->npids; i++)
		printf("%s%d", i ? "," : "", s->pids[i]);
	printf("%s producers=%s collector=%d(%s) pending=%" PRIu64 " output=%s\n", s->npids ? "" : "-",
	       s->producers_alive ? "alive" : "dead", s->collector_pid, s->collector_alive ? "alive" : "gone",
	       s->pending, s->output[0] ? s->output : "-");
	return 0;
}

struct pick {
	const char *want;
	char name[256];
	int pid;
	int found;
};

static int find_name(const struct rt_segment_info *s, void *arg)
{
	struct pick *p = arg;
	const char *a = s->name + 1, *b = p->want;
	if (strncmp(b, "/dev/shm/", 9) == 0)
		b += 9;
	if (*b == '/')
		b++;
	if (strcmp(a, b) == 0) {
		snprintf(p->name, sizeof(p->name), "%s", s->name);
		p->pid = s->npids ? s->pids[0] : s->creator_pid;
		p->found = 1;
		return 1;
	}
	return 0;
}

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'}, {"keep", no_argument, NULL, 'k'},
		{"force", no_argument, NULL, 'f'},       {"list", no_argument, NULL, 'l'},
		{"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0},
	};
	const char *output = NULL;
	int keep = 0, force = 0, list = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': output = optarg; break;
		case 'k': keep = 1; break;
		case 'f': force = 1; break;
		case 'l': list = 1; break;
		case 'h': fputs(usage, stdout); return 0;
		default: fputs(usage, stderr); return 2;
		}
	}
	if (list) {
		int n = rt_collector_list_segments(list_one, NULL);
		if (n < 0) {
			fprintf(stderr, "rdmatrace salvage: cannot list /dev/shm: %s\n", strerror(-n));
			return 1;
		}
		if (n == 0)
			printf("no tracer segments in /dev/shm\n");
		return 0;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "rdmatrace salvage: give one PID or segment name\n%s", usage);
		return 2;
	}
	const char *arg = argv[optind];
	struct pick p = {.want = arg};
	uint64_t pid;
	if (rt_parse_number_arg(arg, 10, INT32_MAX, &pid) == 0 && pid > 0) {
		if (rt_collector_find_segment((int)pid, p.name, sizeof(p.name)) < 0) {
			fprintf(stderr, "rdmatrace salvage: no tracer segment in /dev/shm for process %ld "
					"(rdmatrace salvage --list shows them)\n", (long)pid);
			return 1;
		}
		p.pid = (int)pid;
	} else {
		rt_collector_list_segments(find_name, &p);
		if (!p.found) {
			fprintf(stderr, "rdmatrace salvage: no tracer segment named %s\n", arg);
			return 1;
		}
	}
	char def[64];
	if (!output) {
		snprintf(def, sizeof(def), "salvage-%d.rtr", p.pid);
		output = def;
	}
	char err[512] = "";
	struct rt_collector *col;
	int rc = rt_collector_attach(&col, p.name, output, RT_COLLECT_SALVAGE | (force ? RT_COLLECT_FORCE : 0), err,
				     sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "rdmatrace salvage: %s%s\n", err[0] ? err : strerror(-rc),
			rc == -EBUSY ? " (use --force to salvage anyway)" : "");
		return 1;
	}
	uint64_t pending = rt_collector_pending(col);
	rc = rt_collector_finish(col);
	struct rt_collector_stats st;
	rt_collector_get_stats(col, &st);
	if (rc < 0) {
		fprintf(stderr, "rdmatrace salvage: writing %s: %s\n", output, strerror(-rc));
		rt_collector_destroy(col);
		return 1;
	}
	if (!keep)
		rt_collector_unlink(col);
	rt_collector_destroy(col);
	uint64_t lost = 0;
	for (int i = 1; i < 5; i++)
		lost += st.lost[i];
	printf("salvaged %" PRIu64 " records (%" PRIu64 " pending in the rings, %" PRIu64
	       " reported lost) from %s into %s%s\n",
	       st.events, pending, lost, p.name, output, keep ? "" : "; segment removed");
	return 0;
}

const struct rt_command rt_cmd_salvage = {
	.name = "salvage",
	.summary = "recover a dead program's events from its tracer shared memory",
	.usage = usage,
	.run = run,
};

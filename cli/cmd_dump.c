/*
 * `rdmatrace dump FILE... [--json]`: every record of one or more trace
 * files, merged in time order, as text or JSON Lines.  Damage found while
 * reading is reported on stderr (file and byte offset) after the records;
 * every intact record is still printed.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "command.h"
#include "json_str.h"
#include "rdmatrace/trace_print.h"
#include "rdmatrace/trace_reader.h"
#include "rdmatrace/tracer.h"
#include "number_arg.h"

static const char usage[] =
	"usage: rdmatrace dump [OPTIONS] FILE...\n"
	"\n"
	"Print the records of trace files (*.rtr), merged in time order.\n"
	"\n"
	"options:\n"
	"  --json          one JSON object per line (JSON Lines)\n"
	"  --kind LIST     only these kinds, comma-separated (wr_post,completion,...)\n"
	"  --qpn N         only records about QP number N\n"
	"  --no-clock      leave out clock_sync records\n"
	"  --info          print what each file's header says, not the records\n"
	"  -h, --help      this text\n"
	"\n"
	"Exit status: 0 all good, 1 damage was found (intact records are still\n"
	"printed; the damage is listed on stderr with file and byte offset),\n"
	"2 usage error or a file that cannot be read as a trace.\n"
	"\n"
	"examples:\n"
	"  rdmatrace dump trace.rtr\n"
	"  rdmatrace dump --json --kind wr_post,completion server.rtr client.rtr\n";

static void fmt_time(uint64_t ns, char *buf, size_t len)
{
	time_t s = (time_t)(ns / 1000000000u);
	struct tm tm;
	gmtime_r(&s, &tm);
	size_t n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%09" PRIu64 "Z", ns % 1000000000u);
}

static int kind_selected(const char *list, unsigned kind)
{
	if (!list)
		return 1;
	const char *name = rt_event_kind_name(kind);
	size_t n = strlen(name);
	for (const char *p = list; *p;) {
		size_t l = strcspn(p, ",");
		if (l == n && strncmp(p, name, n) == 0)
			return 1;
		p += l;
		if (*p == ',')
			p++;
	}
	return 0;
}

static int check_kinds(const char *list)
{
	for (const char *p = list; *p;) {
		size_t l = strcspn(p, ",");
		int found = 0;
		for (unsigned k = 1; k < RT_EV_KIND_COUNT; k++)
			if (strlen(rt_event_kind_name(k)) == l && strncmp(p, rt_event_kind_name(k), l) == 0)
				found = 1;
		if (!found) {
			fprintf(stderr, "rdmatrace dump: unknown kind '%.*s'\n", (int)l, p);
			return -1;
		}
		p += l;
		if (*p == ',')
			p++;
	}
	return 0;
}

static void print_info(const struct rt_trace_source *s)
{
	char a[64], b[64];
	fmt_time(s->first_ns, a, sizeof(a));
	fmt_time(s->last_ns, b, sizeof(b));
	printf("%s:\n  format %u.%u, host %s, boot %s\n  program %s, pid %d, mode %s, clock %s\n"
	       "  %" PRIu64 " bytes, %" PRIu64 " records, %s .. %s\n",
	       s->path, s->version_major, s->version_minor, s->host, s->boot_id[0] ? s->boot_id : "?",
	       s->program[0] ? s->program : "?", s->pid, s->mode == RT_MODE_FLIGHT_RECORDER ? "flight" : "stream",
	       s->clock_source == 2 ? "tsc" : "monotonic", s->size, s->records, a, b);
}

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},   {"kind", required_argument, NULL, 'k'},
		{"qpn", required_argument, NULL, 'q'}, {"no-clock", no_argument, NULL, 'c'},
		{"info", no_argument, NULL, 'i'},   {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int json = 0, no_clock = 0, info = 0, have_qpn = 0;
	const char *kinds = NULL;
	unsigned long qpn = 0;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'k':
			kinds = optarg;
			if (check_kinds(kinds) < 0)
				return 2;
			break;
		case 'q': {
			uint64_t v;
			if (rt_parse_number_arg(optarg, 0, 0xffffff, &v) < 0) {
				fprintf(stderr, "rdmatrace dump: bad QP number '%s'\n", optarg);
				return 2;
			}
			qpn = (unsigned long)v;
			have_qpn = 1;
			break;
		}
		case 'c':
			no_clock = 1;
			break;
		case 'i':
			info = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "rdmatrace dump: no trace file given\n%s", usage);
		return 2;
	}
	struct rt_trace_reader *r = rt_trace_reader_new();
	if (!r) {
		fprintf(stderr, "rdmatrace dump: out of memory\n");
		return 2;
	}
	int status = 0;
	for (int i = optind; i < argc; i++) {
		char err[512];
		if (rt_trace_reader_add_file(r, argv[i], err, sizeof(err)) < 0) {
			fprintf(stderr, "rdmatrace dump: %s\n", err);
			status = 2;
		}
	}
	if (status) {
		rt_trace_reader_free(r);
		return status;
	}
	if (info) {
		rt_trace_reader_count(r); /* fills the time ranges */
		for (size_t i = 0; i < rt_trace_reader_source_count(r); i++)
			print_info(rt_trace_reader_source(r, i));
	} else {
		struct rt_trace_record rec;
		char fields[1024], ts[64];
		int many = rt_trace_reader_source_count(r) > 1;
		while (rt_trace_reader_next(r, &rec) > 0) {
			const struct rt_event *ev = &rec.ev;
			if (!kind_selected(kinds, ev->kind) || (have_qpn && ev->qpn != qpn) ||
			    (no_clock && ev->kind == RT_EV_CLOCK_SYNC))
				continue;
			rt_event_format_fields(ev, json, fields, sizeof(fields));
			if (json) {
				printf("{\"ns\":%" PRIu64 ",\"mono_ns\":%" PRIu64 ",\"file\":", rec.ns, rec.mono_ns);
				rt_cli_json_str(stdout, rec.src->path);
				printf(",\"offset\":%" PRIu64 ",\"host\":", rec.offset);
				rt_cli_json_str(stdout, rec.src->host);
				printf(",\"pid\":%d,\"program\":", rec.pid);
				rt_cli_json_str(stdout, rec.program);
				printf(",\"tid\":%u,\"seq\":%u,\"kind\":\"%s\",\"kind_id\":%u,\"qpn\":%u,\"flags\":%u%s%s}\n",
				       ev->tid, ev->seq, rt_event_kind_name(ev->kind), ev->kind, ev->qpn, ev->flags,
				       fields[0] ? "," : "", fields);
			} else {
				fmt_time(rec.ns, ts, sizeof(ts));
				printf("%s %s%s%s[%d]/%u #%u %s qpn=%u %s\n", ts, many ? rec.src->host : "",
				       many ? ":" : "", rec.program[0] ? rec.program : "?", rec.pid, ev->tid, ev->seq,
				       rt_event_kind_name(ev->kind), ev->qpn, fields);
			}
		}
	}
	fflush(stdout);
	for (size_t i = 0; i < rt_trace_reader_damage_count(r); i++) {
		const struct rt_trace_damage *d = rt_trace_reader_damage(r, i);
		fprintf(stderr, "rdmatrace dump: %s: byte offset %" PRIu64 ": %s\n", d->path, d->offset, d->message);
		status = 1;
	}
	rt_trace_reader_free(r);
	return status;
}

const struct rt_command rt_cmd_dump = {
	.name = "dump",
	.summary = "print trace files, merged in time order (text or JSON)",
	.usage = usage,
	.run = run,
};

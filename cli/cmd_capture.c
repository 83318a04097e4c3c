/*
 * `rdmatrace capture -i IFACE`: live capture of RoCEv2 traffic to a pcapng
 * file (or decoded lines on stdout), built on the library's live capture
 * (captures/live_capture.c).  SIGINT and SIGTERM end it cleanly: the file
 * is complete, with the kernel drop count in its statistics block.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "rdmatrace/live_capture.h"
#include "rdmatrace/roce_decode.h"
#include "rdmatrace/roce_format.h"

#define MAX_PORTS 16

static struct rt_live *volatile active_capture;

static void on_signal(int sig)
{
	(void)sig;
	struct rt_live *lc = active_capture;
	if (lc)
		rt_live_stop(lc);
}

struct print_ctx {
	struct rt_decode_opts dopts;
	uint64_t base_ns;
	int have_base;
	struct rt_fmt_cache addr_cache;
};

/* Without -w: decode and print each packet as it arrives. */
static void print_packet(void *arg, const struct rt_caprec *rec)
{
	struct print_ctx *pc = arg;
	struct rt_pkt pkt;
	if (!pc->have_base) {
		pc->base_ns = rec->ts_ns;
		pc->have_base = 1;
	}
	if (rt_decode(&pc->dopts, rec->linktype, rec->data, rec->caplen, rec->wirelen, &pkt) <= 0)
		return;
	char line[RT_FMT_LINE_MAX];
	struct rt_fmt_ctx ctx = { rec->frame, rec->ts_ns, pc->base_ns, 0, &pc->addr_cache };
	size_t n = rt_pkt_format_line(&pkt, &ctx, line, sizeof(line));
	fwrite(line, 1, n, stdout);
	fflush(stdout);
}

static int parse_num(const char *s, double max, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || v < 0 || v > max)
		return -1;
	*out = v;
	return 0;
}

static int run_capture(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "interface", required_argument, NULL, 'i' },
		{ "write", required_argument, NULL, 'w' },
		{ "count", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "port", required_argument, NULL, 'p' },
		{ "filter", required_argument, NULL, 'f' },
		{ "snaplen", required_argument, NULL, 's' },
		{ "buffer", required_argument, NULL, 'B' },
		{ "comment", required_argument, NULL, 'C' },
		{ "promisc", no_argument, NULL, 'P' },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	struct rt_live_opts o;
	memset(&o, 0, sizeof(o));
	uint16_t ports[MAX_PORTS];
	unsigned nports = 0;
	int quiet = 0;
	double v;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "i:w:c:d:p:f:s:B:qP", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': o.iface = optarg; break;
		case 'w': o.write_path = optarg; break;
		case 'c':
			if (parse_num(optarg, 1e15, &v) < 0 || v != (double)(uint64_t)v) {
				fprintf(stderr, "rdmatrace capture: bad -c '%s'\n", optarg);
				return 2;
			}
			o.max_packets = (uint64_t)v;
			break;
		case 'd':
			if (parse_num(optarg, 1e7, &v) < 0) {
				fprintf(stderr, "rdmatrace capture: bad --duration '%s' (seconds)\n", optarg);
				return 2;
			}
			o.duration_s = v;
			break;
		case 'p':
			if (parse_num(optarg, 65535, &v) < 0 || v < 1 || v != (double)(int)v || nports >= MAX_PORTS) {
				fprintf(stderr, "rdmatrace capture: bad --port '%s'\n", optarg);
				return 2;
			}
			ports[nports++] = (uint16_t)v;
			break;
		case 'f': o.filter = optarg; break;
		case 's':
			if (parse_num(optarg, 262144, &v) < 0 || v < 64) {
				fprintf(stderr, "rdmatrace capture: bad --snaplen '%s' (64..262144)\n", optarg);
				return 2;
			}
			o.snaplen = (int)v;
			break;
		case 'B':
			if (parse_num(optarg, 1024, &v) < 0 || v < 1 || v != (double)(int)v) {
				fprintf(stderr, "rdmatrace capture: bad --buffer '%s' (1..1024 MiB)\n", optarg);
				return 2;
			}
			o.buffer_bytes = (int)v << 20;
			break;
		case 'C': o.comment = optarg; break;
		case 'P': o.promisc = true; break;
		case 'q': quiet = 1; break;
		default:
			fprintf(stderr, "rdmatrace capture: unknown option '%s' (see rdmatrace capture --help)\n",
				argv[optind - 1]);
			return 2;
		}
	}
	if (!o.iface || optind != argc) {
		fprintf(stderr, "rdmatrace capture: %s (see rdmatrace capture --help)\n",
			o.iface ? "unexpected argument" : "-i IFACE is required");
		return 2;
	}
	o.ports = nports ? ports : NULL;
	o.nports = nports;
	struct print_ctx pc;
	memset(&pc, 0, sizeof(pc));
	pc.dopts.ports = o.ports;
	pc.dopts.nports = o.nports;
	if (!o.write_path && !quiet) {
		o.on_packet = print_packet;
		o.ctx = &pc;
	}
	char err[512];
	struct rt_live *lc;
	int rc = rt_live_open(&o, &lc, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "rdmatrace capture: %s%s\n", err,
			rc == -EPERM ? " (capturing needs root or CAP_NET_RAW)" : "");
		return 1;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	active_capture = lc;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (!quiet)
		fprintf(stderr, "rdmatrace capture: listening on %s%s%s\n", o.iface,
			o.write_path ? ", writing " : "", o.write_path ? o.write_path : "");
	struct rt_live_result res;
	rc = rt_live_run(lc, &res, err, sizeof(err));
	active_capture = NULL;
	rt_live_close(lc);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (res.stats_valid)
		fprintf(stderr, "rdmatrace capture: %llu packets captured, %llu received by filter, "
				"%llu dropped by kernel, %llu dropped by interface (%s timestamps)\n",
			(unsigned long long)res.packets, (unsigned long long)res.ps_recv,
			(unsigned long long)res.ps_drop, (unsigned long long)res.ps_ifdrop,
			res.nanosecond ? "nanosecond" : "microsecond");
	else
		fprintf(stderr, "rdmatrace capture: %llu packets captured (no kernel statistics)\n",
			(unsigned long long)res.packets);
	if (rc < 0) {
		fprintf(stderr, "rdmatrace capture: %s\n", err);
		return 1;
	}
	return 0;
}

const struct rt_command rt_cmd_capture = {
	.name = "capture",
	.summary = "capture RoCEv2 packets (UDP 4791) live to pcapng",
	.usage =
		"usage: rdmatrace capture -i IFACE [-w FILE] [-c COUNT] [--duration S] [--port P]\n"
		"                         [--filter BPF] [--snaplen N] [--buffer MIB] [--comment TEXT]\n"
		"                         [--promisc] [-q]\n"
		"\n"
		"Captures RoCEv2 packets (UDP destination port 4791, with or without a VLAN tag) on\n"
		"IFACE with libpcap, with nanosecond timestamps where the platform has them.  With\n"
		"-w the packets go to a pcapng file (through libpcap's packed ring; on a stop the\n"
		"capture reads on for 120 ms, what the ring still held); without it each packet is\n"
		"decoded and printed as `rdmatrace packets` would (immediate mode).  It stops after\n"
		"COUNT packets, after S seconds, or on SIGINT/SIGTERM, and always leaves a complete file whose\n"
		"interface statistics block holds the kernel drop count (isb_ifdrop), which is also\n"
		"printed on stderr.  Capturing needs root or CAP_NET_RAW.\n"
		"\n"
		"options:\n"
		"  -i, --interface IFACE  interface to capture on (lo, eth0, any ...)\n"
		"  -w, --write FILE       write pcapng to FILE (- for stdout)\n"
		"  -c, --count N          stop after N packets\n"
		"  -d, --duration S       stop after S seconds (fractions allowed)\n"
		"  -p, --port P           RoCE UDP port (repeatable; default 4791)\n"
		"  -f, --filter BPF       extra BPF expression ANDed with the port filter\n"
		"  -s, --snaplen N        bytes kept per packet (default 262144)\n"
		"  -B, --buffer MIB       kernel capture buffer in MiB (default 64); a burst larger\n"
		"                         than it is dropped by the kernel (counted in isb_ifdrop)\n"
		"      --comment TEXT     section comment of the pcapng file\n"
		"      --promisc          put the interface in promiscuous mode\n"
		"  -q, --quiet            no per-packet output and no start message\n"
		"\n"
		"examples:\n"
		"  rdmatrace capture -i eth0 -w run.pcapng --duration 30\n"
		"  rdmatrace capture -i lo -c 10 --filter 'host 127.0.0.2'\n",
	.run = run_capture,
};

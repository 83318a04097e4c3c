/*
 * `rdmatrace packets FILE`: every RoCEv2 packet of a pcap/pcapng file, one
 * line (or one JSON object) each, with filters, or a per-QP summary.  The
 * decoding, formatting and statistics live in the library (captures/);
 * this file is option parsing and the read loop.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "command.h"
#include "rdmatrace/capfile.h"
#include "rdmatrace/capture_copies.h"
#include "rdmatrace/qp_stats.h"
#include "rdmatrace/roce_decode.h"
#include "rdmatrace/roce_format.h"
#include "number_arg.h"

#define MAX_PORTS 16

enum {
	CLS_SEND = 1u << 0,
	CLS_WRITE = 1u << 1,
	CLS_READ = 1u << 2,
	CLS_ACK = 1u << 3,
	CLS_ATOMIC = 1u << 4,
	CLS_CM = 1u << 5,
	CLS_CNP = 1u << 6,
	CLS_FLUSH = 1u << 7,
	CLS_UD = 1u << 8,
	CLS_UC = 1u << 9,
	CLS_RC = 1u << 10,
};

static const struct {
	const char *name;
	unsigned bit;
} class_names[] = {
	{ "send", CLS_SEND }, { "write", CLS_WRITE }, { "read", CLS_READ }, { "ack", CLS_ACK },
	{ "atomic", CLS_ATOMIC }, { "cm", CLS_CM }, { "cnp", CLS_CNP }, { "flush", CLS_FLUSH },
	{ "ud", CLS_UD }, { "uc", CLS_UC }, { "rc", CLS_RC },
};

struct packets_opts {
	const char *path;
	bool json, stats, abs_time, naks, bad_icrc;
	bool have_qp;
	uint32_t qp;
	unsigned classes;
	int opcode;               /* -1: any */
	uint16_t ports[MAX_PORTS];
	unsigned nports;
	enum rt_capfile_backend backend;
	bool no_icrc;
	uint64_t limit;
};

static unsigned pkt_classes(const struct rt_pkt *p)
{
	unsigned c = 0;
	if (p->flags & RT_PKT_CM)
		c |= CLS_CM;
	switch (rt_opcode_transport(p->bth.opcode)) {
	case RT_TRANSPORT_UD: c |= CLS_UD; break;
	case RT_TRANSPORT_UC: c |= CLS_UC; break;
	case RT_TRANSPORT_RC: c |= CLS_RC; break;
	default: break;
	}
	if (!p->op)
		return c;
	switch (p->op->op_class) {
	case RT_CLASS_SEND: c |= CLS_SEND; break;
	case RT_CLASS_WRITE: c |= CLS_WRITE; break;
	case RT_CLASS_READ_REQ:
	case RT_CLASS_READ_RESP: c |= CLS_READ; break;
	case RT_CLASS_ACK: c |= CLS_ACK; break;
	case RT_CLASS_ATOMIC:
	case RT_CLASS_ATOMIC_WRITE: c |= CLS_ATOMIC; break;
	case RT_CLASS_ATOMIC_ACK: c |= CLS_ATOMIC | CLS_ACK; break;
	case RT_CLASS_CNP: c |= CLS_CNP; break;
	case RT_CLASS_FLUSH: c |= CLS_FLUSH; break;
	default: break;
	}
	return c;
}

static bool wanted(const struct packets_opts *o, const struct rt_pkt *p)
{
	if (o->have_qp && p->bth.dqpn != o->qp)
		return false;
	if (o->classes && !(pkt_classes(p) & o->classes))
		return false;
	if (o->opcode >= 0 && p->bth.opcode != o->opcode)
		return false;
	if (o->naks && !((p->hdrs & RT_HDR_AETH) &&
			 (p->aeth.type == RT_AETH_NAK || p->aeth.type == RT_AETH_RNR_NAK)))
		return false;
	if (o->bad_icrc && p->icrc_status != RT_ICRC_BAD)
		return false;
	return true;
}

/* "send,write", or an opcode by number (0x11) or kernel name (RC_ACKNOWLEDGE). */
static int parse_opcode_arg(struct packets_opts *o, const char *arg)
{
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", arg);
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		bool found = false;
		for (size_t i = 0; i < sizeof(class_names) / sizeof(class_names[0]); i++)
			if (strcasecmp(tok, class_names[i].name) == 0) {
				o->classes |= class_names[i].bit;
				found = true;
			}
		if (!found) {
			uint64_t v;
			if (rt_parse_number_arg(tok, 0, 255, &v) == 0) {
				o->opcode = (int)v;
				found = true;
			}
			for (unsigned op = 0; !found && op < 256; op++) {
				const struct rt_opcode_info *info = rt_opcode_info((uint8_t)op);
				if (info && strcasecmp(info->symbol, tok) == 0) {
					o->opcode = (int)op;
					found = true;
				}
			}
		}
		if (!found) {
			fprintf(stderr, "rdmatrace packets: unknown opcode class '%s' "
					"(send, write, read, ack, atomic, cm, cnp, flush, rc, uc, ud, or an opcode)\n", tok);
			return -1;
		}
	}
	return 0;
}

static int parse_ports(struct packets_opts *o, const char *arg)
{
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", arg);
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint64_t v;
		if (rt_parse_number_arg(tok, 0, 65535, &v) < 0 || v == 0 || o->nports >= MAX_PORTS) {
			fprintf(stderr, "rdmatrace packets: bad --port '%s'\n", tok);
			return -1;
		}
		o->ports[o->nports++] = (uint16_t)v;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct packets_opts *o)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "stats", no_argument, NULL, 's' },
		{ "qp", required_argument, NULL, 'q' },
		{ "opcode", required_argument, NULL, 'o' },
		{ "naks", no_argument, NULL, 'n' },
		{ "bad-icrc", no_argument, NULL, 'b' },
		{ "port", required_argument, NULL, 'p' },
		{ "abs-time", no_argument, NULL, 'a' },
		{ "libpcap", no_argument, NULL, 'L' },
		{ "mmap", no_argument, NULL, 'M' },
		{ "no-icrc", no_argument, NULL, 'I' },
		{ "count", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	memset(o, 0, sizeof(*o));
	o->opcode = -1;
	optind = 1;
	opterr = 0;
	int c;
	uint64_t v;
	while ((c = getopt_long(argc, argv, "jsq:o:nbp:c:", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': o->json = true; break;
		case 's': o->stats = true; break;
		case 'q':
			if (rt_parse_number_arg(optarg, 0, 0xFFFFFF, &v) < 0) {
				fprintf(stderr, "rdmatrace packets: bad --qp '%s' (a 24-bit number, 17 or 0x11)\n", optarg);
				return -1;
			}
			o->have_qp = true;
			o->qp = (uint32_t)v;
			break;
		case 'o':
			if (parse_opcode_arg(o, optarg) < 0)
				return -1;
			break;
		case 'n': o->naks = true; break;
		case 'b': o->bad_icrc = true; break;
		case 'p':
			if (parse_ports(o, optarg) < 0)
				return -1;
			break;
		case 'a': o->abs_time = true; break;
		case 'L': o->backend = RT_CAPFILE_LIBPCAP; break;
		case 'M': o->backend = RT_CAPFILE_MMAP; break;
		case 'I': o->no_icrc = true; break;
		case 'c':
			if (rt_parse_number_arg(optarg, 0, UINT64_MAX, &o->limit) < 0) {
				fprintf(stderr, "rdmatrace packets: bad --count '%s'\n", optarg);
				return -1;
			}
			break;
		default:
			fprintf(stderr, "rdmatrace packets: unknown option '%s' (see rdmatrace packets --help)\n",
				argv[optind - 1]);
			return -1;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "rdmatrace packets: expected one capture file (see rdmatrace packets --help)\n");
		return -1;
	}
	o->path = argv[optind];
	return 0;
}

struct counts {
	uint64_t frames, roce, shown, skipped[8], bad_icrc, unverified, truncated;
	uint64_t copies;          /* --stats: frames left out as copies from another interface */
};

static void seq_range(const struct rt_psn_seq *q, char *buf, size_t len)
{
	if (q->packets)
		snprintf(buf, len, "%u..%u", q->first_psn, rt_psn_seq_last(q));
	else
		snprintf(buf, len, "-");
}

static void seq_json(const char *name, const struct rt_psn_seq *q)
{
	printf(",\"%s\":{\"packets\":%llu", name, (unsigned long long)q->packets);
	if (q->packets)
		printf(",\"first_psn\":%u,\"last_psn\":%u,\"latest_psn\":%u", q->first_psn, rt_psn_seq_last(q),
		       q->last_psn);
	printf(",\"repeats\":%llu,\"go_backs\":%llu}", (unsigned long long)q->repeats,
	       (unsigned long long)q->go_backs);
}

static void print_stats(const struct rt_qp_stats *s, const struct counts *n, bool json)
{
	char a[64], b[64], qp[32], req[40], rsp[40];
	if (!json)
		printf("%-16s %-16s %-17s %8s %10s %10s %-17s %7s %8s %-17s %7s %6s %5s %5s %5s %4s\n", "src", "dst",
		       "QP", "packets", "bytes", "payload", "request PSNs", "repeats", "go-backs", "response PSNs",
		       "dup-rsp", "ACKs", "NAKs", "RNR", "CNPs", "bad");
	for (size_t i = 0; i < rt_qp_stats_count(s); i++) {
		const struct rt_qp_stat *q = rt_qp_stats_get(s, i);
		rt_format_ip(q->ip_version, q->src, a, sizeof(a));
		rt_format_ip(q->ip_version, q->dst, b, sizeof(b));
		if (json) {
			printf("{\"src\":\"%s\",\"dst\":\"%s\",\"qp\":%u", a, b, q->qpn);
			if (q->src_qpn != RT_QP_STAT_NO_SRC_QP)
				printf(",\"src_qp\":%u", q->src_qpn);
			printf(",\"packets\":%llu,\"bytes\":%llu,\"payload_bytes\":%llu,\"first_ns\":%llu,"
			       "\"last_ns\":%llu,\"psn_repeats\":%llu,\"go_backs\":%llu",
			       (unsigned long long)q->packets, (unsigned long long)q->bytes,
			       (unsigned long long)q->payload_bytes, (unsigned long long)q->first_ns,
			       (unsigned long long)q->last_ns, (unsigned long long)q->req.repeats,
			       (unsigned long long)q->req.go_backs);
			seq_json("requests", &q->req);
			seq_json("responses", &q->rsp);
			printf(",\"acks\":%llu,\"naks\":%llu,\"rnr_naks\":%llu,\"cnps\":%llu,\"cm\":%llu,\"bad_icrc\":%llu}\n",
			       (unsigned long long)q->acks, (unsigned long long)q->naks,
			       (unsigned long long)q->rnr_naks, (unsigned long long)q->cnps,
			       (unsigned long long)q->cm, (unsigned long long)q->bad_icrc);
			continue;
		}
		if (q->src_qpn != RT_QP_STAT_NO_SRC_QP)
			snprintf(qp, sizeof(qp), "0x%06x<0x%06x", q->qpn, q->src_qpn);
		else
			snprintf(qp, sizeof(qp), "0x%06x", q->qpn);
		seq_range(&q->req, req, sizeof(req));
		seq_range(&q->rsp, rsp, sizeof(rsp));
		printf("%-16s %-16s %-17s %8llu %10llu %10llu %-17s %7llu %8llu %-17s %7llu %6llu %5llu %5llu %5llu %4llu\n",
		       a, b, qp, (unsigned long long)q->packets, (unsigned long long)q->bytes,
		       (unsigned long long)q->payload_bytes, req, (unsigned long long)q->req.repeats,
		       (unsigned long long)q->req.go_backs, rsp, (unsigned long long)q->rsp.repeats,
		       (unsigned long long)q->acks, (unsigned long long)q->naks, (unsigned long long)q->rnr_naks,
		       (unsigned long long)q->cnps, (unsigned long long)q->bad_icrc);
	}
	if (json && n->copies)
		printf("{\"copies_left_out\":%llu}\n", (unsigned long long)n->copies);
	if (json)
		return;
	printf("%llu frames, %llu RoCE packets, %llu other frames skipped", (unsigned long long)n->frames,
	       (unsigned long long)n->roce, (unsigned long long)(n->frames - n->roce));
	if (n->copies)
		printf(", %llu copies of a packet captured on another interface left out", (unsigned long long)n->copies);
	printf("\n");
}

static void print_summary(const struct counts *n)
{
	fprintf(stderr, "# %llu frames: %llu RoCE packets (%llu shown", (unsigned long long)n->frames,
		(unsigned long long)n->roce, (unsigned long long)n->shown);
	if (n->bad_icrc)
		fprintf(stderr, ", %llu bad ICRC", (unsigned long long)n->bad_icrc);
	if (n->truncated)
		fprintf(stderr, ", %llu truncated", (unsigned long long)n->truncated);
	fprintf(stderr, "), %llu other frames skipped", (unsigned long long)(n->frames - n->roce));
	const char *sep = " (";
	for (unsigned i = 1; i < 8; i++)
		if (n->skipped[i]) {
			fprintf(stderr, "%s%s %llu", sep, rt_skip_name(i), (unsigned long long)n->skipped[i]);
			sep = ", ";
		}
	fprintf(stderr, "%s\n", sep[0] == ',' ? ")" : "");
}

/* A capture that says it dropped packets: the ones shown are not all that crossed the wire. */
static void print_capture_drops(const struct rt_capfile *f)
{
	struct rt_capfile_stats st;
	rt_capfile_stats(f, &st);
	if (st.ifdrop + st.osdrop)
		fprintf(stderr, "# the capture dropped %llu packets (its statistics: isb_ifdrop %llu, isb_osdrop %llu)\n",
			(unsigned long long)(st.ifdrop + st.osdrop), (unsigned long long)st.ifdrop,
			(unsigned long long)st.osdrop);
}

/* The lines formatted and not yet written. */
struct pending_out {
	char buf[1 << 16]; /* small enough to stay in the L2 cache */
	size_t used;
};

static void write_pending(struct pending_out *o)
{
	fwrite(o->buf, 1, o->used, stdout);
	o->used = 0;
}

/* A pipe's reader is about to wait for more of it: what was read so far is
 * shown now (a capture still being written is followed as it comes). */
static void show_pending(void *arg)
{
	write_pending(arg);
	fflush(stdout);
}

static int run_packets(int argc, char **argv)
{
	struct packets_opts o;
	if (parse_args(argc, argv, &o) < 0)
		return 2;
	char err[512];
	struct rt_capfile *f;
	if (rt_capfile_open(o.path, o.backend, &f, err, sizeof(err)) < 0) {
		fprintf(stderr, "rdmatrace packets: %s\n", err);
		return 1;
	}
	struct rt_qp_stats *stats = NULL;
	struct rt_capcopies *copies = NULL; /* --stats: a packet counts once (capture_copies.h) */
	if (o.stats && rt_qp_stats_new(&stats) < 0) {
		fprintf(stderr, "rdmatrace packets: out of memory\n");
		rt_capfile_close(f);
		return 1;
	}
	struct rt_decode_opts dopts = { o.nports ? o.ports : NULL, o.nports, o.no_icrc, false };
	static struct pending_out out;
	rt_capfile_on_wait(f, show_pending, &out);
	struct counts n;
	memset(&n, 0, sizeof(n));
	static struct rt_fmt_cache addr_cache;
	struct rt_fmt_ctx ctx = { 0, 0, 0, o.abs_time, &addr_cache };
	bool have_base = false;
	struct rt_caprec rec;
	struct rt_pkt pkt;
	int rc;
	while ((rc = rt_capfile_next(f, &rec)) > 0) {
		n.frames++;
		if (!have_base) {
			ctx.base_ns = rec.ts_ns;
			have_base = true;
		}
		if (rt_decode(&dopts, rec.linktype, rec.data, rec.caplen, rec.wirelen, &pkt) <= 0) {
			n.skipped[pkt.skip < 8 ? pkt.skip : 0]++;
			continue;
		}
		n.roce++;
		if (pkt.icrc_status == RT_ICRC_BAD)
			n.bad_icrc++;
		if (pkt.flags & RT_PKT_TRUNCATED)
			n.truncated++;
		if (!wanted(&o, &pkt))
			continue;
		if (o.limit && n.shown >= o.limit)
			continue;
		n.shown++;
		if (stats) {
			uint64_t orig;
			int copy = rt_capcopies_frame(&copies, rt_capfile_interfaces(f), &rec, &pkt, &orig);
			if (copy == 1) {
				n.copies++;
				continue;
			}
			if (copy < 0 || rt_qp_stats_add(stats, &pkt, rec.ts_ns) < 0) {
				fprintf(stderr, "rdmatrace packets: out of memory\n");
				break;
			}
			continue;
		}
		if (sizeof(out.buf) - out.used < RT_FMT_JSON_MAX)
			write_pending(&out);
		ctx.frame = rec.frame;
		ctx.ts_ns = rec.ts_ns;
		char *at = out.buf + out.used;
		size_t room = sizeof(out.buf) - out.used;
		out.used += o.json ? rt_pkt_format_json(&pkt, &ctx, at, room) : rt_pkt_format_line(&pkt, &ctx, at, room);
	}
	write_pending(&out);
	if (stats)
		print_stats(stats, &n, o.json);
	int status = 0;
	fflush(stdout); /* (the lines before what stderr says next, when both go to one file) */
	if (rc < 0) {
		fprintf(stderr, "rdmatrace packets: %s: %s\n", o.path, rt_capfile_error(f));
		status = 1;
	}
	if (!o.json && !o.stats)
		print_summary(&n);
	print_capture_drops(f);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "rdmatrace packets: writing output: %s\n", strerror(errno));
		status = 1;
	}
	rt_qp_stats_free(stats);
	rt_capcopies_free(copies);
	rt_capfile_close(f);
	return status;
}

const struct rt_command rt_cmd_packets = {
	.name = "packets",
	.summary = "decode the RoCEv2 packets of a pcap/pcapng file",
	.usage =
		"usage: rdmatrace packets FILE [--json] [--stats] [filters]\n"
		"\n"
		"Decodes every RoCEv2 packet (UDP 4791) of FILE (pcap or pcapng, either also\n"
		"compressed: *.gz, *.zst, *.lz4; - or a pipe for a stream, compressed or not; any\n"
		"link type libpcap knows: Ethernet with VLAN tags, Linux cooked, raw IP) and\n"
		"prints one line each: frame, time, source > destination, opcode, destination QP,\n"
		"PSN, flags (A = AckReq, SE, FECN, BECN, CE), the AETH in words (ACK, RNR NAK\n"
		"655.36 ms, NAK PSN sequence error), RETH, AtomicETH, immediate, DETH, MSN,\n"
		"payload length, CM messages with their key fields, and the ICRC status (good,\n"
		"BAD, unverified with the reason).  Other frames are skipped and counted on\n"
		"stderr.\n"
		"\n"
		"options:\n"
		"  --json            one JSON object per packet (JSON Lines), every decoded field\n"
		"  --stats           per-flow summary instead of packets (source, destination, QP):\n"
		"                    packets, bytes, the PSN ranges of its requests and of its\n"
		"                    responses, request PSNs seen again (retransmissions) and\n"
		"                    go-backs, duplicate responses, ACKs, NAKs, RNR NAKs, CNPs\n"
		"  --qp N            only packets to destination QP N (17 or 0x11)\n"
		"  --opcode CLASS    only these classes, comma-separated: send, write, read, ack,\n"
		"                    atomic, cm, cnp, flush, rc, uc, ud; or one opcode by number\n"
		"                    (0x11) or name (RC_ACKNOWLEDGE)\n"
		"  --naks            only NAKs and RNR NAKs\n"
		"  --bad-icrc        only packets whose ICRC is wrong\n"
		"  --port P[,P...]   UDP destination ports carrying RoCEv2 (default 4791)\n"
		"  -c, --count N     stop printing after N packets\n"
		"  --abs-time        UTC date and time instead of seconds since the first frame\n"
		"  --no-icrc         do not verify ICRCs\n"
		"  --libpcap         read through libpcap (default: our own reader,\n"
		"                    libpcap for formats it does not know)\n"
		"\n"
		"Exit status: 0, 1 when the file cannot be read or is damaged (every packet before\n"
		"the damage is still printed), 2 for a usage error.\n"
		"\n"
		"examples:\n"
		"  rdmatrace packets run/capture.pcapng --naks\n"
		"  rdmatrace packets wire.pcap --qp 0x11 --opcode write,read --json\n"
		"  rdmatrace packets wire.pcap --stats\n",
	.run = run_packets,
};

/*
 * `rdmatrace diagnose RUNDIR|FILE... [--json]`: the run's findings ranked by the
 * time they cost, each one sentence with its evidence, a summary by kind
 * and QP when some repeat, then per-QP statistics and per-opcode WR
 * latency percentiles.  Correlates first when the timeline is missing or
 * stale.  Exit: 0 no problems, 1 problems, 2 error.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "finding_groups.h"
#include "rdmatrace/timeline.h"
#include "rdmatrace/tl_export.h"
#include "rdmatrace/trace_print.h"
#include "number_arg.h"

static int u64cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Latencies of one stage of one WR opcode's WRs, sorted once collected. */
struct oplat {
	uint64_t *v;
	size_t n, cap;
};

/* Per WR opcode: from the post to the first packet on the wire, to the ACK
 * that covered the WR, and to its completion. */
struct opstages {
	struct oplat wire, ack, compl;
};

static void lat_add(struct oplat *o, uint64_t x)
{
	if (o->n == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 64;
		uint64_t *v = realloc(o->v, cap * sizeof(*v));
		if (!v)
			return;
		o->v = v;
		o->cap = cap;
	}
	o->v[o->n++] = x;
}

static uint64_t pct(const struct oplat *o, unsigned p)
{
	size_t i = (o->n * p + 99) / 100;
	return o->v[i ? i - 1 : 0];
}

/* The stages of every send WR that has them, by opcode (lat[0..16)). */
static void collect_latency(const struct rt_timeline *tl, struct opstages *lat)
{
	for (ssize_t i = rt_tl_next_match(tl, -1, RT_TLM_WR, 1); i >= 0; i = rt_tl_next_match(tl, i, RT_TLM_WR, 1)) {
		const struct rt_tl_row *r = rt_tl_row(tl, (size_t)i);
		if ((r->flags & RT_TLF_RECV) || r->sub >= 16)
			continue;
		const struct rt_tl_link *l;
		size_t nl = rt_tl_links(tl, (size_t)i, &l);
		uint64_t wire = UINT64_MAX, ack = UINT64_MAX, compl = UINT64_MAX;
		for (size_t k = 0; k < nl; k++) {
			const struct rt_tl_row *o = rt_tl_row(tl, l[k].row);
			if (!o || o->t_ns < r->t_ns)
				continue;
			uint64_t d = o->t_ns - r->t_ns;
			if (l[k].type == RT_TLL_PACKET && d < wire)
				wire = d;
			else if (l[k].type == RT_TLL_ACK && ack == UINT64_MAX)
				ack = d;
			else if (l[k].type == RT_TLL_COMPLETION && compl == UINT64_MAX)
				compl = d;
		}
		struct opstages *s = &lat[r->sub];
		if (wire != UINT64_MAX)
			lat_add(&s->wire, wire);
		if (ack != UINT64_MAX)
			lat_add(&s->ack, ack);
		if (compl != UINT64_MAX)
			lat_add(&s->compl, compl);
	}
	for (int o = 0; o < 16; o++) {
		struct oplat *st[] = {&lat[o].wire, &lat[o].ack, &lat[o].compl};
		for (size_t k = 0; k < 3; k++)
			if (st[k]->n)
				qsort(st[k]->v, st[k]->n, sizeof(uint64_t), u64cmp);
	}
}

/* QP 1 carries the CM's MADs (shown as CM rows); a row of zeros for it says nothing. */
static bool gsi_idle_qp(const struct rt_tl_qp *q)
{
	return q->qpn == 1 && !q->wrs_send && !q->wrs_recv && !q->completions && !q->packets_tx && !q->naks &&
	       !q->rnr_naks && !q->error_completions;
}

/* The QP attributes known from a trace or from the CM exchange on the wire. */
static void print_qp_attrs(const struct rt_tl_qp *Q)
{
	if (Q->timeout != 0xFF)
		printf(",\"timeout\":%u", Q->timeout);
	if (Q->retry_cnt != 0xFF)
		printf(",\"retry_cnt\":%u", Q->retry_cnt);
	if (Q->rnr_retry != 0xFF)
		printf(",\"rnr_retry\":%u", Q->rnr_retry);
	if (Q->min_rnr_timer != 0xFF)
		printf(",\"min_rnr_timer\":%u", Q->min_rnr_timer);
	if (Q->mtu)
		printf(",\"path_mtu\":%u", 128u << Q->mtu);
}

static double msd(uint64_t ns)
{
	return ns == UINT64_MAX ? -1.0 : (double)ns / 1e6;
}

/* One stage's percentile in ms for the table, "-" without any. */
static void print_pct(const struct oplat *o, unsigned p)
{
	if (o->n)
		printf(" %10.3f", msd(pct(o, p))); /* p 100: the largest */
	else
		printf(" %10s", "-");
}

/* The name of QP Q's host, "" when unknown. */
static const char *qp_host_name(const struct rt_timeline *tl, const struct rt_tl_qp *Q)
{
	return Q->host < rt_tl_host_count(tl) ? rt_tl_str(tl, rt_tl_host(tl, Q->host)->name) : "";
}

/* Where QP q is, for the summary ("QP 0x000012 on client"), or "" for none. */
static void qp_words(const struct rt_timeline *tl, uint32_t q, char *buf, size_t len)
{
	buf[0] = '\0';
	if (q >= rt_tl_qp_count(tl))
		return;
	char host[160];
	rt_tl_format_qp_host(tl, q, host, sizeof(host));
	snprintf(buf, len, " on QP 0x%06x on %s", rt_tl_qp(tl, q)->qpn, host);
}

/* The summary: one line per kind and QP, printed when some of them repeat. */
static void print_summary(const struct rt_timeline *tl, const struct finding_group *g, size_t ng)
{
	bool repeats = false;
	for (size_t i = 0; i < ng && !repeats; i++)
		repeats = g[i].count > 1;
	if (!repeats)
		return;
	printf("\nSummary of the findings (by kind and QP, most time lost first):\n");
	for (size_t i = 0; i < ng; i++) {
		char where[200];
		qp_words(tl, g[i].qp, where, sizeof(where));
		printf("  %zu %s [%s]%s", g[i].count, rt_tl_finding_kind_name(g[i].kind), rt_tl_severity_name(g[i].severity),
		       where);
		if (g[i].time_lost_ns)
			printf(": %.3f ms lost", (double)g[i].time_lost_ns / 1e6);
		if (g[i].bytes)
			printf("%s%" PRIu64 " bytes resent", g[i].time_lost_ns ? ", " : ": ", g[i].bytes);
		printf(" (F%u first)\n", rt_tl_finding(tl, g[i].first)->id);
	}
}

static void json_summary(const struct rt_timeline *tl, const struct finding_group *g, size_t ng)
{
	printf(",\"summary\":[");
	for (size_t i = 0; i < ng; i++) {
		printf("%s{\"kind\":\"%s\",\"severity\":\"%s\",\"count\":%zu,\"time_lost_ns\":%" PRIu64
		       ",\"bytes\":%" PRIu64 ",\"first\":\"F%u\"",
		       i ? "," : "", rt_tl_finding_kind_name(g[i].kind), rt_tl_severity_name(g[i].severity), g[i].count,
		       g[i].time_lost_ns, g[i].bytes, rt_tl_finding(tl, g[i].first)->id);
		if (g[i].qp < rt_tl_qp_count(tl)) {
			const struct rt_tl_qp *Q = rt_tl_qp(tl, g[i].qp);
			printf(",\"qpn\":%u,\"host\":", Q->qpn);
			rt_tl_json_string(stdout, qp_host_name(tl, Q));
		}
		printf("}");
	}
	printf("]");
}

/* The findings left out by --limit, by kind, in the order the first of each
 * ranks: "3362 go_back_n, 1 duplicate". */
static void print_left_out(const struct rt_timeline *tl, size_t from)
{
	enum { KINDS = 64 };
	size_t nf = rt_tl_finding_count(tl), count[KINDS] = {0}, other = 0;
	unsigned order[KINDS], nkinds = 0;
	for (size_t i = from; i < nf; i++) {
		unsigned kind = rt_tl_finding(tl, i)->kind;
		if (kind >= KINDS) {
			other++;
			continue;
		}
		if (!count[kind]++)
			order[nkinds++] = kind;
	}
	printf("\n... %zu more finding%s not shown (", nf - from, nf - from == 1 ? "" : "s");
	for (unsigned k = 0; k < nkinds; k++)
		printf("%s%zu %s", k ? ", " : "", count[order[k]], rt_tl_finding_kind_name(order[k]));
	if (other)
		printf("%s%zu of other kinds", nkinds ? ", " : "", other);
	printf("); --limit 0 shows them all\n");
}

static int run(int argc, char **argv)
{
	int json = 0;
	size_t limit = 0; /* 0: every finding */
	static const struct option opts[] = {{"json", no_argument, NULL, 'j'}, {"limit", required_argument, NULL, 'n'},
					     {NULL, 0, NULL, 0}};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "jn:", opts, NULL)) != -1) {
		if (c == 'j') {
			json = 1;
		} else if (c == 'n') {
			uint64_t v;
			if (rt_parse_number_arg(optarg, 10, SIZE_MAX, &v) < 0) {
				fprintf(stderr, "rdmatrace diagnose: --limit needs a number of findings (0: all), not '%s'\n",
					optarg);
				return 2;
			}
			limit = (size_t)v;
		} else {
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: rdmatrace diagnose [--json] [--limit N] RUNDIR|FILE...\n");
		return 2;
	}
	/* the run's name: its directory, or the files given */
	char dir[4096];
	size_t at = 0;
	for (int i = optind; i < argc && at < sizeof(dir); i++)
		at += (size_t)snprintf(dir + at, sizeof(dir) - at, "%s%s", i > optind ? " " : "", argv[i]);
	char err[512];
	struct rt_timeline *tl;
	if (rt_timeline_open_paths((const char *const *)argv + optind, (size_t)(argc - optind), RT_TL_OPEN_REBUILD_STALE,
				   &tl, err, sizeof(err)) < 0) {
		fprintf(stderr, "rdmatrace diagnose: %s\n", err);
		return 2;
	}
	int problems = 0;
	size_t nf = rt_tl_finding_count(tl);
	for (size_t i = 0; i < nf; i++)
		if (rt_tl_finding(tl, i)->severity >= RT_TLS_WARNING)
			problems = 1;
	struct opstages lat[16];
	memset(lat, 0, sizeof(lat));
	collect_latency(tl, lat);
	struct finding_group *groups;
	size_t ngroups = finding_groups(tl, &groups);
	size_t shown = limit && limit < nf ? limit : nf; /* the first findings, most time lost first */
	if (json) {
		printf("{\"run\":");
		rt_tl_json_string(stdout, dir);
		printf(",\"problems\":%s,\"notes\":[", problems ? "true" : "false");
		for (size_t i = 0; i < rt_tl_note_count(tl); i++) {
			printf("%s", i ? "," : "");
			rt_tl_json_string(stdout, rt_tl_note(tl, i));
		}
		printf("],\"hosts\":[");
		for (size_t h = 0; h < rt_tl_host_count(tl); h++) {
			const struct rt_tl_host *H = rt_tl_host(tl, h);
			printf("%s{\"name\":", h ? "," : "");
			rt_tl_json_string(stdout, rt_tl_str(tl, H->name));
			printf(",\"offset_ns\":%" PRId64 ",\"uncertainty_ns\":", H->offset_ns);
			if (H->uncertainty_ns == UINT64_MAX)
				printf("null");
			else
				printf("%" PRIu64, H->uncertainty_ns);
			printf(",\"reference\":%s,\"drift_ppb\":%" PRId64 "}", (H->flags & RT_TLH_REFERENCE) ? "true" : "false",
			       H->drift_ppb);
		}
		printf("],\"findings\":[");
		for (size_t i = 0; i < shown; i++) {
			const struct rt_tl_finding *f = rt_tl_finding(tl, i);
			printf("%s{\"id\":\"F%u\",\"kind\":\"%s\",\"severity\":\"%s\",\"t_ns\":%" PRIu64 ",\"time_lost_ns\":%" PRIu64
			       ",\"bytes\":%" PRIu64 ",\"text\":",
			       i ? "," : "", f->id, rt_tl_finding_kind_name(f->kind), rt_tl_severity_name(f->severity), f->t_ns,
			       f->time_lost_ns, f->bytes);
			rt_tl_json_string(stdout, rt_tl_str(tl, f->text));
			printf(",\"evidence\":");
			rt_tl_json_string(stdout, rt_tl_str(tl, f->evidence));
			printf(",\"frames\":[");
			const struct rt_tl_link *l;
			size_t nl = rt_tl_links(tl, f->row, &l);
			int first = 1;
			for (size_t k = 0; k < nl; k++) {
				const struct rt_tl_row *r = rt_tl_row(tl, l[k].row);
				if (r && r->frame) {
					printf("%s%u", first ? "" : ",", r->frame);
					first = 0;
				}
			}
			printf("],\"wr_ids\":[");
			first = 1;
			for (size_t k = 0; k < nl; k++) {
				const struct rt_tl_row *r = rt_tl_row(tl, l[k].row);
				if (r && (r->kind == RT_EV_WR_POST || r->kind == RT_EV_COMPLETION)) {
					printf("%s%" PRIu64, first ? "" : ",", r->wr_id);
					first = 0;
				}
			}
			printf("]}");
		}
		printf("]");
		if (shown < nf)
			printf(",\"findings_left_out\":%zu", nf - shown);
		json_summary(tl, groups, ngroups);
		printf(",\"qps\":[");
		for (size_t q = 0; q < rt_tl_qp_count(tl); q++) {
			const struct rt_tl_qp *Q = rt_tl_qp(tl, q);
			char ip[64];
			rt_tl_format_qp_ip(Q, ip, sizeof(ip));
			printf("%s{\"qpn\":%u,\"peer_qpn\":%u,\"host\":", q ? "," : "", Q->qpn, Q->peer_qpn);
			rt_tl_json_string(stdout, qp_host_name(tl, Q));
			const struct rt_tl_proc *P = Q->proc < rt_tl_proc_count(tl) ? rt_tl_proc(tl, Q->proc) : NULL;
			if (P) {
				printf(",\"pid\":%d,\"program\":", (int)P->pid);
				rt_tl_json_string(stdout, rt_tl_str(tl, P->program));
			}
			printf(",\"ip\":\"%s\",\"wrs_send\":%" PRIu64 ",\"wrs_recv\":%" PRIu64 ",\"completions\":%" PRIu64
			       ",\"error_completions\":%" PRIu64 ",\"packets_tx\":%" PRIu64 ",\"bytes_tx\":%" PRIu64
			       ",\"retransmitted\":%" PRIu64 ",\"bytes_resent\":%" PRIu64 ",\"naks\":%" PRIu64 ",\"rnr_naks\":%" PRIu64
			       ",\"duplicates\":%" PRIu64 ",\"out_of_order\":%" PRIu64 ",\"cnps\":%" PRIu64 ",\"ecn\":%" PRIu64,
			       ip, Q->wrs_send, Q->wrs_recv, Q->completions, Q->error_completions, Q->packets_tx, Q->bytes_tx,
			       Q->retransmitted, Q->bytes_resent, Q->naks, Q->rnr_naks, Q->duplicates, Q->out_of_order, Q->cnps, Q->ecn);
			if (Q->lat_p50_ns != UINT64_MAX)
				printf(",\"latency_p50_ns\":%" PRIu64 ",\"latency_p99_ns\":%" PRIu64, Q->lat_p50_ns, Q->lat_p99_ns);
			if (Q->poll_delay_p50_ns != UINT64_MAX)
				printf(",\"poll_delay_p50_ns\":%" PRIu64, Q->poll_delay_p50_ns);
			if (Q->post_to_wire_p50_ns != UINT64_MAX)
				printf(",\"post_to_wire_p50_ns\":%" PRIu64, Q->post_to_wire_p50_ns);
			if (Q->ack_p50_ns != UINT64_MAX)
				printf(",\"ack_p50_ns\":%" PRIu64, Q->ack_p50_ns);
			if (Q->wrs_recv)
				printf(",\"recv_queue_min\":%" PRIu64 ",\"recv_queue_max\":%" PRIu64, Q->recv_posted_min,
				       Q->recv_posted_max);
			print_qp_attrs(Q);
			printf("}");
		}
		printf("],\"latency\":[");
		int first = 1;
		for (int o = 0; o < 16; o++) {
			const struct oplat *cp = &lat[o].compl, *w = &lat[o].wire, *a = &lat[o].ack;
			if (!cp->n)
				continue;
			printf("%s{\"opcode\":\"%s\",\"count\":%zu,\"p50_ns\":%" PRIu64 ",\"p90_ns\":%" PRIu64 ",\"p99_ns\":%" PRIu64
			       ",\"max_ns\":%" PRIu64,
			       first ? "" : ",", rt_wr_opcode_name((unsigned)o), cp->n, pct(cp, 50), pct(cp, 90), pct(cp, 99),
			       cp->v[cp->n - 1]);
			if (w->n)
				printf(",\"wire_count\":%zu,\"wire_p50_ns\":%" PRIu64 ",\"wire_p99_ns\":%" PRIu64, w->n, pct(w, 50),
				       pct(w, 99));
			if (a->n)
				printf(",\"ack_count\":%zu,\"ack_p50_ns\":%" PRIu64 ",\"ack_p99_ns\":%" PRIu64, a->n, pct(a, 50),
				       pct(a, 99));
			printf("}");
			first = 0;
		}
		printf("]}\n");
	} else {
		printf("Run %s: %zu finding%s%s\n", dir, nf, nf == 1 ? "" : "s", problems ? "" : " (no problems)");
		for (size_t i = 0; i < rt_tl_note_count(tl); i++)
			printf("  note: %s\n", rt_tl_note(tl, i));
		for (size_t h = 0; h < rt_tl_host_count(tl); h++) {
			const struct rt_tl_host *H = rt_tl_host(tl, h);
			if (H->flags & RT_TLH_REFERENCE)
				printf("  clock: %s is the reference\n", rt_tl_str(tl, H->name));
			else if (H->uncertainty_ns == UINT64_MAX)
				printf("  clock: %s offset %+.6f s, not bounded by causal order (wall clock trusted)\n",
				       rt_tl_str(tl, H->name), (double)H->offset_ns / 1e9);
			else
				printf("  clock: %s offset %+.6f s +- %.3f ms\n", rt_tl_str(tl, H->name), (double)H->offset_ns / 1e9,
				       (double)H->uncertainty_ns / 1e6);
		}
		for (size_t i = 0; i < shown; i++) {
			const struct rt_tl_finding *f = rt_tl_finding(tl, i);
			printf("\nF%u [%s] %s", f->id, rt_tl_severity_name(f->severity), rt_tl_finding_kind_name(f->kind));
			if (f->time_lost_ns)
				printf(", %.3f ms lost", (double)f->time_lost_ns / 1e6);
			printf("\n  %s\n  evidence: %s\n", rt_tl_str(tl, f->text), rt_tl_str(tl, f->evidence));
		}
		if (shown < nf)
			print_left_out(tl, shown);
		print_summary(tl, groups, ngroups);
		if (rt_tl_qp_count(tl)) {
			printf("\n%-10s %-10s %-16s %7s %7s %9s %11s %7s %5s %5s %8s %10s %10s %10s %9s\n", "QP", "peer", "host",
			       "WRs", "compl", "packets", "bytes", "retrans", "NAKs", "RNR", "errors", "p50 ms", "p99 ms", "poll ms",
			       "RQ depth");
			size_t gsi_idle = 0;
			for (size_t q = 0; q < rt_tl_qp_count(tl); q++) {
				const struct rt_tl_qp *Q = rt_tl_qp(tl, q);
				char host[160];
				if (gsi_idle_qp(Q)) {
					gsi_idle++;
					continue;
				}
				rt_tl_format_qp_host(tl, q, host, sizeof(host));
				printf("0x%06x   0x%06x   %-16s %7" PRIu64 " %7" PRIu64 " %9" PRIu64 " %11" PRIu64 " %7" PRIu64
				       " %5" PRIu64 " %5" PRIu64 " %8" PRIu64,
				       Q->qpn, Q->peer_qpn, host, Q->wrs_send + Q->wrs_recv, Q->completions, Q->packets_tx, Q->bytes_tx,
				       Q->retransmitted, Q->naks, Q->rnr_naks, Q->error_completions);
				if (Q->lat_p50_ns != UINT64_MAX)
					printf(" %10.3f %10.3f", msd(Q->lat_p50_ns), msd(Q->lat_p99_ns));
				else
					printf(" %10s %10s", "-", "-");
				if (Q->poll_delay_p50_ns != UINT64_MAX)
					printf(" %10.3f", msd(Q->poll_delay_p50_ns));
				else
					printf(" %10s", "-");
				if (Q->wrs_recv)
					printf(" %4" PRIu64 "..%-3" PRIu64, Q->recv_posted_min, Q->recv_posted_max);
				printf("\n");
			}
			if (gsi_idle)
				printf("(%zu idle GSI QP%s (QP 1, which carries the CM) not shown; --json lists every QP)\n", gsi_idle, gsi_idle == 1 ? "" : "s");
		}
		int any = 0;
		for (int o = 0; o < 16; o++) {
			const struct opstages *st = &lat[o];
			if (!st->compl.n)
				continue;
			if (!any++)
				printf("\n%-22s %7s %10s %10s %10s %10s %10s %10s %10s %10s  (ms after the WR was posted)\n",
				       "opcode", "count", "wire p50", "wire p99", "ACK p50", "ACK p99", "compl p50", "compl p90",
				       "compl p99", "compl max");
			printf("%-22s %7zu", rt_wr_opcode_name((unsigned)o), st->compl.n);
			print_pct(&st->wire, 50);
			print_pct(&st->wire, 99);
			print_pct(&st->ack, 50);
			print_pct(&st->ack, 99);
			print_pct(&st->compl, 50);
			print_pct(&st->compl, 90);
			print_pct(&st->compl, 99);
			print_pct(&st->compl, 100);
			printf("\n");
		}
	}
	free(groups);
	for (int o = 0; o < 16; o++) {
		free(lat[o].wire.v);
		free(lat[o].ack.v);
		free(lat[o].compl.v);
	}
	rt_timeline_free(tl);
	return problems ? 1 : 0;
}

const struct rt_command rt_cmd_diagnose = {
	.name = "diagnose",
	.builds_timelines = 1,
	.summary = "explain a run: retransmissions, RNR stalls, NAKs, error completions",
	.usage = "usage: rdmatrace diagnose [--json] [--limit N] RUNDIR|FILE...\n"
		 "\n"
		 "Prints the run's findings ranked by the time they cost, each in one sentence\n"
		 "with its evidence (frame numbers, WR ids), a summary by kind and QP when some\n"
		 "repeat, then per-QP statistics and WR latency percentiles per opcode.  Runs\n"
		 "`rdmatrace correlate` first when the timeline is missing or older than its\n"
		 "inputs.  FILE instead of a run directory: a capture (pcap, pcapng, also\n"
		 "compressed), a trace file or a saved timeline, correlated on its own in memory;\n"
		 "several: a capture and trace files (from each host), correlated together.\n"
		 "docs/diagnose.md explains every finding.\n"
		 "  --json      one JSON object instead of text\n"
		 "  --limit N   only the first N findings (the summary by kind and QP, the exit\n"
		 "              status and the statistics still count them all); 0, the default: all\n"
		 "Exit status: 0 no problems, 1 problems found (a warning or error finding), 2 error.\n",
	.run = run,
};

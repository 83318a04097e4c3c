/*
 * Text for timeline rows: the one-line summary the viewer lists and the
 * multi-line detail it shows for the selected row (every decoded packet
 * field through the decoder's formatter, every event field through the
 * trace printer, and the related rows).
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "rdmatrace/roce_format.h"
#include "rdmatrace/trace_print.h"
#include "tl_internal.h"

void tl_textf(struct tl_textbuf *o, const char *fmt, ...)
{
	if (o->n + 1 >= o->cap)
		return;
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(o->p + o->n, o->cap - o->n, fmt, ap);
	va_end(ap);
	if (w > 0)
		o->n += (size_t)w < o->cap - o->n ? (size_t)w : o->cap - o->n - 1;
}

const char *rt_tl_kind_name(unsigned kind)
{
	switch (kind) {
	case RT_TLK_PACKET:
		return "packet";
	case RT_TLK_CM_PACKET:
		return "cm_packet";
	case RT_TLK_FINDING:
		return "finding";
	default:
		return rt_event_kind_name(kind);
	}
}

const char *rt_tl_link_type_name(unsigned t)
{
	static const char *const n[] = {"", "wr", "packet", "retransmission", "ack", "nak", "rnr_nak", "completion",
					"covered_wr", "consumer", "recv_wr", "cm_event", "cm_packet", "finding",
					"original", "request", "qp_state", "event", "cm_peer"};
	return t < sizeof(n) / sizeof(n[0]) ? n[t] : "unknown";
}

const char *rt_tl_finding_kind_name(unsigned k)
{
	static const char *const n[] = {"", "go_back_n", "rnr_stall", "nak_error", "error_completion", "qp_error",
					"duplicate", "psn_gap", "bad_icrc", "congestion", "missing_input",
					"clock", "cm_reject", "lost_events", "unreliable_loss", "cm_lost", "post_failed",
					"call_failed", "process_ended", "async_error", "qp_setup", "held_back",
					"process_frozen", "retransmission_storm"};
	return k < sizeof(n) / sizeof(n[0]) ? n[k] : "unknown";
}

const char *rt_tl_severity_name(unsigned s)
{
	return s == RT_TLS_ERROR ? "error" : s == RT_TLS_WARNING ? "warning" : "info";
}

/* QP q's address into ip (INET6_ADDRSTRLEN bytes); false when not known. */
static bool qp_ip(const struct rt_tl_qp *q, char *ip)
{
	return (q->ip_version == 4 || q->ip_version == 6) &&
	       inet_ntop(q->ip_version == 6 ? AF_INET6 : AF_INET, q->ip, ip, INET6_ADDRSTRLEN);
}

size_t rt_tl_format_qp_ip(const struct rt_tl_qp *q, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];
	int w = snprintf(buf, len, "%s", q && qp_ip(q, ip) ? ip : "-");
	return w < 0 ? 0 : (size_t)w < len ? (size_t)w : len ? len - 1 : 0;
}

size_t tl_qp_which(const struct rt_tl_qp *qps, size_t n, const struct rt_tl_proc *procs, size_t nprocs,
		   const char *strs, size_t nstrs, size_t q, char *buf, size_t len)
{
	if (!len)
		return 0;
	buf[0] = 0;
	if (q >= n || qps[q].host == UINT16_MAX)
		return 0;
	const struct rt_tl_qp *Q = &qps[q];
	bool shared = false;
	for (size_t i = 0; i < n && !shared; i++)
		shared = i != q && qps[i].qpn == Q->qpn && qps[i].host == Q->host;
	if (!shared)
		return 0;
	struct tl_textbuf o = {.p = buf, .cap = len};
	char ip[INET6_ADDRSTRLEN];
	if (qp_ip(Q, ip))
		tl_textf(&o, "%s", ip);
	else if (Q->proc < nprocs)
		tl_textf(&o, "%s pid %d", procs[Q->proc].program < nstrs ? strs + procs[Q->proc].program : "?",
			 (int)procs[Q->proc].pid);
	return o.n;
}

size_t rt_tl_format_qp_host(const struct rt_timeline *tl, size_t q, char *buf, size_t len)
{
	if (!len)
		return 0;
	buf[0] = 0;
	const struct rt_tl_qp *Q = rt_tl_qp(tl, q);
	if (!Q)
		return 0;
	if (Q->host >= tl->nhosts)
		return rt_tl_format_qp_ip(Q, buf, len);
	struct tl_textbuf o = {.p = buf, .cap = len};
	char which[96];
	tl_textf(&o, "%s", rt_tl_str(tl, tl->hosts[Q->host].name));
	if (tl_qp_which(tl->qps, tl->nqps, tl->procs, tl->nprocs, tl->strs, tl->nstrs, q, which, sizeof(which)))
		tl_textf(&o, " %s", which);
	return o.n;
}

static const char *host_name(const struct rt_timeline *tl, unsigned h)
{
	const struct rt_tl_host *H = rt_tl_host(tl, h);
	return H ? rt_tl_str(tl, H->name) : "?";
}

static void summary(const struct rt_timeline *tl, size_t i, struct tl_textbuf *o)
{
	const struct rt_tl_row *r = &tl->rows[i];
	if (r->kind == RT_TLK_PACKET || r->kind == RT_TLK_CM_PACKET) {
		const uint8_t *d;
		uint32_t wl;
		uint16_t lt;
		size_t n = rt_tl_packet_bytes(tl, i, &d, &wl, &lt);
		tl_textf(o, "frame %u ", r->frame);
		if (r->qpn)
			tl_textf(o, "qp=0x%06x ", r->qpn);
		struct rt_pkt p;
		if (n && rt_decode(NULL, lt, d, (uint32_t)n, wl, &p) == 1) {
			if (p.flags & RT_PKT_CM) {
				const char *nm = rt_cm_attr_name(p.cm.attr_id);
				tl_textf(o, "CM %s", nm ? nm : "MAD");
				if (p.cm.local_qpn)
					tl_textf(o, " local_qpn=0x%06x", p.cm.local_qpn);
			} else {
				tl_textf(o, "%s psn=0x%06x dqp=0x%06x", p.op ? p.op->name : "unknown opcode", p.bth.psn,
				    p.bth.dqpn);
				if (p.hdrs & RT_HDR_AETH) {
					char a[64];
					rt_aeth_describe(&p.aeth, a, sizeof(a));
					tl_textf(o, " %s", a);
				}
				if (r->len)
					tl_textf(o, " %u B", r->len);
			}
		}
		if (r->flags & RT_TLF_HAS_WR)
			tl_textf(o, " wr_id=%" PRIu64, r->wr_id);
		if (r->flags & RT_TLF_RETRANS)
			tl_textf(o, " RETRANSMISSION");
		if (r->flags & RT_TLF_DUP)
			tl_textf(o, " dup");
		if (r->flags & RT_TLF_OUT_OF_ORDER)
			tl_textf(o, " after-gap");
		if (r->flags & RT_TLF_BAD_ICRC)
			tl_textf(o, " BAD-ICRC");
		if (r->flags & RT_TLF_ECN)
			tl_textf(o, " ECN-CE");
		return;
	}
	if (r->kind == RT_TLK_FINDING) {
		const struct rt_tl_finding *f = rt_tl_finding(tl, r->ref);
		if (f)
			tl_textf(o, "F%u %s %s: %s", f->id, rt_tl_severity_name(f->severity), rt_tl_finding_kind_name(f->kind),
			    rt_tl_str(tl, f->text));
		return;
	}
	const struct rt_event *ev = rt_tl_event(tl, i);
	tl_textf(o, "%s %s", host_name(tl, r->host), rt_event_kind_name(r->kind));
	if (r->dir == RT_TLD_TX)
		tl_textf(o, " tx");
	else if (r->dir == RT_TLD_RX)
		tl_textf(o, " rx");
	if (r->qpn)
		tl_textf(o, " qp=0x%06x", r->qpn);
	if (ev) {
		char f[400];
		rt_event_format_fields(ev, 0, f, sizeof(f));
		tl_textf(o, " %s", f);
	}
}

/* The start of the row formatters: buf emptied (when it has room), and
 * whether row is a row of tl to write there. */
static bool row_to_format(const struct rt_timeline *tl, size_t row, char *buf, size_t len)
{
	if (!len)
		return false;
	buf[0] = 0;
	return row < tl->nrows;
}

size_t rt_tl_format_summary(const struct rt_timeline *tl, size_t row, char *buf, size_t len)
{
	if (!row_to_format(tl, row, buf, len))
		return 0;
	struct tl_textbuf o = {buf, 0, len};
	summary(tl, row, &o);
	return o.n;
}

size_t rt_tl_format_detail(const struct rt_timeline *tl, size_t row, char *buf, size_t len)
{
	if (!row_to_format(tl, row, buf, len))
		return 0;
	struct tl_textbuf o = {buf, 0, len};
	const struct rt_tl_row *r = &tl->rows[row];
	uint64_t t = r->t_ns;
	tl_textf(&o, "row %zu  %s  time %" PRIu64 ".%09" PRIu64 " (aligned)", row, rt_tl_kind_name(r->kind), t / 1000000000u,
	    t % 1000000000u);
	uint64_t raw = rt_tl_raw_ns(tl, row);
	if (raw != t)
		tl_textf(&o, "  raw %" PRIu64 ".%09" PRIu64, raw / 1000000000u, raw % 1000000000u);
	tl_textf(&o, "\nhost %s", host_name(tl, r->host));
	const struct rt_tl_proc *p = r->proc != UINT16_MAX ? rt_tl_proc(tl, r->proc) : NULL;
	if (p)
		tl_textf(&o, "  process %d %s", p->pid, rt_tl_str(tl, p->program));
	if (r->qp < tl->nqps) {
		const struct rt_tl_qp *q = &tl->qps[r->qp];
		tl_textf(&o, "  QP 0x%06x", q->qpn);
		if (q->peer_qpn)
			tl_textf(&o, " <-> 0x%06x", q->peer_qpn);
	}
	tl_textf(&o, "\n");
	if (r->kind == RT_TLK_PACKET || r->kind == RT_TLK_CM_PACKET) {
		const uint8_t *d;
		uint32_t wl;
		uint16_t lt;
		size_t n = rt_tl_packet_bytes(tl, row, &d, &wl, &lt);
		struct rt_pkt pk;
		if (n && rt_decode(NULL, lt, d, (uint32_t)n, wl, &pk) >= 0) {
			/* the stored bytes stop at the payload: the ICRC verdict is the capture-time one */
			if (r->ref < tl->npkts)
				pk.icrc_status = tl->pkts[r->ref].icrc;
			char j[RT_FMT_JSON_MAX];
			struct rt_fmt_ctx ctx = {.frame = r->frame, .ts_ns = raw, .abs_time = 1};
			size_t jl = rt_pkt_format_json(&pk, &ctx, j, sizeof(j));
			/* one field per line */
			tl_textf(&o, "decoded:\n  ");
			for (size_t k = 0; k < jl; k++) {
				char ch = j[k];
				if (ch == '{' || ch == '}' || ch == '\n')
					continue;
				if (ch == ',' && k + 1 < jl && j[k + 1] == '"')
					tl_textf(&o, "\n  ");
				else
					tl_textf(&o, "%c", ch);
			}
			tl_textf(&o, "\n");
		}
		const char *a = rt_tl_packet_annotation(tl, row);
		if (*a)
			tl_textf(&o, "annotation:\n  %s\n", a);
	} else if (r->kind == RT_TLK_FINDING) {
		const struct rt_tl_finding *f = rt_tl_finding(tl, r->ref);
		if (f) {
			tl_textf(&o, "F%u [%s] %s\n%s\n", f->id, rt_tl_severity_name(f->severity), rt_tl_finding_kind_name(f->kind),
			    rt_tl_str(tl, f->text));
			tl_textf(&o, "evidence: %s\n", rt_tl_str(tl, f->evidence));
			if (f->time_lost_ns)
				tl_textf(&o, "time lost: %.3f ms\n", (double)f->time_lost_ns / 1e6);
		}
	} else {
		const struct rt_event *ev = rt_tl_event(tl, row);
		if (ev) {
			char f[1024];
			rt_event_format_fields(ev, 0, f, sizeof(f));
			tl_textf(&o, "%s: %s\n", rt_event_kind_name(ev->kind), f);
			tl_textf(&o, "tid %u seq %u flags 0x%x\n", ev->tid, ev->seq, ev->flags);
		}
	}
	const struct rt_tl_link *l;
	size_t nl = rt_tl_links(tl, row, &l);
	if (nl)
		tl_textf(&o, "related:\n");
	for (size_t k = 0; k < nl && o.n + 64 < o.cap; k++) {
		char s[RT_TL_SUMMARY_MAX];
		rt_tl_format_summary(tl, l[k].row, s, sizeof(s));
		const struct rt_tl_row *lr = rt_tl_row(tl, l[k].row);
		int64_t dt = lr ? (int64_t)(lr->t_ns - r->t_ns) : 0;
		tl_textf(&o, "  %-14s %+.3f ms  row %u  %s\n", rt_tl_link_type_name(l[k].type), (double)dt / 1e6, l[k].row, s);
	}
	return o.n;
}

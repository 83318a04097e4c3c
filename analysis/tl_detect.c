/*
 * Diagnosis: findings with evidence (the per-QP statistics follow in
 * analysis/tl_stats.c).  Findings are built from the linked build records (analysis/tl_link.c); each one
 * says in one sentence what happened, names its evidence (frames, WR ids,
 * times) and estimates the time the application lost to it.  Work is done
 * from the wire when there is a capture and from the traces otherwise, so
 * either input alone still gives a diagnosis.  docs/diagnose.md explains
 * every finding.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdmatrace/clock.h"
#include "rdmatrace/qp_rules.h"
#include "rdmatrace/trace_print.h"
#include "tl_hash.h"
#include "tl_internal.h"

#define WC_SUCCESS 0
#define WC_LOC_LEN_ERR 1
#define WC_LOC_QP_OP_ERR 2
#define WC_LOC_PROT_ERR 4
#define WC_REM_INV_REQ_ERR 9
#define WC_REM_ACCESS_ERR 10
#define WC_REM_OP_ERR 11
#define WC_RETRY_EXC_ERR 12
#define WC_RNR_RETRY_EXC_ERR 13

struct text {
	char buf[2048];
	size_t n;
};

static void tx(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tx(struct text *t, const char *fmt, ...)
{
	if (t->n + 1 >= sizeof(t->buf))
		return;
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(t->buf + t->n, sizeof(t->buf) - t->n, fmt, ap);
	va_end(ap);
	if (w > 0)
		t->n += (size_t)w < sizeof(t->buf) - t->n ? (size_t)w : sizeof(t->buf) - t->n - 1;
}

struct rt_tl_finding *tl_finding_new(struct tl_build *b, unsigned kind, unsigned severity, uint64_t t_ns,
				     uint32_t qp)
{
	struct rt_tl_finding *f = tl_vec_push(&b->findings);
	if (!f)
		return NULL;
	f->id = (uint32_t)b->findings.n;
	f->kind = kind;
	f->severity = severity;
	f->t_ns = t_ns;
	f->qp = qp;
	f->row = RT_TL_NONE;
	return f;
}

void tl_finding_evidence(struct tl_build *b, struct rt_tl_finding *f, uint32_t item)
{
	if (item == RT_TL_NONE)
		return;
	uint32_t fi = tl_item_finding(b, f->id - 1);
	tl_link2(b, fi, item, RT_TLL_FINDING, RT_TLL_FINDING);
	if (item >= tl_nev(b) && item < tl_nev(b) + tl_npk(b)) {
		struct tl_pk *k = tl_pk(b, item - tl_nev(b));
		if (!k->findings[0])
			k->findings[0] = f->id;
		else if (!k->findings[1] && k->findings[0] != f->id)
			k->findings[1] = f->id;
		k->flags |= RT_TLF_FINDING;
	}
}

/* Packet pk (an index, RT_TL_NONE: nothing) as evidence of f. */
static void evidence_pk(struct tl_build *b, struct rt_tl_finding *f, uint32_t pk)
{
	tl_finding_evidence(b, f, pk != RT_TL_NONE ? tl_item_pk(b, pk) : RT_TL_NONE);
}

/* Where in a list of noted items (uint32_t indices in ascending order:
 * b->errs, b->cm_evs, b->naks ...) those from index from on start. */
static size_t noted_from(const struct tl_vec *list, size_t from)
{
	size_t lo = 0, hi = list->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (*TL_AT(list, uint32_t, mid) < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Create a finding with its text; returns its index or -1. */
static long finding(struct tl_build *b, unsigned kind, unsigned sev, uint64_t t, uint32_t qp, uint64_t lost,
		    uint64_t bytes, const struct text *text, const struct text *ev)
{
	uint32_t ts = tl_str(b, text->buf), es = tl_str(b, ev->buf);
	struct rt_tl_finding *f = tl_finding_new(b, kind, sev, t, qp);
	if (!f)
		return -1;
	f->text = ts;
	f->evidence = es;
	f->time_lost_ns = lost;
	f->bytes = bytes;
	return (long)(b->findings.n - 1);
}

static struct rt_tl_finding *FI(struct tl_build *b, long i)
{
	return TL_AT(&b->findings, struct rt_tl_finding, (size_t)i);
}

/* ---- helpers over the build ---- */

struct dctx {
	struct tl_build *b;
	struct tl_link_index li;  /* links by source item (handed on to the statistics) */
	uint8_t *explained;       /* per event: an error completion already explained by a finding */
	uint8_t *pk_used;         /* per packet: part of a finding of its kind already */
	uint8_t *qp_explained;    /* per QP: its move to ERROR is part of a finding already */
	uint8_t *proc_flags;      /* per process: PF_* (proc_flags()); NULL until asked */
	uint64_t *proc_gone;      /* per process: when it ended, as process_ends() judged (0 it did
				   * not, or nothing says so); NULL until then */
	struct cut *cuts;         /* per process: its recording cut off (cut_off_recordings); NULL when
				   * no trace notes the clock */
	struct freeze *freezes;   /* the traced processes that froze (find_freezes), in time order */
	size_t nfreezes;
	uint8_t *qp_captured;     /* per QP: the capture holds a packet it sent or received; NULL until asked */
	uint32_t *qp_first_error; /* per QP: its first move to ERROR (event), RT_TL_NONE; NULL until asked */
	uint32_t *qp_end;         /* per QP: its destroy, else its process's end record (event), RT_TL_NONE;
				   * NULL until asked (qp_gone) */
	uint64_t cap_end;         /* capture_end(): the time of the capture's last packet */
	struct rq_posts *rq;      /* receive WR posts per QP (recv_depth); NULL until asked */
	struct tl_vec rounds_told;/* struct round_told: each Go-Back-N finding, what it says started it */
	struct tl_vec rnr_timer_sets; /* uint32_t: the modifies that set a min_rnr_timer (min_rnr_timer_sets) */
	bool rnr_timer_sets_read; /* ... collected */
	struct tl_hash injected;  /* (what, host, PSN, opcode, destination QP) -> the sends an engine
				   * traced as changed on purpose (injected_read) */
	bool injected_read;
};

/* The receive WR posts of each QP, in event order (CSR: QP q's are ev[off[q]]
 * .. ev[off[q + 1]] - 1), and per QP where the posts not known to be taken
 * start, at time from[q]: a receive taken before t is taken before any later
 * t, so successive depths at growing times skip those once. */
struct rq_posts {
	uint32_t *off, *ev, *skip;
	uint64_t *from;
};

/* A traced process that froze: no record at all from it, not even its
 * collector's clock notes, from its record `from` to its record `to`. */
struct freeze {
	uint32_t from, to;        /* events */
	uint16_t proc;
};

/* struct dctx.proc_flags */
enum {
	PF_RXE = 1u << 0,         /* it opened the kernel's SoftRoCE: a traced device named rxe* */
	PF_ENGINE = 1u << 1,      /* an engine traced it: its transport and its CM run in the program (uroce) */
};

static uint64_t item_t(struct dctx *c, uint32_t item)
{
	return tl_item_time(c->b, item);
}

static uint32_t first_link(struct dctx *c, uint32_t item, uint32_t type)
{
	return tl_link_index_first(&c->li, item, type);
}

/* Process p's PF_* flags, gathered from the events on the first question (0
 * when memory ran out). */
static unsigned proc_flags(struct dctx *c, uint16_t p)
{
	struct tl_build *b = c->b;
	if (!c->proc_flags) {
		if (!(c->proc_flags = calloc(b->procs.n + 1, 1)))
			return 0;
		for (size_t i = 0; i < tl_nev(b); i++) {
			const struct tl_evrec *e = tl_ev(b, i);
			if (e->proc >= b->procs.n)
				continue;
			if (e->ev.kind == RT_EV_DEVICE && !strncmp(e->ev.u.device.name, "rxe", 3))
				c->proc_flags[e->proc] |= PF_RXE;
			if (e->ev.flags & RT_EVF_ENGINE)
				c->proc_flags[e->proc] |= PF_ENGINE;
		}
	}
	return p < b->procs.n ? c->proc_flags[p] : 0;
}

/* Process p's TL_PROC_* bits (read_traces). */
static unsigned proc_bits(const struct tl_build *b, size_t p)
{
	return p < b->proc_bits.n ? *TL_AT(&b->proc_bits, uint8_t, p) : 0;
}

/* Whether some traced process's collector noted the clock. */
static bool any_synced(const struct tl_build *b)
{
	for (size_t p = 0; p < b->proc_bits.n; p++)
		if (proc_bits(b, p) & TL_PROC_SYNCED)
			return true;
	return false;
}

/* A gap this long in a process's records, while its collector notes the
 * clock every second (RT_EV_CLOCK_SYNC), is the whole process stopped. */
#define FROZEN_NS 2500000000ull

/* The nanoseconds of CLOCK_MONOTONIC per tick of process p's records, from
 * its collector's first and last clock notes (0 unknown). */
static double proc_tick_ns(struct tl_build *b, uint32_t first_sync, uint32_t last_sync)
{
	if (first_sync == RT_TL_NONE || last_sync == RT_TL_NONE || first_sync == last_sync)
		return 0;
	const struct rt_ev_clock_sync *a = &tl_ev(b, first_sync)->ev.u.clock, *z = &tl_ev(b, last_sync)->ev.u.clock;
	if (z->ticks <= a->ticks || z->mono_ns <= a->mono_ns)
		return 0;
	return (double)(z->mono_ns - a->mono_ns) / (double)(z->ticks - a->ticks);
}

/* Find the traced processes that froze (c->freezes): a process whose
 * collector notes the clock (not a flight recorder's trace, written on a
 * trigger) left no record at all for FROZEN_NS and more, by its wall clock
 * and by its monotonic ticks (a wall-clock step is none), and then went on
 * (its end record, which `rdmatrace record` writes when it is gone, aside).
 * -ENOMEM. */
static int find_freezes(struct dctx *c)
{
	struct tl_build *b = c->b;
	size_t np = b->procs.n;
	if (!np || !any_synced(b))
		return 0;
	uint32_t *last = malloc(np * sizeof(uint32_t)), *sync0 = malloc(np * sizeof(uint32_t)),
		 *sync1 = malloc(np * sizeof(uint32_t));
	double *tick = calloc(np, sizeof(double));
	struct tl_vec v;
	tl_vec_init(&v, sizeof(struct freeze));
	int rc = last && sync0 && sync1 && tick ? 0 : -ENOMEM;
	for (size_t p = 0; p < np && !rc; p++)
		last[p] = sync0[p] = sync1[p] = RT_TL_NONE;
	for (size_t i = 0; i < tl_nev(b) && !rc; i++) {
		const struct tl_evrec *e = tl_ev(b, i);
		if (e->proc >= np)
			continue;
		if (e->ev.kind == RT_EV_CLOCK_SYNC) {
			if (sync0[e->proc] == RT_TL_NONE)
				sync0[e->proc] = (uint32_t)i;
			sync1[e->proc] = (uint32_t)i;
		}
	}
	for (size_t p = 0; p < np && !rc; p++)
		tick[p] = proc_bits(b, p) & TL_PROC_FLIGHT ? 0 : proc_tick_ns(b, sync0[p], sync1[p]);
	for (size_t i = 0; i < tl_nev(b) && !rc; i++) {
		const struct tl_evrec *e = tl_ev(b, i);
		uint16_t p = e->proc;
		if (p >= np || !tick[p] || e->ev.kind == RT_EV_PROCESS_END)
			continue;
		uint32_t l = last[p];
		last[p] = (uint32_t)i;
		if (l == RT_TL_NONE || e->raw_ns < tl_ev(b, l)->raw_ns + FROZEN_NS || e->ev.ticks < tl_ev(b, l)->ev.ticks ||
		    (double)(e->ev.ticks - tl_ev(b, l)->ev.ticks) * tick[p] < (double)FROZEN_NS)
			continue;
		struct freeze *f = tl_vec_push(&v);
		if (!f) {
			rc = -ENOMEM;
			break;
		}
		*f = (struct freeze){.from = l, .to = (uint32_t)i, .proc = p};
	}
	free(last);
	free(sync0);
	free(sync1);
	free(tick);
	if (rc) {
		tl_vec_free(&v);
		return rc;
	}
	c->freezes = v.p;
	c->nfreezes = v.n;
	return 0;
}

/* A freeze of the process of QP q that overlaps the time from t0 to t1
 * (NULL none). */
static const struct freeze *proc_frozen(struct dctx *c, uint32_t q, uint64_t t0, uint64_t t1)
{
	uint16_t p = q < c->b->qps.n ? tl_qp(c->b, q)->proc : UINT16_MAX;
	for (size_t k = 0; k < c->nfreezes && p != UINT16_MAX; k++) {
		const struct freeze *f = &c->freezes[k];
		if (f->proc == p && item_t(c, f->from) < t1 && item_t(c, f->to) > t0)
			return f;
	}
	return NULL;
}

/* The same, only for a process with its engine in it (its transport froze
 * with it). */
static const struct freeze *engine_frozen(struct dctx *c, uint32_t q, uint64_t t0, uint64_t t1)
{
	const struct freeze *f = proc_frozen(c, q, t0, t1);
	return f && (proc_flags(c, f->proc) & PF_ENGINE) ? f : NULL;
}

static int index_links(struct dctx *c)
{
	struct tl_build *b = c->b;
	c->explained = calloc(tl_nev(b) + 1, 1);
	c->pk_used = calloc(tl_npk(b) + 1, 1);
	c->qp_explained = calloc(b->qps.n + 1, 1);
	if (!c->explained || !c->pk_used || !c->qp_explained)
		return -ENOMEM;
	return tl_link_index_build(b, &c->li);
}

/* A host's name. */
static const char *host_name(struct tl_build *b, uint16_t h)
{
	return (const char *)b->strs.p + tl_host(b, h)->name;
}

static const char *qp_host(struct tl_build *b, uint32_t q)
{
	if (q == RT_TL_NONE)
		return "?";
	struct rt_tl_qp *Q = tl_qp(b, q);
	if (Q->host != UINT16_MAX)
		return host_name(b, Q->host);
	static __thread char ip[64];
	if (Q->ip_version == 4)
		snprintf(ip, sizeof(ip), "%u.%u.%u.%u", Q->ip[0], Q->ip[1], Q->ip[2], Q->ip[3]);
	else
		snprintf(ip, sizeof(ip), "an IPv6 host");
	return ip;
}

static void qp_name(struct tl_build *b, uint32_t q, struct text *t)
{
	if (q == RT_TL_NONE) {
		tx(t, "an unidentified QP");
		return;
	}
	tx(t, "QP 0x%06x on %s", tl_qp(b, q)->qpn, qp_host(b, q));
	char which[96];
	if (tl_qp_which(b->qps.p, b->qps.n, b->procs.p, b->procs.n, b->strs.p, b->strs.n, q, which, sizeof(which)))
		tx(t, " (%s)", which);
}

/* "PROGRAM (pid N) on HOST" of a traced process. */
static void proc_words(struct tl_build *b, uint32_t proc, struct text *t)
{
	const struct rt_tl_proc *P = TL_AT(&b->procs, struct rt_tl_proc, proc);
	tx(t, "%s (pid %d) on %s", (const char *)b->strs.p + P->program, P->pid, host_name(b, P->host));
}

/* A traced QP none of whose packets the capture holds, in a run with a
 * capture: the capture was taken on another interface, with a filter that
 * left them out, or at another time.  Its rounds and RNR waits come from
 * the engine's events, as in a run without a capture.  Not said when the
 * capture holds RoCE packets of QPs tied to no traced one: they may be its. */
static bool qp_uncaptured(struct dctx *c, uint32_t q)
{
	struct tl_build *b = c->b;
	size_t nq = b->qps.n;
	if (!b->have_capture || q >= nq || tl_qp(b, q)->host == UINT16_MAX)
		return false;
	if (!c->qp_captured) {
		/* one byte per QP, and one more: the capture holds packets of untraced QPs */
		if (!(c->qp_captured = calloc(nq + 1, 1)))
			return false; /* without memory: as if captured (no findings from events) */
		for (size_t i = 0; i < tl_npk(b); i++) {
			const struct tl_pk *k = tl_pk(b, i);
			if (k->is_cm || k->opcode == RT_OP_CNP)
				continue;
			uint32_t ends[2] = {k->send_qp, k->recv_qp};
			for (int j = 0; j < 2; j++) {
				if (ends[j] < nq && tl_qp(b, ends[j])->host != UINT16_MAX)
					c->qp_captured[ends[j]] = 1;
				else
					c->qp_captured[nq] = 1;
			}
			/* a UD datagram's QPs are its WRs' (tl_ud.c), its wire QPs the addresses' */
			uint32_t wrs[2] = {k->wr, k->recv_wr};
			for (int j = 0; j < 2; j++)
				if (wrs[j] < tl_nev(b) && b->ev_qp[wrs[j]] < nq)
					c->qp_captured[b->ev_qp[wrs[j]]] = 1;
		}
	}
	return !c->qp_captured[q] && !c->qp_captured[nq];
}

/* An address in words: the host it belongs to, when known, and the address. */
static void ep_words(struct tl_build *b, uint32_t ep, struct text *t)
{
	const struct tl_ep *e = ep < b->eps.n ? TL_AT(&b->eps, struct tl_ep, ep) : NULL;
	char ip[INET6_ADDRSTRLEN] = "?";
	if (e)
		inet_ntop(e->ver == 6 ? AF_INET6 : AF_INET, e->ip, ip, sizeof(ip));
	if (e && e->host != UINT16_MAX)
		tx(t, "%s (%s)", host_name(b, e->host), ip);
	else
		tx(t, "%s", ip);
}

static void wr_words(struct tl_build *b, uint32_t wr, struct text *t)
{
	const struct rt_ev_wr *w = &tl_ev(b, wr)->ev.u.wr;
	if (w->queue == RT_WRQ_SEND)
		tx(t, "wr_id %" PRIu64 " (%s, %u bytes)", w->wr_id, rt_wr_opcode_name(w->opcode), w->length);
	else
		tx(t, "receive wr_id %" PRIu64 " (%u bytes)", w->wr_id, w->length);
}

/* Whether send WR item wr had a packet in the capture (a first
 * transmission or a resend linked to it). */
static bool wr_on_wire(struct dctx *c, uint32_t wr)
{
	return first_link(c, wr, RT_TLL_PACKET) != RT_TL_NONE || first_link(c, wr, RT_TLL_RETRANS) != RT_TL_NONE;
}

/* A message longer than the receive WR it consumed on the responder: the
 * send WR wr (SEND, SEND_WITH_IMM, SEND_WITH_INV: an RDMA WRITE with
 * immediate needs no room) and the receive WR its first packet consumed
 * (recv_consumers) from the links; true when the message does not fit. */
static bool message_overflows(struct dctx *c, uint32_t wr, uint32_t recv)
{
	struct tl_build *b = c->b;
	if (wr == RT_TL_NONE || recv == RT_TL_NONE || wr >= tl_nev(b) || recv >= tl_nev(b))
		return false;
	const struct rt_ev_wr *s = &tl_ev(b, wr)->ev.u.wr, *r = &tl_ev(b, recv)->ev.u.wr;
	bool consumes = s->opcode == 2 || s->opcode == 3 || s->opcode == 9;
	return tl_ev(b, wr)->ev.kind == RT_EV_WR_POST && tl_ev(b, recv)->ev.kind == RT_EV_WR_POST &&
	       s->queue == RT_WRQ_SEND && r->queue != RT_WRQ_SEND && consumes && s->length > r->length;
}

/* The receive WR send WR wr's message consumed (its packets' recv_wr),
 * RT_TL_NONE when the linking found none. */
static uint32_t consumed_recv(struct dctx *c, uint32_t wr)
{
	struct tl_build *b = c->b;
	const struct tl_link_index *li = &c->li;
	if (wr == RT_TL_NONE || wr >= li->n)
		return RT_TL_NONE;
	for (uint32_t L = li->off[wr]; L < li->off[wr + 1]; L++) {
		const struct tl_ilink *l = &li->ls[L];
		if ((l->type == RT_TLL_PACKET || l->type == RT_TLL_RETRANS) && l->to >= tl_nev(b) &&
		    l->to - tl_nev(b) < tl_npk(b) && tl_pk(b, l->to - tl_nev(b))->recv_wr != RT_TL_NONE)
			return tl_pk(b, l->to - tl_nev(b))->recv_wr;
	}
	return RT_TL_NONE;
}

/* "...: the message (8192 bytes) is longer than the receive it met ..." for a
 * message that overflowed receive WR recv (message_overflows). */
static void overflow_words(struct dctx *c, uint32_t wr, uint32_t recv, bool from_sender, struct text *t)
{
	struct tl_build *b = c->b;
	const struct rt_ev_wr *s = &tl_ev(b, wr)->ev.u.wr, *r = &tl_ev(b, recv)->ev.u.wr;
	if (from_sender) {
		tx(t, ": the message (%u bytes) is longer than the receive WR it met on the responder (", s->length);
		wr_words(b, recv, t);
		tx(t, " on ");
		qp_name(b, b->ev_qp[recv], t);
		tx(t, ")");
	} else {
		tx(t, ": the message that consumed it, ");
		wr_words(b, wr, t);
		tx(t, " from ");
		qp_name(b, b->ev_qp[wr], t);
		tx(t, ", is longer than its %u bytes", r->length);
	}
	tx(t, ": a receive must hold the whole message, so the responder refuses it, NAKs the sender and completes "
	      "the receive in error (the kernel's SoftRoCE says remote operational error and LOC_QP_OP_ERR, other "
	      "devices invalid request and LOC_LEN_ERR); post receives at least as large as the largest message");
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

/* Requester QP attributes: traces first, then the CM exchange on the wire. */
static unsigned qp_timeout(struct tl_build *b, uint32_t q)
{
	return q != RT_TL_NONE ? tl_qp(b, q)->timeout : 0xFF;
}

/* ---- Go-Back-N ---- */

struct burst {
	uint32_t stream;          /* responder QP (request.recv_qp) */
	uint32_t requester;       /* send_qp */
	uint32_t first, last;     /* packet indices */
	uint32_t psn;             /* first PSN resent in the capture */
	uint32_t round_psn;       /* the PSN the round went back to (see tl_pk.round_psn) */
	uint32_t packets, dups;
	uint64_t bytes;
	uint8_t cause;
	uint32_t trigger;
	uint32_t original;        /* first transmission of psn (packet) */
	uint32_t prev;            /* transmission of psn just before this burst */
	uint32_t group;           /* bursts of the same psn in a row share a group id */
	long fidx;
	bool peer_error;          /* its finding says the peer QP was in ERROR (emit_bursts) */
	uint8_t stated;           /* the retry cause its finding states (emit_bursts), 0 none */
};

/* What a Go-Back-N round's finding says started it, in the few classes a
 * storm of rounds is summed up by (retransmission_storms). */
enum round_why {
	WHY_LOST_BEFORE,          /* a packet or its answer lost before the capture point */
	WHY_LOST_AFTER,           /* lost after the capture point (or late) */
	WHY_NO_ANSWER,            /* captured, and no answer came */
	WHY_REORDERED,            /* a packet came after later ones: reordered or held back on the way */
	WHY_DAMAGED,              /* a bad ICRC */
	WHY_DROPPED,              /* an engine dropped it (injected, busy) */
	WHY_EARLY_TIMER,          /* an ACK timer that went off early with nothing lost */
	WHY_UNSEEN_NAK,           /* a NAK the capture does not hold, or an early timer */
	WHY_FROZEN,               /* a process that runs an engine was frozen */
	WHY_PEER_ERROR,           /* the peer QP was in ERROR */
	WHY_PEER_GONE,            /* the peer QP had been destroyed, or its process had ended */
	WHY_TRACED_NAK,           /* outside the capture: its engine traced a retry after a NAK */
	WHY_TRACED_TIMEOUT,       /* ... after its ACK timer went off */
	WHY_TRACED_IMPLIED,       /* ... after an implied NAK */
	WHY_COUNT_
};

/* A Go-Back-N finding as a storm of them is summed up (retransmission_storms). */
struct round_told {
	uint32_t finding;         /* index into b->findings */
	uint8_t why;              /* enum round_why */
	uint32_t packets;         /* the resends the capture holds */
	uint32_t first, last;     /* its first and last item (a resent packet, or its engine's retry event) */
};

/* Note Go-Back-N finding f for the storms. */
static int round_told(struct dctx *c, long f, uint8_t why, uint32_t packets, uint32_t first, uint32_t last)
{
	struct round_told *r = tl_vec_push(&c->rounds_told);
	if (!r)
		return -ENOMEM;
	*r = (struct round_told){(uint32_t)f, why, packets, first, last};
	return 0;
}

/* Request k counted in round u: a packet resent, its bytes (a READ's: the
 * data asked again), and whether the receiver had it already. */
static void burst_count(struct burst *u, const struct tl_pk *k)
{
	u->packets++;
	u->bytes += k->op_class == RT_CLASS_READ_REQ ? k->reth_len : k->payload_len;
	u->dups += k->dup;
}

static int collect_bursts(struct dctx *c, struct tl_vec *bursts)
{
	struct tl_build *b = c->b;
	size_t npk = tl_npk(b), nqp = b->qps.n;
	uint32_t *open = malloc((nqp ? nqp : 1) * sizeof(uint32_t)); /* open burst per stream */
	uint32_t *lastb = malloc((nqp ? nqp : 1) * sizeof(uint32_t)); /* latest burst per stream */
	if (!open || !lastb) {
		free(open);
		free(lastb);
		return -ENOMEM;
	}
	for (size_t q = 0; q < nqp; q++)
		open[q] = lastb[q] = RT_TL_NONE;
	uint32_t group = 0;
	int rc = 0;
	for (size_t i = 0; i < npk; i++) {
		struct tl_pk *k = tl_pk(b, i);
		if (!k->is_request || k->recv_qp == RT_TL_NONE)
			continue;
		uint32_t s = k->recv_qp;
		if (k->wire_copy)
			continue; /* a copy made on the way is no part of a round */
		if (k->late) {
			/* held back on the way: it neither starts nor ends a round; a
			 * resend counts in the round it belongs to, the latest */
			uint32_t in = open[s] != RT_TL_NONE ? open[s] : lastb[s];
			if (k->retrans && in != RT_TL_NONE)
				burst_count(TL_AT(bursts, struct burst, in), k);
			continue;
		}
		if (k->round_start || !k->retrans)
			open[s] = RT_TL_NONE; /* the stream replay started the next round here, or the round ended */
		if (!k->retrans)
			continue;
		struct burst *u;
		if (open[s] == RT_TL_NONE) {
			u = tl_vec_push(bursts);
			if (!u) {
				rc = -ENOMEM;
				break;
			}
			u->stream = s;
			u->requester = k->send_qp;
			u->first = (uint32_t)i;
			u->psn = k->psn;
			u->round_psn = k->round_start ? k->round_psn : k->psn;
			u->cause = k->retrans_cause;
			u->trigger = k->trigger;
			/* the first transmission, when captured (not a resend) */
			u->original = k->original != RT_TL_NONE && !tl_pk(b, k->original)->retrans ? k->original : RT_TL_NONE;
			u->fidx = -1;
			/* the previous transmission of this PSN (of the READ it asks again) */
			u->prev = k->prev_tx != RT_TL_NONE ? k->prev_tx : k->original;
			/* consecutive bursts of the same PSN form one group */
			const struct burst *prevb = lastb[s] != RT_TL_NONE ? TL_AT(bursts, struct burst, lastb[s]) : NULL;
			u->group = prevb && prevb->round_psn == u->round_psn && prevb->cause == u->cause ? prevb->group : ++group;
			open[s] = lastb[s] = (uint32_t)(bursts->n - 1);
		} else {
			u = TL_AT(bursts, struct burst, open[s]);
		}
		u->last = (uint32_t)i;
		burst_count(u, k);
	}
	free(open);
	free(lastb);
	return rc;
}

/* When the capture started, aligned: its earliest frame of any kind (0
 * unknown).  A packet sent before then may be missing from it for that
 * reason alone. */
static uint64_t capture_start(struct tl_build *b)
{
	uint64_t t = b->capture_first_ns;
	return t && b->capture_host != UINT16_MAX ? tl_align(tl_host(b, b->capture_host), t) : t;
}

/* The capture time of its last packet (the latest one, should the capture
 * be out of order). */
static uint64_t capture_end(struct tl_build *b)
{
	size_t npk = tl_npk(b);
	uint64_t t = npk ? tl_item_time(b, tl_item_pk(b, (uint32_t)(npk - 1))) : 0;
	for (size_t i = 0; b->pk_unordered && i < npk; i++)
		if (tl_item_time(b, tl_item_pk(b, (uint32_t)i)) > t)
			t = tl_item_time(b, tl_item_pk(b, (uint32_t)i));
	return t;
}

/* Event i, an engine's retry or received RNR NAK, came while the capture
 * was not running: before its first frame, or after its last RoCE packet,
 * beyond the host clock's uncertainty (an unbounded clock is its wall
 * clock, taken as within a second).  A retry's resends follow it, so one
 * after the last packet left none in the capture; an RNR NAK left when the
 * responder's engine traced sending it, else up to a millisecond before it
 * was received, on a loaded machine. */
static bool outside_capture(struct dctx *c, uint32_t i)
{
	struct tl_build *b = c->b;
	const struct tl_evrec *e = tl_ev(b, i);
	uint64_t unc = e->host < b->hosts.n ? tl_host(b, e->host)->uncertainty_ns : UINT64_MAX;
	uint64_t start = capture_start(b), end = c->cap_end, t = item_t(c, i);
	if (!b->have_capture || !start)
		return false;
	if (unc > 1000000000ull)
		unc = 1000000000ull;
	uint64_t after = 0;
	if (e->ev.kind == RT_EV_RNR) {
		/* the responder's engine's record of sending that RNR NAK, when traced (just before) */
		uint32_t sent = RT_TL_NONE, peer = b->ev_qp[i] < b->qps.n ? tl_qp(b, b->ev_qp[i])->peer : RT_TL_NONE;
		for (uint32_t x = i; x-- > 0 && i - x <= 256 && peer != RT_TL_NONE && sent == RT_TL_NONE;) {
			const struct tl_evrec *o = tl_ev(b, x);
			if (o->ev.kind == RT_EV_RNR && (o->ev.flags & RT_EVF_TX) && b->ev_qp[x] == peer &&
			    o->ev.u.rnr.psn == e->ev.u.rnr.psn)
				sent = x;
		}
		if (sent != RT_TL_NONE)
			t = item_t(c, sent);
		else
			after = 1000000;
	}
	return t + unc < start || t > end + unc + after;
}

/* An engine's retry or RNR event i of QP q stands for what the capture
 * missed: there is no capture, it holds none of q's packets, or the event
 * came while it was not running.  Else the capture's packets tell. */
static bool capture_missed(struct dctx *c, uint32_t q, uint32_t i)
{
	return !c->b->have_capture || qp_uncaptured(c, q) || outside_capture(c, i);
}

/* For a finding from such events at time t, in a run whose capture holds
 * q's packets: which edge of the capture it fell beyond. */
static void capture_edge_words(struct dctx *c, uint32_t q, uint64_t t, struct text *out)
{
	if (c->b->have_capture && !qp_uncaptured(c, q))
		tx(out, "; the capture %s", t < capture_start(c->b) ? "had not started yet" : "had ended");
}

static bool psn_within(uint32_t psn, uint32_t first, uint32_t last)
{
	return rt_psn_diff(psn, first) >= 0 && rt_psn_diff(last, psn) >= 0;
}

/* The rounds that began before the capture did: the first requests of a
 * stream in the capture are the tail of a round its sender's engine traced
 * going back (a retry event before the capture's first frame whose PSN
 * range holds the round's first PSN and every request of the stream the
 * capture holds before it, all below it): a round no NAK started, which
 * goes on from where the capture began.  retry_events() makes their findings.
 * Per burst, 1 for such a round; NULL when there are none (no retry event
 * before the capture started, the usual case). */
static uint8_t *rounds_before_capture(struct dctx *c, const struct tl_vec *bursts)
{
	struct tl_build *b = c->b;
	size_t nq = b->qps.n;
	struct tl_vec early; /* retry events before the capture's first frame */
	tl_vec_init(&early, sizeof(uint32_t));
	for (size_t i = 0; i < tl_nev(b); i++) {
		const struct tl_evrec *e = tl_ev(b, i);
		if (e->ev.kind == RT_EV_RETRY && e->ev.u.retry.cause != RT_RETRY_RNR && outside_capture(c, (uint32_t)i) &&
		    item_t(c, (uint32_t)i) < capture_start(b) && tl_vec_push_u32(&early, (uint32_t)i) < 0)
			break;
	}
	uint8_t *before = early.n ? calloc(bursts->n + 1, 1) : NULL;
	uint32_t *first = before ? malloc((nq + 1) * sizeof(uint32_t)) : NULL; /* per stream: its first request */
	for (size_t q = 0; first && q <= nq; q++)
		first[q] = RT_TL_NONE;
	for (size_t i = 0; first && i < tl_npk(b); i++) {
		const struct tl_pk *k = tl_pk(b, i);
		if (k->is_request && k->recv_qp < nq && first[k->recv_qp] == RT_TL_NONE)
			first[k->recv_qp] = (uint32_t)i;
	}
	for (size_t x = 0; first && x < bursts->n; x++) {
		const struct burst *u = TL_AT(bursts, struct burst, x);
		if (u->stream >= nq || first[u->stream] == RT_TL_NONE)
			continue;
		for (size_t n = 0; n < early.n && !before[x]; n++) {
			uint32_t i = *TL_AT(&early, uint32_t, n);
			const struct rt_ev_retry *r = &tl_ev(b, i)->ev.u.retry;
			if (b->ev_qp[i] != u->requester || !psn_within(u->psn, r->first_psn, r->last_psn) ||
			    u->cause != RT_RETRY_ACK_TIMEOUT || u->trigger != RT_TL_NONE)
				continue; /* (a NAK's round is a round of its own) */
			/* the stream's requests captured before it are that round's, below it
			 * (the round went on; going back would be a new round) */
			bool tail = true;
			for (uint32_t j = first[u->stream]; j < u->first && tail; j++) {
				const struct tl_pk *k = tl_pk(b, j);
				tail = !k->is_request || k->recv_qp != u->stream ||
				       (psn_within(k->psn, r->first_psn, r->last_psn) && rt_psn_diff(k->psn, u->psn) < 0);
			}
			before[x] = tail;
		}
	}
	if (before && !first) {
		free(before); /* without memory: every round is the capture's */
		before = NULL;
	}
	free(first);
	tl_vec_free(&early);
	return before;
}

/* The WR -> packet links of packets found to be resends after the linking
 * (resent: packet item -> WR item) become retransmission links, in the
 * build's links and in the detectors' index of them. */
static void retype_resends(struct dctx *c, const struct tl_hash *resent)
{
	struct tl_build *b = c->b;
	if (!resent->n)
		return;
	for (size_t i = 0; i < b->links.n; i++) {
		struct tl_blink *l = TL_AT(&b->links, struct tl_blink, i);
		const uint32_t *wr = l->type == RT_TLL_PACKET ? tl_hash_get(resent, l->to) : NULL;
		if (wr && *wr == l->from)
			l->type = RT_TLL_RETRANS;
	}
	for (size_t h = 0; h < resent->cap; h++) {
		uint32_t pk = (uint32_t)resent->keys[h], wr = resent->vals[h];
		if (resent->keys[h] == UINT64_MAX || wr >= c->li.n)
			continue;
		for (uint32_t k = c->li.off[wr]; k < c->li.off[wr + 1]; k++)
			if (c->li.ls[k].to == pk && c->li.ls[k].type == RT_TLL_PACKET)
				c->li.ls[k].type = RT_TLL_RETRANS;
	}
}

/* A request whose first transmission never reached the capture and that no
 * later packet shows a PSN gap for: a latency test's READ or SEND lost on its
 * way out, one WR at a time (ib_read_lat on the VM lab under loss: the next
 * request appears an ACK timeout after its WR was posted).  The packet the
 * capture holds is then the ACK timer's resend: a traced RC WR's first
 * captured packet, at least half the QP's local ACK timeout after the post
 * (beyond the host clock's uncertainty), while the QP was idle (its request
 * before, if any, answered by a captured ACK or response before the post),
 * posted while the capture ran, is marked a retransmission round started by
 * the ACK timeout, as are the WR's packets that followed it.  Not with engine
 * packet events: an engine says which of its sends were resends. */
static void unseen_first_transmissions(struct dctx *c)
{
	struct tl_build *b = c->b;
	size_t nev = tl_nev(b), npk = tl_npk(b), nq = b->qps.n;
	if (!b->have_capture || b->engine_packets || !npk || b->pk_unordered)
		return; /* (out of order, the capture cannot be searched back by time) */
	uint32_t *prev = malloc((nq + 1) * sizeof(*prev)); /* per stream: its latest request so far */
	struct tl_hash resent;    /* packet item marked a resend -> its WR item */
	if (!prev || tl_hash_init(&resent, 16) < 0) {
		free(prev);
		return; /* a refinement: without memory the packets stay first transmissions */
	}
	for (size_t q = 0; q <= nq; q++)
		prev[q] = RT_TL_NONE;
	uint64_t t_start = capture_start(b);
	for (size_t i = 0; i < npk; i++) {
		struct tl_pk *k = tl_pk(b, i);
		if (!k->is_request || k->recv_qp >= nq)
			continue;
		uint32_t before = prev[k->recv_qp];
		prev[k->recv_qp] = (uint32_t)i;
		uint32_t q = k->send_qp, wr = k->wr;
		if (k->retrans || wr >= nev || q >= nq || tl_qp(b, q)->qp_type != 2)
			continue; /* not a packet of a traced RC WR */
		uint64_t half = tl_half_ack_timeout_ns(b, q);
		const struct rt_tl_host *h = tl_host(b, tl_ev(b, wr)->host);
		uint64_t t_post = item_t(c, wr), t_pk = item_t(c, tl_item_pk(b, i));
		if (!half || h->uncertainty_ns >= half || t_pk < t_post + half + h->uncertainty_ns || !t_start ||
		    t_post < t_start)
			continue;
		if (first_link(c, wr, RT_TLL_PACKET) != tl_item_pk(b, i))
			continue; /* not the WR's first captured packet (asked last: the rarest case is the costliest lookup) */
		if (before != RT_TL_NONE) {
			const struct tl_pk *o = tl_pk(b, before);
			if (o->answer == RT_TL_NONE || item_t(c, tl_item_pk(b, o->answer)) > t_post)
				continue; /* the QP was busy: the WR may have waited its turn */
		}
		/* nor did the sender's address send any other request meanwhile: a
		 * device busy with other QPs can hold a WR back that long (ib_write_bw
		 * -q 3 on the kernel's SoftRoCE under loss: 73 and 95 ms) */
		bool busy = false;
		for (size_t j = i; j-- > 0 && !busy;) {
			const struct tl_pk *o = tl_pk(b, j);
			if (item_t(c, tl_item_pk(b, (uint32_t)j)) < t_post)
				break;
			busy = o->is_request && o->src_ep == k->src_ep;
		}
		if (busy)
			continue;
		/* the resend: this packet and the WR's packets right after it */
		for (size_t j = i; j < npk; j++) {
			struct tl_pk *r = tl_pk(b, j);
			if (!r->is_request || r->recv_qp != k->recv_qp || r->wire_copy)
				continue;
			if (r->wr != wr || r->retrans)
				break;
			r->retrans = 1;
			r->retrans_cause = RT_RETRY_ACK_TIMEOUT;
			r->flags |= RT_TLF_RETRANS;
			if (tl_hash_put(&resent, tl_item_pk(b, j), wr) < 0)
				break; /* without memory the WR's link stays a first transmission's */
		}
		k->round_start = true;
		k->round_psn = k->psn;
	}
	free(prev);
	retype_resends(c, &resent);
	tl_hash_free(&resent);
}

/* The first transmission of psn on stream s, when it was lost before the capture: the first packet after the gap. */
static uint32_t gap_packet(struct tl_build *b, uint32_t s, uint32_t psn, uint32_t before)
{
	for (size_t j = before; j-- > 0 && before - j < 200000;) {
		struct tl_pk *p = tl_pk(b, j);
		if (p->is_request && p->recv_qp == s && p->ooo && !p->retrans && rt_psn_diff(p->psn, psn) > 0) {
			/* the earliest such packet of this gap */
			size_t g = j;
			for (size_t m = j; m-- > 0 && j - m < 200000;) {
				struct tl_pk *o = tl_pk(b, m);
				if (!o->is_request || o->recv_qp != s)
					continue;
				if (rt_psn_diff(o->psn, psn) >= 0 && !o->retrans)
					g = m;
				else
					break;
			}
			return (uint32_t)g;
		}
	}
	return RT_TL_NONE;
}

/* The request of stream s with PSN psn that came late (tl_pk.late: held back
 * on the way) after packet `after`, RT_TL_NONE. */
static uint32_t late_request(struct tl_build *b, uint32_t s, uint32_t psn, uint32_t after)
{
	for (size_t x = 0; x < b->lates.n; x++) {
		uint32_t i = *TL_AT(&b->lates, uint32_t, x);
		const struct tl_pk *k = tl_pk(b, i);
		if (i > after && k->recv_qp == s && k->psn == psn)
			return i;
	}
	return RT_TL_NONE;
}

/* Where the PSN a NAK PSN sequence error names (sent on stream s before packet
 * nak) was lost: *lastx, its latest transmission in the capture, when that was
 * lost after the capture point; otherwise *gapx, the first packet after the
 * place it should have had (its first transmission, or its resend in a later
 * round, never reached the capture point). */
static void nak_lost(struct tl_build *b, uint32_t s, uint32_t psn, uint32_t nak, uint32_t *lastx, uint32_t *gapx)
{
	uint32_t later = RT_TL_NONE;
	bool below = true; /* only PSNs before psn since the NAK: a round going back, sent after the
			    * one the NAK answered (an earlier NAK's), which had not reached psn yet */
	*lastx = *gapx = RT_TL_NONE;
	for (size_t j = nak; j-- > 0 && nak - j < 200000;) {
		struct tl_pk *p = tl_pk(b, j);
		if (!p->is_request || p->recv_qp != s || p->wire_copy)
			continue; /* (a copy made on the way: no round going back either) */
		int32_t d = rt_psn_diff(p->psn, psn);
		if (p->late && d != 0)
			continue; /* held back, after later PSNs: no round going back */
		/* a round went back to psn or before at `later` (the receiver still
		 * expected psn, so it was not acknowledged) and psn is not in it */
		if (later != RT_TL_NONE && *gapx == RT_TL_NONE && rt_psn_diff(p->psn, tl_pk(b, later)->psn) >= 0)
			*gapx = later;
		if (d == 0 && *gapx == RT_TL_NONE)
			*lastx = (uint32_t)j;
		if (d == 0)
			return;
		if (d < 0 && below)
			continue;
		if (d < 0) {
			if (*gapx == RT_TL_NONE)
				*gapx = later;
			return;
		}
		below = false;
		later = (uint32_t)j;
	}
}

/* Whether event i is QP q's engine sending a request with this PSN (a TX
 * packet event; responses the QP sent as a responder are not requests). */
static bool engine_request_send(struct tl_build *b, size_t i, uint32_t q, uint32_t psn)
{
	const struct rt_event *ev = &tl_ev(b, i)->ev;
	if (ev->kind != RT_EV_PACKET || !(ev->flags & RT_EVF_TX) || b->ev_qp[i] != q || ev->u.pkt.psn != psn)
		return false;
	const struct rt_opcode_info *op = rt_opcode_info(ev->u.pkt.opcode);
	return op && !tl_class_response(op->op_class);
}

/* The engine's latest send of a request with this PSN by QP q among the
 * events before index `from` that are also earlier than time t,
 * RT_TL_NONE when the engine did not trace it.  The reader returns events
 * in time order, so the walk back stops at the first match. */
static uint32_t engine_send_before(struct dctx *c, uint32_t q, uint32_t psn, size_t from, uint64_t t)
{
	for (size_t i = from; i-- > 0;)
		if (engine_request_send(c->b, i, q, psn) && item_t(c, (uint32_t)i) < t)
			return (uint32_t)i;
	return RT_TL_NONE;
}

/* Whether packet p is a response of class cls (READ response, atomic ACK)
 * that responder s sent. */
static bool response_from(const struct tl_pk *p, uint32_t s, uint8_t cls)
{
	return p->is_response && p->send_qp == s && p->op_class == cls;
}

/* The READ response with this PSN that responder s sent, searched from
 * packet `from` backwards down to `stop` (dir < 0) or forwards (dir > 0):
 * the one lost after the capture point before a re-request, or the one that
 * answered it; RT_TL_NONE.  Backwards, the search ends at the response just
 * before psn: one with psn further back came before the requester waited
 * for it (it was discarded as out of sequence then). */
static uint32_t read_response(struct tl_build *b, uint32_t s, uint32_t psn, uint32_t from, uint32_t stop, int dir,
			      uint8_t cls)
{
	size_t npk = tl_npk(b);
	for (size_t j = from, n = 0; n < 200000; n++) {
		if (dir < 0 ? j-- <= stop : ++j >= npk)
			break;
		const struct tl_pk *p = tl_pk(b, j);
		if (!response_from(p, s, cls))
			continue;
		if (p->psn == psn)
			return (uint32_t)j;
		if (dir < 0 && p->psn == rt_psn_add(psn, -1))
			break;
	}
	return RT_TL_NONE;
}

/* Whether packet p is a request of stream s that asks for the response with
 * this PSN. */
static bool request_covers(struct tl_build *b, const struct tl_pk *p, uint32_t s, uint32_t psn)
{
	int32_t d = rt_psn_diff(psn, p->psn);
	return p->is_request && p->recv_qp == s && d >= 0 && (uint32_t)d < tl_read_span_psns(b, p);
}

/* Whether a request of stream s between packets from and to asks for the
 * response with this PSN. */
static bool asked_between(struct tl_build *b, uint32_t s, uint32_t psn, uint32_t from, uint32_t to)
{
	for (uint32_t j = from + 1; j < to; j++)
		if (request_covers(b, tl_pk(b, j), s, psn))
			return true;
	return false;
}

/* Whether packet `a` was sent after packet `o` from the same address, by
 * their IPv4 identifications (a sender's counter: a few steps on). */
static bool ids_sent_after(struct tl_build *b, const struct tl_pk *a, const struct tl_pk *o)
{
	const struct tl_ep *src = a->src_ep < b->eps.n ? TL_AT(&b->eps, struct tl_ep, a->src_ep) : NULL;
	uint16_t d = (uint16_t)(a->ip_id - o->ip_id);
	return src && src->ver == 4 && a->src_ep == o->src_ep && d >= 1 && d <= 64;
}

/* The READ response with this PSN that responder s sent before the one of
 * the PSN before it (*follows), searched from packet `from` backwards down to
 * `stop`: the requester, still waiting for that one (held back), discarded
 * it as out of sequence; RT_TL_NONE.  Only when the responder's engine
 * traced that one as held back (tl_engine_held): the capture alone does not
 * tell a late response from the answer to a later request, and a response
 * of this PSN before it from an earlier request. */
static uint32_t read_response_early(struct tl_build *b, uint32_t s, uint32_t psn, uint32_t from, uint32_t stop,
				    uint8_t cls, uint32_t *follows)
{
	uint32_t prev = RT_TL_NONE; /* the nearest response of the PSN before, passed on the way back */
	for (uint32_t j = from, n = 0; j-- > stop && n < 200000; n++) {
		const struct tl_pk *p = tl_pk(b, j);
		if (!response_from(p, s, cls))
			continue;
		if (p->psn == rt_psn_add(psn, -1) && prev == RT_TL_NONE)
			prev = j;
		else if (p->psn == psn) {
			if (prev == RT_TL_NONE ||
			    (!tl_engine_held(b, tl_pk(b, prev)) && !ids_sent_after(b, p, tl_pk(b, prev))))
				return RT_TL_NONE;
			*follows = prev;
			return j;
		}
	}
	return RT_TL_NONE;
}

/* A request to QP s captured after request `lost` and before packet `to`,
 * with a PSN before lost's, that was sent before it: held back on the way
 * (tl_pk.late) or so numbered (IPv4 identifications, ids_sent_after).
 * `lost` overtook it, and the receiver, still waiting for that PSN, dropped
 * `lost` as out of sequence.  The first such; RT_TL_NONE. */
static uint32_t request_overtaken(struct tl_build *b, uint32_t s, uint32_t lost, uint32_t to)
{
	const struct tl_pk *k = tl_pk(b, lost);
	for (uint32_t j = lost + 1; j < to && j - lost < 4096; j++) {
		const struct tl_pk *p = tl_pk(b, j);
		if (!p->is_request || p->recv_qp != s || p->wire_copy || p->icrc == RT_ICRC_BAD ||
		    rt_psn_diff(p->psn, k->psn) >= 0)
			continue;
		if (p->late || ids_sent_after(b, k, p))
			return j;
	}
	return RT_TL_NONE;
}

/* The READ response with this PSN that responder s sent, captured after
 * the latest request covering it before packet `to` and before a response
 * of the PSN before it that was sent before it (*follows): the two were
 * reordered on the way, and the requester, still waiting for the earlier
 * PSN, dropped this one as out of sequence.  Sent before: by their IPv4
 * identifications (*by_ids), else because that request is the only one
 * that asked for the earlier PSN whose answer the capture does not hold
 * before it (the responder answers a request in PSN order).  RT_TL_NONE. */
static uint32_t read_response_overtaking(struct tl_build *b, uint32_t s, uint32_t psn, uint32_t to, uint32_t *follows,
					 bool *by_ids)
{
	uint32_t req = RT_TL_NONE, ahead = RT_TL_NONE, behind = RT_TL_NONE;
	uint32_t before = rt_psn_add(psn, -1);
	for (uint32_t j = to, n = 0; j-- > 0 && n < 4096; n++) {
		const struct tl_pk *p = tl_pk(b, j);
		if (request_covers(b, p, s, psn)) {
			req = j;
			break;
		}
		if (!response_from(p, s, RT_CLASS_READ_RESP) || p->icrc == RT_ICRC_BAD)
			continue;
		if (p->psn == before)
			behind = j; /* (the earliest after the request, as the walk goes back) */
		else if (p->psn == psn)
			ahead = j;
	}
	if (req == RT_TL_NONE || ahead == RT_TL_NONE || behind == RT_TL_NONE || behind < ahead ||
	    !request_covers(b, tl_pk(b, req), s, before))
		return RT_TL_NONE;
	*by_ids = ids_sent_after(b, tl_pk(b, ahead), tl_pk(b, behind));
	if (!*by_ids) {
		/* the earlier requests for that PSN, each answered before this one */
		unsigned asked = 0, answered = 0;
		for (uint32_t j = req, n = 0; j-- > 0 && n < 4096; n++) {
			const struct tl_pk *p = tl_pk(b, j);
			asked += request_covers(b, p, s, before);
			answered += response_from(p, s, RT_CLASS_READ_RESP) && p->psn == before;
		}
		if (asked != answered)
			return RT_TL_NONE;
	}
	*follows = behind;
	return ahead;
}

/* The response with this PSN that the requester saw missing and asked for
 * again in request `first` came late, after that request: each request
 * covering the PSN asks for one response of it, and from the READ's first
 * request (`from`) to `first` the capture holds fewer than were asked for
 * (the missing one still to come; a responder asked again while it
 * answered drops what it had left to send of the earlier request, so more
 * may be missing), and after `first`, before the next request for it, two:
 * the answer to `first` and the late one, in either order (*c1, *c2, set
 * only then).  Returns how many responses of it were missing at `first`
 * (1: only the late one), 0 when no late one is found.  A copy right after another of the same PSN (made
 * on the way) is not counted, unless the responder's engine traced one of the
 * two as held back (tl_engine_held).  The copies are looked for among the
 * READ_LATE_SPAN packets after `first` (a copy held back longer is not
 * found: each finding's search stays short in a storm of them). */
#define READ_LATE_SPAN 16384
static unsigned read_response_late(struct tl_build *b, uint32_t s, uint32_t psn, uint32_t from, uint32_t first,
				   uint8_t cls, uint32_t *c1, uint32_t *c2)
{
	size_t npk = tl_npk(b);
	int64_t owed = 0;   /* responses of psn asked for and not captured yet */
	int64_t missing = 0; /* owed at `first` */
	uint32_t prev = RT_TL_NONE; /* the responder's previous response PSN */
	bool prev_held = false;     /* and whether its engine held that one back */
	uint32_t first_copy = RT_TL_NONE; /* after `first` */
	if (from == RT_TL_NONE || from > first || first - from > 200000)
		return 0;
	for (size_t j = from; j < npk && j <= (size_t)first + READ_LATE_SPAN; j++) {
		const struct tl_pk *p = tl_pk(b, j);
		if (j == first && (missing = owed) < 1)
			return 0;
		if (request_covers(b, p, s, psn)) {
			if (j > first)
				return 0;
			owed++;
			continue;
		}
		if (!response_from(p, s, cls))
			continue;
		/* (two sends of it, one held back by its engine, are no copy) */
		bool held = tl_engine_held(b, p);
		if (p->psn == psn && (prev != psn || held || prev_held)) {
			if (j < first)
				owed--;
			else if (first_copy == RT_TL_NONE)
				first_copy = (uint32_t)j;
			else {
				*c1 = first_copy;
				*c2 = (uint32_t)j;
				return (unsigned)(missing < 1000 ? missing : 1000);
			}
		}
		prev = p->psn;
		prev_held = held;
	}
	return 0;
}

/* What started a round (tl_pk.trigger), for the evidence. */
static const char *trigger_name(const struct tl_pk *tr)
{
	return tr->aeth_type == RT_AETH_RNR_NAK ? "RNR NAK" : tr->aeth_type == RT_AETH_NAK ? "NAK" : "response gap";
}

/* The first packet of the round of stream s that started last before
 * packet `before` (RT_TL_NONE): the retry a NAK came during. */
static uint32_t round_before(struct tl_build *b, uint32_t s, uint32_t before)
{
	for (uint32_t j = before, n = 0; j-- > 0 && n < 200000; n++) {
		const struct tl_pk *p = tl_pk(b, j);
		if (p->round_start && p->recv_qp == s)
			return j;
	}
	return RT_TL_NONE;
}

/* Whether the QP's process used the kernel's SoftRoCE. */
static bool qp_on_rxe(struct dctx *c, uint32_t q)
{
	return q < c->b->qps.n && (proc_flags(c, tl_qp(c->b, q)->proc) & PF_RXE);
}

/* Whether packet o is a request of the stream request k is on: from the
 * same sending QP to the same receiving QP. */
static bool same_request_stream(const struct tl_pk *o, const struct tl_pk *k)
{
	return o->is_request && o->recv_qp == k->recv_qp && o->send_qp == k->send_qp && o->dqpn == k->dqpn;
}

/* The packet of PSN psn that round-starting request first's round sent and
 * that passed the capture point after later PSNs of it (tl_pk.late: held
 * back on the way), before the stream's next round (among the 4096 packets
 * after first); RT_TL_NONE: none, the round's resend of psn is not in the
 * capture. */
static uint32_t late_in_round(struct tl_build *b, uint32_t first, uint32_t psn)
{
	const struct tl_pk *k0 = tl_pk(b, first);
	for (uint32_t j = first + 1; j < tl_npk(b) && j - first <= 4096; j++) {
		const struct tl_pk *o = tl_pk(b, j);
		if (!same_request_stream(o, k0))
			continue;
		if (o->round_start)
			break;
		if (o->psn == psn && o->late)
			return j;
	}
	return RT_TL_NONE;
}

/* The latest response that acknowledged PSN psn of the stream of
 * round-starting request first, captured before it (among the 4096 packets
 * before): an ACK of psn or later, or any response with a bad ICRC (a NAK
 * past it, which acknowledges it too, the Go-Back-N finding names as its
 * trigger; READ responses a requester may have discarded, out of
 * sequence).  The requester never took it (a bad ICRC made it drop it, or
 * it was lost after the capture point), and resent what it covered.
 * RT_TL_NONE: none. */
static uint32_t untaken_ack(struct tl_build *b, uint32_t first, uint32_t psn)
{
	const struct tl_pk *k0 = tl_pk(b, first);
	for (uint32_t j = first, n = 0; j-- > 0 && n < 4096; n++) {
		const struct tl_pk *o = tl_pk(b, j);
		if (!o->is_response || o->send_qp != k0->recv_qp || o->send_qp == RT_TL_NONE)
			continue;
		bool ack = o->op_class == RT_CLASS_ACK && o->aeth_type == RT_AETH_ACK;
		if ((o->icrc == RT_ICRC_BAD || ack) && rt_psn_diff(o->psn, psn) >= 0)
			return j; /* (a damaged one's AETH may be damaged too) */
	}
	return RT_TL_NONE;
}

/* The latest transmission before round-starting request first, on its
 * stream (among the 4096 packets before), of a PSN of the round's n from
 * its first, psn, that asked for an ACK (AckReq) and had a bad ICRC: the
 * receiver dropped it, and sent no ACK for what it had received before it
 * (a responder acknowledges when a request asks it to).  RT_TL_NONE: none. */
static uint32_t damaged_ackreq(struct tl_build *b, uint32_t first, uint32_t psn, uint32_t n)
{
	const struct tl_pk *k0 = tl_pk(b, first);
	for (uint32_t j = first, m = 0; j-- > 0 && m < 4096; m++) {
		const struct tl_pk *o = tl_pk(b, j);
		if (!same_request_stream(o, k0))
			continue;
		int32_t d = rt_psn_diff(o->psn, psn);
		if (o->ackreq && o->icrc == RT_ICRC_BAD && d >= 0 && (uint32_t)d < n)
			return j;
		if (d < 0)
			break; /* below the round: an earlier round's, or before them all */
	}
	return RT_TL_NONE;
}

/* The event of QP q's engine dropping captured packet j (same PSN and
 * opcode; not for a bad ICRC when the capture's copy had a good one) as it
 * arrived: the one nearest the capture's time for it, from 1 ms before to
 * 10 ms after (an engine on a loaded machine reads a packet milliseconds
 * after the capture saw it), widened by the uncertainty of its host's clock
 * (at most 10 ms), or RT_TL_NONE when none was traced. */
static uint32_t traced_rx_drop(struct dctx *c, uint32_t q, uint32_t j)
{
	struct tl_build *b = c->b;
	const struct tl_pk *k = tl_pk(b, j);
	uint64_t t = item_t(c, tl_item_pk(b, j));
	uint32_t best = RT_TL_NONE;
	uint64_t best_d = UINT64_MAX;
	for (size_t x = 0; q != RT_TL_NONE && x < b->drops.n; x++) {
		uint32_t i = *TL_AT(&b->drops, uint32_t, x);
		const struct tl_evrec *e = tl_ev(b, i);
		const struct rt_event *ev = &e->ev;
		if ((ev->flags & RT_EVF_TX) || b->ev_qp[i] != q || ev->u.pkt.psn != k->psn || ev->u.pkt.opcode != k->opcode)
			continue;
		if (ev->u.pkt.drop_reason == RT_PKT_DROP_BAD_ICRC && k->icrc == RT_ICRC_GOOD)
			continue; /* the capture's copy was intact: another copy was damaged */
		uint64_t unc = e->host < b->hosts.n ? tl_host(b, e->host)->uncertainty_ns : UINT64_MAX;
		if (unc > 10000000ull)
			unc = 10000000ull;
		uint64_t ti = item_t(c, i), d = ti > t ? ti - t : t - ti;
		if (d <= (ti > t ? 10000000ull : 1000000ull) + unc && d < best_d) {
			best = i;
			best_d = d;
		}
	}
	return best;
}

/* The receiving engine's record of packet j arriving whole, neither dropped
 * nor taken for a duplicate (the EVENT links engine_match made),
 * RT_TL_NONE. */
static uint32_t traced_rx_taken(struct dctx *c, uint32_t j)
{
	struct tl_build *b = c->b;
	const struct tl_link_index *li = &c->li;
	uint32_t item = tl_item_pk(b, j);
	if (item >= li->n)
		return RT_TL_NONE;
	for (uint32_t L = li->off[item]; L < li->off[item + 1]; L++) {
		const struct tl_ilink *l = &li->ls[L];
		if (l->type != RT_TLL_EVENT || l->to >= tl_nev(b))
			continue;
		const struct rt_event *ev = &tl_ev(b, l->to)->ev;
		if (ev->kind == RT_EV_PACKET && !(ev->flags & RT_EVF_TX) &&
		    !(ev->u.pkt.flags & (RT_PKTF_DROPPED | RT_PKTF_DUPLICATE)))
			return l->to;
	}
	return RT_TL_NONE;
}

/* The responder's engine's records of request j arriving whole
 * (traced_rx_taken, *rx) and of NAK packet nak (*ne), one engine on one
 * clock: 1 when it traced j arriving before it sent the NAK, 0 after, -1
 * when it did not trace both. */
static int rx_before_nak(struct dctx *c, uint32_t j, uint32_t nak, uint32_t *rx, uint32_t *ne)
{
	struct tl_build *b = c->b;
	*rx = traced_rx_taken(c, j);
	*ne = tl_pk(b, nak)->event;
	if (*rx == RT_TL_NONE || *ne >= tl_nev(b))
		return -1;
	const struct tl_evrec *r = tl_ev(b, *rx), *n = tl_ev(b, *ne);
	if (n->ev.kind != RT_EV_PACKET || !(n->ev.flags & RT_EVF_TX) || n->host != r->host || n->proc != r->proc)
		return -1;
	return n->raw_ns >= r->raw_ns;
}

/* Whether packet k was held back, by its sending engine or on the way
 * (held_where says which). */
static bool pk_held_back(struct tl_build *b, uint32_t k)
{
	return tl_pk(b, k)->late || tl_engine_held(b, tl_pk(b, k));
}

/* Request j of stream s, whose PSN the receiver NAKed later (at packet
 * nak, not held back: made as it left) although its engine traced it
 * arriving before (rx_before_nak): the receiver was then still waiting for
 * an earlier PSN, so it discarded j as out of sequence (a receiver's
 * expected PSN only grows: had it taken j, it could not ask for j's PSN
 * again).  The request of the lowest PSN before
 * j's captured between the two, the one it waited for: of those held back
 * (pk_held_back) when some were, as the one the receiver waited for is (a
 * round going back, sent after it, may come between too); RT_TL_NONE. */
static uint32_t awaited_request(struct tl_build *b, uint32_t s, uint32_t j, uint32_t nak)
{
	uint32_t best = RT_TL_NONE;
	bool best_held = false;
	uint32_t psn = tl_pk(b, j)->psn;
	for (uint32_t i = j + 1; i < nak && i - j < 200000; i++) {
		const struct tl_pk *o = tl_pk(b, i);
		if (!o->is_request || o->is_cm || o->recv_qp != s || o->dup || rt_psn_diff(o->psn, psn) >= 0)
			continue;
		bool held = pk_held_back(b, i);
		if (best == RT_TL_NONE || (held && !best_held) ||
		    (held == best_held && rt_psn_diff(o->psn, tl_pk(b, best)->psn) < 0)) {
			best = i;
			best_held = held;
		}
	}
	return best;
}

/* Whether awaited_request found a request held back: the receiver then
 * discarded j while it waited for that one, whatever became of its NAK. */
static bool awaited_held(struct tl_build *b, uint32_t s, uint32_t j, uint32_t nak)
{
	uint32_t w = awaited_request(b, s, j, nak);
	return w != RT_TL_NONE && pk_held_back(b, w);
}

/* The first captured packet at or after time t (packets are in capture order). */
static uint32_t pk_at(struct dctx *c, uint64_t t)
{
	size_t lo = 0, hi = tl_npk(c->b);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (item_t(c, tl_item_pk(c->b, (uint32_t)mid)) < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (uint32_t)lo;
}

/* Whether packet event ev is a NAK PSN sequence error. */
static bool is_seq_nak(const struct rt_event *ev)
{
	const struct rt_opcode_info *oi = rt_opcode_info(ev->u.pkt.opcode);
	return oi && oi->op_class == RT_CLASS_ACK && rt_aeth_type(ev->u.pkt.syndrome) == RT_AETH_NAK &&
	       rt_aeth_value(ev->u.pkt.syndrome) == RT_NAK_PSN_SEQ_ERROR;
}

/* Whether QP q's engine dropped, as it sent it, a NAK PSN sequence error of
 * PSN psn from 1 ms before t0 (the two traces' clocks) to t1. */
static bool seq_nak_dropped(struct dctx *c, uint32_t q, uint32_t psn, uint64_t t0, uint64_t t1)
{
	struct tl_build *b = c->b;
	for (size_t x = 0; x < b->drops.n; x++) {
		uint32_t j = *TL_AT(&b->drops, uint32_t, x);
		const struct rt_event *n = &tl_ev(b, j)->ev;
		if ((n->flags & RT_EVF_TX) && b->ev_qp[j] == q && n->u.pkt.psn == psn && is_seq_nak(n) &&
		    item_t(c, j) + 1000000 >= t0 && item_t(c, j) <= t1)
			return true;
	}
	return false;
}

/* Whether event x is a retry (RT_EV_RETRY) of event i's QP, in i's trace. */
static bool retry_of_qp(struct tl_build *b, uint32_t x, uint32_t i)
{
	const struct tl_evrec *e = tl_ev(b, x), *d = tl_ev(b, i);
	return e->proc == d->proc && e->host == d->host && e->ev.kind == RT_EV_RETRY && b->ev_qp[x] == b->ev_qp[i];
}

/* Whether the engine's drop (event i, as it sent it) is of the first packet
 * of a resend after a NAK PSN sequence error, of the PSN that NAK named: the
 * receiver, which NAKs a gap once and then waits for the PSN it NAKed, is
 * silent until that PSN comes (its engine's latest retry of that QP before
 * the drop, within 65536 records, went back to it after a NAK). */
static bool nak_resend_dropped(struct tl_build *b, uint32_t i)
{
	const struct tl_evrec *d = tl_ev(b, i);
	if (!(d->ev.u.pkt.flags & RT_PKTF_RETRANS))
		return false;
	for (uint32_t x = i, n = 0; x-- > 0 && n < 65536; n++)
		if (retry_of_qp(b, x, i))
			return tl_ev(b, x)->ev.u.retry.cause == RT_RETRY_NAK_SEQ &&
			       tl_ev(b, x)->ev.u.retry.first_psn == d->ev.u.pkt.psn;
	return false;
}

/* Whether the engine traced event z after event a, in a's trace, with no
 * retry of a's QP between: both of one transmission round. */
static bool same_round_events(struct tl_build *b, uint32_t a, uint32_t z)
{
	if (a == RT_TL_NONE || z == RT_TL_NONE || z >= tl_nev(b) || z <= a || z - a > 65536)
		return false;
	for (uint32_t x = a + 1; x < z; x++)
		if (retry_of_qp(b, x, a))
			return false;
	return tl_ev(b, z)->proc == tl_ev(b, a)->proc && tl_ev(b, z)->host == tl_ev(b, a)->host;
}

/* Whether captured request o, which the capture has starting a round, is
 * a later packet of the same resend as the engine's dropped one (event i).
 * The capture then starts the round at o only because the round's first
 * packet never left. */
static bool same_resend(struct tl_build *b, uint32_t i, const struct tl_pk *o)
{
	return same_round_events(b, i, o->event);
}

/* Whether an engine's drop (event i, as it sent it) of a packet between
 * the two QPs of request k0's stream was what the requester's ACK timer
 * went off for: after it, the capture holds (within 65536 packets) a round
 * the ACK timer started, going back to its PSN or an earlier one, at least
 * half the ACK timeout later (1 ms when it is unknown), before anything that
 * answered the sender for it (an answer to its PSN or a later one: a NAK of
 * the gap, a READ response past it) or another round.  Earlier PSNs'
 * packets of the same round and their answers may come between: a sender
 * batches its sends, and the engine traces a packet as it queues it.  After
 * a dropped resend of the PSN a NAK named (nak_resend_dropped), later
 * requests may come between too: the receiver NAKs a gap once and then
 * waits for the PSN it NAKed, so they show it nothing new (ib_read_bw -q 4
 * on uroce under loss: a resend after a NAK dropped, 6 later READ requests,
 * then the ACK timer), and the NAK of that PSN is the one the resend
 * answered; else a later request shows the receiver the gap. */
static bool drop_timed_out(struct dctx *c, const struct tl_pk *k0, uint32_t i)
{
	struct tl_build *b = c->b;
	uint32_t psn = tl_ev(b, i)->ev.u.pkt.psn;
	uint64_t t = item_t(c, i), half = tl_half_ack_timeout_ns(b, k0->send_qp);
	uint64_t later = t + (half ? half : 1000000);
	/* the receiver is silent, waiting for psn: after a dropped resend of the PSN
	 * it NAKed, after its own NAK of it (dropped as it was sent: this drop is
	 * that NAK's, or one after this request's drop: seq_nak_dropped, asked when a
	 * later request would end the walk) */
	bool silent = nak_resend_dropped(b, i) || is_seq_nak(&tl_ev(b, i)->ev);
	bool asked = silent;
	for (uint32_t j = pk_at(c, t), n = 0; j < tl_npk(b) && n < 65536; j++, n++) {
		const struct tl_pk *o = tl_pk(b, j);
		bool req = o->is_request && o->send_qp == k0->send_qp && o->recv_qp == k0->recv_qp;
		bool resp = o->is_response && o->send_qp == k0->recv_qp && o->recv_qp == k0->send_qp;
		bool earlier = rt_psn_diff(o->psn, psn) < 0;
		if (!req && !resp)
			continue;
		if (req && o->round_start && (earlier || o->psn == psn) &&
		    (o->retrans_cause == RT_RETRY_ACK_TIMEOUT || !o->retrans_cause))
			return item_t(c, tl_item_pk(b, j)) >= later;
		if (silent && req && o->round_start && !earlier && same_resend(b, i, o))
			continue; /* (the dropped resend's own round, as captured without it) */
		if (req && o->round_start && earlier && same_round_events(b, o->event, i))
			continue; /* (the round the drop was a later packet of: its engine traced the
				   * drop as it queued it, before the capture saw the round's first
				   * packet leave) */
		if (silent && resp && o->psn == psn && tl_pk_seq_nak(o))
			continue; /* (the NAK the resend answered: the times of the engine's trace and the
				   * capture's may put it after the drop by their uncertainty) */
		if (!earlier && req && !asked) {
			asked = true;
			silent = b->ev_qp[i] == k0->send_qp && seq_nak_dropped(c, k0->recv_qp, psn, t, later);
		}
		if ((!earlier && (resp || !silent)) || (req && o->round_start))
			return false;
	}
	return false;
}

/* The drops, as the engines sent them, that kept an answer away from the
 * round starting with request k0 (PSN psn, the oldest unacknowledged) from
 * t0 to t1, each followed by an ACK timeout (drop_timed_out): the
 * requester's engine's of a request of psn or later (of the lowest such
 * PSN: the receiver takes none after it before it), the responder's of a
 * response (an ACK, a NAK PSN sequence error, not another NAK: its finding
 * tells; a READ response, an atomic ACK) of such a PSN.  The first max of
 * them, in time order, into out; how many that is. */
static unsigned round_tx_drops(struct dctx *c, const struct tl_pk *k0, uint32_t psn, uint64_t t0, uint64_t t1,
                               uint32_t *out, unsigned max)
{
	struct tl_build *b = c->b;
	unsigned n = 0;
	int32_t low = INT32_MAX; /* the lowest request PSN dropped, from psn */
	for (size_t x = 0; k0->send_qp != RT_TL_NONE && x < b->drops.n; x++) {
		uint32_t i = *TL_AT(&b->drops, uint32_t, x);
		const struct rt_event *ev = &tl_ev(b, i)->ev;
		const struct rt_opcode_info *oi = rt_opcode_info(ev->u.pkt.opcode);
		int32_t d = rt_psn_diff(ev->u.pkt.psn, psn);
		uint64_t t = item_t(c, i);
		if (!(ev->flags & RT_EVF_TX) || !oi || d < 0 || d >= 4096 || t < t0 || t > t1)
			continue;
		bool request = b->ev_qp[i] == k0->send_qp && !tl_class_response(oi->op_class);
		bool response = b->ev_qp[i] == k0->recv_qp && tl_class_response(oi->op_class) &&
				(oi->op_class != RT_CLASS_ACK || rt_aeth_type(ev->u.pkt.syndrome) == RT_AETH_ACK ||
				 is_seq_nak(ev));
		if ((!request && !response) || (request && d > low) || !drop_timed_out(c, k0, i))
			continue;
		if (request && d < low) { /* (the ones of higher PSNs kept so far fall off) */
			unsigned m = 0;
			for (unsigned y = 0; y < n; y++)
				if (b->ev_qp[out[y]] != k0->send_qp || rt_psn_diff(tl_ev(b, out[y])->ev.u.pkt.psn, psn) <= d)
					out[m++] = out[y];
			n = m;
			low = d;
		}
		unsigned at = n < max ? n++ : max; /* (insertion by time; past max, the latest falls off) */
		while (at > 0 && item_t(c, out[at - 1]) > t) {
			if (at < max)
				out[at] = out[at - 1];
			at--;
		}
		if (at < max)
			out[at] = i;
	}
	return n;
}

/* Whether engine drop i (of b->drops) is QP q's engine's, as it sent it,
 * of a request (a response, when response is set) of PSN psn from t0 to t1. */
static bool sent_drop_of(struct dctx *c, uint32_t i, uint32_t q, uint32_t psn, bool response, uint64_t t0,
                         uint64_t t1)
{
	struct tl_build *b = c->b;
	const struct rt_event *ev = &tl_ev(b, i)->ev;
	const struct rt_opcode_info *oi = rt_opcode_info(ev->u.pkt.opcode);
	uint64_t t = item_t(c, i);
	return (ev->flags & RT_EVF_TX) && b->ev_qp[i] == q && ev->u.pkt.psn == psn && oi &&
	       tl_class_response(oi->op_class) == response && t >= t0 && t <= t1;
}

/* QP q's engine's first drop (its last, when latest is set), as it sent
 * it, of a request (a response, when response is set) of PSN psn from t0
 * to t1, or RT_TL_NONE. */
static uint32_t sent_drop(struct dctx *c, uint32_t q, uint32_t psn, bool response, uint64_t t0, uint64_t t1,
                          bool latest)
{
	struct tl_build *b = c->b;
	uint32_t best = RT_TL_NONE;
	for (size_t x = 0; q != RT_TL_NONE && x < b->drops.n; x++) {
		uint32_t i = *TL_AT(&b->drops, uint32_t, x);
		if (sent_drop_of(c, i, q, psn, response, t0, t1) &&
		    (best == RT_TL_NONE || (latest ? item_t(c, i) >= item_t(c, best) : item_t(c, i) < item_t(c, best))))
			best = i;
	}
	return best;
}

/* How many such drops (sent_drop) QP q's engine traced. */
static unsigned sent_drops(struct dctx *c, uint32_t q, uint32_t psn, bool response, uint64_t t0, uint64_t t1)
{
	struct tl_build *b = c->b;
	unsigned n = 0;
	for (size_t x = 0; q != RT_TL_NONE && x < b->drops.n; x++)
		n += sent_drop_of(c, *TL_AT(&b->drops, uint32_t, x), q, psn, response, t0, t1);
	return n;
}

/* The engine's drop, as it sent it, of PSN psn of captured packet k's
 * stream (a request's, or a response's: k the response that showed a READ
 * response gap), when its trace has it as the last send of that PSN before
 * its record of sending k: an engine traces a send as it makes it, which
 * may be well before the capture sees it (a busy uroce engine, ib_write_bw
 * -q 4 under loss, traced a drop 1.27 ms before the capture saw the packets
 * on either side of it; one that holds its packets back, a `delay` rule,
 * traces a drop at once and the packets around it as they leave), so the
 * time window of sent_drop may miss it.  RT_TL_NONE when that last send was
 * not a drop, or none is near, or k is not matched to its engine's record. */
static uint32_t drop_before_send(struct dctx *c, const struct tl_pk *k, uint32_t psn)
{
	struct tl_build *b = c->b;
	if (k->event == RT_TL_NONE || k->event >= tl_nev(b))
		return RT_TL_NONE;
	const struct tl_evrec *ke = tl_ev(b, k->event);
	uint32_t q = b->ev_qp[k->event];
	for (uint32_t i = k->event, n = 0; i-- > 0 && n < 65536; n++) {
		const struct tl_evrec *e = tl_ev(b, i);
		if (e->proc != ke->proc || e->host != ke->host || e->ev.kind != RT_EV_PACKET || !(e->ev.flags & RT_EVF_TX) ||
		    b->ev_qp[i] != q || e->ev.u.pkt.psn != psn)
			continue;
		return (e->ev.u.pkt.flags & RT_PKTF_DROPPED) ? i : RT_TL_NONE;
	}
	return RT_TL_NONE;
}

/* An engine's drop i, as it sent it, of a packet of request k0's stream, as
 * evidence: whose, which PSN, when. */
static void sent_drop_evidence(struct dctx *c, const struct tl_pk *k0, uint32_t i, struct text *e)
{
	struct tl_build *b = c->b;
	tx(e, ", %s engine's drop of PSN 0x%06x at %.6f s", b->ev_qp[i] == k0->send_qp ? "requester" : "responder",
	   tl_ev(b, i)->ev.u.pkt.psn, (double)item_t(c, i) / 1e9);
}

/* What a response an engine dropped as it sent it was, after "its ". */
static const char *response_words(const struct rt_event *ev)
{
	const struct rt_opcode_info *oi = rt_opcode_info(ev->u.pkt.opcode);
	if (oi && oi->op_class == RT_CLASS_READ_RESP)
		return "READ response";
	if (oi && oi->op_class == RT_CLASS_ATOMIC_ACK)
		return "atomic ACK";
	if (is_seq_nak(ev))
		return "NAK (PSN sequence error)";
	return "ACK";
}

/* A READ response or atomic ACK for the READ or atomic request k (the first
 * packet of a round, index first) that the capture holds before the round
 * and the requester's engine traced dropping on arrival: that drop event,
 * the response in *resp; RT_TL_NONE when none (looked for among the 4096
 * packets before the round). */
static uint32_t response_rx_drop(struct dctx *c, const struct tl_pk *k, uint32_t first, uint32_t *resp)
{
	struct tl_build *b = c->b;
	for (uint32_t j = first, n = 0; j-- > 0 && n < 4096; n++) {
		const struct tl_pk *o = tl_pk(b, j);
		/* (a READ's responses: one a PSN, at most one per 256 bytes, the smallest MTU) */
		int32_t after = rt_psn_diff(o->psn, k->psn);
		if (!o->is_response || o->recv_qp != k->send_qp || o->recv_qp == RT_TL_NONE || after < 0 ||
		    (o->op_class == RT_CLASS_ATOMIC_ACK ? after != 0
		     : o->op_class != RT_CLASS_READ_RESP || (uint64_t)after > k->reth_len / 256))
			continue;
		uint32_t d = traced_rx_drop(c, k->send_qp, j);
		if (d != RT_TL_NONE) {
			*resp = j;
			return d;
		}
	}
	return RT_TL_NONE;
}

/* What RT_PKT_DROP_BUSY means, after "dropped it while". */
#define DROP_BUSY_WORDS                                                                                      \
	"the engine context owning its QP was busy with too many packets waiting for it (uroce keeps up to " \
	"1,024 packets one context of a process read for another whose lock is held, and drops more)"

/* Why an engine dropped a packet, as words after "dropped it": " (injected
 * loss)", " (a bad ICRC)", " while ... was busy" or "". */
static const char *drop_reason_words(const struct tl_evrec *drop)
{
	unsigned why = drop->ev.u.pkt.drop_reason;
	return why == RT_PKT_DROP_INJECTED ? " (injected loss)"
	       : why == RT_PKT_DROP_BAD_ICRC ? " (a bad ICRC)"
	       : why == RT_PKT_DROP_BUSY     ? " while " DROP_BUSY_WORDS
					     : "";
}

/* A round request k0's engine traced as a retry after a NAK or an implied
 * NAK (cause), which the capture does not show: the drop, as an engine sent
 * it, that made the gap, told after the text ("; the responder's engine had
 * dropped its READ response of PSN ..."): the latest of PSN psn within twice
 * the ACK timeout before the round's first packet (t_first), the
 * requester's engine's of a request after a NAK, the responder's of a
 * response after an implied NAK.  RT_TL_NONE (nothing told) when there is
 * none, or the cause is another. */
static uint32_t retry_drop(struct dctx *c, const struct tl_pk *k0, uint32_t psn, uint8_t cause, uint64_t t_first,
                           struct text *t)
{
	struct tl_build *b = c->b;
	if (cause != RT_RETRY_IMPLIED_NAK && cause != RT_RETRY_NAK_SEQ)
		return RT_TL_NONE;
	bool implied = cause == RT_RETRY_IMPLIED_NAK;
	uint64_t half = tl_half_ack_timeout_ns(b, k0->send_qp);
	uint64_t span = half ? 4 * half : 1000000000ull, from = t_first > span ? t_first - span : 0;
	uint32_t d = sent_drop(c, implied ? k0->recv_qp : k0->send_qp, psn, implied, from, t_first, true);
	if (d != RT_TL_NONE && implied)
		tx(t, "; the responder's engine had dropped its %s of PSN 0x%06x as it sent it%s: the requester never got it",
		   response_words(&tl_ev(b, d)->ev), psn, drop_reason_words(tl_ev(b, d)));
	else if (d != RT_TL_NONE)
		tx(t, "; the sender's engine had dropped PSN 0x%06x as it sent it%s: the receiver never got it", psn,
		   drop_reason_words(tl_ev(b, d)));
	return d;
}

/* Where late packet k was held back, in words after "held back": by its
 * sending engine (a fault rule, tl_engine_held) or on the way (reordered). */
static const char *held_where(struct tl_build *b, uint32_t k)
{
	return tl_engine_held(b, tl_pk(b, k)) ? "by the engine that sent it (injected delay or reordering)"
					      : "on the way (reordered)";
}

/* Whether the sender of round k0 took its trigger (the NAK or response
 * gap, packet `trigger`) whole, as its engine traced, and then sent no
 * request of PSN psn in the first half of the time to the round (time
 * t_round): it did not act on it.  The walk starts at the engine's record
 * of the trigger (events are in time order). */
static bool trigger_ignored(struct dctx *c, const struct tl_pk *k0, uint32_t trigger, uint32_t psn, uint64_t t_round)
{
	struct tl_build *b = c->b;
	uint32_t taken = traced_rx_taken(c, trigger);
	if (taken == RT_TL_NONE || b->ev_qp[taken] != k0->send_qp)
		return false;
	uint64_t t_tr = item_t(c, taken);
	if (t_round <= t_tr)
		return false;
	uint64_t until = t_tr + (t_round - t_tr) / 2;
	for (size_t i = taken + 1; i < tl_nev(b) && item_t(c, (uint32_t)i) < until; i++)
		if (engine_request_send(b, i, k0->send_qp, psn))
			return false;
	return true;
}

/* What a sender whose engine took a NAK or response gap and did not act on
 * it did (trigger_ignored). */
static void ignored_words(bool rd, const char *what, struct text *t)
{
	tx(t, ": the %s's engine took that %s (its trace) and %s nothing until its ACK timer went off (a sender "
	      "goes back once until an answer moves it on: uroce, as the kernel's SoftRoCE, starts no second retry "
	      "before)",
	   rd ? "requester" : "sender", what, rd ? "asked for" : "resent");
}

/* An ACK-timeout round after a trigger whose own resend never reached the
 * capture (tl_pk.trigger): what that trigger should have brought, and when;
 * or, for a NAK that came while the sender's previous round was not yet
 * acknowledged, that the sender did not act on it (tl_pk.trigger_in_retry).
 * resend_drop: the sender's engine's drop, as it sent it, of that resend
 * (RT_TL_NONE none). */
static void missed_trigger_words(struct dctx *c, const struct tl_pk *k0, uint64_t t_round, uint32_t resend_drop,
                                 struct text *t)
{
	struct tl_build *b = c->b;
	uint32_t trigger = k0->trigger;
	const struct tl_pk *tr = tl_pk(b, trigger);
	uint64_t t_tr = item_t(c, tl_item_pk(b, trigger));
	double before = t_round > t_tr ? ms(t_round - t_tr) : 0.0;
	uint32_t prev = k0->trigger_in_retry ? round_before(b, k0->recv_qp, trigger) : RT_TL_NONE;
	uint32_t skipped = k0->round_start ? k0->round_psn : k0->psn; /* the PSN a response gap skipped */
	bool rd = tl_class_rd_atomic(k0->op_class); /* the sender is a requester asking for responses */
	uint32_t asked = tr->aeth_type == RT_AETH_NAK ? tr->psn : skipped; /* the PSN the trigger asked for */
	if (prev != RT_TL_NONE) {
		const char *what = tr->aeth_type == RT_AETH_NAK ? "NAK" : "response gap";
		if (tr->aeth_type == RT_AETH_NAK)
			tx(t, "; the NAK in frame %u (%.3f ms before)", tr->frame, before);
		else
			tx(t, "; the response in frame %u (PSN 0x%06x, %.3f ms before) that skipped it", tr->frame, tr->psn,
			   before);
		tx(t, " came while the resend from frame %u was not yet acknowledged", tl_pk(b, prev)->frame);
		uint32_t rdrop = tr->aeth_type == RT_AETH_NAK ? RT_TL_NONE : drop_before_send(c, tr, skipped);
		if (rdrop != RT_TL_NONE)
			tx(t, "; the responder's engine had dropped the response of PSN 0x%06x as it sent it%s", skipped,
			   drop_reason_words(tl_ev(b, rdrop)));
		if (qp_on_rxe(c, k0->send_qp))
			tx(t, ", and the sender's SoftRoCE (rxe) starts no second retry before an ACK: it ignored the %s "
			      "and its ACK timer resent", what);
		else if (resend_drop != RT_TL_NONE)
			tx(t, "; the %s acted on the %s, %s at once, and its engine dropped that %s as it sent it%s",
			   rd ? "requester" : "sender", what, rd ? "asking again" : "resending", rd ? "request" : "resend",
			   drop_reason_words(tl_ev(b, resend_drop)));
		else if (trigger_ignored(c, k0, trigger, asked, t_round))
			ignored_words(rd, tr->aeth_type == RT_AETH_NAK ? "NAK" : "response", t);
		else
			tx(t, ": a sender that starts no second retry before an ACK (as the kernel's SoftRoCE) ignores "
			      "such a %s and waits for its ACK timer; one that acts on it had that resend lost before "
			      "the capture point", what);
		return;
	}
	if (tr->aeth_type == RT_AETH_RNR_NAK)
		tx(t, "; the RNR NAK in frame %u (%.3f ms before) asked for a resend after %.2f ms that is not in the capture",
		   tr->frame, before, rt_rnr_timer_us(tr->aeth_value) / 1000.0);
	else if (tr->aeth_type == RT_AETH_NAK)
		tx(t, "; the NAK in frame %u (%.3f ms before) asked for a resend at once that is not in the capture", tr->frame,
		   before);
	else if (tr->op_class == RT_CLASS_READ_RESP && (tr->position == RT_POS_MIDDLE || tr->position == RT_POS_LAST) &&
		 qp_on_rxe(c, k0->send_qp)) {
		/* a response of the same READ: rxe drops it and waits for its timer */
		tx(t, "; the response in frame %u (PSN 0x%06x, %.3f ms before) skipped it, but the sender's SoftRoCE (rxe) "
		      "drops a READ response out of sequence within the READ and asks again only when its ACK timer goes off "
		      "(or a response past the READ's last PSN comes)", tr->frame, tr->psn, before);
		return;
	} else {
		tx(t, "; the response in frame %u (PSN 0x%06x, %.3f ms before) skipped it", tr->frame, tr->psn, before);
		uint32_t rdrop = drop_before_send(c, tr, skipped);
		if (rdrop != RT_TL_NONE)
			tx(t, ", dropped by the responder's engine as it sent it%s", drop_reason_words(tl_ev(b, rdrop)));
		tx(t, ", which should have made the requester ask again at once: that request is not in the capture");
	}
	const char *what = tr->aeth_type == RT_AETH_RNR_NAK || tr->aeth_type == RT_AETH_NAK ? "NAK" : "response";
	uint32_t drop = traced_rx_drop(c, k0->send_qp, trigger);
	if (drop == RT_TL_NONE && resend_drop != RT_TL_NONE) {
		tx(t, ": the %s's engine dropped it as it sent it%s", rd ? "requester" : "sender",
		   drop_reason_words(tl_ev(b, resend_drop)));
		return;
	}
	if (drop == RT_TL_NONE && tr->aeth_type != RT_AETH_RNR_NAK &&
	    trigger_ignored(c, k0, trigger, asked, t_round)) {
		uint32_t earlier = round_before(b, k0->recv_qp, trigger);
		if (earlier != RT_TL_NONE)
			tx(t, ", and came %.3f ms after the resend from frame %u", ms(t_tr - item_t(c, tl_item_pk(b, earlier))),
			   tl_pk(b, earlier)->frame);
		ignored_words(rd, what, t);
		return;
	}
	if (drop == RT_TL_NONE) {
		tx(t, " (lost before the capture point, or the %s was lost on its way back)", what);
		return;
	}
	tx(t, ": the sender's engine dropped that %s as it arrived%s and never acted on it", what,
	   drop_reason_words(tl_ev(b, drop)));
}

/* When the requester's ACK timer last started before the round that begins
 * with request k0 (packet `first`): at the transmission it repeats (packet
 * `prev`), or at the latest response or ACK to it captured after that
 * (an answer that leaves requests outstanding restarts the timer). */
static uint64_t timer_start(struct dctx *c, const struct tl_pk *k0, uint32_t prev, uint32_t first)
{
	struct tl_build *b = c->b;
	for (uint32_t j = first; j-- > prev + 1 && first - j < 4096;) {
		const struct tl_pk *p = tl_pk(b, j);
		if ((p->is_response || p->op_class == RT_CLASS_ACK) && p->send_qp == k0->recv_qp &&
		    p->recv_qp == k0->send_qp && p->icrc != RT_ICRC_BAD)
			return item_t(c, tl_item_pk(b, j));
	}
	return item_t(c, tl_item_pk(b, prev));
}

/* How well the clock of QP q's host is known (tl_host.uncertainty_ns), 0
 * when it is not bounded or not known. */
static uint64_t sender_uncertainty(struct dctx *c, uint32_t q)
{
	struct tl_build *b = c->b;
	if (q >= b->qps.n || tl_qp(b, q)->host >= b->hosts.n)
		return 0;
	uint64_t u = tl_host(b, tl_qp(b, q)->host)->uncertainty_ns;
	return u == UINT64_MAX ? 0 : u;
}

/* No request of stream s was captured between packets from and to: the
 * sender sent nothing on it while it waited. */
static bool stream_silent(struct tl_build *b, uint32_t s, uint32_t from, uint32_t to)
{
	for (uint32_t j = from + 1; j < to; j++)
		if (tl_pk(b, j)->is_request && tl_pk(b, j)->recv_qp == s)
			return false;
	return from < to;
}

/* "N packets (B bytes)" resent; atomics and empty messages carry no
 * payload, so no byte count then. */
static void resent_words(uint32_t packets, uint64_t bytes, struct text *t)
{
	tx(t, "%u packet%s", packets, packets == 1 ? "" : "s");
	if (bytes)
		tx(t, " (%" PRIu64 " bytes)", bytes);
}

/* The traced move to ERROR of QP q's peer at or before time t (the
 * earliest), RT_TL_NONE when none. */
static uint32_t peer_error_before(struct dctx *c, uint32_t q, uint64_t t)
{
	struct tl_build *b = c->b;
	size_t nq = b->qps.n;
	if (!c->qp_first_error && nq) { /* per QP: its first move to ERROR (a QP's events are in time order) */
		if (!(c->qp_first_error = malloc(nq * sizeof(uint32_t))))
			return RT_TL_NONE;
		for (size_t x = 0; x < nq; x++)
			c->qp_first_error[x] = RT_TL_NONE;
		for (size_t x = b->errs.n; x-- > 0;) {
			uint32_t j = *TL_AT(&b->errs, uint32_t, x);
			const struct tl_evrec *o = tl_ev(b, j);
			if (b->ev_qp[j] < nq && o->ev.kind == RT_EV_QP_STATE && o->ev.u.qp_state.to_state == 6)
				c->qp_first_error[b->ev_qp[j]] = j;
		}
	}
	uint32_t peer = q < nq ? tl_qp(b, q)->peer : RT_TL_NONE;
	uint32_t j = peer < nq ? c->qp_first_error[peer] : RT_TL_NONE;
	return j != RT_TL_NONE && item_t(c, j) <= t ? j : RT_TL_NONE;
}

static uint32_t proc_end_record(struct tl_build *b, uint16_t p);
static uint64_t clocks_uncertainty(struct tl_build *b, uint16_t h1, uint16_t h2);

/* The end of QP q as its program's trace has it: its destroy
 * (ibv_destroy_qp) or, without one, its process's end record; RT_TL_NONE
 * when the trace has neither. */
static uint32_t qp_gone(struct dctx *c, uint32_t q)
{
	struct tl_build *b = c->b;
	size_t nq = b->qps.n;
	if (q >= nq)
		return RT_TL_NONE;
	if (!c->qp_end) {
		if (!(c->qp_end = malloc(nq * sizeof(uint32_t))))
			return RT_TL_NONE;
		for (size_t x = 0; x < nq; x++)
			c->qp_end[x] = RT_TL_NONE;
		for (size_t i = 0; i < tl_nev(b); i++) {
			const struct tl_evrec *e = tl_ev(b, i);
			uint32_t x = b->ev_qp[i];
			if (e->ev.kind == RT_EV_QP_CREATE && (e->ev.flags & RT_EVF_DESTROY) && !(e->ev.flags & RT_EVF_ERROR) &&
			    !b->ev_shadow[i] && x < nq && c->qp_end[x] == RT_TL_NONE)
				c->qp_end[x] = (uint32_t)i;
		}
		for (size_t x = 0; x < nq; x++)
			if (c->qp_end[x] == RT_TL_NONE && tl_qp(b, x)->proc < b->procs.n)
				c->qp_end[x] = proc_end_record(b, tl_qp(b, x)->proc);
	}
	return c->qp_end[q];
}

/* ", more than a retry_cnt of 7 allows ...": QP q retried n times in a
 * row with no error, and its device (rxe, or uroce, which does as rxe)
 * never decrements a retry_cnt of 7. */
static void retry_cnt7_words(struct dctx *c, uint32_t q, uint32_t n, struct text *t)
{
	struct tl_build *b = c->b;
	const struct rt_tl_qp *rq = q < b->qps.n ? tl_qp(b, q) : NULL;
	bool on_engine = rq && rq->proc < b->procs.n && (proc_flags(c, rq->proc) & PF_ENGINE);
	if (n > 7 && rq && rq->retry_cnt == 7 && (qp_on_rxe(c, q) || on_engine))
		tx(t, ", more than a retry_cnt of 7 allows: the sender's %s takes retry_cnt 7 as unlimited "
		      "(the IBTA gives 7 that meaning for rnr_retry only), so it went on resending where other devices "
		      "complete the WR with RETRY_EXC_ERR after 7 retries",
		   on_engine ? "engine (uroce, which does as the kernel's SoftRoCE)" : "SoftRoCE (rxe)");
}

/* "its peer QP ... had been destroyed" / "was destroyed ... after the
 * first of these rounds": QP q's peer's end (qp_gone) when it came at or
 * before t_end, the last resend of rounds that began at t_first (times on
 * the clock of host `clock`: the capture point's, or the sender's for
 * rounds known from its engine's retry events); RT_TL_NONE (nothing said)
 * when it did not. */
static uint32_t peer_gone_words(struct dctx *c, uint32_t q, uint16_t clock, uint64_t t_first, uint64_t t_end,
				struct text *t)
{
	struct tl_build *b = c->b;
	uint32_t peer = q < b->qps.n ? tl_qp(b, q)->peer : RT_TL_NONE;
	uint32_t g = qp_gone(c, peer);
	if (g == RT_TL_NONE)
		return RT_TL_NONE;
	const struct tl_evrec *e = tl_ev(b, g);
	/* (before the last resend by more than the clocks' uncertainty: not a
	 * QP destroyed once that resend had its answer) */
	uint64_t unc = clocks_uncertainty(b, e->host, clock);
	if (unc == UINT64_MAX || item_t(c, g) + unc > t_end)
		return RT_TL_NONE;
	const struct rt_tl_proc *P = e->proc < b->procs.n ? TL_AT(&b->procs, struct rt_tl_proc, e->proc) : NULL;
	const char *prog = P ? (const char *)b->strs.p + P->program : "its program";
	int pid = P ? P->pid : 0;
	uint64_t tg = item_t(c, g);
	bool destroyed = e->ev.kind == RT_EV_QP_CREATE;
	if (destroyed)
		tx(t, "; its peer QP %s destroyed at %.6f s (%s, pid %d: its trace), ", tg <= t_first ? "had been" : "was",
		   (double)tg / 1e9, prog, pid);
	else
		tx(t, "; its peer QP's process (%s, pid %d) %sended at %.6f s (its trace), ", prog, pid,
		   tg <= t_first ? "had " : "", (double)tg / 1e9);
	if (tg <= t_first)
		tx(t, "%.3f ms before: nothing answers for %s", ms(t_first - tg),
		   destroyed ? "a destroyed QP" : "the QPs of a process that has ended");
	else
		tx(t, "%.3f ms after the first of these resends: nothing answered the ones after", ms(tg - t_first));
	return g;
}

/* Round u went back to a PSN captured before, less than half its sender's
 * ACK timeout after that transmission (*waited), with no NAK in the capture
 * that asked for it (nor a READ response gap): a NAK the capture does not
 * hold, a timer that went off early, or no round at all (below). */
static bool burst_early(struct dctx *c, const struct burst *u, uint64_t *waited)
{
	struct tl_build *b = c->b;
	const struct tl_pk *k0 = tl_pk(b, u->first);
	bool rgap = u->cause == RT_RETRY_IMPLIED_NAK && u->trigger != RT_TL_NONE &&
		    tl_class_rd_atomic(k0->op_class);
	bool captured = u->prev != RT_TL_NONE && u->prev != u->first;
	*waited = captured ? item_t(c, tl_item_pk(b, u->first)) - item_t(c, tl_item_pk(b, u->prev)) : 0;
	uint64_t half = tl_half_ack_timeout_ns(b, u->requester);
	return !(u->cause == RT_RETRY_NAK_SEQ && u->trigger != RT_TL_NONE) && !rgap && captured && half && *waited < half;
}

/* A retry cause in words: "... after NAK PSN sequence error". */
static const char *retry_cause_words(unsigned cause)
{
	return cause == RT_RETRY_NAK_SEQ ? "NAK PSN sequence error"
	       : cause == RT_RETRY_ACK_TIMEOUT ? "local ACK timeout" : "an implied NAK";
}

/* An engine retry event with its aligned time, for engine_rounds(). */
struct eretry {
	uint64_t t, unc;
	uint32_t ev, qp;
	bool claimed;
};

static int eretry_cmp(const void *a, const void *b)
{
	const struct eretry *x = a, *y = b;
	if (x->qp != y->qp)
		return x->qp < y->qp ? -1 : 1;
	return x->t < y->t ? -1 : x->t > y->t;
}

/* A time bound for claim_retry: a time on the capture's clock, widened
 * there by each retry's clock uncertainty, or (firm) one to compare as it
 * is: on the clock of the sending engine's trace, which its retry events
 * share, or widened already. */
struct retry_bound {
	uint64_t t;
	bool firm;
};

/* The unclaimed retry of QP q (in the sorted list r of n, whose clock
 * uncertainties are at most maxunc) from psn (exact) or whose PSN range
 * holds it, at or after `from` and at or before `to` (each widened by its
 * host clock's uncertainty unless firm), the latest; claimed when found,
 * and its cause returned (0 none). */
static uint8_t claim_retry(struct tl_build *b, struct eretry *r, size_t n, uint64_t maxunc, uint32_t q, uint32_t psn,
			   bool exact, struct retry_bound fromb, struct retry_bound tob)
{
	uint64_t from = fromb.t, to = tob.t;
	uint64_t lo_t = from > maxunc ? from - maxunc : 0;
	size_t lo = 0, hi = n;
	while (lo < hi) { /* the first of q's that can be late enough */
		size_t m = (lo + hi) / 2;
		if (r[m].qp < q || (r[m].qp == q && r[m].t < lo_t))
			lo = m + 1;
		else
			hi = m;
	}
	struct eretry *best = NULL;
	for (size_t i = lo; i < n && r[i].qp == q && r[i].t <= to + maxunc; i++) {
		const struct rt_ev_retry *e = &tl_ev(b, r[i].ev)->ev.u.retry;
		uint64_t unc_from = fromb.firm ? 0 : r[i].unc, unc_to = tob.firm ? 0 : r[i].unc;
		if (!r[i].claimed && r[i].t + unc_from >= from && r[i].t <= to + unc_to &&
		    (exact ? e->first_psn == psn : psn_within(psn, e->first_psn, e->last_psn)))
			best = &r[i];
	}
	if (!best)
		return 0;
	best->claimed = true;
	return tl_ev(b, best->ev)->ev.u.retry.cause;
}

/* Where a process's trace has a hole, in aligned time.  The events a full
 * ring or a nested event lost (an RT_EV_LOST record naming their sequence
 * numbers) came after the record their thread kept before them and before
 * the LOST record (written at the thread's next event, or later by the
 * collector).  A thread's records are stamped as they are made, in the
 * order of their sequence numbers; but one thread may write through more
 * than one copy of the tracer (a probe and an engine linked in), each
 * numbering its own, so the record before is taken as the earliest of the
 * thread's records with that number, which can only widen the window.  The
 * oldest events a ring overwrote came before its LOST record (the
 * collector writes it just before the first record kept, or when it finds
 * them gone); those of a thread that found no ring, anywhere in the
 * process. */
struct loss_window {
	uint64_t from, to;
	uint16_t proc;
	bool from_known;
};

/* The record before a loss window, found by (proc, tid, seq). */
struct loss_bound {
	uint32_t tid, seq, w;
	uint16_t proc;
};

static int loss_bound_cmp(const void *a, const void *b)
{
	const struct loss_bound *x = a, *y = b;
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The loss windows of the run's traces, one for each of its nw LOST records
 * of a known process (*n of them); NULL with *n = 0 when there are none, or
 * on allocation failure with *n = SIZE_MAX (then no process with losses is
 * to be judged by its engine). */
static struct loss_window *trace_loss_windows(struct dctx *c, size_t nw, size_t *n)
{
	struct tl_build *b = c->b;
	size_t nev = tl_nev(b);
	*n = 0;
	if (!nw)
		return NULL;
	struct loss_window *w = calloc(nw, sizeof(*w));
	struct loss_bound *k = calloc(nw, sizeof(*k));
	if (!w || !k) {
		free(w);
		free(k);
		*n = SIZE_MAX;
		return NULL;
	}
	size_t nk = 0;
	for (size_t i = 0; i < nev; i++) {
		const struct tl_evrec *e = tl_ev(b, i);
		if (e->ev.kind != RT_EV_LOST || e->proc >= b->procs.n)
			continue;
		const struct rt_ev_lost *l = &e->ev.u.lost;
		struct loss_window *x = &w[(*n)++];
		*x = (struct loss_window){.from = 0, .to = item_t(c, (uint32_t)i), .proc = e->proc};
		if (l->cause == RT_LOST_NO_RING) {
			x->to = UINT64_MAX;
			continue;
		}
		if (l->cause != RT_LOST_RING_FULL && l->cause != RT_LOST_NESTED)
			continue; /* overwritten: from the start */
		if (l->first_seq != 0)
			k[nk++] = (struct loss_bound){.tid = e->ev.tid, .seq = (uint32_t)l->first_seq - 1u,
						      .w = (uint32_t)(x - w), .proc = e->proc};
	}
	qsort(k, nk, sizeof(*k), loss_bound_cmp);
	for (size_t i = 0; i < nev; i++) {
		const struct tl_evrec *e = tl_ev(b, i);
		struct loss_bound key = {.tid = e->ev.tid, .seq = e->ev.seq, .proc = e->proc};
		const struct loss_bound *f = bsearch(&key, k, nk, sizeof(*k), loss_bound_cmp);
		if (!f)
			continue;
		while (f > k && loss_bound_cmp(f - 1, &key) == 0)
			f--; /* the first of equal keys */
		for (; f < k + nk && loss_bound_cmp(f, &key) == 0; f++) {
			uint64_t t = item_t(c, (uint32_t)i);
			struct loss_window *x = &w[f->w];
			if (!x->from_known && t <= x->to) /* records come in time order: the earliest */
				x->from = t;
			x->from_known = true;
		}
	}
	free(k);
	return w;
}

/* Whether process proc's trace may have lost events between from and to. */
static bool in_loss_window(const struct loss_window *w, size_t n, uint16_t proc, uint64_t from, uint64_t to)
{
	if (n == SIZE_MAX)
		return true;
	for (size_t i = 0; i < n; i++)
		if (w[i].proc == proc && w[i].from <= to && w[i].to >= from)
			return true;
	return false;
}

/* When the transmission of round u's first PSN before it passed the
 * capture point (0 when none was captured). */
static uint64_t round_prev_t(struct dctx *c, const struct burst *u)
{
	return u->prev != RT_TL_NONE ? item_t(c, tl_item_pk(c->b, u->prev)) : 0;
}

/* Whether round u is one to judge by its sender's engine: not an RNR
 * NAK's (those belong to the RNR stall), the engine traced its QP's
 * packets (traced), and its process's trace lost no events from the
 * transmission before the round to its last packet (lost, holes:
 * trace_loss_windows): its retry may be among the events lost, so the
 * capture judges it. */
static bool round_judged(struct dctx *c, const struct burst *u, const uint8_t *traced, const uint8_t *lost,
			 const struct loss_window *holes, size_t nholes, uint64_t maxunc)
{
	struct tl_build *b = c->b;
	if (u->cause == RT_RETRY_RNR || u->requester >= b->qps.n || !traced[u->requester])
		return false;
	uint64_t t_last = item_t(c, tl_item_pk(b, u->last));
	uint64_t since = u->prev != RT_TL_NONE ? round_prev_t(c, u) : item_t(c, tl_item_pk(b, u->first));
	uint16_t proc = tl_qp(b, u->requester)->proc;
	return !(proc < b->procs.n && lost[proc] &&
		 in_loss_window(holes, nholes, proc, since > maxunc ? since - maxunc : 0, t_last + maxunc));
}

/* How far apart an engine's trace of sending a packet and the capture's
 * time for it can be, either way, when nothing holds the packet back on
 * the way: the engine's transmit queue on a loaded machine, and the error
 * of the engine's clock against the capture's beyond what the alignment
 * could tell (microseconds on one machine: a rate calibrated over a short
 * time drifts). */
#define ENGINE_TO_WIRE_NS 1000000ull

/* An engine's transmission of a PSN on one of its QPs. */
struct etx {
	uint64_t t;               /* aligned */
	uint32_t qp, psn;
};

static int etx_cmp(const void *a, const void *b)
{
	const struct etx *x = a, *y = b;
	if (x->qp != y->qp)
		return x->qp < y->qp ? -1 : 1;
	if (x->psn != y->psn)
		return x->psn < y->psn ? -1 : 1;
	return x->t < y->t ? -1 : x->t > y->t;
}

/* Whether event e is an engine's transmission that left it (traced
 * sending, not dropped by the engine itself). */
static bool engine_sent(const struct tl_evrec *e)
{
	return e->ev.kind == RT_EV_PACKET && (e->ev.flags & RT_EVF_TX) && !(e->ev.u.pkt.flags & RT_PKTF_DROPPED);
}

/* The k transmissions of the engines' QPs (engine_sent), sorted by QP,
 * PSN and time (*n of them); NULL with *n = 0 when there are none or no
 * memory (then no round is judged by them). */
static struct etx *engine_txs(struct dctx *c, size_t k, size_t *n)
{
	struct tl_build *b = c->b;
	size_t nev = tl_nev(b);
	*n = 0;
	struct etx *x = k ? malloc(k * sizeof(*x)) : NULL;
	if (!x)
		return NULL;
	for (size_t i = 0; i < nev && *n < k; i++)
		if (b->ev_qp[i] < b->qps.n && engine_sent(tl_ev(b, i)))
			x[(*n)++] = (struct etx){.t = item_t(c, (uint32_t)i), .qp = b->ev_qp[i],
						 .psn = tl_ev(b, i)->ev.u.pkt.psn};
	qsort(x, *n, sizeof(*x), etx_cmp);
	return x;
}

/* The latest transmission of psn by QP q's engine (in x, n of them) at or
 * before time t; its time in *sent. */
static bool latest_engine_tx(const struct etx *x, size_t n, uint32_t q, uint32_t psn, uint64_t t, uint64_t *sent)
{
	size_t lo = 0, hi = n;
	while (lo < hi) { /* the first past (q, psn, t) */
		size_t m = (lo + hi) / 2;
		if (x[m].qp < q || (x[m].qp == q && (x[m].psn < psn || (x[m].psn == psn && x[m].t <= t))))
			lo = m + 1;
		else
			hi = m;
	}
	if (!lo || x[lo - 1].qp != q || x[lo - 1].psn != psn)
		return false;
	*sent = x[lo - 1].t;
	return true;
}

/* What the sender's engine traced for each round: for an early one
 * (burst_early), the cause of its retry, or ROUND_NOT_MADE when it made
 * none for it: copies of
 * earlier transmissions held back on the way (a delay before the capture
 * point, or resends overtaken by a later round), which the capture shows
 * as the sender going back.  An engine traces every retry: where it traced
 * the QP's packets and lost no events around the round (no loss window of
 * its process, trace_loss_windows, from the transmission before the round
 * to its last packet: such a round is not judged), each round the capture
 * shows is one of its retries from a PSN range holding the round's first
 * PSN, after that PSN's previous transmission.  The other rounds claim theirs first
 * (the latest retry before them), then the early ones, which are the
 * sender's only with one left over: first a retry from the round's first
 * PSN, then one from an earlier PSN (whose first resends never reached the
 * capture), so that a round from a later PSN does not take the retry of
 * another.  A round of SENDs or WRITEs no NAK in the capture started (an
 * ACK timer's) with no retry before it starts at a packet held back on the
 * way, which passed the capture point after the later ones, as a round
 * would: it is the round of a retry that came while it went on (the
 * engine's cause), else none; so is a round of atomics a NAK started (a
 * pipeline of atomics asked again goes on through the PSN a NAK names, as
 * one retry) (READs, and other atomics, asked again are grouped
 * otherwise: not judged).  Any other round that claimed none is
 * ROUND_NOT_MADE too unless a retry is left over that came before the
 * engine sent the round's first packet (on its own clock): a packet of a
 * round the capture showed already, held back on the way (reordered or
 * delayed: a previous release made 5-10 % more rounds than retries of
 * such storms).  Per burst: the engine's cause for an early round or one
 * of pass 4 that claimed its retry, ROUND_NOT_MADE for a round that is
 * none of its own, else 0 (a round that claimed its retry, or one not
 * judged: untraced, an RNR NAK's, or near a gap in the trace); NULL when
 * there are none (no engine packet events).  *claims: per burst, the cause
 * of the retry it claimed (0 none), whatever the round's cause in the
 * capture; NULL when there are none. */
#define ROUND_NOT_MADE 0xFF
static uint8_t *engine_rounds(struct dctx *c, struct tl_vec *bursts, uint8_t **claims)
{
	struct tl_build *b = c->b;
	size_t nev = tl_nev(b), nq = b->qps.n, nr = 0;
	uint64_t maxunc = 0;
	if (!b->engine_packets || !bursts->n)
		return NULL;
	uint8_t *traced = calloc(nq + 1, 1), *lost = calloc(b->procs.n + 1, 1), *eng = NULL;
	struct eretry *r = NULL;
	size_t nretry = 0, nlost = 0, nsent = 0;
	/* per QP: 1 its engine traced sending packets, 2 retries, 4 resends;
	 * traced when 1, and 2 or not 4 (an engine that traces its resends but
	 * no retries is not one to judge by).  A round near a gap in its
	 * process's trace (events lost) is not judged (trace_loss_windows). */
	for (size_t i = 0; traced && lost && i < nev; i++) {
		const struct tl_evrec *e = tl_ev(b, i);
		if (e->ev.kind == RT_EV_LOST && e->proc < b->procs.n) {
			lost[e->proc] = 1;
			nlost++;
		}
	}
	for (size_t i = 0; traced && lost && i < nev; i++) {
		const struct tl_evrec *e = tl_ev(b, i);
		uint32_t q = b->ev_qp[i];
		if (q >= nq || (e->ev.kind != RT_EV_PACKET && e->ev.kind != RT_EV_RETRY))
			continue;
		if (e->ev.kind == RT_EV_PACKET && (e->ev.flags & RT_EVF_TX)) {
			traced[q] |= 1 | ((e->ev.u.pkt.flags & RT_PKTF_RETRANS) ? 4 : 0);
			nsent += engine_sent(e);
		} else if (e->ev.kind == RT_EV_RETRY) {
			traced[q] |= 2; /* (an RNR NAK's too: it traces its retries) */
			nretry += e->ev.u.retry.cause != RT_RETRY_RNR;
		}
	}
	for (size_t q = 0; traced && q < nq; q++)
		traced[q] = (traced[q] & 1) && ((traced[q] & 2) || !(traced[q] & 4));
	if (!traced || !lost || !(r = calloc(nretry + 1, sizeof(*r))) || !(eng = calloc(bursts->n, 1)))
		goto out;
	for (size_t i = 0; i < nev; i++) {
		const struct tl_evrec *e = tl_ev(b, i);
		if (e->ev.kind != RT_EV_RETRY || e->ev.u.retry.cause == RT_RETRY_RNR || b->ev_qp[i] >= nq)
			continue;
		uint64_t unc = e->host < b->hosts.n ? tl_host(b, e->host)->uncertainty_ns : UINT64_MAX;
		if (unc > 1000000000ull)
			unc = 1000000000ull; /* an unbounded clock: its wall clock, taken as within a second */
		maxunc = unc > maxunc ? unc : maxunc;
		r[nr++] = (struct eretry){.t = item_t(c, (uint32_t)i), .unc = unc, .ev = (uint32_t)i, .qp = b->ev_qp[i]};
	}
	qsort(r, nr, sizeof(*r), eretry_cmp);
	size_t nholes = 0;
	struct loss_window *holes = trace_loss_windows(c, nlost, &nholes);
	bool any = false;
	uint8_t *claimed = calloc(bursts->n, 1);
	/* exact: other rounds, early ones; then ranges; then other rounds no NAK
	 * in the capture started, up to their last packet */
	for (int pass = 0; claimed && pass < 5; pass++) {
		for (size_t x = 0; x < bursts->n; x++) {
			const struct burst *u = TL_AT(bursts, struct burst, x);
			uint64_t waited;
			bool early = burst_early(c, u, &waited);
			uint8_t cls = tl_pk(b, u->first)->op_class;
			if (claimed[x] || early != (pass & 1) || !round_judged(c, u, traced, lost, holes, nholes, maxunc))
				continue;
			/* pass 4: rounds of SENDs or WRITEs no NAK started, of atomics one did */
			bool nak_round = u->cause == RT_RETRY_NAK_SEQ && u->trigger != RT_TL_NONE;
			if (pass == 4 && (cls == RT_CLASS_READ_REQ || nak_round != (cls == RT_CLASS_ATOMIC)))
				continue;
			uint32_t until = pass == 4 ? u->last : u->first;
			claimed[x] = claim_retry(b, r, nr, maxunc, u->requester, u->psn, pass < 2,
						 (struct retry_bound){.t = round_prev_t(c, u)},
						 (struct retry_bound){.t = item_t(c, tl_item_pk(b, until))});
			if ((early && (claimed[x] || pass == 3)) || pass == 4) {
				eng[x] = claimed[x] ? claimed[x] : ROUND_NOT_MADE;
				any = true;
			}
		}
	}
	/* then the other rounds that claimed none (rounds of a NAK in the
	 * capture, ACK timers' that went off late enough): made by a retry
	 * before the engine's latest transmission of the round's first PSN that
	 * can be the packet the capture saw first, and after the transmission
	 * before the round as the capture saw it (ENGINE_TO_WIRE_NS either way:
	 * times on the engine's clock and the capture's are compared); without
	 * one left, the round is none of its own: its first packet was sent
	 * before any retry that could be it, so it is a packet of an earlier
	 * round held back on the way (whose retry a round the capture showed
	 * claimed), or the second show of a round whose retry another claimed */
	struct etx *tx = NULL;
	size_t ntx = 0;
	bool tx_read = false;
	for (size_t x = 0; claimed && x < bursts->n; x++) {
		const struct burst *u = TL_AT(bursts, struct burst, x);
		uint64_t sent;
		if (claimed[x] || eng[x] || !round_judged(c, u, traced, lost, holes, nholes, maxunc))
			continue;
		if (!tx_read) {
			tx = engine_txs(c, nsent, &ntx);
			tx_read = true;
		}
		uint64_t t_first = item_t(c, tl_item_pk(b, u->first)), from = round_prev_t(c, u);
		if (!latest_engine_tx(tx, ntx, u->requester, u->psn, t_first + ENGINE_TO_WIRE_NS, &sent))
			continue; /* the engine traced no transmission of it: the capture judges */
		struct retry_bound fromb = {.t = from > ENGINE_TO_WIRE_NS ? from - ENGINE_TO_WIRE_NS : 0, .firm = true};
		claimed[x] = claim_retry(b, r, nr, maxunc, u->requester, u->psn, false, fromb,
					 (struct retry_bound){.t = sent, .firm = true});
		if (!claimed[x]) {
			eng[x] = ROUND_NOT_MADE;
			any = true;
		}
	}
	free(tx);
	/* a round left out that a NAK in the capture started hands that NAK to
	 * the round after it on its stream that claimed a retry after a NAK,
	 * from the PSN the NAK names, when that round has no NAK for its
	 * first PSN: the stream replay gave the NAK to the packets held back
	 * on the way, which came first (tl_link.c take_nak: the NAKs reordered
	 * too, or the capture started late), and the round would read as an
	 * ACK timer's or another NAK's */
	for (size_t x = 0; claimed && x < bursts->n; x++) {
		const struct burst *d = TL_AT(bursts, struct burst, x);
		if (eng[x] != ROUND_NOT_MADE || d->cause != RT_RETRY_NAK_SEQ || d->trigger == RT_TL_NONE)
			continue;
		uint32_t npsn = tl_pk(b, d->trigger)->psn;
		for (size_t y = x + 1; y < bursts->n; y++) {
			struct burst *u = TL_AT(bursts, struct burst, y);
			if (u->stream != d->stream || eng[y] == ROUND_NOT_MADE)
				continue;
			bool named = u->cause == RT_RETRY_NAK_SEQ && u->trigger != RT_TL_NONE && tl_pk(b, u->trigger)->psn == u->psn;
			if (!eng[y] && claimed[y] == RT_RETRY_NAK_SEQ && u->psn == npsn && !named && d->trigger < u->first) {
				u->cause = RT_RETRY_NAK_SEQ;
				u->trigger = d->trigger;
			}
			break;
		}
	}
	*claims = claimed;
	free(holes);
	if (!any) {
		free(eng);
		eng = NULL;
	}
out:
	free(traced);
	free(lost);
	free(r);
	return eng;
}

static int emit_bursts(struct dctx *c, struct tl_vec *bursts)
{
	struct tl_build *b = c->b;
	size_t nev = tl_nev(b), nq = b->qps.n;
	/* per stream: the end of the time already counted as lost, so rounds that
	 * overlap (a NAK answered during another round's timeout) count it once */
	uint64_t *covered = calloc(nq + 1, sizeof(uint64_t));
	if (!covered)
		return -ENOMEM;
	uint8_t *claims = NULL;
	uint8_t *before = rounds_before_capture(c, bursts), *eng = engine_rounds(c, bursts, &claims);
	for (size_t i = 0; i < bursts->n; i++) {
		struct burst *u = TL_AT(bursts, struct burst, i);
		if (u->fidx >= 0 || u->cause == RT_RETRY_RNR)
			continue; /* already part of another finding; RNR retries belong to the RNR stall */
		if (before && before[i])
			continue; /* the engine's retry event is its finding */
		if (eng && eng[i] == ROUND_NOT_MADE)
			continue; /* held-back copies, no round */
		/* the whole group */
		size_t last = i;
		uint32_t packets = 0, dups = 0, nb = 0;
		uint64_t bytes = 0;
		for (size_t j = i; j < bursts->n; j++) {
			struct burst *o = TL_AT(bursts, struct burst, j);
			if (o->group != u->group || o->stream != u->stream)
				continue;
			last = j;
			packets += o->packets;
			dups += o->dups;
			bytes += o->bytes;
			nb++;
		}
		struct burst *z = TL_AT(bursts, struct burst, last);
		struct tl_pk *k0 = tl_pk(b, u->first);
		uint32_t lostpk = u->original;
		uint32_t gp = RT_TL_NONE;
		bool nak = u->cause == RT_RETRY_NAK_SEQ && u->trigger != RT_TL_NONE;
		uint8_t ecause = eng ? eng[i] : 0; /* the cause of the retry its engine traced, 0 none */
		/* a round the capture has as an ACK timer's whose engine traced a retry
		 * after a NAK or an implied NAK (the capture missed the NAK, or the
		 * response past the PSN, or the engine dropped it as it sent it) */
		uint8_t tcause = claims && claims[i] != RT_RETRY_ACK_TIMEOUT && u->cause == RT_RETRY_ACK_TIMEOUT &&
					 u->trigger == RT_TL_NONE
				 ? claims[i] : 0;
		/* the PSN the NAK names: the first one resent, unless its resend was lost before the capture too */
		uint32_t npsn = nak ? tl_pk(b, u->trigger)->psn : u->psn;
		/* a READ asked again after a response skipped the one expected (u->trigger):
		 * that response's capture if it was lost after the capture point, and the
		 * response that finally brought it */
		bool atomic = k0->op_class == RT_CLASS_ATOMIC;
		bool rgap = u->cause == RT_RETRY_IMPLIED_NAK && u->trigger != RT_TL_NONE &&
			    (k0->op_class == RT_CLASS_READ_REQ || atomic);
		uint8_t rcls = atomic ? RT_CLASS_ATOMIC_ACK : RT_CLASS_READ_RESP;
		/* after1, after2: the late response and the answer to the asking again, in either order */
		uint32_t rlost = RT_TL_NONE, rfix = RT_TL_NONE, rlate = RT_TL_NONE, after1 = RT_TL_NONE, after2 = RT_TL_NONE;
		unsigned after_missing = 0; /* with after2: the responses of that PSN missing when it was asked again */
		/* rearly: the response captured before the one it follows (rfollows), which came late */
		uint32_t rearly = RT_TL_NONE, rfollows = RT_TL_NONE;
		/* an ACK-timer round: the response of its PSN that came before the earlier one (rbehind),
		 * reordered on the way (read_response_overtaking) */
		uint32_t rahead = RT_TL_NONE, rbehind = RT_TL_NONE;
		uint32_t overtook = RT_TL_NONE; /* a NAK's round: the request the NAKed packet overtook */
		/* a response gap: the responder's engine's drop of the missing response, when its last send of
		 * that PSN before the response that showed the gap was a drop (then no capture of that PSN after
		 * the gap is the one the gap skipped: each is a send of the asking again) */
		uint32_t rtxdrop = RT_TL_NONE;
		/* a response gap: the requester's engine's drop of its request of the missing PSN, when its
		 * last send of it before this round was a drop (the responder never got it; an answer to an
		 * earlier send of it may have come while the requester waited for an earlier PSN, which it
		 * had gone back to, and been discarded) */
		uint32_t rqdrop = RT_TL_NONE;
		uint32_t rqrx = RT_TL_NONE; /* or the responder's engine's drop, as it arrived, of the captured
					     * request of that PSN this round repeats */
		if (rgap) {
			rtxdrop = drop_before_send(c, tl_pk(b, u->trigger), u->psn);
			rqdrop = drop_before_send(c, k0, u->psn);
			if (rqdrop == RT_TL_NONE && u->prev != RT_TL_NONE && u->prev < u->trigger &&
			    tl_pk(b, u->prev)->is_request && tl_pk(b, u->prev)->psn == u->psn)
				rqrx = traced_rx_drop(c, k0->recv_qp, u->prev);
			rlost = read_response(b, u->stream, u->psn, u->trigger,
					      u->prev != RT_TL_NONE && u->prev < u->trigger ? u->prev : 0, -1, rcls);
			rfix = read_response(b, u->stream, u->psn, z->last, 0, 1, rcls);
			if (rlost == RT_TL_NONE && rtxdrop == RT_TL_NONE)
				rlate = read_response(b, u->stream, u->psn, u->trigger, 0, 1, rcls);
			if (rlate != RT_TL_NONE && (rlate > u->first || asked_between(b, u->stream, u->psn, u->trigger, rlate)) &&
			    !tl_engine_held(b, tl_pk(b, rlate)))
				rlate = RT_TL_NONE; /* (that is the answer to the re-request, or to another request for it;
						     * not one its engine held back) */
			if (rlost == RT_TL_NONE && rlate == RT_TL_NONE && rtxdrop == RT_TL_NONE)
				after_missing = read_response_late(b, u->stream, u->psn, u->original, u->first, rcls, &after1,
								   &after2);
			if (rlost == RT_TL_NONE && rlate == RT_TL_NONE && after2 == RT_TL_NONE && rtxdrop == RT_TL_NONE &&
			    u->original != RT_TL_NONE && u->original < u->trigger)
				rearly = read_response_early(b, u->stream, u->psn, u->trigger, u->original, rcls, &rfollows);
		}
		if (nak)
			nak_lost(b, u->stream, npsn, u->trigger, &lostpk, &gp);
		else if (!rgap && (lostpk == RT_TL_NONE || lostpk == u->first))
			gp = gap_packet(b, u->stream, u->psn, u->first);
		/* a late transmission of the NAKed PSN after the NAK: the story when the
		 * capture holds none before it, or when the receiving engine does not
		 * tell what came of the one it holds */
		uint32_t late_after = nak ? late_request(b, u->stream, npsn, u->trigger) : RT_TL_NONE;
		uint32_t latepk = lostpk == RT_TL_NONE ? late_after : RT_TL_NONE;
		uint64_t t_first = item_t(c, tl_item_pk(b, u->first));
		uint32_t ack = dups ? untaken_ack(b, u->first, u->psn) : RT_TL_NONE;
		/* the NAKed PSN acknowledged after the NAK, before the resend: the packet
		 * reached the receiver late, after the sender had been told to go back */
		uint32_t nak_acked = nak && lostpk == RT_TL_NONE && latepk == RT_TL_NONE ? untaken_ack(b, u->first, npsn)
											: RT_TL_NONE;
		if (nak_acked != RT_TL_NONE && (tl_pk(b, nak_acked)->icrc == RT_ICRC_BAD || nak_acked < u->trigger))
			nak_acked = RT_TL_NONE;
		bool captured = u->prev != RT_TL_NONE && u->prev != u->first;
		/* no earlier transmission captured and no gap after it: the sending engine
		 * said this was a resend; the loss started at its earlier send (or the WR post) */
		bool unseen = !nak && !rgap && !captured && gp == RT_TL_NONE;
		uint32_t perr = RT_TL_NONE; /* an ACK timer's round: its peer QP's move to ERROR before it */
		uint32_t esend = !unseen || k0->send_qp == RT_TL_NONE ? RT_TL_NONE
				 : engine_send_before(c, k0->send_qp, k0->psn, k0->event != RT_TL_NONE ? k0->event : nev,
						      item_t(c, k0->event != RT_TL_NONE ? k0->event : tl_item_pk(b, u->first)));
		/* the engine's resends of it before that, back to its first send, all
		 * while the capture ran: each another round whose packet never
		 * reached the capture */
		unsigned engine_unseen = 0;
		uint32_t efirst = esend;
		for (uint32_t s0 = esend; s0 != RT_TL_NONE && (tl_ev(b, s0)->ev.u.pkt.flags & RT_PKTF_RETRANS);) {
			uint32_t s1 = engine_send_before(c, k0->send_qp, k0->psn, s0, item_t(c, s0));
			if (s1 == RT_TL_NONE)
				break;
			/* (the same transmission sent twice is one) */
			engine_unseen += tl_ev(b, s1)->ev.u.pkt.retrans_count != tl_ev(b, s0)->ev.u.pkt.retrans_count;
			efirst = s0 = s1;
		}
		if (efirst != RT_TL_NONE && item_t(c, efirst) >= capture_start(b))
			esend = efirst;
		else
			engine_unseen = 0; /* (sent before the capture started: said so below) */
		uint32_t since = esend != RT_TL_NONE ? esend
				 : unseen && k0->wr != RT_TL_NONE && item_t(c, k0->wr) < t_first ? k0->wr : RT_TL_NONE;
		/* a READ response gap costs from the lost response (or the one that showed
		 * the gap) to the response that brought its data again */
		uint64_t t_prev = captured ? item_t(c, tl_item_pk(b, u->prev)) : 0; /* the transmission it repeats */
		/* a gap after the transmission it repeats: a later round (after an RNR
		 * NAK, say) skipped the PSN, and the loss began there */
		bool gap_later = gp != RT_TL_NONE && (!captured || gp > u->prev);
		uint64_t t_from = rgap ? item_t(c, tl_item_pk(b, rlost != RT_TL_NONE ? rlost : u->trigger))
				  : gap_later ? item_t(c, tl_item_pk(b, gp))
				  : captured ? t_prev
				  : gp != RT_TL_NONE ? item_t(c, tl_item_pk(b, gp))
				  : since != RT_TL_NONE ? item_t(c, since) : t_first;
		uint64_t t_end = item_t(c, tl_item_pk(b, rgap && rfix != RT_TL_NONE ? rfix : z->last));
		uint64_t *cov = &covered[u->stream < nq ? u->stream : nq];
		uint64_t t_start = t_from; /* where the finding sits on the timeline */
		bool overlaps = *cov > t_from;
		if (overlaps)
			t_from = *cov;
		uint64_t lost = t_end > t_from ? t_end - t_from : 0;
		*cov = t_end > *cov ? t_end : *cov;
		struct text t = {.n = 0}, e = {.n = 0};
		uint32_t rxdrop = RT_TL_NONE; /* the lost packet's receiver's engine traced dropping it */
		uint32_t dmg = RT_TL_NONE;    /* the request that asked for the ACK, with a bad ICRC (damaged_ackreq) */
		const struct freeze *fz = NULL; /* the receiver froze, its engine with it (engine_frozen) */
		const struct freeze *sfz = NULL; /* the sender froze, its engine with it, holding the ACK */
		uint32_t rxev = RT_TL_NONE, nakev = RT_TL_NONE; /* the receiver's engine's records of the NAKed
								  * packet arriving and of the NAK */
		int order = -1; /* which came first (rx_before_nak) */
		uint32_t drops[3];        /* an ACK-timeout round: the engines' drops, as they sent them, it names */
		unsigned ndrops = 0;
		uint32_t lostdrop = RT_TL_NONE; /* the engine's drop, as it sent it, of the packet the text says
						 * was lost: the NAKed one, the missing response, the one a
						 * timed-out round went back to */
		uint64_t t_early = t_start > 1000000 ? t_start - 1000000 : 0; /* where they are looked for from */
		uint32_t rdropped = RT_TL_NONE; /* the response a requester's engine dropped (response_rx_drop) */
		uint8_t why = WHY_LOST_BEFORE; /* what the text says started the round (enum round_why) */
		tx(&t, "Go-Back-N on ");
		qp_name(b, u->requester, &t);
		if (nak) {
			tx(&t, ": the receiver NAKed PSN 0x%06x (PSN sequence error) because ", npsn);
			if (lostpk != RT_TL_NONE && tl_pk(b, lostpk)->icrc == RT_ICRC_BAD) {
				tx(&t, "that packet (frame %u) had a bad ICRC and the receiver dropped it", tl_pk(b, lostpk)->frame);
				why = WHY_DAMAGED;
			} else if (lostpk != RT_TL_NONE && tl_pk(b, lostpk)->late) {
				tx(&t, "that packet (frame %u) came after later PSNs: it was held back %s", tl_pk(b, lostpk)->frame,
				   held_where(b, lostpk));
				why = WHY_REORDERED;
			} else if (lostpk != RT_TL_NONE &&
				   (rxdrop = traced_rx_drop(c, tl_pk(b, lostpk)->recv_qp, lostpk)) != RT_TL_NONE) {
				tx(&t, "that packet (frame %u) reached the receiver, whose engine dropped it as it arrived%s",
				   tl_pk(b, lostpk)->frame, drop_reason_words(tl_ev(b, rxdrop)));
				why = WHY_DROPPED;
			} else if (lostpk != RT_TL_NONE && (order = rx_before_nak(c, lostpk, u->trigger, &rxev, &nakev)) == 0) {
				tx(&t, "that packet (frame %u) arrived late: the receiver's engine traced it arriving %.3f ms after "
				       "it sent the NAK (%s)",
				   tl_pk(b, lostpk)->frame, ms(tl_ev(b, rxev)->raw_ns - tl_ev(b, nakev)->raw_ns),
				   (tl_ev(b, nakev)->ev.u.pkt.engine_flags & RT_PKTE_HELD)
					   ? "a NAK that engine had held back, by injected delay or reordering, and made before"
					   : "it takes packets in turn, and this one still waited");
				why = WHY_REORDERED;
			} else if (order == 1 && (tl_ev(b, nakev)->ev.u.pkt.engine_flags & RT_PKTE_HELD) &&
				   !awaited_held(b, u->stream, lostpk, u->trigger)) {
				tx(&t, "that packet (frame %u) reached the receiver, as its engine traced, before the NAK (frame %u) "
				       "left: that NAK was held back by the engine that sent it (injected delay or reordering), and "
				       "the sender acted on it when it came",
				   tl_pk(b, lostpk)->frame, tl_pk(b, u->trigger)->frame);
				why = WHY_REORDERED;
			} else if (order == 1) {
				uint32_t w = awaited_request(b, u->stream, lostpk, u->trigger);
				tx(&t, "that packet (frame %u) reached the receiver, as its engine traced, while ", tl_pk(b, lostpk)->frame);
				if (w != RT_TL_NONE)
					tx(&t, "it still waited for PSN 0x%06x (frame %u, after it%s%s)", tl_pk(b, w)->psn,
					   tl_pk(b, w)->frame, pk_held_back(b, w) ? ": held back " : "",
					   pk_held_back(b, w) ? held_where(b, w) : "");
				else
					tx(&t, "it still waited for an earlier PSN");
				tx(&t, ", and discarded it as out of sequence");
				why = WHY_REORDERED;
			} else if (lostpk != RT_TL_NONE && late_after == RT_TL_NONE &&
				   (overtook = request_overtaken(b, k0->recv_qp, lostpk, u->trigger)) != RT_TL_NONE) {
				tx(&t, "that packet (frame %u) came before PSN 0x%06x (frame %u), which was sent before it ",
				   tl_pk(b, lostpk)->frame, tl_pk(b, overtook)->psn, tl_pk(b, overtook)->frame);
				if (ids_sent_after(b, tl_pk(b, lostpk), tl_pk(b, overtook)))
					tx(&t, "(as their IPv4 identifications show): reordered on the way");
				else
					tx(&t, "and held back %s", held_where(b, overtook));
				tx(&t, ", and the receiver, still waiting for that one, dropped it as out of sequence");
				why = WHY_REORDERED;
			} else if (lostpk != RT_TL_NONE && late_after == RT_TL_NONE) {
				tx(&t, "that packet (frame %u) was lost after the capture point or arrived late", tl_pk(b, lostpk)->frame);
				why = WHY_LOST_AFTER;
			} else if (late_after != RT_TL_NONE) {
				latepk = late_after;
				tx(&t, "that packet came late: held back %s, it passed the capture point %.3f ms after the NAK "
				       "(frame %u)",
				   held_where(b, latepk), ms(item_t(c, tl_item_pk(b, latepk)) - item_t(c, tl_item_pk(b, u->trigger))),
				   tl_pk(b, latepk)->frame);
				why = WHY_REORDERED;
			} else if (nak_acked != RT_TL_NONE) {
				tx(&t, "that packet reached it late: the receiver acknowledged it (frame %u) %.3f ms after the "
				       "NAK, when the sender had been told to go back (held back or delayed on the way)",
				   tl_pk(b, nak_acked)->frame,
				   ms(item_t(c, tl_item_pk(b, nak_acked)) - item_t(c, tl_item_pk(b, u->trigger))));
				why = WHY_REORDERED;
			} else if ((lostdrop = sent_drop(c, k0->send_qp, npsn, false, t_early, t_first, false)) != RT_TL_NONE ||
				   (gp != RT_TL_NONE && (lostdrop = drop_before_send(c, tl_pk(b, gp), npsn)) != RT_TL_NONE)) {
				tx(&t, "that packet never left the sender: its engine dropped it as it sent it%s",
				   drop_reason_words(tl_ev(b, lostdrop)));
				why = WHY_DROPPED;
			} else
				tx(&t, "that packet was lost before the capture point");
			tx(&t, ", so the sender resent ");
			resent_words(packets, bytes, &t);
			tx(&t, " from PSN 0x%06x", npsn);
		} else if (rgap) {
			const struct tl_pk *tr = tl_pk(b, u->trigger);
			tx(&t, atomic ? ": the atomic ACK for PSN 0x%06x " : ": the RDMA READ response PSN 0x%06x ", u->psn);
			if (rlost != RT_TL_NONE && tl_pk(b, rlost)->icrc == RT_ICRC_BAD) {
				tx(&t, "(frame %u) had a bad ICRC and the requester dropped it", tl_pk(b, rlost)->frame);
				why = WHY_DAMAGED;
			} else if (rlost != RT_TL_NONE &&
				   (rxdrop = traced_rx_drop(c, tl_pk(b, rlost)->recv_qp, rlost)) != RT_TL_NONE) {
				tx(&t, "(frame %u) reached the requester, whose engine dropped it as it arrived%s",
				   tl_pk(b, rlost)->frame, drop_reason_words(tl_ev(b, rxdrop)));
				why = WHY_DROPPED;
			} else if (rlost != RT_TL_NONE) {
				tx(&t, "(frame %u) was lost after the capture point or arrived late", tl_pk(b, rlost)->frame);
				why = WHY_LOST_AFTER;
			} else if (rlate != RT_TL_NONE) {
				tx(&t, "came late (frame %u), after later responses%s: held back %s", tl_pk(b, rlate)->frame,
				   rlate > u->first ? " and after the requester asked for it again" : "", held_where(b, rlate));
				why = WHY_REORDERED;
			} else if (after2 != RT_TL_NONE) {
				tx(&t, "came late, after the requester asked for it again: held back %s; after "
				       "that request the capture holds two copies of it (frames %u and %u, %.3f and %.3f ms after "
				       "the response that skipped it), its answer and the late one",
				   held_where(b, tl_engine_held(b, tl_pk(b, after2)) ? after2 : after1),
				   tl_pk(b, after1)->frame, tl_pk(b, after2)->frame,
				   ms(item_t(c, tl_item_pk(b, after1)) - item_t(c, tl_item_pk(b, u->trigger))),
				   ms(item_t(c, tl_item_pk(b, after2)) - item_t(c, tl_item_pk(b, u->trigger))));
				if (after_missing == 1)
					tx(&t, ", and before it every other response of that PSN asked for");
				else
					tx(&t, " (of the %u responses of that PSN asked for before and not in the capture, the "
					       "others were never sent: a responder asked again drops what it had left to send)",
					   after_missing);
				why = WHY_REORDERED;
			} else if ((lostdrop = sent_drop(c, k0->recv_qp, u->psn, true, t_early, t_first, false)) != RT_TL_NONE ||
				   (lostdrop = rtxdrop) != RT_TL_NONE) {
				tx(&t, "never left the responder: its engine dropped it as it sent it%s",
				   drop_reason_words(tl_ev(b, lostdrop)));
				rearly = rfollows = RT_TL_NONE; /* (not the story told) */
				why = WHY_DROPPED;
			} else if ((lostdrop = rqdrop) != RT_TL_NONE) {
				bool resend = tl_ev(b, rqdrop)->ev.u.pkt.flags & RT_PKTF_RETRANS;
				tx(&t, "never came: the requester's engine dropped %s %s of PSN 0x%06x as it sent it%s and the "
				       "responder never got it",
				   resend ? "its resend of the" : "its", atomic ? "atomic" : "READ request", u->psn,
				   drop_reason_words(tl_ev(b, rqdrop)));
				rearly = rfollows = RT_TL_NONE;
				why = WHY_DROPPED;
			} else if (rqrx != RT_TL_NONE) {
				tx(&t, "never came: the requester's %s%s (frame %u) reached the responder, whose engine dropped "
				       "it as it arrived%s",
				   tl_pk(b, u->prev)->retrans ? "resend of the " : "", atomic ? "atomic" : "READ request",
				   tl_pk(b, u->prev)->frame, drop_reason_words(tl_ev(b, rqrx)));
				rearly = rfollows = RT_TL_NONE;
				why = WHY_DROPPED;
			} else if (rearly != RT_TL_NONE) {
				tx(&t, "(frame %u) came before the one of PSN 0x%06x (frame %u), held back %s: the requester, "
				       "still waiting for that one, discarded it as out of sequence",
				   tl_pk(b, rearly)->frame, tl_pk(b, rfollows)->psn, tl_pk(b, rfollows)->frame,
				   held_where(b, rfollows));
				why = WHY_REORDERED;
			} else
				tx(&t, "was lost before the capture point");
			if (tr->op_class == rcls)
				tx(&t, ", so the next response (PSN 0x%06x, frame %u) was out of sequence", tr->psn, tr->frame);
			else
				tx(&t, ", so the ACK of the later PSN 0x%06x (frame %u) was an implied NAK", tr->psn, tr->frame);
			if (atomic && packets > 2)
				tx(&t, " and the requester sent the atomic again with the %u requests after it", packets - 1);
			else if (atomic)
				tx(&t, " and the requester sent the atomic again%s", packets == 2 ? " with the request after it" : "");
			else
				tx(&t, " and the requester asked again from PSN 0x%06x for %" PRIu64 " bytes", u->psn, bytes);
			if (nb > 1)
				tx(&t, " in %u %s", nb, atomic ? "rounds" : "requests");
			if (rfix != RT_TL_NONE && rfix != rlate && rfix != after1 && rfix != after2)
				/* (the late one may be what the requester took; the two copies are named) */
				tx(&t, "; its data came again in frame %u", tl_pk(b, rfix)->frame);
		} else {
			unsigned to = qp_timeout(b, u->requester);
			uint64_t waited;
			/* went back well before the configured timeout could expire: a NAK
			 * (or an implied one) the capture does not hold made it */
			uint64_t half = tl_half_ack_timeout_ns(b, u->requester);
			bool early = burst_early(c, u, &waited);
			uint32_t rpsn = early ? u->psn : u->round_psn;
			if (!early && ecause) {
				tx(&t, ": the sender went back to PSN 0x%06x, its first packet held back on the way (it passed the "
				       "capture point after the later ones): its engine traced that retry after %s",
				   u->psn, retry_cause_words(ecause));
				why = WHY_REORDERED;
			} else if (!early && !ecause && tcause) {
				/* the capture shows no NAK or response gap that started the round (it
				 * missed it, or the stream replay took the response past the PSN for
				 * one the requester had already: a response gap in a round of
				 * responses sent again), and its engine traced a retry after one:
				 * told as the engine has it */
				bool implied = tcause == RT_RETRY_IMPLIED_NAK;
				tx(&t, ": the %s went back to PSN 0x%06x after %s, as its engine traced%s",
				   implied ? "requester" : "sender", u->psn, retry_cause_words(tcause),
				   implied ? " (a response past it came first)" : "");
				lostdrop = retry_drop(c, k0, u->psn, tcause, t_first, &t);
				why = lostdrop != RT_TL_NONE ? WHY_DROPPED : WHY_UNSEEN_NAK;
			} else if (early && ecause) {
				tx(&t, ": the sender went back to PSN 0x%06x %.3f ms after sending it, long before the local ACK "
				       "timeout (timeout=%u, %.2f ms) could expire: its engine traced that retry after %s",
				   u->psn, ms(waited), to, rt_ack_timeout_us(to) / 1000.0, retry_cause_words(ecause));
				lostdrop = retry_drop(c, k0, u->psn, ecause, t_first, &t);
				why = lostdrop != RT_TL_NONE ? WHY_DROPPED
				      : ecause == RT_RETRY_ACK_TIMEOUT ? WHY_EARLY_TIMER : WHY_UNSEEN_NAK;
			} else if (early && b->capture_lossless) {
				tx(&t, ": the sender went back to PSN 0x%06x %.3f ms after sending it, with no NAK in the capture "
				       "that asked for it, which dropped nothing: its ACK timer (timeout=%u, %.2f ms) went off "
				       "early, armed for an earlier packet and still running (the kernel's SoftRoCE starts it only "
				       "when it is not running and does not stop it when everything is acknowledged: a spurious "
				       "timeout)",
				   u->psn, ms(waited), to, rt_ack_timeout_us(to) / 1000.0);
				why = WHY_EARLY_TIMER;
			} else if (early) {
				tx(&t, ": the sender went back to PSN 0x%06x %.3f ms after sending it, long before the local ACK timeout "
				       "(timeout=%u, %.2f ms) could expire: a NAK the capture does not hold made it do so, or its ACK "
				       "timer went off early, armed for an earlier packet and still running (the kernel's SoftRoCE "
				       "does not stop it when everything is acknowledged)",
				   u->psn, ms(waited), to, rt_ack_timeout_us(to) / 1000.0);
				why = WHY_UNSEEN_NAK;
			} else {
				/* the drops, as the engines sent them, the ACK timer went off for; the
				 * sender's of the packet the round went back to is told where the text
				 * says that packet was lost (before the capture point) */
				ndrops = round_tx_drops(c, k0, u->round_psn, t_early, t_end, drops, 3);
				if (unseen || rpsn != u->psn) {
					unsigned m = 0;
					for (unsigned x = 0; x < ndrops; x++) {
						bool same = b->ev_qp[drops[x]] == k0->send_qp &&
							    tl_ev(b, drops[x])->ev.u.pkt.psn == u->round_psn;
						if (same && lostdrop == RT_TL_NONE)
							lostdrop = drops[x];
						if (!same)
							drops[m++] = drops[x];
					}
					ndrops = m;
				}
				char lostw[256];
				if (lostdrop != RT_TL_NONE)
					snprintf(lostw, sizeof(lostw), "dropped by the sender's engine on the way out%s",
						 drop_reason_words(tl_ev(b, lostdrop)));
				else
					snprintf(lostw, sizeof(lostw), "lost before the capture point");
				bool by_ids = false;
				if (k0->op_class == RT_CLASS_READ_REQ && captured)
					rahead = read_response_overtaking(b, u->stream, u->round_psn, u->first, &rbehind, &by_ids);
				if (rahead != RT_TL_NONE)
					tx(&t, ": the READ response for PSN 0x%06x (frame %u) came before the one of PSN 0x%06x "
					       "(frame %u), which was sent before it (%s): reordered on the way; the requester, "
					       "still waiting for that one, dropped it as out of sequence and took no response for "
					       "PSN 0x%06x",
					   u->round_psn, tl_pk(b, rahead)->frame, tl_pk(b, rbehind)->psn, tl_pk(b, rbehind)->frame,
					   by_ids ? "as their IPv4 identifications show" : "the responder answers a request in PSN order",
					   u->round_psn);
				else
					tx(&t, k0->op_class == RT_CLASS_READ_REQ ? ": no READ response %s for PSN 0x%06x"
										  : ": no ACK %s for PSN 0x%06x",
					   ack != RT_TL_NONE ? "reached the sender" : "came", u->round_psn);
				/* less than the whole timeout after this packet (less a tenth for the
				 * timer's granularity): the timer ran already when it was sent */
				uint64_t timeout = 2 * half;
				bool running = captured && to != 0xFF && to && timeout && waited < timeout - timeout / 10;
				if (running)
					tx(&t, " before the sender's ACK timer (timeout=%u, %.2f ms) went off, %.3f ms after it "
					       "was sent: the timer was started for an earlier packet and still running%s",
					   to, rt_ack_timeout_us(to) / 1000.0, ms(waited),
					   qp_on_rxe(c, k0->send_qp) ? " (the kernel's SoftRoCE starts it only when it is not "
					   "running, and does not restart it for later packets)" : "");
				else if (to != 0xFF && to)
					tx(&t, " within the local ACK timeout (timeout=%u, %.2f ms)", to, rt_ack_timeout_us(to) / 1000.0);
				else
					tx(&t, " before the local ACK timeout expired");
				/* whole timeouts beyond the first: rounds whose resend never reached
				 * the capture (each restarts the timer; a tenth for its granularity) */
				uint64_t timed = captured ? t_first - timer_start(c, k0, u->prev, u->first) : 0;
				unsigned unseen_rounds = captured && !running && timeout &&
							 stream_silent(b, u->stream, u->prev, u->first)
								 ? (unsigned)((timed + timeout / 10) / timeout) - 1 : 0;
				/* the sender's engine's drops of those resends (named below, up to 3 drops) */
				unsigned unseen_dropped = unseen_rounds ? sent_drops(c, k0->send_qp, u->round_psn, false,
										     t_prev + 1, t_first - 1) : 0;
				if (unseen_rounds)
					tx(&t, " (%.3f ms after it was sent: %u ACK timeouts, the sender's resend%s after the "
					       "first %s)",
					   ms(waited), unseen_rounds + 1, unseen_rounds == 1 ? "" : "s",
					   unseen_dropped >= unseen_rounds ? "never reaching the capture point: dropped by its engine"
									   : "lost before the capture point");
				else if (captured && !running)
					tx(&t, " (%.3f ms after it was sent)", ms(waited));
				else if (unseen && since != RT_TL_NONE && engine_unseen == 1)
					tx(&t, " (%.3f ms after it was first sent; that packet and its first resend were %s)",
					   ms(t_first - item_t(c, since)), lostw);
				else if (unseen && since != RT_TL_NONE && engine_unseen)
					tx(&t, " (%.3f ms after it was first sent; that packet and its first %u resends were %s)",
					   ms(t_first - item_t(c, since)), engine_unseen, lostw);
				else if (unseen && since != RT_TL_NONE)
					tx(&t, " (%.3f ms after it was %s; that packet was %s)", ms(t_first - item_t(c, since)),
					   esend != RT_TL_NONE ? "sent" : "posted",
					   item_t(c, since) < capture_start(b) ? "sent before the capture started" : lostw);
				else if (unseen)
					tx(&t, " (that packet was %s)", lostw);
				uint32_t held = rpsn != u->psn ? late_in_round(b, u->first, rpsn) : RT_TL_NONE;
				if (held != RT_TL_NONE)
					tx(&t, "; the sender's resend of it came after later PSNs (frame %u): held back on the way",
					   tl_pk(b, held)->frame);
				else if (rpsn != u->psn)
					tx(&t, "; the sender's resend of it was %s", lostw);
				/* the drop of the resend the trigger asked for is told with it */
				uint32_t tdrop = RT_TL_NONE;
				if (u->trigger != RT_TL_NONE) {
					uint64_t t_tr = item_t(c, tl_item_pk(b, u->trigger));
					tdrop = sent_drop(c, k0->send_qp, u->round_psn, false, t_tr > 1000000 ? t_tr - 1000000 : 0,
							  t_first, false);
					unsigned m = 0;
					for (unsigned x = 0; x < ndrops; x++)
						if (drops[x] != tdrop)
							drops[m++] = drops[x];
					ndrops = m;
				}
				for (unsigned x = 0; x < ndrops; x++) {
					const struct tl_evrec *d = tl_ev(b, drops[x]);
					if (b->ev_qp[drops[x]] == k0->send_qp)
						tx(&t, "; %sthe sender's engine dropped PSN 0x%06x as it sent it%s: the receiver "
						       "never got it", x ? "then " : "", d->ev.u.pkt.psn, drop_reason_words(d));
					else
						tx(&t, "; %sthe receiver's engine dropped its %s of PSN 0x%06x as it sent it%s: the "
						       "sender never got it", x ? "then " : "", response_words(&d->ev), d->ev.u.pkt.psn,
						   drop_reason_words(d));
				}
				if (u->trigger != RT_TL_NONE)
					missed_trigger_words(c, k0, t_first, tdrop, &t);
				if (lostdrop == RT_TL_NONE)
					lostdrop = tdrop; /* (its evidence) */
				perr = u->requester != RT_TL_NONE ? peer_error_before(c, u->requester, t_first) : RT_TL_NONE;
				if (perr != RT_TL_NONE)
					tx(&t, "; its peer QP had moved to the ERROR state at %.6f s (its trace), and a QP in ERROR "
					       "answers no request", (double)item_t(c, perr) / 1e9);
				why = rahead != RT_TL_NONE || held != RT_TL_NONE ? WHY_REORDERED
				      : lostdrop != RT_TL_NONE || ndrops ? WHY_DROPPED
				      : perr != RT_TL_NONE ? WHY_PEER_ERROR
				      : captured && rpsn == u->psn ? WHY_NO_ANSWER : WHY_LOST_BEFORE;
				nb += unseen_rounds + engine_unseen;
			}
			/* (what these clauses tell of the transmission repeated says more of
			 * why the round started than what was told before) */
			if (captured && tl_pk(b, u->prev)->icrc == RT_ICRC_BAD) {
				tx(&t, "; the transmission it repeats (frame %u) had a bad ICRC and the receiver dropped it",
				   tl_pk(b, u->prev)->frame);
				why = WHY_DAMAGED;
			} else if (u->cause == RT_RETRY_ACK_TIMEOUT &&
				   (dmg = damaged_ackreq(b, u->first, u->psn, packets)) != RT_TL_NONE) {
				tx(&t, "; the request that asked for its ACK (frame %u, PSN 0x%06x, AckReq) had a bad ICRC: the "
				       "receiver dropped it and sent no ACK", tl_pk(b, dmg)->frame, tl_pk(b, dmg)->psn);
				why = WHY_DAMAGED;
			} else if (captured && (rxdrop = traced_rx_drop(c, tl_pk(b, u->prev)->recv_qp, u->prev)) != RT_TL_NONE) {
				tx(&t, "; the transmission it repeats (frame %u) reached the receiver, whose engine dropped it "
				       "as it arrived%s", tl_pk(b, u->prev)->frame, drop_reason_words(tl_ev(b, rxdrop)));
				why = WHY_DROPPED;
			} else if (u->cause == RT_RETRY_ACK_TIMEOUT && captured &&
				   (fz = engine_frozen(c, tl_pk(b, u->prev)->recv_qp, t_prev, t_first)) != NULL) {
				tx(&t, "; the receiver's process, which runs its engine (uroce), was frozen from %.6f s for "
				       "%.3f s (its own finding): nothing answered", (double)item_t(c, fz->from) / 1e9,
				   (double)(item_t(c, fz->to) - item_t(c, fz->from)) / 1e9);
				why = WHY_FROZEN;
			}
			if (k0->op_class == RT_CLASS_READ_REQ)
				tx(&t, ", so the requester asked again for %" PRIu64 " bytes", bytes);
			else {
				tx(&t, ", so the sender resent ");
				resent_words(packets, bytes, &t);
			}
			if (rpsn != u->psn)
				tx(&t, " from PSN 0x%06x", u->psn);
			if (nb > 1)
				tx(&t, " in %u rounds", nb);
		}
		retry_cnt7_words(c, u->requester, nb, &t);
		/* the receiver gone before or during the rounds: what kept them unanswered */
		uint32_t gone = u->cause == RT_RETRY_ACK_TIMEOUT && u->requester != RT_TL_NONE
					? peer_gone_words(c, u->requester, b->capture_host, t_first, t_end, &t)
					: RT_TL_NONE;
		if (gone != RT_TL_NONE && item_t(c, gone) <= t_first && (why == WHY_NO_ANSWER || why == WHY_LOST_BEFORE))
			why = WHY_PEER_GONE;
		uint32_t badack = ack != RT_TL_NONE && tl_pk(b, ack)->icrc == RT_ICRC_BAD ? ack : RT_TL_NONE;
		uint8_t ack_why = why; /* what became of the answer to packets the receiver had (told below) */
		if (badack != RT_TL_NONE) {
			tx(&t, "; %u of them had already been received (their ACK, frame %u, had a bad ICRC and the "
			       "requester dropped it)", dups, tl_pk(b, badack)->frame);
			ack_why = WHY_DAMAGED;
		} else if (ack != RT_TL_NONE && ack == nak_acked) {
			tx(&t, "; %u of them had already been received (that ACK came too late to spare them)", dups);
		} else if (ack != RT_TL_NONE && nak && ack > u->trigger) {
			/* (the NAK had made the sender go back already) */
			tx(&t, "; %u of them had already been received: their ACK (frame %u) came after the NAK, too late to "
			       "spare them", dups, tl_pk(b, ack)->frame);
		} else if (ack != RT_TL_NONE && (rxdrop = traced_rx_drop(c, tl_pk(b, ack)->recv_qp, ack)) != RT_TL_NONE) {
			tx(&t, "; %u of them had already been received: their ACK (frame %u) reached the sender, whose engine "
			       "dropped it as it arrived%s", dups, tl_pk(b, ack)->frame, drop_reason_words(tl_ev(b, rxdrop)));
			ack_why = WHY_DROPPED;
		} else if (ack != RT_TL_NONE && (sfz = engine_frozen(c, k0->send_qp, item_t(c, tl_item_pk(b, ack)), t_first))) {
			tx(&t, "; %u of them had already been received: their ACK (frame %u) passed the capture point %.3f ms "
			       "before the resend, while the sender's process, which runs its engine (uroce), was frozen "
			       "(from %.6f s for %.3f s: its own finding), and when it went on its ACK timer went off before "
			       "it took that ACK in", dups, tl_pk(b, ack)->frame, ms(t_first - item_t(c, tl_item_pk(b, ack))),
			   (double)item_t(c, sfz->from) / 1e9, (double)(item_t(c, sfz->to) - item_t(c, sfz->from)) / 1e9);
			ack_why = WHY_FROZEN;
		} else if (ack != RT_TL_NONE) {
			ack_why = WHY_LOST_AFTER;
			uint64_t gap = t_first - item_t(c, tl_item_pk(b, ack));
			/* the way from the capture point to the sender and back, as far as the
			 * clock alignment knows it: an ACK that passed within it may have
			 * reached the sender after the resend left */
			uint64_t unc = sender_uncertainty(c, k0->send_qp);
			tx(&t, "; %u of them had already been received: their ACK (frame %u) passed the capture point %.3f ms "
			       "before the resend, so it was lost after it, on its way to the sender",
			   dups, tl_pk(b, ack)->frame, ms(gap));
			if (gap < 1000000)
				tx(&t, ", or was still on its way when the timer went off");
			else if (unc && gap < 2 * unc)
				tx(&t, ", or reached the sender only after the resend had left it (the sender's clock is known to "
				       "+-%.3f ms: between it and the capture point, there and back, may lie up to %.3f ms)",
				   ms(unc), ms(2 * unc));
		} else if (dups && (k0->op_class == RT_CLASS_READ_REQ || atomic) &&
			   (rxdrop = response_rx_drop(c, k0, u->first, &rdropped)) != RT_TL_NONE) {
			tx(&t, "; %u of them asked for %s the capture already held in order: %s (frame %u) reached the "
			       "requester, whose engine dropped it as it arrived%s",
			   dups, atomic ? "an atomic ACK" : "responses", atomic ? "that atomic ACK" : "the response",
			   tl_pk(b, rdropped)->frame, drop_reason_words(tl_ev(b, rxdrop)));
			ack_why = WHY_DROPPED;
		} else if (dups && (k0->op_class == RT_CLASS_READ_REQ || atomic) && captured &&
			   (sfz = engine_frozen(c, k0->send_qp, t_prev, t_first))) {
			tx(&t, "; %u of them asked for %s the capture already held in order, while the requester's process, "
			       "which runs its engine (uroce), was frozen (from %.6f s for %.3f s: its own finding), and when "
			       "it went on its ACK timer went off before it took %s in",
			   dups, atomic ? "an atomic ACK" : "responses", (double)item_t(c, sfz->from) / 1e9,
			   (double)(item_t(c, sfz->to) - item_t(c, sfz->from)) / 1e9, atomic ? "that atomic ACK" : "them");
			ack_why = WHY_FROZEN;
		} else if (dups && (k0->op_class == RT_CLASS_READ_REQ || atomic)) {
			tx(&t, "; %u of them asked for %s the capture already held in order (still on %s way to the "
			       "requester, or lost after the capture point)",
			   dups, atomic ? "an atomic ACK" : "responses", atomic ? "its" : "their");
			ack_why = WHY_LOST_AFTER;
		} else if (dups && dmg != RT_TL_NONE) {
			tx(&t, "; %u of them had already been received", dups); /* (no ACK: said above) */
		} else if (dups) {
			tx(&t, "; %u of them had already been received (their ACK was lost or late)", dups);
		}
		/* a round the text puts down to no answer: what became of that answer says more */
		if (why == WHY_NO_ANSWER || why == WHY_LOST_BEFORE)
			why = ack_why;
		tx(&t, overlaps ? "; %.3f ms lost on top of the earlier retransmissions on this QP." : "; %.3f ms lost.", ms(lost));
		tx(&e, "first retransmission frame %u", k0->frame);
		if (nb > 1 || z->last != u->first)
			tx(&e, ", last frame %u", tl_pk(b, z->last)->frame);
		if (u->trigger != RT_TL_NONE)
			tx(&e, ", %s frame %u", trigger_name(tl_pk(b, u->trigger)), tl_pk(b, u->trigger)->frame);
		if (rlost != RT_TL_NONE)
			tx(&e, ", lost response frame %u", tl_pk(b, rlost)->frame);
		if (after2 != RT_TL_NONE)
			tx(&e, ", late and resent response frames %u and %u", tl_pk(b, after1)->frame, tl_pk(b, after2)->frame);
		else if (rlate != RT_TL_NONE)
			tx(&e, ", late response frame %u", tl_pk(b, rlate)->frame);
		else if (rearly != RT_TL_NONE)
			tx(&e, ", early response frame %u, late response frame %u", tl_pk(b, rearly)->frame,
			   tl_pk(b, rfollows)->frame);
		else if (rahead != RT_TL_NONE)
			tx(&e, ", response dropped as out of sequence frame %u, the response it overtook frame %u",
			   tl_pk(b, rahead)->frame, tl_pk(b, rbehind)->frame);
		if (overtook != RT_TL_NONE)
			tx(&e, ", the request it overtook frame %u", tl_pk(b, overtook)->frame);
		if (rfix != RT_TL_NONE && after2 == RT_TL_NONE && rfix != rlate)
			tx(&e, ", resent response frame %u", tl_pk(b, rfix)->frame);
		if (badack != RT_TL_NONE)
			tx(&e, ", damaged ACK frame %u", tl_pk(b, badack)->frame);
		else if (ack != RT_TL_NONE && ack != nak_acked && nak && ack > u->trigger)
			tx(&e, ", ACK after the NAK frame %u", tl_pk(b, ack)->frame);
		else if (ack != RT_TL_NONE && ack != nak_acked && sfz)
			tx(&e, ", ACK the frozen sender had not taken in frame %u", tl_pk(b, ack)->frame);
		else if (ack != RT_TL_NONE && ack != nak_acked)
			tx(&e, ", ACK lost after the capture point frame %u", tl_pk(b, ack)->frame);
		if (nak_acked != RT_TL_NONE)
			tx(&e, ", late ACK frame %u", tl_pk(b, nak_acked)->frame);
		if (latepk != RT_TL_NONE)
			tx(&e, ", late original frame %u", tl_pk(b, latepk)->frame);
		if (nak && lostpk != RT_TL_NONE)
			tx(&e, ", %s transmission frame %u", lostpk == u->original ? "original" : "latest", tl_pk(b, lostpk)->frame);
		else if (!nak && u->original != RT_TL_NONE && u->original != u->first)
			tx(&e, ", original transmission frame %u", tl_pk(b, u->original)->frame);
		else if (gp != RT_TL_NONE)
			tx(&e, ", PSN gap seen at frame %u", tl_pk(b, gp)->frame);
		else if (esend != RT_TL_NONE)
			tx(&e, ", earlier transmission in the engine trace only");
		if (lostdrop != RT_TL_NONE)
			sent_drop_evidence(c, k0, lostdrop, &e);
		for (unsigned x = 0; x < ndrops; x++)
			sent_drop_evidence(c, k0, drops[x], &e);
		if (k0->wr != RT_TL_NONE) {
			tx(&e, ", ");
			wr_words(b, k0->wr, &e);
		}
		/* the cause the text states: the NAK's or the response gap's the
		 * capture holds, else the retry its engine traced, else the round's */
		uint8_t stated = !nak && !rgap && ecause ? ecause : !nak && !rgap && tcause ? tcause : u->cause;
		long f = finding(b, RT_TLFK_GO_BACK_N, RT_TLS_WARNING, t_start, u->requester != RT_TL_NONE ? u->requester : u->stream,
				 lost, bytes, &t, &e);
		if (f < 0 || round_told(c, f, why, packets, tl_item_pk(b, u->first), tl_item_pk(b, z->last)) < 0) {
			free(covered);
			free(before);
			free(eng);
			free(claims);
			return -ENOMEM;
		}
		for (size_t j = i; j < bursts->n; j++) {
			struct burst *o = TL_AT(bursts, struct burst, j);
			if (o->group != u->group || o->stream != u->stream)
				continue;
			o->fidx = f;
			o->peer_error = perr != RT_TL_NONE;
			o->stated = stated;
			tl_finding_evidence(b, FI(b, f), tl_item_pk(b, o->first));
			evidence_pk(b, FI(b, f), o->trigger);
		}
		if (nak && lostpk != RT_TL_NONE)
			tl_finding_evidence(b, FI(b, f), tl_item_pk(b, lostpk));
		else if (!nak && u->original != RT_TL_NONE && u->original != u->first)
			tl_finding_evidence(b, FI(b, f), tl_item_pk(b, u->original));
		evidence_pk(b, FI(b, f), latepk);
		evidence_pk(b, FI(b, f), gp);
		evidence_pk(b, FI(b, f), rlost);
		tl_finding_evidence(b, FI(b, f), rxdrop);
		evidence_pk(b, FI(b, f), rdropped);
		evidence_pk(b, FI(b, f), rlate);
		evidence_pk(b, FI(b, f), rearly);
		evidence_pk(b, FI(b, f), rfollows);
		evidence_pk(b, FI(b, f), rahead);
		evidence_pk(b, FI(b, f), rbehind);
		evidence_pk(b, FI(b, f), overtook);
		evidence_pk(b, FI(b, f), after2);
		evidence_pk(b, FI(b, f), after1);
		evidence_pk(b, FI(b, f), rfix);
		evidence_pk(b, FI(b, f), ack);
		if (nak_acked != ack)
			evidence_pk(b, FI(b, f), nak_acked);
		tl_finding_evidence(b, FI(b, f), esend);
		tl_finding_evidence(b, FI(b, f), perr);
		if (k0->wr != RT_TL_NONE)
			tl_finding_evidence(b, FI(b, f), k0->wr);
	}
	free(covered);
	free(before);
	free(eng);
	free(claims);
	return 0;
}

/* A round's resent packets say the retry cause its finding states, so the
 * annotated capture (Wireshark, the viewer) and the diagnosis agree: the
 * stream replay (tl_link.c) knows only the capture, and a round with no NAK
 * in it reads there as an ACK timer's, where the engine traced its retry
 * after a NAK the capture missed.  After every detector: some of them ask
 * the stream replay's cause. */
static void round_causes(struct tl_build *b, const struct tl_vec *bursts)
{
	for (size_t i = 0; i < bursts->n; i++) {
		const struct burst *u = TL_AT(bursts, const struct burst, i);
		if (!u->stated || u->fidx < 0)
			continue;
		for (uint32_t j = u->first; j <= u->last; j++) {
			struct tl_pk *k = tl_pk(b, j);
			if (k->is_request && k->recv_qp == u->stream && k->retrans && !k->wire_copy && !k->late)
				k->retrans_cause = u->stated;
		}
	}
}

/* ---- RNR stalls ---- */

static unsigned qp_rnr_retry(struct tl_build *b, uint32_t q)
{
	return q != RT_TL_NONE ? tl_qp(b, q)->rnr_retry : 0xFF;
}

static struct rq_posts *rq_posts(struct dctx *c)
{
	struct tl_build *b = c->b;
	size_t nq = b->qps.n, nev = tl_nev(b);
	if (c->rq)
		return c->rq;
	struct rq_posts *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->off = calloc(nq + 2, sizeof(uint32_t));
	r->skip = calloc(nq + 1, sizeof(uint32_t));
	r->from = calloc(nq + 1, sizeof(uint64_t));
	size_t n = 0;
	for (size_t i = 0; r->off && i < nev; i++) {
		const struct tl_evrec *e = tl_ev(b, i);
		if (b->ev_qp[i] < nq && !b->ev_shadow[i] && e->ev.kind == RT_EV_WR_POST && e->ev.u.wr.queue == RT_WRQ_RECV) {
			r->off[b->ev_qp[i] + 2]++;
			n++;
		}
	}
	r->ev = malloc((n + 1) * sizeof(uint32_t));
	if (!r->off || !r->skip || !r->from || !r->ev) {
		free(r->off);
		free(r->skip);
		free(r->from);
		free(r->ev);
		free(r);
		return NULL;
	}
	for (size_t q = 0; q < nq; q++)
		r->off[q + 2] += r->off[q + 1];
	for (size_t i = 0; i < nev; i++) { /* off[q + 1] counts QP q's placed so far */
		const struct tl_evrec *e = tl_ev(b, i);
		if (b->ev_qp[i] < nq && !b->ev_shadow[i] && e->ev.kind == RT_EV_WR_POST && e->ev.u.wr.queue == RT_WRQ_RECV)
			r->ev[r->off[b->ev_qp[i] + 1]++] = (uint32_t)i;
	}
	return c->rq = r;
}

/* When receive WR event i was taken by its message, from the capture: its
 * consumer packet, or that message's first transmission when earlier (the
 * link names the last one) unless it has request req's PSN on req's stream
 * (the message the depth is asked for); UINT64_MAX unknown. */
static uint64_t recv_taken(struct dctx *c, uint32_t i, uint32_t req)
{
	struct tl_build *b = c->b;
	uint32_t pk = first_link(c, i, RT_TLL_CONSUMER);
	uint32_t cp = first_link(c, i, RT_TLL_COMPLETION);
	uint64_t taken = cp != RT_TL_NONE ? item_t(c, cp) : UINT64_MAX;
	if (pk != RT_TL_NONE && pk >= tl_nev(b) && pk < tl_item_pk(b, tl_npk(b))) {
		const struct tl_pk *k = tl_pk(b, pk - tl_nev(b));
		bool same = req != RT_TL_NONE && k->recv_qp == tl_pk(b, req)->recv_qp && k->psn == tl_pk(b, req)->psn;
		uint64_t tk = item_t(c, pk);
		if (!same && k->original != RT_TL_NONE && item_t(c, tl_item_pk(b, k->original)) < tk)
			tk = item_t(c, tl_item_pk(b, k->original));
		if (tk < taken)
			taken = tk;
	}
	return taken;
}

/* Receive WRs on the receiver QP posted and not yet taken at time t
 * (aligned), when request packet req (RT_TL_NONE) arrived; *near: those
 * whose post is within the receiver's clock uncertainty before t, not
 * counted (before or after t is not known); *next_post: the first post
 * after t, 0 none.  A receive is taken by the message its consumer link
 * names, whose first transmission may be earlier than that packet (the link
 * names the last one): one taken before t was posted before t too, whatever
 * its clock says.  -1: q's receives are not traced (or no memory). */
static long recv_depth(struct dctx *c, uint32_t q, uint64_t t, uint32_t req, uint64_t *next_post, uint32_t *near)
{
	struct tl_build *b = c->b;
	*near = 0;
	*next_post = 0;
	struct rq_posts *r;
	if (q == RT_TL_NONE || !(tl_qp(b, q)->flags & RT_TLQ_TRACED) || !(r = rq_posts(c)))
		return -1;
	if (t < r->from[q])
		r->skip[q] = 0; /* asked about an earlier time than before: from the start */
	r->from[q] = t;
	long posted = 0;
	bool skipping = true;
	for (uint32_t x = r->off[q] + r->skip[q]; x < r->off[q + 1]; x++) {
		uint32_t i = r->ev[x];
		const struct tl_evrec *e = tl_ev(b, i);
		const struct rt_tl_host *h = tl_host(b, e->host);
		uint64_t et = tl_align(h, e->raw_ns);
		if (recv_taken(c, i, req) < t) {
			if (skipping)
				r->skip[q]++; /* taken before t: so before every later t too */
			continue; /* posted and taken before t */
		}
		skipping = false;
		if (et > t) {
			*next_post = et; /* posts are in order: the rest come later still */
			break;
		}
		if (t - et >= h->uncertainty_ns)
			posted++;
		else
			(*near)++;
	}
	return posted;
}

/* Whether request o's sending engine (QP q) traced it as the resend its
 * RNR timer made: a RETRY record with cause RNR from o's PSN just before
 * its send (within the 16 records of its thread before it and 1 ms).  A
 * sender busy with other work resends after an RNR NAK's timer later than
 * the timer says, which the capture alone takes for the ACK timeout's round. */
static bool engine_rnr_resend(struct tl_build *b, const struct tl_pk *o, uint32_t q)
{
	if (o->event >= tl_nev(b))
		return false;
	const struct tl_evrec *s = tl_ev(b, o->event);
	if (s->ev.kind != RT_EV_PACKET || !(s->ev.flags & RT_EVF_TX) || b->ev_qp[o->event] != q)
		return false;
	for (uint32_t j = o->event, n = 0; j-- > 0 && n < 256;) {
		const struct tl_evrec *r = tl_ev(b, j);
		if (r->host != s->host || r->proc != s->proc || r->ev.tid != s->ev.tid)
			continue;
		if (++n > 16 || s->raw_ns - r->raw_ns > 1000000)
			return false;
		if (r->ev.kind == RT_EV_RETRY && b->ev_qp[j] == q && r->ev.u.retry.first_psn == o->psn)
			return r->ev.u.retry.cause == RT_RETRY_RNR;
	}
	return false;
}

/* How many of the RNR NAKs for PSN psn that responder QP q sent from t0 to
 * t1 (widened by 10 ms and its host's clock uncertainty, at most 10 ms
 * more) its engine traced as made up by a fault rule (RT_RNRF_INJECTED). */
static unsigned injected_rnrs(struct dctx *c, uint32_t q, uint32_t psn, uint64_t t0, uint64_t t1)
{
	struct tl_build *b = c->b;
	unsigned n = 0;
	for (size_t x = 0; q != RT_TL_NONE && x < b->rnr_injected.n; x++) {
		uint32_t i = *TL_AT(&b->rnr_injected, uint32_t, x);
		const struct tl_evrec *e = tl_ev(b, i);
		uint64_t unc = e->host < b->hosts.n ? tl_host(b, e->host)->uncertainty_ns : UINT64_MAX;
		uint64_t w = 10000000ull + (unc > 10000000ull ? 10000000ull : unc), t = item_t(c, i);
		if (b->ev_qp[i] == q && e->ev.u.rnr.psn == psn && t + w >= t0 && t <= t1 + w)
			n++;
	}
	return n;
}

/* The timer codes an episode's RNR NAKs carried, in the order they first
 * came (a responder may change its QP's min_rnr_timer between them). */
struct rnr_codes {
	unsigned n;               /* distinct codes */
	uint8_t order[32];
	uint32_t count[32];       /* per code */
};

static void rnr_code_count(struct rnr_codes *r, unsigned code)
{
	code &= 31;
	if (!r->count[code]++)
		r->order[r->n++] = (uint8_t)code;
}

/* " with timer code 0 (655.36 ms)", or with several: " with timer code 0
 * (655.36 ms) (1 of them), then code 1 (0.01 ms) (2127)". */
static void rnr_codes_words(const struct rnr_codes *r, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = 0;
	for (unsigned k = 0; k < r->n && o < len; k++) {
		unsigned c = r->order[k];
		int w = snprintf(buf + o, len - o, k ? ", then code %u (%.2f ms)" : " with timer code %u (%.2f ms)", c,
				 rt_rnr_timer_us(c) / 1000.0);
		o += w > 0 ? (size_t)w : 0;
		if (r->n > 1 && o < len) {
			w = snprintf(buf + o, len - o, k ? " (%u)" : " (%u of them)", r->count[c]);
			o += w > 0 ? (size_t)w : 0;
		}
	}
}

/* The traced modifies of QP q that set its min_rnr_timer between the
 * aligned times from and to: up to max of them in out[], in the order its
 * process made them; their number; the latest of all in *last (when not
 * NULL; RT_TL_NONE for none).  (They are collected from all events the
 * first time one is asked for.) */
static unsigned min_rnr_timer_sets(struct dctx *c, uint32_t q, uint64_t from, uint64_t to, uint32_t *out,
				   unsigned max, uint32_t *last)
{
	struct tl_build *b = c->b;
	if (!c->rnr_timer_sets_read) {
		c->rnr_timer_sets_read = true;
		for (size_t j = 0; j < tl_nev(b); j++) {
			const struct tl_evrec *e = tl_ev(b, j);
			if (e->ev.kind == RT_EV_QP_STATE && !e->ev.u.qp_state.result && !(e->ev.flags & RT_EVF_ERROR) &&
			    (e->ev.u.qp_state.attr_mask & RT_QPA_MIN_RNR_TIMER) && !b->ev_shadow[j] &&
			    tl_vec_push_u32(&c->rnr_timer_sets, (uint32_t)j) < 0)
				break; /* (out of memory: fewer named) */
		}
	}
	unsigned n = 0;
	if (last)
		*last = RT_TL_NONE;
	for (size_t x = 0; x < c->rnr_timer_sets.n; x++) {
		uint32_t j = *TL_AT(&c->rnr_timer_sets, uint32_t, x);
		if (b->ev_qp[j] != q || item_t(c, j) < from || item_t(c, j) > to)
			continue;
		if (last)
			*last = j;
		if (n < max)
			out[n++] = j;
	}
	return n;
}

/* Where the min_rnr_timer 0 of an RNR stall's responder QP came from, in
 * words: RDMA CM's move to RTR when the QP was connected through it, else
 * the latest traced modify that set it before t0 (widened by the
 * responder's clock uncertainty), when that set 0.  Returns that modify
 * (for the evidence), or RT_TL_NONE. */
static uint32_t rnr_zero_source_words(struct dctx *c, uint32_t responder, uint64_t t0, struct text *t)
{
	struct tl_build *b = c->b;
	if (responder >= b->qps.n)
		return RT_TL_NONE;
	const struct rt_tl_qp *Q = tl_qp(b, responder);
	if (Q->flags & RT_TLQ_CM) {
		tx(t, "; the receiver's QP was connected through RDMA CM, which gives a QP min_rnr_timer 0 when it moves it to RTR "
		      "(rdma_accept, or rdma_connect once the reply comes) and has no option to choose another: change it "
		      "once connected, with an RTS to RTS ibv_modify_qp of IBV_QP_MIN_RNR_TIMER");
		return RT_TL_NONE;
	}
	if (Q->host >= b->hosts.n)
		return RT_TL_NONE;
	uint32_t set;
	min_rnr_timer_sets(c, responder, 0, t0 + sender_uncertainty(c, responder), NULL, 0, &set);
	if (set == RT_TL_NONE || tl_ev(b, set)->ev.u.qp_state.min_rnr_timer != 0)
		return RT_TL_NONE;
	const struct rt_ev_qp_state *q = &tl_ev(b, set)->ev.u.qp_state;
	tx(t, "; the receiver's program set that 0 itself, with ibv_modify_qp (%s to %s) at %.6f s (its trace)",
	   rt_qp_state_name(q->from_state), rt_qp_state_name(q->to_state), (double)item_t(c, set) / 1e9);
	return set;
}

/* ", the receiver's modify that set min_rnr_timer N at T s" for modify j. */
static void rnr_timer_set_evidence(struct dctx *c, uint32_t j, struct text *e)
{
	tx(e, ", the receiver's modify that set min_rnr_timer %u at %.6f s", tl_ev(c->b, j)->ev.u.qp_state.min_rnr_timer,
	   (double)item_t(c, j) / 1e9);
}

static int rnr_stalls(struct dctx *c, struct tl_vec *bursts)
{
	struct tl_build *b = c->b;
	size_t npk = tl_npk(b);
	for (size_t x = 0; x < b->naks.n; x++) { /* the captured NAKs, in capture order */
		size_t i = *TL_AT(&b->naks, uint32_t, x);
		struct tl_pk *k = tl_pk(b, i);
		if (k->aeth_type != RT_AETH_RNR_NAK || k->op_class != RT_CLASS_ACK || c->pk_used[i])
			continue;
		/* the episode: RNR NAKs for this PSN on this connection until the PSN gets through */
		uint32_t requester = k->recv_qp, responder = k->send_qp;
		uint32_t n = 0, lastnak = (uint32_t)i, resolved = RT_TL_NONE, nseq = 0, firstseq = RT_TL_NONE;
		struct rnr_codes codes = {.n = 0};
		for (size_t j = i; j < npk; j++) {
			struct tl_pk *o = tl_pk(b, j);
			if (o->op_class == RT_CLASS_ACK && o->recv_qp == requester && o->send_qp == responder) {
				if (o->aeth_type == RT_AETH_RNR_NAK && o->psn == k->psn) {
					rnr_code_count(&codes, o->aeth_value);
					n++;
					lastnak = (uint32_t)j;
					c->pk_used[j] = 1;
					continue;
				}
				if (rt_psn_diff(o->psn, k->psn) >= 0 && o->aeth_type == RT_AETH_ACK) {
					resolved = (uint32_t)j;
					break;
				}
				/* requests queued behind the RNR-NAKed one are answered with NAK
				 * PSN sequence error naming it: still this episode */
				if (tl_pk_seq_nak(o) && o->psn == k->psn) {
					if (firstseq == RT_TL_NONE)
						firstseq = (uint32_t)j;
					nseq++;
					continue;
				}
				if (o->aeth_type == RT_AETH_NAK && rt_psn_diff(o->psn, k->psn) >= 0)
					break;
			}
		}
		/* the retransmission after the last RNR NAK; one that came only after
		 * the ACK timeout (wire_streams) means the RNR resend never reached
		 * the capture: the stall ended with the timer, the rest is that round's */
		uint32_t resend = RT_TL_NONE, late = RT_TL_NONE;
		for (size_t j = lastnak + 1; j < npk; j++) {
			struct tl_pk *o = tl_pk(b, j);
			if (resolved != RT_TL_NONE && j > resolved)
				break;
			if (!o->is_request || o->recv_qp != k->send_qp || o->send_qp != requester || o->wire_copy)
				continue; /* (a copy made on the way is no resend) */
			if (o->round_start && o->round_psn == k->psn && o->retrans_cause == RT_RETRY_ACK_TIMEOUT) {
				if (engine_rnr_resend(b, o, requester))
					resend = resend == RT_TL_NONE ? (uint32_t)j : resend; /* its engine says: the RNR timer's */
				else
					late = (uint32_t)j;
				break;
			}
			if (resend == RT_TL_NONE && o->round_start && o->retrans_cause == RT_RETRY_RNR && o->round_psn == k->psn)
				resend = (uint32_t)j; /* the round after the wait, also when its first resend is missing */
			if (o->psn == k->psn) {
				if (resend == RT_TL_NONE)
					resend = (uint32_t)j;
				break;
			}
		}
		uint64_t t0 = item_t(c, tl_item_pk(b, i));
		uint64_t tend = resend != RT_TL_NONE ? item_t(c, tl_item_pk(b, resend))
			       : item_t(c, tl_item_pk(b, lastnak)) + rt_rnr_timer_us(tl_pk(b, lastnak)->aeth_value) * 1000ull;
		/* Go-Back-N rounds inside the episode that it caused: requests sent
		 * behind the RNR-NAKed one (NAK PSN sequence error naming its PSN) and
		 * resends of the NAKed PSN itself; their time is the stall's */
		uint32_t gbn_packets = 0, gbn_rounds = 0, gbn_first = RT_TL_NONE, gbn_last = RT_TL_NONE;
		uint64_t gbn_bytes = 0;
		for (size_t j = 0; j < bursts->n; j++) {
			struct burst *u = TL_AT(bursts, struct burst, j);
			if (u->requester != requester || u->fidx >= 0 || u->cause == RT_RETRY_RNR || u->first <= i ||
			    (resolved != RT_TL_NONE && u->first > resolved) || (late != RT_TL_NONE && u->first >= late))
				continue;
			if (u->cause == RT_RETRY_ACK_TIMEOUT && resend != RT_TL_NONE && u->first > resend)
				continue; /* the resend after the wait went out: a timeout after it is a loss of its own */
			bool seq_behind = u->cause == RT_RETRY_NAK_SEQ && u->trigger != RT_TL_NONE &&
					  tl_pk(b, u->trigger)->psn == k->psn;
			if (!seq_behind && u->round_psn != k->psn)
				continue;
			u->fidx = LONG_MAX; /* claimed; the finding id is set below */
			gbn_packets += u->packets;
			gbn_bytes += u->bytes;
			gbn_rounds++;
			if (gbn_first == RT_TL_NONE)
				gbn_first = u->first;
			gbn_last = u->last;
		}
		if (gbn_last != RT_TL_NONE && item_t(c, tl_item_pk(b, gbn_last)) > tend)
			tend = item_t(c, tl_item_pk(b, gbn_last));
		uint64_t lost = tend > t0 ? tend - t0 : 0;
		unsigned code = k->aeth_value;
		unsigned rr = qp_rnr_retry(b, requester);
		/* the receive queue as the responder found it: when the request that
		 * needed a receive arrived (a receive posted between that and the NAK
		 * came too late for it) */
		uint64_t t_req = k->answer != RT_TL_NONE ? item_t(c, tl_item_pk(b, k->answer)) : t0;
		if (t_req > t0)
			t_req = t0;
		uint64_t next_post = 0;
		uint32_t near = 0;
		long depth = recv_depth(c, responder, t_req, k->answer, &next_post, &near);
		unsigned ninj = injected_rnrs(c, responder, k->psn, t0, item_t(c, tl_item_pk(b, lastnak)));
		if (ninj > n)
			ninj = n;
		struct text t = {.n = 0}, e = {.n = 0};
		char with[400]; /* " with timer code 0 (655.36 ms)", or the codes in the order they came */
		rnr_codes_words(&codes, with, sizeof(with));
		tx(&t, "RNR stall on ");
		qp_name(b, requester, &t);
		tx(&t, ": the receiver (");
		qp_name(b, responder, &t);
		if (ninj == n && depth > 0)
			tx(&t, ") had %ld receive WR%s posted for PSN 0x%06x, yet answered %u RNR NAK%s%s: "
			       "%s its engine's fault injection made up (a uroce rnr rule), no receive shortage", depth,
			   depth == 1 ? "" : "s", k->psn, n, n == 1 ? "" : "s", with, n == 1 ? "one" : "ones");
		else if (ninj == n)
			tx(&t, ") answered PSN 0x%06x with %u RNR NAK%s%s that its engine's fault "
			       "injection made up (a uroce rnr rule), not for want of a receive WR", k->psn, n, n == 1 ? "" : "s",
			   with);
		else if (ninj)
			tx(&t, ") answered PSN 0x%06x with %u RNR NAKs%s, %u of them made up by its "
			       "engine's fault injection (a uroce rnr rule), the others for want of a receive WR", k->psn, n, with,
			   ninj);
		else
			tx(&t, ") had no receive WR posted for PSN 0x%06x and answered %u RNR NAK%s%s", k->psn, n,
			   n == 1 ? "" : "s", with);
		/* no receive because the program was stopped: it posted none while frozen (whatever
		 * the depth reckoned from its posts says: a receive whose consumer the pairing
		 * could not name counts as still posted) */
		const struct freeze *fz = ninj < n ? proc_frozen(c, responder, t_req, tend) : NULL;
		if (fz)
			tx(&t, ", while its process was frozen from %.6f s for %.3f s (its own finding): %s",
			   (double)item_t(c, fz->from) / 1e9, (double)(item_t(c, fz->to) - item_t(c, fz->from)) / 1e9,
			   proc_flags(c, fz->proc) & PF_ENGINE
				   ? "it posted no receive in that time"
				   : "the kernel's transport answered for it, but the program posted no receive in that time");
		/* the receiver's modifies that changed min_rnr_timer from the first RNR NAK
		 * to the last (widened by its clock's uncertainty) */
		uint32_t sets[3];
		unsigned nsets = 0;
		if (codes.n > 1 && responder < b->qps.n && tl_qp(b, responder)->host < b->hosts.n) {
			uint64_t unc = sender_uncertainty(c, responder);
			nsets = min_rnr_timer_sets(c, responder, t0 > unc ? t0 - unc : 0,
						   item_t(c, tl_item_pk(b, lastnak)) + unc, sets, 3, NULL);
		}
		if (code == 0 && codes.n == 1) {
			tx(&t, " - min_rnr_timer 0 means the LONGEST wait, 655.36 ms, not zero; set min_rnr_timer to a small code such as 1 (0.01 ms)%s",
			   ninj == n ? "" : " or post receives earlier");
			/* (the modify that set the 0, named: evidence like the ones above) */
			uint32_t zero = rnr_zero_source_words(c, responder, t0, &t);
			if (zero != RT_TL_NONE)
				sets[nsets++] = zero;
		}
		if (codes.n > 1) {
			tx(&t, " - the responder's QP changed its min_rnr_timer meanwhile (an RNR NAK carries the code its QP "
			       "has when it leaves)");
			for (unsigned m = 0; m < nsets; m++) {
				const struct rt_ev_qp_state *q = &tl_ev(b, sets[m])->ev.u.qp_state;
				tx(&t, "%s to %u (%.2f ms) with ibv_modify_qp (%s to %s) at %.6f s (its trace)",
				   m ? ", then" : ": its program set it", q->min_rnr_timer, rt_rnr_timer_us(q->min_rnr_timer) / 1000.0,
				   rt_qp_state_name(q->from_state), rt_qp_state_name(q->to_state), (double)item_t(c, sets[m]) / 1e9);
			}
			if (codes.count[0])
				tx(&t, "; code 0 means the LONGEST wait, 655.36 ms, not zero");
		}
		/* the sender's engine dropped the (last) RNR NAK on arrival: no resend after the timer */
		uint32_t nakdrop = late != RT_TL_NONE ? traced_rx_drop(c, requester, lastnak) : RT_TL_NONE;
		bool unheard = nakdrop != RT_TL_NONE && n == 1; /* its only RNR NAK never reached the sender */
		if (unheard)
			lost = 0; /* it never waited on that timer: the Go-Back-N finding has the time */
		else
			tx(&t, "; the sender waited %.3f ms", ms(lost));
		/* rxe arms its RNR timer in kernel ticks (rnrnak_jiffies: at least one) */
		if (n == 1 && code && rt_rnr_timer_us(code) < 4000 && lost > 2000ull * rt_rnr_timer_us(code) &&
		    qp_on_rxe(c, requester))
			tx(&t, " (%.0f times the timer: the kernel's SoftRoCE arms it in whole kernel ticks, at least one, "
			       "4 ms at HZ=250, and resends when its task runs next)",
			   (double)lost / (1000.0 * rt_rnr_timer_us(code)));
		if (rr != 0xFF && !unheard)
			tx(&t, " using %u of %s RNR retries", nakdrop != RT_TL_NONE ? n - 1 : n,
			   rr == 7 ? "infinite" : (char[4]){(char)('0' + rr), 0});
		if (nseq)
			tx(&t, "; the requests sent behind it were refused with %u NAK%s PSN sequence error", nseq,
			   nseq == 1 ? "" : "s");
		if (gbn_packets)
			tx(&t, "%s %u packet%s (%" PRIu64 " bytes) %s resent by Go-Back-N in %u round%s, counted in this stall",
			   nseq ? " and" : ";", gbn_packets, gbn_packets == 1 ? "" : "s", gbn_bytes,
			   gbn_packets == 1 ? "was" : "were", gbn_rounds, gbn_rounds == 1 ? "" : "s");
		if (nakdrop != RT_TL_NONE)
			tx(&t, "; the sender's engine dropped %s RNR NAK (frame %u) as it arrived%s, so no resend came "
			       "after the timer: the sender resent PSN 0x%06x only after the local ACK timeout, in frame %u "
			       "(a Go-Back-N finding of its own)", n == 1 ? "its" : "the last", tl_pk(b, lastnak)->frame,
			   drop_reason_words(tl_ev(b, nakdrop)),
			   k->psn, tl_pk(b, late)->frame);
		else if (late != RT_TL_NONE)
			tx(&t, "; its resend of PSN 0x%06x after the timer is not in the capture (lost before the capture point, "
			       "or the RNR NAK on its way back): the sender resent it only after the local ACK timeout, in frame %u "
			       "(a Go-Back-N finding of its own)", k->psn, tl_pk(b, late)->frame);
		tx(&t, ".");
		tx(&e, "first RNR NAK frame %u", k->frame);
		if (lastnak != i)
			tx(&e, ", last RNR NAK frame %u", tl_pk(b, lastnak)->frame);
		if (resend != RT_TL_NONE)
			tx(&e, ", resent in frame %u", tl_pk(b, resend)->frame);
		if (firstseq != RT_TL_NONE)
			tx(&e, ", first NAK PSN sequence error frame %u", tl_pk(b, firstseq)->frame);
		if (gbn_first != RT_TL_NONE)
			tx(&e, ", Go-Back-N frames %u to %u", tl_pk(b, gbn_first)->frame, tl_pk(b, gbn_last)->frame);
		if (depth >= 0)
			tx(&e, ", receive queue depth when the request arrived: %ld", depth);
		if (depth >= 0 && near)
			tx(&e, " (and %u receive%s posted within the receiver's clock uncertainty, +-%.3f ms, before it: "
			       "whether before or after is not known)",
			   near, near == 1 ? "" : "s", ms(tl_host(b, tl_qp(b, responder)->host)->uncertainty_ns));
		if (next_post)
			tx(&e, ", next receive posted %.3f ms after it", next_post > t_req ? ms(next_post - t_req) : 0.0);
		if (fz)
			tx(&e, ", the receiver's last record before its freeze at %.6f s, first after at %.6f s",
			   (double)item_t(c, fz->from) / 1e9, (double)item_t(c, fz->to) / 1e9);
		for (unsigned m = 0; m < nsets; m++)
			rnr_timer_set_evidence(c, sets[m], &e);
		uint32_t req = k->answer;
		uint32_t wr = req != RT_TL_NONE ? tl_pk(b, req)->wr : RT_TL_NONE;
		if (wr != RT_TL_NONE) {
			tx(&e, ", ");
			wr_words(b, wr, &e);
		}
		long f = finding(b, RT_TLFK_RNR_STALL, RT_TLS_WARNING, t0, requester, lost, 0, &t, &e);
		if (f < 0)
			return -ENOMEM;
		tl_finding_evidence(b, FI(b, f), tl_item_pk(b, i));
		if (lastnak != i)
			tl_finding_evidence(b, FI(b, f), tl_item_pk(b, lastnak));
		evidence_pk(b, FI(b, f), resend);
		evidence_pk(b, FI(b, f), firstseq);
		evidence_pk(b, FI(b, f), req);
		tl_finding_evidence(b, FI(b, f), wr);
		tl_finding_evidence(b, FI(b, f), nakdrop);
		for (unsigned m = 0; m < nsets; m++)
			tl_finding_evidence(b, FI(b, f), sets[m]);
		/* the RNR retransmission bursts belong to this finding */
		for (size_t j = 0; j < bursts->n; j++) {
			struct burst *u = TL_AT(bursts, struct burst, j);
			if (u->requester == requester && u->round_psn == k->psn && u->cause == RT_RETRY_RNR && u->fidx < 0)
				u->fidx = f;
			if (u->fidx == LONG_MAX) {
				u->fidx = f;
				tl_finding_evidence(b, FI(b, f), tl_item_pk(b, u->first));
				evidence_pk(b, FI(b, f), u->trigger);
			}
		}
	}
	return 0;
}

/* RNR from engine events when there is no capture. */
static int rnr_events(struct dctx *c)
{
	struct tl_build *b = c->b;
	for (size_t i = 0; i < tl_nev(b); i++) {
		struct tl_evrec *e = tl_ev(b, i);
		if (e->ev.kind != RT_EV_RNR || (e->ev.flags & RT_EVF_TX) || c->explained[i])
			continue;
		uint32_t q = b->ev_qp[i];
		if (!capture_missed(c, q, (uint32_t)i))
			continue; /* the capture's RNR NAKs tell (rnr_stalls) */
		uint32_t psn = e->ev.u.rnr.psn, n = 0, last = (uint32_t)i;
		for (size_t j = i; j < tl_nev(b); j++) {
			struct tl_evrec *o = tl_ev(b, j);
			if (o->ev.kind == RT_EV_RNR && !(o->ev.flags & RT_EVF_TX) && b->ev_qp[j] == q && o->ev.u.rnr.psn == psn) {
				n++;
				last = (uint32_t)j;
				c->explained[j] = 1;
			}
		}
		unsigned code = e->ev.u.rnr.timer_code;
		uint64_t t0 = item_t(c, (uint32_t)i);
		uint64_t lost = item_t(c, last) - t0 + e->ev.u.rnr.timer_us * 1000ull;
		struct text t = {.n = 0}, ev = {.n = 0};
		tx(&t, "RNR stall on ");
		qp_name(b, q, &t);
		tx(&t, ": %u RNR NAK%s for PSN 0x%06x with timer code %u (%.2f ms)", n, n == 1 ? "" : "s", psn, code,
		   rt_rnr_timer_us(code) / 1000.0);
		uint32_t zero = RT_TL_NONE;
		if (code == 0) {
			tx(&t, " - min_rnr_timer 0 means the LONGEST wait, 655.36 ms, not zero");
			zero = rnr_zero_source_words(c, q < b->qps.n ? tl_qp(b, q)->peer : RT_TL_NONE, t0, &t);
		}
		tx(&t, "; about %.3f ms lost", ms(lost));
		capture_edge_words(c, q, t0, &t);
		tx(&t, ".");
		tx(&ev, "RNR events of the engine, first at %.6f s", (double)t0 / 1e9);
		if (zero != RT_TL_NONE)
			rnr_timer_set_evidence(c, zero, &ev);
		long f = finding(b, RT_TLFK_RNR_STALL, RT_TLS_WARNING, t0, q, lost, 0, &t, &ev);
		if (f < 0)
			return -ENOMEM;
		tl_finding_evidence(b, FI(b, f), (uint32_t)i);
		tl_finding_evidence(b, FI(b, f), zero);
	}
	return 0;
}

/* ---- NAK errors, error completions, QP errors ---- */

static uint32_t flushed_after(struct tl_build *b, uint32_t q, size_t from, uint32_t *first)
{
	uint32_t n = 0;
	*first = RT_TL_NONE;
	for (size_t x = noted_from(&b->errs, from); x < b->errs.n; x++) { /* (flushes are error completions) */
		size_t j = *TL_AT(&b->errs, uint32_t, x);
		struct tl_evrec *o = tl_ev(b, j);
		if (b->ev_qp[j] == q && o->ev.kind == RT_EV_COMPLETION && o->ev.u.wc.status == TL_WC_WR_FLUSH_ERR && !b->ev_shadow[j]) {
			if (*first == RT_TL_NONE)
				*first = (uint32_t)j;
			n++;
		}
	}
	return n;
}

static uint32_t error_state_after(struct tl_build *b, uint32_t q, size_t from)
{
	for (size_t x = noted_from(&b->errs, from); x < b->errs.n; x++) { /* (moves to ERROR are noted there) */
		size_t j = *TL_AT(&b->errs, uint32_t, x);
		struct tl_evrec *o = tl_ev(b, j);
		if (b->ev_qp[j] == q && o->ev.kind == RT_EV_QP_STATE && o->ev.u.qp_state.to_state == 6 && !b->ev_shadow[j])
			return (uint32_t)j;
	}
	return RT_TL_NONE;
}

/* The error completion on requester q for WR wr (or the first error completion after index 0). */
static uint32_t error_completion(struct dctx *c, uint32_t q, uint32_t wr, unsigned status)
{
	struct tl_build *b = c->b;
	if (wr != RT_TL_NONE) {
		uint32_t comp = first_link(c, wr, RT_TLL_COMPLETION);
		if (comp != RT_TL_NONE && tl_ev(b, comp)->ev.u.wc.status == status)
			return comp;
	}
	for (size_t x = 0; x < b->errs.n && status; x++) { /* (error completions are noted there) */
		size_t j = *TL_AT(&b->errs, uint32_t, x);
		struct tl_evrec *o = tl_ev(b, j);
		if (b->ev_qp[j] == q && o->ev.kind == RT_EV_COMPLETION && o->ev.u.wc.status == status && !c->explained[j] &&
		    !b->ev_shadow[j])
			return (uint32_t)j;
	}
	return RT_TL_NONE;
}

static void add_qp_error_tail(struct dctx *c, uint32_t q, uint32_t comp, struct text *t, struct text *e, long f)
{
	struct tl_build *b = c->b;
	if (q == RT_TL_NONE)
		return;
	size_t from = comp != RT_TL_NONE ? comp : 0;
	uint32_t st = error_state_after(b, q, from);
	uint32_t ff;
	uint32_t nf = flushed_after(b, q, from, &ff);
	if (st != RT_TL_NONE || nf) {
		tx(t, " The QP went to the ERROR state");
		if (nf)
			tx(t, " and %u outstanding WR%s completed with WR_FLUSH_ERR", nf, nf == 1 ? "" : "s");
		tx(t, ".");
	}
	if (st != RT_TL_NONE) {
		tl_finding_evidence(b, FI(b, f), st);
		c->explained[st] = 1;
	}
	if (ff != RT_TL_NONE) {
		tx(e, ", first flushed completion wr_id %" PRIu64, tl_ev(b, ff)->ev.u.wc.wr_id);
		tl_finding_evidence(b, FI(b, f), ff);
	}
	tl_qp(b, q)->flags |= RT_TLQ_ERROR;
	c->qp_explained[q] = 1;
}

/* ---- a traced process that ended without exiting: crashed, killed ---- */

/* What fault a signal's si_code names, for SIGSEGV and SIGBUS; NULL otherwise. */
static const char *fault_words(unsigned sig, int code)
{
	if (sig == SIGSEGV && code == SEGV_MAPERR)
		return "not mapped";
	if (sig == SIGSEGV && code == SEGV_ACCERR)
		return "no access";
	if (sig == SIGBUS && code == BUS_ADRALN)
		return "misaligned";
	if (sig == SIGBUS && code == BUS_ADRERR)
		return "no such physical address";
	return NULL;
}

/* A stop someone asked for: not a problem in itself. */
static bool stop_signal(unsigned sig)
{
	return sig == SIGTERM || sig == SIGINT || sig == SIGHUP;
}

/* Process p's end record that says the most: a caught signal, then what its
 * parent saw, then an exit; RT_TL_NONE when it has none. */
static uint32_t proc_end_record(struct tl_build *b, uint16_t p)
{
	static const uint8_t rank_of[] = {0, 1, 3, 2}; /* by enum rt_end_how */
	uint32_t best = RT_TL_NONE;
	for (size_t j = 0; j < b->ends.n; j++) {
		uint32_t i = *TL_AT(&b->ends, uint32_t, j);
		const struct tl_evrec *e = tl_ev(b, i);
		unsigned how = e->ev.u.process_end.how < 4 ? e->ev.u.process_end.how : 0;
		if (e->proc != p || !rank_of[how])
			continue;
		if (best == RT_TL_NONE || rank_of[how] > rank_of[tl_ev(b, best)->ev.u.process_end.how])
			best = i;
	}
	return best;
}

/* A record of the probe's counter sampler, which runs on its own (its
 * first reading may come after the program's next calls). */
static bool sampler_record(const struct rt_event *ev)
{
	return ev->kind == RT_EV_COUNTER ||
	       (ev->kind == RT_EV_WARNING && !strncmp(ev->u.warning.text, "no sysfs counters", 17));
}

/* Process p's last record of its own (not the collector's clock or loss
 * records, the counter sampler's, nor an end record), RT_TL_NONE when it
 * has none.  After a crash (its end record end, how=signal), what it did
 * before the signal: another of its threads may write after it. */
static uint32_t proc_last_record(struct tl_build *b, uint16_t p, uint32_t end)
{
	bool crash = end != RT_TL_NONE && tl_ev(b, end)->ev.u.process_end.how == RT_END_SIGNAL;
	for (size_t i = crash ? end : tl_nev(b); i-- > 0;) {
		const struct tl_evrec *r = tl_ev(b, i);
		unsigned k = r->ev.kind;
		if (r->proc == p && k != RT_EV_CLOCK_SYNC && k != RT_EV_LOST && k != RT_EV_PROCESS_END &&
		    !sampler_record(&r->ev))
			return (uint32_t)i;
	}
	return RT_TL_NONE;
}

/* Is the end record's time when the process ended: the tracer's handler
 * caught the signal?  (The kernel's time of an exit, exact_time, is when it
 * had torn the process down, after closing its files: its RDMA CM ids send
 * their DREQs and its peers react before that time.  The kill itself came
 * between the last record and then.) */
static bool end_is_timed(const struct rt_ev_process_end *pe)
{
	return pe && pe->how == RT_END_SIGNAL;
}

/* When process p ended (end: its end record): the end record's time when
 * that is when (a caught signal), else its last record's (*last,
 * RT_TL_NONE when none), else the end record's. */
static uint64_t proc_end_time(struct dctx *c, uint16_t p, uint32_t end, uint32_t *last)
{
	const struct rt_ev_process_end *pe = end != RT_TL_NONE ? &tl_ev(c->b, end)->ev.u.process_end : NULL;
	*last = proc_last_record(c->b, p, end);
	if (end_is_timed(pe) || (*last == RT_TL_NONE && end != RT_TL_NONE))
		return item_t(c, end);
	return *last != RT_TL_NONE ? item_t(c, *last) : 0;
}

/* When QP q's peer QP belongs to a process that had crashed or been killed
 * before time t (q's retries ran out, or q got a NAK, at t): say so. */
static bool peer_end_words(struct dctx *c, uint32_t q, uint64_t t, struct text *out)
{
	struct tl_build *b = c->b;
	uint32_t peer = q != RT_TL_NONE ? tl_qp(b, q)->peer : RT_TL_NONE;
	uint16_t p = peer != RT_TL_NONE ? tl_qp(b, peer)->proc : UINT16_MAX;
	if (p >= b->procs.n || !b->ends.n)
		return false;
	uint32_t end = proc_end_record(b, p);
	const struct rt_ev_process_end *pe = end != RT_TL_NONE ? &tl_ev(b, end)->ev.u.process_end : NULL;
	if (!pe || !pe->signal || pe->how == RT_END_EXIT)
		return false;
	const struct rt_tl_proc *P = TL_AT(&b->procs, struct rt_tl_proc, p);
	uint32_t last;
	uint64_t t_end = proc_end_time(c, p, end, &last);
	if (t_end > t)
		return false;
	tx(out, " The peer's process, %s (pid %d) on %s, had ", (const char *)b->strs.p + P->program, P->pid,
	   host_name(b, P->host));
	if (pe->how == RT_END_SIGNAL)
		tx(out, "crashed with %s %.3f ms before.", rt_signal_name(pe->signal), ms(t - t_end));
	else
		tx(out, "been killed by %s (its last record %.3f ms before).", rt_signal_name(pe->signal), ms(t - t_end));
	return true;
}

/* The remote right a request needs (2 write, 4 read, 8 atomic), from its WR
 * (ibv_wr_opcode), else its packet. */
/* The remote access a request needs (IBV_ACCESS_REMOTE_WRITE 2, READ 4,
 * ATOMIC 8): its WR's opcode when known, else its op class (0 unknown). */
static unsigned access_needed(uint8_t req_class, const struct rt_ev_wr *w)
{
	if (w)
		return w->opcode == 4 ? 4 : w->opcode == 5 || w->opcode == 6 ? 8 : 2;
	return req_class == RT_CLASS_READ_REQ ? 4 : req_class == RT_CLASS_ATOMIC ? 8 : 2;
}

/* A NAK error (any code but PSN sequence error) for a request of QP
 * `requester`, from the capture or from an engine's packet events, with
 * what is known of the request. */
struct nak_err {
	uint32_t requester, psn;
	uint8_t code;             /* AETH NAK code */
	uint32_t wr;              /* the request's send WR (item), RT_TL_NONE */
	uint8_t req_class;        /* the request's op class, 0 unknown */
	bool reth;                /* va, rkey, len from the request's RETH */
	uint64_t va;
	uint32_t rkey, len;
	uint64_t t_nak, t_req;    /* aligned; t_req 0 unknown */
	uint32_t nak_item, req_item;
	bool dropped;             /* its sending engine dropped it as it left: the requester never got it */
	uint32_t responder_error; /* then: the responder's move to ERROR after it (event), RT_TL_NONE */
};

/* The finding for NAK error n: t holds its first words (the QP and what
 * became of the NAK), e its first evidence. */
static int nak_error_finding(struct dctx *c, const struct nak_err *n, struct text *t, struct text *e)
{
	struct tl_build *b = c->b;
	uint32_t requester = n->requester, wr = n->wr;
	static const unsigned status_of[] = {0, WC_REM_INV_REQ_ERR, WC_REM_ACCESS_ERR, WC_REM_OP_ERR, WC_REM_INV_REQ_ERR};
	unsigned st = status_of[n->code < 5 ? n->code : 1];
	uint32_t comp = n->dropped ? RT_TL_NONE : error_completion(c, requester, wr, st);
	if (wr != RT_TL_NONE) {
		tx(t, " of ");
		wr_words(b, wr, t);
	}
	const struct rt_ev_wr *w = wr != RT_TL_NONE ? &tl_ev(b, wr)->ev.u.wr : NULL;
	uint32_t recv; /* the receive WR a SEND's message consumed */
	if (n->code == RT_NAK_REMOTE_ACCESS_ERROR) {
		uint64_t va = n->reth ? n->va : w ? w->remote_addr : 0;
		uint32_t rkey = n->reth ? n->rkey : w ? w->rkey : 0;
		uint32_t len = n->reth ? n->len : w ? w->length : 0;
		char why[900];
		if ((n->reth || w) &&
		    tl_access_refusal(b, requester != RT_TL_NONE ? tl_qp(b, requester)->peer : RT_TL_NONE,
				      n->t_req ? n->t_req : n->t_nak, access_needed(n->req_class, w), va, rkey, len, why,
				      sizeof(why)))
			tx(t, ": the responder refused rkey 0x%x for address 0x%" PRIx64 " length %u: %s", rkey, va, len, why);
		else if (n->reth || w)
			tx(t, ": the responder refused rkey 0x%x for address 0x%" PRIx64 " length %u (wrong or invalidated rkey, range outside the MR, or missing remote access rights)",
			   rkey, va, len);
		else
			tx(t, ": the responder refused the rkey, address or length of the request");
	} else if ((n->code == RT_NAK_INVALID_REQUEST || n->code == RT_NAK_REMOTE_OP_ERROR) &&
		   message_overflows(c, wr, (recv = consumed_recv(c, wr)))) {
		overflow_words(c, wr, recv, true, t);
	} else if (n->code == RT_NAK_INVALID_REQUEST) {
		tx(t, ": the responder found the request invalid (an opcode the QP does not allow, a length over the limits, or a message larger than the posted receive buffer)");
	} else if (n->code == RT_NAK_REMOTE_OP_ERROR) {
		tx(t, ": the responder failed to carry the request out (a local error on its side, e.g. its receive buffer or QP)");
	} else {
		tx(t, ": the responder could not execute the RDMA READ / atomic request");
	}
	if (comp != RT_TL_NONE) {
		tx(t, "; the WR completed with %s.", rt_wc_status_name(tl_ev(b, comp)->ev.u.wc.status));
		c->explained[comp] = 1;
	} else {
		tx(t, ".");
	}
	if (n->dropped)
		tx(t, " The responder's engine dropped that NAK as it sent it (injected loss): the requester never got "
		      "it%s.", n->responder_error != RT_TL_NONE
				       ? ", and the responder's QP went to the ERROR state (its engine's trace), so it answered "
					 "none of the resends: the requester's ACK timer resent the request in vain"
				       : " and resent the request when its ACK timer went off");
	if (peer_end_words(c, requester, n->t_nak, t) && n->code == RT_NAK_REMOTE_ACCESS_ERROR)
		tx(t, " The kernel deregisters a dead process's memory regions as it cleans up after it, so the "
		      "rkey was no longer valid when the request came.");
	if (comp != RT_TL_NONE)
		tx(e, ", error completion wr_id %" PRIu64, tl_ev(b, comp)->ev.u.wc.wr_id);
	if (n->responder_error != RT_TL_NONE)
		tx(e, ", the responder's QP to ERROR at %.6f s", (double)item_t(c, n->responder_error) / 1e9);
	long f = finding(b, RT_TLFK_NAK_ERROR, RT_TLS_ERROR, n->t_nak, requester, 0, 0, t, e);
	if (f < 0)
		return -ENOMEM;
	tl_finding_evidence(b, FI(b, f), n->nak_item);
	tl_finding_evidence(b, FI(b, f), n->req_item);
	tl_finding_evidence(b, FI(b, f), wr);
	tl_finding_evidence(b, FI(b, f), comp);
	tl_finding_evidence(b, FI(b, f), n->responder_error);
	if (n->responder_error != RT_TL_NONE)
		c->explained[n->responder_error] = 1;
	if (!n->dropped)
		add_qp_error_tail(c, requester, comp, t, e, f);
	uint32_t ts = tl_str(b, t->buf), es = tl_str(b, e->buf);
	FI(b, f)->text = ts;
	FI(b, f)->evidence = es;
	return 0;
}

/* Whether captured NAK number n (of b->naks) repeats an earlier one: the
 * same error (code and PSN) from the same responder to the same requester
 * within a second, the NAK on the wire again (copied on the way, or sent
 * again for a request that came again).  The error is one, told once. */
static bool nak_told_before(struct dctx *c, size_t n)
{
	struct tl_build *b = c->b;
	const struct tl_pk *k = tl_pk(b, *TL_AT(&b->naks, uint32_t, n));
	for (size_t x = n; x-- > 0 && n - x <= 64;) {
		const struct tl_pk *o = tl_pk(b, *TL_AT(&b->naks, uint32_t, x));
		if (o->aeth_type == RT_AETH_NAK && o->aeth_value == k->aeth_value && o->psn == k->psn &&
		    o->recv_qp == k->recv_qp && o->src_ep == k->src_ep && o->dst_ep == k->dst_ep &&
		    o->dqpn == k->dqpn && k->raw_ns >= o->raw_ns && k->raw_ns - o->raw_ns <= 1000000000ull)
			return true;
	}
	return false;
}

static int nak_errors(struct dctx *c)
{
	struct tl_build *b = c->b;
	for (size_t n = 0; n < b->naks.n; n++) {
		size_t i = *TL_AT(&b->naks, uint32_t, n);
		struct tl_pk *k = tl_pk(b, i);
		if (k->op_class != RT_CLASS_ACK || k->aeth_type != RT_AETH_NAK || k->aeth_value == RT_NAK_PSN_SEQ_ERROR ||
		    nak_told_before(c, n))
			continue;
		uint32_t req = k->answer;
		struct tl_pk *r = req != RT_TL_NONE ? tl_pk(b, req) : NULL;
		struct nak_err ne = {.requester = k->recv_qp, .psn = k->psn, .code = k->aeth_value,
				     .wr = r ? r->wr : RT_TL_NONE, .req_class = r ? r->op_class : 0,
				     .reth = r && r->reth_rkey, .t_nak = item_t(c, tl_item_pk(b, i)),
				     .nak_item = tl_item_pk(b, i), .req_item = r ? tl_item_pk(b, req) : RT_TL_NONE,
				     .responder_error = RT_TL_NONE};
		if (ne.wr == RT_TL_NONE)
			ne.wr = first_link(c, tl_item_pk(b, i), RT_TLL_WR);
		if (r) {
			ne.va = r->reth_va;
			ne.rkey = r->reth_rkey;
			ne.len = r->reth_len;
			ne.t_req = item_t(c, ne.req_item);
		}
		struct text t = {.n = 0}, e = {.n = 0};
		qp_name(b, ne.requester, &t);
		tx(&t, " got NAK \"%s\" for PSN 0x%06x", rt_nak_code_name(k->aeth_value), k->psn);
		tx(&e, "NAK frame %u", k->frame);
		if (r)
			tx(&e, ", request frame %u", r->frame);
		int rc = nak_error_finding(c, &ne, &t, &e);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The captured NAK (not a PSN sequence error) of requester q for psn with
 * that code, when the capture holds one. */
static bool nak_captured(struct tl_build *b, uint32_t q, uint32_t psn, uint8_t code)
{
	for (size_t n = 0; n < b->naks.n; n++) {
		const struct tl_pk *k = tl_pk(b, *TL_AT(&b->naks, uint32_t, n));
		if (k->recv_qp == q && k->psn == psn && k->aeth_type == RT_AETH_NAK && k->aeth_value == code)
			return true;
	}
	return false;
}

/* Whether engine packet event i is linked to the captured packet it is. */
static bool event_captured(struct dctx *c, uint32_t i)
{
	for (uint32_t k = i < c->li.n ? c->li.off[i] : 0; i < c->li.n && k < c->li.off[i + 1]; k++)
		if (c->li.ls[k].type == RT_TLL_EVENT && c->li.ls[k].to >= tl_nev(c->b))
			return true;
	return false;
}

/* The requester's engine's send of request psn on QP q (the latest at or
 * before time t, else the first), RT_TL_NONE when it traced none. */
static uint32_t engine_request(struct dctx *c, uint32_t q, uint32_t psn, uint64_t t)
{
	uint32_t s = engine_send_before(c, q, psn, tl_nev(c->b), t + 1);
	for (size_t i = 0; s == RT_TL_NONE && i < tl_nev(c->b); i++)
		if (engine_request_send(c->b, i, q, psn))
			s = (uint32_t)i;
	return s;
}

/* QP q's move to ERROR within 10 ms after event i (a responder moves its
 * QP there as it sends a NAK error), its own engine's record or its
 * program's; RT_TL_NONE when none. */
static uint32_t error_move_soon(struct dctx *c, uint32_t q, size_t i)
{
	struct tl_build *b = c->b;
	uint64_t t = item_t(c, (uint32_t)i);
	for (size_t x = noted_from(&b->errs, i); x < b->errs.n; x++) {
		uint32_t j = *TL_AT(&b->errs, uint32_t, x);
		const struct tl_evrec *o = tl_ev(b, j);
		if (b->ev_qp[j] == q && o->ev.kind == RT_EV_QP_STATE && o->ev.u.qp_state.to_state == 6 &&
		    item_t(c, j) >= t && item_t(c, j) - t <= 10000000)
			return j;
	}
	return RT_TL_NONE;
}

/* NAK errors the capture does not hold, from the engines' packet events:
 * the requester's engine received it, or the responder's traced sending it
 * (and maybe dropped it as it left: injected loss, then the requester never
 * got it).  One finding per requester, PSN and code; the capture's NAKs are
 * nak_errors()'. */
static int nak_error_events(struct dctx *c)
{
	struct tl_build *b = c->b;
	size_t nev = tl_nev(b);
	if (!b->engine_packets)
		return 0;
	struct tl_hash seen;
	if (tl_hash_init(&seen, 64) < 0)
		return -ENOMEM;
	int rc = 0;
	for (size_t pass = 0; pass < 2 && rc >= 0; pass++) { /* the requester's receive first, then sends */
		for (size_t i = 0; i < nev && rc >= 0; i++) {
			const struct tl_evrec *x = tl_ev(b, i);
			const struct rt_ev_packet *p = &x->ev.u.pkt;
			const struct rt_opcode_info *op;
			bool txd = x->ev.flags & RT_EVF_TX;
			if (x->ev.kind != RT_EV_PACKET || txd != (pass == 1) || b->ev_qp[i] >= b->qps.n ||
			    !(p->flags & RT_PKTF_HAS_AETH) || rt_aeth_type(p->syndrome) != RT_AETH_NAK ||
			    rt_aeth_value(p->syndrome) == RT_NAK_PSN_SEQ_ERROR || !(op = rt_opcode_info(p->opcode)) ||
			    op->op_class != RT_CLASS_ACK)
				continue;
			uint32_t q = txd ? tl_qp(b, b->ev_qp[i])->peer : b->ev_qp[i];
			uint8_t code = (uint8_t)rt_aeth_value(p->syndrome);
			if (q == RT_TL_NONE || event_captured(c, (uint32_t)i) || nak_captured(b, q, p->psn, code))
				continue; /* the capture holds it: nak_errors() */
			uint64_t key = (uint64_t)q << 32 ^ (uint64_t)p->psn << 3 ^ code;
			if (tl_hash_get(&seen, key))
				continue;
			if (seen.n >= 64)
				break; /* (each looks its request up in every event: enough to say what went wrong) */
			if ((rc = tl_hash_put(&seen, key, 1)) < 0)
				break;
			struct nak_err ne = {.requester = q, .psn = p->psn, .code = code, .wr = RT_TL_NONE,
					     .t_nak = item_t(c, (uint32_t)i), .nak_item = (uint32_t)i,
					     .dropped = txd && (p->flags & RT_PKTF_DROPPED), .responder_error = RT_TL_NONE};
			ne.req_item = engine_request(c, q, p->psn, ne.t_nak);
			if (ne.req_item != RT_TL_NONE) {
				const struct rt_ev_packet *rq = &tl_ev(b, ne.req_item)->ev.u.pkt;
				const struct rt_opcode_info *rop = rt_opcode_info(rq->opcode);
				ne.wr = first_link(c, ne.req_item, RT_TLL_WR);
				ne.req_class = rop ? rop->op_class : 0;
				ne.reth = rq->flags & RT_PKTF_HAS_RETH;
				ne.va = rq->reth_va;
				ne.rkey = rq->reth_rkey;
				ne.len = rq->reth_len;
				ne.t_req = item_t(c, ne.req_item);
			}
			if (ne.wr == RT_TL_NONE)
				ne.wr = first_link(c, (uint32_t)i, RT_TLL_WR);
			if (ne.dropped)
				ne.responder_error = error_move_soon(c, b->ev_qp[i], i);
			struct text t = {.n = 0}, e = {.n = 0};
			qp_name(b, q, &t);
			if (ne.dropped)
				tx(&t, "'s responder answered NAK \"%s\" to PSN 0x%06x", rt_nak_code_name(code), p->psn);
			else
				tx(&t, " got NAK \"%s\" for PSN 0x%06x", rt_nak_code_name(code), p->psn);
			tx(&e, "the %s engine's NAK at %.6f s%s", txd ? "responder's" : "requester's", (double)ne.t_nak / 1e9,
			   ne.dropped ? " (dropped=1)" : b->have_capture ? " (not in the capture)" : "");
			if (ne.req_item != RT_TL_NONE)
				tx(&e, ", the request's send at %.6f s", (double)ne.t_req / 1e9);
			rc = nak_error_finding(c, &ne, &t, &e);
		}
	}
	tl_hash_free(&seen);
	return rc;
}

/* The Go-Back-N group that ended with the QP giving up. */
static struct burst *last_group_of(struct tl_vec *bursts, uint32_t q)
{
	for (size_t j = bursts->n; j-- > 0;) {
		struct burst *u = TL_AT(bursts, struct burst, j);
		if (u->requester == q)
			return u;
	}
	return NULL;
}

/* A disconnect call, or a CM event that means the connection is being torn down. */
static bool is_disconnect(const struct tl_evrec *e)
{
	if (e->ev.kind != RT_EV_CM_EVENT)
		return false;
	unsigned ev = e->ev.u.cm.event;
	return ev == RT_CM_CALL_DISCONNECT || ev == RT_CM_EV_DISCONNECTED || ev == RT_CM_EV_TIMEWAIT_EXIT;
}

/* The RDMA CM event that failed QP q's connection around its move to
 * ERROR (QP state event i): librdmacm moves the QP to ERROR while it takes a
 * REJECTED, UNREACHABLE or CONNECT_ERROR event, just before the application
 * gets it.  RT_TL_NONE when none came within a second of the move. */
static uint32_t cm_failure(struct dctx *c, uint32_t q, size_t i)
{
	struct tl_build *b = c->b;
	if (q == RT_TL_NONE)
		return RT_TL_NONE;
	uint64_t t = item_t(c, (uint32_t)i);
	for (size_t x = 0; x < b->cm_evs.n; x++) {
		size_t j = *TL_AT(&b->cm_evs, uint32_t, x);
		const struct tl_evrec *e = tl_ev(b, j);
		if (e->ev.kind != RT_EV_CM_EVENT || b->ev_qp[j] != q || b->ev_shadow[j])
			continue;
		unsigned ev = e->ev.u.cm.event;
		if (ev != RT_CM_EV_REJECTED && ev != RT_CM_EV_UNREACHABLE && ev != RT_CM_EV_CONNECT_ERROR)
			continue;
		uint64_t tj = item_t(c, (uint32_t)j), d = tj > t ? tj - t : t - tj;
		if (d <= 1000000000ull)
			return (uint32_t)j;
	}
	return RT_TL_NONE;
}

/* Whether the ERROR transition of event i (QP q) is the ordinary teardown of
 * a connection: a disconnect (rdma_disconnect on either side, DISCONNECTED,
 * TIMEWAIT_EXIT) on this QP, its peer or, when the event names no QP, its
 * process came before it; or the thread that moved the QP to ERROR did so
 * inside rdma_disconnect (its next event is the rdma_disconnect call, which
 * the probe records when the call returns). */
static bool qp_torn_down(struct dctx *c, uint32_t q, size_t i)
{
	struct tl_build *b = c->b;
	const struct tl_evrec *st = tl_ev(b, i);
	uint64_t t = item_t(c, (uint32_t)i);
	uint32_t peer = q != RT_TL_NONE ? tl_qp(b, q)->peer : RT_TL_NONE;
	for (size_t x = 0; x < b->cm_evs.n; x++) {
		size_t j = *TL_AT(&b->cm_evs, uint32_t, x);
		const struct tl_evrec *e = tl_ev(b, j);
		if (!is_disconnect(e) || b->ev_shadow[j] || e->ev.u.cm.status != 0)
			continue;
		uint32_t eq = b->ev_qp[j];
		bool mine = eq != RT_TL_NONE ? (eq == q || (peer != RT_TL_NONE && eq == peer))
					     : (e->host == st->host && e->proc == st->proc);
		if (!mine)
			continue;
		if (item_t(c, (uint32_t)j) <= t)
			return true;
		if (e->host == st->host && e->proc == st->proc && e->ev.tid == st->ev.tid &&
		    e->ev.u.cm.event == RT_CM_CALL_DISCONNECT) {
			/* nothing else of that thread in between (but what an engine
			 * traced inside the call: the DREQ it sent, its copy of the
			 * state change) */
			bool direct = true;
			for (size_t k = i + 1; k < j && direct; k++) {
				const struct tl_evrec *o = tl_ev(b, k);
				direct = !(o->host == st->host && o->proc == st->proc && o->ev.tid == st->ev.tid &&
					   !(o->ev.flags & RT_EVF_ENGINE));
			}
			if (direct)
				return true;
		}
	}
	return false;
}

/* What the capture says of the responder of a burst that ended in
 * RETRY_EXC_ERR: when its last packet came, against the first transmission
 * of the PSN it never acknowledged. */
static void peer_silence_words(struct dctx *c, const struct burst *u, struct text *t)
{
	struct tl_build *b = c->b;
	uint32_t orig = u->original != RT_TL_NONE ? u->original : u->first;
	if (orig >= tl_npk(b) || u->last >= tl_npk(b))
		return;
	uint32_t peer = tl_pk(b, orig)->dst_ep, last = RT_TL_NONE;
	for (uint32_t j = u->last + 1; j-- > 0;)
		if (tl_pk(b, j)->src_ep == peer && !tl_pk(b, j)->is_cm) {
			last = j;
			break;
		}
	tx(t, " ");
	if (last == RT_TL_NONE) {
		tx(t, "The capture holds no packet from ");
		ep_words(b, peer, t);
		tx(t, " at all.");
		return;
	}
	uint64_t t_last = item_t(c, tl_item_pk(b, last)), t_orig = item_t(c, tl_item_pk(b, orig));
	uint64_t t_retry = item_t(c, tl_item_pk(b, u->first));
	if (t_last < t_retry) {
		/* the peer QP's destroy, traced before the first retry */
		uint32_t pq = u->requester < b->qps.n ? tl_qp(b, u->requester)->peer : RT_TL_NONE;
		uint32_t g = qp_gone(c, pq);
		if (g != RT_TL_NONE && (tl_ev(b, g)->ev.kind != RT_EV_QP_CREATE || item_t(c, g) > t_retry))
			g = RT_TL_NONE;
		tx(t, "Nothing came from ");
		ep_words(b, peer, t);
		tx(t, " after frame %u (%.3f ms %s that PSN was first sent, in frame %u), so none of the retries was "
		      "answered: ", tl_pk(b, last)->frame, (double)(t_last > t_orig ? t_last - t_orig : t_orig - t_last) / 1e6,
		   t_last > t_orig ? "after" : "before", tl_pk(b, orig)->frame);
		if (g != RT_TL_NONE)
			tx(t, "the peer had destroyed its QP (at %.6f s: its trace).", (double)item_t(c, g) / 1e9);
		else
			tx(t, "the peer went silent (it stopped or lost its link, or its packets were dropped before the "
			      "capture point).");
	} else {
		ep_words(b, peer, t);
		tx(t, " still sent packets during the retries (the last in frame %u), but none acknowledged that PSN.",
		   tl_pk(b, last)->frame);
	}
}

static int error_completions(struct dctx *c, struct tl_vec *bursts)
{
	struct tl_build *b = c->b;
	for (size_t n = 0; n < b->errs.n; n++) { /* the error completions and moves to ERROR, in order */
		size_t i = *TL_AT(&b->errs, uint32_t, n);
		struct tl_evrec *e = tl_ev(b, i);
		if (e->ev.kind != RT_EV_COMPLETION || !e->ev.u.wc.status || e->ev.u.wc.status == TL_WC_WR_FLUSH_ERR ||
		    c->explained[i] || b->ev_shadow[i])
			continue;
		unsigned st = e->ev.u.wc.status;
		uint32_t q = b->ev_qp[i];
		uint32_t wr = first_link(c, (uint32_t)i, RT_TLL_WR);
		struct text t = {.n = 0}, ev = {.n = 0};
		uint64_t lost = 0;
		long merge = -1;
		uint32_t perr = RT_TL_NONE; /* the peer QP's move to ERROR that left the retries unanswered */
		if (wr != RT_TL_NONE)
			wr_words(b, wr, &t);
		else
			tx(&t, "A WR (wr_id %" PRIu64 ")", e->ev.u.wc.wr_id);
		tx(&t, " on ");
		qp_name(b, q, &t);
		tx(&t, " failed with %s", rt_wc_status_name(st));
		struct rt_tl_qp *Q = q != RT_TL_NONE ? tl_qp(b, q) : NULL;
		/* a receive that a longer message consumed */
		uint32_t cons = wr != RT_TL_NONE ? first_link(c, wr, RT_TLL_CONSUMER) : RT_TL_NONE;
		uint32_t sender = cons != RT_TL_NONE && cons >= tl_nev(b) ? tl_pk(b, cons - tl_nev(b))->wr : RT_TL_NONE;
		bool overflow = message_overflows(c, sender, wr);
		if (overflow) {
			overflow_words(c, sender, wr, false, &t);
			tx(&t, ".");
		}
		switch (overflow ? 0 : st) {
		case 0: /* explained above */
			break;
		case WC_RETRY_EXC_ERR: {
			struct burst *u = last_group_of(bursts, q);
			unsigned rounds = 0;
			if (u) {
				for (size_t j = 0; j < bursts->n; j++) {
					struct burst *o = TL_AT(bursts, struct burst, j);
					if (o->group == u->group && o->stream == u->stream)
						rounds++;
				}
				merge = u->fidx;
				tx(&t, ": PSN 0x%06x was never acknowledged after %u retransmission round%s", u->psn, rounds,
				   rounds == 1 ? "" : "s");
			} else {
				tx(&t, ": the responder never acknowledged the request");
			}
			if (Q && Q->timeout != 0xFF)
				tx(&t, " with local ACK timeout %u (%.2f ms each)", Q->timeout, rt_ack_timeout_us(Q->timeout) / 1000.0);
			if (Q && Q->retry_cnt != 0xFF)
				tx(&t, " and retry_cnt %u", Q->retry_cnt);
			tx(&t, " (transport retry counter exceeded: the peer is unreachable, dead, or its packets are dropped).");
			if (u)
				peer_silence_words(c, u, &t);
			perr = u && u->peer_error ? RT_TL_NONE /* (the Go-Back-N's words, merged below) */
			       : peer_error_before(c, q, u ? item_t(c, tl_item_pk(b, u->first)) : item_t(c, (uint32_t)i));
			if (perr != RT_TL_NONE)
				tx(&t, " Its peer QP had moved to the ERROR state at %.6f s (its trace), before the resends: a QP "
				       "in ERROR answers no request.", (double)item_t(c, perr) / 1e9);
			peer_end_words(c, q, item_t(c, (uint32_t)i), &t);
			break;
		}
		case WC_RNR_RETRY_EXC_ERR:
			tx(&t, ": the receiver kept answering RNR NAK (no receive WR posted) until the RNR retry count");
			if (Q && Q->rnr_retry != 0xFF)
				tx(&t, " (%u)", Q->rnr_retry);
			tx(&t, " ran out; post receives before the peer sends, or raise rnr_retry (7 = infinite).");
			break;
		case WC_REM_ACCESS_ERR: {
			/* without the NAK (no capture), the WR's own rkey, address and
			 * length against the responder's records */
			const struct rt_ev_wr *w = wr != RT_TL_NONE ? &tl_ev(b, wr)->ev.u.wr : NULL;
			char why[900];
			if (w && Q && tl_access_refusal(b, Q->peer, item_t(c, wr), access_needed(0, w), w->remote_addr,
							w->rkey, w->length, why, sizeof(why)))
				tx(&t, ": the responder refused rkey 0x%x for address 0x%" PRIx64 " length %u: %s.", w->rkey,
				   w->remote_addr, w->length, why);
			else
				tx(&t, ": the responder refused the rkey, address or length (remote access error).");
			break;
		}
		case WC_REM_INV_REQ_ERR:
			tx(&t, ": the responder found the request invalid (remote invalid request).");
			break;
		case WC_REM_OP_ERR:
			tx(&t, ": the responder could not complete the operation (remote operational error).");
			break;
		case WC_LOC_LEN_ERR:
			tx(&t, ": the message was longer than the receive buffer, or the WR's length exceeds a limit (local length error).");
			break;
		case WC_LOC_PROT_ERR:
			tx(&t, ": a local buffer is not inside a registered MR with the needed access (lkey / protection error).");
			break;
		case WC_LOC_QP_OP_ERR:
			tx(&t, ": the WR was inconsistent with the QP (local QP operation error).");
			break;
		default:
			tx(&t, ".");
			break;
		}
		tx(&ev, "completion wr_id %" PRIu64 " status %u (%s)", e->ev.u.wc.wr_id, st, rt_wc_status_name(st));
		if (merge >= 0) {
			/* the Go-Back-N finding becomes this error's explanation */
			struct rt_tl_finding *f = FI(b, merge);
			const char *old = (const char *)b->strs.p + f->text;
			struct text both = {.n = 0};
			tx(&both, "%s %s", t.buf, old);
			uint32_t ts = tl_str(b, both.buf);
			f = FI(b, merge);
			f->text = ts;
			f->kind = RT_TLFK_ERROR_COMPLETION;
			f->severity = RT_TLS_ERROR;
			tl_finding_evidence(b, f, (uint32_t)i);
			tl_finding_evidence(b, f, perr);
			c->explained[i] = 1;
			struct text t2 = {.n = 0}, e2 = {.n = 0};
			tx(&t2, "%s", (const char *)b->strs.p + FI(b, merge)->text);
			tx(&e2, "%s, %s", (const char *)b->strs.p + FI(b, merge)->evidence, ev.buf);
			add_qp_error_tail(c, q, (uint32_t)i, &t2, &e2, merge);
			ts = tl_str(b, t2.buf);
			uint32_t es = tl_str(b, e2.buf);
			FI(b, merge)->text = ts;
			FI(b, merge)->evidence = es;
			continue;
		}
		long f = finding(b, RT_TLFK_ERROR_COMPLETION, RT_TLS_ERROR, item_t(c, (uint32_t)i), q, lost, 0, &t, &ev);
		if (f < 0)
			return -ENOMEM;
		c->explained[i] = 1;
		tl_finding_evidence(b, FI(b, f), (uint32_t)i);
		tl_finding_evidence(b, FI(b, f), wr);
		tl_finding_evidence(b, FI(b, f), perr);
		add_qp_error_tail(c, q, (uint32_t)i, &t, &ev, f);
		uint32_t ts = tl_str(b, t.buf), es = tl_str(b, ev.buf);
		FI(b, f)->text = ts;
		FI(b, f)->evidence = es;
	}
	/* QPs moved to ERROR with WRs still outstanding and nothing above explaining it
	 * (a QP moved to ERROR at teardown with nothing outstanding is normal) */
	for (size_t n = 0; n < b->errs.n; n++) {
		size_t i = *TL_AT(&b->errs, uint32_t, n);
		struct tl_evrec *e = tl_ev(b, i);
		if (e->ev.kind != RT_EV_QP_STATE || e->ev.u.qp_state.to_state != 6 || c->explained[i] || b->ev_shadow[i])
			continue;
		uint32_t q = b->ev_qp[i];
		if (q != RT_TL_NONE && c->qp_explained[q])
			continue; /* the application tearing down a QP whose error is already explained */
		struct text t = {.n = 0}, ev = {.n = 0};
		uint32_t ff;
		uint32_t nf = flushed_after(b, q, i, &ff);
		if (!nf || qp_torn_down(c, q, i))
			continue;
		uint32_t cmf = cm_failure(c, q, i);
		qp_name(b, q, &t);
		tx(&t, " was moved to the ERROR state");
		if (nf)
			tx(&t, " and %u outstanding WR%s flushed (WR_FLUSH_ERR)", nf, nf == 1 ? " was" : "s were");
		if (cmf != RT_TL_NONE) {
			const struct rt_ev_cm *cm = &tl_ev(b, cmf)->ev.u.cm;
			tx(&t, " because its RDMA CM connection failed: librdmacm moves the QP to ERROR when it takes the %s "
			       "event (status %d), so the flushed WRs are that failure's consequence, not a transport error.",
			   rt_cm_event_name(cm->event), (int)cm->status);
			tx(&ev, "QP state event at %.6f s, CM event %s at %.6f s", (double)item_t(c, (uint32_t)i) / 1e9,
			   rt_cm_event_name(cm->event), (double)item_t(c, cmf) / 1e9);
		} else {
			tx(&t, " without a transport error (by the application, or after an asynchronous error).");
			tx(&ev, "QP state event at %.6f s", (double)item_t(c, (uint32_t)i) / 1e9);
		}
		long f = finding(b, RT_TLFK_QP_ERROR, cmf != RT_TL_NONE ? RT_TLS_INFO : RT_TLS_WARNING, item_t(c, (uint32_t)i),
				 q, 0, 0, &t, &ev);
		if (f < 0)
			return -ENOMEM;
		tl_finding_evidence(b, FI(b, f), (uint32_t)i);
		tl_finding_evidence(b, FI(b, f), ff);
		tl_finding_evidence(b, FI(b, f), cmf);
	}
	return 0;
}

/* ---- wire anomalies: PSN gaps never repaired, bad ICRC, congestion, CM rejects ---- */

/* The first RDMA CM call w1 or w2 (RT_CM_CALL_*) of the process and
 * cm_id of CM event i, from time lo to hi, or RT_TL_NONE. */
static uint32_t id_call(struct dctx *c, uint32_t i, unsigned w1, unsigned w2, uint64_t lo, uint64_t hi)
{
	struct tl_build *b = c->b;
	const struct tl_evrec *e = tl_ev(b, i);
	for (size_t n = 0; n < b->cm_evs.n; n++) {
		uint32_t x = *TL_AT(&b->cm_evs, uint32_t, n);
		const struct tl_evrec *xe = tl_ev(b, x);
		unsigned what = xe->ev.u.cm.event;
		if (xe->proc == e->proc && (what == w1 || what == w2) && xe->ev.u.cm.cm_id == e->ev.u.cm.cm_id &&
		    item_t(c, x) >= lo && item_t(c, x) <= hi)
			return x;
	}
	return RT_TL_NONE;
}

/* Whether rdma_destroy_id call d sent no REJ: its process had rejected
 * that cm_id's connection before (rdma_reject: the REJ was the reject's),
 * or the cm_id was a listener (it had no connection). */
static bool destroy_sent_no_rej(struct dctx *c, uint32_t d)
{
	return id_call(c, d, RT_CM_CALL_REJECT, RT_CM_CALL_LISTEN, 0, item_t(c, d)) != RT_TL_NONE;
}

/* The rdma_reject or rdma_destroy_id call of the process that sent REJ
 * packet k (index i), nearest the REJ from a second before to 10 ms after it
 * (its probe records a call as it returns, after the REJ left), or
 * RT_TL_NONE when that process or such a call is not known.  The destroy of
 * a cm_id rejected before, or of a listener, is not one (the reject can be
 * the farther of the two when the host's clock is known only to a few ms). */
static uint32_t rej_call(struct dctx *c, const struct tl_pk *k, size_t i)
{
	struct tl_build *b = c->b;
	const struct tl_ep *src = k->src_ep < b->eps.n ? TL_AT(&b->eps, struct tl_ep, k->src_ep) : NULL;
	if (!src || src->proc == UINT16_MAX || src->proc_ambiguous)
		return RT_TL_NONE;
	uint64_t t = item_t(c, tl_item_pk(b, (uint32_t)i)), best_d = UINT64_MAX;
	uint32_t best = RT_TL_NONE;
	for (size_t n = 0; n < b->cm_evs.n; n++) {
		uint32_t x = *TL_AT(&b->cm_evs, uint32_t, n);
		const struct tl_evrec *e = tl_ev(b, x);
		if (e->proc != src->proc || b->ev_shadow[x] ||
		    (e->ev.u.cm.event != RT_CM_CALL_REJECT && e->ev.u.cm.event != RT_CM_CALL_DESTROY_ID))
			continue;
		if (e->ev.u.cm.event == RT_CM_CALL_DESTROY_ID && destroy_sent_no_rej(c, x))
			continue;
		uint64_t te = item_t(c, x), d = te > t ? te - t : t - te;
		if ((te > t ? d <= 10000000ull : d <= 1000000000ull) && d < best_d) {
			best = x;
			best_d = d;
		}
	}
	return best;
}

/* What a CM REJ's reason means, for the reasons a connection commonly meets. */
static const char *cm_reject_meaning(unsigned reason)
{
	switch (reason) {
	case 1: case 3: return "the rejecting side is out of QPs or resources";
	case 4: return "it gave up waiting for an answer: CM messages were lost, or the other side was too slow to answer";
	case 8: return "nobody listens for that service (port) there";
	case 10: return "the rejecting side still holds an older connection with the same QP or communication ID";
	case 26: return "the path MTU is not supported";
	case 27: return "the RDMA READ / atomic depth asked for exceeds the responder's resources";
	case 28: return "the application refused the connection (rdma_reject), or its CM library did";
	default: return NULL;
	}
}

/* "; the REJ carries private data "busy"" (or its bytes in hex when they
 * are not text): what a rejecting application passed to rdma_reject,
 * often its reason.  d[kept] are its first bytes, of n (trailing zeros
 * left out; n_known false: n is not known, only that there are more);
 * nothing when there are none. */
static void private_words(const uint8_t *d, size_t kept, size_t n, bool n_known, bool from_reject, struct text *t)
{
	if (!n)
		return;
	bool text = true;
	for (size_t i = 0; i < kept; i++)
		text = text && d[i] >= 0x20 && d[i] < 0x7f && d[i] != '"' && d[i] != '\\';
	tx(t, from_reject ? "; the private data it gave rdma_reject (carried by the REJ): " : "; the REJ carries private data ");
	if (text) {
		tx(t, "\"%.*s%s\"", (int)kept, (const char *)d, kept < n ? "..." : "");
	} else {
		tx(t, "0x");
		for (size_t i = 0; i < kept && i < 16; i++)
			tx(t, "%02x", d[i]);
		if (n > 16)
			tx(t, "...");
	}
	if (n_known)
		tx(t, " (%zu byte%s)", n, n == 1 ? "" : "s");
	else
		tx(t, " (its first %zu bytes)", kept);
}

/* The rdma_destroy_id call that ended the listening of listen call i
 * before time t, or RT_TL_NONE when it was still listening then. */
static uint32_t listen_ended(struct dctx *c, uint32_t i, uint64_t t)
{
	return id_call(c, i, RT_CM_CALL_DESTROY_ID, RT_CM_CALL_DESTROY_ID, item_t(c, i), t);
}

static bool listener_v6only(struct tl_build *b, uint32_t i);

/* Whether the listener of listen record i listens at address ip of IP
 * version ver (4: ip[0..3]): bound to that address, or to any (0.0.0.0, or
 * :: which takes both versions unless the id asked for IPv6 only), or to ip
 * mapped into IPv6. */
static bool listens_at(struct tl_build *b, uint32_t i, unsigned ver, const uint8_t *ip)
{
	static const uint8_t any[16];
	struct tl_cm_addr l, peer;
	tl_cm_record_addr(b, i, &l, &peer); /* (false for a listener: it has no peer) */
	if (l.family == 2)
		return !memcmp(l.ip, any, 4) || (ver == 4 && !memcmp(l.ip, ip, 4));
	if (l.family != 10)
		return false;
	if (!memcmp(l.ip, any, 16))
		return ver == 6 || !listener_v6only(b, i);
	return ver == 6 ? !memcmp(l.ip, ip, 16) : tl_ip_v4_mapped(l.ip) && !memcmp(l.ip + 12, ip, 4);
}

/* Whether listen record i's id asked for IPv6 only
 * (rdma_set_option(RDMA_OPTION_ID_AFONLY) non-zero before it listened). */
static bool listener_v6only(struct tl_build *b, uint32_t i)
{
	const struct tl_evrec *l = tl_ev(b, i);
	bool only = false;
	for (size_t x = 0; x < b->cm_evs.n; x++) {
		uint32_t j = *TL_AT(&b->cm_evs, uint32_t, x);
		if (j >= i)
			break;
		const struct tl_evrec *e = tl_ev(b, j);
		const struct rt_ev_cm *cm = &e->ev.u.cm;
		if (e->proc == l->proc && cm->cm_id == l->ev.u.cm.cm_id && cm->event == RT_CM_CALL_SET_OPTION &&
		    cm->status == 0 && cm->option.level == RT_CM_OPT_LEVEL_ID && cm->option.name == RT_CM_OPT_AFONLY)
			only = cm->option.value != 0;
	}
	return only;
}

/* For a REJ of an IPv4 request: a traced listener on its port (and port
 * space, when known), up at t, bound to the IPv6 wildcard address with
 * AFONLY, of the host the request went to (when known): words into out
 * ("; at that address ... listens ... for IPv6 only ..."), and its listen
 * record; RT_TL_NONE when none. */
static uint32_t v6only_words(struct dctx *c, const struct tl_ep *to, uint16_t port, uint16_t ps, uint64_t t,
			     struct text *out)
{
	struct tl_build *b = c->b;
	static const uint8_t any[16];
	if (!to || to->ver != 4)
		return RT_TL_NONE;
	for (size_t x = 0; x < b->cm_evs.n; x++) {
		uint32_t i = *TL_AT(&b->cm_evs, uint32_t, x);
		const struct tl_evrec *e = tl_ev(b, i);
		const struct rt_ev_cm *cm = &e->ev.u.cm;
		struct tl_cm_addr local, peer;
		if (cm->event != RT_CM_CALL_LISTEN || cm->status != 0 || b->ev_shadow[i] || cm->local_port != port ||
		    (ps && cm->peer_port && cm->peer_port != ps) || item_t(c, i) > t ||
		    (to->host != UINT16_MAX && e->host != to->host))
			continue;
		tl_cm_record_addr(b, i, &local, &peer);
		if (local.family != 10 || memcmp(local.ip, any, 16) || listen_ended(c, i, t) != RT_TL_NONE ||
		    !listener_v6only(b, i))
			continue;
		tx(out, "; at that address ");
		proc_words(b, e->proc, out);
		tx(out, " listens on port %u of [::] for IPv6 only (rdma_set_option(RDMA_OPTION_ID_AFONLY, 1) before it "
			"bound its id; rdma_listen at %.6f s), and the request came over IPv4: the RDMA CM matched it to no "
			"listener and refused it; without AFONLY (or with net.ipv6.bindv6only 0, the default) a listener on [::] "
			"takes IPv4 requests too",
		   port, (double)item_t(c, i) / 1e9);
		return i;
	}
	return RT_TL_NONE;
}

/* An RDMA CM port space (enum rdma_port_space) in words. */
static void port_space_words(uint16_t ps, struct text *out)
{
	switch (ps) {
	case 0x106: tx(out, "the TCP port space (RDMA_PS_TCP)"); break;
	case 0x111: tx(out, "the UDP port space (RDMA_PS_UDP)"); break;
	case 0x13f: tx(out, "the IB port space (RDMA_PS_IB)"); break;
	case 0x002: tx(out, "the IPoIB port space (RDMA_PS_IPOIB)"); break;
	default: tx(out, "port space 0x%x", ps); break;
	}
}

/* For a REJ of reason 8 (nobody listened for the service the REQ asked
 * for): what the traced listeners at the address the REQ went to (IP
 * version ver, address ip) say of the port it asked for, in port space ps
 * (0: not known), at time t, in words after the sentence so far: a listener
 * on that port in another port space (the service ID is the two together),
 * one that came only after (the connection was asked for too early: a
 * client started before its server was ready), one whose cm_id was
 * destroyed before, or listeners there on other ports only (the wrong port
 * asked for).  Nothing when a listener on the port (in that port space, or
 * one not known) was up (the reason lies elsewhere) or no listener is
 * traced.  Returns the call named, for the evidence, or RT_TL_NONE. */
static uint32_t listener_words(struct dctx *c, unsigned ver, const uint8_t *ip, uint16_t port, uint16_t ps,
			       uint64_t t, struct text *out)
{
	struct tl_build *b = c->b;
	uint32_t later = RT_TL_NONE, gone = RT_TL_NONE, gone_by = RT_TL_NONE, other = RT_TL_NONE,
		 other_ps = RT_TL_NONE;
	uint16_t ports[3];
	unsigned nports = 0;
	bool more_ports = false;
	for (size_t x = 0; x < b->cm_evs.n; x++) {
		uint32_t i = *TL_AT(&b->cm_evs, uint32_t, x);
		const struct rt_ev_cm *cm = &tl_ev(b, i)->ev.u.cm;
		if (cm->event != RT_CM_CALL_LISTEN || cm->status != 0 || b->ev_shadow[i] || !listens_at(b, i, ver, ip))
			continue;
		uint64_t ti = item_t(c, i);
		if (ti > t) { /* not yet listening */
			if (cm->local_port == port && (later == RT_TL_NONE || ti < item_t(c, later)))
				later = i;
			continue;
		}
		uint32_t ended = listen_ended(c, i, t);
		if (cm->local_port == port && ended == RT_TL_NONE) {
			/* (a listen record holds its port space in peer_port, 0 not recorded) */
			if (!ps || !cm->peer_port || cm->peer_port == ps)
				return RT_TL_NONE; /* it was listening: the reason lies elsewhere */
			if (other_ps == RT_TL_NONE)
				other_ps = i;
			continue;
		}
		if (cm->local_port == port) {
			gone = i;
			gone_by = ended;
		} else if (ended == RT_TL_NONE) {
			bool seen = false;
			for (unsigned k = 0; k < nports; k++)
				seen |= ports[k] == cm->local_port;
			if (!seen && nports < 3)
				ports[nports++] = cm->local_port;
			else if (!seen)
				more_ports = true;
			if (other == RT_TL_NONE)
				other = i;
		}
	}
	uint32_t named = other_ps != RT_TL_NONE ? other_ps : later != RT_TL_NONE ? later : gone != RT_TL_NONE ? gone : other;
	if (named == RT_TL_NONE)
		return RT_TL_NONE;
	const struct tl_evrec *e = tl_ev(b, named);
	const struct rt_tl_proc *P = e->proc < b->procs.n ? TL_AT(&b->procs, struct rt_tl_proc, e->proc) : NULL;
	char who[160];
	if (P)
		snprintf(who, sizeof(who), "%s (pid %d) on %s", (const char *)b->strs.p + P->program, P->pid,
			 host_name(b, P->host));
	else
		snprintf(who, sizeof(who), "a traced process");
	uint64_t tn = item_t(c, named);
	if (other_ps != RT_TL_NONE) {
		tx(out, "; at that address %s listens on port %u in ", who, port);
		port_space_words(tl_ev(b, named)->ev.u.cm.peer_port, out);
		tx(out, " (rdma_listen at %.6f s), and the request asked for port %u in ", (double)tn / 1e9, port);
		port_space_words(ps, out);
		tx(out, ": a service is a port in a port space, and the two sides' rdma_create_id calls chose different "
			"ones");
	} else if (later != RT_TL_NONE) {
		tx(out, "; %s began listening on port %u only %.3f ms after this REJ (rdma_listen at %.6f s): the "
			"connection was asked for before its server listened (start the server first, or connect again "
			"on REJECTED)",
		   who, port, ms(tn - t), (double)tn / 1e9);
	} else if (gone != RT_TL_NONE) {
		uint64_t td = item_t(c, gone_by);
		tx(out, "; %s had listened on port %u (rdma_listen at %.6f s) but destroyed that cm_id %.3f ms before "
			"this REJ (rdma_destroy_id at %.6f s)",
		   who, port, (double)tn / 1e9, ms(t - td), (double)td / 1e9);
	} else if (nports == 1) {
		tx(out, "; at that address %s listens on port %u (rdma_listen at %.6f s), not on %u: the connection "
			"asked for the wrong port",
		   who, ports[0], (double)tn / 1e9, port);
	} else {
		tx(out, "; at that address the traced listeners listen on ports ");
		for (unsigned k = 0; k < nports; k++)
			tx(out, "%s%u", k ? (k + 1 == nports && !more_ports ? " and " : ", ") : "", ports[k]);
		tx(out, "%s (the first: %s, rdma_listen at %.6f s), not on %u: the connection asked for the wrong port",
		   more_ports ? " and more" : "", who, (double)tn / 1e9, port);
	}
	return named;
}

/* The REQs (by communication ID) and the REJs (by both IDs) seen so far. */
struct cm_seen {
	struct tl_hash reqs, rejs;
};

/* A CM REQ is remembered for the REJs that may follow; a REJ becomes a
 * finding in words: who refused whose connection request, which message,
 * why, and how long after the request.  A MAD retry of a REJ already
 * explained is not explained again. */
static uint32_t req_listener(struct dctx *c, uint32_t pk, uint64_t t, bool need_backlog);

/* What a SIDR REP's status (not 0, the service's QP) means. */
static const char *sidr_status_meaning(unsigned status)
{
	switch (status) {
	case 1: return "no such service ID: nobody listens for that service (port) there";
	case 2: return "rejected: the application refused it (rdma_reject) or destroyed the listener or the "
		       "request's cm_id first, or the listener held as many requests as its backlog";
	case 3: return "no QP available there";
	case 4: return "redirected to another service";
	case 5: return "the CM class version is not supported there";
	default: return "unknown status";
	}
}

/* A UD service request (SIDR REQ, rdma_connect of a UD QP, or udaddy's
 * rdma_resolve of a service) refused: a SIDR REP, packet i, whose status
 * is not 0; its requester's rdma_cm reports UNREACHABLE.  Told once per
 * request, as a REJ is: who refused whose request, the status, and for a
 * service nobody listened for, what the traced listeners say. */
static int sidr_refused(struct dctx *c, struct cm_seen *seen, uint32_t i)
{
	struct tl_build *b = c->b;
	const struct tl_pk *k = tl_pk(b, i), *req = NULL;
	const struct tl_cm_info *rep = tl_cm_info(b, i);
	uint64_t once = 0xFFFF000000000000ull | (uint64_t)(k->src_ep & 0xffff) << 32 | k->cm_comm_id;
	if (!rep || !rep->reason || tl_hash_get(&seen->rejs, once))
		return 0; /* the service's QP, or an answer to a request sent again */
	if (tl_hash_put(&seen->rejs, once, i) < 0)
		return -ENOMEM;
	uint32_t req_i = RT_TL_NONE;
	for (size_t ci = 0; ci < b->cm_info.n; ci++) {
		uint32_t j = TL_AT(&b->cm_info, struct tl_cm_info, ci)->pk;
		const struct tl_pk *q = tl_pk(b, j);
		if (j >= i)
			break;
		if (q->cm_attr == RT_CM_SIDR_REQ && q->cm_comm_id == k->cm_comm_id && q->dst_ep == k->src_ep)
			req_i = j; /* (its last copy before the answer) */
	}
	if (req_i != RT_TL_NONE)
		req = tl_pk(b, req_i);
	struct text t = {.n = 0}, e = {.n = 0};
	ep_words(b, k->src_ep, &t);
	tx(&t, " refused the UD service request (SIDR REQ) of ");
	ep_words(b, k->dst_ep, &t);
	tx(&t, ": status %u (%s)", rep->reason, sidr_status_meaning(rep->reason));
	uint64_t tk = item_t(c, tl_item_pk(b, i));
	uint32_t call = rep->reason == 2 ? rej_call(c, k, i) : RT_TL_NONE;
	if (call != RT_TL_NONE && tl_ev(b, call)->ev.u.cm.event == RT_CM_CALL_REJECT) {
		uint64_t tc = item_t(c, call);
		tx(&t, "; the application called rdma_reject %.3f ms %s the SIDR REP", ms(tc > tk ? tc - tk : tk - tc),
		   tc > tk ? "after" : "before");
	} else if (rep->reason == 2 && req) {
		/* the listener destroyed with the request still held: its CM refuses
		 * what it held (rdma_destroy_id's record comes as the call returns) */
		uint32_t l = req_listener(c, req_i, item_t(c, tl_item_pk(b, req_i)), false);
		call = l != RT_TL_NONE && first_link(c, tl_item_pk(b, req_i), RT_TLL_CM_EVENT) == RT_TL_NONE
			       ? listen_ended(c, l, tk + 10000000) : RT_TL_NONE;
		if (call != RT_TL_NONE) {
			uint64_t tc = item_t(c, call);
			tx(&t, "; its program destroyed the listener (port %u) before it took the request with "
			       "rdma_get_cm_event (rdma_destroy_id %.3f ms %s the SIDR REP), and its CM refused the "
			       "requests the listener held",
			   tl_ev(b, l)->ev.u.cm.local_port, ms(tc > tk ? tc - tk : tk - tc), tc > tk ? "after" : "before");
		}
	} else {
		call = RT_TL_NONE;
	}
	if (req && k->raw_ns >= req->raw_ns)
		tx(&t, "; %.3f ms after the SIDR REQ", ms(k->raw_ns - req->raw_ns));
	const struct tl_cm_info *asked = req ? tl_cm_info(b, req_i) : NULL;
	const struct tl_ep *to = k->src_ep < b->eps.n ? TL_AT(&b->eps, struct tl_ep, k->src_ep) : NULL;
	uint32_t listen = RT_TL_NONE;
	if (rep->reason == 1 && asked && asked->service_port && to)
		listen = listener_words(c, to->ver, to->ip, asked->service_port, asked->service_ps, tk, &t);
	tx(&t, ". The requester's rdma_cm reports RDMA_CM_EVENT_UNREACHABLE for it.");
	tx(&e, "SIDR REP frame %u", k->frame);
	if (req)
		tx(&e, ", SIDR REQ frame %u", req->frame);
	if (listen != RT_TL_NONE)
		tx(&e, ", rdma_listen at %.6f s", (double)item_t(c, listen) / 1e9);
	long f = finding(b, RT_TLFK_CM_REJECT, RT_TLS_ERROR, tk, RT_TL_NONE, 0, 0, &t, &e);
	if (f < 0)
		return -ENOMEM;
	tl_finding_evidence(b, FI(b, f), tl_item_pk(b, i));
	if (req)
		tl_finding_evidence(b, FI(b, f), tl_item_pk(b, req_i));
	tl_finding_evidence(b, FI(b, f), listen);
	tl_finding_evidence(b, FI(b, f), call);
	return 0;
}

static int cm_message(struct dctx *c, struct cm_seen *seen, uint32_t i)
{
	struct tl_build *b = c->b;
	const struct tl_pk *k = tl_pk(b, i), *req = NULL;
	if (k->cm_attr == RT_CM_REQ)
		return tl_hash_put(&seen->reqs, k->cm_comm_id, i);
	if (k->cm_attr == RT_CM_SIDR_REP)
		return sidr_refused(c, seen, i);
	const struct tl_cm_info *rej = tl_cm_info(b, i);
	uint64_t both = (uint64_t)k->cm_comm_id << 32 | k->cm_remote_comm_id;
	if (k->cm_attr != RT_CM_REJ || !rej || (both != UINT64_MAX && tl_hash_get(&seen->rejs, both)))
		return 0; /* no REJ, or a retry of one */
	if (both != UINT64_MAX && tl_hash_put(&seen->rejs, both, i) < 0)
		return -ENOMEM;
	/* the REJ's own comm id (the active side gave up) or its remote one (the
	 * passive side refused: by the IDs, as a program connecting to its own
	 * address is both sides' address) */
	uint32_t *r = tl_hash_get(&seen->reqs, k->cm_comm_id);
	bool active = r != NULL; /* the side that asked */
	if (!r)
		r = tl_hash_get(&seen->reqs, k->cm_remote_comm_id);
	uint32_t req_i = r ? *r : RT_TL_NONE;
	if (r)
		req = tl_pk(b, req_i);
	struct text t = {.n = 0}, e = {.n = 0};
	active = active && req && req->src_ep == k->src_ep;
	ep_words(b, k->src_ep, &t);
	if (!req) {
		tx(&t, " rejected a connection with ");
		ep_words(b, k->dst_ep, &t);
	} else if (active && rej->msg_rejected == 1) {
		tx(&t, " rejected the reply (REP) of ");
		ep_words(b, req->dst_ep, &t);
		tx(&t, " to its connection request");
	} else if (active) {
		tx(&t, " gave up the connection it had asked ");
		ep_words(b, req->dst_ep, &t);
		tx(&t, " for");
	} else {
		tx(&t, " rejected the connection request of ");
		ep_words(b, req->src_ep, &t);
	}
	const char *name = rt_cm_reject_reason_name(rej->reason), *meaning = cm_reject_meaning(rej->reason);
	tx(&t, ": reason %u (%s)", rej->reason, name ? name : "unknown");
	/* the call that made the sender's CM library reject: a consumer-defined
	 * REJ, or a timeout, comes from the application's rdma_reject or its
	 * rdma_destroy_id before the connection was established */
	uint32_t call = rej->reason == 28 || rej->reason == 4 ? rej_call(c, k, i) : RT_TL_NONE;
	unsigned what = call != RT_TL_NONE ? tl_ev(b, call)->ev.u.cm.event : 0;
	uint64_t tk = item_t(c, tl_item_pk(b, i)), tc = call != RT_TL_NONE ? item_t(c, call) : 0;
	if (what == RT_CM_CALL_REJECT && rej->reason == 28)
		tx(&t, ", the application refused the connection: it called rdma_reject (%.3f ms %s the REJ)",
		   ms(tc > tk ? tc - tk : tk - tc), tc > tk ? "after" : "before");
	else if (what == RT_CM_CALL_DESTROY_ID)
		tx(&t, "%s%s; the application gave up and destroyed its cm_id (rdma_destroy_id, %.3f ms %s the REJ) before "
		       "the connection was established, and its CM library sent the REJ",
		   rej->reason == 4 ? ", " : "", rej->reason == 4 ? meaning : "", ms(tc > tk ? tc - tk : tk - tc),
		   tc > tk ? "after" : "before");
	/* an IPv4 request to a listener on [::] for IPv6 only: refused by the CM itself */
	const struct tl_cm_info *asked = req ? tl_cm_info(b, req_i) : NULL;
	const struct tl_ep *to = req && req->dst_ep < b->eps.n ? TL_AT(&b->eps, struct tl_ep, req->dst_ep) : NULL;
	struct text v6 = {.n = 0};
	uint32_t listen = (rej->reason == 8 || (rej->reason == 28 && !what)) && !active && asked && asked->service_port
				  ? v6only_words(c, to, asked->service_port, asked->service_ps, tk, &v6)
				  : RT_TL_NONE;
	if (!(what == RT_CM_CALL_REJECT && rej->reason == 28) && what != RT_CM_CALL_DESTROY_ID && meaning &&
	    listen == RT_TL_NONE)
		tx(&t, ", %s", meaning);
	const struct tl_cm_info *info = tl_cm_info(b, i);
	if (info)
		private_words(info->private_data, info->private_n < TL_REJ_PRIVATE_KEPT ? info->private_n : TL_REJ_PRIVATE_KEPT,
			      info->private_n, true, what == RT_CM_CALL_REJECT, &t);
	if (req && k->raw_ns >= req->raw_ns)
		tx(&t, "; %.3f ms after the REQ", ms(k->raw_ns - req->raw_ns));
	/* nobody listened for the port asked for: what the traced listeners say */
	if (listen != RT_TL_NONE)
		tx(&t, "%s", v6.buf);
	else if (rej->reason == 8 && !active && asked && asked->service_port && to)
		listen = listener_words(c, to->ver, to->ip, asked->service_port, asked->service_ps, tk, &t);
	tx(&t, ".");
	tx(&e, "REJ frame %u", k->frame);
	if (req)
		tx(&e, ", REQ frame %u", req->frame);
	if (listen != RT_TL_NONE)
		tx(&e, ", rdma_listen at %.6f s", (double)item_t(c, listen) / 1e9);
	long f = finding(b, RT_TLFK_CM_REJECT, RT_TLS_ERROR, item_t(c, tl_item_pk(b, i)), req ? req->send_qp : RT_TL_NONE,
			 0, 0, &t, &e);
	if (f < 0)
		return -ENOMEM;
	tl_finding_evidence(b, FI(b, f), tl_item_pk(b, i));
	if (req)
		tl_finding_evidence(b, FI(b, f), tl_item_pk(b, req_i));
	if (listen != RT_TL_NONE)
		tl_finding_evidence(b, FI(b, f), listen);
	return 0;
}

/* Whether the capture holds a REJ sent to IPv4 address ip (network order)
 * within a second of time t. */
static bool rej_captured(struct dctx *c, uint32_t ip, uint64_t t)
{
	struct tl_build *b = c->b;
	for (size_t ci = 0; ci < b->cm_info.n; ci++) {
		uint32_t i = TL_AT(&b->cm_info, struct tl_cm_info, ci)->pk;
		const struct tl_pk *k = tl_pk(b, i);
		const struct tl_ep *d = k->dst_ep < b->eps.n ? TL_AT(&b->eps, struct tl_ep, k->dst_ep) : NULL;
		uint64_t tk = item_t(c, tl_item_pk(b, i));
		if (k->cm_attr == RT_CM_REJ && d && d->ver == 4 && !memcmp(d->ip, &ip, 4) &&
		    (tk > t ? tk - t : t - tk) <= 1000000000ull)
			return true;
	}
	return false;
}

/* A connection the traced rdma_cm reported REJECTED whose REJ the capture
 * does not hold (a run without a capture, or a capture that missed it or
 * left the CM out): the event's status is the REJ's reason, told as
 * cm_message() tells a captured REJ. */
static int traced_rejects(struct dctx *c)
{
	struct tl_build *b = c->b;
	for (size_t x = 0; x < b->cm_evs.n; x++) {
		uint32_t i = *TL_AT(&b->cm_evs, uint32_t, x);
		const struct tl_evrec *e = tl_ev(b, i);
		const struct rt_ev_cm *cm = &e->ev.u.cm;
		if (cm->event != RT_CM_EV_REJECTED || b->ev_shadow[i] || cm->status <= 0 || e->proc >= b->procs.n)
			continue;
		uint64_t when = item_t(c, i);
		if (cm->family == 2 && rej_captured(c, cm->local_ip4, when))
			continue;
		unsigned reason = (unsigned)cm->status;
		const char *name = rt_cm_reject_reason_name(reason), *meaning = cm_reject_meaning(reason);
		struct text t = {.n = 0}, ev = {.n = 0};
		proc_words(b, e->proc, &t);
		tx(&t, " had its connection");
		if (e->ev.qpn)
			tx(&t, " of QP 0x%06x", e->ev.qpn);
		if (cm->family == 2) {
			uint8_t a[4];
			memcpy(a, &cm->peer_ip4, 4);
			tx(&t, " with %u.%u.%u.%u port %u", a[0], a[1], a[2], a[3], cm->peer_port);
		}
		tx(&t, " rejected (its rdma_cm reported REJECTED): reason %u (%s)", reason, name ? name : "unknown");
		if (meaning)
			tx(&t, ", %s", meaning);
		/* the REJ's private data as the event gave it (its first bytes) */
		size_t kept = cm->private_copied < sizeof(cm->private_data) ? cm->private_copied : sizeof(cm->private_data);
		size_t n = kept;
		while (n > 0 && !cm->private_data[n - 1])
			n--;
		bool more = n == kept && cm->private_len > kept; /* (not copied: how many of them are zeros is not known) */
		private_words(cm->private_data, n, more ? n + 1 : n, !more, false, &t);
		tx(&t, "; %s", b->have_capture ? "the capture holds no REJ for it" : "there is no capture to show the REJ");
		struct tl_cm_addr local, peer;
		uint32_t listen = RT_TL_NONE;
		if (reason == 8 && tl_cm_record_addr(b, i, &local, &peer)) {
			bool v4 = peer.family == 2 || tl_ip_v4_mapped(peer.ip);
			/* the port space the request asked in: its cm_id's, as rdma_create_id recorded it */
			uint32_t made = id_call(c, i, RT_CM_CALL_CREATE_ID, RT_CM_CALL_CREATE_ID, 0, when);
			uint16_t ps = made != RT_TL_NONE ? tl_ev(b, made)->ev.u.cm.peer_port : 0;
			listen = listener_words(c, v4 ? 4 : 6, peer.family == 2 || !v4 ? peer.ip : peer.ip + 12, peer.port,
						ps, when, &t);
		}
		tx(&t, ".");
		tx(&ev, "REJECTED event at %.6f s, cm_id %u", (double)when / 1e9, cm->cm_id);
		if (listen != RT_TL_NONE)
			tx(&ev, ", rdma_listen at %.6f s", (double)item_t(c, listen) / 1e9);
		long f = finding(b, RT_TLFK_CM_REJECT, RT_TLS_ERROR, when, b->ev_qp[i], 0, 0, &t, &ev);
		if (f < 0)
			return -ENOMEM;
		tl_finding_evidence(b, FI(b, f), i);
		if (listen != RT_TL_NONE)
			tl_finding_evidence(b, FI(b, f), listen);
	}
	return 0;
}

/* Congestion signals between two addresses: ECN-marked packets from src to
 * dst, and CNPs from src to dst. */
struct cong_flow {
	uint32_t src, dst, ecn, cnp;
};
#define CONG_FLOWS 64

static void cong_count(struct cong_flow *f, uint32_t *nf, uint32_t src, uint32_t dst, bool is_cnp)
{
	uint32_t i = 0;
	while (i < *nf && !(f[i].src == src && f[i].dst == dst))
		i++;
	if (i == *nf) {
		if (*nf == CONG_FLOWS)
			return; /* counted in the totals only */
		f[(*nf)++] = (struct cong_flow){.src = src, .dst = dst};
	}
	if (is_cnp)
		f[i].cnp++;
	else
		f[i].ecn++;
}

/* "from SRC to DST" of a flow. */
static void flow_words(struct tl_build *b, const struct cong_flow *f, struct text *t)
{
	tx(t, "from ");
	ep_words(b, f->src, t);
	tx(t, " to ");
	ep_words(b, f->dst, t);
}

/* "N from SRC to DST, ..." for the first four flows with ECN marks (or with
 * CNPs); returns how many flows have them. */
static uint32_t flow_counts(struct tl_build *b, const struct cong_flow *f, uint32_t nf, bool cnps, struct text *t)
{
	uint32_t shown = 0;
	for (uint32_t i = 0; i < nf; i++) {
		uint32_t n = cnps ? f[i].cnp : f[i].ecn;
		if (n && shown++ < 4) {
			tx(t, "%s%u ", shown > 1 ? ", " : "", n);
			flow_words(b, &f[i], t);
		}
	}
	return shown;
}

/* The CNPs dst sent back to src. */
static uint32_t cong_cnps_back(const struct cong_flow *f, uint32_t nf, uint32_t src, uint32_t dst)
{
	for (uint32_t i = 0; i < nf; i++)
		if (f[i].src == dst && f[i].dst == src)
			return f[i].cnp;
	return 0;
}

/* The congestion finding: where the marks and CNPs went, and whether each
 * receiver of marked packets answered with CNPs (DCQCN's notification
 * point), without which its sender never slows down. */
static void congestion_words(struct tl_build *b, const struct cong_flow *f, uint32_t nf, uint32_t cnp, uint32_t ecn,
			     uint32_t ecn_injected, struct text *t)
{
	tx(t, "Congestion: ");
	if (ecn) {
		tx(t, "%u ECN-marked packet%s (Congestion Experienced", ecn, ecn == 1 ? "" : "s");
		if (ecn_injected == ecn)
			tx(t, ", marked on purpose by the sending engine: injected, a fault rule, as a filling queue on the "
			      "path would mark them): ");
		else if (ecn_injected)
			tx(t, ": a queue on the path was filling up; %u of them marked on purpose by the sending engine, "
			      "injected by a fault rule): ", ecn_injected);
		else
			tx(t, ": a queue on the path was filling up): ");
		uint32_t shown = flow_counts(b, f, nf, false, t), silent = 0;
		for (uint32_t i = 0; i < nf; i++)
			silent += f[i].ecn && !cong_cnps_back(f, nf, f[i].src, f[i].dst);
		tx(t, "%s.", shown > 4 ? " and more" : "");
		if (silent) {
			/* the flows whose receiver sent no CNP back to their sender */
			tx(t, " No CNP came back for the marks");
			for (uint32_t i = 0, n = 0; i < nf && n < 4; i++) {
				if (!f[i].ecn || cong_cnps_back(f, nf, f[i].src, f[i].dst))
					continue;
				tx(t, "%s ", n++ ? "," : "");
				flow_words(b, &f[i], t);
			}
			tx(t, "%s, so %s never slowed down: a receiver's device must run DCQCN's notification point to "
			      "turn marks into CNPs (SoftRoCE and uroce have none; on a NIC, RoCE congestion control may "
			      "be off for this priority).",
			   silent > 4 ? " and more" : "", silent == 1 ? "that sender" : "those senders");
		}
	}
	if (cnp) {
		tx(t, "%s%u CNP%s (", ecn ? " " : "", cnp, cnp == 1 ? "" : "s");
		uint32_t shown = flow_counts(b, f, nf, true, t);
		tx(t, "%s): each tells the sender it is addressed to to cut its rate (DCQCN's reaction point).",
		   shown > 4 ? " and more" : "");
	}
}

/* The next transmission of bad request packet i's PSN on its stream, within
 * a window of packets: RT_TL_NONE when it was never sent again. */
static uint32_t resend_of(struct tl_build *b, size_t i)
{
	const struct tl_pk *k = tl_pk(b, i);
	size_t npk = tl_npk(b);
	for (size_t j = i + 1; j < npk && j - i < 100000; j++) {
		const struct tl_pk *o = tl_pk(b, j);
		if (o->is_request && o->recv_qp == k->recv_qp && o->psn == k->psn && o->icrc != RT_ICRC_BAD)
			return (uint32_t)j;
	}
	return RT_TL_NONE;
}

/* ---- what the engines changed on purpose (fault rules) ---- */

/* The injected fault kinds an engine traces on a packet it sends. */
static const unsigned injected_flags[] = {RT_PKTE_INJECTED_COPY, RT_PKTE_INJECTED_CORRUPT, RT_PKTE_INJECTED_CE};
#define INJECTED_ANY_HOST 0x3F

/* The key of dctx.injected: the kind (its index in injected_flags), the
 * sending host (INJECTED_ANY_HOST: any), PSN, opcode and destination QP. */
static uint64_t injected_key(unsigned kind, unsigned host, uint32_t psn, uint8_t opcode, uint32_t dqpn)
{
	return (uint64_t)(kind << 6 | (host < INJECTED_ANY_HOST ? host : INJECTED_ANY_HOST)) << 56 |
	       (uint64_t)(dqpn & 0xFFFFFF) << 32 | (uint64_t)opcode << 24 | (psn & 0xFFFFFF);
}

/* Reads the sends the engines traced as changed on purpose by a fault rule
 * (RT_PKTE_INJECTED_*), for the packets not matched to engine events one by
 * one (UD datagrams, CM messages): injected_sends.  Once, before the
 * detectors. */
static int injected_read(struct dctx *c)
{
	struct tl_build *b = c->b;
	if (tl_hash_init(&c->injected, 16) < 0)
		return -ENOMEM;
	c->injected_read = true;
	for (size_t i = 0, nev = tl_nev(b); i < nev; i++) {
		const struct tl_evrec *r = tl_ev(b, i);
		const struct rt_ev_packet *p = &r->ev.u.pkt;
		if (r->ev.kind != RT_EV_PACKET || !(r->ev.flags & RT_EVF_TX) || !p->engine_flags)
			continue;
		for (unsigned kind = 0; kind < sizeof(injected_flags) / sizeof(injected_flags[0]); kind++) {
			if (!(p->engine_flags & injected_flags[kind]))
				continue;
			for (unsigned any = 0; any < 2; any++) {
				uint64_t key = injected_key(kind, any ? INJECTED_ANY_HOST : r->host, p->psn, p->opcode,
							    p->dest_qpn);
				uint32_t *n = tl_hash_get(&c->injected, key);
				if (tl_hash_put(&c->injected, key, n ? *n + 1 : 1) < 0)
					return -ENOMEM;
			}
		}
	}
	return 0;
}

/* How many sends an engine traced with flag (one of injected_flags) of a
 * PSN, opcode and destination QP, from host (INJECTED_ANY_HOST: any). */
static uint32_t injected_lookup(struct dctx *c, unsigned flag, unsigned host, uint32_t psn, uint8_t opcode, uint32_t dqpn)
{
	unsigned kind = 0;
	while (injected_flags[kind] != flag)
		kind++;
	const uint32_t *n = tl_hash_get(&c->injected, injected_key(kind, host, psn, opcode, dqpn));
	return n ? *n : 0;
}

/* How many sends of captured packet k's PSN, opcode and destination QP
 * (from its sending QP's host, when known) an engine traced with flag (one
 * of injected_flags): at least 1 when k's own send, matched to k, has it. */
static uint32_t injected_sends(struct dctx *c, const struct tl_pk *k, unsigned flag)
{
	struct tl_build *b = c->b;
	uint32_t own = tl_engine_injected(b, k, flag);
	const struct rt_tl_qp *q = k->send_qp != RT_TL_NONE ? tl_qp(b, k->send_qp) : NULL;
	uint32_t n = injected_lookup(c, flag, q && q->host != UINT16_MAX ? q->host : INJECTED_ANY_HOST, k->psn, k->opcode,
				     k->dqpn);
	return n > own ? n : own;
}

/* What damages packets: the sending engine's fault rule, when it traced
 * so, or else the link or the sender. */
#define DAMAGED_ON_PURPOSE "injected corruption: the sending engine damaged the ICRC on purpose, a fault rule"
#define DAMAGED_ON_THE_WAY "corruption on the link or a broken sender"

/* What damaged captured packet k, which has a bad ICRC. */
static const char *damage_cause(struct dctx *c, const struct tl_pk *k)
{
	return injected_sends(c, k, RT_PKTE_INJECTED_CORRUPT) ? DAMAGED_ON_PURPOSE : DAMAGED_ON_THE_WAY;
}

/* An engine's record of a packet it dropped on arrival for a bad ICRC. */
static bool traced_icrc_drop(const struct rt_event *ev)
{
	return !(ev->flags & RT_EVF_TX) && ev->u.pkt.drop_reason == RT_PKT_DROP_BAD_ICRC;
}

/* Whether QP q's engine traced dropping its packet of that PSN for a bad ICRC. */
static bool traced_drop_of(struct tl_build *b, uint32_t q, uint32_t psn)
{
	for (size_t x = 0; x < b->drops.n; x++) {
		uint32_t i = *TL_AT(&b->drops, uint32_t, x);
		const struct rt_event *ev = &tl_ev(b, i)->ev;
		if (b->ev_qp[i] == q && ev->u.pkt.psn == psn && traced_icrc_drop(ev))
			return true;
	}
	return false;
}

/* What became of a packet with a bad ICRC, from the capture (and the
 * receiver's trace, when its engine traced dropping it). */
enum icrc_fate {
	ICRC_FATE_UNKNOWN,        /* not a request, or neither resent nor acknowledged */
	ICRC_FATE_DROPPED,        /* sent again: its receiver dropped it */
	ICRC_FATE_TRACED_DROP,    /* not sent again, but its receiver's engine traced dropping it */
	ICRC_FATE_INTACT,         /* acknowledged, never sent again: only the capture's copy is bad */
	ICRC_FATE_IN_GAP,         /* headers damaged too, standing in a PSN gap nothing resent: the same */
	ICRC_FATE_ANSWERED,       /* answered by an RNR NAK or a NAK error: its receiver read it, the same */
	ICRC_FATE_IN_ROUND,       /* sent again in a round that went back to an earlier PSN: unknown */
};

/* The RNR NAK or NAK error (not a sequence error: that one names a PSN the
 * receiver missed) that answered request i, with a good ICRC: its receiver
 * read it intact.  RT_TL_NONE: none among the 64 NAKs after it. */
static uint32_t nak_answer(struct tl_build *b, uint32_t i)
{
	size_t lo = noted_from(&b->naks, i); /* the first NAK after i (naks are in capture order) */
	for (size_t x = lo; x < b->naks.n && x < lo + 64; x++) {
		uint32_t n = *TL_AT(&b->naks, uint32_t, x);
		const struct tl_pk *k = tl_pk(b, n);
		if (k->answer == i && k->icrc != RT_ICRC_BAD &&
		    !tl_pk_seq_nak(k))
			return n;
	}
	return RT_TL_NONE;
}

static enum icrc_fate bad_icrc_fate(struct tl_build *b, size_t i, uint32_t *again)
{
	const struct tl_pk *k = tl_pk(b, i);
	*again = RT_TL_NONE;
	if (k->is_cm)
		return ICRC_FATE_UNKNOWN;
	if (k->fills_gap)
		return ICRC_FATE_IN_GAP;
	bool request = k->is_request && k->recv_qp != RT_TL_NONE;
	if (request && (*again = nak_answer(b, (uint32_t)i)) != RT_TL_NONE)
		return ICRC_FATE_ANSWERED;
	if (request && (*again = resend_of(b, i)) != RT_TL_NONE) {
		/* the round went back to it, or to an earlier PSN, which resends it whatever became of it */
		const struct tl_pk *a = tl_pk(b, *again);
		return a->round_start && a->round_psn == k->psn ? ICRC_FATE_DROPPED : ICRC_FATE_IN_ROUND;
	}
	if (k->recv_qp != RT_TL_NONE && traced_drop_of(b, k->recv_qp, k->psn))
		return ICRC_FATE_TRACED_DROP;
	if (!request)
		return ICRC_FATE_UNKNOWN;
	if (k->answer != RT_TL_NONE && tl_pk(b, k->answer)->aeth_type == RT_AETH_ACK &&
	    tl_pk(b, k->answer)->icrc != RT_ICRC_BAD)
		return ICRC_FATE_INTACT;
	return ICRC_FATE_UNKNOWN;
}

static void bad_icrc_packet_words(struct tl_build *b, size_t i, struct text *t)
{
	const struct tl_pk *k = tl_pk(b, i);
	const struct rt_opcode_info *op = rt_opcode_info(k->opcode);
	if (k->is_cm) /* a MAD on QP 1: the CM message it carries (its QP is the one it sets up) */
		tx(t, "frame %u (CM %s", k->frame, rt_cm_attr_name(k->cm_attr));
	else
		tx(t, "frame %u (%s, PSN 0x%06x", k->frame, op ? op->name : "unknown opcode", k->psn);
	tx(t, ", from ");
	if (k->send_qp != RT_TL_NONE && !k->is_cm)
		qp_name(b, k->send_qp, t);
	else
		ep_words(b, k->src_ep, t);
	tx(t, ")");
	uint32_t again;
	switch (bad_icrc_fate(b, i, &again)) {
	case ICRC_FATE_DROPPED:
		tx(t, ", sent again at frame %u %.3f ms later", tl_pk(b, again)->frame,
		   ms(tl_pk(b, again)->raw_ns > k->raw_ns ? tl_pk(b, again)->raw_ns - k->raw_ns : 0));
		break;
	case ICRC_FATE_INTACT:
		tx(t, ", acknowledged at frame %u and never sent again", tl_pk(b, k->answer)->frame);
		break;
	case ICRC_FATE_IN_ROUND:
		tx(t, ", sent again at frame %u in a round that went back to an earlier PSN", tl_pk(b, again)->frame);
		break;
	case ICRC_FATE_ANSWERED:
		tx(t, ", answered at frame %u by %s", tl_pk(b, again)->frame,
		   tl_pk(b, again)->aeth_type == RT_AETH_RNR_NAK ? "an RNR NAK" : "a NAK");
		break;
	case ICRC_FATE_IN_GAP:
		tx(t, ", its headers damaged too (it stands in a gap of its stream's PSNs that nothing resent)");
		break;
	case ICRC_FATE_TRACED_DROP:
		tx(t, ", dropped on arrival (its receiver's trace)");
		break;
	case ICRC_FATE_UNKNOWN:
		break;
	}
}

/* The bad-ICRC finding's sentence: how many; which the receiver dropped
 * (sent again) and which it took intact (acknowledged, never sent again:
 * only the capture's copy is damaged); a sender all of whose packets are
 * bad; the first few.  Runs only when there are some.  *capture_only: every
 * bad packet whose fate is known reached its receiver intact. */
static int bad_icrc_words(struct dctx *c, uint32_t bad, uint32_t firstbad, struct text *t, bool *capture_only)
{
	struct tl_build *b = c->b;
	size_t npk = tl_npk(b), nq = b->qps.n;
	uint32_t *all = calloc(2 * (nq + 1), sizeof(*all)), *badq = all + nq + 1;
	if (!all)
		return -ENOMEM;
	uint32_t dropped = 0, traced = 0, intact = 0, answered = 0, in_round = 0, asked = 0, injected = 0;
	for (size_t i = 0; i < npk; i++) {
		const struct tl_pk *k = tl_pk(b, i);
		if (k->send_qp < nq && !k->is_cm) {
			all[k->send_qp]++;
			badq[k->send_qp] += k->icrc == RT_ICRC_BAD;
		}
		injected += k->icrc == RT_ICRC_BAD && injected_sends(c, k, RT_PKTE_INJECTED_CORRUPT);
		if (k->icrc == RT_ICRC_BAD && asked++ < 1000) { /* each looks ahead for a resend */
			uint32_t again;
			enum icrc_fate f = bad_icrc_fate(b, i, &again);
			dropped += f == ICRC_FATE_DROPPED;
			traced += f == ICRC_FATE_TRACED_DROP;
			intact += f == ICRC_FATE_INTACT || f == ICRC_FATE_IN_GAP;
			answered += f == ICRC_FATE_ANSWERED;
			in_round += f == ICRC_FATE_IN_ROUND;
		}
	}
	*capture_only = (intact || answered) && !dropped && !traced;
	/* what damaged them: the sending engine's fault rule, when it traced so for every one */
	const char *cause = injected == bad ? DAMAGED_ON_PURPOSE : DAMAGED_ON_THE_WAY;
	char why_dropped[160], why_traced[160], why_unknown[200];
	snprintf(why_dropped, sizeof(why_dropped), "as a receiver does with a bad ICRC (%s), and the sender resent", cause);
	snprintf(why_traced, sizeof(why_traced), "a receiver drops a packet with a bad ICRC (%s)", cause);
	snprintf(why_unknown, sizeof(why_unknown),
		 "receivers drop such packets silently, which shows up as loss and retransmissions (%s)", cause);
	static const char *const why_intact = "so only the capture's copy is damaged (at the capture point, or in the "
					      "copy of the file)";
	if (bad == 1) {
		size_t i = firstbad;
		uint32_t again;
		enum icrc_fate f = bad_icrc_fate(b, i, &again);
		tx(t, "1 packet had a bad ICRC: ");
		bad_icrc_packet_words(b, i, t);
		switch (f) {
		case ICRC_FATE_DROPPED:
			tx(t, ": its receiver dropped it, %s.", why_dropped);
			break;
		case ICRC_FATE_TRACED_DROP: /* (a response's PSN is answered again when the requester resends) */
			tx(t, ": %s%s.", why_traced, tl_pk(b, i)->is_request ? ", and nothing sent it again" : "");
			break;
		case ICRC_FATE_INTACT:
		case ICRC_FATE_IN_GAP:
		case ICRC_FATE_ANSWERED:
			tx(t, ": its receiver took it intact, %s.", why_intact);
			break;
		case ICRC_FATE_IN_ROUND:
		case ICRC_FATE_UNKNOWN:
			tx(t, "; %s.", why_unknown);
			break;
		}
	} else {
		tx(t, "%u packets had a bad ICRC", bad);
		if (!dropped && !intact && !traced && !answered)
			tx(t, "; %s.", why_unknown);
		else
			tx(t, ".");
		if (dropped)
			tx(t, " %u %s sent again: %s receiver dropped %s, %s.", dropped, dropped == 1 ? "was" : "were",
			   dropped == 1 ? "its" : "their", dropped == 1 ? "it" : "them", why_dropped);
		if (traced)
			tx(t, " %u %s dropped on arrival, as %s receiver's trace shows: %s.", traced,
			   traced == 1 ? "was" : "were", traced == 1 ? "its" : "their", why_traced);
		if (answered)
			tx(t, " %u %s answered by an RNR NAK or a NAK error%s", answered, answered == 1 ? "was" : "were",
			   intact ? " and" : "");
		if (intact)
			tx(t, " %u %s acknowledged and never sent again", intact, intact == 1 ? "was" : "were");
		if (answered || intact)
			tx(t, ": %s receiver took %s intact, %s.", answered + intact == 1 ? "its" : "their",
			   answered + intact == 1 ? "it" : "them", why_intact);
		if (in_round)
			tx(t, " %u %s sent again in a round that went back to an earlier PSN, which resends %s whatever "
			      "became of %s.", in_round, in_round == 1 ? "was" : "were", in_round == 1 ? "it" : "them",
			   in_round == 1 ? "it" : "them");
	}
	if (injected && injected < bad)
		tx(t, " %u of them the sending engine damaged on purpose (injected corruption: a fault rule).", injected);
	for (size_t q = 0, shown = 0; q < nq && shown < 2 && injected < bad; q++) {
		if (all[q] < 4 || badq[q] != all[q])
			continue;
		tx(t, " Every one of the %u packets ", all[q]);
		qp_name(b, (uint32_t)q, t);
		tx(t, " sent had a bad ICRC: its sender computes the ICRC differently (or the capture point sees its "
		      "packets before the device fills the ICRC in).");
		shown++;
	}
	free(all);
	if (bad == 1)
		return 0;
	uint32_t told = 0;
	for (size_t i = firstbad; i < npk && told < 3; i++) {
		if (tl_pk(b, i)->icrc != RT_ICRC_BAD)
			continue;
		tx(t, told ? "; " : " The first: ");
		bad_icrc_packet_words(b, i, t);
		told++;
	}
	tx(t, "%s.", bad > told ? ", and more" : "");
	return 0;
}

/* PSN gaps on one receiving QP's stream that no retransmission repaired. */
struct psn_gaps {
	uint32_t n, first, nev, ev[32];
};

/* The packet with a bad ICRC, from request i's sender to its receiver,
 * that stands in the capture between i and its stream's packet before it
 * (RT_TL_NONE: none): the packet of the PSN gap before i is there, its
 * headers damaged. */
static uint32_t damaged_in_gap(struct tl_build *b, uint32_t i)
{
	const struct tl_pk *k = tl_pk(b, i);
	for (uint32_t j = i, n = 0; j-- > 0 && n < 256; n++) {
		const struct tl_pk *o = tl_pk(b, j);
		if (o->icrc == RT_ICRC_BAD && !o->is_cm && o->src_ep == k->src_ep && o->dst_ep == k->dst_ep)
			return j;
		if (o->icrc != RT_ICRC_BAD && o->is_request && o->recv_qp == k->recv_qp)
			return RT_TL_NONE;
	}
	return RT_TL_NONE;
}

/* The sending engine traced dropping the packet of the PSN just before
 * packet k (which came after a gap) as it sent it, by time t: the packet
 * never left (injected loss), the capture missed nothing.  A resend the
 * receiver had already taken needs no repair either (a round the capture
 * saw only from its middle, having started after the first transmissions). */
static bool sender_dropped(struct tl_build *b, const struct tl_pk *k, uint64_t t)
{
	uint32_t psn = rt_psn_add(k->psn, -1);
	for (size_t x = 0; x < b->drops.n; x++) {
		uint32_t i = *TL_AT(&b->drops, uint32_t, x);
		const struct rt_event *ev = &tl_ev(b, i)->ev;
		if ((ev->flags & RT_EVF_TX) && b->ev_qp[i] == k->send_qp && ev->u.pkt.psn == psn && tl_item_time(b, i) <= t)
			return true;
	}
	return false;
}

/* The engines' retry events after the capture's last packet (at end):
 * repairs the capture could not see (a capture that stopped first). */
static int retries_after_capture(struct tl_build *b, uint64_t end, struct tl_vec *out)
{
	for (size_t x = 0; tl_npk(b) && x < tl_nev(b); x++)
		if (tl_ev(b, x)->ev.kind == RT_EV_RETRY && tl_item_time(b, (uint32_t)x) > end &&
		    tl_vec_push_u32(out, (uint32_t)x) < 0)
			return -ENOMEM;
	return 0;
}

/* One of those went back over the PSN just before packet k, which came after a gap. */
static bool resent_after_capture(struct tl_build *b, const struct tl_vec *after, const struct tl_pk *k)
{
	uint32_t psn = rt_psn_add(k->psn, -1);
	for (size_t n = 0; n < after->n; n++) {
		uint32_t x = *TL_AT(after, uint32_t, n);
		const struct rt_ev_retry *r = &tl_ev(b, x)->ev.u.retry;
		if (b->ev_qp[x] == k->send_qp && psn_within(psn, r->first_psn, r->last_psn))
			return true;
	}
	return false;
}

/* The out-of-order requests in ooo (packet order) that no later
 * retransmission on their stream (within 200000 packets) went back before:
 * the capture missed those packets, the transport saw no loss (unless the
 * sender's engine dropped the packet as it sent it, or went back over it
 * after the capture's last packet, at end).  Each looks
 * only at its stream's retransmissions (next_rt: the next one after a
 * packet), so a capture with many drops and few retransmissions costs a
 * pass, not a pass per gap. */
static int unrepaired_gaps(struct tl_build *b, const struct tl_vec *ooo, struct psn_gaps *gaps, size_t nq,
			   uint64_t end)
{
	if (!ooo->n)
		return 0;
	size_t npk = tl_npk(b);
	uint32_t *next_rt = malloc(npk * sizeof(uint32_t)), *last = malloc((nq + 1) * sizeof(uint32_t));
	if (!next_rt || !last) {
		free(next_rt);
		free(last);
		return -ENOMEM;
	}
	struct tl_vec after; /* retry events after the capture's last packet */
	tl_vec_init(&after, sizeof(uint32_t));
	if (retries_after_capture(b, end, &after) < 0) {
		free(next_rt);
		free(last);
		return -ENOMEM;
	}
	for (size_t q = 0; q <= nq; q++)
		last[q] = RT_TL_NONE;
	for (size_t i = npk; i-- > 0;) {
		const struct tl_pk *k = tl_pk(b, i);
		uint32_t q = k->recv_qp < nq ? k->recv_qp : (uint32_t)nq;
		next_rt[i] = last[q];
		if (k->is_request && (k->retrans || k->late))
			last[q] = (uint32_t)i; /* a resend, or the late packet itself, fills a gap */
	}
	for (size_t x = 0; x < ooo->n; x++) {
		uint32_t i = *TL_AT(ooo, uint32_t, x);
		const struct tl_pk *k = tl_pk(b, i);
		bool repaired = false;
		for (uint32_t j = next_rt[i]; j != RT_TL_NONE && j - i < 200000 && !repaired; j = next_rt[j])
			repaired = rt_psn_diff(tl_pk(b, j)->psn, k->psn) < 0;
		if (repaired || resent_after_capture(b, &after, k) || sender_dropped(b, k, tl_item_time(b, tl_item_pk(b, i))))
			continue;
		uint32_t d = damaged_in_gap(b, i);
		if (d != RT_TL_NONE) { /* no capture drop: the bad-ICRC finding tells */
			tl_pk(b, d)->fills_gap = true;
			continue;
		}
		uint32_t q = k->recv_qp < nq ? k->recv_qp : (uint32_t)nq;
		if (!gaps[q].n++)
			gaps[q].first = i;
		if (gaps[q].nev < sizeof(gaps[q].ev) / sizeof(gaps[q].ev[0]))
			gaps[q].ev[gaps[q].nev++] = i;
	}
	tl_vec_free(&after);
	free(next_rt);
	free(last);
	return 0;
}

/* The packets receiving engines traced dropping for a bad ICRC, when the
 * capture shows no packet with a bad ICRC: there is no capture, or the
 * damage happened past the capture point. */
static int traced_bad_icrc(struct dctx *c)
{
	struct tl_build *b = c->b;
	uint32_t n = 0, first = RT_TL_NONE, injected = 0;
	for (size_t x = 0; x < b->drops.n; x++) {
		uint32_t i = *TL_AT(&b->drops, uint32_t, x);
		const struct rt_event *ev = &tl_ev(b, i)->ev;
		if (!traced_icrc_drop(ev))
			continue;
		if (!n++)
			first = i;
		/* the sender's record of that send, damaged on purpose (to this QP: the drop's own) */
		injected += injected_lookup(c, RT_PKTE_INJECTED_CORRUPT, INJECTED_ANY_HOST, ev->u.pkt.psn, ev->u.pkt.opcode,
					    ev->qpn) > 0;
	}
	if (!n)
		return 0;
	const struct rt_ev_packet *p = &tl_ev(b, first)->ev.u.pkt;
	const struct rt_opcode_info *op = rt_opcode_info(p->opcode);
	struct text t = {.n = 0}, e = {.n = 0};
	tx(&t, "%u packet%s arrived with a bad ICRC and %s dropped by %s receiver's engine, ", n, n == 1 ? "" : "s",
	   n == 1 ? "was" : "were", n == 1 ? "its" : "their");
	const char *name = op ? op->name : "packet of unknown opcode";
	bool vowel = name[0] == 'R'; /* "RC ...", spoken "arr-see" */
	tx(&t, "%s%s %s PSN 0x%06x to ", n == 1 ? "" : "the first ", vowel ? "an" : "a", name, p->psn);
	qp_name(b, b->ev_qp[first], &t);
	if (injected == n)
		tx(&t, ": injected corruption, the sending engine damaged the ICRC on purpose (a fault rule)");
	else
		tx(&t, ": corruption on the link or a broken sender%s", injected ? " (some injected: the sending engine "
										"damaged their ICRC on purpose, a fault rule)" : "");
	tx(&t, "; a receiver drops such packets silently, which shows up as loss and retransmissions.");
	if (b->have_capture)
		tx(&t, " The capture holds no packet with a bad ICRC: the damage happened past the capture point, or the "
		       "capture missed %s.", n == 1 ? "it" : "them");
	tx(&e, "the receiving engine's packet events (dropped=1, drop_reason=bad_icrc), first at %.6f s",
	   (double)item_t(c, first) / 1e9);
	long f = finding(b, RT_TLFK_BAD_ICRC, RT_TLS_WARNING, item_t(c, first), b->ev_qp[first], 0, 0, &t, &e);
	if (f < 0)
		return -ENOMEM;
	for (size_t x = 0, k = 0; x < b->drops.n && k < 64; x++) {
		uint32_t i = *TL_AT(&b->drops, uint32_t, x);
		if (traced_icrc_drop(&tl_ev(b, i)->ev)) {
			tl_finding_evidence(b, FI(b, f), i);
			k++;
		}
	}
	return 0;
}

static int wire_anomalies(struct dctx *c)
{
	struct tl_build *b = c->b;
	size_t npk = tl_npk(b), nq = b->qps.n;
	uint32_t bad = 0, firstbad = RT_TL_NONE, cnp = 0, ecn = 0, ecn_injected = 0, firstcong = RT_TL_NONE;
	struct cong_flow flows[CONG_FLOWS];
	uint32_t nflows = 0;
	struct psn_gaps *gaps = calloc(nq + 1, sizeof(*gaps)); /* per receiving QP; [nq]: unknown */
	if (!gaps)
		return -ENOMEM;
	struct cm_seen cm;
	struct tl_vec ooo; /* uint32_t: out-of-order requests (a PSN gap before each) */
	tl_vec_init(&ooo, sizeof(uint32_t));
	if (tl_hash_init(&cm.reqs, 16) < 0 || tl_hash_init(&cm.rejs, 16) < 0) {
		tl_hash_free(&cm.reqs);
		free(gaps);
		return -ENOMEM;
	}
	for (size_t i = 0; i < npk; i++) {
		struct tl_pk *k = tl_pk(b, i);
		if (k->icrc == RT_ICRC_BAD) {
			if (!bad++)
				firstbad = (uint32_t)i;
		}
		if (k->opcode == RT_OP_CNP || (k->tos & 3) == 3) {
			if (k->opcode == RT_OP_CNP) {
				cnp++;
			} else {
				ecn++;
				ecn_injected += injected_sends(c, k, RT_PKTE_INJECTED_CE) > 0;
			}
			cong_count(flows, &nflows, k->src_ep, k->dst_ep, k->opcode == RT_OP_CNP);
			if (firstcong == RT_TL_NONE)
				firstcong = (uint32_t)i;
		}
		if (k->is_cm && (k->cm_attr == RT_CM_REQ || k->cm_attr == RT_CM_REJ || k->cm_attr == RT_CM_SIDR_REP) &&
		    cm_message(c, &cm, (uint32_t)i) < 0) {
			free(gaps);
			tl_hash_free(&cm.reqs);
			tl_hash_free(&cm.rejs);
			return -ENOMEM;
		}
		/* a PSN gap: repaired by a retransmission, or the capture missed packets (below) */
		if (k->ooo && k->is_request && rt_opcode_transport(k->opcode) != RT_TRANSPORT_UC) {
			uint32_t *x = tl_vec_push(&ooo);
			if (!x) {
				free(gaps);
				tl_hash_free(&cm.reqs);
				tl_hash_free(&cm.rejs);
				return -ENOMEM;
			}
			*x = (uint32_t)i;
		}
	}
	tl_hash_free(&cm.reqs);
	tl_hash_free(&cm.rejs);
	if (unrepaired_gaps(b, &ooo, gaps, nq, c->cap_end) < 0) {
		tl_vec_free(&ooo);
		free(gaps);
		return -ENOMEM;
	}
	tl_vec_free(&ooo);
	for (size_t q = 0; q <= nq; q++) {
		if (!gaps[q].n)
			continue;
		const struct tl_pk *k = tl_pk(b, gaps[q].first);
		struct text t = {.n = 0}, e = {.n = 0};
		if (gaps[q].n == 1)
			tx(&t, "PSN gap before PSN 0x%06x on ", k->psn);
		else
			tx(&t, "%u PSN gaps, the first before PSN 0x%06x, on ", gaps[q].n, k->psn);
		qp_name(b, k->send_qp, &t);
		tx(&t, " that %s never retransmitted: the capture missed packets (capture drops or a partial capture), the transport itself saw no loss.",
		   gaps[q].n == 1 ? "was" : "were");
		if (bad) /* damage that hits a frame's headers leaves it no RoCE packet at all */
			tx(&t, " The capture also holds %u packet%s with a bad ICRC: a missing packet may be there, damaged "
			       "past reading.", bad, bad == 1 ? "" : "s");
		tx(&e, "frame %u", k->frame);
		if (gaps[q].n > 1)
			tx(&e, " and %u more", gaps[q].n - 1);
		long f = finding(b, RT_TLFK_OUT_OF_ORDER, RT_TLS_INFO, item_t(c, tl_item_pk(b, gaps[q].first)), k->send_qp, 0, 0,
				 &t, &e);
		if (f < 0) {
			free(gaps);
			return -ENOMEM;
		}
		for (uint32_t j = 0; j < gaps[q].nev; j++)
			tl_finding_evidence(b, FI(b, f), tl_item_pk(b, gaps[q].ev[j]));
	}
	free(gaps);
	if (bad) {
		struct text t = {.n = 0}, e = {.n = 0};
		bool capture_only;
		if (bad_icrc_words(c, bad, firstbad, &t, &capture_only) < 0)
			return -ENOMEM;
		tx(&e, "first at frame %u", tl_pk(b, firstbad)->frame);
		long f = finding(b, RT_TLFK_BAD_ICRC, capture_only ? RT_TLS_INFO : RT_TLS_WARNING, item_t(c, tl_item_pk(b, firstbad)), tl_pk(b, firstbad)->send_qp,
				 0, 0, &t, &e);
		if (f < 0)
			return -ENOMEM;
		uint32_t n = 0;
		for (size_t i = 0; i < npk && n < 64; i++)
			if (tl_pk(b, i)->icrc == RT_ICRC_BAD) {
				tl_finding_evidence(b, FI(b, f), tl_item_pk(b, i));
				n++;
			}
	}
	if (!bad && traced_bad_icrc(c) < 0)
		return -ENOMEM;
	if (cnp || ecn) {
		struct text t = {.n = 0}, e = {.n = 0};
		congestion_words(b, flows, nflows, cnp, ecn, ecn_injected, &t);
		tx(&e, "first at frame %u", tl_pk(b, firstcong)->frame);
		long f = finding(b, RT_TLFK_CONGESTION, RT_TLS_INFO, item_t(c, tl_item_pk(b, firstcong)), RT_TL_NONE, 0, 0, &t, &e);
		if (f < 0)
			return -ENOMEM;
		tl_finding_evidence(b, FI(b, f), tl_item_pk(b, firstcong));
	}
	return 0;
}

/* ---- requests the network or the capture duplicated ---- */

/* What makes copies of frames on their way (duplicate findings). */
#define DUPLICATING                                                                                     \
	"a switching loop, a mirror port or bond sending frames back into the network, or the capture " \
	"set-up itself"

/* Who made n copies, injected of them made on purpose by the engine of
 * their sender (who: "sender" or "responder"), which traced them so: a
 * fault rule, or something on the way.  A clause, capitalised, with no
 * full stop. */
static void copies_cause(uint32_t n, uint32_t injected, const char *who, struct text *t)
{
	if (injected && injected == n)
		tx(t, "The %s's engine made %s on purpose (injected duplicate%s: a fault rule)", who,
		   n == 1 ? "the copy" : "the copies", n == 1 ? "" : "s");
	else if (injected)
		tx(t, "The %s's engine made %u of the copies on purpose (injected duplicates: a fault rule), and "
		      "something on the way duplicates frames (%s)", who, injected, DUPLICATING);
	else
		tx(t, "Something on the way duplicates frames (%s)", DUPLICATING);
}

/* The packets of list (packet indices, in capture order) by receiving QP:
 * per QP their count and the first of them (*first, *count: the caller
 * frees both). */
static int per_stream(struct tl_build *b, const struct tl_vec *list, uint32_t **first, uint32_t **count)
{
	size_t nq = b->qps.n;
	*first = malloc((nq ? nq : 1) * sizeof(**first));
	*count = calloc(nq ? nq : 1, sizeof(**count));
	if (!*first || !*count) {
		free(*first);
		free(*count);
		return -ENOMEM;
	}
	for (size_t x = 0; x < list->n; x++) {
		uint32_t i = *TL_AT(list, uint32_t, x), q = tl_pk(b, i)->recv_qp;
		if (q < nq && !(*count)[q]++)
			(*first)[q] = i;
	}
	return 0;
}

/* The first 64 packets of list (per_stream) that went to receiving QP q as
 * the evidence of finding f, each with the packet it repeats (prev_tx) when
 * with_prev. */
static void list_evidence(struct tl_build *b, long f, const struct tl_vec *list, size_t q, bool with_prev)
{
	uint32_t n = 0;
	for (size_t x = 0; x < list->n && n < 64; x++) {
		const struct tl_pk *p = tl_pk(b, *TL_AT(list, uint32_t, x));
		if (p->recv_qp != q)
			continue;
		tl_finding_evidence(b, FI(b, f), tl_item_pk(b, *TL_AT(list, uint32_t, x)));
		if (with_prev)
			tl_finding_evidence(b, FI(b, f), tl_item_pk(b, p->prev_tx));
		n++;
	}
}

/* The latest NAK or RNR NAK from the receiver of copy k to its sender that
 * was captured after the request k repeats (o), or before it by less than
 * half the ACK timeout, naming k's PSN or an earlier one: a NAK the sender
 * may still have owed a resend for when the copy came.  RT_TL_NONE none. */
static uint32_t nak_pending_at_copy(struct tl_build *b, const struct tl_pk *k, const struct tl_pk *o)
{
	uint64_t half = tl_half_ack_timeout_ns(b, k->send_qp);
	uint32_t found = RT_TL_NONE;
	for (size_t x = 0; x < b->naks.n; x++) {
		const struct tl_pk *n = tl_pk(b, *TL_AT(&b->naks, uint32_t, x));
		if (n->raw_ns > k->raw_ns)
			break;
		if (n->recv_qp == k->send_qp && n->send_qp == k->recv_qp && n->raw_ns + half >= o->raw_ns &&
		    rt_psn_diff(n->psn, k->psn) <= 0 &&
		    (n->aeth_type == RT_AETH_RNR_NAK || tl_pk_seq_nak(n)))
			found = *TL_AT(&b->naks, uint32_t, x);
	}
	return found;
}

/* The copy of stream q (its first: first) whose words tell best that it is
 * one: the first the capture told as the very datagram again (a copy at the
 * start of a stream, before its identifications tell a counter, is told by
 * its timing alone), else the first its engine traced as one transmission
 * sent twice, else the first. */
static uint32_t copy_to_tell(struct tl_build *b, size_t q, uint32_t first)
{
	uint32_t engine = RT_TL_NONE;
	for (size_t x = 0; x < b->copies.n; x++) {
		uint32_t i = *TL_AT(&b->copies, uint32_t, x);
		const struct tl_pk *k = tl_pk(b, i);
		if (k->recv_qp != q || k->late)
			continue;
		if (k->same_datagram)
			return i;
		if (k->engine_copy && engine == RT_TL_NONE)
			engine = i;
	}
	return engine != RT_TL_NONE ? engine : first;
}

/* One finding per stream (receiving QP) with copies (b->copies, tl_link.c wire_copy):
 * no time lost, but something on the way sends frames twice. */
static int wire_copies(struct dctx *c)
{
	struct tl_build *b = c->b;
	size_t nq = b->qps.n;
	uint32_t *first, *count;
	if (!b->copies.n)
		return 0;
	if (per_stream(b, &b->copies, &first, &count) < 0)
		return -ENOMEM;
	int rc = 0;
	for (size_t q = 0; q < nq && !rc; q++) {
		if (!count[q])
			continue;
		const struct tl_pk *k = tl_pk(b, copy_to_tell(b, q, first[q])), *o = tl_pk(b, k->prev_tx);
		const struct rt_opcode_info *op = rt_opcode_info(k->opcode);
		struct text t = {.n = 0}, e = {.n = 0};
		tx(&t, "%u packet%s from ", count[q], count[q] == 1 ? "" : "s");
		qp_name(b, k->send_qp, &t);
		tx(&t, " to ");
		qp_name(b, (uint32_t)q, &t);
		tx(&t, " %s on the wire twice: frame %u repeats frame %u (%s, PSN 0x%06x, %.3f ms later). Nothing made the "
		       "sender resend %s: ",
		   count[q] == 1 ? "was" : "were", k->frame, o->frame, op ? op->name : "request", k->psn,
		   (double)(k->raw_ns - o->raw_ns) / 1e6, count[q] == 1 ? "it" : "them");
		uint32_t pend = !k->late && (k->same_datagram || k->engine_copy) ? nak_pending_at_copy(b, k, o)
										 : RT_TL_NONE;
		if (pend != RT_TL_NONE)
			tx(&t, "the %s in frame %u asked for a resend from PSN 0x%06x, %s, ",
			   tl_pk(b, pend)->aeth_type == RT_AETH_RNR_NAK ? "RNR NAK" : "NAK", tl_pk(b, pend)->frame,
			   tl_pk(b, pend)->psn, k->same_datagram ? "which goes out as new datagrams" : "a transmission of its own");
		else if (!k->late)
			tx(&t, "no NAK came, ");
		if (!k->before_timer && !k->late)
			tx(&t, "its local ACK timeout was far from over, and ");
		if (k->late)
			tx(&t, "it came out of sequence, after later PSNs, and the sender's next request did not go on from "
			       "it, as a retransmission round does (Go-Back-N resends a PSN and the ones after it)%s",
			   k->same_datagram ? "; it is the very IPv4 datagram of the resend it repeats (the same "
					      "identification; the sender gives each packet a new one)" : "");
		else if (k->same_datagram)
			tx(&t, "the copy is the same IPv4 datagram (identification 0x%04x; the sender gives each packet a new "
			       "one)", k->ip_id);
		else if (k->engine_copy)
			tx(&t, "its engine traced the two as one transmission sent twice (no retry between, the same "
			       "retransmission count), so the copy was made as it left the sender or after");
		else if (k->before_timer)
			tx(&t, "and no ACK timer could have gone off yet: the sender's first request (its starting PSN, frame %u) "
			       "left only %.3f ms before, under half its local ACK timeout (timeout=%u, %.2f ms)",
			   tl_pk(b, k->trigger)->frame, (double)(k->raw_ns - tl_pk(b, k->trigger)->raw_ns) / 1e6,
			   tl_qp(b, k->send_qp)->timeout,
			   rt_ack_timeout_us(tl_qp(b, k->send_qp)->timeout) / 1000.0);
		else
			tx(&t, "a Go-Back-N resends from the oldest PSN not yet acknowledged, and an older one was still "
			       "outstanding");
		uint32_t injected = 0;
		for (size_t x = 0; x < b->copies.n; x++) {
			const struct tl_pk *d = tl_pk(b, *TL_AT(&b->copies, uint32_t, x));
			injected += d->recv_qp == q && injected_sends(c, d, RT_PKTE_INJECTED_COPY);
		}
		tx(&t, ". ");
		copies_cause(count[q], injected, "sender", &t);
		tx(&t, "; the receiver discards each copy as a duplicate%s, at the cost of the bandwidth.",
		   tl_class_rd_atomic(k->op_class)
			   ? " (a READ or atomic request it may answer again, from its data or its saved result, and the "
			     "requester discards that answer)"
			   : "");
		tx(&e, "frame %u (copy of frame %u)", k->frame, o->frame);
		if (count[q] > 1)
			tx(&e, " and %u more", count[q] - 1);
		long f = finding(b, RT_TLFK_DUPLICATE, RT_TLS_WARNING, item_t(c, tl_item_pk(b, first[q])), k->send_qp, 0, 0,
				 &t, &e);
		if (f < 0) {
			rc = -ENOMEM;
			break;
		}
		list_evidence(b, f, &b->copies, q, true);
	}
	free(first);
	free(count);
	return rc;
}

/* ---- responses the network or the capture duplicated ---- */

/* Recent responses of a stream compared with each new one (copies made on
 * the way follow their original closely). */
#define RESP_RECENT 8
/* READ requests a stream remembers: a requester may have many outstanding,
 * and asks again from inside any of them. */
#define RESP_READS 32

/* Per responder QP: what may make it send a response again. */
struct resp_stream {
	uint32_t recent[RESP_RECENT]; /* its latest responses (packet indices), RT_TL_NONE */
	unsigned next;                /* where the next one goes in recent */
	uint32_t max_psn;             /* highest PSN captured in a request or a response (a READ's
				       * responses go past its request's PSN) */
	bool have;                    /* a request captured */
	bool cut;                     /* the capture started after the stream had (tl_pk.cut_start): what
				       * asked for a repeat may have come before it */
	uint32_t repeats_owed;        /* requests captured again (PSN at or below max_psn), not yet answered
				       * by a repeated ACK, NAK or atomic ACK */
	/* its latest READ requests: first PSN, and whether that was asked
	 * again (a request at or below max_psn) */
	uint32_t read_psn[RESP_READS];
	bool read_again[RESP_READS];
	unsigned nreads;
};

/* Whether responses a and o carry the same thing: PSN, opcode, syndrome and
 * length. */
static bool same_response(const struct tl_pk *a, const struct tl_pk *o)
{
	return a->psn == o->psn && a->opcode == o->opcode && a->syndrome == o->syndrome &&
	       a->payload_len == o->payload_len && a->wirelen == o->wirelen && a->dqpn == o->dqpn &&
	       a->src_ep == o->src_ep && a->dst_ep == o->dst_ep;
}

/* Whether repeated response k of stream S is one its responder was asked
 * for: a READ response whose PSN a READ request asked for again (the
 * latest READ request at or below its PSN, whose span holds it, was a
 * request again: a requester that misses a response asks from there), an
 * ACK, NAK or atomic ACK for a request the capture saw again (a responder
 * answers a duplicate again; two duplicates before the first answer make
 * two equal ones). */
static bool response_asked_again(const struct resp_stream *S, const struct tl_pk *k)
{
	if (k->op_class != RT_CLASS_READ_RESP)
		return S->repeats_owed > 0;
	int best = -1;
	/* newest first: of two with the same PSN, the latest one tells */
	for (unsigned y = 0; y < S->nreads && y < RESP_READS; y++) {
		unsigned x = (S->nreads - 1 - y) % RESP_READS;
		if (rt_psn_diff(k->psn, S->read_psn[x]) >= 0 &&
		    (best < 0 || rt_psn_diff(S->read_psn[x], S->read_psn[best]) > 0))
			best = (int)x;
	}
	return best < 0 || S->read_again[best]; /* (none remembered: it cannot be told) */
}

/* Responses the capture holds twice with nothing that asked for the second
 * (the same PSN, opcode, syndrome and length, within a second): a responder
 * answers a request once, and again only when the request comes again.  A
 * copy made on the way; the requester drops it.  One finding per stream
 * (responder QP).  Not where the capture says it dropped packets, nor in a
 * stream the capture joined late: a request it missed may have asked for
 * the repeat. */
static int response_copies(struct dctx *c)
{
	struct tl_build *b = c->b;
	size_t npk = tl_npk(b), nq = b->qps.n;
	if (b->capture_dropped || !nq)
		return 0;
	struct resp_stream *st = malloc(nq * sizeof(*st));
	struct tl_vec copies; /* uint32_t triples: copy, the response it repeats, whether only the
			       * responder's engine tells it (a request came again before it) */
	if (!st)
		return -ENOMEM;
	for (size_t q = 0; q < nq; q++) {
		memset(&st[q], 0, sizeof(st[q]));
		memset(st[q].recent, 0xFF, sizeof(st[q].recent));
	}
	tl_vec_init(&copies, 3 * sizeof(uint32_t));
	int rc = 0;
	for (size_t i = 0; i < npk && rc >= 0; i++) {
		struct tl_pk *k = tl_pk(b, i);
		if (k->is_cm || k->damaged || k->icrc == RT_ICRC_BAD)
			continue;
		if (k->is_request && k->recv_qp < nq) {
			struct resp_stream *S = &st[k->recv_qp];
			if (!S->have)
				S->cut = k->cut_start;
			bool again = S->have && rt_psn_diff(k->psn, S->max_psn) <= 0;
			S->repeats_owed += again;
			if (k->op_class == RT_CLASS_READ_REQ) {
				unsigned x = S->nreads++ % RESP_READS;
				S->read_psn[x] = k->psn;
				S->read_again[x] = again;
			}
			if (!S->have || rt_psn_diff(k->psn, S->max_psn) > 0)
				S->max_psn = k->psn;
			S->have = true;
			continue;
		}
		if (!k->is_response || k->send_qp >= nq)
			continue;
		struct resp_stream *S = &st[k->send_qp];
		if (S->have && rt_psn_diff(k->psn, S->max_psn) > 0)
			S->max_psn = k->psn;
		uint32_t o = RT_TL_NONE;
		for (unsigned x = 0; x < RESP_RECENT && o == RT_TL_NONE; x++) {
			uint32_t r = S->recent[(S->next + RESP_RECENT - 1 - x) % RESP_RECENT];
			if (r != RT_TL_NONE && same_response(k, tl_pk(b, r)))
				o = r;
		}
		S->recent[S->next] = (uint32_t)i;
		S->next = (S->next + 1) % RESP_RECENT;
		if (o == RT_TL_NONE)
			continue;
		/* its responder's engine traced the two as one transmission sent
		 * twice: a copy, whatever asked again (uroce answers a duplicate SEND
		 * or WRITE only when it asks for an ACK) */
		bool engine_copy = tl_engine_same_transmission(b, tl_pk(b, o), k);
		bool asked = response_asked_again(S, k);
		if (!engine_copy && asked) {
			if (k->op_class != RT_CLASS_READ_RESP)
				S->repeats_owed--;
			continue;
		}
		const struct tl_pk *first = tl_pk(b, o);
		if (!S->have || S->cut || k->raw_ns < first->raw_ns || k->raw_ns - first->raw_ns >= 1000000000ull)
			continue;
		k->dup = true;
		uint32_t *pair = tl_vec_push(&copies);
		if (!pair) {
			rc = -ENOMEM;
			break;
		}
		pair[0] = (uint32_t)i;
		pair[1] = o;
		pair[2] = asked;
	}
	free(st);
	/* one finding per responder QP */
	for (size_t q = 0; q < nq && rc >= 0 && copies.n; q++) {
		uint32_t n = 0, firstc = RT_TL_NONE, orig = RT_TL_NONE, by_engine = 0, injected = 0;
		for (size_t x = 0; x < copies.n; x++) {
			const uint32_t *pair = TL_AT(&copies, uint32_t, 3 * x);
			if (tl_pk(b, pair[0])->send_qp != q)
				continue;
			injected += injected_sends(c, tl_pk(b, pair[0]), RT_PKTE_INJECTED_COPY) > 0;
			if (!n++) {
				firstc = pair[0];
				orig = pair[1];
				by_engine = pair[2];
			}
		}
		if (!n)
			continue;
		const struct tl_pk *k = tl_pk(b, firstc), *o = tl_pk(b, orig);
		const struct rt_opcode_info *op = rt_opcode_info(k->opcode);
		bool read = k->op_class == RT_CLASS_READ_RESP;
		struct text t = {.n = 0}, e = {.n = 0};
		tx(&t, "%u response%s from ", n, n == 1 ? "" : "s");
		qp_name(b, (uint32_t)q, &t);
		tx(&t, " to ");
		qp_name(b, k->recv_qp, &t);
		tx(&t, " %s on the wire twice: frame %u repeats frame %u (%s", n == 1 ? "was" : "were", k->frame, o->frame,
		   op ? op->name : "response");
		if (k->aeth_type == RT_AETH_NAK || k->aeth_type == RT_AETH_RNR_NAK)
			tx(&t, ", %s", k->aeth_type == RT_AETH_RNR_NAK ? "RNR NAK" : "NAK");
		tx(&t, ", PSN 0x%06x, %.3f ms later). ", k->psn, (double)(k->raw_ns - o->raw_ns) / 1e6);
		if (by_engine)
			tx(&t, "Its engine traced the two as one transmission sent twice, so the copy was made as it left "
			       "the responder or after, not in answer to the request that came again before it.");
		else
			tx(&t, "No request came between them that the responder could have answered again: it answers a "
			       "request once, and again only when %s.",
			   read ? "a READ request asks for those PSNs again"
				: "the request comes again (a retransmission or a copy)");
		tx(&t, " ");
		copies_cause(n, injected, "responder", &t);
		tx(&t, "; the requester drops each copy (%s), at the cost of the bandwidth.",
		   read ? "a READ response for a PSN it has had already" : "an answer for PSNs it has had answered already");
		tx(&e, "frame %u (copy of frame %u)", k->frame, o->frame);
		if (n > 1)
			tx(&e, " and %u more", n - 1);
		long f = finding(b, RT_TLFK_DUPLICATE, RT_TLS_WARNING, item_t(c, tl_item_pk(b, firstc)), (uint32_t)q, 0, 0,
				 &t, &e);
		if (f < 0) {
			rc = -ENOMEM;
			break;
		}
		for (size_t x = 0, m = 0; x < copies.n && m < 64; x++) {
			const uint32_t *pair = TL_AT(&copies, uint32_t, 3 * x);
			if (tl_pk(b, pair[0])->send_qp != q)
				continue;
			evidence_pk(b, FI(b, f), pair[0]);
			evidence_pk(b, FI(b, f), pair[1]);
			m++;
		}
	}
	tl_vec_free(&copies);
	return rc < 0 ? rc : 0;
}

/* ---- UD datagrams delivered twice ---- */

/* Whether packets a and o are one UD datagram: the same source address and
 * QPN (DETH), destination, QPN, PSN, opcode and length. */
static bool same_ud_datagram(const struct tl_pk *a, const struct tl_pk *o)
{
	return a->src_ep == o->src_ep && a->src_qp == o->src_qp && a->dst_ep == o->dst_ep && a->dqpn == o->dqpn &&
	       a->psn == o->psn && a->opcode == o->opcode && a->payload_len == o->payload_len;
}

/* UD datagrams the capture holds twice (the same datagram within a second
 * of the first copy: a sender numbers its datagrams, and never sends one
 * again).  UD has no duplicate detection: a copy made on the way reaches
 * the receiving QP as a message of its own and takes a receive WR, so the
 * application gets that message twice.  One finding per receiving QP
 * (traced or not). */
static int ud_copies(struct dctx *c)
{
	struct tl_build *b = c->b;
	size_t npk = tl_npk(b), nq = b->qps.n;
	if (!b->unreliable_pkts)
		return 0;
	struct tl_hash seen; /* datagram key -> its first copy */
	struct tl_vec copies;
	tl_vec_init(&copies, sizeof(uint32_t));
	if (tl_hash_init(&seen, 1024) < 0)
		return -ENOMEM;
	int rc = 0;
	for (size_t i = 0; i < npk && rc >= 0; i++) {
		const struct tl_pk *k = tl_pk(b, i);
		if (k->is_cm || k->damaged || k->icrc == RT_ICRC_BAD || rt_opcode_transport(k->opcode) != RT_TRANSPORT_UD ||
		    k->dqpn == 1)
			continue;
		uint64_t key = ((uint64_t)k->src_ep << 40 ^ (uint64_t)k->src_qp << 24 ^ k->psn ^ (uint64_t)k->dqpn << 20) &
			       (UINT64_MAX >> 1);
		uint32_t *o = tl_hash_get(&seen, key);
		const struct tl_pk *first = o ? tl_pk(b, *o) : NULL;
		if (first && same_ud_datagram(k, first) && k->raw_ns - first->raw_ns < 1000000000ull) {
			tl_pk(b, i)->dup = true;
			tl_pk(b, i)->prev_tx = *o;
			rc = tl_vec_push_u32(&copies, (uint32_t)i);
		} else {
			rc = tl_hash_put(&seen, key, (uint32_t)i);
		}
	}
	tl_hash_free(&seen);
	/* one finding per receiving QP (nq: untraced) */
	for (size_t q = 0; q <= nq && rc >= 0 && copies.n; q++) {
		uint32_t n = 0, taken = 0, firstc = RT_TL_NONE, taken_wr = RT_TL_NONE, injected = 0;
		for (size_t x = 0; x < copies.n; x++) {
			const struct tl_pk *k = tl_pk(b, *TL_AT(&copies, uint32_t, x));
			if ((k->recv_qp < nq ? k->recv_qp : nq) != q)
				continue;
			injected += injected_sends(c, k, RT_PKTE_INJECTED_COPY) > 0;
			if (firstc == RT_TL_NONE)
				firstc = *TL_AT(&copies, uint32_t, x);
			n++;
			if (k->recv_wr != RT_TL_NONE) {
				taken++;
				if (taken_wr == RT_TL_NONE)
					taken_wr = k->recv_wr;
			}
		}
		if (!n)
			continue;
		const struct tl_pk *k = tl_pk(b, firstc), *o = tl_pk(b, k->prev_tx);
		const struct rt_opcode_info *op = rt_opcode_info(k->opcode);
		struct text t = {.n = 0}, e = {.n = 0};
		tx(&t, "%u UD datagram%s from ", n, n == 1 ? "" : "s");
		if (k->send_qp != RT_TL_NONE)
			qp_name(b, k->send_qp, &t);
		else {
			tx(&t, "QP 0x%06x on ", k->src_qp);
			ep_words(b, k->src_ep, &t);
		}
		tx(&t, " to ");
		if (q < nq)
			qp_name(b, (uint32_t)q, &t);
		else {
			tx(&t, "QP 0x%06x on ", k->dqpn);
			ep_words(b, k->dst_ep, &t);
		}
		tx(&t, " %s on the wire twice: frame %u repeats frame %u (%s, PSN 0x%06x, %.3f ms later). A sender numbers "
		       "its datagrams and never sends one again, and UD has no duplicate detection: the receiving QP takes "
		       "each copy as a message of its own",
		   n == 1 ? "was" : "were", k->frame, o->frame, op ? op->name : "UD SEND", k->psn,
		   (double)(k->raw_ns - o->raw_ns) / 1e6);
		if (taken)
			tx(&t, ", and %s took a receive WR (%swr_id %" PRIu64 "): the application got %s twice",
			   taken == n ? (n == 1 ? "it" : "each") : "some", taken > 1 ? "the first: " : "",
			   tl_ev(b, taken_wr)->ev.u.wr.wr_id, n == 1 ? "that message" : "those messages");
		else if (q < nq)
			tx(&t, " when a receive WR is posted");
		tx(&t, ". ");
		copies_cause(n, injected, "sender", &t);
		tx(&t, ".");
		tx(&e, "frame %u (copy of frame %u)", k->frame, o->frame);
		if (n > 1)
			tx(&e, " and %u more", n - 1);
		long f = finding(b, RT_TLFK_DUPLICATE, RT_TLS_WARNING, item_t(c, tl_item_pk(b, firstc)),
				 q < nq ? (uint32_t)q : k->send_qp, 0, 0, &t, &e);
		if (f < 0) {
			rc = -ENOMEM;
			break;
		}
		for (size_t x = 0; x < copies.n; x++) {
			uint32_t i = *TL_AT(&copies, uint32_t, x);
			const struct tl_pk *d = tl_pk(b, i);
			if ((d->recv_qp < nq ? d->recv_qp : nq) != q)
				continue;
			evidence_pk(b, FI(b, f), i);
			evidence_pk(b, FI(b, f), d->prev_tx);
			tl_finding_evidence(b, FI(b, f), d->recv_wr);
		}
	}
	tl_vec_free(&copies);
	return rc < 0 ? rc : 0;
}

/* ---- requests held back on the way (reordering) ---- */

/* The request of k's stream captured last before packet i (within 4096
 * packets), RT_TL_NONE. */
static uint32_t stream_request_before(struct tl_build *b, uint32_t i)
{
	const struct tl_pk *k = tl_pk(b, i);
	for (uint32_t j = i, n = 0; j-- > 0 && n < 4096; n++) {
		const struct tl_pk *o = tl_pk(b, j);
		if (o->is_request && !o->is_cm && o->recv_qp == k->recv_qp && !o->late && !o->wire_copy)
			return j;
	}
	return RT_TL_NONE;
}

/* One finding per stream (receiving QP) with late requests (b->lates,
 * tl_link.c stray_request): the network, or the sender's stack, reorders
 * packets, which a RoCE receiver takes for loss (UC streams aside: their
 * late packets are lost, unreliable_loss). */
static int late_requests(struct dctx *c)
{
	struct tl_build *b = c->b;
	size_t nq = b->qps.n;
	uint32_t *first, *count;
	if (!b->lates.n)
		return 0;
	if (per_stream(b, &b->lates, &first, &count) < 0)
		return -ENOMEM;
	int rc = 0;
	for (size_t q = 0; q < nq && !rc; q++) {
		if (!count[q])
			continue;
		const struct tl_pk *k = tl_pk(b, first[q]);
		if (rt_opcode_transport(k->opcode) == RT_TRANSPORT_UC)
			continue; /* (no NAK, no resend: unreliable_loss tells what its receiver dropped) */
		uint32_t before = stream_request_before(b, first[q]);
		struct text t = {.n = 0}, e = {.n = 0};
		tx(&t, "%u request%s from ", count[q], count[q] == 1 ? "" : "s");
		qp_name(b, k->send_qp, &t);
		tx(&t, " to ");
		qp_name(b, (uint32_t)q, &t);
		tx(&t, " came out of sequence: PSN 0x%06x (frame %u) passed the capture point after ", k->psn, k->frame);
		if (before != RT_TL_NONE)
			tx(&t, "PSN 0x%06x (frame %u, %.3f ms before)", tl_pk(b, before)->psn, tl_pk(b, before)->frame,
			   ms(item_t(c, tl_item_pk(b, first[q])) - item_t(c, tl_item_pk(b, before))));
		else
			tx(&t, "later PSNs");
		if (k->prev_tx != RT_TL_NONE)
			tx(&t, " and after its own resend (frame %u)", tl_pk(b, k->prev_tx)->frame);
		tx(&t, ", and the sender's next request did not go on from it, as a retransmission round does (Go-Back-N "
		       "resends a PSN and the ones after it): ");
		if (tl_engine_held(b, k))
			tx(&t, "its sender's engine held it back (injected delay or reordering) and traced it as it left, not resent.");
		else
			tx(&t, "held back on the way (reordering: paths of different delay, such as ECMP or a bond's links, "
			       "or queues in the sender's stack), not resent.");
		tx(&t, " A RoCE receiver takes a PSN out of sequence as a loss: it NAKs the gap and the sender resends "
		       "everything from there, so reordering costs what loss does.");
		tx(&e, "frame %u", k->frame);
		if (count[q] > 1)
			tx(&e, " and %u more", count[q] - 1);
		long f = finding(b, RT_TLFK_OUT_OF_ORDER, RT_TLS_WARNING, item_t(c, tl_item_pk(b, first[q])), k->send_qp, 0,
				 0, &t, &e);
		if (f < 0) {
			rc = -ENOMEM;
			break;
		}
		list_evidence(b, f, &b->lates, q, false);
	}
	free(first);
	free(count);
	return rc;
}

/* ---- packets an engine held back that no other finding tells of ---- */

/* What captured packet k is, in words after "the ". */
static const char *packet_words(const struct tl_pk *k)
{
	switch (k->op_class) {
	case RT_CLASS_ACK:
		return k->aeth_type == RT_AETH_NAK ? "NAK" : k->aeth_type == RT_AETH_RNR_NAK ? "RNR NAK" : "ACK";
	case RT_CLASS_READ_RESP:
		return "READ response";
	case RT_CLASS_ATOMIC_ACK:
		return "atomic ACK";
	case RT_CLASS_READ_REQ:
		return "READ request";
	case RT_CLASS_ATOMIC:
		return "atomic request";
	case RT_CLASS_WRITE:
		return "WRITE";
	case RT_CLASS_SEND:
		return "SEND";
	default:
		return "packet";
	}
}

/* Whether captured packet k is a request of any transport (a UD datagram
 * included, which tl_pk.is_request leaves out), not a CM message. */
static bool any_request(const struct tl_pk *k)
{
	return !k->is_cm && !k->is_response && k->op_class && k->op_class != RT_CLASS_CNP;
}

/* The QP index that sent captured packet k: the one the linking tied its
 * stream to, or for UC and UD (tl_uc.c, tl_ud.c), its send WR's. */
static uint32_t sender_qp(struct tl_build *b, const struct tl_pk *k)
{
	if (k->send_qp != RT_TL_NONE)
		return k->send_qp;
	return k->wr < tl_nev(b) && any_request(k) ? b->ev_qp[k->wr] : RT_TL_NONE;
}

/* The packet captured before packet i (within 4096 packets) that QP q sent
 * with PSN psn and the role and class of packet i (a request, a READ
 * response ...), RT_TL_NONE. */
static uint32_t sent_psn_before(struct tl_build *b, uint32_t i, uint32_t q, uint32_t psn)
{
	const struct tl_pk *k = tl_pk(b, i);
	for (uint32_t j = i, n = 0; j-- > 0 && n < 4096; n++) {
		const struct tl_pk *o = tl_pk(b, j);
		if (o->psn == psn && !o->is_cm && o->is_response == k->is_response && o->op_class == k->op_class &&
		    o->src_ep == k->src_ep && sender_qp(b, o) == q)
			return j;
	}
	return RT_TL_NONE;
}

/* The request response i (sent by QP q) answers: the one the linking tied
 * to it, else the latest captured before it to q with its PSN; RT_TL_NONE. */
static uint32_t answered_request(struct tl_build *b, uint32_t i, uint32_t q)
{
	const struct tl_pk *k = tl_pk(b, i);
	if (k->answer != RT_TL_NONE)
		return k->answer < i ? k->answer : RT_TL_NONE;
	for (uint32_t j = i, n = 0; j-- > 0 && n < 4096; n++) {
		const struct tl_pk *o = tl_pk(b, j);
		if (o->is_request && !o->is_cm && o->psn == k->psn && o->recv_qp == q && o->dst_ep == k->src_ep)
			return j;
	}
	return RT_TL_NONE;
}

/* What held packet i (sent by QP q) could have left after, at the capture
 * point, as an item (RT_TL_NONE when the capture and the links do not
 * tell), with its words in *what: a response after the request it answers
 * (a READ response after the first, after the response before it); a
 * request after the packet of its message before it, or the first of a
 * message after its WR was posted and after the request its QP sent before
 * it. */
static uint32_t held_since(struct dctx *c, uint32_t i, uint32_t q, const char **what)
{
	struct tl_build *b = c->b;
	const struct tl_pk *k = tl_pk(b, i);
	bool first = k->position == RT_POS_FIRST || k->position == RT_POS_ONLY || !k->position;
	uint32_t prev = RT_TL_NONE;
	if (k->is_response) {
		if (k->op_class == RT_CLASS_READ_RESP && !first)
			prev = sent_psn_before(b, i, q, rt_psn_add(k->psn, -1));
		*what = prev != RT_TL_NONE ? "the response before it" : "the request it answers";
		if (prev == RT_TL_NONE)
			prev = answered_request(b, i, q);
		return prev != RT_TL_NONE ? tl_item_pk(b, prev) : RT_TL_NONE;
	}
	if (!first) {
		prev = sent_psn_before(b, i, q, rt_psn_add(k->psn, -1));
		*what = "the packet of its message before it";
		return prev != RT_TL_NONE ? tl_item_pk(b, prev) : RT_TL_NONE;
	}
	if (k->wr == RT_TL_NONE || k->wr >= tl_nev(b))
		return RT_TL_NONE;
	uint32_t since = k->wr;
	*what = "its WR was posted";
	for (uint32_t j = i, n = 0; j-- > 0 && n < 4096; n++) {
		const struct tl_pk *o = tl_pk(b, j);
		if (any_request(o) && o->src_ep == k->src_ep && sender_qp(b, o) == q) {
			if (item_t(c, tl_item_pk(b, j)) > item_t(c, since)) {
				since = tl_item_pk(b, j);
				*what = "the request its QP sent before it";
			}
			break;
		}
	}
	return since;
}

/* A captured packet an engine held back, the QP that sent it, and what it
 * could have left after (held_since): that item, its words and times. */
struct held_pk {
	uint32_t pk, qp;
	uint32_t since;
	const char *what;
	uint64_t t_since, t;
};

/* The captured packets an engine traced as held back (RT_PKTE_HELD) that no
 * finding names yet, in capture order (but a NAK PSN sequence error): those
 * of reliable streams by the engine record the linking matched to them
 * (tl_engine_held), UC and UD datagrams by their send WR's QP and PSN
 * (their PSNs do not repeat). */
static int held_uncovered(struct tl_build *b, struct tl_vec *held)
{
	size_t nq = b->qps.n, npk = tl_npk(b), nev = tl_nev(b);
	struct tl_hash unrel; /* (UC/UD QP, PSN) -> its engine's held record */
	if (tl_hash_init(&unrel, 64) < 0)
		return -ENOMEM;
	int rc = 0;
	size_t nunrel = 0;
	for (size_t i = 0; i < nev && !rc; i++) {
		const struct rt_event *ev = &tl_ev(b, i)->ev;
		uint32_t q = b->ev_qp[i];
		if (ev->kind == RT_EV_PACKET && (ev->flags & RT_EVF_TX) && (ev->u.pkt.engine_flags & RT_PKTE_HELD) &&
		    q < nq && (tl_qp(b, q)->qp_type == 3 || tl_qp(b, q)->qp_type == 4)) {
			rc = tl_hash_put(&unrel, (uint64_t)q << 24 | (ev->u.pkt.psn & 0xFFFFFF), (uint32_t)i);
			nunrel++;
		}
	}
	for (size_t i = 0; i < npk && !rc; i++) {
		const struct tl_pk *k = tl_pk(b, i);
		if (k->is_cm || k->findings[0] || tl_pk_seq_nak(k))
			continue; /* (a NAK PSN sequence error answers a later PSN than its own, which
				   * the capture does not name; its round's time has the hold) */
		uint32_t q = RT_TL_NONE;
		if (k->send_qp < nq && tl_engine_held(b, k)) {
			q = k->send_qp;
		} else if (nunrel && k->event == RT_TL_NONE && any_request(k) && k->wr < nev && (q = b->ev_qp[k->wr]) < nq) {
			uint32_t *e = tl_hash_get(&unrel, (uint64_t)q << 24 | k->psn);
			if (!e || *e == RT_TL_NONE || tl_ev(b, *e)->ev.u.pkt.opcode != k->opcode)
				q = RT_TL_NONE;
			else
				*e = RT_TL_NONE; /* matched */
		} else {
			q = RT_TL_NONE;
		}
		struct held_pk *h = q < nq ? tl_vec_push(held) : NULL;
		if (q < nq && !h)
			rc = -ENOMEM;
		else if (h)
			*h = (struct held_pk){.pk = (uint32_t)i, .qp = q};
	}
	tl_hash_free(&unrel);
	return rc;
}

/* Holds shorter than this (at the capture point, with what the engine took
 * to make the packet) are not told: a reorder rule's packet that the next
 * one it waited for followed at once. */
#define HELD_MIN_NS 100000

/* Whether a packet QP q sent with a PSN after held packet i's, of the same
 * role (a request, a response), passed the capture point between h's
 * t_since and packet i: the hold reordered packets, which the detectors of
 * order (go_back_n, psn_gap, the READ responses') tell of. */
static bool held_overtaken(struct dctx *c, const struct held_pk *h)
{
	struct tl_build *b = c->b;
	const struct tl_pk *k = tl_pk(b, h->pk);
	for (uint32_t j = h->pk, n = 0; j-- > 0 && n < 4096; n++) {
		const struct tl_pk *o = tl_pk(b, j);
		if (item_t(c, tl_item_pk(b, j)) < h->t_since)
			break;
		if (!o->is_cm && o->is_response == k->is_response && o->src_ep == k->src_ep && sender_qp(b, o) == h->qp &&
		    rt_psn_diff(o->psn, k->psn) > 0)
			return true;
	}
	return false;
}

/* One finding per sending QP with packets its engine held back (a delay or
 * reorder rule) that no other finding names and that reordered nothing
 * (held_overtaken), yet came that much later: a held response delays its
 * requester's completion, a held request its responder.  The time lost is
 * the union of the holds as the capture shows them (held_since), a bound
 * from above: it includes what the engine took to make the packet. */
static int held_packets(struct dctx *c)
{
	struct tl_build *b = c->b;
	size_t nq = b->qps.n;
	if (!b->engine_packets || !b->have_capture || !nq)
		return 0;
	struct tl_vec held;
	tl_vec_init(&held, sizeof(struct held_pk));
	int rc = held_uncovered(b, &held);
	/* what each could have left after; those held long enough that reordered nothing */
	size_t kept = 0;
	for (size_t x = 0; x < held.n && !rc; x++) {
		struct held_pk h = *TL_AT(&held, struct held_pk, x);
		h.since = held_since(c, h.pk, h.qp, &h.what);
		if (h.since == RT_TL_NONE)
			continue;
		h.t = item_t(c, tl_item_pk(b, h.pk));
		h.t_since = item_t(c, h.since);
		if (h.t < h.t_since + HELD_MIN_NS || held_overtaken(c, &h))
			continue;
		*TL_AT(&held, struct held_pk, kept++) = h;
	}
	held.n = kept;
	uint8_t *done = rc || !held.n ? NULL : calloc(nq, 1);
	if (!rc && held.n && !done)
		rc = -ENOMEM;
	for (size_t x = 0; x < held.n && !rc; x++) {
		uint32_t q = TL_AT(&held, struct held_pk, x)->qp;
		if (done[q])
			continue;
		done[q] = 1;
		/* this QP's held packets: the longest hold, the union of the holds */
		uint32_t count = 0;
		const struct held_pk *longest = NULL;
		uint64_t lost = 0, span_start = 0, span_end = 0, t0 = UINT64_MAX;
		for (size_t y = x; y < held.n; y++) {
			const struct held_pk *h = TL_AT(&held, struct held_pk, y);
			if (h->qp != q)
				continue;
			count++;
			if (h->t_since < t0)
				t0 = h->t_since;
			if (!longest || h->t - h->t_since > longest->t - longest->t_since)
				longest = h;
			if (!span_end || h->t_since > span_end) { /* a hold apart from the ones before: a new span */
				lost += span_end - span_start;
				span_start = h->t_since;
				span_end = h->t;
			} else if (h->t > span_end) {
				span_end = h->t;
			}
		}
		lost += span_end - span_start;
		const struct tl_pk *k = tl_pk(b, longest->pk);
		uint32_t since_frame = longest->since >= tl_nev(b) ? tl_pk(b, longest->since - tl_nev(b))->frame : 0;
		struct text t = {.n = 0}, e = {.n = 0};
		qp_name(b, q, &t);
		tx(&t, " sent %u packet%s late: its engine held %s back (injected delay or reordering). ", count,
		   count == 1 ? "" : "s", count == 1 ? "it" : "them");
		tx(&t, "%s %s of PSN 0x%06x (frame %u) passed the capture point %.3f ms after %s",
		   count > 1 ? "The longest hold, the" : "The", packet_words(k), k->psn, k->frame,
		   ms(longest->t - longest->t_since), longest->what);
		if (since_frame)
			tx(&t, " (frame %u)", since_frame);
		if (count > 1)
			tx(&t, "; %.3f ms held in all", ms(lost));
		unsigned type = tl_qp(b, q)->qp_type;
		tx(&t, ". %s", k->is_response ? "A response held back holds back its requester: the WR it answers "
					      "completes that much later."
			       : type == 4 ? "A datagram held back reaches its receiver that much later."
			       : type == 3 ? "A UC packet held back reaches its receiver that much later."
					   : "A request held back reaches its responder that much later, and its WR completes "
					     "later.");
		tx(&e, "held frame %u", k->frame);
		if (since_frame)
			tx(&e, ", after frame %u", since_frame);
		if (count > 1)
			tx(&e, ", %u more held", count - 1);
		long f = finding(b, RT_TLFK_HELD_BACK, RT_TLS_WARNING, t0, q, lost, 0, &t, &e);
		if (f < 0) {
			rc = -ENOMEM;
			break;
		}
		evidence_pk(b, FI(b, f), longest->pk);
		tl_finding_evidence(b, FI(b, f), longest->since);
		for (size_t y = x, n = 0; y < held.n && n < 64; y++) {
			const struct held_pk *h = TL_AT(&held, struct held_pk, y);
			if (h->qp == q && h != longest) {
				evidence_pk(b, FI(b, f), h->pk);
				n++;
			}
		}
	}
	free(done);
	tl_vec_free(&held);
	return rc;
}

/* ---- verbs and RDMA CM calls that failed ---- */

/* What a refused ibv_modify_qp lacked or had too much, or that its values
 * were refused, in words. */
static void modify_reason(struct tl_build *b, uint32_t q, const struct rt_ev_qp_state *s, unsigned from,
			  const struct rt_ev_qp_av *av, struct text *t)
{
	unsigned type = s->qp_type ? s->qp_type : q < b->qps.n ? tl_qp(b, q)->qp_type : 0;
	const char *tn = type == 2 ? "an RC" : type == 3 ? "a UC" : type == 4 ? "a UD" : "a";
	struct rt_qp_rule r = rt_qp_rule(from, s->to_state, type);
	uint32_t have = s->attr_mask & ~(uint32_t)RT_QPA_STATE;
	if (!r.valid) {
		tx(t, ": a QP cannot go from %s to %s (it goes RESET -> INIT -> RTR -> RTS, and from any state to RESET or ERR)",
		   rt_qp_state_name(from), rt_qp_state_name(s->to_state));
		return;
	}
	if (!(s->attr_mask & RT_QPA_STATE) && from != s->to_state) {
		tx(t, ": the attribute mask lacks IBV_QP_STATE");
		return;
	}
	uint32_t missing = r.req & ~have, extra = have & ~(r.req | r.opt);
	if (missing || extra) {
		tx(t, ": the %s -> %s transition of %s QP", rt_qp_state_name(from), rt_qp_state_name(s->to_state), tn);
		for (int pass = 0; pass < 2; pass++) {
			uint32_t m = pass ? extra : missing;
			if (!m)
				continue;
			tx(t, pass && missing ? ", and allows no " : pass ? " allows no " : " requires ");
			unsigned total = (unsigned)__builtin_popcount(m), n = 0;
			for (unsigned bit = 0; bit < 32; bit++) {
				if (!((m >> bit) & 1))
					continue;
				const char *name = rt_qp_attr_name(1u << bit);
				tx(t, "%s%s", !n ? "" : n + 1 == total ? " and " : ", ", name ? name : "?");
				n++;
			}
			if (!pass)
				tx(t, ", which the attribute mask (0x%x) lacks", s->attr_mask);
		}
		return;
	}
	if ((s->attr_mask & RT_QPA_AV) && (s->av_flags & RT_QPS_AV_RECORDED) && !(s->av_flags & RT_QPS_AV_GLOBAL)) {
		tx(t, ": its address vector has ah_attr.is_global 0, and RoCE addresses are GIDs: the QP needs "
		      "is_global = 1 with grh.dgid (the peer's GID) and grh.sgid_index (a GID of port %u that "
		      "reaches it; ibv_rc_pingpong and its kin take it as -g)", s->port_num);
		return;
	}
	char why[700];
	if (av && tl_qp_av_problem(av, (s->attr_mask & RT_QPA_PATH_MTU) ? s->path_mtu : 0, true, why, sizeof(why))) {
		tx(t, ": %s", why);
		return;
	}
	tx(t, ": the attribute mask (0x%x) is what the %s -> %s transition of %s QP takes, so a value was refused "
	      "(a path MTU above the port's, a GID index with no address behind it, a port that does not exist, "
	      "a retry count above 7 or a timeout above 31, more RDMA READ / atomic depth than the device has)",
	   s->attr_mask, rt_qp_state_name(from), rt_qp_state_name(s->to_state), tn);
}

/* The state QP q was in before event i: the last successful state change
 * before it on the same host (7 unknown). */
static unsigned state_before(struct tl_build *b, uint32_t q, size_t i)
{
	for (size_t j = i; j-- > 0;) {
		const struct tl_evrec *e = tl_ev(b, j);
		if (b->ev_qp[j] == q && e->ev.kind == RT_EV_QP_STATE && !(e->ev.flags & RT_EVF_ERROR) &&
		    !b->ev_shadow[j])
			return e->ev.u.qp_state.to_state;
	}
	return 7;
}

/* The device's limits the probe recorded just before failed create i (the
 * same thread of the same process writes them right before it), NULL
 * when there are none. */
/* The event event i's thread recorded just before it (looked for among the
 * 4096 events before i), NULL when none. */
static const struct rt_event *thread_prev(struct tl_build *b, uint32_t i)
{
	const struct tl_evrec *e = tl_ev(b, i);
	for (uint32_t j = i; j-- > 0 && i - j <= 4096;) {
		const struct tl_evrec *p = tl_ev(b, j);
		if (p->proc == e->proc && p->ev.tid == e->ev.tid && !b->ev_shadow[j])
			return &p->ev;
	}
	return NULL;
}

/* The address vector the probe recorded just before QP_STATE event i (RT_EV_QP_AV), NULL when none. */
static const struct rt_ev_qp_av *qp_av_before(struct tl_build *b, uint32_t i)
{
	const struct rt_event *p = thread_prev(b, i);
	return p && p->kind == RT_EV_QP_AV && p->qpn == tl_ev(b, i)->ev.qpn ? &p->u.qp_av : NULL;
}

/* The address vector the probe recorded just before ibv_create_ah's VERBS_CALL event i, NULL when none. */
static const struct rt_ev_qp_av *ah_av_before(struct tl_build *b, uint32_t i)
{
	const struct rt_event *p = thread_prev(b, i);
	return p && p->kind == RT_EV_QP_AV && p->qpn == 0 ? &p->u.qp_av : NULL;
}

static const struct rt_ev_device_caps *device_caps_before(struct tl_build *b, uint32_t i)
{
	const struct rt_event *p = thread_prev(b, i);
	return p && p->kind == RT_EV_DEVICE_CAPS ? &p->u.device_caps : NULL;
}

/* What a failed create asked for, as the finding's evidence. */
static void create_evidence(const struct rt_event *ev, const struct rt_ev_device_caps *caps, struct text *t)
{
	switch (ev->kind) {
	case RT_EV_QP_CREATE: {
		const struct rt_ev_qp_create *q = &ev->u.qp_create;
		tx(t, "asked: qp_type %u, max_send_wr %u, max_recv_wr %u, max_send_sge %u, max_recv_sge %u, "
		      "max_inline_data %u", q->qp_type, q->max_send_wr, q->max_recv_wr, q->max_send_sge, q->max_recv_sge,
		   q->max_inline);
		if (caps)
			tx(t, "; device: max_qp_wr %u, max_sge %u", caps->max_qp_wr, caps->max_sge);
		break;
	}
	case RT_EV_CQ_CREATE:
		tx(t, "asked: cqe %d, comp_vector %d", (int32_t)ev->u.cq_create.cqe, ev->u.cq_create.comp_vector);
		if (caps)
			tx(t, "; device: max_cqe %u, num_comp_vectors %u", caps->max_cqe, caps->num_comp_vectors);
		break;
	case RT_EV_SRQ_CREATE:
		tx(t, "asked: max_wr %u, max_sge %u", ev->u.object.max_wr, ev->u.object.max_sge);
		if (caps)
			tx(t, "; device: max_srq_wr %u, max_srq_sge %u", caps->max_srq_wr, caps->max_srq_sge);
		break;
	default:
		tx(t, "%s", tl_create_call_name(ev));
		break;
	}
}

/* What a refused verbs call (RT_EV_VERBS_CALL) was given, as the finding's evidence. */
static void verbs_call_evidence(const struct rt_event *ev, struct text *t)
{
	const struct rt_ev_verbs_call *v = &ev->u.verbs_call;
	char gid[64];
	tl_gid_text(v->gid, gid, sizeof(gid));
	switch (v->call) {
	case RT_VC_CREATE_AH:
		tx(t, "asked: port_num %u, is_global %u", v->port_num, v->is_global);
		if (v->is_global)
			tx(t, ", dgid %s, sgid_index %u, hop_limit %u", gid, v->sgid_index, v->hop_limit);
		tx(t, ", dlid %u, sl %u", v->lid, v->sl);
		break;
	case RT_VC_ATTACH_MCAST: case RT_VC_DETACH_MCAST:
		tx(t, "asked: QP 0x%06x, group %s, lid %u", ev->qpn, gid, v->lid);
		break;
	default:
		tx(t, "device %u", v->device_id);
		break;
	}
}

/* An RDMA CM call that returned EAGAIN or EINPROGRESS: on an id whose event
 * channel is non-blocking (rsockets makes its ids so) the call has only
 * started, and its event comes later. */
static bool cm_call_started(const struct rt_event *ev)
{
	int st = ev->u.cm.status < 0 ? -ev->u.cm.status : ev->u.cm.status;
	return ev->kind == RT_EV_CM_EVENT && ev->u.cm.event >= RT_CM_CALL_CREATE_ID && (st == EAGAIN || st == EINPROGRESS);
}

/* What ended a failed rdma_accept or rdma_connect that waited: the CM
 * event (not a call) its process got for the call's QP in the 100 ms before
 * the call returned (a call is recorded as it returns), when it is one that
 * ends a connection: DISCONNECTED, REJECTED, UNREACHABLE, CONNECT_ERROR.
 * On a cm_id without an event channel both calls wait inside librdmacm
 * for ESTABLISHED (rdma_accept for the RTU) and fail when the connection
 * ends first.  RT_TL_NONE when none. */
static uint32_t cm_call_ended_by(struct dctx *c, uint32_t i)
{
	struct tl_build *b = c->b;
	const struct tl_evrec *e = tl_ev(b, i);
	unsigned call = e->ev.u.cm.event;
	if ((call != RT_CM_CALL_ACCEPT && call != RT_CM_CALL_CONNECT) || !e->ev.qpn)
		return RT_TL_NONE;
	uint64_t t = item_t(c, i);
	for (size_t j = noted_from(&b->cm_evs, i); j-- > 0;) {
		uint32_t k = *TL_AT(&b->cm_evs, uint32_t, j);
		const struct tl_evrec *o = tl_ev(b, k);
		uint64_t to = item_t(c, k);
		if (to + 100000000ull < t)
			break;
		unsigned ev = o->ev.u.cm.event;
		if (o->proc == e->proc && o->ev.qpn == e->ev.qpn && !b->ev_shadow[k] &&
		    (ev == RT_CM_EV_DISCONNECTED || ev == RT_CM_EV_REJECTED || ev == RT_CM_EV_UNREACHABLE ||
		     ev == RT_CM_EV_CONNECT_ERROR))
			return k;
	}
	return RT_TL_NONE;
}

/* "rdma_set_option(NAME, value V, optlen N) on HOST failed" of a refused
 * option. */
static void set_option_words(const struct rt_ev_cm *cm, const char *host, struct text *t)
{
	const char *name = rt_cm_option_name(cm->option.level, cm->option.name);
	if (name)
		tx(t, "rdma_set_option(%s, value %u, optlen %u) on %s failed", name, cm->option.value, cm->option.optlen,
		   host);
	else
		tx(t, "rdma_set_option(level %d, optname %d, optlen %u) on %s failed", cm->option.level, cm->option.name,
		   cm->option.optlen, host);
}

/* Why an RDMA CM refuses an option, from what it asked (rdma_cma.h's sizes). */
static void set_option_reason(const struct rt_ev_cm *cm, struct text *t)
{
	int level = cm->option.level, name = cm->option.name;
	unsigned want = 0;
	if (level == RT_CM_OPT_LEVEL_ID && (name == RT_CM_OPT_TOS || name == RT_CM_OPT_ACK_TIMEOUT))
		want = 1;
	else if (level == RT_CM_OPT_LEVEL_ID && (name == RT_CM_OPT_REUSEADDR || name == RT_CM_OPT_AFONLY))
		want = sizeof(int);
	if (!rt_cm_option_name(level, name) || cm->status == -ENOSYS)
		tx(t, ": the RDMA CM does not know that option");
	else if (want && cm->option.optlen != want)
		tx(t, ": its optlen is %u, and the option's value is %u byte%s (%s)", cm->option.optlen, want,
		   want == 1 ? "" : "s", want == 1 ? "a uint8_t" : "an int");
	else if (level == RT_CM_OPT_LEVEL_ID && name == RT_CM_OPT_ACK_TIMEOUT && cm->status == -EINVAL)
		tx(t, ": an ACK timeout is for the QPs of connections (RC): the id is not one that connects an RC QP "
		      "(a UD id of the UDP or IPoIB port space; uroce also refuses a value above 31)");
	else if (level == RT_CM_OPT_LEVEL_ID && (name == RT_CM_OPT_REUSEADDR || name == RT_CM_OPT_AFONLY) &&
		 cm->status == -EINVAL)
		tx(t, ": the kernel's RDMA CM takes it only on an id not yet bound to an address (before rdma_bind_addr, "
		      "rdma_resolve_addr or rdma_listen)");
}

static int call_failure_finding(struct dctx *c, uint32_t i, uint32_t count)
{
	struct tl_build *b = c->b;
	const struct tl_evrec *e = tl_ev(b, i);
	const char *host = host_name(b, e->host);
	uint32_t q = b->ev_qp[i];
	uint32_t ended = RT_TL_NONE; /* a CM call: the event that ended the connection it waited for */
	struct text t = {.n = 0}, ev = {.n = 0};
	switch (e->ev.kind) {
	case RT_EV_QP_STATE: {
		const struct rt_ev_qp_state *s = &e->ev.u.qp_state;
		unsigned from = s->from_state <= 6 ? s->from_state : q != RT_TL_NONE ? state_before(b, q, i) : 7;
		tx(&t, "ibv_modify_qp on ");
		qp_name(b, q, &t);
		tx(&t, " to %s", rt_qp_state_name(s->to_state));
		if (from <= 6)
			tx(&t, " (from %s)", rt_qp_state_name(from));
		tx(&t, " failed");
		if (s->result)
			tx(&t, " with %s", rt_errno_name(s->result));
		if (from <= 6)
			modify_reason(b, q, s, from, qp_av_before(b, i), &t);
		tx(&t, "; the QP stays where it was, and what needs it later fails too.");
		tx(&ev, "attr_mask 0x%x", s->attr_mask);
		break;
	}
	case RT_EV_MR: {
		const struct rt_ev_mr *m = &e->ev.u.mr;
		tx(&t, "ibv_reg_mr of %" PRIu64 " bytes at 0x%" PRIx64 " on %s failed", m->length, m->addr, host);
		if (m->lkey) /* the errno the probe recorded */
			tx(&t, " with %s", rt_errno_name((int)m->lkey));
		if ((m->access & 0xAu) && !(m->access & 1u))
			tx(&t, ": its access flags (0x%x) ask for remote write or atomic access without "
			       "IBV_ACCESS_LOCAL_WRITE, which both require", m->access);
		else if (m->lkey == ENOMEM || m->lkey == EAGAIN)
			tx(&t, " (access 0x%x): registration pins the pages, and the locked-memory limit (ulimit -l, or "
			       "LimitMEMLOCK for a service) or the device's MR resources ran out", m->access);
		else if (m->lkey == EFAULT)
			tx(&t, " (access 0x%x): the range is not mapped memory of the process", m->access);
		else
			tx(&t, " (access 0x%x): most often the locked-memory limit (registration pins the pages: "
			       "ulimit -l, or LimitMEMLOCK for a service), else access flags the device does not support",
			   m->access);
		tx(&t, ".");
		tx(&ev, "MR event at %.6f s", (double)item_t(c, i) / 1e9);
		break;
	}
	case RT_EV_CM_EVENT: {
		if (e->ev.u.cm.event == RT_CM_CALL_SET_OPTION)
			set_option_words(&e->ev.u.cm, host, &t);
		else
			tx(&t, "%s on %s failed", rt_cm_event_name(e->ev.u.cm.event), host);
		if (e->ev.u.cm.status)
			tx(&t, " with %s", rt_errno_name(e->ev.u.cm.status));
		ended = cm_call_ended_by(c, i);
		if (e->ev.u.cm.event == RT_CM_CALL_SET_OPTION)
			set_option_reason(&e->ev.u.cm, &t);
		else if (cm_call_started(&e->ev))
			tx(&t, ": its id's event channel is non-blocking (as rsockets makes it), so the call had only "
			       "started, and no event on cm_id %u followed it", e->ev.u.cm.cm_id);
		else if (ended != RT_TL_NONE)
			tx(&t, ": it waited for the connection of QP 0x%06x to be established (on a cm_id without an event "
			       "channel, %s returns only then%s), and the connection ended first: its %s event came %.3f ms "
			       "before the call returned",
			   e->ev.qpn, e->ev.u.cm.event == RT_CM_CALL_ACCEPT ? "rdma_accept" : "rdma_connect",
			   e->ev.u.cm.event == RT_CM_CALL_ACCEPT ? ", when the RTU arrives" : "",
			   rt_cm_event_name(tl_ev(b, ended)->ev.u.cm.event), ms(item_t(c, i) - item_t(c, ended)));
		tx(&t, ".");
		tx(&ev, "cm_id %u", e->ev.u.cm.cm_id);
		if (ended != RT_TL_NONE)
			tx(&ev, ", %s at %.6f s", rt_cm_event_name(tl_ev(b, ended)->ev.u.cm.event),
			   (double)item_t(c, ended) / 1e9);
		break;
	}
	case RT_EV_VERBS_CALL: {
		char why[640];
		tl_verbs_call_reason(&e->ev, e->ev.u.verbs_call.call == RT_VC_CREATE_AH ? ah_av_before(b, i) : NULL,
				     q != RT_TL_NONE ? tl_qp(b, q)->qp_type : 0, host, why, sizeof(why));
		tx(&t, "%s.", why);
		verbs_call_evidence(&e->ev, &ev);
		tx(&ev, "; at %.6f s", (double)item_t(c, i) / 1e9);
		break;
	}
	default: { /* a failed create: what was asked for, its errno, the device's limits */
		const struct rt_ev_device_caps *caps = device_caps_before(b, i);
		char why[640];
		tl_create_reason(&e->ev, caps, host, why, sizeof(why));
		tx(&t, "%s.", why);
		create_evidence(&e->ev, caps, &ev);
		tx(&ev, "; at %.6f s", (double)item_t(c, i) / 1e9);
		break;
	}
	}
	if (count > 1)
		tx(&ev, "; failed %u times", count);
	long f = finding(b, RT_TLFK_CALL_FAILED, RT_TLS_ERROR, item_t(c, i), q, 0, 0, &t, &ev);
	if (f < 0)
		return -ENOMEM;
	tl_finding_evidence(b, FI(b, f), i);
	tl_finding_evidence(b, FI(b, f), ended);
	return 0;
}

/* The first event its process got on a started CM call's cm_id after it
 * (the call's outcome: ESTABLISHED, REJECTED ...), or RT_TL_NONE when none
 * came (or the call is not one that only started, cm_call_started()). */
static uint32_t cm_call_outcome(struct tl_build *b, uint32_t i)
{
	const struct tl_evrec *e = tl_ev(b, i);
	if (!cm_call_started(&e->ev))
		return RT_TL_NONE;
	/* the list is in event order: start after i */
	for (size_t j = noted_from(&b->cm_evs, (size_t)i + 1); j < b->cm_evs.n; j++) {
		uint32_t k = *TL_AT(&b->cm_evs, uint32_t, j);
		const struct tl_evrec *o = tl_ev(b, k);
		if (o->proc == e->proc && o->ev.u.cm.cm_id == e->ev.u.cm.cm_id && o->ev.u.cm.event < RT_CM_CALL_CREATE_ID)
			return k;
	}
	return RT_TL_NONE;
}

/* One finding per failed call of a kind on a QP (its first failure, and how
 * many; for ibv_modify_qp, per target state and attributes carried):
 * ibv_modify_qp, ibv_reg_mr, the creates, RDMA CM calls.  A CM call
 * that only started (cm_call_outcome) is not a failure: its outcome is. */
static int call_failures(struct dctx *c)
{
	struct tl_build *b = c->b;
	struct tl_hash seen;      /* process, kind, QPN, state or call -> index in firsts */
	uint32_t *firsts = malloc((b->failed.n + 1) * 2 * sizeof(uint32_t)); /* first event, count */
	if (!firsts || tl_hash_init(&seen, 16) < 0) {
		free(firsts);
		return -ENOMEM;
	}
	size_t n = 0;
	int rc = 0;
	for (size_t j = 0; j < b->failed.n && !rc; j++) {
		uint32_t i = *TL_AT(&b->failed, uint32_t, j);
		const struct tl_evrec *e = tl_ev(b, i);
		if (b->ev_shadow[i] || cm_call_outcome(b, i) != RT_TL_NONE)
			continue;
		if (e->ev.kind == RT_EV_CM_EVENT && e->ev.u.cm.event == RT_CM_CALL_CREATE_QP) {
			/* an rdma_create_qp whose ibv_create_qp was refused: that one says why */
			const struct rt_event *p = thread_prev(b, i);
			if (p && p->kind == RT_EV_QP_CREATE && (p->flags & RT_EVF_ERROR) && !(p->flags & RT_EVF_DESTROY))
				continue;
		}
		unsigned sub = e->ev.kind == RT_EV_QP_STATE ? e->ev.u.qp_state.to_state
			       : e->ev.kind == RT_EV_CM_EVENT ? e->ev.u.cm.event
			       : e->ev.kind == RT_EV_VERBS_CALL ? e->ev.u.verbs_call.call : 0;
		uint64_t key = (uint64_t)e->proc << 48 | (uint64_t)(e->ev.kind & 0xff) << 40 | (uint64_t)(sub & 0xff) << 32 |
			       e->ev.qpn;
		if (e->ev.kind == RT_EV_QP_STATE) { /* modifies that carried other attributes fail for other reasons */
			key = tl_hash_mix(key ^ tl_hash_mix((uint64_t)e->ev.u.qp_state.attr_mask << 8 |
							    e->ev.u.qp_state.av_flags));
			key -= key == UINT64_MAX;
		}
		uint32_t *v = tl_hash_get(&seen, key);
		if (v) {
			firsts[2 * *v + 1]++;
			continue;
		}
		if ((rc = tl_hash_put(&seen, key, (uint32_t)n)) < 0)
			break;
		firsts[2 * n] = i;
		firsts[2 * n + 1] = 1;
		n++;
	}
	for (size_t k = 0; k < n && !rc; k++)
		rc = call_failure_finding(c, firsts[2 * k], firsts[2 * k + 1]);
	tl_hash_free(&seen);
	free(firsts);
	return rc;
}

/* ---- asynchronous error events (ibv_get_async_event) ---- */

/* What an asynchronous event (enum ibv_event_type) means when it is an
 * error; NULL for the ones that are none (COMM_EST, PORT_ACTIVE, ...). */
static const char *async_error_meaning(unsigned type)
{
	switch (type) {
	case 0: /* IBV_EVENT_CQ_ERR */
		return "the CQ overran: more completions arrived than its entries hold, because the program polled "
		       "too slowly or made it smaller than the WRs that complete into it can fill; completions were "
		       "lost, and the QPs that complete into it go to the ERROR state";
	case 1: /* IBV_EVENT_QP_FATAL */
		return "a local catastrophic error on the QP: the device could not carry out its work (a work "
		       "request it could not read, a fault in the provider); the QP is in the ERROR state and its "
		       "outstanding WRs flush";
	case 2: /* IBV_EVENT_QP_REQ_ERR */
		return "an invalid request error on the QP's responder side: a request came that the QP cannot "
		       "take (an opcode its type or access flags do not allow, a malformed request); the QP is in "
		       "the ERROR state";
	case 3: /* IBV_EVENT_QP_ACCESS_ERR */
		return "a local access violation: an incoming RDMA request named memory the QP may not touch (its "
		       "qp_access_flags or the MR's access); the QP is in the ERROR state";
	case 7: /* IBV_EVENT_PATH_MIG_ERR */
		return "the QP could not migrate to its alternate path";
	case 8: /* IBV_EVENT_DEVICE_FATAL */
		return "the device failed: nothing of its context works any more, and the program has to close it "
		       "and open it again";
	case 10: /* IBV_EVENT_PORT_ERR */
		return "the port went down (its link, or the address behind its GIDs, went away): its QPs' packets "
		       "go nowhere until it is active again, and their retries run out";
	case 14: /* IBV_EVENT_SRQ_ERR */
		return "the SRQ failed: the QPs that take their receives from it go to the ERROR state";
	case 19: /* IBV_EVENT_WQ_FATAL */
		return "a work queue failed and is in the ERROR state";
	default:
		return NULL;
	}
}

/* A CQ_ERR's CQ in words: its size, and the QPs that complete into it. */
static void overrun_cq_words(struct tl_build *b, uint16_t proc, uint32_t cq, struct text *t)
{
	uint32_t qpn[4];
	unsigned nq = 0;
	for (size_t i = 0; i < tl_nev(b); i++) {
		const struct tl_evrec *e = tl_ev(b, i);
		if (e->proc != proc || b->ev_shadow[i] || (e->ev.flags & (RT_EVF_ERROR | RT_EVF_DESTROY)))
			continue;
		if (e->ev.kind == RT_EV_CQ_CREATE && e->ev.u.cq_create.cq_id == cq)
			tx(t, " (cqe %u)", e->ev.u.cq_create.cqe);
		else if (e->ev.kind == RT_EV_QP_CREATE &&
			 (e->ev.u.qp_create.send_cq_id == cq || e->ev.u.qp_create.recv_cq_id == cq) && nq++ < 4)
			qpn[nq - 1] = e->ev.qpn;
	}
	for (unsigned n = 0; n < nq && n < 4; n++)
		tx(t, "%s0x%06x", !n ? (nq == 1 ? ", which QP " : ", which QPs ") : n + 1 == nq ? " and " : ", ", qpn[n]);
	if (nq > 4)
		tx(t, " and %u more", nq - 4);
	if (nq)
		tx(t, " complete%s into,", nq == 1 ? "s" : "");
}

/* The size of the send CQ of QP qpn in process proc (its last QP_CREATE's
 * send_cq_id, that CQ's CQ_CREATE): cqe, 0 unknown; *shared: another queue
 * completes into it too (another QP, or this QP's receives). */
static uint32_t send_cq_size(struct tl_build *b, uint16_t proc, uint32_t qpn, bool *shared)
{
	uint32_t cq = UINT32_MAX, cqe = 0;
	*shared = false;
	for (size_t i = 0; i < tl_nev(b); i++) {
		const struct tl_evrec *e = tl_ev(b, i);
		if (e->proc == proc && !b->ev_shadow[i] && e->ev.kind == RT_EV_QP_CREATE && e->ev.qpn == qpn &&
		    !(e->ev.flags & (RT_EVF_ERROR | RT_EVF_DESTROY)))
			cq = e->ev.u.qp_create.send_cq_id;
	}
	if (cq == UINT32_MAX)
		return 0;
	for (size_t i = 0; i < tl_nev(b); i++) {
		const struct tl_evrec *e = tl_ev(b, i);
		if (e->proc != proc || b->ev_shadow[i] || (e->ev.flags & (RT_EVF_ERROR | RT_EVF_DESTROY)))
			continue;
		if (e->ev.kind == RT_EV_CQ_CREATE && e->ev.u.cq_create.cq_id == cq)
			cqe = e->ev.u.cq_create.cqe;
		else if (e->ev.kind == RT_EV_QP_CREATE &&
			 ((e->ev.qpn != qpn && e->ev.u.qp_create.send_cq_id == cq) || e->ev.u.qp_create.recv_cq_id == cq))
			*shared = true; /* another QP's sends, or any QP's receives */
	}
	return cqe;
}

/* One finding per asynchronous error event of a kind on an element of a
 * process (the first, and how many there were). */
struct async_group {
	long finding;
	uint32_t count;
};

static int async_errors(struct dctx *c)
{
	struct tl_build *b = c->b;
	if (!b->asyncs.n)
		return 0;
	struct tl_hash seen; /* process, type, element -> index in groups */
	struct tl_vec groups;
	tl_vec_init(&groups, sizeof(struct async_group));
	if (tl_hash_init(&seen, 16) < 0)
		return -ENOMEM;
	int rc = 0;
	for (size_t j = 0; j < b->asyncs.n && !rc; j++) {
		uint32_t i = *TL_AT(&b->asyncs, uint32_t, j);
		const struct tl_evrec *e = tl_ev(b, i);
		const struct rt_ev_async *a = &e->ev.u.async;
		const char *meaning = async_error_meaning(a->event_type);
		if (!meaning || b->ev_shadow[i])
			continue;
		uint64_t key = tl_hash_mix((uint64_t)e->proc << 40 ^ (uint64_t)(a->event_type & 0xff) << 32 ^ a->element);
		key -= key == UINT64_MAX;
		uint32_t *v = tl_hash_get(&seen, key);
		if (v) {
			TL_AT(&groups, struct async_group, *v)->count++;
			continue;
		}
		uint32_t q = b->ev_qp[i];
		struct text t = {.n = 0}, ev = {.n = 0};
		if (q != RT_TL_NONE) {
			qp_name(b, q, &t);
		} else if (a->event_type == 0) {
			tx(&t, "CQ %u", a->element);
			overrun_cq_words(b, e->proc, a->element, &t);
			tx(&t, " on %s", host_name(b, e->host));
		} else if (a->event_type == 14) {
			tx(&t, "SRQ %u on %s", a->element, host_name(b, e->host));
		} else if (a->event_type == 10) {
			tx(&t, "Port %u on %s", a->element, host_name(b, e->host));
		} else {
			tx(&t, "The device on %s", host_name(b, e->host));
		}
		const struct rt_tl_proc *P = TL_AT(&b->procs, struct rt_tl_proc, e->proc);
		tx(&t, " had the asynchronous event %s at %.6f s (", rt_async_event_name(a->event_type),
		   (double)item_t(c, i) / 1e9);
		if (e->ev.flags & RT_EVF_ENGINE)
			tx(&t, "its engine reported it to %s pid %d", (const char *)b->strs.p + P->program, P->pid);
		else
			tx(&t, "%s pid %d read it with ibv_get_async_event", (const char *)b->strs.p + P->program, P->pid);
		tx(&t, "): %s.", meaning);
		tx(&ev, "async event %s (type %u), element %u, at %.6f s", rt_async_event_name(a->event_type),
		   a->event_type, a->element, (double)item_t(c, i) / 1e9);
		long f = finding(b, RT_TLFK_ASYNC_ERROR, RT_TLS_ERROR, item_t(c, i), q, 0, 0, &t, &ev);
		struct async_group *g = f < 0 ? NULL : tl_vec_push(&groups);
		if (!g || tl_hash_put(&seen, key, (uint32_t)(groups.n - 1)) < 0) {
			rc = -ENOMEM;
			break;
		}
		*g = (struct async_group){.finding = f, .count = 1};
		tl_finding_evidence(b, FI(b, f), i);
	}
	for (size_t n = 0; n < groups.n && !rc; n++) {
		const struct async_group *g = TL_AT(&groups, struct async_group, n);
		if (g->count < 2)
			continue;
		struct text ev = {.n = 0};
		tx(&ev, "%s; %u such events", (const char *)b->strs.p + FI(b, g->finding)->evidence, g->count);
		FI(b, g->finding)->evidence = tl_str(b, ev.buf);
	}
	tl_vec_free(&groups);
	tl_hash_free(&seen);
	return rc;
}

/* ---- QPs set up so that they cannot work (tl_qp_av.c): a path MTU above
 * the port's, GIDs of two IP versions; the device accepted the modify ---- */

/* The QP_STATE event of the modify whose address vector is event i (the
 * next record of its thread), RT_TL_NONE when none. */
static uint32_t modify_of_av(struct tl_build *b, uint32_t i)
{
	const struct tl_evrec *e = tl_ev(b, i);
	for (uint32_t j = i + 1; j < tl_nev(b) && j - i <= 4096; j++) {
		const struct tl_evrec *n = tl_ev(b, j);
		if (n->proc == e->proc && n->ev.tid == e->ev.tid && !b->ev_shadow[j])
			return n->ev.kind == RT_EV_QP_STATE && n->ev.qpn == e->ev.qpn ? j : RT_TL_NONE;
	}
	return RT_TL_NONE;
}

/* What the set-up did to QP q's send WRs posted after event m: how many
 * never reached the capture (none of their packets in it) and never
 * completed, into t; the first of them (RT_TL_NONE). */
static uint32_t stuck_sends(struct dctx *c, uint32_t q, uint32_t m, struct text *t)
{
	struct tl_build *b = c->b;
	uint32_t posted = 0, stuck = 0, first = RT_TL_NONE;
	for (uint32_t j = m + 1; j < tl_nev(b); j++) {
		const struct tl_evrec *e = tl_ev(b, j);
		if (b->ev_qp[j] != q || e->ev.kind != RT_EV_WR_POST || e->ev.u.wr.queue != RT_WRQ_SEND ||
		    b->ev_shadow[j] || (e->ev.u.wr.flags & RT_WRF_POST_FAILED))
			continue;
		posted++;
		if (wr_on_wire(c, j) || first_link(c, j, RT_TLL_COMPLETION) != RT_TL_NONE)
			continue;
		if (!stuck++)
			first = j;
	}
	if (stuck == posted && stuck == 1)
		tx(t, " The send WR posted on it never reached the capture and never completed: ");
	else if (stuck == posted)
		tx(t, " The %u send WRs posted on it never reached the capture and never completed (the first: ", stuck);
	else if (stuck)
		tx(t, " %u of the %u send WRs posted on it never reached the capture and never completed (the first: ",
		   stuck, posted);
	if (stuck) {
		wr_words(b, first, t);
		tx(t, stuck == 1 && posted == 1 ? "." : ").");
	}
	return first;
}

static int qp_setups(struct dctx *c)
{
	struct tl_build *b = c->b;
	if (!b->avs.n)
		return 0;
	uint8_t *told = calloc(b->qps.n + 1, 1); /* one finding per QP */
	if (!told)
		return -ENOMEM;
	int rc = 0;
	for (size_t n = 0; n < b->avs.n && !rc; n++) {
		uint32_t i = *TL_AT(&b->avs, uint32_t, n);
		uint32_t m = modify_of_av(b, i);
		if (b->ev_shadow[i] || m == RT_TL_NONE || (tl_ev(b, m)->ev.flags & RT_EVF_ERROR))
			continue; /* a refused modify is a call_failed finding, which says why */
		const struct rt_ev_qp_state *s = &tl_ev(b, m)->ev.u.qp_state;
		const struct rt_ev_qp_av *av = &tl_ev(b, i)->ev.u.qp_av;
		unsigned mtu = (s->attr_mask & RT_QPA_PATH_MTU) ? s->path_mtu : 0;
		uint32_t q = b->ev_qp[m];
		char why[700];
		if ((q != RT_TL_NONE && told[q]) || !tl_qp_av_problem(av, mtu, false, why, sizeof(why)))
			continue;
		if (q != RT_TL_NONE)
			told[q] = 1;
		struct text t = {.n = 0}, ev = {.n = 0};
		qp_name(b, q, &t);
		tx(&t, " was moved to %s at %.6f s with an address vector that cannot work: %s.", rt_qp_state_name(s->to_state),
		   (double)item_t(c, m) / 1e9, why);
		uint32_t stuck = q != RT_TL_NONE && b->have_capture ? stuck_sends(c, q, m, &t) : RT_TL_NONE;
		char sg[64], dg[64];
		tl_gid_text(av->sgid, sg, sizeof(sg));
		tl_gid_text(av->dgid, dg, sizeof(dg));
		tx(&ev, "qp_av: port %u sgid_index %u (%s) dgid %s", av->port_num, av->sgid_index, av->sgid_known ? sg : "?",
		   dg);
		if (mtu)
			tx(&ev, ", path MTU %u", rt_mtu_bytes(mtu));
		if (av->active_mtu)
			tx(&ev, ", port active MTU %u", rt_mtu_bytes(av->active_mtu));
		long f = finding(b, RT_TLFK_QP_SETUP, stuck != RT_TL_NONE ? RT_TLS_ERROR : RT_TLS_WARNING, item_t(c, m), q, 0,
				 0, &t, &ev);
		if (f < 0) {
			rc = -ENOMEM;
			break;
		}
		tl_finding_evidence(b, FI(b, f), i);
		tl_finding_evidence(b, FI(b, f), m);
		tl_finding_evidence(b, FI(b, f), stuck);
	}
	free(told);
	return rc;
}

/* ---- an ACK timeout asked for with rdma_set_option that the QP did not
 * get: set on the listening id (an accepted connection's QP takes its
 * REQ's), or after the QP was ready to send ---- */

/* The CM records an ACK timeout option depends on, in trace order. */
struct cm_option_records {
	struct tl_vec options;    /* uint32_t: successful rdma_set_option(RDMA_OPTION_ID_ACK_TIMEOUT) */
	struct tl_vec tos;        /* uint32_t: successful rdma_set_option(RDMA_OPTION_ID_TOS) */
	struct tl_vec routes;     /* uint32_t: successful rdma_resolve_route */
	struct tl_vec requests;   /* uint32_t: CONNECT_REQUEST events */
	struct tl_vec listens;    /* uint32_t: successful rdma_listen */
	struct tl_vec accepts;    /* uint32_t: successful rdma_accept with a QP */
	struct tl_vec timeouts;   /* uint32_t: QP modifies that set the local ACK timeout */
};

static int cm_option_records_read(struct tl_build *b, struct cm_option_records *r)
{
	for (size_t x = 0; x < b->cm_evs.n; x++) {
		uint32_t i = *TL_AT(&b->cm_evs, uint32_t, x);
		const struct tl_evrec *e = tl_ev(b, i);
		const struct rt_ev_cm *cm = &e->ev.u.cm;
		if (b->ev_shadow[i] || e->ev.kind != RT_EV_CM_EVENT || cm->status != 0)
			continue;
		struct tl_vec *to = NULL;
		if (cm->event == RT_CM_CALL_SET_OPTION && cm->option.level == RT_CM_OPT_LEVEL_ID &&
		    cm->option.name == RT_CM_OPT_ACK_TIMEOUT)
			to = &r->options;
		else if (cm->event == RT_CM_CALL_SET_OPTION && cm->option.level == RT_CM_OPT_LEVEL_ID &&
			 cm->option.name == RT_CM_OPT_TOS)
			to = &r->tos;
		else if (cm->event == RT_CM_CALL_RESOLVE_ROUTE)
			to = &r->routes;
		else if (cm->event == RT_CM_EV_CONNECT_REQUEST)
			to = &r->requests;
		else if (cm->event == RT_CM_CALL_LISTEN)
			to = &r->listens;
		else if (cm->event == RT_CM_CALL_ACCEPT && e->ev.qpn)
			to = &r->accepts;
		if (to && tl_vec_push_u32(to, i) < 0)
			return -ENOMEM;
	}
	if (!r->options.n)
		return 0; /* (the modifies that set an ACK timeout matter only then) */
	for (uint32_t i = 0; i < tl_nev(b); i++) {
		const struct tl_evrec *e = tl_ev(b, i);
		if (e->ev.kind == RT_EV_QP_STATE && !b->ev_shadow[i] && !(e->ev.flags & RT_EVF_ERROR) &&
		    (e->ev.u.qp_state.attr_mask & RT_QPA_TIMEOUT) && tl_vec_push_u32(&r->timeouts, i) < 0)
			return -ENOMEM;
	}
	return 0;
}

static void cm_option_records_free(struct cm_option_records *r)
{
	tl_vec_free(&r->options);
	tl_vec_free(&r->tos);
	tl_vec_free(&r->routes);
	tl_vec_free(&r->requests);
	tl_vec_free(&r->listens);
	tl_vec_free(&r->accepts);
	tl_vec_free(&r->timeouts);
}

/* Whether accept record a took a connection from listen record listen: the
 * same process, after it listened, on its port. */
static bool accepted_by(struct tl_build *b, uint32_t a, uint32_t listen)
{
	const struct tl_evrec *ea = tl_ev(b, a), *el = tl_ev(b, listen);
	return a > listen && ea->proc == el->proc && ea->ev.u.cm.local_port == el->ev.u.cm.local_port;
}

/* "the connection it accepted", "the 2 connections it accepted", "1 of the 2
 * connections it accepted": those of a listener's an option did not reach. */
static void accepted_words(unsigned missed, unsigned accepted, struct text *t)
{
	if (missed == 1 && accepted == 1)
		tx(t, "the connection it accepted");
	else if (missed == accepted)
		tx(t, "the %u connections it accepted", missed);
	else
		tx(t, "%u of the %u connections it accepted", missed, accepted);
}

/* The record in v of process proc whose cm_id is id, before item before
 * (RT_TL_NONE: any), RT_TL_NONE when none. */
static uint32_t record_of_id(struct tl_build *b, const struct tl_vec *v, uint16_t proc, uint32_t id, uint32_t before)
{
	for (size_t x = 0; x < v->n; x++) {
		uint32_t i = *TL_AT(v, uint32_t, x);
		if (before != RT_TL_NONE && i >= before)
			break;
		if (tl_ev(b, i)->proc == proc && tl_ev(b, i)->ev.u.cm.cm_id == id)
			return i;
	}
	return RT_TL_NONE;
}

/* The last modify of QP qpn in process proc that set its ACK timeout before
 * item before (RT_TL_NONE: the last of all); RT_TL_NONE when none. */
static uint32_t timeout_set_before(struct tl_build *b, const struct cm_option_records *r, uint16_t proc,
				   uint32_t qpn, uint32_t before)
{
	uint32_t last = RT_TL_NONE;
	for (size_t x = 0; x < r->timeouts.n; x++) {
		uint32_t i = *TL_AT(&r->timeouts, uint32_t, x);
		if (before != RT_TL_NONE && i >= before)
			break;
		if (tl_ev(b, i)->proc == proc && tl_ev(b, i)->ev.qpn == qpn)
			last = i;
	}
	return last;
}

/* " N Go-Back-N rounds of QP q waited for its ACK timer ..." into t (NULL:
 * nothing), and the time the timeout asked for would have saved. */
static uint64_t ack_timer_rounds_words(struct dctx *c, const struct tl_vec *bursts, uint32_t q, unsigned got,
				       unsigned asked, struct text *t)
{
	uint64_t got_ns = rt_ack_timeout_us(got) * 1000ull, asked_ns = rt_ack_timeout_us(asked) * 1000ull;
	unsigned rounds = 0;
	for (size_t n = 0; n < bursts->n; n++) {
		const struct burst *u = TL_AT(bursts, struct burst, n);
		rounds += u->requester == q && u->stated == RT_RETRY_ACK_TIMEOUT;
	}
	if (!rounds || !got || !asked)
		return 0;
	if (t)
		tx(t, " %u Go-Back-N round%s of QP 0x%06x waited for its ACK timer (%.3f ms each)%s", rounds,
		   rounds == 1 ? "" : "s", tl_qp(c->b, q)->qpn, got_ns / 1e6, got_ns > asked_ns ? "" : ".");
	if (got_ns <= asked_ns)
		return 0;
	if (t)
		tx(t, ", where the timeout asked for would have waited %.3f ms.", asked_ns / 1e6);
	return (uint64_t)rounds * (got_ns - asked_ns);
}

/* A late option's finding, which the same process's later late options of
 * the same value join. */
struct late_option {
	uint16_t proc;
	unsigned asked, more;
	long finding;
};

/* The finding of process proc's earlier late option of value asked in
 * lates, which this one (item o, costing lost) joins; NULL when none. */
static struct late_option *late_join(struct tl_build *b, struct tl_vec *lates, uint16_t proc, unsigned asked,
				     uint32_t o, uint64_t lost)
{
	for (size_t y = 0; y < lates->n; y++) {
		struct late_option *l = TL_AT(lates, struct late_option, y);
		if (l->proc == proc && l->asked == asked) {
			l->more++;
			FI(b, l->finding)->time_lost_ns += lost;
			tl_finding_evidence(b, FI(b, l->finding), o);
			return l;
		}
	}
	return NULL;
}

/* Keeps finding f of process proc's late option of value asked, for the
 * later ones to join; 0 or -ENOMEM. */
static int late_keep(struct tl_vec *lates, uint16_t proc, unsigned asked, long f)
{
	struct late_option *l = tl_vec_push(lates);
	if (!l)
		return -ENOMEM;
	*l = (struct late_option){.proc = proc, .asked = asked, .finding = f};
	return 0;
}

/* Each late option's finding that others joined says so: "The same for N
 * more of its ids: WHAT."; then frees lates. */
static void late_tell(struct tl_build *b, struct tl_vec *lates, const char *what)
{
	for (size_t y = 0; y < lates->n; y++) {
		const struct late_option *l = TL_AT(lates, struct late_option, y);
		if (!l->more)
			continue;
		struct text t = {.n = 0};
		tx(&t, "%s The same for %u more of its ids: %s.", (const char *)b->strs.p + FI(b, l->finding)->text, l->more,
		   what);
		FI(b, l->finding)->text = tl_str(b, t.buf);
	}
	tl_vec_free(lates);
}

/* The qp_setup finding of an option (event items[0]) that QP q did not get,
 * with its text, evidence words and evidence items (RT_TL_NONE: none); a late
 * one is kept in lates for the later ones to join.  0 or -ENOMEM. */
static int option_finding(struct dctx *c, struct tl_vec *lates, uint32_t q, uint64_t lost, const struct text *t,
			  const struct text *ev, const uint32_t items[4])
{
	struct tl_build *b = c->b;
	const struct tl_evrec *e = tl_ev(b, items[0]);
	long f = finding(b, RT_TLFK_QP_SETUP, RT_TLS_WARNING, item_t(c, items[0]), q, lost, 0, t, ev);
	if (f < 0 || (lates && late_keep(lates, e->proc, e->ev.u.cm.option.value, f) < 0))
		return -ENOMEM;
	for (unsigned k = 0; k < 4; k++)
		tl_finding_evidence(b, FI(b, f), items[k]);
	return 0;
}

/* "2 (DSCP 0, ECN ECT(0))": an IP type of service. */
static void tos_words(unsigned tos, struct text *t)
{
	static const char *const ecn[] = {"not ECN-capable", "ECT(1)", "ECT(0)", "CE"};
	tx(t, "%u (DSCP %u, %s)", tos, tos >> 2, ecn[tos & 3]);
}

/* The traffic class the connection accepted by item a (an rdma_accept) got:
 * its REQ's, from the captured REQ of its CONNECT_REQUEST event; -1 unknown.
 * *req: that REQ's item. */
static int accepted_traffic_class(struct dctx *c, const struct cm_option_records *r, uint32_t a, uint32_t *req)
{
	struct tl_build *b = c->b;
	const struct tl_evrec *ea = tl_ev(b, a);
	uint32_t ev = record_of_id(b, &r->requests, ea->proc, ea->ev.u.cm.cm_id, a);
	uint32_t pk = ev == RT_TL_NONE ? RT_TL_NONE : first_link(c, ev, RT_TLL_CM_PACKET);
	const struct tl_cm_info *ci = pk != RT_TL_NONE && pk >= tl_nev(b) ? tl_cm_info(b, pk - (uint32_t)tl_nev(b)) : NULL;
	if (!ci)
		return -1;
	*req = pk;
	return ci->traffic_class;
}

/*
 * rdma_set_option(RDMA_OPTION_ID_TOS) that the connection did not get, in the
 * ways the kernel's RDMA CM ignores it (seen on the VM lab): a connection's
 * traffic class is fixed by the connecting side's rdma_resolve_route, from
 * the TOS asked for by then, and its REQ carries it to the accepting side,
 * whose own TOS (on the listener or on the accepted id) is unused.
 */
static int tos_options(struct dctx *c, const struct cm_option_records *r)
{
	struct tl_build *b = c->b;
	struct tl_vec lates;
	tl_vec_init(&lates, sizeof(struct late_option));
	int rc = 0;
	for (size_t x = 0; x < r->tos.n && !rc; x++) {
		uint32_t o = *TL_AT(&r->tos, uint32_t, x);
		const struct tl_evrec *e = tl_ev(b, o);
		const struct rt_ev_cm *cm = &e->ev.u.cm;
		unsigned asked = cm->option.value & 0xff;
		uint32_t route = record_of_id(b, &r->routes, e->proc, cm->cm_id, RT_TL_NONE);
		uint32_t listen = record_of_id(b, &r->listens, e->proc, cm->cm_id, RT_TL_NONE);
		uint32_t own_accept = record_of_id(b, &r->accepts, e->proc, cm->cm_id, RT_TL_NONE);
		struct text t = {.n = 0}, ev = {.n = 0};
		uint32_t q = RT_TL_NONE, evidence = RT_TL_NONE, req = RT_TL_NONE;
		tx(&t, "rdma_set_option(RDMA_OPTION_ID_TOS, ");
		tos_words(asked, &t);
		tx(&t, ") ");
		if (route != RT_TL_NONE && route < o) {
			/* asked for on a connecting id after its route was resolved */
			uint32_t before = RT_TL_NONE, first_late = RT_TL_NONE;
			for (size_t y = 0; y < r->tos.n; y++) { /* the id's last TOS before its route, first after */
				uint32_t i = *TL_AT(&r->tos, uint32_t, y);
				if (tl_ev(b, i)->proc != e->proc || tl_ev(b, i)->ev.u.cm.cm_id != cm->cm_id)
					continue;
				if (i < route)
					before = i;
				else if (first_late == RT_TL_NONE)
					first_late = i;
			}
			unsigned fixed = before != RT_TL_NONE ? tl_ev(b, before)->ev.u.cm.option.value & 0xff : 0;
			if (fixed == asked || first_late != o || late_join(b, &lates, e->proc, asked, o, 0))
				continue; /* (the id's first late one is told, and a process's first of a value) */
			q = b->ev_qp[o];
			tx(&t, "by ");
			proc_words(b, e->proc, &t);
			tx(&t, " at %.6f s came after the rdma_resolve_route of its id (at %.6f s), which fixed the connection's "
			       "traffic class: ", (double)item_t(c, o) / 1e9, (double)item_t(c, route) / 1e9);
			tos_words(fixed, &t);
			tx(&t, ", which its QP and, through its connection request (REQ), the accepting side's QP carry. Ask for "
			       "it before rdma_resolve_route.");
			tx(&ev, "rdma_set_option at %.6f s, rdma_resolve_route at %.6f s", (double)item_t(c, o) / 1e9,
			   (double)item_t(c, route) / 1e9);
			evidence = route;
		} else if (listen != RT_TL_NONE || (own_accept != RT_TL_NONE && own_accept > o)) {
			/* asked for on the accepting side: the connections take the REQ's */
			unsigned missed = 0, accepted = 0;
			int got = -1;
			for (size_t y = 0; y < r->accepts.n; y++) {
				uint32_t a = *TL_AT(&r->accepts, uint32_t, y);
				if (listen != RT_TL_NONE ? !accepted_by(b, a, listen) : a != own_accept)
					continue;
				accepted++;
				uint32_t rq = RT_TL_NONE;
				int tc = accepted_traffic_class(c, r, a, &rq);
				if (tc < 0 || (unsigned)tc == asked)
					continue;
				if (!missed++) {
					got = tc;
					q = b->ev_qp[a];
					req = rq;
					evidence = a;
				}
			}
			if (!missed)
				continue;
			if (listen != RT_TL_NONE) {
				tx(&t, "on the listening id of ");
				proc_words(b, e->proc, &t);
				tx(&t, " (port %u, at %.6f s) did not reach ", tl_ev(b, listen)->ev.u.cm.local_port,
				   (double)item_t(c, o) / 1e9);
				accepted_words(missed, accepted, &t);
			} else {
				tx(&t, "by ");
				proc_words(b, e->proc, &t);
				tx(&t, " at %.6f s on the id of a connection it accepted did not reach it", (double)item_t(c, o) / 1e9);
			}
			unsigned frame = tl_pk(b, req - (uint32_t)tl_nev(b))->frame;
			tx(&t, ": an RDMA CM gives an accepted connection the traffic class of its connection request (REQ), "
			       "which the connecting side's TOS, asked for before its rdma_resolve_route, sets; the accepting "
			       "side's is unused, so ");
			qp_name(b, q, &t);
			tx(&t, " got its REQ's (frame %u): ", frame);
			tos_words((unsigned)got, &t);
			tx(&t, "%s. Ask for it on the connecting side, before rdma_resolve_route.",
			   missed > 1 ? ", and the others alike" : "");
			tx(&ev, "rdma_set_option at %.6f s, rdma_accept at %.6f s, REQ frame %u", (double)item_t(c, o) / 1e9,
			   (double)item_t(c, evidence) / 1e9, frame);
		} else {
			continue;
		}
		const uint32_t items[] = {o, evidence, listen, req};
		rc = option_finding(c, route != RT_TL_NONE && route < o ? &lates : NULL, q, 0, &t, &ev, items);
	}
	late_tell(b, &lates, "their routes, too, were resolved when it came");
	return rc;
}

/* The listener case: the connections listener accepted whose QPs did not get
 * the option's timeout (their own ids did not ask for it before rdma_accept);
 * how many there are into *missed, of *accepted; the first's accept and
 * modify, its QP's timeout into *got; the time lost and rounds words. */
static uint64_t listener_missed(struct dctx *c, const struct tl_vec *bursts, const struct cm_option_records *r,
				uint32_t o, uint32_t listen, unsigned *missed, unsigned *accepted, uint32_t *accept,
				uint32_t *modify, unsigned *got, struct text *rounds)
{
	struct tl_build *b = c->b;
	const struct tl_evrec *e = tl_ev(b, o);
	unsigned asked = e->ev.u.cm.option.value;
	uint64_t lost = 0;
	*missed = *accepted = 0;
	for (size_t y = 0; y < r->accepts.n; y++) {
		uint32_t a = *TL_AT(&r->accepts, uint32_t, y);
		const struct tl_evrec *ea = tl_ev(b, a);
		if (!accepted_by(b, a, listen))
			continue;
		++*accepted;
		uint32_t m = timeout_set_before(b, r, e->proc, ea->ev.qpn, a);
		if (m == RT_TL_NONE || tl_ev(b, m)->ev.u.qp_state.timeout == asked ||
		    record_of_id(b, &r->options, e->proc, ea->ev.u.cm.cm_id, a) != RT_TL_NONE)
			continue;
		unsigned to = tl_ev(b, m)->ev.u.qp_state.timeout;
		if (!(*missed)++) {
			*accept = a;
			*modify = m;
			*got = to;
		}
		if (b->ev_qp[a] != RT_TL_NONE)
			lost += ack_timer_rounds_words(c, bursts, b->ev_qp[a], to, asked, *missed == 1 ? rounds : NULL);
	}
	return lost;
}

static int ack_timeout_options(struct dctx *c, const struct tl_vec *bursts, const struct cm_option_records *r)
{
	struct tl_build *b = c->b;
	struct tl_vec lates;
	tl_vec_init(&lates, sizeof(struct late_option));
	int rc = 0;
	for (size_t x = 0; x < r->options.n && !rc; x++) {
		uint32_t o = *TL_AT(&r->options, uint32_t, x);
		const struct tl_evrec *e = tl_ev(b, o);
		const struct rt_ev_cm *cm = &e->ev.u.cm;
		unsigned asked = cm->option.value, got = 0;
		if (record_of_id(b, &r->options, e->proc, cm->cm_id, RT_TL_NONE) != o)
			continue; /* (the id's first such option is told, for all of them) */
		struct text t = {.n = 0}, ev = {.n = 0}, rounds = {.n = 0};
		tx(&t, "rdma_set_option(RDMA_OPTION_ID_ACK_TIMEOUT, %u: %.3f ms) ", asked, rt_ack_timeout_us(asked) / 1000.0);
		uint32_t listen = record_of_id(b, &r->listens, e->proc, cm->cm_id, RT_TL_NONE);
		uint32_t q = RT_TL_NONE, accept = RT_TL_NONE, m = RT_TL_NONE;
		uint64_t lost = 0;
		if (listen != RT_TL_NONE) {
			unsigned missed, accepted;
			lost = listener_missed(c, bursts, r, o, listen, &missed, &accepted, &accept, &m, &got, &rounds);
			if (!missed)
				continue;
			q = b->ev_qp[accept];
			tx(&t, "on the listening id of ");
			proc_words(b, e->proc, &t);
			tx(&t, " (port %u, at %.6f s) did not reach ", tl_ev(b, listen)->ev.u.cm.local_port,
			   (double)item_t(c, o) / 1e9);
			accepted_words(missed, accepted, &t);
			tx(&t, ": an RDMA CM gives an accepted connection's QP the ACK timeout of its connection request (REQ), "
			       "not its listener's option, so ");
			qp_name(b, q, &t);
			tx(&t, " got %u (%.3f ms)%s. Ask for it on the id of the CONNECT_REQUEST event, before rdma_accept "
			       "(or on the connecting side before rdma_resolve_route: its REQ then carries it).",
			   got, rt_ack_timeout_us(got) / 1000.0, missed > 1 ? ", and the others alike" : "");
			tx(&ev, "rdma_set_option at %.6f s, rdma_listen at %.6f s, rdma_accept at %.6f s, ",
			   (double)item_t(c, o) / 1e9, (double)item_t(c, listen) / 1e9, (double)item_t(c, accept) / 1e9);
		} else {
			/* an id whose QP had its ACK timeout already, and never took another */
			m = e->ev.qpn ? timeout_set_before(b, r, e->proc, e->ev.qpn, o) : RT_TL_NONE;
			if (m == RT_TL_NONE || tl_ev(b, m)->ev.u.qp_state.timeout == asked ||
			    timeout_set_before(b, r, e->proc, e->ev.qpn, RT_TL_NONE) != m)
				continue;
			q = b->ev_qp[o];
			got = tl_ev(b, m)->ev.u.qp_state.timeout;
			if (q != RT_TL_NONE)
				lost = ack_timer_rounds_words(c, bursts, q, got, asked, &rounds);
			if (late_join(b, &lates, e->proc, asked, o, lost))
				continue; /* told with the first */
			tx(&t, "by ");
			proc_words(b, e->proc, &t);
			tx(&t, " at %.6f s came after the QP of its id, ", (double)item_t(c, o) / 1e9);
			qp_name(b, q, &t);
			tx(&t, ", had its ACK timeout (modify to %s at %.6f s: %u, %.3f ms): an RDMA CM applies the option "
			       "as it moves the QP to RTS (in rdma_connect or rdma_accept), so the QP kept %u. Ask for it before "
			       "rdma_connect (before rdma_resolve_route for the REQ to carry it), or before rdma_accept.",
			   rt_qp_state_name(tl_ev(b, m)->ev.u.qp_state.to_state), (double)item_t(c, m) / 1e9, got,
			   rt_ack_timeout_us(got) / 1000.0, got);
			tx(&ev, "rdma_set_option at %.6f s, ", (double)item_t(c, o) / 1e9);
		}
		tx(&ev, "the QP's modify to %s at %.6f s (timeout=%u)", rt_qp_state_name(tl_ev(b, m)->ev.u.qp_state.to_state),
		   (double)item_t(c, m) / 1e9, got);
		if (rounds.n)
			tx(&t, "%s", rounds.buf);
		const uint32_t items[] = {o, listen, accept, m};
		rc = option_finding(c, listen == RT_TL_NONE ? &lates : NULL, q, lost, &t, &ev, items);
	}
	late_tell(b, &lates, "their QPs, too, had their ACK timeout when it came");
	return rc;
}

/* The ACK timeout and TOS options the program asked for that its
 * connections did not get (ack_timeout_options, tos_options). */
static int cm_options(struct dctx *c, const struct tl_vec *bursts)
{
	struct cm_option_records r;
	tl_vec_init(&r.options, sizeof(uint32_t));
	tl_vec_init(&r.tos, sizeof(uint32_t));
	tl_vec_init(&r.routes, sizeof(uint32_t));
	tl_vec_init(&r.requests, sizeof(uint32_t));
	tl_vec_init(&r.listens, sizeof(uint32_t));
	tl_vec_init(&r.accepts, sizeof(uint32_t));
	tl_vec_init(&r.timeouts, sizeof(uint32_t));
	int rc = cm_option_records_read(c->b, &r);
	if (!rc)
		rc = ack_timeout_options(c, bursts, &r);
	if (!rc)
		rc = tos_options(c, &r);
	cm_option_records_free(&r);
	return rc;
}

/* ---- programs that ended badly before they left a trace (tl_recordings.c) ---- */

static int untraced_ends(struct tl_build *b)
{
	for (size_t n = 0; n < b->untraced.n; n++) {
		const struct tl_untraced u = *TL_AT(&b->untraced, struct tl_untraced, n);
		struct rt_tl_finding *f = tl_finding_new(b, RT_TLFK_PROCESS_ENDED, RT_TLS_WARNING, u.t_ns, RT_TL_NONE);
		if (!f)
			return -ENOMEM;
		f->text = u.text;
		f->evidence = u.evidence;
	}
	return 0;
}

/* ---- posts the provider refused: ibv_post_send / ibv_post_recv errors ---- */

/* The refused posts of one queue of one QP, and that queue when the first
 * was refused. */
struct post_refusal {
	uint32_t q;               /* QP index */
	uint8_t queue;            /* enum rt_wr_queue */
	uint32_t first, count;    /* the first refused WR's failed record, how many */
	uint32_t posted, done;    /* WRs posted before it, and of those completed (polled) by then */
	uint32_t create, state;   /* the QP's last QP_CREATE and QP_STATE events before it, RT_TL_NONE */
	uint32_t wr_rec;          /* the refused WR's own record made before the provider saw it, RT_TL_NONE */
	uint64_t next_post_raw;   /* raw time of the queue's next WR posted after the first refusal */
};

static const char *post_call(uint8_t queue)
{
	return queue == RT_WRQ_SEND ? "ibv_post_send" : queue == RT_WRQ_SRQ_RECV ? "ibv_post_srq_recv" : "ibv_post_recv";
}

/* Why a WR was refused, in words, when the queue was not full. */
static void refusal_reason(struct dctx *c, const struct post_refusal *r, struct text *t)
{
	struct tl_build *b = c->b;
	const struct rt_ev_qp_create *qc = r->create != RT_TL_NONE ? &tl_ev(b, r->create)->ev.u.qp_create : NULL;
	const struct rt_ev_wr *w = r->wr_rec != RT_TL_NONE ? &tl_ev(b, r->wr_rec)->ev.u.wr : NULL;
	unsigned state = r->state != RT_TL_NONE ? tl_ev(b, r->state)->ev.u.qp_state.to_state : 7;
	bool send = r->queue == RT_WRQ_SEND;
	if (send && state <= 2) {
		tx(t, "the QP was in the %s state: a QP sends only from RTS", rt_qp_state_name(state));
	} else if (!send && state == 0) {
		tx(t, "the QP was in the RESET state: receives can be posted from INIT on");
	} else if (w && qc && w->num_sge > (send ? qc->max_send_sge : qc->max_recv_sge)) {
		tx(t, "the WR had %u SGEs, more than the QP's max_%s_sge of %u", w->num_sge, send ? "send" : "recv",
		   send ? qc->max_send_sge : qc->max_recv_sge);
	} else if (w && qc && send && (w->flags & RT_WRF_INLINE) && w->length > qc->max_inline) {
		tx(t, "the WR asked for %u bytes inline, more than the QP's max_inline_data of %u", w->length,
		   qc->max_inline);
	} else {
		tx(t, "the queue was not full, so the provider refused the WR itself (an SGE outside a registered "
		      "MR, an opcode or flag this QP type or device does not support");
		if (state != 7)
			tx(t, "; the QP was in %s", rt_qp_state_name(state));
		tx(t, ")");
	}
}

static int refusal_finding(struct dctx *c, const struct post_refusal *r)
{
	struct tl_build *b = c->b;
	const struct tl_evrec *e = tl_ev(b, r->first);
	const struct rt_ev_wr *w = &e->ev.u.wr;
	const struct rt_ev_qp_create *qc = r->create != RT_TL_NONE ? &tl_ev(b, r->create)->ev.u.qp_create : NULL;
	bool send = r->queue == RT_WRQ_SEND, srq = r->queue == RT_WRQ_SRQ_RECV;
	uint32_t cap = qc ? (send ? qc->max_send_wr : qc->max_recv_wr) : 0;
	uint32_t outstanding = r->posted - r->done;
	struct text t = {.n = 0}, ev = {.n = 0};
	tx(&t, "%s on ", post_call(r->queue));
	if (srq)
		tx(&t, "SRQ %u on %s", e->ev.qpn, host_name(b, e->host));
	else
		qp_name(b, r->q, &t);
	tx(&t, " refused %u WR%s, the first wr_id %" PRIu64, r->count, r->count == 1 ? "" : "s", w->wr_id);
	if (send)
		tx(&t, " (%s)", rt_wr_opcode_name(w->opcode));
	if (w->imm)
		tx(&t, " with %s", rt_errno_name((int)w->imm));
	if (srq) {
		tx(&t, ".");
	} else if (cap && outstanding >= cap) {
		tx(&t, ": its %s queue was full: %u WRs were posted and not yet completed (polled), and it holds %u",
		   send ? "send" : "receive", outstanding, outstanding);
		if (outstanding > cap) /* rxe makes a queue of 2^n - 1 at least as deep as asked */
			tx(&t, " (it was created with max_%s_wr %u, which the provider rounded up)", send ? "send" : "recv", cap);
		else
			tx(&t, " (max_%s_wr)", send ? "send" : "recv");
		tx(&t, ".");
		if (send)
			tx(&t, " Post no more WRs than it holds before their completions are polled: on most RDMA NICs a slot is freed only when its WR's completion (for an unsignaled WR, a later signaled WR's) is polled, so signal at least one WR in every max_send_wr and poll the CQ before posting more.");
		else
			tx(&t, " Receives leave the queue as messages consume them and their completions are polled.");
	} else {
		tx(&t, ": ");
		if (cap)
			tx(&t, "%u of its %u WRs were outstanding, ", outstanding, cap);
		refusal_reason(c, r, &t);
		tx(&t, ".");
	}
	tx(&ev, "refused wr_id %" PRIu64 " at %.6f s", w->wr_id, (double)item_t(c, r->first) / 1e9);
	if (!srq)
		tx(&ev, ", %u posted before it, %u of them completed", r->posted, r->done);
	if (qc)
		tx(&ev, ", max_%s_wr %u", send ? "send" : "recv", cap);
	long f = finding(b, RT_TLFK_POST_FAILED, RT_TLS_ERROR, item_t(c, r->first), srq ? RT_TL_NONE : r->q, 0, 0, &t,
			 &ev);
	if (f < 0)
		return -ENOMEM;
	tl_finding_evidence(b, FI(b, f), r->first);
	tl_finding_evidence(b, FI(b, f), r->create);
	tl_finding_evidence(b, FI(b, f), r->state);
	return 0;
}

/* A WR the provider refused is recorded twice by the probe (as posted, then
 * refused) and once by an engine (refused). */
static bool wr_refused(const struct tl_evrec *e)
{
	return e->ev.kind == RT_EV_WR_POST && (e->ev.u.wr.flags & RT_WRF_POST_FAILED);
}

static int post_refusals(struct dctx *c)
{
	struct tl_build *b = c->b;
	struct tl_hash by_queue;  /* QP index << 2 | queue -> index in rs */
	struct tl_vec rs;
	tl_vec_init(&rs, sizeof(struct post_refusal));
	if (tl_hash_init(&by_queue, 16) < 0)
		return -ENOMEM;
	int rc = 0;
	for (size_t j = 0; j < b->refused.n && !rc; j++) { /* the refusals */
		size_t i = *TL_AT(&b->refused, uint32_t, j);
		const struct tl_evrec *e = tl_ev(b, i);
		uint32_t q = b->ev_qp[i];
		if (!wr_refused(e) || b->ev_shadow[i] || q == RT_TL_NONE || e->ev.u.wr.queue > 3)
			continue;
		uint64_t key = (uint64_t)q << 2 | e->ev.u.wr.queue;
		uint32_t *v = tl_hash_get(&by_queue, key);
		if (v) {
			TL_AT(&rs, struct post_refusal, *v)->count++;
			continue;
		}
		struct post_refusal *r = tl_vec_push(&rs);
		if (!r || tl_hash_put(&by_queue, key, (uint32_t)(rs.n - 1)) < 0) {
			rc = -ENOMEM;
			break;
		}
		*r = (struct post_refusal){.q = q, .queue = e->ev.u.wr.queue, .first = (uint32_t)i, .count = 1,
					   .create = RT_TL_NONE, .state = RT_TL_NONE, .wr_rec = RT_TL_NONE,
					   .next_post_raw = UINT64_MAX};
	}
	/* the queues before their first refusal: one pass (the same host's clock throughout) */
	for (size_t i = 0; i < tl_nev(b) && !rc && rs.n; i++) {
		const struct tl_evrec *e = tl_ev(b, i);
		uint32_t q = b->ev_qp[i];
		if (q == RT_TL_NONE || b->ev_shadow[i])
			continue;
		for (unsigned queue = 0; queue < 4; queue++) {
			uint32_t *v = tl_hash_get(&by_queue, (uint64_t)q << 2 | queue);
			if (!v)
				continue;
			struct post_refusal *r = TL_AT(&rs, struct post_refusal, *v);
			const struct tl_evrec *f = tl_ev(b, r->first);
			if (i != r->first && e->raw_ns > f->raw_ns && e->ev.kind == RT_EV_WR_POST &&
			    e->ev.u.wr.queue == queue && !wr_refused(e) && e->raw_ns < r->next_post_raw)
				r->next_post_raw = e->raw_ns;
			if (i == r->first || e->raw_ns > f->raw_ns)
				continue;
			if (e->ev.kind == RT_EV_QP_CREATE && !(e->ev.flags & RT_EVF_DESTROY))
				r->create = (uint32_t)i;
			else if (e->ev.kind == RT_EV_QP_STATE && !(e->ev.flags & RT_EVF_ERROR))
				r->state = (uint32_t)i;
			else if (e->ev.kind == RT_EV_WR_POST && e->ev.u.wr.queue == queue && !wr_refused(e)) {
				if (e->ev.u.wr.wr_id == f->ev.u.wr.wr_id)
					r->wr_rec = (uint32_t)i; /* the last such record is the refused WR's own */
				r->posted++;
				uint32_t comp = first_link(c, (uint32_t)i, RT_TLL_COMPLETION);
				if (comp != RT_TL_NONE && comp < tl_nev(b) && tl_ev(b, comp)->raw_ns <= f->raw_ns)
					r->done++;
			}
		}
	}
	/* the probe recorded the refused WRs as posted too, before the provider
	 * refused them: those of the first refused post call (its refused records
	 * up to the queue's next post) were never in the queue */
	for (size_t j = 0; j < b->refused.n; j++) {
		size_t i = *TL_AT(&b->refused, uint32_t, j);
		const struct tl_evrec *e = tl_ev(b, i);
		uint32_t *v = b->ev_qp[i] != RT_TL_NONE && !b->ev_shadow[i] && !(e->ev.flags & RT_EVF_ENGINE)
				      ? tl_hash_get(&by_queue, (uint64_t)b->ev_qp[i] << 2 | (e->ev.u.wr.queue & 3))
				      : NULL;
		struct post_refusal *r = v ? TL_AT(&rs, struct post_refusal, *v) : NULL;
		if (r && e->ev.u.wr.queue == r->queue && e->raw_ns >= tl_ev(b, r->first)->raw_ns &&
		    e->raw_ns < r->next_post_raw && r->posted)
			r->posted--;
	}
	for (size_t k = 0; k < rs.n && !rc; k++) {
		struct post_refusal *r = TL_AT(&rs, struct post_refusal, k);
		if (tl_ev(b, r->first)->ev.flags & RT_EVF_ENGINE)
			r->wr_rec = RT_TL_NONE; /* an engine records a refused WR only once */
		if (r->done > r->posted)
			r->done = r->posted;
		rc = refusal_finding(c, r);
	}
	tl_hash_free(&by_queue);
	tl_vec_free(&rs);
	return rc;
}

/* ---- CM messages sent again: each lost CM MAD costs a CM response timeout ---- */

/* The copies of one CM message on the wire (a sender, a message type, a
 * communication ID): the CM sends a REQ, REP or DREQ again when no answer
 * came within its response timeout, with the same IDs. */
struct cm_copies {
	uint32_t first, last;     /* packet indices */
	uint32_t count;
	uint32_t answer;          /* first answer after the last copy (packet), RT_TL_NONE */
	uint32_t damaged_answer;  /* an answer before the last copy with a bad ICRC (packet), RT_TL_NONE */
	bool rep_seen;            /* REQ, SIDR REQ: a REP (SIDR REP) to it was captured (at any time) */
	uint32_t nshown;
	uint32_t shown[8];        /* the first copies (packets), the finding's evidence */
};

/* The traced RDMA CM calls that make CM messages, and the DISCONNECTED
 * events, sorted by (host, call or event, QPN, time); each is there twice,
 * once with QPN 0 (any QP). */
struct cm_call {
	uint64_t t;               /* aligned */
	uint32_t qpn, ev;
	uint16_t host;
	uint8_t call;
};

struct cm_retry_ctx {
	struct tl_hash groups;    /* cm_group_key() -> index in copies */
	struct tl_vec copies;     /* struct cm_copies */
	struct tl_hash reqs;      /* communication ID -> packet of its first REQ */
	struct tl_hash by_qp;     /* by_qp_key() -> the last group of REQs or REPs it sent */
	struct cm_call *calls;
	size_t ncalls;
	uint32_t *last_from;      /* per endpoint: its last packet in the capture (RT_TL_NONE none);
				   * made when first needed (cm_silent_words) */
};

/* The key of cm_retry_ctx.by_qp: host, process (UINT16_MAX unknown: the
 * address's, when one process used it) and QPN.  Processes on one host
 * (uroce's lab) give their QPs the same numbers. */
static uint64_t by_qp_key(uint16_t host, uint16_t proc, uint32_t qpn)
{
	return (uint64_t)proc << 48 | (uint64_t)host << 32 | qpn;
}

/* The last group of REQs or REPs that QP qpn of process proc on host sent,
 * else that any process on the host sent from an address of no known one;
 * NULL when none. */
static const uint32_t *by_qp_get(struct cm_retry_ctx *r, uint16_t host, uint16_t proc, uint32_t qpn)
{
	const uint32_t *g = tl_hash_get(&r->by_qp, by_qp_key(host, proc, qpn));
	return g ? g : tl_hash_get(&r->by_qp, by_qp_key(host, UINT16_MAX, qpn));
}

static uint64_t cm_group_key(uint16_t attr, uint32_t src_ep, uint32_t comm)
{
	return (uint64_t)(attr & 0xff) << 48 | (uint64_t)(src_ep & 0xffff) << 32 | comm;
}

static int cm_call_cmp(const void *a, const void *b)
{
	const struct cm_call *x = a, *y = b;
	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	if (x->call != y->call)
		return x->call < y->call ? -1 : 1;
	if (x->qpn != y->qpn)
		return x->qpn < y->qpn ? -1 : 1;
	return x->t < y->t ? -1 : x->t > y->t;
}

static int cm_calls_collect(struct dctx *c, struct cm_retry_ctx *r)
{
	struct tl_build *b = c->b;
	size_t n = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t j = 0; j < b->cm_evs.n; j++) {
			size_t i = *TL_AT(&b->cm_evs, uint32_t, j);
			const struct tl_evrec *e = tl_ev(b, i);
			unsigned call = e->ev.kind == RT_EV_CM_EVENT ? e->ev.u.cm.event : 0;
			if ((call != RT_CM_CALL_CONNECT && call != RT_CM_CALL_ACCEPT && call != RT_CM_CALL_DISCONNECT &&
			     call != RT_CM_EV_DISCONNECTED) ||
			    b->ev_shadow[i])
				continue;
			if (pass) {
				uint64_t t = item_t(c, (uint32_t)i);
				r->calls[n++] = (struct cm_call){t, e->ev.qpn, (uint32_t)i, e->host, (uint8_t)call};
				r->calls[n++] = (struct cm_call){t, 0, (uint32_t)i, e->host, (uint8_t)call};
			} else {
				n += 2;
			}
		}
		if (!pass) {
			if (!n)
				return 0;
			if (!(r->calls = malloc(n * sizeof(*r->calls))))
				return -ENOMEM;
			r->ncalls = n;
			n = 0;
		}
	}
	qsort(r->calls, r->ncalls, sizeof(*r->calls), cm_call_cmp);
	return 0;
}

/* The last traced call of this kind on host for QP qpn (0: any) at or before
 * aligned time t: the event, RT_TL_NONE when its trace has none. */
static uint32_t cm_call_before(const struct cm_retry_ctx *r, uint16_t host, unsigned call, uint32_t qpn, uint64_t t)
{
	struct cm_call key = {t, qpn, 0, host, (uint8_t)call};
	size_t lo = 0, hi = r->ncalls; /* first entry after key */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cm_call_cmp(&r->calls[mid], &key) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return RT_TL_NONE;
	const struct cm_call *k = &r->calls[lo - 1];
	return k->host == host && k->call == call && k->qpn == qpn ? k->ev : RT_TL_NONE;
}

/* The group of copies a CM message belongs to, NULL when none. */
static struct cm_copies *cm_group(struct cm_retry_ctx *r, uint16_t attr, uint32_t src_ep, uint32_t comm)
{
	uint32_t *v = tl_hash_get(&r->groups, cm_group_key(attr, src_ep, comm));
	return v ? TL_AT(&r->copies, struct cm_copies, *v) : NULL;
}

/* Pass over the CM messages: group the copies of each REQ, REP, DREQ, DREP
 * and SIDR REQ, remember each connection's REQ, then give each group the
 * first answer after its last copy (REQ: REP or REJ; REP: RTU or REJ; DREQ:
 * DREP; SIDR REQ: SIDR REP), and the first between its copies that had a
 * bad ICRC. */
static int cm_group_copies(struct tl_build *b, struct cm_retry_ctx *r)
{
	for (size_t ci = 0; ci < b->cm_info.n; ci++) {
		uint32_t i = TL_AT(&b->cm_info, struct tl_cm_info, ci)->pk;
		const struct tl_pk *k = tl_pk(b, i);
		if (k->cm_attr == RT_CM_REQ && !tl_hash_get(&r->reqs, k->cm_comm_id) &&
		    tl_hash_put(&r->reqs, k->cm_comm_id, i) < 0)
			return -ENOMEM;
		if ((k->cm_attr != RT_CM_REQ && k->cm_attr != RT_CM_REP && k->cm_attr != RT_CM_DREQ &&
		     k->cm_attr != RT_CM_DREP && k->cm_attr != RT_CM_SIDR_REQ) ||
		    k->src_ep >= 0xffff)
			continue;
		struct cm_copies *g = cm_group(r, k->cm_attr, k->src_ep, k->cm_comm_id);
		if (g) {
			g->last = i;
			g->count++;
			if (g->nshown < sizeof(g->shown) / sizeof(g->shown[0]))
				g->shown[g->nshown++] = i;
			continue;
		}
		if (!(g = tl_vec_push(&r->copies)) ||
		    tl_hash_put(&r->groups, cm_group_key(k->cm_attr, k->src_ep, k->cm_comm_id),
				(uint32_t)(r->copies.n - 1)) < 0)
			return -ENOMEM;
		*g = (struct cm_copies){.first = i, .last = i, .count = 1, .answer = RT_TL_NONE,
					.damaged_answer = RT_TL_NONE, .nshown = 1, .shown = {i}};
		const struct tl_ep *src = k->src_ep < b->eps.n ? TL_AT(&b->eps, struct tl_ep, k->src_ep) : NULL;
		if ((k->cm_attr == RT_CM_REQ || k->cm_attr == RT_CM_REP) && src && src->host != UINT16_MAX &&
		    k->cm_local_qpn &&
		    tl_hash_put(&r->by_qp, by_qp_key(src->host, src->proc_ambiguous ? UINT16_MAX : src->proc, k->cm_local_qpn),
				(uint32_t)(r->copies.n - 1)) < 0)
			return -ENOMEM;
	}
	for (size_t ci = 0; ci < b->cm_info.n; ci++) {
		uint32_t j = TL_AT(&b->cm_info, struct tl_cm_info, ci)->pk;
		const struct tl_pk *k = tl_pk(b, j);
		uint16_t asks[2] = {0, 0}; /* the messages k answers */
		if (k->cm_attr == RT_CM_REP)
			asks[0] = RT_CM_REQ;
		else if (k->cm_attr == RT_CM_REJ)
			asks[0] = RT_CM_REQ, asks[1] = RT_CM_REP;
		else if (k->cm_attr == RT_CM_RTU)
			asks[0] = RT_CM_REP;
		else if (k->cm_attr == RT_CM_DREP)
			asks[0] = RT_CM_DREQ;
		else if (k->cm_attr == RT_CM_SIDR_REP)
			asks[0] = RT_CM_SIDR_REQ;
		for (int a = 0; a < 2 && asks[a] && k->dst_ep < 0xffff; a++) {
			/* a SIDR REP carries the request ID of the SIDR REQ it answers */
			uint32_t id = k->cm_attr == RT_CM_SIDR_REP ? k->cm_comm_id : k->cm_remote_comm_id;
			struct cm_copies *g = cm_group(r, asks[a], k->dst_ep, id);
			if (g && g->answer == RT_TL_NONE && j > g->last)
				g->answer = j;
			if (g && g->damaged_answer == RT_TL_NONE && j > g->first && j < g->last && k->icrc == RT_ICRC_BAD)
				g->damaged_answer = j; /* the sender dropped it, and sent its message again */
			if (g && (k->cm_attr == RT_CM_REP || k->cm_attr == RT_CM_SIDR_REP))
				g->rep_seen = true;
		}
	}
	return 0;
}

/* Copies of one CM message closer together than this are none a CM sent
 * again: it waits its response timeout for an answer first (rdma_cm's is
 * 4.096 us * 2^20, about 4.3 s; the smallest a peer can ask for in practice
 * is milliseconds), so the network or the capture duplicated the message. */
#define CM_COPY_NS 1000000ull

/* Whether the copies of group g all came within CM_COPY_NS, and within half
 * named_ns (the response timeout the connection's REQ names, 0 unknown):
 * sooner than a CM sends a message again. */
static bool cm_copies_soon(struct tl_build *b, const struct cm_copies *g, uint64_t named_ns)
{
	uint64_t t0 = tl_pk(b, g->first)->raw_ns, t1 = tl_pk(b, g->last)->raw_ns;
	return t1 >= t0 && t1 - t0 < CM_COPY_NS && (!named_ns || t1 - t0 < named_ns / 2);
}

/* Whether the copies of group g (every one of them among the ones kept)
 * carry the first one's BTH PSN: a CM that sends a message again posts a new
 * send on its QP 1, which takes the next PSN; a copy made on the way
 * repeats the datagram. */
static bool cm_copies_same_psn(struct tl_build *b, const struct cm_copies *g)
{
	uint32_t psn = tl_pk(b, g->first)->psn;
	bool same = g->count <= g->nshown + 1 && tl_pk(b, g->last)->psn == psn;
	for (uint32_t s = 0; s < g->nshown && same; s++)
		same = tl_pk(b, g->shown[s])->psn == psn;
	return same;
}

/* Whether the copies of group g were made on the way: the same datagram
 * however far apart, or sooner than a CM sends a message again. */
static bool cm_copied_on_the_way(struct tl_build *b, const struct cm_copies *g, uint64_t named_ns)
{
	return g->count > 1 && (cm_copies_same_psn(b, g) || cm_copies_soon(b, g, named_ns));
}

/* The CM messages (QP1 packets) the engine of the host at endpoint src
 * traced dropping as it sent them from t0 to t1: their count, the last in
 * *last. */
static unsigned cm_sent_drops(struct dctx *c, const struct tl_ep *src, uint64_t t0, uint64_t t1, uint32_t *last)
{
	struct tl_build *b = c->b;
	unsigned n = 0;
	for (size_t x = 0; src && src->host != UINT16_MAX && x < b->drops.n; x++) {
		uint32_t i = *TL_AT(&b->drops, uint32_t, x);
		const struct tl_evrec *e = tl_ev(b, i);
		uint64_t t = item_t(c, i);
		if ((e->ev.flags & RT_EVF_TX) && e->ev.u.pkt.dest_qpn == 1 && e->host == src->host &&
		    (src->proc == UINT16_MAX || src->proc_ambiguous || e->proc == src->proc) && t >= t0 && t < t1) {
			n++;
			*last = i;
		}
	}
	return n;
}

/* Fill r->last_from (once); -ENOMEM. */
static int cm_silence_index(struct tl_build *b, struct cm_retry_ctx *r)
{
	if (r->last_from)
		return 0;
	if (!(r->last_from = malloc((b->eps.n + 1) * sizeof(uint32_t))))
		return -ENOMEM;
	for (size_t x = 0; x < b->eps.n; x++)
		r->last_from[x] = RT_TL_NONE;
	for (size_t j = 0; j < tl_npk(b); j++) {
		uint32_t ep = tl_pk(b, j)->src_ep;
		if (ep < b->eps.n)
			r->last_from[ep] = (uint32_t)j;
	}
	return 0;
}

/* A CM message sent again and again (group g, two copies or more) that no
 * answer followed, while its receiver sent nothing the capture saw after
 * the first copy: a CM answers every such message (a REQ with a REP or a
 * REJ, a REP with an RTU or a REJ, a SIDR REQ with a SIDR REP, a DREQ with
 * a DREP, even for a connection it no longer has), so nothing there was
 * left to answer, or nothing it sent got through.  Says so (with the
 * receiver's program, when it ended after the first copy) and returns 1;
 * 0 when the receiver was not silent; -ENOMEM. */
static int cm_silent_words(struct dctx *c, struct cm_retry_ctx *r, const struct cm_copies *g, const char *answer,
			   struct text *t)
{
	struct tl_build *b = c->b;
	const struct tl_pk *k = tl_pk(b, g->first);
	if (g->count < 2 || g->answer != RT_TL_NONE || k->dst_ep >= b->eps.n)
		return 0;
	if (cm_silence_index(b, r) < 0)
		return -ENOMEM;
	uint32_t last = r->last_from[k->dst_ep];
	if (last != RT_TL_NONE && last > g->first)
		return 0;
	uint64_t t_first = item_t(c, tl_item_pk(b, g->first));
	const char *asked = rt_cm_attr_name(k->cm_attr);
	tx(t, ", but no %s came: ", answer);
	ep_words(b, k->dst_ep, t);
	if (last == RT_TL_NONE)
		tx(t, " sent nothing the capture saw, before the first copy or after it");
	else
		tx(t, " sent nothing the capture saw after the first copy (its last packet, frame %u, came %.3f ms before it)",
		   tl_pk(b, last)->frame, ms(t_first - item_t(c, tl_item_pk(b, last))));
	tx(t, ", while a CM answers every %s%s", asked,
	   k->cm_attr == RT_CM_REQ	    ? ", with a REP or a REJ"
	   : k->cm_attr == RT_CM_REP	    ? ", with an RTU or a REJ"
	   : k->cm_attr == RT_CM_SIDR_REQ ? " with a SIDR REP"
					    : " with a DREP, even one for a connection it no longer has");
	const struct tl_ep *dst = TL_AT(&b->eps, struct tl_ep, k->dst_ep);
	uint32_t lastdrop = RT_TL_NONE;
	unsigned dropped = cm_sent_drops(c, dst, t_first, item_t(c, tl_item_pk(b, g->last)) + 1, &lastdrop);
	if (dropped)
		tx(t, "; its engine dropped the CM message%s it sent after the first copy as %s left%s",
		   dropped == 1 ? "" : "s", dropped == 1 ? "it" : "they", drop_reason_words(tl_ev(b, lastdrop)));
	uint16_t p = !dst->proc_ambiguous ? dst->proc : UINT16_MAX;
	uint32_t end = p < b->procs.n && b->ends.n ? proc_end_record(b, p) : RT_TL_NONE, lastrec;
	uint64_t t_end = end != RT_TL_NONE ? proc_end_time(c, p, end, &lastrec) : 0;
	if (end != RT_TL_NONE && t_end + 1000000000ull >= t_first && t_end <= item_t(c, tl_item_pk(b, g->last))) {
		const struct rt_tl_proc *P = TL_AT(&b->procs, struct rt_tl_proc, p);
		tx(t, ". Its program, %s (pid %d), ended %.3f ms %s the first copy", (const char *)b->strs.p + P->program,
		   P->pid, ms(t_end > t_first ? t_end - t_first : t_first - t_end), t_end >= t_first ? "after" : "before");
		if (proc_flags(c, p) & PF_ENGINE)
			tx(t, ", and its CM with it (an engine in the program, as uroce's, runs the CM)");
		else
			tx(t, "; a kernel's CM answers after that too, so the host itself, or the way from it, had gone silent");
	} else {
		tx(t, ": the other side, or the way from it, had gone silent");
	}
	tx(t, ".");
	return 1;
}

static int cm_copy_finding(struct dctx *c, const struct cm_copies *g, const char *what, uint64_t named_ns,
			   bool answers_copies)
{
	struct tl_build *b = c->b;
	const struct tl_pk *k = tl_pk(b, g->first), *kl = tl_pk(b, g->last);
	struct text t = {.n = 0}, e = {.n = 0};
	ep_words(b, k->src_ep, &t);
	tx(&t, " sent its %s to ", what);
	ep_words(b, k->dst_ep, &t);
	tx(&t, " and the wire carried it %u times within %.3f ms", g->count, (double)(kl->raw_ns - k->raw_ns) / 1e6);
	if (cm_copies_soon(b, g, named_ns)) {
		tx(&t, ": far sooner than a CM sends a message again (it waits its response timeout for an answer first");
		if (named_ns)
			tx(&t, ", %.3f s here", (double)named_ns / 1e9);
		tx(&t, ")");
	} else {
		tx(&t, ", every copy with the same PSN (0x%06x): a CM that sends a message again posts it anew, with its QP "
		       "1's next PSN", k->psn);
	}
	bool injected = injected_sends(c, k, RT_PKTE_INJECTED_COPY) + 1 >= g->count;
	if (injected)
		tx(&t, ", so its sending engine made the cop%s on purpose (injected duplicate%s: a fault rule)",
		   g->count == 2 ? "y" : "ies", g->count == 2 ? "" : "s");
	else
		tx(&t, ", so something on the way duplicated it (%s)", DUPLICATING);
	tx(&t, "; the receiver's CM treats the copies as duplicates.");
	if (answers_copies && !injected) /* (an injected copy is no answer) */
		tx(&t, " Its REQ came more than once too, and a CM answers a REQ that comes again with its REP again: "
		       "some of these copies may be such answers.");
	tx(&e, "%s frames %u..%u (%u copies)", rt_cm_attr_name(k->cm_attr), k->frame, kl->frame, g->count);
	long f = finding(b, RT_TLFK_DUPLICATE, RT_TLS_WARNING, item_t(c, tl_item_pk(b, g->first)), RT_TL_NONE, 0, 0,
			 &t, &e);
	if (f < 0)
		return -ENOMEM;
	for (uint32_t s = 0; s < g->nshown; s++)
		tl_finding_evidence(b, FI(b, f), tl_item_pk(b, g->shown[s]));
	if (g->count > g->nshown)
		tl_finding_evidence(b, FI(b, f), tl_item_pk(b, g->last));
	return 0;
}

/* ---- connection requests dropped while their listener's backlog was full ---- */

/* The traced listener request packet pk (a REQ or a SIDR REQ) asked for:
 * on the host it went to, on the port and in the port space of its
 * service ID, listening at its address at time t, with its backlog
 * recorded when need_backlog; RT_TL_NONE when none. */
static uint32_t req_listener(struct dctx *c, uint32_t pk, uint64_t t, bool need_backlog)
{
	struct tl_build *b = c->b;
	const struct tl_pk *k = tl_pk(b, pk);
	const struct tl_cm_info *m = tl_cm_info(b, pk);
	const struct tl_ep *to = k->dst_ep < b->eps.n ? TL_AT(&b->eps, struct tl_ep, k->dst_ep) : NULL;
	if (!m || !m->service_port || !to || to->host == UINT16_MAX)
		return RT_TL_NONE;
	uint32_t best = RT_TL_NONE;
	for (size_t x = 0; x < b->cm_evs.n; x++) {
		uint32_t i = *TL_AT(&b->cm_evs, uint32_t, x);
		const struct tl_evrec *e = tl_ev(b, i);
		const struct rt_ev_cm *cm = &e->ev.u.cm;
		if (cm->event != RT_CM_CALL_LISTEN || cm->status != 0 || b->ev_shadow[i] || e->host != to->host ||
		    cm->local_port != m->service_port || (need_backlog && !cm->listen_backlog) ||
		    (cm->peer_port && m->service_ps && cm->peer_port != m->service_ps) || item_t(c, i) > t)
			continue;
		if (listens_at(b, i, to->ver, to->ip) && listen_ended(c, i, t) == RT_TL_NONE &&
		    (best == RT_TL_NONE || item_t(c, i) > item_t(c, best)))
			best = i;
	}
	return best;
}

/* A min-heap of the times the held requests were taken. */
struct take_heap {
	uint64_t *v;
	size_t n;
};

static void take_push(struct take_heap *h, uint64_t t)
{
	size_t i = h->n++;
	for (; i && h->v[(i - 1) / 2] > t; i = (i - 1) / 2)
		h->v[i] = h->v[(i - 1) / 2];
	h->v[i] = t;
}

static void take_pop(struct take_heap *h)
{
	uint64_t last = h->v[--h->n];
	size_t i = 0;
	for (;;) {
		size_t s = 2 * i + 1;
		if (s >= h->n)
			break;
		if (s + 1 < h->n && h->v[s + 1] < h->v[s])
			s++;
		if (h->v[s] >= last)
			break;
		h->v[i] = h->v[s];
		i = s;
	}
	if (h->n)
		h->v[i] = last;
}

/* One REQ copy on its way to the listener. */
struct req_arrival {
	uint64_t t;
	uint32_t group;           /* index in cm_retry_ctx.copies */
	bool held;                /* its request's last copy before the program took it: the one held */
};

static int arrival_cmp(const void *a, const void *b)
{
	const struct req_arrival *x = a, *y = b;
	return x->t < y->t ? -1 : x->t > y->t;
}

/* The copies of a group kept for the replay: the first ones and the last. */
static size_t group_copies(const struct cm_copies *g, uint32_t *out)
{
	size_t n = 0;
	for (uint32_t s = 0; s < g->nshown; s++)
		out[n++] = g->shown[s];
	if (g->count > g->nshown)
		out[n++] = g->last;
	return n;
}

/* How many of REQ group g's first copies came while listener `listen` (a
 * listen call with its backlog B) held B connection requests its program
 * had not taken with rdma_get_cm_event: the kernel's RDMA CM drops a REQ
 * then, without an answer (drivers/infiniband/core/ucma.c), and the
 * requester's CM sends it again after its response timeout.  Replays the
 * REQs of every connection to that listener's port on its host in the
 * order they came: the first copy that found room is held until its
 * CONNECT_REQUEST event (never, when the program did not take it), and so is
 * the last copy before that event in any case.
 * *next_take: when the program took a held request after g's first copy
 * (UINT64_MAX none); *held: g's first copy found room (the listener held
 * it).  -ENOMEM. */
static int cm_backlog_drops(struct dctx *c, struct cm_retry_ctx *r, const struct cm_copies *g, uint32_t listen,
			    unsigned *ndropped, uint64_t *next_take, bool *held)
{
	struct tl_build *b = c->b;
	const struct tl_pk *k = tl_pk(b, g->first);
	const struct tl_cm_info *m = tl_cm_info(b, g->first);
	uint16_t host = TL_AT(&b->eps, struct tl_ep, k->dst_ep)->host;
	uint32_t backlog = tl_ev(b, listen)->ev.u.cm.listen_backlog;
	size_t ngroups = r->copies.n, n = 0;
	struct req_arrival *a = malloc((ngroups * 9 + 1) * sizeof(*a));
	uint64_t *taken = malloc((ngroups + 1) * sizeof(*taken));
	uint8_t *state = calloc(ngroups + 1, 1); /* 0 not yet held, 1 held or taken */
	struct take_heap h = {malloc((ngroups + 1) * sizeof(uint64_t)), 0};
	*ndropped = 0;
	*next_take = UINT64_MAX;
	*held = false;
	if (!a || !taken || !state || !h.v) {
		free(a), free(taken), free(state), free(h.v);
		return -ENOMEM;
	}
	for (size_t x = 0; x < ngroups; x++) {
		const struct cm_copies *G = TL_AT(&r->copies, struct cm_copies, x);
		const struct tl_pk *q = tl_pk(b, G->first);
		const struct tl_cm_info *qm = tl_cm_info(b, G->first);
		if (q->cm_attr != RT_CM_REQ || !qm || qm->service_port != m->service_port ||
		    qm->service_ps != m->service_ps || q->dst_ep >= b->eps.n ||
		    TL_AT(&b->eps, struct tl_ep, q->dst_ep)->host != host)
			continue;
		uint32_t ev = first_link(c, tl_item_pk(b, G->first), RT_TLL_CM_EVENT);
		taken[x] = ev != RT_TL_NONE && ev < tl_nev(b) ? item_t(c, ev) : UINT64_MAX;
		uint32_t copies[9];
		size_t nc = group_copies(G, copies), last = SIZE_MAX;
		for (size_t s = 0; s < nc; s++) {
			uint64_t ts = item_t(c, tl_item_pk(b, copies[s]));
			if (ts <= taken[x] && (last == SIZE_MAX || ts >= a[last].t))
				last = n;
			a[n++] = (struct req_arrival){ts, (uint32_t)x, false};
		}
		if (last != SIZE_MAX && taken[x] != UINT64_MAX)
			a[last].held = true;
	}
	qsort(a, n, sizeof(*a), arrival_cmp);
	uint64_t t_listen = item_t(c, listen);
	uint32_t gi = (uint32_t)(g - (const struct cm_copies *)r->copies.p);
	for (size_t s = 0; s < n; s++) {
		while (h.n && h.v[0] <= a[s].t)
			take_pop(&h);
		if (a[s].t < t_listen || state[a[s].group])
			continue; /* before this listener; a copy of a request already held */
		/* (the copy the program took is held whatever the replay says: copies
		 * microseconds apart are beyond the clocks' alignment) */
		if (h.n < backlog || a[s].held) {
			state[a[s].group] = 1;
			take_push(&h, taken[a[s].group]);
			if (a[s].group == gi) {
				*held = !*ndropped;
				break;
			}
			continue;
		}
		if (a[s].group != gi)
			continue;
		if (!*ndropped)
			*next_take = h.v[0];
		++*ndropped;
	}
	free(a), free(taken), free(state), free(h.v);
	return 0;
}

/* "the listener it asked for (rping (pid 12) on server, port 7471, rdma_listen
 * at 1.234567 s": listen call `listen`, its parenthesis left open. */
static void asked_listener_words(struct dctx *c, uint32_t listen, struct text *t)
{
	struct tl_build *b = c->b;
	const struct tl_evrec *e = tl_ev(b, listen);
	const struct rt_tl_proc *P = e->proc < b->procs.n ? TL_AT(&b->procs, struct rt_tl_proc, e->proc) : NULL;
	tx(t, "the listener it asked for (");
	if (P) {
		proc_words(b, e->proc, t);
		tx(t, ", ");
	}
	tx(t, "port %u, rdma_listen at %.6f s", e->ev.u.cm.local_port, (double)item_t(c, listen) / 1e9);
}

/* "; when the first copy came, the listener it asked for (...) already
 * held ...": why the first ndropped copies of a REQ went unanswered, from
 * cm_backlog_drops(). */
static void cm_backlog_words(struct dctx *c, const struct cm_copies *g, uint32_t listen, unsigned ndropped,
			     uint64_t next_take, struct text *t)
{
	struct tl_build *b = c->b;
	uint32_t backlog = tl_ev(b, listen)->ev.u.cm.listen_backlog;
	uint64_t t_first = item_t(c, tl_item_pk(b, g->first));
	if (ndropped == 1)
		tx(t, "; when the first copy came, ");
	else if (ndropped < g->count)
		tx(t, "; when the first %u copies came, ", ndropped);
	else
		tx(t, "; when %s came, ", g->count == 2 ? "both copies" : "every copy");
	asked_listener_words(c, listen, t);
	tx(t, ") already held %u connection request%s its program had not taken with rdma_get_cm_event, as many as "
	      "its backlog (%u): an RDMA CM (the kernel's) drops a request that comes then, without an answer, so the "
	      "requester's CM sends it again after its response timeout",
	   backlog, backlog == 1 ? "" : "s", backlog);
	if (next_take != UINT64_MAX && next_take > t_first)
		tx(t, " (the program took the first waiting request %.3f ms after the first copy)", ms(next_take - t_first));
	else if (next_take == UINT64_MAX)
		tx(t, " (the program never took the waiting request%s)", backlog == 1 ? "" : "s");
	tx(t, "; a larger backlog in rdma_listen (0 asks for net.rdma_ucm.max_backlog), or taking requests sooner, "
	      "avoids the wait.");
}

/* The first MRA (message receipt acknowledgement) that answered REQ group
 * g after its second copy: the kernel's CM sends one when a request it
 * holds comes again (the RDMA CM asked for it, delayed, as it queued the
 * request).  RT_TL_NONE when the capture has none. */
static uint32_t cm_req_mra(struct tl_build *b, const struct cm_copies *g)
{
	const struct tl_pk *k = tl_pk(b, g->first);
	uint32_t second = g->nshown > 1 ? g->shown[1] : g->last;
	for (size_t ci = 0; ci < b->cm_info.n; ci++) {
		uint32_t i = TL_AT(&b->cm_info, struct tl_cm_info, ci)->pk;
		const struct tl_pk *m = tl_pk(b, i);
		if (i > second && m->cm_attr == RT_CM_MRA && m->cm_remote_comm_id == k->cm_comm_id &&
		    m->src_ep == k->dst_ep)
			return i;
	}
	return RT_TL_NONE;
}

/* "; the first copy arrived and the listener ... held it until its
 * program took it ...": a REQ sent again because the program that
 * listened took it (event `taken`, its CONNECT_REQUEST) only after the
 * requester's response timeout; mra: the MRA that answered a later copy
 * (RT_TL_NONE none). */
static void cm_held_words(struct dctx *c, const struct cm_copies *g, uint32_t listen, uint32_t taken, uint32_t mra,
			  struct text *t)
{
	struct tl_build *b = c->b;
	uint64_t t_first = item_t(c, tl_item_pk(b, g->first)), tt = item_t(c, taken);
	tx(t, "; the first copy arrived, and ");
	asked_listener_words(c, listen, t);
	tx(t, ", backlog %u) held it until its program took it with rdma_get_cm_event %.3f ms later (its "
	      "CONNECT_REQUEST event): the program was slow to take the connection request, and the requester's CM, "
	      "without an answer, sent it again meanwhile",
	   tl_ev(b, listen)->ev.u.cm.listen_backlog, ms(tt > t_first ? tt - t_first : 0));
	if (mra != RT_TL_NONE)
		tx(t, "; the listener's CM answered the copy that came again with an MRA (frame %u), which tells the "
		      "requester to wait longer for the reply", tl_pk(b, mra)->frame);
	tx(t, ".");
}

/* One finding for a CM message sent more than once, or whose first copies
 * never reached the capture (its call came half a CM response timeout or
 * more before the first copy the capture saw); copies that came too close
 * together for that are a duplicate finding (cm_copy_finding). */
static int cm_retry_finding(struct dctx *c, struct cm_retry_ctx *r, const struct cm_copies *g)
{
	struct tl_build *b = c->b;
	const struct tl_pk *k = tl_pk(b, g->first), *kl = tl_pk(b, g->last);
	if (k->cm_attr == RT_CM_DREP)
		return 0; /* an answer: sent again only when a DREQ came again */
	uint32_t *ri = tl_hash_get(&r->reqs, k->cm_attr == RT_CM_REP ? k->cm_remote_comm_id : k->cm_comm_id);
	if (!ri && k->cm_attr == RT_CM_DREQ) /* the passive side's DREQ */
		ri = tl_hash_get(&r->reqs, k->cm_remote_comm_id);
	const struct tl_cm_info *req = ri ? tl_cm_info(b, *ri) : NULL;
	uint64_t timeout_ns = 0; /* the sender's response timeout, 0 unknown */
	const char *what, *answer, *waits, *fn;
	unsigned call;
	uint32_t qpn = k->cm_local_qpn;
	if (k->cm_attr == RT_CM_REQ) {
		what = "connection request (REQ)", answer = "reply (REP)", waits = "connection set-up";
		call = RT_CM_CALL_CONNECT, fn = "rdma_connect";
		if (req)
			timeout_ns = 4096ull << req->remote_cm_timeout;
	} else if (k->cm_attr == RT_CM_REP) {
		what = "reply (REP)", answer = "RTU", waits = "connection set-up";
		call = RT_CM_CALL_ACCEPT, fn = "rdma_accept";
		if (req)
			timeout_ns = 4096ull << req->local_cm_timeout;
	} else if (k->cm_attr == RT_CM_SIDR_REQ) {
		/* rdma_connect of a UD QP: the request ID is all it carries, no QPN */
		what = "UD service request (SIDR REQ)", answer = "SIDR REP", waits = "UD address resolution";
		call = RT_CM_CALL_CONNECT, fn = "rdma_connect";
	} else {
		what = "disconnect request (DREQ)", answer = "DREP", waits = "disconnect";
		call = RT_CM_CALL_DISCONNECT, fn = "rdma_disconnect";
		/* the QP of the side that sent it: its REQ's or its REP's */
		const struct cm_copies *own = cm_group(r, RT_CM_REQ, k->src_ep, k->cm_comm_id);
		if (!own)
			own = cm_group(r, RT_CM_REP, k->src_ep, k->cm_comm_id);
		qpn = own ? tl_pk(b, own->first)->cm_local_qpn : 0;
	}
	uint64_t t_first = item_t(c, tl_item_pk(b, g->first)), t_last = item_t(c, tl_item_pk(b, g->last));
	/* the time between copies on the wire: for a REQ the timeout the REQ names
	 * plus twice the packet lifetime, which the REQ does not carry */
	uint64_t every_ns = g->count > 1 && t_last > t_first ? (t_last - t_first) / (g->count - 1) : timeout_ns;
	/* a CM answers a REQ that comes again with its REP again: after copies
	 * of the REQ made on the way (their own finding), nothing was lost */
	const struct cm_copies *rq = k->cm_attr == RT_CM_REP ? cm_group(r, RT_CM_REQ, k->dst_ep, k->cm_remote_comm_id) : NULL;
	bool req_copied = rq && cm_copied_on_the_way(b, rq, req ? 4096ull << req->remote_cm_timeout : 0);
	if (cm_copied_on_the_way(b, g, timeout_ns)) /* (timeout_ns: still the one the REQ names) */
		return cm_copy_finding(c, g, what, timeout_ns, req_copied);
	if (req_copied)
		return 0;
	if (!timeout_ns)
		timeout_ns = every_ns;
	/* copies lost before the capture point: the call came a timeout or more before the first copy */
	const struct tl_ep *src = k->src_ep < b->eps.n ? TL_AT(&b->eps, struct tl_ep, k->src_ep) : NULL;
	uint32_t callev = src && src->host != UINT16_MAX && qpn ? cm_call_before(r, src->host, call, qpn, t_last)
								 : RT_TL_NONE;
	uint64_t t_call = callev != RT_TL_NONE ? item_t(c, callev) : 0;
	uint64_t unseen = 0;
	if (callev != RT_TL_NONE && timeout_ns && t_first > t_call && t_first - t_call > timeout_ns / 2)
		unseen = (t_first - t_call + timeout_ns / 2) / timeout_ns;
	if (unseen > 15)
		unseen = 15; /* the CM sends one message at most 15 times more */
	if (g->count < 2 && !unseen)
		return 0;
	uint64_t t_start = unseen ? t_call : t_first;
	struct text t = {.n = 0}, e = {.n = 0};
	ep_words(b, k->src_ep, &t);
	tx(&t, " sent its %s to ", what);
	ep_words(b, k->dst_ep, &t);
	tx(&t, " %" PRIu64 " times", g->count + unseen);
	if (unseen == 1)
		tx(&t, " (the first never reached the capture: %s came %.3f s before the first copy in it)", fn,
		   (double)(t_first - t_call) / 1e9);
	else if (unseen)
		tx(&t, " (the first %" PRIu64 " never reached the capture: %s came %.3f s before the first copy in it)",
		   unseen, fn, (double)(t_first - t_call) / 1e9);
	tx(&t, ": the CM sends a message again when no answer came within its response timeout");
	if (every_ns)
		tx(&t, " (%.3f s here)", (double)every_ns / 1e9);
	/* the CM event the first copy is linked to (its request's, whichever copy
	 * made it); the first copy arrived when that came before the next copy */
	uint32_t ev1 = g->count > 1 ? first_link(c, tl_item_pk(b, g->first), RT_TLL_CM_EVENT) : RT_TL_NONE;
	if (ev1 != RT_TL_NONE && ev1 >= tl_nev(b))
		ev1 = RT_TL_NONE;
	uint32_t got = ev1 != RT_TL_NONE && k->icrc != RT_ICRC_BAD &&
				       item_t(c, ev1) <= item_t(c, tl_item_pk(b, g->shown[1]))
			       ? ev1 : RT_TL_NONE;
	const struct tl_pk *dmg = g->damaged_answer != RT_TL_NONE ? tl_pk(b, g->damaged_answer) : NULL;
	/* copies that came while the listener held its backlog of requests, or
	 * a first copy it held until its program took it, late */
	unsigned backlogged = 0;
	uint64_t next_take = UINT64_MAX;
	bool held = false;
	uint32_t listen = k->cm_attr == RT_CM_REQ && g->count > 1 && got == RT_TL_NONE && !dmg
				  ? req_listener(c, g->first, t_first, true) : RT_TL_NONE;
	if (listen != RT_TL_NONE && cm_backlog_drops(c, r, g, listen, &backlogged, &next_take, &held) < 0)
		return -ENOMEM;
	uint32_t taken = held ? ev1 : RT_TL_NONE;
	/* held, as far as the capture tells: an engine's CM (uroce) holds what
	 * reached its host; a kernel's answers a held request that comes again
	 * with an MRA (without one, the first copy may have gone astray there) */
	uint32_t mra = taken != RT_TL_NONE ? cm_req_mra(b, g) : RT_TL_NONE;
	if (taken != RT_TL_NONE && mra == RT_TL_NONE && !(proc_flags(c, tl_ev(b, listen)->proc) & PF_ENGINE))
		taken = RT_TL_NONE;
	uint32_t lastdrop = RT_TL_NONE;
	int silent = 0;
	/* (from 10 ms before the call's record: its probe records it as it returns,
	 * after the engine sent the message) */
	unsigned dropped = unseen ? cm_sent_drops(c, src, t_call > 10000000 ? t_call - 10000000 : 0, t_first, &lastdrop) : 0;
	if (unseen && g->count == 1 && dropped >= unseen) {
		tx(&t, unseen == 1 ? ", so the copy before it was dropped by the sender's engine as it sent it%s."
				   : ", so the copies before it were dropped by the sender's engine as it sent them%s.",
		   drop_reason_words(tl_ev(b, lastdrop)));
	} else if (unseen && g->count == 1) {
		tx(&t, ", so the copies before it were lost between the sender and the capture point.");
	} else if (g->count > 1 && k->icrc == RT_ICRC_BAD) {
		tx(&t, "; the first copy (frame %u) had a bad ICRC, and its receiver dropped it (%s).", k->frame,
		   damage_cause(c, k));
	} else if (dmg) {
		tx(&t, "; its %s (frame %u) had a bad ICRC, and ", answer, dmg->frame);
		ep_words(b, k->src_ep, &t);
		tx(&t, " dropped it (%s).", damage_cause(c, dmg));
	} else if (backlogged) {
		cm_backlog_words(c, g, listen, backlogged, next_take, &t);
	} else if (taken != RT_TL_NONE) {
		cm_held_words(c, g, listen, taken, mra, &t);
	} else if (got != RT_TL_NONE) {
		const struct tl_evrec *ge = tl_ev(b, got);
		tx(&t, "; the first copy arrived (%s had its %s event %.3f ms after it)", host_name(b, ge->host),
		   rt_cm_event_name(ge->ev.u.cm.event), ms(item_t(c, got) > t_first ? item_t(c, got) - t_first : 0));
		if ((silent = cm_silent_words(c, r, g, answer, &t)) == 0)
			tx(&t, ", so its %s was lost or came too late.", answer);
	} else if ((silent = cm_silent_words(c, r, g, answer, &t)) == 0) {
		tx(&t, ", so the %s or its %s was lost (or the other side was slow to answer).", what, answer);
	}
	if (silent < 0)
		return -ENOMEM;
	/* a REQ that no REP answered on the wire though the other side accepted: the REPs were lost */
	const struct tl_ep *dst = k->dst_ep < b->eps.n ? TL_AT(&b->eps, struct tl_ep, k->dst_ep) : NULL;
	uint32_t accept = RT_TL_NONE;
	if ((k->cm_attr == RT_CM_REQ || k->cm_attr == RT_CM_SIDR_REQ) && !g->rep_seen && dst &&
	    dst->host != UINT16_MAX) {
		accept = cm_call_before(r, dst->host, RT_CM_CALL_ACCEPT, 0, t_last);
		if (accept != RT_TL_NONE && item_t(c, accept) < t_first)
			accept = RT_TL_NONE; /* an earlier connection's */
	}
	if (accept != RT_TL_NONE) {
		tx(&t, " ");
		ep_words(b, k->dst_ep, &t);
		tx(&t, " called rdma_accept %.3f s after the first copy, but none of its %s reached the capture: they were lost on their way from it.",
		   (double)(item_t(c, accept) - t_first) / 1e9, k->cm_attr == RT_CM_REQ ? "REPs" : "SIDR REPs");
	}
	tx(&t, " ");
	/* a request held for a program slow to take it: the set-up waited for it
	 * until the answer, however long after the last copy that came */
	uint64_t t_answer = g->answer != RT_TL_NONE ? item_t(c, tl_item_pk(b, g->answer)) : 0;
	uint64_t lost = taken != RT_TL_NONE && t_answer > t_last ? t_answer - t_start : t_last - t_start;
	if (g->answer != RT_TL_NONE && lost != t_last - t_start)
		tx(&t, "The %s waited %.3f s, from the first copy to the answer (%s) at frame %u.", waits,
		   (double)lost / 1e9, rt_cm_attr_name(tl_pk(b, g->answer)->cm_attr), tl_pk(b, g->answer)->frame);
	else if (g->answer != RT_TL_NONE)
		tx(&t, "The %s waited %.3f s longer than one exchange takes; the answer (%s) came at frame %u.", waits,
		   (double)(t_last - t_start) / 1e9, rt_cm_attr_name(tl_pk(b, g->answer)->cm_attr),
		   tl_pk(b, g->answer)->frame);
	else
		tx(&t, "No answer to the last copy reached the capture: the %s waited %.3f s and more.", waits,
		   (double)(t_last - t_start) / 1e9);
	tx(&e, "%s frames %u", rt_cm_attr_name(k->cm_attr), k->frame);
	if (g->count > 1)
		tx(&e, "..%u (%u copies)", kl->frame, g->count);
	if (callev != RT_TL_NONE)
		tx(&e, ", %s at %.6f s", fn, (double)t_call / 1e9);
	if (accept != RT_TL_NONE)
		tx(&e, ", rdma_accept at %.6f s", (double)item_t(c, accept) / 1e9);
	if (g->answer != RT_TL_NONE)
		tx(&e, ", answer frame %u", tl_pk(b, g->answer)->frame);
	uint32_t q = callev != RT_TL_NONE ? b->ev_qp[callev] : RT_TL_NONE;
	long f = finding(b, RT_TLFK_CM_LOST, RT_TLS_WARNING, t_start, q, lost, 0, &t, &e);
	if (f < 0)
		return -ENOMEM;
	tl_finding_evidence(b, FI(b, f), callev);
	tl_finding_evidence(b, FI(b, f), accept);
	tl_finding_evidence(b, FI(b, f), got);
	if (backlogged || taken != RT_TL_NONE)
		tl_finding_evidence(b, FI(b, f), listen);
	tl_finding_evidence(b, FI(b, f), taken);
	if (taken != RT_TL_NONE && mra != RT_TL_NONE)
		tl_finding_evidence(b, FI(b, f), tl_item_pk(b, mra));
	for (uint32_t s = 0; s < g->nshown; s++)
		tl_finding_evidence(b, FI(b, f), tl_item_pk(b, g->shown[s]));
	if (g->count > g->nshown)
		tl_finding_evidence(b, FI(b, f), tl_item_pk(b, g->last));
	if (g->answer != RT_TL_NONE)
		tl_finding_evidence(b, FI(b, f), tl_item_pk(b, g->answer));
	return 0;
}

/* A traced rdma_connect or rdma_disconnect whose message (REQ; DREQ, when
 * the other side had not disconnected first) never reached the capture
 * though it ran on: every copy was lost before the capture point.  A lost
 * DREQ leaves the other side connected: it gets no DISCONNECTED event. */
static int cm_unsent(struct dctx *c, struct cm_retry_ctx *r, uint64_t t_end)
{
	struct tl_build *b = c->b;
	/* per host: its last SIDR REQ (rdma_connect of a UD QP sends one, not a REQ) */
	uint64_t *sidr = calloc(b->hosts.n + 1, sizeof(uint64_t));
	if (!sidr)
		return -ENOMEM;
	for (size_t ci = 0; ci < b->cm_info.n; ci++) {
		const struct tl_pk *p = tl_pk(b, TL_AT(&b->cm_info, struct tl_cm_info, ci)->pk);
		uint16_t h = p->src_ep < b->eps.n ? TL_AT(&b->eps, struct tl_ep, p->src_ep)->host : UINT16_MAX;
		if (p->cm_attr == RT_CM_SIDR_REQ && h < b->hosts.n)
			sidr[h] = item_t(c, tl_item_pk(b, TL_AT(&b->cm_info, struct tl_cm_info, ci)->pk));
	}
	int rc = 0;
	for (size_t ci = 0; ci < r->ncalls && !rc; ci++) {
		const struct cm_call *k = &r->calls[ci];
		uint32_t q = b->ev_qp[k->ev];
		if (!k->qpn || (k->call != RT_CM_CALL_CONNECT && k->call != RT_CM_CALL_DISCONNECT) ||
		    k->t + 100000000ull > t_end)
			continue; /* the capture may have stopped before the message left */
		/* nor started after it left (an unbounded clock: its wall clock, trusted) */
		uint64_t unc = k->host < b->hosts.n ? tl_host(b, k->host)->uncertainty_ns : 0;
		if (k->t < capture_start(b) + (unc == UINT64_MAX ? 0 : unc))
			continue;
		if (k->call == RT_CM_CALL_CONNECT && ((q < b->qps.n && tl_qp(b, q)->qp_type == 4) || (k->host < b->hosts.n && sidr[k->host] >= k->t)))
			continue; /* UD: a SIDR exchange */
		const uint32_t *gi = by_qp_get(r, k->host, tl_ev(b, k->ev)->proc, k->qpn);
		const struct cm_copies *own = gi ? TL_AT(&r->copies, struct cm_copies, *gi) : NULL;
		const struct tl_pk *ok = own ? tl_pk(b, own->first) : NULL;
		if (k->call == RT_CM_CALL_CONNECT) {
			if (own)
				continue; /* its REQ (or a REP of this QP) is there */
		} else {
			/* the second side to disconnect answers with a DREP; a connection the
			 * capture did not see set up is not judged */
			if (!own || cm_group(r, RT_CM_DREQ, ok->src_ep, ok->cm_comm_id) ||
			    cm_group(r, RT_CM_DREP, ok->src_ep, ok->cm_comm_id) ||
			    cm_call_before(r, k->host, RT_CM_EV_DISCONNECTED, k->qpn, k->t) != RT_TL_NONE)
				continue;
		}
		struct text t = {.n = 0}, e = {.n = 0};
		const char *fn = k->call == RT_CM_CALL_CONNECT ? "rdma_connect" : "rdma_disconnect";
		const char *msg = k->call == RT_CM_CALL_CONNECT ? "connection request (REQ)" : "disconnect request (DREQ)";
		tx(&t, "%s called %s on QP 0x%06x, but no %s from it reached the capture in the %.3f s it ran on: every copy the CM sent was lost before the capture point",
		   host_name(b, k->host), fn, k->qpn, msg, (double)(t_end - k->t) / 1e9);
		if (own) {
			/* the other side of the connection: did it learn of the disconnect? */
			const struct tl_ep *dst = ok->dst_ep < b->eps.n ? TL_AT(&b->eps, struct tl_ep, ok->dst_ep) : NULL;
			const uint32_t *pq = NULL;
			for (size_t gj = 0; gj < r->copies.n && dst && dst->host != UINT16_MAX && !pq; gj++) {
				const struct tl_pk *p = tl_pk(b, TL_AT(&r->copies, struct cm_copies, gj)->first);
				if ((p->cm_attr == RT_CM_REQ || p->cm_attr == RT_CM_REP) && p->src_ep == ok->dst_ep &&
				    (p->cm_remote_comm_id == ok->cm_comm_id || ok->cm_remote_comm_id == p->cm_comm_id))
					pq = by_qp_get(r, dst->host, dst->proc_ambiguous ? UINT16_MAX : dst->proc, p->cm_local_qpn);
			}
			const struct tl_pk *pp = pq ? tl_pk(b, TL_AT(&r->copies, struct cm_copies, *pq)->first) : NULL;
			if (pp && dst) {
				uint32_t peer_ev = cm_call_before(r, dst->host, RT_CM_EV_DISCONNECTED, pp->cm_local_qpn, UINT64_MAX);
				if (peer_ev == RT_TL_NONE || item_t(c, peer_ev) < k->t)
					tx(&t, "; %s, its peer, never had a DISCONNECTED event for QP 0x%06x after it: it stays connected, and a program waiting for that event waits forever",
					   host_name(b, dst->host), pp->cm_local_qpn);
			}
		}
		tx(&t, ".");
		tx(&e, "%s at %.6f s, capture until %.6f s", fn, (double)k->t / 1e9, (double)t_end / 1e9);
		if (own)
			tx(&e, ", the connection's %s frame %u", rt_cm_attr_name(ok->cm_attr), ok->frame);
		long f = finding(b, RT_TLFK_CM_LOST, RT_TLS_WARNING, k->t, q, 0, 0, &t, &e);
		if (f < 0) {
			rc = -ENOMEM;
			break;
		}
		tl_finding_evidence(b, FI(b, f), k->ev);
		if (own)
			tl_finding_evidence(b, FI(b, f), tl_item_pk(b, own->first));
	}
	free(sidr);
	return rc;
}

/* The CM event `event` (RDMA_CM_EVENT_*) that the process of address ep
 * (its host's, when several or none use it) got for its QP qpn at or after
 * time t (the first), RT_TL_NONE when none. */
static uint32_t cm_event_after(struct dctx *c, uint32_t ep, uint32_t qpn, unsigned event, uint64_t t)
{
	struct tl_build *b = c->b;
	const struct tl_ep *a = TL_AT(&b->eps, struct tl_ep, ep);
	bool by_proc = a->proc != UINT16_MAX && !a->proc_ambiguous;
	for (size_t x = 0; x < b->cm_evs.n; x++) {
		uint32_t i = *TL_AT(&b->cm_evs, uint32_t, x);
		const struct tl_evrec *e = tl_ev(b, i);
		if (e->host == a->host && (!by_proc || e->proc == a->proc) && e->ev.qpn == qpn && e->ev.u.cm.event == event &&
		    !b->ev_shadow[i] && item_t(c, i) >= t)
			return i;
	}
	return RT_TL_NONE;
}

/* A connection's REP, sent once, that no RTU (nor REJ) in the capture
 * answered, while the active side went on: its rdma_cm reported
 * ESTABLISHED (it sends the RTU first), and the capture holds packets it
 * sent a millisecond after that (beyond its clock's uncertainty).  The RTU
 * was lost before the capture point.  A passive side
 * whose CM sends its REP again when no RTU comes shows that as REP copies
 * (cm_retry_finding(): "its RTU was lost"); one that does not (uroce's)
 * never reports ESTABLISHED, and its program, waiting for it, may give up. */
static int rtu_unseen(struct dctx *c, struct cm_retry_ctx *r)
{
	struct tl_build *b = c->b;
	for (size_t gi = 0; gi < r->copies.n; gi++) {
		const struct cm_copies *g = TL_AT(&r->copies, struct cm_copies, gi);
		const struct tl_pk *k = tl_pk(b, g->first);
		if (k->cm_attr != RT_CM_REP || g->count != 1 || g->answer != RT_TL_NONE || k->src_ep >= b->eps.n ||
		    k->dst_ep >= b->eps.n)
			continue;
		uint32_t *ri = tl_hash_get(&r->reqs, k->cm_remote_comm_id);
		uint16_t ha = TL_AT(&b->eps, struct tl_ep, k->dst_ep)->host, hp = TL_AT(&b->eps, struct tl_ep, k->src_ep)->host;
		if (!ri || ha == UINT16_MAX)
			continue;
		uint32_t aqpn = tl_pk(b, *ri)->cm_local_qpn;
		uint64_t t_rep = item_t(c, tl_item_pk(b, g->first));
		uint64_t unc = ha < b->hosts.n ? tl_host(b, ha)->uncertainty_ns : UINT64_MAX;
		if (unc > 1000000000ull)
			unc = 1000000000ull;
		uint32_t est = cm_event_after(c, k->dst_ep, aqpn, RT_CM_EV_ESTABLISHED, t_rep > unc ? t_rep - unc : 0);
		if (est == RT_TL_NONE)
			continue; /* not traced going on */
		uint64_t t_est = item_t(c, est);
		/* a later packet of the active side's address in the capture (its requests,
		 * its DREQ), a millisecond after: the RTU, sent before, would be in it too */
		uint32_t later = RT_TL_NONE;
		for (uint32_t j = g->first + 1; j < tl_npk(b) && later == RT_TL_NONE; j++)
			if (tl_pk(b, j)->src_ep == k->dst_ep && item_t(c, tl_item_pk(b, j)) > t_est + unc + 1000000)
				later = j;
		if (later == RT_TL_NONE)
			continue; /* the capture may have ended before its RTU */
		/* the active side's engine dropping a CM message as it sent it, then */
		uint32_t drop = RT_TL_NONE;
		for (size_t x = 0; x < b->drops.n && drop == RT_TL_NONE; x++) {
			uint32_t i = *TL_AT(&b->drops, uint32_t, x);
			const struct tl_evrec *e = tl_ev(b, i);
			if (e->host == ha && e->ev.qpn == 1 && (e->ev.flags & RT_EVF_TX) && item_t(c, i) + unc >= t_rep &&
			    item_t(c, i) <= t_est + 1000000)
				drop = i;
		}
		/* (a call is recorded as it returns: the REP left during it) */
		uint32_t accept = hp != UINT16_MAX ? cm_call_before(r, hp, RT_CM_CALL_ACCEPT, k->cm_local_qpn,
								    t_rep + unc + 100000000ull)
						   : RT_TL_NONE;
		uint32_t pest = accept != RT_TL_NONE ? cm_event_after(c, k->src_ep, k->cm_local_qpn, RT_CM_EV_ESTABLISHED,
								      item_t(c, accept)) : RT_TL_NONE;
		/* an rdma_accept that waited for the RTU (a cm_id without an event
		 * channel) and failed: recorded as it returned, long after the REP */
		uint32_t waited = accept == RT_TL_NONE && hp != UINT16_MAX
					  ? cm_call_before(r, hp, RT_CM_CALL_ACCEPT, k->cm_local_qpn, UINT64_MAX)
					  : RT_TL_NONE;
		if (waited != RT_TL_NONE && (item_t(c, waited) <= t_rep || !tl_ev(b, waited)->ev.u.cm.status))
			waited = RT_TL_NONE;
		/* the passive side's engine dropping the REP it sent again: a CM
		 * message it sent before the active side's DREQ of the connection
		 * (after which it answers with a DREP) and before its rdma_accept
		 * gave up */
		const struct cm_copies *dreq = cm_group(r, RT_CM_DREQ, k->dst_ep, k->cm_remote_comm_id);
		uint64_t t_dreq = dreq ? item_t(c, tl_item_pk(b, dreq->first)) : UINT64_MAX;
		uint32_t redrop = RT_TL_NONE;
		for (size_t x = 0; x < b->drops.n && redrop == RT_TL_NONE && hp != UINT16_MAX; x++) {
			uint32_t i = *TL_AT(&b->drops, uint32_t, x);
			const struct tl_evrec *e = tl_ev(b, i);
			uint64_t ti = item_t(c, i);
			if (e->host == hp && e->ev.qpn == 1 && (e->ev.flags & RT_EVF_TX) && ti > t_rep + unc + 1000000 &&
			    ti < t_dreq && (waited == RT_TL_NONE || ti < item_t(c, waited)))
				redrop = i;
		}
		struct text t = {.n = 0}, e = {.n = 0};
		ep_words(b, k->dst_ep, &t);
		tx(&t, " got the reply (REP, frame %u) of ", k->frame);
		ep_words(b, k->src_ep, &t);
		tx(&t, " and its rdma_cm reported ESTABLISHED %.3f ms later, but no ready-to-use (RTU), which it sends "
		       "first, reached the capture, which holds its later packets (frame %u on): ",
		   t_est > t_rep ? (double)(t_est - t_rep) / 1e6 : 0.0, tl_pk(b, later)->frame);
		if (drop != RT_TL_NONE)
			tx(&t, "its engine dropped a CM message it sent then (injected loss)");
		else
			tx(&t, "it was lost before the capture point");
		if (accept != RT_TL_NONE && pest == RT_TL_NONE) {
			tx(&t, ". ");
			ep_words(b, k->src_ep, &t);
			tx(&t, "'s rdma_cm never reported ESTABLISHED for that connection%s, so a program waiting for that "
			       "event does not see the connection it accepted",
			   redrop != RT_TL_NONE ? "" : " (its REP reached the capture once: a CM that resends it when no RTU "
						       "comes lets the active side answer again)");
		}
		if (redrop != RT_TL_NONE) {
			tx(&t, ". ");
			ep_words(b, k->src_ep, &t);
			tx(&t, " sent a CM message again %.3f s after the REP (before any DREQ: its REP again, when no RTU "
			       "came), which its engine dropped too (injected loss)",
			   (double)(item_t(c, redrop) - t_rep) / 1e9);
		}
		if (waited != RT_TL_NONE) {
			tx(&t, ". ");
			ep_words(b, k->src_ep, &t);
			tx(&t, "'s rdma_accept, waiting for that RTU, failed with %s %.3f s after the REP",
			   rt_errno_name(tl_ev(b, waited)->ev.u.cm.status), (double)(item_t(c, waited) - t_rep) / 1e9);
		}
		tx(&t, ".");
		tx(&e, "REP frame %u, the active side's ESTABLISHED at %.6f s", k->frame, (double)t_est / 1e9);
		if (drop != RT_TL_NONE)
			tx(&e, ", its engine's dropped CM message at %.6f s", (double)item_t(c, drop) / 1e9);
		if (accept != RT_TL_NONE)
			tx(&e, ", rdma_accept at %.6f s%s", (double)item_t(c, accept) / 1e9,
			   pest == RT_TL_NONE ? " and no ESTABLISHED after it" : "");
		if (redrop != RT_TL_NONE)
			tx(&e, ", the passive side's dropped CM message at %.6f s", (double)item_t(c, redrop) / 1e9);
		if (waited != RT_TL_NONE)
			tx(&e, ", rdma_accept failed at %.6f s", (double)item_t(c, waited) / 1e9);
		long f = finding(b, RT_TLFK_CM_LOST, RT_TLS_WARNING, t_est, b->ev_qp[est], 0, 0, &t, &e);
		if (f < 0)
			return -ENOMEM;
		tl_finding_evidence(b, FI(b, f), tl_item_pk(b, g->first));
		tl_finding_evidence(b, FI(b, f), est);
		tl_finding_evidence(b, FI(b, f), drop);
		tl_finding_evidence(b, FI(b, f), accept);
		tl_finding_evidence(b, FI(b, f), redrop);
		tl_finding_evidence(b, FI(b, f), waited);
	}
	return 0;
}

static int cm_retries(struct dctx *c)
{
	struct tl_build *b = c->b;
	if (!b->cm_info.n)
		return 0;
	struct cm_retry_ctx r = {.calls = NULL};
	tl_vec_init(&r.copies, sizeof(struct cm_copies));
	int rc = tl_hash_init(&r.groups, 16);
	if (!rc && (rc = tl_hash_init(&r.reqs, 16)) < 0)
		tl_hash_free(&r.groups);
	if (!rc && (rc = tl_hash_init(&r.by_qp, 16)) < 0) {
		tl_hash_free(&r.groups);
		tl_hash_free(&r.reqs);
	}
	if (rc < 0)
		return rc;
	rc = cm_group_copies(b, &r);
	if (!rc)
		rc = cm_calls_collect(c, &r);
	for (size_t gi = 0; gi < r.copies.n && !rc; gi++)
		rc = cm_retry_finding(c, &r, TL_AT(&r.copies, struct cm_copies, gi));
	if (!rc && b->have_capture && !b->unreadable_mads) /* a missing message may be one it could not read */
		rc = cm_unsent(c, &r, c->cap_end);
	if (!rc && b->have_capture && !b->unreadable_mads)
		rc = rtu_unseen(c, &r);
	tl_hash_free(&r.groups);
	tl_hash_free(&r.reqs);
	tl_hash_free(&r.by_qp);
	tl_vec_free(&r.copies);
	free(r.calls);
	free(r.last_from);
	return rc;
}

/* Retries seen only in engine events (no capture). */
/* ---- loss on UC and UD: nothing retransmits ---- */

struct uloss {
	uint32_t count;           /* packets lost */
	uint32_t first_item;      /* earliest evidence item */
	uint32_t first_psn;
	uint32_t nev;
	uint32_t ev[32];          /* evidence items (the first ones) */
	uint32_t bad_icrc;        /* of count: dropped by the receiver for a bad ICRC */
	uint32_t busy;            /* of count: dropped by the receiver, its engine busy (RT_PKT_DROP_BUSY) */
	uint8_t transport;        /* RT_TRANSPORT_UC / _UD */
	/* wire streams: */
	uint32_t last_psn, src_ep, dst_ep, dqpn;
	uint64_t max_u;           /* the highest PSN seen, unwrapped */
	uint32_t late;            /* of count: UC packets that came after later PSNs */
};

/* A UC or UD packet on a wire stream (unreliable_loss): its stream, its PSN
 * unwrapped against the stream's highest so far, its packet item. */
struct wire_seen {
	uint64_t u;
	uint32_t stream, item, psn;
	uint8_t opcode;
	bool late;                /* a UC MIDDLE or LAST that came after later PSNs: its message is dropped */
};

static int wire_seen_cmp(const void *a, const void *b)
{
	const struct wire_seen *x = a, *y = b;
	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	if (x->u != y->u)
		return x->u < y->u ? -1 : 1;
	return x->item < y->item ? -1 : x->item > y->item;
}

static bool unreliable_data(uint8_t opcode, uint32_t dqpn)
{
	unsigned tr = rt_opcode_transport(opcode);
	return (tr == RT_TRANSPORT_UC || tr == RT_TRANSPORT_UD) && dqpn != 1;
}

static void uloss_add(struct uloss *l, uint32_t item, uint32_t psn, uint32_t n, uint8_t opcode)
{
	if (!l->count) {
		l->first_item = item;
		l->first_psn = psn;
		l->transport = (uint8_t)rt_opcode_transport(opcode);
	}
	l->count += n;
	if (l->nev < sizeof(l->ev) / sizeof(l->ev[0]))
		l->ev[l->nev++] = item;
}

/* The PSNs of a UC or UD stream that never passed the capture point (seen
 * sorted by stream and PSN): a packet that came after later PSNs
 * (reordered on the way) is no such hole.  A UD receiver takes datagrams
 * in any order, so only the holes are lost; a UC receiver takes a late
 * FIRST or ONLY as a new message, and drops the message of a late MIDDLE
 * or LAST (those are counted apart: uloss.late). */
static void wire_holes(struct tl_vec *streams, struct wire_seen *seen, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct wire_seen *p = i ? &seen[i - 1] : NULL, *x = &seen[i];
		struct uloss *S = TL_AT(streams, struct uloss, x->stream);
		if (p && x->stream == p->stream && x->u > p->u + 1)
			uloss_add(S, x->item, rt_psn_add(p->psn, 1), (uint32_t)(x->u - p->u - 1), x->opcode);
		if (x->late) {
			uloss_add(S, x->item, x->psn, 1, x->opcode);
			S->late++;
		}
	}
}

/* Who saw a UC/UD loss: the sending engine (its own drops), the receiving
 * engine (packets it dropped on arrival) or the wire (a PSN gap). */
enum uloss_witness { ULOSS_SENDER, ULOSS_RECEIVER, ULOSS_WIRE };

static int uloss_finding(struct dctx *c, const struct uloss *l, uint32_t q, enum uloss_witness by)
{
	struct tl_build *b = c->b;
	bool ud = l->transport == RT_TRANSPORT_UD, one = l->count == 1;
	struct text t = {.n = 0}, e = {.n = 0};
	if (by == ULOSS_SENDER) {
		qp_name(b, q, &t);
		tx(&t, " (%s) lost %u packet%s, the first PSN 0x%06x: its engine dropped %s (injected loss). ", ud ? "UD" : "UC",
		   l->count, one ? "" : "s", l->first_psn, one ? "it" : "them");
		tx(&e, "the engine's packet events (dropped=1), first at PSN 0x%06x", l->first_psn);
	} else if (by == ULOSS_RECEIVER) {
		tx(&t, "%u %s packet%s sent to ", l->count, ud ? "UD" : "UC", one ? "" : "s");
		qp_name(b, q, &t);
		tx(&t, " never reached it, the first PSN 0x%06x: its engine dropped %s on arrival", l->first_psn,
		   one ? "it" : "them");
		uint32_t injected = l->count - l->bad_icrc - l->busy;
		if (l->bad_icrc == l->count)
			tx(&t, " for a bad ICRC (corruption on the link or a broken sender). ");
		else if (l->busy == l->count)
			tx(&t, " while %s. ", DROP_BUSY_WORDS);
		else if (l->bad_icrc || l->busy) {
			const char *sep = ": ";
			if (l->bad_icrc)
				tx(&t, "%s%u for a bad ICRC (corruption on the link or a broken sender)", sep, l->bad_icrc), sep = ", ";
			if (l->busy)
				tx(&t, "%s%u while %s", sep, l->busy, DROP_BUSY_WORDS), sep = ", ";
			if (injected)
				tx(&t, "%s%u injected loss", sep, injected);
			tx(&t, ". ");
		}
		else
			tx(&t, " (injected loss). ");
		tx(&e, "the receiving engine's packet events (dropped=1), first at PSN 0x%06x", l->first_psn);
	} else {
		tx(&t, "%s packets from ", ud ? "UD" : "UC");
		ep_words(b, l->src_ep, &t);
		tx(&t, " to QP 0x%06x on ", l->dqpn);
		ep_words(b, l->dst_ep, &t);
		if (l->late == l->count)
			tx(&t, ": %u lost, the first PSN 0x%06x: %s after later PSNs (reordered on the way), and a UC "
			       "receiver drops the message of a middle or last packet that comes out of sequence, as it "
			       "does that of a lost one. ", l->count, l->first_psn, one ? "it came" : "they came");
		else if (l->late)
			tx(&t, ": %u lost, the first PSN 0x%06x (%u never passed the capture point, a PSN gap on the wire, "
			       "unless the capture missed them; %u, middle or last packets of their messages, came after later "
			       "PSNs, reordered on the way, which a UC receiver drops too). ", l->count, l->first_psn,
			   l->count - l->late, l->late);
		else
			tx(&t, ": %u lost, the first PSN 0x%06x (a PSN gap on the wire, unless the capture missed %s). ", l->count,
			   l->first_psn, one ? "it" : "them");
		tx(&e, "PSN gap before frame %u", tl_pk(b, l->first_item - tl_nev(b))->frame);
	}
	tx(&t, "%s", ud ? "UD does not retransmit: a lost datagram never reaches the receiver, nothing reports it to either side and the sender's completion says success."
		       : "UC does not retransmit: the receiver silently drops every message a lost packet belonged to, while the sender's completions say success.");
	long f = finding(b, RT_TLFK_UNRELIABLE_LOSS, RT_TLS_WARNING, item_t(c, l->first_item), q, 0, 0, &t, &e);
	if (f < 0)
		return -ENOMEM;
	for (uint32_t j = 0; j < l->nev; j++)
		tl_finding_evidence(b, FI(b, f), l->ev[j]);
	return 0;
}

/* UC and UD have no ACKs and no retransmission: a lost packet is a datagram
 * the receiver never gets (UD) or a message the receiver drops whole (UC),
 * while the sender's completion says success.  The engine's trace names
 * the packets it dropped exactly (one finding per sending QP); without an
 * engine, a PSN gap in a UC/UD stream on the wire shows the loss (one
 * finding per stream: source address, destination address and QP). */
static int unreliable_loss(struct dctx *c)
{
	struct tl_build *b = c->b;
	size_t nq = b->qps.n, nev = tl_nev(b), npk = tl_npk(b);
	struct uloss *L = calloc(2 * (nq + 1), sizeof(*L)); /* per sending QP; [nq]: unknown */
	struct uloss *R = L ? L + nq + 1 : NULL;             /* per receiving QP */
	struct tl_vec streams, seen;
	struct tl_hash idx;
	tl_vec_init(&streams, sizeof(struct uloss));
	tl_vec_init(&seen, sizeof(struct wire_seen));
	if (!L || tl_hash_init(&idx, 64) < 0) {
		free(L);
		return -ENOMEM;
	}
	for (size_t x = 0; x < b->drops.n; x++) {
		size_t i = *TL_AT(&b->drops, uint32_t, x);
		const struct rt_event *ev = &tl_ev(b, i)->ev;
		if (ev->qpn == 1 ||
		    !unreliable_data(ev->u.pkt.opcode, ev->u.pkt.dest_qpn))
			continue;
		/* dropped by its sender's engine, or on arrival by its receiver's */
		struct uloss *l = &((ev->flags & RT_EVF_TX) ? L : R)[b->ev_qp[i] != RT_TL_NONE ? b->ev_qp[i] : nq];
		uloss_add(l, (uint32_t)i, ev->u.pkt.psn, 1, ev->u.pkt.opcode);
		if (!(ev->flags & RT_EVF_TX) && ev->u.pkt.drop_reason == RT_PKT_DROP_BAD_ICRC)
			l->bad_icrc++;
		if (!(ev->flags & RT_EVF_TX) && ev->u.pkt.drop_reason == RT_PKT_DROP_BUSY)
			l->busy++;
	}
	int rc = 0;
	/* an engine knows its drops exactly; the wire is the witness otherwise */
	for (size_t i = 0; i < npk && b->unreliable_pkts && !b->engine_packets && !rc; i++) {
		const struct tl_pk *k = tl_pk(b, i);
		if (k->is_cm || k->damaged || !unreliable_data(k->opcode, k->dqpn))
			continue;
		/* a stream: source address (and UD source QP) to destination address and QP */
		uint64_t key = tl_hash_mix(((uint64_t)k->src_ep << 32) | k->dst_ep) ^ (((uint64_t)k->src_qp << 24) | k->dqpn);
		if (key == UINT64_MAX)
			key = 0;
		uint32_t *v = tl_hash_get(&idx, key), sidx = v ? *v : (uint32_t)streams.n;
		if (!v) {
			struct uloss *n = tl_vec_push(&streams);
			if (!n || tl_hash_put(&idx, key, sidx) < 0) {
				rc = -ENOMEM;
				break;
			}
			n->last_psn = k->psn;
			n->max_u = 1ull << 40; /* (a start that PSNs before it cannot take below 0) */
			n->src_ep = k->src_ep;
			n->dst_ep = k->dst_ep;
			n->dqpn = k->dqpn;
		}
		struct uloss *S = TL_AT(&streams, struct uloss, sidx);
		int32_t d = rt_psn_diff(k->psn, S->last_psn);
		/* (its holes are counted once every packet is in: wire_holes) */
		struct wire_seen *x = tl_vec_push(&seen);
		if (!x) {
			rc = -ENOMEM;
			break;
		}
		*x = (struct wire_seen){.u = S->max_u + (uint64_t)(int64_t)d, .stream = sidx, .item = tl_item_pk(b, i),
					.psn = k->psn, .opcode = k->opcode};
		/* a UC receiver takes a late FIRST or ONLY as a new message, but drops the
		 * message of a late MIDDLE or LAST */
		x->late = d < 0 && k->late && !k->wire_copy && rt_opcode_transport(k->opcode) == RT_TRANSPORT_UC &&
			  (k->position == RT_POS_MIDDLE || k->position == RT_POS_LAST);
		if (d > 0) {
			S->last_psn = k->psn;
			S->max_u += (uint64_t)d;
		}
	}
	if (!rc && seen.n) {
		qsort(seen.p, seen.n, sizeof(struct wire_seen), wire_seen_cmp);
		wire_holes(&streams, seen.p, seen.n);
	}
	for (size_t q = 0; q <= nq && !rc; q++) {
		if (L[q].count)
			rc = uloss_finding(c, &L[q], q < nq ? (uint32_t)q : RT_TL_NONE, ULOSS_SENDER);
		if (!rc && R[q].count)
			rc = uloss_finding(c, &R[q], q < nq ? (uint32_t)q : RT_TL_NONE, ULOSS_RECEIVER);
	}
	for (size_t i = 0; i < streams.n && !rc; i++) {
		struct uloss *S = TL_AT(&streams, struct uloss, i);
		if (S->count) {
			const struct tl_pk *k = tl_pk(b, S->first_item - nev);
			rc = uloss_finding(c, S, k->recv_qp, ULOSS_WIRE);
		}
	}
	tl_hash_free(&idx);
	tl_vec_free(&streams);
	tl_vec_free(&seen);
	free(L);
	return rc;
}

/* Host h's clock alignment, when its causal bounds hold (not a host whose
 * constraints contradicted each other with no drift to explain them); NULL
 * otherwise. */
static const struct rt_tl_host *bounded_host(struct tl_build *b, uint16_t h)
{
	const struct rt_tl_host *H = h < b->hosts.n ? tl_host(b, h) : NULL;
	return H && !((H->flags & RT_TLH_INCONSISTENT) && !(H->flags & RT_TLH_DRIFT)) ? H : NULL;
}

/* The earliest capture time raw time `raw` of host h can have been: its
 * aligned time less what the clock alignment leaves uncertain below it
 * (0: nothing bounds it from below). */
static uint64_t earliest_t(struct tl_build *b, uint16_t h, uint64_t raw)
{
	if (h == b->capture_host)
		return raw;
	const struct rt_tl_host *H = bounded_host(b, h);
	if (!H || H->offset_lo_ns == INT64_MIN)
		return 0;
	uint64_t t = tl_align(H, raw);
	int64_t below = H->offset_ns - H->offset_lo_ns;
	if (below < 0)
		below = 0;
	return t > (uint64_t)below ? t - (uint64_t)below : 0;
}

/* The latest capture time raw time `raw` of host h can have been: its
 * aligned time plus what the clock alignment leaves uncertain above it
 * (UINT64_MAX: nothing bounds it from above). */
static uint64_t latest_t(struct tl_build *b, uint16_t h, uint64_t raw)
{
	if (h == b->capture_host)
		return raw;
	const struct rt_tl_host *H = bounded_host(b, h);
	if (!H || H->offset_hi_ns == INT64_MAX)
		return UINT64_MAX;
	int64_t above = H->offset_hi_ns - H->offset_ns;
	return tl_align(H, raw) + (uint64_t)(above > 0 ? above : 0);
}

/* The messages at either end of a traced UC/UD sender's stream that never
 * reached the capture whole.  No packet on the far side of them shows a PSN
 * gap (unreliable_loss() above), yet the peer never gets them, and a program
 * that waits for one waits forever (ibv_ud_pingpong, ibv_uc_pingpong under
 * loss; ib_send_bw -c UC whose first packet was lost):
 *   the tail: send WRs that completed successfully after the QP's last
 *   message the capture holds whole, with none of their packets in it, or
 *   (UC) without their message's first or last packet;
 *   the head: send WRs before the QP's first packet in the capture, posted
 *   while the capture ran, with none of their packets in it, and the WR of
 *   that first packet when it lacks its message's first packet;
 *   all of them: a QP none of whose packets is in the capture, its send WRs
 *   that completed successfully, each posted after the capture's first frame
 *   and completed before its last (beyond what the clock alignment leaves
 *   uncertain), when the capture holds a packet its host sent to the host
 *   of the QP's peer, or, the peer not known, to any host (ibv_ud_pingpong
 *   or a SIDR-resolved UD client whose only datagram was lost: the capture
 *   holds its CM messages and nothing else of it).
 * Needs the capture to see that QP: a message of it came whole, the WR's
 * own packets are there, or (all of them) the capture holds its host's
 * packets on the way. */
struct end_loss {
	uint32_t first, last, n;  /* send WRs (events) that did not come whole, successfully completed */
};
struct tail_loss {
	uint32_t last_seen;       /* the latest send WR (event) whose message the capture holds whole */
	uint32_t first_pk;        /* the earliest send WR with a packet in the capture */
	struct end_loss tail, head, all;
	uint32_t path_pk;         /* all: the captured packet its host sent on the way (packet index) */
};
enum end_part { END_HEAD, END_TAIL, END_ALL };

static bool unreliable_qp(struct tl_build *b, uint32_t q)
{
	const struct rt_tl_qp *Q = q < b->qps.n ? tl_qp(b, q) : NULL;
	return Q && (Q->flags & RT_TLQ_TRACED) && (Q->qp_type == 3 || Q->qp_type == 4); /* UC, UD */
}

static void end_loss_add(struct end_loss *g, uint32_t i)
{
	if (!g->n++)
		g->first = i;
	g->last = i;
}

/* Per send WR, which ends of its message the capture holds (a missing
 * middle packet shows as a PSN gap to unreliable_loss()). */
enum { HAS_PACKET = 1, HAS_FIRST = 2, HAS_LAST = 4 };

static int end_loss_finding(struct dctx *c, uint32_t q, const struct tail_loss *l, enum end_part part,
			    const uint8_t *ends, uint64_t t_end)
{
	struct tl_build *b = c->b;
	size_t nev = tl_nev(b);
	bool head = part == END_HEAD;
	const struct end_loss *g = part == END_ALL ? &l->all : head ? &l->head : &l->tail;
	bool ud = tl_qp(b, q)->qp_type == 4;
	const struct rt_ev_wr *w = &tl_ev(b, g->first)->ev.u.wr;
	uint32_t ref = part == END_ALL ? RT_TL_NONE : head ? l->first_pk : l->last_seen;
	uint32_t seen_pk = ref == RT_TL_NONE ? RT_TL_NONE : first_link(c, ref, RT_TLL_PACKET);
	uint32_t seen_frame = seen_pk != RT_TL_NONE && seen_pk >= nev ? tl_pk(b, seen_pk - nev)->frame : 0;
	/* the WR of a UC message without its first or last packet */
	uint32_t cut = head ? g->last : g->first;
	bool partly = ends[cut] & HAS_PACKET;
	struct text t = {.n = 0}, e = {.n = 0};
	tx(&t, ud ? "UD datagrams lost before the capture point: " : "UC messages lost before the capture point: ");
	qp_name(b, q, &t);
	tx(&t, " completed %u send WR%s (%swr_id %" PRIu64 ", PSN 0x%06x)", g->n, g->n == 1 ? "" : "s",
	   g->n == 1 ? "" : "the first ", w->wr_id, w->first_psn);
	if (seen_frame && head)
		tx(&t, partly && g->n == 1 ? " whose later packets begin its stream in the capture (frame %u)"
					    : " before its first packet in the capture (frame %u)", seen_frame);
	else if (seen_frame)
		tx(&t, " after its last %s in the capture (frame %u)", ud ? "datagram" : "whole message", seen_frame);
	if (part == END_ALL) {
		const struct tl_pk *k = tl_pk(b, l->path_pk);
		tx(&t, ", and none of %s packets reached the capture, although the capture ran from before %s posted to "
		       "after %s completed, and holds what ", g->n == 1 ? "its" : "their", g->n == 1 ? "it was" : "they were",
		   g->n == 1 ? "it" : "they");
		tx(&t, "%s sent to ", host_name(b, tl_qp(b, q)->host));
		ep_words(b, k->dst_ep, &t);
		tx(&t, " (frame %u, %s). ", k->frame, k->is_cm ? "a CM message" : "a RoCE packet");
	} else if (partly && g->n > 1)
		tx(&t, ", and none of the packets of all but the %s reached the capture, while the capture lacks the %s "
		       "packet of its message. ", head ? "last" : "first", head || !(ends[cut] & HAS_FIRST) ? "first" : "last");
	else
		tx(&t, ", and %s. ", partly ? (ends[cut] & HAS_FIRST ? "the capture lacks the last packet of its message"
								 : "the capture lacks the first packet of its message")
			      : g->n == 1 ? "none of its packets reached the capture" : "none of their packets reached the capture");
	if (part == END_ALL) {
		/* the capture's span is the condition: nothing more to say */
	} else if (head) {
		tx(&t, "The stream went on after %s, so no PSN gap shows %s. ", g->n == 1 ? "it" : "them",
		   g->n == 1 ? "it" : "them");
	} else {
		uint64_t t_cp = item_t(c, first_link(c, g->last, RT_TLL_COMPLETION));
		if (t_cp >= t_end)
			tx(&t, "The capture's last packet is %.3f ms before %s completion: the capture may have stopped by "
			       "then; if it had not, %s lost before it. ",
			   ms(t_cp - t_end), g->n == 1 ? "that" : "the last", g->n == 1 ? "it was" : "they were");
	}
	tx(&t, "%s does not resend a lost %s and nothing tells either side: the sender's completion says success, "
	       "and a program that waits for %s waits forever.", ud ? "UD" : "UC", ud ? "datagram" : "message",
	   head ? "it" : part == END_ALL ? "it, or for an answer to it," : "an answer to it");
	if (g->n == 1)
		tx(&e, "send WR wr_id %" PRIu64, w->wr_id);
	else
		tx(&e, "send WRs wr_id %" PRIu64 " to %" PRIu64, w->wr_id, tl_ev(b, g->last)->ev.u.wr.wr_id);
	if (seen_frame)
		tx(&e, head ? ", first captured frame %u" : ", last captured frame %u", seen_frame);
	if (part == END_ALL)
		tx(&e, ", frame %u on the way from its host", tl_pk(b, l->path_pk)->frame);
	long f = finding(b, RT_TLFK_UNRELIABLE_LOSS, RT_TLS_WARNING, item_t(c, g->first), q, 0, 0, &t, &e);
	if (f < 0)
		return -ENOMEM;
	tl_finding_evidence(b, FI(b, f), g->first);
	if (g->last != g->first)
		tl_finding_evidence(b, FI(b, f), g->last);
	return 0;
}

/* When the capture stopped, aligned: its latest frame of any kind (0
 * unknown). */
static uint64_t capture_stop(struct tl_build *b)
{
	uint64_t t = b->capture_last_ns;
	return t && b->capture_host != UINT16_MAX ? tl_align(tl_host(b, b->capture_host), t) : t;
}

/* For each traced UC/UD QP the capture holds no packet of, with the QP's
 * host known: the first captured packet its host sent to its peer's host
 * (the peer not known: to any host), L[q].path_pk.  None when the capture
 * holds nothing but CM messages (one cut to them shows no QP's traffic),
 * nor for a host another QP of which completed a send whose packets the
 * capture does not hold (a capture on another interface, or filtered). */
static int host_paths(struct dctx *c, struct tail_loss *L)
{
	struct tl_build *b = c->b;
	size_t nh = b->hosts.n, nq = b->qps.n, npk = tl_npk(b), nev = tl_nev(b);
	if (!nh || nh > 1024)
		return 0;
	bool cm_only = !b->nonroce_frames;
	for (size_t i = 0; i < npk && cm_only; i++)
		cm_only = tl_pk(b, i)->is_cm;
	if (cm_only)
		return 0;
	/* first packet per (source host, destination host), the last column any destination */
	uint32_t *pair = malloc(nh * (nh + 1) * sizeof(*pair));
	if (!pair)
		return -ENOMEM;
	for (size_t i = 0; i < nh * (nh + 1); i++)
		pair[i] = RT_TL_NONE;
	for (size_t i = 0; i < npk; i++) {
		const struct tl_pk *k = tl_pk(b, i);
		const struct tl_ep *s = k->src_ep < b->eps.n ? TL_AT(&b->eps, struct tl_ep, k->src_ep) : NULL;
		const struct tl_ep *d = k->dst_ep < b->eps.n ? TL_AT(&b->eps, struct tl_ep, k->dst_ep) : NULL;
		if (!s || s->host >= nh)
			continue;
		uint32_t *row = &pair[s->host * (nh + 1)];
		if (row[nh] == RT_TL_NONE)
			row[nh] = (uint32_t)i;
		if (d && d->host < nh && row[d->host] == RT_TL_NONE)
			row[d->host] = (uint32_t)i;
	}
	for (size_t q = 0; q < nq; q++) {
		const struct rt_tl_qp *Q = tl_qp(b, q);
		if (!unreliable_qp(b, (uint32_t)q) || Q->host >= nh)
			continue;
		uint32_t peer_host = Q->peer < nq ? tl_qp(b, Q->peer)->host : UINT16_MAX;
		if (Q->peer < nq && peer_host >= nh)
			continue; /* a peer on a host of its own not known: where it sent is not known */
		L[q].path_pk = pair[Q->host * (nh + 1) + (peer_host < nh ? peer_host : nh)];
	}
	free(pair);
	bool any = false;
	for (size_t q = 0; q < nq && !any; q++)
		any = L[q].path_pk != RT_TL_NONE;
	for (size_t i = 0; i < nev && any; i++) {
		const struct tl_evrec *e = tl_ev(b, i);
		uint32_t o = b->ev_qp[i];
		if (e->ev.kind != RT_EV_COMPLETION || e->ev.u.wc.status != 0 || e->ev.u.wc.opcode >= 128 || o >= nq ||
		    !qp_uncaptured(c, o))
			continue; /* a successful send completion of a QP the capture holds nothing of */
		for (size_t q = 0; q < nq; q++)
			if (q != o && L[q].path_pk != RT_TL_NONE && tl_qp(b, q)->host == tl_qp(b, o)->host)
				L[q].path_pk = RT_TL_NONE;
	}
	/* a UC/UD packet from that host the linking tied to no WR may be one of
	 * the QP's (its PSN not the predicted one): then nothing is told */
	for (size_t i = 0; i < npk; i++) {
		const struct tl_pk *k = tl_pk(b, i);
		const struct tl_ep *s = k->src_ep < b->eps.n ? TL_AT(&b->eps, struct tl_ep, k->src_ep) : NULL;
		if (k->wr < tl_nev(b) || !s || s->host >= nh || !unreliable_data(k->opcode, k->dqpn))
			continue;
		bool ud = rt_opcode_transport(k->opcode) == RT_TRANSPORT_UD;
		for (size_t q = 0; q < nq; q++) {
			const struct rt_tl_qp *Q = tl_qp(b, q);
			if (L[q].path_pk == RT_TL_NONE || Q->host != s->host || Q->qp_type != (ud ? 4 : 3))
				continue;
			if (ud ? k->src_qp == Q->qpn : !Q->peer_qpn || k->dqpn == Q->peer_qpn)
				L[q].path_pk = RT_TL_NONE;
		}
	}
	return 0;
}

static int unreliable_tail_loss(struct dctx *c)
{
	struct tl_build *b = c->b;
	size_t nq = b->qps.n, nev = tl_nev(b), npk = tl_npk(b);
	if (!b->have_capture || !npk || b->engine_packets)
		return 0; /* an engine's packet events name its drops exactly (unreliable_loss()) */
	bool any = false;
	for (size_t q = 0; q < nq && !any; q++)
		any = unreliable_qp(b, (uint32_t)q);
	if (!any)
		return 0; /* no traced UC/UD QP: nothing to scan the events and packets for */
	struct tail_loss *L = calloc(nq + 1, sizeof(*L));
	uint8_t *ends = calloc(nev + 1, 1);
	if (!L || !ends) {
		free(L);
		free(ends);
		return -ENOMEM;
	}
	for (size_t i = 0; i < npk; i++) {
		const struct tl_pk *k = tl_pk(b, i);
		if (k->wr >= nev || !unreliable_qp(b, k->send_qp))
			continue;
		ends[k->wr] |= HAS_PACKET;
		if (k->position == RT_POS_FIRST || k->position == RT_POS_ONLY)
			ends[k->wr] |= HAS_FIRST;
		if (k->position == RT_POS_LAST || k->position == RT_POS_ONLY)
			ends[k->wr] |= HAS_LAST;
	}
	for (size_t q = 0; q < nq; q++)
		L[q].last_seen = L[q].first_pk = L[q].path_pk = RT_TL_NONE;
	uint64_t t_start = capture_start(b), t_stop = capture_stop(b);
	if (host_paths(c, L) < 0) {
		free(ends);
		free(L);
		return -ENOMEM;
	}
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < nev; i++) {
			const struct tl_evrec *e = tl_ev(b, i);
			uint32_t q = b->ev_qp[i];
			const struct rt_ev_wr *w = &e->ev.u.wr;
			if (b->ev_shadow[i] || e->ev.kind != RT_EV_WR_POST || w->queue != RT_WRQ_SEND ||
			    (w->flags & RT_WRF_POST_FAILED) || !(w->flags & RT_WRF_PSN_VALID) || !unreliable_qp(b, q))
				continue;
			bool seen = (ends[i] & (HAS_FIRST | HAS_LAST)) == (HAS_FIRST | HAS_LAST);
			bool partly = ends[i] & HAS_PACKET;
			if (pass == 0) {
				if (seen)
					L[q].last_seen = (uint32_t)i;
				if (partly && L[q].first_pk == RT_TL_NONE)
					L[q].first_pk = (uint32_t)i;
				continue;
			}
			if (seen || (L[q].first_pk == RT_TL_NONE && L[q].path_pk == RT_TL_NONE))
				continue; /* came whole, or the capture does not see this QP */
			uint32_t cp = first_link(c, (uint32_t)i, RT_TLL_COMPLETION);
			if (cp >= nev || tl_ev(b, cp)->ev.kind != RT_EV_COMPLETION || tl_ev(b, cp)->ev.u.wc.status != 0)
				continue; /* not known to have left */
			if (L[q].first_pk == RT_TL_NONE) {
				uint64_t posted = earliest_t(b, e->host, e->raw_ns);
				uint64_t done = latest_t(b, tl_ev(b, cp)->host, tl_ev(b, cp)->raw_ns);
				if (t_start && posted >= t_start && done <= t_stop)
					end_loss_add(&L[q].all, (uint32_t)i);
				continue;
			}
			/* after the last whole message (or, with none, from the first
			 * packet on: a WR before it without packets is the head's) */
			if (L[q].last_seen != RT_TL_NONE ? i > L[q].last_seen : partly) {
				end_loss_add(&L[q].tail, (uint32_t)i);
				continue;
			}
			bool before = i < L[q].first_pk || (i == L[q].first_pk && !(ends[i] & HAS_FIRST));
			if (before && t_start && item_t(c, (uint32_t)i) >= t_start)
				end_loss_add(&L[q].head, (uint32_t)i);
		}
	uint64_t t_end = c->cap_end;
	int rc = 0;
	for (size_t q = 0; q < nq && !rc; q++) {
		if (L[q].head.n)
			rc = end_loss_finding(c, (uint32_t)q, &L[q], END_HEAD, ends, t_end);
		if (L[q].tail.n && !rc)
			rc = end_loss_finding(c, (uint32_t)q, &L[q], END_TAIL, ends, t_end);
		if (L[q].all.n && !rc)
			rc = end_loss_finding(c, (uint32_t)q, &L[q], END_ALL, ends, t_end);
	}
	free(ends);
	free(L);
	return rc;
}

/* UD datagrams and UC messages a traced receiver dropped: the capture saw
 * more of them arrive whole on their way to its QP than it completed
 * receives by a time it can be shown to have completed no more.  Two
 * witnesses give such a time:
 *   its last successful receive completion: the messages captured before
 *   the earliest it can have been were each taken before it (the receiver
 *   takes them in order, and polls their completions in order) or never;
 *   those after it are not counted (the program may have stopped polling);
 *   its device's count of receive completions (rxe's rdma_recvs,
 *   tl_recv_counter.c), read in a sample or when the program exited: the
 *   messages captured some time (TL_RECV_COUNTER_MARGIN_NS) before the
 *   earliest the reading can have been had reached the device by then, and
 *   the device completed no more receives than it counted, on any of its
 *   QPs.
 * Which messages were dropped is not known (the receives pair with them in
 * order), only how many.  Needs a lower bound on the receiver's clock offset
 * against the capture's.
 *   UD: each datagram; dropped silently when no receive WR is free for it.
 *   UC: each message whose every packet was captured (FIRST .. LAST in PSN
 *   order, or ONLY) and that consumes a receive (SEND, WRITE with
 *   immediate).  A message whose first packet arrived but whose end was
 *   lost leaves the receiver expecting its rest: SoftRoCE (rxe) then refuses
 *   the next message's first packet, and drops that message too although it
 *   arrived whole; such messages are counted (after_broken). */
#define TL_RECV_COUNTER_MARGIN_NS 100000000ull

struct recv_drops {
	uint32_t last;            /* its last successful receive completion (event), RT_TL_NONE */
	uint32_t ncomp;           /* its successful receive completions */
	uint64_t cutoff;          /* the earliest the last one can have been, capture time; 0 unknown */
	uint64_t first_post_raw;  /* its first receive post, raw time; UINT64_MAX none */
	uint32_t gone;            /* its first destroy or move to RESET or ERROR (event), RT_TL_NONE */
	struct tl_uc_reasm uc;    /* UC messages, in capture order */
	uint32_t first;           /* the first datagram / whole message (its first packet), RT_TL_NONE */
	struct tl_vec seen;       /* struct recv_seen: datagrams / whole messages captured to it, in capture order */
};

/* The n-th datagram or whole message captured to a receiver. */
struct recv_seen {
	uint64_t t;               /* the latest capture time up to it (so the times never go back) */
	uint32_t broken;          /* how many up to it came right after one whose end was lost */
};

/* What one witness shows: seen messages before its time, received by then. */
struct recv_witness {
	uint32_t seen, received, after_broken;
	uint32_t counter;         /* the counter record or end record (event); RT_TL_NONE: the completions */
	bool at_exit;
};

static int recv_drops_add(struct recv_drops *r, uint64_t t, bool after_broken)
{
	size_t n = r->seen.n;
	/* a copy of the last one: the push below can move the array */
	struct recv_seen prev = n ? *TL_AT(&r->seen, struct recv_seen, n - 1) : (struct recv_seen){0};
	struct recv_seen *s = tl_vec_push(&r->seen);
	if (!s)
		return -ENOMEM;
	s->t = prev.t > t ? prev.t : t;
	s->broken = prev.broken + after_broken;
	return 0;
}

/* The messages captured before capture time t, and received by then. */
static struct recv_witness witness_at(const struct recv_drops *r, uint64_t t, uint32_t received)
{
	size_t lo = 0, hi = r->seen.n; /* the first with its time >= t */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (TL_AT(&r->seen, struct recv_seen, mid)->t < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (struct recv_witness){.seen = (uint32_t)lo, .received = received,
				     .after_broken = lo ? TL_AT(&r->seen, struct recv_seen, lo - 1)->broken : 0,
				     .counter = RT_TL_NONE};
}

static uint32_t witness_drops(const struct recv_witness *w)
{
	return w->seen > w->received ? w->seen - w->received : 0;
}

/* The witness that shows the most drops: the last completion's, or one of
 * the readings of the device counter (series: the QP's process's). */
static struct recv_witness best_witness(struct tl_build *b, const struct recv_drops *r,
					const struct tl_recv_series *series)
{
	struct recv_witness best = {.counter = RT_TL_NONE};
	if (r->cutoff)
		best = witness_at(r, r->cutoff, r->ncomp);
	/* the first reading must come before the QP's first receive could complete */
	if (!series || series->unusable || r->first_post_raw == UINT64_MAX || series->first_raw >= r->first_post_raw)
		return best;
	/* messages captured after the QP was destroyed or reset, or went to
	 * ERROR, were not dropped for want of a receive */
	uint64_t t_gone = r->gone != RT_TL_NONE ? earliest_t(b, tl_ev(b, r->gone)->host, tl_ev(b, r->gone)->raw_ns)
						: UINT64_MAX;
	for (size_t i = 0; i < series->points.n; i++) {
		const struct tl_recv_count *v = TL_AT(&series->points, struct tl_recv_count, i);
		const struct tl_evrec *e = tl_ev(b, v->ev);
		if (v->at_exit && e->raw_ns <= r->first_post_raw)
			continue; /* an exit before the QP's receives: nothing to count */
		uint64_t t = earliest_t(b, e->host, e->raw_ns);
		if (t > t_gone)
			t = t_gone;
		if (t <= TL_RECV_COUNTER_MARGIN_NS || v->completed > UINT32_MAX)
			continue;
		struct recv_witness w = witness_at(r, t - TL_RECV_COUNTER_MARGIN_NS, (uint32_t)v->completed);
		w.counter = v->ev;
		w.at_exit = v->at_exit;
		/* the exit's reading, when it shows as many: the program had waited that long */
		if (witness_drops(&w) > witness_drops(&best) || (w.at_exit && witness_drops(&w) == witness_drops(&best)))
			best = w;
	}
	return best;
}

static int recv_drops_finding(struct dctx *c, uint32_t q, const struct recv_drops *r, const struct recv_witness *w)
{
	struct tl_build *b = c->b;
	bool ud = tl_qp(b, q)->qp_type == 4;
	uint32_t dropped = witness_drops(w);
	struct text t = {.n = 0}, e = {.n = 0};
	tx(&t, "%s dropped at the receiver: ", ud ? "UD datagrams" : "UC messages");
	qp_name(b, q, &t);
	tx(&t, " completed %u receive%s, but the capture saw %u %s on their way to it ", r->ncomp,
	   r->ncomp == 1 ? "" : "s", w->seen, ud ? "datagrams" : "messages arrive whole (every packet)");
	if (w->counter == RT_TL_NONE)
		tx(&t, "before the last of them");
	else
		tx(&t, "more than 100 ms before its device's count of receive completions (rdma_recvs, on all its QPs) "
		       "stood at %u %s", w->received, w->at_exit ? "when the program exited" : "in a sample of it");
	tx(&t, ": %u %s never received. ", dropped, dropped == 1 ? "was" : "were");
	if (ud) {
		tx(&t, "UD drops a datagram silently when no receive WR is free for it (post receives ahead of the "
		       "traffic); nothing reports it to either side and the sender's completion says success.");
	} else if (w->after_broken >= dropped) {
		tx(&t, "Each came right after a message whose first packet arrived but whose end was lost: the "
		       "receiver, still expecting the rest of that message, refused the next one's first packet "
		       "(SoftRoCE, rxe, does so), so each such loss cost two messages. Nothing reports it to either "
		       "side, and the sender's completions say success.");
	} else {
		if (w->after_broken)
			tx(&t, "%u of the %u messages that came right after one whose end was lost may have been refused "
			       "for that (the receiver still expected the rest of that message). ",
			   w->after_broken, w->seen);
		tx(&t, "A UC receiver drops a message when no receive WR is free for it, or when it arrived damaged "
		       "past the capture point; nothing reports it to either side, and the sender's completions say "
		       "success.");
	}
	tx(&e, "%s from frame %u", ud ? "datagrams" : "messages", tl_pk(b, r->first)->frame);
	if (r->last != RT_TL_NONE)
		tx(&e, ", last receive completion wr_id %" PRIu64, tl_ev(b, r->last)->ev.u.wc.wr_id);
	if (w->counter != RT_TL_NONE)
		tx(&e, ", rdma_recvs %u since the program opened the device%s", w->received,
		   w->at_exit ? ", at its exit" : "");
	long f = finding(b, RT_TLFK_UNRELIABLE_LOSS, RT_TLS_WARNING, item_t(c, tl_item_pk(b, r->first)), q, 0, 0, &t,
			 &e);
	if (f < 0)
		return -ENOMEM;
	if (r->last != RT_TL_NONE)
		tl_finding_evidence(b, FI(b, f), r->last);
	if (w->counter != RT_TL_NONE)
		tl_finding_evidence(b, FI(b, f), w->counter);
	return 0;
}

static int receiver_drops(struct dctx *c)
{
	struct tl_build *b = c->b;
	size_t nq = b->qps.n, nev = tl_nev(b), npk = tl_npk(b);
	bool any = false;
	for (size_t q = 0; q < nq && !any; q++)
		any = unreliable_qp(b, (uint32_t)q);
	if (!any || !npk)
		return 0; /* no traced UC or UD QP, or no capture: nothing to scan the events and packets for */
	struct recv_drops *u = calloc(nq, sizeof(*u));
	if (!u)
		return -ENOMEM;
	for (size_t q = 0; q < nq; q++) {
		u[q].last = u[q].first = u[q].gone = RT_TL_NONE;
		u[q].first_post_raw = UINT64_MAX;
		tl_vec_init(&u[q].seen, sizeof(struct recv_seen));
	}
	for (size_t i = 0; i < nev; i++) {
		const struct tl_evrec *e = tl_ev(b, i);
		uint32_t q = b->ev_qp[i];
		if (b->ev_shadow[i] || q >= nq || !unreliable_qp(b, q))
			continue;
		if (e->ev.kind == RT_EV_WR_POST && e->ev.u.wr.queue == RT_WRQ_RECV && e->raw_ns < u[q].first_post_raw)
			u[q].first_post_raw = e->raw_ns;
		bool gone = (e->ev.kind == RT_EV_QP_CREATE && (e->ev.flags & RT_EVF_DESTROY)) ||
			    (e->ev.kind == RT_EV_QP_STATE && !(e->ev.flags & RT_EVF_ERROR) &&
			     (e->ev.u.qp_state.to_state == 0 || e->ev.u.qp_state.to_state == 6));
		if (gone && u[q].gone == RT_TL_NONE)
			u[q].gone = (uint32_t)i;
		if (e->ev.kind != RT_EV_COMPLETION || e->ev.u.wc.status != 0 ||
		    (e->ev.u.wc.opcode != TL_WC_RECV && e->ev.u.wc.opcode != TL_WC_RECV_RDMA_WITH_IMM))
			continue;
		u[q].ncomp++;
		u[q].last = (uint32_t)i;
	}
	/* the earliest the last completion can have been in the capture's time
	 * (a receiver's completions bound its clock from that side even when
	 * nothing bounds it from the other, as with one-way traffic) */
	for (size_t q = 0; q < nq; q++)
		if (u[q].last != RT_TL_NONE)
			u[q].cutoff = earliest_t(b, tl_ev(b, u[q].last)->host, tl_ev(b, u[q].last)->raw_ns);
	int rc = 0;
	for (size_t i = 0; !rc && i < npk; i++) {
		const struct tl_pk *k = tl_pk(b, i);
		uint32_t q = k->recv_qp;
		if (k->is_cm || q >= nq || u[q].first_post_raw == UINT64_MAX || k->damaged || k->icrc == RT_ICRC_BAD ||
		    !unreliable_qp(b, q))
			continue;
		uint32_t first = (uint32_t)i;
		bool after_broken = false;
		if (tl_qp(b, q)->qp_type == 4 ? rt_opcode_transport(k->opcode) != RT_TRANSPORT_UD
					      : !tl_uc_pk_to(b, k, q) ||
						!tl_uc_reasm_add(&u[q].uc, k, (uint32_t)i, &first, &after_broken))
			continue;
		if (u[q].first == RT_TL_NONE)
			u[q].first = first;
		rc = recv_drops_add(&u[q], item_t(c, tl_item_pk(b, (uint32_t)i)), after_broken);
	}
	/* the device counters' readings, per process: read once for all its QPs */
	size_t np = b->procs.n;
	struct tl_recv_series *series = NULL;
	for (size_t q = 0; !rc && !series && q < nq; q++)
		if (u[q].seen.n) {
			series = calloc(np + 1, sizeof(*series));
			rc = !series ? -ENOMEM : tl_recv_series_build(b, series);
		}
	for (size_t q = 0; !rc && q < nq; q++) {
		if (!u[q].seen.n)
			continue;
		uint16_t p = tl_qp(b, q)->proc;
		struct recv_witness w = best_witness(b, &u[q], p < np ? &series[p] : NULL);
		if (witness_drops(&w))
			rc = recv_drops_finding(c, (uint32_t)q, &u[q], &w);
	}
	tl_recv_series_free(series, series ? np : 0);
	free(series);
	for (size_t q = 0; q < nq; q++)
		tl_vec_free(&u[q].seen);
	free(u);
	return rc;
}

/* A trace-only run: the engines' retry events, the rounds for the same QP,
 * PSN and cause together in one finding.  With the engine's packet events the
 * finding starts at the first transmission of that PSN and the time lost runs
 * from it to the last retry; without them, a timeout round counts its timeout. */
struct retry_group {
	uint32_t first, last, n;
};

/* The packet of sending QP q's PSN that q's peer's engine dropped on
 * arrival, the last before event `before` (RT_TL_NONE: none traced). */
static uint32_t rx_drop_before(struct dctx *c, uint32_t q, uint32_t psn, uint32_t before)
{
	struct tl_build *b = c->b;
	uint32_t peer = q < b->qps.n ? tl_qp(b, q)->peer : RT_TL_NONE, found = RT_TL_NONE;
	for (size_t x = 0; peer != RT_TL_NONE && x < b->drops.n; x++) {
		uint32_t i = *TL_AT(&b->drops, uint32_t, x);
		const struct rt_event *ev = &tl_ev(b, i)->ev;
		if (item_t(c, i) > item_t(c, before))
			continue;
		if (!(ev->flags & RT_EVF_TX) && b->ev_qp[i] == peer && ev->u.pkt.psn == psn)
			found = i;
	}
	return found;
}

static int retry_events(struct dctx *c)
{
	struct tl_build *b = c->b;
	struct tl_hash idx = {0}; /* (QP, cause, PSN) -> group */
	struct tl_vec groups;
	tl_vec_init(&groups, sizeof(struct retry_group));
	int rc = tl_hash_init(&idx, 64);
	for (size_t i = 0; !rc && i < tl_nev(b); i++) {
		const struct tl_evrec *e = tl_ev(b, i);
		if (e->ev.kind != RT_EV_RETRY || c->explained[i] || e->ev.u.retry.cause == RT_RETRY_RNR)
			continue;
		if (!capture_missed(c, b->ev_qp[i], (uint32_t)i))
			continue; /* the capture's rounds tell (emit_bursts) */
		c->explained[i] = 1;
		uint64_t key = (uint64_t)b->ev_qp[i] << 32 | (uint64_t)(e->ev.u.retry.cause & 0xFF) << 24 |
			       (e->ev.u.retry.first_psn & 0xFFFFFF);
		uint32_t *g = tl_hash_get(&idx, key);
		if (g) {
			struct retry_group *G = TL_AT(&groups, struct retry_group, *g);
			G->last = (uint32_t)i;
			G->n++;
			continue;
		}
		struct retry_group *G = tl_vec_push(&groups);
		if (!G || tl_hash_put(&idx, key, (uint32_t)(groups.n - 1)) < 0)
			rc = -ENOMEM;
		else
			*G = (struct retry_group){(uint32_t)i, (uint32_t)i, 1};
	}
	for (size_t gi = 0; !rc && gi < groups.n; gi++) {
		const struct retry_group *G = TL_AT(&groups, struct retry_group, gi);
		const struct rt_ev_retry *r = &tl_ev(b, G->first)->ev.u.retry;
		uint32_t q = b->ev_qp[G->first], n = G->n;
		/* the first transmission of the PSN the retry went back to: resends come after the retry */
		uint32_t orig = b->engine_packets ? engine_send_before(c, q, r->first_psn, G->first, item_t(c, G->first) + 1)
					    : RT_TL_NONE;
		struct text t = {.n = 0}, ev = {.n = 0};
		tx(&t, "Go-Back-N on ");
		qp_name(b, q, &t);
		tx(&t, ": %u retr%s from PSN 0x%06x after %s", n, n == 1 ? "y" : "ies", r->first_psn,
		   retry_cause_words(r->cause));
		if (r->cause == RT_RETRY_ACK_TIMEOUT) {
			tx(&t, " (%.3f ms)", r->timeout_us / 1000.0);
			retry_cnt7_words(c, q, n, &t);
		}
		uint64_t t_start = item_t(c, G->first), t_last = item_t(c, G->last), lost;
		if (orig != RT_TL_NONE) {
			t_start = item_t(c, orig);
			lost = t_last > t_start ? t_last - t_start : 0;
			tx(&t, ", %.3f ms after that PSN was first sent", ms(lost));
		} else {
			lost = r->cause == RT_RETRY_ACK_TIMEOUT ? (uint64_t)r->timeout_us * 1000 * n : 0;
		}
		uint32_t drop = rx_drop_before(c, q, r->first_psn, G->first);
		if (drop != RT_TL_NONE)
			tx(&t, "; the receiver's engine had dropped that packet on arrival, %s",
			   traced_icrc_drop(&tl_ev(b, drop)->ev) ? "its ICRC was bad (corruption on the link or a broken sender)"
			   : tl_ev(b, drop)->ev.u.pkt.drop_reason == RT_PKT_DROP_BUSY ? "while " DROP_BUSY_WORDS
										      : "injected loss");
		/* the receiver gone before or during the retries: what kept them unanswered */
		uint32_t gone = drop == RT_TL_NONE && r->cause == RT_RETRY_ACK_TIMEOUT && q < b->qps.n
					? peer_gone_words(c, q, tl_qp(b, q)->host, item_t(c, G->first), t_last, &t)
					: RT_TL_NONE;
		capture_edge_words(c, q, item_t(c, G->first), &t);
		tx(&t, ".");
		tx(&ev, "retry events, first at %.6f s", (double)item_t(c, G->first) / 1e9);
		if (orig != RT_TL_NONE)
			tx(&ev, ", the engine's first transmission at %.6f s", (double)t_start / 1e9);
		long f = finding(b, RT_TLFK_GO_BACK_N, RT_TLS_WARNING, t_start, q, lost, 0, &t, &ev);
		uint8_t why = drop == RT_TL_NONE ? (r->cause == RT_RETRY_NAK_SEQ ? WHY_TRACED_NAK
						    : r->cause == RT_RETRY_ACK_TIMEOUT ? WHY_TRACED_TIMEOUT : WHY_TRACED_IMPLIED)
			      : traced_icrc_drop(&tl_ev(b, drop)->ev) ? WHY_DAMAGED : WHY_DROPPED;
		if (gone != RT_TL_NONE && item_t(c, gone) <= item_t(c, G->first))
			why = WHY_PEER_GONE;
		if (f < 0 || round_told(c, f, why, 0, G->first, G->last) < 0) {
			rc = -ENOMEM;
			break;
		}
		tl_finding_evidence(b, FI(b, f), orig);
		tl_finding_evidence(b, FI(b, f), drop);
		tl_finding_evidence(b, FI(b, f), G->first);
		tl_finding_evidence(b, FI(b, f), gone);
	}
	tl_hash_free(&idx);
	tl_vec_free(&groups);
	return rc;
}

/* ---- retransmission storms ---- */

/* A QP with this many Go-Back-N findings gets one more that sums them up. */
#define STORM_FINDINGS 10

/* What started a round, as the storm's sentence counts it. */
static const char *const round_why_words[WHY_COUNT_] = {
	[WHY_LOST_BEFORE] = "a packet or its answer lost before the capture point",
	[WHY_LOST_AFTER] = "a packet or its answer lost after the capture point (or late)",
	[WHY_NO_ANSWER] = "a packet the capture holds that nothing answered",
	[WHY_REORDERED] = "a packet that came after later ones (reordered or held back on the way)",
	[WHY_DAMAGED] = "a packet with a bad ICRC",
	[WHY_DROPPED] = "a packet an engine dropped",
	[WHY_EARLY_TIMER] = "an ACK timer that went off early with nothing lost",
	[WHY_UNSEEN_NAK] = "a NAK the capture does not hold, or an ACK timer that went off early",
	[WHY_FROZEN] = "a frozen process",
	[WHY_PEER_ERROR] = "a peer QP in the ERROR state",
	[WHY_PEER_GONE] = "a peer QP destroyed or whose process had ended",
	[WHY_TRACED_NAK] = "a NAK its engine traced",
	[WHY_TRACED_TIMEOUT] = "an ACK timeout its engine traced",
	[WHY_TRACED_IMPLIED] = "an implied NAK its engine traced",
};

/* One QP's Go-Back-N findings, summed. */
struct storm {
	uint32_t findings, packets;
	uint32_t why[WHY_COUNT_];
	uint64_t bytes, lost;
	uint64_t t_first, t_end;  /* the first finding's start, the latest end of one */
	const struct round_told *first, *costliest, *last; /* the first to start, the one that lost the
							     * most time, the one that ended last */
};

/* The request packets QP q sent (first transmissions and resends) and when
 * the first and the last of them passed the capture point. */
static uint32_t qp_requests(struct dctx *c, uint32_t q, uint32_t *resent, uint64_t *t0, uint64_t *t1)
{
	struct tl_build *b = c->b;
	uint32_t n = 0;
	*resent = 0;
	*t0 = UINT64_MAX;
	*t1 = 0;
	for (size_t i = 0; i < tl_npk(b); i++) {
		const struct tl_pk *k = tl_pk(b, i);
		if (!k->is_request || k->send_qp != q)
			continue;
		uint64_t t = item_t(c, tl_item_pk(b, (uint32_t)i));
		*t0 = t < *t0 ? t : *t0;
		*t1 = t > *t1 ? t : *t1;
		n++;
		*resent += k->retrans > 0;
	}
	return n;
}

/* The sentence's end: what most rounds had in common, when one cause is
 * more than half of them, and what it means for a reliable connection. */
static void storm_conclusion(struct dctx *c, uint32_t q, const struct storm *S, struct text *t)
{
	uint32_t lost = S->why[WHY_LOST_BEFORE] + S->why[WHY_LOST_AFTER] + S->why[WHY_NO_ANSWER];
	uint32_t half = S->findings / 2;
	if (S->why[WHY_REORDERED] > half)
		tx(t, "; most of them were reordering, not loss: a reliable connection takes a packet that comes after "
		      "later PSNs as lost, its receiver drops the later ones and its sender goes back and resends "
		      "everything from the missing PSN on, so a path that reorders costs as much as one that loses");
	else if (lost > half)
		tx(t, "; most of them were loss: each lost packet or answer costs a round in which the sender resends "
		      "everything from the missing PSN on");
	else if (S->why[WHY_EARLY_TIMER] > half)
		tx(t, "; most of them resent packets nothing had lost: the sender's ACK timer went off early%s",
		   qp_on_rxe(c, q) ? ", armed for an earlier packet and still running (the kernel's SoftRoCE does not stop it "
				     "when everything is acknowledged)" : "");
	else if (S->why[WHY_DAMAGED] > half)
		tx(t, "; most of them were packets damaged on the way (bad ICRC), which the receiver drops");
	else if (S->why[WHY_DROPPED] > half)
		tx(t, "; most of them were packets an engine dropped (a fault rule it was given, or an engine too busy "
		      "to take them), not the network");
}

/* Item i in an evidence list: "frame N" for a packet, else "the trace
 * event at T s". */
static void item_words(struct dctx *c, uint32_t i, struct text *t)
{
	struct tl_build *b = c->b;
	if (i >= tl_nev(b) && i < tl_nev(b) + tl_npk(b))
		tx(t, "frame %u", tl_pk(b, i - (uint32_t)tl_nev(b))->frame);
	else
		tx(t, "the trace event at %.6f s", (double)item_t(c, i) / 1e9);
}

static int storm_finding(struct dctx *c, uint32_t q, const struct storm *S)
{
	struct tl_build *b = c->b;
	struct text t = {.n = 0}, e = {.n = 0};
	uint32_t resent, sent;
	uint64_t t0, t1;
	sent = qp_requests(c, q, &resent, &t0, &t1);
	tx(&t, "Retransmission storm on ");
	qp_name(b, q, &t);
	tx(&t, ": %u Go-Back-N findings from %.6f s to %.6f s", S->findings, (double)S->t_first / 1e9,
	   (double)S->t_end / 1e9);
	if (S->packets) {
		tx(&t, " resent ");
		resent_words(S->packets, S->bytes, &t);
	}
	if (sent && resent <= sent)
		tx(&t, "; of the %u request packets it sent, %u (%.1f%%) were resends%s", sent, resent,
		   100.0 * resent / sent, resent > sent - resent ? ", more than its first transmissions" : "");
	tx(&t, "; %.3f ms lost in all", ms(S->lost));
	/* (a round's time runs until the answer to its resend) */
	t0 = S->t_first < t0 ? S->t_first : t0;
	t1 = S->t_end > t1 ? S->t_end : t1;
	if (sent && t1 > t0)
		tx(&t, " (%.0f%% of the %.3f ms from its first request to its last answer)",
		   100.0 * (double)S->lost / (double)(t1 - t0), ms(t1 - t0));
	tx(&t, ". What started them:");
	/* the causes, most frequent first */
	bool told[WHY_COUNT_] = {false};
	for (unsigned n = 0; n < WHY_COUNT_; n++) {
		unsigned best = WHY_COUNT_;
		for (unsigned w = 0; w < WHY_COUNT_; w++)
			if (!told[w] && S->why[w] && (best == WHY_COUNT_ || S->why[w] > S->why[best]))
				best = w;
		if (best == WHY_COUNT_)
			break;
		told[best] = true;
		tx(&t, "%s %u %s", n ? "," : "", S->why[best], round_why_words[best]);
		if (best >= WHY_TRACED_NAK && b->have_capture)
			tx(&t, " (a round the capture does not hold)");
	}
	storm_conclusion(c, q, S, &t);
	tx(&t, ". Each round is told in its own go_back_n finding.");
	tx(&e, "the first round's first resend ");
	item_words(c, S->first->first, &e);
	tx(&e, ", the costliest round's (%.3f ms lost) ", ms(FI(b, S->costliest->finding)->time_lost_ns));
	item_words(c, S->costliest->first, &e);
	tx(&e, ", the last resend ");
	item_words(c, S->last->last, &e);
	long f = finding(b, RT_TLFK_RETRANS_STORM, RT_TLS_WARNING, S->t_first, q, S->lost, S->bytes, &t, &e);
	if (f < 0)
		return -ENOMEM;
	tl_finding_evidence(b, FI(b, f), S->first->first);
	tl_finding_evidence(b, FI(b, f), S->costliest->first);
	tl_finding_evidence(b, FI(b, f), S->last->last);
	return 0;
}

/* One finding per QP whose Go-Back-N findings are many (STORM_FINDINGS),
 * summing them up: what they resent, the time they cost, what started them
 * (in the words of enum round_why) and what most of them had in common.  A
 * user with thousands of rounds reads this one first (it ranks by the time
 * they lost together). */
static int retransmission_storms(struct dctx *c)
{
	struct tl_build *b = c->b;
	size_t nq = b->qps.n;
	struct storm *S = calloc(nq + 1, sizeof(*S));
	if (!S)
		return -ENOMEM;
	for (size_t i = 0; i < c->rounds_told.n; i++) {
		const struct round_told *r = TL_AT(&c->rounds_told, const struct round_told, i);
		const struct rt_tl_finding *f = FI(b, r->finding);
		if (f->qp >= nq)
			continue;
		struct storm *s = &S[f->qp];
		uint64_t end = f->t_ns + f->time_lost_ns;
		if (!s->findings || f->t_ns < s->t_first) {
			s->t_first = f->t_ns;
			s->first = r;
		}
		if (!s->findings || f->time_lost_ns > FI(b, s->costliest->finding)->time_lost_ns)
			s->costliest = r;
		if (!s->findings || end >= s->t_end) {
			s->t_end = end;
			s->last = r;
		}
		s->findings++;
		s->packets += r->packets;
		s->why[r->why < WHY_COUNT_ ? r->why : WHY_LOST_BEFORE]++;
		s->bytes += f->bytes;
		s->lost += f->time_lost_ns;
	}
	int rc = 0;
	for (uint32_t q = 0; q < nq && !rc; q++)
		if (S[q].findings >= STORM_FINDINGS)
			rc = storm_finding(c, q, &S[q]);
	free(S);
	return rc;
}

/* Traced QPs that sent packets (their engine's events) or whose RC sends
 * completed (so their packets crossed), none of which the capture holds:
 * one finding naming them, so that a capture taken on the wrong interface
 * or at the wrong time does not read as a run without problems. */
static int uncaptured_qps(struct dctx *c)
{
	struct tl_build *b = c->b;
	size_t nq = b->qps.n;
	if (!b->have_capture || !nq)
		return 0;
	uint64_t *sent = calloc(nq, sizeof(uint64_t)), *done = calloc(nq, sizeof(uint64_t));
	if (!sent || !done) {
		free(sent);
		free(done);
		return -ENOMEM;
	}
	for (size_t i = 0; i < tl_nev(b); i++) {
		const struct rt_event *ev = &tl_ev(b, i)->ev;
		uint32_t q = b->ev_qp[i];
		if (q >= nq || b->ev_shadow[i])
			continue;
		if (ev->kind == RT_EV_PACKET && (ev->flags & RT_EVF_TX) && !(ev->u.pkt.flags & RT_PKTF_DROPPED))
			sent[q]++; /* (one the engine dropped, as injected loss, never left it) */
		else if (ev->kind == RT_EV_COMPLETION && !ev->u.wc.status && ev->u.wc.opcode < 128 &&
			 tl_qp(b, q)->qp_type == 2)
			done[q]++; /* an RC send the peer acknowledged: its packets crossed */
	}
	struct text t = {.n = 0}, e = {.n = 0};
	uint32_t n = 0;
	bool from_events = false;
	for (uint32_t q = 0; q < nq; q++) {
		if ((!sent[q] && !done[q]) || tl_qp(b, q)->qpn == 1 || !qp_uncaptured(c, q))
			continue;
		if (n++ < 4) {
			tx(&t, n == 1 ? "Input: the capture holds no packet of " : "; nor of ");
			qp_name(b, q, &t);
			if (sent[q])
				tx(&t, ", which sent %" PRIu64 " packet%s (its engine's trace)", sent[q], sent[q] == 1 ? "" : "s");
			else
				tx(&t, ", whose peer acknowledged %" PRIu64 " of its send WRs", done[q]);
			tx(&e, "%sQP 0x%06x on %s", n == 1 ? "" : ", ", tl_qp(b, q)->qpn, qp_host(b, q));
		}
		from_events |= sent[q] > 0;
	}
	free(sent);
	free(done);
	if (!n)
		return 0;
	if (n > 4)
		tx(&t, "; nor of %u more QPs", n - 4);
	tx(&t, ": it was taken on another interface, with a filter that left them out, or at another time, so "
	       "their packets, ACKs and NAKs are not part of this diagnosis%s.",
	   from_events ? " (their engines' retry and RNR events are: a finding each)" : "");
	tx(&e, ", the capture");
	return finding(b, RT_TLFK_MISSING_INPUT, RT_TLS_INFO, 0, RT_TL_NONE, 0, 0, &t, &e) < 0 ? -ENOMEM : 0;
}

/* An address on the wire that no traced QP uses, a peer of a traced host's
 * (a multicast group is no host: its members are). */
static bool ep_untraced(struct tl_build *b, const struct tl_ep *e)
{
	if (e->host != UINT16_MAX || tl_ip_multicast(e->ver, e->ip))
		return false;
	size_t alen = e->ver == 6 ? 16 : 4;
	for (size_t q = 0; q < b->qps.n; q++) {
		const struct rt_tl_qp *Q = tl_qp(b, q);
		if ((Q->flags & RT_TLQ_TRACED) && Q->ip_version == e->ver && !memcmp(Q->ip, e->ip, alen))
			return false;
	}
	return true;
}

/* A run with traces whose capture shows a traced host talking to an address
 * no trace covers (a trace file missing, or a peer that was not traced): a
 * note per such address, which becomes a missing_input finding. */
static int untraced_peers(struct tl_build *b)
{
	size_t neps = b->eps.n;
	if (!b->have_traces || !b->have_capture || !neps)
		return 0;
	uint64_t *count = calloc(neps, sizeof(*count));
	uint16_t *with = calloc(neps, sizeof(*with));
	uint8_t *untraced = calloc(neps, 1);
	if (!count || !with || !untraced) {
		free(count);
		free(with);
		free(untraced);
		return -ENOMEM;
	}
	bool any = false;
	for (size_t i = 0; i < neps; i++)
		any |= untraced[i] = ep_untraced(b, TL_AT(&b->eps, struct tl_ep, i));
	for (size_t i = 0; i < tl_npk(b) && any; i++) { /* (every address traced: nothing to count) */
		const struct tl_pk *k = tl_pk(b, i);
		if (k->is_cm || k->src_ep >= neps || k->dst_ep >= neps || k->icrc == RT_ICRC_BAD) /* (damaged addresses) */
			continue;
		const struct tl_ep *src = TL_AT(&b->eps, struct tl_ep, k->src_ep);
		const struct tl_ep *dst = TL_AT(&b->eps, struct tl_ep, k->dst_ep);
		if (untraced[k->src_ep] && dst->host != UINT16_MAX) {
			count[k->src_ep]++;
			with[k->src_ep] = dst->host;
		} else if (untraced[k->dst_ep] && src->host != UINT16_MAX) {
			count[k->dst_ep]++;
			with[k->dst_ep] = src->host;
		}
	}
	for (size_t i = 0; i < neps; i++) {
		if (!count[i])
			continue;
		const struct tl_ep *e = TL_AT(&b->eps, struct tl_ep, i);
		char ip[INET6_ADDRSTRLEN] = "?";
		inet_ntop(e->ver == 6 ? AF_INET6 : AF_INET, e->ip, ip, sizeof(ip));
		tl_note(b, "no trace from %s, which exchanged %" PRIu64 " RoCE packets with %s: its work requests, "
			   "completions and QP states are not in the timeline",
			ip, count[i], host_name(b, with[i]));
	}
	free(count);
	free(with);
	free(untraced);
	return 0;
}

/* A process's clock point (RT_EV_CLOCK_SYNC), sorted by process, then CLOCK_MONOTONIC. */
struct sync_pt {
	uint16_t proc;
	uint32_t ev;
	uint64_t mono;
};

static int sync_cmp(const void *x, const void *y)
{
	const struct sync_pt *a = x, *b = y;
	if (a->proc != b->proc)
		return a->proc < b->proc ? -1 : 1;
	return a->mono < b->mono ? -1 : a->mono > b->mono;
}

static int64_t wall_offset_of(const struct tl_evrec *r)
{
	return (int64_t)(r->ev.u.clock.real_ns - r->ev.u.clock.mono_ns);
}

/*
 * The wall clock set (stepped) while a process was traced: two of its
 * clock points in a row whose offsets (CLOCK_REALTIME - CLOCK_MONOTONIC)
 * differ by more than slewing makes (rt_clock_wall_stepped).  Every process
 * on the host saw the same step: one finding per host and step.  Times on
 * the host are as its wall clock read them (a capture taken there too), so
 * a duration across the step is off by it; and against a capture taken
 * elsewhere, the host's clock cannot align with one offset.
 */
static int wall_clock_steps(struct tl_build *b)
{
	size_t n = 0;
	for (size_t i = 0; i < tl_nev(b); i++)
		n += tl_ev(b, i)->ev.kind == RT_EV_CLOCK_SYNC;
	if (n < 2)
		return 0;
	struct sync_pt *pt = malloc(n * sizeof(*pt));
	if (!pt)
		return -ENOMEM;
	n = 0;
	for (size_t i = 0; i < tl_nev(b); i++) {
		const struct tl_evrec *r = tl_ev(b, i);
		if (r->ev.kind == RT_EV_CLOCK_SYNC)
			pt[n++] = (struct sync_pt){r->proc, (uint32_t)i, r->ev.u.clock.mono_ns};
	}
	qsort(pt, n, sizeof(*pt), sync_cmp);
	struct told { uint16_t host; uint64_t from, to; int64_t size; } seen[32];
	size_t nseen = 0;
	int rc = 0;
	for (size_t k = 1; k < n && !rc; k++) {
		const struct tl_evrec *a = tl_ev(b, pt[k - 1].ev), *z = tl_ev(b, pt[k].ev);
		if (a->proc != z->proc || z->proc >= b->procs.n || z->ev.u.clock.mono_ns <= a->ev.u.clock.mono_ns)
			continue;
		int64_t size; /* damaged points: a change past 2^62 ns is none a clock makes */
		if (__builtin_sub_overflow(wall_offset_of(z), wall_offset_of(a), &size) || size > (1ll << 62) ||
		    size < -(1ll << 62))
			continue;
		uint64_t from = a->ev.u.clock.mono_ns, to = z->ev.u.clock.mono_ns;
		if (!rt_clock_wall_stepped(size, to - from))
			continue;
		bool told = false; /* another process on the host, the same step */
		for (size_t j = 0; j < nseen && !told; j++)
			told = seen[j].host == z->host && from <= seen[j].to && seen[j].from <= to &&
			       llabs(seen[j].size - size) <= 1000000;
		if (told)
			continue;
		if (nseen < sizeof(seen) / sizeof(seen[0]))
			seen[nseen++] = (struct told){z->host, from, to, size};
		const struct rt_tl_proc *P = TL_AT(&b->procs, struct rt_tl_proc, z->proc);
		struct text t = {.n = 0}, e = {.n = 0};
		const char *hn = host_name(b, z->host);
		double secs = (double)llabs(size) / 1e9;
		tx(&t, "The wall clock of %s was set %.3f s %s while %s[%d] was traced: times on %s (and a capture's "
		       "taken there) are as that clock read them, so a duration across the step is off by %.3f s; "
		       "against a capture taken elsewhere, %s's clock cannot align with one offset.",
		   hn, secs, size > 0 ? "forward" : "back", (const char *)b->strs.p + P->program, P->pid, hn, secs, hn);
		tx(&e, "clock points of pid %d %.3f ms apart (CLOCK_MONOTONIC %.6f s and %.6f s), wall-clock offsets %+.6f s apart",
		   P->pid, ms(to - from), (double)from / 1e9, (double)to / 1e9, (double)size / 1e9);
		if (finding(b, RT_TLFK_CLOCK, RT_TLS_INFO, tl_item_time(b, pt[k].ev), RT_TL_NONE, 0, 0, &t, &e) < 0)
			rc = -ENOMEM;
	}
	free(pt);
	return rc;
}

static int inputs_and_clocks(struct tl_build *b)
{
	if (untraced_peers(b) < 0 || wall_clock_steps(b) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < b->notes.n; i++) {
		const char *n = (const char *)b->strs.p + ((uint32_t *)b->notes.p)[i];
		struct text t = {.n = 0}, e = {.n = 0};
		tx(&t, "Input: %s.", n);
		tx(&e, "run directory contents");
		unsigned kind = strstr(n, "lost") ? RT_TLFK_LOST_EVENTS : RT_TLFK_MISSING_INPUT;
		if (finding(b, kind, RT_TLS_INFO, 0, RT_TL_NONE, 0, 0, &t, &e) < 0)
			return -ENOMEM;
	}
	for (size_t h = 0; h < b->hosts.n; h++) {
		struct rt_tl_host *H = tl_host(b, h);
		if (!(H->flags & RT_TLH_INCONSISTENT))
			continue;
		struct text t = {.n = 0}, e = {.n = 0};
		tx(&t, "The clock of %s could not be aligned consistently: causal constraints contradict each other by %.3f ms (clock drift or a jump); times on it are approximate.",
		   (const char *)b->strs.p + H->name, ms(H->uncertainty_ns * 2));
		tx(&e, "%" PRIu64 " constraints", H->constraints);
		if (finding(b, RT_TLFK_CLOCK, RT_TLS_INFO, 0, RT_TL_NONE, 0, 0, &t, &e) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* Findings ranked: most time lost first, then severity, then time; ids follow the rank. */
static int rank_cmp(const void *a, const void *b)
{
	const struct rt_tl_finding *x = a, *y = b;
	if (x->time_lost_ns != y->time_lost_ns)
		return x->time_lost_ns > y->time_lost_ns ? -1 : 1;
	if (x->severity != y->severity)
		return x->severity > y->severity ? -1 : 1;
	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static void rank(struct tl_build *b)
{
	size_t n = b->findings.n;
	if (!n)
		return;
	struct rt_tl_finding *f = b->findings.p;
	uint32_t *newid = calloc(n + 1, sizeof(uint32_t));
	if (!newid)
		return; /* unranked is still correct */
	qsort(f, n, sizeof(*f), rank_cmp);
	for (size_t i = 0; i < n; i++)
		newid[f[i].id] = (uint32_t)(i + 1);
	for (size_t i = 0; i < n; i++)
		f[i].id = (uint32_t)(i + 1);
	/* finding items are ev.n + npk + (id - 1): renumber the links */
	uint32_t base = (uint32_t)(tl_nev(b) + tl_npk(b));
	for (size_t i = 0; i < b->links.n; i++) {
		struct tl_blink *l = TL_AT(&b->links, struct tl_blink, i);
		if (l->from >= base && l->from - base < n)
			l->from = base + newid[l->from - base + 1] - 1;
		if (l->to >= base && l->to - base < n)
			l->to = base + newid[l->to - base + 1] - 1;
	}
	for (size_t i = 0; i < tl_npk(b); i++) {
		struct tl_pk *k = tl_pk(b, i);
		for (int j = 0; j < 2; j++)
			if (k->findings[j] && k->findings[j] <= n)
				k->findings[j] = newid[k->findings[j]];
	}
	free(newid);
}

/* A sign that a QP's side learnt its peer was gone: an error completion,
 * the QP going to ERROR, or a CM disconnect. */
static bool peer_reaction(const struct rt_event *ev)
{
	return (ev->kind == RT_EV_COMPLETION && ev->u.wc.status) ||
	       (ev->kind == RT_EV_QP_STATE && ev->u.qp_state.to_state == 6 && !ev->u.qp_state.result) ||
	       (ev->kind == RT_EV_CM_EVENT && ev->u.cm.event == RT_CM_EV_DISCONNECTED);
}

/* How far apart two hosts' aligned clocks can be: the sum of their
 * uncertainties, UINT64_MAX when either is unbounded. */
static uint64_t clocks_uncertainty(struct tl_build *b, uint16_t h1, uint16_t h2)
{
	if (h1 == h2)
		return 0;
	uint64_t u1 = h1 < b->hosts.n ? tl_host(b, h1)->uncertainty_ns : UINT64_MAX;
	uint64_t u2 = h2 < b->hosts.n ? tl_host(b, h2)->uncertainty_ns : UINT64_MAX;
	return u1 == UINT64_MAX || u2 == UINT64_MAX || u1 + u2 < u1 ? UINT64_MAX : u1 + u2;
}

static void reaction_words(struct tl_build *b, uint32_t i, struct text *t)
{
	const struct rt_event *ev = &tl_ev(b, i)->ev;
	if (ev->kind == RT_EV_COMPLETION)
		tx(t, "a %s completion", rt_wc_status_name(ev->u.wc.status));
	else if (ev->kind == RT_EV_QP_STATE)
		tx(t, "its QP moved to ERROR");
	else
		tx(t, "an RDMA CM DISCONNECTED event");
}

/* What process p left behind at its end t_end (send WRs never completed)
 * and how its peers (QPs of other processes connected to its QPs) learnt of
 * it, in one pass over the events; returns the longest a peer took. */
static uint64_t proc_end_aftermath(struct dctx *c, uint16_t p, uint64_t t_end, bool exited, struct text *t,
				   struct text *e, struct rt_tl_finding *f)
{
	struct tl_build *b = c->b;
	size_t nq = b->qps.n;
	uint32_t *react = malloc((nq + 1) * sizeof(uint32_t)); /* per QP: its first reaction; RT_TL_NONE */
	uint8_t *is_peer = calloc(nq + 1, 1);
	if (!react || !is_peer) {
		free(react);
		free(is_peer);
		return 0;
	}
	size_t npeers = 0;
	for (size_t q = 0; q < nq; q++) {
		react[q] = RT_TL_NONE;
		const struct rt_tl_qp *Q = tl_qp(b, q);
		if (Q->proc == p && Q->peer != RT_TL_NONE && tl_qp(b, Q->peer)->proc != p && !is_peer[Q->peer]) {
			is_peer[Q->peer] = 1;
			npeers++;
		}
	}
	uint32_t open = 0, first_open = RT_TL_NONE, open_qp = RT_TL_NONE;
	uint32_t acked = 0, unacked = 0; /* of those, with the capture: acknowledged / on the wire without an ACK */
	uint32_t due = 0;                /* acknowledged and signaled: a completion was due */
	uint32_t ack_dropped = 0;        /* acknowledged, the ACK dropped by the engine as it arrived */
	bool many_qps = false;
	for (size_t i = 0; i < tl_nev(b); i++) {
		const struct tl_evrec *r = tl_ev(b, i);
		uint32_t q = b->ev_qp[i];
		if (q < nq && is_peer[q] && react[q] == RT_TL_NONE && !b->ev_shadow[i] && peer_reaction(&r->ev) &&
		    item_t(c, (uint32_t)i) >= t_end)
			react[q] = (uint32_t)i;
		if (r->proc != p || r->ev.kind != RT_EV_WR_POST || r->ev.u.wr.queue != RT_WRQ_SEND || b->ev_shadow[i] ||
		    (r->ev.u.wr.flags & RT_WRF_POST_FAILED) || first_link(c, (uint32_t)i, RT_TLL_COMPLETION) != RT_TL_NONE)
			continue;
		if (!open++) {
			first_open = (uint32_t)i;
			open_qp = q;
		} else if (q != open_qp) {
			many_qps = true;
		}
		uint32_t ack = first_link(c, (uint32_t)i, RT_TLL_ACK);
		uint32_t ak = ack != RT_TL_NONE && ack >= tl_nev(b) ? ack - (uint32_t)tl_nev(b) : RT_TL_NONE;
		if (ak < tl_npk(b) && traced_rx_drop(c, tl_pk(b, ak)->recv_qp, ak) != RT_TL_NONE)
			ack_dropped++; /* its engine dropped that ACK as it arrived: nothing was due */
		else if (ack != RT_TL_NONE) {
			acked++;
			due += !!(r->ev.u.wr.flags & RT_WRF_SIGNALED);
		}
		else if (wr_on_wire(c, (uint32_t)i))
			unacked++;
	}
	if (open) {
		tx(t, " %u send WR%s posted %s never completed", open, open == 1 ? "" : "s", open == 1 ? "was" : "were");
		if (!many_qps && open_qp != RT_TL_NONE) {
			tx(t, " on ");
			qp_name(b, open_qp, t);
		}
		if (b->have_capture && (acked || unacked || ack_dropped)) {
			/* what the wire says of them: a completion that was due, or a WR the peer never answered */
			tx(t, ": ");
			if (acked)
				tx(t, "%s%u acknowledged on the wire", acked == open && open > 1 ? "all " : "", acked);
			/* the send CQ's size tells which: more due than it holds overran it */
			bool shared = false;
			uint32_t cqe = due && !many_qps && open_qp != RT_TL_NONE
					       ? send_cq_size(b, p, tl_qp(b, open_qp)->qpn, &shared) : 0;
			char why[160];
			if (cqe && due > cqe)
				snprintf(why, sizeof(why), "more than its send CQ holds (cqe %u): the CQ overran, the "
					 "program polling it too slowly or not at all", cqe);
			else if (cqe && !shared)
				snprintf(why, sizeof(why), "and its send CQ (cqe %u, for this queue alone) could hold them: "
					 "the program had stopped polling it", cqe);
			else
				snprintf(why, sizeof(why), "and the program had stopped polling, or its CQ overran");
			if (due == acked && due)
				tx(t, " (signaled: %s completion%s due, %s)", due == 1 ? "its" : "their",
				   due == 1 ? " was" : "s were", why);
			else if (due)
				tx(t, " (%u of them signaled: their completions were due, %s)", due, why);
			if (ack_dropped)
				tx(t, "%s%u acknowledged on the wire, %s ACK dropped by its engine as it arrived", acked ? ", " : "",
				   ack_dropped, ack_dropped == 1 ? "the" : "each");
			if (unacked)
				tx(t, "%s%u sent and never acknowledged", acked || ack_dropped ? ", " : "", unacked);
			if (open > acked + ack_dropped + unacked)
				tx(t, ", %u never on the wire", open - acked - ack_dropped - unacked);
		}
		tx(t, ".");
		tx(e, "; first WR never completed: ");
		wr_words(b, first_open, e);
		tl_finding_evidence(b, f, first_open);
	}
	/* each peer in words (the first few), every reaction as evidence */
	uint64_t waited = 0;
	size_t told = 0, rest_learnt = 0, rest_gone = 0;
	for (size_t q = 0; q < nq; q++) {
		if (!is_peer[q])
			continue;
		uint32_t r = react[q];
		uint64_t dt = r != RT_TL_NONE && item_t(c, r) > t_end ? item_t(c, r) - t_end : 0;
		if (r != RT_TL_NONE) {
			tl_finding_evidence(b, f, r);
			if (dt > waited)
				waited = dt;
		}
		/* gone before it: its process's end judged a finding, or its QP's
		 * destroy or its process's end record */
		uint16_t qproc = tl_qp(b, q)->proc;
		uint64_t gone = r == RT_TL_NONE && c->proc_gone && qproc < b->procs.n ? c->proc_gone[qproc] : 0;
		bool own_finding = gone && gone <= t_end;
		uint32_t qend = r == RT_TL_NONE && !own_finding ? qp_gone(c, (uint32_t)q) : RT_TL_NONE;
		if (qend != RT_TL_NONE && item_t(c, qend) > t_end)
			qend = RT_TL_NONE;
		if (told++ >= 4) {
			rest_learnt += r != RT_TL_NONE;
			rest_gone += own_finding || qend != RT_TL_NONE;
			continue;
		}
		tx(t, " Its peer ");
		qp_name(b, (uint32_t)q, t);
		const struct rt_tl_proc *Q = qproc < b->procs.n ? TL_AT(&b->procs, struct rt_tl_proc, qproc) : NULL;
		if (own_finding || qend != RT_TL_NONE) {
			tx(t, " had gone first: %s (pid %d) %s %.3f ms before%s.",
			   Q ? (const char *)b->strs.p + Q->program : "its program", Q ? Q->pid : 0,
			   qend != RT_TL_NONE && tl_ev(b, qend)->ev.kind == RT_EV_QP_CREATE ? "destroyed it" : "ended",
			   ms(t_end - (own_finding ? gone : item_t(c, qend))), own_finding ? " (its own finding)" : "");
			continue;
		}
		if (r == RT_TL_NONE) {
			tx(t, " saw no error completion and no disconnect after it in the rest of the run.");
			continue;
		}
		/* a peer's error just after a process that exited on its own may have
		 * the same cause (not the exit), and then the clocks must tell the
		 * order; a DISCONNECTED or error after a kill or crash is its answer */
		uint64_t unc = exited ? clocks_uncertainty(b, TL_AT(&b->procs, struct rt_tl_proc, p)->host, tl_ev(b, r)->host)
				      : 0;
		if (dt > unc) {
			tx(t, " learnt of it %.3f ms later: ", ms(dt));
			reaction_words(b, r, t);
			tx(t, ".");
			continue;
		}
		tx(t, " had ");
		reaction_words(b, r, t);
		if (unc == UINT64_MAX)
			tx(t, " %.3f ms later on the aligned clocks, but one host's clock is not bounded by the causal order: "
			      "which came first is not certain.", ms(dt));
		else
			tx(t, " %.3f ms later on the aligned clocks, which are known only to within %.3f ms here: which came "
			      "first is not certain.", ms(dt), ms(unc));
	}
	if (npeers > 4) {
		tx(t, " Of %zu more peer QPs, ", npeers - 4);
		if (rest_gone)
			tx(t, "%zu had gone first%s", rest_gone, rest_learnt ? " and " : "");
		if (rest_learnt || !rest_gone)
			tx(t, "%zu learnt of it (the slowest of all %.3f ms later)", rest_learnt, ms(waited));
		tx(t, ".");
	}
	free(react);
	free(is_peer);
	return waited;
}

/* Process p's first error record (an error completion, a move to ERROR, a
 * refused call or post) of the lists the linking kept, RT_TL_NONE when none.
 * As for call_failures(), a CM call that only started and got its event
 * (cm_call_outcome) is no error. */
static uint32_t proc_first_error(struct tl_build *b, uint16_t p)
{
	const struct tl_vec *lists[] = {&b->errs, &b->failed, &b->refused};
	uint32_t first = RT_TL_NONE;
	for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]); l++)
		for (size_t j = 0; j < lists[l]->n; j++) { /* each list is in event order */
			uint32_t i = *TL_AT(lists[l], uint32_t, j);
			if (first != RT_TL_NONE && i >= first)
				break;
			if (tl_ev(b, i)->proc == p && !b->ev_shadow[i] && cm_call_outcome(b, i) == RT_TL_NONE) {
				first = i;
				break;
			}
		}
	return first;
}

/* Whether item i is evidence of a finding made so far. */
static bool in_finding(struct tl_build *b, uint32_t i)
{
	for (size_t k = 0; k < b->links.n; k++) {
		const struct tl_blink *l = TL_AT(&b->links, struct tl_blink, k);
		if (l->type == RT_TLL_FINDING && l->to == i)
			return true;
	}
	return false;
}

/* An error record in a few words: "a RETRY_EXC_ERR completion". */
static void error_words(const struct rt_event *ev, struct text *t)
{
	switch (ev->kind) {
	case RT_EV_COMPLETION:
		tx(t, "a %s completion", rt_wc_status_name(ev->u.wc.status));
		break;
	case RT_EV_QP_STATE:
		tx(t, ev->flags & RT_EVF_ERROR ? "a refused ibv_modify_qp" : "QP 0x%06x's move to ERROR", ev->qpn);
		break;
	case RT_EV_WR_POST:
		tx(t, "a refused post");
		break;
	case RT_EV_CM_EVENT:
		tx(t, "a failed %s", rt_cm_event_name(ev->u.cm.event));
		break;
	case RT_EV_VERBS_CALL:
		tx(t, "a refused %s", rt_verbs_call_name(ev->u.verbs_call.call));
		break;
	default:
		tx(t, "a refused %s", rt_event_kind_name(ev->kind));
		break;
	}
}

/* Process p's end as a finding, when it did not simply exit. */
/* Whether process p made RDMA CM connections (ESTABLISHED, or an
 * rdma_connect or rdma_accept that succeeded), which its end closes with
 * DREQs (a QP connected without the CM sends none). */
static bool proc_connected(struct tl_build *b, uint16_t p)
{
	for (size_t n = 0; n < b->cm_evs.n; n++) {
		const struct tl_evrec *e = tl_ev(b, *TL_AT(&b->cm_evs, uint32_t, n));
		unsigned ev = e->ev.u.cm.event;
		if (e->proc == p && e->ev.u.cm.status == 0 &&
		    (ev == RT_CM_EV_ESTABLISHED || ev == RT_CM_CALL_CONNECT || ev == RT_CM_CALL_ACCEPT))
			return true;
	}
	return false;
}

/* The capture's last packet that a QP of process p sent (RT_TL_NONE none). */
static uint32_t proc_last_packet(struct tl_build *b, uint16_t p)
{
	for (size_t j = tl_npk(b); j-- > 0;) {
		uint32_t q = tl_pk(b, j)->send_qp;
		if (q < b->qps.n && tl_qp(b, q)->proc == p)
			return (uint32_t)j;
	}
	return RT_TL_NONE;
}

/* A recording whose collector noted the clock this long after the program's
 * last record of its own was cut off while the program waited. */
#define CUT_WAITING_NS 1000000000ull

/* A recording cut off (cut_off_recordings): what is known of it. */
struct cut {
	uint64_t until;           /* when the run went on to (the DREQ's time when dreq); 0: not cut off */
	uint32_t dreq;            /* the DREQ the kernel sent for the process when it was gone (orphan_dreq),
				   * RT_TL_NONE */
	uint64_t t_stop;          /* its recording's last record of any kind (its collector's clock notes
				   * go on after the program's own) */
	uint32_t last_pk;         /* the capture's last packet its QPs sent, RT_TL_NONE */
	uint64_t t_pk;
	bool ran_on;              /* that packet came a second (and the clocks' uncertainty) after t_stop:
				   * the program ran on, only its recording was cut off */
};

/* Process p's recording cut off, NULL when it was not. */
static const struct cut *cut_of(struct dctx *c, size_t p)
{
	return c->cuts && p < c->b->procs.n && c->cuts[p].until ? &c->cuts[p] : NULL;
}

/* The words of a recording cut off: how long the run went on, and what the
 * capture says of the program after it. */
static void cut_off_words(struct dctx *c, const struct cut *f, uint64_t t_last, struct text *t)
{
	struct tl_build *b = c->b;
	uint64_t until = f->until;
	if (f->dreq != RT_TL_NONE) {
		if (f->t_stop > t_last + CUT_WAITING_NS)
			tx(t, ": its collector went on noting the clock for %.3f s (the program waiting, with nothing to "
			      "record), then its recording stops with no end record", (double)(f->t_stop - t_last) / 1e9);
		else
			tx(t, ": its recording stops there with no end record");
		tx(t, ", and %.3f ms later the kernel sent a disconnect request (DREQ, frame %u) for its connection, with "
		      "no rdma_disconnect in its trace: the kernel closes the connections of a process that is gone, so "
		      "it ended without a word, its recording with it (SIGKILL to both, the OOM killer)",
		   ms(until > f->t_stop ? until - f->t_stop : 0), tl_pk(b, f->dreq)->frame);
		return;
	}
	if (f->t_stop > t_last + 1000000)
		tx(t, ": its recording stops %.3f s later (its collector's last clock note), with no end record, while "
		      "the run went on %.3f s longer (the collector notes the clock every second while it records)",
		   (double)(f->t_stop - t_last) / 1e9, (double)(until - f->t_stop) / 1e9);
	else
		tx(t, ": its recording stops there with no end record, while the run went on %.3f s longer (its "
		      "collector, which notes the clock every second while it records, wrote nothing more)",
		   (double)(until - f->t_stop) / 1e9);
	if (f->ran_on) {
		tx(t, ", but the capture holds packets its QPs sent until frame %u, %.3f s after the recording stopped: "
		      "the program ran on untraced, and only its recording was cut off (what recorded it was killed, or "
		      "could not write)", tl_pk(b, f->last_pk)->frame, (double)(f->t_pk - f->t_stop) / 1e9);
		return;
	}
	tx(t, ": the program and what recorded it ended at once (SIGKILL to both, the OOM killer, or "
	      "its host went down)");
	if (f->last_pk != RT_TL_NONE && f->t_pk > t_last)
		tx(t, "; the capture holds nothing its QPs sent after frame %u, %.3f ms after its last record (what it "
		      "did last was still in its rings, not yet written out)", tl_pk(b, f->last_pk)->frame,
		   ms(f->t_pk - t_last));
	else if (f->last_pk != RT_TL_NONE)
		tx(t, "; the capture holds nothing its QPs sent after frame %u, %.3f ms before its last record",
		   tl_pk(b, f->last_pk)->frame, ms(t_last - f->t_pk));
}

static int proc_end_finding(struct dctx *c, uint16_t p, uint32_t end, uint32_t last, bool salvaged, bool others)
{
	struct tl_build *b = c->b;
	const struct rt_tl_proc *P = TL_AT(&b->procs, struct rt_tl_proc, p);
	const struct rt_ev_process_end *pe = end != RT_TL_NONE ? &tl_ev(b, end)->ev.u.process_end : NULL;
	bool caught = pe && pe->how == RT_END_SIGNAL;
	uint32_t first_error = RT_TL_NONE;
	unsigned sev;
	const struct cut *cut = !pe ? cut_of(c, p) : NULL; /* (none is salvaged) */
	bool waiting = false; /* a recording cut off while the program waited */
	struct text t = {.n = 0}, e = {.n = 0};
	proc_words(b, p, &t);
	tx(&t, " ");
	if (caught) {
		sev = RT_TLS_ERROR;
		tx(&t, "crashed with %s", rt_signal_name(pe->signal));
		const char *why = fault_words(pe->signal, pe->code);
		if (pe->code <= 0 && pe->signal != SIGABRT)
			tx(&t, " sent by kill() or raise()");
		else if (pe->signal == SIGSEGV || pe->signal == SIGBUS || pe->signal == SIGILL || pe->signal == SIGFPE)
			tx(&t, " at address 0x%" PRIx64 "%s%s%s", pe->addr, why ? " (" : "", why ? why : "", why ? ")" : "");
		else if (pe->signal == SIGABRT)
			tx(&t, " (abort(): a failed assertion, or a fatal error the C library or the program found)");
	} else if (pe && pe->signal) {
		sev = stop_signal(pe->signal) ? RT_TLS_INFO : RT_TLS_ERROR;
		tx(&t, "%s by %s%s", stop_signal(pe->signal) ? "was stopped" : "was killed", rt_signal_name(pe->signal),
		   pe->core_dumped ? " (core dumped)" : "");
		if (pe->signal == SIGKILL)
			tx(&t, " (which nothing can catch: kill -9, a timeout, the OOM killer)");
	} else if (pe && pe->how == RT_END_EXIT) {
		if (!pe->has_code || !pe->code)
			return 0; /* it exited, with status 0 or one nobody saw */
		/* after an error of its own, the exit is that error's consequence */
		first_error = proc_first_error(b, p);
		sev = first_error != RT_TL_NONE || others ? RT_TLS_INFO : RT_TLS_WARNING;
		tx(&t, "exited with status %d", pe->code);
	} else if (pe) {
		if (!pe->code)
			return 0; /* its parent saw it exit 0 */
		sev = RT_TLS_WARNING;
		tx(&t, "ended with exit status %d without running its exit handlers", pe->code);
	} else if (cut) {
		/* killed while it waited, with nothing to record, it was most likely stopped for waiting: its
		 * wait is the problem, if any */
		waiting = last != RT_TL_NONE && cut->t_stop > item_t(c, last) + CUT_WAITING_NS;
		sev = cut->ran_on ? RT_TLS_WARNING : waiting ? RT_TLS_INFO : RT_TLS_ERROR;
		tx(&t, cut->ran_on ? "stopped being recorded" : "vanished");
	} else {
		if (!salvaged)
			return 0;
		sev = RT_TLS_INFO;
		tx(&t, "ended without an exit record");
	}
	bool timed = end_is_timed(pe);
	uint64_t t_end = timed ? item_t(c, end) : last != RT_TL_NONE ? item_t(c, last) : 0;
	uint64_t t_words = t_end; /* (the sentence's "last record" time) */
	if (waiting)
		t_end = cut->t_stop; /* it was there, waiting, until its recording stopped */
	if (last != RT_TL_NONE) {
		const struct rt_event *lev = &tl_ev(b, last)->ev;
		uint64_t tl = item_t(c, last);
		char what[64];
		snprintf(what, sizeof(what), "%s%s%s", rt_event_kind_name(lev->kind), lev->kind == RT_EV_CM_EVENT ? " " : "",
			 lev->kind == RT_EV_CM_EVENT ? rt_cm_event_name(lev->u.cm.event) : "");
		if (timed && t_end >= tl)
			tx(&t, " %.3f ms after its last record (%s)", ms(t_end - tl), what);
		else
			tx(&t, " after its last record (%s at %.6f s)", what, (double)tl / 1e9);
		tx(&e, "last record at %.6f s", (double)tl / 1e9);
	}
	if (cut)
		cut_off_words(c, cut, t_words, &t);
	else if (!pe)
		tx(&t, ": its trace was recovered from its rings after it was gone, so a signal no handler catches "
		       "(SIGKILL, or SIGTERM left at its default) ended it");
	else if (pe->how == RT_END_EXIT && first_error != RT_TL_NONE && in_finding(b, first_error)) {
		tx(&t, "; its first error, ");
		error_words(&tl_ev(b, first_error)->ev, &t);
		tx(&t, " at %.6f s, is a finding above", (double)item_t(c, first_error) / 1e9);
	} else if (pe->how == RT_END_EXIT && others)
		tx(&t, ": the problems found above may be why (a program that gives up returns a non-zero status, "
		       "and its own output says why)");
	else if (pe->how == RT_END_EXIT)
		tx(&t, ": a program that gives up returns a non-zero status, and its own output says why (after "
		       "a call that failed untraced, the trace shows only where it stopped)");
	else if (!timed && pe->how == RT_END_WAIT && pe->exact_time && last != RT_TL_NONE && item_t(c, end) >= t_end)
		tx(&t, ", and was gone %.3f ms after that record (the kernel's process events; its RDMA "
		       "resources were closed before%s)", ms(item_t(c, end) - t_end),
		   proc_connected(b, p) ? ", which sends its connections' DREQs" : "");
	tx(&t, ".");
	char words[900];
	if (pe && pe->how != RT_END_SIGNAL && !pe->signal &&
	    tl_program_output_words((const char *)b->strs.p + P->trace_file, words, sizeof(words)))
		tx(&t, "%s", words);
	else if (pe && (stop_signal(pe->signal) || pe->signal == SIGKILL) &&
		 tl_program_stop_words((const char *)b->strs.p + P->trace_file, words, sizeof(words)))
		tx(&t, "%s", words);
	if (pe)
		tx(&e, "%sprocess_end record (%s) at %.6f s", e.n ? "; " : "", rt_end_how_name(pe->how),
		   (double)item_t(c, end) / 1e9);
	/* made before its sentence is complete: the aftermath adds evidence to it */
	if (!tl_finding_new(b, RT_TLFK_PROCESS_ENDED, sev, t_end, RT_TL_NONE))
		return -ENOMEM;
	long fi = (long)(b->findings.n - 1);
	if (end != RT_TL_NONE)
		tl_finding_evidence(b, FI(b, fi), end);
	if (last != RT_TL_NONE)
		tl_finding_evidence(b, FI(b, fi), last);
	if (cut && cut->dreq != RT_TL_NONE) {
		tl_finding_evidence(b, FI(b, fi), tl_item_pk(b, cut->dreq));
		tx(&e, "; the kernel's DREQ frame %u", tl_pk(b, cut->dreq)->frame);
	}
	uint64_t waited = proc_end_aftermath(c, p, t_end, pe && pe->how == RT_END_EXIT, &t, &e, FI(b, fi));
	struct rt_tl_finding *f = FI(b, fi);
	f->text = tl_str(b, t.buf);
	f->evidence = tl_str(b, e.buf);
	if (sev != RT_TLS_INFO)
		f->time_lost_ns = waited;
	return 0;
}

/* One finding per freeze (c->freezes; the first 16): how long, whether its
 * whole host stopped with it, and what its peers sent its QPs meanwhile
 * (an engine in the process, as uroce's, answered none of it; a kernel's
 * transport went on, but the program polled and posted nothing).  A
 * warning, with the freeze as time lost, when its QPs were sent anything
 * then; else info. */
static int process_freezes(struct dctx *c)
{
	struct tl_build *b = c->b;
	for (size_t k = 0; k < c->nfreezes && k < 16; k++) {
		const struct freeze *f = &c->freezes[k];
		const struct rt_tl_proc *P = TL_AT(&b->procs, struct rt_tl_proc, f->proc);
		uint64_t t0 = item_t(c, f->from), t1 = item_t(c, f->to);
		/* the other traced processes of its host that recorded before and after: none in between? */
		size_t others = 0, quiet = 0;
		for (size_t j = 0; j < c->nfreezes; j++) {
			const struct freeze *g = &c->freezes[j];
			if (g->proc != f->proc && TL_AT(&b->procs, struct rt_tl_proc, g->proc)->host == P->host &&
			    item_t(c, g->from) <= t0 + 1000000000ull && item_t(c, g->to) + 1000000000ull >= t1)
				quiet++;
		}
		for (size_t q = 0; q < b->procs.n; q++)
			others += q != f->proc && TL_AT(&b->procs, struct rt_tl_proc, q)->host == P->host;
		/* what its QPs were sent meanwhile */
		uint32_t reqs = 0, resent = 0, first = RT_TL_NONE;
		for (size_t j = 0; j < tl_npk(b); j++) {
			const struct tl_pk *pk = tl_pk(b, j);
			uint64_t tj = item_t(c, tl_item_pk(b, j));
			if (tj <= t0 || tj >= t1 || pk->recv_qp >= b->qps.n || tl_qp(b, pk->recv_qp)->proc != f->proc || pk->is_cm)
				continue;
			reqs++;
			resent += pk->retrans && !pk->wire_copy;
			if (first == RT_TL_NONE)
				first = (uint32_t)j;
		}
		struct text t = {.n = 0}, e = {.n = 0};
		proc_words(b, f->proc, &t);
		tx(&t, " froze for %.3f s, from %.6f s to %.6f s: it left no record at all in that time, "
		       "not even its collector's clock notes, which come every second while it records (SIGSTOP or "
		       "Ctrl-Z, a debugger, or a machine that did not run it)",
		   (double)(t1 - t0) / 1e9, (double)t0 / 1e9, (double)t1 / 1e9);
		if (others && quiet == others)
			tx(&t, "; every other traced process on %s froze with it: the machine itself stopped (a paused or "
			       "starved virtual machine, a suspend)", host_name(b, P->host));
		tx(&t, ".");
		char sent[96] = "";
		if (reqs)
			snprintf(sent, sizeof(sent), "%u packet%s", reqs, reqs == 1 ? "" : "s");
		if (reqs && resent)
			snprintf(sent + strlen(sent), sizeof(sent) - strlen(sent), " (%u of them resends)", resent);
		if ((proc_flags(c, f->proc) & PF_ENGINE) && reqs)
			tx(&t, " Its transport runs in the program (an engine, as uroce's), so it stopped too: its QPs "
			       "were sent %s meanwhile, which it took in (and answered) only when it went on.", sent);
		else if (reqs)
			tx(&t, " Its QPs were sent %s meanwhile, which the kernel's transport answered, but the program "
			       "polled no completion and posted no receive.", sent);
		tx(&e, "last record before at %.6f s (%s), first after at %.6f s (%s)", (double)t0 / 1e9,
		   rt_event_kind_name(tl_ev(b, f->from)->ev.kind), (double)t1 / 1e9,
		   rt_event_kind_name(tl_ev(b, f->to)->ev.kind));
		if (first != RT_TL_NONE)
			tx(&e, "; first packet to it meanwhile frame %u", tl_pk(b, first)->frame);
		uint32_t q = first != RT_TL_NONE ? tl_pk(b, first)->recv_qp : RT_TL_NONE;
		long fi = finding(b, RT_TLFK_PROCESS_FROZEN, reqs ? RT_TLS_WARNING : RT_TLS_INFO, t0, q,
				  reqs ? t1 - t0 : 0, 0, &t, &e);
		if (fi < 0)
			return -ENOMEM;
		tl_finding_evidence(b, FI(b, fi), f->from);
		tl_finding_evidence(b, FI(b, fi), f->to);
		if (first != RT_TL_NONE)
			tl_finding_evidence(b, FI(b, fi), tl_item_pk(b, first));
	}
	return 0;
}

/* A recording cut off: its collector, which runs in the traced process and
 * notes the clock every second while it records (RT_EV_CLOCK_SYNC), stopped
 * CUT_NS and more before the run did, with no end record. */
#define CUT_NS 3000000000ull

/* The disconnect request (DREQ) the capture holds from process p's address
 * within 5 s after its last record (at t_last, of any kind), when p never
 * called rdma_disconnect: the kernel's CM sends it for a connection whose
 * process is gone (a killed process's cm_ids are destroyed as its files are
 * closed).  RT_TL_NONE when there is none. */
static uint32_t orphan_dreq(struct dctx *c, uint16_t p, uint64_t t_last)
{
	struct tl_build *b = c->b;
	if (!b->have_capture)
		return RT_TL_NONE;
	for (size_t i = 0; i < b->cm_evs.n; i++) {
		const struct tl_evrec *e = tl_ev(b, *TL_AT(&b->cm_evs, uint32_t, i));
		if (e->proc == p && e->ev.u.cm.event == RT_CM_CALL_DISCONNECT)
			return RT_TL_NONE;
	}
	for (size_t j = 0; j < tl_npk(b); j++) {
		const struct tl_pk *k = tl_pk(b, j);
		if (!k->is_cm || k->cm_attr != RT_CM_DREQ || k->src_ep >= b->eps.n)
			continue;
		const struct tl_ep *src = TL_AT(&b->eps, struct tl_ep, k->src_ep);
		uint64_t t = item_t(c, tl_item_pk(b, j));
		if (src->proc == p && !src->proc_ambiguous && t + 1000000 >= t_last && t <= t_last + 5000000000ull)
			return (uint32_t)j;
	}
	return RT_TL_NONE;
}

/* Find the recordings cut off (c->cuts, per process; left NULL when no
 * trace notes the clock).  A process is judged when its trace has no end
 * record and was neither salvaged nor written by a flight recorder (which
 * writes on a trigger), its collector noted the clock, and it still had a
 * QP at its last record (one that destroyed its QPs was ending on its own:
 * rping's client on the VM lab, whose machine stopped before its end record
 * was written).  It was cut off when the run went on: another process's
 * records (on its host, or on one whose clock is known with it to within a
 * second) or the capture's packets (the same) came CUT_NS after its last
 * record, or the kernel sent a DREQ for it (orphan_dreq).  -ENOMEM. */
static int cut_off_recordings(struct dctx *c)
{
	struct tl_build *b = c->b;
	size_t np = b->procs.n;
	if (!any_synced(b))
		return 0;
	uint32_t *last = malloc((np + 1) * sizeof(uint32_t));
	int32_t *qps = calloc(np + 1, sizeof(int32_t)); /* QPs created less those destroyed */
	c->cuts = calloc(np + 1, sizeof(struct cut));
	if (!last || !qps || !c->cuts) {
		free(last);
		free(qps);
		return -ENOMEM;
	}
	for (size_t p = 0; p < np; p++)
		last[p] = RT_TL_NONE;
	for (size_t i = 0; i < tl_nev(b); i++) { /* (a host's records are in its time order) */
		const struct tl_evrec *e = tl_ev(b, i);
		if (e->proc >= np)
			continue;
		last[e->proc] = (uint32_t)i;
		if (e->ev.kind == RT_EV_QP_CREATE && !(e->ev.flags & RT_EVF_ERROR))
			qps[e->proc] += e->ev.flags & RT_EVF_DESTROY ? -1 : 1;
	}
	for (size_t p = 0; p < np; p++) {
		uint64_t salvaged = p < b->proc_salvaged.n ? *TL_AT(&b->proc_salvaged, uint64_t, p) : 0;
		if (!(proc_bits(b, p) & TL_PROC_SYNCED) || qps[p] <= 0 || (proc_bits(b, p) & TL_PROC_FLIGHT) ||
		    salvaged || proc_end_record(b, (uint16_t)p) != RT_TL_NONE)
			continue;
		uint16_t h = TL_AT(&b->procs, struct rt_tl_proc, p)->host;
		uint64_t t_last = item_t(c, last[p]), went_on = 0;
		for (size_t q = 0; q < np; q++) {
			uint16_t hq = TL_AT(&b->procs, struct rt_tl_proc, q)->host;
			if (q != p && last[q] != RT_TL_NONE && clocks_uncertainty(b, h, hq) < 1000000000ull &&
			    item_t(c, last[q]) > went_on)
				went_on = item_t(c, last[q]);
		}
		if (b->have_capture && c->cap_end > went_on && clocks_uncertainty(b, h, b->capture_host) < 1000000000ull)
			went_on = c->cap_end;
		struct cut *f = &c->cuts[p];
		f->dreq = went_on > t_last + CUT_NS ? RT_TL_NONE : orphan_dreq(c, (uint16_t)p, t_last);
		f->until = f->dreq != RT_TL_NONE ? item_t(c, tl_item_pk(b, f->dreq)) : went_on > t_last + CUT_NS ? went_on : 0;
		if (!f->until)
			continue;
		/* what the capture says of the program after it */
		f->t_stop = t_last;
		f->last_pk = b->have_capture ? proc_last_packet(b, (uint16_t)p) : RT_TL_NONE;
		if (f->last_pk == RT_TL_NONE)
			continue;
		f->t_pk = item_t(c, tl_item_pk(b, f->last_pk));
		uint64_t unc = clocks_uncertainty(b, h, b->capture_host);
		f->ran_on = unc != UINT64_MAX && f->t_pk > f->t_stop + unc + 1000000000ull;
	}
	free(last);
	free(qps);
	return 0;
}

/* Every process that crashed, was killed or ended without its exit handler,
 * or whose recording was cut off: what it was doing last, what it left
 * undone, how its peers found out. */
static int process_ends(struct dctx *c)
{
	struct tl_build *b = c->b;
	size_t np = b->procs.n;
	if (!np)
		return 0;
	int rc = cut_off_recordings(c);
	if (rc < 0 || !(c->proc_gone = calloc(np + 1, sizeof(uint64_t))))
		return -ENOMEM;
	/* when each process ended, for its peers' findings */
	for (size_t p = 0; p < np; p++) {
		uint32_t end = proc_end_record(b, (uint16_t)p), lastrec;
		const struct rt_ev_process_end *pe = end != RT_TL_NONE ? &tl_ev(b, end)->ev.u.process_end : NULL;
		uint64_t salvaged_ns = p < b->proc_salvaged.n ? *TL_AT(&b->proc_salvaged, uint64_t, p) : 0;
		const struct cut *cut = cut_of(c, p);
		if (end != RT_TL_NONE || salvaged_ns || cut) {
			uint64_t te = proc_end_time(c, (uint16_t)p, end, &lastrec);
			/* a recording cut off may have lost its last moments: the capture saw them; one
			 * whose program ran on says nothing of its end */
			if (cut && cut->last_pk != RT_TL_NONE && cut->t_pk > te)
				te = cut->t_pk;
			if (cut && cut->ran_on)
				te = 0;
			/* (an exit with status 0 is no finding) */
			bool quiet = pe && !pe->signal && pe->how != RT_END_SIGNAL &&
				     !(pe->how == RT_END_EXIT ? pe->has_code && pe->code : pe->code);
			c->proc_gone[p] = quiet ? 0 : te;
		}
	}
	/* the exits with a status after the other ends: a peer's crash or kill
	 * is a problem that may be why a process gave up */
	for (int exits = 0; exits < 2 && !rc; exits++) {
		bool others = false; /* a warning or an error found so far */
		for (size_t f = 0; f < b->findings.n && exits; f++)
			if (FI(b, (long)f)->severity != RT_TLS_INFO)
				others = true;
		for (size_t p = 0; p < np && !rc; p++) {
			uint32_t end = proc_end_record(b, (uint16_t)p);
			const struct rt_ev_process_end *pe = end != RT_TL_NONE ? &tl_ev(b, end)->ev.u.process_end : NULL;
			bool exited_0 = pe && pe->how == RT_END_EXIT && (!pe->has_code || !pe->code);
			uint64_t salvaged_ns = p < b->proc_salvaged.n ? *TL_AT(&b->proc_salvaged, uint64_t, p) : 0;
			if (exited_0 || (end == RT_TL_NONE && !salvaged_ns && !cut_of(c, p)))
				continue; /* it exited 0, or nothing says it did not */
			if ((pe && pe->how == RT_END_EXIT) != (exits == 1))
				continue;
			uint32_t last = proc_last_record(b, (uint16_t)p, end);
			bool salvaged = last != RT_TL_NONE && salvaged_ns && tl_ev(b, last)->raw_ns <= salvaged_ns;
			if (end == RT_TL_NONE && !salvaged && (!cut_of(c, p) || last == RT_TL_NONE))
				continue;
			rc = proc_end_finding(c, (uint16_t)p, end, last, salvaged, others);
		}
	}
	return rc;
}

int tl_detect(struct tl_build *b)
{
	struct dctx c;
	memset(&c, 0, sizeof(c));
	c.b = b;
	c.cap_end = capture_end(b);
	struct tl_vec bursts;
	tl_vec_init(&bursts, sizeof(struct burst));
	tl_vec_init(&c.rounds_told, sizeof(struct round_told));
	tl_vec_init(&c.rnr_timer_sets, sizeof(uint32_t));
	int rc = index_links(&c);
	if (!rc)
		rc = injected_read(&c);
	if (!rc)
		unseen_first_transmissions(&c);
	if (!rc)
		rc = find_freezes(&c);
	if (!rc)
		rc = collect_bursts(&c, &bursts);
	if (!rc)
		rc = rnr_stalls(&c, &bursts);
	if (!rc)
		rc = rnr_events(&c);
	if (!rc)
		rc = nak_errors(&c);
	if (!rc)
		rc = nak_error_events(&c);
	if (!rc)
		rc = emit_bursts(&c, &bursts);
	if (!rc)
		rc = error_completions(&c, &bursts);
	if (!rc)
		rc = retry_events(&c);
	if (!rc)
		rc = retransmission_storms(&c);
	if (!rc)
		rc = wire_anomalies(&c);
	if (!rc)
		rc = traced_rejects(&c);
	if (!rc)
		rc = wire_copies(&c);
	if (!rc)
		rc = response_copies(&c);
	if (!rc)
		rc = ud_copies(&c);
	if (!rc)
		rc = late_requests(&c);
	if (!rc)
		rc = cm_retries(&c);
	if (!rc)
		rc = post_refusals(&c);
	if (!rc)
		rc = call_failures(&c);
	if (!rc)
		rc = async_errors(&c);
	if (!rc)
		rc = qp_setups(&c);
	if (!rc)
		rc = cm_options(&c, &bursts);
	if (!rc)
		rc = unreliable_loss(&c);
	if (!rc)
		rc = unreliable_tail_loss(&c);
	if (!rc)
		rc = receiver_drops(&c);
	if (!rc)
		rc = held_packets(&c);
	if (!rc)
		rc = process_ends(&c);
	if (!rc)
		rc = process_freezes(&c);
	if (!rc)
		rc = untraced_ends(b);
	if (!rc)
		rc = uncaptured_qps(&c);
	if (!rc)
		rc = inputs_and_clocks(b);
	if (!rc)
		rank(b);
	if (!rc)
		round_causes(b, &bursts);
	if (!rc)
		rc = tl_stats_start(b, &c.li); /* takes the link index */
	tl_vec_free(&bursts);
	tl_vec_free(&c.rounds_told);
	tl_vec_free(&c.rnr_timer_sets);
	if (c.injected_read)
		tl_hash_free(&c.injected);
	tl_link_index_free(&c.li);
	free(c.explained);
	free(c.pk_used);
	free(c.qp_explained);
	free(c.proc_flags);
	free(c.proc_gone);
	free(c.cuts);
	free(c.freezes);
	free(c.qp_captured);
	free(c.qp_first_error);
	free(c.qp_end);
	if (c.rq) {
		free(c.rq->off);
		free(c.rq->ev);
		free(c.rq->skip);
		free(c.rq->from);
		free(c.rq);
	}
	return rc;
}

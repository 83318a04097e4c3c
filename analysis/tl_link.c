/*
 * Linking: who is who and what belongs to what.
 *
 *  1. QPs: trace QPs are (host, QPN); wire QPs are (IP address, QPN).  Peers
 *     come from the CM exchange on the wire (REQ/REP local QPNs), from the
 *     QP attributes in the traces (dest_qpn), from rxe's UDP source port
 *     hash, or from traffic when an address pair carries one QP pair only.
 *     Addresses map to hosts through CM events and the QPN pairs.
 *  2. Send WRs get their PSN range (predicted by the probe, or computed from
 *     sq_psn, the path MTU and the opcode), then every request packet on the
 *     wire and every engine packet event is tied to its WR by PSN.
 *  3. The requester stream of each connection is replayed in capture order:
 *     retransmissions (with their trigger; an engine packet event matched to
 *     the packet also tells a resend), duplicates, PSN gaps, and the
 *     ACK / NAK / RNR NAK answering each request.
 *  4. Completions close WRs (a signaled completion also covers the
 *     unsignaled WRs before it), receive WRs are consumed in order by the
 *     messages that need them, CM packets meet their CM events.
 *  5. Every link with a time on both sides yields a causal clock constraint.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rdmatrace/qp_rules.h"
#include "tl_hash.h"
#include "tl_internal.h"

struct wkey {                 /* a wire QP: address + QPN */
	uint32_t ep, qpn;
	uint32_t peer;            /* index into wkeys, RT_TL_NONE */
	uint32_t qp;              /* final QP list index */
	uint32_t first_req_psn;   /* first request PSN sent by this QP (as peer of its receiver) */
	bool have_first;
	bool have_first_in;       /* it received a request: the first is packet first_in_pk, PSN first_in_psn */
	uint32_t first_in_pk, first_in_psn;
	uint32_t max_seg;         /* largest FIRST/MIDDLE payload: the path MTU */
	bool answered;            /* the capture holds a response or ACK sent to it */
	bool have_start;          /* its CM REQ or REP named its starting PSN, start_psn */
	uint32_t start_psn;
};

struct wr_ent {               /* a send WR with its PSN range */
	uint64_t first_u;         /* unwrapped first PSN */
	uint32_t n;               /* PSNs it uses */
	uint32_t item;
	uint64_t raw_ns;          /* its post event's, at hand for its first packet's clock */
	uint16_t host;            /* constraint (wire_streams) without a miss into the events */
};

/* gap_note()'s state over the request streams, in capture order. */
struct gap_scan {
	uint32_t *top;            /* per stream: the highest request PSN captured */
	uint32_t *next;           /* per stream: the PSN after its last request captured (RT_TL_NONE
				   * after a READ request, which spans more) */
	uint8_t *seen;            /* per stream: a request was */
	uint8_t *qp;              /* per QP: GAP_QP or GAP_WR for all its WRs */
	uint8_t *wr;              /* per event: GAP_WR for a send WR */
	struct tl_vec skips;      /* struct gap_skip: resends that skipped PSNs of their round */
};

/* A resend that skipped PSNs of its round (from up to its own): a gap,
 * unless each skipped PSN passes the capture point later, held back on the
 * way (tl_pk.late), which is known only once the stream has been read. */
struct gap_skip {
	uint32_t pk;              /* the resend (packet index) */
	uint32_t from;            /* the first PSN it skipped */
};

/* recv_note()'s state: the messages that consume receives, in capture order. */
struct recv_scan {
	uint32_t *cons;           /* per event: a consuming send WR's latest packet */
	uint8_t *gap;             /* per receiving QP: a request came out of order */
	uint8_t *by_wr;           /* per receiving QP: paired by the peer's WRs */
	struct fifo *msg;         /* per receiving QP: the captured consuming messages */
	struct tl_hash last;      /* (QP, PSN) -> its entry in msg */
};

struct qp_psns {
	int64_t sq, rq;           /* first send and receive PSN, -1 unknown (trace_psns) */
};

struct lctx {
	struct tl_build *b;
	struct tl_hash tq;        /* (process << 32 | qpn) -> qp index: QPNs repeat across hosts and uroce processes */
	size_t ntq;               /* trace QPs are the first ntq of the QP list */
	struct tl_hash wq;        /* (ep << 32 | qpn) -> wkey index */
	struct tl_vec wkeys;      /* struct wkey */
	uint32_t *wr_first, *wr_n; /* per event (send WRs) */
	struct wr_ent *wrs;       /* sorted by qp, then post order */
	uint32_t *wr_qp_start;    /* per qp: first entry; [nqp] = total */
	uint8_t *wr_sorted;       /* per qp: its entries ascend by first_u */
	uint32_t *ev_pk;          /* per event: the wire packet an engine packet event is (RT_TL_NONE); NULL without them */
	uint32_t *ev_tx;          /* per event: the engine send event of a received packet */
	struct tl_vec pairs;      /* struct wr_pair: receives paired with the peer's send WR but
				   * with no captured message (causal_constraints) */
	struct tl_vec cm_pks;     /* uint32_t: the CM packets, in order (wire_qps) */
	struct fifo *recvs;       /* per QP: its receive WRs in post order (completions(), for recv_consumers) */
	struct fifo *sends;       /* per QP: its send WRs that consume a receive at the peer, likewise */
	struct cev *ce;           /* per event: what the clock constraints read of it (completions()) */
	struct cpk *cpk;          /* per packet: likewise (wire_streams) */
	uint8_t *past_completion; /* bit per packet: it may pass the capture point after its WR completed (wire_streams) */
	struct gap_scan gap;      /* the capture's gaps (wire_streams, for completions) */
	struct recv_scan recv;    /* the consumers of receives (wire_streams, for recv_consumers) */
	struct qp_psns *tq_psn;   /* per trace QP (trace_psns) */
};

struct wr_pair {
	uint32_t recv, send;      /* event items */
};

static uint64_t K2(uint32_t a, uint32_t b)
{
	return (uint64_t)a << 32 | b;
}

static struct wkey *WK(struct lctx *c, size_t i)
{
	return TL_AT(&c->wkeys, struct wkey, i);
}

static uint32_t qp_new(struct tl_build *b, uint16_t host, uint32_t qpn)
{
	struct rt_tl_qp *q = tl_vec_push(&b->qps);
	if (!q)
		return RT_TL_NONE;
	q->qpn = qpn;
	q->host = host;
	q->proc = UINT16_MAX;
	q->peer = RT_TL_NONE;
	q->timeout = q->retry_cnt = q->rnr_retry = q->min_rnr_timer = 0xFF;
	q->qp_type = 2;
	q->lat_p50_ns = q->lat_p99_ns = q->lat_max_ns = UINT64_MAX;
	q->post_to_wire_p50_ns = q->ack_p50_ns = q->poll_delay_p50_ns = UINT64_MAX;
	return (uint32_t)(b->qps.n - 1);
}

static bool ev_has_qp(const struct rt_event *ev)
{
	switch (ev->kind) {
	case RT_EV_WR_POST:
		return ev->u.wr.queue != RT_WRQ_SRQ_RECV && ev->qpn;
	case RT_EV_COMPLETION: case RT_EV_PACKET: case RT_EV_RETRY: case RT_EV_RNR: case RT_EV_QP_STATE:
	case RT_EV_QP_CREATE: case RT_EV_CM_EVENT: case RT_EV_TIMER: case RT_EV_ASYNC: case RT_EV_VERBS_CALL:
	case RT_EV_QP_AV:
		return ev->qpn != 0;
	default:
		return false;
	}
}

static uint32_t ep_of_ip4(struct tl_build *b, uint32_t ip_net)
{
	uint8_t ip[4];
	uint32_t hint = RT_TL_NONE;
	memcpy(ip, &ip_net, 4);
	return tl_ep_find_or_add(b, 4, ip, &hint);
}

/* An address is used by this host / process. */
void tl_ep_claim(struct tl_ep *e, uint16_t host, uint16_t proc)
{
	if (e->host == UINT16_MAX)
		e->host = host;
	if (proc == UINT16_MAX || e->proc_ambiguous)
		return;
	if (e->proc == UINT16_MAX)
		e->proc = proc;
	else if (e->proc != proc)
		e->proc_ambiguous = true;
}

/* The key of a CM event for pairing the engine's copy with the probe's:
 * process, event (or call) and QP.  (The two may number the rdma_cm_id
 * differently.) */
static uint64_t cm_pair_key(const struct tl_evrec *e)
{
	return (uint64_t)e->proc << 40 | (uint64_t)e->ev.u.cm.event << 32 | e->ev.qpn;
}

/* A probe copy recorded at most this long before the engine's copy of the
 * same CM event pairs with it (the two threads stamp their records apart). */
#define CM_PAIR_EARLY_NS 1000000ull

/* Pairs the engine's CM events with the probe's (mark_shadows): in time
 * order, a probe event takes the latest engine event of its key not yet
 * paired (the engine records an event as its rdma_cm makes it, the probe
 * when the program takes it), or, when there is none, waits for one that
 * comes within CM_PAIR_EARLY_NS.  The paired engine events are shadows.
 * The unpaired events of a key form a stack of nodes, its top in a hash. */
struct cm_pair_node {
	uint32_t below;           /* the node under it + 1, 0 none */
	uint32_t ev;              /* its event */
};

static int pair_cm_shadows(struct tl_build *b)
{
	struct tl_hash top;       /* key -> node + 1 of the latest unpaired event (engine, or a waiting probe one) */
	struct tl_vec nodes;      /* struct cm_pair_node */
	tl_vec_init(&nodes, sizeof(struct cm_pair_node));
	if (tl_hash_init(&top, 64) < 0)
		return -ENOMEM;
	int rc = 0;
	for (size_t i = 0; i < b->cm_evs.n && !rc; i++) {
		uint32_t x = *TL_AT(&b->cm_evs, uint32_t, i);
		const struct tl_evrec *e = tl_ev(b, x);
		bool engine = (e->ev.flags & RT_EVF_ENGINE) != 0;
		uint64_t key = cm_pair_key(e);
		uint32_t *t = tl_hash_get(&top, key);
		/* the node on top: an engine event a probe event takes, or a probe
		 * event (recorded first) an engine event takes */
		if (t && *t) {
			const struct cm_pair_node *n = TL_AT(&nodes, struct cm_pair_node, *t - 1);
			const struct tl_evrec *o = tl_ev(b, n->ev);
			bool o_engine = (o->ev.flags & RT_EVF_ENGINE) != 0;
			if (o_engine != engine && (engine ? e->raw_ns <= o->raw_ns + CM_PAIR_EARLY_NS : true)) {
				b->ev_shadow[engine ? x : n->ev] = 1;
				*t = n->below;
				continue;
			}
		}
		uint32_t below = t ? *t : 0;
		struct cm_pair_node *n = tl_vec_push(&nodes);
		if (!n) {
			rc = -ENOMEM;
			break;
		}
		*n = (struct cm_pair_node){.below = below, .ev = x};
		if (t)
			*t = (uint32_t)nodes.n;
		else if (tl_hash_put(&top, key, (uint32_t)nodes.n) < 0)
			rc = -ENOMEM;
	}
	tl_vec_free(&nodes);
	tl_hash_free(&top);
	return rc;
}

/* A process run with both the engine (uroce) and the probe records WR posts,
 * completions, QP, CM, setup and asynchronous events twice: the application's view (the
 * probe: posted / polled) is linked and shown; the engine's copy is kept
 * as an event but gets no row (tl_finish).  probe_kinds: per process, the
 * kinds of event its probe recorded (bits).
 *
 * A CM event the program never took from an event channel has no probe
 * copy: a synchronous rdma_cm_id's (rdma_create_ep without a channel,
 * whose rdma_connect and rdma_accept wait for ESTABLISHED inside
 * librdmacm), or one still queued when the program ended.  The engine's
 * copy is then the only record that it happened, so it stays: only the
 * engine's CM events paired with one of the probe's are shadows
 * (pair_cm_shadows). */
static int mark_shadows(struct tl_build *b, const uint32_t *probe_kinds)
{
	size_t nev = tl_nev(b), np = b->procs.n;
	for (size_t i = 0; i < nev; i++) {
		struct tl_evrec *e = tl_ev(b, i);
		unsigned k = e->ev.kind;
		if ((e->ev.flags & RT_EVF_ENGINE) && e->proc < np && k < 32 && (probe_kinds[e->proc] & (1u << k)) &&
		    (k == RT_EV_WR_POST || k == RT_EV_COMPLETION || k == RT_EV_QP_STATE || k == RT_EV_QP_CREATE ||
		     k == RT_EV_CQ_CREATE || k == RT_EV_MR || k == RT_EV_PD || k == RT_EV_SRQ_CREATE ||
		     k == RT_EV_DEVICE || k == RT_EV_ASYNC))
			b->ev_shadow[i] = 1;
	}
	return pair_cm_shadows(b);
}

/* A failed verbs or RDMA CM call the diagnosis explains (a destroy's failure aside). */
static bool call_failed(const struct rt_event *ev)
{
	if (!(ev->flags & RT_EVF_ERROR) || (ev->flags & RT_EVF_DESTROY))
		return false;
	switch (ev->kind) {
	case RT_EV_QP_STATE: case RT_EV_MR: case RT_EV_QP_CREATE: case RT_EV_CQ_CREATE: case RT_EV_SRQ_CREATE:
	case RT_EV_PD: case RT_EV_VERBS_CALL:
		return true;
	case RT_EV_CM_EVENT:
		return ev->u.cm.event >= RT_CM_CALL_CREATE_ID && ev->u.cm.status != 0;
	default:
		return false;
	}
}

/* Event i in one of the build's short lists of events (cm_links and the
 * detectors take the few CM events, the detectors the refused WRs, from them). */
static int note_event(struct tl_vec *list, size_t i)
{
	uint32_t *v = tl_vec_push(list);
	if (!v)
		return -ENOMEM;
	*v = (uint32_t)i;
	return 0;
}

/* 1a. trace QPs and their attributes; CM events map addresses to hosts. */
static int trace_qps(struct lctx *c)
{
	struct tl_build *b = c->b;
	size_t nev = tl_nev(b), np = b->procs.n;
	b->ev_qp = malloc((nev ? nev : 1) * sizeof(uint32_t));
	b->ev_shadow = calloc(nev ? nev : 1, 1);
	uint32_t *probe_kinds = calloc(np + 1, sizeof(uint32_t)); /* for mark_shadows() */
	bool engine = false;      /* an engine's event: there may be shadows */
	if (!b->ev_qp || !b->ev_shadow || !probe_kinds) {
		free(probe_kinds);
		return -ENOMEM;
	}
	int rc = 0;
	for (size_t i = 0; i < nev && !rc; i++) {
		struct tl_evrec *e = tl_ev(b, i);
		const struct rt_event *ev = &e->ev;
		if (ev->flags & RT_EVF_ENGINE)
			engine = true;
		else if (e->proc < np && ev->kind < 32)
			probe_kinds[e->proc] |= 1u << ev->kind;
		b->ev_qp[i] = RT_TL_NONE;
		if ((ev->kind == RT_EV_CM_EVENT && note_event(&b->cm_evs, i) < 0) ||
		    (ev->kind == RT_EV_WR_POST && (ev->u.wr.flags & RT_WRF_POST_FAILED) && note_event(&b->refused, i) < 0) ||
		    (call_failed(ev) && note_event(&b->failed, i) < 0) ||
		    (ev->kind == RT_EV_PROCESS_END && note_event(&b->ends, i) < 0) ||
		    (ev->kind == RT_EV_ASYNC && note_event(&b->asyncs, i) < 0) ||
		    (ev->kind == RT_EV_QP_AV && note_event(&b->avs, i) < 0) ||
		    (ev->kind == RT_EV_QP_STATE && ev->u.qp_state.to_state == 3 && !(ev->flags & RT_EVF_ERROR) &&
		     note_event(&b->rts, i) < 0) ||
		    (((ev->kind == RT_EV_MR && !(ev->flags & RT_EVF_ERROR)) || tl_mw_wr(ev) ||
		      (ev->kind == RT_EV_QP_CREATE && !(ev->flags & (RT_EVF_ERROR | RT_EVF_DESTROY))) ||
		      (ev->kind == RT_EV_QP_STATE && !(ev->flags & RT_EVF_ERROR) &&
		       (ev->u.qp_state.av_flags & RT_QPS_ACCESS_RECORDED))) &&
		     note_event(&b->rights, i) < 0) ||
		    (ev->kind == RT_EV_VERBS_CALL && ev->u.verbs_call.call == RT_VC_ATTACH_MCAST &&
		     !(ev->flags & RT_EVF_ERROR) && note_event(&b->attaches, i) < 0) ||
		    (((ev->kind == RT_EV_COMPLETION && ev->u.wc.status) ||
		      (ev->kind == RT_EV_QP_STATE && ev->u.qp_state.to_state == 6)) &&
		     note_event(&b->errs, i) < 0) ||
		    (ev->kind == RT_EV_PACKET && (ev->u.pkt.flags & RT_PKTF_DROPPED) && note_event(&b->drops, i) < 0) ||
		    (ev->kind == RT_EV_RNR && (ev->flags & RT_EVF_TX) && (ev->u.rnr.rnr_flags & RT_RNRF_INJECTED) &&
		     note_event(&b->rnr_injected, i) < 0)) {
			rc = -ENOMEM;
			break;
		}
		if (ev->kind == RT_EV_CM_EVENT && ev->u.cm.family == 2 && ev->u.cm.local_ip4) {
			uint32_t ep = ep_of_ip4(b, ev->u.cm.local_ip4);
			if (ep != RT_TL_NONE)
				tl_ep_claim(TL_AT(&b->eps, struct tl_ep, ep), e->host, e->proc);
		}
		if (!ev_has_qp(ev))
			continue;
		uint64_t key = K2(e->proc, ev->qpn);
		uint32_t *v = tl_hash_get(&c->tq, key);
		uint32_t q;
		if (v) {
			q = *v;
		} else {
			q = qp_new(b, e->host, ev->qpn);
			if (q == RT_TL_NONE || tl_hash_put(&c->tq, key, q) < 0) {
				rc = -ENOMEM;
				break;
			}
			tl_qp(b, q)->proc = e->proc;
		}
		b->ev_qp[i] = q;
		struct rt_tl_qp *Q = tl_qp(b, q);
		Q->flags |= RT_TLQ_TRACED;
		if (Q->proc == UINT16_MAX)
			Q->proc = e->proc;
		if (ev->kind == RT_EV_QP_STATE) {
			const struct rt_ev_qp_state *s = &ev->u.qp_state;
			if (s->result)
				continue;
			if ((s->attr_mask & RT_QPA_DEST_QPN) && s->dest_qpn)
				Q->peer_qpn = s->dest_qpn;
			if ((s->attr_mask & RT_QPA_PATH_MTU) && s->path_mtu)
				Q->mtu = s->path_mtu;
			if (s->attr_mask & RT_QPA_TIMEOUT)
				Q->timeout = s->timeout;
			if (s->attr_mask & RT_QPA_RETRY_CNT)
				Q->retry_cnt = s->retry_cnt;
			if (s->attr_mask & RT_QPA_RNR_RETRY)
				Q->rnr_retry = s->rnr_retry;
			if (s->attr_mask & RT_QPA_MIN_RNR_TIMER)
				Q->min_rnr_timer = s->min_rnr_timer;
			if (s->qp_type)
				Q->qp_type = s->qp_type;
			if (s->to_state == 6)
				Q->flags |= RT_TLQ_ERROR;
		} else if (ev->kind == RT_EV_QP_CREATE && !(ev->flags & RT_EVF_DESTROY)) {
			Q->qp_type = ev->u.qp_create.qp_type;
		} else if (ev->kind == RT_EV_CM_EVENT) {
			Q->flags |= RT_TLQ_CM;
		}
	}
	if (!rc && engine)
		rc = mark_shadows(b, probe_kinds);
	free(probe_kinds);
	return rc;
}

static uint32_t wkey_get(struct lctx *c, uint32_t ep, uint32_t qpn)
{
	uint64_t key = K2(ep, qpn);
	uint32_t *v = tl_hash_get(&c->wq, key);
	if (v)
		return *v;
	struct wkey *w = tl_vec_push(&c->wkeys);
	if (!w || tl_hash_put(&c->wq, key, (uint32_t)(c->wkeys.n - 1)) < 0)
		return RT_TL_NONE;
	w->ep = ep;
	w->qpn = qpn;
	w->peer = w->qp = RT_TL_NONE;
	return (uint32_t)(c->wkeys.n - 1);
}

static void wpair(struct lctx *c, uint32_t a, uint32_t b)
{
	if (a == RT_TL_NONE || b == RT_TL_NONE || a == b)
		return;
	if (WK(c, a)->peer == RT_TL_NONE && WK(c, b)->peer == RT_TL_NONE) {
		WK(c, a)->peer = b;
		WK(c, b)->peer = a;
	}
}

/* Wire key w sends from the starting PSN its CM message, packet pk, names. */
static void wkey_start(struct lctx *c, uint32_t w, uint32_t pk)
{
	const struct tl_cm_info *ci = tl_cm_info(c->b, pk);
	if (ci && !WK(c, w)->have_start) {
		WK(c, w)->have_start = true;
		WK(c, w)->start_psn = ci->start_psn;
	}
}

/* How many wire keys have no peer yet. */
static size_t unpaired_keys(struct lctx *c)
{
	size_t n = 0;
	for (size_t j = 0; j < c->wkeys.n; j++)
		n += WK(c, j)->peer == RT_TL_NONE;
	return n;
}

/* 1b. wire QPs and their peers. */
static int wire_qps(struct lctx *c)
{
	struct tl_build *b = c->b;
	size_t npk = tl_npk(b);
	struct tl_hash req; /* CM REQ local comm id -> packet */
	struct tl_vec bad;  /* uint32_t: packets with a bad ICRC, placed after the others */
	tl_vec_init(&bad, sizeof(uint32_t));
	if (tl_hash_init(&req, 16) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < npk; i++) {
		struct tl_pk *k = tl_pk(b, i);
		/* a packet with a bad ICRC may have damaged headers (addresses,
		 * QPN): it joins a QP the intact packets show, never makes one */
		if (k->icrc == RT_ICRC_BAD && !k->is_cm && (k->is_request || k->is_response)) {
			uint32_t *x = tl_vec_push(&bad);
			if (!x)
				goto nomem;
			*x = (uint32_t)i;
			continue;
		}
		if (k->is_cm) {
			uint32_t *cm = tl_vec_push(&c->cm_pks); /* for cm_links */
			if (!cm)
				goto nomem;
			*cm = (uint32_t)i;
			if (k->icrc == RT_ICRC_BAD)
				continue;
			if (k->cm_attr == RT_CM_REQ && k->cm_local_qpn) {
				uint32_t me = wkey_get(c, k->src_ep, k->cm_local_qpn);
				if (me == RT_TL_NONE || tl_hash_put(&req, k->cm_comm_id, (uint32_t)i) < 0)
					goto nomem;
				wkey_start(c, me, (uint32_t)i);
			} else if (k->cm_attr == RT_CM_REP && k->cm_local_qpn) {
				uint32_t *r = tl_hash_get(&req, k->cm_remote_comm_id);
				uint32_t me = wkey_get(c, k->src_ep, k->cm_local_qpn);
				if (me == RT_TL_NONE)
					goto nomem;
				wkey_start(c, me, (uint32_t)i);
				if (r) {
					struct tl_pk *q = tl_pk(b, *r);
					wpair(c, wkey_get(c, q->src_ep, q->cm_local_qpn), me);
				}
			}
			continue;
		}
		if (!k->is_request && !k->is_response)
			continue;
		uint32_t w = wkey_get(c, k->dst_ep, k->dqpn);
		if (w == RT_TL_NONE)
			goto nomem;
		k->recv_qp = w; /* wkey index for now */
		if (k->is_response)
			WK(c, w)->answered = true;
		if (k->is_request && !WK(c, w)->have_first_in) {
			WK(c, w)->have_first_in = true;
			WK(c, w)->first_in_pk = (uint32_t)i;
			WK(c, w)->first_in_psn = k->psn;
		}
		/* full-size packets (requests, or READ responses to the requester) show the path MTU */
		if ((k->is_request || k->op_class == RT_CLASS_READ_RESP) &&
		    (k->position == RT_POS_FIRST || k->position == RT_POS_MIDDLE) && k->payload_len > WK(c, w)->max_seg)
			WK(c, w)->max_seg = k->payload_len;
	}
	tl_hash_free(&req);
	for (size_t x = 0; x < bad.n; x++) {
		struct tl_pk *k = tl_pk(b, *TL_AT(&bad, uint32_t, x));
		uint32_t *w = tl_hash_get(&c->wq, K2(k->dst_ep, k->dqpn));
		k->recv_qp = w ? *w : RT_TL_NONE;
	}
	tl_vec_free(&bad);
	/* rxe's UDP source port names the sending QP (a pass over the packets
	 * for nothing when every key has its peer) */
	size_t unpaired = unpaired_keys(c);
	for (size_t i = 0; i < npk && unpaired; i++) {
		struct tl_pk *k = tl_pk(b, i);
		if (k->is_cm || k->recv_qp == RT_TL_NONE || WK(c, k->recv_qp)->peer != RT_TL_NONE)
			continue;
		for (size_t j = 0; j < c->wkeys.n; j++) {
			struct wkey *o = WK(c, j);
			if (o->ep == k->src_ep && o->peer == RT_TL_NONE && rt_rxe_udp_sport(o->qpn) == k->udp_sport) {
				wpair(c, (uint32_t)j, k->recv_qp);
				if (o->peer == k->recv_qp)
					unpaired -= 2;
				break;
			}
		}
	}
	/* one QP pair on an address pair */
	for (size_t i = 0; i < c->wkeys.n; i++) {
		struct wkey *a = WK(c, i);
		if (a->peer != RT_TL_NONE)
			continue;
		/* unpaired QPs on other addresses that exchange packets with a's address */
		uint32_t cand = RT_TL_NONE;
		int ncand = 0, nsame = 0;
		for (size_t j = 0; j < c->wkeys.n; j++) {
			struct wkey *o = WK(c, j);
			if (o->ep == a->ep && o->peer == RT_TL_NONE)
				nsame++;
		}
		if (nsame != 1)
			continue;
		for (size_t j = 0; j < c->wkeys.n; j++) {
			struct wkey *o = WK(c, j);
			if (o->ep != a->ep && o->peer == RT_TL_NONE) {
				cand = (uint32_t)j;
				ncand++;
			}
		}
		if (ncand == 1) {
			int others = 0;
			for (size_t j = 0; j < c->wkeys.n; j++)
				if (WK(c, j)->ep == WK(c, cand)->ep && WK(c, j)->peer == RT_TL_NONE)
					others++;
			if (others == 1)
				wpair(c, (uint32_t)i, cand);
		}
	}
	return 0;
nomem:
	tl_hash_free(&req);
	tl_vec_free(&bad);
	return -ENOMEM;
}

/* The first request PSN each wire QP sent (it must equal its sq_psn): the
 * first its peer received (a QP has one peer, its peer's peer is itself). */
static void wire_first_psns(struct lctx *c)
{
	for (size_t j = 0; j < c->wkeys.n; j++) {
		const struct wkey *w = WK(c, j);
		if (w->have_first_in && w->peer != RT_TL_NONE) {
			WK(c, w->peer)->have_first = true;
			WK(c, w->peer)->first_req_psn = w->first_in_psn;
		}
	}
}

/* The first request seen on the wire can come a little after sq_psn (lost before the capture). */
static bool psn_starts(uint32_t first_seen, uint32_t sq_psn)
{
	int32_t d = rt_psn_diff(first_seen, sq_psn);
	return d >= 0 && d < 4096;
}

/* Each trace QP's first send PSN (sq_psn, or the first PSN its probe
 * predicted for a WR) and first receive PSN (rq_psn) from its events; -1
 * unknown.  A wire QP is that trace QP only if what it sent starts at the
 * one and what it received at the other: with the same QPN on two hosts and
 * no CM exchange to name the addresses (perftest without -R), that is what
 * tells them apart. */
static int trace_psns(struct lctx *c)
{
	struct tl_build *b = c->b;
	c->tq_psn = malloc((c->ntq ? c->ntq : 1) * sizeof(*c->tq_psn));
	if (!c->tq_psn)
		return -ENOMEM;
	for (size_t q = 0; q < c->ntq; q++)
		c->tq_psn[q] = (struct qp_psns){-1, -1};
	for (size_t i = 0; i < tl_nev(b); i++) {
		uint32_t q = b->ev_qp[i];
		if (q >= c->ntq)
			continue;
		const struct rt_event *ev = &tl_ev(b, i)->ev;
		struct qp_psns *p = &c->tq_psn[q];
		if (ev->kind == RT_EV_QP_STATE && !ev->u.qp_state.result) {
			if (p->sq < 0 && (ev->u.qp_state.attr_mask & RT_QPA_SQ_PSN))
				p->sq = ev->u.qp_state.sq_psn & RT_PSN_MASK;
			if (p->rq < 0 && (ev->u.qp_state.attr_mask & RT_QPA_RQ_PSN))
				p->rq = ev->u.qp_state.rq_psn & RT_PSN_MASK;
		} else if (ev->kind == RT_EV_WR_POST && p->sq < 0 && (ev->u.wr.flags & RT_WRF_PSN_VALID)) {
			p->sq = ev->u.wr.first_psn & RT_PSN_MASK;
		}
	}
	return 0;
}

static bool psns_fit(const struct lctx *c, uint32_t q, const struct wkey *w)
{
	const struct qp_psns *p = &c->tq_psn[q];
	if (w->have_first && p->sq >= 0 && !psn_starts(w->first_req_psn, (uint32_t)p->sq))
		return false;
	if (w->have_first_in && p->rq >= 0 && !psn_starts(w->first_in_psn, (uint32_t)p->rq))
		return false;
	return true;
}

/* The trace QP a wire QP is: same host and QPN, the process using the address, sends starting at its sq_psn. */
static uint32_t trace_qp_for(struct lctx *c, const struct wkey *w)
{
	struct tl_build *b = c->b;
	const struct tl_ep *e = TL_AT(&b->eps, struct tl_ep, w->ep);
	if (e->host == UINT16_MAX)
		return RT_TL_NONE;
	uint32_t hit = RT_TL_NONE;
	int n = 0;
	for (size_t q = 0; q < c->ntq; q++) {
		const struct rt_tl_qp *Q = tl_qp(b, q);
		if (Q->qpn != w->qpn || Q->host != e->host)
			continue;
		if (e->proc != UINT16_MAX && !e->proc_ambiguous && Q->proc != e->proc)
			continue;
		if (!psns_fit(c, (uint32_t)q, w))
			continue;
		hit = (uint32_t)q;
		n++;
	}
	return n == 1 ? hit : RT_TL_NONE;
}

/* Packet k's QPs (list indices) from its wire keys, once merge_qps gave the
 * keys their QPs; a CM REQ / REP marks its sender's QP as CM-connected. */
static void pk_qps(struct lctx *c, struct tl_pk *k)
{
	if (k->is_cm) {
		if ((k->cm_attr == RT_CM_REQ || k->cm_attr == RT_CM_REP) && k->cm_local_qpn) {
			uint32_t *v = tl_hash_get(&c->wq, K2(k->src_ep, k->cm_local_qpn));
			if (v) {
				k->send_qp = WK(c, *v)->qp;
				tl_qp(c->b, k->send_qp)->flags |= RT_TLQ_CM;
			}
		}
		return;
	}
	if (k->recv_qp == RT_TL_NONE)
		return;
	struct wkey *w = WK(c, k->recv_qp);
	k->recv_qp = w->qp;
	k->send_qp = w->peer != RT_TL_NONE ? WK(c, w->peer)->qp : RT_TL_NONE;
}

/* What the CM exchange sets up, for QPs whose state no trace recorded
 * (docs/timeline.md): the passive side takes its local ACK timeout, retry
 * count, RNR retry count and path MTU from the REQ; the active side its
 * retry count and path MTU from its own REQ, its RNR retry count from the
 * REP, and its ACK timeout from the same path (the REQ's value).  k is a
 * REQ or REP whose send_qp is its sender's QP; reqs maps REQ comm ids to
 * packets. */
static void set_unknown(uint8_t *attr, uint8_t v, uint8_t unknown)
{
	if (*attr == unknown)
		*attr = v;
}

static int cm_qp_attrs(struct tl_build *b, struct tl_hash *reqs, uint32_t i)
{
	const struct tl_pk *k = tl_pk(b, i);
	const struct tl_cm_info *m = tl_cm_info(b, i), *rm = m;
	if (!m)
		return 0;
	if (k->cm_attr == RT_CM_REQ) {
		if (tl_hash_put(reqs, k->cm_comm_id, i) < 0)
			return -ENOMEM;
	} else {
		uint32_t *r = tl_hash_get(reqs, k->cm_remote_comm_id);
		if (!r || !(rm = tl_cm_info(b, *r)))
			return 0;
		const struct tl_pk *req = tl_pk(b, *r);
		if (req->send_qp < b->qps.n)
			set_unknown(&tl_qp(b, req->send_qp)->rnr_retry, m->rnr_retry, 0xFF);
	}
	struct rt_tl_qp *Q = tl_qp(b, k->send_qp);
	set_unknown(&Q->timeout, rm->ack_timeout, 0xFF);
	set_unknown(&Q->retry_cnt, rm->retry, 0xFF);
	set_unknown(&Q->mtu, rm->mtu, 0);
	if (k->cm_attr == RT_CM_REP)
		set_unknown(&Q->rnr_retry, rm->rnr_retry, 0xFF);
	return 0;
}

/* 1c. wire QPs meet trace QPs; addresses meet hosts. */
static int merge_qps(struct lctx *c)
{
	struct tl_build *b = c->b;
	size_t ntq = b->qps.n;
	c->ntq = ntq;
	wire_first_psns(c);
	if (trace_psns(c) < 0)
		return -ENOMEM;
	/* trace QP pairs (A,a)->b tell which address belongs to which host */
	for (int pass = 0; pass < 3; pass++)
		for (size_t q = 0; q < ntq; q++) {
			struct rt_tl_qp *Q = tl_qp(b, q);
			if (!Q->peer_qpn)
				continue;
			uint32_t hit = RT_TL_NONE;
			int n = 0;
			for (size_t j = 0; j < c->wkeys.n; j++) {
				struct wkey *w = WK(c, j);
				if (w->qpn != Q->qpn)
					continue;
				struct tl_ep *e = TL_AT(&b->eps, struct tl_ep, w->ep);
				if (e->host != UINT16_MAX && e->host != Q->host)
					continue;
				if (e->proc != UINT16_MAX && !e->proc_ambiguous && e->proc != Q->proc)
					continue;
				if (w->peer != RT_TL_NONE && WK(c, w->peer)->qpn != Q->peer_qpn)
					continue;
				if (pass != 1 && w->peer == RT_TL_NONE)
					continue;
				if (!psns_fit(c, (uint32_t)q, w))
					continue; /* same QPN, but not the QP whose sends start at sq_psn */
				hit = (uint32_t)j;
				n++;
			}
			if (n == 1) {
				tl_ep_claim(TL_AT(&b->eps, struct tl_ep, WK(c, hit)->ep), Q->host, Q->proc);
				if (WK(c, hit)->peer == RT_TL_NONE) {
					/* the peer must be the one unpaired key with dest_qpn on another address */
					uint32_t p = RT_TL_NONE;
					int np = 0;
					for (size_t j = 0; j < c->wkeys.n; j++)
						if (WK(c, j)->qpn == Q->peer_qpn && WK(c, j)->ep != WK(c, hit)->ep &&
						    WK(c, j)->peer == RT_TL_NONE) {
							p = (uint32_t)j;
							np++;
						}
					/* requests in one direction only (UC: no ACKs come back)
					 * give the sender no wire QP of its own: it is the
					 * peer QPN at the address they came from */
					uint32_t from = np == 0 && WK(c, hit)->have_first_in
								? tl_pk(b, WK(c, hit)->first_in_pk)->src_ep : RT_TL_NONE;
					if (from != RT_TL_NONE && from != WK(c, hit)->ep) {
						if ((p = wkey_get(c, from, Q->peer_qpn)) == RT_TL_NONE)
							return -ENOMEM;
						if (WK(c, p)->peer == RT_TL_NONE) {
							WK(c, p)->have_first = true;
							WK(c, p)->first_req_psn = WK(c, hit)->first_in_psn;
							np = 1;
						}
					}
					if (np == 1)
						wpair(c, hit, p);
				}
			}
		}
	/* final QP entries for wire keys */
	for (size_t j = 0; j < c->wkeys.n; j++) {
		struct wkey *w = WK(c, j);
		struct tl_ep *e = TL_AT(&b->eps, struct tl_ep, w->ep);
		uint32_t q = trace_qp_for(c, w);
		if (q == RT_TL_NONE) {
			q = qp_new(b, e->host, w->qpn);
			if (q == RT_TL_NONE)
				return -ENOMEM;
			e = TL_AT(&b->eps, struct tl_ep, w->ep);
		}
		w->qp = q;
		struct rt_tl_qp *Q = tl_qp(b, q);
		Q->flags |= RT_TLQ_WIRE;
		Q->ip_version = e->ver;
		memcpy(Q->ip, e->ip, 16);
		if (!Q->mtu && w->max_seg) {
			for (unsigned m = 1; m <= 5; m++)
				if (rt_mtu_bytes(m) == w->max_seg)
					Q->mtu = (uint8_t)m;
		}
		if (e->host != UINT16_MAX) {
			struct rt_tl_host *h = tl_host(b, e->host);
			if (!h->ip_version) {
				h->ip_version = e->ver;
				memcpy(h->ip, e->ip, 16);
			}
		}
	}
	for (size_t j = 0; j < c->wkeys.n; j++) {
		struct wkey *w = WK(c, j);
		if (w->peer == RT_TL_NONE)
			continue;
		struct rt_tl_qp *Q = tl_qp(b, w->qp);
		Q->peer = WK(c, w->peer)->qp;
		Q->peer_qpn = WK(c, w->peer)->qpn;
	}
	/* trace-only pairs: (A,a)->b and (B,b)->a on different hosts, or on one
	 * host (both sides of a uroce lab in two processes, or a loopback pair in
	 * one process) when they are the only such pair there */
	for (size_t q = 0; q < b->qps.n; q++) {
		struct rt_tl_qp *Q = tl_qp(b, q);
		if (Q->peer != RT_TL_NONE || !Q->peer_qpn)
			continue;
		size_t same_host = SIZE_MAX, same_count = 0;
		for (size_t r = 0; r < b->qps.n; r++) {
			struct rt_tl_qp *R = tl_qp(b, r);
			if (r == q || R->qpn != Q->peer_qpn || R->peer_qpn != Q->qpn)
				continue;
			if (R->host != Q->host || R->host == UINT16_MAX) {
				if (R->peer != RT_TL_NONE)
					continue;
				same_count = 0;
				same_host = r;
				break;
			}
			if (R->proc != UINT16_MAX && Q->proc != UINT16_MAX) {
				same_host = r;
				same_count++;
			}
		}
		if (same_host == SIZE_MAX || same_count > 1 || tl_qp(b, same_host)->peer != RT_TL_NONE)
			continue;
		Q->peer = (uint32_t)same_host;
		tl_qp(b, same_host)->peer = (uint32_t)q;
	}
	/* the CM packets' QPs, and what the CM exchange set up for them */
	struct tl_hash reqs; /* REQ local comm id -> packet */
	if (tl_hash_init(&reqs, 16) < 0)
		return -ENOMEM;
	for (size_t j = 0; j < c->cm_pks.n; j++) {
		uint32_t i = *TL_AT(&c->cm_pks, uint32_t, j);
		struct tl_pk *k = tl_pk(b, i);
		pk_qps(c, k);
		if (k->send_qp != RT_TL_NONE && (k->cm_attr == RT_CM_REQ || k->cm_attr == RT_CM_REP) &&
		    cm_qp_attrs(b, &reqs, i) < 0) {
			tl_hash_free(&reqs);
			return -ENOMEM;
		}
	}
	tl_hash_free(&reqs);
	/* the packets' QPs: here when the engine matching needs them before the
	 * replay, else on the replay's pass (one pass over the packets less) */
	for (size_t i = 0; b->engine_packets && i < tl_npk(b); i++)
		pk_qps(c, tl_pk(b, i));
	return 0;
}

/* 2. PSN ranges of send WRs. */
static uint32_t wr_psns(const struct rt_ev_wr *w, unsigned mtu_bytes, uint8_t qp_type)
{
	if (w->flags & RT_WRF_POST_FAILED)
		return 0;
	if (qp_type == 4) /* UD: one packet per message */
		return 1;
	switch (w->opcode) {
	case 0: case 1: case 2: case 3: case 9: case 4:
		return rt_packets_for(w->length, mtu_bytes);
	case 5: case 6: case 14: case 15:
		return 1;
	default:
		return 0; /* LOCAL_INV, BIND_MW: no packets */
	}
}

/* The PSN of the first request each QP sent on the wire (first[q], where
 * have[q]): a QP's requests are the ones its wire keys' peers received (the
 * send_qp merge_qps gave them), so the earliest of those peers' first ones. */
static int wire_first_by_qp(struct lctx *c, uint32_t *first, uint8_t *have)
{
	size_t nqp = c->b->qps.n;
	uint32_t *pk = malloc((nqp ? nqp : 1) * sizeof(uint32_t)); /* that request */
	if (!pk)
		return -ENOMEM;
	for (size_t j = 0; j < c->wkeys.n; j++) {
		const struct wkey *w = WK(c, j);
		if (!w->have_first_in || w->peer == RT_TL_NONE)
			continue;
		uint32_t q = WK(c, w->peer)->qp;
		if (!have[q] || w->first_in_pk < pk[q]) {
			have[q] = 1;
			pk[q] = w->first_in_pk;
			first[q] = w->first_in_psn;
		}
	}
	free(pk);
	return 0;
}

/* Which QPs' WR entries ascend by first PSN (wr_upper's shortcut). */
static int wr_mark_sorted(struct lctx *c, size_t nqp)
{
	c->wr_sorted = malloc(nqp ? nqp : 1);
	if (!c->wr_sorted)
		return -ENOMEM;
	for (size_t q = 0; q < nqp; q++) {
		c->wr_sorted[q] = 1;
		for (uint32_t j = c->wr_qp_start[q] + 1; j < c->wr_qp_start[q + 1] && c->wr_sorted[q]; j++)
			c->wr_sorted[q] = c->wrs[j - 1].first_u <= c->wrs[j].first_u;
	}
	return 0;
}

/* c->wrs from the WRs in post order (ord, their first PSN wrapped): by QP
 * (cnt[q + 1]: how many QP q has), each QP's in post order with its PSNs
 * unwrapped. */
static int wr_place(struct lctx *c, const struct tl_vec *ord, size_t *cnt)
{
	struct tl_build *b = c->b;
	size_t nqp = b->qps.n;
	for (size_t q = 0; q < nqp; q++)
		cnt[q + 1] += cnt[q];
	c->wr_qp_start = malloc((nqp + 1) * sizeof(uint32_t));
	c->wrs = malloc((ord->n ? ord->n : 1) * sizeof(*c->wrs));
	uint64_t *last_u = calloc(nqp ? nqp : 1, sizeof(uint64_t));
	uint32_t *last_psn = calloc(nqp ? nqp : 1, sizeof(uint32_t));
	uint8_t *have = calloc(nqp ? nqp : 1, 1);
	if (!c->wr_qp_start || !c->wrs || !last_u || !last_psn || !have) {
		free(last_u);
		free(last_psn);
		free(have);
		return -ENOMEM;
	}
	for (size_t q = 0; q <= nqp; q++)
		c->wr_qp_start[q] = (uint32_t)cnt[q];
	for (size_t j = 0; j < ord->n; j++) {
		const struct wr_ent *o = TL_AT(ord, struct wr_ent, j);
		uint32_t q = b->ev_qp[o->item], first = (uint32_t)o->first_u;
		struct wr_ent *e = &c->wrs[cnt[q]++];
		if (!have[q]) {
			last_u[q] = (1ull << 40) + first;
			have[q] = 1;
		} else {
			last_u[q] += (uint64_t)(int64_t)rt_psn_diff(first, last_psn[q]);
		}
		last_psn[q] = first;
		*e = *o;
		e->first_u = last_u[q];
	}
	free(last_u);
	free(last_psn);
	free(have);
	return 0;
}

static int wr_ranges(struct lctx *c)
{
	struct tl_build *b = c->b;
	size_t nev = tl_nev(b), nqp = b->qps.n;
	c->wr_first = calloc(nev ? nev : 1, sizeof(uint32_t));
	c->wr_n = calloc(nev ? nev : 1, sizeof(uint32_t));
	uint32_t *next = malloc((nqp ? nqp : 1) * sizeof(uint32_t));
	uint8_t *have = calloc(nqp ? nqp : 1, 1);
	size_t *cnt = calloc(nqp + 1, sizeof(size_t));
	if (!c->wr_first || !c->wr_n || !next || !have || !cnt) {
		free(next);
		free(have);
		free(cnt);
		return -ENOMEM;
	}
	/* the first request PSN each QP put on the wire anchors QPs without sq_psn */
	uint32_t *wire_first = malloc((nqp ? nqp : 1) * sizeof(uint32_t));
	uint8_t *wire_have = calloc(nqp ? nqp : 1, 1);
	if (!wire_first || !wire_have || wire_first_by_qp(c, wire_first, wire_have) < 0) {
		free(next);
		free(have);
		free(cnt);
		free(wire_first);
		free(wire_have);
		return -ENOMEM;
	}
	/* the WRs with their ranges in post order (their PSN still wrapped):
	 * wr_place() reads them instead of the events a second time */
	struct tl_vec ord;
	tl_vec_init(&ord, sizeof(struct wr_ent));
	int rc = 0;
	for (size_t i = 0; i < nev; i++) {
		const struct tl_evrec *er = tl_ev(b, i);
		const struct rt_event *ev = &er->ev;
		uint32_t q = b->ev_qp[i];
		if (q == RT_TL_NONE || b->ev_shadow[i])
			continue;
		if (ev->kind == RT_EV_QP_STATE && !ev->u.qp_state.result && (ev->u.qp_state.attr_mask & RT_QPA_SQ_PSN)) {
			next[q] = ev->u.qp_state.sq_psn & RT_PSN_MASK;
			have[q] = 1;
			continue;
		}
		if (ev->kind != RT_EV_WR_POST || ev->u.wr.queue != RT_WRQ_SEND)
			continue;
		const struct rt_ev_wr *w = &ev->u.wr;
		struct rt_tl_qp *Q = tl_qp(b, q);
		unsigned mtu = Q->mtu ? rt_mtu_bytes(Q->mtu) : 4096;
		uint32_t n;
		if (w->flags & RT_WRF_PSN_VALID) {
			c->wr_first[i] = w->first_psn & RT_PSN_MASK;
			n = (uint32_t)rt_psn_diff(w->last_psn, w->first_psn) + 1;
			next[q] = rt_psn_add(w->last_psn, 1);
			have[q] = 1;
		} else {
			n = wr_psns(w, mtu, Q->qp_type);
			if (!have[q] && wire_have[q]) {
				next[q] = wire_first[q];
				have[q] = 1;
			}
			if (!have[q] || !n)
				continue;
			c->wr_first[i] = next[q];
			next[q] = rt_psn_add(next[q], (int32_t)n);
		}
		c->wr_n[i] = n;
		cnt[q + 1]++;
		struct wr_ent *o = tl_vec_push(&ord);
		if (!o) {
			rc = -ENOMEM;
			break;
		}
		*o = (struct wr_ent){.first_u = c->wr_first[i], .n = n, .item = (uint32_t)i, .raw_ns = er->raw_ns,
				     .host = er->host};
	}
	free(wire_first);
	free(wire_have);
	free(next);
	free(have);
	if (!rc)
		rc = wr_place(c, &ord, cnt);
	tl_vec_free(&ord);
	free(cnt);
	return rc < 0 ? rc : wr_mark_sorted(c, nqp);
}

/* The first of the WRs [a, e) of QP q that starts after pu (a binary search);
 * a sequential lookup lands on its hint or the one after, so those are
 * checked first where the QP's WRs ascend (the search gives the same there). */
static uint32_t wr_upper(const struct lctx *c, uint32_t q, uint32_t a, uint32_t e, uint32_t hint, uint64_t pu)
{
	if (c->wr_sorted[q] && hint >= a && hint < e)
		for (uint32_t h = hint; h < e && h <= hint + 1; h++)
			if (c->wrs[h].first_u <= pu && (h + 1 == e || c->wrs[h + 1].first_u > pu))
				return h + 1;
	uint32_t lo = a, hi = e;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (c->wrs[mid].first_u <= pu)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The send WR of QP q whose range holds psn (RT_TL_NONE); *hint speeds up sequential lookups. */
static uint32_t wr_for_psn(struct lctx *c, uint32_t q, uint32_t psn, uint32_t *idx_out)
{
	if (q == RT_TL_NONE || q >= c->b->qps.n)
		return RT_TL_NONE;
	uint32_t a = c->wr_qp_start[q], e = c->wr_qp_start[q + 1];
	if (a == e)
		return RT_TL_NONE;
	/* unwrap relative to the middle WR: fine for runs within 2^23 PSNs of it,
	 * and relative to the neighbours of the hint otherwise */
	uint32_t ref = idx_out && *idx_out >= a && *idx_out < e ? *idx_out : a + (e - a) / 2;
	uint32_t refpsn = (uint32_t)(c->wrs[ref].first_u & RT_PSN_MASK);
	uint64_t pu = c->wrs[ref].first_u + (uint64_t)(int64_t)rt_psn_diff(psn, refpsn);
	uint32_t lo = wr_upper(c, q, a, e, idx_out ? *idx_out : RT_TL_NONE, pu);
	if (lo == a)
		return RT_TL_NONE;
	struct wr_ent *w = &c->wrs[lo - 1];
	if (pu >= w->first_u + w->n)
		return RT_TL_NONE;
	if (idx_out)
		*idx_out = lo - 1;
	return w->item;
}

/* 3. the requester streams on the wire. */
/* The NAKs a stream keeps beside its latest: a sender that is busy sending
 * when they come acts on each in turn, later.  A requester flat out falls
 * far behind its NAKs: ib_write_bw on uroce with every 20th packet held
 * back took its NAKs in 10 ms late, dozens of them pending; with 8 kept, 81 %
 * of its rounds found no NAK of their own PSN (and read as "a NAK the
 * capture does not hold"), with 64 kept 11 %. */
#define EARLIER_NAKS 64

struct stream {
	bool have;
	uint64_t first_u;         /* first PSN captured (unwrapped) */
	uint64_t max_u;           /* highest PSN sent (unwrapped) */
	uint32_t max_psn;
	uint32_t last_sent;       /* PSN of the latest request */
	uint32_t last_next;       /* the PSN after it (tl_request_next_psn) */
	uint64_t last_sent_ns;    /* and when it was captured */
	uint64_t acked_u;         /* highest PSN acknowledged */
	bool have_ack;
	uint64_t plain_acked_u;   /* highest PSN acknowledged by an ACK or response, not by a NAK */
	bool have_plain_ack;
	bool in_burst;
	uint32_t round_first;     /* the packet that started the latest round */
	uint32_t round_before;    /* and the one that started the round before it */
	uint32_t round_no_nak;    /* the packet that started the latest round no NAK made */
	uint8_t burst_cause;
	uint32_t last_nak;        /* packet index of the latest NAK (seq) / RNR NAK since the last send */
	uint32_t older_naks[EARLIER_NAKS]; /* NAKs (seq) a later NAK or an ACK of their PSN replaced, */
	unsigned nolder;          /* oldest first: a sender that acts on each as it comes may still go back */
	bool open_round;          /* a round started that no positive response has acknowledged yet */
	uint64_t rearm_ns;        /* the latest response that left requests outstanding (0 none) */
	bool nak_in_round;        /* last_nak came while open_round (a sender may ignore it then) */
	uint32_t hint;
	uint32_t qhead;           /* unacked first transmissions (PSN order), linked through pnext[] */
	uint32_t rhead;           /* unacked retransmissions of the current round */
	uint32_t ptail, rtail;
	uint32_t rnr_psn;         /* PSN of an RNR NAK not yet resent (NAK seq errors for it follow it) */
	bool rnr_pending;
	uint32_t nreads;          /* READ requests recorded in the stream's ring of reads */
	uint32_t reads_done;      /* the READs before this one (in nreads' count) are complete */
	uint32_t last_req;        /* packet index of the latest request, RT_TL_NONE */
	uint32_t last_late;       /* packet index of the latest late request (tl_pk.late), RT_TL_NONE */
	uint32_t last_round;      /* packet index of the latest round's first request, RT_TL_NONE */
	uint64_t last_nak_ns;     /* capture time of the latest NAK or RNR NAK (0 none) */
	bool ids_vary;            /* two of its IPv4 requests had different identifications */
	/* the IPv4 identifications of its requests, in capture order (copies
	 * left out): a sender that numbers its datagrams (the kernel's) gives
	 * them in the order it sent them, whatever order they came in */
	bool have_id;
	uint16_t last_id, max_id; /* the latest request's, and the highest (16-bit serial order) */
	uint32_t id_pairs, id_near; /* requests after the first, and those within 1024 of the one before */
	bool from_start;          /* its first captured request was the sender's first (its starting PSN) */
	uint32_t first_pk;        /* that request (packet index) */
};

/* What the capture and the traces tell of a QP as a sender: whether it was
 * answered in the capture, and its starting PSN (from its CM REQ or REP on
 * the wire, or its sq_psn in its trace). */
struct qp_origin {
	bool answered;
	bool have_start;
	uint32_t start_psn;
};

/* Per QP of the final list (nqp of them); NULL without memory. */
static struct qp_origin *qp_origins(struct lctx *c, size_t nqp)
{
	struct qp_origin *o = calloc(nqp ? nqp : 1, sizeof(*o));
	if (!o)
		return NULL;
	for (size_t j = 0; j < c->wkeys.n; j++) {
		const struct wkey *w = WK(c, j);
		if (w->qp >= nqp)
			continue;
		o[w->qp].answered |= w->answered;
		if (w->have_start && !o[w->qp].have_start) {
			o[w->qp].have_start = true;
			o[w->qp].start_psn = w->start_psn;
		}
	}
	for (size_t q = 0; q < c->ntq && q < nqp && c->tq_psn; q++)
		if (c->tq_psn[q].sq >= 0) {
			o[q].have_start = true;
			o[q].start_psn = (uint32_t)c->tq_psn[q].sq;
		}
	return o;
}

/* Request k (packet i) is no retransmission but repeats packet prev, its
 * PSN's first captured transmission orig: the receiver discards it as a
 * duplicate.  It starts no round, answers no NAK and consumes no receive
 * WR; it takes prev's WR and links to prev. */
static int mark_repeat(struct tl_build *b, struct tl_pk *k, size_t i, uint32_t prev, uint32_t orig)
{
	const struct tl_pk *p = tl_pk(b, prev);
	k->dup = true;
	k->flags |= RT_TLF_DUP;
	k->prev_tx = prev;
	k->original = orig != RT_TL_NONE ? orig : prev;
	k->wr = p->wr;
	if (k->wr != RT_TL_NONE) {
		k->flags |= RT_TLF_HAS_WR;
		k->wr_pkt_index = p->wr_pkt_index;
		k->wr_pkt_count = p->wr_pkt_count;
		int rc = tl_link(b, tl_item_pk(b, i), k->wr, RT_TLL_WR);
		if (rc < 0)
			return rc;
	}
	return tl_link(b, tl_item_pk(b, i), tl_item_pk(b, prev), RT_TLL_ORIGINAL);
}

/* True when at least wait_ns plus half the local ACK timeout of request k's
 * sender passed between since_ns and k: only that timer makes a sender go
 * back so late.  False when the timeout is not known (or infinite). */
static bool timeout_passed(struct tl_build *b, const struct tl_pk *k, uint64_t since_ns, uint64_t wait_ns)
{
	uint64_t half = tl_half_ack_timeout_ns(b, k->send_qp);
	return half && k->raw_ns >= since_ns && k->raw_ns - since_ns >= wait_ns + half;
}

/* The stream's latest NAK (seq) becomes an earlier one (the oldest kept
 * goes when there are EARLIER_NAKS). */
static void keep_older_nak(struct tl_build *b, struct stream *S)
{
	if (S->last_nak == RT_TL_NONE)
		return;
	const struct tl_pk *n = tl_pk(b, S->last_nak);
	if (n->aeth_type != RT_AETH_NAK || n->aeth_value != RT_NAK_PSN_SEQ_ERROR)
		return;
	if (S->nolder == EARLIER_NAKS)
		memmove(S->older_naks, S->older_naks + 1, --S->nolder * sizeof(S->older_naks[0]));
	S->older_naks[S->nolder++] = S->last_nak;
}

/* The stream's pending NAKs in the order they came, j from 0 to
 * S->nolder: the earlier ones, then the latest (RT_TL_NONE: none). */
static uint32_t pending_nak(const struct stream *S, unsigned j)
{
	return j < S->nolder ? S->older_naks[j] : S->last_nak;
}

/* Where among the pending NAKs (pending_nak) the latest NAK (seq) for psn
 * is; S->nolder + 1 when there is none. */
static unsigned nak_for_psn_at(struct tl_build *b, const struct stream *S, uint32_t psn)
{
	for (unsigned j = S->nolder + 1; j-- > 0;) {
		uint32_t n = pending_nak(S, j);
		if (n != RT_TL_NONE && tl_pk(b, n)->aeth_type == RT_AETH_NAK && tl_pk(b, n)->psn == psn)
			return j;
	}
	return S->nolder + 1;
}

/* The stream's pending NAK (seq) for psn, the latest or an earlier one;
 * RT_TL_NONE. */
static uint32_t nak_for_psn(struct tl_build *b, const struct stream *S, uint32_t psn)
{
	unsigned j = nak_for_psn_at(b, S, psn);
	return j <= S->nolder ? pending_nak(S, j) : RT_TL_NONE;
}

/* The pending NAK the sender acts on first: the earliest. */
static uint32_t earliest_nak(const struct stream *S)
{
	return pending_nak(S, 0);
}

/* Whether pending NAK n can have made request k's round: an RNR NAK, one
 * at least half the ACK timeout old (a NAK the sender never got: the round
 * is the timer's, and the finding names the NAK), or one for a PSN below
 * k's (its resend and the ones after lost before the capture) that is not
 * stale.  A sender busy sending acts on NAKs in turn, the earlier ones
 * first: a NAK is stale once two rounds began after it and one of those
 * had no NAK of its own (it passed the NAK over: a storm's NAK otherwise
 * named a round milliseconds later, and READs asked again from a missed
 * response are such rounds). */
static bool nak_may_lead(struct tl_build *b, const struct stream *S, uint32_t n, const struct tl_pk *k)
{
	const struct tl_pk *p = tl_pk(b, n);
	bool stale = S->round_before > n && S->round_no_nak > n;
	return p->aeth_type == RT_AETH_RNR_NAK || timeout_passed(b, k, p->raw_ns, 0) ||
	       (rt_psn_diff(p->psn, k->psn) < 0 && !stale);
}

/* How take_nak chooses among the pending NAKs when none is for the
 * round's PSN. */
enum nak_pick {
	NAK_EARLIEST,  /* the earliest that may have made the round (nak_may_lead) */
	NAK_OWN_PSN,   /* none */
	NAK_LATEST,    /* the latest: an ACK-timeout round (its sending engine says so), told with
			* the NAK before its timer that the sender did not act on */
};

/* The NAK that made request k's round start, taken from those pending
 * (RT_TL_NONE: none): the one for its PSN, else as `pick` says (a sender
 * acts on NAKs in turn: the earliest).  The NAKs that came after it stay
 * pending: the sender acts on them later. */
static uint32_t take_nak(struct tl_build *b, struct stream *S, const struct tl_pk *k, enum nak_pick pick)
{
	unsigned j = nak_for_psn_at(b, S, k->psn);
	for (unsigned x = 0; pick == NAK_EARLIEST && j > S->nolder && x <= S->nolder; x++)
		if (pending_nak(S, x) != RT_TL_NONE && nak_may_lead(b, S, pending_nak(S, x), k))
			j = x;
	for (unsigned x = S->nolder + 1; pick == NAK_LATEST && j > S->nolder && x-- > 0;)
		if (pending_nak(S, x) != RT_TL_NONE)
			j = x;
	if (j > S->nolder)
		return RT_TL_NONE;
	uint32_t nak = pending_nak(S, j);
	/* it goes, and the NAKs that came before it: the sender acted on them
	 * (or passed them over) first */
	if (j == S->nolder) {
		S->last_nak = RT_TL_NONE;
		S->nolder = 0;
	} else {
		S->nolder -= j + 1;
		memmove(S->older_naks, S->older_naks + j + 1, S->nolder * sizeof(S->older_naks[0]));
	}
	return nak;
}

/* Whether packet o is a request to the receiving QP (address and QPN)
 * request k went to, not a CM message. */
static bool request_to_same_qp(const struct tl_pk *o, const struct tl_pk *k)
{
	return o->is_request && !o->is_cm && o->dst_ep == k->dst_ep && o->dqpn == k->dqpn;
}

/* Whether packet o is a response or ACK on request k's stream (from the
 * QP k went to). */
static bool response_to_stream(const struct tl_pk *o, const struct tl_pk *k)
{
	return o->is_response && o->send_qp == k->recv_qp;
}

/* A response on request k's stream that is no NAK or RNR NAK: an ACK, a
 * READ response or an atomic ACK. */
static bool answer_to_stream(const struct tl_pk *o, const struct tl_pk *k)
{
	return response_to_stream(o, k) && o->aeth_type != RT_AETH_NAK && o->aeth_type != RT_AETH_RNR_NAK;
}

/* Whether the stream of request i goes back to i's PSN later (among the
 * 4096 packets after it): a request of that PSN that does not follow the
 * request before it. */
static bool goes_back_later(struct tl_build *b, size_t i)
{
	const struct tl_pk *k = tl_pk(b, i);
	size_t npk = tl_npk(b);
	uint32_t next = k->psn; /* the PSN that follows the request before */
	for (size_t j = i + 1; j < npk && j - i <= 4096; j++) {
		const struct tl_pk *o = tl_pk(b, j);
		if (!request_to_same_qp(o, k) || o->icrc == RT_ICRC_BAD)
			continue;
		if (o->psn == k->psn && next != k->psn)
			return true;
		next = tl_request_next_psn(b, o);
	}
	return false;
}

/* Pending NAK j is answered: it goes, the others stay. */
static void drop_pending_nak(struct stream *S, unsigned j)
{
	if (j == S->nolder) {
		S->last_nak = RT_TL_NONE;
	} else if (j < S->nolder) {
		S->nolder--;
		memmove(S->older_naks + j, S->older_naks + j + 1, (S->nolder - j) * sizeof(S->older_naks[0]));
	}
}

/* The sending engine's trace of packet k (engine_match), NULL when none. */
static const struct rt_ev_packet *engine_sent(struct tl_build *b, const struct tl_pk *k)
{
	if (k->event == RT_TL_NONE || k->event >= tl_nev(b))
		return NULL;
	const struct rt_event *ke = &tl_ev(b, k->event)->ev;
	return ke->kind == RT_EV_PACKET && (ke->flags & RT_EVF_TX) ? &ke->u.pkt : NULL;
}

/* Whether request k starts a round of resends, as its sending engine
 * traced it (an engine that traces its retries: RT_EV_RETRY, as uroce
 * does, right before the round's first resend): 1 when the sending QP's
 * latest record before k's is a retry (or only sends it dropped follow
 * that retry: the capture's round starts at k), and *cause is the retry's;
 * 0 when it is the send of another request (k goes on with a round, or is
 * no resend); -1 when the records do not tell (no engine record of k, or
 * none of that QP among its ENGINE_ROUND_SPAN records, or the
 * ENGINE_ROUND_WALK records of all, before it): then the
 * capture alone decides.  A sender goes back only with a retry, so a NAK
 * for k's PSN that came while a round went on did not make it go back. */
#define ENGINE_ROUND_SPAN 64
#define ENGINE_ROUND_WALK 4096 /* records of all QPs walked back at most */
static int engine_round(struct tl_build *b, const struct tl_pk *k, uint8_t *cause)
{
	if (!engine_sent(b, k))
		return -1;
	uint32_t q = b->ev_qp[k->event];
	for (uint32_t e = k->event, seen = 0, walked = 0;
	     e-- > 0 && seen < ENGINE_ROUND_SPAN && walked++ < ENGINE_ROUND_WALK;) {
		if (b->ev_qp[e] != q)
			continue;
		seen++;
		const struct rt_event *ev = &tl_ev(b, e)->ev;
		if (ev->kind == RT_EV_RETRY) {
			*cause = ev->u.retry.cause;
			return 1;
		}
		if (ev->kind != RT_EV_PACKET || !(ev->flags & RT_EVF_TX) || (ev->u.pkt.flags & RT_PKTF_DROPPED))
			continue;
		const struct rt_opcode_info *op = rt_opcode_info(ev->u.pkt.opcode);
		if (op && !tl_class_response(op->op_class))
			return 0;
	}
	return -1;
}

/* Whether the round in progress went back to request i's PSN: a NAK for it
 * is pending, the earliest (a sender acts on NAKs in turn), younger than
 * half the ACK timeout (an older one the sender never got), and i does not
 * merely follow the round's latest PSN while the stream goes back to it
 * later (a sender busy sending acts on a NAK later: that go-back is the
 * NAK's).  A NAK that came before a round of READs began, for its first
 * PSN or a later one, is one the round answers as it reaches its PSN (a
 * READ asked again from a response it missed, while the NAK for a later
 * READ was on its way): no new round, and the NAK goes, unless the stream
 * goes back to its PSN later.  (Not for SENDs and WRITEs: a sender there
 * acts on such a NAK again, and where the capture misses that go-back the
 * NAK stands for it.) */
static bool round_reached_nak(struct tl_build *b, struct stream *S, size_t i)
{
	const struct tl_pk *k = tl_pk(b, i);
	unsigned j = nak_for_psn_at(b, S, k->psn);
	uint32_t nak = j <= S->nolder ? pending_nak(S, j) : RT_TL_NONE;
	if (nak == RT_TL_NONE || nak != earliest_nak(S) || timeout_passed(b, k, tl_pk(b, nak)->raw_ns, 0))
		return false; /* (one that old the sender never got) */
	bool follows = k->psn == S->last_next;
	const struct tl_pk *r = tl_pk(b, S->round_first);
	if (nak < S->round_first && r->op_class == RT_CLASS_READ_REQ && rt_psn_diff(r->psn, k->psn) <= 0 && follows) {
		if (!goes_back_later(b, i))
			drop_pending_nak(S, j);
		return false;
	}
	return !follows || !goes_back_later(b, i);
}

/* Whether request i, below the stream's next PSN `on`, starts a run of
 * consecutive PSNs (at most 8, among the 4096 packets after it) that stops
 * well short of `on` (more than 3 PSNs) and goes on at `on` or a little
 * above, with no ACK between for the PSNs it skipped: a Go-Back-N round
 * from i would have resent those too (an ACK for them would explain the
 * skip), so the run is packets held back on the way, late together. */
static bool late_run(struct tl_build *b, size_t i, uint32_t on)
{
	const struct tl_pk *k = tl_pk(b, i);
	size_t npk = tl_npk(b);
	uint32_t expected = rt_psn_add(k->psn, 1);
	for (size_t j = i + 1, run = 0; j < npk && j - i <= 4096 && run <= 8; j++) {
		const struct tl_pk *o = tl_pk(b, j);
		if (response_to_stream(o, k) && o->op_class == RT_CLASS_ACK && o->aeth_type == RT_AETH_ACK &&
		    rt_psn_diff(o->psn, expected) >= 0)
			return false; /* acknowledged: a round may skip what was */
		if (!request_to_same_qp(o, k))
			continue;
		if (o->icrc == RT_ICRC_BAD)
			return false; /* its PSN may be damaged */
		if (o->psn == expected) {
			expected = rt_psn_add(expected, 1);
			run++;
			continue;
		}
		int32_t d = rt_psn_diff(o->psn, on);
		return run && d >= 0 && d < 16 && rt_psn_diff(on, expected) > 3;
	}
	return false;
}

/* Whether request k's IPv4 identification tells datagrams apart: its
 * stream's sender gives each packet a new one (a resend is a new datagram,
 * a copy made on the way the same). */
static bool ids_tell_datagrams(struct tl_build *b, const struct stream *S, const struct tl_pk *k)
{
	const struct tl_ep *src = k->src_ep < b->eps.n ? TL_AT(&b->eps, struct tl_ep, k->src_ep) : NULL;
	return src && src->ver == 4 && S->ids_vary;
}

/* Whether request k is another IPv4 datagram than o. */
static bool new_datagram(struct tl_build *b, const struct stream *S, const struct tl_pk *o, const struct tl_pk *k)
{
	return ids_tell_datagrams(b, S, k) && o->ip_id != k->ip_id;
}

/* Whether request k is the very IPv4 datagram o is. */
static bool same_datagram(struct tl_build *b, const struct stream *S, const struct tl_pk *o, const struct tl_pk *k)
{
	return ids_tell_datagrams(b, S, k) && o->ip_id == k->ip_id;
}

/* Whether request k's IPv4 identification says it was sent before a request
 * the capture already holds on its stream: the sender numbers its datagrams
 * (they vary, and of at least 8 requests in a row 9 in 10 were within 1024
 * of the one before: a counter, not random numbers) and k's is below the
 * highest seen, by less than 4096.  Then it was held back on the way, and
 * is no resend: a resend is a new datagram, with a higher number. */
static bool ids_sent_before(struct tl_build *b, const struct stream *S, const struct tl_pk *k)
{
	if (!S->have_id || !ids_tell_datagrams(b, S, k) || S->id_pairs < 8 || S->id_near * 10 < S->id_pairs * 9)
		return false;
	uint16_t below = (uint16_t)(S->max_id - k->ip_id);
	return below && below < 4096;
}

/* Takes request k's IPv4 identification into its stream's (ids_sent_before). */
static void ids_note(struct stream *S, const struct tl_pk *k)
{
	if (S->have_id) {
		uint16_t up = (uint16_t)(k->ip_id - S->last_id), down = (uint16_t)(S->last_id - k->ip_id);
		S->id_pairs++;
		S->id_near += up <= 1024 || down <= 1024;
		if ((uint16_t)(k->ip_id - S->max_id) < 32768)
			S->max_id = k->ip_id;
	} else {
		S->max_id = k->ip_id;
		S->have_id = true;
	}
	S->last_id = k->ip_id;
}

/* What the next 8 requests after packet i to the same receiving QP
 * (address and QPN, intact ICRC, among the 4096 packets after it) do, other
 * late ones coming between: 1 when they send i's PSN again (within `soon`
 * ns) before the PSN after it, 0 when they send the PSN after it, 2 when
 * neither and the stream's next PSN `on` follows, with only other late ones
 * before it (none 2 or 3 above i's, as a round from i that lost a packet or
 * two before the capture sends, or more as many packets between had a bad
 * ICRC; when i is above `on`, at most two), 4 likewise for one a little above `on`
 * (that one late too) and well above i's (a round from i that lost a packet
 * or two before the capture skips a little forward), 3 when neither and
 * one goes back below i's PSN, 5 when the PSN after it comes after others,
 * -1 none of these, -2 when no request follows (none with a bad ICRC
 * either); 2 also when i starts a late run (late_run).  A copy of i made on
 * the way is not a request of its own: the very datagram again (on stream
 * S, same_datagram), or what its sender's engine traced as the same
 * transmission sent twice. */
static int next_stream_psn(struct tl_build *b, const struct stream *S, size_t i, uint32_t on, uint64_t soon)
{
	const struct tl_pk *k = tl_pk(b, i);
	size_t npk = tl_npk(b);
	unsigned seen = 0, damaged = 0;
	bool ahead = rt_psn_diff(k->psn, on) > 0; /* i skipped forward over `on` */
	bool went_on = false, went_above = false, went_below = false;
	bool strays = true; /* all so far are other late ones: none a PSN a round from i that lost one or two
			     * packets before the capture (or had them damaged) would send next */
	for (size_t j = i + 1; j < npk && j - i <= 4096 && seen < 8; j++) {
		const struct tl_pk *o = tl_pk(b, j);
		if (!request_to_same_qp(o, k))
			continue;
		if (o->icrc == RT_ICRC_BAD) {
			damaged++; /* its PSN may be damaged too */
			continue;
		}
		if (o->psn == k->psn && o->opcode == k->opcode && o->wirelen == k->wirelen &&
		    (same_datagram(b, S, k, o) || tl_engine_same_transmission(b, k, o)))
			continue; /* i's copy (the same datagram, or one transmission its engine traced twice) */
		if (o->psn == k->psn)
			return o->raw_ns - k->raw_ns < soon ? 1 : -1;
		if (o->psn == rt_psn_add(k->psn, 1))
			return seen ? 5 : !ahead && late_run(b, i, on) ? 2 : 0;
		seen++;
		went_below |= rt_psn_diff(o->psn, k->psn) < 0;
		if (strays && o->psn == on && (!ahead || seen <= 3) &&
		    (ahead || rt_psn_diff(on, k->psn) > 1 + (int32_t)damaged))
			went_on = true; /* (not where damaged ones between could be a round's from i) */
		else if (strays && !ahead && rt_psn_diff(o->psn, on) > 0 && rt_psn_diff(o->psn, on) < 16 &&
			 rt_psn_diff(o->psn, k->psn) > 8)
			went_above = true;
		strays = strays && o->psn != on &&
			 (ahead || rt_psn_diff(o->psn, k->psn) < 0 || rt_psn_diff(o->psn, k->psn) > 3 + (int32_t)damaged);
	}
	return !seen ? (damaged ? -1 : -2) : went_on ? 2 : went_above ? 4 : went_below ? 3 : -1;
}

/* Whether a NAK or RNR NAK the sender has not acted on yet (no round since)
 * names request k's PSN or an earlier one: the sender goes back for it, so
 * it is sent again (a sender busy sending acts on it a little later). */
static bool nak_owes(struct tl_build *b, const struct stream *S, const struct tl_pk *k)
{
	for (unsigned j = 0; j <= S->nolder; j++)
		if (pending_nak(S, j) != RT_TL_NONE && rt_psn_diff(tl_pk(b, pending_nak(S, j))->psn, k->psn) <= 0)
			return true;
	return false;
}

/* Whether the stream of request i sends PSN n (a pending NAK's) again
 * among its next 16 requests (intact, among the 4096 packets after it),
 * with no NAK for n between: the round the NAK asked for is still to come. */
static bool nak_round_follows(struct tl_build *b, size_t i, uint32_t n)
{
	const struct tl_pk *k = tl_pk(b, i);
	size_t npk = tl_npk(b);
	unsigned seen = 0;
	for (size_t j = i + 1; j < npk && j - i <= 4096 && seen < 16; j++) {
		const struct tl_pk *o = tl_pk(b, j);
		if (response_to_stream(o, k) && o->aeth_type == RT_AETH_NAK && o->psn == n)
			return false; /* asked again: a round from i may have answered the first */
		if (!request_to_same_qp(o, k))
			continue;
		if (o->icrc == RT_ICRC_BAD)
			return false;
		if (o->psn == n)
			return true;
		seen++;
	}
	return false;
}

/* An engine packet event with its QP: which way it went and who sent it. */
struct epkt {
	const struct rt_ev_packet *p;
	const struct rt_opcode_info *op;
	bool resp, txd;
	uint32_t sender;          /* QP index of the sending side, RT_TL_NONE */
};

static bool engine_pkt(struct tl_build *b, size_t i, struct epkt *x)
{
	struct tl_evrec *e = tl_ev(b, i);
	if (e->ev.kind != RT_EV_PACKET || b->ev_qp[i] == RT_TL_NONE)
		return false;
	x->p = &e->ev.u.pkt;
	x->op = rt_opcode_info(x->p->opcode);
	x->resp = x->op && tl_class_response(x->op->op_class);
	x->txd = e->ev.flags & RT_EVF_TX;
	x->sender = x->txd ? b->ev_qp[i] : tl_qp(b, b->ev_qp[i])->peer;
	return true;
}

/* Whether the sending engine traced request k (matched to its event by
 * engine_match) as a resend, and its send just before, on the same QP, as
 * the PSN before k's, dropped as it left (injected loss): a round going on
 * from an earlier PSN whose first packets never reached the capture, which
 * shows it start at k.  The engine's sends are looked for among the 256
 * events of its trace either side of k's (its threads' events interleave). */
static bool engine_resend_after_drop(struct tl_build *b, const struct tl_pk *k)
{
	if (k->event == RT_TL_NONE)
		return false;
	size_t e = k->event, nev = tl_nev(b);
	const struct tl_evrec *ke = tl_ev(b, e);
	if (ke->ev.kind != RT_EV_PACKET || !(ke->ev.flags & RT_EVF_TX) || !(ke->ev.u.pkt.flags & RT_PKTF_RETRANS))
		return false;
	const struct tl_evrec *prev = NULL;
	size_t lo = e > 256 ? e - 256 : 0, hi = e + 256 < nev ? e + 256 : nev;
	for (size_t j = lo; j < hi; j++) {
		const struct tl_evrec *x = tl_ev(b, j);
		struct epkt p;
		if (j == e || !engine_pkt(b, j, &p) || !p.txd || !p.op || p.resp || x->host != ke->host ||
		    x->proc != ke->proc || b->ev_qp[j] != b->ev_qp[e] || x->raw_ns > ke->raw_ns ||
		    (prev && x->raw_ns < prev->raw_ns))
			continue;
		prev = x;
	}
	return prev && (prev->ev.u.pkt.flags & RT_PKTF_DROPPED) && prev->ev.u.pkt.psn == rt_psn_add(k->psn, -1);
}

/* (tl_internal.h) A packet its engine held back is late, whatever the
 * capture shows around it. */
bool tl_engine_held(struct tl_build *b, const struct tl_pk *k)
{
	const struct rt_ev_packet *p = engine_sent(b, k);
	return p && (p->engine_flags & RT_PKTE_HELD);
}

/* Whether request k (packet i, unwrapped PSN pu, not a READ or atomic,
 * below the stream's latest PSN sent; its PSN's latest captured
 * transmission lt or RT_TL_NONE) was held back on the way rather than sent
 * again: it comes less than half the sender's ACK timeout after that PSN,
 * and the stream's next requests (8 of them) do not go on from it, as every
 * retransmission round does (Go-Back-N resends from a PSN onwards), but
 * either resends its PSN (the resend a NAK asked for, which it overtook) or
 * goes on where the stream was, with no NAK for its PSN since that PSN was
 * last sent (a NAK then could have asked for it alone); or it is the
 * stream's last request and its PSN was acknowledged already (a sender
 * whose ACK went missing resends the later PSNs too).  Only where the
 * capture reports no drops.  Always when its sending engine traced it as
 * held back (tl_engine_held); never when that engine traced it as a resend
 * of a PSN no earlier transmission of which reached the capture. */
static bool stray_request(struct tl_build *b, const struct stream *S, const struct tl_pk *k, size_t i, uint64_t pu,
			  uint32_t lt)
{
	if (pu >= S->max_u)
		return false;
	const struct rt_ev_packet *ep = engine_sent(b, k);
	if (ep && (ep->engine_flags & RT_PKTE_HELD))
		return true; /* its engine held it back */
	if (ep && (ep->flags & RT_PKTF_RETRANS) && lt == RT_TL_NONE)
		return false; /* its engine resent it, and no earlier transmission reached the capture:
			       * a retransmission (its original lost or still held back), no late original */
	if (!ep && ids_sent_before(b, S, k))
		return true; /* numbered before a request captured already: sent before it */
	if (b->capture_dropped || engine_resend_after_drop(b, k))
		return false;
	uint64_t half = tl_half_ack_timeout_ns(b, k->send_qp);
	if (!half || k->raw_ns - S->last_sent_ns >= half)
		return false; /* after the stream was silent that long: the ACK timer's round */
	int next = next_stream_psn(b, S, i, rt_psn_add(S->last_sent, 1), half);
	bool back = rt_psn_diff(k->psn, S->last_sent) < 0;
	const struct tl_pk *r = S->last_round != RT_TL_NONE ? tl_pk(b, S->last_round) : NULL;
	if (r && r->retrans_cause == RT_RETRY_NAK_SEQ && r->trigger != RT_TL_NONE && tl_pk(b, r->trigger)->psn == r->psn &&
	    rt_psn_diff(k->psn, r->psn) < 0)
		return true; /* below the PSN of a NAK the sender went back to: that NAK told it the
			      * receiver had every PSN before, and a sender never sends those again */
	/* going back, not followed at once by the PSN after it, less than half
	 * the ACK timeout after its PSN was last sent */
	bool back_soon = back && next != 0 && lt != RT_TL_NONE && k->raw_ns - tl_pk(b, lt)->raw_ns < half;
	if (back_soon && S->have_ack && pu <= S->acked_u && !nak_owes(b, S, k))
		return true; /* acknowledged already (by an ACK or a NAK for a later PSN), sooner than
			      * an ACK timer after its PSN was last sent, and no NAK pending asks for it
			      * or an earlier PSN: no round starts at an acknowledged PSN (going back:
			      * one that follows the PSN before may be a round's that never got the ACK,
			      * lost after the capture point) */
	uint32_t en = earliest_nak(S);
	if (back_soon && en != RT_TL_NONE && tl_pk(b, en)->aeth_type == RT_AETH_NAK &&
	    rt_psn_diff(tl_pk(b, en)->psn, k->psn) < 0 && nak_round_follows(b, i, tl_pk(b, en)->psn))
		return true; /* a NAK for an earlier PSN, which the sender acts on next, and its
			      * round comes after this one: this one is no round's */
	if (next == 0)
		return false; /* a round goes on from it */
	if (rt_psn_diff(k->psn, S->last_sent) > 0 && next != 2)
		return false; /* ahead of the round: only its going back at once to where it was
			       * tells it from a round's skip over PSNs lost before the capture */
	if (next == 1 || next == 3)
		return true; /* (a round that went back below it right after it: Go-Back-N's rounds
			      * start at the oldest PSN not acknowledged or at a NAK's, and a NAK for
			      * an earlier PSN than a round's first, acknowledged by then, is stale) */
	if (next == -2 && S->have_ack && pu <= S->acked_u)
		return true; /* the stream's last, acknowledged, with later PSNs sent: a sender that
			      * missed the ACK resends those too */
	if (next != 2 && next != 4 && next != -2)
		return false; /* (-2, the stream's last request alone: a round from it would have resent
			       * the later PSNs too) */
	/* a NAK for its PSN the sender acts on next (the earliest pending), or
	 * an RNR NAK for it */
	uint32_t nak = nak_for_psn(b, S, k->psn);
	if (nak == RT_TL_NONE && S->last_nak != RT_TL_NONE && tl_pk(b, S->last_nak)->psn == k->psn)
		nak = S->last_nak;
	return nak == RT_TL_NONE || nak != earliest_nak(S) || (lt != RT_TL_NONE && tl_pk(b, nak)->raw_ns < tl_pk(b, lt)->raw_ns);
}

/* Whether, after its PSN's latest transmission lt, resends of request i's
 * stream went past its PSN, both below and above it, or reached the PSN
 * right before it, without it (among the 4096 packets before it): a round
 * skipped it, and it is that round's resend, held back on the way. */
static bool round_skipped(struct tl_build *b, size_t i, uint32_t lt)
{
	const struct tl_pk *k = tl_pk(b, i);
	bool below = false, above = false;
	for (size_t j = i; j-- > (size_t)lt + 1 && i - j <= 4096;) {
		const struct tl_pk *o = tl_pk(b, j);
		if (!o->is_request || o->recv_qp != k->recv_qp || !o->retrans || o->late)
			continue;
		int32_t d = rt_psn_diff(o->psn, k->psn);
		below |= d < 0;
		above |= d > 0;
		if ((below && above) || d == -1)
			return true;
	}
	return false;
}

/* Whether a NAK or RNR NAK for request k's PSN came after the stream's
 * latest request and is pending: the sender was told to send that PSN
 * again, so a repeat of the latest request is that resend. */
static bool nak_since_last_req(struct tl_build *b, const struct stream *S, const struct tl_pk *k)
{
	for (unsigned j = 0; j <= S->nolder; j++) {
		uint32_t n = pending_nak(S, j);
		if (n != RT_TL_NONE && n > S->last_req && tl_pk(b, n)->psn == k->psn)
			return true;
	}
	return false;
}

/* Whether the sender's engine traced packet k (a request or a response) as
 * the same transmission as o, the one before it of its PSN: two sends back
 * to back in one thread's trace (nothing between: no retry, which an engine
 * traces, and no other packet), either with the same retransmission count
 * or within 20 us (sent at once, quicker than a NAK's round trip: uroce's
 * dup fault traced its copy as a resend before this release), so nothing
 * made it send the PSN again; a response only at once.  (A count alone does
 * not tell: uroce counts a READ's re-requests per WR, and two of them may
 * carry the same.) */
bool tl_engine_same_transmission(struct tl_build *b, const struct tl_pk *o, const struct tl_pk *k)
{
	if (k->event == RT_TL_NONE || o->event == RT_TL_NONE || k->event == o->event || k->event >= tl_nev(b) ||
	    o->event >= tl_nev(b))
		return false;
	const struct tl_evrec *kr = tl_ev(b, k->event), *orr = tl_ev(b, o->event);
	const struct rt_event *ke = &kr->ev, *oe = &orr->ev;
	if (ke->kind != RT_EV_PACKET || oe->kind != RT_EV_PACKET || !(ke->flags & RT_EVF_TX) || !(oe->flags & RT_EVF_TX) ||
	    ke->u.pkt.psn != oe->u.pkt.psn || ke->tid != oe->tid || ke->seq != oe->seq + 1 || kr->proc != orr->proc ||
	    kr->host != orr->host)
		return false;
	if ((ke->u.pkt.engine_flags | oe->u.pkt.engine_flags) & RT_PKTE_HELD)
		return false; /* one held back by a fault rule, traced as it left: two sends */
	if (ke->u.pkt.engine_flags & RT_PKTE_INJECTED_COPY)
		return true; /* the copy a fault rule made, as the engine says */
	bool same_count = ke->u.pkt.retrans_count == oe->u.pkt.retrans_count &&
			  (ke->u.pkt.flags & RT_PKTF_RETRANS) == (oe->u.pkt.flags & RT_PKTF_RETRANS);
	bool at_once = kr->raw_ns >= orr->raw_ns && kr->raw_ns - orr->raw_ns < 20000;
	/* a responder's answers all carry count 0, and one answering a request
	 * again may trace no event between (its receive traced elsewhere): a
	 * response is the same transmission only at once (uroce under `delay`
	 * answered one PSN twice 0.6 ms apart; its dup fault's copies came
	 * 0.01-17 us after the original, traced before this release as resends) */
	if (tl_class_response(k->op_class))
		return at_once && (same_count || (ke->u.pkt.flags & RT_PKTF_RETRANS));
	return same_count || at_once;
}

/* Whether the sender's engine traced captured packet k as changed on
 * purpose by a fault rule (flag: RT_PKTE_INJECTED_COPY, _CORRUPT or _CE). */
bool tl_engine_injected(struct tl_build *b, const struct tl_pk *k, unsigned flag)
{
	if (k->event == RT_TL_NONE || k->event >= tl_nev(b))
		return false;
	const struct rt_event *e = &tl_ev(b, k->event)->ev;
	return e->kind == RT_EV_PACKET && (e->flags & RT_EVF_TX) && (e->u.pkt.engine_flags & flag);
}

/* Whether the sender's engine traced request k as a resend of o's PSN
 * (not as o sent again at once): then it is no copy, whatever the capture
 * shows (uroce asks for a READ again within microseconds when a response
 * comes out of sequence). */
static bool engine_resent(struct tl_build *b, const struct tl_pk *o, const struct tl_pk *k)
{
	if (k->event == RT_TL_NONE || k->event >= tl_nev(b))
		return false;
	const struct rt_event *ke = &tl_ev(b, k->event)->ev;
	return ke->kind == RT_EV_PACKET && (ke->flags & RT_EVF_TX) && (ke->u.pkt.flags & RT_PKTF_RETRANS) &&
	       !tl_engine_same_transmission(b, o, k);
}

/* Whether request k (unwrapped PSN pu, not a READ or atomic) is a copy of
 * the stream's request right before it that the network or the capture
 * made, rather than a retransmission.  It repeats that packet (PSN, opcode,
 * lengths) with no NAK since, well within the local ACK timeout, and either
 * is the very same IPv4 datagram (the same identification, where the
 * sender's vary: a resend is a new datagram) or repeats a PSN no Go-Back-N
 * starts from: a sender goes back to the oldest PSN not yet acknowledged,
 * or to the PSN a NAK names, and an older one was outstanding (known only
 * where the capture holds the stream's acknowledgements, and does not say
 * it dropped packets, which could have been one that acknowledged it), or
 * comes before any ACK timer could go off: less than half the timeout after
 * the sender's very first request (its starting PSN), where the capture
 * holds what answers the sender and dropped nothing.  Then only a NAK or
 * RNR NAK for it, which the capture would hold, could have made the sender
 * send it again (a NAK for an earlier PSN goes back further; none for a
 * later one can come, none was sent).  Failing those, when its sender's
 * engine traced it as the same transmission as that one
 * (tl_engine_same_transmission); never when the engine traced it as a resend
 * (engine_resent). */
static bool wire_copy(struct tl_build *b, const struct stream *S, const struct qp_origin *origin, struct tl_pk *k,
		      uint64_t pu)
{
	if (!S->have || S->last_req == RT_TL_NONE || k->send_qp == RT_TL_NONE)
		return false;
	const struct tl_pk *o = tl_pk(b, S->last_req);
	if (o->psn != k->psn || o->opcode != k->opcode || o->payload_len != k->payload_len ||
	    o->wirelen != k->wirelen || o->dqpn != k->dqpn || o->icrc != k->icrc)
		return false;
	uint64_t half = tl_half_ack_timeout_ns(b, k->send_qp);
	if (!half || k->raw_ns < o->raw_ns || k->raw_ns - o->raw_ns >= half)
		return false;
	if (engine_resent(b, o, k))
		return false;
	/* the very datagram again, also while a NAK is pending (netem's
	 * duplicate after an RNR NAK: a resend would be a new datagram) */
	if (same_datagram(b, S, o, k)) {
		k->same_datagram = true;
		return true;
	}
	/* a NAK from before it still pending: it was late, and this its resend,
	 * unless its engine traced one transmission sent twice */
	bool nak_pending = S->last_nak_ns >= o->raw_ns || S->last_nak != RT_TL_NONE;
	/* what the capture tells first (its words need no traces), then the engine */
	if (!nak_pending && !b->capture_dropped) {
		if (S->have_ack && S->acked_u + 1 < pu)
			return true;
		uint64_t t0 = tl_pk(b, S->first_pk)->raw_ns;
		if (S->from_start && origin[k->send_qp].answered && k->raw_ns >= t0 && k->raw_ns - t0 < half) {
			k->before_timer = true;
			k->trigger = S->first_pk;
			return true;
		}
	}
	k->engine_copy = tl_engine_same_transmission(b, o, k);
	return k->engine_copy;
}

#define READ_LATE_GAPS 4      /* late gaps a READ remembers (read_span.late_gap) */
/* A READ request on a requester stream: the PSNs its responses use.  A
 * requester that misses a response asks again from inside that range, with
 * a new READ request for the rest. */
struct read_span {
	uint64_t first_u;         /* first PSN (unwrapped) */
	uint32_t n;               /* PSNs it spans */
	uint32_t orig;            /* its first captured request (packet), RT_TL_NONE */
	uint32_t req;             /* its latest request */
	uint64_t got_u;           /* next response PSN the requester expects */
	uint32_t gap;             /* a response or ACK that skipped got_u since req, RT_TL_NONE */
	uint64_t gap_u;           /* the PSN it skipped: a re-request from there answers the gap */
	bool gap_in_round;        /* the gap came while a round was not yet acknowledged (stream.open_round) */
	/* gaps whose skipped response came late since req (late_gap_psn), newest
	 * last: the requester may ask again from any of them, in a storm after a
	 * later one came late too */
	uint32_t late_gap[READ_LATE_GAPS];
	uint64_t late_gap_u[READ_LATE_GAPS];
	uint32_t nlate;
};
#define READ_RING 128         /* READs and atomics remembered per stream (rxe allows 128 outstanding) */

/* The PSNs a READ request's responses take: its DMA length over the path MTU
 * of either side (one when the MTU is unknown: then every captured response
 * was a single packet, see wire_qps). */
uint32_t tl_read_span_psns(struct tl_build *b, const struct tl_pk *k)
{
	unsigned m = k->send_qp != RT_TL_NONE ? tl_qp(b, k->send_qp)->mtu : 0;
	if (!m && k->recv_qp != RT_TL_NONE)
		m = tl_qp(b, k->recv_qp)->mtu;
	if (!m || !k->reth_len)
		return 1;
	uint32_t n = rt_packets_for(k->reth_len, rt_mtu_bytes(m));
	return n ? n : 1;
}

/* The PSN that follows request k: the next one, or for a READ the one past
 * its responses' span. */
uint32_t tl_request_next_psn(struct tl_build *b, const struct tl_pk *k)
{
	return rt_psn_add(k->psn, k->op_class == RT_CLASS_READ_REQ ? (int32_t)tl_read_span_psns(b, k) : 1);
}

/* The READ of stream s whose span holds pu, newest first; NULL.  Asked
 * again, it is one the responses must be counted for again. */
static struct read_span *read_find(struct read_span *ring, struct stream *S, uint64_t pu)
{
	uint32_t have = S->nreads < READ_RING ? S->nreads : READ_RING;
	for (uint32_t j = 0; j < have; j++) {
		uint32_t n = S->nreads - 1 - j;
		struct read_span *r = &ring[n % READ_RING];
		if (pu >= r->first_u && pu < r->first_u + r->n) {
			if (n < S->reads_done)
				S->reads_done = n;
			return r;
		}
	}
	return NULL;
}

/* The gap since READ rs's latest request whose skipped response, at PSN pu,
 * came late (newest first); RT_TL_NONE. */
static uint32_t late_gap_psn(const struct read_span *rs, uint64_t pu)
{
	uint32_t have = rs->nlate < READ_LATE_GAPS ? rs->nlate : READ_LATE_GAPS;
	for (uint32_t j = 0; j < have; j++) {
		uint32_t n = (rs->nlate - 1 - j) % READ_LATE_GAPS;
		if (rs->late_gap_u[n] == pu)
			return rs->late_gap[n];
	}
	return RT_TL_NONE;
}

/* Record READ request packet pk (PSN psn, unwrapped pu, n PSNs; orig its
 * first captured request): the stream's highest PSN moves to the span's end. */
static void read_push(struct read_span *ring, struct stream *S, uint64_t pu, uint32_t psn, uint32_t n, uint32_t pk,
		      uint32_t orig)
{
	struct read_span *r = &ring[S->nreads++ % READ_RING];
	*r = (struct read_span){.first_u = pu, .n = n, .orig = orig, .req = pk, .got_u = pu, .gap = RT_TL_NONE,
				.nlate = 0};
	if (pu + n - 1 > S->max_u) {
		S->max_u = pu + n - 1;
		S->max_psn = rt_psn_add(psn, (int32_t)n - 1);
	}
}

/* A round that asks again from inside READ span first_u on: the requester
 * goes back to the oldest response it misses, so it had every response of
 * the READs before (their responses may have come late, or been lost
 * after the capture point, where the capture does not show them in order):
 * they are complete, and no longer hold back the later READs' responses
 * (read_responses). */
static void reads_complete_below(struct read_span *ring, struct stream *S, uint64_t first_u)
{
	uint32_t from = S->nreads > READ_RING ? S->nreads - READ_RING : 0;
	for (uint32_t n = from; n < S->nreads; n++) {
		struct read_span *r = &ring[n % READ_RING];
		if (r->first_u < first_u && r->got_u < r->first_u + r->n)
			r->got_u = r->first_u + r->n;
	}
}

/* A response or ACK with PSN pu on a stream: READs it shows incomplete get
 * their gap (the requester sees a response missing: an implied NAK).  The
 * requester takes responses in PSN order: while an older READ still misses
 * one before pu, it drops this response, so a later READ's responses count
 * only once the older ones are complete (its Go-Back-N then asks for the
 * later READs again, read_push / the re-request reset their place). */
static void read_responses(struct read_span *ring, struct stream *S, uint64_t pu, bool read_resp, uint32_t pk)
{
	/* oldest first, from the oldest READ not known complete */
	uint32_t from = S->nreads > READ_RING ? S->nreads - READ_RING : 0;
	if (S->reads_done > from)
		from = S->reads_done;
	bool dropped = false; /* an older READ misses a response before pu */
	bool leading = true;  /* every READ so far complete */
	for (uint32_t n = from; n < S->nreads; n++) {
		struct read_span *r = &ring[n % READ_RING];
		if (pu < r->first_u)
			continue; /* a READ after pu (one first seen resent sits out of PSN order) */
		if (r->got_u >= r->first_u + r->n) {
			if (leading)
				S->reads_done = n + 1;
			continue; /* all its responses arrived */
		}
		leading = false;
		if (read_resp && pu == r->got_u && !dropped) {
			if (++r->got_u > r->gap_u && r->gap != RT_TL_NONE) {
				/* the skipped response came after all, late: the requester
				 * may have seen the gap and ask again from it anyway */
				r->late_gap[r->nlate % READ_LATE_GAPS] = r->gap;
				r->late_gap_u[r->nlate % READ_LATE_GAPS] = r->gap_u;
				r->nlate++;
				r->gap = RT_TL_NONE;
			}
		} else if (pu > r->got_u && r->gap == RT_TL_NONE && pk > r->req && !dropped) {
			r->gap = pk; /* the oldest READ missing a response is the one asked again */
			r->gap_u = r->got_u;
			r->gap_in_round = S->open_round;
		}
		if (pu > r->got_u)
			dropped = true;
	}
}

/* The response that showed a READ's or atomic's requester a response
 * missing, when the capture holds that response: READ or atomic
 * request k (packet i) asks again from its PSN, and since the request
 * before (rs->req) the capture holds the response of that PSN and, after
 * it, one of a later PSN.  The requester took the later one out of
 * sequence (an implied NAK): it never got the one the capture holds (lost
 * after the capture point, dropped on arrival, or damaged: a bad ICRC).
 * RT_TL_NONE: none. */
static uint32_t response_missed(struct tl_build *b, const struct tl_pk *k, size_t i, const struct read_span *rs)
{
	uint32_t later = RT_TL_NONE;
	for (size_t j = i; j-- > (size_t)rs->req + 1 && i - j <= 200000;) {
		const struct tl_pk *p = tl_pk(b, j);
		if (!answer_to_stream(p, k))
			continue;
		int32_t d = rt_psn_diff(p->psn, k->psn);
		if (d > 0)
			later = (uint32_t)j; /* the earliest after the one that went missing */
		else if (d == 0)
			return later; /* (one with a bad ICRC the requester dropped) */
		else if (d < 0)
			break;
	}
	return RT_TL_NONE;
}

/* Whether a request with a bad ICRC (whose PSN may be what was damaged)
 * stands where an intact one could: the stream's next PSN, or a resend of a
 * PSN captured before (first: its first transmission) in a round under way
 * or one a NAK or the ACK timeout explains; the first of its stream when a
 * traced WR of its sender has that PSN (wr_psn).  One that does not is left
 * out of the stream: a damaged PSN would make a gap or a resend that never
 * happened. */
static bool bad_icrc_fits(struct tl_build *b, const struct stream *S, const struct tl_pk *k, uint32_t first,
			  bool wr_psn)
{
	if (!S->have)
		return wr_psn;
	int32_t d = rt_psn_diff(k->psn, S->max_psn);
	if (d == 1)
		return true;
	if (d > 0 || first == RT_TL_NONE)
		return false;
	return S->in_burst || S->last_nak != RT_TL_NONE || timeout_passed(b, k, S->last_sent_ns, 0);
}

/* True when request k came less than wait_ns plus the whole local ACK
 * timeout of its sender (less a tenth, for timer granularity) after
 * since_ns: a timer started then cannot have gone off.  False when the
 * timeout is not known. */
static bool before_timeout(struct tl_build *b, const struct tl_pk *k, uint64_t since_ns, uint64_t wait_ns)
{
	uint64_t timeout = 2 * tl_half_ack_timeout_ns(b, k->send_qp);
	return timeout && k->raw_ns >= since_ns && k->raw_ns - since_ns < wait_ns + timeout - timeout / 10;
}

/* The response that showed a READ's requester a response missing, captured
 * before the requester's previous request of that READ (rs->req) and taken
 * by it only after it sent that request: READ request k (packet i) asks
 * again from a PSN above the one rs->req asked from, sooner after it than
 * the sender's ACK timeout (when that is not known: with no response of the
 * stream captured between the two), and since the stream's request before
 * rs->req (and before the ones right before it) the capture holds the
 * response of k's PSN less one, then one above k's PSN with none of k's PSN
 * between (the requests among them aside).  The requester had responses
 * on their way when it asked again and, taking them after, found the gap at
 * k's PSN, which its latest request had not (uroce's requester under
 * held-back READ responses asks two or three times within microseconds
 * so).  RT_TL_NONE: none. */
static uint32_t response_crossed(struct tl_build *b, const struct tl_pk *k, size_t i, const struct read_span *rs)
{
	const struct tl_pk *q = tl_pk(b, rs->req);
	if (rt_psn_diff(k->psn, q->psn) <= 0)
		return RT_TL_NONE;
	if (!before_timeout(b, k, q->raw_ns, 0))
		for (size_t j = rs->req + 1; j < i; j++)
			if (response_to_stream(tl_pk(b, j), k))
				return RT_TL_NONE;
	/* from after the stream's request before rs->req, and before the
	 * requests that came right before rs->req (with no answer between
	 * them: the requester asked several times in a row) */
	size_t from = rs->req;
	bool answered = false;
	for (; from > 0 && rs->req - from < 200000; from--) {
		const struct tl_pk *p = tl_pk(b, from - 1);
		if (p->is_request && p->recv_qp == k->recv_qp && answered)
			break;
		answered = answered || response_to_stream(p, k);
	}
	uint32_t before = rt_psn_add(k->psn, -1), gap = RT_TL_NONE;
	bool below = false;   /* the response of the PSN before k's came, and none of k's since */
	bool skipped = false; /* and one above k's after it: gap, the latest such */
	for (size_t j = from; j < i; j++) {
		const struct tl_pk *p = tl_pk(b, j);
		if (!answer_to_stream(p, k))
			continue;
		if (p->psn == before) {
			below = true;
			skipped = false;
		} else if (p->psn == k->psn) {
			below = false;
		} else if (below && !skipped && rt_psn_diff(p->psn, k->psn) > 0) {
			gap = (uint32_t)j;
			skipped = true;
		}
	}
	return gap;
}

/* Whether the sender's ACK timer, restarted by the latest response that
 * left requests outstanding, cannot have gone off by request k: less than
 * the whole timeout (less a tenth, for timer granularity) after it.  Such a
 * late round is its trigger's late answer (an RNR NAK acted on 36 ms late by
 * the kernel's SoftRoCE on TCG, with a 67 ms timeout), not the timer's. */
static bool timer_rearmed(struct tl_build *b, const struct stream *S, const struct tl_pk *k)
{
	return S->rearm_ns && before_timeout(b, k, S->rearm_ns, 0);
}

/* An ACK timeout makes the sender go back to the oldest PSN it has no
 * acknowledgement for: a request above that (the acknowledgements captured
 * so far, NAKs included) is not the timer's. */
static bool above_unacked(const struct stream *S, uint64_t pu)
{
	return S->have_ack && pu > S->acked_u + 1;
}

/* Whether a late round is the sender's late answer to its trigger (a NAK
 * or RNR NAK for the PSN the round starts at) rather than its ACK timer's.
 * The sender got the trigger when only the trigger told it that the PSN
 * before arrived (no ACK or response captured before covers it): after a
 * timeout it would go back to the oldest PSN it knows to be unacknowledged.
 * Having got it, it went back at once (or as soon as it could: a sender busy
 * elsewhere acts on a NAK late), and its timer, restarted by the trigger,
 * cannot go off sooner than the whole timeout after it: a round later than
 * that (less a tenth for timer granularity) is the timer's, the trigger's
 * resend having been lost before the capture point. */
static bool late_answer(struct tl_build *b, const struct stream *S, const struct tl_pk *trigger, const struct tl_pk *k,
			uint64_t pu, uint64_t wait_ns)
{
	bool got_it = trigger->psn == k->psn && pu > S->first_u && (!S->have_plain_ack || pu > S->plain_acked_u + 1);
	return got_it && before_timeout(b, k, trigger->raw_ns, wait_ns);
}

/* Packets by PSN on the requester streams, for wire_streams: the first and
 * the latest transmission of each PSN.  A stream's PSNs are mostly one
 * contiguous range, so each stream has a window of entries indexed by the
 * PSN's offset from the stream's first PSN (4 bytes an entry, read in
 * order), and only the PSNs far outside it go to a hash of (QP, PSN): a
 * (QP, PSN) hash for every PSN was a cache miss per request.  Offsets wrap
 * with the 24-bit PSN, as the PSN keys did. */
struct psn_win {
	uint32_t base;            /* the stream's first PSN: offset 0 */
	uint32_t cap;             /* offsets [0, cap) have an entry in v */
	uint32_t *v;              /* packet + 1 per offset, 0 none */
};

struct psn_map {
	struct psn_win *w;        /* per stream (QP index) */
	struct tl_hash far;       /* (QP, PSN) -> packet, for PSNs outside their stream's window */
};

#define PSN_WIN_SLACK 4096    /* how far past the stream's highest PSN a window grows */

static int psn_map_init(struct psn_map *m, size_t nqp)
{
	m->w = calloc(nqp ? nqp : 1, sizeof(*m->w));
	if (!m->w || tl_hash_init(&m->far, 64) < 0) {
		free(m->w);
		m->w = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void psn_map_free(struct psn_map *m, size_t nqp)
{
	for (size_t q = 0; m->w && q < nqp; q++)
		free(m->w[q].v);
	free(m->w);
	m->w = NULL;
	tl_hash_free(&m->far);
}

/* Stream s starts at PSN base: its window's offset 0. */
static void psn_map_start(struct psn_map *m, uint32_t s, uint32_t base)
{
	m->w[s].base = base;
}

/* The packet recorded for PSN psn of stream s, RT_TL_NONE. */
static uint32_t psn_map_get(const struct psn_map *m, uint32_t s, uint32_t psn)
{
	const struct psn_win *w = &m->w[s];
	uint32_t off = (psn - w->base) & RT_PSN_MASK;
	if (psn <= RT_PSN_MASK && off < w->cap && w->v[off])
		return w->v[off] - 1;
	uint32_t *f = m->far.n ? tl_hash_get(&m->far, K2(s, psn)) : NULL;
	return f ? *f : RT_TL_NONE;
}

/* Grow window w to hold offset off (zeroed entries: fresh pages are only
 * faulted in where written). */
static int psn_win_grow(struct psn_win *w, uint32_t off)
{
	size_t cap = (size_t)w->cap * 2;
	if (cap < (size_t)off + 1)
		cap = (size_t)off + 1;
	if (cap < 1024)
		cap = 1024;
	if (cap > (size_t)RT_PSN_MASK + 1)
		cap = (size_t)RT_PSN_MASK + 1;
	uint32_t *v = calloc(cap, sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (w->cap)
		memcpy(v, w->v, w->cap * sizeof(*v));
	free(w->v);
	w->v = v;
	w->cap = (uint32_t)cap;
	return 0;
}

/* Record packet pk for PSN psn of stream s, whose highest PSN so far is at
 * offset reach: the window grows up to a little past that; a PSN further
 * out goes to the hash. */
static int psn_map_put(struct psn_map *m, uint32_t s, uint32_t psn, uint32_t pk, uint32_t reach)
{
	struct psn_win *w = &m->w[s];
	uint32_t off = (psn - w->base) & RT_PSN_MASK;
	if (psn <= RT_PSN_MASK && (off < w->cap || ((uint64_t)off <= (uint64_t)reach + PSN_WIN_SLACK &&
						    psn_win_grow(w, off) == 0))) {
		w->v[off] = pk + 1;
		return 0;
	}
	return tl_hash_put(&m->far, K2(s, psn), pk);
}

/* Items (events or packets) in order; those from head on are pending. */
struct fifo {
	uint32_t *v;
	size_t head, n, cap;
};

static int fifo_push(struct fifo *f, uint32_t x)
{
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 16;
		uint32_t *v = realloc(f->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		f->v = v;
		f->cap = cap;
	}
	f->v[f->n++] = x;
	return 0;
}

#define GAP_WRS_MAX 4096 /* a gap wider than this marks every WR of its QP */

/* Per event, for a send WR: how far the capture's gaps let its packets bound
 * its completion from above.  Where a request stream shows a PSN gap (past
 * its highest PSN, or inside a round of resends), the
 * capture may also have missed the packet or ACK that really completed a
 * WR, and a later captured transmission or ACK stands in for it: those
 * still come after the WR was posted, but bound nothing from above.
 *   GAP_NONE  no gap on its QP: every link bounds
 *   GAP_QP    a gap elsewhere on its QP: its own request packets still bound
 *             (they are its by PSN), its ACK and consumers do not (a missed
 *             ACK or retry may be what really completed it)
 *   GAP_WR    it owns a PSN in a gap (between the highest PSN captured
 *             before an out-of-order request and that request's own), or
 *             that request, or it was flushed (WR_FLUSH_ERR: its packets
 *             and ACK may pass the capture point after the flush): nothing
 *             bounds from above
 * gap_note() finds them as the replay meets the requests (a pass of its own
 * over the 170-byte packets cost as much as the rest), completions() puts
 * them into the events' entries (c->ce), and marks the flushed WRs. */
enum { GAP_NONE = 0, GAP_QP = 1, GAP_WR = 2 };

/* What the constraints read of a packet, packed (a sixth of its 170 bytes). */
struct cpk {
	uint64_t raw_ns;
	uint32_t wr;
	uint32_t original;        /* a retransmission: the first captured transmission of its PSN */
};

/* Packet i may pass the capture point after its WR completed, so it bounds
 * no completion from above: the completion did not wait for it.  A request
 * held back on the way (tl_pk.late), a copy made on the way, a resend of a
 * PSN already acknowledged (the ACK that completed the WR was for an
 * earlier copy, and this one may be held back behind it), a READ response
 * or atomic ACK at or below a PSN its stream had answered before (the
 * answer to a re-request, or one held back, may come after the requester
 * completed the WR with an earlier copy). */
static void mark_past_completion(struct lctx *c, size_t i)
{
	c->past_completion[i / 8] |= (uint8_t)(1u << (i % 8));
}

static bool past_completion(const struct lctx *c, size_t i)
{
	return c->past_completion[i / 8] >> (i % 8) & 1;
}

/* What the stream replay gathers for the later steps on its pass over the
 * packets (c->cpk, c->gap, c->recv); -ENOMEM. */
static int scans_init(struct lctx *c)
{
	struct tl_build *b = c->b;
	size_t nev = tl_nev(b), npk = tl_npk(b), nqp = b->qps.n;
	struct gap_scan *g = &c->gap;
	struct recv_scan *r = &c->recv;
	c->cpk = malloc((npk ? npk : 1) * sizeof(*c->cpk));
	c->past_completion = calloc(npk / 8 + 1, 1);
	g->top = malloc((nqp + 1) * sizeof(uint32_t));
	g->next = malloc((nqp + 1) * sizeof(uint32_t));
	tl_vec_init(&g->skips, sizeof(struct gap_skip));
	g->seen = calloc(nqp + 1, 1);
	g->qp = calloc(nqp + 1, 1);
	g->wr = calloc(nev + 1, 1);
	r->cons = malloc((nev ? nev : 1) * sizeof(uint32_t));
	r->gap = calloc(nqp ? nqp : 1, 1);
	r->by_wr = malloc(nqp ? nqp : 1);
	r->msg = calloc(nqp ? nqp : 1, sizeof(*r->msg));
	if (!c->cpk || !c->past_completion || !g->top || !g->next || !g->seen || !g->qp || !g->wr || !r->cons || !r->gap ||
	    !r->by_wr || !r->msg || tl_hash_init(&r->last, 64) < 0)
		return -ENOMEM;
	memset(r->cons, 0xff, nev * sizeof(uint32_t)); /* RT_TL_NONE */
	memset(g->next, 0xff, (nqp + 1) * sizeof(uint32_t));
	for (size_t q = 0; q < nqp; q++) {
		const struct rt_tl_qp *Q = tl_qp(b, q);
		uint32_t peer = Q->peer;
		r->by_wr[q] = Q->qp_type != 4 /* UD: many senders */ && peer != RT_TL_NONE && peer < nqp &&
			      (tl_qp(b, peer)->flags & RT_TLQ_TRACED);
	}
	return 0;
}

static void fifos_free(struct fifo *f, size_t n)
{
	for (size_t q = 0; f && q < n; q++)
		free(f[q].v);
	free(f);
}

static void scans_free(struct lctx *c)
{
	free(c->cpk);
	free(c->past_completion);
	free(c->gap.top);
	free(c->gap.next);
	tl_vec_free(&c->gap.skips);
	free(c->gap.seen);
	free(c->gap.qp);
	free(c->gap.wr);
	free(c->recv.cons);
	free(c->recv.gap);
	free(c->recv.by_wr);
	fifos_free(c->recv.msg, c->b->qps.n);
	tl_hash_free(&c->recv.last);
}

/* The capture missed a packet of the stream to QP s from QP send_qp: their
 * WRs' ACKs and consumers bound nothing from above (GAP_QP). */
static void gap_mark_qp(struct lctx *c, uint32_t s, uint32_t send_qp)
{
	struct gap_scan *g = &c->gap;
	size_t nqp = c->b->qps.n;
	if (s < nqp)
		g->qp[s] = g->qp[s] ? g->qp[s] : GAP_QP;
	if (send_qp < nqp)
		g->qp[send_qp] = g->qp[send_qp] ? g->qp[send_qp] : GAP_QP;
}

/* Whether request k, taken as held back on the way (tl_pk.late), was: its
 * sending engine, where traced, says whether it held it back (a capture
 * that missed a round's start makes a resend look late: a lab run with an
 * RNR NAK and the resend after it cut from its capture). */
static bool gap_held_back(struct tl_build *b, const struct tl_pk *k)
{
	const struct rt_ev_packet *p = k->late ? engine_sent(b, k) : NULL;
	return k->late && (!p || (p->engine_flags & RT_PKTE_HELD));
}

/* Request packet k (recv_qp a QP, packet index i) after the replay: the
 * gaps it shows; 0 or -ENOMEM. */
static int gap_note(struct lctx *c, const struct tl_pk *k, size_t i)
{
	struct gap_scan *g = &c->gap;
	size_t nev = tl_nev(c->b), nqp = c->b->qps.n;
	uint32_t s = k->recv_qp;
	if (k->ooo)
		gap_mark_qp(c, s, k->send_qp);
	if (g->seen[s] && k->ooo && k->send_qp < nqp) {
		int32_t d = rt_psn_diff(k->psn, g->top[s]);
		if (d > GAP_WRS_MAX)
			g->qp[k->send_qp] = GAP_WR;
		for (int32_t j = 1; j <= d && d <= GAP_WRS_MAX; j++) {
			uint32_t w = wr_for_psn(c, k->send_qp, rt_psn_add(g->top[s], j), NULL);
			if (w != RT_TL_NONE && w < nev)
				g->wr[w] = GAP_WR;
		}
	}
	if (k->ooo && k->wr != RT_TL_NONE && k->wr < nev)
		g->wr[k->wr] = GAP_WR;
	/* a resend round goes through its PSNs in order: a resend past the
	 * one after the request before it (not the round's first; that one a
	 * request of one PSN) shows the capture missed those between, and it
	 * may have missed the ACK that completed their WRs too (a lab run with
	 * 6 frames cut from its capture: an ACK 1.7 ms after the one missed
	 * taken for the WRs', whose completions came before it), unless those
	 * were held back on the way and pass later (gap_skips_judge); one below
	 * it, a round whose start the capture missed.  A request held back is
	 * none of this: the round goes on where it was. */
	int32_t step = g->next[s] != RT_TL_NONE ? rt_psn_diff(k->psn, g->next[s]) : 0;
	bool held = gap_held_back(c->b, k);
	bool in_round = g->seen[s] && k->retrans && !k->round_start && !held; /* (not its first) */
	if (in_round && step < 0)
		gap_mark_qp(c, s, k->send_qp);
	if (in_round && step > 0) {
		struct gap_skip *x = tl_vec_push(&g->skips);
		if (!x)
			return -ENOMEM;
		*x = (struct gap_skip){.pk = (uint32_t)i, .from = g->next[s]};
	}
	if (!held) /* (one held back leaves the round where it was) */
		g->next[s] = k->op_class == RT_CLASS_READ_REQ ? RT_TL_NONE : rt_psn_add(k->psn, 1);
	if (!g->seen[s] || rt_psn_diff(k->psn, g->top[s]) > 0)
		g->top[s] = k->psn;
	g->seen[s] = 1;
	return 0;
}

#define GAP_SKIP_LATE_MAX 64 /* a resend skipping more PSNs is a gap, held back or not */

/* After the streams were read: each resend that skipped PSNs of its round
 * (gap_note) is a gap unless every PSN it skipped passed the capture point
 * after it, held back on the way (a lab run with every 6th SEND held back
 * 1.5 ms: their rounds skip them, none missed); 0 or -ENOMEM. */
static int gap_skips_judge(struct lctx *c)
{
	struct tl_build *b = c->b;
	struct gap_scan *g = &c->gap;
	if (!g->skips.n)
		return 0;
	struct tl_hash late; /* (stream, PSN) -> its latest late request */
	memset(&late, 0, sizeof(late));
	if (tl_hash_init(&late, b->lates.n) < 0)
		return -ENOMEM;
	for (size_t x = 0; x < b->lates.n; x++) {
		uint32_t i = *TL_AT(&b->lates, uint32_t, x);
		const struct tl_pk *k = tl_pk(b, i);
		if (gap_held_back(b, k) && tl_hash_put(&late, (uint64_t)k->recv_qp << 32 | k->psn, i) < 0) {
			tl_hash_free(&late);
			return -ENOMEM;
		}
	}
	for (size_t x = 0; x < g->skips.n; x++) {
		const struct gap_skip *sk = TL_AT(&g->skips, struct gap_skip, x);
		const struct tl_pk *k = tl_pk(b, sk->pk);
		int32_t n = rt_psn_diff(k->psn, sk->from);
		bool held = n <= GAP_SKIP_LATE_MAX;
		for (int32_t j = 0; j < n && held; j++) {
			const uint32_t *l = tl_hash_get(&late, (uint64_t)k->recv_qp << 32 | rt_psn_add(sk->from, j));
			held = l && *l > sk->pk;
		}
		if (!held)
			gap_mark_qp(c, k->recv_qp, k->send_qp);
	}
	tl_hash_free(&late);
	return 0;
}

/* The gap class of event i (a send WR's: GAP_*): its own, or its QP's. */
static uint8_t event_gap(const struct lctx *c, size_t i)
{
	uint32_t q = c->b->ev_qp[i];
	uint8_t g = c->gap.wr[i];
	return q < c->b->qps.n && c->gap.qp[q] > g ? c->gap.qp[q] : g;
}

/* Request packet i (k, recv_qp a QP) after the replay: the packet of its
 * consuming send WR, and where the receives are paired by the captured
 * messages (not by the peer's WRs), the message in order, up to the first
 * request out of order (a resend replaces its earlier transmission). */
static int recv_note(struct lctx *c, const struct tl_pk *k, size_t i)
{
	struct recv_scan *r = &c->recv;
	uint32_t q = k->recv_qp;
	if (k->ooo)
		r->gap[q] = 1;
	if (!k->consumes_recv)
		return 0;
	if (k->wr < tl_nev(c->b))
		r->cons[k->wr] = (uint32_t)i; /* a later transmission is the one that got through */
	if (r->by_wr[q] || !(tl_qp(c->b, q)->flags & RT_TLQ_TRACED) || r->gap[q])
		return 0;
	uint64_t key = K2(q, k->psn);
	uint32_t *v = tl_hash_get(&r->last, key);
	if (v) {
		r->msg[q].v[*v] = (uint32_t)i;
		return 0;
	}
	int rc = fifo_push(&r->msg[q], (uint32_t)i);
	return rc < 0 ? rc : tl_hash_put(&r->last, key, (uint32_t)(r->msg[q].n - 1));
}

/* The offset of stream S's highest PSN from its first (psn_map_put). */
static uint32_t stream_reach(const struct stream *S)
{
	uint64_t d = S->max_u - S->first_u;
	return d > RT_PSN_MASK ? RT_PSN_MASK : (uint32_t)d;
}

static int wire_streams(struct lctx *c)
{
	struct tl_build *b = c->b;
	size_t npk = tl_npk(b), nqp = b->qps.n;
	struct stream *st = calloc(nqp ? nqp : 1, sizeof(*st));
	struct psn_map first = {0}; /* (recv qp, psn) -> first transmission packet */
	struct psn_map last = {0};  /* (recv qp, psn) -> latest transmission (of resent PSNs) */
	uint32_t *pnext = malloc((npk ? npk : 1) * sizeof(uint32_t)); /* per-stream FIFO links */
	uint8_t *acked = calloc(tl_nev(b) + 1, 1); /* WRs already linked to their ACK */
	struct read_span *reads = calloc((nqp ? nqp : 1) * READ_RING, sizeof(*reads)); /* per stream ring */
	struct qp_origin *origin = qp_origins(c, nqp);
	if (!st || !pnext || !acked || !reads || !origin || scans_init(c) < 0 || psn_map_init(&first, nqp) < 0 ||
	    psn_map_init(&last, nqp) < 0) {
		psn_map_free(&first, nqp);
		free(st);
		free(pnext);
		free(acked);
		free(reads);
		free(origin);
		return -ENOMEM;
	}
	for (size_t q = 0; q < nqp; q++) {
		st[q].qhead = st[q].rhead = st[q].ptail = st[q].rtail = RT_TL_NONE;
		st[q].last_nak = RT_TL_NONE;
		st[q].last_req = RT_TL_NONE;
		st[q].last_late = RT_TL_NONE;
		st[q].last_round = RT_TL_NONE;
	}
	int rc = 0;
	for (size_t i = 0; i < npk; i++) {
		struct tl_pk *k = tl_pk(b, i);
		if (!b->engine_packets)
			pk_qps(c, k); /* else merge_qps did */
		c->cpk[i] = (struct cpk){.raw_ns = k->raw_ns, .wr = k->wr, .original = RT_TL_NONE};
		if (k->icrc == RT_ICRC_BAD)
			k->flags |= RT_TLF_BAD_ICRC | RT_TLF_ERROR;
		if ((k->tos & 3) == 3)
			k->flags |= RT_TLF_ECN;
		if (k->damaged)
			k->flags |= RT_TLF_DAMAGED;
		if (k->is_cm) {
			k->flags |= RT_TLF_CONTROL;
			continue;
		}
		if (k->opcode == RT_OP_CNP) {
			k->flags |= RT_TLF_CNP;
			continue;
		}
		if (k->is_request) {
			k->flags |= RT_TLF_REQUEST;
			uint32_t s = k->recv_qp;
			if (s == RT_TL_NONE)
				continue;
			struct stream *S = &st[s];
			if (k->icrc == RT_ICRC_BAD &&
			    !bad_icrc_fits(b, S, k, psn_map_get(&first, s, k->psn),
					   !S->have && wr_for_psn(c, k->send_qp, k->psn, NULL) != RT_TL_NONE))
				continue; /* its PSN may be what was damaged */
			uint64_t pu;
			if (!S->have) {
				S->have = true;
				pu = (1ull << 40) + k->psn;
				S->max_u = S->first_u = pu;
				S->max_psn = k->psn;
				S->first_pk = (uint32_t)i;
				S->from_start = k->send_qp < nqp && origin[k->send_qp].have_start &&
						origin[k->send_qp].start_psn == k->psn;
				k->cut_start = k->send_qp < nqp && origin[k->send_qp].have_start && !S->from_start;
				psn_map_start(&first, s, k->psn);
				psn_map_start(&last, s, k->psn);
			} else {
				pu = S->max_u + (uint64_t)(int64_t)rt_psn_diff(k->psn, S->max_psn);
			}
			/* a PSN beyond the highest seen is new: no lookup needed */
			uint32_t f = pu > S->max_u ? RT_TL_NONE : psn_map_get(&first, s, k->psn);
			/* READs and atomics are answered by responses of their own PSNs (an
			 * atomic by one ACK); a response or ACK past one still missing its
			 * answer is an implied NAK, and a READ request inside an earlier
			 * READ's span asks again for its responses */
			bool is_read = tl_class_rd_atomic(k->op_class);
			struct read_span *ring = &reads[(size_t)s * READ_RING];
			struct read_span *rs = is_read && pu <= S->max_u ? read_find(ring, S, pu) : NULL;
			if (rs && rs->first_u != pu)
				f = RT_TL_NONE; /* its PSN was the earlier READ's, not a request's */
			/* a READ or atomic copied: its request again with no response
			 * missing (a requester asks again from the first it misses) */
			bool read_again = rs && rs->first_u == pu && rs->req == S->last_req && rs->gap == RT_TL_NONE &&
					  rs->nlate == 0 &&
					  tl_pk(b, rs->req)->reth_va == k->reth_va &&
					  tl_pk(b, rs->req)->reth_len == k->reth_len;
			/* a repeat of the stream's latest request, a resend in a round
			 * after an earlier round skipped its PSN: the resend that round
			 * owed, held back (late), unless it is that very datagram (or
			 * its engine traced the two as one transmission) */
			const struct tl_pk *lr = S->last_req != RT_TL_NONE ? tl_pk(b, S->last_req) : NULL;
			bool repeats_last = !is_read && lr && lr->psn == k->psn;
			bool owed_repeat = repeats_last && lr->retrans && !same_datagram(b, S, lr, k) &&
					   !tl_engine_same_transmission(b, lr, k) &&
					   lr->prev_tx != RT_TL_NONE && round_skipped(b, S->last_req, lr->prev_tx) &&
					   !nak_since_last_req(b, S, k);
			/* a repeat of the latest request after late ones: maybe held back with them */
			bool among_late = repeats_last && S->last_late != RT_TL_NONE && S->last_late > S->last_req;
			if ((!is_read || read_again) && !owed_repeat && !among_late && wire_copy(b, S, origin, k, pu)) {
				/* last_req stays the original: a third copy repeats it too */
				k->wire_copy = true;
				mark_past_completion(c, i);
				if ((rc = mark_repeat(b, k, i, S->last_req, f)) < 0 || (rc = tl_vec_push_u32(&b->copies, (uint32_t)i)) < 0)
					break;
				continue;
			}
			const struct rt_ev_packet *ep = engine_sent(b, k); /* its sending engine's record */
			ids_note(S, k); /* (stray_request reads the identifications before it: max_id is
					 * not lowered by k, and k above it raises it) */
			/* a request that goes back below the latest PSN sent, skips
			 * forward over PSNs sent before (a round may skip forward over
			 * PSNs lost before the capture), or repeats an owed resend: its
			 * PSN's latest transmission, and whether it is held back, not
			 * resent */
			int32_t step = rt_psn_diff(k->psn, S->last_sent);
			bool out_of_step = !is_read && (step < 0 || (step > 1 && pu < S->max_u) || owed_repeat || among_late);
			uint32_t lt = RT_TL_NONE;
			if (out_of_step && (lt = psn_map_get(&last, s, k->psn)) == RT_TL_NONE)
				lt = f;
			/* UC never resends: a PSN a little below the latest sent, never captured
			 * before, came late (one far below is another stream's, as a QP
			 * number used again) */
			bool uc_late = rt_opcode_transport(k->opcode) == RT_TRANSPORT_UC && lt == RT_TL_NONE && step < 0 &&
				       step > -256;
			if (out_of_step && (owed_repeat || uc_late || stray_request(b, S, k, i, pu, lt))) {
				k->late = true;
				mark_past_completion(c, i);
				k->flags |= RT_TLF_OUT_OF_ORDER;
				S->last_late = (uint32_t)i;
				if ((rc = tl_vec_push_u32(&b->lates, (uint32_t)i)) < 0)
					break;
				const struct tl_pk *first_tx = lt != RT_TL_NONE ? tl_pk(b, f != RT_TL_NONE ? f : lt) : NULL;
				bool resent_since = lt != RT_TL_NONE && f != RT_TL_NONE && f != lt && !first_tx->retrans;
				/* (an engine that held back a packet says which it is: its first
				 * transmission, or a resend) */
				bool held = ep && (ep->engine_flags & RT_PKTE_HELD);
				bool held_first = held && !(ep->flags & RT_PKTF_RETRANS);
				if (lt != RT_TL_NONE && !held_first &&
				    (owed_repeat || held || round_skipped(b, i, lt) || nak_owes(b, S, k) ||
				     (!first_tx->retrans && new_datagram(b, S, tl_pk(b, lt), k)) ||
				     (resent_since && !same_datagram(b, S, tl_pk(b, lt), k)))) {
					/* a round went past it since it was captured, without
					 * it, or a NAK asked for it or an earlier PSN, or it is a
					 * new datagram repeating a first transmission, or its PSN
					 * was resent already (a copy only of that very datagram):
					 * the resend a round owed it, held back or sent ahead of
					 * the round's first (taken below as a retransmission that
					 * starts no round) */
				} else if (lt != RT_TL_NONE) {
					/* captured before: the original, which its resend overtook, or
					 * a copy made on the way (the resend's very datagram, or a
					 * repeat of a first transmission) */
					k->wire_copy = !first_tx->retrans || same_datagram(b, S, tl_pk(b, lt), k);
					k->same_datagram = k->wire_copy && first_tx->retrans;
					if ((rc = mark_repeat(b, k, i, lt, f)) < 0 ||
					    (k->wire_copy && (rc = tl_vec_push_u32(&b->copies, (uint32_t)i)) < 0))
						break;
					continue;
				}
				/* never captured before: its original, late, taken below as a
				 * first transmission that leaves the stream's sequence as it was */
			}
			bool late_resend = k->late && lt != RT_TL_NONE;
			if (!k->late) {
				if (S->last_req != RT_TL_NONE && tl_pk(b, S->last_req)->ip_id != k->ip_id)
					S->ids_vary = true;
				S->last_req = (uint32_t)i;
			}
			uint32_t span = is_read ? tl_read_span_psns(b, k) : 1;
			uint8_t ecause = 0;
			int eround = k->late ? -1 : engine_round(b, k, &ecause);
			if (eround == 1) {
				S->in_burst = false; /* its engine went back: a new round */
			} else if (eround < 0) {
				/* the capture alone tells */
				if (S->in_burst && rt_psn_diff(k->psn, S->last_sent) <= 0 && !k->late)
					S->in_burst = false; /* the PSN went back again: a new round */
				if (rs && (rs->first_u != pu || (rs->gap != RT_TL_NONE && rs->gap_u == pu)))
					S->in_burst = false; /* a READ asked again for its missing responses */
				if (S->in_burst && !k->late && round_reached_nak(b, S, i))
					S->in_burst = false; /* a NAK for the PSN the round reached: the sender went back */
				if (S->in_burst && timeout_passed(b, k, S->last_sent_ns, 0) && !above_unacked(S, pu))
					S->in_burst = false; /* the round stopped (its next resend never reached the
							      * capture) and the ACK timeout resumed it; a round that
							      * goes on above the oldest unacknowledged PSN only paused */
			}
			if (!k->late) {
				S->last_sent = k->psn;
				S->last_next = rt_psn_add(k->psn, (int32_t)span);
				S->last_sent_ns = k->raw_ns;
			}
			/* the sending engine says it is a resend: also of a PSN never captured
			 * before (its earlier transmissions were lost before the capture point,
			 * and no later packet showed the gap) */
			bool eng_re = ep && (ep->flags & RT_PKTF_RETRANS);
			if ((!k->late || late_resend) && (pu < S->max_u || ((f != RT_TL_NONE || rs) && pu == S->max_u) || eng_re)) {
				/* a PSN sent before: retransmission (when never captured, its first
				 * transmission was lost before the capture point) */
				uint32_t l = rs ? rs->req : psn_map_get(&last, s, k->psn); /* only resent PSNs are in last */
				if (l == RT_TL_NONE)
					l = f;
				struct tl_pk *prev = l != RT_TL_NONE ? tl_pk(b, l) : NULL;
				k->prev_tx = l;
				k->retrans = (uint8_t)(prev ? (prev->retrans < 254 ? prev->retrans + 1 : 255)
						       : eng_re && ep->retrans_count > 1 ? ep->retrans_count : 1);
				if (pu > S->max_u) {
					/* first seen here: the highest PSN sent so far */
					if (pu > S->max_u + 1) {
						k->ooo = true;
						k->flags |= RT_TLF_OUT_OF_ORDER;
					}
					S->max_u = pu;
					S->max_psn = k->psn;
				}
				k->original = c->cpk[i].original = f != RT_TL_NONE ? f : rs ? rs->orig : RT_TL_NONE;
				k->flags |= RT_TLF_RETRANS;
				if (!S->in_burst && !late_resend) {
					S->in_burst = true;
					k->round_start = true;
					S->rhead = S->rtail = RT_TL_NONE; /* older rounds were superseded */
					S->rnr_pending = false;
					/* the sender goes back to a PSN once everything before it was
					 * answered: no ACK, NAK or response captured for the one before
					 * it (sent while the capture ran) means the capture missed it */
					if (S->have_ack ? pu > S->acked_u + 1 : pu > S->first_u)
						gap_mark_qp(c, s, k->send_qp);
					uint8_t cause = RT_RETRY_ACK_TIMEOUT;
					/* a READ asked again from inside its span goes back to
					 * the response it missed: a NAK for an earlier PSN would
					 * have made it ask again from there */
					enum nak_pick pick = (rs && rs->first_u != pu) || (eround == 1 && ecause == RT_RETRY_IMPLIED_NAK)
								     ? NAK_OWN_PSN
							     : eround == 1 && ecause == RT_RETRY_ACK_TIMEOUT ? NAK_LATEST
													     : NAK_EARLIEST;
					uint32_t nak = take_nak(b, S, k, pick);
					S->round_before = S->round_first; /* (after take_nak, which asks for these) */
					S->round_first = (uint32_t)i;
					if (nak == RT_TL_NONE)
						S->round_no_nak = (uint32_t)i;
					if (nak != RT_TL_NONE) {
						struct tl_pk *n = tl_pk(b, nak);
						if (n->aeth_type == RT_AETH_RNR_NAK)
							cause = RT_RETRY_RNR;
						else if (tl_pk_seq_nak(n))
							cause = RT_RETRY_NAK_SEQ;
						if (cause != RT_RETRY_ACK_TIMEOUT)
							k->trigger = nak;
					}
					if (cause == RT_RETRY_ACK_TIMEOUT && rs && rs->gap != RT_TL_NONE && rs->gap_u == pu) {
						/* the requester saw a response skip the one it expected */
						cause = RT_RETRY_IMPLIED_NAK;
						k->trigger = rs->gap;
					} else if (cause == RT_RETRY_ACK_TIMEOUT && rs &&
						   (k->trigger = late_gap_psn(rs, pu)) != RT_TL_NONE) {
						/* likewise, though the skipped one came later (reordered) */
						cause = RT_RETRY_IMPLIED_NAK;
					} else if (cause == RT_RETRY_ACK_TIMEOUT && rs && rs->got_u > pu &&
						   (k->trigger = response_missed(b, k, i, rs)) != RT_TL_NONE) {
						/* likewise, though the capture holds the one it missed
						 * (the requester got the responses only up to it) */
						cause = RT_RETRY_IMPLIED_NAK;
						rs->got_u = pu;
					} else if (cause == RT_RETRY_ACK_TIMEOUT && rs &&
						   (k->trigger = response_crossed(b, k, i, rs)) != RT_TL_NONE) {
						/* likewise, from responses it took after its previous request */
						cause = RT_RETRY_IMPLIED_NAK;
					}
					if (cause != RT_RETRY_ACK_TIMEOUT) {
						/* a NAK or gap makes the sender go back at once, an RNR NAK
						 * after its timer: a round that much later was the ACK
						 * timeout's, the resend the trigger asked for never reached
						 * the capture (the trigger stays, for the finding) */
						const struct tl_pk *tr = tl_pk(b, k->trigger);
						uint64_t wait = cause == RT_RETRY_RNR ? rt_rnr_timer_us(tr->aeth_value) * 1000ull : 0;
						if (timeout_passed(b, k, tr->raw_ns, wait) && !late_answer(b, S, tr, k, pu, wait) &&
						    !timer_rearmed(b, S, k)) {
							k->trigger_in_retry = cause == RT_RETRY_IMPLIED_NAK ? rs->gap_in_round
									      : S->nak_in_round && tr->aeth_type == RT_AETH_NAK;
							cause = RT_RETRY_ACK_TIMEOUT;
						}
					}
					/* an RNR NAK names the PSN the sender goes back to, even when
					 * that resend never reached the capture */
					k->round_psn = cause == RT_RETRY_RNR ? tl_pk(b, k->trigger)->psn : k->psn;
					if (cause == RT_RETRY_ACK_TIMEOUT && !rs && S->have_ack && pu > S->acked_u + 1 &&
					    S->acked_u + 1 <= S->max_u && pu - S->acked_u - 1 < (1u << 22))
						k->round_psn = rt_psn_add(k->psn, -(int32_t)(pu - S->acked_u - 1));
					S->burst_cause = cause;
					S->open_round = true;
					S->last_round = (uint32_t)i;
				}
				k->retrans_cause = S->burst_cause;
				/* already received: below the acknowledged PSN, or for a READ below
				 * the responses the requester got in order */
				if (rs ? pu < rs->got_u : S->have_ack && pu <= S->acked_u) {
					k->dup = true;
					k->flags |= RT_TLF_DUP;
					mark_past_completion(c, i);
				} else if (l == RT_TL_NONE) {
					/* a resend the capture holds no earlier transmission of (it
					 * started later, or missed them): the receiver may have
					 * taken an earlier one, and this one after the WR completed */
					mark_past_completion(c, i);
				}
				if (rs) {
					rs->req = (uint32_t)i;
					rs->gap = RT_TL_NONE;
					rs->nlate = 0;
					rs->got_u = pu;
					if (k->round_start)
						reads_complete_below(ring, S, rs->first_u);
				} else if (is_read) {
					/* a READ whose first request was never captured */
					read_push(ring, S, pu, k->psn, span, (uint32_t)i, f);
				}
				if ((rc = psn_map_put(&last, s, k->psn, (uint32_t)i, stream_reach(S))) < 0)
					break;
				if (f == RT_TL_NONE && !rs && (rc = psn_map_put(&first, s, k->psn, (uint32_t)i, stream_reach(S))) < 0)
					break;
				if (f != RT_TL_NONE &&
				    (rc = tl_link2(b, tl_item_pk(b, i), tl_item_pk(b, f), RT_TLL_ORIGINAL, RT_TLL_RETRANS)) < 0)
					break;
			} else {
				if (pu > S->max_u + 1) {
					k->ooo = true;
					k->flags |= RT_TLF_OUT_OF_ORDER;
				}
				if (pu > S->max_u || f == RT_TL_NONE) {
					S->max_u = pu > S->max_u ? pu : S->max_u;
					S->max_psn = pu >= S->max_u ? k->psn : S->max_psn;
				}
				if (!k->late)
					S->in_burst = false;
				if (is_read) {
					/* the READ's responses take the next span - 1 PSNs too */
					read_push(ring, S, pu, k->psn, span, (uint32_t)i, (uint32_t)i);
				}
				if ((rc = psn_map_put(&first, s, k->psn, (uint32_t)i, stream_reach(S))) < 0)
					break;
			}
			/* unacked FIFOs: first transmissions, and the current round's resends */
			pnext[i] = RT_TL_NONE;
			uint32_t *head = k->retrans ? &S->rhead : &S->qhead, *tail = k->retrans ? &S->rtail : &S->ptail;
			if (*tail == RT_TL_NONE)
				*head = (uint32_t)i;
			else
				pnext[*tail] = (uint32_t)i;
			*tail = (uint32_t)i;
			/* the WR */
			uint32_t wr = wr_for_psn(c, k->send_qp, k->psn, &S->hint);
			if (wr != RT_TL_NONE) {
				const struct wr_ent *we = &c->wrs[S->hint]; /* wr's entry */
				k->wr = c->cpk[i].wr = wr;
				k->wr_pkt_index = (uint16_t)(rt_psn_diff(k->psn, (uint32_t)(we->first_u & RT_PSN_MASK)) + 1);
				k->wr_pkt_count = (uint8_t)(we->n > 255 ? 255 : we->n);
				k->flags |= RT_TLF_HAS_WR;
				rc = tl_link2(b, wr, tl_item_pk(b, i), k->retrans ? RT_TLL_RETRANS : RT_TLL_PACKET, RT_TLL_WR);
				if (rc < 0)
					break;
				if (!k->retrans && k->wr_pkt_index == 1) {
					/* the WR was posted before its first packet left */
					if (b->capture_host != UINT16_MAX)
						tl_clock_add(b, we->host, b->capture_host, we->raw_ns, k->raw_ns);
				}
			}
			if ((rc = gap_note(c, k, i)) < 0 || (rc = recv_note(c, k, i)) < 0)
				break;
			continue;
		}
		if (!k->is_response)
			continue;
		k->flags |= RT_TLF_RESPONSE;
		/* the requester is the receiver of the response; its stream is keyed by its peer */
		uint32_t s = k->send_qp;
		if (k->aeth_type == RT_AETH_ACK && k->op_class == RT_CLASS_ACK)
			k->flags |= RT_TLF_ACK;
		else if (k->aeth_type == RT_AETH_RNR_NAK)
			k->flags |= RT_TLF_RNR | RT_TLF_NAK;
		else if (k->aeth_type == RT_AETH_NAK) {
			k->flags |= RT_TLF_NAK;
			if (k->aeth_value != RT_NAK_PSN_SEQ_ERROR)
				k->flags |= RT_TLF_ERROR;
		}
		if (s == RT_TL_NONE || !st[s].have)
			continue;
		struct stream *S = &st[s];
		uint64_t pu = S->max_u + (uint64_t)(int64_t)rt_psn_diff(k->psn, S->max_psn);
		if (S->nreads && !(k->aeth_type == RT_AETH_NAK || k->aeth_type == RT_AETH_RNR_NAK))
			read_responses(&reads[(size_t)s * READ_RING], S, pu,
				       k->op_class == RT_CLASS_READ_RESP || k->op_class == RT_CLASS_ATOMIC_ACK, (uint32_t)i);
		uint32_t lr = psn_map_get(&last, s, k->psn);
		if (lr == RT_TL_NONE)
			lr = psn_map_get(&first, s, k->psn);
		if (k->aeth_type == RT_AETH_RNR_NAK || k->aeth_type == RT_AETH_NAK) {
			S->last_nak_ns = k->raw_ns;
			if (k->aeth_type == RT_AETH_RNR_NAK) {
				keep_older_nak(b, S); /* (a NAK before it still to be acted on) */
				S->rnr_pending = true;
				S->rnr_psn = k->psn;
				S->last_nak = (uint32_t)i;
			} else if (!(S->rnr_pending && k->aeth_value == RT_NAK_PSN_SEQ_ERROR && k->psn == S->rnr_psn)) {
				keep_older_nak(b, S);
				S->last_nak = (uint32_t)i;
				S->nak_in_round = S->open_round;
			}
			if (lr != RT_TL_NONE) {
				k->answer = lr;
				if ((rc = tl_link2(b, tl_item_pk(b, i), tl_item_pk(b, lr), RT_TLL_REQUEST,
						   k->aeth_type == RT_AETH_RNR_NAK ? RT_TLL_RNR : RT_TLL_NAK)) < 0)
					break;
			}
			/* NAK PSN names the expected (seq) or failing request: its WR */
			uint32_t wr = wr_for_psn(c, tl_qp(b, k->recv_qp)->qpn ? k->recv_qp : RT_TL_NONE, k->psn, NULL);
			if (wr != RT_TL_NONE)
				rc = tl_link2(b, tl_item_pk(b, i), wr, RT_TLL_WR,
					      k->aeth_type == RT_AETH_RNR_NAK ? RT_TLL_RNR : RT_TLL_NAK);
			/* a NAK acknowledges everything before its PSN */
			pu = pu - 1;
		} else if (k->aeth_type == RT_AETH_ACK && k->op_class == RT_CLASS_ACK && lr != RT_TL_NONE) {
			/* an ACK of the NAKed PSN settles the NAK; one of an earlier PSN
			 * (sent before the NAK, or arriving late) does not */
			if (S->last_nak != RT_TL_NONE && rt_psn_diff(k->psn, tl_pk(b, S->last_nak)->psn) >= 0) {
				/* (the NAKed packet came late: a sender acts on the NAK when it
				 * comes, before this ACK, and may go back to its PSN all the same) */
				keep_older_nak(b, S);
				S->last_nak = RT_TL_NONE;
			}
			k->answer = lr;
			rc = tl_link(b, tl_item_pk(b, i), tl_item_pk(b, lr), RT_TLL_REQUEST);
		}
		if (rc < 0)
			break;
		if (k->op_class == RT_CLASS_READ_RESP || k->op_class == RT_CLASS_ATOMIC_ACK) {
			uint32_t wr = wr_for_psn(c, k->recv_qp, k->psn, NULL);
			if (S->have_ack && pu <= S->acked_u)
				mark_past_completion(c, i);
			if (wr != RT_TL_NONE) {
				k->wr = c->cpk[i].wr = wr;
				k->flags |= RT_TLF_HAS_WR;
				if ((rc = tl_link2(b, wr, tl_item_pk(b, i), RT_TLL_PACKET, RT_TLL_WR)) < 0)
					break;
			}
		}
		if (pu < S->max_u)
			S->rearm_ns = k->raw_ns; /* requests stay outstanding: the timer starts again */
		/* a positive response past everything acknowledged so far closes the
		 * open round: a sender that ignores NAKs during a retry (the
		 * kernel's SoftRoCE) acts on them again */
		if (k->aeth_type != RT_AETH_NAK && k->aeth_type != RT_AETH_RNR_NAK && (!S->have_ack || pu > S->acked_u))
			S->open_round = false;
		/* coverage: every unacked request up to pu is answered by this response */
		if (!S->have_ack || pu > S->acked_u) {
			S->acked_u = pu;
			S->have_ack = true;
		}
		if (k->aeth_type != RT_AETH_NAK && k->aeth_type != RT_AETH_RNR_NAK &&
		    (!S->have_plain_ack || pu > S->plain_acked_u)) {
			S->plain_acked_u = pu;
			S->have_plain_ack = true;
		}
		for (int list = 0; list < 2 && rc >= 0; list++) {
			uint32_t *head = list ? &S->rhead : &S->qhead, *tail = list ? &S->rtail : &S->ptail;
			while (*head != RT_TL_NONE) {
				struct tl_pk *r = tl_pk(b, *head);
				uint64_t ru = S->max_u + (uint64_t)(int64_t)rt_psn_diff(r->psn, S->max_psn);
				if (ru > pu)
					break;
				if (r->answer == RT_TL_NONE)
					r->answer = (uint32_t)i;
				if (r->wr != RT_TL_NONE && c->wr_n[r->wr] && !acked[r->wr] &&
				    rt_psn_diff(r->psn, rt_psn_add(c->wr_first[r->wr], (int32_t)c->wr_n[r->wr] - 1)) == 0 &&
				    k->aeth_type == RT_AETH_ACK) {
					acked[r->wr] = 1;
					if ((rc = tl_link2(b, r->wr, tl_item_pk(b, i), RT_TLL_ACK, RT_TLL_WR)) < 0)
						break;
				}
				*head = pnext[*head];
				if (*head == RT_TL_NONE)
					*tail = RT_TL_NONE;
			}
		}
		if (rc < 0)
			break;
	}
	if (!rc)
		rc = gap_skips_judge(c);
	psn_map_free(&first, nqp);
	psn_map_free(&last, nqp);
	free(acked);
	free(st);
	free(pnext);
	free(reads);
	free(origin);
	return rc;
}

/* 2b. engine packet events: the wire packet each one is, and the sent
 * packet each received one is (by sending QP, PSN and occurrence).  Done
 * before the streams are replayed: an engine knows which sends were
 * retransmissions, also of a PSN whose first transmission it dropped before
 * the capture point. */
static int engine_match(struct lctx *c)
{
	struct tl_build *b = c->b;
	size_t nev = tl_nev(b), npk = tl_npk(b);
	if (!b->engine_packets)
		return 0; /* nothing to match */
	c->ev_pk = malloc(nev * sizeof(uint32_t));
	c->ev_tx = malloc(nev * sizeof(uint32_t));
	if (!c->ev_pk || !c->ev_tx)
		return -ENOMEM;
	for (size_t i = 0; i < nev; i++)
		c->ev_pk[i] = c->ev_tx[i] = RT_TL_NONE;
	struct tl_hash wire, tx; /* (sender qp, psn, resp, occurrence) -> packet / event */
	if (tl_hash_init(&wire, npk + 16) < 0)
		return -ENOMEM;
	if (tl_hash_init(&tx, 64) < 0) {
		tl_hash_free(&wire);
		return -ENOMEM;
	}
	struct tl_hash occ;
	if (tl_hash_init(&occ, npk + 16) < 0) {
		tl_hash_free(&wire);
		tl_hash_free(&tx);
		return -ENOMEM;
	}
	int rc = 0;
/* (sending QP, PSN, response) as a hash key: the PSN in bits 1-24, the QP
 * index in bits 26-43; OKEY_TXD (bit 25) marks an engine's count of its own
 * transmissions, OCC() an occurrence number in bits 44-63.  QPs and
 * occurrences past those fields are not matched (an occurrence number in 8
 * bits, as before, made the 257th transmission of a PSN the first's key: a
 * sender retrying one PSN 2128 times after RNR NAKs had its receiver's
 * events matched to copies 2 s later, and the clock called inconsistent) */
#define OKEY(q, psn, resp) ((uint64_t)(q) << 26 | (uint64_t)(psn) << 1 | (resp))
#define OKEY_QPS (1u << 18)
#define OKEY_TXD (1ull << 25)
#define OKEY_OCCS (1u << 20)
#define OCC(n) ((uint64_t)(n) << 44)
	for (size_t i = 0; i < npk; i++) {
		struct tl_pk *k = tl_pk(b, i);
		if (k->is_cm || k->send_qp >= OKEY_QPS || (!k->is_request && !k->is_response))
			continue;
		uint64_t ok = OKEY(k->send_qp, k->psn, k->is_response);
		uint32_t *o = tl_hash_get(&occ, ok);
		uint32_t n = o ? *o + 1 : 0;
		if ((rc = tl_hash_put(&occ, ok, n)) < 0 ||
		    (n < OKEY_OCCS && (rc = tl_hash_put(&wire, ok | OCC(n), (uint32_t)i)) < 0))
			goto out;
	}
	/* matching by occurrence is only trusted when both sides saw the same number
	 * of transmissions of that PSN (a capture drop or an engine drop shifts them;
	 * sends the engine itself dropped are not counted) */
	struct tl_hash wocc = occ, etot;
	if ((rc = tl_hash_init(&occ, 1024)) < 0) {
		occ = wocc;
		goto out;
	}
	if ((rc = tl_hash_init(&etot, 1024)) < 0) {
		tl_hash_free(&wocc);
		goto out;
	}
	for (size_t i = 0; i < nev && rc >= 0; i++) {
		struct epkt x;
		if (!engine_pkt(b, i, &x) || x.sender >= OKEY_QPS || (x.txd && (x.p->flags & RT_PKTF_DROPPED)))
			continue;
		uint64_t ok = OKEY(x.sender, x.p->psn, x.resp) | (x.txd ? OKEY_TXD : 0);
		uint32_t *o = tl_hash_get(&etot, ok);
		rc = tl_hash_put(&etot, ok, o ? *o + 1 : 0);
	}
	for (size_t i = 0; i < nev && rc >= 0; i++) {
		struct epkt x;
		if (!engine_pkt(b, i, &x) || x.sender >= OKEY_QPS || (x.txd && (x.p->flags & RT_PKTF_DROPPED)))
			continue;
		const struct rt_ev_packet *p = x.p;
		uint64_t ok = OKEY(x.sender, p->psn, x.resp) | (x.txd ? OKEY_TXD : 0);
		uint32_t *o = tl_hash_get(&occ, ok);
		uint32_t n = o ? *o + 1 : 0;
		if ((rc = tl_hash_put(&occ, ok, n)) < 0)
			break;
		if (n >= OKEY_OCCS)
			continue; /* (past what the key holds: not matched) */
		uint64_t base = OKEY(x.sender, p->psn, x.resp) | OCC(n);
		uint32_t *wc = tl_hash_get(&wocc, OKEY(x.sender, p->psn, x.resp)), *ec = tl_hash_get(&etot, ok);
		uint32_t *w = wc && ec && *wc == *ec ? tl_hash_get(&wire, base) : NULL;
		/* a receiver's: only when the sender's engine, if traced, sent as many
		 * (a capture that started late and an injected drop on the way can
		 * leave the capture and the receiver with as many, shifted by one) */
		uint32_t *sc = !x.txd ? tl_hash_get(&etot, OKEY(x.sender, p->psn, x.resp) | OKEY_TXD) : NULL;
		if (w && sc && *sc != *wc)
			w = NULL;
		if (w) {
			c->ev_pk[i] = *w;
			if (x.txd || tl_pk(b, *w)->event == RT_TL_NONE)
				tl_pk(b, *w)->event = (uint32_t)i; /* the sender's event first */
		}
		if (x.txd) {
			rc = tl_hash_put(&tx, base, (uint32_t)i);
		} else {
			uint32_t *t = tl_hash_get(&tx, base);
			uint32_t *tc = tl_hash_get(&etot, OKEY(x.sender, p->psn, x.resp) | OKEY_TXD);
			if (t && tc && ec && *tc == *ec)
				c->ev_tx[i] = *t;
		}
	}
#undef OKEY
#undef OKEY_QPS
#undef OKEY_TXD
#undef OKEY_OCCS
#undef OCC
	tl_hash_free(&wocc);
	tl_hash_free(&etot);
out:
	tl_hash_free(&wire);
	tl_hash_free(&tx);
	tl_hash_free(&occ);
	return rc;
}

/* 2c. engine packet events: their WR, and the links and clock constraints of
 * the matches engine_match found. */
static int engine_events(struct lctx *c)
{
	struct tl_build *b = c->b;
	size_t nev = tl_nev(b);
	if (!c->ev_pk)
		return 0; /* no engine packet events */
	int rc = 0;
	uint32_t hint = 0;
	for (size_t i = 0; i < nev; i++) {
		struct epkt x;
		if (!engine_pkt(b, i, &x))
			continue;
		struct tl_evrec *e = tl_ev(b, i);
		const struct rt_ev_packet *p = x.p;
		const struct rt_opcode_info *op = x.op;
		bool resp = x.resp, txd = x.txd;
		uint32_t q = b->ev_qp[i];
		/* the WR of a request this host sent, or of a response it received */
		if (op && (txd != resp)) {
			uint32_t wr = wr_for_psn(c, q, p->psn, &hint);
			uint32_t type = (p->flags & RT_PKTF_RETRANS) ? RT_TLL_RETRANS : RT_TLL_PACKET;
			if (resp && op->op_class == RT_CLASS_ACK && (p->flags & RT_PKTF_HAS_AETH)) {
				unsigned at = rt_aeth_type(p->syndrome);
				type = at == RT_AETH_ACK ? RT_TLL_ACK : at == RT_AETH_RNR_NAK ? RT_TLL_RNR : RT_TLL_NAK;
			}
			if (wr != RT_TL_NONE && (rc = tl_link2(b, wr, (uint32_t)i, type, RT_TLL_WR)) < 0)
				return rc;
		}
		uint32_t w = c->ev_pk[i];
		if (w != RT_TL_NONE) {
			struct tl_pk *k = tl_pk(b, w);
			if ((rc = tl_link2(b, (uint32_t)i, tl_item_pk(b, w), RT_TLL_EVENT, RT_TLL_EVENT)) < 0)
				return rc;
			if (txd) /* the capture sits between sender and receiver */
				tl_clock_add(b, e->host, b->capture_host, e->raw_ns, k->raw_ns);
			else
				tl_clock_add(b, b->capture_host, e->host, k->raw_ns, e->raw_ns);
		}
		uint32_t t = c->ev_tx[i];
		if (t != RT_TL_NONE) {
			struct tl_evrec *te = tl_ev(b, t);
			if (te->host != e->host)
				tl_clock_add(b, te->host, e->host, te->raw_ns, e->raw_ns);
			if ((rc = tl_link2(b, t, (uint32_t)i, RT_TLL_EVENT, RT_TLL_EVENT)) < 0)
				return rc;
		}
	}
	return 0;
}

/* 2d. the engines' records of the CM's datagrams (QP 1, which engine_match
 * leaves aside: no QP pair to match by): each wire datagram to QP 1 and the
 * sending and receiving engines' records of it, by PSN (a CM agent numbers
 * its datagrams from a random start, so a PSN names one datagram in a run),
 * linked, and the clock bounds they give: sent before captured, captured
 * before received.  A run whose connections failed has only these to align
 * its hosts' clocks by (a lost REQ, without them: +-6 s).  A PSN seen twice
 * on the wire, or sent or received twice, is left out. */
#define CM_AMBIGUOUS (RT_TL_NONE - 1)
static int cm_note(struct tl_hash *h, uint64_t key, uint32_t i)
{
	uint32_t *o = tl_hash_get(h, key);
	return tl_hash_put(h, key, o ? CM_AMBIGUOUS : i);
}

/* An engine's record's key: its PSN, | 1 << 32 sent, | 2 << 32 received. */
static uint64_t cm_record_key(const struct rt_event *ev)
{
	return ev->u.pkt.psn | (ev->flags & RT_EVF_TX ? 1ull : 2ull) << 32;
}

static int engine_cm_packets(struct lctx *c)
{
	struct tl_build *b = c->b;
	size_t nev = tl_nev(b);
	if (!b->engine_packets || b->capture_host == UINT16_MAX)
		return 0;
	struct tl_hash seen; /* PSN -> wire packet; cm_record_key -> event */
	if (tl_hash_init(&seen, 256) < 0)
		return -ENOMEM;
	struct tl_vec evs; /* the engines' records of CM datagrams */
	tl_vec_init(&evs, sizeof(uint32_t));
	int rc = 0;
	for (size_t n = 0; n < c->cm_pks.n && rc >= 0; n++) {
		uint32_t i = *TL_AT(&c->cm_pks, uint32_t, n);
		const struct tl_pk *k = tl_pk(b, i);
		if (k->opcode == RT_OP_UD_SEND_ONLY && k->dqpn == 1)
			rc = cm_note(&seen, k->psn, i);
	}
	for (size_t i = 0; i < nev && rc >= 0; i++) {
		const struct rt_event *ev = &tl_ev(b, i)->ev;
		if (ev->kind == RT_EV_PACKET && ev->qpn == 1 && ev->u.pkt.opcode == RT_OP_UD_SEND_ONLY &&
		    !(ev->u.pkt.flags & RT_PKTF_DROPPED) &&
		    (rc = cm_note(&seen, cm_record_key(ev), (uint32_t)i)) >= 0)
			rc = tl_vec_push_u32(&evs, (uint32_t)i);
	}
	for (size_t n = 0; n < evs.n && rc >= 0; n++) {
		uint32_t i = ((const uint32_t *)evs.p)[n];
		const struct tl_evrec *e = tl_ev(b, i);
		const struct rt_event *ev = &e->ev;
		const uint32_t *w = tl_hash_get(&seen, ev->u.pkt.psn);
		if (*tl_hash_get(&seen, cm_record_key(ev)) == CM_AMBIGUOUS || !w || *w == CM_AMBIGUOUS)
			continue;
		const struct tl_pk *k = tl_pk(b, *w);
		if (ev->flags & RT_EVF_TX)
			tl_clock_add(b, e->host, b->capture_host, e->raw_ns, k->raw_ns);
		else
			tl_clock_add(b, b->capture_host, e->host, k->raw_ns, e->raw_ns);
		rc = tl_link2(b, i, tl_item_pk(b, *w), RT_TLL_EVENT, RT_TLL_EVENT);
	}
	tl_vec_free(&evs);
	tl_hash_free(&seen);
	return rc;
}
#undef CM_AMBIGUOUS

/* What the constraints read of an event, packed: the links reach the events
 * in no useful order, and a 16-byte entry is a quarter of a cache miss
 * into the 80-byte events. */
struct cev {
	uint64_t raw_ns;
	uint32_t comp;            /* WR: the item of its completion, RT_TL_NONE */
	uint16_t host;
	bool wr_post;
	uint8_t gap;              /* WR: GAP_NONE, GAP_QP or GAP_WR (event_gap) */
};

/* 4. completions, receive WRs and their consumers, CM. */
/* ibv_wr_opcode values of the send WRs that consume a receive at the peer */
static bool wr_consumes_recv(unsigned opcode)
{
	return opcode == 1 /* RDMA_WRITE_WITH_IMM */ || opcode == 2 /* SEND */ || opcode == 3 /* SEND_WITH_IMM */ ||
	       opcode == 9 /* SEND_WITH_INV */;
}

/* A WR that completions() queues on QP q (post event i): recv_consumers'
 * receive WRs and consuming send WRs, gathered on this pass over the events. */
static int note_for_recv(struct lctx *c, uint32_t q, const struct rt_ev_wr *w, uint32_t i)
{
	if (w->queue == RT_WRQ_RECV)
		return fifo_push(&c->recvs[q], i);
	if (w->queue == RT_WRQ_SEND && wr_consumes_recv(w->opcode))
		return fifo_push(&c->sends[q], i);
	return 0;
}

/* WR event wr got a COMPLETION link to comp: its first is its completion
 * for the clock constraints (instead of a search of all the links). */
static void wr_completed(struct lctx *c, uint32_t wr, uint32_t comp, const struct rt_ev_completion *wc)
{
	if (c->ce[wr].comp == RT_TL_NONE) {
		c->ce[wr].comp = comp;
		/* flushed when its QP went to the error state: its packets and
		 * ACKs may still be on the wire after that, none bounds it */
		if (wc->status == TL_WC_WR_FLUSH_ERR)
			c->ce[wr].gap = GAP_WR;
	}
}

/* The queue a completion of a receive (recv) or send takes its WR from: f,
 * or for a receive when f has nothing outstanding, the SRQ of this host that
 * has a WR with the completion's wr_id. */
static struct fifo *recv_queue(struct tl_build *b, struct fifo *f, bool recv, uint16_t host, uint64_t wr_id,
			       struct tl_vec *srqs)
{
	if (!recv || f->head != f->n)
		return f;
	for (size_t s = 0; s < srqs->n; s++) {
		struct fifo *g = TL_AT(srqs, struct fifo, s);
		for (size_t j = g->head; j < g->n; j++)
			if (tl_ev(b, g->v[j])->host == host && tl_ev(b, g->v[j])->ev.u.wr.wr_id == wr_id)
				return g;
	}
	return f;
}

/* The position in f of the WR a completion completes, f->n when none: the
 * oldest outstanding WR with its wr_id (a flushed queue completes in order);
 * a successful send completion comes from a signaled WR (wr_ids repeat: many
 * applications post every unsignaled WR with the same wr_id). */
static size_t completed_wr(struct tl_build *b, const struct fifo *f, bool recv, const struct rt_ev_completion *wc,
			   bool sig_all)
{
	size_t j, any = f->n;
	for (j = f->head; j < f->n; j++) {
		const struct rt_ev_wr *w = &tl_ev(b, f->v[j])->ev.u.wr;
		if (w->wr_id != wc->wr_id)
			continue;
		if (any == f->n)
			any = j;
		if (recv || wc->status || (w->flags & RT_WRF_SIGNALED) || sig_all)
			break;
	}
	return j == f->n ? any : j;
}

static int completions(struct lctx *c)
{
	struct tl_build *b = c->b;
	size_t nev = tl_nev(b), nqp = b->qps.n;
	struct fifo *sq = calloc(nqp ? nqp : 1, sizeof(*sq));
	struct fifo *rq = calloc(nqp ? nqp : 1, sizeof(*rq));
	uint8_t *sig_all = calloc(nqp ? nqp : 1, 1);
	struct tl_hash srq; /* (host, srqn) -> fifo index in srqs */
	struct tl_vec srqs;
	tl_vec_init(&srqs, sizeof(struct fifo));
	c->ce = malloc((nev ? nev : 1) * sizeof(*c->ce));
	c->recvs = calloc(nqp ? nqp : 1, sizeof(*c->recvs));
	c->sends = calloc(nqp ? nqp : 1, sizeof(*c->sends));
	if (!sq || !rq || !sig_all || !c->ce || !c->recvs || !c->sends || tl_hash_init(&srq, 16) < 0) {
		free(sq);
		free(rq);
		free(sig_all);
		return -ENOMEM;
	}
	int rc = 0;
	for (size_t i = 0; i < nev && !rc; i++) {
		struct tl_evrec *e = tl_ev(b, i);
		const struct rt_event *ev = &e->ev;
		uint32_t q = b->ev_qp[i];
		/* the event is at hand: the constraints' copy of it (one pass over the events less) */
		c->ce[i] = (struct cev){.raw_ns = e->raw_ns, .comp = RT_TL_NONE, .host = e->host,
					.wr_post = ev->kind == RT_EV_WR_POST, .gap = event_gap(c, i)};
		if (b->ev_shadow[i])
			continue;
		if (ev->kind == RT_EV_WR_POST && !(ev->u.wr.flags & RT_WRF_POST_FAILED)) {
			if (ev->u.wr.queue == RT_WRQ_SRQ_RECV) {
				uint64_t key = K2(e->host, ev->qpn);
				uint32_t *v = tl_hash_get(&srq, key);
				if (!v) {
					if (!tl_vec_push(&srqs) || tl_hash_put(&srq, key, (uint32_t)(srqs.n - 1)) < 0) {
						rc = -ENOMEM;
						break;
					}
					v = tl_hash_get(&srq, key);
				}
				rc = fifo_push(TL_AT(&srqs, struct fifo, *v), (uint32_t)i);
			} else if (q != RT_TL_NONE) {
				rc = fifo_push(ev->u.wr.queue == RT_WRQ_SEND ? &sq[q] : &rq[q], (uint32_t)i);
				if (!rc)
					rc = note_for_recv(c, q, &ev->u.wr, (uint32_t)i);
			}
			continue;
		}
		if (ev->kind == RT_EV_QP_CREATE && q != RT_TL_NONE && !(ev->flags & RT_EVF_DESTROY))
			sig_all[q] = ev->u.qp_create.sq_sig_all;
		if (ev->kind != RT_EV_COMPLETION || q == RT_TL_NONE)
			continue;
		const struct rt_ev_completion *wc = &ev->u.wc;
		bool recv = wc->opcode & 128;
		struct fifo *f = recv_queue(b, recv ? &rq[q] : &sq[q], recv, e->host, wc->wr_id, &srqs);
		size_t j = completed_wr(b, f, recv, wc, sig_all[q]);
		if (j == f->n && wc->status) {
			/* an error completion's opcode is not defined (rxe gives a receive's
			 * error as SEND): the WR may be in the other queue */
			recv = !recv;
			f = recv_queue(b, recv ? &rq[q] : &sq[q], recv, e->host, wc->wr_id, &srqs);
			j = completed_wr(b, f, recv, wc, sig_all[q]);
		}
		if (j == f->n)
			continue;
		uint32_t wr = f->v[j];
		if ((rc = tl_link2(b, wr, (uint32_t)i, RT_TLL_COMPLETION, RT_TLL_WR)) < 0)
			break;
		wr_completed(c, wr, (uint32_t)i, wc);
		/* a shared receive queue's WR goes to whichever QP takes it: that QP's
		 * receives, for recv_consumers(), are its SRQ WRs in the order its
		 * completions came (an RC QP completes its receives in message order) */
		if (recv && f != &rq[q] && !wc->status && (rc = fifo_push(&c->recvs[q], wr)) < 0)
			break;
		if (!recv) {
			/* unsignaled WRs before it are covered by it (in order, RC semantics) */
			for (size_t u = f->head; u < j && !rc; u++) {
				if ((rc = tl_link(b, f->v[u], (uint32_t)i, RT_TLL_COMPLETION)) < 0)
					break;
				wr_completed(c, f->v[u], (uint32_t)i, wc);
				rc = tl_link(b, (uint32_t)i, f->v[u], RT_TLL_COVERED);
			}
			f->head = j + 1;
		} else {
			/* receive WRs complete in order (but an SRQ's may not): remove just this one */
			if (j == f->head) {
				f->head++;
			} else {
				memmove(&f->v[j], &f->v[j + 1], (f->n - j - 1) * sizeof(uint32_t));
				f->n--;
			}
		}
	}
	fifos_free(sq, nqp);
	fifos_free(rq, nqp);
	for (size_t s = 0; s < srqs.n; s++)
		free(TL_AT(&srqs, struct fifo, s)->v);
	tl_vec_free(&srqs);
	tl_hash_free(&srq);
	free(sig_all);
	return rc;
}

/* Receive WRs are consumed in posting order by the messages that need one.
 * When the sender is traced, the j-th receive of a QP goes with the j-th
 * consuming send WR of its peer, and the packet that consumed it is that
 * WR's last packet (when the capture has it): a capture that missed whole
 * messages cannot shift the pairs.  Otherwise the captured messages are
 * paired in order, up to the first PSN gap in the stream (after a gap the
 * count of messages is unknown). */
static int recv_consumers(struct lctx *c)
{
	struct tl_build *b = c->b;
	size_t nqp = b->qps.n;
	const struct fifo *rq = c->recvs, *sends = c->sends; /* receive WRs, consuming send WRs (completions) */
	/* the consuming packets of send WRs, the captured messages (wire_streams' recv_note()) */
	const uint32_t *cons = c->recv.cons;
	const uint8_t *by_wr = c->recv.by_wr;
	const struct fifo *msg = c->recv.msg;
	int rc = 0;
	for (size_t q = 0; q < nqp && !rc; q++) {
		const struct fifo *m = by_wr[q] ? &sends[tl_qp(b, q)->peer] : &msg[q];
		size_t n = rq[q].n < m->n ? rq[q].n : m->n;
		for (size_t j = 0; j < n && !rc; j++) {
			uint32_t pk = by_wr[q] ? cons[m->v[j]] : m->v[j];
			if (pk == RT_TL_NONE && by_wr[q]) {
				/* the capture does not have that message (or there is none):
				 * the two WRs still bound each other's hosts' clocks */
				struct wr_pair *wp = tl_vec_push(&c->pairs);
				if (!wp)
					rc = -ENOMEM;
				else
					*wp = (struct wr_pair){.recv = rq[q].v[j], .send = m->v[j]};
				continue;
			}
			if (pk == RT_TL_NONE)
				continue; /* the capture does not have that message's last packet */
			tl_pk(b, pk)->recv_wr = rq[q].v[j];
			rc = tl_link2(b, rq[q].v[j], tl_item_pk(b, pk), RT_TLL_CONSUMER, RT_TLL_RECV_WR);
		}
	}
	return rc;
}

/* The passive side's QP reaches RTS before its REP leaves: RDMA CM's
 * rdma_accept (librdmacm's and uroce's) moves the QP to RTR and RTS, then
 * sends the REP.  The constraint "that RTS before the REP's capture" bounds
 * from above the clock of a host that sends no requests of its own (the
 * responder of WRITEs), which otherwise only its CONNECT_REQUEST bounds, long
 * before (a large MR registered in between).  cr: the CONNECT_REQUEST event
 * the REP answers; the RTS is the last of the REP's QP in that process
 * before the ESTABLISHED of the same cm_id (a program that moves its QP
 * itself after the connection does so after that event). */
static void rep_after_rts(struct tl_build *b, const struct tl_pk *rep, uint16_t h, const struct tl_evrec *cr)
{
	const struct tl_evrec *est = NULL;
	for (size_t j = 0; j < b->cm_evs.n && !est; j++) {
		uint32_t i = *TL_AT(&b->cm_evs, uint32_t, j);
		const struct tl_evrec *e = tl_ev(b, i);
		if (!b->ev_shadow[i] && e->proc == cr->proc && e->ev.u.cm.cm_id == cr->ev.u.cm.cm_id &&
		    e->ev.u.cm.event == RT_CM_EV_ESTABLISHED && e->raw_ns >= cr->raw_ns)
			est = e;
	}
	if (!est || !rep->cm_local_qpn)
		return;
	const struct tl_evrec *rts = NULL;
	for (size_t j = 0; j < b->rts.n; j++) {
		uint32_t i = *TL_AT(&b->rts, uint32_t, j);
		const struct tl_evrec *e = tl_ev(b, i);
		if (!b->ev_shadow[i] && e->proc == cr->proc && e->ev.qpn == rep->cm_local_qpn && e->raw_ns >= cr->raw_ns &&
		    e->raw_ns <= est->raw_ns && (!rts || e->raw_ns >= rts->raw_ns))
			rts = e;
	}
	if (rts)
		tl_clock_add(b, h, b->capture_host, rts->raw_ns, rep->raw_ns);
}

/* The passive host answers a REQ (REP or REJ, same comm id) or a SIDR_REQ (SIDR_REP, same
 * request ID) after its CONNECT_REQUEST event. */
static int cm_reply_after(struct lctx *c, size_t req, uint16_t h, size_t ev)
{
	struct tl_build *b = c->b;
	if (b->capture_host == UINT16_MAX)
		return 0;
	uint32_t comm = tl_pk(b, req)->cm_comm_id;
	for (size_t j = req + 1; j < tl_npk(b); j++) {
		struct tl_pk *k = tl_pk(b, j);
		if (k->is_cm && (((k->cm_attr == RT_CM_REP || k->cm_attr == RT_CM_REJ) && k->cm_remote_comm_id == comm) ||
				 (k->cm_attr == RT_CM_SIDR_REP && k->cm_comm_id == comm))) {
			struct tl_evrec *e = tl_ev(b, ev);
			tl_clock_add(b, h, b->capture_host, e->raw_ns, k->raw_ns);
			if (k->cm_attr == RT_CM_REP)
				rep_after_rts(b, k, h, e);
			return tl_link(b, (uint32_t)ev, tl_item_pk(b, j), RT_TLL_CM_PACKET);
		}
	}
	return 0;
}

/* The QP of the host a DREQ or DREP goes to: a DREQ names it; a DREP
 * answers the DREQ that host sent with its communication ID, which its REQ
 * or REP gave with its QPN (comm: local comm ID -> QPN of the REQs and REPs).
 * 0 unknown. */
static uint32_t disconnect_qpn(struct tl_build *b, uint32_t i, struct tl_hash *comm)
{
	const struct tl_pk *k = tl_pk(b, i);
	if (k->cm_attr == RT_CM_DREQ) {
		const struct tl_cm_info *m = tl_cm_info(b, i);
		return m ? m->remote_qpn : 0;
	}
	uint32_t *q = tl_hash_get(comm, k->cm_remote_comm_id);
	return q ? *q : 0;
}

/* Key key's list in hash h gets ei at its head (ce is walked backwards). */
static int index_push(struct tl_hash *h, uint32_t *next, uint64_t key, uint32_t ei)
{
	uint32_t *head = tl_hash_get(h, key);
	next[ei] = head ? *head : RT_TL_NONE;
	return tl_hash_put(h, key, ei);
}

/* The first event of key's list not yet used; SIZE_MAX when none. */
static size_t cm_ev_first_unused(const struct tl_hash *h, const uint32_t *next, uint64_t key, const uint8_t *used)
{
	const uint32_t *head = tl_hash_get(h, key);
	for (uint32_t ei = head ? *head : RT_TL_NONE; ei != RT_TL_NONE; ei = next[ei])
		if (!used[ei])
			return ei;
	return SIZE_MAX;
}

/* A DISCONNECTED event comes on the host a DREQ went to (the passive side)
 * and on the host a DREP went to (the side that disconnected): each DREQ or
 * DREP (not its MAD retries) meets the first DISCONNECTED on its host for
 * the QP it names, not the next one in order (the side that disconnects
 * first gets no DREQ, only a DREP).  Where the address it went to is one
 * process's, that process's: two processes on one host may have QPs of the
 * same number (a pair on one machine, uroce's numbering), and when the
 * capture missed the DREQ the DREP took the passive side's event. */
static int disconnect_links(struct lctx *c, const struct tl_vec *ce)
{
	struct tl_build *b = c->b;
	const struct tl_vec *cp = &c->cm_pks;
	/* disc: (host, QPN) -> its DISCONNECTED events, through next[]; pdisc: (process, QPN), through pnext[] */
	struct tl_hash comm, seen, disc, pdisc;
	uint8_t *used = calloc(ce->n + 1, 1);
	uint32_t *next = malloc((ce->n + 1) * sizeof(uint32_t)), *pnext = malloc((ce->n + 1) * sizeof(uint32_t));
	memset(&comm, 0, sizeof(comm));
	memset(&seen, 0, sizeof(seen));
	memset(&disc, 0, sizeof(disc));
	memset(&pdisc, 0, sizeof(pdisc));
	int rc = used && next && pnext && !tl_hash_init(&comm, 16) && !tl_hash_init(&seen, 16) &&
			 !tl_hash_init(&disc, 16) && !tl_hash_init(&pdisc, 16) ? 0 : -ENOMEM;
	for (size_t ei = ce->n; ei-- > 0 && !rc;) {
		const struct tl_evrec *e = tl_ev(b, *TL_AT(ce, uint32_t, ei));
		if (e->ev.u.cm.event != RT_CM_EV_DISCONNECTED)
			continue;
		rc = index_push(&disc, next, (uint64_t)e->host << 32 | e->ev.qpn, (uint32_t)ei);
		if (!rc)
			rc = index_push(&pdisc, pnext, (uint64_t)e->proc << 32 | e->ev.qpn, (uint32_t)ei);
	}
	for (size_t ci = 0; ci < cp->n && !rc; ci++) {
		uint32_t i = *TL_AT(cp, uint32_t, ci);
		const struct tl_pk *k = tl_pk(b, i);
		if ((k->cm_attr == RT_CM_REQ || k->cm_attr == RT_CM_REP) && k->cm_local_qpn) {
			rc = tl_hash_put(&comm, k->cm_comm_id, k->cm_local_qpn);
			continue;
		}
		if ((k->cm_attr != RT_CM_DREQ && k->cm_attr != RT_CM_DREP) || k->dst_ep >= b->eps.n)
			continue;
		uint64_t once = (uint64_t)k->cm_attr << 32 | k->cm_comm_id; /* MAD retries of one message */
		const struct tl_ep *dst = TL_AT(&b->eps, struct tl_ep, k->dst_ep);
		uint16_t h = dst->host;
		uint32_t qpn = disconnect_qpn(b, i, &comm);
		if (h == UINT16_MAX || !qpn || tl_hash_get(&seen, once))
			continue;
		if ((rc = tl_hash_put(&seen, once, 1)) < 0)
			break;
		size_t ei = dst->proc != UINT16_MAX && !dst->proc_ambiguous
				    ? cm_ev_first_unused(&pdisc, pnext, (uint64_t)dst->proc << 32 | qpn, used)
				    : cm_ev_first_unused(&disc, next, (uint64_t)h << 32 | qpn, used);
		if (ei == SIZE_MAX)
			continue;
		uint32_t evi = *TL_AT(ce, uint32_t, ei);
		used[ei] = 1;
		rc = tl_link2(b, tl_item_pk(b, i), evi, RT_TLL_CM_EVENT, RT_TLL_CM_PACKET);
		if (!rc && b->capture_host != UINT16_MAX)
			tl_clock_add(b, b->capture_host, h, k->raw_ns, tl_ev(b, evi)->raw_ns);
	}
	tl_hash_free(&seen);
	tl_hash_free(&comm);
	tl_hash_free(&disc);
	tl_hash_free(&pdisc);
	free(used);
	free(next);
	free(pnext);
	return rc;
}

/* The active side's last RTS before the ESTABLISHED its REP produced
 * precedes its RTU on the wire: librdmacm (and uroce's) moves the QP to
 * RTR and RTS when the REP arrives, then sends the RTU, then reports
 * ESTABLISHED.  The RTS is the one of the REQ's QP in the process of that
 * ESTABLISHED, after that cm_id's event before it (its ROUTE_RESOLVED). */
static void rtu_after_rts(struct lctx *c, size_t rep, uint16_t h, const struct tl_evrec *est)
{
	struct tl_build *b = c->b;
	const struct tl_pk *r = tl_pk(b, rep);
	uint32_t active = r->cm_remote_comm_id, qpn = 0;
	const struct tl_pk *rtu = NULL;
	for (size_t j = 0; j < c->cm_pks.n && (!qpn || !rtu); j++) {
		const struct tl_pk *k = tl_pk(b, *TL_AT(&c->cm_pks, uint32_t, j));
		if (k->cm_comm_id != active)
			continue;
		if (k->cm_attr == RT_CM_REQ && k->cm_local_qpn)
			qpn = k->cm_local_qpn;
		else if (k->cm_attr == RT_CM_RTU && !rtu && k->raw_ns >= r->raw_ns)
			rtu = k;
	}
	if (!qpn || !rtu)
		return;
	uint64_t since = 0; /* the cm_id's event before the ESTABLISHED */
	for (size_t j = 0; j < b->cm_evs.n; j++) {
		uint32_t i = *TL_AT(&b->cm_evs, uint32_t, j);
		const struct tl_evrec *e = tl_ev(b, i);
		if (!b->ev_shadow[i] && e->proc == est->proc && e->ev.kind == RT_EV_CM_EVENT &&
		    e->ev.u.cm.cm_id == est->ev.u.cm.cm_id && e->raw_ns < est->raw_ns && e->raw_ns > since)
			since = e->raw_ns;
	}
	const struct tl_evrec *rts = NULL;
	for (size_t j = 0; j < b->rts.n; j++) {
		uint32_t i = *TL_AT(&b->rts, uint32_t, j);
		const struct tl_evrec *e = tl_ev(b, i);
		if (!b->ev_shadow[i] && e->proc == est->proc && e->ev.qpn == qpn && e->raw_ns > since &&
		    e->raw_ns <= est->raw_ns && (!rts || e->raw_ns >= rts->raw_ns))
			rts = e;
	}
	if (rts && since)
		tl_clock_add(b, h, b->capture_host, rts->raw_ns, rtu->raw_ns);
}

/* One CM packet linked to the CM event it produced on host h: the request
 * also to its reply, and the clock constraint of a request or a reject (a
 * REP or RTU is answered by an event only after the peer's processing). */
static int cm_link_one(struct lctx *c, size_t pk, uint16_t h, uint32_t ev)
{
	struct tl_build *b = c->b;
	struct tl_pk *k = tl_pk(b, pk);
	int rc = tl_link2(b, tl_item_pk(b, pk), ev, RT_TLL_CM_EVENT, RT_TLL_CM_PACKET);
	if (!rc && (k->cm_attr == RT_CM_REQ || k->cm_attr == RT_CM_SIDR_REQ))
		rc = cm_reply_after(c, pk, h, ev);
	if (!rc && k->cm_attr == RT_CM_REP && b->capture_host != UINT16_MAX &&
	    tl_ev(b, ev)->ev.kind == RT_EV_CM_EVENT && tl_ev(b, ev)->ev.u.cm.event == RT_CM_EV_ESTABLISHED)
		rtu_after_rts(c, pk, h, tl_ev(b, ev));
	if (!rc && b->capture_host != UINT16_MAX && k->cm_attr != RT_CM_REP && k->cm_attr != RT_CM_RTU &&
	    k->cm_attr != RT_CM_SIDR_REP)
		tl_clock_add(b, b->capture_host, h, k->raw_ns, tl_ev(b, ev)->raw_ns);
	return rc;
}

/* The CM events of ce by what a request's RDMA CM header lets one ask: by
 * (host, event, port), with the peer port of a CONNECT_REQUEST and the local
 * port of an ESTABLISHED or REJECTED; by (process, cm_id, event) for an
 * ESTABLISHED.  Each key's events in ce order: the first in the hash, the
 * next ones through next_*[]. */
struct cm_ev_index {
	struct tl_hash by_port, by_id;
	uint32_t *next_port, *next_id;
};

static uint64_t port_key(uint16_t h, unsigned event, uint16_t port)
{
	return (uint64_t)h << 32 | (uint64_t)(event & 0xff) << 16 | port;
}

static uint64_t id_key(uint16_t proc, unsigned event, uint32_t cm_id)
{
	return (uint64_t)proc << 40 | (uint64_t)(event & 0xff) << 32 | cm_id;
}

static int cm_ev_index_build(struct tl_build *b, const struct tl_vec *ce, struct cm_ev_index *x)
{
	memset(x, 0, sizeof(*x));
	x->next_port = malloc((ce->n + 1) * sizeof(uint32_t));
	x->next_id = malloc((ce->n + 1) * sizeof(uint32_t));
	if (!x->next_port || !x->next_id || tl_hash_init(&x->by_port, 16) < 0 || tl_hash_init(&x->by_id, 16) < 0)
		return -ENOMEM;
	int rc = 0;
	for (size_t ei = ce->n; ei-- > 0 && !rc;) {
		const struct tl_evrec *e = tl_ev(b, *TL_AT(ce, uint32_t, ei));
		const struct rt_ev_cm *m = &e->ev.u.cm;
		if (m->event == RT_CM_EV_CONNECT_REQUEST)
			rc = index_push(&x->by_port, x->next_port, port_key(e->host, m->event, m->peer_port), (uint32_t)ei);
		else if (m->event == RT_CM_EV_ESTABLISHED || m->event == RT_CM_EV_REJECTED)
			rc = index_push(&x->by_port, x->next_port, port_key(e->host, m->event, m->local_port), (uint32_t)ei);
		if (!rc && m->event == RT_CM_EV_ESTABLISHED)
			rc = index_push(&x->by_id, x->next_id, id_key(e->proc, m->event, m->cm_id), (uint32_t)ei);
	}
	return rc;
}

static void cm_ev_index_free(struct cm_ev_index *x)
{
	tl_hash_free(&x->by_port);
	tl_hash_free(&x->by_id);
	free(x->next_port);
	free(x->next_id);
}

/* The CM packets whose request carried an RDMA CM header, by what it says:
 * the active side's port.  A REQ or SIDR_REQ meets the CONNECT_REQUEST whose
 * peer port it is, on the host it went to; the REP, SIDR_REP or REJ that
 * answers it meets the ESTABLISHED or REJECTED of the active id with that
 * local port; the RTU, the passive id's ESTABLISHED (the cm_id of its
 * CONNECT_REQUEST).  Order does not matter then: two runs on one port, a
 * listener that is not traced, a UD id's SIDR exchange beside a connection
 * all stay apart.  done[] marks the packets linked, used[] the events. */
static int cm_links_by_port(struct lctx *c, const struct tl_vec *ce, uint8_t *done, uint8_t *used)
{
	struct tl_build *b = c->b;
	const struct tl_vec *cp = &c->cm_pks;
	struct tl_hash req;   /* request's comm ID -> its index in cp */
	struct tl_hash ev_of; /* request's index in cp -> index in ce of its CONNECT_REQUEST */
	struct cm_ev_index x;
	int rc = cm_ev_index_build(b, ce, &x);
	if (rc < 0 || tl_hash_init(&req, 16) < 0) {
		cm_ev_index_free(&x);
		return -ENOMEM;
	}
	if (tl_hash_init(&ev_of, 16) < 0) {
		cm_ev_index_free(&x);
		tl_hash_free(&req);
		return -ENOMEM;
	}
	for (size_t ci = 0; ci < cp->n && !rc; ci++) {
		uint32_t i = *TL_AT(cp, uint32_t, ci);
		const struct tl_pk *k = tl_pk(b, i);
		if (!k->is_cm || k->dst_ep >= b->eps.n || k->src_ep >= b->eps.n)
			continue;
		uint16_t h = TL_AT(&b->eps, struct tl_ep, k->dst_ep)->host;
		unsigned attr = k->cm_attr;
		bool request = attr == RT_CM_REQ || attr == RT_CM_SIDR_REQ;
		if (request) {
			const struct tl_cm_info *m = tl_cm_info(b, i);
			if (!m || !m->has_cma || tl_hash_get(&req, k->cm_comm_id))
				continue; /* no header; or a MAD retry of a request already seen */
			if ((rc = tl_hash_put(&req, k->cm_comm_id, (uint32_t)ci)) < 0)
				break;
			if (h == UINT16_MAX)
				continue;
			size_t ei = cm_ev_first_unused(&x.by_port, x.next_port,
						       port_key(h, RT_CM_EV_CONNECT_REQUEST, m->cma_src_port), used);
			if (ei == SIZE_MAX)
				continue;
			used[ei] = done[ci] = 1;
			if ((rc = tl_hash_put(&ev_of, ci, (uint32_t)ei)) < 0)
				break;
			rc = cm_link_one(c, i, h, *TL_AT(ce, uint32_t, ei));
			continue;
		}
		/* an answer: the request it answers, by comm ID */
		bool rej_req = false;
		if (attr == RT_CM_REJ) {
			const struct tl_cm_info *m = tl_cm_info(b, i);
			rej_req = m && m->msg_rejected == 0;
		}
		if (h == UINT16_MAX || !(attr == RT_CM_REP || attr == RT_CM_SIDR_REP || attr == RT_CM_RTU || rej_req))
			continue;
		uint32_t comm = attr == RT_CM_SIDR_REP || attr == RT_CM_RTU ? k->cm_comm_id : k->cm_remote_comm_id;
		uint32_t *r = tl_hash_get(&req, comm);
		if (!r)
			continue;
		const struct tl_cm_info *rm = tl_cm_info(b, *TL_AT(cp, uint32_t, *r));
		size_t ei;
		if (attr == RT_CM_RTU) {
			uint32_t *pe = tl_hash_get(&ev_of, *r);
			if (!pe)
				continue;
			const struct tl_evrec *cr = tl_ev(b, *TL_AT(ce, uint32_t, *pe));
			ei = cm_ev_first_unused(&x.by_id, x.next_id, id_key(cr->proc, RT_CM_EV_ESTABLISHED, cr->ev.u.cm.cm_id),
						used);
			if (ei != SIZE_MAX && tl_ev(b, *TL_AT(ce, uint32_t, ei))->host != h)
				ei = SIZE_MAX;
		} else {
			ei = cm_ev_first_unused(&x.by_port, x.next_port,
						port_key(h, rej_req ? RT_CM_EV_REJECTED : RT_CM_EV_ESTABLISHED, rm->cma_src_port),
						used);
		}
		if (ei == SIZE_MAX)
			continue;
		used[ei] = done[ci] = 1;
		rc = cm_link_one(c, i, h, *TL_AT(ce, uint32_t, ei));
	}
	tl_hash_free(&req);
	tl_hash_free(&ev_of);
	cm_ev_index_free(&x);
	return rc;
}

static int cm_links(struct lctx *c)
{
	struct tl_build *b = c->b;
	size_t nh = b->hosts.n;
	if (!nh)
		return 0;
	/* per host and event type: the events in order */
	static const struct {
		uint16_t attr;
		uint8_t event;
	} map[] = {{RT_CM_REQ, RT_CM_EV_CONNECT_REQUEST}, {RT_CM_SIDR_REQ, RT_CM_EV_CONNECT_REQUEST},
		   {RT_CM_REP, RT_CM_EV_ESTABLISHED}, {RT_CM_SIDR_REP, RT_CM_EV_ESTABLISHED},
		   {RT_CM_RTU, RT_CM_EV_ESTABLISHED}, {RT_CM_REJ, RT_CM_EV_REJECTED}};
	/* the few CM packets (wire_qps has them) and CM events (trace_qps has them;
	 * not the engine's copies), so the loops below stay short */
	const struct tl_vec *cp = &c->cm_pks;
	struct tl_vec ce;
	tl_vec_init(&ce, sizeof(uint32_t));
	int rc = 0;
	for (size_t j = 0; j < b->cm_evs.n && !rc; j++) {
		uint32_t i = *TL_AT(&b->cm_evs, uint32_t, j), *v;
		if (b->ev_shadow[i])
			continue;
		if (!(v = tl_vec_push(&ce)))
			rc = -ENOMEM;
		else
			*v = i;
	}
	uint8_t *done = calloc(cp->n + 1, 1), *used = calloc(ce.n + 1, 1);
	if (!done || !used)
		rc = -ENOMEM;
	if (!rc)
		rc = cm_links_by_port(c, &ce, done, used);
	/* the rest (no RDMA CM header: the IB CM used directly) in order: the
	 * n-th message of a kind to a host meets the n-th such event there */
	for (size_t m = 0; m < sizeof(map) / sizeof(map[0]) && !rc; m++) {
		for (size_t h = 0; h < nh && !rc; h++) {
			size_t ei = 0;
			struct tl_hash seen;
			if (tl_hash_init(&seen, 16) < 0) {
				rc = -ENOMEM;
				break;
			}
			for (size_t ci = 0; ci < cp->n && !rc; ci++) {
				size_t i = *TL_AT(cp, uint32_t, ci);
				struct tl_pk *k = tl_pk(b, i);
				if (!k->is_cm || k->cm_attr != map[m].attr || k->dst_ep >= b->eps.n ||
				    TL_AT(&b->eps, struct tl_ep, k->dst_ep)->host != h)
					continue;
				if (tl_hash_get(&seen, k->cm_comm_id)) /* a MAD retry of the same message */
					continue;
				if ((rc = tl_hash_put(&seen, k->cm_comm_id, 1)) < 0)
					break;
				if (done[ci])
					continue;
				/* next event of that type on host h: for ESTABLISHED, the passive side
				 * (had a CONNECT_REQUEST) answers RTU, the active side REP */
				for (; ei < ce.n; ei++) {
					struct tl_evrec *e = tl_ev(b, *TL_AT(&ce, uint32_t, ei));
					if (!used[ei] && e->host == h && e->ev.u.cm.event == map[m].event)
						break;
				}
				if (ei == ce.n)
					break;
				used[ei] = 1;
				rc = cm_link_one(c, i, (uint16_t)h, *TL_AT(&ce, uint32_t, ei));
				ei++;
			}
			tl_hash_free(&seen);
		}
	}
	free(done);
	free(used);
	if (!rc)
		rc = disconnect_links(c, &ce);
	tl_vec_free(&ce);
	return rc;
}

/* UD datagrams and their WRs (analysis/tl_ud.c). */
static int ud_links(struct lctx *c)
{
	return tl_ud_links(c->b);
}

/* UC receivers' clocks bounded by the whole messages (analysis/tl_uc.c). */
static int uc_links(struct lctx *c)
{
	return tl_uc_links(c->b);
}

/* The two ends of each CM connection in the traces (analysis/tl_cm_peer.c). */
static int cm_peer_links(struct lctx *c)
{
	return tl_cm_peer_links(c->b);
}

/* 5. causal constraints of the links: packet before completion, post before consumer ... */
/* Host to host, for a receive WR and the send WR whose message consumed it:
 * the send was posted before the receive completed, and the receive was
 * posted before the send completed (RC: the message is acknowledged only
 * once a receive took it; not UC or UD, whose sends complete unacknowledged). */
static void send_recv_constraints(struct tl_build *b, const struct cev *ce, uint32_t recv, uint32_t send)
{
	const struct cev *rw = &ce[recv], *sw = &ce[send];
	if (rw->comp != RT_TL_NONE && sw->host != ce[rw->comp].host) {
		const struct cev *rc = &ce[rw->comp];
		tl_clock_add(b, sw->host, rc->host, sw->raw_ns, rc->raw_ns);
	}
	if (sw->comp != RT_TL_NONE && ce[sw->comp].host != rw->host && !tl_qp_unacked(b, b->ev_qp[send])) {
		const struct cev *sc = &ce[sw->comp];
		tl_clock_add(b, rw->host, sc->host, rw->raw_ns, sc->raw_ns);
	}
}

static int causal_constraints(struct lctx *c)
{
	struct tl_build *b = c->b;
	size_t nev = tl_nev(b), npk = tl_npk(b), nl = b->links.n;
	uint16_t cap = b->capture_host;
	const struct cev *ce = c->ce;
	const struct cpk *cpk = c->cpk;
	for (size_t i = 0; i < nl; i++) {
		struct tl_blink l = *TL_AT(&b->links, struct tl_blink, i);
		if (l.from >= nev)
			continue;
		const struct cev *wr = &ce[l.from];
		if (!wr->wr_post)
			continue;
		const struct cev *cp = wr->comp != RT_TL_NONE ? &ce[wr->comp] : NULL;
		if (l.to >= nev && l.to < nev + npk && cap != UINT16_MAX) {
			uint64_t k_raw = cpk[l.to - nev].raw_ns;
			bool upper = l.type == RT_TLL_ACK ? wr->gap == GAP_NONE : wr->gap != GAP_WR;
			/* (a UC or UD send completes once its packets left, maybe before they were captured) */
			if ((l.type == RT_TLL_PACKET || l.type == RT_TLL_RETRANS || l.type == RT_TLL_ACK) && cp && upper &&
			    !past_completion(c, l.to - nev) && !tl_qp_unacked(b, b->ev_qp[l.from]))
				tl_clock_add(b, cap, cp->host, k_raw, cp->raw_ns);
			/* the consuming packet was captured before its receive completed
			 * (unless it stands in for a retry the capture missed: no bound
			 * there).  Nothing says the receive was posted before the packet
			 * was captured: the responder may take it from its queue only
			 * later (a lab run on lo had a receive posted 123 us after the
			 * capture of the packet that consumed it) */
			if (l.type == RT_TLL_CONSUMER && wr->gap == GAP_NONE && cp) {
				/* the link names the message's last transmission, but an
				 * earlier one may have been the one taken (a later copy can
				 * be a resend the responder already had, after the
				 * completion): the first transmission came before either */
				uint32_t o = cpk[l.to - nev].original;
				if (o != RT_TL_NONE && o < npk)
					k_raw = cpk[o].raw_ns;
				tl_clock_add(b, cap, cp->host, k_raw, cp->raw_ns);
			}
		}
		if (l.type == RT_TLL_CONSUMER && l.to >= nev && l.to < nev + npk && cpk[l.to - nev].wr != RT_TL_NONE)
			send_recv_constraints(b, ce, l.from, cpk[l.to - nev].wr);
	}
	/* the pairs without a message are by count only: a failed send or an
	 * unfinished receive may shift the rest of its QP's, so they end there */
	uint32_t broken = RT_TL_NONE;
	for (size_t i = 0; i < c->pairs.n; i++) {
		const struct wr_pair *wp = TL_AT(&c->pairs, struct wr_pair, i);
		uint32_t q = b->ev_qp[wp->recv], rcomp = ce[wp->recv].comp, scomp = ce[wp->send].comp;
		if (q == broken)
			continue;
		if (rcomp == RT_TL_NONE || tl_ev(b, rcomp)->ev.u.wc.status != 0 ||
		    (scomp != RT_TL_NONE && tl_ev(b, scomp)->ev.u.wc.status != 0)) {
			broken = q;
			continue;
		}
		send_recv_constraints(b, ce, wp->recv, wp->send);
	}
	return 0;
}

/* Room for the links and clock constraints the linking makes, a few per
 * packet and event (the 1 M packet bench: 1.9 links and 1.0 constraints
 * per packet or event): address space only until used, where doubling
 * copied them over and over.  Without it (no memory, or more of them) they
 * double as before. */
static void reserve_links(struct tl_build *b)
{
	size_t items = tl_npk(b) + tl_nev(b);
	(void)tl_vec_reserve(&b->links, b->links.n + 2 * items);
	(void)tl_vec_reserve(&b->cons, b->cons.n + items);
}

int tl_link_all(struct tl_build *b)
{
	struct lctx c;
	memset(&c, 0, sizeof(c));
	c.b = b;
	tl_vec_init(&c.wkeys, sizeof(struct wkey));
	tl_vec_init(&c.pairs, sizeof(struct wr_pair));
	tl_vec_init(&c.cm_pks, sizeof(uint32_t));
	int rc = -ENOMEM;
	if (tl_hash_init(&c.tq, 64) < 0)
		return -ENOMEM;
	if (tl_hash_init(&c.wq, 64) < 0)
		goto out;
	reserve_links(b);
	static const struct {
		const char *name;
		int (*fn)(struct lctx *);
	} steps[] = {{"l.qps", trace_qps},        {"l.wire", wire_qps},       {"l.merge", merge_qps},
		     {"l.wrs", wr_ranges},        {"l.ematch", engine_match}, {"l.stream", wire_streams},
		     {"l.engine", engine_events}, {"l.ecm", engine_cm_packets},
		     {"l.compl", completions},    {"l.recv", recv_consumers}, {"l.cm", cm_links},
		     {"l.cmpeer", cm_peer_links}, {"l.ud", ud_links},     {"l.uc", uc_links},
		     {"l.causal", causal_constraints}};
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		if ((rc = steps[i].fn(&c)) < 0)
			goto out;
		tl_phase(steps[i].name);
	}
	rc = 0;
out:
	tl_hash_free(&c.tq);
	tl_hash_free(&c.wq);
	tl_vec_free(&c.wkeys);
	tl_vec_free(&c.pairs);
	tl_vec_free(&c.cm_pks);
	scans_free(&c);
	fifos_free(c.recvs, b->qps.n);
	fifos_free(c.sends, b->qps.n);
	free(c.wr_first);
	free(c.wr_n);
	free(c.wrs);
	free(c.wr_qp_start);
	free(c.wr_sorted);
	free(c.ev_pk);
	free(c.ev_tx);
	free(c.ce);
	free(c.tq_psn);
	return rc;
}

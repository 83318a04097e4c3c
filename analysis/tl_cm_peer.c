/*
 * The two ends of an RDMA CM connection in the traces, met without the
 * capture: the active side's rdma_cm_id (it resolved and connected) and the
 * passive side's (it got CONNECT_REQUEST) name each other's address and
 * port.  Their handshake orders records across hosts, so it aligns the
 * clocks of traced hosts that exchanged no SEND/RECV and were not captured
 * (a run of RDMA WRITEs and READs only), and links the records for the
 * viewer:
 *
 *   the active side's last set-up record before it connected (route
 *   resolved, QP created ...) came before the REQ was sent, so before the
 *   passive side's CONNECT_REQUEST;
 *   the passive side's last record before it accepted (or rejected) came
 *   before the REP (REJ), so before the active side's ESTABLISHED
 *   (REJECTED).
 *
 * Calls are recorded when they return, after the message they send, so a
 * connect or accept record itself bounds nothing.  Disconnects are left
 * out: both sides may disconnect at once, and a call's start is not
 * recorded, so which DREQ a DISCONNECTED answers is not known.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tl_internal.h"

#define AF_INET_ 2
#define AF_INET6_ 10

/* One rdma_cm_id of one process: what its records (in time order) show
 * of its side of the handshake. */
struct cm_end {
	struct tl_cm_addr local, peer;
	bool have_addr;
	uint32_t request;         /* passive: CONNECT_REQUEST event */
	uint32_t answer;          /* passive: accept or reject call (RT_TL_NONE: not traced) */
	uint32_t before_answer;   /* passive: its last record before answering */
	bool rejected;            /* passive: it answered with a reject */
	uint32_t connect;         /* active: connect call (RT_TL_NONE: not traced) */
	uint32_t before_request;  /* active: its last set-up record before connecting */
	uint32_t reply;           /* active: ESTABLISHED or REJECTED event */
	uint32_t matched;         /* the other end (index into the ends), RT_TL_NONE, or TL_CM_AMBIGUOUS */
};

#define TL_CM_AMBIGUOUS (RT_TL_NONE - 1)

struct cm_rec {
	uint32_t item;
	uint16_t proc;
	uint32_t cm_id;
	uint64_t raw_ns;
};

static int rec_cmp(const void *a, const void *b)
{
	const struct cm_rec *x = a, *y = b;
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	if (x->cm_id != y->cm_id)
		return x->cm_id < y->cm_id ? -1 : 1;
	if (x->raw_ns != y->raw_ns)
		return x->raw_ns < y->raw_ns ? -1 : 1;
	return x->item < y->item ? -1 : x->item > y->item;
}

bool tl_cm_record_addr(struct tl_build *b, size_t i, struct tl_cm_addr *local, struct tl_cm_addr *peer)
{
	const struct tl_evrec *e = tl_ev(b, i);
	const struct rt_ev_cm *cm = &e->ev.u.cm;
	memset(local, 0, sizeof(*local));
	memset(peer, 0, sizeof(*peer));
	local->family = peer->family = cm->family;
	local->port = cm->local_port;
	peer->port = cm->peer_port;
	if (cm->family == AF_INET_) {
		memcpy(local->ip, &cm->local_ip4, 4);
		memcpy(peer->ip, &cm->peer_ip4, 4);
		return cm->local_ip4 != 0 && cm->peer_ip4 != 0;
	}
	if (cm->family != AF_INET6_)
		return false;
	for (size_t j = i + 1; j < tl_nev(b) && j <= i + 8; j++) {
		const struct tl_evrec *a = tl_ev(b, j);
		if (a->proc == e->proc && a->ev.kind == RT_EV_CM_ADDR6 && a->ev.u.cm_addr6.cm_id == cm->cm_id &&
		    (a->ev.flags & RT_EVF_ENGINE) == (e->ev.flags & RT_EVF_ENGINE)) {
			memcpy(local->ip, a->ev.u.cm_addr6.local, 16);
			memcpy(peer->ip, a->ev.u.cm_addr6.peer, 16);
			return true;
		}
	}
	return false;
}

/* What an active side did before it connected: every one of these is done
 * before rdma_connect can send its REQ. */
static bool is_setup(unsigned ev)
{
	switch (ev) {
	case RT_CM_EV_ADDR_RESOLVED: case RT_CM_EV_ROUTE_RESOLVED:
	case RT_CM_CALL_CREATE_ID: case RT_CM_CALL_BIND_ADDR: case RT_CM_CALL_RESOLVE_ADDR:
	case RT_CM_CALL_RESOLVE_ROUTE: case RT_CM_CALL_CREATE_QP: case RT_CM_CALL_CREATE_EP:
		return true;
	default:
		return false;
	}
}

/* One id's records r[0..n): its role and the records the handshake orders. */
static void end_of(struct tl_build *b, const struct cm_rec *r, size_t n, struct cm_end *end)
{
	memset(end, 0, sizeof(*end));
	end->request = end->answer = end->before_answer = end->connect = end->before_request = end->reply =
		end->matched = RT_TL_NONE;
	uint32_t last = RT_TL_NONE, last_setup = RT_TL_NONE;
	for (size_t k = 0; k < n; k++) {
		uint32_t i = r[k].item;
		const struct rt_ev_cm *cm = &tl_ev(b, i)->ev.u.cm;
		unsigned ev = cm->event;
		bool ok = cm->status == 0;
		if (ev == RT_CM_EV_CONNECT_REQUEST && end->request == RT_TL_NONE && end->connect == RT_TL_NONE) {
			end->request = i;
			end->have_addr = tl_cm_record_addr(b, i, &end->local, &end->peer);
		} else if ((ev == RT_CM_CALL_ACCEPT || ev == RT_CM_CALL_REJECT) && ok && end->request != RT_TL_NONE &&
			   end->answer == RT_TL_NONE) {
			end->answer = i;
			end->before_answer = last;
			end->rejected = ev == RT_CM_CALL_REJECT;
		} else if (ev == RT_CM_CALL_CONNECT && ok && end->request == RT_TL_NONE && end->connect == RT_TL_NONE) {
			end->connect = i;
			end->before_request = last_setup;
			end->have_addr = tl_cm_record_addr(b, i, &end->local, &end->peer);
		} else if ((ev == RT_CM_EV_ESTABLISHED || ev == RT_CM_EV_REJECTED) && end->request == RT_TL_NONE &&
			   end->reply == RT_TL_NONE && (end->connect != RT_TL_NONE || last_setup != RT_TL_NONE)) {
			/* an id whose connect call was not traced: what it set up came first */
			if (end->connect == RT_TL_NONE) {
				end->before_request = last_setup;
				if (!end->have_addr)
					end->have_addr = tl_cm_record_addr(b, i, &end->local, &end->peer);
			}
			end->reply = i;
		}
		if (end->request == RT_TL_NONE && end->connect == RT_TL_NONE && is_setup(ev) && ok)
			last_setup = i;
		last = i;
	}
	/* a passive side that was not seen answering: the request came before its answer */
	if (end->request != RT_TL_NONE && end->answer == RT_TL_NONE)
		end->before_answer = end->request;
}

static bool addr_eq(const struct tl_cm_addr *a, const struct tl_cm_addr *b)
{
	return a->family == b->family && a->port == b->port && !memcmp(a->ip, b->ip, 16);
}

/* x happened before y (items of two hosts' records). */
static void before(struct tl_build *b, uint32_t x, uint32_t y)
{
	const struct tl_evrec *ex = tl_ev(b, x), *ey = tl_ev(b, y);
	tl_clock_add(b, ex->host, ey->host, ex->raw_ns, ey->raw_ns);
}

/* Each passive end meets the one active end whose address and port pair
 * mirror its own; a pair that is not unique both ways is left alone. */
static void match_ends(struct cm_end *ends, size_t n)
{
	for (size_t p = 0; p < n; p++) {
		struct cm_end *P = &ends[p];
		if (P->request == RT_TL_NONE || !P->have_addr)
			continue;
		for (size_t a = 0; a < n; a++) {
			struct cm_end *A = &ends[a];
			if (A->request != RT_TL_NONE || !A->have_addr || !addr_eq(&A->local, &P->peer) ||
			    !addr_eq(&A->peer, &P->local))
				continue;
			P->matched = P->matched == RT_TL_NONE ? (uint32_t)a : TL_CM_AMBIGUOUS;
			A->matched = A->matched == RT_TL_NONE ? (uint32_t)p : TL_CM_AMBIGUOUS;
		}
	}
}

int tl_cm_peer_links(struct tl_build *b)
{
	/* the CM events, from the list trace_qps made (no pass over every event) */
	size_t ncm = b->cm_evs.n, nrec = 0;
	const uint32_t *cm = b->cm_evs.p;
	for (size_t j = 0; j < ncm; j++)
		nrec += !b->ev_shadow[cm[j]];
	if (!nrec)
		return 0;
	struct cm_rec *r = malloc(nrec * sizeof(*r));
	struct cm_end *ends = malloc(nrec * sizeof(*ends));
	if (!r || !ends) {
		free(r);
		free(ends);
		return -ENOMEM;
	}
	size_t k = 0;
	for (size_t j = 0; j < ncm; j++) {
		uint32_t i = cm[j];
		const struct tl_evrec *e = tl_ev(b, i);
		if (!b->ev_shadow[i])
			r[k++] = (struct cm_rec){.item = i, .proc = e->proc, .cm_id = e->ev.u.cm.cm_id, .raw_ns = e->raw_ns};
	}
	qsort(r, nrec, sizeof(*r), rec_cmp);
	size_t nend = 0;
	for (size_t s = 0, t; s < nrec; s = t) {
		for (t = s + 1; t < nrec && r[t].proc == r[s].proc && r[t].cm_id == r[s].cm_id; t++)
			;
		end_of(b, r + s, t - s, &ends[nend++]);
	}
	match_ends(ends, nend);
	int rc = 0;
	for (size_t p = 0; p < nend && !rc; p++) {
		const struct cm_end *P = &ends[p];
		if (P->request == RT_TL_NONE || P->matched >= nend || ends[P->matched].matched != p)
			continue;
		const struct cm_end *A = &ends[P->matched];
		if (A->before_request != RT_TL_NONE)
			before(b, A->before_request, P->request);
		uint32_t from = A->connect != RT_TL_NONE ? A->connect : A->before_request;
		if (from != RT_TL_NONE)
			rc = tl_link2(b, from, P->request, RT_TLL_CM_PEER, RT_TLL_CM_PEER);
		/* the active side's reply event answers the passive side's accept or reject */
		if (rc || A->reply == RT_TL_NONE ||
		    (tl_ev(b, A->reply)->ev.u.cm.event == RT_CM_EV_REJECTED) != P->rejected)
			continue;
		if (P->before_answer != RT_TL_NONE)
			before(b, P->before_answer, A->reply);
		rc = tl_link2(b, P->answer != RT_TL_NONE ? P->answer : P->request, A->reply, RT_TLL_CM_PEER,
			      RT_TLL_CM_PEER);
	}
	free(r);
	free(ends);
	return rc;
}

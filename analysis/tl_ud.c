/*
 * UD datagrams on the wire, linked as the reliable streams are (those are
 * replayed in analysis/tl_link.c): each captured datagram to the send WR
 * that sent it and to the receive WR it filled.
 *
 *   sender:   the traced UD QP of the sending address with the DETH source
 *             QPN; its send WR is the one whose predicted PSN the datagram
 *             carries;
 *   receiver: the traced UD QP of the receiving address with the BTH
 *             destination QPN; its receive completions, in the order they
 *             were polled, took the captured datagrams from the same source
 *             QP in capture order (a datagram with no receive posted is
 *             dropped without a trace, so it is skipped), and a QP's n-th
 *             completion is its n-th posted receive.
 *
 * UD has no ACK: a send completes once its datagram has left, possibly
 * before the capture saw it, so the clock constraints take only the post
 * (before the datagram was captured) and the receive completion (after);
 * tl_link.c's causal constraints leave UC and UD send WRs out (tl_qp_unacked()).
 * A QP that receives from a shared receive queue posts no receive WRs of
 * its own: its n-th completion took the SRQ WR that completion was linked to
 * (tl_link.c completions(), by wr_id).
 *
 * A datagram to a multicast group (destination QPN 0xFFFFFF, a multicast
 * address) reaches every QP attached to the group: its receivers are the
 * traced UD QPs whose RDMA_CM_EVENT_MULTICAST_JOIN named that address
 * (mckey), or that ibv_attach_mcast attached to its GID, each of which took
 * a receive for it.
 *
 * Addresses no CM exchange tied to a host (perftest -c UD, which swaps its
 * QPNs over TCP) are tied here first: the sender's by the traced UD QP whose
 * WRs were predicted to carry the datagram's PSN, the receiver's by the
 * traced UD QP that completed receives from its source QPN.
 */
#include <errno.h>
#include <stdlib.h>

#include "tl_hash.h"
#include "tl_internal.h"

static bool is_ud(struct tl_build *b, uint32_t q)
{
	return q < b->qps.n && tl_qp(b, q)->qp_type == 4;
}

/* The traced UD QP with this QPN behind an address: the process the address
 * belongs to when it is known, else the host's only such QP. */
static uint32_t ud_qp_at(struct tl_build *b, uint32_t ep, uint32_t qpn)
{
	const struct tl_ep *e = ep < b->eps.n ? TL_AT(&b->eps, struct tl_ep, ep) : NULL;
	if (!e || e->host == UINT16_MAX)
		return RT_TL_NONE;
	bool by_proc = e->proc != UINT16_MAX && !e->proc_ambiguous;
	uint32_t found = RT_TL_NONE;
	for (size_t q = 0; q < b->qps.n; q++) {
		const struct rt_tl_qp *Q = tl_qp(b, q);
		if (Q->qp_type != 4 || Q->qpn != qpn || !(Q->flags & RT_TLQ_TRACED) || Q->host != e->host ||
		    (by_proc && Q->proc != e->proc))
			continue;
		if (found != RT_TL_NONE)
			return RT_TL_NONE; /* two processes of the host: not known which */
		found = (uint32_t)q;
	}
	return found;
}

static uint64_t key2(uint32_t a, uint32_t b)
{
	return (uint64_t)a << 32 | b;
}

/* ud_qp_at() of the last (address, QPN) asked: a stream of datagrams asks the
 * same again and again, and the lookup scans every QP. */
struct qp_memo {
	uint64_t key;             /* key2(ep, qpn), UINT64_MAX none */
	uint32_t qp;
};

static uint32_t ud_qp_memo(struct tl_build *b, struct qp_memo *m, uint32_t ep, uint32_t qpn)
{
	uint64_t key = key2(ep, qpn);
	if (m->key != key) {
		m->key = key;
		m->qp = ud_qp_at(b, ep, qpn);
	}
	return m->qp;
}

/* Per receiving QP: its receive WRs in post order, its receive completions
 * in poll order, and the datagrams captured for it. */
struct ud_rq {
	struct tl_vec recvs, comps, pkts; /* uint32_t items / packet indices */
};

/* The n-th completion of q is its n-th receive; it took the next captured
 * datagram from its source QP.  Each source QP has its own place in the
 * captured datagrams: datagrams of one source skipped while looking for
 * another's are still there for their own completions. */
static int pair_receives(struct tl_build *b, struct ud_rq *r)
{
	struct tl_hash next; /* source QPN -> index in r->pkts to look from */
	if (tl_hash_init(&next, 16) < 0)
		return -ENOMEM;
	int rc = 0;
	for (size_t n = 0; n < r->comps.n && n < r->recvs.n && rc >= 0; n++) {
		const struct tl_evrec *ce = tl_ev(b, *TL_AT(&r->comps, uint32_t, n));
		uint32_t src = ce->ev.u.wc.src_qp;
		if (ce->ev.u.wc.status != 0)
			continue;
		uint32_t *from = tl_hash_get(&next, src);
		size_t j = from ? *from : 0;
		while (j < r->pkts.n && tl_pk(b, *TL_AT(&r->pkts, uint32_t, j))->src_qp != src)
			j++;
		if (j == r->pkts.n || (rc = tl_hash_put(&next, src, (uint32_t)j + 1)) < 0)
			continue; /* not captured (the place stays for the next one), or no memory */
		uint32_t pi = *TL_AT(&r->pkts, uint32_t, j), recv = *TL_AT(&r->recvs, uint32_t, n);
		if (recv == RT_TL_NONE)
			continue; /* an SRQ receive whose WR is not known: the datagram is taken all the same */
		tl_pk(b, pi)->recv_wr = recv;
		rc = tl_link2(b, recv, tl_item_pk(b, pi), RT_TLL_CONSUMER, RT_TLL_RECV_WR);
	}
	tl_hash_free(&next);
	return rc < 0 ? rc : 0;
}

/* The traced UD QPs' send WRs by (QP, predicted PSN), and their receive
 * WRs and receive completions (rq, indexed by QP). */
static int ud_events(struct tl_build *b, struct ud_rq *rq, struct tl_hash *sends)
{
	for (size_t i = 0; i < tl_nev(b); i++) {
		const struct tl_evrec *e = tl_ev(b, i);
		const struct rt_ev_wr *w = &e->ev.u.wr;
		uint32_t q = b->ev_qp[i];
		if (b->ev_shadow[i] || !is_ud(b, q))
			continue;
		int rc = 0;
		if (e->ev.kind == RT_EV_WR_POST && !(w->flags & RT_WRF_POST_FAILED)) {
			if (w->queue == RT_WRQ_SEND && (w->flags & RT_WRF_PSN_VALID))
				rc = tl_hash_put(sends, key2(q, w->first_psn), (uint32_t)i);
			else if (w->queue == RT_WRQ_RECV)
				rc = tl_vec_push_u32(&rq[q].recvs, (uint32_t)i);
		} else if (e->ev.kind == RT_EV_COMPLETION && e->ev.u.wc.opcode == TL_WC_RECV) {
			rc = tl_vec_push_u32(&rq[q].comps, (uint32_t)i);
		}
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The receives of the QPs on a shared receive queue (completions but no
 * receive WRs of their own): per completion, the SRQ WR it was linked to
 * (RT_TL_NONE when none), so that the n-th completion pairs with its own. */
static int srq_receives(struct tl_build *b, struct ud_rq *rq)
{
	size_t nq = b->qps.n, nev = tl_nev(b);
	bool any = false;
	for (size_t q = 0; q < nq && !any; q++)
		any = !rq[q].recvs.n && rq[q].comps.n;
	if (!any)
		return 0;
	uint32_t *wr_of = malloc(nev * sizeof(*wr_of));
	if (!wr_of)
		return -ENOMEM;
	for (size_t i = 0; i < nev; i++)
		wr_of[i] = RT_TL_NONE;
	for (size_t l = 0; l < b->links.n; l++) {
		const struct tl_blink *k = TL_AT(&b->links, struct tl_blink, l);
		if (k->type != RT_TLL_WR || k->from >= nev || k->to >= nev ||
		    tl_ev(b, k->from)->ev.kind != RT_EV_COMPLETION || tl_ev(b, k->to)->ev.kind != RT_EV_WR_POST ||
		    tl_ev(b, k->to)->ev.u.wr.queue != RT_WRQ_SRQ_RECV)
			continue;
		wr_of[k->from] = k->to;
	}
	int rc = 0;
	for (size_t q = 0; q < nq && !rc; q++) {
		if (rq[q].recvs.n)
			continue;
		for (size_t n = 0; n < rq[q].comps.n && !rc; n++)
			rc = tl_vec_push_u32(&rq[q].recvs, wr_of[*TL_AT(&rq[q].comps, uint32_t, n)]);
	}
	free(wr_of);
	return rc;
}

/* The one traced UD QP a datagram's address could be when that address
 * belongs to no host yet (no CM exchange named it: perftest -c UD without
 * -R): as sender, the QP with its source QPN whose WRs were predicted to
 * carry its PSN; as receiver, the QP with its destination QPN that
 * completed a receive from its source QPN, other than the sending QP (when
 * ud_sender_by_psn knows it: perftest -c UD with both processes on one
 * host, uroce's) or on another host than the sender's (when it does not:
 * two QPs with one QPN that send to each other). */
static uint32_t ud_sender_by_psn(struct tl_build *b, const struct tl_pk *k, struct tl_hash *sends)
{
	uint32_t found = RT_TL_NONE;
	for (size_t q = 0; q < b->qps.n; q++) {
		const struct rt_tl_qp *Q = tl_qp(b, q);
		if (!is_ud(b, (uint32_t)q) || Q->qpn != k->src_qp || !(Q->flags & RT_TLQ_TRACED) ||
		    !tl_hash_get(sends, key2((uint32_t)q, k->psn)))
			continue;
		if (found != RT_TL_NONE)
			return RT_TL_NONE;
		found = (uint32_t)q;
	}
	return found;
}

static bool received_from(struct tl_build *b, const struct ud_rq *r, uint32_t src_qp)
{
	for (size_t n = 0; n < r->comps.n; n++) {
		const struct tl_evrec *ce = tl_ev(b, *TL_AT(&r->comps, uint32_t, n));
		if (ce->ev.u.wc.status == 0 && ce->ev.u.wc.src_qp == src_qp)
			return true;
	}
	return false;
}

static uint32_t ud_receiver_by_completions(struct tl_build *b, const struct tl_pk *k, const struct ud_rq *rq,
                                           uint32_t sender)
{
	uint16_t sender_host = TL_AT(&b->eps, struct tl_ep, k->src_ep)->host;
	uint32_t found = RT_TL_NONE;
	for (size_t q = 0; q < b->qps.n; q++) {
		const struct rt_tl_qp *Q = tl_qp(b, q);
		if (!is_ud(b, (uint32_t)q) || Q->qpn != k->dqpn || !(Q->flags & RT_TLQ_TRACED) ||
		    (sender != RT_TL_NONE ? q == sender : Q->host == sender_host) || !received_from(b, &rq[q], k->src_qp))
			continue;
		if (found != RT_TL_NONE)
			return RT_TL_NONE;
		found = (uint32_t)q;
	}
	return found;
}

/* A multicast group member: a traced UD QP that joined the group address. */
struct mc_member {
	uint8_t ver;
	uint8_t ip[16];
	uint32_t qp;
};

#define MULTICAST_QPN 0xFFFFFFu

/* Member m of a group, unless the list has it: a QP that joined a group
 * twice (RDMA CM's join attaches its QP too) takes its datagrams once. */
static int add_member(struct tl_vec *members, const struct mc_member *m)
{
	for (size_t o = 0; o < members->n; o++) {
		const struct mc_member *x = TL_AT(members, struct mc_member, o);
		if (x->qp == m->qp && x->ver == m->ver && !memcmp(x->ip, m->ip, sizeof(m->ip)))
			return 0;
	}
	struct mc_member *slot = tl_vec_push(members);
	if (!slot)
		return -ENOMEM;
	*slot = *m;
	return 0;
}

/* A group's address as the capture has it: an IPv4-mapped address
 * (::ffff:a.b.c.d) as IPv4. */
static void member_address(struct mc_member *m, bool ipv6, const uint8_t *ip)
{
	if (ipv6 && tl_ip_v4_mapped(ip)) {
		m->ver = 4;
		memcpy(m->ip, ip + 12, 4);
	} else {
		m->ver = ipv6 ? 6 : 4;
		memcpy(m->ip, ip, ipv6 ? 16 : 4);
	}
}

/* The members of every group joined in the traces, each (group, QP) once:
 * the UD QPs of the RDMA_CM_EVENT_MULTICAST_JOIN events, and those a
 * program attached itself (ibv_attach_mcast, whose group GID is the
 * address on RoCE). */
static int multicast_members(struct tl_build *b, struct tl_vec *members)
{
	int rc = 0;
	for (size_t j = 0; j < b->cm_evs.n && !rc; j++) {
		uint32_t i = *TL_AT(&b->cm_evs, uint32_t, j);
		const struct tl_evrec *e = tl_ev(b, i);
		uint32_t q = b->ev_qp[i];
		struct tl_cm_addr local, group;
		if (e->ev.u.cm.event != RT_CM_EV_MULTICAST_JOIN || e->ev.u.cm.status || b->ev_shadow[i] || !is_ud(b, q) ||
		    !tl_cm_record_addr(b, i, &local, &group))
			continue;
		struct mc_member m = {.qp = q};
		member_address(&m, group.family == 10, group.ip);
		rc = add_member(members, &m);
	}
	for (size_t j = 0; j < b->attaches.n && !rc; j++) {
		uint32_t i = *TL_AT(&b->attaches, uint32_t, j);
		uint32_t q = b->ev_qp[i];
		if (b->ev_shadow[i] || !is_ud(b, q))
			continue;
		struct mc_member m = {.qp = q};
		member_address(&m, true, tl_ev(b, i)->ev.u.verbs_call.gid);
		rc = add_member(members, &m);
	}
	return rc;
}

/* Multicast datagram k (index i) to each group member but its sender. */
static int multicast_receivers(struct tl_build *b, const struct tl_vec *members, struct ud_rq *rq, size_t i,
			       uint32_t sender)
{
	struct tl_pk *k = tl_pk(b, i);
	const struct tl_ep *g = TL_AT(&b->eps, struct tl_ep, k->dst_ep);
	size_t alen = g->ver == 6 ? 16 : 4;
	for (size_t n = 0; n < members->n; n++) {
		const struct mc_member *m = TL_AT(members, struct mc_member, n);
		uint32_t q = m->qp;
		if (m->ver != g->ver || memcmp(m->ip, g->ip, alen) || q == sender)
			continue;
		if (k->recv_qp == RT_TL_NONE)
			k->recv_qp = q;
		if (tl_vec_push_u32(&rq[q].pkts, (uint32_t)i) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int claim_addresses(struct tl_build *b, const struct ud_rq *rq, struct tl_hash *sends)
{
	struct tl_hash seen; /* (address, QPN) asked already, as sender (bit 63 clear) or receiver */
	if (tl_hash_init(&seen, 16) < 0)
		return -ENOMEM;
	int rc = 0;
	for (size_t i = 0; i < tl_npk(b) && rc >= 0; i++) {
		const struct tl_pk *k = tl_pk(b, i);
		if (k->is_cm || rt_opcode_transport(k->opcode) != RT_TRANSPORT_UD)
			continue;
		for (int side = 0; side < 2 && rc >= 0; side++) {
			uint32_t ep = side ? k->dst_ep : k->src_ep;
			struct tl_ep *e = TL_AT(&b->eps, struct tl_ep, ep);
			uint64_t key = key2(ep, side ? k->dqpn : k->src_qp) | (uint64_t)side << 63;
			if (e->host != UINT16_MAX || tl_hash_get(&seen, key))
				continue;
			if ((rc = tl_hash_put(&seen, key, 1)) < 0)
				break;
			uint32_t q = side ? ud_receiver_by_completions(b, k, rq, ud_sender_by_psn(b, k, sends))
					  : ud_sender_by_psn(b, k, sends);
			if (q != RT_TL_NONE)
				tl_ep_claim(e, tl_qp(b, q)->host, tl_qp(b, q)->proc);
		}
	}
	tl_hash_free(&seen);
	return rc;
}

int tl_ud_links(struct tl_build *b)
{
	size_t nq = b->qps.n, npk = tl_npk(b);
	bool any_ud = false;
	for (size_t q = 0; q < nq && !any_ud; q++)
		any_ud = is_ud(b, (uint32_t)q) && (tl_qp(b, q)->flags & RT_TLQ_TRACED);
	if (!any_ud || !npk)
		return 0;
	struct tl_hash sends; /* (QP, PSN) -> send WR */
	struct ud_rq *rq = calloc(nq, sizeof(*rq));
	if (!rq || tl_hash_init(&sends, 64) < 0) {
		free(rq);
		return -ENOMEM;
	}
	for (size_t q = 0; q < nq; q++) {
		tl_vec_init(&rq[q].recvs, sizeof(uint32_t));
		tl_vec_init(&rq[q].comps, sizeof(uint32_t));
		tl_vec_init(&rq[q].pkts, sizeof(uint32_t));
	}
	struct tl_vec members; /* struct mc_member */
	tl_vec_init(&members, sizeof(struct mc_member));
	int rc = ud_events(b, rq, &sends);
	if (rc >= 0)
		rc = srq_receives(b, rq);
	if (rc >= 0)
		rc = claim_addresses(b, rq, &sends);
	if (rc >= 0)
		rc = multicast_members(b, &members);
	struct qp_memo src = {.key = UINT64_MAX}, dst = {.key = UINT64_MAX};
	/* a datagram between two traced UD QPs: its sender, send WR and receiver */
	for (size_t i = 0; i < npk && rc >= 0; i++) {
		struct tl_pk *k = tl_pk(b, i);
		if (k->is_cm || rt_opcode_transport(k->opcode) != RT_TRANSPORT_UD)
			continue;
		uint32_t sq = ud_qp_memo(b, &src, k->src_ep, k->src_qp), dq = ud_qp_memo(b, &dst, k->dst_ep, k->dqpn);
		uint32_t *w = sq != RT_TL_NONE ? tl_hash_get(&sends, key2(sq, k->psn)) : NULL;
		if (sq != RT_TL_NONE)
			k->send_qp = sq;
		if (w && k->wr == RT_TL_NONE) {
			k->wr = *w;
			k->flags |= RT_TLF_HAS_WR;
			rc = tl_link2(b, *w, tl_item_pk(b, i), RT_TLL_PACKET, RT_TLL_WR);
			/* the WR was posted before its datagram was captured */
			const struct tl_evrec *we = tl_ev(b, *w);
			if (b->capture_host != UINT16_MAX)
				tl_clock_add(b, we->host, b->capture_host, we->raw_ns, k->raw_ns);
		}
		if (dq != RT_TL_NONE && rc >= 0) {
			k->recv_qp = dq;
			rc = tl_vec_push_u32(&rq[dq].pkts, (uint32_t)i);
		} else if (k->dqpn == MULTICAST_QPN && members.n && rc >= 0) {
			rc = multicast_receivers(b, &members, rq, i, sq);
		}
	}
	tl_vec_free(&members);
	for (size_t q = 0; q < nq; q++) {
		if (rc >= 0 && rq[q].pkts.n)
			rc = pair_receives(b, &rq[q]);
		tl_vec_free(&rq[q].recvs);
		tl_vec_free(&rq[q].comps);
		tl_vec_free(&rq[q].pkts);
	}
	free(rq);
	tl_hash_free(&sends);
	return rc < 0 ? rc : 0;
}

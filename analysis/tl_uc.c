/*
 * UC messages on their way to a traced receiver: which of them the capture
 * saw arrive whole, and what that says about the receiver's clock.
 *
 * UC sends nothing back, so no ACK orders the receiving host's clock against
 * the capture's.  Its receive completions still do, from one side: the
 * receiver takes messages in order and can only complete a receive for a
 * message that arrived whole, so its n-th successful receive completion
 * comes after the n-th message the capture saw arrive whole (every packet,
 * FIRST .. LAST in PSN order, or ONLY) that consumes a receive (SEND, WRITE
 * with immediate).  The diagnosis (tl_detect.c receiver_drops) counts the
 * same messages against the completions to find the ones dropped at the
 * receiver.
 */
#include <errno.h>
#include <stdlib.h>

#include "tl_internal.h"

/* A message starts at packet i (k): one still in progress lost its end. */
static void msg_start(struct tl_uc_reasm *r, const struct tl_pk *k, uint32_t i)
{
	if (r->in_msg)
		r->broken = true;
	r->msg_first = i;
	r->msg_consumes = k->consumes_recv;
	r->msg_after_broken = r->broken;
	r->broken = false;
}

bool tl_uc_reasm_add(struct tl_uc_reasm *r, const struct tl_pk *k, uint32_t i, uint32_t *first, bool *after_broken)
{
	bool gap = r->have_next && k->psn != r->next_psn;
	r->next_psn = (k->psn + 1) & 0xFFFFFFu;
	r->have_next = true;
	if (gap && r->in_msg) { /* the message in progress lost its end */
		r->in_msg = false;
		r->broken = true;
	}
	bool whole = false;
	switch (k->position) {
	case RT_POS_FIRST:
		msg_start(r, k, i);
		r->in_msg = true;
		return false;
	case RT_POS_MIDDLE:
		r->msg_consumes |= k->consumes_recv;
		return false;
	case RT_POS_LAST:
		if (!r->in_msg)
			return false; /* its first packet was lost: not whole */
		r->in_msg = false;
		whole = r->msg_consumes || k->consumes_recv;
		break;
	case RT_POS_ONLY:
		msg_start(r, k, i);
		r->in_msg = false;
		whole = k->consumes_recv;
		break;
	default:
		return false;
	}
	if (whole) {
		*first = r->msg_first;
		*after_broken = r->msg_after_broken;
	}
	return whole;
}

bool tl_uc_pk_to(const struct tl_build *b, const struct tl_pk *k, uint32_t q)
{
	return q < b->qps.n && k->recv_qp == q && !k->is_cm && k->is_request && !k->damaged &&
	       k->icrc != RT_ICRC_BAD && rt_opcode_transport(k->opcode) == RT_TRANSPORT_UC;
}

/* A traced UC QP's successful receive completions (events), in order. */
struct uc_rx {
	uint32_t *ev;
	size_t n, cap;
};

static bool traced_uc(struct tl_build *b, size_t q)
{
	const struct rt_tl_qp *Q = tl_qp(b, q);
	return Q->qp_type == 3 && (Q->flags & RT_TLQ_TRACED) && Q->host != UINT16_MAX;
}

int tl_uc_links(struct tl_build *b)
{
	size_t nq = b->qps.n, nev = tl_nev(b), npk = tl_npk(b);
	bool any = false;
	for (size_t q = 0; q < nq && !any; q++)
		any = traced_uc(b, q);
	if (!any || b->capture_host == UINT16_MAX)
		return 0;
	struct uc_rx *rx = calloc(nq, sizeof(*rx));
	struct tl_uc_reasm *rs = calloc(nq, sizeof(*rs));
	size_t *next = calloc(nq, sizeof(*next)); /* the receive completion the next whole message bounds */
	int rc = rx && rs && next ? 0 : -ENOMEM;
	for (size_t i = 0; !rc && i < nev; i++) {
		const struct tl_evrec *e = tl_ev(b, i);
		uint32_t q = b->ev_qp[i];
		if (b->ev_shadow[i] || q >= nq || e->ev.kind != RT_EV_COMPLETION || e->ev.u.wc.status != 0 ||
		    (e->ev.u.wc.opcode != TL_WC_RECV && e->ev.u.wc.opcode != TL_WC_RECV_RDMA_WITH_IMM) || !traced_uc(b, q))
			continue;
		struct uc_rx *r = &rx[q];
		if (r->n == r->cap) {
			size_t cap = r->cap ? r->cap * 2 : 64;
			uint32_t *p = realloc(r->ev, cap * sizeof(*p));
			if (!p) {
				rc = -ENOMEM;
				break;
			}
			r->ev = p;
			r->cap = cap;
		}
		r->ev[r->n++] = (uint32_t)i;
	}
	for (size_t i = 0; !rc && i < npk; i++) {
		const struct tl_pk *k = tl_pk(b, i);
		uint32_t q = k->recv_qp, first;
		bool after_broken;
		if (q >= nq || !rx[q].n || !tl_uc_pk_to(b, k, q) ||
		    !tl_uc_reasm_add(&rs[q], k, (uint32_t)i, &first, &after_broken) || next[q] >= rx[q].n)
			continue;
		/* the n-th whole message was captured before the n-th receive completed */
		const struct tl_evrec *c = tl_ev(b, rx[q].ev[next[q]++]);
		tl_clock_add(b, b->capture_host, c->host, k->raw_ns, c->raw_ns);
	}
	for (size_t q = 0; rx && q < nq; q++)
		free(rx[q].ev);
	free(rx);
	free(rs);
	free(next);
	return rc;
}

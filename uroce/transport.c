/*
 * The uroce transport: requester (segmenting WQEs into packets by path MTU,
 * AckReq placement, Go-Back-N retry), completer (ACK / NAK / RNR NAK / read
 * response / atomic ACK handling, in-order completions, timers) and
 * responder (PSN checks, duplicate replay from responder resources, RNR NAK,
 * rkey and bounds checks, ACK coalescing) for RC, UC and UD.  rxe's
 * behaviour (../shared/docs/roce-wire.md sections 7 and 8) is the model
 * where the specification leaves a choice.  Everything here runs under
 * ctx->lock.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uroce.h"

#define SWQE(qp, i) (&(qp)->sq[(i) & (qp)->sq_mask])
#define NAK_SYN(code) rt_aeth_syndrome(RT_AETH_NAK, code)
#define ACK_SYN rt_aeth_syndrome(RT_AETH_ACK, 0x1F)

static bool is_rdatomic(enum ibv_wr_opcode op)
{
	return op == IBV_WR_RDMA_READ || op == IBV_WR_ATOMIC_CMP_AND_SWP || op == IBV_WR_ATOMIC_FETCH_AND_ADD;
}

static uint8_t opbase(const struct uroce_qp *qp)
{
	return qp->ibqp.qp_type == IBV_QPT_UC ? 0x20 : 0x00;
}

/* Cut [off, off+len) of a scatter list into out[]; returns the number of pieces. */
static int slice(const struct uroce_sge *sge, int n, uint32_t off, uint32_t len, struct uroce_sge *out)
{
	int k = 0;
	for (int i = 0; i < n && len; i++) {
		if (off >= sge[i].len) {
			off -= sge[i].len;
			continue;
		}
		uint32_t take = sge[i].len - off;
		if (take > len)
			take = len;
		out[k++] = (struct uroce_sge){ sge[i].ptr + off, take };
		len -= take;
		off = 0;
	}
	return k;
}

/* Copy into a scatter list at offset off; false when it does not fit. */
static bool scatter(const struct uroce_sge *sge, int n, uint32_t off, const uint8_t *src, uint32_t len)
{
	struct uroce_sge out[UROCE_MAX_SGE];
	uint32_t total = 0;
	for (int i = 0; i < n; i++)
		total += sge[i].len;
	if (off > total || len > total - off)
		return false;
	int k = slice(sge, n, off, len, out);
	for (int i = 0; i < k; i++) {
		memcpy(out[i].ptr, src, out[i].len);
		src += out[i].len;
	}
	return true;
}

static uint64_t ack_timeout_ns(const struct uroce_qp *qp)
{
	return rt_ack_timeout_us(qp->timeout) * 1000ull;
}

static void trace_retry(struct uroce_qp *qp, uint32_t psn, unsigned cause, uint32_t timeout_us, uint8_t left)
{
	static int dbg = -1;
	if (dbg < 0)
		dbg = getenv("UROCE_DEBUG") != NULL;
	if (dbg)
		fprintf(stderr, "uroce RETRY qp %u psn %u cause %u left %u una %u sq_psn %u\n", qp->ibqp.qp_num, psn,
		        cause, left, qp->una, qp->sq_psn);
	struct rt_event *ev = uroce_ev_begin(RT_EV_RETRY, qp->ibqp.qp_num);
	if (!ev)
		return;
	ev->u.retry.first_psn = psn;
	ev->u.retry.last_psn = rt_psn_add(qp->sq_psn, -1);
	ev->u.retry.timeout_us = timeout_us;
	ev->u.retry.cause = (uint8_t)cause;
	ev->u.retry.retries_left = left;
	uroce_ev_commit(ev);
}

static void trace_timer(struct uroce_qp *qp, unsigned kind, uint32_t psn, uint32_t us)
{
	struct rt_event *ev = uroce_ev_begin(RT_EV_TIMER, qp->ibqp.qp_num);
	if (!ev)
		return;
	ev->u.timer.psn = psn;
	ev->u.timer.timeout_us = us;
	ev->u.timer.timer = (uint8_t)kind;
	uroce_ev_commit(ev);
}

static void trace_rnr(struct uroce_qp *qp, uint32_t psn, uint8_t code, bool tx, uint8_t left, bool injected)
{
	struct rt_event *ev = uroce_ev_begin(RT_EV_RNR, qp->ibqp.qp_num);
	if (!ev)
		return;
	if (tx)
		ev->flags |= RT_EVF_TX;
	if (injected)
		ev->u.rnr.rnr_flags |= RT_RNRF_INJECTED;
	ev->u.rnr.psn = psn;
	ev->u.rnr.timer_code = code;
	ev->u.rnr.timer_us = rt_rnr_timer_us(code);
	ev->u.rnr.peer_qpn = qp->dest_qpn;
	ev->u.rnr.retries_left = left;
	uroce_ev_commit(ev);
}

/* ------------------------------------------------------------------ */
/* Completions                                                          */

static enum ibv_wc_opcode wc_opcode(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return IBV_WC_RDMA_WRITE;
	case IBV_WR_RDMA_READ:
		return IBV_WC_RDMA_READ;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return IBV_WC_COMP_SWAP;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return IBV_WC_FETCH_ADD;
	default:
		return IBV_WC_SEND;
	}
}

static void complete_send(struct uroce_qp *qp, struct uroce_swqe *w, enum ibv_wc_status st)
{
	w->state = SWQE_DONE;
	if (st == IBV_WC_SUCCESS && !(w->flags & IBV_SEND_SIGNALED) && !qp->sq_sig_all)
		return;
	struct ibv_wc wc;
	memset(&wc, 0, sizeof(wc));
	wc.wr_id = w->wr_id;
	wc.status = st;
	wc.opcode = wc_opcode(w->opcode);
	wc.qp_num = qp->ibqp.qp_num;
	if (st == IBV_WC_SUCCESS) {
		if (w->opcode == IBV_WR_RDMA_READ)
			wc.byte_len = w->length;
		else if (w->opcode == IBV_WR_ATOMIC_CMP_AND_SWP || w->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD)
			wc.byte_len = 8;
		else
			wc.byte_len = w->length;
	}
	uroce_cq_push(qp->scq, &wc, false);
}

static void complete_recv(struct uroce_qp *qp, struct uroce_rwqe *r, enum ibv_wc_status st, enum ibv_wc_opcode op,
                          uint32_t len, unsigned flags, uint32_t imm, uint32_t src_qp, bool solicited)
{
	struct ibv_wc wc;
	memset(&wc, 0, sizeof(wc));
	wc.wr_id = r->wr_id;
	wc.status = st;
	wc.opcode = op;
	wc.byte_len = len;
	wc.qp_num = qp->ibqp.qp_num;
	wc.src_qp = src_qp;
	wc.wc_flags = flags;
	wc.imm_data = imm;
	uroce_cq_push(qp->rcq, &wc, solicited);
}

/* Hand completions out in WQE order. */
static void comp_advance(struct uroce_qp *qp)
{
	while (qp->comp_idx != qp->req_idx) {
		struct uroce_swqe *w = SWQE(qp, qp->comp_idx);
		if (w->state != SWQE_DONE)
			break;
		qp->comp_idx++;
	}
	if (qp->state == IBV_QPS_SQD && qp->sq_draining && qp->comp_idx == qp->req_idx) {
		qp->sq_draining = false;
		uroce_async_event(qp->ctx, IBV_EVENT_SQ_DRAINED, qp);
	}
}

void uroce_qp_flush(struct uroce_qp *qp)
{
	for (; qp->comp_idx != qp->sq_head; qp->comp_idx++) {
		struct uroce_swqe *w = SWQE(qp, qp->comp_idx);
		if (w->state != SWQE_DONE) {
			w->flags |= IBV_SEND_SIGNALED;
			complete_send(qp, w, IBV_WC_WR_FLUSH_ERR);
		}
	}
	qp->req_idx = qp->sq_head;
	qp->req_pkt = 0;
	if (qp->have_rwqe) {
		complete_recv(qp, &qp->cur_rwqe_store, IBV_WC_WR_FLUSH_ERR, IBV_WC_RECV, 0, 0, 0, 0, false);
		qp->have_rwqe = false;
	}
	if (!qp->srq) {
		for (; qp->rq.tail != qp->rq.head; qp->rq.tail++) {
			struct uroce_rwqe *r = &qp->rq.ring[qp->rq.tail & qp->rq.mask];
			complete_recv(qp, r, IBV_WC_WR_FLUSH_ERR, IBV_WC_RECV, 0, 0, 0, 0, false);
		}
	}
	qp->ack_deadline = qp->rnr_deadline = 0;
}

/* Complete the oldest incomplete WQE with an error, then move the QP to ERR and flush. */
static void fail_oldest(struct uroce_qp *qp, enum ibv_wc_status st)
{
	for (unsigned i = qp->comp_idx; i != qp->sq_head; i++) {
		struct uroce_swqe *w = SWQE(qp, i);
		if (w->state != SWQE_DONE) {
			complete_send(qp, w, st);
			break;
		}
	}
	uroce_qp_to_error(qp);
}

/* ------------------------------------------------------------------ */
/* Requester                                                            */

static uint8_t send_opcode(const struct uroce_qp *qp, const struct uroce_swqe *w, uint32_t i)
{
	bool first = i == 0, last = i + 1 == w->npkts;
	uint8_t b = opbase(qp);
	bool write = w->opcode == IBV_WR_RDMA_WRITE || w->opcode == IBV_WR_RDMA_WRITE_WITH_IMM;
	bool imm = w->opcode == IBV_WR_RDMA_WRITE_WITH_IMM || w->opcode == IBV_WR_SEND_WITH_IMM;
	bool inv = w->opcode == IBV_WR_SEND_WITH_INV;
	if (write) {
		if (first && last)
			return b + (imm ? RT_OP_RC_WRITE_ONLY_IMM : RT_OP_RC_WRITE_ONLY);
		if (first)
			return b + RT_OP_RC_WRITE_FIRST;
		if (last)
			return b + (imm ? RT_OP_RC_WRITE_LAST_IMM : RT_OP_RC_WRITE_LAST);
		return b + RT_OP_RC_WRITE_MIDDLE;
	}
	if (first && last)
		return inv ? RT_OP_RC_SEND_ONLY_INV : b + (imm ? RT_OP_RC_SEND_ONLY_IMM : RT_OP_RC_SEND_ONLY);
	if (first)
		return b + RT_OP_RC_SEND_FIRST;
	if (last)
		return inv ? RT_OP_RC_SEND_LAST_INV : b + (imm ? RT_OP_RC_SEND_LAST_IMM : RT_OP_RC_SEND_LAST);
	return b + RT_OP_RC_SEND_MIDDLE;
}

/* True when psn was sent at some time: at or below the highest PSN sent,
   which after a Go-Back-N rewind (and a smaller window) can lie beyond sq_psn. */
static bool psn_was_sent(const struct uroce_qp *qp, uint32_t psn)
{
	return qp->sent_any && rt_psn_diff(psn, qp->max_sent) <= 0;
}

/* 0 for a first transmission of psn (and it is recorded as sent), else the retry round. */
static uint8_t retrans_of(struct uroce_qp *qp, uint32_t psn)
{
	if (psn_was_sent(qp, psn))
		return qp->retry_round ? qp->retry_round : 1;
	qp->max_sent = psn;
	qp->sent_any = true;
	return 0;
}

static void arm_ack_timer(struct uroce_qp *qp)
{
	if (qp->ibqp.qp_type != IBV_QPT_RC || !qp->timeout || qp->ack_deadline)
		return;
	qp->ack_deadline = uroce_now_ns() + ack_timeout_ns(qp);
	uroce_timer_update(qp->ctx, qp->ack_deadline);
}

/*
 * AckReq on the last packet of a message: always where a prompt ACK matters,
 * i.e. when the application will look for this WR's completion (signaled),
 * the send queue or the window is half used (slots must free), the packet is
 * a resend, or the ACK timeout is short.  Otherwise (an unsignaled message,
 * as latency-bound programs post them) the responder acknowledges it lazily,
 * within UROCE_LAZY_ACK_NS, or sooner with the next ACK it sends anyway:
 * a ping-pong then carries one ACK per half send queue instead of one per
 * message.  UROCE_ACK_EVERY packets without AckReq get one regardless.
 */
static bool ack_wanted_now(const struct uroce_qp *qp, const struct uroce_swqe *w, uint32_t psn, uint8_t retrans)
{
	if (qp->ctx->lazy_acks_off || retrans || (w->flags & IBV_SEND_SIGNALED) || qp->sq_sig_all)
		return true;
	if (qp->timeout && ack_timeout_ns(qp) < UROCE_LAZY_MIN_TIMEOUT_NS)
		return true;
	unsigned used = qp->sq_head - qp->comp_idx;
	if (2 * used >= qp->cap.max_send_wr)
		return true;
	return 2 * (uint32_t)rt_psn_diff(rt_psn_add(psn, 1), qp->una) >= qp->cwnd;
}

static void send_data_pkt(struct uroce_qp *qp, struct uroce_swqe *w, uint32_t i)
{
	struct rt_roce_hdrs h;
	memset(&h, 0, sizeof(h));
	uint32_t off = i * qp->mtu;
	uint32_t len = w->length > off ? w->length - off : 0;
	if (len > qp->mtu)
		len = qp->mtu;
	bool last = i + 1 == w->npkts;
	h.opcode = send_opcode(qp, w, i);
	h.dest_qpn = qp->dest_qpn;
	h.psn = rt_psn_add(w->first_psn, (int32_t)i);
	if (i == 0 && (w->opcode == IBV_WR_RDMA_WRITE || w->opcode == IBV_WR_RDMA_WRITE_WITH_IMM)) {
		h.reth_va = w->raddr;
		h.reth_rkey = w->rkey;
		h.reth_len = w->length;
	}
	if (last) {
		h.imm_be = w->imm;
		h.ieth_rkey = w->imm;
		h.se = (w->flags & IBV_SEND_SOLICITED) != 0;
	}
	uint8_t rt = qp->ibqp.qp_type == IBV_QPT_RC ? retrans_of(qp, h.psn) : 0;
	if (qp->ibqp.qp_type == IBV_QPT_RC) {
		if (++qp->pkts_since_ackreq >= UROCE_ACK_EVERY || (last && ack_wanted_now(qp, w, h.psn, rt))) {
			h.ackreq = true;
			qp->pkts_since_ackreq = 0;
		}
	}
	struct uroce_sge pay[UROCE_MAX_SGE];
	int np = slice(w->sge, w->num_sge, off, len, pay);
	uroce_tx_packet(qp->ctx, qp, qp->sgid_index, &qp->dst, qp->ah_attr.grh.traffic_class, &h, pay, np, len, rt);
}

static void send_rdatomic(struct uroce_qp *qp, struct uroce_swqe *w)
{
	struct rt_roce_hdrs h;
	memset(&h, 0, sizeof(h));
	h.dest_qpn = qp->dest_qpn;
	h.ackreq = true;
	if (w->opcode == IBV_WR_RDMA_READ) {
		uint32_t done = w->read_pkts * qp->mtu;
		h.opcode = RT_OP_RC_READ_REQUEST;
		h.psn = rt_psn_add(w->first_psn, (int32_t)w->read_pkts);
		h.reth_va = w->raddr + done;
		h.reth_rkey = w->rkey;
		h.reth_len = w->length - done;
	} else {
		h.opcode = w->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ? RT_OP_RC_COMPARE_SWAP : RT_OP_RC_FETCH_ADD;
		h.psn = w->first_psn;
		h.atomic_va = w->raddr;
		h.atomic_rkey = w->rkey;
		h.atomic_swap_add = w->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ? w->swap : w->cmp;
		h.atomic_compare = w->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ? w->cmp : 0;
	}
	uint8_t rt = retrans_of(qp, h.psn);
	/* a READ takes the PSNs of all its responses: asking again for the rest
	   of them (from a PSN inside the READ) is a resend too */
	if (rt_psn_diff(w->last_psn, qp->max_sent) > 0)
		qp->max_sent = w->last_psn;
	uroce_tx_packet(qp->ctx, qp, qp->sgid_index, &qp->dst, qp->ah_attr.grh.traffic_class, &h, NULL, 0, 0, rt);
}

static void send_ud(struct uroce_qp *qp, struct uroce_swqe *w)
{
	struct rt_roce_hdrs h;
	memset(&h, 0, sizeof(h));
	h.opcode = w->opcode == IBV_WR_SEND_WITH_IMM ? RT_OP_UD_SEND_ONLY_IMM : RT_OP_UD_SEND_ONLY;
	h.dest_qpn = w->ud_qpn;
	h.psn = qp->sq_psn;
	qp->sq_psn = rt_psn_add(qp->sq_psn, 1);
	h.deth_qkey = (w->ud_qkey & 0x80000000u) ? qp->qkey : w->ud_qkey;
	h.deth_src_qp = qp->ibqp.qp_num;
	h.imm_be = w->imm;
	h.se = (w->flags & IBV_SEND_SOLICITED) != 0;
	struct uroce_sge pay[UROCE_MAX_SGE];
	int np = slice(w->sge, w->num_sge, 0, w->length, pay);
	uroce_tx_packet(qp->ctx, qp, w->ah->sgid_index, &w->ah->dst, w->ah->tclass, &h, pay, np, w->length, 0);
}

void uroce_req_progress(struct uroce_qp *qp)
{
	if (qp->state != IBV_QPS_RTS && qp->state != IBV_QPS_SQD)
		return;
	if (qp->rnr_deadline)
		return;
	bool rc = qp->ibqp.qp_type == IBV_QPT_RC;
	while (qp->req_idx != qp->sq_head) {
		struct uroce_swqe *w = SWQE(qp, qp->req_idx);
		if (qp->state == IBV_QPS_SQD && qp->req_pkt == 0)
			break; /* SQD: finish the message in progress, start no new one */
		if (w->status != IBV_WC_SUCCESS) {
			/* a local error found at post time: completes in order, then the QP fails */
			if (qp->comp_idx != qp->req_idx)
				break;
			complete_send(qp, w, (enum ibv_wc_status)w->status);
			qp->req_idx++;
			qp->comp_idx++;
			uroce_qp_to_error(qp);
			return;
		}
		if (qp->ibqp.qp_type == IBV_QPT_UD) {
			if (w->length > qp->mtu) {
				complete_send(qp, w, IBV_WC_LOC_LEN_ERR);
				qp->req_idx++;
				comp_advance(qp);
				uroce_qp_to_error(qp);
				return;
			}
			send_ud(qp, w);
			qp->req_idx++;
			complete_send(qp, w, IBV_WC_SUCCESS);
			comp_advance(qp);
			continue;
		}
		if (rc && rt_psn_diff(qp->sq_psn, qp->una) >= (int32_t)qp->cwnd)
			break;
		if (rc && qp->req_pkt == 0 && (w->flags & IBV_SEND_FENCE) && qp->rd_outstanding)
			break;
		if (is_rdatomic(w->opcode)) {
			unsigned lim = qp->max_rd_atomic ? qp->max_rd_atomic : 1;
			if (qp->rd_outstanding >= lim)
				break;
			send_rdatomic(qp, w);
			qp->rd_outstanding++;
			qp->sq_psn = rt_psn_add(w->last_psn, 1);
			w->state = SWQE_SENT;
			qp->req_idx++;
			qp->req_pkt = 0;
			arm_ack_timer(qp);
			continue;
		}
		while (qp->req_pkt < w->npkts && (!rc || rt_psn_diff(qp->sq_psn, qp->una) < (int32_t)qp->cwnd)) {
			send_data_pkt(qp, w, qp->req_pkt);
			qp->req_pkt++;
			qp->sq_psn = rt_psn_add(w->first_psn, (int32_t)qp->req_pkt);
		}
		if (rc)
			arm_ack_timer(qp);
		if (qp->req_pkt < w->npkts)
			break;
		w->state = SWQE_SENT;
		qp->req_idx++;
		qp->req_pkt = 0;
		if (!rc) {
			complete_send(qp, w, IBV_WC_SUCCESS); /* UC: complete once sent */
			comp_advance(qp);
		}
	}
}

/* Go back to psn: the WQE holding it is resent from there, every later one in full. */
static void rewind_to(struct uroce_qp *qp, uint32_t psn)
{
	unsigned limit = qp->req_idx + (qp->req_pkt ? 1u : 0u); /* WQEs with packets on the wire */
	unsigned idx;
	for (idx = qp->comp_idx; idx != limit; idx++) {
		struct uroce_swqe *w = SWQE(qp, idx);
		if (w->state != SWQE_DONE && rt_psn_diff(psn, w->last_psn) <= 0)
			break;
	}
	if (idx == limit)
		return;
	for (unsigned i = idx; i != limit; i++)
		if (SWQE(qp, i)->state == SWQE_SENT)
			SWQE(qp, i)->state = SWQE_POSTED;
	struct uroce_swqe *w = SWQE(qp, idx);
	qp->req_idx = idx;
	if (w->opcode == IBV_WR_RDMA_READ) {
		qp->req_pkt = 0;
		qp->sq_psn = rt_psn_add(w->first_psn, (int32_t)w->read_pkts);
	} else if (is_rdatomic(w->opcode)) {
		qp->req_pkt = 0;
		qp->sq_psn = w->first_psn;
	} else {
		int32_t k = rt_psn_diff(psn, w->first_psn);
		qp->req_pkt = k > 0 ? (uint32_t)k : 0;
		qp->sq_psn = rt_psn_add(w->first_psn, (int32_t)qp->req_pkt);
	}
	qp->rd_outstanding = 0;
	for (unsigned i = qp->comp_idx; i != idx; i++) {
		struct uroce_swqe *x = SWQE(qp, i);
		if (x->state != SWQE_DONE && is_rdatomic(x->opcode))
			qp->rd_outstanding++;
	}
	qp->pkts_since_ackreq = 0;
}

/* rxe never runs out of retries when retry_cnt is 7 (it only decrements other
   values); uroce does the same unless UROCE_STRICT_RETRY=1 asks for IBTA's
   reading (7 retries). */
static bool retry7_infinite(void)
{
	static int v = -1;
	if (v < 0) {
		const char *e = getenv("UROCE_STRICT_RETRY");
		v = !(e && *e == '1');
	}
	return v;
}

static void retry(struct uroce_qp *qp, uint32_t psn, unsigned cause)
{
	if (qp->retries_left == 0) {
		fail_oldest(qp, IBV_WC_RETRY_EXC_ERR);
		return;
	}
	if (qp->retries_left != 7 || !retry7_infinite())
		qp->retries_left--;
	if (qp->retry_round < 255)
		qp->retry_round++;
	trace_retry(qp, psn, cause, (uint32_t)rt_ack_timeout_us(qp->timeout), qp->retries_left);
	if (cause == RT_RETRY_ACK_TIMEOUT)
		qp->ctx->st.retry_timeout++;
	else if (cause == RT_RETRY_NAK_SEQ)
		qp->ctx->st.retry_seq_nak++;
	else
		qp->ctx->st.retry_implied++;
	/* fewer packets in flight after a loss (the window grows back with the ACKs) */
	uint32_t floor = uroce_window_floor(qp->ctx);
	qp->cwnd = qp->cwnd / 2 > floor ? qp->cwnd / 2 : floor;
	rewind_to(qp, psn);
	qp->ack_deadline = 0;
	uroce_req_progress(qp);
}

static void progress_made(struct uroce_qp *qp)
{
	qp->nak_retry_armed = false;
	qp->retries_left = qp->retry_cnt;
	qp->rnr_left = qp->rnr_retry;
	qp->retry_round = 0;
	qp->ack_deadline = 0;
	if (rt_psn_diff(qp->sq_psn, qp->una) > 0)
		arm_ack_timer(qp);
}

/*
 * The responder acknowledged up to psn, beyond the point a rewind moved the
 * send pointer back to: those packets arrived after all (only their ACK was
 * lost).  Move the send pointer past them instead of sending them again, or
 * the requester would keep resending the packets below psn, which the
 * responder answers with the same ACK, and never get beyond it.
 * READ/ATOMIC WQEs are left alone: they still need their responses.
 */
static void skip_acknowledged(struct uroce_qp *qp, uint32_t psn)
{
	uint32_t next = rt_psn_add(psn, 1);
	while (qp->req_idx != qp->sq_head) {
		struct uroce_swqe *w = SWQE(qp, qp->req_idx);
		if (is_rdatomic(w->opcode))
			break;
		if (rt_psn_diff(next, w->last_psn) > 0) {
			w->state = SWQE_SENT;
			qp->req_idx++;
			qp->req_pkt = 0;
			qp->sq_psn = rt_psn_add(w->last_psn, 1);
			continue;
		}
		int32_t k = rt_psn_diff(next, w->first_psn);
		if (k > (int32_t)qp->req_pkt) {
			qp->req_pkt = (uint32_t)k;
			qp->sq_psn = next;
		}
		break;
	}
}

/* Cumulative acknowledgement of everything up to and including psn.  Returns
   false when it skipped an outstanding READ/ATOMIC (an implied NAK: retried). */
static bool ack_upto(struct uroce_qp *qp, uint32_t psn)
{
	if (rt_psn_diff(psn, qp->sq_psn) >= 0 && psn_was_sent(qp, psn))
		skip_acknowledged(qp, psn);
	bool moved = false;
	uint32_t upto = psn; /* never acknowledge past the hole of an unfinished READ/ATOMIC */
	for (unsigned i = qp->comp_idx; i != qp->req_idx; i++) {
		struct uroce_swqe *w = SWQE(qp, i);
		if (w->state == SWQE_DONE)
			continue;
		if (w->state != SWQE_SENT)
			break;
		if (is_rdatomic(w->opcode)) {
			/* an acknowledgement at or beyond the last PSN of an unfinished READ/ATOMIC:
			   its responses were lost */
			if (rt_psn_diff(psn, w->last_psn) >= 0) {
				comp_advance(qp);
				uint32_t resume = w->opcode == IBV_WR_RDMA_READ ? rt_psn_add(w->first_psn, (int32_t)w->read_pkts)
				                                                : w->first_psn;
				if (!qp->read_gap_armed || qp->read_gap_retried != resume) {
					qp->read_gap_armed = true;
					qp->read_gap_retried = resume;
					retry(qp, resume, RT_RETRY_IMPLIED_NAK);
				}
				return false;
			}
			uint32_t hole = w->opcode == IBV_WR_RDMA_READ ? rt_psn_add(w->first_psn, (int32_t)w->read_pkts)
			                                              : w->first_psn;
			if (rt_psn_diff(upto, hole) >= 0)
				upto = rt_psn_add(hole, -1);
			break;
		}
		if (rt_psn_diff(w->last_psn, psn) > 0)
			break;
		complete_send(qp, w, IBV_WC_SUCCESS);
		moved = true;
	}
	if (rt_psn_diff(upto, qp->una) >= 0 && rt_psn_diff(upto, qp->sq_psn) < 0) {
		uint32_t grow = (uint32_t)rt_psn_diff(upto, qp->una) + 1;
		qp->cwnd = qp->cwnd + grow < qp->ctx->window ? qp->cwnd + grow : qp->ctx->window;
		qp->una = rt_psn_add(upto, 1);
		moved = true;
	}
	comp_advance(qp);
	if (moved)
		progress_made(qp);
	return true;
}

static void handle_read_resp(struct uroce_qp *qp, const struct rt_roce_hdrs *h, const uint8_t *pay, uint32_t len)
{
	uint32_t psn = h->psn;
	if (!ack_upto(qp, rt_psn_add(psn, -1)))
		return;
	if (qp->comp_idx == qp->req_idx)
		return;
	struct uroce_swqe *w = SWQE(qp, qp->comp_idx);
	if (w->opcode != IBV_WR_RDMA_READ || w->state != SWQE_SENT)
		return;
	uint32_t expect = rt_psn_add(w->first_psn, (int32_t)w->read_pkts);
	int32_t d = rt_psn_diff(psn, expect);
	/* responses of one stream arrive in increasing PSN order: one at or below
	   the previous one means the responder restarted (our re-request arrived) */
	bool restarted = qp->rd_seen_valid && rt_psn_diff(psn, qp->rd_last_seen) <= 0;
	qp->rd_last_seen = psn;
	qp->rd_seen_valid = true;
	if (d != 0) {
		/* the responder is alive and still streaming: restart the ACK timer
		   (without crediting progress) so a long burst is not retried early */
		qp->ack_deadline = 0;
		arm_ack_timer(qp);
	}
	if (d < 0)
		return; /* duplicate */
	if (d > 0) {
		/* a response was lost: ask again from the first missing one, once per gap,
		   and again when the restarted stream shows that its first response was
		   lost too (instead of waiting for the ACK timeout) */
		if (!qp->read_gap_armed || qp->read_gap_retried != expect || restarted) {
			qp->read_gap_armed = true;
			qp->read_gap_retried = expect;
			retry(qp, expect, RT_RETRY_IMPLIED_NAK);
		}
		return;
	}
	uint32_t off = w->read_pkts * qp->mtu;
	uint32_t want = w->length - off < qp->mtu ? w->length - off : qp->mtu;
	if (len != want) {
		fail_oldest(qp, IBV_WC_BAD_RESP_ERR);
		return;
	}
	scatter(w->sge, w->num_sge, off, pay, len);
	w->read_pkts++;
	qp->una = rt_psn_add(psn, 1);
	qp->read_gap_armed = false;
	if (w->read_pkts == w->npkts) {
		complete_send(qp, w, IBV_WC_SUCCESS);
		if (qp->rd_outstanding)
			qp->rd_outstanding--;
		comp_advance(qp);
	}
	progress_made(qp);
	uroce_req_progress(qp);
}

static void handle_atomic_ack(struct uroce_qp *qp, const struct rt_roce_hdrs *h)
{
	if (!ack_upto(qp, rt_psn_add(h->psn, -1)))
		return;
	if (qp->comp_idx == qp->req_idx)
		return;
	struct uroce_swqe *w = SWQE(qp, qp->comp_idx);
	if (!is_rdatomic(w->opcode) || w->opcode == IBV_WR_RDMA_READ || w->state != SWQE_SENT || w->first_psn != h->psn)
		return;
	uint64_t orig = h->atomic_orig;
	scatter(w->sge, w->num_sge, 0, (const uint8_t *)&orig, 8);
	complete_send(qp, w, IBV_WC_SUCCESS);
	if (qp->rd_outstanding)
		qp->rd_outstanding--;
	qp->una = rt_psn_add(h->psn, 1);
	comp_advance(qp);
	progress_made(qp);
	uroce_req_progress(qp);
}

static void handle_ack(struct uroce_qp *qp, const struct rt_roce_hdrs *h)
{
	uint8_t syn = h->aeth_syndrome;
	uint32_t psn = h->psn;
	switch (rt_aeth_type(syn)) {
	case RT_AETH_ACK:
		if (ack_upto(qp, psn))
			uroce_req_progress(qp);
		break;
	case RT_AETH_RNR_NAK: {
		if (rt_psn_diff(psn, qp->una) < 0 || !psn_was_sent(qp, psn))
			break; /* stale */
		if (!ack_upto(qp, rt_psn_add(psn, -1)))
			break;
		trace_rnr(qp, psn, (uint8_t)rt_aeth_value(syn), false, qp->rnr_left, false);
		qp->ctx->st.rnr_naks_rcvd++;
		if (qp->rnr_left == 0) {
			fail_oldest(qp, IBV_WC_RNR_RETRY_EXC_ERR);
			break;
		}
		if (qp->rnr_left != 7)
			qp->rnr_left--;
		rewind_to(qp, psn);
		qp->ack_deadline = 0;
		uint64_t us = rt_rnr_timer_us(rt_aeth_value(syn));
		qp->rnr_deadline = uroce_now_ns() + us * 1000ull;
		uroce_timer_update(qp->ctx, qp->rnr_deadline);
		break;
	}
	case RT_AETH_NAK: {
		if (rt_psn_diff(psn, qp->una) < 0 || (rt_psn_diff(psn, qp->sq_psn) > 0 && !psn_was_sent(qp, rt_psn_add(psn, -1))))
			break;
		if (!ack_upto(qp, rt_psn_add(psn, -1)))
			break;
		unsigned code = rt_aeth_value(syn);
		if (code == RT_NAK_PSN_SEQ_ERROR) {
			if (qp->rnr_deadline || (qp->read_gap_armed && qp->read_gap_retried == psn))
				break;
			/* the responder may NAK the same PSN again for packets already in
			   flight; go back for it once until progress is made */
			if (qp->nak_retry_armed && qp->nak_retry_psn == psn)
				break;
			qp->nak_retry_armed = true;
			qp->nak_retry_psn = psn;
			retry(qp, psn, RT_RETRY_NAK_SEQ);
			break;
		}
		enum ibv_wc_status st = code == RT_NAK_INVALID_REQUEST      ? IBV_WC_REM_INV_REQ_ERR
		                        : code == RT_NAK_REMOTE_ACCESS_ERROR ? IBV_WC_REM_ACCESS_ERR
		                        : code == RT_NAK_INVALID_RD_REQUEST  ? IBV_WC_REM_INV_RD_REQ_ERR
		                                                             : IBV_WC_REM_OP_ERR;
		fail_oldest(qp, st);
		break;
	}
	default:
		break;
	}
}

uint64_t uroce_qp_timers(struct uroce_qp *qp, uint64_t now)
{
	if (qp->state == IBV_QPS_ERR || qp->state == IBV_QPS_RESET)
		return 0;
	if (qp->lazy_ack && now >= qp->lazy_ack_due)
		uroce_send_lazy_ack(qp);
	if (qp->rnr_deadline && now >= qp->rnr_deadline) {
		qp->rnr_deadline = 0;
		trace_timer(qp, RT_TIMER_RNR, qp->una, 0);
		trace_retry(qp, qp->sq_psn, RT_RETRY_RNR, 0, qp->rnr_left);
		qp->ctx->st.retry_rnr++;
		uroce_req_progress(qp);
	}
	if (qp->ack_deadline && now >= qp->ack_deadline) {
		qp->ack_deadline = 0;
		if (!qp->rnr_deadline && rt_psn_diff(qp->sq_psn, qp->una) > 0) {
			trace_timer(qp, RT_TIMER_ACK_TIMEOUT, qp->una, (uint32_t)rt_ack_timeout_us(qp->timeout));
			uint32_t resume = qp->una;
			if (qp->comp_idx != qp->req_idx || qp->req_pkt) {
				struct uroce_swqe *w = SWQE(qp, qp->comp_idx);
				if (w->opcode == IBV_WR_RDMA_READ && w->state == SWQE_SENT)
					resume = rt_psn_add(w->first_psn, (int32_t)w->read_pkts);
			}
			qp->read_gap_armed = false;
			qp->nak_retry_armed = false;
			retry(qp, resume, RT_RETRY_ACK_TIMEOUT);
		}
	}
	uint64_t next = qp->rnr_deadline;
	if (qp->ack_deadline && (!next || qp->ack_deadline < next))
		next = qp->ack_deadline;
	/* a parked progress thread looks every millisecond anyway */
	if (qp->lazy_ack && !qp->ctx->pt_parked && (!next || qp->lazy_ack_due < next))
		next = qp->lazy_ack_due;
	return next;
}

/* ------------------------------------------------------------------ */
/* Responder                                                            */

static bool pump_qp(struct uroce_qp *qp, unsigned budget);

/* Responses leave in PSN order: the READ responses still to send for earlier
   requests go before an ACK, NAK or atomic ACK of a later one (the requester
   would take that acknowledgement for lost responses and retry the READ). */
static void finish_read_resps(struct uroce_qp *qp)
{
	if (qp->on_pump_list)
		while (pump_qp(qp, UROCE_TX_BATCH))
			;
}

/* The responder's packets with an AETH and no payload, an ACK/NAK or an
   atomic ACK (orig: the atomic's original value, 0 for the others). */
static void send_aeth_pkt(struct uroce_qp *qp, uint8_t opcode, uint32_t psn, uint8_t syndrome, uint64_t orig)
{
	finish_read_resps(qp);
	struct rt_roce_hdrs h;
	memset(&h, 0, sizeof(h));
	h.opcode = opcode;
	h.dest_qpn = qp->dest_qpn;
	h.psn = psn;
	h.aeth_syndrome = syndrome;
	h.aeth_msn = qp->msn & RT_PSN_MASK;
	h.atomic_orig = orig;
	uroce_tx_packet(qp->ctx, qp, qp->sgid_index, &qp->dst, qp->ah_attr.grh.traffic_class, &h, NULL, 0, 0, 0);
}

static void send_ack_pkt(struct uroce_qp *qp, uint32_t psn, uint8_t syndrome)
{
	send_aeth_pkt(qp, RT_OP_RC_ACKNOWLEDGE, psn, syndrome, 0);
}

static void send_atomic_ack(struct uroce_qp *qp, uint32_t psn, uint64_t orig)
{
	send_aeth_pkt(qp, RT_OP_RC_ATOMIC_ACKNOWLEDGE, psn, ACK_SYN, orig);
}

/* Any ACK up to psn covers the lazy one. */
static void lazy_ack_covered(struct uroce_qp *qp, uint32_t psn)
{
	if (qp->lazy_ack && rt_psn_diff(psn, qp->lazy_ack_psn) >= 0) {
		qp->lazy_ack = false;
		qp->ctx->lazy_acks--;
	}
}

static void queue_ack(struct uroce_qp *qp, uint32_t psn)
{
	if (qp->lazy_ack && rt_psn_diff(qp->lazy_ack_psn, psn) > 0)
		psn = qp->lazy_ack_psn;
	if (qp->ack_pending && rt_psn_diff(psn, qp->ack_pending_psn) < 0)
		return;
	qp->ack_pending = true;
	qp->ack_pending_psn = psn;
	if (!qp->on_ack_list) {
		qp->on_ack_list = true;
		qp->ack_next = qp->ctx->ack_list;
		qp->ctx->ack_list = qp;
	}
}

static void flush_ack(struct uroce_qp *qp)
{
	if (!qp->ack_pending)
		return;
	qp->ack_pending = false;
	send_ack_pkt(qp, qp->ack_pending_psn, ACK_SYN);
	lazy_ack_covered(qp, qp->ack_pending_psn);
}

/* A message that ended without AckReq: acknowledged within UROCE_LAZY_ACK_NS
   (see ack_wanted_now), or by the next ACK this QP sends anyway. */
static void queue_lazy_ack(struct uroce_qp *qp, uint32_t psn)
{
	if (qp->ack_pending) {
		if (rt_psn_diff(psn, qp->ack_pending_psn) > 0)
			qp->ack_pending_psn = psn; /* the ACK already due covers this message too */
		return;
	}
	if (!qp->lazy_ack) {
		qp->lazy_ack = true;
		qp->lazy_ack_due = uroce_now_ns() + UROCE_LAZY_ACK_NS;
		qp->ctx->lazy_acks++;
		uroce_lazy_ack_timer(qp->ctx, qp->lazy_ack_due);
	}
	qp->lazy_ack_psn = psn;
}

/* Send this QP's lazy ACK now (due, or before the QP changes or goes away). */
void uroce_send_lazy_ack(struct uroce_qp *qp)
{
	if (!qp->lazy_ack)
		return;
	uint32_t psn = qp->lazy_ack_psn;
	lazy_ack_covered(qp, psn);
	if (qp->state != IBV_QPS_ERR && qp->state != IBV_QPS_RESET) {
		send_ack_pkt(qp, psn, ACK_SYN);
		qp->ctx->st.lazy_acks_sent++;
	}
}

/* Queue every lazy ACK of the context (the caller flushes). */
void uroce_send_lazy_acks(struct uroce_ctx *ctx)
{
	for (unsigned b = 0; b < UROCE_QP_HASH && ctx->lazy_acks; b++)
		for (struct uroce_qp *qp = ctx->qp_hash[b]; qp; qp = qp->hnext)
			uroce_send_lazy_ack(qp);
}

void uroce_send_pending_acks(struct uroce_ctx *ctx)
{
	while (ctx->ack_list) {
		struct uroce_qp *qp = ctx->ack_list;
		ctx->ack_list = qp->ack_next;
		qp->on_ack_list = false;
		qp->ack_next = NULL;
		if (qp->state != IBV_QPS_ERR && qp->state != IBV_QPS_RESET)
			flush_ack(qp);
		else
			qp->ack_pending = false;
	}
	ctx->acks_held_until = 0;
	__atomic_store_n(&ctx->acks_held, 0, __ATOMIC_RELAXED);
}

static void send_nak(struct uroce_qp *qp, uint32_t psn, uint8_t syndrome)
{
	flush_ack(qp);
	send_ack_pkt(qp, psn, syndrome);
}

/* A responder class C error: NAK, then the QP goes to ERR (rxe). */
static void resp_fatal(struct uroce_qp *qp, uint32_t psn, unsigned code)
{
	send_nak(qp, psn, NAK_SYN(code));
	uroce_qp_to_error(qp);
}

static struct uroce_rwqe *get_rwqe(struct uroce_qp *qp)
{
	if (qp->have_rwqe)
		return &qp->cur_rwqe_store;
	struct uroce_rq *rq = qp->srq ? &qp->srq->rq : &qp->rq;
	if (rq->tail == rq->head)
		return NULL;
	qp->cur_rwqe_store = rq->ring[rq->tail & rq->mask];
	rq->tail++;
	qp->have_rwqe = true;
	if (qp->srq && qp->srq->limit && rq->head - rq->tail < qp->srq->limit) {
		qp->srq->limit = 0;
		uroce_async_event(qp->ctx, IBV_EVENT_SRQ_LIMIT_REACHED, qp->srq);
	}
	return &qp->cur_rwqe_store;
}

static bool rq_empty(struct uroce_qp *qp)
{
	if (qp->have_rwqe)
		return false;
	struct uroce_rq *rq = qp->srq ? &qp->srq->rq : &qp->rq;
	return rq->tail == rq->head;
}

/* A WRITE packet's payload (RC and UC): placed where the message is up to. */
static void write_place(struct uroce_qp *qp, const uint8_t *pay, uint32_t len)
{
	if (len) {
		memcpy(qp->wr_ptr, pay, len);
		qp->wr_ptr += len;
		qp->wr_left -= len;
	}
}

/* The last packet of a WRITE message (RC and UC): one with immediate data
   consumes a receive WR. */
static void write_done(struct uroce_qp *qp, const struct rt_roce_hdrs *h, const struct rt_opcode_info *oi)
{
	if (oi->has_imm) {
		struct uroce_rwqe *r = get_rwqe(qp);
		complete_recv(qp, r, IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM, qp->wr_total, IBV_WC_WITH_IMM,
		              h->imm_be, qp->dest_qpn, h->se);
		qp->have_rwqe = false;
	}
	qp->in_msg = 0;
}

/* A request of PSN psn that needs a receive WR: answered with an RNR NAK
   (true) when the receive queue is empty, or when a fault rule says so while
   a receive WR is there (traced as injected); the rest of its message is then
   dropped quietly. */
static bool rnr_needed(struct uroce_qp *qp, uint32_t psn)
{
	bool empty = rq_empty(qp);
	if (!empty && !(qp->ctx->nfaults && !qp->have_rwqe && uroce_fault_rnr(qp->ctx, qp->ibqp.qp_num, psn)))
		return false;
	send_nak(qp, psn, rt_aeth_syndrome(RT_AETH_RNR_NAK, qp->min_rnr_timer));
	qp->nak_sent = true;
	trace_rnr(qp, psn, qp->min_rnr_timer, true, 0, !empty);
	qp->ctx->st.rnr_naks_sent++;
	return true;
}

/* rkey, access and bounds; returns the host address or NULL. */
static uint8_t *check_rkey(struct uroce_qp *qp, uint32_t rkey, uint64_t va, uint64_t len, unsigned need)
{
	if (!(qp->access & need))
		return NULL;
	struct uroce_mr *mr = uroce_mr_lookup(qp->ctx, rkey);
	if (!mr || mr->ibmr.rkey != rkey || !(mr->access & need) || mr->ibmr.pd != qp->ibqp.pd)
		return NULL;
	if (va < mr->iova || len > mr->ibmr.length || va - mr->iova > mr->ibmr.length - len)
		return NULL;
	return (uint8_t *)mr->ibmr.addr + (va - mr->iova);
}

static struct uroce_res *new_res(struct uroce_qp *qp)
{
	unsigned n = qp->max_dest_rd_atomic ? qp->max_dest_rd_atomic : 1;
	struct uroce_res *r = &qp->res[qp->res_next % n];
	qp->res_next = (qp->res_next + 1) % n;
	return r;
}

/* Start (or restart, for a retried request) the responses of resource r at psn;
   uroce_pump_reads sends them a slice at a time so requests keep being served. */
static void start_read_resps(struct uroce_qp *qp, struct uroce_res *r, uint32_t from_psn)
{
	r->cur = (uint32_t)rt_psn_diff(from_psn, r->first_psn);
	r->from = r->cur;
	r->sending = true;
	if (!qp->on_pump_list) {
		qp->on_pump_list = true;
		qp->pump_next = qp->ctx->pump_list;
		qp->ctx->pump_list = qp;
	}
}

/* Send up to budget read responses of qp, oldest request first; true when more remain. */
static bool pump_qp(struct uroce_qp *qp, unsigned budget)
{
	unsigned nres = qp->max_dest_rd_atomic ? qp->max_dest_rd_atomic : 1;
	while (budget) {
		struct uroce_res *r = NULL;
		for (unsigned i = 0; i < nres; i++) {
			struct uroce_res *x = &qp->res[i];
			if (x->valid && x->sending && (!r || rt_psn_diff(x->first_psn, r->first_psn) < 0))
				r = x;
		}
		if (!r)
			return false;
		uint32_t n = (uint32_t)rt_psn_diff(r->last_psn, r->first_psn) + 1;
		uint8_t *base = check_rkey(qp, r->rkey, r->va, r->len, IBV_ACCESS_REMOTE_READ);
		if (!base && r->len) {
			r->sending = false; /* the MR went away: nothing to send */
			continue;
		}
		for (; r->cur < n && budget; r->cur++, budget--) {
			uint32_t k = r->cur;
			struct rt_roce_hdrs h;
			memset(&h, 0, sizeof(h));
			h.dest_qpn = qp->dest_qpn;
			h.psn = rt_psn_add(r->first_psn, (int32_t)k);
			uint32_t off = k * qp->mtu;
			uint32_t len = r->len > off ? r->len - off : 0;
			if (len > qp->mtu)
				len = qp->mtu;
			bool first = k == r->from, last = k + 1 == n;
			if (first && last)
				h.opcode = RT_OP_RC_READ_RESPONSE_ONLY;
			else if (first && k == 0)
				h.opcode = RT_OP_RC_READ_RESPONSE_FIRST;
			else if (last)
				h.opcode = RT_OP_RC_READ_RESPONSE_LAST;
			else
				h.opcode = RT_OP_RC_READ_RESPONSE_MIDDLE;
			h.aeth_syndrome = ACK_SYN;
			h.aeth_msn = qp->msn & RT_PSN_MASK;
			struct uroce_sge sg = { base ? base + off : NULL, len };
			uroce_tx_packet(qp->ctx, qp, qp->sgid_index, &qp->dst, qp->ah_attr.grh.traffic_class, &h, &sg,
			                len ? 1 : 0, len, 0);
		}
		if (r->cur >= n)
			r->sending = false;
	}
	return true;
}

bool uroce_pump_reads(struct uroce_ctx *ctx, unsigned budget)
{
	struct uroce_qp **pp = &ctx->pump_list;
	bool more = false;
	while (*pp) {
		struct uroce_qp *qp = *pp;
		bool live = qp->state != IBV_QPS_ERR && qp->state != IBV_QPS_RESET;
		if (live && pump_qp(qp, budget)) {
			more = true;
			pp = &qp->pump_next;
		} else {
			*pp = qp->pump_next;
			qp->on_pump_list = false;
			qp->pump_next = NULL;
		}
	}
	return more;
}

static void resp_duplicate(struct uroce_qp *qp, const struct rt_roce_hdrs *h, const struct rt_opcode_info *oi)
{
	unsigned n = qp->max_dest_rd_atomic ? qp->max_dest_rd_atomic : 1;
	if (oi->op_class == RT_CLASS_SEND || oi->op_class == RT_CLASS_WRITE) {
		if (h->ackreq)
			queue_ack(qp, rt_psn_add(qp->epsn, -1));
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		struct uroce_res *r = &qp->res[i];
		if (!r->valid)
			continue;
		if (oi->op_class == RT_CLASS_ATOMIC) {
			if (r->atomic && r->first_psn == h->psn) {
				flush_ack(qp);
				send_atomic_ack(qp, h->psn, r->orig);
			}
			continue;
		}
		if (oi->op_class == RT_CLASS_READ_REQ && !r->atomic && rt_psn_diff(h->psn, r->first_psn) >= 0 &&
		    rt_psn_diff(h->psn, r->last_psn) <= 0) {
			uint64_t off = (uint64_t)rt_psn_diff(h->psn, r->first_psn) * qp->mtu;
			if (h->reth_rkey != r->rkey || h->reth_va != r->va + off || (uint64_t)h->reth_len + off != r->len)
				return; /* not a retry of this request: drop silently (rxe) */
			flush_ack(qp);
			start_read_resps(qp, r, h->psn);
			return;
		}
	}
}

static void resp_rc(struct uroce_qp *qp, const struct rt_roce_hdrs *h, const struct rt_opcode_info *oi,
                    const uint8_t *pay, uint32_t len)
{
	int32_t d = rt_psn_diff(h->psn, qp->epsn);
	if (d > 0) {
		/* NAK once per expected PSN, then drop out-of-order packets quietly
		   until it arrives (rxe; a lost NAK is recovered by the requester's
		   local ACK timeout) */
		if (!qp->nak_sent) {
			qp->nak_sent = true;
			send_nak(qp, qp->epsn, NAK_SYN(RT_NAK_PSN_SEQ_ERROR));
			qp->ctx->st.seq_naks_sent++;
		}
		return;
	}
	if (d < 0) {
		resp_duplicate(qp, h, oi);
		return;
	}
	unsigned cls = oi->op_class, pos = oi->position;
	/* opcode sequence */
	if (qp->in_msg) {
		if ((int)cls != qp->in_msg || (pos != RT_POS_MIDDLE && pos != RT_POS_LAST)) {
			resp_fatal(qp, h->psn, RT_NAK_INVALID_REQUEST);
			return;
		}
	} else if (pos == RT_POS_MIDDLE || pos == RT_POS_LAST) {
		resp_fatal(qp, h->psn, RT_NAK_INVALID_REQUEST);
		return;
	}
	if (((pos == RT_POS_FIRST || pos == RT_POS_MIDDLE) && len != qp->mtu) ||
	    (pos == RT_POS_LAST && (len == 0 || len > qp->mtu)) || (pos == RT_POS_ONLY && len > qp->mtu)) {
		resp_fatal(qp, h->psn, RT_NAK_INVALID_REQUEST);
		return;
	}
	bool need_rwqe = (cls == RT_CLASS_SEND && (pos == RT_POS_FIRST || pos == RT_POS_ONLY)) ||
	                 (cls == RT_CLASS_WRITE && oi->has_imm);
	if (cls == RT_CLASS_WRITE && (pos == RT_POS_FIRST || pos == RT_POS_ONLY)) {
		uint8_t *p = NULL;
		if (h->reth_len) {
			p = check_rkey(qp, h->reth_rkey, h->reth_va, h->reth_len, IBV_ACCESS_REMOTE_WRITE);
			if (!p) {
				resp_fatal(qp, h->psn, RT_NAK_REMOTE_ACCESS_ERROR);
				return;
			}
		} else if (!(qp->access & IBV_ACCESS_REMOTE_WRITE)) {
			resp_fatal(qp, h->psn, RT_NAK_REMOTE_ACCESS_ERROR);
			return;
		}
		if (need_rwqe && rnr_needed(qp, h->psn))
			return;
		qp->wr_ptr = p;
		qp->wr_left = h->reth_len;
		qp->wr_total = h->reth_len;
	} else if (need_rwqe && rnr_needed(qp, h->psn)) {
		return;
	}
	switch (cls) {
	case RT_CLASS_SEND: {
		struct uroce_rwqe *r = get_rwqe(qp);
		if (pos == RT_POS_FIRST || pos == RT_POS_ONLY)
			qp->msg_off = 0;
		if (!scatter(r->sge, r->num_sge, qp->msg_off, pay, len)) {
			complete_recv(qp, r, IBV_WC_LOC_LEN_ERR, IBV_WC_RECV, 0, 0, 0, qp->dest_qpn, false);
			qp->have_rwqe = false;
			resp_fatal(qp, h->psn, RT_NAK_INVALID_REQUEST);
			return;
		}
		qp->msg_off += len;
		if (pos == RT_POS_LAST || pos == RT_POS_ONLY) {
			unsigned flags = 0;
			uint32_t imm = 0;
			if (oi->has_imm) {
				flags |= IBV_WC_WITH_IMM;
				imm = h->imm_be;
			} else if (oi->headers & RT_HDR_IETH) {
				flags |= IBV_WC_WITH_INV;
				imm = h->ieth_rkey;
			}
			complete_recv(qp, r, IBV_WC_SUCCESS, IBV_WC_RECV, qp->msg_off, flags, imm, qp->dest_qpn, h->se);
			qp->have_rwqe = false;
			qp->in_msg = 0;
			qp->msn++;
		} else {
			qp->in_msg = RT_CLASS_SEND;
		}
		break;
	}
	case RT_CLASS_WRITE:
		if (len > qp->wr_left) {
			resp_fatal(qp, h->psn, RT_NAK_INVALID_REQUEST);
			return;
		}
		write_place(qp, pay, len);
		if (pos == RT_POS_LAST || pos == RT_POS_ONLY) {
			if (qp->wr_left) {
				resp_fatal(qp, h->psn, RT_NAK_INVALID_REQUEST);
				return;
			}
			write_done(qp, h, oi);
			qp->msn++;
		} else {
			qp->in_msg = RT_CLASS_WRITE;
		}
		break;
	case RT_CLASS_READ_REQ: {
		if (!qp->max_dest_rd_atomic) {
			resp_fatal(qp, h->psn, RT_NAK_INVALID_REQUEST);
			return;
		}
		if (h->reth_len && !check_rkey(qp, h->reth_rkey, h->reth_va, h->reth_len, IBV_ACCESS_REMOTE_READ)) {
			resp_fatal(qp, h->psn, RT_NAK_REMOTE_ACCESS_ERROR);
			return;
		}
		if (!h->reth_len && !(qp->access & IBV_ACCESS_REMOTE_READ)) {
			resp_fatal(qp, h->psn, RT_NAK_REMOTE_ACCESS_ERROR);
			return;
		}
		uint32_t n = rt_packets_for(h->reth_len, qp->mtu);
		struct uroce_res *r = new_res(qp);
		r->valid = true;
		r->atomic = false;
		r->sending = false;
		r->first_psn = h->psn;
		r->last_psn = rt_psn_add(h->psn, (int32_t)n - 1);
		r->va = h->reth_va;
		r->rkey = h->reth_rkey;
		r->len = h->reth_len;
		qp->msn++;
		qp->epsn = rt_psn_add(h->psn, (int32_t)n);
		qp->nak_sent = false;
		flush_ack(qp);
		start_read_resps(qp, r, h->psn);
		return;
	}
	case RT_CLASS_ATOMIC: {
		if (!qp->max_dest_rd_atomic || (h->atomic_va & 7)) {
			resp_fatal(qp, h->psn, RT_NAK_INVALID_REQUEST);
			return;
		}
		uint8_t *p = check_rkey(qp, h->atomic_rkey, h->atomic_va, 8, IBV_ACCESS_REMOTE_ATOMIC);
		if (!p) {
			resp_fatal(qp, h->psn, RT_NAK_REMOTE_ACCESS_ERROR);
			return;
		}
		uint64_t *target = (uint64_t *)(void *)p, orig;
		if (h->opcode == RT_OP_RC_COMPARE_SWAP) {
			orig = h->atomic_compare;
			if (!__atomic_compare_exchange_n(target, &orig, h->atomic_swap_add, false, __ATOMIC_SEQ_CST,
			                                 __ATOMIC_SEQ_CST)) {
				/* orig now holds the current value */
			}
		} else {
			orig = __atomic_fetch_add(target, h->atomic_swap_add, __ATOMIC_SEQ_CST);
		}
		struct uroce_res *r = new_res(qp);
		r->valid = true;
		r->atomic = true;
		r->sending = false;
		r->first_psn = r->last_psn = h->psn;
		r->orig = orig;
		qp->msn++;
		qp->epsn = rt_psn_add(h->psn, 1);
		qp->ack_psn = qp->epsn;
		qp->nak_sent = false;
		flush_ack(qp);
		send_atomic_ack(qp, h->psn, orig);
		return;
	}
	default:
		resp_fatal(qp, h->psn, RT_NAK_INVALID_REQUEST);
		return;
	}
	qp->epsn = rt_psn_add(h->psn, 1);
	qp->nak_sent = false;
	if (!qp->in_msg)
		qp->ack_psn = qp->epsn;
	if (h->ackreq)
		queue_ack(qp, h->psn);
	else if (!qp->in_msg)
		queue_lazy_ack(qp, h->psn);
}

static void resp_uc(struct uroce_qp *qp, const struct rt_roce_hdrs *h, const struct rt_opcode_info *oi,
                    const uint8_t *pay, uint32_t len)
{
	unsigned cls = oi->op_class, pos = oi->position;
	bool starts = pos == RT_POS_FIRST || pos == RT_POS_ONLY;
	if (h->psn != qp->epsn || (qp->in_msg && (starts || (int)cls != qp->in_msg))) {
		/* gap or broken sequence: the message in progress is lost; its WQE is reused */
		qp->in_msg = 0;
		qp->uc_drop = !starts;
	}
	qp->epsn = rt_psn_add(h->psn, 1);
	if (qp->uc_drop && !starts)
		return;
	qp->uc_drop = false;
	if (!qp->in_msg && !starts) {
		qp->uc_drop = true;
		return;
	}
	if (((pos == RT_POS_FIRST || pos == RT_POS_MIDDLE) && len != qp->mtu) || len > qp->mtu) {
		qp->in_msg = 0;
		qp->uc_drop = true;
		return;
	}
	if (cls == RT_CLASS_SEND) {
		if (starts)
			qp->msg_off = 0;
		struct uroce_rwqe *r = get_rwqe(qp);
		if (!r || !scatter(r->sge, r->num_sge, qp->msg_off, pay, len)) {
			if (r) {
				complete_recv(qp, r, IBV_WC_LOC_LEN_ERR, IBV_WC_RECV, 0, 0, 0, qp->dest_qpn, false);
				qp->have_rwqe = false;
			}
			qp->in_msg = 0;
			qp->uc_drop = true;
			return;
		}
		qp->msg_off += len;
		if (pos == RT_POS_LAST || pos == RT_POS_ONLY) {
			complete_recv(qp, r, IBV_WC_SUCCESS, IBV_WC_RECV, qp->msg_off, oi->has_imm ? IBV_WC_WITH_IMM : 0,
			              oi->has_imm ? h->imm_be : 0, qp->dest_qpn, h->se);
			qp->have_rwqe = false;
			qp->in_msg = 0;
		} else {
			qp->in_msg = RT_CLASS_SEND;
		}
		return;
	}
	if (cls != RT_CLASS_WRITE)
		return;
	if (starts) {
		uint8_t *p = NULL;
		if (h->reth_len) {
			p = check_rkey(qp, h->reth_rkey, h->reth_va, h->reth_len, IBV_ACCESS_REMOTE_WRITE);
			if (!p) {
				qp->uc_drop = true;
				return;
			}
		}
		qp->wr_ptr = p;
		qp->wr_left = qp->wr_total = h->reth_len;
	}
	if (len > qp->wr_left) {
		qp->in_msg = 0;
		qp->uc_drop = true;
		return;
	}
	if (oi->has_imm && rq_empty(qp)) {
		qp->in_msg = 0;
		return;
	}
	write_place(qp, pay, len);
	if (pos == RT_POS_LAST || pos == RT_POS_ONLY)
		write_done(qp, h, oi);
	else
		qp->in_msg = RT_CLASS_WRITE;
}

/* The 40-byte GRH area of a UD receive: IPv4 = 20 zero bytes + the IPv4 header, IPv6 = its header. */
static void make_grh(uint8_t *g, const struct sockaddr_storage *src, const struct sockaddr_storage *dst,
                     uint32_t udp_len)
{
	memset(g, 0, 40);
	if (src->ss_family == AF_INET) {
		uint8_t *ip = g + 20;
		uint16_t tot = (uint16_t)(20 + 8 + udp_len);
		ip[0] = 0x45;
		ip[2] = (uint8_t)(tot >> 8);
		ip[3] = (uint8_t)tot;
		ip[6] = 0x40;
		ip[8] = 64;
		ip[9] = 17;
		memcpy(ip + 12, &((const struct sockaddr_in *)src)->sin_addr, 4);
		memcpy(ip + 16, &((const struct sockaddr_in *)dst)->sin_addr, 4);
		uint32_t sum = 0;
		for (int i = 0; i < 20; i += 2)
			sum += (uint32_t)ip[i] << 8 | ip[i + 1];
		while (sum >> 16)
			sum = (sum & 0xFFFF) + (sum >> 16);
		sum = ~sum & 0xFFFF;
		ip[10] = (uint8_t)(sum >> 8);
		ip[11] = (uint8_t)sum;
	} else {
		uint16_t pl = (uint16_t)(8 + udp_len);
		g[0] = 0x60;
		g[4] = (uint8_t)(pl >> 8);
		g[5] = (uint8_t)pl;
		g[6] = 17;
		g[7] = 64;
		memcpy(g + 8, &((const struct sockaddr_in6 *)src)->sin6_addr, 16);
		memcpy(g + 24, &((const struct sockaddr_in6 *)dst)->sin6_addr, 16);
	}
}

static void resp_ud(struct uroce_qp *qp, int aidx, const struct sockaddr_storage *src, const struct rt_roce_hdrs *h,
                    const struct rt_opcode_info *oi, const uint8_t *pay, uint32_t len, uint32_t udp_len)
{
	if (h->deth_qkey != qp->qkey) {
		qp->ctx->st.rx_dropped++;
		return;
	}
	struct uroce_rwqe *r = get_rwqe(qp);
	if (!r) {
		qp->ctx->st.rx_dropped++;
		return;
	}
	qp->have_rwqe = false;
	uint8_t grh[40];
	make_grh(grh, src, &qp->ctx->addrs[aidx].sa, udp_len);
	if (!scatter(r->sge, r->num_sge, 0, grh, 40) || !scatter(r->sge, r->num_sge, 40, pay, len)) {
		complete_recv(qp, r, IBV_WC_LOC_LEN_ERR, IBV_WC_RECV, 0, 0, 0, h->deth_src_qp, false);
		return;
	}
	unsigned flags = IBV_WC_GRH | (oi->has_imm ? IBV_WC_WITH_IMM : 0);
	complete_recv(qp, r, IBV_WC_SUCCESS, IBV_WC_RECV, len + 40, flags, oi->has_imm ? h->imm_be : 0,
	              h->deth_src_qp, h->se);
}

/* The transport headers of a received packet (without its ICRC) and its
 * payload length; false for one too short or of an unknown version. */
static bool parse_rx(const uint8_t *pkt, size_t len, struct rt_roce_hdrs *h, int *hl, uint32_t *paylen)
{
	*hl = rt_roce_parse_transport(pkt, len, h);
	if (*hl < 0 || (pkt[1] & 0x0F) != 0)
		return false;
	unsigned pad = (pkt[1] >> 4) & 3;
	if ((size_t)*hl + pad > len)
		return false;
	*paylen = (uint32_t)(len - (size_t)*hl - pad);
	return true;
}

void uroce_rx_bad_icrc(struct uroce_ctx *ctx, const uint8_t *pkt, size_t len)
{
	struct rt_roce_hdrs h;
	int hl;
	uint32_t paylen;
	if (!parse_rx(pkt, len, &h, &hl, &paylen))
		return;
	if (h.dest_qpn == 1 ? ctx->gsi_fn != NULL : uroce_qp_lookup(ctx, h.dest_qpn) != NULL)
		uroce_trace_drop(h.dest_qpn, &h, paylen, RT_PKT_DROP_BAD_ICRC, 0, false);
}

void uroce_rx_packet(struct uroce_ctx *ctx, int aidx, const struct sockaddr_storage *src, const uint8_t *pkt,
                     size_t len)
{
	struct rt_roce_hdrs h;
	int hl;
	uint32_t paylen;
	if (!parse_rx(pkt, len, &h, &hl, &paylen)) {
		ctx->st.rx_dropped++;
		return;
	}
	const struct rt_opcode_info *oi = rt_opcode_info(h.opcode);
	const uint8_t *pay = pkt + hl;
	if (h.dest_qpn == 1) {
		if (h.opcode == RT_OP_UD_SEND_ONLY && h.deth_qkey == RT_GSI_QKEY) {
			if (ctx->gsi_fn) {
				uroce_trace_packet(1, &h, paylen, 0, 0, false);
				uroce_gsi_deliver(ctx, aidx, src, pay, paylen);
			} else if (uroce_gsi_forward(ctx, aidx, src, pay, paylen)) {
				uroce_trace_packet(1, &h, paylen, 0, 0, false);
			} else {
				ctx->st.rx_dropped++; /* no CM in this process */
			}
		} else {
			ctx->st.rx_dropped++;
		}
		return;
	}
	struct uroce_qp *qp = uroce_qp_lookup(ctx, h.dest_qpn);
	if (!qp) {
		enum uroce_fwd f = uroce_forward(ctx, aidx, src, pkt, len, h.dest_qpn);
		if (f != UROCE_FWD_DONE)
			ctx->st.rx_dropped++;
		if (f == UROCE_FWD_BUSY) /* (QP numbers are the process's: the trace names the right QP) */
			uroce_trace_drop(h.dest_qpn, &h, paylen, RT_PKT_DROP_BUSY, 0, false);
		return;
	}
	uint32_t qpn = qp->ibqp.qp_num;
	if (ctx->nfaults) {
		uint32_t us;
		if (uroce_fault_check(ctx, 1, qpn, 0, &h, false, &us) == UROCE_FA_DROP) {
			ctx->st.rx_fault_drops++;
			uroce_trace_drop(qpn, &h, paylen, RT_PKT_DROP_INJECTED, 0, false);
			return;
		}
	}
	enum rt_transport tr = rt_opcode_transport(h.opcode);
	enum ibv_qp_type t = qp->ibqp.qp_type;
	bool dup = false;
	if (t == IBV_QPT_RC && oi->op_class != RT_CLASS_ACK && oi->op_class != RT_CLASS_READ_RESP &&
	    oi->op_class != RT_CLASS_ATOMIC_ACK)
		dup = rt_psn_diff(h.psn, qp->epsn) < 0;
	if (dup)
		ctx->st.duplicates_rcvd++;
	uroce_trace_packet(qpn, &h, paylen, dup ? RT_PKTF_DUPLICATE : 0, 0, false);
	if ((t == IBV_QPT_RC && tr != RT_TRANSPORT_RC) || (t == IBV_QPT_UC && tr != RT_TRANSPORT_UC) ||
	    (t == IBV_QPT_UD && tr != RT_TRANSPORT_UD)) {
		ctx->st.rx_dropped++;
		return;
	}
	switch (oi->op_class) {
	case RT_CLASS_ACK:
	case RT_CLASS_READ_RESP:
	case RT_CLASS_ATOMIC_ACK:
		if (qp->state != IBV_QPS_RTS && qp->state != IBV_QPS_SQD && qp->state != IBV_QPS_SQE)
			return;
		if (oi->op_class == RT_CLASS_ACK)
			handle_ack(qp, &h);
		else if (oi->op_class == RT_CLASS_READ_RESP)
			handle_read_resp(qp, &h, pay, paylen);
		else
			handle_atomic_ack(qp, &h);
		return;
	default:
		break;
	}
	if (qp->state != IBV_QPS_RTR && qp->state != IBV_QPS_RTS && qp->state != IBV_QPS_SQD &&
	    qp->state != IBV_QPS_SQE)
		return;
	if (t == IBV_QPT_RC)
		resp_rc(qp, &h, oi, pay, paylen);
	else if (t == IBV_QPT_UC)
		resp_uc(qp, &h, oi, pay, paylen);
	else
		resp_ud(qp, aidx, src, &h, oi, pay, paylen, (uint32_t)len + RT_ICRC_LEN);
}

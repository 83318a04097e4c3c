/*
 * Queue pairs: creation (ibv_create_qp, ibv_create_qp_ex with the ibv_wr_*
 * builder), the state machine (ibv_modify_qp with IBTA's required/optional
 * attribute masks per transition and QP type, as the kernel's
 * ib_modify_qp_is_ok defines them), ibv_query_qp, destruction, and the
 * post_send / post_recv entry points that validate work requests and queue
 * them for the transport.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "uroce.h"

#include "rdmatrace/qp_rules.h"

/* rdmatrace/qp_rules.h spells libibverbs' mask bits itself */
_Static_assert((unsigned)RT_QPA_AV == (unsigned)IBV_QP_AV && (unsigned)RT_QPA_DEST_QPN == (unsigned)IBV_QP_DEST_QPN &&
                       (unsigned)RT_QPA_PATH_MIG_STATE == (unsigned)IBV_QP_PATH_MIG_STATE &&
                       (unsigned)RT_QPA_EN_SQD_ASYNC_NOTIFY == (unsigned)IBV_QP_EN_SQD_ASYNC_NOTIFY,
               "QP attribute mask bits");

static void qp_hash_add(struct uroce_ctx *ctx, struct uroce_qp *qp)
{
	unsigned b = qp->ibqp.qp_num & (UROCE_QP_HASH - 1);
	qp->hnext = ctx->qp_hash[b];
	ctx->qp_hash[b] = qp;
	ctx->nqps++;
}

static void qp_hash_del(struct uroce_ctx *ctx, struct uroce_qp *qp)
{
	unsigned b = qp->ibqp.qp_num & (UROCE_QP_HASH - 1);
	for (struct uroce_qp **pp = &ctx->qp_hash[b]; *pp; pp = &(*pp)->hnext)
		if (*pp == qp) {
			*pp = qp->hnext;
			ctx->nqps--;
			return;
		}
}

struct uroce_qp *uroce_qp_lookup(struct uroce_ctx *ctx, uint32_t qpn)
{
	for (struct uroce_qp *qp = ctx->qp_hash[qpn & (UROCE_QP_HASH - 1)]; qp; qp = qp->hnext)
		if (qp->ibqp.qp_num == qpn)
			return qp;
	return NULL;
}

static unsigned pow2_at_least(unsigned n)
{
	unsigned p = 1;
	while (p < n)
		p <<= 1;
	return p;
}

void uroce_qp_trace_state(struct uroce_qp *qp, enum ibv_qp_state from, int mask, int result)
{
	struct rt_event *ev = uroce_ev_begin(RT_EV_QP_STATE, qp->ibqp.qp_num);
	if (!ev)
		return;
	struct rt_ev_qp_state *s = &ev->u.qp_state;
	if (result)
		ev->flags |= RT_EVF_ERROR;
	s->attr_mask = (uint32_t)mask;
	s->sq_psn = qp->post_psn;
	s->rq_psn = qp->epsn;
	s->dest_qpn = qp->dest_qpn;
	s->qkey = qp->qkey;
	s->from_state = (uint8_t)from;
	s->to_state = (uint8_t)qp->state;
	s->qp_type = (uint8_t)qp->ibqp.qp_type;
	s->path_mtu = (uint8_t)qp->mtu_enum;
	s->timeout = qp->timeout;
	s->retry_cnt = qp->retry_cnt;
	s->rnr_retry = qp->rnr_retry;
	s->min_rnr_timer = qp->min_rnr_timer;
	s->max_rd_atomic = qp->max_rd_atomic;
	s->max_dest_rd_atomic = qp->max_dest_rd_atomic;
	s->port_num = qp->port_num;
	s->sgid_index = qp->sgid_index;
	s->result = result;
	uroce_ev_commit(ev);
}

void uroce_qp_to_error(struct uroce_qp *qp)
{
	if (qp->state == IBV_QPS_ERR)
		return;
	enum ibv_qp_state from = qp->state;
	qp->state = IBV_QPS_ERR;
	qp->ibqp.state = IBV_QPS_ERR;
	uroce_qp_flush(qp);
	uroce_qp_trace_state(qp, from, 0, 0);
}

static void trace_qp_create(struct uroce_qp *qp, bool destroy)
{
	struct rt_event *ev = uroce_ev_begin(RT_EV_QP_CREATE, qp->ibqp.qp_num);
	if (!ev)
		return;
	if (destroy)
		ev->flags |= RT_EVF_DESTROY;
	struct rt_ev_qp_create *c = &ev->u.qp_create;
	c->send_cq_id = qp->scq ? qp->scq->id : 0;
	c->recv_cq_id = qp->rcq ? qp->rcq->id : 0;
	c->srq_num = qp->srq ? qp->srq->num : 0;
	c->pd_id = to_upd(qp->ibqp.pd)->id;
	c->max_send_wr = qp->cap.max_send_wr;
	c->max_recv_wr = qp->cap.max_recv_wr;
	c->max_inline = qp->cap.max_inline_data;
	c->max_send_sge = (uint16_t)qp->cap.max_send_sge;
	c->max_recv_sge = (uint16_t)qp->cap.max_recv_sge;
	c->qp_type = (uint8_t)qp->ibqp.qp_type;
	c->sq_sig_all = (uint8_t)qp->sq_sig_all;
	c->extended = qp->extended;
	uroce_ev_commit(ev);
}

static struct ibv_qp *create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *a, bool extended, uint64_t send_ops)
{
	static uint32_t next_qpn = 0x10;
	if (!pd || !a || !a->send_cq || (!a->recv_cq && !a->srq)) {
		errno = EINVAL;
		return NULL;
	}
	if (a->qp_type != IBV_QPT_RC && a->qp_type != IBV_QPT_UC && a->qp_type != IBV_QPT_UD) {
		uroce_warn_once("ibv_create_qp(type other than RC/UC/UD)", "uroce implements RC, UC and UD");
		errno = EOPNOTSUPP;
		return NULL;
	}
	struct ibv_qp_cap *cap = &a->cap;
	if (cap->max_send_wr > UROCE_MAX_QP_WR || cap->max_send_sge > UROCE_MAX_SGE ||
	    cap->max_inline_data > UROCE_MAX_INLINE ||
	    (!a->srq && (cap->max_recv_wr > UROCE_MAX_QP_WR || cap->max_recv_sge > UROCE_MAX_SGE))) {
		errno = EINVAL;
		return NULL;
	}
	struct ibv_context *ibctx = pd->context;
	struct uroce_ctx *ctx = to_uctx(ibctx);
	struct uroce_qp *qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	unsigned sqn = pow2_at_least(cap->max_send_wr ? cap->max_send_wr : 1);
	qp->sq = calloc(sqn, sizeof(*qp->sq));
	qp->sq_mask = sqn - 1;
	if (!a->srq) {
		unsigned rqn = pow2_at_least(cap->max_recv_wr ? cap->max_recv_wr : 1);
		qp->rq.ring = calloc(rqn, sizeof(*qp->rq.ring));
		qp->rq.mask = rqn - 1;
		qp->rq.max_wr = rqn;
		qp->rq.max_sge = cap->max_recv_sge ? cap->max_recv_sge : 1;
	}
	if (!qp->sq || (!a->srq && !qp->rq.ring)) {
		free(qp->sq);
		free(qp->rq.ring);
		free(qp);
		errno = ENOMEM;
		return NULL;
	}
	cap->max_send_wr = sqn;
	if (!cap->max_send_sge)
		cap->max_send_sge = 1;
	if (!a->srq) {
		cap->max_recv_wr = qp->rq.max_wr;
		cap->max_recv_sge = qp->rq.max_sge;
	} else {
		cap->max_recv_wr = cap->max_recv_sge = 0;
	}
	cap->max_inline_data = UROCE_MAX_INLINE;
	qp->cap = *cap;
	qp->ctx = ctx;
	qp->cwnd = uroce_window_floor(ctx);
	qp->ibqp.context = ibctx;
	qp->ibqp.qp_context = a->qp_context;
	qp->ibqp.pd = pd;
	qp->ibqp.send_cq = a->send_cq;
	qp->ibqp.recv_cq = a->recv_cq ? a->recv_cq : a->send_cq;
	qp->ibqp.srq = a->srq;
	qp->ibqp.qp_type = a->qp_type;
	qp->ibqp.state = IBV_QPS_RESET;
	pthread_mutex_init(&qp->ibqp.mutex, NULL);
	pthread_cond_init(&qp->ibqp.cond, NULL);
	qp->scq = to_ucq(a->send_cq);
	qp->rcq = to_ucq(qp->ibqp.recv_cq);
	qp->srq = a->srq ? to_usrq(a->srq) : NULL;
	qp->sq_sig_all = a->sq_sig_all;
	qp->state = IBV_QPS_RESET;
	qp->mtu_enum = IBV_MTU_1024; /* RC, UC: until RTR sets the path MTU */
	qp->mtu = 1024;
	if (a->qp_type == IBV_QPT_UD) { /* a UD QP's messages are limited by the port's MTU */
		qp->mtu_enum = (enum ibv_mtu)uroce_port_mtu_enum();
		qp->mtu = rt_mtu_bytes(qp->mtu_enum);
	}
	qp->port_num = 1;
	qp->extended = extended;
	if (extended) {
		uroce_qp_wr_api_init(qp, send_ops);
		if (!qp->wrx_list && qp->wrx_cap) {
			free(qp->sq);
			free(qp->rq.ring);
			free(qp);
			errno = ENOMEM;
			return NULL;
		}
	}
	pthread_mutex_lock(&ctx->lock);
	uint32_t qpn;
	do {
		qpn = __atomic_add_fetch(&next_qpn, 1, __ATOMIC_RELAXED) & RT_PSN_MASK;
	} while (qpn < 2 || uroce_qp_lookup(ctx, qpn));
	qp->ibqp.qp_num = qpn;
	qp->ibqp.handle = qpn;
	qp_hash_add(ctx, qp);
	pthread_mutex_unlock(&ctx->lock);
	trace_qp_create(qp, false);
	return &qp->ibqp;
}

UROCE_EXPORT struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	return create_qp(pd, attr, false, 0);
}

struct ibv_qp *uroce_create_qp_ex(struct ibv_context *c, struct ibv_qp_init_attr_ex *ax);
struct ibv_qp *uroce_create_qp_ex(struct ibv_context *c, struct ibv_qp_init_attr_ex *ax)
{
	uint32_t known = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS | IBV_QP_INIT_ATTR_CREATE_FLAGS;
	if (!ax || !(ax->comp_mask & IBV_QP_INIT_ATTR_PD) || (ax->comp_mask & ~known)) {
		if (ax && (ax->comp_mask & ~known))
			uroce_warn_once("ibv_create_qp_ex(XRC/RSS/TSO attributes)", "only PD, send ops and flags");
		errno = ax && (ax->comp_mask & ~known) ? EOPNOTSUPP : EINVAL;
		return NULL;
	}
	if ((ax->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) && ax->create_flags) {
		uroce_warn_once("ibv_create_qp_ex(create_flags)", "no QP creation flags are implemented");
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (ax->pd->context != c) {
		errno = EINVAL;
		return NULL;
	}
	struct ibv_qp_init_attr a;
	memset(&a, 0, sizeof(a));
	a.qp_context = ax->qp_context;
	a.send_cq = ax->send_cq;
	a.recv_cq = ax->recv_cq;
	a.srq = ax->srq;
	a.cap = ax->cap;
	a.qp_type = ax->qp_type;
	a.sq_sig_all = ax->sq_sig_all;
	uint64_t ops = (ax->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) ? ax->send_ops_flags : 0;
	struct ibv_qp *qp = create_qp(ax->pd, &a, true, ops);
	if (qp)
		ax->cap = a.cap;
	return qp;
}

UROCE_EXPORT int ibv_destroy_qp(struct ibv_qp *ibqp)
{
	struct uroce_qp *qp = to_uqp(ibqp);
	struct uroce_ctx *ctx = qp->ctx;
	pthread_mutex_lock(&ctx->lock);
	uroce_send_lazy_ack(qp);
	uroce_flush_held_acks(ctx); /* what it received is acknowledged, as a NIC would have done */
	qp_hash_del(ctx, qp);
	for (struct uroce_qp **pp = &ctx->ack_list; *pp; pp = &(*pp)->ack_next)
		if (*pp == qp) {
			*pp = qp->ack_next;
			break;
		}
	for (struct uroce_qp **pp = &ctx->pump_list; *pp; pp = &(*pp)->pump_next)
		if (*pp == qp) {
			*pp = qp->pump_next;
			break;
		}
	pthread_mutex_unlock(&ctx->lock);
	trace_qp_create(qp, true);
	uroce_qp_wr_api_free(qp);
	pthread_mutex_destroy(&qp->ibqp.mutex);
	pthread_cond_destroy(&qp->ibqp.cond);
	free(qp->sq);
	free(qp->rq.ring);
	free(qp);
	return 0;
}

static void reset_qp(struct uroce_qp *qp)
{
	qp->sq_head = qp->req_idx = qp->comp_idx = 0;
	qp->req_pkt = 0;
	qp->sent_any = false;
	qp->rd_outstanding = 0;
	qp->ack_deadline = qp->rnr_deadline = 0;
	qp->ack_pending = false;
	qp->in_msg = 0;
	qp->have_rwqe = false;
	qp->nak_sent = false;
	qp->msn = 0;
	qp->res_next = 0;
	memset(qp->res, 0, sizeof(qp->res));
	if (!qp->srq)
		qp->rq.head = qp->rq.tail = 0;
	qp->read_gap_armed = false;
}

static int validate_values(struct uroce_qp *qp, struct ibv_qp_attr *a, int mask)
{
	struct uroce_ctx *ctx = qp->ctx;
	if ((mask & IBV_QP_PORT) && a->port_num != 1)
		return EINVAL;
	if ((mask & IBV_QP_PKEY_INDEX) && a->pkey_index != 0)
		return EINVAL;
	if ((mask & IBV_QP_PATH_MTU) && (a->path_mtu < IBV_MTU_256 || a->path_mtu > UROCE_MAX_MTU))
		return EINVAL;
	if ((mask & IBV_QP_MAX_QP_RD_ATOMIC) && a->max_rd_atomic > UROCE_MAX_RD_ATOMIC)
		return EINVAL;
	if ((mask & IBV_QP_MAX_DEST_RD_ATOMIC) && a->max_dest_rd_atomic > UROCE_MAX_RD_ATOMIC)
		return EINVAL;
	if ((mask & IBV_QP_TIMEOUT) && a->timeout > 31)
		return EINVAL;
	if ((mask & IBV_QP_RETRY_CNT) && a->retry_cnt > 7)
		return EINVAL;
	if ((mask & IBV_QP_RNR_RETRY) && a->rnr_retry > 7)
		return EINVAL;
	if ((mask & IBV_QP_MIN_RNR_TIMER) && a->min_rnr_timer > 31)
		return EINVAL;
	if ((mask & IBV_QP_DEST_QPN) && a->dest_qp_num > RT_PSN_MASK)
		return EINVAL;
	if ((mask & IBV_QP_ACCESS_FLAGS) &&
	    (a->qp_access_flags & ~(unsigned)(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
	                                      IBV_ACCESS_REMOTE_ATOMIC)))
		return EINVAL;
	if (mask & IBV_QP_AV) {
		if (!a->ah_attr.is_global || a->ah_attr.port_num > 1)
			return EINVAL;
		if (uroce_local_fd(ctx, a->ah_attr.grh.sgid_index, NULL) < 0)
			return EINVAL;
		struct sockaddr_storage dst;
		uroce_gid_to_sockaddr(&a->ah_attr.grh.dgid, &dst);
		if (dst.ss_family != ctx->addrs[a->ah_attr.grh.sgid_index].sa.ss_family)
			return EINVAL;
	}
	return 0;
}

static void apply(struct uroce_qp *qp, struct ibv_qp_attr *a, int mask)
{
	if (mask & IBV_QP_ACCESS_FLAGS)
		qp->access = a->qp_access_flags;
	if (mask & IBV_QP_PKEY_INDEX)
		qp->pkey_index = a->pkey_index;
	if (mask & IBV_QP_PORT)
		qp->port_num = a->port_num;
	if (mask & IBV_QP_QKEY)
		qp->qkey = a->qkey;
	if (mask & IBV_QP_AV) {
		qp->ah_attr = a->ah_attr;
		qp->sgid_index = a->ah_attr.grh.sgid_index;
		uroce_gid_to_sockaddr(&a->ah_attr.grh.dgid, &qp->dst);
	}
	if (mask & IBV_QP_PATH_MTU) {
		qp->mtu_enum = a->path_mtu;
		qp->mtu = rt_mtu_bytes(a->path_mtu);
	}
	if (mask & IBV_QP_DEST_QPN)
		qp->dest_qpn = a->dest_qp_num;
	if (mask & IBV_QP_RQ_PSN) {
		qp->epsn = a->rq_psn & RT_PSN_MASK;
		qp->ack_psn = qp->epsn;
	}
	if (mask & IBV_QP_MAX_DEST_RD_ATOMIC)
		qp->max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (mask & IBV_QP_MIN_RNR_TIMER)
		qp->min_rnr_timer = a->min_rnr_timer;
	if (mask & IBV_QP_SQ_PSN) {
		qp->post_psn = qp->sq_psn = qp->una = a->sq_psn & RT_PSN_MASK;
		qp->cwnd = uroce_window_floor(qp->ctx);
		qp->sent_any = false;
	}
	if (mask & IBV_QP_TIMEOUT)
		qp->timeout = a->timeout;
	if (mask & IBV_QP_RETRY_CNT)
		qp->retry_cnt = qp->retries_left = a->retry_cnt;
	if (mask & IBV_QP_RNR_RETRY)
		qp->rnr_retry = qp->rnr_left = a->rnr_retry;
	if (mask & IBV_QP_MAX_QP_RD_ATOMIC)
		qp->max_rd_atomic = a->max_rd_atomic;
}

UROCE_EXPORT int ibv_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask)
{
	if (!ibqp || !attr)
		return EINVAL;
	struct uroce_qp *qp = to_uqp(ibqp);
	struct uroce_ctx *ctx = qp->ctx;
	pthread_mutex_lock(&ctx->lock);
	uroce_send_lazy_ack(qp);
	uroce_flush_held_acks(ctx); /* what was received is acknowledged before the QP changes */
	enum ibv_qp_state cur = qp->state, from = qp->state;
	if (mask & IBV_QP_CUR_STATE)
		cur = attr->cur_qp_state;
	enum ibv_qp_state next = (mask & IBV_QP_STATE) ? attr->qp_state : cur;
	int err = 0;
	struct rt_qp_rule r = rt_qp_rule(cur, next, ibqp->qp_type);
	uint32_t have = (uint32_t)mask & ~(uint32_t)IBV_QP_STATE;
	if (cur > IBV_QPS_ERR || next > IBV_QPS_ERR || !r.valid)
		err = EINVAL;
	else if ((have & r.req) != r.req || (have & ~(r.req | r.opt)))
		err = EINVAL;
	else
		err = validate_values(qp, attr, mask);
	if (!err) {
		if (next == IBV_QPS_RESET) {
			reset_qp(qp);
			qp->state = IBV_QPS_RESET;
		} else if (next == IBV_QPS_ERR) {
			qp->state = IBV_QPS_ERR;
			uroce_qp_flush(qp);
		} else {
			apply(qp, attr, mask);
			if (next == IBV_QPS_SQD && cur != IBV_QPS_SQD)
				qp->sq_draining = (mask & IBV_QP_EN_SQD_ASYNC_NOTIFY) && attr->en_sqd_async_notify;
			qp->state = next;
			if (next == IBV_QPS_RTS)
				uroce_req_progress(qp);
			if (next == IBV_QPS_SQD && qp->sq_draining && qp->comp_idx == qp->req_idx && !qp->req_pkt) {
				qp->sq_draining = false;
				uroce_async_event(ctx, IBV_EVENT_SQ_DRAINED, qp);
			}
		}
		ibqp->state = qp->state;
		uroce_tx_flush(ctx);
	}
	uroce_qp_trace_state(qp, from, mask, -err);
	pthread_mutex_unlock(&ctx->lock);
	return err;
}

UROCE_EXPORT int ibv_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *a, int mask, struct ibv_qp_init_attr *init)
{
	(void)mask;
	if (!ibqp || !a || !init)
		return EINVAL;
	struct uroce_qp *qp = to_uqp(ibqp);
	pthread_mutex_lock(&qp->ctx->lock);
	memset(a, 0, sizeof(*a));
	a->qp_state = a->cur_qp_state = qp->state;
	a->path_mtu = qp->mtu_enum;
	a->path_mig_state = IBV_MIG_MIGRATED;
	a->qkey = qp->qkey;
	a->rq_psn = qp->epsn;
	a->sq_psn = qp->post_psn;
	a->dest_qp_num = qp->dest_qpn;
	a->qp_access_flags = qp->access;
	a->cap = qp->cap;
	a->ah_attr = qp->ah_attr;
	a->pkey_index = (uint16_t)qp->pkey_index;
	a->sq_draining = qp->state == IBV_QPS_SQD && qp->comp_idx != qp->req_idx;
	a->max_rd_atomic = qp->max_rd_atomic;
	a->max_dest_rd_atomic = qp->max_dest_rd_atomic;
	a->min_rnr_timer = qp->min_rnr_timer;
	a->port_num = qp->port_num;
	a->timeout = qp->timeout;
	a->retry_cnt = qp->retry_cnt;
	a->rnr_retry = qp->rnr_retry;
	memset(init, 0, sizeof(*init));
	init->qp_context = ibqp->qp_context;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = qp->cap;
	init->qp_type = ibqp->qp_type;
	init->sq_sig_all = qp->sq_sig_all;
	pthread_mutex_unlock(&qp->ctx->lock);
	return 0;
}

/* ---------------------------------------------------------------- posting */

static int resolve_sges(struct uroce_ctx *ctx, const struct ibv_sge *in, int n, struct uroce_sge *out,
                        unsigned need_access, uint32_t *total)
{
	uint64_t sum = 0;
	for (int i = 0; i < n; i++) {
		out[i].len = in[i].length;
		out[i].ptr = NULL;
		sum += in[i].length;
		if (!in[i].length)
			continue;
		struct uroce_mr *mr = uroce_mr_lookup(ctx, in[i].lkey);
		if (!mr || mr->ibmr.lkey != in[i].lkey || (need_access && !(mr->access & need_access)) ||
		    in[i].addr < mr->iova || in[i].length > mr->ibmr.length ||
		    in[i].addr - mr->iova > mr->ibmr.length - in[i].length)
			return IBV_WC_LOC_PROT_ERR;
		out[i].ptr = (uint8_t *)mr->ibmr.addr + (in[i].addr - mr->iova);
	}
	if (sum > 0x80000000ull)
		return IBV_WC_LOC_LEN_ERR;
	*total = (uint32_t)sum;
	return IBV_WC_SUCCESS;
}

/* The WR record of a send; failed: the errno post_send returns for it (0 posted). */
static void trace_wr(struct uroce_qp *qp, const struct ibv_send_wr *wr, const struct uroce_swqe *w, int failed)
{
	struct rt_event *ev = uroce_ev_begin(RT_EV_WR_POST, qp->ibqp.qp_num);
	if (!ev)
		return;
	struct rt_ev_wr *e = &ev->u.wr;
	e->wr_id = wr->wr_id;
	e->queue = RT_WRQ_SEND;
	e->opcode = (uint8_t)wr->opcode;
	e->num_sge = (uint8_t)wr->num_sge;
	unsigned f = wr->send_flags;
	e->flags = (uint8_t)(((f & IBV_SEND_FENCE) ? RT_WRF_FENCE : 0) |
	                     ((f & IBV_SEND_SIGNALED) || qp->sq_sig_all ? RT_WRF_SIGNALED : 0) |
	                     ((f & IBV_SEND_SOLICITED) ? RT_WRF_SOLICITED : 0) | ((f & IBV_SEND_INLINE) ? RT_WRF_INLINE : 0));
	if (failed) {
		e->flags |= RT_WRF_POST_FAILED;
		e->imm = (uint32_t)failed; /* the errno post_send returns */
		ev->flags |= RT_EVF_ERROR;
	} else {
		e->length = w->length;
		e->remote_addr = w->raddr;
		e->rkey = w->rkey;
		e->imm = w->imm;
		if (qp->ibqp.qp_type != IBV_QPT_UD) {
			e->first_psn = w->first_psn;
			e->last_psn = w->last_psn;
			e->flags |= RT_WRF_PSN_VALID;
		}
	}
	uroce_ev_commit(ev);
}

static int post_one_send(struct uroce_qp *qp, struct ibv_send_wr *wr)
{
	enum ibv_qp_type t = qp->ibqp.qp_type;
	switch (wr->opcode) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
		break;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		if (t == IBV_QPT_UD)
			return EINVAL;
		break;
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_RDMA_READ:
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		if (t != IBV_QPT_RC)
			return EINVAL;
		break;
	default:
		uroce_warn_once("this ibv_wr_opcode (bind MW, local invalidate, TSO ...)",
		                "uroce posts SEND, WRITE, READ and atomics");
		return EOPNOTSUPP;
	}
	if (wr->num_sge < 0 || (unsigned)wr->num_sge > qp->cap.max_send_sge)
		return EINVAL;
	if (qp->sq_head - qp->comp_idx > qp->sq_mask)
		return ENOMEM;
	if (t == IBV_QPT_UD && !wr->wr.ud.ah)
		return EINVAL;
	struct uroce_swqe *w = &qp->sq[qp->sq_head & qp->sq_mask];
	w->wr_id = wr->wr_id;
	w->opcode = wr->opcode;
	w->flags = wr->send_flags;
	w->imm = wr->opcode == IBV_WR_SEND_WITH_INV ? wr->invalidate_rkey : wr->imm_data;
	w->raddr = w->cmp = w->swap = 0;
	w->rkey = 0;
	w->read_pkts = 0;
	w->state = SWQE_POSTED;
	w->status = IBV_WC_SUCCESS;
	w->ah = NULL;
	if (wr->opcode == IBV_WR_RDMA_WRITE || wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM ||
	    wr->opcode == IBV_WR_RDMA_READ) {
		w->raddr = wr->wr.rdma.remote_addr;
		w->rkey = wr->wr.rdma.rkey;
	} else if (wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP || wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		w->raddr = wr->wr.atomic.remote_addr;
		w->rkey = wr->wr.atomic.rkey;
		w->cmp = wr->wr.atomic.compare_add;
		w->swap = wr->wr.atomic.swap;
	}
	if (t == IBV_QPT_UD) {
		w->ah = to_uah(wr->wr.ud.ah);
		w->ud_qpn = wr->wr.ud.remote_qpn;
		w->ud_qkey = wr->wr.ud.remote_qkey;
	}
	bool rd = wr->opcode == IBV_WR_RDMA_READ || wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
	          wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD;
	if ((wr->send_flags & IBV_SEND_INLINE) && !rd) {
		uint32_t off = 0;
		for (int i = 0; i < wr->num_sge; i++) {
			if (wr->sg_list[i].length > UROCE_MAX_INLINE - off)
				return EINVAL;
			memcpy(w->inline_data + off, (const void *)(uintptr_t)wr->sg_list[i].addr, wr->sg_list[i].length);
			off += wr->sg_list[i].length;
		}
		w->num_sge = 1;
		w->sge[0] = (struct uroce_sge){ w->inline_data, off };
		w->length = off;
	} else {
		w->num_sge = wr->num_sge;
		w->status = (uint8_t)resolve_sges(qp->ctx, wr->sg_list, wr->num_sge, w->sge,
		                                  rd ? IBV_ACCESS_LOCAL_WRITE : 0, &w->length);
		if (w->status != IBV_WC_SUCCESS)
			w->length = 0;
	}
	if (rd && wr->opcode != IBV_WR_RDMA_READ && w->status == IBV_WC_SUCCESS && (w->length != 8 || (w->raddr & 7)))
		return EINVAL;
	if (t == IBV_QPT_UD || wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP || wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD)
		w->npkts = 1;
	else
		w->npkts = rt_packets_for(w->length, qp->mtu);
	w->first_psn = qp->post_psn;
	w->last_psn = rt_psn_add(w->first_psn, (int32_t)w->npkts - 1);
	if (t != IBV_QPT_UD)
		qp->post_psn = rt_psn_add(qp->post_psn, (int32_t)w->npkts);
	qp->sq_head++;
	trace_wr(qp, wr, w, 0);
	return 0;
}

int uroce_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	struct uroce_qp *qp = to_uqp(ibqp);
	struct uroce_ctx *ctx = qp->ctx;
	int err = 0;
	pthread_mutex_lock(&ctx->lock);
	if (qp->state == IBV_QPS_RESET || qp->state == IBV_QPS_INIT || qp->state == IBV_QPS_RTR) {
		err = EINVAL;
		if (bad)
			*bad = wr;
		if (wr)
			trace_wr(qp, wr, NULL, EINVAL);
		pthread_mutex_unlock(&ctx->lock);
		return err;
	}
	for (; wr; wr = wr->next) {
		err = post_one_send(qp, wr);
		if (err) {
			trace_wr(qp, wr, NULL, err);
			if (bad)
				*bad = wr;
			break;
		}
	}
	if (qp->state == IBV_QPS_ERR)
		uroce_qp_flush(qp);
	else
		uroce_req_progress(qp);
	uroce_flush_held_acks(ctx); /* after the requests: one GSO send when it can be */
	pthread_mutex_unlock(&ctx->lock);
	return err;
}

static int post_recv_rq(struct uroce_ctx *ctx, struct uroce_rq *rq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad,
                        uint32_t qpn, uint8_t queue)
{
	for (; wr; wr = wr->next) {
		int err = 0;
		if (wr->num_sge < 0 || (unsigned)wr->num_sge > rq->max_sge)
			err = EINVAL;
		else if (rq->head - rq->tail > rq->mask)
			err = ENOMEM;
		struct uroce_rwqe *r = &rq->ring[rq->head & rq->mask];
		if (!err) {
			r->wr_id = wr->wr_id;
			r->num_sge = wr->num_sge;
			if (resolve_sges(ctx, wr->sg_list, wr->num_sge, r->sge, IBV_ACCESS_LOCAL_WRITE, &r->total) !=
			    IBV_WC_SUCCESS)
				err = EINVAL;
		}
		struct rt_event *ev = uroce_ev_begin(RT_EV_WR_POST, qpn);
		if (ev) {
			ev->u.wr.wr_id = wr->wr_id;
			ev->u.wr.queue = queue;
			ev->u.wr.num_sge = (uint8_t)wr->num_sge;
			ev->u.wr.length = err ? 0 : r->total;
			if (err) {
				ev->u.wr.flags = RT_WRF_POST_FAILED;
				ev->u.wr.imm = (uint32_t)err;
				ev->flags |= RT_EVF_ERROR;
			}
			uroce_ev_commit(ev);
		}
		if (err) {
			if (bad)
				*bad = wr;
			return err;
		}
		rq->head++;
	}
	return 0;
}

static int uroce_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct uroce_qp *qp = to_uqp(ibqp);
	struct uroce_ctx *ctx = qp->ctx;
	if (qp->srq) {
		if (bad)
			*bad = wr;
		return EINVAL;
	}
	pthread_mutex_lock(&ctx->lock);
	int err = post_recv_rq(ctx, &qp->rq, wr, bad, ibqp->qp_num, RT_WRQ_RECV);
	if (qp->state == IBV_QPS_ERR)
		uroce_qp_flush(qp);
	pthread_mutex_unlock(&ctx->lock);
	return err;
}

static int uroce_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct uroce_srq *srq = to_usrq(ibsrq);
	struct uroce_ctx *ctx = to_uctx(ibsrq->context);
	pthread_mutex_lock(&ctx->lock);
	int err = post_recv_rq(ctx, &srq->rq, wr, bad, srq->num, RT_WRQ_SRQ_RECV);
	pthread_mutex_unlock(&ctx->lock);
	return err;
}

void uroce_qp_ops_init(struct ibv_context_ops *ops);
void uroce_qp_ops_init(struct ibv_context_ops *ops)
{
	ops->post_send = uroce_post_send;
	ops->post_recv = uroce_post_recv;
	ops->post_srq_recv = uroce_post_srq_recv;
}

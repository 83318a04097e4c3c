/*
 * Bookkeeping of the objects a traced program creates (PDs, CQs, QPs, SRQs)
 * and the control-path events that describe them: creation with the
 * capabilities the provider granted, destruction, and every ibv_modify_qp()
 * with its attributes.  A QP's record also carries what PSN prediction
 * needs: the starting send PSN (learnt at RTS, from the attributes or, when
 * the program left sq_psn out, from ibv_query_qp) and the path MTU (RTR).
 * Everything here runs on the control path, inside rt_probe_enter().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"
#include "rdmatrace/roce_wire.h"

struct rt_probe_srq {
	uint32_t srq_num;
	uint32_t pd_id;
};

uint32_t rt_probe_srq_num(const struct ibv_srq *srq)
{
	const struct rt_probe_srq *s = srq ? rt_objmap_get(&rt_probe_srqs, srq) : NULL;
	return s ? s->srq_num : 0;
}

/* ---- PDs ---- */

static void emit_pd(uint32_t id, uint16_t flags)
{
	struct rt_event *ev = rt_event_begin(RT_EV_PD, 0);
	if (!ev)
		return;
	ev->flags |= flags;
	ev->u.object.id = id;
	rt_event_commit(ev);
}

void rt_probe_track_pd(struct ibv_pd *pd)
{
	uint32_t id = rt_probe_new_id();
	if (rt_objmap_put(&rt_probe_pds, pd, (void *)(uintptr_t)id) == 0)
		emit_pd(id, 0);
}

void rt_probe_untrack_pd(struct ibv_pd *pd, int result)
{
	if (result != 0) {
		emit_pd(rt_probe_pd_id(pd), RT_EVF_DESTROY | RT_EVF_ERROR);
		return;
	}
	emit_pd((uint32_t)(uintptr_t)rt_objmap_del(&rt_probe_pds, pd), RT_EVF_DESTROY);
}

/* ---- CQs ---- */

static void emit_cq(const struct rt_probe_cq *c, int cqe, int comp_vector, bool channel,
		    uint16_t flags)
{
	struct rt_event *ev = rt_event_begin(RT_EV_CQ_CREATE, 0);
	if (!ev)
		return;
	ev->flags |= flags;
	ev->u.cq_create.cq_id = c->id;
	ev->u.cq_create.cqe = (uint32_t)cqe;
	ev->u.cq_create.comp_vector = comp_vector;
	ev->u.cq_create.has_channel = channel;
	ev->u.cq_create.extended = c->extended;
	rt_event_commit(ev);
}

struct rt_probe_cq *rt_probe_track_cq(struct ibv_cq *cq, int cqe, int comp_vector,
				      bool has_channel, bool extended, uint64_t wc_flags)
{
	struct rt_probe_cq *c = rt_objmap_get(&rt_probe_cqs, cq);
	if (c)
		return c;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->cq = cq;
	c->id = rt_probe_new_id();
	struct rt_probe_ctx *pc = rt_probe_ctx_of(cq->context);
	c->poll_cq = pc ? pc->orig.poll_cq : NULL;
	c->extended = extended;
	c->wc_flags = wc_flags;
	if (rt_objmap_put(&rt_probe_cqs, cq, c) != 0) {
		free(c);
		return NULL;
	}
	emit_cq(c, cqe, comp_vector, has_channel, 0);
	return c;
}

void rt_probe_untrack_cq(struct ibv_cq *cq, int result)
{
	if (result != 0) {
		struct rt_probe_cq *c = rt_objmap_get(&rt_probe_cqs, cq);
		if (c)
			emit_cq(c, 0, 0, false, RT_EVF_DESTROY | RT_EVF_ERROR);
		return;
	}
	struct rt_probe_cq *c = rt_objmap_del(&rt_probe_cqs, cq);
	if (!c)
		return;
	emit_cq(c, 0, 0, false, RT_EVF_DESTROY);
	free(c);
}

/* ---- SRQs ---- */

static void emit_srq(const struct rt_probe_srq *s, const struct ibv_srq_attr *attr, uint16_t flags)
{
	struct rt_event *ev = rt_event_begin(RT_EV_SRQ_CREATE, 0);
	if (!ev)
		return;
	ev->flags |= flags;
	ev->u.object.id = s->srq_num;
	ev->u.object.pd_id = s->pd_id;
	if (attr) {
		ev->u.object.max_wr = attr->max_wr;
		ev->u.object.max_sge = attr->max_sge;
		ev->u.object.srq_limit = attr->srq_limit;
	}
	rt_event_commit(ev);
}

void rt_probe_track_srq(struct ibv_srq *srq, struct ibv_pd *pd, const struct ibv_srq_attr *attr)
{
	struct rt_probe_srq *s = calloc(1, sizeof(*s));
	if (!s)
		return;
	uint32_t num = 0;
	/* ibv_get_srq_num() exists for XRC SRQs; others are known by their handle. */
	struct verbs_context *v = verbs_get_ctx(srq->context);
	if (!(v && v->sz >= sizeof(*v) - offsetof(struct verbs_context, get_srq_num) &&
	      v->get_srq_num && v->get_srq_num(srq, &num) == 0))
		num = srq->handle;
	s->srq_num = num;
	s->pd_id = rt_probe_pd_id(pd ? pd : srq->pd);
	if (rt_objmap_put(&rt_probe_srqs, srq, s) != 0) {
		free(s);
		return;
	}
	emit_srq(s, attr, 0);
}

void rt_probe_untrack_srq(struct ibv_srq *srq, int result)
{
	if (result != 0) {
		struct rt_probe_srq *s = rt_objmap_get(&rt_probe_srqs, srq);
		if (s)
			emit_srq(s, NULL, RT_EVF_DESTROY | RT_EVF_ERROR);
		return;
	}
	struct rt_probe_srq *s = rt_objmap_del(&rt_probe_srqs, srq);
	if (!s)
		return;
	emit_srq(s, NULL, RT_EVF_DESTROY);
	free(s);
}

/* ---- QPs ---- */

static void emit_qp(const struct rt_probe_qp *q, const struct ibv_qp_init_attr_ex *a, uint16_t flags)
{
	struct rt_event *ev = rt_event_begin(RT_EV_QP_CREATE, q->qpn);
	if (!ev)
		return;
	ev->flags |= flags;
	ev->u.qp_create.qp_type = q->qp_type;
	ev->u.qp_create.extended = q->ex != NULL || (a && (a->comp_mask & ~IBV_QP_INIT_ATTR_PD));
	if (a) {
		ev->u.qp_create.send_cq_id = rt_probe_cq_id(a->send_cq);
		ev->u.qp_create.recv_cq_id = rt_probe_cq_id(a->recv_cq);
		ev->u.qp_create.srq_num = rt_probe_srq_num(a->srq);
		ev->u.qp_create.pd_id = rt_probe_pd_id((a->comp_mask & IBV_QP_INIT_ATTR_PD) ?
						       a->pd : q->qp->pd);
		ev->u.qp_create.max_send_wr = a->cap.max_send_wr;
		ev->u.qp_create.max_recv_wr = a->cap.max_recv_wr;
		ev->u.qp_create.max_inline = a->cap.max_inline_data;
		ev->u.qp_create.max_send_sge = (uint16_t)a->cap.max_send_sge;
		ev->u.qp_create.max_recv_sge = (uint16_t)a->cap.max_recv_sge;
		ev->u.qp_create.sq_sig_all = (uint8_t)a->sq_sig_all;
	}
	rt_event_commit(ev);
}

/* The real ibv_query_qp (not a wrapper of ours): 0, or non-zero when it
 * failed or there is none; a and ia are zeroed first. */
static int real_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask, struct ibv_qp_init_attr *ia)
{
	int (*query)(struct ibv_qp *, struct ibv_qp_attr *, int, struct ibv_qp_init_attr *) =
		(int (*)(struct ibv_qp *, struct ibv_qp_attr *, int, struct ibv_qp_init_attr *))
		rt_probe_real_any("ibv_query_qp");
	memset(a, 0, sizeof(*a));
	memset(ia, 0, sizeof(*ia));
	return query ? query(qp, a, mask, ia) : -1;
}

/* The provider's answer to ibv_query_qp(IBV_QP_CAP) into *cap; cap stays
 * as it was when there is none. */
static void query_caps(struct ibv_qp *qp, struct ibv_qp_cap *cap)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	if (real_query_qp(qp, &a, IBV_QP_CAP, &ia) == 0 && ia.cap.max_send_wr + ia.cap.max_recv_wr)
		*cap = ia.cap;
}

struct rt_probe_qp *rt_probe_track_qp(struct ibv_qp *qp, const struct ibv_qp_init_attr_ex *attr,
				      bool extended)
{
	struct rt_probe_qp *q = rt_objmap_get(&rt_probe_qps, qp);
	if (q)
		return q;
	q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	q->qp = qp;
	q->ctx = rt_probe_ctx_of(qp->context);
	if (q->ctx) {
		q->post_send = q->ctx->orig.post_send;
		q->post_recv = q->ctx->orig.post_recv;
	}
	q->qpn = qp->qp_num;
	q->qp_type = (uint8_t)qp->qp_type;
	q->state = IBV_QPS_RESET;
	q->sq_sig_all = attr ? (uint8_t)!!attr->sq_sig_all : 0;
	if (rt_objmap_put(&rt_probe_qps, qp, q) != 0) {
		free(q);
		return NULL;
	}
	if (extended && attr && (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		rt_probe_hook_qp_ex(q);
	if (attr) {
		/* the queue sizes the provider granted, which may exceed those asked
		 * for (rxe makes 15 of 8) and which attr does not always hold after
		 * the call: a full queue is judged against them */
		struct ibv_qp_init_attr_ex granted = *attr;
		query_caps(qp, &granted.cap);
		emit_qp(q, &granted, 0);
	} else {
		emit_qp(q, attr, 0);
	}
	return q;
}

void rt_probe_untrack_qp(struct ibv_qp *qp, int result)
{
	if (result != 0) {
		struct rt_probe_qp *q = rt_objmap_get(&rt_probe_qps, qp);
		if (q)
			emit_qp(q, NULL, RT_EVF_DESTROY | RT_EVF_ERROR);
		return;
	}
	struct rt_probe_qp *q = rt_objmap_del(&rt_probe_qps, qp);
	if (!q)
		return;
	emit_qp(q, NULL, RT_EVF_DESTROY);
	rt_probe_unhook_qp_ex(q);
	free(q);
}

/* A QP the probe did not see being created (opened before tracing ...). */
static struct rt_probe_qp *adopt_qp(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = qp->send_cq, .recv_cq = qp->recv_cq, .srq = qp->srq,
		.qp_type = qp->qp_type, .comp_mask = IBV_QP_INIT_ATTR_PD, .pd = qp->pd,
	};
	return rt_probe_track_qp(qp, &a, false);
}

static void learn_from_query(struct rt_probe_qp *q, struct ibv_qp *qp, int mask)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	if (real_query_qp(qp, &a, mask, &ia) != 0)
		return;
	if ((mask & IBV_QP_PATH_MTU) && !q->mtu_bytes)
		q->mtu_bytes = rt_mtu_bytes(a.path_mtu);
	if (mask & IBV_QP_SQ_PSN) {
		__atomic_store_n(&q->next_psn, a.sq_psn & RT_PSN_MASK, __ATOMIC_RELAXED);
		__atomic_store_n(&q->psn_known, 1, __ATOMIC_RELEASE);
	}
}

void rt_probe_qp_modified(struct ibv_qp *qp, const struct ibv_qp_attr *attr, int mask, int rc)
{
	struct rt_probe_qp *q = rt_objmap_get(&rt_probe_qps, qp);
	if (!q && rc == 0)
		q = adopt_qp(qp);
	unsigned from = (mask & IBV_QP_CUR_STATE) ? attr->cur_qp_state : q ? q->state : 7;
	unsigned to = (mask & IBV_QP_STATE) ? attr->qp_state : from;
	if (rc == 0 && q) {
		if (to == IBV_QPS_RESET) {
			__atomic_store_n(&q->psn_known, 0, __ATOMIC_RELEASE);
			q->mtu_bytes = 0;
		}
		if (mask & IBV_QP_PATH_MTU)
			q->mtu_bytes = rt_mtu_bytes(attr->path_mtu);
		if (mask & IBV_QP_SQ_PSN) {
			__atomic_store_n(&q->next_psn, attr->sq_psn & RT_PSN_MASK, __ATOMIC_RELAXED);
			__atomic_store_n(&q->psn_known, 1, __ATOMIC_RELEASE);
		}
		if (to == IBV_QPS_RTS && (!q->psn_known ||
		    (!q->mtu_bytes && q->qp_type != IBV_QPT_UD)))
			learn_from_query(q, qp, (q->psn_known ? 0 : IBV_QP_SQ_PSN) |
					 (q->mtu_bytes ? 0 : IBV_QP_PATH_MTU));
		q->state = (uint8_t)to;
	}
	rt_probe_qp_av(qp, attr, mask); /* the address vector and its port, first */
	struct rt_event *ev = rt_event_begin(RT_EV_QP_STATE, qp->qp_num);
	if (!ev)
		return;
	if (rc != 0)
		ev->flags |= RT_EVF_ERROR;
	struct rt_ev_qp_state *s = &ev->u.qp_state;
	s->attr_mask = (uint32_t)mask;
	s->from_state = (uint8_t)from;
	s->to_state = (uint8_t)to;
	s->qp_type = (uint8_t)qp->qp_type;
	s->result = rc > 0 ? -rc : rc;
	if (mask & IBV_QP_SQ_PSN)
		s->sq_psn = attr->sq_psn;
	if (mask & IBV_QP_RQ_PSN)
		s->rq_psn = attr->rq_psn;
	if (mask & IBV_QP_DEST_QPN)
		s->dest_qpn = attr->dest_qp_num;
	if (mask & IBV_QP_QKEY)
		s->qkey = attr->qkey;
	if (mask & IBV_QP_PATH_MTU)
		s->path_mtu = (uint8_t)attr->path_mtu;
	if (mask & IBV_QP_TIMEOUT)
		s->timeout = attr->timeout;
	if (mask & IBV_QP_RETRY_CNT)
		s->retry_cnt = attr->retry_cnt;
	if (mask & IBV_QP_RNR_RETRY)
		s->rnr_retry = attr->rnr_retry;
	if (mask & IBV_QP_MIN_RNR_TIMER)
		s->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IBV_QP_MAX_QP_RD_ATOMIC)
		s->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IBV_QP_MAX_DEST_RD_ATOMIC)
		s->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IBV_QP_PORT)
		s->port_num = attr->port_num;
	if (mask & IBV_QP_ACCESS_FLAGS) {
		s->access_flags = (uint8_t)attr->qp_access_flags;
		s->av_flags |= RT_QPS_ACCESS_RECORDED;
	}
	if (mask & IBV_QP_AV) {
		if (!(mask & IBV_QP_PORT))
			s->port_num = attr->ah_attr.port_num;
		s->sgid_index = attr->ah_attr.grh.sgid_index;
		s->av_flags |= RT_QPS_AV_RECORDED | (attr->ah_attr.is_global ? RT_QPS_AV_GLOBAL : 0);
	}
	rt_event_commit(ev);
}

/*
 * The hook layer of the probe: the functions it puts into each context's
 * ops table (post_send, post_recv, post_srq_recv, poll_cq, req_notify_cq) and the
 * bookkeeping every wrapper shares: which contexts, QPs, CQs, SRQs and PDs
 * exist, each QP's next PSN and path MTU, and the events that describe them.
 *
 * ibv_post_send() and friends are static inline functions in verbs.h that
 * jump through qp->context->ops, so no symbol wrapper can see them; instead
 * every context the probe meets gets its ops replaced by these hooks, which
 * record the call and jump to the provider's original function.  The data
 * path takes no lock, makes no system call and allocates nothing: lookups
 * go through the lock-free tables of objmap.c.  The hooks only read the
 * re-entrancy guard (rt_probe_busy): recording an event never calls back
 * into libibverbs, so they need not set it.
 */
#include <endian.h>
#include <stdio.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"
#include "rdmatrace/roce_wire.h"

struct rt_objmap rt_probe_qps, rt_probe_cqs, rt_probe_srqs, rt_probe_pds, rt_probe_ctxs;

static uint32_t rt_probe_next_id;

uint32_t rt_probe_new_id(void)
{
	return __atomic_add_fetch(&rt_probe_next_id, 1, __ATOMIC_RELAXED);
}


uint32_t rt_probe_new_device_id(void)
{
	static uint32_t next;
	return __atomic_add_fetch(&next, 1, __ATOMIC_RELAXED);
}

uint32_t rt_probe_pd_id(const struct ibv_pd *pd)
{
	return pd ? (uint32_t)(uintptr_t)rt_objmap_get(&rt_probe_pds, pd) : 0;
}

uint32_t rt_probe_cq_id(const struct ibv_cq *cq)
{
	const struct rt_probe_cq *c = cq ? rt_objmap_get(&rt_probe_cqs, cq) : NULL;
	return c ? c->id : 0;
}


struct rt_probe_ctx *rt_probe_ctx_find(const struct ibv_context *ctx)
{
	return rt_objmap_get(&rt_probe_ctxs, ctx);
}

/* ---- the data-path hooks ---- */

static uint64_t sge_bytes(const struct ibv_sge *sg, int num_sge)
{
	uint64_t len = 0;
	for (int i = 0; i < num_sge; i++)
		len += sg[i].length;
	return len;
}

static inline __attribute__((always_inline)) void
emit_send(struct rt_probe_qp *q, uint32_t qpn, uint64_t wr_id, unsigned opcode,
	  unsigned send_flags, uint64_t length, unsigned num_sge,
	  uint64_t remote_addr, uint32_t rkey, uint32_t imm)
{
	int n = -1;
	uint32_t first = 0;
	if (q && __atomic_load_n(&q->psn_known, __ATOMIC_ACQUIRE))
		n = rt_probe_wr_psns(q->qp_type, opcode, length, q->mtu_bytes);
	if (n > 0) {
		/* Not an atomic RMW: posts racing on one QP are ordered by the
		 * provider's lock, which the probe cannot see anyway. */
		first = __atomic_load_n(&q->next_psn, __ATOMIC_RELAXED);
		__atomic_store_n(&q->next_psn, first + (uint32_t)n, __ATOMIC_RELAXED);
	}
	struct rt_event *ev = rt_event_begin(RT_EV_WR_POST, qpn);
	if (!ev)
		return;
	ev->u.wr.wr_id = wr_id;
	ev->u.wr.remote_addr = remote_addr;
	ev->u.wr.length = (uint32_t)length;
	ev->u.wr.rkey = rkey;
	ev->u.wr.imm = imm;
	ev->u.wr.queue = RT_WRQ_SEND;
	ev->u.wr.opcode = (uint8_t)opcode;
	ev->u.wr.num_sge = (uint8_t)(num_sge > 255 ? 255 : num_sge);
	ev->u.wr.flags = (uint8_t)(send_flags & (IBV_SEND_FENCE | IBV_SEND_SIGNALED |
						 IBV_SEND_SOLICITED | IBV_SEND_INLINE));
	if (q && q->sq_sig_all)
		ev->u.wr.flags |= RT_WRF_SIGNALED;
	if (n > 0) {
		ev->u.wr.first_psn = first & RT_PSN_MASK;
		ev->u.wr.last_psn = (first + (uint32_t)n - 1) & RT_PSN_MASK;
		ev->u.wr.flags |= RT_WRF_PSN_VALID;
	}
	rt_event_commit(ev);
}

void rt_probe_emit_send(struct rt_probe_qp *q, uint32_t qpn, uint64_t wr_id, unsigned opcode,
			unsigned send_flags, uint64_t length, unsigned num_sge,
			uint64_t remote_addr, uint32_t rkey, uint32_t imm)
{
	emit_send(q, qpn, wr_id, opcode, send_flags, length, num_sge, remote_addr, rkey, imm);
}

/* A WR's remote address and rkey; a BIND_MW's window: the address it binds,
 * the window's new rkey (its length and access flags: send_wr_length and
 * the record's imm); a LOCAL_INV's rkey, the one it invalidates. */
static void send_wr_fields(const struct ibv_send_wr *w, uint64_t *raddr, uint32_t *rkey)
{
	*raddr = 0;
	*rkey = 0;
	switch (w->opcode) {
	case IBV_WR_BIND_MW:
		*raddr = w->bind_mw.bind_info.addr;
		*rkey = w->bind_mw.rkey;
		break;
	case IBV_WR_LOCAL_INV:
		*rkey = w->invalidate_rkey;
		break;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
	case IBV_WR_ATOMIC_WRITE:
		*raddr = w->wr.rdma.remote_addr;
		*rkey = w->wr.rdma.rkey;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		*raddr = w->wr.atomic.remote_addr;
		*rkey = w->wr.atomic.rkey;
		break;
	default:
		break;
	}
}

/* A WR the provider refused: one more record, flagged, for the same wr_id,
 * with the error the provider returned (a positive errno) in imm. */
static void emit_post_failed(uint32_t qpn, uint8_t queue, uint64_t wr_id, uint8_t opcode, int err)
{
	struct rt_event *ev = rt_event_begin(RT_EV_WR_POST, qpn);
	if (!ev)
		return;
	ev->flags |= RT_EVF_ERROR;
	ev->u.wr.wr_id = wr_id;
	ev->u.wr.queue = queue;
	ev->u.wr.opcode = opcode;
	ev->u.wr.flags = RT_WRF_POST_FAILED;
	ev->u.wr.imm = (uint32_t)(err < 0 ? -err : err);
	rt_event_commit(ev);
}

/* The provider's post_send for qp: from the QP record, else its context's. */
static inline int (*orig_post_send(struct ibv_qp *qp, struct rt_probe_qp *q))(
	struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **)
{
	if (__builtin_expect(q && q->post_send, 1))
		return q->post_send;
	struct rt_probe_ctx *c = rt_probe_ctx_find(qp->context);
	return c ? c->orig.post_send : NULL;
}

static int hook_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	struct rt_probe_qp *q = rt_objmap_get(&rt_probe_qps, qp);
	int (*post)(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **) = orig_post_send(qp, q);
	if (__builtin_expect(!post, 0))
		return ENOSYS;
	if (rt_probe_busy || !rt_tracer_enabled)
		return post(qp, wr, bad);
	uint32_t psn0 = q ? __atomic_load_n(&q->next_psn, __ATOMIC_RELAXED) : 0;
	for (struct ibv_send_wr *w = wr; w; w = w->next) {
		uint64_t raddr;
		uint32_t rkey;
		send_wr_fields(w, &raddr, &rkey);
		bool bind = w->opcode == IBV_WR_BIND_MW; /* its window's length and access flags */
		emit_send(q, qp->qp_num, w->wr_id, w->opcode, w->send_flags,
			  bind ? w->bind_mw.bind_info.length : sge_bytes(w->sg_list, w->num_sge),
			  (unsigned)w->num_sge, raddr, rkey,
			  bind ? w->bind_mw.bind_info.mw_access_flags : w->imm_data);
	}
	int rc = post(qp, wr, bad);
	if (__builtin_expect(rc != 0, 0)) {
		rt_probe_busy = 1;
		/* Give back the PSNs of the WRs that were not posted. */
		uint32_t psn = psn0;
		struct ibv_send_wr *w = wr;
		for (; w && w != *bad; w = w->next) {
			int n = q && q->psn_known ? rt_probe_wr_psns(q->qp_type, w->opcode,
					sge_bytes(w->sg_list, w->num_sge), q->mtu_bytes) : -1;
			if (n > 0)
				psn += (uint32_t)n;
		}
		if (!w)
			w = wr; /* *bad not in the list: nothing was posted */
		if (q && w == wr)
			psn = psn0;
		if (q) {
			uint32_t end = __atomic_load_n(&q->next_psn, __ATOMIC_RELAXED);
			__atomic_compare_exchange_n(&q->next_psn, &end, psn, false,
						    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
		}
		for (; w; w = w->next)
			emit_post_failed(qp->qp_num, RT_WRQ_SEND, w->wr_id, (uint8_t)w->opcode, rc);
		rt_probe_busy = 0;
	}
	return rc;
}

static void emit_recvs(uint32_t qpn, uint8_t queue, const struct ibv_recv_wr *wr)
{
	for (const struct ibv_recv_wr *w = wr; w; w = w->next) {
		struct rt_event *ev = rt_event_begin(RT_EV_WR_POST, qpn);
		if (!ev)
			continue;
		ev->u.wr.wr_id = w->wr_id;
		ev->u.wr.length = (uint32_t)sge_bytes(w->sg_list, w->num_sge);
		ev->u.wr.queue = queue;
		ev->u.wr.num_sge = (uint8_t)(w->num_sge > 255 ? 255 : w->num_sge);
		rt_event_commit(ev);
	}
}

static void emit_recvs_failed(uint32_t qpn, uint8_t queue, struct ibv_recv_wr *wr,
			      struct ibv_recv_wr *bad, int err)
{
	struct ibv_recv_wr *w = wr;
	while (w && w != bad)
		w = w->next;
	for (w = w ? w : wr; w; w = w->next)
		emit_post_failed(qpn, queue, w->wr_id, 0, err);
}

static int hook_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct rt_probe_qp *q = rt_objmap_get(&rt_probe_qps, qp);
	int (*post)(struct ibv_qp *, struct ibv_recv_wr *, struct ibv_recv_wr **) =
		q ? q->post_recv : NULL;
	if (__builtin_expect(!post, 0)) {
		struct rt_probe_ctx *c = rt_probe_ctx_find(qp->context);
		if (!c)
			return ENOSYS;
		post = c->orig.post_recv;
	}
	if (rt_probe_busy || !rt_tracer_enabled)
		return post(qp, wr, bad);
	emit_recvs(qp->qp_num, RT_WRQ_RECV, wr);
	int rc = post(qp, wr, bad);
	if (__builtin_expect(rc != 0, 0)) {
		rt_probe_busy = 1;
		emit_recvs_failed(qp->qp_num, RT_WRQ_RECV, wr, *bad, rc);
		rt_probe_busy = 0;
	}
	return rc;
}

static int hook_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct rt_probe_ctx *c = rt_probe_ctx_find(srq->context);
	if (__builtin_expect(!c, 0))
		return ENOSYS;
	if (rt_probe_busy || !rt_tracer_enabled)
		return c->orig.post_srq_recv(srq, wr, bad);
	uint32_t srqn = rt_probe_srq_num(srq);
	emit_recvs(srqn, RT_WRQ_SRQ_RECV, wr);
	int rc = c->orig.post_srq_recv(srq, wr, bad);
	if (__builtin_expect(rc != 0, 0)) {
		rt_probe_busy = 1;
		emit_recvs_failed(srqn, RT_WRQ_SRQ_RECV, wr, *bad, rc);
		rt_probe_busy = 0;
	}
	return rc;
}

static inline __attribute__((always_inline)) void emit_wc(const struct ibv_wc *wc, uint32_t cq_id)
{
	struct rt_event *ev = rt_event_begin(RT_EV_COMPLETION, wc->qp_num);
	if (wc->status != IBV_WC_SUCCESS)
		rt_probe_counters_kick();
	if (!ev)
		return;
	if (wc->status != IBV_WC_SUCCESS)
		ev->flags |= RT_EVF_ERROR;
	ev->u.wc.wr_id = wc->wr_id;
	ev->u.wc.byte_len = wc->byte_len;
	ev->u.wc.src_qp = wc->src_qp;
	ev->u.wc.imm = wc->imm_data;
	ev->u.wc.vendor_err = wc->vendor_err;
	ev->u.wc.cq_id = cq_id;
	ev->u.wc.wc_flags = (uint16_t)wc->wc_flags;
	ev->u.wc.status = (uint8_t)wc->status;
	ev->u.wc.opcode = (uint8_t)wc->opcode;
	ev->u.wc.pkey_index = wc->pkey_index;
	ev->u.wc.slid = wc->slid;
	rt_event_commit(ev);
}

void rt_probe_emit_wc(const struct ibv_wc *wc, uint32_t cq_id)
{
	emit_wc(wc, cq_id);
}

static int hook_poll_cq(struct ibv_cq *cq, int num, struct ibv_wc *wc)
{
	const struct rt_probe_cq *pc = rt_objmap_get(&rt_probe_cqs, cq);
	int (*poll)(struct ibv_cq *, int, struct ibv_wc *) = pc ? pc->poll_cq : NULL;
	if (__builtin_expect(!poll, 0)) {
		struct rt_probe_ctx *c = rt_probe_ctx_find(cq->context);
		if (!c)
			return -1;
		poll = c->orig.poll_cq;
	}
	int n = poll(cq, num, wc);
	if (n <= 0 || rt_probe_busy || !rt_tracer_enabled)
		return n;
	uint32_t id = pc ? pc->id : 0;
	for (int i = 0; i < n; i++)
		emit_wc(&wc[i], id);
	return n;
}

/* ibv_bind_mw binds a type 1 memory window: the provider posts the bind
 * itself (rxe straight to its own post_send, past the hook above), so it is
 * recorded here as the BIND_MW WR it makes, with the window's new rkey. */
static int hook_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *mw_bind)
{
	struct rt_probe_ctx *c = rt_probe_ctx_find(qp->context);
	if (!c || !c->orig.bind_mw)
		return EOPNOTSUPP;
	int rc = c->orig.bind_mw(qp, mw, mw_bind);
	if (rt_probe_busy || !rt_tracer_enabled)
		return rc;
	const struct ibv_mw_bind_info *bi = &mw_bind->bind_info;
	if (rc)
		emit_post_failed(qp->qp_num, RT_WRQ_SEND, mw_bind->wr_id, IBV_WR_BIND_MW, rc);
	else
		emit_send(rt_objmap_get(&rt_probe_qps, qp), qp->qp_num, mw_bind->wr_id, IBV_WR_BIND_MW,
			  mw_bind->send_flags, bi->length, 0, bi->addr, mw->rkey, bi->mw_access_flags);
	return rc;
}

/* Arming a CQ is how event-driven programs wait: recording it shows when a
 * consumer went to sleep on its completion channel. */
static int hook_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	const struct rt_probe_cq *pc = rt_objmap_get(&rt_probe_cqs, cq);
	struct rt_probe_ctx *c = rt_probe_ctx_find(cq->context);
	if (!c || !c->orig.req_notify_cq)
		return EOPNOTSUPP;
	int rc = c->orig.req_notify_cq(cq, solicited_only);
	if (rt_probe_busy || !rt_tracer_enabled)
		return rc;
	struct rt_event *ev = rt_event_begin(RT_EV_CQ_NOTIFY, 0);
	if (ev) {
		ev->u.cq_notify.cq_id = pc ? pc->id : 0;
		ev->u.cq_notify.result = rc;
		ev->u.cq_notify.solicited_only = solicited_only != 0;
		if (rc)
			ev->flags |= RT_EVF_ERROR;
		rt_event_commit(ev);
	}
	return rc;
}

/* ---- extended creation paths (struct verbs_context) ---- */

#define VCTX_HAS(vctx, op) \
	((vctx)->sz >= sizeof(*(vctx)) - offsetof(struct verbs_context, op) && (vctx)->op)

static struct ibv_qp *hook_create_qp_ex(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *attr)
{
	struct rt_probe_ctx *c = rt_probe_ctx_find(ctx);
	if (!c)
		return NULL;
	struct ibv_qp *qp = c->orig_create_qp_ex(ctx, attr);
	if (rt_probe_enter()) {
		int err = errno;
		if (qp)
			rt_probe_track_qp(qp, attr, true);
		else
			rt_probe_create_failed_qp(ctx, attr, true, err);
		rt_probe_leave();
		errno = err;
	}
	return qp;
}

static struct ibv_qp *hook_open_qp(struct ibv_context *ctx, struct ibv_qp_open_attr *attr)
{
	struct rt_probe_ctx *c = rt_probe_ctx_find(ctx);
	if (!c)
		return NULL;
	struct ibv_qp *qp = c->orig_open_qp(ctx, attr);
	if (qp && rt_probe_enter()) {
		struct ibv_qp_init_attr_ex ia = { .qp_type = attr->qp_type };
		rt_probe_track_qp(qp, &ia, false);
		rt_probe_leave();
	}
	return qp;
}

static struct ibv_cq_ex *hook_create_cq_ex(struct ibv_context *ctx, struct ibv_cq_init_attr_ex *attr)
{
	struct rt_probe_ctx *c = rt_probe_ctx_find(ctx);
	if (!c)
		return NULL;
	struct ibv_cq_ex *cq = c->orig_create_cq_ex(ctx, attr);
	if (rt_probe_enter()) {
		int err = errno;
		if (cq) {
			/* what the device gave (cqe may be more than was asked for) */
			struct ibv_cq *bc = ibv_cq_ex_to_cq(cq);
			struct rt_probe_cq *pc = rt_probe_track_cq(bc, bc->cqe > 0 ? bc->cqe : (int)attr->cqe,
								   (int)attr->comp_vector,
								   attr->channel != NULL, true,
								   attr->wc_flags);
			if (pc)
				rt_probe_hook_cq_ex(pc);
		} else {
			rt_probe_create_failed_cq(ctx, (int)attr->cqe, (int)attr->comp_vector, attr->channel != NULL, true,
						  err);
		}
		rt_probe_leave();
		errno = err;
	}
	return cq;
}

static struct ibv_srq *hook_create_srq_ex(struct ibv_context *ctx, struct ibv_srq_init_attr_ex *attr)
{
	struct rt_probe_ctx *c = rt_probe_ctx_find(ctx);
	if (!c)
		return NULL;
	struct ibv_srq *srq = c->orig_create_srq_ex(ctx, attr);
	if (rt_probe_enter()) {
		int err = errno;
		struct ibv_pd *pd = (attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) ? attr->pd : NULL;
		if (srq)
			rt_probe_track_srq(srq, pd, &attr->attr);
		else
			rt_probe_create_failed_srq(ctx, pd, &attr->attr, err);
		rt_probe_leave();
		errno = err;
	}
	return srq;
}

/* ---- contexts ---- */

static void emit_device(struct rt_probe_ctx *c, uint16_t flags)
{
	struct rt_event *ev = rt_event_begin(RT_EV_DEVICE, 0);
	if (!ev)
		return;
	ev->flags |= flags;
	memcpy(ev->u.device.name, c->name, sizeof(ev->u.device.name));
	ev->u.device.device_id = c->id;
	ev->u.device.node_guid = c->node_guid;
	rt_event_commit(ev);
}

static void hook_ops(struct rt_probe_ctx *c)
{
	struct ibv_context *ctx = c->ctx;
	c->orig = ctx->ops;
	if (ctx->ops.post_send)
		ctx->ops.post_send = hook_post_send;
	if (ctx->ops.post_recv)
		ctx->ops.post_recv = hook_post_recv;
	if (ctx->ops.post_srq_recv)
		ctx->ops.post_srq_recv = hook_post_srq_recv;
	if (ctx->ops.poll_cq)
		ctx->ops.poll_cq = hook_poll_cq;
	if (ctx->ops.req_notify_cq)
		ctx->ops.req_notify_cq = hook_req_notify_cq;
	if (ctx->ops.bind_mw)
		ctx->ops.bind_mw = hook_bind_mw;
	struct verbs_context *v = verbs_get_ctx(ctx);
	if (!v)
		return;
	if (VCTX_HAS(v, create_qp_ex)) {
		c->orig_create_qp_ex = v->create_qp_ex;
		v->create_qp_ex = hook_create_qp_ex;
	}
	if (VCTX_HAS(v, open_qp)) {
		c->orig_open_qp = v->open_qp;
		v->open_qp = hook_open_qp;
	}
	if (VCTX_HAS(v, create_cq_ex)) {
		c->orig_create_cq_ex = v->create_cq_ex;
		v->create_cq_ex = hook_create_cq_ex;
	}
	if (VCTX_HAS(v, create_srq_ex)) {
		c->orig_create_srq_ex = v->create_srq_ex;
		v->create_srq_ex = hook_create_srq_ex;
	}
	/* also where the provider has none: the hook refuses it as verbs.h would */
	if (v->sz >= sizeof(*v) - offsetof(struct verbs_context, open_xrcd)) {
		c->orig_open_xrcd = v->open_xrcd;
		v->open_xrcd = rt_probe_hook_open_xrcd;
	}
}

static pthread_mutex_t rt_probe_ctx_lock = PTHREAD_MUTEX_INITIALIZER;

struct rt_probe_ctx *rt_probe_ctx_of(struct ibv_context *ctx)
{
	pthread_mutex_t *lock = &rt_probe_ctx_lock;
	if (!ctx || !rt_probe_active)
		return NULL;
	struct rt_probe_ctx *c = rt_probe_ctx_find(ctx);
	if (c)
		return c;
	pthread_mutex_lock(lock);
	c = rt_probe_ctx_find(ctx);
	if (!c && (c = calloc(1, sizeof(*c)))) {
		c->ctx = ctx;
		c->id = rt_probe_new_device_id();
		if (ctx->device) {
			memcpy(c->name, ctx->device->name,
			       strnlen(ctx->device->name, sizeof(c->name) - 1));
			__be64 (*guid)(struct ibv_device *) =
				(__be64 (*)(struct ibv_device *))rt_probe_real_any("ibv_get_device_guid");
			if (guid)
				c->node_guid = be64toh(guid(ctx->device));
		}
		hook_ops(c);
		if (rt_objmap_put(&rt_probe_ctxs, ctx, c) != 0) {
			ctx->ops = c->orig; /* cannot track it: leave it untouched */
			free(c);
			c = NULL;
		}
	}
	pthread_mutex_unlock(lock);
	if (c) {
		emit_device(c, 0);
		if (c->name[0])
			rt_probe_counters_add_device(c->name, c->id);
	}
	return c;
}

void rt_probe_ctx_forget(struct ibv_context *ctx)
{
	struct rt_probe_ctx *c = rt_objmap_del(&rt_probe_ctxs, ctx);
	if (!c)
		return;
	emit_device(c, RT_EVF_DESTROY);
	free(c);
}

/* fork() while another thread holds a probe lock must not leave it held in the child. */
void rt_probe_fork_prepare(void)
{
	pthread_mutex_lock(&rt_probe_ctx_lock);
	rt_objmap_fork_prepare();
}

void rt_probe_fork_parent(void)
{
	rt_objmap_fork_parent();
	pthread_mutex_unlock(&rt_probe_ctx_lock);
}

void rt_probe_fork_child(void)
{
	rt_objmap_fork_child();
	pthread_mutex_init(&rt_probe_ctx_lock, NULL);
}

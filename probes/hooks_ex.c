/*
 * Hooks for the extended verbs data path, which bypasses the ops table:
 *
 *  - extended QPs (created with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS): the program
 *    builds each WR with qpx->wr_id / wr_flags, one opcode call (wr_send,
 *    wr_rdma_write, ...) and data calls (wr_set_sge ...) between wr_start and
 *    wr_complete.  The probe replaces those function pointers in the QP's own
 *    struct ibv_qp_ex; a WR is recorded when the next one starts or at
 *    wr_complete, i.e. before the doorbell, with its predicted PSNs.  A
 *    failed wr_complete or a wr_abort records every WR of the batch again
 *    with RT_WRF_POST_FAILED and gives their PSNs back.
 *  - extended CQs: start_poll / next_poll are replaced in the CQ's struct
 *    ibv_cq_ex; each completion they return is recorded from the read_*
 *    functions the CQ was created with (wc_flags).
 */
#include <stdlib.h>
#include <string.h>

#include "probe.h"
#include "rdmatrace/roce_wire.h"

#define RT_QPX_BATCH 64  /* WRs of one batch the probe can name on abort */

struct rt_probe_qpx {
	struct ibv_qp_ex *qpx;
	struct ibv_qp_ex orig;  /* the provider's function pointers */
	/* the WR being built */
	bool pending;
	uint8_t opcode;
	uint32_t flags;
	uint64_t wr_id;
	uint64_t raddr;
	uint32_t rkey;
	uint32_t imm;
	uint64_t length;
	uint32_t num_sge;
	/* the batch since wr_start */
	uint32_t psn0;
	unsigned count;
	uint64_t batch_ids[RT_QPX_BATCH];
	uint8_t batch_ops[RT_QPX_BATCH];
};

static struct rt_probe_qp *qpx_rec(struct ibv_qp_ex *qpx)
{
	return rt_objmap_get(&rt_probe_qps, &qpx->qp_base);
}

static bool tracing(void)
{
	return rt_tracer_enabled && !rt_probe_busy;
}

static void qpx_flush(struct rt_probe_qp *q)
{
	struct rt_probe_qpx *x = q->ex;
	if (!x->pending)
		return;
	x->pending = false;
	rt_probe_busy = 1;
	rt_probe_emit_send(q, q->qpn, x->wr_id, x->opcode, x->flags, x->length, x->num_sge,
			   x->raddr, x->rkey, x->imm);
	rt_probe_busy = 0;
	if (x->count < RT_QPX_BATCH) {
		x->batch_ids[x->count] = x->wr_id;
		x->batch_ops[x->count] = x->opcode;
	}
	x->count++;
}

/* Starts recording a new WR of the batch; returns the record to call through. */
static struct rt_probe_qp *qpx_begin(struct ibv_qp_ex *qpx, unsigned opcode, uint64_t raddr,
				     uint32_t rkey, uint32_t imm)
{
	struct rt_probe_qp *q = qpx_rec(qpx);
	if (!q || !q->ex)
		return q;
	qpx_flush(q);
	if (!tracing())
		return q;
	struct rt_probe_qpx *x = q->ex;
	x->pending = true;
	x->opcode = (uint8_t)opcode;
	x->flags = qpx->wr_flags;
	x->wr_id = qpx->wr_id;
	x->raddr = raddr;
	x->rkey = rkey;
	x->imm = imm;
	x->length = 0;
	x->num_sge = 0;
	return q;
}

/* The batch's WRs as refused: err is wr_complete's result (0: wr_abort). */
static void qpx_batch_failed(struct rt_probe_qp *q, int err)
{
	struct rt_probe_qpx *x = q->ex;
	x->pending = false;
	if (!tracing() || x->count == 0)
		return;
	rt_probe_busy = 1;
	uint32_t end = __atomic_load_n(&q->next_psn, __ATOMIC_RELAXED);
	__atomic_compare_exchange_n(&q->next_psn, &end, x->psn0, false, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
	unsigned n = x->count < RT_QPX_BATCH ? x->count : RT_QPX_BATCH;
	for (unsigned i = 0; i < n; i++) {
		struct rt_event *ev = rt_event_begin(RT_EV_WR_POST, q->qpn);
		if (!ev)
			continue;
		ev->flags |= RT_EVF_ERROR;
		ev->u.wr.wr_id = x->batch_ids[i];
		ev->u.wr.opcode = x->batch_ops[i];
		ev->u.wr.queue = RT_WRQ_SEND;
		ev->u.wr.flags = RT_WRF_POST_FAILED;
		ev->u.wr.imm = (uint32_t)(err < 0 ? -err : err);
		rt_event_commit(ev);
	}
	if (x->count > RT_QPX_BATCH)
		rt_trace_warning(RT_WARN_UNSUPPORTED, "wr_abort: %u WRs unnamed", x->count - RT_QPX_BATCH);
	x->count = 0;
	rt_probe_busy = 0;
}

#define ORIG(q, qpx, fn) ((q) && (q)->ex ? (q)->ex->orig.fn : (qpx)->fn)

static void hk_wr_start(struct ibv_qp_ex *qpx)
{
	struct rt_probe_qp *q = qpx_rec(qpx);
	if (q && q->ex) {
		q->ex->pending = false;
		q->ex->count = 0;
		q->ex->psn0 = __atomic_load_n(&q->next_psn, __ATOMIC_RELAXED);
	}
	ORIG(q, qpx, wr_start)(qpx);
}

static int hk_wr_complete(struct ibv_qp_ex *qpx)
{
	struct rt_probe_qp *q = qpx_rec(qpx);
	if (q && q->ex)
		qpx_flush(q);
	int rc = ORIG(q, qpx, wr_complete)(qpx);
	if (rc && q && q->ex)
		qpx_batch_failed(q, rc);
	return rc;
}

static void hk_wr_abort(struct ibv_qp_ex *qpx)
{
	struct rt_probe_qp *q = qpx_rec(qpx);
	if (q && q->ex) {
		qpx_flush(q);
		qpx_batch_failed(q, 0);
	}
	ORIG(q, qpx, wr_abort)(qpx);
}

static void hk_wr_send(struct ibv_qp_ex *qpx)
{
	struct rt_probe_qp *q = qpx_begin(qpx, IBV_WR_SEND, 0, 0, 0);
	ORIG(q, qpx, wr_send)(qpx);
}

static void hk_wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm)
{
	struct rt_probe_qp *q = qpx_begin(qpx, IBV_WR_SEND_WITH_IMM, 0, 0, imm);
	ORIG(q, qpx, wr_send_imm)(qpx, imm);
}

static void hk_wr_send_inv(struct ibv_qp_ex *qpx, uint32_t inv)
{
	struct rt_probe_qp *q = qpx_begin(qpx, IBV_WR_SEND_WITH_INV, 0, 0, inv);
	ORIG(q, qpx, wr_send_inv)(qpx, inv);
}

static void hk_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t raddr)
{
	struct rt_probe_qp *q = qpx_begin(qpx, IBV_WR_RDMA_WRITE, raddr, rkey, 0);
	ORIG(q, qpx, wr_rdma_write)(qpx, rkey, raddr);
}

static void hk_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t raddr, __be32 imm)
{
	struct rt_probe_qp *q = qpx_begin(qpx, IBV_WR_RDMA_WRITE_WITH_IMM, raddr, rkey, imm);
	ORIG(q, qpx, wr_rdma_write_imm)(qpx, rkey, raddr, imm);
}

static void hk_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t raddr)
{
	struct rt_probe_qp *q = qpx_begin(qpx, IBV_WR_RDMA_READ, raddr, rkey, 0);
	ORIG(q, qpx, wr_rdma_read)(qpx, rkey, raddr);
}

static void hk_wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t raddr,
				 uint64_t compare, uint64_t swap)
{
	struct rt_probe_qp *q = qpx_begin(qpx, IBV_WR_ATOMIC_CMP_AND_SWP, raddr, rkey, 0);
	if (q && q->ex && q->ex->pending)
		q->ex->length = 8;
	ORIG(q, qpx, wr_atomic_cmp_swp)(qpx, rkey, raddr, compare, swap);
}

static void hk_wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t raddr,
				   uint64_t add)
{
	struct rt_probe_qp *q = qpx_begin(qpx, IBV_WR_ATOMIC_FETCH_AND_ADD, raddr, rkey, 0);
	if (q && q->ex && q->ex->pending)
		q->ex->length = 8;
	ORIG(q, qpx, wr_atomic_fetch_add)(qpx, rkey, raddr, add);
}

static void hk_wr_atomic_write(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t raddr,
			       const void *data)
{
	struct rt_probe_qp *q = qpx_begin(qpx, IBV_WR_ATOMIC_WRITE, raddr, rkey, 0);
	if (q && q->ex && q->ex->pending)
		q->ex->length = 8;
	ORIG(q, qpx, wr_atomic_write)(qpx, rkey, raddr, data);
}

static void hk_wr_local_inv(struct ibv_qp_ex *qpx, uint32_t rkey)
{
	struct rt_probe_qp *q = qpx_begin(qpx, IBV_WR_LOCAL_INV, 0, 0, rkey);
	ORIG(q, qpx, wr_local_inv)(qpx, rkey);
}

static void hk_wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw, uint32_t rkey,
			  const struct ibv_mw_bind_info *info)
{
	/* the window: its address, new rkey, length and access flags (in imm) */
	struct rt_probe_qp *q = qpx_begin(qpx, IBV_WR_BIND_MW, info->addr, rkey, info->mw_access_flags);
	if (q && q->ex && q->ex->pending)
		q->ex->length = info->length;
	ORIG(q, qpx, wr_bind_mw)(qpx, mw, rkey, info);
}

static void hk_wr_send_tso(struct ibv_qp_ex *qpx, void *hdr, uint16_t hdr_sz, uint16_t mss)
{
	struct rt_probe_qp *q = qpx_begin(qpx, IBV_WR_TSO, 0, 0, 0);
	ORIG(q, qpx, wr_send_tso)(qpx, hdr, hdr_sz, mss);
}

static void qpx_add_data(struct rt_probe_qp *q, uint64_t len, uint32_t nsge)
{
	if (q && q->ex && q->ex->pending) {
		q->ex->length = len;
		q->ex->num_sge = nsge;
	}
}

static void hk_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey, uint64_t addr, uint32_t length)
{
	struct rt_probe_qp *q = qpx_rec(qpx);
	qpx_add_data(q, length, 1);
	ORIG(q, qpx, wr_set_sge)(qpx, lkey, addr, length);
}

static void hk_wr_set_sge_list(struct ibv_qp_ex *qpx, size_t n, const struct ibv_sge *sg)
{
	struct rt_probe_qp *q = qpx_rec(qpx);
	uint64_t len = 0;
	for (size_t i = 0; i < n; i++)
		len += sg[i].length;
	qpx_add_data(q, len, (uint32_t)n);
	ORIG(q, qpx, wr_set_sge_list)(qpx, n, sg);
}

static void hk_wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr, size_t length)
{
	struct rt_probe_qp *q = qpx_rec(qpx);
	qpx_add_data(q, length, 1);
	if (q && q->ex && q->ex->pending)
		q->ex->flags |= IBV_SEND_INLINE;
	ORIG(q, qpx, wr_set_inline_data)(qpx, addr, length);
}

static void hk_wr_set_inline_data_list(struct ibv_qp_ex *qpx, size_t n,
				       const struct ibv_data_buf *buf)
{
	struct rt_probe_qp *q = qpx_rec(qpx);
	uint64_t len = 0;
	for (size_t i = 0; i < n; i++)
		len += buf[i].length;
	qpx_add_data(q, len, (uint32_t)n);
	if (q && q->ex && q->ex->pending)
		q->ex->flags |= IBV_SEND_INLINE;
	ORIG(q, qpx, wr_set_inline_data_list)(qpx, n, buf);
}

/* Replaces each function the provider offers (NULL ones stay NULL). */
#define HOOK(x, fn) do { if ((x)->orig.fn) (x)->qpx->fn = hk_##fn; } while (0)

void rt_probe_hook_qp_ex(struct rt_probe_qp *q)
{
	struct ibv_qp_ex *(*to_ex)(struct ibv_qp *) =
		(struct ibv_qp_ex *(*)(struct ibv_qp *))rt_probe_real_any("ibv_qp_to_qp_ex");
	struct ibv_qp_ex *qpx = to_ex ? to_ex(q->qp) : NULL;
	if (!qpx || (void *)qpx != (void *)q->qp)
		return;
	struct rt_probe_qpx *x = calloc(1, sizeof(*x));
	if (!x)
		return;
	x->qpx = qpx;
	x->orig = *qpx;
	HOOK(x, wr_start);
	HOOK(x, wr_complete);
	HOOK(x, wr_abort);
	HOOK(x, wr_send);
	HOOK(x, wr_send_imm);
	HOOK(x, wr_send_inv);
	HOOK(x, wr_send_tso);
	HOOK(x, wr_rdma_write);
	HOOK(x, wr_rdma_write_imm);
	HOOK(x, wr_rdma_read);
	HOOK(x, wr_atomic_cmp_swp);
	HOOK(x, wr_atomic_fetch_add);
	HOOK(x, wr_atomic_write);
	HOOK(x, wr_local_inv);
	HOOK(x, wr_bind_mw);
	HOOK(x, wr_set_sge);
	HOOK(x, wr_set_sge_list);
	HOOK(x, wr_set_inline_data);
	HOOK(x, wr_set_inline_data_list);
	__atomic_store_n(&q->ex, x, __ATOMIC_RELEASE);
}

void rt_probe_unhook_qp_ex(struct rt_probe_qp *q)
{
	free(q->ex);
	q->ex = NULL;
}

/* ---- extended CQs ---- */

static void cqx_emit(struct ibv_cq_ex *cq, const struct rt_probe_cq *c)
{
	struct ibv_wc wc;
	memset(&wc, 0, sizeof(wc));
	wc.wr_id = cq->wr_id;
	wc.status = cq->status;
	uint64_t f = c->wc_flags;
	rt_probe_busy = 1;
	if (cq->read_opcode)
		wc.opcode = cq->read_opcode(cq);
	if (cq->read_vendor_err)
		wc.vendor_err = cq->read_vendor_err(cq);
	if (cq->read_wc_flags)
		wc.wc_flags = cq->read_wc_flags(cq);
	if ((f & IBV_WC_EX_WITH_BYTE_LEN) && cq->read_byte_len)
		wc.byte_len = cq->read_byte_len(cq);
	if ((f & IBV_WC_EX_WITH_IMM) && cq->read_imm_data &&
	    (wc.wc_flags & (IBV_WC_WITH_IMM | IBV_WC_WITH_INV)))
		wc.imm_data = cq->read_imm_data(cq);
	if ((f & IBV_WC_EX_WITH_QP_NUM) && cq->read_qp_num)
		wc.qp_num = cq->read_qp_num(cq);
	if ((f & IBV_WC_EX_WITH_SRC_QP) && cq->read_src_qp)
		wc.src_qp = cq->read_src_qp(cq);
	if ((f & IBV_WC_EX_WITH_SLID) && cq->read_slid)
		wc.slid = (uint16_t)cq->read_slid(cq);
	rt_probe_emit_wc(&wc, c->id);
	rt_probe_busy = 0;
}

static int hk_start_poll(struct ibv_cq_ex *cq, struct ibv_poll_cq_attr *attr)
{
	const struct rt_probe_cq *c = rt_objmap_get(&rt_probe_cqs, cq);
	if (__builtin_expect(!c, 0))
		return ENOENT;
	int rc = c->orig_start_poll(cq, attr);
	if (rc == 0 && tracing())
		cqx_emit(cq, c);
	return rc;
}

static int hk_next_poll(struct ibv_cq_ex *cq)
{
	const struct rt_probe_cq *c = rt_objmap_get(&rt_probe_cqs, cq);
	if (__builtin_expect(!c, 0))
		return ENOENT;
	int rc = c->orig_next_poll(cq);
	if (rc == 0 && tracing())
		cqx_emit(cq, c);
	return rc;
}

void rt_probe_hook_cq_ex(struct rt_probe_cq *c)
{
	struct ibv_cq_ex *cq = (struct ibv_cq_ex *)c->cq;
	if (!cq->start_poll || !cq->next_poll)
		return;
	c->orig_start_poll = cq->start_poll;
	c->orig_next_poll = cq->next_poll;
	cq->start_poll = hk_start_poll;
	cq->next_poll = hk_next_poll;
}

/*
 * The extended send API (ibv_qp_ex: ibv_wr_start, ibv_wr_rdma_write,
 * ibv_wr_set_sge ..., ibv_wr_complete) for QPs made with ibv_create_qp_ex:
 * each builder call fills an ibv_send_wr in a list preallocated at QP
 * creation, and ibv_wr_complete posts the list through the ordinary path.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "uroce.h"

struct wrx {
	struct ibv_send_wr wr;
	struct ibv_sge sge[UROCE_MAX_SGE];
	uint8_t inl[UROCE_MAX_INLINE];
};

static struct uroce_qp *qx(struct ibv_qp_ex *q)
{
	return UROCE_CONTAINER(q, struct uroce_qp, ibqpx);
}

static struct wrx *cur(struct uroce_qp *qp)
{
	return qp->wrx_n ? &((struct wrx *)qp->wrx_list)[qp->wrx_n - 1] : NULL;
}

static struct wrx *begin(struct ibv_qp_ex *q, enum ibv_wr_opcode op)
{
	struct uroce_qp *qp = qx(q);
	if (qp->wrx_n >= qp->wrx_cap) {
		qp->wrx_err = ENOMEM;
		return NULL;
	}
	struct wrx *x = &((struct wrx *)qp->wrx_list)[qp->wrx_n];
	if (qp->wrx_n)
		cur(qp)->wr.next = &x->wr;
	qp->wrx_n++;
	memset(&x->wr, 0, sizeof(x->wr));
	x->wr.wr_id = q->wr_id;
	x->wr.send_flags = q->wr_flags;
	x->wr.opcode = op;
	x->wr.sg_list = x->sge;
	return x;
}

static void wr_start(struct ibv_qp_ex *q)
{
	struct uroce_qp *qp = qx(q);
	qp->wrx_n = 0;
	qp->wrx_err = 0;
}

static int wr_complete(struct ibv_qp_ex *q)
{
	struct uroce_qp *qp = qx(q);
	int err = qp->wrx_err;
	if (!err && qp->wrx_n) {
		struct ibv_send_wr *bad;
		err = uroce_post_send(&qp->ibqp, &((struct wrx *)qp->wrx_list)[0].wr, &bad);
	}
	qp->wrx_n = 0;
	qp->wrx_err = 0;
	return err;
}

static void wr_abort(struct ibv_qp_ex *q)
{
	qx(q)->wrx_n = 0;
	qx(q)->wrx_err = 0;
}

static void wr_send(struct ibv_qp_ex *q)
{
	begin(q, IBV_WR_SEND);
}

static void wr_send_imm(struct ibv_qp_ex *q, __be32 imm)
{
	struct wrx *x = begin(q, IBV_WR_SEND_WITH_IMM);
	if (x)
		x->wr.imm_data = imm;
}

static void wr_send_inv(struct ibv_qp_ex *q, uint32_t rkey)
{
	struct wrx *x = begin(q, IBV_WR_SEND_WITH_INV);
	if (x)
		x->wr.invalidate_rkey = rkey;
}

static void wr_rdma(struct ibv_qp_ex *q, enum ibv_wr_opcode op, uint32_t rkey, uint64_t addr, __be32 imm)
{
	struct wrx *x = begin(q, op);
	if (!x)
		return;
	x->wr.wr.rdma.rkey = rkey;
	x->wr.wr.rdma.remote_addr = addr;
	x->wr.imm_data = imm;
}

static void wr_rdma_write(struct ibv_qp_ex *q, uint32_t rkey, uint64_t addr)
{
	wr_rdma(q, IBV_WR_RDMA_WRITE, rkey, addr, 0);
}

static void wr_rdma_write_imm(struct ibv_qp_ex *q, uint32_t rkey, uint64_t addr, __be32 imm)
{
	wr_rdma(q, IBV_WR_RDMA_WRITE_WITH_IMM, rkey, addr, imm);
}

static void wr_rdma_read(struct ibv_qp_ex *q, uint32_t rkey, uint64_t addr)
{
	wr_rdma(q, IBV_WR_RDMA_READ, rkey, addr, 0);
}

static void wr_cmp_swp(struct ibv_qp_ex *q, uint32_t rkey, uint64_t addr, uint64_t cmp, uint64_t swap)
{
	struct wrx *x = begin(q, IBV_WR_ATOMIC_CMP_AND_SWP);
	if (!x)
		return;
	x->wr.wr.atomic.rkey = rkey;
	x->wr.wr.atomic.remote_addr = addr;
	x->wr.wr.atomic.compare_add = cmp;
	x->wr.wr.atomic.swap = swap;
}

static void wr_fetch_add(struct ibv_qp_ex *q, uint32_t rkey, uint64_t addr, uint64_t add)
{
	struct wrx *x = begin(q, IBV_WR_ATOMIC_FETCH_AND_ADD);
	if (!x)
		return;
	x->wr.wr.atomic.rkey = rkey;
	x->wr.wr.atomic.remote_addr = addr;
	x->wr.wr.atomic.compare_add = add;
}

static void wr_set_ud_addr(struct ibv_qp_ex *q, struct ibv_ah *ah, uint32_t qpn, uint32_t qkey)
{
	struct wrx *x = cur(qx(q));
	if (!x)
		return;
	x->wr.wr.ud.ah = ah;
	x->wr.wr.ud.remote_qpn = qpn;
	x->wr.wr.ud.remote_qkey = qkey;
}

static void wr_set_sge(struct ibv_qp_ex *q, uint32_t lkey, uint64_t addr, uint32_t len)
{
	struct wrx *x = cur(qx(q));
	if (!x)
		return;
	x->sge[0] = (struct ibv_sge){ addr, len, lkey };
	x->wr.num_sge = 1;
}

static void wr_set_sge_list(struct ibv_qp_ex *q, size_t n, const struct ibv_sge *list)
{
	struct uroce_qp *qp = qx(q);
	struct wrx *x = cur(qp);
	if (!x)
		return;
	if (n > UROCE_MAX_SGE) {
		qp->wrx_err = EINVAL;
		return;
	}
	memcpy(x->sge, list, n * sizeof(*list));
	x->wr.num_sge = (int)n;
}

static void wr_set_inline_data_list(struct ibv_qp_ex *q, size_t n, const struct ibv_data_buf *bufs)
{
	struct uroce_qp *qp = qx(q);
	struct wrx *x = cur(qp);
	if (!x)
		return;
	size_t off = 0;
	for (size_t i = 0; i < n; i++) {
		if (bufs[i].length > UROCE_MAX_INLINE - off) {
			qp->wrx_err = EINVAL;
			return;
		}
		memcpy(x->inl + off, bufs[i].addr, bufs[i].length);
		off += bufs[i].length;
	}
	x->sge[0] = (struct ibv_sge){ (uint64_t)(uintptr_t)x->inl, (uint32_t)off, 0 };
	x->wr.num_sge = 1;
	x->wr.send_flags |= IBV_SEND_INLINE;
}

static void wr_set_inline_data(struct ibv_qp_ex *q, void *addr, size_t len)
{
	struct ibv_data_buf b = { addr, len };
	wr_set_inline_data_list(q, 1, &b);
}

static void wr_unsupported(struct ibv_qp_ex *q)
{
	uroce_warn_once("ibv_wr_bind_mw / ibv_wr_local_inv / ibv_wr_send_tso / XRC",
	                "memory windows, TSO and XRC are not implemented");
	qx(q)->wrx_err = EOPNOTSUPP;
}

static void wr_bind_mw(struct ibv_qp_ex *q, struct ibv_mw *mw, uint32_t rkey, const struct ibv_mw_bind_info *b)
{
	(void)mw, (void)rkey, (void)b;
	wr_unsupported(q);
}

static void wr_local_inv(struct ibv_qp_ex *q, uint32_t rkey)
{
	(void)rkey;
	wr_unsupported(q);
}

static void wr_send_tso(struct ibv_qp_ex *q, void *hdr, uint16_t sz, uint16_t mss)
{
	(void)hdr, (void)sz, (void)mss;
	wr_unsupported(q);
}

static void wr_set_xrc_srqn(struct ibv_qp_ex *q, uint32_t srqn)
{
	(void)srqn;
	wr_unsupported(q);
}

static void wr_atomic_write(struct ibv_qp_ex *q, uint32_t rkey, uint64_t addr, const void *data)
{
	(void)rkey, (void)addr, (void)data;
	wr_unsupported(q);
}

void uroce_qp_wr_api_init(struct uroce_qp *qp, uint64_t send_ops_flags)
{
	struct ibv_qp_ex *q = &qp->ibqpx;
	(void)send_ops_flags;
	qp->wrx_cap = qp->cap.max_send_wr ? qp->cap.max_send_wr : 1;
	if (qp->wrx_cap < 64)
		qp->wrx_cap = 64;
	qp->wrx_list = calloc(qp->wrx_cap, sizeof(struct wrx));
	q->wr_start = wr_start;
	q->wr_complete = wr_complete;
	q->wr_abort = wr_abort;
	q->wr_send = wr_send;
	q->wr_send_imm = wr_send_imm;
	q->wr_send_inv = wr_send_inv;
	q->wr_rdma_write = wr_rdma_write;
	q->wr_rdma_write_imm = wr_rdma_write_imm;
	q->wr_rdma_read = wr_rdma_read;
	q->wr_atomic_cmp_swp = wr_cmp_swp;
	q->wr_atomic_fetch_add = wr_fetch_add;
	q->wr_set_ud_addr = wr_set_ud_addr;
	q->wr_set_sge = wr_set_sge;
	q->wr_set_sge_list = wr_set_sge_list;
	q->wr_set_inline_data = wr_set_inline_data;
	q->wr_set_inline_data_list = wr_set_inline_data_list;
	q->wr_bind_mw = wr_bind_mw;
	q->wr_local_inv = wr_local_inv;
	q->wr_send_tso = wr_send_tso;
	q->wr_set_xrc_srqn = wr_set_xrc_srqn;
	q->wr_atomic_write = wr_atomic_write;
}

void uroce_qp_wr_api_free(struct uroce_qp *qp)
{
	free(qp->wrx_list);
	qp->wrx_list = NULL;
}

UROCE_EXPORT struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *ibqp)
{
	struct uroce_qp *qp = to_uqp(ibqp);
	return qp->extended ? &qp->ibqpx : NULL;
}

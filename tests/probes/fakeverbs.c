/*
 * libfakeverbs.so: a stand-in libibverbs for the probe's end-to-end tests
 * when no RDMA engine is at hand.  It exports the real libibverbs entry
 * points a simple program uses (device list, open/close, PD, MR, CQ, QP,
 * modify/query QP, address handles, multicast) and gives each context a provider ops table that
 * completes every posted WR at once: a send WR with bit 63 of its wr_id
 * set completes with IBV_WC_REM_ACCESS_ERR, everything else succeeds.
 * ibv_get_async_event reports one IBV_EVENT_COMM_EST for the newest QP, and
 * mlx5dv_init_obj stands in for libmlx5's (it fills nothing), so the
 * probe's direct-verbs detection can be exercised too.
 * Programs linked against it run unmodified under `rdmatrace record`, so
 * the probe's symbol wrappers, hooks, fork/exec handling and the run
 * directory can be checked without uroce or a kernel device.
 */
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#undef ibv_get_device_list
#undef ibv_reg_mr
#undef ibv_reg_mr_iova

#define CQ_DEPTH 4096

struct fcq {
	struct ibv_cq cq;
	pthread_mutex_t lock;
	struct ibv_wc wc[CQ_DEPTH];
	unsigned head, n;
};

struct fqp {
	struct ibv_qp qp;
	enum ibv_qp_state state;
	uint32_t sq_psn;
	enum ibv_mtu mtu;
};

static struct ibv_device fake_device = { .name = "fakeverbs0", .dev_name = "fakeverbs0" };
static uint32_t next_qpn = 0x40;
static struct ibv_qp *newest_qp;

static void cq_push(struct ibv_cq *cq, const struct ibv_wc *wc)
{
	struct fcq *c = (struct fcq *)cq;
	pthread_mutex_lock(&c->lock);
	if (c->n < CQ_DEPTH) {
		c->wc[(c->head + c->n) % CQ_DEPTH] = *wc;
		c->n++;
	}
	pthread_mutex_unlock(&c->lock);
}

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

static int f_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	struct fqp *q = (struct fqp *)qp;
	if (q->state != IBV_QPS_RTS) {
		*bad = wr;
		return EINVAL;
	}
	for (; wr; wr = wr->next) {
		uint32_t len = 0;
		for (int i = 0; i < wr->num_sge; i++)
			len += wr->sg_list[i].length;
		struct ibv_wc wc = { .wr_id = wr->wr_id, .opcode = wc_opcode(wr->opcode),
				     .qp_num = qp->qp_num, .byte_len = len };
		wc.status = (wr->wr_id >> 63) ? IBV_WC_REM_ACCESS_ERR : IBV_WC_SUCCESS;
		cq_push(qp->send_cq, &wc);
	}
	return 0;
}

static int f_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)bad;
	for (; wr; wr = wr->next) {
		uint32_t len = 0;
		for (int i = 0; i < wr->num_sge; i++)
			len += wr->sg_list[i].length;
		struct ibv_wc wc = { .wr_id = wr->wr_id, .opcode = IBV_WC_RECV, .qp_num = qp->qp_num,
				     .byte_len = len, .status = IBV_WC_SUCCESS };
		cq_push(qp->recv_cq, &wc);
	}
	return 0;
}

static int f_poll_cq(struct ibv_cq *cq, int num, struct ibv_wc *wc)
{
	struct fcq *c = (struct fcq *)cq;
	int n = 0;
	pthread_mutex_lock(&c->lock);
	while (n < num && c->n > 0) {
		wc[n++] = c->wc[c->head];
		c->head = (c->head + 1) % CQ_DEPTH;
		c->n--;
	}
	pthread_mutex_unlock(&c->lock);
	return n;
}

static int f_req_notify(struct ibv_cq *cq, int solicited)
{
	(void)cq;
	(void)solicited;
	return 0;
}

struct ibv_device **ibv_get_device_list(int *num)
{
	struct ibv_device **l = calloc(2, sizeof(*l));
	if (!l)
		return NULL;
	l[0] = &fake_device;
	if (num)
		*num = 1;
	return l;
}

void ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}

const char *ibv_get_device_name(struct ibv_device *dev)
{
	return dev->name;
}

__be64 ibv_get_device_guid(struct ibv_device *dev)
{
	(void)dev;
	return htobe64(0x0002c90300fa4e01ull);
}

struct ibv_context *ibv_open_device(struct ibv_device *dev)
{
	struct verbs_context *v = calloc(1, sizeof(*v));
	if (!v)
		return NULL;
	v->sz = sizeof(*v);
	v->context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	v->context.device = dev;
	v->context.ops.post_send = f_post_send;
	v->context.ops.post_recv = f_post_recv;
	v->context.ops.poll_cq = f_poll_cq;
	v->context.ops.req_notify_cq = f_req_notify;
	pthread_mutex_init(&v->context.mutex, NULL);
	return &v->context;
}

int ibv_close_device(struct ibv_context *ctx)
{
	free(verbs_get_ctx(ctx));
	return 0;
}

struct ibv_pd *ibv_alloc_pd(struct ibv_context *ctx)
{
	struct ibv_pd *pd = calloc(1, sizeof(*pd));
	if (pd)
		pd->context = ctx;
	return pd;
}

int ibv_dealloc_pd(struct ibv_pd *pd)
{
	free(pd);
	return 0;
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
				unsigned int access)
{
	(void)iova;
	(void)access;
	static uint32_t key = 0x100;
	struct ibv_mr *mr = calloc(1, sizeof(*mr));
	if (!mr)
		return NULL;
	mr->context = pd->context;
	mr->pd = pd;
	mr->addr = addr;
	mr->length = length;
	mr->lkey = __atomic_add_fetch(&key, 1, __ATOMIC_RELAXED);
	mr->rkey = mr->lkey | 0x10000;
	return mr;
}

struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, (uintptr_t)addr, (unsigned)access);
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
	free(mr);
	return 0;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *ctx, int cqe, void *cq_context,
			     struct ibv_comp_channel *channel, int comp_vector)
{
	(void)comp_vector;
	struct fcq *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->cq.context = ctx;
	c->cq.cq_context = cq_context;
	c->cq.channel = channel;
	c->cq.cqe = cqe;
	pthread_mutex_init(&c->lock, NULL);
	return &c->cq;
}

int ibv_destroy_cq(struct ibv_cq *cq)
{
	free(cq);
	return 0;
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	if (attr->qp_type != IBV_QPT_RC && attr->qp_type != IBV_QPT_UC && attr->qp_type != IBV_QPT_UD) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	struct fqp *q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	q->qp.context = pd->context;
	q->qp.pd = pd;
	q->qp.send_cq = attr->send_cq;
	q->qp.recv_cq = attr->recv_cq;
	q->qp.srq = attr->srq;
	q->qp.qp_type = attr->qp_type;
	q->qp.qp_num = __atomic_add_fetch(&next_qpn, 1, __ATOMIC_RELAXED);
	q->qp.state = IBV_QPS_RESET;
	__atomic_store_n(&newest_qp, &q->qp, __ATOMIC_RELEASE);
	return &q->qp;
}

int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	struct fqp *q = (struct fqp *)qp;
	if (mask & IBV_QP_SQ_PSN)
		q->sq_psn = attr->sq_psn;
	if (mask & IBV_QP_PATH_MTU)
		q->mtu = attr->path_mtu;
	if (mask & IBV_QP_STATE) {
		if ((attr->qp_state == IBV_QPS_RTS && q->state != IBV_QPS_RTR) ||
		    (attr->qp_state == IBV_QPS_RTR && q->state != IBV_QPS_INIT))
			return EINVAL;
		q->state = attr->qp_state;
		qp->state = attr->qp_state;
	}
	return 0;
}

int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask, struct ibv_qp_init_attr *init)
{
	(void)mask;
	(void)init;
	struct fqp *q = (struct fqp *)qp;
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = q->state;
	attr->sq_psn = q->sq_psn;
	attr->path_mtu = q->mtu;
	return 0;
}

int ibv_query_gid(struct ibv_context *ctx, uint8_t port, int index, union ibv_gid *gid)
{
	(void)ctx;
	(void)port;
	(void)index;
	memset(gid, 0, sizeof(*gid));
	gid->raw[10] = gid->raw[11] = 0xff;
	gid->raw[12] = 127;
	gid->raw[15] = 1;
	return 0;
}

int ibv_destroy_qp(struct ibv_qp *qp)
{
	free(qp);
	return 0;
}

/* Address handles need the GRH (RoCE), as a RoCE device's kernel asks. */
struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	if (!attr->is_global) {
		errno = EINVAL;
		return NULL;
	}
	struct ibv_ah *ah = calloc(1, sizeof(*ah));
	if (!ah)
		return NULL;
	ah->context = pd->context;
	ah->pd = pd;
	return ah;
}

int ibv_destroy_ah(struct ibv_ah *ah)
{
	free(ah);
	return 0;
}

/* Multicast groups only for UD QPs, as ib_attach_mcast has it. */
int ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	(void)lid;
	return qp->qp_type != IBV_QPT_UD || gid->raw[0] != 0xff ? EINVAL : 0;
}

int ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	return ibv_attach_mcast(qp, gid, lid);
}

struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	(void)qp;
	return NULL;
}

int ibv_get_async_event(struct ibv_context *ctx, struct ibv_async_event *event)
{
	(void)ctx;
	struct ibv_qp *qp = __atomic_load_n(&newest_qp, __ATOMIC_ACQUIRE);
	if (!qp) {
		errno = EAGAIN;
		return -1;
	}
	memset(event, 0, sizeof(*event));
	event->event_type = IBV_EVENT_COMM_EST;
	event->element.qp = qp;
	return 0;
}

void ibv_ack_async_event(struct ibv_async_event *event)
{
	(void)event;
}

int mlx5dv_init_obj(struct mlx5dv_obj *obj, uint64_t obj_type)
{
	(void)obj;
	(void)obj_type;
	return 0;
}

/*
 * A null verbs provider for the probe's unit tests and benchmark: a real
 * struct verbs_context / ibv_context layout whose ops do nothing but count
 * calls and hand back completions queued by the test, so the probe's hook
 * path (ops-table replacement, extended QP/CQ hooks) runs exactly as it
 * would over a real provider, with no device and no libibverbs.
 */
#ifndef RDMATRACE_TEST_FAKE_PROVIDER_H
#define RDMATRACE_TEST_FAKE_PROVIDER_H

#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

struct fake_dev {
	struct ibv_device dev;
	struct verbs_context vctx;
	unsigned posted_send, posted_recv, posted_srq, polled;
	int fail_post_at;          /* >0: post_send fails at this WR (1-based), *bad set */
	struct ibv_wc queued[64];  /* completions poll_cq returns */
	int nqueued;
};

static struct fake_dev fake_dev_g;

static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	(void)qp;
	int i = 1;
	for (struct ibv_send_wr *w = wr; w; w = w->next, i++) {
		if (fake_dev_g.fail_post_at == i) {
			*bad = w;
			return ENOMEM;
		}
		__atomic_fetch_add(&fake_dev_g.posted_send, 1, __ATOMIC_RELAXED);
	}
	return 0;
}

static int fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)qp;
	(void)bad;
	for (struct ibv_recv_wr *w = wr; w; w = w->next)
		__atomic_fetch_add(&fake_dev_g.posted_recv, 1, __ATOMIC_RELAXED);
	return 0;
}

static int fake_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)srq;
	(void)bad;
	for (struct ibv_recv_wr *w = wr; w; w = w->next)
		__atomic_fetch_add(&fake_dev_g.posted_srq, 1, __ATOMIC_RELAXED);
	return 0;
}

static int fake_poll_cq(struct ibv_cq *cq, int num, struct ibv_wc *wc)
{
	(void)cq;
	int n = 0;
	fake_dev_g.polled++;
	while (n < num && fake_dev_g.nqueued > 0) {
		wc[n++] = fake_dev_g.queued[0];
		memmove(fake_dev_g.queued, fake_dev_g.queued + 1,
			sizeof(fake_dev_g.queued[0]) * (size_t)--fake_dev_g.nqueued);
	}
	return n;
}

static int fake_req_notify(struct ibv_cq *cq, int solicited)
{
	(void)cq;
	(void)solicited;
	return 0;
}

static struct ibv_context *fake_open(void)
{
	struct fake_dev *d = &fake_dev_g;
	memset(d, 0, sizeof(*d));
	strcpy(d->dev.name, "fake0");
	d->vctx.sz = sizeof(d->vctx);
	d->vctx.context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	d->vctx.context.device = &d->dev;
	d->vctx.context.ops.post_send = fake_post_send;
	d->vctx.context.ops.post_recv = fake_post_recv;
	d->vctx.context.ops.post_srq_recv = fake_post_srq_recv;
	d->vctx.context.ops.poll_cq = fake_poll_cq;
	d->vctx.context.ops.req_notify_cq = fake_req_notify;
	return &d->vctx.context;
}

static void fake_qp_init(struct ibv_qp *qp, struct ibv_context *ctx, uint32_t qpn,
			 enum ibv_qp_type type, struct ibv_cq *cq)
{
	memset(qp, 0, sizeof(*qp));
	qp->context = ctx;
	qp->qp_num = qpn;
	qp->qp_type = type;
	qp->send_cq = cq;
	qp->recv_cq = cq;
	qp->state = IBV_QPS_RESET;
}

#endif

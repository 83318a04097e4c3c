/*
 * The records of a create the provider refused (ibv_alloc_pd, ibv_create_cq,
 * ibv_create_qp, ibv_create_srq and their _ex forms): what the program asked
 * for and the errno, preceded by the device's limits as ibv_query_device
 * gives them (RT_EV_DEVICE_CAPS).  With both, the diagnosis can say which
 * request went beyond which limit ("max_send_wr 20000 is more than the
 * device's max_qp_wr 16384") instead of listing the usual causes.  A failure
 * is rare, so the query costs nothing that matters.  Runs inside
 * rt_probe_enter(); errno is the caller's to keep.
 */
#include <errno.h>
#include <string.h>

#include "probe.h"

uint8_t rt_probe_errno_byte(int err)
{
	if (err < 0)
		err = -err;
	return err > 0 && err < 256 ? (uint8_t)err : 0;
}

static uint32_t clamp_u32(int v)
{
	return v > 0 ? (uint32_t)v : 0;
}

/* v in 0..UINT16_MAX: the device's int limits and a request's uint32_t SGE counts alike */
static uint16_t clamp_u16(int64_t v)
{
	return v <= 0 ? 0 : v > UINT16_MAX ? UINT16_MAX : (uint16_t)v;
}

/* The device's limits, from the provider's own ibv_query_device (not a
 * wrapper), when it answers. */
static void emit_device_caps(struct ibv_context *ctx)
{
	int (*query)(struct ibv_context *, struct ibv_device_attr *) =
		(int (*)(struct ibv_context *, struct ibv_device_attr *))rt_probe_real_any("ibv_query_device");
	struct ibv_device_attr a;
	memset(&a, 0, sizeof(a));
	if (!ctx || !query || query(ctx, &a) != 0)
		return;
	const struct rt_probe_ctx *c = rt_probe_ctx_find(ctx);
	struct rt_event *ev = rt_event_begin(RT_EV_DEVICE_CAPS, 0);
	if (!ev)
		return;
	struct rt_ev_device_caps *d = &ev->u.device_caps;
	d->device_id = c ? c->id : 0;
	d->max_qp_wr = clamp_u32(a.max_qp_wr);
	d->max_cqe = clamp_u32(a.max_cqe);
	d->max_srq_wr = clamp_u32(a.max_srq_wr);
	d->max_qp = clamp_u32(a.max_qp);
	d->max_cq = clamp_u32(a.max_cq);
	d->max_srq = clamp_u32(a.max_srq);
	d->max_sge = clamp_u16(a.max_sge);
	d->max_srq_sge = clamp_u16(a.max_srq_sge);
	d->num_comp_vectors = clamp_u16(ctx->num_comp_vectors);
	rt_event_commit(ev);
}

void rt_probe_create_failed_pd(int err)
{
	struct rt_event *ev = rt_event_begin(RT_EV_PD, 0);
	if (!ev)
		return;
	ev->flags |= RT_EVF_ERROR;
	ev->u.object.error = rt_probe_errno_byte(err);
	rt_event_commit(ev);
}

void rt_probe_create_failed_cq(struct ibv_context *ctx, int cqe, int comp_vector, bool has_channel, bool extended,
			       int err)
{
	emit_device_caps(ctx);
	struct rt_event *ev = rt_event_begin(RT_EV_CQ_CREATE, 0);
	if (!ev)
		return;
	ev->flags |= RT_EVF_ERROR;
	ev->u.cq_create.cqe = (uint32_t)cqe; /* a negative count reads as a huge one */
	ev->u.cq_create.comp_vector = comp_vector;
	ev->u.cq_create.has_channel = has_channel;
	ev->u.cq_create.extended = extended;
	ev->u.cq_create.error = rt_probe_errno_byte(err);
	rt_event_commit(ev);
}

void rt_probe_create_failed_qp(struct ibv_context *ctx, const struct ibv_qp_init_attr_ex *a, bool extended, int err)
{
	emit_device_caps(ctx);
	struct rt_event *ev = rt_event_begin(RT_EV_QP_CREATE, 0);
	if (!ev)
		return;
	ev->flags |= RT_EVF_ERROR;
	struct rt_ev_qp_create *q = &ev->u.qp_create;
	q->error = rt_probe_errno_byte(err);
	q->extended = extended;
	if (a) {
		q->qp_type = (uint8_t)a->qp_type;
		q->send_cq_id = rt_probe_cq_id(a->send_cq);
		q->recv_cq_id = rt_probe_cq_id(a->recv_cq);
		q->srq_num = rt_probe_srq_num(a->srq);
		q->pd_id = (a->comp_mask & IBV_QP_INIT_ATTR_PD) ? rt_probe_pd_id(a->pd) : 0;
		q->max_send_wr = a->cap.max_send_wr;
		q->max_recv_wr = a->cap.max_recv_wr;
		q->max_inline = a->cap.max_inline_data;
		q->max_send_sge = clamp_u16(a->cap.max_send_sge);
		q->max_recv_sge = clamp_u16(a->cap.max_recv_sge);
		q->sq_sig_all = (uint8_t)!!a->sq_sig_all;
	}
	rt_event_commit(ev);
}

void rt_probe_create_failed_srq(struct ibv_context *ctx, struct ibv_pd *pd, const struct ibv_srq_attr *a, int err)
{
	emit_device_caps(ctx);
	struct rt_event *ev = rt_event_begin(RT_EV_SRQ_CREATE, 0);
	if (!ev)
		return;
	ev->flags |= RT_EVF_ERROR;
	ev->u.object.error = rt_probe_errno_byte(err);
	ev->u.object.pd_id = rt_probe_pd_id(pd);
	if (a) {
		ev->u.object.max_wr = a->max_wr;
		ev->u.object.max_sge = a->max_sge;
		ev->u.object.srq_limit = a->srq_limit;
	}
	rt_event_commit(ev);
}

/*
 * The exported libibverbs entry points the probe wraps.  Each wrapper calls
 * the real function (found lazily with dlsym(RTLD_NEXT), see real.c), then,
 * unless tracing is off or the call comes from inside the probe, records
 * what happened and keeps the object tables up to date.  The program sees
 * exactly the real function's result and errno.
 *
 * ibv_reg_mr is also a macro in recent verbs.h (__ibv_reg_mr picks
 * ibv_reg_mr or ibv_reg_mr_iova2): both exported functions are wrapped, so
 * programs built against old and new headers are covered.  The wrappers are
 * unversioned, which lets them interpose on any version a program bound to.
 */
#include <errno.h>
#include <string.h>

#include "probe.h"

#undef ibv_reg_mr
#undef ibv_reg_mr_iova

typedef struct ibv_context *open_device_fn(struct ibv_device *);
typedef int close_device_fn(struct ibv_context *);
typedef struct ibv_pd *alloc_pd_fn(struct ibv_context *);
typedef int dealloc_pd_fn(struct ibv_pd *);
typedef struct ibv_mr *reg_mr_fn(struct ibv_pd *, void *, size_t, int);
typedef struct ibv_mr *reg_mr_iova_fn(struct ibv_pd *, void *, size_t, uint64_t, int);
typedef struct ibv_mr *reg_mr_iova2_fn(struct ibv_pd *, void *, size_t, uint64_t, unsigned);
typedef struct ibv_mr *reg_dmabuf_mr_fn(struct ibv_pd *, uint64_t, size_t, uint64_t, int, int);
typedef int rereg_mr_fn(struct ibv_mr *, int, struct ibv_pd *, void *, size_t, int);
typedef int dereg_mr_fn(struct ibv_mr *);
typedef struct ibv_cq *create_cq_fn(struct ibv_context *, int, void *, struct ibv_comp_channel *, int);
typedef int destroy_cq_fn(struct ibv_cq *);
typedef struct ibv_qp *create_qp_fn(struct ibv_pd *, struct ibv_qp_init_attr *);
typedef int destroy_qp_fn(struct ibv_qp *);
typedef int modify_qp_fn(struct ibv_qp *, struct ibv_qp_attr *, int);
typedef struct ibv_srq *create_srq_fn(struct ibv_pd *, struct ibv_srq_init_attr *);
typedef int destroy_srq_fn(struct ibv_srq *);
typedef int get_async_event_fn(struct ibv_context *, struct ibv_async_event *);

RT_PROBE_REAL(open_device_fn, ibv_open_device)
RT_PROBE_REAL(close_device_fn, ibv_close_device)
RT_PROBE_REAL(alloc_pd_fn, ibv_alloc_pd)
RT_PROBE_REAL(dealloc_pd_fn, ibv_dealloc_pd)
RT_PROBE_REAL(reg_mr_fn, ibv_reg_mr)
RT_PROBE_REAL(reg_mr_iova_fn, ibv_reg_mr_iova)
RT_PROBE_REAL(reg_mr_iova2_fn, ibv_reg_mr_iova2)
RT_PROBE_REAL(reg_dmabuf_mr_fn, ibv_reg_dmabuf_mr)
RT_PROBE_REAL(rereg_mr_fn, ibv_rereg_mr)
RT_PROBE_REAL(dereg_mr_fn, ibv_dereg_mr)
RT_PROBE_REAL(create_cq_fn, ibv_create_cq)
RT_PROBE_REAL(destroy_cq_fn, ibv_destroy_cq)
RT_PROBE_REAL(create_qp_fn, ibv_create_qp)
RT_PROBE_REAL(destroy_qp_fn, ibv_destroy_qp)
RT_PROBE_REAL(modify_qp_fn, ibv_modify_qp)
RT_PROBE_REAL(create_srq_fn, ibv_create_srq)
RT_PROBE_REAL(destroy_srq_fn, ibv_destroy_srq)
RT_PROBE_REAL(get_async_event_fn, ibv_get_async_event)

/* When the real function cannot be found: fail the call like a provider would. */
#define REAL_OR(fn, fail)                 \
	do {                              \
		if (!real_##fn()) {       \
			errno = ENOSYS;   \
			return fail;      \
		}                         \
	} while (0)

/* ---- devices and PDs ---- */

struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	REAL_OR(ibv_open_device, NULL);
	rt_probe_ensure_started();
	struct ibv_context *ctx = real_ibv_open_device()(device);
	if (ctx && rt_probe_enter()) {
		rt_probe_ctx_of(ctx);
		rt_probe_leave();
	}
	return ctx;
}

int ibv_close_device(struct ibv_context *ctx)
{
	REAL_OR(ibv_close_device, ENOSYS);
	int rc = real_ibv_close_device()(ctx);
	if (rc == 0 && rt_probe_enter()) {
		rt_probe_ctx_forget(ctx);
		rt_probe_leave();
	}
	return rc;
}

struct ibv_pd *ibv_alloc_pd(struct ibv_context *ctx)
{
	REAL_OR(ibv_alloc_pd, NULL);
	struct ibv_pd *pd = real_ibv_alloc_pd()(ctx);
	if (rt_probe_enter()) {
		int err = errno;
		rt_probe_ctx_of(ctx);
		if (pd)
			rt_probe_track_pd(pd);
		else
			rt_probe_create_failed_pd(err);
		rt_probe_leave();
		errno = err;
	}
	return pd;
}

int ibv_dealloc_pd(struct ibv_pd *pd)
{
	REAL_OR(ibv_dealloc_pd, ENOSYS);
	int rc = real_ibv_dealloc_pd()(pd);
	if (rt_probe_enter()) {
		rt_probe_untrack_pd(pd, rc);
		rt_probe_leave();
	}
	return rc;
}

/* ---- memory regions ---- */

/* An MR registered (mr), deregistered (RT_EVF_DESTROY) or refused (mr NULL:
 * err is the errno the registration left, recorded in lkey). */
static void emit_mr(const struct ibv_mr *mr, struct ibv_pd *pd, const void *addr, size_t len,
		    uint64_t iova, unsigned access, uint16_t flags, int err)
{
	struct rt_event *ev = rt_event_begin(RT_EV_MR, 0);
	if (!ev)
		return;
	ev->flags |= flags;
	ev->u.mr.addr = (uint64_t)(uintptr_t)addr;
	ev->u.mr.length = len;
	ev->u.mr.iova = iova;
	ev->u.mr.access = access;
	ev->u.mr.pd_id = rt_probe_pd_id(pd);
	if (mr) {
		ev->u.mr.lkey = mr->lkey;
		ev->u.mr.rkey = mr->rkey;
	} else {
		ev->u.mr.lkey = (uint32_t)(err > 0 ? err : 0);
	}
	rt_event_commit(ev);
}

/*
 * Set while a real registration call runs on this thread: libibverbs may
 * implement one variant with another (ibv_reg_mr -> ibv_reg_mr_iova2)
 * through its PLT, which lands in a wrapper again; only the outer call is
 * recorded.
 */
static __thread int in_reg_mr __attribute__((tls_model("initial-exec")));

#define REG_MR(call)                      \
	({                                \
		in_reg_mr++;              \
		struct ibv_mr *m_ = call; \
		in_reg_mr--;              \
		m_;                       \
	})

static struct ibv_mr *mr_done(struct ibv_mr *mr, struct ibv_pd *pd, void *addr, size_t len,
			      uint64_t iova, unsigned access)
{
	if (!in_reg_mr && rt_probe_enter()) {
		int err = errno;
		rt_probe_ctx_of(pd ? pd->context : NULL);
		emit_mr(mr, pd, addr, len, iova, access, mr ? 0 : RT_EVF_ERROR, err);
		rt_probe_leave();
		errno = err;
	}
	return mr;
}

struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	REAL_OR(ibv_reg_mr, NULL);
	return mr_done(REG_MR(real_ibv_reg_mr()(pd, addr, length, access)), pd, addr, length,
		       (uint64_t)(uintptr_t)addr, (unsigned)access);
}

struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
			       int access)
{
	REAL_OR(ibv_reg_mr_iova, NULL);
	return mr_done(REG_MR(real_ibv_reg_mr_iova()(pd, addr, length, iova, access)), pd, addr, length,
		       iova, (unsigned)access);
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
				unsigned int access)
{
	REAL_OR(ibv_reg_mr_iova2, NULL);
	return mr_done(REG_MR(real_ibv_reg_mr_iova2()(pd, addr, length, iova, access)), pd, addr, length,
		       iova, access);
}

struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
				 uint64_t iova, int fd, int access)
{
	REAL_OR(ibv_reg_dmabuf_mr, NULL);
	return mr_done(REG_MR(real_ibv_reg_dmabuf_mr()(pd, offset, length, iova, fd, access)), pd,
		       (void *)(uintptr_t)offset, length, iova, (unsigned)access);
}

int ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr, size_t length,
		 int access)
{
	REAL_OR(ibv_rereg_mr, IBV_REREG_MR_ERR_INPUT);
	int rc = real_ibv_rereg_mr()(mr, flags, pd, addr, length, access);
	if (rc == 0 && rt_probe_enter()) {
		emit_mr(mr, mr->pd, mr->addr, mr->length, (uint64_t)(uintptr_t)mr->addr,
			(flags & IBV_REREG_MR_CHANGE_ACCESS) ? (unsigned)access : 0, 0, 0);
		rt_probe_leave();
	}
	return rc;
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
	REAL_OR(ibv_dereg_mr, ENOSYS);
	struct ibv_mr copy;
	if (mr)
		copy = *mr;
	else
		memset(&copy, 0, sizeof(copy));
	int rc = real_ibv_dereg_mr()(mr);
	if (rt_probe_enter()) {
		emit_mr(&copy, copy.pd, copy.addr, copy.length, (uint64_t)(uintptr_t)copy.addr, 0,
			RT_EVF_DESTROY | (rc ? RT_EVF_ERROR : 0), 0);
		rt_probe_leave();
	}
	return rc;
}

/* ---- CQs, QPs, SRQs ---- */

struct ibv_cq *ibv_create_cq(struct ibv_context *ctx, int cqe, void *cq_context,
			     struct ibv_comp_channel *channel, int comp_vector)
{
	REAL_OR(ibv_create_cq, NULL);
	struct ibv_cq *cq = real_ibv_create_cq()(ctx, cqe, cq_context, channel, comp_vector);
	if (rt_probe_enter()) {
		int err = errno;
		rt_probe_ctx_of(ctx);
		if (cq)
			rt_probe_track_cq(cq, cq->cqe, comp_vector, channel != NULL, false, 0);
		else
			rt_probe_create_failed_cq(ctx, cqe, comp_vector, channel != NULL, false, err);
		rt_probe_leave();
		errno = err;
	}
	return cq;
}

int ibv_destroy_cq(struct ibv_cq *cq)
{
	REAL_OR(ibv_destroy_cq, ENOSYS);
	int rc = real_ibv_destroy_cq()(cq);
	if (rt_probe_enter()) {
		rt_probe_untrack_cq(cq, rc);
		rt_probe_leave();
	}
	return rc;
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	REAL_OR(ibv_create_qp, NULL);
	struct ibv_qp *qp = real_ibv_create_qp()(pd, attr);
	if (rt_probe_enter()) {
		int err = errno;
		rt_probe_ctx_of(pd ? pd->context : NULL);
		struct ibv_qp_init_attr_ex ax = {.comp_mask = IBV_QP_INIT_ATTR_PD, .pd = pd};
		if (attr) {
			ax.qp_context = attr->qp_context;
			ax.send_cq = attr->send_cq;
			ax.recv_cq = attr->recv_cq;
			ax.srq = attr->srq;
			ax.cap = attr->cap;
			ax.qp_type = attr->qp_type;
			ax.sq_sig_all = attr->sq_sig_all;
		}
		if (qp)
			rt_probe_track_qp(qp, &ax, false);
		else
			rt_probe_create_failed_qp(pd ? pd->context : NULL, &ax, false, err);
		rt_probe_leave();
		errno = err;
	}
	return qp;
}

int ibv_destroy_qp(struct ibv_qp *qp)
{
	REAL_OR(ibv_destroy_qp, ENOSYS);
	int rc = real_ibv_destroy_qp()(qp);
	if (rt_probe_enter()) {
		rt_probe_untrack_qp(qp, rc);
		rt_probe_leave();
	}
	return rc;
}

int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	REAL_OR(ibv_modify_qp, ENOSYS);
	int rc = real_ibv_modify_qp()(qp, attr, mask);
	if (rt_probe_enter()) {
		int err = errno;
		rt_probe_ctx_of(qp->context);
		rt_probe_qp_modified(qp, attr, mask, rc);
		rt_probe_leave();
		errno = err;
	}
	return rc;
}

struct ibv_srq *ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	REAL_OR(ibv_create_srq, NULL);
	struct ibv_srq *srq = real_ibv_create_srq()(pd, attr);
	if (rt_probe_enter()) {
		int err = errno;
		rt_probe_ctx_of(pd ? pd->context : NULL);
		if (srq)
			rt_probe_track_srq(srq, pd, &attr->attr);
		else
			rt_probe_create_failed_srq(pd ? pd->context : NULL, pd, attr ? &attr->attr : NULL, err);
		rt_probe_leave();
		errno = err;
	}
	return srq;
}

int ibv_destroy_srq(struct ibv_srq *srq)
{
	REAL_OR(ibv_destroy_srq, ENOSYS);
	int rc = real_ibv_destroy_srq()(srq);
	if (rt_probe_enter()) {
		rt_probe_untrack_srq(srq, rc);
		rt_probe_leave();
	}
	return rc;
}

/* ---- asynchronous events ---- */

int ibv_get_async_event(struct ibv_context *ctx, struct ibv_async_event *event)
{
	REAL_OR(ibv_get_async_event, -1);
	int rc = real_ibv_get_async_event()(ctx, event);
	if (rc != 0 || !rt_probe_enter())
		return rc;
	int err = errno;
	uint32_t qpn = 0, element = 0;
	switch (event->event_type) {
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		qpn = element = event->element.qp ? event->element.qp->qp_num : 0;
		break;
	case IBV_EVENT_CQ_ERR:
		element = rt_probe_cq_id(event->element.cq);
		break;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		element = rt_probe_srq_num(event->element.srq);
		break;
	case IBV_EVENT_WQ_FATAL:
		element = event->element.wq ? event->element.wq->wq_num : 0;
		break;
	case IBV_EVENT_DEVICE_FATAL:
		break;
	default:
		element = (uint32_t)event->element.port_num;
		break;
	}
	struct rt_event *ev = rt_event_begin(RT_EV_ASYNC, qpn);
	if (ev) {
		if (event->event_type == IBV_EVENT_QP_FATAL || event->event_type == IBV_EVENT_CQ_ERR ||
		    event->event_type == IBV_EVENT_QP_REQ_ERR ||
		    event->event_type == IBV_EVENT_QP_ACCESS_ERR ||
		    event->event_type == IBV_EVENT_DEVICE_FATAL || event->event_type == IBV_EVENT_PORT_ERR)
			ev->flags |= RT_EVF_ERROR;
		ev->u.async.event_type = (uint32_t)event->event_type;
		ev->u.async.element = element;
		rt_event_commit(ev);
	}
	rt_probe_leave();
	errno = err;
	return rc;
}

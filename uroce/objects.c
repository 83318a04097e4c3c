/*
 * The simple verbs objects: protection domains, memory regions (a key table
 * per context; lkey == rkey), completion queues with completion channels (a
 * pipe carrying the CQ pointer, so the channel fd is pollable), shared
 * receive queues, address handles, and asynchronous events (a pipe behind
 * context->async_fd).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "uroce.h"

struct async_rec {
	enum ibv_event_type type;
	void *element;
};

/* ------------------------------------------------------------------ PD */

UROCE_EXPORT struct ibv_pd *ibv_alloc_pd(struct ibv_context *c)
{
	if (!c) {
		errno = EINVAL;
		return NULL;
	}
	struct uroce_ctx *ctx = to_uctx(c);
	struct uroce_pd *pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	pd->ibpd.context = c;
	pd->id = __atomic_add_fetch(&ctx->next_pdid, 1, __ATOMIC_RELAXED);
	pd->ibpd.handle = pd->id;
	struct rt_event *ev = uroce_ev_begin(RT_EV_PD, 0);
	if (ev) {
		ev->u.object.id = pd->id;
		uroce_ev_commit(ev);
	}
	return &pd->ibpd;
}

UROCE_EXPORT int ibv_dealloc_pd(struct ibv_pd *ibpd)
{
	if (!ibpd)
		return EINVAL;
	struct rt_event *ev = uroce_ev_begin(RT_EV_PD, 0);
	if (ev) {
		ev->flags |= RT_EVF_DESTROY;
		ev->u.object.id = to_upd(ibpd)->id;
		uroce_ev_commit(ev);
	}
	free(to_upd(ibpd));
	return 0;
}

/* ------------------------------------------------------------------ MR */

struct uroce_mr *uroce_mr_lookup(struct uroce_ctx *ctx, uint32_t key)
{
	uint32_t idx = key >> 8;
	if (idx >= ctx->mr_cap)
		return NULL;
	struct uroce_mr *mr = ctx->mrs[idx];
	return mr && mr->valid ? mr : NULL;
}

static void trace_mr(struct uroce_mr *mr, bool destroy)
{
	struct rt_event *ev = uroce_ev_begin(RT_EV_MR, 0);
	if (!ev)
		return;
	if (destroy)
		ev->flags |= RT_EVF_DESTROY;
	ev->u.mr.addr = (uint64_t)(uintptr_t)mr->ibmr.addr;
	ev->u.mr.length = mr->ibmr.length;
	ev->u.mr.iova = mr->iova;
	ev->u.mr.lkey = mr->ibmr.lkey;
	ev->u.mr.rkey = mr->ibmr.rkey;
	ev->u.mr.access = mr->access;
	ev->u.mr.pd_id = to_upd(mr->ibmr.pd)->id;
	uroce_ev_commit(ev);
}

static struct ibv_mr *reg_mr(struct ibv_pd *pd, void *addr, size_t len, uint64_t iova, unsigned access)
{
	const unsigned known = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
	                       IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND | IBV_ACCESS_ZERO_BASED |
	                       IBV_ACCESS_ON_DEMAND | IBV_ACCESS_HUGETLB | IBV_ACCESS_RELAXED_ORDERING;
	if (!pd || (access & ~known) || (!addr && len) ||
	    ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) && !(access & IBV_ACCESS_LOCAL_WRITE))) {
		errno = EINVAL;
		return NULL;
	}
	struct uroce_ctx *ctx = to_uctx(pd->context);
	struct uroce_mr *mr = calloc(1, sizeof(*mr));
	if (!mr) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&ctx->lock);
	uint32_t idx = 0;
	for (uint32_t i = 0; i < ctx->mr_cap; i++) {
		uint32_t k = (ctx->mr_next + i) % ctx->mr_cap;
		if (k && !ctx->mrs[k]) {
			idx = k;
			break;
		}
	}
	if (!idx) {
		unsigned cap = ctx->mr_cap ? ctx->mr_cap * 2 : 64;
		struct uroce_mr **n = cap <= UROCE_MAX_MR ? realloc(ctx->mrs, cap * sizeof(*n)) : NULL;
		if (!n) {
			pthread_mutex_unlock(&ctx->lock);
			free(mr);
			errno = ENOMEM;
			return NULL;
		}
		memset(n + ctx->mr_cap, 0, (cap - ctx->mr_cap) * sizeof(*n));
		idx = ctx->mr_cap ? ctx->mr_cap : 1;
		ctx->mrs = n;
		ctx->mr_cap = cap;
	}
	ctx->mr_next = idx + 1;
	static uint8_t salt = 0x5A;
	salt = (uint8_t)(salt * 37 + 11);
	uint32_t key = idx << 8 | salt;
	mr->ibmr.context = pd->context;
	mr->ibmr.pd = pd;
	mr->ibmr.addr = addr;
	mr->ibmr.length = len;
	mr->ibmr.handle = idx;
	mr->ibmr.lkey = mr->ibmr.rkey = key;
	mr->iova = (access & IBV_ACCESS_ZERO_BASED) ? 0 : iova;
	mr->access = access;
	mr->valid = true;
	ctx->mrs[idx] = mr;
	pthread_mutex_unlock(&ctx->lock);
	trace_mr(mr, false);
	return &mr->ibmr;
}

#undef ibv_reg_mr
UROCE_EXPORT struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t len, int access);
struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t len, int access)
{
	return reg_mr(pd, addr, len, (uint64_t)(uintptr_t)addr, (unsigned)access);
}

#undef ibv_reg_mr_iova
UROCE_EXPORT struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t len, uint64_t iova, int access);
struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t len, uint64_t iova, int access)
{
	return reg_mr(pd, addr, len, iova, (unsigned)access);
}

UROCE_EXPORT struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t len, uint64_t iova,
                                             unsigned int access)
{
	return reg_mr(pd, addr, len, iova, access);
}

UROCE_EXPORT int ibv_dereg_mr(struct ibv_mr *ibmr)
{
	if (!ibmr)
		return EINVAL;
	struct uroce_mr *mr = to_umr(ibmr);
	struct uroce_ctx *ctx = to_uctx(ibmr->context);
	trace_mr(mr, true);
	pthread_mutex_lock(&ctx->lock);
	uint32_t idx = ibmr->lkey >> 8;
	if (idx < ctx->mr_cap && ctx->mrs[idx] == mr)
		ctx->mrs[idx] = NULL;
	pthread_mutex_unlock(&ctx->lock);
	free(mr);
	return 0;
}

/* ------------------------------------------------------------------ CQ */

#define CH_PIPE_TAG 0xFFFFFFFFu

/* The channel this thread waits on in ibv_get_cq_event, and the first event
   its own reception produced for it (uroce_cq_push): no pipe round trip. */
static __thread struct {
	struct uroce_comp_channel *ch;
	struct ibv_cq *cq;
} tls_waiter;

UROCE_EXPORT struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *c)
{
	if (!c) {
		errno = EINVAL;
		return NULL;
	}
	struct uroce_ctx *ctx = to_uctx(c);
	struct uroce_comp_channel *ch = calloc(1, sizeof(*ch));
	int p[2];
	if (!ch || pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0) {
		free(ch);
		errno = ENOMEM;
		return NULL;
	}
	int ep = epoll_create1(EPOLL_CLOEXEC), wait = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0 || wait < 0) {
		if (ep >= 0)
			close(ep);
		if (wait >= 0)
			close(wait);
		close(p[0]);
		close(p[1]);
		free(ch);
		errno = EMFILE;
		return NULL;
	}
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = CH_PIPE_TAG };
	epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev);
	epoll_ctl(wait, EPOLL_CTL_ADD, p[0], &ev);
	ch->ibch.context = c;
	ch->ibch.fd = ep;
	ch->wait_fd = wait;
	ch->rfd = p[0];
	ch->wfd = p[1];
	pthread_mutex_lock(&ctx->lock);
	ev.events = EPOLLIN | EPOLLEXCLUSIVE;
	for (int i = 0; i < UROCE_MAX_GID; i++)
		if (ctx->addrs[i].used && !ctx->addrs[i].borrowed) {
			ev.data.u32 = (uint32_t)i;
			epoll_ctl(wait, EPOLL_CTL_ADD, ctx->addrs[i].fd, &ev);
		}
	ch->next = ctx->channels;
	ctx->channels = ch;
	/* Exclusive wake-ups go to the first registered waiter that sleeps: move the
	   progress thread behind this channel so a sleeping application is woken
	   directly by its packet (the thread still gets it when nobody sleeps here). */
	uroce_engine_requeue(ctx);
	pthread_mutex_unlock(&ctx->lock);
	return &ch->ibch;
}

UROCE_EXPORT int ibv_destroy_comp_channel(struct ibv_comp_channel *ibch)
{
	if (!ibch)
		return EINVAL;
	if (ibch->refcnt)
		return EBUSY;
	struct uroce_comp_channel *ch = UROCE_CONTAINER(ibch, struct uroce_comp_channel, ibch);
	struct uroce_ctx *ctx = to_uctx(ibch->context);
	pthread_mutex_lock(&ctx->lock);
	for (struct uroce_comp_channel **pp = &ctx->channels; *pp; pp = &(*pp)->next)
		if (*pp == ch) {
			*pp = ch->next;
			break;
		}
	pthread_mutex_unlock(&ctx->lock);
	close(ch->ibch.fd);
	close(ch->wait_fd);
	close(ch->rfd);
	close(ch->wfd);
	free(ch);
	return 0;
}

static void trace_cq(struct uroce_cq *cq, bool destroy)
{
	struct rt_event *ev = uroce_ev_begin(RT_EV_CQ_CREATE, 0);
	if (!ev)
		return;
	if (destroy)
		ev->flags |= RT_EVF_DESTROY;
	ev->u.cq_create.cq_id = cq->id;
	ev->u.cq_create.cqe = (uint32_t)cq->ibcq.cqe;
	ev->u.cq_create.has_channel = cq->ibcq.channel != NULL;
	uroce_ev_commit(ev);
}

UROCE_EXPORT struct ibv_cq *ibv_create_cq(struct ibv_context *c, int cqe, void *cq_context,
                                          struct ibv_comp_channel *channel, int comp_vector)
{
	if (!c || cqe < 1 || cqe > UROCE_MAX_CQE || comp_vector < 0 || comp_vector >= c->num_comp_vectors) {
		errno = EINVAL;
		return NULL;
	}
	struct uroce_ctx *ctx = to_uctx(c);
	struct uroce_cq *cq = calloc(1, sizeof(*cq));
	unsigned n = 1;
	while (n < (unsigned)cqe + 1)
		n <<= 1;
	if (cq)
		cq->ring = calloc(n, sizeof(*cq->ring));
	if (!cq || !cq->ring) {
		free(cq);
		errno = ENOMEM;
		return NULL;
	}
	cq->mask = n - 1;
	cq->id = __atomic_add_fetch(&ctx->next_cqid, 1, __ATOMIC_RELAXED);
	pthread_mutex_init(&cq->lock, NULL);
	cq->ibcq.context = c;
	cq->ibcq.channel = channel;
	cq->ibcq.cq_context = cq_context;
	cq->ibcq.handle = cq->id;
	cq->ibcq.cqe = (int)n - 1;
	pthread_mutex_init(&cq->ibcq.mutex, NULL);
	pthread_cond_init(&cq->ibcq.cond, NULL);
	if (channel)
		__atomic_add_fetch(&channel->refcnt, 1, __ATOMIC_RELAXED);
	trace_cq(cq, false);
	return &cq->ibcq;
}

UROCE_EXPORT int ibv_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct uroce_cq *cq = to_ucq(ibcq);
	if (cqe < 1 || cqe > UROCE_MAX_CQE)
		return EINVAL;
	unsigned n = 1;
	while (n < (unsigned)cqe + 1)
		n <<= 1;
	pthread_mutex_lock(&cq->lock);
	if (n < cq->count + 1) {
		pthread_mutex_unlock(&cq->lock);
		return EINVAL;
	}
	struct ibv_wc *ring = calloc(n, sizeof(*ring));
	if (!ring) {
		pthread_mutex_unlock(&cq->lock);
		return ENOMEM;
	}
	for (unsigned i = 0; i < cq->count; i++)
		ring[i] = cq->ring[(cq->tail + i) & cq->mask];
	free(cq->ring);
	cq->ring = ring;
	cq->tail = 0;
	cq->head = cq->count;
	cq->mask = n - 1;
	ibcq->cqe = (int)n - 1;
	pthread_mutex_unlock(&cq->lock);
	return 0;
}

UROCE_EXPORT int ibv_destroy_cq(struct ibv_cq *ibcq)
{
	if (!ibcq)
		return EINVAL;
	struct uroce_cq *cq = to_ucq(ibcq);
	trace_cq(cq, true);
	if (ibcq->channel) {
		if (cq->armed_counted)
			__atomic_sub_fetch(&to_uctx(ibcq->context)->armed_channel_cqs, 1, __ATOMIC_RELAXED);
		__atomic_sub_fetch(&ibcq->channel->refcnt, 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_destroy(&cq->lock);
	free(cq->ring);
	free(cq);
	return 0;
}

void uroce_cq_push(struct uroce_cq *cq, const struct ibv_wc *wc, bool solicited)
{
	bool notify = false, overflow = false;
	pthread_mutex_lock(&cq->lock);
	if (cq->count > cq->mask) {
		overflow = !cq->overflowed;
		cq->overflowed = true;
	} else {
		cq->ring[cq->head & cq->mask] = *wc;
		cq->head++;
		__atomic_store_n(&cq->count, cq->count + 1, __ATOMIC_RELEASE);
		if (cq->armed && (cq->armed == 1 || solicited || wc->status != IBV_WC_SUCCESS)) {
			cq->armed = 0;
			notify = true;
			if (cq->armed_counted) {
				cq->armed_counted = false;
				__atomic_sub_fetch(&to_uctx(cq->ibcq.context)->armed_channel_cqs, 1, __ATOMIC_RELAXED);
			}
		}
	}
	pthread_mutex_unlock(&cq->lock);
	struct rt_event *ev = uroce_ev_begin(RT_EV_COMPLETION, wc->qp_num);
	if (ev) {
		struct rt_ev_completion *c = &ev->u.wc;
		c->wr_id = wc->wr_id;
		c->byte_len = wc->byte_len;
		c->src_qp = wc->src_qp;
		c->imm = wc->imm_data;
		c->cq_id = cq->id;
		c->wc_flags = (uint16_t)wc->wc_flags;
		c->status = (uint8_t)wc->status;
		c->opcode = (uint8_t)wc->opcode;
		if (wc->status != IBV_WC_SUCCESS)
			ev->flags |= RT_EVF_ERROR;
		uroce_ev_commit(ev);
	}
	if (notify && cq->ibcq.channel) {
		struct uroce_comp_channel *ch = UROCE_CONTAINER(cq->ibcq.channel, struct uroce_comp_channel, ibch);
		if (tls_waiter.ch == ch && !tls_waiter.cq) {
			tls_waiter.cq = &cq->ibcq; /* this thread is in ibv_get_cq_event on ch: hand it over */
		} else {
			struct ibv_cq *p = &cq->ibcq;
			if (write(ch->wfd, &p, sizeof(p)) == (ssize_t)sizeof(p))
				__atomic_add_fetch(&ch->queued, 1, __ATOMIC_RELEASE);
			/* else the pipe is full: the consumer has thousands of unread events */
		}
	}
	if (overflow)
		uroce_async_event(to_uctx(cq->ibcq.context), IBV_EVENT_CQ_ERR, cq);
}

static int poll_cq(struct ibv_cq *ibcq, int n, struct ibv_wc *wc)
{
	struct uroce_cq *cq = to_ucq(ibcq);
	if (n <= 0)
		return 0;
	if (!__atomic_load_n(&cq->count, __ATOMIC_ACQUIRE) &&
	    (!uroce_poll_progress(to_uctx(ibcq->context)) || !__atomic_load_n(&cq->count, __ATOMIC_ACQUIRE)))
		return 0;
	pthread_mutex_lock(&cq->lock);
	int k = 0;
	while (k < n && cq->count) {
		wc[k++] = cq->ring[cq->tail & cq->mask];
		cq->tail++;
		__atomic_store_n(&cq->count, cq->count - 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&cq->lock);
	return k;
}

static int req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct uroce_cq *cq = to_ucq(ibcq);
	/* Its application may wait in poll() on the channel fd unless it was
	   seen sleeping in ibv_get_cq_event (uroce_channel_armed). */
	bool newly = false;
	struct uroce_comp_channel *ch =
		ibcq->channel ? UROCE_CONTAINER(ibcq->channel, struct uroce_comp_channel, ibch) : NULL;
	pthread_mutex_lock(&cq->lock);
	if (ch && !cq->armed_counted && !__atomic_load_n(&ch->slept_inside, __ATOMIC_RELAXED)) {
		__atomic_add_fetch(&to_uctx(ibcq->context)->armed_channel_cqs, 1, __ATOMIC_RELAXED);
		cq->armed_counted = newly = true;
	}
	cq->armed = solicited_only ? 2 : 1;
	pthread_mutex_unlock(&cq->lock);
	if (newly)
		uroce_channel_armed(to_uctx(ibcq->context));
	return 0;
}

/* The next event from the channel's pipe, if it holds one. */
static bool take_queued_event(struct uroce_comp_channel *ch, struct ibv_cq **cq)
{
	if (!__atomic_load_n(&ch->queued, __ATOMIC_ACQUIRE))
		return false;
	if (read(ch->rfd, cq, sizeof(*cq)) != (ssize_t)sizeof(*cq))
		return false; /* another thread took it */
	__atomic_sub_fetch(&ch->queued, 1, __ATOMIC_RELEASE);
	return true;
}

/* Receive on the channel's context; an event this produces for ch comes back directly. */
static bool progress_for_event(struct uroce_comp_channel *ch, struct ibv_cq **cq)
{
	tls_waiter.ch = ch;
	tls_waiter.cq = NULL;
	uroce_progress_blocking(to_uctx(ch->ibch.context));
	*cq = tls_waiter.cq;
	tls_waiter.ch = NULL;
	tls_waiter.cq = NULL;
	return *cq || take_queued_event(ch, cq);
}

/*
 * Wait for a completion event.  The thread sleeps on the channel's wait set,
 * the event pipe and the context's sockets (level-triggered), until an event
 * or a packet is there, then receives itself: no hand-off to the progress
 * thread on the way.  The fd the application sees (ibch.fd) holds the pipe
 * alone: a packet that brings no event (a CM message, an ACK of unsignaled
 * WRs) must not make it readable, or a program that polls it beside another
 * fd and then calls this blocking would sleep here past what it waits for.
 */
UROCE_EXPORT int ibv_get_cq_event(struct ibv_comp_channel *ibch, struct ibv_cq **cq, void **cq_context)
{
	struct uroce_comp_channel *ch = UROCE_CONTAINER(ibch, struct uroce_comp_channel, ibch);
	struct ibv_cq *p = NULL;
	uroce_app_receiving(to_uctx(ibch->context));
	for (bool woken = false;; woken = true) {
		if (take_queued_event(ch, &p))
			break;
		int fl = woken ? 0 : fcntl(ibch->fd, F_GETFL);
		bool nonblocking = fl >= 0 && (fl & O_NONBLOCK);
		/* before the first sleep there is nothing to receive yet unless epoll says so */
		if ((woken || nonblocking) && progress_for_event(ch, &p))
			break;
		if (nonblocking) {
			errno = EAGAIN;
			return -1;
		}
		uroce_release_acks(to_uctx(ibch->context));
		if (!__atomic_load_n(&ch->slept_inside, __ATOMIC_RELAXED))
			__atomic_store_n(&ch->slept_inside, 1, __ATOMIC_RELAXED);
		struct epoll_event evs[4];
		int n = epoll_wait(ch->wait_fd, evs, 4, -1);
		if (n < 0 && errno != EINTR)
			return -1;
	}
	*cq = p;
	*cq_context = p->cq_context;
	return 0;
}

UROCE_EXPORT void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	pthread_mutex_lock(&cq->mutex);
	cq->comp_events_completed += nevents;
	pthread_cond_signal(&cq->cond);
	pthread_mutex_unlock(&cq->mutex);
}

/* ------------------------------------------------------------------ SRQ */

UROCE_EXPORT struct ibv_srq *ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *a)
{
	if (!pd || !a || !a->attr.max_wr || a->attr.max_wr > UROCE_MAX_QP_WR || a->attr.max_sge > UROCE_MAX_SGE) {
		errno = EINVAL;
		return NULL;
	}
	struct uroce_ctx *ctx = to_uctx(pd->context);
	struct uroce_srq *srq = calloc(1, sizeof(*srq));
	unsigned n = 1;
	while (n < a->attr.max_wr)
		n <<= 1;
	if (srq)
		srq->rq.ring = calloc(n, sizeof(*srq->rq.ring));
	if (!srq || !srq->rq.ring) {
		free(srq);
		errno = ENOMEM;
		return NULL;
	}
	srq->rq.mask = n - 1;
	srq->rq.max_wr = n;
	srq->rq.max_sge = a->attr.max_sge ? a->attr.max_sge : 1;
	srq->limit = a->attr.srq_limit;
	srq->num = __atomic_add_fetch(&ctx->next_srqn, 1, __ATOMIC_RELAXED);
	srq->ibsrq.context = pd->context;
	srq->ibsrq.srq_context = a->srq_context;
	srq->ibsrq.pd = pd;
	srq->ibsrq.handle = srq->num;
	pthread_mutex_init(&srq->ibsrq.mutex, NULL);
	pthread_cond_init(&srq->ibsrq.cond, NULL);
	a->attr.max_wr = n;
	a->attr.max_sge = srq->rq.max_sge;
	struct rt_event *ev = uroce_ev_begin(RT_EV_SRQ_CREATE, 0);
	if (ev) {
		ev->u.object.id = srq->num;
		ev->u.object.pd_id = to_upd(pd)->id;
		ev->u.object.max_wr = n;
		ev->u.object.max_sge = srq->rq.max_sge;
		ev->u.object.srq_limit = srq->limit;
		uroce_ev_commit(ev);
	}
	return &srq->ibsrq;
}

UROCE_EXPORT int ibv_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *a, int mask)
{
	struct uroce_srq *srq = to_usrq(ibsrq);
	struct uroce_ctx *ctx = to_uctx(ibsrq->context);
	if (mask & ~(IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT))
		return EINVAL;
	if ((mask & IBV_SRQ_MAX_WR) && a->max_wr != srq->rq.max_wr) {
		uroce_warn_once("ibv_modify_srq(IBV_SRQ_MAX_WR)", "SRQ resize is not implemented");
		return EOPNOTSUPP;
	}
	pthread_mutex_lock(&ctx->lock);
	int err = 0;
	if (mask & IBV_SRQ_LIMIT) {
		if (a->srq_limit > srq->rq.max_wr)
			err = EINVAL;
		else
			srq->limit = a->srq_limit;
	}
	pthread_mutex_unlock(&ctx->lock);
	return err;
}

UROCE_EXPORT int ibv_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *a)
{
	struct uroce_srq *srq = to_usrq(ibsrq);
	a->max_wr = srq->rq.max_wr;
	a->max_sge = srq->rq.max_sge;
	a->srq_limit = srq->limit;
	return 0;
}

UROCE_EXPORT int ibv_destroy_srq(struct ibv_srq *ibsrq)
{
	if (!ibsrq)
		return EINVAL;
	struct uroce_srq *srq = to_usrq(ibsrq);
	struct rt_event *ev = uroce_ev_begin(RT_EV_SRQ_CREATE, 0);
	if (ev) {
		ev->flags |= RT_EVF_DESTROY;
		ev->u.object.id = srq->num;
		uroce_ev_commit(ev);
	}
	free(srq->rq.ring);
	free(srq);
	return 0;
}

/* ------------------------------------------------------------------ AH */

UROCE_EXPORT struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *a)
{
	if (!pd || !a || !a->is_global || (a->port_num && a->port_num != 1)) {
		errno = EINVAL;
		return NULL;
	}
	struct uroce_ctx *ctx = to_uctx(pd->context);
	struct sockaddr_storage dst;
	uroce_gid_to_sockaddr(&a->grh.dgid, &dst);
	pthread_mutex_lock(&ctx->lock);
	int fd = uroce_local_fd(ctx, a->grh.sgid_index, &dst);
	pthread_mutex_unlock(&ctx->lock);
	if (fd < 0) {
		errno = EINVAL;
		return NULL;
	}
	struct uroce_ah *ah = calloc(1, sizeof(*ah));
	if (!ah) {
		errno = ENOMEM;
		return NULL;
	}
	ah->ibah.context = pd->context;
	ah->ibah.pd = pd;
	ah->dst = dst;
	ah->sgid_index = a->grh.sgid_index;
	ah->tclass = a->grh.traffic_class;
	ah->hop_limit = a->grh.hop_limit;
	return &ah->ibah;
}

UROCE_EXPORT int ibv_destroy_ah(struct ibv_ah *ah)
{
	if (!ah)
		return EINVAL;
	free(to_uah(ah));
	return 0;
}

UROCE_EXPORT int ibv_init_ah_from_wc(struct ibv_context *c, uint8_t port, struct ibv_wc *wc, struct ibv_grh *grh,
                                     struct ibv_ah_attr *a)
{
	if (!c || !wc || !grh || !a || !(wc->wc_flags & IBV_WC_GRH))
		return -1;
	const uint8_t *g = (const uint8_t *)grh;
	union ibv_gid sgid, dgid;
	memset(&sgid, 0, sizeof(sgid));
	memset(&dgid, 0, sizeof(dgid));
	if ((g[20] >> 4) == 4 && !(g[0] >> 4)) {
		sgid.raw[10] = sgid.raw[11] = dgid.raw[10] = dgid.raw[11] = 0xFF;
		memcpy(sgid.raw + 12, g + 20 + 12, 4);
		memcpy(dgid.raw + 12, g + 20 + 16, 4);
	} else {
		memcpy(sgid.raw, g + 8, 16);
		memcpy(dgid.raw, g + 24, 16);
	}
	struct uroce_ctx *ctx = to_uctx(c);
	int idx = -1;
	pthread_mutex_lock(&ctx->lock);
	for (int i = 0; i < UROCE_MAX_GID; i++)
		if (ctx->addrs[i].used && !memcmp(ctx->addrs[i].gid.raw, dgid.raw, 16))
			idx = i;
	pthread_mutex_unlock(&ctx->lock);
	if (idx < 0)
		return -1;
	memset(a, 0, sizeof(*a));
	a->is_global = 1;
	a->port_num = port;
	a->grh.dgid = sgid;
	a->grh.sgid_index = (uint8_t)idx;
	a->grh.hop_limit = 0xFF;
	return 0;
}

UROCE_EXPORT struct ibv_ah *ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc, struct ibv_grh *grh,
                                                  uint8_t port)
{
	struct ibv_ah_attr a;
	if (!pd || ibv_init_ah_from_wc(pd->context, port, wc, grh, &a)) {
		errno = EINVAL;
		return NULL;
	}
	return ibv_create_ah(pd, &a);
}

/* ------------------------------------------------------------------ async events */

void uroce_async_event(struct uroce_ctx *ctx, enum ibv_event_type type, void *element)
{
	struct async_rec r = { type, element };
	if (write(ctx->async_wfd, &r, sizeof(r)) < 0) {
		/* nobody reads async events and the pipe is full: drop it */
	}
	struct rt_event *ev = uroce_ev_begin(RT_EV_ASYNC, 0);
	if (ev) {
		ev->u.async.event_type = type;
		ev->u.async.element = type == IBV_EVENT_SQ_DRAINED ? ((struct uroce_qp *)element)->ibqp.qp_num
		                      : type == IBV_EVENT_CQ_ERR    ? ((struct uroce_cq *)element)->id
		                      : type == IBV_EVENT_SRQ_LIMIT_REACHED ? ((struct uroce_srq *)element)->num
		                                                            : 0;
		uroce_ev_commit(ev);
	}
}

UROCE_EXPORT int ibv_get_async_event(struct ibv_context *c, struct ibv_async_event *event)
{
	struct async_rec r;
	ssize_t n;
	do
		n = read(c->async_fd, &r, sizeof(r));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(r))
		return -1;
	memset(event, 0, sizeof(*event));
	event->event_type = r.type;
	switch (r.type) {
	case IBV_EVENT_CQ_ERR:
		event->element.cq = &((struct uroce_cq *)r.element)->ibcq;
		break;
	case IBV_EVENT_SRQ_LIMIT_REACHED:
	case IBV_EVENT_SRQ_ERR:
		event->element.srq = &((struct uroce_srq *)r.element)->ibsrq;
		break;
	case IBV_EVENT_PORT_ACTIVE:
	case IBV_EVENT_PORT_ERR:
	case IBV_EVENT_GID_CHANGE:
		event->element.port_num = 1;
		break;
	default:
		event->element.qp = &((struct uroce_qp *)r.element)->ibqp;
		break;
	}
	return 0;
}

UROCE_EXPORT void ibv_ack_async_event(struct ibv_async_event *event)
{
	(void)event;
}

void uroce_qp_ops_init(struct ibv_context_ops *ops);
void uroce_device_ops_init(struct verbs_context *v);
struct ibv_qp *uroce_create_qp_ex(struct ibv_context *c, struct ibv_qp_init_attr_ex *ax);

void uroce_verbs_ops_init(struct uroce_ctx *ctx)
{
	struct ibv_context_ops *ops = &ctx->vctx.context.ops;
	ops->poll_cq = poll_cq;
	ops->req_notify_cq = req_notify_cq;
	uroce_qp_ops_init(ops);
	uroce_device_ops_init(&ctx->vctx);
	ctx->vctx.create_qp_ex = uroce_create_qp_ex;
}

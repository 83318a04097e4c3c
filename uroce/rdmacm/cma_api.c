/*
 * The public rdma_cma.h calls of uroce's librdmacm.so.1: event channels, id
 * life cycle, address and route resolution, connect/accept/reject/disconnect
 * (asynchronous ids report through their channel, synchronous ids created
 * with a NULL channel wait for the answer as rdma-core does), QPs and SRQs
 * made on the id's device, options and devices.  Errors follow rdma-core:
 * -1 with errno.
 */
#include "cma_priv.h"
#include "rdmatrace/cm_rules.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fail(int neg)
{
	errno = neg < 0 ? -neg : neg;
	return -1;
}

/* Take cma_lock and make sure the device and the CM thread are up. */
static int enter(void)
{
	int ret;

	pthread_mutex_lock(&cma_lock);
	ret = cma_init();
	if (ret)
		pthread_mutex_unlock(&cma_lock);
	return ret;
}

static void leave(void)
{
	pthread_mutex_unlock(&cma_lock);
}

CMA_EXPORT struct rdma_event_channel *rdma_create_event_channel(void)
{
	struct cma_channel *ch;
	int ret = enter();

	if (ret) {
		errno = -ret;
		return NULL;
	}
	leave();
	ch = cma_channel_new(false);
	if (!ch) {
		errno = ENOMEM;
		return NULL;
	}
	return &ch->ch;
}

CMA_EXPORT void rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	if (channel)
		cma_channel_destroy((struct cma_channel *)channel);
}

static struct cma_id *id_new(struct rdma_event_channel *channel, void *context, enum rdma_port_space ps,
			     enum ibv_qp_type qp_type)
{
	struct cma_id *id = calloc(1, sizeof(*id));

	if (!id)
		return NULL;
	if (channel) {
		id->chan = (struct cma_channel *)channel;
	} else {
		id->chan = cma_channel_new(true);
		id->sync = true;
		if (!id->chan) {
			free(id);
			return NULL;
		}
	}
	id->id.channel = &id->chan->ch;
	id->id.context = context;
	id->id.ps = ps;
	id->id.qp_type = qp_type;
	id->qkey = ps == RDMA_PS_IPOIB ? 0 : RDMA_UDP_QKEY;
	id->state = CMA_IDLE;
	return id;
}

CMA_EXPORT int rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **out, void *context,
			      enum rdma_port_space ps)
{
	enum ibv_qp_type qp_type;
	struct cma_id *id;
	int ret;

	switch (ps) {
	case RDMA_PS_TCP:
	case RDMA_PS_IB:
		qp_type = IBV_QPT_RC;
		break;
	case RDMA_PS_UDP:
	case RDMA_PS_IPOIB:
		qp_type = IBV_QPT_UD;
		break;
	default:
		cma_warn("unsupported port space 0x%x", (unsigned)ps);
		return fail(-EINVAL);
	}
	ret = enter();
	if (ret)
		return fail(ret);
	id = id_new(channel, context, ps, qp_type);
	if (!id) {
		leave();
		return fail(-ENOMEM);
	}
	id->id.verbs = cma_verbs();
	cma_id_link(id);
	leave();
	*out = &id->id;
	return 0;
}


CMA_EXPORT int rdma_destroy_id(struct rdma_cm_id *rid)
{
	struct cma_id *id = cma_of(rid), *o;

	if (!rid)
		return fail(-EINVAL);
	if (id->sync && rid->event) {
		rdma_ack_cm_event(rid->event);
		rid->event = NULL;
	}
	pthread_mutex_lock(&cma_lock);
	id->destroying = true;
	if (id->state == CMA_LISTEN)
		cma_listener_closed(id->id.ps, id->port);
	cma_abandon(id);
	while (id->events_acked < id->events_reported)
		pthread_cond_wait(&cma_cond, &cma_lock);
	cma_channel_purge(id->chan, id);
	/* connection requests the application never saw die with their listener
	 * (rejected, as the kernel does); the others just lose their parent */
	for (o = cma_ids_head(); o;) {
		struct cma_id *n = o->next;
		if (o->listen == id && o->state == CMA_REQ_RCVD && o->events_reported == 0) {
			cma_abandon(o);
			cma_channel_purge(o->chan, o);
			cma_id_unlink(o);
			if (o->sync)
				cma_channel_free(o->chan);
			free(o);
		} else if (o->listen == id) {
			o->listen = NULL;
		}
		o = n;
	}
	cma_id_unlink(id);
	pthread_mutex_unlock(&cma_lock);
	if (id->sync)
		cma_channel_free(id->chan);
	free(id->ep_qp_attr);
	free(id);
	return 0;
}

CMA_EXPORT int rdma_bind_addr(struct rdma_cm_id *rid, struct sockaddr *addr)
{
	struct cma_id *id = cma_of(rid);
	int ret;

	if (!rid || !addr)
		return fail(-EINVAL);
	ret = enter();
	if (ret)
		return fail(ret);
	ret = id->state == CMA_IDLE ? cma_bind(id, addr) : -EINVAL;
	if (!ret)
		id->state = CMA_ADDR_BOUND;
	leave();
	return ret ? fail(ret) : 0;
}

static void ack_sync_event(struct cma_id *id)
{
	if (id->sync && id->id.event) {
		rdma_ack_cm_event(id->id.event);
		id->id.event = NULL;
	}
}

static int sync_result(struct cma_id *id, int ret, enum rdma_cm_event_type want)
{
	if (ret)
		return fail(ret);
	if (!id->sync)
		return 0;
	ret = cma_sync_wait(id, want);
	return ret ? fail(ret) : 0;
}

CMA_EXPORT int rdma_resolve_addr(struct rdma_cm_id *rid, struct sockaddr *src, struct sockaddr *dst,
				 int timeout_ms)
{
	struct cma_id *id = cma_of(rid);
	int ret;

	(void)timeout_ms;
	if (!rid || !dst)
		return fail(-EINVAL);
	ack_sync_event(id);
	ret = enter();
	if (ret)
		return fail(ret);
	if (id->state != CMA_IDLE && id->state != CMA_ADDR_BOUND) {
		leave();
		return fail(-EINVAL);
	}
	ret = cma_resolve_src(id, src, dst);
	if (ret == -EAFNOSUPPORT || ret == -EINVAL) {
		leave();
		return fail(ret);
	}
	if (ret == 0)
		id->state = CMA_ADDR_BOUND;
	/* as the kernel: the outcome comes as an event */
	cma_post_event(id, NULL, ret ? RDMA_CM_EVENT_ADDR_ERROR : RDMA_CM_EVENT_ADDR_RESOLVED, ret, NULL, 0);
	leave();
	return sync_result(id, 0, RDMA_CM_EVENT_ADDR_RESOLVED);
}

CMA_EXPORT int rdma_resolve_route(struct rdma_cm_id *rid, int timeout_ms)
{
	struct cma_id *id = cma_of(rid);
	int ret;

	(void)timeout_ms;
	if (!rid)
		return fail(-EINVAL);
	ack_sync_event(id);
	ret = enter();
	if (ret)
		return fail(ret);
	if (id->state != CMA_ADDR_BOUND || id->id.route.addr.dst_addr.sa_family == AF_UNSPEC) {
		leave();
		return fail(-EINVAL);
	}
	/* RoCE: the path is the GID pair, one hop, nothing to ask a subnet manager */
	id->state = CMA_ROUTE_RESOLVED;
	cma_fix_route(id);
	rid->route.num_paths = 0;
	rid->route.path_rec = NULL;
	cma_post_event(id, NULL, RDMA_CM_EVENT_ROUTE_RESOLVED, 0, NULL, 0);
	leave();
	return sync_result(id, 0, RDMA_CM_EVENT_ROUTE_RESOLVED);
}

CMA_EXPORT int rdma_listen(struct rdma_cm_id *rid, int backlog)
{
	struct cma_id *id = cma_of(rid);
	int ret;

	if (!rid)
		return fail(-EINVAL);
	ret = enter();
	if (ret)
		return fail(ret);
	if (id->state == CMA_IDLE) {
		/* listening unbound: the kernel binds to the wildcard address of IPv4 */
		struct sockaddr_in any = { .sin_family = AF_INET };
		ret = cma_bind(id, (struct sockaddr *)&any);
		if (!ret)
			id->state = CMA_ADDR_BOUND;
	}
	if (!ret && id->state != CMA_ADDR_BOUND)
		ret = -EINVAL;
	if (!ret)
		ret = cma_listen_addrs(id);
	if (!ret) {
		id->state = CMA_LISTEN;
		id->backlog = (int)rt_cm_listen_backlog(backlog);
	}
	leave();
	return ret ? fail(ret) : 0;
}

CMA_EXPORT int rdma_get_request(struct rdma_cm_id *listen, struct rdma_cm_id **out)
{
	struct cma_id *l = cma_of(listen);
	struct rdma_cm_event *ev;
	struct rdma_cm_id *child;
	int ret;

	if (!listen || !out)
		return fail(-EINVAL);
	ack_sync_event(l);
	ret = rdma_get_cm_event(listen->channel, &ev);
	if (ret)
		return ret;
	if (ev->status) {
		ret = ev->status;
		rdma_ack_cm_event(ev);
		return fail(ret);
	}
	if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
		rdma_ack_cm_event(ev);
		return fail(-EINVAL);
	}
	child = ev->id;
	if (l->ep_qp_attr) {
		struct ibv_qp_init_attr attr = *l->ep_qp_attr;
		ret = rdma_create_qp(child, l->ep_pd, &attr);
		if (ret) {
			ret = errno;
			rdma_ack_cm_event(ev);
			rdma_destroy_id(child);
			return fail(ret);
		}
	}
	child->event = ev;
	*out = child;
	return 0;
}

/* One CM step on an id under cma_lock, for the calls that only take that step:
 * 0 or -1 with errno. */
static int id_step(struct rdma_cm_id *rid, int (*step)(struct cma_id *))
{
	int ret;

	if (!rid)
		return fail(-EINVAL);
	ret = enter();
	if (ret)
		return fail(ret);
	ret = step(cma_of(rid));
	leave();
	return ret ? fail(ret) : 0;
}

/* The CM step of rdma_connect and rdma_accept: a synchronous id's last event
 * acknowledged, then the step under cma_lock; 0 or a negative errno. */
static int conn_step(struct cma_id *id, const struct rdma_conn_param *param,
		     int (*step)(struct cma_id *, const struct rdma_conn_param *))
{
	int ret;

	ack_sync_event(id);
	ret = enter();
	if (ret)
		return ret;
	ret = step(id, param);
	leave();
	return ret;
}

CMA_EXPORT int rdma_connect(struct rdma_cm_id *rid, struct rdma_conn_param *param)
{
	struct cma_id *id = cma_of(rid);

	if (!rid)
		return fail(-EINVAL);
	return sync_result(id, conn_step(id, param, cma_start_connect), RDMA_CM_EVENT_ESTABLISHED);
}

CMA_EXPORT int rdma_establish(struct rdma_cm_id *rid)
{
	return id_step(rid, cma_do_establish);
}

CMA_EXPORT int rdma_accept(struct rdma_cm_id *rid, struct rdma_conn_param *param)
{
	struct cma_id *id = cma_of(rid);
	int ret;

	if (!rid)
		return fail(-EINVAL);
	ret = conn_step(id, param, cma_do_accept);
	if (ret || id->id.qp_type == IBV_QPT_UD)
		return ret ? fail(ret) : 0;
	return sync_result(id, 0, RDMA_CM_EVENT_ESTABLISHED);
}

CMA_EXPORT int rdma_reject(struct rdma_cm_id *rid, const void *private_data, uint8_t private_data_len)
{
	int ret;

	if (!rid || (private_data_len && !private_data))
		return fail(-EINVAL);
	ret = enter();
	if (ret)
		return fail(ret);
	ret = cma_do_reject(cma_of(rid), private_data, private_data_len, UROCE_REJ_CONSUMER_DEFINED);
	leave();
	return ret ? fail(ret) : 0;
}

CMA_EXPORT int rdma_reject_ece(struct rdma_cm_id *rid, const void *private_data, uint8_t private_data_len)
{
	return rdma_reject(rid, private_data, private_data_len);
}

CMA_EXPORT int rdma_notify(struct rdma_cm_id *rid, enum ibv_event_type event)
{
	struct cma_id *id = cma_of(rid);
	int ret;

	if (!rid)
		return fail(-EINVAL);
	if (event != IBV_EVENT_COMM_EST)
		return 0;
	ret = enter();
	if (ret)
		return fail(ret);
	/* data arrived before the RTU: the connection is up (ib_cm's cm_establish) */
	if (id->state == CMA_REP_SENT) {
		cma_timer_stop(id);
		id->state = CMA_ESTABLISHED;
		cma_post_event(id, NULL, RDMA_CM_EVENT_ESTABLISHED, 0, NULL, 0);
	}
	leave();
	return 0;
}

CMA_EXPORT int rdma_disconnect(struct rdma_cm_id *rid)
{
	return id_step(rid, cma_do_disconnect);
}

CMA_EXPORT int rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event)
{
	int ret;

	if (!channel || !event)
		return fail(-EINVAL);
	ret = cma_channel_get((struct cma_channel *)channel, event);
	return ret ? fail(ret) : 0;
}

CMA_EXPORT int rdma_ack_cm_event(struct rdma_cm_event *event)
{
	struct cma_event *e = (struct cma_event *)event;

	if (!event)
		return fail(-EINVAL);
	pthread_mutex_lock(&cma_lock);
	e->owner->events_acked++;
	pthread_cond_broadcast(&cma_cond);
	pthread_mutex_unlock(&cma_lock);
	free(e);
	return 0;
}

CMA_EXPORT const char *rdma_event_str(enum rdma_cm_event_type event)
{
	switch (event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED: return "RDMA_CM_EVENT_ADDR_RESOLVED";
	case RDMA_CM_EVENT_ADDR_ERROR: return "RDMA_CM_EVENT_ADDR_ERROR";
	case RDMA_CM_EVENT_ROUTE_RESOLVED: return "RDMA_CM_EVENT_ROUTE_RESOLVED";
	case RDMA_CM_EVENT_ROUTE_ERROR: return "RDMA_CM_EVENT_ROUTE_ERROR";
	case RDMA_CM_EVENT_CONNECT_REQUEST: return "RDMA_CM_EVENT_CONNECT_REQUEST";
	case RDMA_CM_EVENT_CONNECT_RESPONSE: return "RDMA_CM_EVENT_CONNECT_RESPONSE";
	case RDMA_CM_EVENT_CONNECT_ERROR: return "RDMA_CM_EVENT_CONNECT_ERROR";
	case RDMA_CM_EVENT_UNREACHABLE: return "RDMA_CM_EVENT_UNREACHABLE";
	case RDMA_CM_EVENT_REJECTED: return "RDMA_CM_EVENT_REJECTED";
	case RDMA_CM_EVENT_ESTABLISHED: return "RDMA_CM_EVENT_ESTABLISHED";
	case RDMA_CM_EVENT_DISCONNECTED: return "RDMA_CM_EVENT_DISCONNECTED";
	case RDMA_CM_EVENT_DEVICE_REMOVAL: return "RDMA_CM_EVENT_DEVICE_REMOVAL";
	case RDMA_CM_EVENT_MULTICAST_JOIN: return "RDMA_CM_EVENT_MULTICAST_JOIN";
	case RDMA_CM_EVENT_MULTICAST_ERROR: return "RDMA_CM_EVENT_MULTICAST_ERROR";
	case RDMA_CM_EVENT_ADDR_CHANGE: return "RDMA_CM_EVENT_ADDR_CHANGE";
	case RDMA_CM_EVENT_TIMEWAIT_EXIT: return "RDMA_CM_EVENT_TIMEWAIT_EXIT";
	default: return "UNKNOWN EVENT";
	}
}

/* ---------------------------------------------------------------- QPs, CQs, SRQs */

enum { CQ_MADE_SEND = 1, CQ_MADE_RECV = 2 };

static int create_cqs(struct rdma_cm_id *id, uint32_t send_size, uint32_t recv_size)
{
	if (recv_size) {
		id->recv_cq_channel = ibv_create_comp_channel(id->verbs);
		if (!id->recv_cq_channel)
			return -ENOMEM;
		id->recv_cq = ibv_create_cq(id->verbs, (int)recv_size, id, id->recv_cq_channel, 0);
		if (!id->recv_cq)
			return errno ? -errno : -ENOMEM;
	}
	if (send_size) {
		id->send_cq_channel = ibv_create_comp_channel(id->verbs);
		if (!id->send_cq_channel)
			return -ENOMEM;
		id->send_cq = ibv_create_cq(id->verbs, (int)send_size, id, id->send_cq_channel, 0);
		if (!id->send_cq)
			return errno ? -errno : -ENOMEM;
	}
	return 0;
}

static void destroy_created_cqs(struct rdma_cm_id *id)
{
	if (id->recv_cq) {
		ibv_destroy_cq(id->recv_cq);
		if (id->send_cq == id->recv_cq)
			id->send_cq = NULL;
		id->recv_cq = NULL;
	}
	if (id->recv_cq_channel) {
		ibv_destroy_comp_channel(id->recv_cq_channel);
		if (id->send_cq_channel == id->recv_cq_channel)
			id->send_cq_channel = NULL;
		id->recv_cq_channel = NULL;
	}
	if (id->send_cq) {
		ibv_destroy_cq(id->send_cq);
		id->send_cq = NULL;
	}
	if (id->send_cq_channel) {
		ibv_destroy_comp_channel(id->send_cq_channel);
		id->send_cq_channel = NULL;
	}
}

CMA_EXPORT int rdma_create_qp_ex(struct rdma_cm_id *rid, struct ibv_qp_init_attr_ex *attr)
{
	struct cma_id *id = cma_of(rid);
	struct ibv_qp *qp;
	struct ibv_pd *pd;
	int ret;

	if (!rid || !attr || rid->qp)
		return fail(-EINVAL);
	if (!rid->verbs) {
		cma_warn("rdma_create_qp: the id has no device yet (bind or resolve it first)");
		return fail(-EINVAL);
	}
	ret = enter();
	if (ret)
		return fail(ret);
	pd = (attr->comp_mask & IBV_QP_INIT_ATTR_PD) && attr->pd ? attr->pd : rid->pd ? rid->pd : cma_default_pd();
	leave();
	if (!pd)
		return fail(-ENOMEM);
	attr->pd = pd;
	attr->comp_mask |= IBV_QP_INIT_ATTR_PD;
	if (attr->qp_type != rid->qp_type) {
		cma_warn("rdma_create_qp: QP type %d does not match the id's port space", attr->qp_type);
		return fail(-EINVAL);
	}
	if (!attr->srq)
		attr->srq = rid->srq;
	ret = create_cqs(rid, attr->send_cq || rid->send_cq ? 0 : attr->cap.max_send_wr ? attr->cap.max_send_wr : 1,
			 attr->recv_cq || rid->recv_cq ? 0 : attr->cap.max_recv_wr ? attr->cap.max_recv_wr : 1);
	if (ret) {
		destroy_created_cqs(rid);
		return fail(ret);
	}
	if (!attr->send_cq)
		attr->send_cq = rid->send_cq;
	if (!attr->recv_cq)
		attr->recv_cq = rid->recv_cq;
	if (attr->comp_mask == IBV_QP_INIT_ATTR_PD) {
		struct ibv_qp_init_attr a = {
			.qp_context = attr->qp_context, .send_cq = attr->send_cq, .recv_cq = attr->recv_cq,
			.srq = attr->srq, .cap = attr->cap, .qp_type = attr->qp_type, .sq_sig_all = attr->sq_sig_all,
		};
		qp = ibv_create_qp(pd, &a);
		if (qp)
			attr->cap = a.cap;
	} else {
		qp = ibv_create_qp_ex(rid->verbs, attr);
	}
	if (!qp) {
		ret = errno ? -errno : -ENOMEM;
		destroy_created_cqs(rid);
		return fail(ret);
	}
	pthread_mutex_lock(&cma_lock);
	ret = cma_qp_to_init(id, qp);
	if (!ret) {
		rid->qp = qp;
		rid->pd = pd;
	}
	pthread_mutex_unlock(&cma_lock);
	if (ret) {
		ibv_destroy_qp(qp);
		destroy_created_cqs(rid);
		return fail(ret);
	}
	return 0;
}

CMA_EXPORT int rdma_create_qp(struct rdma_cm_id *rid, struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	struct ibv_qp_init_attr_ex ax;
	int ret;

	if (!rid || !qp_init_attr)
		return fail(-EINVAL);
	memset(&ax, 0, sizeof(ax));
	memcpy(&ax, qp_init_attr, sizeof(*qp_init_attr));
	ax.comp_mask = IBV_QP_INIT_ATTR_PD;
	ax.pd = pd;
	ret = rdma_create_qp_ex(rid, &ax);
	if (ret)
		return ret;
	qp_init_attr->cap = ax.cap;
	qp_init_attr->send_cq = ax.send_cq;
	qp_init_attr->recv_cq = ax.recv_cq;
	return 0;
}

CMA_EXPORT void rdma_destroy_qp(struct rdma_cm_id *rid)
{
	if (!rid || !rid->qp)
		return;
	ibv_destroy_qp(rid->qp);
	rid->qp = NULL;
	destroy_created_cqs(rid);
}

CMA_EXPORT int rdma_create_srq_ex(struct rdma_cm_id *rid, struct ibv_srq_init_attr_ex *attr)
{
	struct ibv_srq *srq;
	int ret;

	if (!rid || !attr || !rid->verbs)
		return fail(-EINVAL);
	ret = enter();
	if (ret)
		return fail(ret);
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd) {
		attr->pd = rid->pd ? rid->pd : cma_default_pd();
		attr->comp_mask |= IBV_SRQ_INIT_ATTR_PD;
	}
	leave();
	if (attr->comp_mask == IBV_SRQ_INIT_ATTR_PD || attr->comp_mask == (IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE)) {
		struct ibv_srq_init_attr a = { .srq_context = attr->srq_context, .attr = attr->attr };
		if ((attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) && attr->srq_type != IBV_SRQT_BASIC) {
			cma_warn("rdma_create_srq_ex: only basic SRQs are supported");
			return fail(-EOPNOTSUPP);
		}
		srq = ibv_create_srq(attr->pd, &a);
		if (srq)
			attr->attr = a.attr;
	} else {
		srq = ibv_create_srq_ex(rid->verbs, attr);
	}
	if (!srq)
		return fail(errno ? -errno : -ENOMEM);
	rid->srq = srq;
	rid->pd = attr->pd;
	return 0;
}

CMA_EXPORT int rdma_create_srq(struct rdma_cm_id *rid, struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	struct ibv_srq_init_attr_ex ax;
	int ret;

	if (!attr)
		return fail(-EINVAL);
	memset(&ax, 0, sizeof(ax));
	ax.srq_context = attr->srq_context;
	ax.attr = attr->attr;
	ax.comp_mask = IBV_SRQ_INIT_ATTR_PD;
	ax.pd = pd;
	ret = rdma_create_srq_ex(rid, &ax);
	if (!ret)
		attr->attr = ax.attr;
	return ret;
}

CMA_EXPORT void rdma_destroy_srq(struct rdma_cm_id *rid)
{
	if (!rid || !rid->srq)
		return;
	ibv_destroy_srq(rid->srq);
	rid->srq = NULL;
}

CMA_EXPORT int rdma_init_qp_attr(struct rdma_cm_id *rid, struct ibv_qp_attr *qp_attr, int *qp_attr_mask)
{
	int ret;

	if (!rid || !qp_attr || !qp_attr_mask)
		return fail(-EINVAL);
	ret = enter();
	if (ret)
		return fail(ret);
	ret = cma_qp_attr(cma_of(rid), qp_attr, qp_attr_mask);
	leave();
	return ret ? fail(ret) : 0;
}

/* ---------------------------------------------------------------- options, migration, devices */

CMA_EXPORT int rdma_set_option(struct rdma_cm_id *rid, int level, int optname, void *optval, size_t optlen)
{
	struct cma_id *id = cma_of(rid);
	int ret = 0;

	if (!rid || !optval)
		return fail(-EINVAL);
	pthread_mutex_lock(&cma_lock);
	if (level == RDMA_OPTION_ID) {
		switch (optname) {
		case RDMA_OPTION_ID_TOS:
			if (optlen != sizeof(uint8_t)) { ret = -EINVAL; break; }
			id->tos = *(uint8_t *)optval;
			id->tos_set = true;
			break;
		case RDMA_OPTION_ID_REUSEADDR:
			if (optlen != sizeof(int)) { ret = -EINVAL; break; }
			id->reuseaddr = *(int *)optval ? 1 : 0;
			break;
		case RDMA_OPTION_ID_AFONLY:
			if (optlen != sizeof(int)) { ret = -EINVAL; break; }
			id->afonly = *(int *)optval ? 1 : 0;
			break;
		case RDMA_OPTION_ID_ACK_TIMEOUT: /* (the kernel's: for RC ids only) */
			if (optlen != sizeof(uint8_t) || *(uint8_t *)optval > 31 ||
			    (rid->qp_type != IBV_QPT_RC && rid->qp_type != IBV_QPT_XRC_SEND)) {
				ret = -EINVAL;
				break;
			}
			id->ack_timeout = *(uint8_t *)optval;
			id->ack_timeout_set = true;
			break;
		case 4: /* uroce: minimum RNR NAK timer code of the id's QP (kernel rdma_set_min_rnr_timer) */
			if (optlen != sizeof(uint8_t) || *(uint8_t *)optval > 31) { ret = -EINVAL; break; }
			id->min_rnr_timer = *(uint8_t *)optval;
			break;
		default:
			cma_warn("rdma_set_option: RDMA_OPTION_ID option %d is not supported", optname);
			ret = -ENOSYS;
		}
	} else if (level == RDMA_OPTION_IB && optname == RDMA_OPTION_IB_PATH) {
		/* a path record set by the user: on RoCE the GIDs already are the path */
		if (optlen % sizeof(struct ibv_path_data))
			ret = -EINVAL;
		else if (id->state == CMA_ADDR_BOUND && id->id.route.addr.dst_addr.sa_family != AF_UNSPEC) {
			id->state = CMA_ROUTE_RESOLVED;
			cma_fix_route(id);
		}
	} else {
		cma_warn("rdma_set_option: level %d option %d is not supported", level, optname);
		ret = -ENOSYS;
	}
	pthread_mutex_unlock(&cma_lock);
	return ret ? fail(ret) : 0;
}

CMA_EXPORT int rdma_migrate_id(struct rdma_cm_id *rid, struct rdma_event_channel *channel)
{
	struct cma_id *id = cma_of(rid);
	struct cma_channel *old, *nc;
	struct cma_event *e, **pp;

	if (!rid)
		return fail(-EINVAL);
	nc = channel ? (struct cma_channel *)channel : cma_channel_new(true);
	if (!nc)
		return fail(-ENOMEM);
	pthread_mutex_lock(&cma_lock);
	while (id->events_acked < id->events_reported)
		pthread_cond_wait(&cma_cond, &cma_lock);
	old = id->chan;
	/* queued events of this id follow it to the new channel */
	pthread_mutex_lock(&old->lock);
	old->tail = NULL;
	for (pp = &old->head; (e = *pp);) {
		if (e->owner == id) {
			uint64_t one = 1, v;
			*pp = e->next;
			e->next = NULL;
			if (read(old->ch.fd, &v, sizeof(v)) < 0)
				v = 0;
			pthread_mutex_lock(&nc->lock);
			if (nc->tail)
				nc->tail->next = e;
			else
				nc->head = e;
			nc->tail = e;
			pthread_mutex_unlock(&nc->lock);
			if (write(nc->ch.fd, &one, sizeof(one)) < 0)
				cma_warn("event channel write failed");
		} else {
			old->tail = e;
			pp = &e->next;
		}
	}
	pthread_mutex_unlock(&old->lock);
	id->chan = nc;
	rid->channel = &nc->ch;
	pthread_mutex_unlock(&cma_lock);
	if (id->sync && old != nc)
		cma_channel_free(old);
	id->sync = channel == NULL;
	return 0;
}

CMA_EXPORT struct ibv_context **rdma_get_devices(int *num_devices)
{
	struct ibv_context **list;
	int ret = enter();

	if (ret) {
		if (num_devices)
			*num_devices = 0;
		list = calloc(1, sizeof(*list));
		if (!list)
			errno = ENOMEM;
		return list;
	}
	list = calloc(2, sizeof(*list));
	if (list)
		list[0] = cma_verbs();
	leave();
	if (!list) {
		errno = ENOMEM;
		return NULL;
	}
	if (num_devices)
		*num_devices = 1;
	return list;
}

CMA_EXPORT void rdma_free_devices(struct ibv_context **list)
{
	free(list);
}

CMA_EXPORT uint16_t rdma_get_src_port(struct rdma_cm_id *rid)
{
	return htons(cma_get_port(&rid->route.addr.src_addr));
}

CMA_EXPORT uint16_t rdma_get_dst_port(struct rdma_cm_id *rid)
{
	return htons(cma_get_port(&rid->route.addr.dst_addr));
}

/* ---------------------------------------------------------------- not supported */

CMA_EXPORT int rdma_join_multicast(struct rdma_cm_id *rid, struct sockaddr *addr, void *context)
{
	(void)rid; (void)addr; (void)context;
	cma_warn("multicast is not supported by uroce (rdma_join_multicast)");
	return fail(-ENOSYS);
}

CMA_EXPORT int rdma_join_multicast_ex(struct rdma_cm_id *rid, struct rdma_cm_join_mc_attr_ex *mc_join_attr,
				      void *context)
{
	(void)rid; (void)mc_join_attr; (void)context;
	cma_warn("multicast is not supported by uroce (rdma_join_multicast_ex)");
	return fail(-ENOSYS);
}

CMA_EXPORT int rdma_leave_multicast(struct rdma_cm_id *rid, struct sockaddr *addr)
{
	(void)rid; (void)addr;
	return fail(-EADDRNOTAVAIL);
}

CMA_EXPORT int rdma_set_local_ece(struct rdma_cm_id *rid, struct ibv_ece *ece)
{
	(void)rid; (void)ece;
	cma_warn("enhanced connection establishment (ECE) is not supported by uroce");
	return fail(-EOPNOTSUPP);
}

CMA_EXPORT int rdma_get_remote_ece(struct rdma_cm_id *rid, struct ibv_ece *ece)
{
	(void)rid; (void)ece;
	cma_warn("enhanced connection establishment (ECE) is not supported by uroce");
	return fail(-EOPNOTSUPP);
}

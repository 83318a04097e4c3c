/*
 * The IB CM protocol behind librdmacm: REQ/REP/RTU, REJ, MRA, DREQ/DREP and
 * SIDR_REQ/SIDR_REP exchanged on QP1 through the engine, the RDMA CM events
 * they produce (in the order and with the status the kernel's rdma_cm and
 * ib_cm give), the data QP's INIT/RTR/RTS attributes as ib_cm computes them,
 * and retransmission of every message that expects an answer.
 *
 * MADs arrive on the engine's progress thread; the handler only queues them.
 * One CM thread per process drains that queue and runs the retransmission
 * timers, taking cma_lock like the API calls do.
 */
#include "cma_priv.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "../uroce_priv.h"

pthread_mutex_t cma_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t cma_cond = PTHREAD_COND_INITIALIZER;

static struct cma_id *g_ids;
static bool g_inited;
static int g_wake_fd = -1;
static uint32_t g_hi_tid;
static uint32_t g_timeout_ms;
static int g_retries;

struct rx_item {
	struct rx_item *next;
	uint8_t gid_index;
	struct sockaddr_storage src;
	size_t len;
	uint64_t deadline_ms; /* a held REQ: rejected after this */
	uint8_t mad[RT_MAD_LEN];
};

/*
 * A REQ for a port whose listener was destroyed less than UROCE_RELISTEN_MS
 * ago is held instead of rejected at once.  Programs such as perftest -R
 * close one listener and open the next on the same port, and a fast client
 * can connect in between (REJ 8, "invalid service ID", which the client
 * does not retry).  The CM thread looks at held REQs every
 * UROCE_HELD_POLL_MS: one whose port listens again is taken, one older than
 * the grace period gets its REJ.  All under cma_lock.
 */
#define UROCE_RELISTEN_MS 500
#define UROCE_HELD_POLL_MS 10
#define UROCE_CLOSED_PORTS 8

static struct {
	uint16_t ps, port;
	uint64_t at_ms;
} g_closed[UROCE_CLOSED_PORTS];
static unsigned g_closed_next;
static struct rx_item *g_held;
static bool g_may_hold; /* the REQ being handled may be held */
static bool g_held_now; /* handle_req held it */

void cma_listener_closed(uint16_t ps, uint16_t port)
{
	unsigned i = g_closed_next++ % UROCE_CLOSED_PORTS;
	g_closed[i].ps = ps;
	g_closed[i].port = port;
	g_closed[i].at_ms = cma_now_ms();
}

static bool port_recently_closed(uint16_t ps, uint16_t port)
{
	uint64_t now = cma_now_ms();
	for (unsigned i = 0; i < UROCE_CLOSED_PORTS; i++)
		if (g_closed[i].at_ms && g_closed[i].ps == ps && g_closed[i].port == port &&
		    now - g_closed[i].at_ms < UROCE_RELISTEN_MS)
			return true;
	return false;
}

static pthread_mutex_t g_rx_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rx_item *g_rx_head, *g_rx_tail;

uint32_t cma_random32(void)
{
	uint32_t v;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != sizeof(v)) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		v = (uint32_t)(ts.tv_nsec ^ ts.tv_sec ^ (getpid() << 16));
	}
	return v;
}

uint64_t cma_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

struct cma_id *cma_ids_head(void)
{
	return g_ids;
}

void cma_id_link(struct cma_id *id)
{
	static uint32_t next_trace_id;

	id->trace_id = ++next_trace_id;
	id->next = g_ids;
	g_ids = id;
}

void cma_id_unlink(struct cma_id *id)
{
	struct cma_id **pp;

	for (pp = &g_ids; *pp; pp = &(*pp)->next) {
		if (*pp == id) {
			*pp = id->next;
			break;
		}
	}
}

static void wake(void)
{
	uint64_t one = 1;

	if (g_wake_fd >= 0 && write(g_wake_fd, &one, sizeof(one)) < 0)
		cma_warn("CM thread wake-up failed");
}

void cma_timer_start(struct cma_id *id, int retries)
{
	id->timeout_ms = g_timeout_ms;
	id->retries_left = retries;
	id->deadline_ms = cma_now_ms() + id->timeout_ms;
	id->timer_on = true;
	wake();
}

void cma_timer_stop(struct cma_id *id)
{
	id->timer_on = false;
}

static bool g_debug; /* $UROCE_CM_DEBUG: one stderr line per CM message */

static void debug_msg(const char *dir, uint8_t gid_index, const struct sockaddr *peer, const struct uroce_cm_msg *m)
{
	char ip[INET6_ADDRSTRLEN] = "?";
	const void *a = peer->sa_family == AF_INET6 ? (const void *)&((const struct sockaddr_in6 *)peer)->sin6_addr :
		(const void *)&((const struct sockaddr_in *)peer)->sin_addr;
	uint32_t l = 0, r = 0;

	if (!g_debug)
		return;
	inet_ntop(peer->sa_family, a, ip, sizeof(ip));
	switch (m->attr_id) {
	case RT_CM_REQ: l = m->u.req.local_comm_id; break;
	case RT_CM_REP: l = m->u.rep.local_comm_id; r = m->u.rep.remote_comm_id; break;
	case RT_CM_REJ: l = m->u.rej.local_comm_id; r = m->u.rej.remote_comm_id; break;
	case RT_CM_SIDR_REQ: l = m->u.sidr_req.request_id; break;
	case RT_CM_SIDR_REP: r = m->u.sidr_rep.request_id; break;
	default: l = m->u.rtu.local_comm_id; r = m->u.rtu.remote_comm_id; break;
	}
	fprintf(stderr, "uroce-cm: %s %s %s gid %u comm 0x%08x/0x%08x%s%s\n", dir, rt_cm_attr_name(m->attr_id) ?
		rt_cm_attr_name(m->attr_id) : "?", ip, gid_index, l, r,
		m->attr_id == RT_CM_REJ ? " reason " : "", m->attr_id == RT_CM_REJ ? (m->u.rej.reason == 8 ? "8" :
		m->u.rej.reason == 28 ? "28" : "other") : "");
}

/* msg from the address gid_index to QP1 at dst, in IP packets of traffic
 * class tclass. */
static int send_to(uint8_t gid_index, const struct sockaddr *dst, uint8_t tclass, const struct uroce_cm_msg *msg,
		   uint8_t *buf)
{
	int ret = uroce_cm_encode(msg, buf);

	if (ret)
		return ret;
	debug_msg("send", gid_index, dst, msg);
	return uroce_priv_gsi_send(cma_verbs(), gid_index, dst, tclass, buf, RT_MAD_LEN);
}

/* A connection's MADs go with its traffic class, as the kernel's ib_cm sends
 * them with its path's (both sides: the accepting one has it from the REQ). */
int cma_send_mad(struct cma_id *id, const struct uroce_cm_msg *msg, bool keep)
{
	uint8_t buf[RT_MAD_LEN];
	int ret = send_to(id->gid_index, (struct sockaddr *)&id->peer_gsi, id->route_tos, msg, buf);

	if (keep)
		memcpy(id->mad, buf, sizeof(buf));
	return ret < 0 ? ret : 0;
}

static void resend(struct cma_id *id)
{
	struct uroce_cm_msg m;

	if (g_debug && uroce_cm_decode(id->mad, RT_MAD_LEN, &m) == 0)
		debug_msg("resend", id->gid_index, (struct sockaddr *)&id->peer_gsi, &m);
	uroce_priv_gsi_send(cma_verbs(), id->gid_index, (struct sockaddr *)&id->peer_gsi, id->route_tos, id->mad,
			    RT_MAD_LEN);
}

static uint64_t own_tid(struct cma_id *id)
{
	return (uint64_t)g_hi_tid << 32 | id->local_comm_id;
}

static uint32_t new_comm_id(void)
{
	for (;;) {
		uint32_t v = cma_random32();
		struct cma_id *o;

		if (!v)
			continue;
		for (o = g_ids; o; o = o->next)
			if (o->local_comm_id == v)
				break;
		if (!o)
			return v;
	}
}

static struct cma_id *find_by_comm_id(uint32_t local_comm_id)
{
	struct cma_id *o;

	if (!local_comm_id)
		return NULL;
	for (o = g_ids; o; o = o->next)
		if (o->local_comm_id == local_comm_id)
			return o;
	return NULL;
}

/* ---------------------------------------------------------------- QP attributes */

static uint8_t ibv_mtu_min(uint8_t a, uint8_t b)
{
	return a < b ? a : b;
}

/*
 * What the kernel's RDMA CM fixes when the route is resolved, from the
 * options asked for on the id by then (later ones change neither):
 * - the connection's traffic class: the TOS asked for, else 0; its REQ
 *   carries it, and the accepting side's QP takes it from there (the
 *   passive side's own TOS, on the listener or the accepted id, is unused);
 * - the ACK timeout its REQ asks of the peer: the route's packet lifetime
 *   is the ACK timeout asked for, less one, else 18
 *   (CMA_IBOE_PACKET_LIFETIME), and the REQ carries 2 x lifetime + the
 *   CA's ACK delay, in 4.096 us x 2^n: the larger exponent, one more when
 *   the two are within one of each other (19 for 18; 16 for an ACK timeout
 *   of 15).
 */
void cma_fix_route(struct cma_id *id)
{
	int life = id->ack_timeout_set ? (id->ack_timeout ? id->ack_timeout - 1 : 0) : CMA_IBOE_PACKET_LIFETIME;
	int t = life + 1;
	if (t >= CMA_CA_ACK_DELAY)
		t += CMA_CA_ACK_DELAY >= t - 1;
	else
		t = CMA_CA_ACK_DELAY + (t >= CMA_CA_ACK_DELAY - 1);
	id->req_ack_timeout = (uint8_t)(t > 31 ? 31 : t);
	id->route_tos = id->tos_set ? id->tos : 0;
}

int cma_qp_attr(struct cma_id *id, struct ibv_qp_attr *attr, int *mask)
{
	bool connected = id->state >= CMA_REQ_SENT && id->state != CMA_LISTEN && id->remote_qpn;
	bool rc = id->id.qp_type == IBV_QPT_RC;
	enum ibv_qp_state want = attr->qp_state;

	memset(attr, 0, sizeof(*attr));
	attr->qp_state = want;
	switch (want) {
	case IBV_QPS_INIT:
		attr->pkey_index = 0;
		attr->port_num = 1;
		*mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
		if (id->id.qp_type == IBV_QPT_UD) {
			attr->qkey = id->qkey;
			*mask |= IBV_QP_QKEY;
		} else {
			/* ib_cm: remote write always, read/atomic when we take reads */
			attr->qp_access_flags = connected ? IBV_ACCESS_REMOTE_WRITE : 0;
			if (connected && id->responder_resources)
				attr->qp_access_flags |= IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
			*mask |= IBV_QP_ACCESS_FLAGS;
		}
		return 0;
	case IBV_QPS_RTR:
		if (id->id.qp_type == IBV_QPT_UD) {
			*mask = IBV_QP_STATE;
			return 0;
		}
		if (!connected)
			return -EINVAL;
		attr->path_mtu = id->path_mtu;
		attr->dest_qp_num = id->remote_qpn;
		attr->rq_psn = id->rq_psn;
		attr->ah_attr.is_global = 1;
		memcpy(attr->ah_attr.grh.dgid.raw, id->id.route.addr.addr.ibaddr.dgid.raw, 16);
		attr->ah_attr.grh.sgid_index = id->gid_index;
		attr->ah_attr.grh.hop_limit = 64;
		attr->ah_attr.grh.traffic_class = id->route_tos;
		attr->ah_attr.port_num = 1;
		*mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
		if (rc) {
			attr->max_dest_rd_atomic = id->responder_resources;
			attr->min_rnr_timer = id->min_rnr_timer;
			*mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		}
		return 0;
	case IBV_QPS_RTS:
		if (id->id.qp_type == IBV_QPT_UD) {
			attr->sq_psn = 0;
			*mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
			return 0;
		}
		if (!connected)
			return -EINVAL;
		attr->sq_psn = id->sq_psn;
		*mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
		if (rc) {
			attr->timeout = id->ack_timeout;
			attr->retry_cnt = id->retry_count;
			attr->rnr_retry = id->rnr_retry_count;
			attr->max_rd_atomic = id->initiator_depth;
			*mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
		}
		return 0;
	default:
		return -EINVAL;
	}
}

static int modify(struct cma_id *id, struct ibv_qp *qp, enum ibv_qp_state state)
{
	struct ibv_qp_attr attr = { .qp_state = state };
	int mask, ret;

	ret = cma_qp_attr(id, &attr, &mask);
	if (ret)
		return ret;
	ret = ibv_modify_qp(qp, &attr, mask);
	return ret > 0 ? -ret : ret;
}

/* A new QP: RC/UC to INIT, UD all the way to RTS (as rdma-core does). */
int cma_qp_to_init(struct cma_id *id, struct ibv_qp *qp)
{
	int ret = modify(id, qp, IBV_QPS_INIT);

	if (ret || qp->qp_type != IBV_QPT_UD)
		return ret;
	ret = modify(id, qp, IBV_QPS_RTR);
	if (!ret)
		ret = modify(id, qp, IBV_QPS_RTS);
	return ret;
}

static int qp_connect(struct cma_id *id)
{
	int ret;

	if (!id->id.qp)
		return 0;
	ret = modify(id, id->id.qp, IBV_QPS_INIT);
	if (!ret)
		ret = modify(id, id->id.qp, IBV_QPS_RTR);
	if (!ret)
		ret = modify(id, id->id.qp, IBV_QPS_RTS);
	if (ret)
		cma_warn("moving the QP to RTS failed: %s", strerror(-ret));
	return ret;
}

static void qp_error(struct cma_id *id)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };

	if (id->id.qp && id->id.qp_type != IBV_QPT_UD)
		ibv_modify_qp(id->id.qp, &attr, IBV_QP_STATE);
}

/* ---------------------------------------------------------------- active side */

static void fill_av_ud(struct cma_id *id, struct ibv_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->is_global = 1;
	memcpy(ah->grh.dgid.raw, id->id.route.addr.addr.ibaddr.dgid.raw, 16);
	ah->grh.sgid_index = id->gid_index;
	ah->grh.hop_limit = 64;
	ah->grh.traffic_class = id->route_tos;
	ah->port_num = 1;
}

static int start_sidr(struct cma_id *id, const struct rdma_conn_param *param)
{
	struct uroce_cm_msg m = { .attr_id = RT_CM_SIDR_REQ };
	size_t plen = param ? param->private_data_len : 0;
	int ret;

	if (plen > UROCE_CM_SIDR_REQ_PD - RT_CMA_HDR_LEN)
		return -EINVAL;
	id->local_comm_id = new_comm_id();
	m.tid = own_tid(id);
	m.u.sidr_req.request_id = id->local_comm_id;
	m.u.sidr_req.pkey = 0xffff;
	m.u.sidr_req.service_id = uroce_cm_service_id((uint16_t)id->id.ps, cma_get_port(&id->id.route.addr.dst_addr));
	ret = uroce_cma_hdr_encode(&id->id.route.addr.src_addr, &id->id.route.addr.dst_addr,
				   m.u.sidr_req.private_data);
	if (ret)
		return ret;
	if (plen)
		memcpy(m.u.sidr_req.private_data + RT_CMA_HDR_LEN, param->private_data, plen);
	ret = cma_send_mad(id, &m, true);
	if (ret)
		return ret;
	id->state = CMA_SIDR_REQ_SENT;
	cma_timer_start(id, g_retries);
	return 0;
}

int cma_start_connect(struct cma_id *id, const struct rdma_conn_param *param)
{
	struct uroce_cm_msg m = { .attr_id = RT_CM_REQ };
	struct uroce_cm_req *r = &m.u.req;
	struct rdma_conn_param defaults = { .retry_count = 7, .rnr_retry_count = 7 };
	size_t plen = param ? param->private_data_len : 0;
	uint8_t max_resp, max_init;
	int ret;

	if (id->state != CMA_ROUTE_RESOLVED)
		return -EINVAL;
	if (id->id.qp_type == IBV_QPT_UD)
		return start_sidr(id, param);
	cma_dev_rd_atom(&max_resp, &max_init);
	if (!param) {
		/* rdma-core: the device's limits, 7 retries of each kind */
		defaults.responder_resources = max_resp;
		defaults.initiator_depth = max_init;
		param = &defaults;
	}
	if (plen > UROCE_CM_REQ_PD - RT_CMA_HDR_LEN || (plen && !param->private_data))
		return -EINVAL;
	id->local_comm_id = new_comm_id();
	id->tid = own_tid(id);
	id->local_qpn = id->id.qp ? id->id.qp->qp_num : param->qp_num;
	id->sq_psn = cma_random32() & RT_PSN_MASK;
	id->responder_resources = param->responder_resources < max_resp ? param->responder_resources : max_resp;
	id->initiator_depth = param->initiator_depth < max_init ? param->initiator_depth : max_init;
	id->retry_count = param->retry_count > 7 ? 7 : param->retry_count;
	id->peer_rnr_retry = param->rnr_retry_count > 7 ? 7 : param->rnr_retry_count;
	id->srq = param->srq || (id->id.qp && id->id.qp->srq);
	id->path_mtu = cma_port_mtu();
	if (!id->req_ack_timeout)
		cma_fix_route(id);
	if (!id->ack_timeout_set)
		id->ack_timeout = id->req_ack_timeout;

	m.tid = id->tid;
	r->local_comm_id = id->local_comm_id;
	r->service_id = uroce_cm_service_id((uint16_t)id->id.ps, cma_get_port(&id->id.route.addr.dst_addr));
	r->local_ca_guid = be64toh(id->id.verbs->device ? ibv_get_device_guid(id->id.verbs->device) : 0);
	r->local_qpn = id->local_qpn;
	r->responder_resources = id->responder_resources;
	r->initiator_depth = id->initiator_depth;
	r->remote_cm_response_timeout = CMA_CM_RESPONSE_TIMEOUT;
	r->transport_type = id->id.qp_type == IBV_QPT_UC ? 1 : 0;
	r->flow_control = param->flow_control ? 1 : 0;
	r->starting_psn = id->sq_psn;
	r->local_cm_response_timeout = CMA_CM_RESPONSE_TIMEOUT;
	r->retry_count = id->retry_count;
	r->pkey = 0xffff;
	r->path_mtu = id->path_mtu;
	r->rnr_retry_count = id->peer_rnr_retry;
	r->max_cm_retries = CMA_MAX_CM_RETRIES;
	r->srq = id->srq;
	r->local_lid = 0xffff;
	r->remote_lid = 0xffff;
	memcpy(r->local_gid, id->id.route.addr.addr.ibaddr.sgid.raw, 16);
	memcpy(r->remote_gid, id->id.route.addr.addr.ibaddr.dgid.raw, 16);
	r->traffic_class = id->route_tos;
	r->hop_limit = 64;
	r->local_ack_timeout = id->req_ack_timeout;
	ret = uroce_cma_hdr_encode(&id->id.route.addr.src_addr, &id->id.route.addr.dst_addr, r->private_data);
	if (ret)
		return ret;
	if (plen)
		memcpy(r->private_data + RT_CMA_HDR_LEN, param->private_data, plen);
	ret = cma_send_mad(id, &m, true);
	if (ret)
		return ret;
	id->state = CMA_REQ_SENT;
	cma_timer_start(id, g_retries);
	return 0;
}

static void send_rtu(struct cma_id *id)
{
	struct uroce_cm_msg m = { .attr_id = RT_CM_RTU, .tid = id->tid };

	m.u.rtu.local_comm_id = id->local_comm_id;
	m.u.rtu.remote_comm_id = id->remote_comm_id;
	cma_send_mad(id, &m, false);
}

static void set_conn_param(struct cma_event *e, struct cma_id *id)
{
	if (!e)
		return;
	e->ev.param.conn.responder_resources = id->responder_resources;
	e->ev.param.conn.initiator_depth = id->initiator_depth;
	e->ev.param.conn.rnr_retry_count = id->rnr_retry_count;
	e->ev.param.conn.retry_count = id->retry_count;
	e->ev.param.conn.srq = id->srq;
	e->ev.param.conn.qp_num = id->remote_qpn;
}

static void handle_rep(struct cma_id *id, const struct uroce_cm_rep *rep)
{
	if (id->state == CMA_ESTABLISHED && id->remote_comm_id == rep->local_comm_id) {
		send_rtu(id); /* our RTU was lost */
		return;
	}
	if (id->state != CMA_REQ_SENT)
		return;
	cma_timer_stop(id);
	id->remote_comm_id = rep->local_comm_id;
	id->remote_qpn = rep->local_qpn;
	id->rq_psn = rep->starting_psn;
	if (rep->responder_resources < id->initiator_depth)
		id->initiator_depth = rep->responder_resources;
	if (rep->initiator_depth < id->responder_resources)
		id->responder_resources = rep->initiator_depth;
	id->rnr_retry_count = rep->rnr_retry_count;
	if (!id->id.qp) {
		id->state = CMA_REP_RCVD;
		cma_post_event(id, NULL, RDMA_CM_EVENT_CONNECT_RESPONSE, 0, rep->private_data, UROCE_CM_REP_PD);
		set_conn_param(cma_event_last(id), id);
		return;
	}
	if (qp_connect(id)) {
		struct uroce_cm_msg m = { .attr_id = RT_CM_REJ, .tid = id->tid };
		m.u.rej.local_comm_id = id->local_comm_id;
		m.u.rej.remote_comm_id = id->remote_comm_id;
		m.u.rej.msg_rejected = 1;
		m.u.rej.reason = UROCE_REJ_NO_QP;
		cma_send_mad(id, &m, false);
		id->state = CMA_REJECTED;
		cma_post_event(id, NULL, RDMA_CM_EVENT_CONNECT_ERROR, -EINVAL, NULL, 0);
		return;
	}
	send_rtu(id);
	id->state = CMA_ESTABLISHED;
	cma_post_event(id, NULL, RDMA_CM_EVENT_ESTABLISHED, 0, rep->private_data, UROCE_CM_REP_PD);
	set_conn_param(cma_event_last(id), id);
}

int cma_do_establish(struct cma_id *id)
{
	if (id->state != CMA_REP_RCVD)
		return -EINVAL;
	send_rtu(id);
	id->state = CMA_ESTABLISHED;
	return 0;
}

/* ---------------------------------------------------------------- passive side */

/* A REJ for a REQ no id takes, with the REQ's traffic class (the kernel's
 * ib_cm answers with the received packet's, which its sender set to the
 * same). */
static void reject_unknown(uint8_t gid_index, const struct sockaddr *src, const struct uroce_cm_msg *req,
			   uint16_t reason)
{
	struct uroce_cm_msg m = { .attr_id = RT_CM_REJ, .tid = req->tid };
	uint8_t buf[RT_MAD_LEN];

	m.u.rej.remote_comm_id = req->u.req.local_comm_id;
	m.u.rej.msg_rejected = 0;
	m.u.rej.reason = reason;
	send_to(gid_index, src, req->u.req.traffic_class, &m, buf);
}

static struct cma_id *new_child(struct cma_id *listen, uint8_t gid_index, const struct sockaddr *src,
				const struct uroce_cma_hdr *hdr)
{
	struct cma_id *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->sync = listen->sync;
	c->chan = listen->sync ? cma_channel_new(true) : listen->chan;
	if (!c->chan) {
		free(c);
		return NULL;
	}
	c->id.channel = &c->chan->ch;
	c->id.context = listen->id.context;
	c->id.verbs = cma_verbs();
	c->id.ps = listen->id.ps;
	c->id.qp_type = listen->id.qp_type;
	c->id.port_num = 1;
	c->listen = listen;
	c->child = true;
	c->bound = true;
	c->port = listen->port;
	c->gid_index = gid_index;
	c->route_tos = listen->tos_set ? listen->tos : 0; /* (a connection's: its REQ's, below) */
	c->min_rnr_timer = listen->min_rnr_timer;
	/* (nor does an accepted id take its listener's ACK timeout: its QP
	 * takes the REQ's) */
	c->qkey = listen->qkey;
	memcpy(&c->id.route.addr.src_storage, &hdr->dst, sizeof(hdr->dst));
	cma_set_port(&c->id.route.addr.src_addr, listen->port);
	memcpy(&c->id.route.addr.dst_storage, &hdr->src, sizeof(hdr->src));
	{
		struct sockaddr_storage local;
		if (uroce_priv_gid_addr(cma_verbs(), gid_index, &local) == 0)
			uroce_gid_from_sockaddr((struct sockaddr *)&local, c->id.route.addr.addr.ibaddr.sgid.raw);
	}
	uroce_gid_from_sockaddr(src, c->id.route.addr.addr.ibaddr.dgid.raw);
	c->id.route.addr.addr.ibaddr.pkey = htons(0xffff);
	memcpy(&c->peer_gsi, src, src->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in));
	c->local_comm_id = new_comm_id();
	/* chosen now, as rdma_cm does: rdma_init_qp_attr(RTS) before the accept must see it */
	c->sq_psn = cma_random32() & RT_PSN_MASK;
	cma_id_link(c);
	return c;
}

/* Whether listener listen holds as many connection requests as its
 * backlog: the kernel's RDMA CM then drops a request (REQ) without an
 * answer, and refuses a UD one (SIDR REQ) with a SIDR REP of status
 * REJECT (drivers/infiniband/core/ucma.c, cm.c). */
static bool backlog_full(const struct cma_id *listen, const struct uroce_cm_msg *msg)
{
	if (listen->backlog > 0)
		return false;
	if (g_debug)
		fprintf(stderr, "uroce-cm: %s dropped: the listener on port %u holds its backlog of requests\n",
			rt_cm_attr_name(msg->attr_id), listen->port);
	return true;
}

static void handle_req(uint8_t gid_index, const struct sockaddr *src, const struct uroce_cm_msg *msg)
{
	const struct uroce_cm_req *r = &msg->u.req;
	struct uroce_cma_hdr hdr;
	struct cma_id *o, *listen, *c;
	uint16_t ps, port;

	for (o = g_ids; o; o = o->next) {
		if (o->child && o->remote_comm_id == r->local_comm_id && cma_addr_eq((struct sockaddr *)&o->peer_gsi, src)) {
			if (o->state == CMA_REP_SENT)
				resend(o); /* our REP was lost */
			return;
		}
	}
	uroce_cm_service_split(r->service_id, &ps, &port);
	bool ip = (r->service_id >> 24) == (RT_CM_SERVICE_ID_IP_PREFIX >> 24) &&
		  !uroce_cma_hdr_decode(r->private_data, UROCE_CM_REQ_PD, &hdr);
	listen = ip ? cma_find_listener(ps, port, (struct sockaddr *)&hdr.dst) : NULL;
	if (ip && !listen && g_may_hold && port_recently_closed(ps, port)) {
		g_held_now = true; /* its port may listen again in a moment */
		return;
	}
	if (!listen || (listen->id.qp_type == IBV_QPT_UC) != (r->transport_type == 1)) {
		reject_unknown(gid_index, src, msg,
			       !listen && ip && cma_port_listened(ps, port) ? UROCE_REJ_CONSUMER_DEFINED
									     : UROCE_REJ_INVALID_SERVICE_ID);
		return;
	}
	if (backlog_full(listen, msg))
		return; /* no answer: the requester sends its REQ again after its timeout */
	c = new_child(listen, gid_index, src, &hdr);
	if (!c) {
		reject_unknown(gid_index, src, msg, UROCE_REJ_NO_RESOURCES);
		return;
	}
	listen->backlog--;
	c->state = CMA_REQ_RCVD;
	c->tid = msg->tid;
	c->remote_comm_id = r->local_comm_id;
	c->remote_qpn = r->local_qpn;
	c->rq_psn = r->starting_psn;
	c->path_mtu = ibv_mtu_min(r->path_mtu ? r->path_mtu : IBV_MTU_1024, (uint8_t)cma_port_mtu());
	c->retry_count = r->retry_count;
	c->rnr_retry_count = r->rnr_retry_count;
	c->ack_timeout = c->ack_timeout_set ? c->ack_timeout : r->local_ack_timeout;
	c->route_tos = r->traffic_class;
	/* what the peer offers, as ib_cm reports it: swapped */
	c->responder_resources = r->initiator_depth;
	c->initiator_depth = r->responder_resources;
	c->srq = r->srq;
	cma_post_event(c, listen, RDMA_CM_EVENT_CONNECT_REQUEST, 0, r->private_data + RT_CMA_HDR_LEN,
		       UROCE_CM_REQ_PD - RT_CMA_HDR_LEN);
	{
		struct cma_event *e = cma_event_last(c);
		if (e) {
			e->ev.param.conn.responder_resources = c->responder_resources;
			e->ev.param.conn.initiator_depth = c->initiator_depth;
			e->ev.param.conn.flow_control = r->flow_control;
			e->ev.param.conn.retry_count = r->retry_count;
			e->ev.param.conn.rnr_retry_count = r->rnr_retry_count;
			e->ev.param.conn.srq = r->srq;
			e->ev.param.conn.qp_num = r->local_qpn;
		}
	}
}

static void handle_sidr_req(uint8_t gid_index, const struct sockaddr *src, const struct uroce_cm_msg *msg)
{
	const struct uroce_cm_sidr_req *r = &msg->u.sidr_req;
	struct uroce_cma_hdr hdr;
	struct cma_id *o, *listen, *c;
	uint16_t ps, port;

	for (o = g_ids; o; o = o->next)
		if (o->child && o->remote_comm_id == r->request_id && o->id.qp_type == IBV_QPT_UD &&
		    cma_addr_eq((struct sockaddr *)&o->peer_gsi, src)) {
			if (o->state == CMA_UD_READY)
				resend(o);
			return;
		}
	uroce_cm_service_split(r->service_id, &ps, &port);
	bool full = false;
	if (uroce_cma_hdr_decode(r->private_data, UROCE_CM_SIDR_REQ_PD, &hdr) ||
	    !(listen = cma_find_listener(ps, port, (struct sockaddr *)&hdr.dst)) ||
	    listen->id.qp_type != IBV_QPT_UD || (full = backlog_full(listen, msg)) ||
	    !(c = new_child(listen, gid_index, src, &hdr))) {
		struct uroce_cm_msg m = { .attr_id = RT_CM_SIDR_REP, .tid = msg->tid };
		uint8_t buf[RT_MAD_LEN];
		m.u.sidr_rep.request_id = r->request_id;
		m.u.sidr_rep.status = full ? UROCE_SIDR_REJECT : UROCE_SIDR_UNSUPPORTED;
		m.u.sidr_rep.service_id = r->service_id;
		send_to(gid_index, src, 0, &m, buf); /* (the kernel: the SIDR_REQ's traffic class, not known here) */
		return;
	}
	listen->backlog--;
	c->state = CMA_REQ_RCVD;
	c->tid = msg->tid;
	c->remote_comm_id = r->request_id;
	cma_post_event(c, listen, RDMA_CM_EVENT_CONNECT_REQUEST, 0, r->private_data + RT_CMA_HDR_LEN,
		       UROCE_CM_SIDR_REQ_PD - RT_CMA_HDR_LEN);
	{
		struct cma_event *e = cma_event_last(c);
		if (e)
			fill_av_ud(c, &e->ev.param.ud.ah_attr);
	}
}

static int sidr_answer(struct cma_id *id, uint8_t status, const struct rdma_conn_param *param,
		       const void *pd, uint8_t len)
{
	struct uroce_cm_msg m = { .attr_id = RT_CM_SIDR_REP, .tid = id->tid };

	if (len > UROCE_CM_SIDR_REP_PD)
		return -EINVAL;
	m.u.sidr_rep.request_id = id->remote_comm_id;
	m.u.sidr_rep.status = status;
	m.u.sidr_rep.service_id = uroce_cm_service_id((uint16_t)id->id.ps, id->port);
	if (status == UROCE_SIDR_SUCCESS) {
		m.u.sidr_rep.qpn = id->id.qp ? id->id.qp->qp_num : (param ? param->qp_num : 0);
		m.u.sidr_rep.qkey = id->qkey;
	}
	if (len)
		memcpy(m.u.sidr_rep.private_data, pd, len);
	id->state = status == UROCE_SIDR_SUCCESS ? CMA_UD_READY : CMA_REJECTED;
	return cma_send_mad(id, &m, true);
}

int cma_do_accept(struct cma_id *id, const struct rdma_conn_param *param)
{
	struct uroce_cm_msg m = { .attr_id = RT_CM_REP, .tid = id->tid };
	struct uroce_cm_rep *r = &m.u.rep;
	size_t plen = param ? param->private_data_len : 0;
	int ret;

	if (id->state != CMA_REQ_RCVD)
		return -EINVAL;
	if (id->id.qp_type == IBV_QPT_UD)
		return sidr_answer(id, UROCE_SIDR_SUCCESS, param, param ? param->private_data : NULL,
				   param ? param->private_data_len : 0);
	if (plen > UROCE_CM_REP_PD || (plen && !param->private_data))
		return -EINVAL;
	if (param) {
		if (param->responder_resources < id->responder_resources)
			id->responder_resources = param->responder_resources;
		if (param->initiator_depth < id->initiator_depth)
			id->initiator_depth = param->initiator_depth;
		id->peer_rnr_retry = param->rnr_retry_count > 7 ? 7 : param->rnr_retry_count;
	} else {
		id->peer_rnr_retry = 7;
	}
	{
		uint8_t max_resp, max_init;
		cma_dev_rd_atom(&max_resp, &max_init);
		if (id->responder_resources > max_resp)
			id->responder_resources = max_resp;
		if (id->initiator_depth > max_init)
			id->initiator_depth = max_init;
	}
	id->local_qpn = id->id.qp ? id->id.qp->qp_num : (param ? param->qp_num : 0);
	ret = qp_connect(id);
	if (ret)
		return ret;
	r->local_comm_id = id->local_comm_id;
	r->remote_comm_id = id->remote_comm_id;
	r->local_qpn = id->local_qpn;
	r->starting_psn = id->sq_psn;
	r->responder_resources = id->responder_resources;
	r->initiator_depth = id->initiator_depth;
	r->target_ack_delay = CMA_TARGET_ACK_DELAY;
	r->flow_control = param && param->flow_control ? 1 : 0;
	r->rnr_retry_count = id->peer_rnr_retry;
	r->srq = (param && param->srq) || (id->id.qp && id->id.qp->srq);
	r->local_ca_guid = be64toh(ibv_get_device_guid(id->id.verbs->device));
	if (plen)
		memcpy(r->private_data, param->private_data, plen);
	ret = cma_send_mad(id, &m, true);
	if (ret)
		return ret;
	id->state = CMA_REP_SENT;
	cma_timer_start(id, g_retries);
	return 0;
}

static void established_passive(struct cma_id *id)
{
	if (id->state != CMA_REP_SENT)
		return;
	cma_timer_stop(id);
	id->state = CMA_ESTABLISHED;
	cma_post_event(id, NULL, RDMA_CM_EVENT_ESTABLISHED, 0, NULL, 0);
}

int cma_do_reject(struct cma_id *id, const void *pd, uint8_t len, uint16_t reason)
{
	struct uroce_cm_msg m = { .attr_id = RT_CM_REJ, .tid = id->tid };

	if (id->state != CMA_REQ_RCVD)
		return -EINVAL;
	if (id->id.qp_type == IBV_QPT_UD)
		return sidr_answer(id, UROCE_SIDR_REJECT, NULL, pd, len);
	if (len > UROCE_CM_REJ_PD)
		return -EINVAL;
	m.u.rej.local_comm_id = id->local_comm_id;
	m.u.rej.remote_comm_id = id->remote_comm_id;
	m.u.rej.msg_rejected = 0;
	m.u.rej.reason = reason;
	if (len)
		memcpy(m.u.rej.private_data, pd, len);
	id->state = CMA_REJECTED;
	return cma_send_mad(id, &m, false);
}

/* ---------------------------------------------------------------- disconnect */

static void send_drep(struct cma_id *id)
{
	struct uroce_cm_msg m = { .attr_id = RT_CM_DREP, .tid = id->dreq_tid };

	m.u.drep.local_comm_id = id->local_comm_id;
	m.u.drep.remote_comm_id = id->remote_comm_id;
	cma_send_mad(id, &m, false);
}

static int send_dreq(struct cma_id *id, bool keep)
{
	struct uroce_cm_msg m = { .attr_id = RT_CM_DREQ };

	id->dreq_tid = own_tid(id);
	m.tid = id->dreq_tid;
	m.u.dreq.local_comm_id = id->local_comm_id;
	m.u.dreq.remote_comm_id = id->remote_comm_id;
	m.u.dreq.remote_qpn = id->remote_qpn;
	return cma_send_mad(id, &m, keep);
}

int cma_do_disconnect(struct cma_id *id)
{
	int ret;

	if (id->id.qp_type == IBV_QPT_UD)
		return -EINVAL;
	switch (id->state) {
	case CMA_ESTABLISHED:
	case CMA_REP_SENT:
	case CMA_REP_RCVD:
		qp_error(id);
		ret = send_dreq(id, true);
		if (ret)
			return ret;
		id->state = CMA_DREQ_SENT;
		cma_timer_start(id, g_retries);
		return 0;
	case CMA_DREQ_RCVD:
		qp_error(id);
		send_drep(id);
		id->state = CMA_TIMEWAIT;
		return 0;
	case CMA_DREQ_SENT:
	case CMA_TIMEWAIT:
		qp_error(id);
		return 0;
	default:
		return -EINVAL;
	}
}

static void handle_dreq(uint8_t gid_index, const struct sockaddr *src, const struct uroce_cm_msg *msg)
{
	struct cma_id *id = find_by_comm_id(msg->u.dreq.remote_comm_id);

	if (!id || id->remote_comm_id != msg->u.dreq.local_comm_id) {
		/* unknown connection: answer so the peer stops retrying (ib_cm does too) */
		struct uroce_cm_msg m = { .attr_id = RT_CM_DREP, .tid = msg->tid };
		uint8_t buf[RT_MAD_LEN];
		m.u.drep.local_comm_id = msg->u.dreq.remote_comm_id;
		m.u.drep.remote_comm_id = msg->u.dreq.local_comm_id;
		send_to(gid_index, src, 0, &m, buf); /* (the kernel: the DREQ's traffic class, not known here) */
		return;
	}
	id->dreq_tid = msg->tid;
	switch (id->state) {
	case CMA_REP_SENT:
	case CMA_ESTABLISHED:
	case CMA_REP_RCVD:
		cma_timer_stop(id);
		id->state = CMA_DREQ_RCVD;
		cma_post_event(id, NULL, RDMA_CM_EVENT_DISCONNECTED, 0, NULL, 0);
		break;
	case CMA_DREQ_SENT:
		cma_timer_stop(id);
		send_drep(id);
		id->state = CMA_TIMEWAIT;
		cma_post_event(id, NULL, RDMA_CM_EVENT_DISCONNECTED, 0, NULL, 0);
		break;
	case CMA_TIMEWAIT:
		send_drep(id);
		break;
	default:
		break;
	}
}

static void handle_drep(struct cma_id *id)
{
	if (id->state != CMA_DREQ_SENT)
		return;
	cma_timer_stop(id);
	id->state = CMA_TIMEWAIT;
	cma_post_event(id, NULL, RDMA_CM_EVENT_DISCONNECTED, 0, NULL, 0);
}

static void handle_rej(struct cma_id *id, const struct uroce_cm_rej *rej)
{
	if (id->state != CMA_REQ_SENT && id->state != CMA_REP_SENT && id->state != CMA_REP_RCVD)
		return;
	cma_timer_stop(id);
	qp_error(id);
	id->state = CMA_REJECTED;
	cma_post_event(id, NULL, RDMA_CM_EVENT_REJECTED, rej->reason, rej->private_data, UROCE_CM_REJ_PD);
}

static void handle_sidr_rep(struct cma_id *id, const struct uroce_cm_sidr_rep *rep)
{
	struct cma_event *e;

	if (id->state != CMA_SIDR_REQ_SENT)
		return;
	cma_timer_stop(id);
	if (rep->status != UROCE_SIDR_SUCCESS) {
		id->state = CMA_REJECTED;
		cma_post_event(id, NULL, RDMA_CM_EVENT_UNREACHABLE, -EINVAL, rep->private_data, UROCE_CM_SIDR_REP_PD);
		return;
	}
	id->state = CMA_UD_READY;
	id->remote_qpn = rep->qpn;
	cma_post_event(id, NULL, RDMA_CM_EVENT_ESTABLISHED, 0, rep->private_data, UROCE_CM_SIDR_REP_PD);
	e = cma_event_last(id);
	if (e) {
		fill_av_ud(id, &e->ev.param.ud.ah_attr);
		e->ev.param.ud.qp_num = rep->qpn;
		e->ev.param.ud.qkey = rep->qkey;
	}
}

/* What destroying an id tells the peer (ib_cm's cm_destroy_id). */
void cma_abandon(struct cma_id *id)
{
	struct uroce_cm_msg m = { .attr_id = RT_CM_REJ, .tid = id->tid };

	cma_timer_stop(id);
	switch (id->state) {
	case CMA_REQ_SENT:
		m.u.rej.reason = UROCE_REJ_TIMEOUT;
		break;
	case CMA_REQ_RCVD:
		if (id->id.qp_type == IBV_QPT_UD) {
			sidr_answer(id, UROCE_SIDR_REJECT, NULL, NULL, 0);
			return;
		}
		/* fall through */
	case CMA_REP_SENT:
		m.u.rej.reason = UROCE_REJ_CONSUMER_DEFINED;
		m.u.rej.msg_rejected = id->state == CMA_REP_SENT ? 2 : 0;
		break;
	case CMA_ESTABLISHED:
	case CMA_REP_RCVD:
		qp_error(id);
		send_dreq(id, false);
		return;
	case CMA_DREQ_RCVD:
		send_drep(id);
		return;
	default:
		return;
	}
	m.u.rej.local_comm_id = id->local_comm_id;
	m.u.rej.remote_comm_id = id->remote_comm_id;
	cma_send_mad(id, &m, false);
}

/* ---------------------------------------------------------------- timers and the CM thread */

static void handle_timeout(struct cma_id *id)
{
	if (id->retries_left > 0) {
		id->retries_left--;
		resend(id);
		id->deadline_ms = cma_now_ms() + id->timeout_ms;
		return;
	}
	id->timer_on = false;
	switch (id->state) {
	case CMA_REQ_SENT:
	case CMA_SIDR_REQ_SENT:
		id->state = CMA_REJECTED;
		cma_post_event(id, NULL, RDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT, NULL, 0);
		break;
	case CMA_REP_SENT:
		qp_error(id);
		id->state = CMA_REJECTED;
		cma_post_event(id, NULL, RDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT, NULL, 0);
		break;
	case CMA_DREQ_SENT:
		id->state = CMA_TIMEWAIT;
		cma_post_event(id, NULL, RDMA_CM_EVENT_DISCONNECTED, 0, NULL, 0);
		break;
	default:
		break;
	}
}

static void handle_mad(uint8_t gid_index, const struct sockaddr *src, const uint8_t *mad, size_t len)
{
	struct uroce_cm_msg msg;
	struct cma_id *id;

	if (uroce_cm_decode(mad, len, &msg))
		return;
	debug_msg("recv", gid_index, src, &msg);
	switch (msg.attr_id) {
	case RT_CM_REQ:
		handle_req(gid_index, src, &msg);
		return;
	case RT_CM_SIDR_REQ:
		handle_sidr_req(gid_index, src, &msg);
		return;
	case RT_CM_DREQ:
		handle_dreq(gid_index, src, &msg);
		return;
	case RT_CM_SIDR_REP:
		id = find_by_comm_id(msg.u.sidr_rep.request_id);
		if (id)
			handle_sidr_rep(id, &msg.u.sidr_rep);
		return;
	case RT_CM_REP:
		id = find_by_comm_id(msg.u.rep.remote_comm_id);
		if (id)
			handle_rep(id, &msg.u.rep);
		return;
	case RT_CM_RTU:
		id = find_by_comm_id(msg.u.rtu.remote_comm_id);
		if (id && id->remote_comm_id == msg.u.rtu.local_comm_id)
			established_passive(id);
		return;
	case RT_CM_REJ:
		id = find_by_comm_id(msg.u.rej.remote_comm_id);
		if (id)
			handle_rej(id, &msg.u.rej);
		return;
	case RT_CM_DREP:
		id = find_by_comm_id(msg.u.drep.remote_comm_id);
		if (id)
			handle_drep(id);
		return;
	case RT_CM_MRA:
		id = find_by_comm_id(msg.u.mra.remote_comm_id);
		if (id && id->timer_on) {
			/* the peer needs more time: wait its service timeout before retrying */
			uint64_t extra = msg.u.mra.service_timeout >= 8 ? 1ull << (msg.u.mra.service_timeout - 8) : 1;
			id->deadline_ms = cma_now_ms() + id->timeout_ms + extra;
		}
		return;
	default:
		return;
	}
}

static void gsi_handler(void *arg, uint8_t gid_index, const struct sockaddr *src, const uint8_t *mad, size_t len)
{
	struct rx_item *it;

	(void)arg;
	if (len < RT_MAD_LEN || (src->sa_family != AF_INET && src->sa_family != AF_INET6))
		return;
	it = malloc(sizeof(*it));
	if (!it)
		return;
	it->next = NULL;
	it->gid_index = gid_index;
	memset(&it->src, 0, sizeof(it->src));
	memcpy(&it->src, src, src->sa_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6));
	cma_set_port((struct sockaddr *)&it->src, RT_ROCE_UDP_PORT);
	it->len = RT_MAD_LEN;
	memcpy(it->mad, mad, RT_MAD_LEN);
	pthread_mutex_lock(&g_rx_lock);
	if (g_rx_tail)
		g_rx_tail->next = it;
	else
		g_rx_head = it;
	g_rx_tail = it;
	pthread_mutex_unlock(&g_rx_lock);
	wake();
}

/* Handle a received MAD under cma_lock; false when it is a REQ held for a
   listener that may come back (may_hold). */
static bool handle_or_hold(struct rx_item *it, bool may_hold)
{
	g_may_hold = may_hold;
	g_held_now = false;
	handle_mad(it->gid_index, (struct sockaddr *)&it->src, it->mad, it->len);
	g_may_hold = false;
	return !g_held_now;
}

static void *cm_thread(void *arg)
{
	(void)arg;
	for (;;) {
		struct pollfd pfd = { .fd = g_wake_fd, .events = POLLIN };
		uint64_t now, next = UINT64_MAX, v;
		struct rx_item *it;
		struct cma_id *id;
		int timeout;

		pthread_mutex_lock(&cma_lock);
		for (id = g_ids; id; id = id->next)
			if (id->timer_on && id->deadline_ms < next)
				next = id->deadline_ms;
		if (g_held)
			next = cma_now_ms() + UROCE_HELD_POLL_MS;
		pthread_mutex_unlock(&cma_lock);
		now = cma_now_ms();
		timeout = next == UINT64_MAX ? -1 : next <= now ? 0 : (int)(next - now);
		if (poll(&pfd, 1, timeout) > 0 && read(g_wake_fd, &v, sizeof(v)) < 0)
			continue;
		for (;;) {
			pthread_mutex_lock(&g_rx_lock);
			it = g_rx_head;
			if (it) {
				g_rx_head = it->next;
				if (!g_rx_head)
					g_rx_tail = NULL;
			}
			pthread_mutex_unlock(&g_rx_lock);
			if (!it)
				break;
			pthread_mutex_lock(&cma_lock);
			if (!handle_or_hold(it, true)) {
				it->deadline_ms = cma_now_ms() + UROCE_RELISTEN_MS;
				it->next = g_held;
				g_held = it;
				it = NULL;
			}
			pthread_mutex_unlock(&cma_lock);
			free(it);
		}
		now = cma_now_ms();
		pthread_mutex_lock(&cma_lock);
		for (id = g_ids; id; id = id->next)
			if (id->timer_on && id->deadline_ms <= now)
				handle_timeout(id);
		for (struct rx_item **pp = &g_held; *pp;) {
			it = *pp;
			if (!handle_or_hold(it, now < it->deadline_ms)) {
				pp = &it->next; /* still no listener: keep it */
				continue;
			}
			*pp = it->next;
			free(it);
		}
		pthread_mutex_unlock(&cma_lock);
	}
	return NULL;
}

static unsigned env_uint(const char *name, unsigned def, unsigned max)
{
	const char *s = getenv(name);
	char *end;
	unsigned long v;

	if (!s || !*s)
		return def;
	v = strtoul(s, &end, 10);
	if (*end || v > max) {
		cma_warn("ignoring %s=%s (not a number up to %u)", name, s, max);
		return def;
	}
	return (unsigned)v;
}

/* Under cma_lock. */
int cma_init(void)
{
	static int err;
	struct ibv_context *ctx;
	pthread_attr_t pa;
	pthread_t t;
	int ret;

	if (g_inited)
		return err;
	cma_trace_start();
	ctx = cma_verbs();
	if (!ctx)
		return errno ? -errno : -ENODEV; /* cma_verbs said why */
	g_wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (g_wake_fd < 0)
		return -errno;
	g_hi_tid = cma_random32() | 1;
	g_debug = getenv("UROCE_CM_DEBUG") && *getenv("UROCE_CM_DEBUG") && strcmp(getenv("UROCE_CM_DEBUG"), "0");
	/* ib_cm: 2 x packet lifetime + the peer's CM response time (4.096 us x 2^n) */
	g_timeout_ms = env_uint("UROCE_CM_TIMEOUT_MS",
				2 * (1u << (CMA_IBOE_PACKET_LIFETIME - 8)) + (1u << (CMA_CM_RESPONSE_TIMEOUT - 8)),
				600000);
	g_retries = (int)env_uint("UROCE_CM_RETRIES", CMA_MAX_CM_RETRIES, 15);
	ret = uroce_priv_gsi_register(ctx, gsi_handler, NULL);
	if (ret < 0) {
		cma_warn("cannot receive CM messages on QP1: %s", strerror(-ret));
		return ret;
	}
	pthread_attr_init(&pa);
	pthread_attr_setdetachstate(&pa, PTHREAD_CREATE_DETACHED);
	ret = pthread_create(&t, &pa, cm_thread, NULL);
	pthread_attr_destroy(&pa);
	if (ret)
		return -ret;
	g_inited = true;
	err = 0;
	return 0;
}

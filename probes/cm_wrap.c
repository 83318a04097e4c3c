/*
 * The exported librdmacm entry points the probe wraps: every event the
 * program takes from rdma_get_cm_event() (with addresses and the first 16
 * bytes of private data) and the calls that drive a connection (create_id,
 * resolve, listen, connect, accept, reject, disconnect, create/destroy QP,
 * create_ep, destroy_id) or set its options (set_option), recorded as
 * RT_EV_CM_EVENT with the call codes of enum rt_cm_call.  IPv6 endpoints
 * get an RT_EV_CM_ADDR6 record right after.
 * librdmacm creates and modifies QPs through libibverbs, so those QPs are
 * tracked by the verbs wrappers and hooks like any other.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include <rdma/rdma_cma.h>

#include "probe.h"
#include "rdmatrace/cm_rules.h"

static struct rt_objmap rt_probe_cm_ids;

static uint32_t cm_id_of(struct rdma_cm_id *id)
{
	if (!id)
		return 0;
	uint32_t v = (uint32_t)(uintptr_t)rt_objmap_get(&rt_probe_cm_ids, id);
	if (v)
		return v;
	v = rt_probe_new_id();
	return rt_objmap_put(&rt_probe_cm_ids, id, (void *)(uintptr_t)v) == 0 ? v : 0;
}

static void sock_fill(const struct sockaddr *sa, uint32_t *ip4, uint16_t *port, uint8_t ip6[16],
		      uint8_t *family)
{
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;
		*ip4 = s4->sin_addr.s_addr;
		*port = ntohs(s4->sin_port);
		*family = AF_INET;
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;
		memcpy(ip6, &s6->sin6_addr, 16);
		*port = ntohs(s6->sin6_port);
		*family = AF_INET6;
	}
}

/* What a call record holds in place of private data: rdma_listen's backlog,
 * rdma_set_option's option. */
struct cm_call_extra {
	int backlog;
	int level, name;
	uint32_t value, optlen;
};

static void emit_cm(unsigned code, struct rdma_cm_id *id, int status, const void *pdata,
		    unsigned plen, const struct cm_call_extra *x)
{
	uint8_t l6[16] = {0}, p6[16] = {0}, fam = 0, fam2 = 0;
	uint32_t cm = cm_id_of(id);
	struct rt_event *ev = rt_event_begin(RT_EV_CM_EVENT, id && id->qp ? id->qp->qp_num : 0);
	if (!ev)
		return;
	if (status != 0 && (code >= 0x80 || code == RDMA_CM_EVENT_REJECTED ||
			    code == RDMA_CM_EVENT_ADDR_ERROR || code == RDMA_CM_EVENT_ROUTE_ERROR ||
			    code == RDMA_CM_EVENT_CONNECT_ERROR || code == RDMA_CM_EVENT_UNREACHABLE))
		ev->flags |= RT_EVF_ERROR;
	struct rt_ev_cm *c = &ev->u.cm;
	c->status = status;
	c->event = (uint8_t)code;
	c->cm_id = cm;
	if (id) {
		sock_fill(&id->route.addr.src_addr, &c->local_ip4, &c->local_port, l6, &fam);
		sock_fill(&id->route.addr.dst_addr, &c->peer_ip4, &c->peer_port, p6, &fam2);
		c->family = fam ? fam : fam2;
		if (code == RT_CM_CALL_CREATE_ID || code == RT_CM_CALL_LISTEN)
			c->peer_port = (uint16_t)id->ps; /* (they have no peer) */
	}
	if (code == RT_CM_CALL_LISTEN && x)
		c->listen_backlog = rt_cm_listen_backlog(x->backlog); /* (a listen has no private data) */
	if (code == RT_CM_CALL_SET_OPTION && x) { /* (nor has an option) */
		c->option.level = x->level;
		c->option.name = x->name;
		c->option.value = x->value;
		c->option.optlen = x->optlen;
	}
	if (pdata && plen) {
		c->private_len = (uint8_t)(plen > 255 ? 255 : plen);
		c->private_copied = (uint8_t)(plen < sizeof(c->private_data) ? plen : sizeof(c->private_data));
		memcpy(c->private_data, pdata, c->private_copied);
	}
	rt_event_commit(ev);
	if (fam == AF_INET6 || fam2 == AF_INET6) {
		ev = rt_event_begin(RT_EV_CM_ADDR6, id->qp ? id->qp->qp_num : 0);
		if (!ev)
			return;
		memcpy(ev->u.cm_addr6.local, l6, 16);
		memcpy(ev->u.cm_addr6.peer, p6, 16);
		ev->u.cm_addr6.cm_id = cm;
		rt_event_commit(ev);
	}
}

/* Records a call: status is the result (0 or -1 with errno, as librdmacm returns);
 * x: what a listen or set_option record holds (NULL: nothing). */
static int call_done_extra(unsigned code, struct rdma_cm_id *id, int rc, const void *pdata, unsigned plen,
			   const struct cm_call_extra *x)
{
	if (rt_probe_enter()) {
		int err = errno;
		emit_cm(code, id, rc == 0 ? 0 : -err, pdata, plen, x);
		rt_probe_leave();
		errno = err;
	}
	return rc;
}

static int call_done(unsigned code, struct rdma_cm_id *id, int rc, const void *pdata, unsigned plen)
{
	return call_done_extra(code, id, rc, pdata, plen, NULL);
}

typedef int get_cm_event_fn(struct rdma_event_channel *, struct rdma_cm_event **);
typedef int create_id_fn(struct rdma_event_channel *, struct rdma_cm_id **, void *, enum rdma_port_space);
typedef int destroy_id_fn(struct rdma_cm_id *);
typedef int bind_addr_fn(struct rdma_cm_id *, struct sockaddr *);
typedef int resolve_addr_fn(struct rdma_cm_id *, struct sockaddr *, struct sockaddr *, int);
typedef int resolve_route_fn(struct rdma_cm_id *, int);
typedef int listen_fn(struct rdma_cm_id *, int);
typedef int conn_fn(struct rdma_cm_id *, struct rdma_conn_param *);
typedef int reject_fn(struct rdma_cm_id *, const void *, uint8_t);
typedef int disconnect_fn(struct rdma_cm_id *);
typedef int create_qp_fn(struct rdma_cm_id *, struct ibv_pd *, struct ibv_qp_init_attr *);
typedef int create_qp_ex_fn(struct rdma_cm_id *, struct ibv_qp_init_attr_ex *);
typedef void destroy_qp_fn(struct rdma_cm_id *);
typedef int create_ep_fn(struct rdma_cm_id **, struct rdma_addrinfo *, struct ibv_pd *,
			 struct ibv_qp_init_attr *);
typedef void destroy_ep_fn(struct rdma_cm_id *);
typedef int set_option_fn(struct rdma_cm_id *, int, int, void *, size_t);

RT_PROBE_REAL(get_cm_event_fn, rdma_get_cm_event)
RT_PROBE_REAL(create_id_fn, rdma_create_id)
RT_PROBE_REAL(destroy_id_fn, rdma_destroy_id)
RT_PROBE_REAL(bind_addr_fn, rdma_bind_addr)
RT_PROBE_REAL(resolve_addr_fn, rdma_resolve_addr)
RT_PROBE_REAL(resolve_route_fn, rdma_resolve_route)
RT_PROBE_REAL(listen_fn, rdma_listen)
RT_PROBE_REAL(conn_fn, rdma_connect)
RT_PROBE_REAL(conn_fn, rdma_accept)
RT_PROBE_REAL(reject_fn, rdma_reject)
RT_PROBE_REAL(disconnect_fn, rdma_disconnect)
RT_PROBE_REAL(create_qp_fn, rdma_create_qp)
RT_PROBE_REAL(create_qp_ex_fn, rdma_create_qp_ex)
RT_PROBE_REAL(destroy_qp_fn, rdma_destroy_qp)
RT_PROBE_REAL(create_ep_fn, rdma_create_ep)
RT_PROBE_REAL(destroy_ep_fn, rdma_destroy_ep)
RT_PROBE_REAL(set_option_fn, rdma_set_option)

#define REAL_OR_FAIL(fn)                  \
	do {                              \
		if (!real_##fn()) {       \
			errno = ENOSYS;   \
			return -1;        \
		}                         \
	} while (0)

int rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event)
{
	REAL_OR_FAIL(rdma_get_cm_event);
	rt_probe_ensure_started();
	int rc = real_rdma_get_cm_event()(channel, event);
	if (rc != 0 || !rt_probe_enter())
		return rc;
	int err = errno;
	struct rdma_cm_event *e = *event;
	/*
	 * No context is adopted from here: librdmacm opened its contexts through
	 * ibv_open_device (wrapped), and an event that races with the program's
	 * teardown may name a context that is already closed.
	 */
	const void *pdata = NULL;
	unsigned plen = 0;
	bool ud = e->id && (e->id->ps == RDMA_PS_UDP || e->id->ps == RDMA_PS_IPOIB);
	if (ud) {
		pdata = e->param.ud.private_data;
		plen = e->param.ud.private_data_len;
	} else {
		pdata = e->param.conn.private_data;
		plen = e->param.conn.private_data_len;
	}
	emit_cm((unsigned)e->event, e->id, e->status, pdata, plen, NULL);
	rt_probe_leave();
	errno = err;
	return rc;
}

int rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id, void *context,
		   enum rdma_port_space ps)
{
	REAL_OR_FAIL(rdma_create_id);
	rt_probe_ensure_started();
	int rc = real_rdma_create_id()(channel, id, context, ps);
	return call_done(RT_CM_CALL_CREATE_ID, rc == 0 ? *id : NULL, rc, NULL, 0);
}

int rdma_destroy_id(struct rdma_cm_id *id)
{
	REAL_OR_FAIL(rdma_destroy_id);
	if (rt_probe_enter()) {
		emit_cm(RT_CM_CALL_DESTROY_ID, id, 0, NULL, 0, NULL);
		rt_objmap_del(&rt_probe_cm_ids, id);
		rt_probe_leave();
	}
	return real_rdma_destroy_id()(id);
}

int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	REAL_OR_FAIL(rdma_bind_addr);
	return call_done(RT_CM_CALL_BIND_ADDR, id, real_rdma_bind_addr()(id, addr), NULL, 0);
}

int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src, struct sockaddr *dst, int ms)
{
	REAL_OR_FAIL(rdma_resolve_addr);
	return call_done(RT_CM_CALL_RESOLVE_ADDR, id, real_rdma_resolve_addr()(id, src, dst, ms),
			 NULL, 0);
}

int rdma_resolve_route(struct rdma_cm_id *id, int ms)
{
	REAL_OR_FAIL(rdma_resolve_route);
	return call_done(RT_CM_CALL_RESOLVE_ROUTE, id, real_rdma_resolve_route()(id, ms), NULL, 0);
}

int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	REAL_OR_FAIL(rdma_listen);
	struct cm_call_extra x = {.backlog = backlog};
	return call_done_extra(RT_CM_CALL_LISTEN, id, real_rdma_listen()(id, backlog), NULL, 0, &x);
}

int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *p)
{
	REAL_OR_FAIL(rdma_connect);
	int rc = real_rdma_connect()(id, p);
	return call_done(RT_CM_CALL_CONNECT, id, rc, p ? p->private_data : NULL,
			 p ? p->private_data_len : 0);
}

int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *p)
{
	REAL_OR_FAIL(rdma_accept);
	int rc = real_rdma_accept()(id, p);
	return call_done(RT_CM_CALL_ACCEPT, id, rc, p ? p->private_data : NULL,
			 p ? p->private_data_len : 0);
}

int rdma_reject(struct rdma_cm_id *id, const void *pdata, uint8_t len)
{
	REAL_OR_FAIL(rdma_reject);
	return call_done(RT_CM_CALL_REJECT, id, real_rdma_reject()(id, pdata, len), pdata, len);
}

int rdma_disconnect(struct rdma_cm_id *id)
{
	REAL_OR_FAIL(rdma_disconnect);
	return call_done(RT_CM_CALL_DISCONNECT, id, real_rdma_disconnect()(id), NULL, 0);
}

/* librdmacm's rdma_create_qp calls rdma_create_qp_ex through its exported
 * name: the one call is recorded once, by the outer wrapper. */
static __thread int creating_qp;

int rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	REAL_OR_FAIL(rdma_create_qp);
	creating_qp++;
	int rc = real_rdma_create_qp()(id, pd, attr);
	creating_qp--;
	return call_done(RT_CM_CALL_CREATE_QP, id, rc, NULL, 0);
}

int rdma_create_qp_ex(struct rdma_cm_id *id, struct ibv_qp_init_attr_ex *attr)
{
	REAL_OR_FAIL(rdma_create_qp_ex);
	int rc = real_rdma_create_qp_ex()(id, attr);
	return creating_qp ? rc : call_done(RT_CM_CALL_CREATE_QP, id, rc, NULL, 0);
}

/* The option's value as the program gave it: one byte for TOS and
 * ACK_TIMEOUT, an int for REUSEADDR and AFONLY (others: 0). */
static uint32_t option_value(int level, int name, const void *val, size_t len)
{
	if (!val || level != RDMA_OPTION_ID)
		return 0;
	if ((name == RDMA_OPTION_ID_TOS || name == RDMA_OPTION_ID_ACK_TIMEOUT) && len >= 1)
		return *(const uint8_t *)val;
	if ((name == RDMA_OPTION_ID_REUSEADDR || name == RDMA_OPTION_ID_AFONLY) && len >= sizeof(int)) {
		int v;
		memcpy(&v, val, sizeof(v));
		return (uint32_t)v;
	}
	return 0;
}

int rdma_set_option(struct rdma_cm_id *id, int level, int optname, void *optval, size_t optlen)
{
	REAL_OR_FAIL(rdma_set_option);
	int rc = real_rdma_set_option()(id, level, optname, optval, optlen);
	struct cm_call_extra x = {.level = level, .name = optname,
				  .value = option_value(level, optname, optval, optlen),
				  .optlen = (uint32_t)optlen};
	return call_done_extra(RT_CM_CALL_SET_OPTION, id, rc, NULL, 0, &x);
}

void rdma_destroy_qp(struct rdma_cm_id *id)
{
	if (!real_rdma_destroy_qp())
		return;
	if (rt_probe_enter()) {
		emit_cm(RT_CM_CALL_DESTROY_QP, id, 0, NULL, 0, 0);
		rt_probe_leave();
	}
	real_rdma_destroy_qp()(id);
}

int rdma_create_ep(struct rdma_cm_id **id, struct rdma_addrinfo *res, struct ibv_pd *pd,
		   struct ibv_qp_init_attr *attr)
{
	REAL_OR_FAIL(rdma_create_ep);
	rt_probe_ensure_started();
	int rc = real_rdma_create_ep()(id, res, pd, attr);
	return call_done(RT_CM_CALL_CREATE_EP, rc == 0 ? *id : NULL, rc, NULL, 0);
}

void rdma_destroy_ep(struct rdma_cm_id *id)
{
	if (!real_rdma_destroy_ep())
		return;
	if (rt_probe_enter()) {
		emit_cm(RT_CM_CALL_DESTROY_ID, id, 0, NULL, 0, NULL);
		rt_objmap_del(&rt_probe_cm_ids, id);
		rt_probe_leave();
	}
	real_rdma_destroy_ep()(id);
}

/*
 * RT_EV_CM_EVENT (and RT_EV_CM_ADDR6 for IPv6) for every CM event handed to
 * the application.  The tracer lives in the engine's libibverbs.so.1 (one
 * tracer per process); this library binds to it at run time, so librdmacm
 * keeps working, untraced, with a libibverbs that carries no tracer.
 */
#include "cma_priv.h"

#include <netinet/in.h>
#include <string.h>

#include "rdmatrace/tracer.h"

#pragma weak rt_tracer_enabled
#pragma weak rt_event_begin_fast
#pragma weak rt_event_commit_slot

static struct rt_event *trace_begin(uint16_t kind, uint32_t qpn)
{
	if (!&rt_tracer_enabled || !rt_event_begin_fast || !rt_event_commit_slot)
		return NULL;
	if (__builtin_expect(!rt_tracer_enabled, 1))
		return NULL;
	return rt_event_begin_fast(kind, qpn);
}

static void put_addr(const struct sockaddr *sa, uint32_t *ip4, uint16_t *port, uint8_t *ip6)
{
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s = (const struct sockaddr_in *)sa;
		memcpy(ip4, &s->sin_addr, 4);
		*port = ntohs(s->sin_port);
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)sa;
		memcpy(ip6, &s->sin6_addr, 16);
		*port = ntohs(s->sin6_port);
	}
}

void cma_trace_event(const struct cma_event *e)
{
	const struct cma_id *id = e->owner;
	const struct sockaddr *src = &id->id.route.addr.src_addr;
	const struct sockaddr *dst = &id->id.route.addr.dst_addr;
	uint32_t qpn = id->id.qp ? id->id.qp->qp_num : id->local_qpn;
	const void *pd;
	uint8_t pdlen;
	uint8_t l6[16] = { 0 }, p6[16] = { 0 };
	struct rt_event *ev;

	if (id->id.qp_type == IBV_QPT_UD) {
		pd = e->ev.param.ud.private_data;
		pdlen = e->ev.param.ud.private_data_len;
	} else {
		pd = e->ev.param.conn.private_data;
		pdlen = e->ev.param.conn.private_data_len;
	}
	ev = trace_begin(RT_EV_CM_EVENT, qpn);
	if (!ev)
		return;
	ev->flags |= RT_EVF_ENGINE | (e->ev.status ? RT_EVF_ERROR : 0);
	ev->u.cm.status = e->ev.status;
	ev->u.cm.event = (uint8_t)e->ev.event;
	ev->u.cm.family = (uint8_t)src->sa_family;
	put_addr(src, &ev->u.cm.local_ip4, &ev->u.cm.local_port, l6);
	put_addr(dst, &ev->u.cm.peer_ip4, &ev->u.cm.peer_port, p6);
	ev->u.cm.private_len = pdlen;
	ev->u.cm.private_copied = pdlen < sizeof(ev->u.cm.private_data) ? pdlen : sizeof(ev->u.cm.private_data);
	if (pd && ev->u.cm.private_copied)
		memcpy(ev->u.cm.private_data, pd, ev->u.cm.private_copied);
	ev->u.cm.cm_id = id->trace_id;
	rt_event_commit_slot(ev);
	if (src->sa_family != AF_INET6)
		return;
	ev = trace_begin(RT_EV_CM_ADDR6, qpn);
	if (!ev)
		return;
	ev->flags |= RT_EVF_ENGINE;
	memcpy(ev->u.cm_addr6.local, l6, 16);
	memcpy(ev->u.cm_addr6.peer, p6, 16);
	ev->u.cm_addr6.cm_id = id->trace_id;
	rt_event_commit_slot(ev);
}

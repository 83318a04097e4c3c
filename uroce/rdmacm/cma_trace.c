/*
 * RT_EV_CM_EVENT (and RT_EV_CM_ADDR6 for IPv6) for every CM event handed to
 * the application.  librdmacm.so.1 carries its own hidden copy of the tracer
 * (librdmatrace.a), which meets the engine's copy in the per-process trace
 * segment (docs/tracer.md, "Several copies in one process"), so CM events
 * land in the same trace as the engine's packets.
 */
#include "cma_priv.h"

#include <netinet/in.h>
#include <string.h>

#include "rdmatrace/tracer.h"

void cma_trace_start(void)
{
	rt_tracer_start_from_env();
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
	ev = rt_event_begin(RT_EV_CM_EVENT, qpn);
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
	rt_event_commit(ev);
	if (src->sa_family != AF_INET6)
		return;
	ev = rt_event_begin(RT_EV_CM_ADDR6, qpn);
	if (!ev)
		return;
	ev->flags |= RT_EVF_ENGINE;
	memcpy(ev->u.cm_addr6.local, l6, 16);
	memcpy(ev->u.cm_addr6.peer, p6, 16);
	ev->u.cm_addr6.cm_id = id->trace_id;
	rt_event_commit(ev);
}

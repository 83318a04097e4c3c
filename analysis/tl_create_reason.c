/*
 * Why the provider refused a create (ibv_alloc_pd, ibv_create_cq,
 * ibv_create_qp, ibv_create_srq) or another verbs call (ibv_create_ah,
 * ibv_attach_mcast, ibv_open_xrcd: RT_EV_VERBS_CALL), in words, for the
 * diagnosis's call_failed finding: each request beyond the device's limits
 * as the probe recorded them just before (RT_EV_DEVICE_CAPS), else what the
 * errno means for that call.  Pure: the event and the limits in, a
 * sentence out.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "rdmatrace/trace_print.h"
#include "tl_internal.h"

struct out {
	struct tl_textbuf t;
	unsigned clauses;         /* limits named so far */
};

/* "ask is more than the device's limit": one clause per request beyond a
 * limit (a limit of 0 is one the device did not give). */
static void over(struct out *o, const char *what, uint64_t ask, const char *limit, uint64_t max)
{
	if (!max || ask <= max)
		return;
	tl_textf(&o->t, "%s%s %llu is more than the device's %s (%llu)", o->clauses ? "; " : ": ", what,
	    (unsigned long long)ask, limit, (unsigned long long)max);
	o->clauses++;
}

/* A QP type in words: "an RC QP" (one) or "RC QPs" (plural). */
static const char *qp_type_words(unsigned t, bool plural)
{
	static const struct {
		unsigned type;
		const char *one, *many;
	} names[] = {
		{2, "an RC QP", "RC QPs"}, {3, "a UC QP", "UC QPs"}, {4, "a UD QP", "UD QPs"},
		{8, "a raw packet QP", "raw packet QPs"}, {9, "an XRC send QP", "XRC send QPs"},
		{10, "an XRC receive QP", "XRC receive QPs"}, {255, "a driver-specific QP", "driver-specific QPs"},
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].type == t)
			return plural ? names[i].many : names[i].one;
	return plural ? "QPs of that type" : "a QP";
}

const char *tl_create_call_name(const struct rt_event *ev)
{
	switch (ev->kind) {
	case RT_EV_QP_CREATE: return ev->u.qp_create.extended ? "ibv_create_qp_ex" : "ibv_create_qp";
	case RT_EV_CQ_CREATE: return ev->u.cq_create.extended ? "ibv_create_cq_ex" : "ibv_create_cq";
	case RT_EV_SRQ_CREATE: return "ibv_create_srq";
	case RT_EV_PD: return "ibv_alloc_pd";
	default: return "a create call";
	}
}

static void qp_reason(struct out *o, const struct rt_ev_qp_create *q, const struct rt_ev_device_caps *d, int err)
{
	if (d) {
		over(o, "max_send_wr", q->max_send_wr, "max_qp_wr", d->max_qp_wr);
		if (!q->srq_num)
			over(o, "max_recv_wr", q->max_recv_wr, "max_qp_wr", d->max_qp_wr);
		over(o, "max_send_sge", q->max_send_sge, "max_sge", d->max_sge);
		if (!q->srq_num)
			over(o, "max_recv_sge", q->max_recv_sge, "max_sge", d->max_sge);
		if (o->clauses)
			return;
	}
	if (err == EOPNOTSUPP || err == ENOSYS || err == EPROTONOSUPPORT)
		tl_textf(&o->t, ": the device does not implement %s", qp_type_words(q->qp_type, true));
	else if ((err == ENOMEM || err == ENOSPC) && d && d->max_qp)
		tl_textf(&o->t, ": the device's or the kernel's resources ran out (the device holds %u QPs at most, max_qp, "
		       "and the locked-memory limit, ulimit -l, bounds the queues' memory)", d->max_qp);
	else if (err == ENOMEM || err == ENOSPC)
		tl_textf(&o->t, ": the device's or the kernel's resources ran out (QPs not destroyed keep theirs, and the "
		       "locked-memory limit, ulimit -l, bounds the queues' memory)");
	else if (err == EPERM || err == EACCES)
		tl_textf(&o->t, ": %s need privileges the program lacks (CAP_NET_RAW for raw packet QPs)",
		    qp_type_words(q->qp_type, true));
	else if (q->qp_type != 4 && q->qp_type != 8 && !q->send_cq_id)
		tl_textf(&o->t, ": it was given no send CQ the probe knows of");
	else if (!q->srq_num && !q->recv_cq_id && q->qp_type != 9)
		tl_textf(&o->t, ": it was given no receive CQ (nor an SRQ) the probe knows of");
	else if (d && q->max_inline)
		tl_textf(&o->t, ": %s's depths and SGE counts are within the device's limits, which leaves max_inline_data (%u): "
		       "how much a device takes inline is not among the limits ibv_query_device gives",
		    qp_type_words(q->qp_type, false), q->max_inline);
	else if (d)
		tl_textf(&o->t, ": %s's depths and SGE counts are within the device's limits", qp_type_words(q->qp_type, false));
	else
		tl_textf(&o->t, " (queue depths, SGE counts or inline sizes beyond the device's limits are the usual cause: "
		       "ibv_devinfo -v lists them)");
}

static void cq_reason(struct out *o, const struct rt_ev_cq_create *c, const struct rt_ev_device_caps *d, int err)
{
	int32_t cqe = (int32_t)c->cqe;
	if (cqe < 1) {
		tl_textf(&o->t, ": cqe %d asks for no entries (at least 1)", cqe);
		return;
	}
	if (c->comp_vector < 0) {
		tl_textf(&o->t, ": comp_vector %d is negative", c->comp_vector);
		return;
	}
	if (d) {
		over(o, "cqe", c->cqe, "max_cqe", d->max_cqe);
		if (d->num_comp_vectors && (uint32_t)c->comp_vector >= d->num_comp_vectors) {
			tl_textf(&o->t, "%scomp_vector %d is not one of the context's %u completion vectors (0 to %u)",
			    o->clauses ? "; " : ": ", c->comp_vector, d->num_comp_vectors, d->num_comp_vectors - 1u);
			o->clauses++;
		}
		if (o->clauses)
			return;
	}
	if (err == ENOMEM || err == ENOSPC)
		tl_textf(&o->t, ": the device's or the kernel's resources ran out (the locked-memory limit, ulimit -l, also "
		       "bounds a CQ's memory)");
	else if (d)
		tl_textf(&o->t, ": cqe %d and comp_vector %d are within the device's limits", cqe, c->comp_vector);
	else
		tl_textf(&o->t, " (more entries than the device's max_cqe, or a comp_vector beyond the context's "
		       "num_comp_vectors, are the usual cause)");
}

static void srq_reason(struct out *o, const struct rt_ev_object *s, const struct rt_ev_device_caps *d, int err)
{
	if (!s->max_wr && d) {
		tl_textf(&o->t, ": max_wr 0 asks for no entries");
		return;
	}
	if (d) {
		over(o, "max_wr", s->max_wr, "max_srq_wr", d->max_srq_wr);
		over(o, "max_sge", s->max_sge, "max_srq_sge", d->max_srq_sge);
		if (o->clauses)
			return;
	}
	if (err == EOPNOTSUPP || err == ENOSYS)
		tl_textf(&o->t, ": the device does not implement SRQs");
	else if (err == ENOMEM || err == ENOSPC)
		tl_textf(&o->t, ": the device's or the kernel's resources ran out");
	else if (d)
		tl_textf(&o->t, ": max_wr %u and max_sge %u are within the device's limits", s->max_wr, s->max_sge);
	else
		tl_textf(&o->t, " (more WRs or SGEs than the device's max_srq_wr / max_srq_sge are the usual cause)");
}

/* The errno a refused create recorded, 0 unknown. */
static int create_errno(const struct rt_event *ev)
{
	switch (ev->kind) {
	case RT_EV_QP_CREATE: return ev->u.qp_create.error;
	case RT_EV_CQ_CREATE: return ev->u.cq_create.error;
	case RT_EV_SRQ_CREATE: case RT_EV_PD: return ev->u.object.error;
	default: return 0;
	}
}

size_t tl_create_reason(const struct rt_event *ev, const struct rt_ev_device_caps *caps, const char *host, char *buf,
			size_t len)
{
	struct out o = {.t = {.p = buf, .cap = len}};
	if (!len)
		return 0;
	buf[0] = 0;
	int err = create_errno(ev);
	tl_textf(&o.t, "%s", tl_create_call_name(ev));
	if (ev->kind == RT_EV_QP_CREATE)
		tl_textf(&o.t, " of %s", qp_type_words(ev->u.qp_create.qp_type, false));
	tl_textf(&o.t, " on %s failed", host);
	if (err)
		tl_textf(&o.t, " with %s", rt_errno_name(err));
	switch (ev->kind) {
	case RT_EV_QP_CREATE:
		qp_reason(&o, &ev->u.qp_create, caps, err);
		break;
	case RT_EV_CQ_CREATE:
		cq_reason(&o, &ev->u.cq_create, caps, err);
		break;
	case RT_EV_SRQ_CREATE:
		srq_reason(&o, &ev->u.object, caps, err);
		break;
	default:
		if (err == ENOMEM)
			tl_textf(&o.t, ": the device's or the kernel's resources ran out");
		break;
	}
	return o.t.n;
}

size_t tl_gid_text(const uint8_t gid[16], char *buf, size_t len)
{
	if (!len)
		return 0;
	if (!inet_ntop(AF_INET6, gid, buf, (socklen_t)len))
		buf[0] = 0;
	return strlen(buf);
}

static void ah_reason(struct out *o, const struct rt_ev_verbs_call *v, const struct rt_ev_qp_av *av, int err)
{
	char gid[INET6_ADDRSTRLEN], why[600];
	tl_gid_text(v->gid, gid, sizeof(gid));
	if (v->is_global && av && tl_qp_av_problem(av, 0, true, why, sizeof(why)))
		tl_textf(&o->t, ": %s", why); /* what the port has at sgid_index, as the probe asked it */
	else if (!v->is_global)
		tl_textf(&o->t, ": its ah_attr has is_global 0, and RoCE addresses are GIDs: an address handle "
				"needs is_global = 1 with grh.dgid (the peer's GID), grh.sgid_index and grh.hop_limit "
				"(ibv_init_ah_from_wc, or the ah_attr RDMA CM gives, fill them in)");
	else if (err == EINVAL)
		tl_textf(&o->t, ": sgid_index %u is not a GID of port %u that can reach %s, or the port is not one "
				"of the device's (the port's GIDs: ibv_devinfo -v, or "
				"/sys/class/infiniband/DEVICE/ports/PORT/gids)", v->sgid_index, v->port_num, gid);
	else if (err == ENETUNREACH || err == EHOSTUNREACH || err == ETIMEDOUT || err == ENODATA ||
		 err == EADDRNOTAVAIL)
		tl_textf(&o->t, ": the kernel could not resolve %s to an Ethernet address from the interface of "
				"sgid_index %u (no route to it, or no answer to ARP / neighbour discovery: ping it)",
			 gid, v->sgid_index);
	else if (err == ENOMEM || err == ENOSPC)
		tl_textf(&o->t, ": the device's address handles (max_ah) or the kernel's memory ran out");
}

static void mcast_reason(struct out *o, const struct rt_ev_verbs_call *v, int err, unsigned qp_type)
{
	char gid[INET6_ADDRSTRLEN];
	tl_gid_text(v->gid, gid, sizeof(gid));
	if (err == EOPNOTSUPP || err == ENOSYS)
		tl_textf(&o->t, ": the device does not implement multicast");
	else if (err == EINVAL && v->gid[0] != 0xff)
		tl_textf(&o->t, ": %s is not a multicast GID (those start with ff)", gid);
	else if (err == EINVAL && qp_type && qp_type != 4)
		tl_textf(&o->t, ": only UD QPs join multicast groups, and this one is %s (rdma_join_multicast "
				"on a UD id attaches its QP and joins the group)", qp_type_words(qp_type, false));
	else if (err == EINVAL)
		tl_textf(&o->t, ": only UD QPs join multicast groups, with a multicast GID");
}

size_t tl_verbs_call_reason(const struct rt_event *ev, const struct rt_ev_qp_av *av, unsigned qp_type, const char *host,
			    char *buf, size_t len)
{
	struct out o = {.t = {.p = buf, .cap = len}};
	if (!len)
		return 0;
	buf[0] = 0;
	const struct rt_ev_verbs_call *v = &ev->u.verbs_call;
	int err = v->error;
	tl_textf(&o.t, "%s", rt_verbs_call_name(v->call));
	if (ev->qpn)
		tl_textf(&o.t, " of QP 0x%06x", ev->qpn);
	tl_textf(&o.t, " on %s failed", host);
	if (err)
		tl_textf(&o.t, " with %s", rt_errno_name(err));
	switch (v->call) {
	case RT_VC_CREATE_AH:
		ah_reason(&o, v, av, err);
		break;
	case RT_VC_ATTACH_MCAST: case RT_VC_DETACH_MCAST:
		mcast_reason(&o, v, err, qp_type);
		break;
	case RT_VC_OPEN_XRCD:
		if (err == EOPNOTSUPP || err == ENOSYS)
			tl_textf(&o.t, ": the device does not implement XRC (XRC domains, SRQs and QPs; rxe, the "
				       "kernel's SoftRoCE, and uroce do not)");
		else if (err == EBADF || err == EINVAL)
			tl_textf(&o.t, ": the file descriptor or oflags in its ibv_xrcd_init_attr are not usable "
				       "(fd -1 with O_CREAT for a domain of this process only)");
		break;
	default:
		break;
	}
	return o.t.n;
}

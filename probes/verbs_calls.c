/*
 * Verbs calls that make no object the other records describe, recorded
 * with their arguments and result (RT_EV_VERBS_CALL): ibv_create_ah,
 * ibv_attach_mcast / ibv_detach_mcast, ibv_open_xrcd.  A program's set-up
 * often stops at one of them (an address handle without the GRH RoCE
 * needs, multicast on an RC QP, XRC on a device without it), and without
 * the record its trace just stops where the program gave up.
 *
 * ibv_create_ah and the multicast calls are libibverbs symbols, wrapped
 * here; ibv_open_xrcd is a static inline in verbs.h that jumps through the
 * context's struct verbs_context, so hooks.c puts rt_probe_hook_open_xrcd
 * there (also where the provider left it empty: the hook then refuses it
 * as verbs.h would, with EOPNOTSUPP, and records that).
 */
#include <errno.h>
#include <string.h>

#include "probe.h"

typedef struct ibv_ah *create_ah_fn(struct ibv_pd *, struct ibv_ah_attr *);
typedef int mcast_fn(struct ibv_qp *, const union ibv_gid *, uint16_t);

RT_PROBE_REAL(create_ah_fn, ibv_create_ah)
RT_PROBE_REAL(mcast_fn, ibv_attach_mcast)
RT_PROBE_REAL(mcast_fn, ibv_detach_mcast)

/* The record of one call on ctx's device (err: 0, or the errno of a refusal). */
static struct rt_event *call_begin(unsigned call, struct ibv_context *ctx, uint32_t qpn, int err)
{
	struct rt_event *ev = rt_event_begin(RT_EV_VERBS_CALL, qpn);
	if (!ev)
		return NULL;
	const struct rt_probe_ctx *c = ctx ? rt_probe_ctx_find(ctx) : NULL;
	ev->u.verbs_call.call = (uint8_t)call;
	ev->u.verbs_call.device_id = c ? c->id : 0;
	if (err) {
		ev->flags |= RT_EVF_ERROR;
		/* a refusal whose errno was lost still says it failed (EIO: unknown) */
		ev->u.verbs_call.error = rt_probe_errno_byte(err) ? rt_probe_errno_byte(err) : EIO;
	}
	return ev;
}

struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	create_ah_fn *real = real_ibv_create_ah();
	if (!real) {
		errno = ENOSYS;
		return NULL;
	}
	struct ibv_ah *ah = real(pd, attr);
	if (rt_probe_enter()) {
		int err = errno;
		rt_probe_ah_av(pd, attr); /* the address vector and its port, first */
		struct rt_event *ev = call_begin(RT_VC_CREATE_AH, pd ? pd->context : NULL, 0, ah ? 0 : err);
		if (ev) {
			struct rt_ev_verbs_call *v = &ev->u.verbs_call;
			v->pd_id = rt_probe_pd_id(pd);
			if (attr) {
				v->port_num = attr->port_num;
				v->is_global = attr->is_global;
				v->sl = attr->sl;
				v->lid = attr->dlid;
				if (attr->is_global) {
					memcpy(v->gid, attr->grh.dgid.raw, sizeof(v->gid));
					v->sgid_index = attr->grh.sgid_index;
					v->hop_limit = attr->grh.hop_limit;
				}
			}
			rt_event_commit(ev);
		}
		rt_probe_leave();
		errno = err;
	}
	return ah;
}

/* A multicast call's record: the provider returns 0 or an errno (some
 * return -1 with errno set). */
static int mcast_done(unsigned call, struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid, int rc)
{
	if (rt_probe_enter()) {
		int err = errno;
		struct rt_event *ev = call_begin(call, qp ? qp->context : NULL, qp ? qp->qp_num : 0,
						 rc > 0 ? rc : rc < 0 ? (err ? err : -rc) : 0);
		if (ev) {
			if (gid)
				memcpy(ev->u.verbs_call.gid, gid->raw, sizeof(ev->u.verbs_call.gid));
			ev->u.verbs_call.lid = lid;
			rt_event_commit(ev);
		}
		rt_probe_leave();
		errno = err;
	}
	return rc;
}

int ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	mcast_fn *real = real_ibv_attach_mcast();
	if (!real)
		return ENOSYS;
	return mcast_done(RT_VC_ATTACH_MCAST, qp, gid, lid, real(qp, gid, lid));
}

int ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	mcast_fn *real = real_ibv_detach_mcast();
	if (!real)
		return ENOSYS;
	return mcast_done(RT_VC_DETACH_MCAST, qp, gid, lid, real(qp, gid, lid));
}

struct ibv_xrcd *rt_probe_hook_open_xrcd(struct ibv_context *ctx, struct ibv_xrcd_init_attr *attr)
{
	struct rt_probe_ctx *c = rt_probe_ctx_find(ctx);
	struct ibv_xrcd *xrcd = NULL;
	if (c && c->orig_open_xrcd)
		xrcd = c->orig_open_xrcd(ctx, attr);
	else
		errno = EOPNOTSUPP; /* what verbs.h says when the provider has no open_xrcd */
	if (rt_probe_enter()) {
		int err = errno;
		struct rt_event *ev = call_begin(RT_VC_OPEN_XRCD, ctx, 0, xrcd ? 0 : err);
		if (ev)
			rt_event_commit(ev);
		rt_probe_leave();
		errno = err;
	}
	return xrcd;
}

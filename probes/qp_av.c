/*
 * The address vector of an ibv_modify_qp that carries one (IBV_QP_AV), and
 * what the port it names has (RT_EV_QP_AV, written just before the modify's
 * RT_EV_QP_STATE record); the same for the ah_attr of an ibv_create_ah (header
 * qpn 0, just before its RT_EV_VERBS_CALL record).  A connection set up by hand (ibv_rc_pingpong,
 * perftest) fails or stalls on a GID index with no address behind it, a
 * source GID of the other IP version than the destination's, or a path MTU
 * above what the link carries; the QP_STATE record has only the index and
 * the MTU asked for, so the probe asks the device for the rest: the GID at
 * that index and its type (_ibv_query_gid_ex, else ibv_query_gid), and the
 * port's state and active MTU (ibv_query_port).  These are the real
 * libibverbs symbols, which the probe does not wrap; a library without them
 * (a stand-in provider) leaves the fields unknown.
 */
#include <string.h>

#include "probe.h"

typedef int query_port_fn(struct ibv_context *, uint8_t, struct ibv_port_attr *);
typedef int query_gid_fn(struct ibv_context *, uint8_t, int, union ibv_gid *);
typedef int query_gid_ex_fn(struct ibv_context *, uint32_t, uint32_t, struct ibv_gid_entry *, uint32_t, size_t);

/* The libibverbs functions (rt_probe_real_any: also a program's own
 * definitions, as the probe's unit test gives). */
RT_PROBE_RESOLVED(query_port_fn, ibv_query_port, rt_probe_real_any)
RT_PROBE_RESOLVED(query_gid_fn, ibv_query_gid, rt_probe_real_any)
RT_PROBE_RESOLVED(query_gid_ex_fn, _ibv_query_gid_ex, rt_probe_real_any)

/* The port's GID at index into a (sgid, sgid_type, sgid_known). */
static void port_gid(struct ibv_context *ctx, unsigned port, unsigned index, struct rt_ev_qp_av *a)
{
	a->sgid_type = 0xFF;
	query_gid_ex_fn *ex = real__ibv_query_gid_ex();
	struct ibv_gid_entry entry;
	memset(&entry, 0, sizeof(entry));
	if (ex && ex(ctx, port, index, &entry, 0, sizeof(entry)) == 0) {
		memcpy(a->sgid, entry.gid.raw, sizeof(a->sgid));
		a->sgid_type = (uint8_t)entry.gid_type;
		a->sgid_known = 1;
		return;
	}
	/* an empty entry: the _ex query fails with ENODATA where the old one gives zeros */
	query_gid_fn *q = real_ibv_query_gid();
	union ibv_gid gid;
	if (q && q(ctx, (uint8_t)port, (int)index, &gid) == 0) {
		memcpy(a->sgid, gid.raw, sizeof(a->sgid));
		a->sgid_known = 1;
	}
}

/* The record of address vector ah on port (qpn: the QP a modify moves, 0
 * for an address handle). */
static void av_record(struct ibv_context *ctx, uint32_t qpn, const struct ibv_ah_attr *ah, unsigned port)
{
	struct rt_event *ev = rt_event_begin(RT_EV_QP_AV, qpn);
	if (!ev)
		return;
	struct rt_ev_qp_av *a = &ev->u.qp_av;
	a->port_num = (uint8_t)port;
	a->sgid_index = ah->grh.sgid_index;
	a->is_global = ah->is_global;
	a->hop_limit = ah->grh.hop_limit;
	memcpy(a->dgid, ah->grh.dgid.raw, sizeof(a->dgid));
	query_port_fn *qp_fn = real_ibv_query_port();
	struct ibv_port_attr pa;
	memset(&pa, 0, sizeof(pa));
	if (port && ctx && qp_fn && qp_fn(ctx, (uint8_t)port, &pa) == 0) {
		a->port_state = (uint8_t)pa.state;
		a->active_mtu = (uint8_t)pa.active_mtu;
	}
	if (port && ctx && a->is_global)
		port_gid(ctx, port, a->sgid_index, a);
	rt_event_commit(ev);
}

void rt_probe_qp_av(struct ibv_qp *qp, const struct ibv_qp_attr *attr, int mask)
{
	if (mask & IBV_QP_AV)
		av_record(qp->context, qp->qp_num, &attr->ah_attr,
			  (mask & IBV_QP_PORT) ? attr->port_num : attr->ah_attr.port_num);
}

void rt_probe_ah_av(struct ibv_pd *pd, const struct ibv_ah_attr *attr)
{
	if (pd && attr)
		av_record(pd->context, 0, attr, attr->port_num);
}

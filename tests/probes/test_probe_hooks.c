/*
 * Unit tests of the probe's hook layer and PSN prediction, over the null
 * provider of fake_provider.h and the in-memory tracer of fake_tracer.c:
 * ops-table hooking, WR and completion events with every field, predicted
 * PSN ranges (MTU splitting, READ and atomic rules, 24-bit wraparound),
 * failed posts, extended QPs and CQs, the re-entrancy guard, threads, and
 * the sysfs counter sampler over a fake sysfs tree.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_provider.h"
#include "fake_tracer.h"
#include "probe.h"
#include "testlib.h"

/* ---- functions the probe looks up in the global scope (the test exports them) ---- */

static uint32_t query_sq_psn = 77;

int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask, struct ibv_qp_init_attr *init)
{
	(void)qp;
	(void)init;
	if (mask & IBV_QP_SQ_PSN)
		attr->sq_psn = query_sq_psn;
	if (mask & IBV_QP_PATH_MTU)
		attr->path_mtu = IBV_MTU_4096;
	return 0;
}

struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	return (struct ibv_qp_ex *)qp;
}

static struct ibv_context *ctx;
static struct ibv_cq cq;

static void setup(void)
{
	CHECK(rt_probe_ensure_started());
	ctx = fake_open();
	memset(&cq, 0, sizeof(cq));
	cq.context = ctx;
	rt_probe_busy = 1;
	rt_probe_ctx_of(ctx);
	rt_probe_track_cq(&cq, 16, 0, false, false, 0);
	rt_probe_busy = 0;
}

static void make_qp(struct ibv_qp *qp, uint32_t qpn, enum ibv_qp_type type, unsigned mtu_enum,
		    uint32_t sq_psn)
{
	fake_qp_init(qp, ctx, qpn, type, &cq);
	struct ibv_qp_init_attr_ex a = { .send_cq = &cq, .recv_cq = &cq, .qp_type = type,
					 .cap = { .max_send_wr = 8 } };
	rt_probe_busy = 1;
	rt_probe_track_qp(qp, &a, false);
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_INIT };
	rt_probe_qp_modified(qp, &at, IBV_QP_STATE, 0);
	at.qp_state = IBV_QPS_RTR;
	at.path_mtu = mtu_enum;
	at.dest_qp_num = qpn + 1;
	rt_probe_qp_modified(qp, &at, IBV_QP_STATE | (mtu_enum ? IBV_QP_PATH_MTU : 0) | IBV_QP_DEST_QPN, 0);
	at.qp_state = IBV_QPS_RTS;
	at.sq_psn = sq_psn;
	rt_probe_qp_modified(qp, &at, IBV_QP_STATE | IBV_QP_SQ_PSN, 0);
	rt_probe_busy = 0;
}

static struct ibv_sge sge(uint32_t len)
{
	struct ibv_sge s = { .addr = 0x1000, .length = len, .lkey = 7 };
	return s;
}

static void test_psn_rules(void)
{
	CHECK_EQ_U(rt_probe_wr_psns(IBV_QPT_RC, IBV_WR_SEND, 0, 1024), 1);
	CHECK_EQ_U(rt_probe_wr_psns(IBV_QPT_RC, IBV_WR_SEND, 1024, 1024), 1);
	CHECK_EQ_U(rt_probe_wr_psns(IBV_QPT_RC, IBV_WR_SEND, 1025, 1024), 2);
	CHECK_EQ_U(rt_probe_wr_psns(IBV_QPT_RC, IBV_WR_RDMA_WRITE_WITH_IMM, 4096 * 3, 4096), 3);
	CHECK_EQ_U(rt_probe_wr_psns(IBV_QPT_RC, IBV_WR_RDMA_READ, 10000, 4096), 3);
	CHECK_EQ_U(rt_probe_wr_psns(IBV_QPT_RC, IBV_WR_RDMA_READ, 0, 4096), 1);
	CHECK_EQ_U(rt_probe_wr_psns(IBV_QPT_RC, IBV_WR_ATOMIC_FETCH_AND_ADD, 8, 256), 1);
	CHECK_EQ_U(rt_probe_wr_psns(IBV_QPT_RC, IBV_WR_ATOMIC_CMP_AND_SWP, 8, 0), 1);
	CHECK_EQ_U(rt_probe_wr_psns(IBV_QPT_UD, IBV_WR_SEND, 4000, 0), 1);
	CHECK_EQ_U(rt_probe_wr_psns(IBV_QPT_UC, IBV_WR_SEND, 5000, 2048), 3);
	CHECK(rt_probe_wr_psns(IBV_QPT_UC, IBV_WR_RDMA_READ, 5000, 2048) < 0);
	CHECK(rt_probe_wr_psns(IBV_QPT_UD, IBV_WR_RDMA_WRITE, 5, 2048) < 0);
	CHECK(rt_probe_wr_psns(IBV_QPT_RC, IBV_WR_SEND, 5, 0) < 0);
	CHECK_EQ_U(rt_probe_wr_psns(IBV_QPT_RC, IBV_WR_LOCAL_INV, 0, 1024), 0);
	CHECK_EQ_U(rt_probe_wr_psns(IBV_QPT_RC, IBV_WR_BIND_MW, 0, 1024), 0);
	CHECK(rt_probe_wr_psns(IBV_QPT_RC, 99, 0, 1024) < 0);
}

static void test_context_hooked(void)
{
	CHECK(ctx->ops.post_send != fake_post_send);
	CHECK(ctx->ops.poll_cq != fake_poll_cq);
	CHECK(ctx->ops.req_notify_cq != fake_req_notify);
	const struct rt_probe_ctx *c = rt_probe_ctx_find(ctx);
	CHECK(c && c->orig.post_send == fake_post_send);
	/* seeing it again neither re-hooks nor records it twice */
	unsigned before = fake_count(RT_EV_DEVICE);
	rt_probe_busy = 1;
	CHECK(rt_probe_ctx_of(ctx) == c);
	rt_probe_busy = 0;
	CHECK_EQ_U(fake_count(RT_EV_DEVICE), before);
	const struct rt_event *d = fake_find(RT_EV_DEVICE, 0);
	CHECK(d && !strcmp(d->u.device.name, "fake0"));
}

static void test_send_psn_wraparound(void)
{
	static struct ibv_qp qp;
	make_qp(&qp, 0x11, IBV_QPT_RC, IBV_MTU_1024, 0xFFFFFE);
	fake_reset();
	struct ibv_sge s1 = sge(2048), s2 = sge(100), s3 = sge(3000);
	struct ibv_send_wr w3 = { .wr_id = 3, .sg_list = &s3, .num_sge = 1, .opcode = IBV_WR_RDMA_READ,
				  .send_flags = IBV_SEND_SIGNALED };
	w3.wr.rdma.remote_addr = 0xabc000;
	w3.wr.rdma.rkey = 0x55;
	struct ibv_send_wr w2 = { .wr_id = 2, .next = &w3, .sg_list = &s2, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE_WITH_IMM, .imm_data = htobe32(9) };
	struct ibv_send_wr w1 = { .wr_id = 1, .next = &w2, .sg_list = &s1, .num_sge = 1,
				  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SOLICITED };
	struct ibv_send_wr *bad = NULL;
	CHECK_EQ_U(ibv_post_send(&qp, &w1, &bad), 0);
	CHECK_EQ_U(fake_dev_g.posted_send, 3);
	CHECK_EQ_U(fake_count(RT_EV_WR_POST), 3);
	const struct rt_event *e1 = fake_find(RT_EV_WR_POST, 0), *e2 = fake_find(RT_EV_WR_POST, 1),
			      *e3 = fake_find(RT_EV_WR_POST, 2);
	if (!e1 || !e2 || !e3)
		return;
	CHECK_EQ_U(e1->qpn, 0x11);
	CHECK_EQ_U(e1->u.wr.wr_id, 1);
	CHECK_EQ_U(e1->u.wr.length, 2048);
	CHECK_EQ_U(e1->u.wr.opcode, IBV_WR_SEND);
	CHECK_EQ_U(e1->u.wr.queue, RT_WRQ_SEND);
	CHECK_EQ_U(e1->u.wr.flags, RT_WRF_SOLICITED | RT_WRF_PSN_VALID);
	CHECK_EQ_U(e1->u.wr.first_psn, 0xFFFFFE);
	CHECK_EQ_U(e1->u.wr.last_psn, 0xFFFFFF);
	CHECK_EQ_U(e2->u.wr.first_psn, 0);
	CHECK_EQ_U(e2->u.wr.last_psn, 0);
	CHECK_EQ_U(e2->u.wr.imm, htobe32(9));
	CHECK_EQ_U(e3->u.wr.first_psn, 1);
	CHECK_EQ_U(e3->u.wr.last_psn, 3);
	CHECK_EQ_U(e3->u.wr.remote_addr, 0xabc000);
	CHECK_EQ_U(e3->u.wr.rkey, 0x55);
	CHECK_EQ_U(e3->u.wr.flags, RT_WRF_SIGNALED | RT_WRF_PSN_VALID);
	/* the next WR continues after the READ's response PSNs */
	struct ibv_send_wr w4 = { .wr_id = 4, .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD };
	struct ibv_sge s4 = sge(8);
	w4.sg_list = &s4;
	w4.num_sge = 1;
	CHECK_EQ_U(ibv_post_send(&qp, &w4, &bad), 0);
	const struct rt_event *e4 = fake_find(RT_EV_WR_POST, 3);
	CHECK(e4 && e4->u.wr.first_psn == 4 && e4->u.wr.last_psn == 4);
}

static void test_post_failure_gives_psns_back(void)
{
	static struct ibv_qp qp;
	make_qp(&qp, 0x12, IBV_QPT_RC, IBV_MTU_256, 100);
	fake_reset();
	struct ibv_sge s = sge(600); /* 3 PSNs at 256 */
	struct ibv_send_wr w3 = { .wr_id = 33, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND };
	struct ibv_send_wr w2 = { .wr_id = 22, .next = &w3, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND };
	struct ibv_send_wr w1 = { .wr_id = 11, .next = &w2, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND };
	struct ibv_send_wr *bad = NULL;
	fake_dev_g.fail_post_at = 2;
	CHECK_EQ_U(ibv_post_send(&qp, &w1, &bad), ENOMEM);
	fake_dev_g.fail_post_at = 0;
	CHECK(bad == &w2);
	CHECK_EQ_U(fake_count(RT_EV_WR_POST), 5);
	const struct rt_event *f1 = fake_find(RT_EV_WR_POST, 3), *f2 = fake_find(RT_EV_WR_POST, 4);
	CHECK(f1 && f1->u.wr.wr_id == 22 && (f1->u.wr.flags & RT_WRF_POST_FAILED) &&
	      (f1->flags & RT_EVF_ERROR));
	CHECK(f2 && f2->u.wr.wr_id == 33 && (f2->u.wr.flags & RT_WRF_POST_FAILED));
	/* WR 22 and 33 never went out: the next WR starts right after WR 11 */
	struct ibv_send_wr w4 = { .wr_id = 44, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND };
	CHECK_EQ_U(ibv_post_send(&qp, &w4, &bad), 0);
	const struct rt_event *e4 = fake_find(RT_EV_WR_POST, 5);
	CHECK(e4 && e4->u.wr.first_psn == 103 && e4->u.wr.last_psn == 105);
}

static void test_ud_and_unknown_mtu(void)
{
	static struct ibv_qp ud, rc;
	make_qp(&ud, 0x13, IBV_QPT_UD, 0, 5);
	fake_reset();
	struct ibv_sge s = sge(1000);
	struct ibv_send_wr w = { .wr_id = 1, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND };
	struct ibv_send_wr *bad;
	CHECK_EQ_U(ibv_post_send(&ud, &w, &bad), 0);
	CHECK_EQ_U(ibv_post_send(&ud, &w, &bad), 0);
	const struct rt_event *a = fake_find(RT_EV_WR_POST, 0), *b = fake_find(RT_EV_WR_POST, 1);
	CHECK(a && a->u.wr.first_psn == 5 && a->u.wr.last_psn == 5);
	CHECK(b && b->u.wr.first_psn == 6);
	/* RC QP at RTS without sq_psn in the mask: the probe asks ibv_query_qp */
	fake_qp_init(&rc, ctx, 0x14, IBV_QPT_RC, &cq);
	rt_probe_busy = 1;
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_RTS };
	rt_probe_qp_modified(&rc, &at, IBV_QP_STATE, 0);
	rt_probe_busy = 0;
	fake_reset();
	CHECK_EQ_U(ibv_post_send(&rc, &w, &bad), 0);
	const struct rt_event *c = fake_find(RT_EV_WR_POST, 0);
	CHECK(c && (c->u.wr.flags & RT_WRF_PSN_VALID) && c->u.wr.first_psn == query_sq_psn &&
	      c->u.wr.last_psn == query_sq_psn);
}

/* The port and GID queries the probe makes for a modify's address vector
 * (probes/qp_av.c), answered here as a device would: port 1 ACTIVE with an
 * active MTU of 1024; GID index 0 fe80::1 and 1 ::ffff:10.9.0.2 (RoCE v2),
 * 2 an empty entry, the rest past the table. */
#undef ibv_query_port
int ibv_query_port(struct ibv_context *context, uint8_t port_num, struct _compat_ibv_port_attr *port_attr)
{
	(void)context;
	if (port_num != 1)
		return EINVAL;
	struct ibv_port_attr *a = (struct ibv_port_attr *)port_attr;
	a->state = IBV_PORT_ACTIVE;
	a->active_mtu = IBV_MTU_1024;
	return 0;
}

static int test_gid(uint32_t index, union ibv_gid *gid)
{
	static const uint8_t v6[16] = {0xfe, 0x80, [15] = 1}, v4[16] = {[10] = 0xff, [11] = 0xff, 10, 9, 0, 2};
	memset(gid, 0, sizeof(*gid));
	if (index > 2)
		return EINVAL;
	if (index < 2)
		memcpy(gid->raw, index ? v4 : v6, 16);
	return 0;
}

int ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index, union ibv_gid *gid)
{
	(void)context;
	return port_num == 1 && index >= 0 ? test_gid((uint32_t)index, gid) : EINVAL;
}

int _ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num, uint32_t gid_index, struct ibv_gid_entry *entry,
		      uint32_t flags, size_t entry_size)
{
	(void)context;
	(void)flags;
	if (port_num != 1 || entry_size < sizeof(*entry) || test_gid(gid_index, &entry->gid))
		return EINVAL;
	if (gid_index == 2)
		return ENODATA; /* an empty entry: the _ex query refuses it */
	entry->gid_index = gid_index;
	entry->port_num = port_num;
	entry->gid_type = IBV_GID_TYPE_ROCE_V2;
	return 0;
}

/* A modify that carries IBV_QP_AV is recorded with its address vector and
 * what the port has (RT_EV_QP_AV) just before its QP_STATE record: the GID
 * at sgid_index (from the _ex query, else the plain one for an empty entry,
 * unknown past the table) and the port's active MTU. */
static void test_qp_av(void)
{
	static struct ibv_qp qp;
	fake_qp_init(&qp, ctx, 0x31, IBV_QPT_RC, &cq);
	static const uint8_t dgid[16] = {[10] = 0xff, [11] = 0xff, 10, 9, 0, 1};
	for (unsigned index = 0; index < 4; index++) {
		fake_reset();
		struct ibv_qp_attr at = {.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_4096, .dest_qp_num = 0x32};
		at.ah_attr.is_global = 1;
		at.ah_attr.port_num = 1;
		at.ah_attr.grh.sgid_index = (uint8_t)index;
		at.ah_attr.grh.hop_limit = 64;
		memcpy(at.ah_attr.grh.dgid.raw, dgid, 16);
		rt_probe_busy = 1;
		rt_probe_qp_modified(&qp, &at, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN, index == 0 ? EINVAL : 0);
		rt_probe_busy = 0;
		CHECK_EQ_U(fake_count(RT_EV_QP_AV), 1);
		const struct rt_event *e = fake_find(RT_EV_QP_AV, 0);
		const struct rt_event *st = fake_find(RT_EV_QP_STATE, 0); /* after the address vector */
		CHECK(e && st && e < st && e->qpn == 0x31);
		if (!e)
			continue;
		const struct rt_ev_qp_av *a = &e->u.qp_av;
		CHECK(a->port_num == 1 && a->sgid_index == index && a->is_global == 1 && a->hop_limit == 64);
		CHECK(!memcmp(a->dgid, dgid, 16));
		CHECK(a->port_state == IBV_PORT_ACTIVE && a->active_mtu == IBV_MTU_1024);
		union ibv_gid g;
		test_gid(index, &g);
		CHECK_EQ_U(a->sgid_known, index < 3);
		CHECK(index > 2 || !memcmp(a->sgid, g.raw, 16));
		CHECK_EQ_U(a->sgid_type, index < 2 ? IBV_GID_TYPE_ROCE_V2 : 0xFF);
	}
	/* ibv_create_ah's address vector: the same record, header qpn 0, with the
	 * port's GID at its sgid_index */
	static struct ibv_pd pd;
	pd.context = ctx;
	struct ibv_ah_attr ah = {.is_global = 1, .port_num = 1};
	ah.grh.sgid_index = 0;
	ah.grh.hop_limit = 1;
	memcpy(ah.grh.dgid.raw, dgid, 16);
	fake_reset();
	rt_probe_busy = 1;
	rt_probe_ah_av(&pd, &ah);
	rt_probe_busy = 0;
	const struct rt_event *ae = fake_find(RT_EV_QP_AV, 0);
	CHECK(ae && ae->qpn == 0 && ae->u.qp_av.port_num == 1 && ae->u.qp_av.sgid_known && ae->u.qp_av.sgid[0] == 0xfe &&
	      ae->u.qp_av.hop_limit == 1 && !memcmp(ae->u.qp_av.dgid, dgid, 16));
	/* no IBV_QP_AV: no record */
	fake_reset();
	rt_probe_busy = 1;
	struct ibv_qp_attr rts = {.qp_state = IBV_QPS_RTS, .sq_psn = 1};
	rt_probe_qp_modified(&qp, &rts, IBV_QP_STATE | IBV_QP_SQ_PSN, 0);
	rt_probe_busy = 0;
	CHECK_EQ_U(fake_count(RT_EV_QP_AV), 0);
}

static void test_qp_state_event(void)
{
	static struct ibv_qp qp;
	fake_reset();
	make_qp(&qp, 0x15, IBV_QPT_RC, IBV_MTU_2048, 1234);
	CHECK_EQ_U(fake_count(RT_EV_QP_CREATE), 1);
	CHECK_EQ_U(fake_count(RT_EV_QP_STATE), 3);
	const struct rt_event *rtr = fake_find(RT_EV_QP_STATE, 1), *rts = fake_find(RT_EV_QP_STATE, 2);
	CHECK(rtr && rtr->u.qp_state.from_state == IBV_QPS_INIT && rtr->u.qp_state.to_state == IBV_QPS_RTR);
	CHECK(rtr && rtr->u.qp_state.path_mtu == IBV_MTU_2048 && rtr->u.qp_state.dest_qpn == 0x16);
	CHECK(rts && rts->u.qp_state.sq_psn == 1234 && rts->u.qp_state.result == 0 && rts->qpn == 0x15);
	/* a failed modify is recorded with its error and changes nothing */
	rt_probe_busy = 1;
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_RTS, .sq_psn = 9 };
	rt_probe_qp_modified(&qp, &at, IBV_QP_STATE | IBV_QP_SQ_PSN, EINVAL);
	rt_probe_busy = 0;
	const struct rt_event *bad = fake_find(RT_EV_QP_STATE, 3);
	CHECK(bad && bad->u.qp_state.result == -EINVAL && (bad->flags & RT_EVF_ERROR));
	const struct rt_probe_qp *q = rt_objmap_get(&rt_probe_qps, &qp);
	CHECK(q && q->next_psn == 1234);
	/* the QP's access flags, when the modify carries them */
	rt_probe_busy = 1;
	struct ibv_qp_attr acc = { .qp_state = IBV_QPS_INIT, .qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE };
	rt_probe_qp_modified(&qp, &acc, IBV_QP_STATE | IBV_QP_ACCESS_FLAGS, 0);
	rt_probe_busy = 0;
	const struct rt_event *ae = fake_find(RT_EV_QP_STATE, 4);
	CHECK(ae && (ae->u.qp_state.av_flags & RT_QPS_ACCESS_RECORDED) && ae->u.qp_state.access_flags == 3 &&
	      !(ae->u.qp_state.av_flags & RT_QPS_AV_RECORDED));
	CHECK(bad && !(bad->u.qp_state.av_flags & RT_QPS_ACCESS_RECORDED));
}

static void test_recv_and_srq(void)
{
	static struct ibv_qp qp;
	static struct ibv_srq srq;
	make_qp(&qp, 0x17, IBV_QPT_RC, IBV_MTU_1024, 0);
	memset(&srq, 0, sizeof(srq));
	srq.context = ctx;
	srq.handle = 0x99;
	rt_probe_busy = 1;
	struct ibv_srq_attr sa = { .max_wr = 10, .max_sge = 1 };
	rt_probe_track_srq(&srq, NULL, &sa);
	rt_probe_busy = 0;
	fake_reset();
	struct ibv_sge s[2] = { sge(100), sge(28) };
	struct ibv_recv_wr r2 = { .wr_id = 8, .sg_list = s, .num_sge = 1 };
	struct ibv_recv_wr r1 = { .wr_id = 7, .next = &r2, .sg_list = s, .num_sge = 2 };
	struct ibv_recv_wr *bad;
	CHECK_EQ_U(ibv_post_recv(&qp, &r1, &bad), 0);
	CHECK_EQ_U(ibv_post_srq_recv(&srq, &r2, &bad), 0);
	CHECK_EQ_U(fake_dev_g.posted_recv, 2);
	CHECK_EQ_U(fake_dev_g.posted_srq, 1);
	const struct rt_event *a = fake_find(RT_EV_WR_POST, 0), *b = fake_find(RT_EV_WR_POST, 1),
			      *c = fake_find(RT_EV_WR_POST, 2);
	CHECK(a && a->qpn == 0x17 && a->u.wr.queue == RT_WRQ_RECV && a->u.wr.length == 128 &&
	      a->u.wr.num_sge == 2 && a->u.wr.wr_id == 7 && !(a->u.wr.flags & RT_WRF_PSN_VALID));
	CHECK(b && b->u.wr.wr_id == 8 && b->u.wr.length == 100);
	CHECK(c && c->qpn == 0x99 && c->u.wr.queue == RT_WRQ_SRQ_RECV);
}

static void test_poll_completions(void)
{
	fake_reset();
	struct ibv_wc w1 = { .wr_id = 5, .status = IBV_WC_SUCCESS, .opcode = IBV_WC_RECV,
			     .byte_len = 77, .qp_num = 0x11, .src_qp = 0x22, .wc_flags = IBV_WC_WITH_IMM,
			     .imm_data = htobe32(3) };
	struct ibv_wc w2 = { .wr_id = 6, .status = IBV_WC_RNR_RETRY_EXC_ERR, .qp_num = 0x11,
			     .vendor_err = 0x81 };
	fake_dev_g.queued[0] = w1;
	fake_dev_g.queued[1] = w2;
	fake_dev_g.nqueued = 2;
	struct ibv_wc out[4];
	CHECK_EQ_U(ibv_poll_cq(&cq, 4, out), 2);
	CHECK_EQ_U(ibv_poll_cq(&cq, 4, out), 0);
	CHECK_EQ_U(fake_count(RT_EV_COMPLETION), 2);
	const struct rt_event *a = fake_find(RT_EV_COMPLETION, 0), *b = fake_find(RT_EV_COMPLETION, 1);
	CHECK(a && a->qpn == 0x11 && a->u.wc.wr_id == 5 && a->u.wc.byte_len == 77 &&
	      a->u.wc.opcode == 128 && a->u.wc.src_qp == 0x22 && a->u.wc.imm == htobe32(3) &&
	      a->u.wc.wc_flags == IBV_WC_WITH_IMM && a->u.wc.cq_id == rt_probe_cq_id(&cq) &&
	      a->u.wc.cq_id != 0 && !(a->flags & RT_EVF_ERROR));
	CHECK(b && b->u.wc.status == IBV_WC_RNR_RETRY_EXC_ERR && (b->flags & RT_EVF_ERROR) &&
	      b->u.wc.vendor_err == 0x81);
}

static void test_req_notify_cq(void)
{
	fake_reset();
	CHECK_EQ_U(ibv_req_notify_cq(&cq, 1), 0);
	CHECK_EQ_U(fake_count(RT_EV_CQ_NOTIFY), 1);
	const struct rt_event *e = fake_find(RT_EV_CQ_NOTIFY, 0);
	CHECK(e && e->u.cq_notify.cq_id == rt_probe_cq_id(&cq) && e->u.cq_notify.solicited_only == 1 &&
	      e->u.cq_notify.result == 0 && !(e->flags & RT_EVF_ERROR));
}

static void test_reentrancy_guard(void)
{
	static struct ibv_qp qp;
	make_qp(&qp, 0x18, IBV_QPT_RC, IBV_MTU_1024, 10);
	fake_reset();
	struct ibv_sge s = sge(1);
	struct ibv_send_wr w = { .wr_id = 1, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND };
	struct ibv_send_wr *bad;
	unsigned posted = fake_dev_g.posted_send;
	rt_probe_busy = 1; /* as if the probe itself were posting */
	CHECK_EQ_U(ibv_post_send(&qp, &w, &bad), 0);
	rt_probe_busy = 0;
	CHECK_EQ_U(fake_dev_g.posted_send, posted + 1);
	CHECK_EQ_U(fake_count(RT_EV_WR_POST), 0);
	/* tracing off: calls pass through, nothing recorded */
	rt_tracer_enabled = 0;
	CHECK_EQ_U(ibv_post_send(&qp, &w, &bad), 0);
	rt_tracer_enabled = 1;
	CHECK_EQ_U(fake_count(RT_EV_WR_POST), 0);
	CHECK_EQ_U(fake_dev_g.posted_send, posted + 2);
}

/* ---- extended QP ---- */

static struct {
	unsigned start, complete, abort, ops, sge;
	int fail_complete;
} qpx_calls;

static void fx_start(struct ibv_qp_ex *q) { (void)q; qpx_calls.start++; }
static int fx_complete(struct ibv_qp_ex *q) { (void)q; qpx_calls.complete++; return qpx_calls.fail_complete; }
static void fx_abort(struct ibv_qp_ex *q) { (void)q; qpx_calls.abort++; }
static void fx_send(struct ibv_qp_ex *q) { (void)q; qpx_calls.ops++; }
static void fx_write(struct ibv_qp_ex *q, uint32_t k, uint64_t a) { (void)q; (void)k; (void)a; qpx_calls.ops++; }
static void fx_fadd(struct ibv_qp_ex *q, uint32_t k, uint64_t a, uint64_t v) { (void)q; (void)k; (void)a; (void)v; qpx_calls.ops++; }
static void fx_sge(struct ibv_qp_ex *q, uint32_t k, uint64_t a, uint32_t l) { (void)q; (void)k; (void)a; (void)l; qpx_calls.sge++; }
static void fx_inl(struct ibv_qp_ex *q, void *a, size_t l) { (void)q; (void)a; (void)l; qpx_calls.sge++; }

static void test_extended_qp(void)
{
	static struct ibv_qp_ex qx;
	memset(&qx, 0, sizeof(qx));
	fake_qp_init(&qx.qp_base, ctx, 0x21, IBV_QPT_RC, &cq);
	qx.wr_start = fx_start;
	qx.wr_complete = fx_complete;
	qx.wr_abort = fx_abort;
	qx.wr_send = fx_send;
	qx.wr_rdma_write = fx_write;
	qx.wr_atomic_fetch_add = fx_fadd;
	qx.wr_set_sge = fx_sge;
	qx.wr_set_inline_data = fx_inl;
	struct ibv_qp_init_attr_ex a = { .send_cq = &cq, .recv_cq = &cq, .qp_type = IBV_QPT_RC,
					 .comp_mask = IBV_QP_INIT_ATTR_SEND_OPS_FLAGS | IBV_QP_INIT_ATTR_PD };
	rt_probe_busy = 1;
	struct rt_probe_qp *q = rt_probe_track_qp(&qx.qp_base, &a, true);
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024 };
	rt_probe_qp_modified(&qx.qp_base, &at, IBV_QP_STATE | IBV_QP_PATH_MTU, 0);
	at.qp_state = IBV_QPS_RTS;
	at.sq_psn = 0xFFFFFF;
	rt_probe_qp_modified(&qx.qp_base, &at, IBV_QP_STATE | IBV_QP_SQ_PSN, 0);
	rt_probe_busy = 0;
	CHECK(q && q->ex);
	CHECK(qx.wr_send != fx_send && qx.wr_set_sge != fx_sge);
	CHECK(qx.wr_rdma_read == NULL); /* not offered by the provider: left alone */
	fake_reset();
	ibv_wr_start(&qx);
	qx.wr_id = 100;
	qx.wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(&qx, 0x42, 0x9000);
	ibv_wr_set_sge(&qx, 1, 0x1000, 3000);
	qx.wr_id = 101;
	qx.wr_flags = 0;
	ibv_wr_send(&qx);
	ibv_wr_set_inline_data(&qx, "hi", 2);
	CHECK_EQ_U(fake_count(RT_EV_WR_POST), 1); /* 100 recorded when 101 started */
	CHECK_EQ_U(ibv_wr_complete(&qx), 0);
	CHECK_EQ_U(qpx_calls.start, 1);
	CHECK_EQ_U(qpx_calls.complete, 1);
	CHECK_EQ_U(qpx_calls.ops, 2);
	CHECK_EQ_U(qpx_calls.sge, 2);
	CHECK_EQ_U(fake_count(RT_EV_WR_POST), 2);
	const struct rt_event *e1 = fake_find(RT_EV_WR_POST, 0), *e2 = fake_find(RT_EV_WR_POST, 1);
	CHECK(e1 && e1->u.wr.wr_id == 100 && e1->u.wr.opcode == IBV_WR_RDMA_WRITE &&
	      e1->u.wr.length == 3000 && e1->u.wr.rkey == 0x42 && e1->u.wr.remote_addr == 0x9000 &&
	      e1->u.wr.first_psn == 0xFFFFFF && e1->u.wr.last_psn == 1 &&
	      (e1->u.wr.flags & RT_WRF_SIGNALED));
	CHECK(e2 && e2->u.wr.wr_id == 101 && e2->u.wr.length == 2 && e2->u.wr.first_psn == 2 &&
	      (e2->u.wr.flags & RT_WRF_INLINE));
	/* an aborted batch is recorded as failed and its PSNs are given back */
	fake_reset();
	ibv_wr_start(&qx);
	qx.wr_id = 102;
	ibv_wr_atomic_fetch_add(&qx, 1, 0x8000, 1);
	ibv_wr_set_sge(&qx, 1, 0x1000, 8);
	ibv_wr_abort(&qx);
	CHECK_EQ_U(qpx_calls.abort, 1);
	const struct rt_event *p = fake_find(RT_EV_WR_POST, 0), *f = fake_find(RT_EV_WR_POST, 1);
	CHECK(p && p->u.wr.first_psn == 3 && p->u.wr.last_psn == 3);
	CHECK(f && f->u.wr.wr_id == 102 && (f->u.wr.flags & RT_WRF_POST_FAILED));
	fake_reset();
	ibv_wr_start(&qx);
	qx.wr_id = 103;
	ibv_wr_send(&qx);
	ibv_wr_set_sge(&qx, 1, 0x1000, 1);
	CHECK_EQ_U(ibv_wr_complete(&qx), 0);
	const struct rt_event *n = fake_find(RT_EV_WR_POST, 0);
	CHECK(n && n->u.wr.wr_id == 103 && n->u.wr.first_psn == 3);
}

/* ---- extended CQ ---- */

static struct ibv_cq_ex cqx;
static int cqx_left;

static int fc_start(struct ibv_cq_ex *c, struct ibv_poll_cq_attr *a)
{
	(void)a;
	if (cqx_left-- <= 0)
		return ENOENT;
	c->wr_id = 500 + (uint64_t)cqx_left;
	c->status = cqx_left == 0 ? IBV_WC_REM_ACCESS_ERR : IBV_WC_SUCCESS;
	return 0;
}
static int fc_next(struct ibv_cq_ex *c) { return fc_start(c, NULL); }
static void fc_end(struct ibv_cq_ex *c) { (void)c; }
static enum ibv_wc_opcode fc_opcode(struct ibv_cq_ex *c) { (void)c; return IBV_WC_RDMA_WRITE; }
static uint32_t fc_qpn(struct ibv_cq_ex *c) { (void)c; return 0x21; }
static uint32_t fc_len(struct ibv_cq_ex *c) { (void)c; return 64; }
static unsigned fc_flags(struct ibv_cq_ex *c) { (void)c; return 0; }
static uint32_t fc_vendor(struct ibv_cq_ex *c) { (void)c; return 0; }

static struct ibv_cq_ex *fake_create_cq_ex(struct ibv_context *c, struct ibv_cq_init_attr_ex *a)
{
	(void)a;
	memset(&cqx, 0, sizeof(cqx));
	cqx.context = c;
	cqx.start_poll = fc_start;
	cqx.next_poll = fc_next;
	cqx.end_poll = fc_end;
	cqx.read_opcode = fc_opcode;
	cqx.read_qp_num = fc_qpn;
	cqx.read_byte_len = fc_len;
	cqx.read_wc_flags = fc_flags;
	cqx.read_vendor_err = fc_vendor;
	return &cqx;
}

static void test_extended_cq(void)
{
	/* a context whose provider offers create_cq_ex, hooked at first sight */
	static struct verbs_context v2;
	static struct ibv_device dev2;
	memset(&v2, 0, sizeof(v2));
	strcpy(dev2.name, "fake1");
	v2.sz = sizeof(v2);
	v2.context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	v2.context.device = &dev2;
	v2.context.ops.poll_cq = fake_poll_cq;
	v2.create_cq_ex = fake_create_cq_ex;
	rt_probe_busy = 1;
	rt_probe_ctx_of(&v2.context);
	rt_probe_busy = 0;
	CHECK(v2.create_cq_ex != fake_create_cq_ex);
	fake_reset();
	struct ibv_cq_init_attr_ex ia = { .cqe = 8, .wc_flags = IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_BYTE_LEN };
	struct ibv_cq_ex *c = ibv_create_cq_ex(&v2.context, &ia);
	CHECK(c == &cqx);
	CHECK_EQ_U(fake_count(RT_EV_CQ_CREATE), 1);
	const struct rt_event *ce = fake_find(RT_EV_CQ_CREATE, 0);
	CHECK(ce && ce->u.cq_create.extended && ce->u.cq_create.cqe == 8);
	cqx_left = 2;
	struct ibv_poll_cq_attr pa = { 0 };
	unsigned n = 0;
	if (ibv_start_poll(c, &pa) == 0) {
		do
			n++;
		while (ibv_next_poll(c) == 0);
		ibv_end_poll(c);
	}
	CHECK_EQ_U(n, 2);
	CHECK_EQ_U(fake_count(RT_EV_COMPLETION), 2);
	const struct rt_event *a = fake_find(RT_EV_COMPLETION, 0), *b = fake_find(RT_EV_COMPLETION, 1);
	CHECK(a && a->u.wc.wr_id == 501 && a->qpn == 0x21 && a->u.wc.byte_len == 64 &&
	      a->u.wc.opcode == IBV_WC_RDMA_WRITE && a->u.wc.cq_id == ce->u.cq_create.cq_id);
	CHECK(b && b->u.wc.wr_id == 500 && b->u.wc.status == IBV_WC_REM_ACCESS_ERR &&
	      (b->flags & RT_EVF_ERROR));
}

static struct ibv_xrcd fake_xrcd;

static struct ibv_xrcd *fake_open_xrcd(struct ibv_context *c, struct ibv_xrcd_init_attr *a)
{
	(void)a;
	fake_xrcd.context = c;
	return &fake_xrcd;
}

static void test_open_xrcd(void)
{
	/* the provider has no open_xrcd: the hook refuses it as verbs.h would
	 * (EOPNOTSUPP) and records the refusal */
	static struct verbs_context v3, v4;
	static struct ibv_device dev3, dev4;
	struct verbs_context *vs[] = {&v3, &v4};
	struct ibv_device *ds[] = {&dev3, &dev4};
	for (int k = 0; k < 2; k++) {
		memset(vs[k], 0, sizeof(*vs[k]));
		strcpy(ds[k]->name, k ? "fake3" : "fake2");
		vs[k]->sz = sizeof(*vs[k]);
		vs[k]->context.abi_compat = __VERBS_ABI_IS_EXTENDED;
		vs[k]->context.device = ds[k];
		vs[k]->context.ops.poll_cq = fake_poll_cq;
	}
	v4.open_xrcd = fake_open_xrcd;
	rt_probe_busy = 1;
	rt_probe_ctx_of(&v3.context);
	rt_probe_ctx_of(&v4.context);
	rt_probe_busy = 0;
	fake_reset();
	struct ibv_xrcd_init_attr xa = { .comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS, .fd = -1 };
	errno = 0;
	CHECK(ibv_open_xrcd(&v3.context, &xa) == NULL && errno == EOPNOTSUPP);
	const struct rt_event *e = fake_find(RT_EV_VERBS_CALL, 0);
	CHECK(e && e->u.verbs_call.call == RT_VC_OPEN_XRCD && e->u.verbs_call.error == EOPNOTSUPP &&
	      (e->flags & RT_EVF_ERROR) && e->u.verbs_call.device_id == rt_probe_ctx_find(&v3.context)->id);
	/* the provider's own: called, and its success recorded */
	CHECK(ibv_open_xrcd(&v4.context, &xa) == &fake_xrcd && fake_xrcd.context == &v4.context);
	e = fake_find(RT_EV_VERBS_CALL, 1);
	CHECK(e && e->u.verbs_call.call == RT_VC_OPEN_XRCD && !e->u.verbs_call.error && !(e->flags & RT_EVF_ERROR));
	CHECK_EQ_U(fake_count(RT_EV_VERBS_CALL), 2);
}

/* ---- threads ---- */

#define THREADS 4
#define PER_THREAD 5000

static struct ibv_qp tqp[THREADS];

static void *poster(void *arg)
{
	struct ibv_qp *qp = arg;
	struct ibv_sge s = sge(1500); /* 2 PSNs at 1024 */
	for (int i = 0; i < PER_THREAD; i++) {
		struct ibv_send_wr w = { .wr_id = (uint64_t)i, .sg_list = &s, .num_sge = 1,
					 .opcode = IBV_WR_SEND };
		struct ibv_send_wr *bad;
		if (ibv_post_send(qp, &w, &bad) != 0)
			break;
	}
	return NULL;
}

static void test_threads(void)
{
	for (int t = 0; t < THREADS; t++)
		make_qp(&tqp[t], 0x100 + (uint32_t)t, IBV_QPT_RC, IBV_MTU_1024, (uint32_t)t * 1000);
	fake_reset();
	pthread_t th[THREADS];
	for (int t = 0; t < THREADS; t++)
		pthread_create(&th[t], NULL, poster, &tqp[t]);
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	unsigned seen[THREADS] = {0};
	int order_ok = 1;
	for (unsigned i = 0; i < fake_nevents; i++) {
		const struct rt_event *e = &fake_events[i];
		if (e->kind != RT_EV_WR_POST || e->qpn < 0x100 || e->qpn >= 0x100 + THREADS)
			continue;
		unsigned t = e->qpn - 0x100;
		uint32_t want = (t * 1000 + 2 * seen[t]) & 0xFFFFFF;
		if (e->u.wr.wr_id != seen[t] || e->u.wr.first_psn != want ||
		    e->u.wr.last_psn != ((want + 1) & 0xFFFFFF))
			order_ok = 0;
		seen[t]++;
	}
	for (int t = 0; t < THREADS; t++)
		CHECK_EQ_U(seen[t], PER_THREAD);
	CHECK(order_ok);
}

/* ---- counters ---- */

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static const struct rt_event *find_counter(const char *name, uint64_t value)
{
	for (unsigned i = 0; i < fake_nevents; i++) {
		const struct rt_event *e = &fake_events[i];
		if (e->kind == RT_EV_COUNTER && !strncmp(e->u.counter.name, name, 28) &&
		    e->u.counter.value == value)
			return e;
	}
	return NULL;
}

static void test_counters(void)
{
	char root[] = "/tmp/rt-probe-sysfs-XXXXXX", path[256];
	setenv("RDMATRACE_COUNTER_MS", "20", 1);
	if (!mkdtemp(root))
		SKIP("no temp dir");
	snprintf(path, sizeof(path), "%s/rxe9", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/rxe9/ports", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/rxe9/ports/1", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/rxe9/ports/1/hw_counters", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/rxe9/ports/1/hw_counters/rcvd_rnr_err", root);
	write_file(path, "3\n");
	snprintf(path, sizeof(path), "%s/rxe9/ports/1/hw_counters/lifespan", root);
	write_file(path, "10\n");
	snprintf(path, sizeof(path), "%s/rxe9/ports/1/counters", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/rxe9/ports/1/counters/port_xmit_packets", root);
	write_file(path, "1000\n");
	setenv("RDMATRACE_SYSFS_ROOT", root, 1);
	fake_reset();
	/* periodic sampling every 20 ms; the sampler is joined before its events
	 * are read (the fake tracer's slots are not safe to read while written) */
	rt_probe_counters_add_device("rxe9", 9);
	rt_probe_counters_add_device("nosuch0", 10);
	usleep(150000);
	rt_probe_counters_stop();
	const struct rt_event *e = find_counter("rcvd_rnr_err", 3);
	CHECK(e && e->u.counter.port == 1 && e->u.counter.device_id == 9);
	CHECK(find_counter("port_xmit_packets", 1000));
	CHECK(!find_counter("lifespan", 10));
	int warned = 0;
	for (unsigned k = 0; k < fake_nevents; k++)
		warned |= fake_events[k].kind == RT_EV_WARNING && strstr(fake_events[k].u.warning.text, "nosuch0") != NULL;
	CHECK(warned);
	/* errors and exit only (0): an error completion asks for a sample at once */
	setenv("RDMATRACE_COUNTER_MS", "0", 1);
	fake_reset();
	rt_probe_counters_add_device("rxe9", 9); /* the sampler again: its first sample changes nothing */
	usleep(50000);
	unsigned before = fake_total();
	snprintf(path, sizeof(path), "%s/rxe9/ports/1/hw_counters/rcvd_rnr_err", root);
	write_file(path, "4\n");
	rt_probe_counters_kick();
	int sampled = 0;
	for (int i = 0; i < 200 && !sampled; i++) {
		sampled = fake_total() > before;
		if (!sampled)
			usleep(10000);
	}
	CHECK(sampled); /* before the sampler stopped: the kick did it */
	rt_probe_counters_stop();
	CHECK(find_counter("rcvd_rnr_err", 4));
	setenv("RDMATRACE_COUNTER_MS", "off", 1);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", root);
}

int main(void)
{
	/* no sampler thread (its events would race with the tests resetting
	 * theirs) until the counter test points it somewhere */
	setenv("RDMATRACE_SYSFS_ROOT", "/nonexistent", 1);
	setenv("RDMATRACE_COUNTER_MS", "off", 1);
	setup();
	RUN(test_psn_rules);
	RUN(test_context_hooked);
	RUN(test_send_psn_wraparound);
	RUN(test_post_failure_gives_psns_back);
	RUN(test_ud_and_unknown_mtu);
	RUN(test_qp_state_event);
	RUN(test_recv_and_srq);
	RUN(test_poll_completions);
	RUN(test_req_notify_cq);
	RUN(test_reentrancy_guard);
	RUN(test_extended_qp);
	RUN(test_extended_cq);
	RUN(test_open_xrcd);
	RUN(test_qp_av);
	RUN(test_threads);
	RUN(test_counters);
	return test_done();
}

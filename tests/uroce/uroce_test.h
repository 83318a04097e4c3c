/*
 * Helpers for the uroce test programs: open an endpoint (context, PD, CQ,
 * QP, registered buffer) on the uroce device, connect two RC/UC endpoints
 * through the public verbs API exactly as an application would (GIDs from
 * ibv_query_gid, ah_attr.is_global), and wait for completions with a
 * deadline so a broken engine fails a test instead of hanging it.
 */
#ifndef UROCE_TEST_H
#define UROCE_TEST_H

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <infiniband/verbs.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "uroce_stats.h"

struct ut_end {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	size_t len;
	union ibv_gid gid;
};

static inline uint64_t ut_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static inline int ut_open(struct ut_end *e, size_t len, enum ibv_qp_type type, unsigned max_wr)
{
	memset(e, 0, sizeof(*e));
	int n = 0;
	struct ibv_device **list = ibv_get_device_list(&n);
	if (!list || n < 1)
		return -1;
	e->ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	if (!e->ctx)
		return -1;
	e->pd = ibv_alloc_pd(e->ctx);
	e->cq = ibv_create_cq(e->ctx, (int)max_wr * 4, NULL, NULL, 0);
	e->len = len;
	e->buf = calloc(1, len);
	if (!e->pd || !e->cq || !e->buf)
		return -1;
	e->mr = ibv_reg_mr(e->pd, e->buf, len,
	                   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
	                       IBV_ACCESS_REMOTE_ATOMIC);
	struct ibv_qp_init_attr qa;
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = qa.recv_cq = e->cq;
	qa.qp_type = type;
	qa.cap.max_send_wr = max_wr;
	qa.cap.max_recv_wr = max_wr;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 4;
	qa.cap.max_inline_data = 64;
	e->qp = ibv_create_qp(e->pd, &qa);
	if (!e->mr || !e->qp)
		return -1;
	if (ibv_query_gid(e->ctx, 1, 0, &e->gid))
		return -1;
	return 0;
}

static inline void ut_close(struct ut_end *e)
{
	if (e->qp)
		ibv_destroy_qp(e->qp);
	if (e->mr)
		ibv_dereg_mr(e->mr);
	if (e->cq)
		ibv_destroy_cq(e->cq);
	if (e->pd)
		ibv_dealloc_pd(e->pd);
	if (e->ctx)
		ibv_close_device(e->ctx);
	free(e->buf);
	memset(e, 0, sizeof(*e));
}

struct ut_params {
	enum ibv_mtu mtu;
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
	uint32_t psn_a, psn_b;
};

/* Move e's QP to RTS towards peer (RC/UC), with the given parameters. */
static inline int ut_rts(struct ut_end *e, const struct ut_end *peer, const struct ut_params *p, uint32_t my_psn,
                         uint32_t peer_psn)
{
	struct ibv_qp_attr a;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
	                    IBV_ACCESS_REMOTE_ATOMIC;
	bool rc = e->qp->qp_type == IBV_QPT_RC;
	if (ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = p->mtu;
	a.dest_qp_num = peer->qp->qp_num;
	a.rq_psn = peer_psn;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = p->min_rnr_timer;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = peer->gid;
	a.ah_attr.grh.sgid_index = 0;
	a.ah_attr.grh.hop_limit = 64;
	int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
	if (rc)
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	if (ibv_modify_qp(e->qp, &a, mask))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = my_psn;
	a.timeout = p->timeout;
	a.retry_cnt = p->retry_cnt;
	a.rnr_retry = p->rnr_retry;
	a.max_rd_atomic = 4;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (rc)
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
	return ibv_modify_qp(e->qp, &a, mask) ? -1 : 0;
}

static inline int ut_connect(struct ut_end *a, struct ut_end *b, const struct ut_params *p)
{
	if (ut_rts(a, b, p, p->psn_a, p->psn_b) || ut_rts(b, a, p, p->psn_b, p->psn_a))
		return -1;
	return 0;
}

/* Poll cq until n completions are in wc[] or timeout_ms passes; returns the count. */
static inline int ut_wait(struct ibv_cq *cq, struct ibv_wc *wc, int n, unsigned timeout_ms)
{
	int got = 0;
	uint64_t end = ut_now_ms() + timeout_ms;
	while (got < n && ut_now_ms() < end) {
		int k = ibv_poll_cq(cq, n - got, wc + got);
		if (k < 0)
			return got;
		got += k;
		if (!k) {
			struct timespec ts = { 0, 20000 };
			nanosleep(&ts, NULL);
		}
	}
	return got;
}

static inline int ut_post_recv(struct ut_end *e, uint64_t wr_id, size_t off, uint32_t len)
{
	struct ibv_sge s = { (uint64_t)(uintptr_t)(e->buf + off), len, e->mr->lkey };
	struct ibv_recv_wr wr, *bad;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &s;
	wr.num_sge = 1;
	return ibv_post_recv(e->qp, &wr, &bad);
}

/* Before a test writes a buffer an engine sent from: the wire already
 * ordered the engine's last read of it before the completion the test
 * waited for, but ThreadSanitizer cannot see through a socket. Taking the
 * engine's lock (uroce_priv_stats does) shows it that order. */
static inline void ut_order_after_engine(struct ut_end *e)
{
	struct uroce_stats st;
	uroce_priv_stats(e->ctx, &st);
}

static inline void ut_fill(uint8_t *p, size_t n, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (uint8_t)x;
	}
}

#endif

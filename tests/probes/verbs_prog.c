/*
 * A small, ordinary verbs program for the probe's end-to-end tests: it
 * knows nothing of rdmatrace and uses only the public API (inline
 * ibv_post_send / ibv_poll_cq included).  Modes:
 *   basic         two connected RC QPs on one device: the first sends every
 *                 opcode, the second takes three receives; one error
 *                 completion (RDMA WRITE with a bad rkey)
 *   threads N     N threads sharing one device context, each with its own
 *                 PD, CQ and QP pair
 *   fork          forks; parent and child each run `basic` on their own device
 *   exec          runs `basic`, then forks a child that execs `verbs_prog basic`
 *   hang          runs `basic`, prints "ready", then sleeps (to be killed)
 *   wait          runs `basic`, prints "ready", reads its stdin to the end,
 *                 then returns from main
 *   cq-overrun    32 SENDs and their receives complete into a 4-entry CQ
 *                 before it is polled: waits for the provider's
 *                 IBV_EVENT_CQ_ERR (uroce and rxe; not the stand-in)
 *   giveup        opens the device, a PD and a CQ, then returns 1 from main
 *                 (not through exit())
 *   crash         `basic` up to its posts, then a SIGSEGV (a store to address
 *                 0x8) before any completion is polled
 *   crash-thread  the same fault in a thread that never made an RDMA call
 *   bad-modify    a failing ibv_modify_qp (RTS before RTR), then `basic`
 *   bad-setup     an INIT -> RTR without IBV_QP_MAX_DEST_RD_ATOMIC and
 *                 IBV_QP_MIN_RNR_TIMER, one with every attribute but an
 *                 address vector without the GRH, an ibv_reg_mr asking for remote
 *                 write without local write, and a CQ, a QP and an SRQ each
 *                 one beyond the device's limits (max_cqe, max_qp_wr,
 *                 max_srq_sge), an address handle without the GRH, a
 *                 multicast attach of an RC QP and an XRC domain: all
 *                 refused; then one good address handle and `basic`
 *   extras        `basic`, plus (stand-in provider only) one asynchronous
 *                 event and mlx5dv_init_obj on the receiving QP
 *   mw            memory windows (not in the stand-in build), each case on
 *                 a fresh QP pair whose responder binds a window over its
 *                 MR and whose requester WRITEs through the window's rkey:
 *                 a type 2 window of 4096 bytes bound for remote writes (a
 *                 BIND_MW WR) takes a WRITE and refuses a READ; a type 2
 *                 window invalidated (LOCAL_INV) refuses a WRITE; a type 1
 *                 window (ibv_bind_mw) bound for remote reads refuses a
 *                 WRITE.  (The kernel's SoftRoCE of Linux 6.1 checks a
 *                 window's rkey and rights, but bounds an access by the
 *                 window's MR, not by the window: an 8192-byte WRITE into
 *                 the 4096-byte window succeeded there.)
 * It checks that every completion it polls matches a WR it posted and
 * exits non-zero otherwise; it prints a summary line on stdout.  Built
 * twice: against tests/probes/fakeverbs.c and against the system
 * libibverbs (verbs_prog_sys), which runs over uroce; with VERBS_PROG_PLUGIN
 * it is a shared object whose verbs_plugin_run() does `basic`.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#ifdef VERBS_PROG_FAKE
#include <infiniband/mlx5dv.h>
#endif

#define SQ_PSN 0xFFFFF0u  /* close to the 24-bit wrap on purpose */

#define PEER_PSN 0x000100u

/* RESET -> INIT -> RTR -> RTS towards dest on the same device (GID index 0). */
static int connect_qp(struct ibv_qp *qp, uint32_t dest, uint32_t sq_psn, uint32_t rq_psn,
		      const union ibv_gid *gid)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
				 .qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
						    IBV_ACCESS_REMOTE_ATOMIC };
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return 1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.sgid_index = 0;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest;
	a.rq_psn = rq_psn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return 1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = sq_psn;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC) != 0;
}

static struct ibv_context *open_dev(void)
{
	int ndev = 0;
	struct ibv_device **list = ibv_get_device_list(&ndev);
	if (!list || ndev < 1) {
		fprintf(stderr, "verbs_prog: no device\n");
		return NULL;
	}
	struct ibv_context *ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	return ctx;
}

/* One sender/receiver QP pair on ctx (threads share one context). */
static int extras __attribute__((unused)); /* "extras" mode (stand-in provider build) */

static int crash_after_post; /* mode crash (1), crash-thread (2) */

static void fault(void)
{
	volatile uintptr_t bad_addr = 8;
	*(volatile int *)bad_addr = 1;
}

static void *fault_thread(void *arg)
{
	(void)arg;
	fault();
	return NULL;
}

static int run_pair(struct ibv_context *ctx, int id, int bad_modify)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	static char bufs[16][8192] __attribute__((aligned(64)));
	char *buf = bufs[id & 15];
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, 8192, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				       IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	struct ibv_cq *cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	struct ibv_qp_init_attr ia = { .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = 32, .max_recv_wr = 32, .max_send_sge = 1,
						.max_recv_sge = 1 } };
	struct ibv_qp *qp = ibv_create_qp(pd, &ia);   /* sends everything */
	struct ibv_qp *peer = ibv_create_qp(pd, &ia); /* receives and responds */
	if (!pd || !mr || !cq || !qp || !peer)
		return 1;
	union ibv_gid gid;
	if (ibv_query_gid(ctx, 1, 0, &gid))
		return 1;
	if (bad_modify == 1) {
		struct ibv_qp_attr b = { .qp_state = IBV_QPS_RTS, .sq_psn = 1 };
		if (ibv_modify_qp(qp, &b, IBV_QP_STATE | IBV_QP_SQ_PSN) == 0)
			return 1; /* the provider must refuse RESET -> RTS */
	} else if (bad_modify == 2) {
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
					 .qp_access_flags = IBV_ACCESS_REMOTE_WRITE };
		if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
			return 1;
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTR;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = gid;
		a.ah_attr.grh.hop_limit = 64;
		a.ah_attr.port_num = 1;
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = peer->qp_num;
		a.rq_psn = PEER_PSN;
		/* an RC QP's INIT -> RTR also needs MAX_DEST_RD_ATOMIC and MIN_RNR_TIMER */
		if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN) == 0)
			return 1;
		/* every attribute RTR takes, but an address vector without the GRH RoCE needs */
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 12;
		a.ah_attr.is_global = 0;
		a.ah_attr.dlid = 1;
		if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER) == 0)
			return 1;
		if (ibv_reg_mr(pd, buf, 64, IBV_ACCESS_REMOTE_WRITE)) /* remote write needs local write */
			return 1;
		/* an address handle without the GRH RoCE needs, multicast on an RC QP,
		 * an XRC domain (none of rxe, uroce and the stand-in has XRC) */
		struct ibv_ah_attr aa = { .dlid = 1, .port_num = 1 };
		if (ibv_create_ah(pd, &aa))
			return 1;
		union ibv_gid mgid = { .raw = { 0xff, 0x0e, [10] = 0xff, [11] = 0xff, [12] = 239, [13] = 1, [14] = 1,
						[15] = 1 } };
		if (ibv_attach_mcast(qp, &mgid, 0) == 0)
			return 1;
		struct ibv_xrcd_init_attr xa = { .comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
						 .fd = -1, .oflags = O_CREAT };
		if (ibv_open_xrcd(ctx, &xa))
			return 1;
		/* and one address handle that works: to this port's own GID */
		aa.is_global = 1;
		aa.grh.dgid = gid;
		aa.grh.hop_limit = 64;
		struct ibv_ah *ah = ibv_create_ah(pd, &aa);
		if (!ah || ibv_destroy_ah(ah))
			return 1;
#ifndef VERBS_PROG_FAKE /* the stand-in provider has no limits to go beyond */
		/* creates one beyond the device's limits: each refused */
		struct ibv_device_attr da;
		if (ibv_query_device(ctx, &da))
			return 1;
		if (ibv_create_cq(ctx, da.max_cqe + 1, NULL, NULL, 0))
			return 1;
		struct ibv_qp_init_attr big = ia;
		big.cap.max_send_wr = (uint32_t)da.max_qp_wr + 1;
		if (ibv_create_qp(pd, &big))
			return 1;
		struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = (uint32_t)da.max_srq_sge + 1 } };
		if (ibv_create_srq(pd, &sa))
			return 1;
#endif
	}
	if (connect_qp(qp, peer->qp_num, SQ_PSN, PEER_PSN, &gid) ||
	    connect_qp(peer, qp->qp_num, PEER_PSN, SQ_PSN, &gid))
		return 1;
#ifdef VERBS_PROG_FAKE
	if (extras) {
		struct ibv_async_event ev;
		if (ibv_get_async_event(ctx, &ev) != 0 || ev.element.qp != peer)
			return 1;
		ibv_ack_async_event(&ev);
		struct mlx5dv_obj dv = { .qp = { .in = peer } };
		if (mlx5dv_init_obj(&dv, MLX5DV_OBJ_QP) != 0)
			return 1;
	}
#endif

	/* SEND, WRITE_WITH_IMM and SEND_WITH_IMM each consume one receive */
	static char rbuf[16][4096];
	struct ibv_mr *rmr = ibv_reg_mr(pd, rbuf[id & 15], 4096, IBV_ACCESS_LOCAL_WRITE);
	if (!rmr)
		return 1;
	for (int k = 0; k < 3; k++) {
		struct ibv_sge rs = { .addr = (uintptr_t)rbuf[id & 15], .length = 4096, .lkey = rmr->lkey };
		struct ibv_recv_wr rwr = { .wr_id = 1000 + (uint64_t)k, .sg_list = &rs, .num_sge = 1 };
		struct ibv_recv_wr *rbad;
		if (ibv_post_recv(peer, &rwr, &rbad))
			return 1;
	}
	/* opcode, length: SEND 3000 (3 PSNs), WRITE 1024 (1), WRITE_IMM 0 (1),
	 * READ 5000 (5), CAS (1), FADD (1), SEND_IMM 1 (1), WRITE 10 with a bad
	 * rkey (1): the remote access error completion */
	static const struct { enum ibv_wr_opcode op; uint32_t len; } ops[] = {
		{ IBV_WR_SEND, 3000 }, { IBV_WR_RDMA_WRITE, 1024 }, { IBV_WR_RDMA_WRITE_WITH_IMM, 0 },
		{ IBV_WR_RDMA_READ, 5000 }, { IBV_WR_ATOMIC_CMP_AND_SWP, 8 },
		{ IBV_WR_ATOMIC_FETCH_AND_ADD, 8 }, { IBV_WR_SEND_WITH_IMM, 1 }, { IBV_WR_RDMA_WRITE, 10 },
	};
	unsigned nops = sizeof(ops) / sizeof(ops[0]);
	/* VERBS_PROG_READ_LEN overrides the READ's 5000 bytes */
	const char *rl = getenv("VERBS_PROG_READ_LEN");
	uint32_t read_len = rl && *rl ? (uint32_t)strtoul(rl, NULL, 10) : 5000;
	for (unsigned i = 0; i < nops; i++) {
		uint32_t len = ops[i].op == IBV_WR_RDMA_READ ? read_len : ops[i].len;
		struct ibv_sge s = { .addr = (uintptr_t)buf, .length = len, .lkey = mr->lkey };
		struct ibv_send_wr w = { .wr_id = i + 1, .sg_list = &s, .num_sge = len ? 1 : 0,
					 .opcode = ops[i].op, .send_flags = IBV_SEND_SIGNALED,
					 .imm_data = htobe32(0x1234) };
		/* the READ fetches 5000 bytes from the start of the region */
		w.wr.rdma.remote_addr = (uintptr_t)buf + (ops[i].op == IBV_WR_RDMA_READ ? 0 : 4096);
		w.wr.rdma.rkey = mr->rkey;
		if (i == nops - 1) {
			w.wr_id |= 1ull << 63; /* (the stand-in provider fails it by wr_id) */
			w.wr.rdma.rkey = mr->rkey + 0x5000;
		}
		if (ops[i].op == IBV_WR_ATOMIC_CMP_AND_SWP || ops[i].op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
			w.wr.atomic.remote_addr = (uintptr_t)buf + 4096;
			w.wr.atomic.rkey = mr->rkey;
			w.wr.atomic.compare_add = 1;
		}
		struct ibv_send_wr *bad;
		if (ibv_post_send(qp, &w, &bad))
			return 1;
	}
	if (crash_after_post == 1) {
		/* a real fault (at an address the compiler cannot see), before any completion is polled */
		fault();
	} else if (crash_after_post == 2) {
		/* the same fault in a thread that never made an RDMA call */
		pthread_t th;
		if (pthread_create(&th, NULL, fault_thread, NULL) == 0)
			pthread_join(th, NULL);
	}
	unsigned got = 0, errors = 0;
	struct ibv_wc wc[8];
	time_t deadline = time(NULL) + 10;
	while (got < nops + 3 && time(NULL) < deadline) {
		int n = ibv_poll_cq(cq, 8, wc);
		if (n < 0)
			return 1;
		for (int k = 0; k < n; k++) {
			uint64_t idx = wc[k].wr_id & ~(1ull << 63);
			if (wc[k].status != IBV_WC_SUCCESS)
				errors++;
			if (!((idx >= 1000 && idx <= 1002) || (idx >= 1 && idx <= nops))) {
				fprintf(stderr, "verbs_prog: unexpected completion %#llx\n",
					(unsigned long long)wc[k].wr_id);
				return 1;
			}
		}
		got += (unsigned)n;
	}
	if (got != nops + 3 || errors != 1) {
		fprintf(stderr, "verbs_prog: %u completions (%u errors), expected %u (1)\n", got, errors,
			nops + 3);
		return 1;
	}
	ibv_destroy_qp(qp);
	ibv_destroy_qp(peer);
	ibv_destroy_cq(cq);
	ibv_dereg_mr(mr);
	ibv_dereg_mr(rmr);
	ibv_dealloc_pd(pd);
	return 0;
}

static int basic(int id, int bad_modify)
{
	struct ibv_context *ctx = open_dev();
	if (!ctx)
		return 1;
	int rc = run_pair(ctx, id, bad_modify);
	ibv_close_device(ctx);
	return rc;
}

#ifdef VERBS_PROG_PLUGIN
/* Built as a shared object that a program dlopen()s (tests/probes/dlopen_prog.c). */
int verbs_plugin_run(void);
int verbs_plugin_run(void)
{
	return basic(0, 0);
}
#else
/* cq-overrun: a 4-entry CQ that two connected QPs complete 32 SENDs and
 * their 32 receives into before the program polls: the provider reports
 * the overrun as an IBV_EVENT_CQ_ERR asynchronous event, read here.  0
 * when it came (within 5 s). */
static int cq_overrun(void)
{
	struct ibv_context *ctx = open_dev();
	struct ibv_pd *pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	static char buf[64];
	struct ibv_mr *mr = pd ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE) : NULL;
	struct ibv_cq *cq = ctx ? ibv_create_cq(ctx, 4, NULL, NULL, 0) : NULL;
	struct ibv_qp_init_attr ia = { .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = 32, .max_recv_wr = 32, .max_send_sge = 1,
						.max_recv_sge = 1 } };
	struct ibv_qp *qp = mr && cq ? ibv_create_qp(pd, &ia) : NULL, *peer = qp ? ibv_create_qp(pd, &ia) : NULL;
	union ibv_gid gid;
	if (!peer || ibv_query_gid(ctx, 1, 0, &gid) || connect_qp(qp, peer->qp_num, SQ_PSN, PEER_PSN, &gid) ||
	    connect_qp(peer, qp->qp_num, PEER_PSN, SQ_PSN, &gid))
		return 1;
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 16, .lkey = mr->lkey };
	for (int i = 0; i < 32; i++) {
		struct ibv_recv_wr r = { .wr_id = 100 + (uint64_t)i, .sg_list = &sge, .num_sge = 1 }, *rbad;
		struct ibv_send_wr w = { .wr_id = (uint64_t)i, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
					 .send_flags = IBV_SEND_SIGNALED }, *bad;
		if (ibv_post_recv(peer, &r, &rbad) || ibv_post_send(qp, &w, &bad))
			return 1;
	}
	struct ibv_wc wc[4];
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	for (int tries = 0; tries < 50; tries++) {
		(void)ibv_poll_cq(cq, 1, wc); /* lets a provider that progresses in poll_cq complete the rest */
		if (poll(&pfd, 1, 100) == 1) {
			struct ibv_async_event ev;
			if (ibv_get_async_event(ctx, &ev))
				return 1;
			int is_cq_err = ev.event_type == IBV_EVENT_CQ_ERR;
			ibv_ack_async_event(&ev);
			printf("verbs_prog cq-overrun: async event %d\n", (int)ev.event_type);
			if (is_cq_err)
				return 0;
		}
	}
	fprintf(stderr, "verbs_prog cq-overrun: no IBV_EVENT_CQ_ERR\n");
	return 1;
}

#ifndef VERBS_PROG_FAKE
/* The next completion on cq within 5 s: its status, or -1. */
static int next_status(struct ibv_cq *cq, uint64_t *wr_id)
{
	struct ibv_wc wc;
	for (time_t deadline = time(NULL) + 5; time(NULL) < deadline;) {
		int n = ibv_poll_cq(cq, 1, &wc);
		if (n < 0)
			return -1;
		if (n == 1) {
			*wr_id = wc.wr_id;
			return (int)wc.status;
		}
	}
	return -1;
}

/* One memory-window case (mode mw): 0 a 4096-byte type 2 window for remote
 * writes, a WRITE into it and a READ from it; 1 a type 2 window
 * invalidated, then a WRITE; 2 a type 1 window bound for remote reads
 * only, then a WRITE.
 * Returns 0 when every completion came with the status expected. */
static int mw_case(struct ibv_context *ctx, int which)
{
	static char buf[3][16384] __attribute__((aligned(4096)));
	static char src[3][8192];
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = pd ? ibv_create_cq(ctx, 64, NULL, NULL, 0) : NULL;
	struct ibv_qp_init_attr ia = { .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1,
						.max_recv_sge = 1 } };
	struct ibv_qp *qp = cq ? ibv_create_qp(pd, &ia) : NULL;   /* the requester */
	struct ibv_qp *peer = cq ? ibv_create_qp(pd, &ia) : NULL; /* the window's owner */
	struct ibv_mr *mr = pd ? ibv_reg_mr(pd, buf[which], sizeof(buf[which]),
					    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
					    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_MW_BIND) : NULL;
	struct ibv_mr *smr = pd ? ibv_reg_mr(pd, src[which], sizeof(src[which]), IBV_ACCESS_LOCAL_WRITE) : NULL;
	struct ibv_mw *mw = pd ? ibv_alloc_mw(pd, which == 2 ? IBV_MW_TYPE_1 : IBV_MW_TYPE_2) : NULL;
	union ibv_gid gid;
	if (!qp || !peer || !mr || !smr || !mw || ibv_query_gid(ctx, 1, 0, &gid) ||
	    connect_qp(qp, peer->qp_num, SQ_PSN, PEER_PSN, &gid) || connect_qp(peer, qp->qp_num, PEER_PSN, SQ_PSN, &gid)) {
		fprintf(stderr, "verbs_prog mw: set-up failed: %s\n", strerror(errno));
		return 1;
	}
	struct ibv_mw_bind_info bi = { .mr = mr, .addr = (uintptr_t)buf[which], .length = which == 0 ? 4096 : 16384,
				       .mw_access_flags = which == 2 ? IBV_ACCESS_REMOTE_READ : IBV_ACCESS_REMOTE_WRITE };
	uint32_t rkey;
	struct ibv_send_wr *bad;
	if (which == 2) { /* type 1: ibv_bind_mw */
		struct ibv_mw_bind b = { .wr_id = 100, .send_flags = IBV_SEND_SIGNALED, .bind_info = bi };
		if (ibv_bind_mw(peer, mw, &b))
			return 1;
		rkey = mw->rkey;
	} else { /* type 2: a BIND_MW WR with the window's next rkey */
		struct ibv_send_wr w = { .wr_id = 100, .opcode = IBV_WR_BIND_MW, .send_flags = IBV_SEND_SIGNALED };
		w.bind_mw.mw = mw;
		w.bind_mw.rkey = rkey = ibv_inc_rkey(mw->rkey);
		w.bind_mw.bind_info = bi;
		if (ibv_post_send(peer, &w, &bad))
			return 1;
	}
	uint64_t id;
	int st = next_status(cq, &id);
	if (st != IBV_WC_SUCCESS || id != 100) {
		fprintf(stderr, "verbs_prog mw %d: the bind completed with %d\n", which, st);
		return 1;
	}
	if (which == 1) {
		struct ibv_send_wr w = { .wr_id = 101, .opcode = IBV_WR_LOCAL_INV, .send_flags = IBV_SEND_SIGNALED,
					 .invalidate_rkey = rkey };
		if (ibv_post_send(peer, &w, &bad) || next_status(cq, &id) != IBV_WC_SUCCESS)
			return 1;
	}
	/* case 0: a WRITE of 1024 bytes (success), then a READ of them (refused);
	 * the others: a WRITE of 8192 bytes (refused) */
	for (int k = which == 0 ? 0 : 1; k < 2; k++) {
		struct ibv_sge s = { .addr = (uintptr_t)src[which], .length = which == 0 ? 1024 : 8192, .lkey = smr->lkey };
		struct ibv_send_wr w = { .wr_id = 200 + (uint64_t)k, .sg_list = &s, .num_sge = 1,
					 .opcode = which == 0 && k ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE,
					 .send_flags = IBV_SEND_SIGNALED };
		w.wr.rdma.remote_addr = (uintptr_t)buf[which];
		w.wr.rdma.rkey = rkey;
		if (ibv_post_send(qp, &w, &bad))
			return 1;
		st = next_status(cq, &id);
		int want = k ? IBV_WC_REM_ACCESS_ERR : IBV_WC_SUCCESS;
		if (st != want) {
			fprintf(stderr, "verbs_prog mw %d: request %d completed with %d, not %d\n", which, k, st, want);
			return 1;
		}
	}
	printf("verbs_prog mw %d: rkey 0x%x as expected\n", which, rkey);
	return 0;
}
#endif

static struct ibv_context *shared_ctx;

static void *thread_main(void *arg)
{
	return (void *)(intptr_t)run_pair(shared_ctx, (int)(intptr_t)arg, 0);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "basic";
	int rc = 0;
	if (!strcmp(mode, "basic")) {
		rc = basic(0, 0);
	} else if (!strcmp(mode, "extras")) {
		extras = 1;
		rc = basic(0, 0);
	} else if (!strcmp(mode, "bad-modify")) {
		rc = basic(0, 1);
	} else if (!strcmp(mode, "bad-setup")) {
		rc = basic(0, 2);
	} else if (!strcmp(mode, "threads")) {
		int n = argc > 2 ? atoi(argv[2]) : 4;
		pthread_t th[16];
		if (n < 1 || n > 16 || !(shared_ctx = open_dev()))
			return 2;
		for (int i = 0; i < n; i++)
			pthread_create(&th[i], NULL, thread_main, (void *)(intptr_t)i);
		for (int i = 0; i < n; i++) {
			void *r;
			pthread_join(th[i], &r);
			rc |= (int)(intptr_t)r;
		}
		ibv_close_device(shared_ctx);
	} else if (!strcmp(mode, "fork") || !strcmp(mode, "exec")) {
		int exec_child = !strcmp(mode, "exec");
		if (exec_child)
			rc = basic(0, 0);
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			if (exec_child) {
				execl("/proc/self/exe", argv[0], "basic", (char *)NULL);
				_exit(127);
			}
			_exit(basic(1, 0));
		}
		if (!exec_child)
			rc = basic(0, 0);
		int st;
		waitpid(pid, &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			rc = 1;
	} else if (!strcmp(mode, "crash") || !strcmp(mode, "crash-thread")) {
		crash_after_post = strcmp(mode, "crash") ? 2 : 1;
		rc = basic(0, 0);
	} else if (!strcmp(mode, "cq-overrun")) {
		rc = cq_overrun();
#ifndef VERBS_PROG_FAKE
	} else if (!strcmp(mode, "mw")) {
		struct ibv_context *ctx = open_dev();
		for (int which = 0; which < 3 && ctx; which++)
			rc |= mw_case(ctx, which);
		rc |= !ctx;
#endif
	} else if (!strcmp(mode, "giveup") || !strcmp(mode, "giveup-stderr")) {
		/* a device, a PD and a CQ, then a return of 1 from main (not through
		 * exit()), as a program whose next step failed untraced does;
		 * giveup-stderr says why on stderr, and its stdout (buffered in a
		 * pipe) comes after */
		struct ibv_context *ctx = open_dev();
		struct ibv_pd *pd = ctx ? ibv_alloc_pd(ctx) : NULL;
		struct ibv_cq *cq = ctx ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
		printf("verbs_prog giveup: %s, returning 1\n", pd && cq ? "set up" : "FAILED");
		if (strcmp(mode, "giveup")) {
			fprintf(stderr, "verbs_prog giveup: cannot go on (\"no peer\")\n");
			fprintf(stderr, "verbs_prog giveup: stopping\n");
		}
		return 1;
	} else if (!strcmp(mode, "wait")) {
		rc = basic(0, 0);
		printf("ready\n");
		fflush(stdout);
		while (getchar() != EOF)
			;
	} else if (!strcmp(mode, "hang")) {
		rc = basic(0, 0);
		printf("ready\n");
		fflush(stdout);
		for (;;)
			pause();
	} else {
		fprintf(stderr, "verbs_prog: unknown mode %s\n", mode);
		return 2;
	}
	printf("verbs_prog %s: %s\n", mode, rc ? "FAILED" : "ok");
	return rc;
}
#endif

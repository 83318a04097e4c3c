/*
 * uroce transport tests, both endpoints in this process (two contexts, two
 * progress threads, real UDP on loopback): byte-exact data for every opcode
 * and the sizes 0, 1, MTU-1, MTU, MTU+1 and 1 MiB with 0%, 1% and 10%
 * random loss (fixed seeds), atomics, UC and UD, RNR (late receiver and
 * rnr_retry exhausted), a vanished peer, a bad rkey with flushes, QP state
 * machine validation and completion channels.
 */
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "testlib.h"
/* T_ONLY=name runs one test (debugging). */
#undef RUN
#define RUN(fn)                                                                                   \
	do {                                                                                      \
		if (getenv("T_ONLY") && strcmp(getenv("T_ONLY"), #fn))                            \
			break;                                                                    \
		testlib_case_failed = 0;                                                          \
		testlib_skip_reason = NULL;                                                       \
		fflush(stdout);                                                                   \
		fn();                                                                             \
		testlib_num++;                                                                    \
		if (testlib_case_failed) {                                                        \
			printf("not ok %d - %s\n", testlib_num, #fn);                             \
			testlib_failed_tests++;                                                   \
		} else                                                                            \
			printf("ok %d - %s\n", testlib_num, #fn);                                 \
	} while (0)
#include "uroce_test.h"
#include "uroce.h" /* all_acked() reads a QP's send state */

#define MIB (1u << 20)
#define BUF (3 * MIB)
#define MTU 1024

static const struct ut_params default_params = { IBV_MTU_1024, 12, 7, 7, 1, 0x123456, 0xFFFFF0 };

static void set_loss(const char *rule, const char *seed)
{
	if (rule)
		setenv("UROCE_FAULTS", rule, 1);
	else
		unsetenv("UROCE_FAULTS");
	setenv("UROCE_SEED", seed, 1);
}

static int post_send_flags(struct ut_end *e, enum ibv_wr_opcode op, uint64_t wr_id, size_t off, uint32_t len,
                           uint64_t raddr, uint32_t rkey, unsigned send_flags)
{
	struct ibv_sge s = { (uint64_t)(uintptr_t)(e->buf + off), len, e->mr->lkey };
	struct ibv_send_wr wr, *bad;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.opcode = op;
	wr.sg_list = &s;
	wr.num_sge = 1;
	wr.send_flags = send_flags;
	wr.imm_data = htonl(0xC0DE0000u | (uint32_t)wr_id);
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return ibv_post_send(e->qp, &wr, &bad);
}

/* A signaled WR (every test but the lazy-ACK one waits for its completion). */
static int post_send(struct ut_end *e, enum ibv_wr_opcode op, uint64_t wr_id, size_t off, uint32_t len,
                     uint64_t raddr, uint32_t rkey, unsigned flags)
{
	return post_send_flags(e, op, wr_id, off, len, raddr, rkey, IBV_SEND_SIGNALED | flags);
}

/* One message of op and len from a to b, checked byte for byte. Returns true when all is right. */
static bool one_transfer(struct ut_end *a, struct ut_end *b, enum ibv_wr_opcode op, uint32_t len, uint32_t seed)
{
	/* a's source at [0, MIB+..), b's target at [MIB+64, ...) */
	size_t src_off = 0, dst_off = MIB + 64;
	bool read = op == IBV_WR_RDMA_READ;
	struct ut_end *data_src = read ? b : a, *data_dst = read ? a : b;
	ut_order_after_engine(data_src);
	ut_fill(data_src->buf + (read ? dst_off : src_off), len, seed);
	memset(data_dst->buf + (read ? src_off : dst_off), 0xEE, len + 16);
	bool recv = op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM || op == IBV_WR_RDMA_WRITE_WITH_IMM;
	if (recv && ut_post_recv(b, 77, dst_off, op == IBV_WR_RDMA_WRITE_WITH_IMM ? 0 : len + 16))
		return false;
	uint64_t raddr = (uint64_t)(uintptr_t)(b->buf + dst_off);
	if (post_send(a, op, seed, src_off, len, raddr, b->mr->rkey, 0))
		return false;
	struct ibv_wc wc[2];
	int ngot = ut_wait(a->cq, wc, 1, 60000);
	if (ngot != 1 || wc[0].status != IBV_WC_SUCCESS || wc[0].wr_id != seed) {
		struct uroce_stats sa, sb;
		uroce_priv_stats(a->ctx, &sa);
		uroce_priv_stats(b->ctx, &sb);
		printf("#   op %d len %u: send completion %s (status %d); a: tx %llu rx %llu retries %llu/%llu/%llu/%llu "
		       "icrc %llu drop %llu; b: tx %llu rx %llu icrc %llu drop %llu rnr %llu\n",
		       op, len, ngot == 1 ? "bad" : "missing", ngot == 1 ? (int)wc[0].status : -1,
		       (unsigned long long)sa.tx_packets, (unsigned long long)sa.rx_packets,
		       (unsigned long long)sa.retry_timeout, (unsigned long long)sa.retry_seq_nak,
		       (unsigned long long)sa.retry_implied, (unsigned long long)sa.retry_rnr,
		       (unsigned long long)sa.icrc_errors, (unsigned long long)sa.rx_dropped,
		       (unsigned long long)sb.tx_packets, (unsigned long long)sb.rx_packets,
		       (unsigned long long)sb.icrc_errors, (unsigned long long)sb.rx_dropped,
		       (unsigned long long)sb.rnr_naks_sent);
		return false;
	}
	if (recv) {
		if (ut_wait(b->cq, wc + 1, 1, 10000) != 1 || wc[1].status != IBV_WC_SUCCESS || wc[1].wr_id != 77 ||
		    wc[1].byte_len != len) {
			printf("#   op %d len %u: receive completion missing or bad\n", op, len);
			return false;
		}
		bool imm = op != IBV_WR_SEND;
		if (imm != !!(wc[1].wc_flags & IBV_WC_WITH_IMM) ||
		    (imm && wc[1].imm_data != htonl(0xC0DE0000u | seed)))
			return false;
		if (wc[1].opcode != (op == IBV_WR_RDMA_WRITE_WITH_IMM ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV))
			return false;
	}
	const uint8_t *want = data_src->buf + (read ? dst_off : src_off);
	const uint8_t *got = data_dst->buf + (read ? src_off : dst_off);
	if (memcmp(want, got, len)) {
		printf("#   op %d len %u: data differs\n", op, len);
		return false;
	}
	for (int i = 0; i < 16; i++)
		if (got[len + (uint32_t)i] != 0xEE) {
			printf("#   op %d len %u: wrote past the end\n", op, len);
			return false;
		}
	return true;
}

static bool atomics(struct ut_end *a, struct ut_end *b, int rounds)
{
	uint64_t *target = (uint64_t *)(void *)(b->buf + 2 * MIB);
	uint64_t *result = (uint64_t *)(void *)(a->buf + 2 * MIB);
	ut_order_after_engine(b);
	*target = 100;
	for (int i = 0; i < rounds; i++) {
		struct ibv_sge s = { (uint64_t)(uintptr_t)result, 8, a->mr->lkey };
		struct ibv_send_wr wr, *bad;
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 1000 + (uint64_t)i;
		wr.sg_list = &s;
		wr.num_sge = 1;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.atomic.remote_addr = (uint64_t)(uintptr_t)target;
		wr.wr.atomic.rkey = b->mr->rkey;
		uint64_t before = *target;
		if (i % 2) {
			wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
			wr.wr.atomic.compare_add = before;
			wr.wr.atomic.swap = before * 3;
		} else {
			wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
			wr.wr.atomic.compare_add = 7;
		}
		if (ibv_post_send(a->qp, &wr, &bad))
			return false;
		struct ibv_wc wc;
		if (ut_wait(a->cq, &wc, 1, 30000) != 1 || wc.status != IBV_WC_SUCCESS || *result != before)
			return false;
		uint64_t want = i % 2 ? before * 3 : before + 7;
		if (*target != want)
			return false;
	}
	/* a failing compare leaves the target alone and returns it */
	return true;
}

static void integrity(const char *loss, const char *seed, bool big)
{
	/* a 17 ms ACK timeout: on a loaded 2-core machine the peer's progress
	   thread can be off the CPU for tens of milliseconds */
	struct ut_params p = default_params;
	p.timeout = 12;
	set_loss(loss, seed);
	struct ut_end a, b;
	if (ut_open(&a, BUF, IBV_QPT_RC, 64) || ut_open(&b, BUF, IBV_QPT_RC, 64)) {
		CHECK(!"open");
		return;
	}
	CHECK(ut_connect(&a, &b, &p) == 0);
	static const enum ibv_wr_opcode ops[] = { IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
		                                  IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ };
	const uint32_t sizes[] = { 0, 1, MTU - 1, MTU, MTU + 1, 5 * MTU + 3, MIB };
	uint32_t seedn = 1;
	for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++)
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			if (sizes[s] == MIB && !big)
				continue;
			bool ok = one_transfer(&a, &b, ops[o], sizes[s], seedn++);
			if (!ok)
				printf("#   failed: opcode %d size %u loss %s\n", ops[o], sizes[s], loss ? loss : "none");
			CHECK(ok);
		}
	CHECK(atomics(&a, &b, 6));
	struct uroce_stats st;
	uroce_priv_stats(a.ctx, &st);
	printf("#   loss %s: a tx %llu (errors %llu) rx %llu dropped %llu retries: timeout %llu seq %llu implied %llu\n",
	       loss ? loss : "none", (unsigned long long)st.tx_packets, (unsigned long long)st.tx_errors,
	       (unsigned long long)st.rx_packets,
	       (unsigned long long)st.tx_fault_drops, (unsigned long long)st.retry_timeout,
	       (unsigned long long)st.retry_seq_nak, (unsigned long long)st.retry_implied);
	struct uroce_stats sb;
	uroce_priv_stats(b.ctx, &sb);
	printf("#   b: rx %llu icrc errors %llu rx dropped %llu, a: icrc errors %llu rx dropped %llu\n",
	       (unsigned long long)sb.rx_packets, (unsigned long long)sb.icrc_errors,
	       (unsigned long long)sb.rx_dropped, (unsigned long long)st.icrc_errors, (unsigned long long)st.rx_dropped);
	CHECK(sb.icrc_errors == 0);
	if (loss)
		CHECK(st.tx_fault_drops > 0);
	CHECK(st.icrc_errors == 0);
	ut_close(&a);
	ut_close(&b);
	set_loss(NULL, "1");
}

static void test_integrity_no_loss(void)
{
	integrity(NULL, "1", true);
}

static void test_integrity_loss_1pct(void)
{
	integrity("drop:prob=0.01,dir=any", "11", true);
}

static void test_integrity_loss_10pct(void)
{
	integrity("drop:prob=0.10,dir=any", "23", true);
}

/* Multi-packet RDMA READs (64 KiB over MTU 1024: 64 responses each), several
   outstanding at once (more than max_rd_atomic), with loss on the requests and
   the responses; every byte checked, and the retries must stay bounded (a READ
   whose responses are lost must be re-requested from the first missing one, not
   retried forever). */
static void multi_read(const char *loss, const char *seed, uint64_t max_factor)
{
	set_loss(loss, seed);
	struct ut_end a, b;
	if (ut_open(&a, 4 * MIB, IBV_QPT_RC, 64) || ut_open(&b, 4 * MIB, IBV_QPT_RC, 64)) {
		CHECK(!"open");
		set_loss(NULL, "1");
		return;
	}
	CHECK(ut_connect(&a, &b, &default_params) == 0);
	enum { LEN = 64 * 1024, NREAD = 16, ROUNDS = 3 }; /* ROUNDS MiB + 16 bytes fit in 4 MiB */
	bool all_ok = true;
	uint64_t t0 = ut_now_ms();
	for (int round = 0; round < ROUNDS && all_ok; round++) {
		/* a fresh MiB each round: the responder may still be resending stale
		   responses of the previous round when it completes */
		size_t base = (size_t)round * MIB;
		ut_fill(b.buf + base, (size_t)LEN * NREAD, 900 + (uint32_t)round);
		memset(a.buf + base, 0xEE, (size_t)LEN * NREAD + 16);
		for (int i = 0; i < NREAD; i++)
			if (post_send(&a, IBV_WR_RDMA_READ, (uint64_t)i, base + (size_t)i * LEN, LEN,
			              (uint64_t)(uintptr_t)(b.buf + base + (size_t)i * LEN), b.mr->rkey, 0)) {
				all_ok = false;
				break;
			}
		struct ibv_wc wc[NREAD];
		int got = all_ok ? ut_wait(a.cq, wc, NREAD, 60000) : 0;
		if (got != NREAD) {
			printf("#   round %d: %d of %d READ completions\n", round, got, NREAD);
			all_ok = false;
			break;
		}
		for (int i = 0; i < NREAD; i++)
			if (wc[i].status != IBV_WC_SUCCESS || wc[i].wr_id != (uint64_t)i) {
				printf("#   round %d: completion %d: status %s wr_id %llu\n", round, i,
				       ibv_wc_status_str(wc[i].status), (unsigned long long)wc[i].wr_id);
				all_ok = false;
			}
		if (memcmp(a.buf + base, b.buf + base, (size_t)LEN * NREAD)) {
			printf("#   round %d: READ data differs\n", round);
			all_ok = false;
		}
		for (int i = 0; i < 16; i++)
			if (a.buf[base + (size_t)LEN * NREAD + (size_t)i] != 0xEE)
				all_ok = false;
	}
	CHECK(all_ok);
	struct uroce_stats sa, sb;
	uroce_priv_stats(a.ctx, &sa);
	uroce_priv_stats(b.ctx, &sb);
	uint64_t retries = sa.retry_timeout + sa.retry_seq_nak + sa.retry_implied;
	uint64_t drops = sa.tx_fault_drops + sb.tx_fault_drops + sa.rx_fault_drops + sb.rx_fault_drops;
	printf("#   loss %s: %llu ms, a tx %llu rx %llu, b tx %llu, drops %llu, retries: timeout %llu seq %llu implied %llu\n",
	       loss ? loss : "none", (unsigned long long)(ut_now_ms() - t0), (unsigned long long)sa.tx_packets,
	       (unsigned long long)sa.rx_packets, (unsigned long long)sb.tx_packets, (unsigned long long)drops,
	       (unsigned long long)sa.retry_timeout, (unsigned long long)sa.retry_seq_nak,
	       (unsigned long long)sa.retry_implied);
	if (loss)
		CHECK(drops > 0 && retries > 0);
	else
		CHECK(retries == 0 && drops == 0);
	/* a retry re-requests what is missing: each lost packet costs at most a few retries */
	CHECK(retries <= 4 * drops + 4);
	/* Go-Back-N resends what was in flight behind a loss (up to max_rd_atomic
	   READs of 64 responses), nothing more: the responses sent stay within a
	   bounded multiple of the data (measured: 1x, ~3x at 1%, ~30x at 10%) */
	uint64_t need = (uint64_t)ROUNDS * NREAD * (LEN / MTU);
	CHECK(sb.tx_packets >= need && sb.tx_packets <= need * max_factor);
	CHECK(sa.icrc_errors == 0 && sb.icrc_errors == 0);
	ut_close(&a);
	ut_close(&b);
	set_loss(NULL, "1");
}

static void test_multi_packet_read_no_loss(void)
{
	multi_read(NULL, "1", 1);
}

static void test_multi_packet_read_loss_1pct(void)
{
	multi_read("drop:prob=0.01,dir=any", "31", 16);
}

static void test_multi_packet_read_loss_10pct(void)
{
	multi_read("drop:prob=0.10,dir=any", "37", 64);
}

/* SENDs right behind multi-packet READs: the responder must not acknowledge a
   SEND before it has sent the responses of the READ ahead of it (the
   requester would take that ACK for lost responses and retry the READ). */
static void test_read_then_send(void)
{
	struct ut_end a, b;
	if (ut_open(&a, 2 * MIB, IBV_QPT_RC, 64) || ut_open(&b, 2 * MIB, IBV_QPT_RC, 64)) {
		CHECK(!"open");
		return;
	}
	CHECK(ut_connect(&a, &b, &default_params) == 0);
	enum { LEN = 64 * 1024, PAIRS = 8 };
	ut_fill(b.buf, (size_t)LEN * PAIRS, 4242);
	for (int i = 0; i < PAIRS; i++) {
		CHECK(ut_post_recv(&b, (uint64_t)i, MIB + (size_t)i * 4096, 4096) == 0);
		CHECK(post_send(&a, IBV_WR_RDMA_READ, (uint64_t)(2 * i), (size_t)i * LEN, LEN,
		                (uint64_t)(uintptr_t)(b.buf + (size_t)i * LEN), b.mr->rkey, 0) == 0);
		CHECK(post_send(&a, IBV_WR_SEND, (uint64_t)(2 * i + 1), MIB, 100, 0, 0, 0) == 0);
	}
	struct ibv_wc wc[2 * PAIRS];
	int got = ut_wait(a.cq, wc, 2 * PAIRS, 20000);
	CHECK_EQ_U(got, 2 * PAIRS);
	for (int i = 0; i < got; i++)
		CHECK(wc[i].status == IBV_WC_SUCCESS && wc[i].wr_id == (uint64_t)i);
	CHECK(memcmp(a.buf, b.buf, (size_t)LEN * PAIRS) == 0);
	CHECK_EQ_U(ut_wait(b.cq, wc, PAIRS, 5000), PAIRS);
	struct uroce_stats sa;
	CHECK(uroce_priv_stats(a.ctx, &sa) == 0);
	printf("#   %d READ + SEND pairs: retries timeout %llu seq %llu implied %llu\n", PAIRS,
	       (unsigned long long)sa.retry_timeout, (unsigned long long)sa.retry_seq_nak,
	       (unsigned long long)sa.retry_implied);
	CHECK_EQ_U(sa.retry_timeout + sa.retry_seq_nak + sa.retry_implied, 0);
	ut_close(&a);
	ut_close(&b);
}

static void test_uc_and_ud(void)
{
	struct ut_end a, b;
	if (ut_open(&a, BUF, IBV_QPT_UC, 16) || ut_open(&b, BUF, IBV_QPT_UC, 16)) {
		CHECK(!"open");
		return;
	}
	CHECK(ut_connect(&a, &b, &default_params) == 0);
	const uint32_t sizes[] = { 0, 1, MTU - 1, MTU, MTU + 1, 64 * MTU };
	for (size_t s = 0; s < 6; s++) {
		CHECK(one_transfer(&a, &b, IBV_WR_SEND, sizes[s], 500 + (uint32_t)s));
		CHECK(one_transfer(&a, &b, IBV_WR_RDMA_WRITE_WITH_IMM, sizes[s], 600 + (uint32_t)s));
	}
	ut_close(&a);
	ut_close(&b);

	/* UD: Q_Key, AH, 40-byte GRH area */
	if (ut_open(&a, 65536, IBV_QPT_UD, 16) || ut_open(&b, 65536, IBV_QPT_UD, 16)) {
		CHECK(!"open ud");
		return;
	}
	struct ibv_qp_attr at;
	struct ut_end *e[2] = { &a, &b };
	for (int i = 0; i < 2; i++) {
		memset(&at, 0, sizeof(at));
		at.qp_state = IBV_QPS_INIT;
		at.port_num = 1;
		at.qkey = 0x11111111;
		CHECK(ibv_modify_qp(e[i]->qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY) == 0);
		at.qp_state = IBV_QPS_RTR;
		CHECK(ibv_modify_qp(e[i]->qp, &at, IBV_QP_STATE) == 0);
		at.qp_state = IBV_QPS_RTS;
		at.sq_psn = 5;
		CHECK(ibv_modify_qp(e[i]->qp, &at, IBV_QP_STATE | IBV_QP_SQ_PSN) == 0);
	}
	struct ibv_ah_attr aa;
	memset(&aa, 0, sizeof(aa));
	aa.is_global = 1;
	aa.port_num = 1;
	aa.grh.dgid = b.gid;
	struct ibv_ah *ah = ibv_create_ah(a.pd, &aa);
	CHECK(ah != NULL);
	CHECK(ut_post_recv(&b, 9, 0, 40 + 1000) == 0);
	ut_fill(a.buf + 4096, 1000, 99);
	struct ibv_sge s = { (uint64_t)(uintptr_t)(a.buf + 4096), 1000, a.mr->lkey };
	struct ibv_send_wr wr, *bad;
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_SEND_WITH_IMM;
	wr.imm_data = htonl(42);
	wr.sg_list = &s;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = b.qp->qp_num;
	wr.wr.ud.remote_qkey = 0x11111111;
	CHECK(ibv_post_send(a.qp, &wr, &bad) == 0);
	struct ibv_wc wc;
	CHECK(ut_wait(a.cq, &wc, 1, 5000) == 1 && wc.status == IBV_WC_SUCCESS);
	CHECK(ut_wait(b.cq, &wc, 1, 5000) == 1 && wc.status == IBV_WC_SUCCESS);
	CHECK_EQ_U(wc.byte_len, 1040);
	CHECK(wc.wc_flags & IBV_WC_GRH);
	CHECK(wc.wc_flags & IBV_WC_WITH_IMM);
	CHECK_EQ_U(wc.src_qp, a.qp->qp_num);
	CHECK(memcmp(b.buf + 40, a.buf + 4096, 1000) == 0);
	CHECK(b.buf[20] == 0x45); /* IPv4 header in the second half of the GRH */
	CHECK(memcmp(b.buf + 20 + 12, a.gid.raw + 12, 4) == 0);
	/* a UD QP's messages may be as long as the port's MTU (perftest -c UD
	   sends such): no path MTU of its own limits them */
	struct ibv_port_attr pa;
	CHECK(ibv_query_port(a.ctx, 1, &pa) == 0);
	uint32_t port_mtu = 128u << pa.active_mtu;
	CHECK(ut_post_recv(&b, 11, 0, 40 + port_mtu) == 0);
	s.length = port_mtu;
	wr.wr.ud.remote_qkey = 0x11111111;
	CHECK(ibv_post_send(a.qp, &wr, &bad) == 0);
	CHECK(ut_wait(a.cq, &wc, 1, 5000) == 1 && wc.status == IBV_WC_SUCCESS);
	CHECK(ut_wait(b.cq, &wc, 1, 5000) == 1 && wc.status == IBV_WC_SUCCESS && wc.byte_len == 40 + port_mtu);
	s.length = 1000;
	/* a wrong Q_Key is dropped */
	CHECK(ut_post_recv(&b, 10, 0, 40 + 1000) == 0);
	wr.wr.ud.remote_qkey = 0x22222222;
	CHECK(ibv_post_send(a.qp, &wr, &bad) == 0);
	CHECK(ut_wait(a.cq, &wc, 1, 5000) == 1);
	CHECK(ut_wait(b.cq, &wc, 1, 200) == 0);
	/* ibv_create_ah_from_wc answers the sender */
	ibv_destroy_ah(ah);
	ut_close(&a);
	ut_close(&b);
}

/* Two RC endpoints of 64 KiB, 16 WRs each; false (a failed check) when either cannot be opened. */
static bool open_rc_pair(struct ut_end *a, struct ut_end *b)
{
	if (ut_open(a, 65536, IBV_QPT_RC, 16) || ut_open(b, 65536, IBV_QPT_RC, 16)) {
		CHECK(!"open");
		return false;
	}
	return true;
}

static void test_rnr_late_receiver(void)
{
	struct ut_end a, b;
	if (!open_rc_pair(&a, &b))
		return;
	struct ut_params p = default_params;
	p.rnr_retry = 7;
	p.min_rnr_timer = 12; /* 0.64 ms */
	CHECK(ut_connect(&a, &b, &p) == 0);
	ut_fill(a.buf, 3000, 5);
	CHECK(post_send(&a, IBV_WR_SEND, 1, 0, 3000, 0, 0, 0) == 0);
	usleep(30000);
	CHECK(ut_post_recv(&b, 2, 8192, 4096) == 0);
	struct ibv_wc wc;
	CHECK(ut_wait(a.cq, &wc, 1, 5000) == 1 && wc.status == IBV_WC_SUCCESS);
	CHECK(ut_wait(b.cq, &wc, 1, 5000) == 1 && wc.status == IBV_WC_SUCCESS && wc.byte_len == 3000);
	CHECK(memcmp(a.buf, b.buf + 8192, 3000) == 0);
	struct uroce_stats sa, sb;
	uroce_priv_stats(a.ctx, &sa);
	uroce_priv_stats(b.ctx, &sb);
	printf("#   RNR NAKs sent %llu, received %llu, RNR retries %llu\n", (unsigned long long)sb.rnr_naks_sent,
	       (unsigned long long)sa.rnr_naks_rcvd, (unsigned long long)sa.retry_rnr);
	CHECK(sb.rnr_naks_sent >= 1); /* one per 0.64 ms while nothing is posted; load can stretch it */
	CHECK(sa.rnr_naks_rcvd >= 1 && sa.rnr_naks_rcvd <= sb.rnr_naks_sent); /* a NAK for a stale retransmission is ignored */
	CHECK(sa.retry_rnr == sa.rnr_naks_rcvd);
	ut_close(&a);
	ut_close(&b);
}

static void test_rnr_retry_exhausted(void)
{
	struct ut_end a, b;
	if (!open_rc_pair(&a, &b))
		return;
	struct ut_params p = default_params;
	p.rnr_retry = 3;
	p.min_rnr_timer = 1;
	CHECK(ut_connect(&a, &b, &p) == 0);
	CHECK(post_send(&a, IBV_WR_SEND, 1, 0, 100, 0, 0, 0) == 0);
	CHECK(post_send(&a, IBV_WR_RDMA_WRITE, 2, 0, 100, (uint64_t)(uintptr_t)b.buf, b.mr->rkey, 0) == 0);
	struct ibv_wc wc[2];
	CHECK(ut_wait(a.cq, wc, 2, 5000) == 2);
	CHECK_EQ_U(wc[0].status, IBV_WC_RNR_RETRY_EXC_ERR);
	CHECK_EQ_U(wc[0].wr_id, 1);
	CHECK_EQ_U(wc[1].status, IBV_WC_WR_FLUSH_ERR);
	struct uroce_stats sa;
	uroce_priv_stats(a.ctx, &sa);
	CHECK_EQ_U(sa.rnr_naks_rcvd, 4); /* the first try and 3 retries */
	struct ibv_qp_attr at;
	struct ibv_qp_init_attr ia;
	CHECK(ibv_query_qp(a.qp, &at, IBV_QP_STATE, &ia) == 0 && at.qp_state == IBV_QPS_ERR);
	ut_close(&a);
	ut_close(&b);
}

static void test_vanished_peer(void)
{
	struct ut_end a, b;
	if (!open_rc_pair(&a, &b))
		return;
	struct ut_params p = default_params;
	p.retry_cnt = 3;
	p.timeout = 10; /* 4.2 ms */
	CHECK(ut_connect(&a, &b, &p) == 0);
	ut_close(&b);
	uint64_t t0 = ut_now_ms();
	CHECK(post_send(&a, IBV_WR_RDMA_WRITE, 1, 0, 5000, 0x1000, 0x1234, 0) == 0);
	CHECK(post_send(&a, IBV_WR_SEND, 2, 0, 10, 0, 0, 0) == 0);
	struct ibv_wc wc[2];
	CHECK(ut_wait(a.cq, wc, 2, 5000) == 2);
	uint64_t dt = ut_now_ms() - t0;
	CHECK_EQ_U(wc[0].status, IBV_WC_RETRY_EXC_ERR);
	CHECK_EQ_U(wc[1].status, IBV_WC_WR_FLUSH_ERR);
	struct uroce_stats sa;
	uroce_priv_stats(a.ctx, &sa);
	CHECK_EQ_U(sa.retry_timeout, 3);
	/* 4 timeouts of 4.2 ms each must have passed */
	CHECK(dt >= 16);
	printf("#   RETRY_EXC_ERR after %llu ms, %llu retries\n", (unsigned long long)dt,
	       (unsigned long long)sa.retry_timeout);
	ut_close(&a);
}

static void test_bad_rkey_flushes(void)
{
	struct ut_end a, b;
	if (!open_rc_pair(&a, &b))
		return;
	CHECK(ut_connect(&a, &b, &default_params) == 0);
	uint64_t raddr = (uint64_t)(uintptr_t)b.buf;
	CHECK(post_send(&a, IBV_WR_RDMA_WRITE, 1, 0, 100, raddr, b.mr->rkey, 0) == 0);
	CHECK(post_send(&a, IBV_WR_RDMA_WRITE, 2, 0, 100, raddr, b.mr->rkey ^ 0x100, 0) == 0);
	CHECK(post_send(&a, IBV_WR_RDMA_READ, 3, 0, 100, raddr, b.mr->rkey, 0) == 0);
	CHECK(post_send(&a, IBV_WR_SEND, 4, 0, 100, 0, 0, 0) == 0);
	struct ibv_wc wc[4];
	CHECK(ut_wait(a.cq, wc, 4, 5000) == 4);
	CHECK_EQ_U(wc[0].status, IBV_WC_SUCCESS);
	CHECK_EQ_U(wc[1].status, IBV_WC_REM_ACCESS_ERR);
	CHECK_EQ_U(wc[1].wr_id, 2);
	CHECK_EQ_U(wc[2].status, IBV_WC_WR_FLUSH_ERR);
	CHECK_EQ_U(wc[3].status, IBV_WC_WR_FLUSH_ERR);
	/* out of bounds on a good rkey is an access error too */
	ut_close(&a);
	ut_close(&b);
	if (!open_rc_pair(&a, &b))
		return;
	CHECK(ut_connect(&a, &b, &default_params) == 0);
	CHECK(post_send(&a, IBV_WR_RDMA_READ, 5, 0, 100, (uint64_t)(uintptr_t)b.buf + 65500, b.mr->rkey, 0) == 0);
	CHECK(ut_wait(a.cq, wc, 1, 5000) == 1);
	CHECK_EQ_U(wc[0].status, IBV_WC_REM_ACCESS_ERR);
	ut_close(&a);
	ut_close(&b);
}

static void test_modify_qp_rules(void)
{
	struct ut_end a;
	if (ut_open(&a, 4096, IBV_QPT_RC, 4)) {
		CHECK(!"open");
		return;
	}
	struct ibv_qp_attr at;
	memset(&at, 0, sizeof(at));
	/* RESET -> RTR is not a transition */
	at.qp_state = IBV_QPS_RTR;
	CHECK(ibv_modify_qp(a.qp, &at, IBV_QP_STATE) == EINVAL);
	/* RESET -> INIT without the access flags misses a required attribute */
	at.qp_state = IBV_QPS_INIT;
	at.port_num = 1;
	CHECK(ibv_modify_qp(a.qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT) == EINVAL);
	/* with a Q_Key, which RC does not take */
	CHECK(ibv_modify_qp(a.qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS |
	                                   IBV_QP_QKEY) == EINVAL);
	at.port_num = 2;
	CHECK(ibv_modify_qp(a.qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) ==
	      EINVAL);
	at.port_num = 1;
	CHECK(ibv_modify_qp(a.qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) == 0);
	/* posting a send before RTS fails */
	CHECK(post_send(&a, IBV_WR_SEND, 1, 0, 10, 0, 0, 0) == EINVAL);
	/* INIT -> RTR needs AV, MTU, dest QPN, RQ PSN, responder resources, RNR timer */
	at.qp_state = IBV_QPS_RTR;
	at.path_mtu = IBV_MTU_1024;
	CHECK(ibv_modify_qp(a.qp, &at, IBV_QP_STATE | IBV_QP_PATH_MTU) == EINVAL);
	struct ibv_qp_init_attr ia;
	CHECK(ibv_query_qp(a.qp, &at, IBV_QP_STATE, &ia) == 0);
	CHECK_EQ_U(at.qp_state, IBV_QPS_INIT);
	at.qp_state = IBV_QPS_ERR;
	CHECK(ibv_modify_qp(a.qp, &at, IBV_QP_STATE) == 0);
	at.qp_state = IBV_QPS_RESET;
	CHECK(ibv_modify_qp(a.qp, &at, IBV_QP_STATE) == 0);
	ut_close(&a);
}

/* Give e a new QP whose receive CQ (returned, context cq_ctx) has a completion
   channel (*ch), max_wr deep each way. */
static struct ibv_cq *channel_recv_qp(struct ut_end *e, struct ibv_comp_channel **ch, void *cq_ctx, unsigned max_wr)
{
	*ch = ibv_create_comp_channel(e->ctx);
	struct ibv_cq *cq = ibv_create_cq(e->ctx, (int)max_wr * 2, cq_ctx, *ch, 0);
	CHECK(*ch && cq);
	struct ibv_qp_init_attr qa;
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = e->cq;
	qa.recv_cq = cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = qa.cap.max_recv_wr = max_wr;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
	ibv_destroy_qp(e->qp);
	e->qp = ibv_create_qp(e->pd, &qa);
	CHECK(e->qp != NULL);
	return cq;
}

/* Undo channel_recv_qp: e's QP, the receive CQ and its channel. */
static void close_channel_qp(struct ut_end *e, struct ibv_cq *cq, struct ibv_comp_channel *ch)
{
	ibv_destroy_qp(e->qp);
	e->qp = NULL;
	CHECK(ibv_destroy_cq(cq) == 0);
	CHECK(ibv_destroy_comp_channel(ch) == 0);
}

static void test_completion_channel(void)
{
	struct ut_end a, b;
	if (!open_rc_pair(&a, &b))
		return;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq = channel_recv_qp(&b, &ch, (void *)0x5EED, 4);
	CHECK(ut_connect(&a, &b, &default_params) == 0);
	CHECK(ibv_req_notify_cq(cq, 0) == 0);
	CHECK(ut_post_recv(&b, 1, 0, 100) == 0);
	struct pollfd pfd = { ch->fd, POLLIN, 0 };
	CHECK(poll(&pfd, 1, 0) == 0);
	/* An RDMA WRITE brings b's CQ nothing: b's channel fd stays quiet (as with
	   a kernel provider), though the WRITE's packet reached b's socket.  b's
	   thread polls its CQ just before, so it counts as receiving for itself:
	   that must not leave the WRITE unreceived while it sleeps in poll(). */
	struct ibv_wc awc;
	for (uint64_t end = ut_now_ms() + 20; ut_now_ms() < end;)
		CHECK(ibv_poll_cq(cq, 1, &awc) == 0);
	CHECK(post_send(&a, IBV_WR_RDMA_WRITE, 7, 0, 64, (uint64_t)(uintptr_t)(b.buf + 256), b.mr->rkey, 0) == 0);
	CHECK(poll(&pfd, 1, 300) == 0);
	CHECK(ut_wait(a.cq, &awc, 1, 5000) == 1 && awc.status == IBV_WC_SUCCESS && awc.wr_id == 7);
	CHECK(post_send(&a, IBV_WR_SEND, 1, 0, 100, 0, 0, 0) == 0);
	CHECK(poll(&pfd, 1, 5000) == 1);
	struct ibv_cq *ev_cq = NULL;
	void *ev_ctx = NULL;
	CHECK(ibv_get_cq_event(ch, &ev_cq, &ev_ctx) == 0);
	CHECK(ev_cq == cq && ev_ctx == (void *)0x5EED);
	ibv_ack_cq_events(cq, 1);
	struct ibv_wc wc;
	CHECK(ibv_poll_cq(cq, 1, &wc) == 1 && wc.status == IBV_WC_SUCCESS);
	close_channel_qp(&b, cq, ch);
	ut_close(&a);
	ut_close(&b);
}

struct busy_poller {
	struct ibv_cq *cq;
	int want, got;
};

/* Poll cq without pause until want successful completions or 2 s. */
static void *busy_poll(void *arg)
{
	struct busy_poller *bp = arg;
	uint64_t end = ut_now_ms() + 2000;
	while (bp->got < bp->want && ut_now_ms() < end) {
		struct ibv_wc wc;
		if (ibv_poll_cq(bp->cq, 1, &wc) == 1 && wc.status == IBV_WC_SUCCESS)
			bp->got++;
	}
	return NULL;
}

/* Receive on b through its completion channel (an application thread receives
   for itself), then let b go quiet: what b received must still be acknowledged
   promptly (held ACKs have a bound), and a later RDMA WRITE to b, which no
   application thread receives any more, must still be taken in (a parked
   progress thread takes over).  A 268 ms ACK timeout tells a lost ACK apart. */
static void test_quiet_receiver(void)
{
	struct ut_end a, b;
	if (!open_rc_pair(&a, &b))
		return;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq = channel_recv_qp(&b, &ch, NULL, 32);
	struct ut_params p = default_params;
	p.timeout = 16;
	CHECK(ut_connect(&a, &b, &p) == 0);
	struct ibv_wc wc;
	struct uroce_stats sa, sb = {0};
	/* 20 rounds, and more (up to 200) until b's application thread, not its progress thread,
	   has received one of the SENDs and held its ACK back: which of the two receives is up to
	   scheduling, and on a loaded machine the progress thread took all of 20 now and then */
	for (int round = 0; round < 200 && (round < 20 || !sb.acks_held); round++) {
		CHECK(ut_post_recv(&b, (uint64_t)round, 0, 64) == 0);
		CHECK(ibv_req_notify_cq(cq, 0) == 0);
		CHECK(post_send(&a, IBV_WR_SEND, 100 + (uint64_t)round, 128, 8, 0, 0, IBV_SEND_SIGNALED) == 0);
		uint64_t t0 = ut_now_ms();
		struct ibv_cq *ev_cq;
		void *ev_ctx;
		CHECK(ibv_get_cq_event(ch, &ev_cq, &ev_ctx) == 0);
		ibv_ack_cq_events(ev_cq, 1);
		CHECK(ibv_poll_cq(cq, 1, &wc) == 1 && wc.status == IBV_WC_SUCCESS);
		/* b now calls nothing: a's completion needs b's ACK all the same */
		CHECK(ut_wait(a.cq, &wc, 1, 2000) == 1 && wc.status == IBV_WC_SUCCESS);
		uint64_t ms = ut_now_ms() - t0;
		if (ms > 100)
			printf("#   round %d: send completed after %llu ms\n", round, (unsigned long long)ms);
		CHECK(ms <= 100);
		CHECK(uroce_priv_stats(b.ctx, &sb) == 0);
	}
	CHECK(uroce_priv_stats(a.ctx, &sa) == 0 && uroce_priv_stats(b.ctx, &sb) == 0);
	CHECK(sb.acks_held > 0);
	CHECK_EQ_U(sa.retry_timeout, 0);
	/* a thread of b busy-polls while a sends (b's progress thread parks), then stops */
	for (int round = 0; round < 20; round++)
		CHECK(ut_post_recv(&b, (uint64_t)round, 0, 64) == 0);
	struct busy_poller bp = { cq, 20, 0 };
	pthread_t th;
	CHECK(pthread_create(&th, NULL, busy_poll, &bp) == 0);
	for (int round = 0; round < 20; round++) {
		CHECK(post_send(&a, IBV_WR_SEND, 200 + (uint64_t)round, 128, 8, 0, 0, IBV_SEND_SIGNALED) == 0);
		CHECK(ut_wait(a.cq, &wc, 1, 2000) == 1 && wc.status == IBV_WC_SUCCESS);
	}
	pthread_join(th, NULL);
	CHECK_EQ_U(bp.got, 20);
	ut_fill(a.buf + 4096, 4096, 77);
	uint64_t t0 = ut_now_ms();
	CHECK(post_send(&a, IBV_WR_RDMA_WRITE, 300, 4096, 4096, (uint64_t)(uintptr_t)b.buf + 8192, b.mr->rkey,
	                IBV_SEND_SIGNALED) == 0);
	CHECK(ut_wait(a.cq, &wc, 1, 2000) == 1 && wc.status == IBV_WC_SUCCESS);
	uint64_t ms = ut_now_ms() - t0;
	CHECK(uroce_priv_stats(b.ctx, &sb) == 0);
	printf("#   WRITE to a quiet receiver completed after %llu ms (b: %llu ACK holds, %llu parks)\n",
	       (unsigned long long)ms, (unsigned long long)sb.acks_held, (unsigned long long)sb.progress_parks);
	CHECK(ms <= 100);
	/* whether b's progress thread parked depends on scheduling (a poller
	   preempted for 0.2 ms no longer counts as receiving): reported, not required */
	if (!sb.progress_parks && !getenv("UROCE_NO_PARK"))
		printf("#   note: b's progress thread did not park in this run\n");
	CHECK(memcmp(a.buf + 4096, b.buf + 8192, 4096) == 0);
	CHECK(uroce_priv_stats(a.ctx, &sa) == 0);
	CHECK_EQ_U(sa.retry_timeout, 0);
	close_channel_qp(&b, cq, ch);
	ut_close(&a);
	ut_close(&b);
}

/* Is every PSN a has sent acknowledged? */
static bool all_acked(struct ut_end *a)
{
	struct uroce_qp *q = UROCE_CONTAINER(a->qp, struct uroce_qp, ibqp);
	pthread_mutex_lock(&q->ctx->lock);
	bool done = q->una == q->sq_psn;
	pthread_mutex_unlock(&q->ctx->lock);
	return done;
}

/*
 * Unsignaled messages go without AckReq (see ack_wanted_now in transport.c):
 * the responder acknowledges them lazily, within about a millisecond, and the
 * requester never times out for it.  With loss the same stream still arrives
 * byte for byte (a lost last message is resent on the ACK timeout, with
 * AckReq); a short ACK timeout or UROCE_LAZY_ACK=0 asks for every ACK.
 */
static void lazy_stream(const char *loss, const char *lazy_env, uint8_t timeout, unsigned msgs,
                        uint64_t *lazy_sent, uint64_t *timeouts)
{
	set_loss(loss, "31");
	if (lazy_env)
		setenv("UROCE_LAZY_ACK", lazy_env, 1);
	struct ut_end a, b;
	bool opened = open_rc_pair(&a, &b);
	unsetenv("UROCE_LAZY_ACK");
	if (!opened)
		return;
	struct ut_params p = default_params;
	p.timeout = timeout;
	CHECK(ut_connect(&a, &b, &p) == 0);
	struct ibv_wc wc[16];
	unsigned got = 0, bad = 0;
	const uint32_t len = 2500; /* three packets at MTU 1024 */
	for (unsigned m = 0; m < msgs; m++) {
		/* message m: a's [slot * 4 KiB, +len) to b's [32 KiB + slot * 4 KiB, +len) */
		size_t slot = (size_t)(m % 4) * 4096;
		CHECK(ut_post_recv(&b, m, 32768 + slot, 4096) == 0);
		ut_fill(a.buf + slot, len, 900 + m);
		CHECK(post_send_flags(&a, IBV_WR_SEND, m, slot, len, 0, 0, 0) == 0);
		if (m % 4 != 3 && m + 1 != msgs)
			continue;
		/* four at a time: fewer than half of a's 16 send slots in use, so the lazy rule applies */
		int want = (int)(m % 4) + 1, n = ut_wait(b.cq, wc, want, 5000);
		CHECK_EQ_U(n, want);
		for (int k = 0; k < n; k++)
			CHECK(wc[k].status == IBV_WC_SUCCESS && wc[k].byte_len == len);
		got += (unsigned)n;
		for (unsigned j = m + 1 - (unsigned)want; j <= m; j++)
			if (memcmp(a.buf + (j % 4) * 4096, b.buf + 32768 + (j % 4) * 4096, len))
				bad++;
		uint64_t t0 = ut_now_ms();
		while (!all_acked(&a) && ut_now_ms() - t0 < 3000)
			usleep(200);
		CHECK(all_acked(&a));
	}
	CHECK_EQ_U(got, msgs);
	CHECK_EQ_U(bad, 0);
	/* a signaled SEND still completes at once, and nothing unsignaled completes */
	CHECK(ut_post_recv(&b, 999, 0, 4096) == 0);
	CHECK(post_send(&a, IBV_WR_SEND, 999, 0, 100, 0, 0, 0) == 0);
	CHECK(ut_wait(a.cq, wc, 1, 3000) == 1 && wc[0].wr_id == 999 && wc[0].status == IBV_WC_SUCCESS);
	CHECK(ut_wait(b.cq, wc, 1, 3000) == 1 && wc[0].wr_id == 999);
	struct uroce_stats sa, sb;
	CHECK(uroce_priv_stats(a.ctx, &sa) == 0 && uroce_priv_stats(b.ctx, &sb) == 0);
	printf("#   %u unsignaled SENDs, loss %s, timeout %u%s: %llu lazy ACKs, %llu ACK timeouts, %llu NAK retries\n",
	       msgs, loss ? loss : "none", timeout, lazy_env ? " UROCE_LAZY_ACK=0" : "",
	       (unsigned long long)sb.lazy_acks_sent, (unsigned long long)sa.retry_timeout,
	       (unsigned long long)sa.retry_seq_nak);
	*lazy_sent = sb.lazy_acks_sent;
	*timeouts = sa.retry_timeout;
	ut_close(&a);
	ut_close(&b);
	set_loss(NULL, "1");
}

static void test_lazy_acks(void)
{
	uint64_t lazy, timeouts;
	lazy_stream(NULL, NULL, 12, 40, &lazy, &timeouts); /* 16.8 ms timeout: lazy allowed */
	CHECK(lazy >= 1);
	CHECK_EQ_U(timeouts, 0);
	lazy_stream("drop:prob=0.10,dir=any", NULL, 12, 40, &lazy, &timeouts);
	lazy_stream(NULL, NULL, 10, 12, &lazy, &timeouts); /* 4.2 ms: every message asks */
	CHECK_EQ_U(lazy, 0);
	lazy_stream(NULL, "0", 12, 12, &lazy, &timeouts);
	CHECK_EQ_U(lazy, 0);
}

static void test_fault_rules(void)
{
	/* delay, reorder, duplicate and RNR rules: the data still arrives intact,
	   the duplicates are seen as such and exactly the asked RNR NAKs are sent */
	set_loss("delay:us=3000,nth=2;reorder:every=7;dup:every=5;rnr:count=2", "5");
	struct ut_end a, b;
	if (ut_open(&a, BUF, IBV_QPT_RC, 16) || ut_open(&b, BUF, IBV_QPT_RC, 16)) {
		CHECK(!"open");
		set_loss(NULL, "1");
		return;
	}
	set_loss(NULL, "1");
	struct ut_params p = default_params;
	p.min_rnr_timer = 1;
	CHECK(ut_connect(&a, &b, &p) == 0);
	for (uint32_t i = 0; i < 6; i++) {
		CHECK(one_transfer(&a, &b, IBV_WR_SEND, 3000 + i * 1000, 900 + i));
		CHECK(one_transfer(&a, &b, IBV_WR_RDMA_WRITE, 40000 + i, 910 + i));
		CHECK(one_transfer(&a, &b, IBV_WR_RDMA_READ, 20000 + i, 920 + i));
	}
	struct uroce_stats sb;
	uroce_priv_stats(b.ctx, &sb);
	printf("#   b: RNR NAKs sent %llu, duplicates %llu\n", (unsigned long long)sb.rnr_naks_sent,
	       (unsigned long long)sb.duplicates_rcvd);
	CHECK_EQ_U(sb.rnr_naks_sent, 2);
	CHECK(sb.duplicates_rcvd > 0);
	ut_close(&a);
	ut_close(&b);
}

/* resend=1 rules act on retransmissions only, resend=0 on first
 * transmissions only: a's engine drops nothing while nothing is lost, then
 * its third first transmission and the first two resends. */
static void resend_rule_run(const char *rule, unsigned want_drops)
{
	set_loss(rule, "5");
	struct ut_end a, b;
	int ra = ut_open(&a, BUF, IBV_QPT_RC, 16);
	set_loss(NULL, "1");
	if (ra || ut_open(&b, BUF, IBV_QPT_RC, 16)) {
		CHECK(!"open");
		if (!ra)
			ut_close(&a);
		return;
	}
	CHECK(ut_connect(&a, &b, &default_params) == 0);
	for (uint32_t i = 0; i < 4; i++)
		CHECK(one_transfer(&a, &b, IBV_WR_RDMA_WRITE, 20000 + i, 930 + i));
	struct uroce_stats sa;
	uroce_priv_stats(a.ctx, &sa);
	printf("#   %s: a dropped %llu\n", rule, (unsigned long long)sa.tx_fault_drops);
	CHECK_EQ_U(sa.tx_fault_drops, want_drops);
	ut_close(&a);
	ut_close(&b);
}

static void test_fault_resend_rules(void)
{
	resend_rule_run("drop:resend=1", 0);
	resend_rule_run("drop:resend=0,nth=3;drop:resend=1,count=2", 3);
	/* a received packet does not say whether it is a resend: refused */
	set_loss("drop:dir=rx,resend=1", "1");
	struct ut_end c;
	int rc = ut_open(&c, BUF, IBV_QPT_RC, 16);
	set_loss(NULL, "1");
	CHECK(rc != 0);
	if (!rc)
		ut_close(&c);
}

static void test_ipv6_one_context(void)
{
	/* two QPs of one context on ::1 talk through the same socket */
	setenv("UROCE_ADDR", "::1", 1);
	struct ut_end a;
	int rc = ut_open(&a, BUF, IBV_QPT_RC, 16);
	unsetenv("UROCE_ADDR");
	if (rc) {
		ut_close(&a);
		SKIP("::1 port 4791 is not free");
	}
	CHECK(a.gid.raw[15] == 1 && a.gid.raw[10] == 0);
	struct ut_end b = a; /* same context, PD, CQ, MR; its own QP */
	struct ibv_qp_init_attr qa;
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = qa.recv_cq = a.cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = qa.cap.max_recv_wr = 16;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 4;
	b.qp = ibv_create_qp(a.pd, &qa);
	CHECK(b.qp != NULL);
	CHECK(ut_connect(&a, &b, &default_params) == 0);
	/* a WRITE of 5 MTUs + 3 lands at offset MIB+64 of the shared buffer */
	CHECK(one_transfer(&a, &b, IBV_WR_RDMA_WRITE, 5 * MTU + 3, 77));
	CHECK(one_transfer(&a, &b, IBV_WR_RDMA_READ, 3 * MTU, 78));
	struct uroce_stats st;
	uroce_priv_stats(a.ctx, &st);
	CHECK(st.icrc_errors == 0 && st.rx_packets > 0);
	ibv_destroy_qp(b.qp);
	ut_close(&a);
}

/* Open a and b pinned to one address of this process (as perftest -R does
   through UROCE_ADDR): b borrows a's socket.  host picks the address. */
static bool open_on_one_address(struct ut_end *a, struct ut_end *b, int host)
{
	char addr[32];
	snprintf(addr, sizeof(addr), "127.%d.%d.%d", 30 + (int)(getpid() % 150), (int)(getpid() % 200),
	         host + (int)(getpid() % 250));
	setenv("UROCE_ADDR", addr, 1);
	int rc = ut_open(a, BUF, IBV_QPT_RC, 16);
	rc = rc ? rc : ut_open(b, BUF, IBV_QPT_RC, 16);
	unsetenv("UROCE_ADDR");
	CHECK(rc == 0);
	return rc == 0;
}

static void test_shared_address(void)
{
	/* two contexts of one process on the same address: the second borrows
	   the first one's socket */
	struct ut_end a, b;
	if (!open_on_one_address(&a, &b, 1))
		return;
	CHECK(!memcmp(a.gid.raw, b.gid.raw, 16));
	CHECK(ut_connect(&a, &b, &default_params) == 0);
	CHECK(one_transfer(&a, &b, IBV_WR_SEND, 5000, 81));
	CHECK(one_transfer(&b, &a, IBV_WR_RDMA_WRITE, 70000, 82));
	CHECK(one_transfer(&a, &b, IBV_WR_RDMA_READ, 9000, 83));
	ut_close(&b);
	ut_close(&a);
}

/* Hold a context's lock from another thread for ms milliseconds, as an
   application thread busy inside the engine would (posting, polling). */
struct lock_holder {
	pthread_mutex_t *lock;
	unsigned ms;
	int locked; /* (atomic) */
};

static void *hold_lock(void *arg)
{
	struct lock_holder *h = arg;
	pthread_mutex_lock(h->lock);
	__atomic_store_n(&h->locked, 1, __ATOMIC_RELEASE);
	usleep(h->ms * 1000u);
	pthread_mutex_unlock(h->lock);
	return NULL;
}

static void test_shared_address_busy(void)
{
	/* two contexts on one address, the borrower's lock held while the owner
	   reads the borrower's packets: each is handed over once the lock comes
	   free, none is dropped for the sender to resend after its ACK timeout */
	struct ut_end a, b;
	if (!open_on_one_address(&a, &b, 2))
		return;
	struct ut_params p = default_params;
	p.timeout = 18; /* 1.07 s: a resend would show in the time taken */
	CHECK(ut_connect(&a, &b, &p) == 0);
	struct uroce_stats before;
	uroce_priv_stats(a.ctx, &before);
	static const enum ibv_wr_opcode ops[] = { IBV_WR_SEND, IBV_WR_RDMA_WRITE, IBV_WR_RDMA_READ };
	const uint32_t len = 3 * MTU;
	for (unsigned i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		bool read = ops[i] == IBV_WR_RDMA_READ;
		uint8_t *from = read ? b.buf + MIB + 64 : a.buf, *to = read ? a.buf : b.buf + MIB + 64;
		ut_fill(from, len, 90 + i);
		memset(to, 0xEE, len);
		if (ops[i] == IBV_WR_SEND) /* before the lock is taken: posting needs it */
			CHECK(ut_post_recv(&b, 77, MIB + 64, len) == 0);
		struct lock_holder h = { &to_uctx(b.ctx)->lock, 60, 0 };
		pthread_t t;
		CHECK(pthread_create(&t, NULL, hold_lock, &h) == 0);
		while (!__atomic_load_n(&h.locked, __ATOMIC_ACQUIRE))
			usleep(100);
		uint64_t t0 = ut_now_ms();
		struct ibv_wc wc;
		CHECK(post_send(&a, ops[i], 90 + i, 0, len, (uint64_t)(uintptr_t)(b.buf + MIB + 64), b.mr->rkey, 0) == 0);
		int got = ut_wait(a.cq, &wc, 1, 5000);
		uint64_t took = ut_now_ms() - t0;
		pthread_join(t, NULL);
		CHECK(got == 1 && wc.status == IBV_WC_SUCCESS);
		if (ops[i] == IBV_WR_SEND)
			CHECK(ut_wait(b.cq, &wc, 1, 5000) == 1 && wc.status == IBV_WC_SUCCESS && wc.byte_len == len);
		CHECK(!memcmp(from, to, len));
		if (took >= 1000)
			printf("#   opcode %d took %llu ms (an ACK timeout)\n", ops[i], (unsigned long long)took);
		CHECK(took < 1000);
	}
	struct uroce_stats after;
	uroce_priv_stats(a.ctx, &after);
	CHECK(after.rx_dropped == before.rx_dropped);
	CHECK(after.retry_timeout == before.retry_timeout);
	ut_close(&b);
	ut_close(&a);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	RUN(test_modify_qp_rules);
	RUN(test_integrity_no_loss);
	RUN(test_integrity_loss_1pct);
	RUN(test_integrity_loss_10pct);
	RUN(test_multi_packet_read_no_loss);
	RUN(test_multi_packet_read_loss_1pct);
	RUN(test_multi_packet_read_loss_10pct);
	RUN(test_uc_and_ud);
	RUN(test_rnr_late_receiver);
	RUN(test_rnr_retry_exhausted);
	RUN(test_vanished_peer);
	RUN(test_bad_rkey_flushes);
	RUN(test_completion_channel);
	RUN(test_quiet_receiver);
	RUN(test_lazy_acks);
	RUN(test_read_then_send);
	RUN(test_fault_rules);
	RUN(test_fault_resend_rules);
	RUN(test_ipv6_one_context);
	RUN(test_shared_address);
	RUN(test_shared_address_busy);
	return test_done();
}

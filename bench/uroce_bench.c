/*
 * uroce benchmark: 1 MiB RDMA WRITE throughput and 8-byte SEND ping-pong
 * latency over uroce on loopback, with TCP loopback throughput and a UDP
 * ping-pong measured the same way for comparison (bench/uroce_bench.sh).
 *
 *     uroce_bench write SECONDS      MB/s of 1 MiB RDMA WRITEs (path MTU 4096)
 *     uroce_bench pingpong ITERS     microseconds per 8-byte SEND round trip (completion channels;
 *                                    unsignaled SENDs, so their ACKs may come lazily)
 *     uroce_bench pingpong-signaled ITERS   the same with every SEND signaled (its ACK is wanted
 *                                    at once and its completion is polled, as in ib_send_lat)
 *     uroce_bench tcp SECONDS        MB/s of 1 MiB writes over a TCP loopback socket
 *     uroce_bench udp ITERS          microseconds per 8-byte UDP round trip (blocking recv)
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "uroce_test.h"

#define MIB (1u << 20)

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int bench_write(double seconds)
{
	struct ut_end a, b;
	if (ut_open(&a, 8 * MIB, IBV_QPT_RC, 64) || ut_open(&b, 8 * MIB, IBV_QPT_RC, 64)) {
		fprintf(stderr, "uroce_bench: cannot open the uroce device\n");
		return 1;
	}
	struct ut_params p = { IBV_MTU_4096, 14, 7, 7, 1, 1, 2 };
	if (ut_connect(&a, &b, &p)) {
		fprintf(stderr, "uroce_bench: connect failed\n");
		return 1;
	}
	const int depth = 4;
	uint64_t posted = 0, done = 0;
	double t0 = now_s(), end = t0 + seconds;
	while (now_s() < end || done < posted) {
		while (posted - done < (uint64_t)depth && now_s() < end) {
			struct ibv_sge s = { (uint64_t)(uintptr_t)(a.buf + (posted % 4) * MIB), MIB, a.mr->lkey };
			struct ibv_send_wr wr, *bad;
			memset(&wr, 0, sizeof(wr));
			wr.wr_id = posted;
			wr.opcode = IBV_WR_RDMA_WRITE;
			wr.sg_list = &s;
			wr.num_sge = 1;
			wr.send_flags = IBV_SEND_SIGNALED;
			wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(b.buf + (posted % 4) * MIB);
			wr.wr.rdma.rkey = b.mr->rkey;
			if (ibv_post_send(a.qp, &wr, &bad))
				break;
			posted++;
		}
		struct ibv_wc wc[8];
		int n = ibv_poll_cq(a.cq, 8, wc);
		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				fprintf(stderr, "uroce_bench: write failed: %s\n", ibv_wc_status_str(wc[i].status));
				return 1;
			}
			done++;
		}
		if (now_s() > end + 30)
			break;
	}
	double dt = now_s() - t0;
	printf("%.1f\n", (double)done * MIB / dt / 1e6);
	if (getenv("BENCH_STATS")) {
		struct uroce_stats sa, sb;
		uroce_priv_stats(a.ctx, &sa);
		uroce_priv_stats(b.ctx, &sb);
		fprintf(stderr, "a: tx %llu rx %llu timeouts %llu seq %llu; b: rx %llu seq naks %llu dups %llu\n",
		        (unsigned long long)sa.tx_packets, (unsigned long long)sa.rx_packets,
		        (unsigned long long)sa.retry_timeout, (unsigned long long)sa.retry_seq_nak,
		        (unsigned long long)sb.rx_packets, (unsigned long long)sb.seq_naks_sent,
		        (unsigned long long)sb.duplicates_rcvd);
	}
	ut_close(&a);
	ut_close(&b);
	return 0;
}

struct pp_side {
	struct ut_end *me;
	struct ibv_comp_channel *ch;
	int iters;
	bool starter;
	bool signaled;
	double rtt_us;
};

/* Poll once: >0 receives seen (each re-posted), 0 nothing, -1 an error completion. */
static int poll_recvs(struct pp_side *s, int *polled)
{
	struct ibv_wc wc[4];
	int n = ibv_poll_cq(s->me->cq, 4, wc), got = 0;
	for (int k = 0; k < n; k++) {
		if (wc[k].status != IBV_WC_SUCCESS)
			return -1;
		if (wc[k].opcode == IBV_WC_RECV) {
			got++;
			ut_post_recv(s->me, 1, 4096, 64);
		}
	}
	*polled = n;
	return got;
}

/* Wait for the next receive completion, sleeping on the completion channel
   (both sides block, as the UDP ping-pong below does). */
static int wait_recv(struct pp_side *s)
{
	for (;;) {
		int n, got = poll_recvs(s, &n);
		if (got)
			return got < 0 ? -1 : 0;
		if (n)
			continue;
		ibv_req_notify_cq(s->me->cq, 0);
		got = poll_recvs(s, &n);
		if (got)
			return got < 0 ? -1 : 0;
		if (n)
			continue;
		struct ibv_cq *cq;
		void *ctx;
		if (ibv_get_cq_event(s->ch, &cq, &ctx))
			return -1;
		ibv_ack_cq_events(cq, 1);
	}
}

static void *pp_thread(void *arg)
{
	struct pp_side *s = arg;
	struct ut_end *e = s->me;
	struct ibv_sge sg = { (uint64_t)(uintptr_t)e->buf, 8, e->mr->lkey };
	struct ibv_send_wr wr, *bad;
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_SEND;
	wr.sg_list = &sg;
	wr.num_sge = 1;
	/* unsignaled: only receives are waited for; signaled: the send completions
	   come through the same CQ and are polled on the way */
	wr.send_flags = IBV_SEND_INLINE | (s->signaled ? IBV_SEND_SIGNALED : 0);
	double t0 = now_s();
	for (int i = 0; i < s->iters; i++) {
		if (s->starter && ibv_post_send(e->qp, &wr, &bad))
			return NULL;
		if (wait_recv(s))
			return NULL;
		if (!s->starter && ibv_post_send(e->qp, &wr, &bad))
			return NULL;
	}
	s->rtt_us = (now_s() - t0) * 1e6 / s->iters;
	return NULL;
}

static int open_pp(struct ut_end *e, struct ibv_comp_channel **ch)
{
	if (ut_open(e, MIB, IBV_QPT_RC, 64))
		return -1;
	*ch = ibv_create_comp_channel(e->ctx);
	struct ibv_cq *cq = ibv_create_cq(e->ctx, 256, NULL, *ch, 0);
	if (!*ch || !cq)
		return -1;
	struct ibv_qp_init_attr qa;
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = qa.recv_cq = cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = qa.cap.max_recv_wr = 64;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
	qa.cap.max_inline_data = 64;
	ibv_destroy_qp(e->qp);
	ibv_destroy_cq(e->cq);
	e->cq = cq;
	e->qp = ibv_create_qp(e->pd, &qa);
	return e->qp ? 0 : -1;
}

static int bench_pingpong(int iters, bool signaled)
{
	struct ut_end a, b;
	struct ibv_comp_channel *cha, *chb;
	if (open_pp(&a, &cha) || open_pp(&b, &chb))
		return 1;
	struct ut_params p = { IBV_MTU_4096, 14, 7, 7, 1, 1, 2 };
	if (ut_connect(&a, &b, &p))
		return 1;
	for (int i = 0; i < 32; i++) {
		ut_post_recv(&a, 1, 4096, 64);
		ut_post_recv(&b, 1, 4096, 64);
	}
	struct pp_side sa = { &a, cha, iters, true, signaled, 0 }, sb = { &b, chb, iters, false, signaled, 0 };
	pthread_t ta, tb;
	pthread_create(&tb, NULL, pp_thread, &sb);
	pthread_create(&ta, NULL, pp_thread, &sa);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	if (sa.rtt_us <= 0) {
		fprintf(stderr, "uroce_bench: ping-pong failed\n");
		return 1;
	}
	printf("%.1f\n", sa.rtt_us);
	ut_close(&a);
	ut_close(&b);
	ibv_destroy_comp_channel(cha);
	ibv_destroy_comp_channel(chb);
	return 0;
}

struct tcp_args {
	int fd;
	double seconds;
	uint64_t bytes;
};

static void *tcp_reader(void *arg)
{
	struct tcp_args *t = arg;
	char *buf = malloc(MIB);
	ssize_t n;
	while ((n = read(t->fd, buf, MIB)) > 0)
		t->bytes += (uint64_t)n;
	free(buf);
	return NULL;
}

static int bench_tcp(double seconds)
{
	int ls = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	if (ls < 0 || bind(ls, (struct sockaddr *)&sa, sizeof(sa)) || listen(ls, 1) ||
	    getsockname(ls, (struct sockaddr *)&sa, &len))
		return 1;
	int c = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(c, (struct sockaddr *)&sa, sizeof(sa)))
		return 1;
	int s = accept(ls, NULL, NULL);
	struct tcp_args t = { s, seconds, 0 };
	pthread_t th;
	pthread_create(&th, NULL, tcp_reader, &t);
	char *buf = calloc(1, MIB);
	double t0 = now_s();
	uint64_t sent = 0;
	while (now_s() - t0 < seconds) {
		ssize_t n = write(c, buf, MIB);
		if (n <= 0)
			break;
		sent += (uint64_t)n;
	}
	shutdown(c, SHUT_WR);
	pthread_join(th, NULL);
	double dt = now_s() - t0;
	printf("%.1f\n", (double)t.bytes / dt / 1e6);
	free(buf);
	close(c);
	close(s);
	close(ls);
	return 0;
}

struct udp_side {
	int fd, iters;
	struct sockaddr_in peer;
	bool starter;
	double rtt_us;
};

static void *udp_thread(void *arg)
{
	struct udp_side *u = arg;
	char m[8] = { 0 };
	double t0 = now_s();
	for (int i = 0; i < u->iters; i++) {
		if (u->starter)
			sendto(u->fd, m, 8, 0, (struct sockaddr *)&u->peer, sizeof(u->peer));
		if (recv(u->fd, m, 8, 0) != 8)
			return NULL;
		if (!u->starter)
			sendto(u->fd, m, 8, 0, (struct sockaddr *)&u->peer, sizeof(u->peer));
	}
	u->rtt_us = (now_s() - t0) * 1e6 / u->iters;
	return NULL;
}

static int bench_udp(int iters)
{
	int f[2];
	struct sockaddr_in sa[2];
	for (int i = 0; i < 2; i++) {
		f[i] = socket(AF_INET, SOCK_DGRAM, 0);
		memset(&sa[i], 0, sizeof(sa[i]));
		sa[i].sin_family = AF_INET;
		sa[i].sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		socklen_t len = sizeof(sa[i]);
		if (bind(f[i], (struct sockaddr *)&sa[i], sizeof(sa[i])) ||
		    getsockname(f[i], (struct sockaddr *)&sa[i], &len))
			return 1;
	}
	struct udp_side a = { f[0], iters, sa[1], true, 0 }, b = { f[1], iters, sa[0], false, 0 };
	pthread_t ta, tb;
	pthread_create(&tb, NULL, udp_thread, &b);
	pthread_create(&ta, NULL, udp_thread, &a);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	printf("%.1f\n", a.rtt_us);
	close(f[0]);
	close(f[1]);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s write|tcp SECONDS | pingpong|pingpong-signaled|udp ITERS\n", argv[0]);
		return 2;
	}
	double v = atof(argv[2]);
	if (!strcmp(argv[1], "write"))
		return bench_write(v);
	if (!strcmp(argv[1], "tcp"))
		return bench_tcp(v);
	if (!strcmp(argv[1], "pingpong"))
		return bench_pingpong((int)v, false);
	if (!strcmp(argv[1], "pingpong-signaled"))
		return bench_pingpong((int)v, true);
	if (!strcmp(argv[1], "udp"))
		return bench_udp((int)v);
	fprintf(stderr, "uroce_bench: unknown mode '%s'\n", argv[1]);
	return 2;
}

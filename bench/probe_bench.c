/*
 * Cost the probe adds per ibv_post_send and per ibv_poll_cq, measured in
 * one run over the null provider of tests/probes/fake_provider.h: the same
 * inline verbs calls go once through a context the probe has not hooked
 * and once through one it has.  Built twice: with PROBE_BENCH_FAKE the
 * events go to one scratch slot of the in-memory tracer, so the difference
 * is the probe alone (lookups, PSN prediction, filling the event); without
 * it the real tracer records them (RDMATRACE_OUTPUT must be set), so the
 * difference is what a traced program pays.  Prints one line per case:
 *     post_send ns_without ns_with added
 * and exits 1 when an added cost is above the limit given as argv[1] (ns).
 * Times are the thread's CPU time (best of 5 interleaved rounds), so a
 * loaded machine slows the bench down but does not inflate the result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fake_provider.h"
#ifdef PROBE_BENCH_FAKE
#include "fake_tracer.h"
#endif
#include "probe.h"

static double now_ns(void)
{
	struct timespec ts;
	/* this thread's CPU time: other processes on a shared machine do not count */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

#define ITERS 2000000
#define ROUNDS 5

static double time_post(struct ibv_qp *qp)
{
	struct ibv_sge s = { .addr = 0x1000, .length = 4096, .lkey = 1 };
	struct ibv_send_wr w = { .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
				 .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad;
	double t0 = now_ns();
	for (int i = 0; i < ITERS; i++) {
		w.wr_id = (uint64_t)i;
		if (ibv_post_send(qp, &w, &bad))
			abort();
	}
	return (now_ns() - t0) / ITERS;
}

static double time_poll(struct ibv_cq *cq, int with_completion)
{
	struct ibv_wc wc;
	double t0 = now_ns();
	for (int i = 0; i < ITERS; i++) {
		if (with_completion) {
			fake_dev_g.queued[0].wr_id = (uint64_t)i;
			fake_dev_g.nqueued = 1;
		}
		if (ibv_poll_cq(cq, 1, &wc) < 0)
			abort();
	}
	return (now_ns() - t0) / ITERS;
}

static double best(double a, double b)
{
	return a < b ? a : b;
}

int main(int argc, char **argv)
{
	double limit = argc > 1 ? atof(argv[1]) : 25.0;
#ifdef PROBE_BENCH_FAKE
	fake_keep = 0;
	const char *what = "probe alone";
#else
	const char *what = "probe + tracer";
#endif
	if (!rt_probe_ensure_started()) {
		fprintf(stderr, "probe_bench: tracing did not start (set RDMATRACE_OUTPUT)\n");
		return 2;
	}
	/* plain: a context the probe never saw */
	static struct fake_dev plain_dev;
	struct ibv_context *hooked = fake_open();
	plain_dev = fake_dev_g;
	struct ibv_context *plain = &plain_dev.vctx.context;
	rt_probe_busy = 1;
	rt_probe_ctx_of(hooked);
	rt_probe_busy = 0;
	struct ibv_cq cq_plain = { .context = plain }, cq_hooked = { .context = hooked };
	struct ibv_qp qp_plain, qp_hooked;
	fake_qp_init(&qp_plain, plain, 1, IBV_QPT_RC, &cq_plain);
	fake_qp_init(&qp_hooked, hooked, 2, IBV_QPT_RC, &cq_hooked);
	rt_probe_busy = 1;
	rt_probe_track_cq(&cq_hooked, 64, 0, false, false, 0);
	struct ibv_qp_init_attr_ex a = { .send_cq = &cq_hooked, .recv_cq = &cq_hooked, .qp_type = IBV_QPT_RC };
	rt_probe_track_qp(&qp_hooked, &a, false);
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024 };
	rt_probe_qp_modified(&qp_hooked, &at, IBV_QP_STATE | IBV_QP_PATH_MTU, 0);
	at.qp_state = IBV_QPS_RTS;
	rt_probe_qp_modified(&qp_hooked, &at, IBV_QP_STATE | IBV_QP_SQ_PSN, 0);
	rt_probe_busy = 0;

	double p0 = 1e9, p1 = 1e9, e0 = 1e9, e1 = 1e9, c0 = 1e9, c1 = 1e9;
	for (int r = 0; r < ROUNDS; r++) { /* interleaved, best of ROUNDS */
		p0 = best(p0, time_post(&qp_plain));
		p1 = best(p1, time_post(&qp_hooked));
		e0 = best(e0, time_poll(&cq_plain, 0));
		e1 = best(e1, time_poll(&cq_hooked, 0));
		c0 = best(c0, time_poll(&cq_plain, 1));
		c1 = best(c1, time_poll(&cq_hooked, 1));
	}
	printf("null provider, %s\n", what);
	printf("%-22s %10s %10s %10s\n", "call", "ns_without", "ns_with", "added");
	printf("%-22s %10.1f %10.1f %10.1f\n", "post_send (1 WR)", p0, p1, p1 - p0);
	printf("%-22s %10.1f %10.1f %10.1f\n", "poll_cq (empty)", e0, e1, e1 - e0);
	printf("%-22s %10.1f %10.1f %10.1f\n", "poll_cq (1 completion)", c0, c1, c1 - c0);
	int over = p1 - p0 > limit || e1 - e0 > limit || c1 - c0 > limit;
	printf("target: at most %.0f ns added per call: %s\n", limit, over ? "MISSED" : "met");
	return over;
}

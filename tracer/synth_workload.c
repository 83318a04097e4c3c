/*
 * rdmatrace-synth: a synthetic traced program.  It emits the events a real
 * RC verbs application over an engine would (device, PD, CQ, QP, MR, QP
 * state changes, work requests with predicted PSNs, packets with ACKs,
 * completions, and optionally an RNR NAK, a retry and an error completion),
 * through the ordinary tracer API configured from the environment.  The demo,
 * the crash and salvage tests and the benchmark drive it; it is not a
 * simulator of RDMA, only a realistic event source.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rdmatrace/tracer.h"

struct opts {
	unsigned threads;
	unsigned long messages;   /* per thread */
	unsigned msg_bytes;
	unsigned mtu;
	unsigned long error_at;   /* emit an error completion at this message (0 = never) */
	unsigned long rnr_at;     /* emit an RNR NAK / retry sequence at this message */
	unsigned pace_us;         /* sleep between messages */
	int crash;                /* 0 none, 'k' wait to be killed, 's' SIGSEGV, 'a' abort, 'x' exit-early */
	int ready_fd;
};

static struct opts o = {.threads = 2, .messages = 200, .msg_bytes = 8192, .mtu = 1024, .ready_fd = -1};

static void emit_setup(uint32_t qpn, uint32_t peer, uint32_t sq_psn, uint32_t rq_psn)
{
	struct rt_event *ev;
	if ((ev = rt_event_begin(RT_EV_DEVICE, 0))) {
		snprintf(ev->u.device.name, sizeof(ev->u.device.name), "uroce0");
		ev->u.device.node_guid = 0x0002c90300a1b2c3ull;
		ev->u.device.device_id = 1;
		rt_event_commit(ev);
	}
	if ((ev = rt_event_begin(RT_EV_PD, 0))) {
		ev->u.object.id = 1;
		rt_event_commit(ev);
	}
	if ((ev = rt_event_begin(RT_EV_CQ_CREATE, 0))) {
		ev->u.cq_create.cq_id = qpn;
		ev->u.cq_create.cqe = 256;
		rt_event_commit(ev);
	}
	if ((ev = rt_event_begin(RT_EV_QP_CREATE, qpn))) {
		ev->u.qp_create.send_cq_id = ev->u.qp_create.recv_cq_id = qpn;
		ev->u.qp_create.pd_id = 1;
		ev->u.qp_create.max_send_wr = ev->u.qp_create.max_recv_wr = 128;
		ev->u.qp_create.max_send_sge = ev->u.qp_create.max_recv_sge = 1;
		ev->u.qp_create.qp_type = 2; /* IBV_QPT_RC */
		rt_event_commit(ev);
	}
	if ((ev = rt_event_begin(RT_EV_MR, 0))) {
		ev->u.mr.addr = 0x7f0000000000ull + qpn * 0x100000ull;
		ev->u.mr.length = 1 << 20;
		ev->u.mr.lkey = ev->u.mr.rkey = 0x1000 + qpn;
		ev->u.mr.access = 0xf;
		ev->u.mr.pd_id = 1;
		rt_event_commit(ev);
	}
	static const uint8_t states[][2] = {{0, 1}, {1, 2}, {2, 3}};
	for (int i = 0; i < 3; i++) {
		if (!(ev = rt_event_begin(RT_EV_QP_STATE, qpn)))
			continue;
		ev->u.qp_state.from_state = states[i][0];
		ev->u.qp_state.to_state = states[i][1];
		ev->u.qp_state.qp_type = 2;
		ev->u.qp_state.path_mtu = 3; /* IBV_MTU_1024 */
		ev->u.qp_state.dest_qpn = peer;
		ev->u.qp_state.rq_psn = rq_psn;
		ev->u.qp_state.sq_psn = sq_psn;
		ev->u.qp_state.timeout = 14;
		ev->u.qp_state.retry_cnt = 7;
		ev->u.qp_state.rnr_retry = 7;
		ev->u.qp_state.min_rnr_timer = 12;
		ev->u.qp_state.max_rd_atomic = ev->u.qp_state.max_dest_rd_atomic = 1;
		ev->u.qp_state.port_num = 1;
		rt_event_commit(ev);
	}
}

static void emit_packet(uint32_t qpn, uint32_t peer, uint8_t opcode, uint32_t psn, uint16_t len, int tx,
			uint8_t flags, uint8_t syndrome, uint32_t msn)
{
	struct rt_event *ev = rt_event_begin(RT_EV_PACKET, qpn);
	if (!ev)
		return;
	ev->flags = (uint16_t)(RT_EVF_ENGINE | (tx ? RT_EVF_TX : 0));
	ev->u.pkt.opcode = opcode;
	ev->u.pkt.psn = psn;
	ev->u.pkt.dest_qpn = peer;
	ev->u.pkt.payload_len = len;
	ev->u.pkt.flags = flags;
	ev->u.pkt.syndrome = syndrome;
	ev->u.pkt.msn = msn;
	if (flags & RT_PKTF_HAS_RETH) {
		ev->u.pkt.reth_va = 0x7f1000000000ull;
		ev->u.pkt.reth_rkey = 0x2000 + peer;
		ev->u.pkt.reth_len = o.msg_bytes;
	}
	rt_event_commit(ev);
}

static void *worker(void *arg)
{
	unsigned idx = (unsigned)(uintptr_t)arg;
	uint32_t qpn = 0x11 + idx * 2, peer = qpn + 1, psn = 1000 * (idx + 1), msn = 0;
	emit_setup(qpn, peer, psn, 5000);
	unsigned pkts = (o.msg_bytes + o.mtu - 1) / o.mtu;
	if (!pkts)
		pkts = 1;
	for (unsigned long m = 1; m <= o.messages; m++) {
		uint32_t first = psn, last = (psn + pkts - 1) & 0xffffff;
		struct rt_event *ev = rt_event_begin(RT_EV_WR_POST, qpn);
		if (ev) {
			ev->u.wr.wr_id = m;
			ev->u.wr.remote_addr = 0x7f1000000000ull;
			ev->u.wr.rkey = 0x2000 + peer;
			ev->u.wr.length = o.msg_bytes;
			ev->u.wr.first_psn = first;
			ev->u.wr.last_psn = last;
			ev->u.wr.queue = RT_WRQ_SEND;
			ev->u.wr.opcode = 0; /* IBV_WR_RDMA_WRITE */
			ev->u.wr.num_sge = 1;
			ev->u.wr.flags = RT_WRF_SIGNALED | RT_WRF_PSN_VALID;
			rt_event_commit(ev);
		}
		for (unsigned p = 0; p < pkts; p++) {
			/* RC RDMA WRITE FIRST/MIDDLE/LAST/ONLY = 6/7/8/10 */
			uint8_t op = pkts == 1 ? 10 : p == 0 ? 6 : p == pkts - 1 ? 8 : 7;
			uint8_t fl = (uint8_t)((p == pkts - 1 ? RT_PKTF_ACKREQ : 0) | (p == 0 ? RT_PKTF_HAS_RETH : 0));
			emit_packet(qpn, peer, op, (psn + p) & 0xffffff, (uint16_t)o.mtu, 1, fl, 0, 0);
		}
		if (m == o.rnr_at) {
			emit_packet(qpn, peer, 17, first, 0, 0, RT_PKTF_HAS_AETH, 0x20 | 14, msn);
			if ((ev = rt_event_begin(RT_EV_RNR, qpn))) {
				ev->u.rnr.psn = first;
				ev->u.rnr.timer_code = 14;
				ev->u.rnr.timer_us = 960;
				ev->u.rnr.peer_qpn = peer;
				ev->u.rnr.retries_left = 7;
				rt_event_commit(ev);
			}
			if ((ev = rt_event_begin(RT_EV_RETRY, qpn))) {
				ev->u.retry.cause = RT_RETRY_RNR;
				ev->u.retry.first_psn = first;
				ev->u.retry.last_psn = last;
				ev->u.retry.timeout_us = 960;
				ev->u.retry.retries_left = 7;
				rt_event_commit(ev);
			}
			for (unsigned p = 0; p < pkts; p++)
				emit_packet(qpn, peer, pkts == 1 ? 10 : p == 0 ? 6 : p == pkts - 1 ? 8 : 7,
					    (psn + p) & 0xffffff, (uint16_t)o.mtu, 1, RT_PKTF_RETRANS, 0, 0);
		}
		msn++;
		emit_packet(qpn, peer, 17 /* RC ACKNOWLEDGE */, last, 0, 0, RT_PKTF_HAS_AETH, 0x1f, msn);
		psn = (psn + pkts) & 0xffffff;
		if ((ev = rt_event_begin(RT_EV_COMPLETION, qpn))) {
			ev->u.wc.wr_id = m;
			ev->u.wc.status = m == o.error_at ? 12 /* IBV_WC_RETRY_EXC_ERR */ : 0;
			ev->u.wc.opcode = 1; /* IBV_WC_RDMA_WRITE */
			ev->u.wc.byte_len = o.msg_bytes;
			ev->u.wc.cq_id = qpn;
			if (ev->u.wc.status)
				ev->flags = RT_EVF_ERROR;
			rt_event_commit(ev);
		}
		if (o.pace_us)
			usleep(o.pace_us);
	}
	return NULL;
}

/* --then exit-early: return from main, and end the process from an exit
 * handler before the destructors run, as another thread's exit() can. */
static void end_before_destructors(void)
{
	_exit(0);
}

static const char usage[] =
	"usage: rdmatrace-synth [--threads N] [--messages N] [--bytes N] [--mtu N]\n"
	"                       [--error-at N] [--rnr-at N] [--pace-us N]\n"
	"                       [--then wait|segv|abort|exit-early] [--ready-fd FD]\n"
	"Emits a realistic RC RDMA WRITE event stream through the tracer\n"
	"(configure it with RDMATRACE_OUTPUT or RDMATRACE_SHM; see docs/tracer.md).\n";

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{"threads", required_argument, NULL, 't'}, {"messages", required_argument, NULL, 'm'},
		{"bytes", required_argument, NULL, 'b'},   {"mtu", required_argument, NULL, 'u'},
		{"error-at", required_argument, NULL, 'e'}, {"rnr-at", required_argument, NULL, 'r'},
		{"pace-us", required_argument, NULL, 'p'}, {"then", required_argument, NULL, 'T'},
		{"ready-fd", required_argument, NULL, 'R'}, {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 't': o.threads = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'm': o.messages = strtoul(optarg, NULL, 0); break;
		case 'b': o.msg_bytes = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'u': o.mtu = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'e': o.error_at = strtoul(optarg, NULL, 0); break;
		case 'r': o.rnr_at = strtoul(optarg, NULL, 0); break;
		case 'p': o.pace_us = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'R': o.ready_fd = atoi(optarg); break;
		case 'T':
			o.crash = strcmp(optarg, "wait") == 0 ? 'k' : strcmp(optarg, "segv") == 0 ? 's'
				  : strcmp(optarg, "abort") == 0 ? 'a' : strcmp(optarg, "exit-early") == 0 ? 'x' : -1;
			if (o.crash < 0) {
				fputs(usage, stderr);
				return 2;
			}
			break;
		case 'h': fputs(usage, stdout); return 0;
		default: fputs(usage, stderr); return 2;
		}
	}
	if (o.threads == 0 || o.threads > 64 || o.mtu == 0) {
		fputs(usage, stderr);
		return 2;
	}
	if (o.crash == 'x')
		atexit(end_before_destructors); /* runs after the handlers the tracer registers */
	rt_tracer_start_from_env();
	rt_trace_marker("synth start: %u threads", o.threads);
	pthread_t t[64];
	for (unsigned i = 0; i < o.threads; i++)
		pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)i);
	for (unsigned i = 0; i < o.threads; i++)
		pthread_join(t[i], NULL);
	rt_trace_marker("synth done");
	if (o.ready_fd >= 0) {
		if (write(o.ready_fd, "r", 1) != 1)
			perror("ready-fd");
		close(o.ready_fd);
	}
	if (o.crash && o.crash != 'x') {
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
	}
	switch (o.crash) {
	case 'k':
		for (;;)
			pause();
	case 's':
		raise(SIGSEGV);
		break;
	case 'a':
		abort();
	}
	return 0;
}

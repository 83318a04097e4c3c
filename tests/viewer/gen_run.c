/*
 * viewer-gen: writes a synthetic run directory for the viewer's tests and
 * benchmark, through the project's own writers (trace_writer.h for the two
 * hosts' trace files, pcapng_write.h for the capture, the test packet
 * builder for genuine RoCEv2 frames with valid ICRCs).
 *
 *   viewer-gen OUTDIR                 the scenario (below), traces + capture
 *   viewer-gen OUTDIR --events N      then WRITE round trips until the traces
 *                                     hold N events (capture off by default)
 *   options: --no-capture --no-traces --capture (force one with --events)
 *
 * Scenario, between "client" (10.0.0.1, QP 17) and "server" (10.0.0.2,
 * QP 18): device/PD/CQ/QP/MR setup, RDMA CM connect, QP state changes;
 * a 4 KiB RDMA WRITE (4 packets, ACK, completion); a SEND that meets no
 * receive WR (RNR NAK, RNR wait, retry, success); a WRITE whose second
 * packet is lost (PSN sequence NAK, Go-Back-N retransmission); an RDMA
 * READ answered with a remote access error NAK (error completion, QP to
 * ERROR); CM disconnect.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "captures/synth.h"
#include "rdmatrace/pcapng_write.h"
#include "rdmatrace/roce_decode.h"
#include "rdmatrace/trace_writer.h"

#define T0_REAL 1763800000000000000ull /* 2025-11-22 */
#define MTU 1024

struct host {
	const char *name;
	uint8_t ip[4];
	uint32_t qpn;
	int32_t pid;
	int64_t clock_err_ns;   /* this host's clock minus true time */
	struct rt_event *ev;
	size_t n, cap;
};

static struct host hosts[2] = {
	{ "client", { 10, 0, 0, 1 }, 17, 1100, 0, NULL, 0, 0 },
	{ "server", { 10, 0, 0, 2 }, 18, 2200, 150000, NULL, 0, 0 },
};
static struct rt_pcapng_writer *cap;
static uint32_t cap_if;
static int with_capture = 1, with_traces = 1;
static uint64_t now_us; /* true time since T0_REAL, us */

static struct rt_event *ev(int h, uint64_t t_us, unsigned kind, unsigned flags)
{
	struct host *ho = &hosts[h];
	struct rt_event *e;

	if (ho->n == ho->cap) {
		ho->cap = ho->cap ? ho->cap * 2 : 4096;
		ho->ev = realloc(ho->ev, ho->cap * sizeof(*ho->ev));
		if (!ho->ev) {
			perror("viewer-gen");
			exit(1);
		}
	}
	e = &ho->ev[ho->n];
	memset(e, 0, sizeof(*e));
	/* ticks are CLOCK_MONOTONIC; the wall clock (header) carries the error */
	e->ticks = 1000000000000ull + t_us * 1000;
	e->seq = (uint32_t)ho->n;
	e->tid = (uint32_t)ho->pid;
	e->kind = (uint16_t)kind;
	e->flags = (uint16_t)(flags | RT_EVF_ENGINE);
	e->qpn = ho->qpn;
	ho->n++;
	return e;
}

/* A packet from host h at true time t: TX event, wire frame, RX event. */
static void packet(int h, uint64_t t_us, uint8_t opcode, uint32_t psn, uint32_t plen, uint8_t syndrome,
		   uint32_t msn, unsigned pkt_flags, int lost)
{
	static uint8_t payload[MTU];
	struct rt_event *e;
	int peer = !h;

	e = ev(h, t_us, RT_EV_PACKET, RT_EVF_TX);
	e->u.pkt.psn = psn;
	e->u.pkt.dest_qpn = hosts[peer].qpn;
	e->u.pkt.opcode = opcode;
	e->u.pkt.payload_len = (uint16_t)plen;
	e->u.pkt.syndrome = syndrome;
	e->u.pkt.msn = msn;
	e->u.pkt.flags = (uint8_t)pkt_flags;
	if (pkt_flags & RT_PKTF_RETRANS)
		e->u.pkt.retrans_count = 1;
	if (with_capture && !lost) {
		struct synth s;
		uint8_t frame[2048];
		size_t len;
		memset(&s, 0, sizeof(s));
		s.ip_version = 4;
		memcpy(s.src, hosts[h].ip, 4);
		memcpy(s.dst, hosts[peer].ip, 4);
		s.ttl = 64;
		s.sport = (uint16_t)(49152 + h);
		s.dport = 4791;
		s.opcode = opcode;
		s.pkey = 0xFFFF;
		s.dqpn = hosts[peer].qpn;
		s.psn = psn;
		s.ackreq = (pkt_flags & RT_PKTF_ACKREQ) != 0;
		s.syndrome = syndrome;
		s.msn = msn;
		s.va = 0x7f0000000000ull;
		s.rkey = 0x1234;
		s.dmalen = plen;
		s.payload = payload;
		s.payload_len = plen;
		len = synth_build(&s, frame);
		rt_pcapng_packet(cap, cap_if, T0_REAL + t_us * 1000 + 5000, frame, (uint32_t)len, (uint32_t)len, NULL);
	}
	if (!lost) {
		e = ev(peer, t_us + 10, RT_EV_PACKET, 0);
		e->u.pkt.psn = psn;
		e->u.pkt.dest_qpn = hosts[peer].qpn;
		e->u.pkt.opcode = opcode;
		e->u.pkt.payload_len = (uint16_t)plen;
		e->u.pkt.syndrome = syndrome;
		e->u.pkt.msn = msn;
		e->u.pkt.flags = (uint8_t)(pkt_flags & ~RT_PKTF_RETRANS);
		e->qpn = hosts[peer].qpn;
	}
}

static void wr(int h, uint64_t t, uint64_t wr_id, unsigned op, uint32_t len, uint32_t psn, uint32_t npk, unsigned queue)
{
	struct rt_event *e = ev(h, t, RT_EV_WR_POST, 0);

	e->u.wr.wr_id = wr_id;
	e->u.wr.opcode = (uint8_t)op;
	e->u.wr.length = len;
	e->u.wr.queue = (uint8_t)queue;
	e->u.wr.num_sge = 1;
	e->u.wr.flags = RT_WRF_SIGNALED;
	if (queue == RT_WRQ_SEND) {
		e->u.wr.first_psn = psn;
		e->u.wr.last_psn = psn + npk - 1;
		e->u.wr.flags |= RT_WRF_PSN_VALID;
		e->u.wr.remote_addr = 0x7f0000000000ull;
		e->u.wr.rkey = 0x1234;
	}
}

static void cqe(int h, uint64_t t, uint64_t wr_id, unsigned op, unsigned status, uint32_t len)
{
	struct rt_event *e = ev(h, t, RT_EV_COMPLETION, status ? RT_EVF_ERROR : 0);

	e->u.wc.wr_id = wr_id;
	e->u.wc.opcode = (uint8_t)op;
	e->u.wc.status = (uint8_t)status;
	e->u.wc.byte_len = len;
	e->u.wc.src_qp = hosts[!h].qpn;
	e->u.wc.cq_id = 1;
}

static void qp_state(int h, uint64_t t, unsigned from, unsigned to)
{
	struct rt_event *e = ev(h, t, RT_EV_QP_STATE, 0);

	e->u.qp_state.from_state = (uint8_t)from;
	e->u.qp_state.to_state = (uint8_t)to;
	e->u.qp_state.qp_type = 2;
	e->u.qp_state.path_mtu = 3; /* 1024 */
	e->u.qp_state.dest_qpn = hosts[!h].qpn;
	e->u.qp_state.sq_psn = h ? 5000 : 100;
	e->u.qp_state.rq_psn = h ? 100 : 5000;
	e->u.qp_state.timeout = 14;
	e->u.qp_state.retry_cnt = 7;
	e->u.qp_state.rnr_retry = 7;
	e->u.qp_state.min_rnr_timer = 12;
}

static void cm(int h, uint64_t t, unsigned event)
{
	struct rt_event *e = ev(h, t, RT_EV_CM_EVENT, 0);

	e->u.cm.event = (uint8_t)event;
	e->u.cm.family = 2;
	memcpy(&e->u.cm.local_ip4, hosts[h].ip, 4);
	memcpy(&e->u.cm.peer_ip4, hosts[!h].ip, 4);
	e->u.cm.local_port = h ? 7471 : 40000;
	e->u.cm.peer_port = h ? 40000 : 7471;
	e->u.cm.cm_id = 1;
}

static void setup(void)
{
	for (int h = 0; h < 2; h++) {
		struct rt_event *e = ev(h, 10, RT_EV_DEVICE, 0);
		snprintf(e->u.device.name, sizeof(e->u.device.name), "rxe0");
		e->qpn = 0;
		e = ev(h, 20, RT_EV_PD, 0);
		e->u.object.id = 1;
		e->qpn = 0;
		e = ev(h, 30, RT_EV_CQ_CREATE, 0);
		e->u.cq_create.cq_id = 1;
		e->u.cq_create.cqe = 256;
		e->qpn = 0;
		e = ev(h, 40, RT_EV_MR, 0);
		e->u.mr.addr = 0x7f0000000000ull;
		e->u.mr.length = 1 << 20;
		e->u.mr.lkey = 0x1234;
		e->u.mr.rkey = 0x1234;
		e->u.mr.access = 7;
		e->qpn = 0;
		e = ev(h, 50, RT_EV_QP_CREATE, 0);
		e->u.qp_create.send_cq_id = 1;
		e->u.qp_create.recv_cq_id = 1;
		e->u.qp_create.max_send_wr = 64;
		e->u.qp_create.max_recv_wr = 64;
		e->u.qp_create.qp_type = 2;
	}
	cm(0, 100, 0); /* ADDR_RESOLVED */
	cm(0, 150, 2); /* ROUTE_RESOLVED */
	cm(1, 200, 4); /* CONNECT_REQUEST */
	for (int h = 0; h < 2; h++) {
		qp_state(h, 250 + 10 * (uint64_t)h, 0, 1);
		qp_state(h, 300 + 10 * (uint64_t)h, 1, 2);
		qp_state(h, 350 + 10 * (uint64_t)h, 2, 3);
	}
	cm(1, 400, 9); /* ESTABLISHED */
	cm(0, 420, 9);
}

static uint32_t psn = 100, msn_srv = 0;

/* A WRITE of npk packets; lose_idx < npk drops that packet (first send). */
static void write_op(uint64_t *t, uint64_t wr_id, uint32_t npk, int lose_idx)
{
	uint32_t first = psn, i;
	uint64_t u = *t;

	wr(0, u, wr_id, 0 /* RDMA_WRITE */, npk * MTU, first, npk, RT_WRQ_SEND);
	u += 5;
	for (i = 0; i < npk; i++) {
		uint8_t op = npk == 1 ? 0x0A : i == 0 ? 0x06 : i == npk - 1 ? 0x08 : 0x07;
		packet(0, u, op, psn + i, MTU, 0, 0, i == npk - 1 ? RT_PKTF_ACKREQ : 0, (int)i == lose_idx);
		u += 2;
	}
	if (lose_idx >= 0 && (uint32_t)lose_idx < npk) {
		/* the receiver NAKs the first out-of-order PSN it sees */
		u += 20;
		packet(1, u, 0x11, first + (uint32_t)lose_idx, 0, rt_aeth_syndrome(RT_AETH_NAK, RT_NAK_PSN_SEQ_ERROR),
		       msn_srv, 0, 0);
		u += 30;
		struct rt_event *e = ev(0, u, RT_EV_RETRY, 0);
		e->u.retry.first_psn = first + (uint32_t)lose_idx;
		e->u.retry.last_psn = first + npk - 1;
		e->u.retry.cause = RT_RETRY_NAK_SEQ;
		e->u.retry.retries_left = 6;
		u += 5;
		for (i = (uint32_t)lose_idx; i < npk; i++) {
			uint8_t op = npk == 1 ? 0x0A : i == 0 ? 0x06 : i == npk - 1 ? 0x08 : 0x07;
			packet(0, u, op, psn + i, MTU, 0, 0, RT_PKTF_RETRANS | (i == npk - 1 ? RT_PKTF_ACKREQ : 0), 0);
			u += 2;
		}
	}
	psn += npk;
	msn_srv++;
	u += 20;
	packet(1, u, 0x11, psn - 1, 0, rt_aeth_syndrome(RT_AETH_ACK, 31), msn_srv, 0, 0);
	u += 15;
	cqe(0, u, wr_id, 1 /* RDMA_WRITE */, 0, npk * MTU);
	*t = u + 20;
}

static void scenario(void)
{
	uint64_t t = 1000;
	struct rt_event *e;

	setup();
	write_op(&t, 1, 4, -1);
	/* SEND with no receive WR posted: RNR NAK, wait, retry */
	wr(0, t, 2, 2 /* SEND */, 512, psn, 1, RT_WRQ_SEND);
	packet(0, t + 5, 0x04, psn, 512, 0, 0, RT_PKTF_ACKREQ, 0);
	e = ev(1, t + 25, RT_EV_RNR, RT_EVF_TX);
	e->u.rnr.psn = psn;
	e->u.rnr.timer_code = 12;
	e->u.rnr.timer_us = rt_rnr_timer_us(12);
	e->u.rnr.peer_qpn = hosts[0].qpn;
	packet(1, t + 30, 0x11, psn, 0, rt_aeth_syndrome(RT_AETH_RNR_NAK, 12), msn_srv, 0, 0);
	e = ev(0, t + 45, RT_EV_RNR, 0);
	e->u.rnr.psn = psn;
	e->u.rnr.timer_code = 12;
	e->u.rnr.timer_us = rt_rnr_timer_us(12);
	e->u.rnr.peer_qpn = hosts[1].qpn;
	e->u.rnr.retries_left = 7;
	t += 200;
	wr(1, t, 900, 0, 4096, 0, 0, RT_WRQ_RECV);
	t += rt_rnr_timer_us(12);
	e = ev(0, t, RT_EV_RETRY, 0);
	e->u.retry.first_psn = psn;
	e->u.retry.last_psn = psn;
	e->u.retry.cause = RT_RETRY_RNR;
	e->u.retry.timeout_us = rt_rnr_timer_us(12);
	e->u.retry.retries_left = 7;
	packet(0, t + 5, 0x04, psn, 512, 0, 0, RT_PKTF_ACKREQ | RT_PKTF_RETRANS, 0);
	cqe(1, t + 30, 900, 128 /* RECV */, 0, 512);
	psn++;
	msn_srv++;
	packet(1, t + 35, 0x11, psn - 1, 0, rt_aeth_syndrome(RT_AETH_ACK, 31), msn_srv, 0, 0);
	cqe(0, t + 60, 2, 0 /* SEND */, 0, 512);
	t += 100;
	/* WRITE with packet 2 lost: NAK, Go-Back-N */
	write_op(&t, 3, 4, 1);
	/* READ answered with a remote access error */
	wr(0, t, 4, 4 /* RDMA_READ */, 1024, psn, 1, RT_WRQ_SEND);
	packet(0, t + 5, 0x0C, psn, 0, 0, 0, RT_PKTF_ACKREQ, 0);
	packet(1, t + 30, 0x11, psn, 0, rt_aeth_syndrome(RT_AETH_NAK, RT_NAK_REMOTE_ACCESS_ERROR), msn_srv, 0, 0);
	cqe(0, t + 50, 4, 2 /* RDMA_READ */, 10 /* REM_ACCESS_ERR */, 0);
	qp_state(0, t + 55, 3, 6);
	psn++;
	t += 200;
	cm(0, t, 10); /* DISCONNECTED */
	cm(1, t + 20, 10);
	now_us = t + 100;
}

static void bulk(size_t target)
{
	uint64_t t = now_us ? now_us : 1000;
	uint64_t id = 1000;

	while (hosts[0].n + hosts[1].n < target)
		write_op(&t, id++, 4, -1);
	now_us = t;
}

static int write_trace(const char *dir, int h)
{
	char path[4096], err[256];
	struct rt_file_header fh;
	struct rt_trace_writer w;
	struct rt_process_record pr;
	struct host *ho = &hosts[h];

	snprintf(path, sizeof(path), "%s/traces/%s-%d-rdma-app.rtr", dir, ho->name, ho->pid);
	rt_file_header_init(&fh);
	fh.mode = 0;
	fh.pid = ho->pid;
	snprintf(fh.host, sizeof(fh.host), "%s", ho->name);
	snprintf(fh.boot_id, sizeof(fh.boot_id), "00000000-0000-0000-0000-00000000000%d", h);
	snprintf(fh.program, sizeof(fh.program), "rdma-app");
	fh.calib.source = RT_CLOCK_MONOTONIC;
	fh.calib.base.ticks = 1000000000000ull;
	fh.calib.base.mono_ns = 1000000000000ull;
	fh.calib.base.real_ns = T0_REAL + (uint64_t)ho->clock_err_ns;
	fh.calib.rate_ticks = 1000000000;
	fh.calib.rate_ns = 1000000000;
	if (rt_trace_writer_open(&w, path, &fh, err, sizeof(err)) < 0) {
		fprintf(stderr, "viewer-gen: %s\n", err);
		return -1;
	}
	memset(&pr, 0, sizeof(pr));
	pr.pid = ho->pid;
	snprintf(pr.program, sizeof(pr.program), "rdma-app");
	rt_trace_writer_process(&w, &pr);
	/* events are written in the order generated; sort each host by time */
	rt_trace_writer_events(&w, ho->pid, 0, (uint32_t)ho->pid, 0, ho->ev, ho->n);
	if (rt_trace_writer_close(&w) < 0) {
		fprintf(stderr, "viewer-gen: writing %s failed\n", path);
		return -1;
	}
	return 0;
}

static int cmp_ev(const void *a, const void *b)
{
	const struct rt_event *x = a, *y = b;

	if (x->ticks != y->ticks)
		return x->ticks < y->ticks ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int main(int argc, char **argv)
{
	const char *dir;
	char path[4096], err[256];
	size_t events = 0;
	int force_capture = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: viewer-gen OUTDIR [--events N] [--no-capture] [--no-traces] [--capture]\n");
		return 2;
	}
	dir = argv[1];
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--events") && i + 1 < argc)
			events = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--no-capture"))
			with_capture = 0;
		else if (!strcmp(argv[i], "--no-traces"))
			with_traces = 0;
		else if (!strcmp(argv[i], "--capture"))
			force_capture = 1;
		else {
			fprintf(stderr, "viewer-gen: unknown option %s\n", argv[i]);
			return 2;
		}
	}
	if (events && !force_capture)
		with_capture = 0;
	snprintf(path, sizeof(path), "%s/traces", dir);
	mkdir(dir, 0755);
	mkdir(path, 0755);
	if (with_capture) {
		snprintf(path, sizeof(path), "%s/capture.pcapng", dir);
		if (rt_pcapng_open(path, NULL, &cap, err, sizeof(err)) < 0 ||
		    rt_pcapng_interface(cap, RT_LINKTYPE_ETHERNET, 65535, "veth0", &cap_if) < 0) {
			fprintf(stderr, "viewer-gen: %s\n", err);
			return 1;
		}
	}
	scenario();
	if (events)
		bulk(events);
	if (with_capture && rt_pcapng_close(cap, err, sizeof(err)) < 0) {
		fprintf(stderr, "viewer-gen: %s\n", err);
		return 1;
	}
	if (with_traces) {
		for (int h = 0; h < 2; h++) {
			qsort(hosts[h].ev, hosts[h].n, sizeof(struct rt_event), cmp_ev);
			for (size_t k = 0; k < hosts[h].n; k++)
				hosts[h].ev[k].seq = (uint32_t)k;
			if (write_trace(dir, h) < 0)
				return 1;
		}
	}
	printf("%zu trace events, capture %s\n", hosts[0].n + hosts[1].n, with_capture ? "yes" : "no");
	return 0;
}

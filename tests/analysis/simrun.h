/*
 * Test-only generator of whole runs: a client host A and a server host B
 * with one RC connection set up through RDMA CM, a capture point in the
 * middle, and the trace files both hosts' probes would write, all
 * consistent with each other.  Faults are injected per WR (a packet lost
 * before or after the capture point, the last packet lost so only the ACK
 * timeout helps, a dead peer, a bad rkey, RNR with the receiver's queue
 * empty), and the simulation follows the transport's rules (Go-Back-N on
 * NAK PSN sequence error or timeout, RNR wait, retry counters, error
 * completions, flushing).  Host clocks can be offset from the capture's.
 *
 * Used by tests/analysis/test_correlate.c (known injected faults) and
 * bench/correlate_gen.c (a large clean run).
 */
#ifndef RDMATRACE_TESTS_SIMRUN_H
#define RDMATRACE_TESTS_SIMRUN_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../captures/synth.h"
#include "rdmatrace/roce_wire.h"
#include "rdmatrace/trace_writer.h"

struct sim_cfg {
	uint64_t t0;              /* true start time, ns since the epoch */
	int64_t off_a, off_b;     /* host clock = true time + offset */
	uint32_t qpn_a, qpn_b, psn_a, psn_b;
	unsigned mtu;             /* bytes */
	uint8_t timeout;          /* ACK timeout exponent of A */
	uint8_t retry_cnt, rnr_retry, min_rnr_timer_b;
	uint8_t min_rnr_timer_b2;  /* B's min_rnr_timer from rnr_timer_b2_at on (true time; 0: never) */
	uint64_t rnr_timer_b2_at;
	int rnr_timer_b2_traced;  /* B's trace has the RTS -> RTS modify that made that change, at
				   * rnr_timer_b2_at (written with B's first RNR NAK after it) */
	int psn_valid;            /* the probe predicted PSNs in WR_POST */
	int no_capture, no_trace_a, no_trace_b;
	int no_cm;                /* the QPs connected without RDMA CM (QPNs exchanged out of band):
				   * no CM events, no CM MADs */
	uint64_t link_ns;         /* one-way delay host <-> capture point */
	int engine_pkts;          /* A's engine traces the requests it sends (RT_EV_PACKET); a packet lost
				   * before the capture point is then one its engine dropped */
	int ip_ids;               /* A gives each packet a new IPv4 identification (as the kernel's
				   * SoftRoCE does); else all are 0 */
	int64_t step_a_ns;        /* A's wall clock is set this much halfway through its records (its
				   * tracer's clock points: one at its first record, one at the step) */
	int mad_psns;             /* each side numbers its MADs with QP 1's next PSN, as a CM does (else 0) */
	int time_order;           /* the capture holds the frames in time order, as a capture point
				   * sees them (else in the order the simulation makes them: a round's
				   * requests before the answers to them) */
	int heartbeat_b;          /* B's trace is a stream recording whose collector notes the clock every
				   * second (RT_EV_CLOCK_SYNC), from its first record to the end of the
				   * run (else a flight recorder's, with no clock notes) */
	uint64_t freeze_b_at, freeze_b_ns; /* true times: B's process froze then, for that long (no record,
				   * not even a clock note), 0 never */
	uint64_t cut_b_at;        /* true time: B's recording stops there (0 never) */
	int dup_stream_start;     /* the network copies A's very first request (its starting PSN) */
	int nak_once;             /* B NAKs a gap once and then waits, silent, for the PSN it NAKed (as
				   * rxe and uroce do; else it NAKs each later request's round again);
				   * with engine_pkts, A's engine traces its retries (RT_EV_RETRY) */
};

struct sim_fault {
	int lose_before;          /* packet index lost before the capture point (first transmission), -1 none */
	int lose_after;           /* packet index lost after the capture point (first transmission), -1 none */
	int lose_after_reason;    /* with lose_after: B's engine traces dropping it on arrival, with this
				   * enum rt_pkt_drop_reason (0: not traced) */
	int lose_resend_before;   /* packet index whose first resend is lost before the capture point too, -1 none */
	int peer_dead;            /* nothing ever reaches B */
	int bad_rkey;             /* B answers NAK remote access error */
	int nak_error_twice;      /* the network copies B's NAK error: the capture holds it twice */
	int64_t rnr_post_after_ns;/* SEND with no receive posted: B posts one this long after the first RNR NAK (-1 never) */
	int rnr_seq_nak;          /* B answers the packet after an RNR-NAKed one with NAK PSN sequence error (as rxe does) */
	int lose_nak_after;       /* B's first NAK or RNR NAK is lost after the capture point: A's ACK timer goes off */
	int drop_nak_tx;          /* B's engine drops its first NAK as it sends it (traced, RT_PKTF_DROPPED; never on
				   * the wire): A's ACK timer goes off */
	int lose_ack_before;      /* B's first ACK of the faulty WR is lost before the capture point */
	int lose_ack_after;       /* B's first ACK of the faulty WR is lost after the capture point */
	uint32_t recv_room;       /* SEND: B's receive holds this many bytes (0: enough); past them B answers
				   * NAK remote operational error and completes the receive with LOC_QP_OP_ERR
				   * (opcode 0: an error completion's opcode is undefined), as rxe does */
	int dup_on_wire;          /* packet index (first transmission, not the last) that the network
				   * sends twice: the capture holds both, B discards the copy, -1 none */
	int damage_last;          /* the WR's last packet, the one that asks for the ACK, reaches the capture
				   * with a bad ICRC in the first round: B drops it and sends no ACK */
	int dup_first_resend;     /* the network copies the first packet of the second round (the resend
				   * after a NAK or an RNR wait): the capture holds it twice */
	int dup_resent;           /* with engine_pkts: A's engine traces such a copy as a resend after a
				   * retry of its own (as uroce asks for a READ again at once), not as
				   * the same transmission sent twice */
};

#define SIM_NOFAULT                                                                                           \
	((struct sim_fault){.lose_before = -1, .lose_after = -1, .lose_resend_before = -1, .rnr_post_after_ns = -1, \
			    .dup_on_wire = -1})

struct sim_evbuf {
	struct rt_event *v;
	size_t n, cap;
};

struct sim {
	struct sim_cfg c;
	FILE *pcap;
	struct sim_evbuf ea, eb;
	char dir[1024];
	uint64_t now;             /* true time */
	uint32_t a_psn, b_epsn, b_msn, seq;
	uint64_t *rq;             /* B's receive queue (wr_ids) */
	size_t rq_n, rq_cap, rq_head;
	int a_error;
	uint64_t packets;
	uint64_t rng;
	uint32_t mr_rkey;
	uint64_t mr_va;
	uint16_t ip_id_a;         /* A's latest IPv4 identification (sim_cfg.ip_ids) */
	int corrupt_next;         /* the next frame reaches the capture with a bad ICRC */
	uint32_t mad_psn[2];      /* sim_cfg.mad_psns: QP 1's next PSN, B's and A's */
	struct sim_frame *frames; /* sim_cfg.time_order: the frames, written sorted at sim_close */
	size_t nframes, frames_cap;
	int rnr_timer_b2_told;    /* the modify of sim_cfg.rnr_timer_b2_traced written */
	uint32_t b_nakked;        /* sim_cfg.nak_once: the PSN B NAKed and waits for ... */
	int b_nak_waits;          /* ... while set */
};

struct sim_frame {
	uint64_t t, order;
	uint32_t len;
	uint8_t *bytes;
};

static inline int sim_frame_cmp(const void *a, const void *b)
{
	const struct sim_frame *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static inline void sim_push(struct sim_evbuf *b, const struct rt_event *e)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 1024;
		b->v = realloc(b->v, b->cap * sizeof(*b->v));
		if (!b->v)
			abort(); /* test program */
	}
	b->v[b->n++] = *e;
}

static inline struct rt_event sim_ev(struct sim *s, int host_b, uint64_t t, unsigned kind, uint32_t qpn)
{
	struct rt_event e;
	memset(&e, 0, sizeof(e));
	e.ticks = t + (uint64_t)(host_b ? s->c.off_b : s->c.off_a); /* modulo 2^64: any offset */
	e.seq = s->seq++;
	e.tid = host_b ? 200 : 100;
	e.kind = (uint16_t)kind;
	e.qpn = qpn;
	return e;
}

static inline void sim_emit(struct sim *s, int host_b, const struct rt_event *e)
{
	if (host_b ? !s->c.no_trace_b : !s->c.no_trace_a)
		sim_push(host_b ? &s->eb : &s->ea, e);
}

/* One frame on the wire at true time t, from A (a_to_b) or B. */
/* The same to another IPv4 destination (a multicast group) than the peer. */
static inline void sim_wire_to(struct sim *s, uint64_t t, int a_to_b, struct synth *p, const uint8_t *dst4);

static inline void sim_wire(struct sim *s, uint64_t t, int a_to_b, struct synth *p)
{
	static const uint8_t ipa[4] = {10, 9, 0, 2}, ipb[4] = {10, 9, 0, 1};
	sim_wire_to(s, t, a_to_b, p, a_to_b ? ipb : ipa);
}

static inline void sim_wire_to(struct sim *s, uint64_t t, int a_to_b, struct synth *p, const uint8_t *dst4)
{
	static const uint8_t ipa[4] = {10, 9, 0, 2}, ipb[4] = {10, 9, 0, 1};
	memcpy(p->src, a_to_b ? ipa : ipb, 4);
	memcpy(p->dst, dst4, 4);
	p->ip_version = 4;
	p->ttl = 64;
	p->dport = RT_ROCE_UDP_PORT;
	p->pkey = 0xFFFF;
	if (!p->sport)
		p->sport = rt_rxe_udp_sport(a_to_b ? s->c.qpn_a : s->c.qpn_b);
	if (s->c.ip_ids && a_to_b && !p->ip_id)
		p->ip_id = ++s->ip_id_a ? s->ip_id_a : ++s->ip_id_a;
	if (s->corrupt_next) {
		p->corrupt_icrc = true;
		s->corrupt_next = 0;
	}
	uint8_t frame[8192];
	size_t n = synth_build(p, frame);
	s->packets++;
	if (s->c.no_capture)
		return;
	if (!s->c.time_order) {
		synth_pcap_add(s->pcap, t, frame, (uint32_t)n, (uint32_t)n);
		return;
	}
	if (s->nframes == s->frames_cap) {
		s->frames_cap = s->frames_cap ? s->frames_cap * 2 : 256;
		s->frames = realloc(s->frames, s->frames_cap * sizeof(*s->frames));
	}
	struct sim_frame *f = &s->frames[s->nframes];
	f->t = t;
	f->order = s->nframes++;
	f->len = (uint32_t)n;
	f->bytes = malloc(n);
	memcpy(f->bytes, frame, n);
}

/* A MAD on QP 1 between A and B. */
static inline void sim_mad(struct sim *s, uint64_t t, int a_to_b, uint8_t *mad)
{
	struct synth p;
	memset(&p, 0, sizeof(p));
	p.opcode = RT_OP_UD_SEND_ONLY;
	p.dqpn = 1;
	p.qkey = RT_GSI_QKEY;
	p.srcqp = 1;
	p.payload = mad;
	p.payload_len = RT_MAD_LEN;
	p.sport = 0xC001;
	if (s->c.mad_psns)
		p.psn = s->mad_psn[a_to_b != 0]++;
	sim_wire(s, t, a_to_b, &p);
}

/* A CM MAD of attribute attr (the rest as synth_cm_mad makes it) from the
 * side whose communication ID is comm. */
static inline void sim_cm_mad(struct sim *s, uint8_t *mad, uint16_t attr, uint32_t comm)
{
	synth_cm_mad(mad, attr, &s->rng, 4);
	synth_be32(mad + 24, comm);
}

static inline void sim_cm(struct sim *s, uint64_t t, int a_to_b, uint16_t attr, uint32_t comm, uint32_t rcomm, uint32_t qpn)
{
	uint8_t mad[RT_MAD_LEN];
	sim_cm_mad(s, mad, attr, comm);
	uint8_t *cm = mad + 24;
	if (attr == RT_CM_REQ) {
		synth_be24(cm + 32, qpn);
		/* what A's QP is set up with: ACK timeout, retry and RNR retry counts */
		cm[95] = (uint8_t)(s->c.timeout << 3);
		cm[47] = (uint8_t)((cm[47] & ~7) | (s->c.retry_cnt & 7));
		cm[50] = (uint8_t)((cm[50] & ~7) | (s->c.rnr_retry & 7));
	} else {
		synth_be32(mad + 28, rcomm);
		if (attr == RT_CM_REP) {
			synth_be24(cm + 12, qpn);
			cm[27] = (uint8_t)((cm[27] & 0x1F) | (s->c.rnr_retry & 7) << 5);
		}
	}
	sim_mad(s, t, a_to_b, mad);
}

/* A CM REJ of message msg (0 REQ, 1 REP) with a reason and private data
 * pd[pd_len] (at most 148 bytes); comm is the sender's communication ID,
 * rcomm the other side's (0 when unknown). */
static inline void sim_cm_rej_data(struct sim *s, uint64_t t, int a_to_b, uint32_t comm, uint32_t rcomm, unsigned msg,
				   unsigned reason, const void *pd, size_t pd_len)
{
	uint8_t mad[RT_MAD_LEN];
	sim_cm_mad(s, mad, RT_CM_REJ, comm);
	synth_be32(mad + 28, rcomm);
	mad[24 + 8] = (uint8_t)(msg << 6);
	synth_be16(mad + 24 + 10, (uint16_t)reason);
	if (pd_len)
		memcpy(mad + 24 + 84, pd, pd_len);
	sim_mad(s, t, a_to_b, mad);
}

/* A REQ from A for port `port` of the RDMA CM's TCP port space (its
 * service ID), its other fields as synth_cm_mad makes them. */
/* A REQ from A for an RDMA CM service: port in port_space (RDMA_PS_*,
 * whose low byte the service ID carries). */
static inline void sim_cm_req_service(struct sim *s, uint64_t t, uint32_t comm, uint16_t port_space, uint16_t port)
{
	uint8_t mad[RT_MAD_LEN];
	sim_cm_mad(s, mad, RT_CM_REQ, comm);
	synth_be64(mad + 24 + 8, 0x0000000001000000ull | (uint64_t)(port_space & 0xff) << 16 | port);
	sim_mad(s, t, 1, mad);
}

/* A UD service request (SIDR REQ) from A for port in port_space, request
 * ID id; and B's answer (SIDR REP) with a status (0: the service's QP). */
static inline void sim_cm_sidr_req(struct sim *s, uint64_t t, uint32_t id, uint16_t port_space, uint16_t port)
{
	uint8_t mad[RT_MAD_LEN];
	sim_cm_mad(s, mad, RT_CM_SIDR_REQ, id);
	synth_be64(mad + 24 + 8, 0x0000000001000000ull | (uint64_t)(port_space & 0xff) << 16 | port);
	sim_mad(s, t, 1, mad);
}

static inline void sim_cm_sidr_rep(struct sim *s, uint64_t t, uint32_t id, uint8_t status)
{
	uint8_t mad[RT_MAD_LEN];
	sim_cm_mad(s, mad, RT_CM_SIDR_REP, id);
	mad[24 + 4] = status;
	sim_mad(s, t, 0, mad);
}

static inline void sim_cm_req_port(struct sim *s, uint64_t t, uint32_t comm, uint16_t port)
{
	sim_cm_req_service(s, t, comm, 0x106, port); /* RDMA_PS_TCP */
}

static inline void sim_cm_rej(struct sim *s, uint64_t t, int a_to_b, uint32_t comm, uint32_t rcomm, unsigned msg,
			      unsigned reason)
{
	sim_cm_rej_data(s, t, a_to_b, comm, rcomm, msg, reason, NULL, 0);
}

static inline void sim_qp_state(struct sim *s, int host_b, uint64_t t, unsigned to, uint32_t qpn, uint32_t dest, uint32_t sq_psn,
				uint32_t rq_psn)
{
	struct rt_event e = sim_ev(s, host_b, t, RT_EV_QP_STATE, qpn);
	e.u.qp_state.from_state = (uint8_t)(to - 1);
	e.u.qp_state.to_state = (uint8_t)to;
	e.u.qp_state.qp_type = 2;
	if (to == 2) { /* RTR */
		e.u.qp_state.attr_mask = 1 | (1u << 8) | (1u << 12) | (1u << 20) | (1u << 15) | (1u << 17) | 128;
		e.u.qp_state.dest_qpn = dest;
		e.u.qp_state.rq_psn = rq_psn;
		e.u.qp_state.path_mtu = (uint8_t)(s->c.mtu == 4096 ? 5 : s->c.mtu == 2048 ? 4 : s->c.mtu == 1024 ? 3 : s->c.mtu == 512 ? 2 : 1);
		e.u.qp_state.min_rnr_timer = host_b ? s->c.min_rnr_timer_b : 12;
	} else if (to == 3) { /* RTS */
		e.u.qp_state.attr_mask = 1 | (1u << 9) | (1u << 10) | (1u << 11) | (1u << 16) | (1u << 13);
		e.u.qp_state.sq_psn = sq_psn;
		e.u.qp_state.timeout = s->c.timeout;
		e.u.qp_state.retry_cnt = s->c.retry_cnt;
		e.u.qp_state.rnr_retry = s->c.rnr_retry;
	}
	sim_emit(s, host_b, &e);
}

/* An RDMA CM record of host A's or B's at t (an event or, RT_CM_CALL_*, a
 * call) on cm_id id, bound to the host's own IPv4 address and local_port;
 * no peer. */
static inline struct rt_event sim_cm_record(struct sim *s, int host_b, uint64_t t, unsigned event, uint32_t qpn, uint32_t id,
					    uint16_t local_port)
{
	struct rt_event e = sim_ev(s, host_b, t, RT_EV_CM_EVENT, qpn);
	e.u.cm.event = (uint8_t)event;
	e.u.cm.family = 2;
	uint8_t a[4] = {10, 9, 0, 2}, b[4] = {10, 9, 0, 1};
	memcpy(&e.u.cm.local_ip4, host_b ? b : a, 4);
	e.u.cm.local_port = local_port;
	e.u.cm.cm_id = id;
	return e;
}

/* An event of the run's connection (cm_id 1 on A, 2 on B). */
static inline void sim_cm_event(struct sim *s, int host_b, uint64_t t, unsigned event, uint32_t qpn)
{
	/* B listens on 7471, A connects from 50001 */
	struct rt_event e = sim_cm_record(s, host_b, t, event, qpn, host_b ? 2 : 1, host_b ? 7471 : 50001);
	uint8_t a[4] = {10, 9, 0, 2}, b[4] = {10, 9, 0, 1};
	memcpy(&e.u.cm.peer_ip4, host_b ? a : b, 4);
	e.u.cm.peer_port = host_b ? 50001 : 7471;
	sim_emit(s, host_b, &e);
}

/* A CM call of host A's or B's at t: what it did (RT_CM_CALL_*), on cm_id
 * id, bound to the host's address and port. */
static inline void sim_cm_call(struct sim *s, int host_b, uint64_t t, unsigned what, uint32_t id, uint16_t port)
{
	struct rt_event e = sim_cm_record(s, host_b, t, what, 0, id, port);
	sim_emit(s, host_b, &e);
}

static inline int sim_open(struct sim *s, const char *dir, const struct sim_cfg *cfg)
{
	memset(s, 0, sizeof(*s));
	s->c = *cfg;
	if (!s->c.mtu)
		s->c.mtu = 1024;
	if (!s->c.link_ns)
		s->c.link_ns = 5000;
	snprintf(s->dir, sizeof(s->dir), "%s", dir);
	char p[1200];
	mkdir(dir, 0755);
	snprintf(p, sizeof(p), "%s/traces", dir);
	mkdir(p, 0755);
	if (!s->c.no_capture) {
		snprintf(p, sizeof(p), "%s/capture.pcap", dir);
		if (!(s->pcap = synth_pcap_open(p, 1)))
			return -errno;
	}
	s->rng = 0xC0FFEE;
	s->now = s->c.t0;
	s->a_psn = s->c.psn_a;
	s->b_epsn = s->c.psn_a;
	s->mr_rkey = 0x297;
	s->mr_va = 0x7fc27c70b010ull;
	uint64_t L = s->c.link_ns, t = s->now;
	/* connection setup: A resolves, REQ, B CONNECT_REQUEST, B RTR/RTS + REP, A RTR/RTS + RTU, both ESTABLISHED
	 * (without RDMA CM: the modifies alone) */
	int cm = !s->c.no_cm;
	if (cm) {
		sim_cm_event(s, 0, t, 0, 0);
		sim_cm_event(s, 0, t + 1000, 2, 0);
	}
	t += 2000;
	if (cm)
		sim_cm(s, t + L, 1, RT_CM_REQ, 0x1111, 0, s->c.qpn_a);
	t += 2 * L;
	if (cm)
		sim_cm_event(s, 1, t + 1000, 4, 0);
	sim_qp_state(s, 1, t + 2000, 1, s->c.qpn_b, 0, 0, 0);
	sim_qp_state(s, 1, t + 3000, 2, s->c.qpn_b, s->c.qpn_a, 0, s->c.psn_a);
	sim_qp_state(s, 1, t + 4000, 3, s->c.qpn_b, 0, s->c.psn_b, 0);
	t += 5000;
	if (cm)
		sim_cm(s, t + L, 0, RT_CM_REP, 0x2222, 0x1111, s->c.qpn_b);
	t += 2 * L;
	sim_qp_state(s, 0, t + 1000, 1, s->c.qpn_a, 0, 0, 0);
	sim_qp_state(s, 0, t + 2000, 2, s->c.qpn_a, s->c.qpn_b, 0, s->c.psn_b);
	sim_qp_state(s, 0, t + 3000, 3, s->c.qpn_a, 0, s->c.psn_a, 0);
	t += 4000;
	if (cm) {
		sim_cm_event(s, 0, t, 9, s->c.qpn_a);
		sim_cm(s, t + L, 1, RT_CM_RTU, 0x1111, 0x2222, 0);
	}
	t += 2 * L;
	if (cm)
		sim_cm_event(s, 1, t + 1000, 9, s->c.qpn_b);
	s->now = t + 10000;
	return 0;
}

static inline void sim_post_recv(struct sim *s, uint64_t wr_id, uint32_t len)
{
	struct rt_event e = sim_ev(s, 1, s->now, RT_EV_WR_POST, s->c.qpn_b);
	e.u.wr.wr_id = wr_id;
	e.u.wr.length = len;
	e.u.wr.queue = RT_WRQ_RECV;
	e.u.wr.num_sge = 1;
	sim_emit(s, 1, &e);
	if (s->rq_n == s->rq_cap) {
		s->rq_cap = s->rq_cap ? s->rq_cap * 2 : 64;
		s->rq = realloc(s->rq, s->rq_cap * sizeof(*s->rq));
		if (!s->rq)
			abort();
	}
	s->rq[s->rq_n++] = wr_id;
	s->now += 500;
}

static inline void sim_completion(struct sim *s, int host_b, uint64_t t, uint64_t wr_id, unsigned status, unsigned opcode,
				  uint32_t len)
{
	struct rt_event e = sim_ev(s, host_b, t, RT_EV_COMPLETION, host_b ? s->c.qpn_b : s->c.qpn_a);
	e.u.wc.wr_id = wr_id;
	e.u.wc.status = (uint8_t)status;
	e.u.wc.opcode = (uint8_t)opcode;
	e.u.wc.byte_len = len;
	e.u.wc.src_qp = host_b ? s->c.qpn_a : s->c.qpn_b;
	if (status)
		e.flags |= RT_EVF_ERROR;
	sim_emit(s, host_b, &e);
}

/* B's acknowledgement (ACK, NAK or RNR NAK) of psn. */
static inline void sim_ack(struct synth *r, uint32_t psn, uint8_t syndrome, uint32_t msn)
{
	r->opcode = RT_OP_RC_ACKNOWLEDGE;
	r->psn = psn;
	r->syndrome = syndrome;
	r->msn = msn;
}

/* One WR from A: opcode 0 RDMA_WRITE or 2 SEND.  Returns the completion status. */
static inline unsigned sim_wr(struct sim *s, uint64_t wr_id, unsigned opcode, uint32_t len, int signaled,
			      const struct sim_fault *f)
{
	uint64_t L = s->c.link_ns;
	uint32_t n = rt_packets_for(len, s->c.mtu);
	uint32_t psn0 = s->a_psn;
	struct rt_event e = sim_ev(s, 0, s->now, RT_EV_WR_POST, s->c.qpn_a);
	e.u.wr.wr_id = wr_id;
	e.u.wr.length = len;
	e.u.wr.opcode = (uint8_t)opcode;
	e.u.wr.queue = RT_WRQ_SEND;
	e.u.wr.num_sge = 1;
	e.u.wr.remote_addr = opcode == 0 ? s->mr_va : 0;
	e.u.wr.rkey = opcode == 0 ? (f->bad_rkey ? 0xbad : s->mr_rkey) : 0;
	e.u.wr.flags = (uint8_t)(signaled ? RT_WRF_SIGNALED : 0);
	if (s->c.psn_valid) {
		e.u.wr.flags |= RT_WRF_PSN_VALID;
		e.u.wr.first_psn = psn0;
		e.u.wr.last_psn = rt_psn_add(psn0, (int32_t)n - 1);
	}
	sim_emit(s, 0, &e);
	unsigned wc_op = opcode == 0 ? 1 : 0;
	if (s->a_error) {
		sim_completion(s, 0, s->now + 2000, wr_id, 5, wc_op, 0);
		s->now += 3000;
		return 5;
	}
	s->a_psn = rt_psn_add(psn0, (int32_t)n);
	uint64_t t = s->now + 1000;
	uint8_t *sent = calloc(n, 1); /* per packet: transmissions so far */
	if (!sent)
		abort();
	uint32_t start = 0;
	unsigned retries = 0, rnr = 0, status = 0;
	int first_round = 1, second_round = 0, nak_gone = 0, ack_gone = 0;
	uint64_t rnr_post_at = 0;
	uint8_t retry_cause = 0; /* sim_cfg.nak_once with engine_pkts: the round's retry, traced */
	for (;;) {
		if (retry_cause && s->c.nak_once && s->c.engine_pkts) {
			struct rt_event re = sim_ev(s, 0, t - 100, RT_EV_RETRY, s->c.qpn_a);
			re.flags = RT_EVF_ENGINE;
			re.u.retry.first_psn = rt_psn_add(psn0, (int32_t)start);
			re.u.retry.last_psn = rt_psn_add(psn0, (int32_t)n - 1);
			re.u.retry.cause = retry_cause;
			re.u.retry.timeout_us = (uint32_t)rt_ack_timeout_us(s->c.timeout);
			re.u.retry.retries_left = 7;
			sim_emit(s, 0, &re);
		}
		/* send packets start..n-1; B processes them in order */
		int answered = 0;
		uint64_t tb_resp = 0;
		struct synth resp;
		memset(&resp, 0, sizeof(resp));
		int nak_sent = 0, seq_behind = 0;
		uint64_t tb_seq = 0;
		for (uint32_t i = start; i < n; i++) {
			uint32_t psn = rt_psn_add(psn0, (int32_t)i);
			struct synth p;
			memset(&p, 0, sizeof(p));
			uint32_t plen = i + 1 < n ? s->c.mtu : len - (n - 1) * s->c.mtu;
			static uint8_t zero[8192];
			int first = i == 0, last = i + 1 == n;
			if (opcode == 0)
				p.opcode = n == 1 ? RT_OP_RC_WRITE_ONLY : first ? RT_OP_RC_WRITE_FIRST : last ? RT_OP_RC_WRITE_LAST : RT_OP_RC_WRITE_MIDDLE;
			else
				p.opcode = n == 1 ? RT_OP_RC_SEND_ONLY : first ? RT_OP_RC_SEND_FIRST : last ? RT_OP_RC_SEND_LAST : RT_OP_RC_SEND_MIDDLE;
			p.dqpn = s->c.qpn_b;
			p.psn = psn;
			p.ackreq = last;
			p.va = s->mr_va;
			p.rkey = f->bad_rkey ? 0xbad : s->mr_rkey;
			p.dmalen = len;
			p.payload = zero;
			p.payload_len = plen;
			int lost_before = f->peer_dead ? 0 : (first_round && (int)i == f->lose_before) ||
							     (second_round && (int)i == f->lose_resend_before);
			int damaged = first_round && last && f->damage_last;
			int lost_after = f->peer_dead || (first_round && (int)i == f->lose_after) || damaged;
			p.corrupt_icrc = damaged;
			struct rt_event pe;
			if (s->c.engine_pkts) {
				pe = sim_ev(s, 0, t, RT_EV_PACKET, s->c.qpn_a);
				pe.flags = RT_EVF_TX | RT_EVF_ENGINE;
				pe.u.pkt.psn = psn;
				pe.u.pkt.dest_qpn = s->c.qpn_b;
				pe.u.pkt.opcode = p.opcode;
				pe.u.pkt.payload_len = (uint16_t)plen;
				pe.u.pkt.retrans_count = sent[i];
				pe.u.pkt.flags = (uint8_t)((last ? RT_PKTF_ACKREQ : 0) | (sent[i] ? RT_PKTF_RETRANS : 0) |
							   (lost_before ? RT_PKTF_DROPPED : 0));
				sim_emit(s, 0, &pe);
			}
			if (sent[i] < 255)
				sent[i]++;
			if (!lost_before)
				sim_wire(s, t + L, 1, &p);
			if (lost_after && !f->peer_dead && f->lose_after_reason) { /* B read it, and dropped it */
				struct rt_event de = sim_ev(s, 1, t + 2 * L, RT_EV_PACKET, s->c.qpn_b);
				de.flags = RT_EVF_ENGINE;
				de.u.pkt.psn = psn;
				de.u.pkt.dest_qpn = s->c.qpn_b;
				de.u.pkt.opcode = p.opcode;
				de.u.pkt.payload_len = (uint16_t)plen;
				de.u.pkt.flags = RT_PKTF_DROPPED;
				de.u.pkt.drop_reason = (uint8_t)f->lose_after_reason;
				sim_emit(s, 1, &de);
			}
			/* the network copies it (dup_on_wire, dup_first_resend) */
			int copied = (first_round && (int)i == f->dup_on_wire && !last) ||
				     (second_round && i == start && f->dup_first_resend) ||
				     (first_round && s->c.dup_stream_start && psn == s->c.psn_a);
			if (!lost_before && copied) {
				sim_wire(s, t + L + 300, 1, &p); /* the same frame again; B discards it */
				if (s->c.engine_pkts && f->dup_resent) { /* a retry, then the resend */
					struct rt_event re = sim_ev(s, 0, t + 200, RT_EV_RETRY, s->c.qpn_a);
					re.flags = RT_EVF_ENGINE;
					re.u.retry.first_psn = psn;
					re.u.retry.last_psn = psn;
					re.u.retry.cause = RT_RETRY_NAK_SEQ;
					re.u.retry.retries_left = 7;
					sim_emit(s, 0, &re);
					struct rt_event rs = sim_ev(s, 0, t + 300, RT_EV_PACKET, s->c.qpn_a);
					rs.flags = pe.flags;
					rs.u.pkt = pe.u.pkt;
					rs.u.pkt.retrans_count = 1;
					rs.u.pkt.flags |= RT_PKTF_RETRANS;
					sim_emit(s, 0, &rs);
				} else if (s->c.engine_pkts) { /* the same transmission, traced twice (uroce's dup fault) */
					pe.ticks += 300;
					pe.seq = s->seq++; /* the next in its thread, from the shared count */
					sim_emit(s, 0, &pe);
				}
			}
			uint64_t tb = t + 2 * L;
			t += 1000;
			if (answered && !lost_before && !lost_after && f->rnr_seq_nak && !seq_behind &&
			    rt_aeth_type(resp.syndrome) == RT_AETH_RNR_NAK) {
				seq_behind = 1; /* a request behind the RNR-NAKed one */
				tb_seq = tb + 2000;
			}
			if (lost_before || lost_after || answered)
				continue;
			/* B */
			if (psn != s->b_epsn) {
				if (rt_psn_diff(psn, s->b_epsn) < 0 && last) {
					/* a duplicate asking for an ACK: B acknowledges what it has */
					answered = 1;
					tb_resp = tb + 2000;
					sim_ack(&resp, rt_psn_add(s->b_epsn, -1), rt_aeth_syndrome(RT_AETH_ACK, 31), s->b_msn);
				}
				if (rt_psn_diff(psn, s->b_epsn) > 0 && !nak_sent &&
				    !(s->c.nak_once && s->b_nak_waits && s->b_nakked == s->b_epsn)) {
					nak_sent = 1;
					s->b_nakked = s->b_epsn;
					s->b_nak_waits = 1;
					answered = 1;
					tb_resp = tb + 2000;
					sim_ack(&resp, s->b_epsn, rt_aeth_syndrome(RT_AETH_NAK, RT_NAK_PSN_SEQ_ERROR), s->b_msn);
				}
				continue;
			}
			if (f->bad_rkey && opcode == 0) {
				answered = 1;
				tb_resp = tb + 2000;
				sim_ack(&resp, psn, rt_aeth_syndrome(RT_AETH_NAK, RT_NAK_REMOTE_ACCESS_ERROR), s->b_msn);
				continue;
			}
			if (opcode == 2 && f->recv_room && (i + 1) * s->c.mtu > f->recv_room && s->rq_head < s->rq_n) {
				answered = 1;
				tb_resp = tb + 2000;
				sim_ack(&resp, psn, rt_aeth_syndrome(RT_AETH_NAK, RT_NAK_REMOTE_OP_ERROR), s->b_msn);
				sim_completion(s, 1, tb + 3000, s->rq[s->rq_head++], 2, 0, 0);
				continue;
			}
			if (opcode == 2 && first) {
				if (rnr_post_at && tb >= rnr_post_at) {
					struct rt_event r = sim_ev(s, 1, rnr_post_at, RT_EV_WR_POST, s->c.qpn_b);
					r.u.wr.wr_id = 9000 + wr_id;
					r.u.wr.length = 65536;
					r.u.wr.queue = RT_WRQ_RECV;
					sim_emit(s, 1, &r);
					if (s->rq_n == s->rq_cap) {
						s->rq_cap = s->rq_cap ? s->rq_cap * 2 : 64;
						s->rq = realloc(s->rq, s->rq_cap * sizeof(*s->rq));
					}
					s->rq[s->rq_n++] = 9000 + wr_id;
					rnr_post_at = 0;
				}
				if (s->rq_head == s->rq_n) {
					answered = 1;
					tb_resp = tb + 2000;
					unsigned code = s->c.rnr_timer_b2_at && tb >= s->c.rnr_timer_b2_at ? s->c.min_rnr_timer_b2
													    : s->c.min_rnr_timer_b;
					if (code == s->c.min_rnr_timer_b2 && s->c.rnr_timer_b2_traced && !s->rnr_timer_b2_told) {
						struct rt_event m = sim_ev(s, 1, s->c.rnr_timer_b2_at, RT_EV_QP_STATE, s->c.qpn_b);
						m.u.qp_state.from_state = m.u.qp_state.to_state = 3;
						m.u.qp_state.qp_type = 2;
						m.u.qp_state.attr_mask = 1u << 15; /* IBV_QP_MIN_RNR_TIMER */
						m.u.qp_state.min_rnr_timer = s->c.min_rnr_timer_b2;
						sim_emit(s, 1, &m);
						s->rnr_timer_b2_told = 1;
					}
					sim_ack(&resp, psn, rt_aeth_syndrome(RT_AETH_RNR_NAK, code), s->b_msn);
					continue;
				}
			}
			s->b_epsn = rt_psn_add(psn, 1);
			s->b_nak_waits = 0;
			if (last) {
				s->b_msn++;
				if (opcode == 2) {
					uint64_t rid = s->rq[s->rq_head++];
					sim_completion(s, 1, tb + 3000, rid, 0, 128, len);
				}
				answered = 1;
				tb_resp = tb + 2000;
				sim_ack(&resp, psn, rt_aeth_syndrome(RT_AETH_ACK, 31), s->b_msn);
			}
		}
		second_round = first_round;
		first_round = 0;
		/* a response the capture saw but A did not (lose_nak_after), or one
		 * lost before the capture point (lose_ack_before), is to A no
		 * response at all */
		unsigned type = rt_aeth_type(resp.syndrome), val = rt_aeth_value(resp.syndrome);
		int ack_lost = answered && f->lose_ack_before && !ack_gone && type == RT_AETH_ACK;
		int ack_after = answered && f->lose_ack_after && !ack_gone && type == RT_AETH_ACK;
		int nak_lost = answered && f->lose_nak_after && !nak_gone && type != RT_AETH_ACK;
		int nak_dropped = answered && f->drop_nak_tx && !nak_gone && type == RT_AETH_NAK;
		if (nak_dropped) {
			struct rt_event ne = sim_ev(s, 1, tb_resp, RT_EV_PACKET, s->c.qpn_b);
			ne.flags = RT_EVF_TX | RT_EVF_ENGINE;
			ne.u.pkt.psn = resp.psn;
			ne.u.pkt.dest_qpn = s->c.qpn_a;
			ne.u.pkt.opcode = RT_OP_RC_ACKNOWLEDGE;
			ne.u.pkt.syndrome = resp.syndrome;
			ne.u.pkt.flags = RT_PKTF_DROPPED;
			sim_emit(s, 1, &ne);
			nak_lost = 1;
		}
		if (answered) {
			resp.dqpn = s->c.qpn_a;
			if (!ack_lost && !nak_dropped)
				sim_wire(s, tb_resp + L, 0, &resp);
			if (f->nak_error_twice && type == RT_AETH_NAK && val != RT_NAK_PSN_SEQ_ERROR) {
				struct synth copy = resp;
				sim_wire(s, tb_resp + L + 20000, 0, &copy);
			}
			if (seq_behind) {
				struct synth q = resp;
				q.syndrome = rt_aeth_syndrome(RT_AETH_NAK, RT_NAK_PSN_SEQ_ERROR);
				sim_wire(s, (tb_seq > tb_resp ? tb_seq : tb_resp + 1) + L, 0, &q);
			}
		}
		ack_gone |= ack_lost || ack_after;
		if (nak_lost) {
			nak_gone = 1;
			if (type == RT_AETH_RNR_NAK && f->rnr_post_after_ns >= 0)
				rnr_post_at = tb_resp - 2000 + (uint64_t)f->rnr_post_after_ns; /* B posts as planned */
		}
		if (!answered || ack_lost || ack_after || nak_lost) {
			/* local ACK timeout */
			uint64_t to = rt_ack_timeout_us(s->c.timeout) * 1000;
			t += to;
			if (++retries > s->c.retry_cnt) {
				status = 12;
				break;
			}
			start = 0; /* Go-Back-N from the oldest unacknowledged PSN */
			retry_cause = RT_RETRY_ACK_TIMEOUT;
			continue;
		}
		uint64_t ta = tb_resp + 2 * L;
		if (type == RT_AETH_ACK) {
			t = ta;
			break;
		}
		if (type == RT_AETH_RNR_NAK) {
			if (!rnr && f->rnr_post_after_ns >= 0)
				rnr_post_at = tb_resp - 2000 + (uint64_t)f->rnr_post_after_ns;
			if (++rnr > s->c.rnr_retry && s->c.rnr_retry != 7) {
				t = ta;
				status = 13;
				break;
			}
			t = ta + rt_rnr_timer_us(val) * 1000ull;
			start = (uint32_t)rt_psn_diff(resp.psn, psn0);
			retry_cause = RT_RETRY_RNR;
			continue;
		}
		if (val == RT_NAK_PSN_SEQ_ERROR) {
			t = ta + 1000;
			start = (uint32_t)rt_psn_diff(resp.psn, psn0);
			retry_cause = RT_RETRY_NAK_SEQ;
			continue;
		}
		t = ta;
		status = val == RT_NAK_REMOTE_ACCESS_ERROR ? 10 : val == RT_NAK_INVALID_REQUEST ? 9 : 11;
		break;
	}
	free(sent);
	if (status)
		s->a_error = 1;
	if (signaled || status)
		sim_completion(s, 0, t + 3000, wr_id, status, wc_op, status ? 0 : len);
	s->now = t + 5000;
	return status;
}

static inline int sim_ev_cmp(const void *a, const void *b)
{
	const struct rt_event *x = a, *y = b;
	if (x->ticks != y->ticks)
		return x->ticks < y->ticks ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static inline int sim_write_trace(struct sim *s, int host_b)
{
	struct sim_evbuf *b = host_b ? &s->eb : &s->ea;
	if (host_b ? s->c.no_trace_b : s->c.no_trace_a)
		return 0;
	qsort(b->v, b->n, sizeof(*b->v), sim_ev_cmp);
	if (!host_b && s->c.step_a_ns && b->n > 2) {
		uint64_t at[2] = {b->v[0].ticks, b->v[b->n / 2].ticks};
		for (int i = 0; i < 2; i++) {
			struct rt_event p;
			memset(&p, 0, sizeof(p));
			p.ticks = p.u.clock.ticks = p.u.clock.mono_ns = at[i];
			p.u.clock.real_ns = at[i] + (uint64_t)(i ? s->c.step_a_ns : 0);
			p.seq = s->seq++;
			p.tid = 100;
			p.kind = RT_EV_CLOCK_SYNC;
			sim_push(b, &p);
		}
		qsort(b->v, b->n, sizeof(*b->v), sim_ev_cmp);
	}
	if (host_b && s->c.heartbeat_b && b->n) {
		uint64_t first = b->v[0].ticks, last = s->now + (uint64_t)s->c.off_b; /* (to the end of the run) */
		for (uint64_t t = first; t <= last; t += 1000000000ull) {
			struct rt_event p;
			memset(&p, 0, sizeof(p));
			p.ticks = p.u.clock.ticks = p.u.clock.mono_ns = p.u.clock.real_ns = t;
			p.seq = s->seq++;
			p.tid = 201;
			p.kind = RT_EV_CLOCK_SYNC;
			sim_push(b, &p);
		}
		qsort(b->v, b->n, sizeof(*b->v), sim_ev_cmp);
	}
	if (host_b && (s->c.freeze_b_ns || s->c.cut_b_at)) { /* what B could not record */
		size_t kept = 0;
		for (size_t i = 0; i < b->n; i++) {
			uint64_t t = b->v[i].ticks - (uint64_t)s->c.off_b;
			bool frozen = s->c.freeze_b_ns && t >= s->c.freeze_b_at && t < s->c.freeze_b_at + s->c.freeze_b_ns;
			if (!frozen && !(s->c.cut_b_at && t >= s->c.cut_b_at))
				b->v[kept++] = b->v[i];
		}
		b->n = kept;
	}
	struct rt_file_header h;
	rt_file_header_init(&h);
	h.pid = host_b ? 200 : 100;
	h.mode = host_b && s->c.heartbeat_b ? 0 : 1; /* RT_MODE_STREAM : RT_MODE_FLIGHT_RECORDER */
	snprintf(h.program, sizeof(h.program), "%s", host_b ? "server" : "client");
	snprintf(h.host, sizeof(h.host), "%s", host_b ? "hostB" : "hostA");
	snprintf(h.boot_id, sizeof(h.boot_id), "%s", host_b ? "boot-b" : "boot-a");
	memset(&h.calib, 0, sizeof(h.calib));
	h.calib.source = 1; /* RT_CLOCK_MONOTONIC: ticks are ns */
	char p[1200];
	snprintf(p, sizeof(p), "%s/traces/%s-%d-%s.rtr", s->dir, h.host, h.pid, h.program);
	struct rt_trace_writer w;
	char err[256];
	int rc = rt_trace_writer_open(&w, p, &h, err, sizeof(err));
	if (rc < 0)
		return rc;
	rc = rt_trace_writer_events(&w, h.pid, 0, h.pid, 0, b->v, b->n);
	int rc2 = rt_trace_writer_close(&w);
	return rc ? rc : rc2;
}

static inline int sim_close(struct sim *s)
{
	int rc = 0;
	if (s->nframes)
		qsort(s->frames, s->nframes, sizeof(*s->frames), sim_frame_cmp);
	for (size_t i = 0; i < s->nframes; i++) {
		if (s->pcap)
			synth_pcap_add(s->pcap, s->frames[i].t, s->frames[i].bytes, s->frames[i].len, s->frames[i].len);
		free(s->frames[i].bytes);
	}
	free(s->frames);
	if (s->pcap && fclose(s->pcap))
		rc = -EIO;
	s->pcap = NULL;
	if (!rc)
		rc = sim_write_trace(s, 0);
	if (!rc)
		rc = sim_write_trace(s, 1);
	free(s->ea.v);
	free(s->eb.v);
	free(s->rq);
	return rc;
}

#endif

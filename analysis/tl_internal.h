/*
 * Internals of the timeline (include/rdmatrace/timeline.h) shared by the
 * files of analysis/: the in-memory object (the same for a built and a
 * mapped timeline), the persisted side records, and the build context that
 * the builder, the clock alignment, the detectors and the annotator share.
 */
#ifndef RDMATRACE_TL_INTERNAL_H
#define RDMATRACE_TL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rdmatrace/roce_decode.h"
#include "rdmatrace/timeline.h"

/* Persisted: one trace event. */
struct tl_evrec {
	struct rt_event ev;
	uint64_t raw_ns;          /* the host's wall clock as the reader converted it */
	uint32_t row;
	uint16_t host, proc;
};

/* Persisted: one captured RoCE packet, with what its annotation needs. */
struct tl_pktrec {
	uint64_t raw_ns;          /* capture timestamp */
	uint64_t blob_off;        /* stored header bytes */
	uint32_t blob_len;
	uint32_t wirelen;
	uint32_t frame;
	uint32_t row;
	uint16_t linktype;
	uint8_t icrc;
	uint8_t retrans;          /* transmission number - 1 */
	uint32_t send_qp;         /* QP index of the sender, RT_TL_NONE */
	uint32_t wr;              /* build: WR item; file: WR row (RT_TL_NONE) */
	uint32_t answer_frame;    /* request: frame of the covering ACK/NAK (0 none) */
	uint32_t ack_latency_ns;  /* request: capture time to that answer (saturated) */
	uint32_t findings[2];     /* finding ids, 0 none */
	uint32_t psn, dqpn;
	uint16_t wr_pkt_index;
	uint8_t wr_pkt_count;
	uint8_t retrans_cause;    /* enum rt_retry_cause */
	uint8_t op_class, aeth_type, aeth_value;
	uint8_t bits;             /* TL_PKB_* */
};

enum {
	TL_PKB_REQUEST = 1u << 0,
	TL_PKB_DUP = 1u << 1,
	TL_PKB_OOO = 1u << 2,
	TL_PKB_CM = 1u << 3,
	TL_PKB_AETH = 1u << 4,
	TL_PKB_LATE = 1u << 5,    /* tl_pk.late: held back on the way */
	TL_PKB_COPY = 1u << 6,    /* tl_pk.wire_copy: a copy made on the way */
	TL_PKB_HELD = 1u << 7,    /* late, and its sending engine held it back (tl_engine_held) */
};

/* struct tl_build.proc_bits */
enum {
	TL_PROC_FLIGHT = 1u << 0, /* its trace came from a flight recorder (written on a trigger, not as
				   * it ran) */
	TL_PROC_SYNCED = 1u << 1, /* its collector noted the clock (RT_EV_CLOCK_SYNC records) */
};

#define TL_NSECT 14
struct tl_release;
struct tl_presave;
struct rt_timeline {
	const struct rt_tl_row *rows;
	size_t nrows;
	const struct rt_tl_link *links;
	size_t nlinks;
	const char *strs;
	size_t nstrs;
	const struct rt_tl_host *hosts;
	size_t nhosts;
	const struct rt_tl_proc *procs;
	size_t nprocs;
	const struct rt_tl_qp *qps;
	size_t nqps;
	const struct rt_tl_finding *findings;
	size_t nfindings;
	const struct tl_evrec *events;
	size_t nevents;
	const struct tl_pktrec *pkts;
	size_t npkts;
	const uint8_t *blob;
	size_t nblob;
	const uint32_t *notes;    /* string offsets */
	size_t nnotes;
	const uint32_t *match[RT_TLM_COUNT_]; /* row indices per predicate, ascending */
	size_t nmatch[RT_TLM_COUNT_];
	uint32_t capture_path;
	uint64_t input_stamp;     /* tl_input_stamp() of the inputs it was built from, 0 unknown */
	char *prepared;           /* the save's temporary file the build prepared (tl_file_prepare), NULL none */
	struct tl_presave *presave; /* the records being written into prepared (tl_file.c), NULL none */
	struct tl_release *release; /* the file a save replaced, being given back (tl_file.c), NULL none */
	/* ownership */
	void *map;
	size_t map_len;
	void *owned[32];
	size_t nowned;
};

/* The input stamp recorded in the header of a saved timeline (0 when it has
 * none); -errno when the file is missing, damaged or of another version. */
int tl_file_stamp(const char *path, uint64_t *stamp);

/* ---- growable arrays ---- */
struct tl_vec {
	void *p;
	size_t n, cap, esz;
	size_t ready;             /* bytes from the start already faulted in (tl_vec_push) */
};
void tl_vec_init(struct tl_vec *v, size_t esz);
/* Room for one more element; returns it zeroed, NULL on allocation failure. */
void *tl_vec_push(struct tl_vec *v);
/* Append x to a vector of uint32_t; -ENOMEM on allocation failure. */
int tl_vec_push_u32(struct tl_vec *v, uint32_t x);
int tl_vec_reserve(struct tl_vec *v, size_t n);
void tl_vec_free(struct tl_vec *v);
#define TL_AT(v, type, i) (&((type *)(v)->p)[i])

/* ---- build context ---- */

/* An item is a trace event [0, nev), a packet [nev, nev+npk) or a finding after that. */

/* Decoded packet during the build.  What the capture reader sets from the
 * record (raw_ns, frame, icrc, linktype, kept, wirelen) does not change
 * after: the packet records are made from it while the linking runs.
 * Widest fields first and the flags in bits: a 1 M packet capture makes a
 * million of these on the capture thread, whose memory is new (zeroed by
 * the kernel, about 0.5 ns a byte), and the linking and rows read them
 * all again. */
struct tl_pk {
	uint64_t raw_ns;
	uint64_t reth_va;
	uint32_t frame;
	uint32_t psn, dqpn;
	uint32_t payload_len;
	uint32_t reth_len, reth_rkey;
	uint32_t src_ep, dst_ep;  /* endpoint (IP address) indices */
	uint32_t send_qp, recv_qp;/* QP list indices (RT_TL_NONE unknown) */
	uint32_t wr;              /* item of the send WR (RT_TL_NONE) */
	uint32_t recv_wr;         /* item of the consumed receive WR */
	uint32_t original;        /* first transmission of this PSN (packet index) */
	uint32_t prev_tx;         /* retransmission: the transmission it repeats (the latest
				   * earlier one of its PSN, or the READ whose responses it asks
				   * for again), RT_TL_NONE when none was captured */
	uint32_t answer;          /* response: the request packet it answers; request: covering ACK packet */
	uint32_t event;           /* engine event item for it */
	uint32_t trigger;         /* first packet of a retransmission burst: the NAK / RNR NAK / READ
				   * response gap that caused it; with retrans_cause ACK_TIMEOUT, the
				   * one whose resend never reached the capture, so the timer went off;
				   * a wire_copy told by before_timer: its stream's first request */
	uint32_t findings[2];     /* finding ids (0 none) */
	uint32_t src_qp;          /* UD: DETH source QP */
	uint32_t round_psn;       /* round_start: the PSN the round went back to (an ACK timeout
				   * resends from the oldest unacknowledged PSN; when that resend
				   * never reached the capture, the round shows from a later one) */
	uint32_t cm_local_qpn;
	uint32_t cm_comm_id, cm_remote_comm_id;
	uint32_t flags;           /* enum rt_tl_flags accumulated */
	uint32_t wirelen;         /* of the capture record */
	uint16_t linktype;        /* of the capture record */
	uint16_t kept;            /* header bytes kept (tl_pktrec.blob_len) */
	uint16_t udp_sport;
	uint16_t ip_id;           /* IPv4 identification (0 for IPv6) */
	uint16_t wr_pkt_index;
	uint16_t cm_attr;
	uint8_t opcode, op_class, position, syndrome, aeth_type, aeth_value;
	uint8_t retrans;          /* transmission number - 1 */
	uint8_t retrans_cause;    /* enum rt_retry_cause, 0 unknown */
	uint8_t icrc, tos;
	uint8_t wr_pkt_count;     /* 0 unknown (also when > 255: then 255) */
	bool is_cm : 1, is_request : 1, is_response : 1, consumes_recv : 1, dup : 1, ooo : 1, damaged : 1;
	bool ackreq : 1;          /* BTH AckReq: the request asks the responder for an ACK */
	bool round_start : 1;     /* retransmission that starts a round (wire_streams) */
	bool trigger_in_retry : 1;/* round_start with trigger, ACK_TIMEOUT: the trigger (a NAK) came
				   * while the sender's previous round was not yet acknowledged */
	bool fills_gap : 1;       /* bad ICRC, left out of its stream (tl_link.c bad_icrc_fits): stands
				   * in a PSN gap of it that nothing resent (detect) */
	bool wire_copy : 1;       /* a copy of the request before it that the network or the capture
				   * made, not a retransmission (tl_link.c wire_copy): retrans 0, dup,
				   * prev_tx the packet it repeats */
	bool same_datagram : 1;   /* wire_copy: told by its IPv4 identification */
	bool engine_copy : 1;     /* wire_copy: told by its sender's engine, which traced the same
				   * transmission twice (no resend between) */
	bool before_timer : 1;    /* wire_copy: told by coming before any ACK timer could go off
				   * (else by its PSN: an older one was outstanding) */
	bool cut_start : 1;       /* the first captured request of its stream, which is not the stream's
				   * starting PSN (its CM exchange or QP state named another): the
				   * capture started after the stream had (tl_link.c wire_streams) */
	bool late : 1;            /* a request held back on the way: it passed the capture point after
				   * later PSNs of its stream (and maybe its resend), and the sender
				   * went on as before (tl_link.c stray_request); no retransmission */
};

/* Whether captured packet k is a NAK PSN sequence error. */
static inline bool tl_pk_seq_nak(const struct tl_pk *k)
{
	return k->aeth_type == RT_AETH_NAK && k->aeth_value == RT_NAK_PSN_SEQ_ERROR;
}

/* Whether a BTH opcode class is a READ or atomic request: one its responder
 * answers with data (READ responses, an atomic ACK), whose requester asks
 * again from a gap in those answers. */
static inline bool tl_class_rd_atomic(unsigned cls)
{
	return cls == RT_CLASS_READ_REQ || cls == RT_CLASS_ATOMIC;
}

/* Whether a BTH opcode class is a response (ACK or NAK, READ response,
 * atomic ACK): what a responder sends, not a request. */
static inline bool tl_class_response(unsigned cls)
{
	return cls == RT_CLASS_ACK || cls == RT_CLASS_READ_RESP || cls == RT_CLASS_ATOMIC_ACK;
}

#define TL_REJ_PRIVATE_KEPT 32    /* bytes of a REJ's private data kept */

/* What the build keeps of a CM message beyond its tl_pk: few packets are
 * CM messages, so a side list in packet order (tl_cm_info()) rather than
 * six more bytes in every packet. */
struct tl_cm_info {
	uint32_t pk;              /* packet index */
	uint8_t ack_timeout;      /* REQ: primary local ACK timeout */
	uint8_t traffic_class;    /* REQ: primary traffic class (the connection's IP TOS on RoCE) */
	uint8_t retry;            /* REQ: retry count */
	uint8_t rnr_retry;        /* REQ, REP: RNR retry count */
	uint8_t mtu;              /* REQ: path MTU (enum ibv_mtu) */
	uint8_t reason;           /* REJ: reason (255 for larger codes); SIDR REP: its status */
	uint8_t msg_rejected;     /* REJ: 0 REQ, 1 REP, 2 other */
	uint32_t remote_qpn;      /* DREQ: the receiver's QP */
	uint32_t start_psn;       /* REQ, REP: the sender's starting PSN */
	uint8_t remote_cm_timeout;/* REQ: how long the active side waits for a reply (4.096 us * 2^n) */
	uint8_t local_cm_timeout; /* REQ: how long the passive side waits for the RTU (same units) */
	uint8_t max_cm_retries;   /* REQ: how often each side sends a message again */
	bool has_cma;             /* REQ, SIDR_REQ: an RDMA CM header named the active side's port */
	uint16_t cma_src_port;    /* its port (the active id's local port, the passive's peer port) */
	uint16_t service_port;    /* REQ: the port of an RDMA CM service ID (the port asked for), else 0 */
	uint16_t service_ps;      /* REQ: that service ID's port space (RDMA_PS_*), else 0 */
	/* REJ: its private data without the zeros that pad it to the field's
	 * 148 bytes: private_n bytes, the first TL_REJ_PRIVATE_KEPT of them kept */
	uint8_t private_n;
	uint8_t private_data[TL_REJ_PRIVATE_KEPT];
};

struct tl_ep {                /* an IP address seen on the wire or in CM events */
	uint8_t ver;
	uint8_t ip[16];
	uint16_t host;            /* UINT16_MAX unknown */
	uint16_t proc;            /* the process using it (CM events), UINT16_MAX unknown */
	bool proc_ambiguous;      /* several processes use it */
};

struct tl_blink {
	uint32_t from, to, type;
};

/* A causal clock constraint: o[x] - o[y] <= c, observed at raw time t of y. */
struct tl_cons {
	uint16_t x, y;
	int64_t c;
	uint64_t t;
};

struct tl_stats_job;
struct tl_prefault;

struct tl_build {
	struct tl_vec ev;         /* struct tl_evrec (row filled at the end) */
	struct tl_vec host_nev;   /* size_t per host: its events, counted as they are read */
	struct tl_vec ev_raw;     /* uint64_t per event: its raw_ns, and */
	struct tl_vec ev_host;    /* uint16_t per event: its host, packed for the passes that need
				   * only these (the sort keys, tl_item_raw/host) */
	struct tl_vec pk;         /* struct tl_pk */
	struct tl_vec pkrec;      /* struct tl_pktrec, made from pk while the linking runs (tl_build.c) */
	struct tl_vec blob;       /* uint8_t */
	uint64_t blob_bytes;      /* what blob holds once the packet records are made */
	struct tl_vec strs;       /* char */
	struct tl_vec hosts;      /* struct rt_tl_host */
	struct tl_vec procs;      /* struct rt_tl_proc */
	struct tl_vec qps;        /* struct rt_tl_qp */
	struct tl_vec findings;   /* struct rt_tl_finding */
	struct tl_vec fev;        /* uint32_t: evidence items of findings, per finding ranges in ev_off/count */
	struct tl_vec links;      /* struct tl_blink (items) */
	struct tl_vec notes;      /* uint32_t string offsets */
	struct tl_vec eps;        /* struct tl_ep */
	struct tl_vec cm_info;    /* struct tl_cm_info, in packet order */
	struct tl_vec cm_evs;     /* uint32_t: the CM events and calls, in order (tl_link.c trace_qps) */
	struct tl_vec refused;    /* uint32_t: the WR records flagged RT_WRF_POST_FAILED (trace_qps) */
	struct tl_vec failed;     /* uint32_t: failed modify_qp, reg_mr, creates and CM calls (trace_qps) */
	struct tl_vec ends;       /* uint32_t: the RT_EV_PROCESS_END records (trace_qps) */
	struct tl_vec attaches;   /* uint32_t: the ibv_attach_mcast that succeeded (trace_qps) */
	struct tl_vec asyncs;     /* uint32_t: the asynchronous events (trace_qps) */
	struct tl_vec avs;        /* uint32_t: the QPs' address vectors, RT_EV_QP_AV (trace_qps) */
	struct tl_vec rts;        /* uint32_t: successful modifies to RTS (trace_qps) */
	struct tl_vec rights;     /* uint32_t: MR (de)registrations, memory window binds and invalidations
				   * (tl_mw_wr), QP creates (their PD) and QP access flags set (trace_qps) */
	struct tl_vec untraced;   /* struct tl_untraced: programs that failed before any trace (tl_recordings.c) */
	struct tl_vec errs;       /* uint32_t: error completions and QP moves to ERROR (trace_qps) */
	struct tl_vec drops;      /* uint32_t: packets an engine dropped, sent or on arrival (trace_qps) */
	struct tl_vec rnr_injected; /* uint32_t: RNR NAKs an engine sent because a fault rule said so
				   * (RT_RNRF_INJECTED, trace_qps) */
	struct tl_vec naks;       /* uint32_t: captured NAKs and RNR NAKs, in capture order (add_packet) */
	struct tl_vec copies;     /* uint32_t: requests copied on the way (tl_pk.wire_copy), in capture
				   * order (tl_link.c wire_streams) */
	struct tl_vec lates;      /* uint32_t: requests that passed the capture point out of sequence,
				   * after later PSNs (tl_pk.late), in capture order */
	struct tl_vec proc_salvaged; /* uint64_t per process: raw time of its latest record salvaged
				   * from a dead program's rings (read_traces), 0 none */
	struct tl_vec proc_bits;  /* uint8_t per process: TL_PROC_* (read_traces) */
	struct tl_vec cons;       /* struct tl_cons */
	uint32_t *ev_qp;          /* per event: QP index (RT_TL_NONE) */
	uint8_t *ev_shadow;       /* per event: an engine's copy of what the probe also recorded */
	uint32_t capture_path;
	uint16_t capture_host;    /* UINT16_MAX without a capture */
	bool have_capture, have_traces;
	bool capture_lossless;    /* the capture's statistics say it dropped nothing (capture_done) */
	bool capture_dropped;     /* they say it dropped packets, or it is damaged (capture_done) */
	bool engine_packets;      /* the traces hold engine packet events (RT_EV_PACKET) */
	bool pk_unordered;        /* a packet was captured before the one before it */
	uint64_t nonroce_frames;
	uint64_t unreadable_mads; /* MADs on QP 1 cut short by the snap length */
	uint64_t unreliable_pkts; /* captured UC and UD packets (not to QP 1): the UC/UD detectors' work */
	uint64_t capture_first_ns;/* raw time of the capture's earliest frame of any kind, 0 none */
	uint64_t capture_last_ns; /* raw time of its latest frame of any kind, 0 none */
	struct tl_stats_job *stats; /* the per-QP statistics while they run (tl_stats.c) */
	struct tl_prefault *prefault; /* memory for tl_finish being faulted in (tl_prefault.c) */
	void (*prefault_after)(void *); /* what the prefault thread waits for before it starts, NULL nothing */
	void *prefault_after_arg;
	const char *save_path;    /* where the timeline will be saved (rt_tl_inputs.timeline_out), NULL unknown */
	char *err;
	size_t errlen;
};

static inline size_t tl_nev(const struct tl_build *b)
{
	return b->ev.n;
}
static inline size_t tl_npk(const struct tl_build *b)
{
	return b->pk.n;
}
static inline struct tl_evrec *tl_ev(struct tl_build *b, size_t i)
{
	return TL_AT(&b->ev, struct tl_evrec, i);
}
static inline struct tl_pk *tl_pk(struct tl_build *b, size_t i)
{
	return TL_AT(&b->pk, struct tl_pk, i);
}
static inline struct rt_tl_qp *tl_qp(struct tl_build *b, size_t i)
{
	return TL_AT(&b->qps, struct rt_tl_qp, i);
}
static inline struct rt_tl_host *tl_host(struct tl_build *b, size_t i)
{
	return TL_AT(&b->hosts, struct rt_tl_host, i);
}
/* Half the local ACK timeout of QP q in ns; 0 when q or its timeout is not
 * known (or infinite).  A sender that goes back sooner than this after a
 * transmission was not sent back by its timer; one that goes back later
 * than this after a NAK was (tl_link.c wire_streams, tl_detect.c). */
static inline uint64_t tl_half_ack_timeout_ns(struct tl_build *b, uint32_t q)
{
	unsigned to = q != RT_TL_NONE ? tl_qp(b, q)->timeout : 0xFF;
	return to == 0xFF || to == 0 ? 0 : rt_ack_timeout_us(to) * 500ull;
}
/* Item numbers. */
static inline uint32_t tl_item_pk(const struct tl_build *b, size_t i)
{
	return (uint32_t)(b->ev.n + i);
}
static inline uint32_t tl_item_finding(const struct tl_build *b, size_t i)
{
	return (uint32_t)(b->ev.n + b->pk.n + i);
}

uint32_t tl_str(struct tl_build *b, const char *s);
uint32_t tl_strf(struct tl_build *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tl_note(struct tl_build *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int tl_link(struct tl_build *b, uint32_t from, uint32_t to, uint32_t type);
/* Link both ways. */
int tl_link2(struct tl_build *b, uint32_t a, uint32_t b_item, uint32_t type_ab, uint32_t type_ba);

/* Raw time of an item and its host. */
uint64_t tl_item_raw(struct tl_build *b, uint32_t item);
uint16_t tl_item_host(struct tl_build *b, uint32_t item);
/* Aligned time of a raw time on host h (inline: the rows' sort keys take
 * one per event and packet). */
/* The clock arithmetic's bounds: offsets and constraints stay within
 * +-TL_OFFSET_LIM (2^61 ns, 73 years; tl_clock.c saturates there), raw times
 * below TL_RAW_LIM (2^62 ns, the year 2116), so that sums and differences of
 * two of them cannot overflow whatever times damaged inputs give. */
#define TL_OFFSET_LIM (INT64_MAX / 4)
#define TL_RAW_LIM ((uint64_t)1 << 62)
static inline uint64_t tl_align(const struct rt_tl_host *h, uint64_t raw)
{
	/* raw times past TL_RAW_LIM and offsets or drifts no clock alignment
	 * gives are left as they are: no overflow */
	if (raw >= TL_RAW_LIM || h->offset_ns > TL_OFFSET_LIM || h->offset_ns < -TL_OFFSET_LIM)
		return raw;
	int64_t t = (int64_t)raw + h->offset_ns;
	if (h->drift_ppb > -1000000000 && h->drift_ppb < 1000000000 && h->drift_ppb && h->drift_origin_ns < TL_RAW_LIM)
		t += (int64_t)(((double)((int64_t)raw - (int64_t)h->drift_origin_ns)) * (double)h->drift_ppb / 1e9);
	return t < 0 ? 0 : (uint64_t)t;
}
/* Aligned time of an item (its raw time when it has no host). */
uint64_t tl_item_time(struct tl_build *b, uint32_t item);

/* The links of each event and packet item, in the order they were made. */
struct tl_ilink {
	uint32_t to, type;
};
struct tl_link_index {
	size_t n;                 /* items indexed: events and packets */
	size_t nl;                /* links of the build indexed: those made before it */
	size_t outside;           /* how many of those have a source other than an event or packet */
	uint32_t *off;            /* per item: its first entry in ls; off[n]: the number of entries */
	struct tl_ilink *ls;      /* the links by source item (the source is implied) */
};
int tl_link_index_build(struct tl_build *b, struct tl_link_index *x);
/* The target of the item's first link of this type (RT_TL_NONE). */
uint32_t tl_link_index_first(const struct tl_link_index *x, uint32_t item, uint32_t type);
void tl_link_index_free(struct tl_link_index *x);

/* Phase timing (RDMATRACE_TL_TIMING=1); NULL starts the clock. */
void tl_phase(const char *name);

/* Steps of the build (analysis/tl_*.c). */
int tl_link_all(struct tl_build *b);          /* tl_link.c: QPs, WRs, packets, ACKs, completions */
/* The PSNs READ request k's responses take (1 for other requests). */
uint32_t tl_read_span_psns(struct tl_build *b, const struct tl_pk *k);
/* The PSN that follows request k: the next one, or past a READ's responses. */
uint32_t tl_request_next_psn(struct tl_build *b, const struct tl_pk *k);
/* Whether the sending engine traced packets o and k as one transmission sent
 * twice (back to back in one thread with the same PSN, and the same count or
 * within 20 us; a response only within 20 us): a copy, not a resend
 * (tl_link.c). */
bool tl_engine_same_transmission(struct tl_build *b, const struct tl_pk *o, const struct tl_pk *k);
bool tl_engine_injected(struct tl_build *b, const struct tl_pk *k, unsigned flag);
/* Whether ev is a posted WR that binds or invalidates a memory window
 * (BIND_MW, LOCAL_INV, SEND_WITH_INV). */
static inline bool tl_mw_wr(const struct rt_event *ev)
{
	return ev->kind == RT_EV_WR_POST && ev->u.wr.queue == RT_WRQ_SEND && !(ev->u.wr.flags & RT_WRF_POST_FAILED) &&
	       (ev->u.wr.opcode == RT_WR_BIND_MW || ev->u.wr.opcode == RT_WR_LOCAL_INV ||
		ev->u.wr.opcode == RT_WR_SEND_WITH_INV);
}
/* Whether the sending engine traced packet k as held back by a fault rule
 * (delay, reorder: RT_PKTE_HELD), recorded as it left (tl_link.c). */
bool tl_engine_held(struct tl_build *b, const struct tl_pk *k);
int tl_clock_align(struct tl_build *b);       /* tl_clock.c */
/* Host x's event at raw time raw_x happened before host y's at raw_y. */
void tl_clock_add(struct tl_build *b, uint16_t x, uint16_t y, uint64_t raw_x, uint64_t raw_y);
/* analysis/tl_cm_peer.c: links and clock constraints between the traced
 * ends of each RDMA CM connection. */
int tl_cm_peer_links(struct tl_build *b);
/* An address of a CM record (a port of 0 and family 0 when it has none). */
struct tl_cm_addr {
	uint8_t ip[16];           /* IPv4 as its 4 bytes, the rest zero */
	uint16_t port;
	uint8_t family;           /* AF_INET (2) or AF_INET6 (10) */
};
/* The local and peer addresses of CM record i (an RT_EV_CM_EVENT); IPv6
 * ones are in the RT_EV_CM_ADDR6 record that follows it in its process's
 * trace.  False when it has none. */
bool tl_cm_record_addr(struct tl_build *b, size_t i, struct tl_cm_addr *local, struct tl_cm_addr *peer);
/* An IPv6 address that is an IPv4 one mapped (::ffff:a.b.c.d, the IPv4 in ip[12..15]). */
static inline bool tl_ip_v4_mapped(const uint8_t *ip6)
{
	static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	return !memcmp(ip6, mapped, 12);
}
/* A multicast address: 224.0.0.0/4, ff00::/8, or 224.0.0.0/4 mapped into IPv6. */
static inline bool tl_ip_multicast(unsigned ver, const uint8_t *ip)
{
	if (ver == 6 && tl_ip_v4_mapped(ip))
		return (ip[12] & 0xf0) == 0xe0;
	return ver == 6 ? ip[0] == 0xff : (ip[0] & 0xf0) == 0xe0;
}
/* The details of CM packet pk; NULL when it is no CM message. */
const struct tl_cm_info *tl_cm_info(const struct tl_build *b, uint32_t pk);
/* analysis/tl_ud.c: UD datagrams linked to their send and receive WRs. */
/* ibv_wc_opcode IBV_WC_RECV: a completion of a receive WR */
#define TL_WC_RECV 128
/* IBV_WC_RECV_RDMA_WITH_IMM: a receive WR consumed by an RDMA WRITE with immediate */
#define TL_WC_RECV_RDMA_WITH_IMM 129
/* ibv_wc_status IBV_WC_WR_FLUSH_ERR: the WR was flushed, its QP in the error state */
#define TL_WC_WR_FLUSH_ERR 5
int tl_ud_links(struct tl_build *b);
/* analysis/tl_uc.c: UC messages on their way to a traced receiver, in
 * capture order, reassembled: tl_uc_reasm_add() takes packet i (k) when
 * tl_uc_pk_to() says it is one, and returns true when it completes a message
 * that arrived whole and consumes a receive (*first: its first packet;
 * *after_broken: it came right after a message whose end was lost).
 * tl_uc_links() bounds traced UC receivers' clocks from below by them. */
struct tl_uc_reasm {
	uint32_t next_psn, msg_first;
	bool have_next, in_msg, msg_consumes, broken;
	bool msg_after_broken;    /* the message in progress follows one whose end was lost */
};
bool tl_uc_pk_to(const struct tl_build *b, const struct tl_pk *k, uint32_t q);
bool tl_uc_reasm_add(struct tl_uc_reasm *r, const struct tl_pk *k, uint32_t i, uint32_t *first, bool *after_broken);
int tl_uc_links(struct tl_build *b);
/* A point at which a process's device had completed at most `completed`
 * receives (on all its QPs) since the program opened it: a sample of its
 * rdma_recvs counter (event ev), or its end record after a normal exit
 * (at_exit; the counters were read just before). */
struct tl_recv_count {
	uint32_t ev;
	bool at_exit;
	uint64_t completed;
};
/* A process's rdma_recvs readings: usable for a QP whose first receive post
 * comes after first_raw (the first reading), unless the process counted
 * more than one device or port. */
struct tl_recv_series {
	uint64_t first_raw;       /* raw time on the process's host; UINT64_MAX: no reading */
	bool unusable;
	struct tl_vec points;     /* struct tl_recv_count, in event order */
};
/* One series per process (s has b->procs.n entries), in one pass over the events. */
int tl_recv_series_build(struct tl_build *b, struct tl_recv_series *s);
void tl_recv_series_free(struct tl_recv_series *s, size_t n);
void tl_ep_claim(struct tl_ep *e, uint16_t host, uint16_t proc);
/* The endpoint of an address (IPv4: its 4 bytes), added when new; *hint is
 * the one this caller found last.  RT_TL_NONE without memory. */
uint32_t tl_ep_find_or_add(struct tl_build *b, unsigned ver, const uint8_t *ip, uint32_t *hint);

/* A UC or UD QP: its sends complete once their packets left, with no ACK,
 * maybe before the capture saw them and before any receive took them. */
static inline bool tl_qp_unacked(struct tl_build *b, uint32_t q)
{
	return q < b->qps.n && (tl_qp(b, q)->qp_type == 3 || tl_qp(b, q)->qp_type == 4);
}
int tl_detect(struct tl_build *b);            /* tl_detect.c: findings, then tl_stats_start() */
/* Text appended to a caller's buffer p of cap bytes, n used so far; cut at
 * its end, always terminated (tl_format.c). */
struct tl_textbuf {
	char *p;
	size_t n, cap;
};
void tl_textf(struct tl_textbuf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* What tells QP q apart from another QP of the same QPN on the same host
 * (its address, else its process) into buf, "" when no other QP shares its
 * name; returns the length (tl_format.c). */
size_t tl_qp_which(const struct rt_tl_qp *qps, size_t n, const struct rt_tl_proc *procs, size_t nprocs,
		   const char *strs, size_t nstrs, size_t q, char *buf, size_t len);

/* A refused create (tl_create_reason.c): the call's name, and the sentence
 * saying it failed on host, with its errno, and why, from the event and the
 * device's limits (NULL when none were recorded), without the final period,
 * into buf; returns the length. */
const char *tl_create_call_name(const struct rt_event *ev);
size_t tl_create_reason(const struct rt_event *ev, const struct rt_ev_device_caps *caps, const char *host, char *buf,
			size_t len);
/* The same for a refused RT_EV_VERBS_CALL (qp_type: its QP's, 0 unknown). */
size_t tl_verbs_call_reason(const struct rt_event *ev, const struct rt_ev_qp_av *av, unsigned qp_type, const char *host,
			    char *buf, size_t len);
/* A GID as an IPv6 address ("::ffff:10.9.0.1", "ff0e::ffff:239.1.1.1") into buf; returns the length. */
size_t tl_gid_text(const uint8_t gid[16], char *buf, size_t len);
/* tl_recordings.c: a program that ended badly before it left a trace (its
 * recording's run.json), as a finding's words. */
struct tl_untraced {
	uint64_t t_ns;            /* when its recording ended (that host's wall clock) */
	uint32_t text, evidence;  /* string offsets */
};
/* The recordings of rundir (its run.json and those of the directories in
 * it) whose program left no trace and did not exit 0, into b->untraced. */
int tl_read_recordings(struct tl_build *b, const char *rundir);
/* Whether rundir has such a recording (a run with nothing else to read). */
bool tl_rundir_has_untraced(const char *rundir);
/* tl_access.c: why the responder QP resp_qp refused, at t, an access to va
 * with rkey and len needing the remote right need (2 write, 4 read, 8
 * atomic), from its process's MRs and the QP's access flags, in words after
 * "...: " into buf; 0 when its records do not say. */
size_t tl_access_refusal(struct tl_build *b, uint32_t resp_qp, uint64_t t, unsigned need, uint64_t va, uint32_t rkey,
			 uint32_t len, char *buf, size_t n);
/* tl_qp_av.c: what is wrong with a QP's address vector (its RT_EV_QP_AV
 * record; path_mtu: the modify's enum ibv_mtu, 0 not given), in words
 * after "...: " into buf; 0 when nothing is.  refused: for a modify the
 * device refused (every check), else only what an accepted one can have
 * wrong (the GIDs' IP versions, the path MTU). */
size_t tl_qp_av_problem(const struct rt_ev_qp_av *av, unsigned path_mtu, bool refused, char *buf, size_t len);
/* Whether path_mtu is above the port's active MTU (both known). */
bool tl_qp_av_mtu_too_big(const struct rt_ev_qp_av *av, unsigned path_mtu);
/* tl_output.c: " Its stderr (logs/X.err) ends with "..." and "...".", else
 * " The recorded output (logs/X.out) ends with "...".": the last lines of what
 * the tool that ran the process kept for the recording its trace file is in
 * (run.json's logs, relative to the recording), into words; false when there
 * are none. */
bool tl_program_output_words(const char *trace, char *words, size_t len);
/* The same for the recording in dir whose run.json is json, the process of
 * trace file trace_name (traces/NAME; "@SIDE" for the side of a lab's
 * run.json). */
bool tl_run_json_output_words(const char *dir, const char *json, const char *trace_name, char *words, size_t len);
/* tl_output.c: who stopped the program whose trace that is, when the tool
 * that ran it says (the lab's time limit, `timeout N` in the VM lab): " The
 * lab stopped it: ..." into words; false when nothing says so. */
bool tl_program_stop_words(const char *trace, char *words, size_t len);
/* dir/run.json, whole (up to 1 MiB), into *json (NULL when there is none; the
 * caller frees it) and its length; 0, or -ENOMEM. */
int tl_run_json_read(const char *dir, char **json, size_t *len);
/* Which tool wrote a run.json: `rdmatrace record`, the lab, or another. */
enum tl_run_tool { TL_RUN_OTHER, TL_RUN_RECORD, TL_RUN_LAB, TL_RUN_VM };
enum tl_run_tool tl_run_json_tool(const char *json);
/* tl_output.c: the integer after key ("\"code\": ") in [from, to) of a
 * tool's run.json, or def. */
long long tl_json_int(const char *from, const char *to, const char *key, long long def);
/* tl_stats.c: the per-QP statistics run on a thread of their own while the
 * rows are built.  They read the build and write only the statistics fields
 * of the QPs, so until tl_stats_join() nothing may add to or move the build's
 * arrays or write those fields.  tl_stats_start() takes the link index;
 * tl_stats_join() returns the statistics' status (0 when none run). */
int tl_stats_start(struct tl_build *b, struct tl_link_index *x);
int tl_stats_join(struct tl_build *b);
/* The link index the statistics took, until they are joined (read-only:
 * they read it too); NULL when none run. */
const struct tl_link_index *tl_stats_link_index(struct tl_build *b);
/* tl_annotate.c: the facts of packet i's comment into its record (tl_finish
 * calls it when it makes the packet's row, while the packet is at hand). */
void tl_annotate_packet(struct tl_build *b, size_t i);
/* tl_file.c: turn the build into a timeline (takes the memory). */
int tl_finish(struct tl_build *b, struct rt_timeline **out);
/* tl_file.c: have tl_finish's big arrays faulted in while the linking runs. */
void tl_finish_prefault(struct tl_build *b);
/* tl_prefault.c: zeroed buffers of the given sizes (0: none) allocated and
 * touched on a second thread; take() waits for it and returns slot's buffer
 * grown to size (still zeroed), or a new zeroed one; NULL without memory.
 * With a file name, the same thread also prepares that file with
 * tl_file_prepare(); take_file() waits and returns the name (the caller
 * owns it) when the file was prepared, else NULL. */
#define TL_PREFAULT_SLOTS 2
void tl_prefault_start(struct tl_build *b, const size_t size[TL_PREFAULT_SLOTS], const char *file,
		       uint64_t file_size);
void *tl_prefault_take(struct tl_build *b, unsigned slot, size_t size);
char *tl_prefault_take_file(struct tl_build *b);
void tl_prefault_free(struct tl_build *b);
/* tl_file.c: the temporary file rt_timeline_save(path) writes before renaming
 * it to path, and preparing it: created empty with about size bytes
 * allocated (reading as zeros), so that the save only copies. */
void tl_file_tmp_name(const char *path, char *tmp, size_t len);
int tl_file_prepare(const char *tmp, uint64_t size);
void tl_build_free(struct tl_build *b);
/* tl_annotate.c: the annotation of packet record i (first line, '\n', English line); returns the length. */
size_t tl_format_annotation(const struct rt_timeline *tl, size_t i, char *buf, size_t len);
/* tl_annotate.c: write the annotated capture and sidecar. */
int tl_write_annotated(const struct rt_timeline *tl, const char *capture, const char *pcapng_out,
		       const char *jsonl_out, char *err, size_t errlen);

/* Finding helper (tl_detect.c). */
struct rt_tl_finding *tl_finding_new(struct tl_build *b, unsigned kind, unsigned severity, uint64_t t_ns,
				     uint32_t qp);
/* Link item (an event, packet or finding item; RT_TL_NONE: nothing) to f as its evidence. */
void tl_finding_evidence(struct tl_build *b, struct rt_tl_finding *f, uint32_t item);

#endif

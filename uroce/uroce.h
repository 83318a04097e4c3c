/*
 * uroce internals: the objects behind the verbs handles and the interfaces
 * between the verbs front end (device.c, objects.c, qp.c), the progress
 * engine (engine.c: sockets, timers, batching), the transport (transport.c:
 * requester, responder, completer) and fault injection (faults.c).
 *
 * Locking: one mutex per context (ctx->lock) protects every QP, SRQ and MR
 * table of that context and the transmit batch; the application thread
 * takes it in post_send/post_recv (sending inline), the progress thread
 * takes it around each receive batch and timer scan.  Each CQ has its own
 * small lock so polling never waits for the engine.
 */
#ifndef UROCE_H
#define UROCE_H

#include <infiniband/verbs.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "rdmatrace/event.h"
#include "rdmatrace/roce_build.h"
#include "rdmatrace/roce_wire.h"
#include "uroce_priv.h"
#include "uroce_stats.h"

#define UROCE_EXPORT __attribute__((visibility("default")))
#define UROCE_MAX_GID 16
#define UROCE_MAX_SGE 16
#define UROCE_MAX_INLINE 512
#define UROCE_MAX_QP_WR 16384
#define UROCE_MAX_CQE 65536
#define UROCE_MAX_MR 65536
#define UROCE_MAX_RD_ATOMIC 16
#define UROCE_WINDOW 1024         /* default largest requester window, in PSNs ($UROCE_WINDOW) */
#define UROCE_WINDOW_START 128    /* window of a new QP and the floor after losses (rxe's fixed window) */
#define UROCE_ACK_EVERY 64        /* AckReq at least this often, over messages without one */
#define UROCE_LAZY_ACK_NS 1000000ull /* a request without AckReq is acknowledged within this (transport.c) */
#define UROCE_LAZY_MIN_TIMEOUT_NS 16000000ull /* no lazy ACK for a QP whose ACK timeout is shorter */
#define UROCE_TX_BATCH 64
/* room for one int of ancillary data (CMSG_SPACE(sizeof(int)) on 64-bit Linux) */
#define UROCE_TCLASS_CMSG 24
#define UROCE_RX_BATCH 32
#define UROCE_PKT_MAX (4096 + 128)
#define UROCE_HDR_MAX 64          /* BTH + largest extended headers */
#define UROCE_QP_HASH 1024
#define UROCE_MAX_MTU IBV_MTU_4096
#define UROCE_GSO_SEGS 64         /* packets per UDP GSO send at most (IPv4 IDs 0..63) */
#define UROCE_CORRUPT_ICRC_XOR 0x5a5a0001u /* fault "corrupt": what the ICRC is off by */
#define UROCE_DELTA_CACHE 4
#define UROCE_RX_BUF 65536        /* receive buffer per datagram (UDP_GRO delivers whole GSO sends) */

struct uroce_ctx;
struct uroce_qp;

/* One local address of the device: a GID and the UDP socket on ADDR:4791. */
struct uroce_addr {
	bool used;
	int fd;
	struct sockaddr_storage sa;
	union ibv_gid gid;
	uint32_t gsi_psn;
	bool borrowed;            /* fd belongs to another context of this process */
};

struct uroce_pd {
	struct ibv_pd ibpd;
	uint32_t id;
};

struct uroce_mr {
	struct ibv_mr ibmr;
	uint64_t iova;
	unsigned access;
	bool valid;
};

/* A resolved local scatter/gather element (MR checked at post time). */
struct uroce_sge {
	uint8_t *ptr;
	uint32_t len;
};

/* A completion channel.  ibch.fd is an epoll fd over the event pipe and the
   context's sockets, so a thread blocked in ibv_get_cq_event (or polling the
   fd) wakes on arriving packets and processes them itself: one wake-up per
   message instead of two (progress thread, then application). */
struct uroce_comp_channel {
	struct ibv_comp_channel ibch;
	int rfd, wfd;             /* the event pipe: CQ pointers */
	int wait_fd;              /* epoll set of the pipe and the context's sockets: where
				     ibv_get_cq_event sleeps, receiving for itself when a packet
				     comes; ibch.fd holds the pipe alone, so an application that
				     polls it is woken by completion events only, as with a
				     kernel provider */
	int slept_inside;         /* a thread slept in ibv_get_cq_event on it (atomic): its
				     application waits there, not in poll() on ibch.fd */
	int queued;               /* CQ pointers in the pipe (atomic): no read() that finds nothing */
	struct uroce_comp_channel *next; /* ctx->channels */
};

struct uroce_cq {
	struct ibv_cq ibcq;
	uint32_t id;
	pthread_mutex_t lock;
	struct ibv_wc *ring;
	unsigned mask;
	unsigned head, tail;      /* producer writes head, consumer tail */
	unsigned count;           /* atomically read by poll's fast path */
	int armed;                /* 0, 1 = next completion, 2 = next solicited */
	bool armed_counted;       /* armed, and counted in ctx->armed_channel_cqs */
	bool overflowed;
};

struct uroce_rwqe {
	uint64_t wr_id;
	int num_sge;
	struct uroce_sge sge[UROCE_MAX_SGE];
	uint32_t total;
};

/* Receive queue (a QP's RQ or an SRQ): a ring of posted receive WQEs. */
struct uroce_rq {
	struct uroce_rwqe *ring;
	unsigned mask, head, tail; /* post at head, consume at tail */
	unsigned max_wr, max_sge;
};

struct uroce_srq {
	struct ibv_srq ibsrq;
	uint32_t num;
	struct uroce_rq rq;
	uint32_t limit;
	bool in_error;
};

struct uroce_ah {
	struct ibv_ah ibah;
	struct sockaddr_storage dst;
	uint8_t sgid_index;
	uint8_t tclass, hop_limit;
};

enum uroce_swqe_state {
	SWQE_POSTED = 0,          /* not yet (completely) sent */
	SWQE_SENT = 1,            /* every packet sent, waiting for the ACK/response */
	SWQE_DONE = 2,
};

struct uroce_swqe {
	uint64_t wr_id;
	enum ibv_wr_opcode opcode;
	unsigned flags;           /* ibv_send_flags */
	uint32_t imm;             /* network order, or the rkey to invalidate */
	uint64_t raddr;
	uint32_t rkey;
	uint64_t cmp, swap;
	uint32_t length;
	uint32_t first_psn, last_psn, npkts;
	uint32_t ud_qpn, ud_qkey;
	struct uroce_ah *ah;
	uint32_t read_pkts;       /* READ: responses received */
	uint8_t state;
	uint8_t status;           /* ibv_wc_status decided at post (local errors) */
	int num_sge;
	struct uroce_sge sge[UROCE_MAX_SGE];
	uint8_t inline_data[UROCE_MAX_INLINE];
};

/* Responder resource kept for READ / ATOMIC replay. */
struct uroce_res {
	bool valid;
	bool atomic;
	uint32_t first_psn, last_psn;
	uint64_t va;              /* READ: start of the original request */
	uint32_t rkey, len;
	uint64_t orig;            /* ATOMIC: value returned */
	bool sending;             /* READ: responses still to send */
	uint32_t cur, from;       /* READ: next response index, where this pass began */
};

struct uroce_qp {
	union {
		struct ibv_qp ibqp;       /* handle = QPN */
		struct ibv_qp_ex ibqpx;   /* extended QP (ibv_wr_* API) */
	};
	/* ibv_wr_* builder state */
	void *wrx_list;           /* struct wrx[] (wr_api.c) */
	unsigned wrx_n, wrx_cap;
	int wrx_err;
	bool extended;
	struct uroce_qp *hnext;
	struct uroce_ctx *ctx;
	struct uroce_cq *scq, *rcq;
	struct uroce_srq *srq;
	struct ibv_qp_cap cap;
	int sq_sig_all;
	bool destroyed;

	/* attributes */
	enum ibv_qp_state state;
	enum ibv_mtu mtu_enum;
	unsigned mtu;
	uint32_t qkey, dest_qpn, pkey_index;
	unsigned access;
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
	uint8_t max_rd_atomic, max_dest_rd_atomic;
	uint8_t sgid_index, port_num;
	struct ibv_ah_attr ah_attr;
	struct sockaddr_storage dst; /* RC/UC peer (port 4791) */
	bool sq_draining;

	/* send queue */
	struct uroce_swqe *sq;
	unsigned sq_mask;
	unsigned sq_head;         /* next slot to post into */
	unsigned req_idx;         /* WQE being sent */
	unsigned comp_idx;        /* oldest incomplete WQE */
	uint32_t req_pkt;         /* packet index within req_idx */
	uint32_t post_psn;        /* PSN of the next posted WQE */
	uint32_t sq_psn;          /* next PSN to transmit */
	uint32_t una;             /* oldest unacknowledged PSN */
	uint32_t cwnd;            /* current window in PSNs: grows with ACKs up to ctx->window, halves on a retry */
	uint32_t max_sent;        /* highest PSN sent so far (for retransmission flags) */
	bool sent_any;
	uint32_t pkts_since_ackreq;
	unsigned rd_outstanding;
	uint8_t retries_left, rnr_left;
	uint8_t retry_round;
	uint64_t ack_deadline;    /* ns, 0 = not armed */
	uint64_t rnr_deadline;
	uint32_t read_gap_retried;
	bool read_gap_armed;
	uint32_t rd_last_seen;    /* PSN of the last READ response received */
	bool rd_seen_valid;
	uint32_t nak_retry_psn;   /* NAK sequence error already acted on */
	bool nak_retry_armed;

	/* receive side */
	struct uroce_rq rq;
	uint32_t epsn;
	uint32_t ack_psn;         /* PSN after the last executed SEND/WRITE/ATOMIC */
	uint32_t msn;
	bool nak_sent;
	bool ack_pending;
	uint32_t ack_pending_psn;
	bool lazy_ack;            /* a message without AckReq awaits its ACK (transport.c) */
	uint32_t lazy_ack_psn;
	uint64_t lazy_ack_due;
	int in_msg;               /* 0, RT_CLASS_SEND or RT_CLASS_WRITE */
	bool uc_drop;             /* UC: dropping until the next FIRST/ONLY */
	struct uroce_rwqe *cur_rwqe;
	struct uroce_rwqe cur_rwqe_store;
	bool have_rwqe;
	uint32_t msg_off;         /* bytes received in the current message */
	uint8_t *wr_ptr;          /* WRITE: next byte to write */
	uint32_t wr_left;
	uint32_t wr_total;
	struct uroce_res res[UROCE_MAX_RD_ATOMIC];
	unsigned res_next;
	struct uroce_qp *ack_next; /* list of QPs with an ACK to send after a batch */
	bool on_ack_list;
	struct uroce_qp *pump_next; /* list of QPs with READ responses to send */
	bool on_pump_list;
};

/* A fault rule (faults.c). */
struct uroce_fault_rule;

struct uroce_delayed {
	uint64_t due_ns;
	uint32_t qpn;                 /* for its trace event, recorded as it leaves */
	uint32_t paylen;
	uint8_t retrans;
	uint8_t tclass;               /* IP traffic class */
	bool reorder;                 /* held by a reorder rule: leaves right after a later packet of its QP */
	bool overtaken;               /* reorder: such a packet was queued (it leaves with the next flush) */
	struct rt_roce_hdrs h;
	int fd;
	socklen_t salen;
	struct sockaddr_storage dst;
	uint16_t len;
	uint8_t data[UROCE_PKT_MAX];
};

enum uroce_gso_mode {
	UROCE_GSO_AUTO = 0,           /* only while no capture can see the unsegmented send (gso.c) */
	UROCE_GSO_NEVER,
	UROCE_GSO_ALWAYS,
};

/* ICRC corrections for IPv4 identification k of a GSO segment (gso.c). */
struct uroce_id_deltas {
	size_t len;                   /* UDP length, 0 = unused */
	uint32_t d[UROCE_GSO_SEGS];
};

struct uroce_ctx {
	struct verbs_context vctx;    /* must be first: ibv_context is its last member */
	pthread_mutex_t lock;
	uint32_t id;
	bool closing;
	unsigned window;              /* requester window in packets */

	struct uroce_addr addrs[UROCE_MAX_GID];
	int epfd, timerfd, evfd;
	pthread_t thread;
	bool thread_started;
	uint64_t armed_deadline;      /* what the timerfd is set to (0 = none) */

	struct uroce_qp *qp_hash[UROCE_QP_HASH];
	unsigned nqps;                /* QPs in qp_hash */
	struct uroce_mr **mrs;        /* index = key >> 8 */
	unsigned mr_cap;
	uint32_t mr_next;
	uint32_t next_srqn, next_cqid, next_pdid;

	struct uroce_comp_channel *channels; /* to add new sockets to their epoll sets */

	/* async events: pipe of struct ibv_async_event records */
	int async_wfd;

	/* GSI */
	uroce_gsi_handler gsi_fn;
	void *gsi_arg;

	/* transmit batch (under lock) */
	unsigned tx_n;
	int tx_fd;
	struct mmsghdr tx_msg[UROCE_TX_BATCH];
	struct iovec tx_iov[UROCE_TX_BATCH][UROCE_MAX_SGE + 2];
	uint8_t tx_hdr[UROCE_TX_BATCH][UROCE_HDR_MAX];
	uint8_t tx_tail[UROCE_TX_BATCH][8];
	struct sockaddr_storage tx_dst[UROCE_TX_BATCH];
	uint8_t tx_tclass[UROCE_TX_BATCH]; /* IP traffic class of each packet */
	_Alignas(struct cmsghdr) char tx_cmsg[UROCE_TX_BATCH][UROCE_TCLASS_CMSG]; /* its IP_TOS / IPV6_TCLASS ancillary data */
	/* the same batch regrouped for UDP GSO (engine.c) */
	struct mmsghdr gso_msg[UROCE_TX_BATCH];
	struct iovec gso_iov[UROCE_TX_BATCH * (UROCE_MAX_SGE + 2)];
	_Alignas(struct cmsghdr) char gso_cmsg[UROCE_TX_BATCH][64]; /* UDP_SEGMENT, then the run's traffic class */
	unsigned gso_first[UROCE_TX_BATCH], gso_count[UROCE_TX_BATCH]; /* tx_msg slots of each GSO message */
	int tx_aidx;                  /* address (index) the batch goes out from */
	bool gso_off;                 /* UDP GSO off: $UROCE_GSO=0, or a kernel without UDP_SEGMENT */
	enum uroce_gso_mode gso_mode;
	int packet_fd;                /* /proc/net/packet, for the capture check (auto mode) */
	uint64_t tap_seen_ns;         /* when the check last saw a capture on lo (0: it saw none) */
	uint64_t notap_ns;            /* when the check last saw no capture (0: not since it saw one) */
	int lo_ifindex;
	struct uroce_id_deltas deltas[UROCE_DELTA_CACHE];
	unsigned delta_next;

	/* receive buffers (progress thread only) */
	struct mmsghdr rx_msg[UROCE_RX_BATCH];
	struct iovec rx_iov[UROCE_RX_BATCH];
	struct sockaddr_storage rx_src[UROCE_RX_BATCH];
	uint8_t (*rx_buf)[UROCE_RX_BUF]; /* one datagram each: a packet, or a GRO-merged GSO send */
	char rx_cmsg[UROCE_RX_BATCH][32];
	unsigned rx_dirty;            /* headers [0, rx_dirty) need resetting before the next recvmmsg */
	struct uroce_qp *ack_list;
	unsigned lazy_acks;           /* QPs with a lazy ACK to send (transport.c) */
	bool lazy_acks_off;           /* $UROCE_LAZY_ACK=0: AckReq on every message, as rxe does */
	uint64_t acks_held_until;     /* ACKs held back by an application thread until then (engine.c), 0 none */
	int acks_held;                /* the same as a flag read without the lock (atomic) */
	uint64_t app_seen_ns;         /* an application thread last received for itself (atomic; engine.c) */
	bool pt_parked;               /* the progress thread does not watch the sockets (engine.c) */
	int armed_channel_cqs;        /* CQs armed for an event on a channel nobody ever slept on
					 inside ibv_get_cq_event (atomic; objects.c): their
					 application may sleep in poll() on the channel's fd,
					 which no packet wakes, so the progress thread receives */
	bool no_park;                 /* $UROCE_NO_PARK: it always does */
	uint64_t rx_empty_ns;         /* the sockets were last found empty by uroce_poll_progress (atomic) */
	uint64_t park_check_ns;       /* when the parked progress thread looks again */
	struct uroce_qp *pump_list;
	int pumpfd;                   /* eventfd: READ responses pending, or packets handed over */
	/* packets another context of this process read for this one's QPs while
	   this one's lock was held (uroce_forward), in arrival order; whoever
	   takes the lock next handles them (the progress thread is woken through
	   pumpfd).  Under hand_lock, not lock: the forwarder cannot take lock. */
	pthread_mutex_t hand_lock;
	struct uroce_handoff *hand_head, *hand_tail;
	unsigned hand_n;              /* also read without hand_lock (atomic) */

	/* faults */
	struct uroce_fault_rule *faults;
	unsigned nfaults;
	uint64_t rng;
	struct uroce_delayed *delayed;
	unsigned ndelayed, delayed_cap;

	/* counters */
	struct uroce_stats st;
};


static inline struct uroce_ctx *to_uctx(struct ibv_context *c)
{
	return (struct uroce_ctx *)((char *)c - offsetof(struct uroce_ctx, vctx.context));
}

#define UROCE_CONTAINER(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))
#define to_uqp(q) UROCE_CONTAINER(q, struct uroce_qp, ibqp)
#define to_ucq(q) UROCE_CONTAINER(q, struct uroce_cq, ibcq)
#define to_usrq(q) UROCE_CONTAINER(q, struct uroce_srq, ibsrq)
#define to_upd(q) UROCE_CONTAINER(q, struct uroce_pd, ibpd)
#define to_umr(q) UROCE_CONTAINER(q, struct uroce_mr, ibmr)
#define to_uah(q) UROCE_CONTAINER(q, struct uroce_ah, ibah)

/* util.c */
uint64_t uroce_now_ns(void);
void uroce_warn_once(const char *what, const char *why);
bool uroce_is_our_ctx(struct ibv_context *c);
/* The port's MTU (enum ibv_mtu): $UROCE_MTU bytes, 4096 by default. */
unsigned uroce_port_mtu_enum(void);
void uroce_gid_to_sockaddr(const union ibv_gid *gid, struct sockaddr_storage *ss);
void uroce_sockaddr_to_gid(const struct sockaddr *sa, union ibv_gid *gid);
socklen_t uroce_salen(const struct sockaddr_storage *ss);
bool uroce_sa_equal(const struct sockaddr *a, const struct sockaddr *b);

/* engine.c */
int uroce_engine_start(struct uroce_ctx *ctx);
void uroce_engine_stop(struct uroce_ctx *ctx);
int uroce_addr_add(struct uroce_ctx *ctx, const struct sockaddr *sa, uint8_t *index);
/* One packet from address aidx to dst with IP traffic class tclass (the
 * IPv4 TOS or IPv6 traffic class byte: DSCP and ECN), into the batch. */
void uroce_tx_packet(struct uroce_ctx *ctx, struct uroce_qp *qp, int aidx, const struct sockaddr_storage *dst,
                     uint8_t tclass, const struct rt_roce_hdrs *h, const struct uroce_sge *pay, int npay, uint32_t paylen,
                     uint8_t retrans);
void uroce_tx_flush(struct uroce_ctx *ctx);
void uroce_timer_update(struct uroce_ctx *ctx, uint64_t deadline);
void uroce_lazy_ack_timer(struct uroce_ctx *ctx, uint64_t due);
void uroce_kick(struct uroce_ctx *ctx);
int uroce_poll_progress(struct uroce_ctx *ctx);
int uroce_progress_blocking(struct uroce_ctx *ctx);
void uroce_release_acks(struct uroce_ctx *ctx);
void uroce_app_receiving(struct uroce_ctx *ctx);
/* A CQ with a completion channel was armed (engine.c: no parked progress thread then). */
void uroce_channel_armed(struct uroce_ctx *ctx);
void uroce_flush_held_acks(struct uroce_ctx *ctx);
void uroce_engine_requeue(struct uroce_ctx *ctx);
/* A packet one context read for a QP of another context on the same socket:
   handed over (UROCE_FWD_DONE: handled now, or queued for a context whose
   lock stayed held, which handles it when its lock comes free), no context
   has that QP (UROCE_FWD_NO_QP), or a context that may have it stayed locked
   and already has UROCE_HANDOFF_MAX packets waiting (UROCE_FWD_BUSY: dropped,
   the transport resends). */
#define UROCE_HANDOFF_MAX 1024
enum uroce_fwd { UROCE_FWD_DONE, UROCE_FWD_NO_QP, UROCE_FWD_BUSY };
enum uroce_fwd uroce_forward(struct uroce_ctx *ctx, int aidx, const struct sockaddr_storage *src, const uint8_t *pkt,
                             size_t len, uint32_t qpn);
/* A MAD for QP1 to the CM of another context on the same socket (no lock of it taken). */
bool uroce_gsi_forward(struct uroce_ctx *ctx, int aidx, const struct sockaddr_storage *src, const uint8_t *mad,
                       size_t len);
int uroce_local_fd(struct uroce_ctx *ctx, uint8_t sgid_index, const struct sockaddr_storage *dst);

/* objects.c */
struct uroce_mr *uroce_mr_lookup(struct uroce_ctx *ctx, uint32_t key);
void uroce_cq_push(struct uroce_cq *cq, const struct ibv_wc *wc, bool solicited);
void uroce_async_event(struct uroce_ctx *ctx, enum ibv_event_type type, void *element);
void uroce_verbs_ops_init(struct uroce_ctx *ctx);

/* qp.c */
struct uroce_qp *uroce_qp_lookup(struct uroce_ctx *ctx, uint32_t qpn);

/* The requester window a new QP starts with and losses fall back to. */
static inline unsigned uroce_window_floor(const struct uroce_ctx *ctx)
{
	return ctx->window < UROCE_WINDOW_START ? ctx->window : UROCE_WINDOW_START;
}
void uroce_qp_to_error(struct uroce_qp *qp);
void uroce_qp_trace_state(struct uroce_qp *qp, enum ibv_qp_state from, int mask, int result);

/* transport.c */
void uroce_req_progress(struct uroce_qp *qp);
void uroce_rx_packet(struct uroce_ctx *ctx, int addr_index, const struct sockaddr_storage *src,
                     const uint8_t *pkt, size_t len);
/* A packet whose ICRC does not match, dropped: traced as such when its
 * headers name a QP of this context (they may be what was damaged). */
void uroce_rx_bad_icrc(struct uroce_ctx *ctx, const uint8_t *pkt, size_t len);
void uroce_send_pending_acks(struct uroce_ctx *ctx);
void uroce_send_lazy_ack(struct uroce_qp *qp);
void uroce_send_lazy_acks(struct uroce_ctx *ctx);
bool uroce_pump_reads(struct uroce_ctx *ctx, unsigned budget);
uint64_t uroce_qp_timers(struct uroce_qp *qp, uint64_t now);
void uroce_qp_flush(struct uroce_qp *qp);
void uroce_gsi_deliver(struct uroce_ctx *ctx, int aidx, const struct sockaddr_storage *src, const uint8_t *mad,
                       size_t len);
void uroce_qp_wr_api_init(struct uroce_qp *qp, uint64_t send_ops_flags);
void uroce_qp_wr_api_free(struct uroce_qp *qp);
int uroce_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad);

/* faults.c */
enum uroce_fault_action {
	UROCE_FA_NONE = 0,
	UROCE_FA_DROP,
	UROCE_FA_DUP,
	UROCE_FA_DELAY,
	UROCE_FA_REORDER,
	UROCE_FA_RNR,
	UROCE_FA_CORRUPT,
	UROCE_FA_ECN,               /* ECN Congestion Experienced on the way (an ECN-capable packet) */
};
int uroce_faults_load(struct uroce_ctx *ctx, char *err, size_t errlen);
void uroce_faults_free(struct uroce_ctx *ctx);
/* What to do with a packet of IP traffic class tclass: dir 0 = tx, 1 = rx;
 * resend: a transmitted packet is a retransmission.  *delay_us set for DELAY. */
enum uroce_fault_action uroce_fault_check(struct uroce_ctx *ctx, int dir, uint32_t qpn, uint8_t tclass,
                                          const struct rt_roce_hdrs *h, bool resend, uint32_t *delay_us);
bool uroce_fault_rnr(struct uroce_ctx *ctx, uint32_t qpn, uint32_t psn);

/* gso.c */
void uroce_gso_init(struct uroce_ctx *ctx);
void uroce_gso_fini(struct uroce_ctx *ctx);
/* May the batch on fd (bound to src) go out as UDP GSO sends now (runs to destinations uroce_gso_dst_ok)? */
bool uroce_gso_allowed(struct uroce_ctx *ctx, int fd, const struct sockaddr_storage *src);
bool uroce_gso_dst_ok(const struct uroce_ctx *ctx, const struct sockaddr_storage *dst);
/* Change the ICRC at icrc (computed for IPv4 ID 0) to the one for IPv4 ID id (XOR: applying it twice undoes it). */
void uroce_icrc_set_id(struct uroce_ctx *ctx, uint8_t *icrc, size_t udp_len, unsigned id);
/* Is wire the ICRC of an IPv4 GSO segment (ID 1..UROCE_GSO_SEGS-1) whose ICRC for ID 0 is computed? */
bool uroce_icrc_gso_match(struct uroce_ctx *ctx, size_t udp_len, uint32_t computed, uint32_t wire);

/* trace.c */
void uroce_trace_init(void);
struct rt_event *uroce_ev_begin(uint16_t kind, uint32_t qpn);
void uroce_ev_commit(struct rt_event *ev);
void uroce_trace_packet(uint32_t qpn, const struct rt_roce_hdrs *h, uint32_t paylen, unsigned flags,
                        uint8_t retrans, bool tx);
/* A packet the engine dropped, and why (RT_PKTF_DROPPED with its drop_reason). */
void uroce_trace_drop(uint32_t qpn, const struct rt_roce_hdrs *h, uint32_t paylen, enum rt_pkt_drop_reason why,
                      uint8_t retrans, bool tx);
/* A sent packet a fault rule held back, recorded as it leaves (RT_PKTE_HELD). */
void uroce_trace_held(uint32_t qpn, const struct rt_roce_hdrs *h, uint32_t paylen, uint8_t retrans);
/* A sent packet a fault rule changed on purpose (RT_PKTE_INJECTED_*: a dup
 * rule's copy, a corrupted ICRC, a CE mark). */
void uroce_trace_sent(uint32_t qpn, const struct rt_roce_hdrs *h, uint32_t paylen, uint8_t retrans,
                      enum rt_pkt_engine_flags injected);

#endif

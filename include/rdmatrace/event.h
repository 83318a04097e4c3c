/*
 * The rdmatrace event schema: one fixed-size 64-byte record per event.
 *
 * Every producer (the uroce engine, the LD_PRELOAD probe, the lab programs)
 * writes these records into per-thread rings, and every consumer (dump,
 * correlate, view) reads them back from trace files.  Fixed-size records are
 * what make trace files memory-mappable and indexable by record number.
 *
 * Layout rules: little-endian host order (the file header records it), no
 * pointers, all fields naturally aligned, the payload union is exactly 40
 * bytes.  docs/trace-format.md documents every field; keep the two in step.
 * New kinds may be added at the end of enum rt_event_kind; existing numbers
 * and field offsets never change within a major format version.
 */
#ifndef RDMATRACE_EVENT_H
#define RDMATRACE_EVENT_H

#include <stdint.h>

#define RT_EVENT_SIZE 64
#define RT_EVENT_PAYLOAD_SIZE 40

enum rt_event_kind {
	RT_EV_NONE = 0,          /* never written; a zero slot is not an event */
	RT_EV_WR_POST = 1,       /* work request posted (send, recv, srq recv) */
	RT_EV_COMPLETION = 2,    /* work completion polled */
	RT_EV_PACKET = 3,        /* packet sent or received by an engine */
	RT_EV_RETRY = 4,         /* requester starts a Go-Back-N retry */
	RT_EV_RNR = 5,           /* RNR NAK sent or received */
	RT_EV_QP_STATE = 6,      /* QP state change with its attributes */
	RT_EV_CM_EVENT = 7,      /* RDMA CM event */
	RT_EV_CM_ADDR6 = 8,      /* IPv6 addresses of the preceding CM event */
	RT_EV_MR = 9,            /* memory region registered / deregistered */
	RT_EV_ASYNC = 10,        /* asynchronous event */
	RT_EV_COUNTER = 11,      /* counter sample */
	RT_EV_MARKER = 12,       /* user marker with a short string */
	RT_EV_LOST = 13,         /* events lost since the previous LOST record */
	RT_EV_CLOCK_SYNC = 14,   /* re-sampled clock mapping (tsc, mono, real) */
	RT_EV_QP_CREATE = 15,    /* QP created or destroyed, with its caps */
	RT_EV_CQ_CREATE = 16,    /* CQ created or destroyed */
	RT_EV_DEVICE = 17,       /* device opened or closed */
	RT_EV_TIMER = 18,        /* engine timer expiry (ACK timeout, RNR) */
	RT_EV_WARNING = 19,      /* tracer/probe warning (e.g. direct verbs) */
	RT_EV_PD = 20,           /* protection domain allocated / freed */
	RT_EV_SRQ_CREATE = 21,   /* SRQ created or destroyed */
	RT_EV_CQ_NOTIFY = 22,    /* CQ armed for a completion event (ibv_req_notify_cq) */
	RT_EV_DEVICE_CAPS = 23,  /* a device's limits (ibv_query_device), written before a failed create */
	RT_EV_PROCESS_END = 24,  /* the traced process ended: exit, a fatal signal, or its wait status */
	RT_EV_VERBS_CALL = 25,   /* another verbs call and its result (address handles, multicast, XRC) */
	RT_EV_QP_AV = 26,        /* a QP's address vector and what its port has (GID, MTU), before its QP_STATE */
	RT_EV_KIND_COUNT
};

/* Header flags, valid for every kind. */
enum rt_event_flags {
	RT_EVF_DESTROY = 1u << 0, /* *_CREATE / MR / DEVICE / PD: the object went away */
	RT_EVF_TX = 1u << 1,      /* PACKET / RNR: this host sent it (else received) */
	RT_EVF_ERROR = 1u << 2,   /* the event reports a failure (call failed, bad status) */
	RT_EVF_ENGINE = 1u << 3,  /* written by an engine (uroce) rather than a probe */
};

/* RT_EV_WR_POST: which queue the request went to. */
enum rt_wr_queue {
	RT_WRQ_SEND = 0,
	RT_WRQ_RECV = 1,
	RT_WRQ_SRQ_RECV = 2, /* header qpn holds the SRQ number */
};

/* RT_EV_WR_POST: send flags, the ibv_send_flags bits we keep. */
enum rt_wr_flags {
	RT_WRF_FENCE = 1u << 0,
	RT_WRF_SIGNALED = 1u << 1,
	RT_WRF_SOLICITED = 1u << 2,
	RT_WRF_INLINE = 1u << 3,
	RT_WRF_PSN_VALID = 1u << 6, /* first_psn/last_psn were predicted */
	RT_WRF_POST_FAILED = 1u << 7, /* ibv_post_* returned an error for this WR (imm: that errno, 0 unknown) */
};

/* The memory-window opcodes of rt_ev_wr (enum ibv_wr_opcode's numbers). */
enum rt_wr_mw_opcode {
	RT_WR_LOCAL_INV = 7,     /* rkey: the rkey it invalidates */
	RT_WR_BIND_MW = 8,       /* remote_addr, length, rkey, imm: the window's address, length, new rkey
				  * and access flags (ibv_bind_mw's too, recorded as the WR it posts) */
	RT_WR_SEND_WITH_INV = 9, /* imm: the rkey it invalidates at the receiver */
};

struct rt_ev_wr {               /* RT_EV_WR_POST */
	uint64_t wr_id;
	uint64_t remote_addr;   /* RDMA / atomic: remote VA; BIND_MW: the window's address */
	uint32_t length;        /* total bytes over all SGEs; BIND_MW: the window's length */
	uint32_t rkey;          /* LOCAL_INV: the rkey invalidated; BIND_MW: the window's new rkey */
	uint32_t imm;           /* immediate data / invalidate rkey, network order as in ibv_send_wr;
				 * BIND_MW: the window's access flags (enum ibv_access_flags) */
	uint32_t first_psn;     /* predicted; valid when RT_WRF_PSN_VALID */
	uint32_t last_psn;
	uint8_t queue;          /* enum rt_wr_queue */
	uint8_t opcode;         /* enum ibv_wr_opcode (send queue only) */
	uint8_t num_sge;
	uint8_t flags;          /* enum rt_wr_flags */
};

struct rt_ev_completion {       /* RT_EV_COMPLETION; header qpn = wc.qp_num */
	uint64_t wr_id;
	uint32_t byte_len;
	uint32_t src_qp;
	uint32_t imm;           /* wc.imm_data (network order) or invalidated rkey */
	uint32_t vendor_err;
	uint32_t cq_id;         /* probe/engine-assigned CQ handle */
	uint16_t wc_flags;      /* enum ibv_wc_flags */
	uint8_t status;         /* enum ibv_wc_status */
	uint8_t opcode;         /* enum ibv_wc_opcode, truncated: RECV=128, RECV_RDMA_WITH_IMM=129 */
	uint16_t pkey_index;
	uint16_t slid;
	uint8_t reserved[4];
};

/* RT_EV_PACKET flags. */
enum rt_pkt_flags {
	RT_PKTF_ACKREQ = 1u << 0,
	RT_PKTF_RETRANS = 1u << 1,  /* a retransmission of an already sent PSN */
	RT_PKTF_SE = 1u << 2,
	RT_PKTF_HAS_AETH = 1u << 3,
	RT_PKTF_HAS_RETH = 1u << 4,
	RT_PKTF_HAS_IMM = 1u << 5,
	RT_PKTF_DROPPED = 1u << 6,  /* dropped by the engine (fault injection or invalid) */
	RT_PKTF_DUPLICATE = 1u << 7, /* receiver saw it as a duplicate */
};

/* RT_EV_PACKET drop_reason: why the engine dropped it (with RT_PKTF_DROPPED). */
enum rt_pkt_drop_reason {
	RT_PKT_DROP_UNSPECIFIED = 0, /* not said (traces from before the field) */
	RT_PKT_DROP_INJECTED = 1,    /* fault injection */
	RT_PKT_DROP_BAD_ICRC = 2,    /* received with an ICRC that does not match its bytes */
	RT_PKT_DROP_BUSY = 3,        /* arrived while the engine context owning its QP was busy (uroce:
				      * a packet read by another context of the process is handed over
				      * only if that context's lock is free soon); the transport resends */
};

/* RT_EV_PACKET engine_flags: what the recording engine did with a packet it sent. */
enum rt_pkt_engine_flags {
	RT_PKTE_HELD = 1u << 0,      /* held back by fault injection (delay, reorder) and recorded as it
				      * left: later than the engine made it, maybe after packets made
				      * after it (its resend, even) */
	RT_PKTE_INJECTED_COPY = 1u << 1,    /* a copy a fault rule (dup) made of the transmission recorded
					     * just before it: the same packet sent twice on purpose */
	RT_PKTE_INJECTED_CORRUPT = 1u << 2, /* sent with its ICRC damaged on purpose (fault rule corrupt) */
	RT_PKTE_INJECTED_CE = 1u << 3,      /* sent marked Congestion Experienced on purpose (fault rule
					     * ecn), as a filling queue on the way would mark it */
};

struct rt_ev_packet {           /* RT_EV_PACKET; header qpn = local QP */
	uint64_t reth_va;
	uint32_t reth_rkey;
	uint32_t reth_len;
	uint32_t psn;
	uint32_t dest_qpn;      /* BTH destination QP */
	uint32_t msn;           /* AETH MSN when RT_PKTF_HAS_AETH */
	uint32_t imm;           /* ImmDt when RT_PKTF_HAS_IMM (network order) */
	uint16_t payload_len;
	uint8_t opcode;         /* BTH opcode */
	uint8_t syndrome;       /* AETH syndrome when RT_PKTF_HAS_AETH */
	uint8_t flags;          /* enum rt_pkt_flags */
	uint8_t retrans_count;  /* how many times this PSN was sent before */
	uint8_t drop_reason;    /* enum rt_pkt_drop_reason, with RT_PKTF_DROPPED */
	uint8_t engine_flags;   /* enum rt_pkt_engine_flags (0 in traces from before the field) */
};

enum rt_retry_cause {
	RT_RETRY_NAK_SEQ = 1,     /* NAK PSN sequence error */
	RT_RETRY_ACK_TIMEOUT = 2, /* local ACK timeout */
	RT_RETRY_IMPLIED_NAK = 3, /* ACK skipped an outstanding READ/ATOMIC */
	RT_RETRY_RNR = 4,         /* RNR timer expired, resending */
};

struct rt_ev_retry {            /* RT_EV_RETRY; header qpn = requester QP */
	uint32_t first_psn;     /* first PSN resent */
	uint32_t last_psn;      /* last PSN outstanding at the time */
	uint32_t timeout_us;    /* ACK timeout or RNR wait that applied */
	uint8_t cause;          /* enum rt_retry_cause */
	uint8_t retries_left;   /* retry_cnt or rnr_retry left after this one (7 = infinite) */
	uint8_t reserved[26];
};

struct rt_ev_rnr {              /* RT_EV_RNR; RT_EVF_TX: this host sent the NAK */
	uint32_t psn;
	uint32_t timer_us;      /* decoded timer value */
	uint32_t peer_qpn;
	uint8_t timer_code;     /* 5-bit code of the syndrome */
	uint8_t retries_left;   /* requester side: rnr_retry left (7 = infinite) */
	uint8_t rnr_flags;      /* responder side: enum rt_rnr_flags */
	uint8_t reserved[25];
};

enum rt_rnr_flags {
	RT_RNRF_INJECTED = 1,   /* a fault rule made the engine send it: a receive WR was posted */
};

struct rt_ev_qp_state {         /* RT_EV_QP_STATE */
	uint32_t attr_mask;     /* enum ibv_qp_attr_mask of the modify call */
	uint32_t sq_psn;
	uint32_t rq_psn;
	uint32_t dest_qpn;
	uint32_t qkey;
	uint8_t from_state;     /* enum ibv_qp_state; 7 = unknown */
	uint8_t to_state;
	uint8_t qp_type;        /* enum ibv_qp_type */
	uint8_t path_mtu;       /* enum ibv_mtu */
	uint8_t timeout;        /* local ACK timeout exponent */
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t min_rnr_timer;
	uint8_t max_rd_atomic;
	uint8_t max_dest_rd_atomic;
	uint8_t port_num;
	uint8_t sgid_index;
	int32_t result;         /* 0 or -errno of the modify call */
	uint8_t av_flags;       /* enum rt_qp_state_av: what the address vector (IBV_QP_AV) said */
	uint8_t access_flags;   /* IBV_QP_ACCESS_FLAGS: qp_access_flags (REMOTE_WRITE 2, REMOTE_READ 4,
				 * REMOTE_ATOMIC 8), valid with RT_QPS_ACCESS_RECORDED */
	uint8_t reserved[2];
};

/* RT_EV_QP_STATE av_flags (0 in traces of a probe that did not record them). */
enum rt_qp_state_av {
	RT_QPS_AV_RECORDED = 1u << 0, /* the modify carried IBV_QP_AV, and these flags say what it had */
	RT_QPS_AV_GLOBAL = 1u << 1,   /* ah_attr.is_global: a GRH, which RoCE needs */
	RT_QPS_ACCESS_RECORDED = 1u << 2, /* the modify carried IBV_QP_ACCESS_FLAGS: access_flags holds them */
};

/*
 * RT_EV_CM_EVENT: event values below 0x80 are enum rdma_cm_event_type (an
 * event the program received, status = event->status); values from 0x80
 * record an RDMA CM call the program made (status = its result, 0 or
 * -errno), written by the probe.
 */
enum rt_cm_event_type {         /* the values of enum rdma_cm_event_type */
	RT_CM_EV_ADDR_RESOLVED = 0,
	RT_CM_EV_ADDR_ERROR = 1,
	RT_CM_EV_ROUTE_RESOLVED = 2,
	RT_CM_EV_ROUTE_ERROR = 3,
	RT_CM_EV_CONNECT_REQUEST = 4,
	RT_CM_EV_CONNECT_RESPONSE = 5,
	RT_CM_EV_CONNECT_ERROR = 6,
	RT_CM_EV_UNREACHABLE = 7,
	RT_CM_EV_REJECTED = 8,
	RT_CM_EV_ESTABLISHED = 9,
	RT_CM_EV_DISCONNECTED = 10,
	RT_CM_EV_DEVICE_REMOVAL = 11,
	RT_CM_EV_MULTICAST_JOIN = 12,
	RT_CM_EV_MULTICAST_ERROR = 13,
	RT_CM_EV_ADDR_CHANGE = 14,
	RT_CM_EV_TIMEWAIT_EXIT = 15,
};

enum rt_cm_call {
	RT_CM_CALL_CREATE_ID = 0x80,
	RT_CM_CALL_BIND_ADDR = 0x81,
	RT_CM_CALL_RESOLVE_ADDR = 0x82,
	RT_CM_CALL_RESOLVE_ROUTE = 0x83,
	RT_CM_CALL_LISTEN = 0x84,
	RT_CM_CALL_CONNECT = 0x85,
	RT_CM_CALL_ACCEPT = 0x86,
	RT_CM_CALL_REJECT = 0x87,
	RT_CM_CALL_DISCONNECT = 0x88,
	RT_CM_CALL_CREATE_QP = 0x89,
	RT_CM_CALL_DESTROY_QP = 0x8a,
	RT_CM_CALL_CREATE_EP = 0x8b,
	RT_CM_CALL_DESTROY_ID = 0x8c,
	RT_CM_CALL_SET_OPTION = 0x8d, /* rdma_set_option: struct rt_ev_cm.option */
};

/* rdma_set_option's levels and RDMA_OPTION_ID names (rdma_cma.h's values). */
enum rt_cm_option {
	RT_CM_OPT_LEVEL_ID = 0,         /* RDMA_OPTION_ID */
	RT_CM_OPT_LEVEL_IB = 1,         /* RDMA_OPTION_IB */
	RT_CM_OPT_TOS = 0,              /* RDMA_OPTION_ID_TOS: uint8_t */
	RT_CM_OPT_REUSEADDR = 1,        /* RDMA_OPTION_ID_REUSEADDR: int */
	RT_CM_OPT_AFONLY = 2,           /* RDMA_OPTION_ID_AFONLY: int */
	RT_CM_OPT_ACK_TIMEOUT = 3,      /* RDMA_OPTION_ID_ACK_TIMEOUT: uint8_t exponent */
	RT_CM_OPT_IB_PATH = 1,          /* RDMA_OPTION_IB_PATH (level RDMA_OPTION_IB) */
};

struct rt_ev_cm {               /* RT_EV_CM_EVENT; header qpn = QP bound to the id, 0 if none */
	int32_t status;
	uint32_t local_ip4;     /* network order; see RT_EV_CM_ADDR6 for IPv6 */
	uint32_t peer_ip4;
	uint16_t local_port;    /* host order */
	uint16_t peer_port;     /* RT_CM_CALL_CREATE_ID and RT_CM_CALL_LISTEN (no peer): the
				 * cm_id's port space instead (enum rdma_port_space: RDMA_PS_TCP
				 * 0x106, RDMA_PS_UDP 0x111, RDMA_PS_IB 0x13f, RDMA_PS_IPOIB 0x2),
				 * 0 when not recorded (older traces) */
	uint8_t event;          /* enum rdma_cm_event_type */
	uint8_t family;         /* AF_INET / AF_INET6 / 0 */
	uint8_t private_len;    /* full private data length */
	uint8_t private_copied; /* bytes of it in private_data */
	uint32_t cm_id;         /* tracer-assigned id of the rdma_cm_id */
	union {
		uint8_t private_data[16];
		/* RT_CM_CALL_LISTEN (no private data): the listener's backlog as the
		 * kernel applies it, the connection requests it holds until the
		 * program takes them with rdma_get_cm_event (rdma_listen's
		 * argument, or net.rdma_ucm.max_backlog when that is 0, negative
		 * or larger), host order; 0 when not recorded (older traces) */
		uint32_t listen_backlog;
		/* RT_CM_CALL_SET_OPTION (no private data): the option asked for */
		struct {
			int32_t level;    /* enum rt_cm_option: RDMA_OPTION_ID, RDMA_OPTION_IB */
			int32_t name;     /* the optname */
			uint32_t value;   /* the value: a uint8_t option's byte, an int
					   * option's int (REUSEADDR, AFONLY); others 0 */
			uint32_t optlen;  /* the optlen given */
		} option;
	};
};

struct rt_ev_cm_addr6 {         /* RT_EV_CM_ADDR6, follows an RT_EV_CM_EVENT */
	uint8_t local[16];
	uint8_t peer[16];
	uint32_t cm_id;
	uint8_t reserved[4];
};

struct rt_ev_mr {               /* RT_EV_MR; RT_EVF_DESTROY for deregistration */
	uint64_t addr;
	uint64_t length;
	uint64_t iova;
	uint32_t lkey;          /* a refused registration (RT_EVF_ERROR, not DESTROY): the errno, 0 unknown */
	uint32_t rkey;
	uint32_t access;        /* enum ibv_access_flags */
	uint32_t pd_id;
};

struct rt_ev_async {            /* RT_EV_ASYNC */
	uint32_t event_type;    /* enum ibv_event_type */
	uint32_t element;       /* QPN, SRQ, CQ id or port, as the type says */
	uint8_t reserved[32];
};

struct rt_ev_counter {          /* RT_EV_COUNTER */
	uint64_t value;
	char name[28];          /* NUL-terminated unless exactly 28 bytes long */
	uint8_t port;
	uint8_t device_id;      /* RT_EV_DEVICE device_id of the device; 0 = unknown */
	uint8_t reserved[2];
};

struct rt_ev_marker {           /* RT_EV_MARKER */
	char text[40];          /* NUL-terminated unless exactly 40 bytes long */
};

enum rt_lost_cause {
	RT_LOST_RING_FULL = 1,  /* stream mode: the collector fell behind */
	RT_LOST_NESTED = 2,     /* an event raised while this thread was already emitting */
	RT_LOST_NO_RING = 3,    /* no ring could be given to this thread */
	RT_LOST_OVERWRITTEN = 4, /* flight recorder: oldest events overwritten */
};

struct rt_ev_lost {             /* RT_EV_LOST */
	uint64_t count;
	uint64_t first_seq;     /* sequence numbers of the lost range */
	uint8_t cause;          /* enum rt_lost_cause */
	uint8_t reserved[23];
};

struct rt_ev_clock_sync {       /* RT_EV_CLOCK_SYNC */
	uint64_t ticks;         /* raw time base value */
	uint64_t mono_ns;       /* CLOCK_MONOTONIC at that instant */
	uint64_t real_ns;       /* CLOCK_REALTIME at that instant */
	uint64_t reserved[2];
};

struct rt_ev_qp_create {        /* RT_EV_QP_CREATE; RT_EVF_DESTROY when destroyed */
	uint32_t send_cq_id;
	uint32_t recv_cq_id;
	uint32_t srq_num;       /* 0 when none */
	uint32_t pd_id;
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_inline;
	uint16_t max_send_sge;
	uint16_t max_recv_sge;
	uint8_t qp_type;        /* enum ibv_qp_type */
	uint8_t sq_sig_all;
	uint8_t extended;       /* created through ibv_create_qp_ex */
	uint8_t error;          /* a failed create (RT_EVF_ERROR): its errno, 0 unknown; the fields
				 * above are then what was asked for */
	uint8_t reserved[4];
};

struct rt_ev_cq_create {        /* RT_EV_CQ_CREATE; header qpn = 0 */
	uint32_t cq_id;
	uint32_t cqe;
	int32_t comp_vector;
	uint8_t has_channel;
	uint8_t extended;
	uint8_t error;          /* a failed create (RT_EVF_ERROR): its errno, 0 unknown; cqe and
				 * comp_vector are then what was asked for */
	uint8_t reserved[25];
};

struct rt_ev_device {           /* RT_EV_DEVICE */
	char name[24];
	uint64_t node_guid;
	uint32_t device_id;     /* tracer-assigned */
	uint8_t reserved[4];
};

enum rt_timer_kind {
	RT_TIMER_ACK_TIMEOUT = 1,
	RT_TIMER_RNR = 2,
};

struct rt_ev_timer {            /* RT_EV_TIMER */
	uint32_t psn;           /* oldest unacknowledged PSN */
	uint32_t timeout_us;
	uint8_t timer;          /* enum rt_timer_kind */
	uint8_t reserved[31];
};

enum rt_warning_code {
	RT_WARN_DIRECT_VERBS = 1, /* data path bypasses the probe (mlx5dv ...) */
	RT_WARN_UNSUPPORTED = 2,  /* a call the probe cannot trace */
	RT_WARN_TRACER = 3,       /* tracer trouble (ring, shared memory) */
};

struct rt_ev_warning {          /* RT_EV_WARNING */
	uint32_t code;          /* enum rt_warning_code */
	char text[36];
};

struct rt_ev_object {           /* RT_EV_PD / RT_EV_SRQ_CREATE */
	uint32_t id;            /* pd id or SRQ number */
	uint32_t pd_id;         /* SRQ: its PD */
	uint32_t max_wr;
	uint32_t max_sge;
	uint32_t srq_limit;
	uint8_t error;          /* a failed create (RT_EVF_ERROR): its errno, 0 unknown; SRQ: the
				 * fields above are then what was asked for */
	uint8_t reserved[19];
};

/* RT_EV_DEVICE_CAPS: what ibv_query_device says of a device (and the
 * context's completion vectors), written by the probe just before the
 * record of a create the device refused, so that the diagnosis can name
 * the limit a request went beyond. */
struct rt_ev_device_caps {
	uint32_t device_id;     /* RT_EV_DEVICE device_id */
	uint32_t max_qp_wr;
	uint32_t max_cqe;
	uint32_t max_srq_wr;
	uint32_t max_qp;
	uint32_t max_cq;
	uint32_t max_srq;
	uint16_t max_sge;
	uint16_t max_srq_sge;
	uint16_t num_comp_vectors;
	uint8_t reserved[6];
};

struct rt_ev_cq_notify {        /* RT_EV_CQ_NOTIFY; header qpn = 0 */
	uint32_t cq_id;         /* probe/engine-assigned CQ handle, as in completions */
	int32_t result;         /* 0 or the error ibv_req_notify_cq returned */
	uint8_t solicited_only; /* armed for solicited completions only */
	uint8_t reserved[31];
};

/* RT_EV_PROCESS_END: how the process's end was seen. */
enum rt_end_how {
	RT_END_EXIT = 1,        /* it called exit() or _exit() (the probe's wrappers), or returned
				 * from main (the probe's on_exit handler; the tracer's exit
				 * handler when there is no probe) */
	RT_END_SIGNAL = 2,      /* the tracer's handler caught a fatal signal (RDMATRACE_SIGNALS) */
	RT_END_WAIT = 3,        /* its parent `rdmatrace record` saw it end (wait status), written
				 * into the trace it salvaged: the process ended without its exit
				 * handler (killed by a signal nobody caught, _exit) */
};

/* The last record of a process that ended.  A process killed by a signal
 * no handler can catch (SIGKILL) gets its record only from `rdmatrace
 * record`; one that ends with neither leaves a trace that just stops. */
struct rt_ev_process_end {      /* RT_EV_PROCESS_END; header qpn = 0 */
	int32_t pid;            /* the process that ended */
	int32_t code;           /* RT_END_EXIT, RT_END_WAIT: exit status; RT_END_SIGNAL: si_code */
	uint64_t addr;          /* RT_END_SIGNAL: the faulting address (si_addr) of SEGV/BUS/ILL/FPE */
	uint8_t how;            /* enum rt_end_how */
	uint8_t signal;         /* the signal that ended it, 0 none */
	uint8_t core_dumped;    /* RT_END_WAIT: the kernel wrote a core dump */
	uint8_t has_code;       /* RT_END_EXIT: code is the status given to exit() / _exit() or
				 * returned from main (0: the status is unknown: the tracer's own
				 * exit handler, in a program without the probe) */
	uint8_t exact_time;     /* RT_END_WAIT: the record's time is the kernel's time of the exit (its
				 * process events: the process torn down, its files closed before),
				 * not when its parent noticed */
	uint8_t reserved[19];
};

/* RT_EV_VERBS_CALL: which call. */
enum rt_verbs_call {
	RT_VC_CREATE_AH = 1,    /* ibv_create_ah: an address handle (UD sends), from ah_* fields */
	RT_VC_ATTACH_MCAST = 2, /* ibv_attach_mcast: the QP (header qpn) joins group gid / lid */
	RT_VC_DETACH_MCAST = 3, /* ibv_detach_mcast */
	RT_VC_OPEN_XRCD = 4,    /* ibv_open_xrcd: an XRC domain */
};

/* A verbs call that makes no object the other records describe, succeeded
 * or refused (RT_EVF_ERROR, error the errno): the ones a program's set-up
 * fails on without the trace saying so otherwise. */
struct rt_ev_verbs_call {       /* RT_EV_VERBS_CALL; header qpn = the QP (multicast), else 0 */
	uint8_t call;           /* enum rt_verbs_call */
	uint8_t error;          /* the errno of a refused call, 0 when it succeeded or is unknown */
	uint8_t port_num;       /* create_ah: ah_attr.port_num */
	uint8_t is_global;      /* create_ah: ah_attr.is_global (RoCE needs the GRH) */
	uint8_t sgid_index;     /* create_ah: grh.sgid_index */
	uint8_t hop_limit;      /* create_ah: grh.hop_limit */
	uint8_t sl;             /* create_ah: ah_attr.sl */
	uint8_t reserved0;
	uint16_t lid;           /* create_ah: dlid; multicast: the group's LID */
	uint16_t reserved1;
	uint32_t device_id;     /* the device, as in RT_EV_DEVICE */
	uint32_t pd_id;         /* create_ah: its PD */
	uint8_t gid[16];        /* create_ah: grh.dgid; multicast: the group */
	uint8_t reserved2[4];
};

/* RT_EV_QP_AV: the address vector of an ibv_modify_qp that carried one
 * (IBV_QP_AV), written just before that modify's RT_EV_QP_STATE record, with
 * what the port it names has, as the probe asked the device (ibv_query_port,
 * ibv_query_gid_ex): the GID at sgid_index and the port's MTU.  RoCE sends
 * from the source GID's IP address to the destination GID's, in packets of
 * the path MTU: a GID index with no address, an IPv6 source for an IPv4
 * destination, or a path MTU above the port's, are set-ups that fail. */
struct rt_ev_qp_av {            /* RT_EV_QP_AV; header qpn = the QP, 0 for ibv_create_ah's (before its
				 * RT_EV_VERBS_CALL record) */
	uint8_t port_num;       /* ah_attr.port_num (IBV_QP_PORT's when the modify had it) */
	uint8_t sgid_index;     /* grh.sgid_index */
	uint8_t is_global;      /* ah_attr.is_global */
	uint8_t hop_limit;      /* grh.hop_limit */
	uint8_t port_state;     /* enum ibv_port_state; 0 when the port could not be queried */
	uint8_t active_mtu;     /* enum ibv_mtu (1 = 256 ... 5 = 4096); 0 unknown */
	uint8_t sgid_type;      /* enum ibv_gid_type: 0 IB, 1 RoCE v1, 2 RoCE v2; 0xFF unknown */
	uint8_t sgid_known;     /* 1: sgid is the port's GID at sgid_index; 0: the query failed
				 * (an index past the port's table) */
	uint8_t sgid[16];       /* the port's GID at sgid_index (all zero: no address there) */
	uint8_t dgid[16];       /* grh.dgid */
};

struct rt_event {
	uint64_t ticks;         /* raw time base value; converted to ns by the reader */
	uint32_t seq;           /* per-thread sequence number, starts at 0, wraps */
	uint32_t tid;           /* kernel thread id */
	uint16_t kind;          /* enum rt_event_kind */
	uint16_t flags;         /* enum rt_event_flags */
	uint32_t qpn;           /* the QP the event is about, 0 if none */
	union {
		struct rt_ev_wr wr;
		struct rt_ev_completion wc;
		struct rt_ev_packet pkt;
		struct rt_ev_retry retry;
		struct rt_ev_rnr rnr;
		struct rt_ev_qp_state qp_state;
		struct rt_ev_cm cm;
		struct rt_ev_cm_addr6 cm_addr6;
		struct rt_ev_mr mr;
		struct rt_ev_async async;
		struct rt_ev_counter counter;
		struct rt_ev_marker marker;
		struct rt_ev_lost lost;
		struct rt_ev_clock_sync clock;
		struct rt_ev_qp_create qp_create;
		struct rt_ev_cq_create cq_create;
		struct rt_ev_device device;
		struct rt_ev_timer timer;
		struct rt_ev_warning warning;
		struct rt_ev_object object;
		struct rt_ev_cq_notify cq_notify;
		struct rt_ev_device_caps device_caps;
		struct rt_ev_process_end process_end;
		struct rt_ev_verbs_call verbs_call;
		struct rt_ev_qp_av qp_av;
		uint8_t raw[RT_EVENT_PAYLOAD_SIZE];
	} u;
};

_Static_assert(sizeof(struct rt_event) == RT_EVENT_SIZE, "rt_event must be 64 bytes");
_Static_assert(sizeof(struct rt_ev_wr) == RT_EVENT_PAYLOAD_SIZE, "wr payload size");
_Static_assert(sizeof(struct rt_ev_completion) == RT_EVENT_PAYLOAD_SIZE, "wc payload size");
_Static_assert(sizeof(struct rt_ev_packet) == RT_EVENT_PAYLOAD_SIZE, "packet payload size");
_Static_assert(sizeof(struct rt_ev_qp_state) == RT_EVENT_PAYLOAD_SIZE, "qp_state payload size");
_Static_assert(sizeof(struct rt_ev_cm) == RT_EVENT_PAYLOAD_SIZE, "cm payload size");
_Static_assert(sizeof(struct rt_ev_qp_create) == RT_EVENT_PAYLOAD_SIZE, "qp_create payload size");
_Static_assert(sizeof(struct rt_ev_cq_create) == RT_EVENT_PAYLOAD_SIZE, "cq_create payload size");
_Static_assert(sizeof(struct rt_ev_object) == RT_EVENT_PAYLOAD_SIZE, "object payload size");
_Static_assert(sizeof(struct rt_ev_device_caps) == RT_EVENT_PAYLOAD_SIZE, "device_caps payload size");
_Static_assert(sizeof(struct rt_ev_process_end) == RT_EVENT_PAYLOAD_SIZE, "process_end payload size");
_Static_assert(sizeof(struct rt_ev_verbs_call) == RT_EVENT_PAYLOAD_SIZE, "verbs_call payload size");
_Static_assert(sizeof(struct rt_ev_qp_av) == RT_EVENT_PAYLOAD_SIZE, "qp_av payload size");

/* Name of an event kind ("wr_post", "completion", ...); "unknown" otherwise. */
const char *rt_event_kind_name(unsigned kind);

#endif

/*
 * The run's timeline: every trace event and every captured RoCE packet of a
 * run in one time-ordered table, with the links between them (WR -> packets
 * -> ACK/NAK -> completion ...), the hosts with their clock offsets, the
 * QPs with their statistics and the diagnosis findings.
 *
 * It is built once (`rdmatrace correlate`) and saved as RUNDIR/timeline.rtl,
 * an indexed file that is memory-mapped when loaded: rows are fixed-size and
 * sorted by aligned time, strings live in one table, links in one array, so
 * opening a run of 10 million events costs a few page faults and nothing is
 * parsed.  A built timeline and a loaded one answer every call the same way.
 *
 *     struct rt_timeline *tl;
 *     char err[256];
 *     if (rt_timeline_open_rundir("run1", RT_TL_OPEN_REBUILD_STALE, &tl, err, sizeof err) < 0) ...
 *     size_t i = rt_tl_find_time(tl, t);                    // first row at or after t
 *     const struct rt_tl_row *r = rt_tl_row(tl, i);
 *     char line[RT_TL_SUMMARY_MAX];
 *     rt_tl_format_summary(tl, i, line, sizeof line);
 *     const struct rt_tl_link *l; size_t n = rt_tl_links(tl, i, &l);
 *     ssize_t e = rt_tl_next_match(tl, i, RT_TLM_ERROR | RT_TLM_RNR, +1);
 *     rt_timeline_free(tl);
 *
 * API stability: this header only grows.  Row, host, QP and finding structs
 * keep their layout (fields are added in the reserved space); enum values
 * never change.  The file carries a version; older files are rebuilt.
 *
 * Time: every row has an aligned time in ns since the Unix epoch, in the
 * time base of the reference clock (the capture point when there is a
 * capture, else the first traced host).  Each host's raw clock maps to it
 * by aligned = raw + offset + drift * (raw - drift_origin) (see struct
 * rt_tl_host); docs/timeline.md explains how the offsets are estimated.
 */
#ifndef RDMATRACE_TIMELINE_H
#define RDMATRACE_TIMELINE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rdmatrace/event.h"

#define RT_TL_NONE UINT32_MAX   /* "no index" in any uint32_t index field */
#define RT_TL_FILE_NAME "timeline.rtl"

/* What a row is.  Values 1..63 are trace event kinds (enum rt_event_kind,
 * same numbers); the others are timeline-only. */
enum rt_tl_kind {
	RT_TLK_PACKET = 64,       /* a RoCE data-plane packet seen by the capture */
	RT_TLK_CM_PACKET = 65,    /* a CM MAD (or other MAD) on QP1 seen by the capture */
	RT_TLK_FINDING = 66,      /* a diagnosis finding, at the time its problem starts */
};

/* Where the row was observed. */
enum rt_tl_dir {
	RT_TLD_NONE = 0,          /* not a transfer (WR post, QP state ...) */
	RT_TLD_TX = 1,            /* sent by the row's host (engine packet / RNR events) */
	RT_TLD_RX = 2,            /* received by the row's host */
	RT_TLD_WIRE = 3,          /* seen on the wire by the capture */
};

/* struct rt_tl_row.flags */
enum rt_tl_flags {
	RT_TLF_ERROR = 1u << 0,       /* error completion, failed call, QP to ERROR, NAK error, bad ICRC */
	RT_TLF_RETRANS = 1u << 1,     /* a retransmitted packet (or RT_EV_RETRY) */
	RT_TLF_RNR = 1u << 2,         /* RNR NAK (wire or event) */
	RT_TLF_NAK = 1u << 3,         /* NAK of any code */
	RT_TLF_CONTROL = 1u << 4,     /* control plane: CM, QP/CQ/MR/PD setup, device, async */
	RT_TLF_ACK = 1u << 5,         /* ACK (positive) */
	RT_TLF_DUP = 1u << 6,         /* duplicate seen by the receiver */
	RT_TLF_OUT_OF_ORDER = 1u << 7,/* PSN after a gap (earlier PSNs missing at this point), or a late
				       * one: held back on the way, after later PSNs */
	RT_TLF_BAD_ICRC = 1u << 8,
	RT_TLF_ECN = 1u << 9,         /* IP ECN field says Congestion Experienced */
	RT_TLF_CNP = 1u << 10,
	RT_TLF_SIGNALED = 1u << 11,   /* WR post: signaled */
	RT_TLF_RECV = 1u << 12,       /* WR post / completion on a receive queue */
	RT_TLF_HAS_WR = 1u << 13,     /* packet / completion: linked to a WR (wr_id valid) */
	RT_TLF_FINDING = 1u << 14,    /* evidence of at least one finding */
	RT_TLF_REQUEST = 1u << 15,    /* packet: a request (carries a PSN of the requester) */
	RT_TLF_RESPONSE = 1u << 16,   /* packet: a response (ACK, NAK, READ response, atomic ACK) */
	RT_TLF_DAMAGED = 1u << 17,    /* packet truncated or malformed */
	RT_TLF_ENGINE = 1u << 18,     /* trace event written by an engine (RT_EVF_ENGINE) */
};

/*
 * One row: 64 bytes, sorted by t_ns (ties keep input order).
 *   kind < 64: ref indexes the trace events (rt_tl_event()), sub holds the
 *              WR opcode (WR_POST), the wc status (COMPLETION), the QP
 *              target state (QP_STATE), the CM event type (CM_EVENT).
 *   PACKET / CM_PACKET: ref indexes the packets (rt_tl_packet()), frame is
 *              the 1-based frame number in the capture, sub the BTH opcode
 *              (CM: the low byte of the CM attribute ID).
 *   FINDING:   ref indexes the findings (rt_tl_finding()).
 * qpn is the local QP the row is about: for a packet, the QP of its sender
 * when known (else 0); peer_qpn the other end (for a packet: BTH dest QP).
 */
struct rt_tl_row {
	uint64_t t_ns;            /* aligned time */
	uint64_t wr_id;           /* WR / completion wr_id; packets: their WR's when HAS_WR */
	uint32_t ref;
	uint32_t frame;
	uint32_t qpn;
	uint32_t peer_qpn;
	uint32_t psn;             /* packet PSN; WR: first PSN when known */
	uint32_t flags;           /* enum rt_tl_flags */
	uint32_t link_off;        /* into the link array */
	uint32_t qp;              /* index into the QP list, RT_TL_NONE when unknown */
	uint32_t len;             /* WR length, completion byte_len, packet payload bytes */
	uint16_t link_count;
	uint16_t host;            /* host index; packets: the capture point */
	uint16_t proc;            /* process index, UINT16_MAX for none */
	uint8_t kind;             /* enum rt_event_kind or enum rt_tl_kind */
	uint8_t dir;              /* enum rt_tl_dir */
	uint8_t sub;
	uint8_t reserved[3];
};
_Static_assert(sizeof(struct rt_tl_row) == 64, "timeline row is 64 bytes");

/* How two rows are related (struct rt_tl_link.type): "the target is the
 * source's ...". */
enum rt_tl_link_type {
	RT_TLL_WR = 1,            /* work request (of a packet, completion, RNR ...) */
	RT_TLL_PACKET = 2,        /* first transmission of one of the WR's packets */
	RT_TLL_RETRANS = 3,       /* a retransmission of one of the WR's packets */
	RT_TLL_ACK = 4,           /* the ACK that covered it */
	RT_TLL_NAK = 5,           /* a NAK (any code) about it */
	RT_TLL_RNR = 6,           /* an RNR NAK about it */
	RT_TLL_COMPLETION = 7,    /* its completion (for an unsignaled WR: the covering one) */
	RT_TLL_COVERED = 8,       /* completion -> the unsignaled WRs it covers */
	RT_TLL_CONSUMER = 9,      /* receive WR -> the packet that consumed it */
	RT_TLL_RECV_WR = 10,      /* packet -> the receive WR it consumed */
	RT_TLL_CM_EVENT = 11,     /* CM packet -> CM event it produced */
	RT_TLL_CM_PACKET = 12,    /* CM event -> CM packet */
	RT_TLL_FINDING = 13,      /* evidence row -> finding row; finding row -> evidence */
	RT_TLL_ORIGINAL = 14,     /* retransmitted packet -> first transmission of the PSN */
	RT_TLL_REQUEST = 15,      /* ACK/NAK/response -> the request packet it answers */
	RT_TLL_QP_STATE = 16,     /* completion/packet -> the QP state event that applied */
	RT_TLL_EVENT = 17,        /* wire packet <-> the engine's packet event for it */
	RT_TLL_CM_PEER = 18,      /* CM record <-> the peer process's record of the same connection
				   * (connect -> CONNECT_REQUEST, accept -> ESTABLISHED / REJECTED) */
};

struct rt_tl_link {
	uint32_t row;
	uint32_t type;            /* enum rt_tl_link_type */
};

/* Host.  Index 0 is the reference clock (the capture when present). */
enum rt_tl_host_flags {
	RT_TLH_CAPTURE = 1u << 0, /* the capture point, not a traced host */
	RT_TLH_TRACED = 1u << 1,  /* trace files from it */
	RT_TLH_ALIGNED = 1u << 2, /* offset bounded on both sides by causal constraints */
	RT_TLH_REFERENCE = 1u << 3,
	RT_TLH_INCONSISTENT = 1u << 4, /* constraints contradict each other (offset is a best guess) */
	RT_TLH_DRIFT = 1u << 5,   /* drift estimated */
};

struct rt_tl_host {
	uint32_t name;            /* string offset */
	uint32_t flags;           /* enum rt_tl_host_flags */
	int64_t offset_ns;        /* aligned = raw + offset (+ drift) */
	int64_t offset_lo_ns;     /* causal interval the true offset lies in ... */
	int64_t offset_hi_ns;     /* ... (INT64_MIN / INT64_MAX: unbounded side) */
	uint64_t uncertainty_ns;  /* farthest the true offset can be from offset_ns (the half width when
				   * that is the middle); UINT64_MAX when unbounded */
	int64_t drift_ppb;        /* clock rate error, parts per billion (0 when none) */
	uint64_t drift_origin_ns; /* raw time the offset applies at */
	uint64_t constraints;     /* causal constraints used */
	uint8_t ip_version;
	uint8_t ip[16];           /* an address of the host seen in CM / on the wire */
	uint8_t reserved[23];
};

struct rt_tl_proc {
	uint32_t program;         /* string offset */
	int32_t pid;
	uint16_t host;
	uint16_t reserved;
	uint32_t trace_file;      /* string offset of the trace path */
};

enum rt_tl_qp_flags {
	RT_TLQ_TRACED = 1u << 0,  /* seen in traces */
	RT_TLQ_WIRE = 1u << 1,    /* seen on the wire */
	RT_TLQ_CM = 1u << 2,      /* connected through RDMA CM (QPNs from REQ/REP) */
	RT_TLQ_ERROR = 1u << 3,   /* went to the ERROR state */
};

/* Per-QP statistics; latencies in ns, UINT64_MAX where unknown. */
struct rt_tl_qp {
	uint32_t qpn;
	uint32_t peer_qpn;        /* 0 when unknown */
	uint32_t peer;            /* index of the peer QP, RT_TL_NONE */
	uint32_t flags;           /* enum rt_tl_qp_flags */
	uint16_t host;            /* UINT16_MAX when only known from the wire */
	uint16_t proc;            /* UINT16_MAX when unknown */
	uint8_t qp_type;          /* enum ibv_qp_type (2 = RC) */
	uint8_t ip_version;
	uint8_t timeout;          /* local ACK timeout exponent, 0xFF unknown */
	uint8_t retry_cnt, rnr_retry, min_rnr_timer; /* 0xFF unknown */
	uint8_t mtu;              /* enum ibv_mtu, 0 unknown */
	uint8_t reserved0;
	uint8_t ip[16];
	uint64_t wrs_send, wrs_recv, completions, error_completions;
	uint64_t packets_tx, bytes_tx; /* requests/responses this QP sent (wire or events) */
	uint64_t retransmitted, bytes_resent, naks, rnr_naks, duplicates, out_of_order, cnps, ecn;
	uint64_t lat_p50_ns, lat_p99_ns, lat_max_ns; /* send WR post -> completion */
	uint64_t post_to_wire_p50_ns;  /* post -> first packet */
	uint64_t ack_p50_ns;           /* last packet -> ACK */
	uint64_t poll_delay_p50_ns;    /* ACK (or consuming packet) -> completion polled */
	uint64_t recv_posted_max, recv_posted_min; /* receive-queue depth range while traced */
	uint64_t first_ns, last_ns;
	uint8_t reserved[32];
};

enum rt_tl_severity {
	RT_TLS_INFO = 0,
	RT_TLS_WARNING = 1,
	RT_TLS_ERROR = 2,
};

/* Finding kinds (stable names from rt_tl_finding_kind_name()). */
enum rt_tl_finding_kind {
	RT_TLFK_GO_BACK_N = 1,    /* retransmission burst */
	RT_TLFK_RNR_STALL = 2,
	RT_TLFK_NAK_ERROR = 3,    /* invalid request / remote access / remote op error */
	RT_TLFK_ERROR_COMPLETION = 4,
	RT_TLFK_QP_ERROR = 5,     /* QP went to ERROR (with flushed WRs) */
	RT_TLFK_DUPLICATE = 6,
	RT_TLFK_OUT_OF_ORDER = 7, /* PSN gap at the capture point, or requests reordered on the way */
	RT_TLFK_BAD_ICRC = 8,
	RT_TLFK_CONGESTION = 9,   /* CNPs / ECN marks */
	RT_TLFK_MISSING_INPUT = 10, /* a trace or the capture is missing / damaged */
	RT_TLFK_CLOCK = 11,       /* clock constraints inconsistent */
	RT_TLFK_CM_REJECT = 12,   /* connection rejected */
	RT_TLFK_LOST_EVENTS = 13, /* tracer lost events */
	RT_TLFK_UNRELIABLE_LOSS = 14, /* UC / UD packets lost (nothing retransmits them) */
	RT_TLFK_CM_LOST = 15,     /* CM messages lost: sent again, or never reached the capture */
	RT_TLFK_POST_FAILED = 16, /* ibv_post_send / ibv_post_recv refused WRs */
	RT_TLFK_CALL_FAILED = 17, /* ibv_modify_qp, ibv_reg_mr, a create or an RDMA CM call failed */
	RT_TLFK_PROCESS_ENDED = 18, /* a traced process crashed, was killed or ended without exiting */
	RT_TLFK_ASYNC_ERROR = 19, /* an asynchronous error event (CQ overrun, QP fatal, port down ...) */
	RT_TLFK_QP_SETUP = 20,    /* a QP set up in a way that cannot work (a path MTU above the port's ...),
				   * or not as asked (an ACK timeout or TOS option its RDMA CM did not use) */
	RT_TLFK_HELD_BACK = 21,   /* packets an engine held back (injected delay, reordering) */
	RT_TLFK_PROCESS_FROZEN = 22, /* a traced process stopped for seconds, then went on (SIGSTOP, a
				      * debugger, a paused machine) */
	RT_TLFK_RETRANS_STORM = 23, /* a QP's many Go-Back-N findings summed up: what they resent and cost,
				     * what started them */
};

struct rt_tl_finding {
	uint32_t id;              /* 1-based, as "F<id>" */
	uint32_t kind;            /* enum rt_tl_finding_kind */
	uint32_t severity;        /* enum rt_tl_severity */
	uint32_t text;            /* string offset: one plain sentence */
	uint32_t evidence;        /* string offset: evidence in words (frames, WR ids, times) */
	uint32_t qp;              /* QP index or RT_TL_NONE */
	uint32_t row;             /* the finding's own row */
	uint32_t ev_off, ev_count;/* evidence rows in the link array (type RT_TLL_FINDING) */
	uint32_t reserved0;
	uint64_t t_ns;            /* when it starts */
	uint64_t time_lost_ns;    /* time the application lost to it (0 when none) */
	uint64_t bytes;           /* bytes resent, when that applies */
	uint8_t reserved[24];
};

/* ---- building and opening ---- */

/* Inputs of a build.  Any subset: traces only, a capture only, both. */
struct rt_tl_inputs {
	const char *const *traces;   /* trace files */
	size_t ntraces;
	const char *capture;         /* pcap/pcapng, or NULL */
	const char *annotated_out;   /* write the annotated pcapng here (NULL: not) */
	const char *annotations_jsonl; /* write the annotations sidecar here (NULL: not) */
	const char *timeline_out;    /* the path rt_timeline_save() will be given, or NULL: the
					build then prepares that file on its second thread, so
					that the save only copies (an optimisation only) */
	const char *rundir;          /* the run directory, or NULL: its recordings' run.json say
					how programs that left no trace ended */
	const char *const *unused_captures; /* other captures the caller found and does not
					correlate (one capture point a timeline): named in a note */
	size_t nunused_captures;
};

struct rt_timeline;

/* Build in memory.  0, or -errno with err saying why (no input readable at
 * all); missing or damaged inputs are findings, not errors. */
int rt_timeline_build(const struct rt_tl_inputs *in, struct rt_timeline **out, char *err, size_t errlen);

/* Build from RUNDIR (traces/ *.rtr, capture.pcapng, or any *.pcap / *.pcapng
 * at its top), write RUNDIR/timeline.rtl, annotated.pcapng and
 * annotations.jsonl.  *out may be NULL when the caller only wants the files. */
int rt_timeline_correlate(const char *rundir, struct rt_timeline **out, char *err, size_t errlen);

enum rt_tl_correlate_flags {
	RT_TL_CORRELATE_NO_ANNOTATED = 1u << 0, /* timeline.rtl only (export --format pcapng makes the rest) */
};
int rt_timeline_correlate_ex(const char *rundir, unsigned flags, struct rt_timeline **out, char *err,
			     size_t errlen);

/* The capture correlate reads in RUNDIR (capture.pcapng, else capture.*,
 * else wire.*, else the only other *.pcap / *.pcapng, each also gzipped as
 * *.gz): its path into path.  0, -ENOENT when the run has none. */
int rt_timeline_capture_of(const char *rundir, char *path, size_t len);

/* 1 when RUNDIR's timeline is missing, of another version, or older than
 * one of its inputs; 0 when current. */
int rt_timeline_stale(const char *rundir);

enum rt_tl_open_flags {
	RT_TL_OPEN_REBUILD_STALE = 1u << 0, /* correlate first when stale, or when the file fails to load */
};

/* Open RUNDIR's timeline (mapping it). */
int rt_timeline_open_rundir(const char *rundir, unsigned flags, struct rt_timeline **out, char *err,
			    size_t errlen);

/* Open what PATH is: a run directory (as rt_timeline_open_rundir, with
 * flags), or a single file correlated on its own in memory: a capture
 * (pcap, pcapng, also compressed), a trace file, or a saved timeline file.
 * 0, or -errno with err set ("PATH: not a run directory, timeline, trace
 * file or capture (...)"). */
int rt_timeline_open_path(const char *path, unsigned flags, struct rt_timeline **out, char *err, size_t errlen);

/* The same for paths[n]: one path as rt_timeline_open_path(); several, a
 * capture (one at most) and trace files, correlated together in memory. */
int rt_timeline_open_paths(const char *const *paths, size_t n, unsigned flags, struct rt_timeline **out, char *err,
			   size_t errlen);

/* Save to / map from an explicit path. */
int rt_timeline_save(const struct rt_timeline *tl, const char *path, char *err, size_t errlen);
int rt_timeline_load(const char *path, struct rt_timeline **out, char *err, size_t errlen);
/* Same on a buffer (copied); for the fuzzer. */
int rt_timeline_load_mem(const void *data, size_t len, struct rt_timeline **out, char *err, size_t errlen);

void rt_timeline_free(struct rt_timeline *tl);

/* ---- access ---- */

size_t rt_tl_row_count(const struct rt_timeline *tl);
const struct rt_tl_row *rt_tl_row(const struct rt_timeline *tl, size_t i);
/* Links of row i; returns the count, *out the first. */
size_t rt_tl_links(const struct rt_timeline *tl, size_t i, const struct rt_tl_link **out);
/* A string from the table ("" for a bad offset). */
const char *rt_tl_str(const struct rt_timeline *tl, uint32_t off);

size_t rt_tl_host_count(const struct rt_timeline *tl);
const struct rt_tl_host *rt_tl_host(const struct rt_timeline *tl, size_t i);
size_t rt_tl_proc_count(const struct rt_timeline *tl);
const struct rt_tl_proc *rt_tl_proc(const struct rt_timeline *tl, size_t i);
size_t rt_tl_qp_count(const struct rt_timeline *tl);
const struct rt_tl_qp *rt_tl_qp(const struct rt_timeline *tl, size_t i);
/* Where QP i is, in words: its host's name, and when another QP of the
 * same QPN is on the same host (two processes on one machine, as in the
 * uroce lab) its address or else its process; its address when no host is
 * known.  Returns the length written to buf. */
size_t rt_tl_format_qp_host(const struct rt_timeline *tl, size_t i, char *buf, size_t len);
/* QP q's IP address ("-" when not known); returns the length written. */
size_t rt_tl_format_qp_ip(const struct rt_tl_qp *q, char *buf, size_t len);
/* Findings ranked: most time lost first, then severity, then time. */
size_t rt_tl_finding_count(const struct rt_timeline *tl);
const struct rt_tl_finding *rt_tl_finding(const struct rt_timeline *tl, size_t i);

/* The trace event behind a row of kind < 64 (NULL otherwise), and the raw
 * (unaligned) time of the row in its own host's clock. */
const struct rt_event *rt_tl_event(const struct rt_timeline *tl, size_t row);
uint64_t rt_tl_raw_ns(const struct rt_timeline *tl, size_t row);

/* Packet rows: the stored headers (up to the payload; the whole frame for
 * CM) as captured, for rt_decode(); returns the stored length, 0 if none. */
size_t rt_tl_packet_bytes(const struct rt_timeline *tl, size_t row, const uint8_t **data, uint32_t *wirelen,
			  uint16_t *linktype);
/* The packet's comment as written to annotated.pcapng ("" if none): a
 * per-thread buffer, valid until the next call in the same thread. */
const char *rt_tl_packet_annotation(const struct rt_timeline *tl, size_t row);
/* The same into buf; returns the length (0 for rows that are not packets). */
size_t rt_tl_format_annotation(const struct rt_timeline *tl, size_t row, char *buf, size_t len);

/* Input description: capture path, trace files, and what was missing or
 * damaged (one line each). */
const char *rt_tl_capture_path(const struct rt_timeline *tl);
size_t rt_tl_note_count(const struct rt_timeline *tl);
const char *rt_tl_note(const struct rt_timeline *tl, size_t i);
/* Time range of the rows (aligned). */
uint64_t rt_tl_first_ns(const struct rt_timeline *tl);
uint64_t rt_tl_last_ns(const struct rt_timeline *tl);

/* ---- formatting ---- */

#define RT_TL_SUMMARY_MAX 512
#define RT_TL_DETAIL_MAX 16384
/* One line without '\n' ("wr_post host=a qp=0x11 wr_id=4 RDMA_WRITE 8192 B ...").
 * Returns the length (truncated to len - 1). */
size_t rt_tl_format_summary(const struct rt_timeline *tl, size_t row, char *buf, size_t len);
/* Several lines: every decoded field of a packet, every field of an event,
 * and the related rows (WR with its packets, ACK and completion). */
size_t rt_tl_format_detail(const struct rt_timeline *tl, size_t row, char *buf, size_t len);
/* Names. */
const char *rt_tl_kind_name(unsigned kind);
const char *rt_tl_link_type_name(unsigned type);
const char *rt_tl_finding_kind_name(unsigned kind);
const char *rt_tl_severity_name(unsigned severity);

/* ---- search ---- */

/* First row with t_ns >= t (rt_tl_row_count() when none). */
size_t rt_tl_find_time(const struct rt_timeline *tl, uint64_t t_ns);

/* Predicates with a precomputed index (binary search, no scan). */
enum rt_tl_match {
	RT_TLM_ERROR = 1u << 0,
	RT_TLM_RETRANS = 1u << 1,
	RT_TLM_RNR = 1u << 2,
	RT_TLM_NAK = 1u << 3,
	RT_TLM_CM = 1u << 4,      /* CM packets and CM events */
	RT_TLM_FINDING = 1u << 5, /* finding rows */
	RT_TLM_PACKET = 1u << 6,  /* wire packets */
	RT_TLM_WR = 1u << 7,      /* WR posts */
	RT_TLM_COMPLETION = 1u << 8,
	RT_TLM_CONTROL = 1u << 9,  /* rows with RT_TLF_CONTROL */
	RT_TLM_EVIDENCE = 1u << 10, /* rows with RT_TLF_FINDING (evidence of a finding) */
	RT_TLM_COUNT_ = 11
};
/* Next row strictly after `from` (dir > 0) or before it (dir < 0) matching
 * any bit of mask; -1 when none.  from may be -1 / row count for the ends. */
ssize_t rt_tl_next_match(const struct rt_timeline *tl, ssize_t from, unsigned mask, int dir);
/* Same with any predicate (linear scan from `from`). */
ssize_t rt_tl_next_where(const struct rt_timeline *tl, ssize_t from, int dir,
			 int (*pred)(const struct rt_timeline *tl, size_t row, void *ctx), void *ctx);
/* Does row i match the mask (the same definition the index uses)? */
int rt_tl_row_matches(const struct rt_timeline *tl, size_t i, unsigned mask);

#endif

/*
 * What the viewer shows, seen through one interface: a source of timeline
 * rows.  The model and the screens only ever talk to a struct vw_source, so
 * the same code runs over the correlation's memory-mapped timeline, over an
 * in-memory table built from trace files or a capture alone, over a table a
 * unit test fills by hand, and over a run that is still being recorded
 * (count() grows between refresh() calls).
 *
 * Rows are numbered 0..count-1 in aligned time order.  Everything a filter
 * or a jump needs per row is in the fixed-size struct vw_row, so scanning
 * never formats text; summaries and details are formatted on demand for the
 * few rows on screen.
 */
#ifndef RDMATRACE_VIEWER_SOURCE_H
#define RDMATRACE_VIEWER_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#define VW_HOST_WIRE 0xFFFFu  /* row seen on the wire (capture), not by a host */
#define VW_HOST_NONE 0xFFFEu
#define VW_PROC_NONE 0xFFFFu

enum vw_dir { VW_DIR_NONE = 0, VW_DIR_TX = 1, VW_DIR_RX = 2 };

/* Row flags: what jumps, filters and colours look at. */
enum vw_row_flags {
	VW_F_ERROR = 1u << 0,    /* error completion, failed call, NAK error, bad ICRC */
	VW_F_RETRANS = 1u << 1,  /* retransmitted packet or a retry */
	VW_F_RNR = 1u << 2,      /* RNR NAK (sent, received or on the wire) */
	VW_F_NAK = 1u << 3,      /* any NAK (sequence error, access, ...) */
	VW_F_CTRL = 1u << 4,     /* control plane: CM, QP state, MR, PD, CQ, async ... */
	VW_F_CM = 1u << 5,       /* a CM event or a CM MAD on the wire */
	VW_F_PACKET = 1u << 6,   /* a packet (engine trace or capture) */
	VW_F_FINDING = 1u << 7,  /* evidence of a diagnosis finding */
	VW_F_ACK = 1u << 8,      /* ACK / NAK / RNR NAK packet */
	VW_F_DROPPED = 1u << 9,  /* a packet dropped by the engine */
};

/* Which table the opcode of a row comes from. */
enum vw_op_space {
	VW_OPS_NONE = 0,
	VW_OPS_WR = 1,   /* enum ibv_wr_opcode (send WRs); recv WRs use VW_OPS_NONE */
	VW_OPS_WC = 2,   /* enum ibv_wc_opcode (RECV = 128 ...) */
	VW_OPS_BTH = 3,  /* BTH opcode */
	VW_OPS_COUNT
};

/* The row kinds (the first values are the trace event kinds of event.h). */
#define VW_KIND_WIRE 32     /* a captured frame (RoCE or CM MAD) */
#define VW_KIND_FINDING 33  /* a diagnosis finding placed on the timeline */
#define VW_KIND_COUNT 34

struct vw_row {
	uint64_t ns;        /* aligned time, ns since the Unix epoch */
	uint32_t qpn;       /* the QP the row is about (a wire packet: its sender's); 0 if none */
	uint32_t peer_qpn;  /* the other end (a packet: its destination QP); 0 if unknown */
	uint32_t frame;     /* capture frame number (1-based), 0 if none */
	uint16_t host;      /* index into vw_source.hosts, VW_HOST_WIRE, VW_HOST_NONE */
	uint16_t proc;      /* index into vw_source.procs, VW_PROC_NONE */
	uint16_t flags;     /* enum vw_row_flags */
	uint8_t kind;       /* enum rt_event_kind or VW_KIND_* */
	uint8_t dir;        /* enum vw_dir */
	uint8_t op_space;   /* enum vw_op_space */
	uint8_t opcode;
};

enum vw_link_kind {
	VW_LINK_WR = 1,         /* the work request */
	VW_LINK_PACKET = 2,     /* a packet of it */
	VW_LINK_ACK = 3,        /* the ACK / NAK answering it */
	VW_LINK_COMPLETION = 4, /* its completion */
	VW_LINK_PEER = 5,       /* the same packet seen elsewhere (wire <-> host) */
	VW_LINK_OTHER = 6,
};

struct vw_link {
	size_t row;
	uint8_t kind;           /* enum vw_link_kind */
	const char *name;       /* what the target is ("packet", "ACK" ...); NULL: from kind */
};

struct vw_host {
	char name[64];
	int capture;            /* the capture point (its rows are wire rows) */
};

/* A traced process: with several on one host (a lab run on loopback), the
 * lanes view puts processes side by side instead of hosts. */
struct vw_proc {
	char name[96];          /* "host:program[pid]" */
	char label[24];         /* "host:pid", for the host column */
	uint16_t host;
};

struct vw_qp {
	uint16_t host;          /* VW_HOST_WIRE for a QP only seen on the wire */
	uint32_t qpn;
	uint32_t peer_qpn;
	uint64_t wrs, completions, errors, packets, retrans, rnr, naks, bytes;
	uint64_t first_ns, last_ns;
	char state[16];         /* last known QP state ("RTS", "ERR", ...) */
};

struct vw_finding {
	char title[160];        /* one line */
	char text[1024];        /* explanation with evidence, several lines */
	size_t rows[16];        /* evidence rows, first is where to jump */
	unsigned nrows;
	uint8_t severity;       /* 0 info, 1 warning, 2 error */
};

/* What a chunk of rows holds, ORed over its rows: lets scans skip chunks
 * that cannot hold a match.  Blooms are one bit per hashed value. */
struct vw_chunk {
	uint64_t kinds, hosts, qp_bloom, op_bloom;
	uint16_t flags;
	uint8_t done;
};

static inline unsigned vw_bloom_bit(uint32_t v)
{
	return (unsigned)((v * 0x9E3779B1u) >> 26);
}

static inline unsigned vw_host_bit(unsigned host)
{
	return host == VW_HOST_WIRE ? 63 : host % 63;
}

static inline unsigned vw_op_key(unsigned space, unsigned op)
{
	return space * 256 + op;
}

/* Add one row to a chunk summary. */
static inline void vw_chunk_add(struct vw_chunk *ch, const struct vw_row *r)
{
	ch->kinds |= 1ull << (r->kind & 63);
	ch->hosts |= 1ull << vw_host_bit(r->host);
	ch->qp_bloom |= 1ull << vw_bloom_bit(r->qpn);
	if (r->host == VW_HOST_WIRE)
		ch->qp_bloom |= 1ull << vw_bloom_bit(r->peer_qpn);
	if (r->op_space)
		ch->op_bloom |= 1ull << vw_bloom_bit(vw_op_key(r->op_space, r->opcode));
	ch->flags |= r->flags;
}

struct vw_source_ops {
	size_t (*count)(void *ctx);
	/* Fill *out for row i < count; 0 or -errno. */
	int (*row)(void *ctx, size_t i, struct vw_row *out);
	/* One-line summary (NUL-terminated, truncated to len). */
	void (*summary)(void *ctx, size_t i, char *buf, size_t len);
	/* Multi-line detail ('\n' separated). */
	void (*detail)(void *ctx, size_t i, char *buf, size_t len);
	/* Rows linked to i (WR -> packets -> ACK -> completion); how many written. */
	size_t (*links)(void *ctx, size_t i, struct vw_link *out, size_t max);
	/* Optional: OR rows [first, first + n) into *out faster than row() by row(). */
	void (*summarize)(void *ctx, size_t first, size_t n, struct vw_chunk *out);
	/* Optional: the next row after `from` (dir > 0; from == (size_t)-1 for
	 * the start) or before it (dir < 0; (size_t)-1 for the end) that may
	 * have any of `flags` (a superset is fine: the caller checks); -1 when
	 * none, -2 when the source has no index for these flags. */
	long (*next_flagged)(void *ctx, size_t from, int dir, uint16_t flags);
	/* Pick up rows recorded since the last call (live mode); rows added, or -errno. */
	long (*refresh)(void *ctx);
	void (*close)(void *ctx);
};

struct vw_source {
	const struct vw_source_ops *ops;
	void *ctx;
	char title[256];        /* run directory or file shown in the header */
	char capture[4096];     /* capture file for tshark / Wireshark ("" if none) */
	struct vw_host *hosts;
	size_t nhosts;
	struct vw_proc *procs;
	size_t nprocs;
	struct vw_qp *qps;
	size_t nqps;
	struct vw_finding *findings;
	size_t nfindings;
	char messages[2048];    /* damage and warnings met while opening ('\n' separated) */
	int live;               /* the run may still grow */
	uint64_t t0;            /* start of the run for relative times (0: row 0's time) */
};

static inline size_t vw_source_count(const struct vw_source *s) { return s->ops->count(s->ctx); }

/* Name of a row kind ("wr_post", "packet", "wire", "finding" ...). */
const char *vw_kind_name(unsigned kind);
/* Name of an opcode in its space ("RDMA_WRITE", "RC RDMA Write First" ...). */
const char *vw_opcode_name(unsigned space, unsigned opcode);
/* Host name for a row's host index ("wire", "?" ...). */
const char *vw_host_name(const struct vw_source *s, unsigned host);
/* First row with ns >= t (binary search; rows are time-sorted). */
size_t vw_source_find_time(const struct vw_source *s, uint64_t t);
/* Free everything the source owns; idempotent on a zeroed struct. */
void vw_source_close(struct vw_source *s);

#endif

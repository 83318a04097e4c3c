/*
 * What every lab endpoint program shares: command-line options, the RDMA CM
 * connection dance (listen/accept on the server, resolve/connect on the
 * client) with a hook where each program registers its buffers and fills the
 * private data, completion polling with a timeout, phase markers in the
 * trace, and the one-line results `rdmatrace lab` reads.
 *
 * The lab programs are teaching code: each scenario file reads top to
 * bottom as "what the server does" and "what the client does"; this file
 * keeps the plumbing out of their way.
 */
#ifndef RDMATRACE_LAB_COMMON_H
#define RDMATRACE_LAB_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define LAB_PRIVATE_MAX 56 /* user private data RDMA CM carries in a REQ */

struct lab_opts {
	const char *scenario;   /* program name, for messages and results */
	bool server;            /* --server or --client */
	const char *addr;       /* server address (bind or connect), default 127.0.0.1 */
	const char *port;       /* default 7471 */
	uint64_t size;          /* bytes per message */
	unsigned count;         /* messages or iterations */
	unsigned depth;         /* receive queue depth */
	unsigned signal_every;  /* signal every Nth send */
	unsigned post_delay_ms; /* receiver posts its receives this late */
	unsigned seed;
	int timeout_ms;         /* longest wait for any one event */
	const char *mode;       /* scenario-specific variant */
	int min_rnr_timer;      /* -1: RDMA CM's default */
	int rnr_retry;          /* -1: default (7) */
	int retry_cnt;          /* -1: default (7) */
	int ack_timeout;        /* -1: default */
	bool uc;                /* use an unreliable-connected QP where the scenario allows */
	int tos;                /* -1: default; else the connection's IP type of service (DSCP and ECN bits) */
	const char *reject;     /* server: refuse the connection (rdma_reject) with this text as private data */
};

/* Whether the scenario runs in variant mode (--mode MODE). */
bool lab_mode_is(const struct lab_opts *o, const char *mode);

struct lab_conn {
	struct rdma_event_channel *ec;
	struct rdma_cm_id *listen_id; /* server only */
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *channel;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uint8_t peer_private[LAB_PRIVATE_MAX];
	uint8_t peer_private_len;
	bool connected;
};

struct lab_qp_caps {
	enum ibv_qp_type type;  /* IBV_QPT_RC (default when 0) or IBV_QPT_UC */
	unsigned send_wr, recv_wr, cq_size;
	unsigned max_inline;
};

/*
 * Called once the PD, CQ and QP exist and before the connection is
 * accepted (server) or requested (client): register memory, post receives,
 * and fill *private_data (up to LAB_PRIVATE_MAX bytes) for the peer.
 */
typedef int (*lab_setup_fn)(struct lab_conn *c, void *arg, void *private_data, uint8_t *private_len);

/* Parse the common options; exits with usage on error.  extra_usage is appended to --help. */
void lab_parse_options(int argc, char **argv, struct lab_opts *o, const char *scenario, const char *extra_usage);

int lab_server_accept(const struct lab_opts *o, struct lab_conn *c, const struct lab_qp_caps *caps,
		      lab_setup_fn setup, void *arg);
int lab_client_connect(const struct lab_opts *o, struct lab_conn *c, const struct lab_qp_caps *caps,
		       lab_setup_fn setup, void *arg);

/* Wait for the next CM event, which must be `want`; 0 and *out, or -errno with a message. */
int lab_wait_event(struct lab_conn *c, enum rdma_cm_event_type want, int timeout_ms, struct rdma_cm_event **out);
/* PD, completion channel, CQ and a QP of caps->type on the id's device (rdma_create_qp). */
int lab_create_resources(struct lab_conn *c, struct rdma_cm_id *id, const struct lab_qp_caps *caps);
/* getaddrinfo of the lab address and port. */
struct addrinfo;
int lab_resolve(const struct lab_opts *o, struct addrinfo **res);

/* A fresh event channel and an id in port space ps (zeroes *c first). */
int lab_open_id(struct lab_conn *c, struct rdma_cm_id **id, enum rdma_port_space ps);
/* Client: resolve the lab address and the route for c->id. */
int lab_resolve_route(const struct lab_opts *o, struct lab_conn *c);

/* Server set-up hooks: register buf and put its capability in the private data. */
struct ibv_mr *lab_offer_region(struct lab_conn *c, void *buf, size_t len, int access, void *priv, uint8_t *priv_len);
/* A region a server offers; lab_offer_setup is a ready-made lab_setup_fn for it. */
struct lab_region {
	void *buf;
	size_t len;
	int access;          /* IBV_ACCESS_* */
	struct ibv_mr *mr;   /* set by lab_offer_setup */
};
int lab_offer_setup(struct lab_conn *c, void *region, void *priv, uint8_t *priv_len);
/* Server: a zeroed buffer of r->len (r->buf stays NULL, -ENOMEM, when there
 * is no memory), offered to the client (lab_offer_setup) while accepting it. */
int lab_accept_region(const struct lab_opts *o, struct lab_conn *c, const struct lab_qp_caps *caps,
		      struct lab_region *r);
/* Client: the capability the server sent, or -EPROTO with a message. */
int lab_peer_cap(const struct lab_conn *c, uint64_t *addr, uint32_t *rkey, uint32_t *len);

/* How long a server waits for its client to run and disconnect: one event's
 * limit (--timeout-ms) per message or iteration and two for connecting and
 * closing, at least three, so that ACK timeouts on many operations of a lossy
 * run do not end it early. */
int lab_run_limit_ms(const struct lab_opts *o);
/* Server: wait until the client disconnects (or timeout). */
int lab_wait_disconnect(struct lab_conn *c, int timeout_ms);
/* Client: disconnect and wait for the DISCONNECTED event. */
int lab_disconnect(struct lab_conn *c, int timeout_ms);
void lab_destroy(struct lab_conn *c);
/* The end of a scenario with one registered buffer: mr (NULL: none)
 * deregistered, the connection destroyed, buf freed. */
void lab_release(struct lab_conn *c, struct ibv_mr *mr, void *buf);

/* ibv_reg_mr with an error message; NULL on failure. */
struct ibv_mr *lab_reg_mr(struct lab_conn *c, void *buf, size_t len, int access);

/* Wait for one completion (up to timeout_ms); 1 = got one, 0 = timeout, <0 = error. */
int lab_poll(struct lab_conn *c, struct ibv_wc *wc, int timeout_ms);
/* lab_poll, watching fd as well (a CM event channel's, say; -1 none): 2 when
 * fd became readable before a completion came.  A completion channel that
 * shares a poll() with another fd should be non-blocking: were it ever
 * readable without a completion event to take, a blocking ibv_get_cq_event
 * would wait there instead of coming back for fd. */
int lab_poll_or_fd(struct lab_conn *c, struct ibv_wc *wc, int timeout_ms, int fd);

/* Post helpers: one SGE each. */
int lab_post_recv(struct lab_conn *c, uint64_t wr_id, void *buf, uint32_t len, uint32_t lkey);
int lab_post_send(struct lab_conn *c, enum ibv_wr_opcode op, uint64_t wr_id, void *buf, uint32_t len,
		  uint32_t lkey, uint64_t remote_addr, uint32_t rkey, uint32_t imm_host, bool signaled);

/* A phase marker: goes into the trace (RT_EV_MARKER) and to stdout. */
void lab_phase(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The result line `rdmatrace lab` and the tests read:
 *   lab: RESULT <scenario> <server|client> ok|fail key=value ... */
void lab_result(const struct lab_opts *o, bool ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Deterministic test pattern for byte-exact checks. */
void lab_fill_pattern(uint8_t *buf, size_t len, uint32_t seed);
/* Index of the first byte that differs from the pattern, or -1. */
long lab_check_pattern(const uint8_t *buf, size_t len, uint32_t seed);

/* Text of a work completion for messages: "wr 5 RDMA_WRITE: remote access error". */
const char *lab_wc_text(const struct ibv_wc *wc, char *buf, size_t len);

/* Milliseconds on CLOCK_MONOTONIC. */
uint64_t lab_now_ms(void);

/* The capability a server hands out: where its buffer is and how to reach it. */
struct lab_cap {
	uint64_t addr;   /* network order */
	uint32_t rkey;   /* network order */
	uint32_t length; /* network order */
};
void lab_cap_pack(struct lab_cap *cap, const struct ibv_mr *mr, size_t length);
void lab_cap_unpack(const struct lab_cap *cap, uint64_t *addr, uint32_t *rkey, uint32_t *length);

#endif

/*
 * Internals of uroce's librdmacm.so.1 shared by its files: the private
 * rdma_cm_id and event channel, the process-wide CM state (one lock, one CM
 * thread for received MADs and retransmission timers) and the helpers each
 * file offers the others.
 *
 * Locking: cma_lock (the global CM lock) protects every id, the listener and
 * port tables and the protocol state.  A channel's own lock protects only its
 * event queue.  The engine's GSI handler takes only the receive queue lock,
 * so no engine lock is ever held while the CM lock is taken.
 */
#ifndef UROCE_CMA_PRIV_H
#define UROCE_CMA_PRIV_H

#include <infiniband/verbs.h>
#include <pthread.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#include <stdbool.h>
#include <stdint.h>

#include "cm_mad.h"

#define CMA_EXPORT __attribute__((visibility("default")))

/* Defaults as the kernel's rdma_cm / ib_cm use them on RoCE. */
#define CMA_CM_RESPONSE_TIMEOUT 20
#define CMA_MAX_CM_RETRIES 15
#define CMA_IBOE_PACKET_LIFETIME 18
#define CMA_CA_ACK_DELAY 15           /* uroce's local_ca_ack_delay (device.c), as rxe's */
#define CMA_TARGET_ACK_DELAY 15
#define CMA_MAX_RD_ATOMIC 16

enum cma_state {
	CMA_IDLE,
	CMA_ADDR_BOUND,      /* bound, or address resolved */
	CMA_ROUTE_RESOLVED,
	CMA_LISTEN,
	CMA_REQ_SENT,        /* active: REQ out, waiting for REP/REJ */
	CMA_REQ_RCVD,        /* passive: CONNECT_REQUEST given to the user */
	CMA_REP_SENT,        /* passive: accepted, waiting for RTU */
	CMA_REP_RCVD,        /* active without a QP: CONNECT_RESPONSE given, waiting for rdma_establish */
	CMA_ESTABLISHED,
	CMA_DREQ_SENT,
	CMA_DREQ_RCVD,
	CMA_TIMEWAIT,        /* disconnected */
	CMA_SIDR_REQ_SENT,   /* UD: SIDR_REQ out */
	CMA_UD_READY,        /* UD: resolved (active) or answered (passive) */
	CMA_REJECTED,        /* a REJ went or came: the connection is over */
};

struct cma_event;

struct cma_channel {
	struct rdma_event_channel ch; /* must stay first: users see this */
	pthread_mutex_t lock;
	struct cma_event *head, *tail;
	bool sync;                    /* private channel of a synchronous id */
	/* rdma_destroy_event_channel while another thread may still read it
	 * (cma_channel_destroy): under lock */
	unsigned readers;             /* threads inside cma_channel_get */
	bool dead;                    /* destroyed: kept, never read again */
	bool dead_nonblock;           /* its fd was O_NONBLOCK then */
	struct cma_channel *dead_next; /* the destroyed channels, kept reachable */
};

struct cma_id {
	struct rdma_cm_id id;         /* must stay first: users see this */
	struct cma_id *next;          /* all ids, under cma_lock */
	struct cma_channel *chan;
	bool sync;
	enum cma_state state;
	uint32_t trace_id;

	/* address */
	bool bound;
	bool wildcard;                /* bound to INADDR_ANY / in6addr_any */
	uint8_t gid_index;
	uint16_t port;                /* host order, the id's own port */
	int reuseaddr;
	int afonly;

	/* listener / child */
	struct cma_id *listen;        /* child: its listener (NULL once detached) */
	bool child;                   /* made for an incoming request: shares its listener's port */
	int backlog;                  /* listener: connection requests it may still hold (rt_cm_listen_backlog()
				       * less those the program has not taken yet) */

	/* connection */
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint64_t tid;                 /* TID of our REQ (active) or of the peer's REQ (passive) */
	uint64_t dreq_tid;
	uint32_t remote_qpn;
	uint32_t local_qpn;           /* from the QP or the conn_param */
	uint32_t sq_psn;              /* our starting PSN */
	uint32_t rq_psn;              /* peer's starting PSN */
	uint8_t path_mtu;             /* enum ibv_mtu */
	uint8_t responder_resources;  /* what we accept incoming (max_dest_rd_atomic) */
	uint8_t initiator_depth;      /* what we issue (max_rd_atomic) */
	uint8_t retry_count;
	uint8_t rnr_retry_count;      /* used on our QP */
	uint8_t peer_rnr_retry;       /* what we announce for the peer's QP (REP) */
	uint8_t ack_timeout;          /* QP local ACK timeout exponent */
	bool ack_timeout_set;         /* asked for on this id (an accepted id does not take its listener's) */
	uint8_t req_ack_timeout;      /* what its REQ asks of the peer, fixed by rdma_resolve_route
				       * (cma_fix_route); 0 until then */
	uint8_t min_rnr_timer;
	uint8_t tos;                  /* RDMA_OPTION_ID_TOS asked for on this id */
	bool tos_set;
	uint8_t route_tos;            /* the connection's traffic class, as the kernel's RDMA CM fixes
				       * it: the TOS asked for by rdma_resolve_route (0 if none), on
				       * an accepted id the REQ's (cma_fix_route) */
	bool srq;
	uint32_t qkey;                /* UD */
	struct sockaddr_storage peer_gsi; /* the peer device's address (UDP 4791) */

	/* retransmission of the last MAD that expects an answer */
	uint8_t mad[RT_MAD_LEN];
	bool timer_on;
	uint64_t deadline_ms;
	uint32_t timeout_ms;
	int retries_left;

	/* event accounting for rdma_destroy_id */
	unsigned events_reported;
	unsigned events_acked;
	bool destroying;

	struct ibv_qp_init_attr *ep_qp_attr; /* rdma_create_ep passive: QP made at get_request */
	struct ibv_pd *ep_pd;
};

struct cma_event {
	struct rdma_cm_event ev;      /* must stay first: users see this */
	struct cma_event *next;
	struct cma_id *owner;
	uint8_t private_data[UROCE_CM_REP_PD];
};

/* cma_core.c: global state, the CM thread and the protocol. */
extern pthread_mutex_t cma_lock;
extern pthread_cond_t cma_cond;
int cma_init(void);                           /* device + CM thread; 0 or -errno */
struct cma_id *cma_ids_head(void);
void cma_id_link(struct cma_id *id);
void cma_id_unlink(struct cma_id *id);
uint64_t cma_now_ms(void);
void cma_timer_start(struct cma_id *id, int retries);
void cma_timer_stop(struct cma_id *id);
int cma_send_mad(struct cma_id *id, const struct uroce_cm_msg *msg, bool keep);
int cma_start_connect(struct cma_id *id, const struct rdma_conn_param *param);
int cma_do_accept(struct cma_id *id, const struct rdma_conn_param *param);
int cma_do_reject(struct cma_id *id, const void *pd, uint8_t len, uint16_t reason);
int cma_do_disconnect(struct cma_id *id);
int cma_do_establish(struct cma_id *id);
void cma_abandon(struct cma_id *id);          /* what destroying the id tells the peer */
int cma_qp_to_init(struct cma_id *id, struct ibv_qp *qp);
int cma_qp_attr(struct cma_id *id, struct ibv_qp_attr *attr, int *mask);
void cma_fix_route(struct cma_id *id);
uint32_t cma_random32(void);

/* cma_addr.c: device, addresses and ports. */
struct ibv_context *cma_verbs(void);
struct ibv_pd *cma_default_pd(void);
int cma_bind(struct cma_id *id, const struct sockaddr *addr);
int cma_resolve_src(struct cma_id *id, const struct sockaddr *src, const struct sockaddr *dst);
int cma_listen_addrs(struct cma_id *id);
struct cma_id *cma_find_listener(uint16_t ps, uint16_t port, const struct sockaddr *dst);
/* Whether some id listens on (ps, port), whatever its address: the kernel's
 * ib_cm then holds the service ID, and a REQ no listener's address matches
 * (an IPv6-only listener's, an IPv4 request) is refused with REJ 28, not 8. */
bool cma_port_listened(uint16_t ps, uint16_t port);
/* A listener on (ps, port) was destroyed: REQs for it are held a moment (cma_core.c). */
void cma_listener_closed(uint16_t ps, uint16_t port);
void cma_set_port(struct sockaddr *sa, uint16_t port);
uint16_t cma_get_port(const struct sockaddr *sa);
socklen_t cma_addr_len(const struct sockaddr *sa);
bool cma_addr_any(const struct sockaddr *sa);
bool cma_addr_eq(const struct sockaddr *a, const struct sockaddr *b);
enum ibv_mtu cma_port_mtu(void);
void cma_dev_rd_atom(uint8_t *responder_resources, uint8_t *initiator_depth);

/* cma_event.c: channels, event queueing and delivery, tracing. */
struct cma_channel *cma_channel_new(bool sync);
void cma_channel_free(struct cma_channel *ch);
/* rdma_destroy_event_channel: a channel the application may still be
 * reading from another thread is closed and kept, never freed. */
void cma_channel_destroy(struct cma_channel *ch);
/* Queue an event for id (under cma_lock).  pd/len: private data to copy. */
void cma_post_event(struct cma_id *id, struct cma_id *listen, enum rdma_cm_event_type type,
		    int status, const void *pd, size_t len);
struct cma_event *cma_event_last(struct cma_id *id); /* the event just posted, to fill params */
int cma_channel_get(struct cma_channel *ch, struct rdma_cm_event **out);
void cma_channel_purge(struct cma_channel *ch, struct cma_id *id);
/* Wait on a synchronous id's channel for the answer to an operation. */
int cma_sync_wait(struct cma_id *id, enum rdma_cm_event_type want);
void cma_trace_event(const struct cma_event *e);
void cma_trace_start(void);                  /* tracing from the environment (RDMATRACE_*) */

/* Print "librdmacm (uroce): ..." once per distinct message site. */
void cma_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static inline struct cma_id *cma_of(struct rdma_cm_id *id)
{
	return (struct cma_id *)id;
}

#endif

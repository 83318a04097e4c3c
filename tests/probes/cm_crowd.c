/*
 * A crowd of RDMA CM connections to one listener, for the tests of the
 * listener backlog: the client asks for --conns RC connections at once
 * (one cm_id each, one event channel); the server listens with --backlog,
 * leaves the requests waiting for --hold ms before it first calls
 * rdma_get_cm_event, then accepts each.  Requests beyond the backlog are
 * dropped by the RDMA CM without an answer and come again after the
 * client's CM response timeout.  Both sides end when every connection was
 * established and disconnected (exit 0), or print why not (exit 1).
 *
 *   cm_crowd --server -a ADDR -p PORT [--conns N] [--backlog B] [--hold MS]
 *   cm_crowd --client -a ADDR -p PORT [--conns N]
 *
 * --ack-timeout T asks for the local ACK timeout exponent T with
 * rdma_set_option(RDMA_OPTION_ID_ACK_TIMEOUT), --tos V for the type of
 * service V (RDMA_OPTION_ID_TOS), each: before rdma_connect or
 * rdma_accept on the connection's id, or with --on-listener (server) on the
 * listening id, or with --early (client) before rdma_resolve_route, or with
 * --late once the connection is established.  Each
 * side prints the ACK timeout and traffic class its QPs got (ibv_query_qp), for the tests of
 * where the option takes effect.  --sends N: the client sends N 64-byte
 * messages on each connection once it is established (the server posts
 * their receives before it accepts) and waits for their completions.
 * --afonly: the server asks for IPv6 only (RDMA_OPTION_ID_AFONLY) before it
 * binds; --v6-listener B: after listening at ADDR (IPv4), it listens on the
 * same port of [::] too, for IPv6 only, with backlog B (the two coexist
 * only so).
 *
 * Plain librdmacm: runs over uroce (LD_LIBRARY_PATH=build/uroce) and over
 * the kernel's SoftRoCE in the VM lab.
 */
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>

#define MAX_CONNS 64

struct opts {
	bool server;
	const char *addr, *port;
	int conns, backlog, hold_ms;
	int ack_timeout;          /* -1: not asked for */
	int tos;                  /* -1: not asked for */
	bool on_listener, early, late;
	int sends;                /* messages per connection, client to server */
	bool afonly;              /* server: RDMA_OPTION_ID_AFONLY before binding (IPv6 only) */
	int v6_backlog;           /* server: a second listener on [::] for IPv6 only, this backlog; -1 none */
};

#define MAX_SENDS 16
#define MSG_BYTES 64

static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_mr *mr;     /* the messages' buffer, MAX_SENDS of them */
static char msgs[MAX_SENDS * MSG_BYTES];

static int usage(const char *argv0)
{
	fprintf(stderr,
		"usage: %s --server -a ADDR -p PORT [--conns N] [--backlog B] [--hold MS]\n"
		"       %s --client -a ADDR -p PORT [--conns N]\n"
		"  either side: [--ack-timeout T] [--tos V] [--late] [--sends N], server: [--on-listener] [--afonly]\n"
		"  [--v6-listener B], client: [--early]\n",
		argv0, argv0);
	return 2;
}

/* The connection's QP, on the PD and CQ made for the first one. */
static int make_qp(struct rdma_cm_id *id)
{
	if (!pd && !(pd = ibv_alloc_pd(id->verbs)))
		return -1;
	if (!cq && !(cq = ibv_create_cq(id->verbs, MAX_CONNS * MAX_SENDS, NULL, NULL, 0)))
		return -1;
	if (!mr && !(mr = ibv_reg_mr(pd, msgs, sizeof(msgs), IBV_ACCESS_LOCAL_WRITE)))
		return -1;
	struct ibv_qp_init_attr a = {.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
				     .cap = {.max_send_wr = MAX_SENDS, .max_recv_wr = MAX_SENDS, .max_send_sge = 1,
					     .max_recv_sge = 1}};
	return rdma_create_qp(id, pd, &a);
}

/* Posts n receives (server) or n signaled SENDs (client) of MSG_BYTES on
 * id's QP; the client then polls their n completions.  0 or -1 (said why). */
static int exchange(struct rdma_cm_id *id, int n, bool send)
{
	for (int i = 0; i < n; i++) {
		struct ibv_sge sge = {(uintptr_t)(msgs + i * MSG_BYTES), MSG_BYTES, mr->lkey};
		int rc;
		if (send) {
			struct ibv_send_wr wr = {.wr_id = (uint64_t)i, .sg_list = &sge, .num_sge = 1,
						 .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED}, *bad;
			rc = ibv_post_send(id->qp, &wr, &bad);
		} else {
			struct ibv_recv_wr wr = {.wr_id = (uint64_t)i, .sg_list = &sge, .num_sge = 1}, *bad;
			rc = ibv_post_recv(id->qp, &wr, &bad);
		}
		if (rc) {
			fprintf(stderr, "cm_crowd: posting: %s\n", strerror(rc));
			return -1;
		}
	}
	for (int done = 0; send && done < n;) {
		struct ibv_wc wc;
		int got = ibv_poll_cq(cq, 1, &wc);
		if (got < 0 || (got == 1 && wc.status != IBV_WC_SUCCESS)) {
			fprintf(stderr, "cm_crowd: send completion: %s\n", got < 0 ? "poll failed" : ibv_wc_status_str(wc.status));
			return -1;
		}
		done += got;
	}
	return 0;
}

/* rdma_set_option(RDMA_OPTION_ID_ACK_TIMEOUT) and (RDMA_OPTION_ID_TOS) on
 * id, as --ack-timeout and --tos asked; 0 or -1 (said why). */
static int set_options(const struct opts *o, struct rdma_cm_id *id)
{
	uint8_t t = (uint8_t)o->ack_timeout, tos = (uint8_t)o->tos;
	if (o->ack_timeout >= 0 && rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &t, sizeof(t)) != 0) {
		perror("cm_crowd: rdma_set_option(RDMA_OPTION_ID_ACK_TIMEOUT)");
		return -1;
	}
	if (o->tos >= 0 && rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, sizeof(tos)) != 0) {
		perror("cm_crowd: rdma_set_option(RDMA_OPTION_ID_TOS)");
		return -1;
	}
	return 0;
}

/* The ACK timeout and traffic class id's QP has now, on stdout. */
static void print_ack_timeout(const char *side, struct rdma_cm_id *id)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	if (id->qp && ibv_query_qp(id->qp, &a, IBV_QP_TIMEOUT | IBV_QP_AV, &ia) == 0)
		printf("cm_crowd: %s: QP 0x%x ACK timeout %u traffic class %u\n", side, id->qp->qp_num, a.timeout,
		       a.ah_attr.grh.traffic_class);
}

/* What the loops need of an event (it is acknowledged at once). */
struct cm_ev {
	enum rdma_cm_event_type type;
	struct rdma_cm_id *id;
	int status;
};

/* The channel's next event, acknowledged. */
static int next_event(struct rdma_event_channel *ch, struct cm_ev *out)
{
	struct rdma_cm_event *ev;
	if (rdma_get_cm_event(ch, &ev) != 0) {
		perror("cm_crowd: rdma_get_cm_event");
		return -1;
	}
	*out = (struct cm_ev){ev->event, ev->id, ev->status};
	rdma_ack_cm_event(ev);
	return 0;
}

/* A listening id on addr:port (rdma_set_option(AFONLY) first when
 * afonly), with backlog; NULL when that failed (said why). */
static struct rdma_cm_id *listen_on(const struct opts *o, struct rdma_event_channel *ch, const char *addr,
				    bool afonly, int backlog)
{
	struct rdma_cm_id *id;
	struct rdma_addrinfo hints = {.ai_flags = RAI_PASSIVE, .ai_port_space = RDMA_PS_TCP}, *res;
	if (rdma_getaddrinfo(addr, o->port, &hints, &res) != 0) {
		perror("cm_crowd: rdma_getaddrinfo");
		return NULL;
	}
	int one = 1;
	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) != 0 ||
	    (afonly && rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY, &one, sizeof(one)) != 0) ||
	    rdma_bind_addr(id, res->ai_src_addr) != 0 || (o->on_listener && set_options(o, id) != 0) ||
	    rdma_listen(id, backlog) != 0) {
		perror("cm_crowd: rdma_create_id/rdma_bind_addr/rdma_listen");
		return NULL;
	}
	rdma_freeaddrinfo(res);
	printf("cm_crowd: listening on %s port %s%s, backlog %d\n", addr, o->port, afonly ? " for IPv6 only" : "",
	       backlog);
	return id;
}

static int run_server(const struct opts *o, struct rdma_event_channel *ch)
{
	struct rdma_cm_id *listen_id = listen_on(o, ch, o->addr, o->afonly, o->backlog), *v6_id = NULL;
	if (!listen_id || (o->v6_backlog >= 0 && !(v6_id = listen_on(o, ch, "::", true, o->v6_backlog))))
		return 1;
	printf("cm_crowd: taking requests in %d ms\n", o->hold_ms);
	fflush(stdout);
	struct timespec hold = {o->hold_ms / 1000, (long)(o->hold_ms % 1000) * 1000000L};
	nanosleep(&hold, NULL);
	struct rdma_cm_id *ids[MAX_CONNS];
	int accepted = 0, established = 0, disconnected = 0;
	while (disconnected < o->conns) {
		struct cm_ev ev;
		if (next_event(ch, &ev) != 0)
			return 1;
		struct rdma_cm_id *id = ev.id;
		switch (ev.type) {
		case RDMA_CM_EVENT_CONNECT_REQUEST: {
			struct rdma_conn_param p = {.responder_resources = 1, .initiator_depth = 1, .rnr_retry_count = 7};
			if (accepted == o->conns || make_qp(id) != 0 || exchange(id, o->sends, false) != 0 ||
			    (!o->on_listener && !o->late && set_options(o, id) != 0) || rdma_accept(id, &p) != 0) {
				perror("cm_crowd: accepting");
				return 1;
			}
			ids[accepted++] = id;
			break;
		}
		case RDMA_CM_EVENT_ESTABLISHED:
			established++;
			if (o->late && !o->on_listener && set_options(o, id) != 0)
				return 1;
			print_ack_timeout("server", id);
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			rdma_disconnect(id);
			disconnected++;
			break;
		default:
			fprintf(stderr, "cm_crowd: unexpected event %s (status %d)\n", rdma_event_str(ev.type), ev.status);
			return 1;
		}
	}
	for (int i = 0; i < accepted; i++) {
		rdma_destroy_qp(ids[i]);
		rdma_destroy_id(ids[i]);
	}
	rdma_destroy_id(listen_id);
	if (v6_id)
		rdma_destroy_id(v6_id);
	printf("cm_crowd: server: %d connections established and disconnected\n", established);
	return established == o->conns ? 0 : 1;
}

static int run_client(const struct opts *o, struct rdma_event_channel *ch)
{
	struct rdma_addrinfo hints = {.ai_port_space = RDMA_PS_TCP}, *res;
	if (rdma_getaddrinfo(o->addr, o->port, &hints, &res) != 0) {
		perror("cm_crowd: rdma_getaddrinfo");
		return 1;
	}
	struct rdma_cm_id *ids[MAX_CONNS];
	for (int i = 0; i < o->conns; i++) {
		if (rdma_create_id(ch, &ids[i], NULL, RDMA_PS_TCP) != 0 || (o->early && set_options(o, ids[i]) != 0) ||
		    rdma_resolve_addr(ids[i], NULL, res->ai_dst_addr, 2000) != 0) {
			perror("cm_crowd: rdma_create_id/rdma_resolve_addr");
			return 1;
		}
	}
	rdma_freeaddrinfo(res);
	int established = 0, disconnected = 0;
	while (disconnected < o->conns) {
		struct cm_ev ev;
		if (next_event(ch, &ev) != 0)
			return 1;
		struct rdma_cm_id *id = ev.id;
		switch (ev.type) {
		case RDMA_CM_EVENT_ADDR_RESOLVED:
			if (rdma_resolve_route(id, 2000) != 0) {
				perror("cm_crowd: rdma_resolve_route");
				return 1;
			}
			break;
		case RDMA_CM_EVENT_ROUTE_RESOLVED: {
			struct rdma_conn_param p = {.responder_resources = 1, .initiator_depth = 1, .retry_count = 7,
						    .rnr_retry_count = 7};
			if (make_qp(id) != 0 || (!o->late && !o->early && set_options(o, id) != 0) ||
			    rdma_connect(id, &p) != 0) {
				perror("cm_crowd: connecting");
				return 1;
			}
			break;
		}
		case RDMA_CM_EVENT_ESTABLISHED:
			if (o->late && set_options(o, id) != 0)
				return 1;
			print_ack_timeout("client", id);
			if (exchange(id, o->sends, true) != 0)
				return 1;
			if (++established == o->conns) /* all up: take them down */
				for (int i = 0; i < o->conns; i++)
					rdma_disconnect(ids[i]);
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			disconnected++;
			break;
		default:
			fprintf(stderr, "cm_crowd: connection failed: %s (status %d)\n", rdma_event_str(ev.type), ev.status);
			return 1;
		}
	}
	for (int i = 0; i < o->conns; i++) {
		rdma_destroy_qp(ids[i]);
		rdma_destroy_id(ids[i]);
	}
	printf("cm_crowd: client: %d connections established and disconnected\n", established);
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = {.port = "7471", .conns = 3, .backlog = 1, .hold_ms = 0, .ack_timeout = -1, .tos = -1,
			.v6_backlog = -1};
	bool side = false;
	static const struct option lo[] = {
		{"server", no_argument, NULL, 's'}, {"client", no_argument, NULL, 'c'},
		{"addr", required_argument, NULL, 'a'}, {"port", required_argument, NULL, 'p'},
		{"conns", required_argument, NULL, 'n'}, {"backlog", required_argument, NULL, 'b'},
		{"hold", required_argument, NULL, 'h'}, {"ack-timeout", required_argument, NULL, 't'},
		{"on-listener", no_argument, NULL, 'L'}, {"early", no_argument, NULL, 'e'},
		{"late", no_argument, NULL, 'l'}, {"sends", required_argument, NULL, 'm'},
		{"tos", required_argument, NULL, 'T'}, {"afonly", no_argument, NULL, 'A'},
		{"v6-listener", required_argument, NULL, 'V'}, {NULL, 0, NULL, 0}};
	int ch;
	while ((ch = getopt_long(argc, argv, "sca:p:n:b:h:t:Lelm:T:AV:", lo, NULL)) != -1) {
		switch (ch) {
		case 's': o.server = true, side = true; break;
		case 'c': o.server = false, side = true; break;
		case 'a': o.addr = optarg; break;
		case 'p': o.port = optarg; break;
		case 'n': o.conns = atoi(optarg); break;
		case 'b': o.backlog = atoi(optarg); break;
		case 'h': o.hold_ms = atoi(optarg); break;
		case 't': o.ack_timeout = atoi(optarg); break;
		case 'L': o.on_listener = true; break;
		case 'e': o.early = true; break;
		case 'l': o.late = true; break;
		case 'm': o.sends = atoi(optarg); break;
		case 'T': o.tos = atoi(optarg); break;
		case 'A': o.afonly = true; break;
		case 'V': o.v6_backlog = atoi(optarg); break;
		default: return usage(argv[0]);
		}
	}
	if (!side || !o.addr || o.conns < 1 || o.conns > MAX_CONNS || o.hold_ms < 0 || o.ack_timeout > 31 ||
	    o.tos > 255 || ((o.on_listener || o.early || o.late) && o.ack_timeout < 0 && o.tos < 0) || (o.on_listener && !o.server) ||
	    ((o.afonly || o.v6_backlog >= 0) && !o.server) ||
	    (o.early && (o.server || o.late)) || o.sends < 0 || o.sends > MAX_SENDS || optind != argc)
		return usage(argv[0]);
	struct rdma_event_channel *evch = rdma_create_event_channel();
	if (!evch) {
		perror("cm_crowd: rdma_create_event_channel");
		return 1;
	}
	int rc = o.server ? run_server(&o, evch) : run_client(&o, evch);
	if (mr)
		ibv_dereg_mr(mr);
	if (pd) {
		ibv_destroy_cq(cq);
		ibv_dealloc_pd(pd);
	}
	rdma_destroy_event_channel(evch);
	return rc;
}

/*
 * Plumbing shared by the lab endpoint programs (see lab_common.h): options,
 * RDMA CM connection set-up and teardown, polling, markers, results.
 */
#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lab_common.h"
#include "rdmatrace/tracer.h"

uint64_t lab_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void usage(const char *scenario, const char *extra, int status)
{
	fprintf(status ? stderr : stdout,
		"usage: rt-lab-%s --server|--client [options]\n"
		"\n"
		"common options:\n"
		"  -a, --addr ADDR        server address to bind (server) or reach (client); default 127.0.0.1\n"
		"  -p, --port PORT        RDMA CM port; default 7471\n"
		"  -s, --size BYTES       message size (K, M suffixes)\n"
		"  -n, --count N          messages or iterations\n"
		"  -d, --depth N          receive queue depth\n"
		"  -e, --signal-every N   request a completion every Nth send\n"
		"  -l, --post-delay-ms MS receiver posts its receives this late\n"
		"  -m, --mode MODE        scenario variant\n"
		"      --seed N           data pattern seed\n"
		"      --timeout-ms MS    longest wait for one event (default 10000); a server\n"
		"                         waits (count + 2) times that for its client's whole run\n"
		"      --min-rnr-timer N  QP min_rnr_timer code 0..31 (0 = 655.36 ms)\n"
		"      --rnr-retry N      QP rnr_retry 0..7 (7 = infinite)\n"
		"      --retry-cnt N      QP retry_cnt 0..7\n"
		"      --ack-timeout N    QP local ACK timeout exponent\n"
		"      --uc               unreliable connected QP\n"
		"      --tos N            IP type of service of the connection 0..255 (DSCP << 2 | ECN;\n"
		"                         2 = ECN-capable, ECT(0)): RDMA CM's RDMA_OPTION_ID_TOS\n"
		"      --reject TEXT      server: refuse the connection request (rdma_reject) with TEXT\n"
		"                         as its private data (up to 147 bytes), then exit 1\n"
		"%s",
		scenario, extra ? extra : "");
	exit(status);
}

static uint64_t parse_size(const char *s, const char *scenario)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);
	if (end == s)
		goto bad;
	if (*end == 'k' || *end == 'K')
		v <<= 10, end++;
	else if (*end == 'm' || *end == 'M')
		v <<= 20, end++;
	else if (*end == 'g' || *end == 'G')
		v <<= 30, end++;
	if (*end)
		goto bad;
	return v;
bad:
	fprintf(stderr, "rt-lab-%s: '%s' is not a size\n", scenario, s);
	exit(2);
}

static int parse_int(const char *s, int lo, int hi, const char *what, const char *scenario)
{
	char *end;
	long v = strtol(s, &end, 0);
	if (end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "rt-lab-%s: %s must be %d..%d, not '%s'\n", scenario, what, lo, hi, s);
		exit(2);
	}
	return (int)v;
}

void lab_parse_options(int argc, char **argv, struct lab_opts *o, const char *scenario, const char *extra_usage)
{
	enum { OPT_SEED = 256, OPT_TIMEOUT, OPT_MIN_RNR, OPT_RNR_RETRY, OPT_RETRY, OPT_ACK_TIMEOUT, OPT_UC,
	       OPT_TOS, OPT_SERVER, OPT_CLIENT, OPT_REJECT };
	static const struct option longopts[] = {
		{ "server", no_argument, 0, OPT_SERVER },
		{ "client", no_argument, 0, OPT_CLIENT },
		{ "addr", required_argument, 0, 'a' },
		{ "port", required_argument, 0, 'p' },
		{ "size", required_argument, 0, 's' },
		{ "count", required_argument, 0, 'n' },
		{ "depth", required_argument, 0, 'd' },
		{ "signal-every", required_argument, 0, 'e' },
		{ "post-delay-ms", required_argument, 0, 'l' },
		{ "mode", required_argument, 0, 'm' },
		{ "seed", required_argument, 0, OPT_SEED },
		{ "timeout-ms", required_argument, 0, OPT_TIMEOUT },
		{ "min-rnr-timer", required_argument, 0, OPT_MIN_RNR },
		{ "rnr-retry", required_argument, 0, OPT_RNR_RETRY },
		{ "retry-cnt", required_argument, 0, OPT_RETRY },
		{ "ack-timeout", required_argument, 0, OPT_ACK_TIMEOUT },
		{ "uc", no_argument, 0, OPT_UC },
		{ "tos", required_argument, 0, OPT_TOS },
		{ "reject", required_argument, 0, OPT_REJECT },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	int role = 0;
	memset(o, 0, sizeof(*o));
	o->scenario = scenario;
	o->addr = "127.0.0.1";
	o->port = "7471";
	o->seed = 1;
	o->timeout_ms = 10000;
	o->min_rnr_timer = o->rnr_retry = o->retry_cnt = o->ack_timeout = o->tos = -1;
	int c;
	while ((c = getopt_long(argc, argv, "a:p:s:n:d:e:l:m:h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_SERVER: role |= 1; o->server = true; break;
		case OPT_CLIENT: role |= 2; o->server = false; break;
		case 'a': o->addr = optarg; break;
		case 'p': o->port = optarg; break;
		case 's': o->size = parse_size(optarg, scenario); break;
		case 'n': o->count = (unsigned)parse_int(optarg, 0, 100000000, "--count", scenario); break;
		case 'd': o->depth = (unsigned)parse_int(optarg, 1, 65536, "--depth", scenario); break;
		case 'e': o->signal_every = (unsigned)parse_int(optarg, 1, 65536, "--signal-every", scenario); break;
		case 'l': o->post_delay_ms = (unsigned)parse_int(optarg, 0, 600000, "--post-delay-ms", scenario); break;
		case 'm': o->mode = optarg; break;
		case OPT_SEED: o->seed = (unsigned)parse_int(optarg, 0, 0x7fffffff, "--seed", scenario); break;
		case OPT_TIMEOUT: o->timeout_ms = parse_int(optarg, 1, 3600000, "--timeout-ms", scenario); break;
		case OPT_MIN_RNR: o->min_rnr_timer = parse_int(optarg, 0, 31, "--min-rnr-timer", scenario); break;
		case OPT_RNR_RETRY: o->rnr_retry = parse_int(optarg, 0, 7, "--rnr-retry", scenario); break;
		case OPT_RETRY: o->retry_cnt = parse_int(optarg, 0, 7, "--retry-cnt", scenario); break;
		case OPT_ACK_TIMEOUT: o->ack_timeout = parse_int(optarg, 0, 31, "--ack-timeout", scenario); break;
		case OPT_UC: o->uc = true; break;
		case OPT_TOS: o->tos = parse_int(optarg, 0, 255, "--tos", scenario); break;
		case OPT_REJECT:
			/* (a REJ holds 148 bytes of private data: the text and its NUL) */
			if (strlen(optarg) > 147) {
				fprintf(stderr, "rt-lab-%s: --reject takes up to 147 bytes of text\n", scenario);
				exit(2);
			}
			o->reject = optarg;
			break;
		case 'h': usage(scenario, extra_usage, 0); break;
		default: usage(scenario, extra_usage, 2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rt-lab-%s: unexpected argument '%s'\n", scenario, argv[optind]);
		usage(scenario, extra_usage, 2);
	}
	if (role != 1 && role != 2) {
		fprintf(stderr, "rt-lab-%s: say --server or --client\n", scenario);
		usage(scenario, extra_usage, 2);
	}
	/* Markers and results go through the tracer when the environment asks for tracing. */
	rt_tracer_start_from_env();
}

/* Wait for the next CM event of the expected type; 0 or -errno with a message. */
/* The peer's REJ carried private data: its text when it is some. */
static void peer_rejected(const void *data, size_t len)
{
	const char *d = data;
	size_t n = strnlen(d, len), i = 0;
	while (i < n && d[i] >= 0x20 && d[i] < 0x7f)
		i++;
	if (n > 0 && i == n)
		fprintf(stderr, "lab: the peer rejected the connection: \"%.*s\"\n", (int)n, d);
	else
		fprintf(stderr, "lab: the peer rejected the connection\n");
}

int lab_wait_event(struct lab_conn *c, enum rdma_cm_event_type want, int timeout_ms,
		      struct rdma_cm_event **out)
{
	struct pollfd pfd = { .fd = c->ec->fd, .events = POLLIN };
	int rc = poll(&pfd, 1, timeout_ms);
	if (rc == 0) {
		fprintf(stderr, "lab: timed out after %d ms waiting for %s\n", timeout_ms, rdma_event_str(want));
		return -ETIMEDOUT;
	}
	if (rc < 0) {
		perror("lab: poll on the CM event channel");
		return -errno;
	}
	struct rdma_cm_event *ev;
	if (rdma_get_cm_event(c->ec, &ev) != 0) {
		perror("lab: rdma_get_cm_event");
		return -errno;
	}
	if (ev->event != want) {
		fprintf(stderr, "lab: expected %s, got %s (status %d)\n", rdma_event_str(want),
			rdma_event_str(ev->event), ev->status);
		if (ev->event == RDMA_CM_EVENT_REJECTED && ev->param.conn.private_data_len)
			peer_rejected(ev->param.conn.private_data, ev->param.conn.private_data_len);
		rdma_ack_cm_event(ev);
		return -ECONNREFUSED;
	}
	*out = ev;
	return 0;
}

/* PD, completion channel, CQ and QP on the id's device. */
int lab_create_resources(struct lab_conn *c, struct rdma_cm_id *id, const struct lab_qp_caps *caps)
{
	c->pd = ibv_alloc_pd(id->verbs);
	if (!c->pd) {
		perror("lab: ibv_alloc_pd");
		return -ENOMEM;
	}
	c->channel = ibv_create_comp_channel(id->verbs);
	if (!c->channel) {
		perror("lab: ibv_create_comp_channel");
		return -ENOMEM;
	}
	unsigned cq_size = caps->cq_size ? caps->cq_size : caps->send_wr + caps->recv_wr + 16;
	c->cq = ibv_create_cq(id->verbs, (int)cq_size, NULL, c->channel, 0);
	if (!c->cq) {
		perror("lab: ibv_create_cq");
		return -ENOMEM;
	}
	struct ibv_qp_init_attr attr = {
		.send_cq = c->cq,
		.recv_cq = c->cq,
		.qp_type = caps->type ? caps->type : IBV_QPT_RC,
		.cap = {
			.max_send_wr = caps->send_wr ? caps->send_wr : 64,
			.max_recv_wr = caps->recv_wr ? caps->recv_wr : 64,
			.max_send_sge = 1,
			.max_recv_sge = 1,
			.max_inline_data = caps->max_inline,
		},
	};
	if (rdma_create_qp(id, c->pd, &attr) != 0) {
		perror("lab: rdma_create_qp");
		return -errno;
	}
	c->qp = id->qp;
	return 0;
}

/* Connection parameters shared by accept and connect. */
static void fill_conn_param(const struct lab_opts *o, struct rdma_conn_param *p, const void *priv, uint8_t len)
{
	memset(p, 0, sizeof(*p));
	p->private_data = priv;
	p->private_data_len = len;
	p->responder_resources = 1;
	p->initiator_depth = 1;
	p->retry_count = (uint8_t)(o->retry_cnt >= 0 ? o->retry_cnt : 7);
	p->rnr_retry_count = (uint8_t)(o->rnr_retry >= 0 ? o->rnr_retry : 7);
}

/* QP options that RDMA CM sets only when asked (before the QP reaches RTR/RTS). */
static void apply_qp_options(const struct lab_opts *o, struct rdma_cm_id *id)
{
	if (o->ack_timeout >= 0) {
		uint8_t v = (uint8_t)o->ack_timeout;
		if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &v, sizeof(v)) != 0)
			fprintf(stderr, "lab: cannot set ACK timeout %u: %s\n", v, strerror(errno));
	}
}

int lab_resolve(const struct lab_opts *o, struct addrinfo **res)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	int rc = getaddrinfo(o->addr, o->port, &hints, res);
	if (rc != 0) {
		fprintf(stderr, "lab: cannot resolve %s port %s: %s\n", o->addr, o->port, gai_strerror(rc));
		return -EINVAL;
	}
	return 0;
}

static void keep_peer_private(struct lab_conn *c, const struct rdma_cm_event *ev)
{
	uint8_t len = ev->param.conn.private_data_len;
	if (len > LAB_PRIVATE_MAX)
		len = LAB_PRIVATE_MAX;
	if (ev->param.conn.private_data && len)
		memcpy(c->peer_private, ev->param.conn.private_data, len);
	c->peer_private_len = len;
}

/*
 * RDMA CM leaves min_rnr_timer at 0 (655.36 ms!) and this rdma-core has no
 * option for it, so a program that wants another value changes it itself:
 * IBTA allows MIN_RNR_TIMER on an RTS->RTS modify.  It matters on the
 * receiving side, whose RNR NAKs carry it.
 */
static void apply_min_rnr_timer(const struct lab_opts *o, struct lab_conn *c)
{
	if (o->min_rnr_timer < 0)
		return;
	struct ibv_qp_attr attr = { .min_rnr_timer = (uint8_t)o->min_rnr_timer };
	int rc = ibv_modify_qp(c->qp, &attr, IBV_QP_MIN_RNR_TIMER);
	if (rc)
		fprintf(stderr, "lab: cannot set min_rnr_timer %d: %s\n", o->min_rnr_timer, strerror(rc));
	else
		lab_phase("min_rnr_timer set to %d", o->min_rnr_timer);
}

int lab_open_id(struct lab_conn *c, struct rdma_cm_id **id, enum rdma_port_space ps)
{
	memset(c, 0, sizeof(*c));
	c->ec = rdma_create_event_channel();
	if (!c->ec) {
		perror("lab: rdma_create_event_channel (is an RDMA device available?)");
		return -ENODEV;
	}
	if (rdma_create_id(c->ec, id, NULL, ps) != 0) {
		perror("lab: rdma_create_id");
		return -errno;
	}
	return 0;
}

/* --tos: the connecting id's IP type of service, asked for before the route
 * is resolved, which fixes the connection's traffic class; its REQ carries
 * it, and the accepting side's QP takes it from there (RDMA CM uses no TOS
 * of the accepting side's: the server asks for none). */
static int lab_set_tos(const struct lab_opts *o, struct rdma_cm_id *id)
{
	if (o->tos < 0)
		return 0;
	uint8_t tos = (uint8_t)o->tos;
	if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, sizeof(tos)) != 0) {
		perror("lab: rdma_set_option(RDMA_OPTION_ID_TOS)");
		return -errno;
	}
	return 0;
}

int lab_resolve_route(const struct lab_opts *o, struct lab_conn *c)
{
	struct addrinfo *res = NULL;
	struct rdma_cm_event *ev = NULL;
	int rc = lab_set_tos(o, c->id);
	if (rc)
		return rc;
	if ((rc = lab_resolve(o, &res)) != 0)
		return rc;
	rc = rdma_resolve_addr(c->id, NULL, res->ai_addr, o->timeout_ms);
	freeaddrinfo(res);
	if (rc != 0) {
		perror("lab: rdma_resolve_addr");
		return -errno;
	}
	if ((rc = lab_wait_event(c, RDMA_CM_EVENT_ADDR_RESOLVED, o->timeout_ms, &ev)) != 0)
		return rc;
	rdma_ack_cm_event(ev);
	if (rdma_resolve_route(c->id, o->timeout_ms) != 0) {
		perror("lab: rdma_resolve_route");
		return -errno;
	}
	if ((rc = lab_wait_event(c, RDMA_CM_EVENT_ROUTE_RESOLVED, o->timeout_ms, &ev)) != 0)
		return rc;
	rdma_ack_cm_event(ev);
	return 0;
}

/* Resources, options and the program's set-up hook, then the connection parameters. */
static int prepare(const struct lab_opts *o, struct lab_conn *c, const struct lab_qp_caps *caps, lab_setup_fn setup,
		   void *arg, uint8_t priv[LAB_PRIVATE_MAX], struct rdma_conn_param *param)
{
	uint8_t priv_len = 0;
	int rc = lab_create_resources(c, c->id, caps);
	if (rc)
		return rc;
	apply_qp_options(o, c->id);
	if (setup && (rc = setup(c, arg, priv, &priv_len)) != 0)
		return rc;
	fill_conn_param(o, param, priv, priv_len);
	return 0;
}

/* ESTABLISHED: keep the peer's private data, apply what must follow RTS. */
static int established(const struct lab_opts *o, struct lab_conn *c)
{
	struct rdma_cm_event *ev = NULL;
	int rc = lab_wait_event(c, RDMA_CM_EVENT_ESTABLISHED, o->timeout_ms, &ev);
	if (rc)
		return rc;
	if (!c->listen_id)
		keep_peer_private(c, ev);
	rdma_ack_cm_event(ev);
	c->connected = true;
	lab_phase("connected (QP %u)", c->qp->qp_num);
	apply_min_rnr_timer(o, c);
	return 0;
}

int lab_server_accept(const struct lab_opts *o, struct lab_conn *c, const struct lab_qp_caps *caps,
		      lab_setup_fn setup, void *arg)
{
	struct addrinfo *res = NULL;
	struct rdma_cm_event *ev = NULL;
	int rc = lab_open_id(c, &c->listen_id, RDMA_PS_TCP);
	if (rc)
		return rc;
	if ((rc = lab_resolve(o, &res)) != 0)
		return rc;
	if (rdma_bind_addr(c->listen_id, res->ai_addr) != 0) {
		rc = -errno;
		fprintf(stderr, "lab: cannot bind %s port %s: %s\n", o->addr, o->port, strerror(errno));
		freeaddrinfo(res);
		return rc;
	}
	freeaddrinfo(res);
	if (rdma_listen(c->listen_id, 1) != 0) {
		perror("lab: rdma_listen");
		return -errno;
	}
	lab_phase("listening on %s port %s", o->addr, o->port);
	printf("lab: server ready\n");
	fflush(stdout);
	rc = lab_wait_event(c, RDMA_CM_EVENT_CONNECT_REQUEST, o->timeout_ms * 3, &ev);
	if (rc)
		return rc;
	c->id = ev->id;
	keep_peer_private(c, ev);
	rdma_ack_cm_event(ev);
	if (o->reject) {
		lab_phase("refusing the connection: \"%s\"", o->reject);
		if (rdma_reject(c->id, o->reject, (uint8_t)(strlen(o->reject) + 1)) != 0) {
			perror("lab: rdma_reject");
			return -errno;
		}
		fprintf(stderr, "lab: refused the connection (--reject)\n");
		return -ECONNREFUSED;
	}

	uint8_t priv[LAB_PRIVATE_MAX] = { 0 };
	struct rdma_conn_param param;
	if ((rc = prepare(o, c, caps, setup, arg, priv, &param)) != 0)
		return rc;
	if (rdma_accept(c->id, &param) != 0) {
		perror("lab: rdma_accept");
		return -errno;
	}
	return established(o, c);
}

int lab_client_connect(const struct lab_opts *o, struct lab_conn *c, const struct lab_qp_caps *caps,
		       lab_setup_fn setup, void *arg)
{
	int rc = lab_open_id(c, &c->id, RDMA_PS_TCP);
	if (rc || (rc = lab_resolve_route(o, c)) != 0)
		return rc;
	uint8_t priv[LAB_PRIVATE_MAX] = { 0 };
	struct rdma_conn_param param;
	if ((rc = prepare(o, c, caps, setup, arg, priv, &param)) != 0)
		return rc;
	lab_phase("connecting to %s port %s", o->addr, o->port);
	if (rdma_connect(c->id, &param) != 0) {
		perror("lab: rdma_connect");
		return -errno;
	}
	return established(o, c);
}

struct ibv_mr *lab_offer_region(struct lab_conn *c, void *buf, size_t len, int access, void *priv, uint8_t *priv_len)
{
	struct ibv_mr *mr = lab_reg_mr(c, buf, len, access);
	if (!mr)
		return NULL;
	struct lab_cap cap;
	lab_cap_pack(&cap, mr, len);
	memcpy(priv, &cap, sizeof(cap));
	*priv_len = sizeof(cap);
	lab_phase("offering region addr=%p rkey=0x%x len=%zu", buf, mr->rkey, len);
	return mr;
}

int lab_offer_setup(struct lab_conn *c, void *region, void *priv, uint8_t *priv_len)
{
	struct lab_region *r = region;
	r->mr = lab_offer_region(c, r->buf, r->len, r->access, priv, priv_len);
	return r->mr ? 0 : -1;
}

int lab_accept_region(const struct lab_opts *o, struct lab_conn *c, const struct lab_qp_caps *caps,
		      struct lab_region *r)
{
	r->buf = calloc(1, r->len);
	if (!r->buf)
		return -ENOMEM;
	return lab_server_accept(o, c, caps, lab_offer_setup, r);
}

int lab_peer_cap(const struct lab_conn *c, uint64_t *addr, uint32_t *rkey, uint32_t *len)
{
	if (c->peer_private_len < sizeof(struct lab_cap)) {
		fprintf(stderr, "lab: the server sent %u bytes of private data, not a capability\n", c->peer_private_len);
		return -EPROTO;
	}
	struct lab_cap cap;
	memcpy(&cap, c->peer_private, sizeof(cap));
	lab_cap_unpack(&cap, addr, rkey, len);
	lab_phase("got capability addr=0x%llx rkey=0x%x len=%u", (unsigned long long)*addr, *rkey, *len);
	return 0;
}

int lab_run_limit_ms(const struct lab_opts *o)
{
	long long n = o->count + 2LL > 3 ? o->count + 2LL : 3;
	long long ms = n * o->timeout_ms;
	return ms > INT_MAX ? INT_MAX : (int)ms;
}

int lab_wait_disconnect(struct lab_conn *c, int timeout_ms)
{
	struct rdma_cm_event *ev;
	int rc = lab_wait_event(c, RDMA_CM_EVENT_DISCONNECTED, timeout_ms, &ev);
	if (rc == 0) {
		rdma_ack_cm_event(ev);
		c->connected = false;
	}
	return rc;
}

int lab_disconnect(struct lab_conn *c, int timeout_ms)
{
	if (!c->connected)
		return 0;
	if (rdma_disconnect(c->id) != 0) {
		perror("lab: rdma_disconnect");
		return -errno;
	}
	return lab_wait_disconnect(c, timeout_ms);
}

void lab_destroy(struct lab_conn *c)
{
	if (c->id && c->qp)
		rdma_destroy_qp(c->id);
	c->qp = NULL;
	if (c->cq)
		ibv_destroy_cq(c->cq);
	c->cq = NULL;
	if (c->channel)
		ibv_destroy_comp_channel(c->channel);
	c->channel = NULL;
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	c->pd = NULL;
	if (c->id)
		rdma_destroy_id(c->id);
	c->id = NULL;
	if (c->listen_id)
		rdma_destroy_id(c->listen_id);
	c->listen_id = NULL;
	if (c->ec)
		rdma_destroy_event_channel(c->ec);
	c->ec = NULL;
}

void lab_release(struct lab_conn *c, struct ibv_mr *mr, void *buf)
{
	if (mr)
		ibv_dereg_mr(mr);
	lab_destroy(c);
	free(buf);
}

struct ibv_mr *lab_reg_mr(struct lab_conn *c, void *buf, size_t len, int access)
{
	struct ibv_mr *mr = ibv_reg_mr(c->pd, buf, len, access);
	if (!mr)
		fprintf(stderr, "lab: ibv_reg_mr of %zu bytes: %s\n", len, strerror(errno));
	return mr;
}

int lab_poll(struct lab_conn *c, struct ibv_wc *wc, int timeout_ms)
{
	return lab_poll_or_fd(c, wc, timeout_ms, -1);
}

int lab_poll_or_fd(struct lab_conn *c, struct ibv_wc *wc, int timeout_ms, int fd)
{
	uint64_t deadline = lab_now_ms() + (uint64_t)timeout_ms;
	for (;;) {
		int n = ibv_poll_cq(c->cq, 1, wc);
		if (n != 0)
			return n < 0 ? -EIO : 1;
		if (ibv_req_notify_cq(c->cq, 0) != 0)
			return -EIO;
		/* A completion may have arrived between the poll and the arm. */
		n = ibv_poll_cq(c->cq, 1, wc);
		if (n != 0)
			return n < 0 ? -EIO : 1;
		uint64_t now = lab_now_ms();
		if (now >= deadline)
			return 0;
		struct pollfd pfd[2] = { { .fd = c->channel->fd, .events = POLLIN }, { .fd = fd, .events = POLLIN } };
		int rc = poll(pfd, fd >= 0 ? 2 : 1, (int)(deadline - now));
		if (rc < 0 && errno != EINTR)
			return -errno;
		if (rc > 0 && (pfd[0].revents & POLLIN)) {
			struct ibv_cq *ev_cq;
			void *ev_ctx;
			if (ibv_get_cq_event(c->channel, &ev_cq, &ev_ctx) == 0)
				ibv_ack_cq_events(ev_cq, 1);
		}
		if (rc > 0 && fd >= 0 && (pfd[1].revents & POLLIN))
			return 2;
	}
}

int lab_post_recv(struct lab_conn *c, uint64_t wr_id, void *buf, uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = len, .lkey = lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 }, *bad;
	int rc = ibv_post_recv(c->qp, &wr, &bad);
	if (rc)
		fprintf(stderr, "lab: ibv_post_recv: %s\n", strerror(rc));
	return -rc;
}

int lab_post_send(struct lab_conn *c, enum ibv_wr_opcode op, uint64_t wr_id, void *buf, uint32_t len,
		  uint32_t lkey, uint64_t remote_addr, uint32_t rkey, uint32_t imm_host, bool signaled)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = len, .lkey = lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = len ? 1 : 0,
		.opcode = op,
		.send_flags = signaled ? IBV_SEND_SIGNALED : 0,
		.imm_data = htobe32(imm_host),
	}, *bad;
	wr.wr.rdma.remote_addr = remote_addr;
	wr.wr.rdma.rkey = rkey;
	int rc = ibv_post_send(c->qp, &wr, &bad);
	if (rc)
		fprintf(stderr, "lab: ibv_post_send: %s\n", strerror(rc));
	return -rc;
}

bool lab_mode_is(const struct lab_opts *o, const char *mode)
{
	return o->mode && strcmp(o->mode, mode) == 0;
}

void lab_phase(const char *fmt, ...)
{
	char text[128];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	rt_trace_marker("%s", text);
	printf("lab: phase %s\n", text);
	fflush(stdout);
}

void lab_result(const struct lab_opts *o, bool ok, const char *fmt, ...)
{
	char text[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	rt_trace_marker("result %s", ok ? "ok" : "fail");
	printf("lab: RESULT %s %s %s %s\n", o->scenario, o->server ? "server" : "client", ok ? "ok" : "fail", text);
	fflush(stdout);
}

void lab_fill_pattern(uint8_t *buf, size_t len, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;
	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		buf[i] = (uint8_t)x;
	}
}

long lab_check_pattern(const uint8_t *buf, size_t len, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;
	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		if (buf[i] != (uint8_t)x)
			return (long)i;
	}
	return -1;
}

const char *lab_wc_text(const struct ibv_wc *wc, char *buf, size_t len)
{
	snprintf(buf, len, "wr %llu opcode %d: %s", (unsigned long long)wc->wr_id, (int)wc->opcode,
		 ibv_wc_status_str(wc->status));
	return buf;
}

void lab_cap_pack(struct lab_cap *cap, const struct ibv_mr *mr, size_t length)
{
	cap->addr = htobe64((uint64_t)(uintptr_t)mr->addr);
	cap->rkey = htobe32(mr->rkey);
	cap->length = htobe32((uint32_t)length);
}

void lab_cap_unpack(const struct lab_cap *cap, uint64_t *addr, uint32_t *rkey, uint32_t *length)
{
	*addr = be64toh(cap->addr);
	*rkey = be32toh(cap->rkey);
	*length = be32toh(cap->length);
}

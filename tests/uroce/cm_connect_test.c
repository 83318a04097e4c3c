/*
 * End-to-end RDMA CM tests over uroce, two processes (a forked server and
 * the client), each with its own uroce device on its own loopback address:
 * connection with private data both ways ({addr, rkey} in the REQ, as the
 * labs exchange it) then RDMA WRITE / READ with the data verified, reject
 * with private data, a port nobody listens on (REJ reason 8), disconnect
 * from either side, the synchronous rdma_create_ep API, and a peer that is
 * not there (UNREACHABLE after bounded retries).  Events are checked in the
 * kernel's order.  Built against rdma-core's headers, run with uroce's
 * librdmacm.so.1 and libibverbs.so.1 (rpath build/uroce); skipped when no
 * uroce device is found.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#include <rdma/rsocket.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"

#define BUF 8192

struct lab_pd {              /* what the labs put in private data */
	uint64_t addr;
	uint32_t rkey;
	uint32_t len;
	char tag[8];
};

static struct sockaddr_in g_srv;     /* server address for this run */
static uint16_t g_port;

/* Wait (at most 5 s) for the next event; it must be `want`. */
static struct rdma_cm_event *expect(struct rdma_event_channel *ch, enum rdma_cm_event_type want)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&p, 1, 5000) != 1) {
		printf("#   pid %d: no event (wanted %s)\n", getpid(), rdma_event_str(want));
		return NULL;
	}
	if (rdma_get_cm_event(ch, &ev)) {
		printf("#   rdma_get_cm_event: %s\n", strerror(errno));
		return NULL;
	}
	if (ev->event != want) {
		printf("#   pid %d: got %s status %d, wanted %s\n", getpid(), rdma_event_str(ev->event), ev->status,
		       rdma_event_str(want));
		rdma_ack_cm_event(ev);
		return NULL;
	}
	return ev;
}

static int uroce_present(void)
{
	int n = 0;
	struct ibv_context **l = rdma_get_devices(&n);

	rdma_free_devices(l);
	return n > 0;
}

static struct ibv_qp_init_attr qp_attr(struct ibv_cq *cq)
{
	struct ibv_qp_init_attr a = { .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC };

	a.cap.max_send_wr = 16;
	a.cap.max_recv_wr = 16;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_sge = 1;
	return a;
}

static int wait_wc(struct ibv_cq *cq, struct ibv_wc *wc)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int n = ibv_poll_cq(cq, 1, wc);
		if (n < 0)
			return -1;
		if (n == 1)
			return wc->status == IBV_WC_SUCCESS ? 0 : -1;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 5)
			return -1;
		usleep(100);
	}
}

/* ------------------------------------------------------------------ server */

enum srv_mode { SRV_ACCEPT, SRV_REJECT, SRV_DISCONNECT_FIRST, SRV_RELISTEN_REJECT };

/* Runs in the child; exit status 0 = every server-side check passed. */
static int server(int ready_fd, enum srv_mode mode)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *listen, *id;
	struct rdma_cm_event *ev;
	struct lab_pd pd, mine;
	struct ibv_qp_init_attr a;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	char *buf;
	int ok = 1;

	if (!ch || rdma_create_id(ch, &listen, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(listen, (struct sockaddr *)&g_srv) || rdma_listen(listen, 4)) {
		printf("#   server setup: %s\n", strerror(errno));
		return 10;
	}
	if (mode == SRV_RELISTEN_REJECT) {
		/* as perftest -R does: close the listener, open the next one on the
		   same port a moment later; a REQ that comes in between must wait for it.
		   The client starts once the first listener is gone: a REQ that reached
		   it first would be its to answer (destroying a listener rejects the
		   requests it has not accepted), and the gap would not be tested */
		struct timespec gap = { 0, 100 * 1000 * 1000 };
		rdma_destroy_id(listen);
		if (write(ready_fd, "r", 1) != 1)
			return 11;
		nanosleep(&gap, NULL);
		if (rdma_create_id(ch, &listen, NULL, RDMA_PS_TCP) || rdma_bind_addr(listen, (struct sockaddr *)&g_srv) ||
		    rdma_listen(listen, 4))
			return 21;
	} else if (write(ready_fd, "r", 1) != 1) {
		return 11;
	}
	if (!(ev = expect(ch, RDMA_CM_EVENT_CONNECT_REQUEST)))
		return 12;
	id = ev->id;
	if (ev->listen_id != listen || ev->param.conn.private_data_len != 56) {
		printf("#   listen_id %p/%p, private_data_len %u\n", (void *)ev->listen_id, (void *)listen,
		       ev->param.conn.private_data_len);
		ok = 0;
	}
	memcpy(&pd, ev->param.conn.private_data, sizeof(pd));
	if (memcmp(pd.tag, "client", 7) || pd.len != BUF) {
		printf("#   server: bad REQ private data\n");
		ok = 0;
	}
	if (ntohs(rdma_get_dst_port(id)) == 0 || rdma_get_local_addr(id)->sa_family != AF_INET)
		ok = 0;
	rdma_ack_cm_event(ev);
	if (mode == SRV_REJECT || mode == SRV_RELISTEN_REJECT) {
		static const char why[] = "server says no";
		if (rdma_reject(id, why, sizeof(why)))
			return 13;
		rdma_destroy_id(id);
		rdma_destroy_id(listen);
		rdma_destroy_event_channel(ch);
		return ok ? 0 : 1;
	}
	cq = ibv_create_cq(id->verbs, 32, NULL, NULL, 0);
	a = qp_attr(cq);
	if (!cq || rdma_create_qp(id, NULL, &a))
		return 14;
	buf = calloc(1, 2 * BUF);
	for (int i = 0; i < BUF; i++)
		buf[BUF + i] = (char)(i * 7 + 3); /* second half: what the client READs */
	mr = ibv_reg_mr(id->pd, buf, 2 * BUF, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!mr)
		return 15;
	mine = (struct lab_pd){ .addr = (uintptr_t)buf, .rkey = mr->rkey, .len = 2 * BUF };
	memcpy(mine.tag, "server", 7);
	{
		struct rdma_conn_param cp = { .private_data = &mine, .private_data_len = sizeof(mine),
					      .responder_resources = 4, .initiator_depth = 4, .rnr_retry_count = 7 };
		if (rdma_accept(id, &cp))
			return 16;
	}
	if (!(ev = expect(ch, RDMA_CM_EVENT_ESTABLISHED)))
		return 17;
	rdma_ack_cm_event(ev);
	if (mode == SRV_DISCONNECT_FIRST) {
		if (rdma_disconnect(id))
			return 18;
		if (!(ev = expect(ch, RDMA_CM_EVENT_DISCONNECTED)))
			return 19;
		rdma_ack_cm_event(ev);
	} else {
		if (!(ev = expect(ch, RDMA_CM_EVENT_DISCONNECTED)))
			return 20;
		rdma_ack_cm_event(ev);
		for (int i = 0; i < BUF; i++)
			if (buf[i] != (char)(i * 13 + 1)) {
				printf("#   server: byte %d written by the client is wrong\n", i);
				ok = 0;
				break;
			}
		rdma_disconnect(id); /* answers the DREQ */
	}
	rdma_destroy_qp(id);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	rdma_destroy_id(id);
	rdma_destroy_id(listen);
	rdma_destroy_event_channel(ch);
	free(buf);
	return ok ? 0 : 1;
}

/* The server is a fresh process (fork + exec of this program): a forked copy
 * of a process that already opened its device would have no engine threads. */
static pid_t start_server(enum srv_mode mode)
{
	char fd[16], m[16], addr[32], port[16];
	int p[2];
	char c;
	pid_t pid;

	if (pipe(p))
		return -1;
	snprintf(fd, sizeof(fd), "%d", p[1]);
	snprintf(m, sizeof(m), "%d", (int)mode);
	inet_ntop(AF_INET, &g_srv.sin_addr, addr, sizeof(addr));
	snprintf(port, sizeof(port), "%u", g_port);
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		alarm(20);
		execl("/proc/self/exe", "cm_connect_test", "server", fd, m, addr, port, (char *)NULL);
		_exit(99);
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1) {
		close(p[0]);
		return -1;
	}
	close(p[0]);
	return pid;
}

static int server_status(pid_t pid)
{
	int st;

	if (pid <= 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	if (!WIFEXITED(st)) {
		printf("#   server killed by signal %d\n", WTERMSIG(st));
		return -1;
	}
	if (WEXITSTATUS(st))
		printf("#   server exit status %d\n", WEXITSTATUS(st));
	return WEXITSTATUS(st);
}

/* ------------------------------------------------------------------ client */

struct client {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	char *buf;
};

static int client_connect(struct client *c, uint16_t port, const void *pd, uint8_t pdlen, enum rdma_cm_event_type want,
			  struct rdma_cm_event **out)
{
	struct sockaddr_in dst = g_srv;
	struct rdma_cm_event *ev;
	struct ibv_qp_init_attr a;

	dst.sin_port = htons(port);
	c->ch = rdma_create_event_channel();
	if (!c->ch || rdma_create_id(c->ch, &c->id, c, RDMA_PS_TCP))
		return -1;
	if (rdma_resolve_addr(c->id, NULL, (struct sockaddr *)&dst, 2000) ||
	    !(ev = expect(c->ch, RDMA_CM_EVENT_ADDR_RESOLVED)))
		return -1;
	rdma_ack_cm_event(ev);
	if (rdma_resolve_route(c->id, 2000) || !(ev = expect(c->ch, RDMA_CM_EVENT_ROUTE_RESOLVED)))
		return -1;
	rdma_ack_cm_event(ev);
	c->cq = ibv_create_cq(c->id->verbs, 32, NULL, NULL, 0);
	a = qp_attr(c->cq);
	if (!c->cq || rdma_create_qp(c->id, NULL, &a))
		return -1;
	c->buf = calloc(1, 2 * BUF);
	c->mr = ibv_reg_mr(c->id->pd, c->buf, 2 * BUF, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!c->mr)
		return -1;
	{
		struct rdma_conn_param cp = { .private_data = pd, .private_data_len = pdlen, .responder_resources = 4,
					      .initiator_depth = 4, .retry_count = 7, .rnr_retry_count = 7 };
		if (rdma_connect(c->id, &cp))
			return -1;
	}
	*out = expect(c->ch, want);
	return *out ? 0 : -1;
}

static void client_close(struct client *c)
{
	if (c->id && c->id->qp)
		rdma_destroy_qp(c->id);
	if (c->mr)
		ibv_dereg_mr(c->mr);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->id)
		rdma_destroy_id(c->id);
	if (c->ch)
		rdma_destroy_event_channel(c->ch);
	free(c->buf);
	memset(c, 0, sizeof(*c));
}

static int rdma_op(struct client *c, enum ibv_wr_opcode op, size_t off, uint64_t raddr, uint32_t rkey, uint32_t len)
{
	struct ibv_sge s = { .addr = (uintptr_t)c->buf + off, .length = len, .lkey = c->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 7, .sg_list = &s, .num_sge = 1, .opcode = op, .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	if (ibv_post_send(c->id->qp, &wr, &bad))
		return -1;
	if (wait_wc(c->cq, &wc)) {
		printf("#   %s completion status %s\n", op == IBV_WR_RDMA_READ ? "READ" : "WRITE", ibv_wc_status_str(wc.status));
		return -1;
	}
	return 0;
}

static struct lab_pd client_pd(struct client *c)
{
	struct lab_pd pd = { .addr = 0x1234, .rkey = 0x5678, .len = BUF };

	(void)c;
	memcpy(pd.tag, "client", 7);
	return pd;
}

/* ------------------------------------------------------------------ tests */

static void test_connect_write_read(void)
{
	struct client c = { 0 };
	struct rdma_cm_event *ev;
	struct lab_pd pd = client_pd(&c), srv;
	pid_t pid = start_server(SRV_ACCEPT);

	CHECK(pid > 0);
	CHECK(client_connect(&c, g_port, &pd, sizeof(pd), RDMA_CM_EVENT_ESTABLISHED, &ev) == 0);
	if (!ev) {
		kill(pid, SIGKILL);
		server_status(pid);
		client_close(&c);
		return;
	}
	CHECK(ev->param.conn.private_data_len == 196);
	memcpy(&srv, ev->param.conn.private_data, sizeof(srv));
	CHECK(memcmp(srv.tag, "server", 7) == 0);
	CHECK_EQ_U(ev->param.conn.qp_num != 0, 1);
	rdma_ack_cm_event(ev);
	for (int i = 0; i < BUF; i++)
		c.buf[i] = (char)(i * 13 + 1);
	CHECK(rdma_op(&c, IBV_WR_RDMA_WRITE, 0, srv.addr, srv.rkey, BUF) == 0);
	CHECK(rdma_op(&c, IBV_WR_RDMA_READ, BUF, srv.addr + BUF, srv.rkey, BUF) == 0);
	for (int i = 0; i < BUF; i++)
		if (c.buf[BUF + i] != (char)(i * 7 + 3)) {
			printf("#   READ byte %d wrong\n", i);
			CHECK(0);
			break;
		}
	CHECK(rdma_op(&c, IBV_WR_RDMA_READ, BUF, srv.addr, srv.rkey, BUF) == 0);
	CHECK(memcmp(c.buf, c.buf + BUF, BUF) == 0);
	CHECK(rdma_disconnect(c.id) == 0);
	ev = expect(c.ch, RDMA_CM_EVENT_DISCONNECTED);
	CHECK(ev != NULL);
	if (ev)
		rdma_ack_cm_event(ev);
	CHECK_EQ_U(server_status(pid), 0);
	client_close(&c);
}

/* Connect to a server started in mode, which rejects with private data: the
   client must see the application's reject (28) with that data. */
static void expect_server_reject(enum srv_mode mode)
{
	struct client c = { 0 };
	struct rdma_cm_event *ev = NULL;
	struct lab_pd pd = client_pd(&c);
	pid_t pid = start_server(mode);

	CHECK(client_connect(&c, g_port, &pd, sizeof(pd), RDMA_CM_EVENT_REJECTED, &ev) == 0);
	if (ev) {
		CHECK_EQ_U(ev->status, 28);
		CHECK(ev->param.conn.private_data_len >= 15);
		CHECK(ev->param.conn.private_data && memcmp(ev->param.conn.private_data, "server says no", 15) == 0);
		rdma_ack_cm_event(ev);
	}
	CHECK_EQ_U(server_status(pid), 0);
	client_close(&c);
}

static void test_reject_private_data(void)
{
	expect_server_reject(SRV_REJECT);
}

static void test_no_listener(void)
{
	struct client c = { 0 };
	struct rdma_cm_event *ev = NULL;
	pid_t pid = start_server(SRV_REJECT); /* a device at the address, listening on another port */

	CHECK(client_connect(&c, (uint16_t)(g_port + 1), NULL, 0, RDMA_CM_EVENT_REJECTED, &ev) == 0);
	if (ev) {
		CHECK_EQ_U(ev->status, 8);
		rdma_ack_cm_event(ev);
	}
	client_close(&c);
	kill(pid, SIGKILL);
	server_status(pid);
}

/* A REQ that reaches the server while it re-opens its listener on the same
   port (100 ms without one) is answered by the new listener (the application's
   reject, 28, with its private data), not with REJ 8. */
static void test_relisten_gap(void)
{
	expect_server_reject(SRV_RELISTEN_REJECT);
}

static void test_server_disconnects(void)
{
	struct client c = { 0 };
	struct rdma_cm_event *ev = NULL;
	struct lab_pd pd = client_pd(&c);
	pid_t pid = start_server(SRV_DISCONNECT_FIRST);

	CHECK(client_connect(&c, g_port, &pd, sizeof(pd), RDMA_CM_EVENT_ESTABLISHED, &ev) == 0);
	if (ev)
		rdma_ack_cm_event(ev);
	ev = expect(c.ch, RDMA_CM_EVENT_DISCONNECTED);
	CHECK(ev != NULL);
	if (ev)
		rdma_ack_cm_event(ev);
	CHECK(rdma_disconnect(c.id) == 0); /* sends the DREP the server waits for */
	CHECK_EQ_U(server_status(pid), 0);
	client_close(&c);
}

static void test_unreachable(void)
{
	struct client c = { 0 };
	struct rdma_cm_event *ev = NULL;
	struct sockaddr_in save = g_srv;

	/* nobody at this address: REQ retried UROCE_CM_RETRIES times, then UNREACHABLE */
	g_srv.sin_addr.s_addr = htonl(ntohl(g_srv.sin_addr.s_addr) ^ 0x80);
	CHECK(client_connect(&c, g_port, NULL, 0, RDMA_CM_EVENT_UNREACHABLE, &ev) == 0);
	if (ev) {
		CHECK(ev->status == -ETIMEDOUT);
		rdma_ack_cm_event(ev);
	}
	client_close(&c);
	g_srv = save;
}

/* rdma_server's sequence: synchronous endpoint, get_request, accept(NULL). */
static int sync_server(int ready_fd, const char *host, const char *port)
{
	struct ibv_qp_init_attr a = { .cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
				      .sq_sig_all = 1 };
	struct rdma_addrinfo h = { .ai_flags = RAI_PASSIVE, .ai_port_space = RDMA_PS_TCP }, *r;
	struct rdma_cm_id *l, *cid;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	char in[32];

	if (rdma_getaddrinfo(host, port, &h, &r) || rdma_create_ep(&l, r, NULL, &a) || rdma_listen(l, 1))
		return 30;
	rdma_freeaddrinfo(r);
	if (write(ready_fd, "r", 1) != 1 || rdma_get_request(l, &cid) || !cid->qp)
		return 31;
	mr = rdma_reg_msgs(cid, in, sizeof(in));
	if (!mr || rdma_post_recv(cid, NULL, in, sizeof(in), mr) || rdma_accept(cid, NULL))
		return 32;
	if (rdma_get_recv_comp(cid, &wc) <= 0 || wc.status != IBV_WC_SUCCESS || strcmp(in, "hello uroce"))
		return 33;
	strcpy(in, "hello back");
	if (rdma_post_send(cid, NULL, in, sizeof(in), mr, 0) || rdma_get_send_comp(cid, &wc) <= 0 ||
	    wc.status != IBV_WC_SUCCESS)
		return 34;
	rdma_disconnect(cid);
	rdma_dereg_mr(mr);
	rdma_destroy_ep(cid);
	rdma_destroy_ep(l);
	return 0;
}

static void test_sync_endpoints(void)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP }, *res;
	struct ibv_qp_init_attr a = { .cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
				      .sq_sig_all = 1 };
	char host[INET_ADDRSTRLEN], port[8];
	struct rdma_cm_id *id;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	char msg[32] = "", ans[32] = "";
	pid_t pid;
	int p[2];

	inet_ntop(AF_INET, &g_srv.sin_addr, host, sizeof(host));
	snprintf(port, sizeof(port), "%u", g_port);
	CHECK(pipe(p) == 0);
	pid = fork();
	if (pid == 0) {
		char fd[16];
		close(p[0]);
		snprintf(fd, sizeof(fd), "%d", p[1]);
		alarm(20);
		execl("/proc/self/exe", "cm_connect_test", "sync-server", fd, host, port, (char *)NULL);
		_exit(99);
	}
	close(p[1]);
	CHECK(read(p[0], msg, 1) == 1);
	close(p[0]);
	CHECK(rdma_getaddrinfo(host, port, &hints, &res) == 0);
	CHECK(rdma_create_ep(&id, res, NULL, &a) == 0);
	rdma_freeaddrinfo(res);
	mr = rdma_reg_msgs(id, ans, sizeof(ans));
	CHECK(mr != NULL);
	CHECK(rdma_post_recv(id, NULL, ans, sizeof(ans), mr) == 0);
	if (rdma_connect(id, NULL)) {
		printf("#   rdma_connect: %s\n", strerror(errno));
		CHECK(0);
		rdma_destroy_ep(id);
		server_status(pid);
		return;
	}
	strcpy(msg, "hello uroce");
	{
		struct ibv_mr *smr = rdma_reg_msgs(id, msg, sizeof(msg));
		CHECK(rdma_post_send(id, NULL, msg, sizeof(msg), smr, 0) == 0);
		CHECK(rdma_get_send_comp(id, &wc) > 0 && wc.status == IBV_WC_SUCCESS);
		CHECK(rdma_get_recv_comp(id, &wc) > 0 && wc.status == IBV_WC_SUCCESS);
		CHECK_STR(ans, "hello back");
		rdma_disconnect(id);
		rdma_dereg_mr(smr);
	}
	rdma_dereg_mr(mr);
	rdma_destroy_ep(id);
	CHECK_EQ_U(server_status(pid), 0);
}

static void test_api_errors(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *id;
	struct sockaddr_in mc = { .sin_family = AF_INET };
	uint8_t v = 99;

	CHECK(ch != NULL);
	CHECK(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) == 0);
	CHECK(rdma_connect(id, NULL) == -1 && errno == EINVAL); /* no route yet */
	CHECK(rdma_accept(id, NULL) == -1 && errno == EINVAL);
	CHECK(rdma_disconnect(id) == -1 && errno == EINVAL);
	CHECK(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &v, 1) == -1 && errno == EINVAL);
	v = 14;
	CHECK(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &v, 1) == 0);
	CHECK(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &v, 1) == 0);
	CHECK(rdma_set_option(id, RDMA_OPTION_ID, 77, &v, 1) == -1 && errno == ENOSYS);
	{ /* an ACK timeout is for RC ids only, as the kernel's */
		struct rdma_cm_id *ud;
		CHECK(rdma_create_id(ch, &ud, NULL, RDMA_PS_UDP) == 0);
		CHECK(rdma_set_option(ud, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &v, 1) == -1 && errno == EINVAL);
		CHECK(rdma_destroy_id(ud) == 0);
	}
	inet_pton(AF_INET, "224.0.0.5", &mc.sin_addr);
	CHECK(rdma_join_multicast(id, (struct sockaddr *)&mc, NULL) == -1 && errno == ENOSYS);
	CHECK(rsocket(AF_INET, SOCK_STREAM, 0) == -1 && errno == ENOSYS);
	CHECK_STR(rdma_event_str(RDMA_CM_EVENT_ESTABLISHED), "RDMA_CM_EVENT_ESTABLISHED");
	{ /* a nonblocking channel with nothing queued */
		struct rdma_cm_event *ev;
		int fl = fcntl(ch->fd, F_GETFL);
		fcntl(ch->fd, F_SETFL, fl | O_NONBLOCK);
		CHECK(rdma_get_cm_event(ch, &ev) == -1 && errno == EAGAIN);
	}
	CHECK(rdma_destroy_id(id) == 0);
	rdma_destroy_event_channel(ch);
}

/* A thread in rdma_get_cm_event on a channel: whether it came back. */
struct reader {
	struct rdma_event_channel *ch;
	volatile int returned;
};

static void *read_event(void *arg)
{
	struct reader *r = arg;
	struct rdma_cm_event *ev;
	(void)rdma_get_cm_event(r->ch, &ev);
	r->returned = 1;
	return NULL;
}

static void start_reader(struct reader *r)
{
	pthread_t th;
	CHECK(pthread_create(&th, NULL, read_event, r) == 0);
	pthread_detach(th);
}

/* An application thread still reading a channel the program destroys (as
 * rping's event thread does while main tears down): it stays blocked, as a
 * read of librdmacm's fd does, whether it was waiting already or comes
 * after; before, one that came after failed with EBADF (rping then exits
 * 255).  A non-blocking read of a destroyed channel fails with EBADF. */
static void test_destroy_while_reading(void)
{
	static struct reader waiting, late; /* (their threads stay blocked until the test ends) */
	struct timespec ms50 = {0, 50000000};

	waiting.ch = rdma_create_event_channel();
	CHECK(waiting.ch != NULL);
	start_reader(&waiting);
	nanosleep(&ms50, NULL);
	rdma_destroy_event_channel(waiting.ch);
	late.ch = waiting.ch;
	start_reader(&late);
	nanosleep(&ms50, NULL);
	nanosleep(&ms50, NULL);
	CHECK(!waiting.returned);
	CHECK(!late.returned);

	struct rdma_event_channel *nb = rdma_create_event_channel();
	struct rdma_cm_event *ev;
	CHECK(nb != NULL);
	fcntl(nb->fd, F_SETFL, fcntl(nb->fd, F_GETFL) | O_NONBLOCK);
	rdma_destroy_event_channel(nb);
	CHECK(rdma_get_cm_event(nb, &ev) == -1 && errno == EBADF);
}

int main(int argc, char **argv)
{
	unsigned r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	setenv("UROCE_CM_TIMEOUT_MS", "150", 1);
	setenv("UROCE_CM_RETRIES", "2", 1);
	if (argc == 6 && strcmp(argv[1], "server") == 0) {
		g_srv.sin_family = AF_INET;
		inet_pton(AF_INET, argv[4], &g_srv.sin_addr);
		g_port = (uint16_t)atoi(argv[5]);
		g_srv.sin_port = htons(g_port);
		return server(atoi(argv[2]), (enum srv_mode)atoi(argv[3]));
	}
	if (argc == 5 && strcmp(argv[1], "sync-server") == 0)
		return sync_server(atoi(argv[2]), argv[3], argv[4]);
	if (!uroce_present()) {
		printf("ok 1 - uroce RDMA CM end to end # SKIP no uroce device (build/uroce/libibverbs.so.1 not built)\n1..1\n");
		return 0;
	}
	/* our own address and port: other tests may be using loopback too */
	srand((unsigned)getpid() ^ (unsigned)time(NULL));
	r = (unsigned)rand();
	g_srv.sin_family = AF_INET;
	g_srv.sin_addr.s_addr = htonl(0x7F000000u | 0x400000u | ((r & 0x3fff) << 2) | 1);
	g_port = (uint16_t)(20000 + (r >> 16) % 20000);
	g_srv.sin_port = htons(g_port);
	signal(SIGPIPE, SIG_IGN);
	alarm(150); /* a hang must not outlive the test run */
#define RUN_SEL(fn) do { const char *o = getenv("CM_TEST_ONLY"); if (!o || strstr(#fn, o)) RUN(fn); } while (0)
	RUN_SEL(test_api_errors);
	RUN_SEL(test_destroy_while_reading);
	RUN_SEL(test_connect_write_read);
	RUN_SEL(test_reject_private_data);
	RUN_SEL(test_no_listener);
	RUN_SEL(test_relisten_gap);
	RUN_SEL(test_server_disconnects);
	RUN_SEL(test_sync_endpoints);
	RUN_SEL(test_unreachable);
	return test_done();
}

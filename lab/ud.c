/*
 * Lab "ud": unreliable datagrams with address handles.
 *
 * There is no connection: the client asks the server's RDMA CM (UDP port
 * space) for its QP number and Q_Key (a SIDR request/reply on the wire),
 * turns the reply's address into an address handle, and sends each request
 * as one UD SEND.  The server learns who asked from each receive completion
 * (source QP and the 40-byte GRH area the receive buffer starts with), makes
 * an address handle from it and answers with a UD SEND.  A UD message is
 * always one packet (at most the path MTU), nothing is acknowledged and a
 * lost datagram is simply gone: the client gives up on a reply after
 * --timeout-ms.
 *
 * One server QP serves any number of clients: each later SIDR request is
 * answered with the same QPN while the server waits for datagrams, and
 * --count on the server is the requests of all clients together.  Each
 * client numbers its requests from 0, so the server keeps a count per
 * sender (GID and source QP) to check the data and make the reply.
 */
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab_common.h"

#define GRH 40
#define UD_QKEY 0x01234567u /* the Q_Key librdmacm gives UD QPs */

struct ud_bufs {
	uint8_t *mem; /* depth receive slots of GRH + size, then one send slot */
	struct ibv_mr *mr;
	size_t slot;
	unsigned depth;
};

static int ud_bufs_init(struct lab_conn *c, struct ud_bufs *b, const struct lab_opts *o)
{
	b->slot = GRH + o->size;
	b->depth = o->depth;
	b->mem = calloc(b->depth + 1, b->slot);
	if (!b->mem)
		return -1;
	b->mr = lab_reg_mr(c, b->mem, (b->depth + 1) * b->slot, IBV_ACCESS_LOCAL_WRITE);
	if (!b->mr)
		return -1;
	for (unsigned i = 0; i < b->depth; i++)
		if (lab_post_recv(c, i, b->mem + i * b->slot, (uint32_t)b->slot, b->mr->lkey) != 0)
			return -1;
	return 0;
}

static uint8_t *send_slot(struct ud_bufs *b)
{
	return b->mem + (size_t)b->depth * b->slot;
}

static int ud_send(const struct lab_opts *o, struct lab_conn *c, struct ud_bufs *b, struct ibv_ah *ah,
		   uint32_t qpn, uint32_t qkey, uint64_t wr_id)
{
	struct ibv_sge sge = { .addr = (uintptr_t)send_slot(b), .length = (uint32_t)o->size, .lkey = b->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = qpn;
	wr.wr.ud.remote_qkey = qkey;
	int rc = ibv_post_send(c->qp, &wr, &bad);
	if (rc)
		fprintf(stderr, "lab: ibv_post_send (UD): %s\n", strerror(rc));
	return -rc;
}

/* Waits for a completion of the given kind, leaving it in *wc. */
static int wait_for(const struct lab_opts *o, struct lab_conn *c, enum ibv_wc_opcode want, struct ibv_wc *wc)
{
	char text[128];
	for (;;) {
		if (lab_poll(c, wc, o->timeout_ms) <= 0) {
			fprintf(stderr, "lab: no %s completion within %d ms\n", want == IBV_WC_RECV ? "receive" : "send",
				o->timeout_ms);
			return -1;
		}
		if (wc->status != IBV_WC_SUCCESS) {
			fprintf(stderr, "lab: %s\n", lab_wc_text(wc, text, sizeof(text)));
			return -1;
		}
		if (wc->opcode == want)
			return 0;
	}
}

#define MAX_CLIENTS 64
#define MAX_PENDING 64         /* at least --depth: one per receive posted */

/* The server's side of its clients: the ids of the SIDR requests it
 * answered, and each sender's requests so far. */
struct ud_clients {
	struct rdma_cm_id *ids[MAX_CLIENTS];
	unsigned nids;
	struct {
		uint8_t gid[16];
		uint32_t qpn;
		unsigned requests;
	} senders[MAX_CLIENTS];
	unsigned nsenders;
	struct ibv_wc pending[MAX_PENDING]; /* receives completed while a send was awaited */
	unsigned npending;
};

/* Answers a SIDR request waiting on the CM channel with our QPN and Q_Key. */
static int answer_sidr(struct lab_conn *c, struct ud_clients *cl)
{
	struct rdma_cm_event *ev;
	if (rdma_get_cm_event(c->ec, &ev) != 0) {
		perror("lab: rdma_get_cm_event");
		return -1;
	}
	if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
		rdma_ack_cm_event(ev);
		return 0;
	}
	struct rdma_cm_id *id = ev->id;
	rdma_ack_cm_event(ev);
	struct rdma_conn_param param = { .qp_num = c->qp->qp_num };
	if (cl->nids == MAX_CLIENTS || rdma_accept(id, &param) != 0) {
		fprintf(stderr, "lab: cannot answer another service request (%u answered)\n", cl->nids + 1);
		rdma_destroy_id(id);
		return 0;
	}
	cl->ids[cl->nids++] = id;
	lab_phase("answered service request %u: QPN %u", cl->nids + 1, c->qp->qp_num);
	return 0;
}

/* Waits for a completion of kind want, answering the SIDR requests of
 * further clients meanwhile; receives that complete while a send is awaited
 * are kept for the next wait for a receive. */
static int serve_wait(const struct lab_opts *o, struct lab_conn *c, struct ud_clients *cl, enum ibv_wc_opcode want,
		      struct ibv_wc *wc)
{
	char text[128];
	uint64_t deadline = lab_now_ms() + (uint64_t)o->timeout_ms;
	if (want == IBV_WC_RECV && cl->npending) {
		*wc = cl->pending[0];
		memmove(cl->pending, cl->pending + 1, --cl->npending * sizeof(*wc));
		return 0;
	}
	for (;;) {
		uint64_t now = lab_now_ms();
		int n = now < deadline ? lab_poll_or_fd(c, wc, (int)(deadline - now), c->ec->fd) : 0;
		if (n < 0)
			return -1;
		if (n == 0) {
			fprintf(stderr, "lab: no %s completion within %d ms\n", want == IBV_WC_RECV ? "receive" : "send",
				o->timeout_ms);
			return -1;
		}
		if (n == 2) {
			if (answer_sidr(c, cl) != 0)
				return -1;
			continue;
		}
		if (wc->status != IBV_WC_SUCCESS) {
			fprintf(stderr, "lab: %s\n", lab_wc_text(wc, text, sizeof(text)));
			return -1;
		}
		if (wc->opcode == want)
			return 0;
		if (wc->opcode == IBV_WC_RECV && cl->npending < MAX_PENDING)
			cl->pending[cl->npending++] = *wc;
	}
}

/* Requests this sender made before the one in wc.  The GRH area at the
 * start of slot names it: RoCEv2 over IPv4 puts the IPv4 header in its last
 * 20 bytes (source address at 32), over IPv6 the IPv6 header (source GID at 8). */
static unsigned sender_requests(struct ud_clients *cl, const struct ibv_wc *wc, const uint8_t *slot)
{
	uint8_t sgid[16] = { 0 };
	if ((slot[20] >> 4) == 4)
		memcpy(sgid + 12, slot + 32, 4);
	else
		memcpy(sgid, slot + 8, 16);
	unsigned i;
	for (i = 0; i < cl->nsenders; i++)
		if (cl->senders[i].qpn == wc->src_qp && memcmp(cl->senders[i].gid, sgid, 16) == 0)
			break;
	if (i == cl->nsenders) {
		if (i == MAX_CLIENTS)
			return 0;
		cl->nsenders++;
		memcpy(cl->senders[i].gid, sgid, 16);
		cl->senders[i].qpn = wc->src_qp;
		cl->senders[i].requests = 0;
	}
	return cl->senders[i].requests++;
}

static int run_server(const struct lab_opts *o)
{
	struct lab_conn c = {0}; /* lab_destroy() after an early failure */
	struct ud_bufs b = { 0 };
	struct lab_qp_caps caps = { .type = IBV_QPT_UD, .send_wr = 8, .recv_wr = o->depth };
	struct addrinfo *res = NULL;
	struct rdma_cm_event *ev;
	unsigned served = 0, bad = 0;
	struct ud_clients clients = { .nids = 0 };
	int rc = -1;
	if (lab_open_id(&c, &c.listen_id, RDMA_PS_UDP) != 0 || lab_resolve(o, &res) != 0)
		goto out;
	if (rdma_bind_addr(c.listen_id, res->ai_addr) != 0 || rdma_listen(c.listen_id, MAX_CLIENTS) != 0) {
		perror("lab: rdma_bind_addr/rdma_listen (UDP port space)");
		goto out;
	}
	lab_phase("UD service on %s port %s", o->addr, o->port);
	printf("lab: server ready\n");
	fflush(stdout);
	if (lab_wait_event(&c, RDMA_CM_EVENT_CONNECT_REQUEST, o->timeout_ms * 3, &ev) != 0)
		goto out;
	c.id = ev->id;
	rdma_ack_cm_event(ev);
	if (lab_create_resources(&c, c.id, &caps) != 0 || ud_bufs_init(&c, &b, o) != 0)
		goto out;
	/* serve_wait() polls the completion channel beside the CM channel and
	 * must come back for a CM event: should a readable channel hold no
	 * completion event when it is taken (a spurious wake-up), taking it must
	 * not block */
	int fl = fcntl(c.channel->fd, F_GETFL);
	if (fl < 0 || fcntl(c.channel->fd, F_SETFL, fl | O_NONBLOCK) < 0) {
		perror("lab: fcntl O_NONBLOCK on the completion channel");
		goto out;
	}
	struct rdma_conn_param param = { .qp_num = c.qp->qp_num };
	if (rdma_accept(c.id, &param) != 0) { /* answers the SIDR request with our QPN and Q_Key */
		perror("lab: rdma_accept (UD)");
		goto out;
	}
	lab_phase("answered the service request: QPN %u", c.qp->qp_num);
	for (served = 0; served < o->count; served++) {
		struct ibv_wc wc;
		if (serve_wait(o, &c, &clients, IBV_WC_RECV, &wc) != 0)
			goto out;
		uint8_t *slot = b.mem + (size_t)wc.wr_id * b.slot;
		unsigned nth = sender_requests(&clients, &wc, slot);
		if (wc.byte_len != GRH + o->size || lab_check_pattern(slot + GRH, o->size, o->seed + nth) >= 0)
			bad++;
		/* The sender's address comes from the completion and the GRH area. */
		struct ibv_ah *ah = ibv_create_ah_from_wc(c.pd, &wc, (struct ibv_grh *)slot, c.id->port_num);
		if (!ah) {
			perror("lab: ibv_create_ah_from_wc");
			goto out;
		}
		lab_fill_pattern(send_slot(&b), o->size, o->seed + 100000 + nth);
		rc = ud_send(o, &c, &b, ah, wc.src_qp, UD_QKEY, served);
		struct ibv_wc sent;
		if (rc == 0)
			rc = serve_wait(o, &c, &clients, IBV_WC_SEND, &sent);
		ibv_destroy_ah(ah);
		if (rc != 0 || lab_post_recv(&c, wc.wr_id, slot, (uint32_t)b.slot, b.mr->lkey) != 0)
			goto out;
		rc = -1;
	}
	rc = 0;
out:
	if (res)
		freeaddrinfo(res);
	lab_result(o, rc == 0 && bad == 0, "requests=%u bad=%u", served, bad);
	for (unsigned i = 0; i < clients.nids; i++)
		rdma_destroy_id(clients.ids[i]);
	lab_release(&c, b.mr, b.mem);
	return rc == 0 && bad == 0 ? 0 : 1;
}

static int run_client(const struct lab_opts *o)
{
	struct lab_conn c = {0}; /* lab_destroy() after an early failure */
	struct ud_bufs b = { 0 };
	struct lab_qp_caps caps = { .type = IBV_QPT_UD, .send_wr = 8, .recv_wr = o->depth };
	struct addrinfo *res = NULL;
	struct rdma_cm_event *ev;
	struct ibv_ah *ah = NULL;
	unsigned done = 0, bad = 0;
	int rc = -1;
	if (lab_open_id(&c, &c.id, RDMA_PS_UDP) != 0 || lab_resolve_route(o, &c) != 0)
		goto out;
	if (lab_create_resources(&c, c.id, &caps) != 0 || ud_bufs_init(&c, &b, o) != 0)
		goto out;
	struct rdma_conn_param param = { .qp_num = c.qp->qp_num };
	lab_phase("asking %s port %s for its QP (SIDR)", o->addr, o->port);
	if (rdma_connect(c.id, &param) != 0 || lab_wait_event(&c, RDMA_CM_EVENT_ESTABLISHED, o->timeout_ms, &ev) != 0)
		goto out;
	uint32_t qpn = ev->param.ud.qp_num, qkey = ev->param.ud.qkey;
	ah = ibv_create_ah(c.pd, &ev->param.ud.ah_attr);
	rdma_ack_cm_event(ev);
	if (!ah) {
		perror("lab: ibv_create_ah");
		goto out;
	}
	lab_phase("server QPN %u, Q_Key 0x%x: sending %u requests", qpn, qkey, o->count);
	for (done = 0; done < o->count; done++) {
		struct ibv_wc wc;
		lab_fill_pattern(send_slot(&b), o->size, o->seed + done);
		if (ud_send(o, &c, &b, ah, qpn, qkey, done) != 0 || wait_for(o, &c, IBV_WC_RECV, &wc) != 0)
			goto out;
		uint8_t *slot = b.mem + (size_t)wc.wr_id * b.slot;
		if (wc.byte_len != GRH + o->size || lab_check_pattern(slot + GRH, o->size, o->seed + 100000 + done) >= 0)
			bad++;
		if (lab_post_recv(&c, wc.wr_id, slot, (uint32_t)b.slot, b.mr->lkey) != 0)
			goto out;
	}
	rc = 0;
out:
	if (res)
		freeaddrinfo(res);
	lab_result(o, rc == 0 && bad == 0, "replies=%u bad=%u", done, bad);
	if (ah)
		ibv_destroy_ah(ah);
	lab_release(&c, b.mr, b.mem);
	return rc == 0 && bad == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct lab_opts o;
	lab_parse_options(argc, argv, &o, "ud", "\nud: --size per datagram (256, at most the path MTU), --count requests (16), --depth (8)\n");
	if (!o.size)
		o.size = 256;
	if (!o.count)
		o.count = 16;
	if (!o.depth)
		o.depth = 8;
	if (o.server && o.depth > MAX_PENDING) {
		fprintf(stderr, "lab: the server keeps at most %d receives posted; --depth %u is %d\n", MAX_PENDING,
			o.depth, MAX_PENDING);
		o.depth = MAX_PENDING;
	}
	return o.server ? run_server(&o) : run_client(&o);
}

/*
 * Lab "herd": the HERD key-value store's transport trick.
 *
 * Requests travel by RDMA WRITE over an unreliable-connected (UC) QP
 * straight into a request slot in the server's memory: no receive, no
 * ACK, no completion at the server, which finds new requests by polling
 * its slots.  Replies go back as UD SENDs, one datagram each, so one server
 * QP can answer any number of clients.  Neither transport retransmits:
 * UC drops a message on any gap, UD drops a datagram, so the client times
 * out and reissues (HERD does the same).  Each try carries its attempt
 * number in the request's slot, so the server can tell a reissue of the
 * request it answered last (its reply was lost) and answer it again; the
 * client's WRITE one slot past the requests says it is done.
 *
 * Set-up: the UC connection comes from rdma_create_ep (a UC id must be
 * created as UC: RDMA CM puts the transport type in its REQ) and carries
 * the request-slot capability in its private data; the client finds the
 * server's UD QP with a SIDR request on port + 1 and introduces itself
 * with a hello datagram, from which the server makes the address handle
 * for its replies.
 */
#include <endian.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/rdma_verbs.h>

#include "lab_common.h"

#define GRH 40
#define SLOT 64            /* one request: 8-byte sequence number, then the key */
#define UD_QKEY 0x01234567u

struct request {
	uint64_t seq_be;   /* written last by the client's WRITE (one packet: ordered): the
			    * sequence number (from 1) in the low 48 bits, the attempt in the
			    * high 16, so that the server sees a reissue of a request it has
			    * answered (its reply was lost) and answers it again */
	uint8_t key[SLOT - 8];
};

#define SEQ_MASK ((UINT64_C(1) << 48) - 1)
#define ATTEMPT_SHIFT 48
#define TRIES 5            /* the client's tries of one request, */
#define TRY_MS 500         /* each waiting this long for the reply */

/* The UD side (both roles): QP, receive slots, one send slot. */
struct ud_side {
	struct lab_conn c;
	uint8_t *mem;
	struct ibv_mr *mr;
	unsigned depth;
};

static int ud_post_recv(struct ud_side *u, unsigned i)
{
	return lab_post_recv(&u->c, i, u->mem + (size_t)i * (GRH + SLOT), GRH + SLOT, u->mr->lkey);
}

static int ud_setup(struct ud_side *u, struct rdma_cm_id *id, unsigned depth)
{
	struct lab_qp_caps caps = { .type = IBV_QPT_UD, .send_wr = 8, .recv_wr = depth };
	u->depth = depth;
	if (lab_create_resources(&u->c, id, &caps) != 0)
		return -1;
	u->mem = calloc(depth + 1, GRH + SLOT);
	if (!u->mem || !(u->mr = lab_reg_mr(&u->c, u->mem, (size_t)(depth + 1) * (GRH + SLOT), IBV_ACCESS_LOCAL_WRITE)))
		return -1;
	for (unsigned i = 0; i < depth; i++)
		if (ud_post_recv(u, i) != 0)
			return -1;
	return 0;
}

static int ud_send(struct ud_side *u, struct ibv_ah *ah, uint32_t qpn, const void *msg, uint32_t len, uint64_t wr_id)
{
	uint8_t *slot = u->mem + (size_t)u->depth * (GRH + SLOT);
	memcpy(slot, msg, len);
	struct ibv_sge sge = { .addr = (uintptr_t)slot, .length = len, .lkey = u->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = qpn;
	wr.wr.ud.remote_qkey = UD_QKEY;
	int rc = ibv_post_send(u->c.qp, &wr, &bad);
	if (rc) {
		fprintf(stderr, "lab: UD send: %s\n", strerror(rc));
		return -1;
	}
	return 0;
}

static void ud_free(struct ud_side *u)
{
	if (u->mr)
		ibv_dereg_mr(u->mr);
	lab_destroy(&u->c);
	free(u->mem);
}

/* The reply to request seq: the key, reversed. */
static void make_reply(const struct request *rq, uint64_t seq, struct request *reply)
{
	reply->seq_be = htobe64(seq);
	for (size_t i = 0; i < sizeof(rq->key); i++)
		reply->key[i] = rq->key[sizeof(rq->key) - 1 - i];
}

/* The UC endpoint's address: RDMA CM's IB port space, the one whose
 * connections take the QP type asked for (in the TCP port space the
 * kernel's RDMA CM makes every connection RC, and accepting it on a UC QP
 * fails with EINVAL). */
static struct rdma_addrinfo *uc_addrinfo(const struct lab_opts *o, bool passive)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_IB, .ai_qp_type = IBV_QPT_UC,
				       .ai_flags = passive ? RAI_PASSIVE : 0 }, *res = NULL;
	if (rdma_getaddrinfo(o->addr, o->port, &hints, &res) != 0) {
		fprintf(stderr, "lab: rdma_getaddrinfo %s:%s: %s\n", o->addr, o->port, strerror(errno));
		return NULL;
	}
	return res;
}

static int run_server(const struct lab_opts *o)
{
	struct rdma_cm_id *uc_listen = NULL, *uc = NULL;
	struct rdma_addrinfo *rai = NULL;
	struct ud_side ud;
	struct addrinfo *res = NULL;
	struct rdma_cm_event *ev;
	struct request *slots = NULL;
	struct ibv_mr *slots_mr = NULL;
	struct ibv_ah *client_ah = NULL;
	struct lab_opts udo = *o;
	char udport[16];
	unsigned served = 0, resent = 0;
	int rc = -1;
	memset(&ud, 0, sizeof(ud));

	/* The UD service, on port + 1. */
	snprintf(udport, sizeof(udport), "%d", atoi(o->port) + 1);
	udo.port = udport;
	if (lab_open_id(&ud.c, &ud.c.listen_id, RDMA_PS_UDP) != 0 || lab_resolve(&udo, &res) != 0 ||
	    rdma_bind_addr(ud.c.listen_id, res->ai_addr) != 0 || rdma_listen(ud.c.listen_id, 4) != 0) {
		perror("lab: UD service");
		goto out;
	}
	/* The UC endpoint: synchronous, created as UC. */
	struct ibv_qp_init_attr uc_attr = { .qp_type = IBV_QPT_UC, .cap = { .max_send_wr = 4, .max_recv_wr = 4,
						.max_send_sge = 1, .max_recv_sge = 1 }, .sq_sig_all = 0 };
	if (!(rai = uc_addrinfo(o, true)) || rdma_create_ep(&uc_listen, rai, NULL, NULL) != 0 || rdma_listen(uc_listen, 1) != 0) {
		perror("lab: UC endpoint");
		goto out;
	}
	lab_phase("requests by UC WRITE on port %s, replies by UD from port %s", o->port, udport);
	printf("lab: server ready\n");
	fflush(stdout);

	if (rdma_get_request(uc_listen, &uc) != 0) {
		perror("lab: rdma_get_request");
		goto out;
	}
	if (rdma_create_qp(uc, NULL, &uc_attr) != 0) {
		perror("lab: rdma_create_qp (UC)");
		goto out;
	}
	/* one slot per request, and one more where the client says it is done */
	slots = calloc(o->count + 1u, sizeof(*slots));
	if (!slots || !(slots_mr = ibv_reg_mr(uc->qp->pd, slots, (o->count + 1u) * sizeof(*slots),
					      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE))) {
		perror("lab: request slots");
		goto out;
	}
	struct lab_cap cap;
	lab_cap_pack(&cap, slots_mr, (o->count + 1u) * sizeof(*slots));
	struct rdma_conn_param param = { .private_data = &cap, .private_data_len = sizeof(cap) };
	if (rdma_accept(uc, &param) != 0) {
		perror("lab: rdma_accept (UC)");
		goto out;
	}
	lab_phase("UC connection up (QP %u): %u request slots", uc->qp->qp_num, o->count);

	/* The client's SIDR request, then its hello datagram. */
	if (lab_wait_event(&ud.c, RDMA_CM_EVENT_CONNECT_REQUEST, o->timeout_ms, &ev) != 0)
		goto out;
	ud.c.id = ev->id;
	rdma_ack_cm_event(ev);
	if (ud_setup(&ud, ud.c.id, 4) != 0)
		goto out;
	struct rdma_conn_param udparam = { .qp_num = ud.c.qp->qp_num };
	if (rdma_accept(ud.c.id, &udparam) != 0)
		goto out;
	struct ibv_wc wc;
	if (lab_poll(&ud.c, &wc, o->timeout_ms) <= 0 || wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_RECV) {
		fprintf(stderr, "lab: no hello datagram from the client\n");
		goto out;
	}
	uint8_t *hello = ud.mem + (size_t)wc.wr_id * (GRH + SLOT);
	client_ah = ibv_create_ah_from_wc(ud.c.pd, &wc, (struct ibv_grh *)hello, ud.c.id->port_num);
	uint32_t client_qpn = wc.src_qp;
	if (!client_ah || ud_post_recv(&ud, (unsigned)wc.wr_id) != 0)
		goto out;
	lab_phase("client UD QP %u said hello", client_qpn);

	/* Serve: poll the slots for the next sequence number, reply by UD.  A
	 * request answered last that comes again (another attempt in its slot)
	 * lost its reply: answer it again.  After the last one, keep doing so
	 * until the client says it is done (or could not be waiting any more).
	 * Give up after three timeouts without a request. */
	uint64_t deadline = lab_now_ms() + (uint64_t)o->timeout_ms * 3, linger = 0;
	unsigned last_attempt = 0;
	while (lab_now_ms() < deadline) {
		uint64_t prev = served ? be64toh(__atomic_load_n(&slots[served - 1].seq_be, __ATOMIC_ACQUIRE)) : 0;
		uint64_t next = be64toh(__atomic_load_n(&slots[served].seq_be, __ATOMIC_ACQUIRE));
		unsigned idx;
		if (served && (unsigned)(prev >> ATTEMPT_SHIFT) != last_attempt) {
			idx = served - 1; /* a reissue */
			last_attempt = (unsigned)(prev >> ATTEMPT_SHIFT);
			resent++;
		} else if (served < o->count && (next & SEQ_MASK) == served + 1u) {
			idx = served++;
			last_attempt = (unsigned)(next >> ATTEMPT_SHIFT);
		} else if (served == o->count && ((next & SEQ_MASK) == served + 1u ||
						  (linger && lab_now_ms() >= linger))) {
			break; /* the client is done */
		} else {
			if (served == o->count && !linger)
				linger = lab_now_ms() + TRIES * TRY_MS + 500;
			usleep(50);
			continue;
		}
		struct request reply;
		make_reply((const struct request *)&slots[idx], idx + 1u, &reply);
		if (ud_send(&ud, client_ah, client_qpn, &reply, sizeof(reply), idx) != 0)
			goto out;
		if (lab_poll(&ud.c, &wc, o->timeout_ms) <= 0 || wc.status != IBV_WC_SUCCESS)
			goto out;
		deadline = lab_now_ms() + (uint64_t)o->timeout_ms * 3; /* the client is still there */
	}
	rc = served == o->count ? 0 : -1;
	rdma_disconnect(uc);
out:
	lab_result(o, rc == 0, "requests_served=%u replies_resent=%u", served, resent);
	if (client_ah)
		ibv_destroy_ah(client_ah);
	if (slots_mr)
		ibv_dereg_mr(slots_mr);
	if (uc)
		rdma_destroy_ep(uc);
	if (uc_listen)
		rdma_destroy_ep(uc_listen);
	if (rai)
		rdma_freeaddrinfo(rai);
	if (res)
		freeaddrinfo(res);
	ud_free(&ud);
	free(slots);
	return rc == 0 ? 0 : 1;
}

static int run_client(const struct lab_opts *o)
{
	struct rdma_cm_id *uc = NULL;
	struct rdma_addrinfo *rai = NULL;
	struct ud_side ud;
	struct addrinfo *res = NULL;
	struct rdma_cm_event *ev;
	struct ibv_ah *server_ah = NULL;
	struct ibv_mr *req_mr = NULL;
	struct request *req = NULL;
	struct lab_opts udo = *o;
	char udport[16];
	unsigned done = 0, reissued = 0, wrong = 0;
	int rc = -1;
	memset(&ud, 0, sizeof(ud));

	struct ibv_qp_init_attr uc_attr = { .qp_type = IBV_QPT_UC, .cap = { .max_send_wr = 16, .max_recv_wr = 4,
						.max_send_sge = 1, .max_recv_sge = 1 }, .sq_sig_all = 0 };
	if (!(rai = uc_addrinfo(o, false)) || rdma_create_ep(&uc, rai, NULL, &uc_attr) != 0) {
		perror("lab: UC endpoint");
		goto out;
	}
	if (rdma_connect(uc, NULL) != 0) {
		perror("lab: rdma_connect (UC)");
		goto out;
	}
	if (uc->event == NULL || uc->event->param.conn.private_data_len < sizeof(struct lab_cap)) {
		fprintf(stderr, "lab: the server sent no request-slot capability\n");
		goto out;
	}
	uint64_t raddr;
	uint32_t rkey, rlen;
	lab_cap_unpack(uc->event->param.conn.private_data, &raddr, &rkey, &rlen);
	lab_phase("UC connection up (QP %u): slots at 0x%llx rkey 0x%x", uc->qp->qp_num, (unsigned long long)raddr, rkey);
	req = calloc(1, sizeof(*req));
	if (!req || !(req_mr = ibv_reg_mr(uc->qp->pd, req, sizeof(*req), IBV_ACCESS_LOCAL_WRITE)))
		goto out;

	/* The server's UD QP by SIDR, and a hello so it knows where to reply. */
	snprintf(udport, sizeof(udport), "%d", atoi(o->port) + 1);
	udo.port = udport;
	if (lab_open_id(&ud.c, &ud.c.id, RDMA_PS_UDP) != 0 || lab_resolve_route(&udo, &ud.c) != 0)
		goto out;
	if (ud_setup(&ud, ud.c.id, 8) != 0)
		goto out;
	struct rdma_conn_param udparam = { .qp_num = ud.c.qp->qp_num };
	if (rdma_connect(ud.c.id, &udparam) != 0 || lab_wait_event(&ud.c, RDMA_CM_EVENT_ESTABLISHED, o->timeout_ms, &ev) != 0)
		goto out;
	uint32_t server_qpn = ev->param.ud.qp_num;
	server_ah = ibv_create_ah(ud.c.pd, &ev->param.ud.ah_attr);
	rdma_ack_cm_event(ev);
	struct ibv_wc wc;
	if (!server_ah || ud_send(&ud, server_ah, server_qpn, "hello", 6, 0) != 0 || lab_poll(&ud.c, &wc, o->timeout_ms) <= 0)
		goto out;

	lab_phase("%u requests by UC WRITE, replies by UD", o->count);
	for (done = 0; done < o->count; done++) {
		uint64_t seq = done + 1u;
		lab_fill_pattern(req->key, sizeof(req->key), o->seed + done);
		req->seq_be = htobe64(seq);
		struct request want;
		make_reply(req, seq, &want);
		bool answered = false;
		for (int attempt = 0; attempt < TRIES && !answered; attempt++) {
			if (attempt)
				reissued++;
			req->seq_be = htobe64(seq | (uint64_t)attempt << ATTEMPT_SHIFT);
			/* One packet, unsignaled: UC reports nothing back for a WRITE. */
			if (rdma_post_write(uc, NULL, req, sizeof(*req), req_mr, 0, raddr + (uint64_t)done * sizeof(*req), rkey) != 0)
				goto out;
			uint64_t until = lab_now_ms() + TRY_MS;
			while (!answered && lab_now_ms() < until) {
				if (lab_poll(&ud.c, &wc, 100) <= 0 || wc.opcode != IBV_WC_RECV)
					continue;
				uint8_t *slot = ud.mem + (size_t)wc.wr_id * (GRH + SLOT);
				struct request *reply = (struct request *)(slot + GRH);
				if (be64toh(reply->seq_be) == seq) {
					answered = true;
					wrong += memcmp(reply, &want, sizeof(want)) != 0;
				}
				if (ud_post_recv(&ud, (unsigned)wc.wr_id) != 0)
					goto out;
			}
		}
		if (!answered) {
			fprintf(stderr, "lab: request %llu got no reply after %d tries\n", (unsigned long long)seq, TRIES);
			goto out;
		}
	}
	/* done: the slot after the last request (if this WRITE is lost, the
	 * server waits as long as a reissue could still come) */
	req->seq_be = htobe64((uint64_t)o->count + 1u);
	if (rdma_post_write(uc, NULL, req, sizeof(*req), req_mr, IBV_SEND_SIGNALED,
			    raddr + (uint64_t)o->count * sizeof(*req), rkey) != 0 ||
	    rdma_get_send_comp(uc, &wc) <= 0) /* sent before the disconnect flushes the queue */
		goto out;
	rc = 0;
out:
	lab_result(o, rc == 0 && wrong == 0, "requests=%u reissued=%u wrong_replies=%u", done, reissued, wrong);
	if (server_ah)
		ibv_destroy_ah(server_ah);
	if (req_mr)
		ibv_dereg_mr(req_mr);
	if (uc) {
		rdma_disconnect(uc);
		rdma_destroy_ep(uc);
	}
	if (rai)
		rdma_freeaddrinfo(rai);
	if (res)
		freeaddrinfo(res);
	ud_free(&ud);
	free(req);
	return rc == 0 && wrong == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct lab_opts o;
	lab_parse_options(argc, argv, &o, "herd",
			  "\nherd: --count requests (32); uses --port and --port + 1; the client reissues a request\n"
			  "after 500 ms without its reply (5 tries), the server answers a reissue again\n");
	if (!o.count)
		o.count = 32;
	return o.server ? run_server(&o) : run_client(&o);
}

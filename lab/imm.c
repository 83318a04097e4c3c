/*
 * Lab "imm": RDMA WRITE_WITH_IMM as a doorbell, the rendezvous / inference
 * batch pattern.  The client writes each batch straight into the server's
 * memory and tags it with a 32-bit immediate (the batch id).  The data
 * needs no receive buffer, but the immediate does: each WRITE_WITH_IMM
 * consumes one posted RECV at the server and produces a completion there
 * (IBV_WC_RECV_RDMA_WITH_IMM) carrying the id.  A server that has no RECV
 * posted answers with an RNR NAK; try --post-delay-ms to see it.
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lab_common.h"

struct server_state {
	const struct lab_opts *o;
	uint8_t *buf;
	size_t len;
	struct ibv_mr *mr;
};

static int post_doorbells(struct lab_conn *c, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (lab_post_recv(c, 1000 + i, NULL, 0, 0) != 0)
			return -1;
	return 0;
}

static int server_setup(struct lab_conn *c, void *arg, void *priv, uint8_t *priv_len)
{
	struct server_state *s = arg;
	s->mr = lab_offer_region(c, s->buf, s->len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, priv, priv_len);
	if (!s->mr)
		return -1;
	if (s->o->post_delay_ms == 0) {
		lab_phase("posting %u receives for the immediates", s->o->depth);
		if (post_doorbells(c, s->o->depth) != 0)
			return -1;
	}
	return 0;
}

static int run_server(const struct lab_opts *o)
{
	struct server_state s = { .o = o, .len = (size_t)o->size * o->count };
	struct lab_conn c = {0}; /* lab_destroy() after an early failure */
	struct lab_qp_caps caps = { .send_wr = 4, .recv_wr = o->depth };
	unsigned got = 0, bad = 0;
	s.buf = calloc(1, s.len);
	if (!s.buf)
		return 1;
	int rc = lab_server_accept(o, &c, &caps, server_setup, &s);
	if (rc == 0 && o->post_delay_ms) {
		usleep(o->post_delay_ms * 1000u);
		lab_phase("posting %u receives %u ms late", o->depth, o->post_delay_ms);
		rc = post_doorbells(&c, o->depth);
	}
	while (rc == 0 && got < o->count) {
		struct ibv_wc wc;
		char text[128];
		if (lab_poll(&c, &wc, o->timeout_ms) <= 0) {
			fprintf(stderr, "lab: no batch arrived within %d ms\n", o->timeout_ms);
			rc = -1;
			break;
		}
		if (wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_RECV_RDMA_WITH_IMM || !(wc.wc_flags & IBV_WC_WITH_IMM)) {
			fprintf(stderr, "lab: unexpected completion: %s\n", lab_wc_text(&wc, text, sizeof(text)));
			rc = -1;
			break;
		}
		uint32_t batch = be32toh(wc.imm_data);
		if (batch >= o->count || lab_check_pattern(s.buf + (size_t)batch * o->size, o->size, o->seed + batch) >= 0) {
			fprintf(stderr, "lab: batch %u arrived with wrong data\n", batch);
			bad++;
		}
		lab_phase("batch %u ready (%u bytes)", batch, wc.byte_len);
		got++;
		if (post_doorbells(&c, 1) != 0)
			rc = -1;
	}
	if (rc == 0)
		lab_wait_disconnect(&c, lab_run_limit_ms(o));
	bool ok = rc == 0 && bad == 0 && got == o->count;
	lab_result(o, ok, "batches=%u bad=%u", got, bad);
	lab_release(&c, s.mr, s.buf);
	return ok ? 0 : 1;
}

static int run_client(const struct lab_opts *o)
{
	struct lab_conn c = {0}; /* lab_destroy() after an early failure */
	struct lab_qp_caps caps = { .send_wr = 16, .recv_wr = 4 };
	uint8_t *buf = malloc(o->size);
	struct ibv_mr *mr = NULL;
	unsigned sent = 0;
	bool ok = false;
	uint64_t raddr;
	uint32_t rkey, rlen;
	if (!buf || lab_client_connect(o, &c, &caps, NULL, NULL) != 0 || lab_peer_cap(&c, &raddr, &rkey, &rlen) != 0)
		goto done;
	if (rlen < o->size * o->count) {
		fprintf(stderr, "lab: the server's buffer is smaller than size x count\n");
		goto done;
	}
	mr = lab_reg_mr(&c, buf, o->size, IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		goto done;
	for (sent = 0; sent < o->count; sent++) {
		struct ibv_wc wc;
		char text[128];
		lab_fill_pattern(buf, o->size, o->seed + sent);
		lab_phase("batch %u: WRITE_WITH_IMM %llu bytes, imm=%u", sent, (unsigned long long)o->size, sent);
		if (lab_post_send(&c, IBV_WR_RDMA_WRITE_WITH_IMM, sent, buf, (uint32_t)o->size, mr->lkey,
				  raddr + (uint64_t)sent * o->size, rkey, sent, true) != 0)
			goto done;
		if (lab_poll(&c, &wc, o->timeout_ms) <= 0 || wc.status != IBV_WC_SUCCESS) {
			fprintf(stderr, "lab: batch %u failed: %s\n", sent, lab_wc_text(&wc, text, sizeof(text)));
			goto done;
		}
	}
	ok = true;
	lab_disconnect(&c, o->timeout_ms);
done:
	lab_result(o, ok, "batches=%u", sent);
	lab_release(&c, mr, buf);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct lab_opts o;
	lab_parse_options(argc, argv, &o, "imm", "\nimm: --size per batch (4096), --count batches (8), --depth receives (count)\n");
	if (!o.size)
		o.size = 4096;
	if (!o.count)
		o.count = 8;
	if (!o.depth)
		o.depth = o.count < 64 ? o.count : 64;
	return o.server ? run_server(&o) : run_client(&o);
}

/*
 * Lab "atomics": remote counters with FETCH_AND_ADD and COMPARE_AND_SWAP.
 *
 * The server exposes two 8-byte counters (REMOTE_ATOMIC access).  The
 * client adds 1 to the first --count times, each time getting back the
 * value before the add, and advances the second with compare-and-swap
 * (compare i, swap i+1), each time getting back the old value.  Atomics
 * are answered by an RC Atomic Acknowledge that carries the original
 * value; the server's CPU never sees them.
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab_common.h"

struct server_state {
	uint64_t *counters; /* [0] fetch-and-add, [1] compare-and-swap */
	struct ibv_mr *mr;
};

static int server_setup(struct lab_conn *c, void *arg, void *priv, uint8_t *priv_len)
{
	struct server_state *s = arg;
	s->mr = lab_offer_region(c, s->counters, 2 * sizeof(uint64_t),
				 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_REMOTE_READ, priv, priv_len);
	return s->mr ? 0 : -1;
}

static int run_server(const struct lab_opts *o)
{
	struct server_state s;
	struct lab_conn c = {0}; /* lab_destroy() after an early failure */
	struct lab_qp_caps caps = { .send_wr = 4, .recv_wr = 4 };
	s.counters = aligned_alloc(8, 2 * sizeof(uint64_t));
	s.mr = NULL;
	if (!s.counters)
		return 1;
	s.counters[0] = s.counters[1] = 0;
	int rc = lab_server_accept(o, &c, &caps, server_setup, &s);
	if (rc == 0)
		rc = lab_wait_disconnect(&c, lab_run_limit_ms(o));
	bool ok = rc == 0 && s.counters[0] == o->count && s.counters[1] == o->count;
	lab_result(o, ok, "fetch_add=%llu compare_swap=%llu expected=%u", (unsigned long long)s.counters[0],
		   (unsigned long long)s.counters[1], o->count);
	lab_release(&c, s.mr, s.counters);
	return ok ? 0 : 1;
}

/* One atomic and its completion; the old value lands in *result. */
static int atomic_op(const struct lab_opts *o, struct lab_conn *c, enum ibv_wr_opcode op, uint64_t wr_id,
		     uint64_t *result, uint32_t lkey, uint64_t raddr, uint32_t rkey, uint64_t compare_add,
		     uint64_t swap)
{
	struct ibv_sge sge = { .addr = (uintptr_t)result, .length = 8, .lkey = lkey };
	struct ibv_send_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	wr.wr.atomic.remote_addr = raddr;
	wr.wr.atomic.rkey = rkey;
	wr.wr.atomic.compare_add = compare_add;
	wr.wr.atomic.swap = swap;
	int rc = ibv_post_send(c->qp, &wr, &bad);
	if (rc) {
		fprintf(stderr, "lab: ibv_post_send (atomic): %s\n", strerror(rc));
		return -1;
	}
	struct ibv_wc wc;
	char text[128];
	if (lab_poll(c, &wc, o->timeout_ms) <= 0 || wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "lab: atomic %llu failed: %s\n", (unsigned long long)wr_id, lab_wc_text(&wc, text, sizeof(text)));
		return -1;
	}
	return 0;
}

static int run_client(const struct lab_opts *o)
{
	struct lab_conn c = {0}; /* lab_destroy() after an early failure */
	struct lab_qp_caps caps = { .send_wr = 8, .recv_wr = 4 };
	uint64_t *result = aligned_alloc(8, sizeof(uint64_t));
	struct ibv_mr *mr = NULL;
	unsigned i = 0, wrong = 0;
	bool ok = false;
	uint64_t raddr;
	uint32_t rkey, rlen;
	if (!result || lab_client_connect(o, &c, &caps, NULL, NULL) != 0 || lab_peer_cap(&c, &raddr, &rkey, &rlen) != 0)
		goto out;
	mr = lab_reg_mr(&c, result, sizeof(uint64_t), IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		goto out;
	lab_phase("%u fetch-and-add and %u compare-and-swap operations", o->count, o->count);
	for (i = 0; i < o->count; i++) {
		if (atomic_op(o, &c, IBV_WR_ATOMIC_FETCH_AND_ADD, 2 * i, result, mr->lkey, raddr, rkey, 1, 0) != 0)
			goto out;
		wrong += *result != i;
		if (atomic_op(o, &c, IBV_WR_ATOMIC_CMP_AND_SWP, 2 * i + 1, result, mr->lkey, raddr + 8, rkey, i, i + 1) != 0)
			goto out;
		wrong += *result != i;
	}
	ok = wrong == 0;
	lab_disconnect(&c, o->timeout_ms);
out:
	lab_result(o, ok, "operations=%u wrong_old_values=%u", 2 * i, wrong);
	lab_release(&c, mr, result);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct lab_opts o;
	lab_parse_options(argc, argv, &o, "atomics", "\natomics: --count operations of each kind (16)\n");
	if (!o.count)
		o.count = 16;
	return o.server ? run_server(&o) : run_client(&o);
}

/*
 * Lab "minimal": the smallest complete one-sided RDMA exchange.
 *
 * The server registers a buffer and hands the client a capability for it,
 * {addr, rkey, length}, in the RDMA CM private data of its accept.  The
 * client RDMA WRITEs a pattern into that buffer, then RDMA READs it back
 * and checks it (--count rounds, each with the next pattern); the server, which never touches the data path, checks its
 * buffer after the client disconnects.  On the wire: CM REQ/REP/RTU, the
 * WRITE as ceil(size/MTU) packets and its ACK, the READ request and its
 * responses, DREQ/DREP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab_common.h"

static int run_server(const struct lab_opts *o)
{
	struct lab_region s = { .len = o->size,
				.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ };
	struct lab_conn c = {0}; /* lab_destroy() after an early failure */
	struct lab_qp_caps caps = { .send_wr = 4, .recv_wr = 4 };
	int rc = lab_accept_region(o, &c, &caps, &s);
	if (!s.buf)
		return 1;
	if (rc == 0) {
		lab_phase("waiting for the client to finish");
		rc = lab_wait_disconnect(&c, lab_run_limit_ms(o));
	}
	/* the client's last round wrote the pattern of seed + count - 1 */
	long bad = lab_check_pattern(s.buf, s.len, o->seed + (o->count > 1 ? o->count - 1 : 0));
	lab_result(o, rc == 0 && bad < 0, "bytes=%zu first_bad_byte=%ld", s.len, bad);
	lab_release(&c, s.mr, s.buf);
	return rc == 0 && bad < 0 ? 0 : 1;
}

/* Post one one-sided operation and wait for its completion. */
static int one_sided(const struct lab_opts *o, struct lab_conn *c, enum ibv_wr_opcode op, uint64_t wr_id,
		     uint8_t *buf, size_t len, uint32_t lkey, uint64_t raddr, uint32_t rkey)
{
	struct ibv_wc wc;
	char text[128];
	if (lab_post_send(c, op, wr_id, buf, (uint32_t)len, lkey, raddr, rkey, 0, true) != 0)
		return -1;
	int rc = lab_poll(c, &wc, o->timeout_ms);
	if (rc <= 0) {
		fprintf(stderr, "lab: no completion for wr %llu within %d ms\n", (unsigned long long)wr_id, o->timeout_ms);
		return -1;
	}
	if (wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "lab: %s\n", lab_wc_text(&wc, text, sizeof(text)));
		return -1;
	}
	return 0;
}

static int run_client(const struct lab_opts *o)
{
	struct lab_conn c = {0}; /* lab_destroy() after an early failure */
	struct lab_qp_caps caps = { .send_wr = 4, .recv_wr = 4 };
	uint8_t *out = malloc(o->size), *back = calloc(1, o->size);
	struct ibv_mr *out_mr = NULL, *back_mr = NULL;
	int ok = 0;
	if (!out || !back)
		goto done;
	if (lab_client_connect(o, &c, &caps, NULL, NULL) != 0)
		goto done;
	uint64_t raddr;
	uint32_t rkey, rlen;
	if (lab_peer_cap(&c, &raddr, &rkey, &rlen) != 0)
		goto done;
	if (rlen < o->size) {
		fprintf(stderr, "lab: the server's buffer (%u bytes) is smaller than --size\n", rlen);
		goto done;
	}
	out_mr = lab_reg_mr(&c, out, o->size, IBV_ACCESS_LOCAL_WRITE);
	back_mr = lab_reg_mr(&c, back, o->size, IBV_ACCESS_LOCAL_WRITE);
	if (!out_mr || !back_mr)
		goto done;
	/* --count rounds of WRITE then READ back, each with the next pattern */
	unsigned rounds = o->count ? o->count : 1, matched = 0;
	for (unsigned r = 0; r < rounds; r++) {
		lab_fill_pattern(out, o->size, o->seed + r);
		lab_phase("RDMA WRITE %llu bytes", (unsigned long long)o->size);
		if (one_sided(o, &c, IBV_WR_RDMA_WRITE, 2 * r + 1, out, o->size, out_mr->lkey, raddr, rkey) != 0)
			goto done;
		lab_phase("RDMA READ %llu bytes back", (unsigned long long)o->size);
		memset(back, 0, o->size);
		if (one_sided(o, &c, IBV_WR_RDMA_READ, 2 * r + 2, back, o->size, back_mr->lkey, raddr, rkey) != 0)
			goto done;
		matched += lab_check_pattern(back, o->size, o->seed + r) < 0;
	}
	ok = matched == rounds;
	lab_phase("disconnecting");
	lab_disconnect(&c, o->timeout_ms);
done:
	lab_result(o, ok, "bytes=%llu read_back=%s", (unsigned long long)o->size, ok ? "match" : "mismatch");
	if (out_mr)
		ibv_dereg_mr(out_mr);
	lab_release(&c, back_mr, out);
	free(back);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct lab_opts o;
	lab_parse_options(argc, argv, &o, "minimal", "\nminimal: --size (default 4096), --count rounds of WRITE and READ back (default 1)\n");
	if (o.size == 0)
		o.size = 4096;
	return o.server ? run_server(&o) : run_client(&o);
}

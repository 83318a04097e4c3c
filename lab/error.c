/*
 * Lab "error": what a bad capability does.
 *
 * The client RDMA WRITEs with a wrong rkey (--mode rkey, the default) or
 * past the end of the server's buffer (--mode bounds).  The responder
 * answers with a NAK "remote access error"; the requester completes that
 * WRITE with IBV_WC_REM_ACCESS_ERR, its QP goes to the error state, and
 * every work request still queued behind it completes with
 * IBV_WC_WR_FLUSH_ERR.  The scenario succeeds when exactly that happens.
 *
 * --mode overflow is the other common mistake: more WRs than the send queue
 * holds (max_send_wr) posted before any leaves it (here unsignaled WRITEs,
 * good ones, in one call); the WR after max_send_wr of them is refused with
 * ENOMEM, which is what the scenario expects.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab_common.h"

static int run_server(const struct lab_opts *o)
{
	struct lab_region s = { .len = o->size, .access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE };
	struct lab_conn c = {0}; /* lab_destroy() after an early failure */
	struct lab_qp_caps caps = { .send_wr = 4, .recv_wr = 4 };
	bool overflow = lab_mode_is(o, "overflow"); /* the client's WRITEs are good ones */
	int rc = lab_accept_region(o, &c, &caps, &s);
	if (!s.buf)
		return 1;
	if (rc == 0)
		rc = lab_wait_disconnect(&c, lab_run_limit_ms(o));
	/* Nothing may have been written: the bad WRITE is rejected before it touches memory. */
	size_t touched = 0;
	const uint8_t *bytes = s.buf;
	for (size_t i = 0; i < s.len; i++)
		touched += bytes[i] != 0;
	bool ok = rc == 0 && (overflow || touched == 0);
	lab_result(o, ok, "bytes_changed=%zu", touched);
	lab_release(&c, s.mr, s.buf);
	return ok ? 0 : 1;
}

/* max_send_wr + 2 unsignaled WRITEs in one ibv_post_send: the queue holds
 * max_send_wr of them, the provider refuses the next with ENOMEM (*bad
 * points there).  One call, so that no completion frees a slot meanwhile
 * (uroce and rxe free a slot once the WR is acknowledged, polled or not). */
static bool overflow_send_queue(struct lab_conn *c, void *buf, uint32_t len, uint32_t lkey, uint64_t raddr,
				uint32_t rkey)
{
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qia;
	unsigned cap = 8;
	if (ibv_query_qp(c->qp, &qa, IBV_QP_CAP, &qia) == 0)
		cap = qia.cap.max_send_wr;
	unsigned n = cap + 2;
	struct ibv_send_wr *wrs = calloc(n, sizeof(*wrs)), *bad = NULL;
	struct ibv_sge sge = {.addr = (uintptr_t)buf, .length = len, .lkey = lkey};
	if (!wrs)
		return false;
	for (unsigned i = 0; i < n; i++) {
		wrs[i].wr_id = i + 1;
		wrs[i].sg_list = &sge;
		wrs[i].num_sge = 1;
		wrs[i].opcode = IBV_WR_RDMA_WRITE;
		wrs[i].wr.rdma.remote_addr = raddr;
		wrs[i].wr.rdma.rkey = rkey;
		wrs[i].next = i + 1 < n ? &wrs[i + 1] : NULL;
	}
	lab_phase("%u unsignaled WRITEs in one post into a send queue of %u", n, cap);
	int err = ibv_post_send(c->qp, wrs, &bad);
	unsigned posted = bad ? (unsigned)(bad - wrs) : n;
	printf("lab: %u posted, then %s\n", posted, err ? strerror(err) : "no error");
	free(wrs);
	return posted == cap && err == ENOMEM;
}

static int run_client(const struct lab_opts *o)
{
	struct lab_conn c = {0}; /* lab_destroy() after an early failure */
	struct lab_qp_caps caps = { .send_wr = 8, .recv_wr = 4 };
	uint8_t *buf = malloc(o->size);
	bool overflow = lab_mode_is(o, "overflow");
	if (overflow)
		caps.send_wr = 6; /* a size no provider makes: the queue is as deep as it grants (uroce 8, rxe 7) */
	struct ibv_mr *mr = NULL;
	bool bounds = lab_mode_is(o, "bounds"), ok = false;
	int access_err = 0, flushed = 0, other = 0;
	uint64_t raddr;
	uint32_t rkey, rlen;
	if (!buf || lab_client_connect(o, &c, &caps, NULL, NULL) != 0 || lab_peer_cap(&c, &raddr, &rkey, &rlen) != 0)
		goto out;
	lab_fill_pattern(buf, o->size, o->seed);
	mr = lab_reg_mr(&c, buf, o->size, IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		goto out;
	if (overflow) {
		ok = overflow_send_queue(&c, buf, (uint32_t)(o->size < rlen ? o->size : rlen), mr->lkey, raddr, rkey);
		lab_disconnect(&c, o->timeout_ms);
		goto out;
	}
	if (bounds) {
		raddr += rlen / 2; /* the second half of the WRITE falls outside the region */
		lab_phase("WRITE %llu bytes at offset %u of a %u-byte region", (unsigned long long)o->size, rlen / 2, rlen);
	} else {
		rkey ^= 0x5a5a00u;
		lab_phase("WRITE with a wrong rkey 0x%x", rkey);
	}
	/* The bad WRITE, then two good-looking ones queued behind it. */
	for (uint64_t i = 0; i < 3; i++)
		if (lab_post_send(&c, IBV_WR_RDMA_WRITE, i + 1, buf, (uint32_t)o->size, mr->lkey, raddr, rkey, 0, true) != 0)
			goto out;
	for (int n = 0; n < 3; n++) {
		struct ibv_wc wc;
		char text[128];
		if (lab_poll(&c, &wc, o->timeout_ms) <= 0) {
			fprintf(stderr, "lab: completion %d of 3 did not arrive\n", n + 1);
			break;
		}
		printf("lab: completion %s\n", lab_wc_text(&wc, text, sizeof(text)));
		if (wc.status == IBV_WC_REM_ACCESS_ERR && wc.wr_id == 1)
			access_err++;
		else if (wc.status == IBV_WC_WR_FLUSH_ERR)
			flushed++;
		else
			other++;
	}
	ok = access_err == 1 && flushed == 2 && other == 0;
	lab_disconnect(&c, o->timeout_ms);
out:
	lab_result(o, ok, "mode=%s remote_access_errors=%d flushed=%d other=%d",
		   overflow ? "overflow" : bounds ? "bounds" : "rkey", access_err, flushed, other);
	lab_release(&c, mr, buf);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct lab_opts o;
	lab_parse_options(argc, argv, &o, "error", "\nerror: --mode rkey|bounds|overflow, --size (4096)\n");
	if (!o.size)
		o.size = 4096;
	if (o.mode && strcmp(o.mode, "rkey") && strcmp(o.mode, "bounds") && strcmp(o.mode, "overflow")) {
		fprintf(stderr, "rt-lab-error: --mode is rkey, bounds or overflow\n");
		return 2;
	}
	return o.server ? run_server(&o) : run_client(&o);
}

/*
 * Lab "sendrecv": two-sided SEND/RECV and the receive queue.
 *
 * Every SEND consumes one RECV the receiver posted beforehand.  The
 * receiver keeps --depth receives posted and replenishes them with a policy
 * (--mode each: repost as each completes; --mode batch: repost only when
 * the queue has run dry).  When the sender gets ahead of the receive queue
 * the responder answers with an RNR NAK and the sender waits the RNR timer
 * (min_rnr_timer; RDMA CM leaves it at 0, which means 655.36 ms) before
 * trying again: that is the "rnr" scenario (--post-delay-ms, shallow
 * --depth).  The sender requests a completion every --signal-every sends.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lab_common.h"

struct receiver {
	const struct lab_opts *o;
	uint8_t *bufs;
	struct ibv_mr *mr;
	unsigned posted; /* receives posted so far */
};

static int post_receives(struct lab_conn *c, struct receiver *r, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		unsigned slot = r->posted % r->o->depth;
		if (lab_post_recv(c, r->posted, r->bufs + (size_t)slot * r->o->size, (uint32_t)r->o->size, r->mr->lkey) != 0)
			return -1;
		r->posted++;
	}
	return 0;
}

static int receiver_setup(struct lab_conn *c, void *arg, void *priv, uint8_t *priv_len)
{
	struct receiver *r = arg;
	(void)priv;
	*priv_len = 0;
	r->mr = lab_reg_mr(c, r->bufs, (size_t)r->o->depth * r->o->size, IBV_ACCESS_LOCAL_WRITE);
	if (!r->mr)
		return -1;
	if (r->o->post_delay_ms == 0) {
		lab_phase("posting %u receives", r->o->depth);
		return post_receives(c, r, r->o->depth);
	}
	return 0;
}

static int run_receiver(const struct lab_opts *o)
{
	struct receiver r = { .o = o };
	struct lab_conn c = {0}; /* lab_destroy() after an early failure */
	struct lab_qp_caps caps = { .send_wr = 4, .recv_wr = o->depth };
	unsigned got = 0, bad = 0, outstanding;
	bool batch = lab_mode_is(o, "batch");
	r.bufs = calloc(o->depth, o->size);
	if (!r.bufs)
		return 1;
	int rc = lab_server_accept(o, &c, &caps, receiver_setup, &r);
	if (rc == 0 && o->post_delay_ms) {
		usleep(o->post_delay_ms * 1000u);
		lab_phase("posting %u receives %u ms late", o->depth, o->post_delay_ms);
		rc = post_receives(&c, &r, o->depth);
	}
	while (rc == 0 && got < o->count) {
		struct ibv_wc wc;
		char text[128];
		if (lab_poll(&c, &wc, o->timeout_ms) <= 0) {
			fprintf(stderr, "lab: message %u did not arrive within %d ms\n", got, o->timeout_ms);
			rc = -1;
			break;
		}
		if (wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_RECV) {
			fprintf(stderr, "lab: unexpected completion: %s\n", lab_wc_text(&wc, text, sizeof(text)));
			rc = -1;
			break;
		}
		const uint8_t *msg = r.bufs + (size_t)(wc.wr_id % o->depth) * o->size;
		if (wc.byte_len != o->size || lab_check_pattern(msg, o->size, o->seed + got) >= 0)
			bad++;
		got++;
		outstanding = r.posted - got;
		unsigned want = o->count - got < o->depth ? o->count - got : o->depth;
		if (!batch && r.posted < o->count)
			rc = post_receives(&c, &r, 1);
		else if (batch && outstanding == 0 && want > 0) {
			lab_phase("receive queue empty after %u messages: reposting %u", got, want);
			rc = post_receives(&c, &r, want);
		}
	}
	if (rc == 0)
		lab_wait_disconnect(&c, lab_run_limit_ms(o));
	bool ok = rc == 0 && got == o->count && bad == 0;
	lab_result(o, ok, "messages=%u bad=%u depth=%u", got, bad, o->depth);
	lab_release(&c, r.mr, r.bufs);
	return ok ? 0 : 1;
}

static int run_sender(const struct lab_opts *o)
{
	struct lab_conn c = {0}; /* lab_destroy() after an early failure */
	unsigned sq = 64;
	struct lab_qp_caps caps = { .send_wr = sq, .recv_wr = 4 };
	uint8_t *bufs = malloc((size_t)sq * o->size);
	struct ibv_mr *mr = NULL;
	unsigned posted = 0, done = 0;
	bool ok = false;
	uint64_t start = 0;
	if (!bufs || lab_client_connect(o, &c, &caps, NULL, NULL) != 0)
		goto out;
	mr = lab_reg_mr(&c, bufs, (size_t)sq * o->size, IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		goto out;
	lab_phase("sending %u messages of %llu bytes, signaled every %u", o->count, (unsigned long long)o->size,
		  o->signal_every);
	start = lab_now_ms();
	while (done < o->count) {
		/* Keep at most sq - signal_every sends outstanding so a signaled one always fits. */
		while (posted < o->count && posted - done < sq - o->signal_every) {
			uint8_t *b = bufs + (size_t)(posted % sq) * o->size;
			lab_fill_pattern(b, o->size, o->seed + posted);
			bool signaled = (posted + 1) % o->signal_every == 0 || posted + 1 == o->count;
			if (lab_post_send(&c, IBV_WR_SEND, posted, b, (uint32_t)o->size, mr->lkey, 0, 0, 0, signaled) != 0)
				goto out;
			posted++;
		}
		struct ibv_wc wc;
		char text[128];
		if (lab_poll(&c, &wc, o->timeout_ms) <= 0) {
			fprintf(stderr, "lab: no send completion within %d ms (%u of %u done)\n", o->timeout_ms, done, o->count);
			goto out;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			fprintf(stderr, "lab: %s\n", lab_wc_text(&wc, text, sizeof(text)));
			goto out;
		}
		done = (unsigned)wc.wr_id + 1; /* a signaled completion retires every earlier send */
	}
	ok = true;
	lab_disconnect(&c, o->timeout_ms);
out:
	lab_result(o, ok, "messages=%u elapsed_ms=%llu", done,
		   (unsigned long long)(start ? lab_now_ms() - start : 0));
	lab_release(&c, mr, bufs);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct lab_opts o;
	lab_parse_options(argc, argv, &o, "sendrecv",
			  "\nsendrecv: --size (1024), --count (64), --depth (16), --signal-every (1),\n"
			  "          --mode each|batch (receive replenish policy), --post-delay-ms\n");
	if (!o.size)
		o.size = 1024;
	if (!o.count)
		o.count = 64;
	if (!o.depth)
		o.depth = 16;
	if (!o.signal_every)
		o.signal_every = 1;
	if (o.signal_every > 32)
		o.signal_every = 32;
	if (o.mode && strcmp(o.mode, "each") && strcmp(o.mode, "batch")) {
		fprintf(stderr, "rt-lab-sendrecv: --mode is each or batch\n");
		return 2;
	}
	return o.server ? run_receiver(&o) : run_sender(&o);
}

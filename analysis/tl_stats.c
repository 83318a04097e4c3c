/*
 * Per-QP statistics of a timeline (struct rt_tl_qp: packets, bytes,
 * retransmissions, NAKs, latency percentiles, receive-queue depth).  They
 * need the links and the aligned times but nothing after them needs the
 * statistics until the timeline is taken over, so they run on a thread of
 * their own while the annotations and the rows are built (tl_build.c:
 * tl_detect() starts them, tl_finish() joins them).
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tl_internal.h"

struct tl_stats_job {
	struct tl_build *b;
	struct tl_link_index li;
	pthread_t th;
	bool threaded;
	int rc;
};

/* The k-th smallest of v[0, n), k < n (v is reordered): a quickselect with a
 * three-way partition, so runs of equal values cost one pass. */
static uint64_t kth(uint64_t *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n;
	while (hi - lo > 1) {
		uint64_t a = v[lo], m = v[lo + (hi - lo) / 2], z = v[hi - 1];
		uint64_t p = a < m ? (m < z ? m : a < z ? z : a) : (a < z ? a : m < z ? z : m);
		size_t lt = lo, i = lo, gt = hi;
		while (i < gt) {
			uint64_t x = v[i];
			if (x < p) {
				v[i++] = v[lt];
				v[lt++] = x;
			} else if (x > p) {
				v[i] = v[--gt];
				v[gt] = x;
			} else {
				i++;
			}
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return p;
	}
	return v[lo];
}

/* The p-th percentile (nearest rank) of n samples, UINT64_MAX without samples. */
static uint64_t pct(uint64_t *v, size_t n, unsigned p)
{
	if (!n)
		return UINT64_MAX;
	size_t i = (n * p + 99) / 100;
	return kth(v, n, i ? i - 1 : 0);
}

static void wire_counts(struct tl_build *b)
{
	for (size_t i = 0; i < tl_npk(b); i++) {
		struct tl_pk *k = tl_pk(b, i);
		uint32_t q = k->send_qp;
		if (q != RT_TL_NONE) {
			uint64_t t = tl_item_time(b, tl_item_pk(b, i));
			struct rt_tl_qp *Q = tl_qp(b, q);
			Q->packets_tx++;
			Q->bytes_tx += k->payload_len;
			if (k->retrans) {
				Q->retransmitted++;
				Q->bytes_resent += k->payload_len;
			}
			Q->duplicates += k->dup;
			Q->out_of_order += k->ooo;
			Q->ecn += (k->tos & 3) == 3;
			if (!Q->first_ns || t < Q->first_ns)
				Q->first_ns = t;
			if (t > Q->last_ns)
				Q->last_ns = t;
		}
		if (k->recv_qp != RT_TL_NONE && k->op_class == RT_CLASS_ACK) {
			struct rt_tl_qp *R = tl_qp(b, k->recv_qp);
			R->naks += k->aeth_type == RT_AETH_NAK;
			R->rnr_naks += k->aeth_type == RT_AETH_RNR_NAK;
		}
		if (k->opcode == RT_OP_CNP && k->recv_qp != RT_TL_NONE)
			tl_qp(b, k->recv_qp)->cnps++;
	}
}

/* Latency samples of one QP. */
struct samples {
	struct tl_vec lat, p2w, ack, poll;
};

static void push(struct tl_vec *v, uint64_t x, int *rc)
{
	uint64_t *p = tl_vec_push(v);
	if (p)
		*p = x;
	else
		*rc = -ENOMEM;
}

/* The send WR i of a traced QP posted at t: its latencies. */
static int wr_samples(struct tl_build *b, const struct tl_link_index *li, uint32_t i, uint64_t t, struct samples *s)
{
	int rc = 0;
	uint32_t comp = tl_link_index_first(li, i, RT_TLL_COMPLETION);
	uint32_t p = tl_link_index_first(li, i, RT_TLL_PACKET);
	uint32_t a = tl_link_index_first(li, i, RT_TLL_ACK);
	uint64_t tc = comp != RT_TL_NONE ? tl_item_time(b, comp) : 0;
	uint64_t ta = a != RT_TL_NONE ? tl_item_time(b, a) : 0;
	if (comp != RT_TL_NONE)
		push(&s->lat, tc > t ? tc - t : 0, &rc);
	if (p != RT_TL_NONE) {
		uint64_t tp = tl_item_time(b, p);
		push(&s->p2w, tp > t ? tp - t : 0, &rc);
	}
	if (a != RT_TL_NONE && comp != RT_TL_NONE)
		push(&s->poll, tc > ta ? tc - ta : 0, &rc);
	/* last packet -> ACK */
	if (a != RT_TL_NONE) {
		uint64_t lastp = 0;
		for (uint32_t L = li->off[i]; L < li->off[i + 1]; L++) {
			const struct tl_ilink *l = &li->ls[L];
			uint64_t tl;
			if (l->type == RT_TLL_PACKET && (tl = tl_item_time(b, l->to)) > lastp)
				lastp = tl;
		}
		if (lastp)
			push(&s->ack, ta > lastp ? ta - lastp : 0, &rc);
	}
	return rc;
}

/* One traced QP from its events (evs: its event items in order). */
static int qp_events(struct tl_build *b, const struct tl_link_index *li, struct rt_tl_qp *Q, const uint32_t *evs,
		     size_t n, struct samples *s)
{
	s->lat.n = s->p2w.n = s->ack.n = s->poll.n = 0;
	long d = 0;
	for (size_t j = 0; j < n; j++) {
		uint32_t i = evs[j];
		struct tl_evrec *e = tl_ev(b, i);
		uint64_t t = tl_item_time(b, i);
		if (!Q->first_ns || t < Q->first_ns)
			Q->first_ns = t;
		if (t > Q->last_ns)
			Q->last_ns = t;
		if (e->ev.kind == RT_EV_WR_POST) {
			if (e->ev.u.wr.queue == RT_WRQ_SEND) {
				Q->wrs_send++;
				int rc = wr_samples(b, li, i, t, s);
				if (rc < 0)
					return rc;
			} else {
				Q->wrs_recv++;
				d++;
			}
		} else if (e->ev.kind == RT_EV_COMPLETION) {
			Q->completions++;
			if (e->ev.u.wc.status)
				Q->error_completions++;
			if (e->ev.u.wc.opcode & 128)
				d--;
		} else {
			continue;
		}
		if (Q->wrs_recv) {
			uint64_t ud = d < 0 ? 0 : (uint64_t)d;
			if (ud > Q->recv_posted_max)
				Q->recv_posted_max = ud;
			if (ud < Q->recv_posted_min)
				Q->recv_posted_min = ud;
		}
	}
	Q->lat_p50_ns = pct(s->lat.p, s->lat.n, 50);
	Q->lat_p99_ns = pct(s->lat.p, s->lat.n, 99);
	Q->lat_max_ns = pct(s->lat.p, s->lat.n, 100);
	Q->post_to_wire_p50_ns = pct(s->p2w.p, s->p2w.n, 50);
	Q->ack_p50_ns = pct(s->ack.p, s->ack.n, 50);
	Q->poll_delay_p50_ns = pct(s->poll.p, s->poll.n, 50);
	return 0;
}

static int qp_stats(struct tl_build *b, const struct tl_link_index *li)
{
	size_t nqp = b->qps.n, nev = tl_nev(b);
	wire_counts(b);
	for (size_t q = 0; q < nqp; q++)
		tl_qp(b, q)->recv_posted_min = UINT64_MAX;
	/* each QP's events (engine copies of probe events left out), in order */
	uint32_t *start = calloc(nqp + 2, sizeof(uint32_t));
	uint32_t *evs = malloc((nev ? nev : 1) * sizeof(uint32_t));
	struct samples s;
	tl_vec_init(&s.lat, 8);
	tl_vec_init(&s.p2w, 8);
	tl_vec_init(&s.ack, 8);
	tl_vec_init(&s.poll, 8);
	int rc = -ENOMEM;
	if (!start || !evs)
		goto out;
	for (size_t i = 0; i < nev; i++)
		if (b->ev_qp[i] < nqp && !b->ev_shadow[i])
			start[b->ev_qp[i] + 2]++;
	for (size_t q = 0; q < nqp; q++)
		start[q + 2] += start[q + 1];
	for (size_t i = 0; i < nev; i++)
		if (b->ev_qp[i] < nqp && !b->ev_shadow[i])
			evs[start[b->ev_qp[i] + 1]++] = (uint32_t)i;
	rc = 0;
	for (size_t q = 0; q < nqp && !rc; q++) {
		struct rt_tl_qp *Q = tl_qp(b, q);
		if (Q->flags & RT_TLQ_TRACED)
			rc = qp_events(b, li, Q, evs + start[q], start[q + 1] - start[q], &s);
		if (Q->recv_posted_min == UINT64_MAX)
			Q->recv_posted_min = 0;
	}
out:
	free(start);
	free(evs);
	tl_vec_free(&s.lat);
	tl_vec_free(&s.p2w);
	tl_vec_free(&s.ack);
	tl_vec_free(&s.poll);
	return rc;
}

static void *stats_run(void *arg)
{
	struct tl_stats_job *j = arg;
	j->rc = qp_stats(j->b, &j->li);
	return NULL; /* the index is freed when joined: tl_finish reads it too */
}

int tl_stats_start(struct tl_build *b, struct tl_link_index *x)
{
	struct tl_stats_job *j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	j->b = b;
	j->li = *x;
	memset(x, 0, sizeof(*x));
	b->stats = j;
	j->threaded = pthread_create(&j->th, NULL, stats_run, j) == 0;
	if (!j->threaded)
		stats_run(j);
	return 0;
}

int tl_stats_join(struct tl_build *b)
{
	struct tl_stats_job *j = b->stats;
	if (!j)
		return 0;
	if (j->threaded)
		pthread_join(j->th, NULL);
	int rc = j->rc;
	tl_link_index_free(&j->li);
	free(j);
	b->stats = NULL;
	return rc;
}

const struct tl_link_index *tl_stats_link_index(struct tl_build *b)
{
	return b->stats ? &b->stats->li : NULL;
}

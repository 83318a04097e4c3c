/*
 * The per-QP summary of include/rdmatrace/qp_stats.h: an insertion-ordered
 * array of QPs with an open-addressing index on (address, QPN).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rdmatrace/qp_stats.h"

struct rt_qp_stats {
	struct rt_qp_stat *qps;
	size_t n, cap;
	uint32_t *index;          /* slot -> qps index + 1, 0 empty */
	size_t slots;             /* power of two */
};

static uint64_t key_hash(unsigned version, const uint8_t *dst, uint32_t qpn)
{
	uint64_t h = 1469598103934665603ull ^ version;
	for (int i = 0; i < 16; i++)
		h = (h ^ dst[i]) * 1099511628211ull;
	h = (h ^ qpn) * 1099511628211ull;
	return h ^ (h >> 29);
}

int rt_qp_stats_new(struct rt_qp_stats **out)
{
	if (!out)
		return -EINVAL;
	struct rt_qp_stats *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->slots = 64;
	s->index = calloc(s->slots, sizeof(*s->index));
	if (!s->index) {
		free(s);
		return -ENOMEM;
	}
	*out = s;
	return 0;
}

static int grow_index(struct rt_qp_stats *s)
{
	size_t slots = s->slots * 2;
	uint32_t *idx = calloc(slots, sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (size_t i = 0; i < s->n; i++) {
		const struct rt_qp_stat *q = &s->qps[i];
		size_t j = key_hash(q->ip_version, q->dst, q->qpn) & (slots - 1);
		while (idx[j])
			j = (j + 1) & (slots - 1);
		idx[j] = (uint32_t)(i + 1);
	}
	free(s->index);
	s->index = idx;
	s->slots = slots;
	return 0;
}

static struct rt_qp_stat *lookup(struct rt_qp_stats *s, const struct rt_pkt *p)
{
	size_t j = key_hash(p->ip_version, p->dst, p->bth.dqpn) & (s->slots - 1);
	while (s->index[j]) {
		struct rt_qp_stat *q = &s->qps[s->index[j] - 1];
		if (q->qpn == p->bth.dqpn && q->ip_version == p->ip_version && !memcmp(q->dst, p->dst, 16))
			return q;
		j = (j + 1) & (s->slots - 1);
	}
	if ((s->n + 1) * 2 > s->slots) {
		if (grow_index(s) < 0)
			return NULL;
		return lookup(s, p);
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct rt_qp_stat *n = realloc(s->qps, cap * sizeof(*n));
		if (!n)
			return NULL;
		s->qps = n;
		s->cap = cap;
	}
	struct rt_qp_stat *q = &s->qps[s->n];
	memset(q, 0, sizeof(*q));
	q->ip_version = p->ip_version;
	memcpy(q->dst, p->dst, 16);
	memcpy(q->src, p->src, 16);
	q->qpn = p->bth.dqpn;
	s->index[j] = (uint32_t)(++s->n);
	return q;
}

int rt_qp_stats_add(struct rt_qp_stats *s, const struct rt_pkt *p, uint64_t ts_ns)
{
	if (!s || !p || !(p->flags & RT_PKT_BTH))
		return -EINVAL;
	struct rt_qp_stat *q = lookup(s, p);
	if (!q)
		return -ENOMEM;
	if (!q->packets)
		q->first_ns = ts_ns;
	q->last_ns = ts_ns;
	q->packets++;
	q->bytes += p->wirelen;
	q->payload_bytes += p->payload_len;
	if (p->icrc_status == RT_ICRC_BAD)
		q->bad_icrc++;
	if (p->flags & RT_PKT_CM)
		q->cm++;
	unsigned cls = p->op ? p->op->op_class : 0;
	if (p->hdrs & RT_HDR_AETH) {
		switch (p->aeth.type) {
		case RT_AETH_ACK:
			if (cls == RT_CLASS_ACK)
				q->acks++;
			break;
		case RT_AETH_RNR_NAK:
			q->rnr_naks++;
			break;
		case RT_AETH_NAK:
			q->naks++;
			if (p->aeth.value < 5)
				q->nak_codes[p->aeth.value]++;
			break;
		default:
			break;
		}
	}
	if (cls == RT_CLASS_CNP) {
		q->cnps++;
		return 0;
	}
	if (cls == RT_CLASS_ACK || cls == RT_CLASS_ATOMIC_ACK)
		return 0;
	/* Requests and read responses: PSNs move forward unless retransmitted. */
	uint32_t psn = p->bth.psn;
	if (!q->seq_packets) {
		q->first_psn = q->max_psn = psn;
		q->last_was_repeat = 0;
	} else if (rt_psn_diff(psn, q->max_psn) <= 0) {
		q->psn_repeats++;
		if (!q->last_was_repeat)
			q->go_backs++;
		q->last_was_repeat = 1;
	} else {
		q->max_psn = psn;
		q->last_was_repeat = 0;
	}
	q->last_psn = psn;
	q->seq_packets++;
	return 0;
}

size_t rt_qp_stats_count(const struct rt_qp_stats *s)
{
	return s ? s->n : 0;
}

const struct rt_qp_stat *rt_qp_stats_get(const struct rt_qp_stats *s, size_t i)
{
	return s && i < s->n ? &s->qps[i] : NULL;
}

void rt_qp_stats_free(struct rt_qp_stats *s)
{
	if (!s)
		return;
	free(s->qps);
	free(s->index);
	free(s);
}

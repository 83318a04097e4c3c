/*
 * The per-flow summary of include/rdmatrace/qp_stats.h: an insertion-ordered
 * array of flows, the path MTU memo of each address pair, and one
 * open-addressing index over both (a pair's key has no QPN).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rdmatrace/qp_stats.h"

#define PAIR_QPN UINT32_MAX       /* never a 24-bit QPN: marks an address-pair key */
#define DEFAULT_MTU 4096u         /* until learned: the largest, so a READ takes the fewest PSNs */

struct key {
	uint8_t ver;
	uint8_t a[16], b[16];
	uint8_t zero[3];          /* no implicit padding: keys compare with memcmp */
	uint32_t qpn, sqpn;
};

struct entry {
	struct key k;
	uint32_t ref;             /* flow: index in qps; pair: MTU in bytes */
};

struct rt_qp_stats {
	struct rt_qp_stat *qps;
	size_t n, cap;
	struct entry *ents;
	size_t nents, ents_cap;
	uint32_t *index;          /* slot -> ents index + 1, 0 empty */
	size_t slots;             /* power of two */
	/* the flows of the latest packets (both directions of a conversation
	 * alternate); recent_flow[i] is valid when recent_valid[i] */
	struct key recent_key[2];
	size_t recent_flow[2];
	bool recent_valid[2];
};

static uint64_t key_hash(const struct key *k)
{
	uint64_t w[sizeof(*k) / 8 + 1] = { 0 };
	memcpy(w, k, sizeof(*k));
	uint64_t h = 0x9E3779B97F4A7C15ull;
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		h = (h ^ w[i]) * 0xFF51AFD7ED558CCDull;
	return h ^ (h >> 31);
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
	for (size_t i = 0; i < s->nents; i++) {
		size_t j = key_hash(&s->ents[i].k) & (slots - 1);
		while (idx[j])
			j = (j + 1) & (slots - 1);
		idx[j] = (uint32_t)(i + 1);
	}
	free(s->index);
	s->index = idx;
	s->slots = slots;
	return 0;
}

static struct entry *find(const struct rt_qp_stats *s, const struct key *k, size_t *slot)
{
	size_t j = key_hash(k) & (s->slots - 1);
	while (s->index[j]) {
		struct entry *e = &s->ents[s->index[j] - 1];
		if (!memcmp(&e->k, k, sizeof(*k)))
			return e;
		j = (j + 1) & (s->slots - 1);
	}
	if (slot)
		*slot = j;
	return NULL;
}

/* arr (cap elements of size elem, n used) with room for one more: arr
 * itself, or a grown copy (*cap updated), or NULL when out of memory. */
static void *room_for_one(void *arr, size_t *cap, size_t n, size_t elem)
{
	if (n < *cap)
		return arr;
	size_t c = *cap ? *cap * 2 : 16;
	void *grown = realloc(arr, c * elem);
	if (grown)
		*cap = c;
	return grown;
}

/* The entry of k, added (ref 0, *added set) when new; NULL when out of memory. */
static struct entry *find_or_add(struct rt_qp_stats *s, const struct key *k, bool *added)
{
	size_t j;
	struct entry *e = find(s, k, &j);
	*added = false;
	if (e)
		return e;
	if ((s->nents + 1) * 2 > s->slots) {
		if (grow_index(s) < 0)
			return NULL;
		find(s, k, &j);
	}
	struct entry *ents = room_for_one(s->ents, &s->ents_cap, s->nents, sizeof(*ents));
	if (!ents)
		return NULL;
	s->ents = ents;
	e = &s->ents[s->nents];
	e->k = *k;
	e->ref = 0;
	s->index[j] = (uint32_t)(++s->nents);
	*added = true;
	return e;
}

static void pair_key(struct key *k, unsigned ver, const uint8_t *x, const uint8_t *y)
{
	memset(k, 0, sizeof(*k));
	k->ver = (uint8_t)ver;
	bool swap = memcmp(x, y, 16) > 0;
	memcpy(k->a, swap ? y : x, 16);
	memcpy(k->b, swap ? x : y, 16);
	k->qpn = k->sqpn = PAIR_QPN;
}

unsigned rt_qp_stats_mtu(const struct rt_qp_stats *s, unsigned ip_version, const uint8_t *a, const uint8_t *b)
{
	if (!s || !a || !b)
		return 0;
	struct key k;
	pair_key(&k, ip_version, a, b);
	const struct entry *e = find(s, &k, NULL);
	return e ? e->ref : 0;
}

static void learn_mtu(struct rt_qp_stats *s, const struct rt_pkt *p, unsigned mtu)
{
	struct key k;
	bool added;
	pair_key(&k, p->ip_version, p->src, p->dst);
	struct entry *e = find_or_add(s, &k, &added);
	if (e && mtu > e->ref)
		e->ref = mtu;
}

static void remember(struct rt_qp_stats *s, const struct key *k, size_t flow)
{
	s->recent_key[1] = s->recent_key[0];
	s->recent_flow[1] = s->recent_flow[0];
	s->recent_valid[1] = s->recent_valid[0];
	s->recent_key[0] = *k;
	s->recent_flow[0] = flow;
	s->recent_valid[0] = true;
}

static struct rt_qp_stat *flow_of(struct rt_qp_stats *s, const struct rt_pkt *p)
{
	struct key k;
	memset(&k, 0, sizeof(k));
	k.ver = p->ip_version;
	memcpy(k.a, p->src, 16);
	memcpy(k.b, p->dst, 16);
	k.qpn = p->bth.dqpn;
	k.sqpn = (p->hdrs & RT_HDR_DETH) ? p->deth.src_qpn : RT_QP_STAT_NO_SRC_QP;
	for (int i = 0; i < 2; i++)
		if (s->recent_valid[i] && !memcmp(&k, &s->recent_key[i], sizeof(k)))
			return &s->qps[s->recent_flow[i]];
	const struct entry *found = find(s, &k, NULL);
	if (found) {
		remember(s, &k, found->ref);
		return &s->qps[found->ref];
	}
	struct rt_qp_stat *qps = room_for_one(s->qps, &s->cap, s->n, sizeof(*qps));
	if (!qps)
		return NULL;
	s->qps = qps;
	bool added;
	struct entry *e = find_or_add(s, &k, &added);
	if (!e)
		return NULL;
	struct rt_qp_stat *q = &s->qps[s->n];
	memset(q, 0, sizeof(*q));
	q->ip_version = p->ip_version;
	memcpy(q->src, p->src, 16);
	memcpy(q->dst, p->dst, 16);
	q->qpn = k.qpn;
	q->src_qpn = k.sqpn;
	e->ref = (uint32_t)s->n;
	remember(s, &k, s->n++);
	return q;
}

/* One packet of a PSN sequence: psn, taking span PSNs (0 for a NAK). */
static void seq_add(struct rt_psn_seq *q, uint32_t psn, uint32_t span)
{
	uint32_t end = (psn + span) & RT_PSN_MASK;
	if (!q->packets) {
		q->first_psn = psn;
		q->next_psn = end;
	} else if (rt_psn_diff(psn, q->next_psn) < 0) {
		q->repeats++;
		if (psn != q->last_next)
			q->go_backs++;
		if (rt_psn_diff(end, q->next_psn) > 0)
			q->next_psn = end; /* a resent READ asking for more than before */
	} else {
		q->next_psn = end;
	}
	q->last_psn = psn;
	q->last_next = end;
	q->packets++;
}

static bool is_request(unsigned cls)
{
	switch (cls) {
	case RT_CLASS_SEND:
	case RT_CLASS_WRITE:
	case RT_CLASS_READ_REQ:
	case RT_CLASS_ATOMIC:
	case RT_CLASS_FLUSH:
	case RT_CLASS_ATOMIC_WRITE:
		return true;
	default:
		return false;
	}
}

int rt_qp_stats_add(struct rt_qp_stats *s, const struct rt_pkt *p, uint64_t ts_ns)
{
	if (!s || !p || !(p->flags & RT_PKT_BTH))
		return -EINVAL;
	struct rt_qp_stat *q = flow_of(s, p);
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
	if (p->flags & RT_PKT_CM) {
		q->cm++;
		unsigned mtu = rt_mtu_bytes(p->cm.path_mtu);
		if (p->cm.attr_id == RT_CM_REQ && mtu)
			learn_mtu(s, p, mtu);
	}
	if (!p->op)
		return 0; /* an unknown opcode: no PSN semantics */
	unsigned cls = p->op->op_class;
	if ((p->op->position == RT_POS_FIRST || p->op->position == RT_POS_MIDDLE) && !p->malformed &&
	    !(p->flags & RT_PKT_TRUNCATED) && p->payload_len >= 256 && p->payload_len <= 4096 &&
	    !(p->payload_len & (p->payload_len - 1)))
		learn_mtu(s, p, p->payload_len);
	uint32_t psn = p->bth.psn;
	if (cls == RT_CLASS_CNP) {
		q->cnps++;
		return 0;
	}
	if (is_request(cls)) {
		uint32_t span = 1;
		if (cls == RT_CLASS_READ_REQ && (p->hdrs & RT_HDR_RETH)) {
			unsigned mtu = rt_qp_stats_mtu(s, p->ip_version, p->src, p->dst);
			span = rt_packets_for(p->reth.dmalen, mtu ? mtu : DEFAULT_MTU);
		}
		seq_add(&q->req, psn, span);
		return 0;
	}
	/* responses: READ responses, ACK / NAK / RNR NAK, atomic ACKs */
	uint32_t span = 1;
	if (p->hdrs & RT_HDR_AETH) {
		switch (p->aeth.type) {
		case RT_AETH_ACK:
			if (cls == RT_CLASS_ACK)
				q->acks++;
			break;
		case RT_AETH_RNR_NAK:
			q->rnr_naks++;
			span = 0;
			break;
		case RT_AETH_NAK:
			q->naks++;
			if (p->aeth.value < 5)
				q->nak_codes[p->aeth.value]++;
			span = 0;
			break;
		default:
			break;
		}
	}
	seq_add(&q->rsp, psn, span);
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
	free(s->ents);
	free(s->index);
	free(s);
}

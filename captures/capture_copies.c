/*
 * Copies of one frame captured on several interfaces
 * (include/rdmatrace/capture_copies.h): an open-addressing table from a
 * frame's content, as a 64-bit hash, to how often each interface showed it
 * and how many of those were kept.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rdmatrace/capture_copies.h"

#define PORTS 8                   /* interfaces told apart; more share the last slot */

struct slot {
	uint64_t hash;            /* 0: empty */
	uint64_t kept_frame;      /* the latest kept frame of this content */
	uint16_t kept;            /* frames of this content kept */
	uint16_t seen[PORTS];     /* frames of this content per interface */
};

struct rt_capcopies {
	struct slot *slots;
	size_t nslots, used;      /* nslots: a power of two */
	uint64_t port_key[PORTS]; /* the interfaces met so far, in order */
	unsigned nports;
	uint64_t copies;
};

struct rt_capcopies *rt_capcopies_new(void)
{
	struct rt_capcopies *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->nslots = 1024;
	c->slots = calloc(c->nslots, sizeof(*c->slots));
	if (!c->slots) {
		free(c);
		return NULL;
	}
	return c;
}

void rt_capcopies_free(struct rt_capcopies *c)
{
	if (!c)
		return;
	free(c->slots);
	free(c);
}

bool rt_capcopies_possible(unsigned ninterfaces, uint16_t linktype)
{
	return ninterfaces > 1 || linktype == RT_LINKTYPE_LINUX_SLL || linktype == RT_LINKTYPE_LINUX_SLL2;
}

uint64_t rt_capcopies_count(const struct rt_capcopies *c)
{
	return c ? c->copies : 0;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0xFF51AFD7ED558CCDull;
	return h ^ (h >> 29);
}

/* The interface slot of a record. */
static unsigned port_of(struct rt_capcopies *c, const struct rt_caprec *rec, const struct rt_pkt *p)
{
	uint64_t key = (uint64_t)rec->ifindex << 32;
	if (p->linktype == RT_LINKTYPE_LINUX_SLL2)
		key |= p->sll_ifindex;
	else if (p->linktype == RT_LINKTYPE_LINUX_SLL)
		key |= p->sll_pkttype == 4 ? 1u : 0u; /* PACKET_OUTGOING or received */
	for (unsigned i = 0; i < c->nports; i++)
		if (c->port_key[i] == key)
			return i;
	if (c->nports < PORTS)
		c->port_key[c->nports++] = key;
	return c->nports - 1;
}

static uint64_t content_hash(const struct rt_pkt *p)
{
	uint64_t a[4], h = 0x9E3779B97F4A7C15ull;
	memcpy(a, p->src, 16);
	memcpy(a + 2, p->dst, 16);
	for (int i = 0; i < 4; i++)
		h = mix(h, a[i]);
	h = mix(h, (uint64_t)p->ip_version << 56 | (uint64_t)p->ip_id << 40 | (uint64_t)p->sport << 24 |
			   p->bth.opcode);
	h = mix(h, (uint64_t)p->bth.dqpn << 32 | p->bth.psn);
	h = mix(h, (uint64_t)p->payload_len << 32 | p->icrc_wire);
	return h ? h : 1;
}

static int grow(struct rt_capcopies *c)
{
	size_t n = c->nslots * 2;
	struct slot *s = calloc(n, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < c->nslots; i++) {
		if (!c->slots[i].hash)
			continue;
		size_t j = c->slots[i].hash & (n - 1);
		while (s[j].hash)
			j = (j + 1) & (n - 1);
		s[j] = c->slots[i];
	}
	free(c->slots);
	c->slots = s;
	c->nslots = n;
	return 0;
}

int rt_capcopies_check(struct rt_capcopies *c, const struct rt_caprec *rec, const struct rt_pkt *p,
		       uint64_t *orig)
{
	if (c->used * 2 >= c->nslots && grow(c) < 0)
		return -ENOMEM;
	unsigned port = port_of(c, rec, p);
	uint64_t h = content_hash(p);
	size_t i = h & (c->nslots - 1);
	while (c->slots[i].hash && c->slots[i].hash != h)
		i = (i + 1) & (c->nslots - 1);
	struct slot *s = &c->slots[i];
	if (!s->hash) {
		s->hash = h;
		c->used++;
	}
	if (s->seen[port] < UINT16_MAX)
		s->seen[port]++;
	/* the n-th time this interface shows it, and n transmissions are kept:
	 * another interface showed this one already */
	if (s->seen[port] <= s->kept) {
		c->copies++;
		if (orig)
			*orig = s->kept_frame;
		return 1;
	}
	if (s->kept < UINT16_MAX)
		s->kept++;
	s->kept_frame = rec->frame;
	return 0;
}

int rt_capcopies_frame(struct rt_capcopies **c, unsigned ninterfaces, const struct rt_caprec *rec,
		       const struct rt_pkt *p, uint64_t *orig)
{
	if (!*c && !rt_capcopies_possible(ninterfaces, rec->linktype))
		return 0;
	if (!*c && !(*c = rt_capcopies_new()))
		return -ENOMEM;
	return rt_capcopies_check(*c, rec, p, orig);
}

/*
 * The timeline object: turning a build into sorted rows with their link
 * index and search indices (tl_finish), saving it as one memory-mappable
 * file, mapping it back without parsing, and the accessors and searches of
 * include/rdmatrace/timeline.h.  Every accessor bounds-checks what it reads
 * from the file, so a corrupt file gives empty answers, never a crash.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tl_internal.h"

#define TL_MAGIC "RDMATLN\0"
#define TL_VERSION 3u

enum {
	S_ROWS, S_LINKS, S_STRS, S_HOSTS, S_PROCS, S_QPS, S_FINDINGS, S_EVENTS, S_PKTS, S_BLOB, S_NOTES,
	S_MATCH0, S_COUNT = S_MATCH0 + RT_TLM_COUNT_
};

struct tl_sect {
	uint64_t off, count, esz;
};

struct tl_file_header {
	char magic[8];
	uint32_t version;
	uint32_t nsect;
	uint64_t size;
	uint32_t capture_path;
	uint32_t reserved;
	uint64_t input_stamp;     /* sizes and mtimes of the inputs (rt_timeline_stale) */
	struct tl_sect sect[S_COUNT];
};

/* Where the first section, the rows, starts in the file. */
#define ROWS_OFF ((sizeof(struct tl_file_header) + 63) & ~(size_t)63)

static const size_t sect_esz[S_COUNT] = {
	[S_ROWS] = sizeof(struct rt_tl_row), [S_LINKS] = sizeof(struct rt_tl_link), [S_STRS] = 1,
	[S_HOSTS] = sizeof(struct rt_tl_host), [S_PROCS] = sizeof(struct rt_tl_proc),
	[S_QPS] = sizeof(struct rt_tl_qp), [S_FINDINGS] = sizeof(struct rt_tl_finding),
	[S_EVENTS] = sizeof(struct tl_evrec), [S_PKTS] = sizeof(struct tl_pktrec), [S_BLOB] = 1,
	[S_NOTES] = 4,
	[S_MATCH0] = 4, [S_MATCH0 + 1] = 4, [S_MATCH0 + 2] = 4, [S_MATCH0 + 3] = 4, [S_MATCH0 + 4] = 4,
	[S_MATCH0 + 5] = 4, [S_MATCH0 + 6] = 4, [S_MATCH0 + 7] = 4, [S_MATCH0 + 8] = 4, [S_MATCH0 + 9] = 4,
	[S_MATCH0 + 10] = 4,
};

static void tl_own(struct rt_timeline *tl, void *p)
{
	if (tl->nowned < sizeof(tl->owned) / sizeof(tl->owned[0]))
		tl->owned[tl->nowned++] = p;
	else
		free(p); /* cannot happen: fewer sections than slots */
}

/* ---- from build to timeline ---- */

struct tl_key {
	uint64_t t;
	uint32_t item;
};

static int key_cmp(const void *a, const void *b)
{
	const struct tl_key *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->item < y->item ? -1 : x->item > y->item;
}

static void row_from_event(struct tl_build *b, size_t i, struct rt_tl_row *r)
{
	struct tl_evrec *e = tl_ev(b, i);
	const struct rt_event *ev = &e->ev;
	r->kind = (uint8_t)(ev->kind < 64 ? ev->kind : 0);
	r->host = e->host;
	r->proc = e->proc;
	r->qpn = ev->qpn;
	r->ref = (uint32_t)i;
	r->qp = b->ev_qp ? b->ev_qp[i] : RT_TL_NONE;
	if (r->qp != RT_TL_NONE)
		r->peer_qpn = tl_qp(b, r->qp)->peer_qpn;
	if (ev->flags & RT_EVF_ERROR)
		r->flags |= RT_TLF_ERROR;
	if (ev->flags & RT_EVF_ENGINE)
		r->flags |= RT_TLF_ENGINE;
	switch (ev->kind) {
	case RT_EV_WR_POST:
		r->wr_id = ev->u.wr.wr_id;
		r->len = ev->u.wr.length;
		r->sub = ev->u.wr.opcode;
		if (ev->u.wr.flags & RT_WRF_PSN_VALID)
			r->psn = ev->u.wr.first_psn;
		if (ev->u.wr.flags & RT_WRF_SIGNALED)
			r->flags |= RT_TLF_SIGNALED;
		if (ev->u.wr.queue != RT_WRQ_SEND)
			r->flags |= RT_TLF_RECV;
		if (ev->u.wr.flags & RT_WRF_POST_FAILED)
			r->flags |= RT_TLF_ERROR;
		break;
	case RT_EV_COMPLETION:
		r->wr_id = ev->u.wc.wr_id;
		r->len = ev->u.wc.byte_len;
		r->sub = ev->u.wc.status;
		if (ev->u.wc.status)
			r->flags |= RT_TLF_ERROR;
		if (ev->u.wc.opcode & 128)
			r->flags |= RT_TLF_RECV;
		break;
	case RT_EV_PACKET:
		r->dir = (ev->flags & RT_EVF_TX) ? RT_TLD_TX : RT_TLD_RX;
		r->psn = ev->u.pkt.psn;
		r->peer_qpn = ev->u.pkt.dest_qpn;
		r->len = ev->u.pkt.payload_len;
		r->sub = ev->u.pkt.opcode;
		if (ev->u.pkt.flags & RT_PKTF_RETRANS)
			r->flags |= RT_TLF_RETRANS;
		if (ev->u.pkt.flags & RT_PKTF_DUPLICATE)
			r->flags |= RT_TLF_DUP;
		if (ev->u.pkt.flags & RT_PKTF_HAS_AETH) {
			unsigned t = rt_aeth_type(ev->u.pkt.syndrome);
			if (t == RT_AETH_ACK)
				r->flags |= RT_TLF_ACK;
			else if (t == RT_AETH_RNR_NAK)
				r->flags |= RT_TLF_RNR | RT_TLF_NAK;
			else if (t == RT_AETH_NAK) {
				r->flags |= RT_TLF_NAK;
				if (rt_aeth_value(ev->u.pkt.syndrome) != RT_NAK_PSN_SEQ_ERROR)
					r->flags |= RT_TLF_ERROR;
			}
		}
		break;
	case RT_EV_RETRY:
		r->psn = ev->u.retry.first_psn;
		r->flags |= RT_TLF_RETRANS;
		break;
	case RT_EV_RNR:
		r->dir = (ev->flags & RT_EVF_TX) ? RT_TLD_TX : RT_TLD_RX;
		r->psn = ev->u.rnr.psn;
		r->flags |= RT_TLF_RNR | RT_TLF_NAK;
		break;
	case RT_EV_QP_STATE:
		r->sub = ev->u.qp_state.to_state;
		r->peer_qpn = ev->u.qp_state.dest_qpn;
		r->flags |= RT_TLF_CONTROL;
		if (ev->u.qp_state.to_state == 6 || ev->u.qp_state.result)
			r->flags |= RT_TLF_ERROR;
		break;
	case RT_EV_CM_EVENT: {
		unsigned ce = ev->u.cm.event;
		r->sub = (uint8_t)ce;
		r->flags |= RT_TLF_CONTROL;
		if (ev->u.cm.status || ce == 1 || ce == 3 || ce == 6 || ce == 7 || ce == 8)
			r->flags |= RT_TLF_ERROR;
		break;
	}
	case RT_EV_TIMER:
		r->psn = ev->u.timer.psn;
		break;
	case RT_EV_CM_ADDR6: case RT_EV_MR: case RT_EV_ASYNC: case RT_EV_QP_CREATE: case RT_EV_CQ_CREATE:
	case RT_EV_DEVICE: case RT_EV_PD: case RT_EV_SRQ_CREATE: case RT_EV_DEVICE_CAPS: case RT_EV_PROCESS_END:
	case RT_EV_VERBS_CALL:
		r->flags |= RT_TLF_CONTROL;
		if (ev->kind == RT_EV_ASYNC)
			r->flags |= RT_TLF_ERROR;
		break;
	case RT_EV_LOST:
		r->flags |= RT_TLF_ERROR;
		break;
	default:
		break;
	}
}

static void row_from_packet(struct tl_build *b, size_t i, struct rt_tl_row *r)
{
	struct tl_pk *k = tl_pk(b, i);
	r->kind = k->is_cm ? RT_TLK_CM_PACKET : RT_TLK_PACKET;
	r->dir = RT_TLD_WIRE;
	r->host = b->capture_host;
	r->proc = UINT16_MAX;
	r->ref = (uint32_t)i;
	r->frame = k->frame;
	r->psn = k->psn;
	r->peer_qpn = k->dqpn;
	r->len = k->payload_len;
	r->sub = k->is_cm ? (uint8_t)k->cm_attr : k->opcode;
	r->flags = k->flags;
	r->qp = k->send_qp != RT_TL_NONE ? k->send_qp : k->recv_qp;
	if (k->send_qp != RT_TL_NONE) {
		r->qpn = tl_qp(b, k->send_qp)->qpn;
		r->proc = tl_qp(b, k->send_qp)->proc;
	}
	if (k->wr != RT_TL_NONE && k->wr < tl_nev(b)) {
		r->wr_id = tl_ev(b, k->wr)->ev.u.wr.wr_id;
		r->flags |= RT_TLF_HAS_WR;
	}
}

static void row_from_finding(struct tl_build *b, size_t i, struct rt_tl_row *r)
{
	struct rt_tl_finding *f = TL_AT(&b->findings, struct rt_tl_finding, i);
	r->kind = RT_TLK_FINDING;
	r->host = 0;
	r->proc = UINT16_MAX;
	r->ref = (uint32_t)i;
	r->qp = f->qp;
	if (f->qp != RT_TL_NONE) {
		r->qpn = tl_qp(b, f->qp)->qpn;
		r->peer_qpn = tl_qp(b, f->qp)->peer_qpn;
	}
	r->flags = RT_TLF_FINDING | (f->severity == RT_TLS_ERROR ? RT_TLF_ERROR : 0);
	r->len = (uint32_t)(f->time_lost_ns / 1000);
	r->sub = (uint8_t)f->kind;
}

static unsigned row_mask(const struct rt_tl_row *r)
{
	unsigned m = 0;
	if (r->flags & RT_TLF_ERROR)
		m |= RT_TLM_ERROR;
	if (r->flags & RT_TLF_RETRANS)
		m |= RT_TLM_RETRANS;
	if (r->flags & RT_TLF_RNR)
		m |= RT_TLM_RNR;
	if (r->flags & RT_TLF_NAK)
		m |= RT_TLM_NAK;
	if (r->kind == RT_TLK_CM_PACKET || r->kind == RT_EV_CM_EVENT)
		m |= RT_TLM_CM;
	if (r->kind == RT_TLK_FINDING)
		m |= RT_TLM_FINDING;
	if (r->kind == RT_TLK_PACKET || r->kind == RT_TLK_CM_PACKET)
		m |= RT_TLM_PACKET;
	if (r->kind == RT_EV_WR_POST)
		m |= RT_TLM_WR;
	if (r->kind == RT_EV_COMPLETION)
		m |= RT_TLM_COMPLETION;
	if (r->flags & RT_TLF_CONTROL)
		m |= RT_TLM_CONTROL;
	if (r->flags & RT_TLF_FINDING)
		m |= RT_TLM_EVIDENCE;
	return m;
}

int rt_tl_row_matches(const struct rt_timeline *tl, size_t i, unsigned mask)
{
	return i < tl->nrows && (row_mask(&tl->rows[i]) & mask) != 0;
}

static int link_cmp(const void *a, const void *b)
{
	const struct rt_tl_link *x = a, *y = b;
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

/* Engine copies of what the probe also recorded (tl_link.c marks them) are
 * kept as events for the detectors but get no row: the application's view
 * is the one shown and linked. */
static bool item_has_row(const struct tl_build *b, size_t item)
{
	return item >= tl_nev(b) || !b->ev_shadow || !b->ev_shadow[item];
}

/* The packets in capture order need no sort keys: their key is at hand in
 * the packet when its row is made (finish_rows), and the aligned time is
 * in order when the capture time is (tl_align() never decreases). */
static bool pk_keyless(const struct tl_build *b)
{
	return !b->pk_unordered;
}

/* The key of the packet item. */
static struct tl_key pk_key(struct tl_build *b, size_t i)
{
	const struct rt_tl_host *caph = b->capture_host != UINT16_MAX ? tl_host(b, b->capture_host) : NULL;
	uint64_t raw = tl_pk(b, i)->raw_ns;
	return (struct tl_key){.t = caph ? tl_align(caph, raw) : raw, .item = tl_item_pk(b, i)};
}

/* Sort keys: each host's events, the packets and the findings, each source
 * in its own slice of keys (src_start[s] .. src_start[s + 1]), sorted; the
 * packets' slice is left out when they need none (pk_keyless). */
static int finish_keys(struct tl_build *b, struct tl_key *keys, size_t *src_start, size_t nsrc)
{
	size_t nev = tl_nev(b), npk = tl_npk(b), nf = b->findings.n, nh = b->hosts.n;
	size_t *src_pos = calloc(nsrc, sizeof(size_t));
	uint8_t *from_ev = calloc(nf + 1, 1);
	if (!src_pos || !from_ev) {
		free(src_pos);
		free(from_ev);
		return -ENOMEM;
	}
	/* each host's events were counted as they were read (a pass over the
	 * events here reads every one of them once more): less the engine
	 * copies, which get no row */
	memset(src_start, 0, (nsrc + 1) * sizeof(size_t));
	for (size_t h = 0; h < nh && h < b->host_nev.n; h++)
		src_start[h + 1] = *TL_AT(&b->host_nev, size_t, h);
	const uint16_t *ev_host = b->ev_host.p;
	const uint64_t *ev_raw = b->ev_raw.p;
	for (size_t i = 0; b->ev_shadow && i < nev; i++)
		if (!item_has_row(b, i))
			src_start[ev_host[i] + 1]--;
	src_start[nh + 1] = npk;
	src_start[nh + 2] = nf;
	for (size_t s = 0; s < nsrc; s++)
		src_start[s + 1] += src_start[s];
	memcpy(src_pos, src_start, nsrc * sizeof(size_t));
	uint64_t tmin = UINT64_MAX;
	for (size_t i = 0; i < nev; i++) {
		if (!item_has_row(b, i))
			continue;
		struct tl_key *k = &keys[src_pos[ev_host[i]]++];
		k->t = tl_align(tl_host(b, ev_host[i]), ev_raw[i]);
		k->item = (uint32_t)i;
		tmin = k->t < tmin ? k->t : tmin;
	}
	bool keyless = pk_keyless(b);
	for (size_t i = 0; i < npk; i++) {
		struct tl_key k = pk_key(b, i);
		tmin = k.t < tmin ? k.t : tmin;
		if (keyless)
			break; /* the first is the earliest */
		keys[src_pos[nh]++] = k;
	}
	/* findings without a time of their own: the time of their first evidence */
	for (size_t i = 0; nf && i < b->links.n; i++) {
		const struct tl_blink *l = TL_AT(&b->links, struct tl_blink, i);
		if (l->type != RT_TLL_FINDING || l->from < nev + npk || l->from - nev - npk >= nf || l->to >= nev + npk)
			continue;
		struct rt_tl_finding *f = TL_AT(&b->findings, struct rt_tl_finding, l->from - nev - npk);
		if (f->t_ns && !from_ev[l->from - nev - npk])
			continue;
		uint64_t t = tl_item_time(b, l->to);
		if (!f->t_ns || t < f->t_ns) {
			f->t_ns = t;
			from_ev[l->from - nev - npk] = 1;
		}
	}
	free(from_ev);
	for (size_t i = 0; i < nf; i++) {
		struct tl_key *k = &keys[src_pos[nh + 1]++];
		struct rt_tl_finding *f = TL_AT(&b->findings, struct rt_tl_finding, i);
		if (!f->t_ns && tmin != UINT64_MAX)
			f->t_ns = tmin; /* run-wide findings without evidence sit at the start */
		k->t = f->t_ns;
		k->item = tl_item_finding(b, i);
	}
	free(src_pos);
	for (size_t s = 0; s < nsrc; s++) {
		if (s == nh && keyless)
			continue;
		size_t a = src_start[s], e = src_start[s + 1];
		for (size_t i = a + 1; i < e; i++)
			if (key_cmp(&keys[i - 1], &keys[i]) > 0) {
				qsort(keys + a, e - a, sizeof(*keys), key_cmp);
				break;
			}
	}
	return 0;
}

/* Row o from sort key k, noting its search predicates (row_mask) in mask
 * and counting them in nmask while the row is at hand.  A packet's record
 * gets the row of its WR when that row is made already (item_row holds
 * RT_TL_NONE for items without one yet), else the packet goes on late for
 * finish_late_wrs(). */
static int finish_row(struct tl_build *b, const struct tl_key *k, size_t o, struct rt_tl_row *rows,
		      uint32_t *item_row, uint16_t *mask, size_t nmask[RT_TLM_COUNT_], struct tl_vec *late)
{
	size_t nev = tl_nev(b), npk = tl_npk(b), nitems = nev + npk + b->findings.n;
	uint32_t it = k->item;
	struct rt_tl_row *r = &rows[o];
	item_row[it] = (uint32_t)o;
	if (it < nev) {
		row_from_event(b, it, r);
		tl_ev(b, it)->row = (uint32_t)o;
	} else if (it < nev + npk) {
		row_from_packet(b, it - nev, r);
		tl_annotate_packet(b, it - nev);
		struct tl_pktrec *pr = TL_AT(&b->pkrec, struct tl_pktrec, it - nev);
		pr->row = (uint32_t)o;
		if (pr->wr >= nitems) {
			pr->wr = RT_TL_NONE;
		} else if (item_row[pr->wr] != RT_TL_NONE) {
			pr->wr = item_row[pr->wr];
		} else {
			uint32_t *l = tl_vec_push(late);
			if (!l)
				return -ENOMEM;
			*l = it - (uint32_t)nev;
		}
	} else {
		row_from_finding(b, it - nev - npk, r);
		TL_AT(&b->findings, struct rt_tl_finding, it - nev - npk)->row = (uint32_t)o;
	}
	r->t_ns = k->t;
	unsigned rm = row_mask(r);
	mask[o] = (uint16_t)rm;
	for (; rm; rm &= rm - 1)
		nmask[__builtin_ctz(rm)]++;
	return 0;
}

/* The key at position i of source s (finish_keys). */
static struct tl_key src_key(struct tl_build *b, const struct tl_key *keys, const size_t *src_start, size_t s,
			     size_t i)
{
	if (s == b->hosts.n && pk_keyless(b))
		return pk_key(b, i - src_start[s]);
	return keys[i];
}

/* Merge the sorted sources into rows (few sources: a linear pick among
 * their next keys). */
static int finish_rows(struct tl_build *b, const struct tl_key *keys, const size_t *src_start, size_t nsrc,
		       struct rt_tl_row *rows, size_t n, uint32_t *item_row, uint16_t *mask,
		       size_t nmask[RT_TLM_COUNT_], struct tl_vec *late)
{
	size_t *pos = malloc(nsrc * sizeof(size_t));
	struct tl_key *next = malloc(nsrc * sizeof(*next));
	if (!pos || !next) {
		free(pos);
		free(next);
		return -ENOMEM;
	}
	for (size_t s = 0; s < nsrc; s++) {
		pos[s] = src_start[s];
		if (pos[s] < src_start[s + 1])
			next[s] = src_key(b, keys, src_start, s, pos[s]);
	}
	int rc = 0;
	for (size_t o = 0; o < n && !rc; o++) {
		size_t best = SIZE_MAX;
		for (size_t s = 0; s < nsrc; s++) {
			if (pos[s] >= src_start[s + 1])
				continue;
			if (best == SIZE_MAX || key_cmp(&next[s], &next[best]) < 0)
				best = s;
		}
		rc = finish_row(b, &next[best], o, rows, item_row, mask, nmask, late);
		if (++pos[best] < src_start[best + 1])
			next[best] = src_key(b, keys, src_start, best, pos[best]);
	}
	free(pos);
	free(next);
	return rc;
}

/* The WR rows of the packets whose WR's row came after theirs (finish_row):
 * a pass over these few instead of every packet record. */
static void finish_late_wrs(struct tl_build *b, const uint32_t *item_row, const struct tl_vec *late)
{
	for (size_t i = 0; i < late->n; i++) {
		struct tl_pktrec *pr = TL_AT(&b->pkrec, struct tl_pktrec, *TL_AT(late, uint32_t, i));
		pr->wr = item_row[pr->wr];
	}
}

/* A link whose source the link index does not hold (tl_link_index.nl,
 * .outside), with its source row. */
struct tl_xlink {
	uint32_t from_row;
	struct rt_tl_link l;
};

static int xlink_cmp(const void *a, const void *b)
{
	const struct tl_xlink *x = a, *y = b;
	return x->from_row < y->from_row ? -1 : x->from_row > y->from_row;
}

/* The links to place (both ends have a row; links touching an item
 * without a row are dropped), counted while the rows' links are not yet
 * placed: those of the link index x by their targets, the others (made
 * after the index or from a finding) collected into *extra, sorted by
 * source row, *nextra of them. */
static int link_counts(struct tl_build *b, size_t n, const uint32_t *item_row, size_t nitems,
		       const struct tl_link_index *x, struct tl_xlink **extra, size_t *nextra, size_t *placed)
{
	size_t ne = 0, cap = 16, cnt = 0;
	struct tl_xlink *xl = malloc(cap * sizeof(*xl));
	if (!xl)
		return -ENOMEM;
	for (size_t i = x->outside ? 0 : x->nl; i < b->links.n; i++) {
		const struct tl_blink *l = TL_AT(&b->links, struct tl_blink, i);
		if ((i < x->nl && l->from < x->n) || l->from >= nitems || l->to >= nitems ||
		    item_row[l->from] == RT_TL_NONE || item_row[l->to] == RT_TL_NONE)
			continue;
		if (ne == cap) {
			struct tl_xlink *g = realloc(xl, (cap *= 2) * sizeof(*xl));
			if (!g) {
				free(xl);
				return -ENOMEM;
			}
			xl = g;
		}
		xl[ne++] = (struct tl_xlink){item_row[l->from], {.row = item_row[l->to], .type = l->type}};
	}
	qsort(xl, ne, sizeof(*xl), xlink_cmp);
	/* every item has a row (no engine copies): only the range to check */
	bool all = n == nitems;
	for (size_t i = 0; i < x->n && i < nitems; i++) {
		if (!all && item_row[i] == RT_TL_NONE)
			continue;
		for (uint32_t j = x->off[i]; j < x->off[i + 1]; j++)
			cnt += x->ls[j].to < nitems && (all || item_row[x->ls[j].to] != RT_TL_NONE);
	}
	*extra = xl;
	*nextra = ne;
	*placed = cnt + ne;
	return 0;
}

/* The item of row r (finish_row). */
static uint32_t row_item(const struct tl_build *b, const struct rt_tl_row *r)
{
	if (r->kind < 64)
		return r->ref;
	return (uint32_t)(r->kind == RT_TLK_FINDING ? tl_nev(b) + tl_npk(b) : tl_nev(b)) + r->ref;
}

/* The link array, row by row: each row's links gathered from the link
 * index x (the source row's item's links, in the order they were made)
 * and from extra (link_counts(), which it frees), sorted by type then
 * target, exact duplicates dropped (their places stay in the array).
 * Gathering by source reads the index in row order and writes the array
 * in order, where placing each link of the build by its source row wrote
 * all over it.  The array is made in mem (the sort keys, no longer
 * needed: memory already faulted in), which it takes. */
static int finish_links(struct tl_build *b, struct rt_tl_row *rows, size_t n, const uint32_t *item_row,
			size_t nitems, const struct tl_link_index *x, struct tl_xlink *extra, size_t nextra,
			size_t placed, void *mem, struct rt_tl_link **out)
{
	struct rt_tl_link *links = realloc(mem, (placed ? placed : 1) * sizeof(*links));
	if (!links) {
		free(mem);
		free(extra);
		return -ENOMEM;
	}
	uint32_t off = 0;
	const struct tl_xlink *xl = extra;
	for (size_t o = 0; o < n; o++) {
		uint32_t start = off, it = row_item(b, &rows[o]);
		if (it < x->n)
			for (uint32_t j = x->off[it]; j < x->off[it + 1]; j++) {
				uint32_t to = x->ls[j].to;
				if (to < nitems && item_row[to] != RT_TL_NONE)
					links[off++] = (struct rt_tl_link){.row = item_row[to], .type = x->ls[j].type};
			}
		for (; xl < extra + nextra && xl->from_row == o; xl++)
			links[off++] = xl->l;
		uint32_t c = off - start;
		struct rt_tl_link *L = &links[start];
		for (uint32_t j = 1; j < c; j++)
			if (link_cmp(&L[j - 1], &L[j]) > 0) {
				qsort(L, c, sizeof(*links), link_cmp);
				break;
			}
		uint32_t w = 0;
		for (uint32_t j = 0; j < c; j++) {
			if (w && L[w - 1].row == L[j].row && L[w - 1].type == L[j].type)
				continue;
			L[w++] = L[j];
		}
		rows[o].link_off = start;
		rows[o].link_count = (uint16_t)(w > UINT16_MAX ? UINT16_MAX : w);
	}
	free(extra);
	*out = links;
	return 0;
}

/* Row indices per search predicate, from each row's mask and their counts
 * (finish_rows). */
static int finish_match(struct rt_timeline *tl, const uint16_t *mask, const size_t cnt[RT_TLM_COUNT_])
{
	for (unsigned m = 0; m < RT_TLM_COUNT_; m++) {
		uint32_t *a = malloc((cnt[m] ? cnt[m] : 1) * sizeof(uint32_t));
		if (!a)
			return -ENOMEM;
		tl_own(tl, a);
		tl->match[m] = a;
	}
	for (size_t o = 0; o < tl->nrows; o++)
		for (unsigned rm = mask[o]; rm; rm &= rm - 1) {
			unsigned m = (unsigned)__builtin_ctz(rm);
			((uint32_t *)tl->match[m])[tl->nmatch[m]++] = (uint32_t)o;
		}
	return 0;
}

static void presave_start(struct rt_timeline *tl, struct tl_build *b, size_t nrows, size_t nlinks);

/* Rows and keys for every event and packet and a few findings (when there
 * are more findings, tl_prefault_take() grows the buffers).  The keys'
 * memory is sized for every row even when the packets need none
 * (pk_keyless): the link array is made in it afterwards. */
enum { PF_ROWS, PF_KEYS };
#define PF_FINDINGS 256

/* Links per row assumed when sizing the file to prepare.  A clean run has
 * about two (a packet and its WR both ways, an ACK and what it covers), but
 * too few only leaves the end of the file to be allocated while saving,
 * while too many allocates space the save gives back. */
#define PF_LINKS_PER_ROW 1

void tl_finish_prefault(struct tl_build *b)
{
	size_t n = tl_nev(b) + tl_npk(b) + PF_FINDINGS;
	size_t size[TL_PREFAULT_SLOTS] = {[PF_ROWS] = n * sizeof(struct rt_tl_row), [PF_KEYS] = n * sizeof(struct tl_key)};
	char tmp[4096];
	uint64_t file_size = 0;
	if (b->save_path) {
		tl_file_tmp_name(b->save_path, tmp, sizeof(tmp));
		file_size = sizeof(struct tl_file_header) + (uint64_t)n * sizeof(struct rt_tl_row) +
			    (uint64_t)n * PF_LINKS_PER_ROW * sizeof(struct rt_tl_link) +
			    (uint64_t)tl_nev(b) * sizeof(struct tl_evrec) +
			    (uint64_t)tl_npk(b) * sizeof(struct tl_pktrec) + b->blob_bytes + b->strs.n;
	}
	tl_prefault_start(b, size, b->save_path ? tmp : NULL, file_size);
}

int tl_finish(struct tl_build *b, struct rt_timeline **out)
{
	size_t nev = tl_nev(b), npk = tl_npk(b), nf = b->findings.n;
	size_t nitems = nev + npk + nf, n = 0;
	for (size_t i = 0; i < nitems; i++)
		n += item_has_row(b, i);
	size_t nsrc = b->hosts.n + 2; /* each host's events, the packets, the findings */
	struct rt_timeline *tl = calloc(1, sizeof(*tl));
	struct tl_key *keys = tl_prefault_take(b, PF_KEYS, (n ? n : 1) * sizeof(*keys));
	size_t *src_start = malloc((nsrc + 1) * sizeof(size_t));
	uint32_t *item_row = malloc((nitems ? nitems : 1) * sizeof(*item_row));
	struct rt_tl_row *rows = tl_prefault_take(b, PF_ROWS, (n ? n : 1) * sizeof(*rows));
	uint16_t *mask = malloc((n ? n : 1) * sizeof(*mask));
	size_t nmask[RT_TLM_COUNT_] = {0};
	struct rt_tl_link *links = NULL;
	size_t nlinks = 0;
	struct tl_link_index own_index = {0};
	struct tl_vec late = {0}; /* uint32_t: packets whose WR's row came after theirs */
	int rc = -ENOMEM;
	if (!tl || !keys || !src_start || !item_row || !rows || !mask)
		goto fail;
	memset(item_row, 0xFF, nitems * sizeof(*item_row)); /* RT_TL_NONE: no row (yet) */
	tl_vec_init(&late, sizeof(uint32_t));
	if ((rc = finish_keys(b, keys, src_start, nsrc)) < 0 ||
	    (rc = finish_rows(b, keys, src_start, nsrc, rows, n, item_row, mask, nmask, &late)) < 0)
		goto fail;
	free(src_start);
	src_start = NULL;
	/* finish_rows gave every other item its row */
	for (size_t i = 0; b->ev_shadow && i < nev; i++)
		if (!item_has_row(b, i))
			tl_ev(b, i)->row = RT_TL_NONE;
	finish_late_wrs(b, item_row, &late);
	tl_vec_free(&late);
	/* the links by source item: the detectors' index, which the
	 * statistics hold until they are joined, or one made here */
	const struct tl_link_index *x = tl_stats_link_index(b);
	if (!x) {
		if ((rc = tl_link_index_build(b, &own_index)) < 0)
			goto fail;
		x = &own_index;
	}
	struct tl_xlink *extra;
	size_t nextra;
	if ((rc = link_counts(b, n, item_row, nitems, x, &extra, &nextra, &nlinks)) < 0)
		goto fail;
	tl->prepared = tl_prefault_take_file(b);
	presave_start(tl, b, n, nlinks);
	rc = finish_links(b, rows, n, item_row, nitems, x, extra, nextra, nlinks, keys, &links);
	keys = NULL;
	tl_link_index_free(&own_index);
	if (rc < 0)
		goto fail;
	free(item_row);
	item_row = NULL;
	/* findings: evidence = the finding row's links */
	for (size_t i = 0; i < nf; i++) {
		struct rt_tl_finding *f = TL_AT(&b->findings, struct rt_tl_finding, i);
		f->ev_off = rows[f->row].link_off;
		f->ev_count = rows[f->row].link_count;
	}
	/* the build's arrays move into the timeline: the statistics must be done */
	if ((rc = tl_stats_join(b)) < 0)
		goto fail;
	tl->rows = rows;
	tl->nrows = n;
	tl_own(tl, rows);
	rows = NULL;
	tl->links = links;
	tl->nlinks = nlinks;
	tl_own(tl, links);
#define TAKE(field, nfield, vec)                          \
	do {                                              \
		tl->field = (vec)->p;                     \
		tl->nfield = (vec)->n;                    \
		tl_own(tl, (vec)->p);                     \
		(vec)->p = NULL;                          \
		(vec)->n = (vec)->cap = (vec)->ready = 0; \
	} while (0)
	TAKE(strs, nstrs, &b->strs);
	TAKE(hosts, nhosts, &b->hosts);
	TAKE(procs, nprocs, &b->procs);
	TAKE(qps, nqps, &b->qps);
	TAKE(findings, nfindings, &b->findings);
	TAKE(events, nevents, &b->ev);
	TAKE(pkts, npkts, &b->pkrec);
	TAKE(blob, nblob, &b->blob);
	TAKE(notes, nnotes, &b->notes);
#undef TAKE
	tl->capture_path = b->capture_path;
	rc = finish_match(tl, mask, nmask);
	free(mask);
	if (rc < 0) {
		rt_timeline_free(tl);
		return rc;
	}
	*out = tl;
	return 0;
fail:
	tl_link_index_free(&own_index);
	tl_vec_free(&late);
	free(keys);
	free(src_start);
	free(item_row);
	free(mask);
	free(rows);
	free(links);
	if (tl)
		rt_timeline_free(tl);
	return rc;
}

/* ---- save / load ---- */

static int pwrite_all(int fd, const void *p, size_t n, uint64_t off)
{
	const char *c = p;
	while (n) {
		ssize_t w = pwrite(fd, c, n, (off_t)off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		c += w;
		n -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

/* Sections written by one thread: [first, last) of the section list. */
struct tl_writer {
	int fd;
	const struct tl_file_header *h;
	const void *const *data;
	unsigned first, last;
	int rc;
};

static void *write_sections(void *arg)
{
	struct tl_writer *w = arg;
	for (unsigned s = w->first; !w->rc && s < w->last; s++)
		if (w->h->sect[s].count && w->data[s]) /* NULL: in the file already */
			w->rc = pwrite_all(w->fd, w->data[s], w->h->sect[s].count * w->h->sect[s].esz, w->h->sect[s].off);
	return NULL;
}

/* The offsets of the sections of a file of count[s] elements each, and its
 * size (a section's offset depends only on the counts before it). */
static void file_layout(struct tl_file_header *h, const size_t count[S_COUNT])
{
	uint64_t off = ROWS_OFF;
	for (unsigned s = 0; s < S_COUNT; s++) {
		h->sect[s].off = off;
		h->sect[s].count = count[s];
		h->sect[s].esz = sect_esz[s];
		off = (off + count[s] * sect_esz[s] + 63) & ~63ull;
	}
	h->size = off;
}

/* The records (trace events, packet records, header bytes: 240 MB of a
 * 1 M packet run) are final once the rows are made, and where they go in
 * the file is known once the links are counted: they are written into the
 * save's prepared file on a thread of their own while the build finishes
 * (the links, the search indices, freeing the build), and the save only
 * waits for them (rt_timeline_save). */
enum { PRESAVE_FIRST = S_EVENTS, PRESAVE_LAST = S_BLOB + 1 };

struct tl_presave {
	pthread_t th;
	char *file;
	struct tl_file_header h;  /* the sections' offsets and counts */
	const void *data[S_COUNT];
	struct tl_writer w;
};

static void *presave_run(void *arg)
{
	struct tl_presave *p = arg;
	p->w.fd = open(p->file, O_WRONLY | O_CLOEXEC);
	p->w.rc = p->w.fd < 0 ? -errno : 0;
	write_sections(&p->w);
	if (p->w.fd >= 0 && close(p->w.fd) < 0 && !p->w.rc)
		p->w.rc = -errno;
	return NULL;
}

/* Into tl->prepared, when there is one. */
static void presave_start(struct rt_timeline *tl, struct tl_build *b, size_t nrows, size_t nlinks)
{
	if (!tl->prepared)
		return;
	struct tl_presave *p = calloc(1, sizeof(*p));
	if (!p || !(p->file = strdup(tl->prepared))) {
		free(p);
		return; /* the save writes them */
	}
	size_t count[S_COUNT] = {[S_ROWS] = nrows, [S_LINKS] = nlinks, [S_STRS] = b->strs.n,
				 [S_HOSTS] = b->hosts.n, [S_PROCS] = b->procs.n, [S_QPS] = b->qps.n,
				 [S_FINDINGS] = b->findings.n, [S_EVENTS] = b->ev.n, [S_PKTS] = b->pkrec.n,
				 [S_BLOB] = b->blob.n};
	file_layout(&p->h, count);
	p->data[S_EVENTS] = b->ev.p;
	p->data[S_PKTS] = b->pkrec.p;
	p->data[S_BLOB] = b->blob.p;
	p->w = (struct tl_writer){.h = &p->h, .data = p->data, .first = PRESAVE_FIRST, .last = PRESAVE_LAST};
	if (pthread_create(&p->th, NULL, presave_run, p) != 0) {
		free(p->file);
		free(p);
		return;
	}
	tl->presave = p;
}

/* Wait for the presave; its status (0 when there is none). */
static int presave_join(struct rt_timeline *tl)
{
	struct tl_presave *p = tl->presave;
	if (!p)
		return 0;
	pthread_join(p->th, NULL);
	int rc = p->w.rc;
	free(p->file);
	free(p);
	tl->presave = NULL;
	return rc;
}

/* The presave wrote into file the sections h has at the same places. */
static bool presave_fits(const struct rt_timeline *tl, const char *file, const struct tl_file_header *h)
{
	const struct tl_presave *p = tl->presave;
	if (!p || strcmp(p->file, file))
		return false;
	for (unsigned s = PRESAVE_FIRST; s < PRESAVE_LAST; s++)
		if (p->h.sect[s].off != h->sect[s].off || p->h.sect[s].count != h->sect[s].count)
			return false;
	return true;
}

void tl_file_tmp_name(const char *path, char *tmp, size_t len)
{
	snprintf(tmp, len, "%s.tmp.%d", path, (int)getpid());
}

int tl_file_prepare(const char *tmp, uint64_t size)
{
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	/* allocating the space is what costs (pages of a tmpfs, blocks of a
	 * disk): done here, off the build's critical path; where the file
	 * system cannot, the save allocates it as it writes */
	int rc = size && fallocate(fd, 0, 0, (off_t)size) < 0 ? -errno : 0;
	close(fd);
	if (rc && rc != -EOPNOTSUPP && rc != -ENOSYS) {
		unlink(tmp);
		return rc;
	}
	return 0;
}

/* The file a save replaced is closed on a thread of its own, joined when the
 * timeline is freed: the last close of a replaced file gives its space back,
 * which for a large timeline on a tmpfs takes about as long as writing it. */
struct tl_release {
	pthread_t th;
	int fd;
};

static void *release_run(void *arg)
{
	struct tl_release *r = arg;
	close(r->fd);
	return NULL;
}

static void release_join(struct rt_timeline *tl)
{
	if (tl->release) {
		pthread_join(tl->release->th, NULL);
		free(tl->release);
		tl->release = NULL;
	}
}

static void release_start(struct rt_timeline *tl, int fd)
{
	release_join(tl);
	struct tl_release *r = malloc(sizeof(*r));
	if (r) {
		r->fd = fd;
		if (pthread_create(&r->th, NULL, release_run, r) == 0) {
			tl->release = r;
			return;
		}
		free(r);
	}
	close(fd);
}

int rt_timeline_save(const struct rt_timeline *tl, const char *path, char *err, size_t errlen)
{
	struct tl_file_header h;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, TL_MAGIC, 8);
	h.version = TL_VERSION;
	h.nsect = S_COUNT;
	h.capture_path = tl->capture_path;
	h.input_stamp = tl->input_stamp;
	const void *data[S_COUNT] = {tl->rows, tl->links, tl->strs, tl->hosts, tl->procs, tl->qps, tl->findings,
				     tl->events, tl->pkts, tl->blob, tl->notes};
	size_t count[S_COUNT] = {tl->nrows, tl->nlinks, tl->nstrs, tl->nhosts, tl->nprocs, tl->nqps,
				 tl->nfindings, tl->nevents, tl->npkts, tl->nblob, tl->nnotes};
	for (unsigned m = 0; m < RT_TLM_COUNT_; m++) {
		data[S_MATCH0 + m] = tl->match[m];
		count[S_MATCH0 + m] = tl->nmatch[m];
	}
	file_layout(&h, count);
	char tmp[4096];
	tl_file_tmp_name(path, tmp, sizeof(tmp));
	/* the file the build prepared for this path holds zeros: keep its pages */
	bool prepared = tl->prepared && !strcmp(tl->prepared, tmp);
	/* the records the presave writes there: waited for after the rest */
	bool presaved = prepared && presave_fits(tl, tmp, &h);
	const void *pdata[S_COUNT] = {0};
	for (unsigned s = PRESAVE_FIRST; presaved && s < PRESAVE_LAST; s++) {
		pdata[s] = data[s];
		data[s] = NULL;
	}
	int fd = open(tmp, O_WRONLY | O_CREAT | O_CLOEXEC | (prepared ? 0 : O_TRUNC), 0644);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "cannot create %s: %s", tmp, strerror(e));
		return -e;
	}
	/* the file at its full size (padding reads as zeros), then the
	 * sections in two halves by size, one of them in a second thread: the
	 * copy into the page cache is most of the time of a save */
	int rc = ftruncate(fd, (off_t)h.size) < 0 ? -errno : pwrite_all(fd, &h, sizeof(h), 0);
	uint64_t total = 0;
	for (unsigned s = 0; s < S_COUNT; s++)
		total += data[s] ? h.sect[s].count * h.sect[s].esz : 0;
	unsigned split = 0;
	for (uint64_t half = 0; split < S_COUNT && half * 2 < total; split++)
		half += data[split] ? h.sect[split].count * h.sect[split].esz : 0;
	struct tl_writer w[2] = {{fd, &h, data, 0, split, rc}, {fd, &h, data, split, S_COUNT, rc}};
	pthread_t th;
	bool threaded = !rc && pthread_create(&th, NULL, write_sections, &w[1]) == 0;
	write_sections(&w[0]);
	if (threaded)
		pthread_join(th, NULL);
	else
		write_sections(&w[1]);
	rc = rc ? rc : w[0].rc ? w[0].rc : w[1].rc;
	if (presave_join((struct rt_timeline *)tl) < 0 && presaved && !rc) {
		/* it failed: the records are written here after all */
		struct tl_writer pw = {fd, &h, pdata, PRESAVE_FIRST, PRESAVE_LAST, 0};
		write_sections(&pw);
		rc = pw.rc;
	}
	if (close(fd) < 0 && !rc)
		rc = -errno;
	/* the file replaced stays open through the rename (release_start) */
	int old = rc ? -1 : open(path, O_RDONLY | O_CLOEXEC);
	if (!rc && rename(tmp, path) < 0)
		rc = -errno;
	if (old >= 0) {
		if (rc)
			close(old);
		else
			release_start((struct rt_timeline *)tl, old);
	}
	if (rc) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(-rc));
		unlink(tmp);
	}
	if (prepared) {
		/* the prepared file is used up: the one thing a save changes */
		struct rt_timeline *mtl = (struct rt_timeline *)tl;
		free(mtl->prepared);
		mtl->prepared = NULL;
	}
	return rc;
}

static int tl_from_image(struct rt_timeline *tl, const uint8_t *img, size_t len, char *err, size_t errlen)
{
	struct tl_file_header h;
	if (len < sizeof(h)) {
		snprintf(err, errlen, "not a timeline file (too short)");
		return -EINVAL;
	}
	memcpy(&h, img, sizeof(h));
	if (memcmp(h.magic, TL_MAGIC, 8)) {
		snprintf(err, errlen, "not a timeline file (bad magic)");
		return -EINVAL;
	}
	if (h.version != TL_VERSION || h.nsect != S_COUNT) {
		snprintf(err, errlen, "timeline file version %u not supported (this is %u): rerun correlate",
			 h.version, TL_VERSION);
		return -EPROTO;
	}
	if (h.size > len) {
		snprintf(err, errlen, "timeline file truncated (%zu of %llu bytes)", len,
			 (unsigned long long)h.size);
		return -EINVAL;
	}
	const void *p[S_COUNT];
	for (unsigned s = 0; s < S_COUNT; s++) {
		const struct tl_sect *sc = &h.sect[s];
		if (sc->esz != sect_esz[s] || sc->off > len || (sc->off & 7) ||
		    sc->count > (len - sc->off) / sc->esz) {
			snprintf(err, errlen, "timeline file damaged (section %u)", s);
			return -EINVAL;
		}
		p[s] = img + sc->off;
	}
	if (h.sect[S_STRS].count == 0 || img[h.sect[S_STRS].off + h.sect[S_STRS].count - 1] != 0) {
		snprintf(err, errlen, "timeline file damaged (string table)");
		return -EINVAL;
	}
	tl->rows = p[S_ROWS];
	tl->nrows = h.sect[S_ROWS].count;
	tl->links = p[S_LINKS];
	tl->nlinks = h.sect[S_LINKS].count;
	tl->strs = p[S_STRS];
	tl->nstrs = h.sect[S_STRS].count;
	tl->hosts = p[S_HOSTS];
	tl->nhosts = h.sect[S_HOSTS].count;
	tl->procs = p[S_PROCS];
	tl->nprocs = h.sect[S_PROCS].count;
	tl->qps = p[S_QPS];
	tl->nqps = h.sect[S_QPS].count;
	tl->findings = p[S_FINDINGS];
	tl->nfindings = h.sect[S_FINDINGS].count;
	tl->events = p[S_EVENTS];
	tl->nevents = h.sect[S_EVENTS].count;
	tl->pkts = p[S_PKTS];
	tl->npkts = h.sect[S_PKTS].count;
	tl->blob = p[S_BLOB];
	tl->nblob = h.sect[S_BLOB].count;
	tl->notes = p[S_NOTES];
	tl->nnotes = h.sect[S_NOTES].count;
	for (unsigned m = 0; m < RT_TLM_COUNT_; m++) {
		tl->match[m] = p[S_MATCH0 + m];
		tl->nmatch[m] = h.sect[S_MATCH0 + m].count;
	}
	tl->capture_path = h.capture_path;
	tl->input_stamp = h.input_stamp;
	return 0;
}

int tl_file_stamp(const char *path, uint64_t *stamp)
{
	struct tl_file_header h;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = pread(fd, &h, sizeof(h), 0);
	int e = n < 0 ? errno : 0;
	close(fd);
	if (n < 0)
		return -e;
	if ((size_t)n < sizeof(h) || memcmp(h.magic, TL_MAGIC, 8))
		return -EINVAL;
	if (h.version != TL_VERSION || h.nsect != S_COUNT)
		return -EPROTO;
	*stamp = h.input_stamp;
	return 0;
}

int rt_timeline_load(const char *path, struct rt_timeline **out, char *err, size_t errlen)
{
	*out = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(e));
		return -e;
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || st.st_size <= 0) {
		close(fd);
		snprintf(err, errlen, "%s: empty or unreadable", path);
		return -EINVAL;
	}
	void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		int e = errno;
		snprintf(err, errlen, "cannot map %s: %s", path, strerror(e));
		return -e;
	}
	struct rt_timeline *tl = calloc(1, sizeof(*tl));
	if (!tl) {
		munmap(m, (size_t)st.st_size);
		return -ENOMEM;
	}
	tl->map = m;
	tl->map_len = (size_t)st.st_size;
	int rc = tl_from_image(tl, m, (size_t)st.st_size, err, errlen);
	if (rc < 0) {
		rt_timeline_free(tl);
		return rc;
	}
	*out = tl;
	return 0;
}

int rt_timeline_load_mem(const void *data, size_t len, struct rt_timeline **out, char *err, size_t errlen)
{
	*out = NULL;
	struct rt_timeline *tl = calloc(1, sizeof(*tl));
	/* a copy, 64-byte aligned like a mapping */
	void *copy = NULL;
	if (!tl || posix_memalign(&copy, 64, len ? len : 1)) {
		free(tl);
		return -ENOMEM;
	}
	memcpy(copy, data, len);
	tl_own(tl, copy);
	int rc = tl_from_image(tl, copy, len, err, errlen);
	if (rc < 0) {
		rt_timeline_free(tl);
		return rc;
	}
	*out = tl;
	return 0;
}

void rt_timeline_free(struct rt_timeline *tl)
{
	if (!tl)
		return;
	presave_join(tl); /* first: it reads the records */
	if (tl->prepared) {
		unlink(tl->prepared); /* never saved (a save renamed it away) */
		free(tl->prepared);
	}
	for (size_t i = 0; i < tl->nowned; i++)
		free(tl->owned[i]);
	if (tl->map)
		munmap(tl->map, tl->map_len);
	release_join(tl); /* last: it runs beside the frees above */
	free(tl);
}

/* ---- access ---- */

size_t rt_tl_row_count(const struct rt_timeline *tl)
{
	return tl->nrows;
}

const struct rt_tl_row *rt_tl_row(const struct rt_timeline *tl, size_t i)
{
	return i < tl->nrows ? &tl->rows[i] : NULL;
}

size_t rt_tl_links(const struct rt_timeline *tl, size_t i, const struct rt_tl_link **out)
{
	*out = NULL;
	if (i >= tl->nrows)
		return 0;
	const struct rt_tl_row *r = &tl->rows[i];
	if (r->link_off > tl->nlinks || r->link_count > tl->nlinks - r->link_off)
		return 0;
	*out = tl->links + r->link_off;
	return r->link_count;
}

const char *rt_tl_str(const struct rt_timeline *tl, uint32_t off)
{
	return off < tl->nstrs ? tl->strs + off : "";
}

size_t rt_tl_host_count(const struct rt_timeline *tl)
{
	return tl->nhosts;
}
const struct rt_tl_host *rt_tl_host(const struct rt_timeline *tl, size_t i)
{
	return i < tl->nhosts ? &tl->hosts[i] : NULL;
}
size_t rt_tl_proc_count(const struct rt_timeline *tl)
{
	return tl->nprocs;
}
const struct rt_tl_proc *rt_tl_proc(const struct rt_timeline *tl, size_t i)
{
	return i < tl->nprocs ? &tl->procs[i] : NULL;
}
size_t rt_tl_qp_count(const struct rt_timeline *tl)
{
	return tl->nqps;
}
const struct rt_tl_qp *rt_tl_qp(const struct rt_timeline *tl, size_t i)
{
	return i < tl->nqps ? &tl->qps[i] : NULL;
}
size_t rt_tl_finding_count(const struct rt_timeline *tl)
{
	return tl->nfindings;
}
const struct rt_tl_finding *rt_tl_finding(const struct rt_timeline *tl, size_t i)
{
	return i < tl->nfindings ? &tl->findings[i] : NULL;
}

const struct rt_event *rt_tl_event(const struct rt_timeline *tl, size_t row)
{
	if (row >= tl->nrows || tl->rows[row].kind >= 64 || tl->rows[row].ref >= tl->nevents)
		return NULL;
	return &tl->events[tl->rows[row].ref].ev;
}

static const struct tl_pktrec *pktrec(const struct rt_timeline *tl, size_t row)
{
	if (row >= tl->nrows)
		return NULL;
	const struct rt_tl_row *r = &tl->rows[row];
	if ((r->kind != RT_TLK_PACKET && r->kind != RT_TLK_CM_PACKET) || r->ref >= tl->npkts)
		return NULL;
	return &tl->pkts[r->ref];
}

uint64_t rt_tl_raw_ns(const struct rt_timeline *tl, size_t row)
{
	if (row >= tl->nrows)
		return 0;
	const struct rt_tl_row *r = &tl->rows[row];
	if (r->kind < 64 && r->ref < tl->nevents)
		return tl->events[r->ref].raw_ns;
	const struct tl_pktrec *p = pktrec(tl, row);
	return p ? p->raw_ns : r->t_ns;
}

size_t rt_tl_packet_bytes(const struct rt_timeline *tl, size_t row, const uint8_t **data, uint32_t *wirelen,
			  uint16_t *linktype)
{
	const struct tl_pktrec *p = pktrec(tl, row);
	*data = NULL;
	if (!p || p->blob_off > tl->nblob || p->blob_len > tl->nblob - p->blob_off)
		return 0;
	*data = tl->blob + p->blob_off;
	if (wirelen)
		*wirelen = p->wirelen;
	if (linktype)
		*linktype = p->linktype;
	return p->blob_len;
}

const char *rt_tl_packet_annotation(const struct rt_timeline *tl, size_t row)
{
	static __thread char buf[1024];
	buf[0] = 0;
	if (pktrec(tl, row))
		tl_format_annotation(tl, tl->rows[row].ref, buf, sizeof(buf));
	return buf;
}

size_t rt_tl_format_annotation(const struct rt_timeline *tl, size_t row, char *buf, size_t len)
{
	if (len)
		buf[0] = 0;
	return pktrec(tl, row) && len ? tl_format_annotation(tl, tl->rows[row].ref, buf, len) : 0;
}

const char *rt_tl_capture_path(const struct rt_timeline *tl)
{
	return rt_tl_str(tl, tl->capture_path);
}

size_t rt_tl_note_count(const struct rt_timeline *tl)
{
	return tl->nnotes;
}

const char *rt_tl_note(const struct rt_timeline *tl, size_t i)
{
	return i < tl->nnotes ? rt_tl_str(tl, tl->notes[i]) : "";
}

uint64_t rt_tl_first_ns(const struct rt_timeline *tl)
{
	return tl->nrows ? tl->rows[0].t_ns : 0;
}

uint64_t rt_tl_last_ns(const struct rt_timeline *tl)
{
	return tl->nrows ? tl->rows[tl->nrows - 1].t_ns : 0;
}

/* ---- search ---- */

size_t rt_tl_find_time(const struct rt_timeline *tl, uint64_t t_ns)
{
	size_t lo = 0, hi = tl->nrows;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (tl->rows[mid].t_ns < t_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

ssize_t rt_tl_next_match(const struct rt_timeline *tl, ssize_t from, unsigned mask, int dir)
{
	ssize_t best = -1;
	for (unsigned m = 0; m < RT_TLM_COUNT_; m++) {
		if (!(mask & (1u << m)))
			continue;
		const uint32_t *a = tl->match[m];
		size_t n = tl->nmatch[m];
		/* first index with a[i] > from */
		size_t lo = 0, hi = n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if ((ssize_t)a[mid] <= from)
				lo = mid + 1;
			else
				hi = mid;
		}
		ssize_t cand = -1;
		if (dir >= 0) {
			if (lo < n)
				cand = a[lo];
		} else {
			/* last index with a[i] < from */
			size_t j = lo;
			while (j > 0 && (ssize_t)a[j - 1] >= from)
				j--;
			if (j > 0)
				cand = a[j - 1];
		}
		if (cand < 0 || (size_t)cand >= tl->nrows)
			continue;
		if (best < 0 || (dir >= 0 ? cand < best : cand > best))
			best = cand;
	}
	return best;
}

ssize_t rt_tl_next_where(const struct rt_timeline *tl, ssize_t from, int dir,
			 int (*pred)(const struct rt_timeline *tl, size_t row, void *ctx), void *ctx)
{
	ssize_t n = (ssize_t)tl->nrows;
	for (ssize_t i = from + (dir >= 0 ? 1 : -1); i >= 0 && i < n; i += dir >= 0 ? 1 : -1)
		if (pred(tl, (size_t)i, ctx))
			return i;
	return -1;
}

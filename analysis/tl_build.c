/*
 * Building a timeline: read every trace file and the capture into build
 * records, then run the linking, clock alignment and detectors, and hand
 * the result to tl_finish() (analysis/tl_file.c), which makes the rows and
 * the packets' annotation facts.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "rdmatrace/capfile.h"
#include "rdmatrace/capture_copies.h"
#include "rdmatrace/trace_reader.h"
#include "rdmatrace/trace_format.h"
#include "rdmatrace/tracer.h"
#include "tl_internal.h"

/* Header bytes kept per packet (more for MADs, whose payload is the message). */
#define TL_KEEP_MAX 512

void tl_vec_init(struct tl_vec *v, size_t esz)
{
	memset(v, 0, sizeof(*v));
	v->esz = esz;
}

/* Room for exactly cap elements (cap >= v->n). */
static int vec_resize(struct tl_vec *v, size_t cap)
{
	void *p = realloc(v->p, (cap ? cap : 1) * v->esz);
	if (!p)
		return -ENOMEM;
	v->p = p;
	v->cap = cap;
	if (v->ready > cap * v->esz)
		v->ready = cap * v->esz;
	return 0;
}

int tl_vec_reserve(struct tl_vec *v, size_t n)
{
	if (n <= v->cap)
		return 0;
	size_t cap = v->cap ? v->cap : 16;
	while (cap < n)
		cap *= 2;
	return vec_resize(v, cap);
}

/* Pages of a growing array are faulted in ahead of the pushes, TL_VEC_AHEAD
 * bytes at a time: one call instead of a page fault every page, which costs
 * about a third of touching new memory (the packets and events of a large
 * run are hundreds of megabytes). */
#define TL_VEC_AHEAD (2u << 20)

/* Faults in the pages of [p, p + len) for writing, from the one p is in to
 * the last whole one, leaving what they hold as it is (memory already there
 * costs a walk of its page tables). */
static void populate(const void *p, size_t len)
{
#ifdef MADV_POPULATE_WRITE
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)p & ~(page - 1);
	uintptr_t z = ((uintptr_t)p + len) & ~(page - 1);
	if (z > a)
		madvise((void *)a, z - a, MADV_POPULATE_WRITE); /* an older kernel faults them in as used */
#else
	(void)p;
	(void)len;
#endif
}

static void vec_fault_ahead(struct tl_vec *v)
{
	size_t end = v->cap * v->esz, want = v->ready + TL_VEC_AHEAD;
	if (want > end)
		want = end;
	populate((char *)v->p + v->ready, want - v->ready);
	v->ready = want;
}

/* Room for n more bytes of a byte array, faulted in; NULL without memory. */
static uint8_t *vec_append(struct tl_vec *v, size_t n)
{
	if (tl_vec_reserve(v, v->n + n) < 0)
		return NULL;
	if (v->n + n > v->ready)
		vec_fault_ahead(v);
	uint8_t *e = (uint8_t *)v->p + v->n;
	v->n += n;
	return e;
}

/* Room for one more element, not zeroed; NULL without memory. */
static void *vec_room(struct tl_vec *v)
{
	if (v->n == v->cap && tl_vec_reserve(v, v->n + 1) < 0)
		return NULL;
	if ((v->n + 1) * v->esz > v->ready)
		vec_fault_ahead(v);
	return (char *)v->p + v->n++ * v->esz;
}

void *tl_vec_push(struct tl_vec *v)
{
	void *e = vec_room(v);
	if (e)
		memset(e, 0, v->esz);
	return e;
}

int tl_vec_push_u32(struct tl_vec *v, uint32_t x)
{
	uint32_t *p = tl_vec_push(v);
	if (!p)
		return -ENOMEM;
	*p = x;
	return 0;
}

void tl_vec_free(struct tl_vec *v)
{
	free(v->p);
	v->p = NULL;
	v->n = v->cap = v->ready = 0;
}

uint32_t tl_str(struct tl_build *b, const char *s)
{
	size_t n = strlen(s) + 1;
	if (tl_vec_reserve(&b->strs, b->strs.n + n) < 0)
		return 0;
	uint32_t off = (uint32_t)b->strs.n;
	memcpy((char *)b->strs.p + off, s, n);
	b->strs.n += n;
	return off;
}

uint32_t tl_strf(struct tl_build *b, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return tl_str(b, buf);
}

void tl_note(struct tl_build *b, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	uint32_t *n = tl_vec_push(&b->notes);
	if (n)
		*n = tl_str(b, buf);
}

int tl_link(struct tl_build *b, uint32_t from, uint32_t to, uint32_t type)
{
	if (from == RT_TL_NONE || to == RT_TL_NONE)
		return 0;
	/* every field set: no zeroing first (the linking makes millions) */
	struct tl_blink *l = vec_room(&b->links);
	if (!l)
		return -ENOMEM;
	*l = (struct tl_blink){.from = from, .to = to, .type = type};
	return 0;
}

int tl_link2(struct tl_build *b, uint32_t a, uint32_t b_item, uint32_t type_ab, uint32_t type_ba)
{
	int rc = tl_link(b, a, b_item, type_ab);
	return rc ? rc : tl_link(b, b_item, a, type_ba);
}

uint64_t tl_item_raw(struct tl_build *b, uint32_t item)
{
	if (item < tl_nev(b))
		return *TL_AT(&b->ev_raw, uint64_t, item);
	if (item < tl_nev(b) + tl_npk(b))
		return tl_pk(b, item - tl_nev(b))->raw_ns;
	return 0;
}

uint16_t tl_item_host(struct tl_build *b, uint32_t item)
{
	if (item < tl_nev(b))
		return *TL_AT(&b->ev_host, uint16_t, item);
	return b->capture_host;
}

uint64_t tl_item_time(struct tl_build *b, uint32_t item)
{
	uint16_t h = tl_item_host(b, item);
	uint64_t raw = tl_item_raw(b, item);
	return h < b->hosts.n ? tl_align(tl_host(b, h), raw) : raw;
}

int tl_link_index_build(struct tl_build *b, struct tl_link_index *x)
{
	size_t n = tl_nev(b) + tl_npk(b), nl = b->links.n;
	x->n = n;
	x->nl = nl;
	x->outside = 0;
	x->off = calloc(n + 1, sizeof(uint32_t));
	x->ls = malloc((nl ? nl : 1) * sizeof(*x->ls));
	if (!x->off || !x->ls)
		return -ENOMEM;
	/* item i's count in off[i + 1], summed: off[i] is where its links
	 * start; placing them moves off[i] to where item i + 1's start, and a
	 * shift by one entry puts that back */
	for (size_t i = 0; i < nl; i++) {
		const struct tl_blink *l = TL_AT(&b->links, struct tl_blink, i);
		if (l->from < n)
			x->off[l->from + 1]++;
		else
			x->outside++;
	}
	for (size_t i = 1; i <= n; i++)
		x->off[i] += x->off[i - 1];
	for (size_t i = 0; i < nl; i++) {
		const struct tl_blink *l = TL_AT(&b->links, struct tl_blink, i);
		if (l->from < n)
			x->ls[x->off[l->from]++] = (struct tl_ilink){.to = l->to, .type = l->type};
	}
	memmove(x->off + 1, x->off, n * sizeof(uint32_t));
	x->off[0] = 0;
	return 0;
}

uint32_t tl_link_index_first(const struct tl_link_index *x, uint32_t item, uint32_t type)
{
	if (item >= x->n)
		return RT_TL_NONE;
	for (uint32_t i = x->off[item]; i < x->off[item + 1]; i++)
		if (x->ls[i].type == type)
			return x->ls[i].to;
	return RT_TL_NONE;
}

void tl_link_index_free(struct tl_link_index *x)
{
	free(x->off);
	free(x->ls);
	memset(x, 0, sizeof(*x));
}

static uint16_t host_find_or_add(struct tl_build *b, const char *name, uint32_t flags)
{
	for (size_t i = 0; i < b->hosts.n; i++)
		if (!strcmp((const char *)b->strs.p + tl_host(b, i)->name, name)) {
			tl_host(b, i)->flags |= flags;
			return (uint16_t)i;
		}
	struct rt_tl_host *h = tl_vec_push(&b->hosts);
	if (!h)
		return UINT16_MAX;
	uint32_t off = tl_str(b, name);
	h = tl_host(b, b->hosts.n - 1);
	h->name = off;
	h->flags = flags;
	h->offset_lo_ns = INT64_MIN;
	h->offset_hi_ns = INT64_MAX;
	h->uncertainty_ns = UINT64_MAX;
	return (uint16_t)(b->hosts.n - 1);
}

static uint16_t proc_find_or_add(struct tl_build *b, uint16_t host, int32_t pid, const char *program,
				 const char *path)
{
	for (size_t i = 0; i < b->procs.n; i++) {
		struct rt_tl_proc *p = TL_AT(&b->procs, struct rt_tl_proc, i);
		if (p->host == host && p->pid == pid)
			return (uint16_t)i;
	}
	uint32_t prog = tl_str(b, program ? program : "");
	uint32_t tf = tl_str(b, path ? path : "");
	struct rt_tl_proc *p = tl_vec_push(&b->procs);
	if (!p)
		return UINT16_MAX;
	p->host = host;
	p->pid = pid;
	p->program = prog;
	p->trace_file = tf;
	return (uint16_t)(b->procs.n - 1);
}

/* Per-process vector v (zeroed elements) grown to hold process proc: its
 * element, NULL when proc is none or memory ran out. */
static void *proc_slot(struct tl_build *b, struct tl_vec *v, uint16_t proc)
{
	if (proc >= b->procs.n)
		return NULL;
	while (v->n < b->procs.n)
		if (!tl_vec_push(v))
			return NULL;
	return (uint8_t *)v->p + (size_t)proc * v->esz;
}

/* Record of process proc at raw time ns came from a dead program's rings
 * (RT_CHUNKF_SALVAGED): it ended without its exit handler, at least until a
 * later record says otherwise (an exec). */
static void note_salvaged(struct tl_build *b, uint16_t proc, uint64_t ns)
{
	uint64_t *t = proc_slot(b, &b->proc_salvaged, proc);
	if (t && ns > *t)
		*t = ns;
}

/* The trace file that trace i copies (a run's traces/ and a host's
 * RUNDIR/HOST/traces both holding it, or a file copied beside itself):
 * another file of the same process (host, boot, pid) starting at the same
 * event, which holds more records or as many and comes first; the count of
 * files when there is none. */
static size_t copy_of_trace(const struct rt_trace_reader *r, size_t i)
{
	size_t n = rt_trace_reader_source_count(r);
	const struct rt_trace_source *s = rt_trace_reader_source(r, i);
	if (!s->boot_id[0] || !s->records)
		return n;
	for (size_t j = 0; j < n; j++) {
		const struct rt_trace_source *o = rt_trace_reader_source(r, j);
		if (j == i || o->pid != s->pid || o->first_ns != s->first_ns || strcmp(o->boot_id, s->boot_id) ||
		    strcmp(o->host, s->host))
			continue;
		if (o->records > s->records || (o->records == s->records && j < i))
			return j;
	}
	return n;
}

static int read_traces(struct tl_build *b, const struct rt_tl_inputs *in)
{
	if (!in->ntraces)
		return 0;
	struct rt_trace_reader *r = rt_trace_reader_new();
	if (!r)
		return -ENOMEM;
	size_t ok = 0;
	for (size_t i = 0; i < in->ntraces; i++) {
		char e[256];
		if (rt_trace_reader_add_file(r, in->traces[i], e, sizeof(e)) < 0) {
			tl_note(b, "trace %s unreadable: %s", in->traces[i], e);
			continue;
		}
		ok++;
	}
	size_t total = rt_trace_reader_count(r); /* also reads the files' time ranges (copy_of_trace) */
	size_t nsrc = rt_trace_reader_source_count(r);
	uint16_t *src_host = calloc(nsrc ? nsrc : 1, sizeof(*src_host));
	if (!src_host) {
		rt_trace_reader_free(r);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nsrc; i++) {
		const struct rt_trace_source *s = rt_trace_reader_source(r, i);
		size_t orig = copy_of_trace(r, i);
		if (orig < nsrc) {
			src_host[i] = UINT16_MAX; /* its records are skipped */
			tl_note(b, "trace %s is a copy of %s (the same process: host, boot, pid and first event): read once",
				s->path, rt_trace_reader_source(r, orig)->path);
			continue;
		}
		src_host[i] = host_find_or_add(b, s->host[0] ? s->host : "unknown-host", RT_TLH_TRACED);
	}
	if (tl_vec_reserve(&b->ev, total) < 0 || tl_vec_reserve(&b->ev_raw, total) < 0 ||
	    tl_vec_reserve(&b->ev_host, total) < 0 || tl_vec_reserve(&b->host_nev, b->hosts.n) < 0) {
		free(src_host);
		rt_trace_reader_free(r);
		return -ENOMEM;
	}
	b->host_nev.n = b->hosts.n;
	if (b->hosts.n) /* (no host: every trace a copy of another, or none readable; p may be NULL) */
		memset(b->host_nev.p, 0, b->hosts.n * sizeof(size_t));
	struct rt_trace_record rec;
	/* cache of the last process looked up */
	int32_t last_pid = -1;
	unsigned last_file = ~0u;
	uint16_t last_proc = UINT16_MAX;
	while (rt_trace_reader_next(r, &rec) > 0) {
		if (rec.ev.kind == RT_EV_NONE || (rec.file < nsrc && src_host[rec.file] == UINT16_MAX))
			continue;
		struct tl_evrec *e = b->ev.n < total ? tl_vec_push(&b->ev) : NULL; /* within the reserve */
		if (!e)
			break;
		e->ev = rec.ev;
		e->raw_ns = rec.ns;
		b->engine_packets |= rec.ev.kind == RT_EV_PACKET;
		e->host = rec.file < nsrc ? src_host[rec.file] : 0;
		if (rec.pid != last_pid || rec.file != last_file) {
			last_proc = proc_find_or_add(b, e->host, rec.pid, rec.program, rec.src ? rec.src->path : "");
			last_pid = rec.pid;
			last_file = rec.file;
			e = tl_ev(b, b->ev.n - 1);
			uint8_t *bits = rec.src && rec.src->mode == RT_MODE_FLIGHT_RECORDER
						? proc_slot(b, &b->proc_bits, last_proc) : NULL;
			if (bits)
				*bits |= TL_PROC_FLIGHT;
		}
		e->proc = last_proc;
		if (__builtin_expect((rec.chunk_flags & (RT_CHUNKF_SALVAGED | RT_CHUNKF_COLLECTOR)) == RT_CHUNKF_SALVAGED, 0))
			note_salvaged(b, last_proc, rec.ns);
		if (__builtin_expect(rec.ev.kind == RT_EV_CLOCK_SYNC, 0)) {
			uint8_t *bits = proc_slot(b, &b->proc_bits, last_proc);
			if (bits)
				*bits |= TL_PROC_SYNCED;
		}
		if (e->host < b->host_nev.n)
			(*TL_AT(&b->host_nev, size_t, e->host))++;
		*(uint64_t *)vec_room(&b->ev_raw) = e->raw_ns;
		*(uint16_t *)vec_room(&b->ev_host) = e->host;
	}
	for (size_t i = 0; i < rt_trace_reader_damage_count(r); i++) {
		const struct rt_trace_damage *d = rt_trace_reader_damage(r, i);
		tl_note(b, "trace %s damaged at byte %llu: %s", d->path, (unsigned long long)d->offset, d->message);
	}
	uint64_t lost[5];
	rt_trace_reader_lost(r, lost);
	if (lost[0])
		tl_note(b, "the tracer lost %llu events", (unsigned long long)lost[0]);
	free(src_host);
	rt_trace_reader_free(r);
	b->have_traces = b->ev.n > 0 || ok > 0;
	return 0;
}

/* Endpoint c is the address: fixed-size compares, inlined (two lookups a
 * packet). */
static inline bool ep_is(const struct tl_ep *c, unsigned ver, const uint8_t *ip)
{
	return c->ver == ver && (ver == 6 ? !memcmp(c->ip, ip, 16) : !memcmp(c->ip, ip, 4));
}

/* The endpoint of the address; *hint is the one this caller found last
 * (few endpoints: a linear scan after it). */
uint32_t tl_ep_find_or_add(struct tl_build *b, unsigned ver, const uint8_t *ip, uint32_t *hint)
{
	if (*hint < b->eps.n && ep_is(TL_AT(&b->eps, struct tl_ep, *hint), ver, ip))
		return *hint;
	for (size_t i = 0; i < b->eps.n; i++)
		if (ep_is(TL_AT(&b->eps, struct tl_ep, i), ver, ip))
			return *hint = (uint32_t)i;
	struct tl_ep *e = tl_vec_push(&b->eps);
	if (!e)
		return RT_TL_NONE;
	e->ver = (uint8_t)ver;
	memcpy(e->ip, ip, ver == 6 ? 16 : 4);
	e->host = UINT16_MAX;
	e->proc = UINT16_MAX;
	return *hint = (uint32_t)(b->eps.n - 1);
}

const struct tl_cm_info *tl_cm_info(const struct tl_build *b, uint32_t pk)
{
	size_t lo = 0, hi = b->cm_info.n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct tl_cm_info *c = TL_AT(&b->cm_info, struct tl_cm_info, mid);
		if (c->pk == pk)
			return c;
		if (c->pk < pk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* A REJ's private data (the rejecting application's, rdma_reject's), the
 * zeros that pad it to its fixed size left out, into ci. */
static void keep_rej_private(struct tl_cm_info *ci, const struct rt_caprec *rec, const struct rt_cm *cm)
{
	size_t off = cm->user_private_off, n = cm->user_private_len;
	if (off >= rec->caplen)
		return;
	if (n > rec->caplen - off)
		n = rec->caplen - off;
	const uint8_t *d = rec->data + off;
	while (n > 0 && d[n - 1] == 0)
		n--;
	ci->private_n = (uint8_t)(n > 255 ? 255 : n);
	memcpy(ci->private_data, d, n < TL_REJ_PRIVATE_KEPT ? n : TL_REJ_PRIVATE_KEPT);
}

/* A decoded packet; its header bytes go to blob (the record's bytes are
 * valid only until the next record is read). */
static int add_packet(struct tl_build *b, const struct rt_caprec *rec, const struct rt_pkt *p)
{
	static __thread uint32_t src_hint, dst_hint;
	uint32_t src_ep = tl_ep_find_or_add(b, p->ip_version, p->src, &src_hint);
	uint32_t dst_ep = tl_ep_find_or_add(b, p->ip_version, p->dst, &dst_hint);
	/* made whole here rather than zeroed by tl_vec_push() and filled
	 * after: a million of them are made while the reading waits */
	struct tl_pk *k = vec_room(&b->pk);
	if (!k)
		return -ENOMEM;
	*k = (struct tl_pk){
		.raw_ns = rec->ts_ns,
		.frame = (uint32_t)rec->frame,
		.psn = p->bth.psn,
		.dqpn = p->bth.dqpn,
		.opcode = p->bth.opcode,
		.payload_len = p->payload_len,
		.tos = p->tos,
		.icrc = p->icrc_status,
		.udp_sport = p->sport,
		.ip_id = p->ip_version == 4 ? p->ip_id : 0,
		.src_ep = src_ep,
		.dst_ep = dst_ep,
		.send_qp = RT_TL_NONE, .recv_qp = RT_TL_NONE, .wr = RT_TL_NONE, .recv_wr = RT_TL_NONE,
		.original = RT_TL_NONE, .prev_tx = RT_TL_NONE, .answer = RT_TL_NONE, .event = RT_TL_NONE,
		.trigger = RT_TL_NONE,
		.damaged = (p->flags & (RT_PKT_TRUNCATED | RT_PKT_MALFORMED)) != 0,
	};
	if (b->pk.n > 1 && k->raw_ns < tl_pk(b, b->pk.n - 2)->raw_ns)
		b->pk_unordered = true;
	k->ackreq = p->bth.ackreq;
	if (p->op) {
		k->op_class = p->op->op_class;
		k->position = p->op->position;
		k->consumes_recv = p->op->consumes_recv;
	}
	if (p->hdrs & RT_HDR_AETH) {
		k->syndrome = p->aeth.syndrome;
		k->aeth_type = p->aeth.type;
		k->aeth_value = p->aeth.value;
		if (k->op_class == RT_CLASS_ACK && (k->aeth_type == RT_AETH_NAK || k->aeth_type == RT_AETH_RNR_NAK)) {
			uint32_t *n = tl_vec_push(&b->naks); /* few: the NAK detectors read only these */
			if (!n)
				return -ENOMEM;
			*n = (uint32_t)(b->pk.n - 1);
		}
	}
	if (p->hdrs & RT_HDR_RETH) {
		k->reth_va = p->reth.va;
		k->reth_rkey = p->reth.rkey;
		k->reth_len = p->reth.dmalen;
	}
	if (p->hdrs & RT_HDR_DETH)
		k->src_qp = p->deth.src_qpn;
	if (p->hdrs & RT_HDR_ATOMICETH) {
		k->reth_va = p->atomic.va;
		k->reth_rkey = p->atomic.rkey;
		k->reth_len = 8;
	}
	if (p->flags & RT_PKT_CM) {
		k->is_cm = true;
		k->cm_attr = p->cm.attr_id;
		k->cm_local_qpn = p->cm.local_qpn;
		k->cm_comm_id = p->cm.local_comm_id;
		k->cm_remote_comm_id = p->cm.remote_comm_id;
		struct tl_cm_info *ci = tl_vec_push(&b->cm_info);
		if (!ci)
			return -ENOMEM;
		*ci = (struct tl_cm_info){.pk = (uint32_t)(b->pk.n - 1), .ack_timeout = p->cm.prim_local_ack_timeout,
					  .traffic_class = p->cm.prim_traffic_class,
					  .retry = p->cm.retry_count, .rnr_retry = p->cm.rnr_retry_count,
					  .mtu = p->cm.path_mtu,
					  .reason = p->cm.attr_id == RT_CM_SIDR_REP ? p->cm.sidr_status
					  : (uint8_t)(p->cm.reason > 255 ? 255 : p->cm.reason),
					  .msg_rejected = p->cm.msg_rejected, .remote_qpn = p->cm.remote_qpn,
					  .start_psn = p->cm.starting_psn & RT_PSN_MASK,
					  .remote_cm_timeout = p->cm.remote_cm_timeout,
					  .local_cm_timeout = p->cm.local_cm_timeout,
					  .max_cm_retries = p->cm.max_cm_retries, .has_cma = p->cm.has_cma_hdr,
					  .cma_src_port = p->cm.cma_src_port,
					  .service_port = p->cm.ip_service ? p->cm.port : 0,
					  .service_ps = p->cm.ip_service ? p->cm.port_space : 0};
		if (p->cm.attr_id == RT_CM_REJ)
			keep_rej_private(ci, rec, &p->cm);
	} else if (p->flags & RT_PKT_MAD) {
		k->is_cm = true;
	}
	unsigned tr = rt_opcode_transport(k->opcode);
	b->unreliable_pkts += (tr == RT_TRANSPORT_UC || tr == RT_TRANSPORT_UD) && k->dqpn != 1;
	switch (k->op_class) {
	case RT_CLASS_SEND: case RT_CLASS_WRITE: case RT_CLASS_READ_REQ: case RT_CLASS_ATOMIC:
	case RT_CLASS_FLUSH: case RT_CLASS_ATOMIC_WRITE:
		k->is_request = !k->is_cm && tr != RT_TRANSPORT_UD;
		break;
	case RT_CLASS_READ_RESP: case RT_CLASS_ACK: case RT_CLASS_ATOMIC_ACK:
		k->is_response = true;
		break;
	default:
		break;
	}
	/* keep the headers (the whole frame for MADs and short frames) */
	uint32_t keep = p->payload_off && !k->is_cm ? p->payload_off : rec->caplen;
	if (keep > rec->caplen)
		keep = rec->caplen;
	if (keep > TL_KEEP_MAX)
		keep = TL_KEEP_MAX;
	k->kept = (uint16_t)keep;
	k->wirelen = rec->wirelen;
	k->linktype = rec->linktype;
	b->blob_bytes += keep;
	uint8_t *dst = vec_append(&b->blob, keep);
	if (!dst)
		return -ENOMEM;
	memcpy(dst, rec->data, keep);
	return 0;
}

/* The packet records of every packet, made once the clocks are aligned:
 * the memory the linking and the clock constraints gave back is reused for
 * them, where made beside the linking (on the capture thread) they were 80
 * bytes a packet of memory never touched before, which on a virtual
 * machine costs more than the pass itself. */
static int packet_records(struct tl_build *b)
{
	size_t npk = tl_npk(b);
	if (tl_vec_reserve(&b->pkrec, npk) < 0)
		return -ENOMEM;
	uint64_t off = 0;
	for (size_t i = 0; i < npk; i++) {
		const struct tl_pk *k = tl_pk(b, i);
		struct tl_pktrec *pr = tl_vec_push(&b->pkrec);
		pr->raw_ns = k->raw_ns;
		pr->frame = k->frame;
		pr->wirelen = k->wirelen;
		pr->linktype = k->linktype;
		pr->icrc = k->icrc;
		pr->blob_off = off;
		pr->blob_len = k->kept;
		off += k->kept;
	}
	return 0;
}

/* The packet records are made on a thread of their own beside the detectors
 * (which read neither them nor anything they write). */
struct records_job {
	struct tl_build *b;
	pthread_t th;
	bool threaded;
	int rc;
};

static void *records_run(void *arg)
{
	struct records_job *j = arg;
	j->rc = packet_records(j->b);
	return NULL;
}

/* Reading the capture runs in a thread of its own, beside the trace reader:
 * it only touches the packet, blob and address arrays; notes are made after.
 * Once the packets are decoded (cap_wait_decoded) the build goes on to link
 * them while the same thread closes the capture; cap_join waits for that. */
struct cap_job {
	struct tl_build *b;
	const char *path;
	int rc;                   /* decoding: -ENOMEM or 0 */
	bool opened, damaged;
	struct rt_capfile_stats stats; /* the capture's own counters, read to its end */
	char err[256];
	pthread_t th;
	bool threaded;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool decoded;
	bool closed;              /* the thread is done with the capture (or there is none) */
	struct rt_capcopies *copies; /* made when the capture has several interfaces */
	uint64_t ncopies, first_copy, first_copy_of; /* frame numbers */
	uint64_t snapped;         /* RoCE packets cut short by the snap length */
	uint64_t snapped_mads;    /* of those, MADs on QP 1: their CM messages cut short */
	uint32_t snaplen;         /* the longest such cut packet's captured length */
	/* the packet and header-byte arrays, reserved for the whole capture
	 * once its start is read (cap_reserve) and faulted in by the main
	 * thread when its traces are read (cap_fault_in); under mu */
	uint8_t *res_pk, *res_blob;
	size_t res_pk_len, res_blob_len;
	atomic_bool stop_fault_in; /* the decoding is done */
};

/* Packets read before the arrays are reserved for the whole capture: enough
 * to tell its bytes per packet. */
#define CAP_RESERVE_AFTER 16384

/* The packet and header-byte arrays reserved for the whole capture, from
 * what its first bytes gave (rt_capfile_progress: `done` of `total` bytes
 * as stored, compressed or not; an eighth more, for a capture whose
 * packets get smaller), and handed to cap_fault_in.  Memory reserved and
 * never used is never touched; a capture that gives more grows the arrays
 * as before. */
static void cap_reserve(struct cap_job *j, const struct rt_capfile *f)
{
	struct tl_build *b = j->b;
	uint64_t done, total;
	if (rt_capfile_progress(f, &done, &total) < 0 || !done || done >= total)
		return;
	double scale = (double)total / (double)done * 1.125;
	size_t pk = (size_t)((double)b->pk.n * scale) + 1024, blob = (size_t)((double)b->blob.n * scale) + 65536;
	if ((pk > b->pk.cap && vec_resize(&b->pk, pk) < 0) || (blob > b->blob.cap && vec_resize(&b->blob, blob) < 0))
		return; /* they grow as they go */
	pthread_mutex_lock(&j->mu);
	j->res_pk = b->pk.p;
	j->res_pk_len = b->pk.cap * b->pk.esz;
	j->res_blob = b->blob.p;
	j->res_blob_len = b->blob.cap;
	pthread_cond_broadcast(&j->cv);
	pthread_mutex_unlock(&j->mu);
}

/* Whether the frame is a copy of one captured on another interface
 * (capture_copies.h): 1 to leave it out, 0 to keep it, -ENOMEM. */
static int capture_copy(struct cap_job *j, const struct rt_capfile *f, const struct rt_caprec *rec,
			const struct rt_pkt *p)
{
	uint64_t orig;
	int rc = rt_capcopies_frame(&j->copies, rt_capfile_interfaces(f), rec, p, &orig);
	if (rc == 1 && rt_capcopies_count(j->copies) == 1) {
		j->first_copy = rec->frame;
		j->first_copy_of = orig;
	}
	return rc;
}

static void *cap_run(void *arg)
{
	struct cap_job *j = arg;
	struct tl_build *b = j->b;
	struct rt_capfile *f = NULL;
	int rc = rt_capfile_open(j->path, RT_CAPFILE_AUTO, &f, j->err, sizeof(j->err));
	if (rc >= 0) {
		j->opened = true;
		struct rt_caprec rec;
		struct rt_pkt p;
		bool reserved = false;
		while ((rc = rt_capfile_next(f, &rec)) > 0) {
			if (!reserved && b->pk.n == CAP_RESERVE_AFTER) {
				reserved = true;
				cap_reserve(j, f);
			}
			if (rec.ts_ns && (!b->capture_first_ns || rec.ts_ns < b->capture_first_ns))
				b->capture_first_ns = rec.ts_ns;
			if (rec.ts_ns > b->capture_last_ns)
				b->capture_last_ns = rec.ts_ns;
			if (rt_decode(NULL, rec.linktype, rec.data, rec.caplen, rec.wirelen, &p) != 1) {
				b->nonroce_frames++;
				continue;
			}
			if ((rc = capture_copy(j, f, &rec, &p)) != 0) {
				if (rc < 0)
					break;
				continue;
			}
			if (p.flags & RT_PKT_TRUNCATED && rec.caplen < rec.wirelen) {
				j->snapped++;
				j->snapped_mads += p.bth.dqpn == 1;
				if (rec.caplen > j->snaplen)
					j->snaplen = rec.caplen;
			}
			if ((rc = add_packet(b, &rec, &p)) < 0)
				break;
		}
		if (rc < 0 && rc != -ENOMEM) {
			j->damaged = true;
			snprintf(j->err, sizeof(j->err), "%s", rt_capfile_error(f));
		}
		rt_capfile_stats(f, &j->stats);
		j->rc = rc == -ENOMEM ? rc : 0;
		j->ncopies = rt_capcopies_count(j->copies);
		rt_capcopies_free(j->copies);
		j->copies = NULL;
	}
	atomic_store(&j->stop_fault_in, true);
	/* what the reserve held beyond the capture goes back to the heap, for
	 * the build's later arrays */
	if (b->pk.cap > b->pk.n)
		vec_resize(&b->pk, b->pk.n);
	if (b->blob.cap > b->blob.n)
		vec_resize(&b->blob, b->blob.n);
	pthread_mutex_lock(&j->mu);
	j->decoded = true;
	pthread_cond_broadcast(&j->cv); /* the main thread; the prefault thread waits for closed */
	pthread_mutex_unlock(&j->mu);
	rt_capfile_close(f);
	pthread_mutex_lock(&j->mu);
	j->closed = true;
	pthread_cond_broadcast(&j->cv);
	pthread_mutex_unlock(&j->mu);
	return NULL;
}

/* The main thread, its traces read, faults in the capture thread's reserved
 * arrays ahead of it until the capture is decoded: the capture is the
 * longer of the two reads, and on a virtual machine a third of its time
 * went to new memory (the kernel zeroing it) that the main thread, idle,
 * can make instead.  The two arrays are faulted in at the same pace, 2 MiB
 * of the larger at a time.  Faulting in only makes the pages present; it
 * changes no byte, so the capture thread may be writing them meanwhile
 * (or, when the reserve fell short, have moved them). */
static void cap_fault_in(struct cap_job *j)
{
	pthread_mutex_lock(&j->mu);
	while (!j->decoded && !j->res_pk)
		pthread_cond_wait(&j->cv, &j->mu);
	uint8_t *pk = j->res_pk, *blob = j->res_blob;
	size_t pk_len = j->res_pk_len, blob_len = j->res_blob_len;
	pthread_mutex_unlock(&j->mu);
	if (!pk)
		return;
	size_t big = pk_len > blob_len ? pk_len : blob_len;
	size_t steps = big / TL_VEC_AHEAD + 1;
	size_t pk_done = 0, blob_done = 0;
	for (size_t s = 1; s <= steps && !atomic_load(&j->stop_fault_in); s++) {
		size_t pk_to = pk_len / steps * s, blob_to = blob_len / steps * s;
		if (s == steps)
			pk_to = pk_len, blob_to = blob_len;
		populate(pk + pk_done, pk_to - pk_done);
		populate(blob + blob_done, blob_to - blob_done);
		pk_done = pk_to;
		blob_done = blob_to;
	}
}

static void cap_wait_decoded(struct cap_job *j)
{
	pthread_mutex_lock(&j->mu);
	while (!j->decoded)
		pthread_cond_wait(&j->cv, &j->mu);
	pthread_mutex_unlock(&j->mu);
}

/* tl_build.prefault_after: the prefault thread starts once the capture
 * thread is done. */
static void cap_wait_closed(void *arg)
{
	struct cap_job *j = arg;
	pthread_mutex_lock(&j->mu);
	while (!j->closed)
		pthread_cond_wait(&j->cv, &j->mu);
	pthread_mutex_unlock(&j->mu);
}

static void cap_join(struct cap_job *j)
{
	if (j->threaded) {
		pthread_join(j->th, NULL);
		j->threaded = false;
	}
}

static int capture_done(struct tl_build *b, struct cap_job *j)
{
	if (!j->opened) {
		tl_note(b, "capture %s unreadable: %s", j->path, j->err);
		return 0;
	}
	b->have_capture = true;
	b->capture_path = tl_str(b, j->path);
	if (j->damaged)
		tl_note(b, "capture %s damaged: %s (packets before it are used)", j->path, j->err);
	if (j->ncopies)
		tl_note(b, "capture %s holds %" PRIu64 " frames again that it captured on another interface (the first: "
			   "frame %" PRIu64 ", the same packet as frame %" PRIu64 "): each packet is taken once, so a "
			   "copy is not read as a retransmission",
			j->path, j->ncopies, j->first_copy, j->first_copy_of);
	b->unreadable_mads = j->snapped_mads;
	if (j->snapped) {
		char mads[200] = "";
		if (j->snapped_mads)
			snprintf(mads, sizeof(mads), ", and %" PRIu64 " CM messages (MADs on QP 1) could not be read whole, so "
				 "connections are not matched from them, nor missing CM messages found", j->snapped_mads);
		tl_note(b, "capture %s cut %" PRIu64 " RoCE packets short (its snap length: %u bytes kept of a "
			   "packet): their ICRCs could not be checked%s",
			j->path, j->snapped, j->snaplen, mads);
	}
	uint64_t dropped = j->stats.ifdrop + j->stats.osdrop;
	b->capture_lossless = j->stats.blocks && (j->stats.have & (RT_CAPSTAT_IFDROP | RT_CAPSTAT_OSDROP)) && !dropped &&
			      !j->damaged;
	b->capture_dropped = dropped || j->damaged;
	if (dropped)
		tl_note(b, "capture %s says it dropped %" PRIu64 " packets (isb_ifdrop %" PRIu64 ", isb_osdrop %" PRIu64
			   "): packets missing from it may have crossed the wire, so gaps and losses \"before the capture "
			   "point\" can be the capture's own",
			j->path, dropped, j->stats.ifdrop, j->stats.osdrop);
	return j->rc;
}

static void build_init(struct tl_build *b)
{
	memset(b, 0, sizeof(*b));
	tl_vec_init(&b->ev, sizeof(struct tl_evrec));
	tl_vec_init(&b->host_nev, sizeof(size_t));
	tl_vec_init(&b->ev_raw, sizeof(uint64_t));
	tl_vec_init(&b->ev_host, sizeof(uint16_t));
	tl_vec_init(&b->pk, sizeof(struct tl_pk));
	tl_vec_init(&b->pkrec, sizeof(struct tl_pktrec));
	tl_vec_init(&b->blob, 1);
	tl_vec_init(&b->strs, 1);
	tl_vec_init(&b->hosts, sizeof(struct rt_tl_host));
	tl_vec_init(&b->procs, sizeof(struct rt_tl_proc));
	tl_vec_init(&b->qps, sizeof(struct rt_tl_qp));
	tl_vec_init(&b->findings, sizeof(struct rt_tl_finding));
	tl_vec_init(&b->fev, sizeof(uint32_t));
	tl_vec_init(&b->links, sizeof(struct tl_blink));
	tl_vec_init(&b->notes, sizeof(uint32_t));
	tl_vec_init(&b->eps, sizeof(struct tl_ep));
	tl_vec_init(&b->cm_info, sizeof(struct tl_cm_info));
	tl_vec_init(&b->cm_evs, sizeof(uint32_t));
	tl_vec_init(&b->refused, sizeof(uint32_t));
	tl_vec_init(&b->failed, sizeof(uint32_t));
	tl_vec_init(&b->ends, sizeof(uint32_t));
	tl_vec_init(&b->attaches, sizeof(uint32_t));
	tl_vec_init(&b->asyncs, sizeof(uint32_t));
	tl_vec_init(&b->avs, sizeof(uint32_t));
	tl_vec_init(&b->untraced, sizeof(struct tl_untraced));
	tl_vec_init(&b->rights, sizeof(uint32_t));
	tl_vec_init(&b->rts, sizeof(uint32_t));
	tl_vec_init(&b->errs, sizeof(uint32_t));
	tl_vec_init(&b->drops, sizeof(uint32_t));
	tl_vec_init(&b->rnr_injected, sizeof(uint32_t));
	tl_vec_init(&b->naks, sizeof(uint32_t));
	tl_vec_init(&b->copies, sizeof(uint32_t));
	tl_vec_init(&b->lates, sizeof(uint32_t));
	tl_vec_init(&b->proc_salvaged, sizeof(uint64_t));
	tl_vec_init(&b->proc_bits, sizeof(uint8_t));
	tl_vec_init(&b->cons, sizeof(struct tl_cons));
	tl_str(b, ""); /* offset 0 is the empty string */
	b->capture_host = UINT16_MAX;
}

void tl_build_free(struct tl_build *b)
{
	tl_stats_join(b); /* a failed build may still have the statistics running */
	tl_prefault_free(b);
	tl_vec_free(&b->ev);
	tl_vec_free(&b->host_nev);
	tl_vec_free(&b->ev_raw);
	tl_vec_free(&b->ev_host);
	tl_vec_free(&b->pk);
	tl_vec_free(&b->pkrec);
	tl_vec_free(&b->blob);
	tl_vec_free(&b->strs);
	tl_vec_free(&b->hosts);
	tl_vec_free(&b->procs);
	tl_vec_free(&b->qps);
	tl_vec_free(&b->findings);
	tl_vec_free(&b->fev);
	tl_vec_free(&b->links);
	tl_vec_free(&b->notes);
	tl_vec_free(&b->eps);
	tl_vec_free(&b->cm_info);
	tl_vec_free(&b->cm_evs);
	tl_vec_free(&b->refused);
	tl_vec_free(&b->failed);
	tl_vec_free(&b->ends);
	tl_vec_free(&b->attaches);
	tl_vec_free(&b->asyncs);
	tl_vec_free(&b->avs);
	tl_vec_free(&b->untraced);
	tl_vec_free(&b->rights);
	tl_vec_free(&b->rts);
	tl_vec_free(&b->errs);
	tl_vec_free(&b->drops);
	tl_vec_free(&b->rnr_injected);
	tl_vec_free(&b->naks);
	tl_vec_free(&b->copies);
	tl_vec_free(&b->lates);
	tl_vec_free(&b->proc_salvaged);
	tl_vec_free(&b->proc_bits);
	tl_vec_free(&b->cons);
	free(b->ev_qp);
	b->ev_qp = NULL;
	free(b->ev_shadow);
	b->ev_shadow = NULL;
}

/* RDMATRACE_TL_TIMING=1: time spent per build phase on stderr. */
void tl_phase(const char *name)
{
	static int on = -1;
	static struct timespec last;
	if (on < 0) {
		const char *e = getenv("RDMATRACE_TL_TIMING");
		on = e && *e && *e != '0';
		clock_gettime(CLOCK_MONOTONIC, &last);
	}
	if (!on || !name)
		return;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	/* the memory the process holds then (resident, in MiB, without the
	 * files it maps): on a virtual machine, touching new memory is most of
	 * a large build's time */
	long size, resident = 0, shared = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	if (f) {
		if (fscanf(f, "%ld %ld %ld", &size, &resident, &shared) != 3)
			resident = shared = 0;
		fclose(f);
	}
	long pages = resident - shared; /* (not the files it maps) */
	fprintf(stderr, "timeline: %-8s %8.3f s %6ld MiB\n", name,
		(double)(now.tv_sec - last.tv_sec) + (double)(now.tv_nsec - last.tv_nsec) / 1e9,
		pages * (sysconf(_SC_PAGESIZE) / 1024) / 1024);
	last = now;
}

int rt_timeline_build(const struct rt_tl_inputs *in, struct rt_timeline **out, char *err, size_t errlen)
{
	tl_phase(NULL);
	struct tl_build b;
	int rc;
	*out = NULL;
	build_init(&b);
	b.err = err;
	b.errlen = errlen;
	b.save_path = in->timeline_out;
	/* without a capture there is nothing to wait for */
	struct cap_job job = {.b = &b, .path = in->capture, .mu = PTHREAD_MUTEX_INITIALIZER,
			      .cv = PTHREAD_COND_INITIALIZER, .decoded = !in->capture, .closed = !in->capture};
	b.prefault_after = cap_wait_closed;
	b.prefault_after_arg = &job;
	if (in->capture) {
		/* the capture point is host 0: the reference clock */
		b.capture_host = host_find_or_add(&b, "capture", RT_TLH_CAPTURE | RT_TLH_REFERENCE);
		job.threaded = pthread_create(&job.th, NULL, cap_run, &job) == 0;
		if (!job.threaded)
			cap_run(&job);
	}
	int trc = read_traces(&b, in);
	if (in->capture)
		cap_fault_in(&job);
	cap_wait_decoded(&job);
	tl_phase("read");
	if (in->capture) {
		if ((rc = capture_done(&b, &job)) < 0)
			goto fail;
		if (!b.have_capture) {
			tl_host(&b, 0)->flags &= ~(uint32_t)RT_TLH_REFERENCE;
			b.capture_host = UINT16_MAX;
		}
	}
	if ((rc = trc) < 0 || (rc = tl_read_recordings(&b, in->rundir)) < 0)
		goto fail;
	if (!b.have_capture && !b.have_traces && !b.untraced.n) {
		/* what each input said (an unreadable trace, an unreadable capture ...) */
		int at = snprintf(err, errlen, "no readable input: %s", b.notes.n ? "" : "no trace files and no capture");
		for (size_t k = 0; k < b.notes.n && at >= 0 && (size_t)at < errlen; k++)
			at += snprintf(err + at, errlen - (size_t)at, "%s%s", k ? "; " : "",
				       (const char *)b.strs.p + ((uint32_t *)b.notes.p)[k]);
		rc = -ENOENT;
		goto fail;
	}
	if (!b.have_capture) {
		if (in->capture)
			tl_note(&b, "the capture could not be read: wire-side analysis is missing");
		else if (b.engine_packets)
			tl_note(&b, "no capture: the packets shown are only what the traced engines recorded of their own");
		else
			tl_note(&b, "no capture: packets, ACKs and retransmissions on the wire are not shown");
	}
	if (!b.have_traces)
		tl_note(&b, "no trace files: work requests and completions are not shown, diagnosis is from the wire only");
	for (size_t i = 0; i < in->nunused_captures; i++) {
		const char *u = in->unused_captures[i], *with = in->ntraces ? " with the trace files" : "",
			   *traces = in->ntraces ? " TRACE.rtr ..." : "";
		if (in->capture)
			tl_note(&b, "capture %s not used: a timeline has one capture point (%s); to correlate that one "
				    "instead, name it%s (rdmatrace diagnose %s%s)", u, in->capture, with, u, traces);
		else
			tl_note(&b, "capture %s not used: a timeline has one capture point, and the directories in this "
				    "one hold several captures; to correlate one, name it%s (rdmatrace diagnose %s%s)",
				u, with, u, traces);
	}
	if (!b.have_capture) {
		/* the first traced host is the reference */
		for (size_t i = 0; i < b.hosts.n; i++)
			if (tl_host(&b, i)->flags & RT_TLH_TRACED) {
				tl_host(&b, i)->flags |= RT_TLH_REFERENCE;
				break;
			}
	}
	tl_finish_prefault(&b);
	if ((rc = tl_link_all(&b)) < 0)
		goto fail;
	tl_phase("link");
	if ((rc = tl_clock_align(&b)) < 0)
		goto fail;
	/* the constraints are read only by the alignment: their memory (24
	 * bytes each, about one a packet or event) goes to the detectors */
	tl_vec_free(&b.cons);
	tl_phase("clock");
	/* the build's arrays are complete before the detectors start the statistics */
	cap_join(&job);
	struct records_job rj = {.b = &b};
	rj.threaded = pthread_create(&rj.th, NULL, records_run, &rj) == 0;
	if (!rj.threaded)
		records_run(&rj);
	rc = tl_detect(&b);
	if (rj.threaded)
		pthread_join(rj.th, NULL);
	if (rc < 0 || (rc = rj.rc) < 0)
		goto fail;
	tl_phase("detect");
	if ((rc = tl_finish(&b, out)) < 0)
		goto fail;
	tl_phase("index");
	tl_build_free(&b);
	if ((in->annotated_out || in->annotations_jsonl) && *rt_tl_capture_path(*out)) {
		rc = tl_write_annotated(*out, in->capture, in->annotated_out, in->annotations_jsonl, err, errlen);
		if (rc < 0) {
			rt_timeline_free(*out);
			*out = NULL;
			return rc;
		}
	}
	return 0;
fail:
	cap_join(&job);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory building the timeline");
	tl_build_free(&b);
	return rc;
}

/*
 * The viewer model (see model.h): visibility under filters, selection,
 * scrolling, jumps, searches and bookmarks over a vw_source, with lazily
 * built chunk summaries so that no key rescans a large run.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "model.h"

/* "errors only": what went wrong on the wire or in a call; a packet the
 * engine dropped shows through the NAK or retransmission it causes */
#define ERR_MASK (VW_F_ERROR | VW_F_NAK | VW_F_RNR | VW_F_RETRANS)

#define bloom_bit vw_bloom_bit
#define host_bit vw_host_bit
#define op_key vw_op_key
/* an indexed jump tries this many candidates before scanning chunks */
#define MAX_INDEX_CANDIDATES 4096

static uint64_t filter_op_bloom(const struct vw_filter *f)
{
	uint64_t b = 0;

	for (unsigned s = 0; s < VW_OPS_COUNT; s++)
		for (unsigned op = 0; op < 256; op++)
			if (f->op_bits[s][op / 8] & (1u << (op % 8)))
				b |= 1ull << bloom_bit(op_key(s, op));
	return b;
}

void vw_model_init(struct vw_model *m, struct vw_source *src)
{
	struct vw_row r;

	memset(m, 0, sizeof(*m));
	m->src = src;
	m->height = 20;
	m->sel = m->top = VW_NONE;
	m->t0 = src->t0;
	if (!m->t0 && vw_source_count(src) > 0 && src->ops->row(src->ctx, 0, &r) == 0)
		m->t0 = r.ns;
	vw_model_home(m);
}

void vw_model_free(struct vw_model *m)
{
	free(m->chunks);
	m->chunks = NULL;
	m->nchunks = m->chunks_cap = 0;
}

void vw_model_source_grew(struct vw_model *m)
{
	size_t n = vw_source_count(m->src);
	struct vw_row r;

	/* a live source may have re-sorted rows: summaries are rebuilt lazily */
	m->nchunks = 0;
	m->idle_next = 0;
	if (m->src->t0)
		m->t0 = m->src->t0;
	else if (n && m->t0 == 0 && m->src->ops->row(m->src->ctx, 0, &r) == 0)
		m->t0 = r.ns;
	if (m->sel != VW_NONE && m->sel >= n)
		m->sel = n ? n - 1 : VW_NONE;
	if (m->top != VW_NONE && m->top >= n)
		m->top = m->sel;
	m->nbookmarks = 0;
	if (m->sel == VW_NONE || !vw_model_visible(m, m->sel))
		vw_model_home(m);
}

static void fix_top(struct vw_model *m);

void vw_model_set_height(struct vw_model *m, unsigned height)
{
	m->height = height ? height : 1;
	fix_top(m);
}

static int row_match(const struct vw_filter *f, const struct vw_row *r)
{
	if (f->kinds && !(f->kinds & (1ull << (r->kind & 63))))
		return 0;
	if (f->has_host && r->host != f->host)
		return 0;
	if (f->has_proc && r->proc != f->proc)
		return 0;
	/* a packet on the wire belongs to both ends */
	if (f->has_qpn && r->qpn != f->qpn && !(r->host == VW_HOST_WIRE && r->peer_qpn == f->qpn))
		return 0;
	if (f->has_op && (r->op_space == VW_OPS_NONE || r->op_space >= VW_OPS_COUNT ||
			  !(f->op_bits[r->op_space][r->opcode / 8] & (1u << (r->opcode % 8)))))
		return 0;
	if (f->errors_only && !(r->flags & ERR_MASK))
		return 0;
	if (f->plane == 1 && !(r->flags & VW_F_CTRL))
		return 0;
	if (f->plane == 2 && (r->flags & VW_F_CTRL))
		return 0;
	return 1;
}

static int pred_match(const struct vw_pred *p, const struct vw_row *r)
{
	if (!p)
		return 1;
	if (p->flags_any && !(r->flags & p->flags_any))
		return 0;
	if (p->kind >= 0 && r->kind != p->kind)
		return 0;
	return 1;
}

static int get_row(struct vw_model *m, size_t i, struct vw_row *r)
{
	m->scanned_rows++;
	return m->src->ops->row(m->src->ctx, i, r);
}

int vw_model_visible(struct vw_model *m, size_t row)
{
	struct vw_row r;

	if (row == VW_NONE || row >= vw_source_count(m->src) || get_row(m, row, &r) < 0)
		return 0;
	return row_match(&m->f, &r);
}

/* The summary of chunk c, computed on first use; NULL when out of memory. */
static const struct vw_chunk *chunk(struct vw_model *m, size_t c, size_t n)
{
	struct vw_chunk *ch;
	struct vw_row r;
	size_t i, end;

	if (c >= m->nchunks) {
		size_t need = c + 1;
		if (need > m->chunks_cap) {
			size_t cap = m->chunks_cap ? m->chunks_cap : 64;
			while (cap < need)
				cap *= 2;
			ch = realloc(m->chunks, cap * sizeof(*ch));
			if (!ch)
				return NULL;
			m->chunks = ch;
			m->chunks_cap = cap;
		}
		memset(m->chunks + m->nchunks, 0, (need - m->nchunks) * sizeof(*ch));
		m->nchunks = need;
	}
	ch = &m->chunks[c];
	if (ch->done)
		return ch;
	memset(ch, 0, sizeof(*ch));
	end = (c + 1) * VW_CHUNK;
	if (end > n)
		end = n;
	if (m->src->ops->summarize) {
		m->src->ops->summarize(m->src->ctx, c * VW_CHUNK, end - c * VW_CHUNK, ch);
		m->scanned_rows += end - c * VW_CHUNK;
	} else {
		for (i = c * VW_CHUNK; i < end; i++)
			if (get_row(m, i, &r) == 0)
				vw_chunk_add(ch, &r);
	}
	/* a partial last chunk may still grow (live mode) */
	ch->done = end == (c + 1) * VW_CHUNK;
	return ch;
}

static int chunk_may(const struct vw_model *m, const struct vw_chunk *ch, const struct vw_pred *p, uint64_t op_bloom)
{
	const struct vw_filter *f = &m->f;

	if (f->kinds && !(ch->kinds & f->kinds))
		return 0;
	if (f->has_host && !(ch->hosts & (1ull << host_bit(f->host))))
		return 0;
	if (f->has_qpn && !(ch->qp_bloom & (1ull << bloom_bit(f->qpn))))
		return 0;
	if (f->has_op && !(ch->op_bloom & op_bloom))
		return 0;
	if (f->errors_only && !(ch->flags & ERR_MASK))
		return 0;
	if (f->plane == 1 && !(ch->flags & VW_F_CTRL))
		return 0;
	if (p && p->flags_any && !(ch->flags & p->flags_any))
		return 0;
	if (p && p->kind >= 0 && !(ch->kinds & (1ull << (p->kind & 63))))
		return 0;
	return 1;
}

/* Jumps to flagged rows through the source's own index: candidates come
 * from a binary search, so a jump to the next RNR NAK never scans.
 * Returns 1 with *out set (VW_NONE: no such row), or 0 when the source has
 * no index for these flags or too many candidates fail the filters; *from
 * is then where a chunk scan should continue. */
static int indexed_scan(struct vw_model *m, size_t *from, int dir, const struct vw_pred *pred, size_t *out)
{
	struct vw_row r;
	size_t pos = *from;
	unsigned tries;

	struct vw_pred errs = { ERR_MASK, -1 };
	struct vw_pred ctrl = { VW_F_CTRL, -1 };

	/* "errors only" and "control plane only" are flag conditions the index answers */
	if (!pred && m->f.errors_only)
		pred = &errs;
	else if (!pred && m->f.plane == 1)
		pred = &ctrl;
	if (!pred || !pred->flags_any || !m->src->ops->next_flagged)
		return 0;
	for (tries = 0; tries < MAX_INDEX_CANDIDATES; tries++) {
		long c = m->src->ops->next_flagged(m->src->ctx, pos, dir, pred->flags_any);
		if (c == -2)
			return 0;
		if (c < 0) {
			*out = VW_NONE;
			return 1;
		}
		pos = (size_t)c;
		if (get_row(m, pos, &r) == 0 && row_match(&m->f, &r) && pred_match(pred, &r)) {
			*out = pos;
			return 1;
		}
	}
	*from = pos;
	return 0;
}

size_t vw_model_scan(struct vw_model *m, size_t from, int dir, const struct vw_pred *pred)
{
	size_t n = vw_source_count(m->src), i, found;
	uint64_t ob = m->f.has_op ? filter_op_bloom(&m->f) : 0;
	struct vw_row r;

	if (n == 0)
		return VW_NONE;
	if (indexed_scan(m, &from, dir, pred, &found))
		return found;
	if (dir > 0) {
		i = from == VW_NONE ? 0 : from + 1;
		while (i < n) {
			size_t c = i / VW_CHUNK, end = (c + 1) * VW_CHUNK;
			const struct vw_chunk *ch = chunk(m, c, n);
			if (end > n)
				end = n;
			if (ch && !chunk_may(m, ch, pred, ob)) {
				i = end;
				continue;
			}
			for (; i < end; i++)
				if (get_row(m, i, &r) == 0 && row_match(&m->f, &r) && pred_match(pred, &r))
					return i;
		}
		return VW_NONE;
	}
	if (from == 0)
		return VW_NONE;
	i = (from == VW_NONE || from > n) ? n - 1 : from - 1;
	for (;;) {
		size_t c = i / VW_CHUNK, start = c * VW_CHUNK;
		const struct vw_chunk *ch = chunk(m, c, n);
		if (!ch || chunk_may(m, ch, pred, ob)) {
			for (;; i--) {
				if (get_row(m, i, &r) == 0 && row_match(&m->f, &r) && pred_match(pred, &r))
					return i;
				if (i == start)
					break;
			}
		}
		if (start == 0)
			return VW_NONE;
		i = start - 1;
	}
}

size_t vw_model_prev_visible(struct vw_model *m, size_t row)
{
	return row == VW_NONE ? VW_NONE : vw_model_scan(m, row, -1, NULL);
}

/* Walk k visible rows from `row` in dir; stops early at the ends. */
static size_t walk(struct vw_model *m, size_t row, int dir, size_t k)
{
	while (k-- > 0) {
		size_t nx = vw_model_scan(m, row, dir, NULL);
		if (nx == VW_NONE)
			break;
		row = nx;
	}
	return row;
}

/* Keep top visible, <= sel, and sel within the screen. */
static void fix_top(struct vw_model *m)
{
	size_t r;
	unsigned k;

	if (m->sel == VW_NONE) {
		m->top = VW_NONE;
		return;
	}
	if (m->top == VW_NONE || m->top > m->sel || !vw_model_visible(m, m->top)) {
		m->top = walk(m, m->sel, -1, m->height / 2);
		return;
	}
	r = m->top;
	for (k = 1; k < m->height && r != m->sel; k++) {
		size_t nx = vw_model_scan(m, r, +1, NULL);
		if (nx == VW_NONE || nx > m->sel)
			break;
		r = nx;
	}
	if (r != m->sel)
		m->top = walk(m, m->sel, -1, m->height - 1);
}

/* Select row (visible) and keep it on screen; when it was off screen,
 * show it with some context above. */
static int place(struct vw_model *m, size_t row, int center)
{
	size_t old_sel = m->sel, old_top = m->top;

	m->sel = row;
	if (center) {
		size_t last = m->top == VW_NONE ? VW_NONE : walk(m, m->top, +1, m->height - 1);
		if (m->top == VW_NONE || row < m->top || (last != VW_NONE && row > last))
			m->top = walk(m, row, -1, m->height / 3);
	}
	fix_top(m);
	return m->sel != old_sel || m->top != old_top;
}

int vw_model_move(struct vw_model *m, long delta)
{
	size_t r = m->sel;
	int dir = delta < 0 ? -1 : 1;
	unsigned long k = (unsigned long)(delta < 0 ? -delta : delta);

	if (r == VW_NONE)
		return vw_model_home(m);
	r = walk(m, r, dir, k);
	return place(m, r, 0);
}

int vw_model_page(struct vw_model *m, int dir)
{
	size_t old_sel = m->sel, old_top = m->top;
	size_t k = m->height > 1 ? m->height - 1 : 1, i;

	if (m->sel == VW_NONE)
		return vw_model_home(m);
	for (i = 0; i < k; i++) {
		size_t ns = vw_model_scan(m, m->sel, dir, NULL);
		if (ns == VW_NONE)
			break;
		m->sel = ns;
		if (m->top != VW_NONE) {
			size_t nt = vw_model_scan(m, m->top, dir, NULL);
			if (nt != VW_NONE && (dir < 0 || nt <= m->sel))
				m->top = nt;
		}
	}
	fix_top(m);
	return m->sel != old_sel || m->top != old_top;
}

int vw_model_home(struct vw_model *m)
{
	size_t old_sel = m->sel, old_top = m->top;

	m->sel = m->top = vw_model_scan(m, VW_NONE, +1, NULL);
	return m->sel != old_sel || m->top != old_top;
}

int vw_model_end(struct vw_model *m)
{
	size_t old_sel = m->sel, old_top = m->top;

	m->sel = vw_model_scan(m, VW_NONE, -1, NULL);
	m->top = m->sel == VW_NONE ? VW_NONE : walk(m, m->sel, -1, m->height - 1);
	return m->sel != old_sel || m->top != old_top;
}

static void ensure_selection(struct vw_model *m)
{
	size_t s;

	if (m->sel != VW_NONE && vw_model_visible(m, m->sel)) {
		fix_top(m);
		return;
	}
	s = vw_model_scan(m, m->sel, +1, NULL);
	if (s == VW_NONE)
		s = vw_model_scan(m, m->sel, -1, NULL);
	m->sel = s;
	m->top = VW_NONE;
	fix_top(m);
}

void vw_model_set_filter(struct vw_model *m, const struct vw_filter *f)
{
	m->f = *f;
	ensure_selection(m);
	if (m->sel == VW_NONE)
		snprintf(m->status, sizeof(m->status), "no row matches the filters");
}

int vw_filter_set_opcode(struct vw_filter *f, const char *text)
{
	int any = 0;

	memset(f->op_bits, 0, sizeof(f->op_bits));
	f->has_op = 0;
	f->op_text[0] = 0;
	if (!text || !*text)
		return 0;
	for (unsigned s = 1; s < VW_OPS_COUNT; s++) {
		for (unsigned op = 0; op < 256; op++) {
			const char *name = vw_opcode_name(s, op);
			char buf[64];
			size_t k;
			if (!name || !*name || !strncmp(name, "UNKNOWN", 7) || !strncmp(name, "unknown", 7))
				continue;
			/* "RDMA_WRITE" matches "write", "rdma write", "RDMA_WRITE" */
			for (k = 0; name[k] && k < sizeof(buf) - 1; k++)
				buf[k] = name[k] == '_' ? ' ' : name[k];
			buf[k] = 0;
			char want[32];
			for (k = 0; text[k] && k < sizeof(want) - 1; k++)
				want[k] = text[k] == '_' ? ' ' : text[k];
			want[k] = 0;
			if (strcasestr(buf, want)) {
				f->op_bits[s][op / 8] |= (uint8_t)(1u << (op % 8));
				any = 1;
			}
		}
	}
	if (!any)
		return -ENOENT;
	f->has_op = 1;
	snprintf(f->op_text, sizeof(f->op_text), "%s", text);
	return 0;
}

void vw_filter_describe(const struct vw_model *m, char *buf, size_t len)
{
	const struct vw_filter *f = &m->f;
	size_t o = 0;

	buf[0] = 0;
#define ADD(...) do { if (o < len) o += (size_t)snprintf(buf + o, len - o, __VA_ARGS__); } while (0)
	if (f->has_host)
		ADD("%shost %s", o ? " " : "", vw_host_name(m->src, f->host));
	if (f->has_proc)
		ADD("%sprocess %s", o ? " " : "", f->proc < m->src->nprocs ? m->src->procs[f->proc].name : "?");
	if (f->has_qpn)
		ADD("%sqp %u", o ? " " : "", f->qpn);
	if (f->kinds) {
		ADD("%skind", o ? " " : "");
		for (unsigned k = 0; k < 64; k++)
			if (f->kinds & (1ull << k))
				ADD(" %s", vw_kind_name(k));
	}
	if (f->has_op)
		ADD("%sop %s", o ? " " : "", f->op_text);
	if (f->errors_only)
		ADD("%serrors", o ? " " : "");
	if (f->plane)
		ADD("%s%s plane", o ? " " : "", f->plane == 1 ? "control" : "data");
#undef ADD
}

int vw_model_select(struct vw_model *m, size_t row)
{
	if (row == VW_NONE || row >= vw_source_count(m->src))
		return 0;
	if (!vw_model_visible(m, row)) {
		memset(&m->f, 0, sizeof(m->f));
		snprintf(m->status, sizeof(m->status), "filters cleared to show row %zu", row);
		m->top = VW_NONE;
	}
	return place(m, row, 1);
}

int vw_model_jump_time(struct vw_model *m, uint64_t ns)
{
	size_t n = vw_source_count(m->src), i, r;

	if (!n)
		return 0;
	i = vw_source_find_time(m->src, ns);
	if (i >= n)
		i = n - 1;
	r = vw_model_visible(m, i) ? i : vw_model_scan(m, i, +1, NULL);
	if (r == VW_NONE)
		r = vw_model_scan(m, i, -1, NULL);
	if (r == VW_NONE)
		return 0;
	return place(m, r, 1);
}

int vw_model_jump(struct vw_model *m, const struct vw_pred *pred, int dir)
{
	size_t r = vw_model_scan(m, m->sel, dir, pred);

	if (r == VW_NONE) {
		snprintf(m->status, sizeof(m->status), "no %s match", dir > 0 ? "later" : "earlier");
		return 0;
	}
	m->status[0] = 0;
	return place(m, r, 1);
}

static int parse_dur(const char *s, double *sec)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s)
		return -EINVAL;
	while (*end == ' ')
		end++;
	if (!*end || !strcmp(end, "s"))
		*sec = v;
	else if (!strcmp(end, "ms"))
		*sec = v / 1e3;
	else if (!strcmp(end, "us"))
		*sec = v / 1e6;
	else if (!strcmp(end, "ns"))
		*sec = v / 1e9;
	else
		return -EINVAL;
	return 0;
}

int vw_model_parse_time(const struct vw_model *m, const char *text, uint64_t *ns)
{
	double sec;
	unsigned hh, mm;
	double ss;
	char tail;

	while (*text == ' ')
		text++;
	if (!*text)
		return -EINVAL;
	if (text[0] == '+' || text[0] == '-') {
		struct vw_row r;
		uint64_t base = m->t0;
		if (m->sel != VW_NONE && m->src->ops->row(m->src->ctx, m->sel, &r) == 0)
			base = r.ns;
		if (parse_dur(text + 1, &sec) < 0 || sec < 0)
			return -EINVAL;
		uint64_t d = (uint64_t)(sec * 1e9 + 0.5);
		*ns = text[0] == '+' ? base + d : (base > d ? base - d : 0);
		return 0;
	}
	if (sscanf(text, "%u:%u:%lf%c", &hh, &mm, &ss, &tail) == 3) {
		uint64_t day = m->t0 / 86400000000000ull * 86400000000000ull;
		if (hh > 23 || mm > 59 || ss < 0 || ss >= 61)
			return -EINVAL;
		*ns = day + (uint64_t)hh * 3600000000000ull + (uint64_t)mm * 60000000000ull +
		      (uint64_t)(ss * 1e9 + 0.5);
		return 0;
	}
	if (parse_dur(text, &sec) < 0 || sec < 0)
		return -EINVAL;
	if (sec >= 1e15 && !strpbrk(text, "smun")) {
		*ns = (uint64_t)strtoull(text, NULL, 10);
		return 0;
	}
	*ns = m->t0 + (uint64_t)(sec * 1e9 + 0.5);
	return 0;
}

void vw_model_search_start(struct vw_model *m, const char *text, int dir)
{
	snprintf(m->search, sizeof(m->search), "%s", text);
	vw_model_search_next(m, dir);
}

void vw_model_search_next(struct vw_model *m, int dir)
{
	size_t n = vw_source_count(m->src);

	if (!m->search[0]) {
		snprintf(m->status, sizeof(m->status), "no search yet (press /)");
		return;
	}
	m->search_dir = dir < 0 ? -1 : 1;
	m->search_start = m->sel;
	m->search_scanned = 0;
	if (m->sel == VW_NONE)
		m->search_pos = dir > 0 ? 0 : (n ? n - 1 : VW_NONE);
	else if (dir > 0)
		m->search_pos = m->sel + 1;
	else
		m->search_pos = m->sel ? m->sel - 1 : VW_NONE;
	m->search_pending = 1;
	snprintf(m->status, sizeof(m->status), "searching for \"%s\"...", m->search);
}

static int row_text_match(struct vw_model *m, size_t i, const struct vw_row *r)
{
	char buf[600];
	int o;

	o = snprintf(buf, sizeof(buf), "%s %s %u ", vw_host_name(m->src, r->host), vw_kind_name(r->kind), r->qpn);
	if (o < 0 || (size_t)o >= sizeof(buf))
		o = 0;
	m->src->ops->summary(m->src->ctx, i, buf + o, sizeof(buf) - (size_t)o);
	return strcasestr(buf, m->search) != NULL;
}

int vw_model_step(struct vw_model *m, size_t budget)
{
	size_t n = vw_source_count(m->src);
	struct vw_row r;

	if (!m->search_pending)
		return 1;
	while (budget-- > 0) {
		size_t i = m->search_pos;
		if (i == VW_NONE || i >= n) {
			m->search_pending = 0;
			snprintf(m->status, sizeof(m->status), "\"%s\" not found %s", m->search,
				 m->search_dir > 0 ? "below" : "above");
			return 1;
		}
		if (get_row(m, i, &r) == 0 && row_match(&m->f, &r) && row_text_match(m, i, &r)) {
			m->search_pending = 0;
			snprintf(m->status, sizeof(m->status), "/%s", m->search);
			place(m, i, 1);
			return 1;
		}
		m->search_scanned++;
		m->search_pos = m->search_dir > 0 ? i + 1 : (i ? i - 1 : VW_NONE);
	}
	snprintf(m->status, sizeof(m->status), "searching for \"%s\"... %zu rows (Esc stops)", m->search,
		 m->search_scanned);
	return 0;
}

int vw_model_idle(struct vw_model *m, size_t budget)
{
	size_t n = vw_source_count(m->src), nch = (n + VW_CHUNK - 1) / VW_CHUNK;

	while (budget-- > 0 && m->idle_next < nch) {
		if (!chunk(m, m->idle_next, n))
			return 0;
		m->idle_next++;
	}
	return m->idle_next < nch;
}

static int bm_find(const struct vw_model *m, size_t row)
{
	for (unsigned i = 0; i < m->nbookmarks; i++)
		if (m->bookmarks[i] == row)
			return (int)i;
	return -1;
}

int vw_model_is_bookmarked(const struct vw_model *m, size_t row)
{
	return bm_find(m, row) >= 0;
}

int vw_model_bookmark_toggle(struct vw_model *m)
{
	int k;
	unsigned i;

	if (m->sel == VW_NONE)
		return 0;
	k = bm_find(m, m->sel);
	if (k >= 0) {
		memmove(&m->bookmarks[k], &m->bookmarks[k + 1], (m->nbookmarks - (unsigned)k - 1) * sizeof(size_t));
		m->nbookmarks--;
		snprintf(m->status, sizeof(m->status), "bookmark removed (%u left)", m->nbookmarks);
		return 1;
	}
	if (m->nbookmarks == VW_MAX_BOOKMARKS) {
		snprintf(m->status, sizeof(m->status), "bookmark list full (%d)", VW_MAX_BOOKMARKS);
		return 1;
	}
	for (i = 0; i < m->nbookmarks && m->bookmarks[i] < m->sel; i++)
		;
	memmove(&m->bookmarks[i + 1], &m->bookmarks[i], (m->nbookmarks - i) * sizeof(size_t));
	m->bookmarks[i] = m->sel;
	m->nbookmarks++;
	snprintf(m->status, sizeof(m->status), "bookmark %u of %u set", i + 1, m->nbookmarks);
	return 1;
}

int vw_model_bookmark_jump(struct vw_model *m, int dir)
{
	unsigned i;

	if (!m->nbookmarks) {
		snprintf(m->status, sizeof(m->status), "no bookmarks (press m to set one)");
		return 0;
	}
	if (dir > 0) {
		for (i = 0; i < m->nbookmarks; i++)
			if (m->sel == VW_NONE || m->bookmarks[i] > m->sel)
				return vw_model_select(m, m->bookmarks[i]);
		return vw_model_select(m, m->bookmarks[0]); /* wrap */
	}
	for (i = m->nbookmarks; i-- > 0;)
		if (m->sel == VW_NONE || m->bookmarks[i] < m->sel)
			return vw_model_select(m, m->bookmarks[i]);
	return vw_model_select(m, m->bookmarks[m->nbookmarks - 1]);
}

size_t vw_model_rows(struct vw_model *m, size_t *out, size_t max)
{
	size_t k = 0, r = m->top;

	while (r != VW_NONE && k < max) {
		out[k++] = r;
		r = vw_model_scan(m, r, +1, NULL);
	}
	return k;
}

void vw_format_time(uint64_t ns, uint64_t t0, int absolute, char *buf, size_t len)
{
	if (ns == 0) { /* a row without a time of its own */
		snprintf(buf, len, "%*s", absolute ? 15 : 11, "-");
		return;
	}
	if (absolute) {
		time_t s = (time_t)(ns / 1000000000ull);
		struct tm tm;
		gmtime_r(&s, &tm);
		snprintf(buf, len, "%02d:%02d:%02d.%06u", tm.tm_hour, tm.tm_min, tm.tm_sec,
			 (unsigned)(ns % 1000000000ull / 1000));
		return;
	}
	if (ns >= t0)
		snprintf(buf, len, "%4llu.%06llu", (unsigned long long)((ns - t0) / 1000000000ull),
			 (unsigned long long)((ns - t0) % 1000000000ull / 1000));
	else
		snprintf(buf, len, "-%llu.%06llu", (unsigned long long)((t0 - ns) / 1000000000ull),
			 (unsigned long long)((t0 - ns) % 1000000000ull / 1000));
}

void vw_format_gap(uint64_t g, char *buf, size_t len)
{
	if (g < 1000)
		snprintf(buf, len, "+%lluns", (unsigned long long)g);
	else if (g < 1000000)
		snprintf(buf, len, "+%.1fus", (double)g / 1e3);
	else if (g < 1000000000)
		snprintf(buf, len, "+%.1fms", (double)g / 1e6);
	else
		snprintf(buf, len, "+%.2fs", (double)g / 1e9);
}

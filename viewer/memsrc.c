/*
 * The in-memory viewer source (see memsrc.h).  Text lives in one arena,
 * links in a compressed table indexed by row after vw_memsrc_finish().
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "memsrc.h"

struct ms_edge {
	size_t from, to;
	unsigned kind;
};

struct vw_memsrc {
	struct vw_row *rows;
	size_t *sum_off, *det_off;  /* into arena */
	size_t n, cap;
	char *arena;
	size_t arena_len, arena_cap;
	struct ms_edge *edges;
	size_t nedges, edges_cap;
	size_t *edge_start;         /* n + 1 entries after finish (CSR) */
	size_t *final_of;           /* provisional -> final */
	int finished;
};

struct vw_memsrc *vw_memsrc_new(void)
{
	return calloc(1, sizeof(struct vw_memsrc));
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t nc;
	void *q;

	if (need <= *cap)
		return 0;
	nc = *cap ? *cap : 256;
	while (nc < need)
		nc *= 2;
	q = realloc(*p, nc * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = nc;
	return 0;
}

static long arena_put(struct vw_memsrc *m, const char *s)
{
	size_t len = strlen(s ? s : "") + 1;
	size_t off = m->arena_len;

	if (grow((void **)&m->arena, &m->arena_cap, m->arena_len + len, 1) < 0)
		return -ENOMEM;
	memcpy(m->arena + off, s ? s : "", len);
	m->arena_len += len;
	return (long)off;
}

long vw_memsrc_add(struct vw_memsrc *m, const struct vw_row *r, const char *summary, const char *detail)
{
	size_t cap = m->cap;
	long so, dof;

	if (grow((void **)&m->rows, &cap, m->n + 1, sizeof(*m->rows)) < 0)
		return -ENOMEM;
	if (cap != m->cap) {
		size_t *a = realloc(m->sum_off, cap * sizeof(size_t));
		if (!a)
			return -ENOMEM;
		m->sum_off = a;
		a = realloc(m->det_off, cap * sizeof(size_t));
		if (!a)
			return -ENOMEM;
		m->det_off = a;
		m->cap = cap;
	}
	so = arena_put(m, summary);
	dof = arena_put(m, detail);
	if (so < 0 || dof < 0)
		return -ENOMEM;
	m->rows[m->n] = *r;
	m->sum_off[m->n] = (size_t)so;
	m->det_off[m->n] = (size_t)dof;
	m->finished = 0;
	return (long)m->n++;
}

int vw_memsrc_link(struct vw_memsrc *m, size_t a, size_t b, unsigned kab, unsigned kba)
{
	if (a >= m->n || b >= m->n || a == b)
		return -EINVAL;
	if (grow((void **)&m->edges, &m->edges_cap, m->nedges + 2, sizeof(*m->edges)) < 0)
		return -ENOMEM;
	m->edges[m->nedges++] = (struct ms_edge){ a, b, kab };
	m->edges[m->nedges++] = (struct ms_edge){ b, a, kba };
	return 0;
}

/* Sorting a permutation by (time, provisional number) keeps equal times stable. */
static const struct vw_row *sort_rows;

static int cmp_perm(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;

	if (sort_rows[a].ns != sort_rows[b].ns)
		return sort_rows[a].ns < sort_rows[b].ns ? -1 : 1;
	return a < b ? -1 : a > b;
}

static int cmp_edge(const void *pa, const void *pb)
{
	const struct ms_edge *a = pa, *b = pb;

	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	return a->to < b->to ? -1 : a->to > b->to;
}

int vw_memsrc_finish(struct vw_memsrc *m)
{
	size_t *perm = NULL, *fin = NULL, *start = NULL, *so = NULL, *dof = NULL;
	struct vw_row *rows = NULL;
	size_t i;

	if (m->finished)
		return 0;
	if (m->final_of)
		return -EINVAL; /* rows added after a finish: not supported */
	perm = malloc((m->n + 1) * sizeof(size_t));
	fin = malloc((m->n + 1) * sizeof(size_t));
	start = calloc(m->n + 1, sizeof(size_t));
	rows = malloc((m->n + 1) * sizeof(*rows));
	so = malloc((m->n + 1) * sizeof(size_t));
	dof = malloc((m->n + 1) * sizeof(size_t));
	if (!perm || !fin || !start || !rows || !so || !dof) {
		free(perm);
		free(fin);
		free(start);
		free(rows);
		free(so);
		free(dof);
		return -ENOMEM;
	}
	for (i = 0; i < m->n; i++)
		perm[i] = i;
	sort_rows = m->rows;
	qsort(perm, m->n, sizeof(size_t), cmp_perm);
	for (i = 0; i < m->n; i++) {
		rows[i] = m->rows[perm[i]];
		so[i] = m->sum_off[perm[i]];
		dof[i] = m->det_off[perm[i]];
		fin[perm[i]] = i;
	}
	free(perm);
	free(m->rows);
	free(m->sum_off);
	free(m->det_off);
	m->rows = rows;
	m->sum_off = so;
	m->det_off = dof;
	m->cap = m->n + 1;
	for (i = 0; i < m->nedges; i++) {
		m->edges[i].from = fin[m->edges[i].from];
		m->edges[i].to = fin[m->edges[i].to];
	}
	if (m->nedges)
		qsort(m->edges, m->nedges, sizeof(*m->edges), cmp_edge);
	/* CSR: edges of row r are [start[r], start[r + 1]) */
	for (i = 0; i < m->nedges; i++)
		start[m->edges[i].from + 1]++;
	for (i = 0; i < m->n; i++)
		start[i + 1] += start[i];
	m->edge_start = start;
	m->final_of = fin;
	m->finished = 1;
	return 0;
}

size_t vw_memsrc_final(const struct vw_memsrc *m, size_t provisional)
{
	if (!m->final_of || provisional >= m->n)
		return provisional;
	return m->final_of[provisional];
}

static size_t ms_count(void *ctx)
{
	struct vw_memsrc *m = ctx;

	return m->finished ? m->n : 0;
}

static int ms_row(void *ctx, size_t i, struct vw_row *out)
{
	struct vw_memsrc *m = ctx;

	if (i >= m->n)
		return -ERANGE;
	*out = m->rows[i];
	return 0;
}

static void copy_text(const char *src, char *buf, size_t len)
{
	size_t l;

	if (!len)
		return;
	l = strlen(src);
	if (l >= len)
		l = len - 1;
	memcpy(buf, src, l);
	buf[l] = 0;
}

static void ms_summary(void *ctx, size_t i, char *buf, size_t len)
{
	struct vw_memsrc *m = ctx;

	copy_text(i < m->n ? m->arena + m->sum_off[i] : "", buf, len);
}

static void ms_detail(void *ctx, size_t i, char *buf, size_t len)
{
	struct vw_memsrc *m = ctx;

	copy_text(i < m->n ? m->arena + m->det_off[i] : "", buf, len);
}

static size_t ms_links(void *ctx, size_t i, struct vw_link *out, size_t max)
{
	struct vw_memsrc *m = ctx;
	size_t k, n = 0;

	if (i >= m->n || !m->edge_start)
		return 0;
	for (k = m->edge_start[i]; k < m->edge_start[i + 1] && n < max; k++) {
		out[n].row = m->edges[k].to;
		out[n].kind = (uint8_t)m->edges[k].kind;
		out[n].name = NULL;
		n++;
	}
	return n;
}

static long ms_refresh(void *ctx)
{
	(void)ctx;
	return 0;
}

static void ms_close(void *ctx)
{
	vw_memsrc_free(ctx);
}

static const struct vw_source_ops ms_ops = {
	.count = ms_count,
	.row = ms_row,
	.summary = ms_summary,
	.detail = ms_detail,
	.links = ms_links,
	.refresh = ms_refresh,
	.close = ms_close,
};

void vw_memsrc_attach(struct vw_memsrc *m, struct vw_source *s)
{
	s->ops = &ms_ops;
	s->ctx = m;
}

void vw_memsrc_free(struct vw_memsrc *m)
{
	if (!m)
		return;
	free(m->rows);
	free(m->sum_off);
	free(m->det_off);
	free(m->arena);
	free(m->edges);
	free(m->edge_start);
	free(m->final_of);
	free(m);
}

/*
 * Findings grouped by kind and QP (see finding_groups.h): the findings'
 * indices sorted by (kind, QP, rank), then one group per run of equal keys.
 */
#include "finding_groups.h"

#include <stdlib.h>

struct keyed {
	uint32_t kind, qp, index;
};

static int keyed_cmp(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->qp != y->qp)
		return x->qp < y->qp ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int group_cmp(const void *a, const void *b)
{
	const struct finding_group *x = a, *y = b;
	if (x->time_lost_ns != y->time_lost_ns)
		return x->time_lost_ns > y->time_lost_ns ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

size_t finding_groups(const struct rt_timeline *tl, struct finding_group **out)
{
	size_t nf = rt_tl_finding_count(tl), ng = 0;
	*out = NULL;
	if (!nf)
		return 0;
	struct keyed *k = malloc(nf * sizeof(*k));
	struct finding_group *g = calloc(nf, sizeof(*g));
	if (!k || !g) {
		free(k);
		free(g);
		return 0;
	}
	for (size_t i = 0; i < nf; i++) {
		const struct rt_tl_finding *f = rt_tl_finding(tl, i);
		k[i] = (struct keyed){.kind = f->kind, .qp = f->qp, .index = (uint32_t)i};
	}
	qsort(k, nf, sizeof(*k), keyed_cmp);
	for (size_t i = 0; i < nf; i++) {
		if (!i || k[i].kind != k[i - 1].kind || k[i].qp != k[i - 1].qp)
			g[ng++] = (struct finding_group){.kind = k[i].kind, .qp = k[i].qp, .first = k[i].index};
		struct finding_group *G = &g[ng - 1];
		const struct rt_tl_finding *f = rt_tl_finding(tl, k[i].index);
		G->count++;
		G->time_lost_ns += f->time_lost_ns;
		G->bytes += f->bytes;
		if (f->severity > G->severity)
			G->severity = f->severity;
	}
	free(k);
	qsort(g, ng, sizeof(*g), group_cmp);
	*out = g;
	return ng;
}

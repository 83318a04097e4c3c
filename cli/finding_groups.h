/*
 * The findings of a timeline grouped by kind and QP, for the summary that
 * `rdmatrace diagnose` prints above the list: a lossy run can make hundreds
 * of Go-Back-N findings on one QP, and the reader wants their count and
 * their cost in one line before reading any of them.
 */
#ifndef RDMATRACE_CLI_FINDING_GROUPS_H
#define RDMATRACE_CLI_FINDING_GROUPS_H

#include <stddef.h>
#include <stdint.h>

#include "rdmatrace/timeline.h"

struct finding_group {
	uint32_t kind;            /* enum rt_tl_finding_kind */
	uint32_t qp;              /* QP index, RT_TL_NONE for findings about no QP */
	uint32_t severity;        /* the highest of the group */
	uint32_t first;           /* index (rt_tl_finding) of its first finding in rank order */
	size_t count;
	uint64_t time_lost_ns, bytes;
};

/* The groups, most time lost first (then most findings, then rank of the
 * first); *out is malloc'ed (NULL when there are no findings).  Returns the
 * number of groups, or 0 when out of memory. */
size_t finding_groups(const struct rt_timeline *tl, struct finding_group **out);

#endif

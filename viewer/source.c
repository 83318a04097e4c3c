/*
 * Helpers every viewer source shares: kind and opcode names, the time
 * binary search, closing.
 */
#include <stdlib.h>
#include <string.h>

#include "rdmatrace/event.h"
#include "rdmatrace/roce_wire.h"
#include "rdmatrace/trace_print.h"
#include "source.h"

const char *vw_kind_name(unsigned kind)
{
	if (kind == VW_KIND_WIRE)
		return "wire";
	if (kind == VW_KIND_FINDING)
		return "finding";
	return rt_event_kind_name(kind);
}

const char *vw_opcode_name(unsigned space, unsigned opcode)
{
	const struct rt_opcode_info *oi;

	switch (space) {
	case VW_OPS_WR:
		return rt_wr_opcode_name(opcode);
	case VW_OPS_WC:
		return rt_wc_opcode_name(opcode);
	case VW_OPS_BTH:
		oi = rt_opcode_info((uint8_t)opcode);
		return oi ? oi->symbol : "UNKNOWN";
	default:
		return "";
	}
}

const char *vw_host_name(const struct vw_source *s, unsigned host)
{
	if (host == VW_HOST_WIRE)
		return "wire";
	if (host < s->nhosts)
		return s->hosts[host].name;
	return "-";
}

size_t vw_source_find_time(const struct vw_source *s, uint64_t t)
{
	size_t lo = 0, hi = vw_source_count(s);
	struct vw_row r;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->ops->row(s->ctx, mid, &r) == 0 && r.ns < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void vw_source_close(struct vw_source *s)
{
	if (s->ops && s->ops->close)
		s->ops->close(s->ctx);
	s->ops = NULL;
	s->ctx = NULL;
	free(s->hosts);
	free(s->qps);
	free(s->findings);
	free(s->procs);
	s->procs = NULL;
	s->nprocs = 0;
	s->hosts = NULL;
	s->qps = NULL;
	s->findings = NULL;
	s->nhosts = s->nqps = s->nfindings = 0;
}

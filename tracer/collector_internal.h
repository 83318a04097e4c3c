/*
 * What the in-process tracer needs from the collector beyond the public
 * API: a collector over a segment the tracer has already mapped (the
 * mapping stays the tracer's; the collector unlinks the name on destroy).
 */
#ifndef RDMATRACE_TRACER_COLLECTOR_INTERNAL_H
#define RDMATRACE_TRACER_COLLECTOR_INTERNAL_H

#include "rdmatrace/collector.h"
#include "shm.h"

int rt_collector_adopt(struct rt_collector **out, const struct rt_shm_map *m, const char *output,
		       char *errbuf, size_t errlen);

#endif

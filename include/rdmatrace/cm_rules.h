/*
 * The kernel's RDMA CM rules that both the probe and uroce follow: the
 * backlog rdma_listen gets (drivers/infiniband/core/ucma.c).  The probe
 * records it; uroce enforces it; the diagnosis explains a connection
 * request dropped because of it.
 */
#ifndef RDMATRACE_CM_RULES_H
#define RDMATRACE_CM_RULES_H

#include <stdint.h>
#include <stdio.h>

/* The backlog the kernel gives rdma_listen(id, backlog): the connection
 * requests it holds until the program takes them with rdma_get_cm_event
 * (a request that comes while it holds that many is dropped without an
 * answer, and the requester's CM sends it again after its response
 * timeout).  It is the argument, or net.rdma_ucm.max_backlog (1024 unless
 * set) when that is 0, negative or larger. */
static inline uint32_t rt_cm_listen_backlog(int backlog)
{
	static _Atomic int max_backlog; /* (0: not read yet) */
	int max = max_backlog;
	if (!max) {
		FILE *f = fopen("/proc/sys/net/rdma_ucm/max_backlog", "re");
		if (!f || fscanf(f, "%d", &max) != 1 || max <= 0)
			max = 1024;
		if (f)
			fclose(f);
		max_backlog = max;
	}
	return (uint32_t)(backlog > 0 && backlog < max ? backlog : max);
}

#endif

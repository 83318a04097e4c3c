/*
 * A shared object carrying its own copy of the tracer, the way the LD_PRELOAD
 * probe and uroce's libibverbs.so.1 do: linked from librdmatrace.a, every
 * symbol but copy_* hidden by tests/tracer/tracer_copy.map.  test_two_copies
 * loads two of these next to the copy in the test program itself.
 */
#include <stdint.h>

#include "rdmatrace/tracer.h"

unsigned copy_emit(unsigned n, uint32_t qpn, uint64_t tag);
void copy_stop(void);
int copy_enabled(void);

unsigned copy_emit(unsigned n, uint32_t qpn, uint64_t tag)
{
	unsigned ok = 0;
	for (unsigned i = 0; i < n; i++) {
		struct rt_event *ev = rt_event_begin(RT_EV_WR_POST, qpn);
		if (!ev)
			continue;
		ev->u.wr.wr_id = tag + i;
		ev->u.wr.length = (uint32_t)(tag + i);
		rt_event_commit(ev);
		ok++;
	}
	return ok;
}

void copy_stop(void)
{
	rt_tracer_stop();
}

int copy_enabled(void)
{
	return rt_tracer_start_from_env();
}

/*
 * libFuzzer target for the kernel's process events as `rdmatrace record`
 * reads them (tracer/process_events.c): any byte string is offered as one
 * netlink datagram to a watcher following pid 1; what does not parse is
 * skipped, nothing is read out of bounds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rdmatrace/process_events.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rt_proc_events *pe = rt_proc_events_offline(1);
	if (!pe)
		return 0;
	/* the socket hands over an aligned buffer */
	uint8_t *copy = malloc(size ? size : 1);
	if (copy) {
		memcpy(copy, data, size);
		rt_proc_events_feed(pe, copy, size);
		rt_proc_events_feed(pe, copy, size); /* the same datagram again: forks of known processes */
		int st;
		uint64_t ns;
		for (int pid = 1; pid < 64; pid++)
			(void)rt_proc_events_exit(pe, pid, &st, &ns);
		free(copy);
	}
	rt_proc_events_close(pe);
	return 0;
}

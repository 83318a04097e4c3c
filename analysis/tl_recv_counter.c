/*
 * How many receives a process's device had completed by a given time, from
 * the device counters the probe samples (SoftRoCE's `rdma_recvs`: every
 * successful receive completion of the device, on any QP).
 *
 * UC and UD send nothing back, so when a receiver drops a message whole the
 * only witnesses are the capture (it saw the message arrive) and the
 * receiver (it never completed a receive for it).  The receive completions
 * a program polled say how many it took by the time it polled them, but not
 * whether it went on polling; the device's counter says how many the device
 * completed by the time it was read, whether polled or not.  The probe
 * records a counter when it changes, once per sampling interval, and reads
 * every counter one last time when the program exits, before its process
 * end record (probes/init.c): so a counter's last record holds its value
 * when the program exited.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tl_internal.h"

static bool is_recv_counter(const struct rt_event *ev)
{
	return ev->kind == RT_EV_COUNTER && !strncmp(ev->u.counter.name, "rdma_recvs", sizeof(ev->u.counter.name));
}

static int push_count(struct tl_recv_count **v, size_t *n, size_t *cap, uint32_t ev, uint64_t completed, bool at_exit)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		struct tl_recv_count *p = realloc(*v, c * sizeof(*p));
		if (!p)
			return -ENOMEM;
		*v = p;
		*cap = c;
	}
	(*v)[(*n)++] = (struct tl_recv_count){.ev = ev, .completed = completed, .at_exit = at_exit};
	return 0;
}

int tl_recv_counts(struct tl_build *b, uint16_t proc, uint64_t first_post_raw, struct tl_recv_count **out, size_t *n)
{
	size_t nev = tl_nev(b), cap = 0;
	*out = NULL;
	*n = 0;
	int device = -1, port = -1;  /* the one device and port counted (two or more: not used) */
	uint64_t base = 0, last = 0; /* its first value (when the program opened it), its latest */
	uint32_t end = RT_TL_NONE;   /* the process's end record after a normal exit */
	for (size_t i = 0; i < nev; i++) {
		const struct tl_evrec *e = tl_ev(b, i);
		if (e->proc != proc)
			continue;
		const struct rt_event *ev = &e->ev;
		if (ev->kind == RT_EV_PROCESS_END && ev->u.process_end.how == RT_END_EXIT && ev->u.process_end.has_code)
			end = (uint32_t)i; /* exit() or a return from main, through the probe: counters read just before */
		if (!is_recv_counter(ev))
			continue;
		if (device < 0) {
			/* the first sample, taken when the program opened the device,
			 * must come before the QP's first receive could complete */
			if (e->raw_ns >= first_post_raw)
				break;
			device = ev->u.counter.device_id;
			port = ev->u.counter.port;
			base = last = ev->u.counter.value;
			continue;
		}
		if (ev->u.counter.device_id != device || ev->u.counter.port != port) {
			free(*out);
			*out = NULL;
			*n = 0;
			return 0; /* which device and port the QP is on is not known (rxe has one port) */
		}
		if (ev->u.counter.value < last)
			break; /* the counter was reset: later values do not count from base */
		last = ev->u.counter.value;
		if (push_count(out, n, &cap, (uint32_t)i, last - base, false) < 0)
			return -ENOMEM;
	}
	if (device >= 0 && end != RT_TL_NONE && tl_ev(b, end)->raw_ns > first_post_raw &&
	    push_count(out, n, &cap, end, last - base, true) < 0)
		return -ENOMEM;
	return 0;
}

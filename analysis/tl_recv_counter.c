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

/* What one pass over the events keeps of a process's readings. */
struct recv_state {
	int device, port;         /* the one device and port counted (-1: none yet) */
	uint64_t base, last;      /* the first value (when the program opened the device), the latest */
	uint32_t end;             /* the end record after a normal exit, RT_TL_NONE */
	bool stopped;             /* a reset: later readings do not count from base */
};

static int push_count(struct tl_vec *v, uint32_t ev, uint64_t completed, bool at_exit)
{
	struct tl_recv_count *c = tl_vec_push(v);
	if (!c)
		return -ENOMEM;
	*c = (struct tl_recv_count){.ev = ev, .completed = completed, .at_exit = at_exit};
	return 0;
}

int tl_recv_series_build(struct tl_build *b, struct tl_recv_series *s)
{
	size_t np = b->procs.n, nev = tl_nev(b);
	struct recv_state *st = calloc(np + 1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	for (size_t p = 0; p < np; p++) {
		st[p] = (struct recv_state){.device = -1, .port = -1, .end = RT_TL_NONE};
		s[p] = (struct tl_recv_series){.first_raw = UINT64_MAX};
		tl_vec_init(&s[p].points, sizeof(struct tl_recv_count));
	}
	int rc = 0;
	for (size_t i = 0; i < nev && !rc; i++) {
		const struct tl_evrec *e = tl_ev(b, i);
		const struct rt_event *ev = &e->ev;
		struct recv_state *r = e->proc < np ? &st[e->proc] : NULL;
		if (!r || r->stopped || s[e->proc].unusable)
			continue;
		if (ev->kind == RT_EV_PROCESS_END && ev->u.process_end.how == RT_END_EXIT && ev->u.process_end.has_code)
			r->end = (uint32_t)i; /* exit() or a return from main, through the probe: counters read just before */
		if (!is_recv_counter(ev))
			continue;
		if (r->device < 0) {
			r->device = ev->u.counter.device_id;
			r->port = ev->u.counter.port;
			r->base = r->last = ev->u.counter.value;
			s[e->proc].first_raw = e->raw_ns;
		} else if (ev->u.counter.device_id != r->device || ev->u.counter.port != r->port) {
			s[e->proc].unusable = true; /* which device and port a QP is on is not known (rxe has one port) */
			tl_vec_free(&s[e->proc].points);
		} else if (ev->u.counter.value < r->last) {
			r->stopped = true; /* the counter was reset */
		} else {
			r->last = ev->u.counter.value;
			rc = push_count(&s[e->proc].points, (uint32_t)i, r->last - r->base, false);
		}
	}
	for (size_t p = 0; p < np && !rc; p++)
		if (st[p].device >= 0 && !s[p].unusable && st[p].end != RT_TL_NONE) /* (an end before a reset: its value then) */
			rc = push_count(&s[p].points, st[p].end, st[p].last - st[p].base, true);
	free(st);
	return rc;
}

void tl_recv_series_free(struct tl_recv_series *s, size_t n)
{
	for (size_t p = 0; s && p < n; p++)
		tl_vec_free(&s[p].points);
}

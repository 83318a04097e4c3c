/*
 * The collector (include/rdmatrace/collector.h): moves records from the
 * rings of a shared-memory segment (tracer/shm.h) into a trace file.
 *
 * Stream mode: records between a ring's tail and head are stable (the
 * producer never writes past tail + slots), so they are written straight from
 * shared memory and the tail is advanced afterwards.  Flight-recorder mode:
 * the producer overwrites freely, so a snapshot copies the ring, then
 * re-reads the head and keeps only the records the producer cannot have
 * touched meanwhile; what was overwritten before the snapshot is reported as
 * an RT_LOST_OVERWRITTEN record.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rdmatrace/collector.h"
#include "rdmatrace/trace_writer.h"
#include "collector_internal.h"
#include "shm.h"

#define SYNC_INTERVAL_NS 1000000000ull

struct rt_collector {
	struct rt_shm_map map;
	struct rt_shm_header *h;
	bool owns_name;         /* unlink the segment on destroy */
	bool borrowed_map;      /* the in-process tracer owns the mapping */
	bool salvage;
	bool finished;
	char output[4096];
	struct rt_trace_writer w;
	bool file_open;
	int error;
	uint64_t last_sync_mono;
	struct rt_clock_point last_check; /* the clock as the last poll sampled it */
	bool have_check;
	bool clock_set;         /* rt_collector_clock_set(): the wall clock was set */
	uint64_t handled_trigger;
	uint32_t own_seq;       /* sequence numbers of the collector's own records */
	int32_t procs_written[64];
	unsigned nprocs_written;
	struct rt_event *copy;  /* one ring's worth, for flight-recorder snapshots */
	struct rt_collector_stats st;
	bool end_set;           /* rt_collector_set_end(): write the process's end on finish */
	int32_t end_pid;
	int end_status;
	uint64_t end_mono_ns;   /* rt_collector_set_end_at(): when it exited, 0 unknown */
};

static uint32_t my_tid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

static int set_error(struct rt_collector *c, int err)
{
	if (err < 0 && !c->error)
		c->error = err;
	return err;
}

static const char *program_of(struct rt_shm_header *h, int32_t pid)
{
	for (int i = 0; i < RT_SHM_MAX_PROCS; i++)
		if (atomic_load_explicit(&h->procs[i].pid, memory_order_acquire) == pid)
			return h->procs[i].program;
	return "";
}

static int32_t first_proc(struct rt_shm_header *h)
{
	for (int i = 0; i < RT_SHM_MAX_PROCS; i++) {
		int32_t pid = atomic_load_explicit(&h->procs[i].pid, memory_order_acquire);
		if (pid > 0)
			return pid;
	}
	return 0;
}

static int open_file(struct rt_collector *c, bool force)
{
	if (c->file_open || c->error)
		return c->error;
	int32_t pid = first_proc(c->h);
	if (!pid && !force)
		return 0; /* wait until the program attaches, so the header can name it */
	struct rt_file_header fh;
	rt_file_header_init(&fh);
	fh.mode = c->h->mode;
	fh.pid = pid;
	fh.calib = c->h->calib;
	snprintf(fh.program, sizeof(fh.program), "%s", pid ? program_of(c->h, pid) : "");
	memcpy(fh.host, c->h->host, sizeof(fh.host));
	fh.host[sizeof(fh.host) - 1] = '\0';
	memcpy(fh.boot_id, c->h->boot_id, sizeof(fh.boot_id));
	fh.boot_id[sizeof(fh.boot_id) - 1] = '\0';
	char err[256];
	int rc = rt_trace_writer_open(&c->w, c->output, &fh, err, sizeof(err));
	if (rc < 0)
		return set_error(c, rc);
	c->file_open = true;
	c->last_sync_mono = 0;
	return 0;
}

static int write_events(struct rt_collector *c, int32_t pid, uint32_t ring, uint32_t tid, uint16_t flags,
			const struct rt_event *ev, size_t n)
{
	if (c->salvage)
		flags |= RT_CHUNKF_SALVAGED;
	int rc = rt_trace_writer_events(&c->w, pid, ring, tid, flags, ev, n);
	if (rc < 0)
		return set_error(c, rc);
	c->st.events += n;
	for (size_t i = 0; i < n; i++)
		if (ev[i].kind == RT_EV_LOST && ev[i].u.lost.cause < 5)
			c->st.lost[ev[i].u.lost.cause] += ev[i].u.lost.count;
	return 0;
}

static int ensure_process(struct rt_collector *c, int32_t pid)
{
	for (unsigned i = 0; i < c->nprocs_written; i++)
		if (c->procs_written[i] == pid)
			return 0;
	struct rt_process_record p;
	memset(&p, 0, sizeof(p));
	p.pid = pid;
	for (int i = 0; i < RT_SHM_MAX_PROCS; i++)
		if (atomic_load_explicit(&c->h->procs[i].pid, memory_order_acquire) == pid) {
			p.start_time = c->h->procs[i].start_time;
			memcpy(p.program, c->h->procs[i].program, sizeof(p.program));
			p.program[sizeof(p.program) - 1] = '\0';
		}
	int rc = rt_trace_writer_process(&c->w, &p);
	if (rc < 0)
		return set_error(c, rc);
	if (c->nprocs_written < sizeof(c->procs_written) / sizeof(c->procs_written[0]))
		c->procs_written[c->nprocs_written++] = pid;
	return 0;
}

static void write_clock_point(struct rt_collector *c, const struct rt_clock_point *p)
{
	c->last_sync_mono = p->mono_ns;
	struct rt_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.ticks = p->ticks;
	ev.seq = c->own_seq++;
	ev.tid = my_tid();
	ev.kind = RT_EV_CLOCK_SYNC;
	ev.u.clock.ticks = p->ticks;
	ev.u.clock.mono_ns = p->mono_ns;
	ev.u.clock.real_ns = p->real_ns;
	write_events(c, getpid(), ~0u, ev.tid, RT_CHUNKF_COLLECTOR, &ev, 1);
}

/*
 * A clock point every second (force: now).  The reader moves the wall-clock
 * offset evenly from one point to the next, which follows NTP's slewing but
 * not a step (the wall clock set: NTP's first sync after boot, `date -s`):
 * events up to a second around it would be off by the step.  So every poll
 * samples the clock, and when the offset jumped since the last poll (or the
 * clock was reported set), the last poll's sample and this one both become
 * points: the step lies between two polls, and the reader places it at the
 * later point (rt_clock_wall_stepped).
 */
static void clock_sync(struct rt_collector *c, bool force)
{
	struct rt_clock_point p;
	rt_clock_sample(c->h->calib.source, &p);
	bool stepped = false;
	if (c->have_check && p.mono_ns >= c->last_check.mono_ns) {
		int64_t change = (int64_t)(p.real_ns - p.mono_ns) - (int64_t)(c->last_check.real_ns - c->last_check.mono_ns);
		stepped = c->clock_set || rt_clock_wall_stepped(change, p.mono_ns - c->last_check.mono_ns);
	}
	c->clock_set = false;
	if (stepped && c->last_sync_mono && c->last_sync_mono != c->last_check.mono_ns)
		write_clock_point(c, &c->last_check);
	c->last_check = p;
	c->have_check = true;
	if (!force && !stepped && c->last_sync_mono && p.mono_ns - c->last_sync_mono < SYNC_INTERVAL_NS)
		return;
	write_clock_point(c, &p);
}

void rt_collector_clock_set(struct rt_collector *c)
{
	if (c)
		c->clock_set = true;
}

/* Report drops the producer counted but could not write as a LOST record itself. */
static void report_ring_lost(struct rt_collector *c, struct rt_shm_ring *r, uint32_t idx)
{
	for (unsigned cause = 1; cause < RT_LOST_CAUSES; cause++) {
		uint64_t n = atomic_exchange_explicit(&r->lost[cause], 0, memory_order_acq_rel);
		if (!n)
			continue;
		struct rt_event ev;
		memset(&ev, 0, sizeof(ev));
		ev.ticks = rt_clock_ticks(c->h->calib.source);
		ev.seq = atomic_load_explicit(&r->lost_first_seq, memory_order_relaxed);
		ev.tid = r->tid;
		ev.kind = RT_EV_LOST;
		ev.u.lost.count = n;
		ev.u.lost.first_seq = ev.seq;
		ev.u.lost.cause = (uint8_t)cause;
		ensure_process(c, r->pid);
		write_events(c, r->pid, idx, r->tid, RT_CHUNKF_COLLECTOR, &ev, 1);
	}
}

static void report_no_ring(struct rt_collector *c)
{
	uint64_t n = atomic_exchange_explicit(&c->h->lost_no_ring, 0, memory_order_acq_rel);
	if (!n)
		return;
	struct rt_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.ticks = rt_clock_ticks(c->h->calib.source);
	ev.seq = c->own_seq++;
	ev.kind = RT_EV_LOST;
	ev.u.lost.count = n;
	ev.u.lost.cause = RT_LOST_NO_RING;
	int32_t pid = first_proc(c->h);
	write_events(c, pid, ~0u, 0, RT_CHUNKF_COLLECTOR, &ev, 1);
}

/* Stream mode: write [tail, head) straight from shared memory. */
static int drain_ring(struct rt_collector *c, struct rt_shm_ring *r, uint32_t idx, bool final)
{
	uint32_t state = atomic_load_explicit(&r->state, memory_order_acquire);
	if (state != RT_RING_OWNED && state != RT_RING_RETIRED)
		return 0;
	uint32_t slots = c->h->ring_slots;
	uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	int written = 0;
	if (head - tail > slots) { /* only a dead or broken producer gets here */
		struct rt_event ev;
		memset(&ev, 0, sizeof(ev));
		ev.ticks = rt_clock_ticks(c->h->calib.source);
		ev.tid = r->tid;
		ev.kind = RT_EV_LOST;
		ev.u.lost.count = head - tail - slots;
		ev.u.lost.cause = RT_LOST_OVERWRITTEN;
		ensure_process(c, r->pid);
		write_events(c, r->pid, idx, r->tid, RT_CHUNKF_COLLECTOR, &ev, 1);
		tail = head - slots;
	}
	if (head != tail) {
		ensure_process(c, r->pid);
		struct rt_event *slots_p = rt_shm_slots(r);
		while (tail != head && !c->error) {
			uint64_t at = tail & (slots - 1);
			uint64_t n = head - tail;
			if (at + n > slots)
				n = slots - at;
			if (write_events(c, r->pid, idx, r->tid, 0, slots_p + at, (size_t)n) < 0)
				break;
			tail += n;
			written += (int)n;
		}
		atomic_store_explicit(&r->tail, tail, memory_order_release);
	}
	if (state == RT_RING_RETIRED || final)
		report_ring_lost(c, r, idx);
	if (state == RT_RING_RETIRED && tail == head && !c->salvage) {
		uint32_t expect = RT_RING_RETIRED;
		atomic_compare_exchange_strong(&r->state, &expect, RT_RING_FREE);
	}
	return written;
}

/*
 * Flight-recorder snapshot of one ring.  The producer may be overwriting the
 * ring while it is copied; TSan cannot know the copy is validated afterwards.
 */
__attribute__((no_sanitize("thread")))
static void copy_slots(struct rt_event *dst, const struct rt_event *src, uint64_t first, uint64_t n, uint32_t slots)
{
	for (uint64_t i = 0; i < n; i++)
		dst[i] = src[(first + i) & (slots - 1)];
}

static int snapshot_ring(struct rt_collector *c, struct rt_shm_ring *r, uint32_t idx)
{
	uint32_t state = atomic_load_explicit(&r->state, memory_order_acquire);
	if (state != RT_RING_OWNED && state != RT_RING_RETIRED)
		return 0;
	uint32_t slots = c->h->ring_slots;
	uint32_t gen = r->generation;
	uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	/* Slot head & mask may be being rewritten right now: it is never read. */
	uint64_t first = head >= slots ? head - slots + 1 : 0;
	if (first < tail)
		first = tail;
	uint64_t n = head - first;
	copy_slots(c->copy, rt_shm_slots(r), first, n, slots);
	/* The copy's loads must happen before the head is read again (seqlock reader). */
#ifdef __SANITIZE_THREAD__
	__asm__ volatile("" ::: "memory"); /* TSan has no fences; the copy is not instrumented anyway */
#else
	atomic_thread_fence(memory_order_acquire);
#endif
	uint64_t head2 = atomic_load_explicit(&r->head, memory_order_acquire);
	if (r->generation != gen)
		return 0; /* the ring changed hands while copied: nothing in it is ours */
	uint64_t valid = head2 >= slots ? head2 - slots + 1 : 0;
	uint64_t skip = valid > first ? valid - first : 0;
	if (skip > n)
		skip = n;
	ensure_process(c, r->pid);
	uint64_t overwritten = (first + skip) - tail;
	if (overwritten) {
		struct rt_event ev;
		memset(&ev, 0, sizeof(ev));
		/* just before the first record kept: that is where the loss is */
		ev.ticks = n > skip ? c->copy[skip].ticks - 1 : rt_clock_ticks(c->h->calib.source);
		ev.tid = r->tid;
		ev.kind = RT_EV_LOST;
		ev.u.lost.count = overwritten;
		ev.u.lost.cause = RT_LOST_OVERWRITTEN;
		write_events(c, r->pid, idx, r->tid, RT_CHUNKF_COLLECTOR | RT_CHUNKF_SNAPSHOT, &ev, 1);
	}
	if (n > skip)
		write_events(c, r->pid, idx, r->tid, RT_CHUNKF_SNAPSHOT, c->copy + skip, (size_t)(n - skip));
	atomic_store_explicit(&r->tail, head, memory_order_release);
	report_ring_lost(c, r, idx);
	return (int)(n - skip);
}

static int for_each_ring(struct rt_collector *c, bool snapshot, bool final)
{
	if (open_file(c, final || snapshot) < 0 || !c->file_open)
		return c->error;
	int total = 0;
	unsigned active = 0;
	for (uint32_t i = 0; i < c->h->ring_count && !c->error; i++) {
		struct rt_shm_ring *r = rt_shm_ring_at(c->h, i);
		if (atomic_load_explicit(&r->state, memory_order_relaxed) == RT_RING_OWNED)
			active++;
		total += snapshot ? snapshot_ring(c, r, i) : drain_ring(c, r, i, final);
	}
	report_no_ring(c);
	c->st.rings_active = active;
	c->st.bytes = c->w.bytes;
	return c->error ? c->error : total;
}

int rt_collector_snapshot(struct rt_collector *c, const char *reason)
{
	(void)reason; /* the reason is already in the segment for `snapshot` to show */
	if (c->error)
		return c->error;
	clock_sync(c, true);
	int rc = for_each_ring(c, c->h->mode == RT_MODE_FLIGHT_RECORDER, false);
	if (rc >= 0)
		c->st.snapshots++;
	return rc;
}

int rt_collector_poll(struct rt_collector *c)
{
	if (c->error || c->finished)
		return c->error;
	if (open_file(c, false) < 0)
		return c->error;
	if (!c->file_open)
		return 0;
	clock_sync(c, c->last_sync_mono == 0);
	uint64_t trig = atomic_load_explicit(&c->h->trigger_seq, memory_order_acquire);
	int rc = 0;
	if (trig != c->handled_trigger) {
		rc = rt_collector_snapshot(c, c->h->trigger_reason);
		c->handled_trigger = trig;
		atomic_store_explicit(&c->h->snapshot_done, trig, memory_order_release);
	} else if (c->h->mode != RT_MODE_FLIGHT_RECORDER) {
		rc = for_each_ring(c, false, false);
	}
	return rc;
}

/* The end of a process its parent saw (rt_collector_set_end), after its last records. */
static void write_end(struct rt_collector *c)
{
	struct rt_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.ticks = c->end_mono_ns ? rt_clock_mono_to_ticks(&c->h->calib, c->end_mono_ns) : rt_clock_ticks(c->h->calib.source);
	ev.seq = c->own_seq++;
	ev.tid = my_tid();
	ev.kind = RT_EV_PROCESS_END;
	ev.u.process_end.pid = c->end_pid;
	ev.u.process_end.how = RT_END_WAIT;
	ev.u.process_end.exact_time = c->end_mono_ns != 0;
	if (WIFEXITED(c->end_status)) {
		ev.u.process_end.code = WEXITSTATUS(c->end_status);
	} else if (WIFSIGNALED(c->end_status)) {
		ev.u.process_end.signal = (uint8_t)WTERMSIG(c->end_status);
		ev.u.process_end.core_dumped = WCOREDUMP(c->end_status) ? 1 : 0;
		ev.flags |= RT_EVF_ERROR;
	}
	ensure_process(c, c->end_pid);
	write_events(c, c->end_pid, ~0u, ev.tid, RT_CHUNKF_COLLECTOR, &ev, 1);
}

void rt_collector_set_end(struct rt_collector *c, int32_t pid, int wait_status)
{
	if (!c)
		return;
	c->end_set = true;
	c->end_pid = pid;
	c->end_status = wait_status;
}

void rt_collector_set_end_at(struct rt_collector *c, int32_t pid, int wait_status, uint64_t mono_ns)
{
	rt_collector_set_end(c, pid, wait_status);
	if (c)
		c->end_mono_ns = mono_ns;
}

int rt_collector_finish(struct rt_collector *c)
{
	if (!c || c->finished)
		return c ? c->error : 0;
	c->finished = true;
	if (!c->error) {
		open_file(c, true);
		if (c->file_open) {
			/* a file opened only now (the program stopped before the first
			 * poll) still starts with a clock point, as every other does */
			if (!c->last_sync_mono)
				clock_sync(c, true);
			if (c->h->mode == RT_MODE_FLIGHT_RECORDER) {
				for_each_ring(c, true, false);
				c->st.snapshots++;
			}
			for_each_ring(c, false, true);
			if (c->end_set)
				write_end(c);
			clock_sync(c, true);
		}
	}
	uint64_t trig = atomic_load_explicit(&c->h->trigger_seq, memory_order_acquire);
	atomic_store_explicit(&c->h->snapshot_done, trig, memory_order_release);
	int32_t me = getpid();
	atomic_compare_exchange_strong(&c->h->collector_pid, &me, 0);
	if (c->file_open) {
		c->st.bytes = c->w.bytes;
		int rc = rt_trace_writer_close(&c->w);
		set_error(c, rc);
		c->file_open = false;
	}
	return c->error;
}

static int new_collector(struct rt_collector **out, const char *output, char *errbuf, size_t errlen)
{
	*out = NULL;
	if (!output || !*output) {
		if (errbuf)
			snprintf(errbuf, errlen, "no output file given");
		return -EINVAL;
	}
	struct rt_collector *c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	if (strlen(output) >= sizeof(c->output)) {
		free(c);
		if (errbuf)
			snprintf(errbuf, errlen, "output file name too long");
		return -ENAMETOOLONG;
	}
	snprintf(c->output, sizeof(c->output), "%s", output);
	c->w.fd = -1;
	*out = c;
	return 0;
}

/* Tell `rdmatrace snapshot` where the trace goes: absolute path, truncated to fit. */
static void publish_output(struct rt_collector *c)
{
	char abs[8192] = "";
	if (c->output[0] != '/' && getcwd(abs, sizeof(abs) - 1))
		strcat(abs, "/");
	size_t used = strlen(abs);
	size_t n = strnlen(c->output, sizeof(abs) - used - 1);
	memcpy(abs + used, c->output, n);
	abs[used + n] = '\0';
	n = strnlen(abs, sizeof(c->h->output) - 1);
	memcpy(c->h->output, abs, n);
	c->h->output[n] = '\0';
}

static int bind_segment(struct rt_collector *c, unsigned flags, char *errbuf, size_t errlen)
{
	c->h = c->map.hdr;
	c->copy = calloc(c->h->ring_slots, sizeof(struct rt_event));
	if (!c->copy)
		return -ENOMEM;
	int32_t me = getpid();
	int32_t cur = atomic_load_explicit(&c->h->collector_pid, memory_order_acquire);
	if (cur > 0 && cur != me && !(flags & RT_COLLECT_FORCE)) {
		bool alive = kill(cur, 0) == 0 || errno == EPERM;
		if (alive) {
			if (errbuf)
				snprintf(errbuf, errlen, "segment %s is already drained by process %d", c->map.name, cur);
			return -EBUSY;
		}
	}
	atomic_store_explicit(&c->h->collector_pid, me, memory_order_release);
	publish_output(c);
	c->handled_trigger = atomic_load_explicit(&c->h->trigger_seq, memory_order_acquire);
	if (flags & RT_COLLECT_SALVAGE)
		c->handled_trigger = ~0ull; /* a pending trigger is answered by the salvage itself */
	return 0;
}

int rt_collector_create(struct rt_collector **out, const struct rt_collector_options *o, char *errbuf, size_t errlen)
{
	static _Atomic unsigned counter;
	struct rt_collector *c;
	int rc = new_collector(&c, o->output, errbuf, errlen);
	if (rc < 0)
		return rc;
	char name[128];
	if (o->shm_name)
		snprintf(name, sizeof(name), "%s", o->shm_name);
	else
		snprintf(name, sizeof(name), RT_SHM_PREFIX "%u-%d-%u", (unsigned)getuid(), (int)getpid(),
			 atomic_fetch_add(&counter, 1));
	rc = rt_shm_create(&c->map, name, o->mode, o->ring_bytes, o->max_threads, rt_clock_default_source(),
			   errbuf, errlen);
	if (rc == -EEXIST && errbuf)
		snprintf(errbuf, errlen, "shared memory %s already exists", name);
	if (rc < 0) {
		free(c);
		return rc;
	}
	c->owns_name = true;
	c->map.hdr->trigger_on_error = o->mode == RT_MODE_FLIGHT_RECORDER && !o->no_error_trigger;
	rc = bind_segment(c, 0, errbuf, errlen);
	if (rc < 0) {
		rt_collector_destroy(c);
		return rc;
	}
	*out = c;
	return 0;
}

int rt_collector_adopt(struct rt_collector **out, const struct rt_shm_map *m, const char *output,
		       char *errbuf, size_t errlen)
{
	struct rt_collector *c;
	int rc = new_collector(&c, output, errbuf, errlen);
	if (rc < 0)
		return rc;
	c->map = *m;
	c->borrowed_map = true;
	c->owns_name = true;
	rc = bind_segment(c, RT_COLLECT_FORCE, errbuf, errlen);
	if (rc == 0)
		rc = open_file(c, true);
	if (rc < 0) {
		if (errbuf)
			snprintf(errbuf, errlen, "cannot create trace file %s: %s", output, strerror(-rc));
		c->owns_name = false;
		rt_collector_destroy(c);
		return rc;
	}
	*out = c;
	return 0;
}

int rt_collector_attach(struct rt_collector **out, const char *shm_name, const char *output, unsigned flags,
			char *errbuf, size_t errlen)
{
	struct rt_collector *c;
	int rc = new_collector(&c, output, errbuf, errlen);
	if (rc < 0)
		return rc;
	rc = rt_shm_attach(&c->map, shm_name, 1, errbuf, errlen);
	if (rc < 0) {
		free(c);
		return rc;
	}
	c->salvage = flags & RT_COLLECT_SALVAGE;
	rc = bind_segment(c, flags, errbuf, errlen);
	if (rc < 0) {
		rt_collector_destroy(c);
		return rc;
	}
	*out = c;
	return 0;
}

const char *rt_collector_shm_name(const struct rt_collector *c)
{
	return c->map.name;
}

void rt_collector_get_stats(const struct rt_collector *c, struct rt_collector_stats *st)
{
	*st = c->st;
	if (c->file_open)
		st->bytes = c->w.bytes;
}

static uint64_t pending_in(struct rt_shm_header *h)
{
	uint64_t total = 0;
	for (uint32_t i = 0; i < h->ring_count; i++) {
		struct rt_shm_ring *r = rt_shm_ring_at(h, i);
		uint32_t state = atomic_load_explicit(&r->state, memory_order_acquire);
		if (state != RT_RING_OWNED && state != RT_RING_RETIRED)
			continue;
		uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
		uint64_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
		uint64_t n = head - tail;
		total += n > h->ring_slots ? h->ring_slots : n;
	}
	return total;
}

uint64_t rt_collector_pending(const struct rt_collector *c)
{
	return pending_in(c->h);
}

int rt_collector_unlink(struct rt_collector *c)
{
	c->owns_name = false;
	return shm_unlink(c->map.name) == 0 ? 0 : -errno;
}

void rt_collector_destroy(struct rt_collector *c)
{
	if (!c)
		return;
	if (c->file_open)
		rt_trace_writer_close(&c->w);
	if (c->h) {
		int32_t me = getpid();
		atomic_compare_exchange_strong(&c->h->collector_pid, &me, 0);
	}
	if (c->owns_name)
		shm_unlink(c->map.name);
	if (!c->borrowed_map)
		rt_shm_detach(&c->map);
	free(c->copy);
	free(c);
}

int rt_collector_list_segments(int (*fn)(const struct rt_segment_info *info, void *arg), void *arg)
{
	DIR *d = opendir("/dev/shm");
	if (!d)
		return -errno;
	int seen = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		struct rt_shm_map m;
		if (rt_shm_attach(&m, e->d_name, 0, NULL, 0) < 0)
			continue;
		struct rt_shm_header *h = m.hdr;
		struct rt_segment_info info;
		memset(&info, 0, sizeof(info));
		info.name = m.name;
		info.creator_pid = h->creator_pid;
		info.collector_pid = atomic_load(&h->collector_pid);
		for (int i = 0; i < RT_SHM_MAX_PROCS; i++) {
			int32_t pid = atomic_load(&h->procs[i].pid);
			if (pid > 0)
				info.pids[info.npids++] = pid;
		}
		info.producers_alive = rt_shm_producers_alive(h);
		info.collector_alive = info.collector_pid > 0 && (kill(info.collector_pid, 0) == 0 || errno == EPERM);
		info.mode = h->mode;
		info.pending = pending_in(h);
		memcpy(info.output, h->output, sizeof(info.output));
		info.output[sizeof(info.output) - 1] = '\0';
		seen++;
		int stop = fn(&info, arg);
		rt_shm_detach(&m);
		if (stop)
			break;
	}
	closedir(d);
	return seen;
}

struct find_arg {
	int pid;
	char *name;
	size_t len;
	int found;
};

static int find_cb(const struct rt_segment_info *info, void *arg)
{
	struct find_arg *a = arg;
	for (unsigned i = 0; i < info->npids; i++)
		if (info->pids[i] == a->pid) {
			snprintf(a->name, a->len, "%s", info->name);
			a->found = 1;
			/* Prefer a segment someone still drains; keep looking otherwise. */
			return info->collector_alive;
		}
	return 0;
}

int rt_collector_find_segment(int pid, char *name, size_t len)
{
	struct find_arg a = {pid, name, len, 0};
	int rc = rt_collector_list_segments(find_cb, &a);
	if (rc < 0)
		return rc;
	return a.found ? 0 : -ENOENT;
}

int rt_collector_request_snapshot(const char *shm_name, const char *reason, unsigned timeout_ms, char *output,
				  size_t outlen, char *errbuf, size_t errlen)
{
	struct rt_shm_map m;
	int rc = rt_shm_attach(&m, shm_name, 1, errbuf, errlen);
	if (rc < 0)
		return rc;
	uint64_t seq = rt_shm_trigger(m.hdr, reason ? reason : "rdmatrace snapshot");
	rc = rt_shm_wait_snapshot(m.hdr, seq, timeout_ms);
	if (rc == 0 && output && outlen)
		snprintf(output, outlen, "%.*s", (int)sizeof(m.hdr->output), m.hdr->output);
	else if (rc == -ENOTCONN && errbuf)
		snprintf(errbuf, errlen, "nobody drains %s (its collector is gone; try rdmatrace salvage)", m.name);
	else if (rc == -ETIMEDOUT && errbuf)
		snprintf(errbuf, errlen, "the collector of %s did not answer within %u ms", m.name, timeout_ms);
	rt_shm_detach(&m);
	return rc;
}

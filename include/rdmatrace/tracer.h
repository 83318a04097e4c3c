/*
 * The producer side of the tracer: what instrumented code calls to record an
 * event.  The uroce engine, the LD_PRELOAD probe and the lab programs all use
 * exactly this interface, so it is kept small and stable:
 *
 *     struct rt_event *ev = rt_event_begin(RT_EV_WR_POST, qpn);
 *     if (ev) {
 *             ev->u.wr.wr_id = wr->wr_id;
 *             ...
 *             rt_event_commit(ev);
 *     }
 *
 * rt_event_begin() fills the header (time, thread id, sequence number, kind,
 * qpn) and returns the slot to fill, or NULL when tracing is off or the event
 * had to be dropped (the drop is counted and reported as an RT_EV_LOST
 * record).  Between begin and commit nothing else may be emitted from the
 * same thread.  Neither call takes a lock, makes a system call or allocates
 * on the fast path (both are inline: a few thread-local compares, a TSC
 * read, the stores, one release store); the first event of a thread takes a
 * slow path that attaches a ring.
 *
 * Tracing is configured from the environment the first time it is used
 * (docs/tracer.md lists the variables), or
 * explicitly with rt_tracer_start().
 */
#ifndef RDMATRACE_TRACER_H
#define RDMATRACE_TRACER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rdmatrace/clock.h"
#include "rdmatrace/event.h"

#ifdef __cplusplus
extern "C" {
#endif

enum rt_tracer_mode {
	RT_MODE_STREAM = 0,          /* a collector drains rings to files; full ring drops */
	RT_MODE_FLIGHT_RECORDER = 1, /* rings overwrite their oldest events; dumped on a trigger */
};

struct rt_tracer_options {
	const char *output;          /* trace file to write (in-process collector), or NULL */
	const char *shm_path;        /* shared-memory segment to attach to (external collector), or NULL */
	enum rt_tracer_mode mode;
	size_t ring_bytes;           /* per-thread ring size, power of two; 0 = default */
	unsigned max_threads;        /* rings in the segment; 0 = default */
	const char *program;         /* program name for the file header; NULL = from /proc */
};

/*
 * Start tracing with explicit options.  Returns 0 or a negative errno and,
 * when errbuf is given, a message for the user.  Calling it when tracing is
 * already started returns -EALREADY.
 */
int rt_tracer_start(const struct rt_tracer_options *opts, char *errbuf, size_t errlen);

/*
 * Start tracing from the environment (RDMATRACE_OUTPUT, RDMATRACE_SHM,
 * RDMATRACE_MODE, RDMATRACE_RING_KB ...) if it asks for it.  Idempotent and
 * cheap after the first call.  Returns true when tracing is on.
 */
bool rt_tracer_start_from_env(void);

/* Flush every ring and close the trace; safe to call more than once. */
void rt_tracer_stop(void);
/* The process is about to exit with status (the probe's exit() / _exit()
 * wrappers): its RT_EV_PROCESS_END record, written once per process. */
void rt_tracer_note_exit(int status);

/* Flight recorder: write the rings out now (also on the configured triggers). */
int rt_tracer_snapshot(const char *reason);

/*
 * Per-thread producer state, read by the inline fast path below.  Internal:
 * its layout may change with any release (producers are rebuilt with the
 * library they link).  Every copy of the tracer statically linked into a
 * shared object has its own, hidden by that object's version script.
 */
struct rt_tls_state {
	struct rt_event *slots;  /* the thread's ring, NULL before the first event */
	uint64_t *head_ptr;      /* the ring's shared head counter */
	uint64_t head;           /* records committed (private copy) */
	uint64_t limit;          /* begin takes the slow path when head >= limit */
	uint32_t mask;           /* ring slots - 1 */
	uint32_t seq;            /* next sequence number */
	uint32_t tid;
	uint32_t source;         /* enum rt_clock_source */
	int epoch;               /* tracing session this state belongs to */
	int busy;                /* between begin and commit */
	int pending;             /* drops to report, no ring, or thread exiting */
	int dead;
	void *ring;              /* the ring's shared header */
	uint32_t no_ring_count;
	uint32_t reserved;
};

extern __thread struct rt_tls_state rt_tls_state __attribute__((tls_model("initial-exec")));

/* Out-of-line parts of the fast path; not for direct use. */
struct rt_event *rt_event_begin_slow(uint16_t kind, uint32_t qpn);
struct rt_event *rt_event_begin_fast(uint16_t kind, uint32_t qpn);
void rt_event_commit_slot(struct rt_event *ev);
void rt_event_commit_error(struct rt_event *ev);

/*
 * 0 while tracing is off: the one predictable branch a disabled tracer
 * costs.  -1 until configured (the first event reads the environment),
 * otherwise the number of the current tracing session.  Atomic because any
 * thread reads it while start/stop (at exit, too) write it; the relaxed
 * load is a plain load on every CPU we build for.
 */
extern _Atomic int rt_tracer_enabled;

/* The thread's next ring slot with its header filled in, for the inline
 * fast path below and the tracer's out-of-line one; not for direct use. */
static inline struct rt_event *rt_event_take_slot(struct rt_tls_state *t, uint16_t kind, uint32_t qpn)
{
	struct rt_event *ev = &t->slots[t->head & t->mask];
	ev->ticks = rt_clock_ticks(t->source);
	ev->seq = t->seq++;
	ev->tid = t->tid;
	ev->kind = kind;
	ev->flags = 0;
	ev->qpn = qpn;
	__builtin_memset(&ev->u, 0, sizeof(ev->u));
	return ev;
}

static inline struct rt_event *rt_event_begin(uint16_t kind, uint32_t qpn)
{
	int e = atomic_load_explicit(&rt_tracer_enabled, memory_order_relaxed);
	if (__builtin_expect(!e, 1))
		return (struct rt_event *)0;
	struct rt_tls_state *t = &rt_tls_state;
	if (__builtin_expect(t->epoch != e || t->busy || t->head >= t->limit, 0))
		return rt_event_begin_slow(kind, qpn);
	t->busy = 1;
	__asm__ volatile("" ::: "memory"); /* a signal handler sees busy before the slot is taken */
	return rt_event_take_slot(t, kind, qpn);
}

static inline void rt_event_commit(struct rt_event *ev)
{
	struct rt_tls_state *t = &rt_tls_state;
	/* Decided before the barrier, so a constant kind folds the test away. */
	int error = ev->kind == RT_EV_COMPLETION && ev->u.wc.status != 0;
	__atomic_store_n(t->head_ptr, ++t->head, __ATOMIC_RELEASE);
	__asm__ volatile("" ::: "memory");
	t->busy = 0;
	if (__builtin_expect(error, 0))
		rt_event_commit_error(ev);
}

/* Convenience emitters for the less frequent kinds. */
void rt_trace_marker(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void rt_trace_warning(uint32_t code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rt_trace_counter(const char *name, uint8_t port, uint64_t value);

#ifdef __cplusplus
}
#endif

#endif

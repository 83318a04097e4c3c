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
 * on the fast path; the first event of a thread takes a slow path that
 * attaches a ring.
 *
 * Tracing is configured from the environment the first time it is used
 * (docs/trace-format.md and docs/user-guide.md list the variables), or
 * explicitly with rt_tracer_start().
 */
#ifndef RDMATRACE_TRACER_H
#define RDMATRACE_TRACER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* Flight recorder: write the rings out now (also on the configured triggers). */
int rt_tracer_snapshot(const char *reason);

/* Out-of-line part of rt_event_begin(); not for direct use. */
struct rt_event *rt_event_begin_slow(uint16_t kind, uint32_t qpn);
struct rt_event *rt_event_begin_fast(uint16_t kind, uint32_t qpn);
void rt_event_commit_slot(struct rt_event *ev);

/* Non-zero while tracing is on: the one branch a disabled tracer costs. */
extern volatile int rt_tracer_enabled;

static inline struct rt_event *rt_event_begin(uint16_t kind, uint32_t qpn)
{
	if (__builtin_expect(!rt_tracer_enabled, 1))
		return NULL;
	return rt_event_begin_fast(kind, qpn);
}

static inline void rt_event_commit(struct rt_event *ev)
{
	rt_event_commit_slot(ev);
}

/* Convenience emitters for the less frequent kinds. */
void rt_trace_marker(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void rt_trace_warning(uint32_t code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rt_trace_counter(const char *name, uint8_t port, uint64_t value);

#ifdef __cplusplus
}
#endif

#endif

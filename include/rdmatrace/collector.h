/*
 * The collector: drains a tracer shared-memory segment into a trace file.
 *
 * The traced program's tracer only writes into rings; whoever holds a
 * collector turns them into files.  Three users:
 *
 *   - the tracer itself, when RDMATRACE_OUTPUT names a file (a collector
 *     thread inside the traced process);
 *   - `rdmatrace record`, which creates a segment, starts the program with
 *     RDMATRACE_SHM=<name> in its environment and polls until it exits:
 *
 *         struct rt_collector *c;
 *         struct rt_collector_options o = {.output = "run/trace.rtr"};
 *         if (rt_collector_create(&c, &o, err, sizeof(err)) < 0) ...;
 *         setenv("RDMATRACE_SHM", rt_collector_shm_name(c), 1);
 *         ... fork/exec the program ...
 *         while (program runs) { rt_collector_poll(c); sleep 10 ms; }
 *         rt_collector_finish(c);
 *         rt_collector_destroy(c);   (unlinks the segment it created)
 *
 *   - `rdmatrace salvage`, which attaches to the segment of a program that
 *     died (rt_collector_attach with RT_COLLECT_SALVAGE) and writes out
 *     whatever its rings still hold.
 *
 * In stream mode poll() writes every committed record; in flight-recorder
 * mode poll() writes the rings only when a trigger fired (error completion,
 * fatal signal, rt_tracer_snapshot(), `rdmatrace snapshot PID`) and
 * finish() writes them a last time ("exit").
 */
#ifndef RDMATRACE_COLLECTOR_H
#define RDMATRACE_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rdmatrace/tracer.h"

struct rt_collector;

struct rt_collector_options {
	const char *shm_name;        /* NULL: "/rdmatrace-UID-PID-N" */
	const char *output;          /* trace file to write (created mode 0600) */
	enum rt_tracer_mode mode;
	size_t ring_bytes;           /* per-thread ring; 0 = 256 KiB */
	unsigned max_threads;        /* rings in the segment; 0 = 32 */
	bool no_error_trigger;       /* flight: do not snapshot on error completions */
};

enum rt_collect_flags {
	RT_COLLECT_SALVAGE = 1u << 0, /* the producers are dead: take the segment over */
	RT_COLLECT_FORCE = 1u << 1,   /* even if another live collector drains it */
};

struct rt_collector_stats {
	uint64_t events;             /* records written, producer LOST records included */
	uint64_t lost[5];            /* by enum rt_lost_cause, from every LOST record written */
	uint64_t snapshots;          /* flight-recorder snapshots written */
	uint64_t bytes;              /* file size so far */
	unsigned rings_active;       /* rings owned by a live thread at the last poll */
};

/* Create a new segment (mode 0600) and the collector draining it. */
int rt_collector_create(struct rt_collector **out, const struct rt_collector_options *o,
			char *errbuf, size_t errlen);

/* Attach to an existing segment (salvage, or a collector restarted). */
int rt_collector_attach(struct rt_collector **out, const char *shm_name, const char *output,
			unsigned flags, char *errbuf, size_t errlen);

/* The segment name to put in RDMATRACE_SHM for the traced program. */
const char *rt_collector_shm_name(const struct rt_collector *c);

/*
 * One round of work: drain (stream) or answer triggers (flight), re-sample
 * the clock once a second, and at once when the wall clock was set since the
 * last poll (a point on either side of the step).  Returns records written,
 * or -errno on a write error (the error is sticky).
 */
int rt_collector_poll(struct rt_collector *c);

/*
 * Tell the collector the wall clock was set (a timerfd armed with
 * TFD_TIMER_CANCEL_ON_SET reported ECANCELED): the next poll writes clock
 * points on both sides of the step, however small it was.  Steps of more
 * than rt_clock_wall_stepped() allows are noticed without it.  Poll right
 * after: the later point is the step's time as the reader takes it.
 */
void rt_collector_clock_set(struct rt_collector *c);

/* Write every ring's records now, whatever the mode; returns records written. */
int rt_collector_snapshot(struct rt_collector *c, const char *reason);

/* Salvage: when finishing, write how process pid ended (its wait status,
 * as waitpid() gives it) as that process's last record (RT_EV_PROCESS_END,
 * RT_END_WAIT).  For a parent that saw the process end, like `record`. */
void rt_collector_set_end(struct rt_collector *c, int32_t pid, int wait_status);
/* The same with the time the process exited (CLOCK_MONOTONIC ns, as the
 * kernel's process events give it): the record is stamped with that time
 * and says so (exact_time).  mono_ns 0: not known, as rt_collector_set_end(). */
void rt_collector_set_end_at(struct rt_collector *c, int32_t pid, int wait_status, uint64_t mono_ns);

/* Last drain or exit snapshot, lost-event accounting, close the file. Idempotent. */
int rt_collector_finish(struct rt_collector *c);

void rt_collector_get_stats(const struct rt_collector *c, struct rt_collector_stats *st);

/* Records still in the rings (not yet written). */
uint64_t rt_collector_pending(const struct rt_collector *c);

/* Remove the segment name now (the mapping stays valid until destroy). */
int rt_collector_unlink(struct rt_collector *c);

/* Unmap; unlinks the segment if this collector created it.  NULL is fine. */
void rt_collector_destroy(struct rt_collector *c);

/*
 * Find tracer segments in /dev/shm.  For each one calls fn(name, info, arg)
 * (stop when fn returns non-zero).  Returns segments seen or -errno.
 */
struct rt_segment_info {
	const char *name;            /* "/rdmatrace-..." */
	int32_t creator_pid;
	int32_t collector_pid;       /* 0 = none */
	int32_t pids[16];            /* registered producer processes (0 = none) */
	unsigned npids;
	bool producers_alive;
	bool collector_alive;
	uint32_t mode;
	uint64_t pending;            /* records not yet drained */
	char output[256];            /* file the collector writes */
};
int rt_collector_list_segments(int (*fn)(const struct rt_segment_info *info, void *arg), void *arg);

/* Name of the segment a process (pid) writes into; 0 or -ENOENT. */
int rt_collector_find_segment(int pid, char *name, size_t len);

/*
 * Ask whoever drains segment `shm_name` for a snapshot now (flight
 * recorder: write the rings; stream: flush) and wait up to timeout_ms for
 * it.  On success `output` (if given) receives the trace file written.
 * 0, -ETIMEDOUT, -ENOTCONN (nobody drains the segment), or another -errno.
 */
int rt_collector_request_snapshot(const char *shm_name, const char *reason, unsigned timeout_ms, char *output,
				  size_t outlen, char *errbuf, size_t errlen);

#endif

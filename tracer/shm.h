/*
 * The shared-memory segment the producers write into and a collector
 * drains (internal to the tracer; the public faces are tracer.h and
 * collector.h).  One segment per traced program (or per `rdmatrace record`
 * session) holds a header and a fixed array of rings:
 *
 *   [rt_shm_header 4 KiB][ring 0 header 256 B | slots][ring 1 ...] ...
 *
 * A ring belongs to one producer thread at a time.  Producers claim a FREE
 * ring by compare-and-swap on its state, so any number of processes, and any
 * number of copies of the tracer inside one process (each statically linked
 * into a different shared object), can share a segment without a lock.
 * Positions are free-running 64-bit counters: the producer owns `head`
 * (records committed), the collector owns `tail` (records consumed).
 */
#ifndef RDMATRACE_TRACER_SHM_H
#define RDMATRACE_TRACER_SHM_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "rdmatrace/clock.h"
#include "rdmatrace/event.h"

#define RT_SHM_MAGIC 0x314d485343525452ull /* "RTRCSHM1" */
#define RT_SHM_VERSION 1
#define RT_SHM_HEADER_SIZE 4096
#define RT_SHM_RING_HEADER_SIZE 256
#define RT_SHM_MAX_PROCS 16
#define RT_SHM_PREFIX "/rdmatrace-"
#define RT_LOST_CAUSES 5 /* enum rt_lost_cause values 1..4; index 0 unused */

enum rt_ring_state {
	RT_RING_FREE = 0,
	RT_RING_CLAIMING = 1, /* being set up by a producer; collectors skip it */
	RT_RING_OWNED = 2,
	RT_RING_RETIRED = 3,  /* owner thread or tracer gone; drain, then free */
};

struct rt_shm_proc {
	_Atomic int32_t pid;    /* 0 = free slot; claimed by CAS */
	uint32_t reserved;
	uint64_t start_time;    /* /proc/PID/stat starttime */
	char program[64];
};

struct rt_shm_ring {
	/* line 0: identity, written while CLAIMING (atomics: a collector may read them meanwhile) */
	_Atomic uint32_t state;         /* enum rt_ring_state */
	_Atomic uint32_t generation;    /* claims so far */
	_Atomic int32_t pid;
	_Atomic uint32_t tid;
	_Atomic uint64_t owner_cookie;  /* which tracer copy in that process */
	uint8_t pad0[40];
	/* line 1: producer */
	_Atomic uint64_t head;          /* records committed */
	_Atomic uint64_t lost[RT_LOST_CAUSES]; /* drops not yet reported by a LOST record */
	_Atomic uint32_t lost_first_seq; /* first sequence number of the unreported drops */
	uint8_t pad1[12];
	/* line 2: collector */
	_Atomic uint64_t tail;          /* records consumed */
	uint8_t pad2[56];
	uint8_t pad3[64];
};

struct rt_shm_header {
	uint64_t magic;
	uint32_t version;
	uint32_t header_size;
	uint32_t ring_count;
	uint32_t ring_slots;            /* records per ring, power of two */
	uint64_t ring_stride;           /* bytes per ring, header included */
	uint64_t total_size;
	uint32_t mode;                  /* enum rt_tracer_mode */
	uint32_t flags;
	struct rt_clock_calib calib;    /* source and calibration every producer uses */
	int32_t creator_pid;
	uint32_t reserved0;
	uint64_t creator_start_time;
	char host[64];
	char boot_id[40];
	_Atomic uint32_t ready;         /* 1 once the creator has filled the header */
	_Atomic int32_t collector_pid;  /* process draining the segment, 0 = none */
	_Atomic uint64_t trigger_seq;   /* bumped to ask for a flight-recorder snapshot */
	_Atomic uint64_t snapshot_done; /* trigger_seq value the last snapshot answered */
	_Atomic uint64_t lost_no_ring;  /* events dropped because no ring was free */
	_Atomic uint32_t trigger_on_error; /* producers raise a trigger on error completions */
	_Atomic uint32_t copies;        /* per-process segment: tracer copies started and not stopped */
	_Atomic uint32_t finish_request; /* the last copy to stop asks the collector thread to finish */
	_Atomic uint32_t finished;      /* ... and it has */
	char trigger_reason[64];        /* best effort: reason of the latest trigger */
	char output[256];               /* trace file the collector writes, for `snapshot` */
	struct rt_shm_proc procs[RT_SHM_MAX_PROCS];
};

_Static_assert(sizeof(struct rt_shm_ring) == RT_SHM_RING_HEADER_SIZE, "ring header size");
_Static_assert(sizeof(struct rt_shm_header) <= RT_SHM_HEADER_SIZE, "segment header size");

struct rt_shm_map {
	struct rt_shm_header *hdr;
	size_t size;
	char name[128];                 /* shm_open name, with the leading '/' */
};

static inline struct rt_shm_ring *rt_shm_ring_at(struct rt_shm_header *h, uint32_t i)
{
	return (struct rt_shm_ring *)((char *)h + RT_SHM_HEADER_SIZE + (size_t)i * h->ring_stride);
}

static inline struct rt_event *rt_shm_slots(struct rt_shm_ring *r)
{
	return (struct rt_event *)((char *)r + RT_SHM_RING_HEADER_SIZE);
}

/* "foo", "/foo" or "/dev/shm/foo" -> "/foo"; -EINVAL if it cannot be a segment name. */
int rt_shm_normalize_name(const char *in, char *out, size_t len);

/*
 * Create a segment (O_EXCL, mode 0600) with ring_count rings of ring_bytes
 * each (rounded up to a power of two number of records) and fill its header.
 * Returns 0, -EEXIST, or another -errno.
 */
int rt_shm_create(struct rt_shm_map *m, const char *name, uint32_t mode, size_t ring_bytes,
		  unsigned ring_count, uint32_t clock_source, char *errbuf, size_t errlen);

/*
 * Map an existing segment after validating it.  With `wait`, gives a creator
 * that is still filling it in up to 1 s.
 */
int rt_shm_attach(struct rt_shm_map *m, const char *name, int wait, char *errbuf, size_t errlen);

/* Unmap (never unlinks). */
void rt_shm_detach(struct rt_shm_map *m);

/* Register a process in the segment's process table; returns its slot or -ENOSPC. */
int rt_shm_register_proc(struct rt_shm_header *h, int32_t pid, uint64_t start_time, const char *program);

/* Is any process registered in the segment, other than the collector, still alive? */
int rt_shm_producers_alive(struct rt_shm_header *h);

#endif

/*
 * Ask the collector for a snapshot (flight recorder) or an immediate drain
 * (stream).  Async-signal-safe: atomics only.  Returns the trigger number to
 * wait for.
 */
uint64_t rt_shm_trigger(struct rt_shm_header *h, const char *reason);

/*
 * Wait until the collector has answered trigger `seq`, at most timeout_ms.
 * Async-signal-safe (nanosleep, kill).  0, -ETIMEDOUT, or -ENOTCONN when no
 * live collector drains the segment.
 */
int rt_shm_wait_snapshot(struct rt_shm_header *h, uint64_t seq, unsigned timeout_ms);

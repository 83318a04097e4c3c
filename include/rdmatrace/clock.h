/*
 * The tracer's time base.  Events are stamped with raw "ticks" because that
 * is the cheapest thing to read on the hot path: the invariant TSC when the
 * CPU has one (a few nanoseconds, no system call), else CLOCK_MONOTONIC in
 * nanoseconds.  A calibration (pairs of ticks, CLOCK_MONOTONIC and
 * CLOCK_REALTIME sampled together) goes into every trace file header and is
 * re-sampled as RT_EV_CLOCK_SYNC records, so the reader can convert ticks to
 * nanoseconds piecewise and follow drift.
 */
#ifndef RDMATRACE_CLOCK_H
#define RDMATRACE_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define RT_CLOCK_HAVE_TSC 1
#else
#define RT_CLOCK_HAVE_TSC 0
#endif

enum rt_clock_source {
	RT_CLOCK_MONOTONIC = 1, /* ticks are CLOCK_MONOTONIC nanoseconds */
	RT_CLOCK_TSC = 2,       /* ticks are invariant TSC cycles */
};

/* One simultaneous sample of the three clocks. */
struct rt_clock_point {
	uint64_t ticks;
	uint64_t mono_ns;
	uint64_t real_ns;
};

/*
 * How ticks map to time: a base point plus a rate measured over
 * rate_ns nanoseconds during which rate_ticks ticks elapsed.
 */
struct rt_clock_calib {
	uint32_t source;        /* enum rt_clock_source */
	uint32_t reserved;
	struct rt_clock_point base;
	uint64_t rate_ticks;
	uint64_t rate_ns;
};

static inline uint64_t rt_clock_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Raw ticks of the given source; the hot path reads it inline. */
static inline uint64_t rt_clock_ticks(uint32_t source)
{
#if RT_CLOCK_HAVE_TSC
	if (source == RT_CLOCK_TSC)
		return __rdtsc();
#endif
	(void)source;
	return rt_clock_mono_ns();
}

/* Does this CPU have an invariant (constant rate, never stopping) TSC? */
int rt_clock_tsc_invariant(void);

/*
 * The source this process should use: RDMATRACE_CLOCK=tsc|monotonic if set,
 * else the TSC when invariant, else CLOCK_MONOTONIC.
 */
uint32_t rt_clock_default_source(void);

/* Sample ticks, CLOCK_MONOTONIC and CLOCK_REALTIME as close together as possible. */
void rt_clock_sample(uint32_t source, struct rt_clock_point *p);

/*
 * Calibrate: two samples about `spin_ns` apart (CLOCK_MONOTONIC needs none).
 * Returns 0 or -errno.
 */
int rt_clock_calibrate(uint32_t source, uint64_t spin_ns, struct rt_clock_calib *c);

/* Convert ticks to CLOCK_MONOTONIC ns with one calibration (linear). */
uint64_t rt_clock_ticks_to_mono(const struct rt_clock_calib *c, uint64_t ticks);
/* The inverse: the ticks of a CLOCK_MONOTONIC time (for a monotonic source, the time itself). */
uint64_t rt_clock_mono_to_ticks(const struct rt_clock_calib *c, uint64_t mono_ns);

/*
 * Linear map through two points: the value at `ticks` on the line through
 * (t0, v0) and (t1, v1); t1 == t0 degenerates to v0 + (ticks - t0).
 * Extrapolates outside [t0, t1].  Works in 128-bit arithmetic.
 */
uint64_t rt_clock_interpolate(uint64_t t0, uint64_t v0, uint64_t t1, uint64_t v1, uint64_t ticks);

/*
 * Whether the wall clock was set (stepped) between two points
 * `mono_span_ns` of CLOCK_MONOTONIC apart whose wall-clock offsets
 * (CLOCK_REALTIME - CLOCK_MONOTONIC) differ by `offset_change_ns`: more
 * change than slewing makes (NTP slews at most 500 ppm, chrony up to 83,333
 * ppm; this takes 1/8 of the span) plus 200 us for the samples' own error.
 * A slewed offset moves evenly between the points; a stepped one jumps.
 */
bool rt_clock_wall_stepped(int64_t offset_change_ns, uint64_t mono_span_ns);

#endif

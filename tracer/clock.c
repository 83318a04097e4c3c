/*
 * Tick source selection and calibration (see include/rdmatrace/clock.h).
 * Nothing here is on the event hot path; rt_clock_ticks() is inline.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rdmatrace/clock.h"

#if RT_CLOCK_HAVE_TSC
#include <cpuid.h>
#endif

int rt_clock_tsc_invariant(void)
{
#if RT_CLOCK_HAVE_TSC
	unsigned a, b, c, d;
	if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
		return 0;
	if (!__get_cpuid(0x80000007u, &a, &b, &c, &d))
		return 0;
	return (d >> 8) & 1; /* "TscInvariant" */
#else
	return 0;
#endif
}

uint32_t rt_clock_default_source(void)
{
	const char *env = getenv("RDMATRACE_CLOCK");
	if (env && strcasecmp(env, "monotonic") == 0)
		return RT_CLOCK_MONOTONIC;
	if (env && strcasecmp(env, "tsc") == 0 && RT_CLOCK_HAVE_TSC)
		return RT_CLOCK_TSC;
	return rt_clock_tsc_invariant() ? RT_CLOCK_TSC : RT_CLOCK_MONOTONIC;
}

static uint64_t ts_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void rt_clock_sample(uint32_t source, struct rt_clock_point *p)
{
	/*
	 * Bracket the tick read by two CLOCK_MONOTONIC reads, and the
	 * CLOCK_REALTIME read by the second and a third, and keep the tightest
	 * of a few tries, so a preemption between the reads skews neither the
	 * pair nor the wall-clock offset (a skewed offset would read as the
	 * wall clock set: rt_clock_wall_stepped).
	 */
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < 5; i++) {
		uint64_t m0 = ts_ns(CLOCK_MONOTONIC);
		uint64_t t = rt_clock_ticks(source);
		uint64_t m1 = ts_ns(CLOCK_MONOTONIC);
		uint64_t r = ts_ns(CLOCK_REALTIME);
		uint64_t m2 = ts_ns(CLOCK_MONOTONIC);
		if (m2 - m0 < best) {
			best = m2 - m0;
			p->ticks = t;
			p->mono_ns = m0 + (m1 - m0) / 2;
			/* realtime read between m1 and m2: shift it back to the tick instant */
			p->real_ns = r - ((m1 + (m2 - m1) / 2) - p->mono_ns);
		}
	}
	if (source == RT_CLOCK_MONOTONIC)
		p->mono_ns = p->ticks;
}

int rt_clock_calibrate(uint32_t source, uint64_t spin_ns, struct rt_clock_calib *c)
{
	if (source != RT_CLOCK_TSC && source != RT_CLOCK_MONOTONIC)
		return -EINVAL;
	if (source == RT_CLOCK_TSC && !RT_CLOCK_HAVE_TSC)
		return -ENOTSUP;
	memset(c, 0, sizeof(*c));
	c->source = source;
	rt_clock_sample(source, &c->base);
	if (source == RT_CLOCK_MONOTONIC) {
		c->rate_ticks = c->rate_ns = 1;
		return 0;
	}
	struct rt_clock_point end;
	uint64_t until = c->base.mono_ns + (spin_ns ? spin_ns : 1);
	while (ts_ns(CLOCK_MONOTONIC) < until)
		;
	rt_clock_sample(source, &end);
	if (end.ticks <= c->base.ticks || end.mono_ns <= c->base.mono_ns)
		return -EIO;
	c->rate_ticks = end.ticks - c->base.ticks;
	c->rate_ns = end.mono_ns - c->base.mono_ns;
	return 0;
}

uint64_t rt_clock_interpolate(uint64_t t0, uint64_t v0, uint64_t t1, uint64_t v1, uint64_t ticks)
{
	if (t1 <= t0 || v1 < v0) /* no usable slope: 1 tick = 1 unit */
		return ticks >= t0 ? v0 + (ticks - t0) : v0 - (t0 - ticks);
	/* |dt| * dv < 2^128: exact in unsigned 128-bit; saturate the result. */
	bool before = ticks < t0;
	unsigned __int128 dt = before ? t0 - ticks : ticks - t0;
	unsigned __int128 q = dt * (unsigned __int128)(v1 - v0) / (unsigned __int128)(t1 - t0);
	if (before)
		return q >= v0 ? 0 : v0 - (uint64_t)q;
	if (q > UINT64_MAX - v0)
		return UINT64_MAX;
	return v0 + (uint64_t)q;
}

uint64_t rt_clock_mono_to_ticks(const struct rt_clock_calib *c, uint64_t mono_ns)
{
	if (c->source != RT_CLOCK_TSC)
		return mono_ns;
	return rt_clock_interpolate(c->base.mono_ns, c->base.ticks, c->base.mono_ns + c->rate_ns,
				    c->base.ticks + c->rate_ticks, mono_ns);
}

uint64_t rt_clock_ticks_to_mono(const struct rt_clock_calib *c, uint64_t ticks)
{
	if (c->rate_ticks == 0 || c->rate_ns == 0)
		return c->base.mono_ns + (ticks - c->base.ticks);
	return rt_clock_interpolate(c->base.ticks, c->base.mono_ns, c->base.ticks + c->rate_ticks,
				    c->base.mono_ns + c->rate_ns, ticks);
}

bool rt_clock_wall_stepped(int64_t offset_change_ns, uint64_t mono_span_ns)
{
	uint64_t change = offset_change_ns < 0 ? 0 - (uint64_t)offset_change_ns : (uint64_t)offset_change_ns;
	uint64_t slew = mono_span_ns / 8 + 200000;
	return change > slew;
}

/* The tick source, its calibration and the linear maps the reader builds on. */
#include <stdlib.h>
#include <time.h>

#include "rdmatrace/clock.h"
#include "testlib.h"

static void test_source_choice(void)
{
	setenv("RDMATRACE_CLOCK", "monotonic", 1);
	CHECK_EQ_U(rt_clock_default_source(), RT_CLOCK_MONOTONIC);
	unsetenv("RDMATRACE_CLOCK");
	if (rt_clock_tsc_invariant())
		CHECK_EQ_U(rt_clock_default_source(), RT_CLOCK_TSC);
	else
		CHECK_EQ_U(rt_clock_default_source(), RT_CLOCK_MONOTONIC);
}

static void check_source(uint32_t source)
{
	struct rt_clock_calib c;
	CHECK_EQ_U(rt_clock_calibrate(source, 3000000, &c), 0);
	CHECK(c.rate_ticks > 0 && c.rate_ns > 0);
	double ghz = (double)c.rate_ticks / (double)c.rate_ns;
	if (source == RT_CLOCK_TSC)
		CHECK(ghz > 0.3 && ghz < 10);
	else
		CHECK(ghz == 1.0);
	/* Real time and monotonic time of the base point agree with the system now. */
	struct timespec r;
	clock_gettime(CLOCK_REALTIME, &r);
	uint64_t real_now = (uint64_t)r.tv_sec * 1000000000u + (uint64_t)r.tv_nsec;
	CHECK(real_now >= c.base.real_ns && real_now - c.base.real_ns < 1000000000ull);
	/* Over 30 ms, converted ticks track CLOCK_MONOTONIC within 3 % (a loaded machine may preempt between the paired reads). */
	uint64_t t0 = rt_clock_ticks(source), m0 = rt_clock_mono_ns();
	nanosleep(&(struct timespec){0, 30000000}, NULL);
	uint64_t t1 = rt_clock_ticks(source), m1 = rt_clock_mono_ns();
	double conv = (double)(rt_clock_ticks_to_mono(&c, t1) - rt_clock_ticks_to_mono(&c, t0));
	double real = (double)(m1 - m0);
	if (conv < real * 0.97 || conv > real * 1.03)
		printf("#   converted %.0f ns, measured %.0f ns\n", conv, real);
	CHECK(conv > real * 0.97 && conv < real * 1.03);
	/* Sub-100 ns resolution: consecutive reads differ by less than 100 ns of time. */
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < 100; i++) {
		uint64_t a = rt_clock_ticks(source), b = rt_clock_ticks(source);
		uint64_t d = rt_clock_ticks_to_mono(&c, b) - rt_clock_ticks_to_mono(&c, a);
		if (d < best)
			best = d;
	}
	CHECK(best < 100);
}

static void test_tsc(void)
{
	if (!rt_clock_tsc_invariant())
		SKIP("no invariant TSC");
	check_source(RT_CLOCK_TSC);
}

static void test_monotonic(void)
{
	check_source(RT_CLOCK_MONOTONIC);
}

static void test_interpolate(void)
{
	CHECK_EQ_U(rt_clock_interpolate(100, 1000, 200, 2000, 150), 1500);
	CHECK_EQ_U(rt_clock_interpolate(100, 1000, 200, 2000, 50), 500);     /* before: extrapolated back */
	CHECK_EQ_U(rt_clock_interpolate(100, 1000, 200, 2000, 300), 3000);   /* after: extrapolated on */
	CHECK_EQ_U(rt_clock_interpolate(100, 1000, 100, 5000, 150), 1050);   /* no slope: 1 tick = 1 ns */
	CHECK_EQ_U(rt_clock_interpolate(100, 1000, 200, 2000, 0), 0);        /* clamps at 0 */
	CHECK_EQ_U(rt_clock_interpolate(0, 0, 1, UINT64_MAX, 2), UINT64_MAX); /* saturates */
	CHECK_EQ_U(rt_clock_interpolate(0, 10, 3, 13, UINT64_MAX), UINT64_MAX);
}

/* Slewing (NTP 500 ppm, chrony up to 83,333 ppm) against the clock set. */
static void test_wall_stepped(void)
{
	CHECK(!rt_clock_wall_stepped(500000, 1000000000));        /* 500 ppm over a second */
	CHECK(!rt_clock_wall_stepped(-83333000, 1000000000));     /* chrony's fastest slew */
	CHECK(!rt_clock_wall_stepped(150000, 1000000));           /* sampling error, 1 ms apart */
	CHECK(rt_clock_wall_stepped(2000000000, 1000000000));     /* 2 s forward within a second */
	CHECK(rt_clock_wall_stepped(-2000000, 10000000));         /* 2 ms back within 10 ms */
	CHECK(rt_clock_wall_stepped(INT64_MIN, UINT64_MAX / 2));  /* no overflow */
	CHECK(!rt_clock_wall_stepped(0, 0));
}

int main(void)
{
	RUN(test_source_choice);
	RUN(test_tsc);
	RUN(test_monotonic);
	RUN(test_interpolate);
	RUN(test_wall_stepped);
	return test_done();
}

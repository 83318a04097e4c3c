/*
 * Clock alignment from causal order.  Every link that crosses clocks gives
 * a constraint "event X happened before event Y": a WR is posted before its
 * first packet is captured, a packet is captured before the completion it
 * leads to, an engine sends a packet before the capture sees it, and so on.
 * With o the offset added to a host's raw time, that is
 * o[x] - o[y] <= raw_y - raw_x.
 *
 * First the constant-offset model: with the reference clock's offset fixed
 * at 0, shortest paths (Floyd-Warshall over the few hosts) give for every
 * host the interval [lo, hi] its offset must lie in; the estimate moves the
 * host's wall clock only as far as that requires (0 when the interval holds
 * it, else the middle), the uncertainty is the farthest the true offset can
 * be from it.
 *
 * When a host's constraints with the reference contradict each other under
 * a constant offset (its clock runs at another rate: virtual machines,
 * long runs), the model becomes aligned = raw + o + r * (raw - T).  For a
 * given rate r the feasible offsets form an interval whose width is a
 * concave function of r (a minimum of lines minus a maximum of lines), so a
 * ternary search finds the rate with the widest interval; the offset is
 * that interval's middle.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tl_internal.h"

#define INF INT64_MAX
#define TL_RATE_MAX 0.25 /* clocks are not off by more than 25 % */
/* Constraints that contradict each other by this little are within the
 * clocks' own precision (a capture's microsecond timestamps, a trace's
 * conversion of ticks to nanoseconds, calibrated over 20 ms and resampled
 * every second): the host is aligned, with that much uncertainty, not
 * inconsistent. */
#define TL_CLOCK_SLACK_NS 5000
/* Offsets and constraints are kept within +-TL_OFFSET_LIM (tl_internal.h). */
#define LIM TL_OFFSET_LIM

static int64_t clamp_lim(int64_t v)
{
	return v > LIM ? LIM : v < -LIM ? -LIM : v;
}

/* A double in +-LIM as an integer (NaN: 0). */
static int64_t lim_of_double(double v)
{
	return v != v ? 0 : v >= (double)LIM ? LIM : v <= -(double)LIM ? -LIM : (int64_t)v;
}

void tl_clock_add(struct tl_build *b, uint16_t x, uint16_t y, uint64_t raw_x, uint64_t raw_y)
{
	if (x == y || x == UINT16_MAX || y == UINT16_MAX)
		return;
	struct tl_cons *k = tl_vec_push(&b->cons);
	if (!k)
		return; /* a constraint less only widens the interval */
	k->x = x;
	k->y = y;
	/* o[x] - o[y] <= raw_y - raw_x, without overflow */
	uint64_t d = raw_y >= raw_x ? raw_y - raw_x : raw_x - raw_y;
	int64_t m = d > (uint64_t)LIM ? LIM : (int64_t)d;
	k->c = raw_y >= raw_x ? m : -m;
	k->t = raw_y; /* raw time of the y event */
}

static int solve(struct tl_build *b, size_t ref, int64_t *lo, int64_t *hi, uint64_t *used, bool *inconsistent)
{
	size_t n = b->hosts.n;
	int64_t *d = malloc(n * n * sizeof(int64_t));
	if (!d)
		return -ENOMEM;
	for (size_t i = 0; i < n * n; i++)
		d[i] = INF;
	for (size_t i = 0; i < n; i++) {
		d[i * n + i] = 0;
		used[i] = 0;
	}
	/* edge y -> x with weight c for o[x] - o[y] <= c */
	for (size_t i = 0; i < b->cons.n; i++) {
		struct tl_cons *k = TL_AT(&b->cons, struct tl_cons, i);
		if (k->c < d[k->y * n + k->x])
			d[k->y * n + k->x] = k->c;
		used[k->x]++;
		used[k->y]++;
	}
	for (size_t m = 0; m < n; m++)
		for (size_t i = 0; i < n; i++) {
			if (d[i * n + m] == INF)
				continue;
			for (size_t j = 0; j < n; j++) {
				if (d[m * n + j] == INF)
					continue;
				int64_t v = clamp_lim(d[i * n + m] + d[m * n + j]);
				if (v < d[i * n + j])
					d[i * n + j] = v;
			}
		}
	for (size_t i = 0; i < n; i++)
		inconsistent[i] = d[i * n + i] < -TL_CLOCK_SLACK_NS;
	for (size_t h = 0; h < n; h++) {
		hi[h] = d[ref * n + h];                                       /* o[h] <= d(ref -> h) */
		lo[h] = d[h * n + ref] == INF ? INT64_MIN : -d[h * n + ref]; /* o[h] >= -d(h -> ref) */
		if (d[ref * n + h] != INF && d[h * n + ref] != INF && d[ref * n + h] + d[h * n + ref] < -TL_CLOCK_SLACK_NS)
			inconsistent[h] = true;
	}
	free(d);
	return 0;
}

/* The offset used for a host whose offset lies in [lo, hi]: its wall clock
 * is moved only as far as causal order requires (0 when the interval holds
 * it: a host aligned by a few CM messages seconds apart keeps its clock,
 * instead of moving by half the gap); when the wall clock is outside a
 * bounded interval, its middle, which errs least. */
static int64_t offset_in(int64_t lo, int64_t hi)
{
	if (lo <= 0 && hi >= 0)
		return 0; /* the wall clock agrees with every causal constraint */
	if (lo == INT64_MIN)
		return hi;
	if (hi == INF)
		return lo;
	return lo + (hi - lo) / 2;
}

/* Interval of o for host h at rate r against the reference (direct constraints only). */
struct rate_fit {
	double lo, hi;
	bool have_lo, have_hi;
};

static struct rate_fit fit_at(struct tl_build *b, uint16_t h, uint16_t ref, double r, double T)
{
	struct rate_fit f = {0, 0, false, false};
	for (size_t i = 0; i < b->cons.n; i++) {
		struct tl_cons *k = TL_AT(&b->cons, struct tl_cons, i);
		if (k->x == h && k->y == ref) {
			/* raw_x + o + r (raw_x - T) <= raw_y :  o <= c - r (raw_x - T) */
			double tx = (double)k->t - (double)k->c;
			double v = (double)k->c - r * (tx - T);
			if (!f.have_hi || v < f.hi)
				f.hi = v;
			f.have_hi = true;
		} else if (k->x == ref && k->y == h) {
			/* raw_x <= raw_y + o + r (raw_y - T) :  o >= -c - r (raw_y - T) */
			double v = -(double)k->c - r * ((double)k->t - T);
			if (!f.have_lo || v > f.lo)
				f.lo = v;
			f.have_lo = true;
		}
	}
	return f;
}

/* Fit a rate for host h; 1 when a consistent (offset, rate) was found. */
static int fit_rate(struct tl_build *b, uint16_t h, uint16_t ref, struct rt_tl_host *H)
{
	double T = 0;
	size_t n = 0;
	for (size_t i = 0; i < b->cons.n; i++) {
		struct tl_cons *k = TL_AT(&b->cons, struct tl_cons, i);
		if ((k->x == h && k->y == ref) || (k->x == ref && k->y == h)) {
			double th = k->x == h ? (double)k->t - (double)k->c : (double)k->t;
			T += (th - T) / (double)++n;
		}
	}
	struct rate_fit f0 = fit_at(b, h, ref, 0, T);
	if (!n || !f0.have_lo || !f0.have_hi)
		return 0;
	double a = -TL_RATE_MAX, z = TL_RATE_MAX;
	for (int it = 0; it < 100; it++) {
		double m1 = a + (z - a) / 3, m2 = z - (z - a) / 3;
		struct rate_fit f1 = fit_at(b, h, ref, m1, T), f2 = fit_at(b, h, ref, m2, T);
		if (f1.hi - f1.lo < f2.hi - f2.lo)
			a = m1;
		else
			z = m2;
	}
	double r = (a + z) / 2;
	struct rate_fit f = fit_at(b, h, ref, r, T);
	if (f.hi < f.lo)
		return 0;
	H->offset_lo_ns = lim_of_double(f.lo);
	H->offset_hi_ns = lim_of_double(f.hi);
	H->offset_ns = lim_of_double((f.lo + f.hi) / 2);
	H->uncertainty_ns = (uint64_t)lim_of_double(f.hi > f.lo ? (f.hi - f.lo) / 2 : 0);
	H->drift_ppb = lim_of_double(r * 1e9);
	H->drift_origin_ns = T > 0 ? (uint64_t)lim_of_double(T) : 0;
	H->flags &= ~(uint32_t)RT_TLH_INCONSISTENT;
	H->flags |= RT_TLH_ALIGNED | RT_TLH_DRIFT;
	return 1;
}

int tl_clock_align(struct tl_build *b)
{
	size_t n = b->hosts.n;
	if (!n)
		return 0;
	size_t ref = 0;
	for (size_t i = 0; i < n; i++)
		if (tl_host(b, i)->flags & RT_TLH_REFERENCE) {
			ref = i;
			break;
		}
	int64_t *lo = malloc(n * sizeof(int64_t) * 2);
	uint64_t *used = malloc(n * sizeof(uint64_t));
	bool *inc = calloc(n, sizeof(bool));
	if (!lo || !used || !inc) {
		free(lo);
		free(used);
		free(inc);
		return -ENOMEM;
	}
	int64_t *hi = lo + n;
	int rc = solve(b, ref, lo, hi, used, inc);
	for (size_t h = 0; !rc && h < n; h++) {
		struct rt_tl_host *H = tl_host(b, h);
		H->constraints = used[h];
		if (h == ref) {
			H->offset_ns = 0;
			H->offset_lo_ns = H->offset_hi_ns = 0;
			H->uncertainty_ns = 0;
			H->flags |= RT_TLH_ALIGNED;
			continue;
		}
		H->offset_lo_ns = lo[h];
		H->offset_hi_ns = hi[h] == INF ? INT64_MAX : hi[h];
		if (lo[h] != INT64_MIN && hi[h] != INF) {
			if (lo[h] > hi[h] || inc[h]) {
				/* contradicting constraints under a constant offset: the middle of the two
				 * (within the clocks' precision, TL_CLOCK_SLACK_NS, still aligned) */
				H->flags |= inc[h] ? RT_TLH_INCONSISTENT : RT_TLH_ALIGNED;
				H->uncertainty_ns = (uint64_t)(lo[h] > hi[h] ? lo[h] - hi[h] : hi[h] - lo[h]) / 2;
				H->offset_ns = hi[h] + (lo[h] - hi[h]) / 2;
			} else {
				H->flags |= RT_TLH_ALIGNED;
				H->offset_ns = offset_in(lo[h], hi[h]);
				/* the farthest the true offset can be from the one used */
				int64_t below = H->offset_ns - lo[h], above = hi[h] - H->offset_ns;
				H->uncertainty_ns = (uint64_t)(below > above ? below : above);
			}
		} else {
			H->uncertainty_ns = UINT64_MAX;
			H->offset_ns = offset_in(lo[h], hi[h]);
		}
		if (H->flags & RT_TLH_INCONSISTENT)
			fit_rate(b, (uint16_t)h, (uint16_t)ref, H);
	}
	free(lo);
	free(used);
	free(inc);
	return rc;
}

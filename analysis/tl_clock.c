/*
 * Clock alignment from causal order.  Every link that crosses clocks gives
 * a constraint o[x] - o[y] <= c (o: the offset added to a host's raw time):
 * a WR is posted before its first packet is captured, a packet is captured
 * before the completion it leads to, an engine sends a packet before the
 * capture sees it, and so on.  With the reference host's offset fixed at 0
 * the tightest constraints form a difference-constraint system; shortest
 * paths (Floyd-Warshall over the few hosts) give for every host the
 * interval [lo, hi] its true offset must lie in.  The estimate is the
 * interval's middle, the uncertainty its half width.  Runs long enough to
 * show drift are solved separately for their first and second half and the
 * offset interpolated between the two.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tl_internal.h"

#define INF INT64_MAX
#define TL_DRIFT_MIN_SPAN_NS 10000000000ull /* 10 s */

void tl_clock_add(struct tl_build *b, uint16_t x, uint16_t y, int64_t c, uint64_t t)
{
	if (x == y || x == UINT16_MAX || y == UINT16_MAX)
		return;
	struct tl_cons *k = tl_vec_push(&b->cons);
	if (!k)
		return; /* a constraint less only widens the interval */
	k->x = x;
	k->y = y;
	k->c = c;
	k->t = t;
}

/* Solve with the constraints whose time lies in [t0, t1); lo/hi per host. */
static int solve(struct tl_build *b, size_t ref, uint64_t t0, uint64_t t1, int64_t *lo, int64_t *hi,
		 uint64_t *used, bool *inconsistent)
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
		if (k->t < t0 || k->t >= t1)
			continue;
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
				int64_t v = d[i * n + m] + d[m * n + j];
				if (v < d[i * n + j])
					d[i * n + j] = v;
			}
		}
	*inconsistent = false;
	for (size_t i = 0; i < n; i++)
		if (d[i * n + i] < 0)
			*inconsistent = true;
	for (size_t h = 0; h < n; h++) {
		hi[h] = d[ref * n + h];                              /* o[h] <= d(ref -> h) */
		lo[h] = d[h * n + ref] == INF ? INT64_MIN : -d[h * n + ref]; /* o[h] >= -d(h -> ref) */
	}
	free(d);
	return 0;
}

static int64_t mid(int64_t lo, int64_t hi)
{
	if (lo == INT64_MIN && hi == INF)
		return 0; /* no information: trust the wall clock */
	if (lo == INT64_MIN)
		return hi < 0 ? hi : 0;
	if (hi == INF)
		return lo > 0 ? lo : 0;
	return lo + (hi - lo) / 2;
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
	int64_t *lo = malloc(n * sizeof(int64_t) * 6);
	uint64_t *used = malloc(n * sizeof(uint64_t));
	if (!lo || !used) {
		free(lo);
		free(used);
		return -ENOMEM;
	}
	int64_t *hi = lo + n, *lo1 = lo + 2 * n, *hi1 = lo + 3 * n, *lo2 = lo + 4 * n, *hi2 = lo + 5 * n;
	bool inc = false, inc1 = false, inc2 = false;
	int rc = solve(b, ref, 0, UINT64_MAX, lo, hi, used, &inc);
	/* drift: two halves of a long run */
	uint64_t tmin = UINT64_MAX, tmax = 0;
	for (size_t i = 0; i < b->cons.n; i++) {
		uint64_t t = TL_AT(&b->cons, struct tl_cons, i)->t;
		tmin = t < tmin ? t : tmin;
		tmax = t > tmax ? t : tmax;
	}
	bool drift = false;
	uint64_t split = tmin + (tmax - tmin) / 2;
	if (!rc && b->cons.n && tmax - tmin >= TL_DRIFT_MIN_SPAN_NS) {
		uint64_t *u2 = malloc(n * sizeof(uint64_t));
		if (u2 && !solve(b, ref, 0, split, lo1, hi1, u2, &inc1) &&
		    !solve(b, ref, split, UINT64_MAX, lo2, hi2, u2, &inc2))
			drift = true;
		free(u2);
	}
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
			if (lo[h] > hi[h]) {
				/* contradicting constraints (drift, a wrong link): the middle of the two */
				H->flags |= RT_TLH_INCONSISTENT;
				H->uncertainty_ns = (uint64_t)(lo[h] - hi[h]) / 2;
				H->offset_ns = hi[h] + (lo[h] - hi[h]) / 2;
			} else {
				H->flags |= RT_TLH_ALIGNED;
				H->uncertainty_ns = (uint64_t)(hi[h] - lo[h]) / 2;
				H->offset_ns = mid(lo[h], hi[h]);
			}
		} else {
			H->uncertainty_ns = UINT64_MAX;
			H->offset_ns = mid(lo[h], hi[h]);
		}
		if (inc)
			H->flags |= RT_TLH_INCONSISTENT;
		if (drift && !inc1 && !inc2 && lo1[h] != INT64_MIN && hi1[h] != INF && lo2[h] != INT64_MIN &&
		    hi2[h] != INF && lo1[h] <= hi1[h] && lo2[h] <= hi2[h]) {
			int64_t m1 = mid(lo1[h], hi1[h]), m2 = mid(lo2[h], hi2[h]);
			uint64_t t1 = tmin + (split - tmin) / 2, t2 = split + (tmax - split) / 2;
			int64_t w = (int64_t)((hi1[h] - lo1[h]) / 2 + (hi2[h] - lo2[h]) / 2);
			/* only when the change exceeds what the intervals allow */
			if (t2 > t1 && (m2 - m1 > w || m1 - m2 > w)) {
				H->drift_ppb = (int64_t)((double)(m2 - m1) * 1e9 / (double)(t2 - t1));
				H->drift_origin_ns = t1 - (uint64_t)m1; /* raw time of the first half's middle */
				H->offset_ns = m1;
				H->flags |= RT_TLH_DRIFT;
			}
		}
	}
	free(lo);
	free(used);
	return rc;
}

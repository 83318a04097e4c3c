/*
 * Hot-path cost of the tracer, measured the way a producer uses it: one
 * rt_event_begin + fill of a WR-post payload + rt_event_commit per event.
 *
 *   tracer-bench hot THREADS EVENTS REPS   ns/event, tracing on (flight recorder: no drops, no I/O)
 *   tracer-bench off EVENTS REPS           ns/event, tracing off (the one-branch cost)
 *   tracer-bench file SECONDS              flat out for SECONDS: events/s and MB/s the collector writes
 *   tracer-bench bare EVENTS REPS          the floor: a ring write with a TSC timestamp, no tracer
 *   tracer-bench loop EVENTS REPS          the empty loop "off" runs in (to subtract)
 *   tracer-bench lttng THREADS EVENTS REPS the same payload through an LTTng-UST tracepoint
 *
 * Each REP prints one "ns/event" figure; the script takes the median.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rdmatrace/collector.h"
#include "rdmatrace/trace_reader.h"
#include "rdmatrace/tracer.h"

#ifdef HAVE_LTTNG
#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#include "tracer_bench_tp.h"
#endif

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static unsigned long n_events;
static int use_lttng;
static pthread_barrier_t barrier;

/* The producer a verbs probe would be: a work request with its usual fields. */
static inline __attribute__((always_inline)) void emit_one(uint64_t i)
{
#ifdef HAVE_LTTNG
	if (use_lttng) {
		lttng_ust_tracepoint(rdmatrace_bench, wr_post, 0x11, i, 0x7f1000000000ull, 4096, 0x2012, (uint32_t)i,
				     (uint32_t)i + 3, 0, 1, 0x42);
		return;
	}
#endif
	struct rt_event *ev = rt_event_begin(RT_EV_WR_POST, 0x11);
	if (ev) {
		ev->u.wr.wr_id = i;
		ev->u.wr.remote_addr = 0x7f1000000000ull;
		ev->u.wr.length = 4096;
		ev->u.wr.rkey = 0x2012;
		ev->u.wr.first_psn = (uint32_t)i;
		ev->u.wr.last_psn = (uint32_t)i + 3;
		ev->u.wr.num_sge = 1;
		ev->u.wr.flags = 0x42;
		rt_event_commit(ev);
	}
}

static void *producer(void *arg)
{
	uint64_t *ns = arg;
	emit_one(0); /* attach the ring outside the timed loop */
	pthread_barrier_wait(&barrier);
	uint64_t t0 = now_ns();
	for (unsigned long i = 0; i < n_events; i++)
		emit_one(i);
	*ns = now_ns() - t0;
	return NULL;
}

static double run_threads(unsigned threads)
{
	pthread_t t[16];
	uint64_t ns[16];
	pthread_barrier_init(&barrier, NULL, threads);
	for (unsigned i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, producer, &ns[i]);
	double worst = 0;
	for (unsigned i = 0; i < threads; i++) {
		pthread_join(t[i], NULL);
		double per = (double)ns[i] / (double)n_events;
		if (per > worst)
			worst = per;
	}
	pthread_barrier_destroy(&barrier);
	return worst; /* per-thread cost: each thread's time over its own events */
}

static int start(enum rt_tracer_mode mode, const char *path, size_t ring_kb)
{
	struct rt_tracer_options o = {.output = path, .mode = mode, .ring_bytes = ring_kb * 1024};
	char err[256];
	if (rt_tracer_start(&o, err, sizeof(err)) < 0) {
		fprintf(stderr, "tracer-bench: %s\n", err);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: see the comment at the top of bench/tracer_bench.c\n");
		return 2;
	}
	const char *what = argv[1];
	char path[256];
	snprintf(path, sizeof(path), "%s/tracer-bench-%d.rtr", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", getpid());
	if (strcmp(what, "hot") == 0 || strcmp(what, "lttng") == 0) {
		if (argc < 5)
			return 2;
		unsigned threads = (unsigned)atoi(argv[2]);
		n_events = strtoul(argv[3], NULL, 0);
		int reps = atoi(argv[4]);
		if (threads < 1 || threads > 16)
			return 2;
		if (strcmp(what, "lttng") == 0) {
#ifdef HAVE_LTTNG
			use_lttng = 1;
#else
			fprintf(stderr, "tracer-bench: built without LTTng-UST\n");
			return 3;
#endif
		} else if (start(RT_MODE_FLIGHT_RECORDER, path, 1024) < 0) {
			return 1;
		}
		for (int r = 0; r < reps; r++)
			printf("%.2f\n", run_threads(threads));
		if (!use_lttng) {
			rt_tracer_stop();
			unlink(path);
		}
		return 0;
	}
	if (strcmp(what, "off") == 0) {
		n_events = strtoul(argv[2], NULL, 0);
		int reps = argc > 3 ? atoi(argv[3]) : 5;
		rt_tracer_stop(); /* configured off: the environment is not consulted */
		for (int r = 0; r < reps; r++)
			printf("%.3f\n", run_threads(1));
		return 0;
	}
	if (strcmp(what, "file") == 0) {
		/* Flat out for SECONDS: how much of it the collector gets into the file. */
		double secs = atof(argv[2]);
		if (secs <= 0 || secs > 60)
			return 2;
		if (start(RT_MODE_STREAM, path, 4096) < 0)
			return 1;
		uint64_t t0 = now_ns(), until = t0 + (uint64_t)(secs * 1e9), produced = 0;
		while (now_ns() < until) {
			for (int i = 0; i < 4096; i++)
				emit_one(produced++);
		}
		rt_tracer_stop();
		uint64_t dt = now_ns() - t0;
		struct rt_trace_reader *r = rt_trace_reader_new();
		char err[256];
		uint64_t lost[5] = {0};
		size_t n = 0;
		if (rt_trace_reader_add_file(r, path, err, sizeof(err)) == 0) {
			n = rt_trace_reader_count(r);
			rt_trace_reader_lost(r, lost);
		}
		rt_trace_reader_free(r);
		long long size = 0;
		FILE *f = fopen(path, "rb");
		if (f) {
			fseek(f, 0, SEEK_END);
			size = ftell(f);
			fclose(f);
		}
		unlink(path);
		printf("produced=%llu written=%zu lost=%llu seconds=%.3f written_per_s=%.0f MB_per_s=%.1f\n",
		       (unsigned long long)produced, n, (unsigned long long)lost[0], (double)dt / 1e9,
		       (double)n / ((double)dt / 1e9), (double)size / ((double)dt / 1e9) / 1e6);
		return 0;
	}
	if (strcmp(what, "loop") == 0) {
		/* The loop of "off" without the tracer call: what "off" costs beyond it is the tracer's. */
		n_events = strtoul(argv[2], NULL, 0);
		int reps = argc > 3 ? atoi(argv[3]) : 5;
		for (int r = 0; r < reps; r++) {
			uint64_t t0 = now_ns();
			for (unsigned long i = 0; i < n_events; i++)
				__asm__ volatile("" : : "r"(i) : "memory");
			printf("%.3f\n", (double)(now_ns() - t0) / (double)n_events);
		}
		return 0;
	}
	if (strcmp(what, "bare") == 0) {
		/* The floor: a ring write with a TSC timestamp and no tracer at all. */
		n_events = strtoul(argv[2], NULL, 0);
		int reps = argc > 3 ? atoi(argv[3]) : 5;
		static struct rt_event ring[4096];
		for (int r = 0; r < reps; r++) {
			uint64_t t0 = now_ns();
			for (unsigned long i = 0; i < n_events; i++) {
				struct rt_event *ev = &ring[i & 4095];
				ev->ticks = rt_clock_ticks(RT_CLOCK_TSC);
				ev->seq = (uint32_t)i;
				ev->kind = RT_EV_WR_POST;
				__builtin_memset(&ev->u, 0, sizeof(ev->u));
				ev->u.wr.wr_id = i;
				ev->u.wr.length = 4096;
				ev->u.wr.first_psn = (uint32_t)i;
				__asm__ volatile("" ::: "memory");
			}
			printf("%.2f\n", (double)(now_ns() - t0) / (double)n_events);
		}
		return 0;
	}
	return 2;
}

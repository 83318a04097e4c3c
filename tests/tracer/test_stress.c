/*
 * Stress: several producer threads write millions of events through small
 * rings while the collector drains them (stream) or snapshots them under
 * load (flight recorder).  Reading the file back, every event must be intact
 * (payload checksum), appear at most once and in order per thread, and
 * written + dropped must equal produced, per thread.
 *
 * STRESS_EVENTS (per thread) scales the run down for sanitizer builds.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "rdmatrace/trace_format.h"
#include "rdmatrace/trace_reader.h"
#include "rdmatrace/tracer.h"
#include "testlib.h"
#include "tracer/tmpdir.h"

#define THREADS 4

static unsigned long per_thread = 500000;
static _Atomic int stop_snapshots;
static unsigned pace_every; /* events between two short sleeps, 0 = flat out */

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

static void *producer(void *arg)
{
	uint32_t idx = (uint32_t)(uintptr_t)arg;
	for (uint64_t i = 0; i < per_thread; i++) {
		struct rt_event *ev = rt_event_begin(RT_EV_WR_POST, 1000 + idx);
		if (!ev)
			continue;
		uint64_t id = ((uint64_t)idx << 40) | i;
		ev->u.wr.wr_id = id;
		ev->u.wr.remote_addr = mix(id);
		ev->u.wr.length = (uint32_t)(mix(id) >> 32);
		ev->u.wr.rkey = idx;
		ev->u.wr.first_psn = (uint32_t)i;
		ev->u.wr.last_psn = ~(uint32_t)i;
		rt_event_commit(ev);
		if (pace_every && i % pace_every == 0)
			usleep(200);
	}
	return NULL;
}

static void *snapshotter(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop_snapshots)) {
		rt_tracer_snapshot("stress");
		usleep(2000);
	}
	return NULL;
}

struct per_thread_check {
	uint32_t tid;
	uint64_t written;
	uint64_t lost;
	uint64_t next_min;      /* every i seen must be >= this (in order, no duplicate) */
	int64_t last_seq;
	unsigned bad_payload, out_of_order, bad_seq;
};

static void run(enum rt_tracer_mode mode, const char *name, size_t ring_kb)
{
	const char *path = tmp_path(name);
	struct rt_tracer_options o = {.output = path, .mode = mode, .ring_bytes = ring_kb * 1024};
	char err[256];
	CHECK_EQ_U(rt_tracer_start(&o, err, sizeof(err)), 0);
	pthread_t t[THREADS], snap;
	atomic_store(&stop_snapshots, 0);
	if (mode == RT_MODE_FLIGHT_RECORDER)
		pthread_create(&snap, NULL, snapshotter, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, producer, (void *)(uintptr_t)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	if (mode == RT_MODE_FLIGHT_RECORDER) {
		atomic_store(&stop_snapshots, 1);
		pthread_join(snap, NULL);
	}
	rt_tracer_stop();

	struct rt_trace_reader *r = rt_trace_reader_new();
	CHECK_EQ_U(rt_trace_reader_add_file(r, path, err, sizeof(err)), 0);
	struct per_thread_check c[THREADS];
	memset(c, 0, sizeof(c));
	for (int i = 0; i < THREADS; i++)
		c[i].last_seq = -1;
	struct rt_trace_record rec;
	unsigned stray = 0;
	/* First pass: which thread id wrote which QP (LOST records carry only the tid). */
	while (rt_trace_reader_next(r, &rec) > 0)
		if (rec.ev.kind == RT_EV_WR_POST && rec.ev.qpn - 1000 < THREADS && !c[rec.ev.qpn - 1000].tid)
			c[rec.ev.qpn - 1000].tid = rec.ev.tid;
	rt_trace_reader_rewind(r);
	while (rt_trace_reader_next(r, &rec) > 0) {
		const struct rt_event *ev = &rec.ev;
		if (ev->kind == RT_EV_WR_POST) {
			uint32_t idx = ev->qpn - 1000;
			if (idx >= THREADS) {
				stray++;
				continue;
			}
			struct per_thread_check *p = &c[idx];
			uint64_t id = ev->u.wr.wr_id, i = id & ((1ull << 40) - 1);
			if ((id >> 40) != idx || ev->u.wr.remote_addr != mix(id) ||
			    ev->u.wr.length != (uint32_t)(mix(id) >> 32) || ev->u.wr.rkey != idx ||
			    ev->u.wr.first_psn != (uint32_t)i || ev->u.wr.last_psn != ~(uint32_t)i ||
			    ev->tid != p->tid)
				p->bad_payload++;
			if (i < p->next_min)
				p->out_of_order++;
			p->next_min = i + 1;
			if ((int64_t)ev->seq <= p->last_seq)
				p->bad_seq++;
			p->last_seq = ev->seq;
			p->written++;
		} else if (ev->kind == RT_EV_LOST) {
			int found = 0;
			for (int i = 0; i < THREADS; i++)
				if (c[i].tid == ev->tid) {
					c[i].lost += ev->u.lost.count;
					found = 1;
				}
			if (!found)
				stray++;
		}
	}
	uint64_t total_written = 0, total_lost = 0;
	for (int i = 0; i < THREADS; i++) {
		if (c[i].written + c[i].lost != per_thread)
			printf("#   thread %d: written %llu + lost %llu != produced %lu\n", i,
			       (unsigned long long)c[i].written, (unsigned long long)c[i].lost, per_thread);
		CHECK_EQ_U(c[i].written + c[i].lost, per_thread);
		CHECK_EQ_U(c[i].bad_payload, 0);
		CHECK_EQ_U(c[i].out_of_order, 0);
		CHECK_EQ_U(c[i].bad_seq, 0);
		total_written += c[i].written;
		total_lost += c[i].lost;
	}
	CHECK_EQ_U(stray, 0);
	CHECK_EQ_U(rt_trace_reader_damage_count(r), 0);
	CHECK(total_written > 0);
	printf("# %s: %d threads x %lu events: %llu written, %llu lost\n", name, THREADS, per_thread,
	       (unsigned long long)total_written, (unsigned long long)total_lost);
	rt_trace_reader_free(r);
	unlink(path);
}

static void test_stream_small_rings(void)
{
	run(RT_MODE_STREAM, "stress-stream.rtr", 64);
}

static void test_stream_large_rings(void)
{
	run(RT_MODE_STREAM, "stress-stream-large.rtr", 4096);
}

/* Paced so the collector keeps up with most of it: the drain path under real concurrency. */
static void test_stream_paced(void)
{
	pace_every = 256;
	run(RT_MODE_STREAM, "stress-paced.rtr", 1024);
	pace_every = 0;
}

static void test_flight_recorder_snapshots(void)
{
	run(RT_MODE_FLIGHT_RECORDER, "stress-flight.rtr", 64);
}

int main(void)
{
	const char *env = getenv("STRESS_EVENTS");
	setenv("RDMATRACE_FLUSH_MS", "2", 1);
	if (env && atol(env) > 0)
		per_thread = (unsigned long)atol(env);
	RUN(test_stream_small_rings);
	RUN(test_stream_large_rings);
	RUN(test_stream_paced);
	RUN(test_flight_recorder_snapshots);
	tmp_cleanup();
	return test_done();
}

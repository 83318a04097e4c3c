/*
 * The tracer end to end inside one process: start with an output file,
 * emit from several threads, stop, read the file back with the reader.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rdmatrace/trace_reader.h"
#include "rdmatrace/tracer.h"
#include "testlib.h"
#include "tracer/tmpdir.h"

#define PER_THREAD 1000

static void *emit(void *arg)
{
	uint32_t qpn = (uint32_t)(uintptr_t)arg;
	for (uint32_t i = 0; i < PER_THREAD; i++) {
		struct rt_event *ev = rt_event_begin(RT_EV_WR_POST, qpn);
		if (ev) {
			ev->u.wr.wr_id = i;
			ev->u.wr.length = 4096;
			ev->u.wr.opcode = 2;
			rt_event_commit(ev);
		}
	}
	return NULL;
}

static void test_disabled_returns_null(void)
{
	rt_tracer_stop();
	CHECK(rt_event_begin(RT_EV_MARKER, 0) == NULL);
}

static void test_round_trip(void)
{
	const char *path = tmp_path("basic.rtr");
	struct rt_tracer_options o = {.output = path, .program = "basic-test"};
	char err[256];
	CHECK_EQ_U(rt_tracer_start(&o, err, sizeof(err)), 0);
	CHECK(rt_tracer_start(&o, err, sizeof(err)) == -EALREADY);
	pthread_t t[3];
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, emit, (void *)(uintptr_t)(100 + i));
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	rt_trace_marker("hello %d", 42);
	rt_trace_counter("tx_bytes", 1, 12345);
	rt_trace_warning(RT_WARN_TRACER, "warn %s", "x");
	rt_tracer_stop();
	rt_tracer_stop(); /* idempotent */

	struct stat st;
	CHECK(stat(path, &st) == 0);
	CHECK_EQ_U(st.st_mode & 0777, 0600);

	struct rt_trace_reader *r = rt_trace_reader_new();
	CHECK_EQ_U(rt_trace_reader_add_file(r, path, err, sizeof(err)), 0);
	struct rt_trace_record rec;
	unsigned wr[3] = {0}, next[3] = {0}, markers = 0, counters = 0, warnings = 0, syncs = 0, bad = 0;
	uint64_t last_mono = 0;
	while (rt_trace_reader_next(r, &rec) > 0) {
		CHECK(rec.mono_ns >= last_mono);
		last_mono = rec.mono_ns;
		if (rec.pid != getpid() || strcmp(rec.program, "basic-test") != 0)
			bad++;
		switch (rec.ev.kind) {
		case RT_EV_WR_POST: {
			unsigned ti = rec.ev.qpn - 100;
			if (ti < 3) {
				if (rec.ev.u.wr.wr_id != next[ti] || rec.ev.u.wr.length != 4096)
					bad++;
				next[ti]++;
				wr[ti]++;
			} else {
				bad++;
			}
			break;
		}
		case RT_EV_MARKER:
			markers += strcmp(rec.ev.u.marker.text, "hello 42") == 0;
			break;
		case RT_EV_COUNTER:
			counters += rec.ev.u.counter.value == 12345 && strcmp(rec.ev.u.counter.name, "tx_bytes") == 0;
			break;
		case RT_EV_WARNING:
			warnings += rec.ev.u.warning.code == RT_WARN_TRACER;
			break;
		case RT_EV_CLOCK_SYNC:
			syncs++;
			break;
		default:
			bad++;
		}
	}
	for (int i = 0; i < 3; i++)
		CHECK_EQ_U(wr[i], PER_THREAD);
	CHECK_EQ_U(markers, 1);
	CHECK_EQ_U(counters, 1);
	CHECK_EQ_U(warnings, 1);
	CHECK(syncs >= 2);
	CHECK_EQ_U(bad, 0);
	CHECK_EQ_U(rt_trace_reader_damage_count(r), 0);
	const struct rt_trace_source *s = rt_trace_reader_source(r, 0);
	CHECK(s != NULL);
	if (s) {
		CHECK_EQ_U(s->pid, getpid());
		CHECK_STR(s->program, "basic-test");
		CHECK(s->host[0] != '\0');
	}
	/* The wall clock of the records is now-ish. */
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	uint64_t now_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
	CHECK(s && s->last_ns <= now_ns && now_ns - s->last_ns < 10000000000ull);
	rt_trace_reader_free(r);

	/* The per-process segment is gone after a clean stop. */
	char shm[128];
	snprintf(shm, sizeof(shm), "/dev/shm/rdmatrace-%u-%d", (unsigned)getuid(), (int)getpid());
	CHECK(access(shm, F_OK) != 0);
}

static void test_restart(void)
{
	const char *path = tmp_path("restart.rtr");
	struct rt_tracer_options o = {.output = path};
	char err[256];
	CHECK_EQ_U(rt_tracer_start(&o, err, sizeof(err)), 0);
	emit((void *)(uintptr_t)7);
	rt_tracer_stop();
	CHECK(rt_event_begin(RT_EV_MARKER, 0) == NULL);
	struct rt_trace_reader *r = rt_trace_reader_new();
	CHECK_EQ_U(rt_trace_reader_add_file(r, path, err, sizeof(err)), 0);
	struct rt_trace_record rec;
	unsigned n = 0;
	while (rt_trace_reader_next(r, &rec) > 0)
		n += rec.ev.kind == RT_EV_WR_POST;
	CHECK_EQ_U(n, PER_THREAD);
	rt_trace_reader_free(r);
}

static void test_bad_options(void)
{
	char err[256] = "";
	struct rt_tracer_options o = {0};
	CHECK(rt_tracer_start(&o, err, sizeof(err)) == -EINVAL);
	CHECK(err[0] != '\0');
	o.output = "/nonexistent-dir/x.rtr";
	CHECK(rt_tracer_start(&o, err, sizeof(err)) < 0);
	CHECK(strstr(err, "/nonexistent-dir/x.rtr") != NULL);
	CHECK(rt_event_begin(RT_EV_MARKER, 0) == NULL);
	o.output = NULL;
	o.shm_path = "/rdmatrace-test-does-not-exist";
	CHECK(rt_tracer_start(&o, err, sizeof(err)) < 0);
}

/*
 * More threads over time than rings: a thread's ring goes back to the pool
 * when it exits (the collector drains it first).  Whatever finds no ring is
 * counted as lost (no_ring) and tries again later; nothing is mixed up.
 */
static void *short_lived(void *arg)
{
	uint32_t n = (uint32_t)(uintptr_t)arg;
	for (uint32_t i = 0; i < 100; i++) {
		struct rt_event *ev = rt_event_begin(RT_EV_WR_POST, 5000 + n);
		if (!ev)
			continue;
		ev->u.wr.wr_id = i;
		rt_event_commit(ev);
	}
	return NULL;
}

static void test_ring_recycling(void)
{
	const char *path = tmp_path("recycle.rtr");
	struct rt_tracer_options o = {.output = path, .max_threads = 4};
	char err[256];
	setenv("RDMATRACE_FLUSH_MS", "1", 1);
	CHECK_EQ_U(rt_tracer_start(&o, err, sizeof(err)), 0);
	for (uint32_t n = 0; n < 40; n++) {
		pthread_t t[2];
		pthread_create(&t[0], NULL, short_lived, (void *)(uintptr_t)(2 * n));
		pthread_create(&t[1], NULL, short_lived, (void *)(uintptr_t)(2 * n + 1));
		pthread_join(t[0], NULL);
		pthread_join(t[1], NULL);
		if (n % 4 == 3)
			usleep(3000); /* give the collector a chance to free the rings */
	}
	rt_tracer_stop();
	unsetenv("RDMATRACE_FLUSH_MS");
	struct rt_trace_reader *r = rt_trace_reader_new();
	CHECK_EQ_U(rt_trace_reader_add_file(r, path, err, sizeof(err)), 0);
	struct rt_trace_record rec;
	uint32_t next[80] = {0};
	unsigned bad = 0, written = 0;
	while (rt_trace_reader_next(r, &rec) > 0) {
		if (rec.ev.kind != RT_EV_WR_POST)
			continue;
		/*
		 * A thread that found no ring tries again every NO_RING_RETRY
		 * events, so its written events may start late (the ones before
		 * are counted as lost) but never go backwards or repeat.
		 */
		uint32_t n = rec.ev.qpn - 5000;
		if (n >= 80 || rec.ev.u.wr.wr_id < next[n] || rec.ev.u.wr.wr_id >= 100)
			bad++;
		else
			next[n] = (uint32_t)rec.ev.u.wr.wr_id + 1;
		written++;
	}
	uint64_t lost[5];
	rt_trace_reader_lost(r, lost);
	CHECK_EQ_U(bad, 0);
	CHECK_EQ_U(written + lost[0], 80 * 100);
	CHECK_EQ_U(lost[RT_LOST_RING_FULL] + lost[RT_LOST_NESTED] + lost[RT_LOST_OVERWRITTEN], 0);
	CHECK(written >= 8 * 100); /* at least the first rings' threads got through */
	printf("# 80 threads over 4 rings: %u written, %llu lost for want of a ring\n", written,
	       (unsigned long long)lost[RT_LOST_NO_RING]);
	rt_trace_reader_free(r);
}

/* The timerfds this process holds (the collector thread waits on one). */
static int count_timerfds(void)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		char p[300], t[64];
		snprintf(p, sizeof(p), "/proc/self/fd/%s", e->d_name);
		ssize_t k = readlink(p, t, sizeof(t) - 1);
		if (k > 0) {
			t[k] = '\0';
			n += strcmp(t, "anon_inode:[timerfd]") == 0;
		}
	}
	closedir(d);
	return n;
}

/* fork(): with %p in the file name the child writes a file of its own; the parent's is untouched.
 * The collector thread's timerfd stays with it in the parent: the child does not inherit it. */
static void test_fork_child_file(void)
{
#ifdef __SANITIZE_THREAD__
	SKIP("ThreadSanitizer cannot start threads after a multi-threaded fork");
#endif
	char pattern[512];
	snprintf(pattern, sizeof(pattern), "%s", tmp_path("fork-%p.rtr"));
	struct rt_tracer_options o = {.output = pattern, .program = "forker"};
	char err[256];
	CHECK_EQ_U(rt_tracer_start(&o, err, sizeof(err)), 0);
	rt_trace_marker("parent before");
	for (int i = 0; i < 2000 && count_timerfds() < 1; i++)
		usleep(1000); /* the thread opens it as it starts */
	CHECK_EQ_U(count_timerfds(), 1);
	pid_t pid = fork();
	if (pid == 0) {
		if (count_timerfds() != 0)
			_exit(2);
		rt_trace_marker("child");
		rt_tracer_stop();
		_exit(0);
	}
	int status;
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	rt_trace_marker("parent after");
	rt_tracer_stop();
	CHECK_EQ_U(count_timerfds(), 0);
	char path[2][512];
	pid_t pids[2] = {getpid(), pid};
	const char *want[2][2] = {{"parent before", "parent after"}, {"child", NULL}};
	for (int i = 0; i < 2; i++) {
		char *pp = strstr(pattern, "%p");
		snprintf(path[i], sizeof(path[i]), "%.*s%d%s", (int)(pp - pattern), pattern, (int)pids[i], pp + 2);
		struct rt_trace_reader *r = rt_trace_reader_new();
		CHECK_EQ_U(rt_trace_reader_add_file(r, path[i], err, sizeof(err)), 0);
		struct rt_trace_record rec;
		int n = 0;
		while (rt_trace_reader_next(r, &rec) > 0) {
			if (rec.ev.kind != RT_EV_MARKER)
				continue;
			CHECK(n < 2 && want[i][n] && strcmp(rec.ev.u.marker.text, want[i][n]) == 0);
			CHECK_EQ_U(rec.pid, pids[i]);
			n++;
		}
		CHECK_EQ_U(n, i == 0 ? 2 : 1);
		rt_trace_reader_free(r);
	}
}

int main(void)
{
	RUN(test_disabled_returns_null);
	RUN(test_round_trip);
	RUN(test_restart);
	RUN(test_bad_options);
	RUN(test_ring_recycling);
	RUN(test_fork_child_file);
	tmp_cleanup();
	return test_done();
}

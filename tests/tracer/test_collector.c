/*
 * The collector API as `rdmatrace record` uses it: create a segment, start
 * a traced program with RDMATRACE_SHM naming it, poll until it exits,
 * finish, read the file.  Stream and flight-recorder modes, a segment that
 * nobody attaches to, and refusing a second live collector.
 */
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rdmatrace/collector.h"
#include "rdmatrace/trace_reader.h"
#include "testlib.h"
#include "tracer/tmpdir.h"

extern char **environ;

static char synth[512];

static pid_t spawn_synth(const char *shm, char *const extra[])
{
	char env_shm[256];
	snprintf(env_shm, sizeof(env_shm), "RDMATRACE_SHM=%s", shm);
	char *envp[64];
	int n = 0;
	for (char **e = environ; *e && n < 50; e++)
		if (strncmp(*e, "RDMATRACE_", 10) != 0)
			envp[n++] = *e;
	envp[n++] = env_shm;
	envp[n] = NULL;
	char *argv[32] = {synth};
	int a = 1;
	for (int i = 0; extra[i] && a < 30; i++)
		argv[a++] = extra[i];
	argv[a] = NULL;
	pid_t pid;
	if (posix_spawn(&pid, synth, NULL, NULL, argv, envp) != 0)
		return -1;
	return pid;
}

/*
 * Poll the collector (every millisecond: a flight-recorder trigger keeps
 * only what the ring still holds when the collector answers) until the
 * child exits; returns its wait status.
 */
static int poll_until_exit(struct rt_collector *c, pid_t pid)
{
	int status = -1;
	for (int i = 0; i < 15000; i++) {
		rt_collector_poll(c);
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			return status;
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}

struct counts {
	unsigned total, wr, wc, wc_err, markers, sync, lost;
	int32_t pid;
	int program_ok;
	unsigned snapshot_flagged;
};

static void count_file(const char *path, struct counts *k)
{
	memset(k, 0, sizeof(*k));
	struct rt_trace_reader *r = rt_trace_reader_new();
	char err[256];
	CHECK_EQ_U(rt_trace_reader_add_file(r, path, err, sizeof(err)), 0);
	struct rt_trace_record rec;
	k->program_ok = 1;
	while (rt_trace_reader_next(r, &rec) > 0) {
		if (rec.ev.kind == RT_EV_CLOCK_SYNC) {
			k->sync++;
			continue;
		}
		k->total++;
		k->pid = rec.pid;
		if (strcmp(rec.program, "rdmatrace-synth") != 0)
			k->program_ok = 0;
		k->wr += rec.ev.kind == RT_EV_WR_POST;
		k->wc += rec.ev.kind == RT_EV_COMPLETION;
		k->wc_err += rec.ev.kind == RT_EV_COMPLETION && rec.ev.u.wc.status != 0;
		k->markers += rec.ev.kind == RT_EV_MARKER;
		k->lost += rec.ev.kind == RT_EV_LOST;
		k->snapshot_flagged += (rec.chunk_flags & 1) != 0;
	}
	CHECK_EQ_U(rt_trace_reader_damage_count(r), 0);
	rt_trace_reader_free(r);
}

static void test_stream_record(void)
{
	const char *out = tmp_path("record.rtr");
	struct rt_collector_options o = {.output = out, .mode = RT_MODE_STREAM};
	struct rt_collector *c;
	char err[256];
	CHECK_EQ_U(rt_collector_create(&c, &o, err, sizeof(err)), 0);
	const char *name = rt_collector_shm_name(c);
	char shm_path[256];
	snprintf(shm_path, sizeof(shm_path), "/dev/shm%s", name);
	struct stat st;
	CHECK(stat(shm_path, &st) == 0 && (st.st_mode & 0777) == 0600);
	pid_t pid = spawn_synth(name, (char *[]){"--threads", "3", "--messages", "100", NULL});
	CHECK(pid > 0);
	int status = poll_until_exit(c, pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_EQ_U(rt_collector_finish(c), 0);
	struct rt_collector_stats s;
	rt_collector_get_stats(c, &s);
	rt_collector_destroy(c);
	CHECK(access(shm_path, F_OK) != 0); /* the creator removes its segment */
	struct counts k;
	count_file(out, &k);
	/* 3 threads x (8 setup + 100 x 11) + 2 markers + the process's end record */
	CHECK_EQ_U(k.total, 3 * (8 + 100 * 11) + 2 + 1);
	CHECK_EQ_U(k.wr, 300);
	CHECK_EQ_U(k.lost, 0);
	CHECK_EQ_U(k.pid, pid);
	CHECK(k.program_ok);
	CHECK(k.sync >= 2);
	CHECK_EQ_U(s.events, k.total + k.sync);
	CHECK(stat(out, &st) == 0 && (st.st_mode & 0777) == 0600);
}

static void test_flight_record_error_trigger(void)
{
	const char *out = tmp_path("flight.rtr");
	struct rt_collector_options o = {.output = out, .mode = RT_MODE_FLIGHT_RECORDER, .ring_bytes = 256 * 1024};
	struct rt_collector *c;
	char err[256];
	CHECK_EQ_U(rt_collector_create(&c, &o, err, sizeof(err)), 0);
	/* 2000 messages x 11 records through a 4096-record ring: only the newest survive, plus the error's context */
	pid_t pid = spawn_synth(rt_collector_shm_name(c),
				(char *[]){"--threads", "1", "--messages", "2000", "--error-at", "1000", "--pace-us", "20",
					   NULL});
	int status = poll_until_exit(c, pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_EQ_U(rt_collector_finish(c), 0);
	struct rt_collector_stats s;
	rt_collector_get_stats(c, &s);
	rt_collector_destroy(c);
	struct counts k;
	count_file(out, &k);
	CHECK(s.snapshots >= 2);   /* the error, then exit */
	CHECK_EQ_U(k.wc_err, 1);    /* the error completion was caught by its trigger */
	CHECK(k.total < 22000);     /* the rest was overwritten ... */
	CHECK(k.lost >= 1);         /* ... and says so */
	CHECK(k.snapshot_flagged > 0);
	CHECK_EQ_U(k.pid, pid);
}

/* Clock points in a trace file, by CLOCK_MONOTONIC time. */
static unsigned sync_points(const char *path, uint64_t *mono, unsigned max)
{
	struct rt_trace_reader *r = rt_trace_reader_new();
	char err[256];
	CHECK_EQ_U(rt_trace_reader_add_file(r, path, err, sizeof(err)), 0);
	struct rt_trace_record rec;
	unsigned n = 0;
	while (rt_trace_reader_next(r, &rec) > 0)
		if (rec.ev.kind == RT_EV_CLOCK_SYNC && n < max)
			mono[n++] = rec.ev.u.clock.mono_ns;
	rt_trace_reader_free(r);
	return n;
}

/* The wall clock set while the program runs (told by rt_collector_clock_set,
 * as the tracer's thread does on its timerfd's ECANCELED): the next poll
 * writes the clock as the poll before sampled it and as it is now, so the
 * step lies between two points 1 ms apart, not within a second. */
static void test_clock_set_bracketed(void)
{
	const char *out = tmp_path("clockset.rtr");
	struct rt_collector_options o = {.output = out, .mode = RT_MODE_STREAM};
	struct rt_collector *c;
	char err[256];
	CHECK_EQ_U(rt_collector_create(&c, &o, err, sizeof(err)), 0);
	pid_t pid = spawn_synth(rt_collector_shm_name(c),
				(char *[]){"--threads", "1", "--messages", "1000", "--pace-us", "500", NULL});
	CHECK(pid > 0);
	for (int i = 0; i < 5000 && access(out, F_OK) != 0; i++) { /* the file opens once it attaches */
		rt_collector_poll(c);
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	}
	for (int i = 0; i < 200; i++) {
		rt_collector_poll(c);
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	}
	uint64_t set_at = rt_clock_mono_ns();
	rt_collector_clock_set(c);
	rt_collector_poll(c);
	int status = poll_until_exit(c, pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_EQ_U(rt_collector_finish(c), 0);
	rt_collector_destroy(c);
	uint64_t mono[16];
	unsigned n = sync_points(out, mono, 16);
	unsigned before = 0, after = 0;
	for (unsigned i = 0; i < n; i++) {
		before += mono[i] < set_at && set_at - mono[i] < 100000000;
		after += mono[i] >= set_at && mono[i] - set_at < 100000000;
	}
	if (before != 1 || after != 1)
		printf("#   %u clock points, %u in the 100 ms before the clock was set, %u in the 100 ms after\n", n,
		       before, after);
	CHECK_EQ_U(before, 1);
	CHECK_EQ_U(after, 1);
}

static void test_nobody_attaches(void)
{
	const char *out = tmp_path("empty.rtr");
	struct rt_collector_options o = {.output = out};
	struct rt_collector *c;
	char err[256];
	CHECK_EQ_U(rt_collector_create(&c, &o, err, sizeof(err)), 0);
	CHECK_EQ_U(rt_collector_poll(c), 0);
	CHECK(access(out, F_OK) != 0); /* no file until a program attaches ... */
	CHECK_EQ_U(rt_collector_finish(c), 0);
	rt_collector_destroy(c);
	struct counts k;
	count_file(out, &k);            /* ... but finish leaves a valid, empty trace */
	CHECK_EQ_U(k.total, 0);
}

static void test_second_collector_refused(void)
{
	const char *out = tmp_path("first.rtr");
	char name[128];
	snprintf(name, sizeof(name), "/rdmatrace-test-%d", getpid());
	struct rt_collector_options o = {.output = out, .shm_name = name};
	struct rt_collector *c, *c2 = NULL;
	char err[256];
	CHECK_EQ_U(rt_collector_create(&c, &o, err, sizeof(err)), 0);
	CHECK(rt_collector_create(&c2, &o, err, sizeof(err)) == -EEXIST);
	/* A collector from another process is live: refused; force would take over. */
	pid_t child = fork();
	if (child == 0) {
		struct rt_collector *c3;
		char e[256];
		int rc = rt_collector_attach(&c3, name, tmp_path("second.rtr"), 0, e, sizeof(e));
		_exit(rc == -EBUSY ? 0 : 1);
	}
	int status;
	waitpid(child, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	rt_collector_finish(c);
	rt_collector_destroy(c);
	CHECK(rt_collector_attach(&c2, name, out, 0, err, sizeof(err)) < 0); /* unlinked */
	CHECK(strstr(err, name) != NULL);
}

int main(void)
{
	const char *build = getenv("BUILD");
	snprintf(synth, sizeof(synth), "%s/rdmatrace-synth", build ? build : "build");
	if (access(synth, X_OK) != 0) {
		printf("# %s missing\n", synth);
		return 1;
	}
	RUN(test_stream_record);
	RUN(test_flight_record_error_trigger);
	RUN(test_clock_set_bracketed);
	RUN(test_nobody_attaches);
	RUN(test_second_collector_refused);
	tmp_cleanup();
	return test_done();
}

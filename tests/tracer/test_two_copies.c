/*
 * Three copies of the tracer in one process (this program's, and two
 * shared objects each statically linked with the library and loaded
 * RTLD_LOCAL, as the LD_PRELOAD probe and uroce's libibverbs.so.1 are), all
 * configured by the same environment.  With RDMATRACE_OUTPUT they must share
 * the per-process segment (one collector, one file); with RDMATRACE_SHM an
 * external collector's segment; each copy with rings of its own.  Nothing
 * may be lost or mixed up, even when the copies emit from the same thread.
 *
 * The traced side runs as a fresh child process (this program with an
 * argument), so every copy reads the environment from scratch.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rdmatrace/collector.h"
#include "rdmatrace/trace_reader.h"
#include "rdmatrace/tracer.h"
#include "testlib.h"
#include "tracer/tmpdir.h"

extern char **environ;

#define N 20000      /* records per copy and thread */
#define COPIES 3
#define LATE 100     /* records a copy emits after the creating copy stopped */

typedef unsigned (*emit_fn)(unsigned, uint32_t, uint64_t);

struct copy {
	void *h;
	emit_fn emit;
	void (*stop)(void);
	int (*enabled)(void);
};

static unsigned own_emit(unsigned n, uint32_t qpn, uint64_t tag)
{
	unsigned ok = 0;
	for (unsigned i = 0; i < n; i++) {
		struct rt_event *ev = rt_event_begin(RT_EV_WR_POST, qpn);
		if (!ev)
			continue;
		ev->u.wr.wr_id = tag + i;
		ev->u.wr.length = (uint32_t)(tag + i);
		rt_event_commit(ev);
		ok++;
	}
	return ok;
}

static int own_enabled(void)
{
	return rt_tracer_start_from_env();
}

static struct copy copies[COPIES];

static int load(struct copy *c, const char *path)
{
	c->h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!c->h) {
		fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
		return -1;
	}
	c->emit = (emit_fn)dlsym(c->h, "copy_emit");
	c->stop = (void (*)(void))dlsym(c->h, "copy_stop");
	c->enabled = (int (*)(void))dlsym(c->h, "copy_enabled");
	/* The library inside must be invisible from outside. */
	if (!c->emit || !c->stop || !c->enabled || dlsym(c->h, "rt_event_begin_slow") ||
	    dlsym(c->h, "rt_tracer_enabled")) {
		fprintf(stderr, "%s: wrong exports\n", path);
		return -1;
	}
	return 0;
}

/* Thread t of the traced side: all copies interleaved in small batches from this one thread. */
static void *traced_thread(void *arg)
{
	uint32_t t = (uint32_t)(uintptr_t)arg;
	for (unsigned i = 0; i < N; i += 100)
		for (unsigned c = 0; c < COPIES; c++)
			copies[c].emit(100, t, ((uint64_t)c << 40) + i);
	return NULL;
}

/* The traced child: 2 threads x 3 copies x N records, then every copy stops (the collector's last). */
static int traced_main(const char *build)
{
	char p[2][512];
	snprintf(p[0], sizeof(p[0]), "%s/tests/tracer/libtracercopy_a.so", build);
	snprintf(p[1], sizeof(p[1]), "%s/tests/tracer/libtracercopy_b.so", build);
	copies[0] = (struct copy){NULL, own_emit, rt_tracer_stop, own_enabled};
	if (load(&copies[1], p[0]) < 0 || load(&copies[2], p[1]) < 0)
		return 2;
	for (int c = 0; c < COPIES; c++)
		if (!copies[c].enabled()) {
			fprintf(stderr, "copy %d: tracing not enabled\n", c);
			return 3;
		}
	pthread_t th[2];
	for (uintptr_t t = 0; t < 2; t++)
		pthread_create(&th[t], NULL, traced_thread, (void *)t);
	for (int t = 0; t < 2; t++)
		pthread_join(th[t], NULL);
	/*
	 * This program's copy created the segment (it started first) and stops first,
	 * as at exit, where the program's destructors run before its libraries'.  The
	 * others go on tracing: their late records must still reach the file.
	 */
	copies[0].stop();
	if (copies[1].emit(LATE, 2, 1ull << 40) != LATE)
		return 4;
	copies[1].stop();
	if (copies[2].emit(LATE, 2, 2ull << 40) != LATE)
		return 5;
	copies[2].stop();
	return 0;
}

static pid_t spawn_traced(const char *var, const char *value)
{
	char self[512], env[600];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return -1;
	self[n] = '\0';
	snprintf(env, sizeof(env), "%s=%s", var, value);
	char *envp[80];
	int k = 0;
	for (char **e = environ; *e && k < 70; e++)
		if (strncmp(*e, "RDMATRACE_", 10) != 0)
			envp[k++] = *e;
	envp[k++] = env;
	envp[k++] = "RDMATRACE_RING_KB=2048"; /* room for everything: any loss is a bug here */
	envp[k] = NULL;
	char *argv[] = {self, "traced", NULL};
	pid_t pid;
	return posix_spawn(&pid, self, NULL, NULL, argv, envp) == 0 ? pid : -1;
}

static void check_file(const char *path, pid_t pid, unsigned late)
{
	struct rt_trace_reader *r = rt_trace_reader_new();
	char err[256];
	CHECK_EQ_U(rt_trace_reader_add_file(r, path, err, sizeof(err)), 0);
	struct rt_trace_record rec;
	uint64_t next[COPIES][3] = {{0}}; /* by copy and QPN: 0, 1 the two threads, 2 late records */
	unsigned n[COPIES] = {0}, bad = 0, lost = 0;
	uint32_t tids[COPIES][3] = {{0}};
	while (rt_trace_reader_next(r, &rec) > 0) {
		if (rec.ev.kind == RT_EV_LOST) {
			lost++;
			continue;
		}
		if (rec.ev.kind != RT_EV_WR_POST)
			continue;
		unsigned c = (unsigned)(rec.ev.u.wr.wr_id >> 40), t = rec.ev.qpn;
		uint64_t i = rec.ev.u.wr.wr_id & 0xffffffffffull;
		if (c >= COPIES || t > 2 || i != next[c][t] || rec.ev.u.wr.length != (uint32_t)rec.ev.u.wr.wr_id ||
		    rec.pid != pid) {
			bad++;
			continue;
		}
		if (!tids[c][t])
			tids[c][t] = rec.ev.tid;
		if (tids[c][t] != rec.ev.tid)
			bad++;
		next[c][t]++;
		n[c]++;
	}
	CHECK_EQ_U(rt_trace_reader_damage_count(r), 0);
	rt_trace_reader_free(r);
	CHECK_EQ_U(n[0], 2 * N);
	for (int c = 1; c < COPIES; c++)
		CHECK_EQ_U(n[c], 2 * N + late);
	CHECK_EQ_U(bad, 0);
	CHECK_EQ_U(lost, 0);
	/* The same thread wrote through every copy. */
	CHECK(tids[0][0] == tids[1][0] && tids[1][0] == tids[2][0]);
}

static void test_shared_output_file(void)
{
	const char *path = tmp_path("copies.rtr");
	pid_t pid = spawn_traced("RDMATRACE_OUTPUT", path);
	CHECK(pid > 0);
	int status;
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	check_file(path, pid, LATE);
	char shm[128];
	snprintf(shm, sizeof(shm), "/dev/shm/rdmatrace-%u-%d", (unsigned)getuid(), (int)pid);
	CHECK(access(shm, F_OK) != 0);
}

static void test_external_collector(void)
{
	const char *path = tmp_path("copies-ext.rtr");
	struct rt_collector_options o = {.output = path, .ring_bytes = 2 << 20};
	struct rt_collector *c;
	char err[256];
	CHECK_EQ_U(rt_collector_create(&c, &o, err, sizeof(err)), 0);
	pid_t pid = spawn_traced("RDMATRACE_SHM", rt_collector_shm_name(c));
	CHECK(pid > 0);
	int status = -1;
	for (int i = 0; i < 4000; i++) {
		rt_collector_poll(c);
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		usleep(2000);
	}
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_EQ_U(rt_collector_finish(c), 0);
	rt_collector_destroy(c);
	check_file(path, pid, LATE);
}

int main(int argc, char **argv)
{
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	if (argc > 1 && strcmp(argv[1], "traced") == 0)
		return traced_main(build);
	RUN(test_shared_output_file);
	RUN(test_external_collector);
	tmp_cleanup();
	return test_done();
}

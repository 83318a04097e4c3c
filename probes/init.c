/*
 * Start-up of the probe inside the traced program.  The first RDMA call
 * (ibv_open_device, rdma_create_id ...) starts the tracer from the
 * environment `rdmatrace record` sets up (RDMATRACE_SHM ...), so processes
 * that never touch RDMA (shells, helpers) leave no trace; when that fails the probe prints ONE warning on stderr and every
 * wrapper and hook passes straight through, so the program runs untraced.
 * It also owns the per-thread re-entrancy guard, fork handling (the tracer
 * re-registers its rings in the child itself, the probe restarts its counter
 * sampler there) and the process's end: exit() and _exit() read the
 * counters a last time and note the status, and so does a handler of the C
 * library's exit (on_exit) for a return from main, which calls the
 * library's own exit, not the symbol the probe wraps.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "probe.h"

int rt_probe_active;
__thread int rt_probe_busy __attribute__((tls_model("initial-exec")));

static pthread_once_t rt_probe_once = PTHREAD_ONCE_INIT;

/* A return from main ends up here with its status (exit() and _exit()
 * have written the record already; the tracer writes one per process).
 * Registered at the first RDMA call, not in the constructor: the C library
 * runs exit handlers last registered first, and one registered before main
 * would run after the destructors, whose tracer handler writes the record
 * without the status. */
/* The counters' last reading comes before the end record (their last
 * records then hold their values at the exit), then the status. */
static void note_exit(int status)
{
	rt_probe_counters_stop();
	rt_tracer_note_exit(status);
}

static void probe_on_exit(int status, void *arg)
{
	(void)arg;
	if (rt_probe_active)
		note_exit(status);
}

static void probe_start(void)
{
	rt_probe_busy = 1;
	const char *shm = getenv("RDMATRACE_SHM"), *out = getenv("RDMATRACE_OUTPUT");
	bool configured = (shm && *shm) || (out && *out);
	if (rt_tracer_start_from_env()) {
		__atomic_store_n(&rt_probe_active, 1, __ATOMIC_RELEASE);
		on_exit(probe_on_exit, NULL);
	} else if (!configured)
		/* (when configured, the tracer itself said why it could not start) */
		fprintf(stderr, "rdmatrace probe: neither RDMATRACE_OUTPUT nor RDMATRACE_SHM is set; "
			"running untraced\n");
	rt_probe_busy = 0;
}

bool rt_probe_ensure_started(void)
{
	pthread_once(&rt_probe_once, probe_start);
	return rt_probe_active;
}

static void probe_child(void)
{
	rt_probe_fork_child();
	rt_probe_counters_after_fork();
}

__attribute__((constructor)) static void probe_init(void)
{
	pthread_atfork(rt_probe_fork_prepare, rt_probe_fork_parent, probe_child);
}

__attribute__((destructor)) static void probe_fini(void)
{
	rt_probe_counters_stop();
}

/*
 * exit() and _exit() record the status the program ends with (the tracer
 * writes the process's RT_EV_PROCESS_END record once): a forked child that
 * ends with _exit() skips every exit handler, and without this its trace
 * would look like the trace of a process that was killed.
 */
typedef void exit_fn(int);
RT_PROBE_REAL(exit_fn, exit)
RT_PROBE_REAL(exit_fn, _exit)

/* Note the status, then end through the C library's f (the kernel's exit_group without it). */
__attribute__((noreturn)) static void end_with(exit_fn *f, int status)
{
	if (rt_probe_active)
		note_exit(status);
	if (f)
		f(status);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

void exit(int status)
{
	end_with(real_exit(), status);
}

void _exit(int status)
{
	end_with(real__exit(), status);
}

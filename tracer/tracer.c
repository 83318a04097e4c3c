/*
 * The producer side of the tracer (include/rdmatrace/tracer.h): per-thread
 * rings in a shared-memory segment, the begin/commit fast path, start/stop
 * from options or the environment, the in-process collector thread, and the
 * flight-recorder triggers (error completion, fatal signal, exit).
 *
 * Several copies of this file may live in one process (statically linked
 * into different shared objects, each hiding its symbols).  Each copy has its
 * own globals and thread-local ring pointer, and they meet only in the
 * segment: each claims its own rings by CAS, and with RDMATRACE_OUTPUT the
 * first copy creates the per-process segment and runs the collector while
 * later copies attach to it (tracer/shm.h).
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "rdmatrace/collector.h"
#include "rdmatrace/tracer.h"
#include "rdmatrace/trace_writer.h"
#include "collector_internal.h"
#include "shm.h"

#define NO_RING_RETRY 64u    /* events between two attempts to find a ring */

/* -1: not configured yet (the first event reads the environment), 0: off, >0: epoch. */
_Atomic int rt_tracer_enabled = -1;

__thread struct rt_tls_state rt_tls_state __attribute__((tls_model("initial-exec")));
#define tls rt_tls_state

static struct {
	pthread_mutex_t lock;
	int epoch;
	bool env_done;
	bool atfork_done;
	struct rt_shm_map map;
	struct rt_shm_header *hdr;
	uint32_t mode;
	bool shm_mode;          /* attached to RDMATRACE_SHM (external collector) */
	bool in_process;        /* attached to the per-process segment of RDMATRACE_OUTPUT */
	char shm_file[160];     /* that segment's file (/dev/shm/NAME), for the fatal-signal handler */
	char output[4096];      /* RDMATRACE_OUTPUT as given (may hold %p) */
	char program[64];
	struct rt_tracer_options opts; /* as started, for a forked child with %p */
	bool restart_in_child;
	struct rt_collector *collector;
	pthread_t thread;
	_Atomic int stop_thread;
	_Atomic int clock_fd_plus1; /* the thread's timerfd + 1 (0: none), for a forked child to close */
	unsigned flush_ms;
	pthread_key_t key;
	bool key_ok;
	uint64_t cookie;
	bool trigger_on_error;
	bool signals_installed;
	struct sigaction old_act[NSIG];
	bool hooked[NSIG];
} g = {.lock = PTHREAD_MUTEX_INITIALIZER};

static uint32_t gettid_raw(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

static void set_err(char *errbuf, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_err(char *errbuf, size_t errlen, const char *fmt, ...)
{
	if (!errbuf || !errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(errbuf, errlen, fmt, ap);
	va_end(ap);
}

/* ---- rings ---------------------------------------------------------------- */

static void retire_ring(struct rt_shm_ring *r)
{
	uint32_t expect = RT_RING_OWNED;
	atomic_compare_exchange_strong(&r->state, &expect, RT_RING_RETIRED);
}

static void thread_exit(void *arg)
{
	struct rt_shm_ring *r = arg;
	if (r && tls.ring == r) {
		tls.dead = 1;
		tls.ring = NULL;
		tls.slots = NULL;
		tls.limit = 0;
		tls.pending = 1;
		retire_ring(r);
	}
}

static struct rt_shm_ring *ring_of(struct rt_tls_state *t)
{
	return t->ring;
}

/* The limit the inline path may run up to: 0 forces the slow path. */
static void set_limit(struct rt_tls_state *t, uint64_t real_limit)
{
	t->limit = t->pending ? 0 : real_limit;
}

static uint64_t real_limit(struct rt_tls_state *t)
{
	struct rt_shm_ring *r = ring_of(t);
	if (!r)
		return 0;
	if (g.mode == RT_MODE_FLIGHT_RECORDER)
		return UINT64_MAX;
	return atomic_load_explicit(&r->tail, memory_order_acquire) + t->mask + 1;
}

/* register_key: have the thread's exit retire the ring (pthread_setspecific,
 * which is not for a signal handler: see attach_in_handler). */
static bool claim_from(struct rt_shm_header *h, struct rt_shm_ring *r, uint32_t from, bool register_key)
{
	uint32_t expect = from;
	if (!atomic_compare_exchange_strong(&r->state, &expect, RT_RING_CLAIMING))
		return false;
	r->generation++;
	r->pid = getpid();
	r->tid = tls.tid;
	r->owner_cookie = g.cookie;
	uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
	if (from != RT_RING_FREE) /* flight recorder reusing a dead thread's ring */
		atomic_store_explicit(&r->tail, head, memory_order_relaxed);
	for (int c = 0; c < RT_LOST_CAUSES; c++)
		atomic_store_explicit(&r->lost[c], 0, memory_order_relaxed);
	atomic_store_explicit(&r->state, RT_RING_OWNED, memory_order_release);

	tls.ring = r;
	tls.slots = rt_shm_slots(r);
	tls.head_ptr = (uint64_t *)&r->head;
	tls.mask = h->ring_slots - 1;
	tls.head = head;
	tls.pending = 0;
	set_limit(&tls, real_limit(&tls));
	if (g.key_ok && register_key)
		pthread_setspecific(g.key, r);
	return true;
}

static bool claim_ring(struct rt_shm_header *h, bool register_key)
{
	for (uint32_t i = 0; i < h->ring_count; i++)
		if (atomic_load_explicit(&rt_shm_ring_at(h, i)->state, memory_order_relaxed) == RT_RING_FREE &&
		    claim_from(h, rt_shm_ring_at(h, i), RT_RING_FREE, register_key))
			return true;
	if (h->mode == RT_MODE_FLIGHT_RECORDER) {
		for (uint32_t i = 0; i < h->ring_count; i++)
			if (claim_from(h, rt_shm_ring_at(h, i), RT_RING_RETIRED, register_key))
				return true;
		return false;
	}
	/*
	 * Stream: a ring of one of our exited threads that the collector has
	 * already drained (tail == head, nothing left to report) need not wait
	 * for the collector to free it.
	 */
	for (uint32_t i = 0; i < h->ring_count; i++) {
		struct rt_shm_ring *r = rt_shm_ring_at(h, i);
		if (atomic_load_explicit(&r->state, memory_order_acquire) != RT_RING_RETIRED || r->pid != getpid() ||
		    atomic_load_explicit(&r->tail, memory_order_acquire) !=
			    atomic_load_explicit(&r->head, memory_order_acquire))
			continue;
		bool unreported = false;
		for (int c = 1; c < RT_LOST_CAUSES; c++)
			if (atomic_load_explicit(&r->lost[c], memory_order_acquire))
				unreported = true;
		if (!unreported && claim_from(h, r, RT_RING_RETIRED, register_key))
			return true;
	}
	return false;
}

/* Count one dropped event; it consumes a sequence number so the gap shows. */
static void drop(struct rt_tls_state *t, unsigned cause)
{
	struct rt_shm_ring *r = ring_of(t);
	t->seq++;
	if (!r) {
		struct rt_shm_header *h = g.hdr;
		if (h)
			atomic_fetch_add_explicit(&h->lost_no_ring, 1, memory_order_relaxed);
		return;
	}
	bool first = true;
	for (int c = 1; c < RT_LOST_CAUSES; c++)
		if (atomic_load_explicit(&r->lost[c], memory_order_relaxed))
			first = false;
	if (first)
		atomic_store_explicit(&r->lost_first_seq, t->seq - 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&r->lost[cause], 1, memory_order_relaxed);
	t->pending = 1;
	t->limit = 0;
}

static void publish(struct rt_tls_state *t)
{
	__atomic_store_n(t->head_ptr, ++t->head, __ATOMIC_RELEASE);
}

/* Write LOST records for the drops counted so far, while the ring has room for them and one more event. */
static void report_lost(struct rt_tls_state *t, uint64_t limit)
{
	struct rt_shm_ring *r = ring_of(t);
	bool left = false;
	for (unsigned c = 1; c < RT_LOST_CAUSES; c++) {
		if (!atomic_load_explicit(&r->lost[c], memory_order_relaxed))
			continue;
		if (t->head + 1 >= limit) {
			left = true;
			continue;
		}
		uint32_t first = atomic_load_explicit(&r->lost_first_seq, memory_order_relaxed);
		uint64_t n = atomic_exchange_explicit(&r->lost[c], 0, memory_order_acq_rel);
		if (!n)
			continue;
		struct rt_event *ev = rt_event_take_slot(t, RT_EV_LOST, 0);
		ev->u.lost.count = n;
		ev->u.lost.first_seq = first;
		ev->u.lost.cause = (uint8_t)c;
		publish(t);
	}
	t->pending = left;
}

/* This thread's state for session e on segment h (NULL: none), with a ring
 * when one is free (register_key: as claim_from); true when it has one. */
static bool attach_to(struct rt_tls_state *t, int e, struct rt_shm_header *h, bool register_key)
{
	int dead = t->dead;
	memset(t, 0, sizeof(*t));
	t->dead = dead;
	t->tid = gettid_raw();
	t->pending = 1; /* until a ring is found */
	bool ok = false;
	if (h) {
		t->source = h->calib.source;
		if (!dead)
			ok = claim_ring(h, register_key);
	}
	t->epoch = e;
	return ok;
}

/* First event of this thread in this tracing session: find a ring. */
static void attach_thread(struct rt_tls_state *t, int e)
{
	pthread_mutex_lock(&g.lock);
	struct rt_shm_header *h = rt_tracer_enabled == e ? g.hdr : NULL;
	pthread_mutex_unlock(&g.lock);
	attach_to(t, e, h, true);
}

/*
 * Everything the inline rt_event_begin() does not handle: first event of a
 * thread or session, the environment not read yet, a nested event, a full
 * ring, drops to report, no ring.
 */
struct rt_event *rt_event_begin_slow(uint16_t kind, uint32_t qpn)
{
	if (rt_tracer_enabled < 0)
		rt_tracer_start_from_env();
	int e = rt_tracer_enabled;
	if (e <= 0)
		return NULL;
	struct rt_tls_state *t = &tls;
	if (t->epoch != e)
		attach_thread(t, e);
	if (t->busy) {
		/* A signal handler interrupted an event of this same thread. */
		drop(t, RT_LOST_NESTED);
		return NULL;
	}
	t->busy = 1;
	__asm__ volatile("" ::: "memory");
	if (!ring_of(t)) {
		struct rt_shm_header *h = g.hdr;
		if (t->dead || !h || ++t->no_ring_count % NO_RING_RETRY != 1 || !claim_ring(h, true)) {
			drop(t, RT_LOST_NO_RING);
			goto out;
		}
	}
	uint64_t limit = real_limit(t);
	if (t->pending)
		report_lost(t, limit);
	if (t->head >= limit) {
		drop(t, RT_LOST_RING_FULL);
		goto out;
	}
	set_limit(t, limit);
	return rt_event_take_slot(t, kind, qpn); /* busy stays set until commit */
out:
	__asm__ volatile("" ::: "memory");
	t->busy = 0;
	return NULL;
}

struct rt_event *rt_event_begin_fast(uint16_t kind, uint32_t qpn)
{
	return rt_event_begin(kind, qpn);
}

void rt_event_commit_slot(struct rt_event *ev)
{
	rt_event_commit(ev);
}

void rt_event_commit_error(struct rt_event *ev)
{
	(void)ev;
	struct rt_shm_header *h = g.hdr;
	if (h && g.trigger_on_error)
		rt_shm_trigger(h, "error completion");
}

/* ---- collector thread --------------------------------------------------------- */

/*
 * A timerfd that becomes readable when the wall clock is set (-1: none).
 * Its absolute expiry never comes (the year 2200; 2038 with a 32-bit
 * time_t); what matters is the cancel.  The program may close all its
 * descriptors and reuse the number: before the thread re-arms or closes it,
 * clock_set_fd_ours() checks that it is still this timer (one with that far
 * expiry), and else leaves it alone.
 */
static const struct itimerspec clock_set_far = {
	.it_value = {.tv_sec = (time_t)(sizeof(time_t) > 4 ? 7258118400LL : INT32_MAX)}};

static int clock_set_fd_open(void)
{
	int fd = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC | TFD_NONBLOCK);
	if (fd < 0)
		return -1;
	if (timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &clock_set_far, NULL) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static bool clock_set_fd_ours(int fd)
{
	struct itimerspec cur;
	return fd >= 0 && timerfd_gettime(fd, &cur) == 0 && cur.it_value.tv_sec > 5 * 365 * 86400;
}

/* Wait up to 1 ms; true when the wall clock was set meanwhile.  Re-arming
 * the timer clears its readiness (no read needed); a descriptor that is no
 * longer the timer is given up (*fd = -1). */
static bool wait_1ms(int *fd)
{
	if (*fd < 0) {
		struct timespec ts = {0, 1000000L};
		nanosleep(&ts, NULL);
		return false;
	}
	struct pollfd pfd = {.fd = *fd, .events = POLLIN};
	if (poll(&pfd, 1, 1) <= 0)
		return false;
	if (!(pfd.revents & POLLIN) || !clock_set_fd_ours(*fd) ||
	    timerfd_settime(*fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &clock_set_far, NULL) < 0) {
		*fd = -1;
		atomic_store(&g.clock_fd_plus1, 0);
		return false;
	}
	return true;
}

static void *collector_main(void *arg)
{
	struct rt_collector *c = arg;
	struct rt_shm_header *h = g.map.hdr; /* set before the thread starts */
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL); /* signals are the application's business */
	/* a wall clock set while the program runs (NTP's first sync, `date -s`)
	 * wakes the thread, so the trace has clock points on both sides of it */
	int clock_fd = clock_set_fd_open();
	atomic_store(&g.clock_fd_plus1, clock_fd + 1);
	while (!atomic_load(&g.stop_thread) && !atomic_load(&h->finish_request)) {
		int n = rt_collector_poll(c);
		if (n > 0 && (uint32_t)n >= h->ring_slots / 4) {
			sched_yield(); /* rings are filling fast: come straight back */
			continue;
		}
		for (unsigned waited = 0; waited < g.flush_ms && !atomic_load(&g.stop_thread); waited++) {
			/* wake early for triggers, so a crashing thread waits little */
			if (atomic_load_explicit(&h->trigger_seq, memory_order_acquire) !=
			    atomic_load_explicit(&h->snapshot_done, memory_order_acquire))
				break;
			if (wait_1ms(&clock_fd)) {
				rt_collector_clock_set(c);
				break;
			}
		}
	}
	atomic_store(&g.clock_fd_plus1, 0);
	if (clock_set_fd_ours(clock_fd))
		close(clock_fd);
	if (atomic_load(&h->finish_request)) {
		/* This copy stopped earlier, others later: the last one to stop asked for the end. */
		rt_collector_finish(c);
		rt_collector_destroy(c);
		atomic_store(&h->finished, 1);
	}
	return NULL;
}

/* ---- fatal signals --------------------------------------------------------------- */

/*
 * A fatal signal in a thread that never recorded anything (a worker of the
 * program's own that crashed): it has no ring, and the usual attach takes
 * the tracer's lock and registers the thread's exit handler, neither of
 * which a signal handler may do.  It takes a free ring here with the
 * claim's compare-and-swap alone (the thread will not exit normally, so no
 * exit handler need retire it); false when none is free.
 */
static bool attach_in_handler(struct rt_tls_state *t, int e)
{
	struct rt_shm_header *h = g.hdr;
	return h && !t->dead && attach_to(t, e, h, false);
}

/*
 * The process's last record (RT_EV_PROCESS_END), written by the thread that
 * ends it.  From the fatal-signal handler only when that thread was not
 * between begin and commit (the slot it was filling would be overwritten);
 * a thread without a ring takes one (attach_in_handler).
 */
static void note_end(uint8_t how, int sig, const siginfo_t *si, const int *status)
{
	static _Atomic int32_t written_by; /* the process that wrote its end record already */
	int e = atomic_load_explicit(&rt_tracer_enabled, memory_order_relaxed);
	struct rt_tls_state *t = &tls;
	if (e <= 0 || (how == RT_END_SIGNAL && t->epoch == e && t->busy))
		return;
	if (how == RT_END_SIGNAL && (t->epoch != e || !t->slots) && !attach_in_handler(t, e))
		return;
	/* not from a vfork() child, which shares this thread's memory and ring */
	if (t->epoch == e && t->tid != gettid_raw())
		return;
	int32_t me = getpid();
	if (atomic_exchange(&written_by, me) == me)
		return;
	struct rt_event *ev = rt_event_begin(RT_EV_PROCESS_END, 0);
	if (!ev)
		return;
	ev->u.process_end.pid = me;
	ev->u.process_end.how = how;
	if (status) {
		ev->u.process_end.code = *status;
		ev->u.process_end.has_code = 1;
	}
	ev->u.process_end.signal = (uint8_t)sig;
	if (si) {
		ev->u.process_end.code = si->si_code;
		/* the kernel's fault (si_code > 0) has an address; kill() and raise() do not */
		if (si->si_code > 0 && (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE))
			ev->u.process_end.addr = (uint64_t)(uintptr_t)si->si_addr;
	}
	ev->flags |= sig ? RT_EVF_ERROR : 0;
	rt_event_commit(ev);
}

static void on_fatal_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	int saved = errno;
	struct rt_shm_header *h = g.hdr;
	/* Every signal we hook ends the process by default; one the program
	 * handles itself may not, so only then is this the end. */
	if (h && sig > 0 && sig < NSIG && g.hooked[sig] && !(g.old_act[sig].sa_flags & SA_SIGINFO) &&
	    g.old_act[sig].sa_handler == SIG_DFL)
		note_end(RT_END_SIGNAL, sig, si, NULL);
	if (h) {
		char reason[32] = "signal ";
		const char *d = "0123456789";
		int n = 7;
		if (sig >= 10)
			reason[n++] = d[sig / 10];
		reason[n++] = d[sig % 10];
		reason[n] = '\0';
		uint64_t seq = rt_shm_trigger(h, reason);
		/* Once our own collector has written the snapshot, everything recorded
		 * is in the trace file: the process's segment would only stay behind
		 * in /dev/shm (unlink is async-signal-safe, shm_unlink is not listed). */
		if (rt_shm_wait_snapshot(h, seq, 2000) == 0 && g.in_process && !g.shm_mode && g.shm_file[0] &&
		    atomic_load(&h->collector_pid) == (int32_t)getpid())
			unlink(g.shm_file);
	}
	/* Put the previous disposition back and let the signal do what it would have. */
	if (sig > 0 && sig < NSIG && g.hooked[sig]) {
		sigaction(sig, &g.old_act[sig], NULL);
		g.hooked[sig] = false;
	}
	errno = saved;
	if (si == NULL || si->si_code <= 0 || sig == SIGABRT)
		raise(sig);
	/* A synchronous fault re-executes the faulting instruction under the old handler. */
}

static const struct {
	const char *name;
	int sig;
} sig_names[] = {
	{"SEGV", SIGSEGV}, {"BUS", SIGBUS}, {"ILL", SIGILL}, {"FPE", SIGFPE}, {"ABRT", SIGABRT},
	{"TERM", SIGTERM}, {"INT", SIGINT}, {"QUIT", SIGQUIT}, {"HUP", SIGHUP}, {"USR1", SIGUSR1},
	{"USR2", SIGUSR2}, {"TRAP", SIGTRAP}, {"SYS", SIGSYS},
};

static void install_signals(void)
{
	const char *list = getenv("RDMATRACE_SIGNALS");
	if (!list)
		list = "SEGV,BUS,ILL,FPE,ABRT";
	if (strcasecmp(list, "none") == 0 || !*list)
		return;
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", list);
	char *save = NULL;
	for (char *tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		if (strncasecmp(tok, "SIG", 3) == 0)
			tok += 3;
		for (size_t i = 0; i < sizeof(sig_names) / sizeof(sig_names[0]); i++) {
			int sig = sig_names[i].sig;
			if (strcasecmp(tok, sig_names[i].name) != 0 || g.hooked[sig])
				continue;
			struct sigaction sa;
			memset(&sa, 0, sizeof(sa));
			sa.sa_sigaction = on_fatal_signal;
			sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
			sigemptyset(&sa.sa_mask);
			if (sigaction(sig, &sa, &g.old_act[sig]) == 0)
				g.hooked[sig] = true;
		}
	}
	g.signals_installed = true;
}

static void restore_signals(void)
{
	for (int sig = 1; sig < NSIG; sig++)
		if (g.hooked[sig]) {
			struct sigaction cur;
			/* Only undo our own handler; someone may have installed theirs on top. */
			if (sigaction(sig, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
			    cur.sa_sigaction == on_fatal_signal)
				sigaction(sig, &g.old_act[sig], NULL);
			g.hooked[sig] = false;
		}
	g.signals_installed = false;
}

/* ---- start / stop ------------------------------------------------------------- */

static void atfork_prepare(void)
{
	pthread_mutex_lock(&g.lock);
}

static void atfork_parent(void)
{
	pthread_mutex_unlock(&g.lock);
}

static void atfork_child(void)
{
	pthread_mutex_unlock(&g.lock);
	/* Our thread's ring belongs to the parent: never write into it again. */
	memset(&tls, 0, sizeof(tls));
	/* nor does the collector thread's timerfd come along (the thread stayed) */
	int clock_fd = atomic_exchange(&g.clock_fd_plus1, 0) - 1;
	if (clock_set_fd_ours(clock_fd))
		close(clock_fd);
	if (rt_tracer_enabled <= 0)
		return;
	if (g.shm_mode && g.hdr) {
		/* Same external collector: the child claims rings of its own. */
		char prog[64];
		rt_process_name(getpid(), prog, sizeof(prog));
		rt_shm_register_proc(g.hdr, getpid(), rt_process_start_time(getpid()), prog);
		rt_tracer_enabled = ++g.epoch;
		return;
	}
	/* The collector thread stayed in the parent.  %p in the file name gives the child its own trace. */
	g.collector = NULL;
	g.hdr = NULL;
	g.in_process = false;
	/* Handlers stay installed (inherited) and keep the dispositions they restore. */
	if (strstr(g.output, "%p")) {
		/* Restarted lazily by the child's first event, outside this handler. */
		g.env_done = false;
		g.restart_in_child = true;
		rt_tracer_enabled = -1;
	} else {
		rt_tracer_enabled = 0;
	}
}

static void expand_output(const char *in, char *out, size_t len)
{
	size_t o = 0;
	for (const char *p = in; *p && o + 1 < len; p++) {
		if (p[0] == '%' && p[1] == 'p') {
			o += (size_t)snprintf(out + o, len - o, "%d", (int)getpid());
			if (o >= len)
				o = len - 1;
			p++;
		} else {
			out[o++] = *p;
		}
	}
	out[o] = '\0';
}

/* The per-process segment used with RDMATRACE_OUTPUT: create it, or join the copy that did. */
static int open_process_segment(const struct rt_tracer_options *o, bool *created, char *errbuf, size_t errlen)
{
	char name[128];
	snprintf(name, sizeof(name), RT_SHM_PREFIX "%u-%d", (unsigned)getuid(), (int)getpid());
	uint64_t me_start = rt_process_start_time(getpid());
	for (int attempt = 0; attempt < 3; attempt++) {
		int rc = rt_shm_create(&g.map, name, o->mode, o->ring_bytes, o->max_threads,
				       rt_clock_default_source(), errbuf, errlen);
		if (rc == 0) {
			*created = true;
			return 0;
		}
		if (rc != -EEXIST)
			return rc;
		rc = rt_shm_attach(&g.map, name, 1, NULL, 0);
		if (rc == 0 && g.map.hdr->creator_pid == getpid() && g.map.hdr->creator_start_time == me_start) {
			*created = false; /* another tracer copy in this process made it */
			return 0;
		}
		/* Left behind by a dead process that had our pid: its data goes, the name is ours. */
		if (rc == 0)
			rt_shm_detach(&g.map);
		shm_unlink(name);
	}
	set_err(errbuf, errlen, "cannot create shared memory %s", name);
	return -EEXIST;
}

/*
 * exit() or a return from main, in any thread, with our own collector
 * thread writing the trace file (RDMATRACE_OUTPUT): everything recorded so
 * far goes into the file now, while that thread still runs (in
 * flight-recorder mode, the exit snapshot of the rings).
 * The destructors would write it too, but another thread's exit() may end
 * the process first (the C library runs each exit handler once: a second
 * caller that finds none left calls _exit at once).  Registered after the
 * collector started, so it runs before the handlers registered earlier and
 * before the destructors; the probe's own handler, registered later, writes
 * the end record and the counters' last reading before it.
 */
static void flush_at_exit(int status, void *arg)
{
	(void)status;
	(void)arg;
	struct rt_shm_header *h = g.hdr; /* read as the fatal-signal handler does: no lock on the way out */
	if (atomic_load_explicit(&rt_tracer_enabled, memory_order_relaxed) <= 0 || !h || !g.in_process ||
	    atomic_load(&h->collector_pid) != (int32_t)getpid())
		return;
	/* (The segment keeps its name: when the process now ends before the
	 * destructors, what other threads record after this is still there for
	 * `rdmatrace salvage`, which `rdmatrace record` runs by itself.) */
	rt_shm_wait_snapshot(h, rt_shm_trigger(h, "exit"), 2000);
}

static int start_locked(const struct rt_tracer_options *o, char *errbuf, size_t errlen)
{
	if (rt_tracer_enabled > 0) {
		set_err(errbuf, errlen, "tracing is already started");
		return -EALREADY;
	}
	if (!o || (!o->output && !o->shm_path)) {
		set_err(errbuf, errlen, "neither an output file nor a shared-memory segment was given");
		return -EINVAL;
	}
	if (o->mode != RT_MODE_STREAM && o->mode != RT_MODE_FLIGHT_RECORDER) {
		set_err(errbuf, errlen, "unknown tracer mode %d", (int)o->mode);
		return -EINVAL;
	}
	if (!g.atfork_done) {
		pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
		g.atfork_done = true;
	}
	if (!g.key_ok)
		g.key_ok = pthread_key_create(&g.key, thread_exit) == 0;
	g.cookie = ((uint64_t)(uintptr_t)&g) ^ ((uint64_t)getpid() << 40);
	g.collector = NULL;
	g.in_process = false;
	g.shm_mode = o->shm_path != NULL;
	int rc;
	if (g.shm_mode) {
		rc = rt_shm_attach(&g.map, o->shm_path, 1, errbuf, errlen);
		if (rc < 0)
			return rc;
	} else {
		bool created = false;
		if (o != &g.opts) { /* a forked child restarts from the copy itself */
			snprintf(g.output, sizeof(g.output), "%s", o->output);
			snprintf(g.program, sizeof(g.program), "%s", o->program ? o->program : "");
			g.opts = *o;
			g.opts.output = g.output;
			g.opts.program = o->program ? g.program : NULL;
		}
		rc = open_process_segment(o, &created, errbuf, errlen);
		if (rc < 0)
			return rc;
		g.in_process = true;
		snprintf(g.shm_file, sizeof(g.shm_file), "/dev/shm%s", g.map.name);
		atomic_fetch_add(&g.map.hdr->copies, 1);
		if (created) {
			/* Our code runs the collector thread: never let a dlclose unmap it. */
			Dl_info di;
			if (dladdr((void *)&g, &di) && di.dli_fname)
				dlopen(di.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
			const char *et = getenv("RDMATRACE_ERROR_TRIGGER");
			g.map.hdr->trigger_on_error = o->mode == RT_MODE_FLIGHT_RECORDER && !(et && strcmp(et, "0") == 0);
			char path[4096];
			expand_output(o->output, path, sizeof(path));
			char prog[64];
			snprintf(prog, sizeof(prog), "%s", o->program ? o->program : "");
			if (!o->program)
				rt_process_name(getpid(), prog, sizeof(prog));
			rt_shm_register_proc(g.map.hdr, getpid(), rt_process_start_time(getpid()), prog);
			rc = rt_collector_adopt(&g.collector, &g.map, path, errbuf, errlen);
			if (rc < 0) {
				shm_unlink(g.map.name);
				rt_shm_detach(&g.map);
				return rc;
			}
			atomic_store(&g.stop_thread, 0);
			const char *fm = getenv("RDMATRACE_FLUSH_MS");
			g.flush_ms = fm && atoi(fm) > 0 ? (unsigned)atoi(fm) : 10;
			if (pthread_create(&g.thread, NULL, collector_main, g.collector) != 0) {
				rt_collector_destroy(g.collector);
				g.collector = NULL;
				rt_shm_detach(&g.map);
				set_err(errbuf, errlen, "cannot start the collector thread");
				return -EAGAIN;
			}
			static bool exit_flush_registered; /* once per process image (a fork child inherits it) */
			if (!exit_flush_registered)
				exit_flush_registered = on_exit(flush_at_exit, NULL) == 0;
		}
	}
	g.hdr = g.map.hdr;
	g.mode = g.hdr->mode;
	g.trigger_on_error = g.hdr->trigger_on_error;
	char prog[64];
	snprintf(prog, sizeof(prog), "%s", o->program ? o->program : "");
	if (!o->program)
		rt_process_name(getpid(), prog, sizeof(prog));
	rt_shm_register_proc(g.hdr, getpid(), rt_process_start_time(getpid()), prog);
	install_signals(); /* both modes: the end record, and the rings written before the program dies */
	int e = ++g.epoch;
	if (e <= 0)
		e = g.epoch = 1;
	rt_tracer_enabled = e;
	return 0;
}

int rt_tracer_start(const struct rt_tracer_options *opts, char *errbuf, size_t errlen)
{
	pthread_mutex_lock(&g.lock);
	g.env_done = true;
	int rc = start_locked(opts, errbuf, errlen);
	if (rc < 0 && rt_tracer_enabled < 0)
		rt_tracer_enabled = 0;
	pthread_mutex_unlock(&g.lock);
	return rc;
}

bool rt_tracer_start_from_env(void)
{
	if (rt_tracer_enabled >= 0)
		return rt_tracer_enabled > 0;
	pthread_mutex_lock(&g.lock);
	if (g.env_done) {
		pthread_mutex_unlock(&g.lock);
		return rt_tracer_enabled > 0;
	}
	g.env_done = true;
	char err[512] = "";
	int rc = 0;
	if (g.restart_in_child) {
		/* A forked child of a process tracing to a %p file: the same options, its own file. */
		g.restart_in_child = false;
		rc = start_locked(&g.opts, err, sizeof(err));
		if (rc < 0)
			rt_tracer_enabled = 0;
		pthread_mutex_unlock(&g.lock);
		return rt_tracer_enabled > 0;
	}
	struct rt_tracer_options o;
	memset(&o, 0, sizeof(o));
	o.shm_path = getenv("RDMATRACE_SHM");
	o.output = getenv("RDMATRACE_OUTPUT");
	if (o.shm_path && !*o.shm_path)
		o.shm_path = NULL;
	if (o.output && !*o.output)
		o.output = NULL;
	if (o.shm_path)
		o.output = NULL; /* the external collector decides where the trace goes */
	const char *mode = getenv("RDMATRACE_MODE");
	const char *kb = getenv("RDMATRACE_RING_KB");
	const char *thr = getenv("RDMATRACE_MAX_THREADS");
	const char *prog = getenv("RDMATRACE_PROGRAM");
	if (!o.shm_path && !o.output) {
		rt_tracer_enabled = 0;
		goto out;
	}
	if (mode && (strcasecmp(mode, "flight") == 0 || strcasecmp(mode, "flight-recorder") == 0))
		o.mode = RT_MODE_FLIGHT_RECORDER;
	else if (mode && *mode && strcasecmp(mode, "stream") != 0) {
		snprintf(err, sizeof(err), "RDMATRACE_MODE must be stream or flight, not '%s'", mode);
		rc = -EINVAL;
	}
	if (kb && *kb) {
		char *end;
		unsigned long v = strtoul(kb, &end, 10);
		if (*end || v < 4 || v > 1024 * 1024) {
			snprintf(err, sizeof(err), "RDMATRACE_RING_KB must be 4..1048576, not '%s'", kb);
			rc = -EINVAL;
		}
		o.ring_bytes = v * 1024;
	}
	if (thr && *thr)
		o.max_threads = (unsigned)strtoul(thr, NULL, 10);
	if (prog && *prog)
		o.program = prog;
	if (rc == 0)
		rc = start_locked(&o, err, sizeof(err));
	if (rc < 0) {
		/* Once, at start-up, never on the event path: the user asked for a trace and gets none. */
		fprintf(stderr, "rdmatrace: tracing disabled: %s\n", err);
		rt_tracer_enabled = 0;
	}
out:
	pthread_mutex_unlock(&g.lock);
	return rt_tracer_enabled > 0;
}

void rt_tracer_stop(void)
{
	pthread_mutex_lock(&g.lock);
	g.env_done = true;
	if (rt_tracer_enabled <= 0) {
		rt_tracer_enabled = 0;
		pthread_mutex_unlock(&g.lock);
		return;
	}
	rt_tracer_enabled = 0;
	struct rt_shm_header *h = g.hdr;
	/* Every ring this copy of the tracer handed out, in any thread, is done. */
	for (uint32_t i = 0; h && i < h->ring_count; i++) {
		struct rt_shm_ring *r = rt_shm_ring_at(h, i);
		if (r->pid == getpid() && r->owner_cookie == g.cookie)
			retire_ring(r);
	}
	if (g.signals_installed)
		restore_signals();
	uint32_t left = h && g.in_process ? atomic_fetch_sub(&h->copies, 1) - 1 : 0;
	if (g.collector && left == 0) {
		atomic_store(&g.stop_thread, 1);
		pthread_join(g.thread, NULL);
		rt_collector_finish(g.collector);
		rt_collector_destroy(g.collector); /* unlinks the per-process segment */
	} else if (g.collector) {
		/* Other copies in this process still trace: the collector runs on until the last one stops. */
		pthread_detach(g.thread);
	} else if (g.in_process && left == 0 && atomic_load(&h->collector_pid) == getpid()) {
		/* The last copy to stop: have the creator's collector thread write everything and finish. */
		atomic_store(&h->finish_request, 1);
		for (int i = 0; i < 5000 && !atomic_load(&h->finished); i++)
			nanosleep(&(struct timespec){0, 1000000}, NULL);
	}
	g.collector = NULL;
	g.in_process = false;
	/*
	 * The mapping stays: a thread may still be between begin and commit.
	 * A later start maps a new segment.
	 */
	g.hdr = NULL;
	pthread_mutex_unlock(&g.lock);
}

int rt_tracer_snapshot(const char *reason)
{
	pthread_mutex_lock(&g.lock);
	struct rt_shm_header *h = rt_tracer_enabled > 0 ? g.hdr : NULL;
	pthread_mutex_unlock(&g.lock);
	if (!h)
		return -ENOTCONN;
	uint64_t seq = rt_shm_trigger(h, reason ? reason : "rt_tracer_snapshot");
	return rt_shm_wait_snapshot(h, seq, 5000);
}

__attribute__((destructor)) static void tracer_at_exit(void)
{
	if (rt_tracer_enabled > 0) {
		note_end(RT_END_EXIT, 0, NULL, NULL);
		rt_tracer_stop();
	}
}

void rt_tracer_note_exit(int status)
{
	note_end(RT_END_EXIT, 0, NULL, &status);
}

/* ---- convenience emitters ------------------------------------------------------ */

void rt_trace_marker(const char *fmt, ...)
{
	struct rt_event *ev = rt_event_begin(RT_EV_MARKER, 0);
	if (!ev)
		return;
	char buf[sizeof(ev->u.marker.text) + 1];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	memcpy(ev->u.marker.text, buf, strnlen(buf, sizeof(ev->u.marker.text)));
	rt_event_commit(ev);
}

void rt_trace_warning(uint32_t code, const char *fmt, ...)
{
	struct rt_event *ev = rt_event_begin(RT_EV_WARNING, 0);
	if (!ev)
		return;
	char buf[sizeof(ev->u.warning.text) + 1];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	ev->u.warning.code = code;
	memcpy(ev->u.warning.text, buf, strnlen(buf, sizeof(ev->u.warning.text)));
	rt_event_commit(ev);
}

void rt_trace_counter(const char *name, uint8_t port, uint64_t value)
{
	struct rt_event *ev = rt_event_begin(RT_EV_COUNTER, 0);
	if (!ev)
		return;
	ev->u.counter.value = value;
	ev->u.counter.port = port;
	if (name)
		memcpy(ev->u.counter.name, name, strnlen(name, sizeof(ev->u.counter.name)));
	rt_event_commit(ev);
}

/*
 * An in-memory tracer for the probe's unit tests and the null-provider
 * benchmark: rt_event_begin/commit append to one array the test inspects
 * (fake_events, fake_nevents), so the hook layer can be checked without
 * shared memory, a collector or a trace file.  It defines every tracer
 * symbol the probe uses, so the real tracer in librdmatrace.a is never
 * pulled into these programs.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fake_tracer.h"

_Atomic int rt_tracer_enabled = 1;
struct rt_event fake_events[FAKE_MAX_EVENTS];
unsigned fake_nevents;
static struct rt_event fake_scratch;
static uint32_t fake_seq;
static pthread_mutex_t fake_lock = PTHREAD_MUTEX_INITIALIZER;
int fake_keep = 1;

int rt_tracer_start(const struct rt_tracer_options *opts, char *errbuf, size_t errlen)
{
	(void)opts;
	(void)errbuf;
	(void)errlen;
	return 0;
}

bool rt_tracer_start_from_env(void)
{
	return true;
}

void rt_tracer_stop(void)
{
}

/* The probe's exit() / _exit() wrappers call it; the hook tests never exit through it. */
void rt_tracer_note_exit(int status)
{
	(void)status;
}

struct rt_event *rt_event_begin_fast(uint16_t kind, uint32_t qpn)
{
	struct rt_event *ev;
	if (!fake_keep) {
		ev = &fake_scratch; /* benchmark: cost of filling a slot, nothing kept */
	} else {
		pthread_mutex_lock(&fake_lock);
		if (fake_nevents >= FAKE_MAX_EVENTS) {
			pthread_mutex_unlock(&fake_lock);
			return NULL;
		}
		ev = &fake_events[fake_nevents++];
		memset(ev, 0, sizeof(*ev));
		ev->kind = kind;
		ev->qpn = qpn;
		ev->seq = fake_seq++;
		pthread_mutex_unlock(&fake_lock);
		return ev;
	}
	memset(ev, 0, sizeof(*ev));
	ev->kind = kind;
	ev->qpn = qpn;
	return ev;
}

unsigned fake_total(void)
{
	pthread_mutex_lock(&fake_lock);
	unsigned n = fake_nevents;
	pthread_mutex_unlock(&fake_lock);
	return n;
}

/*
 * The inline fast path of tracer.h works on this thread-local state.  Its
 * epoch never matches rt_tracer_enabled, so every rt_event_begin() takes
 * the slow path into this file; the inline rt_event_commit() then only
 * bumps a scratch head and clears busy.
 */
__thread struct rt_tls_state rt_tls_state __attribute__((tls_model("initial-exec")));
static __thread uint64_t fake_head;

struct rt_event *rt_event_begin_slow(uint16_t kind, uint32_t qpn)
{
	rt_tls_state.head_ptr = &fake_head;
	rt_tls_state.epoch = -1;
	return rt_event_begin_fast(kind, qpn);
}

void rt_event_commit_slot(struct rt_event *ev)
{
	(void)ev;
}

void rt_event_commit_error(struct rt_event *ev)
{
	(void)ev;
}

void rt_trace_warning(uint32_t code, const char *fmt, ...)
{
	struct rt_event *ev = rt_event_begin_fast(RT_EV_WARNING, 0);
	if (!ev)
		return;
	va_list ap;
	va_start(ap, fmt);
	ev->u.warning.code = code;
	vsnprintf(ev->u.warning.text, sizeof(ev->u.warning.text), fmt, ap);
	va_end(ap);
}

void rt_trace_marker(const char *fmt, ...)
{
	(void)fmt;
}

void rt_trace_counter(const char *name, uint8_t port, uint64_t value)
{
	(void)name;
	(void)port;
	(void)value;
}

int rt_tracer_snapshot(const char *reason)
{
	(void)reason;
	return 0;
}

void fake_reset(void)
{
	pthread_mutex_lock(&fake_lock);
	fake_nevents = 0;
	pthread_mutex_unlock(&fake_lock);
}

const struct rt_event *fake_find(uint16_t kind, unsigned nth)
{
	for (unsigned i = 0; i < fake_nevents; i++)
		if (fake_events[i].kind == kind && nth-- == 0)
			return &fake_events[i];
	return NULL;
}

unsigned fake_count(uint16_t kind)
{
	unsigned n = 0;
	for (unsigned i = 0; i < fake_nevents; i++)
		n += fake_events[i].kind == kind;
	return n;
}

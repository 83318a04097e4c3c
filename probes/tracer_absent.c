/*
 * Link-time stand-in used only while librdmatrace.a has no tracer yet: it is
 * put in an archive AFTER librdmatrace.a on the probe's link line, so the
 * linker takes these definitions only for tracer symbols the library does
 * not provide.  Tracing is then reported as unavailable (the probe prints
 * its one warning and the program runs untraced); nothing is faked.
 */
#include <errno.h>

#include "rdmatrace/tracer.h"

volatile int rt_tracer_enabled;

int rt_tracer_start(const struct rt_tracer_options *opts, char *errbuf, size_t errlen)
{
	(void)opts;
	if (errbuf && errlen)
		errbuf[0] = '\0';
	return -ENOSYS;
}

bool rt_tracer_start_from_env(void)
{
	return false;
}

void rt_tracer_stop(void)
{
}

struct rt_event *rt_event_begin_fast(uint16_t kind, uint32_t qpn)
{
	(void)kind;
	(void)qpn;
	return NULL;
}

void rt_event_commit_slot(struct rt_event *ev)
{
	(void)ev;
}

void rt_trace_warning(uint32_t code, const char *fmt, ...)
{
	(void)code;
	(void)fmt;
}

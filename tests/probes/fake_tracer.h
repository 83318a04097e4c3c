/* The in-memory tracer of tests/probes/fake_tracer.c (see there). */
#ifndef RDMATRACE_TEST_FAKE_TRACER_H
#define RDMATRACE_TEST_FAKE_TRACER_H

#include <pthread.h>

#include "rdmatrace/tracer.h"

#define FAKE_MAX_EVENTS 65536

extern struct rt_event fake_events[FAKE_MAX_EVENTS];
extern unsigned fake_nevents;
extern int fake_keep;   /* 0: events go to one scratch slot (benchmarks) */

void fake_reset(void);
/* Events recorded so far, read under the lock (safe while other threads record). */
unsigned fake_total(void);
/* The nth (from 0) event of that kind, or NULL. */
const struct rt_event *fake_find(uint16_t kind, unsigned nth);
unsigned fake_count(uint16_t kind);

#endif

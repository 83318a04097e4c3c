/*
 * Event channels: a queue of rdma_cm_events and an eventfd in semaphore mode
 * whose count is the number of queued events, so the channel fd polls
 * readable exactly when rdma_get_cm_event has something to return, blocks
 * when the queue is empty and honours O_NONBLOCK set by the application.
 * Every event handed to the application is also written to the tracer.
 */
#include "cma_priv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct cma_channel *cma_channel_new(bool sync)
{
	struct cma_channel *ch = calloc(1, sizeof(*ch));

	if (!ch)
		return NULL;
	ch->ch.fd = eventfd(0, EFD_SEMAPHORE | EFD_CLOEXEC);
	if (ch->ch.fd < 0) {
		free(ch);
		return NULL;
	}
	pthread_mutex_init(&ch->lock, NULL);
	ch->sync = sync;
	return ch;
}

void cma_channel_free(struct cma_channel *ch)
{
	struct cma_event *e, *n;

	if (!ch)
		return;
	for (e = ch->head; e; e = n) {
		n = e->next;
		free(e);
	}
	close(ch->ch.fd);
	pthread_mutex_destroy(&ch->lock);
	free(ch);
}

static struct cma_event *g_last; /* under cma_lock: the event cma_post_event just queued */

void cma_post_event(struct cma_id *id, struct cma_id *listen, enum rdma_cm_event_type type,
		    int status, const void *pd, size_t len)
{
	struct cma_channel *ch = type == RDMA_CM_EVENT_CONNECT_REQUEST && listen ? listen->chan : id->chan;
	struct cma_event *e = calloc(1, sizeof(*e));
	uint64_t one = 1;

	g_last = e;
	if (!e) {
		cma_warn("out of memory: CM event %s lost", rdma_event_str(type));
		return;
	}
	e->owner = id;
	e->ev.id = &id->id;
	e->ev.listen_id = listen ? &listen->id : NULL;
	e->ev.event = type;
	e->ev.status = status;
	if (pd && len) {
		if (len > sizeof(e->private_data))
			len = sizeof(e->private_data);
		memcpy(e->private_data, pd, len);
		if (id->id.qp_type == IBV_QPT_UD) {
			e->ev.param.ud.private_data = e->private_data;
			e->ev.param.ud.private_data_len = (uint8_t)len;
		} else {
			e->ev.param.conn.private_data = e->private_data;
			e->ev.param.conn.private_data_len = (uint8_t)len;
		}
	}
	pthread_mutex_lock(&ch->lock);
	if (ch->tail)
		ch->tail->next = e;
	else
		ch->head = e;
	ch->tail = e;
	pthread_mutex_unlock(&ch->lock);
	if (write(ch->ch.fd, &one, sizeof(one)) != sizeof(one))
		cma_warn("event channel write failed: %s", strerror(errno));
}

struct cma_event *cma_event_last(struct cma_id *id)
{
	return g_last && g_last->owner == id ? g_last : NULL;
}

int cma_channel_get(struct cma_channel *ch, struct rdma_cm_event **out)
{
	struct cma_event *e;
	uint64_t v;

	for (;;) {
		ssize_t n = read(ch->ch.fd, &v, sizeof(v));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		pthread_mutex_lock(&ch->lock);
		e = ch->head;
		if (e) {
			ch->head = e->next;
			if (!ch->head)
				ch->tail = NULL;
		}
		pthread_mutex_unlock(&ch->lock);
		if (e)
			break;
		/* a token left by an event purged with its id: try again */
	}
	e->next = NULL;
	pthread_mutex_lock(&cma_lock);
	e->owner->events_reported++;
	pthread_mutex_unlock(&cma_lock);
	cma_trace_event(e);
	*out = &e->ev;
	return 0;
}

void cma_channel_purge(struct cma_channel *ch, struct cma_id *id)
{
	struct cma_event **pp, *e;

	pthread_mutex_lock(&ch->lock);
	ch->tail = NULL;
	for (pp = &ch->head; (e = *pp);) {
		if (e->owner == id || (e->ev.listen_id == &id->id)) {
			*pp = e->next;
			if (g_last == e)
				g_last = NULL;
			free(e);
		} else {
			ch->tail = e;
			pp = &e->next;
		}
	}
	pthread_mutex_unlock(&ch->lock);
}

int cma_sync_wait(struct cma_id *id, enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev;
	int ret;

	ret = cma_channel_get(id->chan, &ev);
	if (ret)
		return ret;
	id->id.event = ev;
	if (ev->event == want && ev->status == 0)
		return 0;
	if (ev->event == RDMA_CM_EVENT_REJECTED)
		return -ECONNREFUSED;
	if (ev->status < 0)
		return ev->status;
	if (ev->status > 0)
		return -ev->status;
	return -EINVAL;
}

static const char *g_warned[32];

void cma_warn(const char *fmt, ...)
{
	static pthread_mutex_t wlock = PTHREAD_MUTEX_INITIALIZER;
	va_list ap;
	unsigned i;

	pthread_mutex_lock(&wlock);
	for (i = 0; i < 32 && g_warned[i]; i++)
		if (g_warned[i] == fmt)
			break;
	if (i < 32 && g_warned[i] == fmt) {
		pthread_mutex_unlock(&wlock);
		return;
	}
	if (i < 32)
		g_warned[i] = fmt;
	pthread_mutex_unlock(&wlock);
	fputs("librdmacm (uroce): ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

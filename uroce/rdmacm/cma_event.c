/*
 * Event channels: a queue of rdma_cm_events and an eventfd in semaphore mode
 * whose count is the number of queued events, so the channel fd polls
 * readable exactly when rdma_get_cm_event has something to return, blocks
 * when the queue is empty and honours O_NONBLOCK set by the application.
 * Every event handed to the application is also written to the tracer.
 */
#include "cma_priv.h"

#include <errno.h>
#include <fcntl.h>
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

/* Free the events queued on ch (its lock held, or no other user). */
static void drop_events(struct cma_channel *ch)
{
	struct cma_event *e, *n;

	for (e = ch->head; e; e = n) {
		n = e->next;
		free(e);
	}
	ch->head = ch->tail = NULL;
}

void cma_channel_free(struct cma_channel *ch)
{
	if (!ch)
		return;
	drop_events(ch);
	close(ch->ch.fd);
	pthread_mutex_destroy(&ch->lock);
	free(ch);
}

/* The destroyed channels (cma_channel_destroy), kept reachable. */
static struct cma_channel *g_dead;
static pthread_mutex_t g_dead_lock = PTHREAD_MUTEX_INITIALIZER;

/* An application thread may still be in rdma_get_cm_event on the channel
 * it destroys (rping's event thread, when main tears down after its last
 * event): with librdmacm that read either stays blocked, or, when it starts
 * after the close, fails with EBADF, which rping takes as an error.  Here a
 * destroyed channel is never freed: its queued events go, its fd is closed
 * once no thread reads it (so the number is never reused under a reader),
 * and a read of it blocks for good (a non-blocking one fails with EBADF). */
/* Close destroyed channel ch's fd once no thread reads it (its lock held). */
static void close_unread(struct cma_channel *ch)
{
	if (!ch->readers && ch->ch.fd >= 0) {
		close(ch->ch.fd);
		ch->ch.fd = -1;
	}
}

void cma_channel_destroy(struct cma_channel *ch)
{
	pthread_mutex_lock(&ch->lock);
	drop_events(ch);
	int fl = fcntl(ch->ch.fd, F_GETFL);
	ch->dead_nonblock = fl >= 0 && (fl & O_NONBLOCK);
	ch->dead = true;
	close_unread(ch);
	pthread_mutex_unlock(&ch->lock);
	pthread_mutex_lock(&g_dead_lock);
	ch->dead_next = g_dead;
	g_dead = ch;
	pthread_mutex_unlock(&g_dead_lock);
}

/* A read of destroyed channel ch (its lock held, released here). */
static int dead_channel_read(struct cma_channel *ch)
{
	bool nonblock = ch->dead_nonblock;
	close_unread(ch);
	pthread_mutex_unlock(&ch->lock);
	if (nonblock)
		return -EBADF;
	for (;;)
		pause();
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
	if (ch->dead) { /* (the application destroyed the channel before this id) */
		pthread_mutex_unlock(&ch->lock);
		g_last = NULL;
		free(e);
		return;
	}
	if (ch->tail)
		ch->tail->next = e;
	else
		ch->head = e;
	ch->tail = e;
	/* (under the lock: cma_channel_destroy closes the fd under it) */
	if (write(ch->ch.fd, &one, sizeof(one)) != sizeof(one))
		cma_warn("event channel write failed: %s", strerror(errno));
	pthread_mutex_unlock(&ch->lock);
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
		pthread_mutex_lock(&ch->lock);
		if (ch->dead)
			return dead_channel_read(ch);
		ch->readers++;
		pthread_mutex_unlock(&ch->lock);
		ssize_t n = read(ch->ch.fd, &v, sizeof(v));
		int err = errno;
		pthread_mutex_lock(&ch->lock);
		ch->readers--;
		if (ch->dead)
			return dead_channel_read(ch);
		if (n < 0) {
			pthread_mutex_unlock(&ch->lock);
			if (err == EINTR)
				continue;
			return -err;
		}
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
	if (e->ev.event == RDMA_CM_EVENT_CONNECT_REQUEST && e->ev.listen_id)
		cma_of(e->ev.listen_id)->backlog++; /* taken: room for another request */
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

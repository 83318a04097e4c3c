/*
 * The kernel's process events for `rdmatrace record` (see
 * include/rdmatrace/process_events.h):
 * a netlink socket subscribed to the proc connector, and a thread that
 * follows the recorded program's process tree through the fork events and
 * keeps each process's exit (wait status and time).
 */
#include "rdmatrace/process_events.h"

#include <errno.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* One process of the tree. */
struct tracked {
	pid_t pid;
	bool exited;
	int status;
	uint64_t mono_ns;
};

struct rt_proc_events {
	int fd;
	pthread_t thread;
	bool thread_started;
	atomic_bool stop;
	struct tracked *procs; /* written by the thread; read after rt_proc_events_stop() */
	size_t n, cap;
	uint64_t lost;
};

/* The listen / ignore request: a netlink header, a connector header, the op. */
static int send_op(int fd, enum proc_cn_mcast_op op)
{
	uint32_t op32 = (uint32_t)op;
	struct nlmsghdr nl = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct cn_msg) + sizeof(op32)),
			       .nlmsg_type = NLMSG_DONE };
	struct cn_msg cn = { .id = { .idx = CN_IDX_PROC, .val = CN_VAL_PROC }, .len = sizeof(op32) };
	uint8_t m[NLMSG_SPACE(sizeof(struct cn_msg) + sizeof(uint32_t))];
	memset(m, 0, sizeof(m));
	memcpy(m, &nl, sizeof(nl));
	memcpy(m + NLMSG_HDRLEN, &cn, sizeof(cn));
	memcpy(m + NLMSG_HDRLEN + sizeof(cn), &op32, sizeof(op32));
	return send(fd, m, nl.nlmsg_len, 0) == (ssize_t)nl.nlmsg_len ? 0 : -errno;
}

int rt_proc_events_open(struct rt_proc_events **out, char *err, size_t errlen)
{
	*out = NULL;
	int fd = socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "no netlink connector socket: %s", strerror(e));
		return -e;
	}
	/* a program that forks a lot must not overflow the queue before the
	 * thread reads it: 8 MB when allowed (root), else what the system gives */
	int size = 8 << 20;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) != 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	struct sockaddr_nl a = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	int rc = 0;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || (rc = send_op(fd, PROC_CN_MCAST_LISTEN)) < 0) {
		int e = rc < 0 ? -rc : errno;
		snprintf(err, errlen, "cannot listen to the kernel's process events: %s%s", strerror(e),
			 e == EPERM ? " (they need CAP_NET_ADMIN)" : "");
		close(fd);
		return -e;
	}
	struct rt_proc_events *pe = calloc(1, sizeof(*pe));
	if (!pe) {
		close(fd);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	pe->fd = fd;
	*out = pe;
	return 0;
}

static struct tracked *find(const struct rt_proc_events *pe, pid_t pid)
{
	for (size_t i = pe->n; i-- > 0;) /* newest first: a reused pid is the latest process */
		if (pe->procs[i].pid == pid)
			return &pe->procs[i];
	return NULL;
}

static int add(struct rt_proc_events *pe, pid_t pid)
{
	if (pe->n == pe->cap) {
		size_t cap = pe->cap ? pe->cap * 2 : 64;
		struct tracked *p = realloc(pe->procs, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		pe->procs = p;
		pe->cap = cap;
	}
	pe->procs[pe->n++] = (struct tracked){ .pid = pid };
	return 0;
}

static void on_event(struct rt_proc_events *pe, const struct proc_event *ev)
{
	if (ev->what == PROC_EVENT_FORK) {
		const struct fork_proc_event *f = &ev->event_data.fork;
		struct tracked *parent = find(pe, f->parent_tgid);
		if (f->child_pid != f->child_tgid || !parent || parent->exited)
			return; /* a new thread, or a process outside the tree */
		struct tracked *old = find(pe, f->child_tgid);
		if (old && !old->exited)
			return;
		(void)add(pe, f->child_tgid);
	} else if (ev->what == PROC_EVENT_EXIT) {
		const struct exit_proc_event *x = &ev->event_data.exit;
		struct tracked *t = find(pe, x->process_tgid);
		if (!t || (t->exited && x->process_pid != x->process_tgid))
			return;
		/* every thread reports its exit: the main thread's (pid == tgid) is the
		 * process's; another thread's is kept only until it comes */
		t->exited = x->process_pid == x->process_tgid;
		t->status = (int)x->exit_code;
		t->mono_ns = ev->timestamp_ns;
	}
}

size_t rt_proc_events_feed(struct rt_proc_events *pe, const void *buf, size_t len)
{
	/* netlink messages one after the other, each aligned to 4 bytes: a
	 * header, a connector message, its data (copied out: nothing here
	 * assumes the datagram is aligned for the structs) */
	const uint8_t *p = buf;
	size_t taken = 0, off = 0;
	while (p && len - off >= NLMSG_HDRLEN) {
		struct nlmsghdr h;
		memcpy(&h, p + off, sizeof(h));
		if (h.nlmsg_len < NLMSG_HDRLEN || h.nlmsg_len > len - off)
			break; /* a length that does not fit: the rest cannot be trusted */
		struct cn_msg cn;
		if (h.nlmsg_type != NLMSG_ERROR && h.nlmsg_type != NLMSG_NOOP &&
		    h.nlmsg_len >= NLMSG_LENGTH(sizeof(cn) + sizeof(struct proc_event))) {
			memcpy(&cn, p + off + NLMSG_HDRLEN, sizeof(cn));
			if (cn.id.idx == CN_IDX_PROC && cn.id.val == CN_VAL_PROC && cn.len >= sizeof(struct proc_event)) {
				struct proc_event ev;
				memcpy(&ev, p + off + NLMSG_HDRLEN + sizeof(cn), sizeof(ev));
				on_event(pe, &ev);
				taken++;
			}
		}
		size_t step = NLMSG_ALIGN(h.nlmsg_len);
		if (step > len - off)
			break;
		off += step;
	}
	return taken;
}

/* Reads what is queued; waits up to wait_ms for more.  0, or -1 on a fatal error. */
static int read_events(struct rt_proc_events *pe, int wait_ms)
{
	struct pollfd p = { .fd = pe->fd, .events = POLLIN };
	int n = poll(&p, 1, wait_ms);
	if (n <= 0)
		return n < 0 && errno != EINTR ? -1 : 0;
	for (;;) {
		char buf[16384] __attribute__((aligned(NLMSG_ALIGNTO)));
		ssize_t got = recv(pe->fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (got < 0) {
			if (errno == ENOBUFS) {
				pe->lost++; /* the kernel dropped some: carry on with the rest */
				continue;
			}
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		}
		if (got == 0)
			return 0;
		rt_proc_events_feed(pe, buf, (size_t)got);
	}
}

static void *events_main(void *arg)
{
	struct rt_proc_events *pe = arg;
	while (!atomic_load(&pe->stop))
		if (read_events(pe, 100) < 0)
			break;
	return NULL;
}

int rt_proc_events_follow(struct rt_proc_events *pe, pid_t root)
{
	if (!pe)
		return -EINVAL;
	if (add(pe, root) < 0)
		return -ENOMEM;
	if (pthread_create(&pe->thread, NULL, events_main, pe) != 0)
		return -EAGAIN;
	pe->thread_started = true;
	return 0;
}

void rt_proc_events_stop(struct rt_proc_events *pe)
{
	if (!pe || !pe->thread_started)
		return;
	atomic_store(&pe->stop, true);
	pthread_join(pe->thread, NULL);
	pe->thread_started = false;
	(void)read_events(pe, 0); /* what came after the thread's last look */
	(void)send_op(pe->fd, PROC_CN_MCAST_IGNORE);
}

struct rt_proc_events *rt_proc_events_offline(pid_t root)
{
	struct rt_proc_events *pe = calloc(1, sizeof(*pe));
	if (!pe)
		return NULL;
	pe->fd = -1;
	if (add(pe, root) < 0) {
		free(pe);
		return NULL;
	}
	return pe;
}

bool rt_proc_events_exit(const struct rt_proc_events *pe, pid_t pid, int *status, uint64_t *mono_ns)
{
	const struct tracked *t = pe ? find(pe, pid) : NULL;
	if (!t || !t->exited)
		return false;
	*status = t->status;
	*mono_ns = t->mono_ns;
	return true;
}

uint64_t rt_proc_events_lost(const struct rt_proc_events *pe)
{
	return pe ? pe->lost : 0;
}

void rt_proc_events_close(struct rt_proc_events *pe)
{
	if (!pe)
		return;
	rt_proc_events_stop(pe);
	if (pe->fd >= 0)
		close(pe->fd);
	free(pe->procs);
	free(pe);
}

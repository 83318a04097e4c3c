/*
 * The kernel's process events as `rdmatrace record` reads them
 * (tracer/process_events.c): the process tree followed from its root
 * through fork events (threads and outsiders left out), each process's exit
 * status and time, and datagrams that do not parse skipped.  Then, as root,
 * the real connector: a child killed by SIGKILL.
 */
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rdmatrace/process_events.h"
#include "testlib.h"

/* Datagrams are built here the way the kernel sends them. */
struct dgram {
	uint8_t buf[4096] __attribute__((aligned(8)));
	size_t len;
};

static void put_event(struct dgram *d, const struct proc_event *ev)
{
	struct nlmsghdr *h = (struct nlmsghdr *)(d->buf + d->len);
	size_t payload = sizeof(struct cn_msg) + sizeof(*ev);
	memset(h, 0, NLMSG_SPACE(payload));
	h->nlmsg_len = NLMSG_LENGTH(payload);
	h->nlmsg_type = NLMSG_DONE;
	struct cn_msg *cn = NLMSG_DATA(h);
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->len = sizeof(*ev);
	memcpy(cn->data, ev, sizeof(*ev));
	d->len += NLMSG_SPACE(payload);
}

static void put_fork(struct dgram *d, pid_t parent, pid_t child_pid, pid_t child_tgid)
{
	struct proc_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.what = PROC_EVENT_FORK;
	ev.event_data.fork.parent_pid = parent;
	ev.event_data.fork.parent_tgid = parent;
	ev.event_data.fork.child_pid = child_pid;
	ev.event_data.fork.child_tgid = child_tgid;
	put_event(d, &ev);
}

static void put_exit(struct dgram *d, pid_t pid, pid_t tgid, unsigned code, uint64_t ns)
{
	struct proc_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.what = PROC_EVENT_EXIT;
	ev.timestamp_ns = ns;
	ev.event_data.exit.process_pid = pid;
	ev.event_data.exit.process_tgid = tgid;
	ev.event_data.exit.exit_code = code;
	put_event(d, &ev);
}

static void test_tree(void)
{
	struct rt_proc_events *pe = rt_proc_events_offline(100);
	CHECK(pe != NULL);
	if (!pe)
		return;
	struct dgram d = {.len = 0};
	put_fork(&d, 100, 101, 101); /* the root forks a worker */
	put_fork(&d, 101, 102, 101); /* the worker starts a thread */
	put_fork(&d, 101, 103, 103); /* and forks a helper */
	put_fork(&d, 500, 501, 501); /* someone else's process */
	CHECK_EQ_U(rt_proc_events_feed(pe, d.buf, d.len), 4);
	d.len = 0;
	put_exit(&d, 102, 101, 0, 1000);         /* the thread ends on its own */
	put_exit(&d, 101, 101, SIGKILL, 2000);   /* the worker is killed */
	put_exit(&d, 103, 103, 3 << 8, 3000);    /* the helper exits 3 */
	put_exit(&d, 501, 501, SIGKILL, 4000);   /* not ours */
	CHECK_EQ_U(rt_proc_events_feed(pe, d.buf, d.len), 4);
	int st = -1;
	uint64_t ns = 0;
	CHECK(rt_proc_events_exit(pe, 101, &st, &ns) && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL && ns == 2000);
	CHECK(rt_proc_events_exit(pe, 103, &st, &ns) && WIFEXITED(st) && WEXITSTATUS(st) == 3 && ns == 3000);
	CHECK(!rt_proc_events_exit(pe, 102, &st, &ns)); /* a thread is not a process */
	CHECK(!rt_proc_events_exit(pe, 501, &st, &ns));
	CHECK(!rt_proc_events_exit(pe, 100, &st, &ns)); /* the root still runs */
	/* a pid the kernel gives again to a new process of the tree: the new one's end */
	d.len = 0;
	put_fork(&d, 100, 103, 103);
	CHECK_EQ_U(rt_proc_events_feed(pe, d.buf, d.len), 1);
	CHECK(!rt_proc_events_exit(pe, 103, &st, &ns));
	d.len = 0;
	put_exit(&d, 103, 103, 0, 5000);
	rt_proc_events_feed(pe, d.buf, d.len);
	CHECK(rt_proc_events_exit(pe, 103, &st, &ns) && WIFEXITED(st) && WEXITSTATUS(st) == 0 && ns == 5000);
	CHECK_EQ_U(rt_proc_events_lost(pe), 0);
	rt_proc_events_close(pe);
}

/* Truncated, foreign and short messages are skipped; what follows a bad
 * length is not read. */
static void test_bad_datagrams(void)
{
	struct rt_proc_events *pe = rt_proc_events_offline(100);
	CHECK(pe != NULL);
	if (!pe)
		return;
	struct dgram d = {.len = 0};
	put_fork(&d, 100, 101, 101);
	for (size_t cut = 0; cut < d.len; cut++)
		CHECK_EQ_U(rt_proc_events_feed(pe, d.buf, cut), 0);
	struct cn_msg *cn = NLMSG_DATA((struct nlmsghdr *)d.buf);
	cn->id.idx = CN_IDX_PROC + 1; /* another connector's message */
	CHECK_EQ_U(rt_proc_events_feed(pe, d.buf, d.len), 0);
	cn->id.idx = CN_IDX_PROC;
	cn->len = 4; /* says it carries less than an event */
	CHECK_EQ_U(rt_proc_events_feed(pe, d.buf, d.len), 0);
	cn->len = sizeof(struct proc_event);
	((struct nlmsghdr *)d.buf)->nlmsg_len = 0x7fffffff; /* longer than the datagram */
	CHECK_EQ_U(rt_proc_events_feed(pe, d.buf, d.len), 0);
	CHECK(rt_proc_events_feed(pe, NULL, 0) == 0);
	int st;
	uint64_t ns;
	CHECK(!rt_proc_events_exit(pe, 101, &st, &ns));
	rt_proc_events_close(pe);
}

/* The real connector, when this process may listen (root): a grandchild
 * killed by SIGKILL, reaped by its parent, not by us. */
static void test_live(void)
{
	struct rt_proc_events *pe;
	static char err[256];
	if (rt_proc_events_open(&pe, err, sizeof(err)) < 0) {
		SKIP(err);
		return;
	}
	int pipefd[2];
	CHECK(pipe(pipefd) == 0);
	pid_t child = fork();
	if (child == 0) {
		pid_t g = fork();
		if (g == 0) {
			pause();
			_exit(0);
		}
		if (write(pipefd[1], &g, sizeof(g)) != (ssize_t)sizeof(g))
			_exit(2);
		kill(g, SIGKILL);
		int s;
		waitpid(g, &s, 0);
		_exit(5);
	}
	CHECK_EQ_U(rt_proc_events_follow(pe, child), 0);
	pid_t g = 0;
	CHECK(read(pipefd[0], &g, sizeof(g)) == (ssize_t)sizeof(g));
	int st;
	waitpid(child, &st, 0);
	rt_proc_events_stop(pe);
	uint64_t ns = 0;
	int gs = -1, cs = -1;
	CHECK(rt_proc_events_exit(pe, g, &gs, &ns) && WIFSIGNALED(gs) && WTERMSIG(gs) == SIGKILL && ns > 0);
	CHECK(rt_proc_events_exit(pe, child, &cs, &ns) && WIFEXITED(cs) && WEXITSTATUS(cs) == 5);
	rt_proc_events_close(pe);
	close(pipefd[0]);
	close(pipefd[1]);
}

int main(void)
{
	RUN(test_tree);
	RUN(test_bad_datagrams);
	RUN(test_live);
	return test_done();
}

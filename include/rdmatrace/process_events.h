/*
 * How every process of a recorded program ended, from the kernel's process
 * events (the proc connector, NETLINK_CONNECTOR / CN_IDX_PROC).
 *
 * `rdmatrace record` reaps only the program it started; a child the program
 * forked is reaped by the program (or by a shell script in between), so a
 * worker killed by the OOM killer left record nothing but a trace that
 * stops.  The kernel announces every fork and every exit, with the wait
 * status and the CLOCK_MONOTONIC time, to whoever listens (CAP_NET_ADMIN).
 * The watcher follows the program's process tree from its root and keeps
 * the end of each process in it.
 *
 *     struct rt_proc_events *pe;
 *     if (rt_proc_events_open(&pe, err, sizeof err) < 0) ... (not root: carry on without)
 *     pid = fork() ...;  rt_proc_events_follow(pe, pid);
 *     ... waitpid(pid) ...;  rt_proc_events_stop(pe);
 *     int status; uint64_t mono_ns;
 *     if (rt_proc_events_exit(pe, some_pid, &status, &mono_ns)) ...
 *     rt_proc_events_close(pe);
 */
#ifndef RDMATRACE_PROCESS_EVENTS_H
#define RDMATRACE_PROCESS_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct rt_proc_events;

/* Subscribes to the kernel's process events (call before the fork, so that
 * nothing the program does is missed).  0, or -errno with err saying why
 * (-EPERM without CAP_NET_ADMIN, -EPROTONOSUPPORT without the connector). */
int rt_proc_events_open(struct rt_proc_events **out, char *err, size_t errlen);

/* Follows root and every process it and its descendants fork (a thread
 * reads the events from now on).  0 or -errno. */
int rt_proc_events_follow(struct rt_proc_events *pe, pid_t root);

/* Reads what is queued (the program has been reaped: its exit is there)
 * and stops the thread. */
void rt_proc_events_stop(struct rt_proc_events *pe);

/* The end of process pid if it was in the tree and exited: its wait status
 * (as waitpid gives it) and the kernel's CLOCK_MONOTONIC time of the exit. */
bool rt_proc_events_exit(const struct rt_proc_events *pe, pid_t pid, int *status, uint64_t *mono_ns);

/* Events the kernel dropped (the socket's queue overflowed): ends may be missing. */
uint64_t rt_proc_events_lost(const struct rt_proc_events *pe);

/* A watcher without a socket, following root: fed by rt_proc_events_feed()
 * (tests, the fuzzer).  NULL when out of memory. */
struct rt_proc_events *rt_proc_events_offline(pid_t root);

/* One datagram as the socket gives it (netlink messages, each a connector
 * message with a struct proc_event); what does not parse is skipped.
 * Returns the process events taken. */
size_t rt_proc_events_feed(struct rt_proc_events *pe, const void *buf, size_t len);

void rt_proc_events_close(struct rt_proc_events *pe);

#endif

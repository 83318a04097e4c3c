/*
 * Live capture of RoCEv2 traffic with libpcap, as a library: `rdmatrace
 * capture` is a thin wrapper, and `rdmatrace record --capture` or the lab
 * run it in-process (on a thread) or in a child.
 *
 * The capture filters on the RoCE UDP destination port(s) (with or without
 * a VLAN tag) plus an optional extra BPF expression, runs in immediate
 * mode with nanosecond timestamps where the platform offers them, and
 * writes pcapng (section comment, nanosecond interface, and at the end an
 * interface statistics block whose isb_ifdrop is the kernel drop count).
 *
 *     struct rt_live *lc;
 *     struct rt_live_opts o = { .iface = "lo", .write_path = "cap.pcapng", .max_packets = 100 };
 *     if (rt_live_open(&o, &lc, err, sizeof err) == 0) {
 *             struct rt_live_result r;
 *             rt_live_run(lc, &r, err, sizeof err);   // until count, duration or rt_live_stop()
 *             rt_live_close(lc);
 *     }
 *
 * rt_live_stop() may be called from a signal handler or another thread;
 * rt_live_run() then finishes the file cleanly and returns.
 */
#ifndef RDMATRACE_LIVE_CAPTURE_H
#define RDMATRACE_LIVE_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rdmatrace/capfile.h"

#define RT_LIVE_BUFFER_DEFAULT (64 << 20) /* rt_live_opts.buffer_bytes when 0 */

struct rt_live_opts {
	const char *iface;        /* "lo", "eth0", "any" ... (required) */
	const uint16_t *ports;    /* RoCE UDP destination ports; NULL/0: 4791 */
	unsigned nports;
	const char *filter;       /* extra BPF expression ANDed with the port filter, or NULL */
	int snaplen;              /* 0: 262144 */
	int buffer_bytes;         /* kernel buffer; 0: RT_LIVE_BUFFER_DEFAULT, 64 MiB (RoCE bursts at line rate) */
	bool promisc;
	uint64_t max_packets;     /* stop after this many (0: no limit) */
	double duration_s;        /* stop after this long (0: no limit) */
	const char *write_path;   /* pcapng output ("-" stdout), or NULL for none */
	const char *comment;      /* pcapng section comment */
	/* called for each packet (in rt_live_run's thread), may be NULL */
	void (*on_packet)(void *ctx, const struct rt_caprec *rec);
	void *ctx;
};

struct rt_live_result {
	uint64_t packets;         /* delivered to us (and written) */
	uint64_t bytes;           /* captured bytes */
	uint64_t ps_recv;         /* pcap_stats: received by the filter */
	uint64_t ps_drop;         /* dropped by the kernel (buffer full) */
	uint64_t ps_ifdrop;       /* dropped by the interface/driver */
	bool stats_valid;         /* pcap_stats worked */
	bool nanosecond;          /* timestamps have nanosecond precision */
	uint16_t linktype;
	uint64_t start_ns, end_ns;
	char filter[512];         /* the BPF expression used */
};

struct rt_live;

/* Open and activate the capture.  0, or -errno with a message (-EPERM
 * when the process may not capture). */
int rt_live_open(const struct rt_live_opts *opts, struct rt_live **out, char *err, size_t errlen);

/* Capture until max_packets, duration_s or rt_live_stop(); writes the
 * statistics block and closes the file.  0, or -errno with a message. */
int rt_live_run(struct rt_live *lc, struct rt_live_result *res, char *err, size_t errlen);

/* Ask rt_live_run to finish (async-signal-safe, thread-safe). */
void rt_live_stop(struct rt_live *lc);

/* The BPF filter the options produce, into buf; returns 0 or -ENOSPC. */
int rt_live_filter(const struct rt_live_opts *opts, char *buf, size_t len);

void rt_live_close(struct rt_live *lc);

#endif

/*
 * Live capture with libpcap (include/rdmatrace/live_capture.h): a BPF
 * filter on the RoCE ports, nanosecond timestamps when the platform has
 * them, a poll loop that notices stop requests, count and duration limits
 * within 100 ms, what the kernel still holds read after a stop, and a
 * pcapng file finished with the kernel's drop count however the capture ends.
 *
 * Writing to a file uses libpcap's default TPACKET_V3 ring, where packets
 * are packed one after another: a 64 MiB buffer holds some 15 000 4 KiB
 * RoCE packets.  Immediate mode (only for printing, where latency matters)
 * makes libpcap use TPACKET_V2, whose slots are as large as the interface's
 * MTU allows: on lo (MTU 65536) 64 MiB is only about 1 000 slots, and a
 * lab's bursts overflowed it.
 */
#include <errno.h>
#include <poll.h>
#include <pcap/pcap.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rdmatrace/live_capture.h"
#include "rdmatrace/pcapng_write.h"
#include "rdmatrace/roce_wire.h"

/* The ring hands a block of packets over when it is full or this old. */
#define BLOCK_TIMEOUT_MS 100

struct rt_live {
	pcap_t *pc;
	struct rt_pcapng_writer *w;
	uint32_t if_id;
	struct rt_live_opts opts;
	atomic_int stop;
	int write_error;
	uint16_t linktype;
	bool nano;
	char filter[512];
	uint64_t packets, bytes;
};

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((format(printf, 3, 4))) static void set_err(char *err, size_t len, const char *fmt, ...)
{
	if (!err || !len)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

int rt_live_filter(const struct rt_live_opts *o, char *buf, size_t len)
{
	char ports[256] = "";
	size_t used = 0;
	unsigned n = o->nports && o->ports ? o->nports : 1;
	for (unsigned i = 0; i < n; i++) {
		unsigned p = o->nports && o->ports ? o->ports[i] : RT_ROCE_UDP_PORT;
		int k = snprintf(ports + used, sizeof(ports) - used, "%s%u", i ? " or " : "", p);
		if (k < 0 || (size_t)k >= sizeof(ports) - used)
			return -ENOSPC;
		used += (size_t)k;
	}
	/* The vlan keyword shifts the offsets of everything after it, so the
	 * untagged and tagged forms are separate alternatives. */
	int k;
	if (o->filter && o->filter[0])
		k = snprintf(buf, len, "((udp dst port (%s)) or (vlan and udp dst port (%s))) and (%s)", ports, ports,
			     o->filter);
	else
		k = snprintf(buf, len, "(udp dst port (%s)) or (vlan and udp dst port (%s))", ports, ports);
	return k < 0 || (size_t)k >= len ? -ENOSPC : 0;
}

static uint16_t linktype_of_dlt(int dlt)
{
	switch (dlt) {
	case DLT_RAW: return 101;
	default: return (uint16_t)dlt;
	}
}

static int set_filter(struct rt_live *lc, char *err, size_t errlen)
{
	struct bpf_program prog;
	if (rt_live_filter(&lc->opts, lc->filter, sizeof(lc->filter)) < 0) {
		set_err(err, errlen, "capture filter too long");
		return -ENOSPC;
	}
	if (pcap_compile(lc->pc, &prog, lc->filter, 1, PCAP_NETMASK_UNKNOWN) < 0) {
		/* Some link types (cooked "any") cannot express the vlan part. */
		char plain[512];
		struct rt_live_opts o = lc->opts;
		char ports[256] = "";
		size_t used = 0;
		unsigned n = o.nports && o.ports ? o.nports : 1;
		for (unsigned i = 0; i < n; i++)
			used += (size_t)snprintf(ports + used, sizeof(ports) - used, "%s%u", i ? " or " : "",
						 o.nports && o.ports ? o.ports[i] : RT_ROCE_UDP_PORT);
		if (o.filter && o.filter[0])
			snprintf(plain, sizeof(plain), "(udp dst port (%s)) and (%s)", ports, o.filter);
		else
			snprintf(plain, sizeof(plain), "udp dst port (%s)", ports);
		if (pcap_compile(lc->pc, &prog, plain, 1, PCAP_NETMASK_UNKNOWN) < 0) {
			set_err(err, errlen, "bad capture filter: %s", pcap_geterr(lc->pc));
			return -EINVAL;
		}
		snprintf(lc->filter, sizeof(lc->filter), "%s", plain);
	}
	int rc = pcap_setfilter(lc->pc, &prog);
	pcap_freecode(&prog);
	if (rc < 0) {
		set_err(err, errlen, "cannot set the capture filter: %s", pcap_geterr(lc->pc));
		return -EINVAL;
	}
	return 0;
}

static int activate(struct rt_live *lc, char *err, size_t errlen)
{
	const struct rt_live_opts *o = &lc->opts;
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	lc->pc = pcap_create(o->iface, ebuf);
	if (!lc->pc) {
		set_err(err, errlen, "%s: %s", o->iface, ebuf);
		return -ENODEV;
	}
	pcap_set_snaplen(lc->pc, o->snaplen > 0 ? o->snaplen : 262144);
	pcap_set_promisc(lc->pc, o->promisc);
	pcap_set_timeout(lc->pc, BLOCK_TIMEOUT_MS);
	pcap_set_immediate_mode(lc->pc, o->write_path == NULL);
	pcap_set_buffer_size(lc->pc, o->buffer_bytes > 0 ? o->buffer_bytes : RT_LIVE_BUFFER_DEFAULT);
	lc->nano = pcap_set_tstamp_precision(lc->pc, PCAP_TSTAMP_PRECISION_NANO) == 0;
	int rc = pcap_activate(lc->pc);
	if (rc < 0) {
		int e = rc == PCAP_ERROR_PERM_DENIED ? EPERM
			: rc == PCAP_ERROR_NO_SUCH_DEVICE ? ENODEV
			: rc == PCAP_ERROR_IFACE_NOT_UP ? ENETDOWN : EIO;
		const char *msg = pcap_geterr(lc->pc);
		set_err(err, errlen, "%s: %s", o->iface, msg && msg[0] ? msg : pcap_statustostr(rc));
		return -e;
	}
	lc->nano = pcap_get_tstamp_precision(lc->pc) == PCAP_TSTAMP_PRECISION_NANO;
	lc->linktype = linktype_of_dlt(pcap_datalink(lc->pc));
	if ((rc = set_filter(lc, err, errlen)) < 0)
		return rc;
	if (pcap_setnonblock(lc->pc, 1, ebuf) < 0) {
		set_err(err, errlen, "%s: %s", o->iface, ebuf);
		return -EIO;
	}
	return 0;
}

static void on_pcap_packet(u_char *user, const struct pcap_pkthdr *h, const u_char *data);

int rt_live_open(const struct rt_live_opts *opts, struct rt_live **out, char *err, size_t errlen)
{
	if (!opts || !opts->iface || !out) {
		set_err(err, errlen, "no interface given");
		return -EINVAL;
	}
	*out = NULL;
	struct rt_live *lc = calloc(1, sizeof(*lc));
	if (!lc) {
		set_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	lc->opts = *opts;
	int rc = activate(lc, err, errlen);
	if (rc < 0)
		goto fail;
	if (opts->write_path) {
		struct rt_pcapng_opts wo = { opts->comment, NULL, NULL, NULL };
		char werr[256] = "";
		rc = rt_pcapng_open(opts->write_path, &wo, &lc->w, werr, sizeof(werr));
		if (rc == 0)
			rc = rt_pcapng_interface(lc->w, lc->linktype, (uint32_t)pcap_snapshot(lc->pc), opts->iface,
						 &lc->if_id);
		if (rc < 0) {
			set_err(err, errlen, "%s", werr[0] && !lc->w ? werr : strerror(-rc));
			goto fail;
		}
		rt_pcapng_flush(lc->w);
	}
	/* Until the filter was installed the kernel queued every packet on the
	 * interface; on a busy interface that can fill the ring and drop the
	 * first packets we want.  Empty it now: libpcap filters what was queued
	 * in user space, so matching packets are kept (written, called back). */
	for (int i = 0; i < 1000; i++) {
		int n = pcap_dispatch(lc->pc, -1, on_pcap_packet, (u_char *)lc);
		if (n <= 0)
			break;
	}
	*out = lc;
	return 0;
fail:
	rt_live_close(lc);
	return rc;
}

static void on_pcap_packet(u_char *user, const struct pcap_pkthdr *h, const u_char *data)
{
	struct rt_live *lc = (struct rt_live *)user;
	uint64_t ts = (uint64_t)h->ts.tv_sec * 1000000000u +
		      (uint64_t)h->ts.tv_usec * (lc->nano ? 1u : 1000u);
	if (lc->w && !lc->write_error)
		lc->write_error = rt_pcapng_packet(lc->w, lc->if_id, ts, data, h->caplen, h->len, NULL);
	lc->packets++;
	lc->bytes += h->caplen;
	if (lc->opts.on_packet) {
		struct rt_caprec rec = { data, h->caplen, h->len < h->caplen ? h->caplen : h->len, ts,
					 lc->packets, lc->linktype, 0, NULL, 0 };
		lc->opts.on_packet(lc->opts.ctx, &rec);
	}
	if (lc->opts.max_packets && lc->packets >= lc->opts.max_packets)
		pcap_breakloop(lc->pc);
}

/* After a stop: read what the kernel still holds.  A block of the ring
 * becomes readable only when it is full or BLOCK_TIMEOUT_MS old, so read
 * until a little longer than that has passed since the stop. */
static int drain(struct rt_live *lc, int fd, char *err, size_t errlen)
{
	uint64_t until = now_ns(CLOCK_MONOTONIC) + (BLOCK_TIMEOUT_MS + 20) * 1000000ull;
	for (;;) {
		if (lc->opts.max_packets && lc->packets >= lc->opts.max_packets)
			return 0;
		int n = pcap_dispatch(lc->pc, -1, on_pcap_packet, (u_char *)lc);
		if (n == PCAP_ERROR) {
			set_err(err, errlen, "capture failed: %s", pcap_geterr(lc->pc));
			return -EIO;
		}
		uint64_t now = now_ns(CLOCK_MONOTONIC);
		if (now >= until) /* bounded even when packets keep coming */
			return 0;
		if (n > 0 || n == PCAP_ERROR_BREAK) /* a stop's breakloop ends only the first read */
			continue;
		if (fd >= 0) {
			struct pollfd pfd = { fd, POLLIN, 0 };
			poll(&pfd, 1, (int)((until - now) / 1000000u) + 1);
		} else {
			struct timespec ts = { 0, 10 * 1000000 };
			nanosleep(&ts, NULL);
		}
	}
}

int rt_live_run(struct rt_live *lc, struct rt_live_result *res, char *err, size_t errlen)
{
	if (!lc || !lc->pc)
		return -EINVAL;
	uint64_t start_mono = now_ns(CLOCK_MONOTONIC);
	uint64_t start = now_ns(CLOCK_REALTIME);
	uint64_t limit = lc->opts.duration_s > 0 ? (uint64_t)(lc->opts.duration_s * 1e9) : 0;
	int fd = pcap_get_selectable_fd(lc->pc);
	int rc = 0;
	while (!atomic_load(&lc->stop)) {
		if (lc->opts.max_packets && lc->packets >= lc->opts.max_packets)
			break;
		uint64_t elapsed = now_ns(CLOCK_MONOTONIC) - start_mono;
		if (limit && elapsed >= limit)
			break;
		int wait_ms = 100;
		if (limit && (limit - elapsed) / 1000000u < (uint64_t)wait_ms)
			wait_ms = (int)((limit - elapsed) / 1000000u) + 1;
		if (fd >= 0) {
			struct pollfd pfd = { fd, POLLIN, 0 };
			int pr = poll(&pfd, 1, wait_ms);
			if (pr < 0 && errno != EINTR) {
				set_err(err, errlen, "poll: %s", strerror(errno));
				rc = -errno;
				break;
			}
		} else {
			struct timespec ts = { 0, 10 * 1000000 };
			nanosleep(&ts, NULL);
		}
		int n = pcap_dispatch(lc->pc, -1, on_pcap_packet, (u_char *)lc);
		if (n == PCAP_ERROR) {
			set_err(err, errlen, "capture failed: %s", pcap_geterr(lc->pc));
			rc = -EIO;
			break;
		}
	}
	if (!rc)
		rc = drain(lc, fd, err, errlen);
	uint64_t end = now_ns(CLOCK_REALTIME);
	struct pcap_stat ps;
	memset(&ps, 0, sizeof(ps));
	bool stats_ok = pcap_stats(lc->pc, &ps) == 0;
	if (lc->w) {
		struct rt_pcapng_stats st = {
			.ts_ns = end, .start_ns = start, .end_ns = end,
			.ifrecv = ps.ps_recv, .ifdrop = ps.ps_drop, .osdrop = ps.ps_ifdrop,
			.usrdeliv = lc->packets, .comment = "counts from pcap_stats at the end of the capture",
		};
		if (!lc->write_error && stats_ok)
			lc->write_error = rt_pcapng_stats(lc->w, lc->if_id, &st);
		char werr[256] = "";
		int wrc = rt_pcapng_close(lc->w, werr, sizeof(werr));
		lc->w = NULL;
		if (!rc && (lc->write_error || wrc)) {
			rc = lc->write_error ? lc->write_error : wrc;
			set_err(err, errlen, "writing %s: %s", lc->opts.write_path, strerror(-rc));
		}
	}
	if (res) {
		memset(res, 0, sizeof(*res));
		res->packets = lc->packets;
		res->bytes = lc->bytes;
		res->ps_recv = ps.ps_recv;
		res->ps_drop = ps.ps_drop;
		res->ps_ifdrop = ps.ps_ifdrop;
		res->stats_valid = stats_ok;
		res->nanosecond = lc->nano;
		res->linktype = lc->linktype;
		res->start_ns = start;
		res->end_ns = end;
		snprintf(res->filter, sizeof(res->filter), "%s", lc->filter);
	}
	return rc;
}

void rt_live_stop(struct rt_live *lc)
{
	if (!lc)
		return;
	atomic_store(&lc->stop, 1);
	if (lc->pc)
		pcap_breakloop(lc->pc);
}

void rt_live_close(struct rt_live *lc)
{
	if (!lc)
		return;
	if (lc->w)
		rt_pcapng_close(lc->w, NULL, 0);
	if (lc->pc)
		pcap_close(lc->pc);
	free(lc);
}

/*
 * Timing loops for bench/captures_bench.sh (not a test): packets per second
 * of the pieces of `rdmatrace packets`, each over the same capture file.
 *
 *   captures_bench decode FILE      rt_decode() alone over frames already in memory
 *   captures_bench decode-noicrc F  the same without ICRC verification
 *   captures_bench read FILE        our reader alone (a file through its window)
 *   captures_bench read+decode FILE reader and decoder (no formatting)
 *   captures_bench format FILE      rt_pkt_format_line() alone over decoded packets
 *   captures_bench libpcap FILE     a bare libpcap pcap_next_ex() loop
 *
 * Prints "MODE PACKETS SECONDS PACKETS_PER_SECOND".
 */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rdmatrace/capfile.h"
#include "rdmatrace/roce_decode.h"
#include "rdmatrace/roce_format.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static volatile uint64_t sink;

static void report(const char *mode, uint64_t n, double s)
{
	printf("%s %llu %.3f %.0f\n", mode, (unsigned long long)n, s, s > 0 ? (double)n / s : 0);
}

static int bench_libpcap(const char *path)
{
	char ebuf[PCAP_ERRBUF_SIZE];
	double t0 = now();
	pcap_t *pc = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, ebuf);
	if (!pc) {
		fprintf(stderr, "%s\n", ebuf);
		return 1;
	}
	struct pcap_pkthdr *h;
	const u_char *d;
	uint64_t n = 0, bytes = 0;
	while (pcap_next_ex(pc, &h, &d) == 1) {
		n++;
		bytes += h->caplen + d[0];
	}
	pcap_close(pc);
	sink = bytes;
	report("libpcap", n, now() - t0);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: captures_bench decode|decode-noicrc|read|read+decode|format|libpcap FILE\n");
		return 2;
	}
	const char *mode = argv[1], *path = argv[2];
	if (!strcmp(mode, "libpcap"))
		return bench_libpcap(path);
	char err[256];
	struct rt_capfile *f;
	double t0 = now();
	if (rt_capfile_open(path, RT_CAPFILE_MMAP, &f, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	struct rt_caprec rec;
	struct rt_pkt pkt;
	uint64_t n = 0, roce = 0;
	if (!strcmp(mode, "read") || !strcmp(mode, "read+decode")) {
		int decode = mode[4] == '+';
		while (rt_capfile_next(f, &rec) > 0) {
			n++;
			if (decode)
				roce += rt_decode(NULL, rec.linktype, rec.data, rec.caplen, rec.wirelen, &pkt) == 1;
			else
				roce += rec.data[0];
		}
		sink = roce;
		report(mode, n, now() - t0);
		rt_capfile_close(f);
		return 0;
	}
	/* decoder alone: collect the frames first (they stay mapped), then time rt_decode */
	size_t cap = 1 << 20;
	struct rt_caprec *v = malloc(cap * sizeof(*v));
	while (rt_capfile_next(f, &rec) > 0) {
		if (n == cap)
			v = realloc(v, (cap *= 2) * sizeof(*v));
		v[n++] = rec;
	}
	struct rt_decode_opts o = { NULL, 0, !strcmp(mode, "decode-noicrc"), false };
	if (!strcmp(mode, "format")) {
		struct rt_pkt *pk = malloc(n * sizeof(*pk));
		for (uint64_t i = 0; i < n; i++)
			rt_decode(&o, v[i].linktype, v[i].data, v[i].caplen, v[i].wirelen, &pk[i]);
		char line[RT_FMT_LINE_MAX];
		struct rt_fmt_ctx ctx = { 0, 0, v[0].ts_ns, 0, NULL };
		t0 = now();
		for (uint64_t i = 0; i < n; i++) {
			ctx.frame = v[i].frame;
			ctx.ts_ns = v[i].ts_ns;
			roce += rt_pkt_format_line(&pk[i], &ctx, line, sizeof(line));
		}
		report(mode, n, now() - t0);
		sink = roce;
		free(pk);
		free(v);
		rt_capfile_close(f);
		return 0;
	}
	t0 = now();
	for (uint64_t i = 0; i < n; i++)
		roce += rt_decode(&o, v[i].linktype, v[i].data, v[i].caplen, v[i].wirelen, &pkt) == 1;
	double el = now() - t0;
	sink = roce;
	report(mode, n, el);
	free(v);
	rt_capfile_close(f);
	return 0;
}

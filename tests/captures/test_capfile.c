/*
 * Capture-file reading and writing, with both backends (our own reader and
 * libpcap): pcap in both byte orders and resolutions, pcapng from our
 * writer (comments, several interfaces, statistics) and hand-made pcapng
 * (microsecond and binary resolutions, if_tsoffset, simple packet blocks),
 * and damage: a file cut at every offset and corrupted lengths must give a
 * clear error after returning every packet before the damage.  A file is
 * read through a window (capfile_window.c): with windows from one byte up,
 * it must read exactly as the same bytes in a buffer, and a file that
 * shrinks while it is read gives an error after the records before.
 * gzip-compressed files and buffers (one member or several) read as the
 * same capture uncompressed, with both backends and windows from one byte
 * up, inflated as they are read (the peak memory of a 64 MiB one); cut at
 * every offset or damaged, they give an error naming gzip after the
 * records before.  Through a pipe (a FIFO, or "-" for standard input),
 * plain or compressed, the same records (a pcapng with two link types,
 * comments and statistics too, which libpcap refuses); a compressed stream
 * that stops for a while gives the records it has sent before it goes on;
 * one cut short, the records before and an error naming the codec.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <lz4frame.h>
#include <zlib.h>
#include <zstd.h>

#include "rdmatrace/capfile.h"
#include "rdmatrace/pcapng_write.h"
#include "rdmatrace/roce_decode.h"
#include "capfile_window_check.h"
#include "synth.h"
#include "testlib.h"

#define NPKT 6

static char tmpdir[128];

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	uint8_t *b = malloc((size_t)n + 1);
	*len = fread(b, 1, (size_t)n, f);
	fclose(f);
	return b;
}

static void spit(const char *path, const uint8_t *b, size_t len)
{
	FILE *f = fopen(path, "wb");
	fwrite(b, 1, len, f);
	fclose(f);
}

/* NPKT RoCE frames of different sizes. */
static size_t make_frame(int i, uint8_t *out)
{
	static uint8_t payload[300];
	struct synth s;
	uint64_t rng = (uint64_t)i;
	synth_base(&s, &rng, i % 2 ? 6 : 4, i % 3 == 2);
	s.opcode = RT_OP_RC_SEND_ONLY;
	s.psn = (uint32_t)(1000 + i);
	s.payload = payload;
	s.payload_len = (size_t)(i * 50);
	return synth_build(&s, out);
}

static const uint64_t ts0 = 1700000000123456789ull;

static void write_pcap(const char *path, bool nano)
{
	FILE *f = fopen(path, "wb");
	uint32_t hdr[6] = { nano ? 0xA1B23C4Du : 0xA1B2C3D4u, 2 | 4u << 16, 0, 0, 262144, 1 };
	fwrite(hdr, 4, 6, f);
	for (int i = 0; i < NPKT; i++) {
		uint8_t fr[1024];
		uint32_t len = (uint32_t)make_frame(i, fr);
		uint64_t ts = ts0 + (uint64_t)i * 1000;
		uint32_t rec[4] = { (uint32_t)(ts / 1000000000u),
				    nano ? (uint32_t)(ts % 1000000000u) : (uint32_t)(ts % 1000000000u / 1000), len, len };
		fwrite(rec, 4, 4, f);
		fwrite(fr, 1, len, f);
	}
	fclose(f);
}

/* The same file with every 32/16-bit header field byte-swapped (a big-endian writer). */
static void swap_pcap(const char *in, const char *out)
{
	size_t len;
	uint8_t *b = slurp(in, &len);
	uint32_t *w = (uint32_t *)b;
	for (int i = 0; i < 6; i++)
		if (i != 1)
			w[i] = __builtin_bswap32(w[i]);
	uint16_t *v = (uint16_t *)(b + 4);
	v[0] = __builtin_bswap16(v[0]);
	v[1] = __builtin_bswap16(v[1]);
	size_t pos = 24;
	while (pos + 16 <= len) {
		uint32_t incl;
		memcpy(&incl, b + pos + 8, 4);
		for (int k = 0; k < 4; k++) {
			uint32_t x;
			memcpy(&x, b + pos + 4 * k, 4);
			x = __builtin_bswap32(x);
			memcpy(b + pos + 4 * k, &x, 4);
		}
		pos += 16 + incl;
	}
	spit(out, b, len);
	free(b);
}

static void write_pcapng(const char *path)
{
	char err[256];
	struct rt_pcapng_writer *w;
	struct rt_pcapng_opts o = { "test section", NULL, NULL, NULL };
	CHECK(rt_pcapng_open(path, &o, &w, err, sizeof(err)) == 0);
	uint32_t a, b;
	CHECK(rt_pcapng_interface(w, RT_LINKTYPE_ETHERNET, 262144, "eth0", &a) == 0);
	CHECK(rt_pcapng_interface_for(w, RT_LINKTYPE_RAW, &b) == 0);
	uint32_t again;
	CHECK(rt_pcapng_interface_for(w, RT_LINKTYPE_RAW, &again) == 0);
	CHECK_EQ_U(again, b);
	for (int i = 0; i < NPKT; i++) {
		uint8_t fr[1024];
		uint32_t len = (uint32_t)make_frame(i, fr);
		char c[32];
		snprintf(c, sizeof(c), "packet %d", i);
		if (i == 3) /* raw IP on the second interface */
			CHECK(rt_pcapng_packet(w, b, ts0 + (uint64_t)i * 1000, fr + 14, len - 14, len - 14, c) == 0);
		else
			CHECK(rt_pcapng_packet(w, a, ts0 + (uint64_t)i * 1000, fr, len, len, i % 2 ? c : NULL) == 0);
	}
	struct rt_pcapng_stats st = { ts0 + 9999, ts0, ts0 + 9999, 10, 3, 1, NPKT, "stats" };
	CHECK(rt_pcapng_stats(w, a, &st) == 0);
	CHECK(rt_pcapng_packet(w, 7, 0, "x", 1, 1, NULL) == -EINVAL);
	CHECK(rt_pcapng_close(w, err, sizeof(err)) == 0);
}

/* Read path with backend: count RoCE packets, check timestamps and PSNs. */
static int read_all(const char *path, enum rt_capfile_backend be, int *count, char *err, size_t errlen,
		    bool check_ts, uint64_t ts_unit)
{
	struct rt_capfile *f;
	*count = 0;
	int rc = rt_capfile_open(path, be, &f, err, errlen);
	if (rc < 0)
		return rc;
	struct rt_caprec rec;
	while ((rc = rt_capfile_next(f, &rec)) > 0) {
		struct rt_pkt p;
		CHECK_EQ_U(rt_decode(NULL, rec.linktype, rec.data, rec.caplen, rec.wirelen, &p), 1);
		CHECK_EQ_U(p.icrc_status, RT_ICRC_GOOD);
		CHECK_EQ_U(p.bth.psn, 1000 + *count);
		CHECK_EQ_U(rec.frame, (uint64_t)*count + 1);
		if (check_ts)
			CHECK_EQ_U(rec.ts_ns, (ts0 + (uint64_t)*count * 1000) / ts_unit * ts_unit);
		(*count)++;
	}
	if (rc < 0)
		snprintf(err, errlen, "%s", rt_capfile_error(f));
	rt_capfile_close(f);
	return rc;
}

/* The records of path (whatever their bytes) into *count: the end's code. */
static int count_records(const char *path, int *count, char *err, size_t errlen)
{
	struct rt_capfile *f;
	*count = 0;
	int rc = rt_capfile_open(path, RT_CAPFILE_AUTO, &f, err, errlen);
	if (rc < 0)
		return rc;
	struct rt_caprec rec;
	while ((rc = rt_capfile_next(f, &rec)) > 0)
		(*count)++;
	if (rc < 0)
		snprintf(err, errlen, "%s", rt_capfile_error(f));
	rt_capfile_close(f);
	return rc;
}

static void path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tmpdir, name);
}

static void test_pcap_variants(void)
{
	char p_ns[256], p_us[256], p_sw[256], err[256];
	path_of(p_ns, sizeof(p_ns), "ns.pcap");
	path_of(p_us, sizeof(p_us), "us.pcap");
	path_of(p_sw, sizeof(p_sw), "swapped.pcap");
	write_pcap(p_ns, true);
	write_pcap(p_us, false);
	swap_pcap(p_ns, p_sw);
	const enum rt_capfile_backend bes[] = { RT_CAPFILE_MMAP, RT_CAPFILE_LIBPCAP, RT_CAPFILE_AUTO };
	for (size_t b = 0; b < 3; b++) {
		int n;
		CHECK_EQ_U(read_all(p_ns, bes[b], &n, err, sizeof(err), true, 1), 0);
		CHECK_EQ_U(n, NPKT);
		CHECK_EQ_U(read_all(p_us, bes[b], &n, err, sizeof(err), true, 1000), 0);
		CHECK_EQ_U(n, NPKT);
		CHECK_EQ_U(read_all(p_sw, bes[b], &n, err, sizeof(err), true, 1), 0);
		CHECK_EQ_U(n, NPKT);
	}
	struct rt_capfile *f;
	CHECK(rt_capfile_open(p_ns, RT_CAPFILE_AUTO, &f, err, sizeof(err)) == 0);
	CHECK_STR(rt_capfile_backend_name(f), "mmap");
	CHECK_STR(rt_capfile_format(f), "pcap");
	CHECK_EQ_U(rt_capfile_linktype(f), 1);
	rt_capfile_close(f);
}

static void test_pcapng_from_writer(void)
{
	char path[256], err[256];
	path_of(path, sizeof(path), "w.pcapng");
	write_pcapng(path);
	const enum rt_capfile_backend bes[] = { RT_CAPFILE_MMAP, RT_CAPFILE_LIBPCAP };
	for (size_t b = 0; b < 2; b++) {
		int n;
		/* libpcap reads one link type per file: the raw-IP packet makes it fail */
		int rc = read_all(path, bes[b], &n, err, sizeof(err), true, 1);
		if (bes[b] == RT_CAPFILE_MMAP) {
			CHECK_EQ_U(rc, 0);
			CHECK_EQ_U(n, NPKT);
		} else {
			CHECK(rc < 0 && n < NPKT);
			printf("# libpcap on a two-link-type pcapng: %s\n", err);
		}
	}
	struct rt_capfile *f;
	CHECK(rt_capfile_open(path, RT_CAPFILE_MMAP, &f, err, sizeof(err)) == 0);
	CHECK_STR(rt_capfile_format(f), "pcapng");
	struct rt_capfile_stats st;
	rt_capfile_stats(f, &st);
	CHECK_EQ_U(st.blocks, 0); /* the statistics block comes after the packets */
	struct rt_caprec rec;
	int i = 0;
	while (rt_capfile_next(f, &rec) > 0) {
		char want[32];
		snprintf(want, sizeof(want), "packet %d", i);
		if (i % 2) {
			CHECK(rec.comment && rec.comment_len == strlen(want) && !memcmp(rec.comment, want, rec.comment_len));
		} else {
			CHECK(rec.comment == NULL);
		}
		CHECK_EQ_U(rec.linktype, i == 3 ? RT_LINKTYPE_RAW : RT_LINKTYPE_ETHERNET);
		CHECK_EQ_U(rec.ifindex, i == 3 ? 1 : 0);
		i++;
	}
	rt_capfile_stats(f, &st);
	CHECK_EQ_U(st.blocks, 1);
	CHECK_EQ_U(st.have, RT_CAPSTAT_IFRECV | RT_CAPSTAT_IFDROP | RT_CAPSTAT_OSDROP | RT_CAPSTAT_USRDELIV);
	CHECK_EQ_U(st.ifrecv, 10);
	CHECK_EQ_U(st.ifdrop, 3);
	CHECK_EQ_U(st.osdrop, 1);
	CHECK_EQ_U(st.usrdeliv, NPKT);
	rt_capfile_close(f);
	/* libpcap does not expose the blocks: nothing known */
	CHECK(rt_capfile_open(path, RT_CAPFILE_LIBPCAP, &f, err, sizeof(err)) == 0);
	while (rt_capfile_next(f, &rec) > 0)
		;
	rt_capfile_stats(f, &st);
	CHECK_EQ_U(st.blocks, 0);
	CHECK_EQ_U(st.ifdrop, 0);
	rt_capfile_close(f);
}

static size_t put_block(uint8_t *b, uint32_t type, const void *body, uint32_t blen)
{
	uint32_t total = 12 + ((blen + 3) & ~3u);
	memcpy(b, &type, 4);
	memcpy(b + 4, &total, 4);
	memset(b + 8, 0, total - 12);
	memcpy(b + 8, body, blen);
	memcpy(b + total - 4, &total, 4);
	return total;
}

/* An interface statistics block body: interface, timestamp, then 64-bit options. */
static uint32_t isb_body(uint8_t *b, uint32_t ifid, const uint16_t *codes, const uint64_t *vals, unsigned n)
{
	uint32_t pos = 0;
	memcpy(b, &ifid, 4);
	memset(b + 4, 0, 8);
	pos = 12;
	for (unsigned i = 0; i < n; i++) {
		uint16_t hdr[2] = { codes[i], 8 };
		memcpy(b + pos, hdr, 4);
		memcpy(b + pos + 4, &vals[i], 8);
		pos += 12;
	}
	memset(b + pos, 0, 4); /* opt_endofopt */
	return pos + 4;
}

/* Statistics blocks: the last one of an interface counts, interfaces and sections add up,
 * a block naming an interface the section lacks is damage. */
static void test_pcapng_statistics(void)
{
	static uint8_t file[4096];
	size_t pos = 0;
	uint8_t body[256];
	uint32_t shb[4] = { 0x1A2B3C4D, 1, 0xFFFFFFFF, 0xFFFFFFFF };
	uint8_t idb[8] = { 1, 0, 0, 0, 0, 0, 4, 0 };
	pos += put_block(file + pos, 0x0A0D0D0A, shb, 16);
	pos += put_block(file + pos, 1, idb, 8);
	pos += put_block(file + pos, 1, idb, 8);
	uint16_t codes[3] = { 4, 5, 7 };
	uint64_t early[3] = { 50, 7, 0 }, late[3] = { 90, 11, 2 }, other[3] = { 5, 1, 0 };
	pos += put_block(file + pos, 5, body, isb_body(body, 0, codes, early, 3));
	pos += put_block(file + pos, 5, body, isb_body(body, 1, codes, other, 2)); /* no isb_osdrop */
	pos += put_block(file + pos, 5, body, isb_body(body, 0, codes, late, 3));  /* replaces "early" */
	/* a second section, one interface, only isb_ifdrop */
	pos += put_block(file + pos, 0x0A0D0D0A, shb, 16);
	pos += put_block(file + pos, 1, idb, 8);
	uint64_t drop[1] = { 100 };
	pos += put_block(file + pos, 5, body, isb_body(body, 0, codes + 1, drop, 1));
	size_t good = pos;
	pos += put_block(file + pos, 5, body, isb_body(body, 4, codes, late, 3)); /* interface 4 of 1 */
	struct rt_capfile *f;
	char err[256];
	struct rt_caprec rec;
	struct rt_capfile_stats st;
	CHECK(rt_capfile_open_mem(file, good, RT_CAPFILE_MMAP, &f, err, sizeof(err)) == 0);
	CHECK_EQ_U(rt_capfile_next(f, &rec), 0);
	rt_capfile_stats(f, &st);
	CHECK_EQ_U(st.blocks, 3);
	CHECK_EQ_U(st.have, RT_CAPSTAT_IFRECV | RT_CAPSTAT_IFDROP | RT_CAPSTAT_OSDROP);
	CHECK_EQ_U(st.ifrecv, 95);
	CHECK_EQ_U(st.ifdrop, 112);
	CHECK_EQ_U(st.osdrop, 2);
	CHECK_EQ_U(st.usrdeliv, 0);
	rt_capfile_close(f);
	CHECK(rt_capfile_open_mem(file, pos, RT_CAPFILE_MMAP, &f, err, sizeof(err)) == 0);
	CHECK_EQ_U(rt_capfile_next(f, &rec), -EBADMSG);
	CHECK(strstr(rt_capfile_error(f), "names interface 4") != NULL);
	rt_capfile_stats(f, &st); /* what came before the damage stays */
	CHECK_EQ_U(st.ifdrop, 112);
	rt_capfile_close(f);
}

/* Hand-made pcapng: microsecond and 2^-10 resolutions, if_tsoffset, an SPB, unknown blocks. */
static void test_pcapng_handmade(void)
{
	static uint8_t file[8192];
	size_t pos = 0;
	uint8_t body[2048];
	uint32_t shb[4] = { 0x1A2B3C4D, 1, 0xFFFFFFFF, 0xFFFFFFFF };
	pos += put_block(file + pos, 0x0A0D0D0A, shb, 16);
	/* IDB 0: Ethernet, default resolution (microseconds), if_tsoffset 100 s */
	uint8_t idb0[24] = { 1, 0, 0, 0, 0, 0, 4, 0, 14, 0, 8, 0, 100, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	pos += put_block(file + pos, 1, idb0, 24);
	/* IDB 1: Ethernet, if_tsresol 2^-10 */
	uint8_t idb1[20] = { 1, 0, 0, 0, 0, 0, 4, 0, 9, 0, 1, 0, 0x8A, 0, 0, 0, 0, 0, 0, 0 };
	pos += put_block(file + pos, 1, idb1, 20);
	uint8_t fr[1024];
	uint32_t len = (uint32_t)make_frame(0, fr);
	/* EPB on IDB 0 at 5 s (5e6 us) */
	uint32_t epb[5] = { 0, 0, 5000000, len, len };
	memcpy(body, epb, 20);
	memcpy(body + 20, fr, len);
	pos += put_block(file + pos, 6, body, 20 + len);
	/* a custom block to skip */
	pos += put_block(file + pos, 0x00000BAD, "skip me", 7);
	/* EPB on IDB 1 at 3 ticks of 1/1024 s */
	len = (uint32_t)make_frame(1, fr);
	uint32_t epb1[5] = { 1, 0, 3 * 1024 + 512, len, len };
	memcpy(body, epb1, 20);
	memcpy(body + 20, fr, len);
	pos += put_block(file + pos, 6, body, 20 + len);
	/* SPB (interface 0) */
	len = (uint32_t)make_frame(2, fr);
	memcpy(body, &len, 4);
	memcpy(body + 4, fr, len);
	pos += put_block(file + pos, 3, body, 4 + len);
	struct rt_capfile *f;
	char err[256];
	CHECK(rt_capfile_open_mem(file, pos, RT_CAPFILE_MMAP, &f, err, sizeof(err)) == 0);
	struct rt_caprec rec;
	CHECK_EQ_U(rt_capfile_next(f, &rec), 1);
	CHECK_EQ_U(rec.ts_ns, 105000000000ull);
	CHECK_EQ_U(rt_capfile_next(f, &rec), 1);
	CHECK_EQ_U(rec.ts_ns, 3500000000ull);
	CHECK_EQ_U(rt_capfile_next(f, &rec), 1);
	struct rt_pkt p;
	CHECK_EQ_U(rt_decode(NULL, rec.linktype, rec.data, rec.caplen, rec.wirelen, &p), 1);
	CHECK_EQ_U(p.bth.psn, 1002);
	CHECK_EQ_U(rt_capfile_next(f, &rec), 0);
	rt_capfile_close(f);
	/* the same bytes through libpcap */
	CHECK(rt_capfile_open_mem(file, pos, RT_CAPFILE_LIBPCAP, &f, err, sizeof(err)) == 0);
	int n = 0;
	while (rt_capfile_next(f, &rec) > 0)
		n++;
	CHECK_EQ_U(n, 3);
	rt_capfile_close(f);
}

/* Cut a file at every offset: no crash; the packets wholly before the cut are read; a cut
 * inside a record or block gives -EBADMSG with a message. */
static void check_every_cut(const char *name, const char *path, enum rt_capfile_backend be, size_t header_len)
{
	size_t len;
	uint8_t *full = slurp(path, &len);
	CHECK(full != NULL);
	if (!full)
		return;
	/* record boundaries: where a whole number of packets ends */
	size_t bounds[NPKT + 8];
	int nb = 0;
	{
		struct rt_capfile *f;
		char err[256];
		CHECK(rt_capfile_open_mem(full, len, RT_CAPFILE_MMAP, &f, err, sizeof(err)) == 0);
		struct rt_caprec rec;
		while (rt_capfile_next(f, &rec) > 0)
			bounds[nb++] = (size_t)(rec.data - full) + rec.caplen;
		rt_capfile_close(f);
	}
	size_t bad = 0;
	for (size_t cut = 0; cut <= len; cut++) {
		uint8_t *copy = malloc(cut ? cut : 1);
		memcpy(copy, full, cut);
		struct rt_capfile *f;
		char err[256] = "";
		int rc = rt_capfile_open_mem(copy, cut, be, &f, err, sizeof(err));
		int n = 0;
		if (rc == 0) {
			struct rt_caprec rec;
			while ((rc = rt_capfile_next(f, &rec)) > 0)
				n++;
			if (rc < 0)
				snprintf(err, sizeof(err), "%s", rt_capfile_error(f));
			rt_capfile_close(f);
		}
		int expect = 0;
		while (expect < nb && bounds[expect] <= cut)
			expect++;
		/* libpcap's pcapng reader needs the whole block, ours too; pcap records end at the data */
		if (cut >= header_len && n != expect && n != expect - 1) {
			if (bad++ < 5)
				printf("# %s cut at %zu: %d packets, expected %d (%s)\n", name, cut, n, expect, err);
		}
		if (cut >= header_len && rc < 0 && !err[0]) {
			if (bad++ < 5)
				printf("# %s cut at %zu: error without a message\n", name, cut);
		}
		if (cut == len && (rc != 0 || n != nb)) {
			bad++;
			printf("# %s: the whole file reads %d packets, rc %d\n", name, n, rc);
		}
		free(copy);
	}
	CHECK_EQ_U(bad, 0);
	free(full);
}

static void test_truncated_files(void)
{
	char p1[256], p2[256];
	path_of(p1, sizeof(p1), "ns.pcap");
	write_pcap(p1, true);
	path_of(p2, sizeof(p2), "cut.pcapng");
	char err[256];
	struct rt_pcapng_writer *w;
	CHECK(rt_pcapng_open(p2, NULL, &w, err, sizeof(err)) == 0);
	uint32_t ifc;
	rt_pcapng_interface(w, 1, 262144, NULL, &ifc);
	for (int i = 0; i < NPKT; i++) {
		uint8_t fr[1024];
		uint32_t len = (uint32_t)make_frame(i, fr);
		rt_pcapng_packet(w, ifc, ts0, fr, len, len, "c");
	}
	CHECK(rt_pcapng_close(w, err, sizeof(err)) == 0);
	check_every_cut("pcap/mmap", p1, RT_CAPFILE_MMAP, 24);
	check_every_cut("pcap/libpcap", p1, RT_CAPFILE_LIBPCAP, 24);
	check_every_cut("pcapng/mmap", p2, RT_CAPFILE_MMAP, 28);
	check_every_cut("pcapng/libpcap", p2, RT_CAPFILE_LIBPCAP, 28);
}

static void test_corrupt_lengths(void)
{
	char path[256], err[256];
	path_of(path, sizeof(path), "ns.pcap");
	write_pcap(path, true);
	size_t len;
	uint8_t *b = slurp(path, &len);
	/* third record's captured length becomes huge */
	size_t pos = 24;
	for (int i = 0; i < 2; i++) {
		uint32_t incl;
		memcpy(&incl, b + pos + 8, 4);
		pos += 16 + incl;
	}
	uint32_t huge = 0x7FFFFFF0;
	memcpy(b + pos + 8, &huge, 4);
	const enum rt_capfile_backend bes[] = { RT_CAPFILE_MMAP, RT_CAPFILE_LIBPCAP };
	for (int k = 0; k < 2; k++) {
		struct rt_capfile *f;
		CHECK(rt_capfile_open_mem(b, len, bes[k], &f, err, sizeof(err)) == 0);
		struct rt_caprec rec;
		int n = 0, rc;
		while ((rc = rt_capfile_next(f, &rec)) > 0)
			n++;
		CHECK_EQ_U(n, 2);
		CHECK_EQ_U(rc, -EBADMSG);
		CHECK(strlen(rt_capfile_error(f)) > 10);
		printf("# %s: %s\n", k ? "libpcap" : "mmap", rt_capfile_error(f));
		/* the error is sticky */
		CHECK_EQ_U(rt_capfile_next(f, &rec), -EBADMSG);
		rt_capfile_close(f);
	}
	free(b);
	/* pcapng: a block whose trailing length disagrees */
	path_of(path, sizeof(path), "w.pcapng");
	write_pcapng(path);
	b = slurp(path, &len);
	b[len - 1] ^= 0x40; /* last block's trailing length */
	struct rt_capfile *f;
	CHECK(rt_capfile_open_mem(b, len, RT_CAPFILE_MMAP, &f, err, sizeof(err)) == 0);
	struct rt_caprec rec;
	int n = 0, rc;
	while ((rc = rt_capfile_next(f, &rec)) > 0)
		n++;
	CHECK_EQ_U(n, NPKT);
	CHECK_EQ_U(rc, -EBADMSG);
	printf("# pcapng: %s\n", rt_capfile_error(f));
	rt_capfile_close(f);
	free(b);
	/* not a capture at all, an empty file, a missing file */
	const char text[] = "this is not a capture file";
	CHECK(rt_capfile_open_mem(text, sizeof(text), RT_CAPFILE_AUTO, &f, err, sizeof(err)) < 0);
	printf("# text: %s\n", err);
	CHECK(err[0] != 0);
	CHECK(rt_capfile_open_mem(text, 0, RT_CAPFILE_MMAP, &f, err, sizeof(err)) < 0);
	CHECK(rt_capfile_open("/nonexistent/x.pcap", RT_CAPFILE_AUTO, &f, err, sizeof(err)) == -ENOENT);
	CHECK(strstr(err, "/nonexistent/x.pcap") != NULL);
}

/* Files read through windows of every size from one byte up read as the
 * same bytes in a buffer do, whole and cut at every offset. */
static void test_window(void)
{
	char p[5][256];
	path_of(p[0], sizeof(p[0]), "win-ns.pcap");
	write_pcap(p[0], true);
	path_of(p[1], sizeof(p[1]), "win-us.pcap");
	write_pcap(p[1], false);
	path_of(p[2], sizeof(p[2]), "win-swapped.pcap");
	swap_pcap(p[1], p[2]);
	path_of(p[3], sizeof(p[3]), "win.pcapng");
	write_pcapng(p[3]); /* comments, two interfaces, a statistics block */
	path_of(p[4], sizeof(p[4]), "win-2.pcapng");
	{
		/* two sections of that file back to back */
		size_t len;
		uint8_t *b = slurp(p[3], &len);
		uint8_t *two = malloc(2 * len);
		memcpy(two, b, len);
		memcpy(two + len, b, len);
		spit(p[4], two, 2 * len);
		free(two);
		free(b);
	}
	const size_t windows[] = { 1, 3, 16, 64, 100, 4096, 1u << 20 };
	size_t bad = 0;
	char why[512];
	for (int k = 0; k < 5; k++) {
		size_t len;
		uint8_t *b = slurp(p[k], &len);
		for (size_t w = 0; w < sizeof(windows) / sizeof(windows[0]); w++)
			if (capfile_window_differs(b, len, windows[w], why, sizeof(why)) && bad++ < 5)
				printf("# %s, window %zu: %s\n", p[k], windows[w], why);
		/* every cut, and every byte damaged in turn, through a 7-byte window */
		for (size_t cut = 0; cut <= len; cut++)
			if (capfile_window_differs(b, cut, 7, why, sizeof(why)) && bad++ < 5)
				printf("# %s cut at %zu: %s\n", p[k], cut, why);
		for (size_t i = 0; i < len; i++) {
			b[i] ^= 0x5A;
			if (capfile_window_differs(b, len, 7, why, sizeof(why)) && bad++ < 5)
				printf("# %s, byte %zu damaged: %s\n", p[k], i, why);
			b[i] ^= 0x5A;
		}
		free(b);
	}
	CHECK_EQ_U(bad, 0);
}

/* A file that shrinks while it is read: the records before the end that is
 * gone, then an error saying so. */
static void test_window_shrinks(void)
{
	char path[256], err[256];
	path_of(path, sizeof(path), "shrinks.pcap");
	write_pcap(path, true);
	size_t saved = capfile_window_size;
	capfile_window_size = 64; /* the first record and a bit: the rest is read later */
	struct rt_capfile *f;
	CHECK(rt_capfile_open(path, RT_CAPFILE_AUTO, &f, err, sizeof(err)) == 0);
	CHECK_STR(rt_capfile_backend_name(f), "mmap");
	CHECK(!rt_capfile_data_stable(f));
	struct rt_caprec rec;
	CHECK_EQ_U(rt_capfile_next(f, &rec), 1);
	CHECK(truncate(path, 24 + 16 + rec.caplen + 20) == 0); /* into the second record's data */
	int n = 1, rc;
	while ((rc = rt_capfile_next(f, &rec)) > 0)
		n++;
	CHECK_EQ_U(n, 1);
	CHECK_EQ_U(rc, -EBADMSG);
	printf("# %s\n", rt_capfile_error(f));
	CHECK(strstr(rt_capfile_error(f), "shrank") != NULL);
	CHECK_EQ_U(rt_capfile_next(f, &rec), -EBADMSG); /* sticky */
	rt_capfile_close(f);
	capfile_window_size = saved;
}

enum codec { GZIP, ZSTD, LZ4, NCODECS };
static const char *const codec_name[] = { "gzip", "zstd", "lz4" };
static const char *const codec_ext[] = { "gz", "zst", "lz4" };

/* b[len] compressed with codec c into a new buffer (*out_len bytes), with
 * the checksum each format can carry (the zstd and lz4 tools write one). */
static uint8_t *compress_of(enum codec c, const uint8_t *b, size_t len, size_t *out_len)
{
	size_t cap = (c == GZIP ? compressBound((uLong)len) : c == ZSTD ? ZSTD_compressBound(len)
								       : LZ4F_compressFrameBound(len, NULL)) + 64;
	uint8_t *out = malloc(cap);
	if (c == GZIP) {
		z_stream z;
		memset(&z, 0, sizeof(z));
		CHECK(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK);
		z.next_in = (Bytef *)(uintptr_t)b;
		z.avail_in = (uInt)len;
		z.next_out = out;
		z.avail_out = (uInt)cap;
		CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END);
		*out_len = cap - z.avail_out;
		deflateEnd(&z);
	} else if (c == ZSTD) {
		ZSTD_CCtx *cc = ZSTD_createCCtx();
		ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
		*out_len = ZSTD_compress2(cc, out, cap, b, len);
		CHECK(!ZSTD_isError(*out_len));
		ZSTD_freeCCtx(cc);
	} else {
		LZ4F_preferences_t prefs;
		memset(&prefs, 0, sizeof(prefs));
		prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
		*out_len = LZ4F_compressFrame(out, cap, b, len, &prefs);
		CHECK(!LZ4F_isError(*out_len));
	}
	return out;
}

/* The peak resident memory since the last reset_peak(), in KiB. */
static long peak_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kib = -1;
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmHWM:", 6))
			kib = atol(line + 6);
	if (f)
		fclose(f);
	return kib;
}

static bool reset_peak(void)
{
	FILE *f = fopen("/proc/self/clear_refs", "w");
	bool ok = f && fputs("5", f) >= 0;
	if (f)
		ok = fclose(f) == 0 && ok;
	return ok;
}

/* A gzip capture is inflated as it is read, not whole: reading one that
 * inflates to 64 MiB raises the peak resident memory by about a window,
 * not by its size. */
static void test_gzip_streams(void)
{
	char path[256];
	path_of(path, sizeof(path), "big.pcap.gz");
	gzFile z = gzopen(path, "wb1");
	CHECK(z != NULL);
	if (!z)
		return;
	uint8_t hdr[24] = { 0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0 }, rec[16 + 1000];
	memset(hdr + 8, 0, 16);
	hdr[16] = 0xff, hdr[17] = 0xff; /* snaplen 65535 */
	hdr[20] = 1;                      /* Ethernet */
	memset(rec, 0x5a, sizeof(rec));
	uint32_t len = 1000;
	memset(rec + 4, 0, 4); /* microseconds */
	memcpy(rec + 8, &len, 4);
	memcpy(rec + 12, &len, 4);
	CHECK(gzwrite(z, hdr, sizeof(hdr)) == (int)sizeof(hdr));
	const int n = 64 * 1024 * 1024 / (int)sizeof(rec);
	for (int i = 0; i < n; i++) {
		uint32_t sec = (uint32_t)i;
		memcpy(rec, &sec, 4);
		CHECK(gzwrite(z, rec, sizeof(rec)) == (int)sizeof(rec));
	}
	CHECK(gzclose(z) == Z_OK);
	if (!reset_peak()) {
		printf("# cannot reset the peak resident memory: streaming not measured\n");
		return;
	}
	long before = peak_kib();
	char err[256];
	struct rt_capfile *f;
	CHECK(rt_capfile_open(path, RT_CAPFILE_AUTO, &f, err, sizeof(err)) == 0);
	struct rt_caprec r;
	int got = 0, rc;
	while ((rc = rt_capfile_next(f, &r)) > 0)
		got += r.caplen == 1000 && r.ts_ns == (uint64_t)got * 1000000000u;
	CHECK_EQ_U(rc, 0);
	CHECK_EQ_U(got, n);
	rt_capfile_close(f);
	long after = peak_kib();
	printf("# %d records, 64 MiB inflated: peak resident memory %ld -> %ld KiB\n", n, before, after);
	CHECK(before > 0 && after - before < 16 * 1024);
}

static void test_compressed(void)
{
	char plain[256], zp[256], two[256], cut[256], err[256], fmt[32];
	const enum rt_capfile_backend bes[] = { RT_CAPFILE_MMAP, RT_CAPFILE_LIBPCAP, RT_CAPFILE_AUTO };
	for (int cc = 0; cc < NCODECS; cc++)
	for (int ng = 0; ng < 2; ng++) {
		enum codec c = (enum codec)cc;
		const char *ext = codec_ext[c], *name = codec_name[c];
		path_of(plain, sizeof(plain), ng ? "z.pcapng" : "z.pcap");
		char leaf[64];
		snprintf(leaf, sizeof(leaf), "z.%s.%s", ng ? "pcapng" : "pcap", ext);
		path_of(zp, sizeof(zp), leaf);
		snprintf(leaf, sizeof(leaf), "two.%s.%s", ng ? "pcapng" : "pcap", ext);
		path_of(two, sizeof(two), leaf);
		snprintf(leaf, sizeof(leaf), "cut.%s.%s", ng ? "pcapng" : "pcap", ext);
		path_of(cut, sizeof(cut), leaf);
		printf("# %s, %s\n", name, ng ? "pcapng" : "pcap");
		if (ng)
			write_pcapng(plain);
		else
			write_pcap(plain, true);
		size_t len, zlen, h1, h2;
		uint8_t *b = slurp(plain, &len);
		uint8_t *z = compress_of(c, b, len, &zlen);
		spit(zp, z, zlen);
		/* two members or frames, the file split in the middle of a record (`cat a.gz b.gz`) */
		uint8_t *z1 = compress_of(c, b, len / 2, &h1), *z2 = compress_of(c, b + len / 2, len - len / 2, &h2);
		uint8_t *cat = malloc(h1 + h2);
		memcpy(cat, z1, h1);
		memcpy(cat + h1, z2, h2);
		spit(two, cat, h1 + h2);
		CHECK(rt_capfile_name_is_capture(zp) && rt_capfile_name_is_capture(plain) && !rt_capfile_name_is_capture("x.gz"));
		CHECK_STR(rt_capfile_compression(z, zlen), name);
		for (size_t k = 0; k < 3; k++) {
			int n;
			if (ng && bes[k] == RT_CAPFILE_LIBPCAP)
				continue; /* (libpcap reads no pcapng whose interfaces differ in link type: write_pcapng's) */
			CHECK_EQ_U(read_all(zp, bes[k], &n, err, sizeof(err), !ng, 1), 0);
			CHECK_EQ_U(n, NPKT);
			CHECK_EQ_U(read_all(two, bes[k], &n, err, sizeof(err), !ng, 1), 0);
			CHECK_EQ_U(n, NPKT);
		}
		struct rt_capfile *f;
		CHECK(rt_capfile_open(zp, RT_CAPFILE_AUTO, &f, err, sizeof(err)) == 0);
		snprintf(fmt, sizeof(fmt), "%s (%s)", ng ? "pcapng" : "pcap", name);
		CHECK_STR(rt_capfile_format(f), fmt);
		CHECK(!rt_capfile_data_stable(f)); /* (decompressed into a window as it is read) */
		rt_capfile_close(f);
		/* windows from one byte up (every record across an edge, the magic of
		 * the second member across the compressed input's edge): the same */
		size_t saved = capfile_window_size;
		const size_t windows[] = { 1, 3, 64, 4096 };
		for (size_t w = 0; w < sizeof(windows) / sizeof(windows[0]); w++) {
			capfile_window_size = windows[w];
			for (size_t k = 0; k < 3; k++) {
				int n;
				if (ng && bes[k] == RT_CAPFILE_LIBPCAP)
					continue;
				CHECK_EQ_U(read_all(two, bes[k], &n, err, sizeof(err), !ng, 1), 0);
				CHECK_EQ_U(n, NPKT);
			}
		}
		capfile_window_size = saved;
		CHECK(rt_capfile_open_mem(z, zlen, RT_CAPFILE_AUTO, &f, err, sizeof(err)) == 0);
		struct rt_caprec rec;
		int n = 0, rc;
		uint64_t done = 0, total = 0;
		while ((rc = rt_capfile_next(f, &rec)) > 0)
			n++;
		CHECK_EQ_U(rc, 0);
		CHECK_EQ_U(n, NPKT);
		/* the progress is told in compressed bytes: all of them at the end */
		CHECK(rt_capfile_progress(f, &done, &total) == 0 && done == zlen && total == zlen);
		rt_capfile_close(f);
		/* and of the plain file in its bytes, half-way and at the end; libpcap tells none */
		CHECK(rt_capfile_open(plain, RT_CAPFILE_MMAP, &f, err, sizeof(err)) == 0);
		CHECK(rt_capfile_next(f, &rec) == 1);
		CHECK(rt_capfile_progress(f, &done, &total) == 0 && done > 0 && done < total && total == len);
		while (rt_capfile_next(f, &rec) > 0)
			;
		CHECK(rt_capfile_progress(f, &done, &total) == 0 && done == len);
		rt_capfile_close(f);
		if (!ng) { /* (libpcap reads no pcapng of write_pcapng's) */
			CHECK(rt_capfile_open(plain, RT_CAPFILE_LIBPCAP, &f, err, sizeof(err)) == 0);
			CHECK(rt_capfile_progress(f, &done, &total) < 0);
			rt_capfile_close(f);
		}
		/* cut at every offset: an error (naming the codec once something
		 * was decompressed), never more packets than the whole, and more as
		 * more is kept */
		int last = 0, bad = 0;
		for (size_t k = 0; k < zlen; k++) {
			spit(cut, z, k);
			int got = 0;
			err[0] = 0;
			rc = read_all(cut, RT_CAPFILE_MMAP, &got, err, sizeof(err), false, 1);
			bool wrong = rc >= 0 || got > NPKT || got < last || (k > 20 && !strstr(err, name));
			if (wrong && bad++ == 0)
				printf("#   cut at %zu: rc %d, %d packets (before: %d): %s\n", k, rc, got, last, err);
			last = got;
		}
		CHECK_EQ_U(bad, 0);
		if (c == GZIP)
			CHECK_EQ_U(last, NPKT); /* (the data is whole without its 8-byte trailer) */
		/* and with libpcap reading the stream: the records before, then the error */
		if (!ng) {
			spit(cut, z, zlen - 12);
			int got = 0;
			CHECK(read_all(cut, RT_CAPFILE_LIBPCAP, &got, err, sizeof(err), false, 1) < 0);
			snprintf(fmt, sizeof(fmt), "%s: compressed data", name);
			CHECK(strstr(err, fmt) != NULL);
			CHECK(got <= NPKT);
		}
		/* damaged in the middle: an error naming the codec after the packets before */
		uint8_t *d = malloc(zlen);
		memcpy(d, z, zlen);
		for (size_t i = zlen / 2; i < zlen / 2 + 8; i++)
			d[i] ^= 0x5a;
		spit(cut, d, zlen);
		int got = 0;
		CHECK(count_records(cut, &got, err, sizeof(err)) < 0);
		CHECK(strstr(err, name) != NULL);
		CHECK(got < NPKT);
		printf("#   %s %s damaged: %d packets, then: %s\n", name, ng ? "pcapng" : "pcap", got, err);
		free(d);
		free(cat);
		free(z1);
		free(z2);
		free(z);
		free(b);
	}
}

/* What a writer thread sends into a pipe: part[0], then, once the reader
 * has read a record (or after 10 s, when it never does), part[1]. */
struct pipe_writer {
	const char *fifo;         /* path of the FIFO, or NULL: fd */
	int fd;
	const uint8_t *part[2];
	size_t part_len[2];
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool record_read;         /* set by the reader */
	bool resumed;             /* part[1] is being written */
	enum rt_capfile_backend be; /* the reader's */
	int comments;             /* records with a comment, read */
	unsigned stats_blocks;    /* rt_capfile_stats().blocks at the end */
};

static void write_whole(int fd, const uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w <= 0)
			return; /* (the reader gave up: EPIPE) */
		p += w;
		n -= (size_t)w;
	}
}

static void *pipe_writer_run(void *arg)
{
	struct pipe_writer *w = arg;
	int fd = w->fifo ? open(w->fifo, O_WRONLY) : w->fd;
	if (fd < 0)
		return NULL;
	write_whole(fd, w->part[0], w->part_len[0]);
	if (w->part_len[1]) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 10;
		pthread_mutex_lock(&w->mu);
		while (!w->record_read && pthread_cond_timedwait(&w->cv, &w->mu, &until) == 0)
			;
		w->resumed = true;
		pthread_mutex_unlock(&w->mu);
		write_whole(fd, w->part[1], w->part_len[1]);
	}
	close(fd);
	return NULL;
}

/* Reads what the writer w sends through the FIFO at path (or "-") as a
 * capture: its records into *n, and whether the first came before the
 * writer resumed into *early; the end's code (err: its message). */
static int read_pipe(const char *path, struct pipe_writer *w, int *n, bool *early, char *err, size_t errlen)
{
	pthread_t th;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	w->record_read = w->resumed = false;
	*n = 0;
	*early = false;
	CHECK(pthread_create(&th, NULL, pipe_writer_run, w) == 0);
	struct rt_capfile *f;
	err[0] = 0;
	int rc = rt_capfile_open(path, w->be, &f, err, errlen);
	w->comments = 0;
	if (rc == 0) {
		struct rt_caprec rec;
		while ((rc = rt_capfile_next(f, &rec)) > 0) {
			w->comments += rec.comment != NULL;
			if ((*n)++ == 0) {
				pthread_mutex_lock(&w->mu);
				*early = !w->resumed;
				w->record_read = true;
				pthread_cond_signal(&w->cv);
				pthread_mutex_unlock(&w->mu);
			}
		}
		if (rc < 0)
			snprintf(err, errlen, "%s", rt_capfile_error(f));
		struct rt_capfile_stats st;
		rt_capfile_stats(f, &st);
		w->stats_blocks = st.blocks;
		rt_capfile_close(f);
	}
	pthread_mutex_lock(&w->mu);
	w->record_read = true; /* (the writer goes on whatever happened) */
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(th, NULL);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	return rc;
}

/* b[len] as gzip, sync-flushed after its first `first` bytes (what a
 * compressor writing a capture as it comes sends): *cut is where the
 * flushed part ends. */
static uint8_t *gzip_flushed(const uint8_t *b, size_t len, size_t first, size_t *out_len, size_t *cut)
{
	size_t cap = compressBound((uLong)len) + 128;
	uint8_t *out = malloc(cap);
	z_stream z;
	memset(&z, 0, sizeof(z));
	CHECK(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK);
	z.next_out = out;
	z.avail_out = (uInt)cap;
	z.next_in = (Bytef *)(uintptr_t)b;
	z.avail_in = (uInt)first;
	CHECK(deflate(&z, Z_SYNC_FLUSH) == Z_OK);
	*cut = cap - z.avail_out;
	z.avail_in = (uInt)(len - first);
	CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END);
	*out_len = cap - z.avail_out;
	deflateEnd(&z);
	return out;
}

static void test_pipes(void)
{
	char plain[256], fifo[256], err[256];
	path_of(plain, sizeof(plain), "pipe-src.pcap");
	path_of(fifo, sizeof(fifo), "fifo");
	write_pcap(plain, true);
	CHECK(mkfifo(fifo, 0600) == 0);
	signal(SIGPIPE, SIG_IGN);
	size_t len;
	uint8_t *b = slurp(plain, &len);
	int n;
	bool early;
	size_t saved = capfile_window_size;
	/* whole, plain and in each codec, in two members or frames, with the
	 * pipe's compressed input kept a few bytes at a time */
	for (int c = -1; c < NCODECS; c++) {
		size_t h1 = len / 2, h2 = len - len / 2;
		uint8_t *z1 = c < 0 ? (uint8_t *)b : compress_of((enum codec)c, b, len / 2, &h1);
		uint8_t *z2 = c < 0 ? (uint8_t *)b + len / 2 : compress_of((enum codec)c, b + len / 2, len - len / 2, &h2);
		for (size_t win = 0; win < 2; win++) {
			capfile_window_size = win ? 3 : saved;
			struct pipe_writer w = {.fifo = fifo, .part = {z1, z2}, .part_len = {h1, h2}};
			/* (the writer goes on only after a record, as the first half holds some) */
			CHECK_EQ_U(read_pipe(fifo, &w, &n, &early, err, sizeof(err)), 0);
			CHECK_EQ_U(n, NPKT);
			if (c >= 0)
				CHECK(early); /* the records of the first member, before the second was sent */
		}
		capfile_window_size = saved;
		struct rt_capfile *f;
		struct pipe_writer w = {.fifo = fifo, .part = {z1, z2}, .part_len = {h1, h2}};
		pthread_t th;
		w.record_read = true;
		pthread_mutex_init(&w.mu, NULL);
		pthread_cond_init(&w.cv, NULL);
		CHECK(pthread_create(&th, NULL, pipe_writer_run, &w) == 0);
		CHECK(rt_capfile_open(fifo, RT_CAPFILE_AUTO, &f, err, sizeof(err)) == 0);
		char fmt[64];
		snprintf(fmt, sizeof(fmt), c < 0 ? "pcap" : "pcap (%s)", c < 0 ? "" : codec_name[c]);
		CHECK_STR(rt_capfile_format(f), fmt);
		struct rt_caprec rec;
		while (rt_capfile_next(f, &rec) > 0)
			;
		rt_capfile_close(f);
		pthread_join(th, NULL);
		if (c >= 0) {
			free(z1);
			free(z2);
		}
	}
	/* a gzip stream that stops after a flush: the records before it come first */
	size_t zlen, cut;
	uint8_t *z = gzip_flushed(b, len, len / 2, &zlen, &cut);
	struct pipe_writer w = {.fifo = fifo, .part = {z, z + cut}, .part_len = {cut, zlen - cut}};
	CHECK_EQ_U(read_pipe(fifo, &w, &n, &early, err, sizeof(err)), 0);
	CHECK_EQ_U(n, NPKT);
	CHECK(early);
	/* standard input ("-") */
	int fds[2], saved_in = dup(0);
	CHECK(pipe(fds) == 0 && saved_in >= 0);
	CHECK(dup2(fds[0], 0) == 0);
	close(fds[0]);
	struct pipe_writer wi = {.fd = fds[1], .part = {z, z + cut}, .part_len = {cut, zlen - cut}};
	CHECK_EQ_U(read_pipe("-", &wi, &n, &early, err, sizeof(err)), 0);
	CHECK_EQ_U(n, NPKT);
	CHECK(dup2(saved_in, 0) == 0);
	close(saved_in);
	/* cut short: the records before, then an error naming gzip */
	for (size_t keep = cut; keep < zlen; keep += (zlen - cut) / 3) {
		struct pipe_writer wc = {.fifo = fifo, .part = {z, NULL}, .part_len = {keep, 0}};
		CHECK(read_pipe(fifo, &wc, &n, &early, err, sizeof(err)) < 0);
		CHECK(n >= NPKT / 2 - 1 && n <= NPKT); /* (all of them when only the trailer is cut) */
		CHECK(strstr(err, "gzip: compressed data cut short") != NULL);
		if (keep == cut)
			printf("# gzip cut short in a pipe: %d records, then: %s\n", n, err);
	}
	/* damaged: an error naming gzip, without the stream's length (unknown) */
	z[cut + (zlen - cut) / 2] ^= 0x5a;
	z[cut + (zlen - cut) / 2 + 1] ^= 0x5a;
	struct pipe_writer wd = {.fifo = fifo, .part = {z, NULL}, .part_len = {zlen, 0}};
	CHECK(read_pipe(fifo, &wd, &n, &early, err, sizeof(err)) < 0);
	CHECK(n <= NPKT && strstr(err, "gzip:") != NULL && !strstr(err, " of "));
	printf("# gzip damaged in a pipe: %d records, then: %s\n", n, err);
	free(z);
	free(b);
	/* pcapng with two link types, comments and a statistics block: our
	 * reader takes it from a pipe, plain or compressed, with all of them
	 * (libpcap refuses a second link type) */
	char ng[256];
	path_of(ng, sizeof(ng), "pipe-src.pcapng");
	write_pcapng(ng);
	b = slurp(ng, &len);
	const enum rt_capfile_backend bes[] = { RT_CAPFILE_AUTO, RT_CAPFILE_MMAP };
	for (int c = -1; c < NCODECS; c++) {
		size_t zl = len;
		uint8_t *zb = c < 0 ? b : compress_of((enum codec)c, b, len, &zl);
		for (size_t k = 0; k < 2; k++) {
			struct pipe_writer wn = {.fifo = fifo, .part = {zb, NULL}, .part_len = {zl, 0}, .be = bes[k]};
			CHECK_EQ_U(read_pipe(fifo, &wn, &n, &early, err, sizeof(err)), 0);
			CHECK_EQ_U(n, NPKT);
			CHECK_EQ_U(wn.comments, 3);
			CHECK_EQ_U(wn.stats_blocks, 1);
		}
		struct pipe_writer wl = {.fifo = fifo, .part = {zb, NULL}, .part_len = {zl, 0}, .be = RT_CAPFILE_LIBPCAP};
		CHECK(read_pipe(fifo, &wl, &n, &early, err, sizeof(err)) < 0);
		if (c < 0)
			printf("# libpcap on that pcapng from a pipe: %s\n", err);
		if (c >= 0)
			free(zb);
	}
	free(b);
}

int main(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/rt-capfile-XXXXXX");
	if (!mkdtemp(tmpdir))
		return 1;
	RUN(test_pcap_variants);
	RUN(test_pcapng_from_writer);
	RUN(test_pcapng_handmade);
	RUN(test_pcapng_statistics);
	RUN(test_truncated_files);
	RUN(test_corrupt_lengths);
	RUN(test_window);
	RUN(test_window_shrinks);
	RUN(test_compressed);
	RUN(test_gzip_streams);
	RUN(test_pipes);
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", tmpdir);
	return test_done();
}

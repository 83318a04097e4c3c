/*
 * gzip-compressed captures (capture.pcapng.gz, as Wireshark and tcpdump
 * users keep them), inflated as they are read: our parser's window
 * (capfile_window.c) or libpcap's stream asks for the next bytes, and only
 * those are inflated, so a capture of any size is read in the memory of a
 * plain one.  The compressed bytes come from a buffer or from a file,
 * read a window's size at a time.  Concatenated gzip members (`cat a.gz
 * b.gz`) are one stream.  A stream damaged or cut short ends where the
 * damage is, and says where, so that the records before it are still read.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "capfile_impl.h"

struct capfile_gz {
	z_stream z;
	bool in_member;           /* inflateInit2 done, the member's end not reached */
	bool ended;               /* the stream ended (whole, damaged or cut short) */
	unsigned members;         /* members started */
	uint64_t out;             /* bytes inflated so far */
	/* the compressed input: a caller's buffer (fd < 0), or a file read into buf */
	int fd;
	const uint8_t *mem;
	size_t in_len;            /* compressed bytes in all */
	size_t used;              /* compressed bytes consumed */
	size_t member_start;
	uint8_t *buf;             /* the file's bytes [buf_off, buf_off + buf_n) */
	size_t buf_off, buf_n, buf_cap;
	char damage[200];         /* how the stream ended early ("" while whole) */
};

int rt_capfile_is_gzip(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	return len >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

struct capfile_gz *capfile_gz_open(int fd, const uint8_t *mem, size_t len)
{
	struct capfile_gz *g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->fd = fd;
	g->mem = mem;
	g->in_len = len;
	return g;
}

void capfile_gz_close(struct capfile_gz *g)
{
	if (!g)
		return;
	if (g->in_member)
		inflateEnd(&g->z);
	if (g->fd >= 0)
		close(g->fd);
	free(g->buf);
	free(g);
}

const char *capfile_gz_damage(const struct capfile_gz *g)
{
	return g ? g->damage : "";
}

static void end_damaged(struct capfile_gz *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void end_damaged(struct capfile_gz *g, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(g->damage, sizeof(g->damage), fmt, ap);
	va_end(ap);
	g->ended = true;
}

/* The compressed bytes from g->used on, at least `least` of them when the
 * input has that many: their count (0: the input is all used), or -1 when
 * the file could not be read (the stream then ends, damaged). */
static ssize_t input(struct capfile_gz *g, const uint8_t **p, size_t least)
{
	if (g->used >= g->in_len)
		return 0;
	if (g->fd < 0) {
		*p = g->mem + g->used;
		return (ssize_t)(g->in_len - g->used);
	}
	size_t have = g->used >= g->buf_off && g->used < g->buf_off + g->buf_n ? g->buf_off + g->buf_n - g->used : 0;
	if (have < least && have < g->in_len - g->used) {
		size_t want = capfile_window_size > least ? capfile_window_size : least;
		if (want > g->in_len - g->used)
			want = g->in_len - g->used;
		if (want > g->buf_cap) {
			uint8_t *b = realloc(g->buf, want);
			if (!b) {
				end_damaged(g, "gzip: out of memory reading the compressed file");
				return -1;
			}
			g->buf = b;
			g->buf_cap = want;
		}
		size_t got = 0;
		while (got < want) {
			ssize_t r = pread(g->fd, g->buf + got, want - got, (off_t)(g->used + got));
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				end_damaged(g, "gzip: reading the compressed file at byte %zu: %s", g->used + got,
					    r < 0 ? strerror(errno) : "it shrank while it was read");
				return -1;
			}
			got += (size_t)r;
		}
		g->buf_off = g->used;
		g->buf_n = want;
		have = want;
	}
	*p = g->buf + (g->used - g->buf_off);
	return (ssize_t)have;
}

/* Between members: zero padding ends the stream; anything else but the
 * start of another member is told and ignored.  Starts the next member,
 * or ends the stream. */
static void next_member(struct capfile_gz *g)
{
	const uint8_t *p;
	ssize_t a;
	while ((a = input(g, &p, 2)) > 0) {
		ssize_t zeros = 0;
		while (zeros < a && p[zeros] == 0)
			zeros++;
		if (zeros == 0)
			break;
		g->used += (size_t)zeros;
	}
	if (a < 0)
		return;
	if (a == 0) {
		g->ended = true;
		if (!g->out)
			end_damaged(g, "gzip: nothing inside");
		return;
	}
	if (!rt_capfile_is_gzip(p, (size_t)a)) {
		if (g->members) {
			end_damaged(g, "gzip: %zu bytes after the compressed data are not gzip; ignored", g->in_len - g->used);
			return;
		}
		/* (the first member's header is zlib's to judge) */
	}
	memset(&g->z, 0, sizeof(g->z));
	if (inflateInit2(&g->z, 16 + MAX_WBITS) != Z_OK) { /* 16: a gzip header, not zlib's */
		end_damaged(g, "gzip: out of memory inflating the capture");
		return;
	}
	g->in_member = true;
	g->members++;
	g->member_start = g->used;
}

size_t capfile_gz_read(struct capfile_gz *g, uint8_t *dst, size_t n)
{
	size_t got = 0;
	while (got < n && !g->ended) {
		if (!g->in_member) {
			next_member(g);
			continue;
		}
		const uint8_t *p = NULL;
		ssize_t a = input(g, &p, 1);
		if (a < 0)
			break;
		g->z.next_in = (Bytef *)(uintptr_t)p;
		g->z.avail_in = (size_t)a > UINT32_MAX ? UINT32_MAX : (uInt)a;
		g->z.next_out = dst + got;
		g->z.avail_out = n - got > UINT32_MAX ? UINT32_MAX : (uInt)(n - got);
		uInt in_before = g->z.avail_in, out_before = g->z.avail_out;
		int zr = inflate(&g->z, Z_NO_FLUSH);
		g->used += in_before - g->z.avail_in;
		got += out_before - g->z.avail_out;
		g->out += out_before - g->z.avail_out;
		bool progress = in_before != g->z.avail_in || out_before != g->z.avail_out;
		if (zr == Z_OK || (zr == Z_BUF_ERROR && progress))
			continue; /* (only no progress at all means the input ended) */
		const char *msg = g->z.msg;
		if (zr == Z_STREAM_END) {
			inflateEnd(&g->z);
			g->in_member = false;
			continue;
		}
		if (zr == Z_MEM_ERROR)
			end_damaged(g, "gzip: out of memory inflating the capture");
		else if (zr == Z_BUF_ERROR)
			end_damaged(g, "gzip: compressed data cut short (the member from byte %zu ends early)",
				    g->member_start);
		else
			end_damaged(g, "gzip: compressed data damaged near byte %zu of %zu (%s)", g->used, g->in_len,
				    msg ? msg : zr == Z_DATA_ERROR ? "data error" : "inflate failed");
		inflateEnd(&g->z);
		g->in_member = false;
	}
	return got;
}

uint64_t capfile_gz_offset(const struct capfile_gz *g)
{
	return g->out;
}

void capfile_gz_rewind(struct capfile_gz *g)
{
	if (g->in_member)
		inflateEnd(&g->z);
	g->in_member = g->ended = false;
	g->members = 0;
	g->out = g->used = g->member_start = 0;
	g->damage[0] = 0;
}

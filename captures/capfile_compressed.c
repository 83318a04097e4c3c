/*
 * Compressed captures, decompressed as they are read: gzip (capture.pcapng.gz,
 * as tcpdump and Wireshark users keep them), zstd (*.zst) and lz4 frames
 * (*.lz4), the three Wireshark reads.  Our parser's window
 * (capfile_window.c) or libpcap's stream asks for the next bytes, and only
 * those are decompressed, so a capture of any size is read in the memory of
 * a plain one.  The compressed bytes come from a buffer, from a file read
 * a window's size at a time, or from a pipe (`zcat`-like: `ssh host cat
 * c.pcap.gz | rdmatrace packets -`), read as it comes, its length known
 * only at its end.  A plain pipe's bytes pass through the same way (codec
 * "none"), so that our parser reads any pipe as it reads a compressed
 * file.  Concatenated members or frames (`cat a.gz b.gz`) are one stream.  A stream damaged or cut short ends where the
 * damage is, and says where, so that the records before it are still read.
 */
#include <errno.h>
#include <lz4frame.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "capfile_impl.h"

enum codec { CODEC_GZIP, CODEC_ZSTD, CODEC_LZ4, CODEC_NONE /* a plain pipe's bytes, as they are */ };

static const char *const codec_name[] = { "gzip", "zstd", "lz4", "pipe" };
/* what one compressed unit is called (several make one stream) */
static const char *const unit_name[] = { "member", "frame", "frame", "stream" };

struct capfile_z {
	enum codec codec;
	z_stream gz;              /* gzip: the current member's */
	ZSTD_DStream *zs;
	LZ4F_dctx *lz;
	bool in_unit;             /* a member or frame started and not ended */
	bool ended;               /* the stream ended (whole, damaged or cut short) */
	uint64_t out;             /* bytes decompressed so far */
	/* the compressed input: a caller's buffer (fd < 0), or a file or a pipe
	 * read into buf */
	int fd;
	bool pipe;                /* fd is read in order with read(); in_len is SIZE_MAX until its end */
	const struct capfile_wait *wait; /* a pipe's: told before a read of it waits */
	const uint8_t *mem;
	size_t in_len;            /* compressed bytes in all */
	size_t used;              /* compressed bytes consumed */
	size_t unit_start;
	uint8_t *buf;             /* the file's bytes [buf_off, buf_off + buf_n) */
	size_t buf_off, buf_n, buf_cap;
	char damage[200];         /* how the stream ended early ("" while whole) */
};

static uint32_t le32_of(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The codec whose unit starts buf[len], or -1. */
static int codec_of(const uint8_t *p, size_t len)
{
	if (len >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return CODEC_GZIP;
	if (len < 4)
		return -1;
	uint32_t m = le32_of(p);
	if (m == ZSTD_MAGICNUMBER || (m & 0xFFFFFFF0u) == ZSTD_MAGIC_SKIPPABLE_START)
		return CODEC_ZSTD;
	if (m == 0x184D2204u) /* the LZ4 frame format's */
		return CODEC_LZ4;
	return -1;
}

const char *rt_capfile_compression(const void *buf, size_t len)
{
	int c = buf ? codec_of(buf, len) : -1;
	return c < 0 ? NULL : codec_name[c];
}

/* A new stream of codec c over fd or mem[len]; NULL when out of memory. */
static struct capfile_z *z_new(enum codec c, int fd, const uint8_t *mem, size_t len)
{
	struct capfile_z *g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->codec = c;
	g->fd = fd;
	g->mem = mem;
	g->in_len = len;
	if ((g->codec == CODEC_ZSTD && !(g->zs = ZSTD_createDStream())) ||
	    (g->codec == CODEC_LZ4 && LZ4F_isError(LZ4F_createDecompressionContext(&g->lz, LZ4F_VERSION)))) {
		g->fd = -1; /* (the caller closes it) */
		capfile_z_close(g);
		return NULL;
	}
	return g;
}

struct capfile_z *capfile_z_open(int fd, const uint8_t *mem, size_t len, const uint8_t *magic, size_t magic_len)
{
	int c = codec_of(magic, magic_len);
	return c < 0 ? NULL : z_new((enum codec)c, fd, mem, len);
}

void capfile_z_close(struct capfile_z *g)
{
	if (!g)
		return;
	if (g->codec == CODEC_GZIP && g->in_unit)
		inflateEnd(&g->gz);
	ZSTD_freeDStream(g->zs);
	if (g->lz)
		LZ4F_freeDecompressionContext(g->lz);
	if (g->fd >= 0)
		close(g->fd);
	free(g->buf);
	free(g);
}

const char *capfile_z_codec(const struct capfile_z *g)
{
	return g->codec == CODEC_NONE ? NULL : codec_name[g->codec];
}

bool capfile_z_ended(const struct capfile_z *g)
{
	return g->ended;
}

const char *capfile_z_damage(const struct capfile_z *g)
{
	return g ? g->damage : "";
}

static void end_damaged(struct capfile_z *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void end_damaged(struct capfile_z *g, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = snprintf(g->damage, sizeof(g->damage), "%s: ", codec_name[g->codec]);
	vsnprintf(g->damage + n, sizeof(g->damage) - (size_t)n, fmt, ap);
	va_end(ap);
	g->ended = true;
}

/* " of N" (the compressed bytes in all) for messages, "" while a pipe's
 * length is unknown. */
static const char *of_total(const struct capfile_z *g, char *buf, size_t n)
{
	if (g->in_len == SIZE_MAX)
		return "";
	snprintf(buf, n, " of %zu", g->in_len);
	return buf;
}

/* buf grown to hold at least n bytes; false (the stream ended, damaged)
 * when out of memory. */
static bool buf_room(struct capfile_z *g, size_t n)
{
	if (n <= g->buf_cap)
		return true;
	uint8_t *b = realloc(g->buf, n);
	if (!b) {
		end_damaged(g, "out of memory reading the compressed input");
		return false;
	}
	g->buf = b;
	g->buf_cap = n;
	return true;
}

struct capfile_z *capfile_z_open_pipe(int fd, const uint8_t *head, size_t head_len, const struct capfile_wait *wait)
{
	int c = codec_of(head, head_len);
	struct capfile_z *g = z_new(c < 0 ? CODEC_NONE : (enum codec)c, fd, NULL, SIZE_MAX);
	if (!g)
		return NULL;
	g->pipe = true;
	g->wait = wait;
	size_t cap = capfile_window_size > head_len ? capfile_window_size : head_len;
	if (!buf_room(g, cap)) {
		g->fd = -1; /* (the caller closes it) */
		capfile_z_close(g);
		return NULL;
	}
	memcpy(g->buf, head, head_len);
	g->buf_n = head_len;
	return g;
}

/* The compressed bytes of a pipe held in buf from g->used on. */
static size_t pipe_held(const struct capfile_z *g)
{
	return g->buf_off + g->buf_n - g->used;
}

/* input() from a pipe: reads until at least `least` bytes are held (as
 * many as one read gives), or the pipe ends (then its length is known). */
static ssize_t pipe_input(struct capfile_z *g, const uint8_t **p, size_t least)
{
	size_t have = pipe_held(g);
	if (have < least && g->in_len == SIZE_MAX) {
		/* what is left to the buffer's start, room after it */
		memmove(g->buf, g->buf + (g->used - g->buf_off), have);
		g->buf_off = g->used;
		g->buf_n = have;
		if (!buf_room(g, least))
			return -1;
		while (g->buf_n < least) {
			capfile_before_wait(g->fd, g->wait);
			ssize_t r = read(g->fd, g->buf + g->buf_n, g->buf_cap - g->buf_n);
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0) {
				end_damaged(g, "reading the stream at byte %zu: %s", g->buf_off + g->buf_n,
					    strerror(errno));
				return -1;
			}
			if (r == 0) {
				g->in_len = g->buf_off + g->buf_n; /* its end */
				break;
			}
			g->buf_n += (size_t)r;
		}
		have = g->buf_n;
	}
	*p = g->buf + (g->used - g->buf_off);
	return (ssize_t)have;
}

/* The compressed bytes from g->used on, at least `least` of them when the
 * input has that many: their count (0: the input is all used), or -1 when
 * the file could not be read (the stream then ends, damaged). */
static ssize_t input(struct capfile_z *g, const uint8_t **p, size_t least)
{
	if (g->used >= g->in_len)
		return 0;
	if (g->pipe)
		return pipe_input(g, p, least);
	if (g->fd < 0) {
		*p = g->mem + g->used;
		return (ssize_t)(g->in_len - g->used);
	}
	size_t have = g->used >= g->buf_off && g->used < g->buf_off + g->buf_n ? g->buf_off + g->buf_n - g->used : 0;
	if (have < least && have < g->in_len - g->used) {
		size_t want = capfile_window_size > least ? capfile_window_size : least;
		if (want > g->in_len - g->used)
			want = g->in_len - g->used;
		if (!buf_room(g, want))
			return -1;
		size_t got = 0;
		while (got < want) {
			ssize_t r = pread(g->fd, g->buf + got, want - got, (off_t)(g->used + got));
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				end_damaged(g, "reading the compressed file at byte %zu: %s", g->used + got,
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

/* Between members or frames: the end of the input ends the stream; gzip's
 * zero padding is skipped; anything else but the start of another unit of
 * the same codec is told and ignored.  Starts the next unit, or ends the
 * stream. */
static void next_unit(struct capfile_z *g)
{
	const uint8_t *p;
	ssize_t a;
	while (g->codec == CODEC_GZIP && (a = input(g, &p, 2)) > 0) {
		ssize_t zeros = 0;
		while (zeros < a && p[zeros] == 0)
			zeros++;
		if (zeros == 0)
			break;
		g->used += (size_t)zeros;
	}
	if ((a = input(g, &p, 4)) < 0)
		return;
	if (a == 0) {
		g->ended = true;
		if (!g->out && g->codec != CODEC_NONE)
			end_damaged(g, "nothing inside");
		return;
	}
	if (g->used > 0 && g->codec != CODEC_NONE && codec_of(p, (size_t)a) != (int)g->codec) {
		if (g->in_len == SIZE_MAX) /* (a pipe's rest is not read) */
			end_damaged(g, "the bytes from byte %zu on, after the compressed data, are not %s; ignored", g->used,
				    codec_name[g->codec]);
		else
			end_damaged(g, "%zu bytes after the compressed data are not %s; ignored", g->in_len - g->used,
				    codec_name[g->codec]);
		return;
	}
	if (g->codec == CODEC_GZIP) {
		memset(&g->gz, 0, sizeof(g->gz));
		if (inflateInit2(&g->gz, 16 + MAX_WBITS) != Z_OK) { /* 16: a gzip header, not zlib's */
			end_damaged(g, "out of memory decompressing the capture");
			return;
		}
	}
	g->in_unit = true;
	g->unit_start = g->used;
}

/* The stream damaged in the current frame (zstd, lz4), `why` as its
 * library says: -1. */
static int frame_damaged(struct capfile_z *g, const char *why)
{
	char total[40];
	end_damaged(g, "compressed data damaged in the frame from byte %zu%s (%s)", g->unit_start,
		    of_total(g, total, sizeof(total)), why);
	return -1;
}

/* One step of the codec over in[*in_n] into out[*out_n]; *in_n and *out_n
 * become the bytes consumed and made.  1 when the unit ended, 0 to go on,
 * -1 when damaged (g->damage set). */
static int step(struct capfile_z *g, const uint8_t *in, size_t *in_n, uint8_t *out, size_t *out_n)
{
	switch (g->codec) {
	case CODEC_GZIP: {
		g->gz.next_in = (Bytef *)(uintptr_t)in;
		g->gz.avail_in = *in_n > UINT32_MAX ? UINT32_MAX : (uInt)*in_n;
		g->gz.next_out = out;
		g->gz.avail_out = *out_n > UINT32_MAX ? UINT32_MAX : (uInt)*out_n;
		uInt in_before = g->gz.avail_in, out_before = g->gz.avail_out;
		int zr = inflate(&g->gz, Z_NO_FLUSH);
		*in_n = in_before - g->gz.avail_in;
		*out_n = out_before - g->gz.avail_out;
		if (zr == Z_OK || zr == Z_BUF_ERROR) /* (no progress at all: the caller's to judge) */
			return 0;
		const char *msg = g->gz.msg;
		char total[40];
		if (zr != Z_STREAM_END)
			end_damaged(g, "compressed data damaged near byte %zu%s (%s)", g->used + *in_n,
				    of_total(g, total, sizeof(total)),
				    zr == Z_MEM_ERROR ? "out of memory" : msg ? msg : "inflate failed");
		inflateEnd(&g->gz);
		return zr == Z_STREAM_END ? 1 : -1;
	}
	case CODEC_ZSTD: {
		ZSTD_inBuffer zi = { in, *in_n, 0 };
		ZSTD_outBuffer zo = { out, *out_n, 0 };
		size_t r = ZSTD_decompressStream(g->zs, &zo, &zi);
		*in_n = zi.pos;
		*out_n = zo.pos;
		if (ZSTD_isError(r))
			return frame_damaged(g, ZSTD_getErrorName(r));
		return r == 0;
	}
	case CODEC_NONE: {
		size_t k = *in_n < *out_n ? *in_n : *out_n;
		memcpy(out, in, k);
		*in_n = *out_n = k;
		return 0; /* (one unit: the stream ends with its input) */
	}
	case CODEC_LZ4: {
		size_t r = LZ4F_decompress(g->lz, out, out_n, in, in_n, NULL);
		if (LZ4F_isError(r))
			return frame_damaged(g, LZ4F_getErrorName(r));
		return r == 0;
	}
	}
	return -1;
}

size_t capfile_z_read(struct capfile_z *g, uint8_t *dst, size_t n)
{
	size_t got = 0;
	while (got < n && !g->ended) {
		/* from a pipe, what it has given so far rather than waiting for more
		 * (a capture still being written flows on) */
		if (g->pipe && got > 0 && pipe_held(g) == 0)
			break;
		if (!g->in_unit) {
			next_unit(g);
			continue;
		}
		const uint8_t *p = NULL;
		ssize_t a = input(g, &p, 1);
		if (a < 0)
			break;
		size_t in_n = (size_t)a, out_n = n - got;
		int r = step(g, p, &in_n, dst + got, &out_n);
		g->used += in_n;
		got += out_n;
		g->out += out_n;
		if (r != 0) {
			g->in_unit = false; /* (ended: the next unit, or damaged) */
			continue;
		}
		if (in_n || out_n)
			continue;
		/* no progress: the input ended inside the unit (a plain pipe's end) */
		if (g->codec == CODEC_NONE)
			g->ended = true;
		else
			end_damaged(g, "compressed data cut short (the %s from byte %zu ends early)", unit_name[g->codec],
				    g->unit_start);
	}
	return got;
}

uint64_t capfile_z_offset(const struct capfile_z *g)
{
	return g->out;
}

int capfile_z_progress(const struct capfile_z *g, uint64_t *done, uint64_t *total)
{
	if (g->in_len == SIZE_MAX)
		return -1;
	*done = g->used;
	*total = g->in_len;
	return 0;
}

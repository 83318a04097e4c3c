/*
 * State shared by the capture-file front end (capfile.c, libpcap backend),
 * our own pcap/pcapng parser (capfile_parse.c), the window it reads a
 * file or a decompressed stream through (capfile_window.c) and the
 * decompressing of compressed captures (capfile_compressed.c).  Private to
 * captures/.
 */
#ifndef RDMATRACE_CAPTURES_CAPFILE_IMPL_H
#define RDMATRACE_CAPTURES_CAPFILE_IMPL_H

#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdio.h>

#include "rdmatrace/capfile.h"

struct capfile_iface {
	uint16_t linktype;
	uint32_t snaplen;
	uint64_t mul;             /* ts * mul = ns when the resolution is 10^-n, n <= 9 */
	uint64_t div;             /* ts / div = ns when 10^-n, n > 9 */
	uint8_t shift;            /* binary resolution 2^-shift when mul == div == 0 */
	int64_t offset_s;         /* if_tsoffset */
	struct rt_capfile_stats isb; /* its last statistics block (blocks 0 or 1) */
};

/* Whom to tell when reading a pipe is about to wait for more of it. */
struct capfile_wait {
	void (*fn)(void *arg);
	void *arg;
};

/* Tells w's caller when fd has nothing to read at once (the next read waits). */
void capfile_before_wait(int fd, const struct capfile_wait *w);

struct rt_capfile {
	int backend;              /* RT_CAPFILE_MMAP or RT_CAPFILE_LIBPCAP */
	bool pcapng;
	int status;               /* sticky: 0 reading, 1 clean end, <0 error */
	uint64_t frame;
	char err[256];

	/* our own parser (RT_CAPFILE_MMAP): over a caller's buffer (base), or
	 * over a regular file or a compressed stream read through a window
	 * (capfile_window.c) */
	const uint8_t *base;      /* the buffer (!windowed) */
	size_t len, pos;          /* the whole file's, buffer's or stream's length; the parser's offset */
	int fd;                   /* the file, -1 for a buffer or a compressed stream */
	uint8_t *win;             /* the data's bytes [win_off, win_off + win_len) */
	size_t win_off, win_len, win_cap;
	bool swapped;             /* pcap: file byte order differs from ours */
	bool big_endian;          /* pcapng: the current section's byte order */
	bool nano;                /* pcap: nanosecond timestamps */
	uint16_t linktype;        /* pcap: the file's */
	uint32_t snaplen;
	struct capfile_iface *ifs;
	unsigned nifs, cap_ifs;
	struct rt_capfile_stats isb_done; /* statistics of the sections already ended */

	/* libpcap backend */
	pcap_t *pc;
	/* a compressed capture or a pipe (capfile_compressed.c), read as a
	 * stream: through the window by our parser (len is SIZE_MAX until the
	 * stream's end is reached), or by libpcap through a FILE of ours */
	struct capfile_z *z;
	char format[24];          /* "pcapng (zstd)" ... for a compressed capture */
	bool windowed;            /* our parser reads through the window (a file, or z) */
	bool at_end;              /* our parser asked for bytes past the data's end (capfile_left) */
	struct capfile_wait wait; /* rt_capfile_on_wait()'s */
};

/* to += from, counter by counter. */
void capfile_stats_add(struct rt_capfile_stats *to, const struct rt_capfile_stats *from);
/* The window's size when a file is opened (capfile_window.c); tests and
 * fuzz targets make it small so that every record crosses its edge. */
extern size_t capfile_window_size;
/* Reads the file fd of len bytes through a window from now on: 0, or
 * -errno with f->err set (its first bytes could not be read). */
int capfile_window_open(struct rt_capfile *f, int fd, size_t len);
/* Reads the stream f->z (compressed, or a pipe; not read yet) through a
 * window from now on: 0, or -ENOMEM with f->err set. */
int capfile_window_open_z(struct rt_capfile *f);
/* The n bytes at offset off of the data (off + n <= f->len), read into the
 * window when they are not there yet; valid until the next call.  NULL
 * with f->err and f->status set when they cannot be read (the file shrank,
 * an I/O error, no memory, the compressed stream ended before them). */
const uint8_t *capfile_window_at(struct rt_capfile *f, size_t off, size_t n);
void capfile_window_close(struct rt_capfile *f);
/* The n bytes at the parser's offset (n <= f->len - f->pos): in place in a
 * buffer, else from the window; NULL when they cannot be read. */
static inline const uint8_t *capfile_at(struct rt_capfile *f, size_t n)
{
	return f->windowed ? capfile_window_at(f, f->pos, n) : f->base + f->pos;
}
/* Parse the file header (our parser).  0, or -errno with f->err set. */
int capfile_parse_start(struct rt_capfile *f);
/* Next record from our parser (same contract as rt_capfile_next). */
int capfile_parse_next(struct rt_capfile *f, struct rt_caprec *rec);
/* True when the first bytes are a pcap or pcapng header this parser reads. */
bool capfile_parse_recognises(const uint8_t *p, size_t len);
/* A compressed stream (gzip, zstd or lz4: one or more members or frames)
 * decompressed as it is read: its compressed bytes are the file fd (taken:
 * closed by capfile_z_close) of len bytes, or mem[len] when fd < 0; the
 * codec is the one whose magic starts magic[magic_len].  NULL when out of
 * memory or no codec's. */
struct capfile_z *capfile_z_open(int fd, const uint8_t *mem, size_t len, const uint8_t *magic, size_t magic_len);
/* The same for a pipe fd (taken), read in order as it comes: head[head_len]
 * are its first bytes, already read from it, whose magic names the codec
 * (none: the pipe's bytes pass as they are); wait (kept, not copied) is
 * told before a read of it waits. */
struct capfile_z *capfile_z_open_pipe(int fd, const uint8_t *head, size_t head_len, const struct capfile_wait *wait);
/* Up to n decompressed bytes into dst: fewer only where the stream ends,
 * whole or damaged (capfile_z_damage() says which), or, from a pipe, when
 * what it has given so far is all decompressed (at least one byte then). */
size_t capfile_z_read(struct capfile_z *g, uint8_t *dst, size_t n);
/* The decompressed bytes read so far. */
uint64_t capfile_z_offset(const struct capfile_z *g);
/* The compressed bytes consumed so far, of *total; -1 while a pipe's
 * length is unknown. */
int capfile_z_progress(const struct capfile_z *g, uint64_t *done, uint64_t *total);
/* "gzip", "zstd" or "lz4"; NULL for a plain pipe's bytes. */
const char *capfile_z_codec(const struct capfile_z *g);
/* Whether the stream has ended (whole or damaged): nothing more to read. */
bool capfile_z_ended(const struct capfile_z *g);
/* "" while the stream is whole, else how it ended early ("gzip: compressed
 * data cut short ..."). */
const char *capfile_z_damage(const struct capfile_z *g);
void capfile_z_close(struct capfile_z *g);
/* The bytes from the parser's offset to the end of the data, or n when
 * there are at least n: for a compressed stream, whose end is known only
 * once it is decompressed, it decompresses as far as that first. */
size_t capfile_left(struct rt_capfile *f, size_t n);

/* Record an error message in f->err (printf style) and return -code. */
int capfile_fail(struct rt_capfile *f, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif

/*
 * State shared by the capture-file front end (capfile.c, libpcap backend),
 * our own pcap/pcapng parser (capfile_parse.c), the window it reads a
 * file through (capfile_window.c) and the inflating of gzip-compressed
 * captures (capfile_gzip.c).  Private to captures/.
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

struct rt_capfile {
	int backend;              /* RT_CAPFILE_MMAP or RT_CAPFILE_LIBPCAP */
	bool pcapng;
	int status;               /* sticky: 0 reading, 1 clean end, <0 error */
	uint64_t frame;
	char err[256];

	/* our own parser (RT_CAPFILE_MMAP): over a caller's buffer (base), or
	 * over a regular file read through a window (capfile_window.c) */
	const uint8_t *base;      /* the buffer (fd < 0) */
	size_t len, pos;          /* the whole file's or buffer's length; the parser's offset */
	int fd;                   /* the file, -1 for a buffer */
	uint8_t *win;             /* the file's bytes [win_off, win_off + win_len) */
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
	FILE *memf;
	/* a gzip-compressed capture: read from its inflated bytes (base, or
	 * libpcap's memf over them) */
	uint8_t *inflated;        /* owned, freed at close; NULL when not compressed */
	char gz_damage[200];      /* how the gzip stream was damaged ("" when whole): told when the
				   * records inflated before the damage have been read */
};

/* to += from, counter by counter. */
void capfile_stats_add(struct rt_capfile_stats *to, const struct rt_capfile_stats *from);
/* The window's size when a file is opened (capfile_window.c); tests and
 * fuzz targets make it small so that every record crosses its edge. */
extern size_t capfile_window_size;
/* Reads the file fd of len bytes through a window from now on: 0, or
 * -errno with f->err set (its first bytes could not be read). */
int capfile_window_open(struct rt_capfile *f, int fd, size_t len);
/* The n bytes at offset off of the file (off + n <= f->len), read into the
 * window when they are not there yet; valid until the next call.  NULL
 * with f->err and f->status set when they cannot be read (the file shrank,
 * an I/O error, no memory). */
const uint8_t *capfile_window_at(struct rt_capfile *f, size_t off, size_t n);
void capfile_window_close(struct rt_capfile *f);
/* The n bytes at the parser's offset (n <= f->len - f->pos): in place in a
 * buffer, else from the window; NULL when they cannot be read. */
static inline const uint8_t *capfile_at(struct rt_capfile *f, size_t n)
{
	return f->fd < 0 ? f->base + f->pos : capfile_window_at(f, f->pos, n);
}
/* Parse the file header (our parser).  0, or -errno with f->err set. */
int capfile_parse_start(struct rt_capfile *f);
/* Next record from our parser (same contract as rt_capfile_next). */
int capfile_parse_next(struct rt_capfile *f, struct rt_caprec *rec);
/* True when the first bytes are a pcap or pcapng header this parser reads. */
bool capfile_parse_recognises(const uint8_t *p, size_t len);
/* Inflate the gzip stream in[in_len] (one or more members) into a new
 * buffer *out of *out_len bytes (the caller frees it).  0; -EBADMSG when
 * the stream is damaged or cut short, with what inflated before the damage
 * in *out and why saying where; -ENOMEM (nothing in *out). */
int capfile_gunzip(const uint8_t *in, size_t in_len, uint8_t **out, size_t *out_len, char *why, size_t whylen);

/* Record an error message in f->err (printf style) and return -code. */
int capfile_fail(struct rt_capfile *f, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif

/*
 * Our capture parser reads a regular file through a window: a buffer of
 * about a megabyte, reused, that pread() fills with the bytes the parser
 * asks for next (for a compressed capture or a pipe, its stream fills it,
 * in order: capfile_compressed.c).  Mapping the whole file instead costs a page
 * fault (or, on a virtual machine, a hypervisor exit) for every 4 KiB of it
 * the first time it is read, and unmapping it at the end; reading it is a
 * copy the kernel makes into memory that is already there.  A record's
 * bytes stay valid until the next record is asked for
 * (rt_capfile_data_stable() says so).  A block larger than the window grows
 * it (the parser refuses blocks over 256 MiB before asking).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capfile_impl.h"

size_t capfile_window_size = 1u << 20;

int capfile_window_open(struct rt_capfile *f, int fd, size_t len)
{
	f->fd = fd;
	f->len = len;
	f->pos = 0;
	f->win_off = f->win_len = 0;
	f->windowed = true;
	/* the headers capfile_parse_start() reads */
	return capfile_window_at(f, 0, len < 28 ? len : 28) ? 0 : f->status;
}

int capfile_window_open_z(struct rt_capfile *f)
{
	f->fd = -1;
	f->len = SIZE_MAX; /* until the stream's end is reached */
	f->pos = 0;
	f->win_off = f->win_len = 0;
	f->windowed = true;
	capfile_left(f, 28); /* its first bytes, for the format */
	return f->status < 0 ? f->status : 0;
}

/* The stream's next bytes (decompressed, or a pipe's) into the window,
 * until it holds at least n from win_off (as many more as fit, or as a
 * pipe has given): the stream is read in order, and its end, when
 * reached, gives the data's length. */
static int fill_z(struct rt_capfile *f, size_t n)
{
	uint64_t at = f->win_off + f->win_len;
	if (capfile_z_offset(f->z) != at) /* (our parser reads forward, every byte) */
		return capfile_fail(f, EINVAL, "offset %zu of a stream asked for out of order", (size_t)at);
	while (f->win_len < n && f->len == SIZE_MAX) {
		/* (from a pipe, fewer than asked for: what it has given so far) */
		size_t got = capfile_z_read(f->z, f->win + f->win_len, f->win_cap - f->win_len);
		f->win_len += got;
		if (!got || capfile_z_ended(f->z))
			f->len = f->win_off + f->win_len; /* the end (whole or damaged) */
	}
	return 0;
}

/* Reads until the window holds at least n bytes from win_off (and as many
 * more as fit, up to the data's end). */
static int fill(struct rt_capfile *f, size_t n)
{
	if (f->z)
		return fill_z(f, n);
	size_t end = f->len - f->win_off; /* bytes of the file from win_off */
	size_t want = f->win_cap < end ? f->win_cap : end;
	while (f->win_len < n) {
		ssize_t r = pread(f->fd, f->win + f->win_len, want - f->win_len, (off_t)(f->win_off + f->win_len));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return capfile_fail(f, errno, "reading at offset %zu: %s", f->win_off + f->win_len, strerror(errno));
		if (r == 0)
			return capfile_fail(f, EBADMSG, "the file ends at offset %zu, before the %zu bytes it had when "
						       "opened (it shrank while being read)",
					    f->win_off + f->win_len, f->len);
		f->win_len += (size_t)r;
	}
	return 0;
}

/* The window moved to start at off, keeping what it holds from there, with
 * room for n bytes: 0, or -ENOMEM with f->err set. */
static int move(struct rt_capfile *f, size_t off, size_t n)
{
	size_t keep = 0;
	if (off >= f->win_off && off - f->win_off < f->win_len) {
		keep = f->win_len - (off - f->win_off);
		memmove(f->win, f->win + (off - f->win_off), keep);
	}
	f->win_off = off;
	f->win_len = keep;
	if (n > f->win_cap || !f->win) {
		size_t cap = capfile_window_size ? capfile_window_size : 1;
		while (cap < n)
			cap *= 2;
		uint8_t *w = realloc(f->win, cap);
		if (!w)
			return capfile_fail(f, ENOMEM, "out of memory for a block of %zu bytes at offset %zu", n, off);
		f->win = w;
		f->win_cap = cap;
	}
	return 0;
}

static bool in_window(const struct rt_capfile *f, size_t off, size_t n)
{
	return off >= f->win_off && off - f->win_off <= f->win_len && n <= f->win_len - (off - f->win_off);
}

const uint8_t *capfile_window_at(struct rt_capfile *f, size_t off, size_t n)
{
	if (in_window(f, off, n))
		return f->win + (off - f->win_off);
	if (move(f, off, n) < 0 || fill(f, n) < 0)
		return NULL;
	if (f->win_len < n) { /* (a stream that ended; the parser asks capfile_left first) */
		capfile_fail(f, EBADMSG, "the data ends at offset %zu, before the %zu bytes asked for",
			     f->win_off + f->win_len, n);
		return NULL;
	}
	return f->win;
}

size_t capfile_left(struct rt_capfile *f, size_t n)
{
	if (f->len == SIZE_MAX && !in_window(f, f->pos, n) && f->status == 0 && move(f, f->pos, n) == 0)
		fill(f, n);
	size_t left = f->len - f->pos;
	if (left < n)
		f->at_end = true;
	return left < n ? left : n;
}

void capfile_window_close(struct rt_capfile *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	free(f->win);
	f->win = NULL;
	f->windowed = false;
}

/*
 * Our capture parser reads a regular file through a window: a buffer of
 * about a megabyte, reused, that pread() fills with the bytes the parser
 * asks for next.  Mapping the whole file instead costs a page fault (or,
 * on a virtual machine, a hypervisor exit) for every 4 KiB of it the first
 * time it is read, and unmapping it at the end; reading it is a copy the
 * kernel makes into memory that is already there.  A record's bytes stay
 * valid until the next record is asked for (rt_capfile_data_stable() says
 * so).  A block larger than the window grows it (the parser refuses
 * blocks over 256 MiB before asking).
 */
#include <errno.h>
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
	/* the headers capfile_parse_start() reads */
	return capfile_window_at(f, 0, len < 28 ? len : 28) ? 0 : f->status;
}

/* Reads until the window holds at least n bytes from win_off (and as many
 * more as fit, up to the file's end). */
static int fill(struct rt_capfile *f, size_t n)
{
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

const uint8_t *capfile_window_at(struct rt_capfile *f, size_t off, size_t n)
{
	if (off >= f->win_off && off - f->win_off <= f->win_len && n <= f->win_len - (off - f->win_off))
		return f->win + (off - f->win_off);
	/* keep what the window holds from off on, move it to the front */
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
		if (!w) {
			capfile_fail(f, ENOMEM, "out of memory for a block of %zu bytes at offset %zu", n, off);
			return NULL;
		}
		f->win = w;
		f->win_cap = cap;
	}
	return fill(f, n) < 0 ? NULL : f->win;
}

void capfile_window_close(struct rt_capfile *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	free(f->win);
	f->win = NULL;
}

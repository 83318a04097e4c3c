/*
 * Differential check of the capture parser's two sources: a capture read
 * from a file through a window of a given size (capfile_window.c) must give
 * exactly the records, errors and statistics of the same bytes read from a
 * buffer.  A small window makes every record cross its edge.  Used by
 * tests/captures/test_capfile.c and the capfile fuzz target.
 */
#ifndef RDMATRACE_TESTS_CAPFILE_WINDOW_CHECK_H
#define RDMATRACE_TESTS_CAPFILE_WINDOW_CHECK_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rdmatrace/capfile.h"

extern size_t capfile_window_size; /* captures/capfile_impl.h */

/* The number of differences (0: the same), the first described in why. */
static inline int capfile_window_differs(const uint8_t *bytes, size_t len, size_t window, char *why, size_t whylen)
{
	int fd = memfd_create("capfile-window", MFD_CLOEXEC);
	if (fd < 0 || (len && write(fd, bytes, len) != (ssize_t)len)) {
		snprintf(why, whylen, "cannot make a file to read");
		if (fd >= 0)
			close(fd);
		return 1;
	}
	char path[64], e1[256] = "", e2[256] = "";
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	size_t saved = capfile_window_size;
	capfile_window_size = window;
	struct rt_capfile *a = NULL, *b = NULL;
	int ra = rt_capfile_open(path, RT_CAPFILE_MMAP, &a, e1, sizeof(e1));
	int rb = rt_capfile_open_mem(bytes, len, RT_CAPFILE_MMAP, &b, e2, sizeof(e2));
	int diff = 0;
	/* an empty file is refused before it is read (a buffer's own message) */
	if ((ra < 0) != (rb < 0) || (ra < 0 && len && ra != rb)) {
		snprintf(why, whylen, "open: file %d (%s), buffer %d (%s)", ra, e1, rb, e2);
		diff++;
	}
	/* (a gzip-compressed file or buffer is read through the window too) */
	if (a && b && rt_capfile_data_stable(a))
		snprintf(why, whylen, "a file read through a window says its data is stable"), diff++;
	while (a && b && !diff) {
		struct rt_caprec x, y;
		int na = rt_capfile_next(a, &x), nb = rt_capfile_next(b, &y);
		if (na != nb || (na < 0 && strcmp(rt_capfile_error(a), rt_capfile_error(b)))) {
			snprintf(why, whylen, "next: file %d (%s), buffer %d (%s)", na, rt_capfile_error(a), nb,
				 rt_capfile_error(b));
			diff++;
		} else if (na > 0 && (x.caplen != y.caplen || x.wirelen != y.wirelen || x.ts_ns != y.ts_ns ||
				      x.frame != y.frame || x.linktype != y.linktype || x.ifindex != y.ifindex ||
				      memcmp(x.data, y.data, x.caplen) || x.comment_len != y.comment_len ||
				      (x.comment_len && memcmp(x.comment, y.comment, x.comment_len)))) {
			snprintf(why, whylen, "frame %llu differs", (unsigned long long)y.frame);
			diff++;
		}
		if (na <= 0)
			break;
	}
	if (a && b && !diff) {
		struct rt_capfile_stats sa, sb;
		rt_capfile_stats(a, &sa);
		rt_capfile_stats(b, &sb);
		if (sa.blocks != sb.blocks || sa.have != sb.have || sa.ifrecv != sb.ifrecv || sa.ifdrop != sb.ifdrop ||
		    sa.osdrop != sb.osdrop || sa.usrdeliv != sb.usrdeliv || rt_capfile_interfaces(a) != rt_capfile_interfaces(b) ||
		    rt_capfile_linktype(a) != rt_capfile_linktype(b))
			snprintf(why, whylen, "statistics or interfaces differ"), diff++;
	}
	rt_capfile_close(a);
	rt_capfile_close(b);
	capfile_window_size = saved;
	close(fd);
	return diff;
}

#endif

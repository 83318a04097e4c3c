/*
 * libFuzzer target for our own pcap/pcapng parser (the path `rdmatrace
 * packets` and the correlation use): the input is a whole capture file;
 * every record it yields is decoded.  The same bytes are also read as a
 * file through a small window (capfile_window.c), which must give exactly
 * the same records, errors and statistics (capfile_window_check.h): a
 * difference aborts.
 */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>

#include "captures/capfile_window_check.h"
#include "rdmatrace/capfile.h"
#include "rdmatrace/roce_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rt_capfile *f;
	char err[256];
	if (rt_capfile_open_mem(data, size, RT_CAPFILE_MMAP, &f, err, sizeof(err)) < 0)
		return 0;
	struct rt_caprec rec;
	struct rt_pkt pkt;
	for (int i = 0; i < 100000 && rt_capfile_next(f, &rec) > 0; i++)
		rt_decode(NULL, rec.linktype, rec.data, rec.caplen, rec.wirelen, &pkt);
	struct rt_capfile_stats st;
	rt_capfile_stats(f, &st);
	rt_capfile_close(f);
	char why[512];
	if (capfile_window_differs(data, size, 1 + size % 61, why, sizeof(why))) {
		fprintf(stderr, "file read through a window differs from the buffer: %s\n", why);
		abort();
	}
	return 0;
}

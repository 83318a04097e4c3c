/*
 * libFuzzer target for the correlation itself: a run of up to four trace
 * files and a capture, built into a timeline (linking, clock alignment,
 * every detector, the statistics, the packets' annotations) and formatted.
 * The readers have targets of their own (trace_reader, capfile); this one
 * feeds the linking and the detectors inputs that read fine but say
 * anything: PSNs, opcodes, QPNs, times and WRs that contradict each other.
 *
 * Input: up to four sections, each a 4-byte little-endian length and that
 * many bytes of a trace file, then the capture (pcap or pcapng) to the end.
 * A length of 0xFFFFFFFF ends the traces early.  The seeds
 * (tests/fuzz/corpus/correlate) are runs of the VM lab cut small, made with
 * tests/fuzz/make_correlate_seed.py.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rdmatrace/timeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_TRACES 4

/* A directory of this process's own for the input's files (mkdtemp fills in
 * the template's last six characters once), removed at exit. */
static char dir[] = "/tmp/rt-fuzz-correlate.XXXXXX";
static bool dir_made;

static void remove_dir(void)
{
	rmdir(dir);
}

static const char *work_dir(void)
{
	if (!dir_made) {
		if (!mkdtemp(dir))
			abort();
		dir_made = true;
		atexit(remove_dir);
	}
	return dir;
}

static int write_file(const char *path, const uint8_t *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t w = n ? fwrite(p, 1, n, f) : 0;
	return fclose(f) == 0 && w == n ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char paths[MAX_TRACES + 1][96];
	const char *traces[MAX_TRACES];
	size_t nt = 0, off = 0;
	while (nt < MAX_TRACES && size - off >= 4) {
		uint32_t len = (uint32_t)data[off] | (uint32_t)data[off + 1] << 8 | (uint32_t)data[off + 2] << 16 |
			       (uint32_t)data[off + 3] << 24;
		off += 4;
		if (len == UINT32_MAX || len > size - off)
			break;
		snprintf(paths[nt], sizeof(paths[nt]), "%s/t%zu.rtr", work_dir(), nt);
		if (write_file(paths[nt], data + off, len) < 0)
			abort();
		traces[nt] = paths[nt];
		nt++;
		off += len;
	}
	snprintf(paths[MAX_TRACES], sizeof(paths[MAX_TRACES]), "%s/capture.pcap", work_dir());
	if (write_file(paths[MAX_TRACES], data + off, size - off) < 0)
		abort();
	struct rt_tl_inputs in = { .traces = traces, .ntraces = nt, .capture = size > off ? paths[MAX_TRACES] : NULL };
	struct rt_timeline *tl = NULL;
	char err[256];
	uint64_t sum = 0;
	if (rt_timeline_build(&in, &tl, err, sizeof(err)) == 0 && tl) {
		static char buf[RT_TL_DETAIL_MAX];
		size_t n = rt_tl_row_count(tl);
		for (size_t i = 0; i < n && i < 4000; i++) {
			sum += rt_tl_format_summary(tl, i, buf, sizeof(buf));
			sum += rt_tl_format_detail(tl, i, buf, sizeof(buf));
			sum += rt_tl_format_annotation(tl, i, buf, sizeof(buf));
		}
		for (size_t i = 0; i < rt_tl_finding_count(tl); i++)
			sum += rt_tl_str(tl, rt_tl_finding(tl, i)->text)[0];
		rt_timeline_free(tl);
	}
	for (size_t i = 0; i < nt; i++)
		unlink(paths[i]);
	unlink(paths[MAX_TRACES]);
	return (int)(sum & 0);
}

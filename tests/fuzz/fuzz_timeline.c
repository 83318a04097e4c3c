/*
 * libFuzzer target for timeline files (RUNDIR/timeline.rtl): any byte
 * string is offered to the loader; it must refuse it with an error or load
 * it, and then every accessor, formatter, search and export must stay in
 * bounds whatever the indices inside say.
 */
#include <stdint.h>
#include <stdio.h>

#include "rdmatrace/timeline.h"
#include "rdmatrace/tl_export.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rt_timeline *tl;
	char err[256];
	if (rt_timeline_load_mem(data, size, &tl, err, sizeof(err)) < 0)
		return 0;
	static char buf[RT_TL_DETAIL_MAX];
	uint64_t sum = 0;
	size_t n = rt_tl_row_count(tl);
	for (size_t i = 0; i < n && i < 2000; i++) {
		sum += rt_tl_format_summary(tl, i, buf, sizeof(buf));
		sum += rt_tl_format_detail(tl, i, buf, sizeof(buf));
		sum += rt_tl_format_annotation(tl, i, buf, sizeof(buf));
		const struct rt_tl_link *l;
		sum += rt_tl_links(tl, i, &l);
		sum += rt_tl_raw_ns(tl, i);
		sum += (uint64_t)rt_tl_next_match(tl, (ssize_t)i, 0x1FF, 1);
		sum += (uint64_t)rt_tl_next_match(tl, (ssize_t)i, 0x1FF, -1);
	}
	sum += rt_tl_find_time(tl, sum);
	for (size_t i = 0; i < rt_tl_host_count(tl); i++)
		sum += rt_tl_str(tl, rt_tl_host(tl, i)->name)[0];
	for (size_t i = 0; i < rt_tl_finding_count(tl); i++)
		sum += rt_tl_str(tl, rt_tl_finding(tl, i)->text)[0];
	for (size_t i = 0; i < rt_tl_note_count(tl); i++)
		sum += rt_tl_note(tl, i)[0];
	if (n < 2000) {
		FILE *f = fopen("/dev/null", "w");
		if (f) {
			rt_tl_export_perfetto(tl, f);
			rt_tl_export_jsonl(tl, f);
			fclose(f);
		}
	}
	rt_timeline_free(tl);
	return (int)(sum & 0);
}

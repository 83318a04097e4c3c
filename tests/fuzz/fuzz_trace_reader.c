/*
 * libFuzzer target for the trace reader: any byte string is offered as a
 * trace file; the reader must either reject it with an error or read it,
 * reporting damage, without crashing, leaking or reading out of bounds.
 */
#include <stdint.h>
#include <stdio.h>

#include "rdmatrace/trace_print.h"
#include "rdmatrace/trace_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rt_trace_reader *r = rt_trace_reader_new();
	if (!r)
		return 0;
	char err[256];
	if (rt_trace_reader_add_buffer(r, "fuzz", data, size, err, sizeof(err)) == 0) {
		struct rt_trace_record rec;
		char buf[1024];
		uint64_t sum = 0;
		while (rt_trace_reader_next(r, &rec) > 0) {
			rt_event_format_fields(&rec.ev, (int)(rec.ns & 1), buf, sizeof(buf));
			sum += rec.ns + rec.mono_ns + (uint64_t)rec.pid + rec.program[0];
		}
		for (size_t i = 0; i < rt_trace_reader_damage_count(r); i++)
			sum += rt_trace_reader_damage(r, i)->offset;
		uint64_t lost[5];
		rt_trace_reader_lost(r, lost);
		if (sum == 42)
			fputs("", stderr); /* keep the loop from being optimised away */
	}
	rt_trace_reader_free(r);
	return 0;
}

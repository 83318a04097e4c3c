/*
 * libFuzzer target for the trace reader: any byte string is offered as a
 * trace file; the reader must either reject it with an error or read it,
 * reporting damage, without crashing, leaking or reading out of bounds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdmatrace/trace_format.h"

#include "rdmatrace/trace_print.h"
#include "rdmatrace/trace_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Random bytes almost never carry valid CRCs, which would keep the fuzzer at
 * the checksum checks.  A second pass reads a copy whose header, chunk
 * headers and record CRCs have been made valid (walking chunks as their
 * headers say, whatever they say), so sizes, counts, clock points and kinds
 * get exercised too.
 */
static void fix_crcs(uint8_t *p, size_t n)
{
	if (n < RT_FILE_HEADER_SIZE)
		return;
	uint32_t c = rt_crc32c(0, p, offsetof(struct rt_file_header, header_crc));
	memcpy(p + offsetof(struct rt_file_header, header_crc), &c, 4);
	size_t off = RT_FILE_HEADER_SIZE;
	while (off + RT_CHUNK_HEADER_SIZE <= n) {
		struct rt_chunk_header ch;
		memcpy(&ch, p + off, sizeof(ch));
		ch.magic = RT_CHUNK_MAGIC;
		size_t body = off + RT_CHUNK_HEADER_SIZE;
		if (ch.type == RT_CHUNK_EVENTS && ch.count && ch.count <= RT_CHUNK_MAX_EVENTS) {
			uint32_t table = rt_chunk_crc_table_size(ch.count);
			ch.payload_len = table + ch.count * RT_EVENT_SIZE;
			for (uint32_t i = 0; i < ch.count; i++) {
				size_t ev = body + table + (size_t)i * RT_EVENT_SIZE;
				if (ev + RT_EVENT_SIZE > n || body + i * 4u + 4 > n)
					break;
				uint32_t rc = rt_crc32c(0, p + ev, RT_EVENT_SIZE);
				memcpy(p + body + i * 4u, &rc, 4);
			}
		} else if (ch.type == RT_CHUNK_PROCESS && body + sizeof(struct rt_process_record) <= n) {
			ch.payload_len = sizeof(struct rt_process_record);
			ch.payload_crc = rt_crc32c(0, p + body, sizeof(struct rt_process_record));
		}
		ch.header_crc = rt_crc32c(0, &ch, offsetof(struct rt_chunk_header, header_crc));
		memcpy(p + off, &ch, sizeof(ch));
		if (ch.payload_len > n - body)
			break;
		off = body + ch.payload_len;
	}
}

static void read_one(const uint8_t *data, size_t size)
{
	struct rt_trace_reader *r = rt_trace_reader_new();
	if (!r)
		return;
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
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	read_one(data, size);
	uint8_t *copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	fix_crcs(copy, size);
	read_one(copy, size);
	free(copy);
	return 0;
}

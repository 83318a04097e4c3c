/*
 * Test tool: a copy of a trace file in which one thread lost a run of its
 * events the way a full ring loses them, so the analysis can be tested on
 * a trace with a hole at a known place (a real ring fills only when the
 * collector is held up, which no test can arrange on purpose).
 *
 *   lose_events IN OUT TID FIRST_SEQ COUNT
 *
 * The records of thread TID with sequence numbers FIRST_SEQ ..
 * FIRST_SEQ+COUNT-1 are left out, and its record FIRST_SEQ+COUNT becomes
 * the RT_EV_LOST record (cause ring_full) the tracer writes at the next
 * event after a drop: same time, thread and sequence number.  Only the
 * ring that holds record FIRST_SEQ loses them (a thread writing through
 * two copies of the tracer, a probe's and an engine's, numbers each
 * copy's records apart).  Everything else is copied as it is (chunks are
 * rewritten with fresh CRCs).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdmatrace/trace_format.h"
#include "rdmatrace/trace_writer.h"

static unsigned char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 20, n = 0;
	unsigned char *p = malloc(cap);
	while (p) {
		size_t got = fread(p + n, 1, cap - n, f);
		n += got;
		if (n < cap)
			break;
		unsigned char *q = realloc(p, cap *= 2);
		if (!q) {
			free(p);
			p = NULL;
		}
		p = q;
	}
	fclose(f);
	*len = n;
	return p;
}

/* The EVENTS chunk's records with the lost ones taken out; the count kept. */
static size_t drop_records(struct rt_event *ev, size_t n, uint32_t tid, uint32_t first, uint32_t count, int *changed)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		struct rt_event e = ev[i];
		uint32_t d = e.seq - first; /* modulo 2^32, as sequence numbers wrap */
		if (e.tid == tid && d < count) {
			(*changed)++;
			continue;
		}
		if (e.tid == tid && d == count) {
			memset(&e.u, 0, sizeof(e.u));
			e.kind = RT_EV_LOST;
			e.flags = 0;
			e.qpn = 0;
			e.u.lost.count = count;
			e.u.lost.first_seq = first;
			e.u.lost.cause = RT_LOST_RING_FULL;
			(*changed)++;
		}
		ev[k++] = e;
	}
	return k;
}

/* The ring whose records of thread tid include sequence number seq; -1 none. */
static long ring_of_record(const unsigned char *in, size_t len, uint32_t tid, uint32_t seq)
{
	for (size_t off = RT_FILE_HEADER_SIZE; off + RT_CHUNK_HEADER_SIZE <= len;) {
		struct rt_chunk_header c;
		memcpy(&c, in + off, sizeof(c));
		size_t end = off + RT_CHUNK_HEADER_SIZE + c.payload_len, table = rt_chunk_crc_table_size(c.count);
		if (c.magic != RT_CHUNK_MAGIC || end > len || end < off)
			return -1;
		if (c.type == RT_CHUNK_EVENTS && c.tid == tid && table + (size_t)c.count * RT_EVENT_SIZE <= c.payload_len)
			for (uint32_t i = 0; i < c.count; i++) {
				struct rt_event e;
				memcpy(&e, in + off + RT_CHUNK_HEADER_SIZE + table + (size_t)i * RT_EVENT_SIZE, sizeof(e));
				if (e.tid == tid && e.seq == seq)
					return c.ring;
			}
		off = end;
	}
	return -1;
}

int main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "usage: lose_events IN OUT TID FIRST_SEQ COUNT\n");
		return 2;
	}
	uint32_t tid = (uint32_t)strtoul(argv[3], NULL, 0), first = (uint32_t)strtoul(argv[4], NULL, 0);
	uint32_t count = (uint32_t)strtoul(argv[5], NULL, 0);
	size_t len;
	unsigned char *in = read_all(argv[1], &len);
	if (!in || len < RT_FILE_HEADER_SIZE) {
		fprintf(stderr, "lose_events: cannot read a trace from %s\n", argv[1]);
		return 1;
	}
	long ring = ring_of_record(in, len, tid, first);
	if (ring < 0) {
		fprintf(stderr, "lose_events: thread %u has no record %u in %s\n", tid, first, argv[1]);
		return 1;
	}
	struct rt_file_header h;
	memcpy(&h, in, sizeof(h));
	struct rt_trace_writer w;
	char err[256];
	if (rt_trace_writer_open(&w, argv[2], &h, err, sizeof(err)) < 0) {
		fprintf(stderr, "lose_events: %s\n", err);
		return 1;
	}
	int changed = 0;
	size_t off = RT_FILE_HEADER_SIZE;
	while (off + RT_CHUNK_HEADER_SIZE <= len) {
		struct rt_chunk_header c;
		memcpy(&c, in + off, sizeof(c));
		size_t end = off + RT_CHUNK_HEADER_SIZE + c.payload_len;
		if (c.magic != RT_CHUNK_MAGIC || end > len || end < off) {
			fprintf(stderr, "lose_events: %s: no chunk at byte %zu (this tool copies intact files only)\n",
				argv[1], off);
			return 1;
		}
		const unsigned char *payload = in + off + RT_CHUNK_HEADER_SIZE;
		int rc = 0;
		if (c.type == RT_CHUNK_PROCESS && c.payload_len >= sizeof(struct rt_process_record)) {
			struct rt_process_record p;
			memcpy(&p, payload, sizeof(p));
			rc = rt_trace_writer_process(&w, &p);
		} else if (c.type == RT_CHUNK_EVENTS) {
			size_t table = rt_chunk_crc_table_size(c.count);
			struct rt_event *ev = malloc((c.count + 1) * sizeof(*ev));
			if (!ev || table + (size_t)c.count * RT_EVENT_SIZE > c.payload_len) {
				fprintf(stderr, "lose_events: %s: a bad EVENTS chunk at byte %zu\n", argv[1], off);
				return 1;
			}
			memcpy(ev, payload + table, (size_t)c.count * RT_EVENT_SIZE);
			size_t k = c.ring == (uint32_t)ring ? drop_records(ev, c.count, tid, first, count, &changed) : c.count;
			if (k)
				rc = rt_trace_writer_events(&w, c.pid, c.ring, c.tid, c.flags, ev, k);
			free(ev);
		}
		if (rc < 0) {
			fprintf(stderr, "lose_events: cannot write %s: %s\n", argv[2], strerror(-rc));
			return 1;
		}
		off = end;
	}
	free(in);
	if (rt_trace_writer_close(&w) < 0) {
		fprintf(stderr, "lose_events: cannot write %s\n", argv[2]);
		return 1;
	}
	if (changed != (int)count + 1) {
		fprintf(stderr, "lose_events: thread %u has no records %u .. %u in %s (%d found)\n", tid, first,
			first + count, argv[1], changed);
		return 1;
	}
	return 0;
}

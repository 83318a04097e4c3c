/*
 * Reading trace files: the one reader every consumer uses (dump, correlate,
 * view, diagnose, export).
 *
 *     struct rt_trace_reader *r = rt_trace_reader_new();
 *     if (rt_trace_reader_add_file(r, "a.rtr", err, sizeof(err)) < 0) ...;
 *     struct rt_trace_record rec;
 *     while (rt_trace_reader_next(r, &rec) > 0)
 *             printf("%llu %s\n", rec.ns, rt_event_kind_name(rec.ev.kind));
 *     for (size_t i = 0; i < rt_trace_reader_damage_count(r); i++) ...
 *     rt_trace_reader_free(r);
 *
 * Records of all added files come out merged in time order.  Time is
 * converted from the file's raw ticks piecewise between the calibration
 * points (file header and RT_EV_CLOCK_SYNC records).  Files from one boot
 * of one host are merged on CLOCK_MONOTONIC; files from different hosts or
 * boots on wall-clock time.
 *
 * Damage never stops reading: a bad chunk header, a record whose CRC does
 * not match, or a truncated tail is reported (file and byte offset) through
 * rt_trace_reader_damage(), and every intact record before and after it is
 * still returned.  Only a file that is not a trace at all, or has a version
 * this reader does not know, makes add_file fail.
 */
#ifndef RDMATRACE_TRACE_READER_H
#define RDMATRACE_TRACE_READER_H

#include <stddef.h>
#include <stdint.h>

#include "rdmatrace/event.h"

/* One input file, as its header describes it. */
struct rt_trace_source {
	const char *path;
	char host[64];
	char boot_id[40];
	int32_t pid;            /* first traced process */
	char program[64];
	uint16_t version_major;
	uint16_t version_minor;
	uint32_t mode;          /* enum rt_tracer_mode */
	uint32_t clock_source;  /* enum rt_clock_source */
	uint64_t size;          /* file bytes */
	uint64_t records;       /* intact records found */
	uint64_t first_ns, last_ns; /* wall-clock range of its records */
};

struct rt_trace_record {
	struct rt_event ev;     /* the record as written (copied out) */
	uint64_t ns;            /* wall clock, ns since the Unix epoch */
	uint64_t mono_ns;       /* the recording host's CLOCK_MONOTONIC */
	int32_t pid;            /* process the record came from */
	const char *program;    /* its program name ("" if unknown) */
	const struct rt_trace_source *src;
	unsigned file;          /* index of src among the added files */
	uint64_t offset;        /* byte offset of the record in its file */
	uint16_t chunk_flags;   /* enum rt_chunk_flags of its chunk */
};

struct rt_trace_damage {
	const char *path;
	uint64_t offset;        /* where the damage starts */
	uint64_t length;        /* bytes skipped because of it (0 if unknown) */
	char message[160];
};

struct rt_trace_reader;

struct rt_trace_reader *rt_trace_reader_new(void);

/*
 * Add a file.  0, or -errno with errbuf saying what is wrong and where:
 * unreadable file, not a trace file (bad magic), unsupported version.
 * Damage inside an otherwise valid file is not an error (see above).
 */
int rt_trace_reader_add_file(struct rt_trace_reader *r, const char *path, char *errbuf, size_t errlen);

/* The same for a file image in memory; `data` must stay valid until free. */
int rt_trace_reader_add_buffer(struct rt_trace_reader *r, const char *name, const void *data, size_t len,
			       char *errbuf, size_t errlen);

/* Next record in time order: 1 and *out filled, or 0 at the end. */
int rt_trace_reader_next(struct rt_trace_reader *r, struct rt_trace_record *out);

/* Start again from the first record. */
void rt_trace_reader_rewind(struct rt_trace_reader *r);

/* Intact records over all files. */
size_t rt_trace_reader_count(struct rt_trace_reader *r);

size_t rt_trace_reader_source_count(const struct rt_trace_reader *r);
const struct rt_trace_source *rt_trace_reader_source(const struct rt_trace_reader *r, size_t i);

size_t rt_trace_reader_damage_count(const struct rt_trace_reader *r);
const struct rt_trace_damage *rt_trace_reader_damage(const struct rt_trace_reader *r, size_t i);

/* Sum of RT_EV_LOST counts by enum rt_lost_cause (index 0: all causes). */
void rt_trace_reader_lost(struct rt_trace_reader *r, uint64_t lost[5]);

void rt_trace_reader_free(struct rt_trace_reader *r);

#endif

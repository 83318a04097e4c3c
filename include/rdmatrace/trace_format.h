/*
 * The on-disk layout of an rdmatrace trace file (*.rtr), shared by the
 * writer (collector), the reader and the fuzz corpus generator.
 * docs/trace-format.md describes it in prose; keep the two in step.
 *
 *   file header (256 bytes, CRC-protected)
 *   chunk*      each: 64-byte chunk header, then its payload
 *
 * An EVENTS chunk carries up to RT_CHUNK_MAX_EVENTS records of one ring:
 * a table of one CRC-32C per record (padded to 64 bytes), then the 64-byte
 * records.  Per-record CRCs let the reader keep every intact record of a
 * damaged or truncated chunk.  A PROCESS chunk names a process (pid,
 * program) whose rings appear in later chunks.  All integers little-endian.
 */
#ifndef RDMATRACE_TRACE_FORMAT_H
#define RDMATRACE_TRACE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "rdmatrace/clock.h"
#include "rdmatrace/event.h"

#define RT_FILE_MAGIC "RDMATRC\0"      /* 8 bytes */
#define RT_FILE_VERSION_MAJOR 1
#define RT_FILE_VERSION_MINOR 0
#define RT_FILE_HEADER_SIZE 256
#define RT_FILE_BYTE_ORDER 0x01020304u

#define RT_CHUNK_MAGIC 0x4b435452u      /* "RTCK" read as little-endian */
#define RT_CHUNK_HEADER_SIZE 64
#define RT_CHUNK_MAX_EVENTS 256

enum rt_chunk_type {
	RT_CHUNK_EVENTS = 1,
	RT_CHUNK_PROCESS = 2,
};

/* EVENTS chunk flags. */
enum rt_chunk_flags {
	RT_CHUNKF_SNAPSHOT = 1u << 0, /* written by a flight-recorder snapshot */
	RT_CHUNKF_SALVAGED = 1u << 1, /* recovered from a dead program's segment */
	RT_CHUNKF_COLLECTOR = 1u << 2, /* records made by the collector (clock sync, lost) */
};

struct rt_file_header {
	char magic[8];
	uint16_t version_major;
	uint16_t version_minor;
	uint32_t header_size;           /* RT_FILE_HEADER_SIZE */
	uint32_t event_size;            /* RT_EVENT_SIZE */
	uint32_t byte_order;            /* RT_FILE_BYTE_ORDER as written by the host */
	uint32_t mode;                  /* enum rt_tracer_mode */
	int32_t pid;                    /* first traced process */
	struct rt_clock_calib calib;    /* 48 bytes */
	char host[64];
	char boot_id[40];               /* /proc/sys/kernel/random/boot_id */
	char program[64];
	uint32_t flags;
	uint32_t header_crc;            /* rt_crc32c of the 252 bytes before it */
};

struct rt_chunk_header {
	uint32_t magic;                 /* RT_CHUNK_MAGIC */
	uint16_t type;                  /* enum rt_chunk_type */
	uint16_t flags;                 /* enum rt_chunk_flags */
	uint32_t count;                 /* EVENTS: records in the chunk */
	uint32_t payload_len;           /* bytes after this header */
	int32_t pid;                    /* process the records came from */
	uint32_t ring;                  /* ring index in the segment; ~0 = collector */
	uint32_t tid;                   /* ring owner thread */
	uint32_t payload_crc;           /* EVENTS: CRC of the CRC table; PROCESS: of the payload */
	uint64_t chunk_seq;             /* chunks written before this one */
	uint8_t reserved[20];
	uint32_t header_crc;            /* rt_crc32c of the 60 bytes before it */
};

struct rt_process_record {              /* PROCESS chunk payload */
	int32_t pid;
	uint32_t reserved;
	uint64_t start_time;            /* /proc/PID/stat starttime, clock ticks since boot */
	char program[64];
	char reserved2[48];
};

_Static_assert(sizeof(struct rt_file_header) == RT_FILE_HEADER_SIZE, "file header size");
_Static_assert(sizeof(struct rt_chunk_header) == RT_CHUNK_HEADER_SIZE, "chunk header size");
_Static_assert(sizeof(struct rt_process_record) == 128, "process record size");

/* CRC-32C (Castagnoli) of trace files: crc = rt_crc32c(crc, p, n), start with 0. */
uint32_t rt_crc32c(uint32_t crc, const void *p, size_t n);

/* Size of the CRC table of an EVENTS chunk of n records (padded to 64 bytes). */
static inline uint32_t rt_chunk_crc_table_size(uint32_t n)
{
	return (n * 4u + 63u) & ~63u;
}

#endif

/*
 * Writing trace files (format: include/rdmatrace/trace_format.h).  Used by
 * the collector (in-process or in `rdmatrace record`), by salvage, and by
 * tests that need files with known contents.  Files are created mode 0600:
 * a trace shows what a program did and is its owner's business.
 */
#ifndef RDMATRACE_TRACE_WRITER_H
#define RDMATRACE_TRACE_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "rdmatrace/trace_format.h"

struct rt_trace_writer {
	int fd;
	uint64_t chunk_seq;     /* chunks written */
	uint64_t bytes;         /* bytes written, header included */
	uint64_t events;        /* records written */
	int error;              /* first write error (-errno), sticky */
	uint32_t crcs[RT_CHUNK_MAX_EVENTS];
};

/*
 * Fill the parts of a file header that describe this host and format:
 * magic, version, sizes, byte order, host name, boot id.  The caller sets
 * mode, pid, program and calib.
 */
void rt_file_header_init(struct rt_file_header *h);

/* Create (truncate) `path` mode 0600 and write the header; 0 or -errno. */
int rt_trace_writer_open(struct rt_trace_writer *w, const char *path, const struct rt_file_header *h,
			 char *errbuf, size_t errlen);

/* Append a PROCESS chunk. */
int rt_trace_writer_process(struct rt_trace_writer *w, const struct rt_process_record *p);

/* Append records of one ring, split into EVENTS chunks of at most RT_CHUNK_MAX_EVENTS. */
int rt_trace_writer_events(struct rt_trace_writer *w, int32_t pid, uint32_t ring, uint32_t tid,
			   uint16_t flags, const struct rt_event *ev, size_t n);

/* fsync-free close; returns the sticky error, if any.  Idempotent. */
int rt_trace_writer_close(struct rt_trace_writer *w);

/* Host identity helpers also used by the shared-memory segment. */
void rt_host_name(char *buf, size_t len);
void rt_boot_id(char *buf, size_t len);
/* Program name of a process (from /proc/PID/comm, or cmdline's basename); "" if unknown. */
void rt_process_name(int pid, char *buf, size_t len);
/* starttime field of /proc/PID/stat (identifies a process beyond its pid); 0 if unknown. */
uint64_t rt_process_start_time(int pid);

#endif

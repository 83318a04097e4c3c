/*
 * Writing pcapng: a section header (with an optional comment), interface
 * descriptions (nanosecond resolution), enhanced packet blocks with an
 * optional per-packet comment (Wireshark's frame.comment), and interface
 * statistics (received / dropped counts).  Used by live capture and by
 * anything that writes an annotated copy of a capture.
 *
 *     struct rt_pcapng_writer *w;
 *     rt_pcapng_open("out.pcapng", &(struct rt_pcapng_opts){ .comment = "run 7" }, &w, err, sizeof err);
 *     uint32_t ifc;
 *     rt_pcapng_interface(w, RT_LINKTYPE_ETHERNET, 262144, "eth0", &ifc);
 *     rt_pcapng_packet(w, ifc, ts_ns, data, caplen, wirelen, "retransmission of PSN 12");
 *     rt_pcapng_close(w, err, sizeof err);   // 0 only if every byte reached the file
 */
#ifndef RDMATRACE_PCAPNG_WRITE_H
#define RDMATRACE_PCAPNG_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct rt_pcapng_writer;

struct rt_pcapng_opts {
	const char *comment;      /* section comment (shb opt_comment), or NULL */
	const char *application;  /* shb_userappl; NULL: "rdmatrace" */
	const char *os;           /* shb_os; NULL: uname of this host */
	const char *hardware;     /* shb_hardware, or NULL */
};

/* Create path ("-" is stdout) and write the section header. */
int rt_pcapng_open(const char *path, const struct rt_pcapng_opts *opts, struct rt_pcapng_writer **out,
		   char *err, size_t errlen);
/* Same on an open stream, which rt_pcapng_close() does not close. */
int rt_pcapng_open_stream(FILE *stream, const struct rt_pcapng_opts *opts, struct rt_pcapng_writer **out,
			  char *err, size_t errlen);

/* Add an interface; *if_id receives its number for rt_pcapng_packet(). */
int rt_pcapng_interface(struct rt_pcapng_writer *w, uint16_t linktype, uint32_t snaplen, const char *name,
			uint32_t *if_id);
/* The interface for linktype, added on first use (copying from several inputs). */
int rt_pcapng_interface_for(struct rt_pcapng_writer *w, uint16_t linktype, uint32_t *if_id);

struct rt_caprec;

/* Copy a record read with rt_capfile_next() (any input format or link
 * type), on the interface for its link type, with an optional comment:
 * how an annotated copy of a capture is written. */
int rt_pcapng_copy(struct rt_pcapng_writer *w, const struct rt_caprec *rec, const char *comment);

/* One packet; comment may be NULL. */
int rt_pcapng_packet(struct rt_pcapng_writer *w, uint32_t if_id, uint64_t ts_ns, const void *data,
		     uint32_t caplen, uint32_t wirelen, const char *comment);

struct rt_pcapng_stats {
	uint64_t ts_ns;           /* when the statistics were taken */
	uint64_t start_ns, end_ns;/* isb_starttime / isb_endtime, 0 to omit */
	uint64_t ifrecv;          /* isb_ifrecv: packets the capture saw */
	uint64_t ifdrop;          /* isb_ifdrop: packets the kernel dropped */
	uint64_t osdrop;          /* isb_osdrop: dropped by the interface/driver */
	uint64_t usrdeliv;        /* isb_usrdeliv: packets written */
	const char *comment;
};

/* An interface statistics block for if_id. */
int rt_pcapng_stats(struct rt_pcapng_writer *w, uint32_t if_id, const struct rt_pcapng_stats *st);

/* Push buffered blocks to the file. */
int rt_pcapng_flush(struct rt_pcapng_writer *w);

/* Flush, close and free; 0 when everything was written, else -errno and err. */
int rt_pcapng_close(struct rt_pcapng_writer *w, char *err, size_t errlen);

#endif

/*
 * State shared by the capture-file front end (capfile.c, libpcap backend)
 * and the memory-mapped pcap/pcapng parser (capfile_mmap.c).  Private to
 * captures/.
 */
#ifndef RDMATRACE_CAPTURES_CAPFILE_IMPL_H
#define RDMATRACE_CAPTURES_CAPFILE_IMPL_H

#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdio.h>

#include "rdmatrace/capfile.h"

struct capfile_iface {
	uint16_t linktype;
	uint32_t snaplen;
	uint64_t mul;             /* ts * mul = ns when the resolution is 10^-n, n <= 9 */
	uint64_t div;             /* ts / div = ns when 10^-n, n > 9 */
	uint8_t shift;            /* binary resolution 2^-shift when mul == div == 0 */
	int64_t offset_s;         /* if_tsoffset */
	struct rt_capfile_stats isb; /* its last statistics block (blocks 0 or 1) */
};

struct rt_capfile {
	int backend;              /* RT_CAPFILE_MMAP or RT_CAPFILE_LIBPCAP */
	bool pcapng;
	int status;               /* sticky: 0 reading, 1 clean end, <0 error */
	uint64_t frame;
	char err[256];

	/* mmap backend */
	const uint8_t *base;
	size_t len, pos;
	bool mapped;              /* base came from mmap(): unmap on close */
	bool swapped;             /* pcap: file byte order differs from ours */
	bool big_endian;          /* pcapng: the current section's byte order */
	bool nano;                /* pcap: nanosecond timestamps */
	uint16_t linktype;        /* pcap: the file's */
	uint32_t snaplen;
	struct capfile_iface *ifs;
	unsigned nifs, cap_ifs;
	struct rt_capfile_stats isb_done; /* statistics of the sections already ended */

	/* libpcap backend */
	pcap_t *pc;
	FILE *memf;
};

/* to += from, counter by counter. */
void capfile_stats_add(struct rt_capfile_stats *to, const struct rt_capfile_stats *from);
/* Parse the file header at base/len (mmap backend).  0, or -errno with f->err set. */
int capfile_mmap_start(struct rt_capfile *f);
/* Next record from the mmap backend (same contract as rt_capfile_next). */
int capfile_mmap_next(struct rt_capfile *f, struct rt_caprec *rec);
/* True when the first bytes are a pcap or pcapng header this parser reads. */
bool capfile_mmap_recognises(const uint8_t *p, size_t len);
/* Record an error message in f->err (printf style) and return -code. */
int capfile_fail(struct rt_capfile *f, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif

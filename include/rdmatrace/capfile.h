/*
 * Reading capture files: pcap (microsecond or nanosecond, either byte
 * order) and pcapng (any number of sections and interfaces), one record at
 * a time, timestamps in nanoseconds.
 *
 * Two backends give the same records:
 *   RT_CAPFILE_MMAP     our own reader (named for the memory-mapped file
 *                       it once read): a regular file is read through a
 *                       reused 1 MiB window with pread(), a pipe or "-"
 *                       through the same window as it comes, a caller's
 *                       buffer in place; the fast path
 *   RT_CAPFILE_LIBPCAP  libpcap (pcap_open_offline_with_tstamp_precision,
 *                       nanosecond precision)
 *   RT_CAPFILE_AUTO     ours for what it recognises, else libpcap
 *
 * A compressed file, buffer or pipe (gzip, zstd or lz4 frames, one or
 * more members or frames) is decompressed as it is read, by either
 * backend, in the memory of a plain one.
 *
 * Damage (a truncated record, a block length that cannot be right, a
 * compressed stream damaged or cut short) ends the reading with -EBADMSG and a message
 * saying where; every record before the damage has been returned.  Nothing
 * is ever read past the file's end.
 */
#ifndef RDMATRACE_CAPFILE_H
#define RDMATRACE_CAPFILE_H

#include <stddef.h>
#include <stdint.h>

enum rt_capfile_backend {
	RT_CAPFILE_AUTO = 0,
	RT_CAPFILE_MMAP = 1,
	RT_CAPFILE_LIBPCAP = 2,
};

struct rt_caprec {
	const uint8_t *data;      /* valid until the next rt_capfile_next() or close (see rt_capfile_data_stable) */
	uint32_t caplen;          /* bytes in data */
	uint32_t wirelen;         /* original length on the wire */
	uint64_t ts_ns;           /* nanoseconds since the Unix epoch */
	uint64_t frame;           /* 1-based record number, as Wireshark numbers frames */
	uint16_t linktype;        /* LINKTYPE_ of the record's interface */
	uint32_t ifindex;         /* pcapng interface number (0 for pcap) */
	const char *comment;      /* pcapng opt_comment (our reader), not NUL-terminated; valid as data */
	uint32_t comment_len;
};

struct rt_capfile;

/* Open path with the given backend.  Returns 0 or -errno with a message in err. */
int rt_capfile_open(const char *path, enum rt_capfile_backend backend, struct rt_capfile **out,
		    char *err, size_t errlen);

/* Read from a caller's buffer (kept by the caller until close).  Our
 * reader parses it in place; libpcap reads it through fmemopen.  A
 * compressed buffer is decompressed as it is read, like a file. */
int rt_capfile_open_mem(const void *buf, size_t len, enum rt_capfile_backend backend,
			struct rt_capfile **out, char *err, size_t errlen);

/* The next record: 1 and *rec filled, 0 at the clean end of the file, or a
 * negative errno (-EBADMSG for damage) with rt_capfile_error() saying why. */
int rt_capfile_next(struct rt_capfile *f, struct rt_caprec *rec);

/* The error message of the last failure ("" when none). */
const char *rt_capfile_error(const struct rt_capfile *f);

/* "gzip", "zstd" or "lz4" when buf[len] starts with that compressor's
 * magic (gzip 1f 8b, a zstd frame or skippable frame, an LZ4 frame), the
 * three Wireshark reads; these functions decompress them as they read.
 * NULL when it is none of them. */
const char *rt_capfile_compression(const void *buf, size_t len);

/* Nonzero when a file NAME is a capture's: *.pcap, *.pcapng, or either
 * compressed (*.pcap.gz, *.pcapng.zst, *.pcap.lz4 ...). */
int rt_capfile_name_is_capture(const char *name);

/* "pcap" or "pcapng" ("pcapng (gzip)", "pcap (zstd)" ... when compressed), and which backend
 * is reading it ("mmap": ours, "libpcap"). */
const char *rt_capfile_format(const struct rt_capfile *f);
const char *rt_capfile_backend_name(const struct rt_capfile *f);

/* Nonzero when buf[len] starts as a pcap file (either byte order, micro-
 * or nanoseconds) or a pcapng section does: what our reader reads.  A
 * compressed one is told by rt_capfile_compression(). */
int rt_capfile_recognises(const void *buf, size_t len);

/* Nonzero when every record's data stays valid until close (our reader
 * over a caller's buffer hands records out in place), not only until the
 * next record (a file or a compressed stream read through a window, libpcap). */
int rt_capfile_data_stable(const struct rt_capfile *f);

/* fn(arg) is called whenever reading a pipe or standard input is about to
 * wait for more of it (a capture still being written, as `tcpdump -U -w -`
 * writes it): the moment to show what was read so far, e.g. to flush the
 * output.  Not called for files. */
void rt_capfile_on_wait(struct rt_capfile *f, void (*fn)(void *arg), void *arg);

/* How far reading has got: *done of the *total bytes of the data as
 * stored (of a compressed capture, its compressed bytes), for estimates of
 * what is still to come.  0, or -1 when not known (libpcap reading a
 * plain file or pipe, a compressed pipe before its end). */
int rt_capfile_progress(const struct rt_capfile *f, uint64_t *done, uint64_t *total);

/* The capture's own counters: pcapng interface statistics blocks (the last
 * one of each interface, summed over interfaces and sections).  Each block
 * counts from the start of the capture, so they are complete only once the
 * file has been read to its end (they are usually the last blocks). */
struct rt_capfile_stats {
	unsigned blocks;          /* interfaces that had a statistics block; 0: nothing known */
	unsigned have;            /* RT_CAPSTAT_* bits: which counters some block gave */
	uint64_t ifrecv;          /* isb_ifrecv: packets the interface received */
	uint64_t ifdrop;          /* isb_ifdrop: dropped for lack of resources (pcap_stats ps_drop) */
	uint64_t osdrop;          /* isb_osdrop: dropped by the operating system */
	uint64_t usrdeliv;        /* isb_usrdeliv: delivered to the capturing program */
};
enum { RT_CAPSTAT_IFRECV = 1, RT_CAPSTAT_IFDROP = 2, RT_CAPSTAT_OSDROP = 4, RT_CAPSTAT_USRDELIV = 8 };
/* The counters read so far (all zero for pcap files and the libpcap backend,
 * which do not expose them). */
void rt_capfile_stats(const struct rt_capfile *f, struct rt_capfile_stats *out);
/* Link type of the first interface (pcap: the file's), -1 when not yet known. */
int rt_capfile_linktype(const struct rt_capfile *f);
/* Interfaces the records so far can come from: the pcapng interface
 * descriptions of the current section (they normally precede its packets);
 * 1 for pcap files and the libpcap backend, which name no interface. */
unsigned rt_capfile_interfaces(const struct rt_capfile *f);

/* Close; NULL is fine. */
void rt_capfile_close(struct rt_capfile *f);

#endif

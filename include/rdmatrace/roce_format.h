/*
 * Text and JSON for decoded RoCEv2 packets (struct rt_pkt): one line per
 * packet as `rdmatrace packets` prints it, one JSON object per packet, and
 * the AETH in words ("ACK", "RNR NAK 655.36 ms", "NAK PSN sequence error").
 * Formatting is allocation-free and printf-free, because `rdmatrace
 * packets` formats millions of packets per second.
 */
#ifndef RDMATRACE_ROCE_FORMAT_H
#define RDMATRACE_ROCE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "rdmatrace/roce_decode.h"

/* Optional memo for rt_pkt_format_line (a capture has few addresses and
 * flows, and numbers its frames in order): zero-initialise one per
 * formatting thread and point rt_fmt_ctx at it.  It holds recently
 * formatted addresses, IPv4 line beginnings ("src > dst [vlan N] OPCODE QP
 * 0x.. PSN ") by flow and opcode, and the text of the latest frame number. */
#define RT_FMT_CACHE_SLOTS 4
#define RT_FMT_PREFIX_SLOTS 64
#define RT_FMT_PREFIX_TEXT 64     /* longer beginnings (IPv6) are not memoised */
struct rt_fmt_cache {
	uint64_t key[RT_FMT_CACHE_SLOTS][2]; /* the 16 address bytes */
	uint8_t version[RT_FMT_CACHE_SLOTS]; /* 0: empty slot */
	uint8_t len[RT_FMT_CACHE_SLOTS];
	char text[RT_FMT_CACHE_SLOTS][48];
	unsigned next;
	/* IPv4 line beginnings: key = addresses, (opcode, VLAN, QP); len 0: empty */
	struct rt_fmt_prefix {
		uint64_t key[2];
		uint8_t len;
		char text[RT_FMT_PREFIX_TEXT];
	} prefix[RT_FMT_PREFIX_SLOTS];
	/* the latest frame number as text */
	uint64_t frame;
	uint8_t frame_len;        /* 0: none yet */
	char frame_text[24];
};

/* What the caller knows about the record around the packet. */
struct rt_fmt_ctx {
	uint64_t frame;           /* 1-based frame number */
	uint64_t ts_ns;           /* absolute timestamp */
	uint64_t base_ns;         /* subtracted for relative times */
	int abs_time;             /* 1: print UTC date and time instead of relative seconds */
	struct rt_fmt_cache *cache; /* NULL: no memo */
};

/* The AETH in words into buf (NUL-terminated); returns the length. */
size_t rt_aeth_describe(const struct rt_aeth *aeth, char *buf, size_t len);

/* The packet as one line (with '\n') into buf; returns the length written,
 * or 0 when len is too small (RT_FMT_LINE_MAX always suffices). */
#define RT_FMT_LINE_MAX 1024
size_t rt_pkt_format_line(const struct rt_pkt *pkt, const struct rt_fmt_ctx *ctx, char *buf, size_t len);

/* The packet as one JSON object (with '\n'); RT_FMT_JSON_MAX always suffices. */
#define RT_FMT_JSON_MAX 4096
size_t rt_pkt_format_json(const struct rt_pkt *pkt, const struct rt_fmt_ctx *ctx, char *buf, size_t len);

/* An address as text: dotted IPv4 or RFC 5952 IPv6; returns the length. */
size_t rt_format_ip(unsigned version, const uint8_t *addr, char *buf, size_t len);

#endif

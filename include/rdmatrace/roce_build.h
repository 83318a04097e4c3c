/*
 * Building RoCEv2 packets from header fields: the one writer of wire bytes
 * that the uroce engine, the decoder's tests and the lab tools share, so a
 * packet built here and one parsed by the decoder follow the same opcode
 * table (roce_wire.h) and the same ICRC (rt_icrc_compute / rt_crc32).
 *
 *     struct rt_roce_hdrs h = { .opcode = RT_OP_RC_SEND_ONLY, .dest_qpn = 0x12,
 *                               .psn = 0x123456, .ackreq = true };
 *     struct rt_roce_addr a = { .family = AF_INET, ... };
 *     size_t n;
 *     rt_roce_build_packet(buf, sizeof buf, &a, &h, "hello", 5, RT_BUILD_ETH, &n);
 */
#ifndef RDMATRACE_ROCE_BUILD_H
#define RDMATRACE_ROCE_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rdmatrace/roce_wire.h"

/* Header fields; only the extended headers of the opcode are written. */
struct rt_roce_hdrs {
	uint8_t opcode;
	bool se, migreq, ackreq, fecn, becn;
	uint16_t pkey;          /* 0 means 0xFFFF (the default partition) */
	uint32_t dest_qpn;
	uint32_t psn;
	/* RETH */
	uint64_t reth_va;
	uint32_t reth_rkey, reth_len;
	/* AETH */
	uint8_t aeth_syndrome;
	uint32_t aeth_msn;
	/* AtomicETH */
	uint64_t atomic_va;
	uint32_t atomic_rkey;
	uint64_t atomic_swap_add, atomic_compare;
	/* AtomicAckETH */
	uint64_t atomic_orig;
	/* ImmDt (the 4 bytes as they appear on the wire, i.e. ibv's network-order imm_data) */
	uint32_t imm_be;
	/* IETH */
	uint32_t ieth_rkey;
	/* DETH */
	uint32_t deth_qkey, deth_src_qp;
};

/* The IP/UDP envelope. Addresses are 4 (AF_INET) or 16 (AF_INET6) bytes, network order. */
struct rt_roce_addr {
	int family;             /* AF_INET or AF_INET6 */
	uint8_t src[16], dst[16];
	uint16_t sport, dport;  /* host order; dport 0 means 4791 */
	uint8_t tos;            /* IPv4 TOS / IPv6 traffic class */
	uint8_t ttl;            /* 0 means 64 */
	uint16_t ip_id;         /* IPv4 identification */
	bool ip_df;             /* IPv4 don't-fragment */
	uint32_t flow_label;    /* IPv6 */
};

/*
 * Write the BTH and the opcode's extended headers into buf (cap bytes);
 * payload_len sets PadCnt.  Returns the header length or -EINVAL (unknown
 * opcode) / -ENOSPC.
 */
int rt_roce_build_transport(uint8_t *buf, size_t cap, const struct rt_roce_hdrs *h, size_t payload_len);

/* Parse the BTH and extended headers of a UDP payload back into fields. Returns the header length or -EINVAL. */
int rt_roce_parse_transport(const uint8_t *p, size_t len, struct rt_roce_hdrs *h);

/*
 * The ICRC as a UDP socket user can compute it: the IP and UDP headers are
 * reconstructed from a (IPv4: total length from udp_payload_len, ID a->ip_id,
 * DF a->ip_df, no options).  Call rt_roce_icrc_begin, then rt_roce_icrc_update
 * over the transport headers (BTH first) and payload + pad in order, then
 * rt_roce_icrc_end.  udp_payload_len counts BTH .. ICRC inclusive.
 */
struct rt_roce_icrc {
	uint32_t crc;
	size_t done;            /* bytes of the UDP payload absorbed so far */
};
void rt_roce_icrc_begin(struct rt_roce_icrc *st, const struct rt_roce_addr *a, size_t udp_payload_len);
void rt_roce_icrc_update(struct rt_roce_icrc *st, const void *p, size_t n);
uint32_t rt_roce_icrc_end(const struct rt_roce_icrc *st);

enum rt_build_flags {
	RT_BUILD_ETH = 1u << 0, /* prepend a 14-byte Ethernet header (locally administered MACs) */
};

/*
 * A whole packet: [Ethernet] IP UDP BTH ext payload pad ICRC, with a real
 * IPv4 header checksum and a zero UDP checksum (as rxe).  Returns 0 and the
 * length in *out_len, or -EINVAL / -ENOSPC.
 */
int rt_roce_build_packet(uint8_t *buf, size_t cap, const struct rt_roce_addr *a, const struct rt_roce_hdrs *h,
                         const void *payload, size_t payload_len, unsigned flags, size_t *out_len);

#endif

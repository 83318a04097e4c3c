/*
 * RoCEv2 packet builder (see roce_build.h): header fields to wire bytes and
 * back, and the ICRC computed from what a UDP socket user knows.  The header
 * order of each opcode comes from the shared opcode table, so builder and
 * decoder cannot drift apart.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "rdmatrace/roce_build.h"

int rt_roce_build_transport(uint8_t *buf, size_t cap, const struct rt_roce_hdrs *h, size_t payload_len)
{
	const struct rt_opcode_info *oi = rt_opcode_info(h->opcode);
	if (!oi)
		return -EINVAL;
	if (cap < oi->hdr_len)
		return -ENOSPC;
	uint8_t *p = buf;
	p[0] = h->opcode;
	p[1] = (uint8_t)((h->se ? 0x80 : 0) | (h->migreq ? 0x40 : 0) | (rt_pad_for(payload_len) << 4));
	rt_put_be16(p + 2, h->pkey ? h->pkey : 0xFFFF);
	p[4] = (uint8_t)((h->fecn ? 0x80 : 0) | (h->becn ? 0x40 : 0));
	rt_put_be24(p + 5, h->dest_qpn);
	p[8] = h->ackreq ? 0x80 : 0;
	rt_put_be24(p + 9, h->psn & RT_PSN_MASK);
	p += RT_BTH_LEN;
	/* Wire order of the extended headers (IBTA): FETH, RETH, AETH, AtomicETH,
	   AtomicAckETH, DETH, ImmDt, IETH; the table says which are present.  DETH
	   precedes ImmDt, RETH precedes ImmDt, AETH precedes AtomicAckETH. */
	if (oi->headers & RT_HDR_DETH) {
		rt_put_be32(p, h->deth_qkey);
		p[4] = 0;
		rt_put_be24(p + 5, h->deth_src_qp);
		p += RT_DETH_LEN;
	}
	if (oi->headers & RT_HDR_FETH) {
		memset(p, 0, RT_FETH_LEN);
		p += RT_FETH_LEN;
	}
	if (oi->headers & RT_HDR_RETH) {
		rt_put_be64(p, h->reth_va);
		rt_put_be32(p + 8, h->reth_rkey);
		rt_put_be32(p + 12, h->reth_len);
		p += RT_RETH_LEN;
	}
	if (oi->headers & RT_HDR_AETH) {
		p[0] = h->aeth_syndrome;
		rt_put_be24(p + 1, h->aeth_msn);
		p += RT_AETH_LEN;
	}
	if (oi->headers & RT_HDR_ATOMICETH) {
		rt_put_be64(p, h->atomic_va);
		rt_put_be32(p + 8, h->atomic_rkey);
		rt_put_be64(p + 12, h->atomic_swap_add);
		rt_put_be64(p + 20, h->atomic_compare);
		p += RT_ATOMICETH_LEN;
	}
	if (oi->headers & RT_HDR_ATOMICACKETH) {
		rt_put_be64(p, h->atomic_orig);
		p += RT_ATOMICACKETH_LEN;
	}
	if (oi->headers & RT_HDR_IMMDT) {
		memcpy(p, &h->imm_be, 4);
		p += RT_IMMDT_LEN;
	}
	if (oi->headers & RT_HDR_IETH) {
		rt_put_be32(p, h->ieth_rkey);
		p += RT_IETH_LEN;
	}
	if (oi->headers & RT_HDR_CNP) {
		memset(p, 0, RT_CNP_RESERVED_LEN);
		p += RT_CNP_RESERVED_LEN;
	}
	if ((size_t)(p - buf) != oi->hdr_len)
		return -EINVAL;
	return (int)oi->hdr_len;
}

int rt_roce_parse_transport(const uint8_t *p, size_t len, struct rt_roce_hdrs *h)
{
	memset(h, 0, sizeof(*h));
	if (len < RT_BTH_LEN)
		return -EINVAL;
	const struct rt_opcode_info *oi = rt_opcode_info(p[0]);
	if (!oi || len < oi->hdr_len)
		return -EINVAL;
	const uint8_t *start = p;
	h->opcode = p[0];
	h->se = p[1] & 0x80;
	h->migreq = p[1] & 0x40;
	h->pkey = (uint16_t)(p[2] << 8 | p[3]);
	h->fecn = p[4] & 0x80;
	h->becn = p[4] & 0x40;
	h->dest_qpn = rt_get_be32(p + 4) & RT_PSN_MASK;
	h->ackreq = p[8] & 0x80;
	h->psn = rt_get_be32(p + 8) & RT_PSN_MASK;
	p += RT_BTH_LEN;
	if (oi->headers & RT_HDR_DETH) {
		h->deth_qkey = rt_get_be32(p);
		h->deth_src_qp = rt_get_be32(p + 4) & RT_PSN_MASK;
		p += RT_DETH_LEN;
	}
	if (oi->headers & RT_HDR_FETH)
		p += RT_FETH_LEN;
	if (oi->headers & RT_HDR_RETH) {
		h->reth_va = rt_get_be64(p);
		h->reth_rkey = rt_get_be32(p + 8);
		h->reth_len = rt_get_be32(p + 12);
		p += RT_RETH_LEN;
	}
	if (oi->headers & RT_HDR_AETH) {
		h->aeth_syndrome = p[0];
		h->aeth_msn = rt_get_be32(p) & RT_PSN_MASK;
		p += RT_AETH_LEN;
	}
	if (oi->headers & RT_HDR_ATOMICETH) {
		h->atomic_va = rt_get_be64(p);
		h->atomic_rkey = rt_get_be32(p + 8);
		h->atomic_swap_add = rt_get_be64(p + 12);
		h->atomic_compare = rt_get_be64(p + 20);
		p += RT_ATOMICETH_LEN;
	}
	if (oi->headers & RT_HDR_ATOMICACKETH) {
		h->atomic_orig = rt_get_be64(p);
		p += RT_ATOMICACKETH_LEN;
	}
	if (oi->headers & RT_HDR_IMMDT) {
		memcpy(&h->imm_be, p, 4);
		p += RT_IMMDT_LEN;
	}
	if (oi->headers & RT_HDR_IETH) {
		h->ieth_rkey = rt_get_be32(p);
		p += RT_IETH_LEN;
	}
	if (oi->headers & RT_HDR_CNP)
		p += RT_CNP_RESERVED_LEN;
	return (int)(p - start);
}

static size_t ip_header_len(int family)
{
	return family == AF_INET6 ? 40 : 20;
}

/* Write the IP and UDP headers for a UDP payload of n bytes; masked = the ICRC's view. */
static size_t write_ip_udp(uint8_t *p, const struct rt_roce_addr *a, size_t n, bool masked)
{
	uint16_t dport = a->dport ? a->dport : RT_ROCE_UDP_PORT;
	uint8_t ttl = a->ttl ? a->ttl : 64;
	size_t iplen = ip_header_len(a->family);
	if (a->family == AF_INET6) {
		uint32_t w = 6u << 28 | (uint32_t)a->tos << 20 | (a->flow_label & 0xFFFFF);
		rt_put_be32(p, masked ? 0x6FFFFFFFu : w);
		rt_put_be16(p + 4, (uint16_t)(8 + n));
		p[6] = 17;
		p[7] = masked ? 0xFF : ttl;
		memcpy(p + 8, a->src, 16);
		memcpy(p + 24, a->dst, 16);
	} else {
		p[0] = 0x45;
		p[1] = masked ? 0xFF : a->tos;
		rt_put_be16(p + 2, (uint16_t)(20 + 8 + n));
		rt_put_be16(p + 4, a->ip_id);
		rt_put_be16(p + 6, a->ip_df ? 0x4000 : 0);
		p[8] = masked ? 0xFF : ttl;
		p[9] = 17;
		rt_put_be16(p + 10, masked ? 0xFFFF : 0);
		memcpy(p + 12, a->src, 4);
		memcpy(p + 16, a->dst, 4);
		if (!masked) {
			uint32_t sum = 0;
			for (int i = 0; i < 20; i += 2)
				sum += (uint32_t)p[i] << 8 | p[i + 1];
			while (sum >> 16)
				sum = (sum & 0xFFFF) + (sum >> 16);
			rt_put_be16(p + 10, (uint16_t)~sum);
		}
	}
	uint8_t *u = p + iplen;
	rt_put_be16(u, a->sport);
	rt_put_be16(u + 2, dport);
	rt_put_be16(u + 4, (uint16_t)(8 + n));
	rt_put_be16(u + 6, masked ? 0xFFFF : 0);
	return iplen + 8;
}

void rt_roce_icrc_begin(struct rt_roce_icrc *st, const struct rt_roce_addr *a, size_t udp_payload_len)
{
	uint8_t hdr[8 + 40 + 8];
	memset(hdr, 0xFF, 8);
	size_t n = write_ip_udp(hdr + 8, a, udp_payload_len, true);
	st->crc = rt_crc32(0, hdr, 8 + n);
	st->done = 0;
}

void rt_roce_icrc_update(struct rt_roce_icrc *st, const void *p, size_t n)
{
	const uint8_t *b = p;
	/* BTH byte 4 (FECN, BECN, Resv6a) is covered as ones. */
	if (st->done <= 4 && st->done + n > 4) {
		size_t k = 4 - st->done;
		st->crc = rt_crc32(st->crc, b, k);
		uint8_t ff = 0xFF;
		st->crc = rt_crc32(st->crc, &ff, 1);
		b += k + 1;
		n -= k + 1;
		st->done += k + 1;
	}
	st->crc = rt_crc32(st->crc, b, n);
	st->done += n;
}

uint32_t rt_roce_icrc_end(const struct rt_roce_icrc *st)
{
	return st->crc;
}

int rt_roce_build_packet(uint8_t *buf, size_t cap, const struct rt_roce_addr *a, const struct rt_roce_hdrs *h,
                         const void *payload, size_t payload_len, unsigned flags, size_t *out_len)
{
	if (a->family != AF_INET && a->family != AF_INET6)
		return -EINVAL;
	const struct rt_opcode_info *oi = rt_opcode_info(h->opcode);
	if (!oi)
		return -EINVAL;
	size_t eth = (flags & RT_BUILD_ETH) ? 14 : 0;
	size_t pad = rt_pad_for(payload_len);
	size_t udp_payload = oi->hdr_len + payload_len + pad + RT_ICRC_LEN;
	size_t total = eth + ip_header_len(a->family) + 8 + udp_payload;
	if (udp_payload + 8 > 0xFFFF)
		return -EINVAL;
	if (cap < total)
		return -ENOSPC;
	uint8_t *p = buf;
	if (eth) {
		static const uint8_t dmac[6] = { 0x02, 0, 0, 0, 0, 0x02 }, smac[6] = { 0x02, 0, 0, 0, 0, 0x01 };
		memcpy(p, dmac, 6);
		memcpy(p + 6, smac, 6);
		rt_put_be16(p + 12, a->family == AF_INET6 ? 0x86DD : 0x0800);
		p += 14;
	}
	p += write_ip_udp(p, a, udp_payload, false);
	int hl = rt_roce_build_transport(p, oi->hdr_len, h, payload_len);
	if (hl < 0)
		return hl;
	struct rt_roce_icrc st;
	rt_roce_icrc_begin(&st, a, udp_payload);
	rt_roce_icrc_update(&st, p, (size_t)hl);
	p += hl;
	if (payload_len)
		memcpy(p, payload, payload_len);
	memset(p + payload_len, 0, pad);
	rt_roce_icrc_update(&st, p, payload_len + pad);
	p += payload_len + pad;
	rt_icrc_store(p, rt_roce_icrc_end(&st));
	*out_len = total;
	return 0;
}

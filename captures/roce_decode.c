/*
 * The RoCEv2 decoder behind include/rdmatrace/roce_decode.h: link layer,
 * IP, UDP, BTH and extended headers, pad and payload length, ICRC check,
 * and the hand-off to the CM decoder for MADs on QP1.  Every byte is read
 * through the cursor of cursor.h; the layers stop where the capture ends.
 */
#include <errno.h>
#include <string.h>

#include "cursor.h"
#include "rdmatrace/roce_decode.h"

#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_IPV6 0x86DD
#define ETHERTYPE_VLAN 0x8100
#define ETHERTYPE_QINQ 0x88A8
#define ETHERTYPE_QINQ_OLD 0x9100
#define IPPROTO_UDP_ 17
#define MAD_HDR_LEN 24

/* Ethernet II and its VLAN tags; leaves pkt->ethertype set. */
static int decode_ethernet(struct cur *c, struct rt_pkt *pkt)
{
	const uint8_t *h = cur_take(c, 14);
	if (!h)
		return -1;
	memcpy(pkt->eth_dst, h, 6);
	memcpy(pkt->eth_src, h + 6, 6);
	pkt->flags |= RT_PKT_ETH;
	uint16_t type = rt_get_be16(h + 12);
	while (type == ETHERTYPE_VLAN || type == ETHERTYPE_QINQ || type == ETHERTYPE_QINQ_OLD) {
		const uint8_t *t = cur_take(c, 4);
		if (!t)
			return -1;
		if (pkt->nvlans < 2) {
			pkt->vlan_tpid[pkt->nvlans] = type;
			pkt->vlan_tci[pkt->nvlans] = rt_get_be16(t);
		}
		if (pkt->nvlans < 255)
			pkt->nvlans++;
		pkt->flags |= RT_PKT_VLAN;
		type = rt_get_be16(t + 2);
	}
	pkt->ethertype = type;
	return 0;
}

/* Linux cooked capture v1 (16 bytes) and v2 (20 bytes). */
static int decode_sll(struct cur *c, struct rt_pkt *pkt, bool v2)
{
	const uint8_t *h = cur_take(c, v2 ? 20 : 16);
	if (!h)
		return -1;
	pkt->flags |= RT_PKT_SLL;
	if (v2) {
		pkt->ethertype = rt_get_be16(h);
		pkt->sll_ifindex = rt_get_be32(h + 4);
		pkt->sll_pkttype = h[10];
	} else {
		pkt->sll_pkttype = rt_get_be16(h);
		pkt->ethertype = rt_get_be16(h + 14);
	}
	/* A cooked capture may keep a VLAN tag in the payload. */
	while (pkt->ethertype == ETHERTYPE_VLAN || pkt->ethertype == ETHERTYPE_QINQ) {
		const uint8_t *t = cur_take(c, 4);
		if (!t)
			return -1;
		if (pkt->nvlans < 2) {
			pkt->vlan_tpid[pkt->nvlans] = pkt->ethertype;
			pkt->vlan_tci[pkt->nvlans] = rt_get_be16(t);
		}
		pkt->nvlans++;
		pkt->flags |= RT_PKT_VLAN;
		pkt->ethertype = rt_get_be16(t + 2);
	}
	return 0;
}

/* Raw IP: the version nibble says which. */
static int ethertype_of_raw(const struct cur *c)
{
	if (cur_left(c) < 1)
		return -1;
	unsigned v = c->p[0] >> 4;
	return v == 4 ? ETHERTYPE_IPV4 : v == 6 ? ETHERTYPE_IPV6 : 0;
}

/* BSD loopback: an address family, host order (NULL) or big-endian (LOOP). */
static int decode_null(struct cur *c, struct rt_pkt *pkt, bool big_endian)
{
	const uint8_t *h = cur_take(c, 4);
	if (!h)
		return -1;
	uint32_t af = big_endian ? rt_get_be32(h) : le32(h);
	if (!big_endian && af > 0xFFFF)
		af = rt_get_be32(h); /* written on a big-endian host */
	if (af == 2)
		pkt->ethertype = ETHERTYPE_IPV4;
	else if (af == 10 || af == 24 || af == 28 || af == 30)
		pkt->ethertype = ETHERTYPE_IPV6;
	return 0;
}

/* IPv4 header with options; end is narrowed to the IP total length. */
static int decode_ipv4(struct cur *c, struct rt_pkt *pkt, const uint8_t *frame)
{
	const uint8_t *h = cur_take(c, 20);
	if (!h)
		return -1;
	pkt->ip_off = (uint32_t)(h - frame);
	pkt->ip_version = h[0] >> 4;
	unsigned ihl = (h[0] & 0x0F) * 4u;
	if (pkt->ip_version != 4 || ihl < 20) {
		pkt->skip = RT_SKIP_BAD_HEADER;
		return -2;
	}
	pkt->flags |= RT_PKT_IPV4;
	pkt->ip_hdr_len = ihl;
	pkt->tos = h[1];
	pkt->ip_len = rt_get_be16(h + 2);
	pkt->ip_id = rt_get_be16(h + 4);
	uint16_t frag = rt_get_be16(h + 6);
	pkt->ip_df = (frag & 0x4000) != 0;
	pkt->ip_mf = (frag & 0x2000) != 0;
	pkt->ip_frag_off = (uint16_t)((frag & 0x1FFF) * 8u);
	pkt->ttl = h[8];
	pkt->ip_proto = h[9];
	memcpy(pkt->src, h + 12, 4);
	memcpy(pkt->dst, h + 16, 4);
	if (pkt->ip_len < ihl) {
		pkt->skip = RT_SKIP_BAD_HEADER;
		return -2;
	}
	if (!cur_take(c, ihl - 20))
		return -1;
	if (pkt->ip_mf || pkt->ip_frag_off)
		pkt->flags |= RT_PKT_FRAGMENT;
	return 0;
}

/* IPv6 and its extension headers up to the upper-layer protocol. */
static int decode_ipv6(struct cur *c, struct rt_pkt *pkt, const uint8_t *frame)
{
	const uint8_t *h = cur_take(c, 40);
	if (!h)
		return -1;
	pkt->ip_off = (uint32_t)(h - frame);
	pkt->ip_version = h[0] >> 4;
	if (pkt->ip_version != 6) {
		pkt->skip = RT_SKIP_BAD_HEADER;
		return -2;
	}
	pkt->flags |= RT_PKT_IPV6;
	uint32_t w = rt_get_be32(h);
	pkt->tos = (uint8_t)(w >> 20);
	pkt->flow_label = w & 0xFFFFF;
	pkt->ip_len = 40u + rt_get_be16(h + 4);
	pkt->ttl = h[7];
	memcpy(pkt->src, h + 8, 16);
	memcpy(pkt->dst, h + 24, 16);
	uint8_t nh = h[6];
	unsigned hdr_len = 40;
	for (;;) {
		if (nh == 0 || nh == 43 || nh == 60) { /* hop-by-hop, routing, destination options */
			const uint8_t *e = cur_take(c, 2);
			if (!e)
				return -1;
			unsigned len = (e[1] + 1u) * 8;
			if (!cur_take(c, len - 2))
				return -1;
			nh = e[0];
			hdr_len += len;
		} else if (nh == 44) { /* fragment */
			const uint8_t *e = cur_take(c, 8);
			if (!e)
				return -1;
			uint16_t off = rt_get_be16(e + 2);
			pkt->ip_frag_off = (uint16_t)(off & 0xFFF8);
			pkt->ip_mf = (off & 1) != 0;
			pkt->ip_id = (uint16_t)rt_get_be32(e + 4);
			pkt->flags |= RT_PKT_FRAGMENT;
			nh = e[0];
			hdr_len += 8;
		} else if (nh == 51) { /* authentication header */
			const uint8_t *e = cur_take(c, 2);
			if (!e)
				return -1;
			unsigned len = (e[1] + 2u) * 4;
			if (len < 8 || !cur_take(c, len - 2))
				return -1;
			nh = e[0];
			hdr_len += len;
		} else {
			break;
		}
		if (hdr_len > 0xFFFF) {
			pkt->skip = RT_SKIP_BAD_HEADER;
			return -2;
		}
	}
	pkt->ip_hdr_len = hdr_len;
	pkt->ip_proto = nh;
	return 0;
}

static bool is_roce_port(const struct rt_decode_opts *opts, uint16_t port)
{
	if (!opts || opts->nports == 0 || !opts->ports)
		return port == RT_ROCE_UDP_PORT || (opts && opts->any_udp_port);
	if (opts->any_udp_port)
		return true;
	for (unsigned i = 0; i < opts->nports; i++)
		if (opts->ports[i] == port)
			return true;
	return false;
}

/* The extended headers of the opcode, in wire order. */
static void decode_ext_headers(struct cur *c, struct rt_pkt *pkt, unsigned want)
{
	const uint8_t *h;
	if (want & RT_HDR_FETH) {
		if (!(h = cur_take(c, RT_FETH_LEN)))
			return;
		pkt->feth = rt_get_be32(h);
		pkt->hdrs |= RT_HDR_FETH;
	}
	if (want & RT_HDR_DETH) {
		if (!(h = cur_take(c, RT_DETH_LEN)))
			return;
		pkt->deth.qkey = rt_get_be32(h);
		pkt->deth.src_qpn = rt_get_be24(h + 5);
		pkt->hdrs |= RT_HDR_DETH;
	}
	if (want & RT_HDR_RETH) {
		if (!(h = cur_take(c, RT_RETH_LEN)))
			return;
		pkt->reth.va = rt_get_be64(h);
		pkt->reth.rkey = rt_get_be32(h + 8);
		pkt->reth.dmalen = rt_get_be32(h + 12);
		pkt->hdrs |= RT_HDR_RETH;
	}
	if (want & RT_HDR_AETH) {
		if (!(h = cur_take(c, RT_AETH_LEN)))
			return;
		pkt->aeth.syndrome = h[0];
		pkt->aeth.type = (uint8_t)rt_aeth_type(h[0]);
		pkt->aeth.value = (uint8_t)rt_aeth_value(h[0]);
		pkt->aeth.msn = rt_get_be24(h + 1);
		pkt->aeth.rnr_us = pkt->aeth.type == RT_AETH_RNR_NAK ? rt_rnr_timer_us(pkt->aeth.value) : 0;
		pkt->hdrs |= RT_HDR_AETH;
	}
	if (want & RT_HDR_ATOMICACKETH) {
		if (!(h = cur_take(c, RT_ATOMICACKETH_LEN)))
			return;
		pkt->atomic_ack_orig = rt_get_be64(h);
		pkt->hdrs |= RT_HDR_ATOMICACKETH;
	}
	if (want & RT_HDR_ATOMICETH) {
		if (!(h = cur_take(c, RT_ATOMICETH_LEN)))
			return;
		pkt->atomic.va = rt_get_be64(h);
		pkt->atomic.rkey = rt_get_be32(h + 8);
		pkt->atomic.swap_add = rt_get_be64(h + 12);
		pkt->atomic.compare = rt_get_be64(h + 20);
		pkt->hdrs |= RT_HDR_ATOMICETH;
	}
	if (want & RT_HDR_IMMDT) {
		if (!(h = cur_take(c, RT_IMMDT_LEN)))
			return;
		pkt->immdt = rt_get_be32(h);
		pkt->hdrs |= RT_HDR_IMMDT;
	}
	if (want & RT_HDR_IETH) {
		if (!(h = cur_take(c, RT_IETH_LEN)))
			return;
		pkt->ieth_rkey = rt_get_be32(h);
		pkt->hdrs |= RT_HDR_IETH;
	}
	if (want & RT_HDR_CNP) {
		if (!cur_take(c, RT_CNP_RESERVED_LEN))
			return;
		pkt->hdrs |= RT_HDR_CNP;
	}
}

/* MAD header and, for the CM class, the CM message. */
static void decode_mad(const uint8_t *frame, struct rt_pkt *pkt, uint32_t cap_end)
{
	uint32_t off = pkt->payload_off;
	uint32_t end = off + pkt->payload_len;
	if (end > cap_end)
		end = cap_end;
	if (end < off)
		return;
	struct cur c = { frame + off, frame + end };
	const uint8_t *h = cur_take(&c, MAD_HDR_LEN);
	if (!h)
		return;
	pkt->flags |= RT_PKT_MAD;
	pkt->mad_base_version = h[0];
	pkt->mad_class = h[1];
	pkt->mad_class_version = h[2];
	pkt->mad_method = h[3];
	pkt->mad_status = rt_get_be16(h + 4);
	pkt->mad_tid = rt_get_be64(h + 8);
	pkt->mad_attr_mod = rt_get_be32(h + 20);
	if (pkt->payload_len < RT_MAD_LEN && pkt->malformed == RT_MALFORMED_NONE) {
		pkt->flags |= RT_PKT_MALFORMED;
		pkt->malformed = RT_MALFORMED_MAD_LEN;
	}
	if (pkt->mad_class == RT_MAD_CLASS_CM &&
	    rt_decode_cm(frame + off, frame + end, off, &pkt->cm) == 0)
		pkt->flags |= RT_PKT_CM;
}

static void check_icrc(const struct rt_decode_opts *opts, const uint8_t *frame, struct rt_pkt *pkt,
		       uint32_t ib_end, uint32_t cap_end)
{
	pkt->icrc_status = RT_ICRC_UNVERIFIED;
	if (pkt->malformed == RT_MALFORMED_UDP_LEN || pkt->malformed == RT_MALFORMED_IB_LEN) {
		pkt->icrc_reason = RT_ICRC_WHY_MALFORMED;
		return;
	}
	if (ib_end > cap_end) {
		pkt->icrc_reason = RT_ICRC_WHY_TRUNCATED;
		return;
	}
	pkt->icrc_wire = rt_icrc_load(frame + ib_end - RT_ICRC_LEN);
	if (pkt->flags & RT_PKT_FRAGMENT) {
		pkt->icrc_reason = RT_ICRC_WHY_FRAGMENT;
		return;
	}
	if (pkt->ip_version == 6 && pkt->ip_hdr_len != 40) {
		pkt->icrc_reason = RT_ICRC_WHY_IPV6_EXT;
		return;
	}
	if (opts && opts->no_icrc) {
		pkt->icrc_reason = RT_ICRC_WHY_DISABLED;
		return;
	}
	uint32_t crc;
	if (rt_icrc_compute(frame + pkt->ip_off, ib_end - RT_ICRC_LEN - pkt->ip_off, &crc) != 0) {
		pkt->icrc_reason = RT_ICRC_WHY_MALFORMED;
		return;
	}
	pkt->icrc_calc = crc;
	pkt->icrc_status = crc == pkt->icrc_wire ? RT_ICRC_GOOD : RT_ICRC_BAD;
}

/* Zero the part of the struct before cm.  A plain memset of this size
 * compiles to `rep stos`, whose start-up cost was a third of the decoder's
 * time; sixteen-byte vector stores are several times cheaper. */
typedef unsigned char zero_vec __attribute__((vector_size(16), aligned(1)));

static inline void clear_pkt(struct rt_pkt *pkt)
{
	size_t n = offsetof(struct rt_pkt, cm);
	unsigned char *p = (unsigned char *)pkt;
	const zero_vec z = { 0 };
	size_t i = 0;
	for (; i + 32 <= n; i += 32) {
		*(zero_vec *)(p + i) = z;
		*(zero_vec *)(p + i + 16) = z;
		__asm__("" : : : "memory"); /* keep the compiler from turning this back into memset */
	}
	for (; i + 16 <= n; i += 16)
		*(zero_vec *)(p + i) = z;
	for (; i < n; i++)
		p[i] = 0;
}

static void mark_malformed(struct rt_pkt *pkt, enum rt_malformed why)
{
	pkt->flags |= RT_PKT_MALFORMED;
	if (pkt->malformed == RT_MALFORMED_NONE)
		pkt->malformed = (uint8_t)why;
}

int rt_decode(const struct rt_decode_opts *opts, uint16_t linktype, const uint8_t *data,
	      uint32_t caplen, uint32_t wirelen, struct rt_pkt *pkt)
{
	if (!pkt || (!data && caplen))
		return -EINVAL;
	clear_pkt(pkt);
	pkt->caplen = caplen;
	pkt->wirelen = wirelen < caplen ? caplen : wirelen;
	pkt->linktype = linktype;
	if (pkt->wirelen > caplen)
		pkt->flags |= RT_PKT_TRUNCATED;
	struct cur c = { data, data + caplen };
	int rc = 0;
	int et;

	switch (linktype) {
	case RT_LINKTYPE_ETHERNET:
		rc = decode_ethernet(&c, pkt);
		break;
	case RT_LINKTYPE_LINUX_SLL:
		rc = decode_sll(&c, pkt, false);
		break;
	case RT_LINKTYPE_LINUX_SLL2:
		rc = decode_sll(&c, pkt, true);
		break;
	case RT_LINKTYPE_RAW:
	case 12: /* DLT_RAW on most systems */
	case 14: /* DLT_RAW on OpenBSD */
	case RT_LINKTYPE_IPV4:
	case RT_LINKTYPE_IPV6:
		et = ethertype_of_raw(&c);
		if (et < 0)
			rc = -1;
		else
			pkt->ethertype = (uint16_t)et;
		break;
	case RT_LINKTYPE_NULL:
		rc = decode_null(&c, pkt, false);
		break;
	case RT_LINKTYPE_LOOP:
		rc = decode_null(&c, pkt, true);
		break;
	default:
		pkt->skip = RT_SKIP_LINKTYPE;
		return 0;
	}
	if (rc < 0)
		goto short_frame;

	if (pkt->ethertype == ETHERTYPE_IPV4)
		rc = decode_ipv4(&c, pkt, data);
	else if (pkt->ethertype == ETHERTYPE_IPV6)
		rc = decode_ipv6(&c, pkt, data);
	else {
		pkt->skip = RT_SKIP_NOT_IP;
		return 0;
	}
	if (rc == -2)
		return 0;
	if (rc < 0)
		goto short_frame;
	if (pkt->ip_proto != IPPROTO_UDP_) {
		pkt->skip = RT_SKIP_NOT_UDP;
		return 0;
	}
	if (pkt->ip_frag_off != 0) {
		pkt->skip = RT_SKIP_FRAGMENT;
		return 0;
	}

	const uint8_t *u = cur_take(&c, 8);
	if (!u)
		goto short_frame;
	pkt->udp_off = (uint32_t)(u - data);
	pkt->sport = rt_get_be16(u);
	pkt->dport = rt_get_be16(u + 2);
	pkt->udp_len = rt_get_be16(u + 4);
	pkt->udp_csum = rt_get_be16(u + 6);
	pkt->flags |= RT_PKT_UDP;
	if (!is_roce_port(opts, pkt->dport)) {
		pkt->skip = RT_SKIP_NOT_ROCE_PORT;
		return 0;
	}

	/* The IB packet (BTH .. ICRC) ends where UDP says, bounded by IP. */
	uint32_t ip_end = (uint32_t)pkt->ip_off + pkt->ip_len;
	uint32_t ib_end = (uint32_t)pkt->udp_off + pkt->udp_len;
	if (pkt->udp_len < 8 || ib_end > ip_end) {
		mark_malformed(pkt, RT_MALFORMED_UDP_LEN);
		ib_end = ip_end;
	}
	if (ib_end < (uint32_t)pkt->udp_off + 8)
		ib_end = (uint32_t)pkt->udp_off + 8;

	const uint8_t *b = cur_take(&c, RT_BTH_LEN);
	if (!b) {
		if (ib_end >= (uint32_t)pkt->udp_off + 8 + RT_BTH_LEN)
			pkt->flags |= RT_PKT_TRUNCATED;
		pkt->skip = RT_SKIP_SHORT;
		return 0;
	}
	pkt->bth_off = (uint32_t)(b - data);
	pkt->flags |= RT_PKT_BTH;
	struct rt_bth *bth = &pkt->bth;
	bth->opcode = b[0];
	bth->se = (b[1] & 0x80) != 0;
	bth->mig = (b[1] & 0x40) != 0;
	bth->pad = (b[1] >> 4) & 3;
	bth->tver = b[1] & 0x0F;
	bth->pkey = rt_get_be16(b + 2);
	bth->fecn = (b[4] & 0x80) != 0;
	bth->becn = (b[4] & 0x40) != 0;
	bth->resv6a = b[4] & 0x3F;
	bth->dqpn = rt_get_be24(b + 5);
	bth->ackreq = (b[8] & 0x80) != 0;
	bth->resv7 = b[8] & 0x7F;
	bth->psn = rt_get_be24(b + 9);

	/* The extended headers are bounded by the IB packet, not the frame. */
	uint32_t cap_end = caplen;
	uint32_t ib_cap = ib_end < cap_end ? ib_end : cap_end;
	struct cur ib = { c.p, c.p };
	if (data + ib_cap > c.p) /* a UDP length that ends inside the BTH leaves nothing */
		ib.end = data + ib_cap;
	pkt->op = rt_opcode_info(bth->opcode);
	unsigned hdr_len = RT_BTH_LEN;
	if (pkt->op) {
		hdr_len = pkt->op->hdr_len;
		decode_ext_headers(&ib, pkt, pkt->op->headers);
	} else {
		pkt->flags |= RT_PKT_UNKNOWN_OPCODE;
	}
	pkt->payload_off = pkt->bth_off + hdr_len;
	uint32_t ib_len = ib_end - pkt->bth_off;
	uint32_t overhead = hdr_len + bth->pad + RT_ICRC_LEN;
	if (ib_end < pkt->bth_off || ib_len < overhead) {
		mark_malformed(pkt, RT_MALFORMED_IB_LEN);
		pkt->payload_len = 0;
	} else {
		pkt->payload_len = ib_len - overhead;
	}
	if (ib_end > cap_end)
		pkt->flags |= RT_PKT_TRUNCATED;
	else if (pkt->op && (pkt->hdrs & ~RT_HDR_PAYLOAD) != (pkt->op->headers & ~RT_HDR_PAYLOAD))
		mark_malformed(pkt, RT_MALFORMED_IB_LEN);

	check_icrc(opts, data, pkt, ib_end, cap_end);

	if (bth->dqpn <= 1 && (pkt->hdrs & RT_HDR_DETH))
		decode_mad(data, pkt, cap_end);
	return 1;

short_frame:
	pkt->flags |= RT_PKT_TRUNCATED;
	pkt->skip = RT_SKIP_SHORT;
	return 0;
}

const char *rt_icrc_status_name(unsigned status)
{
	switch (status) {
	case RT_ICRC_GOOD: return "good";
	case RT_ICRC_BAD: return "bad";
	default: return "unverified";
	}
}

const char *rt_icrc_reason_name(unsigned reason)
{
	switch (reason) {
	case RT_ICRC_WHY_NONE: return "";
	case RT_ICRC_WHY_TRUNCATED: return "truncated by snap length";
	case RT_ICRC_WHY_FRAGMENT: return "IP fragment";
	case RT_ICRC_WHY_MALFORMED: return "inconsistent lengths";
	case RT_ICRC_WHY_IPV6_EXT: return "IPv6 extension headers";
	case RT_ICRC_WHY_DISABLED: return "verification disabled";
	default: return "unknown";
	}
}

const char *rt_skip_name(unsigned skip)
{
	switch (skip) {
	case RT_SKIP_NONE: return "RoCE";
	case RT_SKIP_LINKTYPE: return "unsupported link type";
	case RT_SKIP_NOT_IP: return "not IP";
	case RT_SKIP_NOT_UDP: return "not UDP";
	case RT_SKIP_NOT_ROCE_PORT: return "UDP to another port";
	case RT_SKIP_FRAGMENT: return "IP fragment without UDP header";
	case RT_SKIP_SHORT: return "truncated before the BTH";
	case RT_SKIP_BAD_HEADER: return "bad IP header";
	default: return "unknown";
	}
}

const char *rt_malformed_name(unsigned malformed)
{
	switch (malformed) {
	case RT_MALFORMED_NONE: return "";
	case RT_MALFORMED_UDP_LEN: return "UDP length inconsistent with IP";
	case RT_MALFORMED_IB_LEN: return "UDP payload too short for the opcode's headers";
	case RT_MALFORMED_MAD_LEN: return "MAD shorter than 256 bytes";
	default: return "unknown";
	}
}

const char *rt_linktype_name(unsigned linktype)
{
	switch (linktype) {
	case RT_LINKTYPE_NULL: return "BSD loopback";
	case RT_LINKTYPE_ETHERNET: return "Ethernet";
	case RT_LINKTYPE_RAW: case 12: case 14: return "raw IP";
	case RT_LINKTYPE_LOOP: return "OpenBSD loopback";
	case RT_LINKTYPE_LINUX_SLL: return "Linux cooked (SLL)";
	case RT_LINKTYPE_IPV4: return "raw IPv4";
	case RT_LINKTYPE_IPV6: return "raw IPv6";
	case RT_LINKTYPE_LINUX_SLL2: return "Linux cooked v2 (SLL2)";
	default: return NULL;
	}
}

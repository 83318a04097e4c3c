/*
 * Test-only RoCEv2 packet builder and synthetic capture generator, shared by
 * the capture tests and the capture benchmark.  It writes every header
 * itself from the layouts in ../shared/docs/roce-wire.md (independently of
 * the decoder it checks) and seals each packet with the library's ICRC.
 * Packets of known opcodes are built by the project's shared builder
 * (rdmatrace/roce_build.h, from the uroce engine) and get their VLAN tags
 * here; the builder refuses unknown opcodes, which the own writer below
 * covers, so both writers are cross-checked against tshark.
 *
 * synth_all() emits a capture covering every opcode of the table (and an
 * unknown one), every extended header, all AETH kinds, pad counts 0..3,
 * IPv4 and IPv6, untagged, 802.1Q and QinQ, and CM REQ/REP/RTU/REJ/MRA/
 * DREQ/DREP messages, with field values from a fixed-seed generator.
 */
#ifndef RDMATRACE_TESTS_SYNTH_H
#define RDMATRACE_TESTS_SYNTH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <arpa/inet.h>
#include <sys/socket.h>

#include "rdmatrace/roce_build.h"
#include "rdmatrace/roce_wire.h"

struct synth {
	int ip_version;           /* 4 or 6 */
	uint8_t src[16], dst[16]; /* IPv4 in the first 4 bytes */
	int nvlans;
	uint16_t vlan_tpid[2], vlan_tci[2];
	uint8_t tos, ttl;
	uint16_t ip_id;
	uint16_t sport, dport;
	uint8_t opcode;
	bool se, mig, ackreq, fecn, becn;
	uint16_t pkey;
	uint32_t dqpn, psn;
	uint64_t va, swap_add, compare, ack_orig;
	uint32_t rkey, dmalen, imm, ieth, qkey, srcqp, feth;
	uint8_t syndrome;
	uint32_t msn;
	const uint8_t *payload;
	size_t payload_len;
	bool corrupt_icrc;
};

static inline void synth_be16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static inline void synth_be24(uint8_t *p, uint32_t v) { p[0] = (uint8_t)(v >> 16); p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)v; }
static inline void synth_be32(uint8_t *p, uint32_t v) { synth_be16(p, (uint16_t)(v >> 16)); synth_be16(p + 2, (uint16_t)v); }
static inline void synth_be64(uint8_t *p, uint64_t v) { synth_be32(p, (uint32_t)(v >> 32)); synth_be32(p + 4, (uint32_t)v); }

static inline uint16_t synth_ip_csum(const uint8_t *p, size_t n)
{
	uint32_t s = 0;
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	while (s >> 16)
		s = (s & 0xFFFF) + (s >> 16);
	return (uint16_t)~s;
}

/* With the shared builder: Ethernet frame, then the VLAN tags slid in
 * after the MAC addresses (they are not covered by the ICRC).  0 when the
 * builder refuses the packet (an opcode it does not know). */
static inline size_t synth_build_shared(const struct synth *s, uint8_t *out)
{
	struct rt_roce_hdrs h = {
		.opcode = s->opcode, .se = s->se, .migreq = s->mig, .ackreq = s->ackreq, .fecn = s->fecn,
		.becn = s->becn, .pkey = s->pkey, .dest_qpn = s->dqpn, .psn = s->psn,
		.reth_va = s->va, .reth_rkey = s->rkey, .reth_len = s->dmalen,
		.aeth_syndrome = s->syndrome, .aeth_msn = s->msn,
		.atomic_va = s->va, .atomic_rkey = s->rkey, .atomic_swap_add = s->swap_add, .atomic_compare = s->compare,
		.atomic_orig = s->ack_orig, .imm_be = htonl(s->imm), .ieth_rkey = s->ieth,
		.deth_qkey = s->qkey, .deth_src_qp = s->srcqp,
	};
	struct rt_roce_addr a = {
		.family = s->ip_version == 6 ? AF_INET6 : AF_INET, .sport = s->sport, .dport = s->dport,
		.tos = s->tos, .ttl = s->ttl, .ip_id = s->ip_id, .ip_df = true,
	};
	memcpy(a.src, s->src, 16);
	memcpy(a.dst, s->dst, 16);
	if (!rt_opcode_info(s->opcode) || s->pkey == 0 || (rt_opcode_info(s->opcode)->headers & RT_HDR_FETH))
		return 0; /* unknown opcode, P_Key 0 (the builder reads it as default), FETH values */
	size_t len = 0;
	uint8_t *frame = out + 4 * (size_t)s->nvlans;
	if (rt_roce_build_packet(frame, 6000, &a, &h, s->payload, s->payload_len, RT_BUILD_ETH, &len) != 0)
		return 0;
	memmove(out, frame, 12);
	for (int i = 0; i < s->nvlans; i++) {
		out[12 + 4 * i] = (uint8_t)(s->vlan_tpid[i] >> 8);
		out[13 + 4 * i] = (uint8_t)s->vlan_tpid[i];
		out[14 + 4 * i] = (uint8_t)(s->vlan_tci[i] >> 8);
		out[15 + 4 * i] = (uint8_t)s->vlan_tci[i];
	}
	len += 4 * (size_t)s->nvlans;
	if (s->corrupt_icrc)
		out[len - 2] ^= 0x01;
	return len;
}

/* Build an Ethernet frame into out (at least 14+8+40+8+64+payload+8 bytes); returns its length. */
static inline size_t synth_build(const struct synth *s, uint8_t *out)
{
	size_t shared = synth_build_shared(s, out);
	if (shared)
		return shared;
	uint8_t *p = out;
	static const uint8_t dmac[6] = { 0x02, 0, 0, 0, 0, 0x02 }, smac[6] = { 0x02, 0, 0, 0, 0, 0x01 };
	memcpy(p, dmac, 6);
	memcpy(p + 6, smac, 6);
	p += 12;
	for (int i = 0; i < s->nvlans; i++) {
		synth_be16(p, s->vlan_tpid[i]);
		synth_be16(p + 2, s->vlan_tci[i]);
		p += 4;
	}
	synth_be16(p, s->ip_version == 6 ? 0x86DD : 0x0800);
	p += 2;
	uint8_t *ip = p;
	size_t ip_hdr = s->ip_version == 6 ? 40 : 20;
	const struct rt_opcode_info *info = rt_opcode_info(s->opcode);
	unsigned hdrs = info ? info->headers : 0;
	size_t hdr_len = info ? info->hdr_len : RT_BTH_LEN;
	unsigned pad = rt_pad_for(s->payload_len);
	size_t ib_len = hdr_len + s->payload_len + pad + RT_ICRC_LEN;
	size_t udp_len = 8 + ib_len;
	if (s->ip_version == 6) {
		uint32_t w = 6u << 28 | (uint32_t)s->tos << 20;
		synth_be32(ip, w);
		synth_be16(ip + 4, (uint16_t)udp_len);
		ip[6] = 17;
		ip[7] = s->ttl;
		memcpy(ip + 8, s->src, 16);
		memcpy(ip + 24, s->dst, 16);
	} else {
		ip[0] = 0x45;
		ip[1] = s->tos;
		synth_be16(ip + 2, (uint16_t)(20 + udp_len));
		synth_be16(ip + 4, s->ip_id);
		synth_be16(ip + 6, 0x4000);
		ip[8] = s->ttl;
		ip[9] = 17;
		synth_be16(ip + 10, 0);
		memcpy(ip + 12, s->src, 4);
		memcpy(ip + 16, s->dst, 4);
		synth_be16(ip + 10, synth_ip_csum(ip, 20));
	}
	uint8_t *u = ip + ip_hdr;
	synth_be16(u, s->sport);
	synth_be16(u + 2, s->dport);
	synth_be16(u + 4, (uint16_t)udp_len);
	synth_be16(u + 6, 0);
	uint8_t *b = u + 8;
	b[0] = s->opcode;
	b[1] = (uint8_t)((s->se ? 0x80 : 0) | (s->mig ? 0x40 : 0) | pad << 4);
	synth_be16(b + 2, s->pkey);
	b[4] = (uint8_t)((s->fecn ? 0x80 : 0) | (s->becn ? 0x40 : 0));
	synth_be24(b + 5, s->dqpn);
	b[8] = s->ackreq ? 0x80 : 0;
	synth_be24(b + 9, s->psn);
	uint8_t *h = b + RT_BTH_LEN;
	/* wire order: FETH, DETH, RETH, AETH, AtomicAckETH, AtomicETH, ImmDt, IETH, CNP */
	if (hdrs & RT_HDR_FETH) { synth_be32(h, s->feth); h += 4; }
	if (hdrs & RT_HDR_DETH) { synth_be32(h, s->qkey); h[4] = 0; synth_be24(h + 5, s->srcqp); h += 8; }
	if (hdrs & RT_HDR_RETH) { synth_be64(h, s->va); synth_be32(h + 8, s->rkey); synth_be32(h + 12, s->dmalen); h += 16; }
	if (hdrs & RT_HDR_AETH) { h[0] = s->syndrome; synth_be24(h + 1, s->msn); h += 4; }
	if (hdrs & RT_HDR_ATOMICACKETH) { synth_be64(h, s->ack_orig); h += 8; }
	if (hdrs & RT_HDR_ATOMICETH) {
		synth_be64(h, s->va); synth_be32(h + 8, s->rkey);
		synth_be64(h + 12, s->swap_add); synth_be64(h + 20, s->compare); h += 28;
	}
	if (hdrs & RT_HDR_IMMDT) { synth_be32(h, s->imm); h += 4; }
	if (hdrs & RT_HDR_IETH) { synth_be32(h, s->ieth); h += 4; }
	if (hdrs & RT_HDR_CNP) { memset(h, 0, 16); h += 16; }
	if (s->payload_len)
		memcpy(h, s->payload, s->payload_len);
	h += s->payload_len;
	memset(h, 0, pad);
	h += pad;
	uint32_t crc = 0;
	rt_icrc_compute(ip, (size_t)(h - ip), &crc);
	if (s->corrupt_icrc)
		crc ^= 0x00010000;
	rt_icrc_store(h, crc);
	h += 4;
	return (size_t)(h - out);
}

/* ---- a minimal pcap writer (nanosecond magic), independent of the library's pcapng writer ---- */

static inline FILE *synth_pcap_open(const char *path, uint32_t linktype)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return NULL;
	uint32_t hdr[6] = { 0xA1B23C4Du, 2 | 4u << 16, 0, 0, 262144, linktype };
	fwrite(hdr, 4, 6, f);
	return f;
}

static inline void synth_pcap_add(FILE *f, uint64_t ts_ns, const uint8_t *data, uint32_t caplen, uint32_t wirelen)
{
	uint32_t rec[4] = { (uint32_t)(ts_ns / 1000000000u), (uint32_t)(ts_ns % 1000000000u), caplen, wirelen };
	fwrite(rec, 4, 4, f);
	fwrite(data, 1, caplen, f);
}

/* ---- deterministic values ---- */

static inline uint64_t synth_rand(uint64_t *state)
{
	/* splitmix64 */
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* ---- CM MADs ---- */

/* A 256-byte CM MAD for attr into mad; values from the generator. */
static inline void synth_cm_mad(uint8_t *mad, uint16_t attr, uint64_t *rng, int ip_version)
{
	memset(mad, 0, RT_MAD_LEN);
	mad[0] = 1;
	mad[1] = RT_MAD_CLASS_CM;
	mad[2] = 2;
	mad[3] = 3;
	synth_be64(mad + 8, synth_rand(rng));
	synth_be16(mad + 16, attr);
	uint8_t *b = mad + 24;
	synth_be32(b, (uint32_t)synth_rand(rng));
	uint32_t remote = (uint32_t)synth_rand(rng);
	uint64_t r = synth_rand(rng);
	switch (attr) {
	case RT_CM_REQ: {
		uint16_t port = (uint16_t)(r >> 8);
		synth_be64(b + 8, 0x0000000001060000ull | port);
		synth_be64(b + 16, synth_rand(rng));
		synth_be24(b + 32, (uint32_t)r & 0xFFFFFF);
		b[35] = 4;
		b[39] = 4;
		b[43] = 20 << 3;
		synth_be24(b + 44, (uint32_t)(r >> 24) & 0xFFFFFF);
		b[47] = (uint8_t)(20 << 3 | (r >> 50 & 7));
		synth_be16(b + 48, 0xFFFF);
		b[50] = (uint8_t)(3 << 4 | (r >> 53 & 7));
		b[51] = 15 << 4;
		synth_be16(b + 52, 0xFFFF);
		synth_be16(b + 54, 0xFFFF);
		b[93] = 64;
		b[95] = (uint8_t)((14 + (r >> 56 & 7)) << 3);
		uint8_t *pd = b + 140;
		pd[0] = 0;
		pd[1] = (uint8_t)(ip_version << 4);
		synth_be16(pd + 2, (uint16_t)(r >> 40));
		for (int i = 4; i < 36; i++)
			pd[i] = (uint8_t)(i * 7);
		break;
	}
	case RT_CM_REP:
		synth_be32(b + 4, remote);
		synth_be24(b + 12, (uint32_t)r & 0xFFFFFF);
		synth_be24(b + 20, (uint32_t)(r >> 24) & 0xFFFFFF);
		b[24] = 4;
		b[25] = 4;
		b[26] = 15 << 3;
		b[27] = (uint8_t)((r >> 50 & 7) << 5);
		synth_be64(b + 28, synth_rand(rng));
		break;
	case RT_CM_REJ:
		synth_be32(b + 4, remote);
		b[8] = 0;
		synth_be16(b + 10, (uint16_t)(1 + r % 33));
		break;
	case RT_CM_MRA:
		synth_be32(b + 4, remote);
		b[8] = (uint8_t)((r & 1) << 6);
		b[9] = 18 << 3;
		break;
	case RT_CM_DREQ:
		synth_be32(b + 4, remote);
		synth_be24(b + 8, (uint32_t)r & 0xFFFFFF);
		break;
	default:
		synth_be32(b + 4, remote);
		break;
	}
}

/* Fill s with the common fields of packet number i. */
static inline void synth_base(struct synth *s, uint64_t *rng, int ip_version, int nvlans)
{
	memset(s, 0, sizeof(*s));
	s->ip_version = ip_version;
	if (ip_version == 6) {
		static const uint8_t a[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
		memcpy(s->src, a, 16);
		memcpy(s->dst, a, 16);
		s->dst[15] = 2;
	} else {
		static const uint8_t a[4] = { 10, 9, 0, 1 }, c[4] = { 10, 9, 0, 2 };
		memcpy(s->src, a, 4);
		memcpy(s->dst, c, 4);
	}
	s->nvlans = nvlans;
	s->vlan_tpid[0] = nvlans == 2 ? 0x88A8 : 0x8100;
	s->vlan_tci[0] = (uint16_t)(100 + synth_rand(rng) % 3000);
	s->vlan_tpid[1] = 0x8100;
	s->vlan_tci[1] = (uint16_t)(5 << 13 | 42);
	s->tos = (uint8_t)(synth_rand(rng) & 0xFF);
	s->ttl = 64;
	s->ip_id = 0;
	s->sport = (uint16_t)(0xC000 | (synth_rand(rng) & 0x3FFF));
	s->dport = RT_ROCE_UDP_PORT;
	s->pkey = 0xFFFF;
	uint64_t r = synth_rand(rng);
	s->dqpn = (uint32_t)(r & 0xFFFFFF);
	s->psn = (uint32_t)(r >> 24) & 0xFFFFFF;
	s->ackreq = (r >> 50) & 1;
	s->se = (r >> 51) & 1;
	s->mig = (r >> 52) & 1;
	s->fecn = (r >> 53) & 1;
	s->becn = (r >> 54) & 1;
	s->va = synth_rand(rng);
	s->rkey = (uint32_t)synth_rand(rng);
	s->dmalen = (uint32_t)(synth_rand(rng) & 0xFFFFF);
	s->imm = (uint32_t)synth_rand(rng);
	s->ieth = (uint32_t)synth_rand(rng);
	s->qkey = (uint32_t)synth_rand(rng);
	s->srcqp = (uint32_t)(synth_rand(rng) & 0xFFFFFF);
	s->feth = (uint32_t)(synth_rand(rng) & 0x3F);
	s->swap_add = synth_rand(rng);
	s->compare = synth_rand(rng);
	s->ack_orig = synth_rand(rng);
	s->msn = (uint32_t)(synth_rand(rng) & 0xFFFFFF);
	s->syndrome = 0x1F;
}

/* Call emit(ctx, frame, len) for every packet of the coverage capture; returns the count. */
static inline unsigned synth_all(void (*emit)(void *ctx, const uint8_t *frame, size_t len), void *ctx)
{
	static uint8_t payload[4096];
	uint8_t frame[6000];
	uint64_t rng = 0x5EED;
	unsigned n = 0;
	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 13 + 7);
	static const size_t sizes[] = { 0, 1, 2, 3, 4, 5, 64, 1024 };
	for (int ipv = 4; ipv <= 6; ipv += 2)
		for (int vl = 0; vl <= 2; vl++)
			for (unsigned op = 0; op < 256; op++) {
				const struct rt_opcode_info *info = rt_opcode_info((uint8_t)op);
				if (!info && op != 0x15 && op != 0x1E)
					continue;
				size_t nsizes = (info && !(info->headers & RT_HDR_PAYLOAD)) ? 1 : sizeof(sizes) / sizeof(sizes[0]);
				for (size_t k = 0; k < nsizes; k++) {
					struct synth s;
					synth_base(&s, &rng, ipv, vl);
					s.opcode = (uint8_t)op;
					s.payload = payload;
					s.payload_len = nsizes == 1 ? 0 : sizes[k];
					if (op == RT_OP_CNP) {
						s.becn = true;
						s.psn = 0;
					}
					if (op == RT_OP_RC_ACKNOWLEDGE || op == RT_OP_RC_ATOMIC_ACKNOWLEDGE) {
						/* cycle through ACK credits, RNR timers, NAK codes, reserved */
						static const uint8_t syn[] = { 0x1F, 0x00, 0x05, 0x20, 0x2E, 0x3F,
									       0x60, 0x61, 0x62, 0x63, 0x64, 0x45 };
						for (size_t j = 0; j < sizeof(syn); j++) {
							s.syndrome = syn[j];
							s.psn = (s.psn + 1) & RT_PSN_MASK;
							size_t len = synth_build(&s, frame);
							emit(ctx, frame, len);
							n++;
						}
						continue;
					}
					size_t len = synth_build(&s, frame);
					emit(ctx, frame, len);
					n++;
				}
			}
	/* CM messages on QP1, IPv4 and IPv6 */
	static const uint16_t attrs[] = { RT_CM_REQ, RT_CM_REP, RT_CM_RTU, RT_CM_REJ, RT_CM_MRA, RT_CM_DREQ, RT_CM_DREP };
	for (int ipv = 4; ipv <= 6; ipv += 2)
		for (size_t a = 0; a < sizeof(attrs) / sizeof(attrs[0]); a++) {
			uint8_t mad[RT_MAD_LEN];
			struct synth s;
			synth_base(&s, &rng, ipv, a % 2);
			synth_cm_mad(mad, attrs[a], &rng, ipv);
			s.opcode = RT_OP_UD_SEND_ONLY;
			s.dqpn = 1;
			s.srcqp = 1;
			s.qkey = RT_GSI_QKEY;
			s.fecn = s.becn = s.mig = s.se = false;
			s.payload = mad;
			s.payload_len = RT_MAD_LEN;
			size_t len = synth_build(&s, frame);
			emit(ctx, frame, len);
			n++;
		}
	return n;
}

#endif

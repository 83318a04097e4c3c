/*
 * Decoder unit tests: ICRC on the real SoftRoCE captures (all good; any
 * flipped covered bit makes it bad; masked fields do not), truncation at
 * every length, IPv4 options and fragments, link types (SLL, SLL2, raw,
 * loopback), VLAN/QinQ, malformed lengths, configurable ports, CM fields of
 * a real RDMA CM handshake, and the text of AETH and packet lines.
 */
#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include "rdmatrace/capfile.h"
#include "rdmatrace/roce_decode.h"
#include "rdmatrace/roce_format.h"
#include "synth.h"
#include "testlib.h"

static const char *const shared_dirs[] = { "../shared/captures", "../../shared/captures" };

struct frame {
	uint8_t *data;
	uint32_t len;
	uint16_t linktype;
};

/* Every frame of every real capture (NULL when the captures are absent). */
static struct frame *load_real(size_t *n)
{
	*n = 0;
	DIR *dir = NULL;
	const char *shared = NULL;
	for (size_t i = 0; !dir && i < 2; i++)
		if ((dir = opendir(shared_dirs[i])))
			shared = shared_dirs[i];
	if (!dir)
		return NULL;
	struct frame *v = NULL;
	size_t cap = 0;
	struct dirent *e;
	while ((e = readdir(dir))) {
		char path[1024], err[256];
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/wire.pcap", shared, e->d_name);
		struct rt_capfile *f;
		if (rt_capfile_open(path, RT_CAPFILE_AUTO, &f, err, sizeof(err)) < 0)
			continue;
		struct rt_caprec rec;
		while (rt_capfile_next(f, &rec) > 0) {
			if (*n == cap)
				v = realloc(v, (cap = cap ? cap * 2 : 256) * sizeof(*v));
			v[*n].data = malloc(rec.caplen);
			memcpy(v[*n].data, rec.data, rec.caplen);
			v[*n].len = rec.caplen;
			v[*n].linktype = rec.linktype;
			(*n)++;
		}
		rt_capfile_close(f);
	}
	closedir(dir);
	return v;
}

static void free_frames(struct frame *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].data);
	free(v);
}

static int decode(const uint8_t *p, uint32_t len, struct rt_pkt *pkt)
{
	return rt_decode(NULL, RT_LINKTYPE_ETHERNET, p, len, len, pkt);
}

static void test_real_captures_icrc_good(void)
{
	size_t n;
	struct frame *v = load_real(&n);
	if (!v)
		SKIP("../shared/captures not present");
	size_t roce = 0, good = 0;
	for (size_t i = 0; i < n; i++) {
		struct rt_pkt pkt;
		if (rt_decode(NULL, v[i].linktype, v[i].data, v[i].len, v[i].len, &pkt) != 1)
			continue;
		roce++;
		good += pkt.icrc_status == RT_ICRC_GOOD;
		CHECK(!(pkt.flags & (RT_PKT_TRUNCATED | RT_PKT_MALFORMED)));
	}
	printf("# %zu frames, %zu RoCE, %zu ICRC good\n", n, roce, good);
	CHECK(roce > 200);
	CHECK_EQ_U(good, roce);
	free_frames(v, n);
}

/* Flip every bit of every covered byte of every real packet (one bit per
 * byte for large packets); the ICRC must be bad each time, except for the
 * masked fields where it must stay good. */
static void test_bit_flips(void)
{
	size_t n;
	struct frame *v = load_real(&n);
	if (!v)
		SKIP("../shared/captures not present");
	size_t flips = 0, wrong = 0, masked = 0;
	for (size_t i = 0; i < n; i++) {
		struct rt_pkt pkt;
		if (decode(v[i].data, v[i].len, &pkt) != 1 || pkt.ip_version != 4)
			continue;
		uint32_t ip = pkt.ip_off, udp = pkt.udp_off, bth = pkt.bth_off;
		uint32_t end = pkt.udp_off + pkt.udp_len - RT_ICRC_LEN;
		bool all_bits = pkt.udp_len < 100;
		for (uint32_t off = ip; off < end; off++) {
			bool is_masked = off == ip + 1 || off == ip + 8 || off == ip + 10 || off == ip + 11 ||
					 off == udp + 6 || off == udp + 7 || off == bth + 4;
			for (int bit = 0; bit < 8; bit++) {
				if (!all_bits && bit != (int)(off % 8))
					continue;
				uint8_t *b = &v[i].data[off];
				*b ^= (uint8_t)(1u << bit);
				struct rt_pkt q;
				int rc = decode(v[i].data, v[i].len, &q);
				*b ^= (uint8_t)(1u << bit);
				/* Flips in IP/UDP lengths or the port may stop it being RoCE, or
				 * make the lengths inconsistent: then it must not claim good. */
				bool ok;
				if (is_masked) {
					ok = rc == 1 && q.icrc_status == RT_ICRC_GOOD;
					masked++;
				} else {
					ok = q.icrc_status != RT_ICRC_GOOD;
				}
				flips++;
				if (!ok && wrong++ < 10)
					printf("# frame %zu offset %u bit %d: icrc %s\n", i + 1, off, bit,
					       rt_icrc_status_name(q.icrc_status));
			}
		}
	}
	printf("# %zu single-bit flips (%zu in masked fields)\n", flips, masked);
	CHECK(flips > 10000);
	CHECK(masked > 100);
	CHECK_EQ_U(wrong, 0);
	free_frames(v, n);
}

static size_t build(struct synth *s, uint8_t *out)
{
	return synth_build(s, out);
}

static void base(struct synth *s, uint8_t opcode, int ipv, int nvlans)
{
	uint64_t rng = 42;
	synth_base(s, &rng, ipv, nvlans);
	s->opcode = opcode;
}

static void test_ipv6_masks(void)
{
	static const uint8_t payload[13] = "hello, world";
	uint8_t f[512];
	struct synth s;
	base(&s, RT_OP_RC_SEND_ONLY, 6, 0);
	s.payload = payload;
	s.payload_len = sizeof(payload);
	size_t len = build(&s, f);
	struct rt_pkt p;
	CHECK_EQ_U(decode(f, (uint32_t)len, &p), 1);
	CHECK_EQ_U(p.icrc_status, RT_ICRC_GOOD);
	CHECK_EQ_U(p.payload_len, 13);
	CHECK_EQ_U(p.bth.pad, 3);
	/* traffic class, flow label, hop limit are masked */
	uint32_t ip = p.ip_off;
	const uint32_t masked[] = { ip, ip + 1, ip + 2, ip + 3, ip + 7, p.udp_off + 6, p.bth_off + 4 };
	for (size_t i = 0; i < sizeof(masked) / sizeof(masked[0]); i++) {
		uint8_t save = f[masked[i]];
		f[masked[i]] ^= masked[i] == ip ? 0x0F : 0xA5; /* keep the version nibble */
		CHECK_EQ_U(decode(f, (uint32_t)len, &p), 1);
		CHECK_EQ_U(p.icrc_status, RT_ICRC_GOOD);
		f[masked[i]] = save;
	}
	f[ip + 9] ^= 1; /* source address */
	decode(f, (uint32_t)len, &p);
	CHECK_EQ_U(p.icrc_status, RT_ICRC_BAD);
}

/* Cut a packet at every length: never a read past the cut (ASan checks),
 * always flagged, and decoded as far as the bytes go. */
static void test_truncation_every_length(void)
{
	uint8_t f[512];
	struct synth s;
	base(&s, RT_OP_RC_WRITE_ONLY_IMM, 4, 1);
	static const uint8_t payload[40];
	s.payload = payload;
	s.payload_len = sizeof(payload);
	size_t len = build(&s, f);
	struct rt_pkt full;
	CHECK_EQ_U(decode(f, (uint32_t)len, &full), 1);
	CHECK_EQ_U(full.icrc_status, RT_ICRC_GOOD);
	for (uint32_t cut = 0; cut < len; cut++) {
		uint8_t *copy = malloc(cut ? cut : 1);
		memcpy(copy, f, cut);
		struct rt_pkt p;
		int rc = rt_decode(NULL, RT_LINKTYPE_ETHERNET, copy, cut, (uint32_t)len, &p);
		CHECK(p.flags & RT_PKT_TRUNCATED);
		if (cut >= full.bth_off + RT_BTH_LEN) {
			CHECK_EQ_U(rc, 1);
			CHECK_EQ_U(p.bth.psn, full.bth.psn);
			CHECK_EQ_U(p.payload_len, full.payload_len); /* from the UDP length */
			CHECK_EQ_U(p.icrc_status, RT_ICRC_UNVERIFIED);
			CHECK_EQ_U(p.icrc_reason, RT_ICRC_WHY_TRUNCATED);
			bool reth = cut >= full.bth_off + 28, imm = cut >= full.bth_off + 32;
			CHECK_EQ_U(!!(p.hdrs & RT_HDR_RETH), reth);
			CHECK_EQ_U(!!(p.hdrs & RT_HDR_IMMDT), imm);
			if (reth)
				CHECK_EQ_U(p.reth.va, s.va);
		} else {
			CHECK_EQ_U(rc, 0);
			CHECK_EQ_U(p.skip, RT_SKIP_SHORT);
		}
		free(copy);
	}
}

static void test_ipv4_options_and_fragments(void)
{
	uint8_t f[512], g[512];
	struct synth s;
	base(&s, RT_OP_RC_SEND_ONLY, 4, 0);
	static const uint8_t payload[8] = "12345678";
	s.payload = payload;
	s.payload_len = 8;
	size_t len = build(&s, f);
	/* insert 8 bytes of options (NOPs and an end) after the 20-byte header */
	memcpy(g, f, 34);
	memset(g + 34, 1, 7);
	g[41] = 0;
	memcpy(g + 42, f + 34, len - 34);
	size_t glen = len + 8;
	g[14] = 0x47;
	uint16_t tot = (uint16_t)((g[16] << 8 | g[17]) + 8);
	g[16] = (uint8_t)(tot >> 8);
	g[17] = (uint8_t)tot;
	uint32_t crc;
	CHECK_EQ_U(rt_icrc_compute(g + 14, glen - 14 - 4, &crc), 0);
	rt_icrc_store(g + glen - 4, crc);
	struct rt_pkt p;
	CHECK_EQ_U(decode(g, (uint32_t)glen, &p), 1);
	CHECK_EQ_U(p.ip_hdr_len, 28);
	CHECK_EQ_U(p.icrc_status, RT_ICRC_GOOD);
	CHECK_EQ_U(p.payload_len, 8);
	g[40] ^= 0x10; /* options are covered */
	decode(g, (uint32_t)glen, &p);
	CHECK_EQ_U(p.icrc_status, RT_ICRC_BAD);
	/* first fragment: decoded, ICRC not verifiable */
	f[20] |= 0x20;
	CHECK_EQ_U(decode(f, (uint32_t)len, &p), 1);
	CHECK(p.flags & RT_PKT_FRAGMENT);
	CHECK_EQ_U(p.icrc_status, RT_ICRC_UNVERIFIED);
	CHECK_EQ_U(p.icrc_reason, RT_ICRC_WHY_FRAGMENT);
	/* a later fragment has no UDP header */
	f[21] = 0x10;
	CHECK_EQ_U(decode(f, (uint32_t)len, &p), 0);
	CHECK_EQ_U(p.skip, RT_SKIP_FRAGMENT);
}

/* The same IP packet under every link type decodes the same way. */
static void test_link_types(void)
{
	uint8_t f[512], g[600];
	struct synth s;
	base(&s, RT_OP_RC_READ_REQUEST, 6, 0);
	size_t len = build(&s, f);
	size_t iplen = len - 14;
	struct rt_pkt ref, p;
	CHECK_EQ_U(decode(f, (uint32_t)len, &ref), 1);
	CHECK_EQ_U(ref.icrc_status, RT_ICRC_GOOD);
	struct {
		uint16_t lt;
		uint8_t hdr[20];
		size_t hlen;
	} cases[] = {
		{ RT_LINKTYPE_LINUX_SLL, { 0, 4, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0, 0x86, 0xDD }, 16 },
		{ RT_LINKTYPE_LINUX_SLL2, { 0x86, 0xDD, 0, 0, 0, 0, 0, 3, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0 }, 20 },
		{ RT_LINKTYPE_RAW, { 0 }, 0 },
		{ 12, { 0 }, 0 },
		{ RT_LINKTYPE_IPV6, { 0 }, 0 },
		{ RT_LINKTYPE_NULL, { 30, 0, 0, 0 }, 4 },
		{ RT_LINKTYPE_LOOP, { 0, 0, 0, 30 }, 4 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memcpy(g, cases[i].hdr, cases[i].hlen);
		memcpy(g + cases[i].hlen, f + 14, iplen);
		uint32_t glen = (uint32_t)(cases[i].hlen + iplen);
		CHECK_EQ_U(rt_decode(NULL, cases[i].lt, g, glen, glen, &p), 1);
		CHECK_EQ_U(p.icrc_status, RT_ICRC_GOOD);
		CHECK_EQ_U(p.reth.va, ref.reth.va);
		CHECK_EQ_U(p.bth.psn, ref.bth.psn);
	}
	CHECK_EQ_U(rt_decode(NULL, 147, g, 40, 40, &p), 0);
	CHECK_EQ_U(p.skip, RT_SKIP_LINKTYPE);
}

static void test_vlan_tags_and_ports(void)
{
	uint8_t f[512];
	struct synth s;
	base(&s, RT_OP_UD_SEND_ONLY_IMM, 4, 2);
	size_t len = build(&s, f);
	struct rt_pkt p;
	CHECK_EQ_U(decode(f, (uint32_t)len, &p), 1);
	CHECK_EQ_U(p.nvlans, 2);
	CHECK_EQ_U(p.vlan_tpid[0], 0x88A8);
	CHECK_EQ_U(p.vlan_tci[1] & 0xFFF, 42);
	CHECK_EQ_U(p.deth.src_qpn, s.srcqp);
	CHECK_EQ_U(p.immdt, s.imm);
	CHECK_EQ_U(p.icrc_status, RT_ICRC_GOOD);
	/* another port is not RoCE unless configured */
	base(&s, RT_OP_RC_SEND_ONLY, 4, 0);
	s.dport = 4792;
	len = build(&s, f);
	CHECK_EQ_U(decode(f, (uint32_t)len, &p), 0);
	CHECK_EQ_U(p.skip, RT_SKIP_NOT_ROCE_PORT);
	const uint16_t ports[] = { 1000, 4792 };
	struct rt_decode_opts o = { ports, 2, false, false };
	CHECK_EQ_U(rt_decode(&o, RT_LINKTYPE_ETHERNET, f, (uint32_t)len, (uint32_t)len, &p), 1);
	CHECK_EQ_U(p.icrc_status, RT_ICRC_GOOD);
	o.no_icrc = true;
	CHECK_EQ_U(rt_decode(&o, RT_LINKTYPE_ETHERNET, f, (uint32_t)len, (uint32_t)len, &p), 1);
	CHECK_EQ_U(p.icrc_reason, RT_ICRC_WHY_DISABLED);
}

static void test_malformed_lengths(void)
{
	uint8_t f[512];
	struct synth s;
	base(&s, RT_OP_RC_WRITE_FIRST, 4, 0);
	size_t len = build(&s, f);
	struct rt_pkt p;
	/* UDP length claims more than the IP packet */
	f[38] = 0x10;
	CHECK_EQ_U(decode(f, (uint32_t)len, &p), 1);
	CHECK(p.flags & RT_PKT_MALFORMED);
	CHECK_EQ_U(p.malformed, RT_MALFORMED_UDP_LEN);
	CHECK(p.icrc_status != RT_ICRC_GOOD);
	/* UDP length too short for BTH + RETH + ICRC */
	len = build(&s, f);
	f[38] = 0;
	f[39] = 8 + 20;
	CHECK_EQ_U(decode(f, (uint32_t)len, &p), 1);
	CHECK_EQ_U(p.malformed, RT_MALFORMED_IB_LEN);
	CHECK_EQ_U(p.payload_len, 0);
	/* non-UDP and non-IP */
	len = build(&s, f);
	f[23] = 6;
	CHECK_EQ_U(decode(f, (uint32_t)len, &p), 0);
	CHECK_EQ_U(p.skip, RT_SKIP_NOT_UDP);
	f[12] = 0x08;
	f[13] = 0x06;
	CHECK_EQ_U(decode(f, (uint32_t)len, &p), 0);
	CHECK_EQ_U(p.skip, RT_SKIP_NOT_IP);
	/* IHL below 5 */
	len = build(&s, f);
	f[14] = 0x44;
	CHECK_EQ_U(decode(f, (uint32_t)len, &p), 0);
	CHECK_EQ_U(p.skip, RT_SKIP_BAD_HEADER);
}

static void test_aeth_words(void)
{
	char buf[64];
	struct rt_aeth a = { 0x1F, RT_AETH_ACK, 31, 1, 0 };
	rt_aeth_describe(&a, buf, sizeof(buf));
	CHECK_STR(buf, "ACK");
	a = (struct rt_aeth){ 0x05, RT_AETH_ACK, 5, 1, 0 };
	rt_aeth_describe(&a, buf, sizeof(buf));
	CHECK_STR(buf, "ACK credits 5");
	uint8_t f[512];
	struct synth s;
	struct rt_pkt p;
	base(&s, RT_OP_RC_ACKNOWLEDGE, 4, 0);
	const struct {
		uint8_t syn;
		const char *text;
	} cases[] = {
		{ 0x20, "RNR NAK 655.36 ms" }, { 0x2E, "RNR NAK 1.28 ms" }, { 0x21, "RNR NAK 0.01 ms" },
		{ 0x3F, "RNR NAK 491.52 ms" }, { 0x60, "NAK PSN sequence error" }, { 0x61, "NAK invalid request" },
		{ 0x62, "NAK remote access error" }, { 0x63, "NAK remote operational error" },
		{ 0x64, "NAK invalid RD request" }, { 0x6A, "NAK unknown NAK code" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		s.syndrome = cases[i].syn;
		size_t len = build(&s, f);
		CHECK_EQ_U(decode(f, (uint32_t)len, &p), 1);
		rt_aeth_describe(&p.aeth, buf, sizeof(buf));
		CHECK_STR(buf, cases[i].text);
	}
	s.syndrome = 0x20;
	size_t len = build(&s, f);
	decode(f, (uint32_t)len, &p);
	CHECK_EQ_U(p.aeth.rnr_us, 655360);
	char line[RT_FMT_LINE_MAX];
	struct rt_fmt_ctx ctx = { 7, 1500000000, 1000000000, 0, NULL };
	CHECK(rt_pkt_format_line(&p, &ctx, line, sizeof(line)) > 0);
	printf("# %s", line);
	CHECK(strstr(line, "7 0.500000000 10.9.0.1 > 10.9.0.2 RC Acknowledge QP 0x") == line);
	CHECK(strstr(line, " RNR NAK 655.36 ms MSN ") != NULL);
	CHECK(strstr(line, " icrc good\n") != NULL);
	char json[RT_FMT_JSON_MAX];
	CHECK(rt_pkt_format_json(&p, &ctx, json, sizeof(json)) > 0);
	CHECK(strstr(json, "\"type\":\"RNR_NAK\"") != NULL);
	CHECK(strstr(json, "\"rnr_timer_us\":655360") != NULL);
	/* a buffer too small gives 0, not a partial line */
	CHECK_EQ_U(rt_pkt_format_line(&p, &ctx, line, 20), 0);
}

static void test_real_cm_handshake(void)
{
	size_t n;
	struct frame *v = load_real(&n);
	if (!v)
		SKIP("../shared/captures not present");
	unsigned reqs = 0, reps = 0, rtus = 0, dreqs = 0;
	for (size_t i = 0; i < n; i++) {
		struct rt_pkt p;
		if (decode(v[i].data, v[i].len, &p) != 1 || !(p.flags & RT_PKT_CM))
			continue;
		const struct rt_cm *cm = &p.cm;
		switch (cm->attr_id) {
		case RT_CM_REQ:
			reqs++;
			CHECK(cm->ip_service);
			CHECK_EQ_U(cm->port_space, RT_RDMA_PS_TCP);
			CHECK(cm->has_cma_hdr);
			CHECK_EQ_U(cm->cma_ip_version, 4);
			CHECK(!memcmp(cm->cma_src_ip + 12, p.src, 4));
			CHECK(!memcmp(cm->cma_dst_ip + 12, p.dst, 4));
			CHECK_EQ_U(cm->user_private_off, p.payload_off + 24 + 140 + 36);
			CHECK_EQ_U(cm->user_private_len, 56);
			CHECK_EQ_U(rt_mtu_bytes(cm->path_mtu), 1024);
			CHECK_EQ_U(cm->prim_local_lid, 0xFFFF);
			CHECK_EQ_U(p.mad_class, RT_MAD_CLASS_CM);
			break;
		case RT_CM_REP: reps++; break;
		case RT_CM_RTU: rtus++; break;
		case RT_CM_DREQ: dreqs++; CHECK_EQ_U(cm->remote_qpn, 0x11); break;
		default: break;
		}
	}
	CHECK(reqs >= 2);
	CHECK_EQ_U(reps, reqs);
	CHECK_EQ_U(rtus, reqs);
	printf("# %u REQ, %u REP, %u RTU, %u DREQ\n", reqs, reps, rtus, dreqs);
	free_frames(v, n);
}

static void test_cnp_and_unknown_opcode(void)
{
	uint8_t f[512];
	struct synth s;
	struct rt_pkt p;
	base(&s, RT_OP_CNP, 4, 0);
	s.becn = true;
	size_t len = build(&s, f);
	CHECK_EQ_U(decode(f, (uint32_t)len, &p), 1);
	CHECK(p.bth.becn);
	CHECK(p.hdrs & RT_HDR_CNP);
	CHECK_EQ_U(p.udp_len, 40);
	CHECK_EQ_U(p.payload_len, 0);
	CHECK_EQ_U(p.icrc_status, RT_ICRC_GOOD);
	base(&s, 0x15, 4, 0);
	static const uint8_t payload[6] = "abcdef";
	s.payload = payload;
	s.payload_len = 6;
	len = build(&s, f);
	CHECK_EQ_U(decode(f, (uint32_t)len, &p), 1);
	CHECK(p.flags & RT_PKT_UNKNOWN_OPCODE);
	CHECK(p.op == NULL);
	CHECK_EQ_U(p.payload_len, 6);
	CHECK_EQ_U(p.icrc_status, RT_ICRC_GOOD);
	CHECK_EQ_U(rt_decode(NULL, 1, NULL, 0, 0, &p), 0);
	CHECK(rt_decode(NULL, 1, NULL, 5, 5, &p) < 0);
}

static void test_format_ip(void)
{
	char buf[64];
	const uint8_t a[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
	rt_format_ip(6, a, buf, sizeof(buf));
	CHECK_STR(buf, "fd00::1");
	const uint8_t b[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0 };
	rt_format_ip(6, b, buf, sizeof(buf));
	CHECK_STR(buf, "2001:db8:0:1::");
	const uint8_t c[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 9, 0, 2 };
	rt_format_ip(6, c, buf, sizeof(buf));
	CHECK_STR(buf, "::ffff:10.9.0.2");
	const uint8_t d[16] = { 0x20, 0x01, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1 };
	rt_format_ip(6, d, buf, sizeof(buf));
	CHECK_STR(buf, "2001:0:1::1:0:1");
	rt_format_ip(4, c + 12, buf, sizeof(buf));
	CHECK_STR(buf, "10.9.0.2");
}

/* The line formatter's memo (line beginnings by flow, the frame number
 * counted on its digits) and its division-free digits, against snprintf and
 * against the same line formatted without the memo. */
static void test_format_numbers_and_memo(void)
{
	uint8_t f[512];
	struct synth s;
	struct rt_pkt p0, p;
	static const uint8_t payload[8];
	base(&s, RT_OP_RC_SEND_ONLY, 4, 0);
	s.payload = payload;
	s.payload_len = sizeof(payload);
	size_t len = build(&s, f);
	CHECK_EQ_U(decode(f, (uint32_t)len, &p0), 1);
	static struct rt_fmt_cache cache;
	memset(&cache, 0, sizeof(cache));
	struct rt_fmt_ctx with = { 0, 0, 1000000000ull, 0, &cache }, without = { 0, 0, 1000000000ull, 0, NULL };
	uint64_t rng = 42, frame = 0;
	static const uint64_t frames[] = { 9, 99, 999, 9999, 99999, 999999, 9999999, 99999999, 999999999,
					   9999999999ull, 18446744073709551614ull };
	static const uint32_t nums[] = { 0, 9, 10, 99, 100, 999, 1000, 99999999, 100000000, 999999999,
					 1000000000, 4294967295u, 16777215 };
	unsigned bad = 0, bad_memo = 0;
	for (unsigned i = 0; i < 300000; i++) {
		uint64_t r = synth_rand(&rng);
		p = p0;
		/* mostly the next frame; now and then a jump, often to just before a power of ten */
		if (r % 97 == 0)
			frame = frames[(r >> 8) % (sizeof(frames) / sizeof(frames[0]))];
		else if (r % 89 == 0)
			frame = r >> 20;
		else
			frame++;
		uint64_t ts = 1000000000ull + (r % 5 == 0 ? nums[(r >> 12) % 10] : (r >> 7) % 100000000000000ull);
		p.bth.psn = (uint32_t)((r >> 3) % 3 == 0 ? nums[(r >> 24) % 13] & RT_PSN_MASK : (r >> 30) & RT_PSN_MASK);
		p.payload_len = (r >> 40) % 4 == 0 ? nums[(r >> 44) % 13] : (uint32_t)(r >> 20) % 5000;
		p.bth.dqpn = (uint32_t)(r >> 50) % 3 * 0x111111;
		p.bth.opcode = (r >> 52) & 1 ? RT_OP_RC_SEND_ONLY : RT_OP_RC_WRITE_ONLY;
		p.op = rt_opcode_info(p.bth.opcode);
		p.nvlans = (r >> 53) % 3 == 0;
		p.vlan_tci[0] = (uint16_t)((r >> 55) % 3 * 1000);
		p.src[3] = (uint8_t)((r >> 58) % 3 * 100);
		p.dst[0] = (uint8_t)((r >> 60) % 2 * 200);
		with.frame = without.frame = frame;
		with.ts_ns = without.ts_ns = ts;
		char a[RT_FMT_LINE_MAX], b[RT_FMT_LINE_MAX], exp[256], ip1[64], ip2[64];
		size_t na = rt_pkt_format_line(&p, &with, a, sizeof(a));
		size_t nb = rt_pkt_format_line(&p, &without, b, sizeof(b));
		if (na != nb || memcmp(a, b, na)) {
			if (bad_memo++ < 3)
				printf("# memo differs:\n# %s# %s", a, b);
			continue;
		}
		rt_format_ip(4, p.src, ip1, sizeof(ip1));
		rt_format_ip(4, p.dst, ip2, sizeof(ip2));
		char vlan[32] = "";
		if (p.nvlans)
			snprintf(vlan, sizeof(vlan), " vlan %u", p.vlan_tci[0] & 0xFFF);
		uint64_t rel = ts - 1000000000ull;
		int n = snprintf(exp, sizeof(exp), "%llu %llu.%09llu %s > %s%s %s QP 0x%06x PSN %u ",
				 (unsigned long long)frame, (unsigned long long)(rel / 1000000000u),
				 (unsigned long long)(rel % 1000000000u), ip1, ip2, vlan, p.op->name, p.bth.dqpn,
				 p.bth.psn);
		char tail[64];
		snprintf(tail, sizeof(tail), " len %u icrc good\n", p.payload_len);
		if (strncmp(a, exp, (size_t)n) || na < strlen(tail) || strcmp(a + na - strlen(tail), tail)) {
			if (bad++ < 3)
				printf("# expected %s...%s# got      %s", exp, tail, a);
		}
	}
	CHECK_EQ_U(bad_memo, 0);
	CHECK_EQ_U(bad, 0);
}

int main(void)
{
	RUN(test_real_captures_icrc_good);
	RUN(test_bit_flips);
	RUN(test_ipv6_masks);
	RUN(test_truncation_every_length);
	RUN(test_ipv4_options_and_fragments);
	RUN(test_link_types);
	RUN(test_vlan_tags_and_ports);
	RUN(test_malformed_lengths);
	RUN(test_aeth_words);
	RUN(test_real_cm_handshake);
	RUN(test_cnp_and_unknown_opcode);
	RUN(test_format_ip);
	RUN(test_format_numbers_and_memo);
	return test_done();
}

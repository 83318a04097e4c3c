/*
 * Text and JSON for decoded RoCEv2 packets (include/rdmatrace/roce_format.h).
 * A tiny append-only string builder with its own number formatting keeps
 * this free of printf, which would otherwise dominate `rdmatrace packets`.
 */
#include <string.h>
#include <time.h>

#include "rdmatrace/roce_format.h"

struct sb {
	char *p;
	char *end;                /* one byte kept for the NUL */
	int overflow;
};

__attribute__((always_inline)) static inline void sb_mem(struct sb *b, const char *s, size_t n)
{
	if ((size_t)(b->end - b->p) < n) {
		b->overflow = 1;
		n = (size_t)(b->end - b->p);
	}
	if (n <= 16) { /* short strings: a call to memcpy costs more than the copy */
		for (size_t i = 0; i < n; i++)
			b->p[i] = s[i];
	} else {
		memcpy(b->p, s, n);
	}
	b->p += n;
}

static inline void sb_str(struct sb *b, const char *s)
{
	sb_mem(b, s, strlen(s));
}

/* A string literal: its length is known at compile time, so the copy is a few moves. */
#define sb_lit(b, lit)                                                   \
	do {                                                             \
		struct sb *sb_l_ = (b);                                  \
		if ((size_t)(sb_l_->end - sb_l_->p) >= sizeof(lit) - 1) { \
			memcpy(sb_l_->p, lit, sizeof(lit) - 1);          \
			sb_l_->p += sizeof(lit) - 1;                     \
		} else {                                                 \
			sb_l_->overflow = 1;                             \
		}                                                        \
	} while (0)

__attribute__((always_inline)) static inline void sb_ch(struct sb *b, char c)
{
	if (b->p < b->end)
		*b->p++ = c;
	else
		b->overflow = 1;
}

/* n bytes of room at the cursor, or NULL (and the overflow mark). */
__attribute__((always_inline)) static inline char *sb_room(struct sb *b, size_t n)
{
	if ((size_t)(b->end - b->p) < n) {
		b->overflow = 1;
		return NULL;
	}
	char *q = b->p;
	b->p += n;
	return q;
}

/* "00" .. "99": two digits per division keeps number formatting cheap. */
static const char digit_pairs[201] =
	"0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243444546474849"
	"5051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899";

static const uint64_t pow10_table[20] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull,
	1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull,
	100000000000000ull, 1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
	1000000000000000000ull, 10000000000000000000ull,
};

/* The last width digits of v, written right to left ending at q + width. */
static inline void put_digits(char *q, uint64_t v, int width)
{
	int i = width;
	while (i >= 2) {
		unsigned r = (unsigned)(v % 100);
		v /= 100;
		i -= 2;
		q[i] = digit_pairs[2 * r];
		q[i + 1] = digit_pairs[2 * r + 1];
	}
	if (i)
		q[0] = (char)('0' + v % 10);
}

/*
 * The 9 decimal digits of n < 10^9, without divisions: y / 2^57 is n / 10^8
 * in fixed point (the constant is 2^57 / 10^8 rounded up); the integer part
 * is the first digit, and each multiplication of the fraction by 100 brings
 * the next two to the integer part.  The rounding error stays below
 * n * 0.24 / 2^57 < 1.7e-9 of a unit of n / 10^8, under the 10^-8 that
 * separates neighbouring values, so every digit is exact (checked for every
 * n < 10^9 once, and in tests/captures/test_decode.c on a sample).
 */
__attribute__((always_inline)) static inline void put_digits9(char *q, uint32_t n)
{
	const uint64_t mask = (1ull << 57) - 1;
	uint64_t y = (uint64_t)n * 1441151881u;
	q[0] = (char)('0' + (y >> 57));
	y = (y & mask) * 100;
	memcpy(q + 1, digit_pairs + 2 * (y >> 57), 2);
	y = (y & mask) * 100;
	memcpy(q + 3, digit_pairs + 2 * (y >> 57), 2);
	y = (y & mask) * 100;
	memcpy(q + 5, digit_pairs + 2 * (y >> 57), 2);
	y = (y & mask) * 100;
	memcpy(q + 7, digit_pairs + 2 * (y >> 57), 2);
}

/* Number of decimal digits of v. */
static inline int digits_of(uint64_t v)
{
	if (v < 10)
		return 1;
	int d = ((64 - __builtin_clzll(v)) * 1233) >> 12; /* log10 from log2 */
	return d + 1 - (v < pow10_table[d]);
}

__attribute__((always_inline)) static inline void sb_u64(struct sb *b, uint64_t v)
{
	if (v < 100 && (size_t)(b->end - b->p) >= 2) {
		memcpy(b->p, digit_pairs + 2 * v + (v < 10), 2);
		b->p += 1 + (v >= 10);
		return;
	}
	int n = digits_of(v);
	if (v < 1000000000u && (size_t)(b->end - b->p) >= 16) {
		char tmp[48]; /* the 16 bytes copied past the digits are overwritten or unused */
		put_digits9(tmp + 16, (uint32_t)v);
		memcpy(b->p, tmp + 25 - n, 16);
		b->p += n;
		return;
	}
	char *q = sb_room(b, (size_t)n);
	if (q)
		put_digits(q, v, n);
}

/* v as zero-padded decimal of exactly width digits (width <= 20). */
__attribute__((always_inline)) static inline void sb_u64w(struct sb *b, uint64_t v, int width)
{
	char *q = sb_room(b, (size_t)width);
	if (q)
		put_digits(q, v, width);
}

static const char hexdig[] = "0123456789abcdef";

/* "0x" and at least width hex digits, two digits per step. */
__attribute__((always_inline)) static inline void sb_hex(struct sb *b, uint64_t v, int width)
{
	static const char pairs[513] =
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f"
	"303132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
	"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f808182838485868788898a8b8c8d8e8f"
	"909192939495969798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
	"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeef"
	"f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
	int n = v ? (67 - __builtin_clzll(v)) / 4 : 1;
	if (n < width)
		n = width;
	char *q = sb_room(b, (size_t)n + 2);
	if (!q)
		return;
	q[0] = '0';
	q[1] = 'x';
	int i = n + 2;
	while (i >= 4) {
		i -= 2;
		q[i] = pairs[2 * (v & 0xFF)];
		q[i + 1] = pairs[2 * (v & 0xFF) + 1];
		v >>= 8;
	}
	if (i == 3)
		q[2] = hexdig[v & 15];
}

/* Dotted IPv4 straight into the buffer. */
__attribute__((always_inline)) static inline void sb_ipv4(struct sb *b, const uint8_t *a)
{
	char *q = sb_room(b, 15);
	if (!q)
		return;
	for (int i = 0; i < 4; i++) {
		unsigned v = a[i];
		if (i)
			*q++ = '.';
		if (v >= 100) {
			*q++ = (char)('0' + v / 100);
			v %= 100;
			*q++ = digit_pairs[2 * v];
			*q++ = digit_pairs[2 * v + 1];
		} else if (v >= 10) {
			*q++ = digit_pairs[2 * v];
			*q++ = digit_pairs[2 * v + 1];
		} else {
			*q++ = (char)('0' + v);
		}
	}
	b->p = q;
}

/* microseconds as milliseconds with two decimals: 655360 -> "655.36" */
static void sb_ms(struct sb *b, uint32_t us)
{
	sb_u64(b, us / 1000);
	sb_ch(b, '.');
	sb_u64w(b, (us % 1000) / 10, 2);
}

static size_t sb_done(struct sb *b, char *buf)
{
	if (b->overflow)
		return 0;
	*b->p = 0;
	return (size_t)(b->p - buf);
}

size_t rt_format_ip(unsigned version, const uint8_t *a, char *buf, size_t len)
{
	if (!len)
		return 0;
	struct sb b = { buf, buf + len - 1, 0 };
	if (version == 4) {
		for (int i = 0; i < 4; i++) {
			if (i)
				sb_ch(&b, '.');
			sb_u64(&b, a[i]);
		}
		return sb_done(&b, buf);
	}
	if (version != 6) {
		sb_ch(&b, '-');
		return sb_done(&b, buf);
	}
	/* RFC 5952: the longest run (>= 2) of zero groups becomes "::". */
	uint16_t g[8];
	for (int i = 0; i < 8; i++)
		g[i] = (uint16_t)(a[2 * i] << 8 | a[2 * i + 1]);
	int best = -1, best_len = 1;
	for (int i = 0; i < 8;) {
		if (g[i]) {
			i++;
			continue;
		}
		int j = i;
		while (j < 8 && !g[j])
			j++;
		if (j - i > best_len) {
			best = i;
			best_len = j - i;
		}
		i = j;
	}
	/* IPv4-mapped ::ffff:a.b.c.d */
	if (best == 0 && best_len == 5 && g[5] == 0xFFFF) {
		sb_lit(&b, "::ffff:");
		for (int i = 12; i < 16; i++) {
			if (i > 12)
				sb_ch(&b, '.');
			sb_u64(&b, a[i]);
		}
		return sb_done(&b, buf);
	}
	for (int i = 0; i < 8; i++) {
		if (i == best) {
			sb_lit(&b, "::");
			i += best_len - 1;
			continue;
		}
		if (i && i != best + best_len)
			sb_ch(&b, ':');
		uint16_t v = g[i];
		int started = 0;
		for (int s = 12; s >= 0; s -= 4) {
			unsigned d = (v >> s) & 15;
			if (d || started || s == 0) {
				sb_ch(&b, hexdig[d]);
				started = 1;
			}
		}
	}
	return sb_done(&b, buf);
}

static void sb_ip(struct sb *b, unsigned version, const uint8_t *a);

/* Append text of length n from a buffer that holds at least `avail`
 * readable bytes: with room for all of them, one fixed-size copy. */
__attribute__((always_inline)) static inline void sb_padded(struct sb *b, const char *text, size_t n, size_t avail)
{
	if (avail == 16 && (size_t)(b->end - b->p) >= 16) {
		memcpy(b->p, text, 16);
		b->p += n;
	} else if (avail == 48 && (size_t)(b->end - b->p) >= 48) {
		memcpy(b->p, text, 48);
		b->p += n;
	} else if (avail == 64 && (size_t)(b->end - b->p) >= 64) {
		memcpy(b->p, text, 64);
		b->p += n;
	} else {
		sb_mem(b, text, n);
	}
}

/* An address through the caller's memo, when there is one. */
__attribute__((always_inline)) static inline void sb_ip_cached(struct sb *b, struct rt_fmt_cache *c, unsigned version, const uint8_t *a)
{
	if (!c) {
		sb_ip(b, version, a);
		return;
	}
	uint64_t k0 = 0, k1 = 0; /* a points at 16 bytes (struct rt_pkt src/dst); IPv4 uses 4 */
	if (version == 4) {
		uint32_t v4;
		memcpy(&v4, a, 4);
		k0 = v4;
	} else {
		memcpy(&k0, a, 8);
		memcpy(&k1, a + 8, 8);
	}
	for (unsigned i = 0; i < RT_FMT_CACHE_SLOTS; i++)
		if (c->version[i] == version && c->key[i][0] == k0 && c->key[i][1] == k1) {
			sb_padded(b, c->text[i], c->len[i], sizeof(c->text[i]));
			return;
		}
	unsigned slot = c->next++ % RT_FMT_CACHE_SLOTS;
	memset(c->text[slot], 0, sizeof(c->text[slot]));
	size_t n = rt_format_ip(version, a, c->text[slot], sizeof(c->text[slot]));
	c->version[slot] = (uint8_t)version;
	c->key[slot][0] = k0;
	c->key[slot][1] = k1;
	c->len[slot] = (uint8_t)n;
	sb_mem(b, c->text[slot], n);
}

static void sb_ip(struct sb *b, unsigned version, const uint8_t *a)
{
	if (version == 4) {
		sb_ipv4(b, a);
		return;
	}
	char tmp[64];
	size_t n = rt_format_ip(version, a, tmp, sizeof(tmp));
	sb_mem(b, tmp, n);
}

__attribute__((always_inline)) static inline void sb_aeth(struct sb *b, const struct rt_aeth *a)
{
	switch (a->type) {
	case RT_AETH_ACK:
		sb_lit(b, "ACK");
		if (a->value != 31) {
			sb_lit(b, " credits ");
			sb_u64(b, a->value);
		}
		break;
	case RT_AETH_RNR_NAK:
		sb_lit(b, "RNR NAK ");
		sb_ms(b, a->rnr_us);
		sb_lit(b, " ms");
		break;
	case RT_AETH_NAK:
		sb_lit(b, "NAK ");
		sb_str(b, rt_nak_code_name(a->value));
		break;
	default:
		sb_lit(b, "reserved syndrome ");
		sb_hex(b, a->syndrome, 2);
		break;
	}
}

size_t rt_aeth_describe(const struct rt_aeth *aeth, char *buf, size_t len)
{
	if (!len || !aeth)
		return 0;
	struct sb b = { buf, buf + len - 1, 0 };
	sb_aeth(&b, aeth);
	return sb_done(&b, buf);
}

__attribute__((always_inline)) static inline void sb_time(struct sb *b, const struct rt_fmt_ctx *ctx)
{
	if (ctx->abs_time) {
		time_t s = (time_t)(ctx->ts_ns / 1000000000u);
		struct tm tm;
		gmtime_r(&s, &tm);
		sb_u64w(b, (uint64_t)tm.tm_year + 1900, 4);
		sb_ch(b, '-');
		sb_u64w(b, (uint64_t)tm.tm_mon + 1, 2);
		sb_ch(b, '-');
		sb_u64w(b, (uint64_t)tm.tm_mday, 2);
		sb_ch(b, 'T');
		sb_u64w(b, (uint64_t)tm.tm_hour, 2);
		sb_ch(b, ':');
		sb_u64w(b, (uint64_t)tm.tm_min, 2);
		sb_ch(b, ':');
		sb_u64w(b, (uint64_t)tm.tm_sec, 2);
		sb_ch(b, '.');
		sb_u64w(b, ctx->ts_ns % 1000000000u, 9);
		sb_ch(b, 'Z');
		return;
	}
	uint64_t rel = ctx->ts_ns >= ctx->base_ns ? ctx->ts_ns - ctx->base_ns : 0;
	sb_u64(b, rel / 1000000000u);
	char *q = sb_room(b, 10);
	if (q) {
		q[0] = '.';
		put_digits9(q + 1, (uint32_t)(rel % 1000000000u));
	}
}

/* The frame number through the memo: the next frame's text is the latest's
 * plus one, done on the digits. */
__attribute__((always_inline)) static inline void sb_frame(struct sb *b, struct rt_fmt_cache *c, uint64_t frame)
{
	if (!c) {
		sb_u64(b, frame);
		return;
	}
	char *t = c->frame_text;
	int n = c->frame_len;
	if (n && frame == c->frame + 1 && frame != 0) {
		int i = n - 1;
		while (i >= 0 && t[i] == '9')
			t[i--] = '0';
		if (i >= 0) {
			t[i]++;
		} else if (n < 20) {
			memmove(t + 1, t, (size_t)n);
			t[0] = '1';
			n++;
		} else {
			n = 0;
		}
	} else {
		n = 0;
	}
	if (!n) {
		n = digits_of(frame);
		put_digits(t, frame, n);
	}
	c->frame = frame;
	c->frame_len = (uint8_t)n;
	if ((size_t)(b->end - b->p) >= sizeof(c->frame_text)) {
		memcpy(b->p, t, sizeof(c->frame_text));
		b->p += n;
	} else {
		sb_mem(b, t, (size_t)n);
	}
}

static const char *cm_name(unsigned attr)
{
	const char *n = rt_cm_attr_name(attr);
	return n ? n : "attr";
}

/* " svc TCP:18515" (an RDMA CM service) or " svc 0x..." */
static void sb_cm_service(struct sb *b, const struct rt_cm *cm)
{
	sb_lit(b, " svc ");
	if (!cm->ip_service) {
		sb_hex(b, cm->service_id, 16);
		return;
	}
	const char *ps = rt_port_space_name(cm->port_space);
	if (ps)
		sb_str(b, ps);
	else
		sb_hex(b, cm->port_space, 4);
	sb_ch(b, ':');
	sb_u64(b, cm->port);
}

/* " ip SRC:PORT > DST" from the RDMA CM header, when there is one */
static void sb_cma_hdr(struct sb *b, const struct rt_cm *cm)
{
	if (!cm->has_cma_hdr)
		return;
	sb_lit(b, " ip ");
	unsigned v = cm->cma_ip_version;
	sb_ip(b, v, v == 4 ? cm->cma_src_ip + 12 : cm->cma_src_ip);
	sb_ch(b, ':');
	sb_u64(b, cm->cma_src_port);
	sb_lit(b, " > ");
	sb_ip(b, v, v == 4 ? cm->cma_dst_ip + 12 : cm->cma_dst_ip);
}

static void sb_cm_line(struct sb *b, const struct rt_pkt *p)
{
	const struct rt_cm *cm = &p->cm;
	sb_lit(b, " CM ");
	sb_str(b, cm_name(cm->attr_id));
	if (!rt_cm_attr_name(cm->attr_id)) {
		sb_ch(b, ' ');
		sb_hex(b, cm->attr_id, 4);
	}
	sb_lit(b, " lcid ");
	sb_hex(b, cm->local_comm_id, 8);
	if (cm->attr_id != RT_CM_REQ && cm->attr_id != RT_CM_SIDR_REQ && cm->attr_id != RT_CM_SIDR_REP &&
	    rt_cm_attr_name(cm->attr_id)) { /* SIDR has a request ID only */
		sb_lit(b, " rcid ");
		sb_hex(b, cm->remote_comm_id, 8);
	}
	switch (cm->attr_id) {
	case RT_CM_REQ:
		sb_lit(b, " qpn ");
		sb_hex(b, cm->local_qpn, 6);
		sb_lit(b, " psn ");
		sb_u64(b, cm->starting_psn);
		sb_cm_service(b, cm);
		sb_lit(b, " mtu ");
		sb_u64(b, rt_mtu_bytes(cm->path_mtu));
		sb_lit(b, " retry ");
		sb_u64(b, cm->retry_count);
		sb_lit(b, " rnr_retry ");
		sb_u64(b, cm->rnr_retry_count);
		sb_lit(b, " timeout ");
		sb_u64(b, cm->prim_local_ack_timeout);
		sb_cma_hdr(b, cm);
		break;
	case RT_CM_SIDR_REQ:
		sb_cm_service(b, cm);
		sb_cma_hdr(b, cm);
		break;
	case RT_CM_SIDR_REP:
		sb_lit(b, " status ");
		sb_u64(b, cm->sidr_status);
		sb_lit(b, " qpn ");
		sb_hex(b, cm->local_qpn, 6);
		break;
	case RT_CM_REP:
		sb_lit(b, " qpn ");
		sb_hex(b, cm->local_qpn, 6);
		sb_lit(b, " psn ");
		sb_u64(b, cm->starting_psn);
		sb_lit(b, " rnr_retry ");
		sb_u64(b, cm->rnr_retry_count);
		break;
	case RT_CM_REJ: {
		const char *why = rt_cm_reject_reason_name(cm->reason);
		sb_lit(b, " reason ");
		sb_u64(b, cm->reason);
		if (why) {
			sb_lit(b, " (");
			sb_str(b, why);
			sb_ch(b, ')');
		}
		break;
	}
	case RT_CM_MRA:
		sb_str(b, cm->msg_mraed == 0 ? " for REQ" : cm->msg_mraed == 1 ? " for REP" : " for LAP");
		sb_lit(b, " timeout ");
		sb_u64(b, cm->service_timeout);
		break;
	case RT_CM_DREQ:
		sb_lit(b, " rqpn ");
		sb_hex(b, cm->remote_qpn, 6);
		break;
	default:
		break;
	}
}

__attribute__((always_inline)) static inline void sb_icrc_line(struct sb *b, const struct rt_pkt *p)
{
	if (p->icrc_status == RT_ICRC_GOOD) {
		sb_lit(b, " icrc good");
	} else if (p->icrc_status == RT_ICRC_BAD) {
		sb_lit(b, " icrc BAD (");
		sb_hex(b, p->icrc_wire, 8);
		sb_lit(b, " expected ");
		sb_hex(b, p->icrc_calc, 8);
		sb_ch(b, ')');
	} else {
		sb_lit(b, " icrc unverified (");
		sb_str(b, rt_icrc_reason_name(p->icrc_reason));
		sb_ch(b, ')');
	}
}

/* "src > dst [vlan N] OPCODE QP 0x.. PSN " */
static void sb_prefix_text(struct sb *b, struct rt_fmt_cache *c, const struct rt_pkt *p)
{
	sb_ip_cached(b, c, p->ip_version, p->src);
	sb_lit(b, " > ");
	sb_ip_cached(b, c, p->ip_version, p->dst);
	if (p->nvlans) {
		sb_lit(b, " vlan ");
		sb_u64(b, p->vlan_tci[0] & 0xFFF);
	}
	sb_ch(b, ' ');
	if (p->op) {
		sb_str(b, p->op->name);
	} else {
		sb_lit(b, "opcode ");
		sb_hex(b, p->bth.opcode, 2);
	}
	sb_lit(b, " QP ");
	sb_hex(b, p->bth.dqpn, 6);
	sb_lit(b, " PSN ");
}

/* The line's beginning through the memo, by addresses, opcode, VLAN and QP. */
__attribute__((always_inline)) static inline void sb_prefix(struct sb *b, struct rt_fmt_cache *c, const struct rt_pkt *p)
{
	if (!c || p->ip_version != 4) { /* IPv6 beginnings are too long for the memo */
		sb_prefix_text(b, c, p);
		return;
	}
	uint32_t s4, d4;
	memcpy(&s4, p->src, 4);
	memcpy(&d4, p->dst, 4);
	uint64_t k0 = s4 | (uint64_t)d4 << 32;
	uint64_t k1 = (uint64_t)p->bth.opcode | (uint64_t)p->bth.dqpn << 32;
	if (p->nvlans)
		k1 |= 1u << 8 | (uint64_t)(p->vlan_tci[0] & 0xFFF) << 9;
	uint64_t h = (k0 ^ k1 * 0x9E3779B97F4A7C15ull) * 0xFF51AFD7ED558CCDull;
	/* two ways per set: the newest beginning in the first, the one it displaced in the second */
	struct rt_fmt_prefix *e = &c->prefix[(h >> 32) % (RT_FMT_PREFIX_SLOTS / 2) * 2];
	for (int way = 0; way < 2; way++)
		if (e[way].len && e[way].key[0] == k0 && e[way].key[1] == k1) {
			sb_padded(b, e[way].text, e[way].len, sizeof(e[way].text));
			return;
		}
	char *start = b->p;
	sb_prefix_text(b, c, p);
	size_t n = (size_t)(b->p - start);
	if (!b->overflow && n <= sizeof(e->text)) {
		e[1] = e[0];
		memcpy(e->text, start, n);
		e->len = (uint8_t)n;
		e->key[0] = k0;
		e->key[1] = k1;
	}
}

size_t rt_pkt_format_line(const struct rt_pkt *p, const struct rt_fmt_ctx *ctx, char *buf, size_t len)
{
	if (!len || !p || !ctx)
		return 0;
	struct sb b = { buf, buf + len - 1, 0 };
	sb_frame(&b, ctx->cache, ctx->frame);
	sb_ch(&b, ' ');
	sb_time(&b, ctx);
	sb_ch(&b, ' ');
	sb_prefix(&b, ctx->cache, p);
	sb_u64(&b, p->bth.psn);
	if (p->bth.ackreq)
		sb_lit(&b, " A");
	if (p->bth.se)
		sb_lit(&b, " SE");
	if (p->bth.fecn)
		sb_lit(&b, " FECN");
	if (p->bth.becn)
		sb_lit(&b, " BECN");
	if ((p->tos & 3) == 3)
		sb_lit(&b, " CE");
	unsigned h = p->hdrs;
	if (h & RT_HDR_AETH) {
		sb_ch(&b, ' ');
		sb_aeth(&b, &p->aeth);
		sb_lit(&b, " MSN ");
		sb_u64(&b, p->aeth.msn);
	}
	if (h & RT_HDR_RETH) {
		sb_lit(&b, " va ");
		sb_hex(&b, p->reth.va, 1);
		sb_lit(&b, " rkey ");
		sb_hex(&b, p->reth.rkey, 8);
		sb_lit(&b, " dmalen ");
		sb_u64(&b, p->reth.dmalen);
	}
	if (h & RT_HDR_ATOMICETH) {
		sb_lit(&b, " va ");
		sb_hex(&b, p->atomic.va, 1);
		sb_lit(&b, " rkey ");
		sb_hex(&b, p->atomic.rkey, 8);
		sb_str(&b, p->bth.opcode == RT_OP_RC_COMPARE_SWAP ? " swap " : " add ");
		sb_hex(&b, p->atomic.swap_add, 1);
		if (p->bth.opcode == RT_OP_RC_COMPARE_SWAP) {
			sb_lit(&b, " compare ");
			sb_hex(&b, p->atomic.compare, 1);
		}
	}
	if (h & RT_HDR_ATOMICACKETH) {
		sb_lit(&b, " orig ");
		sb_hex(&b, p->atomic_ack_orig, 1);
	}
	if (h & RT_HDR_IMMDT) {
		sb_lit(&b, " imm ");
		sb_hex(&b, p->immdt, 8);
	}
	if (h & RT_HDR_IETH) {
		sb_lit(&b, " inv_rkey ");
		sb_hex(&b, p->ieth_rkey, 8);
	}
	if (h & RT_HDR_DETH) {
		sb_lit(&b, " qkey ");
		sb_hex(&b, p->deth.qkey, 8);
		sb_lit(&b, " srcqp ");
		sb_hex(&b, p->deth.src_qpn, 6);
	}
	if (h & RT_HDR_FETH) {
		sb_lit(&b, " feth ");
		sb_hex(&b, p->feth, 8);
	}
	if (p->flags & RT_PKT_CM)
		sb_cm_line(&b, p);
	else if (!p->op || (p->op->headers & RT_HDR_PAYLOAD)) {
		sb_lit(&b, " len ");
		sb_u64(&b, p->payload_len);
	}
	sb_icrc_line(&b, p);
	if (p->flags & RT_PKT_TRUNCATED)
		sb_lit(&b, " TRUNCATED");
	if (p->flags & RT_PKT_MALFORMED) {
		sb_lit(&b, " MALFORMED (");
		sb_str(&b, rt_malformed_name(p->malformed));
		sb_ch(&b, ')');
	}
	sb_ch(&b, '\n');
	return sb_done(&b, buf);
}

/* ---- JSON ---- */

static void js_key(struct sb *b, const char *k)
{
	sb_lit(b, ",\"");
	sb_str(b, k);
	sb_lit(b, "\":");
}

static void js_u(struct sb *b, const char *k, uint64_t v)
{
	js_key(b, k);
	sb_u64(b, v);
}

static void js_bool(struct sb *b, const char *k, int v)
{
	js_key(b, k);
	sb_str(b, v ? "true" : "false");
}

/* Strings here come from our own tables and addresses: no escaping needed. */
static void js_s(struct sb *b, const char *k, const char *v)
{
	js_key(b, k);
	sb_ch(b, '"');
	sb_str(b, v);
	sb_ch(b, '"');
}

static void js_hex(struct sb *b, const char *k, uint64_t v, int width)
{
	js_key(b, k);
	sb_ch(b, '"');
	sb_hex(b, v, width);
	sb_ch(b, '"');
}

static void js_ip(struct sb *b, const char *k, unsigned version, const uint8_t *a)
{
	js_key(b, k);
	sb_ch(b, '"');
	sb_ip(b, version, a);
	sb_ch(b, '"');
}

/* Objects nested inside the top level start with '{' and a first key without a comma. */
static void js_open(struct sb *b, const char *k)
{
	js_key(b, k);
	sb_ch(b, '{');
}

static void js_first_u(struct sb *b, const char *k, uint64_t v)
{
	sb_ch(b, '"');
	sb_str(b, k);
	sb_lit(b, "\":");
	sb_u64(b, v);
}

static void js_first_hex(struct sb *b, const char *k, uint64_t v, int width)
{
	sb_ch(b, '"');
	sb_str(b, k);
	sb_lit(b, "\":\"");
	sb_hex(b, v, width);
	sb_ch(b, '"');
}

/* "rdma_cm":{...} from the RDMA CM header, when there is one */
static void js_cma_hdr(struct sb *b, const struct rt_cm *cm)
{
	if (!cm->has_cma_hdr)
		return;
	unsigned v = cm->cma_ip_version;
	js_open(b, "rdma_cm");
	js_first_u(b, "ip_version", v);
	js_u(b, "src_port", cm->cma_src_port);
	js_ip(b, "src", v, v == 4 ? cm->cma_src_ip + 12 : cm->cma_src_ip);
	js_ip(b, "dst", v, v == 4 ? cm->cma_dst_ip + 12 : cm->cma_dst_ip);
	sb_ch(b, '}');
}

static void js_cm(struct sb *b, const struct rt_cm *cm)
{
	js_open(b, "cm");
	sb_lit(b, "\"msg\":\"");
	sb_str(b, cm_name(cm->attr_id));
	sb_ch(b, '"');
	js_hex(b, "attr_id", cm->attr_id, 4);
	js_hex(b, "local_comm_id", cm->local_comm_id, 8);
	js_hex(b, "remote_comm_id", cm->remote_comm_id, 8);
	if (cm->attr_id == RT_CM_REQ || cm->attr_id == RT_CM_REP) {
		js_u(b, "local_qpn", cm->local_qpn);
		js_u(b, "starting_psn", cm->starting_psn);
		js_hex(b, "local_qkey", cm->local_qkey, 8);
		js_hex(b, "local_ca_guid", cm->local_ca_guid, 16);
		js_u(b, "responder_resources", cm->responder_resources);
		js_u(b, "initiator_depth", cm->initiator_depth);
		js_u(b, "rnr_retry_count", cm->rnr_retry_count);
		js_bool(b, "srq", cm->srq);
		js_bool(b, "e2e_flow_control", cm->e2e_flow_control);
	}
	if (cm->attr_id == RT_CM_REQ || cm->attr_id == RT_CM_SIDR_REQ || cm->attr_id == RT_CM_SIDR_REP) {
		js_hex(b, "service_id", cm->service_id, 16);
		if (cm->ip_service) {
			const char *ps = rt_port_space_name(cm->port_space);
			js_hex(b, "port_space", cm->port_space, 4);
			if (ps)
				js_s(b, "port_space_name", ps);
			js_u(b, "port", cm->port);
		}
	}
	if (cm->attr_id == RT_CM_SIDR_REQ)
		js_cma_hdr(b, cm);
	if (cm->attr_id == RT_CM_SIDR_REP) {
		js_u(b, "status", cm->sidr_status);
		js_u(b, "qpn", cm->local_qpn);
		js_hex(b, "qkey", cm->local_qkey, 8);
	}
	if (cm->attr_id == RT_CM_REQ) {
		js_u(b, "transport_type", cm->transport_type);
		js_u(b, "retry_count", cm->retry_count);
		js_u(b, "path_mtu", rt_mtu_bytes(cm->path_mtu));
		js_u(b, "local_ack_timeout", cm->prim_local_ack_timeout);
		js_u(b, "remote_cm_timeout", cm->remote_cm_timeout);
		js_u(b, "local_cm_timeout", cm->local_cm_timeout);
		js_u(b, "max_cm_retries", cm->max_cm_retries);
		js_hex(b, "pkey", cm->pkey, 4);
		js_ip(b, "local_gid", 6, cm->prim_local_gid);
		js_ip(b, "remote_gid", 6, cm->prim_remote_gid);
		js_u(b, "traffic_class", cm->prim_traffic_class);
		js_u(b, "hop_limit", cm->prim_hop_limit);
		js_u(b, "sl", cm->prim_sl);
		js_cma_hdr(b, cm);
	}
	if (cm->attr_id == RT_CM_REP) {
		js_u(b, "target_ack_delay", cm->target_ack_delay);
		js_u(b, "failover_accepted", cm->failover_accepted);
	}
	if (cm->attr_id == RT_CM_REJ) {
		const char *why = rt_cm_reject_reason_name(cm->reason);
		js_u(b, "reason", cm->reason);
		if (why)
			js_s(b, "reason_name", why);
		js_u(b, "msg_rejected", cm->msg_rejected);
		js_u(b, "reject_info_len", cm->reject_info_len);
	}
	if (cm->attr_id == RT_CM_MRA) {
		js_u(b, "msg_mraed", cm->msg_mraed);
		js_u(b, "service_timeout", cm->service_timeout);
	}
	if (cm->attr_id == RT_CM_DREQ)
		js_u(b, "remote_qpn", cm->remote_qpn);
	if (cm->private_len) {
		js_u(b, "private_off", cm->private_off);
		js_u(b, "private_len", cm->private_len);
		js_u(b, "user_private_off", cm->user_private_off);
		js_u(b, "user_private_len", cm->user_private_len);
	}
	sb_ch(b, '}');
}

size_t rt_pkt_format_json(const struct rt_pkt *p, const struct rt_fmt_ctx *ctx, char *buf, size_t len)
{
	if (!len || !p || !ctx)
		return 0;
	struct sb b = { buf, buf + len - 1, 0 };
	sb_ch(&b, '{');
	js_first_u(&b, "frame", ctx->frame);
	js_u(&b, "ts_ns", ctx->ts_ns);
	js_u(&b, "caplen", p->caplen);
	js_u(&b, "wirelen", p->wirelen);
	if (p->nvlans) {
		js_key(&b, "vlan");
		sb_ch(&b, '[');
		for (unsigned i = 0; i < p->nvlans && i < 2; i++) {
			if (i)
				sb_ch(&b, ',');
			sb_u64(&b, p->vlan_tci[i] & 0xFFF);
		}
		sb_ch(&b, ']');
	}
	js_u(&b, "ip_version", p->ip_version);
	js_ip(&b, "src", p->ip_version, p->src);
	js_ip(&b, "dst", p->ip_version, p->dst);
	js_u(&b, "dscp", p->tos >> 2);
	js_u(&b, "ecn", p->tos & 3);
	js_u(&b, "ttl", p->ttl);
	js_u(&b, "sport", p->sport);
	js_u(&b, "dport", p->dport);
	js_u(&b, "udp_len", p->udp_len);
	js_u(&b, "opcode", p->bth.opcode);
	js_s(&b, "op", p->op ? p->op->symbol : "UNKNOWN");
	js_u(&b, "qp", p->bth.dqpn);
	js_u(&b, "psn", p->bth.psn);
	js_bool(&b, "ackreq", p->bth.ackreq);
	js_bool(&b, "se", p->bth.se);
	js_bool(&b, "mig", p->bth.mig);
	js_bool(&b, "fecn", p->bth.fecn);
	js_bool(&b, "becn", p->bth.becn);
	js_u(&b, "pad", p->bth.pad);
	js_u(&b, "tver", p->bth.tver);
	js_hex(&b, "pkey", p->bth.pkey, 4);
	js_u(&b, "payload_len", p->payload_len);
	unsigned h = p->hdrs;
	if (h & RT_HDR_RETH) {
		js_open(&b, "reth");
		js_first_hex(&b, "va", p->reth.va, 16);
		js_hex(&b, "rkey", p->reth.rkey, 8);
		js_u(&b, "dmalen", p->reth.dmalen);
		sb_ch(&b, '}');
	}
	if (h & RT_HDR_AETH) {
		static const char *const types[] = { "ACK", "RNR_NAK", "RESERVED", "NAK" };
		js_open(&b, "aeth");
		js_first_hex(&b, "syndrome", p->aeth.syndrome, 2);
		js_s(&b, "type", types[p->aeth.type & 3]);
		js_u(&b, "value", p->aeth.value);
		js_u(&b, "msn", p->aeth.msn);
		if (p->aeth.type == RT_AETH_RNR_NAK)
			js_u(&b, "rnr_timer_us", p->aeth.rnr_us);
		js_key(&b, "text");
		sb_ch(&b, '"');
		sb_aeth(&b, &p->aeth);
		sb_ch(&b, '"');
		sb_ch(&b, '}');
	}
	if (h & RT_HDR_ATOMICETH) {
		js_open(&b, "atomiceth");
		js_first_hex(&b, "va", p->atomic.va, 16);
		js_hex(&b, "rkey", p->atomic.rkey, 8);
		js_hex(&b, "swap_add", p->atomic.swap_add, 16);
		js_hex(&b, "compare", p->atomic.compare, 16);
		sb_ch(&b, '}');
	}
	if (h & RT_HDR_ATOMICACKETH)
		js_hex(&b, "atomic_ack_orig", p->atomic_ack_orig, 16);
	if (h & RT_HDR_IMMDT)
		js_hex(&b, "imm", p->immdt, 8);
	if (h & RT_HDR_IETH)
		js_hex(&b, "inv_rkey", p->ieth_rkey, 8);
	if (h & RT_HDR_DETH) {
		js_open(&b, "deth");
		js_first_hex(&b, "qkey", p->deth.qkey, 8);
		js_u(&b, "src_qp", p->deth.src_qpn);
		sb_ch(&b, '}');
	}
	if (h & RT_HDR_FETH)
		js_hex(&b, "feth", p->feth, 8);
	if (p->flags & RT_PKT_CM)
		js_cm(&b, &p->cm);
	js_open(&b, "icrc");
	sb_lit(&b, "\"status\":\"");
	sb_str(&b, rt_icrc_status_name(p->icrc_status));
	sb_ch(&b, '"');
	if (p->icrc_status != RT_ICRC_UNVERIFIED || p->icrc_reason != RT_ICRC_WHY_TRUNCATED)
		js_hex(&b, "wire", p->icrc_wire, 8);
	if (p->icrc_status != RT_ICRC_UNVERIFIED)
		js_hex(&b, "expected", p->icrc_calc, 8);
	else
		js_s(&b, "reason", rt_icrc_reason_name(p->icrc_reason));
	sb_ch(&b, '}');
	js_bool(&b, "truncated", (p->flags & RT_PKT_TRUNCATED) != 0);
	if (p->flags & RT_PKT_MALFORMED)
		js_s(&b, "malformed", rt_malformed_name(p->malformed));
	sb_lit(&b, "}\n");
	return sb_done(&b, buf);
}

/*
 * Our own pcap and pcapng parser, over a caller's buffer or a regular file
 * read through a reused window (capfile_window.c): records are handed out
 * in place (no copy of their own), which is what lets `rdmatrace packets`
 * run at the speed of the decoder.  Every length read
 * from the file is checked against what remains before it is used.
 *
 * pcap:   24-byte header (magic a1b2c3d4 microseconds / a1b23c4d
 *         nanoseconds, either byte order), then 16-byte record headers.
 * pcapng: blocks of (type, length, body, length); SHB starts a section and
 *         fixes its byte order; IDBs declare interfaces (link type, snap
 *         length, if_tsresol, if_tsoffset); EPB, SPB and the obsolete
 *         packet block carry packets; ISBs give the capture's own counters
 *         (rt_capfile_stats); every other block is skipped.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "capfile_impl.h"
#include "cursor.h"

#define PCAP_MAGIC_US 0xA1B2C3D4u
#define PCAP_MAGIC_NS 0xA1B23C4Du
#define PCAPNG_SHB 0x0A0D0D0Au
#define PCAPNG_IDB 0x00000001u
#define PCAPNG_OPB 0x00000002u
#define PCAPNG_SPB 0x00000003u
#define PCAPNG_ISB 0x00000005u
#define PCAPNG_EPB 0x00000006u
#define PCAPNG_BOM 0x1A2B3C4Du
#define MAX_RECORD (256u * 1024u * 1024u) /* a block or record larger than this is damage */
#define MAX_IFACES 65536u

int capfile_fail(struct rt_capfile *f, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->err, sizeof(f->err), fmt, ap);
	va_end(ap);
	f->status = -code;
	return -code;
}

static inline uint32_t bswap32_(uint32_t v)
{
	return __builtin_bswap32(v);
}

static inline uint32_t rd32(const struct rt_capfile *f, const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return f->swapped ? bswap32_(v) : v;
}

static inline uint16_t rd16(const struct rt_capfile *f, const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return f->swapped ? __builtin_bswap16(v) : v;
}

bool capfile_parse_recognises(const uint8_t *p, size_t len)
{
	if (len < 4)
		return false;
	uint32_t le = le32(p), be = rt_get_be32(p);
	return le == PCAP_MAGIC_US || le == PCAP_MAGIC_NS || be == PCAP_MAGIC_US || be == PCAP_MAGIC_NS ||
	       le == PCAPNG_SHB;
}

static int start_pcap(struct rt_capfile *f)
{
	size_t left = capfile_left(f, 24);
	if (left < 24)
		return capfile_fail(f, EBADMSG, "pcap file header truncated (%zu of 24 bytes)", left);
	const uint8_t *h = capfile_at(f, 24);
	if (!h)
		return f->status;
	uint32_t m;
	memcpy(&m, h, 4);
	if (m == PCAP_MAGIC_US || m == PCAP_MAGIC_NS) {
		f->swapped = false;
	} else {
		f->swapped = true;
		m = bswap32_(m);
	}
	f->nano = m == PCAP_MAGIC_NS;
	uint16_t major = rd16(f, h + 4);
	if (major != 2)
		return capfile_fail(f, EBADMSG, "pcap version %u is not supported", major);
	f->snaplen = rd32(f, h + 16);
	f->linktype = (uint16_t)(rd32(f, h + 20) & 0xFFFF);
	f->pos = 24;
	return 0;
}

static int next_pcap(struct rt_capfile *f, struct rt_caprec *rec)
{
	size_t left = capfile_left(f, 16);
	if (left == 0)
		return f->status = 1, 0;
	if (left < 16)
		return capfile_fail(f, EBADMSG, "truncated record header at offset %zu (%zu of 16 bytes) after frame %llu",
				    f->pos, left, (unsigned long long)f->frame);
	const uint8_t *h = capfile_at(f, 16);
	if (!h)
		return f->status;
	uint32_t sec = rd32(f, h), frac = rd32(f, h + 4);
	uint32_t incl = rd32(f, h + 8), orig = rd32(f, h + 12);
	uint32_t limit = f->snaplen > 262144 ? (f->snaplen < MAX_RECORD ? f->snaplen : MAX_RECORD) : 262144;
	if (incl > limit)
		return capfile_fail(f, EBADMSG, "record at offset %zu claims %u captured bytes (limit %u): file damaged",
				    f->pos, incl, limit);
	left = capfile_left(f, 16 + (size_t)incl);
	if (left - 16 < incl)
		return capfile_fail(f, EBADMSG, "truncated packet data at offset %zu (%zu of %u bytes) in frame %llu",
				    f->pos, left - 16, incl, (unsigned long long)f->frame + 1);
	if (!(h = capfile_at(f, 16 + (size_t)incl)))
		return f->status;
	rec->data = h + 16;
	rec->caplen = incl;
	rec->wirelen = orig < incl ? incl : orig;
	rec->ts_ns = (uint64_t)sec * 1000000000u + (f->nano ? frac : (uint64_t)frac * 1000u);
	rec->frame = ++f->frame;
	rec->linktype = f->linktype;
	rec->ifindex = 0;
	rec->comment = NULL;
	rec->comment_len = 0;
	f->pos += 16 + (size_t)incl;
	return 1;
}

/* pcapng: the block at f->pos, checked; returns its type, body and body length. */
static int pcapng_block(struct rt_capfile *f, uint32_t *type, const uint8_t **body, uint32_t *body_len)
{
	size_t left = capfile_left(f, 12);
	if (left < 12)
		return capfile_fail(f, EBADMSG, "truncated block header at offset %zu (%zu bytes left) after frame %llu",
				    f->pos, left, (unsigned long long)f->frame);
	const uint8_t *b = capfile_at(f, 12);
	if (!b)
		return f->status;
	uint32_t t;
	memcpy(&t, b, 4);
	if (t == PCAPNG_SHB) {
		/* A new section: its byte-order magic decides how to read it. */
		uint32_t bom;
		memcpy(&bom, b + 8, 4);
		if (bom == PCAPNG_BOM)
			f->swapped = false;
		else if (bswap32_(bom) == PCAPNG_BOM)
			f->swapped = true;
		else
			return capfile_fail(f, EBADMSG, "section header at offset %zu has a bad byte-order magic", f->pos);
		for (unsigned i = 0; i < f->nifs; i++)
			capfile_stats_add(&f->isb_done, &f->ifs[i].isb);
		f->nifs = 0;
	}
	*type = f->swapped ? bswap32_(t) : t;
	uint32_t total = rd32(f, b + 4);
	if (total < 12 || total % 4 != 0 || total > MAX_RECORD)
		return capfile_fail(f, EBADMSG, "block at offset %zu has an impossible length %u: file damaged", f->pos, total);
	if ((left = capfile_left(f, total)) < total)
		return capfile_fail(f, EBADMSG, "truncated block at offset %zu (%zu of %u bytes) after frame %llu",
				    f->pos, left, total, (unsigned long long)f->frame);
	if (!(b = capfile_at(f, total)))
		return f->status;
	if (rd32(f, b + total - 4) != total)
		return capfile_fail(f, EBADMSG, "block at offset %zu: trailing length differs from %u: file damaged",
				    f->pos, total);
	*body = b + 8;
	*body_len = total - 12;
	f->pos += total;
	return 0;
}

/* Walk options [p, end); calls back for each (code, value, len). */
static void pcapng_options(const struct rt_capfile *f, const uint8_t *p, const uint8_t *end,
			   void (*fn)(void *ctx, uint16_t code, const uint8_t *v, uint16_t len), void *ctx)
{
	struct cur c = { p, end };
	for (;;) {
		const uint8_t *h = cur_take(&c, 4);
		if (!h)
			return;
		uint16_t code = rd16(f, h), len = rd16(f, h + 2);
		if (code == 0)
			return;
		const uint8_t *v = cur_take(&c, ((size_t)len + 3) & ~(size_t)3);
		if (!v) {
			/* the last option may lack its padding */
			if (cur_left(&c) >= len)
				fn(ctx, code, c.p, len);
			return;
		}
		fn(ctx, code, v, len);
	}
}

struct idb_opts {
	const struct rt_capfile *f;
	struct capfile_iface *ifc;
};

static void idb_option(void *ctx, uint16_t code, const uint8_t *v, uint16_t len)
{
	struct idb_opts *o = ctx;
	if (code == 9 && len >= 1) { /* if_tsresol */
		unsigned n = v[0] & 0x7F;
		o->ifc->mul = o->ifc->div = 0;
		o->ifc->shift = 0;
		if (v[0] & 0x80) {
			o->ifc->shift = (uint8_t)(n > 63 ? 63 : n);
		} else if (n <= 9) {
			uint64_t m = 1;
			for (unsigned i = n; i < 9; i++)
				m *= 10;
			o->ifc->mul = m;
		} else {
			uint64_t d = 1;
			for (unsigned i = 9; i < n && i < 28; i++)
				d = d > UINT64_MAX / 10 ? UINT64_MAX : d * 10;
			o->ifc->div = d;
		}
	} else if (code == 14 && len >= 8) { /* if_tsoffset, seconds */
		uint64_t raw;
		memcpy(&raw, v, 8);
		o->ifc->offset_s = (int64_t)(o->f->swapped ? __builtin_bswap64(raw) : raw);
	}
}

static int pcapng_idb(struct rt_capfile *f, const uint8_t *body, uint32_t len)
{
	if (len < 8)
		return capfile_fail(f, EBADMSG, "interface description block too short (%u bytes)", len);
	if (f->nifs >= MAX_IFACES)
		return capfile_fail(f, EBADMSG, "more than %u interfaces in one section", MAX_IFACES);
	if (f->nifs == f->cap_ifs) {
		unsigned cap = f->cap_ifs ? f->cap_ifs * 2 : 4;
		struct capfile_iface *n = realloc(f->ifs, cap * sizeof(*n));
		if (!n)
			return capfile_fail(f, ENOMEM, "out of memory");
		f->ifs = n;
		f->cap_ifs = cap;
	}
	struct capfile_iface *ifc = &f->ifs[f->nifs];
	memset(ifc, 0, sizeof(*ifc));
	ifc->linktype = rd16(f, body);
	ifc->snaplen = rd32(f, body + 4);
	ifc->mul = 1000; /* default resolution: microseconds */
	struct idb_opts o = { f, ifc };
	pcapng_options(f, body + 8, body + len, idb_option, &o);
	if (f->nifs == 0)
		f->linktype = ifc->linktype;
	f->nifs++;
	return 0;
}

static uint64_t iface_ns(const struct capfile_iface *ifc, uint64_t ts)
{
	uint64_t ns;
	if (ifc->mul)
		ns = ts * ifc->mul;
	else if (ifc->div)
		ns = ts / ifc->div;
	else
		ns = (uint64_t)(((unsigned __int128)ts * 1000000000u) >> ifc->shift);
	return ns + (uint64_t)ifc->offset_s * 1000000000u;
}

struct epb_opts {
	struct rt_caprec *rec;
};

static void epb_option(void *ctx, uint16_t code, const uint8_t *v, uint16_t len)
{
	struct epb_opts *o = ctx;
	if (code == 1 && !o->rec->comment) { /* opt_comment */
		o->rec->comment = (const char *)v;
		o->rec->comment_len = len;
	}
}

static int pcapng_packet(struct rt_capfile *f, uint32_t type, const uint8_t *body, uint32_t len,
			 struct rt_caprec *rec)
{
	uint32_t ifid, caplen, wirelen;
	uint64_t ts = 0;
	const uint8_t *data;
	size_t hdr;
	if (type == PCAPNG_SPB) {
		if (len < 4)
			return capfile_fail(f, EBADMSG, "simple packet block too short");
		ifid = 0;
		wirelen = rd32(f, body);
		hdr = 4;
		caplen = len - 4 < wirelen ? len - 4 : wirelen;
		if (f->nifs && f->ifs[0].snaplen && caplen > f->ifs[0].snaplen)
			caplen = f->ifs[0].snaplen;
	} else {
		if (len < 20)
			return capfile_fail(f, EBADMSG, "packet block at offset %zu too short (%u bytes)",
					    f->pos - len - 12, len);
		ifid = type == PCAPNG_EPB ? rd32(f, body) : rd16(f, body);
		ts = (uint64_t)rd32(f, body + 4) << 32 | rd32(f, body + 8);
		caplen = rd32(f, body + 12);
		wirelen = rd32(f, body + 16);
		hdr = 20;
		if (caplen > len - hdr)
			return capfile_fail(f, EBADMSG, "packet block at offset %zu claims %u captured bytes but holds %zu: file damaged",
					    f->pos - len - 12, caplen, len - hdr);
	}
	if (ifid >= f->nifs)
		return capfile_fail(f, EBADMSG, "packet block at offset %zu names interface %u, but the section has %u",
				    f->pos - len - 12, ifid, f->nifs);
	data = body + hdr;
	const struct capfile_iface *ifc = &f->ifs[ifid];
	rec->data = data;
	rec->caplen = caplen;
	rec->wirelen = wirelen < caplen ? caplen : wirelen;
	rec->ts_ns = type == PCAPNG_SPB ? 0 : iface_ns(ifc, ts);
	rec->frame = ++f->frame;
	rec->linktype = ifc->linktype;
	rec->ifindex = ifid;
	rec->comment = NULL;
	rec->comment_len = 0;
	if (type != PCAPNG_SPB) {
		size_t opt = hdr + (((size_t)caplen + 3) & ~(size_t)3);
		if (opt < len) {
			struct epb_opts o = { rec };
			pcapng_options(f, body + opt, body + len, epb_option, &o);
		}
	}
	return 1;
}

static void isb_option(void *ctx, uint16_t code, const uint8_t *v, uint16_t len)
{
	struct idb_opts *o = ctx;
	if (len != 8)
		return;
	uint64_t raw;
	memcpy(&raw, v, 8);
	uint64_t val = o->f->swapped ? __builtin_bswap64(raw) : raw;
	struct rt_capfile_stats *s = &o->ifc->isb;
	switch (code) {
	case 4: s->ifrecv = val, s->have |= RT_CAPSTAT_IFRECV; break;
	case 5: s->ifdrop = val, s->have |= RT_CAPSTAT_IFDROP; break;
	case 7: s->osdrop = val, s->have |= RT_CAPSTAT_OSDROP; break;
	case 8: s->usrdeliv = val, s->have |= RT_CAPSTAT_USRDELIV; break;
	default: break; /* start and end time, filter accepts: not needed */
	}
}

/* An interface statistics block: its counters run from the start of the
 * capture, so the interface's last block replaces the ones before it. */
static int pcapng_isb(struct rt_capfile *f, const uint8_t *body, uint32_t len)
{
	if (len < 12)
		return capfile_fail(f, EBADMSG, "interface statistics block at offset %zu too short (%u bytes)",
				    f->pos - len - 12, len);
	uint32_t ifid = rd32(f, body);
	if (ifid >= f->nifs)
		return capfile_fail(f, EBADMSG, "interface statistics block at offset %zu names interface %u, but the section has %u",
				    f->pos - len - 12, ifid, f->nifs);
	struct capfile_iface *ifc = &f->ifs[ifid];
	memset(&ifc->isb, 0, sizeof(ifc->isb));
	ifc->isb.blocks = 1;
	struct idb_opts o = { f, ifc };
	pcapng_options(f, body + 12, body + len, isb_option, &o);
	return 0;
}

static int next_pcapng(struct rt_capfile *f, struct rt_caprec *rec)
{
	for (;;) {
		if (capfile_left(f, 1) == 0)
			return f->status = 1, 0;
		uint32_t type = 0, len = 0;
		const uint8_t *body = NULL;
		int rc = pcapng_block(f, &type, &body, &len);
		if (rc < 0)
			return rc;
		switch (type) {
		case PCAPNG_SHB:
			if (len < 16)
				return capfile_fail(f, EBADMSG, "section header block too short");
			if (rd16(f, body + 4) != 1)
				return capfile_fail(f, EBADMSG, "pcapng major version %u is not supported", rd16(f, body + 4));
			break;
		case PCAPNG_IDB:
			if ((rc = pcapng_idb(f, body, len)) < 0)
				return rc;
			break;
		case PCAPNG_ISB:
			if ((rc = pcapng_isb(f, body, len)) < 0)
				return rc;
			break;
		case PCAPNG_EPB:
		case PCAPNG_SPB:
		case PCAPNG_OPB:
			return pcapng_packet(f, type, body, len, rec);
		default:
			break; /* name resolution, custom ...: not needed */
		}
	}
}

int capfile_parse_start(struct rt_capfile *f)
{
	size_t left = capfile_left(f, 28);
	if (left < 4)
		return capfile_fail(f, EBADMSG, "file too short to be a capture (%zu bytes)", left);
	const uint8_t *h = capfile_at(f, 4);
	if (!h)
		return f->status;
	if (le32(h) == PCAPNG_SHB) {
		f->pcapng = true;
		f->pos = 0;
		/* The first block must be a section header: check it now so a
		 * wrong file fails at open, not at the first read. */
		if (left < 28)
			return capfile_fail(f, EBADMSG, "pcapng section header truncated (%zu bytes)", left);
		return 0;
	}
	if (!capfile_parse_recognises(h, 4))
		return capfile_fail(f, EINVAL, "not a pcap or pcapng file");
	return start_pcap(f);
}

int capfile_parse_next(struct rt_capfile *f, struct rt_caprec *rec)
{
	return f->pcapng ? next_pcapng(f, rec) : next_pcap(f, rec);
}

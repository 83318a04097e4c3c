/*
 * The pcapng writer of include/rdmatrace/pcapng_write.h.  Blocks are built
 * in host byte order (the section's byte-order magic says which), each one
 * complete before it reaches stdio, so a file cut short by a crash ends at
 * a block boundary.  Write errors are remembered and reported at close.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "rdmatrace/capfile.h"
#include "rdmatrace/pcapng_write.h"

#define BT_SHB 0x0A0D0D0Au
#define BT_IDB 0x00000001u
#define BT_EPB 0x00000006u
#define BT_ISB 0x00000005u
#define MAX_IFACES 64

struct rt_pcapng_writer {
	FILE *f;
	bool own;
	int error;                /* first errno seen */
	uint32_t nifs;
	uint16_t if_linktype[MAX_IFACES];
	uint8_t *buf;             /* block under construction */
	size_t len, cap;
};

static int reserve(struct rt_pcapng_writer *w, size_t more)
{
	if (w->len + more <= w->cap)
		return 0;
	size_t cap = w->cap ? w->cap : 4096;
	while (cap < w->len + more)
		cap *= 2;
	uint8_t *n = realloc(w->buf, cap);
	if (!n)
		return -ENOMEM;
	w->buf = n;
	w->cap = cap;
	return 0;
}

static void put(struct rt_pcapng_writer *w, const void *p, size_t n)
{
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

static void put32(struct rt_pcapng_writer *w, uint32_t v)
{
	put(w, &v, 4);
}

static void put16(struct rt_pcapng_writer *w, uint16_t v)
{
	put(w, &v, 2);
}

static void pad4(struct rt_pcapng_writer *w)
{
	static const uint8_t zero[4];
	put(w, zero, (4 - (w->len & 3)) & 3);
}

/* Start a block: type and a length patched by end_block(). */
static int begin_block(struct rt_pcapng_writer *w, uint32_t type, size_t body_max)
{
	w->len = 0;
	if (reserve(w, 12 + body_max + 4) < 0)
		return -ENOMEM;
	put32(w, type);
	put32(w, 0);
	return 0;
}

/* An option (code, value) with its padding; values longer than 65535 are cut. */
static void put_option(struct rt_pcapng_writer *w, uint16_t code, const void *v, size_t n)
{
	if (n > 0xFFFF)
		n = 0xFFFF;
	put16(w, code);
	put16(w, (uint16_t)n);
	put(w, v, n);
	pad4(w);
}

static size_t opt_size(size_t n)
{
	if (n > 0xFFFF)
		n = 0xFFFF;
	return 4 + ((n + 3) & ~(size_t)3);
}

static int end_block(struct rt_pcapng_writer *w)
{
	uint32_t total = (uint32_t)(w->len + 4);
	memcpy(w->buf + 4, &total, 4);
	put32(w, total);
	if (w->error)
		return -w->error;
	if (fwrite(w->buf, 1, w->len, w->f) != w->len) {
		w->error = errno ? errno : EIO;
		return -w->error;
	}
	return 0;
}

static int write_shb(struct rt_pcapng_writer *w, const struct rt_pcapng_opts *opts)
{
	const char *comment = opts ? opts->comment : NULL;
	const char *app = opts && opts->application ? opts->application : "rdmatrace";
	const char *hw = opts ? opts->hardware : NULL;
	char osbuf[200] = "";
	const char *os = opts ? opts->os : NULL;
	if (!os) {
		struct utsname u;
		if (uname(&u) == 0) {
			snprintf(osbuf, sizeof(osbuf), "%s %s", u.sysname, u.release);
			os = osbuf;
		}
	}
	size_t body = 16 + 4;
	const char *strs[4] = { comment, hw, os, app };
	const uint16_t codes[4] = { 1, 2, 3, 4 };
	for (int i = 0; i < 4; i++)
		if (strs[i])
			body += opt_size(strlen(strs[i]));
	if (begin_block(w, BT_SHB, body) < 0)
		return -ENOMEM;
	put32(w, 0x1A2B3C4Du);
	put16(w, 1);
	put16(w, 0);
	uint64_t section_len = UINT64_MAX; /* unknown */
	put(w, &section_len, 8);
	for (int i = 0; i < 4; i++)
		if (strs[i])
			put_option(w, codes[i], strs[i], strlen(strs[i]));
	put32(w, 0); /* opt_endofopt */
	return end_block(w);
}

static int start(FILE *f, bool own, const struct rt_pcapng_opts *opts, struct rt_pcapng_writer **out, char *err,
		 size_t errlen)
{
	struct rt_pcapng_writer *w = calloc(1, sizeof(*w));
	if (!w) {
		if (own)
			fclose(f);
		if (err && errlen)
			snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	w->f = f;
	w->own = own;
	int rc = write_shb(w, opts);
	if (rc < 0) {
		if (err && errlen)
			snprintf(err, errlen, "writing the section header: %s", strerror(-rc));
		rt_pcapng_close(w, NULL, 0);
		return rc;
	}
	*out = w;
	return 0;
}

int rt_pcapng_open(const char *path, const struct rt_pcapng_opts *opts, struct rt_pcapng_writer **out, char *err,
		   size_t errlen)
{
	if (!path || !out)
		return -EINVAL;
	*out = NULL;
	if (strcmp(path, "-") == 0)
		return start(stdout, false, opts, out, err, errlen);
	FILE *f = fopen(path, "wb");
	if (!f) {
		int e = errno;
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	return start(f, true, opts, out, err, errlen);
}

int rt_pcapng_open_stream(FILE *stream, const struct rt_pcapng_opts *opts, struct rt_pcapng_writer **out,
			  char *err, size_t errlen)
{
	if (!stream || !out)
		return -EINVAL;
	*out = NULL;
	return start(stream, false, opts, out, err, errlen);
}

int rt_pcapng_interface(struct rt_pcapng_writer *w, uint16_t linktype, uint32_t snaplen, const char *name,
			uint32_t *if_id)
{
	if (!w)
		return -EINVAL;
	if (w->nifs >= MAX_IFACES)
		return -ENOSPC;
	size_t body = 8 + opt_size(1) + 4 + (name ? opt_size(strlen(name)) : 0);
	if (begin_block(w, BT_IDB, body) < 0)
		return -ENOMEM;
	put16(w, linktype);
	put16(w, 0);
	put32(w, snaplen);
	if (name)
		put_option(w, 2, name, strlen(name)); /* if_name */
	uint8_t resol = 9;                            /* nanoseconds */
	put_option(w, 9, &resol, 1);
	put32(w, 0);
	int rc = end_block(w);
	if (rc < 0)
		return rc;
	w->if_linktype[w->nifs] = linktype;
	if (if_id)
		*if_id = w->nifs;
	w->nifs++;
	return 0;
}

int rt_pcapng_interface_for(struct rt_pcapng_writer *w, uint16_t linktype, uint32_t *if_id)
{
	if (!w)
		return -EINVAL;
	for (uint32_t i = 0; i < w->nifs; i++)
		if (w->if_linktype[i] == linktype) {
			if (if_id)
				*if_id = i;
			return 0;
		}
	return rt_pcapng_interface(w, linktype, 262144, NULL, if_id);
}

int rt_pcapng_packet(struct rt_pcapng_writer *w, uint32_t if_id, uint64_t ts_ns, const void *data,
		     uint32_t caplen, uint32_t wirelen, const char *comment)
{
	if (!w || (!data && caplen) || if_id >= w->nifs)
		return -EINVAL;
	size_t clen = comment ? strlen(comment) : 0;
	size_t body = 20 + (((size_t)caplen + 3) & ~(size_t)3) + (comment ? opt_size(clen) + 4 : 0);
	if (begin_block(w, BT_EPB, body) < 0)
		return -ENOMEM;
	put32(w, if_id);
	put32(w, (uint32_t)(ts_ns >> 32));
	put32(w, (uint32_t)ts_ns);
	put32(w, caplen);
	put32(w, wirelen < caplen ? caplen : wirelen);
	if (caplen)
		put(w, data, caplen);
	pad4(w);
	if (comment) {
		put_option(w, 1, comment, clen);
		put32(w, 0);
	}
	return end_block(w);
}

int rt_pcapng_copy(struct rt_pcapng_writer *w, const struct rt_caprec *rec, const char *comment)
{
	if (!w || !rec)
		return -EINVAL;
	uint32_t ifc;
	int rc = rt_pcapng_interface_for(w, rec->linktype, &ifc);
	if (rc < 0)
		return rc;
	return rt_pcapng_packet(w, ifc, rec->ts_ns, rec->data, rec->caplen, rec->wirelen, comment);
}

static void put_u64_option(struct rt_pcapng_writer *w, uint16_t code, uint64_t v)
{
	put16(w, code);
	put16(w, 8);
	put(w, &v, 8);
}

static void put_ts_option(struct rt_pcapng_writer *w, uint16_t code, uint64_t ns)
{
	put16(w, code);
	put16(w, 8);
	put32(w, (uint32_t)(ns >> 32));
	put32(w, (uint32_t)ns);
}

int rt_pcapng_stats(struct rt_pcapng_writer *w, uint32_t if_id, const struct rt_pcapng_stats *st)
{
	if (!w || !st || if_id >= w->nifs)
		return -EINVAL;
	size_t clen = st->comment ? strlen(st->comment) : 0;
	size_t body = 12 + 6 * 12 + (st->comment ? opt_size(clen) : 0) + 4;
	if (begin_block(w, BT_ISB, body) < 0)
		return -ENOMEM;
	put32(w, if_id);
	put32(w, (uint32_t)(st->ts_ns >> 32));
	put32(w, (uint32_t)st->ts_ns);
	if (st->comment)
		put_option(w, 1, st->comment, clen);
	if (st->start_ns)
		put_ts_option(w, 2, st->start_ns); /* isb_starttime */
	if (st->end_ns)
		put_ts_option(w, 3, st->end_ns);   /* isb_endtime */
	put_u64_option(w, 4, st->ifrecv);
	put_u64_option(w, 5, st->ifdrop);
	put_u64_option(w, 7, st->osdrop);
	put_u64_option(w, 8, st->usrdeliv);
	put32(w, 0);
	return end_block(w);
}

int rt_pcapng_flush(struct rt_pcapng_writer *w)
{
	if (!w)
		return -EINVAL;
	if (!w->error && fflush(w->f) != 0)
		w->error = errno ? errno : EIO;
	return -w->error;
}

int rt_pcapng_close(struct rt_pcapng_writer *w, char *err, size_t errlen)
{
	if (!w)
		return 0;
	rt_pcapng_flush(w);
	if (w->own && fclose(w->f) != 0 && !w->error)
		w->error = errno ? errno : EIO;
	int rc = -w->error;
	if (rc < 0 && err && errlen)
		snprintf(err, errlen, "writing the capture: %s", strerror(w->error));
	free(w->buf);
	free(w);
	return rc;
}

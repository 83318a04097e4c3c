/*
 * gzip-compressed captures (capture.pcapng.gz, as Wireshark and tcpdump
 * users keep them): the whole stream is inflated into memory, where our
 * parser or libpcap reads it like any buffer.  Concatenated gzip members
 * (`cat a.gz b.gz`) are one stream.  A stream damaged or cut short keeps
 * what inflated before the damage, and says where the damage was, so that
 * the records before it are still read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "capfile_impl.h"

int rt_capfile_is_gzip(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	return len >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

/* Room for at least `more` bytes after `len` in *buf (capacity *cap). */
static int grow(uint8_t **buf, size_t *cap, size_t len, size_t more)
{
	if (*cap - len >= more)
		return 0;
	size_t want = *cap ? *cap : 1u << 16;
	while (want - len < more) {
		if (want > SIZE_MAX / 2)
			return -ENOMEM;
		want *= 2;
	}
	uint8_t *p = realloc(*buf, want);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = want;
	return 0;
}

int capfile_gunzip(const uint8_t *in, size_t in_len, uint8_t **out, size_t *out_len, char *why, size_t whylen)
{
	*out = NULL;
	*out_len = 0;
	why[0] = 0;
	size_t cap = 0, len = 0, used = 0;
	uint8_t *buf = NULL;
	int rc = 0;
	/* a first guess at the size: a capture inflates to a few times its gzip */
	size_t guess = in_len < (256u << 20) / 4 ? in_len * 4 : 256u << 20;
	if (grow(&buf, &cap, 0, guess + 4096) < 0) {
		snprintf(why, whylen, "gzip: out of memory inflating the capture");
		return -ENOMEM;
	}
	while (used < in_len && !rc) {
		z_stream z;
		memset(&z, 0, sizeof(z));
		if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) { /* 16: a gzip header, not zlib's */
			rc = -ENOMEM;
			break;
		}
		int zr = Z_OK;
		size_t member_start = used;
		while (zr == Z_OK) {
			if (grow(&buf, &cap, len, 1u << 16) < 0) {
				rc = -ENOMEM;
				break;
			}
			size_t avail_in = in_len - used;
			z.next_in = (Bytef *)(uintptr_t)(in + used);
			z.avail_in = avail_in > UINT32_MAX ? UINT32_MAX : (uInt)avail_in;
			size_t avail_out = cap - len;
			z.next_out = buf + len;
			z.avail_out = avail_out > UINT32_MAX ? UINT32_MAX : (uInt)avail_out;
			uInt in_before = z.avail_in, out_before = z.avail_out;
			zr = inflate(&z, Z_NO_FLUSH);
			used += in_before - z.avail_in;
			len += out_before - z.avail_out;
			bool progress = in_before != z.avail_in || out_before != z.avail_out;
			if (zr == Z_BUF_ERROR && progress)
				zr = Z_OK; /* (only no progress at all means the input ended) */
		}
		const char *msg = z.msg;
		inflateEnd(&z);
		if (rc)
			break;
		if (zr == Z_STREAM_END) {
			/* another member may follow; trailing zeros (padding) end it */
			while (used < in_len && in[used] == 0)
				used++;
			if (used < in_len && !rt_capfile_is_gzip(in + used, in_len - used)) {
				snprintf(why, whylen, "gzip: %zu bytes after the compressed data are not gzip; ignored",
					 in_len - used);
				rc = -EBADMSG;
			}
			continue;
		}
		if (zr == Z_MEM_ERROR) {
			rc = -ENOMEM;
			break;
		}
		/* damaged or cut short: what inflated so far is kept */
		if (zr == Z_BUF_ERROR)
			snprintf(why, whylen, "gzip: compressed data cut short (the member from byte %zu ends early)",
				 member_start);
		else
			snprintf(why, whylen, "gzip: compressed data damaged near byte %zu of %zu (%s)", used, in_len,
				 msg ? msg : zr == Z_DATA_ERROR ? "data error" : "inflate failed");
		rc = -EBADMSG;
	}
	if (rc == -ENOMEM) {
		free(buf);
		snprintf(why, whylen, "gzip: out of memory inflating the capture");
		return rc;
	}
	*out = buf;
	*out_len = len;
	return rc;
}

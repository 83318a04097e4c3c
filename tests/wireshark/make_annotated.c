/*
 * Makes annotated captures for the Wireshark plugin tests, in the format
 * `rdmatrace correlate` writes (docs/wireshark.md):
 *
 *   make_annotated copy IN OUT [FRAME=COMMENT ...]
 *       copies every frame of IN into pcapng OUT, adding COMMENT to the
 *       numbered frames ("\n" in COMMENT becomes a line break);
 *   make_annotated acks OUT
 *       writes a small RC exchange with an ACK, RNR NAKs (timer codes 0 and
 *       14), a NAK (remote access error) and a PSN sequence error NAK, no
 *       comments: what a capture from any other tool looks like.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "captures/synth.h"
#include "rdmatrace/capfile.h"
#include "rdmatrace/pcapng_write.h"

static char *unescape(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;
	if (!out)
		return NULL;
	for (; *s; s++) {
		if (s[0] == '\\' && s[1] == 'n') {
			*o++ = '\n';
			s++;
		} else {
			*o++ = *s;
		}
	}
	*o = 0;
	return out;
}

static int copy_with_comments(const char *in, const char *out, int nann, char **ann)
{
	char err[256];
	struct rt_capfile *f;
	struct rt_pcapng_writer *w;
	if (rt_capfile_open(in, RT_CAPFILE_AUTO, &f, err, sizeof(err)) != 0) {
		fprintf(stderr, "make_annotated: %s\n", err);
		return 1;
	}
	if (rt_pcapng_open(out, NULL, &w, err, sizeof(err)) != 0) {
		fprintf(stderr, "make_annotated: %s\n", err);
		rt_capfile_close(f);
		return 1;
	}
	struct rt_caprec rec;
	int rc = 0;
	while (rt_capfile_next(f, &rec) > 0) {
		char *comment = NULL;
		for (int i = 0; i < nann; i++) {
			char *eq = strchr(ann[i], '=');
			if (eq && strtoull(ann[i], NULL, 10) == rec.frame)
				comment = unescape(eq + 1);
		}
		uint32_t ifid;
		if (rt_pcapng_interface_for(w, rec.linktype, &ifid) != 0 ||
		    rt_pcapng_packet(w, ifid, rec.ts_ns, rec.data, rec.caplen, rec.wirelen, comment) != 0)
			rc = 1;
		free(comment);
	}
	if (rt_pcapng_close(w, err, sizeof(err)) != 0) {
		fprintf(stderr, "make_annotated: %s\n", err);
		rc = 1;
	}
	rt_capfile_close(f);
	return rc;
}

static int write_acks(const char *out)
{
	char err[256];
	struct rt_pcapng_writer *w;
	if (rt_pcapng_open(out, NULL, &w, err, sizeof(err)) != 0) {
		fprintf(stderr, "make_annotated: %s\n", err);
		return 1;
	}
	uint32_t ifid;
	rt_pcapng_interface(w, 1 /* Ethernet */, 262144, "synthetic", &ifid);
	static const uint8_t payload[64];
	struct {
		uint8_t opcode, syndrome;
		uint32_t psn;
		int to_requester;
	} pkts[] = {
		{ RT_OP_RC_SEND_ONLY, 0, 100, 0 },
		{ RT_OP_RC_ACKNOWLEDGE, 0x1F, 100, 1 },                 /* ACK */
		{ RT_OP_RC_SEND_ONLY, 0, 101, 0 },
		{ RT_OP_RC_ACKNOWLEDGE, 0x20, 101, 1 },                 /* RNR NAK, code 0: 655.36 ms */
		{ RT_OP_RC_SEND_ONLY, 0, 101, 0 },
		{ RT_OP_RC_ACKNOWLEDGE, 0x2E, 101, 1 },                 /* RNR NAK, code 14: 1.28 ms */
		{ RT_OP_RC_WRITE_ONLY, 0, 102, 0 },
		{ RT_OP_RC_ACKNOWLEDGE, 0x62, 102, 1 },                 /* NAK remote access error */
		{ RT_OP_RC_ACKNOWLEDGE, 0x60, 102, 1 },                 /* NAK PSN sequence error */
	};
	uint64_t ts = 1700000000000000000ull;
	for (size_t i = 0; i < sizeof(pkts) / sizeof(pkts[0]); i++) {
		struct synth s;
		memset(&s, 0, sizeof(s));
		s.ip_version = 4;
		uint8_t a[4] = { 10, 9, 0, 2 }, b[4] = { 10, 9, 0, 1 };
		memcpy(s.src, pkts[i].to_requester ? b : a, 4);
		memcpy(s.dst, pkts[i].to_requester ? a : b, 4);
		s.ttl = 64;
		s.sport = 0xC000 + 17;
		s.dport = RT_ROCE_UDP_PORT;
		s.opcode = pkts[i].opcode;
		s.ackreq = !pkts[i].to_requester;
		s.pkey = 0xFFFF;
		s.dqpn = pkts[i].to_requester ? 0x11 : 0x12;
		s.psn = pkts[i].psn;
		s.syndrome = pkts[i].syndrome;
		s.msn = (uint32_t)i;
		s.rkey = 0x1234;
		s.va = 0x10000;
		s.dmalen = sizeof(payload);
		if (!pkts[i].to_requester) {
			s.payload = payload;
			s.payload_len = sizeof(payload);
		}
		uint8_t frame[512];
		size_t len = synth_build(&s, frame);
		rt_pcapng_packet(w, ifid, ts + i * 1000000, frame, (uint32_t)len, (uint32_t)len, NULL);
	}
	return rt_pcapng_close(w, err, sizeof(err)) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[1], "copy") == 0)
		return copy_with_comments(argv[2], argv[3], argc - 4, argv + 4);
	if (argc == 3 && strcmp(argv[1], "acks") == 0)
		return write_acks(argv[2]);
	fprintf(stderr, "usage: make_annotated copy IN OUT [FRAME=COMMENT...] | acks OUT\n");
	return 2;
}

/*
 * Reads a classic pcap file of uroce traffic (dumpcap -F pcap on lo) and
 * checks every RoCEv2 packet (UDP to port 4791) with the shared decoder
 * pieces: the ICRC must equal rt_icrc_compute over the IP packet, and the
 * transport headers must parse.  Usage: t_capture_icrc FILE MIN_PACKETS
 * [MIN_IPID]: with MIN_IPID, at least that many IPv4 packets must carry a
 * non-zero IP identification (segments of UDP GSO sends do).
 *
 * With T_ICRC_GSO_START_MS=N, a frame whose ICRC fails is not counted as
 * bad when it is one GSO send captured whole (its UDP payload splits into
 * segments of the size of a packet the capture holds, each with its own
 * ICRC right for the IP identification the kernel gives it) within the
 * first N ms of the capture: a capture started during a transfer can get a
 * send made before its socket existed, because the kernel hands packets on
 * lo to captures when it receives them, which under load can be
 * milliseconds later (tests/uroce/test_uroce.sh); any later would mean
 * uroce did not notice the capture.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdmatrace/roce_build.h"
#include "rdmatrace/roce_wire.h"

/* Whether the IP packet ip (header hl bytes, UDP length udplen) is one GSO
 * send of segments of seg UDP payload bytes (the last may be shorter), each
 * with a right ICRC for IP identification k (IPv4: the k-th segment's; the
 * kernel numbers them from the send's). */
static int whole_gso_send(const uint8_t *ip, size_t hl, size_t udplen, size_t seg)
{
	static uint8_t b[65536 + 128];
	size_t total = udplen - 8;
	if (seg < RT_BTH_LEN + RT_ICRC_LEN || total <= seg || hl + 8 + seg > sizeof(b))
		return 0;
	unsigned id = (unsigned)(ip[4] << 8 | ip[5]);
	for (size_t off = 0, k = 0; off < total; off += seg, k++) {
		size_t len = total - off < seg ? total - off : seg;
		if (len < RT_BTH_LEN + RT_ICRC_LEN)
			return 0;
		memcpy(b, ip, hl + 8);
		memcpy(b + hl + 8, ip + hl + 8 + off, len);
		size_t ulen = 8 + len;
		if ((ip[0] >> 4) == 4) {
			size_t tot = hl + ulen;
			b[2] = (uint8_t)(tot >> 8);
			b[3] = (uint8_t)tot;
			b[4] = (uint8_t)((id + k) >> 8);
			b[5] = (uint8_t)(id + k);
		} else {
			b[4] = (uint8_t)(ulen >> 8);
			b[5] = (uint8_t)ulen;
		}
		b[hl + 4] = (uint8_t)(ulen >> 8);
		b[hl + 5] = (uint8_t)ulen;
		uint32_t crc;
		size_t upto = hl + ulen - RT_ICRC_LEN;
		if (rt_icrc_compute(b, upto, &crc) || crc != rt_icrc_load(b + upto))
			return 0;
	}
	return 1;
}

static uint32_t rd32(const uint8_t *p, int swap)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: %s FILE MIN_PACKETS [MIN_IPID]\n", argv[0]);
		return 2;
	}
	FILE *f = fopen(argv[1], "rb");
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0;
	while (f) {
		if (n == cap) {
			uint8_t *nb = realloc(buf, cap = cap ? cap * 2 : 1 << 20);
			if (!nb)
				break;
			buf = nb;
		}
		size_t k = fread(buf + n, 1, cap - n, f);
		if (!k)
			break;
		n += k;
	}
	if (f)
		fclose(f);
	unsigned long min = strtoul(argv[2], NULL, 0);
	unsigned long roce = 0, bad_icrc = 0, bad_hdr = 0, ipid = 0, whole = 0;
	const char *start_ms = getenv("T_ICRC_GSO_START_MS");
	uint64_t gso_window_us = start_ms ? strtoull(start_ms, NULL, 0) * 1000 : 0;
	/* the frames whose ICRC fails (IP header offset, UDP length, time), and
	 * the UDP payload sizes of those that verify, for the GSO check after */
	enum { MAXBAD = 64, MAXSEG = 8 };
	struct bad_frame {
		size_t ip, hl, udplen;
		uint64_t us;
	} badf[MAXBAD];
	size_t nbadf = 0, segs[MAXSEG], nsegs = 0;
	uint64_t first_us = 0;
	int have_first = 0;
	int swap = 0, nano = 0;
	uint32_t linktype = 0;
	if (n >= 24) {
		uint32_t magic = rd32(buf, 0);
		swap = magic == 0xD4C3B2A1u || magic == 0x4D3CB2A1u;
		nano = magic == 0xA1B23C4Du || magic == 0x4D3CB2A1u;
		linktype = rd32(buf + 20, swap);
	}
	size_t off = 24;
	while (n >= 24 && off + 16 <= n) {
		uint32_t caplen = rd32(buf + off + 8, swap);
		uint64_t frac = rd32(buf + off + 4, swap);
		uint64_t us = (uint64_t)rd32(buf + off, swap) * 1000000 + (nano ? frac / 1000 : frac);
		if (!have_first) {
			first_us = us;
			have_first = 1;
		}
		const uint8_t *p = buf + off + 16;
		if (off + 16 + caplen > n)
			break;
		off += 16 + caplen;
		size_t l2 = linktype == 1 ? 14 : linktype == 113 ? 16 : 0;
		if (caplen < l2 + 20)
			continue;
		const uint8_t *ip = p + l2;
		size_t iplen = caplen - l2, hl;
		if ((ip[0] >> 4) == 4) {
			hl = (size_t)(ip[0] & 15) * 4;
			if (ip[9] != 17)
				continue;
		} else if ((ip[0] >> 4) == 6) {
			hl = 40;
			if (ip[6] != 17)
				continue;
		} else {
			continue;
		}
		if (iplen < hl + 8 + RT_BTH_LEN + RT_ICRC_LEN)
			continue;
		const uint8_t *udp = ip + hl;
		if ((udp[2] << 8 | udp[3]) != RT_ROCE_UDP_PORT)
			continue;
		size_t udplen = (size_t)(udp[4] << 8 | udp[5]);
		if (udplen > iplen - hl || udplen < 8 + RT_BTH_LEN + RT_ICRC_LEN) {
			bad_hdr++;
			continue;
		}
		roce++;
		if ((ip[0] >> 4) == 4 && (ip[4] | ip[5]))
			ipid++;
		uint32_t crc;
		size_t upto = hl + udplen - RT_ICRC_LEN;
		if (rt_icrc_compute(ip, upto, &crc) || crc != rt_icrc_load(ip + upto)) {
			bad_icrc++;
			if (nbadf < MAXBAD)
				badf[nbadf++] = (struct bad_frame){(size_t)(ip - buf), hl, udplen, us - first_us};
			continue;
		}
		size_t k = 0;
		while (k < nsegs && segs[k] != udplen - 8)
			k++;
		if (k == nsegs && nsegs < MAXSEG)
			segs[nsegs++] = udplen - 8;
		struct rt_roce_hdrs h;
		if (rt_roce_parse_transport(udp + 8, udplen - 8 - RT_ICRC_LEN, &h) < 0)
			bad_hdr++;
	}
	for (size_t i = 0; gso_window_us && i < nbadf; i++) {
		if (badf[i].us > gso_window_us)
			continue;
		for (size_t k = 0; k < nsegs; k++)
			if (whole_gso_send(buf + badf[i].ip, badf[i].hl, badf[i].udplen, segs[k])) {
				printf("# a GSO send captured whole, %.3f ms into the capture: %zu UDP bytes in segments of %zu, "
				       "each ICRC right\n", badf[i].us / 1000.0, badf[i].udplen - 8, segs[k]);
				whole++;
				bad_icrc--;
				break;
			}
	}
	free(buf);
	printf("# %lu RoCEv2 packets, %lu bad ICRC, %lu bad headers, %lu with an IP ID (linktype %u)", roce,
	       bad_icrc, bad_hdr, ipid, linktype);
	if (gso_window_us)
		printf(", %lu GSO sends captured whole in the first %llu ms", whole,
		       (unsigned long long)(gso_window_us / 1000));
	printf("\n");
	int t = 0, fails = 0;
	printf("%s %d - capture holds at least %lu RoCEv2 packets\n", roce >= min ? "ok" : "not ok", ++t, min);
	fails += roce < min;
	printf("%s %d - every ICRC verifies\n", bad_icrc == 0 && roce ? "ok" : "not ok", ++t);
	fails += bad_icrc != 0 || !roce;
	printf("%s %d - every transport header parses\n", bad_hdr == 0 ? "ok" : "not ok", ++t);
	fails += bad_hdr != 0;
	if (argc == 4) {
		unsigned long want = strtoul(argv[3], NULL, 0);
		printf("%s %d - at least %lu packets are GSO segments (IP ID != 0)\n", ipid >= want ? "ok" : "not ok", ++t,
		       want);
		fails += ipid < want;
	}
	return fails ? 1 : 0;
}

/*
 * Reads a classic pcap file of uroce traffic (dumpcap -F pcap on lo) and
 * checks every RoCEv2 packet (UDP to port 4791) with the shared decoder
 * pieces: the ICRC must equal rt_icrc_compute over the IP packet, and the
 * transport headers must parse.  Usage: t_capture_icrc FILE MIN_PACKETS
 * [MIN_IPID]: with MIN_IPID, at least that many IPv4 packets must carry a
 * non-zero IP identification (segments of UDP GSO sends do).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdmatrace/roce_build.h"
#include "rdmatrace/roce_wire.h"

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
	unsigned long roce = 0, bad_icrc = 0, bad_hdr = 0, ipid = 0;
	int swap = 0;
	uint32_t linktype = 0;
	if (n >= 24) {
		uint32_t magic = rd32(buf, 0);
		swap = magic == 0xD4C3B2A1u || magic == 0x4D3CB2A1u;
		linktype = rd32(buf + 20, swap);
	}
	size_t off = 24;
	while (n >= 24 && off + 16 <= n) {
		uint32_t caplen = rd32(buf + off + 8, swap);
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
			continue;
		}
		struct rt_roce_hdrs h;
		if (rt_roce_parse_transport(udp + 8, udplen - 8 - RT_ICRC_LEN, &h) < 0)
			bad_hdr++;
	}
	free(buf);
	printf("# %lu RoCEv2 packets, %lu bad ICRC, %lu bad headers, %lu with an IP ID (linktype %u)\n", roce,
	       bad_icrc, bad_hdr, ipid, linktype);
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

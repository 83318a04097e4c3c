/*
 * CRC-32 and the RoCEv2 ICRC.  The ICRC is a plain CRC-32 over the packet
 * with the fields routers may change (TOS/traffic class, TTL/hop limit, flow
 * label, checksums, FECN/BECN) replaced by ones, preceded by 8 bytes of ones
 * standing for the masked LRH of native InfiniBand.  Both the decoder
 * (verification) and the uroce engine (generation) use this one routine.
 * The CRC is table-driven, eight bytes per step ("slicing by 8").
 */
#include <errno.h>
#include <string.h>

#include "rdmatrace/roce_wire.h"

static uint32_t crc_tables[8][256];

__attribute__((constructor)) static void crc_tables_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
		crc_tables[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc_tables[t][i] = (crc_tables[t - 1][i] >> 8) ^ crc_tables[0][crc_tables[t - 1][i] & 0xFF];
}

/* Raw reflected CRC register update, no inversion. */
static uint32_t crc32_raw(uint32_t c, const uint8_t *p, size_t n)
{
	while (n >= 8) {
		uint32_t lo = c ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
		uint32_t hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
		c = crc_tables[7][lo & 0xFF] ^ crc_tables[6][(lo >> 8) & 0xFF] ^
		    crc_tables[5][(lo >> 16) & 0xFF] ^ crc_tables[4][lo >> 24] ^
		    crc_tables[3][hi & 0xFF] ^ crc_tables[2][(hi >> 8) & 0xFF] ^
		    crc_tables[1][(hi >> 16) & 0xFF] ^ crc_tables[0][hi >> 24];
		p += 8;
		n -= 8;
	}
	while (n--)
		c = crc_tables[0][(c ^ *p++) & 0xFF] ^ (c >> 8);
	return c;
}

uint32_t rt_crc32(uint32_t crc, const void *p, size_t n)
{
	return ~crc32_raw(~crc, p, n);
}

/* CRC register after 0xFFFFFFFF has absorbed the eight 0xFF bytes of the masked LRH. */
#define ICRC_SEED 0xDEBB20E3u

int rt_icrc_compute(const uint8_t *ip, size_t len, uint32_t *crc)
{
	uint8_t hdr[40 + 8 + RT_BTH_LEN]; /* largest IP header we mask: IPv6 (IPv4 options are copied in two steps) */
	size_t ip_len;

	if (len < 1)
		return -EINVAL;
	unsigned version = ip[0] >> 4;
	uint32_t c = ICRC_SEED;
	if (version == 4) {
		ip_len = (size_t)(ip[0] & 0x0F) * 4;
		if (ip_len < 20 || len < ip_len + 8 + RT_BTH_LEN)
			return -EINVAL;
		memcpy(hdr, ip, 20);
		hdr[1] = 0xFF;                /* TOS: DSCP + ECN */
		hdr[8] = 0xFF;                /* TTL */
		hdr[10] = hdr[11] = 0xFF;     /* header checksum */
		c = crc32_raw(c, hdr, 20);
		c = crc32_raw(c, ip + 20, ip_len - 20); /* options, unmasked */
	} else if (version == 6) {
		ip_len = 40;
		if (len < ip_len + 8 + RT_BTH_LEN)
			return -EINVAL;
		memcpy(hdr, ip, 40);
		hdr[0] = (uint8_t)(0x60 | 0x0F); /* traffic class and flow label */
		hdr[1] = hdr[2] = hdr[3] = 0xFF;
		hdr[7] = 0xFF;                   /* hop limit */
		c = crc32_raw(c, hdr, 40);
	} else {
		return -EINVAL;
	}
	const uint8_t *udp = ip + ip_len;
	memcpy(hdr, udp, 8 + RT_BTH_LEN);
	hdr[6] = hdr[7] = 0xFF;      /* UDP checksum */
	hdr[8 + 4] = 0xFF;           /* BTH byte 4: FECN, BECN, Resv6a */
	c = crc32_raw(c, hdr, 8 + RT_BTH_LEN);
	size_t done = ip_len + 8 + RT_BTH_LEN;
	c = crc32_raw(c, ip + done, len - done);
	*crc = ~c;
	return 0;
}

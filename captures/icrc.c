/*
 * CRC-32 and the RoCEv2 ICRC.  The ICRC is a plain CRC-32 over the packet
 * with the fields routers may change (TOS/traffic class, TTL/hop limit, flow
 * label, checksums, FECN/BECN) replaced by ones, preceded by 8 bytes of ones
 * standing for the masked LRH of native InfiniBand.  Both the decoder
 * (verification) and the uroce engine (generation) use this one routine.
 * The CRC is table-driven, eight bytes per step ("slicing by 8"); on x86-64
 * CPUs with PCLMULQDQ a carry-less-multiply folding path (crc_clmul.c) takes
 * the long runs, and its 512-bit form (VPCLMULQDQ, AVX-512) the runs of 256
 * bytes or more where the CPU has it, chosen once at start-up.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "crc_impl.h"
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
uint32_t rt_crc32_raw_table(uint32_t c, const uint8_t *p, size_t n)
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

static int use_clmul, use_vpclmul;

__attribute__((constructor)) static void crc_pick_engine(void)
{
	use_clmul = rt_crc32_clmul_available();
	use_vpclmul = rt_crc32_vpclmul_available();
}

static inline uint32_t crc32_raw(uint32_t c, const uint8_t *p, size_t n)
{
	if (use_vpclmul && n >= 256)
		return rt_crc32_raw_vpclmul(c, p, n);
	return use_clmul && n >= 32 ? rt_crc32_raw_clmul(c, p, n) : rt_crc32_raw_table(c, p, n);
}

uint32_t rt_crc32(uint32_t crc, const void *p, size_t n)
{
	return ~crc32_raw(~crc, p, n);
}

/*
 * The ICRC runs over 8 bytes of ones, the masked headers and the rest.  With
 * an initial register of ones, the first four bytes of ones cancel it (an
 * all-ones initial value is the same as inverting the first four bytes), and
 * zero bytes change nothing while the register is zero; so the CRC starts at
 * zero over Z zero bytes, four bytes of ones and the masked headers, with Z
 * chosen to make the length a multiple of 16: the folding engine then never
 * needs its byte-at-a-time tail.  A short rest (most packets) is copied behind
 * the headers so that one pass, with one final reduction, covers everything.
 */
enum { ICRC_SHORT_REST = 256 };

int rt_icrc_compute(const uint8_t *ip, size_t len, uint32_t *crc)
{
	_Alignas(16) uint8_t buf[16 + 4 + 60 + 8 + RT_BTH_LEN + ICRC_SHORT_REST];
	size_t ip_len;

	if (len < 1)
		return -EINVAL;
	unsigned version = ip[0] >> 4;
	if (version == 4) {
		ip_len = (size_t)(ip[0] & 0x0F) * 4;
		if (ip_len < 20 || len < ip_len + 8 + RT_BTH_LEN)
			return -EINVAL;
	} else if (version == 6) {
		ip_len = 40;
		if (len < ip_len + 8 + RT_BTH_LEN)
			return -EINVAL;
	} else {
		return -EINVAL;
	}
	size_t done = ip_len + 8 + RT_BTH_LEN; /* headers: IP, UDP, BTH */
	bool one_pass = len - done <= ICRC_SHORT_REST;
	size_t covered = 4 + (one_pass ? len : done);
	size_t z = (16 - covered % 16) % 16;
	memset(buf, 0, 16);
	memset(buf + z, 0xFF, 4);
	uint8_t *h = buf + z + 4;
	if (done == 20 + 8 + RT_BTH_LEN)
		memcpy(h, ip, 20 + 8 + RT_BTH_LEN); /* IPv4 without options: a fixed-size copy */
	else
		memcpy(h, ip, done);
	if (version == 4) {
		h[1] = 0xFF;                 /* TOS: DSCP + ECN */
		h[8] = 0xFF;                 /* TTL */
		h[10] = h[11] = 0xFF;        /* header checksum (options stay as sent) */
	} else {
		h[0] = (uint8_t)(0x60 | 0x0F); /* traffic class and flow label */
		h[1] = h[2] = h[3] = 0xFF;
		h[7] = 0xFF;                 /* hop limit */
	}
	h[ip_len + 6] = h[ip_len + 7] = 0xFF; /* UDP checksum */
	h[ip_len + 8 + 4] = 0xFF;             /* BTH byte 4: FECN, BECN, Resv6a */
	uint32_t c;
	if (one_pass) {
		memcpy(h + done, ip + done, len - done);
		c = crc32_raw(0, buf, z + covered);
	} else {
		c = crc32_raw(0, buf, z + covered);
		c = crc32_raw(c, ip + done, len - done);
	}
	*crc = ~c;
	return 0;
}

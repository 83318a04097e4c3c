/*
 * CRC-32C (Castagnoli), the checksum of trace files: every record, chunk
 * header and file header carries one.  The collector checksums every record
 * it writes, so this is on the throughput path: SSE4.2's crc32 instruction
 * when the CPU has it (8 bytes per instruction), else a table.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rdmatrace/trace_format.h"

static uint32_t table[256];
static int have_hw;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init(void)
{
#if defined(__x86_64__)
	__builtin_cpu_init();
	have_hw = __builtin_cpu_supports("sse4.2");
#endif
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
		table[i] = c;
	}
}

static uint32_t crc_sw(uint32_t c, const uint8_t *p, size_t n)
{
	while (n--)
		c = table[(c ^ *p++) & 0xff] ^ (c >> 8);
	return c;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t crc_hw(uint32_t c, const uint8_t *p, size_t n)
{
	uint64_t c64 = c;
	while (n >= 8) {
		uint64_t v;
		memcpy(&v, p, 8);
		c64 = __builtin_ia32_crc32di(c64, v);
		p += 8;
		n -= 8;
	}
	c = (uint32_t)c64;
	while (n--)
		c = __builtin_ia32_crc32qi(c, *p++);
	return c;
}
#endif

uint32_t rt_crc32c(uint32_t crc, const void *data, size_t n)
{
	pthread_once(&once, init);
	uint32_t c = ~crc;
#if defined(__x86_64__)
	if (have_hw)
		return ~crc_hw(c, data, n);
#endif
	return ~crc_sw(c, data, n);
}

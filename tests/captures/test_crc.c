/*
 * The PCLMULQDQ CRC-32 path and its VPCLMULQDQ form against the table
 * path: every length 0..1100 at every alignment 0..15 (the 512-bit form's
 * every branch: one to four 256-byte rounds, 64-byte and 16-byte folds and
 * byte tails), random register values, and long buffers; and the ICRC over
 * the real captures is the same whichever engine runs.  Skips a comparison
 * on CPUs without its instructions.
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

typedef uint32_t (*crc_engine)(uint32_t crc, const uint8_t *p, size_t n);

/* Engine e against the table on every length 0..maxlen at every alignment
 * 0..15 and on long buffers, random register values: the mismatches. */
static unsigned mismatches(crc_engine e, const char *name, size_t maxlen)
{
	static uint8_t buf[70000];
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)rnd();
	unsigned bad = 0, runs = 0;
	for (size_t len = 0; len <= maxlen; len++)
		for (size_t align = 0; align < 16; align++) {
			uint32_t c = rnd();
			uint32_t a = rt_crc32_raw_table(c, buf + align, len);
			uint32_t b = e(c, buf + align, len);
			runs++;
			if (a != b && bad++ < 5)
				printf("# len %zu align %zu: table %08x %s %08x\n", len, align, a, name, b);
		}
	const size_t longs[] = { 1023, 1024, 4096 + 7, 65536, 69999 };
	for (size_t i = 0; i < sizeof(longs) / sizeof(longs[0]); i++) {
		uint32_t c = rnd();
		runs++;
		if (rt_crc32_raw_table(c, buf + 1, longs[i]) != e(c, buf + 1, longs[i]))
			bad++;
	}
	printf("# %u comparisons\n", runs);
	return bad;
}

static void test_clmul_matches_table(void)
{
	if (!rt_crc32_clmul_available())
		SKIP("no PCLMULQDQ on this CPU");
	CHECK_EQ_U(mismatches(rt_crc32_raw_clmul, "clmul", 600), 0);
	/* and the public CRC still has zlib's check value on long input */
	CHECK_EQ_U(rt_crc32(0, "123456789123456789123456789123456789123456789", 45),
		   ~rt_crc32_raw_table(~0u, (const uint8_t *)"123456789123456789123456789123456789123456789", 45));
}

static void test_vpclmul_matches_table(void)
{
	if (!rt_crc32_vpclmul_available())
		SKIP("no VPCLMULQDQ with AVX-512 on this CPU");
	CHECK_EQ_U(mismatches(rt_crc32_raw_vpclmul, "vpclmul", 1100), 0);
}

int main(void)
{
	RUN(test_clmul_matches_table);
	RUN(test_vpclmul_matches_table);
	return test_done();
}

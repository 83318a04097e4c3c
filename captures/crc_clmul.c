/*
 * CRC-32 (the reflected IEEE polynomial of zlib and the RoCE ICRC) by
 * folding with carry-less multiplication (PCLMULQDQ), after Gopal et al.,
 * "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ" (Intel,
 * 2009).  The register is XORed into the first 16 bytes, 64-byte and then
 * 16-byte blocks are folded forward (each fold multiplies the two halves by
 * x^k mod P for the distance folded), the last 128-bit value is folded to
 * 64 and 32 bits and Barrett-reduced to the register, and a tail of fewer
 * than 16 bytes goes through the table path.
 * Where the CPU has VPCLMULQDQ with AVX-512 (rt_crc32_raw_vpclmul), runs of
 * 256 bytes or more are folded four 64-byte registers at a time (each
 * register holds four 16-byte blocks, folded side by side), then down to
 * one 16-byte block and on as above: half the instructions for the length
 * of a RoCE payload.
 * Checked against the table path by tests/captures/test_crc.c.
 */
#include "crc_impl.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

/* x^(512+32) mod P, x^(512-32) mod P (fold by four blocks) and
 * x^(128+32) mod P, x^(128-32) mod P (fold by one block), bit-reflected and
 * shifted one place as the reflected multiply needs. */
#define K_512_LO 0x154442bd4ull
#define K_512_HI 0x1c6e41596ull
#define K_128_LO 0x1751997d0ull
#define K_128_HI 0x0ccaa009eull
/* x^(2048+32) mod P, x^(2048-32) mod P: fold by four 64-byte registers. */
#define K_2048_LO 0x11542778aull
#define K_2048_HI 0x1322d1430ull
/* x^64 mod P for the 64 -> 32 fold; mu = floor(x^64 / P) and P itself, reflected. */
#define K_64 0x163cd6124ull
#define BARRETT_MU 0x1f7011641ull
#define BARRETT_P 0x1db710641ull

int rt_crc32_clmul_available(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
}

__attribute__((target("pclmul,sse4.1"))) static inline __m128i fold(__m128i x, __m128i k, __m128i next)
{
	__m128i lo = _mm_clmulepi64_si128(x, k, 0x00);
	__m128i hi = _mm_clmulepi64_si128(x, k, 0x11);
	return _mm_xor_si128(_mm_xor_si128(lo, hi), next);
}

/* The raw register value of a 128-bit folded remainder (no table). */
__attribute__((target("pclmul,sse4.1"))) static inline uint32_t reduce128(__m128i x)
{
	const __m128i k128 = _mm_set_epi64x((long long)K_128_HI, (long long)K_128_LO);
	const __m128i k64 = _mm_set_epi64x(0, (long long)K_64);
	const __m128i barrett = _mm_set_epi64x((long long)BARRETT_MU, (long long)BARRETT_P);
	const __m128i mask32 = _mm_set_epi32(0, 0, 0, -1);
	__m128i t = _mm_clmulepi64_si128(x, k128, 0x10);           /* 128 -> 64 bits */
	x = _mm_xor_si128(_mm_srli_si128(x, 8), t);
	t = _mm_clmulepi64_si128(_mm_and_si128(x, mask32), k64, 0x00); /* 64 -> 32 */
	x = _mm_xor_si128(_mm_srli_si128(x, 4), t);
	t = _mm_clmulepi64_si128(_mm_and_si128(x, mask32), barrett, 0x10); /* Barrett */
	t = _mm_clmulepi64_si128(_mm_and_si128(t, mask32), barrett, 0x00);
	x = _mm_xor_si128(x, t);
	return (uint32_t)_mm_extract_epi32(x, 1);
}

/* The register of folded remainder x followed by the n bytes at p: their
 * 16-byte blocks folded in, then the reduction, then a byte tail. */
__attribute__((target("pclmul,sse4.1"))) static inline uint32_t fold_rest(__m128i x, const uint8_t *p, size_t n)
{
	const __m128i k128 = _mm_set_epi64x((long long)K_128_HI, (long long)K_128_LO);
	while (n >= 16) {
		x = fold(x, k128, _mm_loadu_si128((const __m128i *)p));
		p += 16;
		n -= 16;
	}
	uint32_t c = reduce128(x);
	return n ? rt_crc32_raw_table(c, p, n) : c;
}

__attribute__((target("pclmul,sse4.1"))) uint32_t rt_crc32_raw_clmul(uint32_t crc, const uint8_t *p, size_t n)
{
	if (n < 32)
		return rt_crc32_raw_table(crc, p, n);
	const __m128i k128 = _mm_set_epi64x((long long)K_128_HI, (long long)K_128_LO);
	__m128i x = _mm_xor_si128(_mm_loadu_si128((const __m128i *)p), _mm_cvtsi32_si128((int)crc));
	p += 16;
	n -= 16;
	if (n >= 64 + 48) {
		const __m128i k512 = _mm_set_epi64x((long long)K_512_HI, (long long)K_512_LO);
		__m128i x1 = _mm_loadu_si128((const __m128i *)p);
		__m128i x2 = _mm_loadu_si128((const __m128i *)(p + 16));
		__m128i x3 = _mm_loadu_si128((const __m128i *)(p + 32));
		p += 48;
		n -= 48;
		while (n >= 64) {
			x = fold(x, k512, _mm_loadu_si128((const __m128i *)p));
			x1 = fold(x1, k512, _mm_loadu_si128((const __m128i *)(p + 16)));
			x2 = fold(x2, k512, _mm_loadu_si128((const __m128i *)(p + 32)));
			x3 = fold(x3, k512, _mm_loadu_si128((const __m128i *)(p + 48)));
			p += 64;
			n -= 64;
		}
		x = fold(x, k128, x1);
		x = fold(x, k128, x2);
		x = fold(x, k128, x3);
	}
	return fold_rest(x, p, n);
}

int rt_crc32_vpclmul_available(void)
{
	__builtin_cpu_init();
	return rt_crc32_clmul_available() && __builtin_cpu_supports("avx512f") &&
	       __builtin_cpu_supports("vpclmulqdq");
}

#define VPCLMUL_TARGET "avx512f,vpclmulqdq,pclmul,sse4.1"

/* Four 16-byte blocks folded at once, each as fold() does. */
__attribute__((target(VPCLMUL_TARGET))) static inline __m512i fold4(__m512i x, __m512i k, __m512i next)
{
	__m512i lo = _mm512_clmulepi64_epi128(x, k, 0x00);
	__m512i hi = _mm512_clmulepi64_epi128(x, k, 0x11);
	return _mm512_ternarylogic_epi64(lo, hi, next, 0x96); /* lo ^ hi ^ next */
}

__attribute__((target(VPCLMUL_TARGET))) uint32_t rt_crc32_raw_vpclmul(uint32_t crc, const uint8_t *p, size_t n)
{
	if (n < 256)
		return rt_crc32_raw_clmul(crc, p, n);
	const __m512i k2048 = _mm512_broadcast_i32x4(_mm_set_epi64x((long long)K_2048_HI, (long long)K_2048_LO));
	const __m512i k512 = _mm512_broadcast_i32x4(_mm_set_epi64x((long long)K_512_HI, (long long)K_512_LO));
	const __m128i k128 = _mm_set_epi64x((long long)K_128_HI, (long long)K_128_LO);
	__m512i reg = _mm512_inserti32x4(_mm512_setzero_si512(), _mm_cvtsi32_si128((int)crc), 0);
	__m512i x0 = _mm512_xor_si512(_mm512_loadu_si512(p), reg);
	__m512i x1 = _mm512_loadu_si512(p + 64);
	__m512i x2 = _mm512_loadu_si512(p + 128);
	__m512i x3 = _mm512_loadu_si512(p + 192);
	p += 256;
	n -= 256;
	while (n >= 256) {
		x0 = fold4(x0, k2048, _mm512_loadu_si512(p));
		x1 = fold4(x1, k2048, _mm512_loadu_si512(p + 64));
		x2 = fold4(x2, k2048, _mm512_loadu_si512(p + 128));
		x3 = fold4(x3, k2048, _mm512_loadu_si512(p + 192));
		p += 256;
		n -= 256;
	}
	x0 = fold4(x0, k512, x1);
	x0 = fold4(x0, k512, x2);
	x0 = fold4(x0, k512, x3);
	while (n >= 64) {
		x0 = fold4(x0, k512, _mm512_loadu_si512(p));
		p += 64;
		n -= 64;
	}
	/* the register's four blocks, in order, to one */
	__m128i x = _mm512_extracti32x4_epi32(x0, 0);
	x = fold(x, k128, _mm512_extracti32x4_epi32(x0, 1));
	x = fold(x, k128, _mm512_extracti32x4_epi32(x0, 2));
	x = fold(x, k128, _mm512_extracti32x4_epi32(x0, 3));
	return fold_rest(x, p, n);
}

#else

int rt_crc32_clmul_available(void)
{
	return 0;
}

int rt_crc32_vpclmul_available(void)
{
	return 0;
}

uint32_t rt_crc32_raw_vpclmul(uint32_t crc, const uint8_t *p, size_t n)
{
	return rt_crc32_raw_table(crc, p, n);
}

uint32_t rt_crc32_raw_clmul(uint32_t crc, const uint8_t *p, size_t n)
{
	return rt_crc32_raw_table(crc, p, n);
}

#endif

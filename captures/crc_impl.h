/*
 * The two CRC-32 engines behind rt_crc32() and rt_icrc_compute(), exposed
 * inside captures/ and to the tests that check them against each other:
 * the table path (slicing by 8, any CPU) and the carry-less multiply path
 * (PCLMULQDQ folding, x86-64 with the instruction, chosen at run time;
 * VPCLMULQDQ with AVX-512 for runs of 256 bytes or more where the CPU has it).
 * Both update a raw reflected CRC register (no inversion).
 */
#ifndef RDMATRACE_CAPTURES_CRC_IMPL_H
#define RDMATRACE_CAPTURES_CRC_IMPL_H

#include <stddef.h>
#include <stdint.h>

uint32_t rt_crc32_raw_table(uint32_t crc, const uint8_t *p, size_t n);
/* 1 when the PCLMULQDQ path can run on this CPU. */
int rt_crc32_clmul_available(void);
/* Only when rt_crc32_clmul_available(); falls back to the table below 32 bytes. */
uint32_t rt_crc32_raw_clmul(uint32_t crc, const uint8_t *p, size_t n);
/* 1 when the VPCLMULQDQ + AVX-512 path can run on this CPU. */
int rt_crc32_vpclmul_available(void);
/* Only when rt_crc32_vpclmul_available(); the PCLMULQDQ path below 256 bytes. */
uint32_t rt_crc32_raw_vpclmul(uint32_t crc, const uint8_t *p, size_t n);

#endif

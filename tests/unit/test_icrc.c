/* ICRC and CRC-32 against the worked examples of the wire notes and a real NIC's CNP. */
#include <stdint.h>

#include "rdmatrace/roce_wire.h"
#include "testlib.h"

static int hex(const char *s, uint8_t *out)
{
	int n = 0;
	while (*s) {
		unsigned v;
		while (*s == ' ' || *s == '\n')
			s++;
		if (!*s || sscanf(s, "%2x", &v) != 1)
			break;
		out[n++] = (uint8_t)v;
		s += 2;
	}
	return n;
}

static void test_crc32_known_value(void)
{
	CHECK_EQ_U(rt_crc32(0, "123456789", 9), 0xCBF43926u);
	CHECK_EQ_U(rt_crc32(0, "", 0), 0);
	/* incremental equals one-shot */
	uint32_t c = rt_crc32(0, "1234", 4);
	CHECK_EQ_U(rt_crc32(c, "56789", 5), 0xCBF43926u);
}

/* Worked example A: RC SEND ONLY "hello" over IPv4 (frame without Ethernet). */
static const char *example_a =
	"45 00 00 34 12 34 40 00 40 11 a5 31 c0 a8 01 01 c0 a8 01 02"
	"c0 de 12 b7 00 20 00 00"
	"04 30 ff ff 00 00 00 12 80 12 34 56"
	"68 65 6c 6c 6f 00 00 00"
	"2e c1 fe 98";

static void test_icrc_ipv4_example(void)
{
	uint8_t pkt[128];
	int n = hex(example_a, pkt);
	uint32_t crc = 0;
	CHECK_EQ_U(rt_icrc_compute(pkt, (size_t)n - 4, &crc), 0);
	CHECK_EQ_U(crc, 0x98FEC12Eu);
	CHECK_EQ_U(rt_icrc_load(pkt + n - 4), crc);
}

static void test_icrc_masked_fields_ignored(void)
{
	uint8_t pkt[128];
	int n = hex(example_a, pkt);
	const int masked[] = { 1, 8, 10, 11, 20 + 6, 20 + 7, 28 + 4 };
	for (size_t i = 0; i < sizeof(masked) / sizeof(masked[0]); i++) {
		uint8_t copy[128];
		memcpy(copy, pkt, (size_t)n);
		copy[masked[i]] ^= 0x5A;
		uint32_t crc = 0;
		CHECK_EQ_U(rt_icrc_compute(copy, (size_t)n - 4, &crc), 0);
		CHECK_EQ_U(crc, 0x98FEC12Eu);
	}
}

static void test_icrc_every_covered_bit_matters(void)
{
	uint8_t pkt[128];
	int n = hex(example_a, pkt);
	int changed = 0, total = 0;
	for (int byte = 0; byte < n - 4; byte++) {
		if (byte == 1 || byte == 8 || byte == 10 || byte == 11 || byte == 26 || byte == 27 || byte == 32)
			continue;
		if (byte == 0) /* version nibble change makes it not IPv4; flip IHL-neutral bits only below */
			continue;
		for (int bit = 0; bit < 8; bit++) {
			uint8_t copy[128];
			memcpy(copy, pkt, (size_t)n);
			copy[byte] ^= (uint8_t)(1u << bit);
			uint32_t crc = 0;
			total++;
			if (rt_icrc_compute(copy, (size_t)n - 4, &crc) == 0 && crc != 0x98FEC12Eu)
				changed++;
		}
	}
	CHECK_EQ_U(changed, total);
}

static void test_icrc_ipv6_example(void)
{
	uint8_t pkt[128];
	int n = hex("60 00 00 00 00 20 11 40"
		    "fd 00 00 00 00 00 00 00 00 00 00 00 00 00 00 01"
		    "fd 00 00 00 00 00 00 00 00 00 00 00 00 00 00 02"
		    "c0 de 12 b7 00 20 00 00"
		    "04 30 ff ff 00 00 00 12 80 12 34 56"
		    "68 65 6c 6c 6f 00 00 00", pkt);
	uint32_t crc = 0;
	CHECK_EQ_U(rt_icrc_compute(pkt, (size_t)n, &crc), 0);
	CHECK_EQ_U(crc, 0xFAD21D66u);
}

/* A CNP captured from a ConnectX-4 Lx: the ICRC of real hardware. */
static void test_icrc_hardware_cnp(void)
{
	uint8_t pkt[128];
	int n = hex("45 c2 00 3c 71 8c 40 00 40 11 91 61 0a 00 11 01 0a 00 12 01"
		    "00 00 12 b7 00 28 00 00"
		    "81 00 ff ff 40 00 01 18 00 00 00 00"
		    "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
		    "82 fd 00 2a", pkt);
	uint32_t crc = 0;
	CHECK_EQ_U(rt_icrc_compute(pkt, (size_t)n - 4, &crc), 0);
	CHECK_EQ_U(crc, 0x2A00FD82u);
	CHECK_EQ_U(rt_icrc_load(pkt + n - 4), crc);
}

static void test_icrc_rejects_garbage(void)
{
	uint8_t pkt[64] = { 0x45 };
	uint32_t crc;
	CHECK(rt_icrc_compute(pkt, 10, &crc) < 0);
	pkt[0] = 0x35;
	CHECK(rt_icrc_compute(pkt, 64, &crc) < 0);
	CHECK(rt_icrc_compute(pkt, 0, &crc) < 0);
}

static void test_wire_tables(void)
{
	CHECK_STR(rt_opcode_info(0x0B)->name, "RC RDMA Write Only Immediate");
	CHECK_EQ_U(rt_opcode_info(0x0B)->hdr_len, 32);
	CHECK_EQ_U(rt_opcode_info(0x12)->hdr_len, 24);
	CHECK_EQ_U(rt_opcode_info(0x65)->hdr_len, 24);
	CHECK(rt_opcode_info(0x15) == NULL);
	CHECK_EQ_U(rt_rnr_timer_us(0), 655360);
	CHECK_EQ_U(rt_rnr_timer_us(14), 1280);
	CHECK_EQ_U(rt_rnr_timer_us(25), 61440);
	CHECK_EQ_U(rt_ack_timeout_us(14), 67108);
	CHECK_EQ_U(rt_mtu_bytes(3), 1024);
	CHECK_EQ_U(rt_mtu_bytes(6), 0);
	CHECK(rt_psn_diff(0x000001, 0xFFFFFF) == 2);
	CHECK(rt_psn_diff(0xFFFFFF, 0x000001) == -2);
	CHECK_EQ_U(rt_psn_add(0xFFFFFF, 1), 0);
	CHECK_EQ_U(rt_packets_for(8192, 1024), 8);
	CHECK_EQ_U(rt_packets_for(0, 1024), 1);
	CHECK_EQ_U(rt_packets_for(1025, 1024), 2);
	CHECK_EQ_U(rt_rxe_udp_sport(1), 0xD872);
	CHECK_EQ_U(rt_rxe_udp_sport(0x11), 0xDF94);
	CHECK_EQ_U(rt_rxe_udp_sport(0x12), 0xF806);
	CHECK_EQ_U(rt_aeth_type(0x2E), RT_AETH_RNR_NAK);
	CHECK_EQ_U(rt_aeth_value(0x2E), 14);
	CHECK_EQ_U(rt_aeth_syndrome(RT_AETH_NAK, RT_NAK_REMOTE_ACCESS_ERROR), 0x62);
}

int main(void)
{
	RUN(test_crc32_known_value);
	RUN(test_icrc_ipv4_example);
	RUN(test_icrc_masked_fields_ignored);
	RUN(test_icrc_every_covered_bit_matters);
	RUN(test_icrc_ipv6_example);
	RUN(test_icrc_hardware_cnp);
	RUN(test_icrc_rejects_garbage);
	RUN(test_wire_tables);
	return test_done();
}

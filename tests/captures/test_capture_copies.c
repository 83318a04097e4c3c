/* Copies of a frame captured on several interfaces (capture_copies.h): a
 * copy is left out, a resend on the same interface never is, whatever the
 * interfaces are (pcapng interfaces, SLL2 interface indexes, SLL directions). */
#include <string.h>

#include "rdmatrace/capture_copies.h"
#include "testlib.h"

/* A RoCE frame of PSN psn on pcapng interface ifid, link type lt; for SLL
 * headers, sll is the SLL2 interface index or the SLL packet type. */
static int frame(struct rt_capcopies *c, uint64_t no, uint16_t lt, uint32_t ifid, uint32_t sll, uint32_t psn)
{
	struct rt_caprec rec = {.frame = no, .linktype = lt, .ifindex = ifid};
	struct rt_pkt p;
	memset(&p, 0, sizeof(p));
	p.linktype = lt;
	p.ip_version = 4;
	memcpy(p.src, "\x0a\x09\x00\x02", 4);
	memcpy(p.dst, "\x0a\x09\x00\x01", 4);
	p.sport = 49152;
	p.bth.opcode = 10; /* RC RDMA WRITE ONLY */
	p.bth.dqpn = 0x11;
	p.bth.psn = psn;
	p.payload_len = 1024;
	p.icrc_wire = 0x1234u + psn;
	if (lt == RT_LINKTYPE_LINUX_SLL2)
		p.sll_ifindex = sll;
	else if (lt == RT_LINKTYPE_LINUX_SLL)
		p.sll_pkttype = (uint16_t)sll;
	uint64_t orig = 0;
	int rc = rt_capcopies_check(c, &rec, &p, &orig);
	return rc == 1 ? (int)orig : rc == 0 ? 0 : -1;
}

static void test_one_interface_never_copies(void)
{
	CHECK(!rt_capcopies_possible(1, RT_LINKTYPE_ETHERNET));
	CHECK(rt_capcopies_possible(2, RT_LINKTYPE_ETHERNET));
	CHECK(rt_capcopies_possible(1, RT_LINKTYPE_LINUX_SLL));
	CHECK(rt_capcopies_possible(1, RT_LINKTYPE_LINUX_SLL2));
	struct rt_capcopies *c = rt_capcopies_new();
	CHECK(c != NULL);
	/* the first transmission and three identical resends on one interface */
	for (uint64_t i = 1; i <= 4; i++)
		CHECK_EQ_U(frame(c, i, RT_LINKTYPE_ETHERNET, 0, 0, 100), 0);
	CHECK_EQ_U(rt_capcopies_count(c), 0);
	rt_capcopies_free(c);
}

/* One frame of a scenario and what rt_capcopies_check() must say of it:
 * 0 kept, else the frame it copies. */
struct step {
	uint64_t no;
	uint16_t lt;
	uint32_t ifid, sll, psn;
	int want;
};

static void run_steps(const struct step *s, size_t n, uint64_t copies)
{
	struct rt_capcopies *c = rt_capcopies_new();
	CHECK(c != NULL);
	for (size_t i = 0; c && i < n; i++)
		CHECK_EQ_U(frame(c, s[i].no, s[i].lt, s[i].ifid, s[i].sll, s[i].psn), s[i].want);
	CHECK_EQ_U(rt_capcopies_count(c), copies);
	rt_capcopies_free(c);
}

#define ETH RT_LINKTYPE_ETHERNET
#define SLL RT_LINKTYPE_LINUX_SLL
#define SLL2 RT_LINKTYPE_LINUX_SLL2

/* veth pair under pcapng: each transmission on interface 0, then on 1; the
 * resend of 100 and its copy; then a resend whose copy the second interface
 * missed, and one more resend. */
static void test_two_interfaces(void)
{
	static const struct step s[] = {
		{1, ETH, 0, 0, 100, 0}, {2, ETH, 1, 0, 100, 1}, {3, ETH, 0, 0, 101, 0}, {4, ETH, 0, 0, 100, 0},
		{5, ETH, 1, 0, 101, 3}, {6, ETH, 1, 0, 100, 4}, {7, ETH, 0, 0, 100, 0}, {8, ETH, 0, 0, 100, 0},
	};
	run_steps(s, sizeof(s) / sizeof(s[0]), 3);
}

/* A copy captured first (the second interface's record is earlier): the
 * first seen is kept, the other is its copy. */
static void test_copy_seen_first(void)
{
	static const struct step s[] = {{1, ETH, 1, 0, 7, 0}, {2, ETH, 0, 0, 7, 1}};
	run_steps(s, sizeof(s) / sizeof(s[0]), 1);
}

/* A bridge: in on tap0, across br0, out on tap1 (SLL2 interface indexes of
 * tcpdump -i any); a resend crosses all three again. */
static void test_bridge_sll2(void)
{
	static const struct step s[] = {
		{1, SLL2, 0, 5, 9, 0}, {2, SLL2, 0, 3, 9, 1}, {3, SLL2, 0, 6, 9, 1},
		{4, SLL2, 0, 5, 9, 0}, {5, SLL2, 0, 3, 9, 4}, {6, SLL2, 0, 6, 9, 4},
	};
	run_steps(s, sizeof(s) / sizeof(s[0]), 4);
}

/* SLL (no interface index): sent on one end of a veth pair (outgoing, 4),
 * received on the other (host, 0); a resend goes out again. */
static void test_sll_directions(void)
{
	static const struct step s[] = {{1, SLL, 0, 4, 42, 0}, {2, SLL, 0, 0, 42, 1}, {3, SLL, 0, 4, 42, 0},
					{4, SLL, 0, 0, 42, 3}};
	run_steps(s, sizeof(s) / sizeof(s[0]), 2);
}

/* Different packets are never copies of each other, many of them (the table grows). */
static void test_distinct_packets(void)
{
	struct rt_capcopies *c = rt_capcopies_new();
	for (uint32_t psn = 0; psn < 5000; psn++)
		CHECK_EQ_U(frame(c, psn + 1, RT_LINKTYPE_ETHERNET, psn & 1, 0, psn), 0);
	CHECK_EQ_U(rt_capcopies_count(c), 0);
	for (uint32_t psn = 0; psn < 5000; psn++)
		if (frame(c, 10000 + psn, RT_LINKTYPE_ETHERNET, !(psn & 1), 0, psn) != (int)(psn + 1))
			CHECK(!"the copy on the other interface was not found");
	CHECK_EQ_U(rt_capcopies_count(c), 5000);
	rt_capcopies_free(c);
}

int main(void)
{
	RUN(test_one_interface_never_copies);
	RUN(test_two_interfaces);
	RUN(test_copy_seen_first);
	RUN(test_bridge_sll2);
	RUN(test_sll_directions);
	RUN(test_distinct_packets);
	return test_done();
}

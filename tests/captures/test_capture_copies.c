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

/* veth pair under pcapng: each transmission on interface 0, then on 1. */
static void test_two_interfaces(void)
{
	struct rt_capcopies *c = rt_capcopies_new();
	CHECK_EQ_U(frame(c, 1, RT_LINKTYPE_ETHERNET, 0, 0, 100), 0);
	CHECK_EQ_U(frame(c, 2, RT_LINKTYPE_ETHERNET, 1, 0, 100), 1);
	CHECK_EQ_U(frame(c, 3, RT_LINKTYPE_ETHERNET, 0, 0, 101), 0);
	/* the resend of 100, then its copy */
	CHECK_EQ_U(frame(c, 4, RT_LINKTYPE_ETHERNET, 0, 0, 100), 0);
	CHECK_EQ_U(frame(c, 5, RT_LINKTYPE_ETHERNET, 1, 0, 101), 3);
	CHECK_EQ_U(frame(c, 6, RT_LINKTYPE_ETHERNET, 1, 0, 100), 4);
	/* a resend whose copy the second interface missed, then one more resend */
	CHECK_EQ_U(frame(c, 7, RT_LINKTYPE_ETHERNET, 0, 0, 100), 0);
	CHECK_EQ_U(frame(c, 8, RT_LINKTYPE_ETHERNET, 0, 0, 100), 0);
	CHECK_EQ_U(rt_capcopies_count(c), 3);
	rt_capcopies_free(c);
}

/* A copy captured first (the second interface's record is earlier): the
 * first seen is kept, the other is its copy. */
static void test_copy_seen_first(void)
{
	struct rt_capcopies *c = rt_capcopies_new();
	CHECK_EQ_U(frame(c, 1, RT_LINKTYPE_ETHERNET, 1, 0, 7), 0);
	CHECK_EQ_U(frame(c, 2, RT_LINKTYPE_ETHERNET, 0, 0, 7), 1);
	rt_capcopies_free(c);
}

/* A bridge: in on tap0, across br0, out on tap1 (SLL2 interface indexes of
 * tcpdump -i any); a resend crosses all three again. */
static void test_bridge_sll2(void)
{
	struct rt_capcopies *c = rt_capcopies_new();
	CHECK_EQ_U(frame(c, 1, RT_LINKTYPE_LINUX_SLL2, 0, 5, 9), 0);
	CHECK_EQ_U(frame(c, 2, RT_LINKTYPE_LINUX_SLL2, 0, 3, 9), 1);
	CHECK_EQ_U(frame(c, 3, RT_LINKTYPE_LINUX_SLL2, 0, 6, 9), 1);
	CHECK_EQ_U(frame(c, 4, RT_LINKTYPE_LINUX_SLL2, 0, 5, 9), 0);
	CHECK_EQ_U(frame(c, 5, RT_LINKTYPE_LINUX_SLL2, 0, 3, 9), 4);
	CHECK_EQ_U(frame(c, 6, RT_LINKTYPE_LINUX_SLL2, 0, 6, 9), 4);
	CHECK_EQ_U(rt_capcopies_count(c), 4);
	rt_capcopies_free(c);
}

/* SLL (no interface index): sent on one end of a veth pair (outgoing, 4),
 * received on the other (host, 0); a resend goes out again. */
static void test_sll_directions(void)
{
	struct rt_capcopies *c = rt_capcopies_new();
	CHECK_EQ_U(frame(c, 1, RT_LINKTYPE_LINUX_SLL, 0, 4, 42), 0);
	CHECK_EQ_U(frame(c, 2, RT_LINKTYPE_LINUX_SLL, 0, 0, 42), 1);
	CHECK_EQ_U(frame(c, 3, RT_LINKTYPE_LINUX_SLL, 0, 4, 42), 0);
	CHECK_EQ_U(frame(c, 4, RT_LINKTYPE_LINUX_SLL, 0, 0, 42), 3);
	rt_capcopies_free(c);
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

/*
 * Unit tests of uroce's IB CM MAD codec (uroce/rdmacm/cm_mad.c): the REQ,
 * REP, RTU, DREQ and DREP that kernel SoftRoCE put on the wire during an
 * rping (shared/captures/rxe-rping/wire.pcap) decode to the fields tshark
 * shows and re-encode byte for byte; the other messages round-trip; bad
 * MADs are refused.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>

#include "testlib.h"
#include "../../uroce/rdmacm/cm_mad.h"

/* req: MAD bytes 0..199 of the 322-byte frame; the rest are zero */
static const uint8_t cap_req[] = {
	0x01, 0x07, 0x02, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x26, 0x20, 0xb2, 0x77,
	0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x77, 0xb2, 0x20, 0x26, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x01, 0x06, 0x1c, 0x06, 0x50, 0x54, 0x00, 0xff, 0xfe, 0x00, 0x00, 0x02,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x11, 0x01, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0xa0, 0x21, 0xb6, 0xb3, 0xa7, 0xff, 0xff, 0x37, 0xf0, 0xff, 0xff, 0xff, 0xff,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0x0a, 0x09, 0x00, 0x02,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0x0a, 0x09, 0x00, 0x01,
	0x04, 0xf5, 0xd0, 0x00, 0x00, 0x40, 0x00, 0x98, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 0x85, 0xc9, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x0a, 0x09, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x0a, 0x09, 0x00, 0x01,
};
/* rep: MAD bytes 0..59 of the 322-byte frame; the rest are zero */
static const uint8_t cap_rep[] = {
	0x01, 0x07, 0x02, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x26, 0x20, 0xb2, 0x77,
	0x00, 0x13, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1d, 0x85, 0xfe, 0x65, 0x77, 0xb2, 0x20, 0x26,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x6b, 0x33, 0xcf, 0x00,
	0x01, 0x01, 0x78, 0xe0, 0x50, 0x54, 0x00, 0xff, 0xfe, 0x00, 0x00, 0x01,
};
/* rtu: MAD bytes 0..31 of the 322-byte frame; the rest are zero */
static const uint8_t cap_rtu[] = {
	0x01, 0x07, 0x02, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x26, 0x20, 0xb2, 0x77,
	0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x77, 0xb2, 0x20, 0x26, 0x1d, 0x85, 0xfe, 0x65,
};
/* dreq: MAD bytes 0..34 of the 322-byte frame; the rest are zero */
static const uint8_t cap_dreq[] = {
	0x01, 0x07, 0x02, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x26, 0x20, 0xb2, 0x77,
	0x00, 0x15, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x77, 0xb2, 0x20, 0x26, 0x1d, 0x85, 0xfe, 0x65,
	0x00, 0x00, 0x11,
};
/* drep: MAD bytes 0..31 of the 322-byte frame; the rest are zero */
static const uint8_t cap_drep[] = {
	0x01, 0x07, 0x02, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x26, 0x20, 0xb2, 0x77,
	0x00, 0x16, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1d, 0x85, 0xfe, 0x65, 0x77, 0xb2, 0x20, 0x26,
};

static void expand(const uint8_t *src, size_t n, uint8_t *mad)
{
	memset(mad, 0, RT_MAD_LEN);
	memcpy(mad, src, n);
}

static void check_reencodes(const uint8_t *cap, size_t n)
{
	uint8_t mad[RT_MAD_LEN], out[RT_MAD_LEN];
	struct uroce_cm_msg m;

	expand(cap, n, mad);
	CHECK_EQ_U(uroce_cm_decode(mad, sizeof(mad), &m), 0);
	CHECK_EQ_U(uroce_cm_encode(&m, out), 0);
	CHECK(memcmp(mad, out, RT_MAD_LEN) == 0);
}

static void test_kernel_req_decodes(void)
{
	uint8_t mad[RT_MAD_LEN];
	struct uroce_cm_msg m;
	struct uroce_cma_hdr h;
	const struct uroce_cm_req *r = &m.u.req;
	char buf[64];

	expand(cap_req, sizeof(cap_req), mad);
	CHECK_EQ_U(uroce_cm_decode(mad, sizeof(mad), &m), 0);
	CHECK_EQ_U(m.attr_id, RT_CM_REQ);
	CHECK_EQ_U(m.tid, 0x000000022620b277ull);
	CHECK_EQ_U(r->local_comm_id, 0x77b22026u);
	CHECK_EQ_U(r->service_id, 0x0000000001061c06ull);
	CHECK_EQ_U(r->local_ca_guid, 0x505400fffe000002ull);
	CHECK_EQ_U(r->local_qpn, 0x11);
	CHECK_EQ_U(r->responder_resources, 1);
	CHECK_EQ_U(r->initiator_depth, 1);
	CHECK_EQ_U(r->remote_cm_response_timeout, 20);
	CHECK_EQ_U(r->transport_type, 0);
	CHECK_EQ_U(r->starting_psn, 0x21b6b3);
	CHECK_EQ_U(r->local_cm_response_timeout, 20);
	CHECK_EQ_U(r->retry_count, 7);
	CHECK_EQ_U(r->pkey, 0xffff);
	CHECK_EQ_U(r->path_mtu, 3);
	CHECK_EQ_U(r->rnr_retry_count, 7);
	CHECK_EQ_U(r->max_cm_retries, 15);
	CHECK_EQ_U(r->local_lid, 0xffff);
	CHECK_EQ_U(r->remote_lid, 0xffff);
	CHECK_EQ_U(r->hop_limit, 64);
	CHECK_EQ_U(r->local_ack_timeout, 19);
	CHECK_EQ_U(r->local_gid[10], 0xff);
	CHECK_EQ_U(r->local_gid[15], 2);
	CHECK_EQ_U(r->remote_gid[15], 1);
	CHECK_EQ_U(uroce_cma_hdr_decode(r->private_data, UROCE_CM_REQ_PD, &h), 0);
	CHECK_EQ_U(h.ip_version, 4);
	CHECK_EQ_U(h.src_port, 0x85c9);
	CHECK_EQ_U(h.src.ss_family, AF_INET);
	inet_ntop(AF_INET, &((struct sockaddr_in *)&h.src)->sin_addr, buf, sizeof(buf));
	CHECK_STR(buf, "10.9.0.2");
	inet_ntop(AF_INET, &((struct sockaddr_in *)&h.dst)->sin_addr, buf, sizeof(buf));
	CHECK_STR(buf, "10.9.0.1");
	check_reencodes(cap_req, sizeof(cap_req));
}

static void test_kernel_rep_rtu_dreq_drep(void)
{
	uint8_t mad[RT_MAD_LEN];
	struct uroce_cm_msg m;

	expand(cap_rep, sizeof(cap_rep), mad);
	CHECK_EQ_U(uroce_cm_decode(mad, sizeof(mad), &m), 0);
	CHECK_EQ_U(m.attr_id, RT_CM_REP);
	CHECK_EQ_U(m.u.rep.local_comm_id, 0x1d85fe65u);
	CHECK_EQ_U(m.u.rep.remote_comm_id, 0x77b22026u);
	CHECK_EQ_U(m.u.rep.local_qpn, 0x11);
	CHECK_EQ_U(m.u.rep.starting_psn, 0x6b33cf);
	CHECK_EQ_U(m.u.rep.responder_resources, 1);
	CHECK_EQ_U(m.u.rep.initiator_depth, 1);
	CHECK_EQ_U(m.u.rep.target_ack_delay, 15);
	CHECK_EQ_U(m.u.rep.rnr_retry_count, 7);
	CHECK_EQ_U(m.u.rep.local_ca_guid, 0x505400fffe000001ull);
	check_reencodes(cap_rep, sizeof(cap_rep));

	expand(cap_rtu, sizeof(cap_rtu), mad);
	CHECK_EQ_U(uroce_cm_decode(mad, sizeof(mad), &m), 0);
	CHECK_EQ_U(m.attr_id, RT_CM_RTU);
	CHECK_EQ_U(m.u.rtu.local_comm_id, 0x77b22026u);
	CHECK_EQ_U(m.u.rtu.remote_comm_id, 0x1d85fe65u);
	check_reencodes(cap_rtu, sizeof(cap_rtu));

	expand(cap_dreq, sizeof(cap_dreq), mad);
	CHECK_EQ_U(uroce_cm_decode(mad, sizeof(mad), &m), 0);
	CHECK_EQ_U(m.attr_id, RT_CM_DREQ);
	CHECK_EQ_U(m.u.dreq.remote_qpn, 0x11);
	CHECK_EQ_U(m.u.dreq.remote_comm_id, 0x1d85fe65u);
	check_reencodes(cap_dreq, sizeof(cap_dreq));

	expand(cap_drep, sizeof(cap_drep), mad);
	CHECK_EQ_U(uroce_cm_decode(mad, sizeof(mad), &m), 0);
	CHECK_EQ_U(m.attr_id, RT_CM_DREP);
	CHECK_EQ_U(m.u.drep.local_comm_id, 0x1d85fe65u);
	check_reencodes(cap_drep, sizeof(cap_drep));
}

static void test_rej_mra_sidr_roundtrip(void)
{
	struct uroce_cm_msg m = { .attr_id = RT_CM_REJ, .tid = 0x1122334455667788ull }, d;
	uint8_t mad[RT_MAD_LEN];

	m.u.rej.local_comm_id = 0;
	m.u.rej.remote_comm_id = 0xdeadbeef;
	m.u.rej.msg_rejected = 0;
	m.u.rej.reason = UROCE_REJ_CONSUMER_DEFINED;
	memcpy(m.u.rej.private_data, "no thanks", 9);
	m.u.rej.private_data[UROCE_CM_REJ_PD - 1] = 0x5a;
	CHECK_EQ_U(uroce_cm_encode(&m, mad), 0);
	CHECK_EQ_U(mad[16], 0x00);
	CHECK_EQ_U(mad[17], 0x12);
	CHECK_EQ_U(mad[24 + 10], 0);
	CHECK_EQ_U(mad[24 + 11], 28);
	CHECK_EQ_U(mad[24 + 84], 'n');
	CHECK_EQ_U(mad[255], 0x5a);
	CHECK_EQ_U(uroce_cm_decode(mad, sizeof(mad), &d), 0);
	CHECK(memcmp(&m, &d, sizeof(m)) == 0);

	memset(&m, 0, sizeof(m));
	m.attr_id = RT_CM_MRA;
	m.u.mra.local_comm_id = 1;
	m.u.mra.remote_comm_id = 2;
	m.u.mra.msg_mraed = 1;
	m.u.mra.service_timeout = 23;
	CHECK_EQ_U(uroce_cm_encode(&m, mad), 0);
	CHECK_EQ_U(mad[24 + 8], 0x40);
	CHECK_EQ_U(mad[24 + 9], 23 << 3);
	CHECK_EQ_U(uroce_cm_decode(mad, sizeof(mad), &d), 0);
	CHECK(memcmp(&m, &d, sizeof(m)) == 0);

	memset(&m, 0, sizeof(m));
	m.attr_id = RT_CM_SIDR_REQ;
	m.u.sidr_req.request_id = 0xabcdef01;
	m.u.sidr_req.pkey = 0xffff;
	m.u.sidr_req.service_id = uroce_cm_service_id(RT_RDMA_PS_UDP, 7174);
	CHECK_EQ_U(m.u.sidr_req.service_id, 0x0000000001111c06ull);
	CHECK_EQ_U(uroce_cm_encode(&m, mad), 0);
	CHECK_EQ_U(uroce_cm_decode(mad, sizeof(mad), &d), 0);
	CHECK(memcmp(&m, &d, sizeof(m)) == 0);

	memset(&m, 0, sizeof(m));
	m.attr_id = RT_CM_SIDR_REP;
	m.u.sidr_rep.request_id = 0xabcdef01;
	m.u.sidr_rep.qpn = 0x123456;
	m.u.sidr_rep.qkey = 0x01234567;
	m.u.sidr_rep.service_id = 0x0000000001111c06ull;
	CHECK_EQ_U(uroce_cm_encode(&m, mad), 0);
	CHECK_EQ_U(mad[24 + 8], 0x12);
	CHECK_EQ_U(uroce_cm_decode(mad, sizeof(mad), &d), 0);
	CHECK(memcmp(&m, &d, sizeof(m)) == 0);
}

static void test_bad_mads_refused(void)
{
	uint8_t mad[RT_MAD_LEN];
	struct uroce_cm_msg m;

	expand(cap_req, sizeof(cap_req), mad);
	CHECK_EQ_U(uroce_cm_decode(mad, RT_MAD_LEN - 1, &m), (unsigned long long)-EMSGSIZE);
	mad[1] = 0x01; /* SMP class */
	CHECK_EQ_U(uroce_cm_decode(mad, sizeof(mad), &m), (unsigned long long)-EPROTO);
	mad[1] = 0x07;
	mad[2] = 1; /* class version 1 */
	CHECK_EQ_U(uroce_cm_decode(mad, sizeof(mad), &m), (unsigned long long)-EPROTO);
	mad[2] = 2;
	mad[3] = 0x81; /* a response method */
	CHECK_EQ_U(uroce_cm_decode(mad, sizeof(mad), &m), (unsigned long long)-EPROTO);
	mad[3] = 3;
	mad[17] = 0x1b; /* unknown attribute */
	CHECK_EQ_U(uroce_cm_decode(mad, sizeof(mad), &m), (unsigned long long)-ENOENT);
	m.attr_id = 0x99;
	CHECK_EQ_U(uroce_cm_encode(&m, mad), (unsigned long long)-EINVAL);
}

static void test_cma_hdr_and_gids(void)
{
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6, .sin6_port = htons(40000) }, d6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in s4 = { .sin_family = AF_INET }, d4 = { .sin_family = AF_INET };
	struct sockaddr_storage back;
	struct uroce_cma_hdr h;
	uint8_t pd[RT_CMA_HDR_LEN], gid[16];

	inet_pton(AF_INET6, "fd00::1", &s6.sin6_addr);
	inet_pton(AF_INET6, "fd00::2", &d6.sin6_addr);
	CHECK_EQ_U(uroce_cma_hdr_encode((struct sockaddr *)&s6, (struct sockaddr *)&d6, pd), 0);
	CHECK_EQ_U(pd[1], 0x60);
	CHECK_EQ_U(uroce_cma_hdr_decode(pd, sizeof(pd), &h), 0);
	CHECK_EQ_U(h.ip_version, 6);
	CHECK_EQ_U(h.src_port, 40000);
	CHECK(memcmp(&((struct sockaddr_in6 *)&h.dst)->sin6_addr, &d6.sin6_addr, 16) == 0);
	CHECK_EQ_U(uroce_cma_hdr_encode((struct sockaddr *)&s6, (struct sockaddr *)&d4, pd),
		   (unsigned long long)-EAFNOSUPPORT);
	pd[1] = 0x50;
	CHECK_EQ_U(uroce_cma_hdr_decode(pd, sizeof(pd), &h), (unsigned long long)-EPROTO);
	CHECK_EQ_U(uroce_cma_hdr_decode(pd, 35, &h), (unsigned long long)-EMSGSIZE);

	inet_pton(AF_INET, "127.0.0.7", &s4.sin_addr);
	uroce_gid_from_sockaddr((struct sockaddr *)&s4, gid);
	CHECK_EQ_U(gid[10], 0xff);
	CHECK_EQ_U(gid[11], 0xff);
	CHECK_EQ_U(gid[12], 127);
	CHECK_EQ_U(gid[15], 7);
	CHECK_EQ_U(uroce_sockaddr_from_gid(gid, 4791, &back), 0);
	CHECK_EQ_U(back.ss_family, AF_INET);
	CHECK_EQ_U(((struct sockaddr_in *)&back)->sin_addr.s_addr, s4.sin_addr.s_addr);
	CHECK_EQ_U(ntohs(((struct sockaddr_in *)&back)->sin_port), 4791);
	uroce_gid_from_sockaddr((struct sockaddr *)&s6, gid);
	CHECK_EQ_U(uroce_sockaddr_from_gid(gid, 0, &back), 0);
	CHECK_EQ_U(back.ss_family, AF_INET6);
	{
		uint16_t ps, port;
		uroce_cm_service_split(0x0000000001061c06ull, &ps, &port);
		CHECK_EQ_U(ps, RT_RDMA_PS_TCP);
		CHECK_EQ_U(port, 7174);
		CHECK_EQ_U(uroce_cm_service_id(RT_RDMA_PS_TCP, 7174), 0x0000000001061c06ull);
	}
}

int main(void)
{
	RUN(test_kernel_req_decodes);
	RUN(test_kernel_rep_rtu_dreq_drep);
	RUN(test_rej_mra_sidr_roundtrip);
	RUN(test_bad_mads_refused);
	RUN(test_cma_hdr_and_gids);
	return test_done();
}

/*
 * Test and benchmark helper (not a test itself): writes synthetic RoCEv2
 * captures and sends RoCEv2 datagrams over a real UDP socket.
 *
 *   synth_gen coverage OUT.pcap      every opcode/header/AETH/CM combination (synth.h)
 *   synth_gen traffic OUT.pcap N     N packets of an RC conversation mix (benchmark):
 *                                    SEND 64 B, WRITE 128 B, READ 64 B, ACKs, an
 *                                    occasional NAK and RNR NAK
 *   synth_gen retrans OUT.pcap       known retransmissions for `packets --stats`
 *                                    (the expected counts are in the comment of retrans())
 *   synth_gen send SRC DST N [QPN]   N RC SEND ONLY datagrams from SRC to DST:4791
 *                                    (IPv4, DF set so the kernel's IP ID is 0 and
 *                                    the ICRC we compute is the one on the wire)
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "synth.h"

static void emit(void *ctx, const uint8_t *frame, size_t len)
{
	static uint64_t ts = 1700000000000000000ull;
	synth_pcap_add(ctx, ts += 1000, frame, (uint32_t)len, (uint32_t)len);
}

static int traffic(const char *path, unsigned long n)
{
	FILE *f = synth_pcap_open(path, 1);
	if (!f) {
		perror(path);
		return 1;
	}
	static uint8_t payload[256];
	uint8_t frame[1024];
	uint64_t rng = 7, ts = 1700000000000000000ull;
	struct synth req, rsp;
	synth_base(&req, &rng, 4, 0);
	synth_base(&rsp, &rng, 4, 0);
	memcpy(rsp.src, req.dst, 4);
	memcpy(rsp.dst, req.src, 4);
	req.fecn = req.becn = req.mig = req.se = false;
	rsp.fecn = rsp.becn = rsp.mig = rsp.se = false;
	req.tos = rsp.tos = 0;
	uint32_t psn = 1000, msn = 0;
	for (unsigned long i = 0; i < n; i++) {
		struct synth *s = &req;
		unsigned k = (unsigned)(i % 8);
		req.psn = psn;
		req.ackreq = true;
		req.payload = payload;
		switch (k) {
		case 0: req.opcode = RT_OP_RC_SEND_ONLY; req.payload_len = 64; break;
		case 2: req.opcode = RT_OP_RC_WRITE_ONLY; req.payload_len = 128; req.dmalen = 128; break;
		case 4: req.opcode = RT_OP_RC_READ_REQUEST; req.payload_len = 0; req.dmalen = 64; break;
		case 6: req.opcode = RT_OP_RC_SEND_ONLY_IMM; req.payload_len = 32; break;
		default:
			s = &rsp;
			rsp.psn = (psn - 1) & RT_PSN_MASK;
			rsp.payload = payload;
			rsp.payload_len = 0;
			if (k == 5) {
				rsp.opcode = RT_OP_RC_READ_RESPONSE_ONLY;
				rsp.payload_len = 64;
			} else {
				rsp.opcode = RT_OP_RC_ACKNOWLEDGE;
			}
			rsp.syndrome = i % 4096 == 1 ? 0x20 : i % 4096 == 3 ? 0x60 : 0x1F;
			rsp.msn = ++msn & RT_PSN_MASK;
			break;
		}
		if (s == &req)
			psn = (psn + 1) & RT_PSN_MASK;
		size_t len = synth_build(s, frame);
		synth_pcap_add(f, ts += 700, frame, (uint32_t)len, (uint32_t)len);
	}
	return fclose(f) == 0 ? 0 : 1;
}

/* One packet of retrans(): a copy of *s with these opcode and PSN. */
static void put(FILE *f, uint64_t *ts, struct synth *s, uint8_t opcode, uint32_t psn)
{
	uint8_t frame[2048];
	s->opcode = opcode;
	s->psn = psn & RT_PSN_MASK;
	size_t len = synth_build(s, frame);
	synth_pcap_add(f, *ts += 1000, frame, (uint32_t)len, (uint32_t)len);
}

/*
 * Retransmissions with known counts, for `rdmatrace packets --stats`:
 *  QP 0x12 (10.9.0.1 > 10.9.0.2, responses on QP 0x34): SEND ONLY PSN
 *   10..20, ACK 14, NAK PSN sequence error 15, Go-Back-N resending 15..20,
 *   ACK 20.  Requests 10..20: 6 repeats, 1 go-back; responses 14..20, none
 *   repeated; 2 ACKs, 1 NAK.
 *  QP 0x22 (responses on QP 0x44), across the PSN wrap: RDMA WRITE FIRST,
 *   MIDDLE, MIDDLE, LAST of 1024 bytes at PSN 0xFFFFFE, 0xFFFFFF, 0, 1 (path
 *   MTU 1024), ACK 1, READ request 4096 bytes at PSN 2 (takes 2..5), READ
 *   responses FIRST 2 and MIDDLE 3, the READ resent for the last 2048 bytes
 *   at PSN 4, responses MIDDLE 4 and LAST 5, SEND ONLY PSN 6, ACK 6 twice.
 *   Requests 16777214..6: 1 repeat, 1 go-back; responses 1..6: 1 repeat
 *   (the second ACK 6), 3 ACKs.
 *  UD QP 0x1 receives from two UD QPs (0x100 with PSN 100, 101; 0x200 with
 *   PSN 50, 51, interleaved) of the same host: two flows, no repeats.
 */
static int retrans(const char *path)
{
	FILE *f = synth_pcap_open(path, 1);
	if (!f) {
		perror(path);
		return 1;
	}
	static uint8_t payload[1024];
	uint64_t rng = 11, ts = 1700000000000000000ull;
	struct synth req, rsp;
	synth_base(&req, &rng, 4, 0);
	req.fecn = req.becn = req.mig = req.se = false;
	req.tos = 0;
	req.ackreq = true;
	req.payload = payload;
	rsp = req;
	memcpy(rsp.src, req.dst, 4);
	memcpy(rsp.dst, req.src, 4);
	rsp.payload_len = 0;
	rsp.ackreq = false;

	req.dqpn = 0x12;
	rsp.dqpn = 0x34;
	req.payload_len = 16;
	rsp.syndrome = 0x1F;
	for (uint32_t psn = 10; psn <= 20; psn++) {
		put(f, &ts, &req, RT_OP_RC_SEND_ONLY, psn);
		if (psn == 14)
			put(f, &ts, &rsp, RT_OP_RC_ACKNOWLEDGE, 14);
	}
	rsp.syndrome = rt_aeth_syndrome(RT_AETH_NAK, RT_NAK_PSN_SEQ_ERROR);
	put(f, &ts, &rsp, RT_OP_RC_ACKNOWLEDGE, 15);
	for (uint32_t psn = 15; psn <= 20; psn++)
		put(f, &ts, &req, RT_OP_RC_SEND_ONLY, psn);
	rsp.syndrome = 0x1F;
	put(f, &ts, &rsp, RT_OP_RC_ACKNOWLEDGE, 20);

	req.dqpn = 0x22;
	rsp.dqpn = 0x44;
	req.payload_len = 1024;
	req.dmalen = 4096;
	put(f, &ts, &req, RT_OP_RC_WRITE_FIRST, 0xFFFFFE);
	put(f, &ts, &req, RT_OP_RC_WRITE_MIDDLE, 0xFFFFFF);
	put(f, &ts, &req, RT_OP_RC_WRITE_MIDDLE, 0);
	put(f, &ts, &req, RT_OP_RC_WRITE_LAST, 1);
	put(f, &ts, &rsp, RT_OP_RC_ACKNOWLEDGE, 1);
	req.payload_len = 0;
	put(f, &ts, &req, RT_OP_RC_READ_REQUEST, 2);
	rsp.payload = payload;
	rsp.payload_len = 1024;
	put(f, &ts, &rsp, RT_OP_RC_READ_RESPONSE_FIRST, 2);
	put(f, &ts, &rsp, RT_OP_RC_READ_RESPONSE_MIDDLE, 3);
	req.dmalen = 2048;
	put(f, &ts, &req, RT_OP_RC_READ_REQUEST, 4);
	put(f, &ts, &rsp, RT_OP_RC_READ_RESPONSE_MIDDLE, 4);
	put(f, &ts, &rsp, RT_OP_RC_READ_RESPONSE_LAST, 5);
	req.payload_len = 16;
	put(f, &ts, &req, RT_OP_RC_SEND_ONLY, 6);
	rsp.payload_len = 0;
	put(f, &ts, &rsp, RT_OP_RC_ACKNOWLEDGE, 6);
	put(f, &ts, &rsp, RT_OP_RC_ACKNOWLEDGE, 6);

	struct synth ud = req;
	ud.dqpn = 1;
	ud.qkey = RT_GSI_QKEY;
	ud.payload_len = 16;
	ud.srcqp = 0x100;
	put(f, &ts, &ud, RT_OP_UD_SEND_ONLY, 100);
	ud.srcqp = 0x200;
	put(f, &ts, &ud, RT_OP_UD_SEND_ONLY, 50);
	ud.srcqp = 0x100;
	put(f, &ts, &ud, RT_OP_UD_SEND_ONLY, 101);
	ud.srcqp = 0x200;
	put(f, &ts, &ud, RT_OP_UD_SEND_ONLY, 51);
	return fclose(f) == 0 ? 0 : 1;
}

static int send_packets(const char *src, const char *dst, unsigned long n, uint32_t qpn)
{
	struct synth s;
	uint64_t rng = 99;
	synth_base(&s, &rng, 4, 0);
	if (inet_pton(AF_INET, src, s.src) != 1 || inet_pton(AF_INET, dst, s.dst) != 1) {
		fprintf(stderr, "synth_gen: bad address\n");
		return 2;
	}
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	int pmtu = IP_PMTUDISC_DO;
	setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu));
	struct sockaddr_in a = { .sin_family = AF_INET };
	memcpy(&a.sin_addr, s.src, 4);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		perror("bind");
		return 1;
	}
	socklen_t alen = sizeof(a);
	getsockname(fd, (struct sockaddr *)&a, &alen);
	s.sport = ntohs(a.sin_port);
	s.tos = 0;
	s.ttl = 64;
	s.opcode = RT_OP_RC_SEND_ONLY;
	s.fecn = s.becn = false;
	s.dqpn = qpn;
	static const uint8_t payload[16] = "rdmatrace live!";
	s.payload = payload;
	s.payload_len = sizeof(payload);
	struct sockaddr_in d = { .sin_family = AF_INET, .sin_port = htons(RT_ROCE_UDP_PORT) };
	memcpy(&d.sin_addr, s.dst, 4);
	uint8_t frame[512];
	for (unsigned long i = 0; i < n; i++) {
		s.psn = (uint32_t)(5000 + i);
		size_t len = synth_build(&s, frame);
		size_t ib = 14 + 20 + 8;
		if (sendto(fd, frame + ib, len - ib, 0, (struct sockaddr *)&d, sizeof(d)) < 0) {
			perror("sendto");
			return 1;
		}
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "coverage")) {
		FILE *f = synth_pcap_open(argv[2], 1);
		if (!f) {
			perror(argv[2]);
			return 1;
		}
		unsigned n = synth_all(emit, f);
		fprintf(stderr, "synth_gen: %u packets\n", n);
		return fclose(f) == 0 ? 0 : 1;
	}
	if (argc == 4 && !strcmp(argv[1], "traffic"))
		return traffic(argv[2], strtoul(argv[3], NULL, 0));
	if (argc == 3 && !strcmp(argv[1], "retrans"))
		return retrans(argv[2]);
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "send"))
		return send_packets(argv[2], argv[3], strtoul(argv[4], NULL, 0),
				    argc == 6 ? (uint32_t)strtoul(argv[5], NULL, 0) : 0x123);
	fprintf(stderr, "usage: synth_gen coverage OUT | traffic OUT N | retrans OUT | send SRC DST N [QPN]\n");
	return 2;
}

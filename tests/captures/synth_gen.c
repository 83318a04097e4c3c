/*
 * Test and benchmark helper (not a test itself): writes synthetic RoCEv2
 * captures and sends RoCEv2 datagrams over a real UDP socket.
 *
 *   synth_gen coverage OUT.pcap      every opcode/header/AETH/CM combination (synth.h)
 *   synth_gen traffic OUT.pcap N     N packets of an RC conversation mix (benchmark):
 *                                    SEND 64 B, WRITE 128 B, READ 64 B, ACKs, an
 *                                    occasional NAK and RNR NAK, one retransmission
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
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "send"))
		return send_packets(argv[2], argv[3], strtoul(argv[4], NULL, 0),
				    argc == 6 ? (uint32_t)strtoul(argv[5], NULL, 0) : 0x123);
	fprintf(stderr, "usage: synth_gen coverage OUT | traffic OUT N | send SRC DST N [QPN]\n");
	return 2;
}

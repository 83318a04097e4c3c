/*
 * Benchmark input: a clean run of about N packets and as many trace events
 * (RDMA WRITEs of 8 KiB, unsignaled but every 4th, and single-packet SENDs
 * with their receives), written by the test run generator
 * (tests/analysis/simrun.h) as capture.pcap and two trace files.
 *
 *     correlate_gen RUNDIR [PACKETS [FAULT]]
 *
 * FAULT (for demos and the CLI test): loss (one packet lost before the
 * capture point halfway through), rnr0 (a SEND meets an empty receive queue
 * with min_rnr_timer 0), rkey (a WRITE with a bad rkey ends the run).
 */
#include "analysis/simrun.h"

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: correlate_gen RUNDIR [PACKETS]\n");
		return 2;
	}
	uint64_t target = argc > 2 ? strtoull(argv[2], NULL, 0) : 1000000;
	const char *fault = argc > 3 ? argv[3] : "";
	if (*fault && strcmp(fault, "loss") && strcmp(fault, "rnr0") && strcmp(fault, "rkey")) {
		fprintf(stderr, "unknown fault %s (loss, rnr0, rkey)\n", fault);
		return 2;
	}
	struct sim_cfg c;
	memset(&c, 0, sizeof(c));
	c.t0 = 1795311408000000000ull;
	c.off_a = -200000000;
	c.off_b = 480000000;
	c.qpn_a = 0x11;
	c.qpn_b = 0x12;
	c.psn_a = 0xFFF000; /* wraps early */
	c.psn_b = 0x100;
	c.mtu = 1024;
	c.timeout = 14;
	c.retry_cnt = 7;
	c.rnr_retry = 7;
	c.min_rnr_timer_b = !strcmp(fault, "rnr0") ? 0 : 12;
	struct sim s;
	if (sim_open(&s, argv[1], &c) < 0) {
		perror(argv[1]);
		return 1;
	}
	struct sim_fault nf = SIM_NOFAULT;
	uint64_t id = 1;
	int injected = !*fault;
	while (s.packets < target) {
		if (!injected && s.packets >= target / 2) {
			struct sim_fault f = SIM_NOFAULT;
			injected = 1;
			if (!strcmp(fault, "loss")) {
				f.lose_before = 2;
				sim_wr(&s, id++, 0, 8192, 1, &f);
			} else if (!strcmp(fault, "rnr0")) {
				f.rnr_post_after_ns = 2000000;
				sim_wr(&s, id++, 2, 512, 1, &f);
			} else {
				f.bad_rkey = 1;
				sim_wr(&s, id++, 0, 8192, 1, &f);
				break;
			}
			continue;
		}
		/* 1 WRITE of 8 packets (+ ACK) and 8 SENDs (+ ACKs), 8 receives */
		sim_wr(&s, id, 0, 8192, id % 4 == 0, &nf);
		id++;
		for (int i = 0; i < 8; i++)
			sim_post_recv(&s, 1000000 + id * 16 + (uint64_t)i, 4096);
		for (int i = 0; i < 8; i++, id++)
			sim_wr(&s, id, 2, 512, 1, &nf);
	}
	uint64_t events = s.ea.n + s.eb.n;
	if (sim_close(&s) < 0) {
		fprintf(stderr, "writing %s failed\n", argv[1]);
		return 1;
	}
	printf("%llu packets, %llu trace events\n", (unsigned long long)s.packets, (unsigned long long)events);
	return 0;
}

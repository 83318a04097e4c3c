/*
 * Live capture on loopback through the library API: RoCEv2 datagrams sent
 * from this process over a UDP socket (to our own 127.x.y.z addresses, so
 * other tests on lo do not disturb us) are captured, written to pcapng,
 * read back and decoded with a good ICRC; rt_live_stop() from another
 * thread ends a capture cleanly with the statistics block in the file.
 * Skips when the process may not capture.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rdmatrace/capfile.h"
#include "rdmatrace/live_capture.h"
#include "rdmatrace/roce_decode.h"
#include "synth.h"
#include "testlib.h"

static char src_ip[32], dst_ip[32], filter[128], tmpdir[128];

static int send_roce(unsigned n, uint32_t first_psn)
{
	struct synth s;
	uint64_t rng = 5;
	synth_base(&s, &rng, 4, 0);
	inet_pton(AF_INET, src_ip, s.src);
	inet_pton(AF_INET, dst_ip, s.dst);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return -errno;
	int pmtu = IP_PMTUDISC_DO; /* DF and, unconnected, IP ID 0: the ICRC is predictable */
	setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu));
	struct sockaddr_in a = { .sin_family = AF_INET };
	memcpy(&a.sin_addr, s.src, 4);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		return -errno;
	}
	socklen_t alen = sizeof(a);
	getsockname(fd, (struct sockaddr *)&a, &alen);
	s.sport = ntohs(a.sin_port);
	s.tos = 0;
	s.opcode = RT_OP_RC_SEND_ONLY;
	s.dqpn = 0x4242;
	static const uint8_t payload[21] = "live capture payload";
	s.payload = payload;
	s.payload_len = sizeof(payload);
	struct sockaddr_in d = { .sin_family = AF_INET, .sin_port = htons(RT_ROCE_UDP_PORT) };
	memcpy(&d.sin_addr, s.dst, 4);
	uint8_t frame[512];
	for (unsigned i = 0; i < n; i++) {
		s.psn = first_psn + i;
		size_t len = synth_build(&s, frame);
		if (sendto(fd, frame + 42, len - 42, 0, (struct sockaddr *)&d, sizeof(d)) < 0) {
			close(fd);
			return -errno;
		}
	}
	close(fd);
	return 0;
}

struct runner {
	struct rt_live *lc;
	struct rt_live_result res;
	int rc;
	char err[256];
	unsigned seen;
};

static void *run_thread(void *arg)
{
	struct runner *r = arg;
	r->rc = rt_live_run(r->lc, &r->res, r->err, sizeof(r->err));
	return NULL;
}

static void count_packet(void *ctx, const struct rt_caprec *rec)
{
	struct runner *r = ctx;
	(void)rec;
	r->seen++;
}

/* Decode a capture; returns RoCE packets with good ICRC and PSNs first.. in order. */
static unsigned check_file(const char *path, uint32_t first_psn, unsigned *roce)
{
	struct rt_capfile *f;
	char err[256];
	unsigned good = 0;
	*roce = 0;
	if (rt_capfile_open(path, RT_CAPFILE_AUTO, &f, err, sizeof(err)) < 0) {
		printf("# %s\n", err);
		return 0;
	}
	struct rt_caprec rec;
	int rc;
	while ((rc = rt_capfile_next(f, &rec)) > 0) {
		struct rt_pkt p;
		if (rt_decode(NULL, rec.linktype, rec.data, rec.caplen, rec.wirelen, &p) != 1)
			continue;
		if (p.bth.psn == first_psn + *roce && p.icrc_status == RT_ICRC_GOOD && p.bth.dqpn == 0x4242 &&
		    p.payload_len == 21)
			good++;
		else
			printf("# frame %llu: psn %u icrc %s\n", (unsigned long long)rec.frame, p.bth.psn,
			       rt_icrc_status_name(p.icrc_status));
		(*roce)++;
	}
	CHECK_EQ_U(rc, 0);
	rt_capfile_close(f);
	return good;
}

/* Find the interface statistics block and its isb_ifdrop option. */
static int has_isb_ifdrop(const char *path)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return 0;
	static uint8_t b[1 << 20];
	size_t len = fread(b, 1, sizeof(b), fp);
	fclose(fp);
	size_t pos = 0;
	while (pos + 12 <= len) {
		uint32_t type, total;
		memcpy(&type, b + pos, 4);
		memcpy(&total, b + pos + 4, 4);
		if (total < 12 || pos + total > len)
			return 0;
		if (type == 5) {
			size_t o = pos + 20;
			while (o + 4 <= pos + total - 4) {
				uint16_t code, olen;
				memcpy(&code, b + o, 2);
				memcpy(&olen, b + o + 2, 2);
				if (code == 5 && olen == 8)
					return 1;
				if (code == 0)
					break;
				o += 4 + ((olen + 3u) & ~3u);
			}
		}
		pos += total;
	}
	return 0;
}

static void test_capture_count(void)
{
	char path[256], err[256];
	snprintf(path, sizeof(path), "%s/count.pcapng", tmpdir);
	struct runner r;
	memset(&r, 0, sizeof(r));
	struct rt_live_opts o = { .iface = "lo", .filter = filter, .max_packets = 10, .duration_s = 20,
				  .write_path = path, .comment = "test_live", .on_packet = count_packet, .ctx = &r };
	int rc = rt_live_open(&o, &r.lc, err, sizeof(err));
	if (rc == -EPERM || rc == -ENODEV)
		SKIP("cannot capture on lo here");
	CHECK_EQ_U(rc, 0);
	if (rc)
		return;
	pthread_t t;
	pthread_create(&t, NULL, run_thread, &r);
	CHECK_EQ_U(send_roce(10, 100), 0);
	pthread_join(t, NULL);
	rt_live_close(r.lc);
	CHECK_EQ_U(r.rc, 0);
	CHECK_EQ_U(r.res.packets, 10);
	CHECK_EQ_U(r.seen, 10);
	CHECK(r.res.stats_valid);
	printf("# filter: %s; ns timestamps: %d; kernel drops %llu\n", r.res.filter, r.res.nanosecond,
	       (unsigned long long)r.res.ps_drop);
	unsigned roce;
	CHECK_EQ_U(check_file(path, 100, &roce), 10);
	CHECK_EQ_U(roce, 10);
	CHECK(has_isb_ifdrop(path));
}

/* Capture to `name` in the temporary directory (its path in path) on a
 * thread while this one sends n packets from first_psn, waits pause_ms and
 * stops it; r holds the result.  1 when this process may not capture here. */
static int capture_and_stop(const char *name, unsigned n, uint32_t first_psn, long pause_ms, char *path, size_t len,
			    struct runner *r)
{
	char err[256];
	snprintf(path, len, "%s/%s", tmpdir, name);
	memset(r, 0, sizeof(*r));
	struct rt_live_opts o = { .iface = "lo", .filter = filter, .write_path = path };
	int rc = rt_live_open(&o, &r->lc, err, sizeof(err));
	if (rc == -EPERM || rc == -ENODEV)
		return 1;
	if (rc)
		return rc;
	pthread_t t;
	pthread_create(&t, NULL, run_thread, r);
	rc = send_roce(n, first_psn);
	struct timespec ts = { pause_ms / 1000, pause_ms % 1000 * 1000000 };
	nanosleep(&ts, NULL);
	rt_live_stop(r->lc);
	pthread_join(t, NULL);
	rt_live_close(r->lc);
	return rc;
}

static void test_capture_stop_from_thread(void)
{
	char path[256];
	struct runner r;
	/* give the packets time to be read, then stop */
	int rc = capture_and_stop("stop.pcapng", 3, 7000, 500, path, sizeof(path), &r);
	if (rc == 1)
		SKIP("cannot capture on lo here");
	CHECK_EQ_U(rc, 0);
	if (rc)
		return;
	CHECK_EQ_U(r.rc, 0);
	CHECK_EQ_U(r.res.packets, 3);
	unsigned roce;
	CHECK_EQ_U(check_file(path, 7000, &roce), 3);
	CHECK(has_isb_ifdrop(path));
}

/* A burst far larger than TPACKET_V2 slots of lo's MTU would hold, and a stop
 * right after it: every packet is in the file, none dropped (what the ring
 * still held at the stop is read before the file is finished). */
static void test_burst_then_stop(void)
{
	char path[256];
	struct runner r;
	enum { BURST = 5000 };
	int rc = capture_and_stop("burst.pcapng", BURST, 20000, 0, path, sizeof(path), &r);
	if (rc == 1)
		SKIP("cannot capture on lo here");
	CHECK_EQ_U(rc, 0);
	if (rc)
		return;
	CHECK_EQ_U(r.rc, 0);
	printf("# burst: %llu captured, %llu dropped by the kernel\n", (unsigned long long)r.res.packets,
	       (unsigned long long)r.res.ps_drop);
	CHECK_EQ_U(r.res.ps_drop, 0);
	CHECK_EQ_U(r.res.packets, BURST);
	unsigned roce;
	CHECK_EQ_U(check_file(path, 20000, &roce), BURST);
	CHECK_EQ_U(roce, BURST);
}

static void test_duration_and_errors(void)
{
	char err[256];
	struct rt_live *lc;
	struct rt_live_opts o = { .iface = "lo", .filter = filter, .duration_s = 0.3 };
	int rc = rt_live_open(&o, &lc, err, sizeof(err));
	if (rc == -EPERM || rc == -ENODEV)
		SKIP("cannot capture on lo here");
	CHECK_EQ_U(rc, 0);
	if (!rc) {
		struct timespec a, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		struct rt_live_result res;
		CHECK_EQ_U(rt_live_run(lc, &res, err, sizeof(err)), 0);
		clock_gettime(CLOCK_MONOTONIC, &b);
		double el = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
		CHECK(el >= 0.29 && el < 3);
		rt_live_close(lc);
	}
	struct rt_live_opts bad = { .iface = "no-such-iface0" };
	CHECK(rt_live_open(&bad, &lc, err, sizeof(err)) < 0);
	printf("# %s\n", err);
	struct rt_live_opts badf = { .iface = "lo", .filter = "this is not bpf" };
	CHECK_EQ_U(rt_live_open(&badf, &lc, err, sizeof(err)), -EINVAL);
	printf("# %s\n", err);
	CHECK(strstr(err, "filter") != NULL);
	const uint16_t ports[] = { 4791, 4792 };
	struct rt_live_opts pf = { .iface = "lo", .ports = ports, .nports = 2, .filter = "host 127.0.0.9" };
	char f[512];
	CHECK_EQ_U(rt_live_filter(&pf, f, sizeof(f)), 0);
	CHECK_STR(f, "((udp dst port (4791 or 4792)) or (vlan and udp dst port (4791 or 4792))) and (host 127.0.0.9)");
}

int main(void)
{
	unsigned a = 100 + (unsigned)getpid() % 100, b = ((unsigned)getpid() >> 7) % 250;
	snprintf(src_ip, sizeof(src_ip), "127.%u.%u.1", a, b);
	snprintf(dst_ip, sizeof(dst_ip), "127.%u.%u.2", a, b);
	snprintf(filter, sizeof(filter), "src host %s and dst host %s", src_ip, dst_ip);
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/rt-live-XXXXXX");
	if (!mkdtemp(tmpdir))
		return 1;
	RUN(test_capture_count);
	RUN(test_capture_stop_from_thread);
	RUN(test_burst_then_stop);
	RUN(test_duration_and_errors);
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", tmpdir);
	return test_done();
}

/*
 * Lab "bulk": moving a large buffer, RDMA against TCP.
 *
 * RDMA mode: the client pushes --size bytes into the server's registered
 * buffer as --count chunked RDMA WRITEs, asking for a completion only every
 * --signal-every chunks (unsignaled WRITEs complete silently when a later
 * signaled one does).  TCP mode (--mode tcp): the same bytes through a
 * plain TCP socket, for the "RDMA vs TCP" comparison: compare the elapsed
 * time and where the CPU time goes (the server does no work at all for
 * the RDMA transfer).  Both sides check the data byte for byte.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "lab_common.h"

static double mb_per_s(uint64_t bytes, uint64_t ms)
{
	return ms ? (double)bytes / 1e6 / ((double)ms / 1000.0) : 0.0;
}

static int rdma_server(const struct lab_opts *o)
{
	struct lab_region s = { .len = o->size, .access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE };
	struct lab_conn c = {0}; /* lab_destroy() after an early failure */
	struct lab_qp_caps caps = { .send_wr = 4, .recv_wr = 4 };
	int rc = lab_accept_region(o, &c, &caps, &s);
	if (!s.buf)
		return 1;
	if (rc == 0)
		rc = lab_wait_disconnect(&c, o->timeout_ms * 6);
	long bad = lab_check_pattern(s.buf, s.len, o->seed);
	lab_result(o, rc == 0 && bad < 0, "transport=rdma bytes=%zu first_bad_byte=%ld", s.len, bad);
	lab_release(&c, s.mr, s.buf);
	return rc == 0 && bad < 0 ? 0 : 1;
}

static int rdma_client(const struct lab_opts *o)
{
	struct lab_conn c = {0}; /* lab_destroy() after an early failure */
	unsigned sq = 128;
	struct lab_qp_caps caps = { .send_wr = sq, .recv_wr = 4 };
	uint8_t *buf = malloc(o->size);
	struct ibv_mr *mr = NULL;
	uint64_t chunk = (o->size + o->count - 1) / o->count, start = 0, elapsed = 0;
	unsigned posted = 0, done = 0, completions = 0;
	bool ok = false;
	uint64_t raddr;
	uint32_t rkey, rlen;
	if (!buf)
		fprintf(stderr, "lab: cannot allocate the %llu bytes to send\n", (unsigned long long)o->size);
	if (!buf || lab_client_connect(o, &c, &caps, NULL, NULL) != 0 || lab_peer_cap(&c, &raddr, &rkey, &rlen) != 0)
		goto out;
	if (rlen < o->size)
		goto out;
	lab_fill_pattern(buf, o->size, o->seed);
	mr = lab_reg_mr(&c, buf, o->size, IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		goto out;
	lab_phase("writing %llu bytes as %u WRITEs of %llu bytes, signaled every %u", (unsigned long long)o->size,
		  o->count, (unsigned long long)chunk, o->signal_every);
	start = lab_now_ms();
	while (done < o->count) {
		while (posted < o->count && posted - done < sq - o->signal_every) {
			uint64_t off = (uint64_t)posted * chunk;
			uint64_t len = off + chunk > o->size ? o->size - off : chunk;
			bool signaled = (posted + 1) % o->signal_every == 0 || posted + 1 == o->count;
			if (lab_post_send(&c, IBV_WR_RDMA_WRITE, posted, buf + off, (uint32_t)len, mr->lkey, raddr + off,
					  rkey, 0, signaled) != 0)
				goto out;
			posted++;
		}
		struct ibv_wc wc;
		char text[128];
		if (lab_poll(&c, &wc, o->timeout_ms) <= 0) {
			fprintf(stderr, "lab: no completion within %d ms (%u of %u chunks done)\n", o->timeout_ms, done, o->count);
			goto out;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			fprintf(stderr, "lab: %s\n", lab_wc_text(&wc, text, sizeof(text)));
			goto out;
		}
		completions++;
		done = (unsigned)wc.wr_id + 1;
	}
	elapsed = lab_now_ms() - start;
	ok = true;
	lab_disconnect(&c, o->timeout_ms);
out:
	lab_result(o, ok, "transport=rdma bytes=%llu chunks=%u completions=%u elapsed_ms=%llu MBps=%.1f",
		   (unsigned long long)o->size, done, completions, (unsigned long long)elapsed, mb_per_s(o->size, elapsed));
	lab_release(&c, mr, buf);
	return ok ? 0 : 1;
}

/* A TCP socket to or from the lab address; the server accepts one connection. */
static int tcp_socket(const struct lab_opts *o)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res;
	int rc = getaddrinfo(o->addr, o->port, &hints, &res);
	if (rc != 0) {
		fprintf(stderr, "lab: %s: %s\n", o->addr, gai_strerror(rc));
		return -1;
	}
	int fd = socket(res->ai_family, SOCK_STREAM, 0), one = 1;
	struct timeval tv = { .tv_sec = o->timeout_ms / 1000 * 3, .tv_usec = 0 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (o->server) {
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, res->ai_addr, res->ai_addrlen) != 0 || listen(fd, 1) != 0) {
			perror("lab: tcp bind/listen");
			close(fd);
			fd = -1;
		} else {
			printf("lab: server ready\n");
			fflush(stdout);
			int cfd = accept(fd, NULL, NULL);
			close(fd);
			fd = cfd;
		}
	} else {
		uint64_t deadline = lab_now_ms() + (uint64_t)o->timeout_ms;
		while (connect(fd, res->ai_addr, res->ai_addrlen) != 0) {
			if (errno != ECONNREFUSED || lab_now_ms() > deadline) {
				perror("lab: tcp connect");
				close(fd);
				fd = -1;
				break;
			}
			usleep(50000);
		}
	}
	freeaddrinfo(res);
	return fd;
}

static int tcp_run(const struct lab_opts *o)
{
	uint8_t *buf = o->server ? calloc(1, o->size) : malloc(o->size);
	uint64_t done = 0, start, elapsed;
	bool ok = false;
	int fd = buf ? tcp_socket(o) : -1;
	if (fd < 0)
		goto out;
	if (!o->server)
		lab_fill_pattern(buf, o->size, o->seed);
	lab_phase("%s %llu bytes over TCP", o->server ? "receiving" : "sending", (unsigned long long)o->size);
	start = lab_now_ms();
	while (done < o->size) {
		ssize_t n = o->server ? read(fd, buf + done, o->size - done) : write(fd, buf + done, o->size - done);
		if (n <= 0) {
			perror("lab: tcp transfer");
			break;
		}
		done += (uint64_t)n;
	}
	elapsed = lab_now_ms() - start;
	ok = done == o->size && (!o->server || lab_check_pattern(buf, o->size, o->seed) < 0);
	lab_result(o, ok, "transport=tcp bytes=%llu elapsed_ms=%llu MBps=%.1f", (unsigned long long)done,
		   (unsigned long long)elapsed, mb_per_s(done, elapsed));
	close(fd);
out:
	if (!ok && fd < 0)
		lab_result(o, false, "transport=tcp bytes=0");
	free(buf);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct lab_opts o;
	lab_parse_options(argc, argv, &o, "bulk",
			  "\nbulk: --size total bytes (16M), --count chunks (64), --signal-every (8), --mode rdma|tcp\n");
	if (!o.size)
		o.size = 16u << 20;
	if (!o.count)
		o.count = 64;
	if (!o.signal_every)
		o.signal_every = 8;
	if (o.signal_every > 64)
		o.signal_every = 64;
	if (o.size / o.count > 0x7fffffffu) {
		fprintf(stderr, "rt-lab-bulk: chunks must be under 2 GiB\n");
		return 2;
	}
	if (o.mode && strcmp(o.mode, "tcp") == 0)
		return tcp_run(&o);
	if (o.mode && strcmp(o.mode, "rdma") != 0) {
		fprintf(stderr, "rt-lab-bulk: --mode is rdma or tcp\n");
		return 2;
	}
	return o.server ? rdma_server(&o) : rdma_client(&o);
}

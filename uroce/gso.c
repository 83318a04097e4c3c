/*
 * When uroce may send a run of packets as one UDP GSO send, and the ICRC
 * correction that GSO needs for IPv4.
 *
 * Policy ($UROCE_GSO): "0" never; "1" always (where the kernel has
 * UDP_SEGMENT); unset or "auto" (the default): only while no packet capture
 * can see the unsegmented send.  On loopback the kernel hands a GSO send to
 * the taps (tcpdump, dumpcap, libpcap) in one piece unless the device itself
 * segments in software (lo with tx-udp-segmentation off), so auto mode uses
 * GSO only when source and destination are loopback addresses (the packets
 * stay on this namespace's lo) and, checked again before every batch, either
 *   - no AF_PACKET socket of this network namespace is bound to lo or to all
 *     devices (/proc/net/packet; a capture's socket is listed from the moment
 *     it is created, before it is bound and sees anything), or
 *   - lo does not offer UDP segmentation (ETHTOOL_GFEATURES), so the kernel
 *     segments before the taps and they see every RoCE packet on its own.
 *
 * While a capture is seen, GSO stays off and the check is repeated only every
 * UROCE_TAP_RECHECK_NS (1 ms): the check itself costs about a microsecond.
 * A check that found no capture holds for UROCE_NOTAP_REUSE_NS (200 us): a
 * capture's socket is listed long before it can see a packet, because
 * libpcap creates it unbound (protocol 0, it receives nothing), allocates
 * its ring and only then binds it to ETH_P_ALL (dumpcap with its default
 * buffer: 9-15 ms from socket() to that bind, measured with `perf trace` on
 * one machine; 1.0-1.6 ms under strace on another).  The capture itself
 * gets a packet on lo when the kernel receives it, which under load can be
 * later still, so a send made just before the capture's socket appeared
 * can reach it whole (tests/uroce/test_uroce.sh allows that at its start).
 * A ping-pong thus pays for the check about once in five messages instead
 * of once per message.
 *
 * ICRC: the kernel gives the segments of one IPv4 GSO send consecutive IP
 * identifications starting at 0 (DF set, unconnected socket), and the
 * identification is covered by the ICRC.  The sender fixes the ICRC of
 * segment k by XOR with delta(k) = ICRC(id k) ^ ICRC(id 0), which by the
 * linearity of CRC-32 depends only on the UDP length; a receiver, which
 * cannot see the IP header through a socket, accepts an ICRC that matches
 * id 0 or id k for some k < UROCE_GSO_SEGS.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "uroce.h"

void uroce_gso_init(struct uroce_ctx *ctx)
{
	const char *e = getenv("UROCE_GSO");
	if (e && !strcmp(e, "1"))
		ctx->gso_mode = UROCE_GSO_ALWAYS;
	else if (e && !strcmp(e, "0"))
		ctx->gso_mode = UROCE_GSO_NEVER;
	else
		ctx->gso_mode = UROCE_GSO_AUTO;
	ctx->packet_fd = ctx->gso_mode == UROCE_GSO_AUTO ? open("/proc/net/packet", O_RDONLY | O_CLOEXEC) : -1;
	ctx->lo_ifindex = (int)if_nametoindex("lo");
	ctx->gso_off = ctx->gso_mode == UROCE_GSO_NEVER || (ctx->gso_mode == UROCE_GSO_AUTO && ctx->packet_fd < 0);
}

void uroce_gso_fini(struct uroce_ctx *ctx)
{
	if (ctx->packet_fd >= 0)
		close(ctx->packet_fd);
	ctx->packet_fd = -1;
}

#define UROCE_TAP_RECHECK_NS 1000000ull
#define UROCE_NOTAP_REUSE_NS 200000ull

static bool is_loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
	return ss->ss_family == AF_INET6 && IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)ss)->sin6_addr);
}

/* True when some packet socket of this namespace could see lo (or when we cannot tell). */
static bool tap_present(struct uroce_ctx *ctx)
{
	char buf[4096];
	ssize_t n = pread(ctx->packet_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return true;
	if (n == (ssize_t)sizeof(buf) - 1)
		return true; /* many sockets: do not bother parsing */
	buf[n] = 0;
	const char *line = strchr(buf, '\n'); /* skip the header */
	while (line && line[1]) {
		line++;
		/* sk RefCnt Type Proto Iface R Rmem User Inode */
		long iface = -1;
		if (sscanf(line, "%*s %*s %*s %*s %ld", &iface) != 1 || iface == 0 || iface == ctx->lo_ifindex)
			return true;
		line = strchr(line, '\n');
	}
	return false;
}

/* Does lo segment UDP GSO sends in software (tx-udp-segmentation off)? */
static bool lo_segments_in_software(int fd)
{
	static int bit = -2; /* index of "tx-udp-segmentation" in the feature strings, -1 unknown */
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	int b = __atomic_load_n(&bit, __ATOMIC_RELAXED);
	if (b == -2) {
		b = -1;
		struct {
			struct ethtool_sset_info hdr;
			uint32_t data[1];
		} si = { .hdr = { .cmd = ETHTOOL_GSSET_INFO, .sset_mask = 1ull << ETH_SS_FEATURES } };
		ifr.ifr_data = (void *)&si;
		if (ioctl(fd, SIOCETHTOOL, &ifr) == 0 && si.hdr.sset_mask && si.data[0] && si.data[0] < 1024) {
			uint32_t count = si.data[0];
			struct ethtool_gstrings *gs = calloc(1, sizeof(*gs) + (size_t)count * ETH_GSTRING_LEN);
			if (gs) {
				gs->cmd = ETHTOOL_GSTRINGS;
				gs->string_set = ETH_SS_FEATURES;
				gs->len = count;
				ifr.ifr_data = (void *)gs;
				if (ioctl(fd, SIOCETHTOOL, &ifr) == 0)
					for (uint32_t i = 0; i < count && b < 0; i++)
						if (!strncmp((const char *)gs->data + i * ETH_GSTRING_LEN, "tx-udp-segmentation",
						             ETH_GSTRING_LEN))
							b = (int)i;
				free(gs);
			}
		}
		__atomic_store_n(&bit, b, __ATOMIC_RELAXED);
	}
	if (b < 0)
		return false;
	struct {
		struct ethtool_gfeatures hdr;
		struct ethtool_get_features_block blocks[32];
	} gf;
	memset(&gf, 0, sizeof(gf));
	gf.hdr.cmd = ETHTOOL_GFEATURES;
	gf.hdr.size = 32;
	ifr.ifr_data = (void *)&gf;
	if ((unsigned)b / 32 >= 32 || ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		return false;
	return !(gf.blocks[b / 32].active & (1u << (b % 32)));
}

bool uroce_gso_dst_ok(const struct uroce_ctx *ctx, const struct sockaddr_storage *dst)
{
	return ctx->gso_mode == UROCE_GSO_ALWAYS || is_loopback(dst);
}

bool uroce_gso_allowed(struct uroce_ctx *ctx, int fd, const struct sockaddr_storage *src)
{
	if (ctx->gso_off)
		return false;
	if (ctx->gso_mode == UROCE_GSO_ALWAYS)
		return true;
	if (!is_loopback(src))
		return false;
	/* A capture seen less than UROCE_TAP_RECHECK_NS ago is taken to be still
	   there (no GSO meanwhile); "no capture" holds for UROCE_NOTAP_REUSE_NS,
	   less than any libpcap capture needs before it sees a packet. */
	uint64_t now = uroce_now_ns();
	if (ctx->tap_seen_ns && now - ctx->tap_seen_ns < UROCE_TAP_RECHECK_NS)
		return false;
	if (ctx->notap_ns && now - ctx->notap_ns < UROCE_NOTAP_REUSE_NS)
		return true;
	if (!tap_present(ctx)) {
		ctx->tap_seen_ns = 0;
		ctx->notap_ns = now;
		return true;
	}
	ctx->notap_ns = 0;
	if (lo_segments_in_software(fd))
		return true;
	ctx->tap_seen_ns = now;
	return false;
}

/* delta[k] for IPv4 packets of UDP length len (cached; the last few lengths). */
static const uint32_t *id_deltas(struct uroce_ctx *ctx, size_t len)
{
	for (unsigned i = 0; i < UROCE_DELTA_CACHE; i++)
		if (ctx->deltas[i].len == len)
			return ctx->deltas[i].d;
	static const uint8_t zeros[UROCE_PKT_MAX];
	if (len < RT_ICRC_LEN || len > sizeof(zeros))
		return NULL;
	struct uroce_id_deltas *c = &ctx->deltas[ctx->delta_next++ % UROCE_DELTA_CACHE];
	struct rt_roce_addr ra;
	memset(&ra, 0, sizeof(ra));
	ra.family = AF_INET;
	ra.ip_df = true;
	uint32_t base = 0, bitd[8];
	unsigned nbits = 0;
	while ((1u << nbits) < UROCE_GSO_SEGS)
		nbits++;
	for (unsigned b = 0; b <= nbits; b++) {
		ra.ip_id = b ? (uint16_t)(1u << (b - 1)) : 0;
		struct rt_roce_icrc st;
		rt_roce_icrc_begin(&st, &ra, len);
		rt_roce_icrc_update(&st, zeros, len - RT_ICRC_LEN);
		if (b)
			bitd[b - 1] = rt_roce_icrc_end(&st) ^ base;
		else
			base = rt_roce_icrc_end(&st);
	}
	for (unsigned k = 0; k < UROCE_GSO_SEGS; k++) {
		uint32_t d = 0;
		for (unsigned b = 0; b < nbits; b++)
			if (k & (1u << b))
				d ^= bitd[b];
		c->d[k] = d;
	}
	c->len = len;
	return c->d;
}

void uroce_icrc_set_id(struct uroce_ctx *ctx, uint8_t *icrc, size_t udp_len, unsigned id)
{
	const uint32_t *d = id ? id_deltas(ctx, udp_len) : NULL;
	if (d && id < UROCE_GSO_SEGS)
		rt_icrc_store(icrc, rt_icrc_load(icrc) ^ d[id]);
}

bool uroce_icrc_gso_match(struct uroce_ctx *ctx, size_t udp_len, uint32_t computed, uint32_t wire)
{
	const uint32_t *d = id_deltas(ctx, udp_len);
	if (!d)
		return false;
	uint32_t x = computed ^ wire;
	for (unsigned k = 1; k < UROCE_GSO_SEGS; k++)
		if (d[k] == x)
			return true;
	return false;
}

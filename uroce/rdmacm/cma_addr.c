/*
 * The uroce device behind every rdma_cm_id, and addresses: which local
 * address an id uses (given, bound, or chosen for the destination), giving
 * that address to the device (uroce_priv_add_addr: UDP 4791 there becomes a
 * GID), the per-process RDMA CM port space (bind conflicts, ephemeral ports)
 * and the listener lookup for incoming requests.
 */
#include "cma_priv.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../uroce_priv.h"

static struct ibv_context *g_ctx;
static struct ibv_pd *g_pd;
static struct sockaddr_storage g_client4; /* this process's own address for loopback peers */
static bool g_client4_set;

/* Open the first uroce device (under cma_lock).  Returns NULL with errno set. */
struct ibv_context *cma_verbs(void)
{
	struct ibv_device **list;
	int n, i, open_errno = 0;

	if (g_ctx)
		return g_ctx;
	list = ibv_get_device_list(&n);
	if (!list) {
		cma_warn("no RDMA device: is build/uroce (uroce's libibverbs.so.1) on LD_LIBRARY_PATH?");
		errno = ENODEV;
		return NULL;
	}
	for (i = 0; i < n && !g_ctx; i++) {
		struct ibv_context *ctx = ibv_open_device(list[i]);
		if (!ctx) {
			open_errno = errno;
			cma_warn("cannot open RDMA device %s: %s", ibv_get_device_name(list[i]), strerror(errno));
			continue;
		}
		if (uroce_priv_is_uroce(ctx))
			g_ctx = ctx;
		else
			ibv_close_device(ctx);
	}
	ibv_free_device_list(list);
	if (!g_ctx && open_errno) {
		/* the device is there and refused to open (a bad UROCE_FAULTS, say):
		 * the reason was said above, and the caller's errno carries it */
		errno = open_errno;
	} else if (!g_ctx) {
		cma_warn("no uroce device found: librdmacm (uroce) needs uroce's libibverbs.so.1");
		errno = ENODEV;
	}
	return g_ctx;
}

struct ibv_pd *cma_default_pd(void)
{
	if (!g_pd && g_ctx)
		g_pd = ibv_alloc_pd(g_ctx);
	return g_pd;
}

/* The device's read/atomic limits: what an id offers when the application
 * gives no conn_param (rdma-core: max_qp_rd_atom / max_qp_init_rd_atom). */
void cma_dev_rd_atom(uint8_t *responder_resources, uint8_t *initiator_depth)
{
	static struct ibv_device_attr da;
	static bool have;

	if (!have && g_ctx && ibv_query_device(g_ctx, &da) == 0)
		have = true;
	*responder_resources = have ? (uint8_t)(da.max_qp_rd_atom > CMA_MAX_RD_ATOMIC ? CMA_MAX_RD_ATOMIC : da.max_qp_rd_atom) : 1;
	*initiator_depth = have ? (uint8_t)(da.max_qp_init_rd_atom > CMA_MAX_RD_ATOMIC ? CMA_MAX_RD_ATOMIC : da.max_qp_init_rd_atom) : 1;
}

enum ibv_mtu cma_port_mtu(void)
{
	struct ibv_port_attr pa;

	if (g_ctx && ibv_query_port(g_ctx, 1, &pa) == 0 && pa.active_mtu >= IBV_MTU_256)
		return pa.active_mtu;
	return IBV_MTU_1024;
}

void cma_set_port(struct sockaddr *sa, uint16_t port)
{
	if (sa->sa_family == AF_INET)
		((struct sockaddr_in *)sa)->sin_port = htons(port);
	else if (sa->sa_family == AF_INET6)
		((struct sockaddr_in6 *)sa)->sin6_port = htons(port);
}

uint16_t cma_get_port(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)sa)->sin_port);
	if (sa->sa_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
	return 0;
}

socklen_t cma_addr_len(const struct sockaddr *sa)
{
	return sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
}

bool cma_addr_any(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ((const struct sockaddr_in *)sa)->sin_addr.s_addr == htonl(INADDR_ANY);
	if (sa->sa_family == AF_INET6)
		return IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)sa)->sin6_addr);
	return false;
}

/* Same IP address (ports ignored); an IPv4-mapped IPv6 address equals its IPv4 form. */
bool cma_addr_eq(const struct sockaddr *a, const struct sockaddr *b)
{
	uint8_t ga[16], gb[16];

	uroce_gid_from_sockaddr(a, ga);
	uroce_gid_from_sockaddr(b, gb);
	return memcmp(ga, gb, 16) == 0;
}

static bool addr_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	if (sa->sa_family == AF_INET6)
		return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr);
	return false;
}

/* Give addr to the device; fills the GID index and the address actually used. */
static int add_addr(const struct sockaddr *addr, uint8_t *gid_index, struct sockaddr_storage *used)
{
	int ret = uroce_priv_add_addr(g_ctx, addr, gid_index);

	if (ret < 0)
		return ret;
	if (used) {
		ret = uroce_priv_gid_addr(g_ctx, *gid_index, used);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* An id bound to an address of family takes that family only: an IPv4
 * one always, an IPv6 one when it asked for AFONLY (the kernel's RDMA CM;
 * net.ipv6.bindv6only is taken as 0, its default). */
static bool family_only(const struct cma_id *id, int family)
{
	return family == AF_INET || id->afonly;
}

/* Whether binding id to port of addr (any: the wildcard address) clashes
 * with an id bound before, as the kernel's cma_check_port judges: ids of
 * two families that each take their own family only never do. */
static bool port_conflict(const struct cma_id *id, uint16_t port, const struct sockaddr *addr, bool any)
{
	struct cma_id *o;

	for (o = cma_ids_head(); o; o = o->next) {
		if (o == id || !o->bound || o->child || o->id.ps != id->id.ps || o->port != port)
			continue;
		int ofam = o->id.route.addr.src_addr.sa_family;
		if (ofam != addr->sa_family && family_only(id, addr->sa_family) && family_only(o, ofam))
			continue;
		if (!(any || o->wildcard || cma_addr_eq(addr, &o->id.route.addr.src_addr)))
			continue;
		if (id->reuseaddr && o->reuseaddr && o->state != CMA_LISTEN)
			continue;
		return true;
	}
	return false;
}

static int pick_port(struct cma_id *id, const struct sockaddr *addr, bool any, uint16_t *port)
{
	unsigned start = 32768 + cma_random32() % 28232, i;

	for (i = 0; i < 28232; i++) {
		uint16_t p = (uint16_t)(32768 + (start - 32768 + i) % 28232);
		if (!port_conflict(id, p, addr, any)) {
			*port = p;
			return 0;
		}
	}
	return -EADDRNOTAVAIL;
}

/* Record addr (with its port) as the id's source; port 0 picks a free one. */
static int take_addr(struct cma_id *id, const struct sockaddr *addr, bool any, uint8_t gid_index)
{
	uint16_t port = cma_get_port(addr);
	int ret;

	if (id->bound && id->port)
		port = id->port;
	else if (port == 0) {
		ret = pick_port(id, addr, any, &port);
		if (ret)
			return ret;
	} else if (port_conflict(id, port, addr, any)) {
		return -EADDRINUSE;
	}
	memcpy(&id->id.route.addr.src_storage, addr, cma_addr_len(addr));
	cma_set_port(&id->id.route.addr.src_addr, port);
	id->port = port;
	id->wildcard = any;
	id->gid_index = gid_index;
	id->bound = true;
	id->id.verbs = g_ctx;
	id->id.port_num = 1;
	if (!any)
		uroce_gid_from_sockaddr(addr, id->id.route.addr.addr.ibaddr.sgid.raw);
	id->id.route.addr.addr.ibaddr.pkey = htons(0xffff);
	return 0;
}

int cma_bind(struct cma_id *id, const struct sockaddr *addr)
{
	uint8_t gid_index = 0;
	int ret;

	if (addr->sa_family != AF_INET && addr->sa_family != AF_INET6)
		return -EAFNOSUPPORT;
	if (id->bound)
		return -EINVAL;
	if (cma_addr_any(addr))
		return take_addr(id, addr, true, 0);
	ret = add_addr(addr, &gid_index, NULL);
	if (ret < 0) {
		char buf[INET6_ADDRSTRLEN] = "?";
		const void *ip = addr->sa_family == AF_INET ?
			(const void *)&((const struct sockaddr_in *)addr)->sin_addr :
			(const void *)&((const struct sockaddr_in6 *)addr)->sin6_addr;
		inet_ntop(addr->sa_family, ip, buf, sizeof(buf));
		cma_warn("cannot use %s for RoCE (UDP port 4791 there): %s", buf, strerror(-ret));
		return ret == -EADDRINUSE ? -EADDRINUSE : -EADDRNOTAVAIL;
	}
	return take_addr(id, addr, false, gid_index);
}

/* The local address that reaches dst: the kernel's route choice. */
static int route_src(const struct sockaddr *dst, struct sockaddr_storage *src)
{
	struct sockaddr_storage d;
	socklen_t len = sizeof(*src);
	int fd, ret = 0;

	memcpy(&d, dst, cma_addr_len(dst));
	cma_set_port((struct sockaddr *)&d, RT_ROCE_UDP_PORT);
	fd = socket(dst->sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&d, cma_addr_len(dst)) < 0 ||
	    getsockname(fd, (struct sockaddr *)src, &len) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* This process's own address for loopback peers: a free one in 127/8 (or
 * $UROCE_ADDR), taken once and reused. */
static int client_addr(uint8_t *gid_index, struct sockaddr_storage *local)
{
	int ret;

	if (!g_client4_set) {
		struct sockaddr_in any = { .sin_family = AF_INET };
		ret = add_addr((struct sockaddr *)&any, gid_index, &g_client4);
		if (ret < 0)
			return ret;
		g_client4_set = true;
	}
	return add_addr((struct sockaddr *)&g_client4, gid_index, local);
}

int cma_resolve_src(struct cma_id *id, const struct sockaddr *src, const struct sockaddr *dst)
{
	struct sockaddr_storage local;
	uint8_t gid_index;
	int ret;

	if (dst->sa_family != AF_INET && dst->sa_family != AF_INET6) {
		cma_warn("only AF_INET and AF_INET6 addresses are supported (AF_IB is not)");
		return -EAFNOSUPPORT;
	}
	if (src && src->sa_family != AF_UNSPEC && !id->bound) {
		ret = cma_bind(id, src);
		if (ret)
			return ret;
	}
	if (id->bound && !id->wildcard) {
		if (id->id.route.addr.src_addr.sa_family != dst->sa_family)
			return -EAFNOSUPPORT;
		gid_index = id->gid_index;
		memcpy(&local, &id->id.route.addr.src_storage, sizeof(local));
	} else {
		ret = -EADDRINUSE;
		if (!addr_loopback(dst) || dst->sa_family == AF_INET6) {
			/* the address the routing table gives as source, as rdma_cm does */
			ret = route_src(dst, &local);
			if (ret < 0)
				return ret;
			ret = add_addr((struct sockaddr *)&local, &gid_index, &local);
		}
		/* a loopback peer, or a local one whose address another device holds:
		 * this process's own free loopback address */
		if (ret == -EADDRINUSE && dst->sa_family == AF_INET)
			ret = client_addr(&gid_index, &local);
		if (ret < 0) {
			cma_warn("no local address for RoCE towards this destination: %s (bind the id to a free "
				 "address, e.g. rping -I, or set UROCE_ADDR)", strerror(-ret));
			return ret;
		}
	}
	cma_set_port((struct sockaddr *)&local, id->bound ? id->port : 0);
	ret = take_addr(id, (struct sockaddr *)&local, false, gid_index);
	if (ret)
		return ret;
	memcpy(&id->id.route.addr.dst_storage, dst, cma_addr_len(dst));
	uroce_gid_from_sockaddr(dst, id->id.route.addr.addr.ibaddr.dgid.raw);
	memcpy(&id->peer_gsi, dst, cma_addr_len(dst));
	cma_set_port((struct sockaddr *)&id->peer_gsi, RT_ROCE_UDP_PORT);
	return 0;
}

static void try_add(const struct sockaddr *sa, int *added)
{
	uint8_t gid_index;

	if (add_addr(sa, &gid_index, NULL) == 0)
		(*added)++;
}

/* A wildcard listener: put the device on 127.0.0.1 (and ::1) and on every
 * interface address that is free, or on $UROCE_ADDR when it is set. */
int cma_listen_addrs(struct cma_id *id)
{
	int family = id->id.route.addr.src_addr.sa_family;
	struct ifaddrs *ifa, *i;
	int added = 0;

	if (!id->wildcard)
		return 0;
	if (getenv("UROCE_ADDR")) {
		struct sockaddr_storage any = { .ss_family = AF_INET };
		uint8_t gid_index;
		int ret = add_addr((struct sockaddr *)&any, &gid_index, NULL);
		return ret < 0 ? ret : 0;
	}
	if (family == AF_INET || !id->afonly) {
		struct sockaddr_in lo = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		try_add((struct sockaddr *)&lo, &added);
	}
	if (family == AF_INET6) {
		struct sockaddr_in6 lo6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
		try_add((struct sockaddr *)&lo6, &added);
	}
	if (getifaddrs(&ifa) == 0) {
		for (i = ifa; i; i = i->ifa_next) {
			if (!i->ifa_addr || (i->ifa_flags & IFF_LOOPBACK) || !(i->ifa_flags & IFF_UP))
				continue;
			if (i->ifa_addr->sa_family == AF_INET && (family == AF_INET || !id->afonly))
				try_add(i->ifa_addr, &added);
			else if (i->ifa_addr->sa_family == AF_INET6 && family == AF_INET6 &&
				 !IN6_IS_ADDR_LINKLOCAL(&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr))
				try_add(i->ifa_addr, &added);
		}
		freeifaddrs(ifa);
	}
	if (!added) {
		struct sockaddr_storage any = { .ss_family = AF_INET }, used;
		uint8_t gid_index;
		char buf[INET_ADDRSTRLEN] = "?";
		int ret = add_addr((struct sockaddr *)&any, &gid_index, &used);
		if (ret < 0)
			return ret;
		inet_ntop(AF_INET, &((struct sockaddr_in *)&used)->sin_addr, buf, sizeof(buf));
		cma_warn("127.0.0.1 is taken by another RoCE device; listening on %s", buf);
	}
	return 0;
}

bool cma_port_listened(uint16_t ps, uint16_t port)
{
	for (struct cma_id *o = cma_ids_head(); o; o = o->next)
		if (o->state == CMA_LISTEN && o->id.ps == ps && o->port == port)
			return true;
	return false;
}

struct cma_id *cma_find_listener(uint16_t ps, uint16_t port, const struct sockaddr *dst)
{
	struct cma_id *o, *wild = NULL;

	for (o = cma_ids_head(); o; o = o->next) {
		if (o->state != CMA_LISTEN || o->id.ps != ps || o->port != port)
			continue;
		if (o->wildcard) {
			int fam = o->id.route.addr.src_addr.sa_family;
			if (fam == dst->sa_family || (fam == AF_INET6 && !o->afonly))
				wild = o;
			continue;
		}
		if (cma_addr_eq(&o->id.route.addr.src_addr, dst))
			return o;
	}
	return wild;
}

/*
 * The uroce progress engine: the device's UDP sockets (one per local
 * address, bound to ADDR:4791), the transmit batch (sendmmsg), the progress
 * thread (epoll on the sockets, a timerfd for ACK/RNR timers and delayed
 * packets, an eventfd to stop it; it sleeps when nothing is pending) and the
 * receive path (recvmmsg, ICRC check, hand-off to the transport).
 *
 * ICRC: always generated.  On receive it is recomputed from the UDP payload
 * and the IP/UDP facts a socket sees (addresses, ports, length); for IPv4 the
 * IP identification is taken as 0 with DF set, which is what every uroce
 * sender produces (unconnected UDP socket, IP_PMTUDISC_DO).  A mismatch drops
 * the packet, counts it (ctx->icrc_errors) and traces it as dropped for a
 * bad ICRC when its headers name a QP of the context.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "uroce.h"

#define EV_STOP 0xFFFFFFF0u
#define EV_TIMER 0xFFFFFFF1u
#define EV_PUMP 0xFFFFFFF2u
#define PUMP_BUDGET 64 /* READ responses per QP between two receive batches */

/* Send pending READ responses; while some remain, keep the progress thread awake. */
static void pump(struct uroce_ctx *ctx)
{
	if (!ctx->pump_list)
		return;
	if (uroce_pump_reads(ctx, PUMP_BUDGET)) {
		uint64_t one = 1;
		if (write(ctx->pumpfd, &one, sizeof(one)) < 0) {
			/* the counter is already non-zero: the thread will come back */
		}
	}
}

/*
 * Contexts of this process.  Two contexts may need the same address (perftest
 * -R opens the device for itself and librdmacm opens it again, both told to
 * use UROCE_ADDR): the second borrows the first one's socket, the owner's
 * progress thread receives for both and hands a packet for a QP it does not
 * have to the context that does (uroce_forward; when that one's lock stays
 * held, through its handoff queue), and a MAD when it has no QP1 handler to
 * the handler of the context that has one (uroce_gsi_forward).
 */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct uroce_ctx *g_ctxs[64];

static void release_held_at_exit(void);
static pthread_once_t exit_handler_once = PTHREAD_ONCE_INIT;

static void exit_handler_register(void)
{
	atexit(release_held_at_exit);
}

static void registry_add(struct uroce_ctx *ctx)
{
	/* (registered after the tracer's own exit handler, which starts with the
	 * first device opened: so it runs before that one) */
	pthread_once(&exit_handler_once, exit_handler_register);
	pthread_mutex_lock(&g_lock);
	for (int i = 0; i < 64; i++)
		if (!g_ctxs[i]) {
			g_ctxs[i] = ctx;
			break;
		}
	pthread_mutex_unlock(&g_lock);
}

/* A process that exits right after receiving still acknowledges what it
   received (a NIC would have): send the ACKs its threads held back. */
/* Everything received is acknowledged now, held back or lazy: before a CM
   message, when the context closes, when the process exits. */
static void ack_all_received(struct uroce_ctx *ctx)
{
	uroce_send_pending_acks(ctx);
	uroce_send_lazy_acks(ctx);
	uroce_tx_flush(ctx);
}

__attribute__((destructor)) static void flush_acks_at_exit(void)
{
	if (pthread_mutex_trylock(&g_lock))
		return;
	for (int i = 0; i < 64; i++) {
		struct uroce_ctx *ctx = g_ctxs[i];
		if (ctx && !pthread_mutex_trylock(&ctx->lock)) {
			ack_all_received(ctx);
			pthread_mutex_unlock(&ctx->lock);
		}
	}
	pthread_mutex_unlock(&g_lock);
}

static void registry_del(struct uroce_ctx *ctx)
{
	pthread_mutex_lock(&g_lock);
	for (int i = 0; i < 64; i++)
		if (g_ctxs[i] == ctx)
			g_ctxs[i] = NULL;
	pthread_mutex_unlock(&g_lock);
}

/* The fd of another context of this process that owns address ss, or -1. */
static int borrowable_fd(struct uroce_ctx *ctx, const struct sockaddr_storage *ss)
{
	int fd = -1;
	pthread_mutex_lock(&g_lock);
	for (int i = 0; i < 64 && fd < 0; i++) {
		struct uroce_ctx *o = g_ctxs[i];
		if (!o || o == ctx)
			continue;
		for (int k = 0; k < UROCE_MAX_GID; k++)
			if (o->addrs[k].used && !o->addrs[k].borrowed &&
			    uroce_sa_equal((const struct sockaddr *)&o->addrs[k].sa, (const struct sockaddr *)ss)) {
				fd = o->addrs[k].fd;
				break;
			}
	}
	pthread_mutex_unlock(&g_lock);
	return fd;
}

/* We hold our own context's lock: never wait for another one unboundedly
   (its holder might be waiting for ours), but do not give up at the first try. */
static bool lock_briefly(pthread_mutex_t *m)
{
	for (int i = 0; i < 2000; i++) {
		if (!pthread_mutex_trylock(m))
			return true;
		sched_yield();
	}
	return false;
}

/* After handling packets another context read for ctx (under ctx->lock):
   the ACKs and READ responses they call for go out. */
static void answer_handed_over(struct uroce_ctx *ctx)
{
	uroce_send_pending_acks(ctx);
	pump(ctx);
	uroce_tx_flush(ctx);
}

/* A packet another context read for this one while this one's lock was held. */
struct uroce_handoff {
	struct uroce_handoff *next;
	struct sockaddr_storage src;
	int aidx;                     /* this context's index of the address it came to */
	uint32_t qpn;
	size_t len;
	uint8_t pkt[];
};

/* Queue a packet for ctx, whose lock another thread holds, and wake its
   progress thread; false when UROCE_HANDOFF_MAX are already waiting or
   memory ran out. */
static bool handoff_queue(struct uroce_ctx *ctx, int aidx, const struct sockaddr_storage *src, const uint8_t *pkt,
                          size_t len, uint32_t qpn)
{
	if (__atomic_load_n(&ctx->hand_n, __ATOMIC_RELAXED) >= UROCE_HANDOFF_MAX)
		return false;
	struct uroce_handoff *h = malloc(sizeof(*h) + len);
	if (!h)
		return false;
	h->next = NULL;
	h->src = *src;
	h->aidx = aidx;
	h->qpn = qpn;
	h->len = len;
	memcpy(h->pkt, pkt, len);
	pthread_mutex_lock(&ctx->hand_lock);
	if (ctx->hand_tail)
		ctx->hand_tail->next = h;
	else
		ctx->hand_head = h;
	ctx->hand_tail = h;
	__atomic_store_n(&ctx->hand_n, ctx->hand_n + 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&ctx->hand_lock);
	uint64_t one = 1;
	if (write(ctx->pumpfd, &one, sizeof(one)) < 0) {
		/* the counter is already non-zero: the thread will come back */
	}
	return true;
}

/* Take the packets waiting for ctx out of its handoff queue. */
static struct uroce_handoff *handoff_take(struct uroce_ctx *ctx)
{
	if (!__atomic_load_n(&ctx->hand_n, __ATOMIC_ACQUIRE))
		return NULL;
	pthread_mutex_lock(&ctx->hand_lock);
	struct uroce_handoff *h = ctx->hand_head;
	ctx->hand_head = ctx->hand_tail = NULL;
	__atomic_store_n(&ctx->hand_n, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&ctx->hand_lock);
	return h;
}

/* Handle the packets handed over to ctx, in the order they came; under
   ctx->lock.  One whose QP ctx no longer has (destroyed meanwhile, or
   another busy context's when three share an address) is dropped, as a
   packet for an unknown QP is. */
static void handoff_drain(struct uroce_ctx *ctx)
{
	struct uroce_handoff *h = handoff_take(ctx);
	if (!h)
		return;
	while (h) {
		struct uroce_handoff *next = h->next;
		if (uroce_qp_lookup(ctx, h->qpn)) {
			ctx->st.rx_packets++;
			uroce_rx_packet(ctx, h->aidx, &h->src, h->pkt, h->len);
		} else {
			ctx->st.rx_dropped++;
		}
		free(h);
		h = next;
	}
	answer_handed_over(ctx);
}

enum uroce_fwd uroce_forward(struct uroce_ctx *ctx, int aidx, const struct sockaddr_storage *src, const uint8_t *pkt,
                             size_t len, uint32_t qpn)
{
	int fd = ctx->addrs[aidx].fd;
	struct uroce_ctx *target = NULL, *busy = NULL;
	int taidx = -1, baidx = -1;
	enum uroce_fwd r = UROCE_FWD_NO_QP;
	pthread_mutex_lock(&g_lock);
	for (int i = 0; i < 64 && !target; i++) {
		struct uroce_ctx *o = g_ctxs[i];
		if (!o || o == ctx)
			continue;
		int k;
		for (k = 0; k < UROCE_MAX_GID; k++)
			if (o->addrs[k].used && o->addrs[k].fd == fd)
				break;
		if (k == UROCE_MAX_GID)
			continue;
		if (!lock_briefly(&o->lock)) {
			if (!busy) { /* it may have the QP: it gets the packet unless another has */
				busy = o;
				baidx = k;
			}
			continue;
		}
		handoff_drain(o); /* what waited for it comes first */
		if (uroce_qp_lookup(o, qpn) != NULL) {
			target = o;
			taidx = k;
		} else {
			pthread_mutex_unlock(&o->lock);
		}
	}
	/* (queued under g_lock: a context leaving the registry takes it first) */
	if (!target && busy)
		r = handoff_queue(busy, baidx, src, pkt, len, qpn) ? UROCE_FWD_DONE : UROCE_FWD_BUSY;
	pthread_mutex_unlock(&g_lock);
	if (!target)
		return r;
	target->st.rx_packets++;
	uroce_rx_packet(target, taidx, src, pkt, len);
	answer_handed_over(target);
	pthread_mutex_unlock(&target->lock);
	return UROCE_FWD_DONE;
}

static int open_socket(const struct sockaddr *sa)
{
	int fd = socket(sa->sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	int one = 1, big = 8 << 20;
	if (sa->sa_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	/* GSO sends arrive whole (rx_datagram cuts them): one wake-up and one copy per send */
	setsockopt(fd, SOL_UDP, UDP_GRO, &one, sizeof(one));
	if (sa->sa_family == AF_INET) {
		int pmtu = IP_PMTUDISC_DO; /* DF set, IP ID 0 on unconnected sockets */
		setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu));
	} else {
		int pmtu = IPV6_PMTUDISC_DO;
		setsockopt(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, &pmtu, sizeof(pmtu));
	}
	socklen_t len = sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	if (bind(fd, sa, len) < 0) {
		int e = -errno;
		close(fd);
		return e;
	}
	return fd;
}

static int install_addr(struct uroce_ctx *ctx, const struct sockaddr_storage *ss, uint8_t *index, bool allow_borrow)
{
	int slot = -1;
	for (int i = 0; i < UROCE_MAX_GID; i++) {
		if (ctx->addrs[i].used && uroce_sa_equal((const struct sockaddr *)&ctx->addrs[i].sa,
		                                         (const struct sockaddr *)ss)) {
			*index = (uint8_t)i;
			return 0;
		}
		if (!ctx->addrs[i].used && slot < 0)
			slot = i;
	}
	if (slot < 0)
		return -ENOSPC;
	int fd = open_socket((const struct sockaddr *)ss);
	bool borrowed = false;
	if (fd == -EADDRINUSE && allow_borrow) {
		fd = borrowable_fd(ctx, ss);
		borrowed = fd >= 0;
		if (!borrowed)
			fd = -EADDRINUSE;
	}
	if (fd < 0)
		return fd;
	struct uroce_addr *a = &ctx->addrs[slot];
	a->fd = fd;
	a->borrowed = borrowed;
	if (borrowed) {
		a->sa = *ss;
		a->gsi_psn = (uint32_t)(uroce_now_ns() & RT_PSN_MASK);
		uroce_sockaddr_to_gid((const struct sockaddr *)ss, &a->gid);
		a->used = true;
		*index = (uint8_t)slot;
		return 0;
	}
	a->sa = *ss;
	a->gsi_psn = (uint32_t)(uroce_now_ns() & RT_PSN_MASK);
	uroce_sockaddr_to_gid((const struct sockaddr *)ss, &a->gid);
	/* channels first: see uroce_engine_requeue */
	for (struct uroce_comp_channel *ch = ctx->channels; ch; ch = ch->next) {
		struct epoll_event cev = { .events = EPOLLIN | EPOLLEXCLUSIVE, .data.u32 = (uint32_t)slot };
		epoll_ctl(ch->wait_fd, EPOLL_CTL_ADD, fd, &cev);
	}
	if (ctx->epfd >= 0) {
		struct epoll_event ev = { .events = EPOLLIN | EPOLLEXCLUSIVE, .data.u32 = (uint32_t)slot };
		if (epoll_ctl(ctx->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
			int e = -errno;
			for (struct uroce_comp_channel *ch = ctx->channels; ch; ch = ch->next)
				epoll_ctl(ch->wait_fd, EPOLL_CTL_DEL, fd, NULL);
			close(fd);
			return e;
		}
	}
	a->used = true;
	*index = (uint8_t)slot;
	return 0;
}

static int parse_addr(const char *s, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	if (inet_pton(AF_INET, s, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(RT_ROCE_UDP_PORT);
		return 0;
	}
	if (inet_pton(AF_INET6, s, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(RT_ROCE_UDP_PORT);
		return 0;
	}
	return -EINVAL;
}

/* Try each address of the list $UROCE_ADDR; borrow: may share another context's socket. */
static int try_env_list(struct uroce_ctx *ctx, const char *env, bool borrow, uint8_t *index)
{
	int err = -EADDRNOTAVAIL;
	char buf[512];
	snprintf(buf, sizeof(buf), "%s", env);
	char *save = NULL;
	for (char *tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		struct sockaddr_storage ss;
		if (parse_addr(tok, &ss) < 0) {
			if (!borrow)
				fprintf(stderr, "uroce: UROCE_ADDR: '%s' is not an IPv4/IPv6 address\n", tok);
			continue;
		}
		err = install_addr(ctx, &ss, index, borrow);
		if (err == 0)
			return 0;
	}
	return err;
}

/* A free address: $UROCE_ADDR (comma-separated list, first free wins; when
   all are taken by contexts of this process, the first one is shared), else
   127.0.0.2 ... 127.0.255.254. */
static int pick_default(struct uroce_ctx *ctx, uint8_t *index)
{
	const char *env = getenv("UROCE_ADDR");
	int err = -EADDRNOTAVAIL;
	if (env && *env) {
		err = try_env_list(ctx, env, false, index);
		if (err == -EADDRINUSE)
			err = try_env_list(ctx, env, true, index);
		if (err != -EADDRINUSE)
			return err;
		/* every pinned address is taken, typically by another context of this
		   process (perftest -R opens the device twice): take a free one */
		fprintf(stderr, "uroce: UROCE_ADDR %s is in use; this context takes a free 127/8 address\n", env);
	}
	for (uint32_t n = 2; n < 0xFFFF; n++) {
		if ((n & 0xFF) == 0 || (n & 0xFF) == 0xFF)
			continue;
		struct sockaddr_storage ss;
		memset(&ss, 0, sizeof(ss));
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
		s4->sin_family = AF_INET;
		s4->sin_port = htons(RT_ROCE_UDP_PORT);
		s4->sin_addr.s_addr = htonl(0x7F000000u | n);
		err = install_addr(ctx, &ss, index, false);
		if (err != -EADDRINUSE)
			return err;
	}
	return err;
}

int uroce_addr_add(struct uroce_ctx *ctx, const struct sockaddr *sa, uint8_t *index)
{
	if (!sa || (sa->sa_family == AF_INET && ((const struct sockaddr_in *)sa)->sin_addr.s_addr == INADDR_ANY) ||
	    (sa->sa_family == AF_INET6 &&
	     IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)sa)->sin6_addr)))
		return pick_default(ctx, index);
	if (sa->sa_family != AF_INET && sa->sa_family != AF_INET6)
		return -EAFNOSUPPORT;
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, sa, sa->sa_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6));
	if (ss.ss_family == AF_INET) {
		((struct sockaddr_in *)&ss)->sin_port = htons(RT_ROCE_UDP_PORT);
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
		s6->sin6_port = htons(RT_ROCE_UDP_PORT);
		s6->sin6_flowinfo = 0;
		if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
			struct sockaddr_in s4 = { .sin_family = AF_INET, .sin_port = htons(RT_ROCE_UDP_PORT) };
			memcpy(&s4.sin_addr, s6->sin6_addr.s6_addr + 12, 4);
			memset(&ss, 0, sizeof(ss));
			memcpy(&ss, &s4, sizeof(s4));
		}
	}
	return install_addr(ctx, &ss, index, true);
}

int uroce_local_fd(struct uroce_ctx *ctx, uint8_t sgid_index, const struct sockaddr_storage *dst)
{
	if (sgid_index >= UROCE_MAX_GID || !ctx->addrs[sgid_index].used)
		return -EINVAL;
	if (dst && dst->ss_family != ctx->addrs[sgid_index].sa.ss_family)
		return -EAFNOSUPPORT;
	return ctx->addrs[sgid_index].fd;
}

/* The envelope of a packet between two socket addresses, for the ICRC. */
static void envelope(struct rt_roce_addr *ra, const struct sockaddr_storage *src, const struct sockaddr_storage *dst)
{
	memset(ra, 0, sizeof(*ra));
	ra->family = src->ss_family;
	if (src->ss_family == AF_INET) {
		const struct sockaddr_in *s = (const struct sockaddr_in *)src, *d = (const struct sockaddr_in *)dst;
		memcpy(ra->src, &s->sin_addr, 4);
		memcpy(ra->dst, &d->sin_addr, 4);
		ra->sport = ntohs(s->sin_port);
		ra->dport = ntohs(d->sin_port);
		ra->ip_df = true;
	} else {
		const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)src, *d = (const struct sockaddr_in6 *)dst;
		memcpy(ra->src, &s->sin6_addr, 16);
		memcpy(ra->dst, &d->sin6_addr, 16);
		ra->sport = ntohs(s->sin6_port);
		ra->dport = ntohs(d->sin6_port);
	}
}

_Static_assert(CMSG_SPACE(sizeof(int)) <= UROCE_TCLASS_CMSG, "room for a traffic class cmsg");

/* The ancillary data that sends a datagram of family with IP traffic class
 * tclass (IP_TOS, IPV6_TCLASS: DSCP and ECN; one socket sends every QP's
 * packets, so it is given per message), written at buf; its length, 0 for
 * traffic class 0 (the socket's default: nothing to say). */
static size_t tclass_cmsg(void *buf, sa_family_t family, uint8_t tclass)
{
	if (!tclass)
		return 0;
	struct msghdr m = { .msg_control = buf, .msg_controllen = CMSG_SPACE(sizeof(int)) };
	memset(buf, 0, CMSG_SPACE(sizeof(int)));
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = family == AF_INET ? IPPROTO_IP : IPPROTO_IPV6;
	c->cmsg_type = family == AF_INET ? IP_TOS : IPV6_TCLASS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	int v = tclass;
	memcpy(CMSG_DATA(c), &v, sizeof(v));
	return CMSG_SPACE(sizeof(int));
}

/* A packet a fault rule held back leaves now: recorded as it leaves, so the
 * engine's trace has it where the wire has it (after what overtook it). */
static void send_held(struct uroce_delayed *d)
{
	uroce_trace_held(d->qpn, &d->h, d->paylen, d->retrans);
	_Alignas(struct cmsghdr) char cbuf[UROCE_TCLASS_CMSG];
	struct iovec iov = { d->data, d->len };
	struct msghdr m = { .msg_name = &d->dst, .msg_namelen = d->salen, .msg_iov = &iov, .msg_iovlen = 1,
	                    .msg_control = cbuf };
	m.msg_controllen = tclass_cmsg(cbuf, d->dst.ss_family, d->tclass);
	if (!m.msg_controllen)
		m.msg_control = NULL;
	sendmsg(d->fd, &m, 0);
	d->len = 0;
}

/* Every packet the fault rules of ctx still hold leaves now (the caller
 * holds ctx's lock, or its progress thread has stopped). */
static void release_held(struct uroce_ctx *ctx)
{
	for (unsigned j = 0; j < ctx->ndelayed; j++)
		if (ctx->delayed[j].len)
			send_held(&ctx->delayed[j]);
}

/* Packets a fault rule holds back leave at the latest when the process
 * exits (the rule delays them on the way, and a NIC sends what it was
 * given): now, while the tracer still records them.  After this handler, the
 * progress threads may still run for a while, but what they send is no
 * longer traced. */
static void release_held_at_exit(void)
{
	if (pthread_mutex_trylock(&g_lock))
		return;
	for (int i = 0; i < 64; i++) {
		struct uroce_ctx *ctx = g_ctxs[i];
		if (!ctx || pthread_mutex_trylock(&ctx->lock))
			continue;
		release_held(ctx);
		pthread_mutex_unlock(&ctx->lock);
	}
	pthread_mutex_unlock(&g_lock);
}

static struct uroce_delayed *delayed_slot(struct uroce_ctx *ctx)
{
	for (unsigned i = 0; i < ctx->ndelayed; i++)
		if (ctx->delayed[i].len == 0)
			return &ctx->delayed[i];
	if (ctx->ndelayed == ctx->delayed_cap) {
		unsigned cap = ctx->delayed_cap ? ctx->delayed_cap * 2 : 16;
		if (cap > 4096)
			return NULL;
		struct uroce_delayed *d = realloc(ctx->delayed, cap * sizeof(*d));
		if (!d)
			return NULL;
		ctx->delayed = d;
		ctx->delayed_cap = cap;
	}
	struct uroce_delayed *d = &ctx->delayed[ctx->ndelayed++];
	d->len = 0;
	return d;
}

static size_t msg_bytes(const struct msghdr *m)
{
	size_t n = 0;
	for (size_t i = 0; i < m->msg_iovlen; i++)
		n += m->msg_iov[i].iov_len;
	return n;
}

/* m is a UDP GSO send (its first ancillary data is UDP_SEGMENT). */
static bool is_gso_send(const struct msghdr *m)
{
	const struct cmsghdr *c = m->msg_controllen ? CMSG_FIRSTHDR((struct msghdr *)m) : NULL;
	return c && c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_SEGMENT;
}

/* Send msgs[0..n) on fd, retrying partial sends; a message the kernel refuses is skipped (counted). */
static void send_all(struct uroce_ctx *ctx, int fd, struct mmsghdr *msgs, unsigned n)
{
	unsigned done = 0;
	while (done < n) {
		/* one message: sendmsg, which (unlike sendmmsg) does not offer the CPU to
		   the receiver it just woke before this thread reaches its own wait */
		int k = n - done == 1 ? (sendmsg(fd, &msgs[done].msg_hdr, 0) < 0 ? -1 : 1)
		                      : sendmmsg(fd, msgs + done, n - done, 0);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			if (is_gso_send(&msgs[done].msg_hdr) && (errno == EINVAL || errno == EIO || errno == ENOPROTOOPT)) {
				ctx->gso_off = true; /* no UDP GSO here: the caller resends packet by packet */
				return;
			}
			ctx->st.tx_errors++;
			done++; /* the transport's retry covers the lost packet */
			continue;
		}
		done += (unsigned)k;
	}
}

/*
 * Runs of packets to the same destination with the same size (the last may be
 * shorter) go out as one UDP GSO send: the kernel cuts the concatenated bytes
 * into datagrams of that size, so each packet keeps its own headers and ICRC.
 * Returns the number of messages in ctx->gso_msg (== tx_n: no run found).
 */
static unsigned build_gso(struct uroce_ctx *ctx)
{
	unsigned out = 0, i = 0, iov_used = 0;
	while (i < ctx->tx_n) {
		struct msghdr *m = &ctx->tx_msg[i].msg_hdr;
		size_t len = msg_bytes(m);
		unsigned j = i + 1;
		size_t total = len;
		if (uroce_gso_dst_ok(ctx, (const struct sockaddr_storage *)m->msg_name))
			while (j < ctx->tx_n && j - i < UROCE_GSO_SEGS) {
				struct msghdr *x = &ctx->tx_msg[j].msg_hdr;
				size_t xl = msg_bytes(x);
				if (xl > len || total + xl > 65000 || ctx->tx_tclass[j] != ctx->tx_tclass[i] ||
				    x->msg_namelen != m->msg_namelen ||
				    memcmp(x->msg_name, m->msg_name, m->msg_namelen))
					break;
				total += xl;
				j++;
				if (xl < len)
					break; /* a shorter packet ends the run */
			}
		struct msghdr *g = &ctx->gso_msg[out].msg_hdr;
		if (j - i < 2) {
			*g = *m;
		} else {
			memset(g, 0, sizeof(*g));
			g->msg_name = m->msg_name;
			g->msg_namelen = m->msg_namelen;
			g->msg_iov = &ctx->gso_iov[iov_used];
			for (unsigned k = i; k < j; k++) {
				struct msghdr *x = &ctx->tx_msg[k].msg_hdr;
				memcpy(&ctx->gso_iov[iov_used], x->msg_iov, x->msg_iovlen * sizeof(struct iovec));
				iov_used += (unsigned)x->msg_iovlen;
			}
			g->msg_iovlen = (size_t)(&ctx->gso_iov[iov_used] - g->msg_iov);
			char *cbuf = ctx->gso_cmsg[out];
			memset(cbuf, 0, CMSG_SPACE(sizeof(uint16_t)));
			g->msg_control = cbuf;
			g->msg_controllen = CMSG_SPACE(sizeof(uint16_t));
			struct cmsghdr *c = CMSG_FIRSTHDR(g);
			c->cmsg_level = SOL_UDP;
			c->cmsg_type = UDP_SEGMENT;
			c->cmsg_len = CMSG_LEN(sizeof(uint16_t));
			uint16_t seg = (uint16_t)len;
			memcpy(CMSG_DATA(c), &seg, sizeof(seg));
			/* the run's traffic class after it (every packet of a run has the same) */
			g->msg_controllen += tclass_cmsg(cbuf + CMSG_SPACE(sizeof(uint16_t)),
			                                 ((struct sockaddr *)m->msg_name)->sa_family, ctx->tx_tclass[i]);
		}
		ctx->gso_first[out] = i;
		ctx->gso_count[out] = j - i;
		out++;
		i = j;
	}
	return out;
}

/* Segment k of an IPv4 GSO send carries IP identification k: set (or, applied
   again, undo) the ICRCs of the runs for that. */
static void gso_fix_icrcs(struct uroce_ctx *ctx, unsigned n)
{
	for (unsigned g = 0; g < n; g++) {
		if (ctx->gso_count[g] < 2 || ((struct sockaddr *)ctx->gso_msg[g].msg_hdr.msg_name)->sa_family != AF_INET)
			continue;
		for (unsigned k = 1; k < ctx->gso_count[g]; k++) {
			struct msghdr *x = &ctx->tx_msg[ctx->gso_first[g] + k].msg_hdr;
			struct iovec *last = &x->msg_iov[x->msg_iovlen - 1];
			uroce_icrc_set_id(ctx, (uint8_t *)last->iov_base + last->iov_len - RT_ICRC_LEN, msg_bytes(x), k);
		}
	}
}

void uroce_tx_flush(struct uroce_ctx *ctx)
{
	if (ctx->tx_n) {
		unsigned n = ctx->gso_off || ctx->tx_n < 2 ? ctx->tx_n : build_gso(ctx);
		if (n < ctx->tx_n && uroce_gso_allowed(ctx, ctx->tx_fd, &ctx->addrs[ctx->tx_aidx].sa)) {
			gso_fix_icrcs(ctx, n);
			send_all(ctx, ctx->tx_fd, ctx->gso_msg, n);
			if (ctx->gso_off) {
				gso_fix_icrcs(ctx, n); /* back to single packets with IP ID 0 */
				send_all(ctx, ctx->tx_fd, ctx->tx_msg, ctx->tx_n);
			}
		} else {
			send_all(ctx, ctx->tx_fd, ctx->tx_msg, ctx->tx_n);
		}
	}
	ctx->tx_n = 0;
	/* Reordered packets go out right after the packets that overtook them. */
	for (unsigned i = 0; i < ctx->ndelayed; i++) {
		struct uroce_delayed *d = &ctx->delayed[i];
		if (d->len && d->reorder && d->overtaken)
			send_held(d);
	}
}

/* A packet of QP qpn was queued: the packets of that QP a reorder rule
 * holds are overtaken, and leave after it. */
static void overtake_held(struct uroce_ctx *ctx, uint32_t qpn)
{
	for (unsigned i = 0; i < ctx->ndelayed; i++) {
		struct uroce_delayed *d = &ctx->delayed[i];
		if (d->len && d->reorder && d->qpn == qpn)
			d->overtaken = true;
	}
}

void uroce_tx_packet(struct uroce_ctx *ctx, struct uroce_qp *qp, int aidx, const struct sockaddr_storage *dst,
                     uint8_t tclass, const struct rt_roce_hdrs *h, const struct uroce_sge *pay, int npay, uint32_t paylen,
                     uint8_t retrans)
{
	struct uroce_addr *src = &ctx->addrs[aidx];
	uint32_t qpn = qp ? qp->ibqp.qp_num : (h->opcode == RT_OP_UD_SEND_ONLY ? 1 : 0);
	if (ctx->tx_n && (ctx->tx_fd != src->fd || ctx->tx_n + 2 > UROCE_TX_BATCH))
		uroce_tx_flush(ctx);
	unsigned slot = ctx->tx_n;
	uint8_t *hdr = ctx->tx_hdr[slot];
	int hl = rt_roce_build_transport(hdr, UROCE_HDR_MAX, h, paylen);
	if (hl < 0)
		return;
	unsigned pad = rt_pad_for(paylen);
	struct rt_roce_addr ra;
	envelope(&ra, &src->sa, dst);
	struct rt_roce_icrc st;
	size_t udp_len = (size_t)hl + paylen + pad + RT_ICRC_LEN;
	rt_roce_icrc_begin(&st, &ra, udp_len);
	rt_roce_icrc_update(&st, hdr, (size_t)hl);
	struct iovec *iov = ctx->tx_iov[slot];
	int niov = 0;
	iov[niov++] = (struct iovec){ hdr, (size_t)hl };
	for (int i = 0; i < npay; i++) {
		if (!pay[i].len)
			continue;
		rt_roce_icrc_update(&st, pay[i].ptr, pay[i].len);
		iov[niov++] = (struct iovec){ pay[i].ptr, pay[i].len };
	}
	uint8_t *tail = ctx->tx_tail[slot];
	memset(tail, 0, pad);
	rt_roce_icrc_update(&st, tail, pad);
	rt_icrc_store(tail + pad, rt_roce_icrc_end(&st));
	iov[niov++] = (struct iovec){ tail, pad + RT_ICRC_LEN };
	uint32_t delay_us = 0;
	enum uroce_fault_action fa =
	        ctx->nfaults ? uroce_fault_check(ctx, 0, qpn, tclass, h, retrans != 0, &delay_us) : UROCE_FA_NONE;
	if (fa == UROCE_FA_ECN) /* marked on the way, as a filling queue marks it */
		tclass |= 3;
	ctx->tx_dst[slot] = *dst;
	struct msghdr *m = &ctx->tx_msg[slot].msg_hdr;
	memset(m, 0, sizeof(*m));
	m->msg_name = &ctx->tx_dst[slot];
	m->msg_namelen = uroce_salen(dst);
	m->msg_iov = iov;
	m->msg_iovlen = (size_t)niov;
	ctx->tx_tclass[slot] = tclass;
	m->msg_controllen = tclass_cmsg(ctx->tx_cmsg[slot], dst->ss_family, tclass);
	m->msg_control = m->msg_controllen ? ctx->tx_cmsg[slot] : NULL;

	ctx->st.tx_packets++;
	if (fa == UROCE_FA_DROP) {
		ctx->st.tx_fault_drops++;
		uroce_trace_drop(qpn, h, paylen, RT_PKT_DROP_INJECTED, retrans, true);
		return;
	}
	if (fa == UROCE_FA_DELAY || fa == UROCE_FA_REORDER) {
		struct uroce_delayed *d = delayed_slot(ctx);
		if (d) {
			size_t off = 0;
			for (int i = 0; i < niov; i++) {
				memcpy(d->data + off, iov[i].iov_base, iov[i].iov_len);
				off += iov[i].iov_len;
			}
			d->len = (uint16_t)off;
			d->qpn = qpn;
			d->h = *h;
			d->paylen = paylen;
			d->retrans = retrans;
			d->tclass = tclass;
			d->fd = src->fd;
			d->dst = *dst;
			d->salen = uroce_salen(dst);
			d->reorder = fa == UROCE_FA_REORDER;
			d->overtaken = false;
			if (d->reorder) {
				/* until a later packet of its QP leaves (or 2 ms: then alone) */
				d->due_ns = uroce_now_ns() + 2000000;
				uroce_timer_update(ctx, d->due_ns);
			} else {
				d->due_ns = uroce_now_ns() + (uint64_t)delay_us * 1000;
				uroce_timer_update(ctx, d->due_ns);
			}
			return; /* traced as it leaves (send_held) */
		}
	}
	if (fa == UROCE_FA_CORRUPT) /* damaged on the way: the receiver's ICRC check drops it */
		rt_icrc_store(tail + pad, rt_icrc_load(tail + pad) ^ UROCE_CORRUPT_ICRC_XOR);
	ctx->tx_fd = src->fd;
	ctx->tx_aidx = aidx;
	ctx->tx_n++;
	if (ctx->ndelayed)
		overtake_held(ctx, qpn);
	uroce_trace_sent(qpn, h, paylen, retrans,
			 fa == UROCE_FA_CORRUPT ? RT_PKTE_INJECTED_CORRUPT : fa == UROCE_FA_ECN ? RT_PKTE_INJECTED_CE : 0);
	if (fa == UROCE_FA_DUP) {
		/* its own copy of the iovecs and tail: a GSO send may give it another ICRC */
		unsigned d = slot + 1;
		memcpy(ctx->tx_iov[d], iov, (size_t)niov * sizeof(*iov));
		memcpy(ctx->tx_tail[d], tail, sizeof(ctx->tx_tail[d]));
		ctx->tx_iov[d][niov - 1].iov_base = ctx->tx_tail[d];
		ctx->tx_dst[d] = *dst;
		ctx->tx_tclass[d] = tclass;
		ctx->tx_msg[d] = ctx->tx_msg[slot];
		ctx->tx_msg[d].msg_hdr.msg_iov = ctx->tx_iov[d];
		ctx->tx_msg[d].msg_hdr.msg_name = &ctx->tx_dst[d];
		ctx->tx_n++;
		/* the same transmission again, as a copy made on the way would be:
		   no retry made it, so no new retransmission count */
		uroce_trace_sent(qpn, h, paylen, retrans, RT_PKTE_INJECTED_COPY);
	}
	if (ctx->tx_n + 2 > UROCE_TX_BATCH)
		uroce_tx_flush(ctx);
}

/* A lazy ACK is due then (transport.c): a parked progress thread sends it at
   its next check (UROCE_PARK_CHECK_NS) rather than waking up for it. */
void uroce_lazy_ack_timer(struct uroce_ctx *ctx, uint64_t due)
{
	if (!ctx->pt_parked)
		uroce_timer_update(ctx, due);
}

void uroce_timer_update(struct uroce_ctx *ctx, uint64_t deadline)
{
	if (!deadline || (ctx->armed_deadline && ctx->armed_deadline <= deadline))
		return;
	struct itimerspec its = { 0 };
	its.it_value.tv_sec = (time_t)(deadline / 1000000000ull);
	its.it_value.tv_nsec = (long)(deadline % 1000000000ull);
	if (timerfd_settime(ctx->timerfd, TFD_TIMER_ABSTIME, &its, NULL) == 0)
		ctx->armed_deadline = deadline;
}

void uroce_kick(struct uroce_ctx *ctx)
{
	uint64_t one = 1;
	if (write(ctx->evfd, &one, sizeof(one)) < 0) {
		/* the counter cannot overflow in practice; nothing to do */
	}
}

/* Verify the ICRC of a received UDP payload and hand it to the transport. */
static void rx_one(struct uroce_ctx *ctx, int aidx, const struct sockaddr_storage *src, const uint8_t *p, size_t len)
{
	if (len < RT_BTH_LEN + RT_ICRC_LEN) {
		ctx->st.rx_dropped++;
		return;
	}
	struct rt_roce_addr ra;
	envelope(&ra, src, &ctx->addrs[aidx].sa);
	struct rt_roce_icrc st;
	rt_roce_icrc_begin(&st, &ra, len);
	rt_roce_icrc_update(&st, p, len - RT_ICRC_LEN);
	uint32_t icrc = rt_roce_icrc_end(&st), wire = rt_icrc_load(p + len - RT_ICRC_LEN);
	if (icrc != wire && (src->ss_family != AF_INET || !uroce_icrc_gso_match(ctx, len, icrc, wire))) {
		ctx->st.icrc_errors++;
		uroce_rx_bad_icrc(ctx, p, len - RT_ICRC_LEN);
		return;
	}
	ctx->st.rx_packets++;
	uroce_rx_packet(ctx, aidx, src, p, len - RT_ICRC_LEN);
}

/* A datagram: one packet, or (UDP_GRO) a GSO send of several, cut at the segment size. */
static void rx_datagram(struct uroce_ctx *ctx, int aidx, const struct msghdr *m, const uint8_t *p, size_t len)
{
	size_t seg = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR((struct msghdr *)m, c))
		if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO && c->cmsg_len >= CMSG_LEN(sizeof(int))) {
			int v;
			memcpy(&v, CMSG_DATA(c), sizeof(v));
			seg = v > 0 ? (size_t)v : 0;
		}
	if (!seg || seg >= len) {
		rx_one(ctx, aidx, m->msg_name, p, len);
		return;
	}
	for (size_t off = 0; off < len && ctx->addrs[aidx].used; off += seg)
		rx_one(ctx, aidx, m->msg_name, p + off, len - off < seg ? len - off : seg);
}

/*
 * ACKs of what an application thread received are held back (at most
 * UROCE_ACK_HOLD_NS) so that they leave with its reply: a ping-pong then sends
 * one datagram each way (request and ACK in one GSO send where GSO is on)
 * instead of two, and the peer's sleeping thread is woken once, not twice.
 * They go out with the next post_send, when the application polls and finds
 * nothing new, before it sleeps on a completion channel, before a QP changes
 * state or a CM message leaves, when the process exits, or from the progress
 * thread's timer (at the latest UROCE_ACK_HOLD_NS later, plus one park check
 * period while it is parked, see below).
 */
#define UROCE_ACK_HOLD_NS 500000ull
#define UROCE_ACK_HOLD_MAX_PKTS 4 /* a larger burst is a stream, not a ping-pong: ACK now */

static void hold_acks(struct uroce_ctx *ctx)
{
	uint64_t now = uroce_now_ns();
	if (!ctx->acks_held_until) {
		ctx->acks_held_until = now + UROCE_ACK_HOLD_NS;
		ctx->st.acks_held++;
	} else if (now >= ctx->acks_held_until) {
		uroce_flush_held_acks(ctx);
		return;
	}
	__atomic_store_n(&ctx->acks_held, 1, __ATOMIC_RELAXED);
	/* a parked progress thread looks every UROCE_PARK_CHECK_NS anyway (and
	   flushes then): no timer of its own, no extra wake-up */
	if (!ctx->pt_parked)
		uroce_timer_update(ctx, ctx->acks_held_until);
}

void uroce_flush_held_acks(struct uroce_ctx *ctx)
{
	uroce_send_pending_acks(ctx);
	uroce_tx_flush(ctx);
}

/* Make the receive headers ready for recvmmsg: those the last call may have
   written (lengths, flags), or all of them the first time. */
static void rx_reset_headers(struct uroce_ctx *ctx)
{
	unsigned n = ctx->rx_dirty > UROCE_RX_BATCH ? UROCE_RX_BATCH : ctx->rx_dirty;
	for (unsigned i = 0; i < n; i++) {
		ctx->rx_iov[i] = (struct iovec){ ctx->rx_buf[i], UROCE_RX_BUF };
		struct msghdr *m = &ctx->rx_msg[i].msg_hdr;
		memset(m, 0, sizeof(*m));
		m->msg_name = &ctx->rx_src[i];
		m->msg_namelen = sizeof(ctx->rx_src[i]);
		m->msg_iov = &ctx->rx_iov[i];
		m->msg_iovlen = 1;
		m->msg_control = ctx->rx_cmsg[i];
		m->msg_controllen = sizeof(ctx->rx_cmsg[i]);
	}
	ctx->rx_dirty = 0;
}

/* Drain one socket; the caller holds ctx->lock (the receive buffers are under it too).
   app: an application thread receives (its ACKs may be held back, see above). */
static int rx_socket_locked(struct uroce_ctx *ctx, int aidx, int max_rounds, bool app)
{
	int fd = ctx->addrs[aidx].fd, total = 0;
	for (int rounds = 0; rounds < max_rounds; rounds++) {
		rx_reset_headers(ctx);
		int n = recvmmsg(fd, ctx->rx_msg, UROCE_RX_BATCH, MSG_DONTWAIT, NULL);
		ctx->rx_dirty = n > 0 ? (unsigned)n + 1 : 1; /* the kernel may have written one more header */
		if (n <= 0)
			break;
		total += n;
		uint64_t before = ctx->st.rx_packets;
		for (int i = 0; i < n && ctx->addrs[aidx].used; i++) {
			if (ctx->rx_msg[i].msg_hdr.msg_flags & MSG_TRUNC) {
				ctx->st.rx_dropped++;
				continue;
			}
			rx_datagram(ctx, aidx, &ctx->rx_msg[i].msg_hdr, ctx->rx_buf[i], ctx->rx_msg[i].msg_len);
		}
		if (app && ctx->ack_list && total == n && ctx->st.rx_packets - before <= UROCE_ACK_HOLD_MAX_PKTS &&
		    n < UROCE_RX_BATCH)
			hold_acks(ctx);
		else
			uroce_send_pending_acks(ctx);
		pump(ctx);
		uroce_tx_flush(ctx);
		if (n < UROCE_RX_BATCH)
			break;
	}
	return total;
}

/* Receive on every socket this context owns (not borrowed ones); *drained
   (when asked) says whether each was left empty.  Under ctx->lock. */
static int rx_all_locked(struct uroce_ctx *ctx, int max_rounds, bool app, bool *drained)
{
	int n = 0;
	if (drained)
		*drained = true;
	for (int i = 0; i < UROCE_MAX_GID; i++)
		if (ctx->addrs[i].used && !ctx->addrs[i].borrowed) {
			int k = rx_socket_locked(ctx, i, max_rounds, app);
			n += k;
			if (drained && k >= max_rounds * UROCE_RX_BATCH)
				*drained = false;
		}
	return n;
}

static void rx_socket(struct uroce_ctx *ctx, int aidx)
{
	pthread_mutex_lock(&ctx->lock);
	rx_socket_locked(ctx, aidx, 16, false);
	pthread_mutex_unlock(&ctx->lock);
}

/* (Re)register the sockets with the progress thread's epoll set, behind the
   completion channels' (exclusive wake-ups go to the first waiter that sleeps);
   none while the thread is parked. Under ctx->lock. */
static void watch_sockets(struct uroce_ctx *ctx)
{
	for (int i = 0; i < UROCE_MAX_GID; i++) {
		if (!ctx->addrs[i].used || ctx->addrs[i].borrowed)
			continue;
		struct epoll_event ev = { .events = EPOLLIN | EPOLLEXCLUSIVE, .data.u32 = (uint32_t)i };
		epoll_ctl(ctx->epfd, EPOLL_CTL_DEL, ctx->addrs[i].fd, NULL);
		if (!ctx->pt_parked)
			epoll_ctl(ctx->epfd, EPOLL_CTL_ADD, ctx->addrs[i].fd, &ev);
	}
}

void uroce_engine_requeue(struct uroce_ctx *ctx)
{
	if (ctx->epfd >= 0)
		watch_sockets(ctx);
}

/*
 * Parking.  While application threads receive for themselves (polling an
 * empty CQ, waiting on a completion channel), a packet that arrives while
 * such a thread is between two waits would wake the progress thread, which
 * then contends for the lock to receive what the application thread was about
 * to receive anyway: two more context switches per packet.  So the progress
 * thread, woken by a socket while an application thread received within the
 * last UROCE_APP_RECENT_NS, stops watching the sockets (parks) and looks again
 * every UROCE_PARK_CHECK_NS: it takes over (unparks and drains) as soon as a
 * whole check period passes with no application thread receiving.  A poll
 * counts as receiving only when it got the lock and emptied the sockets, so a
 * poller that cannot keep up (or keeps finding the lock taken) does not keep
 * the progress thread parked.
 */
#define UROCE_APP_RECENT_NS 200000ull
#define UROCE_PARK_CHECK_NS 1000000ull

static void note_app_reception(struct uroce_ctx *ctx, uint64_t now)
{
	__atomic_store_n(&ctx->app_seen_ns, now, __ATOMIC_RELAXED);
}

void uroce_app_receiving(struct uroce_ctx *ctx)
{
	note_app_reception(ctx, uroce_now_ns());
}

static bool app_recent(struct uroce_ctx *ctx, uint64_t now, uint64_t within)
{
	uint64_t seen = __atomic_load_n(&ctx->app_seen_ns, __ATOMIC_RELAXED);
	return seen && now - seen < within;
}

/* Progress thread, woken by a socket: park when the application receives anyway. */
static bool park_if_app_receives(struct uroce_ctx *ctx)
{
	uint64_t now = uroce_now_ns();
	if (ctx->no_park || !app_recent(ctx, now, UROCE_APP_RECENT_NS) ||
	    __atomic_load_n(&ctx->armed_channel_cqs, __ATOMIC_RELAXED))
		return false;
	pthread_mutex_lock(&ctx->lock);
	__atomic_store_n(&ctx->pt_parked, true, __ATOMIC_RELAXED);
	ctx->st.progress_parks++;
	watch_sockets(ctx);
	ctx->park_check_ns = now + UROCE_PARK_CHECK_NS;
	uroce_timer_update(ctx, ctx->park_check_ns);
	pthread_mutex_unlock(&ctx->lock);
	return true;
}

/* A CQ with a completion channel was armed: its application may now sleep in
   poll() on the channel's fd, which no packet wakes, so a parked progress
   thread watches the sockets again (those sleeping in ibv_get_cq_event are
   woken first by their packets all the same). */
void uroce_channel_armed(struct uroce_ctx *ctx)
{
	if (!__atomic_load_n(&ctx->pt_parked, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&ctx->lock);
	if (ctx->pt_parked) {
		__atomic_store_n(&ctx->pt_parked, false, __ATOMIC_RELAXED);
		watch_sockets(ctx);
	}
	pthread_mutex_unlock(&ctx->lock);
}

/* From the timer, under ctx->lock: unpark once the application has stopped receiving.
   Returns the next check time (0: not parked). */
static uint64_t park_check(struct uroce_ctx *ctx, uint64_t now)
{
	if (!ctx->pt_parked)
		return 0;
	if (now < ctx->park_check_ns)
		return ctx->park_check_ns;
	if (app_recent(ctx, now, UROCE_PARK_CHECK_NS)) {
		ctx->park_check_ns = now + UROCE_PARK_CHECK_NS;
		return ctx->park_check_ns;
	}
	__atomic_store_n(&ctx->pt_parked, false, __ATOMIC_RELAXED);
	watch_sockets(ctx);
	rx_all_locked(ctx, 16, false, NULL);
	return 0;
}

/* A thread woken on a completion channel receives for itself. */
int uroce_progress_blocking(struct uroce_ctx *ctx)
{
	pthread_mutex_lock(&ctx->lock);
	int n = rx_all_locked(ctx, 16, true, NULL); /* drain: with EPOLLEXCLUSIVE nobody else was woken */
	pthread_mutex_unlock(&ctx->lock);
	return n;
}

/* A thread about to sleep on a completion channel sends the ACKs it held back. */
void uroce_release_acks(struct uroce_ctx *ctx)
{
	if (!__atomic_load_n(&ctx->acks_held, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&ctx->lock);
	uroce_flush_held_acks(ctx);
	pthread_mutex_unlock(&ctx->lock);
}

/* Polling an empty CQ drives reception itself, so a busy-polling application
   does not wait for the progress thread to be scheduled.  Finding nothing new,
   it sends the ACKs it held back: the application is waiting, not replying.
   Sockets found empty less than UROCE_RX_RECHECK_NS ago are not asked again
   (a waiting thread's epoll_wait sees anything that came since). */
#define UROCE_RX_RECHECK_NS 2000ull

int uroce_poll_progress(struct uroce_ctx *ctx)
{
	static int off = -1;
	if (off < 0)
		off = getenv("UROCE_NO_POLL_PROGRESS") != NULL;
	if (off)
		return 0;
	uint64_t now = uroce_now_ns();
	if (now - __atomic_load_n(&ctx->rx_empty_ns, __ATOMIC_RELAXED) < UROCE_RX_RECHECK_NS)
		return 0; /* found empty a moment ago (the poll / arm / poll idiom) */
	if (pthread_mutex_trylock(&ctx->lock))
		return 0; /* the progress thread is at work: it is not parked, or it is about to look */
	handoff_drain(ctx);
	bool drained;
	int n = rx_all_locked(ctx, 1, true, &drained);
	/* only a thread that keeps up counts as receiving (see parking) */
	if (drained)
		note_app_reception(ctx, now);
	if (!n) {
		__atomic_store_n(&ctx->rx_empty_ns, now, __ATOMIC_RELAXED);
		if (ctx->ack_list)
			uroce_flush_held_acks(ctx);
	}
	pthread_mutex_unlock(&ctx->lock);
	return n;
}

static void run_timers(struct uroce_ctx *ctx)
{
	uint64_t now = uroce_now_ns(), next = 0;
	pthread_mutex_lock(&ctx->lock);
	handoff_drain(ctx); /* before the timers: an ACK handed over may stop one */
	ctx->armed_deadline = 0;
	for (unsigned b = 0, seen = 0; b < UROCE_QP_HASH && seen < ctx->nqps; b++)
		for (struct uroce_qp *qp = ctx->qp_hash[b]; qp; qp = qp->hnext, seen++) {
			uint64_t d = uroce_qp_timers(qp, now);
			if (d && (!next || d < next))
				next = d;
		}
	for (unsigned i = 0; i < ctx->ndelayed; i++) {
		struct uroce_delayed *d = &ctx->delayed[i];
		if (!d->len)
			continue;
		if (d->due_ns <= now)
			send_held(d);
		else if (!next || d->due_ns < next)
			next = d->due_ns;
	}
	uint64_t park = park_check(ctx, now);
	if (park && (!next || park < next))
		next = park;
	uroce_flush_held_acks(ctx);
	uroce_timer_update(ctx, next);
	pthread_mutex_unlock(&ctx->lock);
}

static void *progress_thread(void *arg)
{
	struct uroce_ctx *ctx = arg;
	struct epoll_event evs[UROCE_MAX_GID + 2];
	for (;;) {
		int n = epoll_wait(ctx->epfd, evs, UROCE_MAX_GID + 2, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < n; i++) {
			uint32_t tag = evs[i].data.u32;
			if (tag == EV_STOP) {
				return NULL;
			} else if (tag == EV_TIMER) {
				uint64_t x;
				if (read(ctx->timerfd, &x, sizeof(x)) < 0 && errno != EAGAIN)
					continue;
				run_timers(ctx);
			} else if (tag == EV_PUMP) {
				uint64_t x;
				if (read(ctx->pumpfd, &x, sizeof(x)) < 0 && errno != EAGAIN)
					continue;
				pthread_mutex_lock(&ctx->lock);
				handoff_drain(ctx);
				pump(ctx);
				uroce_tx_flush(ctx);
				pthread_mutex_unlock(&ctx->lock);
			} else if (tag < UROCE_MAX_GID && !park_if_app_receives(ctx)) {
				rx_socket(ctx, (int)tag);
			}
		}
	}
	return NULL;
}

int uroce_engine_start(struct uroce_ctx *ctx)
{
	ctx->rx_buf = malloc(sizeof(*ctx->rx_buf) * UROCE_RX_BATCH);
	if (!ctx->rx_buf)
		return -ENOMEM;
	ctx->rx_dirty = UROCE_RX_BATCH;
	ctx->no_park = getenv("UROCE_NO_PARK") != NULL;
	ctx->epfd = epoll_create1(EPOLL_CLOEXEC);
	ctx->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	ctx->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ctx->pumpfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (ctx->epfd < 0 || ctx->timerfd < 0 || ctx->evfd < 0 || ctx->pumpfd < 0)
		return -errno;
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = EV_STOP };
	epoll_ctl(ctx->epfd, EPOLL_CTL_ADD, ctx->evfd, &ev);
	ev.data.u32 = EV_TIMER;
	epoll_ctl(ctx->epfd, EPOLL_CTL_ADD, ctx->timerfd, &ev);
	ev.data.u32 = EV_PUMP;
	epoll_ctl(ctx->epfd, EPOLL_CTL_ADD, ctx->pumpfd, &ev);
	ev.events = EPOLLIN | EPOLLEXCLUSIVE; /* one waiter per packet: this thread or a channel sleeper */
	for (int i = 0; i < UROCE_MAX_GID; i++)
		if (ctx->addrs[i].used && !ctx->addrs[i].borrowed) {
			ev.data.u32 = (uint32_t)i;
			epoll_ctl(ctx->epfd, EPOLL_CTL_ADD, ctx->addrs[i].fd, &ev);
		}
	int err = pthread_create(&ctx->thread, NULL, progress_thread, ctx);
	if (err)
		return -err;
	ctx->thread_started = true;
	registry_add(ctx);
	return 0;
}

void uroce_engine_stop(struct uroce_ctx *ctx)
{
	registry_del(ctx);
	/* a forwarder may hold our lock: wait for it */
	pthread_mutex_lock(&ctx->lock);
	ack_all_received(ctx);
	pthread_mutex_unlock(&ctx->lock);
	if (ctx->thread_started) {
		uroce_kick(ctx);
		pthread_join(ctx->thread, NULL);
		ctx->thread_started = false;
	}
	/* and so do they when the device is closed: the last ACK of a program
	 * that closes its device as soon as its data came is held back like any
	 * other (its peer, without it, would resend until it ran out of retries) */
	release_held(ctx);
	for (struct uroce_handoff *h = handoff_take(ctx), *next; h; h = next) {
		next = h->next; /* (out of the registry: nothing more comes) */
		ctx->st.rx_dropped++;
		free(h);
	}
	for (int i = 0; i < UROCE_MAX_GID; i++)
		if (ctx->addrs[i].used) {
			if (!ctx->addrs[i].borrowed)
				close(ctx->addrs[i].fd);
			ctx->addrs[i].used = false;
		}
	if (ctx->epfd >= 0)
		close(ctx->epfd);
	if (ctx->timerfd >= 0)
		close(ctx->timerfd);
	if (ctx->evfd >= 0)
		close(ctx->evfd);
	if (ctx->pumpfd >= 0)
		close(ctx->pumpfd);
	ctx->epfd = ctx->timerfd = ctx->evfd = ctx->pumpfd = -1;
	free(ctx->rx_buf);
	ctx->rx_buf = NULL;
	free(ctx->delayed);
	ctx->delayed = NULL;
	ctx->ndelayed = ctx->delayed_cap = 0;
	uroce_gso_fini(ctx);
}

/* ---- private interface for librdmacm (uroce_priv.h) and tests (uroce_stats.h) ---- */

UROCE_EXPORT int uroce_priv_stats(struct ibv_context *c, struct uroce_stats *out)
{
	if (!c || !out || !uroce_is_our_ctx(c))
		return -EINVAL;
	struct uroce_ctx *ctx = to_uctx(c);
	pthread_mutex_lock(&ctx->lock);
	*out = ctx->st;
	pthread_mutex_unlock(&ctx->lock);
	return 0;
}

UROCE_EXPORT int uroce_priv_is_uroce(struct ibv_context *c)
{
	return c && uroce_is_our_ctx(c);
}

UROCE_EXPORT int uroce_priv_add_addr(struct ibv_context *c, const struct sockaddr *addr, uint8_t *gid_index)
{
	if (!uroce_priv_is_uroce(c) || !gid_index)
		return -EINVAL;
	struct uroce_ctx *ctx = to_uctx(c);
	pthread_mutex_lock(&ctx->lock);
	int err = uroce_addr_add(ctx, addr, gid_index);
	pthread_mutex_unlock(&ctx->lock);
	return err;
}

UROCE_EXPORT int uroce_priv_gid_addr(struct ibv_context *c, uint8_t gid_index, struct sockaddr_storage *out)
{
	if (!uroce_priv_is_uroce(c) || !out || gid_index >= UROCE_MAX_GID)
		return -EINVAL;
	struct uroce_ctx *ctx = to_uctx(c);
	pthread_mutex_lock(&ctx->lock);
	int err = ctx->addrs[gid_index].used ? 0 : -ENOENT;
	if (!err)
		*out = ctx->addrs[gid_index].sa;
	pthread_mutex_unlock(&ctx->lock);
	return err;
}

UROCE_EXPORT int uroce_priv_gsi_register(struct ibv_context *c, uroce_gsi_handler fn, void *arg)
{
	if (!uroce_priv_is_uroce(c))
		return -EINVAL;
	struct uroce_ctx *ctx = to_uctx(c);
	pthread_mutex_lock(&ctx->lock);
	pthread_mutex_lock(&g_lock); /* uroce_gsi_forward reads them under g_lock alone */
	ctx->gsi_fn = fn;
	ctx->gsi_arg = arg;
	pthread_mutex_unlock(&g_lock);
	pthread_mutex_unlock(&ctx->lock);
	return 0;
}

UROCE_EXPORT int uroce_priv_gsi_send(struct ibv_context *c, uint8_t gid_index, const struct sockaddr *dst,
                                     uint8_t tclass, const uint8_t *mad, size_t len)
{
	if (!uroce_priv_is_uroce(c) || !dst || !mad || len > UROCE_PKT_MAX - 64)
		return -EINVAL;
	if (dst->sa_family != AF_INET && dst->sa_family != AF_INET6)
		return -EAFNOSUPPORT;
	struct uroce_ctx *ctx = to_uctx(c);
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, dst, dst->sa_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6));
	if (ss.ss_family == AF_INET)
		((struct sockaddr_in *)&ss)->sin_port = htons(RT_ROCE_UDP_PORT);
	else
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(RT_ROCE_UDP_PORT);
	pthread_mutex_lock(&ctx->lock);
	ack_all_received(ctx); /* ACKs before a CM message (a DREQ after the last data) */
	int err = uroce_local_fd(ctx, gid_index, &ss);
	if (err >= 0) {
		struct uroce_addr *a = &ctx->addrs[gid_index];
		struct rt_roce_hdrs h = { .opcode = RT_OP_UD_SEND_ONLY, .dest_qpn = 1, .psn = a->gsi_psn,
		                          .deth_qkey = RT_GSI_QKEY, .deth_src_qp = 1 };
		a->gsi_psn = rt_psn_add(a->gsi_psn, 1);
		struct uroce_sge s = { (uint8_t *)(uintptr_t)mad, (uint32_t)len };
		uroce_tx_packet(ctx, NULL, gid_index, &ss, tclass, &h, &s, 1, (uint32_t)len, 0);
		uroce_tx_flush(ctx);
		err = 0;
	}
	pthread_mutex_unlock(&ctx->lock);
	return err;
}

/* Called by the transport (under ctx->lock) for a MAD on QP1 that arrived on
 * a context without a CM (perftest -R's own, beside librdmacm's): handed to
 * the handler of the context of this process that has one on the same
 * socket; false when none has.  Unlike uroce_forward, that context's lock
 * is not needed: the handler only queues the MAD for the CM's thread.
 * Waiting for the lock could fail (its holder busy), and a MAD dropped so
 * is noticed by the CM only after its response timeout (seconds). */
bool uroce_gsi_forward(struct uroce_ctx *ctx, int aidx, const struct sockaddr_storage *src, const uint8_t *mad,
                       size_t len)
{
	int fd = ctx->addrs[aidx].fd, taidx = -1;
	uroce_gsi_handler fn = NULL;
	void *arg = NULL;
	pthread_mutex_lock(&g_lock);
	for (int i = 0; i < 64 && !fn; i++) {
		struct uroce_ctx *o = g_ctxs[i];
		if (!o || o == ctx || !o->gsi_fn)
			continue;
		for (int k = 0; k < UROCE_MAX_GID; k++)
			if (o->addrs[k].used && o->addrs[k].fd == fd) {
				fn = o->gsi_fn;
				arg = o->gsi_arg;
				taidx = k;
				break;
			}
	}
	pthread_mutex_unlock(&g_lock);
	if (!fn)
		return false;
	fn(arg, (uint8_t)taidx, (const struct sockaddr *)src, mad, len);
	return true;
}

/* Called by the transport (under ctx->lock) for a MAD on QP1.  The handler
 * runs with the lock held (it only queues the MAD: uroce_priv.h): the MAD
 * is in the context's receive buffers, which the lock guards, with the rest
 * of their batch.  (Releasing the lock around the handler, as before, let
 * another thread receive into those buffers meanwhile: a SEND right behind
 * an RTU overwrote the RTU's header, the CM threw it away as malformed, and
 * rping's passive side connected 6.1 s later, when its REP went again; and
 * the rest of the batch was then read from buffers another thread had
 * filled.) */
void uroce_gsi_deliver(struct uroce_ctx *ctx, int aidx, const struct sockaddr_storage *src, const uint8_t *mad,
                       size_t len)
{
	uroce_gsi_handler fn = ctx->gsi_fn;
	void *arg = ctx->gsi_arg;
	if (!fn)
		return;
	uroce_send_pending_acks(ctx);
	uroce_tx_flush(ctx);
	fn(arg, (uint8_t)aidx, (const struct sockaddr *)src, mad, len);
}

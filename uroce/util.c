/*
 * Small helpers shared by the uroce front end and engine: time, GID <->
 * socket address conversion, one-time warnings for unsupported calls.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "uroce.h"

uint64_t uroce_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void uroce_warn_once(const char *what, const char *why)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static const char *seen[64];
	static unsigned nseen;
	pthread_mutex_lock(&lock);
	for (unsigned i = 0; i < nseen; i++)
		if (seen[i] == what) {
			pthread_mutex_unlock(&lock);
			return;
		}
	if (nseen < 64)
		seen[nseen++] = what;
	pthread_mutex_unlock(&lock);
	fprintf(stderr, "uroce: %s is not supported: %s\n", what, why);
}

void uroce_gid_to_sockaddr(const union ibv_gid *gid, struct sockaddr_storage *ss)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF };
	memset(ss, 0, sizeof(*ss));
	if (!memcmp(gid->raw, mapped, 12)) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
		s4->sin_family = AF_INET;
		s4->sin_port = htons(RT_ROCE_UDP_PORT);
		memcpy(&s4->sin_addr, gid->raw + 12, 4);
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(RT_ROCE_UDP_PORT);
		memcpy(&s6->sin6_addr, gid->raw, 16);
	}
}

void uroce_sockaddr_to_gid(const struct sockaddr *sa, union ibv_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	if (sa->sa_family == AF_INET) {
		gid->raw[10] = gid->raw[11] = 0xFF;
		memcpy(gid->raw + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	} else {
		memcpy(gid->raw, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
	}
}

socklen_t uroce_salen(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
}

bool uroce_sa_equal(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr == ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr, &((const struct sockaddr_in6 *)b)->sin6_addr, 16);
}

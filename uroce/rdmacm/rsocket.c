/*
 * The rsocket calls of librdmacm's ABI.  uroce does not implement rsockets:
 * rsocket() fails with ENOSYS and a one-line explanation, so no descriptor
 * can ever be an rsocket and the calls on descriptors fail the same way.
 * rpoll and rselect are real: on ordinary descriptors (rping and ucmatose
 * poll their event channel with rpoll) they are poll(2) and select(2).
 */
#include "cma_priv.h"

#include <errno.h>
#include <poll.h>
#include <rdma/rsocket.h>
#include <sys/select.h>

static int nosys(const char *call)
{
	cma_warn("rsockets (%s) are not supported by uroce", call);
	errno = ENOSYS;
	return -1;
}

CMA_EXPORT int rsocket(int domain, int type, int protocol)
{
	(void)domain; (void)type; (void)protocol;
	return nosys("rsocket");
}

CMA_EXPORT int rbind(int s, const struct sockaddr *addr, socklen_t len)
{
	(void)s; (void)addr; (void)len;
	return nosys("rbind");
}

CMA_EXPORT int rlisten(int s, int backlog)
{
	(void)s; (void)backlog;
	return nosys("rlisten");
}

CMA_EXPORT int raccept(int s, struct sockaddr *addr, socklen_t *len)
{
	(void)s; (void)addr; (void)len;
	return nosys("raccept");
}

CMA_EXPORT int rconnect(int s, const struct sockaddr *addr, socklen_t len)
{
	(void)s; (void)addr; (void)len;
	return nosys("rconnect");
}

CMA_EXPORT int rshutdown(int s, int how)
{
	(void)s; (void)how;
	return nosys("rshutdown");
}

CMA_EXPORT int rclose(int s)
{
	(void)s;
	return nosys("rclose");
}

CMA_EXPORT ssize_t rrecv(int s, void *buf, size_t len, int flags)
{
	(void)s; (void)buf; (void)len; (void)flags;
	return nosys("rrecv");
}

CMA_EXPORT ssize_t rrecvfrom(int s, void *buf, size_t len, int flags, struct sockaddr *src, socklen_t *alen)
{
	(void)s; (void)buf; (void)len; (void)flags; (void)src; (void)alen;
	return nosys("rrecvfrom");
}

CMA_EXPORT ssize_t rrecvmsg(int s, struct msghdr *msg, int flags)
{
	(void)s; (void)msg; (void)flags;
	return nosys("rrecvmsg");
}

CMA_EXPORT ssize_t rsend(int s, const void *buf, size_t len, int flags)
{
	(void)s; (void)buf; (void)len; (void)flags;
	return nosys("rsend");
}

CMA_EXPORT ssize_t rsendto(int s, const void *buf, size_t len, int flags, const struct sockaddr *dst,
			   socklen_t alen)
{
	(void)s; (void)buf; (void)len; (void)flags; (void)dst; (void)alen;
	return nosys("rsendto");
}

CMA_EXPORT ssize_t rsendmsg(int s, const struct msghdr *msg, int flags)
{
	(void)s; (void)msg; (void)flags;
	return nosys("rsendmsg");
}

CMA_EXPORT ssize_t rread(int s, void *buf, size_t count)
{
	(void)s; (void)buf; (void)count;
	return nosys("rread");
}

CMA_EXPORT ssize_t rreadv(int s, const struct iovec *iov, int iovcnt)
{
	(void)s; (void)iov; (void)iovcnt;
	return nosys("rreadv");
}

CMA_EXPORT ssize_t rwrite(int s, const void *buf, size_t count)
{
	(void)s; (void)buf; (void)count;
	return nosys("rwrite");
}

CMA_EXPORT ssize_t rwritev(int s, const struct iovec *iov, int iovcnt)
{
	(void)s; (void)iov; (void)iovcnt;
	return nosys("rwritev");
}

CMA_EXPORT int rpoll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	return poll(fds, nfds, timeout);
}

CMA_EXPORT int rselect(int nfds, fd_set *readfds, fd_set *writefds, fd_set *exceptfds, struct timeval *timeout)
{
	return select(nfds, readfds, writefds, exceptfds, timeout);
}

CMA_EXPORT int rgetpeername(int s, struct sockaddr *addr, socklen_t *len)
{
	(void)s; (void)addr; (void)len;
	return nosys("rgetpeername");
}

CMA_EXPORT int rgetsockname(int s, struct sockaddr *addr, socklen_t *len)
{
	(void)s; (void)addr; (void)len;
	return nosys("rgetsockname");
}

CMA_EXPORT int rsetsockopt(int s, int level, int optname, const void *optval, socklen_t optlen)
{
	(void)s; (void)level; (void)optname; (void)optval; (void)optlen;
	return nosys("rsetsockopt");
}

CMA_EXPORT int rgetsockopt(int s, int level, int optname, void *optval, socklen_t *optlen)
{
	(void)s; (void)level; (void)optname; (void)optval; (void)optlen;
	return nosys("rgetsockopt");
}

CMA_EXPORT int rfcntl(int s, int cmd, ...)
{
	(void)s; (void)cmd;
	return nosys("rfcntl");
}

CMA_EXPORT off_t riomap(int s, void *buf, size_t len, int prot, int flags, off_t offset)
{
	(void)s; (void)buf; (void)len; (void)prot; (void)flags; (void)offset;
	return nosys("riomap");
}

CMA_EXPORT int riounmap(int s, void *buf, size_t len)
{
	(void)s; (void)buf; (void)len;
	return nosys("riounmap");
}

CMA_EXPORT size_t riowrite(int s, const void *buf, size_t count, off_t offset, int flags)
{
	(void)s; (void)buf; (void)count; (void)offset; (void)flags;
	nosys("riowrite");
	return 0;
}

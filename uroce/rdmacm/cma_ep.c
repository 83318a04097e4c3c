/*
 * rdma_getaddrinfo and the rdma_create_ep / rdma_destroy_ep convenience
 * calls: name resolution through getaddrinfo(3) into struct rdma_addrinfo
 * (port space and QP type filled in as rdma-core does), and endpoints built
 * from synchronous ids.
 */
#include "cma_priv.h"

#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>

CMA_EXPORT void rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	while (res) {
		struct rdma_addrinfo *n = res->ai_next;
		free(res->ai_src_addr);
		free(res->ai_dst_addr);
		free(res->ai_src_canonname);
		free(res->ai_dst_canonname);
		free(res->ai_route);
		free(res->ai_connect);
		free(res);
		res = n;
	}
}

static struct sockaddr *dup_addr(const struct sockaddr *sa, socklen_t len)
{
	struct sockaddr *c = malloc(len);

	if (c)
		memcpy(c, sa, len);
	return c;
}

CMA_EXPORT int rdma_getaddrinfo(const char *node, const char *service, const struct rdma_addrinfo *hints,
				struct rdma_addrinfo **res)
{
	struct addrinfo ah = { 0 }, *ai = NULL;
	struct rdma_addrinfo *rai;
	int ret;

	if (!res || (!node && !service)) {
		errno = EINVAL;
		return EAI_NONAME;
	}
	rai = calloc(1, sizeof(*rai));
	if (!rai) {
		errno = ENOMEM;
		return EAI_MEMORY;
	}
	if (hints) {
		rai->ai_flags = hints->ai_flags;
		rai->ai_family = hints->ai_family;
		rai->ai_qp_type = hints->ai_qp_type;
		rai->ai_port_space = hints->ai_port_space;
		if (hints->ai_family == AF_IB) {
			rdma_freeaddrinfo(rai);
			cma_warn("rdma_getaddrinfo: AF_IB addresses are not supported by uroce");
			errno = EAFNOSUPPORT;
			return EAI_FAMILY;
		}
	}
	if (!rai->ai_qp_type)
		rai->ai_qp_type = rai->ai_port_space == RDMA_PS_UDP || rai->ai_port_space == RDMA_PS_IPOIB ?
			IBV_QPT_UD : IBV_QPT_RC;
	if (!rai->ai_port_space)
		rai->ai_port_space = rai->ai_qp_type == IBV_QPT_UD ? RDMA_PS_UDP : RDMA_PS_TCP;
	if (rai->ai_flags & RAI_PASSIVE)
		ah.ai_flags |= AI_PASSIVE;
	if (rai->ai_flags & RAI_NUMERICHOST)
		ah.ai_flags |= AI_NUMERICHOST;
	if (rai->ai_flags & RAI_FAMILY)
		ah.ai_family = rai->ai_family;
	else
		ah.ai_family = rai->ai_family == AF_INET || rai->ai_family == AF_INET6 ? rai->ai_family : AF_UNSPEC;
	ah.ai_socktype = rai->ai_qp_type == IBV_QPT_UD ? SOCK_DGRAM : SOCK_STREAM;
	ret = getaddrinfo(node, service, &ah, &ai);
	if (ret) {
		rdma_freeaddrinfo(rai);
		return ret;
	}
	rai->ai_family = ai->ai_family;
	if (rai->ai_flags & RAI_PASSIVE) {
		rai->ai_src_addr = dup_addr(ai->ai_addr, ai->ai_addrlen);
		rai->ai_src_len = ai->ai_addrlen;
		if (ai->ai_canonname)
			rai->ai_src_canonname = strdup(ai->ai_canonname);
	} else {
		rai->ai_dst_addr = dup_addr(ai->ai_addr, ai->ai_addrlen);
		rai->ai_dst_len = ai->ai_addrlen;
		if (ai->ai_canonname)
			rai->ai_dst_canonname = strdup(ai->ai_canonname);
		if (hints && hints->ai_src_addr && hints->ai_src_len) {
			rai->ai_src_addr = dup_addr(hints->ai_src_addr, hints->ai_src_len);
			rai->ai_src_len = hints->ai_src_len;
		}
	}
	freeaddrinfo(ai);
	if ((rai->ai_flags & RAI_PASSIVE) ? !rai->ai_src_addr : !rai->ai_dst_addr) {
		rdma_freeaddrinfo(rai);
		errno = ENOMEM;
		return EAI_MEMORY;
	}
	*res = rai;
	return 0;
}

CMA_EXPORT int rdma_create_ep(struct rdma_cm_id **out, struct rdma_addrinfo *res, struct ibv_pd *pd,
			      struct ibv_qp_init_attr *qp_init_attr)
{
	struct rdma_cm_id *rid;
	struct cma_id *id;
	int ret, err;

	if (!out || !res)
		return errno = EINVAL, -1;
	ret = rdma_create_id(NULL, &rid, NULL, (enum rdma_port_space)res->ai_port_space);
	if (ret)
		return ret;
	id = cma_of(rid);
	rid->qp_type = (enum ibv_qp_type)res->ai_qp_type;
	if (res->ai_flags & RAI_PASSIVE) {
		if (!res->ai_src_addr || (ret = rdma_bind_addr(rid, res->ai_src_addr)))
			goto err;
		if (qp_init_attr) {
			id->ep_qp_attr = malloc(sizeof(*qp_init_attr));
			if (!id->ep_qp_attr) {
				errno = ENOMEM;
				ret = -1;
				goto err;
			}
			*id->ep_qp_attr = *qp_init_attr;
			id->ep_qp_attr->qp_type = rid->qp_type;
			id->ep_pd = pd;
		}
		*out = rid;
		return 0;
	}
	ret = rdma_resolve_addr(rid, res->ai_src_addr, res->ai_dst_addr, 2000);
	if (!ret)
		ret = rdma_resolve_route(rid, 2000);
	if (!ret && qp_init_attr) {
		qp_init_attr->qp_type = rid->qp_type;
		ret = rdma_create_qp(rid, pd, qp_init_attr);
	}
	if (ret)
		goto err;
	*out = rid;
	return 0;
err:
	err = errno;
	rdma_destroy_id(rid);
	errno = err ? err : EINVAL;
	return -1;
}

CMA_EXPORT void rdma_destroy_ep(struct rdma_cm_id *rid)
{
	if (!rid)
		return;
	if (rid->qp)
		rdma_destroy_qp(rid);
	if (rid->srq)
		rdma_destroy_srq(rid);
	rdma_destroy_id(rid);
}

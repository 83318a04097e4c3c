/*
 * The uroce device as libibverbs shows it: the device list (one device,
 * "uroce0"), opening a context (its default address, its engine, its fault
 * rules), and the device, port, GID and P_Key queries with RoCEv2 GIDs
 * (IPv4-mapped for IPv4 addresses, gid type RoCE v2).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uroce.h"

#define UROCE_VENDOR_ID 0x1
#define UROCE_PART_ID 0x4791
#define UROCE_NODE_GUID 0x0200000000004791ull

static struct ibv_device uroce_device = {
	.node_type = IBV_NODE_CA,
	.transport_type = IBV_TRANSPORT_IB,
	.name = "uroce0",
	.dev_name = "uverbs0",
	.dev_path = "/sys/class/infiniband_verbs/uverbs0",
	.ibdev_path = "/sys/class/infiniband/uroce0",
};

unsigned uroce_port_mtu_enum(void)
{
	const char *s = getenv("UROCE_MTU");
	unsigned v = s ? (unsigned)atoi(s) : 4096;
	switch (v) {
	case 256: return IBV_MTU_256;
	case 512: return IBV_MTU_512;
	case 1024: return IBV_MTU_1024;
	case 2048: return IBV_MTU_2048;
	default: return IBV_MTU_4096;
	}
}

bool uroce_is_our_ctx(struct ibv_context *c)
{
	return c->device == &uroce_device;
}

UROCE_EXPORT struct ibv_device **ibv_get_device_list(int *num)
{
	struct ibv_device **list = calloc(2, sizeof(*list));
	if (!list) {
		errno = ENOMEM;
		return NULL;
	}
	list[0] = &uroce_device;
	if (num)
		*num = 1;
	return list;
}

UROCE_EXPORT void ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}

UROCE_EXPORT const char *ibv_get_device_name(struct ibv_device *dev)
{
	return dev ? dev->name : NULL;
}

UROCE_EXPORT __be64 ibv_get_device_guid(struct ibv_device *dev)
{
	(void)dev;
	return htobe64(UROCE_NODE_GUID);
}

UROCE_EXPORT int ibv_get_device_index(struct ibv_device *dev)
{
	return dev == &uroce_device ? 0 : -1;
}

static void trace_device(struct uroce_ctx *ctx, bool destroy)
{
	struct rt_event *ev = uroce_ev_begin(RT_EV_DEVICE, 0);
	if (!ev)
		return;
	if (destroy)
		ev->flags |= RT_EVF_DESTROY;
	memcpy(ev->u.device.name, "uroce0", 7);
	ev->u.device.node_guid = UROCE_NODE_GUID;
	ev->u.device.device_id = ctx->id;
	uroce_ev_commit(ev);
}

UROCE_EXPORT struct ibv_context *ibv_open_device(struct ibv_device *dev)
{
	static uint32_t next_id;
	if (dev != &uroce_device) {
		errno = ENODEV;
		return NULL;
	}
	uroce_trace_init();
	struct uroce_ctx *ctx = calloc(1, sizeof(*ctx));
	if (!ctx) {
		errno = ENOMEM;
		return NULL;
	}
	ctx->epfd = ctx->timerfd = ctx->evfd = ctx->pumpfd = -1;
	ctx->id = __atomic_add_fetch(&next_id, 1, __ATOMIC_RELAXED);
	uroce_gso_init(ctx);
	const char *w = getenv("UROCE_WINDOW");
	ctx->window = w && atoi(w) >= 1 && atoi(w) <= 4096 ? (unsigned)atoi(w) : UROCE_WINDOW;
	const char *la = getenv("UROCE_LAZY_ACK");
	ctx->lazy_acks_off = la && !strcmp(la, "0");
	pthread_mutexattr_t ma;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&ctx->lock, &ma);
	pthread_mutexattr_destroy(&ma);
	pthread_mutex_init(&ctx->hand_lock, NULL);
	struct ibv_context *c = &ctx->vctx.context;
	c->device = dev;
	c->cmd_fd = -1;
	c->num_comp_vectors = 1;
	c->abi_compat = __VERBS_ABI_IS_EXTENDED;
	pthread_mutex_init(&c->mutex, NULL);
	ctx->vctx.sz = sizeof(ctx->vctx);
	int p[2];
	char err[160];
	int rc;
	if (pipe2(p, O_CLOEXEC) < 0) {
		rc = -errno;
		goto fail;
	}
	c->async_fd = p[0];
	ctx->async_wfd = p[1];
	fcntl(ctx->async_wfd, F_SETFL, O_NONBLOCK);
	uroce_verbs_ops_init(ctx);
	uint8_t idx;
	rc = uroce_addr_add(ctx, NULL, &idx);
	if (rc < 0) {
		fprintf(stderr, "uroce: no local address for UDP port 4791: %s\n", strerror(-rc));
		goto fail;
	}
	rc = uroce_faults_load(ctx, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "uroce: UROCE_FAULTS: %s\n", err);
		goto fail;
	}
	rc = uroce_engine_start(ctx);
	if (rc < 0)
		goto fail;
	trace_device(ctx, false);
	return c;
fail:
	uroce_engine_stop(ctx);
	uroce_faults_free(ctx);
	if (ctx->async_wfd > 0) {
		close(c->async_fd);
		close(ctx->async_wfd);
	}
	free(ctx);
	errno = -rc;
	return NULL;
}

UROCE_EXPORT int ibv_close_device(struct ibv_context *c)
{
	struct uroce_ctx *ctx = to_uctx(c);
	trace_device(ctx, true);
	uroce_engine_stop(ctx);
	uroce_faults_free(ctx);
	close(c->async_fd);
	close(ctx->async_wfd);
	free(ctx->mrs);
	pthread_mutex_destroy(&ctx->lock);
	pthread_mutex_destroy(&ctx->hand_lock);
	free(ctx);
	return 0;
}

static void fill_device_attr(struct ibv_device_attr *a)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->fw_ver, sizeof(a->fw_ver), "uroce 1.0");
	a->node_guid = htobe64(UROCE_NODE_GUID);
	a->sys_image_guid = htobe64(UROCE_NODE_GUID);
	a->max_mr_size = 1ull << 40;
	a->page_size_cap = 0xFFFFF000u;
	a->vendor_id = UROCE_VENDOR_ID;
	a->vendor_part_id = UROCE_PART_ID;
	a->hw_ver = 1;
	a->max_qp = 65536;
	a->max_qp_wr = UROCE_MAX_QP_WR;
	a->device_cap_flags = IBV_DEVICE_RC_RNR_NAK_GEN | IBV_DEVICE_PORT_ACTIVE_EVENT |
	                      IBV_DEVICE_SYS_IMAGE_GUID;
	a->max_sge = UROCE_MAX_SGE;
	a->max_sge_rd = UROCE_MAX_SGE;
	a->max_cq = 65536;
	a->max_cqe = UROCE_MAX_CQE;
	a->max_mr = UROCE_MAX_MR;
	a->max_pd = 65536;
	a->max_qp_rd_atom = UROCE_MAX_RD_ATOMIC;
	a->max_res_rd_atom = UROCE_MAX_RD_ATOMIC * 65536;
	a->max_qp_init_rd_atom = UROCE_MAX_RD_ATOMIC;
	a->atomic_cap = IBV_ATOMIC_HCA;
	a->max_ah = 65536;
	a->max_srq = 65536;
	a->max_srq_wr = UROCE_MAX_QP_WR;
	a->max_srq_sge = UROCE_MAX_SGE;
	a->max_pkeys = 1;
	a->local_ca_ack_delay = 15;
	a->phys_port_cnt = 1;
}

UROCE_EXPORT int ibv_query_device(struct ibv_context *c, struct ibv_device_attr *a)
{
	if (!c || !a)
		return EINVAL;
	fill_device_attr(a);
	return 0;
}

static int query_device_ex(struct ibv_context *c, const struct ibv_query_device_ex_input *in,
                           struct ibv_device_attr_ex *a, size_t size)
{
	(void)c;
	if (in && in->comp_mask)
		return EINVAL;
	if (size < sizeof(struct ibv_device_attr))
		return EINVAL;
	struct ibv_device_attr_ex full;
	memset(&full, 0, sizeof(full));
	fill_device_attr(&full.orig_attr);
	full.max_dm_size = 0;
	memcpy(a, &full, size < sizeof(full) ? size : sizeof(full));
	return 0;
}

static void fill_port(struct uroce_ctx *ctx, struct ibv_port_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->state = IBV_PORT_ACTIVE;
	a->max_mtu = IBV_MTU_4096;
	a->active_mtu = (enum ibv_mtu)uroce_port_mtu_enum();
	a->gid_tbl_len = UROCE_MAX_GID;
	a->port_cap_flags = IBV_PORT_CM_SUP | IBV_PORT_IP_BASED_GIDS;
	a->max_msg_sz = 0x80000000u;
	a->bad_pkey_cntr = 0;
	a->qkey_viol_cntr = 0;
	a->pkey_tbl_len = 1;
	a->lid = 0;
	a->sm_lid = 0;
	a->lmc = 0;
	a->max_vl_num = 1;
	a->sm_sl = 0;
	a->subnet_timeout = 0;
	a->init_type_reply = 0;
	a->active_width = 2;  /* 4X */
	a->active_speed = 32; /* EDR */
	a->phys_state = 5;    /* LinkUp */
	a->link_layer = IBV_LINK_LAYER_ETHERNET;
	(void)ctx;
}

static int query_port_ex(struct ibv_context *c, uint8_t port, struct ibv_port_attr *a, size_t len)
{
	if (port != 1 || !a)
		return EINVAL;
	struct ibv_port_attr full;
	fill_port(to_uctx(c), &full);
	memcpy(a, &full, len < sizeof(full) ? len : sizeof(full));
	return 0;
}

#undef ibv_query_port
UROCE_EXPORT int ibv_query_port(struct ibv_context *c, uint8_t port, struct _compat_ibv_port_attr *a);
int ibv_query_port(struct ibv_context *c, uint8_t port, struct _compat_ibv_port_attr *a)
{
	/* the old ABI: the leading fields of struct ibv_port_attr, up to link_layer */
	return query_port_ex(c, port, (struct ibv_port_attr *)a, offsetof(struct ibv_port_attr, link_layer));
}

UROCE_EXPORT int ibv_query_gid(struct ibv_context *c, uint8_t port, int index, union ibv_gid *gid)
{
	if (!c || port != 1 || index < 0 || index >= UROCE_MAX_GID || !gid)
		return -1;
	struct uroce_ctx *ctx = to_uctx(c);
	pthread_mutex_lock(&ctx->lock);
	if (ctx->addrs[index].used)
		*gid = ctx->addrs[index].gid;
	else
		memset(gid, 0, sizeof(*gid));
	pthread_mutex_unlock(&ctx->lock);
	return 0;
}

/* rdma-core's private (driver.h) enum ibv_gid_type_sysfs: 0 = IB/RoCE v1, 1 = RoCE v2. */
#define UROCE_GID_TYPE_SYSFS_ROCE_V2 1
UROCE_EXPORT int ibv_query_gid_type(struct ibv_context *c, uint8_t port, unsigned int index, int *type);
int ibv_query_gid_type(struct ibv_context *c, uint8_t port, unsigned int index, int *type)
{
	if (!c || port != 1 || index >= UROCE_MAX_GID || !type)
		return -1;
	*type = UROCE_GID_TYPE_SYSFS_ROCE_V2;
	return 0;
}

UROCE_EXPORT int _ibv_query_gid_ex(struct ibv_context *c, uint32_t port, uint32_t index, struct ibv_gid_entry *e,
                                   uint32_t flags, size_t size)
{
	if (!c || port != 1 || index >= UROCE_MAX_GID || !e || flags || size < sizeof(*e))
		return EINVAL;
	struct uroce_ctx *ctx = to_uctx(c);
	pthread_mutex_lock(&ctx->lock);
	int err = ctx->addrs[index].used ? 0 : ENODATA;
	if (!err) {
		memset(e, 0, sizeof(*e));
		e->gid = ctx->addrs[index].gid;
		e->gid_index = index;
		e->port_num = 1;
		e->gid_type = IBV_GID_TYPE_ROCE_V2;
		e->ndev_ifindex = 1; /* lo */
	}
	pthread_mutex_unlock(&ctx->lock);
	return err;
}

UROCE_EXPORT ssize_t _ibv_query_gid_table(struct ibv_context *c, struct ibv_gid_entry *entries, size_t max,
                                          uint32_t flags, size_t size)
{
	if (!c || flags || size < sizeof(*entries))
		return -EINVAL;
	struct uroce_ctx *ctx = to_uctx(c);
	size_t n = 0;
	pthread_mutex_lock(&ctx->lock);
	for (uint32_t i = 0; i < UROCE_MAX_GID; i++) {
		if (!ctx->addrs[i].used)
			continue;
		if (n == max) {
			pthread_mutex_unlock(&ctx->lock);
			return -EINVAL;
		}
		struct ibv_gid_entry *e = (struct ibv_gid_entry *)((char *)entries + n * size);
		memset(e, 0, size);
		e->gid = ctx->addrs[i].gid;
		e->gid_index = i;
		e->port_num = 1;
		e->gid_type = IBV_GID_TYPE_ROCE_V2;
		e->ndev_ifindex = 1;
		n++;
	}
	pthread_mutex_unlock(&ctx->lock);
	return (ssize_t)n;
}

UROCE_EXPORT int ibv_query_pkey(struct ibv_context *c, uint8_t port, int index, __be16 *pkey)
{
	if (!c || port != 1 || index != 0 || !pkey)
		return -1;
	*pkey = htobe16(0xFFFF);
	return 0;
}

UROCE_EXPORT int ibv_get_pkey_index(struct ibv_context *c, uint8_t port, __be16 pkey)
{
	if (!c || port != 1)
		return -1;
	return (be16toh(pkey) & 0x7FFF) == 0x7FFF ? 0 : -1;
}

void uroce_device_ops_init(struct verbs_context *v);
void uroce_device_ops_init(struct verbs_context *v)
{
	v->query_device_ex = query_device_ex;
	v->query_port = query_port_ex;
}

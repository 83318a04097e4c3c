/*
 * The rest of libibverbs' exported surface: enum-to-string helpers, rate
 * conversions, fork and sysfs helpers, and the calls uroce does not
 * implement, which fail with EOPNOTSUPP/ENOSYS and one line on stderr.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "uroce.h"

UROCE_EXPORT const char *ibv_wc_status_str(enum ibv_wc_status status)
{
	static const char *const s[] = {
		[IBV_WC_SUCCESS] = "success",
		[IBV_WC_LOC_LEN_ERR] = "local length error",
		[IBV_WC_LOC_QP_OP_ERR] = "local QP operation error",
		[IBV_WC_LOC_EEC_OP_ERR] = "local EE context operation error",
		[IBV_WC_LOC_PROT_ERR] = "local protection error",
		[IBV_WC_WR_FLUSH_ERR] = "Work Request Flushed Error",
		[IBV_WC_MW_BIND_ERR] = "memory management operation error",
		[IBV_WC_BAD_RESP_ERR] = "bad response error",
		[IBV_WC_LOC_ACCESS_ERR] = "local access error",
		[IBV_WC_REM_INV_REQ_ERR] = "remote invalid request error",
		[IBV_WC_REM_ACCESS_ERR] = "remote access error",
		[IBV_WC_REM_OP_ERR] = "remote operation error",
		[IBV_WC_RETRY_EXC_ERR] = "transport retry counter exceeded",
		[IBV_WC_RNR_RETRY_EXC_ERR] = "RNR retry counter exceeded",
		[IBV_WC_LOC_RDD_VIOL_ERR] = "local RDD violation error",
		[IBV_WC_REM_INV_RD_REQ_ERR] = "remote invalid RD request",
		[IBV_WC_REM_ABORT_ERR] = "aborted error",
		[IBV_WC_INV_EECN_ERR] = "invalid EE context number",
		[IBV_WC_INV_EEC_STATE_ERR] = "invalid EE context state",
		[IBV_WC_FATAL_ERR] = "fatal error",
		[IBV_WC_RESP_TIMEOUT_ERR] = "response timeout error",
		[IBV_WC_GENERAL_ERR] = "general error",
		[IBV_WC_TM_ERR] = "TM error",
		[IBV_WC_TM_RNDV_INCOMPLETE] = "TM software rendezvous",
	};
	if ((unsigned)status < sizeof(s) / sizeof(s[0]) && s[status])
		return s[status];
	return "unknown";
}

UROCE_EXPORT const char *ibv_node_type_str(enum ibv_node_type t)
{
	static const char *const s[] = { "unknown", "InfiniBand channel adapter", "InfiniBand switch",
		                         "InfiniBand router", "iWARP NIC", "usNIC", "usNIC UDP", "unspecified" };
	int i = (int)t + 1;
	return i >= 0 && i < (int)(sizeof(s) / sizeof(s[0])) ? s[i] : "unknown";
}

UROCE_EXPORT const char *ibv_port_state_str(enum ibv_port_state st)
{
	static const char *const s[] = { "PORT_NOP", "PORT_DOWN", "PORT_INIT", "PORT_ARMED", "PORT_ACTIVE",
		                         "PORT_ACTIVE_DEFER" };
	return (unsigned)st < 6 ? s[st] : "unknown";
}

UROCE_EXPORT const char *ibv_event_type_str(enum ibv_event_type ev)
{
	static const char *const s[] = {
		[IBV_EVENT_CQ_ERR] = "CQ error",
		[IBV_EVENT_QP_FATAL] = "local work queue catastrophic error",
		[IBV_EVENT_QP_REQ_ERR] = "invalid request local work queue error",
		[IBV_EVENT_QP_ACCESS_ERR] = "local access violation work queue error",
		[IBV_EVENT_COMM_EST] = "communication established",
		[IBV_EVENT_SQ_DRAINED] = "send queue drained",
		[IBV_EVENT_PATH_MIG] = "path migrated",
		[IBV_EVENT_PATH_MIG_ERR] = "path migration request error",
		[IBV_EVENT_DEVICE_FATAL] = "local catastrophic error",
		[IBV_EVENT_PORT_ACTIVE] = "port active",
		[IBV_EVENT_PORT_ERR] = "port error",
		[IBV_EVENT_LID_CHANGE] = "LID change",
		[IBV_EVENT_PKEY_CHANGE] = "P_Key change",
		[IBV_EVENT_SM_CHANGE] = "SM change",
		[IBV_EVENT_SRQ_ERR] = "SRQ catastrophic error",
		[IBV_EVENT_SRQ_LIMIT_REACHED] = "SRQ limit reached",
		[IBV_EVENT_QP_LAST_WQE_REACHED] = "last WQE reached",
		[IBV_EVENT_CLIENT_REREGISTER] = "client reregistration",
		[IBV_EVENT_GID_CHANGE] = "GID table change",
		[IBV_EVENT_WQ_FATAL] = "WQ fatal",
	};
	if ((unsigned)ev < sizeof(s) / sizeof(s[0]) && s[ev])
		return s[ev];
	return "unknown";
}

static const struct {
	enum ibv_rate rate;
	int mult, mbps;
} rates[] = {
	{ IBV_RATE_2_5_GBPS, 1, 2500 }, { IBV_RATE_5_GBPS, 2, 5000 }, { IBV_RATE_10_GBPS, 4, 10000 },
	{ IBV_RATE_20_GBPS, 8, 20000 }, { IBV_RATE_30_GBPS, 12, 30000 }, { IBV_RATE_40_GBPS, 16, 40000 },
	{ IBV_RATE_60_GBPS, 24, 60000 }, { IBV_RATE_80_GBPS, 32, 80000 }, { IBV_RATE_120_GBPS, 48, 120000 },
	{ IBV_RATE_14_GBPS, 0, 14062 }, { IBV_RATE_56_GBPS, 0, 56250 }, { IBV_RATE_112_GBPS, 0, 112500 },
	{ IBV_RATE_168_GBPS, 0, 168750 }, { IBV_RATE_25_GBPS, 10, 25781 }, { IBV_RATE_100_GBPS, 40, 103125 },
	{ IBV_RATE_200_GBPS, 80, 206250 }, { IBV_RATE_300_GBPS, 120, 309375 }, { IBV_RATE_28_GBPS, 11, 28125 },
	{ IBV_RATE_50_GBPS, 20, 53125 }, { IBV_RATE_400_GBPS, 160, 425000 }, { IBV_RATE_600_GBPS, 240, 637500 },
};
#define NRATES (sizeof(rates) / sizeof(rates[0]))

UROCE_EXPORT int ibv_rate_to_mult(enum ibv_rate rate)
{
	for (size_t i = 0; i < NRATES; i++)
		if (rates[i].rate == rate)
			return rates[i].mult ? rates[i].mult : -1;
	return -1;
}

UROCE_EXPORT enum ibv_rate mult_to_ibv_rate(int mult)
{
	for (size_t i = 0; i < NRATES; i++)
		if (rates[i].mult == mult && mult)
			return rates[i].rate;
	return IBV_RATE_MAX;
}

UROCE_EXPORT int ibv_rate_to_mbps(enum ibv_rate rate)
{
	for (size_t i = 0; i < NRATES; i++)
		if (rates[i].rate == rate)
			return rates[i].mbps;
	return -1;
}

UROCE_EXPORT enum ibv_rate mbps_to_ibv_rate(int mbps)
{
	for (size_t i = 0; i < NRATES; i++)
		if (rates[i].mbps == mbps)
			return rates[i].rate;
	return IBV_RATE_MAX;
}

/* Memory stays registered across fork() in uroce (no pinning): nothing to do. */
UROCE_EXPORT int ibv_fork_init(void)
{
	return 0;
}

UROCE_EXPORT enum ibv_fork_status ibv_is_fork_initialized(void)
{
	return IBV_FORK_UNNEEDED;
}

/* These four are declared only in rdma-core's private driver.h. */
UROCE_EXPORT int ibv_dontfork_range(void *base, size_t size);
UROCE_EXPORT int ibv_dofork_range(void *base, size_t size);
UROCE_EXPORT const char *ibv_get_sysfs_path(void);
UROCE_EXPORT int ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size);

int ibv_dontfork_range(void *base, size_t size)
{
	(void)base, (void)size;
	return 0;
}

int ibv_dofork_range(void *base, size_t size)
{
	(void)base, (void)size;
	return 0;
}

const char *ibv_get_sysfs_path(void)
{
	return "/sys";
}

/* uroce has no sysfs presence: every attribute read fails. */
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size)
{
	(void)dir, (void)file;
	if (buf && size)
		buf[0] = 0;
	errno = ENOENT;
	return -1;
}

UROCE_EXPORT int ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags)
{
	(void)qp, (void)op, (void)flags;
	return 0;
}

UROCE_EXPORT void ibv_register_driver(const char *name, void *init_func);
void ibv_register_driver(const char *name, void *init_func)
{
	(void)name, (void)init_func;
	uroce_warn_once("ibv_register_driver", "uroce is the only device of this libibverbs");
}

UROCE_EXPORT int ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	(void)qp, (void)gid, (void)lid;
	uroce_warn_once("ibv_attach_mcast", "multicast is not implemented");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	(void)qp, (void)gid, (void)lid;
	uroce_warn_once("ibv_detach_mcast", "multicast is not implemented");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr, size_t length,
                              int access)
{
	(void)mr, (void)flags, (void)pd, (void)addr, (void)length, (void)access;
	uroce_warn_once("ibv_rereg_mr", "deregister and register again instead");
	errno = EOPNOTSUPP;
	return IBV_REREG_MR_ERR_INPUT;
}

UROCE_EXPORT int ibv_resolve_eth_l2_from_gid(struct ibv_context *c, struct ibv_ah_attr *a, uint8_t eth_mac[6],
                                             uint16_t *vid)
{
	(void)c, (void)a, (void)eth_mac, (void)vid;
	uroce_warn_once("ibv_resolve_eth_l2_from_gid", "uroce runs over UDP sockets, not Ethernet");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp, (void)ece;
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp, (void)ece;
	return EOPNOTSUPP;
}

UROCE_EXPORT struct ibv_context *ibv_import_device(int cmd_fd)
{
	(void)cmd_fd;
	uroce_warn_once("ibv_import_device", "there is no kernel object to import");
	errno = EOPNOTSUPP;
	return NULL;
}

UROCE_EXPORT struct ibv_pd *ibv_import_pd(struct ibv_context *c, uint32_t handle)
{
	(void)c, (void)handle;
	uroce_warn_once("ibv_import_pd", "there is no kernel object to import");
	errno = EOPNOTSUPP;
	return NULL;
}

UROCE_EXPORT void ibv_unimport_pd(struct ibv_pd *pd)
{
	(void)pd;
}

UROCE_EXPORT struct ibv_mr *ibv_import_mr(struct ibv_pd *pd, uint32_t handle)
{
	(void)pd, (void)handle;
	uroce_warn_once("ibv_import_mr", "there is no kernel object to import");
	errno = EOPNOTSUPP;
	return NULL;
}

UROCE_EXPORT void ibv_unimport_mr(struct ibv_mr *mr)
{
	(void)mr;
}

UROCE_EXPORT struct ibv_dm *ibv_import_dm(struct ibv_context *c, uint32_t handle)
{
	(void)c, (void)handle;
	uroce_warn_once("ibv_import_dm", "device memory is not implemented");
	errno = EOPNOTSUPP;
	return NULL;
}

UROCE_EXPORT void ibv_unimport_dm(struct ibv_dm *dm)
{
	(void)dm;
}

UROCE_EXPORT struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova,
                                              int fd, int access)
{
	(void)pd, (void)offset, (void)length, (void)iova, (void)fd, (void)access;
	uroce_warn_once("ibv_reg_dmabuf_mr", "dma-buf memory is not implemented");
	errno = EOPNOTSUPP;
	return NULL;
}

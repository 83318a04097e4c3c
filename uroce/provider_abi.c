/*
 * rdma-core's provider ABI (IBVERBS_PRIVATE_34 and the old kernel-copy
 * helpers).  Programs such as perftest link provider libraries (libmlx5,
 * libefa) directly; those import these symbols and are bound at load time, so
 * the symbols must exist for the program to start.  uroce has no kernel
 * devices for a provider to drive: the functions are never reached through
 * uroce's device and, if a provider calls one anyway, it fails with
 * EOPNOTSUPP (or does nothing) and says so once.  Registering a driver is a
 * silent no-op because provider constructors do it when they are loaded.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "uroce.h"

UROCE_EXPORT bool verbs_allow_disassociate_destroy;

static void provider_warn(const char *name)
{
	uroce_warn_once(name, "rdma-core provider internals have no kernel device under uroce");
}

UROCE_EXPORT int ibv_cmd_advise_mr(void);
int ibv_cmd_advise_mr(void)
{
	provider_warn("ibv_cmd_advise_mr");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_alloc_dm(void);
int ibv_cmd_alloc_dm(void)
{
	provider_warn("ibv_cmd_alloc_dm");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_alloc_mw(void);
int ibv_cmd_alloc_mw(void)
{
	provider_warn("ibv_cmd_alloc_mw");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_alloc_pd(void);
int ibv_cmd_alloc_pd(void)
{
	provider_warn("ibv_cmd_alloc_pd");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_attach_mcast(void);
int ibv_cmd_attach_mcast(void)
{
	provider_warn("ibv_cmd_attach_mcast");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_close_xrcd(void);
int ibv_cmd_close_xrcd(void)
{
	provider_warn("ibv_cmd_close_xrcd");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_create_ah(void);
int ibv_cmd_create_ah(void)
{
	provider_warn("ibv_cmd_create_ah");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_create_counters(void);
int ibv_cmd_create_counters(void)
{
	provider_warn("ibv_cmd_create_counters");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_create_cq(void);
int ibv_cmd_create_cq(void)
{
	provider_warn("ibv_cmd_create_cq");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_create_cq_ex(void);
int ibv_cmd_create_cq_ex(void)
{
	provider_warn("ibv_cmd_create_cq_ex");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_create_flow(void);
int ibv_cmd_create_flow(void)
{
	provider_warn("ibv_cmd_create_flow");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_create_flow_action_esp(void);
int ibv_cmd_create_flow_action_esp(void)
{
	provider_warn("ibv_cmd_create_flow_action_esp");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_create_qp(void);
int ibv_cmd_create_qp(void)
{
	provider_warn("ibv_cmd_create_qp");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_create_qp_ex(void);
int ibv_cmd_create_qp_ex(void)
{
	provider_warn("ibv_cmd_create_qp_ex");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_create_qp_ex2(void);
int ibv_cmd_create_qp_ex2(void)
{
	provider_warn("ibv_cmd_create_qp_ex2");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_create_rwq_ind_table(void);
int ibv_cmd_create_rwq_ind_table(void)
{
	provider_warn("ibv_cmd_create_rwq_ind_table");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_create_srq(void);
int ibv_cmd_create_srq(void)
{
	provider_warn("ibv_cmd_create_srq");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_create_srq_ex(void);
int ibv_cmd_create_srq_ex(void)
{
	provider_warn("ibv_cmd_create_srq_ex");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_create_wq(void);
int ibv_cmd_create_wq(void)
{
	provider_warn("ibv_cmd_create_wq");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_dealloc_mw(void);
int ibv_cmd_dealloc_mw(void)
{
	provider_warn("ibv_cmd_dealloc_mw");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_dealloc_pd(void);
int ibv_cmd_dealloc_pd(void)
{
	provider_warn("ibv_cmd_dealloc_pd");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_dereg_mr(void);
int ibv_cmd_dereg_mr(void)
{
	provider_warn("ibv_cmd_dereg_mr");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_destroy_ah(void);
int ibv_cmd_destroy_ah(void)
{
	provider_warn("ibv_cmd_destroy_ah");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_destroy_counters(void);
int ibv_cmd_destroy_counters(void)
{
	provider_warn("ibv_cmd_destroy_counters");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_destroy_cq(void);
int ibv_cmd_destroy_cq(void)
{
	provider_warn("ibv_cmd_destroy_cq");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_destroy_flow(void);
int ibv_cmd_destroy_flow(void)
{
	provider_warn("ibv_cmd_destroy_flow");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_destroy_flow_action(void);
int ibv_cmd_destroy_flow_action(void)
{
	provider_warn("ibv_cmd_destroy_flow_action");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_destroy_qp(void);
int ibv_cmd_destroy_qp(void)
{
	provider_warn("ibv_cmd_destroy_qp");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_destroy_rwq_ind_table(void);
int ibv_cmd_destroy_rwq_ind_table(void)
{
	provider_warn("ibv_cmd_destroy_rwq_ind_table");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_destroy_srq(void);
int ibv_cmd_destroy_srq(void)
{
	provider_warn("ibv_cmd_destroy_srq");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_destroy_wq(void);
int ibv_cmd_destroy_wq(void)
{
	provider_warn("ibv_cmd_destroy_wq");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_detach_mcast(void);
int ibv_cmd_detach_mcast(void)
{
	provider_warn("ibv_cmd_detach_mcast");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_free_dm(void);
int ibv_cmd_free_dm(void)
{
	provider_warn("ibv_cmd_free_dm");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_get_context(void);
int ibv_cmd_get_context(void)
{
	provider_warn("ibv_cmd_get_context");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_modify_cq(void);
int ibv_cmd_modify_cq(void)
{
	provider_warn("ibv_cmd_modify_cq");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_modify_flow_action_esp(void);
int ibv_cmd_modify_flow_action_esp(void)
{
	provider_warn("ibv_cmd_modify_flow_action_esp");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_modify_qp(void);
int ibv_cmd_modify_qp(void)
{
	provider_warn("ibv_cmd_modify_qp");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_modify_qp_ex(void);
int ibv_cmd_modify_qp_ex(void)
{
	provider_warn("ibv_cmd_modify_qp_ex");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_modify_srq(void);
int ibv_cmd_modify_srq(void)
{
	provider_warn("ibv_cmd_modify_srq");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_modify_wq(void);
int ibv_cmd_modify_wq(void)
{
	provider_warn("ibv_cmd_modify_wq");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_open_qp(void);
int ibv_cmd_open_qp(void)
{
	provider_warn("ibv_cmd_open_qp");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_open_xrcd(void);
int ibv_cmd_open_xrcd(void)
{
	provider_warn("ibv_cmd_open_xrcd");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_poll_cq(void);
int ibv_cmd_poll_cq(void)
{
	provider_warn("ibv_cmd_poll_cq");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_post_recv(void);
int ibv_cmd_post_recv(void)
{
	provider_warn("ibv_cmd_post_recv");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_post_send(void);
int ibv_cmd_post_send(void)
{
	provider_warn("ibv_cmd_post_send");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_post_srq_recv(void);
int ibv_cmd_post_srq_recv(void)
{
	provider_warn("ibv_cmd_post_srq_recv");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_query_context(void);
int ibv_cmd_query_context(void)
{
	provider_warn("ibv_cmd_query_context");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_query_device_any(void);
int ibv_cmd_query_device_any(void)
{
	provider_warn("ibv_cmd_query_device_any");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_query_mr(void);
int ibv_cmd_query_mr(void)
{
	provider_warn("ibv_cmd_query_mr");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_query_port(void);
int ibv_cmd_query_port(void)
{
	provider_warn("ibv_cmd_query_port");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_query_qp(void);
int ibv_cmd_query_qp(void)
{
	provider_warn("ibv_cmd_query_qp");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_query_srq(void);
int ibv_cmd_query_srq(void)
{
	provider_warn("ibv_cmd_query_srq");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_read_counters(void);
int ibv_cmd_read_counters(void)
{
	provider_warn("ibv_cmd_read_counters");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_reg_dm_mr(void);
int ibv_cmd_reg_dm_mr(void)
{
	provider_warn("ibv_cmd_reg_dm_mr");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_reg_dmabuf_mr(void);
int ibv_cmd_reg_dmabuf_mr(void)
{
	provider_warn("ibv_cmd_reg_dmabuf_mr");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_reg_mr(void);
int ibv_cmd_reg_mr(void)
{
	provider_warn("ibv_cmd_reg_mr");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_req_notify_cq(void);
int ibv_cmd_req_notify_cq(void)
{
	provider_warn("ibv_cmd_req_notify_cq");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_rereg_mr(void);
int ibv_cmd_rereg_mr(void)
{
	provider_warn("ibv_cmd_rereg_mr");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_cmd_resize_cq(void);
int ibv_cmd_resize_cq(void)
{
	provider_warn("ibv_cmd_resize_cq");
	return EOPNOTSUPP;
}

UROCE_EXPORT int execute_ioctl(void);
int execute_ioctl(void)
{
	provider_warn("execute_ioctl");
	return EOPNOTSUPP;
}

UROCE_EXPORT int ibv_read_ibdev_sysfs_file(void);
int ibv_read_ibdev_sysfs_file(void)
{
	provider_warn("ibv_read_ibdev_sysfs_file");
	return EOPNOTSUPP;
}

UROCE_EXPORT int __ioctl_final_num_attrs(void);
int __ioctl_final_num_attrs(void)
{
	provider_warn("__ioctl_final_num_attrs");
	return EOPNOTSUPP;
}

UROCE_EXPORT void *_verbs_init_and_alloc_context(void);
void *_verbs_init_and_alloc_context(void)
{
	provider_warn("_verbs_init_and_alloc_context");
	errno = EOPNOTSUPP;
	return NULL;
}

UROCE_EXPORT void *verbs_open_device(void);
void *verbs_open_device(void)
{
	provider_warn("verbs_open_device");
	errno = EOPNOTSUPP;
	return NULL;
}

UROCE_EXPORT void __verbs_log(void);
void __verbs_log(void)
{
	provider_warn("__verbs_log");
}

UROCE_EXPORT void verbs_init_cq(void);
void verbs_init_cq(void)
{
	provider_warn("verbs_init_cq");
}

UROCE_EXPORT void verbs_set_ops(void);
void verbs_set_ops(void)
{
	provider_warn("verbs_set_ops");
}

UROCE_EXPORT void verbs_uninit_context(void);
void verbs_uninit_context(void)
{
	provider_warn("verbs_uninit_context");
}

UROCE_EXPORT void verbs_register_driver_34(void);
void verbs_register_driver_34(void)
{
}

UROCE_EXPORT void ibv_copy_ah_attr_from_kern(void);
void ibv_copy_ah_attr_from_kern(void)
{
	provider_warn("ibv_copy_ah_attr_from_kern");
}

UROCE_EXPORT void ibv_copy_path_rec_from_kern(void);
void ibv_copy_path_rec_from_kern(void)
{
	provider_warn("ibv_copy_path_rec_from_kern");
}

UROCE_EXPORT void ibv_copy_path_rec_to_kern(void);
void ibv_copy_path_rec_to_kern(void)
{
	provider_warn("ibv_copy_path_rec_to_kern");
}

UROCE_EXPORT void ibv_copy_qp_attr_from_kern(void);
void ibv_copy_qp_attr_from_kern(void)
{
	provider_warn("ibv_copy_qp_attr_from_kern");
}

/*
 * The QP state machine's attribute rules (IBTA 10.3.1, as the kernel's
 * ib_modify_qp_is_ok defines them): which ibv_qp_attr_mask bits a
 * transition of ibv_modify_qp requires and which it allows, per QP type.
 * uroce enforces them; the diagnosis names what a refused modify lacked.
 *
 * Masks and states are libibverbs' numbers (enum ibv_qp_attr_mask,
 * enum ibv_qp_state, enum ibv_qp_type), which are ABI, so this header
 * does not need <infiniband/verbs.h>.
 */
#ifndef RDMATRACE_QP_RULES_H
#define RDMATRACE_QP_RULES_H

#include <stdbool.h>
#include <stdint.h>

/* enum ibv_qp_attr_mask */
enum rt_qp_attr {
	RT_QPA_STATE = 1u << 0,
	RT_QPA_CUR_STATE = 1u << 1,
	RT_QPA_EN_SQD_ASYNC_NOTIFY = 1u << 2,
	RT_QPA_ACCESS_FLAGS = 1u << 3,
	RT_QPA_PKEY_INDEX = 1u << 4,
	RT_QPA_PORT = 1u << 5,
	RT_QPA_QKEY = 1u << 6,
	RT_QPA_AV = 1u << 7,
	RT_QPA_PATH_MTU = 1u << 8,
	RT_QPA_TIMEOUT = 1u << 9,
	RT_QPA_RETRY_CNT = 1u << 10,
	RT_QPA_RNR_RETRY = 1u << 11,
	RT_QPA_RQ_PSN = 1u << 12,
	RT_QPA_MAX_QP_RD_ATOMIC = 1u << 13,
	RT_QPA_ALT_PATH = 1u << 14,
	RT_QPA_MIN_RNR_TIMER = 1u << 15,
	RT_QPA_SQ_PSN = 1u << 16,
	RT_QPA_MAX_DEST_RD_ATOMIC = 1u << 17,
	RT_QPA_PATH_MIG_STATE = 1u << 18,
	RT_QPA_CAP = 1u << 19,
	RT_QPA_DEST_QPN = 1u << 20,
};

/* What a transition takes besides IBV_QP_STATE: the bits it requires and
 * those it also allows; valid is false for a transition that does not
 * exist (RESET -> RTR, say).  Any state may go to RESET or ERR. */
struct rt_qp_rule {
	uint32_t req, opt;
	bool valid;
};

/* cur, next: enum ibv_qp_state; qp_type: enum ibv_qp_type (RC 2, UC 3; UD
 * and the others as UD). */
struct rt_qp_rule rt_qp_rule(unsigned cur, unsigned next, unsigned qp_type);

/* "IBV_QP_AV" for one bit of enum ibv_qp_attr_mask; NULL for others. */
const char *rt_qp_attr_name(uint32_t bit);

#endif

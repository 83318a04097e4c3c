/*
 * The QP state machine's attribute rules (include/rdmatrace/qp_rules.h):
 * required and allowed ibv_modify_qp attributes per transition and QP type,
 * after IBTA 10.3.1 and the kernel's ib_modify_qp_is_ok.  One table for
 * uroce, which enforces it, and the diagnosis, which explains a refusal.
 */
#include <stddef.h>

#include "rdmatrace/qp_rules.h"

enum { S_RESET, S_INIT, S_RTR, S_RTS, S_SQD, S_SQE, S_ERR };

/* Per QP type: RC, UC, UD (and the others, as UD). */
static int type_slot(unsigned qp_type)
{
	return qp_type == 2 ? 0 : qp_type == 3 ? 1 : 2;
}

struct rt_qp_rule rt_qp_rule(unsigned cur, unsigned next, unsigned qp_type)
{
	struct rt_qp_rule r = {0, 0, false};
	const uint32_t alt = RT_QPA_ALT_PATH, acc = RT_QPA_ACCESS_FLAGS, pk = RT_QPA_PKEY_INDEX, port = RT_QPA_PORT,
		       qk = RT_QPA_QKEY, cs = RT_QPA_CUR_STATE, mig = RT_QPA_PATH_MIG_STATE;
	int t = type_slot(qp_type);
	uint32_t req[3] = {0, 0, 0}, opt[3] = {0, 0, 0};
	if (next == S_RESET || next == S_ERR) {
		r.valid = cur <= S_ERR;
		return r;
	}
	switch (cur) {
	case S_RESET:
		if (next == S_INIT) {
			r.valid = true;
			req[0] = req[1] = pk | port | acc;
			req[2] = pk | port | qk;
		}
		break;
	case S_INIT:
		if (next == S_INIT) {
			r.valid = true;
			opt[0] = opt[1] = pk | port | acc;
			opt[2] = pk | port | qk;
		} else if (next == S_RTR) {
			r.valid = true;
			req[0] = RT_QPA_AV | RT_QPA_PATH_MTU | RT_QPA_DEST_QPN | RT_QPA_RQ_PSN | RT_QPA_MAX_DEST_RD_ATOMIC |
				 RT_QPA_MIN_RNR_TIMER;
			req[1] = RT_QPA_AV | RT_QPA_PATH_MTU | RT_QPA_DEST_QPN | RT_QPA_RQ_PSN;
			opt[0] = opt[1] = alt | acc | pk;
			opt[2] = pk | qk;
		}
		break;
	case S_RTR:
		if (next == S_RTS) {
			r.valid = true;
			req[0] = RT_QPA_SQ_PSN | RT_QPA_TIMEOUT | RT_QPA_RETRY_CNT | RT_QPA_RNR_RETRY | RT_QPA_MAX_QP_RD_ATOMIC;
			req[1] = req[2] = RT_QPA_SQ_PSN;
			opt[0] = cs | alt | acc | RT_QPA_MIN_RNR_TIMER | mig;
			opt[1] = cs | alt | acc | mig;
			opt[2] = cs | qk;
		}
		break;
	case S_RTS:
		if (next == S_RTS) {
			r.valid = true;
			opt[0] = cs | acc | alt | mig | RT_QPA_MIN_RNR_TIMER;
			opt[1] = cs | acc | alt | mig;
			opt[2] = cs | qk;
		} else if (next == S_SQD) {
			r.valid = true;
			opt[0] = opt[1] = opt[2] = RT_QPA_EN_SQD_ASYNC_NOTIFY;
		}
		break;
	case S_SQD:
		if (next == S_RTS) {
			r.valid = true;
			opt[0] = cs | alt | acc | RT_QPA_MIN_RNR_TIMER | mig;
			opt[1] = cs | alt | acc | mig;
			opt[2] = cs | qk;
		} else if (next == S_SQD) {
			r.valid = true;
			opt[0] = RT_QPA_AV | alt | acc | pk | RT_QPA_MIN_RNR_TIMER | mig | RT_QPA_TIMEOUT | RT_QPA_RETRY_CNT |
				 RT_QPA_RNR_RETRY | RT_QPA_MAX_QP_RD_ATOMIC | RT_QPA_MAX_DEST_RD_ATOMIC;
			opt[1] = RT_QPA_AV | alt | acc | pk | mig;
			opt[2] = pk | qk;
		}
		break;
	case S_SQE:
		if (next == S_RTS) {
			r.valid = true;
			opt[1] = cs | acc;
			opt[2] = cs | qk;
		}
		break;
	default:
		break;
	}
	r.req = req[t];
	r.opt = opt[t];
	return r;
}

const char *rt_qp_attr_name(uint32_t bit)
{
	static const char *const n[] = {
		"IBV_QP_STATE", "IBV_QP_CUR_STATE", "IBV_QP_EN_SQD_ASYNC_NOTIFY", "IBV_QP_ACCESS_FLAGS",
		"IBV_QP_PKEY_INDEX", "IBV_QP_PORT", "IBV_QP_QKEY", "IBV_QP_AV", "IBV_QP_PATH_MTU", "IBV_QP_TIMEOUT",
		"IBV_QP_RETRY_CNT", "IBV_QP_RNR_RETRY", "IBV_QP_RQ_PSN", "IBV_QP_MAX_QP_RD_ATOMIC", "IBV_QP_ALT_PATH",
		"IBV_QP_MIN_RNR_TIMER", "IBV_QP_SQ_PSN", "IBV_QP_MAX_DEST_RD_ATOMIC", "IBV_QP_PATH_MIG_STATE",
		"IBV_QP_CAP", "IBV_QP_DEST_QPN"};
	for (unsigned i = 0; i < sizeof(n) / sizeof(n[0]); i++)
		if (bit == 1u << i)
			return n[i];
	return NULL;
}

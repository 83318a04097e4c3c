/*
 * PSN prediction: how many packet sequence numbers a send work request
 * consumes, so every WR can carry the PSN range its packets will have.
 * Rules (IBA 9.7, roce-wire.md): SEND and RDMA WRITE take one PSN per
 * MTU-sized packet and at least one (a zero-length message is one packet);
 * RDMA READ advances the requester's PSN by the number of response packets;
 * atomics (and ATOMIC_WRITE) take one; UD sends are single packets; local
 * operations (LOCAL_INV, BIND_MW) put nothing on the wire.  Inline: it runs
 * for every send WR.
 */
#ifndef RDMATRACE_PROBE_PSN_H
#define RDMATRACE_PROBE_PSN_H

#include <stdint.h>

#include <infiniband/verbs.h>

#include "rdmatrace/roce_wire.h"

/*
 * PSNs a send WR consumes on a QP of type qp_type (enum ibv_qp_type) with
 * path MTU mtu_bytes; 0 for requests that put nothing on the wire and -1
 * when the probe cannot tell (unknown opcode, unknown MTU, invalid on the
 * QP type).
 */
static inline int rt_probe_wr_psns(unsigned qp_type, unsigned opcode, uint64_t length, unsigned mtu_bytes)
{
	switch (opcode) {
	case IBV_WR_LOCAL_INV:
	case IBV_WR_BIND_MW:
		return 0;
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
	case IBV_WR_ATOMIC_WRITE:
		break;
	default:
		return -1;
	}
	if (qp_type == IBV_QPT_UD)
		return opcode == IBV_WR_SEND || opcode == IBV_WR_SEND_WITH_IMM ? 1 : -1;
	if (qp_type != IBV_QPT_RC && qp_type != IBV_QPT_UC && qp_type != IBV_QPT_XRC_SEND)
		return -1;
	if (opcode == IBV_WR_ATOMIC_CMP_AND_SWP || opcode == IBV_WR_ATOMIC_FETCH_AND_ADD ||
	    opcode == IBV_WR_ATOMIC_WRITE)
		return qp_type == IBV_QPT_UC ? -1 : 1;
	if (opcode == IBV_WR_RDMA_READ && qp_type == IBV_QPT_UC)
		return -1;
	if (mtu_bytes == 0)
		return -1;
	uint64_t n = rt_packets_for(length, mtu_bytes);
	if (n > RT_PSN_MASK)
		return -1;
	return (int)n;
}

#endif

/*
 * Per-QP summary of a capture (`rdmatrace packets --stats`): packets and
 * bytes, ACKs, NAKs, RNR NAKs and CNPs, and two PSN sequences per flow.
 *
 * A flow is (source address, destination address, destination QP; and for
 * UD the DETH source QP, since several UD QPs may send to one QP).  The
 * packets of a flow belong to two PSN spaces: the REQUESTS its sender
 * issues (SEND, WRITE, READ request, atomics, FLUSH: the sender's requester
 * PSNs) and the RESPONSES it returns to the peer's requests (ACK / NAK /
 * RNR NAK, READ responses, atomic ACKs: the peer's requester PSNs).  They
 * are tracked separately:
 *
 *  - a request takes one PSN, a READ request as many as its responses
 *    (rt_packets_for(DMA length, path MTU)); the path MTU of the address
 *    pair is learned from CM REQs and from FIRST/MIDDLE payloads, and taken
 *    as 4096 (the fewest PSNs) until known;
 *  - a response takes one PSN; a NAK or RNR NAK names the PSN expected next
 *    without acknowledging it, so it takes none;
 *  - a packet whose PSN is before the next one expected (modulo 2^24,
 *    rt_psn_diff) is a repeat (a retransmission or a duplicate); a repeat
 *    that does not continue the previous packet starts a go-back.
 */
#ifndef RDMATRACE_QP_STATS_H
#define RDMATRACE_QP_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rdmatrace/roce_decode.h"

#define RT_QP_STAT_NO_SRC_QP UINT32_MAX

/* One PSN sequence of a flow. */
struct rt_psn_seq {
	uint64_t packets;
	uint32_t first_psn;       /* PSN of the first packet */
	uint32_t next_psn;        /* after the highest PSN taken: the range is first_psn..next_psn-1 */
	uint32_t last_psn;        /* PSN of the latest packet */
	uint32_t last_next;       /* latest packet's PSN + the PSNs it takes */
	uint64_t repeats;         /* packets whose PSN was before next_psn */
	uint64_t go_backs;        /* repeats that did not continue the previous packet */
};

struct rt_qp_stat {
	uint8_t ip_version;
	uint8_t src[16], dst[16];
	uint32_t qpn;             /* destination QP */
	uint32_t src_qpn;         /* UD: DETH source QP; RT_QP_STAT_NO_SRC_QP otherwise */
	uint64_t packets, bytes, payload_bytes;
	uint64_t first_ns, last_ns;
	struct rt_psn_seq req;    /* this sender's requests */
	struct rt_psn_seq rsp;    /* its responses to the peer's requests */
	uint64_t acks, naks, rnr_naks, cnps, cm, bad_icrc;
	uint64_t nak_codes[5];    /* NAKs by code 0..4 */
};

struct rt_qp_stats;

int rt_qp_stats_new(struct rt_qp_stats **out);
/* Account one decoded RoCE packet (pkt->flags & RT_PKT_BTH). */
int rt_qp_stats_add(struct rt_qp_stats *s, const struct rt_pkt *pkt, uint64_t ts_ns);
/* Number of flows seen, and the i-th in order of first appearance. */
size_t rt_qp_stats_count(const struct rt_qp_stats *s);
const struct rt_qp_stat *rt_qp_stats_get(const struct rt_qp_stats *s, size_t i);
/* Path MTU in bytes learned for an address pair (either order), 0 when unknown. */
unsigned rt_qp_stats_mtu(const struct rt_qp_stats *s, unsigned ip_version, const uint8_t *a, const uint8_t *b);
void rt_qp_stats_free(struct rt_qp_stats *s);

/* Last PSN of a sequence's range (next_psn - 1). */
static inline uint32_t rt_psn_seq_last(const struct rt_psn_seq *q)
{
	return (q->next_psn - 1) & RT_PSN_MASK;
}

#endif

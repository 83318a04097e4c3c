/*
 * Per-QP summary of a capture (`rdmatrace packets --stats`): packets and
 * bytes, the PSN range, PSNs seen again (retransmissions and duplicates),
 * ACKs, NAKs, RNR NAKs and CNPs.  A QP is identified by the destination
 * address and the BTH destination QP, since QP numbers repeat across hosts.
 */
#ifndef RDMATRACE_QP_STATS_H
#define RDMATRACE_QP_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "rdmatrace/roce_decode.h"

struct rt_qp_stat {
	uint8_t ip_version;
	uint8_t src[16], dst[16]; /* src: of the first packet seen */
	uint32_t qpn;
	uint64_t packets, bytes, payload_bytes;
	uint64_t first_ns, last_ns;
	/* PSN-carrying requests and responses (everything but ACKs and CNPs) */
	uint64_t seq_packets;
	uint32_t first_psn, last_psn, max_psn;
	uint64_t psn_repeats;     /* packets whose PSN was not after the highest seen */
	uint64_t go_backs;        /* times the PSN went back (start of a retransmission run) */
	uint64_t acks, naks, rnr_naks, cnps, cm, bad_icrc;
	uint64_t nak_codes[5];    /* NAKs by code 0..4 */
	int last_was_repeat;
};

struct rt_qp_stats;

int rt_qp_stats_new(struct rt_qp_stats **out);
/* Account one decoded RoCE packet (pkt->flags & RT_PKT_BTH). */
int rt_qp_stats_add(struct rt_qp_stats *s, const struct rt_pkt *pkt, uint64_t ts_ns);
/* Number of QPs seen, and the i-th in order of first appearance. */
size_t rt_qp_stats_count(const struct rt_qp_stats *s);
const struct rt_qp_stat *rt_qp_stats_get(const struct rt_qp_stats *s, size_t i);
void rt_qp_stats_free(struct rt_qp_stats *s);

#endif

/* uroce/uroce_stats.h: engine counters of a uroce context, for tests and tools.
   Exported from libibverbs.so.1 under UROCE_PRIVATE_1 (beside uroce_priv.h). */
#ifndef UROCE_STATS_H
#define UROCE_STATS_H
#include <infiniband/verbs.h>
#include <stdint.h>
struct uroce_stats {
	uint64_t tx_packets, rx_packets;
	uint64_t tx_fault_drops, rx_fault_drops; /* dropped by fault rules */
	uint64_t icrc_errors, rx_dropped;        /* bad ICRC; malformed / unknown QP / bad Q_Key */
	uint64_t rnr_naks_sent, rnr_naks_rcvd;
	uint64_t retry_timeout, retry_seq_nak, retry_implied, retry_rnr;
	uint64_t seq_naks_sent, duplicates_rcvd;
	uint64_t tx_errors;                      /* sendmmsg failures (the packet counts as lost) */
	uint64_t acks_held;                      /* times an application thread held ACKs back for its reply */
	uint64_t progress_parks;                 /* times the progress thread left reception to the application */
	uint64_t lazy_acks_sent;                 /* ACKs sent late on purpose for messages without AckReq */
};
/* Copy the counters of ctx (summed over its QPs since open). Returns 0 or -EINVAL. */
int uroce_priv_stats(struct ibv_context *ctx, struct uroce_stats *out);
#endif

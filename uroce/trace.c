/*
 * uroce's link to the tracer.  The tracer (tracer/) is linked into
 * libibverbs.so.1 from librdmatrace.a; the references are weak so the
 * library still loads, silently untraced, in a tree built without it.
 * Tracing turns on from the environment (RDMATRACE_OUTPUT ...) when the
 * first device is opened.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdmatrace/tracer.h"
#include "uroce.h"

#pragma weak rt_event_begin_fast
#pragma weak rt_event_commit_slot
#pragma weak rt_tracer_start_from_env
#pragma weak rt_tracer_enabled

static bool have_tracer;

void uroce_trace_init(void)
{
	have_tracer = &rt_tracer_enabled != NULL && rt_event_begin_fast != NULL && rt_event_commit_slot != NULL;
	if (have_tracer && rt_tracer_start_from_env)
		rt_tracer_start_from_env();
}

struct rt_event *uroce_ev_begin(uint16_t kind, uint32_t qpn)
{
	if (!have_tracer)
		return NULL;
	struct rt_event *ev = rt_event_begin(kind, qpn);
	if (ev)
		ev->flags |= RT_EVF_ENGINE;
	return ev;
}

void uroce_ev_commit(struct rt_event *ev)
{
	rt_event_commit(ev);
}

static void trace_packet(uint32_t qpn, const struct rt_roce_hdrs *h, uint32_t paylen, unsigned flags,
                         uint8_t drop_reason, uint8_t engine_flags, uint8_t retrans, bool tx)
{
	static int dbg = -1;
	if (dbg < 0)
		dbg = getenv("UROCE_DEBUG") != NULL;
	if (dbg)
		fprintf(stderr, "uroce %s qp %u t %llu op 0x%02x psn %u dqp %u len %u syn 0x%02x%s%s\n", tx ? "TX" : "RX", qpn,
		        (unsigned long long)(uroce_now_ns() / 1000), h->opcode, h->psn, h->dest_qpn, paylen, h->aeth_syndrome, h->ackreq ? " A" : "",
		        (flags & RT_PKTF_DROPPED) ? (drop_reason == RT_PKT_DROP_BAD_ICRC ? " DROPPED (bad ICRC)" : " DROPPED") : "");
	struct rt_event *ev = uroce_ev_begin(RT_EV_PACKET, qpn);
	if (!ev)
		return;
	const struct rt_opcode_info *oi = rt_opcode_info(h->opcode);
	unsigned hf = oi ? oi->headers : 0;
	struct rt_ev_packet *p = &ev->u.pkt;
	if (tx)
		ev->flags |= RT_EVF_TX;
	p->psn = h->psn;
	p->dest_qpn = h->dest_qpn;
	p->opcode = h->opcode;
	p->payload_len = (uint16_t)paylen;
	p->flags = (uint8_t)flags;
	if (h->ackreq)
		p->flags |= RT_PKTF_ACKREQ;
	if (h->se)
		p->flags |= RT_PKTF_SE;
	if (hf & RT_HDR_AETH) {
		p->flags |= RT_PKTF_HAS_AETH;
		p->syndrome = h->aeth_syndrome;
		p->msn = h->aeth_msn;
	}
	if (hf & RT_HDR_RETH) {
		p->flags |= RT_PKTF_HAS_RETH;
		p->reth_va = h->reth_va;
		p->reth_rkey = h->reth_rkey;
		p->reth_len = h->reth_len;
	} else if (hf & RT_HDR_ATOMICETH) {
		p->reth_va = h->atomic_va;
		p->reth_rkey = h->atomic_rkey;
		p->reth_len = 8;
	}
	if (hf & RT_HDR_IMMDT) {
		p->flags |= RT_PKTF_HAS_IMM;
		p->imm = h->imm_be;
	}
	p->retrans_count = retrans;
	if (retrans)
		p->flags |= RT_PKTF_RETRANS;
	p->drop_reason = drop_reason;
	p->engine_flags = engine_flags;
	uroce_ev_commit(ev);
}

void uroce_trace_packet(uint32_t qpn, const struct rt_roce_hdrs *h, uint32_t paylen, unsigned flags,
                        uint8_t retrans, bool tx)
{
	trace_packet(qpn, h, paylen, flags, RT_PKT_DROP_UNSPECIFIED, 0, retrans, tx);
}

void uroce_trace_drop(uint32_t qpn, const struct rt_roce_hdrs *h, uint32_t paylen, enum rt_pkt_drop_reason why,
                      uint8_t retrans, bool tx)
{
	trace_packet(qpn, h, paylen, RT_PKTF_DROPPED, (uint8_t)why, 0, retrans, tx);
}

void uroce_trace_held(uint32_t qpn, const struct rt_roce_hdrs *h, uint32_t paylen, uint8_t retrans)
{
	trace_packet(qpn, h, paylen, 0, RT_PKT_DROP_UNSPECIFIED, RT_PKTE_HELD, retrans, true);
}

void uroce_trace_sent(uint32_t qpn, const struct rt_roce_hdrs *h, uint32_t paylen, uint8_t retrans,
                      enum rt_pkt_engine_flags injected)
{
	trace_packet(qpn, h, paylen, 0, RT_PKT_DROP_UNSPECIFIED, injected, retrans, true);
}

/*
 * Text and JSON rendering of one event's fields (include/rdmatrace/trace_print.h).
 * Decoding is by kind; each field is printed with the same name in both
 * forms so a text dump and a JSON dump can be compared line by line.
 */
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rdmatrace/roce_wire.h"
#include "rdmatrace/trace_print.h"

#define NAME(tab, i) ((i) < sizeof(tab) / sizeof(tab[0]) && tab[i] ? tab[i] : "unknown")

const char *rt_wr_opcode_name(unsigned op)
{
	static const char *const n[] = {"RDMA_WRITE", "RDMA_WRITE_WITH_IMM", "SEND", "SEND_WITH_IMM",
					"RDMA_READ", "ATOMIC_CMP_AND_SWP", "ATOMIC_FETCH_AND_ADD", "LOCAL_INV",
					"BIND_MW", "SEND_WITH_INV", "TSO", "DRIVER1", NULL, NULL, NULL, "ATOMIC_WRITE"};
	return NAME(n, op);
}

const char *rt_wc_opcode_name(unsigned op)
{
	static const char *const n[] = {"SEND", "RDMA_WRITE", "RDMA_READ", "COMP_SWAP", "FETCH_ADD",
					"BIND_MW", "LOCAL_INV", "TSO", NULL, "ATOMIC_WRITE"};
	if (op == 128)
		return "RECV";
	if (op == 129)
		return "RECV_RDMA_WITH_IMM";
	return NAME(n, op);
}

const char *rt_wc_status_name(unsigned status)
{
	static const char *const n[] = {
		"SUCCESS", "LOC_LEN_ERR", "LOC_QP_OP_ERR", "LOC_EEC_OP_ERR", "LOC_PROT_ERR", "WR_FLUSH_ERR",
		"MW_BIND_ERR", "BAD_RESP_ERR", "LOC_ACCESS_ERR", "REM_INV_REQ_ERR", "REM_ACCESS_ERR",
		"REM_OP_ERR", "RETRY_EXC_ERR", "RNR_RETRY_EXC_ERR", "LOC_RDD_VIOL_ERR", "REM_INV_RD_REQ_ERR",
		"REM_ABORT_ERR", "INV_EECN_ERR", "INV_EEC_STATE_ERR", "FATAL_ERR", "RESP_TIMEOUT_ERR",
		"GENERAL_ERR", "TM_ERR", "TM_RNDV_INCOMPLETE"};
	return NAME(n, status);
}

const char *rt_qp_state_name(unsigned state)
{
	static const char *const n[] = {"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR", "UNKNOWN"};
	return NAME(n, state);
}

const char *rt_cm_event_name(unsigned event)
{
	static const char *const n[] = {
		"ADDR_RESOLVED", "ADDR_ERROR", "ROUTE_RESOLVED", "ROUTE_ERROR", "CONNECT_REQUEST",
		"CONNECT_RESPONSE", "CONNECT_ERROR", "UNREACHABLE", "REJECTED", "ESTABLISHED",
		"DISCONNECTED", "DEVICE_REMOVAL", "MULTICAST_JOIN", "MULTICAST_ERROR", "ADDR_CHANGE",
		"TIMEWAIT_EXIT"};
	/* From 0x80 the probe records the program's RDMA CM calls (enum rt_cm_call). */
	static const char *const calls[] = {
		"call:create_id", "call:bind_addr", "call:resolve_addr", "call:resolve_route", "call:listen",
		"call:connect", "call:accept", "call:reject", "call:disconnect", "call:create_qp",
		"call:destroy_qp", "call:create_ep", "call:destroy_id", "call:set_option"};
	if (event >= RT_CM_CALL_CREATE_ID)
		return NAME(calls, event - RT_CM_CALL_CREATE_ID);
	return NAME(n, event);
}

const char *rt_cm_option_name(int level, int name)
{
	static const char *const id[] = {"RDMA_OPTION_ID_TOS", "RDMA_OPTION_ID_REUSEADDR", "RDMA_OPTION_ID_AFONLY",
					 "RDMA_OPTION_ID_ACK_TIMEOUT"};
	if (level == RT_CM_OPT_LEVEL_ID && name >= 0 && name < (int)(sizeof(id) / sizeof(id[0])))
		return id[name];
	if (level == RT_CM_OPT_LEVEL_IB && name == RT_CM_OPT_IB_PATH)
		return "RDMA_OPTION_IB_PATH";
	return NULL;
}

const char *rt_errno_name(int err)
{
	if (err < 0 && err != INT_MIN) /* as a verbs call returns it, or a -errno status */
		err = -err;
	const char *n = err > 0 ? strerrorname_np(err) : NULL;
	if (n)
		return n;
	static __thread char num[16];
	snprintf(num, sizeof(num), "%d", err);
	return num;
}

const char *rt_signal_name(int sig)
{
	static __thread char name[24];
	const char *n = sig > 0 ? sigabbrev_np(sig) : NULL;
	if (n)
		snprintf(name, sizeof(name), "SIG%s", n);
	else
		snprintf(name, sizeof(name), "%d", sig);
	return name;
}

const char *rt_end_how_name(unsigned how)
{
	static const char *const n[] = {NULL, "exit", "signal", "wait"};
	return NAME(n, how);
}

const char *rt_verbs_call_name(unsigned call)
{
	static const char *const n[] = {NULL, "ibv_create_ah", "ibv_attach_mcast", "ibv_detach_mcast", "ibv_open_xrcd"};
	return NAME(n, call);
}

const char *rt_async_event_name(unsigned type)
{
	static const char *const n[] = {"CQ_ERR", "QP_FATAL", "QP_REQ_ERR", "QP_ACCESS_ERR", "COMM_EST", "SQ_DRAINED",
					"PATH_MIG", "PATH_MIG_ERR", "DEVICE_FATAL", "PORT_ACTIVE", "PORT_ERR",
					"LID_CHANGE", "PKEY_CHANGE", "SM_CHANGE", "SRQ_ERR", "SRQ_LIMIT_REACHED",
					"QP_LAST_WQE_REACHED", "CLIENT_REREGISTER", "GID_CHANGE", "WQ_FATAL"};
	return type < sizeof(n) / sizeof(n[0]) ? n[type] : "unknown";
}

const char *rt_lost_cause_name(unsigned cause)
{
	static const char *const n[] = {NULL, "ring_full", "nested", "no_ring", "overwritten"};
	return NAME(n, cause);
}

static const char *wr_queue_name(unsigned q)
{
	static const char *const n[] = {"send", "recv", "srq_recv"};
	return NAME(n, q);
}

static const char *retry_cause_name(unsigned c)
{
	static const char *const n[] = {NULL, "nak_seq", "ack_timeout", "implied_nak", "rnr"};
	return NAME(n, c);
}

/* An output buffer that never overflows and remembers the length it wanted. */
struct out {
	char *buf;
	size_t len;
	size_t used;
	int json;
	int nfields;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	size_t room = o->used < o->len ? o->len - o->used : 0;
	int n = vsnprintf(room ? o->buf + o->used : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->used += (size_t)n;
}

static void sep(struct out *o, const char *name)
{
	if (o->json)
		put(o, "%s\"%s\":", o->nfields ? "," : "", name);
	else
		put(o, "%s%s=", o->nfields ? " " : "", name);
	o->nfields++;
}

static void f_u(struct out *o, const char *name, uint64_t v)
{
	sep(o, name);
	put(o, "%" PRIu64, v);
}

static void f_i(struct out *o, const char *name, int64_t v)
{
	sep(o, name);
	put(o, "%" PRId64, v);
}

static void f_x(struct out *o, const char *name, uint64_t v)
{
	sep(o, name);
	put(o, o->json ? "%" PRIu64 : "0x%" PRIx64, v);
}

static void f_s(struct out *o, const char *name, const char *s)
{
	sep(o, name);
	put(o, o->json ? "\"%s\"" : "%s", s);
}

/* A fixed-size text field from the record: printable ASCII only, escaped for JSON. */
static void f_text(struct out *o, const char *name, const char *s, size_t max)
{
	sep(o, name);
	put(o, "\"");
	for (size_t i = 0; i < max && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			put(o, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			put(o, o->json ? "\\u%04x" : "\\x%02x", c);
		else
			put(o, "%c", c);
	}
	put(o, "\"");
}

static void f_ip4(struct out *o, const char *name, uint32_t be)
{
	const uint8_t *b = (const uint8_t *)&be;
	sep(o, name);
	put(o, o->json ? "\"%u.%u.%u.%u\"" : "%u.%u.%u.%u", b[0], b[1], b[2], b[3]);
}

static void f_hex(struct out *o, const char *name, const uint8_t *p, size_t n)
{
	sep(o, name);
	put(o, o->json ? "\"" : "");
	for (size_t i = 0; i < n; i++)
		put(o, "%02x", p[i]);
	put(o, o->json ? "\"" : "");
}

static void f_ip6(struct out *o, const char *name, const uint8_t *a)
{
	sep(o, name);
	put(o, o->json ? "\"" : "");
	for (int i = 0; i < 16; i += 2)
		put(o, "%s%x", i ? ":" : "", (unsigned)(a[i] << 8 | a[i + 1]));
	put(o, o->json ? "\"" : "");
}

static void fmt_wr(struct out *o, const struct rt_ev_wr *w)
{
	f_s(o, "queue", wr_queue_name(w->queue));
	if (w->queue == RT_WRQ_SEND)
		f_s(o, "opcode", rt_wr_opcode_name(w->opcode));
	f_x(o, "wr_id", w->wr_id);
	f_u(o, "len", w->length);
	f_u(o, "num_sge", w->num_sge);
	f_x(o, "wr_flags", w->flags);
	if (w->queue == RT_WRQ_SEND) {
		if (w->remote_addr || w->rkey) {
			f_x(o, "remote_addr", w->remote_addr);
			f_x(o, "rkey", w->rkey);
		}
		/* a BIND_MW's imm holds the window's access flags (remote_addr,
		   len, rkey: its address, length and new rkey) */
		if (w->imm && !(w->flags & RT_WRF_POST_FAILED))
			f_x(o, w->opcode == RT_WR_BIND_MW ? "mw_access" : "imm", w->imm);
		f_u(o, "signaled", !!(w->flags & RT_WRF_SIGNALED));
		if (w->flags & RT_WRF_INLINE)
			f_u(o, "inline", 1);
		if (w->flags & RT_WRF_FENCE)
			f_u(o, "fence", 1);
		if (w->flags & RT_WRF_SOLICITED)
			f_u(o, "solicited", 1);
		if (w->flags & RT_WRF_PSN_VALID) {
			f_u(o, "first_psn", w->first_psn);
			f_u(o, "last_psn", w->last_psn);
		}
	}
	if (w->flags & RT_WRF_POST_FAILED) {
		f_u(o, "post_failed", 1);
		if (w->imm) /* the errno the provider returned */
			f_s(o, "errno", rt_errno_name((int)w->imm));
	}
}

static void fmt_wc(struct out *o, const struct rt_ev_completion *c)
{
	f_x(o, "wr_id", c->wr_id);
	f_s(o, "status", rt_wc_status_name(c->status));
	f_s(o, "opcode", rt_wc_opcode_name(c->opcode));
	f_u(o, "byte_len", c->byte_len);
	f_u(o, "src_qp", c->src_qp);
	f_x(o, "wc_flags", c->wc_flags);
	if (c->imm)
		f_x(o, "imm", c->imm);
	if (c->vendor_err)
		f_x(o, "vendor_err", c->vendor_err);
	f_u(o, "cq", c->cq_id);
}

static void fmt_packet(struct out *o, const struct rt_event *ev)
{
	const struct rt_ev_packet *p = &ev->u.pkt;
	const struct rt_opcode_info *oi = rt_opcode_info(p->opcode);
	f_s(o, "dir", ev->flags & RT_EVF_TX ? "tx" : "rx");
	f_s(o, "opcode", oi ? oi->symbol : "unknown");
	f_u(o, "psn", p->psn);
	f_u(o, "dest_qpn", p->dest_qpn);
	f_u(o, "payload_len", p->payload_len);
	if (p->flags & RT_PKTF_ACKREQ)
		f_u(o, "ackreq", 1);
	if (p->flags & RT_PKTF_HAS_AETH) {
		f_x(o, "syndrome", p->syndrome);
		f_u(o, "msn", p->msn);
	}
	if (p->flags & RT_PKTF_HAS_RETH) {
		f_x(o, "va", p->reth_va);
		f_x(o, "rkey", p->reth_rkey);
		f_u(o, "dma_len", p->reth_len);
	}
	if (p->flags & RT_PKTF_HAS_IMM)
		f_x(o, "imm", p->imm);
	if (p->flags & RT_PKTF_RETRANS) {
		f_u(o, "retrans", 1);
		f_u(o, "retrans_count", p->retrans_count);
	}
	if (p->flags & RT_PKTF_DROPPED) {
		f_u(o, "dropped", 1);
		if (p->drop_reason == RT_PKT_DROP_INJECTED)
			f_s(o, "drop_reason", "injected");
		else if (p->drop_reason == RT_PKT_DROP_BAD_ICRC)
			f_s(o, "drop_reason", "bad_icrc");
		else if (p->drop_reason == RT_PKT_DROP_BUSY)
			f_s(o, "drop_reason", "busy");
	}
	if (p->flags & RT_PKTF_DUPLICATE)
		f_u(o, "duplicate", 1);
	if (p->engine_flags & RT_PKTE_HELD)
		f_u(o, "held", 1);
	if (p->engine_flags & RT_PKTE_INJECTED_COPY)
		f_s(o, "injected", "copy");
	if (p->engine_flags & RT_PKTE_INJECTED_CORRUPT)
		f_s(o, "injected", "corrupt");
	if (p->engine_flags & RT_PKTE_INJECTED_CE)
		f_s(o, "injected", "ce");
}

static void fmt_qp_state(struct out *o, const struct rt_ev_qp_state *q)
{
	f_s(o, "from", rt_qp_state_name(q->from_state));
	f_s(o, "to", rt_qp_state_name(q->to_state));
	f_x(o, "attr_mask", q->attr_mask);
	f_u(o, "qp_type", q->qp_type);
	f_u(o, "sq_psn", q->sq_psn);
	f_u(o, "rq_psn", q->rq_psn);
	f_u(o, "dest_qpn", q->dest_qpn);
	f_u(o, "path_mtu", rt_mtu_bytes(q->path_mtu));
	f_u(o, "timeout", q->timeout);
	f_u(o, "retry_cnt", q->retry_cnt);
	f_u(o, "rnr_retry", q->rnr_retry);
	f_u(o, "min_rnr_timer", q->min_rnr_timer);
	f_u(o, "max_rd_atomic", q->max_rd_atomic);
	f_u(o, "max_dest_rd_atomic", q->max_dest_rd_atomic);
	f_u(o, "port", q->port_num);
	f_u(o, "sgid_index", q->sgid_index);
	if (q->av_flags & RT_QPS_AV_RECORDED)
		f_u(o, "is_global", !!(q->av_flags & RT_QPS_AV_GLOBAL));
	if (q->av_flags & RT_QPS_ACCESS_RECORDED)
		f_x(o, "access", q->access_flags);
	f_x(o, "qkey", q->qkey);
	f_i(o, "result", q->result);
}

static void fmt_cm(struct out *o, const struct rt_ev_cm *c)
{
	f_s(o, "event", rt_cm_event_name(c->event));
	f_i(o, "status", c->status);
	f_u(o, "cm_id", c->cm_id);
	f_u(o, "family", c->family);
	if (c->family != 10) { /* AF_INET6 addresses follow in an RT_EV_CM_ADDR6 */
		f_ip4(o, "local", c->local_ip4);
		f_ip4(o, "peer", c->peer_ip4);
	}
	f_u(o, "local_port", c->local_port);
	if (c->event == RT_CM_CALL_CREATE_ID || c->event == RT_CM_CALL_LISTEN)
		f_x(o, "port_space", c->peer_port); /* (in peer_port: they have no peer) */
	else
		f_u(o, "peer_port", c->peer_port);
	f_u(o, "private_len", c->private_len);
	if (c->event == RT_CM_CALL_LISTEN && c->listen_backlog)
		f_u(o, "backlog", c->listen_backlog); /* (in private_data: a listen has none) */
	else if (c->event == RT_CM_CALL_SET_OPTION) {
		const char *name = rt_cm_option_name(c->option.level, c->option.name);
		f_s(o, "option", name ? name : "unknown");
		if (!name) {
			f_i(o, "level", c->option.level);
			f_i(o, "optname", c->option.name);
		}
		f_u(o, "value", c->option.value);
		f_u(o, "optlen", c->option.optlen);
	} else if (c->private_copied)
		f_hex(o, "private_data", c->private_data,
		      c->private_copied < sizeof(c->private_data) ? c->private_copied : sizeof(c->private_data));
}

int rt_event_format_fields(const struct rt_event *ev, int json, char *buf, size_t len)
{
	struct out o = {buf, len, 0, json, 0};
	if (len)
		buf[0] = '\0';
	const void *u = &ev->u;
	switch (ev->kind) {
	case RT_EV_WR_POST:
		fmt_wr(&o, u);
		break;
	case RT_EV_COMPLETION:
		fmt_wc(&o, u);
		break;
	case RT_EV_PACKET:
		fmt_packet(&o, ev);
		break;
	case RT_EV_RETRY:
		f_s(&o, "cause", retry_cause_name(ev->u.retry.cause));
		f_u(&o, "first_psn", ev->u.retry.first_psn);
		f_u(&o, "last_psn", ev->u.retry.last_psn);
		f_u(&o, "timeout_us", ev->u.retry.timeout_us);
		f_u(&o, "retries_left", ev->u.retry.retries_left);
		break;
	case RT_EV_RNR:
		f_s(&o, "dir", ev->flags & RT_EVF_TX ? "tx" : "rx");
		f_u(&o, "psn", ev->u.rnr.psn);
		f_u(&o, "timer_code", ev->u.rnr.timer_code);
		f_u(&o, "timer_us", ev->u.rnr.timer_us);
		f_u(&o, "peer_qpn", ev->u.rnr.peer_qpn);
		f_u(&o, "retries_left", ev->u.rnr.retries_left);
		if (ev->u.rnr.rnr_flags & RT_RNRF_INJECTED)
			f_u(&o, "injected", 1);
		break;
	case RT_EV_QP_STATE:
		fmt_qp_state(&o, u);
		break;
	case RT_EV_CM_EVENT:
		fmt_cm(&o, u);
		break;
	case RT_EV_CM_ADDR6:
		f_u(&o, "cm_id", ev->u.cm_addr6.cm_id);
		f_ip6(&o, "local", ev->u.cm_addr6.local);
		f_ip6(&o, "peer", ev->u.cm_addr6.peer);
		break;
	case RT_EV_MR:
		f_x(&o, "addr", ev->u.mr.addr);
		f_u(&o, "length", ev->u.mr.length);
		f_x(&o, "iova", ev->u.mr.iova);
		if ((ev->flags & (RT_EVF_ERROR | RT_EVF_DESTROY)) == RT_EVF_ERROR) {
			if (ev->u.mr.lkey) /* a refused registration: its errno */
				f_s(&o, "errno", rt_errno_name((int)ev->u.mr.lkey));
		} else {
			f_x(&o, "lkey", ev->u.mr.lkey);
			f_x(&o, "rkey", ev->u.mr.rkey);
		}
		f_x(&o, "access", ev->u.mr.access);
		f_u(&o, "pd", ev->u.mr.pd_id);
		break;
	case RT_EV_ASYNC:
		f_u(&o, "event_type", ev->u.async.event_type);
		f_s(&o, "event", rt_async_event_name(ev->u.async.event_type));
		f_u(&o, "element", ev->u.async.element);
		break;
	case RT_EV_COUNTER:
		f_text(&o, "name", ev->u.counter.name, sizeof(ev->u.counter.name));
		f_u(&o, "port", ev->u.counter.port);
		if (ev->u.counter.device_id)
			f_u(&o, "device", ev->u.counter.device_id);
		f_u(&o, "value", ev->u.counter.value);
		break;
	case RT_EV_MARKER:
		f_text(&o, "text", ev->u.marker.text, sizeof(ev->u.marker.text));
		break;
	case RT_EV_LOST:
		f_s(&o, "cause", rt_lost_cause_name(ev->u.lost.cause));
		f_u(&o, "count", ev->u.lost.count);
		f_u(&o, "first_seq", ev->u.lost.first_seq);
		break;
	case RT_EV_CLOCK_SYNC:
		f_u(&o, "ticks", ev->u.clock.ticks);
		f_u(&o, "mono_ns", ev->u.clock.mono_ns);
		f_u(&o, "real_ns", ev->u.clock.real_ns);
		break;
	case RT_EV_QP_CREATE:
		f_u(&o, "qp_type", ev->u.qp_create.qp_type);
		f_u(&o, "send_cq", ev->u.qp_create.send_cq_id);
		f_u(&o, "recv_cq", ev->u.qp_create.recv_cq_id);
		f_u(&o, "srq", ev->u.qp_create.srq_num);
		f_u(&o, "pd", ev->u.qp_create.pd_id);
		f_u(&o, "max_send_wr", ev->u.qp_create.max_send_wr);
		f_u(&o, "max_recv_wr", ev->u.qp_create.max_recv_wr);
		f_u(&o, "max_send_sge", ev->u.qp_create.max_send_sge);
		f_u(&o, "max_recv_sge", ev->u.qp_create.max_recv_sge);
		f_u(&o, "max_inline", ev->u.qp_create.max_inline);
		f_u(&o, "sq_sig_all", ev->u.qp_create.sq_sig_all);
		if (ev->u.qp_create.error) /* a refused create: its errno */
			f_s(&o, "errno", rt_errno_name(ev->u.qp_create.error));
		break;
	case RT_EV_CQ_CREATE:
		f_u(&o, "cq", ev->u.cq_create.cq_id);
		f_u(&o, "cqe", ev->u.cq_create.cqe);
		f_i(&o, "comp_vector", ev->u.cq_create.comp_vector);
		f_u(&o, "has_channel", ev->u.cq_create.has_channel);
		if (ev->u.cq_create.error)
			f_s(&o, "errno", rt_errno_name(ev->u.cq_create.error));
		break;
	case RT_EV_DEVICE_CAPS:
		f_u(&o, "device", ev->u.device_caps.device_id);
		f_u(&o, "max_qp_wr", ev->u.device_caps.max_qp_wr);
		f_u(&o, "max_sge", ev->u.device_caps.max_sge);
		f_u(&o, "max_cqe", ev->u.device_caps.max_cqe);
		f_u(&o, "max_srq_wr", ev->u.device_caps.max_srq_wr);
		f_u(&o, "max_srq_sge", ev->u.device_caps.max_srq_sge);
		f_u(&o, "max_qp", ev->u.device_caps.max_qp);
		f_u(&o, "max_cq", ev->u.device_caps.max_cq);
		f_u(&o, "max_srq", ev->u.device_caps.max_srq);
		f_u(&o, "num_comp_vectors", ev->u.device_caps.num_comp_vectors);
		break;
	case RT_EV_PROCESS_END:
		f_i(&o, "pid", ev->u.process_end.pid);
		f_s(&o, "how", rt_end_how_name(ev->u.process_end.how));
		if (ev->u.process_end.signal)
			f_s(&o, "signal", rt_signal_name(ev->u.process_end.signal));
		if (ev->u.process_end.how == RT_END_SIGNAL) {
			f_i(&o, "si_code", ev->u.process_end.code);
			f_x(&o, "addr", ev->u.process_end.addr);
		} else if ((ev->u.process_end.how == RT_END_WAIT && !ev->u.process_end.signal) ||
			   (ev->u.process_end.how == RT_END_EXIT && ev->u.process_end.has_code)) {
			f_i(&o, "exit_code", ev->u.process_end.code);
		}
		if (ev->u.process_end.exact_time)
			f_u(&o, "exact_time", 1);
		if (ev->u.process_end.core_dumped)
			f_u(&o, "core_dumped", 1);
		break;
	case RT_EV_VERBS_CALL: {
		const struct rt_ev_verbs_call *v = &ev->u.verbs_call;
		f_s(&o, "call", rt_verbs_call_name(v->call));
		f_u(&o, "device", v->device_id);
		if (v->call == RT_VC_CREATE_AH) {
			f_u(&o, "pd", v->pd_id);
			f_u(&o, "port", v->port_num);
			f_u(&o, "is_global", v->is_global);
			if (v->is_global) {
				f_ip6(&o, "dgid", v->gid);
				f_u(&o, "sgid_index", v->sgid_index);
				f_u(&o, "hop_limit", v->hop_limit);
			}
			f_u(&o, "dlid", v->lid);
			f_u(&o, "sl", v->sl);
		} else if (v->call == RT_VC_ATTACH_MCAST || v->call == RT_VC_DETACH_MCAST) {
			f_ip6(&o, "mgid", v->gid);
			f_u(&o, "mlid", v->lid);
		}
		if (v->error)
			f_s(&o, "errno", rt_errno_name(v->error));
		break;
	}
	case RT_EV_QP_AV: {
		const struct rt_ev_qp_av *a = &ev->u.qp_av;
		f_u(&o, "port", a->port_num);
		f_u(&o, "is_global", a->is_global);
		f_u(&o, "sgid_index", a->sgid_index);
		if (a->sgid_known)
			f_ip6(&o, "sgid", a->sgid);
		else
			f_s(&o, "sgid", "unknown");
		if (a->sgid_type != 0xFF)
			f_s(&o, "sgid_type", a->sgid_type == 2 ? "RoCEv2" : a->sgid_type == 1 ? "RoCEv1" : "IB");
		f_ip6(&o, "dgid", a->dgid);
		f_u(&o, "hop_limit", a->hop_limit);
		if (a->port_state)
			f_u(&o, "port_state", a->port_state);
		if (a->active_mtu)
			f_u(&o, "active_mtu", rt_mtu_bytes(a->active_mtu));
		break;
	}
	case RT_EV_DEVICE:
		f_text(&o, "name", ev->u.device.name, sizeof(ev->u.device.name));
		f_x(&o, "node_guid", ev->u.device.node_guid);
		f_u(&o, "device", ev->u.device.device_id);
		break;
	case RT_EV_TIMER:
		f_s(&o, "timer", ev->u.timer.timer == RT_TIMER_ACK_TIMEOUT ? "ack_timeout"
				 : ev->u.timer.timer == RT_TIMER_RNR   ? "rnr"
								       : "unknown");
		f_u(&o, "psn", ev->u.timer.psn);
		f_u(&o, "timeout_us", ev->u.timer.timeout_us);
		break;
	case RT_EV_WARNING:
		f_u(&o, "code", ev->u.warning.code);
		f_text(&o, "text", ev->u.warning.text, sizeof(ev->u.warning.text));
		break;
	case RT_EV_CQ_NOTIFY:
		f_u(&o, "cq", ev->u.cq_notify.cq_id);
		f_u(&o, "solicited_only", ev->u.cq_notify.solicited_only);
		f_u(&o, "result", (unsigned)ev->u.cq_notify.result);
		break;
	case RT_EV_PD:
	case RT_EV_SRQ_CREATE:
		f_u(&o, "id", ev->u.object.id);
		if (ev->kind == RT_EV_SRQ_CREATE) {
			f_u(&o, "pd", ev->u.object.pd_id);
			f_u(&o, "max_wr", ev->u.object.max_wr);
			f_u(&o, "max_sge", ev->u.object.max_sge);
			f_u(&o, "srq_limit", ev->u.object.srq_limit);
		}
		if (ev->u.object.error)
			f_s(&o, "errno", rt_errno_name(ev->u.object.error));
		break;
	default:
		f_hex(&o, "raw", ev->u.raw, sizeof(ev->u.raw));
		break;
	}
	if (ev->flags & RT_EVF_DESTROY)
		f_u(&o, "destroy", 1);
	if (ev->flags & RT_EVF_ERROR)
		f_u(&o, "error", 1);
	return (int)o.used;
}

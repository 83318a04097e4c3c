/*
 * Printing one event as text or JSON, field by field for every kind.
 * `rdmatrace dump` uses it; any tool that shows raw events should too, so
 * names and spellings stay the same everywhere.
 */
#ifndef RDMATRACE_TRACE_PRINT_H
#define RDMATRACE_TRACE_PRINT_H

#include <stddef.h>

#include "rdmatrace/event.h"

/*
 * The kind-specific fields: "wr_id=0x1 opcode=RDMA_WRITE len=4096 ..." for
 * text, or `"wr_id":1,"opcode":"RDMA_WRITE",...` (no braces) for JSON.
 * Returns the length snprintf would have written.
 */
int rt_event_format_fields(const struct rt_event *ev, int json, char *buf, size_t len);

/* Names used by the formatter (also useful to other printers). */
const char *rt_wr_opcode_name(unsigned op);     /* enum ibv_wr_opcode */
const char *rt_wc_opcode_name(unsigned op);     /* enum ibv_wc_opcode (RECV = 128) */
const char *rt_wc_status_name(unsigned status); /* enum ibv_wc_status */
const char *rt_qp_state_name(unsigned state);   /* enum ibv_qp_state */
const char *rt_cm_event_name(unsigned event);   /* enum rdma_cm_event_type, or "call:..." for enum rt_cm_call */
const char *rt_cm_option_name(int level, int name); /* rdma_set_option's: "RDMA_OPTION_ID_ACK_TIMEOUT" ..., NULL unknown */
/* The symbolic name of an errno a verbs call returned ("ENOMEM"; -ENOMEM
 * names the same), or its number as text for one the C library does not
 * name (a static buffer per thread). */
const char *rt_errno_name(int err);
const char *rt_lost_cause_name(unsigned cause); /* enum rt_lost_cause */
/* "SIGSEGV", or the number as text for a signal the C library does not name. */
const char *rt_signal_name(int sig);
const char *rt_end_how_name(unsigned how);      /* enum rt_end_how */
const char *rt_verbs_call_name(unsigned call);  /* enum rt_verbs_call: "ibv_create_ah" ... */
const char *rt_async_event_name(unsigned type); /* enum ibv_event_type without IBV_EVENT_: "CQ_ERR" ... */

#endif

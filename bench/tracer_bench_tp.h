/*
 * LTTng-UST tracepoint with the payload of rdmatrace's RT_EV_WR_POST, for
 * the side-by-side benchmark (bench/tracer_bench.c).  Only built when
 * liblttng-ust-dev is installed.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER rdmatrace_bench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./tracer_bench_tp.h"

#if !defined(RDMATRACE_TRACER_BENCH_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define RDMATRACE_TRACER_BENCH_TP_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(
	rdmatrace_bench, wr_post,
	LTTNG_UST_TP_ARGS(uint32_t, qpn, uint64_t, wr_id, uint64_t, remote_addr, uint32_t, length, uint32_t, rkey,
			  uint32_t, first_psn, uint32_t, last_psn, uint8_t, opcode, uint8_t, num_sge, uint8_t, flags),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, qpn, qpn)
		lttng_ust_field_integer(uint64_t, wr_id, wr_id)
		lttng_ust_field_integer(uint64_t, remote_addr, remote_addr)
		lttng_ust_field_integer(uint32_t, length, length)
		lttng_ust_field_integer(uint32_t, rkey, rkey)
		lttng_ust_field_integer(uint32_t, first_psn, first_psn)
		lttng_ust_field_integer(uint32_t, last_psn, last_psn)
		lttng_ust_field_integer(uint8_t, opcode, opcode)
		lttng_ust_field_integer(uint8_t, num_sge, num_sge)
		lttng_ust_field_integer(uint8_t, flags, flags)))

#endif

#include <lttng/tracepoint-event.h>

/*
 * The opcode table and the small value tables (NAK codes, RNR timers, MTUs,
 * CM messages) behind include/rdmatrace/roce_wire.h.  Keeping them in one
 * place is what lets the decoder and the uroce engine agree byte for byte.
 */
#include "rdmatrace/roce_wire.h"

#define P RT_HDR_PAYLOAD
#define OP(code, nm, sym, hdrs, len, pos, cls, recv, imm) \
	[code] = { nm, sym, (uint16_t)(hdrs), len, pos, cls, recv, imm }

/* hdr_len counts the BTH (12) and every extended header before the payload. */
static const struct rt_opcode_info opcode_table[256] = {
	OP(0x00, "RC Send First", "RC_SEND_FIRST", P, 12, RT_POS_FIRST, RT_CLASS_SEND, true, false),
	OP(0x01, "RC Send Middle", "RC_SEND_MIDDLE", P, 12, RT_POS_MIDDLE, RT_CLASS_SEND, false, false),
	OP(0x02, "RC Send Last", "RC_SEND_LAST", P, 12, RT_POS_LAST, RT_CLASS_SEND, false, false),
	OP(0x03, "RC Send Last Immediate", "RC_SEND_LAST_WITH_IMMEDIATE", RT_HDR_IMMDT | P, 16, RT_POS_LAST, RT_CLASS_SEND, false, true),
	OP(0x04, "RC Send Only", "RC_SEND_ONLY", P, 12, RT_POS_ONLY, RT_CLASS_SEND, true, false),
	OP(0x05, "RC Send Only Immediate", "RC_SEND_ONLY_WITH_IMMEDIATE", RT_HDR_IMMDT | P, 16, RT_POS_ONLY, RT_CLASS_SEND, true, true),
	OP(0x06, "RC RDMA Write First", "RC_RDMA_WRITE_FIRST", RT_HDR_RETH | P, 28, RT_POS_FIRST, RT_CLASS_WRITE, false, false),
	OP(0x07, "RC RDMA Write Middle", "RC_RDMA_WRITE_MIDDLE", P, 12, RT_POS_MIDDLE, RT_CLASS_WRITE, false, false),
	OP(0x08, "RC RDMA Write Last", "RC_RDMA_WRITE_LAST", P, 12, RT_POS_LAST, RT_CLASS_WRITE, false, false),
	OP(0x09, "RC RDMA Write Last Immediate", "RC_RDMA_WRITE_LAST_WITH_IMMEDIATE", RT_HDR_IMMDT | P, 16, RT_POS_LAST, RT_CLASS_WRITE, true, true),
	OP(0x0A, "RC RDMA Write Only", "RC_RDMA_WRITE_ONLY", RT_HDR_RETH | P, 28, RT_POS_ONLY, RT_CLASS_WRITE, false, false),
	OP(0x0B, "RC RDMA Write Only Immediate", "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", RT_HDR_RETH | RT_HDR_IMMDT | P, 32, RT_POS_ONLY, RT_CLASS_WRITE, true, true),
	OP(0x0C, "RC RDMA Read Request", "RC_RDMA_READ_REQUEST", RT_HDR_RETH, 28, RT_POS_NONE, RT_CLASS_READ_REQ, false, false),
	OP(0x0D, "RC RDMA Read Response First", "RC_RDMA_READ_RESPONSE_FIRST", RT_HDR_AETH | P, 16, RT_POS_FIRST, RT_CLASS_READ_RESP, false, false),
	OP(0x0E, "RC RDMA Read Response Middle", "RC_RDMA_READ_RESPONSE_MIDDLE", P, 12, RT_POS_MIDDLE, RT_CLASS_READ_RESP, false, false),
	OP(0x0F, "RC RDMA Read Response Last", "RC_RDMA_READ_RESPONSE_LAST", RT_HDR_AETH | P, 16, RT_POS_LAST, RT_CLASS_READ_RESP, false, false),
	OP(0x10, "RC RDMA Read Response Only", "RC_RDMA_READ_RESPONSE_ONLY", RT_HDR_AETH | P, 16, RT_POS_ONLY, RT_CLASS_READ_RESP, false, false),
	OP(0x11, "RC Acknowledge", "RC_ACKNOWLEDGE", RT_HDR_AETH, 16, RT_POS_NONE, RT_CLASS_ACK, false, false),
	OP(0x12, "RC Atomic Acknowledge", "RC_ATOMIC_ACKNOWLEDGE", RT_HDR_AETH | RT_HDR_ATOMICACKETH, 24, RT_POS_NONE, RT_CLASS_ATOMIC_ACK, false, false),
	OP(0x13, "RC Compare Swap", "RC_COMPARE_SWAP", RT_HDR_ATOMICETH, 40, RT_POS_NONE, RT_CLASS_ATOMIC, false, false),
	OP(0x14, "RC Fetch Add", "RC_FETCH_ADD", RT_HDR_ATOMICETH, 40, RT_POS_NONE, RT_CLASS_ATOMIC, false, false),
	OP(0x16, "RC Send Last Invalidate", "RC_SEND_LAST_WITH_INVALIDATE", RT_HDR_IETH | P, 16, RT_POS_LAST, RT_CLASS_SEND, false, false),
	OP(0x17, "RC Send Only Invalidate", "RC_SEND_ONLY_WITH_INVALIDATE", RT_HDR_IETH | P, 16, RT_POS_ONLY, RT_CLASS_SEND, true, false),
	OP(0x1C, "RC Flush", "RC_FLUSH", RT_HDR_FETH | RT_HDR_RETH, 32, RT_POS_NONE, RT_CLASS_FLUSH, false, false),
	OP(0x1D, "RC Atomic Write", "RC_ATOMIC_WRITE", RT_HDR_RETH | P, 28, RT_POS_ONLY, RT_CLASS_ATOMIC_WRITE, false, false),
	OP(0x20, "UC Send First", "UC_SEND_FIRST", P, 12, RT_POS_FIRST, RT_CLASS_SEND, true, false),
	OP(0x21, "UC Send Middle", "UC_SEND_MIDDLE", P, 12, RT_POS_MIDDLE, RT_CLASS_SEND, false, false),
	OP(0x22, "UC Send Last", "UC_SEND_LAST", P, 12, RT_POS_LAST, RT_CLASS_SEND, false, false),
	OP(0x23, "UC Send Last Immediate", "UC_SEND_LAST_WITH_IMMEDIATE", RT_HDR_IMMDT | P, 16, RT_POS_LAST, RT_CLASS_SEND, false, true),
	OP(0x24, "UC Send Only", "UC_SEND_ONLY", P, 12, RT_POS_ONLY, RT_CLASS_SEND, true, false),
	OP(0x25, "UC Send Only Immediate", "UC_SEND_ONLY_WITH_IMMEDIATE", RT_HDR_IMMDT | P, 16, RT_POS_ONLY, RT_CLASS_SEND, true, true),
	OP(0x26, "UC RDMA Write First", "UC_RDMA_WRITE_FIRST", RT_HDR_RETH | P, 28, RT_POS_FIRST, RT_CLASS_WRITE, false, false),
	OP(0x27, "UC RDMA Write Middle", "UC_RDMA_WRITE_MIDDLE", P, 12, RT_POS_MIDDLE, RT_CLASS_WRITE, false, false),
	OP(0x28, "UC RDMA Write Last", "UC_RDMA_WRITE_LAST", P, 12, RT_POS_LAST, RT_CLASS_WRITE, false, false),
	OP(0x29, "UC RDMA Write Last Immediate", "UC_RDMA_WRITE_LAST_WITH_IMMEDIATE", RT_HDR_IMMDT | P, 16, RT_POS_LAST, RT_CLASS_WRITE, true, true),
	OP(0x2A, "UC RDMA Write Only", "UC_RDMA_WRITE_ONLY", RT_HDR_RETH | P, 28, RT_POS_ONLY, RT_CLASS_WRITE, false, false),
	OP(0x2B, "UC RDMA Write Only Immediate", "UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", RT_HDR_RETH | RT_HDR_IMMDT | P, 32, RT_POS_ONLY, RT_CLASS_WRITE, true, true),
	OP(0x64, "UD Send Only", "UD_SEND_ONLY", RT_HDR_DETH | P, 20, RT_POS_ONLY, RT_CLASS_SEND, true, false),
	OP(0x65, "UD Send Only Immediate", "UD_SEND_ONLY_WITH_IMMEDIATE", RT_HDR_DETH | RT_HDR_IMMDT | P, 24, RT_POS_ONLY, RT_CLASS_SEND, true, true),
	OP(0x81, "CNP", "CNP", RT_HDR_CNP, 28, RT_POS_NONE, RT_CLASS_CNP, false, false),
};

const struct rt_opcode_info *rt_opcode_info(uint8_t opcode)
{
	const struct rt_opcode_info *info = &opcode_table[opcode];
	return info->name ? info : (const struct rt_opcode_info *)0;
}

const char *rt_nak_code_name(unsigned code)
{
	static const char *const names[] = {
		"PSN sequence error", "invalid request", "remote access error",
		"remote operational error", "invalid RD request",
	};
	return code < sizeof(names) / sizeof(names[0]) ? names[code] : "unknown NAK code";
}

/* IBTA RNR NAK timer field encoding, in microseconds (code 0 is the longest). */
static const uint32_t rnr_timer_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920,
	2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440, 81920, 122880,
	163840, 245760, 327680, 491520,
};

uint32_t rt_rnr_timer_us(unsigned code)
{
	return rnr_timer_us[code & 0x1F];
}

uint64_t rt_ack_timeout_us(unsigned exponent)
{
	if (exponent == 0 || exponent > 31)
		return 0;
	/* 4.096 us * 2^t = 4096 ns << t */
	return ((uint64_t)4096 << exponent) / 1000;
}

unsigned rt_mtu_bytes(unsigned mtu_enum)
{
	return mtu_enum >= 1 && mtu_enum <= 5 ? 128u << mtu_enum : 0;
}

const char *rt_cm_attr_name(unsigned attr_id)
{
	switch (attr_id) {
	case RT_CM_REQ: return "REQ";
	case RT_CM_MRA: return "MRA";
	case RT_CM_REJ: return "REJ";
	case RT_CM_REP: return "REP";
	case RT_CM_RTU: return "RTU";
	case RT_CM_DREQ: return "DREQ";
	case RT_CM_DREP: return "DREP";
	case RT_CM_SIDR_REQ: return "SIDR_REQ";
	case RT_CM_SIDR_REP: return "SIDR_REP";
	case RT_CM_LAP: return "LAP";
	case RT_CM_APR: return "APR";
	default: return 0;
	}
}

const char *rt_cm_attr_info(unsigned attr_id)
{
	switch (attr_id) {
	case RT_CM_REQ: return "CM: ConnectRequest";
	case RT_CM_MRA: return "CM: MsgRcptAck";
	case RT_CM_REJ: return "CM: ConnectReject";
	case RT_CM_REP: return "CM: ConnectReply";
	case RT_CM_RTU: return "CM: ReadyToUse";
	case RT_CM_DREQ: return "CM: DisconnectRequest";
	case RT_CM_DREP: return "CM: DisconnectReply";
	case RT_CM_SIDR_REQ: return "CM: ServiceIDResReq";
	case RT_CM_SIDR_REP: return "CM: ServiceIDResResp";
	case RT_CM_LAP: return "CM: LoadAlternatePath";
	case RT_CM_APR: return "CM: AlternatePathResponse";
	default: return 0;
	}
}

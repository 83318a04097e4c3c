/*
 * RoCEv2 wire facts shared by everything that reads or writes packets: the
 * decoder (captures/), the uroce engine (uroce/) and the analysis.  One
 * table describes every opcode (name, extended headers, header length), so
 * the code that parses a packet and the code that builds one cannot
 * disagree.  Layouts follow IBTA vol. 1 and Linux rxe (the wire notes in
 * ../shared/docs/roce-wire.md beside this tree).
 */
#ifndef RDMATRACE_ROCE_WIRE_H
#define RDMATRACE_ROCE_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RT_ROCE_UDP_PORT 4791
#define RT_BTH_LEN 12
#define RT_RETH_LEN 16
#define RT_AETH_LEN 4
#define RT_ATOMICETH_LEN 28
#define RT_ATOMICACKETH_LEN 8
#define RT_IMMDT_LEN 4
#define RT_IETH_LEN 4
#define RT_DETH_LEN 8
#define RT_FETH_LEN 4
#define RT_ICRC_LEN 4
#define RT_CNP_RESERVED_LEN 16
#define RT_GSI_QKEY 0x80010000u
#define RT_PSN_MASK 0xFFFFFFu
#define RT_MAD_LEN 256

/* BTH opcodes (IBTA; rxe names). */
enum rt_opcode {
	RT_OP_RC_SEND_FIRST = 0x00,
	RT_OP_RC_SEND_MIDDLE = 0x01,
	RT_OP_RC_SEND_LAST = 0x02,
	RT_OP_RC_SEND_LAST_IMM = 0x03,
	RT_OP_RC_SEND_ONLY = 0x04,
	RT_OP_RC_SEND_ONLY_IMM = 0x05,
	RT_OP_RC_WRITE_FIRST = 0x06,
	RT_OP_RC_WRITE_MIDDLE = 0x07,
	RT_OP_RC_WRITE_LAST = 0x08,
	RT_OP_RC_WRITE_LAST_IMM = 0x09,
	RT_OP_RC_WRITE_ONLY = 0x0A,
	RT_OP_RC_WRITE_ONLY_IMM = 0x0B,
	RT_OP_RC_READ_REQUEST = 0x0C,
	RT_OP_RC_READ_RESPONSE_FIRST = 0x0D,
	RT_OP_RC_READ_RESPONSE_MIDDLE = 0x0E,
	RT_OP_RC_READ_RESPONSE_LAST = 0x0F,
	RT_OP_RC_READ_RESPONSE_ONLY = 0x10,
	RT_OP_RC_ACKNOWLEDGE = 0x11,
	RT_OP_RC_ATOMIC_ACKNOWLEDGE = 0x12,
	RT_OP_RC_COMPARE_SWAP = 0x13,
	RT_OP_RC_FETCH_ADD = 0x14,
	RT_OP_RC_SEND_LAST_INV = 0x16,
	RT_OP_RC_SEND_ONLY_INV = 0x17,
	RT_OP_RC_FLUSH = 0x1C,
	RT_OP_RC_ATOMIC_WRITE = 0x1D,
	RT_OP_UC_SEND_FIRST = 0x20,
	RT_OP_UC_SEND_MIDDLE = 0x21,
	RT_OP_UC_SEND_LAST = 0x22,
	RT_OP_UC_SEND_LAST_IMM = 0x23,
	RT_OP_UC_SEND_ONLY = 0x24,
	RT_OP_UC_SEND_ONLY_IMM = 0x25,
	RT_OP_UC_WRITE_FIRST = 0x26,
	RT_OP_UC_WRITE_MIDDLE = 0x27,
	RT_OP_UC_WRITE_LAST = 0x28,
	RT_OP_UC_WRITE_LAST_IMM = 0x29,
	RT_OP_UC_WRITE_ONLY = 0x2A,
	RT_OP_UC_WRITE_ONLY_IMM = 0x2B,
	RT_OP_UD_SEND_ONLY = 0x64,
	RT_OP_UD_SEND_ONLY_IMM = 0x65,
	RT_OP_CNP = 0x81,
};

/* Extended headers an opcode carries after the BTH, in wire order. */
enum rt_hdr_flags {
	RT_HDR_RETH = 1u << 0,
	RT_HDR_AETH = 1u << 1,
	RT_HDR_ATOMICETH = 1u << 2,
	RT_HDR_ATOMICACKETH = 1u << 3,
	RT_HDR_IMMDT = 1u << 4,
	RT_HDR_IETH = 1u << 5,
	RT_HDR_DETH = 1u << 6,
	RT_HDR_FETH = 1u << 7,
	RT_HDR_CNP = 1u << 8,     /* 16 reserved bytes */
	RT_HDR_PAYLOAD = 1u << 9, /* may carry payload */
};

/* Position of a packet in its message. */
enum rt_op_position {
	RT_POS_NONE = 0,   /* ACK, CNP, READ request ... */
	RT_POS_FIRST = 1,
	RT_POS_MIDDLE = 2,
	RT_POS_LAST = 3,
	RT_POS_ONLY = 4,
};

/* What kind of operation a packet belongs to. */
enum rt_op_class {
	RT_CLASS_SEND = 1,
	RT_CLASS_WRITE = 2,
	RT_CLASS_READ_REQ = 3,
	RT_CLASS_READ_RESP = 4,
	RT_CLASS_ACK = 5,         /* ACK / NAK / RNR NAK */
	RT_CLASS_ATOMIC = 6,
	RT_CLASS_ATOMIC_ACK = 7,
	RT_CLASS_CNP = 8,
	RT_CLASS_FLUSH = 9,
	RT_CLASS_ATOMIC_WRITE = 10,
};

enum rt_transport {
	RT_TRANSPORT_RC = 0,
	RT_TRANSPORT_UC = 1,
	RT_TRANSPORT_RD = 2,
	RT_TRANSPORT_UD = 3,
	RT_TRANSPORT_CNP = 4,
	RT_TRANSPORT_XRC = 5,
};

struct rt_opcode_info {
	const char *name;     /* as tshark 4.0 prints it in Info, e.g. "RC RDMA Write First" */
	const char *symbol;   /* kernel-style short name, e.g. "RC_RDMA_WRITE_FIRST" */
	uint16_t headers;     /* enum rt_hdr_flags */
	uint8_t hdr_len;      /* BTH + extended headers, bytes */
	uint8_t position;     /* enum rt_op_position */
	uint8_t op_class;     /* enum rt_op_class */
	bool consumes_recv;   /* consumes a receive WQE at the responder (on FIRST/ONLY or LAST_IMM) */
	bool has_imm;
};

/* The table entry for an opcode, or NULL for an opcode not in the table. */
const struct rt_opcode_info *rt_opcode_info(uint8_t opcode);

/* Transport of an opcode (bits 7..5). */
static inline enum rt_transport rt_opcode_transport(uint8_t opcode)
{
	return (enum rt_transport)(opcode >> 5);
}

/* AETH syndrome (byte 0). */
enum rt_aeth_type {
	RT_AETH_ACK = 0,
	RT_AETH_RNR_NAK = 1,
	RT_AETH_RESERVED = 2,
	RT_AETH_NAK = 3,
};

enum rt_nak_code {
	RT_NAK_PSN_SEQ_ERROR = 0,
	RT_NAK_INVALID_REQUEST = 1,
	RT_NAK_REMOTE_ACCESS_ERROR = 2,
	RT_NAK_REMOTE_OP_ERROR = 3,
	RT_NAK_INVALID_RD_REQUEST = 4,
};

static inline enum rt_aeth_type rt_aeth_type(uint8_t syndrome)
{
	return (enum rt_aeth_type)((syndrome >> 5) & 3);
}

static inline unsigned rt_aeth_value(uint8_t syndrome)
{
	return syndrome & 0x1F;
}

static inline uint8_t rt_aeth_syndrome(enum rt_aeth_type type, unsigned value)
{
	return (uint8_t)(((unsigned)type << 5) | (value & 0x1F));
}

/* Name of a NAK code ("PSN sequence error", ...), "unknown NAK code" otherwise. */
const char *rt_nak_code_name(unsigned code);

/* RNR NAK timer code (0..31) to microseconds; code 0 is 655360 us. */
uint32_t rt_rnr_timer_us(unsigned code);

/* Local ACK timeout exponent to microseconds (4.096 us * 2^t); 0 = infinite, returns 0. */
uint64_t rt_ack_timeout_us(unsigned exponent);

/* IB MTU enum (1..5) to bytes; 0 for an invalid value. */
unsigned rt_mtu_bytes(unsigned mtu_enum);

/* PSN arithmetic modulo 2^24. */
static inline uint32_t rt_psn_add(uint32_t psn, int32_t n)
{
	return (uint32_t)((int64_t)psn + n) & RT_PSN_MASK;
}

/* >0 when a is after b, <0 when before, 0 when equal (window +-2^23). */
static inline int32_t rt_psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

/* Number of packets (PSNs) a message of len bytes takes at path MTU mtu_bytes. */
static inline uint32_t rt_packets_for(uint64_t len, unsigned mtu_bytes)
{
	if (len == 0 || mtu_bytes == 0)
		return 1;
	return (uint32_t)((len + mtu_bytes - 1) / mtu_bytes);
}

/* Pad bytes after a payload of len bytes. */
static inline unsigned rt_pad_for(size_t len)
{
	return (unsigned)(-len & 3);
}

/* IB CM attribute IDs carried in MADs on QP1. */
enum rt_cm_attr {
	RT_CM_REQ = 0x0010,
	RT_CM_MRA = 0x0011,
	RT_CM_REJ = 0x0012,
	RT_CM_REP = 0x0013,
	RT_CM_RTU = 0x0014,
	RT_CM_DREQ = 0x0015,
	RT_CM_DREP = 0x0016,
	RT_CM_SIDR_REQ = 0x0017,
	RT_CM_SIDR_REP = 0x0018,
	RT_CM_LAP = 0x0019,
	RT_CM_APR = 0x001A,
};

/* Short name of a CM message ("REQ", ...) or NULL. */
const char *rt_cm_attr_name(unsigned attr_id);

/* tshark's Info text for a CM message ("CM: ConnectRequest", ...) or NULL. */
const char *rt_cm_attr_info(unsigned attr_id);

#define RT_MAD_CLASS_CM 0x07
#define RT_CM_SERVICE_ID_IP_PREFIX 0x0000000001000000ull /* top 40 bits 0x0000000001 */
#define RT_RDMA_PS_TCP 0x0106
#define RT_RDMA_PS_UDP 0x0111
#define RT_RDMA_PS_IB 0x013F
#define RT_RDMA_PS_IPOIB 0x0002
#define RT_CMA_HDR_LEN 36

/*
 * ICRC.  The value is a standard CRC-32 (zlib's crc32) over
 *   8 bytes of 0xFF | IP header with variant fields set to ones |
 *   UDP header with the checksum set to ones | BTH with byte 4 set to ones |
 *   the rest of the packet up to the ICRC.
 * On the wire the 32-bit value is stored least-significant byte first.
 *
 * ip points at the IPv4 or IPv6 header, len counts the bytes from there to
 * the start of the ICRC.  Returns 0 and the CRC in *crc, or -EINVAL when the
 * bytes are not an IPv4/IPv6 + UDP + BTH packet of a consistent length.
 */
int rt_icrc_compute(const uint8_t *ip, size_t len, uint32_t *crc);

/* The ICRC as stored on the wire (little-endian bytes) read from p. */
static inline uint32_t rt_icrc_load(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void rt_icrc_store(uint8_t *p, uint32_t crc)
{
	p[0] = (uint8_t)crc;
	p[1] = (uint8_t)(crc >> 8);
	p[2] = (uint8_t)(crc >> 16);
	p[3] = (uint8_t)(crc >> 24);
}

/* Network-order (big-endian) fields at p, as the headers and the CM MAD
 * carry them: one definition for the parsers, the builder and uroce's CM. */
static inline uint16_t rt_get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t rt_get_be24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static inline uint32_t rt_get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t rt_get_be64(const uint8_t *p)
{
	return (uint64_t)rt_get_be32(p) << 32 | rt_get_be32(p + 4);
}

static inline void rt_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void rt_put_be24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

static inline void rt_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void rt_put_be64(uint8_t *p, uint64_t v)
{
	rt_put_be32(p, (uint32_t)(v >> 32));
	rt_put_be32(p + 4, (uint32_t)v);
}

/* Plain CRC-32 (zlib-compatible) update: crc = rt_crc32(crc, p, n), start with 0. */
uint32_t rt_crc32(uint32_t crc, const void *p, size_t n);

/* rxe's fixed UDP source port for a QP: 0xC000 | (hash_32(qpn, 14) & 0x3FFF). */
static inline uint16_t rt_rxe_udp_sport(uint32_t qpn)
{
	uint32_t h = (qpn * 0x61C88647u) >> (32 - 14);
	return (uint16_t)(0xC000u | (h & 0x3FFFu));
}

#endif

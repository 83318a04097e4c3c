/*
 * The RoCEv2 packet decoder: one captured frame in, one struct rt_pkt out.
 *
 * The decoder walks the frame with a bounds-checked cursor (never reading
 * past the captured length), fills the struct layer by layer and stops
 * where the bytes end: a frame cut short by the snap length is decoded as
 * far as it goes and flagged RT_PKT_TRUNCATED.  Nothing here formats text;
 * captures/roce_format.c turns a struct rt_pkt into lines or JSON, and the
 * correlation and the viewer consume the struct directly.
 *
 * Layers understood:
 *   link     Ethernet II with up to two 802.1Q / 802.1ad tags, Linux cooked
 *            capture (SLL and SLL2), raw IP (LINKTYPE_RAW / IPV4 / IPV6),
 *            BSD loopback (NULL / LOOP)
 *   network  IPv4 with options (fragments recognised), IPv6 with extension
 *            headers skipped
 *   UDP      to one of the configured RoCE ports (default 4791)
 *   IB       BTH and every extended header of the opcode table in
 *            roce_wire.h (RETH, AETH, AtomicETH, AtomicAckETH, ImmDt, IETH,
 *            DETH, FETH, the CNP's reserved bytes), pad and payload length
 *            from the UDP length, the ICRC checked
 *   CM       IB CM MADs on QP1 (REQ, REP, RTU, REJ, MRA, DREQ, DREP, and the
 *            header of the others) with the RDMA CM IP header in the REQ
 *
 * Field values are host order.  Offsets (payload_off, cm.private_off ...)
 * count bytes from the start of the frame as given to rt_decode().
 */
#ifndef RDMATRACE_ROCE_DECODE_H
#define RDMATRACE_ROCE_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rdmatrace/roce_wire.h"

/* Link types (the LINKTYPE_ values stored in pcap/pcapng files; the DLT_
 * numbers libpcap returns are accepted too where they differ). */
enum rt_linktype {
	RT_LINKTYPE_NULL = 0,      /* BSD loopback: 4-byte host-order AF */
	RT_LINKTYPE_ETHERNET = 1,
	RT_LINKTYPE_RAW = 101,     /* raw IPv4 or IPv6 (DLT_RAW is 12 or 14) */
	RT_LINKTYPE_LOOP = 108,    /* OpenBSD loopback: 4-byte big-endian AF */
	RT_LINKTYPE_LINUX_SLL = 113,
	RT_LINKTYPE_IPV4 = 228,
	RT_LINKTYPE_IPV6 = 229,
	RT_LINKTYPE_LINUX_SLL2 = 276,
};

/* What rt_decode() found (struct rt_pkt.flags). */
enum rt_decode_flags {
	RT_PKT_ETH = 1u << 0,       /* Ethernet header decoded (eth_*) */
	RT_PKT_VLAN = 1u << 1,      /* at least one 802.1Q/802.1ad tag */
	RT_PKT_IPV4 = 1u << 2,
	RT_PKT_IPV6 = 1u << 3,
	RT_PKT_UDP = 1u << 4,
	RT_PKT_BTH = 1u << 5,       /* a RoCEv2 packet: the BTH is decoded */
	RT_PKT_CM = 1u << 6,        /* a CM MAD: cm is filled */
	RT_PKT_MAD = 1u << 7,       /* a MAD on QP0/QP1 (mad_* filled), CM or not */
	RT_PKT_TRUNCATED = 1u << 8, /* the capture ended before the packet did */
	RT_PKT_MALFORMED = 1u << 9, /* lengths disagree (see malformed) */
	RT_PKT_FRAGMENT = 1u << 10, /* an IPv4 fragment (first or later) */
	RT_PKT_UNKNOWN_OPCODE = 1u << 11, /* BTH opcode not in the opcode table */
	RT_PKT_SLL = 1u << 12,      /* Linux cooked header decoded */
};

/* Why a frame is not a decoded RoCE packet (struct rt_pkt.skip). */
enum rt_skip {
	RT_SKIP_NONE = 0,         /* a RoCE packet */
	RT_SKIP_LINKTYPE,         /* link type not supported */
	RT_SKIP_NOT_IP,           /* ARP, LLDP, ... */
	RT_SKIP_NOT_UDP,          /* IP but not UDP (TCP, ICMP ...) */
	RT_SKIP_NOT_ROCE_PORT,    /* UDP to another port */
	RT_SKIP_FRAGMENT,         /* a non-first IPv4 fragment: no UDP header */
	RT_SKIP_SHORT,            /* the capture ends before the BTH */
	RT_SKIP_BAD_HEADER,       /* a header that cannot be right (IHL < 5 ...) */
};

/* Why the packet's lengths do not add up (struct rt_pkt.malformed). */
enum rt_malformed {
	RT_MALFORMED_NONE = 0,
	RT_MALFORMED_UDP_LEN,     /* UDP length beyond the IP length, or < 8 */
	RT_MALFORMED_IB_LEN,      /* UDP payload shorter than BTH + ext headers + pad + ICRC */
	RT_MALFORMED_MAD_LEN,     /* MAD shorter than 256 bytes */
};

enum rt_icrc_status {
	RT_ICRC_UNVERIFIED = 0,   /* could not be checked: see icrc_reason */
	RT_ICRC_GOOD = 1,
	RT_ICRC_BAD = 2,
};

enum rt_icrc_reason {
	RT_ICRC_WHY_NONE = 0,
	RT_ICRC_WHY_TRUNCATED,    /* cut by the snap length */
	RT_ICRC_WHY_FRAGMENT,     /* an IPv4 fragment: the rest of the packet is elsewhere */
	RT_ICRC_WHY_MALFORMED,    /* the UDP or IB lengths do not add up */
	RT_ICRC_WHY_IPV6_EXT,     /* IPv6 extension headers between IPv6 and UDP */
	RT_ICRC_WHY_DISABLED,     /* decoder asked not to verify */
};

/* Decoder options; a zeroed struct (or NULL) means port 4791, ICRC checked. */
struct rt_decode_opts {
	const uint16_t *ports;    /* UDP destination ports that carry RoCEv2 */
	unsigned nports;          /* 0: just RT_ROCE_UDP_PORT */
	bool no_icrc;             /* skip ICRC verification (status UNVERIFIED, DISABLED) */
	bool any_udp_port;        /* treat every UDP datagram as RoCEv2 (fuzzing, odd setups) */
};

struct rt_bth {
	uint8_t opcode;
	bool se;                  /* solicited event */
	bool mig;                 /* MigReq */
	uint8_t pad;              /* PadCnt 0..3 */
	uint8_t tver;
	uint16_t pkey;
	bool fecn, becn;
	uint8_t resv6a;
	uint32_t dqpn;            /* 24 bits */
	bool ackreq;
	uint8_t resv7;
	uint32_t psn;             /* 24 bits */
};

/* AETH: syndrome and MSN, with the syndrome split for convenience. */
struct rt_aeth {
	uint8_t syndrome;
	uint8_t type;             /* enum rt_aeth_type */
	uint8_t value;            /* credit count, RNR timer code or NAK code */
	uint32_t msn;             /* 24 bits */
	uint32_t rnr_us;          /* RNR NAK: the timer in microseconds, else 0 */
};

struct rt_reth {
	uint64_t va;
	uint32_t rkey;
	uint32_t dmalen;
};

struct rt_atomiceth {
	uint64_t va;
	uint32_t rkey;
	uint64_t swap_add;        /* swap data (CmpSwap) or add data (FetchAdd) */
	uint64_t compare;
};

struct rt_deth {
	uint32_t qkey;
	uint32_t src_qpn;         /* 24 bits */
};

/* IB CM message (valid when flags & RT_PKT_CM; zero otherwise). */
struct rt_cm {
	uint16_t attr_id;         /* enum rt_cm_attr */
	uint32_t local_comm_id;
	uint32_t remote_comm_id;  /* REP, RTU, REJ, MRA, DREQ, DREP */
	/* REQ */
	uint64_t service_id;
	bool ip_service;          /* service ID top 40 bits 0x0000000001: RDMA CM IP */
	uint16_t port_space;      /* RDMA_PS_* when ip_service */
	uint16_t port;            /* destination port when ip_service */
	uint64_t local_ca_guid;   /* REQ, REP */
	uint32_t local_qkey;      /* REQ, REP */
	uint32_t local_qpn;       /* REQ, REP: the sender's data QP */
	uint32_t starting_psn;    /* REQ, REP */
	uint8_t responder_resources; /* REQ, REP */
	uint8_t initiator_depth;  /* REQ, REP */
	uint8_t remote_cm_timeout;
	uint8_t transport_type;   /* 0 RC, 1 UC, 3 XRC */
	bool e2e_flow_control;    /* REQ, REP */
	uint8_t local_cm_timeout;
	uint8_t retry_count;
	uint16_t pkey;
	uint8_t path_mtu;         /* IB MTU enum */
	bool rdc_exists;
	uint8_t rnr_retry_count;  /* REQ, REP */
	uint8_t max_cm_retries;
	bool srq;                 /* REQ, REP */
	uint8_t ext_transport;
	uint16_t prim_local_lid, prim_remote_lid;
	uint8_t prim_local_gid[16], prim_remote_gid[16];
	uint32_t prim_flow_label;
	uint8_t prim_packet_rate;
	uint8_t prim_traffic_class;
	uint8_t prim_hop_limit;
	uint8_t prim_sl;
	bool prim_subnet_local;
	uint8_t prim_local_ack_timeout; /* becomes the QP timeout */
	/* RDMA CM header at the start of a REQ's or SIDR_REQ's private data (ip_service) */
	bool has_cma_hdr;
	uint8_t cma_version;
	uint8_t cma_ip_version;   /* 4 or 6 */
	uint16_t cma_src_port;
	uint8_t cma_src_ip[16], cma_dst_ip[16]; /* IPv4 in the last 4 bytes */
	/* REP */
	uint8_t target_ack_delay;
	uint8_t failover_accepted;
	/* REJ */
	uint8_t msg_rejected;     /* 0 REQ, 1 REP, 2 other */
	uint8_t reject_info_len;
	uint16_t reason;
	/* MRA */
	uint8_t msg_mraed;        /* 0 REQ, 1 REP, 2 LAP */
	uint8_t service_timeout;
	/* DREQ */
	uint32_t remote_qpn;
	/* SIDR_REP (SIDR_REQ: local_comm_id is the request ID, service_id,
	 * ip_service, port_space, port and the RDMA CM header as a REQ's;
	 * SIDR_REP: local_comm_id the request ID it answers, local_qpn the UD QP,
	 * local_qkey, service_id) */
	uint8_t sidr_status;      /* 0 the QP is valid, 1 no such service ID, 2 rejected, 3 no QP, 4 redirect, 5 unsupported version */
	/* private data: the whole private-data field, and the consumer's part
	 * of it (after the RDMA CM header in a REQ); frame offsets; the lengths
	 * count the bytes the message defines, not only the captured ones */
	uint32_t private_off, private_len;
	uint32_t user_private_off, user_private_len;
};

struct rt_pkt {
	uint32_t flags;           /* enum rt_decode_flags */
	uint8_t skip;             /* enum rt_skip */
	uint8_t malformed;        /* enum rt_malformed */
	uint8_t icrc_status;      /* enum rt_icrc_status */
	uint8_t icrc_reason;      /* enum rt_icrc_reason when UNVERIFIED */
	uint32_t caplen, wirelen; /* as given */
	uint16_t linktype;

	/* link layer */
	uint8_t eth_dst[6], eth_src[6];
	uint8_t nvlans;
	uint16_t vlan_tpid[2], vlan_tci[2]; /* outer first; VID = tci & 0xFFF, PCP = tci >> 13 */
	uint16_t ethertype;       /* after the tags */
	uint16_t sll_pkttype;     /* Linux cooked: packet type (0 host, 4 outgoing ...) */
	uint32_t sll_ifindex;     /* SLL2 only */

	/* IP */
	uint8_t ip_version;       /* 4 or 6, 0 when none */
	uint32_t ip_off;          /* frame offset of the IP header */
	uint32_t ip_hdr_len;      /* IPv4 header with options, or IPv6 + extension headers */
	uint8_t tos;              /* IPv4 TOS / IPv6 traffic class: DSCP << 2 | ECN */
	uint8_t ttl;              /* TTL / hop limit */
	uint16_t ip_id;
	bool ip_df, ip_mf;
	uint16_t ip_frag_off;     /* in bytes */
	uint32_t flow_label;      /* IPv6 */
	uint32_t ip_len;          /* IPv4 total length; IPv6 40 + payload length */
	uint8_t ip_proto;         /* IPv4 protocol / IPv6 upper-layer next header */
	uint8_t src[16], dst[16]; /* IPv4 addresses in the first 4 bytes */

	/* UDP */
	uint32_t udp_off;
	uint16_t sport, dport, udp_len, udp_csum;

	/* InfiniBand transport */
	uint32_t bth_off;
	struct rt_bth bth;
	const struct rt_opcode_info *op; /* NULL for an unknown opcode */
	uint16_t hdrs;            /* enum rt_hdr_flags: extended headers decoded */
	struct rt_reth reth;
	struct rt_aeth aeth;
	struct rt_atomiceth atomic;
	uint64_t atomic_ack_orig; /* AtomicAckETH: original remote data */
	uint32_t immdt;           /* ImmDt as a big-endian number */
	uint32_t ieth_rkey;
	struct rt_deth deth;
	uint32_t feth;            /* FETH word: placement type in bits 3..0, selectivity 5..4 */
	uint32_t payload_off;     /* first payload byte */
	uint32_t payload_len;     /* from the UDP length: excludes pad and ICRC */
	uint32_t icrc_wire;       /* the ICRC as stored (rt_icrc_load) */
	uint32_t icrc_calc;       /* what it should be, when computed */

	/* MAD header (RT_PKT_MAD) */
	uint8_t mad_base_version, mad_class, mad_class_version, mad_method;
	uint16_t mad_status;
	uint64_t mad_tid;
	uint32_t mad_attr_mod;

	struct rt_cm cm;          /* RT_PKT_CM only */
};

/* Decode the frame [data, data + caplen) of link type linktype; wirelen is the
 * original length (caplen < wirelen means cut by the snap length).  Always
 * fills *pkt; returns 1 for a RoCE packet (RT_PKT_BTH), 0 for any other frame
 * (pkt->skip says why), -EINVAL for bad arguments. */
int rt_decode(const struct rt_decode_opts *opts, uint16_t linktype, const uint8_t *data,
	      uint32_t caplen, uint32_t wirelen, struct rt_pkt *pkt);

/* Decode the CM MAD at [mad, end) (RT_MAD_LEN bytes when complete) into cm;
 * frame_off is the MAD's offset in the frame (for the private-data offsets).
 * Returns 0, or -EINVAL when the bytes do not reach the attribute ID. */
int rt_decode_cm(const uint8_t *mad, const uint8_t *end, uint32_t frame_off, struct rt_cm *cm);

/* Names for the enums above ("truncated by snap length", ...). */
const char *rt_icrc_status_name(unsigned status);
const char *rt_icrc_reason_name(unsigned reason);
const char *rt_skip_name(unsigned skip);
const char *rt_malformed_name(unsigned malformed);
const char *rt_linktype_name(unsigned linktype);
/* RDMA CM port space name ("TCP", "UDP", "IB", "IPoIB") or NULL. */
const char *rt_port_space_name(unsigned ps);
/* CM REJ reason text ("invalid service ID", ...) or "reason N" style NULL. */
const char *rt_cm_reject_reason_name(unsigned reason);

#endif

/*
 * IB CM MADs (IBTA vol. 1 ch. 12) as the kernel's ib_cm puts them on QP1,
 * plus the RDMA CM header (struct cma_hdr) at the start of REQ and SIDR_REQ
 * private data.  Pure encode/decode between host-order structures and the
 * 256-byte big-endian wire form, so the codec can be unit tested and reused
 * by anything that reads captures.  roce-wire.md section 9 is the reference.
 */
#ifndef UROCE_CM_MAD_H
#define UROCE_CM_MAD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "rdmatrace/roce_wire.h"

/* Message attribute IDs, the class and the sizes come from roce_wire.h
 * (RT_CM_REQ ..., RT_MAD_CLASS_CM, RT_MAD_LEN, RT_CMA_HDR_LEN). */
#define UROCE_MAD_HDR_SIZE 24
#define UROCE_CM_CLASS_VERSION 2
#define UROCE_MAD_METHOD_SEND 0x03

/* Private data sizes of each message (bytes). */
#define UROCE_CM_REQ_PD 92
#define UROCE_CM_REP_PD 196
#define UROCE_CM_RTU_PD 224
#define UROCE_CM_MRA_PD 222
#define UROCE_CM_REJ_PD 148
#define UROCE_CM_REJ_ARI 72
#define UROCE_CM_DREQ_PD 220
#define UROCE_CM_DREP_PD 224
#define UROCE_CM_SIDR_REQ_PD 216
#define UROCE_CM_SIDR_REP_PD 136

/* REJ reasons (ib_cm.h) used here. */
enum uroce_cm_rej_reason {
	UROCE_REJ_NO_QP = 1,
	UROCE_REJ_NO_RESOURCES = 3,
	UROCE_REJ_TIMEOUT = 4,
	UROCE_REJ_INVALID_SERVICE_ID = 8,
	UROCE_REJ_STALE_CONN = 10,
	UROCE_REJ_INVALID_MTU = 26,
	UROCE_REJ_CONSUMER_DEFINED = 28,
	UROCE_REJ_INVALID_CLASS_VERSION = 31,
};

/* SIDR_REP status. */
enum uroce_sidr_status {
	UROCE_SIDR_SUCCESS = 0,
	UROCE_SIDR_UNSUPPORTED = 1,
	UROCE_SIDR_REJECT = 2,
	UROCE_SIDR_NO_QP = 3,
};

struct uroce_cm_req {
	uint32_t local_comm_id;
	uint64_t service_id;
	uint64_t local_ca_guid;
	uint32_t local_qkey;
	uint32_t local_qpn;
	uint8_t responder_resources;
	uint8_t initiator_depth;
	uint8_t remote_cm_response_timeout; /* 5 bits */
	uint8_t transport_type;             /* 0 RC, 1 UC, 3 XRC */
	uint8_t flow_control;
	uint32_t starting_psn;
	uint8_t local_cm_response_timeout;  /* 5 bits */
	uint8_t retry_count;                /* 3 bits */
	uint16_t pkey;
	uint8_t path_mtu;                   /* IB enum 1..5 */
	uint8_t rdc_exists;
	uint8_t rnr_retry_count;            /* 3 bits */
	uint8_t max_cm_retries;             /* 4 bits */
	uint8_t srq;
	uint8_t ext_transport;
	uint16_t local_lid;
	uint16_t remote_lid;
	uint8_t local_gid[16];
	uint8_t remote_gid[16];
	uint32_t flow_label;                /* 20 bits */
	uint8_t packet_rate;
	uint8_t traffic_class;
	uint8_t hop_limit;
	uint8_t sl;
	uint8_t subnet_local;
	uint8_t local_ack_timeout;          /* 5 bits */
	uint8_t private_data[UROCE_CM_REQ_PD];
};

struct uroce_cm_rep {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint32_t local_qkey;
	uint32_t local_qpn;
	uint32_t starting_psn;
	uint8_t responder_resources;
	uint8_t initiator_depth;
	uint8_t target_ack_delay;           /* 5 bits */
	uint8_t failover_accepted;          /* 2 bits */
	uint8_t flow_control;
	uint8_t rnr_retry_count;            /* 3 bits */
	uint8_t srq;
	uint64_t local_ca_guid;
	uint8_t private_data[UROCE_CM_REP_PD];
};

struct uroce_cm_rej {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t msg_rejected;               /* 0 REQ, 1 REP, 2 other */
	uint8_t ari_length;
	uint16_t reason;
	uint8_t ari[UROCE_CM_REJ_ARI];
	uint8_t private_data[UROCE_CM_REJ_PD];
};

struct uroce_cm_mra {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint8_t msg_mraed;                  /* 0 REQ, 1 REP, 2 LAP */
	uint8_t service_timeout;            /* 5 bits */
	uint8_t private_data[UROCE_CM_MRA_PD];
};

/* RTU, DREQ and DREP: two comm ids, DREQ adds the remote QPN. */
struct uroce_cm_simple {
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint32_t remote_qpn;                /* DREQ only */
	uint8_t private_data[UROCE_CM_RTU_PD];
};

struct uroce_cm_sidr_req {
	uint32_t request_id;
	uint16_t pkey;
	uint64_t service_id;
	uint8_t private_data[UROCE_CM_SIDR_REQ_PD];
};

struct uroce_cm_sidr_rep {
	uint32_t request_id;
	uint8_t status;
	uint8_t info_length;
	uint32_t qpn;
	uint64_t service_id;
	uint32_t qkey;
	uint8_t private_data[UROCE_CM_SIDR_REP_PD];
};

struct uroce_cm_msg {
	uint16_t attr_id;                   /* enum rt_cm_attr */
	uint64_t tid;
	union {
		struct uroce_cm_req req;
		struct uroce_cm_rep rep;
		struct uroce_cm_rej rej;
		struct uroce_cm_mra mra;
		struct uroce_cm_simple rtu;
		struct uroce_cm_simple dreq;
		struct uroce_cm_simple drep;
		struct uroce_cm_sidr_req sidr_req;
		struct uroce_cm_sidr_rep sidr_rep;
	} u;
};

/* The RDMA CM header: addresses and the active side's port. */
struct uroce_cma_hdr {
	uint8_t cma_version;                /* 0 */
	uint8_t ip_version;                 /* 4 or 6 */
	uint16_t src_port;                  /* host order */
	struct sockaddr_storage src;        /* port field = src_port */
	struct sockaddr_storage dst;        /* port field = 0 (the Service ID carries it) */
};

/* Encode msg into out[RT_MAD_LEN].  Returns 0 or -EINVAL (unknown attribute). */
int uroce_cm_encode(const struct uroce_cm_msg *msg, uint8_t *out);

/* Decode a MAD.  Returns 0, -EPROTO for a MAD that is not a CM Send (wrong
 * base/class/version/method: the caller may answer with REJ 31 for a wrong
 * class version), -EMSGSIZE for a short buffer, -ENOENT for an unknown
 * attribute. */
int uroce_cm_decode(const uint8_t *mad, size_t len, struct uroce_cm_msg *msg);

/* cma_hdr <-> the first 36 bytes of private data.  Encode takes the two
 * addresses (same family) of the active and passive side.  Decode returns
 * -EPROTO for an unknown version. */
int uroce_cma_hdr_encode(const struct sockaddr *src, const struct sockaddr *dst, uint8_t *pd);
int uroce_cma_hdr_decode(const uint8_t *pd, size_t len, struct uroce_cma_hdr *hdr);

/* Service ID of an IP port space and port, and back. */
uint64_t uroce_cm_service_id(uint16_t port_space, uint16_t port);
void uroce_cm_service_split(uint64_t sid, uint16_t *port_space, uint16_t *port);

/* RoCEv2 GID of an IP address (IPv4-mapped for IPv4) and back. */
void uroce_gid_from_sockaddr(const struct sockaddr *sa, uint8_t gid[16]);
int uroce_sockaddr_from_gid(const uint8_t gid[16], uint16_t port, struct sockaddr_storage *out);

#endif

/*
 * IB CM messages carried in MADs on QP1 (IBTA vol. 1 ch. 12; layouts in
 * ../shared/docs/roce-wire.md section 9): REQ, REP, RTU, REJ, MRA, DREQ,
 * DREP, SIDR_REQ and SIDR_REP (12.11), plus the RDMA CM IP header that
 * starts a REQ's or a SIDR_REQ's private data.  The
 * captured part of the MAD is copied into a zeroed 256-byte buffer, so a
 * MAD cut by the snap length decodes what it has and reads zeros after.
 */
#include <errno.h>
#include <string.h>

#include "cursor.h"
#include "rdmatrace/roce_decode.h"

#define MAD_HDR 24

static void set_private(struct rt_cm *cm, uint32_t frame_off, unsigned body_off, unsigned len)
{
	cm->private_off = frame_off + MAD_HDR + body_off;
	cm->private_len = len;
	cm->user_private_off = cm->private_off;
	cm->user_private_len = len;
}

static void decode_cma_hdr(const uint8_t *pd, struct rt_cm *cm)
{
	unsigned ipv = pd[1] >> 4;
	if (pd[0] != 0 || (ipv != 4 && ipv != 6))
		return;
	cm->has_cma_hdr = true;
	cm->cma_version = pd[0];
	cm->cma_ip_version = (uint8_t)ipv;
	cm->cma_src_port = rt_get_be16(pd + 2);
	memcpy(cm->cma_src_ip, pd + 4, 16);
	memcpy(cm->cma_dst_ip, pd + 20, 16);
	cm->user_private_off += RT_CMA_HDR_LEN;
	cm->user_private_len = cm->private_len - RT_CMA_HDR_LEN; /* REQ: 56 bytes, SIDR_REQ: 180 */
}

/* A service ID; an RDMA CM one names its port space and port. */
static void decode_service(uint64_t service_id, struct rt_cm *cm)
{
	cm->service_id = service_id;
	cm->ip_service = (service_id & 0xFFFFFFFFFF000000ull) == RT_CM_SERVICE_ID_IP_PREFIX;
	if (cm->ip_service) {
		cm->port_space = (uint16_t)(service_id >> 16);
		cm->port = (uint16_t)service_id;
	}
}

/* SIDR_REQ: request ID, P_Key, service ID, 216 bytes of private data. */
static void decode_sidr_req(const uint8_t *b, struct rt_cm *cm, uint32_t frame_off)
{
	cm->local_comm_id = rt_get_be32(b);
	cm->pkey = rt_get_be16(b + 4);
	decode_service(rt_get_be64(b + 8), cm);
	set_private(cm, frame_off, 16, 216);
	if (cm->ip_service)
		decode_cma_hdr(b + 16, cm);
}

/* SIDR_REP: request ID, status, the UD QP and its Q_Key, service ID,
 * additional information (72 bytes), 136 bytes of private data. */
static void decode_sidr_rep(const uint8_t *b, struct rt_cm *cm, uint32_t frame_off)
{
	cm->local_comm_id = rt_get_be32(b);
	cm->sidr_status = b[4];
	cm->local_qpn = rt_get_be24(b + 8);
	decode_service(rt_get_be64(b + 12), cm);
	cm->local_qkey = rt_get_be32(b + 20);
	set_private(cm, frame_off, 96, 136);
}

static void decode_req(const uint8_t *b, struct rt_cm *cm, uint32_t frame_off)
{
	cm->local_comm_id = rt_get_be32(b);
	decode_service(rt_get_be64(b + 8), cm);
	cm->local_ca_guid = rt_get_be64(b + 16);
	cm->local_qkey = rt_get_be32(b + 28);
	cm->local_qpn = rt_get_be24(b + 32);
	cm->responder_resources = b[35];
	cm->initiator_depth = b[39];
	cm->remote_cm_timeout = b[43] >> 3;
	cm->transport_type = (b[43] >> 1) & 3;
	cm->e2e_flow_control = b[43] & 1;
	cm->starting_psn = rt_get_be24(b + 44);
	cm->local_cm_timeout = b[47] >> 3;
	cm->retry_count = b[47] & 7;
	cm->pkey = rt_get_be16(b + 48);
	cm->path_mtu = b[50] >> 4;
	cm->rdc_exists = (b[50] >> 3) & 1;
	cm->rnr_retry_count = b[50] & 7;
	cm->max_cm_retries = b[51] >> 4;
	cm->srq = (b[51] >> 3) & 1;
	cm->ext_transport = b[51] & 7;
	cm->prim_local_lid = rt_get_be16(b + 52);
	cm->prim_remote_lid = rt_get_be16(b + 54);
	memcpy(cm->prim_local_gid, b + 56, 16);
	memcpy(cm->prim_remote_gid, b + 72, 16);
	uint32_t w = rt_get_be32(b + 88);
	cm->prim_flow_label = w >> 12;
	cm->prim_packet_rate = w & 0x3F;
	cm->prim_traffic_class = b[92];
	cm->prim_hop_limit = b[93];
	cm->prim_sl = b[94] >> 4;
	cm->prim_subnet_local = (b[94] >> 3) & 1;
	cm->prim_local_ack_timeout = b[95] >> 3;
	set_private(cm, frame_off, 140, 92);
	if (cm->ip_service)
		decode_cma_hdr(b + 140, cm);
}

static void decode_rep(const uint8_t *b, struct rt_cm *cm, uint32_t frame_off)
{
	cm->local_comm_id = rt_get_be32(b);
	cm->remote_comm_id = rt_get_be32(b + 4);
	cm->local_qkey = rt_get_be32(b + 8);
	cm->local_qpn = rt_get_be24(b + 12);
	cm->starting_psn = rt_get_be24(b + 20);
	cm->responder_resources = b[24];
	cm->initiator_depth = b[25];
	cm->target_ack_delay = b[26] >> 3;
	cm->failover_accepted = (b[26] >> 1) & 3;
	cm->e2e_flow_control = b[26] & 1;
	cm->rnr_retry_count = b[27] >> 5;
	cm->srq = (b[27] >> 4) & 1;
	cm->local_ca_guid = rt_get_be64(b + 28);
	set_private(cm, frame_off, 36, 196);
}

int rt_decode_cm(const uint8_t *mad, const uint8_t *end, uint32_t frame_off, struct rt_cm *cm)
{
	if (!mad || !end || !cm || end < mad)
		return -EINVAL;
	memset(cm, 0, sizeof(*cm));
	size_t have = (size_t)(end - mad);
	if (have < 20)
		return -EINVAL;
	uint8_t buf[RT_MAD_LEN];
	memset(buf, 0, sizeof(buf));
	memcpy(buf, mad, have < sizeof(buf) ? have : sizeof(buf));
	cm->attr_id = rt_get_be16(buf + 16);
	const uint8_t *b = buf + MAD_HDR;

	switch (cm->attr_id) {
	case RT_CM_REQ:
		decode_req(b, cm, frame_off);
		break;
	case RT_CM_REP:
		decode_rep(b, cm, frame_off);
		break;
	case RT_CM_RTU:
	case RT_CM_DREP:
		cm->local_comm_id = rt_get_be32(b);
		cm->remote_comm_id = rt_get_be32(b + 4);
		set_private(cm, frame_off, 8, 224);
		break;
	case RT_CM_MRA:
		cm->local_comm_id = rt_get_be32(b);
		cm->remote_comm_id = rt_get_be32(b + 4);
		cm->msg_mraed = b[8] >> 6;
		cm->service_timeout = b[9] >> 3;
		set_private(cm, frame_off, 10, 222);
		break;
	case RT_CM_REJ:
		cm->local_comm_id = rt_get_be32(b);
		cm->remote_comm_id = rt_get_be32(b + 4);
		cm->msg_rejected = b[8] >> 6;
		cm->reject_info_len = b[9] >> 1;
		cm->reason = rt_get_be16(b + 10);
		set_private(cm, frame_off, 84, 148);
		break;
	case RT_CM_DREQ:
		cm->local_comm_id = rt_get_be32(b);
		cm->remote_comm_id = rt_get_be32(b + 4);
		cm->remote_qpn = rt_get_be24(b + 8);
		set_private(cm, frame_off, 12, 220);
		break;
	case RT_CM_SIDR_REQ:
		decode_sidr_req(b, cm, frame_off);
		break;
	case RT_CM_SIDR_REP:
		decode_sidr_rep(b, cm, frame_off);
		break;
	default:
		/* LAP, APR and vendor attributes: the header only. */
		cm->local_comm_id = rt_get_be32(b);
		break;
	}
	return 0;
}

const char *rt_port_space_name(unsigned ps)
{
	switch (ps) {
	case RT_RDMA_PS_TCP: return "TCP";
	case RT_RDMA_PS_UDP: return "UDP";
	case RT_RDMA_PS_IB: return "IB";
	case RT_RDMA_PS_IPOIB: return "IPoIB";
	default: return NULL;
	}
}

const char *rt_cm_reject_reason_name(unsigned reason)
{
	switch (reason) {
	case 1: return "no QP";
	case 2: return "no EEC";
	case 3: return "no resources";
	case 4: return "timeout";
	case 5: return "unsupported request";
	case 6: return "invalid comm ID";
	case 7: return "invalid comm instance";
	case 8: return "invalid service ID";
	case 9: return "invalid transport type";
	case 10: return "stale connection";
	case 11: return "RDC not exist";
	case 12: return "invalid GID";
	case 13: return "invalid LID";
	case 14: return "invalid SL";
	case 15: return "invalid traffic class";
	case 16: return "invalid hop limit";
	case 17: return "invalid packet rate";
	case 18: return "invalid alternate GID";
	case 19: return "invalid alternate LID";
	case 20: return "invalid alternate SL";
	case 21: return "invalid alternate traffic class";
	case 22: return "invalid alternate hop limit";
	case 23: return "invalid alternate packet rate";
	case 24: return "port CM redirect";
	case 25: return "port redirect";
	case 26: return "invalid MTU";
	case 27: return "insufficient responder resources";
	case 28: return "consumer defined";
	case 29: return "invalid RNR retry";
	case 30: return "duplicate local comm ID";
	case 31: return "invalid class version";
	case 32: return "invalid flow label";
	case 33: return "invalid alternate flow label";
	default: return NULL;
	}
}

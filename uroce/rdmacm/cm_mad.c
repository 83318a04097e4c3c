/*
 * Encode and decode IB CM MADs and the RDMA CM header (see cm_mad.h).  Every
 * field sits at the fixed offset of IBTA vol. 1 tables 106-120 (bit fields in
 * the high bits of the named byte, as ibta_vol1_c12.h packs them); the
 * decoder reads only after checking that the whole 256-byte MAD is present.
 */
#include "cm_mad.h"

#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#define B (UROCE_MAD_HDR_SIZE) /* CM body offset inside the MAD */

static void encode_req(const struct uroce_cm_req *r, uint8_t *b)
{
	rt_put_be32(b + 0, r->local_comm_id);
	rt_put_be64(b + 8, r->service_id);
	rt_put_be64(b + 16, r->local_ca_guid);
	rt_put_be32(b + 28, r->local_qkey);
	rt_put_be24(b + 32, r->local_qpn);
	b[35] = r->responder_resources;
	b[39] = r->initiator_depth;
	b[43] = (uint8_t)((r->remote_cm_response_timeout & 0x1f) << 3 | (r->transport_type & 3) << 1 |
			  (r->flow_control & 1));
	rt_put_be24(b + 44, r->starting_psn);
	b[47] = (uint8_t)((r->local_cm_response_timeout & 0x1f) << 3 | (r->retry_count & 7));
	rt_put_be16(b + 48, r->pkey);
	b[50] = (uint8_t)((r->path_mtu & 0xf) << 4 | (r->rdc_exists & 1) << 3 | (r->rnr_retry_count & 7));
	b[51] = (uint8_t)((r->max_cm_retries & 0xf) << 4 | (r->srq & 1) << 3 | (r->ext_transport & 7));
	rt_put_be16(b + 52, r->local_lid);
	rt_put_be16(b + 54, r->remote_lid);
	memcpy(b + 56, r->local_gid, 16);
	memcpy(b + 72, r->remote_gid, 16);
	rt_put_be32(b + 88, (r->flow_label & 0xfffff) << 12 | (r->packet_rate & 0x3f));
	b[92] = r->traffic_class;
	b[93] = r->hop_limit;
	b[94] = (uint8_t)((r->sl & 0xf) << 4 | (r->subnet_local & 1) << 3);
	b[95] = (uint8_t)((r->local_ack_timeout & 0x1f) << 3);
	memcpy(b + 140, r->private_data, UROCE_CM_REQ_PD);
}

static void decode_req(const uint8_t *b, struct uroce_cm_req *r)
{
	r->local_comm_id = rt_get_be32(b);
	r->service_id = rt_get_be64(b + 8);
	r->local_ca_guid = rt_get_be64(b + 16);
	r->local_qkey = rt_get_be32(b + 28);
	r->local_qpn = rt_get_be24(b + 32);
	r->responder_resources = b[35];
	r->initiator_depth = b[39];
	r->remote_cm_response_timeout = b[43] >> 3;
	r->transport_type = (b[43] >> 1) & 3;
	r->flow_control = b[43] & 1;
	r->starting_psn = rt_get_be24(b + 44);
	r->local_cm_response_timeout = b[47] >> 3;
	r->retry_count = b[47] & 7;
	r->pkey = rt_get_be16(b + 48);
	r->path_mtu = b[50] >> 4;
	r->rdc_exists = (b[50] >> 3) & 1;
	r->rnr_retry_count = b[50] & 7;
	r->max_cm_retries = b[51] >> 4;
	r->srq = (b[51] >> 3) & 1;
	r->ext_transport = b[51] & 7;
	r->local_lid = rt_get_be16(b + 52);
	r->remote_lid = rt_get_be16(b + 54);
	memcpy(r->local_gid, b + 56, 16);
	memcpy(r->remote_gid, b + 72, 16);
	r->flow_label = rt_get_be32(b + 88) >> 12;
	r->packet_rate = b[91] & 0x3f;
	r->traffic_class = b[92];
	r->hop_limit = b[93];
	r->sl = b[94] >> 4;
	r->subnet_local = (b[94] >> 3) & 1;
	r->local_ack_timeout = b[95] >> 3;
	memcpy(r->private_data, b + 140, UROCE_CM_REQ_PD);
}

static void encode_rep(const struct uroce_cm_rep *r, uint8_t *b)
{
	rt_put_be32(b + 0, r->local_comm_id);
	rt_put_be32(b + 4, r->remote_comm_id);
	rt_put_be32(b + 8, r->local_qkey);
	rt_put_be24(b + 12, r->local_qpn);
	rt_put_be24(b + 20, r->starting_psn);
	b[24] = r->responder_resources;
	b[25] = r->initiator_depth;
	b[26] = (uint8_t)((r->target_ack_delay & 0x1f) << 3 | (r->failover_accepted & 3) << 1 |
			  (r->flow_control & 1));
	b[27] = (uint8_t)((r->rnr_retry_count & 7) << 5 | (r->srq & 1) << 4);
	rt_put_be64(b + 28, r->local_ca_guid);
	memcpy(b + 36, r->private_data, UROCE_CM_REP_PD);
}

static void decode_rep(const uint8_t *b, struct uroce_cm_rep *r)
{
	r->local_comm_id = rt_get_be32(b);
	r->remote_comm_id = rt_get_be32(b + 4);
	r->local_qkey = rt_get_be32(b + 8);
	r->local_qpn = rt_get_be24(b + 12);
	r->starting_psn = rt_get_be24(b + 20);
	r->responder_resources = b[24];
	r->initiator_depth = b[25];
	r->target_ack_delay = b[26] >> 3;
	r->failover_accepted = (b[26] >> 1) & 3;
	r->flow_control = b[26] & 1;
	r->rnr_retry_count = b[27] >> 5;
	r->srq = (b[27] >> 4) & 1;
	r->local_ca_guid = rt_get_be64(b + 28);
	memcpy(r->private_data, b + 36, UROCE_CM_REP_PD);
}

int uroce_cm_encode(const struct uroce_cm_msg *msg, uint8_t *out)
{
	uint8_t *b = out + B;

	memset(out, 0, RT_MAD_LEN);
	out[0] = 1; /* base version */
	out[1] = RT_MAD_CLASS_CM;
	out[2] = UROCE_CM_CLASS_VERSION;
	out[3] = UROCE_MAD_METHOD_SEND;
	rt_put_be64(out + 8, msg->tid);
	rt_put_be16(out + 16, msg->attr_id);
	switch (msg->attr_id) {
	case RT_CM_REQ:
		encode_req(&msg->u.req, b);
		break;
	case RT_CM_REP:
		encode_rep(&msg->u.rep, b);
		break;
	case RT_CM_REJ:
		rt_put_be32(b, msg->u.rej.local_comm_id);
		rt_put_be32(b + 4, msg->u.rej.remote_comm_id);
		b[8] = (uint8_t)((msg->u.rej.msg_rejected & 3) << 6);
		b[9] = (uint8_t)((msg->u.rej.ari_length & 0x7f) << 1);
		rt_put_be16(b + 10, msg->u.rej.reason);
		memcpy(b + 12, msg->u.rej.ari, UROCE_CM_REJ_ARI);
		memcpy(b + 84, msg->u.rej.private_data, UROCE_CM_REJ_PD);
		break;
	case RT_CM_MRA:
		rt_put_be32(b, msg->u.mra.local_comm_id);
		rt_put_be32(b + 4, msg->u.mra.remote_comm_id);
		b[8] = (uint8_t)((msg->u.mra.msg_mraed & 3) << 6);
		b[9] = (uint8_t)((msg->u.mra.service_timeout & 0x1f) << 3);
		memcpy(b + 10, msg->u.mra.private_data, UROCE_CM_MRA_PD);
		break;
	case RT_CM_RTU:
	case RT_CM_DREP:
		rt_put_be32(b, msg->u.rtu.local_comm_id);
		rt_put_be32(b + 4, msg->u.rtu.remote_comm_id);
		memcpy(b + 8, msg->u.rtu.private_data, UROCE_CM_RTU_PD);
		break;
	case RT_CM_DREQ:
		rt_put_be32(b, msg->u.dreq.local_comm_id);
		rt_put_be32(b + 4, msg->u.dreq.remote_comm_id);
		rt_put_be24(b + 8, msg->u.dreq.remote_qpn);
		memcpy(b + 12, msg->u.dreq.private_data, UROCE_CM_DREQ_PD);
		break;
	case RT_CM_SIDR_REQ:
		rt_put_be32(b, msg->u.sidr_req.request_id);
		rt_put_be16(b + 4, msg->u.sidr_req.pkey);
		rt_put_be64(b + 8, msg->u.sidr_req.service_id);
		memcpy(b + 16, msg->u.sidr_req.private_data, UROCE_CM_SIDR_REQ_PD);
		break;
	case RT_CM_SIDR_REP:
		rt_put_be32(b, msg->u.sidr_rep.request_id);
		b[4] = msg->u.sidr_rep.status;
		b[5] = msg->u.sidr_rep.info_length;
		rt_put_be24(b + 8, msg->u.sidr_rep.qpn);
		rt_put_be64(b + 12, msg->u.sidr_rep.service_id);
		rt_put_be32(b + 20, msg->u.sidr_rep.qkey);
		memcpy(b + 96, msg->u.sidr_rep.private_data, UROCE_CM_SIDR_REP_PD);
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

int uroce_cm_decode(const uint8_t *mad, size_t len, struct uroce_cm_msg *msg)
{
	const uint8_t *b = mad + B;

	if (len < RT_MAD_LEN)
		return -EMSGSIZE;
	if (mad[0] != 1 || mad[1] != RT_MAD_CLASS_CM || mad[2] != UROCE_CM_CLASS_VERSION ||
	    mad[3] != UROCE_MAD_METHOD_SEND)
		return -EPROTO;
	memset(msg, 0, sizeof(*msg));
	msg->tid = rt_get_be64(mad + 8);
	msg->attr_id = rt_get_be16(mad + 16);
	switch (msg->attr_id) {
	case RT_CM_REQ:
		decode_req(b, &msg->u.req);
		break;
	case RT_CM_REP:
		decode_rep(b, &msg->u.rep);
		break;
	case RT_CM_REJ:
		msg->u.rej.local_comm_id = rt_get_be32(b);
		msg->u.rej.remote_comm_id = rt_get_be32(b + 4);
		msg->u.rej.msg_rejected = b[8] >> 6;
		msg->u.rej.ari_length = b[9] >> 1;
		msg->u.rej.reason = rt_get_be16(b + 10);
		memcpy(msg->u.rej.ari, b + 12, UROCE_CM_REJ_ARI);
		memcpy(msg->u.rej.private_data, b + 84, UROCE_CM_REJ_PD);
		break;
	case RT_CM_MRA:
		msg->u.mra.local_comm_id = rt_get_be32(b);
		msg->u.mra.remote_comm_id = rt_get_be32(b + 4);
		msg->u.mra.msg_mraed = b[8] >> 6;
		msg->u.mra.service_timeout = b[9] >> 3;
		memcpy(msg->u.mra.private_data, b + 10, UROCE_CM_MRA_PD);
		break;
	case RT_CM_RTU:
	case RT_CM_DREP:
		msg->u.rtu.local_comm_id = rt_get_be32(b);
		msg->u.rtu.remote_comm_id = rt_get_be32(b + 4);
		memcpy(msg->u.rtu.private_data, b + 8, UROCE_CM_RTU_PD);
		break;
	case RT_CM_DREQ:
		msg->u.dreq.local_comm_id = rt_get_be32(b);
		msg->u.dreq.remote_comm_id = rt_get_be32(b + 4);
		msg->u.dreq.remote_qpn = rt_get_be24(b + 8);
		memcpy(msg->u.dreq.private_data, b + 12, UROCE_CM_DREQ_PD);
		break;
	case RT_CM_SIDR_REQ:
		msg->u.sidr_req.request_id = rt_get_be32(b);
		msg->u.sidr_req.pkey = rt_get_be16(b + 4);
		msg->u.sidr_req.service_id = rt_get_be64(b + 8);
		memcpy(msg->u.sidr_req.private_data, b + 16, UROCE_CM_SIDR_REQ_PD);
		break;
	case RT_CM_SIDR_REP:
		msg->u.sidr_rep.request_id = rt_get_be32(b);
		msg->u.sidr_rep.status = b[4];
		msg->u.sidr_rep.info_length = b[5];
		msg->u.sidr_rep.qpn = rt_get_be24(b + 8);
		msg->u.sidr_rep.service_id = rt_get_be64(b + 12);
		msg->u.sidr_rep.qkey = rt_get_be32(b + 20);
		memcpy(msg->u.sidr_rep.private_data, b + 96, UROCE_CM_SIDR_REP_PD);
		break;
	default:
		return -ENOENT;
	}
	return 0;
}

static void put_ip(const struct sockaddr *sa, uint8_t *p)
{
	memset(p, 0, 16);
	if (sa->sa_family == AF_INET)
		memcpy(p + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	else
		memcpy(p, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
}

static void get_ip(const uint8_t *p, int v6, uint16_t port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (v6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		memcpy(&s6->sin6_addr, p, 16);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		memcpy(&s4->sin_addr, p + 12, 4);
	}
}

static uint16_t sa_port(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)sa)->sin_port);
	return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
}

int uroce_cma_hdr_encode(const struct sockaddr *src, const struct sockaddr *dst, uint8_t *pd)
{
	if ((src->sa_family != AF_INET && src->sa_family != AF_INET6) || src->sa_family != dst->sa_family)
		return -EAFNOSUPPORT;
	pd[0] = 0;
	pd[1] = src->sa_family == AF_INET ? 0x40 : 0x60;
	rt_put_be16(pd + 2, sa_port(src));
	put_ip(src, pd + 4);
	put_ip(dst, pd + 20);
	return 0;
}

int uroce_cma_hdr_decode(const uint8_t *pd, size_t len, struct uroce_cma_hdr *hdr)
{
	int v6;

	if (len < RT_CMA_HDR_LEN)
		return -EMSGSIZE;
	if (pd[0] != 0 || ((pd[1] >> 4) != 4 && (pd[1] >> 4) != 6))
		return -EPROTO;
	hdr->cma_version = pd[0];
	hdr->ip_version = pd[1] >> 4;
	hdr->src_port = rt_get_be16(pd + 2);
	v6 = hdr->ip_version == 6;
	get_ip(pd + 4, v6, hdr->src_port, &hdr->src);
	get_ip(pd + 20, v6, 0, &hdr->dst);
	return 0;
}

uint64_t uroce_cm_service_id(uint16_t port_space, uint16_t port)
{
	return RT_CM_SERVICE_ID_IP_PREFIX | (uint64_t)port_space << 16 | port;
}

void uroce_cm_service_split(uint64_t sid, uint16_t *port_space, uint16_t *port)
{
	*port_space = (uint16_t)(sid >> 16);
	*port = (uint16_t)sid;
}

void uroce_gid_from_sockaddr(const struct sockaddr *sa, uint8_t gid[16])
{
	memset(gid, 0, 16);
	if (sa->sa_family == AF_INET) {
		gid[10] = 0xff;
		gid[11] = 0xff;
		memcpy(gid + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	} else if (sa->sa_family == AF_INET6) {
		memcpy(gid, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
	}
}

int uroce_sockaddr_from_gid(const uint8_t gid[16], uint16_t port, struct sockaddr_storage *out)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	if (memcmp(gid, mapped, 12) == 0) {
		uint8_t tmp[16] = { 0 };
		memcpy(tmp + 12, gid + 12, 4);
		get_ip(tmp, 0, port, out);
	} else {
		get_ip(gid, 1, port, out);
	}
	return 0;
}

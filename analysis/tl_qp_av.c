/*
 * What is wrong with a QP's address vector, from the probe's RT_EV_QP_AV
 * record (the modify's ah_attr and what the port it names has): the words
 * of a refused ibv_modify_qp to RTR (tl_detect.c: call_failed) and of the
 * qp_setup finding of one that was accepted but cannot work (a path MTU
 * above the port's: the link drops the packets, and the WRs never reach the
 * wire).  RoCE v2 sends from the source GID's IP address to the destination
 * GID's, in packets of the path MTU, so the GID index, the GIDs' IP
 * versions and the MTUs are what a hand-made connection gets wrong.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "tl_internal.h"

static bool gid_zero(const uint8_t gid[16])
{
	for (int i = 0; i < 16; i++)
		if (gid[i])
			return false;
	return true;
}

static const char *port_state_name(unsigned s)
{
	static const char *const names[] = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"};
	return s < sizeof(names) / sizeof(names[0]) ? names[s] : "unknown";
}

bool tl_qp_av_mtu_too_big(const struct rt_ev_qp_av *av, unsigned path_mtu)
{
	return av->active_mtu && path_mtu && path_mtu > av->active_mtu;
}

size_t tl_qp_av_problem(const struct rt_ev_qp_av *av, unsigned path_mtu, bool refused, char *buf, size_t len)
{
	struct tl_textbuf o = {.p = buf, .n = 0, .cap = len};
	if (!len)
		return 0;
	buf[0] = 0;
	char sgid[64], dgid[64];
	tl_gid_text(av->sgid, sgid, sizeof(sgid));
	tl_gid_text(av->dgid, dgid, sizeof(dgid));
	bool queried = av->port_state != 0; /* the probe could ask the device */
	if (refused && queried && av->port_state != 4 && av->port_state != 5) {
		tl_textf(&o, "port %u is %s, not ACTIVE (its link is down or not configured)", av->port_num,
			 port_state_name(av->port_state));
	} else if (refused && queried && av->is_global && !av->sgid_known) {
		tl_textf(&o, "GID index %u is past the end of port %u's GID table (the device refused to give it; the "
			     "port's GIDs: ibv_devinfo -v, or /sys/class/infiniband/DEVICE/ports/PORT/gids)",
			 av->sgid_index, av->port_num);
	} else if (refused && av->is_global && av->sgid_known && gid_zero(av->sgid)) {
		tl_textf(&o, "port %u has no address at GID index %u (an empty entry of its GID table: the interface "
			     "has no IP address of that kind; the port's GIDs: ibv_devinfo -v, or "
			     "/sys/class/infiniband/DEVICE/ports/PORT/gids)",
			 av->port_num, av->sgid_index);
	} else if (refused && av->is_global && gid_zero(av->dgid)) {
		tl_textf(&o, "its destination GID (grh.dgid) is all zeros: the peer's GID never reached it (the "
			     "exchange of addresses before the connection)");
	} else if (av->is_global && av->sgid_known && !gid_zero(av->sgid) && !gid_zero(av->dgid) &&
		   tl_ip_v4_mapped(av->sgid) != tl_ip_v4_mapped(av->dgid)) {
		bool v4 = tl_ip_v4_mapped(av->sgid);
		tl_textf(&o, "its source GID (index %u of port %u: %s) is an %s address and its destination GID (%s) an "
			     "%s one: RoCE v2 sends from the source GID's IP address to the destination's, so both "
			     "must be of one IP version; use the index of the port's %s GID (ibv_rc_pingpong -g, "
			     "perftest -x; the port's GIDs: ibv_devinfo -v, or show_gids)",
			 av->sgid_index, av->port_num, sgid, v4 ? "IPv4" : "IPv6", dgid, v4 ? "IPv6" : "IPv4",
			 v4 ? "IPv6" : "IPv4");
	} else if (tl_qp_av_mtu_too_big(av, path_mtu)) {
		tl_textf(&o, "its path MTU %u is above port %u's active MTU %u, the largest payload the link carries "
			     "(the port's MTU follows the interface's: 1024 for the usual 1500-byte Ethernet MTU); set "
			     "path_mtu to the port's active_mtu (ibv_query_port) or lower, as RDMA CM does",
			 rt_mtu_bytes(path_mtu), av->port_num, rt_mtu_bytes(av->active_mtu));
	}
	return o.n;
}

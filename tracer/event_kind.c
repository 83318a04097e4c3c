/* Names of event kinds, shared by every printer of events. */
#include "rdmatrace/event.h"

static const char *const kind_names[RT_EV_KIND_COUNT] = {
	[RT_EV_NONE] = "none",
	[RT_EV_WR_POST] = "wr_post",
	[RT_EV_COMPLETION] = "completion",
	[RT_EV_PACKET] = "packet",
	[RT_EV_RETRY] = "retry",
	[RT_EV_RNR] = "rnr",
	[RT_EV_QP_STATE] = "qp_state",
	[RT_EV_CM_EVENT] = "cm_event",
	[RT_EV_CM_ADDR6] = "cm_addr6",
	[RT_EV_MR] = "mr",
	[RT_EV_ASYNC] = "async",
	[RT_EV_COUNTER] = "counter",
	[RT_EV_MARKER] = "marker",
	[RT_EV_LOST] = "lost",
	[RT_EV_CLOCK_SYNC] = "clock_sync",
	[RT_EV_QP_CREATE] = "qp_create",
	[RT_EV_CQ_CREATE] = "cq_create",
	[RT_EV_DEVICE] = "device",
	[RT_EV_TIMER] = "timer",
	[RT_EV_WARNING] = "warning",
	[RT_EV_PD] = "pd",
	[RT_EV_SRQ_CREATE] = "srq_create",
	[RT_EV_CQ_NOTIFY] = "cq_notify",
	[RT_EV_DEVICE_CAPS] = "device_caps",
	[RT_EV_PROCESS_END] = "process_end",
	[RT_EV_VERBS_CALL] = "verbs_call",
	[RT_EV_QP_AV] = "qp_av",
};

const char *rt_event_kind_name(unsigned kind)
{
	if (kind < RT_EV_KIND_COUNT && kind_names[kind])
		return kind_names[kind];
	return "unknown";
}

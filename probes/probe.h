/*
 * Internal interface of the LD_PRELOAD probe (librdmatrace-probe.so).
 *
 * The probe is split into layers so each can be tested on its own:
 *   real.c       finds the real libibverbs/librdmacm functions (dlsym RTLD_NEXT)
 *   objmap.c     lock-free pointer -> record tables for contexts, QPs, CQs ...
 *   psn.c        PSN prediction for send work requests
 *   hooks.c      the ops-table hooks (post_send, post_recv, poll_cq ...) and
 *                the bookkeeping every wrapper shares (track_*, emit_*)
 *   hooks_ex.c   extended QPs (ibv_wr_*) and extended CQs (start/next_poll)
 *   verbs_wrap.c the exported ibv_* wrappers
 *   cm_wrap.c    the exported rdma_* wrappers
 *   dv_wrap.c    direct-verbs (mlx5dv) detection
 *   counters.c   the sysfs counter sampler thread
 *   init.c       start-up, the re-entrancy guard, fork
 * docs/probes.md describes the behaviour users see.
 */
#ifndef RDMATRACE_PROBE_H
#define RDMATRACE_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "rdmatrace/event.h"
#include "rdmatrace/tracer.h"

/* ---- init.c: activation and the re-entrancy guard ---- */

/* Non-zero once tracing started; wrappers pass straight through otherwise. */
extern int rt_probe_active;

/*
 * Set while the probe itself is running on this thread (its own bookkeeping,
 * calls it makes into libibverbs, the sampler thread): wrappers and hooks
 * called in that window pass straight through and record nothing.
 */
extern __thread int rt_probe_busy __attribute__((tls_model("initial-exec")));

/* Starts the tracer once (from the environment); true when tracing is on. */
bool rt_probe_ensure_started(void);

/* True when a wrapper should record: tracing on and not nested in the probe. */
static inline bool rt_probe_enter(void)
{
	if (!rt_probe_active || rt_probe_busy)
		return false;
	rt_probe_busy = 1;
	return true;
}

static inline void rt_probe_leave(void)
{
	rt_probe_busy = 0;
}

/* ---- real.c: the real functions ---- */

/* The real definition of NAME after the probe, or NULL; cached by callers. */
void *rt_probe_real(const char *name);

/*
 * For functions the probe does not wrap itself (ibv_query_qp,
 * ibv_qp_to_qp_ex ...): as rt_probe_real, then the global scope.
 */
void *rt_probe_real_any(const char *name);

/* Declares `static T *real_NAME(void)` resolving NAME once, lazily, with
 * resolve (rt_probe_real, or rt_probe_real_any for a function the probe
 * does not wrap). */
#define RT_PROBE_RESOLVED(type, name, resolve)                                 \
	static type *real_##name(void)                                         \
	{                                                                      \
		static type *fn;                                               \
		type *f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);              \
		if (!f) {                                                      \
			f = (type *)resolve(#name);                            \
			__atomic_store_n(&fn, f, __ATOMIC_RELEASE);            \
		}                                                              \
		return f;                                                      \
	}
#define RT_PROBE_REAL(type, name) RT_PROBE_RESOLVED(type, name, rt_probe_real)

/* ---- objmap.c: pointer-keyed tables ---- */

#define RT_OBJMAP_SLOTS 16384u

struct rt_objmap_slot {
	uintptr_t key;          /* 0 = never used, 1 = deleted */
	void *val;
};

struct rt_objmap {
	struct rt_objmap_slot slot[RT_OBJMAP_SLOTS];
	unsigned used;          /* live + deleted, under the writer lock */
};

/* Lock-free lookup; NULL when absent. */
static inline void *rt_objmap_get(const struct rt_objmap *m, const void *key)
{
	uintptr_t k = (uintptr_t)key;
	unsigned i = (unsigned)((k >> 4) ^ (k >> 17)) & (RT_OBJMAP_SLOTS - 1);
	for (unsigned n = 0; n < RT_OBJMAP_SLOTS; n++) {
		uintptr_t sk = __atomic_load_n(&m->slot[i].key, __ATOMIC_ACQUIRE);
		if (sk == k)
			return __atomic_load_n(&m->slot[i].val, __ATOMIC_ACQUIRE);
		if (sk == 0)
			return NULL;
		i = (i + 1) & (RT_OBJMAP_SLOTS - 1);
	}
	return NULL;
}

/* Insert or replace (writers serialise on one lock); -ENOSPC when full. */
int rt_objmap_put(struct rt_objmap *m, const void *key, void *val);
/* Remove and return the value (NULL when absent). */
void *rt_objmap_del(struct rt_objmap *m, const void *key);
/* The writer lock around fork() (see rt_probe_fork_*). */
void rt_objmap_fork_prepare(void);
void rt_objmap_fork_parent(void);
void rt_objmap_fork_child(void);

#include "psn.h"

/* ---- hooks.c: tracked objects ---- */

struct rt_probe_ctx {
	struct ibv_context *ctx;
	uint32_t id;
	struct ibv_context_ops orig;        /* the provider's ops before hooking */
	struct ibv_qp *(*orig_create_qp_ex)(struct ibv_context *, struct ibv_qp_init_attr_ex *);
	struct ibv_cq_ex *(*orig_create_cq_ex)(struct ibv_context *, struct ibv_cq_init_attr_ex *);
	struct ibv_srq *(*orig_create_srq_ex)(struct ibv_context *, struct ibv_srq_init_attr_ex *);
	struct ibv_qp *(*orig_open_qp)(struct ibv_context *, struct ibv_qp_open_attr *);
	struct ibv_xrcd *(*orig_open_xrcd)(struct ibv_context *, struct ibv_xrcd_init_attr *);
	uint64_t node_guid;     /* host order */
	char name[24];
};

/* Per-QP state of an extended QP's batch (wr_start ... wr_complete). */
struct rt_probe_qpx;

struct rt_probe_qp {
	struct ibv_qp *qp;
	struct rt_probe_ctx *ctx;
	uint32_t qpn;
	uint32_t next_psn;      /* next PSN a send WR gets (atomic) */
	uint32_t mtu_bytes;     /* path MTU, 0 until seen */
	uint8_t qp_type;
	uint8_t state;          /* enum ibv_qp_state as last set */
	uint8_t psn_known;      /* next_psn is valid */
	uint8_t sq_sig_all;
	struct rt_probe_qpx *ex; /* extended QP hooks, or NULL */
	/* the provider's data-path functions, copied here so one lookup does */
	int (*post_send)(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **);
	int (*post_recv)(struct ibv_qp *, struct ibv_recv_wr *, struct ibv_recv_wr **);
};

struct rt_probe_cq {
	struct ibv_cq *cq;
	uint32_t id;
	uint8_t extended;
	uint64_t wc_flags;      /* extended CQ: which read_* the provider offers */
	int (*poll_cq)(struct ibv_cq *, int, struct ibv_wc *); /* the provider's */
	/* extended CQ: the provider's functions before hooking */
	int (*orig_start_poll)(struct ibv_cq_ex *, struct ibv_poll_cq_attr *);
	int (*orig_next_poll)(struct ibv_cq_ex *);
};

extern struct rt_objmap rt_probe_qps, rt_probe_cqs, rt_probe_srqs, rt_probe_pds, rt_probe_ctxs;

/* Looks up (or hooks, on first sight) the context; NULL when tracing is off. */
struct rt_probe_ctx *rt_probe_ctx_of(struct ibv_context *ctx);
/* The record of a context already hooked, lock-free; NULL otherwise. */
struct rt_probe_ctx *rt_probe_ctx_find(const struct ibv_context *ctx);
/* pthread_atfork handlers for the probe's locks (context table, object tables). */
void rt_probe_fork_prepare(void);
void rt_probe_fork_parent(void);
void rt_probe_fork_child(void);

/* Forgets a context (its ops are left as they are: the context is going away). */
void rt_probe_ctx_forget(struct ibv_context *ctx);

uint32_t rt_probe_new_id(void);
/* Device ids are numbered apart (1, 2, ...) so counter events can carry them. */
uint32_t rt_probe_new_device_id(void);
uint32_t rt_probe_pd_id(const struct ibv_pd *pd);
uint32_t rt_probe_cq_id(const struct ibv_cq *cq);
uint32_t rt_probe_srq_num(const struct ibv_srq *srq);

struct rt_probe_cq *rt_probe_track_cq(struct ibv_cq *cq, int cqe, int comp_vector,
				      bool has_channel, bool extended, uint64_t wc_flags);
void rt_probe_untrack_cq(struct ibv_cq *cq, int result);
/* A create call failed with err (probes/create_failed.c): the device's
 * limits, then an event of that kind flagged RT_EVF_ERROR with what was
 * asked for and the errno. */
void rt_probe_create_failed_pd(int err);
void rt_probe_create_failed_cq(struct ibv_context *ctx, int cqe, int comp_vector, bool has_channel, bool extended,
			       int err);
void rt_probe_create_failed_qp(struct ibv_context *ctx, const struct ibv_qp_init_attr_ex *a, bool extended, int err);
void rt_probe_create_failed_srq(struct ibv_context *ctx, struct ibv_pd *pd, const struct ibv_srq_attr *a, int err);
/* An errno as the records keep it: one byte, 0 when unknown. */
uint8_t rt_probe_errno_byte(int err);

/* ibv_open_xrcd as the context's verbs_context has it (probes/verbs_calls.c):
 * the provider's (c->orig_open_xrcd), recorded. */
struct ibv_xrcd *rt_probe_hook_open_xrcd(struct ibv_context *ctx, struct ibv_xrcd_init_attr *attr);
struct rt_probe_qp *rt_probe_track_qp(struct ibv_qp *qp, const struct ibv_qp_init_attr_ex *attr,
				      bool extended);
void rt_probe_untrack_qp(struct ibv_qp *qp, int result);
void rt_probe_track_srq(struct ibv_srq *srq, struct ibv_pd *pd, const struct ibv_srq_attr *attr);
void rt_probe_untrack_srq(struct ibv_srq *srq, int result);
void rt_probe_track_pd(struct ibv_pd *pd);
void rt_probe_untrack_pd(struct ibv_pd *pd, int result);

/* Records a modify_qp call and learns PSN/MTU from it (rc: its return value). */
void rt_probe_qp_modified(struct ibv_qp *qp, const struct ibv_qp_attr *attr, int mask, int rc);
/* qp_av.c: the RT_EV_QP_AV record of a modify that carries IBV_QP_AV (none otherwise). */
void rt_probe_qp_av(struct ibv_qp *qp, const struct ibv_qp_attr *attr, int mask);
/* The same for the ah_attr of an ibv_create_ah (header qpn 0), before its call record. */
void rt_probe_ah_av(struct ibv_pd *pd, const struct ibv_ah_attr *attr);

/* Emits one RT_EV_WR_POST for a send WR and advances the QP's PSN. */
void rt_probe_emit_send(struct rt_probe_qp *q, uint32_t qpn, uint64_t wr_id, unsigned opcode,
			unsigned send_flags, uint64_t length, unsigned num_sge,
			uint64_t remote_addr, uint32_t rkey, uint32_t imm);
/* Emits a completion (cq_id from the CQ record). */
void rt_probe_emit_wc(const struct ibv_wc *wc, uint32_t cq_id);

/* ---- hooks_ex.c: extended QPs and CQs ---- */
void rt_probe_hook_qp_ex(struct rt_probe_qp *q);
void rt_probe_unhook_qp_ex(struct rt_probe_qp *q);
void rt_probe_hook_cq_ex(struct rt_probe_cq *c);

/* ---- counters.c ---- */
/* Starts sampling DEV's port counters (first call starts the sampler thread). */
void rt_probe_counters_add_device(const char *dev, uint32_t device_id);
/* Asks for a sample now (after an error completion); lock-free. */
void rt_probe_counters_kick(void);
/* Takes a last sample and stops the thread (at exit). */
void rt_probe_counters_stop(void);
/* In a forked child: forget the parent's sampler thread. */
void rt_probe_counters_after_fork(void);

#endif

/*
 * Why a responder refused an RDMA request's rkey, address or length (NAK
 * remote access error), from the responder's own records: the memory
 * regions its process registered (rkey, range, access flags) and the access
 * flags its QP was given (IBV_QP_ACCESS_FLAGS).  The wire says only that
 * the access was refused; the traces say which of the usual causes it was:
 * an rkey the responder never gave out (a stale or mistyped capability), an
 * MR already deregistered, a range past the MR's end, an MR or a QP without
 * the remote right the operation needs, an MR of another protection domain
 * than the QP's.  An rkey may be a memory window's instead of an MR's: its
 * bind (a BIND_MW WR, or ibv_bind_mw) gives the range and rights, and a
 * LOCAL_INV, a SEND_WITH_INV from the peer or a bind again withdraws it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tl_internal.h"

static const char *right_name(unsigned need)
{
	return need == 4 ? "IBV_ACCESS_REMOTE_READ" : need == 8 ? "IBV_ACCESS_REMOTE_ATOMIC" : "IBV_ACCESS_REMOTE_WRITE";
}

static double ms_between(uint64_t a, uint64_t b)
{
	return (double)(a > b ? a - b : b - a) / 1e6;
}

/* A memory window's bind and what withdrew it, as the responder's records
 * (and its peer's SEND_WITH_INV) tell: mw_track. */
struct mw_seen {
	const struct rt_ev_wr *bind;  /* the last bind of the rkey before the request */
	uint64_t t_bind;
	uint32_t withdrawn_by;        /* the WR that withdrew it since (event), RT_TL_NONE */
	uint64_t t_withdrawn;
	const struct rt_ev_wr *later; /* a bind of the rkey only after the request */
	uint64_t t_later;
	unsigned nbinds;              /* the responder's binds seen */
};

/* Notes memory-window WR i (tl_mw_wr), at time ti, in what *m knows of rkey
 * for a request at t to QP resp_qp of process proc. */
static void mw_track(struct tl_build *b, uint32_t i, uint64_t ti, uint32_t resp_qp, uint16_t proc, uint64_t t,
		     uint32_t rkey, struct mw_seen *m)
{
	const struct tl_evrec *e = tl_ev(b, i);
	const struct rt_ev_wr *w = &e->ev.u.wr;
	if (w->opcode == RT_WR_SEND_WITH_INV) { /* the peer invalidates it at the responder */
		uint32_t q = b->ev_qp[i];
		if (q != RT_TL_NONE && tl_qp(b, q)->peer == resp_qp && w->imm == rkey && m->bind && ti <= t &&
		    m->withdrawn_by == RT_TL_NONE) {
			m->withdrawn_by = i;
			m->t_withdrawn = ti;
		}
		return;
	}
	if (e->proc != proc)
		return;
	if (w->opcode == RT_WR_BIND_MW) {
		m->nbinds++;
		if (ti > t) {
			if (w->rkey == rkey && !m->later) {
				m->later = w;
				m->t_later = ti;
			}
		} else if (w->rkey == rkey) {
			m->bind = w;
			m->t_bind = ti;
			m->withdrawn_by = RT_TL_NONE;
		} else if (m->bind && (w->rkey >> 8) == (rkey >> 8) && m->withdrawn_by == RT_TL_NONE) {
			m->withdrawn_by = i; /* the same window bound again: a new key byte */
			m->t_withdrawn = ti;
		}
		return;
	}
	/* LOCAL_INV: the rkey it invalidates (imm in traces from before the rkey held it) */
	if (ti <= t && (w->rkey == rkey || (!w->rkey && w->imm == rkey)) && m->bind && m->withdrawn_by == RT_TL_NONE) {
		m->withdrawn_by = i;
		m->t_withdrawn = ti;
	}
}

/* "rkey 0x10d (0x5602f3756a90, 4096 bytes)" of memory window bind w. */
static void mw_words(const struct rt_ev_wr *w, struct tl_textbuf *o)
{
	tl_textf(o, "rkey 0x%x (0x%" PRIx64 ", %u bytes)", w->rkey, w->remote_addr, w->length);
}

/* Why the memory window *m knows refused the request (its words into o), or
 * nothing when its rkey is no window's or the window allows it. */
static void mw_refusal(struct tl_build *b, const struct mw_seen *m, uint64_t t, unsigned need, uint64_t va,
		       uint32_t rkey, uint32_t len, const char *who, const char *host, struct tl_textbuf *o)
{
	const struct rt_ev_wr *w = m->bind;
	if (w && m->withdrawn_by != RT_TL_NONE) {
		const struct tl_evrec *x = tl_ev(b, m->withdrawn_by);
		tl_textf(o, "the memory window with ");
		mw_words(w, o);
		tl_textf(o, " that %s on %s bound had been withdrawn %.3f ms before: ", who, host, ms_between(t, m->t_withdrawn));
		if (x->ev.u.wr.opcode == RT_WR_SEND_WITH_INV)
			tl_textf(o, "the requester's side invalidated it with a SEND_WITH_INV");
		else if (x->ev.u.wr.opcode == RT_WR_LOCAL_INV)
			tl_textf(o, "%s invalidated it (LOCAL_INV)", who);
		else
			tl_textf(o, "%s bound the window again, under rkey 0x%x", who, x->ev.u.wr.rkey);
		tl_textf(o, ", so the requester used a capability the responder had withdrawn");
		return;
	}
	if (w) {
		/* (IBV_ACCESS_ZERO_BASED, 1 << 5: addresses count from the window's start) */
		uint64_t base = (w->imm & (1u << 5)) ? 0 : w->remote_addr;
		if (va < base || va - base > w->length || len > w->length - (va - base)) {
			tl_textf(o, "address 0x%" PRIx64 " and length %u reach outside the memory window with ", va, len);
			mw_words(w, o);
			tl_textf(o, " that %s on %s bound (%.3f ms before), which ends at 0x%" PRIx64
				    ": a window's rkey reaches only the range its bind gave, not its whole MR",
				 who, host, ms_between(t, m->t_bind), base + w->length);
		} else if (!(w->imm & need)) {
			tl_textf(o, "the memory window with ");
			mw_words(w, o);
			tl_textf(o, " on %s was bound without %s (its access flags: 0x%x), which the operation needs",
				 host, right_name(need), w->imm);
		}
		return;
	}
	if (m->later) {
		tl_textf(o, "the memory window with rkey 0x%x on %s was bound only %.3f ms after the request: the "
			    "requester used it before the responder had it ready", rkey, host, ms_between(m->t_later, t));
	}
}

/* When the responder's QP Q was given access flags (IBV_QP_ACCESS_FLAGS:
 * qp_access, -1 not recorded) without the right need, which its MR or
 * memory window (what; again: how the sentence names it a second time)
 * allows: that, into o. */
static void qp_right_words(const struct rt_tl_qp *Q, const char *host, int qp_access, unsigned need, const char *what,
			   const char *again, struct tl_textbuf *o)
{
	if (qp_access < 0 || (qp_access & (int)need))
		return;
	tl_textf(o, "the %s allows it, but the responder's QP 0x%06x on %s was given qp_access_flags 0x%x "
		    "(IBV_QP_ACCESS_FLAGS) without %s: a QP refuses the remote operations its own access flags do not "
		    "allow, whatever the %s allows",
		 what, Q->qpn, host, qp_access, right_name(need), again);
}

/* "rkey 0x10d (0x5602f3756a90, 4096 bytes)" of MR event m. */
static void mr_words(const struct rt_ev_mr *m, struct tl_textbuf *o)
{
	tl_textf(o, "rkey 0x%x (0x%" PRIx64 ", %" PRIu64 " bytes)", m->rkey, m->iova ? m->iova : m->addr, m->length);
}

size_t tl_access_refusal(struct tl_build *b, uint32_t resp_qp, uint64_t t, unsigned need, uint64_t va, uint32_t rkey,
			 uint32_t len, char *buf, size_t n)
{
	struct tl_textbuf o = {.p = buf, .n = 0, .cap = n};
	if (!n)
		return 0;
	buf[0] = 0;
	if (resp_qp >= b->qps.n || tl_qp(b, resp_qp)->proc >= b->procs.n)
		return 0; /* the responder is not traced */
	const struct rt_tl_qp *Q = tl_qp(b, resp_qp);
	const struct rt_tl_proc *P = TL_AT(&b->procs, struct rt_tl_proc, Q->proc);
	for (size_t j = 0; j < b->ends.n; j++) {
		uint32_t i = *TL_AT(&b->ends, uint32_t, j);
		if (tl_ev(b, i)->proc == Q->proc && tl_item_time(b, i) <= t)
			return 0; /* the responder's process had ended: the kernel took its MRs (process_ended says so) */
	}
	const char *host = (const char *)b->strs.p + tl_host(b, P->host)->name;
	const struct rt_ev_mr *live = NULL, *gone = NULL, *later = NULL;
	uint64_t t_gone = 0, t_later = 0;
	unsigned nlive = 0, nmrs = 0;
	int qp_access = -1;
	int64_t qp_pd[2] = {-1, -1}; /* the QP's PD as the probe and as an engine (uroce) numbered it */
	bool live_engine = false;
	const struct rt_ev_mr *alive[64]; /* the process's MRs live at t (the first 64) */
	bool alive_engine[64];            /* ... each recorded by an engine, not the probe */
	struct mw_seen mw = {.withdrawn_by = RT_TL_NONE};
	for (size_t j = 0; j < b->rights.n; j++) {
		uint32_t i = *TL_AT(&b->rights, uint32_t, j);
		const struct tl_evrec *e = tl_ev(b, i);
		if (tl_mw_wr(&e->ev) && !b->ev_shadow[i]) {
			mw_track(b, i, tl_item_time(b, i), resp_qp, Q->proc, t, rkey, &mw);
			continue;
		}
		if (e->proc != Q->proc || b->ev_shadow[i])
			continue;
		uint64_t ti = tl_item_time(b, i);
		if (e->ev.kind == RT_EV_QP_STATE) {
			if (b->ev_qp[i] == resp_qp && ti <= t)
				qp_access = e->ev.u.qp_state.access_flags;
			continue;
		}
		if (e->ev.kind == RT_EV_QP_CREATE) {
			if (b->ev_qp[i] == resp_qp && ti <= t)
				qp_pd[!!(e->ev.flags & RT_EVF_ENGINE)] = e->ev.u.qp_create.pd_id;
			continue;
		}
		const struct rt_ev_mr *m = &e->ev.u.mr;
		nmrs++;
		bool destroy = e->ev.flags & RT_EVF_DESTROY;
		if (ti > t) {
			if (!destroy && m->rkey == rkey && !later) {
				later = m;
				t_later = ti;
			}
			continue;
		}
		if (!destroy) {
			if (nlive < 64) {
				alive_engine[nlive] = e->ev.flags & RT_EVF_ENGINE;
				alive[nlive++] = m;
			}
			continue;
		}
		/* a deregistration: that MR is no longer live */
		for (unsigned k = 0; k < nlive; k++)
			if (alive[k]->rkey == m->rkey) {
				if (m->rkey == rkey) {
					gone = alive[k];
					t_gone = ti;
				}
				alive[k] = alive[--nlive];
				alive_engine[k] = alive_engine[nlive];
				break;
			}
	}
	if (mw.bind || mw.later) { /* the rkey is a memory window's */
		char who[160];
		snprintf(who, sizeof(who), "%s (pid %d)", (const char *)b->strs.p + P->program, P->pid);
		mw_refusal(b, &mw, t, need, va, rkey, len, who, host, &o);
		if (o.n || mw.withdrawn_by != RT_TL_NONE || !mw.bind)
			return o.n;
		/* the window allows it: what the QP allows is left to tell */
		qp_right_words(Q, host, qp_access, need, "memory window", "window", &o);
		return o.n;
	}
	if (!nmrs)
		return 0; /* no MR records: nothing to compare with */
	for (unsigned k = 0; k < nlive; k++)
		if (alive[k]->rkey == rkey) {
			live = alive[k];
			live_engine = alive_engine[k];
		}
	int64_t pd = qp_pd[live_engine]; /* PD numbers compare only within one recorder's */
	if (live) {
		uint64_t base = live->iova ? live->iova : live->addr;
		if (va < base || va - base > live->length || len > live->length - (va - base)) {
			tl_textf(&o, "address 0x%" PRIx64 " and length %u reach outside the MR with ", va, len);
			mr_words(live, &o);
			tl_textf(&o, " that %s (pid %d) on %s registered, which ends at 0x%" PRIx64
				 ": the requester's address or length is wrong for that region",
				 (const char *)b->strs.p + P->program, P->pid, host, base + live->length);
		} else if (!(live->access & need)) {
			tl_textf(&o, "the MR with ");
			mr_words(live, &o);
			tl_textf(&o, " on %s was registered without %s (its access flags: 0x%x), which the operation needs",
				 host, right_name(need), live->access);
		} else if (pd > 0 && live->pd_id && live->pd_id != (uint32_t)pd) {
			tl_textf(&o, "the MR with ");
			mr_words(live, &o);
			tl_textf(&o, " on %s is in protection domain %u and the responder's QP 0x%06x in PD %u: an rkey is "
				     "valid only on QPs of its MR's PD",
				 host, live->pd_id, Q->qpn, (unsigned)pd);
		} else {
			qp_right_words(Q, host, qp_access, need, "MR", "MR", &o);
		}
		return o.n;
	}
	if (gone) {
		tl_textf(&o, "the MR with ");
		mr_words(gone, &o);
		tl_textf(&o, " that %s (pid %d) on %s registered had been deregistered %.3f ms before (ibv_dereg_mr): the "
			     "requester used a capability the responder had withdrawn",
			 (const char *)b->strs.p + P->program, P->pid, host, ms_between(t, t_gone));
		return o.n;
	}
	if (later) {
		tl_textf(&o, "the MR with rkey 0x%x on %s was registered only %.3f ms after the request: the requester "
			     "used it before the responder had it ready",
			 rkey, host, ms_between(t_later, t));
		return o.n;
	}
	tl_textf(&o, "no MR that %s (pid %d) on %s registered has rkey 0x%x%s", (const char *)b->strs.p + P->program,
		 P->pid, host, rkey, mw.nbinds ? ", nor any memory window it bound" : "");
	unsigned ns = nlive < 3 ? nlive : 3; /* the first few live MRs, named */
	if (ns) {
		tl_textf(&o, " (its MR%s then: ", nlive == 1 ? "" : "s");
		for (unsigned k = 0; k < ns; k++) {
			tl_textf(&o, "%s", k ? ", " : "");
			mr_words(alive[k], &o);
		}
		if (nlive > ns)
			tl_textf(&o, " and %u more", nlive - ns);
		tl_textf(&o, ")");
	}
	tl_textf(&o, ": the rkey is not one the responder gave out (a stale, mistyped or foreign capability: the "
		     "{addr, rkey} the peer sent, as ibv_reg_mr returned it, is what a WRITE or READ must use)");
	return o.n;
}

/*
 * The viewer source over the correlation's timeline (rdmatrace/timeline.h):
 * rows, summaries, details and links come straight from the memory-mapped
 * timeline, so opening a run costs no parsing.  Also the opener for every
 * input `rdmatrace view` accepts (run directory, timeline file, trace file,
 * capture), and live refresh of a run directory being recorded.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rdmatrace/capfile.h"
#include "rdmatrace/timeline.h"
#include "rdmatrace/trace_format.h"
#include "rdmatrace/trace_print.h"
#include "memsrc.h"
#include "open.h"

struct tlsrc {
	struct rt_timeline *tl;
	struct vw_source *src;
	char rundir[4096];      /* live refresh rebuilds from here ("" for files) */
	uint64_t inputs_sig;    /* sizes and mtimes of the run's inputs at the last build */
	int rebuild_failed;
};

/* Sizes and mtimes of RUNDIR's inputs folded into one number: a cheap way
 * to notice that a run being recorded has grown. */
static uint64_t inputs_signature(const char *rundir)
{
	static const char *const subdirs[] = { "traces", "." };
	uint64_t sig = 1469598103934665603ull;
	char path[4096 + 300];

	for (size_t d = 0; d < 2; d++) {
		DIR *dir;
		struct dirent *de;
		snprintf(path, sizeof(path), "%s/%s", rundir, subdirs[d]);
		dir = opendir(path);
		if (!dir)
			continue;
		while ((de = readdir(dir))) {
			struct stat st;
			const char *dot = strrchr(de->d_name, '.');
			if (!dot || (strcmp(dot, ".rtr") && !rt_capfile_name_is_capture(de->d_name)) ||
			    !strcmp(de->d_name, "annotated.pcapng"))
				continue;
			snprintf(path, sizeof(path), "%s/%s/%s", rundir, subdirs[d], de->d_name);
			if (stat(path, &st) < 0)
				continue;
			sig = (sig ^ (uint64_t)st.st_size) * 1099511628211ull;
			sig = (sig ^ (uint64_t)st.st_mtim.tv_sec) * 1099511628211ull;
			sig = (sig ^ (uint64_t)st.st_mtim.tv_nsec) * 1099511628211ull;
			for (const char *p = de->d_name; *p; p++)
				sig = (sig ^ (uint8_t)*p) * 1099511628211ull;
		}
		closedir(dir);
	}
	return sig;
}

static size_t tl_count(void *ctx)
{
	struct tlsrc *t = ctx;

	return rt_tl_row_count(t->tl);
}

static uint16_t map_flags(const struct rt_tl_row *r)
{
	uint16_t f = 0;

	/* an RNR NAK is flow control, not an error: it has its own jumps and colour */
	if ((r->flags & (RT_TLF_ERROR | RT_TLF_BAD_ICRC | RT_TLF_DAMAGED)) && !(r->flags & RT_TLF_RNR))
		f |= VW_F_ERROR;
	if (r->flags & RT_TLF_RETRANS)
		f |= VW_F_RETRANS;
	if (r->flags & RT_TLF_RNR)
		f |= VW_F_RNR;
	if ((r->flags & RT_TLF_NAK) && !(r->flags & RT_TLF_RNR))
		f |= VW_F_NAK;
	if (r->flags & RT_TLF_CONTROL)
		f |= VW_F_CTRL;
	if (r->flags & (RT_TLF_ACK | RT_TLF_NAK | RT_TLF_RNR))
		f |= VW_F_ACK;
	if (r->flags & RT_TLF_FINDING)
		f |= VW_F_FINDING;
	if (r->kind == RT_EV_CM_EVENT || r->kind == RT_TLK_CM_PACKET)
		f |= VW_F_CM | VW_F_CTRL;
	if (r->kind == RT_EV_PACKET || r->kind == RT_TLK_PACKET || r->kind == RT_TLK_CM_PACKET)
		f |= VW_F_PACKET;
	if (r->kind == RT_TLK_FINDING)
		f |= VW_F_FINDING;
	return f;
}

/* One timeline row as a viewer row. */
static void conv(const struct rt_timeline *tl, size_t i, const struct rt_tl_row *r, struct vw_row *out)
{
	const struct rt_event *ev;

	out->ns = r->t_ns;
	out->qpn = r->qpn;
	out->peer_qpn = r->peer_qpn;
	out->frame = r->frame;
	out->flags = map_flags(r);
	out->dir = r->dir == RT_TLD_TX ? VW_DIR_TX : r->dir == RT_TLD_RX ? VW_DIR_RX : VW_DIR_NONE;
	out->host = r->host;
	out->proc = r->proc < rt_tl_proc_count(tl) ? r->proc : VW_PROC_NONE;
	out->op_space = VW_OPS_NONE;
	out->opcode = 0;
	if (r->dir == RT_TLD_WIRE || r->kind == RT_TLK_PACKET || r->kind == RT_TLK_CM_PACKET)
		out->host = VW_HOST_WIRE;
	else if (r->kind == RT_TLK_FINDING)
		out->host = VW_HOST_NONE;
	switch (r->kind) {
	case RT_TLK_PACKET:
		out->kind = VW_KIND_WIRE;
		out->op_space = VW_OPS_BTH;
		out->opcode = r->sub;
		break;
	case RT_TLK_CM_PACKET:
		out->kind = VW_KIND_WIRE;
		break;
	case RT_TLK_FINDING:
		out->kind = VW_KIND_FINDING;
		break;
	case RT_EV_WR_POST:
		out->kind = r->kind;
		if (!(r->flags & RT_TLF_RECV)) {
			out->op_space = VW_OPS_WR;
			out->opcode = r->sub;
		}
		break;
	case RT_EV_COMPLETION:
		out->kind = r->kind;
		ev = rt_tl_event(tl, i);
		if (ev) {
			out->op_space = VW_OPS_WC;
			out->opcode = ev->u.wc.opcode;
		}
		break;
	case RT_EV_PACKET:
		out->kind = r->kind;
		ev = rt_tl_event(tl, i);
		if (ev) {
			out->op_space = VW_OPS_BTH;
			out->opcode = ev->u.pkt.opcode;
			if (ev->u.pkt.flags & RT_PKTF_DROPPED)
				out->flags |= VW_F_DROPPED;
		}
		break;
	default:
		out->kind = r->kind < VW_KIND_WIRE ? r->kind : 0;
		break;
	}
}

static int tl_rowfn(void *ctx, size_t i, struct vw_row *out)
{
	struct tlsrc *t = ctx;
	const struct rt_tl_row *r = rt_tl_row(t->tl, i);

	if (!r)
		return -ERANGE;
	conv(t->tl, i, r, out);
	return 0;
}

/* Rows are one contiguous array: walk it directly. */
static void tl_summarize(void *ctx, size_t first, size_t n, struct vw_chunk *out)
{
	struct tlsrc *t = ctx;
	const struct rt_tl_row *r = rt_tl_row(t->tl, first);
	struct vw_row v;

	if (!r || !n || rt_tl_row(t->tl, first + n - 1) != r + (n - 1))
		return;
	for (size_t k = 0; k < n; k++) {
		conv(t->tl, first + k, &r[k], &v);
		vw_chunk_add(out, &v);
	}
}

/* The correlation's match index: jumps by binary search. */
static long tl_next_flagged(void *ctx, size_t from, int dir, uint16_t flags)
{
	struct tlsrc *t = ctx;
	unsigned mask = 0;
	ssize_t f, r;

	if (flags & ~(VW_F_ERROR | VW_F_NAK | VW_F_RETRANS | VW_F_RNR | VW_F_CM | VW_F_CTRL))
		return -2;
	if (flags & VW_F_CTRL)
		mask |= RT_TLM_CONTROL;
	if (flags & VW_F_ERROR)
		mask |= RT_TLM_ERROR;
	if (flags & VW_F_NAK)
		mask |= RT_TLM_NAK;
	if (flags & VW_F_RETRANS)
		mask |= RT_TLM_RETRANS;
	if (flags & VW_F_RNR)
		mask |= RT_TLM_RNR;
	if (flags & VW_F_CM)
		mask |= RT_TLM_CM;
	if (from == (size_t)-1)
		f = dir > 0 ? -1 : (ssize_t)rt_tl_row_count(t->tl);
	else
		f = (ssize_t)from;
	r = rt_tl_next_match(t->tl, f, mask, dir);
	return r < 0 ? -1 : (long)r;
}

/* Drop `word` and one blank from the start of buf when it is there. */
static void strip_word(char *buf, const char *word)
{
	size_t n = strlen(word);

	if (n && !strncmp(buf, word, n) && buf[n] == ' ')
		memmove(buf, buf + n + 1, strlen(buf + n + 1) + 1);
}

/* The correlation's summary, without what the host, QP and kind columns
 * already show (80 columns are precious). */
static void tl_summary(void *ctx, size_t i, char *buf, size_t len)
{
	struct tlsrc *t = ctx;
	const struct rt_tl_row *r = rt_tl_row(t->tl, i);
	char qp[24];

	if (!len)
		return;
	buf[0] = 0;
	rt_tl_format_summary(t->tl, i, buf, len);
	if (!r)
		return;
	if (r->kind < 64) {
		if (r->host < rt_tl_host_count(t->tl))
			strip_word(buf, rt_tl_str(t->tl, rt_tl_host(t->tl, r->host)->name));
		strip_word(buf, rt_tl_kind_name(r->kind));
		strip_word(buf, "tx");
		strip_word(buf, "rx");
		snprintf(qp, sizeof(qp), "qp=0x%06x", r->qpn);
		strip_word(buf, qp);
	}
}

static void tl_detail(void *ctx, size_t i, char *buf, size_t len)
{
	struct tlsrc *t = ctx;

	if (len)
		buf[0] = 0;
	rt_tl_format_detail(t->tl, i, buf, len);
}

static uint8_t link_kind(uint32_t type)
{
	switch (type) {
	case RT_TLL_WR:
	case RT_TLL_RECV_WR:
		return VW_LINK_WR;
	case RT_TLL_PACKET:
	case RT_TLL_RETRANS:
	case RT_TLL_ORIGINAL:
	case RT_TLL_REQUEST:
	case RT_TLL_CONSUMER:
		return VW_LINK_PACKET;
	case RT_TLL_ACK:
	case RT_TLL_NAK:
	case RT_TLL_RNR:
		return VW_LINK_ACK;
	case RT_TLL_COMPLETION:
		return VW_LINK_COMPLETION;
	case RT_TLL_EVENT:
	case RT_TLL_CM_PEER:
		return VW_LINK_PEER;
	default:
		return VW_LINK_OTHER;
	}
}

static size_t tl_links(void *ctx, size_t i, struct vw_link *out, size_t max)
{
	struct tlsrc *t = ctx;
	const struct rt_tl_link *l = NULL;
	size_t n = rt_tl_links(t->tl, i, &l), k;

	if (n > max)
		n = max;
	for (k = 0; k < n; k++) {
		out[k].row = l[k].row;
		out[k].kind = link_kind(l[k].type);
		out[k].name = rt_tl_link_type_name(l[k].type);
	}
	return n;
}

/* Hosts, QPs, findings and notes copied into the vw_source. */
static int fill_tables(struct tlsrc *t, struct vw_source *s)
{
	struct rt_timeline *tl = t->tl;
	size_t i, nh = rt_tl_host_count(tl), nq = rt_tl_qp_count(tl), nf = rt_tl_finding_count(tl);
	size_t o = 0;

	size_t np = rt_tl_proc_count(tl);

	free(s->hosts);
	free(s->qps);
	free(s->findings);
	free(s->procs);
	s->procs = calloc(np + 1, sizeof(*s->procs));
	s->nprocs = 0;
	s->hosts = calloc(nh + 1, sizeof(*s->hosts));
	s->qps = calloc(nq + 1, sizeof(*s->qps));
	s->findings = calloc(nf + 1, sizeof(*s->findings));
	s->nhosts = s->nqps = s->nfindings = 0;
	if (!s->hosts || !s->qps || !s->findings || !s->procs)
		return -ENOMEM;
	for (i = 0; i < np; i++) {
		const struct rt_tl_proc *pr = rt_tl_proc(tl, i);
		const char *hn = pr->host < nh ? rt_tl_str(tl, rt_tl_host(tl, pr->host)->name) : "?";
		snprintf(s->procs[i].name, sizeof(s->procs[i].name), "%.40s:%.32s[%d]", hn, rt_tl_str(tl, pr->program),
			 pr->pid);
		snprintf(s->procs[i].label, sizeof(s->procs[i].label), "%.12s:%d", hn, pr->pid);
		s->procs[i].host = pr->host;
	}
	s->nprocs = np;
	for (i = 0; i < nh; i++) {
		const struct rt_tl_host *h = rt_tl_host(tl, i);
		snprintf(s->hosts[i].name, sizeof(s->hosts[i].name), "%s", rt_tl_str(tl, h->name));
		s->hosts[i].capture = (h->flags & RT_TLH_CAPTURE) != 0;
	}
	s->nhosts = nh;
	for (i = 0; i < nq; i++) {
		const struct rt_tl_qp *q = rt_tl_qp(tl, i);
		struct vw_qp *v = &s->qps[i];
		v->host = q->host == UINT16_MAX ? VW_HOST_WIRE : q->host;
		v->qpn = q->qpn;
		v->peer_qpn = q->peer_qpn;
		v->wrs = q->wrs_send + q->wrs_recv;
		v->completions = q->completions;
		v->errors = q->error_completions;
		v->packets = q->packets_tx;
		v->bytes = q->bytes_tx;
		v->retrans = q->retransmitted;
		v->rnr = q->rnr_naks;
		v->naks = q->naks;
		v->first_ns = q->first_ns;
		v->last_ns = q->last_ns;
		snprintf(v->state, sizeof(v->state), "%s", q->flags & RT_TLQ_ERROR ? "ERR" : "ok");
	}
	s->nqps = nq;
	for (i = 0; i < nf; i++) {
		const struct rt_tl_finding *f = rt_tl_finding(tl, i);
		struct vw_finding *v = &s->findings[i];
		const struct rt_tl_link *l = NULL;
		size_t nl, k;
		snprintf(v->title, sizeof(v->title), "F%u %s: %s", f->id, rt_tl_finding_kind_name(f->kind),
			 rt_tl_str(tl, f->text));
		snprintf(v->text, sizeof(v->text), "%s\n\n%s", rt_tl_str(tl, f->text), rt_tl_str(tl, f->evidence));
		if (f->time_lost_ns)
			snprintf(v->text + strlen(v->text), sizeof(v->text) - strlen(v->text),
				 "\n\ntime lost: %.3f ms", (double)f->time_lost_ns / 1e6);
		v->severity = (uint8_t)(f->severity > 2 ? 2 : f->severity);
		nl = f->row != RT_TL_NONE ? rt_tl_links(tl, f->row, &l) : 0;
		for (k = 0; k < nl && v->nrows < sizeof(v->rows) / sizeof(v->rows[0]); k++)
			if (l[k].type == RT_TLL_FINDING)
				v->rows[v->nrows++] = l[k].row;
		if (!v->nrows && f->row != RT_TL_NONE)
			v->rows[v->nrows++] = f->row;
	}
	s->nfindings = nf;
	/* relative times start at the first real event (findings without a
	 * time of their own may sit at 0) */
	s->t0 = 0;
	for (int any = 0; any < 2 && !s->t0; any++) /* a run of findings alone: the first timed one */
		for (i = 0; i < rt_tl_row_count(tl) && i < 4096; i++) {
			const struct rt_tl_row *r = rt_tl_row(tl, i);
			if (r->t_ns && (any || r->kind != RT_TLK_FINDING)) {
				s->t0 = r->t_ns;
				break;
			}
		}
	s->messages[0] = 0;
	for (i = 0; i < rt_tl_note_count(tl) && o < sizeof(s->messages) - 1; i++)
		o += (size_t)snprintf(s->messages + o, sizeof(s->messages) - o, "%s\n", rt_tl_note(tl, i));
	if (!s->capture[0] || access(s->capture, R_OK) != 0)
		snprintf(s->capture, sizeof(s->capture), "%s", rt_tl_capture_path(tl) ? rt_tl_capture_path(tl) : "");
	return 0;
}

static long tl_refresh(void *ctx)
{
	struct tlsrc *t = ctx;
	struct rt_timeline *ntl = NULL;
	char err[256];
	size_t before, after;

	uint64_t sig;

	if (!t->rundir[0])
		return 0;
	/* the signature is taken before the rebuild, so inputs that change
	 * while it runs make the next call rebuild again (the timeline's own
	 * mtime check cannot see that) */
	sig = inputs_signature(t->rundir);
	if (sig == t->inputs_sig)
		return 0;
	t->inputs_sig = sig;
	if (rt_timeline_correlate(t->rundir, &ntl, err, sizeof(err)) < 0 || !ntl) {
		if (!t->rebuild_failed)
			snprintf(t->src->messages, sizeof(t->src->messages), "live refresh failed: %s\n", err);
		t->rebuild_failed = 1;
		return 0;
	}
	t->rebuild_failed = 0;
	before = rt_tl_row_count(t->tl);
	rt_timeline_free(t->tl);
	t->tl = ntl;
	if (fill_tables(t, t->src) < 0)
		return -ENOMEM;
	after = rt_tl_row_count(t->tl);
	return after > before ? (long)(after - before) : 1;
}

static void tl_close(void *ctx)
{
	struct tlsrc *t = ctx;

	rt_timeline_free(t->tl);
	free(t);
}

static const struct vw_source_ops tl_ops = {
	.count = tl_count,
	.row = tl_rowfn,
	.summary = tl_summary,
	.detail = tl_detail,
	.links = tl_links,
	.summarize = tl_summarize,
	.next_flagged = tl_next_flagged,
	.refresh = tl_refresh,
	.close = tl_close,
};

int vw_source_from_timeline(struct vw_source *s, struct rt_timeline *tl, const char *rundir)
{
	struct tlsrc *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->tl = tl;
	t->src = s;
	if (rundir) {
		snprintf(t->rundir, sizeof(t->rundir), "%s", rundir);
		t->inputs_sig = inputs_signature(rundir);
	}
	s->ops = &tl_ops;
	s->ctx = t;
	return fill_tables(t, s);
}

/* An empty source that only carries a message (damaged or empty input). */
static int empty_source(struct vw_source *s, const char *msg)
{
	struct vw_memsrc *m = vw_memsrc_new();

	if (!m || vw_memsrc_finish(m) < 0) {
		vw_memsrc_free(m);
		return -ENOMEM;
	}
	vw_memsrc_attach(m, s);
	snprintf(s->messages, sizeof(s->messages), "%s\n", msg);
	return 0;
}

int vw_open(const char *path, const struct vw_open_opts *o, struct vw_source *s, char *err, size_t errlen)
{
	struct rt_timeline *tl = NULL;
	struct stat st;
	char msg[640], cap[4096];
	int rc;

	memset(s, 0, sizeof(*s));
	snprintf(s->title, sizeof(s->title), "%s", path);
	if (stat(path, &st) < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return rc;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(cap, sizeof(cap), "%s/annotated.pcapng", path);
		if (access(cap, R_OK) == 0 || rt_timeline_capture_of(path, cap, sizeof(cap)) == 0)
			snprintf(s->capture, sizeof(s->capture), "%s", cap);
		rc = rt_timeline_open_rundir(path, o && o->no_rebuild ? 0 : RT_TL_OPEN_REBUILD_STALE, &tl, msg,
					     sizeof(msg));
		if (rc < 0) {
			/* an empty or unreadable run still opens, with the reason */
			s->capture[0] = 0;
			return empty_source(s, msg);
		}
		s->live = o && o->live;
		return vw_source_from_timeline(s, tl, path);
	}
	/* a capture, a trace file or a saved timeline (or what none of them is: said in the view) */
	rc = rt_timeline_open_path(path, 0, &tl, msg, sizeof(msg));
	if (rc < 0)
		return empty_source(s, msg);
	if (!strcmp(rt_tl_capture_path(tl), path)) /* (a capture file: the packets' own) */
		snprintf(s->capture, sizeof(s->capture), "%s", path);
	return vw_source_from_timeline(s, tl, NULL);
}

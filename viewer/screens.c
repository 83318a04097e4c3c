/*
 * What each screen draws: timeline (rows or lanes, with the detail pane),
 * QP list, findings, bookmarks, help (generated from the key table) and
 * the text screen (tshark's decode).  Drawing reads the model and the
 * source and never changes them, except for the timeline's height which
 * follows the terminal size.
 */
#include <stdio.h>
#include <string.h>

#include "ui.h"

#define SUMMARY_MAX 512
#define DETAIL_MAX 16384

static void put(struct vw_canvas *c, int y, int x, const char *s, int w, enum vw_attr a)
{
	if (y < 0 || y >= c->rows || x >= c->cols || w <= 0)
		return;
	c->put(c, y, x, s, w, a);
}

static void line(struct vw_canvas *c, int y, const char *s, enum vw_attr a)
{
	c->fill(c, y, 0, a);
	put(c, y, 0, s, c->cols, a);
}

/* An RNR NAK is a NAK too; it gets its own colour and mark. */
static int is_error(const struct vw_row *r)
{
	return (r->flags & (VW_F_ERROR | VW_F_DROPPED)) || ((r->flags & VW_F_NAK) && !(r->flags & VW_F_RNR));
}

static enum vw_attr row_attr(const struct vw_row *r)
{
	if (r->flags & VW_F_RNR)
		return VW_A_RNR;
	if (is_error(r))
		return VW_A_ERROR;
	if (r->flags & VW_F_RETRANS)
		return VW_A_RETRANS;
	if (r->flags & VW_F_CTRL)
		return VW_A_CTRL;
	return VW_A_NORMAL;
}

/* One character saying what is special about a row, for terminals without
 * colours and for the eye: ! error, R RNR, r retransmission, # control plane. */
static char row_mark(const struct vw_row *r)
{
	if (r->flags & VW_F_RNR)
		return 'R';
	if (is_error(r))
		return '!';
	if (r->flags & VW_F_RETRANS)
		return 'r';
	if (r->flags & VW_F_FINDING)
		return 'i';
	if (r->flags & VW_F_CTRL)
		return '#';
	return ' ';
}

static const char *short_kind(unsigned kind)
{
	switch (kind) {
	case 1: return "WR";
	case 2: return "CQE";
	case 3: return "PKT";
	case 4: return "RETRY";
	case 5: return "RNR";
	case 6: return "QP-STATE";
	case 7: return "CM";
	case 8: return "CM-ADDR";
	case 9: return "MR";
	case 10: return "ASYNC";
	case 11: return "COUNTER";
	case 12: return "MARKER";
	case 13: return "LOST";
	case 14: return "CLOCK";
	case 15: return "QP";
	case 16: return "CQ";
	case 17: return "DEVICE";
	case 18: return "TIMER";
	case 19: return "WARNING";
	case 20: return "PD";
	case 21: return "SRQ";
	case 22: return "CQ-ARM";
	case 23: return "DEV-CAPS";
	case 24: return "END";
	case VW_KIND_WIRE: return "WIRE";
	case VW_KIND_FINDING: return "FINDING";
	default: return "?";
	}
}

static void draw_title(struct vw_ui *ui, struct vw_canvas *c, const char *what)
{
	char buf[512], f[200];
	size_t n = vw_source_count(ui->src);

	vw_filter_describe(&ui->m, f, sizeof(f));
	snprintf(buf, sizeof(buf), " rdmatrace view  %s  %s  %zu rows%s%s%s%s", ui->src->title, what, n,
		 f[0] ? "  [" : "", f, f[0] ? "]" : "", ui->follow ? "  FOLLOW" : ui->src->live ? "  LIVE" : "");
	line(c, 0, buf, VW_A_TITLE);
}

static void draw_status(struct vw_ui *ui, struct vw_canvas *c)
{
	char buf[512];
	int y = c->rows - 1;

	if (ui->prompting) {
		snprintf(buf, sizeof(buf), "%s%s_", ui->prompt_label, ui->prompt_buf);
		line(c, y, buf, VW_A_STATUS);
		return;
	}
	if (ui->m.status[0])
		snprintf(buf, sizeof(buf), " %s", ui->m.status);
	else if (vw_ui_screen(ui) == VW_SCR_TIMELINE)
		snprintf(buf, sizeof(buf), " h help  q quit  / search  Enter detail  l lanes  p QP  e err  r RNR  Q QPs  F findings");
	else
		snprintf(buf, sizeof(buf), " q back  h help  Enter select");
	line(c, y, buf, VW_A_STATUS);
}

struct cols {
	int time, gap, host, qp, dir, kind, sum;
};

static struct cols layout(int width, int abs_time)
{
	struct cols k;

	k.time = abs_time ? 15 : 11;
	k.gap = 8;
	k.host = width >= 110 ? 12 : 8;
	k.qp = 6;
	k.dir = 2;
	k.kind = width >= 110 ? 9 : 8;
	k.sum = width - (2 + k.time + 1 + k.gap + 1 + k.host + 1 + k.qp + 1 + k.dir + 1 + k.kind + 1);
	if (k.sum < 10) { /* very narrow: no gap column */
		k.sum += k.gap + 1;
		k.gap = 0;
	}
	return k;
}

static void draw_row(struct vw_ui *ui, struct vw_canvas *c, int y, size_t i, const struct cols *k)
{
	struct vw_row r, pr;
	char t[32], g[32], q[16], sum[SUMMARY_MAX], mark[3];
	size_t prev;
	enum vw_attr a;
	int x = 0, sel = i == ui->m.sel;

	if (ui->src->ops->row(ui->src->ctx, i, &r) < 0)
		return;
	a = sel ? VW_A_SELECT : row_attr(&r);
	if (sel)
		c->fill(c, y, 0, VW_A_SELECT);
	/* '>' marks the selection where reverse video is lost (batch text, screen readers) */
	mark[0] = sel ? '>' : vw_model_is_bookmarked(&ui->m, i) ? '*' : ' ';
	mark[1] = row_mark(&r);
	mark[2] = 0;
	put(c, y, x, mark, 2, vw_model_is_bookmarked(&ui->m, i) && !sel ? VW_A_MARK : a);
	x += 2;
	vw_format_time(r.ns, ui->m.t0, ui->abs_time, t, sizeof(t));
	put(c, y, x, t, k->time, sel ? a : VW_A_NORMAL);
	x += k->time + 1;
	if (k->gap) {
		prev = vw_model_prev_visible(&ui->m, i);
		g[0] = 0;
		if (prev != VW_NONE && ui->src->ops->row(ui->src->ctx, prev, &pr) == 0 && pr.ns) /* not after an untimed row */
			vw_format_gap(r.ns >= pr.ns ? r.ns - pr.ns : 0, g, sizeof(g));
		put(c, y, x, g, k->gap, sel ? a : VW_A_DIM);
		x += k->gap + 1;
	}
	/* several processes on one host: tell them apart by pid */
	const char *hn = ui->lane_by_proc && r.proc < ui->src->nprocs && r.host != VW_HOST_WIRE ?
				 ui->src->procs[r.proc].label : vw_host_name(ui->src, r.host);
	put(c, y, x, hn, k->host, sel ? a : (r.host == VW_HOST_WIRE ? VW_A_DIM : VW_A_NORMAL));
	x += k->host + 1;
	if (r.qpn)
		snprintf(q, sizeof(q), "%u", r.qpn);
	else
		snprintf(q, sizeof(q), "-");
	put(c, y, x, q, k->qp, sel ? a : VW_A_NORMAL);
	x += k->qp + 1;
	put(c, y, x, r.dir == VW_DIR_TX ? "->" : r.dir == VW_DIR_RX ? "<-" : "  ", k->dir, a);
	x += k->dir + 1;
	put(c, y, x, short_kind(r.kind), k->kind, a);
	x += k->kind + 1;
	ui->src->ops->summary(ui->src->ctx, i, sum, sizeof(sum));
	put(c, y, x, sum, k->sum, a);
}

static void draw_lane_row(struct vw_ui *ui, struct vw_canvas *c, int y, size_t i, int lw)
{
	struct vw_row r;
	char t[32], text[SUMMARY_MAX + 160], sum[SUMMARY_MAX];
	enum vw_attr a;
	int lane, sel = i == ui->m.sel;

	if (ui->src->ops->row(ui->src->ctx, i, &r) < 0)
		return;
	a = sel ? VW_A_SELECT : row_attr(&r);
	if (sel)
		c->fill(c, y, 0, VW_A_SELECT);
	vw_format_time(r.ns, ui->m.t0, ui->abs_time, t, sizeof(t));
	put(c, y, 0, sel ? ">" : vw_model_is_bookmarked(&ui->m, i) ? "*" : " ", 1, a);
	put(c, y, 1, t, 11, sel ? a : VW_A_NORMAL);
	ui->src->ops->summary(ui->src->ctx, i, sum, sizeof(sum));
	/* which lane: the wire in the middle, the two chosen hosts (or
	 * processes) left and right, anything else on the left with its name */
	unsigned key = ui->lane_by_proc ? r.proc : r.host;
	if (r.host == VW_HOST_WIRE)
		lane = 1;
	else if (key == (unsigned)ui->lane_right && ui->lane_right != ui->lane_left)
		lane = 2;
	else
		lane = 0;
	if (lane == 0 && key != (unsigned)ui->lane_left)
		snprintf(text, sizeof(text), "%c[%s] %s %s", row_mark(&r),
			 ui->lane_by_proc ? (r.proc < ui->src->nprocs ? ui->src->procs[r.proc].name : "-")
					  : vw_host_name(ui->src, r.host),
			 short_kind(r.kind), sum);
	else
		snprintf(text, sizeof(text), "%c%s %s%s %s", row_mark(&r),
			 r.dir == VW_DIR_TX ? (lane == 2 ? "<-" : "->") : r.dir == VW_DIR_RX ? (lane == 2 ? "->" : "<-") : "  ",
			 short_kind(r.kind), r.qpn ? "" : "", sum);
	put(c, y, 13 + lane * (lw + 1), text, lw, a);
	/* lane separators */
	put(c, y, 13 + lw, "|", 1, sel ? a : VW_A_DIM);
	put(c, y, 13 + 2 * lw + 1, "|", 1, sel ? a : VW_A_DIM);
}

static void draw_detail(struct vw_ui *ui, struct vw_canvas *c, int y0, int h)
{
	static char buf[DETAIL_MAX];
	char hdr[256], sum[SUMMARY_MAX];
	struct vw_link links[VW_MAX_LINKS];
	size_t nl, o, i;
	int y = y0, skip = ui->detail_scroll;
	char *p, *save = NULL;

	snprintf(hdr, sizeof(hdr), "-- detail: row %zu --  (1..9 or 0 N Enter follow a link, Backspace back, { } scroll)",
		 ui->m.sel == VW_NONE ? (size_t)0 : ui->m.sel);
	line(c, y++, hdr, VW_A_HEADER);
	if (ui->m.sel == VW_NONE)
		return;
	ui->src->ops->detail(ui->src->ctx, ui->m.sel, buf, sizeof(buf) - 1024);
	/* the numbered links below replace the source's own list of related
	 * rows: the numbers are what the digit keys follow */
	nl = ui->src->ops->links(ui->src->ctx, ui->m.sel, links, VW_MAX_LINKS);
	if (nl && (p = strstr(buf, "\nrelated:\n")) != NULL)
		p[1] = 0;
	o = strlen(buf);
	if (nl && o < sizeof(buf) - 100)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%slinks (press the number):\n",
				      o && buf[o - 1] != '\n' ? "\n" : "");
	for (i = 0; i < nl && o < sizeof(buf) - 100; i++) {
		static const char *const names[] = { "", "WR", "packet", "ACK", "completion", "peer", "related" };
		struct vw_row r;
		if (ui->src->ops->row(ui->src->ctx, links[i].row, &r) < 0)
			continue;
		ui->src->ops->summary(ui->src->ctx, links[i].row, sum, sizeof(sum));
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, " [%zu] %-12s %-6s %-5s %.*s\n", i + 1,
				      links[i].name ? links[i].name : links[i].kind < 7 ? names[links[i].kind] : "", vw_host_name(ui->src, r.host),
				      short_kind(r.kind), (int)(sizeof(buf) - o > 200 ? 160 : 40), sum);
	}
	for (p = strtok_r(buf, "\n", &save); p && y < y0 + h; p = strtok_r(NULL, "\n", &save)) {
		if (skip > 0) {
			skip--;
			continue;
		}
		put(c, y++, 1, p, c->cols - 1, strncmp(p, " [", 2) ? VW_A_NORMAL : VW_A_MARK);
	}
}

static void draw_timeline(struct vw_ui *ui, struct vw_canvas *c)
{
	size_t rows[512], n, i;
	int h, dh = 0, y;
	struct cols k = layout(c->cols, ui->abs_time);
	char hdr[512];

	h = c->rows - 3;
	if (ui->detail) {
		dh = (c->rows - 3) * 45 / 100;
		if (dh < 4)
			dh = 4;
		h -= dh;
		if (h < 2) {
			h = 2;
			dh = c->rows - 3 - h;
		}
	}
	if (h < 1)
		h = 1;
	if (h > 512)
		h = 512;
	if ((unsigned)h != ui->m.height)
		vw_model_set_height(&ui->m, (unsigned)h);
	draw_title(ui, c, ui->lanes ? "lanes" : "timeline");
	if (ui->lanes) {
		int lw = (c->cols - 13 - 2) / 3;
		char l[96], r[96];
		if (ui->lane_by_proc) {
			snprintf(l, sizeof(l), "%s", ui->src->procs[ui->lane_left].name);
			snprintf(r, sizeof(r), "%s", ui->src->procs[ui->lane_right].name);
		} else {
			snprintf(l, sizeof(l), "%s", ui->src->nhosts ? vw_host_name(ui->src, (unsigned)ui->lane_left) : "host");
			snprintf(r, sizeof(r), "%s", ui->src->nhosts > 1 ? vw_host_name(ui->src, (unsigned)ui->lane_right) : "host");
		}
		c->fill(c, 1, 0, VW_A_HEADER);
		put(c, 1, 1, ui->abs_time ? "time (UTC)" : "time (s)", 11, VW_A_HEADER);
		put(c, 1, 13, l, lw, VW_A_HEADER);
		put(c, 1, 13 + lw + 1, "wire", lw, VW_A_HEADER);
		put(c, 1, 13 + 2 * (lw + 1), r, lw, VW_A_HEADER);
	} else {
		if (k.gap)
			snprintf(hdr, sizeof(hdr), "  %-*s %-*s %-*s %-*s %-*s %-*s %s", k.time,
				 ui->abs_time ? "time (UTC)" : "time (s)", k.gap, "gap", k.host, "host", k.qp, "QP", k.dir,
				 "", k.kind, "kind", "summary");
		else
			snprintf(hdr, sizeof(hdr), "  %-*s %-*s %-*s %-*s %-*s %s", k.time,
				 ui->abs_time ? "time (UTC)" : "time (s)", k.host, "host", k.qp, "QP", k.dir, "", k.kind,
				 "kind", "summary");
		line(c, 1, hdr, VW_A_HEADER);
	}
	n = vw_model_rows(&ui->m, rows, (size_t)h);
	if (n == 0) {
		y = 3;
		put(c, 2, 2, vw_source_count(ui->src) ? "no row matches the filters (u clears them)" :
			      "no events in this run", c->cols - 4, VW_A_ERROR);
		if (ui->src->messages[0]) {
			char msg[sizeof(ui->src->messages)], *p, *save = NULL;
			memcpy(msg, ui->src->messages, sizeof(msg));
			for (p = strtok_r(msg, "\n", &save); p && y < 2 + h; p = strtok_r(NULL, "\n", &save))
				put(c, y++, 4, p, c->cols - 4, VW_A_NORMAL);
		}
	}
	for (i = 0; i < n; i++) {
		if (ui->lanes)
			draw_lane_row(ui, c, 2 + (int)i, rows[i], (c->cols - 13 - 2) / 3);
		else
			draw_row(ui, c, 2 + (int)i, rows[i], &k);
	}
	if (ui->detail)
		draw_detail(ui, c, 2 + h, dh);
	draw_status(ui, c);
}

/* A list screen: header, items from top, selection bar, optional text below. */
static size_t list_window(struct vw_ui *ui, enum vw_screen_id s, size_t n, int h)
{
	size_t *sel = &ui->list_sel[s], *top = &ui->list_top[s];

	if (*sel >= n)
		*sel = n ? n - 1 : 0;
	if (*sel < *top)
		*top = *sel;
	if (h > 0 && *sel >= *top + (size_t)h)
		*top = *sel - (size_t)h + 1;
	return *top;
}

static void draw_qps(struct vw_ui *ui, struct vw_canvas *c)
{
	char buf[512];
	int h = c->rows - 3, y;
	size_t top = list_window(ui, VW_SCR_QPS, ui->src->nqps, h), i;

	draw_title(ui, c, "QPs");
	snprintf(buf, sizeof(buf), "  %-10s %8s %8s %-6s %7s %7s %5s %8s %6s %5s %5s %10s %9s", "host", "QPN", "peer",
		 "state", "WRs", "CQEs", "err", "packets", "retx", "rnr", "naks", "bytes", "span(s)");
	line(c, 1, buf, VW_A_HEADER);
	if (!ui->src->nqps)
		put(c, 2, 2, "no QPs in this run", c->cols - 2, VW_A_DIM);
	for (i = top, y = 2; i < ui->src->nqps && y < 2 + h; i++, y++) {
		const struct vw_qp *q = &ui->src->qps[i];
		enum vw_attr a = i == ui->list_sel[VW_SCR_QPS] ? VW_A_SELECT :
				 q->errors || q->naks ? VW_A_ERROR : q->rnr ? VW_A_RNR : q->retrans ? VW_A_RETRANS : VW_A_NORMAL;
		snprintf(buf, sizeof(buf), "  %-10.10s %8u %8u %-6.6s %7llu %7llu %5llu %8llu %6llu %5llu %5llu %10llu %9.3f",
			 vw_host_name(ui->src, q->host), q->qpn, q->peer_qpn, q->state[0] ? q->state : "-",
			 (unsigned long long)q->wrs, (unsigned long long)q->completions, (unsigned long long)q->errors,
			 (unsigned long long)q->packets, (unsigned long long)q->retrans, (unsigned long long)q->rnr,
			 (unsigned long long)q->naks, (unsigned long long)q->bytes,
			 q->last_ns > q->first_ns ? (double)(q->last_ns - q->first_ns) / 1e9 : 0.0);
		if (a == VW_A_SELECT)
			c->fill(c, y, 0, a);
		put(c, y, 0, buf, c->cols, a);
	}
	draw_status(ui, c);
}

static void draw_text_block(struct vw_canvas *c, int y, int ymax, const char *text)
{
	const char *p = text;

	while (*p && y < ymax) {
		const char *e = strchr(p, '\n');
		int len = e ? (int)(e - p) : (int)strlen(p);
		char lb[1024];
		snprintf(lb, sizeof(lb), "%.*s", len < 1023 ? len : 1023, p);
		put(c, y++, 2, lb, c->cols - 2, VW_A_NORMAL);
		p += len + (e ? 1 : 0);
	}
}

static void draw_findings(struct vw_ui *ui, struct vw_canvas *c)
{
	char buf[512];
	int lh = c->rows - 3, y;
	size_t top, i;

	if (ui->src->nfindings)
		lh = (c->rows - 3) / 2;
	top = list_window(ui, VW_SCR_FINDINGS, ui->src->nfindings, lh);
	draw_title(ui, c, "findings");
	line(c, 1, "  #   severity  finding", VW_A_HEADER);
	if (!ui->src->nfindings)
		put(c, 2, 2, "no findings: the diagnosis found nothing to report, or this run has no analysis",
		    c->cols - 2, VW_A_DIM);
	for (i = top, y = 2; i < ui->src->nfindings && y < 2 + lh; i++, y++) {
		const struct vw_finding *f = &ui->src->findings[i];
		enum vw_attr a = i == ui->list_sel[VW_SCR_FINDINGS] ? VW_A_SELECT :
				 f->severity >= 2 ? VW_A_ERROR : f->severity == 1 ? VW_A_RNR : VW_A_NORMAL;
		snprintf(buf, sizeof(buf), "  %-3zu %-9s %s", i + 1,
			 f->severity >= 2 ? "error" : f->severity == 1 ? "warning" : "info", f->title);
		if (a == VW_A_SELECT)
			c->fill(c, y, 0, a);
		put(c, y, 0, buf, c->cols, a);
	}
	if (ui->src->nfindings) {
		const struct vw_finding *f = &ui->src->findings[ui->list_sel[VW_SCR_FINDINGS]];
		line(c, 2 + lh, "-- explanation (Enter jumps to the evidence) --", VW_A_HEADER);
		draw_text_block(c, 3 + lh, c->rows - 1, f->text);
	}
	draw_status(ui, c);
}

static void draw_bookmarks(struct vw_ui *ui, struct vw_canvas *c)
{
	char buf[600], t[32], sum[SUMMARY_MAX];
	int h = c->rows - 3, y;
	size_t top = list_window(ui, VW_SCR_BOOKMARKS, ui->m.nbookmarks, h), i;

	draw_title(ui, c, "bookmarks");
	line(c, 1, "  #   time         host     kind     summary", VW_A_HEADER);
	if (!ui->m.nbookmarks)
		put(c, 2, 2, "no bookmarks: press m on a timeline row to set one", c->cols - 2, VW_A_DIM);
	for (i = top, y = 2; i < ui->m.nbookmarks && y < 2 + h; i++, y++) {
		struct vw_row r;
		size_t row = ui->m.bookmarks[i];
		enum vw_attr a = i == ui->list_sel[VW_SCR_BOOKMARKS] ? VW_A_SELECT : VW_A_NORMAL;
		if (ui->src->ops->row(ui->src->ctx, row, &r) < 0)
			continue;
		vw_format_time(r.ns, ui->m.t0, ui->abs_time, t, sizeof(t));
		ui->src->ops->summary(ui->src->ctx, row, sum, sizeof(sum));
		snprintf(buf, sizeof(buf), "  %-3zu %-12s %-8.8s %-8s %s", i + 1, t, vw_host_name(ui->src, r.host),
			 short_kind(r.kind), sum);
		if (a == VW_A_SELECT)
			c->fill(c, y, 0, a);
		put(c, y, 0, buf, c->cols, a);
	}
	draw_status(ui, c);
}

/* The help lines, generated from the binding table the dispatcher uses. */
static size_t help_line(size_t k, char *buf, size_t len, enum vw_attr *a)
{
	static const struct {
		unsigned mask;
		const char *title;
	} sections[] = {
		{ 1u << VW_SCR_TIMELINE, "Timeline and lanes" },
		{ (1u << VW_SCR_QPS) | (1u << VW_SCR_FINDINGS) | (1u << VW_SCR_BOOKMARKS), "Lists (QPs, findings, bookmarks), help, text" },
	};
	size_t n = 0;

	for (size_t s = 0; s < 2; s++) {
		if (n++ == k) {
			snprintf(buf, len, "%s", sections[s].title);
			*a = VW_A_HEADER;
			return 1;
		}
		for (size_t i = 0; i < vw_nbindings; i++) {
			const struct vw_binding *b = &vw_bindings[i];
			if (!b->keyname || !b->help)
				continue;
			if (s == 0 ? !(b->screens & sections[0].mask) :
				     !(b->screens & sections[1].mask) || (b->screens & sections[0].mask))
				continue;
			if (n++ == k) {
				snprintf(buf, len, "  %-16s %s", b->keyname, b->help);
				*a = VW_A_NORMAL;
				return 1;
			}
		}
	}
	return 0;
}

static void draw_help(struct vw_ui *ui, struct vw_canvas *c)
{
	char buf[256];
	enum vw_attr a;
	int y;
	size_t k = ui->list_top[VW_SCR_HELP];

	draw_title(ui, c, "help");
	line(c, 1, "  key              action        (row marks: ! error  R RNR  r retransmission  # control plane  * bookmark)",
	     VW_A_HEADER);
	for (y = 2; y < c->rows - 1 && help_line(k, buf, sizeof(buf), &a); y++, k++)
		put(c, y, 0, buf, c->cols, a);
	draw_status(ui, c);
}

static void draw_text(struct vw_ui *ui, struct vw_canvas *c)
{
	const char *p = ui->text ? ui->text : "";
	size_t skip = ui->text_top;

	draw_title(ui, c, ui->text_title);
	while (skip > 0 && *p) {
		const char *e = strchr(p, '\n');
		if (!e)
			break;
		p = e + 1;
		skip--;
	}
	draw_text_block(c, 1, c->rows - 1, p);
	draw_status(ui, c);
}

void vw_ui_draw(struct vw_ui *ui, struct vw_canvas *c)
{
	ui->rows = c->rows;
	ui->cols = c->cols;
	c->clear(c);
	if (c->rows < 4 || c->cols < 20) {
		put(c, 0, 0, "terminal too small", c->cols, VW_A_ERROR);
		return;
	}
	switch (vw_ui_screen(ui)) {
	case VW_SCR_TIMELINE:
		draw_timeline(ui, c);
		break;
	case VW_SCR_QPS:
		draw_qps(ui, c);
		break;
	case VW_SCR_FINDINGS:
		draw_findings(ui, c);
		break;
	case VW_SCR_BOOKMARKS:
		draw_bookmarks(ui, c);
		break;
	case VW_SCR_HELP:
		draw_help(ui, c);
		break;
	case VW_SCR_TEXT:
		draw_text(ui, c);
		break;
	default:
		break;
	}
}

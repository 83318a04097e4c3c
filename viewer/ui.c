/*
 * Key handling of the viewer: the binding table (also the help screen's
 * content), the actions, the prompt line and the screen stack.  Drawing is
 * in screens.c; the terminal is in term_curses.c.
 */
#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "handoff.h"
#include "ui.h"

#define S_TL (1u << VW_SCR_TIMELINE)
#define S_QP (1u << VW_SCR_QPS)
#define S_FI (1u << VW_SCR_FINDINGS)
#define S_BM (1u << VW_SCR_BOOKMARKS)
#define S_HE (1u << VW_SCR_HELP)
#define S_TX (1u << VW_SCR_TEXT)
#define S_LIST (S_QP | S_FI | S_BM)
#define S_ALL (S_TL | S_LIST | S_HE | S_TX)

enum vw_screen_id vw_ui_screen(const struct vw_ui *ui)
{
	return ui->stack[ui->depth - 1];
}

static void status(struct vw_ui *ui, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void status(struct vw_ui *ui, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ui->m.status, sizeof(ui->m.status), fmt, ap);
	va_end(ap);
}

static void push(struct vw_ui *ui, enum vw_screen_id s)
{
	if (vw_ui_screen(ui) == s)
		return;
	if (ui->depth < VW_STACK_MAX)
		ui->stack[ui->depth++] = s;
	else
		ui->stack[ui->depth - 1] = s;
}

static void remember(struct vw_ui *ui)
{
	if (ui->m.sel == VW_NONE)
		return;
	if (ui->nhistory == VW_HISTORY_MAX) {
		memmove(ui->history, ui->history + 1, (VW_HISTORY_MAX - 1) * sizeof(size_t));
		ui->nhistory--;
	}
	ui->history[ui->nhistory++] = ui->m.sel;
}

/* ---- actions: each returns enum vw_redraw ---- */

static int a_quit(struct vw_ui *ui, int arg)
{
	(void)arg;
	if (ui->depth > 1) {
		ui->depth--;
		return VW_RD_SCREEN;
	}
	return VW_RD_QUIT;
}

static int a_quit_all(struct vw_ui *ui, int arg)
{
	(void)ui;
	(void)arg;
	return VW_RD_QUIT;
}

static int a_back(struct vw_ui *ui, int arg)
{
	(void)arg;
	if (ui->m.search_pending) {
		ui->m.search_pending = 0;
		status(ui, "search stopped");
		return VW_RD_SCREEN;
	}
	if (ui->depth > 1) {
		ui->depth--;
		return VW_RD_SCREEN;
	}
	if (ui->detail) {
		ui->detail = 0;
		return VW_RD_SCREEN;
	}
	return VW_RD_NONE;
}

static int a_move(struct vw_ui *ui, int arg)
{
	ui->follow = 0;
	vw_model_move(&ui->m, arg);
	ui->detail_scroll = 0;
	return VW_RD_SCREEN;
}

static int a_page(struct vw_ui *ui, int arg)
{
	ui->follow = 0;
	vw_model_page(&ui->m, arg);
	ui->detail_scroll = 0;
	return VW_RD_SCREEN;
}

static int a_home(struct vw_ui *ui, int arg)
{
	(void)arg;
	ui->follow = 0;
	remember(ui);
	vw_model_home(&ui->m);
	return VW_RD_SCREEN;
}

static int a_end(struct vw_ui *ui, int arg)
{
	(void)arg;
	remember(ui);
	vw_model_end(&ui->m);
	return VW_RD_SCREEN;
}

static const struct {
	struct vw_pred pred;
	const char *what;
} jumps[] = {
	{ { VW_F_ERROR | VW_F_NAK, -1 }, "error" },
	{ { VW_F_RETRANS, -1 }, "retransmission" },
	{ { VW_F_RNR, -1 }, "RNR NAK" },
	{ { VW_F_CM, -1 }, "CM event" },
	{ { VW_F_FINDING, -1 }, "finding evidence" },
	{ { VW_F_CTRL, -1 }, "control-plane event" },
};

static int a_jump(struct vw_ui *ui, int arg)
{
	int dir = arg < 0 ? -1 : 1;
	unsigned k = (unsigned)(arg < 0 ? -arg : arg) - 1;
	size_t before = ui->m.sel;

	ui->follow = 0;
	if (vw_model_jump(&ui->m, &jumps[k].pred, dir)) {
		if (before != VW_NONE) {
			size_t s = ui->m.sel;
			ui->m.sel = before;
			remember(ui);
			ui->m.sel = s;
		}
		status(ui, "%s %s", dir > 0 ? "next" : "previous", jumps[k].what);
	} else {
		status(ui, "no %s %s", dir > 0 ? "later" : "earlier", jumps[k].what);
	}
	ui->detail_scroll = 0;
	return VW_RD_SCREEN;
}

static void prompt(struct vw_ui *ui, const char *label, const char *init, vw_prompt_fn done)
{
	ui->prompting = 1;
	snprintf(ui->prompt_label, sizeof(ui->prompt_label), "%s", label);
	snprintf(ui->prompt_buf, sizeof(ui->prompt_buf), "%s", init ? init : "");
	ui->prompt_len = strlen(ui->prompt_buf);
	ui->prompt_done = done;
}

static int p_time(struct vw_ui *ui, const char *text)
{
	uint64_t ns;

	if (vw_model_parse_time(&ui->m, text, &ns) < 0) {
		status(ui, "not a time: '%s' (12.5, +250ms, -3us, 14:03:05.1)", text);
		return VW_RD_SCREEN;
	}
	remember(ui);
	ui->follow = 0;
	vw_model_jump_time(&ui->m, ns);
	return VW_RD_SCREEN;
}

static int a_time(struct vw_ui *ui, int arg)
{
	(void)arg;
	prompt(ui, "jump to time (s since start, +/-delta, hh:mm:ss): ", "", p_time);
	return VW_RD_SCREEN;
}

/* The answer to a search prompt: a new search in the direction dir (+1, -1). */
static int search_start(struct vw_ui *ui, const char *text, int dir)
{
	if (!*text)
		return VW_RD_SCREEN;
	remember(ui);
	vw_model_search_start(&ui->m, text, dir);
	return VW_RD_SCREEN;
}

static int p_search_fwd(struct vw_ui *ui, const char *text)
{
	return search_start(ui, text, +1);
}

static int p_search_back(struct vw_ui *ui, const char *text)
{
	return search_start(ui, text, -1);
}

static int a_search(struct vw_ui *ui, int arg)
{
	prompt(ui, arg > 0 ? "/" : "?", "", arg > 0 ? p_search_fwd : p_search_back);
	return VW_RD_SCREEN;
}

static int a_search_next(struct vw_ui *ui, int arg)
{
	remember(ui);
	vw_model_search_next(&ui->m, arg);
	return VW_RD_SCREEN;
}

static void set_filter(struct vw_ui *ui, const struct vw_filter *f)
{
	char d[200];

	vw_model_set_filter(&ui->m, f);
	vw_filter_describe(&ui->m, d, sizeof(d));
	if (ui->m.sel == VW_NONE)
		status(ui, "no row matches: %s", d);
	else
		status(ui, "filter: %s", d[0] ? d : "none");
}

/* The selected row, for the actions about it: 0, or -1 when no row is
 * selected or it cannot be read. */
static int selected_row(struct vw_ui *ui, struct vw_row *r)
{
	if (ui->m.sel == VW_NONE || ui->src->ops->row(ui->src->ctx, ui->m.sel, r) < 0)
		return -1;
	return 0;
}

/* The QP of the selected row (0 when none). */
static uint32_t selected_qpn(struct vw_ui *ui)
{
	struct vw_row r;

	if (selected_row(ui, &r) < 0)
		return 0;
	return r.qpn;
}

static int p_qp(struct vw_ui *ui, const char *text)
{
	struct vw_filter f = ui->m.f;
	char *end;
	unsigned long v;

	if (!*text) {
		f.has_qpn = 0;
	} else if (!strcmp(text, ".")) {
		if (!selected_qpn(ui)) {
			status(ui, "the selected row has no QP");
			return VW_RD_SCREEN;
		}
		f.has_qpn = 1;
		f.qpn = selected_qpn(ui);
	} else {
		v = strtoul(text, &end, 0);
		if (*end || v > 0xFFFFFF) {
			status(ui, "not a QP number: '%s'", text);
			return VW_RD_SCREEN;
		}
		f.has_qpn = 1;
		f.qpn = (uint32_t)v;
	}
	set_filter(ui, &f);
	return VW_RD_SCREEN;
}

static int a_filter_qp(struct vw_ui *ui, int arg)
{
	char label[128];
	uint32_t q = selected_qpn(ui);

	(void)arg;
	if (q)
		snprintf(label, sizeof(label), "filter QP (number or 0x..; '.' = %u, the selected row's; empty = all): ", q);
	else
		snprintf(label, sizeof(label), "filter QP (number or 0x..; empty = all): ");
	prompt(ui, label, "", p_qp);
	return VW_RD_SCREEN;
}

static int p_host(struct vw_ui *ui, const char *text)
{
	struct vw_filter f = ui->m.f;
	size_t i;

	f.has_proc = 0;
	if (!*text) {
		f.has_host = 0;
		set_filter(ui, &f);
		return VW_RD_SCREEN;
	}
	if (!strcmp(text, ".")) {
		struct vw_row r;
		if (selected_row(ui, &r) < 0 || r.host == VW_HOST_NONE) {
			status(ui, "the selected row has no host");
			return VW_RD_SCREEN;
		}
		/* several processes on one host: the selected row's process */
		if (ui->lane_by_proc && r.proc < ui->src->nprocs && r.host != VW_HOST_WIRE) {
			f.has_host = 0;
			f.has_proc = 1;
			f.proc = r.proc;
		} else {
			f.has_host = 1;
			f.host = r.host;
		}
		set_filter(ui, &f);
		return VW_RD_SCREEN;
	}
	/* a process: "host:pid", "pid" or its "host:program[pid]" name */
	for (i = 0; i < ui->src->nprocs; i++) {
		const struct vw_proc *pr = &ui->src->procs[i];
		const char *pid = strrchr(pr->label, ':');
		if (!strcmp(text, pr->label) || !strcmp(text, pr->name) || (pid && !strcmp(text, pid + 1))) {
			f.has_host = 0;
			f.has_proc = 1;
			f.proc = (uint16_t)i;
			set_filter(ui, &f);
			return VW_RD_SCREEN;
		}
	}
	if (!strcasecmp(text, "wire")) {
		f.has_host = 1;
		f.host = VW_HOST_WIRE;
		set_filter(ui, &f);
		return VW_RD_SCREEN;
	}
	for (i = 0; i < ui->src->nhosts; i++)
		if (!strcasecmp(text, ui->src->hosts[i].name) || strcasestr(ui->src->hosts[i].name, text))
			break;
	if (i == ui->src->nhosts) {
		status(ui, "no host '%s' (hosts: %zu, plus 'wire')", text, ui->src->nhosts);
		return VW_RD_SCREEN;
	}
	f.has_host = 1;
	f.host = (uint16_t)i;
	set_filter(ui, &f);
	return VW_RD_SCREEN;
}

static int a_filter_host(struct vw_ui *ui, int arg)
{
	(void)arg;
	prompt(ui, "filter host or process (name, pid, host:pid, 'wire', '.' = the selected row's; empty = all): ", "",
	       p_host);
	return VW_RD_SCREEN;
}

static int p_op(struct vw_ui *ui, const char *text)
{
	struct vw_filter f = ui->m.f;

	if (vw_filter_set_opcode(&f, text) < 0) {
		status(ui, "no opcode matches '%s'", text);
		return VW_RD_SCREEN;
	}
	set_filter(ui, &f);
	return VW_RD_SCREEN;
}

static int a_filter_op(struct vw_ui *ui, int arg)
{
	(void)arg;
	prompt(ui, "filter opcode (e.g. write, send, ack, read resp; empty for all): ", "", p_op);
	return VW_RD_SCREEN;
}

static int p_kind(struct vw_ui *ui, const char *text)
{
	struct vw_filter f = ui->m.f;
	char buf[128], *save = NULL, *tok;
	uint64_t kinds = 0;

	snprintf(buf, sizeof(buf), "%s", text);
	for (tok = strtok_r(buf, " ,", &save); tok; tok = strtok_r(NULL, " ,", &save)) {
		int found = 0;
		for (unsigned k = 1; k < VW_KIND_COUNT; k++) {
			const char *name = vw_kind_name(k);
			if (strcmp(name, "unknown") && strcasestr(name, tok)) {
				kinds |= 1ull << k;
				found = 1;
			}
		}
		if (!found) {
			status(ui, "no event kind '%s' (wr_post, completion, packet, wire, rnr, retry, qp_state, cm_event ...)", tok);
			return VW_RD_SCREEN;
		}
	}
	f.kinds = kinds;
	set_filter(ui, &f);
	return VW_RD_SCREEN;
}

static int a_filter_kind(struct vw_ui *ui, int arg)
{
	(void)arg;
	prompt(ui, "filter kinds (e.g. 'packet wire', empty for all): ", "", p_kind);
	return VW_RD_SCREEN;
}

static int a_filter_errors(struct vw_ui *ui, int arg)
{
	struct vw_filter f = ui->m.f;

	(void)arg;
	f.errors_only = !f.errors_only;
	set_filter(ui, &f);
	return VW_RD_SCREEN;
}

static int a_filter_plane(struct vw_ui *ui, int arg)
{
	struct vw_filter f = ui->m.f;

	(void)arg;
	f.plane = (f.plane + 1) % 3;
	set_filter(ui, &f);
	return VW_RD_SCREEN;
}

static int a_filter_clear(struct vw_ui *ui, int arg)
{
	struct vw_filter f;

	(void)arg;
	memset(&f, 0, sizeof(f));
	set_filter(ui, &f);
	return VW_RD_SCREEN;
}

static int a_detail(struct vw_ui *ui, int arg)
{
	(void)arg;
	ui->detail = !ui->detail;
	ui->detail_scroll = 0;
	return VW_RD_SCREEN;
}

static int a_detail_scroll(struct vw_ui *ui, int arg)
{
	if (!ui->detail)
		ui->detail = 1;
	ui->detail_scroll += arg;
	if (ui->detail_scroll < 0)
		ui->detail_scroll = 0;
	return VW_RD_SCREEN;
}

static int a_link(struct vw_ui *ui, int arg)
{
	struct vw_link links[VW_MAX_LINKS];
	size_t n;

	if (ui->m.sel == VW_NONE)
		return VW_RD_NONE;
	n = ui->src->ops->links(ui->src->ctx, ui->m.sel, links, VW_MAX_LINKS);
	if (arg < 1 || (size_t)arg > n) {
		status(ui, "no link %d (this row has %zu)", arg, n);
		return VW_RD_SCREEN;
	}
	remember(ui);
	ui->follow = 0;
	vw_model_select(&ui->m, links[arg - 1].row);
	ui->detail = 1;
	ui->detail_scroll = 0;
	return VW_RD_SCREEN;
}

static int p_link(struct vw_ui *ui, const char *text)
{
	char *end;
	long v = strtol(text, &end, 10);

	if (!*text || *end || v < 1 || v > VW_MAX_LINKS) {
		status(ui, "not a link number: '%s'", text);
		return VW_RD_SCREEN;
	}
	return a_link(ui, (int)v);
}

static int a_link_prompt(struct vw_ui *ui, int arg)
{
	(void)arg;
	prompt(ui, "follow link number: ", "", p_link);
	return VW_RD_SCREEN;
}

static int a_history_back(struct vw_ui *ui, int arg)
{
	(void)arg;
	if (!ui->nhistory) {
		status(ui, "no earlier position");
		return VW_RD_SCREEN;
	}
	vw_model_select(&ui->m, ui->history[--ui->nhistory]);
	return VW_RD_SCREEN;
}

static int a_lanes(struct vw_ui *ui, int arg)
{
	(void)arg;
	ui->lanes = !ui->lanes;
	return VW_RD_SCREEN;
}

static int a_lane_cycle(struct vw_ui *ui, int arg)
{
	int n = (int)(ui->lane_by_proc ? ui->src->nprocs : ui->src->nhosts);

	if (n < 2) {
		status(ui, "only %d %s%s", n, ui->lane_by_proc ? "process" : "host", n == 1 ? "" : "s");
		return VW_RD_SCREEN;
	}
	if (arg < 0) {
		ui->lane_left = (ui->lane_left + 1) % n;
		if (ui->lane_left == ui->lane_right)
			ui->lane_left = (ui->lane_left + 1) % n;
	} else {
		ui->lane_right = (ui->lane_right + 1) % n;
		if (ui->lane_left == ui->lane_right)
			ui->lane_right = (ui->lane_right + 1) % n;
	}
	ui->lanes = 1;
	return VW_RD_SCREEN;
}

static int a_time_mode(struct vw_ui *ui, int arg)
{
	(void)arg;
	ui->abs_time = !ui->abs_time;
	return VW_RD_SCREEN;
}

static int a_bookmark(struct vw_ui *ui, int arg)
{
	(void)arg;
	vw_model_bookmark_toggle(&ui->m);
	return VW_RD_SCREEN;
}

static int a_bookmark_jump(struct vw_ui *ui, int arg)
{
	remember(ui);
	vw_model_bookmark_jump(&ui->m, arg);
	return VW_RD_SCREEN;
}

static int a_screen(struct vw_ui *ui, int arg)
{
	push(ui, (enum vw_screen_id)arg);
	return VW_RD_SCREEN;
}

static int a_follow(struct vw_ui *ui, int arg)
{
	(void)arg;
	ui->follow = !ui->follow;
	if (ui->follow) {
		vw_ui_refresh(ui);
		vw_model_end(&ui->m);
	}
	status(ui, "follow %s%s", ui->follow ? "on" : "off",
	       ui->follow && !ui->src->live ? " (this run is not being recorded)" : "");
	return VW_RD_SCREEN;
}

/* The capture frame of the selected row's packet, for tshark and Wireshark:
 * 0, with the reason on the status line, when there is none. */
static uint32_t selected_frame(struct vw_ui *ui)
{
	struct vw_row r;

	if (selected_row(ui, &r) < 0 || !r.frame) {
		status(ui, "the selected row is not a captured packet");
		return 0;
	}
	if (!ui->src->capture[0]) {
		status(ui, "this run has no capture");
		return 0;
	}
	return r.frame;
}

static int a_tshark(struct vw_ui *ui, int arg)
{
	uint32_t frame = selected_frame(ui);
	char *out = NULL;
	size_t len = 0;
	char err[256];

	(void)arg;
	if (!frame)
		return VW_RD_SCREEN;
	if (ui->no_external) {
		status(ui, "tshark disabled");
		return VW_RD_SCREEN;
	}
	if (vw_tshark_decode(ui->tshark, ui->src->capture, frame, &out, &len, err, sizeof(err)) < 0) {
		status(ui, "%s", err);
		free(out);
		return VW_RD_SCREEN;
	}
	free(ui->text);
	ui->text = out;
	ui->text_len = len;
	ui->text_top = 0;
	ui->text_lines = 0;
	for (size_t i = 0; i < len; i++)
		ui->text_lines += out[i] == '\n';
	snprintf(ui->text_title, sizeof(ui->text_title), "tshark -V: frame %u", frame);
	push(ui, VW_SCR_TEXT);
	return VW_RD_SCREEN;
}

static int a_wireshark(struct vw_ui *ui, int arg)
{
	uint32_t frame = selected_frame(ui);
	char err[256];

	(void)arg;
	if (!frame)
		return VW_RD_SCREEN;
	if (ui->no_external || vw_wireshark_open(ui->src->capture, frame, err, sizeof(err)) < 0) {
		status(ui, "%s", ui->no_external ? "Wireshark disabled" : err);
		return VW_RD_SCREEN;
	}
	status(ui, "Wireshark opened at frame %u", frame);
	return VW_RD_SCREEN;
}

static int a_redraw(struct vw_ui *ui, int arg)
{
	(void)ui;
	(void)arg;
	return VW_RD_SCREEN;
}

/* list screens (QPs, findings, bookmarks) and the text screen */
static size_t list_len(struct vw_ui *ui, enum vw_screen_id s)
{
	switch (s) {
	case VW_SCR_QPS:
		return ui->src->nqps;
	case VW_SCR_FINDINGS:
		return ui->src->nfindings;
	case VW_SCR_BOOKMARKS:
		return ui->m.nbookmarks;
	case VW_SCR_TEXT:
		return ui->text_lines;
	case VW_SCR_HELP:
		return vw_nbindings + 4;
	default:
		return 0;
	}
}

static int a_list_move(struct vw_ui *ui, int arg)
{
	enum vw_screen_id s = vw_ui_screen(ui);
	size_t n = list_len(ui, s), *p = (s == VW_SCR_TEXT || s == VW_SCR_HELP) ? &ui->list_top[s] : &ui->list_sel[s];
	long v = (long)*p;
	int page = ui->rows > 6 ? ui->rows - 4 : 1;

	if (arg == 1000)
		v = 0;
	else if (arg == -1000)
		v = (long)n - 1;
	else if (arg == 100 || arg == -100)
		v += arg > 0 ? page : -page;
	else
		v += arg;
	if (v >= (long)n)
		v = (long)n - 1;
	if (v < 0)
		v = 0;
	*p = (size_t)v;
	if (s == VW_SCR_TEXT)
		ui->text_top = *p;
	return VW_RD_SCREEN;
}

static int a_list_enter(struct vw_ui *ui, int arg)
{
	enum vw_screen_id s = vw_ui_screen(ui);
	size_t i = ui->list_sel[s];

	(void)arg;
	if (s == VW_SCR_QPS && i < ui->src->nqps) {
		struct vw_filter f = ui->m.f;
		const struct vw_qp *q = &ui->src->qps[i];
		f.has_qpn = 1;
		f.qpn = q->qpn;
		f.has_host = 0;
		ui->depth = 1;
		set_filter(ui, &f);
		return VW_RD_SCREEN;
	}
	if (s == VW_SCR_FINDINGS && i < ui->src->nfindings) {
		const struct vw_finding *fd = &ui->src->findings[i];
		if (!fd->nrows) {
			status(ui, "this finding has no evidence row");
			return VW_RD_SCREEN;
		}
		remember(ui);
		ui->depth = 1;
		vw_model_select(&ui->m, fd->rows[0]);
		ui->detail = 1;
		status(ui, "finding %zu: evidence 1 of %u", i + 1, fd->nrows);
		return VW_RD_SCREEN;
	}
	if (s == VW_SCR_BOOKMARKS && i < ui->m.nbookmarks) {
		remember(ui);
		ui->depth = 1;
		vw_model_select(&ui->m, ui->m.bookmarks[i]);
		return VW_RD_SCREEN;
	}
	return VW_RD_NONE;
}

static int a_mouse(struct vw_ui *ui, int arg)
{
	enum vw_screen_id s = vw_ui_screen(ui);

	if (s != VW_SCR_TIMELINE)
		return a_list_move(ui, arg * 3);
	return a_move(ui, arg * 3);
}

static int a_click(struct vw_ui *ui, int arg)
{
	size_t rows[256];
	size_t n;
	int y = ui->click_y - 2; /* title and header lines */

	(void)arg;
	if (vw_ui_screen(ui) != VW_SCR_TIMELINE || y < 0)
		return VW_RD_NONE;
	n = vw_model_rows(&ui->m, rows, ui->m.height < 256 ? ui->m.height : 256);
	if ((size_t)y >= n)
		return VW_RD_NONE;
	ui->follow = 0;
	vw_model_select(&ui->m, rows[y]);
	return VW_RD_SCREEN;
}

const struct vw_binding vw_bindings[] = {
	/* moving */
	{ 'j', "j Down", S_TL, a_move, 1, "next row" },
	{ VW_KEY_DOWN, NULL, S_TL, a_move, 1, NULL },
	{ 'k', "k Up", S_TL, a_move, -1, "previous row" },
	{ VW_KEY_UP, NULL, S_TL, a_move, -1, NULL },
	{ ' ', "Space PgDn ^F", S_TL, a_page, 1, "next page" },
	{ VW_KEY_PGDN, NULL, S_TL, a_page, 1, NULL },
	{ 6, NULL, S_TL, a_page, 1, NULL },
	{ 'b', "b PgUp ^B", S_TL, a_page, -1, "previous page" },
	{ VW_KEY_PGUP, NULL, S_TL, a_page, -1, NULL },
	{ 2, NULL, S_TL, a_page, -1, NULL },
	{ 'g', "g Home", S_TL, a_home, 0, "first row" },
	{ VW_KEY_HOME, NULL, S_TL, a_home, 0, NULL },
	{ 'G', "G End", S_TL, a_end, 0, "last row" },
	{ VW_KEY_END, NULL, S_TL, a_end, 0, NULL },
	{ 't', "t", S_TL, a_time, 0, "jump to a time (12.5 s, +250ms, -3us, 14:03:05.1)" },
	{ VW_KEY_WHEEL_DOWN, "wheel", S_ALL, a_mouse, 1, "scroll (mouse wheel); click selects a row" },
	{ VW_KEY_WHEEL_UP, NULL, S_ALL, a_mouse, -1, NULL },
	{ VW_KEY_CLICK, NULL, S_TL, a_click, 0, NULL },
	/* jumps */
	{ 'e', "e / E", S_TL, a_jump, 1, "next / previous error (error completion, NAK, failed call)" },
	{ 'E', NULL, S_TL, a_jump, -1, NULL },
	{ 'x', "x / X", S_TL, a_jump, 2, "next / previous retransmission or retry" },
	{ 'X', NULL, S_TL, a_jump, -2, NULL },
	{ 'r', "r / R", S_TL, a_jump, 3, "next / previous RNR NAK" },
	{ 'R', NULL, S_TL, a_jump, -3, NULL },
	{ 'c', "c / C", S_TL, a_jump, 4, "next / previous CM event" },
	{ 'C', NULL, S_TL, a_jump, -4, NULL },
	{ 'i', "i / I", S_TL, a_jump, 5, "next / previous evidence of a diagnosis finding" },
	{ 'I', NULL, S_TL, a_jump, -5, NULL },
	{ 'y', "y / Y", S_TL, a_jump, 6, "next / previous control-plane event" },
	{ 'Y', NULL, S_TL, a_jump, -6, NULL },
	{ '/', "/", S_TL, a_search, 1, "search forward (host, kind, QP, summary text)" },
	{ '?', "?", S_TL, a_search, -1, "search backward" },
	{ 'n', "n / N", S_TL, a_search_next, 1, "next / previous search match" },
	{ 'N', NULL, S_TL, a_search_next, -1, NULL },
	/* filters */
	{ 'p', "p", S_TL, a_filter_qp, 0, "filter by QP number (empty: all)" },
	{ 'H', "H", S_TL, a_filter_host, 0, "filter by host or process (name, pid, 'wire', '.'; empty: all)" },
	{ 'o', "o", S_TL, a_filter_op, 0, "filter by opcode name (write, send, ack, read ...)" },
	{ 'K', "K", S_TL, a_filter_kind, 0, "filter by event kind (wr_post completion packet wire ...)" },
	{ '!', "!", S_TL, a_filter_errors, 0, "errors only (errors, NAKs, RNR, retransmissions) on/off" },
	{ 'P', "P", S_TL, a_filter_plane, 0, "plane: both / control only / data only" },
	{ 'u', "u", S_TL, a_filter_clear, 0, "clear all filters" },
	/* detail and links */
	{ VW_KEY_ENTER, "Enter d", S_TL, a_detail, 0, "detail pane on/off" },
	{ 'd', NULL, S_TL, a_detail, 0, NULL },
	{ '}', "} / {", S_TL, a_detail_scroll, 3, "scroll the detail pane" },
	{ '{', NULL, S_TL, a_detail_scroll, -3, NULL },
	{ '1', "1..9", S_TL, a_link, 1, "follow link N of the selected row (WR, packets, ACK, completion)" },
	{ '2', NULL, S_TL, a_link, 2, NULL },
	{ '3', NULL, S_TL, a_link, 3, NULL },
	{ '4', NULL, S_TL, a_link, 4, NULL },
	{ '5', NULL, S_TL, a_link, 5, NULL },
	{ '6', NULL, S_TL, a_link, 6, NULL },
	{ '7', NULL, S_TL, a_link, 7, NULL },
	{ '8', NULL, S_TL, a_link, 8, NULL },
	{ '9', NULL, S_TL, a_link, 9, NULL },
	{ '0', "0 N Enter", S_TL, a_link_prompt, 0, "follow link N (any number)" },
	{ VW_KEY_BACKSPACE, "Backspace -", S_TL, a_history_back, 0, "back to where the last jump came from" },
	{ '-', NULL, S_TL, a_history_back, 0, NULL },
	{ 8, NULL, S_TL, a_history_back, 0, NULL },
	/* bookmarks */
	{ 'm', "m", S_TL, a_bookmark, 0, "bookmark the selected row on/off" },
	{ '\'', "' / \"", S_TL, a_bookmark_jump, 1, "next / previous bookmark" },
	{ '"', NULL, S_TL, a_bookmark_jump, -1, NULL },
	{ 'B', "B", S_TL, a_screen, VW_SCR_BOOKMARKS, "bookmark list" },
	/* views and screens */
	{ 'l', "l", S_TL, a_lanes, 0, "lanes view (host | wire | host) on/off" },
	{ '<', "< / >", S_TL, a_lane_cycle, -1, "change the host of the left / right lane" },
	{ '>', NULL, S_TL, a_lane_cycle, 1, NULL },
	{ 'T', "T", S_TL, a_time_mode, 0, "absolute / relative time" },
	{ 'Q', "Q", S_TL, a_screen, VW_SCR_QPS, "QP list with statistics (Enter filters that QP)" },
	{ 'F', "F", S_TL, a_screen, VW_SCR_FINDINGS, "diagnosis findings (Enter jumps to the evidence)" },
	{ 'w', "w", S_TL, a_tshark, 0, "tshark's full decode of the selected packet" },
	{ 'W', "W", S_TL, a_wireshark, 0, "open Wireshark at the selected packet (needs $DISPLAY)" },
	{ 'L', "L", S_TL, a_follow, 0, "follow a run being recorded (live) on/off" },
	{ 'h', "h F1", S_ALL, a_screen, VW_SCR_HELP, "this help" },
	{ VW_KEY_F1, NULL, S_ALL, a_screen, VW_SCR_HELP, NULL },
	{ 12, "^L", S_ALL, a_redraw, 0, "redraw" },
	/* list and text screens */
	{ 'j', "j Down", S_LIST | S_TX | S_HE, a_list_move, 1, "next line" },
	{ VW_KEY_DOWN, NULL, S_LIST | S_TX | S_HE, a_list_move, 1, NULL },
	{ 'k', "k Up", S_LIST | S_TX | S_HE, a_list_move, -1, "previous line" },
	{ VW_KEY_UP, NULL, S_LIST | S_TX | S_HE, a_list_move, -1, NULL },
	{ ' ', "Space PgDn", S_LIST | S_TX | S_HE, a_list_move, 100, "next page" },
	{ VW_KEY_PGDN, NULL, S_LIST | S_TX | S_HE, a_list_move, 100, NULL },
	{ 'b', "b PgUp", S_LIST | S_TX | S_HE, a_list_move, -100, "previous page" },
	{ VW_KEY_PGUP, NULL, S_LIST | S_TX | S_HE, a_list_move, -100, NULL },
	{ 'g', "g Home", S_LIST | S_TX | S_HE, a_list_move, 1000, "first line" },
	{ VW_KEY_HOME, NULL, S_LIST | S_TX | S_HE, a_list_move, 1000, NULL },
	{ 'G', "G End", S_LIST | S_TX | S_HE, a_list_move, -1000, "last line" },
	{ VW_KEY_END, NULL, S_LIST | S_TX | S_HE, a_list_move, -1000, NULL },
	{ VW_KEY_ENTER, "Enter", S_LIST, a_list_enter, 0, "QP: filter it; finding: jump to its evidence; bookmark: go" },
	/* leaving */
	{ VW_KEY_ESC, "Esc", S_ALL, a_back, 0, "back / close the detail pane / stop a search" },
	{ 'q', "q", S_ALL, a_quit, 0, "back, or quit from the timeline" },
	{ 3, "^C", S_ALL, a_quit_all, 0, "quit" },
};
const size_t vw_nbindings = sizeof(vw_bindings) / sizeof(vw_bindings[0]);

static int prompt_key(struct vw_ui *ui, int key)
{
	if (key == VW_KEY_ESC || key == 3 || key == 7) {
		ui->prompting = 0;
		status(ui, "cancelled");
		return VW_RD_SCREEN;
	}
	if (key == VW_KEY_ENTER || key == '\r') {
		char text[sizeof(ui->prompt_buf)];
		ui->prompting = 0;
		memcpy(text, ui->prompt_buf, sizeof(text));
		ui->m.status[0] = 0;
		return ui->prompt_done(ui, text);
	}
	if (key == VW_KEY_BACKSPACE || key == 8) {
		if (ui->prompt_len)
			ui->prompt_buf[--ui->prompt_len] = 0;
		return VW_RD_SCREEN;
	}
	if (key == 21) { /* ^U */
		ui->prompt_len = 0;
		ui->prompt_buf[0] = 0;
		return VW_RD_SCREEN;
	}
	if (key >= 32 && key < 127 && ui->prompt_len + 1 < sizeof(ui->prompt_buf)) {
		ui->prompt_buf[ui->prompt_len++] = (char)key;
		ui->prompt_buf[ui->prompt_len] = 0;
	}
	return VW_RD_SCREEN;
}

int vw_ui_key(struct vw_ui *ui, int key)
{
	enum vw_screen_id s = vw_ui_screen(ui);

	if (key == VW_KEY_RESIZE)
		return VW_RD_SCREEN;
	if (ui->prompting)
		return prompt_key(ui, key);
	if (key == '\r')
		key = VW_KEY_ENTER;
	for (size_t i = 0; i < vw_nbindings; i++) {
		const struct vw_binding *b = &vw_bindings[i];
		if (b->key == key && (b->screens & (1u << s))) {
			if (s == VW_SCR_TIMELINE && key != VW_KEY_ESC && ui->m.search_pending)
				ui->m.search_pending = 0;
			return b->action(ui, b->arg);
		}
	}
	status(ui, "unknown key (h for help)");
	return VW_RD_SCREEN;
}

int vw_ui_refresh(struct vw_ui *ui)
{
	long added;

	if (!ui->src->ops->refresh)
		return 0;
	added = ui->src->ops->refresh(ui->src->ctx);
	if (added <= 0)
		return 0;
	vw_model_source_grew(&ui->m);
	if (ui->follow)
		vw_model_end(&ui->m);
	return 1;
}

int vw_ui_tick(struct vw_ui *ui, int *redraw)
{
	struct timespec t0, t;
	long el;

	*redraw = 0;
	/* pending work runs in slices of about 15 ms, so a key is never kept
	 * waiting longer than that */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if (ui->m.search_pending) {
			if (vw_model_step(&ui->m, 1000)) {
				*redraw = 1;
				return 0;
			}
		} else if (!vw_model_idle(&ui->m, 8)) {
			return 0;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		el = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
	} while (el < 15);
	if (ui->m.search_pending)
		*redraw = 1; /* progress on the status line */
	return 1;
}

int vw_ui_init(struct vw_ui *ui, struct vw_source *src)
{
	memset(ui, 0, sizeof(*ui));
	ui->src = src;
	ui->stack[0] = VW_SCR_TIMELINE;
	ui->depth = 1;
	/* the side lanes default to the first two traced hosts, or to the first
	 * two processes when the run has fewer hosts than processes */
	ui->lane_left = ui->lane_right = -1;
	size_t traced_hosts = 0;
	for (size_t i = 0; i < src->nhosts; i++)
		traced_hosts += !src->hosts[i].capture;
	ui->lane_by_proc = src->nprocs >= 2 && traced_hosts < 2;
	if (ui->lane_by_proc) {
		ui->lane_left = 0;
		ui->lane_right = 1;
	}
	for (size_t i = 0; i < src->nhosts && !ui->lane_by_proc; i++) {
		if (src->hosts[i].capture)
			continue;
		if (ui->lane_left < 0)
			ui->lane_left = (int)i;
		else if (ui->lane_right < 0)
			ui->lane_right = (int)i;
	}
	if (ui->lane_left < 0)
		ui->lane_left = 0;
	if (ui->lane_right < 0)
		ui->lane_right = ui->lane_left;
	ui->tshark = "tshark";
	vw_model_init(&ui->m, src);
	if (vw_source_count(src) == 0)
		status(ui, "this run has no events%s", src->messages[0] ? " (see the messages above)" : "");
	return 0;
}

void vw_ui_free(struct vw_ui *ui)
{
	vw_model_free(&ui->m);
	free(ui->text);
	ui->text = NULL;
}

static const struct {
	const char *name;
	int key;
} keynames[] = {
	{ "Enter", VW_KEY_ENTER }, { "CR", VW_KEY_ENTER }, { "Esc", VW_KEY_ESC }, { "Tab", VW_KEY_TAB },
	{ "BS", VW_KEY_BACKSPACE }, { "Backspace", VW_KEY_BACKSPACE }, { "Up", VW_KEY_UP },
	{ "Down", VW_KEY_DOWN }, { "Left", VW_KEY_LEFT }, { "Right", VW_KEY_RIGHT }, { "PgUp", VW_KEY_PGUP },
	{ "PgDn", VW_KEY_PGDN }, { "Home", VW_KEY_HOME }, { "End", VW_KEY_END }, { "F1", VW_KEY_F1 },
	{ "WheelUp", VW_KEY_WHEEL_UP }, { "WheelDown", VW_KEY_WHEEL_DOWN }, { "Space", ' ' },
	{ "lt", '<' }, { "gt", '>' }, { "Resize", VW_KEY_RESIZE },
};

const char *vw_key_label(int key)
{
	static char buf[16];

	for (size_t k = 0; k < sizeof(keynames) / sizeof(keynames[0]); k++)
		if (keynames[k].key == key && key != ' ' && key != '<' && key != '>')
			return keynames[k].name;
	if (key > 0 && key < 32)
		snprintf(buf, sizeof(buf), "^%c", key + '@');
	else if (key >= 32 && key < 127)
		snprintf(buf, sizeof(buf), "%c", key);
	else
		snprintf(buf, sizeof(buf), "#%d", key);
	return buf;
}

int vw_parse_keys(const char *spec, int *keys, size_t max, size_t *n, char *err, size_t errlen)
{
	const char *p = spec;

	*n = 0;
	while (*p) {
		int key;
		if (*p == '<' && strchr(p, '>') && strchr(p, '>') - p > 1) {
			const char *e = strchr(p, '>');
			size_t len = (size_t)(e - p - 1), k;
			for (k = 0; k < sizeof(keynames) / sizeof(keynames[0]); k++)
				if (strlen(keynames[k].name) == len && !strncasecmp(p + 1, keynames[k].name, len))
					break;
			if (k == sizeof(keynames) / sizeof(keynames[0])) {
				snprintf(err, errlen, "unknown key name '%.*s' (Enter Esc Tab BS Up Down Left Right PgUp PgDn Home End F1 WheelUp WheelDown Space lt gt)",
					 (int)len, p + 1);
				return -EINVAL;
			}
			key = keynames[k].key;
			p = e + 1;
		} else if (*p == '^' && p[1] && isalpha((unsigned char)p[1])) {
			key = toupper((unsigned char)p[1]) - '@';
			p += 2;
		} else {
			key = (unsigned char)*p++;
		}
		if (*n == max) {
			snprintf(err, errlen, "too many keys (at most %zu)", max);
			return -EINVAL;
		}
		keys[(*n)++] = key;
	}
	return 0;
}

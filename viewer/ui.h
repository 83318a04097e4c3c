/*
 * The viewer's user interface state, free of curses: the screen stack,
 * the key table every key goes through, the prompt line, and what each
 * screen draws.  Screens follow ncdu's shape (draw + key per screen); key
 * actions follow htop's (an action returns redraw flags, only the loop
 * draws).  The terminal loop (term_curses.c) and batch mode (batch.c) both
 * feed keys to vw_ui_key() and paint with vw_ui_draw().
 */
#ifndef RDMATRACE_VIEWER_UI_H
#define RDMATRACE_VIEWER_UI_H

#include <stddef.h>

#include "canvas.h"
#include "model.h"
#include "source.h"

/* Keys: ASCII, or these for special keys (terminal-independent). */
enum vw_key {
	VW_KEY_ENTER = '\n',
	VW_KEY_ESC = 27,
	VW_KEY_TAB = '\t',
	VW_KEY_BACKSPACE = 127,
	VW_KEY_UP = 0x100,
	VW_KEY_DOWN,
	VW_KEY_LEFT,
	VW_KEY_RIGHT,
	VW_KEY_PGUP,
	VW_KEY_PGDN,
	VW_KEY_HOME,
	VW_KEY_END,
	VW_KEY_F1,
	VW_KEY_WHEEL_UP,
	VW_KEY_WHEEL_DOWN,
	VW_KEY_RESIZE,
	VW_KEY_CLICK,      /* mouse click; the row is in ui->click_y */
};

/* What an action asks of the loop. */
enum vw_redraw {
	VW_RD_NONE = 0,
	VW_RD_SCREEN = 1,  /* redraw */
	VW_RD_QUIT = 2,
};

enum vw_screen_id {
	VW_SCR_TIMELINE = 0,  /* timeline and lanes */
	VW_SCR_QPS,
	VW_SCR_FINDINGS,
	VW_SCR_BOOKMARKS,
	VW_SCR_HELP,
	VW_SCR_TEXT,          /* tshark decode, any long text */
	VW_SCR_COUNT
};

#define VW_STACK_MAX 8
#define VW_MAX_LINKS 64         /* links of one row listed and followable */
#define VW_HISTORY_MAX 64

struct vw_ui;
typedef int (*vw_prompt_fn)(struct vw_ui *ui, const char *text);

struct vw_ui {
	struct vw_source *src;
	struct vw_model m;
	enum vw_screen_id stack[VW_STACK_MAX];
	unsigned depth;
	int lanes;               /* timeline shown as lanes */
	int detail;              /* detail pane open */
	int detail_scroll;
	int abs_time;
	int follow;              /* live: keep the last row selected */
	int lane_left, lane_right; /* host (or process) indexes of the two side lanes */
	int lane_by_proc;        /* lanes are processes (several on one host) */
	/* list screens */
	size_t list_sel[VW_SCR_COUNT];
	size_t list_top[VW_SCR_COUNT];
	/* text screen */
	char *text;
	size_t text_len;
	size_t text_lines;
	size_t text_top;
	char text_title[128];
	/* prompt */
	int prompting;
	char prompt_label[128];
	char prompt_buf[128];
	size_t prompt_len;
	vw_prompt_fn prompt_done;
	/* jump history (Backspace goes back) */
	size_t history[VW_HISTORY_MAX];
	unsigned nhistory;
	int click_y;
	int rows, cols;          /* last drawn size */
	int no_external;         /* batch/tests: never run tshark or Wireshark */
	const char *tshark;      /* program to run for the decode ("tshark") */
};

/* A key binding: the one table the dispatcher and the help screen share. */
struct vw_binding {
	int key;
	const char *keyname;      /* as the help shows it */
	unsigned screens;         /* bit per enum vw_screen_id where it applies */
	int (*action)(struct vw_ui *ui, int arg);
	int arg;
	const char *help;
};

extern const struct vw_binding vw_bindings[];
extern const size_t vw_nbindings;

int vw_ui_init(struct vw_ui *ui, struct vw_source *src);
void vw_ui_free(struct vw_ui *ui);
/* Handle one key; returns enum vw_redraw flags. */
int vw_ui_key(struct vw_ui *ui, int key);
/* Work between keys (a pending search, background indexing, live refresh):
 * returns 1 while more is pending. */
int vw_ui_tick(struct vw_ui *ui, int *redraw);
/* Pick up new rows of a live source; 1 when rows were added. */
int vw_ui_refresh(struct vw_ui *ui);
void vw_ui_draw(struct vw_ui *ui, struct vw_canvas *c);
/* Current screen. */
enum vw_screen_id vw_ui_screen(const struct vw_ui *ui);
/* Parse a key list ("jj<Enter>/rnr<Enter>G"): <Name> for special keys
 * (Enter Esc Tab BS Up Down Left Right PgUp PgDn Home End F1 WheelUp
 * WheelDown Space lt), ^X for control keys; 0 and keys and n, or -EINVAL
 * with a message. */
/* A key as vw_parse_keys() spells it ("j", "<Enter>", "^C"); static buffer. */
const char *vw_key_label(int key);
int vw_parse_keys(const char *spec, int *keys, size_t max, size_t *n, char *err, size_t errlen);

#endif

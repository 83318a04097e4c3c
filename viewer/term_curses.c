/*
 * The interactive terminal: ncurses behind the vw_canvas interface and the
 * key loop.  This is the only file of the viewer that knows curses.  Keys
 * are translated to enum vw_key; between keys the loop lets pending work
 * run (a search, background indexing, live refresh) with getch timeouts so
 * a keypress always wins.
 */
#include <curses.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "batch.h"

static chtype attr_map[VW_A_COUNT];

static void setup_attrs(void)
{
	int colors = has_colors() && !getenv("NO_COLOR");

	if (colors) {
		start_color();
		use_default_colors();
		init_pair(1, COLOR_BLACK, COLOR_CYAN);  /* title */
		init_pair(2, COLOR_YELLOW, -1);         /* header */
		init_pair(3, COLOR_RED, -1);            /* error */
		init_pair(4, COLOR_YELLOW, -1);         /* retrans */
		init_pair(5, COLOR_MAGENTA, -1);        /* rnr */
		init_pair(6, COLOR_CYAN, -1);           /* control plane */
		init_pair(7, COLOR_GREEN, -1);          /* mark */
		attr_map[VW_A_NORMAL] = A_NORMAL;
		attr_map[VW_A_TITLE] = COLOR_PAIR(1) | A_BOLD;
		attr_map[VW_A_HEADER] = COLOR_PAIR(2) | A_BOLD;
		attr_map[VW_A_SELECT] = A_REVERSE;
		attr_map[VW_A_ERROR] = COLOR_PAIR(3) | A_BOLD;
		attr_map[VW_A_RETRANS] = COLOR_PAIR(4);
		attr_map[VW_A_RNR] = COLOR_PAIR(5) | A_BOLD;
		attr_map[VW_A_CTRL] = COLOR_PAIR(6);
		attr_map[VW_A_DIM] = A_DIM;
		attr_map[VW_A_STATUS] = A_REVERSE;
		attr_map[VW_A_MARK] = COLOR_PAIR(7) | A_BOLD;
		return;
	}
	/* monochrome: the row marks (! R r #) carry the meaning; attributes help */
	attr_map[VW_A_NORMAL] = A_NORMAL;
	attr_map[VW_A_TITLE] = A_REVERSE | A_BOLD;
	attr_map[VW_A_HEADER] = A_BOLD;
	attr_map[VW_A_SELECT] = A_REVERSE;
	attr_map[VW_A_ERROR] = A_BOLD;
	attr_map[VW_A_RETRANS] = A_UNDERLINE;
	attr_map[VW_A_RNR] = A_BOLD | A_UNDERLINE;
	attr_map[VW_A_CTRL] = A_DIM;
	attr_map[VW_A_DIM] = A_DIM;
	attr_map[VW_A_STATUS] = A_REVERSE;
	attr_map[VW_A_MARK] = A_BOLD;
}

static void cu_clear(struct vw_canvas *c)
{
	(void)c;
	erase();
}

static void cu_put(struct vw_canvas *c, int y, int x, const char *s, int maxw, enum vw_attr a)
{
	char buf[1024];
	int n = 0;

	if (x + maxw > c->cols)
		maxw = c->cols - x;
	for (; s[n] && n < maxw && n < (int)sizeof(buf) - 1; n++) {
		unsigned char ch = (unsigned char)s[n];
		buf[n] = (char)(ch == '\t' ? ' ' : ch < 32 || ch > 126 ? '?' : ch);
	}
	buf[n] = 0;
	attrset(attr_map[a]);
	/* the last cell of the last line would scroll some terminals */
	if (y == c->rows - 1 && x + n >= c->cols)
		n = c->cols - x - 1;
	if (n > 0)
		mvaddnstr(y, x, buf, n);
	attrset(A_NORMAL);
}

static void cu_fill(struct vw_canvas *c, int y, int x, enum vw_attr a)
{
	move(y, x);
	attrset(attr_map[a]);
	for (int i = x; i < c->cols - (y == c->rows - 1); i++)
		addch(' ');
	attrset(A_NORMAL);
}

static int translate(int ch, struct vw_ui *ui)
{
	MEVENT ev;

	switch (ch) {
	case KEY_UP: return VW_KEY_UP;
	case KEY_DOWN: return VW_KEY_DOWN;
	case KEY_LEFT: return VW_KEY_LEFT;
	case KEY_RIGHT: return VW_KEY_RIGHT;
	case KEY_PPAGE: return VW_KEY_PGUP;
	case KEY_NPAGE: return VW_KEY_PGDN;
	case KEY_HOME: return VW_KEY_HOME;
	case KEY_END: return VW_KEY_END;
	case KEY_F(1): return VW_KEY_F1;
	case KEY_ENTER: return VW_KEY_ENTER;
	case '\r': return VW_KEY_ENTER;
	case KEY_BACKSPACE: return VW_KEY_BACKSPACE;
	case KEY_RESIZE: return VW_KEY_RESIZE;
	case KEY_MOUSE:
		if (getmouse(&ev) != OK)
			return -1;
		if (ev.bstate & BUTTON4_PRESSED)
			return VW_KEY_WHEEL_UP;
#ifdef BUTTON5_PRESSED
		if (ev.bstate & BUTTON5_PRESSED)
			return VW_KEY_WHEEL_DOWN;
#endif
		if (ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_RELEASED)) {
			ui->click_y = ev.y;
			return VW_KEY_CLICK;
		}
		return -1;
	default:
		return ch >= 0 && ch < 256 ? ch : -1;
	}
}

/* Draw when something changed; the size follows the terminal. */
static void paint(struct vw_ui *ui, struct vw_canvas *c, int *redraw)
{
	if (!*redraw)
		return;
	c->rows = LINES;
	c->cols = COLS;
	vw_ui_draw(ui, c);
	refresh();
	*redraw = 0;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int vw_term_run(struct vw_ui *ui, char *err, size_t errlen)
{
	struct vw_canvas c = { .clear = cu_clear, .put = cu_put, .fill = cu_fill };
	long last_refresh = now_ms();
	int redraw = 1;

	setlocale(LC_ALL, "");
	if (!isatty(0) || !isatty(1)) {
		snprintf(err, errlen, "not a terminal (use --batch to render without one)");
		return 2;
	}
	if (!initscr()) {
		snprintf(err, errlen, "cannot initialise the terminal (TERM=%s)", getenv("TERM") ? getenv("TERM") : "");
		return 2;
	}
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	setup_attrs();
	mousemask(BUTTON1_CLICKED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
		  | BUTTON5_PRESSED
#endif
		  , NULL);
	mouseinterval(0);
	for (;;) {
		int ch, key, pending, tick_redraw = 0;
		paint(ui, &c, &redraw);
		pending = vw_ui_tick(ui, &tick_redraw);
		if (tick_redraw)
			redraw = 1;
		/* live runs are polled every 500 ms; pending work gets the CPU
		 * between keys; otherwise wait for a key */
		paint(ui, &c, &redraw);
		timeout(pending ? 0 : (ui->src->live || ui->follow) ? 500 : -1);
		ch = getch();
		if (ch == ERR) {
			if ((ui->src->live || ui->follow) && now_ms() - last_refresh >= 500) {
				last_refresh = now_ms();
				if (vw_ui_refresh(ui))
					redraw = 1;
			}
			if (ui->m.search_pending)
				redraw = 1;
			continue;
		}
		key = translate(ch, ui);
		if (key < 0)
			continue;
		if (key == VW_KEY_RESIZE)
			clearok(stdscr, TRUE);
		int r = vw_ui_key(ui, key);
		if (r & VW_RD_QUIT)
			break;
		if (r & VW_RD_SCREEN)
			redraw = 1;
		if (key == 12)
			clearok(stdscr, TRUE);
	}
	endwin();
	return 0;
}

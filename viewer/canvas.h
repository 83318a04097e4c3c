/*
 * The drawing surface the screens paint on.  Two implementations: curses
 * (viewer/term_curses.c) and an in-memory character grid (viewer/batch.c),
 * so batch mode and the tests render with exactly the code the terminal
 * uses.  Attributes are logical; each implementation maps them to colours
 * or to bold/reverse/underline when the terminal has no colours.
 */
#ifndef RDMATRACE_VIEWER_CANVAS_H
#define RDMATRACE_VIEWER_CANVAS_H

enum vw_attr {
	VW_A_NORMAL = 0,
	VW_A_TITLE,     /* top line */
	VW_A_HEADER,    /* column headers */
	VW_A_SELECT,    /* the selected row */
	VW_A_ERROR,     /* errors, NAKs */
	VW_A_RETRANS,   /* retransmissions, retries */
	VW_A_RNR,       /* RNR NAKs */
	VW_A_CTRL,      /* control plane rows */
	VW_A_DIM,       /* secondary text */
	VW_A_STATUS,    /* bottom line */
	VW_A_MARK,      /* bookmarks, search hits */
	VW_A_COUNT
};

struct vw_canvas {
	int rows, cols;
	void (*clear)(struct vw_canvas *c);
	/* Text at (y, x), at most maxw columns (clipped to the width too). */
	void (*put)(struct vw_canvas *c, int y, int x, const char *s, int maxw, enum vw_attr a);
	/* Paint columns x.. of line y blank with attribute a (selection bars). */
	void (*fill)(struct vw_canvas *c, int y, int x, enum vw_attr a);
	void *ctx;
};

#endif

/*
 * Batch mode and the in-memory screen: replay keys against the viewer,
 * render with the same drawing code into a character grid, print the
 * final screen(s).  For scripts, CI and the tests.
 */
#ifndef RDMATRACE_VIEWER_BATCH_H
#define RDMATRACE_VIEWER_BATCH_H

#include <stdio.h>

#include "canvas.h"
#include "ui.h"

struct vw_memcanvas {
	struct vw_canvas c;
	char *cells;            /* rows * cols characters */
	unsigned char *attrs;   /* rows * cols enum vw_attr */
};

int vw_memcanvas_init(struct vw_memcanvas *mc, int rows, int cols);
void vw_memcanvas_free(struct vw_memcanvas *mc);
/* The screen as text, one line per row with trailing blanks trimmed. */
void vw_memcanvas_print(const struct vw_memcanvas *mc, FILE *out);

struct vw_batch_opts {
	const char *keys;       /* key list (vw_parse_keys syntax) */
	int frames;             /* print the screens after the last N keys (1: final only) */
	int rows, cols;
	FILE *key_times;        /* when set: "key N NAME T ms" per key (draw included) */
};

/* Replay opts->keys on ui and print the screen(s) to out; 0, or -EINVAL
 * with err saying what is wrong with the key list. */
int vw_batch_run(struct vw_ui *ui, const struct vw_batch_opts *opts, FILE *out, char *err, size_t errlen);

/* The interactive terminal loop (term_curses.c); returns the exit status. */
int vw_term_run(struct vw_ui *ui, char *err, size_t errlen);

#endif

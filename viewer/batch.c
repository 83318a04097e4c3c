/*
 * The in-memory screen and batch mode (see batch.h).  Keys go through
 * vw_ui_key() exactly as in the terminal; between keys a pending search is
 * run to its end, so a batch replay is deterministic.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "batch.h"

static void mc_clear(struct vw_canvas *c)
{
	struct vw_memcanvas *mc = c->ctx;

	memset(mc->cells, ' ', (size_t)c->rows * (size_t)c->cols);
	memset(mc->attrs, 0, (size_t)c->rows * (size_t)c->cols);
}

static void mc_put(struct vw_canvas *c, int y, int x, const char *s, int maxw, enum vw_attr a)
{
	struct vw_memcanvas *mc = c->ctx;

	if (y < 0 || y >= c->rows || x < 0)
		return;
	for (int i = 0; s[i] && i < maxw && x + i < c->cols; i++) {
		unsigned char ch = (unsigned char)s[i];
		size_t k = (size_t)y * (size_t)c->cols + (size_t)(x + i);
		mc->cells[k] = (char)(ch == '\t' ? ' ' : ch < 32 || ch > 126 ? '?' : ch);
		mc->attrs[k] = (unsigned char)a;
	}
}

static void mc_fill(struct vw_canvas *c, int y, int x, enum vw_attr a)
{
	struct vw_memcanvas *mc = c->ctx;

	if (y < 0 || y >= c->rows)
		return;
	for (int i = x < 0 ? 0 : x; i < c->cols; i++)
		mc->attrs[(size_t)y * (size_t)c->cols + (size_t)i] = (unsigned char)a;
}

int vw_memcanvas_init(struct vw_memcanvas *mc, int rows, int cols)
{
	memset(mc, 0, sizeof(*mc));
	if (rows < 1 || cols < 1 || rows > 1000 || cols > 1000)
		return -EINVAL;
	mc->cells = malloc((size_t)rows * (size_t)cols);
	mc->attrs = malloc((size_t)rows * (size_t)cols);
	if (!mc->cells || !mc->attrs) {
		vw_memcanvas_free(mc);
		return -ENOMEM;
	}
	mc->c.rows = rows;
	mc->c.cols = cols;
	mc->c.clear = mc_clear;
	mc->c.put = mc_put;
	mc->c.fill = mc_fill;
	mc->c.ctx = mc;
	mc_clear(&mc->c);
	return 0;
}

void vw_memcanvas_free(struct vw_memcanvas *mc)
{
	free(mc->cells);
	free(mc->attrs);
	mc->cells = NULL;
	mc->attrs = NULL;
}

void vw_memcanvas_print(const struct vw_memcanvas *mc, FILE *out)
{
	for (int y = 0; y < mc->c.rows; y++) {
		const char *l = mc->cells + (size_t)y * (size_t)mc->c.cols;
		int n = mc->c.cols;
		while (n > 0 && l[n - 1] == ' ')
			n--;
		fprintf(out, "%.*s\n", n, l);
	}
}

#define MAX_KEYS 4096

int vw_batch_run(struct vw_ui *ui, const struct vw_batch_opts *o, FILE *out, char *err, size_t errlen)
{
	int *keys = NULL, rc, frames = o->frames > 0 ? o->frames : 1, redraw;
	size_t n = 0, i;
	struct vw_memcanvas mc;

	keys = calloc(MAX_KEYS, sizeof(int));
	if (!keys)
		return -ENOMEM;
	rc = vw_parse_keys(o->keys ? o->keys : "", keys, MAX_KEYS, &n, err, errlen);
	if (rc < 0)
		goto out;
	rc = vw_memcanvas_init(&mc, o->rows, o->cols);
	if (rc < 0) {
		snprintf(err, errlen, "bad screen size %dx%d", o->cols, o->rows);
		goto out;
	}
	vw_ui_draw(ui, &mc.c);
	if (n == 0 || (size_t)frames > n) {
		vw_memcanvas_print(&mc, out);
		if (n)
			fputs("\f\n", out);
	}
	for (i = 0; i < n; i++) {
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		int r = vw_ui_key(ui, keys[i]);
		/* a pending search runs to its end: a replay is deterministic */
		while (ui->m.search_pending)
			vw_ui_tick(ui, &redraw);
		vw_ui_draw(ui, &mc.c);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (o->key_times)
			fprintf(o->key_times, "key %zu %s %.3f ms\n", i + 1, vw_key_label(keys[i]),
				(double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
		if (n - i <= (size_t)frames) {
			vw_memcanvas_print(&mc, out);
			if (i + 1 < n)
				fputs("\f\n", out);
		}
		if (r & VW_RD_QUIT)
			break;
	}
	vw_memcanvas_free(&mc);
	rc = 0;
out:
	free(keys);
	return rc;
}

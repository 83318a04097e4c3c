/*
 * The viewer model and UI without curses: a hand-made source (rows in
 * several chunks, two hosts and the wire, sparse errors and RNR NAKs),
 * then filters, jumps, searches, bookmarks, links, the key parser, and
 * batch rendering through the in-memory screen.
 */
#include <stdlib.h>
#include <string.h>

#include "testlib.h"
#include "../../viewer/batch.h"
#include "../../viewer/memsrc.h"
#include "../../viewer/model.h"
#include "../../viewer/ui.h"

#define N 5000
#define T0 1700000000000000000ull

/* row i: time T0 + i us; host i%3 (2 = wire); QP 17 or 18; RNR at 1200 and
 * 4100, error at 4500, CM events at 0 and 1, retransmission at 3000 */
static struct vw_source make_source(void)
{
	struct vw_source s;
	struct vw_memsrc *m = vw_memsrc_new();
	char sum[128];

	memset(&s, 0, sizeof(s));
	for (int i = N - 1; i >= 0; i--) { /* reverse: finish() must sort */
		struct vw_row r = { 0 };
		r.proc = VW_PROC_NONE;
		r.ns = T0 + (uint64_t)i * 1000;
		r.host = i % 3 == 2 ? VW_HOST_WIRE : (uint16_t)(i % 3);
		r.qpn = i % 2 ? 18 : 17;
		r.kind = r.host == VW_HOST_WIRE ? VW_KIND_WIRE : 1;
		r.op_space = r.host == VW_HOST_WIRE ? VW_OPS_BTH : VW_OPS_WR;
		r.opcode = r.host == VW_HOST_WIRE ? 0x0A /* RC RDMA WRITE ONLY */ : 0 /* RDMA_WRITE */;
		r.frame = r.host == VW_HOST_WIRE ? (uint32_t)i : 0;
		if (i == 1200 || i == 4100) {
			r.flags |= VW_F_RNR | VW_F_ACK;
			r.kind = 5;
		}
		if (i == 4500)
			r.flags |= VW_F_ERROR;
		if (i == 3000)
			r.flags |= VW_F_RETRANS;
		if (i < 2) {
			r.kind = 7;
			r.flags |= VW_F_CTRL | VW_F_CM;
		}
		snprintf(sum, sizeof(sum), "event number %d%s", i, i == 2500 ? " needle" : "");
		vw_memsrc_add(m, &r, sum, "detail line one\ndetail line two");
	}
	/* provisional 0 is row 4999 (added first), provisional N-1-k is row k */
	vw_memsrc_link(m, N - 1 - 10, N - 1 - 11, VW_LINK_PACKET, VW_LINK_WR);
	vw_memsrc_link(m, N - 1 - 10, N - 1 - 14, VW_LINK_COMPLETION, VW_LINK_WR);
	vw_memsrc_finish(m);
	vw_memsrc_attach(m, &s);
	s.nhosts = 2;
	s.hosts = calloc(2, sizeof(*s.hosts));
	snprintf(s.hosts[0].name, sizeof(s.hosts[0].name), "client");
	snprintf(s.hosts[1].name, sizeof(s.hosts[1].name), "server");
	snprintf(s.title, sizeof(s.title), "unit");
	return s;
}

static void test_sorted_and_links(void)
{
	struct vw_source s = make_source();
	struct vw_row r;
	struct vw_link l[4];

	CHECK_EQ_U(vw_source_count(&s), N);
	CHECK(s.ops->row(s.ctx, 0, &r) == 0 && r.ns == T0);
	CHECK(s.ops->row(s.ctx, N - 1, &r) == 0 && r.ns == T0 + (N - 1) * 1000ull);
	CHECK_EQ_U(s.ops->links(s.ctx, 10, l, 4), 2);
	CHECK_EQ_U(l[0].row, 11);
	CHECK_EQ_U(l[1].row, 14);
	CHECK_EQ_U(s.ops->links(s.ctx, 14, l, 4), 1);
	CHECK_EQ_U(l[0].row, 10);
	CHECK_EQ_U(vw_source_find_time(&s, T0 + 2500), 3);
	CHECK_EQ_U(vw_source_find_time(&s, T0 + 99999999999ull), N);
	vw_source_close(&s);
}

static void test_scroll(void)
{
	struct vw_source s = make_source();
	struct vw_model m;
	size_t rows[10];

	vw_model_init(&m, &s);
	vw_model_set_height(&m, 10);
	CHECK_EQ_U(m.sel, 0);
	CHECK_EQ_U(m.top, 0);
	vw_model_move(&m, 3);
	CHECK_EQ_U(m.sel, 3);
	CHECK_EQ_U(m.top, 0);
	vw_model_move(&m, 10);
	CHECK_EQ_U(m.sel, 13);
	CHECK_EQ_U(m.top, 4); /* sel is the last line */
	vw_model_page(&m, 1);
	CHECK_EQ_U(m.sel, 22);
	CHECK_EQ_U(m.top, 13);
	vw_model_page(&m, -1);
	CHECK_EQ_U(m.sel, 13);
	vw_model_end(&m);
	CHECK_EQ_U(m.sel, N - 1);
	CHECK_EQ_U(m.top, N - 10);
	CHECK_EQ_U(vw_model_rows(&m, rows, 10), 10);
	CHECK_EQ_U(rows[9], N - 1);
	vw_model_move(&m, 5); /* at the end: stays */
	CHECK_EQ_U(m.sel, N - 1);
	vw_model_home(&m);
	CHECK_EQ_U(m.sel, 0);
	vw_model_move(&m, -1);
	CHECK_EQ_U(m.sel, 0);
	vw_model_free(&m);
	vw_source_close(&s);
}

static void test_filters(void)
{
	struct vw_source s = make_source();
	struct vw_model m;
	struct vw_filter f;
	size_t rows[10], n;
	struct vw_row r;

	vw_model_init(&m, &s);
	vw_model_set_height(&m, 10);
	vw_model_move(&m, 5); /* row 5: qp 18 */
	memset(&f, 0, sizeof(f));
	f.has_qpn = 1;
	f.qpn = 18;
	vw_model_set_filter(&m, &f);
	CHECK_EQ_U(m.sel, 5);
	n = vw_model_rows(&m, rows, 10);
	CHECK_EQ_U(n, 10);
	for (size_t i = 0; i < n; i++)
		CHECK(rows[i] % 2 == 1);
	f.has_host = 1;
	f.host = 1; /* server: i % 3 == 1, and odd: i % 6 == 1 */
	vw_model_set_filter(&m, &f);
	CHECK(vw_model_visible(&m, m.sel));
	CHECK_EQ_U(m.sel % 6, 1);
	vw_model_end(&m);
	CHECK_EQ_U(m.sel, 4999 - (4999 - 1) % 6);
	/* wire, opcode filter */
	memset(&f, 0, sizeof(f));
	CHECK(vw_filter_set_opcode(&f, "write only") == 0);
	CHECK(vw_filter_set_opcode(&f, "no such opcode") < 0);
	CHECK(vw_filter_set_opcode(&f, "rc rdma write only") == 0);
	vw_model_set_filter(&m, &f);
	s.ops->row(s.ctx, m.sel, &r);
	CHECK(r.host == VW_HOST_WIRE);
	/* errors only: the sparse rows */
	memset(&f, 0, sizeof(f));
	f.errors_only = 1;
	vw_model_set_filter(&m, &f);
	vw_model_home(&m);
	n = vw_model_rows(&m, rows, 10);
	CHECK_EQ_U(n, 4);
	CHECK_EQ_U(rows[0], 1200);
	CHECK_EQ_U(rows[1], 3000);
	CHECK_EQ_U(rows[2], 4100);
	CHECK_EQ_U(rows[3], 4500);
	/* control plane only */
	memset(&f, 0, sizeof(f));
	f.plane = 1;
	vw_model_set_filter(&m, &f);
	vw_model_end(&m);
	CHECK_EQ_U(m.sel, 1);
	/* nothing matches */
	memset(&f, 0, sizeof(f));
	f.has_qpn = 1;
	f.qpn = 99;
	vw_model_set_filter(&m, &f);
	CHECK(m.sel == VW_NONE);
	CHECK_EQ_U(vw_model_rows(&m, rows, 10), 0);
	vw_model_free(&m);
	vw_source_close(&s);
}

static void test_jumps_and_chunk_index(void)
{
	struct vw_source s = make_source();
	struct vw_model m;
	struct vw_pred rnr = { VW_F_RNR, -1 }, err = { VW_F_ERROR, -1 }, cm = { VW_F_CM, -1 };
	uint64_t before, first_cost, second_cost;

	vw_model_init(&m, &s);
	vw_model_set_height(&m, 10);
	before = m.scanned_rows;
	CHECK(vw_model_jump(&m, &rnr, 1));
	CHECK_EQ_U(m.sel, 1200);
	first_cost = m.scanned_rows - before;
	CHECK(vw_model_jump(&m, &rnr, 1));
	CHECK_EQ_U(m.sel, 4100);
	CHECK(!vw_model_jump(&m, &rnr, 1));
	CHECK_EQ_U(m.sel, 4100);
	CHECK(vw_model_jump(&m, &rnr, -1));
	CHECK_EQ_U(m.sel, 1200);
	CHECK(vw_model_jump(&m, &err, 1));
	CHECK_EQ_U(m.sel, 4500);
	CHECK(vw_model_jump(&m, &cm, -1));
	CHECK_EQ_U(m.sel, 1);
	/* the same jump again reads only chunks that can hold an RNR row */
	vw_model_home(&m);
	before = m.scanned_rows;
	CHECK(vw_model_jump(&m, &rnr, 1));
	second_cost = m.scanned_rows - before;
	CHECK(second_cost < first_cost);
	CHECK(second_cost < 2 * VW_CHUNK + 100);
	/* idle summarising covers every chunk */
	while (vw_model_idle(&m, 2))
		;
	CHECK_EQ_U(m.nchunks, (N + VW_CHUNK - 1) / VW_CHUNK);
	vw_model_free(&m);
	vw_source_close(&s);
}

static void test_time(void)
{
	struct vw_source s = make_source();
	struct vw_model m;
	uint64_t ns;
	char buf[64];

	vw_model_init(&m, &s);
	CHECK(vw_model_parse_time(&m, "0.0025", &ns) == 0 && ns == T0 + 2500000);
	CHECK(vw_model_parse_time(&m, "2ms", &ns) == 0 && ns == T0 + 2000000);
	CHECK(vw_model_parse_time(&m, "+5us", &ns) == 0 && ns == T0 + 5000);
	CHECK(vw_model_parse_time(&m, "junk", &ns) < 0);
	CHECK(vw_model_parse_time(&m, "", &ns) < 0);
	CHECK(vw_model_parse_time(&m, "25:00:00", &ns) < 0);
	vw_model_jump_time(&m, T0 + 2500000);
	CHECK_EQ_U(m.sel, 2500);
	vw_model_jump_time(&m, T0 + 99000000000ull);
	CHECK_EQ_U(m.sel, N - 1);
	vw_format_time(T0 + 1500000, T0, 0, buf, sizeof(buf));
	CHECK_STR(buf, "   0.001500");
	vw_format_gap(1500, buf, sizeof(buf));
	CHECK_STR(buf, "+1.5us");
	vw_format_gap(655000000, buf, sizeof(buf));
	CHECK_STR(buf, "+655.0ms");
	vw_model_free(&m);
	vw_source_close(&s);
}

static void test_search(void)
{
	struct vw_source s = make_source();
	struct vw_model m;

	vw_model_init(&m, &s);
	vw_model_search_start(&m, "NEEDLE", 1);
	CHECK(m.search_pending);
	CHECK(!vw_model_step(&m, 100)); /* still pending after 100 rows */
	while (!vw_model_step(&m, 100))
		;
	CHECK_EQ_U(m.sel, 2500);
	vw_model_search_next(&m, 1);
	while (!vw_model_step(&m, 1000))
		;
	CHECK_EQ_U(m.sel, 2500);
	CHECK(strstr(m.status, "not found") != NULL);
	vw_model_end(&m);
	vw_model_search_next(&m, -1);
	while (!vw_model_step(&m, 1000))
		;
	CHECK_EQ_U(m.sel, 2500);
	/* host names are searchable */
	vw_model_home(&m);
	vw_model_search_start(&m, "server", 1);
	while (!vw_model_step(&m, 1000))
		;
	CHECK_EQ_U(m.sel, 1);
	vw_model_free(&m);
	vw_source_close(&s);
}

static void test_bookmarks(void)
{
	struct vw_source s = make_source();
	struct vw_model m;

	vw_model_init(&m, &s);
	vw_model_move(&m, 40);
	vw_model_bookmark_toggle(&m);
	vw_model_move(&m, -30);
	vw_model_bookmark_toggle(&m);
	CHECK_EQ_U(m.nbookmarks, 2);
	CHECK_EQ_U(m.bookmarks[0], 10);
	CHECK_EQ_U(m.bookmarks[1], 40);
	vw_model_home(&m);
	vw_model_bookmark_jump(&m, 1);
	CHECK_EQ_U(m.sel, 10);
	vw_model_bookmark_jump(&m, 1);
	CHECK_EQ_U(m.sel, 40);
	vw_model_bookmark_jump(&m, 1); /* wraps */
	CHECK_EQ_U(m.sel, 10);
	vw_model_bookmark_toggle(&m);
	CHECK_EQ_U(m.nbookmarks, 1);
	CHECK(!vw_model_is_bookmarked(&m, 10));
	CHECK(vw_model_is_bookmarked(&m, 40));
	vw_model_free(&m);
	vw_source_close(&s);
}

static void test_select_hidden_clears_filter(void)
{
	struct vw_source s = make_source();
	struct vw_model m;
	struct vw_filter f;

	vw_model_init(&m, &s);
	memset(&f, 0, sizeof(f));
	f.has_qpn = 1;
	f.qpn = 17;
	vw_model_set_filter(&m, &f);
	CHECK(vw_model_select(&m, 11));
	CHECK_EQ_U(m.sel, 11);
	CHECK(!m.f.has_qpn);
	vw_model_free(&m);
	vw_source_close(&s);
}

static void test_keys_parse(void)
{
	int keys[16];
	size_t n;
	char err[200];

	CHECK(vw_parse_keys("jG<Enter>^C<lt>x", keys, 16, &n, err, sizeof(err)) == 0);
	CHECK_EQ_U(n, 6);
	CHECK_EQ_U(keys[0], 'j');
	CHECK_EQ_U(keys[1], 'G');
	CHECK_EQ_U(keys[2], VW_KEY_ENTER);
	CHECK_EQ_U(keys[3], 3);
	CHECK_EQ_U(keys[4], '<');
	CHECK_EQ_U(keys[5], 'x');
	CHECK(vw_parse_keys("<Nope>", keys, 16, &n, err, sizeof(err)) < 0);
	CHECK(strstr(err, "Nope") != NULL);
	CHECK(vw_parse_keys("jjjjjjjjjjjjjjjjjjjj", keys, 16, &n, err, sizeof(err)) < 0);
}

static char *render(struct vw_ui *ui, const char *keys, int rows, int cols)
{
	struct vw_batch_opts o = { keys, 1, rows, cols, NULL };
	char *buf = NULL, err[200];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (vw_batch_run(ui, &o, f, err, sizeof(err)) < 0)
		fprintf(f, "ERROR %s", err);
	fclose(f);
	return buf;
}

static void test_ui_batch(void)
{
	struct vw_source s = make_source();
	struct vw_ui ui;
	char *out;

	vw_ui_init(&ui, &s);
	ui.no_external = 1;
	out = render(&ui, "", 24, 80);
	CHECK(strstr(out, "rdmatrace view") != NULL);
	CHECK(strstr(out, "event number 0") != NULL);
	CHECK(strstr(out, "client") != NULL);
	free(out);
	/* filter QP 18, next RNR (1200 is qp 17: the next on 18 is none; 4100 is qp 17 too) */
	out = render(&ui, "p<BS><BS>18<Enter>r", 24, 80);
	CHECK(strstr(out, "qp 18") != NULL);
	CHECK(strstr(out, "no later RNR NAK") != NULL);
	free(out);
	out = render(&ui, "ur<Enter>", 24, 80);
	CHECK(strstr(out, "event number 1200") != NULL);
	CHECK(strstr(out, "-- detail: row 1200") != NULL);
	CHECK(strstr(out, "detail line two") != NULL);
	free(out);
	/* links: from row 10 to its packet and back */
	out = render(&ui, "gjjjjjjjjjj1", 24, 80);
	CHECK_EQ_U(ui.m.sel, 11);
	free(out);
	out = render(&ui, "<BS>", 24, 80);
	CHECK_EQ_U(ui.m.sel, 10);
	free(out);
	/* help lists bindings from the table */
	out = render(&ui, "h", 24, 80);
	CHECK(strstr(out, "next / previous RNR NAK") != NULL);
	free(out);
	out = render(&ui, "q/needle<Enter>", 24, 80);
	CHECK_EQ_U(ui.m.sel, 2500);
	free(out);
	/* lanes, narrow and tiny terminals do not crash */
	out = render(&ui, "l", 24, 80);
	CHECK(strstr(out, "wire") != NULL);
	free(out);
	out = render(&ui, "l", 10, 40);
	CHECK(out != NULL);
	free(out);
	out = render(&ui, "", 3, 10);
	CHECK(strstr(out, "termin") != NULL);
	free(out);
	vw_ui_free(&ui);
	vw_source_close(&s);
}

int main(void)
{
	RUN(test_sorted_and_links);
	RUN(test_scroll);
	RUN(test_filters);
	RUN(test_jumps_and_chunk_index);
	RUN(test_time);
	RUN(test_search);
	RUN(test_bookmarks);
	RUN(test_select_hidden_clears_filter);
	RUN(test_keys_parse);
	RUN(test_ui_batch);
	return test_done();
}

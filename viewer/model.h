/*
 * The viewer's model: which rows are visible under the filters, which one
 * is selected, what the first row on screen is, and every move a key can
 * make (scrolling, jumps to a time, to the next error / retransmission /
 * RNR NAK / CM event / finding, along links, searches, bookmarks).  No
 * curses here: unit tests drive it directly, the screens only read it.
 *
 * Scale.  A run may hold tens of millions of rows, so nothing here rescans
 * the whole run per key.  Rows are grouped in chunks of VW_CHUNK rows; the
 * first time a scan walks over a chunk it records a summary (OR of kinds,
 * flags, host and QP/opcode Bloom bits), and later scans skip every chunk
 * whose summary cannot hold a match.  vw_model_idle() fills summaries in
 * the background while the user reads the screen.  A text search formats
 * rows, so it runs as a pending job advanced a bounded amount per call of
 * vw_model_step().
 */
#ifndef RDMATRACE_VIEWER_MODEL_H
#define RDMATRACE_VIEWER_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "source.h"

#define VW_NONE ((size_t)-1)
#define VW_CHUNK 1024
#define VW_MAX_BOOKMARKS 64

/* What the user filters on; a zeroed struct shows everything. */
struct vw_filter {
	int has_host;
	uint16_t host;
	int has_proc;           /* one traced process (several on one host) */
	uint16_t proc;
	int has_qpn;
	uint32_t qpn;
	uint64_t kinds;         /* bit per row kind; 0 = all kinds */
	int has_op;
	char op_text[32];       /* opcode name substring (case-insensitive) */
	uint8_t op_bits[VW_OPS_COUNT][32]; /* opcodes whose name matches op_text */
	int errors_only;        /* rows with VW_F_ERROR|NAK|RNR|RETRANS */
	int plane;              /* 0 both, 1 control plane only, 2 data plane only */
};

/* A jump target: rows having any of these flags, or of this kind. */
struct vw_pred {
	uint16_t flags_any;     /* 0: no flag condition */
	int kind;               /* -1: any kind */
};

struct vw_model {
	struct vw_source *src;
	struct vw_filter f;
	size_t sel;             /* selected row (source number) or VW_NONE */
	size_t top;             /* first row on screen or VW_NONE */
	unsigned height;        /* rows the timeline shows */
	uint64_t t0;            /* time of row 0 (relative times) */
	struct vw_chunk *chunks;
	size_t nchunks, chunks_cap;
	size_t idle_next;       /* next chunk vw_model_idle() summarises */
	size_t bookmarks[VW_MAX_BOOKMARKS];
	unsigned nbookmarks;
	/* pending search */
	char search[128];
	int search_dir;         /* +1 / -1 */
	int search_pending;
	size_t search_pos;      /* next row to test */
	size_t search_start;
	size_t search_scanned;
	char status[256];       /* message for the status line */
	uint64_t scanned_rows;  /* rows read by scans (tests and benchmarks) */
};

void vw_model_init(struct vw_model *m, struct vw_source *src);
void vw_model_free(struct vw_model *m);
/* Rows the source has now (grows in live mode); call after a refresh. */
void vw_model_source_grew(struct vw_model *m);
void vw_model_set_height(struct vw_model *m, unsigned height);

/* Filters.  Changing one keeps the selection when it is still visible,
 * else selects the nearest visible row in time. */
void vw_model_set_filter(struct vw_model *m, const struct vw_filter *f);
int vw_filter_set_opcode(struct vw_filter *f, const char *text); /* 0, or -ENOENT: no opcode matches */
/* "qp 17 host server kind packet op WRITE errors" style description ("" when none). */
void vw_filter_describe(const struct vw_model *m, char *buf, size_t len);
int vw_model_visible(struct vw_model *m, size_t row);

/* The next visible row after (dir > 0) or before (dir < 0) `from` that also
 * satisfies pred (NULL: any); VW_NONE when there is none.  from may be
 * VW_NONE with dir > 0 (start) or dir < 0 (end). */
size_t vw_model_scan(struct vw_model *m, size_t from, int dir, const struct vw_pred *pred);

/* Moves; each returns 1 when the selection or the top changed. */
int vw_model_move(struct vw_model *m, long delta);   /* by visible rows */
int vw_model_page(struct vw_model *m, int dir);
int vw_model_home(struct vw_model *m);
int vw_model_end(struct vw_model *m);
int vw_model_select(struct vw_model *m, size_t row); /* clears filters hiding row */
int vw_model_jump_time(struct vw_model *m, uint64_t ns);
int vw_model_jump(struct vw_model *m, const struct vw_pred *pred, int dir);

/* Parse "12.5" (s since start), "+250ms" (from the selection), "-3us",
 * "14:03:05.123" (time of day, UTC, on the first row's date) or a raw ns
 * value >= 1e15; 0 and *ns, or -EINVAL. */
int vw_model_parse_time(const struct vw_model *m, const char *text, uint64_t *ns);

/* Searches (case-insensitive substring of host, kind and summary). */
void vw_model_search_start(struct vw_model *m, const char *text, int dir);
void vw_model_search_next(struct vw_model *m, int dir);
/* Advance a pending search by up to `budget` rows; 1 when it finished
 * (found or not; status says which), 0 while still pending. */
int vw_model_step(struct vw_model *m, size_t budget);
/* Summarise up to `budget` chunks in the background; 1 while work remains. */
int vw_model_idle(struct vw_model *m, size_t budget);

/* Bookmarks (kept in time order). */
int vw_model_bookmark_toggle(struct vw_model *m);
int vw_model_bookmark_jump(struct vw_model *m, int dir);
int vw_model_is_bookmarked(const struct vw_model *m, size_t row);

/* The rows on screen from top: up to max source row numbers. */
size_t vw_model_rows(struct vw_model *m, size_t *out, size_t max);
/* The visible row before `row` (for gaps), VW_NONE at the start. */
size_t vw_model_prev_visible(struct vw_model *m, size_t row);

/* Time as text: relative "12.345678" s or absolute "14:03:05.123456"; a gap "+1.2ms". */
void vw_format_time(uint64_t ns, uint64_t t0, int absolute, char *buf, size_t len);
void vw_format_gap(uint64_t gap_ns, char *buf, size_t len);

#endif

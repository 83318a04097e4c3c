/*
 * An in-memory viewer source: a growable table of rows with their summary
 * and detail text and the links between them.  Loaders that have no
 * prebuilt timeline (trace files only, a capture only) fill one; unit tests
 * fill one by hand.  Rows may be added in any order: vw_memsrc_finish()
 * sorts them by time (stably) and renumbers the links.
 */
#ifndef RDMATRACE_VIEWER_MEMSRC_H
#define RDMATRACE_VIEWER_MEMSRC_H

#include <stddef.h>

#include "source.h"

struct vw_memsrc;

struct vw_memsrc *vw_memsrc_new(void);
/* Add a row; returns its provisional number (>= 0) or -ENOMEM. */
long vw_memsrc_add(struct vw_memsrc *m, const struct vw_row *r, const char *summary, const char *detail);
/* Link provisional rows a and b both ways; 0 or -ENOMEM. */
int vw_memsrc_link(struct vw_memsrc *m, size_t a, size_t b, unsigned kind_a_to_b, unsigned kind_b_to_a);
/* Final row number of a provisional one (valid after finish). */
size_t vw_memsrc_final(const struct vw_memsrc *m, size_t provisional);
/* Sort by time, renumber links; then the rows may be read. 0 or -ENOMEM. */
int vw_memsrc_finish(struct vw_memsrc *m);
/* Make s read from m; s takes ownership (vw_source_close frees m). */
void vw_memsrc_attach(struct vw_memsrc *m, struct vw_source *s);
void vw_memsrc_free(struct vw_memsrc *m);

#endif

/*
 * Opening what `rdmatrace view` is given: a run directory (its timeline,
 * rebuilt by the correlation when stale), a timeline file, a trace file or
 * a capture alone.  Damaged or empty inputs still open, as an empty source
 * whose messages say what is wrong; only a path that does not exist fails.
 */
#ifndef RDMATRACE_VIEWER_OPEN_H
#define RDMATRACE_VIEWER_OPEN_H

#include <stddef.h>

#include "source.h"

struct rt_timeline;

struct vw_open_opts {
	int live;        /* the run is being recorded: refresh() follows it */
	int no_rebuild;  /* use RUNDIR/timeline.rtl as it is */
};

int vw_open(const char *path, const struct vw_open_opts *o, struct vw_source *s, char *err, size_t errlen);
/* A source over an already built timeline (takes ownership); rundir, when
 * given, is where live refresh rebuilds from. */
int vw_source_from_timeline(struct vw_source *s, struct rt_timeline *tl, const char *rundir);

#endif

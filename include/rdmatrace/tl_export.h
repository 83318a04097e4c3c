/*
 * Exports of a timeline (include/rdmatrace/timeline.h): Perfetto / Chrome
 * trace-event JSON (hosts and QPs as tracks, WRs as slices, packets, CM
 * events and findings as instants), JSON Lines (one object per row, for
 * scripts), and the annotated pcapng (the capture with one comment per RoCE
 * packet, docs/timeline.md).
 */
#ifndef RDMATRACE_TL_EXPORT_H
#define RDMATRACE_TL_EXPORT_H

#include <stddef.h>
#include <stdio.h>

#include "rdmatrace/timeline.h"

/* 0, or -errno when writing failed. */
int rt_tl_export_perfetto(const struct rt_timeline *tl, FILE *out);
int rt_tl_export_jsonl(const struct rt_timeline *tl, FILE *out);
/* The capture the timeline was built from, re-read and written with the
 * annotations to path ("-" for stdout); jsonl_path may be NULL. */
int rt_tl_export_pcapng(const struct rt_timeline *tl, const char *path, const char *jsonl_path, char *err,
			size_t errlen);

/* A string as a JSON string literal (with the quotes). */
void rt_tl_json_string(FILE *out, const char *s);

#endif

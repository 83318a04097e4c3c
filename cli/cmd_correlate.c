/*
 * `rdmatrace correlate RUNDIR`: build the run's timeline (RUNDIR/timeline.rtl),
 * the annotated capture and the annotation sidecar.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "command.h"
#include "rdmatrace/timeline.h"

static int run(int argc, char **argv)
{
	int force = 0, quiet = 0;
	unsigned flags = 0;
	static const struct option opts[] = {{"force", no_argument, NULL, 'f'}, {"quiet", no_argument, NULL, 'q'},
					     {"timeline-only", no_argument, NULL, 't'}, {NULL, 0, NULL, 0}};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "fqt", opts, NULL)) != -1) {
		if (c == 't')
			flags |= RT_TL_CORRELATE_NO_ANNOTATED;
		else if (c == 'f')
			force = 1;
		else if (c == 'q')
			quiet = 1;
		else
			return 2;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: rdmatrace correlate [--force] [--quiet] [--timeline-only] RUNDIR\n");
		return 2;
	}
	const char *dir = argv[optind];
	char err[512];
	/* current, with its annotated capture when the run has a capture and that is asked for */
	char cap[4096], ann[4200];
	snprintf(ann, sizeof(ann), "%s/annotated.pcapng", dir);
	bool annotated_missing = !force && !(flags & RT_TL_CORRELATE_NO_ANNOTATED) && access(ann, F_OK) != 0 &&
				 rt_timeline_capture_of(dir, cap, sizeof(cap)) == 0;
	if (!force && !annotated_missing && !rt_timeline_stale(dir)) {
		if (!quiet)
			printf("%s/%s is up to date\n", dir, RT_TL_FILE_NAME);
		return 0;
	}
	struct rt_timeline *tl;
	if (rt_timeline_correlate_ex(dir, flags, &tl, err, sizeof(err)) < 0) {
		fprintf(stderr, "rdmatrace correlate: %s\n", err);
		return 2;
	}
	if (!quiet) {
		size_t pk = 0;
		for (size_t i = 0; i < rt_tl_row_count(tl); i++) {
			const struct rt_tl_row *r = rt_tl_row(tl, i);
			pk += r->kind == RT_TLK_PACKET || r->kind == RT_TLK_CM_PACKET;
		}
		printf("%s/%s: %zu rows (%zu packets, %zu trace events), %zu hosts, %zu QPs, %zu findings\n", dir,
		       RT_TL_FILE_NAME, rt_tl_row_count(tl), pk, rt_tl_row_count(tl) - pk - rt_tl_finding_count(tl),
		       rt_tl_host_count(tl), rt_tl_qp_count(tl), rt_tl_finding_count(tl));
		for (size_t i = 0; i < rt_tl_host_count(tl); i++) {
			const struct rt_tl_host *h = rt_tl_host(tl, i);
			printf("  host %-16s offset %+.6f s", rt_tl_str(tl, h->name), (double)h->offset_ns / 1e9);
			if (h->flags & RT_TLH_REFERENCE)
				printf(" (reference clock)");
			else if (h->uncertainty_ns == UINT64_MAX)
				printf(" (not bounded by causal order)");
			else
				printf(" +- %.6f ms%s", (double)h->uncertainty_ns / 1e6,
				       (h->flags & RT_TLH_INCONSISTENT) ? " (constraints inconsistent)" : "");
			printf("\n");
		}
		for (size_t i = 0; i < rt_tl_note_count(tl); i++)
			printf("  note: %s\n", rt_tl_note(tl, i));
	}
	rt_timeline_free(tl);
	return 0;
}

const struct rt_command rt_cmd_correlate = {
	.name = "correlate",
	.builds_timelines = 1,
	.summary = "merge a run's traces and capture into its timeline",
	.usage = "usage: rdmatrace correlate [--force] [--quiet] [--timeline-only] RUNDIR\n"
		 "\n"
		 "Builds RUNDIR/timeline.rtl (all trace files and the capture merged, linked,\n"
		 "clock-aligned and indexed), RUNDIR/annotated.pcapng (the capture with one\n"
		 "comment per RoCE packet) and RUNDIR/annotations.jsonl.  Does nothing when the\n"
		 "timeline is newer than every input, unless --force.  --timeline-only skips the\n"
		 "annotated capture and sidecar (`rdmatrace export --format pcapng` writes them).\n"
		 "Exit status: 0 done, 2 error.\n",
	.run = run,
};

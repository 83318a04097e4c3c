/*
 * Memory the build fills at its end (the row array and the sort keys of
 * tl_finish), allocated and touched on a second thread while the main
 * thread links, which is single-threaded work.  Memory touched for the
 * first time costs about as much as filling it (page faults and zeroing:
 * about 0.5 ns a byte on a virtual machine), and the rows alone are 64
 * bytes each, so this takes a good part of tl_finish off the critical path.
 * The same thread prepares the file the timeline will be saved to (its
 * temporary name, with space allocated: tl_file_prepare), so that saving
 * copies into pages that already exist.  (The rows are not placed in that
 * file, mapped: writing a mapped file's pages from the program costs a
 * fault for each on first touch, and on a virtual machine whose memory is
 * paged by its host that was 0.2 s more for a million packets than
 * writing them from memory with pwrite(), a copy the kernel makes.)
 * It starts once the capture thread
 * is done (tl_build.prefault_after): two threads beside the linking on a
 * machine of two CPUs would slow the linking down.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tl_internal.h"

struct tl_prefault {
	pthread_t th;
	bool threaded;
	size_t size[TL_PREFAULT_SLOTS];
	void *p[TL_PREFAULT_SLOTS];
	char *file;               /* the save's temporary file to prepare, NULL none */
	uint64_t file_size;
	bool file_ready;          /* prepared, not yet taken */
	void (*after)(void *);    /* waited for first (tl_build.prefault_after) */
	void *after_arg;
};

static void touch(void *p, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	volatile char *c = p;
	for (size_t off = 0; off < len; off += page)
		c[off] = 0;
}

static void *prefault_run(void *arg)
{
	struct tl_prefault *f = arg;
	if (f->after)
		f->after(f->after_arg);
	if (f->file)
		f->file_ready = tl_file_prepare(f->file, f->file_size) == 0;
	for (unsigned s = 0; s < TL_PREFAULT_SLOTS; s++) {
		if (!f->size[s] || f->p[s] || !(f->p[s] = calloc(1, f->size[s])))
			continue;
		touch(f->p[s], f->size[s]);
	}
	return NULL;
}

void tl_prefault_start(struct tl_build *b, const size_t size[TL_PREFAULT_SLOTS], const char *file,
		       uint64_t file_size)
{
	struct tl_prefault *f = calloc(1, sizeof(*f));
	if (!f)
		return; /* the memory is allocated when it is needed instead */
	memcpy(f->size, size, sizeof(f->size));
	if (file && !(f->file = strdup(file))) {
		free(f);
		return;
	}
	f->file_size = file_size;
	f->after = b->prefault_after;
	f->after_arg = b->prefault_after_arg;
	b->prefault = f;
	f->threaded = pthread_create(&f->th, NULL, prefault_run, f) == 0;
	if (!f->threaded) {
		b->prefault = NULL;
		free(f->file);
		free(f);
	}
}

static void prefault_join(struct tl_build *b)
{
	struct tl_prefault *f = b->prefault;
	if (f && f->threaded) {
		pthread_join(f->th, NULL);
		f->threaded = false;
	}
}

void *tl_prefault_take(struct tl_build *b, unsigned slot, size_t size)
{
	struct tl_prefault *f = b->prefault;
	if (!f || slot >= TL_PREFAULT_SLOTS)
		return calloc(1, size ? size : 1);
	prefault_join(b);
	void *p = f->p[slot];
	size_t have = f->p[slot] ? f->size[slot] : 0;
	f->p[slot] = NULL;
	if (p && size > have) {
		/* more than foreseen (findings add rows): grow, the tail zeroed */
		void *q = realloc(p, size);
		if (!q) {
			free(p);
			return NULL;
		}
		memset((char *)q + have, 0, size - have);
		return q;
	}
	return p ? p : calloc(1, size ? size : 1);
}

char *tl_prefault_take_file(struct tl_build *b)
{
	struct tl_prefault *f = b->prefault;
	if (!f || !f->file)
		return NULL;
	prefault_join(b);
	char *file = f->file_ready ? f->file : NULL;
	if (!file)
		free(f->file);
	f->file = NULL;
	f->file_ready = false;
	return file;
}

void tl_prefault_free(struct tl_build *b)
{
	struct tl_prefault *f = b->prefault;
	if (!f)
		return;
	prefault_join(b);
	for (unsigned s = 0; s < TL_PREFAULT_SLOTS; s++)
		free(f->p[s]);
	if (f->file_ready)
		unlink(f->file); /* the build failed: nothing will be saved into it */
	free(f->file);
	free(f);
	b->prefault = NULL;
}

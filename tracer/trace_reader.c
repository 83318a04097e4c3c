/*
 * The trace file reader (include/rdmatrace/trace_reader.h).
 *
 * Each added file is scanned once through a bounds-checked cursor: header,
 * then chunks.  Intact records become index entries (file, offset, time);
 * clock-sync records become calibration points.  On the first next() the
 * ticks of every entry are converted to time piecewise between calibration
 * points and the entries of all files are sorted.  A damaged chunk header is
 * skipped by searching for the next valid one; a record is kept only if its
 * own CRC matches, so damage costs exactly the damaged records.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rdmatrace/clock.h"
#include "rdmatrace/trace_format.h"
#include "rdmatrace/trace_reader.h"

#define MAX_DAMAGE_PER_FILE 256

struct sync_pt {
	uint64_t ticks, mono, real;
};

struct proc_name {
	int32_t pid;
	char program[64];
};

struct tfile {
	struct rt_trace_source src;
	char *path;
	const uint8_t *data;
	size_t len;
	bool mapped;
	struct sync_pt *sync;
	size_t nsync, capsync;
	/* the points the wall-clock offset comes from, by CLOCK_MONOTONIC: its
	 * own (sync), or those of every file of its boot (same host, same
	 * clocks; share_wall_points) */
	const struct sync_pt *wall;
	size_t nwall;
	struct proc_name *procs;
	size_t nprocs, capprocs;
	size_t ndamage;
	bool damage_capped;
	uint64_t lost[5];         /* RT_EV_LOST counts of its intact records: all, then by cause 1..4 */
};

struct entry {
	uint64_t key;           /* raw ticks until finalize, then the merge time */
	uint64_t mono;
	uint64_t real;
	uint64_t offset;
	uint32_t file;
	int32_t pid;
	uint16_t chunk_flags;
};

#define MERGE_MAX_RUNS 64
struct rt_trace_reader {
	struct tfile *files;
	size_t nfiles, capfiles;
	struct entry *ents;
	size_t nents, capents;
	struct rt_trace_damage *damage;
	size_t ndamage, capdamage;
	bool finalized;
	struct sync_pt **walls;  /* the tfile.wall lists, to free */
	size_t nwalls, capwalls;
	/* the ascending runs of ents (find_runs): run k is [run[k], run[k + 1]),
	 * read up to run_pos[k] */
	size_t run[MERGE_MAX_RUNS + 1], run_pos[MERGE_MAX_RUNS];
	size_t nruns;
};

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap : 16;
	while (n < need)
		n *= 2;
	void *q = realloc(*p, n * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

struct rt_trace_reader *rt_trace_reader_new(void)
{
	return calloc(1, sizeof(struct rt_trace_reader));
}

/* ---- damage ---------------------------------------------------------------- */

static void add_damage(struct rt_trace_reader *r, struct tfile *f, uint64_t off, uint64_t len, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void add_damage(struct rt_trace_reader *r, struct tfile *f, uint64_t off, uint64_t len, const char *fmt, ...)
{
	if (f->damage_capped)
		return;
	if (f->ndamage >= MAX_DAMAGE_PER_FILE) {
		f->damage_capped = true;
		fmt = "further damage not listed";
		len = 0;
	}
	if (grow((void **)&r->damage, &r->capdamage, r->ndamage + 1, sizeof(*r->damage)) < 0)
		return;
	struct rt_trace_damage *d = &r->damage[r->ndamage++];
	f->ndamage++;
	d->path = f->path;
	d->offset = off;
	d->length = len;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d->message, sizeof(d->message), fmt, ap);
	va_end(ap);
}

/* ---- parsing ----------------------------------------------------------------- */

struct cursor {
	const uint8_t *p;
	size_t len;
};

/* Copy n bytes at off into dst if they are all inside the buffer. */
static bool cur_read(const struct cursor *c, uint64_t off, void *dst, size_t n)
{
	if (off > c->len || n > c->len - off)
		return false;
	memcpy(dst, c->p + off, n);
	return true;
}

static void copy_cstr(char *dst, size_t dlen, const char *src, size_t slen)
{
	size_t n = strnlen(src, slen);
	if (n >= dlen)
		n = dlen - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static int add_sync(struct tfile *f, uint64_t ticks, uint64_t mono, uint64_t real)
{
	if (grow((void **)&f->sync, &f->capsync, f->nsync + 1, sizeof(*f->sync)) < 0)
		return -ENOMEM;
	f->sync[f->nsync++] = (struct sync_pt){ticks, mono, real};
	return 0;
}

static void add_proc(struct tfile *f, int32_t pid, const char *program, size_t plen)
{
	for (size_t i = 0; i < f->nprocs; i++)
		if (f->procs[i].pid == pid) {
			copy_cstr(f->procs[i].program, sizeof(f->procs[i].program), program, plen);
			return;
		}
	if (grow((void **)&f->procs, &f->capprocs, f->nprocs + 1, sizeof(*f->procs)) < 0)
		return;
	f->procs[f->nprocs].pid = pid;
	copy_cstr(f->procs[f->nprocs].program, sizeof(f->procs[f->nprocs].program), program, plen);
	f->nprocs++;
}

static bool chunk_header_ok(const struct rt_chunk_header *ch)
{
	return ch->magic == RT_CHUNK_MAGIC &&
	       ch->header_crc == rt_crc32c(0, ch, offsetof(struct rt_chunk_header, header_crc));
}

/* The next offset after `from` holding a chunk header with a valid CRC, or len. */
static uint64_t resync(const struct cursor *c, uint64_t from)
{
	static const uint8_t magic[4] = {'R', 'T', 'C', 'K'};
	for (uint64_t off = from; off + RT_CHUNK_HEADER_SIZE <= c->len; off++) {
		if (memcmp(c->p + off, magic, 4) != 0)
			continue;
		struct rt_chunk_header ch;
		cur_read(c, off, &ch, sizeof(ch));
		if (chunk_header_ok(&ch))
			return off;
	}
	return c->len;
}

static int add_entry(struct rt_trace_reader *r, uint32_t file, uint64_t off, uint64_t ticks, int32_t pid,
		     uint16_t flags)
{
	if (grow((void **)&r->ents, &r->capents, r->nents + 1, sizeof(*r->ents)) < 0)
		return -ENOMEM;
	r->ents[r->nents++] = (struct entry){.key = ticks, .offset = off, .file = file, .pid = pid,
					     .chunk_flags = flags};
	return 0;
}

static int scan_events(struct rt_trace_reader *r, struct tfile *f, uint32_t fi, const struct cursor *c,
		       uint64_t off, const struct rt_chunk_header *ch)
{
	uint32_t table = rt_chunk_crc_table_size(ch->count);
	uint64_t base = off + RT_CHUNK_HEADER_SIZE;
	uint64_t bad_start = 0, bad_len = 0;
	uint32_t intact = 0;
	for (uint32_t i = 0; i < ch->count; i++) {
		uint64_t eoff = base + table + (uint64_t)i * RT_EVENT_SIZE;
		uint32_t crc;
		struct rt_event ev;
		if (!cur_read(c, base + (uint64_t)i * 4, &crc, 4) || !cur_read(c, eoff, &ev, sizeof(ev)))
			break; /* truncated: reported by the caller */
		if (crc != rt_crc32c(0, &ev, sizeof(ev))) {
			if (bad_len && bad_start + bad_len == eoff) {
				bad_len += RT_EVENT_SIZE;
			} else {
				if (bad_len)
					add_damage(r, f, bad_start, bad_len, "corrupt records (checksum mismatch)");
				bad_start = eoff;
				bad_len = RT_EVENT_SIZE;
			}
			continue;
		}
		intact++;
		if (add_entry(r, fi, eoff, ev.ticks, ch->pid, ch->flags) < 0)
			return -ENOMEM;
		if (ev.kind == RT_EV_LOST) {
			f->lost[0] += ev.u.lost.count;
			if (ev.u.lost.cause >= 1 && ev.u.lost.cause <= 4)
				f->lost[ev.u.lost.cause] += ev.u.lost.count;
		}
		if (ev.kind == RT_EV_CLOCK_SYNC && add_sync(f, ev.u.clock.ticks, ev.u.clock.mono_ns, ev.u.clock.real_ns) < 0)
			return -ENOMEM;
	}
	if (bad_len)
		add_damage(r, f, bad_start, bad_len, "corrupt records (checksum mismatch)");
	f->src.records += intact;
	return (int)intact;
}

static int scan_chunks(struct rt_trace_reader *r, struct tfile *f, uint32_t fi, uint64_t off)
{
	struct cursor c = {f->data, f->len};
	while (off < c.len) {
		struct rt_chunk_header ch;
		if (!cur_read(&c, off, &ch, sizeof(ch))) {
			add_damage(r, f, off, c.len - off, "truncated chunk header (%llu of %d bytes)",
				   (unsigned long long)(c.len - off), RT_CHUNK_HEADER_SIZE);
			break;
		}
		bool ok = chunk_header_ok(&ch);
		const char *why = "corrupt chunk header";
		if (ok && ch.type == RT_CHUNK_EVENTS &&
		    (ch.count == 0 || ch.count > RT_CHUNK_MAX_EVENTS ||
		     ch.payload_len != rt_chunk_crc_table_size(ch.count) + ch.count * (uint32_t)RT_EVENT_SIZE)) {
			ok = false;
			why = "inconsistent chunk header";
		}
		if (ok && ch.type == RT_CHUNK_PROCESS && ch.payload_len != sizeof(struct rt_process_record)) {
			ok = false;
			why = "inconsistent process chunk";
		}
		if (!ok) {
			uint64_t next = resync(&c, off + 1);
			add_damage(r, f, off, next - off, "%s; %llu bytes skipped", why,
				   (unsigned long long)(next - off));
			off = next;
			continue;
		}
		uint64_t end = off + RT_CHUNK_HEADER_SIZE + ch.payload_len;
		bool truncated = end > c.len;
		if (ch.type == RT_CHUNK_EVENTS) {
			int n = scan_events(r, f, fi, &c, off, &ch);
			if (n < 0)
				return n;
			if (truncated)
				add_damage(r, f, off, c.len - off, "truncated chunk: %d of %u records complete", n,
					   ch.count);
		} else if (ch.type == RT_CHUNK_PROCESS) {
			struct rt_process_record p;
			if (truncated || !cur_read(&c, off + RT_CHUNK_HEADER_SIZE, &p, sizeof(p)))
				add_damage(r, f, off, c.len - off, "truncated process chunk");
			else if (rt_crc32c(0, &p, sizeof(p)) != ch.payload_crc)
				add_damage(r, f, off + RT_CHUNK_HEADER_SIZE, sizeof(p), "corrupt process chunk");
			else
				add_proc(f, p.pid, p.program, sizeof(p.program));
		} else if (truncated) {
			add_damage(r, f, off, c.len - off, "truncated chunk of unknown type %u", ch.type);
		}
		/* Unknown chunk types (a newer minor version) are skipped whole. */
		off = truncated ? c.len : end;
	}
	return 0;
}

static int add_image(struct rt_trace_reader *r, struct tfile *f, char *errbuf, size_t errlen)
{
	struct cursor c = {f->data, f->len};
	struct rt_file_header h;
	if (f->len < 8 || memcmp(f->data, RT_FILE_MAGIC, 8) != 0) {
		snprintf(errbuf, errlen, "%s: not an rdmatrace trace file (bad magic at byte offset 0)", f->path);
		return -EPROTO;
	}
	if (!cur_read(&c, 0, &h, sizeof(h))) {
		snprintf(errbuf, errlen, "%s: file header truncated at byte offset %zu (%d bytes expected)", f->path,
			 f->len, RT_FILE_HEADER_SIZE);
		return -EPROTO;
	}
	if (h.version_major != RT_FILE_VERSION_MAJOR) {
		snprintf(errbuf, errlen,
			 "%s: unsupported trace format version %u.%u at byte offset 8 (this reader reads %d.x)",
			 f->path, h.version_major, h.version_minor, RT_FILE_VERSION_MAJOR);
		return -EPROTONOSUPPORT;
	}
	if (h.byte_order != RT_FILE_BYTE_ORDER) {
		snprintf(errbuf, errlen, "%s: written with another byte order (byte offset 20)", f->path);
		return -EPROTONOSUPPORT;
	}
	if (h.event_size != RT_EVENT_SIZE) {
		snprintf(errbuf, errlen, "%s: record size %u at byte offset 16, expected %d", f->path, h.event_size,
			 RT_EVENT_SIZE);
		return -EPROTONOSUPPORT;
	}
	uint32_t fi = (uint32_t)(f - r->files);
	bool hdr_ok = h.header_crc == rt_crc32c(0, &h, offsetof(struct rt_file_header, header_crc));
	uint64_t start = RT_FILE_HEADER_SIZE;
	if (!hdr_ok) {
		add_damage(r, f, 0, RT_FILE_HEADER_SIZE,
			   "file header checksum mismatch: host, program and calibration may be wrong");
	} else if (h.header_size > RT_FILE_HEADER_SIZE && h.header_size <= f->len) {
		start = h.header_size; /* a newer minor version with a longer header */
	}
	f->src.version_major = h.version_major;
	f->src.version_minor = h.version_minor;
	f->src.mode = h.mode;
	f->src.pid = h.pid;
	f->src.clock_source = h.calib.source;
	copy_cstr(f->src.host, sizeof(f->src.host), h.host, sizeof(h.host));
	copy_cstr(f->src.boot_id, sizeof(f->src.boot_id), h.boot_id, sizeof(h.boot_id));
	copy_cstr(f->src.program, sizeof(f->src.program), h.program, sizeof(h.program));
	if (h.pid)
		add_proc(f, h.pid, h.program, sizeof(h.program));
	if (hdr_ok && (h.calib.source == RT_CLOCK_TSC || h.calib.source == RT_CLOCK_MONOTONIC)) {
		const struct rt_clock_calib *k = &h.calib;
		if (add_sync(f, k->base.ticks, k->base.mono_ns, k->base.real_ns) < 0)
			return -ENOMEM;
		if (k->rate_ticks && k->rate_ns &&
		    add_sync(f, k->base.ticks + k->rate_ticks, k->base.mono_ns + k->rate_ns,
			     k->base.real_ns + k->rate_ns) < 0)
			return -ENOMEM;
	}
	int rc = scan_chunks(r, f, fi, start);
	if (rc < 0)
		snprintf(errbuf, errlen, "%s: %s", f->path, strerror(-rc));
	return rc;
}

static struct tfile *new_file(struct rt_trace_reader *r, const char *path)
{
	if (grow((void **)&r->files, &r->capfiles, r->nfiles + 1, sizeof(*r->files)) < 0)
		return NULL;
	char *p = strdup(path);
	if (!p)
		return NULL;
	/* src.path points into the file entry, which moves when files grows: fixed up on use. */
	struct tfile *f = &r->files[r->nfiles];
	memset(f, 0, sizeof(*f));
	f->path = p;
	return f;
}

static void drop_file(struct tfile *f)
{
	if (f->mapped && f->data)
		munmap((void *)f->data, f->len);
	free(f->path);
	free(f->sync);
	free(f->procs);
}

/* Remove what a failed add_image left behind (entries and damage of that file). */
static void undo_file(struct rt_trace_reader *r, struct tfile *f, size_t nents, size_t ndamage)
{
	r->nents = nents;
	r->ndamage = ndamage;
	drop_file(f);
}

static int add_common(struct rt_trace_reader *r, struct tfile *f, char *errbuf, size_t errlen)
{
	size_t nents = r->nents, ndamage = r->ndamage;
	char tmp[512];
	if (!errbuf) {
		errbuf = tmp;
		errlen = sizeof(tmp);
	}
	f->src.size = f->len;
	int rc = add_image(r, f, errbuf, errlen);
	if (rc < 0) {
		undo_file(r, f, nents, ndamage);
		return rc;
	}
	r->nfiles++;
	r->finalized = false;
	return 0;
}

int rt_trace_reader_add_buffer(struct rt_trace_reader *r, const char *name, const void *data, size_t len,
			       char *errbuf, size_t errlen)
{
	struct tfile *f = new_file(r, name ? name : "(buffer)");
	if (!f)
		return -ENOMEM;
	f->data = data;
	f->len = len;
	return add_common(r, f, errbuf, errlen);
}

int rt_trace_reader_add_file(struct rt_trace_reader *r, const char *path, char *errbuf, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int err = -errno;
		if (errbuf)
			snprintf(errbuf, errlen, "%s: %s", path, strerror(-err));
		return err;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		int err = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		close(fd);
		if (errbuf)
			snprintf(errbuf, errlen, "%s: not a regular file", path);
		return err;
	}
	const void *data = NULL;
	if (st.st_size > 0) {
		data = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (data == MAP_FAILED) {
			int err = -errno;
			close(fd);
			if (errbuf)
				snprintf(errbuf, errlen, "%s: %s", path, strerror(-err));
			return err;
		}
	}
	close(fd);
	struct tfile *f = new_file(r, path);
	if (!f) {
		if (data)
			munmap((void *)data, (size_t)st.st_size);
		return -ENOMEM;
	}
	f->data = data;
	f->len = (size_t)st.st_size;
	f->mapped = data != NULL;
	return add_common(r, f, errbuf, errlen);
}

/* ---- time conversion and merge --------------------------------------------------- */

static int cmp_sync(const void *a, const void *b)
{
	const struct sync_pt *x = a, *y = b;
	if (x->ticks != y->ticks)
		return x->ticks < y->ticks ? -1 : 1;
	return x->mono < y->mono ? -1 : x->mono > y->mono;
}

/* Drop calibration points that would make time run backwards. */
static void clean_sync(struct tfile *f)
{
	if (f->nsync > 1)
		qsort(f->sync, f->nsync, sizeof(*f->sync), cmp_sync);
	size_t o = 0;
	for (size_t i = 0; i < f->nsync; i++) {
		if (o && (f->sync[i].ticks == f->sync[o - 1].ticks || f->sync[i].mono < f->sync[o - 1].mono))
			continue;
		f->sync[o++] = f->sync[i];
	}
	f->nsync = o;
}

static int cmp_sync_mono(const void *a, const void *b)
{
	const struct sync_pt *x = a, *y = b;
	return x->mono < y->mono ? -1 : x->mono > y->mono;
}

/*
 * The wall-clock offset is the host's, not a process's: every file of one
 * boot takes it from the clock points of all of them.  A wall clock set
 * while several processes were traced is then placed at the first point
 * any of their collectors wrote after it, not at each one's own (a busy
 * process's collector thread may notice milliseconds late).  Without
 * memory for that, each file keeps its own points.
 */
static void share_wall_points(struct rt_trace_reader *r)
{
	for (size_t i = 0; i < r->nfiles; i++) {
		r->files[i].wall = r->files[i].sync;
		r->files[i].nwall = r->files[i].nsync;
	}
	for (size_t i = 0; i < r->nfiles; i++) {
		const char *boot = r->files[i].src.boot_id;
		if (!boot[0] || r->files[i].wall != r->files[i].sync)
			continue; /* no boot id, or its boot's points shared already */
		size_t n = 0, members = 0;
		for (size_t j = i; j < r->nfiles; j++)
			if (!strcmp(r->files[j].src.boot_id, boot)) {
				n += r->files[j].nsync;
				members++;
			}
		if (members < 2 || !n || grow((void **)&r->walls, &r->capwalls, r->nwalls + 1, sizeof(*r->walls)) < 0)
			continue;
		struct sync_pt *pts = malloc(n * sizeof(*pts));
		if (!pts)
			continue;
		n = 0;
		for (size_t j = i; j < r->nfiles; j++)
			if (!strcmp(r->files[j].src.boot_id, boot) && r->files[j].nsync) { /* (a file without points has none) */
				memcpy(pts + n, r->files[j].sync, r->files[j].nsync * sizeof(*pts));
				n += r->files[j].nsync;
			}
		qsort(pts, n, sizeof(*pts), cmp_sync_mono);
		r->walls[r->nwalls++] = pts;
		for (size_t j = i; j < r->nfiles; j++)
			if (!strcmp(r->files[j].src.boot_id, boot)) {
				r->files[j].wall = pts;
				r->files[j].nwall = n;
			}
	}
}

/* The first of n points (by CLOCK_MONOTONIC) past mono (n: none). */
static size_t point_after(const struct sync_pt *s, size_t n, uint64_t mono)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s[mid].mono <= mono)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The wall-clock offset (CLOCK_REALTIME - CLOCK_MONOTONIC) at mono, moving
 * linearly from one of the n points' offset to the next's: NTP slews the
 * wall clock between points (fast just after boot), and taking each point's
 * offset as it stands would step the converted times back at a point,
 * printing records merged in order with times out of order.
 * A change no slewing makes (rt_clock_wall_stepped) is the clock set between
 * the points: the earlier point's offset holds up to the later one, which
 * the collector writes as soon as it notices the step.  Before the first
 * point and after the last the offset of the nearest point holds. */
static int64_t wall_offset(const struct sync_pt *s, size_t n, uint64_t mono)
{
	size_t hi = point_after(s, n, mono);
	const struct sync_pt *b = &s[hi < n ? hi : n - 1];
	int64_t off_b = (int64_t)(b->real - b->mono);
	if (hi == 0 || hi == n)
		return off_b;
	const struct sync_pt *a = &s[hi - 1];
	int64_t off_a = (int64_t)(a->real - a->mono);
	if (b->mono <= a->mono)
		return off_a;
	/* the change across the segment in integers (offsets are ~1.8e18 ns, past
	 * a double's ns precision); damaged points may make it overflow */
	int64_t change;
	if (__builtin_sub_overflow(off_b, off_a, &change) || change > (1ll << 52) || change < -(1ll << 52))
		return off_a; /* (52 days of change: no clock's, and past a double's integers) */
	if (rt_clock_wall_stepped(change, b->mono - a->mono))
		return off_a;
	double frac = (double)(mono - a->mono) / (double)(b->mono - a->mono);
	int64_t part = (int64_t)((double)change * frac); /* between 0 and change */
	int64_t off;
	return __builtin_add_overflow(off_a, part, &off) ? off_a : off;
}

static void convert(const struct tfile *f, uint64_t ticks, uint64_t *mono, uint64_t *real)
{
	if (f->nsync == 0) {
		*mono = ticks;
		*real = ticks;
		return;
	}
	if (f->src.clock_source == RT_CLOCK_MONOTONIC || f->nsync == 1) {
		const struct sync_pt *p = &f->sync[0];
		*mono = f->src.clock_source == RT_CLOCK_MONOTONIC ? ticks : p->mono + (ticks - p->ticks);
	} else {
		/* Binary search the segment [lo, lo+1] around ticks; extrapolate at the ends. */
		size_t lo = 0, hi = f->nsync - 1;
		if (ticks <= f->sync[0].ticks) {
			lo = 0;
		} else if (ticks >= f->sync[hi].ticks) {
			lo = hi - 1;
		} else {
			while (hi - lo > 1) {
				size_t mid = lo + (hi - lo) / 2;
				if (f->sync[mid].ticks <= ticks)
					lo = mid;
				else
					hi = mid;
			}
		}
		const struct sync_pt *a = &f->sync[lo], *b = &f->sync[lo + 1];
		*mono = rt_clock_interpolate(a->ticks, a->mono, b->ticks, b->mono, ticks);
	}
	*real = *mono + (uint64_t)wall_offset(f->wall, f->nwall, *mono);
}

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* The order records are read in is cmp_entry's.  Each file's records are
 * mostly in time order already, so the entries are usually a few ascending
 * runs: rt_trace_reader_next() merges them as it goes (the next record is
 * the least of the runs' heads), with no sorted copy of the entries (64 MB
 * of new memory for a million records).  With more runs than that merge
 * should pick among, the entries are sorted in place instead (one run).
 * cmp_entry is a total order (file and offset are unique), so both give
 * the same order. */
static void find_runs(struct rt_trace_reader *r)
{
	size_t n = r->nents;
	r->nruns = 0;
	r->run[r->nruns++] = 0;
	for (size_t i = 1; i < n; i++) {
		if (cmp_entry(&r->ents[i - 1], &r->ents[i]) <= 0)
			continue;
		if (r->nruns == MERGE_MAX_RUNS) {
			qsort(r->ents, n, sizeof(*r->ents), cmp_entry);
			r->nruns = 1;
			break;
		}
		r->run[r->nruns++] = i;
	}
	r->run[r->nruns] = n;
	memcpy(r->run_pos, r->run, r->nruns * sizeof(r->run[0]));
}

/* The next entry in cmp_entry order (NULL after the last). */
static const struct entry *next_entry(struct rt_trace_reader *r)
{
	size_t best = SIZE_MAX;
	for (size_t k = 0; k < r->nruns; k++)
		if (r->run_pos[k] < r->run[k + 1] &&
		    (best == SIZE_MAX || cmp_entry(&r->ents[r->run_pos[k]], &r->ents[r->run_pos[best]]) < 0))
			best = k;
	return best == SIZE_MAX ? NULL : &r->ents[r->run_pos[best]++];
}

static void finalize(struct rt_trace_reader *r)
{
	if (r->finalized)
		return;
	bool same_boot = true;
	for (size_t i = 0; i < r->nfiles; i++) {
		clean_sync(&r->files[i]);
		r->files[i].src.path = r->files[i].path;
		r->files[i].src.first_ns = UINT64_MAX;
		r->files[i].src.last_ns = 0;
		if (i && (strcmp(r->files[i].src.boot_id, r->files[0].src.boot_id) != 0 || !r->files[i].src.boot_id[0]))
			same_boot = false;
	}
	share_wall_points(r);
	for (size_t i = 0; i < r->nents; i++) {
		struct entry *e = &r->ents[i];
		struct tfile *f = &r->files[e->file];
		convert(f, e->key, &e->mono, &e->real);
		e->key = same_boot ? e->mono : e->real;
		if (e->real < f->src.first_ns)
			f->src.first_ns = e->real;
		if (e->real > f->src.last_ns)
			f->src.last_ns = e->real;
	}
	for (size_t i = 0; i < r->nfiles; i++)
		if (r->files[i].src.first_ns == UINT64_MAX)
			r->files[i].src.first_ns = 0;
	find_runs(r);
	r->finalized = true;
}

static const char *program_of(const struct tfile *f, int32_t pid)
{
	for (size_t i = 0; i < f->nprocs; i++)
		if (f->procs[i].pid == pid)
			return f->procs[i].program;
	return "";
}

int rt_trace_reader_next(struct rt_trace_reader *r, struct rt_trace_record *out)
{
	finalize(r);
	const struct entry *e = next_entry(r);
	if (!e)
		return 0;
	const struct tfile *f = &r->files[e->file];
	memcpy(&out->ev, f->data + e->offset, sizeof(out->ev));
	out->ns = e->real;
	out->mono_ns = e->mono;
	out->pid = e->pid;
	out->program = program_of(f, e->pid);
	out->src = &f->src;
	out->file = e->file;
	out->offset = e->offset;
	out->chunk_flags = e->chunk_flags;
	return 1;
}

void rt_trace_reader_rewind(struct rt_trace_reader *r)
{
	memcpy(r->run_pos, r->run, r->nruns * sizeof(r->run[0]));
}

size_t rt_trace_reader_count(struct rt_trace_reader *r)
{
	finalize(r);
	return r->nents;
}

size_t rt_trace_reader_source_count(const struct rt_trace_reader *r)
{
	return r->nfiles;
}

const struct rt_trace_source *rt_trace_reader_source(const struct rt_trace_reader *r, size_t i)
{
	if (i >= r->nfiles)
		return NULL;
	r->files[i].src.path = r->files[i].path;
	return &r->files[i].src;
}

size_t rt_trace_reader_damage_count(const struct rt_trace_reader *r)
{
	return r->ndamage;
}

const struct rt_trace_damage *rt_trace_reader_damage(const struct rt_trace_reader *r, size_t i)
{
	return i < r->ndamage ? &r->damage[i] : NULL;
}

/* Counted as the files were scanned (scan_events), not by a pass over every
 * record. */
void rt_trace_reader_lost(struct rt_trace_reader *r, uint64_t lost[5])
{
	memset(lost, 0, 5 * sizeof(lost[0]));
	for (size_t i = 0; i < r->nfiles; i++)
		for (int c = 0; c < 5; c++)
			lost[c] += r->files[i].lost[c];
}

void rt_trace_reader_free(struct rt_trace_reader *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nfiles; i++)
		drop_file(&r->files[i]);
	for (size_t i = 0; i < r->nwalls; i++)
		free(r->walls[i]);
	free(r->walls);
	free(r->files);
	free(r->ents);
	free(r->damage);
	free(r);
}

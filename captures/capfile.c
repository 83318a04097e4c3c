/*
 * Capture-file front end: picks the backend (our own parser in
 * capfile_parse.c, over a file's window or a buffer, or libpcap), opens
 * files and buffers (a compressed one decompressed as it is read,
 * capfile_compressed.c), and runs the libpcap backend itself
 * (pcap_open_offline_with_tstamp_precision at nanosecond precision, fmemopen
 * for buffers, fopencookie for a compressed stream).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capfile_impl.h"

static void set_err(char *err, size_t errlen, const char *msg)
{
	if (err && errlen)
		snprintf(err, errlen, "%s", msg);
}

/* libpcap returns DLT_ values; files and the decoder use LINKTYPE_ values. */
static uint16_t linktype_of_dlt(int dlt)
{
	switch (dlt) {
	case DLT_RAW: return 101;
#ifdef DLT_LINUX_SLL2
	case DLT_LINUX_SLL2: return 276;
#endif
	default: return (uint16_t)dlt;
	}
}

static int libpcap_start(struct rt_capfile *f, pcap_t *pc)
{
	f->pc = pc;
	f->backend = RT_CAPFILE_LIBPCAP;
	f->linktype = linktype_of_dlt(pcap_datalink(pc));
	return 0;
}

/* The first four bytes of a pcapng file (its section header's type). */
static bool is_pcapng_magic(const uint8_t *m)
{
	return m[0] == 0x0A && m[1] == 0x0D && m[2] == 0x0D && m[3] == 0x0A;
}

static int libpcap_refused(const char *name, const char *ebuf, char *err, size_t errlen)
{
	if (err && errlen)
		snprintf(err, errlen, "%s%s%s", name ? name : "", name ? ": " : "", ebuf[0] ? ebuf : "cannot read capture");
	return -EINVAL;
}

/* libpcap reads the stream s (taken: pcap_close closes it); NAME, or NULL,
 * names it in messages. */
static int open_libpcap_stream(struct rt_capfile *f, FILE *s, const char *name, char *err, size_t errlen)
{
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	pcap_t *pc = pcap_fopen_offline_with_tstamp_precision(s, PCAP_TSTAMP_PRECISION_NANO, ebuf);
	if (!pc) {
		fclose(s);
		return libpcap_refused(name, ebuf, err, errlen);
	}
	return libpcap_start(f, pc);
}

/* libpcap reads the regular file path, or buf[len]. */
static int open_libpcap(struct rt_capfile *f, const char *path, const void *buf, size_t len, char *err, size_t errlen)
{
	FILE *s;
	uint8_t magic[4] = { 0 };
	if (path) {
		/* Open it ourselves to see the magic: libpcap does not say pcap or pcapng. */
		s = fopen(path, "rb");
		if (!s) {
			int e = errno;
			if (err && errlen)
				snprintf(err, errlen, "%s: %s", path, strerror(e));
			return -e;
		}
		if (fread(magic, 1, 4, s) != 4)
			memset(magic, 0, 4);
		rewind(s);
	} else {
		/* fmemopen refuses a zero-length buffer: give it one byte it never reads */
		static const char empty[1];
		if (len >= 4)
			memcpy(magic, buf, 4);
		s = fmemopen(len ? (void *)buf : (void *)empty, len ? len : 1, "rb");
		if (!s) {
			int e = errno;
			set_err(err, errlen, strerror(e));
			return -e;
		}
		if (!len)
			fgetc(s);
	}
	f->pcapng = is_pcapng_magic(magic);
	return open_libpcap_stream(f, s, path, err, errlen);
}

static int next_libpcap(struct rt_capfile *f, struct rt_caprec *rec)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	int rc = pcap_next_ex(f->pc, &h, &data);
	if (rc == 1) {
		rec->data = data;
		rec->caplen = h->caplen;
		rec->wirelen = h->len < h->caplen ? h->caplen : h->len;
		rec->ts_ns = (uint64_t)h->ts.tv_sec * 1000000000u + (uint64_t)h->ts.tv_usec;
		rec->frame = ++f->frame;
		rec->linktype = f->linktype;
		rec->ifindex = 0;
		rec->comment = NULL;
		rec->comment_len = 0;
		return 1;
	}
	if (rc == PCAP_ERROR_BREAK) {
		f->status = 1;
		return 0;
	}
	return capfile_fail(f, EBADMSG, "after frame %llu: %s", (unsigned long long)f->frame, pcap_geterr(f->pc));
}

static int alloc_file(struct rt_capfile **out, char *err, size_t errlen)
{
	*out = calloc(1, sizeof(**out));
	if (!*out) {
		set_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	(*out)->fd = -1;
	return 0;
}

static int start_parser(struct rt_capfile *f, const char *path, char *err, size_t errlen)
{
	f->backend = RT_CAPFILE_MMAP;
	int rc = capfile_parse_start(f);
	if (rc < 0 && err && errlen)
		snprintf(err, errlen, "%s%s%s", path ? path : "", path ? ": " : "", f->err);
	return rc;
}

/* How the compressed stream of f was damaged, when that is where reading
 * stopped: our parser asked for bytes past the end of what was
 * decompressed (so whatever the window's size), or libpcap (which reads
 * ahead on its own) stopped; else NULL. */
static const char *z_damage_reached(const struct rt_capfile *f)
{
	const char *damage = capfile_z_damage(f->z);
	return damage[0] && (f->backend != RT_CAPFILE_MMAP || f->at_end) ? damage : NULL;
}

/* What libpcap reads through a FILE of ours (fopencookie): the first bytes
 * of the capture, which our window read to see what it is (head), then the
 * rest of the stream z (a compressed file or buffer, or a pipe). */
struct stream_cookie {
	struct capfile_z *z;      /* (the capfile's: closed by rt_capfile_close) */
	size_t head_n, head_at;
	uint8_t head[];
};

void capfile_before_wait(int fd, const struct capfile_wait *w)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	if (w && w->fn && poll(&p, 1, 0) == 0)
		w->fn(w->arg);
}

void rt_capfile_on_wait(struct rt_capfile *f, void (*fn)(void *arg), void *arg)
{
	if (f) {
		f->wait.fn = fn;
		f->wait.arg = arg;
	}
}

static ssize_t stream_cookie_read(void *cookie, char *buf, size_t n)
{
	struct stream_cookie *c = cookie;
	size_t got = c->head_n - c->head_at < n ? c->head_n - c->head_at : n;
	memcpy(buf, c->head + c->head_at, got);
	c->head_at += got;
	return (ssize_t)(got + (got < n ? capfile_z_read(c->z, (uint8_t *)buf + got, n - got) : 0));
}

static int stream_cookie_close(void *cookie)
{
	free(cookie);
	return 0;
}

/* Reads up to n bytes of fd into buf, as many as it has before its end:
 * their count, or -errno. */
static ssize_t read_head(int fd, uint8_t *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

/* Opening f's stream ended with rc: its format names the codec, and a
 * failure says how the stream was damaged, when it was. */
static int z_opened(struct rt_capfile *f, int rc, char *err, size_t errlen)
{
	const char *codec = capfile_z_codec(f->z);
	if (codec)
		snprintf(f->format, sizeof(f->format), "%s (%s)", f->pcapng ? "pcapng" : "pcap", codec);
	const char *damage;
	if (rc < 0 && (damage = z_damage_reached(f)) && err && errlen) {
		size_t l = strlen(err);
		snprintf(err + l, errlen - l, " (%s)", damage);
	}
	return rc;
}

/* f reads its stream f->z (a compressed file or buffer, or a pipe), NAME
 * in messages: our parser through its window, or libpcap when asked for or
 * when ours does not know the format inside.  The window's first bytes
 * say which; libpcap is then given them first, then the rest of the
 * stream (which is read once, in order). */
static int open_z(struct rt_capfile *f, const char *name, enum rt_capfile_backend backend, char *err, size_t errlen)
{
	int rc = capfile_window_open_z(f);
	const char *damage = capfile_z_damage(f->z);
	if (rc < 0 || (!f->win_len && damage[0])) { /* (nothing decompressed: the stream's fault alone) */
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", name, rc < 0 ? f->err : damage);
		return rc < 0 ? rc : -EBADMSG;
	}
	if (backend != RT_CAPFILE_LIBPCAP &&
	    (backend == RT_CAPFILE_MMAP || capfile_parse_recognises(f->win, f->win_len)))
		return z_opened(f, start_parser(f, name, err, errlen), err, errlen);
	struct stream_cookie *c = calloc(1, sizeof(*c) + f->win_len);
	if (!c) {
		set_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	c->z = f->z;
	memcpy(c->head, f->win, f->win_len); /* (the stream's first bytes: the window starts at 0) */
	c->head_n = f->win_len;
	f->pcapng = c->head_n >= 4 && is_pcapng_magic(c->head);
	capfile_window_close(f);
	FILE *s = fopencookie(c, "rb", (cookie_io_functions_t){ .read = stream_cookie_read, .close = stream_cookie_close });
	if (!s) {
		rc = -errno;
		free(c);
		set_err(err, errlen, strerror(-rc));
		return rc;
	}
	return z_opened(f, open_libpcap_stream(f, s, name, err, errlen), err, errlen);
}

/* f reads the compressed stream (fd of len bytes, taken, or mem[len];
 * magic[magic_len] its first bytes) as it decompresses it (open_z). */
static int open_compressed(struct rt_capfile *f, int fd, const uint8_t *mem, size_t len, const uint8_t *magic,
			   size_t magic_len, const char *name, enum rt_capfile_backend backend, char *err, size_t errlen)
{
	f->z = capfile_z_open(fd, mem, len, magic, magic_len);
	if (!f->z) {
		if (fd >= 0)
			close(fd);
		set_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return open_z(f, name, backend, err, errlen);
}

/* f reads "-" (standard input) or path, which is not a regular file (a
 * pipe, read only once, as it comes): its first four bytes are read to see
 * whether it is compressed, then it is read as a stream (open_z). */
static int open_pipe(struct rt_capfile *f, const char *path, enum rt_capfile_backend backend, char *err,
		     size_t errlen)
{
	int fd = !strcmp(path, "-") ? fcntl(0, F_DUPFD_CLOEXEC, 0) : open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	int e = fd < 0 ? errno : fstat(fd, &st) < 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : 0;
	uint8_t head[4];
	ssize_t n = e ? 0 : read_head(fd, head, sizeof(head));
	if (!e && n < 0)
		e = (int)-n;
	if (e) {
		if (fd >= 0)
			close(fd);
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	if (!(f->z = capfile_z_open_pipe(fd, head, (size_t)n, &f->wait))) {
		close(fd);
		set_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return open_z(f, path, backend, err, errlen);
}

int rt_capfile_open(const char *path, enum rt_capfile_backend backend, struct rt_capfile **out, char *err,
		    size_t errlen)
{
	if (!path || !out)
		return -EINVAL;
	*out = NULL;
	struct rt_capfile *f;
	int rc = alloc_file(&f, err, errlen);
	if (rc < 0)
		return rc;
	/* "-", and what is not a regular file (a pipe, read only once), is read
	 * as a stream; a regular file through a window, or by libpcap */
	struct stat pst;
	if (!strcmp(path, "-") || (stat(path, &pst) == 0 && !S_ISREG(pst.st_mode))) {
		if ((rc = open_pipe(f, path, backend, err, errlen)) < 0)
			goto fail;
		*out = f;
		return 0;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && backend != RT_CAPFILE_LIBPCAP) {
		rc = -errno;
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	struct stat st = { 0 };
	uint8_t magic[4];
	bool regular = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
	ssize_t nmagic = regular ? pread(fd, magic, sizeof(magic), 0) : 0;
	if (nmagic > 0 && rt_capfile_compression(magic, (size_t)nmagic)) {
		/* compressed (for either backend: libpcap decompresses nothing) */
		if ((rc = open_compressed(f, fd, NULL, (size_t)st.st_size, magic, (size_t)nmagic, path, backend, err,
					  errlen)) < 0)
			goto fail;
		*out = f;
		return 0;
	}
	if (fd < 0) {
		/* (libpcap says why) */
	} else if (backend == RT_CAPFILE_LIBPCAP) {
		close(fd);
	} else if (regular) {
		if ((rc = capfile_window_open(f, fd, (size_t)st.st_size)) < 0) {
			if (err && errlen)
				snprintf(err, errlen, "%s: %s", path, f->err);
			goto fail; /* closes fd */
		}
		if (capfile_parse_recognises(f->win, f->win_len) || backend == RT_CAPFILE_MMAP) {
			if ((rc = start_parser(f, path, err, errlen)) < 0)
				goto fail;
			*out = f;
			return 0;
		}
		capfile_window_close(f); /* closes fd */
	} else {
		close(fd);
		if (backend == RT_CAPFILE_MMAP) {
			rc = -EINVAL;
			if (err && errlen)
				snprintf(err, errlen, "%s: %s", path,
					 S_ISREG(st.st_mode) ? "empty file: not a capture"
							     : "not a regular file");
			goto fail;
		}
	}
	if ((rc = open_libpcap(f, path, NULL, 0, err, errlen)) < 0)
		goto fail;
	*out = f;
	return 0;
fail:
	rt_capfile_close(f);
	return rc;
}

int rt_capfile_open_mem(const void *buf, size_t len, enum rt_capfile_backend backend, struct rt_capfile **out,
			char *err, size_t errlen)
{
	if ((!buf && len) || !out)
		return -EINVAL;
	*out = NULL;
	struct rt_capfile *f;
	int rc = alloc_file(&f, err, errlen);
	if (rc < 0)
		return rc;
	if (rt_capfile_compression(buf, len))
		rc = open_compressed(f, -1, buf, len, buf, len, "buffer", backend, err, errlen);
	else if (backend == RT_CAPFILE_MMAP || (backend == RT_CAPFILE_AUTO && capfile_parse_recognises(buf, len))) {
		f->base = buf;
		f->len = len;
		rc = start_parser(f, NULL, err, errlen);
	} else {
		rc = open_libpcap(f, NULL, buf, len, err, errlen);
	}
	if (rc < 0) {
		rt_capfile_close(f);
		return rc;
	}
	*out = f;
	return 0;
}

int rt_capfile_next(struct rt_capfile *f, struct rt_caprec *rec)
{
	if (!f || !rec)
		return -EINVAL;
	if (f->status)
		return f->status > 0 ? 0 : f->status;
	int rc = f->backend == RT_CAPFILE_MMAP ? capfile_parse_next(f, rec) : next_libpcap(f, rec);
	const char *damage = z_damage_reached(f);
	if (rc <= 0 && damage) {
		/* a damaged compressed stream: its records end here, whatever the parser
		 * made of the end of what was decompressed */
		char was[sizeof(f->err)];
		snprintf(was, sizeof(was), "%s", rc < 0 ? f->err : "");
		f->status = 0;
		rc = capfile_fail(f, EBADMSG, "after frame %llu: %s%s%s%s", (unsigned long long)f->frame, damage,
				  was[0] ? " (" : "", was, was[0] ? ")" : "");
	}
	return rc;
}

const char *rt_capfile_error(const struct rt_capfile *f)
{
	return f ? f->err : "";
}

int rt_capfile_name_is_capture(const char *name)
{
	static const char *const ends[] = {".pcap", ".pcapng", ".pcap.gz", ".pcapng.gz", ".pcap.zst", ".pcapng.zst",
					   ".pcap.lz4", ".pcapng.lz4"};
	size_t n = name ? strlen(name) : 0;
	for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		size_t e = strlen(ends[i]);
		if (n > e && !strcmp(name + n - e, ends[i]))
			return 1;
	}
	return 0;
}

const char *rt_capfile_format(const struct rt_capfile *f)
{
	if (f && f->format[0])
		return f->format;
	return f && f->pcapng ? "pcapng" : "pcap";
}

const char *rt_capfile_backend_name(const struct rt_capfile *f)
{
	return f && f->backend == RT_CAPFILE_MMAP ? "mmap" : "libpcap";
}

int rt_capfile_progress(const struct rt_capfile *f, uint64_t *done, uint64_t *total)
{
	if (f && f->z)
		return capfile_z_progress(f->z, done, total), 0;
	if (!f || f->backend != RT_CAPFILE_MMAP)
		return -1;
	*done = f->pos;
	*total = f->len;
	return 0;
}

int rt_capfile_recognises(const void *buf, size_t len)
{
	return buf && capfile_parse_recognises(buf, len);
}

int rt_capfile_data_stable(const struct rt_capfile *f)
{
	return f && f->backend == RT_CAPFILE_MMAP && !f->windowed;
}

void capfile_stats_add(struct rt_capfile_stats *to, const struct rt_capfile_stats *from)
{
	to->blocks += from->blocks;
	to->have |= from->have;
	to->ifrecv += from->ifrecv;
	to->ifdrop += from->ifdrop;
	to->osdrop += from->osdrop;
	to->usrdeliv += from->usrdeliv;
}

void rt_capfile_stats(const struct rt_capfile *f, struct rt_capfile_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (!f || f->backend != RT_CAPFILE_MMAP)
		return;
	*out = f->isb_done;
	for (unsigned i = 0; i < f->nifs; i++)
		capfile_stats_add(out, &f->ifs[i].isb);
}

int rt_capfile_linktype(const struct rt_capfile *f)
{
	if (!f)
		return -1;
	if (f->backend == RT_CAPFILE_MMAP && f->pcapng && f->nifs == 0)
		return -1;
	return f->linktype;
}

unsigned rt_capfile_interfaces(const struct rt_capfile *f)
{
	if (!f || f->backend != RT_CAPFILE_MMAP || !f->pcapng)
		return 1;
	return f->nifs;
}

void rt_capfile_close(struct rt_capfile *f)
{
	if (!f)
		return;
	if (f->pc)
		pcap_close(f->pc);
	capfile_window_close(f);
	capfile_z_close(f->z); /* (after pcap_close: libpcap's stream reads it) */
	free(f->ifs);
	free(f);
}

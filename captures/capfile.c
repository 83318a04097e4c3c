/*
 * Capture-file front end: picks the backend (our own parser in
 * capfile_parse.c, over a file's window or a buffer, or libpcap), opens
 * files and buffers (a gzip-compressed one inflated first, capfile_gzip.c),
 * and runs the libpcap backend itself (pcap_open_offline_with_tstamp_precision
 * at nanosecond precision, fmemopen for buffers).
 */
#include <errno.h>
#include <fcntl.h>
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

/* libpcap reads path (by_name: libpcap opens it itself, for "-" and a pipe,
 * which can be read only once: its format is then told as "pcap"), or
 * buf[len]. */
static int open_libpcap(struct rt_capfile *f, const char *path, bool by_name, const void *buf, size_t len, char *err,
			size_t errlen)
{
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	pcap_t *pc;
	uint8_t magic[4] = { 0 };
	if (path && !by_name) {
		/* Open it ourselves to see the magic: libpcap does not say pcap or pcapng. */
		f->memf = fopen(path, "rb");
		if (!f->memf) {
			int e = errno;
			if (err && errlen)
				snprintf(err, errlen, "%s: %s", path, strerror(e));
			return -e;
		}
		if (fread(magic, 1, 4, f->memf) != 4)
			memset(magic, 0, 4);
		rewind(f->memf);
	} else if (path) {
		pc = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, ebuf);
		goto opened;
	} else {
		/* fmemopen refuses a zero-length buffer: give it one byte it never reads */
		static const char empty[1];
		if (len >= 4)
			memcpy(magic, buf, 4);
		f->memf = fmemopen(len ? (void *)buf : (void *)empty, len ? len : 1, "rb");
		if (!f->memf) {
			set_err(err, errlen, strerror(errno));
			return -errno;
		}
		if (!len)
			fgetc(f->memf);
	}
	f->pcapng = magic[0] == 0x0A && magic[1] == 0x0D && magic[2] == 0x0D && magic[3] == 0x0A;
	pc = pcap_fopen_offline_with_tstamp_precision(f->memf, PCAP_TSTAMP_PRECISION_NANO, ebuf);
	if (pc)
		f->memf = NULL; /* pcap_close closes it */
opened:
	if (!pc) {
		if (err && errlen)
			snprintf(err, errlen, "%s%s%s", path ? path : "", path ? ": " : "",
				 ebuf[0] ? ebuf : "cannot read capture");
		return -EINVAL;
	}
	return libpcap_start(f, pc);
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

/* f reads the inflated bytes of the gzip stream gz[gz_len] (NAME names it in
 * messages): our parser over them, or libpcap when asked for or when ours
 * does not know the format inside. */
static int open_inflated(struct rt_capfile *f, const uint8_t *gz, size_t gz_len, const char *name,
			 enum rt_capfile_backend backend, char *err, size_t errlen)
{
	size_t n = 0;
	int rc = capfile_gunzip(gz, gz_len, &f->inflated, &n, f->gz_damage, sizeof(f->gz_damage));
	if (rc == -ENOMEM || !n) {
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", name, rc ? f->gz_damage : "gzip: nothing inside");
		return rc == -ENOMEM ? rc : -EBADMSG;
	}
	if (backend != RT_CAPFILE_LIBPCAP && (backend == RT_CAPFILE_MMAP || capfile_parse_recognises(f->inflated, n))) {
		f->base = f->inflated;
		f->len = n;
		rc = start_parser(f, name, err, errlen);
	} else {
		rc = open_libpcap(f, NULL, false, f->inflated, n, err, errlen);
	}
	if (rc < 0 && f->gz_damage[0] && err && errlen) {
		size_t l = strlen(err);
		snprintf(err + l, errlen - l, " (%s)", f->gz_damage);
	}
	return rc;
}

/* The regular file fd (len bytes, a gzip stream) read whole and inflated
 * for f; fd is closed. */
static int open_gzip_file(struct rt_capfile *f, int fd, size_t len, const char *path, enum rt_capfile_backend backend,
			  char *err, size_t errlen)
{
	uint8_t *gz = malloc(len);
	int rc = gz ? 0 : -ENOMEM;
	for (size_t got = 0; !rc && got < len;) {
		ssize_t r = pread(fd, gz + got, len - got, (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		rc = r < 0 ? -errno : r == 0 ? -EIO : 0; /* (0: the file shrank while read) */
		got += r > 0 ? (size_t)r : 0;
	}
	close(fd);
	if (rc < 0) {
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", path, rc == -EIO ? "the file shrank while it was read" : strerror(-rc));
		free(gz);
		return rc;
	}
	rc = open_inflated(f, gz, len, path, backend, err, errlen);
	free(gz);
	return rc;
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
	/* "-", and what is not a regular file (a pipe, read only once), libpcap
	 * opens itself; our reader takes only regular files (asked for by name,
	 * it opens the others to refuse them) */
	struct stat pst;
	bool by_name = !strcmp(path, "-") || (stat(path, &pst) == 0 && !S_ISREG(pst.st_mode));
	if (!by_name || (backend == RT_CAPFILE_MMAP && strcmp(path, "-") != 0)) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 && backend != RT_CAPFILE_LIBPCAP) {
			rc = -errno;
			if (err && errlen)
				snprintf(err, errlen, "%s: %s", path, strerror(errno));
			goto fail;
		}
		struct stat st = { 0 };
		uint8_t magic[2];
		bool regular = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
		if (regular && pread(fd, magic, 2, 0) == 2 && rt_capfile_is_gzip(magic, 2)) {
			/* compressed (for either backend: libpcap reads no gzip) */
			if ((rc = open_gzip_file(f, fd, (size_t)st.st_size, path, backend, err, errlen)) < 0)
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
								     : "not a regular file (use the libpcap backend)");
				goto fail;
			}
		}
	}
	if ((rc = open_libpcap(f, path, by_name, NULL, 0, err, errlen)) < 0)
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
	if (rt_capfile_is_gzip(buf, len))
		rc = open_inflated(f, buf, len, "buffer", backend, err, errlen);
	else if (backend == RT_CAPFILE_MMAP || (backend == RT_CAPFILE_AUTO && capfile_parse_recognises(buf, len))) {
		f->base = buf;
		f->len = len;
		rc = start_parser(f, NULL, err, errlen);
	} else {
		rc = open_libpcap(f, NULL, false, buf, len, err, errlen);
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
	if (rc <= 0 && f->gz_damage[0]) {
		/* a damaged gzip stream: its records end here, whatever the parser
		 * made of the end of what inflated */
		char was[sizeof(f->err)];
		snprintf(was, sizeof(was), "%s", rc < 0 ? f->err : "");
		f->status = 0;
		rc = capfile_fail(f, EBADMSG, "after frame %llu: %s%s%s%s", (unsigned long long)f->frame, f->gz_damage,
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
	static const char *const ends[] = {".pcap", ".pcapng", ".pcap.gz", ".pcapng.gz"};
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
	if (f && f->inflated)
		return f->pcapng ? "pcapng (gzip)" : "pcap (gzip)";
	return f && f->pcapng ? "pcapng" : "pcap";
}

const char *rt_capfile_backend_name(const struct rt_capfile *f)
{
	return f && f->backend == RT_CAPFILE_MMAP ? "mmap" : "libpcap";
}

int rt_capfile_data_stable(const struct rt_capfile *f)
{
	return f && f->backend == RT_CAPFILE_MMAP && f->fd < 0;
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
	if (f->memf)
		fclose(f->memf);
	capfile_window_close(f);
	free(f->ifs);
	free(f->inflated);
	free(f);
}

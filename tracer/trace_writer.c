/*
 * Trace file writer: header, PROCESS chunks and EVENTS chunks with a CRC per
 * record (layout in include/rdmatrace/trace_format.h).  Each chunk goes out
 * in one writev(), so a writer killed mid-way leaves at worst one partial
 * chunk, whose complete records the reader still recovers.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "rdmatrace/trace_writer.h"

static void copy_str(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);
	memcpy(dst, src, n);
	memset(dst + n, 0, len - n);
}

static int read_small_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, buf, len - 1);
	int err = n < 0 ? -errno : 0;
	close(fd);
	if (n < 0)
		return err;
	buf[n] = '\0';
	return (int)n;
}

void rt_host_name(char *buf, size_t len)
{
	if (gethostname(buf, len) != 0)
		copy_str(buf, len, "unknown");
	buf[len - 1] = '\0';
}

void rt_boot_id(char *buf, size_t len)
{
	char tmp[64];
	if (read_small_file("/proc/sys/kernel/random/boot_id", tmp, sizeof(tmp)) <= 0)
		tmp[0] = '\0';
	tmp[strcspn(tmp, "\n")] = '\0';
	copy_str(buf, len, tmp);
}

void rt_process_name(int pid, char *buf, size_t len)
{
	char path[64], tmp[512];
	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	int n = read_small_file(path, tmp, sizeof(tmp));
	if (n > 0 && tmp[0]) {
		const char *slash = strrchr(tmp, '/');
		copy_str(buf, len, slash ? slash + 1 : tmp);
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	if (read_small_file(path, tmp, sizeof(tmp)) <= 0)
		tmp[0] = '\0';
	tmp[strcspn(tmp, "\n")] = '\0';
	copy_str(buf, len, tmp);
}

uint64_t rt_process_start_time(int pid)
{
	char path[64], tmp[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_small_file(path, tmp, sizeof(tmp)) <= 0)
		return 0;
	/* Fields after the last ')' (comm may contain anything): state is field 3, starttime 22. */
	const char *p = strrchr(tmp, ')');
	if (!p)
		return 0;
	unsigned long long v = 0;
	int field = 2;
	for (p++; *p && field < 22; p++)
		if (*p == ' ')
			field++;
	if (field == 22 && sscanf(p, "%llu", &v) == 1)
		return v;
	return 0;
}

void rt_file_header_init(struct rt_file_header *h)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, RT_FILE_MAGIC, 8);
	h->version_major = RT_FILE_VERSION_MAJOR;
	h->version_minor = RT_FILE_VERSION_MINOR;
	h->header_size = RT_FILE_HEADER_SIZE;
	h->event_size = RT_EVENT_SIZE;
	h->byte_order = RT_FILE_BYTE_ORDER;
	rt_host_name(h->host, sizeof(h->host));
	rt_boot_id(h->boot_id, sizeof(h->boot_id));
}

static int write_all(struct rt_trace_writer *w, struct iovec *iov, int cnt)
{
	if (w->error)
		return w->error;
	if (w->fd < 0)
		return w->error = -EBADF;
	while (cnt > 0) {
		ssize_t n = writev(w->fd, iov, cnt);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return w->error = -errno;
		}
		w->bytes += (uint64_t)n;
		while (cnt > 0 && (size_t)n >= iov->iov_len) {
			n -= (ssize_t)iov->iov_len;
			iov++;
			cnt--;
		}
		if (cnt > 0) {
			iov->iov_base = (char *)iov->iov_base + n;
			iov->iov_len -= (size_t)n;
		}
	}
	return 0;
}

int rt_trace_writer_open(struct rt_trace_writer *w, const char *path, const struct rt_file_header *h,
			 char *errbuf, size_t errlen)
{
	memset(w, 0, sizeof(*w));
	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (w->fd < 0) {
		int err = -errno;
		if (errbuf)
			snprintf(errbuf, errlen, "cannot create trace file %s: %s", path, strerror(-err));
		return err;
	}
	(void)fchmod(w->fd, 0600); /* an existing file keeps its mode otherwise */
	struct rt_file_header hdr = *h;
	hdr.header_crc = rt_crc32c(0, &hdr, offsetof(struct rt_file_header, header_crc));
	struct iovec iov = {&hdr, sizeof(hdr)};
	int rc = write_all(w, &iov, 1);
	if (rc < 0) {
		if (errbuf)
			snprintf(errbuf, errlen, "cannot write trace file %s: %s", path, strerror(-rc));
		close(w->fd);
		w->fd = -1;
	}
	return rc;
}

static void seal_chunk(struct rt_trace_writer *w, struct rt_chunk_header *c)
{
	c->magic = RT_CHUNK_MAGIC;
	c->chunk_seq = w->chunk_seq++;
	c->header_crc = rt_crc32c(0, c, offsetof(struct rt_chunk_header, header_crc));
}

int rt_trace_writer_process(struct rt_trace_writer *w, const struct rt_process_record *p)
{
	struct rt_chunk_header c;
	memset(&c, 0, sizeof(c));
	c.type = RT_CHUNK_PROCESS;
	c.payload_len = sizeof(*p);
	c.pid = p->pid;
	c.ring = ~0u;
	c.payload_crc = rt_crc32c(0, p, sizeof(*p));
	seal_chunk(w, &c);
	struct iovec iov[2] = {{&c, sizeof(c)}, {(void *)p, sizeof(*p)}};
	return write_all(w, iov, 2);
}

int rt_trace_writer_events(struct rt_trace_writer *w, int32_t pid, uint32_t ring, uint32_t tid,
			   uint16_t flags, const struct rt_event *ev, size_t n)
{
	static const uint8_t zeros[64];
	while (n > 0) {
		uint32_t k = n > RT_CHUNK_MAX_EVENTS ? RT_CHUNK_MAX_EVENTS : (uint32_t)n;
		uint32_t table = rt_chunk_crc_table_size(k);
		for (uint32_t i = 0; i < k; i++)
			w->crcs[i] = rt_crc32c(0, &ev[i], sizeof(ev[i]));
		struct rt_chunk_header c;
		memset(&c, 0, sizeof(c));
		c.type = RT_CHUNK_EVENTS;
		c.flags = flags;
		c.count = k;
		c.payload_len = table + k * (uint32_t)RT_EVENT_SIZE;
		c.pid = pid;
		c.ring = ring;
		c.tid = tid;
		c.payload_crc = rt_crc32c(0, w->crcs, k * 4u);
		seal_chunk(w, &c);
		struct iovec iov[4] = {
			{&c, sizeof(c)},
			{w->crcs, k * 4u},
			{(void *)zeros, table - k * 4u},
			{(void *)ev, (size_t)k * RT_EVENT_SIZE},
		};
		int rc = write_all(w, iov, 4);
		if (rc < 0)
			return rc;
		w->events += k;
		ev += k;
		n -= k;
	}
	return 0;
}

int rt_trace_writer_close(struct rt_trace_writer *w)
{
	if (w->fd >= 0) {
		if (close(w->fd) != 0 && !w->error)
			w->error = -errno;
		w->fd = -1;
	}
	return w->error;
}

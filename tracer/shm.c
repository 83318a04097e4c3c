/*
 * Creating, validating and attaching the tracer's shared-memory segment
 * (layout in tracer/shm.h).  Used by producers (attach), collectors
 * (create / attach) and salvage (attach to a dead program's segment).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rdmatrace/trace_writer.h"
#include "shm.h"

#define RT_RING_MIN_SLOTS 64u
#define RT_RING_MAX_SLOTS (1u << 24)

/* "WHAT NAME: strerror(err)" into the caller's error buffer. */
static void set_err(char *errbuf, size_t errlen, const char *what, const char *name, int err)
{
	if (errbuf && errlen)
		snprintf(errbuf, errlen, "%s %s: %s", what, name, strerror(err));
}

int rt_shm_normalize_name(const char *in, char *out, size_t len)
{
	if (!in || !*in)
		return -EINVAL;
	if (strncmp(in, "/dev/shm/", 9) == 0)
		in += 8;
	if (*in == '/')
		in++;
	if (!*in || strchr(in, '/') || strlen(in) + 2 > len)
		return -EINVAL;
	snprintf(out, len, "/%s", in);
	return 0;
}

static uint32_t slots_for(size_t ring_bytes)
{
	size_t want = ring_bytes / RT_EVENT_SIZE;
	uint32_t slots = RT_RING_MIN_SLOTS;
	while (slots < want && slots < RT_RING_MAX_SLOTS)
		slots <<= 1;
	return slots;
}

int rt_shm_create(struct rt_shm_map *m, const char *name, uint32_t mode, size_t ring_bytes,
		  unsigned ring_count, uint32_t clock_source, char *errbuf, size_t errlen)
{
	memset(m, 0, sizeof(*m));
	int rc = rt_shm_normalize_name(name, m->name, sizeof(m->name));
	if (rc < 0) {
		set_err(errbuf, errlen, "invalid shared-memory name", name, -rc);
		return rc;
	}
	if (ring_count == 0 || ring_count > 4096)
		ring_count = ring_count ? 4096 : 32;
	uint32_t slots = slots_for(ring_bytes ? ring_bytes : 256 * 1024);
	size_t stride = RT_SHM_RING_HEADER_SIZE + (size_t)slots * RT_EVENT_SIZE;
	size_t size = RT_SHM_HEADER_SIZE + stride * ring_count;

	int fd = shm_open(m->name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		rc = -errno;
		if (rc != -EEXIST)
			set_err(errbuf, errlen, "cannot create shared memory", m->name, -rc);
		return rc;
	}
	(void)fchmod(fd, 0600);
	if (ftruncate(fd, (off_t)size) != 0) {
		rc = -errno;
		set_err(errbuf, errlen, "cannot size shared memory", m->name, -rc);
		goto unlink;
	}
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		rc = -errno;
		set_err(errbuf, errlen, "cannot map shared memory", m->name, -rc);
		goto unlink;
	}
	close(fd);
	m->hdr = p;
	m->size = size;

	struct rt_shm_header *h = m->hdr;
	h->version = RT_SHM_VERSION;
	h->header_size = RT_SHM_HEADER_SIZE;
	h->ring_count = ring_count;
	h->ring_slots = slots;
	h->ring_stride = stride;
	h->total_size = size;
	h->mode = mode;
	rc = rt_clock_calibrate(clock_source, 2000000, &h->calib);
	if (rc < 0)
		rt_clock_calibrate(RT_CLOCK_MONOTONIC, 0, &h->calib);
	h->creator_pid = getpid();
	h->creator_start_time = rt_process_start_time(getpid());
	rt_host_name(h->host, sizeof(h->host));
	rt_boot_id(h->boot_id, sizeof(h->boot_id));
	h->magic = RT_SHM_MAGIC;
	atomic_store_explicit(&h->ready, 1, memory_order_release);
	return 0;
unlink:
	close(fd);
	shm_unlink(m->name);
	return rc;
}

static int validate(const struct rt_shm_header *h, size_t size)
{
	if (size < RT_SHM_HEADER_SIZE || h->magic != RT_SHM_MAGIC)
		return -EPROTO;
	if (h->version != RT_SHM_VERSION || h->header_size != RT_SHM_HEADER_SIZE)
		return -EPROTONOSUPPORT;
	if (h->ring_slots < RT_RING_MIN_SLOTS || h->ring_slots > RT_RING_MAX_SLOTS ||
	    (h->ring_slots & (h->ring_slots - 1)) ||
	    h->ring_stride != RT_SHM_RING_HEADER_SIZE + (uint64_t)h->ring_slots * RT_EVENT_SIZE ||
	    h->ring_count == 0 || h->ring_count > 4096 ||
	    h->total_size != RT_SHM_HEADER_SIZE + h->ring_stride * h->ring_count || h->total_size > size)
		return -EPROTO;
	if (h->calib.source != RT_CLOCK_TSC && h->calib.source != RT_CLOCK_MONOTONIC)
		return -EPROTO;
	return 0;
}

int rt_shm_attach(struct rt_shm_map *m, const char *name, int wait, char *errbuf, size_t errlen)
{
	memset(m, 0, sizeof(*m));
	int rc = rt_shm_normalize_name(name, m->name, sizeof(m->name));
	if (rc < 0) {
		set_err(errbuf, errlen, "invalid shared-memory name", name, -rc);
		return rc;
	}
	int fd = shm_open(m->name, O_RDWR | O_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
		set_err(errbuf, errlen, "cannot open shared memory", m->name, -rc);
		return rc;
	}
	struct stat st;
	/* The creator may still be sizing it: wait a little for a full header. */
	for (int i = 0; i < (wait ? 100 : 1); i++) {
		if (fstat(fd, &st) != 0) {
			rc = -errno;
			goto out;
		}
		if ((size_t)st.st_size >= RT_SHM_HEADER_SIZE || !wait)
			break;
		nanosleep(&(struct timespec){0, 10000000}, NULL);
	}
	if ((size_t)st.st_size < RT_SHM_HEADER_SIZE) {
		rc = -EPROTO;
		goto out;
	}
	void *p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		rc = -errno;
		goto out;
	}
	m->hdr = p;
	m->size = (size_t)st.st_size;
	for (int i = 0; wait && i < 100 && !atomic_load_explicit(&m->hdr->ready, memory_order_acquire); i++)
		nanosleep(&(struct timespec){0, 10000000}, NULL);
	rc = atomic_load_explicit(&m->hdr->ready, memory_order_acquire) ? validate(m->hdr, m->size) : -EPROTO;
	if (rc < 0) {
		munmap(p, m->size);
		m->hdr = NULL;
	}
out:
	close(fd);
	if (rc < 0)
		set_err(errbuf, errlen, "cannot attach shared memory", m->name, -rc);
	return rc;
}

void rt_shm_detach(struct rt_shm_map *m)
{
	if (m->hdr)
		munmap(m->hdr, m->size);
	m->hdr = NULL;
}

int rt_shm_register_proc(struct rt_shm_header *h, int32_t pid, uint64_t start_time, const char *program)
{
	for (int i = 0; i < RT_SHM_MAX_PROCS; i++) {
		struct rt_shm_proc *p = &h->procs[i];
		int32_t cur = atomic_load_explicit(&p->pid, memory_order_acquire);
		if (cur == pid && p->start_time == start_time)
			return i; /* another tracer copy of this process got here first */
		if (cur != 0)
			continue;
		int32_t expect = 0;
		/* Claim with a negative pid while filling the slot, then publish. */
		if (atomic_compare_exchange_strong(&p->pid, &expect, -pid)) {
			p->start_time = start_time;
			snprintf(p->program, sizeof(p->program), "%s", program ? program : "");
			atomic_store_explicit(&p->pid, pid, memory_order_release);
			return i;
		}
	}
	return -ENOSPC;
}

int rt_shm_producers_alive(struct rt_shm_header *h)
{
	for (int i = 0; i < RT_SHM_MAX_PROCS; i++) {
		int32_t pid = atomic_load_explicit(&h->procs[i].pid, memory_order_acquire);
		if (pid <= 0)
			continue;
		if (kill(pid, 0) == 0 || errno == EPERM) {
			uint64_t st = rt_process_start_time(pid);
			if (!st || !h->procs[i].start_time || st == h->procs[i].start_time)
				return 1;
		}
	}
	return 0;
}

uint64_t rt_shm_trigger(struct rt_shm_header *h, const char *reason)
{
	/* Reason first, so a collector that sees the new number usually sees it too. */
	size_t i = 0;
	if (reason)
		for (; reason[i] && i + 1 < sizeof(h->trigger_reason); i++)
			h->trigger_reason[i] = reason[i];
	h->trigger_reason[i] = '\0';
	return atomic_fetch_add_explicit(&h->trigger_seq, 1, memory_order_acq_rel) + 1;
}

int rt_shm_wait_snapshot(struct rt_shm_header *h, uint64_t seq, unsigned timeout_ms)
{
	for (unsigned waited = 0;; waited++) {
		if (atomic_load_explicit(&h->snapshot_done, memory_order_acquire) >= seq)
			return 0;
		int32_t cpid = atomic_load_explicit(&h->collector_pid, memory_order_acquire);
		if (cpid <= 0 || (kill(cpid, 0) != 0 && errno == ESRCH))
			return -ENOTCONN;
		if (waited >= timeout_ms)
			return -ETIMEDOUT;
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
}

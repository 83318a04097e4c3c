/*
 * Port counters from sysfs, sampled by one background thread of the probe:
 * every file of DEV/ports/N/hw_counters/ and DEV/ports/N/counters/ under
 * the sysfs root (RDMATRACE_SYSFS_ROOT, default /sys/class/infiniband) for
 * each device the program opens.  The first sample records every counter,
 * later ones only those that changed, every RDMATRACE_COUNTER_MS
 * milliseconds (default 1000; 0 samples only on errors and at exit) and
 * right after an error completion (rt_probe_counters_kick, lock-free), plus
 * a last one at exit, before the process's end record (probes/init.c), so
 * that each counter's last record holds its value when the program exited.
 * A device without counters in sysfs (uroce, say) gets one warning event
 * instead.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"

#define RT_CTR_DEVS 16
#define RT_CTR_MAX 512   /* counters remembered per device */

struct rt_ctr {
	char name[28];
	uint8_t port;
	uint64_t value;
};

struct rt_ctr_dev {
	char name[24];
	uint32_t device_id;
	bool warned;
	unsigned n;
	struct rt_ctr *ctr;     /* RT_CTR_MAX entries, allocated by the sampler */
};

static struct rt_ctr_dev ctr_devs[RT_CTR_DEVS];
static unsigned ctr_ndev;               /* published with release stores */
static pthread_mutex_t ctr_lock = PTHREAD_MUTEX_INITIALIZER;
static sem_t ctr_sem;
static int ctr_kicked;
static int ctr_running;
static pid_t ctr_pid;                   /* the process whose sampler runs (not a vfork() child's) */
static int ctr_stop;
static pthread_t ctr_thread;

static const char *sysfs_root(void)
{
	const char *r = getenv("RDMATRACE_SYSFS_ROOT");
	return r && *r ? r : "/sys/class/infiniband";
}

static long interval_ms(void)
{
	const char *s = getenv("RDMATRACE_COUNTER_MS");
	if (!s || !*s)
		return 1000;
	char *end;
	long v = strtol(s, &end, 10);
	return *end || v < 0 ? 1000 : v;
}

static void emit_counter(const struct rt_ctr_dev *d, const struct rt_ctr *c)
{
	struct rt_event *ev = rt_event_begin(RT_EV_COUNTER, 0);
	if (!ev)
		return;
	ev->u.counter.value = c->value;
	memcpy(ev->u.counter.name, c->name, sizeof(ev->u.counter.name));
	ev->u.counter.port = c->port;
	ev->u.counter.device_id = (uint8_t)(d->device_id <= 255 ? d->device_id : 0);
	rt_event_commit(ev);
}

static int read_u64(const char *path, uint64_t *v)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	unsigned long long x;
	int ok = fscanf(f, "%llu", &x) == 1;
	fclose(f);
	if (!ok)
		return -EINVAL;
	*v = x;
	return 0;
}

static struct rt_ctr *find_ctr(struct rt_ctr_dev *d, const char *name, uint8_t port, bool *fresh)
{
	for (unsigned i = 0; i < d->n; i++)
		if (d->ctr[i].port == port && !strncmp(d->ctr[i].name, name, sizeof(d->ctr[i].name)))
			return &d->ctr[i];
	if (d->n >= RT_CTR_MAX)
		return NULL;
	struct rt_ctr *c = &d->ctr[d->n++];
	memset(c, 0, sizeof(*c));
	memcpy(c->name, name, strnlen(name, sizeof(c->name)));
	c->port = port;
	*fresh = true;
	return c;
}

/* One directory of counter files; returns how many were read. */
static unsigned sample_dir(struct rt_ctr_dev *d, const char *dir, uint8_t port)
{
	DIR *dp = opendir(dir);
	if (!dp)
		return 0;
	unsigned n = 0;
	struct dirent *e;
	char path[512];
	while ((e = readdir(dp))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "lifespan"))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= (int)sizeof(path))
			continue;
		uint64_t v = 0;
		if (read_u64(path, &v) != 0)
			continue;
		n++;
		bool fresh = false;
		struct rt_ctr *c = find_ctr(d, e->d_name, port, &fresh);
		if (!c)
			continue;
		if (fresh || c->value != v) {
			c->value = v;
			emit_counter(d, c);
		}
	}
	closedir(dp);
	return n;
}

static void sample_device(struct rt_ctr_dev *d)
{
	char dir[400];
	if (!d->ctr && !(d->ctr = calloc(RT_CTR_MAX, sizeof(*d->ctr))))
		return;
	snprintf(dir, sizeof(dir), "%s/%s/ports", sysfs_root(), d->name);
	DIR *dp = opendir(dir);
	unsigned n = 0;
	if (dp) {
		struct dirent *e;
		while ((e = readdir(dp))) {
			char *end;
			long port = strtol(e->d_name, &end, 10);
			if (*end || port <= 0 || port > 255)
				continue;
			char sub[460];
			snprintf(sub, sizeof(sub), "%s/%ld/hw_counters", dir, port);
			n += sample_dir(d, sub, (uint8_t)port);
			snprintf(sub, sizeof(sub), "%s/%ld/counters", dir, port);
			n += sample_dir(d, sub, (uint8_t)port);
		}
		closedir(dp);
	}
	if (n == 0 && !d->warned) {
		d->warned = true;
		struct rt_event *ev = rt_event_begin(RT_EV_WARNING, 0);
		if (ev) {
			ev->u.warning.code = RT_WARN_UNSUPPORTED;
			snprintf(ev->u.warning.text, sizeof(ev->u.warning.text), "no sysfs counters: %.16s",
				 d->name);
			rt_event_commit(ev);
		}
	}
}

static void sample_all(void)
{
	unsigned n = __atomic_load_n(&ctr_ndev, __ATOMIC_ACQUIRE);
	pthread_mutex_lock(&ctr_lock);
	for (unsigned i = 0; i < n; i++)
		sample_device(&ctr_devs[i]);
	pthread_mutex_unlock(&ctr_lock);
}

static void *sampler(void *arg)
{
	(void)arg;
	rt_probe_busy = 1;
	long ms = interval_ms();
	while (!__atomic_load_n(&ctr_stop, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&ctr_kicked, 0, __ATOMIC_RELEASE);
		sample_all();
		if (ms == 0) {
			while (sem_wait(&ctr_sem) != 0 && errno == EINTR)
				;
			continue;
		}
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += ms / 1000;
		ts.tv_nsec += (ms % 1000) * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		while (sem_timedwait(&ctr_sem, &ts) != 0 && errno == EINTR)
			;
	}
	return NULL;
}

/* RDMATRACE_COUNTER_MS=off: no sampler thread at all. */
static bool counters_off(void)
{
	const char *s = getenv("RDMATRACE_COUNTER_MS");
	return s && !strcmp(s, "off");
}

void rt_probe_counters_add_device(const char *dev, uint32_t device_id)
{
	if (counters_off())
		return;
	pthread_mutex_lock(&ctr_lock);
	unsigned n = ctr_ndev;
	bool known = false;
	for (unsigned i = 0; i < n; i++)
		known |= !strncmp(ctr_devs[i].name, dev, sizeof(ctr_devs[i].name));
	if (!known && n < RT_CTR_DEVS) {
		memset(&ctr_devs[n], 0, sizeof(ctr_devs[n]));
		memcpy(ctr_devs[n].name, dev, strnlen(dev, sizeof(ctr_devs[n].name) - 1));
		ctr_devs[n].device_id = device_id;
		__atomic_store_n(&ctr_ndev, n + 1, __ATOMIC_RELEASE);
	}
	if (!ctr_running) {
		sem_init(&ctr_sem, 0, 0);
		__atomic_store_n(&ctr_stop, 0, __ATOMIC_RELEASE);
		/* no signal handler runs on the sampler: one that calls exit()
		 * would wait for the sampler's own lock */
		sigset_t all, old;
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		if (pthread_create(&ctr_thread, NULL, sampler, NULL) == 0) {
			ctr_running = 1;
			ctr_pid = getpid();
		}
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	} else if (!known) {
		sem_post(&ctr_sem);
	}
	pthread_mutex_unlock(&ctr_lock);
}

void rt_probe_counters_kick(void)
{
	if (__atomic_load_n(&ctr_running, __ATOMIC_RELAXED) &&
	    !__atomic_exchange_n(&ctr_kicked, 1, __ATOMIC_ACQ_REL))
		sem_post(&ctr_sem);
}

void rt_probe_counters_stop(void)
{
	if (!__atomic_load_n(&ctr_running, __ATOMIC_RELAXED) || getpid() != ctr_pid)
		return; /* not started, stopped already, or a vfork() child sharing the parent's memory */
	pthread_mutex_lock(&ctr_lock);
	int running = ctr_running;
	ctr_running = 0;
	pthread_mutex_unlock(&ctr_lock);
	if (!running)
		return;
	__atomic_store_n(&ctr_stop, 1, __ATOMIC_RELEASE);
	sem_post(&ctr_sem);
	pthread_join(ctr_thread, NULL);
	int busy = rt_probe_busy;
	rt_probe_busy = 1;
	sample_all();
	rt_probe_busy = busy;
}

/* After fork the sampler thread is gone; the child starts its own when it opens a device. */
void rt_probe_counters_after_fork(void)
{
	ctr_running = 0;
	ctr_kicked = 0;
	pthread_mutex_init(&ctr_lock, NULL);
}

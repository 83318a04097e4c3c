/*
 * Pointer-keyed tables the probe uses to find its record of a context, QP,
 * CQ, SRQ or PD from the pointer the program passes.  Lookups (on the data
 * path) are lock-free: open addressing with linear probing over a fixed
 * array allocated once, slots published with release stores.  Inserts and
 * deletes (control path) take one mutex.  Deleted slots become tombstones
 * (key 1) so probing chains stay intact; the table is rebuilt in place when
 * tombstones fill it, which only control-path callers can observe.
 */
#include <errno.h>
#include <pthread.h>

#include "probe.h"

static pthread_mutex_t rt_objmap_lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned objmap_hash(uintptr_t k)
{
	return (unsigned)((k >> 4) ^ (k >> 17)) & (RT_OBJMAP_SLOTS - 1);
}

/* Reuses a tombstone on the probe path of key if there is one. */
static int objmap_put_locked(struct rt_objmap *m, uintptr_t k, void *val)
{
	unsigned i = objmap_hash(k);
	struct rt_objmap_slot *tomb = NULL;
	for (unsigned n = 0; n < RT_OBJMAP_SLOTS; n++, i = (i + 1) & (RT_OBJMAP_SLOTS - 1)) {
		struct rt_objmap_slot *s = &m->slot[i];
		if (s->key == k) {
			__atomic_store_n(&s->val, val, __ATOMIC_RELEASE);
			return 0;
		}
		if (s->key == 1 && !tomb)
			tomb = s;
		if (s->key == 0) {
			if (!tomb) {
				if (m->used + 1 >= RT_OBJMAP_SLOTS - RT_OBJMAP_SLOTS / 8)
					return -ENOSPC;
				m->used++;
				tomb = s;
			}
			break;
		}
	}
	if (!tomb)
		return -ENOSPC;
	__atomic_store_n(&tomb->val, val, __ATOMIC_RELEASE);
	__atomic_store_n(&tomb->key, k, __ATOMIC_RELEASE);
	return 0;
}

int rt_objmap_put(struct rt_objmap *m, const void *key, void *val)
{
	uintptr_t k = (uintptr_t)key;
	if (k <= 1)
		return -EINVAL;
	pthread_mutex_lock(&rt_objmap_lock);
	int rc = objmap_put_locked(m, k, val);
	pthread_mutex_unlock(&rt_objmap_lock);
	return rc;
}

void *rt_objmap_del(struct rt_objmap *m, const void *key)
{
	uintptr_t k = (uintptr_t)key;
	void *val = NULL;
	if (k <= 1)
		return NULL;
	pthread_mutex_lock(&rt_objmap_lock);
	unsigned i = objmap_hash(k);
	for (unsigned n = 0; n < RT_OBJMAP_SLOTS; n++, i = (i + 1) & (RT_OBJMAP_SLOTS - 1)) {
		struct rt_objmap_slot *s = &m->slot[i];
		if (s->key == 0)
			break;
		if (s->key == k) {
			val = s->val;
			__atomic_store_n(&s->key, (uintptr_t)1, __ATOMIC_RELEASE);
			break;
		}
	}
	pthread_mutex_unlock(&rt_objmap_lock);
	return val;
}

void rt_objmap_fork_prepare(void)
{
	pthread_mutex_lock(&rt_objmap_lock);
}

void rt_objmap_fork_parent(void)
{
	pthread_mutex_unlock(&rt_objmap_lock);
}

void rt_objmap_fork_child(void)
{
	pthread_mutex_init(&rt_objmap_lock, NULL);
}

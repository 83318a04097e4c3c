/*
 * A small open-addressing hash map from 64-bit keys to 32-bit values, used
 * by the linker for (host, QPN), (QP, PSN) and similar lookups.  Keys must
 * not be UINT64_MAX (the empty marker).
 */
#ifndef RDMATRACE_TL_HASH_H
#define RDMATRACE_TL_HASH_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct tl_hash {
	uint64_t *keys;
	uint32_t *vals;
	size_t cap, n;
};

static inline uint64_t tl_hash_mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ull;
	k ^= k >> 33;
	return k;
}

static inline int tl_hash_init(struct tl_hash *h, size_t expect)
{
	size_t cap = 64;
	while (cap < expect * 2)
		cap *= 2;
	h->keys = malloc(cap * sizeof(*h->keys));
	h->vals = malloc(cap * sizeof(*h->vals));
	if (!h->keys || !h->vals) {
		free(h->keys);
		free(h->vals);
		h->keys = NULL;
		h->vals = NULL;
		return -ENOMEM;
	}
	memset(h->keys, 0xff, cap * sizeof(*h->keys));
	h->cap = cap;
	h->n = 0;
	return 0;
}

static inline void tl_hash_free(struct tl_hash *h)
{
	free(h->keys);
	free(h->vals);
	h->keys = NULL;
	h->vals = NULL;
	h->cap = h->n = 0;
}

/* Pointer to the value slot of key (NULL when absent). */
static inline uint32_t *tl_hash_get(const struct tl_hash *h, uint64_t key)
{
	if (!h->cap)
		return NULL;
	size_t m = h->cap - 1, i = tl_hash_mix(key) & m;
	while (h->keys[i] != UINT64_MAX) {
		if (h->keys[i] == key)
			return &h->vals[i];
		i = (i + 1) & m;
	}
	return NULL;
}

static inline int tl_hash_grow(struct tl_hash *h)
{
	struct tl_hash n;
	if (tl_hash_init(&n, h->cap) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < h->cap; i++) {
		if (h->keys[i] == UINT64_MAX)
			continue;
		size_t m = n.cap - 1, j = tl_hash_mix(h->keys[i]) & m;
		while (n.keys[j] != UINT64_MAX)
			j = (j + 1) & m;
		n.keys[j] = h->keys[i];
		n.vals[j] = h->vals[i];
		n.n++;
	}
	tl_hash_free(h);
	*h = n;
	return 0;
}

/* Insert or overwrite; 0 or -ENOMEM. */
static inline int tl_hash_put(struct tl_hash *h, uint64_t key, uint32_t val)
{
	if ((h->n + 1) * 2 > h->cap && tl_hash_grow(h) < 0)
		return -ENOMEM;
	size_t m = h->cap - 1, i = tl_hash_mix(key) & m;
	while (h->keys[i] != UINT64_MAX) {
		if (h->keys[i] == key) {
			h->vals[i] = val;
			return 0;
		}
		i = (i + 1) & m;
	}
	h->keys[i] = key;
	h->vals[i] = val;
	h->n++;
	return 0;
}

#endif

/*
 * A bounds-checked read cursor over [p, end) for the packet and file
 * parsers in captures/.  Every read goes through cur_take(), which hands
 * out n bytes only when n bytes remain; the fixed-offset big-endian loads
 * below are then applied to that checked span.  Private to captures/.
 */
#ifndef RDMATRACE_CAPTURES_CURSOR_H
#define RDMATRACE_CAPTURES_CURSOR_H

#include <stddef.h>
#include <stdint.h>

#include "rdmatrace/roce_wire.h"

struct cur {
	const uint8_t *p;
	const uint8_t *end;
};

static inline size_t cur_left(const struct cur *c)
{
	return c->end > c->p ? (size_t)(c->end - c->p) : 0;
}

/* n bytes at the cursor (advancing past them), or NULL when fewer remain. */
static inline const uint8_t *cur_take(struct cur *c, size_t n)
{
	if (cur_left(c) < n)
		return NULL;
	const uint8_t *q = c->p;
	c->p += n;
	return q;
}

/* Loads from a span already checked by cur_take (offsets within it): the
 * big-endian ones are roce_wire.h's rt_get_be16() ... rt_get_be64(). */
static inline uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#endif

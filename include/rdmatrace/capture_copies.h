/*
 * Copies of one frame in one capture.
 *
 * A capture taken on several interfaces at once holds a packet once for
 * each interface it crossed: `tcpdump -i any` on a host whose RoCE traffic
 * crosses a veth pair or a bridge, dumpcap on both ends of a link, mergecap
 * of two interfaces' captures.  Read as they are, the later copies look like
 * retransmissions of the first.  This finds them.
 *
 * A frame's interface is its pcapng interface with, for Linux cooked
 * captures, the interface index (SLL2) or the packet type (SLL: outgoing or
 * received).  Its content is what the sender made: addresses, IP ID, UDP
 * source port, opcode, QPN, PSN, payload length and the ICRC (which covers
 * the payload).  A real retransmission can have the very same content (the
 * kernel's SoftRoCE sends IP ID 0), but it is sent again on the same
 * interface; so the n-th frame of a content on one interface is a copy when
 * some interface already showed that content n times.
 *
 *     struct rt_capcopies *c = NULL;
 *     while (next record, decoded as RoCE) {
 *         uint64_t orig;
 *         if (rt_capcopies_frame(&c, rt_capfile_interfaces(f), &rec, &pkt, &orig) == 1)
 *             continue;   // a copy of frame orig
 *     }
 *     rt_capcopies_free(c);
 */
#ifndef RDMATRACE_CAPTURE_COPIES_H
#define RDMATRACE_CAPTURE_COPIES_H

#include <stdbool.h>
#include <stdint.h>

#include "rdmatrace/capfile.h"
#include "rdmatrace/roce_decode.h"

struct rt_capcopies;

/* NULL when out of memory. */
struct rt_capcopies *rt_capcopies_new(void);
void rt_capcopies_free(struct rt_capcopies *c);

/* Whether records of this capture can be copies of each other: it declares
 * more than one interface, or its headers are Linux cooked ones (the "any"
 * pseudo-interface).  When not, rt_capcopies_check() need not be called. */
bool rt_capcopies_possible(unsigned ninterfaces, uint16_t linktype);

/* Record the decoded RoCE frame p of record rec.  Returns 1 when it is a
 * copy (*orig, when not NULL: the frame number of the latest kept frame of
 * the same content), 0 when not, -ENOMEM. */
int rt_capcopies_check(struct rt_capcopies *c, const struct rt_caprec *rec, const struct rt_pkt *p,
		       uint64_t *orig);

/* rt_capcopies_check() when *c exists or rt_capcopies_possible(), making
 * *c first; 0 without checking otherwise. */
int rt_capcopies_frame(struct rt_capcopies **c, unsigned ninterfaces, const struct rt_caprec *rec,
		       const struct rt_pkt *p, uint64_t *orig);

/* Copies found so far. */
uint64_t rt_capcopies_count(const struct rt_capcopies *c);

#endif

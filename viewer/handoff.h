/*
 * Handing a packet to Wireshark's tools: tshark's full decode of one frame
 * (shown inside the viewer) and a Wireshark window opened at that frame.
 */
#ifndef RDMATRACE_VIEWER_HANDOFF_H
#define RDMATRACE_VIEWER_HANDOFF_H

#include <stddef.h>
#include <stdint.h>

/* Run `tshark -r capture -V -Y frame.number==N` (program may be a path);
 * 0 with *out (malloc'd, NUL-terminated, caller frees) and *len, or
 * -errno with err saying why (no tshark, timeout, exit status). */
int vw_tshark_decode(const char *program, const char *capture, uint32_t frame, char **out, size_t *len,
		     char *err, size_t errlen);
/* Start `wireshark -r capture -g N` detached; -ENXIO when no display. */
int vw_wireshark_open(const char *capture, uint32_t frame, char *err, size_t errlen);

#endif

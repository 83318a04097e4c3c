/*
 * Reading a number a user gave on the command line (a QP number, a PSN, a
 * count, a PID): one function, so that every option refuses the same
 * things: nothing, a sign, trailing characters, a value out of range.
 */
#ifndef RDMATRACE_CLI_NUMBER_ARG_H
#define RDMATRACE_CLI_NUMBER_ARG_H

#include <stdint.h>

/* S as an unsigned number in BASE (0: decimal, 0x.. hex or 0.. octal, as
 * strtoull takes them) of at most MAX into *out.  0, or -1 when S is empty,
 * has a sign, has anything after the number, or is above MAX (*out then
 * unchanged). */
int rt_parse_number_arg(const char *s, int base, uint64_t max, uint64_t *out);

#endif

/*
 * Command-line numbers (number_arg.h): strtoull with the checks it leaves
 * to its caller, in one place.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

#include "number_arg.h"

int rt_parse_number_arg(const char *s, int base, uint64_t max, uint64_t *out)
{
	char *end;
	/* strtoull skips white space and takes a sign: neither is a number here */
	if (!s || !*s || isspace((unsigned char)*s) || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, base);
	if (errno || end == s || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

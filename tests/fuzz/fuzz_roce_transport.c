/*
 * libFuzzer target for the transport-header parser the uroce engine runs on
 * every UDP datagram it receives (rt_roce_parse_transport in
 * captures/roce_build.c): no read past the input, and whatever parses
 * builds back (rt_roce_build_transport) to headers that parse to the same
 * fields, so the writer and the reader agree on every opcode.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rdmatrace/roce_build.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1); /* exact size: a read past the end is caught */
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	struct rt_roce_hdrs a, b;
	int hl = rt_roce_parse_transport(copy, size, &a);
	if (hl >= 0) {
		if ((size_t)hl > size)
			abort();
		uint8_t out[128];
		int n = rt_roce_build_transport(out, sizeof(out), &a, 0);
		if (n != hl || rt_roce_parse_transport(out, (size_t)n, &b) != n)
			abort();
		/* PadCnt and reserved bits are not fields; a P_Key of 0 is written as the
		 * default 0xFFFF (roce_build.h); everything else comes back as it was */
		if (a.pkey == 0)
			a.pkey = 0xFFFF;
		if (memcmp(&a, &b, sizeof(a)) != 0)
			abort();
	}
	free(copy);
	return 0;
}

/*
 * libFuzzer target for the RoCEv2 decoder: the first byte picks a link
 * type, the second the decoder options, the rest is the frame.  Every
 * decoded packet is also formatted as a line and as JSON, so the
 * formatter sees whatever the decoder can produce.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rdmatrace/roce_decode.h"
#include "rdmatrace/roce_format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint16_t linktypes[] = { 1, 113, 276, 101, 12, 228, 229, 0, 108, 147 };
	if (size < 2)
		return 0;
	uint16_t lt = linktypes[data[0] % (sizeof(linktypes) / sizeof(linktypes[0]))];
	uint8_t flags = data[1];
	static const uint16_t ports[] = { 4791, 4792 };
	struct rt_decode_opts o = { flags & 1 ? ports : NULL, flags & 1 ? 2 : 0, (flags & 2) != 0, (flags & 4) != 0 };
	/* an exact-size copy so any read past the end is caught */
	size_t n = size - 2;
	uint8_t *frame = malloc(n ? n : 1);
	if (!frame)
		return 0;
	memcpy(frame, data + 2, n);
	uint32_t wirelen = (flags & 8) ? (uint32_t)n + 100 : (uint32_t)n;
	struct rt_pkt pkt;
	if (rt_decode(&o, lt, frame, (uint32_t)n, wirelen, &pkt) == 1) {
		char buf[RT_FMT_JSON_MAX];
		static struct rt_fmt_cache cache;
		struct rt_fmt_ctx ctx = { 1, 1700000000000000000ull, 0, flags & 16, (flags & 32) ? &cache : NULL };
		rt_pkt_format_line(&pkt, &ctx, buf, sizeof(buf));
		rt_pkt_format_json(&pkt, &ctx, buf, sizeof(buf));
		rt_aeth_describe(&pkt.aeth, buf, sizeof(buf));
	}
	free(frame);
	return 0;
}

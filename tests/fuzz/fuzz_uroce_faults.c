/*
 * libFuzzer target for uroce's fault-injection rules ($UROCE_FAULTS and
 * $UROCE_FAULTS_FILE, uroce/faults.c): any text either parses into rules or
 * is refused with a message, never a crash or a read past the text; parsed
 * rules are then consulted for a few packets as the engine would (of
 * traffic classes ECN-capable and not, for the ecn rule).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../uroce/faults.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	struct uroce_ctx ctx;
	memset(&ctx, 0, sizeof(ctx));
	ctx.rng = 1;
	char err[256] = "";
	int rc = add_rules(&ctx, text, ";\n", err, sizeof(err));
	if (rc < 0 && !err[0] && rc != -ENOMEM)
		abort(); /* a refusal always says why */
	if (rc == 0)
		for (uint32_t psn = 0; psn < 8; psn++) {
			struct rt_roce_hdrs h = {.opcode = psn & 2 ? RT_OP_RC_ACKNOWLEDGE : RT_OP_RC_SEND_ONLY, .psn = psn};
			uint32_t us = 0;
			(void)uroce_fault_check(&ctx, (int)(psn & 1), 0x11, (uint8_t)(psn >> 1), &h, (psn & 2) != 0, &us);
			(void)uroce_fault_rnr(&ctx, 0x11, psn);
		}
	uroce_faults_free(&ctx);
	free(text);
	return 0;
}

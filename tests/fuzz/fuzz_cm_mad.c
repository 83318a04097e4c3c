/*
 * libFuzzer target for uroce's IB CM MAD codec (uroce/rdmacm/cm_mad.c):
 * whatever a peer sends on QP1 is decoded without reading past the MAD, and
 * every MAD that decodes re-encodes to bytes that decode to the same fields
 * (the codec loses nothing it claims to understand).  The cma_hdr decoder
 * runs on the REQ and SIDR_REQ private data.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../uroce/rdmacm/cm_mad.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uroce_cm_msg a, b;
	struct uroce_cma_hdr h;
	uint8_t out[RT_MAD_LEN];
	/* an exact-size copy so any read past the end is caught */
	uint8_t *mad = malloc(size ? size : 1);

	if (!mad)
		return 0;
	memcpy(mad, data, size);
	if (uroce_cm_decode(mad, size, &a) == 0) {
		if (uroce_cm_encode(&a, out) != 0 || uroce_cm_decode(out, sizeof(out), &b) != 0 ||
		    memcmp(&a, &b, sizeof(a)) != 0)
			abort();
		if (a.attr_id == RT_CM_REQ)
			(void)uroce_cma_hdr_decode(a.u.req.private_data, UROCE_CM_REQ_PD, &h);
		else if (a.attr_id == RT_CM_SIDR_REQ)
			(void)uroce_cma_hdr_decode(a.u.sidr_req.private_data, UROCE_CM_SIDR_REQ_PD, &h);
	}
	free(mad);
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sha1.h - SHA-1 (FIPS 180-4), only to check the hash line of the IERS
 * leap-seconds.list.  Not for anything that needs collision resistance.
 */
#ifndef GPSPHC_SHA1_H
#define GPSPHC_SHA1_H

#include <stddef.h>
#include <stdint.h>

struct sha1_ctx {
	uint32_t h[5];
	uint64_t len;		/* bytes so far */
	uint8_t buf[64];
	size_t fill;
};

void sha1_init(struct sha1_ctx *c);
void sha1_update(struct sha1_ctx *c, const void *data, size_t len);
void sha1_final(struct sha1_ctx *c, uint8_t digest[20]);

#endif /* GPSPHC_SHA1_H */

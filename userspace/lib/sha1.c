// SPDX-License-Identifier: GPL-2.0-only
/* sha1.c - SHA-1 as specified in FIPS 180-4, section 6.1. */
#include <string.h>

#include "sha1.h"

static uint32_t rol(uint32_t x, unsigned int n)
{
	return x << n | x >> (32 - n);
}

static void block(struct sha1_ctx *c, const uint8_t *p)
{
	uint32_t w[80], a, b, d, e, f, k, t, cc;
	unsigned int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (; i < 80; i++)
		w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
	a = c->h[0];
	b = c->h[1];
	cc = c->h[2];
	d = c->h[3];
	e = c->h[4];
	for (i = 0; i < 80; i++) {
		if (i < 20) {
			f = (b & cc) | (~b & d);
			k = 0x5a827999;
		} else if (i < 40) {
			f = b ^ cc ^ d;
			k = 0x6ed9eba1;
		} else if (i < 60) {
			f = (b & cc) | (b & d) | (cc & d);
			k = 0x8f1bbcdc;
		} else {
			f = b ^ cc ^ d;
			k = 0xca62c1d6;
		}
		t = rol(a, 5) + f + e + k + w[i];
		e = d;
		d = cc;
		cc = rol(b, 30);
		b = a;
		a = t;
	}
	c->h[0] += a;
	c->h[1] += b;
	c->h[2] += cc;
	c->h[3] += d;
	c->h[4] += e;
}

void sha1_init(struct sha1_ctx *c)
{
	static const uint32_t iv[5] = {
		0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0
	};

	memcpy(c->h, iv, sizeof(iv));
	c->len = 0;
	c->fill = 0;
}

void sha1_update(struct sha1_ctx *c, const void *data, size_t len)
{
	const uint8_t *p = data;

	c->len += len;
	while (len) {
		size_t n = 64 - c->fill < len ? 64 - c->fill : len;

		memcpy(c->buf + c->fill, p, n);
		c->fill += n;
		p += n;
		len -= n;
		if (c->fill == 64) {
			block(c, c->buf);
			c->fill = 0;
		}
	}
}

void sha1_final(struct sha1_ctx *c, uint8_t digest[20])
{
	uint64_t bits = c->len * 8;
	uint8_t pad = 0x80;

	sha1_update(c, &pad, 1);
	pad = 0;
	while (c->fill != 56)
		sha1_update(c, &pad, 1);
	for (int i = 7; i >= 0; i--) {
		uint8_t b = (uint8_t)(bits >> (8 * i));

		sha1_update(c, &b, 1);
	}
	for (int i = 0; i < 20; i++)
		digest[i] = (uint8_t)(c->h[i / 4] >> (24 - 8 * (i % 4)));
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fixed-width types for gpsphc's pure C files: the framer and the servo
 * build both into the kernel module and into host tests and fuzzers, so
 * they include this header instead of <linux/types.h>.
 *
 * In the kernel it gives the kernel's own u8..s64, bool, size_t and NULL,
 * and the arithmetic helpers the pure files use (math64.h, minmax.h,
 * math.h, overflow.h, bitops.h, log2.h; kzalloc() and kfree() for the
 * servo's handle); on the host the same names, from the
 * C11 standard headers and small definitions here that behave like the
 * kernel's for the values the pure files pass them.
 */
#ifndef _GPSPHC_PURE_TYPES_H
#define _GPSPHC_PURE_TYPES_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/bitops.h>
#include <linux/limits.h>
#include <linux/log2.h>
#include <linux/stddef.h>
#include <linux/math.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/slab.h>

#else /* !__KERNEL__ */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

#define U64_MAX		((u64)~0ULL)
#define S64_MAX		((s64)(U64_MAX >> 1))
#define S64_MIN		(-S64_MAX - 1)

#define min(a, b)	({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); \
			   _a < _b ? _a : _b; })
#define max(a, b)	({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); \
			   _a > _b ? _a : _b; })
#define min_t(t, a, b)	({ t _a = (a), _b = (b); _a < _b ? _a : _b; })
#define max_t(t, a, b)	({ t _a = (a), _b = (b); _a > _b ? _a : _b; })
#define clamp(v, lo, hi)	min(max(v, lo), hi)
#define clamp_t(t, v, lo, hi)	({ t _v = (v), _lo = (lo), _hi = (hi); \
				   _v < _lo ? _lo : _v > _hi ? _hi : _v; })
#undef abs	/* stdlib.h's int abs(int): the kernel's takes any type */
#define abs(x)		({ __typeof__(x) _x = (x); _x < 0 ? -_x : _x; })
#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)
#define check_sub_overflow(a, b, d)	__builtin_sub_overflow(a, b, d)

/* The servo's handle: zeroed, freed with kfree() */
#define GFP_KERNEL		0
#define kzalloc(size, gfp)	calloc(1, (size))
#define kfree(p)		free(p)

static inline u64 div_u64_rem(u64 dividend, u32 divisor, u32 *remainder)
{
	*remainder = (u32)(dividend % divisor);
	return dividend / divisor;
}

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

static inline s64 div_s64(s64 dividend, s32 divisor)
{
	return dividend / divisor;
}

static inline s64 div64_s64(s64 dividend, s64 divisor)
{
	return dividend / divisor;
}

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

#ifdef __SIZEOF_INT128__
static inline u64 mul_u64_u64_div_u64(u64 a, u64 b, u64 c)
{
	return (u64)((__uint128_t)a * b / c);
}

static inline u64 mul_u64_u64_shr(u64 a, u64 b, unsigned int shift)
{
	return (u64)(((__uint128_t)a * b) >> shift);
}
#else
/*
 * A 32-bit host has no 128-bit type: the product in two halves, from
 * 32-bit limbs, and a long division bit by bit (tests, not speed).
 */
static inline void pure_mul_u64_u64(u64 a, u64 b, u64 *hi, u64 *lo)
{
	u64 al = (u32)a, ah = a >> 32, bl = (u32)b, bh = b >> 32;
	u64 ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
	u64 mid = (ll >> 32) + (u32)lh + (u32)hl;

	*lo = (mid << 32) | (u32)ll;
	*hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

static inline u64 mul_u64_u64_div_u64(u64 a, u64 b, u64 c)
{
	u64 hi, lo, q = 0;
	int i;

	pure_mul_u64_u64(a, b, &hi, &lo);
	/* The quotient's 64 bits: as the kernel's, for quotients that fit */
	hi %= c;
	for (i = 63; i >= 0; i--) {
		bool carry = hi >> 63;

		hi = (hi << 1) | (lo >> 63);
		lo <<= 1;
		if (carry || hi >= c) {
			hi -= c;
			q |= 1ULL << i;
		}
	}
	return q;
}

static inline u64 mul_u64_u64_shr(u64 a, u64 b, unsigned int shift)
{
	u64 hi, lo;

	pure_mul_u64_u64(a, b, &hi, &lo);
	if (!shift)
		return lo;
	if (shift >= 64)
		return hi >> (shift - 64);
	return (hi << (64 - shift)) | (lo >> shift);
}
#endif

/* The last set bit, 1-based; 0 for 0 */
static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

/* The floor of the base-2 logarithm, as linux/log2.h; -1 for 0 */
static inline int ilog2(u64 x)
{
	return fls64(x) - 1;
}

/* The floor of the square root, as lib/math/int_sqrt.c */
static inline u32 int_sqrt64(u64 x)
{
	u64 r = 0, bit = 1ULL << 62;

	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return (u32)r;
}

#endif /* __KERNEL__ */

#endif /* _GPSPHC_PURE_TYPES_H */

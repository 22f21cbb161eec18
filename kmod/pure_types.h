/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fixed-width types for gpsphc's pure C files: the framer and the servo
 * build both into the kernel module and into host tests and fuzzers, so
 * they include this header instead of <linux/types.h>.
 *
 * In the kernel it gives the kernel's own u8..s64, bool, size_t and NULL;
 * on the host the same names from the C11 standard headers.
 */
#ifndef _GPSPHC_PURE_TYPES_H
#define _GPSPHC_PURE_TYPES_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/stddef.h>

#else /* !__KERNEL__ */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

#endif /* __KERNEL__ */

#endif /* _GPSPHC_PURE_TYPES_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernels gpsphc supports (6.1 .. 6.12), kept in
 * one place and force-included by Kbuild so the driver reads as upstream
 * code. Feature tests first, LINUX_VERSION_CODE only where no symbol to
 * test for exists.
 */
#ifndef _GPSPHC_COMPAT_H
#define _GPSPHC_COMPAT_H

#include <linux/version.h>
#include <linux/types.h>

/*
 * v6.6 ("tty: make tty_ldisc_ops::*buf*() hooks operate on size_t",
 * "tty: use u8 for flags") changed the types of the ldisc receive hooks.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
typedef u8 gpsphc_rx_char_t;
typedef u8 gpsphc_rx_flag_t;
typedef size_t gpsphc_rx_count_t;
typedef size_t gpsphc_rx2_ret_t;
typedef size_t gpsphc_lookahead_count_t;
#else
typedef unsigned char gpsphc_rx_char_t;
typedef char gpsphc_rx_flag_t;
typedef int gpsphc_rx_count_t;
typedef int gpsphc_rx2_ret_t;
typedef unsigned int gpsphc_lookahead_count_t;
#endif

/*
 * v6.6 ("netlink: add struct genl_info to struct genl_dumpit_info") moved
 * a dump's parsed attributes into an embedded genl_info.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
#define gpsphc_dump_attrs(cb)	(genl_info_dump(cb)->attrs)
#else
#define gpsphc_dump_attrs(cb)	(genl_dumpit_info(cb)->attrs)
#endif

/*
 * v6.2 ("genetlink: introduce split op representation") hands a family's
 * pre_doit and post_doit the split op; before, the struct genl_ops.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
struct genl_split_ops;
typedef struct genl_split_ops gpsphc_genl_op_t;
#else
struct genl_ops;
typedef struct genl_ops gpsphc_genl_op_t;
#endif

/*
 * v6.2 ("netlink: make range pointers in policies const"): ynl-gen-c's
 * policies point at const ranges, which 6.1's NLA_POLICY_FULL_RANGE()
 * takes only without the const (netlink never writes through it).
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
#include <net/netlink.h>
#undef NLA_POLICY_FULL_RANGE
#define NLA_POLICY_FULL_RANGE(tp, _range) {				\
	.type = NLA_ENSURE_UINT_OR_BINARY_TYPE(tp),			\
	.validation_type = NLA_VALIDATE_RANGE_PTR,			\
	.range = (struct netlink_range_validation *)(_range),		\
}
#endif

/*
 * The DPLL subsystem (drivers/dpll, <linux/dpll.h>) came in v6.7 and is
 * built in where a driver selects it: Debian's 6.12 kernels have it
 * (ice, mlx5, ptp_ocp), 6.1 has neither the header nor the symbol, and
 * no kernel has the symbol without the header. Kbuild builds kmod/dpll.c
 * on the same test (gpsphc-$(CONFIG_DPLL)); elsewhere dpll.h's stubs
 * stand in.
 */
#if IS_ENABLED(CONFIG_DPLL)
#define GPSPHC_HAVE_DPLL	1
#else
#define GPSPHC_HAVE_DPLL	0
#endif

/*
 * uart_port_lock_irq() and the other uart port lock helpers came in v6.7
 * ("serial: core: Provide port lock wrappers"); Debian's 6.1 carries them
 * (linux/serial_core.h), so main.c uses them on both supported kernels.
 * An upstream 6.1 .. 6.6 would need spin_lock_irq(&uport->lock) instead.
 */

#endif /* _GPSPHC_COMPAT_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpsphc: a DPLL device per attached receiver (dpll.c), where the kernel
 * has the DPLL core (compat.h); elsewhere the stubs below stand in.
 */
#ifndef _GPSPHC_DPLL_H
#define _GPSPHC_DPLL_H

struct gpsphc_dev;

#if GPSPHC_HAVE_DPLL
int gpsphc_dpll_register(struct gpsphc_dev *gdev);
void gpsphc_dpll_unregister(struct gpsphc_dev *gdev);
#else
static inline int gpsphc_dpll_register(struct gpsphc_dev *gdev)
{
	return 0;
}

static inline void gpsphc_dpll_unregister(struct gpsphc_dev *gdev)
{
}
#endif

#endif /* _GPSPHC_DPLL_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpsphc: the "gpsphc" generic netlink family (netlink.c), registered at
 * module load; it registers itself as the event queue's sink.
 */
#ifndef _GPSPHC_NETLINK_H
#define _GPSPHC_NETLINK_H

int gpsphc_netlink_register(void);
void gpsphc_netlink_unregister(void);

#endif /* _GPSPHC_NETLINK_H */

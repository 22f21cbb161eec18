/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * adapter.h - does the driver of a tty deliver DCD changes to the line
 * discipline (the PPS)? Pure: takes the driver's name and the kernel's
 * version, returns words; gpsphcd reads them from sysfs and uname().
 * The table is the admin guide's (Documentation/admin-guide/gpsphc.rst,
 * "Which serial ports deliver the PPS"), taken from the drivers' sources.
 */
#ifndef GPSPHC_ADAPTER_H
#define GPSPHC_ADAPTER_H

#include <stdbool.h>
#include <stddef.h>

enum adapter_dcd {
	ADAPTER_DCD_UNKNOWN,	/* a driver not in the table */
	ADAPTER_DCD_YES,	/* reports each DCD change to the discipline */
	ADAPTER_DCD_NO,		/* never does, on this kernel */
};

/*
 * @driver (NULL: none found) on Linux @kmajor.@kminor: whether it delivers
 * DCD changes; *@why (may be NULL) gets a phrase saying how, or why not,
 * or NULL for an unknown driver.
 */
enum adapter_dcd adapter_dcd(const char *driver, int kmajor, int kminor,
			     const char **why);

/*
 * True for the serial core's own drivers of its port and controller
 * devices ("port", "ctrl": Linux 6.5 on put them between a UART's tty and
 * its device): the UART's driver is further up.
 */
bool adapter_serial_core_layer(const char *driver);

/*
 * Is the PPS missing after @secs seconds with @edges DCD edges? A PPS
 * gives two a second; fewer than one a second is no PPS (a single edge
 * comes from a USB adapter's first status report after the open, e.g.
 * ftdi_sio's with DCD held high).
 */
bool adapter_pps_missing(unsigned long edges, unsigned int secs);

/*
 * The line gpsphcd logs at attach when the PPS comes from GPIO line
 * @pps_gpio: which driver owns @tty (NULL: not found), and that its DCD
 * does not matter.
 */
int adapter_attach_gpio_msg(char *buf, size_t len, const char *tty,
			    const char *driver, const char *pps_gpio);

/* The line gpsphcd logs at attach: which driver owns @tty, and DCD. */
int adapter_attach_msg(char *buf, size_t len, const char *tty,
		       const char *driver, int kmajor, int kminor);

/*
 * The warning, once, when no PPS edge has come @secs seconds after
 * attach: the driver if it is known not to deliver DCD, what runs
 * meanwhile (coarse mode), and what to do.
 */
int adapter_no_pps_msg(char *buf, size_t len, const char *tty,
		       const char *driver, int kmajor, int kminor,
		       unsigned int secs);

/*
 * Does the PPS come from a GPIO line? @pps_gpio is the device's pps_gpio
 * setting as the kernel reports it: NULL (a module without it), "" or
 * "none" is DCD.
 */
bool adapter_pps_from_gpio(const char *pps_gpio);

/*
 * The same warning when the PPS comes from the GPIO line @line of
 * gpsphc<@dev_id> (adapter_pps_from_gpio()): the tty's driver has no part
 * in it; the line's wiring and its name do.
 */
int adapter_no_pps_gpio_msg(char *buf, size_t len, const char *tty,
			    const char *line, unsigned int dev_id,
			    unsigned int secs);

#endif /* GPSPHC_ADAPTER_H */

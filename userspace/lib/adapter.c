// SPDX-License-Identifier: GPL-2.0-only
/*
 * adapter.c - which tty drivers deliver DCD changes to the line
 * discipline, from their sources (Linux 6.12, and 6.1 where it differs):
 *
 *   ftdi_sio, pl2303, ch341, f81232, f81534
 *       usb_serial_handle_dcd_change() from the status bytes of each read
 *       (ftdi_sio.c:2466, pl2303.c:1139, ch341.c:738, f81232.c:229,
 *       f81534.c:1042)
 *   cp210x
 *       no: its modem-status events are parsed and dropped
 *       ("case ES_MSR: ... unimplemented", cp210x.c:887)
 *   cdc_acm
 *       ld->ops->dcd_change() from the SERIAL_STATE notification since
 *       6.6 (cdc-acm.c:327); 6.1 only counts the change (cdc-acm.c:326)
 *   8250 family (serial8250, serial, of_serial, dw-apb-uart, ...)
 *       uart_handle_dcd_change() from serial8250_modem_status()
 *       (8250_port.c:1849) while IER.MSI is on, which gpsphc keeps on
 *   uart-pl011
 *       uart_handle_dcd_change() from pl011_modem_status()
 *       (amba-pl011.c:1500) while its modem interrupts are unmasked, which
 *       gpsphc does; the Raspberry Pi's PL011 has no DCD input
 */
#include <stdio.h>
#include <string.h>

#include "adapter.h"

/* What to use instead, said whenever the PPS cannot come. */
#define ADAPTER_WORKING \
	"FTDI (ftdi_sio), Prolific PL2303 (pl2303), WCH CH340/CH341 (ch341), a CDC-ACM receiver on Linux 6.6 or later (cdc_acm), or a UART's DCD pin (8250, pl011)"
#define ADAPTER_COARSE \
	"coarse mode is running: the clock follows the NMEA sentences, good to milliseconds"

struct adapter_row {
	const char *driver;
	enum adapter_dcd dcd;
	const char *why;
};

static const char usb_serial_why[] = "usb_serial_handle_dcd_change()";
static const char uart_8250_why[] =
	"an 8250 UART: its modem status interrupt, which gpsphc keeps on";

static const struct adapter_row adapter_table[] = {
	{ "ftdi_sio", ADAPTER_DCD_YES, usb_serial_why },
	{ "pl2303", ADAPTER_DCD_YES, usb_serial_why },
	{ "ch341", ADAPTER_DCD_YES, usb_serial_why },
	{ "f81232", ADAPTER_DCD_YES, usb_serial_why },
	{ "f81534", ADAPTER_DCD_YES, usb_serial_why },
	{ "cp210x", ADAPTER_DCD_NO,
	  "its modem-status events are unimplemented" },
	{ "serial8250", ADAPTER_DCD_YES, uart_8250_why },
	{ "serial", ADAPTER_DCD_YES, uart_8250_why },
	{ "of_serial", ADAPTER_DCD_YES, uart_8250_why },
	{ "dw-apb-uart", ADAPTER_DCD_YES, uart_8250_why },
	{ "bcm2835-aux-uart", ADAPTER_DCD_YES, uart_8250_why },
	{ "uart-pl011", ADAPTER_DCD_YES,
	  "a PL011 UART: its modem status interrupt, which gpsphc turns on" },
};

enum adapter_dcd adapter_dcd(const char *driver, int kmajor, int kminor,
			     const char **why)
{
	size_t i;

	if (why)
		*why = NULL;
	if (!driver)
		return ADAPTER_DCD_UNKNOWN;
	if (!strcmp(driver, "cdc_acm")) {
		bool since = kmajor > 6 || (kmajor == 6 && kminor >= 6);

		if (why)
			*why = since ? "the SERIAL_STATE notification, since Linux 6.6" :
				"only from Linux 6.6 on";
		return since ? ADAPTER_DCD_YES : ADAPTER_DCD_NO;
	}
	for (i = 0; i < sizeof(adapter_table) / sizeof(adapter_table[0]); i++) {
		if (!strcmp(driver, adapter_table[i].driver)) {
			if (why)
				*why = adapter_table[i].why;
			return adapter_table[i].dcd;
		}
	}
	return ADAPTER_DCD_UNKNOWN;
}

bool adapter_serial_core_layer(const char *driver)
{
	return !strcmp(driver, "port") || !strcmp(driver, "ctrl");
}

bool adapter_pps_missing(unsigned long edges, unsigned int secs)
{
	return edges < secs;
}

int adapter_attach_gpio_msg(char *buf, size_t len, const char *tty,
			    const char *driver, const char *pps_gpio)
{
	return snprintf(buf, len, "%s: tty driver %s; the PPS comes from GPIO line %s (pps_gpio), so whether the driver delivers DCD changes does not matter",
			tty, driver ? driver : "not found in sysfs", pps_gpio);
}

int adapter_attach_msg(char *buf, size_t len, const char *tty,
		       const char *driver, int kmajor, int kminor)
{
	const char *why;

	switch (adapter_dcd(driver, kmajor, kminor, &why)) {
	case ADAPTER_DCD_YES:
		return snprintf(buf, len, "%s: tty driver %s, which delivers DCD changes (%s)",
				tty, driver, why);
	case ADAPTER_DCD_NO:
		return snprintf(buf, len, "%s: tty driver %s, which does not deliver DCD changes (%s): a PPS on DCD cannot reach gpsphc through it",
				tty, driver, why);
	case ADAPTER_DCD_UNKNOWN:
		break;
	}
	if (!driver)
		return snprintf(buf, len, "%s: tty driver not found in sysfs", tty);
	return snprintf(buf, len, "%s: tty driver %s (whether it delivers DCD changes is not known)",
			tty, driver);
}

int adapter_no_pps_msg(char *buf, size_t len, const char *tty,
		       const char *driver, int kmajor, int kminor,
		       unsigned int secs)
{
	const char *why;

	switch (adapter_dcd(driver, kmajor, kminor, &why)) {
	case ADAPTER_DCD_NO:
		return snprintf(buf, len, "%s: no PPS in %u s: its driver %s does not deliver DCD changes (%s) on Linux %d.%d; %s; for PPS use an adapter whose driver does: "
				ADAPTER_WORKING,
				tty, secs, driver, why, kmajor, kminor,
				ADAPTER_COARSE);
	case ADAPTER_DCD_YES:
		return snprintf(buf, len, "%s: no PPS in %u s, though its driver %s delivers DCD changes: check that the receiver's PPS output is on and wired to DCD; %s",
				tty, secs, driver, ADAPTER_COARSE);
	case ADAPTER_DCD_UNKNOWN:
		break;
	}
	return snprintf(buf, len, "%s: no PPS in %u s; its driver %s is not known to deliver DCD changes: check the PPS wiring to DCD, or use an adapter whose driver does: "
			ADAPTER_WORKING "; %s",
			tty, secs, driver ? driver : "(not found)",
			ADAPTER_COARSE);
}

bool adapter_pps_from_gpio(const char *pps_gpio)
{
	return pps_gpio && *pps_gpio && strcmp(pps_gpio, "none");
}

int adapter_no_pps_gpio_msg(char *buf, size_t len, const char *tty,
			    const char *line, unsigned int dev_id,
			    unsigned int secs)
{
	return snprintf(buf, len, "%s: no PPS in %u s from GPIO line %s (pps_gpio): check that the receiver's PPS output is on and wired to that line, and that %s names it (cat /sys/class/gpsphc/gpsphc%u/pps_gpio; gpioinfo lists the lines by chip, offset and name, the one in use with consumer gpsphc%u); %s",
			tty, secs, line, line, dev_id, dev_id, ADAPTER_COARSE);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_adapter.c - which drivers deliver DCD (the admin guide's table,
 * row by row), and gpsphcd's messages, word for word: at attach, and no
 * PPS on DCD or on a GPIO line.
 */
#include <stdio.h>
#include <string.h>

#pragma GCC diagnostic ignored "-Wsign-compare"
#include "kselftest_harness.h"

#include "adapter.h"

FIXTURE(table) {
};
FIXTURE_SETUP(table)
{
}
FIXTURE_TEARDOWN(table)
{
}
FIXTURE_VARIANT(table) {
	const char *driver;
	int kmajor, kminor;
	enum adapter_dcd want;
};
#define ROW(name, drv, maj, min, dcd)					\
	FIXTURE_VARIANT_ADD(table, name) {				\
		.driver = drv, .kmajor = maj, .kminor = min, .want = dcd, \
	}
ROW(ftdi_sio, "ftdi_sio", 6, 1, ADAPTER_DCD_YES);
ROW(pl2303, "pl2303", 6, 1, ADAPTER_DCD_YES);
ROW(ch341, "ch341", 6, 12, ADAPTER_DCD_YES);
ROW(f81232, "f81232", 6, 12, ADAPTER_DCD_YES);
ROW(f81534, "f81534", 6, 12, ADAPTER_DCD_YES);
ROW(cp210x_61, "cp210x", 6, 1, ADAPTER_DCD_NO);
ROW(cp210x_612, "cp210x", 6, 12, ADAPTER_DCD_NO);
ROW(cdc_acm_61, "cdc_acm", 6, 1, ADAPTER_DCD_NO);
ROW(cdc_acm_65, "cdc_acm", 6, 5, ADAPTER_DCD_NO);
ROW(cdc_acm_66, "cdc_acm", 6, 6, ADAPTER_DCD_YES);
ROW(cdc_acm_612, "cdc_acm", 6, 12, ADAPTER_DCD_YES);
ROW(cdc_acm_7, "cdc_acm", 7, 0, ADAPTER_DCD_YES);
ROW(serial8250, "serial8250", 6, 1, ADAPTER_DCD_YES);
ROW(pci_8250, "serial", 6, 12, ADAPTER_DCD_YES);
ROW(of_serial, "of_serial", 6, 12, ADAPTER_DCD_YES);
ROW(dw_apb, "dw-apb-uart", 6, 12, ADAPTER_DCD_YES);
ROW(bcm2835aux, "bcm2835-aux-uart", 6, 12, ADAPTER_DCD_YES);
ROW(pl011, "uart-pl011", 6, 12, ADAPTER_DCD_YES);
ROW(other, "option", 6, 12, ADAPTER_DCD_UNKNOWN);
ROW(serial_core_port, "port", 6, 12, ADAPTER_DCD_UNKNOWN);
ROW(none, NULL, 6, 12, ADAPTER_DCD_UNKNOWN);

TEST_F(table, dcd)
{
	const char *why = "unset";
	enum adapter_dcd got = adapter_dcd(variant->driver, variant->kmajor,
					   variant->kminor, &why);

	EXPECT_EQ(variant->want, got);
	/* A phrase for every driver in the table, none for the others. */
	EXPECT_EQ(got != ADAPTER_DCD_UNKNOWN, why != NULL);
	EXPECT_EQ(got, adapter_dcd(variant->driver, variant->kmajor,
				   variant->kminor, NULL));
}

TEST(serial_core_layers)
{
	EXPECT_TRUE(adapter_serial_core_layer("port"));
	EXPECT_TRUE(adapter_serial_core_layer("ctrl"));
	EXPECT_FALSE(adapter_serial_core_layer("serial8250"));
	EXPECT_FALSE(adapter_serial_core_layer("ftdi_sio"));
}

TEST(pps_missing)
{
	EXPECT_TRUE(adapter_pps_missing(0, 5));
	/* ftdi_sio's first status after the open, DCD high: one edge. */
	EXPECT_TRUE(adapter_pps_missing(1, 5));
	EXPECT_TRUE(adapter_pps_missing(4, 5));
	EXPECT_FALSE(adapter_pps_missing(5, 5));
	/* A PPS: two edges a second. */
	EXPECT_FALSE(adapter_pps_missing(10, 5));
}

TEST(attach_messages)
{
	char buf[512];

	adapter_attach_msg(buf, sizeof(buf), "ttyUSB0", "ftdi_sio", 6, 12);
	EXPECT_STREQ("ttyUSB0: tty driver ftdi_sio, which delivers DCD changes (usb_serial_handle_dcd_change())", buf);
	adapter_attach_msg(buf, sizeof(buf), "ttyS0", "serial8250", 6, 1);
	EXPECT_STREQ("ttyS0: tty driver serial8250, which delivers DCD changes (an 8250 UART: its modem status interrupt, which gpsphc keeps on)", buf);
	adapter_attach_msg(buf, sizeof(buf), "ttyUSB1", "cp210x", 6, 12);
	EXPECT_STREQ("ttyUSB1: tty driver cp210x, which does not deliver DCD changes (its modem-status events are unimplemented): a PPS on DCD cannot reach gpsphc through it", buf);
	adapter_attach_msg(buf, sizeof(buf), "ttyACM0", "cdc_acm", 6, 1);
	EXPECT_STREQ("ttyACM0: tty driver cdc_acm, which does not deliver DCD changes (only from Linux 6.6 on): a PPS on DCD cannot reach gpsphc through it", buf);
	adapter_attach_msg(buf, sizeof(buf), "ttyACM0", "cdc_acm", 6, 12);
	EXPECT_STREQ("ttyACM0: tty driver cdc_acm, which delivers DCD changes (the SERIAL_STATE notification, since Linux 6.6)", buf);
	/* A GPIO line's PPS: the driver's DCD does not matter. */
	adapter_attach_gpio_msg(buf, sizeof(buf), "ttyUSB1", "cp210x", "GPIO18");
	EXPECT_STREQ("ttyUSB1: tty driver cp210x; the PPS comes from GPIO line GPIO18 (pps_gpio), so whether the driver delivers DCD changes does not matter", buf);
	adapter_attach_gpio_msg(buf, sizeof(buf), "ttyAMA0", NULL, "pinctrl-bcm2835:18");
	EXPECT_STREQ("ttyAMA0: tty driver not found in sysfs; the PPS comes from GPIO line pinctrl-bcm2835:18 (pps_gpio), so whether the driver delivers DCD changes does not matter", buf);
	adapter_attach_msg(buf, sizeof(buf), "ttyX0", "xyz", 6, 12);
	EXPECT_STREQ("ttyX0: tty driver xyz (whether it delivers DCD changes is not known)", buf);
	adapter_attach_msg(buf, sizeof(buf), "ttyS1", NULL, 6, 12);
	EXPECT_STREQ("ttyS1: tty driver not found in sysfs", buf);
}

TEST(no_pps_messages)
{
	char buf[1024];

	adapter_no_pps_msg(buf, sizeof(buf), "ttyUSB1", "cp210x", 6, 12, 5);
	EXPECT_STREQ("ttyUSB1: no PPS in 5 s: its driver cp210x does not deliver DCD changes (its modem-status events are unimplemented) on Linux 6.12; coarse mode is running: the clock follows the NMEA sentences, good to milliseconds; for PPS use an adapter whose driver does: FTDI (ftdi_sio), Prolific PL2303 (pl2303), WCH CH340/CH341 (ch341), a CDC-ACM receiver on Linux 6.6 or later (cdc_acm), or a UART's DCD pin (8250, pl011)", buf);
	adapter_no_pps_msg(buf, sizeof(buf), "ttyACM0", "cdc_acm", 6, 1, 5);
	EXPECT_STREQ("ttyACM0: no PPS in 5 s: its driver cdc_acm does not deliver DCD changes (only from Linux 6.6 on) on Linux 6.1; coarse mode is running: the clock follows the NMEA sentences, good to milliseconds; for PPS use an adapter whose driver does: FTDI (ftdi_sio), Prolific PL2303 (pl2303), WCH CH340/CH341 (ch341), a CDC-ACM receiver on Linux 6.6 or later (cdc_acm), or a UART's DCD pin (8250, pl011)", buf);
	adapter_no_pps_msg(buf, sizeof(buf), "ttyUSB0", "ftdi_sio", 6, 12, 5);
	EXPECT_STREQ("ttyUSB0: no PPS in 5 s, though its driver ftdi_sio delivers DCD changes: check that the receiver's PPS output is on and wired to DCD; coarse mode is running: the clock follows the NMEA sentences, good to milliseconds", buf);
	adapter_no_pps_msg(buf, sizeof(buf), "ttyX0", "xyz", 6, 12, 5);
	EXPECT_STREQ("ttyX0: no PPS in 5 s; its driver xyz is not known to deliver DCD changes: check the PPS wiring to DCD, or use an adapter whose driver does: FTDI (ftdi_sio), Prolific PL2303 (pl2303), WCH CH340/CH341 (ch341), a CDC-ACM receiver on Linux 6.6 or later (cdc_acm), or a UART's DCD pin (8250, pl011); coarse mode is running: the clock follows the NMEA sentences, good to milliseconds", buf);
	adapter_no_pps_msg(buf, sizeof(buf), "ttyS1", NULL, 6, 12, 5);
	EXPECT_STREQ("ttyS1: no PPS in 5 s; its driver (not found) is not known to deliver DCD changes: check the PPS wiring to DCD, or use an adapter whose driver does: FTDI (ftdi_sio), Prolific PL2303 (pl2303), WCH CH340/CH341 (ch341), a CDC-ACM receiver on Linux 6.6 or later (cdc_acm), or a UART's DCD pin (8250, pl011); coarse mode is running: the clock follows the NMEA sentences, good to milliseconds", buf);
	/* The PPS from a GPIO line: the line, not the tty's driver. */
	adapter_no_pps_gpio_msg(buf, sizeof(buf), "ttyAMA0", "GPIO18", 0, 5);
	EXPECT_STREQ("ttyAMA0: no PPS in 5 s from GPIO line GPIO18 (pps_gpio): check that the receiver's PPS output is on and wired to that line, and that GPIO18 names it (cat /sys/class/gpsphc/gpsphc0/pps_gpio; gpioinfo lists the lines by chip, offset and name, the one in use with consumer gpsphc0); coarse mode is running: the clock follows the NMEA sentences, good to milliseconds", buf);
	adapter_no_pps_gpio_msg(buf, sizeof(buf), "ttyS0", "pinctrl-bcm2711:18", 3, 5);
	EXPECT_STREQ("ttyS0: no PPS in 5 s from GPIO line pinctrl-bcm2711:18 (pps_gpio): check that the receiver's PPS output is on and wired to that line, and that pinctrl-bcm2711:18 names it (cat /sys/class/gpsphc/gpsphc3/pps_gpio; gpioinfo lists the lines by chip, offset and name, the one in use with consumer gpsphc3); coarse mode is running: the clock follows the NMEA sentences, good to milliseconds", buf);
	/* Cut to the buffer, NUL-terminated, the full length returned. */
	EXPECT_LT(100, adapter_no_pps_msg(buf, 8, "ttyS1", NULL, 6, 12, 5));
	EXPECT_STREQ("ttyS1: ", buf);
}

/* Which setting means a GPIO line: DCD for no setting, "" and "none". */
TEST(pps_from_gpio)
{
	EXPECT_FALSE(adapter_pps_from_gpio(NULL));
	EXPECT_FALSE(adapter_pps_from_gpio(""));
	EXPECT_FALSE(adapter_pps_from_gpio("none"));
	EXPECT_TRUE(adapter_pps_from_gpio("GPIO18"));
	EXPECT_TRUE(adapter_pps_from_gpio("gpiochip0:18"));
	EXPECT_TRUE(adapter_pps_from_gpio("nonex"));
}

TEST_HARNESS_MAIN

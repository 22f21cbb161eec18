// SPDX-License-Identifier: GPL-2.0-only
/* live_adapter.c - the tty's driver, and no PPS: see live_adapter.h. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "adapter.h"
#include "live_adapter.h"
#include "log.h"

/* No PPS edge this long after attach is said once (live_adapter_no_pps()). */
#define LIVE_NO_PPS_S	5

void live_adapter_probe(struct live_adapter *a, const char *tty_name,
			uint32_t dev_id, int64_t now)
{
	char path[PATH_MAX], link[PATH_MAX], msg[512];
	const char *name;
	struct utsname u;
	int up, len;
	ssize_t n;

	a->dev_id = dev_id;
	a->since = now;
	if (uname(&u) || sscanf(u.release, "%d.%d", &a->kmajor,
				&a->kminor) != 2)
		a->kmajor = a->kminor = 0;
	for (up = 0; up < 4 && !a->driver[0]; up++) {
		len = snprintf(path, sizeof(path), "/sys/class/tty/%s/device%.*s/driver",
			       tty_name, 3 * up, "/../../../..");
		n = len < (int)sizeof(path) ? readlink(path, link, sizeof(link) - 1) : -1;
		if (n < 0)
			continue;
		link[n] = '\0';
		name = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
		if (!adapter_serial_core_layer(name))
			snprintf(a->driver, sizeof(a->driver), "%.63s", name);
	}
	if (a->pps_gpio[0])
		adapter_attach_gpio_msg(msg, sizeof(msg), tty_name,
					a->driver[0] ? a->driver : NULL,
					a->pps_gpio);
	else
		adapter_attach_msg(msg, sizeof(msg), tty_name,
				   a->driver[0] ? a->driver : NULL,
				   a->kmajor, a->kminor);
	log_msg(LOG_INFO, "%s", msg);
}

void live_adapter_pps_gpio(struct live_adapter *a, const char *pps_gpio)
{
	snprintf(a->pps_gpio, sizeof(a->pps_gpio), "%s",
		 adapter_pps_from_gpio(pps_gpio) ? pps_gpio : "");
}

void live_adapter_no_pps(struct live_adapter *a, const char *tty_name,
			 int64_t now)
{
	char msg[1024];

	if (!adapter_pps_missing(a->edges, LIVE_NO_PPS_S) ||
	    a->said ||
	    now - a->since < LIVE_NO_PPS_S * 1000000000LL)
		return;
	a->said = true;
	if (a->pps_gpio[0])
		adapter_no_pps_gpio_msg(msg, sizeof(msg), tty_name, a->pps_gpio,
					a->dev_id, LIVE_NO_PPS_S);
	else
		adapter_no_pps_msg(msg, sizeof(msg), tty_name,
				   a->driver[0] ? a->driver : NULL,
				   a->kmajor, a->kminor, LIVE_NO_PPS_S);
	log_msg(LOG_WARNING, "%s", msg);
}

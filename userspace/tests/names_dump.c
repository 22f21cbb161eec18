// SPDX-License-Identifier: GPL-2.0-only
/*
 * names_dump - lib/names.c's words, for tests/test_names.py to hold
 * against the YAML spec and the kernel's sysfs words:
 *   "enum <spec name> <value> <word>", values 0 to the largest + 1;
 *   "stats <attr> <key>" and "servo <attr> <key>", one per counter key;
 *   "servo-attr <attr> <name> <lengths>", for each servo attribute the
 *   name and the payload lengths (0 to 16, "4", "0,1,...") that
 *   servo_status.c's policy takes, found by decoding a nest of it alone.
 * It fails if a word does not lead back to its value (gp_enum_value()).
 */
#include <stdio.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "linux/gpsphc.h"
#include "names.h"
#include "../servo_status.h"

/* The longest payload tried for a servo attribute. */
#define PROBE_LEN	16

/* Servo attribute @attr's name and the payload lengths decoded: 0, or -1. */
static int servo_attr(unsigned int attr)
{
	static const uint8_t zeros[PROBE_LEN];
	const char *name = servo_status_attr_name(attr);
	struct servo_status s;
	struct nlattr *nest;
	const char *sep = " ";
	int len;

	printf("servo-attr %u %s", attr, name ? name : "-");
	for (len = 0; len <= PROBE_LEN; len++) {
		struct nl_msg *m = nlmsg_alloc();

		if (!m || !(nest = nla_nest_start(m, GPSPHC_A_DEV_SERVO)) ||
		    nla_put(m, (int)attr, len, zeros)) {
			nlmsg_free(m);
			return -1;
		}
		nla_nest_end(m, nest);
		if (!servo_status_parse(nest, &s, NULL, 0)) {
			printf("%s%d", sep, len);
			sep = ",";
		}
		nlmsg_free(m);
	}
	printf("\n");
	return 0;
}

int main(void)
{
	unsigned int e, a;
	int ret = 0;
	uint32_t v;

	for (e = 0; e < GP_ENUM_COUNT; e++) {
		for (v = 0; v <= gp_enum_max(e) + 1; v++)
			printf("enum %s %u %s\n", gp_enum_spec_name(e),
			       (unsigned int)v, gp_enum_name(e, v));
		for (v = 1; v <= gp_enum_max(e); v++)
			if (gp_enum_value(e, gp_enum_name(e, v)) != v) {
				fprintf(stderr, "names_dump: \"%s\" is not %s %u again\n",
					gp_enum_name(e, v), gp_enum_spec_name(e),
					(unsigned int)v);
				ret = 1;
			}
		if (gp_enum_value(e, "unknown")) {
			fprintf(stderr, "names_dump: \"unknown\" is a %s\n",
				gp_enum_spec_name(e));
			ret = 1;
		}
	}
	for (a = 0; a <= GPSPHC_A_STATS_MAX + 1; a++)
		if (gp_stats_key(a))
			printf("stats %u %s\n", a, gp_stats_key(a));
	for (a = 0; a <= GPSPHC_A_SERVO_MAX + 1; a++)
		if (gp_servo_counter_key(a))
			printf("servo %u %s\n", a, gp_servo_counter_key(a));
	for (a = 1; a <= GPSPHC_A_SERVO_MAX; a++)
		if (servo_attr(a))
			ret = 1;
	return ferror(stdout) ? 1 : ret;
}

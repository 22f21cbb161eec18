// SPDX-License-Identifier: GPL-2.0-only
/*
 * names_dump - lib/names.c's words, for tests/test_names.py to hold
 * against the YAML spec and the kernel's sysfs words:
 *   "enum <spec name> <value> <word>", values 0 to the largest + 1;
 *   "stats <attr> <key>" and "servo <attr> <key>", one per counter key.
 * It fails if a word does not lead back to its value (gp_enum_value()).
 */
#include <stdio.h>

#include "linux/gpsphc.h"
#include "names.h"

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
	return ferror(stdout) ? 1 : ret;
}

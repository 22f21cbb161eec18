// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_nmea.c - libFuzzer target: untrusted text through the NMEA parser,
 * the era resolver and the leap labeller, and through the
 * leap-seconds.list parser.  Checks the invariants, not just crashes:
 * nothing resolves before the pivot, and a rejection always has a reason.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "era.h"
#include "leap.h"
#include "nmea.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int64_t pivots[] = { 315964800LL, 1554595200LL,
					  1796256000LL, 2173478400LL };
	struct leap_table lt, list;
	struct nmea_msg m;
	struct era_result r;
	struct leap_label l;
	struct gp_err e;
	const char *s = (const char *)data;
	int ret;

	leap_builtin(&lt);
	if (size && data[0] == '#') {
		ret = leap_parse_list(s, size, &list, &e);
		if (ret && !e.msg[0])
			abort();
		if (!ret && (list.n == 0 || list.n > LEAP_MAX))
			abort();
		return 0;
	}
	ret = nmea_parse(s, size, &m, &e);
	if (ret) {
		if (!e.msg[0] || e.code != ret)
			abort();
		return 0;
	}
	for (size_t i = 0; i < sizeof(pivots) / sizeof(pivots[0]); i++) {
		struct era_pivot p = { pivots[i], leap_offset(&lt, pivots[i]) };

		if (era_resolve(&p, &m, &r, &e)) {
			if (!e.msg[0])
				abort();
			continue;
		}
		if ((r.utc_valid && r.utc < p.utc) ||
		    (r.gps_valid && r.gps < era_pivot_gps(&p)))
			abort();	/* never before the pivot */
		leap_label(&lt, &r, m.has_leap ? m.leap : -1, &l, &e);
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_leap.c - SHA-1, the leap-seconds.list parser (good, bad hash, no
 * hash, expired), insertion and deletion, and which source is trusted.
 * Data: tests/data/leap-seconds.list is the list of Debian 12's tzdata
 * 2026f (expires 2027-06-28), the same as the built-in table; the expired
 * cases use their own fixture, leap-seconds-2025b.list (tzdata 2025b,
 * expired 2026-06-28).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "era.h"
#include "leap.h"
#include "nmea.h"
#include "timeconv.h"

#ifndef DATA_DIR
#define DATA_DIR "tests/data"
#endif

/* A leap-seconds.list fixture, read by the test (not the lib): its
 * length, the text (NUL-terminated, to free) in *@text. */
static size_t read_data(const char *name, char **text)
{
	char path[512];
	FILE *f;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s", DATA_DIR, name);
	f = fopen(path, "r");
	*text = calloc(1, 1 << 16);
	if (!f || !*text) {
		if (f)
			fclose(f);
		return 0;
	}
	len = fread(*text, 1, (1 << 16) - 1, f);
	fclose(f);
	return len;
}

/* The current tzdata leap-seconds.list. */
FIXTURE(list) {
	char *text;
	size_t len;
	struct leap_table t;
	struct gp_err e;
};

FIXTURE_SETUP(list)
{
	self->len = read_data("leap-seconds.list", &self->text);
	ASSERT_GT(self->len, (size_t)1000)
		TH_LOG("run from userspace/: %s/leap-seconds.list", DATA_DIR);
}

FIXTURE_TEARDOWN(list)
{
	free(self->text);
}

static void replace(char *text, const char *from, const char *to)
{
	char *p = strstr(text, from);

	if (p && strlen(from) == strlen(to))
		memcpy(p, to, strlen(to));
}

TEST_F(list, good)
{
	ASSERT_EQ(LEAP_OK, leap_parse_list(self->text, self->len, &self->t, &self->e))
		TH_LOG("%s", self->e.msg);
	EXPECT_EQ((int)LEAP_SRC_LIST, (int)self->t.src);
	EXPECT_EQ((size_t)28, self->t.n);
	EXPECT_EQ(63072000, self->t.e[0].utc);		/* 1972-01-01 */
	EXPECT_EQ(10, self->t.e[0].tai_utc);
	EXPECT_EQ(1483228800, self->t.e[27].utc);	/* 2017-01-01 */
	EXPECT_EQ(37, self->t.e[27].tai_utc);
	EXPECT_EQ(1814140800, self->t.expires);		/* 2027-06-28 */
	EXPECT_EQ(1783323897, self->t.updated);		/* 2026-07-06 */
	/* same data as the built-in table */
	{
		struct leap_table b;

		leap_builtin(&b);
		ASSERT_EQ(b.n, self->t.n);
		EXPECT_EQ(0, memcmp(b.e, self->t.e, b.n * sizeof(b.e[0])));
		EXPECT_EQ(b.expires, self->t.expires);
		EXPECT_EQ(b.updated, self->t.updated);
	}
}

/* Current data is quiet until its expiry date, from today (2026-12-03). */
TEST_F(list, current_until_2027_06_28)
{
	struct leap_table b;

	ASSERT_EQ(LEAP_OK, leap_parse_list(self->text, self->len, &self->t, &self->e));
	leap_builtin(&b);
	for (int64_t utc = 1796256000LL; utc <= 1814140800LL; utc += 3600) {
		ASSERT_EQ(LEAP_OK, leap_check_expiry(&self->t, utc, &self->e));
		ASSERT_EQ(LEAP_OK, leap_check_expiry(&b, utc, &self->e));
	}
	EXPECT_EQ(LEAP_W_EXPIRED, leap_check_expiry(&self->t, 1814140801LL, &self->e));
	EXPECT_EQ(LEAP_W_EXPIRED, leap_check_expiry(&b, 1814140801LL, &self->e));
	EXPECT_NE(NULL, strstr(self->e.msg, "built-in table) expired 2027-06-28T00:00:00Z"));
}

TEST_F(list, bad_hash_data_edited)
{
	replace(self->text, "3692217600      37", "3692217601      37");
	EXPECT_EQ(LEAP_E_BAD_HASH,
		  leap_parse_list(self->text, self->len, &self->t, &self->e));
	EXPECT_NE(NULL, strstr(self->e.msg, "hash mismatch"));
}

TEST_F(list, bad_hash_expiry_edited)
{
	/* someone "extends" the expiry by hand: caught */
	replace(self->text, "#@\t4023129600", "#@\t4099999999");
	EXPECT_EQ(LEAP_E_BAD_HASH,
		  leap_parse_list(self->text, self->len, &self->t, &self->e));
}

TEST_F(list, no_hash_line)
{
	replace(self->text, "#h\t", "#x\t");
	EXPECT_EQ(LEAP_E_NO_HASH,
		  leap_parse_list(self->text, self->len, &self->t, &self->e));
}

/* Expired data (its own fixture): a warning, and labels go on. */
TEST(expired_warns_but_labels)
{
	struct era_result r = { .utc_valid = true,
				.utc = 1796256000LL };	/* 2026-12-03 */
	struct leap_table t;
	struct leap_label l;
	struct gp_err e;
	char *text;
	size_t len = read_data("leap-seconds-2025b.list", &text);

	ASSERT_GT(len, (size_t)1000);
	ASSERT_EQ(LEAP_OK, leap_parse_list(text, len, &t, &e)) TH_LOG("%s", e.msg);
	free(text);
	EXPECT_EQ(1782604800, t.expires);		/* 2026-06-28 */
	EXPECT_EQ(LEAP_OK, leap_check_expiry(&t, 1782604800LL, &e));
	EXPECT_EQ(LEAP_W_EXPIRED, leap_check_expiry(&t, 1796256000LL, &e));
	EXPECT_NE(NULL, strstr(e.msg, "expired 2026-06-28T00:00:00Z and it is now 2026-12-03T00:00:00Z"));
	/* labelling goes on with the last known offset */
	EXPECT_EQ(LEAP_OK, leap_label(&t, &r, -1, &l, &e));
	EXPECT_EQ(1796256037LL, l.tai);
	EXPECT_EQ(37, l.tai_utc);
}

TEST_F(list, malformed_and_empty)
{
	EXPECT_EQ(LEAP_E_EMPTY, leap_parse_list("# nothing\n", 10, &self->t, &self->e));
	EXPECT_EQ(LEAP_E_MALFORMED,
		  leap_parse_list("2272060800 ten\n", 15, &self->t, &self->e));
	EXPECT_NE(NULL, strstr(self->e.msg, "line 1"));
	/* going backwards in time */
	EXPECT_EQ(LEAP_E_MALFORMED,
		  leap_parse_list("2287785600 11\n2272060800 10\n", 28, &self->t, &self->e));
	EXPECT_NE(NULL, strstr(self->e.msg, "line 2"));
}

/*
 * 2016-12-31: recorded-style u-blox RMC sentences 23:59:59, 23:59:60 and
 * 00:00:00 label consecutive TAI seconds with the table.
 */
TEST(insertion_2016)
{
	static const char *const s[] = {
		"$GPRMC,235959.00,A,4717.11437,N,00833.91522,E,0.004,77.52,311216,,,A*5A",
		"$GPRMC,235960.00,A,4717.11437,N,00833.91522,E,0.004,77.52,311216,,,A*50",
		"$GPRMC,000000.00,A,4717.11437,N,00833.91522,E,0.004,77.52,010117,,,A*5B",
	};
	static const char *const utc[] = {
		"2016-12-31T23:59:59Z", "2016-12-31T23:59:60Z",
		"2017-01-01T00:00:00Z",
	};
	static const int off[] = { 36, 36, 37 };
	struct leap_table t;
	struct era_pivot p = { .utc = 1451606400LL, .tai_utc = 36 };
	struct leap_entry next;
	struct nmea_msg m;
	struct era_result r;
	struct leap_label l;
	struct gp_err e;
	char buf[32];

	leap_builtin(&t);
	ASSERT_TRUE(leap_next(&t, 1483228799LL, &next));
	EXPECT_EQ(1483228800LL, next.utc);	/* pending: known in advance */
	EXPECT_EQ(37, next.tai_utc);
	for (int i = 0; i < 3; i++) {
		int64_t u;
		bool s60;
		int o;

		ASSERT_EQ(0, nmea_parse(s[i], strlen(s[i]), &m, &e)) TH_LOG("%s", e.msg);
		ASSERT_EQ(0, era_resolve(&p, &m, &r, &e)) TH_LOG("%s", e.msg);
		ASSERT_EQ(LEAP_OK, leap_label(&t, &r, -1, &l, &e)) TH_LOG("%s", e.msg);
		EXPECT_EQ(1483228835LL + i, l.tai);
		EXPECT_EQ(off[i], l.tai_utc);
		format_utc(buf, sizeof(buf), l.utc, l.sec60);
		EXPECT_STREQ(utc[i], buf);
		/* and back from TAI */
		leap_utc_from_tai(&t, l.tai, &u, &s60, &o);
		EXPECT_EQ(l.utc, u);
		EXPECT_EQ(l.sec60, s60);
		EXPECT_EQ(off[i], o);
	}
}

/* A synthetic negative leap second at the end of 2029-12-31. */
TEST(deletion_synthetic)
{
	struct leap_table t;
	struct leap_entry next;
	struct era_result r = { .utc_valid = true };
	struct leap_label l;
	struct gp_err e;
	const int64_t d = 1893456000LL;	/* 2030-01-01T00:00:00Z */
	int64_t u;
	bool s60;
	int o;

	leap_builtin(&t);
	t.e[t.n].utc = d;
	t.e[t.n].tai_utc = 36;
	t.n++;
	t.expires = d + 180 * SECS_PER_DAY;
	ASSERT_TRUE(leap_next(&t, d - 10, &next));
	EXPECT_EQ(d, next.utc);
	EXPECT_EQ(36, next.tai_utc);

	r.utc = d - 2;			/* 23:59:58 */
	ASSERT_EQ(LEAP_OK, leap_label(&t, &r, -1, &l, &e));
	EXPECT_EQ(d - 2 + 37, l.tai);
	r.utc = d - 1;			/* 23:59:59 does not exist */
	EXPECT_EQ(LEAP_E_DELETED, leap_label(&t, &r, -1, &l, &e));
	EXPECT_NE(NULL, strstr(e.msg, "2029-12-31T23:59:59Z"));
	r.utc = d;			/* 00:00:00 is the next TAI second */
	ASSERT_EQ(LEAP_OK, leap_label(&t, &r, -1, &l, &e));
	EXPECT_EQ(d - 2 + 37 + 1, l.tai);
	EXPECT_EQ(36, l.tai_utc);
	leap_utc_from_tai(&t, d + 35, &u, &s60, &o);
	EXPECT_EQ(d - 2, u);
	EXPECT_EQ(37, o);
	leap_utc_from_tai(&t, d + 36, &u, &s60, &o);
	EXPECT_EQ(d, u);
	EXPECT_FALSE(s60);
}

/* 23:59:60 that the table does not know: warning, labelled as insertion */
TEST(unknown_insertion_warns)
{
	struct leap_table t;
	struct era_result r = { .utc_valid = true, .sec60 = true,
				.utc = 1893456000LL };
	struct leap_label l;
	struct gp_err e;

	leap_builtin(&t);
	EXPECT_EQ(LEAP_W_UNKNOWN_LEAP, leap_label(&t, &r, -1, &l, &e));
	EXPECT_EQ(1893456000LL + 37, l.tai);
	EXPECT_TRUE(l.sec60);
}

/*
 * Trust: before the table's expiry a disagreeing receiver count (here a
 * cold-start 0) cannot mislabel; after it the receiver's broadcast value
 * is the news and wins.  GPS-time sources give TAI whatever the count.
 */
TEST(receiver_vs_table)
{
	struct leap_table t;
	struct era_result r = { .utc_valid = true, .utc = 1700000000LL };
	struct leap_label l;
	struct gp_err e;

	leap_builtin(&t);
	ASSERT_EQ(LEAP_OK, leap_label(&t, &r, 0, &l, &e));
	EXPECT_EQ(1700000037LL, l.tai);
	EXPECT_EQ((int)LEAP_SRC_BUILTIN, (int)l.src);
	r.utc = 1900000000LL;			/* after expiry */
	ASSERT_EQ(LEAP_OK, leap_label(&t, &r, 19, &l, &e));
	EXPECT_EQ(1900000038LL, l.tai);
	EXPECT_EQ((int)LEAP_SRC_RECEIVER, (int)l.src);
	ASSERT_EQ(LEAP_OK, leap_label(&t, &r, -1, &l, &e));
	EXPECT_EQ(1900000037LL, l.tai);
	/* GPS seconds: TAI exact, UTC from the table */
	r = (struct era_result){ .gps_valid = true,
				 .gps = 1700000000LL - GPS_EPOCH_UTC + 18 };
	ASSERT_EQ(LEAP_OK, leap_label(&t, &r, 3, &l, &e));
	EXPECT_EQ(1700000037LL, l.tai);
	EXPECT_EQ(1700000000LL, l.utc);
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_json.c - lib/json.c, byte for byte: the separators, RFC 8259's
 * escapes (quotes, backslashes, control characters as \u00xx), invalid
 * UTF-8 as \ufffd, and no document at all when it is not whole.
 */
#include <stdio.h>
#include <string.h>

/* The harness compares EXPECT_EQ(1, x) as written (as tools/testing/host). */
#pragma GCC diagnostic ignored "-Wsign-compare"
#include "kselftest_harness.h"

#include "json.h"

/* The one-string document {"s": @v} as json.c writes it, or NULL. */
static const char *doc_of(struct json *j, const char *v)
{
	size_t len;

	json_reset(j);
	json_begin_obj(j, NULL);
	json_str(j, "s", v);
	json_end_obj(j);
	return json_doc(j, &len);
}

/* Each string in, and what stands between the quotes out. */
TEST(escapes_exact_bytes)
{
	static const struct { const char *in, *out; } t[] = {
		{ "ttyS0", "ttyS0" },
		{ "", "" },
		{ "tty\"x\"", "tty\\\"x\\\"" },
		{ "a\\b\\", "a\\\\b\\\\" },
		{ "\x01\t\n\r\x1f ", "\\u0001\\u0009\\u000a\\u000d\\u001f " },
		/* '/' and DEL need no escape; nor does UTF-8 */
		{ "usb/0\x7f", "usb/0\x7f" },
		{ "ttyé€😀", "ttyé€😀" },
		/* a stray continuation, a lone lead, an overlong '/', a surrogate */
		{ "a\x80" "b\xc3" "c\xc0\xaf" "d\xed\xa0\x80",
		  "a\\ufffdb\\ufffdc\\ufffd\\ufffdd\\ufffd\\ufffd\\ufffd" },
		{ "x\xe2\x82", "x\\ufffd\\ufffd" },
	};
	char want[256];
	struct json j;
	size_t i;

	json_init(&j);
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		snprintf(want, sizeof(want), "{\"s\": \"%s\"}\n", t[i].out);
		EXPECT_STREQ(want, doc_of(&j, t[i].in));
	}
	json_free(&j);
}

TEST(nesting_and_separators)
{
	struct json j;
	const char *d;
	size_t len;

	json_init(&j);
	json_begin_obj(&j, NULL);
	json_begin_arr(&j, "devices");
	json_begin_obj(&j, NULL);
	json_u64(&j, "id", 0);
	json_i64(&j, "offset_ns", -212);
	json_u64(&j, "big", UINT64_MAX);
	json_bool(&j, "coarse", false);
	json_begin_obj(&j, "servo");
	json_bool(&j, "x", true);
	json_end_obj(&j);
	json_begin_obj(&j, "empty");
	json_end_obj(&j);
	json_end_obj(&j);
	json_end_arr(&j);
	json_str(&j, "k\"ey", "v");
	json_end_obj(&j);
	d = json_doc(&j, &len);
	ASSERT_NE(NULL, d);
	EXPECT_STREQ("{\"devices\": [{\"id\": 0, \"offset_ns\": -212, "
		     "\"big\": 18446744073709551615, \"coarse\": false, "
		     "\"servo\": {\"x\": true}, \"empty\": {}}], \"k\\\"ey\": \"v\"}\n", d);
	EXPECT_EQ(strlen(d), len);
	json_free(&j);
}

TEST(empty_array)
{
	struct json j;
	size_t len;

	json_init(&j);
	json_begin_obj(&j, NULL);
	json_begin_arr(&j, "devices");
	json_end_arr(&j);
	json_end_obj(&j);
	EXPECT_STREQ("{\"devices\": []}\n", json_doc(&j, &len));
	json_free(&j);
}

/* A document not whole, or misbuilt, is no document. */
TEST(not_whole_is_nothing)
{
	struct json j;
	size_t len;

	json_init(&j);
	EXPECT_EQ(NULL, json_doc(&j, &len));		/* nothing */
	json_reset(&j);
	json_begin_obj(&j, NULL);
	json_begin_arr(&j, "devices");
	json_begin_obj(&j, NULL);
	json_u64(&j, "id", 0);
	EXPECT_EQ(NULL, json_doc(&j, &len));		/* left open */
	json_reset(&j);
	json_begin_obj(&j, NULL);
	json_end_arr(&j);				/* wrong closer */
	EXPECT_EQ(NULL, json_doc(&j, &len));
	json_reset(&j);
	json_begin_obj(&j, NULL);
	json_u64(&j, NULL, 1);				/* no key in an object */
	json_end_obj(&j);
	EXPECT_EQ(NULL, json_doc(&j, &len));
	json_reset(&j);
	json_begin_arr(&j, NULL);
	json_u64(&j, "k", 1);				/* a key in an array */
	json_end_arr(&j);
	EXPECT_EQ(NULL, json_doc(&j, &len));
	json_reset(&j);
	json_begin_obj(&j, NULL);
	json_end_obj(&j);
	json_begin_obj(&j, NULL);			/* a second document */
	json_end_obj(&j);
	EXPECT_EQ(NULL, json_doc(&j, &len));
	json_reset(&j);
	for (int i = 0; i <= JSON_DEPTH; i++)		/* too deep */
		json_begin_arr(&j, NULL);
	for (int i = 0; i <= JSON_DEPTH; i++)
		json_end_arr(&j);
	EXPECT_EQ(NULL, json_doc(&j, &len));
	/* reset makes it usable again */
	json_reset(&j);
	json_begin_arr(&j, NULL);
	json_end_arr(&j);
	EXPECT_STREQ("[]\n", json_doc(&j, &len));
	json_free(&j);
}

/* Past the first allocation: a long string, whole. */
TEST(grows)
{
	char big[5000];
	struct json j;
	const char *d;

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	json_init(&j);
	d = doc_of(&j, big);
	ASSERT_NE(NULL, d);
	EXPECT_EQ(sizeof(big) - 1 + strlen("{\"s\": \"\"}\n"), strlen(d));
	json_free(&j);
}

TEST_HARNESS_MAIN

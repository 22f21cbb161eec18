// SPDX-License-Identifier: GPL-2.0-only
/* json.c - a JSON document in memory.  See json.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

void json_init(struct json *j)
{
	memset(j, 0, sizeof(*j));
}

void json_reset(struct json *j)
{
	j->len = 0;
	j->depth = 0;
	j->failed = false;
}

void json_free(struct json *j)
{
	free(j->buf);
	json_init(j);
}

/* Room for @n more bytes and a NUL. */
static bool json_room(struct json *j, size_t n)
{
	size_t cap = j->cap ? j->cap : 256;
	char *b;

	if (j->failed)
		return false;
	if (j->len + n + 1 <= j->cap)
		return true;
	while (cap < j->len + n + 1)
		cap *= 2;
	b = realloc(j->buf, cap);
	if (!b) {
		j->failed = true;
		return false;
	}
	j->buf = b;
	j->cap = cap;
	return true;
}

static void json_put(struct json *j, const char *s, size_t n)
{
	if (!json_room(j, n))
		return;
	memcpy(j->buf + j->len, s, n);
	j->len += n;
	j->buf[j->len] = '\0';
}

/*
 * The length of the valid UTF-8 sequence at @s (at most @n bytes), or 0:
 * no overlong forms, no surrogates, nothing past U+10FFFF.
 */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t c;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, c = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) ||
	    (len == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;
	return len;
}

static void json_string(struct json *j, const char *v)
{
	const unsigned char *s = (const unsigned char *)v;
	size_t n = strlen(v), i = 0, run;
	char esc[8];

	json_put(j, "\"", 1);
	while (i < n) {
		/* The longest run that goes in as it is. */
		for (run = 0; i + run < n; run += (size_t)utf8_len(s + i + run, n - i - run)) {
			unsigned char c = s[i + run];

			if (c < 0x20 || c == '"' || c == '\\' ||
			    !utf8_len(s + i + run, n - i - run))
				break;
		}
		json_put(j, v + i, run);
		i += run;
		if (i == n)
			break;
		if (s[i] == '"' || s[i] == '\\') {
			esc[0] = '\\';
			esc[1] = (char)s[i];
			json_put(j, esc, 2);
		} else if (s[i] < 0x20) {
			snprintf(esc, sizeof(esc), "\\u%04x", s[i]);
			json_put(j, esc, 6);
		} else {
			json_put(j, "\\ufffd", 6);
		}
		i++;
	}
	json_put(j, "\"", 1);
}

/* The separator and key before a value: keys in objects, only there. */
static void json_key(struct json *j, const char *key)
{
	if (!key != !(j->depth && j->closer[j->depth - 1] == '}'))
		j->failed = true;
	if (j->depth) {
		if (!j->empty[j->depth - 1])
			json_put(j, ", ", 2);
		j->empty[j->depth - 1] = false;
	} else if (j->len) {
		j->failed = true;	/* a second document */
	}
	if (key) {
		json_string(j, key);
		json_put(j, ": ", 2);
	}
}

static void json_open(struct json *j, const char *key, char c)
{
	json_key(j, key);
	if (j->depth == JSON_DEPTH) {
		j->failed = true;
		return;
	}
	json_put(j, &c, 1);
	j->closer[j->depth] = c == '{' ? '}' : ']';
	j->empty[j->depth++] = true;
}

static void json_close(struct json *j, char c)
{
	if (!j->depth || j->closer[j->depth - 1] != c) {
		j->failed = true;
		return;
	}
	j->depth--;
	json_put(j, &c, 1);
}

void json_begin_obj(struct json *j, const char *key)
{
	json_open(j, key, '{');
}

void json_end_obj(struct json *j)
{
	json_close(j, '}');
}

void json_begin_arr(struct json *j, const char *key)
{
	json_open(j, key, '[');
}

void json_end_arr(struct json *j)
{
	json_close(j, ']');
}

void json_str(struct json *j, const char *key, const char *v)
{
	json_key(j, key);
	json_string(j, v);
}

void json_u64(struct json *j, const char *key, uint64_t v)
{
	char num[24];

	json_key(j, key);
	json_put(j, num, (size_t)snprintf(num, sizeof(num), "%" PRIu64, v));
}

void json_i64(struct json *j, const char *key, int64_t v)
{
	char num[24];

	json_key(j, key);
	json_put(j, num, (size_t)snprintf(num, sizeof(num), "%" PRId64, v));
}

void json_bool(struct json *j, const char *key, bool v)
{
	json_key(j, key);
	json_put(j, v ? "true" : "false", v ? 4 : 5);
}

const char *json_doc(struct json *j, size_t *len)
{
	if (j->depth || !j->len || j->buf[j->len - 1] == '\n')
		j->failed = true;
	json_put(j, "\n", 1);
	if (j->failed)
		return NULL;
	*len = j->len;
	return j->buf;
}

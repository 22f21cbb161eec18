/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * json.h - one JSON document built in memory, to be written in one go
 * once it is complete: a reader gets the whole document or nothing.
 *
 * Strings are escaped as RFC 8259 requires: '"' and '\' with a backslash,
 * control characters (below 0x20) as \u00xx; a byte that is not part of
 * valid UTF-8 becomes \ufffd, so the document is always valid UTF-8.
 * Separators are ", " and ": ", all on one line:
 *
 *   {"devices": [{"id": 0, "tty": "ttyS0"}]}
 *
 * Pure: no I/O, no globals; memory from malloc, freed by json_free().
 */
#ifndef GPSPHC_JSON_H
#define GPSPHC_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_DEPTH	8	/* objects and arrays open at once, at most */

struct json {
	char *buf;
	size_t len, cap;
	unsigned int depth;		/* open objects and arrays */
	char closer[JSON_DEPTH];	/* '}' or ']' for each */
	bool empty[JSON_DEPTH];		/* nothing in that one yet */
	bool failed;			/* out of memory, or misused */
};

/* An empty document (no allocation yet). */
void json_init(struct json *j);
/* Forget what was written, keeping the memory. */
void json_reset(struct json *j);
void json_free(struct json *j);

/*
 * Each value takes @key inside an object, and NULL inside an array or as
 * the document itself.
 */
void json_begin_obj(struct json *j, const char *key);
void json_end_obj(struct json *j);
void json_begin_arr(struct json *j, const char *key);
void json_end_arr(struct json *j);
void json_str(struct json *j, const char *key, const char *v);
void json_u64(struct json *j, const char *key, uint64_t v);
void json_i64(struct json *j, const char *key, int64_t v);
void json_bool(struct json *j, const char *key, bool v);

/*
 * The document followed by a newline, NUL-terminated, its length (newline
 * included) in *@len; NULL if memory ran out, or a value was misplaced or
 * left open.
 */
const char *json_doc(struct json *j, size_t *len);

#endif /* GPSPHC_JSON_H */

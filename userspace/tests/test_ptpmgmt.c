// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_ptpmgmt.c - management messages against exact bytes.
 *
 * The requests are what Debian 12's pmc (linuxptp 3.1.1) sent, captured on
 * a UNIX datagram socket standing in for ptp4l:
 *   pmc -u -b 0 -s SOCK 'SET GRANDMASTER_SETTINGS_NP clockClass 6
 *       clockAccuracy 0x21 offsetScaledLogVariance 0x4e5d
 *       currentUtcOffset 37 leap61 1 leap59 0 currentUtcOffsetValid 1
 *       ptpTimescale 1 timeTraceable 1 frequencyTraceable 1 timeSource 0x20'
 *   pmc -u -b 0 -z -s SOCK 'GET TIME_STATUS_NP'
 * (pmc's pid 4994 and 4995 are its portNumber.)  The answers are what
 * Debian 12's ptp4l (clockIdentity 001122.fffe.334455, free_running, on
 * lo) sent back to those requests, and to a SET TIME_STATUS_NP with an
 * empty body (WRONG_LENGTH) and with a full one (NOT_SUPPORTED).
 */
#include <stdio.h>
#include <string.h>

/* The harness compares EXPECT_EQ(1, x) as written (as tools/testing/host). */
#pragma GCC diagnostic ignored "-Wsign-compare"
#include "kselftest_harness.h"

#include "ptpmgmt.h"

static size_t unhex(const char *s, uint8_t *out, size_t size)
{
	size_t n = 0;
	unsigned int b;

	while (s[0] && s[1] && n < size && sscanf(s, "%2x", &b) == 1) {
		out[n++] = (uint8_t)b;
		s += 2;
	}
	return n;
}

static const char pmc_set_gms[] =
	"0d02003e00000000000000000000000000000000000000000000000013820000047f"
	"ffffffffffffffffffff000001000001000ac00106214e5d00253d20";
static const char pmc_get_tsn[] =
	"0d02003600000000000000000000000000000000000000000000000013830000047f"
	"ffffffffffffffffffff0000000000010002c000";
static const char ptp4l_resp_gms[] =
	"0d02003e00000000000000000000000000000000001122fffe33445500000000047f"
	"00000000000000001382000002000001000ac00106214e5d00253d20";
static const char ptp4l_resp_tsn[] =
	"0d02006800000000000000000000000000000000001122fffe33445500000000047f"
	"000000000000000013830000020000010034c0000000000000000000000000000000"
	"00000000000000000000000000000000000000000000000000000000001122fffe33"
	"4455";
static const char ptp4l_err_wrong_length[] =
	"0d02003c00000000000000000000000000000000001122fffe33445500000007047f"
	"0000000000000000138300000200000200080003c00000000000";
static const char ptp4l_err_not_supported[] =
	"0d02003c00000000000000000000000000000000001122fffe33445500000007047f"
	"0000000000000000138300000200000200080006c00000000000";

static const struct ptpm_gm_settings locked_leap61 = {
	.clock_class = 6, .clock_accuracy = 0x21,
	.offset_scaled_log_variance = 0x4e5d, .utc_offset = 37,
	.time_flags = PTPM_LEAP_61 | PTPM_UTC_OFF_VALID | PTPM_PTP_TIMESCALE |
		      PTPM_TIME_TRACEABLE | PTPM_FREQ_TRACEABLE,
	.time_source = PTPM_TS_GPS,
};

TEST(set_gm_settings_as_pmc)
{
	uint8_t want[PTPM_MAX_LEN], buf[PTPM_MAX_LEN];
	size_t wn = unhex(pmc_set_gms, want, sizeof(want)), n;
	struct ptpm_req r;

	ptpm_req_init(&r, 4994);
	n = ptpm_encode_gm_settings(buf, sizeof(buf), &r, &locked_leap61);
	ASSERT_EQ(62, wn);
	ASSERT_EQ(wn, n);
	EXPECT_EQ(0, memcmp(want, buf, n));
}

TEST(get_empty_as_pmc_z)
{
	uint8_t want[PTPM_MAX_LEN], buf[PTPM_MAX_LEN];
	size_t wn = unhex(pmc_get_tsn, want, sizeof(want)), n;
	struct ptpm_req r;

	ptpm_req_init(&r, 4995);
	n = ptpm_encode(buf, sizeof(buf), &r, PTPM_GET, PTPM_ID_TIME_STATUS_NP, NULL, 0);
	ASSERT_EQ(54, wn);
	ASSERT_EQ(wn, n);
	EXPECT_EQ(0, memcmp(want, buf, n));
}

TEST(header_fields_encoded)
{
	uint8_t buf[PTPM_MAX_LEN];
	struct ptpm_req r;
	struct ptpm_msg m;
	size_t n;

	ptpm_req_init(&r, 0xbeef);
	r.transport_specific = 1;
	r.domain = 24;
	r.boundary_hops = 3;
	r.seq = 0x1234;
	n = ptpm_encode_gm_settings(buf, sizeof(buf), &r, &locked_leap61);
	ASSERT_EQ(62, n);
	EXPECT_EQ(0x1d, buf[0]);
	EXPECT_EQ(24, buf[4]);
	EXPECT_EQ(0x12, buf[30]);
	EXPECT_EQ(0x34, buf[31]);
	EXPECT_EQ(3, buf[44]);
	EXPECT_EQ(3, buf[45]);
	/* a request decodes too: what went in comes out */
	ASSERT_EQ(PTPM_OK, ptpm_decode(buf, n, &m));
	EXPECT_EQ(1, m.transport_specific);
	EXPECT_EQ(24, m.domain);
	EXPECT_EQ(0x1234, m.seq);
	EXPECT_EQ(0xbeef, m.source.port);
	EXPECT_EQ(0xffff, m.target.port);
	EXPECT_EQ(PTPM_SET, m.action);
	EXPECT_EQ(PTPM_ID_GRANDMASTER_SETTINGS_NP, m.id);
}

TEST(encode_refuses_small_buffer_and_odd_data)
{
	uint8_t buf[PTPM_MAX_LEN], d[3] = { 0 };
	struct ptpm_req r;

	ptpm_req_init(&r, 1);
	EXPECT_EQ(0, ptpm_encode_gm_settings(buf, 61, &r, &locked_leap61));
	EXPECT_EQ(62, ptpm_encode_gm_settings(buf, 62, &r, &locked_leap61));
	EXPECT_EQ(0, ptpm_encode(buf, sizeof(buf), &r, PTPM_SET, 1, d, 3));
}

TEST(decode_gm_settings_response)
{
	uint8_t buf[PTPM_MAX_LEN];
	size_t n = unhex(ptp4l_resp_gms, buf, sizeof(buf));
	struct ptpm_gm_settings s;
	struct ptpm_msg m;
	static const uint8_t cid[8] = { 0x00, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55 };

	ASSERT_EQ(PTPM_OK, ptpm_decode(buf, n, &m));
	EXPECT_EQ(PTPM_RESPONSE, m.action);
	EXPECT_EQ(PTPM_TLV_MANAGEMENT, m.tlv_type);
	EXPECT_EQ(PTPM_ID_GRANDMASTER_SETTINGS_NP, m.id);
	EXPECT_EQ(0, m.seq);
	EXPECT_EQ(0, memcmp(cid, m.source.clock_id, 8));
	EXPECT_EQ(0, m.source.port);
	EXPECT_EQ(4994, m.target.port);
	EXPECT_EQ(0, m.starting_hops);
	ASSERT_EQ(PTPM_OK, ptpm_decode_gm_settings(m.data, m.data_len, &s));
	EXPECT_TRUE(ptpm_gm_settings_eq(&s, &locked_leap61));
	EXPECT_EQ(PTPM_E_DATA_LEN, ptpm_decode_gm_settings(m.data, m.data_len - 2, &s));
}

TEST(decode_time_status_response)
{
	uint8_t buf[PTPM_MAX_LEN];
	size_t n = unhex(ptp4l_resp_tsn, buf, sizeof(buf));
	struct ptpm_msg m;

	ASSERT_EQ(104, n);
	ASSERT_EQ(PTPM_OK, ptpm_decode(buf, n, &m));
	EXPECT_EQ(PTPM_ID_TIME_STATUS_NP, m.id);
	EXPECT_EQ(PTPM_RESPONSE, m.action);
	/* linuxptp's struct time_status_np: 50 bytes, its gmIdentity last */
	ASSERT_EQ(50, m.data_len);
	EXPECT_EQ(0x55, m.data[49]);
}

TEST(decode_management_error_status)
{
	uint8_t buf[PTPM_MAX_LEN];
	struct ptpm_msg m;
	size_t n;

	n = unhex(ptp4l_err_wrong_length, buf, sizeof(buf));
	ASSERT_EQ(PTPM_OK, ptpm_decode(buf, n, &m));
	EXPECT_EQ(PTPM_TLV_MANAGEMENT_ERROR_STATUS, m.tlv_type);
	EXPECT_EQ(PTPM_RESPONSE, m.action);
	EXPECT_EQ(PTPM_ERR_WRONG_LENGTH, m.error);
	EXPECT_EQ(PTPM_ID_TIME_STATUS_NP, m.id);
	EXPECT_EQ(7, m.seq);
	EXPECT_EQ(0, m.data_len);
	EXPECT_STREQ("WRONG_LENGTH", ptpm_error_name(m.error));

	n = unhex(ptp4l_err_not_supported, buf, sizeof(buf));
	ASSERT_EQ(PTPM_OK, ptpm_decode(buf, n, &m));
	EXPECT_EQ(PTPM_ERR_NOT_SUPPORTED, m.error);
	EXPECT_STREQ("NOT_SUPPORTED", ptpm_error_name(m.error));
	EXPECT_STREQ("unknown", ptpm_error_name(0x1234));
}

/* One or two bytes of a good answer changed, and what decoding says. */
static const struct mutation {
	const char *what;
	size_t off[2];
	uint8_t val[2];
	int want;
} mutations[] = {
	{ "an announce", { 0 }, { 0x0b }, PTPM_E_NOT_MGMT },
	{ "version 1", { 1 }, { 0x01 }, PTPM_E_NOT_MGMT },
	{ "messageLength past the datagram", { 3 }, { 63 }, PTPM_E_SHORT },
	{ "messageLength below the fields", { 3 }, { 40 }, PTPM_E_LENGTH },
	{ "messageLength without a TLV", { 3 }, { 50 }, PTPM_E_NO_TLV },
	{ "TLV past the message", { 51 }, { 12 }, PTPM_E_LENGTH },
	{ "TLV of odd length", { 51 }, { 9 }, PTPM_E_LENGTH },
	{ "TLV without an id", { 51 }, { 0 }, PTPM_E_LENGTH },
	{ "error TLV short of its fields", { 49, 51 }, { 2, 6 }, PTPM_E_LENGTH },
	{ "a PATH_TRACE TLV", { 49 }, { 8 }, PTPM_E_TLV_TYPE },
};

TEST(decode_rejects_malformed)
{
	uint8_t good[PTPM_MAX_LEN], buf[PTPM_MAX_LEN];
	size_t n = unhex(ptp4l_resp_gms, good, sizeof(good)), i;
	struct ptpm_msg m;

	/* every truncation */
	for (i = 0; i < n; i++)
		EXPECT_NE(PTPM_OK, ptpm_decode(good, i, &m)) TH_LOG("length %zu", i);
	for (i = 0; i < sizeof(mutations) / sizeof(mutations[0]); i++) {
		const struct mutation *t = &mutations[i];

		memcpy(buf, good, n);
		buf[t->off[0]] = t->val[0];
		if (t->off[1])
			buf[t->off[1]] = t->val[1];
		EXPECT_EQ(t->want, ptpm_decode(buf, n, &m)) TH_LOG("%s", t->what);
	}
	/* trailing bytes past messageLength are ignored */
	memcpy(buf, good, n);
	buf[n] = 0xaa;
	EXPECT_EQ(PTPM_OK, ptpm_decode(buf, n + 1, &m));
}

TEST(gm_settings_round_trip_every_flag_and_sign)
{
	uint8_t buf[PTPM_MAX_LEN];
	struct ptpm_gm_settings in = locked_leap61, out;
	struct ptpm_req r;
	struct ptpm_msg m;
	unsigned int f;

	ptpm_req_init(&r, 7);
	for (f = 0; f < 256; f++) {
		in.time_flags = (uint8_t)f;
		in.utc_offset = (int16_t)(f & 1 ? -(int)f : (int)f * 100);
		in.offset_scaled_log_variance = (uint16_t)(f * 257);
		ASSERT_EQ(62, ptpm_encode_gm_settings(buf, sizeof(buf), &r, &in));
		ASSERT_EQ(PTPM_OK, ptpm_decode(buf, 62, &m));
		ASSERT_EQ(PTPM_OK, ptpm_decode_gm_settings(m.data, m.data_len, &out));
		EXPECT_TRUE(ptpm_gm_settings_eq(&in, &out));
	}
}

TEST_HARNESS_MAIN

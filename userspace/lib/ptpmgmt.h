/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ptpmgmt.h - PTP v2 management messages as linuxptp's ptp4l (3.1.1) takes
 * them on its UNIX socket, the messages pmc sends: encoding a GET or a SET,
 * decoding a RESPONSE or a MANAGEMENT_ERROR_STATUS.  Bytes in, bytes out:
 * no sockets, no clocks (ptp4l_gm.c does the I/O).
 *
 * The layout (IEEE 1588-2008 clause 13.3 and 15, all fields big-endian):
 *   header (34)      transportSpecific|messageType (0xD), versionPTP 2,
 *                    messageLength, domainNumber, flags 0, correction 0,
 *                    sourcePortIdentity, sequenceId, controlField 4,
 *                    logMessageInterval 0x7f
 *   management (14)  targetPortIdentity, startingBoundaryHops,
 *                    boundaryHops, actionField, reserved
 *   one TLV          MANAGEMENT (type 1): length, managementId, data; or
 *                    MANAGEMENT_ERROR_STATUS (type 2): length, errorId,
 *                    managementId, 4 reserved bytes, [displayData]
 * linuxptp's own management IDs (0xC000 up) carry its structs packed, as
 * its tlv.h lays them out.
 */
#ifndef GPSPHC_PTPMGMT_H
#define GPSPHC_PTPMGMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PTPM_HDR_LEN		34
#define PTPM_MSG_LEN		48	/* header and management fields */
#define PTPM_TLV_HDR_LEN	6	/* type, length, managementId */
#define PTPM_GMS_LEN		8	/* GRANDMASTER_SETTINGS_NP data */
/* A SET GRANDMASTER_SETTINGS_NP: 62 bytes. */
#define PTPM_MAX_LEN		128	/* what this library encodes or reads */

#define PTPM_VERSION		2
#define PTPM_MANAGEMENT		0xD	/* messageType */
#define PTPM_CTL_MANAGEMENT	4	/* controlField */

enum ptpm_action {
	PTPM_GET = 0,
	PTPM_SET = 1,
	PTPM_RESPONSE = 2,
	PTPM_COMMAND = 3,
	PTPM_ACKNOWLEDGE = 4,
};

#define PTPM_TLV_MANAGEMENT		0x0001
#define PTPM_TLV_MANAGEMENT_ERROR_STATUS	0x0002

/* managementId values used here */
#define PTPM_ID_TIME_STATUS_NP		0xC000
#define PTPM_ID_GRANDMASTER_SETTINGS_NP	0xC001

/* managementErrorId values (IEEE 1588-2008 Table 72) */
#define PTPM_ERR_RESPONSE_TOO_BIG	0x0001
#define PTPM_ERR_NO_SUCH_ID		0x0002
#define PTPM_ERR_WRONG_LENGTH		0x0003
#define PTPM_ERR_WRONG_VALUE		0x0004
#define PTPM_ERR_NOT_SETABLE		0x0005
#define PTPM_ERR_NOT_SUPPORTED		0x0006
#define PTPM_ERR_GENERAL_ERROR		0xFFFE

/* timePropertiesDS flags, as GRANDMASTER_SETTINGS_NP's time_flags */
#define PTPM_LEAP_61		(1 << 0)
#define PTPM_LEAP_59		(1 << 1)
#define PTPM_UTC_OFF_VALID	(1 << 2)
#define PTPM_PTP_TIMESCALE	(1 << 3)
#define PTPM_TIME_TRACEABLE	(1 << 4)
#define PTPM_FREQ_TRACEABLE	(1 << 5)

/* timeSource values (IEEE 1588-2008 Table 7) */
#define PTPM_TS_GPS		0x20
#define PTPM_TS_INTERNAL_OSC	0xA0

enum ptpm_code {
	PTPM_OK = 0,
	PTPM_E_SHORT,		/* fewer bytes than the header says */
	PTPM_E_NOT_MGMT,	/* not a version 2 management message */
	PTPM_E_LENGTH,		/* a length field does not add up */
	PTPM_E_NO_TLV,		/* no management TLV at all */
	PTPM_E_TLV_TYPE,	/* a TLV that is neither of the two */
	PTPM_E_DATA_LEN,	/* data of the wrong size for its id */
};

struct ptpm_port_id {
	uint8_t clock_id[8];
	uint16_t port;
};

/* What goes in the header of a request. */
struct ptpm_req {
	uint8_t transport_specific;	/* 0..15 */
	uint8_t domain;
	uint8_t boundary_hops;		/* starting and remaining */
	uint16_t seq;
	struct ptpm_port_id source;	/* pmc over UDS: zeros, port = pid */
	struct ptpm_port_id target;	/* all ones: every clock and port */
};

/* linuxptp's struct grandmaster_settings_np, unpacked. */
struct ptpm_gm_settings {
	uint8_t clock_class;
	uint8_t clock_accuracy;
	uint16_t offset_scaled_log_variance;
	int16_t utc_offset;
	uint8_t time_flags;		/* PTPM_LEAP_61 ... */
	uint8_t time_source;		/* PTPM_TS_* */
};

/* A decoded management message; data points into the decoded buffer. */
struct ptpm_msg {
	uint8_t transport_specific;
	uint8_t domain;
	uint16_t seq;
	struct ptpm_port_id source, target;
	uint8_t starting_hops, hops;
	uint8_t action;			/* enum ptpm_action */
	uint16_t tlv_type;		/* PTPM_TLV_MANAGEMENT or _ERROR_STATUS */
	uint16_t id;			/* managementId */
	uint16_t error;			/* managementErrorId, with _ERROR_STATUS */
	const uint8_t *data;		/* MANAGEMENT: the data; ERROR: display */
	size_t data_len;
};

/* The request defaults pmc uses on a UNIX socket: target all, hops 0. */
void ptpm_req_init(struct ptpm_req *r, uint16_t port);

/*
 * Encode a management message with @action and @id and @len bytes of
 * @data (already in network order) into @buf: its length, or 0 if @size
 * is too small or @len odd (TLVs have an even length).
 */
size_t ptpm_encode(uint8_t *buf, size_t size, const struct ptpm_req *r,
		   enum ptpm_action action, uint16_t id, const uint8_t *data,
		   size_t len);

/* SET GRANDMASTER_SETTINGS_NP. */
size_t ptpm_encode_gm_settings(uint8_t *buf, size_t size,
			       const struct ptpm_req *r,
			       const struct ptpm_gm_settings *s);

/* Decode one datagram: PTPM_OK with *@m filled, or a PTPM_E_* code. */
int ptpm_decode(const uint8_t *buf, size_t len, struct ptpm_msg *m);

/* The data of a GRANDMASTER_SETTINGS_NP TLV. */
int ptpm_decode_gm_settings(const uint8_t *data, size_t len,
			    struct ptpm_gm_settings *s);

bool ptpm_gm_settings_eq(const struct ptpm_gm_settings *a,
			 const struct ptpm_gm_settings *b);

/* "NOT_SUPPORTED", ..., or "unknown". */
const char *ptpm_error_name(uint16_t error);

#endif /* GPSPHC_PTPMGMT_H */

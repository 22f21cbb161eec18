// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptpmgmt.c - PTP v2 management messages for ptp4l's UNIX socket: see
 * ptpmgmt.h for the layout.  Every field is written and read byte by byte
 * in network order, so the code has no packed structs and no alignment
 * or host byte order to care about.
 */
#include <string.h>

#include "ptpmgmt.h"

static uint8_t *put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
	return p + 2;
}

static uint8_t *put_port(uint8_t *p, const struct ptpm_port_id *id)
{
	memcpy(p, id->clock_id, 8);
	return put16(p + 8, id->port);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void get_port(const uint8_t *p, struct ptpm_port_id *id)
{
	memcpy(id->clock_id, p, 8);
	id->port = get16(p + 8);
}

void ptpm_req_init(struct ptpm_req *r, uint16_t port)
{
	*r = (struct ptpm_req){ .source.port = port, .target.port = 0xffff };
	memset(r->target.clock_id, 0xff, sizeof(r->target.clock_id));
}

size_t ptpm_encode(uint8_t *buf, size_t size, const struct ptpm_req *r,
		   enum ptpm_action action, uint16_t id, const uint8_t *data,
		   size_t len)
{
	size_t total = PTPM_MSG_LEN + PTPM_TLV_HDR_LEN + len;
	uint8_t *p = buf;

	if (len % 2 || total > size || total > 0xffff)
		return 0;
	memset(buf, 0, total);
	*p++ = (uint8_t)((r->transport_specific & 0xf) << 4 | PTPM_MANAGEMENT);
	*p++ = PTPM_VERSION;
	p = put16(p, (uint16_t)total);
	*p++ = r->domain;
	p += 1 + 2 + 8 + 4;		/* reserved, flags, correction, reserved */
	p = put_port(p, &r->source);
	p = put16(p, r->seq);
	*p++ = PTPM_CTL_MANAGEMENT;
	*p++ = 0x7f;			/* logMessageInterval */
	p = put_port(p, &r->target);
	*p++ = r->boundary_hops;	/* startingBoundaryHops */
	*p++ = r->boundary_hops;
	*p++ = (uint8_t)action;
	p++;				/* reserved */
	p = put16(p, PTPM_TLV_MANAGEMENT);
	p = put16(p, (uint16_t)(2 + len));
	p = put16(p, id);
	if (len)
		memcpy(p, data, len);
	return total;
}

size_t ptpm_encode_gm_settings(uint8_t *buf, size_t size,
			       const struct ptpm_req *r,
			       const struct ptpm_gm_settings *s)
{
	uint8_t d[PTPM_GMS_LEN];

	d[0] = s->clock_class;
	d[1] = s->clock_accuracy;
	put16(d + 2, s->offset_scaled_log_variance);
	put16(d + 4, (uint16_t)s->utc_offset);
	d[6] = s->time_flags;
	d[7] = s->time_source;
	return ptpm_encode(buf, size, r, PTPM_SET,
			   PTPM_ID_GRANDMASTER_SETTINGS_NP, d, sizeof(d));
}

int ptpm_decode(const uint8_t *buf, size_t len, struct ptpm_msg *m)
{
	size_t msg_len, tlv_len;
	const uint8_t *t;

	memset(m, 0, sizeof(*m));
	if (len < PTPM_HDR_LEN)
		return PTPM_E_SHORT;
	if ((buf[0] & 0xf) != PTPM_MANAGEMENT || (buf[1] & 0xf) != PTPM_VERSION)
		return PTPM_E_NOT_MGMT;
	msg_len = get16(buf + 2);
	if (msg_len > len)
		return PTPM_E_SHORT;
	if (msg_len < PTPM_MSG_LEN)
		return PTPM_E_LENGTH;
	if (msg_len < PTPM_MSG_LEN + 4)
		return PTPM_E_NO_TLV;
	m->transport_specific = buf[0] >> 4;
	m->domain = buf[4];
	get_port(buf + 20, &m->source);
	m->seq = get16(buf + 30);
	get_port(buf + 34, &m->target);
	m->starting_hops = buf[44];
	m->hops = buf[45];
	m->action = buf[46] & 0xf;
	t = buf + PTPM_MSG_LEN;
	m->tlv_type = get16(t);
	tlv_len = get16(t + 2);
	/* One TLV, exactly: ptp4l sends no other after a management TLV. */
	if (PTPM_MSG_LEN + 4 + tlv_len > msg_len || tlv_len % 2)
		return PTPM_E_LENGTH;
	switch (m->tlv_type) {
	case PTPM_TLV_MANAGEMENT:
		if (tlv_len < 2)
			return PTPM_E_LENGTH;
		m->id = get16(t + 4);
		m->data = t + 6;
		m->data_len = tlv_len - 2;
		return PTPM_OK;
	case PTPM_TLV_MANAGEMENT_ERROR_STATUS:
		if (tlv_len < 8)
			return PTPM_E_LENGTH;
		m->error = get16(t + 4);
		m->id = get16(t + 6);
		m->data = t + 12;
		m->data_len = tlv_len - 8;
		return PTPM_OK;
	default:
		return PTPM_E_TLV_TYPE;
	}
}

int ptpm_decode_gm_settings(const uint8_t *d, size_t len,
			    struct ptpm_gm_settings *s)
{
	if (len != PTPM_GMS_LEN)
		return PTPM_E_DATA_LEN;
	s->clock_class = d[0];
	s->clock_accuracy = d[1];
	s->offset_scaled_log_variance = get16(d + 2);
	s->utc_offset = (int16_t)get16(d + 4);
	s->time_flags = d[6];
	s->time_source = d[7];
	return PTPM_OK;
}

bool ptpm_gm_settings_eq(const struct ptpm_gm_settings *a,
			 const struct ptpm_gm_settings *b)
{
	return a->clock_class == b->clock_class &&
	       a->clock_accuracy == b->clock_accuracy &&
	       a->offset_scaled_log_variance == b->offset_scaled_log_variance &&
	       a->utc_offset == b->utc_offset &&
	       a->time_flags == b->time_flags &&
	       a->time_source == b->time_source;
}

const char *ptpm_error_name(uint16_t error)
{
	switch (error) {
	case PTPM_ERR_RESPONSE_TOO_BIG:	return "RESPONSE_TOO_BIG";
	case PTPM_ERR_NO_SUCH_ID:	return "NO_SUCH_ID";
	case PTPM_ERR_WRONG_LENGTH:	return "WRONG_LENGTH";
	case PTPM_ERR_WRONG_VALUE:	return "WRONG_VALUE";
	case PTPM_ERR_NOT_SETABLE:	return "NOT_SETABLE";
	case PTPM_ERR_NOT_SUPPORTED:	return "NOT_SUPPORTED";
	case PTPM_ERR_GENERAL_ERROR:	return "GENERAL_ERROR";
	default:			return "unknown";
	}
}

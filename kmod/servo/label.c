// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc servo: labels. The first ties the count to TAI and sets the
 * clock; later ones confirm the count, and a disagreement moves it only
 * when the labels of confirm_n distinct consecutive edges propose it.
 * See servo.h.
 */

#include "internal.h"

/* First label: tie the count to TAI, set the clock and the rate */
static void sv_first_label(struct gpsphc_servo *s,
			   const struct gpsphc_servo_edge_rec *rec,
			   u64 tai_sec, u64 now_raw_ns, s64 now_phc_ns,
			   struct gpsphc_servo_out *out)
{
	u64 raw_at = rec->raw, elapsed;
	s64 truth, period;

	if (gpsphc_sv_estimate(s, rec, &period, &raw_at))
		s->freq = gpsphc_sv_period_freq(s, period);
	elapsed = gpsphc_sv_raw_to_true(sv_since(now_raw_ns, raw_at), s->freq);
	truth = sv_sat_add(sv_tai_ns(tai_sec),
			   (s64)min_t(u64, elapsed, SV_OFF_LIMIT));
	s->tai_base = tai_sec - rec->num;
	s->labelled = true;
	s->pending.n = 0;
	gpsphc_sv_step(s, sv_sat_sub(truth, now_phc_ns), out);
	sv_set_adj(s, s->freq, out);
	/* The loop starts from the history's estimate at the next edge. */
	gpsphc_sv_relock(s);
	s->est->forget(s);
}

bool gpsphc_servo_confirm(struct gpsphc_servo_confirm *c, bool same, u64 num,
			  u32 need)
{
	if (c->n && same && num == c->num)
		return false;
	if (c->n && same && num == c->num + 1)
		c->n++;
	else
		c->n = 1;
	c->num = num;
	if (c->n < need)
		return false;
	c->n = 0;
	return true;
}

/*
 * Why no counted input of the history is (@kind, @seq): it was never fed
 * (FUTURE), it is older than the history keeps (UNKNOWN), or it was fed
 * and not counted as a second (UNCOUNTED). Sequence numbers wrap.
 */
static int sv_label_missing(const struct gpsphc_servo *s,
			    enum gpsphc_servo_input kind, u32 seq,
			    const struct gpsphc_servo_edge_rec *oldest)
{
	const struct gpsphc_servo_fed *fed = &s->fed[kind];

	if (!fed->any || (s32)(seq - fed->next_seq) >= 0)
		return GPSPHC_SERVO_LABEL_FUTURE;
	if (oldest ? (s32)(seq - oldest->seq) < 0 :
	    fed->counted_any && (s32)(seq - fed->last_counted_seq) <= 0)
		return GPSPHC_SERVO_LABEL_UNKNOWN;
	return GPSPHC_SERVO_LABEL_UNCOUNTED;
}

int gpsphc_servo_label(struct gpsphc_servo *s, enum gpsphc_servo_input kind,
		       u32 seq, u64 tai_sec, u64 now_raw_ns, s64 now_phc_ns,
		       struct gpsphc_servo_out *out)
{
	struct gpsphc_servo_edge_rec *rec = NULL, *oldest = NULL, *r;
	bool coarse = kind == GPSPHC_SERVO_INPUT_SENTENCE;
	int ret;
	u32 i;
	s64 d;

	sv_out_begin(s, out);
	for (i = 0; i < s->hist_len && !rec; i++) {
		r = gpsphc_sv_hist_at(s, i);
		if (r->coarse != coarse)
			continue;
		if (!oldest)
			oldest = r;
		if (r->seq == seq)
			rec = r;
	}
	if (!rec) {
		ret = sv_label_missing(s, kind, seq, oldest);
		goto refuse;
	}
	/*
	 * A first label's step is carried from the input to now, within the
	 * servo's ns limit: an input from before a long gap is too old.
	 */
	if (now_raw_ns - rec->raw > SV_OFF_LIMIT) {
		ret = GPSPHC_SERVO_LABEL_UNKNOWN;
		goto refuse;
	}
	if (tai_sec < rec->num || tai_sec > SV_TAI_SEC_MAX ||
	    tai_sec - rec->num > SV_TAI_SEC_MAX - s->last_num) {
		ret = GPSPHC_SERVO_LABEL_RANGE;
		goto refuse;
	}

	s->counters.labels++;
	out->edge_num = rec->num;
	if (!s->labelled) {
		sv_first_label(s, rec, tai_sec, now_raw_ns, now_phc_ns, out);
		ret = GPSPHC_SERVO_LABEL_SET;
		goto out;
	}
	d = (s64)tai_sec - (s64)(s->tai_base + rec->num);
	if (!d) {
		s->pending.n = 0;
		ret = GPSPHC_SERVO_LABEL_AGREE;
		goto out;
	}
	s->counters.disagreements++;
	out->flags |= GPSPHC_SERVO_OUT_DISAGREE;
	if (!gpsphc_servo_confirm(&s->pending, s->pending.n && s->pending_d == d,
				  rec->num, s->cfg.confirm_n)) {
		s->pending_d = d;
		ret = GPSPHC_SERVO_LABEL_DISAGREE;
		goto out;
	}
	/* Confirmed: whole seconds only, the loop's lock is unaffected. */
	s->tai_base = tai_sec - rec->num;
	out->step_ns = d * (s64)SV_NSEC;
	out->flags |= GPSPHC_SERVO_OUT_STEP;
	s->counters.steps++;
	ret = GPSPHC_SERVO_LABEL_APPLIED;
	goto out;

refuse:
	s->counters.labels_refused++;
out:
	sv_out_end(s, out);
	return ret;
}

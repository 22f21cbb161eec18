// SPDX-License-Identifier: GPL-2.0-only
/* pipeline.c - parse, resolve, leap, associate, guard, label. */
#include <inttypes.h>
#include <string.h>

#include "log.h"
#include "nmea.h"
#include "pipeline.h"
#include "timeconv.h"

static void set_pivot(struct era_pivot *pv, const struct leap_table *t,
		      int64_t utc)
{
	pv->utc = utc;
	pv->tai_utc = leap_offset(t, utc);
}

void pipeline_init(struct pipeline *p, const struct era_floor *floor,
		   const struct leap_table *leap, const struct assoc_cfg *a,
		   unsigned int guard_n, pp_emit_fn emit, void *ctx)
{
	memset(p, 0, sizeof(*p));
	p->leap = *leap;
	p->assoc = *a;
	set_pivot(&p->pivot, leap, floor->utc);
	p->pivot_by = floor->by;
	p->trust_s = PP_TRUST_S;
	guard_init(&p->guard, guard_n);
	p->emit = emit;
	p->ctx = ctx;
}

void pp_print_label(FILE *f, const struct pp_label *l)
{
	char utc[32];

	format_utc(utc, sizeof(utc), l->utc, l->sec60);
	fprintf(f, "%" PRId64 " %" PRId64 " %s %d\n", l->edge_ns, l->tai, utc,
		l->tai_utc);
}

static void note_leap(struct pipeline *p, struct pp_label *l)
{
	struct leap_entry next;
	char when[32];

	if (!leap_next(&p->leap, l->utc, &next) ||
	    next.utc - l->utc > 31 * SECS_PER_DAY)
		return;
	l->leap_pending = next.tai_utc - leap_offset(&p->leap, l->utc);
	l->leap_at_utc = next.utc;
	if (p->leap_announced == next.utc)
		return;
	p->leap_announced = next.utc;
	format_utc(when, sizeof(when), next.utc, false);
	log_msg(LOG_NOTICE, "leap second pending (%s): TAI-UTC becomes %d at %s",
	    l->leap_pending > 0 ? "insertion" : "deletion", next.tai_utc,
	    when);
}

/* Once: a rollover correction, how far, and why we believe it. */
static void warn_behind(struct pipeline *p, const struct nmea_msg *m,
			const struct era_result *r)
{
	int64_t moved = r->behind_weeks * SECS_PER_WEEK;
	double years = (double)moved / (365.2425 * SECS_PER_DAY);
	char said[32], now[32], pivot[32];

	if (!r->behind_weeks || p->warned_behind)
		return;
	p->warned_behind = true;
	format_utc(said, sizeof(said), r->utc - moved, r->sec60);
	format_utc(now, sizeof(now), r->utc, r->sec60);
	format_utc(pivot, sizeof(pivot), p->pivot.utc, false);
	if (r->why == ERA_WHY_WEEK)
		log_msg(LOG_WARNING, "the receiver reports dates %" PRId64 " weeks early (GPS week rollover bug): its %s date says %s, but the GPS week it sends with it says %s: labelled with the week's time, %" PRId64 " weeks (%.1f years) later. Update its firmware or replace it.",
		    r->behind_weeks, nmea_kind_name(m->kind), said, now,
		    r->behind_weeks, years);
	else
		log_msg(LOG_WARNING, "the receiver reports dates %" PRId64 " weeks early (GPS week rollover bug): its %s says %s, before the era pivot %s (%s), and no honest receiver reads earlier than that; labelled %s, %" PRId64 " weeks (%.1f years) later. Update its firmware or replace it. If the receiver is right, the pivot is wrong: see ERA RESOLUTION in gpsphcd(8).",
		    r->behind_weeks, nmea_kind_name(m->kind), said, pivot,
		    era_floor_by_name(p->pivot_by), now, r->behind_weeks,
		    years);
}

/*
 * A label was accepted with verdict @v: the consistent run, the last-good
 * time and the pivot follow it (see PP_TRUST_S).
 */
static void note_run(struct pipeline *p, enum guard_verdict v,
		     const struct pp_label *l)
{
	if (v == GUARD_FIRST || v == GUARD_JUMP) {
		p->run_start_tai = l->tai;
		p->have_last_good = false;
	}
	if (l->tai - p->run_start_tai < p->trust_s)
		return;
	p->have_last_good = true;
	p->last_good_tai = l->tai;
	if (l->utc - ERA_SLACK > p->pivot.utc) {
		set_pivot(&p->pivot, &p->leap, l->utc - ERA_SLACK);
		p->pivot_by = ERA_BY_LABELS;
	}
}

int64_t pipeline_run_secs(const struct pipeline *p)
{
	return p->guard.have ? p->guard.tai - p->run_start_tai : 0;
}

/* Offer one resolved sentence for the edge it describes. */
static void label(struct pipeline *p, const struct pp_pending *s)
{
	struct gp_err e;
	struct pp_label l = { 0 };
	struct assoc_cfg a = p->assoc;
	char got[32], want[32];
	int64_t edge, delay, expected;
	enum guard_verdict v;

	/* In coarse mode a sentence that starts a second is its own edge. */
	if (p->coarse)
		a.offset_ns = 0;

	if (assoc_pick(&a, s->t_ns, p->have_edge ? p->edge.t_ns : INT64_MIN,
		       &edge, &delay, &e)) {
		if (!p->coarse)
			log_msg(LOG_WARNING, "%s", e.msg);
		else if (delay >= NS_PER_SEC)
			log_msg(LOG_WARNING, "sentence at %" PRId64 " ns: no sentence started its second (none came %d ms after the one before), so it labels nothing (coarse mode); the receiver's output leaves no quiet gap: send fewer sentences or raise the baud rate",
			    s->t_ns, GPSPHC_SENTENCE_GAP_MS);
		else
			log_msg(LOG_WARNING, "sentence at %" PRId64 " ns came %" PRId64 " ms after the first sentence of its second, outside the %" PRId64 " ms window or within %" PRId64 " ms of half a second: not used (coarse mode); raise --window if the receiver sends its time late in the second",
			    s->t_ns, delay / NS_PER_MS, a.window_ns / NS_PER_MS,
			    a.margin_ns / NS_PER_MS);
		return;
	}
	if (p->edge_done) {
		if (s->lab.tai != p->edge_tai)
			log_msg(LOG_WARNING, "sentence at %" PRId64 " ns says TAI %" PRId64 " for the edge at %" PRId64 " ns already labelled %" PRId64 ": ignored",
			    s->t_ns, s->lab.tai, edge, p->edge_tai);
		return;
	}
	v = guard_offer(&p->guard, p->edge.second, s->lab.tai,
			p->pivot.utc + p->pivot.tai_utc, &expected);
	format_utc(got, sizeof(got), s->lab.utc, s->lab.sec60);
	switch (v) {
	case GUARD_BEFORE_PIVOT:
		p->rejected++;
		log_msg(LOG_WARNING, "label %s for the edge at %" PRId64 " ns is before the pivot: refused",
		    got, edge);
		return;
	case GUARD_HOLD: {
		int64_t eu;
		bool e60;
		int off;

		p->held++;
		leap_utc_from_tai(&p->leap, expected, &eu, &e60, &off);
		format_utc(want, sizeof(want), eu, e60);
		log_msg(LOG_WARNING, "TIME JUMP HELD: the receiver says %s (TAI %" PRId64 ") but the running time is %s (TAI %" PRId64 "), %+" PRId64 " s; accepted only after %u consecutive edges agree (%u so far)",
		    got, s->lab.tai, want, expected, s->lab.tai - expected,
		    p->guard.n, p->guard.cand_count);
		l.held = true;
		break;
	}
	case GUARD_JUMP:
		log_msg(LOG_WARNING, "TIME JUMP ACCEPTED after %u consistent edges: now %s (TAI %" PRId64 "), running time was TAI %" PRId64 " (%+" PRId64 " s)",
		    p->guard.n, got, s->lab.tai, expected,
		    s->lab.tai - expected);
		break;
	default:
		break;
	}
	l.edge_ns = edge;
	l.seq = p->edge.seq;
	l.coarse = p->coarse;
	l.tai = s->lab.tai;
	l.utc = s->lab.utc;
	l.sec60 = s->lab.sec60;
	l.tai_utc = s->lab.tai_utc;
	note_leap(p, &l);
	if (!l.held) {
		/* the first accepted sentence labels the edge; others cross-check */
		p->edge_done = true;
		p->edge_tai = s->lab.tai;
		p->labels++;
		p->coarse_labels += l.coarse;
		note_run(p, v, &l);
	}
	p->emit(p->ctx, &l);
}

/* Process queued sentences whose t - offset is before @now (or all). */
static void drain(struct pipeline *p, int64_t now, bool inclusive)
{
	unsigned int i = 0;

	while (i < p->nq) {
		int64_t t = p->q[i].t_ns - (p->coarse ? 0 : p->assoc.offset_ns);

		if (t > now || (t == now && !inclusive)) {
			i++;
			continue;
		}
		label(p, &p->q[i]);
		memmove(&p->q[i], &p->q[i + 1],
			(p->nq - i - 1) * sizeof(p->q[0]));
		p->nq--;
	}
}

void pipeline_edge(struct pipeline *p, const struct pp_input *in)
{
	if (!in->counted) {
		log_msg(LOG_DEBUG, "edge %" PRIu32 " at %" PRId64 " ns: not where a second was due, by the kernel's count: not labelled",
		    in->seq, in->t_ns);
		return;
	}
	drain(p, in->t_ns, false);
	if (p->coarse) {
		p->coarse = false;
		log_msg(LOG_NOTICE, "PPS edges back: labelling edges (coarse mode ends)");
	}
	p->have_pps = true;
	p->pps_ns = in->t_ns;
	p->have_edge = true;
	p->edge = *in;
	p->edge_done = false;
}

void pipeline_flush(struct pipeline *p)
{
	drain(p, INT64_MAX, true);
}

void pipeline_resync(struct pipeline *p)
{
	/* Sentences waiting for their edge: it may be among the lost. */
	p->nq = 0;
}

static bool resolve(struct pipeline *p, int64_t t_ns, const char *s,
		    size_t len, int csum, struct pp_pending *out)
{
	struct nmea_msg m;
	struct era_result r;
	struct gp_err e;
	int rx_leap, ret;

	ret = nmea_parse_checked(s, len, csum, &m, &e);
	if (ret == NMEA_E_UNSUPPORTED)
		return false;
	if (ret) {
		log_msg(LOG_WARNING, "sentence at %" PRId64 " ns rejected (%s): %s", t_ns,
		    nmea_err_name(ret), e.msg);
		return false;
	}
	ret = era_resolve(&p->pivot, &m, &r, &e);
	if (ret == ERA_E_NO_DATE)
		return false;
	if (ret) {
		log_msg(LOG_WARNING, "sentence at %" PRId64 " ns not resolved: %s", t_ns,
		    e.msg);
		return false;
	}
	if (r.nsec) {
		if (!p->warned_frac)
			log_msg(LOG_WARNING, "%s time has a fraction of %09" PRIu32 " ns: it does not describe a PPS edge; such sentences are skipped",
			    nmea_kind_name(m.kind), r.nsec);
		p->warned_frac = true;
		return false;
	}
	warn_behind(p, &m, &r);
	if (r.ahead)
		log_msg(LOG_WARNING, "%s time is more than 1024 weeks after the pivot; trusted, but check --not-before and the state file",
		    nmea_kind_name(m.kind));
	rx_leap = m.has_leap && !m.leap_default ? m.leap : -1;
	ret = leap_label(&p->leap, &r, rx_leap, &out->lab, &e);
	if (ret >= LEAP_E_MALFORMED) {
		log_msg(LOG_WARNING, "sentence at %" PRId64 " ns: %s", t_ns, e.msg);
		return false;
	}
	if (ret)
		log_msg(LOG_WARNING, "%s", e.msg);
	if (out->lab.src != LEAP_SRC_RECEIVER &&
	    (!p->warned_expired_utc ||
	     out->lab.utc - p->warned_expired_utc >= SECS_PER_DAY) &&
	    leap_check_expiry(&p->leap, out->lab.utc, &e)) {
		p->warned_expired_utc = out->lab.utc;
		log_msg(LOG_WARNING, "WARNING: %s", e.msg);
	}
	out->t_ns = t_ns;
	return true;
}

/*
 * A sentence with a good checksum: coarse mode's bookkeeping. One the
 * kernel counted starts a second; with no edge ever, only once the first
 * good sentence is PP_COARSE_START_NS old (gpsphcd's policy).
 */
static void good_sentence(struct pipeline *p, const struct pp_input *in)
{
	int64_t t_ns = in->t_ns;

	if (!p->have_good)
		p->first_good_ns = t_ns;
	p->have_good = true;
	if (!in->counted ||
	    (!p->have_pps && t_ns - p->first_good_ns < PP_COARSE_START_NS))
		return;
	/* What waits belongs to the previous second (or edge). */
	drain(p, INT64_MAX, true);
	if (!p->coarse) {
		if (p->have_pps)
			log_msg(LOG_WARNING, "no PPS edge for %" PRId64 " s: coarse mode, the first sentence of each second stands in for the edge (millisecond accuracy); check the PPS wiring (DCD, or the GPIO line pps_gpio names)",
			    (t_ns - p->pps_ns) / NS_PER_SEC);
		else
			log_msg(LOG_WARNING, "no PPS edge in the first %" PRId64 " s of sentences: coarse mode, the first sentence of each second stands in for the edge (millisecond accuracy); check the PPS wiring (DCD, or the GPIO line pps_gpio names)",
			    (t_ns - p->first_good_ns) / NS_PER_SEC);
	}
	p->coarse = true;
	p->have_edge = true;
	p->edge = *in;
	p->edge_done = false;
}

void pipeline_sentence(struct pipeline *p, const struct pp_input *in,
		       const char *s, size_t len, int csum)
{
	struct pp_pending pend;
	int64_t t_ns = in->t_ns;

	if (csum == NMEA_OK)
		good_sentence(p, in);
	if (!resolve(p, t_ns, s, len, csum, &pend))
		return;
	if (p->nq == PP_QUEUE) {
		log_msg(LOG_WARNING, "more than %d sentences wait for their edge: dropping the oldest; check --offset",
		    PP_QUEUE);
		memmove(&p->q[0], &p->q[1], (PP_QUEUE - 1) * sizeof(p->q[0]));
		p->nq--;
	}
	p->q[p->nq++] = pend;
	drain(p, t_ns, true);
}

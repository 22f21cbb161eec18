// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc: sysfs attributes of /sys/class/gpsphc/gpsphc<id>, documented in
 * Documentation/ABI/testing/sysfs-class-gpsphc. One value per file; the
 * counters sit in statistics/, as a network device's do.
 */

#include <linux/capability.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <net/netlink.h>

#include "clock_fields.h"
#include "dev.h"
#include "gpio.h"
#include "pps.h"
#include "servo_glue.h"
#include "stats.h"
#include "sysfs.h"

static const char * const gpsphc_edge_names[] = {
	[GPSPHC_EDGE_RISING] = "rising",
	[GPSPHC_EDGE_FALLING] = "falling",
};

static ssize_t tty_show(struct device *dev, struct device_attribute *attr,
			char *buf)
{
	return sysfs_emit(buf, "%s\n", to_gpsphc_dev(dev)->tty_name);
}
static DEVICE_ATTR_RO(tty);

/*
 * The directory appears (device_add()) before the PPS source and the
 * clock are registered: a reader in between is told to try again, not
 * given another device's number.
 */
static ssize_t gpsphc_id_show(char *buf, const char *prefix, const u32 *id)
{
	u32 n = READ_ONCE(*id);

	if (n == GPSPHC_ID_NONE)
		return -EAGAIN;
	return sysfs_emit(buf, "%s%u\n", prefix, n);
}

static ssize_t pps_device_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return gpsphc_id_show(buf, "pps", &to_gpsphc_dev(dev)->pps_id);
}
static DEVICE_ATTR_RO(pps_device);

static ssize_t available_edges_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s %s\n", gpsphc_edge_names[GPSPHC_EDGE_RISING],
			  gpsphc_edge_names[GPSPHC_EDGE_FALLING]);
}
static DEVICE_ATTR_RO(available_edges);

static ssize_t ptp_device_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return gpsphc_id_show(buf, "ptp", &to_gpsphc_dev(dev)->ptp_id);
}
static DEVICE_ATTR_RO(ptp_device);

static const char * const gpsphc_scale_names[] = {
	[GPSPHC_SCALE_TAI] = "tai",
	[GPSPHC_SCALE_UTC] = "utc",
};

static ssize_t available_scales_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s %s\n", gpsphc_scale_names[GPSPHC_SCALE_TAI],
			  gpsphc_scale_names[GPSPHC_SCALE_UTC]);
}
static DEVICE_ATTR_RO(available_scales);

static const char * const gpsphc_clock_servo_names[] = {
	[GPSPHC_CLOCK_SERVO_BANK] = "bank",
	[GPSPHC_CLOCK_SERVO_PI] = "pi",
};

static ssize_t available_clock_servos_show(struct device *dev,
					   struct device_attribute *attr,
					   char *buf)
{
	return sysfs_emit(buf, "%s %s\n",
			  gpsphc_clock_servo_names[GPSPHC_CLOCK_SERVO_BANK],
			  gpsphc_clock_servo_names[GPSPHC_CLOCK_SERVO_PI]);
}
static DEVICE_ATTR_RO(available_clock_servos);

static const char * const gpsphc_servo_names[] = { "off", "on" };

/*
 * A setting's file, by the setting's netlink attribute @set: a choice of
 * @names[@min..@max] (the uAPI enums start at 1), the servo "on" or
 * "off", or a number in [@min, @max], as dev-set's policy has it.
 */
struct gpsphc_setting_attr {
	struct device_attribute attr;
	int set;
	const char * const *names;
	u64 min;
	u64 max;
};

#define to_gpsphc_setting_attr(a) container_of(a, struct gpsphc_setting_attr, attr)

static u64 gpsphc_setting_get(struct gpsphc_dev *gdev, int which)
{
	struct gpsphc_clock_settings set;

	if (which == GPSPHC_A_DEV_EDGE)
		return READ_ONCE(gdev->edge);
	gpsphc_servo_glue_settings(gdev, &set);
	switch (which) {
	case GPSPHC_A_DEV_SCALE:
		return set.scale;
	case GPSPHC_A_DEV_STEP_NS:
		return set.step_ns;
	case GPSPHC_A_DEV_CONFIRM_N:
		return set.confirm_n;
	case GPSPHC_A_DEV_RX_LATENCY_NS:
		return set.rx_latency_ns;
	case GPSPHC_A_DEV_CLOCK_SERVO:
		return set.clock_servo;
	default:
		return !set.servo_off;
	}
}

static ssize_t gpsphc_setting_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	const struct gpsphc_setting_attr *sa = to_gpsphc_setting_attr(attr);
	u64 v = gpsphc_setting_get(to_gpsphc_dev(dev), sa->set);

	if (sa->names)
		return sysfs_emit(buf, "%s\n", sa->names[v]);
	return sysfs_emit(buf, "%llu\n", v);
}

/*
 * The value a write to @sa's file gives, into @v: 0 or a negative errno.
 * Names are matched by hand, not with sysfs_match_string(): that stops at
 * an enum's unused entry 0.
 */
static int gpsphc_setting_parse(const struct gpsphc_setting_attr *sa,
				const char *buf, u64 *v)
{
	bool on;
	int ret;

	if (sa->set == GPSPHC_A_DEV_SERVO_OFF) {
		ret = kstrtobool(buf, &on);
		*v = on;
		return ret;
	}
	if (sa->names) {
		for (*v = sa->min; *v <= sa->max; ++*v)
			if (sysfs_streq(buf, sa->names[*v]))
				return 0;
		return -EINVAL;
	}
	ret = kstrtou64(buf, 0, v);
	if (ret)
		return ret;
	return *v < sa->min || *v > sa->max ? -ERANGE : 0;
}

/*
 * A write to a setting. Every writable file changes what the clock reads
 * (which edge is on time, the scale, whether and how the servo steers
 * it): the same right as settimeofday. A write that races with detach
 * either lands before the device dies or fails; it is never silently lost.
 */
static ssize_t gpsphc_setting_store(struct device *dev,
				    struct device_attribute *attr,
				    const char *buf, size_t count)
{
	const struct gpsphc_setting_attr *sa = to_gpsphc_setting_attr(attr);
	struct gpsphc_clock_settings set = { .change = BIT(sa->set) };
	u64 v;
	int ret;

	if (!capable(CAP_SYS_TIME))
		return -EPERM;
	if (READ_ONCE(to_gpsphc_dev(dev)->phc_dead))
		return -ENODEV;
	ret = gpsphc_setting_parse(sa, buf, &v);
	if (ret)
		return ret;
	switch (sa->set) {
	case GPSPHC_A_DEV_EDGE:
		gpsphc_pps_set_edge(to_gpsphc_dev(dev), v);
		return count;
	case GPSPHC_A_DEV_SCALE:
		set.scale = v;
		break;
	case GPSPHC_A_DEV_STEP_NS:
		set.step_ns = v;
		break;
	case GPSPHC_A_DEV_CONFIRM_N:
		set.confirm_n = v;
		break;
	case GPSPHC_A_DEV_RX_LATENCY_NS:
		set.rx_latency_ns = v;
		break;
	case GPSPHC_A_DEV_CLOCK_SERVO:
		set.clock_servo = v;
		break;
	default:
		set.servo_off = !v;
		break;
	}
	gpsphc_servo_glue_apply(to_gpsphc_dev(dev), &set);
	return count;
}

#define GPSPHC_SETTING_ATTR(_name, _set, _names, _min, _max)		\
	struct gpsphc_setting_attr dev_attr_##_name = {			\
		.attr = __ATTR(_name, 0644, gpsphc_setting_show,	\
			       gpsphc_setting_store),			\
		.set = _set,						\
		.names = _names,					\
		.min = _min,						\
		.max = _max,						\
	}

static GPSPHC_SETTING_ATTR(edge, GPSPHC_A_DEV_EDGE, gpsphc_edge_names, 1,
			   GPSPHC_EDGE_MAX);
static GPSPHC_SETTING_ATTR(scale, GPSPHC_A_DEV_SCALE, gpsphc_scale_names, 1,
			   GPSPHC_SCALE_MAX);
static GPSPHC_SETTING_ATTR(step_ns, GPSPHC_A_DEV_STEP_NS, NULL, 1000,
			   NSEC_PER_SEC);
static GPSPHC_SETTING_ATTR(confirm_n, GPSPHC_A_DEV_CONFIRM_N, NULL, 1, 60);
static GPSPHC_SETTING_ATTR(rx_latency_ns, GPSPHC_A_DEV_RX_LATENCY_NS, NULL, 0,
			   999 * NSEC_PER_MSEC);
static GPSPHC_SETTING_ATTR(servo, GPSPHC_A_DEV_SERVO_OFF, gpsphc_servo_names,
			   0, 1);
static GPSPHC_SETTING_ATTR(clock_servo, GPSPHC_A_DEV_CLOCK_SERVO,
			   gpsphc_clock_servo_names, 1, GPSPHC_CLOCK_SERVO_MAX);

static ssize_t pps_gpio_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	char spec[GPSPHC_GPIO_SPEC_LEN];

	gpsphc_gpio_get(to_gpsphc_dev(dev), spec, sizeof(spec));
	return sysfs_emit(buf, "%s\n", spec);
}

/* Where the PPS comes from changes what the clock reads: CAP_SYS_TIME. */
static ssize_t pps_gpio_store(struct device *dev, struct device_attribute *attr,
			      const char *buf, size_t count)
{
	int ret;

	if (!capable(CAP_SYS_TIME))
		return -EPERM;
	ret = gpsphc_gpio_set(to_gpsphc_dev(dev), buf);
	return ret ?: count;
}
static DEVICE_ATTR_RW(pps_gpio);

/*
 * A file that shows one value of an array its show function reads:
 * the servo's status, the counters in statistics/.
 */
struct gpsphc_index_attr {
	struct device_attribute attr;
	int index;
};

#define to_gpsphc_index_attr(a) container_of(a, struct gpsphc_index_attr, attr)

/*
 * Servo status: one value per file, each read through one snapshot of
 * the servo, shown as the clock's gpsphc_servo_fields[] says.
 */
static ssize_t gpsphc_servo_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	int index = to_gpsphc_index_attr(attr)->index;
	const struct gpsphc_servo_field *f = &gpsphc_servo_fields[index];
	u64 st[GPSPHC_A_SERVO_MAX + 1];
	u64 v;

	gpsphc_servo_glue_status(to_gpsphc_dev(dev), st);
	v = st[index];
	if (f->names)
		return sysfs_emit(buf, "%s\n", f->names[v]);
	if (f->type == NLA_S64)
		return sysfs_emit(buf, "%lld\n", (s64)v);
	return sysfs_emit(buf, "%llu\n", v);
}

/* The file of GPSPHC_A_SERVO_@_a, named as gpsphc_servo_fields[] says. */
#define GPSPHC_SERVO_ATTR(_a)						\
	[GPSPHC_A_SERVO_##_a] = {					\
		.attr.attr.name = gpsphc_servo_fields[GPSPHC_A_SERVO_##_a].name, \
		.attr.attr.mode = 0444,					\
		.attr.show = gpsphc_servo_show,				\
		.index = GPSPHC_A_SERVO_##_a,				\
	}

static struct gpsphc_index_attr gpsphc_servo_attrs[GPSPHC_A_SERVO_MAX + 1] = {
	GPSPHC_SERVO_ATTR(STATE),
	GPSPHC_SERVO_ATTR(OFFSET_NS),
	GPSPHC_SERVO_ATTR(RMS_NS),
	GPSPHC_SERVO_ATTR(FREQ_PPB),
	GPSPHC_SERVO_ATTR(TAI_UTC),
	GPSPHC_SERVO_ATTR(LEAP),
	GPSPHC_SERVO_ATTR(LEAP_UTC),
	GPSPHC_SERVO_ATTR(HOLDOVER_S),
	GPSPHC_SERVO_ATTR(COARSE),
	GPSPHC_SERVO_ATTR(LABELS),
	GPSPHC_SERVO_ATTR(LABELS_REFUSED),
	GPSPHC_SERVO_ATTR(DISAGREEMENTS),
	GPSPHC_SERVO_ATTR(STEPS),
	GPSPHC_SERVO_ATTR(OUTLIERS),
	GPSPHC_SERVO_ATTR(SPURIOUS),
	GPSPHC_SERVO_ATTR(RELOCKS),
	GPSPHC_SERVO_ATTR(HOLDOVERS),
	GPSPHC_SERVO_ATTR(OFF_PHASE_COUNT),
	GPSPHC_SERVO_ATTR(OFF_PHASE_NS),
	GPSPHC_SERVO_ATTR(REPHASES),
};

static struct attribute *gpsphc_dev_attrs[] = {
	&dev_attr_tty.attr,
	&dev_attr_pps_device.attr,
	&dev_attr_edge.attr.attr,
	&dev_attr_available_edges.attr,
	&dev_attr_pps_gpio.attr,
	&dev_attr_ptp_device.attr,
	&dev_attr_scale.attr.attr,
	&dev_attr_available_scales.attr,
	&dev_attr_step_ns.attr.attr,
	&dev_attr_confirm_n.attr.attr,
	&dev_attr_rx_latency_ns.attr.attr,
	&dev_attr_servo.attr.attr,
	&dev_attr_clock_servo.attr.attr,
	&dev_attr_available_clock_servos.attr,
	&gpsphc_servo_attrs[GPSPHC_A_SERVO_STATE].attr.attr,
	&gpsphc_servo_attrs[GPSPHC_A_SERVO_OFFSET_NS].attr.attr,
	&gpsphc_servo_attrs[GPSPHC_A_SERVO_RMS_NS].attr.attr,
	&gpsphc_servo_attrs[GPSPHC_A_SERVO_FREQ_PPB].attr.attr,
	&gpsphc_servo_attrs[GPSPHC_A_SERVO_TAI_UTC].attr.attr,
	&gpsphc_servo_attrs[GPSPHC_A_SERVO_LEAP].attr.attr,
	&gpsphc_servo_attrs[GPSPHC_A_SERVO_LEAP_UTC].attr.attr,
	&gpsphc_servo_attrs[GPSPHC_A_SERVO_HOLDOVER_S].attr.attr,
	&gpsphc_servo_attrs[GPSPHC_A_SERVO_COARSE].attr.attr,
	&gpsphc_servo_attrs[GPSPHC_A_SERVO_OFF_PHASE_COUNT].attr.attr,
	&gpsphc_servo_attrs[GPSPHC_A_SERVO_OFF_PHASE_NS].attr.attr,
	NULL,
};

static const struct attribute_group gpsphc_dev_group = {
	.attrs = gpsphc_dev_attrs,
};

/* statistics/<name>: one counter each, read through gpsphc_dev_stats(). */
static ssize_t gpsphc_stat_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	int index = to_gpsphc_index_attr(attr)->index;
	u64 stats[GPSPHC_A_STATS_MAX + 1];

	gpsphc_dev_stats(to_gpsphc_dev(dev), stats);
	return sysfs_emit(buf, "%llu\n", stats[index]);
}

#define GPSPHC_STAT_ATTR(_name, _index)					\
	static struct gpsphc_index_attr gpsphc_stat_##_name = {		\
		.attr = __ATTR(_name, 0444, gpsphc_stat_show, NULL),	\
		.index = _index,					\
	}

GPSPHC_STAT_ATTR(sentences, GPSPHC_A_STATS_SENTENCES);
GPSPHC_STAT_ATTR(csum_ok, GPSPHC_A_STATS_CSUM_OK);
GPSPHC_STAT_ATTR(csum_missing, GPSPHC_A_STATS_CSUM_MISSING);
GPSPHC_STAT_ATTR(csum_bad, GPSPHC_A_STATS_CSUM_BAD);
GPSPHC_STAT_ATTR(overlong, GPSPHC_A_STATS_OVERLONG);
GPSPHC_STAT_ATTR(truncated, GPSPHC_A_STATS_TRUNCATED);
GPSPHC_STAT_ATTR(invalid, GPSPHC_A_STATS_INVALID);
GPSPHC_STAT_ATTR(flag_aborts, GPSPHC_A_STATS_FLAG_ABORTS);
GPSPHC_STAT_ATTR(flag_bytes, GPSPHC_A_STATS_FLAG_BYTES);
GPSPHC_STAT_ATTR(noise_bytes, GPSPHC_A_STATS_NOISE_BYTES);
GPSPHC_STAT_ATTR(binary_frames, GPSPHC_A_STATS_BINARY_FRAMES);
GPSPHC_STAT_ATTR(binary_bad, GPSPHC_A_STATS_BINARY_BAD);
GPSPHC_STAT_ATTR(pps_edges, GPSPHC_A_STATS_PPS_EDGES);
GPSPHC_STAT_ATTR(pps_missed, GPSPHC_A_STATS_PPS_MISSED);
GPSPHC_STAT_ATTR(events_dropped, GPSPHC_A_STATS_EVENTS_DROPPED);

static struct attribute *gpsphc_stat_attrs[] = {
	&gpsphc_servo_attrs[GPSPHC_A_SERVO_LABELS].attr.attr,
	&gpsphc_servo_attrs[GPSPHC_A_SERVO_LABELS_REFUSED].attr.attr,
	&gpsphc_servo_attrs[GPSPHC_A_SERVO_DISAGREEMENTS].attr.attr,
	&gpsphc_servo_attrs[GPSPHC_A_SERVO_STEPS].attr.attr,
	&gpsphc_servo_attrs[GPSPHC_A_SERVO_OUTLIERS].attr.attr,
	&gpsphc_servo_attrs[GPSPHC_A_SERVO_SPURIOUS].attr.attr,
	&gpsphc_servo_attrs[GPSPHC_A_SERVO_RELOCKS].attr.attr,
	&gpsphc_servo_attrs[GPSPHC_A_SERVO_HOLDOVERS].attr.attr,
	&gpsphc_servo_attrs[GPSPHC_A_SERVO_REPHASES].attr.attr,
	&gpsphc_stat_sentences.attr.attr,
	&gpsphc_stat_csum_ok.attr.attr,
	&gpsphc_stat_csum_missing.attr.attr,
	&gpsphc_stat_csum_bad.attr.attr,
	&gpsphc_stat_overlong.attr.attr,
	&gpsphc_stat_truncated.attr.attr,
	&gpsphc_stat_invalid.attr.attr,
	&gpsphc_stat_flag_aborts.attr.attr,
	&gpsphc_stat_flag_bytes.attr.attr,
	&gpsphc_stat_noise_bytes.attr.attr,
	&gpsphc_stat_binary_frames.attr.attr,
	&gpsphc_stat_binary_bad.attr.attr,
	&gpsphc_stat_pps_edges.attr.attr,
	&gpsphc_stat_pps_missed.attr.attr,
	&gpsphc_stat_events_dropped.attr.attr,
	NULL,
};

static const struct attribute_group gpsphc_stat_group = {
	.name = "statistics",
	.attrs = gpsphc_stat_attrs,
};

const struct attribute_group *gpsphc_dev_groups[] = {
	&gpsphc_dev_group,
	&gpsphc_stat_group,
	NULL,
};

// SPDX-License-Identifier: GPL-2.0
/*
 * gpsphc: sysfs attributes of /sys/class/gpsphc/gpsphc<id>, documented in
 * Documentation/ABI/testing/sysfs-class-gpsphc. One value per file; the
 * counters sit in statistics/, as a network device's do.
 */

#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "gpsphc.h"

static const char * const gpsphc_edge_names[] = {
	[GPSPHC_EDGE_RISING] = "rising",
	[GPSPHC_EDGE_FALLING] = "falling",
};

/**
 * gpsphc_dev_stats() - read every counter of a device
 * @gdev: the device
 * @stats: filled, indexed by enum gpsphc_stats_attrs
 *
 * The framer counters are written by the receive path without a lock;
 * each is read once, whole (64-bit loads), so a reader sees every counter
 * at some recent value.
 */
void gpsphc_dev_stats(struct gpsphc_dev *gdev, u64 *stats)
{
	const struct gpsphc_framer_counters *fc = &gdev->framer.counters;
	unsigned long flags;

	stats[GPSPHC_A_STATS_UNSPEC] = 0;
	stats[GPSPHC_A_STATS_SENTENCES] = READ_ONCE(fc->sentences);
	stats[GPSPHC_A_STATS_CSUM_OK] = READ_ONCE(fc->csum_ok);
	stats[GPSPHC_A_STATS_CSUM_MISSING] = READ_ONCE(fc->csum_missing);
	stats[GPSPHC_A_STATS_CSUM_BAD] = READ_ONCE(fc->csum_bad);
	stats[GPSPHC_A_STATS_OVERLONG] = READ_ONCE(fc->overlong);
	stats[GPSPHC_A_STATS_TRUNCATED] = READ_ONCE(fc->truncated);
	stats[GPSPHC_A_STATS_INVALID] = READ_ONCE(fc->invalid);
	stats[GPSPHC_A_STATS_FLAG_ABORTS] = READ_ONCE(fc->flag_aborts);
	stats[GPSPHC_A_STATS_FLAG_BYTES] = READ_ONCE(fc->flag_bytes);
	stats[GPSPHC_A_STATS_NOISE_BYTES] = READ_ONCE(fc->noise_bytes);
	stats[GPSPHC_A_STATS_BINARY_FRAMES] = READ_ONCE(fc->binary_frames);
	stats[GPSPHC_A_STATS_BINARY_BAD] = READ_ONCE(fc->binary_bad);

	spin_lock_irqsave(&gdev->pps_lock, flags);
	stats[GPSPHC_A_STATS_PPS_EDGES] = gdev->pps_edges;
	stats[GPSPHC_A_STATS_PPS_MISSED] = gdev->pps_missed;
	stats[GPSPHC_A_STATS_EVENTS_DROPPED] = gdev->events_dropped;
	spin_unlock_irqrestore(&gdev->pps_lock, flags);
	stats[GPSPHC_A_STATS_PAD] = 0;
}

static ssize_t tty_show(struct device *dev, struct device_attribute *attr,
			char *buf)
{
	return sysfs_emit(buf, "%s\n", to_gpsphc_dev(dev)->tty_name);
}
static DEVICE_ATTR_RO(tty);

static ssize_t pps_device_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "pps%u\n", gpsphc_pps_index(to_gpsphc_dev(dev)));
}
static DEVICE_ATTR_RO(pps_device);

static ssize_t edge_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  gpsphc_edge_names[READ_ONCE(to_gpsphc_dev(dev)->edge)]);
}

static ssize_t edge_store(struct device *dev, struct device_attribute *attr,
			  const char *buf, size_t count)
{
	int edge;

	/* Not sysfs_match_string(): it stops at the unused entry 0. */
	for (edge = GPSPHC_EDGE_RISING; edge <= GPSPHC_EDGE_MAX; edge++) {
		if (sysfs_streq(buf, gpsphc_edge_names[edge])) {
			gpsphc_pps_set_edge(to_gpsphc_dev(dev), edge);
			return count;
		}
	}
	return -EINVAL;
}
static DEVICE_ATTR_RW(edge);

static ssize_t available_edges_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s %s\n", gpsphc_edge_names[GPSPHC_EDGE_RISING],
			  gpsphc_edge_names[GPSPHC_EDGE_FALLING]);
}
static DEVICE_ATTR_RO(available_edges);

static struct attribute *gpsphc_dev_attrs[] = {
	&dev_attr_tty.attr,
	&dev_attr_pps_device.attr,
	&dev_attr_edge.attr,
	&dev_attr_available_edges.attr,
	NULL,
};

static const struct attribute_group gpsphc_dev_group = {
	.attrs = gpsphc_dev_attrs,
};

/* statistics/<name>: one counter each, read through gpsphc_dev_stats(). */
struct gpsphc_stat_attr {
	struct device_attribute attr;
	int index;
};

static ssize_t gpsphc_stat_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	int index = container_of(attr, struct gpsphc_stat_attr, attr)->index;
	u64 stats[GPSPHC_A_STATS_MAX + 1];

	gpsphc_dev_stats(to_gpsphc_dev(dev), stats);
	return sysfs_emit(buf, "%llu\n", stats[index]);
}

#define GPSPHC_STAT_ATTR(_name, _index)					\
	static struct gpsphc_stat_attr gpsphc_stat_##_name = {		\
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

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# export.sh DIR: copy gpsphc's source tree into DIR, as a release tarball
# would hold it: no .git and no build output. In a git checkout that is
# git's tracked and untracked, not ignored files, as they are in the
# working tree; outside git, everything but what .gitignore names and the
# build/ directories.
set -eu

TOP=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
mkdir -p "$1"
if git -C "$TOP" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	(cd "$TOP" && git ls-files -z --cached --others --exclude-standard |
		tar --null --ignore-failed-read -T - -cf -) | tar -xf - -C "$1"
else
	tar -C "$TOP" --exclude=.git --exclude-vcs-ignores --exclude=build -cf - . |
		tar -xf - -C "$1"
fi

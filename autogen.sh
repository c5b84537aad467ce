#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Generate configure and copy automake's TAP driver into build-aux/.
set -e
cd "$(dirname "$0")"
autoreconf -fi
cp -f "$(automake --print-libdir)/tap-driver.sh" build-aux/tap-driver.sh

#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-or-later
# GET /cgi-bin/metrics for busybox httpd: pageoutd's Prometheus text, read from its stats
# socket; 503 while pageoutd does not answer, so that the scrape fails instead of looking empty.
if out=$(/usr/bin/pageoutctl metrics 2>&1); then
	printf 'Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n\r\n%s\n' "$out"
else
	printf 'Status: 503 Service Unavailable\r\nContent-Type: text/plain\r\n\r\n%s\n' "$out"
fi

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * proto: the words of the stats socket's protocol, shared by pageoutd (control.c) and
 * pageoutctl (ctl.c) so that both sides name a request the same way. A client sends one
 * request line, `WORD [ARGUMENT]`, ended by a newline or by the end of its writes, of at most
 * PROTO_REQUEST_MAX bytes with the newline; pageoutd answers with one response and closes the
 * connection. A response that starts with PROTO_ERROR is a refusal or a failure. Which
 * requests are for root only is the daemon's to decide (control.h). Header only.
 */
#ifndef PAGEOUTD_PROTO_H
#define PAGEOUTD_PROTO_H

#define PROTO_REQUEST_MAX 4096

#define PROTO_REQ_STATS "stats"	      /* everything as one JSON document */
#define PROTO_REQ_METRICS "metrics"   /* the Prometheus text exposition */
#define PROTO_REQ_STATUS "status"     /* a table for people */
#define PROTO_REQ_CGROUPS "cgroups"   /* a line per matched cgroup */
#define PROTO_REQ_DETAIL "detail"     /* every counter of every policy */
#define PROTO_REQ_POLICIES "policies" /* the policies in force */
#define PROTO_REQ_VERSION "version"
#define PROTO_REQ_HELP "help"
#define PROTO_REQ_RELOAD "reload" /* re-read the configuration */
#define PROTO_REQ_PAUSE "pause"	  /* POLICY */
#define PROTO_REQ_RESUME "resume" /* POLICY */

/* Every request word above, in the order `help` lists them. */
#define PROTO_REQUESTS                                                                             \
	PROTO_REQ_STATS, PROTO_REQ_METRICS, PROTO_REQ_STATUS, PROTO_REQ_CGROUPS, PROTO_REQ_DETAIL, \
		PROTO_REQ_POLICIES, PROTO_REQ_VERSION, PROTO_REQ_HELP, PROTO_REQ_RELOAD,           \
		PROTO_REQ_PAUSE, PROTO_REQ_RESUME

/* The first word of a response that refuses or fails a request. */
#define PROTO_ERROR "error:"

#endif

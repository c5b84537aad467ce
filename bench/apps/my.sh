#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# my.sh [-s SCALE] [-w WARM] [-p PHASE] [-a AFTER] [-r RUNS] METHOD...: MariaDB 10.11 under
# sysbench in the bench/apps guest (init.sh), once per method, in the same boot as the "none"
# phase its figures are divided by (lib.sh, report.py).
#
# The server (mariadbd, one process) runs in /my, sysbench in /load, the reclaimer in /reclaim.
# InnoDB reads its files with O_DIRECT, so the database lives in the buffer pool: 320 MiB of
# the server's private anonymous memory, larger than the table (SCALE x 100,000 rows of sysbench's
# sbtest1, as pgbench's scale counts accounts; about 190 MiB with its index at the
# default 8), on transparent huge pages where the kernel gives
# them. Every run starts from the same state: the server started afresh, the table and its
# index read into the buffer pool by full scans, WARM seconds of load, then PHASE seconds of
# load with the method running and AFTER seconds more without it. The load is sysbench's
# oltp_read_only with 10 point selects per transaction (no range selects, no BEGIN/COMMIT),
# 4 threads, the rows drawn by sysbench's "special" law: 99% of the draws go to 5% of the
# rows (40,000 at the default scale, about 10 MiB of pages), the rest to all rows uniformly
# (sysbench 1.0 has no zipfian law; its pareto law touches every page of the tail within
# tens of seconds, as no cache's tail is).
set -u
APP=my
. ./lib.sh
scale=8
apps_opts "$@"
shift "$shift_n"
[ $# -gt 0 ] || set -- none pageoutd-vaddr pageoutd-paddr

data=/data/my
sock=/run/mysqld/mysqld.sock
applog=/tmp/my.log
mkdir -p /run/mysqld
# what this bench sets: no TCP, O_DIRECT (the buffer pool is the cache), a buffer pool larger
# than the table, no dump or load of the buffer pool across restarts, no binary log or
# performance schema; the server runs as root (the root file system has no mysql user)
cat >/tmp/my.cnf <<CONF
[mariadbd]
datadir = $data
socket = $sock
pid-file = /run/mysqld/mysqld.pid
log-error = $applog
user = root
skip-networking
skip-name-resolve
skip-log-bin
performance_schema = OFF
max_connections = 20
innodb_buffer_pool_size = 320M
innodb_flush_method = O_DIRECT
innodb_log_file_size = 64M
innodb_buffer_pool_load_at_startup = OFF
innodb_buffer_pool_dump_at_shutdown = OFF
CONF
sql() { in_cg load mariadb --defaults-file=/tmp/my.cnf -S "$sock" -u root -Nse "$1"; }
start_my() {
	in_cg my mariadbd --defaults-file=/tmp/my.cnf >/dev/null 2>&1 &
	mpid=$!
	i=0
	until sql 'SELECT 1' >/dev/null 2>&1; do
		kill -0 $mpid 2>/dev/null || die "the server did not start"
		[ $i -lt 600 ] || die "the server did not answer in 300 s"
		sleep 0.5
		i=$((i + 1))
	done
}
stop_my() {
	sql SHUTDOWN >/dev/null 2>&1
	wait $mpid 2>/dev/null
}
sb() {
	in_cg load sysbench oltp_read_only --db-driver=mysql --mysql-socket="$sock" --mysql-user=root \
		--mysql-db=sbtest --tables=1 --table-size=$((scale * 100000)) "$@"
}

# --- the database, once ---
t0=$(date +%s)
in_cg my mariadb-install-db --defaults-file=/tmp/my.cnf --auth-root-authentication-method=socket \
	--skip-test-db >/tmp/install-db.log 2>&1 || { cat /tmp/install-db.log; die "mariadb-install-db failed"; }
start_my
sql 'CREATE DATABASE sbtest' || die "no database"
sb prepare >/tmp/sb-prepare.log 2>&1 || { cat /tmp/sb-prepare.log; die "sysbench prepare failed"; }
# the server's address space: mappings of 1 GiB or more, said once (what a vaddr engine meets)
gawk '{ split($1, a, "-"); n = strtonum("0x" a[2]) - strtonum("0x" a[1])
	if (n >= 2^30) printf "apps: my: mapping of %d MiB: %s\n", n / 2^20, $0 }' /proc/$(pgrep -x mariadbd)/maps
size=$(sql "SELECT SUM(data_length + index_length) DIV 1024 FROM information_schema.tables WHERE table_schema = 'sbtest'")
stop_my
log "database: sysbench sbtest1 of $((scale * 100000)) rows, ${size} kB, buffer pool 320 MiB, made in $(($(date +%s) - t0)) s"

load() {
	sb --threads="$clients" --rand-type=special --rand-spec-pct=5 --rand-spec-res=99 --range_selects=off \
		--skip_trx=on --percentile=99 --rand-seed=1 "$@" run
}

# --- the hooks of lib.sh's runs ---
app_reset() {
	start_my
	sql "SELECT COUNT(*) FROM sbtest.sbtest1 FORCE INDEX (PRIMARY) WHERE pad <> ''" >/dev/null
	sql "SELECT COUNT(*) FROM sbtest.sbtest1 FORCE INDEX (k_1) WHERE k >= 0" >/dev/null
	load --time="$warm" >/tmp/warm.log 2>&1 || { cat /tmp/warm.log; die "warm-up load failed"; }
}
# the phase's and after's loads are two sysbench runs back to back, each with its own figures
app_load_start() {
	(load --time="$1" --report-interval=1 >/tmp/sb-phase.log 2>&1 &&
		load --time="$2" --report-interval=1 >/tmp/sb-after.log 2>&1) &
	lpid=$!
	sb_phase=$1
}
app_tps() {
	sed -n 's/^\[ *\([0-9]*\)s \] thds: [0-9]* tps: \([0-9.]*\).*/\1 \2/p' /tmp/sb-phase.log
	sed -n 's/^\[ *\([0-9]*\)s \] thds: [0-9]* tps: \([0-9.]*\).*/\1 \2/p' /tmp/sb-after.log |
		awk -v o="$sb_phase" '{ print $1 + o, $2 }'
}
# sysbench's own transactions per second and 99th percentile of the phase's run, or after's
app_result() {
	f=/tmp/sb-after.log
	[ "$1" = "$t0" ] && f=/tmp/sb-phase.log
	awk '/^ *transactions:/ { gsub(/\(/, "", $3); tps = $3 }
		/^ *99th percentile:/ { p = $3 }
		END { printf "%.1f,%.2f", tps, p }' $f
}
app_stop() { stop_my; }

apps_runs "$@"

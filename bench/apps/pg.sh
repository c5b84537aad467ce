#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pg.sh [-s SCALE] [-w WARM] [-p PHASE] [-a AFTER] [-r RUNS] METHOD...: PostgreSQL 15 under
# pgbench in the bench/apps guest (init.sh), once per method, each run of a method in the same
# boot as the others and the "none" phase its figures are divided by (lib.sh, report.py).
#
# The server runs in /pg, pgbench in /load, the reclaimer in /reclaim. The data directory is on
# ext4 on zram (init.sh): the database's pages are page cache charged to /pg, as on a disk.
# pgbench -i -s SCALE makes the tables once; every run then starts from the same state: the
# database files as made (copied back), read into the page cache by /pg, the server started afresh (its
# shared_buffers empty), shared_buffers filled with pg_prewarm (pgbench_accounts is larger
# than shared_buffers), WARM seconds of load, then PHASE seconds of load with the method
# running and AFTER seconds more without it. The load is skewed: 9 in 10 transactions read one
# account drawn by random_zipfian(1.1), 1 in 10 updates one drawn the same way (pgbench's own
# script, its keys drawn by the same law).
set -u
APP=pg
. ./lib.sh
scale=20
apps_opts "$@"
shift "$shift_n"
[ $# -gt 0 ] || set -- none pageoutd-vaddr pageoutd-paddr

bin=/usr/lib/postgresql/15/bin
data=/data/pg
sock=/run/postgresql
applog=/tmp/pg.log
export TZ=UTC PGHOST=$sock PGUSER=postgres PGDATABASE=postgres
# as the postgres user in /pg
pg() { in_cg pg runuser -u postgres -- "$@"; }
mkdir -p "$sock"
chown postgres:postgres "$sock" /data

# --- the database, once ---
t0=$(date +%s)
pg "$bin/initdb" -D "$data" -U postgres -E UTF8 --locale=C --no-sync >/tmp/initdb.log 2>&1 ||
	{ cat /tmp/initdb.log; die "initdb failed"; }
# what this bench changes from PostgreSQL's defaults: no TCP, the socket in /run, no JIT (the
# root file system leaves LLVM out), 128 MiB of shared_buffers (its default, said here)
cat >>"$data/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$sock'
shared_buffers = 128MB
jit = off
max_connections = 20
CONF
start_pg() {
	pg "$bin/pg_ctl" -D "$data" -w -t 600 -l $applog start >/dev/null || die "the server did not start"
}
stop_pg() {
	pg "$bin/pg_ctl" -D "$data" -w -t 600 -m fast stop >/dev/null || die "the server did not stop"
}
start_pg
in_cg load "$bin/pgbench" -i -s "$scale" -q >/tmp/pgbench-init.log 2>&1 ||
	{ cat /tmp/pgbench-init.log; die "pgbench -i failed"; }
in_cg load "$bin/psql" -q -c "CREATE EXTENSION pg_prewarm" || die "no pg_prewarm"
size=$(in_cg load "$bin/psql" -Atc "SELECT pg_database_size('postgres') / 1024")
acc=$(in_cg load "$bin/psql" -Atc "SELECT pg_total_relation_size('pgbench_accounts') / 1024")
stop_pg
# every run starts from these files: the updates of a run (1 in 10 transactions) and
# autovacuum change the tables, which the next run would otherwise inherit
pg cp -a "$data" "$data.base" || die "cannot copy $data: $(df -h /data | tail -n 1)"
log "database: pgbench scale $scale, ${size} kB (pgbench_accounts with its index ${acc} kB), shared_buffers 128 MiB, made in $(($(date +%s) - t0)) s"

# the load: pgbench's built-in select-only and simple-update transactions with the account
# drawn from random_zipfian(1, naccounts, 1.1) instead of random()
cat >/tmp/zipf-ro.sql <<'SQL'
\set aid random_zipfian(1, 100000 * :scale, 1.1)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
SQL
cat >/tmp/zipf-rw.sql <<'SQL'
\set aid random_zipfian(1, 100000 * :scale, 1.1)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
SQL
chmod 644 /tmp/zipf-*.sql
# the same seed every run: the same accounts drawn in the same order
load() {
	in_cg load "$bin/pgbench" -n -M prepared -c "$clients" -j 2 --random-seed=1 \
		-f /tmp/zipf-ro.sql@9 -f /tmp/zipf-rw.sql@1 "$@"
}

# --- the hooks of lib.sh's runs ---
app_reset() {
	# the files of the database as made, copied by the server's user in /pg: their page cache
	# is /pg's
	pg sh -c "rm -rf $data && cp -a $data.base $data && sync && test -r $data/postgresql.conf" ||
		die "cannot restore $data: $(ls -ln $data $data.base 2>&1 | head -n 8 | tr '\n' ' ')"
	# the copy's page cache (the base read, the files written) out: /pg then holds only the
	# files it reads next, as before the copies
	echo 3 >/proc/sys/vm/drop_caches
	in_cg pg sh -c "find $data -type f -exec cat {} + >/dev/null"
	start_pg
	in_cg load "$bin/psql" -qAt -c "SELECT pg_prewarm('pgbench_accounts')" >/dev/null
	load -T "$warm" >/tmp/warm.log 2>&1 || { cat /tmp/warm.log; die "warm-up load failed"; }
	rm -f /tmp/pgb.*
}
app_load_start() {
	load -T $(($1 + $2)) -P 1 -l --log-prefix=/tmp/pgb >/tmp/run.log 2>&1 &
	lpid=$!
}
app_tps() { sed -n 's/^progress: \([0-9]*\)\.0 s, \([0-9.]*\) tps.*/\1 \2/p' /tmp/run.log; }
# transactions per second and p99 latency (ms) of pgbench's per-transaction logs between two
# epoch times
app_result() {
	cat /tmp/pgb.* | awk -v a="$1" -v b="$2" '{ t = $5 + $6 / 1e6 } t >= a && t < b { print $3 }' |
		sort -n | awk -v s="$(awk -v a="$1" -v b="$2" 'BEGIN { print b - a }')" '{ l[NR] = $1 } END {
			if (NR == 0) { print "0,0"; exit }
			i = int(NR * 0.99); if (i < 1) i = 1
			printf "%.1f,%.2f", NR / s, l[i] / 1000 }'
}
# what the method swapped out of the server is freed with its processes
app_stop() { stop_pg; }

apps_runs "$@"
# the next application does not find this one's page cache in the guest's memory
sync
echo 3 >/proc/sys/vm/drop_caches

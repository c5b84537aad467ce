#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pg.sh [-s SCALE] [-w WARM] [-p PHASE] [-a AFTER] [-r RUNS] METHOD...: PostgreSQL 15 under
# pgbench in the bench/apps guest (init.sh), once per method, each run of a method in the same
# boot as the others and the "none" phase its figures are divided by (run.sh, report.py).
#
# The server runs in /pg, pgbench in /load, the reclaimer in /reclaim (its CPU is that cgroup's
# cpu.stat plus the kdamonds' threads). The data directory is on ext4 on zram (init.sh): the
# database's pages are page cache charged to /pg, as on a disk. pgbench -i -s SCALE makes
# the tables once; every run then starts from the same state: the database files read into the
# page cache by /pg, the server started afresh (its shared_buffers empty), shared_buffers
# filled with pg_prewarm (pgbench_accounts is larger than shared_buffers), WARM seconds of load,
# then PHASE seconds of load with the method running and AFTER seconds more without it. The
# load is skewed: 9 in 10 transactions read one account drawn by random_zipfian(1.1), 1 in 10
# updates one drawn the same way (pgbench's own script, its keys drawn by the same law).
#
# Output lines (parsed by report.py):
#   APPS,pg,METHOD,T,MEM_KB,SWAP_KB,ANON_KB,FILE_KB,SHMEM_KB,MAJFLT   every second, T from the
#       method's start; memory.current, memory.swap.current, memory.stat of /pg
#   APPS_TPS,pg,METHOD,T,TPS   pgbench's own progress report (-P 1), T from the same start
#   APPS_END,pg,METHOD,...      one line per run, fields named by the APPS_HEAD line
set -u
scale=20 warm=20 phase=90 after=20 runs=1 clients=4
while getopts s:w:p:a:r: o; do
	case $o in
	s) scale=$OPTARG ;;
	w) warm=$OPTARG ;;
	p) phase=$OPTARG ;;
	a) after=$OPTARG ;;
	r) runs=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- none pageoutd-vaddr pageoutd-paddr
[ -e /run/pageoutd-vm-guest ] && grep -q pageoutd.vmtest=1 /proc/cmdline ||
	{ echo "pg.sh: not in the bench guest: refusing to run" >&2; exit 2; }

bin=/usr/lib/postgresql/15/bin
data=/data/pg
cg=/sys/fs/cgroup
sock=/run/postgresql
A=/sys/kernel/mm/damon/admin
min_age_s=30 # the kernel's methods: batch.conf's min_age (the shipped vaddr policy)
export TZ=UTC PGHOST=$sock PGUSER=postgres PGDATABASE=postgres
log() { echo "apps: $*"; }
die() {
	echo "apps: $*" >&2
	tail -n 20 /tmp/pg.log 2>/dev/null | sed 's/^/apps:   /' >&2
	exit 1
}
# in CGROUP: run a command in that cgroup
in_cg() {
	_c=$1
	shift
	sh -c 'echo $$ >'"$cg/$_c"'/cgroup.procs && exec "$@"' sh "$@"
}
# in_cg_bg CGROUP: the same in the background, rpid = the command's own pid (the sh execs it).
# A shell function started with & would be a subshell: killing its pid leaves the command
# running, and a reclaimer would outlive its run.
in_cg_bg() {
	_c=$1
	shift
	sh -c 'echo $$ >'"$cg/$_c"'/cgroup.procs && exec "$@"' sh "$@" &
	rpid=$!
}
# as the postgres user in /pg
pg() { in_cg pg runuser -u postgres -- "$@"; }

for c in pg load reclaim; do mkdir -p "$cg/$c"; done
mkdir -p "$sock" /tmp/pconf/conf.d /run/pageoutd
chown postgres:postgres "$sock" /data

# --- the database, once ---
t0=$(date +%s)
pg "$bin/initdb" -D "$data" -U postgres -E UTF8 --locale=C --no-sync >/tmp/initdb.log 2>&1 ||
	{ cat /tmp/initdb.log; die "initdb failed"; }
# what this bench changes from PostgreSQL's defaults: no TCP, the socket in /run, no JIT (the
# root file system leaves LLVM out), 128 MiB of shared_buffers (its default, said here)
cat >>"$data/postgresql.conf" <<EOF
listen_addresses = ''
unix_socket_directories = '$sock'
shared_buffers = 128MB
jit = off
max_connections = 20
EOF
start_pg() {
	pg "$bin/pg_ctl" -D "$data" -w -t 600 -l /tmp/pg.log start >/dev/null || die "the server did not start"
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
log "database: pgbench scale $scale, ${size} kB (pgbench_accounts with its index ${acc} kB), shared_buffers 128 MiB, made in $(($(date +%s) - t0)) s"

# the load: pgbench's built-in select-only and simple-update transactions with the account
# drawn from random_zipfian(1, naccounts, 1.1) instead of random()
cat >/tmp/zipf-ro.sql <<'EOF'
\set aid random_zipfian(1, 100000 * :scale, 1.1)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
EOF
cat >/tmp/zipf-rw.sql <<'EOF'
\set aid random_zipfian(1, 100000 * :scale, 1.1)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
EOF
chmod 644 /tmp/zipf-*.sql
load() {
	in_cg load "$bin/pgbench" -n -M prepared -c "$clients" -j 2 -f /tmp/zipf-ro.sql@9 \
		-f /tmp/zipf-rw.sql@1 "$@"
}

# --- the methods ---
rpid=""
policy() {
	# a shipped example policy with its cgroup line pointed at /pg, nothing else changed
	sed "s|^cgroup *=.*|cgroup = /pg|" "$1" >/tmp/pconf/conf.d/bench.conf
	cp conf/pageoutd.conf /tmp/pconf/pageoutd.conf
	in_cg_bg reclaim ./pageoutd --foreground -c /tmp/pconf/pageoutd.conf -d /tmp/pconf/conf.d \
		2>"/tmp/pageoutd-$run.log"
}
wr() { echo "$2" >"$1" || log "cannot write $2 to $1"; }
# the kernel's own DAMOS pageout, the scheme a damo user writes: nothing accessed in an
# aggregation, idle min_age_s, no quota; vaddr over the server's processes, or paddr over the
# biggest System RAM range with a memcg filter for /pg
damos() {
	wr $A/kdamonds/nr_kdamonds 1
	K=$A/kdamonds/0
	wr $K/contexts/nr_contexts 1
	C=$K/contexts/0
	wr $C/operations "$1"
	wr $C/monitoring_attrs/intervals/sample_us 5000
	wr $C/monitoring_attrs/intervals/aggr_us 100000
	wr $C/monitoring_attrs/intervals/update_us 1000000
	wr $C/monitoring_attrs/nr_regions/min 10
	wr $C/monitoring_attrs/nr_regions/max 1000
	if [ "$1" = vaddr ]; then
		pids=$(cat $cg/pg/cgroup.procs)
		wr $C/targets/nr_targets "$(echo "$pids" | wc -l)"
		i=0
		for p in $pids; do
			wr $C/targets/$i/pid_target "$p"
			i=$((i + 1))
		done
	else
		wr $C/targets/nr_targets 1
		wr $C/targets/0/regions/nr_regions 1
		ram=$(gawk -F'[- :]+' '/^[0-9a-f]+-[0-9a-f]+ : System RAM/ {
			s = strtonum("0x" $1); e = strtonum("0x" $2) + 1
			if (e - s > best) { best = e - s; bs = s; be = e } }
			END { printf "%d %d", bs, be }' /proc/iomem)
		wr $C/targets/0/regions/0/start "${ram% *}"
		wr $C/targets/0/regions/0/end "${ram#* }"
	fi
	wr $C/schemes/nr_schemes 1
	S=$C/schemes/0
	wr $S/action pageout
	wr $S/access_pattern/sz/min 4096
	wr $S/access_pattern/sz/max 18446744073709551615
	wr $S/access_pattern/nr_accesses/min 0
	wr $S/access_pattern/nr_accesses/max 0
	wr $S/access_pattern/age/min $((min_age_s * 10))
	wr $S/access_pattern/age/max 4294967295
	if [ "$1" = paddr ]; then
		wr $S/filters/nr_filters 1
		wr $S/filters/0/type memcg
		wr $S/filters/0/memcg_path /pg
		wr $S/filters/0/matching N
	fi
	wr $K/state on
}
reclaim_param() { wr /sys/module/damon_reclaim/parameters/$1 "$2"; }
# memory.reclaim as senpai and TMO drive it: pct of memory.current per second, held back
# while /pg's memory PSI some avg10 is above 1%
memreclaim() {
	in_cg_bg reclaim sh -c 'while :; do
		p=$(sed -n "s/^some avg10=\([0-9.]*\).*/\1/p" '"$cg"'/pg/memory.pressure)
		if awk -v p="$p" "BEGIN { exit !(p <= 1.0) }"; then
			c=$(cat '"$cg"'/pg/memory.current)
			echo $((c / 100 * '"$1"')) >'"$cg"'/pg/memory.reclaim 2>/dev/null
		fi
		sleep 1
	done'
}
method_start() {
	rpid=""
	case $1 in
	none) ;;
	pageoutd-vaddr) policy conf/batch.conf ;;
	pageoutd-paddr) policy conf/machines.conf ;;
	pageoutd-*) policy "conf/${1#pageoutd-}.conf" ;;
	damos-vaddr) damos vaddr ;;
	damos-paddr) damos paddr ;;
	damon_reclaim)
		reclaim_param min_age $((min_age_s * 1000000))
		reclaim_param wmarks_high 1000
		reclaim_param wmarks_mid 999
		reclaim_param wmarks_low 0
		reclaim_param enabled Y
		;;
	memory.reclaim-*) memreclaim "${1#memory.reclaim-}" ;;
	*) die "unknown method $1" ;;
	esac
}
method_stop() {
	if [ -n "$rpid" ]; then
		kill "$rpid"
		wait "$rpid" 2>/dev/null
	fi
	case $1 in
	damos-*)
		wr $A/kdamonds/0/state off
		wr $A/kdamonds/nr_kdamonds 0
		;;
	damon_reclaim) reclaim_param enabled N ;;
	esac
	# nothing of a method outlives its run: whatever is left in /reclaim is killed, and a
	# kdamond still running is said (the next run's figures would include it)
	echo 1 >$cg/reclaim/cgroup.kill
	i=0
	while [ -s $cg/reclaim/cgroup.procs ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -z "$(pgrep '^kdamond')" ] || log "$run: a kdamond is still running after the method stopped"
}
# CPU of the kdamonds alive now, in ms (CLK_TCK 100): each method's kdamonds are its own
kdamond_ms() {
	for p in $(pgrep '^kdamond'); do cat /proc/$p/stat; done |
		awk '{ t += $14 + $15 } END { print t * 10 }'
}
cpu_usec() { sed -n 's/^usage_usec //p' $cg/reclaim/cpu.stat; }
majflt() { awk '$1 == "pgmajfault" { print $2 }' $cg/pg/memory.stat; }
# pages of /pg brought back after reclaim, by fault or by read(2) (PostgreSQL reads its files
# with pread: a dropped page of the database comes back without a page fault)
refaults() { awk '$1 ~ /^workingset_refault_(anon|file)$/ { n += $2 } END { print n + 0 }' $cg/pg/memory.stat; }
stat_kb() { awk -v k="$1" '$1 == k { print int($2 / 1024) }' $cg/pg/memory.stat; }
# one sample of /pg, T seconds after the method started; one process, so that sampling costs
# the guest little
sample() {
	awk -v t="$1" -v run="$run" '
		FILENAME ~ /memory.current$/ { cur = $1 }
		FILENAME ~ /memory.swap.current$/ { sw = $1 }
		FILENAME ~ /memory.stat$/ { s[$1] = $2 }
		END { printf "APPS,pg,%s,%d,%d,%d,%d,%d,%d,%d\n", run, t, cur / 1024, sw / 1024,
			s["anon"] / 1024, s["file"] / 1024, s["shmem"] / 1024, s["pgmajfault"] }' \
		$cg/pg/memory.current $cg/pg/memory.swap.current $cg/pg/memory.stat
}
# sample every second until T seconds after s0 (wall clock: a slow sample does not stretch it)
sample_until() {
	while t=$(($(date +%s) - s0)) && [ $t -lt "$1" ]; do
		sleep 1
		sample $(($(date +%s) - s0))
	done
}
# transactions and p99 latency (ms) of pgbench's per-transaction logs between two epoch times
lat() {
	cat /tmp/pgb.* | awk -v a="$1" -v b="$2" '{ t = $5 + $6 / 1e6 } t >= a && t < b { print $3 }' |
		sort -n | awk '{ l[NR] = $1 } END {
			if (NR == 0) { print "0,0"; exit }
			i = int(NR * 0.99); if (i < 1) i = 1
			printf "%d,%.2f", NR, l[i] / 1000 }'
}

echo "APPS_HEAD,pg,method,kernel,scale,db_kb,mem_kb,swap_kb,anon_kb,file_kb,shmem_kb,tps,p99_ms,majflt,tps_after,p99_after_ms,majflt_after,refaults,refaults_after,reclaimer_cpu_ms,kdamond_cpu_ms,zram_compr_kb,phase_s"
kernel=$(uname -r | cut -d. -f1-2)
# a method named again, or repeated with -r, is run N is named "METHOD#N"
done_runs=""
r=1
while [ $r -le "$runs" ]; do
	for m in "$@"; do
		n=$(($(echo "$done_runs" | tr ' ' '\n' | grep -cxF "$m") + 1))
		done_runs="$done_runs $m"
		run=$m
		[ $n -gt 1 ] && run="$m#$n"
		log "$run: reset (page cache of the database, server restart, pg_prewarm, ${warm} s of load)"
		in_cg pg sh -c "find $data -type f -exec cat {} + >/dev/null"
		start_pg
		in_cg load "$bin/psql" -qAt -c "SELECT pg_prewarm('pgbench_accounts')" >/dev/null
		load -T "$warm" >/tmp/warm.log 2>&1 || { cat /tmp/warm.log; die "warm-up load failed"; }
		rm -f /tmp/pgb.*
		load -T $((phase + after)) -P 1 -l --log-prefix=/tmp/pgb >/tmp/run.log 2>&1 &
		lpid=$!
		t0=$(date +%s.%N)
		s0=${t0%.*}
		c0=$(cpu_usec)
		f0=$(majflt) w0=$(refaults)
		method_start "$m"
		sample_until "$phase"
		mem=$(($(cat $cg/pg/memory.current) / 1024))
		swap=$(($(cat $cg/pg/memory.swap.current) / 1024))
		anon=$(stat_kb anon) file=$(stat_kb file) shmem=$(stat_kb shmem)
		f1=$(majflt) w1=$(refaults)
		kd=$(kdamond_ms)
		compr=$(awk '{ print int($2 / 1024) }' /sys/block/zram0/mm_stat)
		method_stop "$m"
		c1=$(cpu_usec)
		t1=$(date +%s.%N)
		sample_until $((phase + after))
		wait $lpid || { tail -5 /tmp/run.log; die "the load failed"; }
		t2=$(date +%s.%N)
		f2=$(majflt) w2=$(refaults)
		sed -n 's/^progress: \([0-9]*\)\.0 s, \([0-9.]*\) tps.*/\1 \2/p' /tmp/run.log |
			while read -r s tps; do echo "APPS_TPS,pg,$run,$s,$tps"; done
		l1=$(lat "$t0" "$t1")
		l2=$(lat "$t1" "$t2")
		ph=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
		tps=$(awk -v n="${l1%,*}" -v s="$ph" 'BEGIN { printf "%.1f", n / s }')
		tps2=$(awk -v n="${l2%,*}" -v a="$t1" -v b="$t2" 'BEGIN { printf "%.1f", n / (b - a) }')
		echo "APPS_END,pg,$run,$kernel,$scale,$size,$mem,$swap,$anon,$file,$shmem,$tps,${l1#*,},$((f1 - f0)),$tps2,${l2#*,},$((f2 - f1)),$((w1 - w0)),$((w2 - w1)),$(((c1 - c0) / 1000)),$kd,$compr,$ph"
		[ -f "/tmp/pageoutd-$run.log" ] && tail -n 5 "/tmp/pageoutd-$run.log" | sed 's/^/apps:   pageoutd: /'
		stop_pg
		# what the method swapped out of the server is freed with its processes; zram keeps
		# nothing of this run for the next one
		swapoff /dev/zram0 && swapon /dev/zram0
	done
	r=$((r + 1))
done

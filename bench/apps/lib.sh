# SPDX-License-Identifier: GPL-2.0-or-later
# lib.sh: what every application of bench/apps shares, sourced by its driver (pg.sh, my.sh) in
# the bench guest (init.sh): the reclaim methods, the samples and the loop of runs. The driver
# sets APP (the application's name, also its cgroup /APP) and defines the hooks the loop calls:
#   app_reset           the application started afresh and warmed up, ready for a run
#   app_load_start T1 T2  its load generator in /load in the background for T1 seconds of the
#                       phase and T2 after it, lpid its pid
#   app_tps             "SECOND TPS" lines of the run's per-second throughput, SECOND from the
#                       load's start
#   app_result A B      "TPS,P99_MS": the load's throughput and p99 latency between epoch times
#                       A and B (called for the phase, then for after it)
#   app_stop            the application stopped, its memory (and what was swapped) freed
#
# Output lines (parsed by run.sh and report.py):
#   APPS,APP,RUN,T,MEM_KB,SWAP_KB,ANON_KB,FILE_KB,SHMEM_KB,MAJFLT,ANON_THP_KB   every second, T
#       from the method's start; memory.current, memory.swap.current, memory.stat of /APP
#   APPS_TPS,APP,RUN,T,TPS   the load generator's own per-second report, T from the same start
#   APPS_END,APP,RUN,...     one line per run, fields named by the APPS_HEAD line
cg=/sys/fs/cgroup
A=/sys/kernel/mm/damon/admin
min_age_s=30 # the kernel's methods: batch.conf's min_age (the shipped vaddr policy)
scale=0 warm=15 phase=75 after=15 runs=1 clients=4
log() { echo "apps: $APP: $*"; }
die() {
	echo "apps: $APP: $*" >&2
	[ -n "${applog:-}" ] && tail -n 20 "$applog" 2>/dev/null | sed 's/^/apps:   /' >&2
	exit 1
}
[ -e /run/pageoutd-vm-guest ] && grep -q pageoutd.vmtest=1 /proc/cmdline ||
	{ echo "apps: not in the bench guest: refusing to run" >&2; exit 2; }

# in_cg CGROUP CMD...: run a command in that cgroup
in_cg() {
	_c=$1
	shift
	sh -c 'echo $$ >'"$cg/$_c"'/cgroup.procs && exec "$@"' sh "$@"
}
# in_cg_bg CGROUP CMD...: the same in the background, rpid = the command's own pid (the sh
# execs it). A shell function started with & would be a subshell: killing its pid leaves the
# command running, and a reclaimer would outlive its run.
in_cg_bg() {
	_c=$1
	shift
	sh -c 'echo $$ >'"$cg/$_c"'/cgroup.procs && exec "$@"' sh "$@" &
	rpid=$!
}
for c in "$APP" load reclaim; do mkdir -p "$cg/$c"; done
mkdir -p /tmp/pconf/conf.d /run/pageoutd

# --- the methods ---
rpid=""
# a shipped example policy with its cgroup line pointed at /APP, nothing else changed
policy() {
	sed "s|^cgroup *=.*|cgroup = /$APP|" "$1" >/tmp/pconf/conf.d/bench.conf
	cp conf/pageoutd.conf /tmp/pconf/pageoutd.conf
	in_cg_bg reclaim ./pageoutd --foreground -c /tmp/pconf/pageoutd.conf -d /tmp/pconf/conf.d \
		2>"/tmp/pageoutd-$APP-$run.log"
}
wr() { echo "$2" >"$1" || log "cannot write $2 to $1"; }
# the kernel's own DAMOS pageout, the scheme a damo user writes: nothing accessed in an
# aggregation, idle min_age_s, no quota; vaddr over the application's processes, or paddr over
# the biggest System RAM range with a memcg filter for /APP
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
		pids=$(cat $cg/$APP/cgroup.procs)
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
		wr $S/filters/0/memcg_path /$APP
		wr $S/filters/0/matching N
	fi
	wr $K/state on
}
reclaim_param() { wr /sys/module/damon_reclaim/parameters/$1 "$2"; }
# memory.reclaim as senpai and TMO drive it: pct of memory.current per second, held back
# while /APP's memory PSI some avg10 is above 1%
memreclaim() {
	in_cg_bg reclaim sh -c 'while :; do
		p=$(sed -n "s/^some avg10=\([0-9.]*\).*/\1/p" '"$cg/$APP"'/memory.pressure)
		if awk -v p="$p" "BEGIN { exit !(p <= 1.0) }"; then
			c=$(cat '"$cg/$APP"'/memory.current)
			echo $((c / 100 * '"$1"')) >'"$cg/$APP"'/memory.reclaim 2>/dev/null
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

# --- what is measured ---
# CPU of the kdamonds alive now, in ms (CLK_TCK 100): each method's kdamonds are its own
kdamond_ms() {
	for p in $(pgrep '^kdamond'); do cat /proc/$p/stat; done |
		awk '{ t += $14 + $15 } END { print t * 10 }'
}
cpu_usec() { sed -n 's/^usage_usec //p' $cg/reclaim/cpu.stat; }
majflt() { awk '$1 == "pgmajfault" { print $2 }' $cg/$APP/memory.stat; }
# pages of /APP brought back after reclaim, by fault or by read(2) (a database reads its files
# with pread: a dropped page of it comes back without a page fault)
refaults() { awk '$1 ~ /^workingset_refault_(anon|file)$/ { n += $2 } END { print n + 0 }' $cg/$APP/memory.stat; }
stat_kb() { awk -v k="$1" '$1 == k { n = int($2 / 1024) } END { print n + 0 }' $cg/$APP/memory.stat; }
# huge pages split, and swapped out whole, in the whole guest (/proc/vmstat)
vmstat_n() { awk -v k="$1" '$1 == k { n = $2 } END { print n + 0 }' /proc/vmstat; }
# one sample of /APP, T seconds after the method started; one process, so that sampling costs
# the guest little
sample() {
	awk -v t="$1" -v run="$run" -v app="$APP" '
		FILENAME ~ /memory.current$/ { cur = $1 }
		FILENAME ~ /memory.swap.current$/ { sw = $1 }
		FILENAME ~ /memory.stat$/ { s[$1] = $2 }
		END { printf "APPS,%s,%s,%d,%d,%d,%d,%d,%d,%d,%d\n", app, run, t, cur / 1024, sw / 1024,
			s["anon"] / 1024, s["file"] / 1024, s["shmem"] / 1024, s["pgmajfault"],
			s["anon_thp"] / 1024 }' \
		$cg/$APP/memory.current $cg/$APP/memory.swap.current $cg/$APP/memory.stat
}
# sample every second until T seconds after s0 (wall clock: a slow sample does not stretch it)
sample_until() {
	while t=$(($(date +%s) - s0)) && [ $t -lt "$1" ]; do
		sleep 1
		sample $(($(date +%s) - s0))
	done
}

# apps_runs METHOD...: one run per method (each -r times), each from the state app_reset makes.
# A method named again, or repeated with -r, is run N named "METHOD#N".
apps_runs() {
	echo "APPS_HEAD,$APP,method,kernel,scale,db_kb,mem_kb,swap_kb,anon_kb,file_kb,shmem_kb,tps,p99_ms,majflt,tps_after,p99_after_ms,majflt_after,refaults,refaults_after,reclaimer_cpu_ms,kdamond_cpu_ms,zram_compr_kb,phase_s,anon_thp_start_kb,anon_thp_kb,thp_split,thp_swpout"
	kernel=$(uname -r | cut -d. -f1-2)
	done_runs=""
	r=1
	while [ $r -le "$runs" ]; do
		for m in "$@"; do
			n=$(($(echo "$done_runs" | tr ' ' '\n' | grep -cxF "$m") + 1))
			done_runs="$done_runs $m"
			run=$m
			[ $n -gt 1 ] && run="$m#$n"
			log "$run: reset"
			app_reset
			app_load_start "$phase" "$after"
			t0=$(date +%s.%N)
			s0=${t0%.*}
			c0=$(cpu_usec)
			f0=$(majflt) w0=$(refaults)
			h0=$(stat_kb anon_thp) sp0=$(vmstat_n thp_split_page) so0=$(vmstat_n thp_swpout)
			method_start "$m"
			sample_until "$phase"
			mem=$(($(cat $cg/$APP/memory.current) / 1024))
			swap=$(($(cat $cg/$APP/memory.swap.current) / 1024))
			anon=$(stat_kb anon) file=$(stat_kb file) shmem=$(stat_kb shmem) h1=$(stat_kb anon_thp)
			f1=$(majflt) w1=$(refaults)
			sp1=$(vmstat_n thp_split_page) so1=$(vmstat_n thp_swpout)
			kd=$(kdamond_ms)
			compr=$(awk '{ print int($2 / 1024) }' /sys/block/zram0/mm_stat)
			# what an operator sees of pageoutd at the phase's end
			if [ -f "/tmp/pageoutd-$APP-$run.log" ]; then
				./pageoutctl status
				./pageoutctl status --cgroups
			fi 2>&1 | sed 's/^/apps:   status: /'
			method_stop "$m"
			c1=$(cpu_usec)
			t1=$(date +%s.%N)
			sample_until $((phase + after))
			wait $lpid || die "the load failed"
			t2=$(date +%s.%N)
			f2=$(majflt) w2=$(refaults)
			app_tps | while read -r s tps; do echo "APPS_TPS,$APP,$run,$s,$tps"; done
			l1=$(app_result "$t0" "$t1")
			l2=$(app_result "$t1" "$t2")
			ph=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
			echo "APPS_END,$APP,$run,$kernel,$scale,$size,$mem,$swap,$anon,$file,$shmem,$l1,$((f1 - f0)),$l2,$((f2 - f1)),$((w1 - w0)),$((w2 - w1)),$(((c1 - c0) / 1000)),$kd,$compr,$ph,$h0,$h1,$((sp1 - sp0)),$((so1 - so0))"
			# pageoutd's log: its notices and warnings (gates, conditions) and its last lines
			if [ -f "/tmp/pageoutd-$APP-$run.log" ]; then
				grep -v ': info: ' "/tmp/pageoutd-$APP-$run.log" | head -n 20
				tail -n 5 "/tmp/pageoutd-$APP-$run.log"
			fi | sed 's/^/apps:   pageoutd: /'
			app_stop
			# zram keeps nothing of this run for the next one
			swapoff /dev/zram0 && swapon /dev/zram0
		done
		r=$((r + 1))
	done
}

# apps_opts "$@": the drivers' common options; sets shift_n to the number of words taken
apps_opts() {
	OPTIND=1
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
	shift_n=$((OPTIND - 1))
}

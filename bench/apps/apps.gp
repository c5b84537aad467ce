# gnuplot -e "csv='...'; png='...'; ttl='...'" apps.gp: bench/apps over time, one line per run:
# the application cgroup's memory (memory.current) and pgbench's throughput (5 s means). Each
# method has a colour and a dash of its own, fixed by name below; a method's repeated runs
# ("NAME#2") are thin lines of its colour and dash.
set datafile separator ','
set terminal pngcairo size 1000,800 noenhanced
set output png
names = "none pageoutd-vaddr pageoutd-paddr pageoutd-tuned-vaddr pageoutd-tuned-paddr damos-vaddr damos-paddr damon_reclaim memory.reclaim-2 memory.reclaim-5"
colours = "#000000 #d62728 #1f77b4 #ff7f0e #17becf #2ca02c #9467bd #8c564b #e377c2 #7f7f7f"
# gnuplot's dash strings (none, first, is solid)
dashes = "solid _ - _. -. __. . ..- _.. ._"
base(m) = strstrt(m, "#") ? m[1:strstrt(m, "#") - 1] : m
idx(m, i) = i > words(names) ? words(names) : (word(names, i) eq m ? i : idx(m, i + 1))
col(m) = word(colours, idx(base(m), 1))
dash(m) = word(dashes, idx(base(m), 1))
width(m) = strstrt(m, "#") ? 1 : 2.5
runs = system("tail -n +2 ".csv." | cut -d, -f1 | awk '!seen[$0]++ && !/^none/' | tr '\\n' ' '")
nones = system("tail -n +2 ".csv." | cut -d, -f1 | awk '!seen[$0]++ && /^none/' | tr '\\n' ' '")
set multiplot layout 2,1 title ttl
set key outside right
set grid
set xlabel 'seconds since the method started (it stops at the end of the phase)'
set ylabel 'memory.current of /pg (MiB)'
plot for [m in nones] csv using 2:(strcol(1) eq m ? column(3) / 1024 : NaN) with lines \
	lw width(m) lc rgb col(m) dt 1 title m, \
	for [m in runs] csv using 2:(strcol(1) eq m ? column(3) / 1024 : NaN) with lines \
	lw width(m) lc rgb col(m) dt dash(m) title m
set ylabel 'pgbench tps (5 s trailing mean)'
plot for [m in nones] csv using 2:(strcol(1) eq m && strcol(10) ne "" ? column(10) : NaN) with lines \
	lw width(m) lc rgb col(m) dt 1 title m, \
	for [m in runs] csv using 2:(strcol(1) eq m && strcol(10) ne "" ? column(10) : NaN) with lines \
	lw width(m) lc rgb col(m) dt dash(m) title m
unset multiplot

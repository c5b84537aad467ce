# gnuplot -e "dir=BENCHDIR; app=APP; csv='...'; png='...'; ttl='...'" apps.gp: bench/apps over
# time, one line per run: the application cgroup's memory (memory.current) and the load's
# throughput (5 s means). Each method has the colour and dash of bench/methods.gp; a method's
# repeated runs ("NAME#2") are thin lines of its colour and dash.
set datafile separator ','
set terminal pngcairo size 1000,800 noenhanced
set output png
load dir.'/methods.gp'
runs = system("tail -n +2 ".csv." | cut -d, -f1 | awk '!seen[$0]++ && !/^none/' | tr '\\n' ' '")
nones = system("tail -n +2 ".csv." | cut -d, -f1 | awk '!seen[$0]++ && /^none/' | tr '\\n' ' '")
set multiplot layout 2,1 title ttl
set key outside right
set grid
set xlabel 'seconds since the method started (it stops at the end of the phase)'
set ylabel 'memory.current of /'.app.' (MiB)'
plot for [m in nones] csv using 2:(strcol(1) eq m ? column(3) / 1024 : NaN) with lines \
	lw width(m) lc rgb col(m) dt 1 title key(m), \
	for [m in runs] csv using 2:(strcol(1) eq m ? column(3) / 1024 : NaN) with lines \
	lw width(m) lc rgb col(m) dt dash(m) title key(m)
set ylabel 'transactions/s (5 s trailing mean)'
plot for [m in nones] csv using 2:(strcol(1) eq m && strcol(11) ne "" ? column(11) : NaN) with lines \
	lw width(m) lc rgb col(m) dt 1 title key(m), \
	for [m in runs] csv using 2:(strcol(1) eq m && strcol(11) ne "" ? column(11) : NaN) with lines \
	lw width(m) lc rgb col(m) dt dash(m) title key(m)
unset multiplot

# gnuplot -e "csv='...'; png='...'; ttl='...'" scale.gp: CPU per cycle against target processes
# (with host=1: bench/host/cycle's CSV, pageoutd alone, natively)
set datafile separator ','
set terminal pngcairo size 900,500 noenhanced
set output png
set title ttl
set xlabel 'target processes'
set ylabel 'ms of CPU per cycle'
set logscale x
set grid
set key left top
if (exists("host")) {
	plot csv using 1:3 skip 1 with linespoints lw 2 title 'pageoutd (native)'
} else {
	plot csv using 1:3 skip 1 with linespoints lw 2 title 'pageoutd', \
	     csv using 1:6 skip 1 with linespoints lw 2 title 'kdamond'
}

# gnuplot -e "dir='...'; csv='...'; png='...'; ttl='...'" watch.gp: total CPU (kdamond +
# pageoutd) per cycle against target processes, one line per min_age; fixed intervals dashed,
# intervals derived from min_age solid (watch_plot-K.csv from bench/watch.py)
set datafile separator ','
set terminal pngcairo size 900,520 noenhanced
set output png
set title ttl
set xlabel 'target processes'
set ylabel 'ms of CPU per 5 s cycle (guest)'
set logscale xy
set grid
set key left top
plot csv using 1:2 skip 1 with linespoints lw 2 lc rgb '#1f77b4' dt 2 title 'min_age 3 s, fixed 5 ms / 100 ms', \
     csv using 1:3 skip 1 with linespoints lw 2 lc rgb '#1f77b4' dt 1 title 'min_age 3 s, derived', \
     csv using 1:4 skip 1 with linespoints lw 2 lc rgb '#d62728' dt 2 title 'min_age 30 s, fixed', \
     csv using 1:5 skip 1 with linespoints lw 2 lc rgb '#d62728' dt 1 title 'min_age 30 s, derived', \
     csv using 1:6 skip 1 with linespoints lw 2 lc rgb '#2ca02c' dt 2 title 'min_age 2 min, fixed', \
     csv using 1:7 skip 1 with linespoints lw 2 lc rgb '#2ca02c' dt 1 title 'min_age 2 min, derived'

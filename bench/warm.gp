# gnuplot -e "dir=BENCHDIR; csv='...'; png='...'; ttl='...'" warm.gp: bench warm over time, one line per
# method (its own colour and dash): cold memory reclaimed, and the warm sets' major faults
# per 5 s
set datafile separator ','
set terminal pngcairo size 1000,700 noenhanced
set output png
set multiplot layout 2,1 title ttl
set grid
set key outside right
methods = system("tail -n +2 ".csv." | cut -d, -f1 | uniq | tr '\\n' ' '")
load dir.'/methods.gp'
set ylabel 'cold reclaimed (%)'
set yrange [0:105]
plot for [i=1:words(methods)] csv using 2:(strcol(1) eq word(methods, i) ? column(3) : NaN) with lines \
	lw width(word(methods, i)) lc rgb col(word(methods, i)) dt dash(word(methods, i)) title key(word(methods, i))
set ylabel 'warm-set major faults per 5 s'
set xlabel 'seconds'
set yrange [0:*]
plot for [i=1:words(methods)] csv using (5 * ceil(column(2) / 5.0)):(strcol(1) eq word(methods, i) ? column(4) : 0) smooth frequency with steps \
	lw width(word(methods, i)) lc rgb col(word(methods, i)) dt dash(word(methods, i)) title key(word(methods, i))
unset multiplot

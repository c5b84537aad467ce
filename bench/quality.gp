# gnuplot -e "dir='BENCHDIR'; csv='...'; png='...'; col=N; ttl='...'" quality.gp: one line per
# method over time, in the method's colour and dash (methods.gp)
set datafile separator ','
set terminal pngcairo size 900,500 noenhanced
set output png
set title ttl
set xlabel 'seconds'
set key outside right
set grid
methods = system("tail -n +2 ".csv." | cut -d, -f1 | uniq | tr '\\n' ' '")
load dir.'/methods.gp'
plot for [m in methods] csv using 2:(strcol(1) eq m ? column(col) : NaN) with lines \
	lw width(m) lc rgb col(m) dt dash(m) title key(m)

# bench/methods.gp, loaded by the bench's plots (quality.gp, warm.gp, bench/apps/apps.gp): one
# colour and one dash per reclaim method, fixed by its name so that a method looks the same in
# every plot and no two methods share a colour. A method's repeated runs ("NAME#2") keep its
# colour and dash and are drawn thin (width). A name not listed is grey and solid.
names = "none pageoutd-vaddr pageoutd-paddr pageoutd-tuned-vaddr pageoutd-tuned-paddr pageoutd-vaddr-nolearn damos-vaddr damos-paddr damon_reclaim damon_reclaim-500ms memory.reclaim-2 memory.reclaim-2% memory.reclaim-5% memory.reclaim-10%"
colours = "#000000 #d62728 #1f77b4 #ff7f0e #17becf #bcbd22 #2ca02c #9467bd #8c564b #c49c94 #e377c2 #e377c2 #f7b6d2 #7b4173 #7f7f7f"
# gnuplot's dash types: 1 solid, 2 dashes, 3 dots, 4 dash-dot, 5 dash-dot-dot
dashes = "1 1 1 2 2 4 2 4 5 4 3 3 5 4 1"
base(m) = strstrt(m, "#") ? m[1:strstrt(m, "#") - 1] : m
idx(m, i) = i > words(names) ? words(names) + 1 : (word(names, i) eq m ? i : idx(m, i + 1))
col(m) = word(colours, idx(base(m), 1))
dash(m) = int(word(dashes, idx(base(m), 1)))
width(m) = strstrt(m, "#") ? 1 : 2.5
# the legend names a method once: its repeated runs share its colour and dash, untitled
key(m) = strstrt(m, "#") ? "" : m

#!/usr/bin/env bash
# The two parallel loops of the anchor suite, map-reduce 50 M and
# Mandelbrot 1000, in both leaf forms, beside the anchors' Rust, alternated
# round by round on one machine:
#
#   - the plain leaves (workloads "mapreduce" and "mandel"): the source the
#     anchors fix, compiled by Go;
#   - the leaves written the way LLVM compiles rayon's ("mapreduce-mulhi":
#     the remainder by multiply-high, unrolled; "mandel-unrolled": the
#     inner loop unrolled by two), so that go-seq runs level with rust-seq
#     and what is left between go-ws and rayon is the schedulers'.
#
#   scripts/loops-rayon.sh WORKSTEAL-BINARY RUST-ANCHORS-BINARY
#
# RUST-ANCHORS-BINARY is the anchor suite's Rust program (anchors/run.sh
# builds it as bin/rust-anchors). Each round runs every cell once, as one
# process of K timed runs (default 5) after a warm-up, and takes the
# median; odd rounds run Go first, even rounds Rust first. The last lines
# give, per workload, the median over the rounds of go-ws / rayon at 2
# threads and of go-seq / rust-seq at 1. ROUNDS (default 6), K.
set -euo pipefail
[[ $# -eq 2 ]] || { echo "usage: $0 WORKSTEAL-BINARY RUST-ANCHORS-BINARY" >&2; exit 2; }
ws=$1 rust=$2
for b in "$ws" "$rust"; do [[ -x $b ]] || { echo "$0: $b is not an executable" >&2; exit 2; }; done
K=${K:-5} ROUNDS=${ROUNDS:-6}
med() { awk '{print $5}' | sort -n | awk '{a[NR] = $1} END {printf "%.2f", a[int((NR + 1) / 2)]}'; }
# cell LANG IMPL WORKLOAD SIZE THREADS: one process, its median.
cell() {
	if [[ $1 == go ]]; then "$ws" bench cell "$2" "$3" "$4" "$5" "$K" 1 | med
	else "$rust" "$2" "$3" "$4" "$5" "$K" 1 | med; fi
}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "start $(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$ROUNDS"); do
	for wl in "mapreduce mapreduce 50000000" "mapreduce-mulhi mapreduce 50000000" "mandel mandel 1000" "mandel-unrolled mandel 1000"; do
		set -- $wl # our workload, the anchors' workload, size
		if ((r % 2)); then
			gs=$(cell go go-seq "$1" "$3" 1) rs=$(cell rust rust-seq "$2" "$3" 1)
			gw=$(cell go go-ws "$1" "$3" 2) ry=$(cell rust rust-rayon "$2" "$3" 2)
		else
			rs=$(cell rust rust-seq "$2" "$3" 1) gs=$(cell go go-seq "$1" "$3" 1)
			ry=$(cell rust rust-rayon "$2" "$3" 2) gw=$(cell go go-ws "$1" "$3" 2)
		fi
		echo "round $r $1: 1T go-seq $gs rust-seq $rs | 2T go-ws $gw rayon $ry | load $(cut -d' ' -f1 /proc/loadavg)" | tee -a "$out"
	done
done
echo "end $(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1-3 /proc/loadavg)"
# Per workload: the median of the per-round ratios, their range, and the
# rounds where go-ws was at or under rayon.
median() { sort -n | awk '{a[NR] = $1} END {printf "%.3f", (a[int((NR + 1) / 2)] + a[int(NR / 2) + 1]) / 2}'; }
for w in mapreduce mapreduce-mulhi mandel mandel-unrolled; do
	par=$(awk -v w="$w:" '$3 == w {print $12 / $14}' "$out")
	seq=$(awk -v w="$w:" '$3 == w {print $6 / $8}' "$out")
	echo "$w: 2T go-ws/rayon median $(median <<<"$par") ($(sort -n <<<"$par" | head -1 | xargs printf %.3f)-$(sort -n <<<"$par" | tail -1 | xargs printf %.3f)), at or under in $(awk '$1 <= 1' <<<"$par" | wc -l) of $(wc -l <<<"$par"); 1T go-seq/rust-seq median $(median <<<"$seq")"
done

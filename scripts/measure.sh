#!/usr/bin/env bash
# The measurements docs/measured.md and the sim README quote, in one run, from
# binaries built beforehand, so that they can be taken on a machine without
# Go (a lent many-core machine) and compared within one run:
#
#   1. the runtime predicted by the simulator (sim --predict) at 1 and 2
#      workers: fib 30, nqueens 12, UTS b0=2000;
#   2. cluster throughput: 10,000 trivial Go-handler tasks through the
#      embedded server with 2 workers (BenchmarkThroughput), on all CPUs
#      and pinned to 2 CPUs when taskset exists;
#   3. what authentication and TLS cost (BenchmarkSecurityCost: plain and
#      nkeys + mutual TLS tiers side by side, alternating batches);
#   4. the simulator's scale (10^6 tasks x 1,024 workers, BenchmarkScale);
#   5. speedup curves (scripts/scaling.sh) beside rayon and oneTBB when the
#      anchor suite's binaries rust-anchors and cpp-anchors are in BIN (a
#      shared library they need, such as libtbb.so.12, in BIN/lib);
#   6. the time per fork of fib at one worker by size (worksteal and plain
#      recursion), which the prediction's calibration assumes constant;
#   7. when BIN holds cluster-old.test (an earlier build), step 2 for it and
#      this build alternated, three rounds.
#
#   BIN=devbin ONLY_BUILD=1 scripts/measure.sh   # build (here, with Go)
#   BIN=devbin OUT=results scripts/measure.sh    # measure (anywhere)
#
# Settings (environment): BIN the binaries' folder; OUT where the full logs
# go (default: a temporary folder); STEPS the steps to run (default
# "1 2 3 4 5 6 7"); REPS timed runs per cell of step 5 (default 3);
# PREDICT_ROUNDS how many times step 1 runs (default 1).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -d /usr/local/go/bin ]]; then export PATH=/usr/local/go/bin:$PATH; fi
BIN=$(realpath -m "${BIN:?name the binaries folder: BIN=...}")
OUT=$(realpath -m "${OUT:-$(mktemp -d)}")
STEPS=${STEPS:-"1 2 3 4 5 6 7"}
mkdir -p "$BIN" "$OUT"

if [[ ${ONLY_BUILD:-0} == 1 ]]; then
	flags=(-trimpath -ldflags=-s\ -w)
	go build "${flags[@]}" -o "$BIN/worksteal" ./cmd/worksteal
	go test -c "${flags[@]}" -o "$BIN/bench.test" ./internal/bench
	go test -c "${flags[@]}" -o "$BIN/cluster.test" ./cluster
	go test -c "${flags[@]}" -o "$BIN/sim.test" ./sim
	exit 0
fi
for f in "$BIN"/*.xz; do [[ -e $f ]] && xz -d -f "$f"; done
chmod +x "$BIN"/* 2>/dev/null || true
if [[ -d $BIN/lib ]]; then export LD_LIBRARY_PATH=$BIN/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}; fi

load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime; }
step() { [[ " $STEPS " == *" $1 "* ]]; }
echo "machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')), load average $(load)"

if step 1; then
	echo
	echo "== 1. sim --predict (fastest of 9 runs each), load $(load)"
	for round in $(seq "${PREDICT_ROUNDS:-1}"); do
		for w in fib:30 nqueens:12 uts:2000; do
			"$BIN/worksteal" sim --predict "$w" --reps 9 2>&1 | tee "$OUT/predict-${w%%:*}-$round.txt"
		done
	done
fi

bench() { # PACKAGE-DIR BINARY ARGS...: runs a test binary in its package's folder
	local dir=$1 bin=$2
	shift 2
	(cd "$dir" && "$BIN/$bin" -test.run '^$' "$@")
}

if step 2; then
	echo
	echo "== 2. cluster throughput, 10,000 tasks, 2 workers (BenchmarkThroughput), load $(load)"
	WS_BENCH_TASKS=10000 bench cluster cluster.test -test.bench 'Throughput$' -test.benchtime 3x -test.count 5 2>&1 |
		tee "$OUT/throughput.txt" | grep -E '^(Benchmark|ok|FAIL|---)'
	if command -v taskset >/dev/null; then
		echo "-- pinned to CPUs 0-1 (taskset -c 0,1)"
		WS_BENCH_TASKS=10000 taskset -c 0,1 bash -c "cd cluster && '$BIN/cluster.test' -test.run '^\$' -test.bench 'Throughput\$' -test.benchtime 3x -test.count 5" 2>&1 |
			tee "$OUT/throughput-2cpu.txt" | grep -E '^(Benchmark|ok|FAIL|---)'
	fi
fi

if step 3; then
	echo
	echo "== 3. authentication + TLS cost (BenchmarkSecurityCost, 10 alternating rounds), load $(load)"
	WS_BENCH_TASKS=10000 bench cluster cluster.test -test.bench 'SecurityCost' -test.benchtime 10x 2>&1 |
		tee "$OUT/security.txt" | grep -E '^(Benchmark|ok|FAIL|---)'
fi

if step 4; then
	echo
	echo "== 4. simulator scale (BenchmarkScale), load $(load)"
	bench sim sim.test -test.bench 'Scale' -test.benchtime 3x 2>&1 | tee "$OUT/scale.txt" | grep -E '^(Benchmark|ok|FAIL|---)'
fi

if step 5; then
	echo
	echo "== 5. speedup curves (scripts/scaling.sh), load $(load)"
	BIN=$BIN ANCHORS=$BIN REPS=${REPS:-3} scripts/scaling.sh 2>&1 | tee "$OUT/scaling.txt"
fi
if step 6; then
	echo
	echo "== 6. fib: fastest of 9 runs by size at one worker, ns per call, load $(load)"
	printf '| n | calls | ws ms | ws ns/call | go-seq ms | go-seq ns/call |\n|---|---|---|---|---|---|\n'
	for n in 25 27 29 30 31 33; do
		calls=$(awk -v n="$n" 'BEGIN { a = 0; b = 1; for (i = 0; i < n + 1; i++) { t = a + b; a = b; b = t } print a - 1 }')
		row="| $n | $calls |"
		for impl in ws go-seq; do
			ms=$("$BIN/worksteal" bench cell "$impl" fib "$n" 1 9 | awk '$1 !~ /^#/ { print $5 }' | sort -n | head -1)
			row+=" $ms | $(awk -v m="$ms" -v c="$calls" 'BEGIN { printf "%.1f", m * 1e6 / c }') |"
		done
		echo "$row"
	done | tee "$OUT/fib-sizes.txt"
fi

if step 7 && [[ -x $BIN/cluster-old.test ]]; then
	echo
	echo "== 7. BenchmarkThroughput, cluster-old.test and cluster.test alternated, load $(load)"
	for round in 1 2 3; do
		for t in cluster-old.test cluster.test; do
			printf '%-17s ' "$t"
			WS_BENCH_TASKS=10000 bench cluster "$t" -test.bench 'Throughput$' -test.benchtime 3x 2>&1 | grep -E '^(Benchmark|FAIL|---)'
		done
	done | tee "$OUT/throughput-ab.txt"
fi
echo
echo "done, load $(load)"

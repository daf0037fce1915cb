#!/usr/bin/env bash
# Speedup curves of the runtime at 1, 2, 4, 8 and 16 workers: fib, nqueens
# and UTS (fork-join, a task at every call), and sort, mapreduce and mandel
# (par.Sort and par.ReduceRange); beside rayon and oneTBB when the anchor
# suite's binaries are present. Every cell, loops included, goes through
# "worksteal bench cell", the anchors' own protocol.
#
#   scripts/scaling.sh                 # build here, then measure
#   QUICK=1 WORKERS="1 2" scripts/scaling.sh
#   BIN=/path scripts/scaling.sh       # measure with binaries built earlier
#
# Settings (environment):
#   WORKERS  worker counts (default "1 2 4 8 16")
#   REPS     timed runs per cell, the median is reported (default 3)
#   QUICK=1  small sizes (fib 25, nqueens 10, uts 600, sort 10^5,
#            mapreduce 10^6, mandel 200): a smoke test
#   BIN      a folder with worksteal and bench.test (built by this script
#            when missing; to carry to a machine without Go or network:
#            `BIN=out ONLY_BUILD=1 scripts/scaling.sh`, copy out/ and the
#            script, run `BIN=out scripts/scaling.sh` there)
#   ANCHORS  a folder with the anchor suite's binaries rust-anchors and
#            cpp-anchors (default: ../shared/anchors/bin); missing ones are
#            left out of the table
#
# Each cell is one process per workload size and worker count, with the
# anchors' protocol (input built untimed, one warm-up, REPS timed runs);
# speedups are against the same implementation at 1 worker. The script
# prints the machine and its load with the numbers: run it on an otherwise
# idle machine and compare within one run. Sized to take about 8 minutes on
# 16 cores (fib 35, nqueens 13, UTS b0=6000 at the anchor sizes).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -d /usr/local/go/bin ]]; then export PATH=/usr/local/go/bin:$PATH; fi

WORKERS=${WORKERS:-"1 2 4 8 16"}
REPS=${REPS:-3}
BIN=${BIN:-$(mktemp -d)}
ANCHORS=${ANCHORS:-../shared/anchors/bin}
if [[ ${QUICK:-0} == 1 ]]; then
	WORKLOADS=("fib 25" "nqueens 10" "uts 600" "sort 100000" "mapreduce 1000000" "mandel 200")
else
	WORKLOADS=("fib 35" "nqueens 13" "uts 6000" "sort 10000000" "mapreduce 50000000" "mandel 1000")
fi

mkdir -p "$BIN"
if [[ ! -x $BIN/worksteal || ! -x $BIN/bench.test ]]; then
	echo "== building into $BIN"
	go build -o "$BIN/worksteal" ./cmd/worksteal
	go test -c -o "$BIN/bench.test" ./internal/bench
fi
if [[ ${ONLY_BUILD:-0} == 1 ]]; then exit 0; fi

load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime | sed 's/.*average[s]*: //')
cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || uname -m)
echo "machine: $(nproc) CPUs ($cpu), load average $load; workers: $WORKERS; median of $REPS"
max=0
for n in $WORKERS; do ((n > max)) && max=$n; done
if ((max > $(nproc))); then
	echo "note: $max workers on $(nproc) CPUs: the larger counts measure oversubscription, not speedup"
fi

# impls: ws always; rust-rayon and cpp-tbb when their binaries exist.
IMPLS=(ws)
declare -A CMD=([ws]="$BIN/worksteal bench cell")
if [[ -x $ANCHORS/rust-anchors ]]; then IMPLS+=(rust-rayon); CMD[rust-rayon]="$ANCHORS/rust-anchors"; fi
if [[ -x $ANCHORS/cpp-anchors ]]; then IMPLS+=(cpp-tbb); CMD[cpp-tbb]="$ANCHORS/cpp-anchors"; fi
if ((${#IMPLS[@]} == 1)); then echo "(no anchor binaries in $ANCHORS: worksteal only)"; fi

# cell IMPL WORKLOAD SIZE THREADS: median ms of REPS timed runs. A failing
# or wrong run (the programs exit non-zero) stops the script.
cell() {
	local out
	if ! out=$(${CMD[$1]} "$1" "$2" "$3" "$4" "$REPS" 2>&1); then
		echo "cell $*: failed:" >&2
		echo "$out" >&2
		exit 1
	fi
	awk '$1 !~ /^#/ && NF >= 6 { print $5 }' <<<"$out" | sort -n | awk '{ a[NR] = $1 } END { if (NR == 0) exit 1; print a[int((NR + 1) / 2)] }'
}

# table NAME: prints the rows collected in MS[impl,workers].
declare -A MS
table() {
	printf '\n%s\n' "$1"
	printf '| workers |'
	for i in "${IMPLS[@]}"; do printf ' %s ms | speedup |' "$i"; done
	if [[ -n ${MS[rust-rayon,1]:-} ]]; then printf ' ws / rayon |'; fi
	printf '\n|---|'
	for _ in "${IMPLS[@]}"; do printf -- '---|---|'; done
	if [[ -n ${MS[rust-rayon,1]:-} ]]; then printf -- '---|'; fi
	printf '\n'
	for n in $WORKERS; do
		printf '| %7s |' "$n"
		for i in "${IMPLS[@]}"; do
			local ms=${MS[$i,$n]:-} base=${MS[$i,1]:-}
			if [[ -z $ms ]]; then printf ' – | – |'; continue; fi
			printf ' %s | %s |' "$ms" "$(awk -v b="$base" -v m="$ms" 'BEGIN { if (b == "" || m <= 0) print "–"; else printf "%.2f", b / m }')"
		done
		if [[ -n ${MS[rust-rayon,1]:-} ]]; then
			printf ' %s |' "$(awk -v w="${MS[ws,$n]:-0}" -v r="${MS[rust-rayon,$n]:-0}" 'BEGIN { if (r <= 0) print "–"; else printf "%.2f", w / r }')"
		fi
		printf '\n'
	done
}

for wl in "${WORKLOADS[@]}"; do
	read -r w size <<<"$wl"
	MS=()
	for n in $WORKERS; do
		for i in "${IMPLS[@]}"; do MS[$i,$n]=$(cell "$i" "$w" "$size" "$n"); done
	done
	table "== $w $size"
done

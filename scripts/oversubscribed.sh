#!/usr/bin/env bash
# More workers than CPUs: UTS b0=6000 and fib 35 at 2 threads and at
# THREADS_HI (default 16) threads (GOMAXPROCS and workers alike, so the OS
# time-slices the Ps), worksteal as built beside rayon, and beside any
# variant builds of worksteal, alternated round by round with the order of
# the implementations rotated each round (so no build always runs first).
#
#   scripts/oversubscribed.sh WORKSTEAL-BINARY RUST-ANCHORS-BINARY [VARIANT-BINARY ...]
#
# A variant is a worksteal binary built from this checkout with one thing
# changed (e.g. internal/policyrt/values.go's DefaultIdle or SpinLimit); it
# is named in the table by its file name. Each cell is one process of K
# timed runs (default 5) after a warm-up; the table gives, per
# implementation, workload and thread count, the median over every run of
# every round, and the ratio of the high thread count to 2. ROUNDS
# (default 4), K, THREADS_HI. docs/measured.md (stop 53) has a run.
set -euo pipefail
[[ $# -ge 2 ]] || { echo "usage: $0 WORKSTEAL-BINARY RUST-ANCHORS-BINARY [VARIANT-BINARY ...]" >&2; exit 2; }
for b in "$@"; do [[ -x $b ]] || { echo "$0: $b is not an executable" >&2; exit 2; }; done
ws=$1 rust=$2
shift 2
K=${K:-5} ROUNDS=${ROUNDS:-4} HI=${THREADS_HI:-16}
impls=("go-ws:$ws" "rust-rayon:$rust")
for v in "$@"; do impls+=("$(basename "$v"):$v"); done
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
# cell NAME BINARY WORKLOAD SIZE THREADS: one process, its lines renamed NAME.
cell() {
	if [[ $1 == rust-rayon ]]; then "$2" rust-rayon "$3" "$4" "$5" "$K" 1
	else "$2" bench cell go-ws "$3" "$4" "$5" "$K" 1; fi | awk -v n="$1" 'NF >= 5 { $1 = n; print }'
}
n=${#impls[@]}
for round in $(seq "$ROUNDS"); do
	echo "round $round, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
	for wl in "uts 6000" "fib 35"; do
		read -r w size <<<"$wl"
		for t in 2 "$HI"; do
			for i in $(seq 0 $((n - 1))); do
				e=${impls[$(((i + round) % n))]}
				cell "${e%%:*}" "${e#*:}" "$w" "$size" "$t" >>"$raw"
			done
		done
	done
done
printf '| implementation | workload | 2 threads, median ms | %s threads | %s ÷ 2 |\n|---|---|---|---|---|\n' "$HI" "$HI"
for e in "${impls[@]}"; do
	name=${e%%:*}
	for w in uts fib; do
		m() { awk -v i="$name" -v w="$w" -v t="$1" '$1 == i && $2 == w && $4 == t { print $5 }' "$raw" |
			sort -g | awk '{ a[NR] = $1 } END { if (NR) printf "%.1f", (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
		a=$(m 2) b=$(m "$HI")
		awk -v i="$name" -v w="$w" -v a="$a" -v b="$b" 'BEGIN { printf "| %s | %s | %s | %s | %.3f |\n", i, w, a, b, (a > 0 ? b / a : 0) }'
	done
done

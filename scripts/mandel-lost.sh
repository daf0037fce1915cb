#!/usr/bin/env bash
# Where the workers' time outside the leaves goes in Mandelbrot 1000 at 2
# workers: worksteal (par.ReduceRange, as go-ws), a Go counter with no
# scheduler, and rayon, every row timed inside the run the same way
# (internal/bench BenchmarkMandelLost and scripts/mandel-lost-rayon),
# alternating which language runs first round by round.
#
#   scripts/mandel-lost.sh [OUT-FILE]
#
# ROUNDS (default 8) rounds, each one process per language of RUNS (default
# 11) runs after a warm-up; WORKERS (default 2). The benchmark lines go to
# OUT-FILE (default mandel-lost.txt), Go's and Rust's of a round together
# under the Go run's configuration lines, so that
#
#   benchstat -col /impl OUT-FILE
#
# compares them; without benchstat, the medians over the rounds below are
# printed too. Builds both sides first (cargo, offline, as the anchors).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out=${1:-mandel-lost.txt}
ROUNDS=${ROUNDS:-8} RUNS=${RUNS:-11} WORKERS=${WORKERS:-2}
for v in ROUNDS RUNS WORKERS; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "$0: $v=${!v} is not a positive count" >&2; exit 2; }
done
[[ $WORKERS -ge 2 ]] || { echo "$0: WORKERS=$WORKERS: the benchmark needs at least 2" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go test -c -o "$tmp/bench.test" ./internal/bench)
(cd "$here/mandel-lost-rayon" && cargo build --release --offline -q)
rayon=$here/mandel-lost-rayon/target/release/mandel-lost-rayon
gorun() { (cd "$root/internal/bench" && WS_BENCH_WORKERS=$WORKERS "$tmp/bench.test" -test.run '^$' -test.bench 'MandelLost$' -test.benchtime "$((RUNS + 1))x"); }
: >"$out"
echo "start $(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$ROUNDS"); do
	if ((r % 2)); then gorun >"$tmp/go"; "$rayon" "$WORKERS" "$RUNS" >"$tmp/rust"
	else "$rayon" "$WORKERS" "$RUNS" >"$tmp/rust"; gorun >"$tmp/go"; fi
	grep -v '^\(PASS\|ok \)' "$tmp/go" >>"$out"
	cat "$tmp/rust" >>"$out"
	echo "round $r done, load $(cut -d' ' -f1 /proc/loadavg)"
done
echo "end $(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1-3 /proc/loadavg)"
# Medians over the rounds, per implementation and metric.
awk '/^BenchmarkMandelLost/ {
	split($1, p, "/"); impl = p[2]
	for (i = 3; i < NF; i += 2) { k = impl SUBSEP $(i+1); v[k, ++n[k]] = $i; units[$(i+1)] = 1; impls[impl] = 1 }
}
END {
	for (impl in impls) {
		line = impl
		for (u in units) {
			k = impl SUBSEP u; m = n[k]
			for (i = 1; i <= m; i++) a[i] = v[k, i]
			for (i = 2; i <= m; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
			med = (m % 2) ? a[(m+1)/2] : (a[m/2] + a[m/2+1]) / 2
			if (u != "ns/op") line = line sprintf("  %s %.3f", u, med)
		}
		print line
	}
}' "$out" | sort

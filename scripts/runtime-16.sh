#!/usr/bin/env bash
# Issue 30's measurements on a lent many-core machine (16 cores), in one
# run, from binaries built beforehand here — no Go toolchain, no network
# and no cargo needed there. Everything goes to $OUT, step by step, so a
# run cut short keeps what it finished.
#
#   # here (with Go, cargo, and rayon from Debian's registry; the anchors
#   # at ANCHORS_SRC, default /work/shared/anchors:
#   # apt-get install librust-rayon-dev), about 2 minutes:
#   BIN=/tmp/bin16 ONLY_BUILD=1 scripts/runtime-16.sh
#   # carry BIN and this checkout's scripts/ to the machine, then there:
#   BIN=/path/bin16 OUT=/path/out scripts/runtime-16.sh      # ~6 min on 16 cores
#
# A smoke test of the whole script on a small machine (2 cores, ~1 min):
#   BIN=/tmp/bin16 OUT=/tmp/out16 COARSE_P=2 COARSE_ROUNDS=1 SEEDS=2 \
#     PREDICT_W=2 WORKERS="1 2" REPS=1 QUICK=1 ONE_ROUNDS=1 \
#     ONE_WORKLOADS="fib 25,nqueens 10" BENCH_COUNT=1 scripts/runtime-16.sh
#
# Steps (STEPS, default "1 2 3 4 5 6 7"), run in this order, of value:
#   1. speedup curves at 1, 2, 4, 8, 16 workers (WORKERS), fib 35,
#      nqueens 13, UTS b0=6000 and the loops, beside rayon
#      (scripts/scaling.sh, REPS default 5);
#   2. coarse leaves (issue 30 part 2): a binary Join tree over 64
#      heavy-tailed leaves of 0.2-8 ms that never poll ("coarse") and that
#      poll ("coarse-poll"), seeds 1-3, at 2 and 16 workers (COARSE_P):
#      worksteal (go-ws), a goroutine per fork (go-wg) and rayon::join
#      (rust-rayon, scripts/coarse-rayon), rounds alternated (COARSE_ROUNDS,
#      default 5); efficiency = median sequential time / (P x median time),
#      each against its own language's sequential run;
#   3. the same tree by scripts/coarse-seeds.sh's protocol (seeds 1-12,
#      the median of 12 runs in one process each, go-ws and rayon
#      interleaved per seed) at each of COARSE_P: the sums of medians;
#   4. one worker against sequential (issue 30 part 1): fib 30 and 35
#      (ONE_WORKLOADS), go-seq (ours and the anchors' when
#      go-anchors is in BIN), go-ws, rust-seq and rust-rayon at 1 thread,
#      ONE_ROUNDS (default 3) alternated processes of 7 timed runs;
#      ns/join = (T1 - T1(seq)) / forks, forks from `go-anchors stats`;
#   5. the part-4 benchmarks (BENCH_COUNT, default 6): par.SortFunc beside
#      slices.SortFunc at 1, 2 and NumCPU workers (par.test), the I/O
#      batch beside goroutines and errgroup (bench.test), the
#      neighbour's share after a resize, and UTS on a worker per CPU with
#      the stall monitor on and off, with its stack dumps (root.test);
#   6. sim --predict at PREDICT_W (16) workers (fib:30, nqueens:12,
#      uts:2000): the simulator's prediction from this machine's
#      calibration beside the runtime measured here;
#   7. the hungry window's rule (PROTOCOL.md "Hungry thieves"): UTS
#      b0=6000, fib 35 and nqueens 13 at QUIET_W (16) workers, as built
#      (policyrt.QuietBeats 1, EagerDepth 6, EagerWidens off) against
#      worksteal-quiet64 (QuietBeats 64), worksteal-eager0 (EagerDepth 0:
#      no eager levels) and worksteal-eagerwide (EagerWidens on), the
#      last two the simulator's leads for UTS at 16 and 64 workers
#      (sim/README.md "UTS"; EagerWidens cost fib 35 10.7 % at 2
#      workers), each built by
#      ONLY_BUILD from this checkout with that one constant changed,
#      QUIET_ROUNDS (default 4) alternated rounds of 5 runs per process,
#      and each one's UTS steals.
# Everything is printed and kept in $OUT/log.txt, the raw lines in
# $OUT/*-raw.txt (at most 8 files come back from a lent machine).
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
	go test -c "${flags[@]}" -o "$BIN/par.test" ./par
	go test -c "${flags[@]}" -o "$BIN/root.test" .
	# the anchors' Go programs (go-seq, and `stats` for the fork counts)
	(cd "${ANCHORS_SRC:-/work/shared/anchors}/go" && go build "${flags[@]}" -o "$BIN/go-anchors" ./anchors)
	# rayon: the anchors' binary (fork-join) and the coarse tree's, each
	# built from a writable copy, offline, against Debian's crates.
	tmp=$(mktemp -d)
	cp -r "${ANCHORS_SRC:-/work/shared/anchors}/rust" "$tmp/anchors-rust"
	(cd "$tmp/anchors-rust" && cargo build --release --offline -q)
	cp "$tmp/anchors-rust/target/release/anchors" "$BIN/rust-anchors"
	cp -r scripts/coarse-rayon "$tmp/coarse-rayon"
	(cd "$tmp/coarse-rayon" && cargo build --release --offline -q)
	cp "$tmp/coarse-rayon/target/release/coarse-rayon" "$BIN/coarse-rayon"
	# step 7's other sides: this checkout with one constant of
	# internal/policyrt/heartbeat.go changed
	variant() { # NAME FROM TO
		mkdir "$tmp/$1"
		tar --exclude=./.git -cf - . | tar -xf - -C "$tmp/$1"
		sed -i "s/^\t$2\$/\t$3/" "$tmp/$1/internal/policyrt/heartbeat.go"
		grep -q "^	$3\$" "$tmp/$1/internal/policyrt/heartbeat.go" || {
			echo "internal/policyrt/heartbeat.go has no '$2' line to change: update step 7's build" >&2
			exit 1
		}
		(cd "$tmp/$1" && go build "${flags[@]}" -o "$BIN/worksteal-$1" ./cmd/worksteal)
	}
	variant quiet64 'QuietBeats = 1' 'QuietBeats = 64'
	variant eager0 'EagerDepth = 6' 'EagerDepth = 0'
	variant eagerwide 'EagerWidens = false' 'EagerWidens = true'
	rm -rf "$tmp"
	ls -l "$BIN"
	exit 0
fi
chmod +x "$BIN"/* 2>/dev/null || true
exec > >(tee -a "$OUT/log.txt") 2>&1

load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime; }
step() { [[ " $STEPS " == *" $1 "* ]]; }
t0=$SECONDS
header() { echo; echo "== $1, at $((SECONDS - t0)) s, load $(load)"; }
{
	echo "machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')), load average $(load)"
	lscpu 2>/dev/null | grep -E '^(Thread|Core|Socket|NUMA node\(s\)|CPU max MHz|L3)' || true
	echo "top processes:"; ps -eo pcpu,comm --sort=-pcpu 2>/dev/null | head -6 || true
} | tee "$OUT/machine.txt"

# median of the numbers on stdin
median() { sort -n | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }'; }
P_LIST=${COARSE_P:-2 16}

if step 1; then
	header "1. speedup curves (scripts/scaling.sh, median of ${REPS:-5})"
	BIN=$BIN ANCHORS=$BIN REPS=${REPS:-5} scripts/scaling.sh
fi

if step 2; then
	header "2. coarse leaves: efficiency = seq / (P x time), medians of ${COARSE_ROUNDS:-5} alternated rounds"
	raw=$OUT/coarse-raw.txt
	: >"$raw"
	for round in $(seq "${COARSE_ROUNDS:-5}"); do
		for seed in 1 2 3; do
			"$BIN/worksteal" bench cell go-seq coarse "$seed" 1 1 >>"$raw"
			[[ -x $BIN/coarse-rayon ]] && "$BIN/coarse-rayon" rust-seq coarse "$seed" 1 1 >>"$raw"
			for p in $P_LIST; do
				"$BIN/worksteal" bench cell go-ws coarse "$seed" "$p" 1 >>"$raw"
				"$BIN/worksteal" bench cell go-ws coarse-poll "$seed" "$p" 1 >>"$raw"
				"$BIN/worksteal" bench cell go-wg coarse "$seed" "$p" 1 >>"$raw"
				[[ -x $BIN/coarse-rayon ]] && "$BIN/coarse-rayon" rust-rayon coarse "$seed" "$p" 1 >>"$raw"
			done
		done
	done
	printf '| seed | workers | go-ws (no Poll) | go-ws (Poll) | go-wg | rust-rayon |\n|---|---|---|---|---|---|\n'
	for seed in 1 2 3; do
		gseq=$(awk -v s="$seed" '$1 == "go-seq" && $3 == s { print $5 }' "$raw" | median)
		rseq=$(awk -v s="$seed" '$1 == "rust-seq" && $3 == s { print $5 }' "$raw" | median)
		for p in $P_LIST; do
			row="| $seed | $p |"
			for c in "go-ws coarse $gseq" "go-ws coarse-poll $gseq" "go-wg coarse $gseq" "rust-rayon coarse $rseq"; do
				read -r impl wl seq <<<"$c"
				ms=$(awk -v i="$impl" -v w="$wl" -v s="$seed" -v p="$p" '$1 == i && $2 == w && $3 == s && $4 == p { print $5 }' "$raw" | median)
				row+=" $(awk -v s="$seq" -v m="$ms" -v p="$p" 'BEGIN { if (s == "" || m == "") print "-"; else printf "%.3f (%s ms)", s / (p * m), m }') |"
			done
			echo "$row"
		done
	done
	echo "(sequential medians per seed: go-seq and rust-seq in coarse-raw.txt)"
fi

if step 3; then
	header "3. coarse leaves, coarse-seeds.sh's protocol: seeds 1-12, median of 12 runs per process"
	raw=$OUT/seeds-raw.txt
	: >"$raw"
	for p in $P_LIST; do
		for s in $(seq 1 "${SEEDS:-12}"); do
			ws=$("$BIN/worksteal" bench cell go-ws coarse "$s" "$p" 12 1 | awk '{ print $5 }' | median)
			ry=-
			[[ -x $BIN/coarse-rayon ]] && ry=$("$BIN/coarse-rayon" rust-rayon coarse "$s" "$p" 12 1 | awk '{ print $5 }' | median)
			echo "P $p seed $s go-ws $ws rayon $ry" >>"$raw"
		done
		awk -v p="$p" '$2 == p { w += $6; r += $8 } END { printf "P %s: go-ws sum of medians %.1f ms, rayon %.1f ms, go-ws / rayon %.3f\n", p, w, r, (r > 0 ? w / r : 0) }' "$raw"
	done
fi

if step 4; then
	header "4. one worker against sequential: ${ONE_ROUNDS:-3} alternated rounds of 7 timed runs per process"
	raw=$OUT/one-raw.txt
	: >"$raw"
	ONE=${ONE_WORKLOADS:-"fib 30,fib 35"}
	IFS=, read -r -a wls <<<"$ONE"
	for round in $(seq "${ONE_ROUNDS:-3}"); do
		for wl in "${wls[@]}"; do
			read -r w n <<<"$wl"
			"$BIN/worksteal" bench cell go-seq "$w" "$n" 1 7 >>"$raw"
			[[ -x $BIN/go-anchors ]] && "$BIN/go-anchors" go-seq "$w" "$n" 1 7 | sed 's/^go-seq/go-seq-anchors/' >>"$raw"
			"$BIN/worksteal" bench cell go-ws "$w" "$n" 1 7 >>"$raw"
			"$BIN/rust-anchors" rust-seq "$w" "$n" 1 7 >>"$raw"
			"$BIN/rust-anchors" rust-rayon "$w" "$n" 1 7 >>"$raw"
		done
	done
	printf '| workload | forks | go-seq | go-seq (anchors) | go-ws 1T | ws / seq | ns/join | rust-seq | rayon 1T | ns/join (rayon) |\n|---|---|---|---|---|---|---|---|---|---|\n'
	for wl in "${wls[@]}"; do
		read -r w n <<<"$wl"
		forks=$([[ -x $BIN/go-anchors ]] && "$BIN/go-anchors" stats "$w" "$n" | sed -n 's/.*forks=\([0-9]*\).*/\1/p')
		m() { awk -v i="$1" -v w="$w" -v n="$n" '$1 == i && $2 == w && $3 == n { print $5 }' "$raw" | median; }
		gs=$(m go-seq) ga=$(m go-seq-anchors) ws=$(m go-ws) rs=$(m rust-seq) rr=$(m rust-rayon)
		awk -v w="$w $n" -v f="${forks:-0}" -v gs="$gs" -v ga="$ga" -v ws="$ws" -v rs="$rs" -v rr="$rr" 'BEGIN {
			base = (ga != "" ? ga : gs)
			printf "| %s | %d | %s | %s | %s | %.2f | %s | %s | %s | %s |\n", w, f, gs, (ga == "" ? "-" : ga), ws, ws / base,
				(f > 0 ? sprintf("%.2f", (ws - base) * 1e6 / f) : "-"), rs, rr, (f > 0 ? sprintf("%.2f", (rr - rs) * 1e6 / f) : "-") }'
	done
	echo "(ws / seq and ns/join against the anchors' go-seq, as the anchor suite's report does, when go-anchors is in BIN)"
fi

if step 5; then
	header "5. part 4's benchmarks, count ${BENCH_COUNT:-6}"
	raw=$OUT/bench-raw.txt
	: >"$raw"
	"$BIN/par.test" -test.run '^$' -test.bench '^BenchmarkSortFunc(OneWorker)?$' -test.count "${BENCH_COUNT:-6}" 2>&1 | tee -a "$raw"
	"$BIN/bench.test" -test.run '^$' -test.bench '^BenchmarkIOBatch$' -test.benchtime 3x -test.count "$(( (${BENCH_COUNT:-6} + 1) / 2 ))" 2>&1 | tee -a "$raw"
	"$BIN/root.test" -test.run '^$' -test.bench '^BenchmarkResizeUnderNeighbour$' -test.benchtime 5x -test.count 2 2>&1 | tee -a "$raw"
	# UTS b0=6000 on a worker per CPU with the stall monitor on and off,
	# and its stack dumps per run: were dumps part of stop 41's UTS loss?
	"$BIN/root.test" -test.run '^$' -test.bench '^BenchmarkStallMonitorOversubscribed$/^ps=cpus$' -test.benchtime 3x -test.count 2 2>&1 | tee -a "$raw"
fi

if step 6; then
	header "6. sim --predict at ${PREDICT_W:-16} workers (predicted beside measured here)"
	for w in fib:30 nqueens:12 uts:2000; do
		"$BIN/worksteal" sim --predict "$w" -w "${PREDICT_W:-16}" --reps 5 2>&1
	done
fi
if step 7; then
	qw=${QUIET_W:-16}
	header "7. the hungry window: as built against QuietBeats 64, EagerDepth 0 and EagerWidens on, at $qw workers, ${QUIET_ROUNDS:-4} alternated rounds of 5 runs"
	bins=(worksteal)
	for b in worksteal-quiet64 worksteal-eager0 worksteal-eagerwide; do
		if [[ -x $BIN/$b ]]; then bins+=("$b"); else echo "no $BIN/$b (ONLY_BUILD=1 builds it): left out of step 7"; fi
	done
	raw=$OUT/quiet-raw.txt
	: >"$raw"
	for round in $(seq "${QUIET_ROUNDS:-4}"); do
		for wl in "uts 6000" "fib 35" "nqueens 13"; do
			read -r w n <<<"$wl"
			for b in "${bins[@]}"; do
				"$BIN/$b" bench cell go-ws "$w" "$n" "$qw" 5 1 | sed "s/^go-ws/$b/" >>"$raw"
			done
		done
	done
	printf '| workload |'; printf ' %s, median ms |' "${bins[@]}"; printf ' ÷ as built |\n|---|'
	for _ in "${bins[@]}"; do printf -- '---|'; done; printf -- '---|\n'
	for wl in "uts 6000" "fib 35" "nqueens 13"; do
		read -r w n <<<"$wl"
		m() { awk -v i="$1" -v w="$w" -v n="$n" '$1 == i && $2 == w && $3 == n { print $5 }' "$raw" | median; }
		a=$(m worksteal) row="| $wl |" ratios=""
		for b in "${bins[@]}"; do
			v=$(m "$b")
			row+=" $v |"
			[[ $b == worksteal ]] || ratios+=$(awk -v a="$a" -v v="$v" -v b="$b" 'BEGIN { printf " %s %.3f", b, (a > 0 ? v / a : 0) }')
		done
		echo "$row$ratios |"
	done
	for b in "${bins[@]}"; do
		echo "$b, UTS 6000 at $qw workers (steals a run):"
		"$BIN/$b" bench --entry uts=6000 --impls ws --reps 3 --workers "$qw" 2>&1 | tail -2
	done
fi

echo
echo "done in $((SECONDS - t0)) s, load $(load)" | tee -a "$OUT/machine.txt"

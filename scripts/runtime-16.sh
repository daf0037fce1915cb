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
#   BIN=/path/bin16 OUT=/path/out scripts/runtime-16.sh      # ~10 min on 16 cores
#
# A smoke test of the whole script on a small machine (2 cores, ~3 min):
#   BIN=/tmp/bin16 OUT=/tmp/out16 COARSE_P=2 COARSE_ROUNDS=1 PREDICT_W=2 \
#     WORKERS="1 2" REPS=1 QUICK=1 scripts/runtime-16.sh
#
# Steps (STEPS, default "1 2 3"), in order of value:
#   1. coarse leaves (issue 30 part 2): a binary Join tree over 64
#      heavy-tailed leaves of 0.2-8 ms that never poll ("coarse") and that
#      poll ("coarse-poll"), seeds 1-3, at 2 and 16 workers (COARSE_P):
#      worksteal (go-ws), a goroutine per fork (go-wg) and rayon::join
#      (rust-rayon, scripts/coarse-rayon), rounds alternated (COARSE_ROUNDS,
#      default 5); efficiency = median sequential time / (P x median time),
#      each against its own language's sequential run;
#   2. sim --predict at 16 workers (fib:30, nqueens:12, uts:2000): the
#      simulator's prediction from this machine's calibration beside the
#      runtime measured here (the 2-core machine can only predict);
#   3. speedup curves at 1, 2, 4, 8, 16 workers, fib 35, nqueens 13, UTS
#      b0=6000 and the loops, beside rayon (scripts/scaling.sh, REPS 3).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -d /usr/local/go/bin ]]; then export PATH=/usr/local/go/bin:$PATH; fi
BIN=$(realpath -m "${BIN:?name the binaries folder: BIN=...}")
OUT=$(realpath -m "${OUT:-$(mktemp -d)}")
STEPS=${STEPS:-"1 2 3"}
mkdir -p "$BIN" "$OUT"

if [[ ${ONLY_BUILD:-0} == 1 ]]; then
	flags=(-trimpath -ldflags=-s\ -w)
	go build "${flags[@]}" -o "$BIN/worksteal" ./cmd/worksteal
	go test -c "${flags[@]}" -o "$BIN/bench.test" ./internal/bench
	# rayon: the anchors' binary (fork-join) and the coarse tree's, each
	# built from a writable copy, offline, against Debian's crates.
	tmp=$(mktemp -d)
	cp -r "${ANCHORS_SRC:-/work/shared/anchors}/rust" "$tmp/anchors-rust"
	(cd "$tmp/anchors-rust" && cargo build --release --offline -q)
	cp "$tmp/anchors-rust/target/release/anchors" "$BIN/rust-anchors"
	cp -r scripts/coarse-rayon "$tmp/coarse-rayon"
	(cd "$tmp/coarse-rayon" && cargo build --release --offline -q)
	cp "$tmp/coarse-rayon/target/release/coarse-rayon" "$BIN/coarse-rayon"
	rm -rf "$tmp"
	ls -l "$BIN"
	exit 0
fi
chmod +x "$BIN"/* 2>/dev/null || true

load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime; }
step() { [[ " $STEPS " == *" $1 "* ]]; }
echo "machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')), load average $(load)" | tee "$OUT/machine.txt"

# median of the numbers on stdin
median() { sort -n | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }'; }

if step 1; then
	echo
	echo "== 1. coarse leaves: efficiency = seq / (P x time), medians of ${COARSE_ROUNDS:-5} alternated rounds, load $(load)"
	raw=$OUT/coarse-raw.txt
	: >"$raw"
	for round in $(seq "${COARSE_ROUNDS:-5}"); do
		for seed in 1 2 3; do
			"$BIN/worksteal" bench cell go-seq coarse "$seed" 1 1 >>"$raw"
			[[ -x $BIN/coarse-rayon ]] && "$BIN/coarse-rayon" rust-seq coarse "$seed" 1 1 >>"$raw"
			for p in ${COARSE_P:-2 16}; do
				"$BIN/worksteal" bench cell go-ws coarse "$seed" "$p" 1 >>"$raw"
				"$BIN/worksteal" bench cell go-ws coarse-poll "$seed" "$p" 1 >>"$raw"
				"$BIN/worksteal" bench cell go-wg coarse "$seed" "$p" 1 >>"$raw"
				[[ -x $BIN/coarse-rayon ]] && "$BIN/coarse-rayon" rust-rayon coarse "$seed" "$p" 1 >>"$raw"
			done
		done
	done
	{
		printf '| seed | workers | go-ws (no Poll) | go-ws (Poll) | go-wg | rust-rayon |\n|---|---|---|---|---|---|\n'
		for seed in 1 2 3; do
			gseq=$(awk -v s="$seed" '$1 == "go-seq" && $3 == s { print $5 }' "$raw" | median)
			rseq=$(awk -v s="$seed" '$1 == "rust-seq" && $3 == s { print $5 }' "$raw" | median)
			for p in ${COARSE_P:-2 16}; do
				row="| $seed | $p |"
				for c in "go-ws coarse $gseq" "go-ws coarse-poll $gseq" "go-wg coarse $gseq" "rust-rayon coarse $rseq"; do
					read -r impl wl seq <<<"$c"
					ms=$(awk -v i="$impl" -v w="$wl" -v s="$seed" -v p="$p" '$1 == i && $2 == w && $3 == s && $4 == p { print $5 }' "$raw" | median)
					row+=" $(awk -v s="$seq" -v m="$ms" -v p="$p" 'BEGIN { if (s == "" || m == "") print "-"; else printf "%.3f (%s ms)", s / (p * m), m }') |"
				done
				echo "$row"
			done
		done
		echo "(sequential medians per seed: go-seq and rust-seq in coarse-raw.txt; load after: $(load))"
	} | tee "$OUT/coarse.md"
fi

if step 2; then
	echo
	echo "== 2. sim --predict at ${PREDICT_W:-16} workers (predicted beside measured here), load $(load)"
	for w in fib:30 nqueens:12 uts:2000; do
		"$BIN/worksteal" sim --predict "$w" -w "${PREDICT_W:-16}" --reps 5 2>&1 | tee "$OUT/predict${PREDICT_W:-16}-${w%%:*}.txt"
	done
fi

if step 3; then
	echo
	echo "== 3. speedup curves (scripts/scaling.sh), load $(load)"
	BIN=$BIN ANCHORS=$BIN REPS=${REPS:-3} scripts/scaling.sh 2>&1 | tee "$OUT/scaling.txt"
fi
echo
echo "done, load $(load)" | tee -a "$OUT/machine.txt"

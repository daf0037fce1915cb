#!/usr/bin/env bash
# The coarse tree (internal/bench/coarse.go: a binary Join tree over 64
# heavy-tailed leaves, no Poll) at 2 workers, per seed 1-12: the median of
# 12 timed runs in one process (one warm run first), for each worksteal
# binary given and for rayon (scripts/coarse-rayon), interleaved per seed;
# then each one's sum over the seeds. Steadier than the anchor protocol's
# two timed runs per process when two builds differ by a percent or two.
#
#   scripts/coarse-seeds.sh BIN...        (label = the binary's file name)
#
# FLOOR=1 adds the baselines with no scheduler (go-counter of the first
# binary, rust-counter) and each language's sequential time (go-seq,
# rust-seq) per seed, to tell Go's own cost at 2 threads from the
# scheduler's: efficiency = seq / (2 x wall), per language.
#
# Build rayon's side first: (cd scripts/coarse-rayon && cargo build --release --offline)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
rayon=$here/coarse-rayon/target/release/coarse-rayon
[ $# -ge 1 ] || { echo "usage: $0 WORKSTEAL-BINARY..." >&2; exit 2; }
[ -x "$rayon" ] || { echo "$0: $rayon missing: build it with cargo build --release --offline in scripts/coarse-rayon" >&2; exit 2; }
med() { awk '{print $5}' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
out=$(mktemp)
for s in $(seq 1 12); do
  line="seed $s"
  for b in "$@"; do
    line="$line $(basename "$b") $("$b" bench cell go-ws coarse "$s" 2 12 1 | med)"
  done
  line="$line rayon $("$rayon" rust-rayon coarse "$s" 2 12 1 | med)"
  if [ "${FLOOR:-}" = 1 ]; then
    line="$line go-counter $("$1" bench cell go-counter coarse "$s" 2 12 1 | med)"
    line="$line rust-counter $("$rayon" rust-counter coarse "$s" 2 12 1 | med)"
    line="$line go-seq $("$1" bench cell go-seq coarse "$s" 1 5 1 | med)"
    line="$line rust-seq $("$rayon" rust-seq coarse "$s" 1 5 1 | med)"
  fi
  echo "$line" | tee -a "$out"
done
awk '{for (i = 3; i <= NF; i += 2) {s[$i] += $(i+1); n[$i] = $i}} END {for (k in n) printf "%s: sum of medians %.1f ms\n", k, s[k]}' "$out"
rm -f "$out"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

#!/bin/bash
# Pipe-mode throughput beside GNU parallel (issue 22): a 1 GiB file of
# lines split into "wc -l" jobs at -j2 with default blocks, --pipe and
# --pipepart, GNU parallel and worksteal run interleaved, ROUNDS rounds;
# each line is "name seconds load-average", and the counts are checked.
#
#   bash internal/bench/pipe-throughput.sh            (from the repository's root)
set -euo pipefail
dir=${WORKDIR:-$(mktemp -d)}
go build -o "$dir/ws" ./cmd/worksteal
cd "$dir"
if [ ! -s big ]; then
  seq 1 200000000 | head -c 1073741824 > big.tmp || true
  # Cut to the last whole line.
  python3 -c 'import os; p="big.tmp"; s=os.path.getsize(p); f=open(p,"rb+"); f.seek(s-64); t=f.read(); f.truncate(s-64+t.rfind(b"\n")+1)'
  mv big.tmp big
fi
want=$(wc -l < big)
run() { # name command...
  local t0 t1 sum
  t0=$(date +%s.%N)
  sum=$("${@:2}" | awk '{s+=$1} END {print s}')
  t1=$(date +%s.%N)
  [ "$sum" = "$want" ] || echo "WRONG $1: $sum lines, want $want" >&2
  echo "$1 $(echo "$t1 - $t0" | bc) $(cut -d' ' -f1 /proc/loadavg)"
}
for _ in $(seq "${ROUNDS:-3}"); do
  run gnu-pipe     parallel -j2 --pipe wc -l < big
  run ws-pipe      ./ws run -j2 --pipe wc -l < big
  run gnu-pipepart parallel -j2 --pipepart -a big wc -l
  run ws-pipepart  ./ws run -j2 --pipepart -a big wc -l
done

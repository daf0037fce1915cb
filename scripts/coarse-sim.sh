#!/usr/bin/env bash
# Issue 30 part 2 in the simulator: a Join tree of coarse leaves that never
# poll (sim/testdata/coarse-tree.yaml) at 2, 16 and 64 workers, 64 and 256
# leaves: the runtime's protocol (join latent, eager near the root of a
# worker's stack), the eager (deque) protocol, and every Join latent; mean
# makespan over seeds 1-5. Deterministic: the same table on any machine.
#
#   scripts/coarse-sim.sh                     # builds worksteal with go
#   WS=/path/worksteal scripts/coarse-sim.sh  # with a binary built earlier
#
# sim/coarse_test.go (TestCoarseTreeLatentNearEager) asserts the runtime's
# column within 5 % of eager on the same scenarios.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z ${WS:-} ]]; then
	WS=$(mktemp -d)/worksteal
	go build -o "$WS" ./cmd/worksteal
fi
SEEDS=${SEEDS:-"1 2 3 4 5"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# makespan(file, workers, seed, sweep): the sweep's makespans, one a line
makespan() { "$WS" sim -f "$1" -w "$2" --seed "$3" --sweep "$4" --csv | awk -F, 'NR > 1 { print $2 }'; }
mean() { awk '{ s += $1; n++ } END { printf "%.3f", 1e3 * s / n }'; }
echo "| leaves | workers | eager (deque) | runtime (latent, eager near the root) | every Join latent |"
echo "|---|---|---|---|---|"
for depth in 6 8; do
	f=$tmp/coarse-$depth.yaml
	sed "s/tree: {depth: 6}/tree: {depth: $depth}/" sim/testdata/coarse-tree.yaml >"$f"
	for p in 2 16 64; do
		: >"$tmp/e" && : >"$tmp/r" && : >"$tmp/l"
		for seed in $SEEDS; do
			makespan "$f" "$p" "$seed" join=eager,latent | {
				read -r e
				read -r r
				echo "$e" >>"$tmp/e"
				echo "$r" >>"$tmp/r"
			}
			makespan "$f" "$p" "$seed" eager_depth=-1 >>"$tmp/l"
		done
		e=$(mean <"$tmp/e") r=$(mean <"$tmp/r") l=$(mean <"$tmp/l")
		awk -v d=$((1 << depth)) -v p="$p" -v e="$e" -v r="$r" -v l="$l" \
			'BEGIN { printf "| %d | %d | %.2f ms | %.2f ms (%+.1f %%) | %.2f ms (%+.1f %%) |\n", d, p, e, r, 100 * (r / e - 1), l, 100 * (l / e - 1) }'
	done
done
echo "(mean makespan over seeds $SEEDS; scenario sim/testdata/coarse-tree.yaml)"

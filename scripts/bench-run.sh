#!/usr/bin/env bash
# Benchmarks of the batch job runner (worksteal run) and its cluster tier.
#
#   scripts/bench-run.sh            # everything
#   scripts/bench-run.sh overhead   # or: skew, cluster
#
# 1. overhead: per-job overhead on 1,000 trivial jobs, against GNU parallel
#    and xargs -P (which runs no shell).
# 2. skew: makespan of compressing files whose sizes follow a long-tailed
#    (Pareto) distribution, the largest last in input order, against GNU
#    parallel; worksteal in input order and longest first (sizes as the
#    weight column).
# 3. cluster: trivial tasks per second end to end through the embedded
#    server with 2 workers (Go handlers: go test -bench Throughput), the
#    time from a worker's death (SIGKILL) to its task running elsewhere
#    (-bench Redelivery, ack deadline 2s), and TASKS/5 trivial shell tasks
#    through worksteal serve + 2 x worksteal worker -j J/2 + run --nats
#    against a local run -j J on the same cores (target: within 1.5x).
#
# Settings (environment): J slots (default: nproc), REPS repetitions, the
# median is reported (default 5), FILES and MAXMB for the skewed batch
# (default 40 files, the largest 64 MB), TASKS for the cluster throughput
# (default 10000). GNU parallel must be installed for the comparisons with
# it (Debian/Ubuntu: apt-get install parallel; macOS: brew install
# parallel); without it those rows are left out. The numbers are wall-clock
# times on the machine as it is: its load is printed with them. A command
# that fails stops the script with its output: a crash is never timed as a
# fast run.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -d /usr/local/go/bin ]]; then export PATH=/usr/local/go/bin:$PATH; fi

J=${J:-$(nproc)}
REPS=${REPS:-5}
FILES=${FILES:-40}
MAXMB=${MAXMB:-64}
TASKS=${TASKS:-10000}
WHAT=${1:-all}

WORK=$(mktemp -d)
PIDS=()
cleanup() {
	for p in "${PIDS[@]:-}"; do [[ -n $p ]] && kill "$p" 2>/dev/null || true; done
	rm -rf "$WORK"
}
trap cleanup EXIT

echo "== building worksteal"
go build -o "$WORK/worksteal" ./cmd/worksteal
WS=$WORK/worksteal

HAVE_PARALLEL=0
if command -v parallel >/dev/null; then
	HAVE_PARALLEL=1
	PARALLEL_VERSION=$(parallel --will-cite --version | head -1)
else
	PARALLEL_VERSION="GNU parallel not installed (apt-get install parallel): its rows are left out"
fi
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime | sed 's/.*average[s]*: //')
echo "machine: $(nproc) CPUs, load average $load; J=$J, REPS=$REPS; $PARALLEL_VERSION"

# seconds CMD...: wall time in ms of one run. Its output goes to
# $WORK/last.out; if it fails, the script stops and shows that output.
seconds() {
	local s e rc=0
	s=$(date +%s%N)
	"$@" >"$WORK/last.out" 2>&1 || rc=$?
	e=$(date +%s%N)
	if ((rc != 0)); then
		echo "command failed (exit $rc): $*" >&2
		tail -20 "$WORK/last.out" >&2
		return 1
	fi
	echo $(((e - s) / 1000000))
}

# waitport PORT: until something accepts connections on 127.0.0.1:PORT
# (at most 30 s).
waitport() {
	local i
	for i in $(seq 300); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
		sleep 0.1
	done
	echo "nothing listens on port $1 after 30 s" >&2
	return 1
}

# waitlog FILE PATTERN: until FILE has a line matching PATTERN (at most 30 s).
waitlog() {
	local i
	for i in $(seq 300); do
		if grep -q -- "$2" "$1" 2>/dev/null; then return 0; fi
		sleep 0.1
	done
	echo "$1 has no line matching '$2' after 30 s:" >&2
	cat "$1" >&2
	return 1
}

# compare KEY LABEL COMMAND [KEY LABEL COMMAND ...]: runs the commands in
# turn, REPS rounds (interleaved, so that a change in the machine's load
# hits them alike), prints each one's runs and median, and sets MED[KEY].
declare -A MED
compare() {
	local -a keys=() labels=() cmds=()
	while (($#)); do
		keys+=("$1") labels+=("$2") cmds+=("$3")
		shift 3
	done
	local -A runs=()
	local ms
	for _ in $(seq "$REPS"); do
		for i in "${!keys[@]}"; do
			ms=$(seconds sh -c "${cmds[$i]}") || exit 1
			runs[$i]+="$ms "
		done
	done
	for i in "${!keys[@]}"; do
		local med
		med=$(printf '%s\n' ${runs[$i]} | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
		MED[${keys[$i]}]=$med
		printf '| %-46s | %7s ms | runs: %s\n' "${labels[$i]}" "$med" "${runs[$i]}"
	done
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

if [[ $WHAT == all || $WHAT == overhead ]]; then
	echo
	echo "== 1. per-job overhead: 1,000 trivial jobs on $J slots (median of $REPS)"
	seq 1000 >"$WORK/args"
	rows=(ws "worksteal run -j $J true {}" "$WS run -j $J true < $WORK/args"
		xa "xargs -P $J -n 1 true" "xargs -P $J -n 1 true < $WORK/args")
	if ((HAVE_PARALLEL)); then rows+=(gp "parallel -j $J true {}" "parallel --will-cite -j $J true < $WORK/args"); fi
	compare "${rows[@]}"
	ws=${MED[ws]} xa=${MED[xa]}
	echo "worksteal ${ws} ms ($(ratio "$ws" 1000) ms/job), xargs -P ${xa} ms; worksteal / xargs = $(ratio "$ws" "$xa") (target <= 1.5)"
	if ((HAVE_PARALLEL)); then
		echo "GNU parallel ${MED[gp]} ms; worksteal / parallel = $(ratio "$ws" "${MED[gp]}") (target < 1)"
	fi
fi

if [[ $WHAT == all || $WHAT == skew ]]; then
	echo
	echo "== 2. skewed batch: gzip -6 of $FILES files with Pareto sizes (largest ${MAXMB} MB, last in input order) on $J slots"
	mkdir -p "$WORK/files"
	# Compressible but not trivial data: base64 of random bytes.
	head -c $((MAXMB * 1024 * 1024 * 3 / 4)) /dev/urandom | base64 -w 0 >"$WORK/source"
	# Sizes: Pareto(alpha 1.1) from 256 KB, capped at MAXMB, in a seeded
	# random order with the largest moved last.
	awk -v n="$FILES" -v max="$MAXMB" 'BEGIN {
		srand(7)
		for (i = 1; i <= n; i++) {
			s = int(256 * 1024 / (1 - rand()) ^ (1 / 1.1))
			if (s > max * 1024 * 1024) s = max * 1024 * 1024
			size[i] = s
		}
		size[int(n / 2)] = max * 1024 * 1024 # one file as large as allowed
		big = 1
		for (i = 2; i <= n; i++) if (size[i] > size[big]) big = i
		t = size[big]; size[big] = size[n]; size[n] = t
		for (i = 1; i <= n; i++) printf "%d\tf%03d\n", size[i], i
	}' >"$WORK/sizes"
	while IFS=$'\t' read -r size name; do head -c "$size" "$WORK/source" >"$WORK/files/$name"; done <"$WORK/sizes"
	awk -F'\t' -v d="$WORK/files" '{ printf "%s\t%s/%s\n", $1, d, $2 }' "$WORK/sizes" >"$WORK/weighted"
	cut -f2 "$WORK/weighted" >"$WORK/list"
	total=$(awk -F'\t' '{ s += $1 } END { printf "%.0f", s / 1048576 }' "$WORK/sizes")
	echo "$FILES files, $total MB in all; largest $(sort -n "$WORK/sizes" | tail -1 | awk '{ printf "%.1f MB", $1 / 1048576 }')"
	gz='gzip -6 -c {} > {}.gz'
	sort -rn "$WORK/weighted" | cut -f2 >"$WORK/sorted"
	rows=(wsi "worksteal run, input order" "$WS run -j $J --order input '$gz' < $WORK/list"
		wsl "worksteal run --weight-col 1 (longest first)" "$WS run -j $J --weight-col 1 '$gz' < $WORK/weighted")
	if ((HAVE_PARALLEL)); then
		rows+=(gpi "parallel, input order" "parallel --will-cite -j $J '$gz' < $WORK/list"
			gps "parallel, input sorted by size (by hand)" "parallel --will-cite -j $J '$gz' < $WORK/sorted")
	fi
	compare "${rows[@]}"
	wsi=${MED[wsi]} wsl=${MED[wsl]}
	echo "worksteal input order ${wsi} ms, longest first ${wsl} ms (saves $(awk -v a="$wsi" -v b="$wsl" 'BEGIN { printf "%.0f%%", 100 * (1 - b / a) }')); longest first / input order = $(ratio "$wsl" "$wsi") (target < 1)"
	if ((HAVE_PARALLEL)); then
		echo "GNU parallel ${MED[gpi]} ms; worksteal input order / parallel = $(ratio "$wsi" "${MED[gpi]}") (target <= 1)"
	fi
	echo "the runner's own estimate (summary line of one run):"
	"$WS" run -j "$J" --summary --weight-col 1 "$gz" <"$WORK/weighted" >"$WORK/summary.out" 2>&1
	grep -E '^(makespan|order)' "$WORK/summary.out" || { echo "no summary line in:" >&2; cat "$WORK/summary.out" >&2; exit 1; }
fi

if [[ $WHAT == all || $WHAT == cluster ]]; then
	echo
	echo "== 3a. cluster: $TASKS trivial tasks end to end through the embedded server, 2 workers (Go handlers)"
	WS_BENCH_TASKS=$TASKS go test -run '^$' -bench 'Throughput$' -benchtime 1x -count 3 ./cluster >"$WORK/bench.out" 2>&1 ||
		{ cat "$WORK/bench.out" >&2; exit 1; }
	grep -E '^Benchmark' "$WORK/bench.out"
	echo
	echo "== 3b. cluster: a worker killed with SIGKILL, its task running elsewhere (ack deadline 2s)"
	go test -run '^$' -bench 'Redelivery' -benchtime 3x ./cluster >"$WORK/bench.out" 2>&1 ||
		{ cat "$WORK/bench.out" >&2; exit 1; }
	grep -E '^Benchmark' "$WORK/bench.out"
	echo
	ctasks=$((TASKS / 5))
	echo "== 3c. $ctasks shell tasks (true): serve + 2 workers x -j $((J / 2 > 0 ? J / 2 : 1)) + run --nats, against local run -j $J (same cores)"
	port=$((20000 + RANDOM % 20000))
	"$WS" serve --listen 127.0.0.1:$port --store "$WORK/js" >"$WORK/serve.log" 2>&1 &
	PIDS+=($!)
	waitport "$port"
	for w in a b; do
		"$WS" worker --nats nats://127.0.0.1:$port -j $((J / 2 > 0 ? J / 2 : 1)) --name "w$w" >"$WORK/worker-$w.log" 2>&1 &
		PIDS+=($!)
	done
	for w in a b; do waitlog "$WORK/worker-$w.log" "worksteal worker w$w: serving"; done
	seq "$ctasks" | sed "s/^/true /" >"$WORK/cargs"
	# Each cluster round is a new job (--job, named after the round's shell
	# pid): a rerun of the same batch would collect the finished job's
	# results instead of running it.
	compare \
		local "run -j $J" "$WS run -j $J < $WORK/cargs" \
		cluster "run --nats (2 workers)" "$WS run --nats nats://127.0.0.1:$port --job bench-\$\$ < $WORK/cargs"
	awk -v l="${MED[local]}" -v c="${MED[cluster]}" 'BEGIN { printf "cluster / local: %.2fx\n", c / l }'
fi

#!/usr/bin/env bash
# Regenerates cmd/worksteal/default.pgo, the CPU profile `go build
# ./cmd/worksteal` uses for profile-guided optimization (go build's default
# -pgo=auto). It profiles the fork-join kernels `worksteal bench` and the
# anchor suite time (fib, nqueens, UTS with JoinFunc and Join, at 1 and 2
# workers): with it the compiler inlines JoinFunc's plain-call path into
# their hot call sites, which its inlining budget (80) refuses without a
# profile (PROTOCOL.md "What a Join costs"). About a minute on 2 cores.
#
#   scripts/pgo.sh            # from the repository root
#
# Regenerate after changing Join, JoinFunc or the kernels in internal/bench;
# a stale profile still applies (Go matches it by function and line offset)
# but may inline less, and which inlining PGO picks moves with the profile,
# so count before committing a new one (valgrind's callgrind, any load):
#
#   GOAMD64=v1 go build -o /tmp/ws ./cmd/worksteal
#   for i in go-ws go-seq; do GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind \
#     --callgrind-out-file=/tmp/cg.$i /tmp/ws bench cell $i fib 30 1 1 0; done
#   # (PROGRAM TOTALS of go-ws − go-seq) / 1,346,268 Joins: 18.7 with the
#   # committed profile, 38.9 with -pgo=off; likewise nqueens 10 and uts 300.
#
# The profile holds no go-seq cells on purpose: the sequential kernels stay
# compiled as without it, like the anchor suite's go-seq.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -run '^$' -bench 'Fib/n=3[05]/impl=ws|NQueens/n=1[23]/impl=ws|UTS/b0=6000/impl=ws' \
	-benchtime 1s -cpuprofile "$tmp/cpu.pprof" -o "$tmp/bench.test" ./internal/bench/
cp "$tmp/cpu.pprof" cmd/worksteal/default.pgo
echo "wrote cmd/worksteal/default.pgo ($(wc -c <cmd/worksteal/default.pgo) bytes)"

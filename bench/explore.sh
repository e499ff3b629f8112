#!/usr/bin/env bash
# explore.sh measures fickle explore's throughput on examples/bank's test,
# run longer (-rounds) so that one run of it takes about 100 ms, and the
# overhead of a run (a fresh in-process server, the ordered and recorded
# calls, the history file) over the bare test against a running fickle serve.
#
# Usage: bench/explore.sh [-n runs] [-r rounds]
# Defaults: -n 50 -r 25. It prints the bare test's time per run, explore's
# runs per second with --jobs 1 and --jobs 2, and the overhead per run.
set -euo pipefail
runs=50 rounds=25
while getopts "n:r:" opt; do
  case $opt in
    n) runs=$OPTARG ;; r) rounds=$OPTARG ;;
    *) sed -n '2,9p' "$0"; exit 2 ;;
  esac
done
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
serve_pid=
cleanup() {
  [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
cd "$root"
go build -o "$work/fickle" ./cmd/fickle
go test -c -o "$work/bank.test" ./examples/bank
test_cmd=("$work/bank.test" -test.run '^TestTransfersKeepTheTotal$' -rounds "$rounds")

now() { date +%s.%N; }
per() { echo "scale=1; ($2 - $1) * 1000 / $3" | bc; }

"$work/fickle" serve --listen 127.0.0.1:0 >"$work/serve.out" 2>&1 &
serve_pid=$!
for _ in $(seq 50); do grep -q listening "$work/serve.out" && break; sleep 0.1; done
port=$(sed -n 's/^listening on .*://p' "$work/serve.out")
url="postgres://fickle@127.0.0.1:$port/fickle?sslmode=disable"

# Blocks of 10 bare runs and 10 explore runs alternate, so that a shared
# machine's changing load weighs on both alike; the medians are printed.
block=10
bare=() one=() two=()
for _ in $(seq $((runs / block))); do
  start=$(now)
  for _ in $(seq $block); do DATABASE_URL=$url "${test_cmd[@]}" >/dev/null; done
  bare+=("$(per "$start" "$(now)" $block)")
  for jobs in 1 2; do
    start=$(now)
    "$work/fickle" explore --runs $block --jobs "$jobs" --dir "$work/out" -- "${test_cmd[@]}" >/dev/null 2>&1
    t=$(per "$start" "$(now)" $block)
    if [ "$jobs" = 1 ]; then one+=("$t"); else two+=("$t"); fi
  done
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
b=$(median "${bare[@]}") o=$(median "${one[@]}") w=$(median "${two[@]}")
echo "bare test against a running fickle serve: $b ms per run"
echo "fickle explore --jobs 1: $(echo "scale=1; 1000 / $o" | bc) runs/s ($o ms per run)"
echo "fickle explore --jobs 2: $(echo "scale=1; 1000 / $w" | bc) runs/s ($w ms per run)"
echo "overhead of a run over the bare test: $(echo "scale=1; $o - $b" | bc) ms"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

#!/usr/bin/env bash
# pgbench.sh runs pgbench's TPC-B-like script against fickle and against a
# PostgreSQL 15 started here (fsync=off, synchronous_commit=off, so that both
# work in memory), in one run, and prints both TPS figures and their ratio
# and the time of each one's pgbench -i, and each server's CPU time per
# transaction (steadier than TPS on a shared machine).
# It also measures fickle's time from launch to the first accepted connection.
#
# Usage: bench/pgbench.sh [-c clients] [-j threads] [-T seconds] [-M mode] [-s scale] [-- extra fickle serve flags]
# Defaults: -c 8 -j 2 -T 20 -M prepared -s 1 (issue 2's benchmark), fickle with --strategy latest (what
# PostgreSQL does); extra flags override it, e.g. `-- --strategy adversarial --realtime --history /tmp/h.jsonl`
# for the cost of the adversary and of recording (--realtime, or pgbench's new connections may see the
# tables before pgbench -i filled them, as the levels allow).
set -euo pipefail
clients=8 threads=2 secs=20 mode=prepared scale=1
while getopts "c:j:T:M:s:" opt; do
  case $opt in
    c) clients=$OPTARG ;; j) threads=$OPTARG ;; T) secs=$OPTARG ;; M) mode=$OPTARG ;; s) scale=$OPTARG ;;
    *) sed -n '2,12p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
. "$(dirname "$0")/lib.sh"

echo "building fickle..." >&2
(cd "$root" && go build -o "$work/fickle" ./cmd/fickle && go build -o "$work/startup" ./bench/startup)

echo "launch to first accepted connection (median of 11 launches):"
"$work/startup" -bin "$work/fickle" -n 11 -- "$@"

start_fickle "$work/fickle" --strategy latest "$@"

start_postgres

tps() { sed -n 's/^tps = \([0-9.]*\) .*/\1/p' | head -1; }
fickle_cpu() { cpu_seconds "$fickle_pid"; }
run() { # name port user db cpu-function
  local start=$(date +%s.%N)
  pgbench -q -i -s "$scale" -h 127.0.0.1 -p "$2" -U "$3" "$4" >/dev/null 2>&1
  python3 -c "print('%.2f' % ($(date +%s.%N) - $start))" > "$work/$1.init"
  local c0=$($5)
  pgbench -c "$clients" -j "$threads" -T "$secs" -M "$mode" -h 127.0.0.1 -p "$2" -U "$3" "$4" 2>&1 | tee "$work/$1.txt" >&2
  local c1=$($5) n
  n=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$work/$1.txt")
  python3 -c "print('%.0f' % (($c1 - $c0) * 1e6 / $n))" > "$work/$1.cpu"
  tps < "$work/$1.txt"
}
echo "pgbench -c $clients -j $threads -T $secs -M $mode, scale $scale" >&2
ftps=$(run fickle "$fport" fickle fickle fickle_cpu)
ptps=$(run postgres "$pport" postgres postgres postgres_cpu_seconds)
echo "pgbench -i -s $scale: fickle $(cat "$work/fickle.init") s, PostgreSQL $(cat "$work/postgres.init") s"
echo "fickle TPS:     $ftps"
echo "PostgreSQL TPS: $ptps"
python3 -c "print('ratio fickle/PostgreSQL: %.2fx' % ($ftps / $ptps))"
echo "server CPU per transaction: fickle $(cat "$work/fickle.cpu") us, PostgreSQL $(cat "$work/postgres.cpu") us"

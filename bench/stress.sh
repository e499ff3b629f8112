#!/usr/bin/env bash
# stress.sh runs `fickle stress` against a PostgreSQL 15 it starts (fsync=off,
# synchronous_commit=off) at each of its levels, and against `fickle serve`
# (adversarial strategy) at each of fickle's, and prints one line a run:
# committed and aborted transactions, throughput, and each check's verdict,
# anomalies and time. The levels' runs use the mini-transaction workload; a
# compare-and-set run at SERIALIZABLE checks linearizability.
#
# Usage: bench/stress.sh [-t transactions] [-s sessions] [-o objects]
# Defaults: -t 5000 -s 8 -o 10 (READ COMMITTED runs on 3 hot objects, to lose
# updates).
set -euo pipefail
txns=5000 sessions=8 objects=10
while getopts "t:s:o:" opt; do
  case $opt in
    t) txns=$OPTARG ;; s) sessions=$OPTARG ;; o) objects=$OPTARG ;;
    *) sed -n '2,11p' "$0"; exit 2 ;;
  esac
done
. "$(dirname "$0")/lib.sh"

echo "building fickle..." >&2
(cd "$root" && go build -o "$work/fickle" ./cmd/fickle)

start_postgres

start_fickle "$work/fickle" 

summary() {
  python3 -c '
import json, sys
r = json.load(sys.stdin)
checks = []
for c in r["checks"]:
    s = "%s%s %s %.2fs" % (c["name"], "*" if c.get("requested") else "", c["verdict"], c.get("elapsed_ns", 0) / 1e9)
    if c.get("anomalies"):
        s += " " + ",".join("%s x%d" % kv for kv in sorted(c["anomalies"].items(), key=lambda kv: -kv[1]))
    checks.append(s)
print("%-10s %-16s %5d committed %5d aborted %6.0f txn/s | %s" % (sys.argv[1], r["level"], r["committed"], r["aborted"], r["throughput"], "; ".join(checks)))
' "$1"
}
run() { # name dsn level objects [extra flags]
  local name=$1 dsn=$2 level=$3 objs=$4
  shift 4
  "$work/fickle" stress --dsn "$dsn" --level "$level" --sessions "$sessions" --txns "$txns" --objects "$objs" --json "$@" | summary "$name" || true
}
pg="postgres://postgres@127.0.0.1:$pport/postgres?sslmode=disable"
fk="postgres://fickle@127.0.0.1:$fport/fickle?sslmode=disable"
echo "fickle stress, $sessions sessions, $txns transactions, mt unless said (* = requested level)"
run postgres "$pg" serializable "$objects"
run postgres "$pg" repeatable-read "$objects"
run postgres "$pg" read-committed 3 --dist hotspot
run pg-cas "$pg" serializable "$objects" --workload cas
for level in read-committed read-atomic causal prefix snapshot serializable; do
  run fickle "$fk" "$level" "$objects"
done

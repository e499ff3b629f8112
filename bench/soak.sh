#!/usr/bin/env bash
# soak.sh runs fickle's soak benchmark (bench/soak, issue 12) twice, with and
# without --history: pgbench's TPC-B-like script (prepared, 8 clients) beside
# 200 connections that vanish in the middle of transactions, for the given
# duration; the server's RSS is sampled every 30 s. With --history it then
# checks that every acknowledged commit is in the history and runs
# `fickle check` on it. Not run in CI; figures in docs/benchmarks.md.
#
# Usage: bench/soak.sh [-d duration] [-o outdir] [-r pgbench rate] [-t think] [-- extra fickle serve flags]
# Defaults: -d 30m, -o a new temporary directory, fickle serve --realtime (or
# pgbench's connections may see its tables before pgbench -i filled them, as
# the levels allow). The run without --history goes as fast as it can; the
# run with it paces pgbench at -r transactions per second (default 50) and
# the mixed connections at one transaction per -t (default 2s) each, so that
# `fickle check` can hold the whole history in memory afterwards.
set -euo pipefail
duration=30m out= rate=50 think=2s
while getopts "d:o:r:t:" opt; do
  case $opt in
    d) duration=$OPTARG ;; o) out=$OPTARG ;; r) rate=$OPTARG ;; t) think=$OPTARG ;;
    *) sed -n '2,16p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
root=$(cd "$(dirname "$0")/.." && pwd)
out=${out:-$(mktemp -d)}
mkdir -p "$out"
echo "building fickle and the soak driver into $out..." >&2
(cd "$root" && go build -o "$out/fickle" ./cmd/fickle && go build -o "$out/soak" ./bench/soak)
serve=(--realtime "$@")
echo "== without --history"
"$out/soak" -bin "$out/fickle" -duration "$duration" -out "$out/no-history" -- "${serve[@]}"
echo "== with --history"
"$out/soak" -bin "$out/fickle" -duration "$duration" -history -pgbench-rate "$rate" -think "$think" -out "$out/history" -- "${serve[@]}"

#!/usr/bin/env bash
# checkers.sh measures fickle-check (`fickle check` in a binary without the
# server: the same code, about 25 MB less resident memory) at RC, RA and CC on
# generated histories in Plume's text format, and, given an AWDIT binary,
# AWDIT's check on the same files, runs interleaved, wall time including
# parsing and peak memory, with the ratios fickle / AWDIT.
#
# Usage: bench/checkers.sh [-a AWDIT] [-n "10000 100000 1000000"] [-r rounds] [-g] [-d dir]
#   -a  path of an AWDIT binary (github.com/lassemoldrup/AWDIT, `cargo build --release`)
#   -n  history sizes in transactions (default 10^4, 10^5 and 10^6)
#   -r  rounds of each run (default 3; the median is printed)
#   -g  also check histories from AWDIT's own generator (needs -a; slow past 10^5)
#   -d  keep the generated histories in dir (default: a temporary directory)
#
# Histories: fickle's generator (bench/genhist, 32 sessions, 8 operations a
# transaction, half reads) consistent at each level, and a causal history of
# the shape of AWDIT's generator (about 5 operations a transaction, 80%
# reads, sqrt(5n) sessions). fickle checks read committed as Biswas and Enea
# define it (--level read-committed-be), the definition AWDIT checks. Each
# line gives the median wall time and peak resident memory of each tool, the
# ratios, and the processor time (user + system), which a loaded machine
# inflates less than wall time.
set -euo pipefail
awdit="" sizes="10000 100000 1000000" rounds=3 awdit_gen=0 dir=""
while getopts "a:n:r:gd:" opt; do
  case $opt in
    a) awdit=$OPTARG ;; n) sizes=$OPTARG ;; r) rounds=$OPTARG ;; g) awdit_gen=1 ;; d) dir=$OPTARG ;;
    *) sed -n '2,13p' "$0"; exit 2 ;;
  esac
done
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -n "$dir" ] || dir=$work/histories
mkdir -p "$dir"
cd "$root"
CGO_ENABLED=0 go build -o "$work/fickle-check" ./cmd/fickle-check
go build -o "$work/genhist" ./bench/genhist
[ -z "$awdit" ] || [ -x "$awdit" ] || { echo "checkers.sh: $awdit is not executable" >&2; exit 2; }

# measure TOOL LEVEL FILE prints "wall_s peak_kb cpu_s" of one run and fails
# when the verdict is not "consistent" (every history here is consistent at
# the levels it is checked at).
measure() {
  local tool=$1 level=$2 file=$3 out=$work/out
  case $tool in
    fickle)
      local fl=$level
      [ "$level" = RC ] && fl=read-committed-be
      /usr/bin/time -f "%e %M %U %S" -o "$work/time" "$work/fickle-check" --format plume --level "$fl" "$file" >"$out" 2>&1 || true
      grep -q ": consistent at" "$out" || { echo "fickle on $file at $level: $(head -3 "$out")" >&2; return 1; } ;;
    awdit)
      local al
      case $level in RC) al=read-committed ;; RA) al=read-atomic ;; CC) al=causal ;; esac
      /usr/bin/time -f "%e %M %U %S" -o "$work/time" "$awdit" check -i "$al" "$file" >"$out" 2>&1 || true
      grep -q "^Consistent" "$out" || { echo "AWDIT on $file at $level: $(head -3 "$out")" >&2; return 1; } ;;
  esac
  awk '{printf "%s %s %.2f\n", $1, $2, $3 + $4}' "$work/time"
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# compare LABEL LEVEL FILE runs both tools on FILE, interleaved, and prints a line.
compare() {
  local label=$1 level=$2 file=$3
  : >"$work/f" ; : >"$work/a"
  for _ in $(seq "$rounds"); do
    measure fickle "$level" "$file" >>"$work/f"
    [ -z "$awdit" ] || measure awdit "$level" "$file" >>"$work/a"
  done
  local fw fm fc
  fw=$(cut -d' ' -f1 "$work/f" | median) fm=$(cut -d' ' -f2 "$work/f" | median) fc=$(cut -d' ' -f3 "$work/f" | median)
  if [ -z "$awdit" ]; then
    printf "%-34s %-3s fickle %7.2f s %6d MB cpu %6.2f s\n" "$label" "$level" "$fw" $((fm / 1024)) "$fc"
    return
  fi
  local aw am ac
  aw=$(cut -d' ' -f1 "$work/a" | median) am=$(cut -d' ' -f2 "$work/a" | median) ac=$(cut -d' ' -f3 "$work/a" | median)
  printf "%-34s %-3s fickle %7.2f s %6d MB cpu %6.2f s | AWDIT %7.2f s %6d MB cpu %6.2f s | time %.2fx memory %.2fx cpu %.2fx\n" \
    "$label" "$level" "$fw" $((fm / 1024)) "$fc" "$aw" $((am / 1024)) "$ac" \
    "$(echo "$fw / $aw" | bc -l)" "$(echo "$fm / $am" | bc -l)" "$(echo "$fc / $ac" | bc -l)"
}

echo "# $(date -u '+%Y-%m-%d %H:%M') UTC, load average $(cut -d' ' -f1-3 /proc/loadavg), $rounds rounds, medians"
for n in $sizes; do
  for level in RC RA CC; do
    f=$dir/fickle-$level-$n.txt
    [ -s "$f" ] || "$work/genhist" -n "$n" -sessions 32 -level "$level" -format plume -o "$f"
    compare "fickle's generator, n=$n" "$level" "$f"
  done
  f=$dir/awdit-shape-$n.txt
  [ -s "$f" ] || "$work/genhist" -n "$n" -shape awdit -level CC -format plume -o "$f"
  for level in RC RA CC; do
    compare "AWDIT's shape (causal), n=$n" "$level" "$f"
  done
  if [ "$awdit_gen" = 1 ] && [ -n "$awdit" ]; then
    f=$dir/awdit-gen-$n.txt
    [ -s "$f" ] || "$awdit" generate -e $((5 * n)) -l $((n / 10)) -i causal -f plume "$f" >/dev/null
    for level in RC RA CC; do
      compare "AWDIT's generator (causal), n=$n" "$level" "$f"
    done
  fi
done
echo "end load average $(cut -d' ' -f1-3 /proc/loadavg)"

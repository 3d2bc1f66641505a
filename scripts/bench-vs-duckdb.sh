#!/usr/bin/env bash
# bench-vs-duckdb.sh: time `benchnote report` against DuckDB computing the
# same per-run statistics and across-run medians (scripts/duckdb/query.sql)
# on the same generated sweep, interleaved in one run, and print the medians
# of wall time and peak RSS (/usr/bin/time -v) and their ratios.
#
#   scripts/bench-vs-duckdb.sh [-f parquet|csv] [-r ROWS_PER_RUN] [-n REPS] [-d DIR] [-c BENCHNOTE_CMD]
#
# Defaults: Parquet, 400,000 rows per run (5 levels × 5 runs = 10M requests),
# 3 repetitions, sweeps under ${BENCHNOTE_BENCH_DIR:-/tmp}. The sweep is
# generated once (internal/bench/sweepgen) and reused. DuckDB is a benchmark
# peer only: it is installed here with npm (@duckdb/node-api) into
# scripts/duckdb/node_modules, never used by benchnote.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

format=parquet rows=400000 reps=3 dir="${BENCHNOTE_BENCH_DIR:-/tmp}" extra=""
while getopts "f:r:n:d:c:" opt; do
	case $opt in
	f) format=$OPTARG ;;
	r) rows=$OPTARG ;;
	n) reps=$OPTARG ;;
	d) dir=$OPTARG ;;
	c) extra=$OPTARG ;;
	*) exit 2 ;;
	esac
done
total=$((rows * 25))
sweep="$dir/benchnote-sweep-$format-$rows"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "== generating $sweep ($total requests, 11 columns) if absent" >&2
go run ./internal/bench/gensweep -format "$format" -rows "$rows" -o "$sweep" >&2
echo "== building benchnote" >&2
go build -o "$work/benchnote" ./cmd/benchnote
if [ ! -d scripts/duckdb/node_modules/@duckdb/node-api ]; then
	echo "== installing @duckdb/node-api (npm ci)" >&2
	(cd scripts/duckdb && npm ci --no-audit --no-fund >&2)
fi

# measure NAME CMD...: appends "NAME seconds maxrss_kb cpu_seconds" to
# $work/times (cpu: user + system time, less sensitive than wall time to
# what else the shared machine runs).
measure() {
	local name=$1
	shift
	if ! /usr/bin/time -v -o "$work/time.txt" "$@" >"$work/stdout.txt" 2>"$work/stderr.txt"; then
		echo "$name failed:" >&2
		cat "$work/stderr.txt" >&2
		exit 1
	fi
	local wall rss cpu
	cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {print s}' "$work/time.txt")
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s}' "$work/time.txt")
	rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time.txt")
	echo "$name $wall $rss $cpu" >>"$work/times"
	printf '%-10s %8.2f s %8.0f MB %8.2f CPU-s\n' "$name" "$wall" "$((rss / 1024))" "$cpu" >&2
}

for i in $(seq 1 "$reps"); do
	echo "== repetition $i of $reps" >&2
	# shellcheck disable=SC2086
	measure benchnote "$work/benchnote" report "$sweep" -o "$work/out" $extra
	measure duckdb node scripts/duckdb/stats.mjs "$format" "$sweep"
done

median() { sort -n | awk '{a[NR] = $1} END {if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
bt=$(awk '$1 == "benchnote" {print $2}' "$work/times" | median)
dt=$(awk '$1 == "duckdb" {print $2}' "$work/times" | median)
bm=$(awk '$1 == "benchnote" {print $3 / 1024}' "$work/times" | median)
dm=$(awk '$1 == "duckdb" {print $3 / 1024}' "$work/times" | median)
bc=$(awk '$1 == "benchnote" {print $4}' "$work/times" | median)
dc=$(awk '$1 == "duckdb" {print $4}' "$work/times" | median)
echo
echo "sweep: $sweep ($format, $total requests), medians of $reps interleaved runs"
printf '%-10s %8s %10s %8s\n' "" "time s" "peak MB" "CPU-s"
printf '%-10s %8.2f %10.0f %8.2f\n' benchnote "$bt" "$bm" "$bc"
printf '%-10s %8.2f %10.0f %8.2f\n' duckdb "$dt" "$dm" "$dc"
awk -v bt="$bt" -v dt="$dt" -v bm="$bm" -v dm="$dm" -v bc="$bc" -v dc="$dc" \
	'BEGIN {printf "ratio benchnote/duckdb: time %.2f×, peak RSS %.2f×, CPU %.2f×\n", bt / dt, bm / dm, bc / dc}'

#!/bin/sh
# Measures wall time and peak RSS of `benchnote validate` and `benchnote
# report` on each hostile sweep of issue 7 (see internal/hostile), one
# fresh process each, with /usr/bin/time -v. Run from the repository root:
#
#     sh scripts/hostile-rss.sh [DIR]
#
# DIR (default: a new temporary directory) receives the sweeps; the 1 GiB
# CSV line is a sparse file and takes no disk space.
set -eu
dir=${1:-$(mktemp -d)}
go test ./internal/hostile -run '^TestWriteSweeps$' -count 1 -args -write-sweeps "$dir" >/dev/null
go build -o "$dir/benchnote" ./cmd/benchnote
printf '%-24s %-9s %5s %9s %12s\n' sweep command exit seconds 'peak RSS MB'
for sweep in openmetrics-4KB-label parquet-bomb parquet-padded-bomb csv-1GB-line yaml-alias-bomb; do
	for cmd in validate report; do
		args="$cmd $dir/$sweep"
		[ "$cmd" = report ] && args="$args -o $dir/out-$sweep"
		set +e
		/usr/bin/time -v "$dir/benchnote" $args >/dev/null 2>"$dir/time.txt"
		code=$?
		set -e
		secs=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$dir/time.txt" | awk -F: '{ print $(NF-1)*60 + $NF }')
		kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$dir/time.txt")
		printf '%-24s %-9s %5s %9s %12s\n' "$sweep" "$cmd" "$code" "$secs" "$(awk "BEGIN { printf \"%.1f\", $kb / 1024 }")"
	done
done

# The hostile cases of issue 20 (notebooks, numbers, imports, ranges) run
# under `go test` in a child process each, bounded to 2 s and 200 MB
# (cmd/benchnote/internal/cli/bounded_test.go); list what each one cost.
echo
echo "go test hostile cases (each bounded to 2 s wall and 200 MB peak RSS):"
go test ./cmd/benchnote/internal/cli -run 'Hostile|BoundedRun' -count 1 -v 2>&1 | sed -n 's/.*hostile: //p'

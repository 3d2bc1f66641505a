#!/usr/bin/env bash
# import-diff.sh: import the same inputs with two benchnote binaries and
# say, per input, whether the runs written are the same but for their
# series: the series directory above the level, run.yaml's `series:` and
# `repeat:` (repeats are numbered per series), and the note on the series
# labels in `recomputed`. Each run is compared by its level directory, its
# run.yaml or reported.yaml so normalised, and the bytes of its
# requests.parquet and env.json; the runs of an input are compared as a
# set, since their directories differ. Written for issue 21:
#
#   scripts/import-diff.sh BEFORE AFTER INPUT...
#
# An INPUT is what `benchnote import` takes (a file or a directory). Prints
# one line per input: "same", "same but for series" (with the series
# directories written), "both refused" or "DIFFERENT" (with a diff); exits
# 1 when any input differs.
set -euo pipefail
[ $# -ge 3 ] || { sed -n 2,17p "$0"; exit 2; }
before=$1 after=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# runs DIR: one line per run directory of the import DIR, sorted: the
# level directory and a hash of the run's normalised files.
runs() {
	local dir=$1
	find "$dir" \( -name run.yaml -o -name reported.yaml \) | sort | while read -r cfg; do
		local run rel level
		run=$(dirname "$cfg")
		rel=${run#"$dir"/}
		level=$(basename "$(dirname "$rel")")
		{
			awk '
				/^series:/ { skip = 1; next }
				skip && /^  / { next }
				{ skip = 0 }
				/^repeat: / { next }
				/^  - .series labels / { next }
				{ lines[++n] = $0 }
				END {
					for (i = 1; i <= n; i++) {
						# A recomputed: list that held only the note.
						if (lines[i] == "recomputed:" && (i == n || lines[i+1] !~ /^  - /)) continue
						print lines[i]
					}
				}' "$cfg"
			for f in requests.parquet env.json; do
				[ -f "$run/$f" ] && sha256sum <"$run/$f"
			done
			true
		} | sha256sum | sed "s|^|$level $(basename "$run" | sed 's/-[0-9]*$//') |"
	done | sort
}

# seriesDirs DIR: the series directories of an import (those above a level).
seriesDirs() {
	find "$1" \( -name run.yaml -o -name reported.yaml \) | sed "s|^$1/||" | awk -F/ 'NF == 4 { print $1 }' | sort -u
}

status=0
i=0
for input in "$@"; do
	i=$((i + 1))
	b="$work/$i-before" a="$work/$i-after"
	set +e
	"$before" import "$input" -o "$b" >/dev/null 2>"$work/$i-before.err"
	bc=$?
	"$after" import "$input" -o "$a" >/dev/null 2>"$work/$i-after.err"
	ac=$?
	set -e
	if [ $bc -ne 0 ] && [ $ac -ne 0 ]; then
		if cmp -s "$work/$i-before.err" "$work/$i-after.err"; then
			echo "both refused: $input"
		else
			echo "DIFFERENT (both refused, other messages): $input"
			diff "$work/$i-before.err" "$work/$i-after.err" | sed 's/^/    /'
			status=1
		fi
		continue
	fi
	if [ $bc -ne $ac ]; then
		echo "DIFFERENT (exit $bc before, $ac after): $input"
		cat "$work/$i-before.err" "$work/$i-after.err" | sed 's/^/    /'
		status=1
		continue
	fi
	runs "$b" >"$work/$i-before.runs"
	runs "$a" >"$work/$i-after.runs"
	if ! cmp -s "$work/$i-before.runs" "$work/$i-after.runs"; then
		echo "DIFFERENT: $input"
		diff "$work/$i-before.runs" "$work/$i-after.runs" | sed 's/^/    /'
		status=1
		continue
	fi
	series=$(seriesDirs "$a" | paste -sd ' ' -)
	if [ -z "$series" ] && diff -r "$b" "$a" >/dev/null; then
		echo "same: $input"
	elif [ -z "$series" ]; then
		echo "same but for series (one series, unlabelled; other files differ: $(diff -rq "$b" "$a" | sed "s|$work/$i-[a-z]*/||g" | paste -sd ';' -)): $input"
	else
		echo "same but for series ($series): $input"
	fi
done
exit $status

#!/usr/bin/env bash
# same-report.sh: prove that two versions of benchnote write byte-identical
# reports (report.md, report.html, pr.md, summary.json, every plot) for the
# same sweeps: the check behind "streaming changes no output" (issue 8).
#
#   scripts/same-report.sh BASE_REV SWEEP...
#
# Builds benchnote at BASE_REV (a commit, branch or tag, in a temporary git
# worktree) and at the working tree, renders every SWEEP with both into a
# temporary directory and compares the two reports file by file with
# `diff -r`. Exits 0 when every report is identical, 1 (with the diff's
# summary) when one differs. Nothing outside its temporary directory is
# written.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ $# -lt 2 ]; then
	echo "usage: scripts/same-report.sh BASE_REV SWEEP..." >&2
	exit 2
fi
base=$1
shift
work="$(mktemp -d)"
cleanup() {
	git worktree remove --force "$work/base-src" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

git worktree add --detach -q "$work/base-src" "$base"
(cd "$work/base-src" && go build -o "$work/benchnote-base" ./cmd/benchnote)
go build -o "$work/benchnote-new" ./cmd/benchnote

status=0
for sweep in "$@"; do
	name=$(echo "$sweep" | tr '/' '_')
	"$work/benchnote-base" report "$sweep" -o "$work/base-$name" -q 2>/dev/null
	"$work/benchnote-new" report "$sweep" -o "$work/new-$name" -q 2>/dev/null
	if diff -r -q "$work/base-$name" "$work/new-$name"; then
		files=$(find "$work/new-$name" -type f | wc -l)
		echo "identical: $sweep ($files files)"
	else
		echo "DIFFERENT: $sweep" >&2
		status=1
	fi
done
exit $status

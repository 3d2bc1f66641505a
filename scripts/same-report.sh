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
# `diff -r`, and their exit codes, stdout and stderr. Exits 0 when every
# report is identical, 1 (with the differences) when one differs. Nothing outside its temporary directory is
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
	set +e
	"$work/benchnote-base" report "$sweep" -o "$work/base-$name" >"$work/base-$name.stdout" 2>"$work/base-$name.stderr"
	base_rc=$?
	"$work/benchnote-new" report "$sweep" -o "$work/new-$name" >"$work/new-$name.stdout" 2>"$work/new-$name.stderr"
	new_rc=$?
	set -e
	sed -i "s|$work/base-$name|OUT|g" "$work/base-$name.stdout" "$work/base-$name.stderr"
	sed -i "s|$work/new-$name|OUT|g" "$work/new-$name.stdout" "$work/new-$name.stderr"
	same=yes
	[ "$base_rc" = "$new_rc" ] || same=no
	cmp -s "$work/base-$name.stdout" "$work/new-$name.stdout" || same=no
	cmp -s "$work/base-$name.stderr" "$work/new-$name.stderr" || same=no
	if [ -d "$work/base-$name" ] || [ -d "$work/new-$name" ]; then
		diff -r -q "$work/base-$name" "$work/new-$name" >&2 || same=no
	fi
	if [ $same = yes ]; then
		files=$({ find "$work/new-$name" -type f 2>/dev/null || true; } | wc -l)
		echo "identical: $sweep (exit $new_rc, $files files, the same stdout and stderr)"
	else
		echo "DIFFERENT: $sweep (exit $base_rc, then $new_rc)" >&2
		diff "$work/base-$name.stderr" "$work/new-$name.stderr" >&2 || true
		status=1
	fi
done
exit $status

package ingest

import (
	"testing"

	"github.com/benchnote/benchnote/internal/fuzzbudget"
)

// withinBudget runs parse and fails t when it takes longer than the fuzz
// budget (internal/fuzzbudget: 1 s for an input of at most 64 KiB, twice
// in a row); every Fuzz target in this package applies it, so that
// fuzzing finds slow inputs, not only crashes. See docs/fuzzing.md for the
// commands.
func withinBudget(t *testing.T, what string, size int, parse func()) {
	t.Helper()
	fuzzbudget.Check(t, what, size, parse)
}

package ingest

import (
	"testing"
	"time"
)

// fuzzBudget is the time a parser may take on one fuzz input of at most
// fuzzMaxInput bytes; every Fuzz target in this package fails an input
// that takes longer, so that fuzzing finds slow inputs, not only crashes.
// Typical inputs take well under a millisecond; the margin absorbs a busy
// machine. See docs/fuzzing.md for the commands.
const (
	fuzzBudget   = time.Second
	fuzzMaxInput = 64 << 10
)

// withinBudget runs parse and fails t when it takes longer than fuzzBudget
// on an input of at most fuzzMaxInput bytes, twice in a row: a slow input
// is slow every time, while a stall of a busy machine (the fuzzing workers
// share it with everything else) is not.
func withinBudget(t *testing.T, what string, size int, parse func()) {
	t.Helper()
	start := time.Now()
	parse()
	d := time.Since(start)
	if d <= fuzzBudget || size > fuzzMaxInput {
		return
	}
	start = time.Now()
	parse()
	if again := time.Since(start); again > fuzzBudget {
		t.Fatalf("%s took %v, then %v, on %d bytes; the budget is %v", what, d, again, size, fuzzBudget)
	}
}

// Package fuzzbudget is the per-input time budget of benchnote's fuzz
// targets (docs/fuzzing.md): a parser may take at most Budget on an input
// of at most MaxInput bytes, so that fuzzing finds inputs whose cost grows
// faster than their size, not only crashes. It is imported by tests only.
package fuzzbudget

import (
	"testing"
	"time"
)

// Budget is the time one input of at most MaxInput bytes may take. Typical
// inputs take well under a millisecond; the margin absorbs a busy machine.
const (
	Budget   = time.Second
	MaxInput = 64 << 10
)

// Check runs parse and fails t when it takes longer than Budget on an
// input of size bytes, at most MaxInput, twice in a row: a slow input is
// slow every time, while a stall of a busy machine (the fuzzing workers
// share it with everything else) is not. what names the parser in the
// failure. parse may run twice.
func Check(t testing.TB, what string, size int, parse func()) {
	t.Helper()
	check(t, what, size, parse, time.Since)
}

// check is Check with the clock as a parameter, for its test.
func check(t testing.TB, what string, size int, parse func(), since func(time.Time) time.Duration) {
	t.Helper()
	start := time.Now()
	parse()
	d := since(start)
	if d <= Budget || size > MaxInput {
		return
	}
	start = time.Now()
	parse()
	if again := since(start); again > Budget {
		t.Fatalf("%s took %v, then %v, on %d bytes; the budget is %v", what, d, again, size, Budget)
	}
}

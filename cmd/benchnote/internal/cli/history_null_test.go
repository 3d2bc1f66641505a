package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// historyOf archives sweeps of simulated days (simSweepDir, seeds from
// seed on), labelled rev-0, rev-1, …, the engine factor times slower from
// day from on, and returns the history's history.md and its by-entry
// summary.
func historyOf(t *testing.T, days int, seed uint64, from int, factor float64) (string, []historyGroup) {
	t.Helper()
	dir := t.TempDir()
	arch := filepath.Join(dir, "archive")
	for day := 0; day < days; day++ {
		f := 1.0
		if day >= from {
			f = factor
		}
		if code, out, errOut := runCLI(t, "archive", "add", simSweepDir(t, day, seed+uint64(day), f), "--to", arch, "--label", fmt.Sprintf("rev-%d", day)); code != 0 {
			t.Fatalf("add day %d: exit %d, %q %q", day, code, out, errOut)
		}
	}
	out := filepath.Join(dir, "h")
	if code, msg, errOut := runCLI(t, "history", arch, "-o", out); code != 0 {
		t.Fatalf("history: exit %d: %s %s", code, msg, errOut)
	}
	md, _ := os.ReadFile(filepath.Join(out, "history.md"))
	data, err := os.ReadFile(filepath.Join(out, "history.json"))
	if err != nil {
		t.Fatal(err)
	}
	var h struct {
		ByEntry []historyGroup `json:"by_entry"`
	}
	if err := json.Unmarshal(data, &h); err != nil {
		t.Fatal(err)
	}
	return string(md), h.ByEntry
}

type historyGroup struct {
	Label        string `json:"label"`
	ChangePoints int    `json:"change_points"`
	Secondary    int    `json:"secondary"`
	Pending      int    `json:"pending"`
}

// changesSection is history.md's summary of changes.
func changesSection(md string) string {
	_, s, _ := strings.Cut(md, "## Changes\n\n")
	s, _, _ = strings.Cut(s, "\n## ")
	return s
}

// TestHistoryOfANullArchive: 20 sweeps of one configuration (2 levels, 3
// runs of 60 requests each) that differ only in their seeds. Nothing
// changed, so history, with its defaults (no correction), may flag at
// most one change point.
func TestHistoryOfANullArchive(t *testing.T) {
	if testing.Short() {
		t.Skip("archives 20 simulated sweeps")
	}
	md, groups := historyOf(t, 20, 7001, 20, 1)
	points := 0
	for _, g := range groups {
		points += g.ChangePoints
	}
	t.Logf("null archive of 20 entries: %d false change point(s)\n%s", points, changesSection(md))
	if points > 1 {
		t.Errorf("%d change points in an archive where nothing changed, want at most 1:\n%s", points, changesSection(md))
	}
}

// TestHistoryOfOneShift: 10 sweeps, every engine step 25 % slower from
// the sixth on: one entry of changes, named by its label, in one line
// above everything else, and nothing awaiting confirmation after it.
func TestHistoryOfOneShift(t *testing.T) {
	if testing.Short() {
		t.Skip("archives 10 simulated sweeps")
	}
	md, groups := historyOf(t, 10, 8001, 5, 1.25)
	t.Logf("×1.25 from rev-5 of 10 entries:\n%s", changesSection(md))
	var with []historyGroup
	for _, g := range groups {
		if g.ChangePoints > 0 || g.Pending > 0 {
			with = append(with, g)
		}
	}
	if len(with) != 1 || with[0].Label != "rev-5" || with[0].Pending != 0 {
		t.Errorf("entries with change points or awaiting confirmation: %+v, want rev-5 alone", with)
	}
	if !strings.Contains(changesSection(md), "- **rev-5** (`") {
		t.Errorf("the summary does not name rev-5:\n%s", changesSection(md))
	}
}

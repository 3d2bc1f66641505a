package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/benchnote/benchnote/internal/sim"
	"github.com/benchnote/benchnote/report"
)

// TestPRFileOfATwelveLevelSweep renders a simulated sweep of 12
// concurrency levels × 3 repeats (the size at which report.md came close
// to GitHub's comment limit): pr.md holds every level's row, stays under
// report.PRLimit and holds no link; report.md keeps its relative links.
func TestPRFileOfATwelveLevelSweep(t *testing.T) {
	cfg := sim.DefaultConfig().WithRequests(40)
	cfg.Levels = nil
	for _, c := range []int{1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64} {
		cfg.Levels = append(cfg.Levels, sim.Level{Concurrency: c, Requests: 40, Format: "csv"})
	}
	cfg.Stalls = nil
	sw, err := sim.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "sweep12")
	if err := sw.Write(dir); err != nil {
		t.Fatal(err)
	}
	files := reportFiles(t, dir)
	pr, md := string(files[report.PRFile]), string(files["report.md"])
	t.Logf("12 levels × 3 runs: pr.md %d bytes (%d characters), report.md %d bytes (%d characters)",
		len(pr), utf8.RuneCountInString(pr), len(md), utf8.RuneCountInString(md))
	if len(pr) > report.PRLimit {
		t.Errorf("pr.md is %d bytes, over %d", len(pr), report.PRLimit)
	}
	for _, c := range []int{1, 64} {
		if !strings.Contains(pr, fmt.Sprintf("\n| %d ", c)) {
			t.Errorf("pr.md has no row for concurrency %d:\n%s", c, grepLines(pr, "| "))
		}
	}
	if strings.Contains(pr, "](") || strings.Contains(pr, "did not fit") {
		t.Errorf("pr.md holds a link or left levels out:\n%s", grepLines(pr, "]("))
	}
	if !strings.Contains(md, "](plots/latency-ttft.svg)") || !strings.Contains(md, "This file links its charts relatively") {
		t.Error("report.md does not link its charts relatively or does not say so")
	}
}

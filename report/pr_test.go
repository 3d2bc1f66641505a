package report

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/benchnote/benchnote/analyze"
)

// TestPRMarkdownStaysUnderTheLimit: however many levels and findings, and
// however long the inputs' texts, pr.md stays within PRLimit and says what
// it left out.
func TestPRMarkdownStaysUnderTheLimit(t *testing.T) {
	tests := []struct {
		name              string
		levels, findings  int
		text              int // runes of the title, an environment value and each message
		wantLevelsLeftOut bool
		wantFindingsLeft  bool
	}{
		{"small", 3, 2, 20, false, false},
		{"many levels", 5000, 2, 20, true, false},
		{"many long findings", 12, 400, 5000, false, true},
		{"long inputs", 50, 10, 1 << 20, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var keys []analyze.LevelKey
			for i := 0; i < tt.levels; i++ {
				keys = append(keys, analyze.LevelKey{Mode: "concurrency", Concurrency: i + 1})
			}
			s := levelSummary(keys...)
			long := strings.Repeat("é|<x>", tt.text/5+1)
			s.Title = long
			s.Environment.Canonical = []analyze.EnvField{{Key: "gpu", Value: long}, {Key: "model", Value: long}}
			for i := 0; i < tt.findings; i++ {
				s.Findings = append(s.Findings, analyze.Finding{Severity: "warning", Rule: "rule-" + fmt.Sprint(i), Message: long})
			}
			s.Method.SLO = analyze.SLO{TTFTms: 1000, Attainment: 0.9, From: analyze.SLOFrom{TTFT: analyze.FromSweepYAML, TPOT: analyze.FromSweepYAML, E2E: analyze.FromSweepYAML}}
			pr := prMarkdown(s)
			if len(pr) > PRLimit || !utf8.Valid(pr) {
				t.Fatalf("pr.md is %d bytes (valid UTF-8: %v), over the %d limit", len(pr), utf8.Valid(pr), PRLimit)
			}
			text := string(pr)
			if got := strings.Contains(text, fmt.Sprintf("of %d levels of the table, which did not fit", tt.levels)); got != tt.wantLevelsLeftOut {
				t.Errorf("says levels were left out: %v, want %v (%d bytes)", got, tt.wantLevelsLeftOut, len(pr))
			}
			if got := strings.Contains(text, "error and warning findings that did not fit"); got != tt.wantFindingsLeft {
				t.Errorf("says findings were left out: %v, want %v", got, tt.wantFindingsLeft)
			}
			for _, want := range []string{"| concurrency | TTFT p95 | TPOT p95 | E2E p95 |", "Left out: ", "every chart"} {
				if !strings.Contains(text, want) {
					t.Errorf("pr.md lacks %q", want)
				}
			}
			if strings.Contains(text, "](") || strings.Contains(text, "<x>") {
				t.Error("pr.md holds a link, an image or unescaped input markup")
			}
		})
	}
}

// TestPRTableColumns: pr.md's per-level table has at most prTableColumns
// columns, goodput and errors among them, and names where the rest is.
func TestPRTableColumns(t *testing.T) {
	s := levelSummary(analyze.LevelKey{Mode: "concurrency", Concurrency: 4})
	pr := string(prMarkdown(s))
	const header = "| concurrency | TTFT p95 | TPOT p95 | E2E p95 | output tokens/s | goodput | errors |\n"
	if !strings.Contains(pr, header) {
		t.Fatalf("pr.md's table header is not %q:\n%s", header, pr)
	}
	if n := strings.Count(header, "|") - 1; n > prTableColumns {
		t.Errorf("%d columns, want at most %d", n, prTableColumns)
	}
	if !strings.Contains(pr, "each level has 3 runs") || !strings.Contains(pr, "| 4 | 100.0\u00a0±\u00a01.0 |") {
		t.Error("pr.md's table does not say its runs in the caption, or breaks its figures")
	}
	if !strings.Contains(pr, "The p50s, requests/s and runs are in report.md's table under **Answer**") {
		t.Error("pr.md does not say where the rest of the table is")
	}
}

// TestPRTableRows: levels with different numbers of runs say theirs in
// the load cell; a suspect level carries its mark there, its figures none.
func TestPRTableRows(t *testing.T) {
	s := levelSummary(c4, c16)
	s.Method.ErrorRateThreshold = 0.01
	s.Levels[1].Runs = []string{"a", "b"}
	s.Levels[1].Stats[0].Runs, s.Levels[1].Stats[0].FewRuns = 2, true
	s.Levels[1].ErrorPercent = 1.5
	s.Levels[1].Suspect = []analyze.Suspicion{{Rule: "error-rate", Keys: []string{"ttft."}, Runs: []string{"c16/run-2"}, RunsOf: 2}}
	got := dropFlags.Replace(prTableOf(s, s.Levels))
	const nb = "\u00a0"
	for _, want := range []string{
		"\"± <0.01\" is a MAD below the last digit shown): nearest-rank p95",
		"| 4 (3 runs) | 100.0" + nb + "±" + nb + "1.0 | n/a | n/a | n/a | n/a | 0" + nb + "% |\n",
		"| 16 (2 runs ⚠) ⚠a | 200.0" + nb + "±" + nb + "1.0 | n/a | n/a | n/a | n/a | 1.500" + nb + "%" + nb + "⚠ |\n",
		"\n- ⚠a concurrency 16: over 1 % of measured requests failed in 1 of 2 runs (`c16/run-2`): latency describes only those that succeeded.\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("pr.md's table lacks %q:\n%s", want, got)
		}
	}
}

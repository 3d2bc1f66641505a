package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchnote/benchnote/ingest"
)

func TestParseSLO(t *testing.T) {
	tests := []struct {
		in   string
		want ingest.SLO // applied on top of the defaults
		from ingest.SLOSources
		err  string
	}{
		{"", ingest.SLO{TTFTms: 1000, TPOTms: 150, E2Ems: 5000, Attainment: 0.9},
			ingest.SLOSources{TTFT: "default", TPOT: "default", E2E: "default", Attainment: "default"}, ""},
		{"ttft=500ms,tpot=50ms", ingest.SLO{TTFTms: 500, TPOTms: 50, E2Ems: 5000, Attainment: 0.9},
			ingest.SLOSources{TTFT: "command line", TPOT: "command line", E2E: "default", Attainment: "default"}, ""},
		{" e2e = 1.5s , attainment=95% ", ingest.SLO{TTFTms: 1000, TPOTms: 150, E2Ems: 1500, Attainment: 0.95},
			ingest.SLOSources{TTFT: "default", TPOT: "default", E2E: "command line", Attainment: "command line"}, ""},
		{"TTFT=250ms,attainment=0.5", ingest.SLO{TTFTms: 250, TPOTms: 150, E2Ems: 5000, Attainment: 0.5},
			ingest.SLOSources{TTFT: "command line", TPOT: "default", E2E: "default", Attainment: "command line"}, ""},
		{"tpot=0", ingest.SLO{TTFTms: 1000, TPOTms: 0, E2Ems: 5000, Attainment: 0.9},
			ingest.SLOSources{TTFT: "default", TPOT: "command line", E2E: "default", Attainment: "default"}, ""},
		{"ttf=500ms", ingest.SLO{}, ingest.SLOSources{}, `unknown target "ttf" (did you mean "ttft"?) (known: ttft, tpot, e2e, attainment)`},
		{"ttft=fast", ingest.SLO{}, ingest.SLOSources{}, "ttft=fast: expected a duration from 0 to one day such as 500ms or 1.5s (0 disables the target)"},
		{"ttft=-1ms", ingest.SLO{}, ingest.SLOSources{}, "ttft=-1ms: expected a duration"},
		{"e2e=2d", ingest.SLO{}, ingest.SLOSources{}, "e2e=2d: expected a duration"},
		{"e2e=NaN", ingest.SLO{}, ingest.SLOSources{}, "e2e=NaN: expected a duration"},
		{"attainment=0%", ingest.SLO{}, ingest.SLOSources{}, "attainment=0%: expected a percentage in (0, 100] such as 95%, or a share in (0, 1]"},
		{"attainment=90", ingest.SLO{}, ingest.SLOSources{}, "attainment=90: expected a percentage"},
		{"ttft=0.5", ingest.SLO{}, ingest.SLOSources{}, "ttft=0.5: a duration needs its unit, ms or s: 0.5ms or 0.5s (0 disables the target)"},
		{"e2e=250", ingest.SLO{}, ingest.SLOSources{}, "e2e=250: a duration needs its unit, ms or s: 250ms or 250s"},
		{"ttft=1s,ttft=2s", ingest.SLO{}, ingest.SLOSources{}, "ttft given twice"},
		{"ttft", ingest.SLO{}, ingest.SLOSources{}, `"ttft": expected KEY=VALUE, e.g. ttft=500ms`},
	}
	for _, tt := range tests {
		o, err := parseSLO(tt.in)
		if tt.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
				t.Errorf("parseSLO(%q) error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseSLO(%q): %v", tt.in, err)
			continue
		}
		cfg := ingest.DefaultConfig()
		o.apply(&cfg)
		if cfg.SLO != tt.want || cfg.SLOFrom != tt.from {
			t.Errorf("parseSLO(%q) applied: %+v from %+v, want %+v from %+v", tt.in, cfg.SLO, cfg.SLOFrom, tt.want, tt.from)
		}
	}
}

// TestReportSLOFlag: --slo overrides sweep.yaml's targets, and the
// headline says which came from where; a bad --slo is a usage error.
func TestReportSLOFlag(t *testing.T) {
	files := reportFiles(t, exampleSweep, "--slo", "ttft=50ms")
	md := string(files["report.md"])
	const want = "**SLOs:** TTFT ≤ 50 ms (the command line), TPOT ≤ 150 ms (sweep.yaml), E2E ≤ 10000 ms (sweep.yaml); a level meets them"
	if !strings.Contains(md, want) {
		t.Errorf("report.md lacks %q:\n%s", want, grepLines(md, "SLOs"))
	}
	// The example's lowest TTFT p50, at concurrency 1, is 62 ms: against
	// 50 ms no level keeps 90 % of its requests.
	if !strings.Contains(md, "**No concurrency level meets the SLOs.**") {
		t.Errorf("report.md does not say that no level meets TTFT ≤ 50 ms:\n%s", grepLines(md, "SLOs"))
	}
	// Not even concurrency 1: the capacity is bracketed from below.
	if !strings.Contains(md, "**Capacity: none.** Even concurrency 1 fails (the lowest level tested): no load meets the SLOs.") {
		t.Errorf("report.md does not bracket the capacity below concurrency 1:\n%s", grepLines(md, "SLOs"))
	}
	code, _, stderr := runCLI(t, "report", exampleSweep, "-o", filepath.Join(t.TempDir(), "out"), "--slo", "ttft=soon")
	if code != ExitErrors || !strings.Contains(stderr, "benchnote report: --slo: ttft=soon: expected a duration") {
		t.Errorf("bad --slo: exit %d, stderr %q", code, stderr)
	}
}

// grepLines returns the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

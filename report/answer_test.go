package report

import (
	"strings"
	"testing"

	"github.com/benchnote/benchnote/analyze"
)

func TestCapacityLine(t *testing.T) {
	c := func(n int) *analyze.LevelKey { return &analyze.LevelKey{Mode: "concurrency", Concurrency: n} }
	r := func(x float64) *analyze.LevelKey { return &analyze.LevelKey{Mode: "rate", Rate: analyze.Rate(x)} }
	conc := levelView{mode: "concurrency", ambiguous: map[string]bool{}}
	rate := levelView{mode: "rate", ambiguous: map[string]bool{}}
	tests := []struct {
		name string
		v    levelView
		c    analyze.Capacity
		want string
	}{
		{"the example", conc, analyze.Capacity{Level: c(4), EveryRun: c(4), SomeRun: c(4), Above: c(16), Levels: 3},
			"**Capacity lies between concurrency 4** (meets the SLOs in every run) **and 16** (fails); a level in between would narrow it."},
		{"median only, one run meets above", conc, analyze.Capacity{Level: c(8), EveryRun: c(4), SomeRun: c(16), Above: c(16), Levels: 4},
			"**Capacity lies between concurrency 8** (meets the SLOs by the median; every run does up to concurrency 4) **and 16** (fails by the median; at least one run meets the SLOs up to concurrency 16); a level in between would narrow it."},
		{"no level in every run", conc, analyze.Capacity{Level: c(2), SomeRun: c(2), Above: c(4), Levels: 2},
			"**Capacity lies between concurrency 2** (meets the SLOs by the median, not in every run) **and 4** (fails); a level in between would narrow it."},
		{"adjacent concurrencies", conc, analyze.Capacity{Level: c(4), EveryRun: c(4), SomeRun: c(4), Above: c(5), Levels: 3},
			"**Capacity: concurrency 4** (meets the SLOs in every run); 5, the next concurrency, fails."},
		{"rates", rate, analyze.Capacity{Level: r(2), EveryRun: r(2), SomeRun: r(2), Above: r(4), Levels: 3},
			"**Capacity lies between 2 req/s** (meets the SLOs in every run) **and 4 req/s** (fails); a level in between would narrow it."},
		{"the highest level meets", conc, analyze.Capacity{Level: c(16), EveryRun: c(16), SomeRun: c(16), Levels: 3},
			"**Capacity is at least concurrency 16**, the highest level tested (meets the SLOs in every run); a higher level would tell how far it goes."},
		{"the only level meets", conc, analyze.Capacity{Level: c(10), EveryRun: c(10), SomeRun: c(10), Levels: 1},
			"**Capacity is at least concurrency 10**, the only level tested (meets the SLOs in every run); a higher level would tell how far it goes."},
		{"none meets", rate, analyze.Capacity{Above: r(16), Levels: 1},
			"**Capacity lies below 16 req/s**, the only level tested (fails); a lower level would tell where it is."},
		{"none meets, one run does", conc, analyze.Capacity{SomeRun: c(4), Above: c(2), Levels: 3},
			"**Capacity lies below concurrency 2**, the lowest level tested (fails by the median; at least one run meets the SLOs up to concurrency 4); a lower level would tell where it is."},
		{"not even concurrency 1", conc, analyze.Capacity{Above: c(1), Levels: 2},
			"**Capacity: none.** Even concurrency 1 fails (the lowest level tested): no load meets the SLOs."},
		{"no goodput figure", conc, analyze.Capacity{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := capacityLine(tt.v, analyze.Answer{Capacity: tt.c}); got != tt.want {
				t.Errorf("capacityLine =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
	// A level of one run does not say "every run".
	one := analyze.Answer{Level: c(10), Goodput: analyze.AcrossRuns{Median: 100, Runs: 1},
		Capacity: analyze.Capacity{Level: c(10), EveryRun: c(10), SomeRun: c(10), Levels: 1}}
	if got, want := capacityLine(conc, one), "**Capacity is at least concurrency 10**, the only level tested (meets the SLOs in its only run); a higher level would tell how far it goes."; got != want {
		t.Errorf("one run: capacityLine =\n%s\nwant\n%s", got, want)
	}
}

func TestAnswerFigures(t *testing.T) {
	ar := func(key string, median float64) analyze.AcrossRuns {
		return analyze.AcrossRuns{Key: key, Median: analyze.Num(median), MAD: 10, Runs: 3, PerRun: []analyze.Num{1, 2, 3}}
	}
	none := func(key string) analyze.AcrossRuns {
		return analyze.AcrossRuns{Key: key, Median: analyze.NaN, MAD: analyze.NaN}
	}
	vllm := &analyze.ToolMeasured{Tool: "vLLM", Runs: 1, DurationS: 100.66741408899998, Output: 1198.8884495761356, Requests: 9.933701079436696}
	tests := []struct {
		name string
		a    analyze.Answer
		want string
	}{
		{"benchnote's own", analyze.Answer{Output: ar(analyze.KeyServerOutputRate, 170), Requests: ar("throughput.requests_per_s", 12)},
			"at 170 ± 10 output tokens/s (server counter) and 12 ± 10 requests/s"},
		{"no window, no tool figures", analyze.Answer{Output: none(analyze.KeyServerOutputRate), Requests: none("throughput.requests_per_s")},
			"at output tokens/s n/a and requests/s n/a (no measurement window)"},
		{"the tool's, over its run", analyze.Answer{Output: none(analyze.KeyServerOutputRate), Requests: none("throughput.requests_per_s"), Measured: vllm},
			"at 1199 output tokens/s and 9.934 requests/s as measured by vLLM over its 100.7 s run (the file gives benchnote no measurement window for its own)"},
		{"benchnote's output, the tool's requests", analyze.Answer{Output: ar(analyze.KeyClientOutputRate, 1000), Requests: none("throughput.requests_per_s"), Measured: vllm},
			"at 1000 ± 10 output tokens/s (client records), and 9.934 requests/s as measured by vLLM over its 100.7 s run (the file gives benchnote no measurement window for its own)"},
		{"medians of the tool's runs", analyze.Answer{Output: none(analyze.KeyServerOutputRate), Requests: none("throughput.requests_per_s"),
			Measured: &analyze.ToolMeasured{Tool: "SGLang", Runs: 3, DurationS: 60, Output: 2000, Requests: analyze.NaN}},
			"at 2000 output tokens/s as measured by SGLang over its 3 runs (medians; 60 s a run) (the file gives benchnote no measurement window for its own), and requests/s n/a (no measurement window)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := dropFlags.Replace(answerFigures(analyze.Level{}, tt.a)); got != tt.want {
				t.Errorf("answerFigures =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestHeadlineFlagsAfterTheSentence(t *testing.T) {
	l := analyze.Level{Suspect: []analyze.Suspicion{
		{Rule: "warm-up-unavailable", Keys: []string{"ttft.", "goodput."}},
		{Rule: "counter-client-mismatch", Keys: []string{analyze.KeyServerOutputRate}},
	}}
	figs := []flaggedFigure{{"goodput", "goodput.percent"}, {"output tokens/s", analyze.KeyServerOutputRate}, {"requests/s", "throughput.requests_per_s"}}
	want := " ⚠ Suspect: goodput (warm-up not looked for); output tokens/s (counter cross-check failed)."
	if got := dropFlags.Replace(headlineFlags(l, figs)); got != want {
		t.Errorf("headlineFlags = %q, want %q", got, want)
	}
	if got := headlineFlags(analyze.Level{}, figs); got != "" {
		t.Errorf("headlineFlags without suspicion = %q", got)
	}
	// The figure itself carries no text: the sentence reads on.
	g := analyze.AcrossRuns{Key: "goodput.percent", Unit: "%", Median: 100, MAD: 0, Runs: 1, PerRun: []analyze.Num{100}}
	if got, plain := headlineFigure(l, g, ""), fmtAcross(g, g.Runs); got != suspectOpen+plain+suspectClose || strings.Contains(got, "⚠") {
		t.Errorf("headlineFigure = %q, want %q greyed, with no flag", got, plain)
	}
}

func TestReportedHead(t *testing.T) {
	fig := func(key string, v float64) analyze.FigureComparison {
		return analyze.FigureComparison{Key: key, Reported: analyze.Num(v)}
	}
	s := &analyze.Summary{Reported: []analyze.ReportedRun{
		{Dir: "c1/reported-1", LevelKey: analyze.LevelKey{Mode: "concurrency", Concurrency: 1}, Import: analyze.ImportSummary{Tool: "GenAI-Perf",
			Figures: []analyze.FigureComparison{fig("ttft.p50", 24.53), fig("tpot.p50", 11.25), fig("e2e.p50", 667.7), fig(analyze.KeyClientOutputRate, 86.44), fig("throughput.requests_per_s", 1.493)}}},
		{Dir: "c5/reported-1", LevelKey: analyze.LevelKey{Mode: "concurrency", Concurrency: 5}, Import: analyze.ImportSummary{Tool: "LLMPerf",
			Figures: []analyze.FigureComparison{fig("ttft.p50", 212.8), fig(analyze.KeyClientOutputRate, 207.5)}}},
	}}
	want := `**As reported by GenAI-Perf and LLMPerf**, not recomputed and under the tools' own definitions; n/a where they report no such figure:

| level | TTFT p50 (ms) | TPOT p50 (ms) | E2E p50 (ms) | output tokens/s | requests/s |
| --- | --- | --- | --- | --- | --- |
| concurrency 1 | 24.53 | 11.25 | 667.7 | 86.44 | 1.493 |
| concurrency 5 | 212.8 | n/a | n/a | 207.5 | n/a |

`
	if got := reportedHead(s); got != want {
		t.Errorf("reportedHead =\n%s\nwant\n%s", got, want)
	}
	if got := reportedHead(&analyze.Summary{}); got != "" {
		t.Errorf("reportedHead of a sweep without reported runs = %q", got)
	}
}

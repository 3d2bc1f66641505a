package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/ingest"
)

// labelled returns key in the series of labels.
func labelled(t testing.TB, key analyze.LevelKey, labels map[string]string) analyze.LevelKey {
	t.Helper()
	ser, err := ingest.NewSeries(labels)
	if err != nil {
		t.Fatal(err)
	}
	key.Series = ser
	return key
}

// twoSeries is a sweep of series engine=vllm,tp=1 and engine=vllm,tp=2 at
// concurrency 4 and 16: p95 TTFT 100, 200 (tp=1) and 300, 400 (tp=2).
func twoSeries(t testing.TB) *analyze.Summary {
	tp := func(n string) map[string]string { return map[string]string{"engine": "vllm", "tp": n} }
	return levelSummary(labelled(t, c4, tp("1")), labelled(t, c16, tp("1")), labelled(t, c4, tp("2")), labelled(t, c16, tp("2")))
}

// TestSeriesSelector: value, pooled and count cells choose a series with
// series=LABEL=VALUE; without one, a sweep of several series is an error
// naming them, and a selector matching none or several names what exists.
func TestSeriesSelector(t *testing.T) {
	const label = "median ± raw MAD of per-run p95 TTFT; per-request; nearest-rank percentile; 3 runs at "
	tests := []struct {
		name   string
		s      *analyze.Summary
		cell   string
		want   string
		errMsg string
	}{
		{"a series and a level", twoSeries(t), "value ttft.p95 series=tp=2 c=16", "400.0 ± 1.0 ms (" + label + "concurrency 16 of tp=2)", ""},
		{"the issue's short form", twoSeries(t), "ttft.p95 series=tp=2 c=16", "400.0 ± 1.0 ms (" + label + "concurrency 16 of tp=2)", ""},
		{"level=max within the series", twoSeries(t), "value ttft.p95 series=tp=1", "200.0 ± 1.0 ms (" + label + "concurrency 16 of tp=1)", ""},
		{"labels joined by commas", twoSeries(t), "value ttft.p95 c=4 series=engine=vllm,tp=1", "100.0 ± 1.0 ms (" + label + "concurrency 4 of tp=1)", ""},
		{"no selector with two series", twoSeries(t), "value ttft.p95 c=16", "",
			"the sweep has 2 series: choose one with series=LABEL=VALUE, one of series=tp=1, series=tp=2"},
		{"a selector matching two", twoSeries(t), "value ttft.p95 series=engine=vllm", "",
			"series=engine=vllm matches 2 series: add a label that tells them apart, one of series=tp=1, series=tp=2"},
		{"a selector matching none", twoSeries(t), "value ttft.p95 series=tp=4", "",
			"series=tp=4 matches no series (have series=tp=1, series=tp=2)"},
		{"a label no series has", twoSeries(t), "pooled ttft.p99 series=tpp=2", "",
			`series=tpp=2: no series has the label "tpp" (did you mean "tp"?) (labels: engine, tp)`},
		{"a malformed selector", twoSeries(t), "value ttft.p95 series=tp", "",
			"series=tp: expected series=LABEL=VALUE, several joined by commas (series=tp=2,engine=vllm)"},
		{"a level the series lacks", twoSeries(t), "value ttft.p95 series=tp=1 c=8", "",
			"no concurrency level 8 in the series tp=1 (have 4, 16); did you mean c=4?"},
		{"count needs a level with a series", twoSeries(t), "count measured series=tp=1", "",
			"count with series= needs a level too (c=N, rate=R, level=max): a series' counts are given per level; without both, count gives the whole sweep's"},
		{"count of a series' level", twoSeries(t), "count measured series=tp=1 c=4", "0", ""},
		{"count of the whole sweep", twoSeries(t), "count measured", "0", ""},
		{"the levels once", twoSeries(t), "levels", "4, 16", ""},
		{"a selector in a sweep without labels", levelSummary(c4, c16), "value ttft.p95 series=tp=1", "",
			"series=tp=1: the sweep's series has no labels: leave series= out"},
		{"one labelled series needs no selector", levelSummary(labelled(t, c4, map[string]string{"tp": "2"})), "value ttft.p95", "100.0 ± 1.0 ms (" + label + "concurrency 4)", ""},
		{"one labelled series, another asked for", levelSummary(labelled(t, c4, map[string]string{"tp": "2"})), "value ttft.p95 series=tp=4", "",
			"series=tp=4 matches no series: the sweep has one, tp=2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &render{ctx: &cellContext{s: tt.s}, footIndex: map[string]int{}}
			got, err := r.inline(strings.Fields(tt.cell))
			if tt.errMsg != "" {
				if err == nil || err.Error() != tt.errMsg {
					t.Errorf("error %v\nwant  %q", err, tt.errMsg)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %q, %v\nwant %q", got, err, tt.want)
			}
		})
	}
}

// TestSeriesTables: a table cell shows one table per series, each under
// its name; with a selector, that series' alone; a bad selector is an
// error at the cell's line.
func TestSeriesTables(t *testing.T) {
	s := twoSeries(t)
	render := func(nb string) (string, error) {
		out, err := renderNotebook([]byte(nb), "nb.md", &cellContext{s: s}, targetMarkdown)
		return string(out), err
	}
	all, err := render("{{table ttft}}\n")
	if err != nil {
		t.Fatal(err)
	}
	one, err := render("{{table ttft series=tp=2}}\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		out, text string
		want      bool
	}{
		{all, "**Series tp=1**\n\n| concurrency | runs |", true},
		{all, "**Series tp=2**\n\n| concurrency | runs |", true},
		{all, "| 16 | 3 | 0 | n/a | 200.0 ± 1.0 |", true},
		{one, "**Series tp=1**", false},
		{one, "| 16 | 3 | 0 | n/a | 200.0 ± 1.0 |", false},
		{one, "**Series tp=2**\n\n**Client TTFT (ms)**", true},
		{one, "| 16 | 3 | 0 | n/a | 400.0 ± 1.0 |", true},
	} {
		if strings.Contains(c.out, c.text) != c.want {
			t.Errorf("holds %q: %v, want %v:\n%s", c.text, !c.want, c.want, c.out)
		}
	}
	_, err = render("text\n\n{{table ttft series=tp=9}}\n")
	if err == nil || err.Error() != "nb.md:3:1: series=tp=9 matches no series (have series=tp=1, series=tp=2)" {
		t.Errorf("error %v", err)
	}
	_, err = render("{{table ttft tp=2}}\n")
	if err == nil || !strings.HasPrefix(err.Error(), "nb.md:1:1: table takes one name, one of: ") {
		t.Errorf("error %v", err)
	}
}

// answersSummary is a two-series sweep (tp=1, tp=2) of one level each,
// both meeting the SLOs, ranked as c says.
func answersSummary(t testing.TB, c analyze.Configurations) *analyze.Summary {
	s := levelSummary(labelled(t, c16, map[string]string{"tp": "1"}), labelled(t, c16, map[string]string{"tp": "2"}))
	s.Method.SLO = analyze.SLO{TTFTms: 100, Attainment: 0.9}
	for i := range s.Levels {
		l := &s.Levels[i]
		l.OutputRateKey = analyze.KeyServerOutputRate
		out := analyze.AcrossRuns{Key: analyze.KeyServerOutputRate, Unit: "tokens/s", Median: analyze.Num(1000 * (i + 1)), MAD: 10, Runs: 3}
		good := analyze.AcrossRuns{Key: "goodput.percent", Unit: "%", Median: 95, MAD: 1, Runs: 3}
		req := analyze.AcrossRuns{Key: "throughput.requests_per_s", Unit: "req/s", Median: 5, MAD: 0.1, Runs: 3}
		l.Stats = append(l.Stats, out, good, req)
		k := l.LevelKey
		s.Answers = append(s.Answers, analyze.Answer{Series: l.Series, Mode: "concurrency", Level: &k, Goodput: good, Output: out, Requests: req, RunsMeeting: 3})
		c.Series[i].Series = l.Series
		if c.Series[i].Rank > 0 {
			c.Series[i].Level = &k
		}
	}
	s.Configurations = &c
	return s
}

// TestBestConfiguration: the best configuration is named with its figure
// and the runner-up's, with the caveat when their ranges overlap, per
// server when a GPU count is unknown.
func TestBestConfiguration(t *testing.T) {
	perGPU := func(m, mad float64) analyze.AcrossRuns {
		return analyze.AcrossRuns{Key: analyze.KeyServerOutputRate + analyze.PerGPUSuffix, Unit: "tokens/s", Median: analyze.Num(m), MAD: analyze.Num(mad), Runs: 3}
	}
	tests := []struct {
		name string
		c    analyze.Configurations
		want string
	}{
		{
			name: "within the spread",
			c: analyze.Configurations{Per: analyze.PerGPU, WithinSpread: true, Series: []analyze.SeriesRank{
				{GPUs: 1, Output: perGPU(1000, 10), Rank: 1}, {GPUs: 2, Output: perGPU(995, 5), Rank: 2}}},
			want: "**Best configuration under the SLOs: tp=1**, with 1000 ± 10 output tokens/s per GPU at concurrency 16, against 995.0 ± 5.0 for tp=2 at concurrency 16, the runner-up. **Within the spread:** the two median ± MAD ranges overlap, so these runs do not tell the two configurations apart.",
		},
		{
			name: "told apart",
			c: analyze.Configurations{Per: analyze.PerGPU, Series: []analyze.SeriesRank{
				{GPUs: 1, Output: perGPU(1000, 10), Rank: 2}, {GPUs: 1, Output: perGPU(2000, 10), Rank: 1}}},
			want: "**Best configuration under the SLOs: tp=2**, with 2000 ± 10 output tokens/s per GPU at concurrency 16, against 1000 ± 10 for tp=1 at concurrency 16, the runner-up.",
		},
		{
			name: "per server",
			c: analyze.Configurations{Per: analyze.PerServer, Series: []analyze.SeriesRank{
				{GPUs: 1, Output: perGPU(1000, 10), Rank: 2}, {GPUsUnknown: "not recorded (no gpu_count in the environment)", Output: perGPU(2000, 10), Rank: 1}}},
			want: "**Best configuration under the SLOs: tp=2**, with 2000 ± 10 output tokens/s per server at concurrency 16, against 1000 ± 10 for tp=1 at concurrency 16, the runner-up. Figures are per server, not per GPU, as the GPU count is unknown for tp=2: not recorded (no gpu\\_count in the environment).",
		},
		{
			name: "one ranked",
			c: analyze.Configurations{Per: analyze.PerGPU, Series: []analyze.SeriesRank{
				{GPUs: 1, Output: perGPU(1000, 10), Rank: 1}, {GPUs: 1}}},
			want: "**Best configuration under the SLOs: tp=1**, with 1000 ± 10 output tokens/s per GPU at concurrency 16; no other series has a level meeting the SLOs with an output rate.",
		},
		{
			name: "none",
			c:    analyze.Configurations{Per: analyze.PerGPU, Series: []analyze.SeriesRank{{}, {}}, Unavailable: "no series has a level meeting the SLOs"},
			want: "**No best configuration under the SLOs:** no series has a level meeting the SLOs.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := answersSummary(t, tt.c)
			cell := headlineCell(s)
			if !strings.Contains(cell, "\n\n"+tt.want+"\n\n") {
				t.Errorf("headline lacks\n%s\n in:\n%s", tt.want, cell)
			}
		})
	}
	// The table: one row per series, the per-GPU figures beside the
	// output rates.
	s := answersSummary(t, tests[0].c)
	for _, row := range []string{
		"| series | highest load meeting the SLOs | goodput (runs ≥ 90 %) | output tokens/s (server) | output tokens/s per GPU | requests/s |",
		"| tp=1 | concurrency 16 | 95.0 ± 1.0 % (3 of 3) | 1000 ± 10 | 1000 ± 10 (1 GPU) | 5.00 ± 0.10 |",
		"| tp=2 | concurrency 16 | 95.0 ± 1.0 % (3 of 3) | 2000 ± 10 | 995.0 ± 5.0 (2 GPUs) | 5.00 ± 0.10 |",
	} {
		if !strings.Contains(headlineCell(s), row+"\n") {
			t.Errorf("headline lacks row\n%s\nin:\n%s", row, headlineCell(s))
		}
	}
}

// TestPRFileOfManyLongSeries: 400 series of long names overflow pr.md's
// budget for its table of series: it keeps the rows that fit, each name
// cut, and says how many it left out.
func TestPRFileOfManyLongSeries(t *testing.T) {
	var keys []analyze.LevelKey
	long := strings.Repeat("x", 250)
	for i := 0; i < 400; i++ {
		keys = append(keys, labelled(t, c4, map[string]string{"a_config": fmt.Sprintf("%03d-%s", i, long), "b_config": long}))
	}
	s := levelSummary(keys...)
	s.Method.SLO = analyze.SLO{TTFTms: 100, Attainment: 0.9}
	for i := range s.Levels {
		k := s.Levels[i].LevelKey
		s.Answers = append(s.Answers, analyze.Answer{Series: k.Series, Mode: "concurrency", Best: &k})
	}
	pr := string(prMarkdown(s))
	if len(pr) > PRLimit {
		t.Errorf("pr.md is %d bytes, over %d", len(pr), PRLimit)
	}
	rows := strings.Count(pr, "\n| a\\_config=")
	if rows == 0 || rows == 400 {
		t.Errorf("%d rows of series, want some but not all", rows)
	}
	if want := fmt.Sprintf("the last %d of 400 rows of the table of series, which did not fit", 400-rows); !strings.Contains(pr, want) {
		t.Errorf("pr.md does not say %q", want)
	}
	if strings.Contains(pr, long+", ") {
		t.Error("a series name is not cut")
	}
}

// TestDataQualityAfterSeriesTable: with nothing after the series table
// (no configuration ranked), the data-quality count is a paragraph of its
// own, never a cell glued to the table's last row.
func TestDataQualityAfterSeriesTable(t *testing.T) {
	s := answersSummary(t, analyze.Configurations{Per: analyze.PerGPU, Series: []analyze.SeriesRank{{}, {}}})
	s.Configurations = nil
	s.Findings = []analyze.Finding{{Severity: "warning", Rule: "r", Message: "m"}}
	cell := headlineCell(s)
	want := "| tp=2 | concurrency 16 | 95.0 ± 1.0 % (3 of 3) | 2000 ± 10 | 5.00 ± 0.10 |\n\n**Data quality: 1 warning** (below).\n\n"
	if !strings.Contains(cell, want) {
		t.Errorf("headline lacks\n%s\nin:\n%s", want, cell)
	}
}

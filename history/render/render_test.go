package render

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/compare"
	"github.com/benchnote/benchnote/history"
	"github.com/benchnote/benchnote/ingest"
)

// seriesHistory is 4 daily entries of n series at concurrency 4, labelled
// engine=vllm and tp=1..n, 3 runs each, every headline statistic 50 + tp;
// tp=2 has no TTFT p95 at all.
func seriesHistory(t *testing.T, n int) *history.History {
	t.Helper()
	prof := compare.Profile{Environment: []analyze.EnvField{{Key: "gpu", Value: "L40S"}}, Percentile: "nearest-rank", MAD: "raw"}
	t0 := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	var in []history.Input
	for i := 0; i < 4; i++ {
		at := t0.Add(time.Duration(i) * 24 * time.Hour)
		e := history.Input{ID: fmt.Sprintf("%016x", i+1), Time: float64(at.Unix()), TimeText: at.Format(time.RFC3339),
			Fingerprint: prof.Fingerprint(), Profile: prof, Values: map[compare.LevelID]map[string][]float64{}}
		for tp := 1; tp <= n; tp++ {
			s, err := ingest.NewSeries(map[string]string{"engine": "vllm", "tp": fmt.Sprint(tp)})
			if err != nil {
				t.Fatal(err)
			}
			l := compare.LevelID{Series: s, Mode: compare.ModeConcurrency, Value: 4}
			e.Values[l] = map[string][]float64{}
			for _, m := range compare.Headline {
				if tp == 2 && m.Key == "ttft.p95" {
					continue
				}
				v := 50 + float64(tp)
				e.Values[l][m.Key] = []float64{v, v, v}
			}
		}
		in = append(in, e)
	}
	return history.Build(in, history.DefaultOptions())
}

// TestManySeriesAreDrawnEightToAChart: with 10 series, each statistic has
// two charts, series 1–8 and 9–10, named by the label that differs (tp),
// the common one (engine=vllm) in the caption; history.md lists every
// series; the tp=2 series, with no TTFT p95, is named as having none.
func TestManySeriesAreDrawnEightToAChart(t *testing.T) {
	files, err := Build(seriesHistory(t, 10), "arch")
	if err != nil {
		t.Fatal(err)
	}
	md, page := string(files[MarkdownFile]), string(files[HTMLFile])
	want := "10 series (configurations), each followed and tested on its own — the runs of two series are never pooled: `tp=1`, `tp=2`, `tp=3`, `tp=4`, `tp=5`, `tp=6`, `tp=7`, `tp=8`, `tp=9`, `tp=10`; labels common to all: `engine=vllm`.\n"
	if !strings.Contains(md, want) {
		t.Errorf("history.md does not list the series:\n%s", md)
	}
	if n := strings.Count(page, "<figure"); n != 2*len(compare.Headline) {
		t.Errorf("%d charts, want %d (2 per statistic)", n, 2*len(compare.Headline))
	}
	for _, want := range []string{
		"TTFT p50 at concurrency 4: one line per series, each entry&#39;s median across runs with its ± MAD band, in time order (UTC). Labels common to all series: engine=vllm. Series 1–8 of 10; the others are on the charts beside this one.</figcaption>",
		"TTFT p50 at concurrency 4: one line per series, each entry&#39;s median across runs with its ± MAD band, in time order (UTC). Labels common to all series: engine=vllm. Series 9–10 of 10; the others are on the charts beside this one.</figcaption>",
		"Series 1–8 of 10; the others are on the charts beside this one. No value for tp=2.</figcaption>",
		`aria-label="Trend of TTFT p95 at concurrency 4 over 4 entries, one line per series: tp=1; tp=3; tp=4; tp=5; tp=6; tp=7; tp=8."`,
		`aria-label="Trend of TTFT p95 at concurrency 4 over 4 entries, one line per series: tp=9; tp=10."`,
		"One line per series, each in its own colour, dash and marker; at most 8 series to a chart: with more, they are drawn 8 at a time, in the order above, on consecutive charts.",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("history.html does not hold %q", want)
		}
	}
	// The figures follow the statistics in order, the two of each together.
	first, second := strings.Index(page, `id="trend-0"`), strings.Index(page, `id="trend-1"`)
	if first < 0 || second < 0 || !strings.Contains(page[first:second], "Series 1–8 of 10") || !strings.Contains(page[second:], "Series 9–10 of 10") {
		t.Error("trend-0 and trend-1 are not TTFT p50's two charts")
	}
	if n := strings.Count(page, ">tp=9</text>"); n != len(compare.Headline) {
		t.Errorf("tp=9 in %d legends, want %d", n, len(compare.Headline))
	}
}

// TestEightSeriesShareAChart: up to 8 series are one chart per statistic,
// with no word of splitting.
func TestEightSeriesShareAChart(t *testing.T) {
	files, err := Build(seriesHistory(t, 8), "arch")
	if err != nil {
		t.Fatal(err)
	}
	page := string(files[HTMLFile])
	if n := strings.Count(page, "<figure"); n != len(compare.Headline) || strings.Contains(page, " of 8;") {
		t.Errorf("%d charts, want %d, none split", n, len(compare.Headline))
	}
	if n := strings.Count(page, ">tp=8</text>"); n != len(compare.Headline) {
		t.Errorf("tp=8 in %d legends, want %d", n, len(compare.Headline))
	}
}

// shiftHistory is 8 daily entries of 3 runs at concurrency 1 and 4,
// labelled rev-0 to rev-7 but for rev-3, which has none; every latency is
// 25 % longer and throughput 25 % lower from rev-5 on.
func shiftHistory(t *testing.T, opts history.Options) *history.History {
	t.Helper()
	prof := compare.Profile{Environment: []analyze.EnvField{{Key: "gpu", Value: "L40S"}}, Percentile: "nearest-rank", MAD: "raw"}
	t0 := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	var in []history.Input
	for i := 0; i < 8; i++ {
		at := t0.Add(time.Duration(i) * 24 * time.Hour)
		e := history.Input{ID: fmt.Sprintf("%016x", i+1), Time: float64(at.Unix()), TimeText: at.Format(time.RFC3339), Label: fmt.Sprintf("rev-%d", i),
			Fingerprint: prof.Fingerprint(), Profile: prof, Runs: 6, Values: map[compare.LevelID]map[string][]float64{}}
		if i == 3 {
			e.Label = ""
		}
		for _, c := range []float64{1, 4} {
			l := compare.LevelID{Mode: compare.ModeConcurrency, Value: c}
			e.Values[l] = map[string][]float64{}
			for mi, m := range compare.Headline {
				var vals []float64
				for r := 0; r < 3; r++ {
					v := float64(10*(mi+1)) * c * (1 + 0.01*float64((i*3+r*7+mi)%5-2)/2)
					switch {
					case m.Points:
						v = 1 + 0.01*float64(r)
					case i >= 5 && m.LowerIsBetter:
						v *= 1.25
					case i >= 5:
						v /= 1.25
					}
					vals = append(vals, v)
				}
				e.Values[l][m.Key] = vals
			}
		}
		in = append(in, e)
	}
	return history.Build(in, opts)
}

// TestChangesAreOneLineAnEntry: a shift of every statistic at two levels
// is one line above the charts, naming the entry by its label, counting
// change points and secondary statistics and naming the worst; the table
// of every change comes after the charts; the time axes name the entries
// by their labels, rev-3 by its date.
func TestChangesAreOneLineAnEntry(t *testing.T) {
	files, err := Build(shiftHistory(t, history.DefaultOptions()), "arch")
	if err != nil {
		t.Fatal(err)
	}
	md, page := string(files[MarkdownFile]), string(files[HTMLFile])
	// Every headline statistic moves, the energy ones (GPU telemetry) too.
	want := "## Changes\n\n5 change points at 1 entry, each tested across its series' levels against up to 5 entries before:\n\n" +
		"- **rev-5** (`0000000000000006`, 2026-01-06T09:00:00Z): 14 statistics moved — 5 change points (all worse), 9 secondary; worst energy per output token +25.3 % across 2 levels, stratified exact p < 0.0001 (Holm over 42 tests: < 0.0001); confirmed by rev-6.\n\n## Changes in detail (14)"
	if !strings.Contains(md, want) {
		t.Errorf("history.md does not hold\n%s\n---\n%s", want, md)
	}
	if strings.Contains(md, "Awaiting confirmation") {
		t.Error("history.md has something awaiting confirmation after a confirmed change")
	}
	summary, charts, table := strings.Index(page, "<h2 id=\"changes\">"), strings.Index(page, "<figure"), strings.Index(page, "Changes in detail")
	if summary < 0 || charts < 0 || table < 0 || !(summary < charts && charts < table) {
		t.Errorf("history.html: summary at %d, first chart at %d, table at %d: want them in that order", summary, charts, table)
	}
	for _, want := range []string{">rev-0</text>", ">2026-01-04</text>", ">rev-7</text>", "entry (label, or date where none; placed by time, UTC)",
		"change points: worse +25.0 % at entry rev-5."} {
		if !strings.Contains(page, want) {
			t.Errorf("history.html does not hold %q", want)
		}
	}
	if strings.Contains(page, "time (UTC)</text>") {
		t.Error("history.html: a time axis in dates although the entries have labels")
	}
}

// TestHistoryWithoutLabels: entries without labels keep the date axis.
func TestHistoryWithoutLabels(t *testing.T) {
	h := seriesHistory(t, 1)
	files, err := Build(h, "arch")
	if err != nil {
		t.Fatal(err)
	}
	page := string(files[HTMLFile])
	if !strings.Contains(page, ">time (UTC)</text>") || strings.Contains(page, "entry (label") {
		t.Error("history.html: entries without labels do not keep a date axis")
	}
	if !strings.Contains(string(files[MarkdownFile]), "No change point: no primary statistic (TTFT p95, TPOT p50, E2E p95, output tokens/s, goodput, error rate and energy per output token) moved") {
		t.Errorf("history.md does not say there is no change point:\n%s", files[MarkdownFile])
	}
}

// TestJSONKeysAreSnakeCase: every key of history.json is snake_case (the
// options included), and the schema is named.
func TestJSONKeysAreSnakeCase(t *testing.T) {
	opts := history.DefaultOptions()
	opts.Compare.Gate = []string{"ttft.p95"}
	files, err := Build(shiftHistory(t, opts), "arch")
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(files[JSONFile], &doc); err != nil {
		t.Fatal(err)
	}
	key := regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				// Series labels are the user's, as given.
				if !key.MatchString(k) && !strings.HasSuffix(path, ".series") {
					t.Errorf("history.json: key %q at %s", k, path)
				}
				walk(path+"."+k, x)
			}
		case []any:
			for _, x := range v {
				walk(path+"[]", x)
			}
		}
	}
	walk("", doc)
	m := doc.(map[string]any)
	opt := m["options"].(map[string]any)
	if m["schema"] != "benchnote.history/v2" || opt["window"] != 5.0 || opt["compare"].(map[string]any)["gate"].([]any)[0] != "ttft.p95" {
		t.Errorf("schema %v, options %v", m["schema"], opt)
	}
}

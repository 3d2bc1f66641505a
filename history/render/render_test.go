package render

import (
	"fmt"
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

package analyze

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/benchnote/benchnote/ingest"
)

// Runs are grouped by load level, concurrency levels first, then rates
// (by arrival process within a rate, rate inf last); summary.json keys each
// level by mode and value.
func TestLoadLevels(t *testing.T) {
	mk := func(dir string, load ingest.LoadLevel, repeat int) *ingest.Run {
		r := makeRun(dir, 0, repeat, []req{{id: "a", n: 3, ttft: 100, e2e: 140}})
		r.Load = load
		return r
	}
	runs := []*ingest.Run{
		mk("rate-inf/run-1", ingest.RateLoad(math.Inf(1), ""), 1),
		mk("rate16-poisson/run-1", ingest.RateLoad(16, ingest.ArrivalPoisson), 1),
		mk("rate16-poisson/run-2", ingest.RateLoad(16, ingest.ArrivalPoisson), 2),
		mk("rate16-constant/run-1", ingest.RateLoad(16, ingest.ArrivalConstant), 1),
		mk("c4/run-1", ingest.ConcurrencyLoad(4), 1),
	}
	s := Analyze(&ingest.Sweep{Config: noWarmupConfig(), Runs: runs})
	var got []string
	for _, l := range s.Levels {
		got = append(got, l.Load().Describe()+" "+strings.Join(l.Runs, ","))
	}
	want := []string{
		"concurrency 4 c4/run-1",
		"16 req/s, constant arrivals rate16-constant/run-1",
		"16 req/s, poisson arrivals rate16-poisson/run-1,rate16-poisson/run-2",
		"rate inf rate-inf/run-1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("levels\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var keys []string
	for _, l := range s.Levels {
		js, err := json.Marshal(l.LevelKey)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, string(js))
	}
	wantKeys := `{"mode":"concurrency","concurrency":4} {"mode":"rate","rate":16,"arrival":"constant"} {"mode":"rate","rate":16,"arrival":"poisson"} {"mode":"rate","rate":"inf"}`
	if strings.Join(keys, " ") != wantKeys {
		t.Errorf("level keys %s\nwant %s", strings.Join(keys, " "), wantKeys)
	}
	var back LevelKey
	if err := json.Unmarshal([]byte(`{"mode":"rate","rate":"inf"}`), &back); err != nil || !back.Load().Unbounded() {
		t.Errorf("rate inf reads back as %+v, %v", back, err)
	}
	var few []string
	for _, f := range s.Findings {
		if f.Rule == "fewer-than-3-runs" {
			few = append(few, f.Message)
		}
	}
	if len(few) != 4 || !strings.HasPrefix(few[2], "16 req/s, poisson arrivals has 2 usable runs") || !strings.HasPrefix(few[3], "rate inf has 1 usable run;") {
		t.Errorf("fewer-than-3-runs findings %q", few)
	}
}

// TestSeriesLevels: runs of two series at one load level are two levels,
// never repeats of each other; levels follow the series order, and each
// level and run carries its series' labels in summary.json.
func TestSeriesLevels(t *testing.T) {
	seqs := func(v string) ingest.Series {
		s, err := ingest.NewSeries(map[string]string{"max_num_seqs": v})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	mk := func(dir string, series ingest.Series, c, repeat int, ttft float64) *ingest.Run {
		r := makeRun(dir, c, repeat, []req{{id: "a", n: 3, ttft: ttft, e2e: ttft + 40}})
		r.Load, r.Series = ingest.ConcurrencyLoad(c), series
		return r
	}
	runs := []*ingest.Run{
		mk("s128/c4/r1", seqs("128"), 4, 1, 100), mk("s128/c4/r2", seqs("128"), 4, 2, 100),
		mk("s128/c8/r1", seqs("128"), 8, 1, 100),
		mk("s64/c4/r1", seqs("64"), 4, 1, 300),
	}
	s := Analyze(&ingest.Sweep{Config: noWarmupConfig(), Runs: runs})
	var got []string
	for _, l := range s.Levels {
		js, err := json.Marshal(l.LevelKey)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := l.Stat("ttft.p50")
		got = append(got, fmt.Sprintf("%s %s ttft.p50=%g", js, strings.Join(l.Runs, ","), float64(st.Median)))
	}
	want := []string{
		`{"series":{"max_num_seqs":"64"},"mode":"concurrency","concurrency":4} s64/c4/r1 ttft.p50=300`,
		`{"series":{"max_num_seqs":"128"},"mode":"concurrency","concurrency":4} s128/c4/r1,s128/c4/r2 ttft.p50=100`,
		`{"series":{"max_num_seqs":"128"},"mode":"concurrency","concurrency":8} s128/c8/r1 ttft.p50=100`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("levels\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	js, _ := json.Marshal(s.Runs[0].LevelKey)
	if string(js) != `{"series":{"max_num_seqs":"64"},"mode":"concurrency","concurrency":4}` {
		t.Errorf("first run's keys %s", js)
	}
}

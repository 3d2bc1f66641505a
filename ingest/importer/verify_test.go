package importer

import (
	"math"
	"strings"
	"testing"

	"github.com/benchnote/benchnote/ingest"
)

// Layout reads back what it made: a run an importer got wrong (here built
// by hand, past the row checks) is refused, not written.
func TestLayoutRefusesWhatWouldNotValidate(t *testing.T) {
	requests := func(ttft, e2e float64) *ingest.Requests {
		return &ingest.Requests{N: 1, IDs: ingest.StringColumnOf("a"), PromptTokens: []int64{1}, CompletionTokens: []int64{2},
			TTFTms: []float64{ttft}, E2Ems: []float64{e2e}}
	}
	prov := func(version string) *ingest.Provenance { return &ingest.Provenance{Tool: "t", Version: version} }
	tests := []struct {
		name string
		run  Run
		want string
	}{
		{"a row validate would exclude", Run{Source: "r.json", Requests: requests(5, 3),
			Config: ingest.RunConfig{Load: ingest.ConcurrencyLoad(1), Provenance: prov("1")}},
			"r.json: the c1/run-1/requests.parquet written for it would not validate (1 rows excluded, the first: c1/run-1/requests.parquet:1:5: warning: E2E_ms: expected at least TTFT_ms (5), got 3); nothing was written: this is a benchnote bug, please report it"},
		{"a run.yaml validate would refuse", Run{Source: "r.json", Requests: requests(1, 2),
			Config: ingest.RunConfig{Load: ingest.ConcurrencyLoad(1), Provenance: prov(strings.Repeat("v", 601))}},
			"r.json: the c1/run-1/run.yaml written for it would not validate (c1/run-1/run.yaml:5:12: error: source.version: expected a non-empty string of at most 600 bytes, got \"" + strings.Repeat("v", 64) + "\"...); nothing was written: this is a benchnote bug, please report it"},
		{"a reported.yaml with a figure out of float64", Run{Source: "s.json",
			Config: ingest.RunConfig{Load: ingest.RateLoad(math.Inf(1), ""), Provenance: &ingest.Provenance{Tool: "t", Reported: []ingest.ReportedFigure{{Key: "ttft.mean", Label: "mean", Value: math.Inf(1), Unit: "ms"}}}}},
			"s.json: the rate-inf/reported-1/reported.yaml written for it would not validate (rate-inf/reported-1/reported.yaml:8:12: error: reported[0].value: expected a finite number, got \"+Inf\"); nothing was written: this is a benchnote bug, please report it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Layout(&Import{Runs: []Run{tt.run}})
			if err == nil || err.Error() != tt.want {
				t.Errorf("error\n got %v\nwant %s", err, tt.want)
			}
		})
	}
}

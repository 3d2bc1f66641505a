package analyze

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/benchnote/benchnote/internal/fuzzbudget"
)

const exampleSummary = "../cmd/benchnote/internal/cli/testdata/golden/example/summary.json"

func TestDecodeSummaryRoundTrip(t *testing.T) {
	data, err := os.ReadFile(exampleSummary)
	if err != nil {
		t.Fatal(err)
	}
	s, err := DecodeSummary(bytes.NewReader(data), "summary.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Levels) != 3 || s.Levels[2].Concurrency != 16 || len(s.Levels[0].Runs) != 3 {
		t.Fatalf("decoded %d levels, last %d, %d runs at the first", len(s.Levels), s.Levels[len(s.Levels)-1].Concurrency, len(s.Levels[0].Runs))
	}
	again, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(append(again, '\n'), data) {
		t.Error("decoding and encoding summary.json again changes it")
	}
}

func TestDecodeSummaryErrors(t *testing.T) {
	good := `{"schema":"benchnote.summary/v3","levels":[{"mode":"concurrency","concurrency":4,"runs":["a"],"stats":[{"key":"ttft.p50","per_run":[1]}]}],"runs":[{"dir":"a"}]}`
	tests := []struct {
		name, in, want string
	}{
		{"other schema", `{"schema":"benchnote.summary/v9"}`, `x.json: schema "benchnote.summary/v9", expected "benchnote.summary/v3"`},
		{"no schema", `{"title":"t"}`, `x.json: no "schema" field`},
		{"syntax", `{"schema":`, `x.json: unexpected EOF`},
		{"bad token", `{"schema": tru}`, `x.json:offset 15: invalid character`},
		{"wrong type", `{"schema":"benchnote.summary/v3","levels":[{"concurrency":"four"}]}`, `field "levels.LevelKey.concurrency": expected int, got string`},
		{"trailing data", good + ` {}`, `x.json:offset 161: data after the summary object`},
		{"per-run mismatch", strings.Replace(good, `"per_run":[1]`, `"per_run":[1,2]`, 1), `x.json: levels[0].stats[0] (ttft.p50): 2 per-run values for 1 runs`},
		{"unknown run", strings.Replace(good, `"runs":[{"dir":"a"}]`, `"runs":[{"dir":"b"}]`, 1), `x.json: levels[0].runs[0]: run "a" is not in runs[]`},
		{"levels out of order", `{"schema":"benchnote.summary/v3","levels":[{"mode":"concurrency","concurrency":4},{"mode":"concurrency","concurrency":2}]}`, `levels[1]: concurrency 2 does not follow concurrency 4`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeSummary(strings.NewReader(tt.in), "x.json")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want it to contain %q", err, tt.want)
			}
		})
	}
	if _, err := DecodeSummary(strings.NewReader(good), "x.json"); err != nil {
		t.Errorf("valid summary refused: %v", err)
	}
}

func FuzzDecodeSummary(f *testing.F) {
	f.Add([]byte(`{"schema":"benchnote.summary/v3","levels":[{"mode":"concurrency","concurrency":4,"runs":["a"],"stats":[{"key":"k","per_run":[null]}]}],"runs":[{"dir":"a"}]}`))
	f.Add([]byte(`{"schema":"benchnote.summary/v3"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var s *Summary
		var err error
		fuzzbudget.Check(t, "DecodeSummary", len(data), func() { s, err = DecodeSummary(bytes.NewReader(data), "fuzz.json") })
		if err != nil {
			return
		}
		// Whatever decodes must satisfy the invariants readers rely on.
		for _, l := range s.Levels {
			for _, st := range l.Stats {
				if len(st.PerRun) != len(l.Runs) {
					t.Fatalf("accepted a level whose %s has %d values for %d runs", st.Key, len(st.PerRun), len(l.Runs))
				}
			}
		}
	})
}

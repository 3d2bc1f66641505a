package ingest

import (
	"strings"
	"testing"
)

// A run whose requests file holds the same bytes as an earlier run's of
// the same series and level is the same run: marked, with a warning. A
// file of the same size but other bytes, the same bytes at another level
// or in another series, and a CSV beside a Parquet file are runs of their
// own.
func TestMarkDuplicates(t *testing.T) {
	other := strings.Replace(okCSV, "140", "141", 1) // the same size, one byte else
	root := writeTree(t, map[string]string{
		"c4/run-1/requests.csv":     okCSV,
		"c4/run-2/requests.csv":     okCSV,
		"c4/run-3/requests.csv":     other,
		"c4/run-4/requests.csv":     other,
		"c4/run-5/requests.csv":     okCSV,
		"c8/run-1/requests.csv":     okCSV,
		"tp2/c4/run-1/requests.csv": okCSV,
		"tp2/c4/run-1/run.yaml":     "series: {tp: 2}\n",
		"c16/run-1/requests.csv":    okCSV,
		"c16/run-2/requests.csv":    okCSV + "b,10,3,100,140\n",
	})
	sw, err := Load(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"c4/run-2": "c4/run-1", "c4/run-4": "c4/run-3", "c4/run-5": "c4/run-1"}
	for _, r := range sw.Runs {
		if r.DuplicateOf != want[r.Dir] {
			t.Errorf("%s: duplicate of %q, want %q", r.Dir, r.DuplicateOf, want[r.Dir])
		}
		var warned []string
		for _, d := range r.Diagnostics {
			if d.Reason == "duplicate run" {
				warned = append(warned, d.String())
			}
		}
		if of := want[r.Dir]; of != "" {
			w := r.Dir + "/requests.csv: warning: identical to " + of + "/requests.csv: the same run, not another repeat; it is left out of the analysis"
			if len(warned) != 1 || warned[0] != w {
				t.Errorf("%s: warnings %q, want %q", r.Dir, warned, w)
			}
		} else if len(warned) > 0 {
			t.Errorf("%s: warnings %q, want none", r.Dir, warned)
		}
		if r.Failed || r.Requests == nil || r.Requests.Requests.N == 0 {
			t.Errorf("%s: not read", r.Dir)
		}
	}
}

// sameContent compares to the end, across its chunks.
func TestSameContent(t *testing.T) {
	big := strings.Repeat("x", 600<<10)
	root := writeTree(t, map[string]string{"a": big, "b": big, "c": big[:len(big)-1] + "y", "d": "y" + big[1:], "e": ""})
	for _, tt := range []struct {
		a, b string
		want bool
	}{{"a", "b", true}, {"a", "c", false}, {"a", "d", false}, {"e", "e", true}} {
		got, err := sameContent(root+"/"+tt.a, root+"/"+tt.b)
		if err != nil || got != tt.want {
			t.Errorf("sameContent(%s, %s) = %v, %v; want %v", tt.a, tt.b, got, err, tt.want)
		}
	}
}

package suggest

import (
	"reflect"
	"strings"
	"testing"
)

func TestClosest(t *testing.T) {
	names := []string{"report", "validate", "ttft.p50", "ttft.p95"}
	for in, want := range map[string]string{
		"reprot":                     "report",   // a swap costs 1
		"valdate":                    "validate", // a deletion
		"ttft.p59":                   "ttft.p50", // the first of two at distance 2
		"xyz":                        "",         // nothing close
		"ab":                         "",         // too short for 1 edit: 2·1 is not less than 2
		strings.Repeat("report", 20): "",         // past maxLen
	} {
		if got := Closest(in, names); got != want {
			t.Errorf("Closest(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPrefixed(t *testing.T) {
	plots := []string{"latency-ttft", "latency-tpot", "latencyx", "cdf-ttft"}
	if got := Prefixed("latency", plots); !reflect.DeepEqual(got, []string{"latency-ttft", "latency-tpot"}) {
		t.Errorf("Prefixed(latency) = %q", got)
	}
	if got := Prefixed("", plots); got != nil {
		t.Errorf("Prefixed(\"\") = %q, want nothing", got)
	}
}

func TestDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"abc", "abc", 0}, {"abc", "acb", 1}, {"kitten", "sitting", 3}, {"", "plot", 4}} {
		if got := Distance(tt.a, tt.b); got != tt.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.d)
		}
	}
}

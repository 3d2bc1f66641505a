package ingest

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/benchnote/benchnote/internal/hostile"
)

func TestScrapeLimits(t *testing.T) {
	long := strings.Repeat("v", MaxLabelValueBytes+1)
	tests := []struct {
		name string
		in   io.Reader
		want string
	}{
		{"label value", strings.NewReader("# TYPE a gauge\na{x=\"ok\",model=\"" + long + "\"} 1\n"),
			`m.prom:2:16: error: label value of 4,097 bytes, longer than the limit of 4,096`},
		{"label value in OpenMetrics", bytes.NewReader(hostile.OpenMetricsLongLabel(MaxLabelValueBytes + 1)),
			`m.prom:2:41: error: label value of 4,097 bytes, longer than the limit of 4,096`},
		{"unclosed label value", strings.NewReader("a{x=\"" + long),
			`m.prom:1:5: error: label value of 4,097 bytes`},
		{"line", strings.NewReader("# HELP a " + strings.Repeat("h", MaxScrapeLineBytes) + "\n"),
			`m.prom:1: error: line of 65,545 bytes, longer than the limit of 65,536 for a scrape line`},
		{"file", io.MultiReader(strings.NewReader("# "), io.LimitReader(hostileZeros{}, MaxScrapeBytes)),
			`m.prom: error: larger than 67,108,864 bytes, the limit for a scrape`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseScrape(tt.in, "m.prom", DefaultMetricNames(), nil)
			var fe *FileError
			if !errors.As(err, &fe) || fe.Reason != "too large" || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error %v, want prefix %s", err, tt.want)
			}
		})
	}
	// At the limit, the label is read.
	s, err := ParseScrape(bytes.NewReader(hostile.OpenMetricsLongLabel(MaxLabelValueBytes)), "m.prom", DefaultMetricNames(), nil)
	if err != nil || s.Counters[RoleGenerationTokens] != 12345 {
		t.Errorf("label of exactly the limit: %v", err)
	}
}

// hostileZeros reads zero bytes, endlessly.
type hostileZeros struct{}

func (hostileZeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

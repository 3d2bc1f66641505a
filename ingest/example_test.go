package ingest_test

import (
	"fmt"
	"strings"

	"github.com/benchnote/benchnote/ingest"
)

// A bad row is excluded with its line, column and reason; the rest load.
func ExampleReadRequestsCSV() {
	csv := "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms\n" +
		"a,512,5,120,265\n" +
		"b,512,x,90,300\n"
	rf, err := ingest.ReadRequestsCSV(strings.NewReader(csv), "c1/run-1/requests.csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rf.Requests.N, "accepted:", rf.Requests.ID(0))
	for _, d := range rf.Excluded {
		fmt.Println(d)
	}
	// Output:
	// 1 accepted: a
	// c1/run-1/requests.csv:3:3: warning: completion_tokens: expected a non-negative integer, got "x"
}

// Run windows accept RFC 3339 or unix seconds.
func ExampleParseTime() {
	a, _ := ingest.ParseTime("2026-11-02T10:00:00Z")
	b, _ := ingest.ParseTime("1793613720.5")
	fmt.Println(b.Sub(a))
	// Output: 2m0.5s
}

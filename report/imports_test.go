package report

import (
	"math"
	"strings"
	"testing"

	"github.com/benchnote/benchnote/analyze"
)

func importedSummary() *analyze.Summary {
	imp := &analyze.ImportSummary{
		Tool: "LLMPerf", Version: "summary 2023-08-31", File: "bedrock_70b_individual_responses.json",
		TokenCounts: "tokenizer:hf-internal-testing/llama-tokenizer",
		Recomputed:  []string{"status from error_code"},
		AsReported:  []string{"TTFT (ttft_s)"},
		Unavailable: []analyze.Unavailable{{Code: "request_ids", Text: "no request ids in the source"}},
		Definitions: []analyze.Definition{{Metric: "E2E", Source: "to the end of the stream", Benchnote: "to the last text-bearing chunk"}},
		Figures: []analyze.FigureComparison{{Key: "ttft.p50", Label: "p50 TTFT", Unit: "ms", Reported: 387.7199, Benchnote: 387.7199,
			Basis: "p50, nearest-rank, per-request, 101 requests", Note: "pandas quantile"}},
	}
	return &analyze.Summary{
		Runs: []analyze.RunSummary{{Dir: "c5/run-1", Import: imp}},
		Reported: []analyze.ReportedRun{{Dir: "rate-inf/reported-1", LevelKey: analyze.LevelKey{Mode: "rate", Rate: analyze.Rate(math.Inf(1))}, Repeat: 1, Import: analyze.ImportSummary{
			Tool: "SGLang bench_serving", Figures: []analyze.FigureComparison{{Key: "ttft.p50", Label: "median TTFT", Unit: "ms", Reported: 91282.2, Benchnote: analyze.NaN}},
		}}},
	}
}

func TestImportsCell(t *testing.T) {
	md := importsCell(importedSummary())
	for _, want := range []string{
		"## Where these results came from",
		"### LLMPerf, version summary 2023-08-31",
		"Run `c5/run-1`, from `bedrock_70b_individual_responses.json`.",
		"- **Recomputed by benchnote:** status from error\\_code.",
		"- **Token counts:** re-counted by the client tokenizer `hf-internal-testing/llama-tokenizer`, not the server's usage",
		"- **Not available from this source:**\n  - no request ids in the source\n",
		"| E2E | to the end of the stream | to the last text-bearing chunk |",
		"| p50 TTFT | 387.7 ms | 387.7 | p50, nearest-rank, per-request, 101 requests | pandas quantile |",
		"### SGLang bench\\_serving\n\nRun `rate-inf/reported-1`",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("imports cell lacks %q:\n%s", want, md)
		}
	}
	tab := reportedTable(importedSummary())
	if !strings.Contains(tab, "| `rate-inf/reported-1` | rate inf | SGLang bench\\_serving | median TTFT | 91282 | ms |  |") {
		t.Errorf("reported table:\n%s", tab)
	}
	empty := &analyze.Summary{}
	if importsCell(empty) != "" || reportedTable(empty) != "" {
		t.Error("a sweep without imports gets import cells")
	}
}

// A block cell with nothing to show leaves no trace in the document.
func TestEmptyBlockCellLeavesNoTrace(t *testing.T) {
	ctx := &cellContext{s: &analyze.Summary{}}
	got, err := renderNotebook([]byte("a\n\n{{imports}}\n\n{{table reported}}\n\nb\n"), "nb.md", ctx, targetMarkdown)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "a\n\nb\n" {
		t.Errorf("got %q", got)
	}
}

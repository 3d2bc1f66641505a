package importer

// SGLang bench_serving result files (python/sglang/bench_serving.py in
// sgl-project/sglang @ 0033168f0f58b2bc05aa0273bd475d9c01bafb1c): one JSON
// object per line, appended by every run. json.dumps writes the bare token
// Infinity for an unlimited request rate, which is not valid JSON.
// --output-details adds the per-request arrays input_lens, output_lens,
// ttfts, itls, generated_texts and errors, as vLLM's benchmark does. Its
// native backends (sglang, sglang-native) spread each chunk's gap evenly
// over the chunk's tokens (itl.extend([gap / k] * k)), so per-gap ITLs are
// approximate; its other backends keep the requested output length unless
// a chunk carries usage.

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/benchnote/benchnote/ingest"
)

func importSGLang(r io.Reader, s *source, opts Options) ([]Run, error) {
	return importServing(r, s, opts, sglangRun)
}

func sglangRun(res *servingResult, s *source, record int, opts Options) (Run, error) {
	backend := res.strs["backend"]
	native := backend == "sglang" || backend == "sglang-native"
	prov := &ingest.Provenance{Tool: "SGLang bench_serving", Version: "not recorded in the file", File: filepath.Base(s.path)}
	run := Run{Config: ingest.RunConfig{Provenance: prov}, Env: servingEnv(res)}
	run.Config.Load = res.level()
	run.Config.Load = opts.levelOr(run.Config.Load)
	prov.TokenCounts = "requested"
	if native {
		prov.TokenCounts = "usage"
	}
	prov.Definitions = sglangDefinitions(native)
	if !res.perRequest() {
		prov.Reported = servingFigures(res, "SGLang", false, 0)
		for _, f := range []struct{ member, key, label, unit, note string }{
			{"concurrency", "workload.achieved_concurrency", "concurrency", "requests", "Σ latencies / duration"},
			{"total_output_tokens_retokenized", "tokens.output_retokenized", "output tokens, re-tokenized by the client", "tokens", ""},
		} {
			if v, ok := res.nums[f.member]; ok {
				prov.Reported = append(prov.Reported, ingest.ReportedFigure{Key: f.key, Label: f.label, Value: v, Unit: f.unit, Note: f.note})
			}
		}
		prov.AsReported = []string{"every figure: the line holds aggregates only (written without --output-details); nothing can be recomputed"}
		prov.Unavailable = unavailableWithoutRecords()
		return run, nil
	}
	j := &jsonIn{file: s.path, record: record}
	n, err := res.count(j)
	if err != nil {
		return Run{}, err
	}
	t := newTable(columns{status: true, textChunks: true, chunks: true}, n, opts.MaxRequests, s.path)
	t.where = servingWhere(record)
	zero, _, err := res.servingRows(t, n)
	if err != nil {
		return Run{}, &SourceError{File: s.path, Record: record, Path: "$.ttfts", Msg: err.Error()}
	}
	run.Requests, run.Excluded = t.q, t.excluded
	prov.Recomputed = []string{
		"E2E = TTFT + Σ ITL (the arrival of the last chunk with text)",
		"chunk arrival times from ttfts and itls",
		"status from errors (the last line of each traceback)",
	}
	if zero > 0 {
		prov.Recomputed = append(prov.Recomputed, fmt.Sprintf("%d streams that ended without output and without an error are zero-token requests, without TTFT or E2E", zero))
	}
	prov.AsReported = []string{"TTFT (ttfts, SGLang's client timer)", "prompt tokens (input_lens)", "completion tokens (output_lens)"}
	prov.Unavailable = []string{ingest.UnavailableRequestIDs, ingest.UnavailableSendTime, ingest.UnavailableWindow}
	if native {
		prov.Approximate = []string{"per-gap ITL and chunk arrival times: SGLang's native backend spreads each chunk's gap evenly over the chunk's tokens, so the gaps inside a chunk are an even split, not measurements"}
	}
	prov.Reported = servingFigures(res, "SGLang", true, zero)
	return run, nil
}

func sglangDefinitions(native bool) []ingest.Definition {
	d := []ingest.Definition{
		{Metric: "success", Source: "a stream that ended without an exception is a success, even when no chunk carried text (TTFT then stays 0)",
			Benchnote: "a request with output 0 and no error is a zero-token request: counted, but not a latency sample"},
		{Metric: "E2E", Source: "latency is taken at the last chunk received, the \"data: [DONE]\" frame included",
			Benchnote: "E2E ends at the last text-bearing chunk (here TTFT + Σ ITL)"},
		{Metric: "TPOT", Source: "(latency − TTFT) / (n − 1) with latency at the last frame",
			Benchnote: "(E2E − TTFT) / (n − 1) with E2E at the last text-bearing chunk"},
		{Metric: "percentiles", Source: "numpy percentile and median (linear interpolation)",
			Benchnote: "the sweep's percentile method (nearest rank unless sweep.yaml says linear)"},
	}
	if native {
		d = append(d, ingest.Definition{Metric: "ITL", Source: "each chunk's gap divided evenly among the chunk's tokens",
			Benchnote: "per-gap ITL from chunk arrivals, exact only when every chunk carried one token"})
	} else {
		d = append(d, ingest.Definition{Metric: "completion tokens", Source: "the requested output length unless a text chunk carried usage",
			Benchnote: "the server's usage.completion_tokens"})
	}
	return d
}

package sim

import (
	"bytes"
	"context"
	"encoding/csv"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/benchnote/benchnote/ingest"
)

// smallConfig keeps tests fast: 40/67/100 requests per run, enough for the
// warm-up to fade and, at c16, for a few timeouts behind the cold server.
func smallConfig() Config { return DefaultConfig().WithRequests(40) }

// edgeConfig is smallConfig with the rare outcomes made common, so that
// every kind of row meets the counter checks.
func edgeConfig() Config {
	cfg := smallConfig()
	cfg.Workload.ZeroTokenRate = 0.03
	cfg.Workload.OneTokenRate = 0.03
	cfg.Workload.RejectRate = 0.03
	return cfg
}

func generate(t *testing.T, cfg Config) (*Sweep, string) {
	t.Helper()
	sw, err := Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := sw.Write(dir); err != nil {
		t.Fatal(err)
	}
	return sw, dir
}

// readTree returns every file under dir by slash-separated relative path.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		files[filepath.ToSlash(rel)] = data
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func TestGenerateIsDeterministic(t *testing.T) {
	_, dirA := generate(t, smallConfig())
	_, dirB := generate(t, smallConfig())
	a, b := readTree(t, dirA), readTree(t, dirB)
	if !slices.Equal(sortedKeys(a), sortedKeys(b)) {
		t.Fatalf("file sets differ:\n%v\n%v", sortedKeys(a), sortedKeys(b))
	}
	// 3 sweep files + 9 runs × 5 files.
	if len(a) != 3+9*5 {
		t.Errorf("wrote %d files, want %d: %v", len(a), 3+9*5, sortedKeys(a))
	}
	for _, name := range sortedKeys(a) {
		if !bytes.Equal(a[name], b[name]) {
			t.Errorf("%s differs between two generations with the same seed", name)
		}
	}

	other := smallConfig()
	other.Seed = 2
	_, dirC := generate(t, other)
	if c := readTree(t, dirC); bytes.Equal(a["c4/run-1/requests.parquet"], c["c4/run-1/requests.parquet"]) {
		t.Error("seed 2 wrote the same c4/run-1 records as seed 1")
	}
}

// scrapeFile parses a written .prom file the way a Prometheus client would.
func scrapeFile(t *testing.T, path string) map[string]*dto.MetricFamily {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return fams
}

func counterValue(t *testing.T, fams map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	t.Helper()
	f := fams[name]
	if f == nil {
		t.Fatalf("no family %s", name)
	}
	for _, m := range f.Metric {
		match := true
		for _, lp := range m.Label {
			if v, ok := labels[lp.GetName()]; ok && v != lp.GetValue() {
				match = false
			}
		}
		if match {
			return m.GetCounter().GetValue()
		}
	}
	t.Fatalf("%s has no series %v", name, labels)
	return 0
}

func histogram(t *testing.T, fams map[string]*dto.MetricFamily, name string) *dto.Histogram {
	t.Helper()
	f := fams[name]
	if f == nil || len(f.Metric) != 1 || f.Metric[0].Histogram == nil {
		t.Fatalf("%s: want exactly one histogram series", name)
	}
	h := f.Metric[0].Histogram
	var prev uint64
	for _, b := range h.Bucket {
		if b.GetCumulativeCount() < prev {
			t.Fatalf("%s: bucket le=%g count %d below the previous bucket's %d", name, b.GetUpperBound(), b.GetCumulativeCount(), prev)
		}
		prev = b.GetCumulativeCount()
	}
	last := h.Bucket[len(h.Bucket)-1]
	if !math.IsInf(last.GetUpperBound(), 1) || last.GetCumulativeCount() != h.GetSampleCount() {
		t.Fatalf("%s: +Inf bucket %v does not equal the count %d", name, last, h.GetSampleCount())
	}
	return h
}

func bucketAt(h *dto.Histogram, le float64) uint64 {
	for _, b := range h.Bucket {
		if b.GetUpperBound() == le {
			return b.GetCumulativeCount()
		}
	}
	return math.MaxUint64
}

// TestServerCountersMatchClientRecords is the contract of the package: per
// run, every counter and histogram delta between the written scrapes is
// what the run's client records imply.
func TestServerCountersMatchClientRecords(t *testing.T) {
	sw, dir := generate(t, edgeConfig())
	sawTimeout, sawReject, sawZero, sawOne := false, false, false, false
	for _, r := range sw.Runs {
		t.Run(r.Dir(), func(t *testing.T) {
			start := scrapeFile(t, filepath.Join(dir, r.Dir(), "metrics-start.prom"))
			end := scrapeFile(t, filepath.Join(dir, r.Dir(), "metrics-end.prom"))
			sel := map[string]string{"engine": "0", "model_name": sw.Config.Model}
			delta := func(name string) float64 {
				return counterValue(t, end, name, sel) - counterValue(t, start, name, sel)
			}
			if v := counterValue(t, start, "vllm:generation_tokens_total", sel); v <= 0 {
				t.Errorf("start scrape: generation_tokens_total = %g, want the earlier traffic's tokens", v)
			}

			var completion, prompt, ok, okLength, okShort, withToken, gaps int
			var okPrompt, okCompletion int
			var clientTTFTms float64
			for _, q := range r.Requests {
				completion += q.CompletionTokens
				prompt += q.PromptTokens
				gaps += max(q.CompletionTokens-1, 0)
				if q.CompletionTokens > 0 {
					withToken++
					clientTTFTms += float64(q.TTFTUs()) / 1000
				}
				switch q.Status {
				case StatusOK:
					ok++
					okPrompt += q.PromptTokens
					okCompletion += q.CompletionTokens
					if q.CompletionTokens == q.MaxTokens {
						okLength++
					}
					if q.CompletionTokens < 2 {
						okShort++
					}
					sawZero = sawZero || q.CompletionTokens == 0
					sawOne = sawOne || q.CompletionTokens == 1
				case StatusTimeout:
					sawTimeout = true
				case StatusReject:
					sawReject = true
				}
			}

			if got := delta("vllm:generation_tokens_total"); got != float64(completion) {
				t.Errorf("Δ generation_tokens_total = %g, Σ completion_tokens = %d", got, completion)
			}
			if got := delta("vllm:prompt_tokens_total"); got != float64(prompt) {
				t.Errorf("Δ prompt_tokens_total = %g, Σ prompt_tokens = %d", got, prompt)
			}
			success := 0.0
			for _, reason := range []string{"stop", "length", "abort", "error"} {
				sel := map[string]string{"engine": "0", "finished_reason": reason}
				success += counterValue(t, end, "vllm:request_success_total", sel) - counterValue(t, start, "vllm:request_success_total", sel)
			}
			if success != float64(ok) {
				t.Errorf("Δ request_success_total = %g, ok requests = %d", success, ok)
			}
			lsel := map[string]string{"engine": "0", "finished_reason": "length"}
			if got := counterValue(t, end, "vllm:request_success_total", lsel) - counterValue(t, start, "vllm:request_success_total", lsel); got != float64(okLength) {
				t.Errorf("Δ request_success_total{length} = %g, ok requests at max_tokens = %d", got, okLength)
			}

			hdelta := func(name string) (count uint64, sum float64) {
				hs, he := histogram(t, start, name), histogram(t, end, name)
				return he.GetSampleCount() - hs.GetSampleCount(), he.GetSampleSum() - hs.GetSampleSum()
			}
			want := map[string]int{
				"vllm:time_to_first_token_seconds":           withToken,
				"vllm:inter_token_latency_seconds":           gaps,
				"vllm:request_time_per_output_token_seconds": ok,
				"vllm:e2e_request_latency_seconds":           ok,
				"vllm:request_queue_time_seconds":            ok,
				"vllm:request_inference_time_seconds":        ok,
				"vllm:request_prefill_time_seconds":          ok,
				"vllm:request_decode_time_seconds":           ok,
				"vllm:request_prompt_tokens":                 ok,
				"vllm:request_generation_tokens":             ok,
				"vllm:request_params_max_tokens":             ok,
			}
			for _, name := range sortedKeys(want) {
				if got, _ := hdelta(name); got != uint64(want[name]) {
					t.Errorf("Δ %s_count = %d, want %d from the client records", name, got, want[name])
				}
			}
			if _, sum := hdelta("vllm:request_generation_tokens"); sum != float64(okCompletion) {
				t.Errorf("Δ request_generation_tokens_sum = %g, Σ completion_tokens of ok requests = %d", sum, okCompletion)
			}
			if _, sum := hdelta("vllm:request_prompt_tokens"); sum != float64(okPrompt) {
				t.Errorf("Δ request_prompt_tokens_sum = %g, Σ prompt_tokens of ok requests = %d", sum, okPrompt)
			}
			// Every real TPOT is above 10 ms, so the lowest bucket holds
			// exactly the zeros observed for 0- and 1-token outputs.
			name := "vllm:request_time_per_output_token_seconds"
			if got := bucketAt(histogram(t, end, name), 0.01) - bucketAt(histogram(t, start, name), 0.01); got != uint64(okShort) {
				t.Errorf("Δ %s_bucket{le=0.01} = %d, ok requests with < 2 tokens = %d", name, got, okShort)
			}
			// Server TTFT starts when the request arrives and ends when the
			// token leaves: it is short of the client's by the network.
			_, serverTTFT := hdelta("vllm:time_to_first_token_seconds")
			if withToken > 0 {
				gap := (clientTTFTms - serverTTFT*1000) / float64(withToken)
				if gap < 1.8 || gap > 5.2 {
					t.Errorf("client TTFT exceeds server TTFT by %.2f ms on average, want 2-5 ms", gap)
				}
			}
			// A step ends for every sequence at once, so the decode time of
			// completed requests is part of the inter-token sum.
			_, decode := hdelta("vllm:request_decode_time_seconds")
			_, itl := hdelta("vllm:inter_token_latency_seconds")
			if decode > itl*(1+1e-9) {
				t.Errorf("Δ decode_time_sum %g exceeds Δ inter_token_latency_sum %g", decode, itl)
			}
		})
	}
	if !sawTimeout || !sawReject || !sawZero || !sawOne {
		t.Errorf("the test sweep lacks an edge case: timeout %v, 503 %v, 0-token %v, 1-token %v", sawTimeout, sawReject, sawZero, sawOne)
	}
}

func TestClientRecordsAreConsistent(t *testing.T) {
	sw, _ := generate(t, edgeConfig())
	for _, r := range sw.Runs {
		if len(r.Requests) == 0 || r.WindowStartUs != r.Requests[0].SentUs {
			t.Fatalf("%s: window start %d is not the first send", r.Dir(), r.WindowStartUs)
		}
		type edge struct {
			t     int64
			delta int
		}
		var edges []edge
		for i, q := range r.Requests {
			if i > 0 && q.SentUs < r.Requests[i-1].SentUs {
				t.Errorf("%s: %s sent before the previous row", r.Dir(), q.ID)
			}
			if len(q.ChunkUs) != q.CompletionTokens {
				t.Errorf("%s: %s has %d chunks for %d tokens", r.Dir(), q.ID, len(q.ChunkUs), q.CompletionTokens)
			}
			if q.TTFTUs() <= 0 || q.E2EUs() < q.TTFTUs() || q.EndUs > r.WindowEndUs {
				t.Errorf("%s: %s: TTFT %d µs, E2E %d µs, end %d outside the window", r.Dir(), q.ID, q.TTFTUs(), q.E2EUs(), q.EndUs)
			}
			for k := 1; k < len(q.ChunkUs); k++ {
				if q.ChunkUs[k] <= q.ChunkUs[k-1] {
					t.Errorf("%s: %s: chunk %d does not follow chunk %d", r.Dir(), q.ID, k, k-1)
				}
			}
			if q.Status == StatusReject && (q.PromptTokens != 0 || q.CompletionTokens != 0) {
				t.Errorf("%s: %s: a 503 reports usage", r.Dir(), q.ID)
			}
			if q.CompletionTokens > q.MaxTokens {
				t.Errorf("%s: %s: %d tokens over max_tokens %d", r.Dir(), q.ID, q.CompletionTokens, q.MaxTokens)
			}
			edges = append(edges, edge{q.SentUs, 1}, edge{q.EndUs, -1})
		}
		// A closed loop never has more requests in flight than clients.
		sort.Slice(edges, func(i, j int) bool {
			if edges[i].t != edges[j].t {
				return edges[i].t < edges[j].t
			}
			return edges[i].delta < edges[j].delta
		})
		inFlight, peak := 0, 0
		for _, e := range edges {
			inFlight += e.delta
			peak = max(peak, inFlight)
		}
		if peak != r.Concurrency {
			t.Errorf("%s: peak in-flight requests %d, want the concurrency %d", r.Dir(), peak, r.Concurrency)
		}
	}
}

func TestWarmupAndStallAreVisible(t *testing.T) {
	sw, err := Generate(DefaultConfig().WithRequests(120))
	if err != nil {
		t.Fatal(err)
	}
	median := func(xs []float64) float64 {
		s := slices.Clone(xs)
		slices.Sort(s)
		return s[len(s)/2]
	}
	for _, r := range sw.Runs {
		var tpot []float64
		maxGap := int64(0)
		for _, q := range r.Requests {
			if q.Status == StatusOK && q.CompletionTokens >= 2 {
				tpot = append(tpot, float64(q.E2EUs()-q.TTFTUs())/float64(q.CompletionTokens-1))
			}
			for k := 1; k < len(q.ChunkUs); k++ {
				maxGap = max(maxGap, q.ChunkUs[k]-q.ChunkUs[k-1])
			}
		}
		early, late := median(tpot[:8]), median(tpot[len(tpot)-60:])
		if early < 1.4*late {
			t.Errorf("%s: early TPOT median %.0f µs is not clearly above the late %.0f µs", r.Dir(), early, late)
		}
		stalled := r.Concurrency == 16 && r.Repeat == 2
		if stalled != (maxGap > 2_000_000) {
			t.Errorf("%s: longest inter-chunk gap %d µs (stall expected: %v)", r.Dir(), maxGap, stalled)
		}
	}
}

// TestWrittenRecords reads the requests files back and checks them against
// the records in memory.
func TestWrittenRecords(t *testing.T) {
	sw, dir := generate(t, edgeConfig())
	for _, r := range sw.Runs {
		path := filepath.Join(dir, r.Dir(), "requests."+r.Format)
		switch r.Format {
		case "csv":
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			rows, err := csv.NewReader(f).ReadAll()
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(rows[0], requestColumns) || len(rows) != len(r.Requests)+1 {
				t.Fatalf("%s: header %v, %d rows", path, rows[0], len(rows))
			}
			for i, q := range r.Requests {
				row := rows[i+1]
				chunks := strings.Split(row[11], ";")
				if row[11] == "" {
					chunks = nil
				}
				if row[0] != q.ID || row[3] != usMs(q.TTFTUs()) || len(chunks) != q.CompletionTokens {
					t.Fatalf("%s: row %d = %v", path, i+2, row[:11])
				}
				if len(chunks) > 0 && (chunks[0] != row[3] || chunks[len(chunks)-1] != row[4]) {
					t.Errorf("%s: row %d: chunk_ms ends %s..%s, TTFT_ms %s, E2E_ms %s", path, i+2, chunks[0], chunks[len(chunks)-1], row[3], row[4])
				}
			}
		case "parquet":
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			tbl, err := pqarrow.ReadTable(context.Background(), bytes.NewReader(data), parquet.NewReaderProperties(memory.DefaultAllocator), pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
			if err != nil {
				t.Fatal(err)
			}
			defer tbl.Release()
			var names []string
			for _, f := range tbl.Schema().Fields() {
				names = append(names, f.Name)
			}
			if !slices.Equal(names, requestColumns) || tbl.NumRows() != int64(len(r.Requests)) {
				t.Fatalf("%s: columns %v, %d rows", path, names, tbl.NumRows())
			}
			if typ := tbl.Column(11).DataType(); !arrow.TypeEqual(typ, arrow.ListOf(arrow.PrimitiveTypes.Float64)) {
				t.Errorf("%s: chunk_ms is %s", path, typ)
			}
			ids := tbl.Column(0).Data().Chunk(0).(*array.String)
			ttft := tbl.Column(3).Data().Chunk(0).(*array.Float64)
			first := tbl.Column(6).Data().Chunk(0).(*array.Float64)
			lists := tbl.Column(11).Data().Chunk(0).(*array.List)
			for i, q := range r.Requests {
				from, to := lists.ValueOffsets(i)
				if ids.Value(i) != q.ID || ttft.Value(i) != float64(q.TTFTUs())/1e3 || int(to-from) != q.CompletionTokens {
					t.Fatalf("%s: row %d does not match %s", path, i+1, q.ID)
				}
				if first.IsNull(i) != (q.CompletionTokens == 0) {
					t.Errorf("%s: row %d: t_first_text null = %v with %d tokens", path, i+1, first.IsNull(i), q.CompletionTokens)
				}
			}
		}
	}
}

func TestGoFloat(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0, "0.0"},
		{1, "1.0"},
		{24, "24.0"},
		{20000, "20000.0"},
		{524288, "524288.0"},
		{1048576, "1.048576e+06"},
		{37811392512, "3.7811392512e+010"}, // prometheus_client's own quirk
		{1.7722243961797676e+09, "1.7722243961797676e+09"},
		{0.001, "0.001"},
		{0.0001, "0.0001"},
		{3.9806000131648034e-05, "3.9806000131648034e-05"},
		{1e-05, "1e-05"},
		{0.05244112014770508, "0.05244112014770508"},
		{11.669890475997818, "11.669890475997818"},
		{math.Inf(1), "+Inf"},
	} {
		if got := goFloat(tc.in); got != tc.want {
			t.Errorf("goFloat(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := pyRepr(1e16); got != "1e+16" {
		t.Errorf("pyRepr(1e16) = %q", got)
	}
}

func TestWithRequestsKeepsRatios(t *testing.T) {
	cfg := DefaultConfig().WithRequests(24)
	var got []int
	for _, l := range cfg.Levels {
		got = append(got, l.Requests)
	}
	if !slices.Equal(got, []int{24, 40, 60}) {
		t.Errorf("WithRequests(24) = %v, want [24 40 60]", got)
	}
	if DefaultConfig().Levels[0].Requests != 240 {
		t.Error("WithRequests modified the default levels")
	}
}

// TestExampleIsCurrent checks that runs/example is what the default
// configuration generates; regenerate it with
// `go run ./cmd/benchsim -o runs/example` after changing the simulator.
func TestExampleIsCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("generates the full example sweep")
	}
	if runtime.GOARCH != "amd64" {
		// Other architectures may fuse multiply-adds and have their own
		// math.Exp, so the last digits of the floats can differ.
		t.Skip("runs/example is generated on amd64; floating-point rounding differs on " + runtime.GOARCH)
	}
	example := filepath.Join("..", "..", "runs", "example")
	if _, err := os.Stat(example); err != nil {
		t.Skipf("no example sweep: %v", err)
	}
	_, dir := generate(t, DefaultConfig())
	fresh := readTree(t, dir)
	for _, name := range sortedKeys(fresh) {
		old, err := os.ReadFile(filepath.Join(example, filepath.FromSlash(name)))
		if err != nil || !bytes.Equal(old, fresh[name]) {
			t.Errorf("runs/example/%s is stale (%v); run `go run ./cmd/benchsim -o runs/example`", name, err)
		}
	}
}

// TestGPUTelemetry: every run's gpu.csv is read by ingest whole (one
// GPU, every row used), covers the window, idles at 72 W before the first
// request, and its energy counter adds each second's trapezoid.
func TestGPUTelemetry(t *testing.T) {
	sw, dir := generate(t, smallConfig())
	loaded, err := ingest.Load(dir, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range loaded.Runs {
		g := r.GPU
		if g == nil || len(g.GPUs) != 1 || len(g.Files) != 1 || g.Files[0].Used != g.Files[0].Rows || g.Unplaced != "" {
			t.Fatalf("%s: GPU telemetry %+v", r.Dir, g)
		}
		s := g.GPUs[0].Samples
		start, end := float64(r.Window.Start.UnixMicro())/1e6, float64(r.Window.End.UnixMicro())/1e6
		if s[0].Time > start-1 || s[len(s)-1].Time < end+1 || s[0].PowerW != 72 || s[0].UtilPercent != 0 {
			t.Errorf("%s: samples %v .. %v for the window %v .. %v, first %+v", r.Dir, s[0].Time, s[len(s)-1].Time, start, end, s[0])
		}
		for i := 1; i < len(s); i++ {
			if d := s[i].EnergyJ - s[i-1].EnergyJ - (s[i].PowerW+s[i-1].PowerW)/2; math.Abs(d) > 0.002 {
				t.Fatalf("%s: sample %d: the counter rose by %v J more than the trapezoid", r.Dir, i, d)
			}
		}
	}
	if len(loaded.Runs) != len(sw.Runs) {
		t.Errorf("%d runs read, %d written", len(loaded.Runs), len(sw.Runs))
	}
}

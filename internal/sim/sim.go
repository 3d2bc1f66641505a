// Package sim generates a synthetic benchmark sweep in benchnote's input
// layout (docs/input-format.md): per-request client records, Prometheus
// scrapes bracketing each run, run.yaml, sweep.yaml and environment logs.
//
// Nothing it writes was measured. It is a small discrete-event simulation of
// a closed-loop streaming benchmark against a vLLM-like server with
// continuous batching, built so that the client records and the server
// counters agree exactly:
//
//   - Δ vllm:generation_tokens_total over a run's window equals the sum of
//     the run's completion_tokens (errors' partial tokens included);
//   - Δ vllm:prompt_tokens_total equals the sum of its prompt_tokens;
//   - every server histogram's count delta equals the number of samples the
//     client rows imply (one inter-token observation per gap, one TTFT per
//     request that produced a token, one per-request observation per
//     completed request).
//
// The model, its parameters and its deliberate simplifications are described
// in docs/simulator.md. Output is a pure function of Config: the random
// streams are math/rand/v2 PCG generators seeded from Config.Seed, nothing
// ranges over a map, and every number is formatted with a fixed rule.
package sim

import (
	"bytes"
	"container/heap"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"
)

// Config is everything the simulation depends on. Start from DefaultConfig.
type Config struct {
	// Seed selects the random streams; the same Config always produces the
	// same sweep, byte for byte.
	Seed uint64
	// Title goes into sweep.yaml.
	Title string
	// Model is the served model name (the model_name label and env files).
	Model string
	// Start is the wall-clock time the first simulated server process starts.
	Start time.Time
	// Repeats is the number of repeats per concurrency level. Each repeat is
	// one server process that runs every level once, in Levels order.
	Repeats int
	// Levels are the concurrency levels, in the order a process runs them.
	Levels   []Level
	Server   ServerModel
	Workload Workload
	Client   ClientModel
	// Stalls are injected engine stalls (run-level oddities).
	Stalls []Stall
}

// Level is one concurrency level of the sweep.
type Level struct {
	Concurrency int
	// Requests is the number of requests each run at this level sends.
	Requests int
	// Format is the requests file format: "csv" or "parquet".
	Format string
}

// ServerModel is the simulated engine. Step times are in milliseconds.
type ServerModel struct {
	// MaxNumSeqs is the number of sequences that can run at once; requests
	// beyond it wait in the server's queue.
	MaxNumSeqs int
	// MaxNumBatchedTokens is the per-step token budget (decode tokens plus
	// prefill tokens). A prompt that does not fit waits for the next step.
	MaxNumBatchedTokens int
	// MaxModelLen sets the token-count histogram bounds (1-2-5 series up to it).
	MaxModelLen int
	// One engine step takes
	//   warm-up × noise × (StepBaseMs + StepPerSeqMs·seqs + PrefillPerTokenMs·prefill tokens + PrefillPerSeqMs·prefills)
	// and every sequence in it gets exactly one token.
	StepBaseMs        float64
	StepPerSeqMs      float64
	PrefillPerTokenMs float64
	PrefillPerSeqMs   float64
	// StepNoise is the sigma of the multiplicative log-normal step noise.
	StepNoise float64
	// HiccupRate is the probability that a step takes HiccupMs longer.
	HiccupRate float64
	HiccupMs   [2]float64
	// IngestMs is the API server's time from receiving a request to queueing
	// it in the engine (tokenisation, IPC), plus IngestPerTokenMs per prompt token.
	IngestMs         [2]float64
	IngestPerTokenMs float64
	// RejectMs is how long the API server takes to answer a 503.
	RejectMs [2]float64
	// Warm-up: the step time multiplier is 1 + (peak−1)·(1 − k/K)² while k,
	// the number of the run's requests admitted so far, is below K. The
	// first run of a process uses WarmupPeak[1]; later runs draw the peak
	// from WarmupPeak. K is drawn from WarmupRequests (inclusive).
	WarmupPeak     [2]float64
	WarmupRequests [2]int
	// SmokeRequests are sent (sequentially, prompt SmokePrompt tokens,
	// max_tokens SmokeMaxTokens, always hitting max_tokens) right after a
	// process starts, before the first run's start scrape.
	SmokeRequests  int
	SmokePrompt    int
	SmokeMaxTokens int
	// NumGPUBlocks is reported in vllm:cache_config_info.
	NumGPUBlocks int
}

// Workload is the request mix each client draws from.
type Workload struct {
	// Prompt lengths are log-normal (median, sigma), rounded and clipped.
	PromptMedian float64
	PromptSigma  float64
	PromptMin    int
	PromptMax    int
	// Output lengths are log-normal (median, sigma), clipped to [2, MaxTokens];
	// a draw at or above MaxTokens finishes with reason "length".
	OutputMedian float64
	OutputSigma  float64
	MaxTokens    int
	// ZeroTokenRate and OneTokenRate are the shares of requests that end,
	// successfully, with 0 or 1 generated tokens.
	ZeroTokenRate float64
	OneTokenRate  float64
	// RejectRate is the share of requests the API server answers with
	// "HTTP 503: server overloaded" without queueing them.
	RejectRate float64
}

// ClientModel is the benchmark client and the network between it and the server.
type ClientModel struct {
	// UplinkMs and DownlinkMs bound the per-request one-way delays.
	UplinkMs   [2]float64
	DownlinkMs [2]float64
	// ChunkJitterMs is the mean of the exponential per-chunk delivery jitter.
	ChunkJitterMs float64
	// FinalFrameMs bounds the delay of the closing usage/[DONE] frames.
	FinalFrameMs [2]float64
	// ThinkMs bounds the pause between a finished request and the client's next send.
	ThinkMs [2]float64
	// TimeoutS is the client's total per-request deadline; a request still
	// unfinished then is abandoned with status "timeout".
	TimeoutS float64
	// RunGapS is the idle time between runs of one process.
	RunGapS float64
}

// Stall adds Seconds to one engine step of one run: the first step that
// starts after AtFraction of the run's requests have been sent.
type Stall struct {
	Concurrency int
	Repeat      int
	AtFraction  float64
	Seconds     float64
}

// DefaultConfig returns the configuration that produced runs/example.
func DefaultConfig() Config {
	return Config{
		Seed:    1,
		Title:   "Example sweep: simulated Llama-3.1-8B-Instruct on 1x L40S (synthetic)",
		Model:   "meta-llama/Llama-3.1-8B-Instruct",
		Start:   time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC),
		Repeats: 3,
		Levels: []Level{
			{Concurrency: 1, Requests: 240, Format: "csv"},
			{Concurrency: 4, Requests: 400, Format: "parquet"},
			{Concurrency: 16, Requests: 600, Format: "csv"},
		},
		Server: ServerModel{
			MaxNumSeqs:          8,
			MaxNumBatchedTokens: 8192,
			MaxModelLen:         8192,
			StepBaseMs:          19.0,
			StepPerSeqMs:        0.55,
			PrefillPerTokenMs:   0.072,
			PrefillPerSeqMs:     1.5,
			StepNoise:           0.02,
			HiccupRate:          0.002,
			HiccupMs:            [2]float64{8, 30},
			IngestMs:            [2]float64{0.3, 0.7},
			IngestPerTokenMs:    0.0008,
			RejectMs:            [2]float64{0.6, 2.0},
			WarmupPeak:          [2]float64{2.0, 2.5},
			WarmupRequests:      [2]int{20, 40},
			SmokeRequests:       3,
			SmokePrompt:         24,
			SmokeMaxTokens:      16,
			NumGPUBlocks:        12054,
		},
		Workload: Workload{
			PromptMedian:  500,
			PromptSigma:   0.55,
			PromptMin:     16,
			PromptMax:     4000,
			OutputMedian:  180,
			OutputSigma:   0.45,
			MaxTokens:     256,
			ZeroTokenRate: 0.005,
			OneTokenRate:  0.01,
			RejectRate:    0.004,
		},
		Client: ClientModel{
			UplinkMs:      [2]float64{0.8, 2.2},
			DownlinkMs:    [2]float64{1.0, 2.5},
			ChunkJitterMs: 0.12,
			FinalFrameMs:  [2]float64{0.05, 0.25},
			ThinkMs:       [2]float64{0.2, 0.9},
			TimeoutS:      13,
			RunGapS:       30,
		},
		Stalls: []Stall{{Concurrency: 16, Repeat: 2, AtFraction: 0.55, Seconds: 2.4}},
	}
}

// WithRequests returns a copy of c in which the first level sends n requests
// per run and every other level keeps its ratio to the first (so the default
// 240/400/600 becomes n, n·5/3, n·5/2).
func (c Config) WithRequests(n int) Config {
	levels := make([]Level, len(c.Levels))
	copy(levels, c.Levels)
	if len(levels) > 0 && levels[0].Requests > 0 {
		base := float64(levels[0].Requests)
		for i := range levels {
			levels[i].Requests = max(1, int(math.Round(float64(n)*float64(c.Levels[i].Requests)/base)))
		}
	}
	c.Levels = levels
	return c
}

// Validate reports the first setting that would make the simulation
// meaningless or stuck.
func (c Config) Validate() error {
	switch {
	case c.Repeats < 1:
		return errors.New("sim: Repeats must be at least 1")
	case len(c.Levels) == 0:
		return errors.New("sim: no concurrency levels")
	case c.Model == "":
		return errors.New("sim: empty Model")
	case c.Server.MaxNumSeqs < 1:
		return errors.New("sim: MaxNumSeqs must be at least 1")
	case c.Workload.PromptMin < 1 || c.Workload.PromptMax < c.Workload.PromptMin:
		return errors.New("sim: prompt bounds must satisfy 1 <= PromptMin <= PromptMax")
	case c.Server.MaxNumBatchedTokens < c.Workload.PromptMax+c.Server.MaxNumSeqs:
		return fmt.Errorf("sim: MaxNumBatchedTokens %d cannot hold a %d-token prompt next to %d decodes",
			c.Server.MaxNumBatchedTokens, c.Workload.PromptMax, c.Server.MaxNumSeqs)
	case c.Workload.MaxTokens < 2:
		return errors.New("sim: MaxTokens must be at least 2")
	case c.Server.StepBaseMs <= 0:
		return errors.New("sim: StepBaseMs must be positive")
	case c.Client.TimeoutS <= 0:
		return errors.New("sim: TimeoutS must be positive")
	case c.Server.WarmupRequests[0] < 1 || c.Server.WarmupRequests[1] < c.Server.WarmupRequests[0]:
		return errors.New("sim: WarmupRequests must be an increasing pair of positive counts")
	}
	seen := map[int]bool{}
	for _, l := range c.Levels {
		if l.Concurrency < 1 || l.Requests < 1 {
			return fmt.Errorf("sim: level c%d: concurrency and requests must be positive", l.Concurrency)
		}
		if seen[l.Concurrency] {
			return fmt.Errorf("sim: concurrency %d listed twice", l.Concurrency)
		}
		seen[l.Concurrency] = true
		if l.Format != "csv" && l.Format != "parquet" {
			return fmt.Errorf("sim: level c%d: format %q is neither csv nor parquet", l.Concurrency, l.Format)
		}
	}
	return nil
}

// Sweep is a generated sweep, held in memory until written.
type Sweep struct {
	Config Config
	// Runs are sorted by concurrency, then repeat.
	Runs []*Run
}

// Run is one simulated run: one repeat at one concurrency level.
type Run struct {
	Concurrency int
	Repeat      int
	// Format is "csv" or "parquet".
	Format string
	// Requests are the client records in send order.
	Requests []Request
	// WindowStartUs is the first send and WindowEndUs the last client-side
	// completion (unix microseconds); the scrapes are taken just outside.
	WindowStartUs int64
	WindowEndUs   int64
	// Notes is written to run.yaml.
	Notes string

	// start and end are the server's state at the two scrapes.
	start, end scrape
}

// Request is one client record. Times are unix microseconds.
type Request struct {
	ID               string
	PromptTokens     int
	CompletionTokens int
	MaxTokens        int
	// Status is "ok", "timeout" or "HTTP 503: server overloaded".
	Status string
	SentUs int64
	// ChunkUs holds the arrival of each text-bearing chunk (one token each).
	ChunkUs []int64
	// EndUs is when the client was done with the request: the closing frame
	// of a stream, the error response, or the timeout.
	EndUs int64
}

// TTFTUs is the first text chunk minus the send time; for a request with no
// text chunk it is the time until the client was done with it.
func (r *Request) TTFTUs() int64 {
	if len(r.ChunkUs) > 0 {
		return r.ChunkUs[0] - r.SentUs
	}
	return r.EndUs - r.SentUs
}

// E2EUs is the last text chunk minus the send time; for a request with no
// text chunk it is the time until the client was done with it.
func (r *Request) E2EUs() int64 {
	if n := len(r.ChunkUs); n > 0 {
		return r.ChunkUs[n-1] - r.SentUs
	}
	return r.EndUs - r.SentUs
}

// Status values written to the requests files.
const (
	StatusOK      = "ok"
	StatusTimeout = "timeout"
	StatusReject  = "HTTP 503: server overloaded"
)

// Generate runs the simulation described by cfg.
func Generate(cfg Config) (*Sweep, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	g := &generator{cfg: &cfg, startUs: cfg.Start.UnixMicro()}
	sw := &Sweep{Config: cfg}
	clock := 0.0 // seconds since cfg.Start
	for rep := 1; rep <= cfg.Repeats; rep++ {
		runs, end := g.process(rep, clock)
		sw.Runs = append(sw.Runs, runs...)
		clock = end + 90
	}
	sort.SliceStable(sw.Runs, func(i, j int) bool {
		a, b := sw.Runs[i], sw.Runs[j]
		if a.Concurrency != b.Concurrency {
			return a.Concurrency < b.Concurrency
		}
		return a.Repeat < b.Repeat
	})
	return sw, nil
}

// generator holds what is shared by all processes of one sweep.
type generator struct {
	cfg     *Config
	startUs int64
}

// us converts simulation seconds to unix microseconds.
func (g *generator) us(t float64) int64 { return g.startUs + int64(math.Round(t*1e6)) }

// unix converts simulation seconds to unix seconds.
func (g *generator) unix(t float64) float64 { return float64(g.startUs)/1e6 + t }

// process simulates one server process: start-up, smoke test, then one run
// per level. It returns the runs and the time the process is done.
func (g *generator) process(rep int, t0 float64) ([]*Run, float64) {
	cfg := g.cfg
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x70726f6300+uint64(rep)))
	created := t0 + 63.4 + 3*rng.Float64()
	p := &process{
		gen:         g,
		startUnix:   math.Round(g.unix(t0)*100) / 100,
		createdUnix: g.unix(created),
		st:          newServerState(cfg),
	}
	eng := &engine{cfg: cfg, st: p.st}

	smoke := &runSim{
		gen: g, eng: eng, proc: p, rng: rng,
		concurrency: 1, requests: cfg.Server.SmokeRequests,
		warmPeak: cfg.Server.WarmupPeak[1], warmK: math.MaxInt32,
		stallAt: -1,
		draw: func(r *rand.Rand, j *job) {
			j.prompt, j.target, j.maxTokens = cfg.Server.SmokePrompt, cfg.Server.SmokeMaxTokens, cfg.Server.SmokeMaxTokens
		},
	}
	clock := smoke.simulate(created + 6.5)

	var runs []*Run
	for li, lv := range cfg.Levels {
		rr := rand.New(rand.NewPCG(cfg.Seed, uint64(lv.Concurrency)<<16|uint64(rep)))
		peak := cfg.Server.WarmupPeak[1]
		if li > 0 {
			peak = uniform(rr, cfg.Server.WarmupPeak)
		}
		k := cfg.Server.WarmupRequests[0] + rr.IntN(cfg.Server.WarmupRequests[1]-cfg.Server.WarmupRequests[0]+1)
		run := &Run{Concurrency: lv.Concurrency, Repeat: rep, Format: lv.Format, Requests: make([]Request, lv.Requests)}
		rs := &runSim{
			gen: g, eng: eng, proc: p, rng: rr, run: run,
			concurrency: lv.Concurrency, requests: lv.Requests,
			warmPeak: peak, warmK: k, stallAt: -1,
			draw: g.drawRequest,
		}
		var notes []string
		for _, s := range cfg.Stalls {
			if s.Concurrency == lv.Concurrency && s.Repeat == rep {
				rs.stallAt = int(s.AtFraction * float64(lv.Requests))
				rs.stallSeconds = s.Seconds
				notes = append(notes, fmt.Sprintf("oddity: a simulated %.1f s engine stall begins at the first step after %s was sent", s.Seconds, requestID(lv.Concurrency, rep, rs.stallAt)))
			}
		}
		start := clock + 9
		if li > 0 {
			start = clock + cfg.Client.RunGapS
		}
		run.start = p.scrape(start - 0.8)
		clock = rs.simulate(start)
		run.end = p.scrape(g.unixToSim(run.WindowEndUs) + 0.8)
		note := fmt.Sprintf("synthetic: generated by benchsim (seed %d), not measured; server process %d of the sweep serves c%s in that order; warm-up peak x%.2f fading over the first %d requests",
			cfg.Seed, rep, levelList(cfg.Levels), peak, k)
		run.Notes = strings.Join(append([]string{note}, notes...), "; ")
		runs = append(runs, run)
	}
	return runs, clock
}

func (g *generator) unixToSim(us int64) float64 { return float64(us-g.startUs) / 1e6 }

func levelList(levels []Level) string {
	parts := make([]string, len(levels))
	for i, l := range levels {
		parts[i] = strconv.Itoa(l.Concurrency)
	}
	return strings.Join(parts, ", c")
}

func requestID(c, rep, i int) string { return fmt.Sprintf("c%d-r%d-%04d", c, rep, i+1) }

// drawRequest draws a benchmark request's workload attributes.
func (g *generator) drawRequest(r *rand.Rand, j *job) {
	w := g.cfg.Workload
	j.maxTokens = w.MaxTokens
	j.prompt = int(math.Round(w.PromptMedian * math.Exp(w.PromptSigma*r.NormFloat64())))
	j.prompt = min(max(j.prompt, w.PromptMin), w.PromptMax)
	out := int(math.Round(w.OutputMedian * math.Exp(w.OutputSigma*r.NormFloat64())))
	j.target = min(max(out, 2), w.MaxTokens)
	switch u := r.Float64(); {
	case u < w.ZeroTokenRate:
		j.target = 0
	case u < w.ZeroTokenRate+w.OneTokenRate:
		j.target = 1
	}
	j.reject = r.Float64() < w.RejectRate
}

func uniform(r *rand.Rand, b [2]float64) float64 { return b[0] + (b[1]-b[0])*r.Float64() }

// process is one simulated server process: its metrics live as long as it does.
type process struct {
	gen         *generator
	startUnix   float64
	createdUnix float64
	st          *serverState
}

// scrape snapshots the server state at simulation time t.
func (p *process) scrape(t float64) scrape {
	return scrape{proc: p, at: p.gen.unix(t), st: p.st.clone()}
}

// job is one request as the simulation sees it.
type job struct {
	idx, client int
	prompt      int
	target      int // tokens the server will generate if nothing interrupts it
	maxTokens   int
	reject      bool

	sent, dUp, dDown float64
	arrival          float64 // the API server receives it
	queued           float64 // the engine queues it
	deadline         float64 // the client gives up

	scheduled         bool
	schedTime         float64
	tokens            int
	firstTok, lastTok float64   // server-side token times
	recv              []float64 // client-side arrival of each token
	done              bool
}

// engine is the server's scheduler state, shared by all runs of a process.
type engine struct {
	cfg     *Config
	st      *serverState
	free    float64 // end of the last step
	waiting []*job
	running []*job
}

type evKind int

const (
	evSend     evKind = iota // a client sends its next request
	evQueued                 // a request reaches the engine's waiting queue
	evDeadline               // a client's per-request deadline passes
)

type event struct {
	t      float64
	seq    uint64
	kind   evKind
	job    *job
	client int
}

type eventQueue []*event

func (q eventQueue) Len() int { return len(q) }
func (q eventQueue) Less(i, j int) bool {
	if q[i].t != q[j].t {
		return q[i].t < q[j].t
	}
	return q[i].seq < q[j].seq
}
func (q eventQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)   { *q = append(*q, x.(*event)) }
func (q *eventQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// runSim simulates one closed-loop run (or the smoke test) on an engine.
type runSim struct {
	gen  *generator
	eng  *engine
	proc *process
	rng  *rand.Rand
	run  *Run // nil for the smoke test: nothing is recorded

	concurrency, requests int
	warmPeak              float64
	warmK                 int
	stallAt               int
	stallSeconds          float64
	draw                  func(*rand.Rand, *job)

	ev           eventQueue
	seq          uint64
	sent, done   int
	admitted     int
	stallPending bool
	lastEnd      float64
}

func (rs *runSim) push(t float64, kind evKind, j *job, client int) {
	rs.seq++
	heap.Push(&rs.ev, &event{t: t, seq: rs.seq, kind: kind, job: j, client: client})
}

// simulate runs until every request is finished and returns the time the
// last client was done.
func (rs *runSim) simulate(start float64) float64 {
	for c := 0; c < rs.concurrency; c++ {
		rs.push(start+float64(c)*0.00015, evSend, nil, c)
	}
	eng := rs.eng
	for rs.done < rs.requests {
		if len(eng.running)+len(eng.waiting) > 0 {
			s := eng.free
			for rs.ev.Len() > 0 && rs.ev[0].t <= s {
				rs.handle(heap.Pop(&rs.ev).(*event))
			}
			if len(eng.running)+len(eng.waiting) > 0 {
				rs.step(s)
			}
			continue
		}
		if rs.ev.Len() == 0 {
			panic("sim: no pending event while requests are unfinished")
		}
		e := heap.Pop(&rs.ev).(*event)
		eng.free = max(eng.free, e.t)
		rs.handle(e)
	}
	if rs.run != nil {
		rs.run.WindowStartUs = rs.run.Requests[0].SentUs
		for i := range rs.run.Requests {
			rs.run.WindowEndUs = max(rs.run.WindowEndUs, rs.run.Requests[i].EndUs)
		}
	}
	return rs.lastEnd
}

func (rs *runSim) handle(e *event) {
	switch e.kind {
	case evSend:
		rs.send(e.t, e.client)
	case evQueued:
		if !e.job.done {
			e.job.queued = e.t
			rs.eng.waiting = append(rs.eng.waiting, e.job)
		}
	case evDeadline:
		j := e.job
		if j.done || j.scheduled {
			return // finished, or the step that serves it decides (see emit)
		}
		for i, w := range rs.eng.waiting {
			if w == j {
				rs.eng.waiting = append(rs.eng.waiting[:i], rs.eng.waiting[i+1:]...)
				break
			}
		}
		rs.abort(j)
	}
}

// send starts the client's next request, if any are left.
func (rs *runSim) send(t float64, client int) {
	if rs.sent == rs.requests {
		return
	}
	cfg := rs.gen.cfg
	j := &job{idx: rs.sent, client: client, sent: t}
	rs.sent++
	rs.draw(rs.rng, j)
	j.dUp = uniform(rs.rng, cfg.Client.UplinkMs) / 1000
	j.dDown = uniform(rs.rng, cfg.Client.DownlinkMs) / 1000
	j.arrival = t + j.dUp
	if j.idx == rs.stallAt {
		rs.stallPending = true
	}
	st := rs.eng.st
	st.requestBytes(j.prompt)
	if j.reject {
		d := uniform(rs.rng, cfg.Server.RejectMs) / 1000
		st.http(false, j.arrival, d, 121)
		j.done = true
		rs.finishClient(j, StatusReject, j.arrival+d+j.dDown)
		return
	}
	j.deadline = t + cfg.Client.TimeoutS
	ingest := (uniform(rs.rng, cfg.Server.IngestMs) + cfg.Server.IngestPerTokenMs*float64(j.prompt)) / 1000
	rs.push(j.arrival+ingest, evQueued, j, client)
	rs.push(j.deadline, evDeadline, j, client)
}

// warm is the warm-up multiplier after k of the run's requests were admitted.
func (rs *runSim) warm(k int) float64 {
	if k >= rs.warmK {
		return 1
	}
	f := 1 - float64(k)/float64(rs.warmK)
	return 1 + (rs.warmPeak-1)*f*f
}

// step runs one engine step starting at s: admit waiting requests, then give
// every sequence in the batch one token at the step's end.
func (rs *runSim) step(s float64) {
	cfg, eng, st := rs.gen.cfg, rs.eng, rs.eng.st
	budget := cfg.Server.MaxNumBatchedTokens - len(eng.running)
	var admitted []*job
	prefillTokens := 0
	for len(eng.waiting) > 0 && len(eng.running)+len(admitted) < cfg.Server.MaxNumSeqs {
		j := eng.waiting[0]
		if j.prompt > budget {
			break
		}
		budget -= j.prompt
		prefillTokens += j.prompt
		j.scheduled, j.schedTime = true, s
		admitted = append(admitted, j)
		eng.waiting = eng.waiting[1:]
	}
	seqs := len(eng.running) + len(admitted)
	sm := cfg.Server
	ms := sm.StepBaseMs + sm.StepPerSeqMs*float64(seqs) + sm.PrefillPerTokenMs*float64(prefillTokens) + sm.PrefillPerSeqMs*float64(len(admitted))
	ms *= rs.warm(rs.admitted) * math.Exp(sm.StepNoise*rs.rng.NormFloat64())
	rs.admitted += len(admitted)
	if rs.rng.Float64() < sm.HiccupRate {
		ms += uniform(rs.rng, sm.HiccupMs)
	}
	if rs.stallPending {
		ms += rs.stallSeconds * 1000
		rs.stallPending = false
	}
	end := s + ms/1000
	st.observe(hIterationTokens, float64(prefillTokens+len(eng.running)))

	next := make([]*job, 0, seqs)
	for _, j := range eng.running {
		rs.emit(j, end)
		if !j.done {
			next = append(next, j)
		}
	}
	for _, j := range admitted {
		if j.target == 0 {
			rs.finishEmpty(j, end)
		} else {
			rs.emit(j, end)
		}
		if !j.done {
			next = append(next, j)
		}
	}
	eng.running = next
	eng.free = end
}

// arrive is when a frame the server sends at t reaches the client.
func (rs *runSim) arrive(j *job, t float64) float64 {
	r := t + j.dDown + rs.rng.ExpFloat64()*rs.gen.cfg.Client.ChunkJitterMs/1000
	if n := len(j.recv); n > 0 && r <= j.recv[n-1] {
		r = j.recv[n-1] + 1e-6 // one stream: frames arrive in order
	}
	return r
}

// emit gives j its next token at the end of a step. A token that would reach
// the client after its deadline is never counted: the request is abandoned
// at the deadline instead (see docs/simulator.md, "timeouts").
func (rs *runSim) emit(j *job, t float64) {
	r := rs.arrive(j, t)
	if r > j.deadline {
		rs.abort(j)
		return
	}
	st := rs.eng.st
	if j.tokens == 0 {
		st.PromptTokens += float64(j.prompt)
		st.observe(hTTFT, t-j.arrival)
		j.firstTok = t
	} else {
		st.observe(hITL, t-j.lastTok)
	}
	st.GenerationTokens++
	j.tokens++
	j.lastTok = t
	j.recv = append(j.recv, r)
	if j.tokens == j.target {
		rs.finish(j, t, j.recv[len(j.recv)-1]+uniform(rs.rng, rs.gen.cfg.Client.FinalFrameMs)/1000)
	}
}

// finishEmpty ends a request whose prefill produced no token.
func (rs *runSim) finishEmpty(j *job, t float64) {
	r := rs.arrive(j, t)
	if r > j.deadline {
		rs.abort(j)
		return
	}
	rs.eng.st.PromptTokens += float64(j.prompt)
	j.firstTok, j.lastTok = t, t
	rs.finish(j, t, r)
}

// finish records a completed request on the server and the client.
func (rs *runSim) finish(j *job, t, clientEnd float64) {
	st := rs.eng.st
	n := j.tokens
	first := j.firstTok
	st.observe(hE2E, t-j.arrival)
	st.observe(hQueue, j.schedTime-j.queued)
	st.observe(hInference, t-j.schedTime)
	st.observe(hPrefill, first-j.schedTime)
	st.observe(hDecode, j.lastTok-first)
	tpot := 0.0 // vLLM observes 0 for 0- and 1-token outputs
	if n >= 2 {
		tpot = (j.lastTok - first) / float64(n-1)
	}
	st.observe(hRequestTPOT, tpot)
	st.observe(hPromptTokens, float64(j.prompt))
	st.observe(hGenerationTokens, float64(n))
	st.observe(hMaxNumGenerationTokens, float64(j.maxTokens))
	st.observe(hParamsN, 1)
	st.observe(hParamsMaxTokens, float64(j.maxTokens))
	st.observe(hPrefillKVComputed, float64(j.prompt))
	if n == j.maxTokens {
		st.Success[reasonLength]++
	} else {
		st.Success[reasonStop]++
	}
	st.http(true, j.arrival, t+0.0003-j.arrival, 0)
	j.done = true
	rs.finishClient(j, StatusOK, clientEnd)
}

// abort abandons j at its client deadline. The engine drops it between
// steps; like vLLM, a client abort is not observed in the per-request
// histograms or in vllm:request_success_total.
func (rs *runSim) abort(j *job) {
	j.done = true
	rs.eng.st.http(true, j.arrival, j.deadline-j.arrival, 0)
	rs.finishClient(j, StatusTimeout, j.deadline)
}

// finishClient writes the client record and lets the client send again.
func (rs *runSim) finishClient(j *job, status string, end float64) {
	rs.done++
	rs.lastEnd = max(rs.lastEnd, end)
	rs.push(end+uniform(rs.rng, rs.gen.cfg.Client.ThinkMs)/1000, evSend, nil, j.client)
	if rs.run == nil {
		return
	}
	g := rs.gen
	req := Request{
		ID:               requestID(rs.run.Concurrency, rs.run.Repeat, j.idx),
		CompletionTokens: j.tokens,
		MaxTokens:        j.maxTokens,
		Status:           status,
		SentUs:           g.us(j.sent),
		EndUs:            g.us(end),
	}
	// usage arrives with every chunk (continuous usage stats), so a request
	// knows the server's prompt length once it has received anything.
	if j.tokens > 0 || status == StatusOK {
		req.PromptTokens = j.prompt
	}
	prev := req.SentUs
	for _, r := range j.recv {
		u := max(g.us(r), prev+1)
		req.ChunkUs = append(req.ChunkUs, u)
		prev = u
	}
	req.EndUs = max(req.EndUs, prev)
	rs.run.Requests[j.idx] = req
}

// ---------------------------------------------------------------------------
// Server metrics.

type histID int

// The histograms the simulated server keeps, in exposition order.
const (
	hPromptTokens histID = iota
	hGenerationTokens
	hIterationTokens
	hMaxNumGenerationTokens
	hParamsN
	hParamsMaxTokens
	hTTFT
	hITL
	hRequestTPOT
	hE2E
	hQueue
	hInference
	hPrefill
	hDecode
	hPrefillKVComputed
	hHTTPHighr
	hHTTPDuration
	numHist
)

const (
	reasonStop = iota
	reasonLength
	reasonAbort
	reasonError
	numReasons
)

var reasonNames = [numReasons]string{"stop", "length", "abort", "error"}

type histSpec struct {
	name, help string
	bounds     []float64
}

// Bucket bounds as vLLM 0.16 exposes them (checked against a real scrape).
var (
	boundsTTFT     = []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0}
	boundsITL      = []float64{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0}
	boundsRequest  = []float64{0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0}
	boundsIter     = []float64{1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384}
	boundsN        = []float64{1, 2, 5, 10, 20}
	boundsHighr    = []float64{0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 7.5, 10, 30, 60}
	boundsDuration = []float64{0.1, 0.5, 1}
)

// bounds125 is vLLM's 1-2-5 series up to maxValue.
func bounds125(maxValue int) []float64 {
	var out []float64
	for exp := 1.0; ; exp *= 10 {
		for _, m := range []float64{1, 2, 5} {
			v := m * exp
			if v > float64(maxValue) {
				return out
			}
			out = append(out, v)
		}
	}
}

func histSpecs(cfg *Config) [numHist]histSpec {
	tok := bounds125(cfg.Server.MaxModelLen)
	return [numHist]histSpec{
		hPromptTokens:           {"vllm:request_prompt_tokens", "Number of prefill tokens processed.", tok},
		hGenerationTokens:       {"vllm:request_generation_tokens", "Number of generation tokens processed.", tok},
		hIterationTokens:        {"vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.", boundsIter},
		hMaxNumGenerationTokens: {"vllm:request_max_num_generation_tokens", "Histogram of maximum number of requested generation tokens.", tok},
		hParamsN:                {"vllm:request_params_n", "Histogram of the n request parameter.", boundsN},
		hParamsMaxTokens:        {"vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter.", tok},
		hTTFT:                   {"vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", boundsTTFT},
		hITL:                    {"vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", boundsITL},
		hRequestTPOT:            {"vllm:request_time_per_output_token_seconds", "Histogram of time_per_output_token_seconds per request.", boundsITL},
		hE2E:                    {"vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", boundsRequest},
		hQueue:                  {"vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", boundsRequest},
		hInference:              {"vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request.", boundsRequest},
		hPrefill:                {"vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", boundsRequest},
		hDecode:                 {"vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", boundsRequest},
		hPrefillKVComputed:      {"vllm:request_prefill_kv_computed_tokens", "Histogram of new KV tokens computed during prefill (excluding cached tokens).", tok},
		hHTTPHighr:              {"http_request_duration_highr_seconds", "Latency with many buckets but no API specific labels. Made for more accurate percentile calculations.", boundsHighr},
		hHTTPDuration:           {"http_request_duration_seconds", "Latency with only few buckets by handler. Made to be only used if aggregation by handler is important.", boundsDuration},
	}
}

// hist is one histogram series; counts are per bucket (not cumulative) and
// include a final +Inf bucket.
type hist struct {
	bounds []float64
	counts []uint64
	count  uint64
	sum    float64
}

func (h *hist) observe(v float64) {
	i := sort.SearchFloat64s(h.bounds, v) // first bound >= v: le is inclusive
	h.counts[i]++
	h.count++
	h.sum += v
}

// serverState is the cumulative state of one server process's /metrics.
type serverState struct {
	PromptTokens     float64
	GenerationTokens float64
	Success          [numReasons]uint64
	Hists            [numHist]hist

	// API server (HTTP layer).
	HTTP2xx, HTTP5xx               uint64
	HTTP2xxCreated, HTTP5xxCreated float64 // simulation seconds of the first such response
	ReqSizeCount                   uint64
	ReqSizeSum                     float64
	RespSizeCount                  uint64
	RespSizeSum                    float64
}

func newServerState(cfg *Config) *serverState {
	st := &serverState{}
	specs := histSpecs(cfg)
	for i := range st.Hists {
		st.Hists[i] = hist{bounds: specs[i].bounds, counts: make([]uint64, len(specs[i].bounds)+1)}
	}
	return st
}

func (st *serverState) observe(h histID, v float64) { st.Hists[h].observe(v) }

func (st *serverState) requestBytes(prompt int) {
	st.ReqSizeCount++
	st.ReqSizeSum += float64(310 + 4*prompt) // a chat request body of about 4 bytes per token
}

// http records one finished HTTP request. A streamed response carries no
// Content-Length, so its size is observed as 0.
func (st *serverState) http(ok bool, arrival, duration float64, respBytes int) {
	if ok {
		if st.HTTP2xx == 0 {
			st.HTTP2xxCreated = arrival
		}
		st.HTTP2xx++
	} else {
		if st.HTTP5xx == 0 {
			st.HTTP5xxCreated = arrival
		}
		st.HTTP5xx++
	}
	st.RespSizeCount++
	st.RespSizeSum += float64(respBytes)
	st.observe(hHTTPHighr, duration)
	st.observe(hHTTPDuration, duration)
}

func (st *serverState) clone() *serverState {
	c := *st
	for i := range c.Hists {
		c.Hists[i].counts = append([]uint64(nil), st.Hists[i].counts...)
	}
	return &c
}

// requests is the number of HTTP requests the API server has answered.
func (st *serverState) requests() uint64 { return st.HTTP2xx + st.HTTP5xx }

// scrape is the server state at one scrape.
type scrape struct {
	proc *process
	at   float64 // unix seconds
	st   *serverState
}

// ---------------------------------------------------------------------------
// Prometheus text exposition, in the shape prometheus_client writes for vLLM V1.

type label struct{ name, value string }

type promWriter struct {
	b       bytes.Buffer
	created float64 // next _created value for engine-registered series
}

func (w *promWriter) header(name, help, typ string) {
	fmt.Fprintf(&w.b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
}

func (w *promWriter) sample(name string, labels []label, v float64) {
	w.b.WriteString(name)
	if len(labels) > 0 {
		sorted := append([]label(nil), labels...)
		sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].name < sorted[j].name })
		w.b.WriteByte('{')
		for i, l := range sorted {
			if i > 0 {
				w.b.WriteByte(',')
			}
			fmt.Fprintf(&w.b, "%s=%q", l.name, l.value)
		}
		w.b.WriteByte('}')
	}
	w.b.WriteByte(' ')
	w.b.WriteString(goFloat(v))
	w.b.WriteByte('\n')
}

// nextCreated returns the registration time of the next engine series:
// prometheus_client stamps each series as it is created at start-up.
func (w *promWriter) nextCreated() float64 {
	c := w.created
	w.created += 0.0000231
	return c
}

type counterChild struct {
	labels  []label
	value   float64
	created float64
}

// counter writes a counter family and its _created gauge family.
func (w *promWriter) counter(base, help string, children []counterChild) {
	w.header(base+"_total", help, "counter")
	for _, c := range children {
		w.sample(base+"_total", c.labels, c.value)
	}
	w.header(base+"_created", help, "gauge")
	for _, c := range children {
		w.sample(base+"_created", c.labels, c.created)
	}
}

// histogram writes one histogram series and its _created gauge family.
func (w *promWriter) histogram(name, help string, labels []label, h *hist, created float64) {
	w.header(name, help, "histogram")
	var cum uint64
	for i, c := range h.counts {
		cum += c
		le := "+Inf"
		if i < len(h.bounds) {
			le = goFloat(h.bounds[i])
		}
		w.sample(name+"_bucket", append(append([]label(nil), labels...), label{"le", le}), float64(cum))
	}
	w.sample(name+"_count", labels, float64(h.count))
	w.sample(name+"_sum", labels, h.sum)
	w.header(name+"_created", help, "gauge")
	w.sample(name+"_created", labels, created)
}

// exposition renders a scrape in the Prometheus text format 0.0.4, family
// for family as vLLM 0.16's API server writes it. It writes no timestamps.
func (s scrape) exposition(cfg *Config) []byte {
	w := &promWriter{created: s.proc.createdUnix}
	s.writeProcess(w)
	s.writeEngine(w, cfg)
	s.writeHTTP(w, cfg)
	return w.b.Bytes()
}

// writeProcess writes the API server process's families
// (prometheus_client's default collectors).
func (s scrape) writeProcess(w *promWriter) {
	st, p := s.st, s.proc
	reqs := float64(st.requests())
	gen := st.GenerationTokens

	w.header("python_gc_objects_collected_total", "Objects collected during gc", "counter")
	for i, v := range []float64{11873 + 29*reqs, 1650 + math.Floor(3.1*reqs), 1391 + math.Floor(reqs/9)} {
		w.sample("python_gc_objects_collected_total", []label{{"generation", strconv.Itoa(i)}}, v)
	}
	w.header("python_gc_objects_uncollectable_total", "Uncollectable objects found during GC", "counter")
	for i := range 3 {
		w.sample("python_gc_objects_uncollectable_total", []label{{"generation", strconv.Itoa(i)}}, 0)
	}
	gc0 := 1502 + math.Floor(0.37*reqs+gen/2500)
	w.header("python_gc_collections_total", "Number of times this generation was collected", "counter")
	for i, v := range []float64{gc0, 136 + math.Floor(gc0/11), 10 + math.Floor(gc0/140)} {
		w.sample("python_gc_collections_total", []label{{"generation", strconv.Itoa(i)}}, v)
	}
	w.header("python_info", "Python platform information", "gauge")
	w.sample("python_info", []label{{"implementation", "CPython"}, {"major", "3"}, {"minor", "12"}, {"patchlevel", "12"}, {"version", "3.12.12"}}, 1)
	w.header("process_virtual_memory_bytes", "Virtual memory size in bytes.", "gauge")
	w.sample("process_virtual_memory_bytes", nil, 37811392512+4096*math.Floor(reqs/64))
	w.header("process_resident_memory_bytes", "Resident memory size in bytes.", "gauge")
	w.sample("process_resident_memory_bytes", nil, 1111552000+4096*math.Floor(reqs/3))
	w.header("process_start_time_seconds", "Start time of the process since unix epoch in seconds.", "gauge")
	w.sample("process_start_time_seconds", nil, p.startUnix)
	w.header("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", "counter")
	w.sample("process_cpu_seconds_total", nil, math.Round((30.38+0.0031*reqs+0.00041*gen+0.002*(s.at-p.startUnix))*100)/100)
	w.header("process_open_fds", "Number of open file descriptors.", "gauge")
	w.sample("process_open_fds", nil, 47)
	w.header("process_max_fds", "Maximum number of open file descriptors.", "gauge")
	w.sample("process_max_fds", nil, 524288)
}

// writeEngine writes the engine's families: vllm:*, gauges, counters and
// histograms.
func (s scrape) writeEngine(w *promWriter, cfg *Config) {
	st := s.st
	eng := func(extra ...label) []label {
		return append([]label{{"engine", "0"}, {"model_name", cfg.Model}}, extra...)
	}
	gauge := func(name, help string, v float64) {
		w.header(name, help, "gauge")
		w.sample(name, eng(), v)
	}
	simpleCounter := func(base, help string, v float64) {
		w.counter(base, help, []counterChild{{eng(), v, w.nextCreated()}})
	}
	gauge("vllm:num_requests_running", "Number of requests in model execution batches.", 0)
	gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", 0)
	w.header("vllm:engine_sleep_state", "Engine sleep state; awake = 0 means engine is sleeping; awake = 1 means engine is awake; weights_offloaded = 1 means sleep level 1; discard_all = 1 means sleep level 2.", "gauge")
	for i, state := range []string{"awake", "weights_offloaded", "discard_all"} {
		w.sample("vllm:engine_sleep_state", eng(label{"sleep_state", state}), float64(1-min(i, 1)))
	}
	gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", 0)
	// Prefix caching is off, so the prefix-cache counters never move.
	simpleCounter("vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.", 0)
	simpleCounter("vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.", 0)
	simpleCounter("vllm:external_prefix_cache_queries", "External prefix cache queries from KV connector cross-instance cache sharing, in terms of number of queried tokens.", 0)
	simpleCounter("vllm:external_prefix_cache_hits", "External prefix cache hits from KV connector cross-instance cache sharing, in terms of number of cached tokens.", 0)
	simpleCounter("vllm:mm_cache_queries", "Multi-modal cache queries, in terms of number of queried items.", 0)
	simpleCounter("vllm:mm_cache_hits", "Multi-modal cache hits, in terms of number of cached items.", 0)
	simpleCounter("vllm:num_preemptions", "Cumulative number of preemption from the engine.", 0)
	simpleCounter("vllm:prompt_tokens", "Number of prefill tokens processed.", st.PromptTokens)
	var bySource []counterChild
	for _, src := range []string{"local_compute", "local_cache_hit", "external_kv_transfer"} {
		v := 0.0
		if src == "local_compute" {
			v = st.PromptTokens
		}
		bySource = append(bySource, counterChild{eng(label{"source", src}), v, w.nextCreated()})
	}
	w.counter("vllm:prompt_tokens_by_source", "Number of prompt tokens by source.", bySource)
	simpleCounter("vllm:prompt_tokens_cached", "Number of cached prompt tokens (local + external).", 0)
	simpleCounter("vllm:prompt_tokens_recomputed", "Number of cached tokens recomputed for forward pass.", 0)
	simpleCounter("vllm:generation_tokens", "Number of generation tokens processed.", st.GenerationTokens)
	var success []counterChild
	for i, r := range reasonNames {
		success = append(success, counterChild{eng(label{"finished_reason", r}), float64(st.Success[i]), w.nextCreated()})
	}
	w.counter("vllm:request_success", "Count of successfully processed requests.", success)

	specs := histSpecs(cfg)
	for h := hPromptTokens; h <= hPrefillKVComputed; h++ {
		w.histogram(specs[h].name, specs[h].help, eng(), &st.Hists[h], w.nextCreated())
	}

	w.header("vllm:cache_config_info", "Information of the LLMEngine CacheConfig", "gauge")
	w.sample("vllm:cache_config_info", []label{
		{"block_size", "16"}, {"cache_dtype", "auto"}, {"calculate_kv_scales", "False"},
		{"cpu_kvcache_space_bytes", "None"}, {"cpu_offload_gb", "0.0"}, {"enable_prefix_caching", "False"},
		{"engine", "0"}, {"gpu_memory_utilization", "0.9"}, {"is_attention_free", "False"},
		{"kv_cache_memory_bytes", "None"}, {"kv_offloading_backend", "native"}, {"kv_offloading_size", "None"},
		{"kv_sharing_fast_prefill", "False"}, {"mamba_block_size", "None"}, {"mamba_cache_dtype", "auto"},
		{"mamba_cache_mode", "none"}, {"mamba_page_size_padded", "None"}, {"mamba_ssm_cache_dtype", "auto"},
		{"num_cpu_blocks", "None"}, {"num_gpu_blocks", strconv.Itoa(cfg.Server.NumGPUBlocks)},
		{"num_gpu_blocks_override", "None"}, {"prefix_caching_hash_algo", "sha256"}, {"sliding_window", "None"},
		{"swap_space", "4.0"},
	}, 1)
}

// writeHTTP writes prometheus-fastapi-instrumentator's families: a
// labelled series exists once used.
func (s scrape) writeHTTP(w *promWriter, cfg *Config) {
	st, p := s.st, s.proc
	specs := histSpecs(cfg)
	const handler = "/v1/chat/completions"
	gen0 := p.gen
	var httpChildren []counterChild
	if st.HTTP2xx > 0 {
		httpChildren = append(httpChildren, counterChild{[]label{{"handler", handler}, {"method", "POST"}, {"status", "2xx"}}, float64(st.HTTP2xx), gen0.unix(st.HTTP2xxCreated) + 0.0004})
	}
	if st.HTTP5xx > 0 {
		httpChildren = append(httpChildren, counterChild{[]label{{"handler", handler}, {"method", "POST"}, {"status", "5xx"}}, float64(st.HTTP5xx), gen0.unix(st.HTTP5xxCreated) + 0.0004})
	}
	w.counter("http_requests", "Total number of requests by method, status and handler.", httpChildren)
	firstHTTP := gen0.unix(st.HTTP2xxCreated)
	summary := func(name, help string, count uint64, sum float64, created float64) {
		w.header(name, help, "summary")
		w.sample(name+"_count", []label{{"handler", handler}}, float64(count))
		w.sample(name+"_sum", []label{{"handler", handler}}, sum)
		w.header(name+"_created", help, "gauge")
		w.sample(name+"_created", []label{{"handler", handler}}, created)
	}
	summary("http_request_size_bytes", "Content length of incoming requests by handler. Only value of header is respected. Otherwise ignored. No percentile calculated.", st.ReqSizeCount, st.ReqSizeSum, firstHTTP+0.00046)
	summary("http_response_size_bytes", "Content length of outgoing responses by handler. Only value of header is respected. Otherwise ignored. No percentile calculated.", st.RespSizeCount, st.RespSizeSum, firstHTTP+0.00053)
	w.histogram(specs[hHTTPHighr].name, specs[hHTTPHighr].help, nil, &st.Hists[hHTTPHighr], p.createdUnix+1.62)
	w.histogram(specs[hHTTPDuration].name, specs[hHTTPDuration].help, []label{{"handler", handler}, {"method", "POST"}}, &st.Hists[hHTTPDuration], firstHTTP+0.00061)
}

// pyRepr formats f as Python's repr(float) does: the shortest digits that
// round-trip, positional between 1e-4 and 1e16, always with a decimal point.
func pyRepr(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddddde±XX
	mant, expStr, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expStr)
	digits := strings.Replace(mant, ".", "", 1)
	if exp < -4 || exp >= 16 {
		m := digits[:1]
		if len(digits) > 1 {
			m += "." + digits[1:]
		}
		es := "+"
		if exp < 0 {
			es, exp = "-", -exp
		}
		return fmt.Sprintf("%s%se%s%02d", sign, m, es, exp)
	}
	if exp < 0 {
		return sign + "0." + strings.Repeat("0", -exp-1) + digits
	}
	if len(digits) <= exp+1 {
		return sign + digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
	}
	return sign + digits[:exp+1] + "." + digits[exp+1:]
}

// goFloat is prometheus_client's floatToGoString: Python's repr, switched
// to an exponent for positive values with more than six integer digits,
// quirks included ("3.7811392512e+010").
func goFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	case math.IsNaN(f):
		return "NaN"
	}
	s := pyRepr(f)
	dot := strings.IndexByte(s, '.')
	if f > 0 && dot > 6 {
		mantissa := strings.TrimRight(s[:dot]+s[dot+1:], "0.")
		return mantissa[:1] + "." + mantissa[1:] + "e+0" + strconv.Itoa(dot-1)
	}
	return s
}

// ---------------------------------------------------------------------------
// Writing the sweep.

// Write writes the sweep into dir, creating it if needed. Files it owns are
// overwritten; a run directory's requests file of the other format is
// removed so that the run stays readable. Nothing else is touched.
func (s *Sweep) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cfg := &s.Config
	files := []struct {
		name string
		data []byte
	}{
		{"sweep.yaml", sweepYAML(cfg)},
		{"env.txt", envTxt()},
		{"env.json", envJSON(cfg)},
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.name), f.data, 0o644); err != nil {
			return err
		}
	}
	for _, r := range s.Runs {
		if err := r.write(cfg, filepath.Join(dir, r.Dir())); err != nil {
			return fmt.Errorf("sim: %s: %w", r.Dir(), err)
		}
	}
	return nil
}

// Dir is the run's directory relative to the sweep root.
func (r *Run) Dir() string {
	return filepath.Join(fmt.Sprintf("c%d", r.Concurrency), fmt.Sprintf("run-%d", r.Repeat))
}

func (r *Run) write(cfg *Config, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var data []byte
	name, other := "requests.csv", "requests.parquet"
	switch r.Format {
	case "csv":
		data = r.requestsCSV()
	case "parquet":
		name, other = other, name
		var err error
		if data, err = r.requestsParquet(); err != nil {
			return err
		}
	}
	if err := os.Remove(filepath.Join(dir, other)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	files := []struct {
		name string
		data []byte
	}{
		{"run.yaml", r.runYAML(cfg)},
		{name, data},
		{"metrics-start.prom", r.start.exposition(cfg)},
		{"metrics-end.prom", r.end.exposition(cfg)},
		{"gpu.csv", r.gpuCSV()},
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.name), f.data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// usMs formats microseconds as milliseconds with three decimals, exactly.
func usMs(us int64) string { return fixed(us, 1000, 3) }

// usUnix formats unix microseconds as seconds with six decimals, exactly.
func usUnix(us int64) string { return fixed(us, 1000000, 6) }

func fixed(v, unit int64, decimals int) string {
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	return fmt.Sprintf("%s%d.%0*d", sign, v/unit, decimals, v%unit)
}

func rfc3339(us int64) string {
	return time.UnixMicro(us).UTC().Format("2006-01-02T15:04:05.000000Z07:00")
}

var requestColumns = []string{
	"request_id", "prompt_tokens", "completion_tokens", "TTFT_ms", "E2E_ms",
	"t_request_sent", "t_first_text", "t_last_text", "status", "max_tokens", "text_chunks", "chunk_ms",
}

func (r *Run) requestsCSV() []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(requestColumns)
	for i := range r.Requests {
		q := &r.Requests[i]
		first, last := "", ""
		chunks := make([]string, len(q.ChunkUs))
		for k, c := range q.ChunkUs {
			chunks[k] = usMs(c - q.SentUs)
		}
		if n := len(q.ChunkUs); n > 0 {
			first, last = usUnix(q.ChunkUs[0]), usUnix(q.ChunkUs[n-1])
		}
		_ = w.Write([]string{
			q.ID, strconv.Itoa(q.PromptTokens), strconv.Itoa(q.CompletionTokens),
			usMs(q.TTFTUs()), usMs(q.E2EUs()),
			usUnix(q.SentUs), first, last, q.Status, strconv.Itoa(q.MaxTokens),
			strconv.Itoa(len(q.ChunkUs)), strings.Join(chunks, ";"),
		})
	}
	w.Flush()
	return b.Bytes()
}

func (r *Run) requestsParquet() ([]byte, error) {
	f64 := arrow.PrimitiveTypes.Float64
	i64 := arrow.PrimitiveTypes.Int64
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "request_id", Type: arrow.BinaryTypes.String},
		{Name: "prompt_tokens", Type: i64},
		{Name: "completion_tokens", Type: i64},
		{Name: "TTFT_ms", Type: f64},
		{Name: "E2E_ms", Type: f64},
		{Name: "t_request_sent", Type: f64},
		{Name: "t_first_text", Type: f64, Nullable: true},
		{Name: "t_last_text", Type: f64, Nullable: true},
		{Name: "status", Type: arrow.BinaryTypes.String},
		{Name: "max_tokens", Type: i64},
		{Name: "text_chunks", Type: i64},
		{Name: "chunk_ms", Type: arrow.ListOf(f64)},
	}, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer b.Release()
	ms := func(us int64) float64 { return float64(us) / 1e3 }
	unix := func(us int64) float64 { return float64(us) / 1e6 }
	for i := range r.Requests {
		q := &r.Requests[i]
		b.Field(0).(*array.StringBuilder).Append(q.ID)
		b.Field(1).(*array.Int64Builder).Append(int64(q.PromptTokens))
		b.Field(2).(*array.Int64Builder).Append(int64(q.CompletionTokens))
		b.Field(3).(*array.Float64Builder).Append(ms(q.TTFTUs()))
		b.Field(4).(*array.Float64Builder).Append(ms(q.E2EUs()))
		b.Field(5).(*array.Float64Builder).Append(unix(q.SentUs))
		if n := len(q.ChunkUs); n > 0 {
			b.Field(6).(*array.Float64Builder).Append(unix(q.ChunkUs[0]))
			b.Field(7).(*array.Float64Builder).Append(unix(q.ChunkUs[n-1]))
		} else {
			b.Field(6).(*array.Float64Builder).AppendNull()
			b.Field(7).(*array.Float64Builder).AppendNull()
		}
		b.Field(8).(*array.StringBuilder).Append(q.Status)
		b.Field(9).(*array.Int64Builder).Append(int64(q.MaxTokens))
		b.Field(10).(*array.Int64Builder).Append(int64(len(q.ChunkUs)))
		lb := b.Field(11).(*array.ListBuilder)
		lb.Append(true)
		vb := lb.ValueBuilder().(*array.Float64Builder)
		for _, c := range q.ChunkUs {
			vb.Append(ms(c - q.SentUs))
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	var out bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy))
	fw, err := pqarrow.NewFileWriter(schema, &out, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return nil, err
	}
	if err := fw.Write(rec); err != nil {
		return nil, err
	}
	if err := fw.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func (r *Run) runYAML(cfg *Config) []byte {
	var b strings.Builder
	b.WriteString("# Synthetic run written by benchsim; nothing here was measured. See docs/simulator.md.\n")
	fmt.Fprintf(&b, "concurrency: %d\n", r.Concurrency)
	fmt.Fprintf(&b, "repeat: %d\n", r.Repeat)
	b.WriteString("window:  # first request sent .. last request finished, as seen by the client\n")
	fmt.Fprintf(&b, "  start: %s\n", rfc3339(r.WindowStartUs))
	fmt.Fprintf(&b, "  end: %s\n", rfc3339(r.WindowEndUs))
	fmt.Fprintf(&b, "max_tokens: %d\n", cfg.Workload.MaxTokens)
	fmt.Fprintf(&b, "notes: %s\n", strconv.Quote(r.Notes))
	return []byte(b.String())
}

func sweepYAML(cfg *Config) []byte {
	var b strings.Builder
	b.WriteString("# Synthetic example sweep written by `go run ./cmd/benchsim -o runs/example`.\n")
	b.WriteString("# Nothing here was measured: see docs/simulator.md for the model behind it.\n")
	fmt.Fprintf(&b, "title: %s\n", strconv.Quote(cfg.Title))
	// The measurement rules' example E2E target, 5 s, is for a 128-token
	// output; this workload allows up to 256 tokens, so the target is 10 s.
	b.WriteString("# Goodput targets: the rules' TTFT and TPOT examples; E2E 10 s for outputs of up to 256 tokens\n")
	b.WriteString("# (the rules' 5 s example is for 128 tokens).\n")
	b.WriteString("slo: {ttft_ms: 1000, tpot_ms: 150, e2e_ms: 10000}\n")
	b.WriteString("percentile: nearest-rank\n")
	// benchnote's default warm-up rule, written out so the example shows
	// where the rule is named; docs/simulator.md compares it with the
	// protocol's illustrative stabilisation heuristic on this workload.
	b.WriteString("# Warm-up by Pettitt's change-point test (benchnote's default), written out.\n")
	b.WriteString("warmup: {mode: changepoint, alpha: 0.01}\n")
	return []byte(b.String())
}

// serverArgs is env.json: the simulated server's configuration.
type serverArgs struct {
	Simulated           bool    `json:"simulated"`
	Note                string  `json:"note"`
	Engine              string  `json:"engine"`
	EngineVersion       string  `json:"engine_version"`
	Model               string  `json:"model"`
	Dtype               string  `json:"dtype"`
	MaxNumSeqs          int     `json:"max_num_seqs"`
	MaxNumBatchedTokens int     `json:"max_num_batched_tokens"`
	MaxModelLen         int     `json:"max_model_len"`
	EnablePrefixCaching bool    `json:"enable_prefix_caching"`
	KVCacheDtype        string  `json:"kv_cache_dtype"`
	BlockSize           int     `json:"block_size"`
	TensorParallelSize  int     `json:"tensor_parallel_size"`
	GPUMemoryUtil       float64 `json:"gpu_memory_utilization"`
}

func envJSON(cfg *Config) []byte {
	data, _ := json.MarshalIndent(serverArgs{
		Simulated:           true,
		Note:                "synthetic: these are the arguments of a simulated server (benchsim); no server was run",
		Engine:              "vllm",
		EngineVersion:       "0.16.0",
		Model:               cfg.Model,
		Dtype:               "bfloat16",
		MaxNumSeqs:          cfg.Server.MaxNumSeqs,
		MaxNumBatchedTokens: cfg.Server.MaxNumBatchedTokens,
		MaxModelLen:         cfg.Server.MaxModelLen,
		EnablePrefixCaching: false,
		KVCacheDtype:        "auto",
		BlockSize:           16,
		TensorParallelSize:  1,
		GPUMemoryUtil:       0.9,
	}, "", "  ")
	return append(data, '\n')
}

func envTxt() []byte {
	return []byte(`Collecting environment information...
==============================
       Simulation Info
==============================
Simulated                    : yes
Generator                    : benchsim (github.com/benchnote/benchnote/cmd/benchsim)
Note                         : synthetic environment for a simulated sweep; no GPU was used and nothing was measured

==============================
        System Info
==============================
OS                           : Ubuntu 22.04.5 LTS (x86_64)
GCC version                  : (Ubuntu 11.4.0-1ubuntu1~22.04.2) 11.4.0
Clang version                : Could not collect
CMake version                : Could not collect
Libc version                 : glibc-2.35

==============================
       PyTorch Info
==============================
PyTorch version              : 2.9.1+cu129
Is debug build               : False
CUDA used to build PyTorch   : 12.9
ROCM used to build PyTorch   : N/A

==============================
      Python Environment
==============================
Python version               : 3.12.12 (main, Oct 10 2025, 08:52:57) [GCC 11.4.0] (64-bit runtime)
Python platform              : Linux-6.8.0-simulated-x86_64-with-glibc2.35

==============================
       CUDA / GPU Info
==============================
Is CUDA available            : True
CUDA runtime version         : 12.9.86
CUDA_MODULE_LOADING set to   :
GPU models and configuration : GPU 0: NVIDIA L40S
Nvidia driver version        : 580.119.02
cuDNN version                : Could not collect
HIP runtime version          : N/A
MIOpen runtime version       : N/A
Is XNNPACK available         : True

==============================
          CPU Info
==============================
Architecture:                            x86_64
CPU op-mode(s):                          32-bit, 64-bit
CPU(s):                                  32
On-line CPU(s) list:                     0-31
Vendor ID:                               GenuineIntel
Model name:                              Simulated x86_64 host
Thread(s) per core:                      2
Core(s) per socket:                      16
Socket(s):                               1
NUMA node(s):                            1

==============================
Versions of relevant libraries
==============================
[pip3] numpy==2.2.6
[pip3] nvidia-nccl-cu12==2.27.5
[pip3] pyzmq==27.1.0
[pip3] torch==2.9.1+cu129
[pip3] transformers==4.57.6
[pip3] triton==3.5.1
[conda] Could not collect

==============================
         vLLM Info
==============================
ROCM Version                 : Could not collect
vLLM Version                 : 0.16.0
vLLM Build Flags:
  CUDA Archs: 8.9; ROCm: Disabled
GPU Topology:
  	GPU0	CPU Affinity	NUMA Affinity	GPU NUMA ID
GPU0	 X 	0-31	0		N/A

Legend:

  X    = Self

==============================
     Environment Variables
==============================
VLLM_USAGE_SOURCE=benchsim-simulated
CUDA_VERSION=12.9.1
NVIDIA_DRIVER_CAPABILITIES=compute,utility
VLLM_WORKER_MULTIPROC_METHOD=spawn
`)
}

package report

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/ingest"
)

// hostileSweep is a tiny sweep whose names and environment values try to
// inject markup into the report.
func hostileSweep() *ingest.Sweep {
	var runs []*ingest.Run
	for i, dir := range []string{"c2/<img src=x onerror=alert(1)>", "c2/run|2", "c2/run`3`"} {
		q := &ingest.Requests{N: 3}
		for k, ttft := range []float64{100, 120, 140} {
			q.SourceRow = append(q.SourceRow, int32(k+2))
			q.IDs.Append(string(rune('a' + k)))
			q.PromptTokens = append(q.PromptTokens, 10)
			q.CompletionTokens = append(q.CompletionTokens, 5)
			q.TTFTms = append(q.TTFTms, ttft+float64(i))
			q.E2Ems = append(q.E2Ems, ttft+float64(i)+100)
		}
		runs = append(runs, &ingest.Run{
			Dir: dir, Concurrency: 2, Repeat: i + 1,
			Requests: &ingest.RequestFile{Path: dir + "/requests.csv", Format: "csv", RowsRead: 3, Requests: q},
			Window:   ingest.Window{Source: "unknown"},
			Env: ingest.Environment{
				Sources:   []ingest.EnvSource{{Path: "env.txt", Format: "key-value"}},
				Canonical: map[string]string{"gpu": "<script>alert('gpu')</script>", "model": "m|odel *bold* [link](javascript:x)"},
			},
		})
	}
	cfg := ingest.DefaultConfig()
	cfg.Title = "Title <b>not bold</b>"
	cfg.Warmup.Mode = "none"
	return &ingest.Sweep{Config: cfg, Runs: runs, IgnoredFiles: []ingest.IgnoredFile{{Path: "notes <i>.txt", Reason: "not in a run directory"}}}
}

func TestInputsAreEscaped(t *testing.T) {
	files, err := Build(analyze.Analyze(hostileSweep()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	html := string(files[HTMLFile])
	for _, bad := range []string{"<script>alert", "<img src=x", "<b>not bold</b>", "<i>.txt", `href="javascript:`} {
		if strings.Contains(html, bad) {
			t.Errorf("report.html contains unescaped %q", bad)
		}
	}
	for _, want := range []string{"&lt;script&gt;alert(", "Title &lt;b&gt;not bold&lt;/b&gt;"} {
		if !strings.Contains(html, want) {
			t.Errorf("report.html lacks the escaped text %q", want)
		}
	}
	md := string(files[MarkdownFile])
	if !strings.Contains(md, `| gpu | \<script\>alert('gpu')\</script\> |`) {
		t.Errorf("report.md environment row not escaped as expected:\n%s", grepLines(md, "gpu"))
	}
	if !strings.Contains(md, `| model | m\|odel \*bold\* \[link\](javascript:x) |`) {
		t.Errorf("report.md model row not escaped as expected:\n%s", grepLines(md, "model"))
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func TestBuildIsDeterministic(t *testing.T) {
	a, err := Build(analyze.Analyze(hostileSweep()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Build(analyze.Analyze(hostileSweep()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != len(b) {
		t.Fatalf("%d files then %d", len(a), len(b))
	}
	for name, data := range a {
		if !bytes.Equal(data, b[name]) {
			t.Errorf("%s differs between two builds", name)
		}
	}
}

func TestNotebookCells(t *testing.T) {
	s := analyze.Analyze(hostileSweep())
	tests := []struct {
		name, notebook, want, wantErr string
	}{
		{"inline value", "p95 was {{value ttft.p95 c=2}}.",
			"p95 was 141.0 ± 1.0 ms (median ± raw MAD of per-run p95 TTFT; per-request; nearest-rank percentile; 3 runs at concurrency 2).", ""},
		{"pooled", "{{pooled ttft.p50 c=min}}",
			"121 ms (p50 TTFT, nearest-rank percentile over 9 values from 3 runs at concurrency 2)", ""},
		{"count", "{{count measured}} measured of {{count rows_read}}", "9 measured of 9", ""},
		{"a rate is not a percentile", "{{value goodput.percent c=2}}",
			"100 ± 0 % (median ± raw MAD of per-run goodput; measured requests meeting every SLO / measured requests; 3 runs at concurrency 2)", ""},
		{"levels and runs", "{{runs}} runs at {{levels}}", "3 runs at 2", ""},
		{"fenced cells are left alone", "```\n{{bogus}}\n```", "```\n{{bogus}}\n```", ""},
		{"unknown cell", "line one\n{{bogus}}", "", "nb.md:2:1: unknown cell \"bogus\""},
		{"unknown table", "\n\n{{table nope}}", "", "nb.md:3:1: unknown table \"nope\""},
		{"unknown plot", "{{plot nope}}", "", "nb.md:1:1: unknown plot \"nope\""},
		{"unknown metric", "x {{value ttft.p42 c=2}}", "", "nb.md:1:3: unknown metric \"ttft.p42\""},
		{"unknown level", "x {{value ttft.p95 c=7}}", "", "nb.md:1:3: no concurrency level 7 in the sweep (have 2); did you mean c=2?"},
		{"block cell inline", "see {{table ttft}} here", "", "nb.md:1:5: cell \"table\" must stand alone on its line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := renderNotebook([]byte(tt.notebook), "nb.md", &cellContext{s: s}, targetMarkdown)
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want prefix %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSuffix(string(out), "\n"); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestWriteDirIsAtomic(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if err := WriteDir(dir, map[string][]byte{"report.md": []byte("first"), "plots/a.svg": []byte("<svg/>")}); err != nil {
		t.Fatal(err)
	}
	// A failing write (a name escaping the directory) leaves the first output intact.
	err := WriteDir(dir, map[string][]byte{"a.md": []byte("second"), "../escape.md": []byte("x")})
	if err == nil {
		t.Fatal("no error for a path outside the output directory")
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "report.md")); string(got) != "first" {
		t.Errorf("report.md = %q after a failed write, want the previous %q", got, "first")
	}
	if _, err := os.Stat(filepath.Join(dir, "a.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a.md from the failed write exists: %v", err)
	}
	// A successful write replaces the whole directory.
	if err := WriteDir(dir, map[string][]byte{"report.md": []byte("third")}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "plots")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale plots/ survived a rewrite: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 {
		t.Errorf("temporary directories left behind: %v", entries)
	}
}

// FuzzNotebook checks what any notebook text does, within the limits of a
// user's notebook: rendering never panics and stays within the fuzz
// budget, report.html's goldmark pass included (the guard lets through no
// Markdown goldmark is slow on); an error names the notebook and a line
// of it on each of its lines, at most maxNotebookErrors+2 of them; and a
// notebook that renders renders the same bytes twice, in at most 4 bytes a
// byte of the notebook (an escaped control character) plus, a cell, the
// most any cell renders for this sweep.
func FuzzNotebook(f *testing.F) {
	s := analyze.Analyze(hostileSweep())
	perCell := cellBound(f, s)
	for _, seed := range []string{"{{table ttft}}", "x {{value ttft.p95 c=2}} y", "```\n{{x}}\n", "{{plot warmup}}", "{{ }}", "{{count}}", "{{pooled ttft.}}",
		"{{labels short}}\n{{value ttft.p95}} {{pooled ttft.p99}}", "- - - x", "|a|\n|-|-|-|\nb", "[a](<b", "*a_ \\* `c` {{title}}", "\x00\u202e{{levels}}"} {
		f.Add(seed)
	}
	errLine := regexp.MustCompile(`^nb\.md:([0-9]+)(?::[0-9]+)?: |^nb\.md: and [0-9,]+ more errors?$`)
	f.Fuzz(func(t *testing.T, nb string) {
		lines := max(1, strings.Count(nb, "\n")+1)
		for _, tgt := range []target{targetMarkdown, targetHTML} {
			render := func() ([]byte, time.Duration, error) {
				lim := defaultNotebookLimits
				start := time.Now()
				md, err := renderNotebook([]byte(nb), "nb.md", &cellContext{s: s, limits: &lim}, tgt)
				if err == nil && tgt == targetHTML {
					_, err = renderHTML(md, s.Title, nil, "nb.md", &lim)
				}
				return md, time.Since(start), err
			}
			md, d, err := render()
			// The per-input budget of every fuzz test (docs/fuzzing.md):
			// 1 s for up to 64 KiB, twice in a row, so that a stall of the
			// machine is not taken for a slow input.
			if d > time.Second && len(nb) <= 64<<10 {
				if _, again, _ := render(); again > time.Second {
					t.Fatalf("rendering took %v, then %v, on %d bytes; the budget is 1s", d, again, len(nb))
				}
			}
			if err != nil {
				msgs := strings.Split(err.Error(), "\n")
				if len(msgs) > maxNotebookErrors+2 {
					t.Errorf("%d error lines, at most %d expected", len(msgs), maxNotebookErrors+2)
				}
				for _, msg := range msgs {
					m := errLine.FindStringSubmatch(msg)
					if m == nil {
						t.Fatalf("error line %q does not name the notebook and a line", msg)
					}
					if n, _ := strconv.Atoi(m[1]); m[1] != "" && (n < 1 || n > lines) {
						t.Errorf("error line %q names line %d of %d", msg, n, lines)
					}
				}
				continue
			}
			if again, _, err := render(); err != nil || !bytes.Equal(again, md) {
				t.Errorf("a second rendering differs (error %v)", err)
			}
			cells := strings.Count(nb, "{{")
			if bound := 4*len(nb) + cells*perCell + 1; len(md) > bound {
				t.Errorf("%d bytes of Markdown from %d bytes and %d cells; at most %d expected", len(md), len(nb), cells, bound)
			}
		}
	})
}

// cellBound returns the most one cell can add to a rendering of s: the
// longest rendering of any cell alone, in either target, twice (a short
// label's footnote repeats it), and a footnote reference.
func cellBound(tb testing.TB, s *analyze.Summary) int {
	cells := []string{"headline", "quality", "alerts", "exclusions", "findings", "environment", "method", "notes", "imports", "title", "levels", "load", "runs"}
	for _, n := range tableNames() {
		cells = append(cells, "table "+n)
	}
	for _, n := range PlotNames {
		cells = append(cells, "plot "+n)
	}
	for _, st := range s.Levels[0].Stats {
		cells = append(cells, "value "+st.Key)
	}
	for _, m := range []string{"ttft", "tpot", "e2e", "itl"} {
		for _, st := range []string{"p50", "p95", "p99", "max", "mean"} {
			cells = append(cells, "pooled "+m+"."+st)
		}
	}
	for _, f := range []string{"rows_read", "failed_run_rows", "bad_rows", "accepted", "warm_up", "cool_down", "measured", "errors", "zero_token", "one_token", "multi_token"} {
		cells = append(cells, "count "+f)
	}
	most := 0
	for _, c := range cells {
		for _, tgt := range []target{targetMarkdown, targetHTML} {
			md, err := renderNotebook([]byte("{{"+c+"}}"), "nb.md", &cellContext{s: s}, tgt)
			if err != nil {
				tb.Fatalf("{{%s}}: %v", c, err)
			}
			most = max(most, len(md))
		}
	}
	return 2*most + len("[^v10000]")
}

package importer

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/benchnote/benchnote/ingest"
)

// readBack imports files, writes the sweep and reads it back as validate
// does; it returns, per series (String()), the levels of its runs and
// reported runs in order.
func readBack(t *testing.T, files ...string) (map[string][]string, *Import) {
	t.Helper()
	imp, err := ImportFiles(files, Options{})
	if err != nil {
		t.Fatal(err)
	}
	written, err := Layout(imp)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "sweep")
	if err := Write(dir, written, files); err != nil {
		t.Fatal(err)
	}
	sw, err := ingest.Load(dir, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, r := range sw.Runs {
		got[r.Series.String()] = append(got[r.Series.String()], r.Load.Label())
	}
	for _, r := range sw.Reported {
		got[r.Series.String()] = append(got[r.Series.String()], r.Load.Label())
	}
	return got, imp
}

// The acceptance of issue 21 on the real SGLang files: runs of different
// workloads are series, never repeats of one level.
func TestImportSeriesRealSGLang(t *testing.T) {
	real := filepath.Join(fixtures, "..", "real")
	tests := []struct {
		file string
		want map[string][]string
	}{
		// Seven runs of six workloads at rate inf: 4096/1024 twice.
		{"sglang-bench_serving-h200-llama-3.3-70b-offline-Infinity.jsonl", map[string][]string{
			"dataset=random, input_len=1024, output_len=1024": {"rate inf"},
			"dataset=random, input_len=1024, output_len=512":  {"rate inf"},
			"dataset=random, input_len=4096, output_len=2048": {"rate inf"},
			"dataset=random, input_len=4096, output_len=1024": {"rate inf", "rate inf"},
			"dataset=random, input_len=256, output_len=512":   {"rate inf"},
			"dataset=sharegpt": {"rate inf"},
		}},
		// Random 1024/1024 at 1–16 req/s; ShareGPT at 4 and 8 (its
		// random_input_len and random_output_len are no labels).
		{"sglang-bench_serving-h200-llama-3.3-70b-online.jsonl", map[string][]string{
			"dataset=random, input_len=1024, output_len=1024": {"1 req/s", "2 req/s", "4 req/s", "8 req/s", "16 req/s"},
			"dataset=sharegpt": {"4 req/s", "8 req/s"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, imp := readBack(t, filepath.Join(real, tt.file))
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("series and their levels\n got %v\nwant %v", got, tt.want)
			}
			const note = "series labels dataset (dataset_name), input_len (random_input_len), output_len (random_output_len): they tell apart the configurations of the runs imported together, which are never repeats of one another; what every run shares is no label, nor a setting the run's dataset ignores (sharegpt ignores random_input_len, random_output_len, random_range_ratio)"
			if imp.SeriesNote != note {
				t.Errorf("note %q\nwant %q", imp.SeriesNote, note)
			}
			for _, r := range imp.Runs {
				if !slices.Contains(r.Config.Provenance.Recomputed, note) {
					t.Errorf("%s: provenance %q lacks the note", r.Dir, r.Config.Provenance.Recomputed)
				}
			}
		})
	}
}

// `benchnote import F F` is one run, with a warning naming both and the
// second listed in benchnote-import.yaml as the same run.
func TestImportSameFileTwice(t *testing.T) {
	f := filepath.Join(fixtures, "vllm", "recent.json")
	got, imp := readBack(t, f, f)
	if fmt.Sprint(got) != "map[:[concurrency 4]]" {
		t.Errorf("runs %v, want one at c4", got)
	}
	want := f + " is the same run as " + f + ", written as c4/run-1 (the same file given twice): imported once, not as a second repeat"
	if w := imp.Warnings(); !slices.Contains(w, want) {
		t.Errorf("warnings %q\nwant %q", w, want)
	}
	files, err := Layout(imp)
	if err != nil {
		t.Fatal(err)
	}
	rec := string(files[ingest.ImportRecordFile])
	wantRec := "duplicates:\n  - source: " + f + "\n    same_as: c4/run-1\n    reason: the same file given twice\n"
	if !strings.Contains(rec, wantRec) {
		t.Errorf("benchnote-import.yaml:\n%s\nwant it to hold\n%s", rec, wantRec)
	}
}

// A vllm bench sweep's combinations are series of the parameters that
// differ (which the sweep writes into each run=N.json), each with its own
// repeats and its warm-up.
func TestImportSeriesVLLMSweep(t *testing.T) {
	sweep := t.TempDir()
	combo := "SERVE--max_num_seqs=64-BENCH--max_concurrency=2"
	copyTree(t, filepath.Join(fixtures, "vllm", "sweep", combo), filepath.Join(sweep, combo))
	other := filepath.Join(sweep, "SERVE--max_num_seqs=128-BENCH--max_concurrency=2")
	copyTree(t, filepath.Join(fixtures, "vllm", "sweep", combo), other)
	rewrite(t, other, `"max_num_seqs": 64`, `"max_num_seqs": 128`)
	got, imp := readBack(t, sweep)
	want := map[string][]string{"max_num_seqs=128": {"concurrency 2", "concurrency 2"}, "max_num_seqs=64": {"concurrency 2", "concurrency 2"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("series %v, want %v", got, want)
	}
	var dirs []string
	for _, r := range imp.Runs {
		dirs = append(dirs, r.Dir)
		if r.Config.Repeat == 1 && (r.Requests.Phase == nil || r.Requests.Phase[0] != ingest.PhaseWarmup) {
			t.Errorf("%s: the combination's warm-up is not before its first repeat", r.Dir)
		}
	}
	slices.Sort(dirs)
	if wantDirs := []string{"max_num_seqs=128/c2/run-1", "max_num_seqs=128/c2/run-2", "max_num_seqs=64/c2/run-1", "max_num_seqs=64/c2/run-2"}; !slices.Equal(dirs, wantDirs) {
		t.Errorf("dirs %q, want %q", dirs, wantDirs)
	}
	if want := "series labels max_num_seqs: they tell apart the configurations of the runs imported together, which are never repeats of one another; what every run shares is no label"; imp.SeriesNote != want {
		t.Errorf("note %q, want %q", imp.SeriesNote, want)
	}
}

// A sweep that varies only the load has one series; run=N.json files
// that do not record their combination's parameters (no run_number) are
// told apart by its directory.
func TestImportSeriesVLLMSweepWithoutParameters(t *testing.T) {
	combo := "SERVE--max_num_seqs=64-BENCH--max_concurrency=2"
	params := regexp.MustCompile(`,\s*"run_number": \d+,\s*"max_num_seqs": 64`)
	for _, tt := range []struct {
		name      string
		keepRunNo bool
		want      map[string][]string
	}{
		{"only the load varies", true, map[string][]string{"": {"concurrency 2", "concurrency 2", "concurrency 4", "concurrency 4"}}},
		{"parameters not recorded", false, map[string][]string{
			"combination=SERVE--max_num_seqs=64-BENCH--max_concurrency=2": {"concurrency 2", "concurrency 2"},
			"combination=SERVE--max_num_seqs=64-BENCH--max_concurrency=4": {"concurrency 4", "concurrency 4"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sweep := t.TempDir()
			for _, c := range []string{"2", "4"} {
				dir := filepath.Join(sweep, strings.TrimSuffix(combo, "2")+c)
				copyTree(t, filepath.Join(fixtures, "vllm", "sweep", combo), dir)
				rewrite(t, dir, `"max_concurrency": 2`, `"max_concurrency": `+c)
				for _, f := range []string{"run=0.json", "run=1.json", "warmup.json"} {
					data, err := os.ReadFile(filepath.Join(dir, f))
					if err != nil {
						t.Fatal(err)
					}
					repl := ""
					if tt.keepRunNo {
						repl = `, "run_number": 0`
					}
					write(t, filepath.Join(dir, f), params.ReplaceAllString(string(data), repl))
				}
			}
			got, _ := readBack(t, sweep)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("series %v, want %v", got, tt.want)
			}
		})
	}
}

// seriesLabels keeps a trait that differs, one some runs lack when
// nothing else tells them apart, and a workload's lengths whenever
// workloads differ; a trait every run shares is no label.
func TestSeriesLabels(t *testing.T) {
	run := func(pairs ...string) traits {
		var tr traits
		for i := 0; i+1 < len(pairs); i += 2 {
			tr.add(pairs[i], pairs[i+1], pairs[i])
		}
		return tr
	}
	tests := []struct {
		name string
		runs []traits
		want []string
	}{
		{"one run", []traits{run("model", "m", "input_len", "1")}, nil},
		{"all alike", []traits{run("model", "m"), run("model", "m")}, nil},
		{"a value differs", []traits{run("model", "a", "backend", "vllm"), run("model", "b", "backend", "vllm")}, []string{"model"}},
		{"recorded by one only, nothing else differs", []traits{run("model", "a"), run()}, []string{"model"}},
		{"recorded by one only, told apart by another label", []traits{run("tool", "x", "model", "a"), run("tool", "y")}, []string{"tool"}},
		{"a dataset's setting is no label for another dataset", []traits{
			run("dataset", "random", "input_len", "1024", "output_len", "1024", "range_ratio", "0"),
			run("dataset", "sharegpt")}, []string{"dataset", "input_len", "output_len"}},
		{"only the input length differs: both lengths", []traits{
			run("input_len", "1024", "output_len", "128"), run("input_len", "4096", "output_len", "128")}, []string{"input_len", "output_len"}},
		{"no trait", []traits{run(), run()}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := seriesLabels(tt.runs); !slices.Equal(got, tt.want) {
				t.Errorf("labels %q, want %q", got, tt.want)
			}
		})
	}
}

// A series' directory is its labels; one too long for a file name is cut
// and ended by a hash, and two series that would share a name each get
// theirs.
func TestSeriesDir(t *testing.T) {
	s := func(m map[string]string) ingest.Series {
		out, err := ingest.NewSeries(m)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := seriesDir(s(map[string]string{"model": "meta-llama/Llama-3.1-8B", "tp": "2"}), false); got != "model=meta-llama_Llama-3.1-8B,tp=2" {
		t.Errorf("dir %q", got)
	}
	long := seriesDir(s(map[string]string{"model": strings.Repeat("é", 100)}), false)
	if len(long) > maxSeriesDir || !strings.HasPrefix(long, "model=éé") || !strings.Contains(long, "~") {
		t.Errorf("long dir %q (%d bytes)", long, len(long))
	}
	a, b := s(map[string]string{"model": "a/b"}), s(map[string]string{"model": "a_b"})
	dirs := seriesDirs([]Run{{Config: ingest.RunConfig{Series: a}}, {Config: ingest.RunConfig{Series: b}}})
	if dirs[a] == dirs[b] || !strings.HasPrefix(dirs[a], "model=a_b~") || !strings.HasPrefix(dirs[b], "model=a_b~") {
		t.Errorf("dirs %q and %q", dirs[a], dirs[b])
	}
}

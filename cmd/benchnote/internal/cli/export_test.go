package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchnote/benchnote/ingest/importer"
)

// oneLevelSweep copies the example sweep's c4 level (3 runs) into a new
// sweep.
func oneLevelSweep(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "sweep")
	copyDir(t, "../../../../runs/example/c4", filepath.Join(dir, "c4"))
	data, err := os.ReadFile("../../../../runs/example/sweep.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sweep.yaml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// export writes a directory of one report per level, which imports back
// as those levels; a second export replaces it.
func TestExportDirectory(t *testing.T) {
	out := filepath.Join(t.TempDir(), "llmd")
	for range 2 {
		code, stdout, stderr := runCLI(t, "export", "--format", "llm-d", "../../../../runs/example", "-o", out)
		if code != ExitClean {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if want := "wrote " + out + ": llm-d Benchmark Report v0.2, 3 stages (c=1, c=4, c=16), each figure the median across the level's runs\n"; stdout != want {
			t.Errorf("stdout %q\nwant %q", stdout, want)
		}
	}
	imp, err := importer.ImportFiles([]string{out}, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var levels []string
	for _, r := range imp.Runs {
		levels = append(levels, r.Config.Load.Key())
	}
	if got := strings.Join(levels, " "); got != "c=1 c=4 c=16" {
		t.Errorf("imported levels %s, want c=1 c=4 c=16", got)
	}
}

// A single file is written for a sweep of one level, replaced when
// benchnote wrote it and nobody changed it, and refused otherwise.
func TestExportFile(t *testing.T) {
	sweep := oneLevelSweep(t)
	dir := t.TempDir()
	for _, name := range []string{"r.json", "r.yaml"} {
		out := filepath.Join(dir, name)
		for range 2 {
			if code, _, stderr := runCLI(t, "export", "--format", "llm-d", sweep, "-o", out); code != ExitClean {
				t.Fatalf("%s: exit %d: %s", name, code, stderr)
			}
		}
		imp, err := importer.ImportFiles([]string{out}, importer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(imp.Runs) != 1 || imp.Runs[0].Config.Load.Key() != "c=4" {
			t.Fatalf("%s imports as %d runs", name, len(imp.Runs))
		}
		// Edited by hand: never replaced.
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		edited := strings.Replace(string(data), "medians-across-runs", "my note", 1)
		if err := os.WriteFile(out, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runCLI(t, "export", "--format", "llm-d", sweep, "-o", out)
		want := "benchnote export: refusing to write the llm-d Benchmark Report to \"" + out + "\": it exists and is not a file benchnote wrote, or was changed since; the file must be absent or one benchnote wrote and nobody changed since; nothing was changed\n"
		if code != ExitErrors || stderr != want {
			t.Errorf("exit %d, stderr %q\nwant %q", code, stderr, want)
		}
		if now, _ := os.ReadFile(out); string(now) != edited {
			t.Error("the edited file was changed")
		}
	}
	for _, tc := range []struct{ name, out, want string }{
		{"a user's file", "notes.yaml", "it exists and is not a file benchnote wrote, or was changed since"},
		{"inside the sweep", "sweep/r.yaml", "it lies inside the input"},
		{"a directory named .json", "d.json", "it is a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, tc.out)
			switch tc.name {
			case "a user's file":
				if err := os.WriteFile(out, []byte("mine\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			case "inside the sweep":
				out = filepath.Join(sweep, "r.yaml")
			case "a directory named .json":
				if err := os.Mkdir(out, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			code, _, stderr := runCLI(t, "export", "--format", "llm-d", sweep, "-o", out)
			if code != ExitErrors || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tc.want)
			}
			if tc.name == "a user's file" {
				if now, _ := os.ReadFile(out); string(now) != "mine\n" {
					t.Error("the user's file was changed")
				}
			}
			if tc.name == "inside the sweep" {
				if _, err := os.Stat(out); err == nil {
					t.Error("a file was written inside the sweep")
				}
			}
		})
	}
	// Several levels into one file: refused, saying what to do.
	code, _, stderr := runCLI(t, "export", "--format", "llm-d", "../../../../runs/example", "-o", filepath.Join(dir, "all.yaml"))
	if want := "benchnote export: ../../../../runs/example has 3 levels (c=1, c=4, c=16) and a Benchmark Report holds one stage: give -o a directory, which gets one report per level\n"; code != ExitErrors || stderr != want {
		t.Errorf("exit %d, stderr %q\nwant %q", code, stderr, want)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("left behind %s", e.Name())
		}
	}
}

func TestExportUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"export", "runs", "-o", "x"}, "--format llm-d is required"},
		{[]string{"export", "--format", "csv", "runs", "-o", "x"}, `--format "csv": benchnote exports llm-d`},
		{[]string{"export", "--format", "llm-d", "runs"}, "-o OUT is required"},
	} {
		code, _, stderr := runCLI(t, tc.args...)
		if code != ExitErrors || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", tc.args, code, stderr, tc.want)
		}
	}
}

// Exported from the example report's summary.json, the reports hold the
// same figures as exported from the sweep: only what names the input
// differs.
func TestExportFromSummary(t *testing.T) {
	dir := t.TempDir()
	fromSummary, fromSweep := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, c := range [][2]string{{"testdata/golden/example/summary.json", fromSummary}, {"../../../../runs/example", fromSweep}} {
		if code, _, stderr := runCLI(t, "export", "--format", "llm-d", "-q", c[0], "-o", c[1]); code != ExitClean {
			t.Fatalf("%s: exit %d: %s", c[0], code, stderr)
		}
	}
	entries, err := os.ReadDir(fromSweep)
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		a, errA := os.ReadFile(filepath.Join(fromSummary, e.Name()))
		b, errB := os.ReadFile(filepath.Join(fromSweep, e.Name()))
		if errA != nil || errB != nil {
			t.Fatalf("%s: %v %v", e.Name(), errA, errB)
		}
		strip := func(s string) string {
			var keep []string
			for _, line := range strings.Split(s, "\n") {
				if !strings.Contains(line, "uid:") && !strings.Contains(line, "eid:") && !strings.Contains(line, "description: 'benchnote export of") && !strings.Contains(line, "source:") {
					keep = append(keep, line)
				}
			}
			return strings.Join(keep, "\n")
		}
		if strip(string(a)) != strip(string(b)) {
			t.Errorf("%s differs between the exports from summary.json and from the sweep", e.Name())
		}
		compared++
	}
	if compared != 3 {
		t.Errorf("%d reports compared, want 3", compared)
	}
}

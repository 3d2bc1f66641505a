package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	goldenfile "github.com/benchnote/benchnote/internal/golden"
	"github.com/benchnote/benchnote/internal/sim"
)

// simSweepDir writes a small simulated sweep (c1 and c4, 3 repeats) that
// starts on the given day, with engine steps slower by factor.
func simSweepDir(t *testing.T, day int, seed uint64, factor float64) string {
	t.Helper()
	cfg := sim.DefaultConfig().WithRequests(60)
	cfg.Levels = cfg.Levels[:2]
	cfg.Stalls = nil
	cfg.Seed = seed
	cfg.Start = time.Date(2026, 11, 2+day, 9, 0, 0, 0, time.UTC)
	cfg.Server.StepBaseMs *= factor
	cfg.Server.StepPerSeqMs *= factor
	cfg.Server.PrefillPerTokenMs *= factor
	sw, err := sim.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), fmt.Sprintf("sweep-%d", day))
	if err := sw.Write(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

var addedID = regexp.MustCompile(`^added entry ([0-9a-f]{16}) to `)

func TestArchiveAndHistory(t *testing.T) {
	goldenDir, err := filepath.Abs(filepath.Join("testdata", "golden", "history"))
	if err != nil {
		t.Fatal(err)
	}
	// A relative archive name, so the outputs do not depend on the temp dir.
	t.Chdir(t.TempDir())
	arch := "archive"
	// Eight daily sweeps; from the sixth on, the engine is 30 % slower.
	var ids []string
	for day := 0; day < 8; day++ {
		factor := 1.0
		if day >= 5 {
			factor = 1.3
		}
		code, out, errOut := runCLI(t, "archive", "add", simSweepDir(t, day, uint64(day+1), factor), "--to", arch, "--label", fmt.Sprintf("rev-%d", day))
		m := addedID.FindStringSubmatch(out)
		if code != 0 || m == nil {
			t.Fatalf("add day %d: exit %d, %q %q", day, code, out, errOut)
		}
		ids = append(ids, m[1])
	}
	// Day 2 was bad: excluded, not deleted.
	if code, out, errOut := runCLI(t, "archive", "exclude", arch, ids[2][:8], "--why", "noisy neighbour on the host"); code != 0 || !strings.HasPrefix(out, "excluded entry "+ids[2]) {
		t.Fatalf("exclude: %d %q %q", code, out, errOut)
	}
	if code, _, errOut := runCLI(t, "archive", "exclude", arch, ids[2], "--why", "again"); code != 2 || !strings.Contains(errOut, "already excluded") {
		t.Errorf("second exclude: %d %q", code, errOut)
	}
	code, list, _ := runCLI(t, "archive", "list", arch)
	if code != 0 || !strings.Contains(list, "excluded: noisy neighbour on the host") || !strings.HasSuffix(list, "8 entries\n") {
		t.Errorf("list:\n%s", list)
	}
	lines := strings.Split(list, "\n")
	if !strings.HasPrefix(lines[1], ids[0]+"  2026-11-02T09:") || !strings.Contains(lines[1], "rev-0") {
		t.Errorf("first listed entry %q, want %s first (oldest)", lines[1], ids[0])
	}

	out1 := filepath.Join(t.TempDir(), "h1")
	code, msg, errOut := runCLI(t, "history", arch, "-o", out1)
	if code != 0 {
		t.Fatalf("history: %d %q", code, errOut)
	}
	if !strings.Contains(msg, "(8 entries, 1 segment, 5 change points at 1 entry)") {
		t.Errorf("history said %q", msg)
	}
	md, _ := os.ReadFile(filepath.Join(out1, "history.md"))
	// The slowdown was introduced by day 5 and is confirmed by day 6: one
	// line for the entry, above everything else. Energy per output token
	// is a change point too: the slower engine holds its requests (and its
	// simulated GPU power) longer for the same tokens.
	want := fmt.Sprintf("## Changes\n\n5 change points at 1 entry, each tested across its series' levels against up to 5 entries before:\n\n- **rev-5** (`%s`, 2026-11-07T09:", ids[5])
	if !strings.Contains(string(md), want) || strings.Contains(string(md), "Awaiting confirmation") {
		t.Errorf("history.md does not name %s as introducing the change, or has something awaiting confirmation:\n%s", ids[5], md)
	}
	if !strings.Contains(string(md), "excluded: noisy neighbour on the host") {
		t.Error("history.md does not show the excluded entry")
	}
	goldenfile.Check(t, filepath.Join(goldenDir, "history.md"), md, *update)
	html, _ := os.ReadFile(filepath.Join(out1, "history.html"))
	if n := bytes.Count(html, []byte("<figure")); n != 2*16 {
		t.Errorf("history.html has %d charts, want 32 (2 levels × 16 statistics, the energy ones included)", n)
	}
	// Same archive, same bytes.
	out2 := filepath.Join(t.TempDir(), "h2")
	runCLI(t, "history", arch, "-o", out2)
	for _, name := range []string{"history.md", "history.html", "history.json"} {
		a, _ := os.ReadFile(filepath.Join(out1, name))
		b, _ := os.ReadFile(filepath.Join(out2, name))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs", name)
		}
	}
}

func TestArchiveUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"archive"}, "expected 1 to 3 arguments (add SWEEP | list ARCHIVE | exclude ARCHIVE ID | verify ARCHIVE), got none"},
		{[]string{"archive", "prune"}, `unknown archive subcommand "prune" (expected add, list, exclude or verify)`},
		{[]string{"archive", "add", exampleSweep, "--to", t.TempDir(), "--time", "0001-01-01"}, `time "0001-01-01": expected a time from 1970-01-01 to 9999-12-31, got 0001-01-01T00:00:00Z`},
		{[]string{"archive", "verify", t.TempDir(), "--why", "x"}, "--why does not apply to archive verify"},
		{[]string{"archive", "add", exampleSweep}, "archive add: --to ARCHIVE is required"},
		{[]string{"archive", "add", exampleSweep, "--to", t.TempDir(), "--why", "x"}, "--why does not apply to archive add"},
		{[]string{"archive", "list", t.TempDir(), "--label", "x"}, "--label does not apply to archive list"},
		{[]string{"archive", "add", exampleSweep, "--to", t.TempDir(), "--time", "soon"}, `time "soon"`},
		{[]string{"archive", "list", t.TempDir()}, "not a benchnote archive"},
		{[]string{"archive", "exclude", t.TempDir(), "abc"}, "not a benchnote archive"},
		{[]string{"history", t.TempDir()}, "-o OUT is required"},
		{[]string{"history", t.TempDir(), "-o", filepath.Join(t.TempDir(), "h")}, "not a benchnote archive"},
		{[]string{"history", t.TempDir(), "-o", "h", "--window", "0"}, "--window 0: at least 1"},
		{[]string{"history", t.TempDir(), "-o", "h", "--window", "NaN"}, `invalid value "NaN" for flag -window: parse error`},
		{[]string{"history", t.TempDir(), "-o", "h", "--alpha", "NaN"}, "alpha NaN: expected a number between 0 and 1"},
		{[]string{"history", t.TempDir(), "-o", "h", "--alpha", "Inf"}, "alpha +Inf: expected a number between 0 and 1"},
		{[]string{"history", t.TempDir(), "-o", "h", "--threshold", "NaN%"}, `threshold "NaN%": "NaN" is not a number from 0 to 1000000`},
		{[]string{"history", t.TempDir(), "-o", "h", "--threshold", "ttft=1e400%"}, `threshold "ttft=1e400%": "1e400" is not a number from 0 to 1000000`},
		{[]string{"history", t.TempDir(), "-o", "h", "--gate", "ttft.p42"}, `--gate "ttft.p42": not a headline statistic`},
		{[]string{"history", t.TempDir(), "-o", "h", "--gate", ""}, "--gate: expected at least one statistic"},
	}
	for _, tt := range tests {
		code, _, errOut := runCLI(t, tt.args...)
		if code != ExitErrors || !strings.Contains(errOut, tt.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tt.args, code, errOut, tt.want)
		}
	}
}

// TestArchiveModified edits one entry's input and breaks another's
// entry.json: list marks them, verify names what changed (exit 2), history
// leaves the edited one out with the reason and refuses to guess about the
// unreadable one, and an archive left intact verifies with exit 0.
func TestArchiveModified(t *testing.T) {
	t.Chdir(t.TempDir())
	arch := "archive"
	var ids []string
	for day := range 3 {
		code, out, errOut := runCLI(t, "archive", "add", simSweepDir(t, day, uint64(day+1), 1), "--to", arch)
		m := addedID.FindStringSubmatch(out)
		if code != 0 || m == nil {
			t.Fatalf("add day %d: exit %d, %q %q", day, code, out, errOut)
		}
		ids = append(ids, m[1])
	}
	if code, out, _ := runCLI(t, "archive", "verify", arch); code != ExitClean || out != ids[0]+"  ok\n"+ids[1]+"  ok\n"+ids[2]+"  ok\n3 entries intact\n" {
		t.Errorf("verify of an intact archive: exit %d\n%s", code, out)
	}
	csv := filepath.Join(arch, ids[1], "inputs", "c1", "run-1", "requests.csv")
	data, err := os.ReadFile(csv)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(csv, append(data, '\n'), 0o644)
	code, out, _ := runCLI(t, "archive", "verify", arch)
	want := fmt.Sprintf("%s  ok\n%s  modified:\n    inputs/c1/run-1/requests.csv: %d bytes, recorded %d\n%s  ok\n1 entry of 3 changed since they were added\n",
		ids[0], ids[1], len(data)+1, len(data), ids[2])
	if code != ExitErrors || out != want {
		t.Errorf("verify: exit %d\n%s\nwant 2 and\n%s", code, out, want)
	}
	_, out, _ = runCLI(t, "archive", "list", arch)
	if !strings.Contains(out, ids[1]+"  ") || !strings.Contains(out, "modified (1 difference; benchnote archive verify names them)") {
		t.Errorf("list does not mark the modified entry:\n%s", out)
	}
	code, out, errOut := runCLI(t, "history", arch, "-o", "h")
	if code != ExitClean {
		t.Fatalf("history: exit %d: %s", code, errOut)
	}
	md, _ := os.ReadFile(filepath.Join("h", "history.md"))
	if !strings.Contains(string(md), "modified since it was added: inputs/c1/run-1/requests.csv") {
		t.Errorf("history.md does not say why the modified entry is left out:\n%s", md)
	}
	os.WriteFile(filepath.Join(arch, ids[2], "entry.json"), []byte("{"), 0o644)
	_, out, _ = runCLI(t, "archive", "list", arch)
	if !strings.Contains(out, ids[2]+"  -") || !strings.Contains(out, "unreadable") {
		t.Errorf("list does not show the unreadable entry:\n%s", out)
	}
}

// TestHistoryNameIsEscaped: an archive whose name holds a newline and
// markup cannot forge a heading in history.md or an element in
// history.html's <title>.
func TestHistoryNameIsEscaped(t *testing.T) {
	// "</title>" holds a slash: the archive is a directory in arch.
	parent := t.TempDir()
	arch := filepath.Join(parent, "arch\n# forged heading</title><b>")
	if code, _, errOut := runCLI(t, "archive", "add", simSweepDir(t, 0, 1, 1), "--to", arch); code != 0 {
		t.Fatalf("archive add: %d %q", code, errOut)
	}
	out := filepath.Join(t.TempDir(), "h")
	if code, _, errOut := runCLI(t, "history", arch, "-o", out); code != 0 {
		t.Fatalf("history: %d %q", code, errOut)
	}
	md, _ := os.ReadFile(filepath.Join(out, "history.md"))
	for _, line := range strings.Split(string(md), "\n") {
		if strings.HasPrefix(line, "# forged") {
			t.Errorf("history.md has a forged line %q", line)
		}
	}
	page, _ := os.ReadFile(filepath.Join(out, "history.html"))
	want := "<title>benchnote history: " + parent + `/arch\n# forged heading&lt;/title&gt;&lt;b&gt;</title>`
	if !bytes.Contains(page, []byte(want)) {
		t.Errorf("history.html has no %q", want)
	}
}

//go:build linux

package cli

// Every command that writes a directory keeps report's promises (issue
// 20): run concurrently into one OUT, each run succeeds and OUT ends as one
// whole output with nothing beside it; killed at any moment, OUT is the
// whole previous output or the whole new one, and the next run cleans up
// what the killed one left. internal/outdir's own tests kill a writer
// after each of its steps; these check that each command writes through it
// and nothing else.

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchnote/benchnote/ingest"
)

// outScenario is one command writing OUT from two sets of inputs: first
// runs with argsA (the previous output), then with argsB.
type outScenario struct {
	name string
	// prepare writes the inputs under root; every path in the arguments is
	// relative to root, so outputs do not depend on where root is.
	prepare      func(t *testing.T, root string)
	argsA, argsB []string
	out          string // OUT, relative to root
	code         int    // the exit code of a whole run
}

var importerFixtures = filepath.Join("..", "..", "..", "..", "ingest", "importer", "testdata", "fixtures")

// outScenarios lists the commands that replace a directory.
func outScenarios() []outScenario {
	sweeps := func(t *testing.T, root string) {
		tinySweep(t, filepath.Join(root, "a"), nil)
		tinySweep(t, filepath.Join(root, "b"), map[string]string{"sweep.yaml": "title: other\nwarmup: none\n"})
	}
	return []outScenario{
		{name: "report", prepare: sweeps, argsA: []string{"report", "a/sweep", "-o", "out"}, argsB: []string{"report", "b/sweep", "-o", "out"}, out: "out"},
		{name: "import", prepare: func(t *testing.T, root string) {
			for name, src := range map[string]string{"a.json": "vllm/recent.json", "b.jsonl": "vllm/append.jsonl"} {
				data, err := os.ReadFile(filepath.Join(importerFixtures, filepath.FromSlash(src)))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(root, name), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}, argsA: []string{"import", "a.json", "-o", "out"}, argsB: []string{"import", "b.jsonl", "-o", "out"}, out: "out"},
		{name: "compare", prepare: func(t *testing.T, root string) {
			sweeps(t, root)
			for _, s := range []string{"a", "b"} {
				if code, _, stderr := runCLI(t, "report", filepath.Join(root, s, "sweep"), "-o", filepath.Join(root, "r"+s)); code != 0 {
					t.Fatalf("report %s: %s", s, stderr)
				}
			}
		}, argsA: []string{"compare", "ra", "rb", "-o", "out"}, argsB: []string{"compare", "rb", "ra", "-o", "out"}, out: "out", code: compareCode},
		{name: "history", prepare: func(t *testing.T, root string) {
			sweeps(t, root)
			for i, s := range []string{"a", "b"} {
				for day, sw := range []string{"a", "b"} {
					args := []string{"archive", "add", filepath.Join(root, sw, "sweep"), "--to", filepath.Join(root, "arch-"+s), "--time", fmt.Sprintf("2026-0%d-0%d", i+1, day+1)}
					if code, _, stderr := runCLI(t, args...); code != 0 {
						t.Fatalf("%q: %s", args, stderr)
					}
				}
			}
		}, argsA: []string{"history", "arch-a", "-o", "out"}, argsB: []string{"history", "arch-b", "-o", "out"}, out: "out"},
	}
}

// compareCode is the exit code of comparing the two tiny sweeps, which
// differ only in their titles: 0, nothing changed.
const compareCode = 0

// TestCommandsConcurrentRuns runs each command four times at once into one
// OUT, alternating its two inputs, in this process.
func TestCommandsConcurrentRuns(t *testing.T) {
	for _, sc := range outScenarios() {
		t.Run(sc.name, func(t *testing.T) {
			root := t.TempDir()
			sc.prepare(t, root)
			t.Chdir(root)
			alone := map[string][]byte{}
			for _, v := range []struct {
				name string
				args []string
			}{{"a", sc.argsA}, {"b", sc.argsB}} {
				args := withOut(v.args, "alone-"+v.name)
				if code, _, stderr := runCLI(t, args...); code != sc.code {
					t.Fatalf("%q: exit %d: %s", args, code, stderr)
				}
				alone[v.name] = manifest(readTree(t, "alone-"+v.name))
			}
			var wg sync.WaitGroup
			codes := make([]int, 4)
			stderrs := make([]bytes.Buffer, 4)
			for i := range codes {
				args := sc.argsA
				if i%2 == 1 {
					args = sc.argsB
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					codes[i] = Run(args, &bytes.Buffer{}, &stderrs[i])
				}()
			}
			wg.Wait()
			for i, c := range codes {
				if c != sc.code {
					t.Errorf("run %d: exit %d: %s", i, c, stderrs[i].String())
				}
			}
			got := manifest(readTree(t, sc.out))
			if !bytes.Equal(got, alone["a"]) && !bytes.Equal(got, alone["b"]) {
				t.Errorf("after the concurrent runs, OUT is neither whole output:\n%s\nwant either\n%s\nor\n%s", got, alone["a"], alone["b"])
			}
			if left := strays(t, "."); len(left) > 0 {
				t.Errorf("left beside OUT: %q", left)
			}
		})
	}
}

// withOut returns args with the value of -o replaced by out.
func withOut(args []string, out string) []string {
	args = slices.Clone(args)
	for i := range args[:len(args)-1] {
		if args[i] == "-o" {
			args[i+1] = out
		}
	}
	return args
}

// strays lists what benchnote's writes may leave in dir: lock files and
// temporary directories.
func strays(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.Contains(e.Name(), ".benchnote-") {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestCommandsKilled kills each command (a child process) at moments
// spread over its run, from the state its first input left: OUT must then
// be the whole previous output or the whole new one, and the next run must
// write the whole new output and leave nothing beside it.
func TestCommandsKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("starts dozens of processes")
	}
	const kills = 10
	for _, sc := range outScenarios() {
		t.Run(sc.name, func(t *testing.T) {
			template := t.TempDir()
			sc.prepare(t, template)
			// The whole outputs, and how long a run takes.
			ref := cloneTree(t, template)
			runWhole(t, ref, sc.argsA, sc.code)
			oldSnap := manifest(readTree(t, filepath.Join(ref, sc.out)))
			took := runWhole(t, ref, sc.argsB, sc.code)
			newSnap := manifest(readTree(t, filepath.Join(ref, sc.out)))
			landed := map[string]int{}
			for k := range kills {
				root := cloneTree(t, template)
				runWhole(t, root, sc.argsA, sc.code)
				// From a third of the run (analysis) to just past its end (the write).
				delay := took/3 + time.Duration(k)*took*3/(4*kills)
				killed := runKilled(t, root, sc.argsB, delay)
				got := manifest(readTree(t, filepath.Join(root, sc.out)))
				switch {
				case bytes.Equal(got, oldSnap):
					landed["previous"]++
				case bytes.Equal(got, newSnap):
					landed["new"]++
				default:
					t.Errorf("killed after %v (killed %v): OUT is neither whole output:\n%s", delay, killed, got)
				}
				runWhole(t, root, sc.argsB, sc.code)
				if got := manifest(readTree(t, filepath.Join(root, sc.out))); !bytes.Equal(got, newSnap) {
					t.Errorf("after a kill at %v, the next run wrote\n%s", delay, got)
				}
				if left := strays(t, root); len(left) > 0 {
					t.Errorf("after a kill at %v, the next run left %q", delay, left)
				}
			}
			t.Logf("a whole run takes %v; after %d kills OUT was %v", took, kills, landed)
		})
	}
}

// TestArchiveAddKilled kills archive add at moments spread over its run:
// the archive then holds whole entries only (verify passes), and the next
// add of the same sweep either finds it added or adds it, leaving no
// staging directory.
func TestArchiveAddKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("starts dozens of processes")
	}
	const kills = 10
	template := t.TempDir()
	tinySweep(t, filepath.Join(template, "a"), nil)
	tinySweep(t, filepath.Join(template, "b"), map[string]string{"sweep.yaml": "title: other\nwarmup: none\n"})
	addA := []string{"archive", "add", "a/sweep", "--to", "arch", "--time", "2026-01-01"}
	addB := []string{"archive", "add", "b/sweep", "--to", "arch", "--time", "2026-01-02"}
	ref := cloneTree(t, template)
	runWhole(t, ref, addA, 0)
	took := runWhole(t, ref, addB, 0)
	outcomes := map[string]int{}
	for k := range kills {
		root := cloneTree(t, template)
		runWhole(t, root, addA, 0)
		delay := took/3 + time.Duration(k)*took*3/(4*kills)
		runKilled(t, root, addB, delay)
		code, stdout := runIn(t, root, "archive", "verify", "arch")
		if code != 0 {
			t.Errorf("after a kill at %v, verify exit %d:\n%s", delay, code, stdout)
		}
		switch code, _ := runIn(t, root, addB...); code {
		case 0:
			outcomes["added by the next run"]++
		case ExitErrors:
			outcomes["added before the kill"]++
		default:
			t.Errorf("after a kill at %v, the next add exited %d", delay, code)
		}
		if code, stdout := runIn(t, root, "archive", "verify", "arch"); code != 0 || !strings.HasSuffix(stdout, "2 entries intact\n") {
			t.Errorf("after a kill at %v and another add: verify exit %d:\n%s", delay, code, stdout)
		}
		entries, _ := os.ReadDir(filepath.Join(root, "arch"))
		for _, e := range entries {
			if strings.Contains(e.Name(), ".benchnote-tmp-") {
				t.Errorf("after a kill at %v and another add, %s is left", delay, e.Name())
			}
		}
	}
	t.Logf("a whole add takes %v; %v", took, outcomes)
}

// TestArchiveConcurrentAdds adds two sweeps twice each, all at once: each
// sweep is added once, the other add of it is refused as a duplicate, and
// the archive verifies with no staging left.
func TestArchiveConcurrentAdds(t *testing.T) {
	root := t.TempDir()
	a := tinySweep(t, filepath.Join(root, "a"), nil)
	b := tinySweep(t, filepath.Join(root, "b"), map[string]string{"sweep.yaml": "title: other\nwarmup: none\n"})
	arch := filepath.Join(root, "arch")
	var wg sync.WaitGroup
	codes := make([]int, 4)
	stderrs := make([]bytes.Buffer, 4)
	for i := range codes {
		sw := []string{a, b}[i%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = Run([]string{"archive", "add", sw, "--to", arch, "--time", "2026-01-01"}, &bytes.Buffer{}, &stderrs[i])
		}()
	}
	wg.Wait()
	added, duplicates := 0, 0
	for i, c := range codes {
		switch {
		case c == 0:
			added++
		case c == ExitErrors && strings.Contains(stderrs[i].String(), "already archived"):
			duplicates++
		default:
			t.Errorf("add %d: exit %d: %s", i, c, stderrs[i].String())
		}
	}
	if added != 2 || duplicates != 2 {
		t.Errorf("%d added, %d refused as duplicates; want 2 and 2", added, duplicates)
	}
	if code, stdout, _ := runCLI(t, "archive", "verify", arch); code != 0 || !strings.HasSuffix(stdout, "2 entries intact\n") {
		t.Errorf("verify: exit %d\n%s", code, stdout)
	}
	if left := strays(t, arch); len(left) > 0 {
		t.Errorf("left in the archive: %q", left)
	}
}

// TestUserFileWrittenDuringImport: a file the user writes into OUT while
// import runs is never deleted (it was, issue 20): import either refuses
// before writing or, when the file appears after its check, leaves it in
// the previous copy it moved aside and says where.
func TestUserFileWrittenDuringImport(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(importerFixtures, "vllm", "recent.json")
	out := filepath.Join(root, "out")
	if code, _, stderr := runCLI(t, "import", src, "-o", out); code != 0 {
		t.Fatal(stderr)
	}
	mine := filepath.Join(out, "c4", "run-1", ingest.ScrapeEndFile)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 2000; i++ {
			if os.WriteFile(mine, []byte("# mine\n"), 0o644) == nil {
				return
			}
		}
	}()
	code, _, stderr := runCLI(t, "import", src, "-o", out)
	<-done
	found := false
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == ingest.ScrapeEndFile {
			data, _ := os.ReadFile(p)
			found = found || string(data) == "# mine\n"
		}
		return nil
	})
	if !found {
		t.Errorf("the user's file is gone (import exit %d: %s)", code, stderr)
	}
}

// cloneTree copies the files under src into a new temporary directory.
func cloneTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	copyDir(t, src, dst)
	return dst
}

// childCommand is benchnote with args as a child process in dir.
func childCommand(dir string, args []string) *exec.Cmd {
	enc := `["` + strings.Join(args, `","`) + `"]`
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperBoundedRun$", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), boundedArgsEnv+"="+enc)
	return cmd
}

// runIn runs benchnote in a child process in dir and returns its exit code
// and standard output.
func runIn(t *testing.T, dir string, args ...string) (int, string) {
	t.Helper()
	cmd := childCommand(dir, args)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String()
}

// runWhole runs benchnote to the end in a child process in dir, checks its
// exit code, and returns how long it took.
func runWhole(t *testing.T, dir string, args []string, code int) time.Duration {
	t.Helper()
	start := time.Now()
	cmd := childCommand(dir, args)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	if got := cmd.ProcessState.ExitCode(); got != code {
		t.Fatalf("%q: exit %d, want %d: %s", args, got, code, stderr.String())
	}
	return time.Since(start)
}

// runKilled starts benchnote in a child process in dir and kills it with
// SIGKILL after delay; it reports whether the kill came before the end.
func runKilled(t *testing.T, dir string, args []string, delay time.Duration) bool {
	t.Helper()
	cmd := childCommand(dir, args)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
		return false
	case <-time.After(delay):
		cmd.Process.Kill()
		<-done
		return true
	}
}

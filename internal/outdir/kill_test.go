package outdir

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Environment of the helper process TestKilledRunLeavesOUTWhole starts.
const (
	killAtEnv  = "BENCHNOTE_OUTDIR_KILL_AT"   // kill after this many steps (1-based)
	killOutEnv = "BENCHNOTE_OUTDIR_KILL_OUT"  // OUT
	killSwap   = "BENCHNOTE_OUTDIR_KILL_SWAP" // "renames": use the portable swap
)

// TestHelperKilledRun is not a test: it is the process
// TestKilledRunLeavesOUTWhole starts. It writes reportB to OUT and kills
// itself with SIGKILL right after step k of the write.
func TestHelperKilledRun(t *testing.T) {
	at := os.Getenv(killAtEnv)
	if at == "" {
		t.Skip("helper process for TestKilledRunLeavesOUTWhole")
	}
	k, err := strconv.Atoi(at)
	if err != nil {
		t.Fatal(err)
	}
	var r replacer
	n := 0
	r.step = func(name string) {
		n++
		fmt.Printf("step %d: %s\n", n, name)
		if n == k {
			self, _ := os.FindProcess(os.Getpid())
			self.Kill()
			time.Sleep(time.Minute)
		}
	}
	if os.Getenv(killSwap) == "renames" {
		r.swap = func(newDir, out string) (string, error) {
			return swapByRenames(newDir, out, func() { r.did("moved previous copy aside") })
		}
	}
	if err := r.replace(os.Getenv(killOutEnv), reportB, Options{}); err != nil {
		t.Fatal(err)
	}
}

// TestKilledRunLeavesOUTWhole kills a writing process after each step of
// Replace in turn, from every starting state, and checks that OUT is then
// exactly the previous content or exactly the new report, never a mix and
// never missing (except in the portable swap's one documented window),
// and that the next run cleans up and writes a whole report.
func TestKilledRunLeavesOUTWhole(t *testing.T) {
	if testing.Short() {
		t.Skip("starts dozens of processes")
	}
	tests := []struct {
		name  string
		swap  string
		setup func(t *testing.T, out string)
		old   func(t *testing.T) map[string]string // OUT's snapshot before
		// window is the step after which OUT may be missing.
		window string
	}{
		{"absent", "", func(*testing.T, string) {}, func(*testing.T) map[string]string { return nil }, ""},
		{"empty directory", "", func(t *testing.T, out string) { mkdir(t, out) },
			func(*testing.T) map[string]string { return map[string]string{".": "dir -rwxr-xr-x"} }, ""},
		{"previous report", "", func(t *testing.T, out string) {
			if err := Replace(out, reportA, Options{}); err != nil {
				t.Fatal(err)
			}
		}, func(t *testing.T) map[string]string { return want(t, reportA) }, ""},
		{"previous report, portable swap", "renames", func(t *testing.T, out string) {
			if err := Replace(out, reportA, Options{}); err != nil {
				t.Fatal(err)
			}
		}, func(t *testing.T) map[string]string { return want(t, reportA) }, "moved previous copy aside"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			newSnap := want(t, reportB)
			var steps []string
			for k := 1; ; k++ {
				parent := filepath.Join(t.TempDir(), "p")
				mkdir(t, parent)
				out := filepath.Join(parent, "out")
				tt.setup(t, out)
				oldSnap := tt.old(t)

				cmd := exec.Command(os.Args[0], "-test.run=^TestHelperKilledRun$", "-test.v")
				cmd.Env = append(os.Environ(), killAtEnv+"="+strconv.Itoa(k), killOutEnv+"="+out, killSwap+"="+tt.swap)
				var stdout bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stdout
				err := cmd.Run()
				var exit *exec.ExitError
				killed := errors.As(err, &exit) && exit.ExitCode() == -1
				if err != nil && !killed {
					t.Fatalf("k=%d: helper failed: %v\n%s", k, err, stdout.String())
				}
				step := "completed"
				if killed {
					lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
					step = strings.TrimPrefix(lines[len(lines)-1], fmt.Sprintf("step %d: ", k))
					steps = append(steps, step)
				}

				got := snapshot(t, out)
				switch {
				case reflect.DeepEqual(got, oldSnap), reflect.DeepEqual(got, newSnap):
				case got == nil && step == tt.window:
				default:
					t.Errorf("killed after %q: OUT is neither the previous nor the new content:\n%v", step, got)
				}

				// The next run removes what the killed one left and
				// writes a whole report.
				if err := Replace(out, reportC, Options{}); err != nil {
					t.Fatalf("after a kill at %q: %v", step, err)
				}
				if got := snapshot(t, out); !reflect.DeepEqual(got, want(t, reportC)) {
					t.Errorf("after a kill at %q, the next run wrote %v", step, got)
				}
				if got := names(t, parent); !reflect.DeepEqual(got, []string{"out"}) {
					t.Errorf("after a kill at %q, the next run left %q next to OUT", step, got)
				}
				if !killed {
					break
				}
			}
			t.Logf("killed after each of %d steps: %s", len(steps), strings.Join(steps, "; "))
			// locked, stale removed, temporary created, marker, 4 files, synced, swapped at least.
			if len(steps) < 10 {
				t.Errorf("only %d steps were tried: %q", len(steps), steps)
			}
		})
	}
}

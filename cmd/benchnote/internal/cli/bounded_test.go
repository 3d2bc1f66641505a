//go:build linux

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The bounds of a hostile case (issue 20): a hostile input costs at most
// this much wall time and peak resident memory, or is refused within them.
const (
	hostileTime = 2 * time.Second
	hostileRSS  = 200 << 20
)

// hostileKill is when a child that overran its bound is killed, so a case
// that loops forever fails in seconds instead of hanging the suite.
const hostileKill = 20 * time.Second

// boundedArgsEnv carries the child's arguments (a JSON array), and
// boundedRSSEnv the file the child writes its own peak RSS to.
const (
	boundedArgsEnv = "BENCHNOTE_BOUNDED_ARGS"
	boundedRSSEnv  = "BENCHNOTE_BOUNDED_RSS_FILE"
)

// TestHelperBoundedRun is not a test: it is the child process runBounded
// starts. It runs benchnote with the arguments in boundedArgsEnv and exits
// with its exit code.
func TestHelperBoundedRun(t *testing.T) {
	enc := os.Getenv(boundedArgsEnv)
	if enc == "" {
		t.Skip("child process of runBounded")
	}
	var args []string
	if err := json.Unmarshal([]byte(enc), &args); err != nil {
		t.Fatal(err)
	}
	code := Run(args, os.Stdout, os.Stderr)
	if f := os.Getenv(boundedRSSEnv); f != "" {
		if hwm, err := peakRSSOfSelf(); err == nil {
			_ = os.WriteFile(f, []byte(strconv.FormatInt(hwm, 10)), 0o644)
		}
	}
	os.Exit(code)
}

// peakRSSOfSelf returns this process's peak resident memory in bytes, as
// /proc/self/status states it (VmHWM). Unlike the rusage of a child, it
// does not hold the parent's: os/exec starts a child in the parent's
// address space, whose peak Linux keeps for the child across exec.
func peakRSSOfSelf() (int64, error) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("/proc/self/status: no VmHWM")
}

// bounded is what a bounded run did.
type bounded struct {
	code           int
	stdout, stderr string
	wall           time.Duration
	peakRSS        int64 // bytes
}

// runBounded runs benchnote with args in a child process (this test binary
// again), in directory dir when not empty, with stdin as its standard input
// (nil for none), and fails t when the run takes longer than hostileTime or
// its peak resident memory exceeds hostileRSS. Timing is wall time of the
// whole child, Go runtime start-up included; on a loaded machine it is
// measured twice, as fuzzbudget does, before it counts as a failure.
func runBounded(t *testing.T, dir string, stdin []byte, args ...string) bounded {
	t.Helper()
	if testing.Short() {
		t.Skip("hostile cases run in a child process; skipped with -short")
	}
	b := runChild(t, dir, stdin, args)
	if b.wall > hostileTime {
		if again := runChild(t, dir, stdin, args); again.wall > hostileTime {
			t.Errorf("benchnote %q took %v, then %v; the bound is %v", args, b.wall, again.wall, hostileTime)
		}
	}
	if b.peakRSS > hostileRSS {
		t.Errorf("benchnote %q: peak RSS %d MB; the bound is %d MB", args, b.peakRSS>>20, hostileRSS>>20)
	}
	return b
}

// runChild runs one child; see runBounded.
func runChild(t *testing.T, dir string, stdin []byte, args []string) bounded {
	t.Helper()
	enc, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hostileKill)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHelperBoundedRun$", "-test.count=1")
	cmd.Dir = dir
	rssFile := filepath.Join(t.TempDir(), "peak-rss")
	cmd.Env = append(os.Environ(), boundedArgsEnv+"="+string(enc), boundedRSSEnv+"="+rssFile)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	b := bounded{wall: time.Since(start), stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("benchnote %q was still running after %v: killed", args, hostileKill)
	case errors.As(err, &exit):
		b.code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	// The child's own figure; the rusage of a child that did not write it
	// (it crashed) is an upper bound, holding the parent's peak too.
	if data, err := os.ReadFile(rssFile); err == nil {
		b.peakRSS, err = strconv.ParseInt(string(data), 10, 64)
		if err != nil {
			t.Fatalf("%s: %v", rssFile, err)
		}
	} else if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		b.peakRSS = ru.Maxrss << 10 // kilobytes on Linux
	}
	return b
}

// TestBoundedRunMeasures checks the harness itself: a cheap command is
// measured (a real peak RSS, an exit code, its output).
func TestBoundedRunMeasures(t *testing.T) {
	b := runBounded(t, "", nil, "version")
	if b.code != 0 || b.peakRSS <= 0 || b.peakRSS > hostileRSS || b.stdout == "" {
		t.Errorf("benchnote version: exit %d, peak RSS %d, stdout %q", b.code, b.peakRSS, b.stdout)
	}
	b = runBounded(t, "", nil, "no-such-command")
	if b.code != ExitErrors {
		t.Errorf("benchnote no-such-command: exit %d, want %d", b.code, ExitErrors)
	}
}

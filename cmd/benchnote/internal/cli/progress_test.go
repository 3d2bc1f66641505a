package cli

import (
	"bytes"
	"testing"
	"time"

	"github.com/benchnote/benchnote/ingest"
)

// manualClock is a clock the test moves by hand.
type manualClock struct{ t time.Time }

func (c *manualClock) now() time.Time          { return c.t }
func (c *manualClock) advance(d time.Duration) { c.t = c.t.Add(d) }

func runWithRows(dir string, rows int) *ingest.Run {
	return &ingest.Run{Dir: dir, Requests: &ingest.RequestFile{RowsRead: rows}}
}

// TestProgressPlain follows a sweep of three runs (one unreadable) through
// reading, analysing and rendering, with exact timings and rates.
func TestProgressPlain(t *testing.T) {
	clock := &manualClock{t: time.Unix(1_000_000, 0)}
	var w bytes.Buffer
	p := newProgress(&w, progressPlain, clock.now, 0)
	read := p.readRuns()
	clock.advance(250 * time.Millisecond)
	read(1, 3, runWithRows("c1/run-1", 1_000_000))
	clock.advance(250 * time.Millisecond)
	read(2, 3, &ingest.Run{Dir: "c1/run-2", Failed: true})
	clock.advance(500 * time.Millisecond)
	read(3, 3, runWithRows("c4/run-1", 1))
	p.stage("analysing", "analysed")
	clock.advance(1500 * time.Millisecond)
	p.stage("rendering", "rendered")
	clock.advance(40 * time.Millisecond)
	p.finish()
	p.close()
	want := "read run 1/3: c1/run-1, 1,000,000 rows\n" +
		"read run 2/3: c1/run-2, failed\n" +
		"read run 3/3: c4/run-1, 1 row\n" +
		"read and analysed 3 runs, 1,000,001 rows in 1.0 s (1,000,001 rows/s)\n" +
		"analysed in 1.5 s\n" +
		"rendered in 0.0 s\n"
	if w.String() != want {
		t.Errorf("got\n%s\nwant\n%s", w.String(), want)
	}
}

// TestProgressLive checks the live line: nothing in the first second,
// then one line redrawn in place with runs, rows, rate and elapsed time,
// erased at the end; after close nothing more is drawn.
func TestProgressLive(t *testing.T) {
	clock := &manualClock{t: time.Unix(1_000_000, 0)}
	var w bytes.Buffer
	p := newProgress(&w, progressLive, clock.now, 0)
	read := p.readRuns()
	clock.advance(900 * time.Millisecond)
	read(1, 4, runWithRows("a", 450_000))
	if w.Len() != 0 {
		t.Fatalf("drew %q before a second had passed", w.String())
	}
	clock.advance(600 * time.Millisecond)
	read(2, 4, runWithRows("b", 300_000))
	p.mu.Lock()
	clock.advance(500 * time.Millisecond)
	p.draw() // what the redraw loop does
	p.mu.Unlock()
	p.stage("analysing", "analysed")
	p.close()
	p.finish()
	p.stage("rendering", "rendered")
	want := "\rreading and analysing runs: 2/4, 750,000 rows (500,000 rows/s), 1.5 s\x1b[K" +
		"\rreading and analysing runs: 2/4, 750,000 rows (375,000 rows/s), 2.0 s\x1b[K" +
		"\ranalysing, 2.0 s\x1b[K" +
		"\r\x1b[K"
	if w.String() != want {
		t.Errorf("got  %q\nwant %q", w.String(), want)
	}
}

// TestProgressOff checks that an off reporter writes nothing and gives
// ingest no callback.
func TestProgressOff(t *testing.T) {
	var w bytes.Buffer
	p := newProgress(&w, progressOff, nil, time.Millisecond)
	if p.readRuns() != nil {
		t.Error("readRuns returned a callback with progress off")
	}
	p.stage("analysing", "analysed")
	p.finish()
	p.close()
	if w.Len() != 0 {
		t.Errorf("wrote %q", w.String())
	}
}

// TestProgressRedrawLoop checks that the redraw loop stops on close
// (a leaked goroutine would keep writing).
func TestProgressRedrawLoop(t *testing.T) {
	var w syncBuffer
	start := time.Now().Add(-2 * time.Second) // as if the work began 2 s ago
	calls := 0
	now := func() time.Time {
		calls++
		if calls == 1 {
			return start
		}
		return time.Now()
	}
	p := newProgress(&w, progressLive, now, time.Millisecond)
	p.stage("analysing", "analysed")
	time.Sleep(20 * time.Millisecond)
	p.close()
	n := w.Len()
	time.Sleep(20 * time.Millisecond)
	if w.Len() != n {
		t.Error("the redraw loop wrote after close")
	}
	if got := w.String(); len(got) < 4 || got[len(got)-4:] != "\r\x1b[K" {
		t.Errorf("output does not end by erasing the line: %q", got)
	}
}

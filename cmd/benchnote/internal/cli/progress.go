package cli

import (
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/textfmt"
)

// progressMode says how a command shows its progress on stderr.
type progressMode int

const (
	// progressOff shows nothing (-q, or stderr is not a terminal).
	progressOff progressMode = iota
	// progressLive redraws one line in place on a terminal, once the work
	// has taken longer than progressDelay, and erases it at the end.
	progressLive
	// progressPlain writes plain lines, one per run and stage (-v).
	progressPlain
)

// progressDelay is how long work runs before a live line appears: shorter
// work finishes without any.
const progressDelay = time.Second

// progress reports a command's stages (reading and analysing runs,
// rendering) on stderr. Its methods are safe for concurrent use and do
// nothing when it is off.
type progress struct {
	w    io.Writer
	mode progressMode
	now  func() time.Time

	mu         sync.Mutex
	start      time.Time // the call's start
	stageStart time.Time
	doing, did string // the stage in progress, and its summary verb
	reading    bool   // the stage reads runs (and counts them)
	runs       int    // runs read so far
	total      int    // runs to read
	rows       int64  // rows read so far
	drawn      bool   // a live line is on screen
	closed     bool

	stop    chan struct{} // closes the redraw loop
	stopped chan struct{}
}

// newProgress returns a reporter writing to w. With redraw > 0 a live
// line is also redrawn at that interval, so the clock keeps moving while
// one large run is read.
func newProgress(w io.Writer, mode progressMode, now func() time.Time, redraw time.Duration) *progress {
	if now == nil {
		now = time.Now
	}
	p := &progress{w: w, mode: mode, now: now}
	p.start = now()
	if mode == progressLive && redraw > 0 {
		p.stop, p.stopped = make(chan struct{}), make(chan struct{})
		go p.loop(redraw)
	}
	return p
}

func (p *progress) loop(every time.Duration) {
	defer close(p.stopped)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			p.draw()
			p.mu.Unlock()
		}
	}
}

// readRuns starts the stage that reads the sweep and returns the callback
// for ingest.Options.RunRead, or nil when progress is off.
func (p *progress) readRuns() func(done, total int, run *ingest.Run) {
	if p.mode == progressOff {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.beginLocked("reading and analysing runs", "read", true)
	return p.runRead
}

// runRead records one run read; ingest calls it after each run.
func (p *progress) runRead(done, total int, run *ingest.Run) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.runs, p.total = done, total
	rows := ""
	if run.Requests != nil {
		p.rows += int64(run.Requests.RowsRead)
		rows = ", " + rowCount(int64(run.Requests.RowsRead))
	}
	if p.mode == progressPlain {
		status := ""
		if run.Failed {
			status = ", failed"
		}
		fmt.Fprintf(p.w, "read run %d/%d: %s%s%s\n", done, total, run.Dir, rows, status)
		return
	}
	p.draw()
}

// stage ends the stage in progress and starts the next one: doing names
// it while it runs ("analysing"), did when it is over ("analysed").
func (p *progress) stage(doing, did string) {
	if p.mode == progressOff {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.beginLocked(doing, did, false)
}

func (p *progress) beginLocked(doing, did string, reading bool) {
	p.endLocked()
	p.doing, p.did, p.reading = doing, did, reading
	p.stageStart = p.now()
	p.draw()
}

// endLocked ends the stage in progress; in plain mode it says how long
// the stage took.
func (p *progress) endLocked() {
	if p.doing == "" || p.mode != progressPlain {
		p.doing = ""
		return
	}
	secs := p.now().Sub(p.stageStart).Seconds()
	if p.reading {
		fmt.Fprintf(p.w, "read and analysed %s, %s in %s%s\n", textfmt.Count(p.runs, "run", "runs"), rowCount(p.rows), seconds(secs), rate(p.rows, secs))
	} else {
		fmt.Fprintf(p.w, "%s in %s\n", p.did, seconds(secs))
	}
	p.doing = ""
}

// finish ends the last stage and erases the live line.
func (p *progress) finish() {
	if p.mode == progressOff {
		return
	}
	p.mu.Lock()
	if !p.closed {
		p.endLocked()
	}
	p.mu.Unlock()
	p.close()
}

// close stops the reporter without a summary (the command failed) and
// erases the live line. It may be called more than once.
func (p *progress) close() {
	if p.mode == progressOff {
		return
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	p.doing = ""
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
	p.mu.Unlock()
	if p.stop != nil {
		close(p.stop)
		<-p.stopped
	}
}

// draw redraws the live line once the call has run for progressDelay.
func (p *progress) draw() {
	if p.mode != progressLive || p.closed || p.doing == "" {
		return
	}
	now := p.now()
	elapsed := now.Sub(p.start)
	if elapsed < progressDelay {
		return
	}
	line := p.doing
	if p.reading && p.total > 0 {
		line += fmt.Sprintf(": %d/%d, %s", p.runs, p.total, rowCount(p.rows))
		line += rate(p.rows, now.Sub(p.stageStart).Seconds())
	}
	fmt.Fprintf(p.w, "\r%s, %s\x1b[K", line, seconds(elapsed.Seconds()))
	p.drawn = true
}

// rate formats ", 12,345 rows/s", or "" when no time has passed.
func rate(rows int64, secs float64) string {
	if secs <= 0 {
		return ""
	}
	return fmt.Sprintf(" (%s rows/s)", textfmt.Thousands(int64(float64(rows)/secs+0.5)))
}

// rowCount is a count of rows, its digits grouped: "1 row", "1,234,567 rows".
func rowCount(n int64) string { return textfmt.Thousands(n) + " " + textfmt.Plural(n, "row", "rows") }

// seconds formats a duration in seconds: "0.4 s", "13.0 s".
func seconds(s float64) string { return strconv.FormatFloat(s, 'f', 1, 64) + " s" }

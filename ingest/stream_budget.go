package ingest

import "sync"

// streamRows is the most request rows a stream of a sweep from Open holds
// at once, counting the runs being read, read and waiting for the
// consumer, and taken by it but not yet released: five runs of 400,000
// rows, two of 800,000. Reading ahead by a number of runs would let
// memory grow with the length of a run (a sweep of runs twice as long
// needed twice the memory); by rows it follows this budget and one
// level's pooled samples. A run the consumer is waiting for is always
// read, whatever the budget, so a consumer that holds runs cannot stall.
const streamRows = 2_000_000

// rowBudget counts the rows a stream holds against streamRows. Before a
// run is read its rows are not known: it is reserved at the size of the
// last run read (a sweep's runs are usually alike), then corrected.
type rowBudget struct {
	mu      sync.Mutex
	cond    sync.Cond
	limit   int
	held    int  // rows reserved or held by runs in flight
	guess   int  // rows of the last run read: the next run's reservation
	waiting int  // the run the consumer waits for, -1 when none
	stopped bool // the stream ended: nobody waits any more
}

func newRowBudget(limit int) *rowBudget {
	b := &rowBudget{limit: limit, waiting: -1}
	b.cond.L = &b.mu
	return b
}

// reserve waits until run i fits the budget (or nothing is held, or the
// consumer waits for it) and reserves its guessed rows; false when the
// stream stopped.
func (b *rowBudget) reserve(i int) (reserved int, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for !b.stopped && b.held > 0 && b.held+b.guess > b.limit && b.waiting != i {
		b.cond.Wait()
	}
	if b.stopped {
		return 0, false
	}
	b.held += b.guess
	return b.guess, true
}

// read replaces a run's reservation by the rows it holds once read.
func (b *rowBudget) read(reserved, rows int) {
	b.mu.Lock()
	b.held += rows - reserved
	b.guess = rows
	b.mu.Unlock()
	b.cond.Broadcast()
}

// release gives back the rows of a run the consumer released.
func (b *rowBudget) release(rows int) {
	b.mu.Lock()
	b.held -= rows
	b.mu.Unlock()
	b.cond.Broadcast()
}

// want says the consumer waits for run i.
func (b *rowBudget) want(i int) {
	b.mu.Lock()
	b.waiting = i
	b.mu.Unlock()
	b.cond.Broadcast()
}

// stop wakes and ends every wait.
func (b *rowBudget) stop() {
	b.mu.Lock()
	b.stopped = true
	b.mu.Unlock()
	b.cond.Broadcast()
}

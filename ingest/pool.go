package ingest

import "sync"

// columnPool keeps the columns of runs a consumer has released, for the
// next runs to be read into: streaming a sweep then reuses a few runs'
// worth of memory instead of allocating, zeroing and collecting every
// run's. It is safe for concurrent use.
type columnPool struct {
	mu      sync.Mutex
	floats  [][]float64
	ints    [][]int64
	int32s  [][]int32
	codes   [][]uint32
	uint64s [][]uint64
}

// maxPooled bounds the slices of one type a pool keeps, and
// maxPooledValues their values: about one run's columns of the runs a
// stream holds (streamRows), so that a pool of long runs' columns does not
// keep more than the stream needs again.
const (
	maxPooled       = 16
	maxPooledValues = streamRows
)

// take removes from free a slice with room for n values and returns it
// emptied, or a new one.
func take[T any](mu *sync.Mutex, free *[][]T, n int) []T {
	mu.Lock()
	for i, s := range *free {
		if cap(s) >= n {
			last := len(*free) - 1
			(*free)[i] = (*free)[last]
			(*free)[last] = nil
			*free = (*free)[:last]
			mu.Unlock()
			return s[:0]
		}
	}
	mu.Unlock()
	return make([]T, 0, n)
}

// give adds s to free unless free is full.
func give[T any](mu *sync.Mutex, free *[][]T, s []T) {
	if cap(s) == 0 {
		return
	}
	mu.Lock()
	values := cap(s)
	for _, f := range *free {
		values += cap(f)
	}
	if len(*free) < maxPooled && values <= maxPooledValues {
		*free = append(*free, s[:0])
	}
	mu.Unlock()
}

func (p *columnPool) takeFloats(n int) []float64 {
	if p == nil {
		return make([]float64, 0, n)
	}
	return take(&p.mu, &p.floats, n)
}

func (p *columnPool) takeInts(n int) []int64 {
	if p == nil {
		return make([]int64, 0, n)
	}
	return take(&p.mu, &p.ints, n)
}

func (p *columnPool) takeInt32s(n int) []int32 {
	if p == nil {
		return make([]int32, 0, n)
	}
	return take(&p.mu, &p.int32s, n)
}

// takeStatus returns an empty status column with room for n rows.
func (p *columnPool) takeStatus(n int) *StatusColumn {
	if p == nil {
		return &StatusColumn{Codes: make([]uint32, 0, n)}
	}
	return &StatusColumn{Codes: take(&p.mu, &p.codes, n)}
}

func (p *columnPool) takeUint64s(n int) []uint64 {
	if p == nil {
		return make([]uint64, 0, n)
	}
	return take(&p.mu, &p.uint64s, n)
}

func (p *columnPool) giveFloats(s []float64) {
	if p != nil {
		give(&p.mu, &p.floats, s)
	}
}

func (p *columnPool) giveInts(s []int64) {
	if p != nil {
		give(&p.mu, &p.ints, s)
	}
}

func (p *columnPool) giveUint64s(s []uint64) {
	if p != nil {
		give(&p.mu, &p.uint64s, s)
	}
}

// giveRequests hands q's columns to the pool; q must not be used again.
func (p *columnPool) giveRequests(q *Requests) {
	if p == nil {
		return
	}
	for _, s := range [][]float64{q.TTFTms, q.E2Ems, q.TRequestSent, q.TFirstText, q.TLastText} {
		give(&p.mu, &p.floats, s)
	}
	for _, s := range [][]int64{q.PromptTokens, q.CompletionTokens, q.MaxTokens, q.TextChunks} {
		give(&p.mu, &p.ints, s)
	}
	give(&p.mu, &p.int32s, q.SourceRow)
	if q.Status != nil {
		give(&p.mu, &p.codes, q.Status.Codes)
	}
}

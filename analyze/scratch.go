package analyze

import "sync"

// The working slices of a run's analysis (send order, latency samples,
// token lengths, send times) are about as long as the run, and every run
// of a sweep needs them again: scratch lends them from one run to the
// next instead of allocating, and clearing, fresh ones each time. Nothing
// taken may be used after it is given back.

// scratch is a pool of slices of one element type.
type scratch[T any] struct{ p sync.Pool }

var (
	floatScratch  scratch[float64]
	int64Scratch  scratch[int64]
	intScratch    scratch[int]
	int32Scratch  scratch[int32]
	uint64Scratch scratch[uint64]
)

// take returns an empty slice with room for n elements.
func (s *scratch[T]) take(n int) []T {
	if b, ok := s.p.Get().(*[]T); ok && cap(*b) >= n {
		return (*b)[:0]
	}
	return make([]T, 0, n)
}

// give returns b for another take.
func (s *scratch[T]) give(b []T) {
	if cap(b) > 0 {
		s.p.Put(&b)
	}
}

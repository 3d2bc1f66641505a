package analyze

import "math"

// WarmupRule holds the stabilisation rule's parameters: warm-up ends when
// the median of consecutive blocks of Window requests changes by less than
// Tolerance (relative) Consecutive times in a row.
type WarmupRule struct {
	Window      int
	Tolerance   float64
	Consecutive int
}

// StabilisationCut applies the rule to one series of values in send order.
// Block k holds values [k·W, (k+1)·W); m_k is its median. The first k for
// which the relative changes |m_j − m_{j−1}| / m_{j−1} are below Tolerance
// for every j in k..k+Consecutive−1 marks the stable region, which starts
// at block k−1; everything before it is warm-up. It returns the number of
// leading values to discard and whether the rule held at all.
func StabilisationCut(values []float64, rule WarmupRule) (cut int, stabilised bool) {
	s := newStabiliser(rule)
	for i, v := range values {
		if s.add(v, i) {
			break
		}
	}
	return s.result()
}

// stabiliser applies the rule to a stream of values, one at a time, so a
// run's series need not be stored: it keeps one block and the start
// positions of the last few blocks.
type stabiliser struct {
	rule    WarmupRule
	block   []float64
	sorted  []float64
	starts  []int // start position of recent blocks, a ring of Consecutive+1
	blocks  int   // complete blocks so far
	prev    float64
	streak  int
	done    bool
	cut     int
	invalid bool
}

func newStabiliser(rule WarmupRule) *stabiliser {
	if rule.Window < 1 || rule.Consecutive < 1 {
		return &stabiliser{invalid: true}
	}
	return &stabiliser{
		rule:   rule,
		block:  make([]float64, 0, rule.Window),
		sorted: make([]float64, rule.Window),
		starts: make([]int, rule.Consecutive+1),
	}
}

// add takes the next value, at position pos of the caller's order, and
// reports whether the rule has been decided (further values are ignored).
func (s *stabiliser) add(v float64, pos int) bool {
	if s.done || s.invalid {
		return true
	}
	ring := len(s.starts)
	if len(s.block) == 0 {
		s.starts[s.blocks%ring] = pos
	}
	s.block = append(s.block, v)
	if len(s.block) < s.rule.Window {
		return false
	}
	copy(s.sorted, s.block)
	insertionSort(s.sorted)
	w := s.rule.Window
	m := s.sorted[w/2]
	if w%2 == 0 {
		m = (s.sorted[w/2-1] + s.sorted[w/2]) / 2
	}
	s.block = s.block[:0]
	j := s.blocks
	s.blocks++
	if j == 0 {
		s.prev = m
		return false
	}
	change := math.Inf(1)
	if s.prev != 0 {
		change = math.Abs(m-s.prev) / math.Abs(s.prev)
	} else if m == 0 {
		change = 0
	}
	s.prev = m
	if change < s.rule.Tolerance {
		s.streak++
	} else {
		s.streak = 0
	}
	if s.streak == s.rule.Consecutive {
		// The first stable change compares block j−Consecutive with the
		// next: the stable region starts at block j−Consecutive.
		s.cut = s.starts[(j-s.rule.Consecutive)%ring]
		s.done = true
	}
	return s.done
}

// result returns the position to cut at and whether the rule held.
func (s *stabiliser) result() (int, bool) { return s.cut, s.done }

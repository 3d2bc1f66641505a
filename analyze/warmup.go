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
	w := rule.Window
	if w < 1 || rule.Consecutive < 1 {
		return 0, false
	}
	blocks := len(values) / w
	medians := make([]float64, blocks)
	buf := make([]float64, w)
	for k := range medians {
		copy(buf, values[k*w:(k+1)*w])
		insertionSort(buf)
		if w%2 == 1 {
			medians[k] = buf[w/2]
		} else {
			medians[k] = (buf[w/2-1] + buf[w/2]) / 2
		}
	}
	streak := 0
	for j := 1; j < blocks; j++ {
		prev := medians[j-1]
		change := math.Inf(1)
		if prev != 0 {
			change = math.Abs(medians[j]-prev) / math.Abs(prev)
		} else if medians[j] == 0 {
			change = 0
		}
		if change < rule.Tolerance {
			streak++
		} else {
			streak = 0
		}
		if streak == rule.Consecutive {
			first := j - rule.Consecutive + 1 // first stable change compares block first−1 and first
			return (first - 1) * w, true
		}
	}
	return 0, false
}

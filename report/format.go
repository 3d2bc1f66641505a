package report

import (
	"math"
	"strconv"
	"strings"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/internal/controls"
	"github.com/benchnote/benchnote/internal/textfmt"
)

// A flag marks a figure resting on fewer than 3 runs: text between
// flagOpen and flagClose, two control characters that input text never
// carries into a document (mdEscape, code and the notebook reader escape
// them). report.html styles what is between them; report.md drops them.
// So the styling keys on something only benchnote writes. The warning sign
// itself is the report's: in input text it is written \u26a0 (mdEscape,
// code), so that input such as "⚠ 2 runs" cannot pass for a flag in
// report.md either, where nothing is styled.
const (
	flagOpen  = "\x0e" // shift out
	flagClose = "\x0f" // shift in
)

// warningSign starts the report's own flags and marks; input text never
// carries it into a document.
const warningSign = '⚠'

// fewRunsMark flags an across-run figure resting on fewer than 3 runs.
const fewRunsMark = flagOpen + "⚠ fewer than 3 runs" + flagClose

// na is printed for a figure that is not available.
const na = "n/a"

// maxSigFigs is the most significant figures a number that is not whole
// prints with: the reader wants the figure at a glance, and the fifth
// digit of a latency or a rate is noise.
const maxSigFigs = 4

// fmtNum formats a number as a reader scans it: a whole number as it is
// ("1038", "12345"), any other with at most maxSigFigs significant
// figures, never rounding the integer part ("19.57", "0.2643", "5081"),
// trailing zeros kept, so the same value always prints the same way.
func fmtNum(v analyze.Num) string {
	if !v.Valid() {
		return na
	}
	f := float64(v)
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return roundTo(f, 0)
	}
	return roundTo(f, numDecimals(f))
}

// numDecimals is the number of decimals that leaves f with at most
// maxSigFigs significant figures, and no fewer than 0.
func numDecimals(f float64) int {
	a := math.Abs(f)
	if a == 0 || math.IsInf(a, 0) || math.IsNaN(a) {
		return 0
	}
	dec := maxSigFigs - 1 - int(math.Floor(math.Log10(a)))
	if dec <= 0 {
		return 0
	}
	// Rounding can carry into a new leading digit: 9.9996 is "10.00",
	// not "10.000".
	p := math.Pow(10, float64(dec))
	if math.Round(a*p)/p >= math.Pow(10, float64(maxSigFigs-dec)) {
		dec--
	}
	return dec
}

// roundingRule says in a caption how fmtSpread rounds a cell.
const roundingRule = "both rounded to the decimal place of the MAD's second significant figure, or coarser to keep at most 4 significant figures (a MAD below that place shows as \"± <0.01\")"

// fmtSpread formats "value ± spread" with both rounded to the same
// decimal place: that of the spread's second significant figure, but no
// finer than fmtNum would print the value ("5963 ± 75", "114.7 ± 3.5",
// "99.52 ± 0.03"), so the value shows no more digits than its spread
// supports nor more than maxSigFigs. A spread that rounds to zero at that
// place is written as less than one unit of it ("19.57 ± <0.01"); a zero
// spread leaves the value as fmtNum writes it ("310 ± 0"), and a missing
// one leaves the value alone ("956.4"). A single run has no spread: its
// caller writes fmtNum and says "1 run" (fmtAcross).
func fmtSpread(v, spread analyze.Num) string {
	if !v.Valid() {
		return na
	}
	if !spread.Valid() {
		return fmtNum(v)
	}
	if spread == 0 {
		return fmtNum(v) + " ± 0"
	}
	sp := math.Abs(float64(spread))
	dec := 1 - int(math.Floor(math.Log10(sp)))
	if v != 0 { // zero has no significant figures to cap
		dec = min(dec, numDecimals(float64(v)))
	}
	m := roundTo(sp, dec)
	if strings.Trim(m, "0.") == "" {
		m = "<" + roundTo(math.Pow(10, float64(-dec)), dec)
	}
	return roundTo(float64(v), dec) + " ± " + m
}

// roundTo formats x rounded to dec decimal places; a negative dec rounds
// to tens, hundreds, ... and prints no decimals.
func roundTo(x float64, dec int) string {
	var s string
	if dec >= 0 {
		s = strconv.FormatFloat(x, 'f', dec, 64)
	} else {
		p := math.Pow(10, float64(-dec))
		s = strconv.FormatFloat(math.Round(x/p)*p, 'f', 0, 64)
	}
	if strings.HasPrefix(s, "-") && strings.Trim(s, "-0.") == "" {
		s = s[1:]
	}
	return s
}

// fmtAcross formats an across-runs statistic as "median ± MAD", rounded
// to the spread (fmtSpread), with a % sign for a percentage. The caption
// of its table says what the cells are and its runs column how many
// usable runs each level has (runs); a cell shows its own number of runs
// only when it differs, flagged when fewer than 3. A figure from one run
// has no spread and shows none ("956.4", or "956.4 (1 run)" where the
// level has more), never "± 0".
func fmtAcross(ar analyze.AcrossRuns, runs int) string {
	if ar.Runs == 0 || !ar.Median.Valid() {
		return na
	}
	var s string
	if ar.Runs == 1 {
		s = fmtNum(ar.Median)
	} else {
		s = fmtSpread(ar.Median, ar.MAD)
	}
	if ar.Unit == "%" {
		s += " %"
	}
	if ar.Runs != runs {
		n := textfmt.Count(ar.Runs, "run", "runs")
		if ar.FewRuns {
			n = flagOpen + "⚠ " + n + flagClose
		}
		s += " (" + n + ")"
	}
	return s
}

// mdEscape makes a string from the inputs (file names, environment values,
// error texts) safe to place in Markdown: it cannot open markup, links,
// HTML or break a table cell; control characters show as Go escapes
// (\x00, \x1b); and it cannot become a link through GitHub's or goldmark's
// autolinking: the ':' of "://", the '.' of "www." and every '@' are
// backslash-escaped, which renders them unchanged but breaks the pattern.
func mdEscape(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' {
			return ' '
		}
		return r
	}, s)
	s = controls.Escape(s)
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == warningSign:
			b.WriteString(`\u26a0`)
		case strings.ContainsRune("\\`*_[]<>|~@", r),
			r == ':' && strings.HasPrefix(s[i:], "://"),
			r == '.' && i >= 3 && strings.EqualFold(s[i-3:i], "www"):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '&':
			b.WriteString("&amp;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// code wraps an input string as inline code, safely.
func code(s string) string {
	s = controls.Escape(strings.NewReplacer("\n", " ", "\r", " ", string(warningSign), `\u26a0`).Replace(s))
	s = strings.ReplaceAll(s, "|", "\\|")
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return fence + pad + s + pad + fence
}

// table renders a GitHub-flavoured Markdown table.
func table(header []string, rows [][]string) string {
	var b strings.Builder
	b.WriteString("| " + strings.Join(header, " | ") + " |\n")
	seps := make([]string, len(header))
	for i := range seps {
		seps[i] = "---"
	}
	b.WriteString("| " + strings.Join(seps, " | ") + " |\n")
	for _, r := range rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	return b.String()
}

package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/internal/controls"
)

// A flag marks a figure resting on fewer than 3 runs: text between
// flagOpen and flagClose, two control characters that input text never
// carries into a document (mdEscape, code and the notebook reader escape
// them). report.html styles what is between them; report.md drops them.
// So the styling keys on something only benchnote writes, and input text
// such as "⚠ 2 runs" is shown as it is.
const (
	flagOpen  = "\x0e" // shift out
	flagClose = "\x0f" // shift in
)

// fewRunsMark flags an across-run figure resting on fewer than 3 runs.
const fewRunsMark = flagOpen + "⚠ fewer than 3 runs" + flagClose

// na is printed for a figure that is not available.
const na = "n/a"

// fmtNum formats a number with a precision fixed by its magnitude, so the
// same value always prints the same way.
func fmtNum(v analyze.Num) string {
	if !v.Valid() {
		return na
	}
	f := float64(v)
	a := math.Abs(f)
	var s string
	switch {
	case f == math.Trunc(f) && a < 1e15:
		s = strconv.FormatFloat(f, 'f', 0, 64)
	case a >= 1000:
		s = strconv.FormatFloat(f, 'f', 0, 64)
	case a >= 100:
		s = strconv.FormatFloat(f, 'f', 1, 64)
	case a >= 10:
		s = strconv.FormatFloat(f, 'f', 2, 64)
	default:
		s = strconv.FormatFloat(f, 'f', 3, 64)
	}
	if s == "-0" || strings.Trim(s, "-0.") == "" && strings.HasPrefix(s, "-") {
		s = strings.TrimPrefix(s, "-")
	}
	return s
}

// fmtInt formats a count with thousands separators.
func fmtInt(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// fmtAcross formats an across-runs statistic as "median ± MAD (n runs)".
// A figure resting on fewer than 3 runs shows its run count flagged.
func fmtAcross(ar analyze.AcrossRuns) string {
	if ar.Runs == 0 || !ar.Median.Valid() {
		return na
	}
	runs := fmt.Sprintf("%d %s", ar.Runs, plural(ar.Runs, "run", "runs"))
	if ar.FewRuns {
		runs = flagOpen + "⚠ " + runs + flagClose
	}
	return fmt.Sprintf("%s ± %s (%s)", fmtNum(ar.Median), fmtNum(ar.MAD), runs)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
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
	s = controls.Escape(strings.NewReplacer("\n", " ", "\r", " ").Replace(s))
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

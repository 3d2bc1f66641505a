package analyze

import (
	"regexp"
	"sort"
	"strings"

	"github.com/benchnote/benchnote/internal/textfmt"
)

// Error classes group request errors whose texts differ only in the
// numbers and ids they carry ("Output too few tokens 100" and "… 101"), so
// that an exclusion table has one row per kind of failure, not one per
// request.
//
// The line a class is taken from is the last non-blank line of a Python
// traceback (the exception and its message) and the first non-blank line
// of any other text. In it:
//
//   - a UUID, a 0x… hexadecimal number, a run of 8 or more hexadecimal
//     digits holding a digit, and a word of 8 or more letters and digits
//     holding at least 3 digits ("req-8f3a9c21", "chatcmpl-abc123xyz")
//     become <id>;
//   - every other number becomes <n>, except a three-digit number right
//     after "HTTP", "status" or "code" (an HTTP status tells failures apart);
//   - runs of white space become one space, and the class is cut to
//     maxClassRunes characters.

const (
	// maxClassRunes bounds an error class's text: long enough to hold an
	// exception's name and message, which tell classes apart.
	maxClassRunes = 200
	// maxErrorExampleRunes bounds each example of a class.
	maxErrorExampleRunes = 300
	// maxErrorExamples is how many distinct examples a class keeps.
	maxErrorExamples = 3
	// maxClassMemo bounds the memo of texts already classified, and
	// maxMemoTextBytes the texts it keeps (a few MiB at most).
	maxClassMemo     = 1024
	maxMemoTextBytes = 4096
)

var (
	idPattern = regexp.MustCompile(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b|\b0x[0-9a-f]+\b|[A-Za-z0-9_-]{8,}`)
	// statusPattern finds a three-digit status after HTTP, status or code.
	statusPattern = regexp.MustCompile(`(?i)\b(?:http|status|code)\b[\s:=]*[1-5][0-9][0-9]\b`)
	numberPattern = regexp.MustCompile(`[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?`)
	spacePattern  = regexp.MustCompile(`\s+`)
	hexDigits     = regexp.MustCompile(`^[0-9a-fA-F]+$`)
)

// errorLine picks the line of an error text that names the failure: a
// traceback's last non-blank line, otherwise the first non-blank one.
func errorLine(text string) string {
	lines := strings.FieldsFunc(text, func(r rune) bool { return r == '\n' || r == '\r' })
	var kept []string
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			kept = append(kept, l)
		}
	}
	if len(kept) == 0 {
		return ""
	}
	if strings.HasPrefix(kept[0], "Traceback (most recent call last)") {
		return kept[len(kept)-1]
	}
	return kept[0]
}

// isID reports whether a word matched by idPattern is an id.
func isID(w string) bool {
	if strings.Count(w, "-") == 4 && len(w) == 36 || strings.HasPrefix(strings.ToLower(w), "0x") {
		return true
	}
	digits, letters := 0, 0
	for _, r := range w {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			letters++
		}
	}
	if hexDigits.MatchString(w) && digits > 0 {
		return true
	}
	return digits >= 3 && letters > 0
}

// errorClassOf returns the class of an error text and the line it came
// from, cut to maxErrorExampleRunes.
func errorClassOf(text string) (class, line string) {
	line = errorLine(text)
	if line == "" {
		return "(empty error text)", ""
	}
	s := idPattern.ReplaceAllStringFunc(line, func(w string) string {
		if isID(w) {
			return "\x00id\x00"
		}
		return w
	})
	// Protect HTTP statuses from the number rule.
	var statuses []string
	s = statusPattern.ReplaceAllStringFunc(s, func(m string) string {
		statuses = append(statuses, m)
		return "\x01"
	})
	s = numberPattern.ReplaceAllString(s, "<n>")
	for _, st := range statuses {
		s = strings.Replace(s, "\x01", st, 1)
	}
	s = strings.ReplaceAll(s, "\x00id\x00", "<id>")
	s = spacePattern.ReplaceAllString(s, " ")
	return textfmt.Clip(s, maxClassRunes), textfmt.Clip(line, maxErrorExampleRunes)
}

// errorClasses counts a run's request errors by class.
type errorClasses struct {
	byClass map[string]*ErrorClass
	// memo maps error texts already seen to their class and line, so a
	// run where every request fails the same way classifies one text.
	memo map[string][2]string
}

func newErrorClasses() *errorClasses {
	return &errorClasses{byClass: map[string]*ErrorClass{}, memo: map[string][2]string{}}
}

// add counts one error text.
func (e *errorClasses) add(text string) {
	cl, ok := e.memo[text]
	if !ok {
		c, l := errorClassOf(text)
		cl = [2]string{c, l}
		if len(e.memo) < maxClassMemo && len(text) <= maxMemoTextBytes {
			e.memo[text] = cl
		}
	}
	c, ok := e.byClass[cl[0]]
	if !ok {
		c = &ErrorClass{Class: cl[0], Examples: []string{}}
		e.byClass[cl[0]] = c
	}
	c.Count++
	if len(c.Examples) < maxErrorExamples && cl[1] != "" {
		for _, x := range c.Examples {
			if x == cl[1] {
				return
			}
		}
		c.Examples = append(c.Examples, cl[1])
	}
}

// list returns the classes, largest first, then by class.
func (e *errorClasses) list() []ErrorClass {
	out := make([]ErrorClass, 0, len(e.byClass))
	for _, c := range e.byClass {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Class < out[j].Class
	})
	return out
}

// errorExample is an exclusion's example for an error class: the run and
// the class's first text as written.
func errorExample(dir string, e ErrorClass) string {
	if len(e.Examples) == 0 {
		return dir
	}
	return dir + ": " + e.Examples[0]
}

package report

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/benchnote/benchnote/internal/controls"
	"github.com/benchnote/benchnote/internal/suggest"
)

// A notebook is Markdown prose with cells that benchnote evaluates:
//
//	{{table ttft}}            a block cell: alone on its line
//	p95 TTFT was {{value ttft.p95 c=8}} at concurrency 8.   an inline cell
//
// Cells inside fenced code blocks are left alone, so a notebook can show
// the syntax. Every mistake — an unknown cell, table, plot, metric, count
// or level, a cell opened with {{ and not closed on its line, an empty
// notebook — is an error naming the notebook line and column, with a
// suggestion when a known name is close; all of them are reported at
// once.

var cellPattern = regexp.MustCompile(`\{\{\s*(.*?)\s*\}\}`)

// cellError is a notebook error at a line and column.
type cellError struct {
	name         string
	line, column int
	msg          string
}

func (e *cellError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.name, e.line, e.column, e.msg)
}

// NotebookError lists every error found in a notebook, in line order: one
// "file:line:column: message" line each.
type NotebookError struct {
	Problems []error
}

func (e *NotebookError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

// maxNotebookErrors bounds how many errors one notebook reports.
const maxNotebookErrors = 50

// target says which output a notebook is rendered for: plots become image
// links in Markdown and inline figures in HTML; full labels of short
// figures become footnotes in Markdown and tooltips in HTML.
type target int

const (
	targetMarkdown target = iota
	targetHTML
)

// render is the state of one rendering of a notebook.
type render struct {
	ctx *cellContext
	tgt target
	// short is set by {{labels short}}: inline figures show the number
	// and unit, their full label goes to a footnote or a tooltip.
	short bool
	// footnotes are the Markdown footnotes' texts, numbered from 1.
	footnotes []string
	footIndex map[string]int
}

// label attaches a figure's full label as the target does: a footnote
// reference in Markdown, a tooltip in HTML.
func (r *render) label(text, label string) string {
	if r.tgt == targetHTML {
		return tipOpen + label + tipMid + text + tipClose
	}
	n, ok := r.footIndex[label]
	if !ok {
		r.footnotes = append(r.footnotes, label)
		n = len(r.footnotes)
		r.footIndex[label] = n
	}
	return fmt.Sprintf("%s[^v%d]", text, n)
}

// renderNotebook evaluates every cell of the notebook and returns Markdown.
func renderNotebook(nb []byte, name string, ctx *cellContext, tgt target) ([]byte, error) {
	if len(bytes.TrimSpace(nb)) == 0 {
		return nil, &NotebookError{[]error{fmt.Errorf("%s:1:1: the notebook is empty: nothing to render (write prose and cells such as {{headline}} or {{table headline}})", name)}}
	}
	r := &render{ctx: ctx, tgt: tgt, footIndex: map[string]int{}}
	var out bytes.Buffer
	var problems []error
	fail := func(line, col int, msg string) {
		if len(problems) < maxNotebookErrors {
			problems = append(problems, &cellError{name, line, col, msg})
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(nb))
	sc.Buffer(make([]byte, 1024*1024), 16*1024*1024)
	line := 0
	fence := ""
	swallowBlank := false
	for sc.Scan() {
		line++
		// The notebook is input too: no control character reaches a report.
		text := controls.EscapeText(sc.Text())
		trimmed := strings.TrimSpace(text)
		if swallowBlank {
			swallowBlank = false
			if trimmed == "" {
				continue
			}
		}
		if f := fenceMarker(trimmed); f != "" {
			switch {
			case fence == "":
				fence = f
			case strings.HasPrefix(trimmed, fence) && strings.TrimLeft(trimmed, fence[:1]) == "":
				fence = ""
			}
			out.WriteString(text + "\n")
			continue
		}
		if fence != "" {
			out.WriteString(text + "\n")
			continue
		}
		if m := cellPattern.FindStringSubmatchIndex(trimmed); m != nil && m[0] == 0 && m[1] == len(trimmed) {
			args := strings.Fields(trimmed[m[2]:m[3]])
			if len(args) > 0 && isBlockCell(args[0]) {
				col := column(text, strings.Index(text, "{{"))
				md, err := r.block(args)
				if err != nil {
					fail(line, col, err.Error())
					continue
				}
				if md == "" {
					// A cell with nothing to show (no import in the
					// sweep) leaves no trace: its line and the blank
					// line after it go.
					swallowBlank = true
					continue
				}
				out.WriteString(md)
				if !strings.HasSuffix(md, "\n") {
					out.WriteString("\n")
				}
				continue
			}
		}
		var b strings.Builder
		last := 0
		for _, m := range cellPattern.FindAllStringSubmatchIndex(text, -1) {
			before := text[last:m[0]]
			if i := strings.Index(before, "{{"); i >= 0 {
				fail(line, column(text, last+i), unclosed(text[last+i:m[0]]))
			}
			b.WriteString(before)
			s, err := r.inline(strings.Fields(text[m[2]:m[3]]))
			if err != nil {
				fail(line, column(text, m[0]), err.Error())
				s = text[m[0]:m[1]]
			}
			b.WriteString(s)
			last = m[1]
		}
		if i := strings.Index(text[last:], "{{"); i >= 0 {
			fail(line, column(text, last+i), unclosed(text[last+i:]))
		}
		b.WriteString(text[last:])
		out.WriteString(b.String() + "\n")
	}
	if err := sc.Err(); err != nil {
		problems = append(problems, fmt.Errorf("%s:%d: %w", name, line, err))
	}
	if len(problems) > 0 {
		return nil, &NotebookError{problems}
	}
	if len(r.footnotes) > 0 {
		out.WriteString("\n")
		for i, f := range r.footnotes {
			fmt.Fprintf(&out, "[^v%d]: %s\n", i+1, f)
		}
	}
	return out.Bytes(), nil
}

// column is the 1-based column, in characters, of byte offset i of line.
func column(line string, i int) int {
	if i < 0 {
		i = 0
	}
	return utf8.RuneCountInString(line[:i]) + 1
}

// unclosed describes a cell opened with {{ and not closed on its line.
func unclosed(rest string) string {
	return fmt.Sprintf("unclosed cell %q: a cell opened with {{ must close with }} on the same line", cutRunes(rest, 40))
}

// cutRunes shortens s to at most n runes, ending it with "…" when cut,
// without converting the whole of s to runes (a summary's title may be
// tens of megabytes).
func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	end := 0
	for k := 0; k < n-1; k++ {
		_, size := utf8.DecodeRuneInString(s[end:])
		end += size
	}
	return s[:end] + "…"
}

// fenceMarker returns the fence (``` or ~~~ run) a line opens or closes with.
func fenceMarker(line string) string {
	for _, c := range []string{"`", "~"} {
		if strings.HasPrefix(line, c+c+c) {
			n := len(line) - len(strings.TrimLeft(line, c))
			return strings.Repeat(c, n)
		}
	}
	return ""
}

// blockCells are the cells that stand alone on a line.
var blockCells = map[string]string{
	"headline":    "the answer: environment, the highest load meeting the SLOs, which SLOs and where they came from",
	"quality":     "the data-quality box: every error and warning finding",
	"table":       "a table: table NAME",
	"plot":        "a chart: plot NAME",
	"exclusions":  "everything excluded, grouped by reason, and the accounting of every input row",
	"findings":    "the lint findings",
	"alerts":      "the data-quality box (the older name of quality)",
	"environment": "the environment's canonical fields, sources and differences between runs",
	"method":      "the percentile, MAD, warm-up and SLO settings",
	"notes":       "the fixed statements about what is never joined or combined",
	"imports":     "where imported runs came from: recomputed, as reported, unavailable, token counts, definitions, the tools' own figures (nothing for a sweep with no import)",
	"labels":      "labels short or labels full: how the inline figures after it are labelled",
}

// inlineCells are the cells that stand inside a sentence.
var inlineCells = map[string]string{
	"value":  "value KEY [c=N|rate=R|level=min|level=max] [short|full]: median ± MAD across runs, labelled",
	"pooled": "pooled METRIC.STAT [c=N|rate=R|level=min|level=max] [short|full]: a pooled percentile, labelled",
	"count":  "count FIELD [c=N|rate=R|level=min|level=max]: a request count",
	"title":  "the sweep title",
	"levels": "the load levels (concurrency levels as numbers, rates as 16 req/s)",
	"load":   "what the levels are: concurrency, request rate, or load when a sweep mixes both",
	"runs":   "the number of runs",
}

// cellSynonyms are names people reach for, and the cell they mean.
var cellSynonyms = map[string]string{
	"chart": "plot", "figure": "plot", "graph": "plot", "image": "plot",
	"tbl": "table", "stat": "value", "metric": "value", "percentile": "pooled",
	"summary": "headline", "answer": "headline", "alarms": "quality", "warnings": "quality",
	"env": "environment", "exclusion": "exclusions", "finding": "findings", "lint": "findings",
}

func isBlockCell(name string) bool { _, ok := blockCells[name]; return ok }

func cellNames() []string {
	var names []string
	for k := range blockCells {
		names = append(names, k)
	}
	for k := range inlineCells {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

func knownCells() string { return strings.Join(cellNames(), ", ") }

// didYouMean suggests the known name a mistyped one probably means: a
// synonym, the names it is the prefix of ("latency" → "latency-ttft"), or
// a close spelling. "" when none is close.
func didYouMean(name string, known []string, synonyms map[string]string) string {
	if s, ok := synonyms[strings.ToLower(name)]; ok {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	if p := suggest.Prefixed(name, known); len(p) > 0 {
		quoted := make([]string, len(p))
		for i, x := range p {
			quoted[i] = fmt.Sprintf("%q", x)
		}
		if len(quoted) == 1 {
			return " (did you mean " + quoted[0] + "?)"
		}
		return " (did you mean one of " + strings.Join(quoted, ", ") + "?)"
	}
	if s := suggest.Closest(name, known); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}

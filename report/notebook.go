package report

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/benchnote/benchnote/internal/controls"
	"github.com/benchnote/benchnote/internal/suggest"
	"github.com/benchnote/benchnote/internal/textfmt"
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
// once. A notebook given by the user is also bounded: see limits.go.

var cellPattern = regexp.MustCompile(`\{\{\s*(.*?)\s*\}\}`)

// cellError is a notebook error at a line and column (no column when 0),
// and how many more times the same message was found after it.
type cellError struct {
	name         string
	line, column int
	msg          string
	repeats      int
}

func (e *cellError) Error() string {
	s := fmt.Sprintf("%s:%d:%d: %s", e.name, e.line, e.column, e.msg)
	if e.column == 0 {
		s = fmt.Sprintf("%s:%d: %s", e.name, e.line, e.msg)
	}
	if e.repeats > 0 {
		s += fmt.Sprintf(" (repeated %s more %s)", textfmt.Thousands(e.repeats), textfmt.Plural(e.repeats, "time", "times"))
	}
	return s
}

// NotebookError lists every error found in a notebook, in line order: one
// "file:line:column: message" line each. The same message found again is
// listed once, with the number of repeats; after maxNotebookErrors
// different messages the rest are counted on a last line.
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

// Unwrap returns the problems, so that errors.Is and errors.As see each
// and a command can print one line per problem.
func (e *NotebookError) Unwrap() []error { return e.Problems }

// maxNotebookErrors bounds how many different errors one notebook lists.
const maxNotebookErrors = 50

// problems collects a notebook's errors: each message once, the first
// maxNotebookErrors of them, and a count of the rest. Adding one costs
// the same whatever came before, so diagnosing a notebook takes time in
// proportion to its size.
type problems struct {
	name  string
	list  []*cellError
	index map[string]*cellError
	more  int
}

func newProblems(name string) *problems {
	return &problems{name: name, index: map[string]*cellError{}}
}

// add records an error at a line and column (0: none).
func (p *problems) add(line, col int, msg string) {
	if e, ok := p.index[msg]; ok {
		e.repeats++
		return
	}
	if len(p.list) >= maxNotebookErrors {
		p.more++
		return
	}
	e := &cellError{name: p.name, line: line, column: col, msg: msg}
	p.list = append(p.list, e)
	p.index[msg] = e
}

// fatal returns the errors with a last one that stopped the rendering.
func (p *problems) fatal(line, col int, msg string) error {
	err := p.err()
	ne, _ := err.(*NotebookError)
	if ne == nil {
		ne = &NotebookError{}
	}
	ne.Problems = append(ne.Problems, &cellError{name: p.name, line: line, column: col, msg: msg})
	return ne
}

// err returns the errors as a *NotebookError, or nil when there is none.
func (p *problems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	errs := make([]error, 0, len(p.list)+1)
	for _, e := range p.list {
		errs = append(errs, e)
	}
	if p.more > 0 {
		errs = append(errs, fmt.Errorf("%s: and %s more %s", p.name, textfmt.Thousands(p.more), textfmt.Plural(p.more, "error", "errors")))
	}
	return &NotebookError{errs}
}

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
	// figureBytes are the bytes of the figures report.html inlines in
	// place of the plot cells' tokens.
	figureBytes int
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

// nextLine cuts the first line off data as bufio.ScanLines does (a final
// line needs no newline; a carriage return before the newline is
// dropped), with no limit on its length.
func nextLine(data []byte) (line, rest []byte) {
	i := bytes.IndexByte(data, '\n')
	if i < 0 {
		line, rest = data, nil
	} else {
		line, rest = data[:i], data[i+1:]
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, rest
}

// columns turns byte offsets of one line, asked in increasing order, into
// 1-based columns in characters, counting each character once.
type columns struct {
	line     string
	off, col int
}

func (c *columns) at(i int) int {
	if i < c.off {
		return column(c.line, i)
	}
	c.col += utf8.RuneCountInString(c.line[c.off:i])
	c.off = i
	return c.col + 1
}

// renderNotebook evaluates every cell of the notebook and returns Markdown.
// With ctx.limits, the notebook's size, its cells, what they render and,
// for report.html, the Markdown goldmark will parse (markdownGuard) are
// bounded.
func renderNotebook(nb []byte, name string, ctx *cellContext, tgt target) ([]byte, error) {
	if len(bytes.TrimSpace(nb)) == 0 {
		return nil, &NotebookError{[]error{fmt.Errorf("%s:1:1: the notebook is empty: nothing to render (write prose and cells such as {{headline}} or {{table headline}})", name)}}
	}
	lim := ctx.limits
	if lim.bounded() {
		if err := checkNotebookSize(nb, name, lim.bytes); err != nil {
			return nil, err
		}
	}
	w := &notebookWriter{
		r:     &render{ctx: ctx, tgt: tgt, footIndex: map[string]int{}},
		probs: newProblems(name),
		lim:   lim,
		tgt:   tgt,
	}
	// The guard checks the Markdown goldmark will render, written by the
	// notebook for report.html.
	if lim.bounded() && tgt == targetHTML {
		w.guard = newMarkdownGuard(lim)
	}
	for rest := nb; len(rest) > 0; {
		var raw []byte
		raw, rest = nextLine(rest)
		if err := w.writeLine(raw); err != nil {
			return nil, err
		}
	}
	return w.finish(name)
}

// notebookWriter renders a notebook line by line into Markdown, counting
// its cells and the output against the limits, and collecting the
// problems of its cells.
type notebookWriter struct {
	r     *render
	out   bytes.Buffer
	probs *problems
	lim   *notebookLimits
	tgt   target
	guard *markdownGuard // nil unless bounded and for report.html

	cells, blockCells int
	line              int    // the current line, from 1
	fence             string // the open code fence's marker, or ""
	swallowBlank      bool   // the next line goes if blank
}

// writeLine renders the next line: a code fence or a line inside one as
// it is, a line that is one block cell as that cell's Markdown, any other
// line with its inline cells evaluated. No control character of the
// notebook reaches a report.
func (w *notebookWriter) writeLine(raw []byte) error {
	w.line++
	text := controls.EscapeText(string(raw))
	trimmed := strings.TrimSpace(text)
	if w.swallowBlank {
		w.swallowBlank = false
		if trimmed == "" {
			return nil
		}
	}
	if f := fenceMarker(trimmed); f != "" {
		switch {
		case w.fence == "":
			w.fence = f
		case strings.HasPrefix(trimmed, w.fence) && strings.TrimLeft(trimmed, w.fence[:1]) == "":
			w.fence = ""
		}
		return w.emit(text+"\n", false, 0)
	}
	if w.fence != "" {
		return w.emit(text+"\n", false, 0)
	}
	if m := cellPattern.FindStringSubmatchIndex(trimmed); m != nil && m[0] == 0 && m[1] == len(trimmed) {
		if args := strings.Fields(trimmed[m[2]:m[3]]); len(args) > 0 && isBlockCell(args[0]) {
			return w.blockCell(text, args)
		}
	}
	return w.inlineLine(text)
}

// blockCell renders a line that is one block cell. A cell with nothing
// to show (no import in the sweep) leaves no trace: its line and the
// blank line after it go.
func (w *notebookWriter) blockCell(text string, args []string) error {
	col := column(text, strings.Index(text, "{{"))
	if msg := w.tooMany(true); msg != "" {
		return w.probs.fatal(w.line, col, msg)
	}
	md, err := w.r.block(args)
	if err != nil {
		w.probs.add(w.line, col, err.Error())
		return nil
	}
	if md == "" {
		w.swallowBlank = true
		return nil
	}
	if !strings.HasSuffix(md, "\n") {
		md += "\n"
	}
	return w.emit(md, true, col)
}

// inlineLine renders a line of prose with its inline cells evaluated; a
// cell that fails stays as written, and its problem is noted.
func (w *notebookWriter) inlineLine(text string) error {
	var b strings.Builder
	last := 0
	cols := columns{line: text}
	for _, m := range cellPattern.FindAllStringSubmatchIndex(text, -1) {
		before := text[last:m[0]]
		if i := strings.Index(before, "{{"); i >= 0 {
			w.probs.add(w.line, cols.at(last+i), unclosed(text[last+i:m[0]]))
		}
		b.WriteString(before)
		col := cols.at(m[0])
		if msg := w.tooMany(false); msg != "" {
			return w.probs.fatal(w.line, col, msg)
		}
		s, err := w.r.inline(strings.Fields(text[m[2]:m[3]]))
		if err != nil {
			w.probs.add(w.line, col, err.Error())
			s = text[m[0]:m[1]]
		}
		b.WriteString(s)
		last = m[1]
		if w.lim.bounded() && w.out.Len()+b.Len() > w.lim.markdownBytes {
			return w.probs.fatal(w.line, col, fmt.Sprintf("the report passes %s of Markdown in this cell, the limit for a report rendered from a notebook", fmtBytes(w.lim.markdownBytes)))
		}
	}
	if i := strings.Index(text[last:], "{{"); i >= 0 {
		w.probs.add(w.line, cols.at(last+i), unclosed(text[last+i:]))
	}
	b.WriteString(text[last:])
	return w.emit(b.String()+"\n", false, 0)
}

// emit writes lines of Markdown for the current line, by a cell or not,
// and fails, at column col, when the output has grown too large.
func (w *notebookWriter) emit(s string, cell bool, col int) error {
	w.out.WriteString(s)
	if w.guard != nil {
		w.guard.text(s, w.line, cell)
	}
	if msg := w.tooLarge(); msg != "" {
		return w.probs.fatal(w.line, col, msg)
	}
	return nil
}

// tooMany counts a cell and says why it is one too many, or "".
func (w *notebookWriter) tooMany(block bool) string {
	w.cells++
	if block {
		w.blockCells++
	}
	switch {
	case !w.lim.bounded():
	case w.cells > w.lim.cells:
		return fmt.Sprintf("cell %s: a notebook holds at most %s cells", textfmt.Thousands(w.cells), textfmt.Thousands(w.lim.cells))
	case block && w.blockCells > w.lim.blockCells:
		return fmt.Sprintf("block cell %s: a notebook holds at most %s block cells ({{table}}, {{plot}}, {{headline}}, ...)", textfmt.Thousands(w.blockCells), textfmt.Thousands(w.lim.blockCells))
	}
	return ""
}

// tooLarge says why the output is too large after a line, or "".
func (w *notebookWriter) tooLarge() string {
	switch {
	case !w.lim.bounded():
	case w.out.Len() > w.lim.markdownBytes:
		return fmt.Sprintf("the report passes %s of Markdown on this line, the limit for a report rendered from a notebook", fmtBytes(w.lim.markdownBytes))
	case w.tgt == targetHTML && w.out.Len()+w.r.figureBytes > w.lim.html:
		return fmt.Sprintf("report.html passes %s on this line (its figures inlined), the limit for a report rendered from a notebook", fmtBytes(w.lim.html))
	}
	return ""
}

// finish reports the cells' problems and the guard's, or appends the
// footnotes and returns the Markdown.
func (w *notebookWriter) finish(name string) ([]byte, error) {
	if err := w.probs.err(); err != nil {
		return nil, err
	}
	if w.guard != nil {
		if err := w.guard.err(name); err != nil {
			return nil, err
		}
	}
	if len(w.r.footnotes) > 0 {
		w.out.WriteString("\n")
		for i, f := range w.r.footnotes {
			fmt.Fprintf(&w.out, "[^v%d]: %s\n", i+1, f)
		}
		if msg := w.tooLarge(); msg != "" {
			return nil, w.probs.fatal(w.line, 0, msg+" (its footnotes)")
		}
	}
	return w.out.Bytes(), nil
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
	return fmt.Sprintf("unclosed cell %q: a cell opened with {{ must close with }} on the same line", textfmt.Clip(rest, 40))
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
	"table":       "a table: table NAME [series=LABEL=VALUE[,LABEL=VALUE]]",
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
	"value":  "value KEY [series=LABEL=VALUE[,LABEL=VALUE]] [c=N|rate=R|level=min|level=max] [short|full]: median ± MAD across runs, labelled ({{KEY ...}} for short)",
	"pooled": "pooled METRIC.STAT [series=LABEL=VALUE[,LABEL=VALUE]] [c=N|rate=R|level=min|level=max] [short|full]: a pooled percentile, labelled",
	"count":  "count FIELD [series=LABEL=VALUE[,LABEL=VALUE]] [c=N|rate=R|level=min|level=max]: a request count",
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

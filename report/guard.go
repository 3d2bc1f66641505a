package report

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/benchnote/benchnote/internal/textfmt"
)

// goldmark, which renders report.html, has no limits of its own, and some
// Markdown costs it time growing with the square of its size (measured on
// v1.8.7): a line nesting lists or block quotes n deep costs n² (3,000
// levels: over a minute); a run of "[a](" scans the rest of its line for
// each opener (200 KB: 20 s), and emphasis marks, code spans and brackets
// in one paragraph cost up to marks × bytes of the paragraph; a table row
// is laid out as wide as its table's delimiter row (|---|---|) whatever its
// own width, so a 14 KB table can take a gigabyte. A markdownGuard bounds each of these
// before goldmark runs, line by line, on the Markdown goldmark will parse
// (a notebook given by the user, its cells evaluated), naming the notebook
// line each problem comes from.
//
// Every bound is an upper bound of what goldmark does, computed in one
// pass without parsing Markdown: it may refuse Markdown goldmark would
// have rendered cheaply, never the other way round.
//   - Nesting: a line's depth is at most its block-quote markers (>), its
//     list markers (-, +, * or 1. followed by a space) and one level for
//     every 2 columns of indentation before a marker (a list item's
//     content is indented at least 2 columns). A line with no marker opens
//     no container. At most notebookLimits.nesting.
//   - Table cells: every line the notebook writes after a line that could
//     be a table's delimiter row (|---|:--:|), up to the next blank line,
//     counts as many cells as the widest such row, and a delimiter row the
//     notebook writes counts its own and its header's. A line a cell
//     writes counts only under a delimiter row the notebook wrote: the
//     tables cells render are as wide as their own rows, so their cells
//     are bounded by the size of the report. At most
//     notebookLimits.tableCells in a notebook.
//   - Inline work: a paragraph is a run of lines up to a blank line (or a
//     line of only >) or a line starting a list item, except that each row
//     of a table goldmark would make counts on its own, as goldmark parses
//     its cells one by one. Its cost is its bytes times its marks: each [,
//     ] and <, and each run of *, _, ~ or `, unless escaped with a
//     backslash (see paragraph.work for what cells write). Summed over the
//     notebook, at most notebookLimits.inlineWork.
type markdownGuard struct {
	lim *notebookLimits
	// nesting
	deepLine, deepest, deepLines int
	// table cells
	cells int64
	// tableCols is the widest delimiter row since the last blank line,
	// userCols the widest the notebook wrote.
	tableCols, userCols int
	wideLine, wideCols  int
	// inline work
	para, worst paragraph
	work        int64
}

func newMarkdownGuard(lim *notebookLimits) *markdownGuard {
	return &markdownGuard{lim: lim}
}

// text checks lines of Markdown (each ending with a newline) written for
// notebook line src, by a cell or not.
func (g *markdownGuard) text(s string, src int, cell bool) {
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			i = len(s)
		}
		g.line(s[:i], src, cell)
		s = s[min(i+1, len(s)):]
	}
}

// line checks one line.
func (g *markdownGuard) line(raw string, src int, cell bool) {
	depth, quotesOnly, content, newItem := containerPrefix(raw)
	if depth > g.lim.nesting {
		g.deepLines++
		if g.deepLines == 1 {
			g.deepLine, g.deepest = src, depth
		}
	}
	if isBlank(raw) || quotesOnly {
		g.end()
		g.tableCols, g.userCols = 0, 0
		return
	}
	cols := max(len(delimiterRow(content)), len(delimiterRow(raw)))
	if cols > 0 {
		g.tableCols = max(g.tableCols, cols)
		if !cell {
			g.userCols = max(g.userCols, cols)
			g.cells += 2 * int64(cols) // the row and its header
		}
	} else if !cell {
		g.cells += int64(g.tableCols)
	} else {
		g.cells += int64(g.userCols)
	}
	if g.wideLine == 0 && g.cells > int64(g.lim.tableCells) {
		g.wideLine, g.wideCols = src, g.tableCols
	}
	// A table goldmark makes parses its rows one by one.
	switch p := &g.para; {
	case p.inTable && startsWithPipe(raw):
		g.end()
		p.inTable, p.noTable = true, true
	case p.inTable:
		g.end()
		p.noTable = true
	case newItem:
		g.end()
	case !p.noTable && p.lines >= 1 && cols > 0:
		// The first possible delimiter row of a paragraph decides, as in
		// goldmark: a table when its header has no more cells than it has
		// columns, and when both start with |, so that they are in one
		// paragraph.
		if al := delimiterRow(raw); al != nil && startsWithPipe(raw) && p.lastPipe && p.lastCells <= len(al) {
			g.end()
			p.inTable = true
		}
		p.noTable = true
	}
	g.para.add(raw, src, cell)
}

// end closes the paragraph.
func (g *markdownGuard) end() {
	if w := g.para.work(); w > 0 {
		g.work += w
		if w > g.worst.work() {
			g.worst = g.para
		}
	}
	g.para = paragraph{}
}

// err ends the checks and returns their problems, naming the notebook name.
func (g *markdownGuard) err(name string) error {
	g.end()
	probs := newProblems(name)
	lim := g.lim
	if g.deepLines > 0 {
		probs.add(g.deepLine, 0, fmt.Sprintf("lists and block quotes nested %s levels deep (%s %s): benchnote renders at most %d levels, as the time to render a line grows with the square of its depth (a level is a >, a list marker, or 2 columns of indentation before a marker)",
			textfmt.Thousands(g.deepest), textfmt.Thousands(g.deepLines), textfmt.Plural(g.deepLines, "line", "lines"), lim.nesting))
	}
	if g.wideLine > 0 {
		probs.add(g.wideLine, 0, fmt.Sprintf("the notebook's tables pass %s cells on this line (%s %s; every row is laid out as wide as its table's delimiter row, up to the next blank line), the limit for a notebook",
			textfmt.Thousands(lim.tableCells), textfmt.Thousands(g.wideCols), textfmt.Plural(g.wideCols, "column", "columns")))
	}
	if g.work > lim.inlineWork {
		p, w := g.worst, g.worst.work()
		size := textfmt.Thousands(p.bytes + p.cellBytes)
		if p.cellBytes > 0 {
			size += fmt.Sprintf(" (%s from cells)", textfmt.Thousands(p.cellBytes))
		}
		msg := fmt.Sprintf("a paragraph of %s bytes with %s link, emphasis and code marks ([, ], <, and runs of *, _, ~ and ` not escaped with a backslash): the time to render a paragraph can grow with its bytes × marks, here %s, ", size, textfmt.Thousands(p.marks+p.cellMarks), textfmt.Thousands(w))
		if w > lim.inlineWork {
			msg += fmt.Sprintf("more than the %s a notebook's paragraphs may add up to; split it with blank lines or escape the marks", textfmt.Thousands(lim.inlineWork))
		} else {
			msg += fmt.Sprintf("the most of any paragraph; the notebook's add up to %s, more than %s; split long paragraphs with blank lines or escape the marks", textfmt.Thousands(g.work), textfmt.Thousands(lim.inlineWork))
		}
		probs.add(p.first, 0, msg)
	}
	return probs.err()
}

// paragraph is what a markdownGuard knows of a run of lines goldmark may
// parse as one inline block, or of a table row: the marks and bytes the
// notebook wrote in it, and those its cells wrote.
type paragraph struct {
	first            int // the notebook line of its first line
	lines            int
	bytes, cellBytes int64
	marks, cellMarks int64
	// lastPipe and lastCells describe its last line as a table header:
	// whether it starts with | and how many cells goldmark finds in it.
	lastPipe  bool
	lastCells int
	// inTable: the lines are rows of a table; noTable: no line of the run
	// can start a table any more.
	inTable, noTable bool
}

func (p *paragraph) add(line string, src int, cell bool) {
	if p.lines == 0 {
		p.first = src
	}
	p.lines++
	if cell {
		p.cellBytes += int64(len(line) + 1)
		p.cellMarks += inlineMarks(line)
	} else {
		p.bytes += int64(len(line) + 1)
		p.marks += inlineMarks(line)
	}
	p.lastPipe = startsWithPipe(line)
	p.lastCells = headerCells(line)
}

// work is the paragraph's bound on goldmark's inline work: each mark may
// scan every byte of its paragraph. What cells write alone costs goldmark
// time in proportion to its size (its marks are escaped or pair up: code
// spans, bold), so a cell's mark is counted against the notebook's bytes
// only, and a paragraph or row a cell wrote costs nothing here.
func (p paragraph) work() int64 { return p.marks*(p.bytes+p.cellBytes) + p.cellMarks*p.bytes }

// inlineMarks counts what goldmark's inline parsers may scan ahead or back
// from: each [, ] and <, and each run of *, _, ~ or `, unless escaped. A
// backslash escapes nothing inside a code span, but there an escaped mark
// only ends a scan; it starts none.
func inlineMarks(line string) int64 {
	var n int64
	var run byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch c {
		case '\\':
			if i+1 < len(line) && isASCIIPunct(line[i+1]) {
				i++
				run = 0
				continue
			}
		case '[', ']', '<':
			n++
		case '*', '_', '~', '`':
			if c != run {
				n++
			}
		}
		run = c
	}
	return n
}

// containerPrefix bounds the number of containers (block quotes and list
// items) a line is inside: its > markers, its list markers, and one for
// every 2 columns of indentation that precede a marker and do not follow
// a list marker on the same line (a list item continued from an earlier
// line needs its content's indentation, at least 2 columns). quotesOnly
// reports a line of nothing but > markers and spaces, a blank line inside
// its block quotes; content is the line after its markers and
// indentation. newItem reports a line that starts a list item whatever
// came before: its first list marker is -, + or *, or 1. or 1), at most
// 3 columns after the line's start or its last >, with text after it.
func containerPrefix(line string) (depth int, quotesOnly bool, content string, newItem bool) {
	quotes, lists, indent, pending := 0, 0, 0, 0
	afterList := false
	first, item := true, false // no list marker yet; the first may start an item
	i := 0
	for i < len(line) {
		switch c := line[i]; {
		case c == ' ':
			if !afterList {
				pending++
			}
			i++
		case c == '\t':
			if !afterList {
				pending += 4
			}
			i++
		case c == '>':
			quotes++
			indent += pending
			pending = 0
			afterList = false
			i++
			if i < len(line) && line[i] == ' ' {
				i++ // the optional space after >
			}
		default:
			n := listMarker(line[i:])
			if n == 0 {
				return quotes + lists + indent/2, false, line[i:], item && !isBlank(line[i:])
			}
			if first {
				first = false
				m := line[i : i+n]
				item = pending <= 3 && (n == 1 || m == "1." || m == "1)")
			}
			lists++
			indent += pending
			pending = 0
			afterList = true
			i += n
		}
	}
	return quotes + lists + indent/2, lists == 0 && quotes > 0, "", false
}

// listMarker returns the length of the list marker line starts with: -,
// + or *, or 1 to 9 digits and . or ), followed by a space, a tab or the
// end of the line; 0 for none.
func listMarker(line string) int {
	n := 0
	switch {
	case line != "" && (line[0] == '-' || line[0] == '+' || line[0] == '*'):
		n = 1
	default:
		for n < len(line) && n < 10 && line[n] >= '0' && line[n] <= '9' {
			n++
		}
		if n == 0 || n > 9 || n == len(line) || line[n] != '.' && line[n] != ')' {
			return 0
		}
		n++
	}
	if n < len(line) && line[n] != ' ' && line[n] != '\t' {
		return 0
	}
	return n
}

// startsWithPipe reports whether a line is, after at most 3 spaces, a |:
// a line no block can start with, which continues a paragraph.
func startsWithPipe(line string) bool {
	for i := 0; i < len(line) && i <= 3; i++ {
		switch line[i] {
		case '|':
			return true
		case ' ':
		default:
			return false
		}
	}
	return false
}

// delimiterRow returns the columns of a table's delimiter row as goldmark
// parses it (extension/table.go: isTableDelim, parseDelimiter), or nil
// when line is not one.
func delimiterRow(line string) []string {
	indent := 0
	for i := 0; i < len(line) && (line[i] == ' ' || line[i] == '\t'); i++ {
		if line[i] == ' ' {
			indent++
		} else {
			indent += 4 - indent%4
		}
	}
	if indent > 3 {
		return nil
	}
	allDash := true
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c != '-' {
			allDash = false
		}
		if !isSpace(c) && c != '-' && c != '|' && c != ':' {
			return nil
		}
	}
	if allDash {
		return nil
	}
	cols := strings.Split(line, "|")
	if len(cols) > 0 && isBlank(cols[0]) {
		cols = cols[1:]
	}
	if len(cols) > 0 && isBlank(cols[len(cols)-1]) {
		cols = cols[:len(cols)-1]
	}
	for _, col := range cols {
		if !delimiterCell.MatchString(col) {
			return nil
		}
	}
	if len(cols) == 0 {
		return nil
	}
	return cols
}

// delimiterCell is one column of a delimiter row: goldmark's four
// alignments in one pattern.
var delimiterCell = regexp.MustCompile(`^\s*:?-+:?\s*$`)

// headerCells counts the cells goldmark finds in a table's header row
// (extension/table.go: parseRow): cells are separated by a | not preceded
// by a backslash, without the row's leading and trailing |. goldmark makes
// a table when there are no more than the delimiter row's columns.
func headerCells(line string) int {
	line = strings.TrimFunc(line, func(r rune) bool { return r < 0x80 && isSpace(byte(r)) })
	pos, limit := 0, len(line)
	if limit > 0 && line[0] == '|' {
		pos++
	}
	if limit > 0 && line[limit-1] == '|' {
		limit--
	}
	n := 0
	for ; pos < limit; n++ {
		closure := pos
		for ; closure < limit; closure++ {
			if line[closure] == '|' && (closure == 0 || line[closure-1] != '\\') {
				break
			}
		}
		pos = closure + 1
	}
	return n
}

// isSpace and isBlank are goldmark's util.IsSpace and util.IsBlank.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func isBlank(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isSpace(s[i]) {
			return false
		}
	}
	return true
}

// isASCIIPunct reports an ASCII punctuation character, which a backslash
// escapes.
func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

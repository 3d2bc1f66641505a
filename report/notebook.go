package report

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// A notebook is Markdown prose with cells that benchnote evaluates:
//
//	{{table ttft}}            a block cell: alone on its line
//	p95 TTFT was {{value ttft.p95 c=8}} at concurrency 8.   an inline cell
//
// Cells inside fenced code blocks are left alone, so a notebook can show
// the syntax. An unknown cell, table, plot, metric or level is an error
// naming the notebook line.

var cellPattern = regexp.MustCompile(`\{\{\s*(.*?)\s*\}\}`)

// cellError is a notebook error at a line.
type cellError struct {
	name string
	line int
	msg  string
}

func (e *cellError) Error() string { return fmt.Sprintf("%s:%d: %s", e.name, e.line, e.msg) }

// target says which output a notebook is rendered for: plots become image
// links in Markdown and inline figures in HTML.
type target int

const (
	targetMarkdown target = iota
	targetHTML
)

// renderNotebook evaluates every cell of the notebook and returns Markdown.
func renderNotebook(nb []byte, name string, ctx *cellContext, tgt target) ([]byte, error) {
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(nb))
	sc.Buffer(make([]byte, 1024*1024), 16*1024*1024)
	line := 0
	fence := ""
	swallowBlank := false
	for sc.Scan() {
		line++
		text := sc.Text()
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
				md, err := ctx.block(args, tgt)
				if err != nil {
					return nil, &cellError{name, line, err.Error()}
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
		var err error
		rendered := cellPattern.ReplaceAllStringFunc(text, func(cell string) string {
			if err != nil {
				return cell
			}
			args := strings.Fields(cellPattern.FindStringSubmatch(cell)[1])
			var s string
			s, err = ctx.inline(args)
			return s
		})
		if err != nil {
			return nil, &cellError{name, line, err.Error()}
		}
		out.WriteString(rendered + "\n")
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line, err)
	}
	return out.Bytes(), nil
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
	"table":       "a table: table NAME",
	"plot":        "a chart: plot NAME",
	"exclusions":  "everything excluded, grouped by reason, and the accounting of every input row",
	"findings":    "the lint findings",
	"alerts":      "the error and warning findings, one line each, for the top of a report",
	"environment": "the environment's canonical fields, sources and differences between runs",
	"method":      "the percentile, MAD, warm-up and SLO settings",
	"notes":       "the fixed statements about what is never joined or combined",
	"imports":     "where imported runs came from: recomputed, as reported, unavailable, token counts, definitions, the tools' own figures (nothing for a sweep with no import)",
}

// inlineCells are the cells that stand inside a sentence.
var inlineCells = map[string]string{
	"value":  "value KEY [c=N|rate=R|level=min|level=max]: median ± MAD across runs, labelled",
	"pooled": "pooled METRIC.STAT [c=N|rate=R|level=min|level=max]: a pooled percentile, labelled",
	"count":  "count FIELD [c=N|rate=R|level=min|level=max]: a request count",
	"title":  "the sweep title",
	"levels": "the load levels (concurrency levels as numbers, rates as 16 req/s)",
	"load":   "what the levels are: concurrency, request rate, or load when a sweep mixes both",
	"runs":   "the number of runs",
}

func isBlockCell(name string) bool { _, ok := blockCells[name]; return ok }

func knownCells() string {
	var names []string
	for k := range blockCells {
		names = append(names, k)
	}
	for k := range inlineCells {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

package report

import (
	"bytes"
	"fmt"
	"html/template"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/internal/controls"
	"github.com/benchnote/benchnote/report/chart"
	"github.com/benchnote/benchnote/templates"
)

// The functions below let other renderers (compare, history) print numbers
// and build pages exactly as the report does.

// FormatNum formats a number as the report does: a whole number as it
// is, any other to at most 4 significant figures ("19.57"), or "n/a"
// when it is not available.
func FormatNum(v analyze.Num) string { return fmtNum(v) }

// FormatSpread formats "median ± MAD" rounded to the spread, as the
// report's tables do: both to the decimal place of the spread's second
// significant figure, or coarser to keep at most 4 significant figures;
// a spread below that place is written "± <0.01". For a single run write
// FormatNum: it has no spread.
func FormatSpread(v, spread analyze.Num) string { return fmtSpread(v, spread) }

// EscapeMarkdown makes a string from the inputs safe to place in Markdown
// text or a table cell.
func EscapeMarkdown(s string) string { return mdEscape(s) }

// Code wraps a string from the inputs as inline code, safely.
func Code(s string) string { return code(s) }

// Table renders a GitHub-flavoured Markdown table.
func Table(header []string, rows [][]string) string { return table(header, rows) }

// MarkdownToHTML converts Markdown to HTML as the report does (GFM
// tables, heading ids, raw HTML never passed through).
func MarkdownToHTML(md []byte) ([]byte, error) {
	var out bytes.Buffer
	if err := markdown.Convert(md, &out); err != nil {
		return nil, fmt.Errorf("markdown: %w", err)
	}
	return out.Bytes(), nil
}

// Figure returns an HTML figure holding an inline SVG chart, its text
// alternative and its caption (both escaped). A compact chart (see
// chart.IsCompact) gets class "compact": the page shows it at its natural
// size instead of stretching it to the column.
func Figure(id, alt, caption string, svg []byte) string {
	class := ""
	if chart.IsCompact(svg) {
		class = ` class="compact"`
	}
	return fmt.Sprintf("<figure id=\"%s\"%s aria-label=\"%s\">\n%s\n<figcaption>%s</figcaption>\n</figure>",
		template.HTMLEscapeString(id), class, template.HTMLEscapeString(alt), InlineSVG(svg), template.HTMLEscapeString(caption))
}

// Page wraps an HTML body in the report's self-contained page: the
// embedded stylesheet, the title (escaped, its control characters written
// as Go escapes: a file name with a newline stays one line) and a footer
// line, which like the body is HTML the caller wrote or escaped.
func Page(title string, body, footer template.HTML) ([]byte, error) {
	title = controls.Escape(title)
	var out bytes.Buffer
	err := pageTemplate.Execute(&out, struct {
		Title, Version string
		Style          template.CSS
		Body, Footer   template.HTML
	}{title, Version, template.CSS(templates.Style), body, footer})
	if err != nil {
		return nil, fmt.Errorf("page: %w", err)
	}
	return out.Bytes(), nil
}

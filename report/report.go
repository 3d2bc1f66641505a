// Package report renders an analyze.Summary as a notebook-style write-up:
// report.md (GitHub-flavoured Markdown, charts linked relatively),
// report.html (the same document through goldmark, self-contained with
// inline SVG charts), pr.md (its first screen for a pull-request comment),
// summary.json and plots/*.svg.
//
// A notebook is Markdown prose with cells ({{table ttft}}, {{plot cdf-ttft}},
// {{value ttft.p95 c=8}}, ...) that are evaluated against the Summary; the
// default notebook is embedded from templates/. Report code never computes
// a statistic: it only formats what analyze produced. Strings that come from
// the inputs (file names, environment values, error texts) are escaped, so
// they are shown as data and never interpreted as markup.
package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"regexp"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/internal/controls"
	"github.com/benchnote/benchnote/internal/textfmt"
	"github.com/benchnote/benchnote/templates"
)

// Version is benchnote's version, printed in every report. Reports are
// byte-identical for the same inputs and Version.
const Version = "0.1.0"

// Options tunes Build.
type Options struct {
	// Notebook replaces the default notebook when non-nil.
	Notebook []byte
	// NotebookName names the notebook in error messages.
	NotebookName string
}

// Output file names.
const (
	MarkdownFile = "report.md"
	HTMLFile     = "report.html"
	SummaryFile  = "summary.json"
	PlotsDir     = "plots"
)

// Build renders every output file. The map is keyed by slash-separated
// path relative to the output directory.
func Build(s *analyze.Summary, opts Options) (map[string][]byte, error) {
	nb, name := templates.Notebook, "templates/notebook.md"
	var lim *notebookLimits
	if opts.Notebook != nil {
		nb, name = opts.Notebook, opts.NotebookName
		l := defaultNotebookLimits
		lim = &l
		// Refuse a notebook too large before any work.
		if err := checkNotebookSize(nb, name, lim.bytes); err != nil {
			return nil, err
		}
	}
	plots, err := Plots(s)
	if err != nil {
		return nil, fmt.Errorf("plots: %w", err)
	}
	files := map[string][]byte{}
	byName := map[string]Plot{}
	for _, p := range plots {
		byName[p.Name] = p
		files[PlotsDir+"/"+p.Name+".svg"] = p.SVG
	}
	ctx := &cellContext{s: s, plots: byName, limits: lim}
	md, err := renderNotebook(nb, name, ctx, targetMarkdown)
	if err != nil {
		return nil, err
	}
	files[MarkdownFile] = []byte(controls.EscapeText(dropFlags.Replace(string(md) + markdownFooter)))
	files[PRFile] = prMarkdown(s)
	htmlMD, err := renderNotebook(nb, name, ctx, targetHTML)
	if err != nil {
		return nil, err
	}
	page, err := renderHTML(htmlMD, s.Title, byName, name, lim)
	if err != nil {
		return nil, err
	}
	files[HTMLFile] = page
	js, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("summary.json: %w", err)
	}
	files[SummaryFile] = append(js, '\n')
	return files, nil
}

// markdownFooter ends report.md: what its links need, and where the
// summary for a pull-request comment is.
const markdownFooter = "\n---\n\n*Rendered by benchnote " + Version + ". This file links its charts relatively (`plots/*.svg`): keep it next to its `plots/` directory. For a pull-request comment, paste `" + PRFile + "`, the first screen of this report without images or links (at most 60,000 characters).*\n"

var markdown = goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithParserOptions(parser.WithAutoHeadingID()))

// dropFlags removes the flag and suspect delimiters: Markdown shows a
// flag or a suspect figure as text.
var dropFlags = strings.NewReplacer(flagOpen, "", flagClose, "", suspectOpen, "", suspectClose, "", tipOpen, "", tipMid, " ", tipClose, "")

// flagPattern finds a flag inside one run of text.
var flagPattern = regexp.MustCompile(flagOpen + `([^` + flagOpen + flagClose + `<]*)` + flagClose)

// styleFlags turns every flag, suspect figure and tooltip in the text of a
// goldmark HTML fragment into a styled span, and drops the delimiters
// anywhere else (inside a tag, as in an image's alt text). goldmark
// escapes '<' and '>' in text and in attribute values, so a '<' always
// opens a tag and a '>' closes it.
func styleFlags(html string) string {
	var b strings.Builder
	for html != "" {
		lt := strings.IndexByte(html, '<')
		if lt < 0 {
			lt = len(html)
		}
		b.WriteString(dropFlags.Replace(styleText(html[:lt])))
		html = html[lt:]
		gt := strings.IndexByte(html, '>')
		if gt < 0 {
			gt = len(html) - 1
		}
		b.WriteString(dropFlags.Replace(html[:gt+1]))
		html = html[gt+1:]
	}
	return b.String()
}

var pageTemplate = template.Must(template.New("page").Option("missingkey=error").Parse(templates.Page))

// renderHTML converts the notebook's Markdown to a self-contained page.
// goldmark runs without the unsafe option, so raw HTML in the notebook or
// the inputs is never passed through; the figures are inlined afterwards in
// place of their tokens. With limits (a notebook given by the user, named
// name), a page larger than the limit is refused before it is written.
func renderHTML(md []byte, title string, plots map[string]Plot, name string, lim *notebookLimits) ([]byte, error) {
	doc := markdown.Parser().Parse(text.NewReader(md))
	body := cappedBuffer{limit: -1}
	if lim.bounded() {
		if n := linkBytes(doc); n > int64(lim.html) {
			return nil, &NotebookError{[]error{fmt.Errorf("%s: report.html would repeat %s bytes of link destinations and titles, more than its limit of %s: a reference link with a long destination or title is used too often", name, textfmt.Thousands(n), fmtBytes(lim.html))}}
		}
		body.limit = lim.html
	}
	if err := markdown.Renderer().Render(&body, md, doc); err != nil && !body.over {
		return nil, fmt.Errorf("markdown: %w", err)
	}
	tooLarge := func() error {
		return &NotebookError{[]error{fmt.Errorf("%s: report.html is larger than %s, the limit for a report rendered from a notebook", name, fmtBytes(lim.html))}}
	}
	if body.over {
		return nil, tooLarge()
	}
	html := tableOfContents(replaceBlocks(styleFlags(body.String())))
	figures := map[string]string{}
	size := len(html)
	for name, p := range plots {
		token := "<p>" + plotToken + name + "</p>"
		n := strings.Count(html, token)
		if n == 0 {
			continue
		}
		figures[token] = Figure("plot-"+name, controls.Escape(p.Alt), controls.Escape(p.Caption), p.SVG)
		size += n * (len(figures[token]) - len(token))
	}
	if lim.bounded() && size > lim.html {
		return nil, tooLarge()
	}
	for token, fig := range figures {
		html = strings.ReplaceAll(html, token, fig)
	}
	return Page(controls.Escape(title), template.HTML(controls.EscapeText(html)), template.HTML("Rendered by benchnote "+Version+" from the sweep's recorded runs; summary.json holds every number on this page."))
}

// cappedBuffer is a buffer that refuses a write taking it past its limit
// (none when negative) and remembers it did.
type cappedBuffer struct {
	bytes.Buffer
	limit int
	over  bool
}

var errCapped = errors.New("output limit reached")

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if b.limit >= 0 && b.Len()+len(p) > b.limit {
		b.over = true
		return 0, errCapped
	}
	return b.Buffer.Write(p)
}

// linkBytes sums the destinations and titles of a document's links and
// images: goldmark writes each in full wherever it is used, so a reference
// defined once can be repeated as often as it is used.
func linkBytes(doc ast.Node) int64 {
	var n int64
	_ = ast.Walk(doc, func(node ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch l := node.(type) {
		case *ast.Link:
			n += int64(len(l.Destination) + len(l.Title))
		case *ast.Image:
			n += int64(len(l.Destination) + len(l.Title))
		}
		return ast.WalkContinue, nil
	})
	return n
}

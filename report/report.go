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
	"fmt"
	"html/template"
	"regexp"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/internal/controls"
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
	if opts.Notebook != nil {
		nb, name = opts.Notebook, opts.NotebookName
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
	ctx := &cellContext{s: s, plots: byName}
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
	page, err := renderHTML(htmlMD, s.Title, byName)
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
// place of their tokens.
func renderHTML(md []byte, title string, plots map[string]Plot) ([]byte, error) {
	var body bytes.Buffer
	if err := markdown.Convert(md, &body); err != nil {
		return nil, fmt.Errorf("markdown: %w", err)
	}
	html := tableOfContents(replaceBlocks(styleFlags(body.String())))
	for name, p := range plots {
		token := "<p>" + plotToken + name + "</p>"
		if !strings.Contains(html, token) {
			continue
		}
		html = strings.ReplaceAll(html, token, Figure("plot-"+name, controls.Escape(p.Alt), controls.Escape(p.Caption), p.SVG))
	}
	return Page(controls.Escape(title), template.HTML(controls.EscapeText(html)), template.HTML("Rendered by benchnote "+Version+" from the sweep's recorded runs; summary.json holds every number on this page."))
}

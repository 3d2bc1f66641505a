package report

import (
	"regexp"
	"strings"
)

// report.html is report.md's Markdown through goldmark, which passes no
// raw HTML, with a few elements benchnote adds afterwards in place of
// tokens only it writes (each starts with a control character no input
// reaches the document with): figures, framed boxes and collapsed
// sections, a table of contents, greyed suspect figures and tooltips.

// blockToken marks where a framed box or a collapsed section opens or
// closes: "\x10BENCHNOTE·BLOCK·open·NAME" alone in a paragraph.
const blockToken = "\x10BENCHNOTE·BLOCK·"

// blocks are the elements a block token opens, by name, and what closes
// them.
var blocks = map[string][2]string{
	"quality":  {`<aside class="quality" id="data-quality-box" aria-label="Data quality">`, `</aside>`},
	"server":   {`<details class="collapsed"><summary>Server histogram quantiles per level (collapsed: click to show)</summary>`, `</details>`},
	"headline": {`<div class="headline" id="headline-table">`, `</div>`},
}

// blockOpen and blockClose place a block's tokens in Markdown for the HTML
// target, each in a paragraph of its own.
func blockOpen(name string) string  { return "\n" + blockToken + "open·" + name + "\n\n" }
func blockClose(name string) string { return "\n" + blockToken + "close·" + name + "\n\n" }

// replaceBlocks puts each block's elements in place of its tokens.
func replaceBlocks(html string) string {
	for name, tags := range blocks {
		html = strings.ReplaceAll(html, "<p>"+blockToken+"open·"+name+"</p>", tags[0])
		html = strings.ReplaceAll(html, "<p>"+blockToken+"close·"+name+"</p>", tags[1])
	}
	return html
}

// A tooltip holds a figure's full label: tipOpen, the label, tipMid, the
// figure, tipClose. report.html shows the figure with the label as its
// title; report.md never carries them (its labels are footnotes).
const (
	tipOpen  = "\x13"
	tipMid   = "\x14"
	tipClose = "\x15"
)

var (
	suspectPattern = regexp.MustCompile(suspectOpen + `([^` + suspectOpen + suspectClose + `<]*)` + suspectClose)
	tipPattern     = regexp.MustCompile(tipOpen + `([^` + tipOpen + tipMid + tipClose + `<]*)` + tipMid + `([^` + tipOpen + tipMid + tipClose + `<]*)` + tipClose)
	headingPattern = regexp.MustCompile(`<h2 id="([^"]*)">(.*?)</h2>`)
	// spreadPattern finds "± spread" after a figure.
	spreadPattern = regexp.MustCompile(` ± ([0-9][0-9.]*(?: %)?)`)
)

// styleText styles the marked spans in one run of goldmark's text (no
// tag inside): tooltips, suspect figures, flags, then spreads. goldmark escapes
// '"', '<', '>' and '&' in text, so a label is safe in an attribute.
func styleText(text string) string {
	text = tipPattern.ReplaceAllString(text, `<span class="labelled" title="$1">$2</span>`)
	text = suspectPattern.ReplaceAllString(text, `<span class="suspect">$1</span>`)
	text = flagPattern.ReplaceAllString(text, `<span class="warn">$1</span>`)
	// "± spread" wraps as a unit, so a narrow cell breaks before it.
	return spreadPattern.ReplaceAllString(text, ` <span class="pm">± $1</span>`)
}

// tableOfContents lists the page's second-level headings in a <nav> after
// its title (at the top without one); nothing when there are fewer than
// two.
func tableOfContents(html string) string {
	hs := headingPattern.FindAllStringSubmatch(html, -1)
	if len(hs) < 2 {
		return html
	}
	var links []string
	for _, h := range hs {
		links = append(links, `<a href="#`+h[1]+`">`+h[2]+`</a>`)
	}
	nav := `<nav class="toc" aria-label="Contents"><strong>Contents:</strong> ` + strings.Join(links, " · ") + "</nav>\n"
	if i := strings.Index(html, "</h1>\n"); i >= 0 {
		i += len("</h1>\n")
		return html[:i] + nav + html[i:]
	}
	return nav + html
}

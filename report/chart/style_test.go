package chart

import (
	"bytes"
	"encoding/xml"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/benchnote/benchnote/templates"
)

// svgText is one <text> element: its style attribute and content.
type svgText struct{ style, text string }

// svgTexts returns every <text> of a document, failing the test when the
// document is not well-formed XML.
func svgTexts(t *testing.T, svg []byte) []svgText {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var out []svgText
	var cur *svgText
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if tok.Name.Local == "text" {
				cur = &svgText{}
				for _, a := range tok.Attr {
					if a.Name.Local == "style" {
						cur.style = a.Value
					}
				}
			}
		case xml.CharData:
			if cur != nil {
				cur.text += string(tok)
			}
		case xml.EndElement:
			if tok.Name.Local == "text" && cur != nil {
				out = append(out, *cur)
				cur = nil
			}
		}
	}
}

// TestEveryTextInTheFontStack: every piece of text of every chart names
// FontFamily, and nothing is left in gonum's default serif.
func TestEveryTextInTheFontStack(t *testing.T) {
	for name, svg := range map[string]func() ([]byte, error){
		"overlay": exampleOverlay().SVG, "strip": exampleStrip().SVG, "trend": exampleTrend().SVG,
		"pareto": examplePareto().SVG, "trend-labels": exampleTrendLabels().SVG,
	} {
		b, err := svg()
		if err != nil {
			t.Fatal(err)
		}
		texts := svgTexts(t, b)
		if len(texts) < 10 {
			t.Fatalf("%s: only %d texts", name, len(texts))
		}
		for _, tx := range texts {
			if !strings.HasPrefix(tx.style, "font-family:"+FontFamily+";") {
				t.Errorf("%s: text %q has style %q, want font-family %s", name, tx.text, tx.style, FontFamily)
			}
			// No text below MinTextSize: 12 of 864 units.
			m := regexp.MustCompile(`font-size:([0-9.]+)px`).FindStringSubmatch(tx.style)
			if m == nil {
				t.Errorf("%s: text %q has no font-size: %q", name, tx.text, tx.style)
			} else if sz, _ := strconv.ParseFloat(m[1], 64); sz < MinTextSize {
				t.Errorf("%s: text %q of size %g, below MinTextSize %d", name, tx.text, sz, MinTextSize)
			}
		}
		if bytes.Contains(b, []byte("Serif")) {
			t.Errorf("%s: SVG still names a serif face", name)
		}
	}
}

// TestWidthIsTheContentWidth ties Width to the page: the content column
// of templates/style.css is main's max-width, and a figure's SVG fills
// it (width 100 %, no narrower max-width), so a chart is drawn at its
// natural size (1 pt = 4/3 CSS px) on a wide screen.
func TestWidthIsTheContentWidth(t *testing.T) {
	css := templates.Style
	m := regexp.MustCompile(`(?m)^main \{[^}]*max-width: ([0-9.]+)rem`).FindStringSubmatch(css)
	if m == nil {
		t.Fatal("templates/style.css: no max-width in rem for main")
	}
	rem, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	if px := float64(Width) * 4 / 3; px != rem*16 {
		t.Errorf("Width is %g pt = %g CSS px, the content column %g rem = %g px", float64(Width), px, rem, rem*16)
	}
	fig := regexp.MustCompile(`(?m)^figure svg \{([^}]*)\}`).FindStringSubmatch(css)
	if fig == nil {
		t.Fatal("templates/style.css: no rule for figure svg")
	}
	if !strings.Contains(fig[1], "width: 100%") || strings.Contains(fig[1], "max-width") {
		t.Errorf("figure svg { %s }: want width: 100%% and no max-width", fig[1])
	}
}

func TestLogLabel(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"TTFT (ms)", "TTFT (ms, log scale)"},
		{"concurrency (requests in flight)", "concurrency (requests in flight, log scale)"},
		{"output tokens/s", "output tokens/s (log scale)"},
		{"TTFT (ms, log scale)", "TTFT (ms, log scale)"},
		{"", " (log scale)"},
	} {
		if got := LogLabel(tc.in); got != tc.want {
			t.Errorf("LogLabel(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestTextFromInputsIsEscaped: a title and a point label carrying a
// terminal escape, a NUL and a byte that is not UTF-8 still give a
// well-formed document, with the characters written as Go escapes.
func TestTextFromInputsIsEscaped(t *testing.T) {
	o := exampleOverlay()
	o.Title = "run\x1b[31m-1\x00"
	o.Series[0].Line[0].Label = "c=\xff1"
	o.Series[1].Name = "<new & \"improved\">"
	svg, err := o.SVG()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tx := range svgTexts(t, svg) {
		got = append(got, tx.text)
	}
	for _, want := range []string{`run\x1b[31m-1\x00`, `c=\xff1`, `<new & "improved">`} {
		found := false
		for _, g := range got {
			found = found || g == want
		}
		if !found {
			t.Errorf("no text %q in %q", want, got)
		}
	}
}

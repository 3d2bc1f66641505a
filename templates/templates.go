// Package templates holds benchnote's embedded notebook and page templates:
// the default write-up (notebook.md), the HTML page shell (page.html) and
// its stylesheet (style.css). They are compiled into the binary with
// go:embed, so a report needs nothing from disk but the sweep.
package templates

import _ "embed"

// Notebook is the default notebook: the write-up rendered when the user
// gives no --notebook of their own.
//
//go:embed notebook.md
var Notebook []byte

// Page is the html/template for report.html.
//
//go:embed page.html
var Page string

// Style is the stylesheet inlined into report.html.
//
//go:embed style.css
var Style string

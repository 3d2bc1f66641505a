package chart

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/benchnote/benchnote/internal/controls"
)

// Figure is what one SVG shows: a single plot, or a grid of plots under a
// title, with the legend in a strip to their right, where it never covers
// data.
type Figure struct {
	// Title is drawn above a grid; a single plot carries its own.
	Title string
	// Grid holds the plots row by row; nil entries stay empty.
	Grid [][]*plot.Plot
	// Legend, when not nil, is drawn right of the plots.
	Legend *plot.Legend
	// Width and Height default to Width and GridHeight(len(Grid)).
	Width, Height vg.Length
}

// Single is a figure of one plot.
func Single(p *plot.Plot, legend *plot.Legend) Figure {
	return Figure{Grid: [][]*plot.Plot{{p}}, Legend: legend}
}

// Rows lays plots out row by row, cols to a row.
func Rows(plots []*plot.Plot, cols int) [][]*plot.Plot {
	var grid [][]*plot.Plot
	for k := 0; k < len(plots); k += cols {
		row := make([]*plot.Plot, cols)
		copy(row, plots[k:])
		grid = append(grid, row)
	}
	return grid
}

// SVG renders the figure as a standalone SVG document. The same figure
// always gives the same bytes. Text from the inputs is drawn with its
// control characters escaped (see internal/controls), so the document
// stays well-formed XML whatever a run directory is called.
func (f Figure) SVG() ([]byte, error) {
	if len(f.Grid) == 0 || len(f.Grid[0]) == 0 {
		return nil, ErrNoData
	}
	w, h := f.Width, f.Height
	if w == 0 {
		w = Width
	}
	if h == 0 {
		h = GridHeight(len(f.Grid))
	}
	return drawSVG(w, h, f.draw)
}

func (f Figure) draw(dc draw.Canvas) {
	area := dc
	// Room left of the rotated y label: a browser's box for it is a
	// little taller than the font's ascent and descent gonum measures.
	area.Min.X += vg.Points(4)
	if f.Legend != nil {
		// A quarter more than measured: a browser that has none of the
		// faces of FontFamily substitutes a wider one.
		if w := f.Legend.Rectangle(dc).Size().X; w > 0 {
			area.Max.X -= w*5/4 + vg.Points(14)
		}
	} else {
		// Room for the last tick label, centred on the right edge.
		area.Max.X -= vg.Points(12)
	}
	var top vg.Length
	if f.Title != "" {
		sty := text.Style{
			Color:   color.Black,
			Font:    Font(vg.Points(titleSize)),
			XAlign:  draw.XCenter,
			YAlign:  draw.YTop,
			Handler: plot.DefaultTextHandler,
		}
		top = sty.Height(f.Title) + vg.Points(10)
		dc.FillText(sty, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: dc.Max.Y - vg.Points(4)}, f.Title)
	}
	dataTop := area.Max.Y - top
	if f.Title == "" && len(f.Grid) == 1 && len(f.Grid[0]) == 1 {
		p := f.Grid[0][0]
		// Room above the plot's own title for a taller fallback face.
		area.Max.Y -= vg.Points(4)
		p.Draw(area)
		dataTop = p.DataCanvas(area).Max.Y
	} else {
		tiles := draw.Tiles{
			Rows: len(f.Grid), Cols: len(f.Grid[0]),
			PadTop: top, PadBottom: vg.Points(2), PadRight: vg.Points(8),
			PadX: vg.Points(24), PadY: vg.Points(18),
		}
		canvases := plot.Align(f.Grid, tiles, area)
		for j, row := range f.Grid {
			for i, p := range row {
				if p == nil {
					continue
				}
				p.Draw(canvases[j][i])
				if j == 0 && i == 0 {
					dataTop = p.DataCanvas(canvases[j][i]).Max.Y
				}
			}
		}
	}
	if f.Legend != nil && area.Max.X < dc.Max.X {
		strip := dc
		strip.Min.X = area.Max.X + vg.Points(10)
		strip.Max.Y = dataTop
		f.Legend.Draw(strip)
	}
}

// svgFamily is how vgsvg names Font in a <text> style; drawSVG replaces
// it with FontFamily. The quote before it cannot occur in text content,
// which vgsvg escapes.
const svgFamily = `style="font-family:Liberation Sans;`

// errFont reports a vgsvg whose output no longer names the font as
// svgFamily, so FontFamily could not be written.
var errFont = errors.New("chart: SVG text without the expected font-family (has gonum's SVG output changed?)")

// drawSVG runs drawFn on a white canvas of w × h and returns the SVG
// document, fonts referenced by FontFamily rather than embedded. gonum
// panics on some degenerate input; that becomes an error.
func drawSVG(w, h vg.Length, drawFn func(draw.Canvas)) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("chart: drawing: %v", r)
		}
	}()
	c := vgsvg.NewWith(vgsvg.UseWH(w, h), vgsvg.EmbedFonts(false))
	dc := draw.New(escapingCanvas{c})
	dc.FillPolygon(color.White, []vg.Point{
		{X: dc.Min.X, Y: dc.Min.Y}, {X: dc.Max.X, Y: dc.Min.Y},
		{X: dc.Max.X, Y: dc.Max.Y}, {X: dc.Min.X, Y: dc.Max.Y},
	})
	drawFn(dc)
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	texts := bytes.Count(buf.Bytes(), []byte("<text "))
	if bytes.Count(buf.Bytes(), []byte(svgFamily)) != texts {
		return nil, errFont
	}
	return bytes.ReplaceAll(buf.Bytes(), []byte(svgFamily), []byte(`style="font-family:`+FontFamily+`;`)), nil
}

// escapingCanvas draws text with its control characters and invalid
// UTF-8 escaped: vgsvg escapes markup but writes a control byte as it is,
// and XML 1.0 allows none but tab, newline and carriage return.
type escapingCanvas struct{ *vgsvg.Canvas }

// FillString implements vg.Canvas.
func (c escapingCanvas) FillString(f font.Face, pt vg.Point, s string) {
	c.Canvas.FillString(f, pt, controls.Escape(s))
}

package ingest

import (
	"bytes"
	"io"
	"io/fs"

	"github.com/benchnote/benchnote/internal/textfmt"
)

// Limits on a scrape, checked before it is parsed. A vLLM or SGLang scrape
// is tens of kilobytes, its lines are a few hundred bytes, its longest
// label values (model paths) about a hundred.
const (
	// MaxScrapeBytes bounds a scrape file.
	MaxScrapeBytes = 64 << 20
	// MaxScrapeLineBytes bounds one line of a scrape.
	MaxScrapeLineBytes = 64 << 10
	// MaxLabelValueBytes bounds one label value, as written (escapes
	// included). Label values are repeated in diagnostics, so a longer one
	// would flood them.
	MaxLabelValueBytes = 4 << 10
)

// readScrapeLimited reads a whole scrape of at most MaxScrapeBytes. A file
// whose size is over the limit is refused before it is read.
func readScrapeLimited(r io.Reader, path string) ([]byte, error) {
	tooLarge := func() error {
		return fileErrorf(path, 0, 0, "", reasonTooLarge,
			"larger than %s bytes, the limit for a scrape; expected a /metrics dump of kilobytes", textfmt.Thousands(MaxScrapeBytes))
	}
	var buf bytes.Buffer
	if st, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil && fi.Mode().IsRegular() {
			if fi.Size() > MaxScrapeBytes {
				return nil, tooLarge()
			}
			buf.Grow(int(fi.Size()) + 1)
		}
	}
	if _, err := buf.ReadFrom(io.LimitReader(r, MaxScrapeBytes+1)); err != nil {
		return nil, fileErrorf(path, 0, 0, "", reasonReadError, "reading scrape: %v", err)
	}
	if buf.Len() > MaxScrapeBytes {
		return nil, tooLarge()
	}
	return buf.Bytes(), nil
}

// reasonTooLarge marks a file or value over a size limit.
const reasonTooLarge = "too large"

// checkScrapeLimits refuses a line longer than MaxScrapeLineBytes and a
// label value longer than MaxLabelValueBytes, naming the line and column.
// It is one pass over data.
func checkScrapeLimits(data []byte, path string) *FileError {
	for lineNo := 1; len(data) > 0; lineNo++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if len(line) > MaxScrapeLineBytes {
			return fileErrorf(path, lineNo, 0, "", reasonTooLarge,
				"line of %s bytes, longer than the limit of %s for a scrape line", textfmt.Thousands(len(line)), textfmt.Thousands(MaxScrapeLineBytes))
		}
		if len(line) <= MaxLabelValueBytes || line[0] == '#' {
			continue
		}
		open := bytes.IndexByte(line, '{')
		if open < 0 {
			continue
		}
		end := labelSetEnd(line[open:])
		if end < 0 {
			end = len(line) - open
		}
		set := line[open : open+end]
		for i := 0; i < len(set); i++ {
			if set[i] != '"' {
				continue
			}
			q := quotedEnd(set[i:])
			if q < 0 {
				q = len(set) - i
			}
			if q-1 > MaxLabelValueBytes {
				return fileErrorf(path, lineNo, open+i+1, "", reasonTooLarge,
					"label value of %s bytes, longer than the limit of %s", textfmt.Thousands(q-1), textfmt.Thousands(MaxLabelValueBytes))
			}
			i += q
		}
	}
	return nil
}

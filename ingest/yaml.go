package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/benchnote/benchnote/internal/textfmt"
)

// MaxYAMLBytes bounds sweep.yaml and run.yaml, and the environment logs
// parsed as YAML. Settings files are a few hundred bytes.
const MaxYAMLBytes = 1 << 20

// MaxEnvLogBytes bounds an environment log: server logs run to megabytes,
// but every key benchnote reads is near the top.
const MaxEnvLogBytes = 64 << 20

// errTooLarge is returned by readFileLimited for a file over its limit.
var errTooLarge = errors.New("file too large")

// readFileLimited reads a whole file of at most limit bytes. It reads
// nothing from a regular file whose size is over the limit, and never more
// than limit+1 bytes.
func readFileLimited(name string, limit int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf bytes.Buffer
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		if fi.Size() > limit {
			return nil, errTooLarge
		}
		buf.Grow(int(fi.Size()) + 1)
	}
	// The file may grow after Stat, or not be a regular file.
	if _, err := buf.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, err
	}
	if int64(buf.Len()) > limit {
		return nil, errTooLarge
	}
	return buf.Bytes(), nil
}

// tooLargeDiagnostic reports a file over its size limit: "larger than N
// bytes, the limit for WHAT; THEN".
func tooLargeDiagnostic(file string, sev Severity, limit int64, what, then string) Diagnostic {
	return Diagnostic{Severity: sev, File: file, Reason: "too large",
		Message: fmt.Sprintf("larger than %s bytes, the limit for %s; %s", textfmt.Thousands(int(limit)), what, then)}
}

// parseSettingsYAML parses a settings file (sweep.yaml, run.yaml) strictly.
// It returns the root mapping, nil for an empty file, or the first problem:
// a file over MaxYAMLBytes, a syntax error, a root that is not a mapping,
// a second document, an anchor, an alias, a merge key ("<<"), a key that is
// not a plain scalar, or a key given twice in one mapping. Aliases would
// read as their anchor's name and duplicate keys would silently override:
// neither is what the author meant.
func parseSettingsYAML(data []byte, file string) (root *yaml.Node, fe *FileError) {
	if len(data) > MaxYAMLBytes {
		return nil, &FileError{tooLargeDiagnostic(file, Error, MaxYAMLBytes, "a settings file", "expected a small text file")}
	}
	defer func() {
		// yaml.v3 has panicked on malformed input before.
		if p := recover(); p != nil {
			root, fe = nil, fileErrorf(file, 0, 0, "", "bad yaml", "not valid YAML: %v", p)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, &FileError{yamlDiagnostic(file, err)}
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, &FileError{yamlDiagnostic(file, err)}
	default:
		return nil, fileErrorf(file, extra.Line, extra.Column, "", "bad yaml",
			"a second YAML document starts here; expected one document (remove the \"---\" line)")
	}
	if err := checkSettingsNode(file, &doc, 0); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	n := doc.Content[0]
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, fileErrorf(file, n.Line, n.Column, "", "bad yaml", "expected a mapping of settings (key: value lines), got %s", yamlKind(n))
	}
	return n, nil
}

// maxSettingsDepth bounds the nesting of a settings file; the deepest
// setting is two levels down.
const maxSettingsDepth = 16

// checkSettingsNode refuses anchors, aliases, merge keys, complex keys,
// duplicate keys and deep nesting anywhere under n.
func checkSettingsNode(file string, n *yaml.Node, depth int) *FileError {
	if depth > maxSettingsDepth {
		return fileErrorf(file, n.Line, n.Column, "", "bad yaml", "nested more than %d levels deep; expected settings at most a few levels deep", maxSettingsDepth)
	}
	if n.Anchor != "" {
		return fileErrorf(file, n.Line, n.Column, "", "bad yaml", "anchor &%s: anchors and aliases are not allowed in settings; write the value out", n.Anchor)
	}
	switch n.Kind {
	case yaml.AliasNode:
		return fileErrorf(file, n.Line, n.Column, "", "bad yaml", "alias *%s: anchors and aliases are not allowed in settings; write the value out", n.Value)
	case yaml.MappingNode:
		first := make(map[string]int, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Tag == "!!merge" {
				return fileErrorf(file, k.Line, k.Column, "", "bad yaml", "merge key %q: merge keys are not allowed in settings; write the keys out", k.Value)
			}
			if k.Kind != yaml.ScalarNode {
				return fileErrorf(file, k.Line, k.Column, "", "bad yaml", "expected a plain key, got %s", yamlKind(k))
			}
			if line, dup := first[k.Value]; dup {
				return fileErrorf(file, k.Line, k.Column, k.Value, "duplicate key",
					"key %q given twice (first on line %d); expected each key once", k.Value, line)
			}
			first[k.Value] = k.Line
		}
	}
	for _, c := range n.Content {
		if err := checkSettingsNode(file, c, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// yamlKind names a node's kind for messages.
func yamlKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		return quoteValue(n.Value)
	}
	return "nothing"
}

// yamlInteger reads a whole number in [lo, hi]. "2.7", "1e3", "0x10" and
// anything that is not a plain decimal integer are refused, not rounded.
func yamlInteger(n *yaml.Node, key string, lo, hi int64) (int64, string, bool) {
	want := fmt.Sprintf("an integer from %s to %s", textfmt.Thousands(int(lo)), textfmt.Thousands(int(hi)))
	if n.Kind != yaml.ScalarNode {
		return 0, want, false
	}
	v, err := strconv.ParseInt(strings.TrimSpace(n.Value), 10, 64)
	if err != nil || v < lo || v > hi {
		return 0, want, false
	}
	return v, want, true
}

// yamlNumber reads a finite number in the range given by lo and hi; a
// bound is excluded when its open flag is set.
func yamlNumber(n *yaml.Node, lo, hi float64, loOpen, hiOpen bool) (float64, string, bool) {
	want := "a number in " + interval(lo, hi, loOpen, hiOpen)
	if n.Kind != yaml.ScalarNode {
		return 0, want, false
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(n.Value), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) ||
		v < lo || v > hi || loOpen && v == lo || hiOpen && v == hi {
		return 0, want, false
	}
	return v + 0, want, true
}

// interval writes a range as "(0, 1]".
func interval(lo, hi float64, loOpen, hiOpen bool) string {
	l, r := "[", "]"
	if loOpen {
		l = "("
	}
	if hiOpen {
		r = ")"
	}
	return l + formatSetting(lo) + ", " + formatSetting(hi) + r
}

// formatSetting writes a bound without exponent for the sizes settings use.
func formatSetting(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return textfmt.Thousands(int(v))
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

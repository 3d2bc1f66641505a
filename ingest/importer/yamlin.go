package importer

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"gopkg.in/yaml.v3"

	"github.com/benchnote/benchnote/internal/textfmt"
)

// YAML input. Some tools write YAML beside or instead of JSON (GuideLLM's
// benchmarks.yaml, llm-d Benchmark Reports). A file that is not JSON but
// holds one YAML mapping is decoded whole and converted to JSON text, which
// the importers then read like any JSON file: one parser per format, and
// every JSON path in an error is the same path in the YAML document, with
// the YAML line of the value named.
//
// YAML cannot be streamed with yaml.v3: the document is held in memory as
// a node tree, tens of bytes per node. Its cost is bounded by the bytes
// read (at most maxYAMLBytes, counted as read: a size is never trusted),
// by yaml.v3's own limit of 10,000 nesting levels, by maxYAMLDepth levels
// in what is converted, and by expanding aliases only while the values
// written stay within twice the nodes the file holds and four times its
// bytes (a "billion laughs" file of nested aliases, or a long scalar
// aliased many times, is refused, not expanded). Merge keys (<<) and
// mapping keys that are not scalars are refused with their line.

// maxYAMLBytes is the most bytes a YAML file may hold (with
// Options.MaxFileBytes, whichever is lower): its node tree takes many
// times its size. The tools that write YAML also write JSON, which is
// streamed and bounded far higher.
const maxYAMLBytes = 32 << 20

// maxYAMLDepth is the deepest nesting converted; result files nest a few
// levels.
const maxYAMLDepth = 256

// yamlDoc is a YAML file converted to JSON.
type yamlDoc struct {
	json []byte
	// root is the document's top mapping, to find the line of a JSON path
	// named in an error.
	root *yaml.Node
}

// yamlKeyLine matches a first line that starts a block mapping: a plain
// or quoted key, a colon and a space or the end of the line.
var yamlKeyLine = regexp.MustCompile(`^(?:[A-Za-z_][A-Za-z0-9_.\- ]*|"[^"]*"|'[^']*'):(?:\s|$)`)

// looksLikeYAML reports whether data (not JSON) begins like a YAML
// mapping: its first line that is not blank or a comment is a document
// start (---), a directive (%YAML) or "key:".
func looksLikeYAML(data []byte) bool {
	for line := range bytes.Lines(data) {
		t := strings.TrimRight(string(line), " \t\r\n")
		if strings.TrimSpace(t) == "" || strings.HasPrefix(strings.TrimSpace(t), "#") {
			continue
		}
		return t == "---" || strings.HasPrefix(t, "--- ") || strings.HasPrefix(t, "%YAML") || yamlKeyLine.MatchString(t)
	}
	return false
}

// isYAMLName reports whether a file is named as YAML: only to decide
// whether a directory's file that cannot be read as YAML is listed as
// skipped (a log is not), never its format.
func isYAMLName(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".yaml" || ext == ".yml"
}

// readYAML reads the YAML file in from its start (at most max bytes) and
// converts its one document, a mapping, to JSON.
func readYAML(in *input, max int64) (*yamlDoc, error) {
	max = min(max, maxYAMLBytes)
	rc, err := in.reader()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(&boundedReader{r: rc, max: max, path: in.path})
	if err != nil {
		var se *SourceError
		if errors.As(err, &se) && in.max > max {
			se.Msg = fmt.Sprintf("a YAML file larger than %s bytes; refusing to read more (YAML is decoded whole: convert it to JSON to import it)", textfmt.Thousands(max))
		}
		return nil, err
	}
	return yamlToJSON(data, in.path)
}

// yamlToJSON converts the YAML document in data to JSON.
func yamlToJSON(data []byte, file string) (*yamlDoc, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			return nil, &SourceError{File: file, Msg: "an empty YAML document"}
		}
		return nil, yamlError(file, err)
	}
	var second yaml.Node
	switch err := dec.Decode(&second); {
	case err == nil:
		return nil, &SourceError{File: file, Record: second.Line, Msg: "a second YAML document (after ---): the file must hold one"}
	case err != io.EOF:
		return nil, yamlError(file, err)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		return nil, &SourceError{File: file, Record: root.Line, Msg: fmt.Sprintf("a YAML %s, not a mapping: benchnote reads YAML result files whose top value is a mapping", yamlKindName(root))}
	}
	c := yamlConverter{file: file, budget: 2*countNodes(root) + 64, maxOut: 4*len(data) + 4096}
	if err := c.value(root, 0); err != nil {
		return nil, err
	}
	if len(c.out) > c.maxOut {
		return nil, &SourceError{File: file, Msg: fmt.Sprintf("YAML aliases expand to more than %s bytes of values (4 times the file); refusing to expand them (an alias bomb?)", textfmt.Thousands(int64(c.maxOut)))}
	}
	return &yamlDoc{json: c.out, root: root}, nil
}

// yamlError turns a yaml.v3 error ("yaml: line 3: did not find expected
// key") into a *SourceError naming the line.
func yamlError(file string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, after, ok := strings.Cut(rest, ": "); ok {
			if v, perr := strconv.Atoi(n); perr == nil {
				line, msg = v, after
			}
		}
	}
	if yamlParserErrors[msg] {
		// yaml.v3 numbers the lines of the parser's errors (not the
		// scanner's) from 0: the line of the collection left open.
		line++
	}
	return &SourceError{File: file, Record: line, Msg: "not valid YAML: " + msg}
}

// yamlParserErrors are yaml.v3's parser errors, whose line it counts from
// 0 (its scanner's errors it counts from 1).
var yamlParserErrors = map[string]bool{
	"did not find expected <document start>": true,
	"did not find expected node content":     true,
	"did not find expected key":              true,
	"did not find expected '-' indicator":    true,
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
}

// countNodes counts the nodes of the tree as parsed, aliases not expanded
// (each alias is one node).
func countNodes(n *yaml.Node) int {
	count := 0
	stack := []*yaml.Node{n}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		count++
		if n.Kind != yaml.AliasNode {
			stack = append(stack, n.Content...)
		}
	}
	return count
}

func yamlKindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "sequence"
	case yaml.MappingNode:
		return "mapping"
	case yaml.ScalarNode:
		return "scalar"
	case yaml.AliasNode:
		return "alias"
	}
	return "document"
}

// yamlConverter writes a node tree as JSON text.
type yamlConverter struct {
	file   string
	out    []byte
	budget int // values still to write, aliases expanded
	maxOut int // the most bytes of JSON written: a large scalar aliased many times
	// alias is the outermost alias being expanded, whose line an error
	// names; nil outside aliases.
	alias *yaml.Node
}

func (c *yamlConverter) errorf(n *yaml.Node, format string, args ...any) error {
	if c.alias != nil {
		n = c.alias
	}
	return &SourceError{File: c.file, Record: n.Line, Msg: fmt.Sprintf(format, args...)}
}

func (c *yamlConverter) value(n *yaml.Node, depth int) error {
	c.budget--
	if c.budget < 0 {
		return c.errorf(n, "YAML aliases expand to more than twice the values the file holds; refusing to expand them (an alias bomb?)")
	}
	if len(c.out) > c.maxOut {
		return c.errorf(n, "YAML aliases expand to more than %s bytes of values (4 times the file); refusing to expand them (an alias bomb?)", textfmt.Thousands(int64(c.maxOut)))
	}
	if depth > maxYAMLDepth {
		return c.errorf(n, "YAML nested more than %d levels deep", maxYAMLDepth)
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return c.errorf(n, "YAML alias *%s names no anchor", n.Value)
		}
		if c.alias == nil {
			c.alias = n
			defer func() { c.alias = nil }()
		}
		return c.value(n.Alias, depth+1)
	case yaml.MappingNode:
		c.out = append(c.out, '{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			for k.Kind == yaml.AliasNode && k.Alias != nil {
				k = k.Alias
			}
			if k.Kind != yaml.ScalarNode {
				return c.errorf(n.Content[i], "a YAML mapping key that is a %s: benchnote reads keys that are scalars", yamlKindName(k))
			}
			if k.ShortTag() == "!!merge" {
				return c.errorf(n.Content[i], "a YAML merge key (<<): not supported; write the members out")
			}
			if i > 0 {
				c.out = append(c.out, ',')
			}
			if err := c.quote(k, k.Value); err != nil {
				return err
			}
			c.out = append(c.out, ':')
			if err := c.value(v, depth+1); err != nil {
				return err
			}
		}
		c.out = append(c.out, '}')
		return nil
	case yaml.SequenceNode:
		c.out = append(c.out, '[')
		for i, e := range n.Content {
			if i > 0 {
				c.out = append(c.out, ',')
			}
			if err := c.value(e, depth+1); err != nil {
				return err
			}
		}
		c.out = append(c.out, ']')
		return nil
	case yaml.ScalarNode:
		return c.scalar(n)
	}
	return c.errorf(n, "an unexpected YAML %s", yamlKindName(n))
}

// jsonNumber matches a number as JSON writes it, which is copied as it
// is: JSON's readers then see the digits the file holds (and refuse
// 1e400 at its path as they do in JSON).
var jsonNumber = regexp.MustCompile(`^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$`)

// scalar writes a scalar by its resolved tag: null, a boolean, a number
// (YAML's .nan and .inf as Python's NaN and Infinity, which the number
// readers accept), else a string (timestamps as written).
func (c *yamlConverter) scalar(n *yaml.Node) error {
	switch n.ShortTag() {
	case "!!null":
		c.out = append(c.out, "null"...)
		return nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return c.errorf(n, "%q is not a YAML boolean", shorten(n.Value))
		}
		c.out = strconv.AppendBool(c.out, b)
		return nil
	case "!!str":
		// A plain number yaml.v3 does not resolve (1e400, beyond float64)
		// is still a number: the readers refuse it at its path.
		if n.Style == 0 && jsonNumber.MatchString(n.Value) {
			c.out = append(c.out, n.Value...)
			return nil
		}
	case "!!int", "!!float":
		if jsonNumber.MatchString(n.Value) {
			c.out = append(c.out, n.Value...)
			return nil
		}
		var f float64
		if err := n.Decode(&f); err != nil {
			// An integer beyond float64 in another base: text that the
			// number readers refuse at its path.
			return c.quote(n, n.Value)
		}
		switch {
		case math.IsNaN(f):
			c.out = append(c.out, "NaN"...)
		case math.IsInf(f, 1):
			c.out = append(c.out, "Infinity"...)
		case math.IsInf(f, -1):
			c.out = append(c.out, "-Infinity"...)
		default:
			c.out = strconv.AppendFloat(c.out, f, 'g', -1, 64)
		}
		return nil
	}
	return c.quote(n, n.Value)
}

func (c *yamlConverter) quote(n *yaml.Node, s string) error {
	out, err := jsontext.AppendQuote(c.out, s)
	if err != nil {
		// Invalid UTF-8, which YAML itself does not allow.
		return c.errorf(n, "a YAML string that is not valid UTF-8")
	}
	c.out = out
	return nil
}

// yamlLine returns the line of the value at a JSON path ("$.benchmarks[0]
// .metrics", as SourceError writes it) in the document, or 0.
func yamlLine(root *yaml.Node, path string) int {
	rest, ok := strings.CutPrefix(path, "$")
	if !ok {
		return 0
	}
	n := root
	for rest != "" {
		for n.Kind == yaml.AliasNode && n.Alias != nil {
			n = n.Alias
		}
		var name string
		index := -1
		switch {
		case strings.HasPrefix(rest, "."):
			end := strings.IndexAny(rest[1:], ".[")
			if end < 0 {
				end = len(rest) - 1
			}
			name, rest = rest[1:1+end], rest[1+end:]
		case strings.HasPrefix(rest, "[\""):
			q, err := strconv.QuotedPrefix(rest[1:])
			if err != nil {
				return n.Line
			}
			name, _ = strconv.Unquote(q)
			rest = strings.TrimPrefix(rest[1+len(q):], "]")
		case strings.HasPrefix(rest, "["):
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return n.Line
			}
			v, err := strconv.Atoi(rest[1:end])
			if err != nil {
				return n.Line
			}
			index, rest = v, rest[end+1:]
		default:
			return n.Line
		}
		next := (*yaml.Node)(nil)
		switch {
		case index >= 0 && n.Kind == yaml.SequenceNode && index < len(n.Content):
			next = n.Content[index]
		case index < 0 && n.Kind == yaml.MappingNode:
			// The last of duplicate keys, as the JSON readers see them.
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == name {
					next = n.Content[i+1]
				}
			}
		}
		if next == nil {
			return n.Line
		}
		n = next
	}
	return n.Line
}

// withYAMLLine adds the YAML line to an error naming a JSON path in a
// file read as YAML (docs maps each such file to its document).
func withYAMLLine(err error, docs map[string]*yaml.Node) error {
	var se *SourceError
	if !errors.As(err, &se) || se.Record != 0 {
		return err
	}
	root := docs[se.File]
	if root == nil {
		return err
	}
	if se.Path == "" {
		return err
	}
	se.Record = yamlLine(root, se.Path)
	return err
}

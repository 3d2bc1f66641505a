package outdir

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/benchnote/benchnote/internal/controls"
)

// A marker's first two lines are fixed per Kind (kindInfo.header and
// .note; the header ends in the format's version). Then comes one line per
// file: SHA-256, size and slash path, sorted by path, so the marker is as
// deterministic as the directory. While a directory is being written its
// marker names each file before the file is created, as a pending line
// ("-  -  path"), and is replaced by the complete one at commit.
const pendingField = "-"

// markerHeader and markerNote are the Report kind's.
var (
	markerHeader = kinds[Report].header
	markerNote   = kinds[Report].note
)

// finalSuffix names the complete marker while it is written, before it
// replaces the pending one.
const finalSuffix = ".final"

// maxMarkerSize bounds how much of a marker is read: a report has a few
// dozen files, so a larger marker is not one benchnote wrote.
const maxMarkerSize = 1 << 20

// manifest is what a marker says: every file of the directory.
type manifest struct {
	files map[string]fileEntry // slash path -> entry
	dirs  map[string]bool      // slash paths of the directories they imply
}

type fileEntry struct {
	sum     [sha256.Size]byte
	size    int64
	pending bool // named by a pending line: not written yet, or cut short
}

// isMarkerName reports whether name is a marker of any kind, or one being
// completed.
func isMarkerName(name string) bool {
	for _, k := range kinds {
		if name == k.marker || name == k.marker+finalSuffix {
			return true
		}
	}
	return false
}

// sortedFiles returns the manifest's file paths in order.
func (m *manifest) sortedFiles() []string {
	names := make([]string, 0, len(m.files))
	for n := range m.files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// sortedDirs returns the manifest's directories, deepest first, so they can
// be removed in that order.
func (m *manifest) sortedDirs() []string {
	dirs := make([]string, 0, len(m.dirs))
	for d := range m.dirs {
		dirs = append(dirs, d)
	}
	sort.Slice(dirs, func(i, j int) bool {
		di, dj := strings.Count(dirs[i], "/"), strings.Count(dirs[j], "/")
		if di != dj {
			return di > dj
		}
		return dirs[i] < dirs[j]
	})
	return dirs
}

// checkName reports whether a file name can be part of a directory
// benchnote writes: a clean, local, slash-separated path without control
// characters, and not a marker.
func checkName(name string) error {
	switch {
	case name == "" || name != path.Clean(name) || !filepath.IsLocal(filepath.FromSlash(name)) || strings.Contains(name, `\`):
		return fmt.Errorf("refusing to write %q: not a plain path inside the output directory", name)
	case strings.IndexFunc(name, controls.Is) >= 0:
		return fmt.Errorf("refusing to write %q: control character in the file name", name)
	case isMarkerName(name):
		return fmt.Errorf("refusing to write %q: benchnote writes that file itself", name)
	}
	return nil
}

// newManifest describes the files about to be written, checking every name.
func newManifest(files map[string][]byte) (*manifest, error) {
	m := &manifest{files: map[string]fileEntry{}, dirs: map[string]bool{}}
	for name, data := range files {
		if err := checkName(name); err != nil {
			return nil, err
		}
		m.files[name] = fileEntry{sum: sha256.Sum256(data), size: int64(len(data))}
	}
	for name := range m.files {
		for d := path.Dir(name); d != "."; d = path.Dir(d) {
			if _, clash := m.files[d]; clash {
				return nil, fmt.Errorf("refusing to write %q: %q is also a file", name, d)
			}
			m.dirs[d] = true
		}
	}
	return m, nil
}

// marker returns the Report marker file's content for a manifest.
func (m *manifest) marker() []byte { return m.markerOf(Report) }

// markerOf returns kind's marker file's content for a manifest.
func (m *manifest) markerOf(kind Kind) []byte {
	k := kind.info()
	var b bytes.Buffer
	b.WriteString(k.header + "\n" + k.note + "\n")
	for _, name := range m.sortedFiles() {
		e := m.files[name]
		fmt.Fprintf(&b, "%x  %d  %s\n", e.sum, e.size, name)
	}
	return b.Bytes()
}

// errNoMarker says a directory has no marker file.
var errNoMarker = errors.New("no marker")

// readMarker reads and parses dir's marker of kind. With partial set it
// accepts a marker of a directory being written or cut short by a killed
// run (a valid header, then every complete line, pending lines included);
// otherwise every line must be complete and well formed.
func readMarker(dir string, kind Kind, partial bool) (*manifest, error) {
	p := filepath.Join(dir, kind.MarkerName())
	info, err := os.Lstat(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, errNoMarker
	}
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", kind.MarkerName())
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxMarkerSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxMarkerSize {
		return nil, fmt.Errorf("%s is larger than %d bytes", kind.MarkerName(), maxMarkerSize)
	}
	return parseMarkerOf(data, kind, partial)
}

// parseMarker parses a Report marker's content; see readMarker.
func parseMarker(data []byte, partial bool) (*manifest, error) {
	return parseMarkerOf(data, Report, partial)
}

// parseMarkerOf parses the content of kind's marker; see readMarker.
func parseMarkerOf(data []byte, kind Kind, partial bool) (*manifest, error) {
	k := kind.info()
	name := k.marker
	if partial {
		// A run killed while writing the marker leaves a prefix of it:
		// keep the complete lines.
		data = data[:bytes.LastIndexByte(data, '\n')+1]
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("%s has no complete line", name)
	}
	if data[len(data)-1] != '\n' {
		return nil, fmt.Errorf("%s: last line not terminated", name)
	}
	m := &manifest{files: map[string]fileEntry{}, dirs: map[string]bool{}}
	lines := strings.Split(string(data[:len(data)-1]), "\n")
	for i, text := range lines {
		var err error
		switch i {
		case 0:
			if text != k.header {
				err = fmt.Errorf("%q is not benchnote's marker header", truncate(text))
			}
		case 1:
			if text != k.note {
				err = fmt.Errorf("unexpected text %q", truncate(text))
			}
		default:
			err = m.addLine(text, partial)
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, i+1, err)
		}
	}
	if len(lines) < 2 && !partial {
		return nil, fmt.Errorf("%s:2: line missing", name)
	}
	for name := range m.files {
		for d := path.Dir(name); d != "."; d = path.Dir(d) {
			m.dirs[d] = true
		}
	}
	return m, nil
}

// addLine parses one "sha256  size  path" line into the manifest; with
// partial set, a pending "-  -  path" line too.
func (m *manifest) addLine(text string, partial bool) error {
	f := strings.SplitN(text, "  ", 3)
	if len(f) != 3 {
		return fmt.Errorf("%q is not \"sha256  size  path\"", truncate(text))
	}
	if partial && f[0] == pendingField && f[1] == pendingField {
		if err := checkName(f[2]); err != nil {
			return err
		}
		if _, dup := m.files[f[2]]; !dup {
			m.files[f[2]] = fileEntry{pending: true}
		}
		return nil
	}
	sum, err := hex.DecodeString(f[0])
	if err != nil || len(sum) != sha256.Size || strings.ToLower(f[0]) != f[0] {
		return fmt.Errorf("bad SHA-256 %q", truncate(f[0]))
	}
	size, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil || size < 0 {
		return fmt.Errorf("bad size %q", truncate(f[1]))
	}
	if err := checkName(f[2]); err != nil {
		return err
	}
	if e, dup := m.files[f[2]]; dup && !e.pending {
		return fmt.Errorf("%q listed twice", f[2])
	}
	var e fileEntry
	copy(e.sum[:], sum)
	e.size = size
	m.files[f[2]] = e
	return nil
}

func truncate(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// IsMarked reports whether dir holds a Report marker with benchnote's
// header: a report benchnote wrote, or a temporary directory it was
// writing one in; never input. It reads no more than the header.
func IsMarked(dir string) bool { return markedAs(dir, Report) }

// markedAs reports whether dir holds kind's marker with its header.
func markedAs(dir string, kind Kind) bool {
	k := kind.info()
	p := filepath.Join(dir, k.marker)
	info, err := os.Lstat(p)
	if err != nil || !info.Mode().IsRegular() {
		return false
	}
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, len(k.header)+1)
	if _, err := io.ReadFull(f, buf); err != nil {
		return false
	}
	return string(buf) == k.header+"\n"
}

package importer

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/outdir"
)

// Layout names the files Write produces (and sets each run's Dir), relative to the sweep directory,
// with their contents, after reading each back as validate will (see
// verifyLayout): what Layout returns always validates. Levels become directories named after them (c16,
// rate16-poisson, rate-inf); runs become run-N below them (reported-N for
// a file holding aggregates only), N the repeat.
func Layout(imp *Import) (map[string][]byte, error) {
	files := map[string][]byte{}
	type key struct {
		series ingest.Series
		level  ingest.LoadLevel
	}
	dirOf := seriesDirs(imp.Runs)
	used := map[key]map[int]bool{}
	usedReported := map[key]int{}
	// Repeats the files record (a sweep's run=N.json) first, then the
	// others take the next free numbers in input order.
	for _, r := range imp.Runs {
		if r.Requests == nil || r.Config.Repeat == 0 {
			continue
		}
		k := key{r.Config.Series, r.Config.Load}
		if used[k] == nil {
			used[k] = map[int]bool{}
		}
		if used[k][r.Config.Repeat] {
			at := r.Config.Load.Label()
			if !r.Config.Series.IsZero() {
				at += " of series " + r.Config.Series.String()
			}
			return nil, fmt.Errorf("%s: repeat %d at %s is given twice", r.Source, r.Config.Repeat, at)
		}
		used[k][r.Config.Repeat] = true
	}
	for i := range imp.Runs {
		r := &imp.Runs[i]
		if r.Requests != nil && !r.Config.Load.Valid() {
			return nil, &SourceError{File: r.Source, Msg: "the file does not record its load level: pass --level c=N, --level rate=R or --level rate=inf"}
		}
		k := key{r.Config.Series, r.Config.Load}
		levelDir := "level-unknown"
		if r.Config.Load.Valid() {
			levelDir = r.Config.Load.DirName()
		}
		dir := levelDir
		if sd := dirOf[r.Config.Series]; sd != "" {
			dir = path.Join(sd, levelDir)
		}
		if r.Requests == nil {
			usedReported[k]++
			n := usedReported[k]
			cfg := r.Config
			cfg.Repeat = n
			data, err := ingest.FormatRunConfig(cfg)
			if err != nil {
				return nil, err
			}
			r.Dir = path.Join(dir, "reported-"+strconv.Itoa(n))
			files[path.Join(r.Dir, ingest.ReportedFile)] = data
			// The model and engine a summary names belong in the report
			// as much as a per-request file's.
			if len(r.Env) > 0 {
				env, err := envJSON(r.Env)
				if err != nil {
					return nil, err
				}
				files[path.Join(r.Dir, "env.json")] = env
			}
			continue
		}
		if used[k] == nil {
			used[k] = map[int]bool{}
		}
		if r.Config.Repeat == 0 {
			n := 1
			for used[k][n] {
				n++
			}
			r.Config.Repeat = n
			used[k][n] = true
		}
		runDir := path.Join(dir, "run-"+strconv.Itoa(r.Config.Repeat))
		r.Dir = runDir
		pq, err := r.encoded()
		if err != nil {
			return nil, err
		}
		files[path.Join(runDir, ingest.RequestsParquet)] = pq
		data, err := ingest.FormatRunConfig(r.Config)
		if err != nil {
			return nil, err
		}
		files[path.Join(runDir, ingest.RunConfigFile)] = data
		if len(r.GPU) > 0 {
			files[path.Join(runDir, GPUFile)] = FormatGPUCSV(r.GPU)
		}
		if r.ScrapeStart != nil && r.ScrapeEnd != nil {
			files[path.Join(runDir, ingest.ScrapeStartFile)] = r.ScrapeStart
			files[path.Join(runDir, ingest.ScrapeEndFile)] = r.ScrapeEnd
		}
		if len(r.Env) > 0 {
			env, err := envJSON(r.Env)
			if err != nil {
				return nil, err
			}
			files[path.Join(runDir, "env.json")] = env
		}
	}
	if err := verifyLayout(imp, files); err != nil {
		return nil, err
	}
	record, err := importRecord(imp, files)
	if err != nil {
		return nil, err
	}
	files[ingest.ImportRecordFile] = record
	return files, nil
}

// seriesDirs names the directory of each series of runs (seriesDir); a
// name two series would share is hashed for each.
func seriesDirs(runs []Run) map[ingest.Series]string {
	out := map[ingest.Series]string{}
	owner := map[string]ingest.Series{}
	for _, r := range runs {
		s := r.Config.Series
		if _, ok := out[s]; ok {
			continue
		}
		d := seriesDir(s, false)
		out[s] = d
		if o, ok := owner[d]; ok && d != "" {
			out[s], out[o] = seriesDir(s, true), seriesDir(o, true)
			continue
		}
		owner[d] = s
	}
	return out
}

// safeSegment makes a series name usable as one path segment.
func safeSegment(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r < ' ' {
			return '_'
		}
		return r
	}, s)
	if s == "" || s == "." || s == ".." || strings.HasPrefix(s, ".") {
		s = "_" + s
	}
	return s
}

// envJSON writes environment keys as a JSON object in their order.
func envJSON(kvs []ingest.KV) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("{\n")
	seen := map[string]bool{}
	first := true
	for _, kv := range kvs {
		if seen[kv.Key] {
			continue
		}
		seen[kv.Key] = true
		k, err := json.Marshal(kv.Key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(kv.Value)
		if err != nil {
			return nil, err
		}
		if !first {
			b.WriteString(",\n")
		}
		first = false
		fmt.Fprintf(&b, "  %s: %s", k, v)
	}
	b.WriteString("\n}\n")
	return b.Bytes(), nil
}

// record is benchnote-import.yaml: what was read and every file written,
// with its SHA-256, so a later import can tell its own files from the
// user's.
type record struct {
	Comment string       `yaml:"written_by"`
	Sources []FileFormat `yaml:"sources"`
	Skipped []FileFormat `yaml:"skipped,omitempty"`
	// Series says which series labels the runs were given, and why.
	Series string `yaml:"series,omitempty"`
	// Duplicates lists the runs read but not written: the same run as one
	// written.
	Duplicates []recordDuplicate `yaml:"duplicates,omitempty"`
	Files      []fileHash        `yaml:"files"`
}

// recordDuplicate is a run left out of the import as the same run as the
// one written in SameAs.
type recordDuplicate struct {
	Source string `yaml:"source"`
	Where  string `yaml:"where,omitempty"`
	SameAs string `yaml:"same_as"`
	Reason string `yaml:"reason"`
}

type fileHash struct {
	Path   string `yaml:"path"`
	SHA256 string `yaml:"sha256"`
}

func importRecord(imp *Import, files map[string][]byte) ([]byte, error) {
	rec := record{Comment: "benchnote import", Sources: imp.Files, Skipped: imp.Skipped, Series: imp.SeriesNote}
	for _, d := range imp.Duplicates {
		rec.Duplicates = append(rec.Duplicates, recordDuplicate{Source: d.Source, Where: d.Where, SameAs: imp.Runs[d.Kept].Dir, Reason: d.Reason})
	}
	var names []string
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		sum := sha256.Sum256(files[n])
		rec.Files = append(rec.Files, fileHash{n, hex.EncodeToString(sum[:])})
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(rec); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Write writes files as the sweep directory dir, the way benchnote writes
// every directory (package outdir): atomically, under a lock, and only in
// place of nothing, an empty directory or a previous import whose files
// are all unchanged; anything else there (a scrape or an environment log
// the user added, an edited file, a user's empty directory tree) makes
// Write refuse with an *outdir.RefusedError, so nothing benchnote did not
// write is ever deleted. inputs are the files imported: dir may not be,
// hold or lie inside one.
func Write(dir string, files map[string][]byte, inputs []string) error {
	opts := outdir.Options{Kind: outdir.Sweep, Inputs: inputs}
	if err := outdir.Check(dir, opts); err != nil {
		var refused *outdir.RefusedError
		if errors.As(err, &refused) && earlierImport(dir) {
			refused.Reason = fmt.Sprintf("it is an import written by an earlier benchnote (it holds %s but no %s marker), which this version does not replace; remove it yourself if you no longer need it",
				ingest.ImportRecordFile, outdir.SweepMarkerName)
		}
		return err
	}
	return outdir.Replace(dir, files, opts)
}

// earlierImport reports whether dir holds an import record but no marker:
// an import written before imports were marked.
func earlierImport(dir string) bool {
	_, rerr := os.Lstat(filepath.Join(dir, ingest.ImportRecordFile))
	_, merr := os.Lstat(filepath.Join(dir, outdir.SweepMarkerName))
	return rerr == nil && errors.Is(merr, fs.ErrNotExist)
}

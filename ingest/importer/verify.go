package importer

import (
	"bytes"
	"fmt"
	"path"

	"github.com/benchnote/benchnote/ingest"
)

// wouldNotValidate is verifyLayout's error: an importer's mistake, never
// the input's.
type wouldNotValidate struct{ msg string }

func (e *wouldNotValidate) Error() string { return e.msg }

// verifyLayout reads back what Layout produced with ingest's own readers,
// as validate and report will: every requests.parquet must keep every row
// written, every run.yaml, reported.yaml and env.json must read without a
// problem. The importers check every value against ingest's ranges and
// leave out the requests ingest would not keep; anything this finds is an
// importer's mistake, and the import is refused rather than written.
func verifyLayout(imp *Import, files map[string][]byte) error {
	for _, r := range imp.Runs {
		bug := func(name, what string) error {
			return &wouldNotValidate{fmt.Sprintf("%s: the %s written for it would not validate (%s); nothing was written: this is a benchnote bug, please report it", r.Source, name, what)}
		}
		config := path.Join(r.Dir, ingest.RunConfigFile)
		if r.Requests == nil {
			config = path.Join(r.Dir, ingest.ReportedFile)
		} else {
			name := path.Join(r.Dir, ingest.RequestsParquet)
			rf, err := ingest.ReadRequestsParquetWith(bytes.NewReader(files[name]), name, ingest.ReadOptions{MaxRows: r.Requests.N + 1, ForAnalysis: true})
			switch {
			case err != nil:
				return bug(name, err.Error())
			case len(rf.Excluded) > 0:
				return bug(name, fmt.Sprintf("%d rows excluded, the first: %s", rf.ExcludedRows(), rf.Excluded[0]))
			case rf.ExcludedRows() > 0:
				return bug(name, rf.Unlisted[0].Diagnostic(name).String())
			case rf.Requests.N != r.Requests.N:
				return bug(name, fmt.Sprintf("%d rows read back of %d written", rf.Requests.N, r.Requests.N))
			}
		}
		for _, name := range []string{ingest.ScrapeStartFile, ingest.ScrapeEndFile} {
			name = path.Join(r.Dir, name)
			data, ok := files[name]
			if !ok {
				continue
			}
			sc, err := ingest.ParseScrape(bytes.NewReader(data), name, ingest.DefaultMetricNames(), nil)
			switch {
			case err != nil:
				return bug(name, err.Error())
			case sc.Timestamp.IsZero():
				return bug(name, "no sample timestamps")
			}
		}
		if diags := ingest.CheckRunConfig(files[config], config); len(diags) > 0 {
			return bug(config, diags[0].String())
		}
		env := path.Join(r.Dir, "env.json")
		if data, ok := files[env]; ok {
			src := ingest.ParseEnvFile(data, env)
			switch {
			case src.Format != "json":
				return bug(env, "not read as JSON")
			case len(src.Diagnostics) > 0:
				return bug(env, src.Diagnostics[0].String())
			}
		}
	}
	return nil
}

package report

import "github.com/benchnote/benchnote/internal/outdir"

// WriteDir writes files (keyed by slash path) as the report directory dir,
// made from inputs (the sweep directory, a notebook). It replaces dir only
// when dir is absent, an empty directory or an unchanged report benchnote
// wrote, and swaps the new report in atomically: see package outdir. A
// refusal is an *outdir.RefusedError and changes nothing; any other
// failure leaves the previous dir as it was.
func WriteDir(dir string, files map[string][]byte, inputs ...string) error {
	return outdir.Replace(dir, files, outdir.Options{Kind: outdir.Report, Inputs: inputs})
}

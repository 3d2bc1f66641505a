package ingest

// CheckRunConfig reads a run.yaml (or reported.yaml) as Load does and
// returns every problem Load would report about it, errors and warnings
// alike, in line order; none for a file Load reads as written. Writers of
// run.yaml (benchnote import) use it to refuse to write a file that would
// not validate.
func CheckRunConfig(data []byte, file string) []Diagnostic {
	_, diags := parseRunConfig(data, file)
	return diags
}

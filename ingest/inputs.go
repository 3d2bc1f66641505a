package ingest

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
)

// InputFiles lists the files of the sweep rooted at root that Load reads:
// sweep.yaml, every environment log (env.*), and in every run directory
// its requests file, run.yaml, the two scrapes and its GPU telemetry
// (gpu.csv, gpu-*.csv). Paths are relative to
// root, slash-separated and sorted. The files Load does not read are
// returned with the reason, as in Sweep.IgnoredFiles. An archive copies
// exactly the inputs, so that a sweep can be analysed again from them.
func InputFiles(root string) (inputs []string, ignored []IgnoredFile, err error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, nil, fmt.Errorf("sweep: %w", err)
	}
	if !info.IsDir() {
		return nil, nil, fmt.Errorf("sweep: %s is not a directory", root)
	}
	t, err := scanTree(root)
	if err != nil {
		return nil, nil, err
	}
	if fi, err := os.Stat(filepath.Join(root, SweepConfigFile)); err == nil && fi.Mode().IsRegular() {
		inputs = append(inputs, SweepConfigFile)
	}
	for _, dir := range t.envDirs {
		for _, name := range t.envFiles[dir] {
			inputs = append(inputs, path.Join(dir, name))
		}
	}
	read := map[string]bool{RunConfigFile: true, RequestsCSV: true, RequestsParquet: true, ScrapeStartFile: true, ScrapeEndFile: true}
	for _, dir := range t.runDirs {
		for _, name := range t.runFiles[dir] {
			if read[name] || isGPUFile(name) {
				inputs = append(inputs, path.Join(dir, name))
			}
		}
	}
	sort.Strings(inputs)
	return inputs, t.ignored, nil
}

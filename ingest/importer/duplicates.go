package importer

// Duplicates are not repeats: the same file given twice (benchnote import
// F F), or two results holding the same records, are one run. Two runs
// can only be the same when they have the same series, level and number
// of requests; only then are their records compared, a column first and
// then the encoded requests.parquet (which Layout reuses), so the check
// costs nothing on an import without duplicates.

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"slices"

	"github.com/benchnote/benchnote/ingest"
)

// dropDuplicates removes from imp.Runs every run that is the same as an
// earlier one of the same series and level, and lists it in
// imp.Duplicates.
func dropDuplicates(imp *Import) error {
	type key struct {
		series     ingest.Series
		level      ingest.LoadLevel
		perRequest bool
		n          int
	}
	byKey := map[key][]int{} // indices into kept
	var kept []Run
	var dups []Duplicate
	var keptFrom []int // for each dup, the index in kept of the run kept
	for i := range imp.Runs {
		r := &imp.Runs[i]
		k := key{r.Config.Series, r.Config.Load, r.Requests != nil, 0}
		if r.Requests != nil {
			k.n = r.Requests.N
		}
		same, reason := -1, ""
		for _, j := range byKey[k] {
			ok, err := sameRun(&kept[j], r)
			if err != nil {
				return err
			}
			if ok {
				same = j
				break
			}
		}
		if same < 0 {
			byKey[k] = append(byKey[k], len(kept))
			kept = append(kept, *r)
			continue
		}
		o := &kept[same]
		switch {
		case filepath.Clean(o.Source) == filepath.Clean(r.Source) && o.Where == r.Where:
			reason = "the same file given twice"
		case r.Requests != nil:
			reason = "identical per-request records"
		default:
			reason = "identical figures (the file holds aggregates only)"
		}
		dups = append(dups, Duplicate{Source: r.Source, Where: r.Where, Reason: reason})
		keptFrom = append(keptFrom, same)
	}
	for i := range dups {
		dups[i].Kept = keptFrom[i]
	}
	imp.Runs, imp.Duplicates = kept, dups
	return nil
}

// sameRun reports whether b holds the same run as a: for per-request
// runs, the same records (TTFT compared first, then the encoded files);
// for aggregates, the same run.yaml but for the repeat and file name.
// Runs from which different requests were left out are not the same.
func sameRun(a, b *Run) (bool, error) {
	if a.Requests == nil || b.Requests == nil {
		ca, cb := a.Config, b.Config
		ca.Repeat, cb.Repeat = 0, 0
		pa, pb := *ca.Provenance, *cb.Provenance
		pa.File, pb.File = "", ""
		ca.Provenance, cb.Provenance = &pa, &pb
		x, err := ingest.FormatRunConfig(ca)
		if err != nil {
			return false, err
		}
		y, err := ingest.FormatRunConfig(cb)
		return err == nil && bytes.Equal(x, y), err
	}
	if !sameBits(a.Requests.TTFTms, b.Requests.TTFTms) || !sameBits(a.Requests.E2Ems, b.Requests.E2Ems) ||
		!slices.EqualFunc(a.Excluded, b.Excluded, func(x, y Excluded) bool { return x.Reason == y.Reason && x.Requests == y.Requests }) {
		// Requests left out of one and not the other: two files.
		return false, nil
	}
	x, err := a.encoded()
	if err != nil {
		return false, err
	}
	y, err := b.encoded()
	if err != nil {
		return false, err
	}
	return bytes.Equal(x, y), nil
}

// sameBits reports whether two columns hold the same values bit for bit
// (NaN, a missing value, equal to NaN).
func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// encoded returns the run's requests.parquet, encoding it once.
func (r *Run) encoded() ([]byte, error) {
	if r.parquet == nil {
		var b bytes.Buffer
		if err := ingest.WriteRequestsParquet(&b, r.Requests); err != nil {
			return nil, fmt.Errorf("%s: %w", r.Source, err)
		}
		r.parquet = b.Bytes()
	}
	return r.parquet, nil
}

// describeRun names a run in a message: its source, and where in it.
func describeRun(source, where string) string {
	if where == "" {
		return source
	}
	return source + " " + where
}

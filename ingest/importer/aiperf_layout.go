package importer

// AIPerf's artifact directories (docs/reference/parameter-sweeping and
// multi-run docs of ai-dynamo/aiperf):
//
//	--num-profile-runs N:         …/profile_runs/run_0001/ … run_000N/
//	a sweep, repeated mode:       …/profile_runs/trial_0001/concurrency_10/
//	a sweep, independent mode:    …/concurrency_10/profile_runs/trial_0001/
//
// run_NNNN and trial_NNNN are repeats; a sweep's parameter directory
// (name_value) is the level when it sweeps concurrency or request_rate,
// else a series.

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/benchnote/benchnote/ingest"
)

var (
	aiperfRepeatDir = regexp.MustCompile(`^(?:run|trial)_([0-9]{1,9})$`)
	aiperfParamDir  = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_.]*?)_(-?[0-9][0-9.eE+-]*)$`)
)

// aiperfPlace is where a file lies in AIPerf's artifact directories.
type aiperfPlace struct {
	repeat       int    // from run_NNNN or trial_NNNN; 0 when none
	param, value string // the sweep's parameter directory, split
	from         string // the directories read, for provenance
}

// aiperfLevelDir is a sweep directory naming the load.
var aiperfLevelDir = regexp.MustCompile(`^(concurrency|request_rate)_([0-9]+(?:\.[0-9]+)?)$`)

// aiperfDirLevel reads the load level from the nearest directory above
// file named concurrency_N or request_rate_R (AIPerf's sweep directories),
// for records without their summary.
func aiperfDirLevel(file string) (ingest.LoadLevel, string) {
	segs := strings.Split(filepath.ToSlash(filepath.Dir(file)), "/")
	for i := len(segs) - 1; i >= 0; i-- {
		m := aiperfLevelDir.FindStringSubmatch(segs[i])
		if m == nil {
			continue
		}
		v, err := strconv.ParseFloat(m[2], 64)
		switch {
		case err != nil || v <= 0:
		case m[1] == "concurrency" && v == float64(int(v)) && v <= ingest.MaxConcurrency:
			return ingest.ConcurrencyLoad(int(v)), segs[i]
		case m[1] == "request_rate" && v <= ingest.MaxRate:
			return ingest.RateLoad(v, ""), segs[i]
		}
		return ingest.LoadLevel{}, ""
	}
	return ingest.LoadLevel{}, ""
}

// aiperfPlaceOf reads a file's place from the directories above it.
func aiperfPlaceOf(file string) aiperfPlace {
	segs := strings.Split(filepath.ToSlash(filepath.Dir(file)), "/")
	var pl aiperfPlace
	for i := len(segs) - 1; i >= 1; i-- {
		m := aiperfRepeatDir.FindStringSubmatch(segs[i])
		if m == nil || segs[i-1] != "profile_runs" {
			continue
		}
		n, err := strconv.Atoi(m[1])
		if err != nil || n < 1 || n > ingest.MaxRepeat {
			return aiperfPlace{}
		}
		pl.repeat = n
		pl.from = "profile_runs/" + segs[i]
		// Repeated mode: the parameter directory below the trial;
		// independent mode: above profile_runs.
		var p string
		switch {
		case i+1 < len(segs):
			p = segs[i+1]
		case i >= 2:
			p = segs[i-2]
		}
		if m := aiperfParamDir.FindStringSubmatch(p); m != nil && strings.HasPrefix(segs[i], "trial_") {
			pl.param, pl.value = m[1], m[2]
			pl.from += " and " + p
		}
		break
	}
	return pl
}

// apply gives a run the repeat and the series its place says, where the
// file's own run_info did not.
func (pl aiperfPlace) apply(r *Run) {
	if pl.repeat > 0 && r.Requests != nil && r.Config.Repeat == 0 {
		r.Config.Repeat = pl.repeat
	}
	switch pl.param {
	case "", "concurrency", "request_rate":
		// The level: the summary or --level gives it.
	default:
		label := pl.param
		if !ingestLabelName(label) {
			label = "variation"
		}
		r.traits.add(label, pl.value, pl.from)
	}
}

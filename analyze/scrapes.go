package analyze

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/benchnote/benchnote/ingest"
)

// checkScrapes compares a run's start and end scrapes: an empty file, two
// identical files, a window in which nothing was counted, and anything
// that shows the two cannot come from one server process (the measurement
// rules ask for deltas of the same series, same labels, same process).
func checkScrapes(run *ingest.Run) ScrapeCheck {
	var c ScrapeCheck
	start, end := run.ScrapeStart, run.ScrapeEnd
	for _, s := range []*ingest.Scrape{start, end} {
		if s != nil && s.Families == 0 && len(s.Counters) == 0 && len(s.Histograms) == 0 {
			c.Empty = append(c.Empty, s.Path)
		}
	}
	if start == nil || end == nil || len(c.Empty) > 0 {
		return c
	}
	if start.Digest == end.Digest && start.Digest != [32]byte{} {
		c.Identical = true
		return c
	}
	if s, e := start.ProcessStartTime, end.ProcessStartTime; s > 0 && e > 0 && s != e {
		c.NotOneProcess = append(c.NotOneProcess, fmt.Sprintf("process_start_time_seconds is %s in the start scrape and %s in the end scrape",
			formatTime(unixTime(s)), formatTime(unixTime(e))))
	}
	compared, changed := 0, 0
	relabelled := &labelChanges{}
	for _, role := range ingest.CounterRoles {
		s, ok1 := start.Counters[role]
		e, ok2 := end.Counters[role]
		if !ok1 || !ok2 {
			continue
		}
		compared++
		if s != e {
			changed++
		}
		if e < s {
			c.NotOneProcess = append(c.NotOneProcess, fmt.Sprintf("counter %s decreased from %g to %g", end.CounterNames[role], s, e))
		}
		c.NotOneProcess = append(c.NotOneProcess, relabelled.note(role, start.CounterNames[role], end.CounterNames[role], start.Series[role], end.Series[role])...)
	}
	for _, role := range ingest.HistogramRoles {
		s, ok1 := start.Histograms[role]
		e, ok2 := end.Histograms[role]
		if !ok1 || !ok2 {
			continue
		}
		compared++
		if !sameHistogram(s, e) {
			changed++
		}
		if e.Count < s.Count {
			c.NotOneProcess = append(c.NotOneProcess, fmt.Sprintf("histogram %s: observation count decreased from %g to %g", end.HistogramNames[role], s.Count, e.Count))
		}
		c.NotOneProcess = append(c.NotOneProcess, relabelled.note(role, start.HistogramNames[role], end.HistogramNames[role], start.Series[role], end.Series[role])...)
	}
	c.NotOneProcess = append(c.NotOneProcess, relabelled.list()...)
	c.Unchanged = compared > 0 && changed == 0
	return c
}

// labelChanges gathers the series whose labels differ between the start
// and the end scrape, grouped by the change (usually one: another model or
// engine, on every metric).
type labelChanges struct {
	changes []string            // "start → end" label pairs, in first-seen order
	metrics map[string][]string // change -> metric names
}

// note records how the series a role was read from differs between the
// scrapes and returns a reason when it is another metric name; label
// changes are kept for list. Label sets unknown on either side are not
// compared.
func (lc *labelChanges) note(role ingest.MetricRole, startName, endName, startLabels, endLabels string) []string {
	if startName != "" && endName != "" && startName != endName {
		return []string{fmt.Sprintf("%s is read from %s in the start scrape and from %s in the end scrape", role, startName, endName)}
	}
	if startLabels == "" || endLabels == "" || startLabels == endLabels {
		return nil
	}
	change := fmt.Sprintf("labels %s in the start scrape and %s in the end scrape", startLabels, endLabels)
	if lc.metrics == nil {
		lc.metrics = map[string][]string{}
	}
	if _, ok := lc.metrics[change]; !ok {
		lc.changes = append(lc.changes, change)
	}
	lc.metrics[change] = append(lc.metrics[change], endName)
	return nil
}

// list returns one reason per label change, naming its metrics.
func (lc *labelChanges) list() []string {
	var out []string
	for _, ch := range lc.changes {
		out = append(out, fmt.Sprintf("%s (%s)", ch, strings.Join(lc.metrics[ch], ", ")))
	}
	return out
}

func sameHistogram(a, b ingest.Histogram) bool {
	return a.Count == b.Count && a.Sum == b.Sum && slices.Equal(a.Buckets, b.Buckets)
}

func unixTime(sec float64) time.Time {
	return time.Unix(0, int64(sec*1e9)).UTC()
}

// scrapePairUnusable says why a run's scrapes give no server figures at
// all, "" when their deltas can be used.
func scrapePairUnusable(run *ingest.Run, c ScrapeCheck) string {
	switch {
	case c.Identical:
		return fmt.Sprintf("%s and %s are identical files: they do not bracket the run's window",
			path.Base(run.ScrapeStart.Path), path.Base(run.ScrapeEnd.Path))
	case len(c.NotOneProcess) > 0:
		return "the start and end scrapes cannot come from one server process: " + strings.Join(c.NotOneProcess, "; ")
	}
	return ""
}

// roleUnread says why a role was not read from a run's scrapes, naming
// the scrape: "vllm:generation_tokens_total has 2 series and no
// label_selector chooses one (both scrapes)". has reports whether a
// scrape holds the role.
func roleUnread(role ingest.MetricRole, start, end *ingest.Scrape, has func(*ingest.Scrape) bool) string {
	why := func(s *ingest.Scrape) string {
		if has(s) {
			return ""
		}
		if r := s.Unread[role]; r != "" {
			return r
		}
		return "not present"
	}
	ws, we := why(start), why(end)
	switch {
	case ws == we:
		return ws + " (both scrapes)"
	case ws == "":
		return we + " (end scrape)"
	case we == "":
		return ws + " (start scrape)"
	}
	return ws + " (start scrape); " + we + " (end scrape)"
}

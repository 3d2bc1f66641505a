package report

import (
	"fmt"
	"strings"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/internal/textfmt"
)

// A suspect figure rests on data that failed a check (analyze.Suspicion):
// it is written between suspectOpen and suspectClose, two control
// characters no input reaches the document with, followed by a mark
// ("⚠a") that a note under its table explains. report.html greys what is
// between them; report.md drops the delimiters and keeps the mark.
const (
	suspectOpen  = "\x11"
	suspectClose = "\x12"
)

// noteKey is one note: a check one level failed.
type noteKey struct {
	level analyze.LevelKey
	rule  string
}

// notes formats the across-run cells of one table and collects the notes
// its suspect cells refer to.
type notes struct {
	s     *analyze.Summary
	order []noteKey
	ids   map[noteKey]string
	// series names each note's series too (a table of several series).
	series *seriesNaming
}

func newNotes(s *analyze.Summary) *notes { return &notes{s: s, ids: map[noteKey]string{}} }

// stat formats a level's across-run statistic, marked when suspect.
func (n *notes) stat(l analyze.Level, key string) string {
	ar, ok := l.Stat(key)
	if !ok {
		return na
	}
	return n.mark(l, key, fmtAcross(ar, len(l.Runs)))
}

// mark wraps a formatted figure of the statistic key as suspect when the
// level's data failed a check concerning it; "n/a" stays as it is.
func (n *notes) mark(l analyze.Level, key, text string) string {
	if text == na {
		return text
	}
	sus := l.Suspicions(key)
	if len(sus) == 0 {
		return text
	}
	var ids []string
	for _, su := range sus {
		ids = append(ids, n.id(l.LevelKey, su.Rule))
	}
	return suspectOpen + text + " ⚠" + strings.Join(ids, ",") + suspectClose
}

// id returns the mark of a note, adding the note on first use.
func (n *notes) id(level analyze.LevelKey, rule string) string {
	k := noteKey{level, rule}
	if id, ok := n.ids[k]; ok {
		return id
	}
	id := markLetters(len(n.order))
	n.ids[k] = id
	n.order = append(n.order, k)
	return id
}

// markLetters names the i-th note: a … z, aa, ab, …
func markLetters(i int) string {
	s := ""
	for {
		s = string(rune('a'+i%26)) + s
		i = i/26 - 1
		if i < 0 {
			return s
		}
	}
}

// footer lists the notes the table's marks refer to ("" when none).
func (n *notes) footer() string {
	if len(n.order) == 0 {
		return ""
	}
	v := viewOf(n.s)
	var b strings.Builder
	b.WriteString("\n")
	for _, k := range n.order {
		su := suspicionOf(n.s, k.level, k.rule)
		where := v.name(k.level.Load())
		if n.series != nil {
			where = mdEscape(n.series.name(k.level.Series)) + ", " + where
		}
		fmt.Fprintf(&b, "- ⚠%s %s: %s.\n", n.ids[k], where, suspicionText(n.s, su))
	}
	return b.String()
}

// suspicionOf is level's suspicion under rule (the last, should there be
// several), the zero Suspicion when it has none.
func suspicionOf(s *analyze.Summary, level analyze.LevelKey, rule string) analyze.Suspicion {
	var su analyze.Suspicion
	for _, l := range s.Levels {
		if l.LevelKey != level {
			continue
		}
		for _, x := range l.Suspect {
			if x.Rule == rule {
				su = x
			}
		}
	}
	return su
}

// suspicionText says in words why a suspicion makes figures suspect.
func suspicionText(s *analyze.Summary, su analyze.Suspicion) string {
	where := "the level as a whole"
	if len(su.Runs) > 0 {
		var runs []string
		for i, r := range su.Runs {
			if i == maxNamedRuns {
				runs = append(runs, fmt.Sprintf("%d more", len(su.Runs)-maxNamedRuns))
				break
			}
			runs = append(runs, code(r))
		}
		where = fmt.Sprintf("%d of %d %s (%s)", len(su.Runs), su.RunsOf, textfmt.Plural(su.RunsOf, "run", "runs"), strings.Join(runs, ", "))
	}
	thr := fmtNum(analyze.Num(100*s.Method.ErrorRateThreshold)) + " %"
	switch su.Rule {
	case "error-rate":
		return fmt.Sprintf("over %s of measured requests failed in %s: latency describes only those that succeeded", thr, where)
	case "zero-output-requests":
		return fmt.Sprintf("over %s of measured requests returned no output token in %s: latency describes only those with output", thr, where)
	case "warm-up-never-stabilised":
		return fmt.Sprintf("warm-up never stabilised in %s, so nothing was discarded and warm-up may be measured", where)
	case "warm-up-unavailable":
		return fmt.Sprintf("the send order is unknown in %s, so warm-up could not be looked for and may be measured", where)
	case "counter-client-mismatch":
		return fmt.Sprintf("the generation-token counter disagrees with the client's completion tokens by more than %s in %s", fmtNum(analyze.Num(100*s.Method.CounterTolerance))+" %", where)
	case "scrapes-unchanged":
		return fmt.Sprintf("the start and end scrapes did not change in %s: the server counted nothing in the window", where)
	}
	return "a check failed in " + where
}

// shortSuspicion names a check in a few words, for a suspect figure in a
// sentence.
func shortSuspicion(rule string) string {
	switch rule {
	case "error-rate":
		return "many requests failed"
	case "zero-output-requests":
		return "many requests returned no output"
	case "warm-up-never-stabilised":
		return "warm-up never stabilised"
	case "warm-up-unavailable":
		return "warm-up not looked for"
	case "counter-client-mismatch":
		return "counter cross-check failed"
	case "scrapes-unchanged":
		return "scrapes unchanged"
	}
	return rule
}

// suspectInline marks a figure in a sentence when the level's data failed
// a check concerning its statistic: greyed, with the checks named.
func suspectInline(l analyze.Level, key, text string) string {
	sus := l.Suspicions(key)
	if len(sus) == 0 || text == na {
		return text
	}
	var why []string
	for _, su := range sus {
		why = append(why, shortSuspicion(su.Rule))
	}
	return suspectOpen + text + " ⚠ suspect: " + strings.Join(why, "; ") + suspectClose
}

// maxNamedRuns is how many runs a note names.
const maxNamedRuns = 5

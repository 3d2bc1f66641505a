package ingest

// This file bounds what is kept about excluded rows: every row is counted,
// but only the first MaxListedExclusions rows of each (reason, column) pair
// get a Diagnostic of their own, so a small file that repeats one bad row
// millions of times costs counters, not millions of messages.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/benchnote/benchnote/internal/textfmt"
)

// MaxListedExclusions is the number of excluded rows of one reason in one
// column that are listed in RequestFile.Excluded; the rest are counted in
// RequestFile.Unlisted.
const MaxListedExclusions = 10

// maxUnlistedLines is the number of line numbers kept for unlisted rows.
const maxUnlistedLines = 5

// UnlistedRows counts the excluded rows of one reason in one column that
// have no Diagnostic in RequestFile.Excluded.
type UnlistedRows struct {
	Reason string
	// Column is 1-based, 0 when the reason concerns no single column.
	Column     int
	ColumnName string
	// Rows is the number of rows counted here, at least 1.
	Rows int
	// Lines are the lines (CSV) or rows (Parquet) of the first few of them.
	Lines []int
	// Value is the offending value, quoted, when every row counted here has
	// the same one; "" otherwise.
	Value string
}

// Diagnostic summarises u as one Warning on the file at path, placed at
// the first unlisted line, for example
// `5,242,879 more rows excluded as duplicate request_id, each with "same-id" (lines 12, 13, 14, 15, 16, ...)`.
func (u UnlistedRows) Diagnostic(path string) Diagnostic {
	msg := fmt.Sprintf("%s more %s excluded as %s", textfmt.Thousands(u.Rows), textfmt.Plural(u.Rows, "row", "rows"), u.Reason)
	if u.ColumnName != "" {
		msg += " in " + u.ColumnName
	}
	if u.Value != "" {
		msg += ", each with " + u.Value
	}
	what := "line"
	if len(u.Lines) > 1 {
		what = "lines"
	}
	nums := make([]string, len(u.Lines))
	for i, l := range u.Lines {
		nums[i] = strconv.Itoa(l)
	}
	more := ""
	if u.Rows > len(u.Lines) {
		more = ", ..."
	}
	msg += fmt.Sprintf(" (%s %s%s); only the first %d are listed one by one", what, strings.Join(nums, ", "), more, MaxListedExclusions)
	d := Diagnostic{Severity: Warning, File: path, Column: u.Column, ColumnName: u.ColumnName, Reason: u.Reason, Message: msg}
	if len(u.Lines) > 0 {
		d.Line = u.Lines[0]
	}
	return d
}

// ExcludedRows is the number of rows excluded: those listed in Excluded
// plus those only counted in Unlisted.
func (rf *RequestFile) ExcludedRows() int {
	n := len(rf.Excluded)
	for _, u := range rf.Unlisted {
		n += u.Rows
	}
	return n
}

// ExcludedByReason counts the excluded rows by reason, listed and
// unlisted, in the order each reason first occurs in the file.
func (rf *RequestFile) ExcludedByReason() []ReasonCount {
	var out []ReasonCount
	at := map[string]int{}
	lines := map[string]int{}
	add := func(reason string, n, line int) {
		i, ok := at[reason]
		if !ok {
			i = len(out)
			at[reason] = i
			out = append(out, ReasonCount{Reason: reason})
			lines[reason] = line
		}
		out[i].Rows += n
		lines[reason] = min(lines[reason], line)
	}
	for _, d := range rf.Excluded {
		add(d.Reason, 1, d.Line)
	}
	for _, u := range rf.Unlisted {
		line := 0
		if len(u.Lines) > 0 {
			line = u.Lines[0]
		}
		add(u.Reason, u.Rows, line)
	}
	slices.SortStableFunc(out, func(a, b ReasonCount) int { return lines[a.Reason] - lines[b.Reason] })
	return out
}

// ReasonCount is a number of excluded rows sharing a reason.
type ReasonCount struct {
	Reason string
	Rows   int
}

// exclusions collects a file's excluded rows, listing the first
// MaxListedExclusions of each reason and column and counting the rest.
// Rows of one reason and column must be added in line order.
type exclusions struct {
	listed []Diagnostic
	groups map[exclusionKey]*exclusionGroup
	order  []exclusionKey
}

type exclusionKey struct {
	reason string
	column int
}

type exclusionGroup struct {
	listed   int
	unlisted UnlistedRows
	// sameValue is true while every unlisted row had unlisted.Value.
	sameValue bool
}

// lists reports whether the next row excluded for reason in column (1-based,
// 0 for none) will be listed, so that callers can skip building a message
// that would only be counted.
func (x *exclusions) lists(reason string, column int) bool {
	g := x.groups[exclusionKey{reason, column}]
	return g == nil || g.listed < MaxListedExclusions
}

// add records one excluded row. d must carry its reason, line and column;
// its message is needed only when x.lists says so. value is the offending
// value as written in the file ("" when there is none), used to say when
// every unlisted row shares it; it is copied when kept.
func (x *exclusions) add(d Diagnostic, value string) {
	key := exclusionKey{d.Reason, d.Column}
	if x.groups == nil {
		x.groups = map[exclusionKey]*exclusionGroup{}
	}
	g := x.groups[key]
	if g == nil {
		g = &exclusionGroup{}
		x.groups[key] = g
		x.order = append(x.order, key)
	}
	if g.listed < MaxListedExclusions {
		g.listed++
		x.listed = append(x.listed, d)
		return
	}
	u := &g.unlisted
	if u.Rows == 0 {
		u.Reason, u.Column, u.ColumnName = d.Reason, d.Column, d.ColumnName
		u.Value = strings.Clone(value)
		g.sameValue = value != ""
	} else if g.sameValue && value != u.Value {
		g.sameValue = false
	}
	u.Rows++
	if len(u.Lines) < maxUnlistedLines {
		u.Lines = append(u.Lines, d.Line)
	}
}

// store puts the listed diagnostics, in line order, and the unlisted
// counts, in order of their first line, into rf.
func (x *exclusions) store(rf *RequestFile) {
	slices.SortStableFunc(x.listed, func(a, b Diagnostic) int { return a.Line - b.Line })
	rf.Excluded = x.listed
	rf.Unlisted = nil
	for _, key := range x.order {
		g := x.groups[key]
		if g.unlisted.Rows == 0 {
			continue
		}
		u := g.unlisted
		if g.sameValue {
			u.Value = quoteValue(u.Value)
		} else {
			u.Value = ""
		}
		rf.Unlisted = append(rf.Unlisted, u)
	}
	slices.SortStableFunc(rf.Unlisted, func(a, b UnlistedRows) int { return a.Lines[0] - b.Lines[0] })
}

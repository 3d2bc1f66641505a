package ingest

import "strings"

// StatusColumn holds the status column as dictionary codes: row i's status
// is Texts[Codes[i]]. A status column holds a handful of distinct texts
// ("ok", "", a few error messages) repeated row after row, so a row costs
// four bytes and no pointer for the garbage collector to follow, and a
// property of a status (has the request failed?) is worked out once per
// text, not once per row.
type StatusColumn struct {
	Codes []uint32
	Texts []string
	index map[string]uint32 // Texts' codes, built by the first Append
	last  uint32            // the code appended last: most rows repeat it
}

// StatusColumnOf builds a column holding ss.
func StatusColumnOf(ss ...string) *StatusColumn {
	c := &StatusColumn{}
	for _, s := range ss {
		c.Append(s)
	}
	return c
}

// Len is the number of rows (0 for a nil column: no status column).
func (c *StatusColumn) Len() int {
	if c == nil {
		return 0
	}
	return len(c.Codes)
}

// At returns row i's status.
func (c *StatusColumn) At(i int) string { return c.Texts[c.Codes[i]] }

// Strings returns every row's status.
func (c *StatusColumn) Strings() []string {
	out := make([]string, len(c.Codes))
	for i, k := range c.Codes {
		out[i] = c.Texts[k]
	}
	return out
}

// Append adds a row with status s (copied when it is a new text).
func (c *StatusColumn) Append(s string) {
	c.Codes = append(c.Codes, c.code(s))
}

// code returns the code of text s, adding it when it is new.
func (c *StatusColumn) code(s string) uint32 {
	if int(c.last) < len(c.Texts) && c.Texts[c.last] == s {
		return c.last
	}
	if c.index == nil {
		c.index = make(map[string]uint32, len(c.Texts)+1)
		for k, t := range c.Texts {
			c.index[t] = uint32(k)
		}
	}
	k, ok := c.index[s]
	if !ok {
		k = uint32(len(c.Texts))
		s = strings.Clone(s) // the caller's bytes may be reused
		c.Texts = append(c.Texts, s)
		c.index[s] = k
	}
	c.last = k
	return k
}

// Failed returns, for every code, whether its text marks a failed request
// (StatusFailed).
func (c *StatusColumn) Failed() []bool {
	out := make([]bool, len(c.Texts))
	for k, t := range c.Texts {
		out[k] = StatusFailed(t)
	}
	return out
}

// removeRows removes the given rows (ascending).
func (c *StatusColumn) removeRows(rows []int) {
	c.Codes = removeAt(c.Codes, rows)
}

package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/benchnote/benchnote/ingest"
)

// sloOverride is what report --slo sets: each target in milliseconds and
// the attainment as a share, nil where the flag leaves sweep.yaml's.
type sloOverride struct {
	ttft, tpot, e2e, attainment *float64
}

// maxSLOSeconds bounds a target given on the command line, as sweep.yaml's
// slo.*_ms are bounded: one day.
const maxSLOSeconds = 86_400

// parseSLO reads --slo: comma-separated KEY=VALUE pairs, keys ttft, tpot
// and e2e with a duration (500ms, 1.5s; a number needs its unit, and 0
// alone disables the target) and attainment with a percentage (95%) or a share
// (0.95).
func parseSLO(list string) (sloOverride, error) {
	var o sloOverride
	if strings.TrimSpace(list) == "" {
		return o, nil
	}
	seen := map[string]bool{}
	for _, item := range strings.Split(list, ",") {
		key, val, ok := strings.Cut(strings.TrimSpace(item), "=")
		key, val = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(val)
		if !ok || key == "" || val == "" {
			return o, fmt.Errorf("%q: expected KEY=VALUE, e.g. ttft=500ms", item)
		}
		if seen[key] {
			return o, fmt.Errorf("%s given twice", key)
		}
		seen[key] = true
		var dst **float64
		switch key {
		case "ttft":
			dst = &o.ttft
		case "tpot":
			dst = &o.tpot
		case "e2e":
			dst = &o.e2e
		case "attainment":
			f, err := parseAttainment(val)
			if err != nil {
				return o, err
			}
			o.attainment = &f
			continue
		default:
			return o, fmt.Errorf("unknown target %q%s (known: ttft, tpot, e2e, attainment)", key, suggestKey(key))
		}
		ms, err := parseMillis(val)
		if err != nil {
			return o, fmt.Errorf("%s=%s: %v", key, val, err)
		}
		*dst = &ms
	}
	return o, nil
}

// suggestKey is a did-you-mean for a mistyped --slo key.
func suggestKey(key string) string {
	if s := closest(key, []string{"ttft", "tpot", "e2e", "attainment"}); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}

// parseMillis reads a duration in milliseconds or seconds (500ms, 1.5s)
// as milliseconds. A number without its unit is refused: ttft=0.5 could
// mean half a second or half a millisecond, and a wrong guess makes every
// request meet (or miss) the target. 0 alone disables the target.
func parseMillis(v string) (float64, error) {
	num, scale := v, 0.0
	switch {
	case strings.HasSuffix(v, "ms"):
		num, scale = strings.TrimSuffix(v, "ms"), 1
	case strings.HasSuffix(v, "s"):
		num, scale = strings.TrimSuffix(v, "s"), 1000
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err == nil && scale == 0 && f != 0 && f == f {
		return 0, fmt.Errorf("a duration needs its unit, ms or s: %sms or %ss (0 disables the target)", num, num)
	}
	if err != nil || f < 0 || f*scale > maxSLOSeconds*1000 || f != f {
		return 0, fmt.Errorf("expected a duration from 0 to one day such as 500ms or 1.5s (0 disables the target)")
	}
	return f * scale, nil
}

// parseAttainment reads 95% or 0.95 as a share in (0, 1].
func parseAttainment(v string) (float64, error) {
	num, percent := strings.CutSuffix(v, "%")
	f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err == nil && percent {
		f /= 100
	}
	if err != nil || !(f > 0 && f <= 1) {
		return 0, fmt.Errorf("attainment=%s: expected a percentage in (0, 100] such as 95%%, or a share in (0, 1]", v)
	}
	return f, nil
}

// apply puts the override into the sweep's configuration, marking each
// setting it sets as from the command line.
func (o sloOverride) apply(cfg *ingest.Config) {
	for _, x := range []struct {
		v    *float64
		dst  *float64
		from *string
	}{
		{o.ttft, &cfg.SLO.TTFTms, &cfg.SLOFrom.TTFT},
		{o.tpot, &cfg.SLO.TPOTms, &cfg.SLOFrom.TPOT},
		{o.e2e, &cfg.SLO.E2Ems, &cfg.SLOFrom.E2E},
		{o.attainment, &cfg.SLO.Attainment, &cfg.SLOFrom.Attainment},
	} {
		if x.v != nil {
			*x.dst, *x.from = *x.v, ingest.FromCommandLine
		}
	}
}

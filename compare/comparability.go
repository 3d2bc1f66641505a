package compare

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/benchnote/benchnote/analyze"
	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/textfmt"
)

// Profile is what decides whether two sweeps can be compared: the
// canonical environment, the method settings that shape the numbers, and
// each level's workload. It is small, so the archive keeps it with every
// entry and history can check comparability without re-reading summaries.
type Profile struct {
	// Environment is the summary's canonical environment fields.
	Environment []analyze.EnvField `json:"environment"`
	// Percentile, MAD and Warmup are the method's settings; WarmupRule is
	// the rule in words.
	Percentile string      `json:"percentile"`
	MAD        string      `json:"mad"`
	Warmup     string      `json:"warmup"`
	WarmupRule string      `json:"warmup_rule"`
	SLO        analyze.SLO `json:"slo"`
	// Levels is each level's workload.
	Levels []LevelWorkload `json:"levels"`
	// VaryingKeys are environment keys whose values differ between the
	// sweep's own runs.
	VaryingKeys []string `json:"varying_keys"`
	// ErrorFindings are the rules of the sweep's error-level lint findings.
	ErrorFindings []string `json:"error_findings"`
}

// LevelWorkload is the workload of one level: pooled prompt and output
// length medians (tokens) and the early-stop share (percent).
type LevelWorkload struct {
	Level            LevelID     `json:"level"`
	PromptMedian     analyze.Num `json:"prompt_tokens_p50"`
	OutputMedian     analyze.Num `json:"output_tokens_p50"`
	EarlyStopPercent analyze.Num `json:"early_stop_percent"`
	Runs             int         `json:"runs"`
}

// ProfileOf extracts the comparability profile of a summary.
func ProfileOf(s *analyze.Summary) Profile {
	p := Profile{
		Environment: append([]analyze.EnvField{}, s.Environment.Canonical...),
		Percentile:  s.Method.Percentile, MAD: s.Method.MAD,
		Warmup: s.Method.Warmup, WarmupRule: s.Method.WarmupRule,
		SLO: s.Method.SLO,
	}
	for _, l := range s.Levels {
		p.Levels = append(p.Levels, LevelWorkload{
			Level:            LevelOf(l),
			PromptMedian:     l.Workload.PromptTokens.P50,
			OutputMedian:     l.Workload.OutputTokens.P50,
			EarlyStopPercent: l.Workload.EarlyStopPercent,
			Runs:             len(l.Runs),
		})
	}
	for _, d := range s.Environment.Diffs {
		p.VaryingKeys = append(p.VaryingKeys, d.Key)
	}
	for _, f := range s.Findings {
		if f.Severity == "error" {
			p.ErrorFindings = append(p.ErrorFindings, f.Rule)
		}
	}
	return p
}

// env returns the first of the canonical keys the profile has.
func (p Profile) env(keys ...string) (string, bool) {
	for _, k := range keys {
		for _, f := range p.Environment {
			if f.Key == k && strings.TrimSpace(f.Value) != "" {
				return strings.TrimSpace(f.Value), true
			}
		}
	}
	return "", false
}

// Fingerprint identifies the environment and method of a profile: a
// SHA-256 over every rule's value (hard and soft, workload excluded),
// shortened to 16 hex digits. Two sweeps with the same fingerprint differ
// in nothing compare checks except their workload and results.
func (p Profile) Fingerprint() string {
	h := sha256.New()
	for _, r := range Rules {
		if r.Class == ClassWorkload || r.value == nil {
			continue
		}
		v, ok := r.value(p)
		if !ok {
			v = "\x00absent"
		}
		fmt.Fprintf(h, "%s=%s\n", r.Key, v)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Rule classes.
const (
	// ClassHard differences make two sweeps not comparable.
	ClassHard = "hard"
	// ClassSoft differences are caveats.
	ClassSoft = "soft"
	// ClassWorkload is drift of the workload between the sweeps: a caveat.
	ClassWorkload = "workload"
)

// Rule is one comparability check.
type Rule struct {
	// Key names the rule in --expect and in outputs ("engine.version").
	Key string `json:"key"`
	// Class is ClassHard, ClassSoft or ClassWorkload.
	Class string `json:"class"`
	// What says in words what is compared.
	What string `json:"what"`
	// Expectable is true when --expect KEY may declare the difference as
	// the intended change. Measurement settings (percentile method, SLOs,
	// max_tokens, ...) are not: a difference there changes what the
	// numbers mean, whatever was intended.
	Expectable bool `json:"expectable"`
	// value reads the rule's value from a profile (nil for workload rules
	// and for checks that look at one side only).
	value func(Profile) (string, bool)
	// classify describes a difference ("minor version differs"); nil
	// for none.
	classify func(base, new string) string
	// envKeys are the environment keys the rule reads, for the series
	// labels that name them (see RulesForLabel).
	envKeys []string
}

func envRule(key, class, what string, expectable bool, envKeys ...string) Rule {
	return Rule{Key: key, Class: class, What: what, Expectable: expectable, envKeys: envKeys,
		value: func(p Profile) (string, bool) { return p.env(envKeys...) }}
}

// Rules are the comparability checks, in table order. docs/compare.md
// lists them with their sources.
var Rules = []Rule{
	envRule("gpu", ClassHard, "GPU model", true, "gpu"),
	envRule("gpu.count", ClassHard, "number of GPUs", true, "gpu_count"),
	envRule("model", ClassHard, "served model", true, "model"),
	envRule("precision", ClassHard, "weights/activation precision", true, "precision"),
	envRule("parallel.tp", ClassHard, "tensor-parallel size", true, "tensor_parallel_size", "tp"),
	envRule("parallel.pp", ClassHard, "pipeline-parallel size", true, "pipeline_parallel_size", "pp"),
	envRule("engine", ClassHard, "serving engine", true, "engine"),
	envRule("max_tokens", ClassHard, "max_tokens of the requests", false, "max_tokens"),
	envRule("ignore_eos", ClassHard, "ignore_eos of the requests", false, "ignore_eos"),
	envRule("endpoint", ClassHard, "API endpoint", false, "endpoint"),
	envRule("source.tool", ClassHard, "benchmark client that recorded the runs", false, "source_tool"),
	{Key: "method.percentile", Class: ClassHard, What: "percentile method", value: func(p Profile) (string, bool) { return p.Percentile, p.Percentile != "" }},
	{Key: "slo", Class: ClassHard, What: "goodput SLO targets", value: func(p Profile) (string, bool) { return p.SLO.Targets(), true }},
	{Key: "engine.version", Class: ClassSoft, What: "engine version", Expectable: true, envKeys: []string{"engine_version"},
		value: func(p Profile) (string, bool) { return p.env("engine_version") }, classify: versionNote},
	{Key: "driver", Class: ClassSoft, What: "GPU driver", Expectable: true, envKeys: []string{"driver"},
		value: func(p Profile) (string, bool) { return p.env("driver") }, classify: versionNote},
	{Key: "cuda", Class: ClassSoft, What: "CUDA version", Expectable: true, envKeys: []string{"cuda"},
		value: func(p Profile) (string, bool) { return p.env("cuda") }, classify: versionNote},
	envRule("pytorch", ClassSoft, "PyTorch version", true, "pytorch"),
	envRule("python", ClassSoft, "Python version", true, "python"),
	envRule("max_num_seqs", ClassSoft, "engine max_num_seqs", true, "max_num_seqs"),
	envRule("max_num_batched_tokens", ClassSoft, "engine max_num_batched_tokens", true, "max_num_batched_tokens"),
	envRule("kv_cache.dtype", ClassSoft, "KV-cache dtype", true, "kv_cache_dtype"),
	envRule("kv_cache.block_size", ClassSoft, "KV-cache block size", true, "block_size"),
	envRule("prefix_caching", ClassSoft, "prefix caching", true, "prefix_caching"),
	{Key: "method.warmup", Class: ClassSoft, What: "warm-up rule", Expectable: true,
		value: func(p Profile) (string, bool) { return p.WarmupRule, p.WarmupRule != "" }},
	{Key: "method.mad", Class: ClassSoft, What: "MAD form (raw or scaled) of the ± figures", Expectable: true,
		value: func(p Profile) (string, bool) { return p.MAD, p.MAD != "" }},
	{Key: "environment.within", Class: ClassSoft, What: "environment identical across each sweep's own runs"},
	{Key: "findings", Class: ClassSoft, What: "error-level lint findings in either sweep"},
	{Key: "workload.prompt_tokens", Class: ClassWorkload, What: "pooled prompt-length median per level", Expectable: true},
	{Key: "workload.output_tokens", Class: ClassWorkload, What: "pooled output-length median per level", Expectable: true},
	{Key: "workload.early_stop", Class: ClassWorkload, What: "share of requests stopping before max_tokens per level", Expectable: true},
}

// Workload drift tolerances.
const (
	// PromptTolerance is the largest relative difference of a level's
	// prompt-length median that is not drift.
	PromptTolerance = 0.02
	// OutputTolerance is the same for the output-length median.
	OutputTolerance = 0.05
	// EarlyStopTolerance is the largest difference of the early-stop
	// share, in percentage points, that is not drift.
	EarlyStopTolerance = 5.0
)

// RuleByKey returns the rule with the key, or false.
func RuleByKey(key string) (Rule, bool) {
	for _, r := range Rules {
		if r.Key == key {
			return r, true
		}
	}
	return Rule{}, false
}

// ExpectableKeys lists the keys --expect accepts, in table order.
func ExpectableKeys() []string {
	var out []string
	for _, r := range Rules {
		if r.Expectable {
			out = append(out, r.Key)
		}
	}
	return out
}

// Effects of a check on the verdict.
const (
	EffectNone          = "none"
	EffectCaveat        = "caveat"
	EffectNotComparable = "not comparable"
)

// Check statuses.
const (
	StatusSame          = "same"
	StatusDiffers       = "differs"
	StatusExpected      = "differs (expected)"
	StatusExpectedSame  = "same (a change was expected)"
	StatusNotRecorded   = "not recorded"
	StatusPresent       = "present"
	StatusOneSide       = "recorded on one side only"
	StatusWithinBounds  = "within tolerance"
	StatusBeyondBounds  = "drifts"
	StatusNoLevelToTest = "no common level"
)

// Check is one comparability check's outcome.
type Check struct {
	Key    string `json:"key"`
	Class  string `json:"class"`
	What   string `json:"what"`
	Base   string `json:"base"`
	New    string `json:"new"`
	Status string `json:"status"`
	Effect string `json:"effect"`
	Note   string `json:"note,omitempty"`
}

// Verdicts on comparability.
const (
	Comparable        = "comparable"
	ComparableCaveats = "comparable with caveats"
	NotComparable     = "not comparable"
)

// Comparability is the verdict and every check behind it.
type Comparability struct {
	Verdict string  `json:"verdict"`
	Checks  []Check `json:"checks"`
	// Expected lists the --expect keys, as given.
	Expected []string `json:"expected"`
	// Labels are, when two different series are compared, the labels
	// that differ between them: the change under test. A difference in a
	// rule they imply is expected, as with --expect.
	Labels []LabelChange `json:"labels,omitempty"`
}

// LabelChange is a series label that differs between the two series
// compared, and the rules its difference makes expected.
type LabelChange struct {
	Label string `json:"label"`
	// Base and New are the label's values; empty where a series lacks it.
	Base string `json:"base"`
	New  string `json:"new"`
	// Rules are the keys of the rules expected to differ (RulesForLabel).
	Rules []string `json:"rules"`
}

// labelImplies lists, by label name, rules a difference in that label
// implies beyond the rule it names: a tensor-parallel degree changes the
// number of GPUs, another engine its version, another model (its
// tokenizer) the token counts of the same prompts.
var labelImplies = map[string][]string{
	"tp": {"gpu.count"}, "tensor_parallel_size": {"gpu.count"},
	"pp": {"gpu.count"}, "pipeline_parallel_size": {"gpu.count"},
	"gpus": {"gpu.count"}, "num_gpus": {"gpu.count"},
	"engine": {"engine.version"}, "backend": {"engine", "engine.version"},
	"dtype": {"precision"}, "quantization": {"precision"},
	"enable_prefix_caching": {"prefix_caching"},
	"model":                 {"workload.prompt_tokens", "workload.output_tokens", "workload.early_stop"},
}

// workloadLabel reports whether a label names the workload: workload,
// dataset, isl, osl or a length (random_input_len, output_len).
func workloadLabel(name string) bool {
	switch name {
	case "workload", "dataset", "dataset_name", "isl", "osl":
		return true
	}
	return strings.HasSuffix(name, "_len") || strings.HasSuffix(name, "_length")
}

// RulesForLabel returns the keys of the expectable rules a difference in
// a series label implies, in table order: the rule of that name or
// reading that environment key (max_num_seqs, tp, engine_version), those
// listed in labelImplies, and the workload rules for a workload label. A
// label implying none (a label of the user's own) returns nil.
func RulesForLabel(name string) []string {
	name = strings.ToLower(name)
	var out []string
	for _, r := range Rules {
		if !r.Expectable {
			continue
		}
		hit := r.Key == name || slices.Contains(r.envKeys, name) || slices.Contains(labelImplies[name], r.Key) ||
			r.Class == ClassWorkload && workloadLabel(name)
		if hit {
			out = append(out, r.Key)
		}
	}
	return out
}

// labelChanges lists the labels that differ between two series.
func labelChanges(base, new ingest.Series) []LabelChange {
	names, _ := ingest.Differing([]ingest.Series{base, new})
	out := []LabelChange{}
	for _, n := range names {
		b, _ := base.Get(n)
		v, _ := new.Get(n)
		rules := RulesForLabel(n)
		if rules == nil {
			rules = []string{}
		}
		out = append(out, LabelChange{Label: n, Base: b, New: v, Rules: rules})
	}
	return out
}

// Caveats returns the checks that are caveats.
func (c Comparability) Caveats() []Check { return c.withEffect(EffectCaveat) }

// Blockers returns the checks that make the sweeps not comparable.
func (c Comparability) Blockers() []Check { return c.withEffect(EffectNotComparable) }

func (c Comparability) withEffect(e string) []Check {
	var out []Check
	for _, ch := range c.Checks {
		if ch.Effect == e {
			out = append(out, ch)
		}
	}
	return out
}

// CheckExpect returns an error naming an --expect key that is not a rule
// or that cannot be declared.
func CheckExpect(keys []string) error {
	for _, k := range keys {
		r, ok := RuleByKey(k)
		if !ok {
			return fmt.Errorf("--expect %q: unknown key (expected one of %s)", k, strings.Join(ExpectableKeys(), ", "))
		}
		if !r.Expectable {
			return fmt.Errorf("--expect %q: a difference in the %s changes what the numbers mean and cannot be declared as intended", k, r.What)
		}
	}
	return nil
}

// CheckComparability runs every rule on two profiles. expect lists the
// keys declared as intended changes (see CheckExpect).
func CheckComparability(base, new Profile, expect []string) Comparability {
	return checkComparability(base, new, expect, nil)
}

// checkComparability is CheckComparability with the labels that differ
// between two series compared: the rules they imply are expected.
func checkComparability(base, new Profile, expect []string, labels []LabelChange) Comparability {
	expected := map[string]bool{}
	for _, k := range expect {
		expected[k] = true
	}
	byLabel := map[string][]string{}
	for _, lc := range labels {
		for _, k := range lc.Rules {
			byLabel[k] = append(byLabel[k], lc.Label)
		}
	}
	c := Comparability{Expected: append([]string{}, expect...), Labels: labels}
	for _, r := range Rules {
		var ch Check
		switch {
		case r.value != nil:
			ch = checkValue(r, base, new)
		case r.Key == "environment.within":
			ch = checkWithin(r, base, new)
		case r.Key == "findings":
			ch = checkFindings(r, base, new)
		default:
			ch = checkWorkload(r, base, new)
		}
		why := ""
		if ls := byLabel[r.Key]; len(ls) > 0 {
			why = "the series label " + strings.Join(ls, ", ") + " differs"
			if len(ls) > 1 {
				why = "the series labels " + strings.Join(ls, ", ") + " differ"
			}
		}
		if ch.Effect != EffectNone && (expected[r.Key] || why != "") {
			ch.Status, ch.Effect = StatusExpected, EffectNone
			ch.Note = joinNote(why, ch.Note)
		} else if ch.Effect == EffectNone && (expected[r.Key] || why != "") && ch.Status == StatusSame {
			ch.Status = StatusExpectedSame
			if why != "" {
				ch.Note = joinNote(why+", the environment does not", ch.Note)
			}
		}
		c.Checks = append(c.Checks, ch)
	}
	c.Verdict = verdictOf(c.Checks)
	return c
}

// joinNote joins two notes with "; ", either possibly empty.
func joinNote(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// verdictOf is the verdict of a list of checks: not comparable when one
// is, else with caveats when one is a caveat.
func verdictOf(checks []Check) string {
	v := Comparable
	for _, ch := range checks {
		switch ch.Effect {
		case EffectNotComparable:
			v = NotComparable
		case EffectCaveat:
			if v == Comparable {
				v = ComparableCaveats
			}
		}
	}
	return v
}

// shown reports whether a check is listed in the comparability table (a
// difference of some kind), not among the same or not recorded.
func (ch Check) shown() bool {
	switch ch.Status {
	case StatusSame, StatusWithinBounds, StatusNotRecorded, StatusNoLevelToTest:
		return false
	}
	return true
}

// comparability checks the two sides of a comparison. A pair of series
// compares their environments, the labels that differ expected; series
// matched by their labels are checked series by series (an environment
// differing between a sweep's series is no difference) and the worst
// outcome of each rule kept, naming its series.
func comparability(bFull, nFull, bv, nv *analyze.Summary, sel selection, expect []string) Comparability {
	switch {
	case sel.result != nil && sel.result.Paired:
		p := sel.pairs[0]
		return checkComparability(ProfileOf(bv), ProfileOf(nv), expect, labelChanges(p.Base, p.New))
	case len(sel.pairs) == 0:
		// Nothing in common: the series each side selected.
		keep := func(cs []SeriesCount) func(ingest.Series) bool {
			return func(s ingest.Series) bool {
				return slices.ContainsFunc(cs, func(c SeriesCount) bool { return c.Series == s })
			}
		}
		return CheckComparability(ProfileOf(view(bFull, keep(sel.result.OnlyBase), false)),
			ProfileOf(view(nFull, keep(sel.result.OnlyNew), false)), expect)
	case len(sel.pairs) == 1:
		return CheckComparability(ProfileOf(bv), ProfileOf(nv), expect)
	}
	var cs []Comparability
	for _, p := range sel.pairs {
		keep := func(s ingest.Series) bool { return s == p.Base }
		cs = append(cs, CheckComparability(ProfileOf(view(bFull, keep, false)), ProfileOf(view(nFull, keep, false)), expect))
	}
	out := Comparability{Expected: cs[0].Expected}
	rank := func(ch Check) int {
		r := 0
		switch ch.Effect {
		case EffectNotComparable:
			r = 4
		case EffectCaveat:
			r = 2
		}
		if ch.shown() {
			r++
		}
		return r
	}
	for i := range cs[0].Checks {
		best := 0
		for k := 1; k < len(cs); k++ {
			if rank(cs[k].Checks[i]) > rank(cs[best].Checks[i]) {
				best = k
			}
		}
		ch := cs[best].Checks[i]
		same := true
		for k := range cs {
			same = same && cs[k].Checks[i] == ch
		}
		if ch.shown() && !same {
			others := 0
			for k := range cs {
				if k != best && cs[k].Checks[i].Status == ch.Status && cs[k].Checks[i].Effect == ch.Effect {
					others++
				}
			}
			where := "at series " + SeriesName(sel.pairs[best].Base)
			if others > 0 {
				where += fmt.Sprintf(" and %d more", others)
			}
			ch.Note = joinNote(where, ch.Note)
		}
		out.Checks = append(out.Checks, ch)
	}
	out.Verdict = verdictOf(out.Checks)
	return out
}

func checkValue(r Rule, base, new Profile) Check {
	ch := Check{Key: r.Key, Class: r.Class, What: r.What, Status: StatusSame, Effect: EffectNone}
	b, okB := r.value(base)
	n, okN := r.value(new)
	ch.Base, ch.New = b, n
	effect := EffectCaveat
	if r.Class == ClassHard {
		effect = EffectNotComparable
	}
	switch {
	case !okB && !okN:
		ch.Status = StatusNotRecorded
		if r.Class == ClassHard {
			ch.Note = "not in either summary: not checked"
		}
	case okB != okN:
		ch.Status, ch.Effect = StatusOneSide, EffectCaveat
		ch.Note = "cannot be checked"
	case !strings.EqualFold(b, n):
		ch.Status, ch.Effect = StatusDiffers, effect
		if r.classify != nil {
			ch.Note = r.classify(b, n)
		}
	}
	return ch
}

// versionNote says which part of a dotted version differs.
func versionNote(a, b string) string {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	names := []string{"major", "minor", "patch"}
	for i := 0; i < len(pa) && i < len(pb); i++ {
		if pa[i] != pb[i] {
			if i < len(names) {
				return names[i] + " version differs"
			}
			return "version differs"
		}
	}
	return "version differs"
}

func checkWithin(r Rule, base, new Profile) Check {
	ch := Check{Key: r.Key, Class: r.Class, What: r.What, Status: StatusSame, Effect: EffectNone,
		Base: listOrNone(base.VaryingKeys, "identical"), New: listOrNone(new.VaryingKeys, "identical")}
	if len(base.VaryingKeys)+len(new.VaryingKeys) > 0 {
		ch.Status, ch.Effect = StatusPresent, EffectCaveat
		ch.Note = "keys listed differ between a sweep's own runs; the table shows each sweep's first run"
	}
	return ch
}

func checkFindings(r Rule, base, new Profile) Check {
	ch := Check{Key: r.Key, Class: r.Class, What: r.What, Status: StatusSame, Effect: EffectNone,
		Base: listOrNone(base.ErrorFindings, "none"), New: listOrNone(new.ErrorFindings, "none")}
	if len(base.ErrorFindings)+len(new.ErrorFindings) > 0 {
		ch.Status, ch.Effect = StatusPresent, EffectCaveat
		ch.Note = "read each sweep's report before trusting the comparison"
	}
	return ch
}

func listOrNone(xs []string, none string) string {
	if len(xs) == 0 {
		return none
	}
	return strings.Join(xs, ", ")
}

// checkWorkload compares one workload figure at every level both sides
// have, and reports the level that drifts most.
func checkWorkload(r Rule, base, new Profile) Check {
	ch := Check{Key: r.Key, Class: r.Class, What: r.What, Status: StatusWithinBounds, Effect: EffectNone}
	var get func(LevelWorkload) analyze.Num
	var tol float64
	points := false
	switch r.Key {
	case "workload.prompt_tokens":
		get, tol = func(w LevelWorkload) analyze.Num { return w.PromptMedian }, PromptTolerance
	case "workload.output_tokens":
		get, tol = func(w LevelWorkload) analyze.Num { return w.OutputMedian }, OutputTolerance
	default:
		get, tol, points = func(w LevelWorkload) analyze.Num { return w.EarlyStopPercent }, EarlyStopTolerance, true
	}
	newBy := map[LevelID]LevelWorkload{}
	for _, w := range new.Levels {
		newBy[w.Level] = w
	}
	type drift struct {
		level     LevelID
		b, n, rel float64
	}
	var worst *drift
	drifting := 0
	common, recorded := 0, 0
	for _, bw := range base.Levels {
		nw, ok := newBy[bw.Level]
		if !ok {
			continue
		}
		common++
		b, n := get(bw), get(nw)
		if !b.Valid() || !n.Valid() {
			continue
		}
		recorded++
		d := drift{level: bw.Level, b: float64(b), n: float64(n)}
		if points {
			d.rel = math.Abs(d.n - d.b)
		} else if d.b != 0 {
			d.rel = math.Abs(d.n-d.b) / math.Abs(d.b)
		} else if d.n != 0 {
			d.rel = math.Inf(1)
		}
		if d.rel > tol {
			drifting++
		}
		if worst == nil || d.rel > worst.rel {
			worst = &d
		}
	}
	fmtTol := strconv.FormatFloat(100*tol, 'g', -1, 64) + " %"
	fmtV := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	if points {
		fmtTol = strconv.FormatFloat(tol, 'g', -1, 64) + " pp"
		fmtV = func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) + " %" }
	}
	switch {
	case common == 0:
		ch.Status = StatusNoLevelToTest
		return ch
	case worst == nil:
		ch.Status = StatusNotRecorded
		ch.Note = "not available at the " + textfmt.Count(common, "common level", "common levels")
		return ch
	}
	ch.Base, ch.New = fmtV(worst.b), fmtV(worst.n)
	change := fmt.Sprintf("%+.1f %%", 100*(worst.n-worst.b)/math.Abs(worst.b))
	switch {
	case points:
		change = fmt.Sprintf("%+.1f pp", worst.n-worst.b)
	case worst.b == 0 && worst.n == 0:
		change = "+0.0 %"
	case worst.b == 0:
		change = "from 0"
	}
	ch.Note = fmt.Sprintf("largest difference at %s: %s (tolerance %s)", worst.level.Label(), change, fmtTol)
	if drifting > 0 {
		ch.Status, ch.Effect = StatusBeyondBounds, EffectCaveat
		ch.Note += fmt.Sprintf("; beyond tolerance at %d of %s", drifting, textfmt.Count(recorded, "common level", "common levels"))
	}
	return ch
}

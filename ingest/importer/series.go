package importer

// Series: the configuration of each imported run. An importer records
// what a file says of a run's configuration as traits (the model, the
// backend, the dataset and its lengths, a vllm bench sweep's parameters);
// assignSeries keeps, as the run's series labels, the traits whose values
// are not the same in every run of one import. A label every run shares
// is left out: it would tell no run from another, the file's environment
// (env.json) records it already, and a sweep of one configuration then
// stays one unlabelled series, as before series existed, which compare
// matches against any other unlabelled import.

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/benchnote/benchnote/ingest"
	"github.com/benchnote/benchnote/internal/controls"
)

// trait is one thing a file records of a run's configuration: a candidate
// series label.
type trait struct {
	label string // the label name: model, backend, dataset, input_len, ...
	value string
	from  string // where the file records it: "random_input_len", "input_config.endpoint.model_names"
}

// traits collects a run's traits and the settings its file records but
// its dataset ignores.
type traits struct {
	list []trait
	// ignored names settings that are not labels because the run's
	// dataset does not use them (sharegpt's random_input_len).
	ignored []ignoredSetting
}

// ignoredSetting is a member a dataset does not read.
type ignoredSetting struct{ dataset, member string }

// add records a trait; an empty value is no trait. A value is made a
// valid label value: invalid UTF-8 and control characters escaped, cut to
// ingest.MaxSeriesValueBytes.
func (t *traits) add(label, value, from string) {
	value = strings.TrimSpace(value)
	if value == "" || !ingestLabelName(label) || len(t.list) == ingest.MaxSeriesLabels {
		return
	}
	for _, o := range t.list {
		if o.label == label {
			return
		}
	}
	value = controls.Escape(strings.ToValidUTF8(value, "\uFFFD"))
	if len(value) > ingest.MaxSeriesValueBytes {
		value = cutText(value, ingest.MaxSeriesValueBytes)
	}
	t.list = append(t.list, trait{label, value, from})
}

// ingestLabelName reports whether name is a series label name ingest
// accepts.
func ingestLabelName(name string) bool {
	_, err := ingest.NewSeries(map[string]string{name: "x"})
	return err == nil
}

// number writes a JSON number as a label value: 1024, 0.5.
func numberText(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// datasetSetting is a setting of a serving benchmark's dataset, and the
// label it becomes.
type datasetSetting struct{ member, label string }

// servingDatasets lists, per dataset_name of vLLM's and SGLang's serving
// benchmarks, the members that set its lengths. A member of another
// dataset is ignored by that dataset (ShareGPT's prompts keep their own
// lengths whatever random_input_len says), so it is no label.
var servingDatasets = map[string][]datasetSetting{
	"random":                  randomSettings,
	"random-ids":              randomSettings,
	"random-mm":               randomSettings,
	"sharegpt":                {{"sharegpt_output_len", "output_len"}, {"sharegpt_context_len", "context_len"}},
	"sonnet":                  {{"sonnet_input_len", "input_len"}, {"sonnet_output_len", "output_len"}, {"sonnet_prefix_len", "prefix_len"}},
	"hf":                      {{"hf_output_len", "output_len"}},
	"custom":                  {{"custom_output_len", "output_len"}},
	"prefix_repetition":       {{"prefix_repetition_prefix_len", "prefix_len"}, {"prefix_repetition_suffix_len", "suffix_len"}, {"prefix_repetition_num_prefixes", "num_prefixes"}, {"prefix_repetition_output_len", "output_len"}},
	"generated-shared-prefix": {{"gsp_num_groups", "num_groups"}, {"gsp_prompts_per_group", "prompts_per_group"}, {"gsp_system_prompt_len", "system_prompt_len"}, {"gsp_question_len", "question_len"}, {"gsp_output_len", "output_len"}},
}

var randomSettings = []datasetSetting{{"random_input_len", "input_len"}, {"random_output_len", "output_len"}, {"random_range_ratio", "range_ratio"}, {"random_prefix_len", "prefix_len"}}

// servingSettingMembers is every member some dataset reads, in a fixed
// order.
var servingSettingMembers = func() []string {
	var out []string
	for _, list := range servingDatasets {
		for _, s := range list {
			if !slices.Contains(out, s.member) {
				out = append(out, s.member)
			}
		}
	}
	slices.Sort(out)
	return out
}()

// servingKnown are the members of a vLLM or SGLang result that describe
// the tool's run rather than a setting varied by a vllm bench sweep.
var servingKnown = map[string]bool{"backend": true, "endpoint_type": true, "label": true, "model_id": true, "model": true,
	"tokenizer_id": true, "dataset_name": true, "_benchmark_name": true}

// servingTraits reads the configuration of a vLLM or SGLang result: the
// model, the backend, the dataset and the settings of that dataset, and
// for a vllm bench sweep file, the parameters of its combination (which
// the sweep writes into every run=N.json).
func servingTraits(res *servingResult, s *source) traits {
	var t traits
	for _, m := range []string{"model_id", "model"} {
		t.add("model", res.strs[m], m)
	}
	t.add("backend", res.strs["backend"], "backend")
	dataset := res.strs["dataset_name"]
	t.add("dataset", dataset, "dataset_name")
	settingValue := func(member string) string {
		if v, ok := res.strs[member]; ok {
			return v
		}
		if v, ok := res.nums[member]; ok && res.has[member] {
			return numberText(v)
		}
		return ""
	}
	if settings, known := servingDatasets[dataset]; known {
		for _, st := range settings {
			t.add(st.label, settingValue(st.member), st.member)
		}
		for _, m := range servingSettingMembers {
			if !slices.ContainsFunc(settings, func(st datasetSetting) bool { return st.member == m }) && settingValue(m) != "" {
				t.ignored = append(t.ignored, ignoredSetting{dataset, m})
			}
		}
	} else if dataset == "" {
		// Without the dataset's name, which of its settings apply is
		// unknown: each one recorded is a label of its own name.
		for _, m := range servingSettingMembers {
			t.add(m, settingValue(m), m)
		}
	}
	if s.sweepSeries == "" {
		return t
	}
	for _, kv := range res.env {
		if servingKnown[kv.Key] || slices.Contains(servingSettingMembers, kv.Key) {
			continue
		}
		t.add(kv.Key, kv.Value, kv.Key)
	}
	if !res.has["run_number"] {
		// The sweep writes run_number with the combination's parameters
		// (a load or a count among them, which are no labels). A file
		// without it does not record them: the combination's directory
		// stands for them.
		t.add("combination", s.sweepSeries, "the vllm bench sweep directory")
	}
	return t
}

// assignSeries sets each run's series from its traits (see seriesLabels)
// and returns what import says of it, "" when every run has the same
// configuration; that note is added to each run's provenance.
func assignSeries(imp *Import) string {
	all := make([]traits, len(imp.Runs))
	for i, r := range imp.Runs {
		all[i] = r.traits
	}
	labels := seriesLabels(all)
	if len(labels) == 0 {
		return ""
	}
	from := make([][]string, len(labels)) // per label, where the files record it
	ignored := map[string][]string{}      // dataset → the settings it ignores
	var datasets []string
	for i := range imp.Runs {
		r := &imp.Runs[i]
		keep := map[string]string{}
		for _, tr := range r.traits.list {
			if k := slices.Index(labels, tr.label); k >= 0 {
				keep[tr.label] = tr.value
				if !slices.Contains(from[k], tr.from) {
					from[k] = append(from[k], tr.from)
				}
			}
		}
		r.Config.Series, _ = ingest.NewSeries(keep)
		for _, ig := range r.traits.ignored {
			if _, ok := ignored[ig.dataset]; !ok {
				datasets = append(datasets, ig.dataset)
			}
			if !slices.Contains(ignored[ig.dataset], ig.member) {
				ignored[ig.dataset] = append(ignored[ig.dataset], ig.member)
			}
		}
	}
	var parts []string
	for k, name := range labels {
		part := name
		if len(from[k]) != 1 || from[k][0] != name {
			part += " (" + strings.Join(from[k], ", ") + ")"
		}
		parts = append(parts, part)
	}
	note := fmt.Sprintf("series labels %s: they tell apart the configurations of the runs imported together, which are never repeats of one another; what every run shares is no label",
		strings.Join(parts, ", "))
	if len(datasets) > 0 {
		var ig []string
		for _, d := range datasets {
			ig = append(ig, d+" ignores "+strings.Join(ignored[d], ", "))
		}
		note += ", nor a setting the run's dataset ignores (" + strings.Join(ig, "; ") + ")"
	}
	for i := range imp.Runs {
		if p := imp.Runs[i].Config.Provenance; p != nil {
			p.Recomputed = append(p.Recomputed, cutText(note, maxProvenanceText))
		}
	}
	return note
}

// workloadLabels name a workload's lengths: when the runs differ in their
// workload, each series names its lengths, not only the one that differs
// (input_len=1024, output_len=1024 beside dataset=sharegpt).
var workloadLabels = []string{"input_len", "output_len"}

// seriesLabels returns, sorted, the names of the traits that become
// series labels:
//   - a trait whose value differs between two runs that record it;
//   - a trait some runs record and others do not, when nothing else tells
//     one that records it from one that does not (otherwise a setting of
//     one dataset, absent from another's runs, would label every run);
//   - when the runs differ in dataset or lengths, the lengths of every
//     run that records them.
//
// A trait every run records with one value is no label.
func seriesLabels(runs []traits) []string {
	values := map[string][]string{} // label → distinct values
	var names []string
	count := map[string]int{} // label → runs recording it
	for _, r := range runs {
		for _, tr := range r.list {
			if _, ok := values[tr.label]; !ok {
				names = append(names, tr.label)
			}
			if !slices.Contains(values[tr.label], tr.value) {
				values[tr.label] = append(values[tr.label], tr.value)
			}
			count[tr.label]++
		}
	}
	slices.Sort(names)
	var labels []string
	for _, n := range names {
		if len(values[n]) > 1 {
			labels = append(labels, n)
		}
	}
	value := func(r traits, label string) (string, bool) {
		for _, tr := range r.list {
			if tr.label == label {
				return tr.value, true
			}
		}
		return "", false
	}
	restricted := func(r traits) string {
		var b strings.Builder
		for _, l := range labels {
			v, ok := value(r, l)
			if ok {
				b.WriteString(l + "=" + v)
			}
			b.WriteByte(0)
		}
		return b.String()
	}
	for _, n := range names {
		if slices.Contains(labels, n) || count[n] == len(runs) {
			continue
		}
		// Runs alike in every label so far, some recording n and some not.
		with, without := map[string]bool{}, map[string]bool{}
		for _, r := range runs {
			k := restricted(r)
			if _, ok := value(r, n); ok {
				with[k] = true
			} else {
				without[k] = true
			}
		}
		for k := range with {
			if without[k] {
				labels = append(labels, n)
				slices.Sort(labels)
				break
			}
		}
	}
	if slices.ContainsFunc(labels, func(l string) bool { return l == "dataset" || slices.Contains(workloadLabels, l) }) {
		for _, l := range workloadLabels {
			if count[l] > 0 && !slices.Contains(labels, l) {
				labels = append(labels, l)
			}
		}
		slices.Sort(labels)
	}
	return labels
}

// seriesDir names a series' directory: its labels as name=value, joined
// by commas ("dataset=random,input_len=1024"), made one path segment; ""
// for the unlabelled series. A name longer than maxSeriesDir bytes, or
// one hashed because two series would share it, is ended by "~" and a
// hash of the labels, so that it stays unique.
func seriesDir(s ingest.Series, hashed bool) string {
	if s.IsZero() {
		return ""
	}
	var parts []string
	for _, n := range s.Names() {
		v, _ := s.Get(n)
		parts = append(parts, n+"="+v)
	}
	dir := safeSegment(strings.Join(parts, ","))
	if hashed || len(dir) > maxSeriesDir {
		cut := min(len(dir), maxSeriesDir-len("~12345678"))
		for cut > 0 && cut < len(dir) && !utf8.RuneStart(dir[cut]) {
			cut--
		}
		dir = dir[:cut] + "~" + seriesHash(s)
	}
	return dir
}

// maxSeriesDir bounds a series directory's name, well inside the 255
// bytes file systems allow.
const maxSeriesDir = 120

// seriesHash is a short hash of a series' labels.
func seriesHash(s ingest.Series) string {
	sum := sha256.Sum256([]byte(s.String()))
	return hex.EncodeToString(sum[:4])
}

package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// simSeriesSweepDir writes a sweep of two series, max_num_seqs 128 and
// 256: two small simulated sweeps (simSweepDir: c1 and c4, 3 repeats each)
// under m128/ and m256/, every run.yaml naming its series. factor256 slows
// the engine of the 256 series only.
func simSeriesSweepDir(t *testing.T, day int, factor256 float64) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), fmt.Sprintf("series-%d", day))
	for k, v := range []string{"128", "256"} {
		factor := 1.0
		if v == "256" {
			factor = factor256
		}
		src := simSweepDir(t, day, uint64(100*day+k+1), factor)
		if k == 0 {
			if err := os.MkdirAll(root, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"sweep.yaml", "env.txt", "env.json"} {
				if err := os.Rename(filepath.Join(src, f), filepath.Join(root, f)); err != nil {
					t.Fatal(err)
				}
			}
		}
		runs, err := filepath.Glob(filepath.Join(src, "c*", "run-*"))
		if err != nil || len(runs) != 6 {
			t.Fatalf("%d runs in %s (%v), want 6", len(runs), src, err)
		}
		for _, run := range runs {
			rel, _ := filepath.Rel(src, run)
			dst := filepath.Join(root, "m"+v, rel)
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(run, dst); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dst, "run.yaml")
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, append(data, "series: {max_num_seqs: "+v+"}\n"...), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return root
}

// TestHistoryKeepsSeriesApart: eight daily sweeps of two series; from the
// sixth on, only max_num_seqs=256 is 30 % slower. Each entry keeps its 4
// levels (2 series × 2 loads) apart, and exactly that series gets the
// change points, introduced by the sixth entry; history.md names the
// series, history.html draws one line per series on each level's charts.
func TestHistoryKeepsSeriesApart(t *testing.T) {
	t.Chdir(t.TempDir())
	arch := "archive"
	var ids []string
	for day := 0; day < 8; day++ {
		factor := 1.0
		if day >= 5 {
			factor = 1.3
		}
		code, out, errOut := runCLI(t, "archive", "add", simSeriesSweepDir(t, day, factor), "--to", arch, "--label", fmt.Sprintf("rev-%d", day))
		m := addedID.FindStringSubmatch(out)
		if code != 0 || m == nil || !strings.Contains(out, ": 4 levels of 2 series, 63 input files, ") {
			t.Fatalf("add day %d: exit %d, %q %q", day, code, out, errOut)
		}
		ids = append(ids, m[1])
	}
	out := filepath.Join(t.TempDir(), "h")
	code, msg, errOut := runCLI(t, "history", arch, "-o", out, "--correct", "holm")
	if code != 0 {
		t.Fatalf("history: %d %q", code, errOut)
	}
	if !strings.Contains(msg, "(8 entries, 1 segment, ") {
		t.Errorf("history said %q", msg)
	}
	var h struct {
		Trends []struct {
			Level struct {
				Series map[string]string `json:"series"`
			} `json:"level"`
		} `json:"trends"`
		Changes []struct {
			Kind     string            `json:"kind"`
			Entry    string            `json:"entry"`
			Series   map[string]string `json:"series"`
			PerLevel []struct {
				Level struct {
					Value float64 `json:"value"`
				} `json:"level"`
			} `json:"per_level"`
			Metric struct {
				Key string `json:"key"`
			} `json:"metric"`
		} `json:"changes"`
		ByEntry []struct {
			Entry        string `json:"entry"`
			ChangePoints int    `json:"change_points"`
		} `json:"by_entry"`
	}
	data, err := os.ReadFile(filepath.Join(out, "history.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &h); err != nil {
		t.Fatal(err)
	}
	// 2 series × 2 loads × 16 headline statistics (the two energy ones
	// from the simulated gpu.csv included), each followed apart.
	if len(h.Trends) != 64 || h.Trends[0].Level.Series["max_num_seqs"] != "128" || h.Trends[63].Level.Series["max_num_seqs"] != "256" {
		t.Errorf("%d trends in history.json, want 64", len(h.Trends))
	}
	points := map[string]bool{}
	for _, c := range h.Changes {
		if c.Kind != "change point" {
			continue
		}
		if c.Series["max_num_seqs"] != "256" || c.Entry != ids[5] {
			t.Errorf("change point of %s (series %v) introduced by %s: want max_num_seqs=256 only, introduced by %s", c.Metric.Key, c.Series, c.Entry, ids[5])
		}
		// Tested once across the series' two loads.
		if len(c.PerLevel) != 2 || c.PerLevel[0].Level.Value != 1 || c.PerLevel[1].Level.Value != 4 {
			t.Errorf("change point of %s: levels %+v, want concurrency 1 and 4", c.Metric.Key, c.PerLevel)
		}
		points[c.Metric.Key] = true
	}
	// The slowdown shows in TPOT, the engine's step time, at least.
	if !points["tpot.p50"] {
		t.Errorf("change points %v: want TPOT p50", points)
	}
	for _, g := range h.ByEntry {
		if g.ChangePoints > 0 && (g.Entry != ids[5] || g.ChangePoints != len(points)) {
			t.Errorf("by entry %+v: want the change points of entry %s alone", h.ByEntry, ids[5])
		}
	}
	md, _ := os.ReadFile(filepath.Join(out, "history.md"))
	for _, want := range []string{
		"2 series (configurations), each followed and tested on its own — the runs of two series are never pooled: `max_num_seqs=128`, `max_num_seqs=256`.\n",
		fmt.Sprintf("- **rev-5** (`%s`, 2026-11-07T09:", ids[5]),
		"| entry | label | series | statistic | kind | change | p | baseline | confirmed by | by level |",
		fmt.Sprintf("| %s | rev-5 | max\\_num\\_seqs=256 | TPOT p50 | change point (worse) |", ids[5]),
		"- For each series and headline statistic, every included entry",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("history.md does not say %q:\n%s", want, md)
		}
	}
	// One chart per load and statistic, a line per series on each.
	html, _ := os.ReadFile(filepath.Join(out, "history.html"))
	if n := bytes.Count(html, []byte("<figure")); n != 2*16 {
		t.Errorf("history.html has %d charts, want 32 (2 levels × 16 statistics, the energy ones included)", n)
	}
	for _, v := range []string{"128", "256"} {
		if n := bytes.Count(html, []byte(">max_num_seqs="+v+"</text>")); n != 32 {
			t.Errorf("max_num_seqs=%s is named in %d legends, want 32", v, n)
		}
	}
	if !bytes.Contains(html, []byte("one line per series: max_num_seqs=128; max_num_seqs=256; change points: worse +30.1 % at entry rev-5 (max_num_seqs=256).")) {
		t.Error("history.html: the TPOT p50 chart's description does not name the series of its change point")
	}
	// The time axis names the entries by their labels.
	if !bytes.Contains(html, []byte(">rev-7</text>")) {
		t.Error("history.html: the time axis does not name the latest entry rev-7")
	}
	// Each entry keeps its series apart: 4 levels, with their series.
	entry, err := os.ReadFile(filepath.Join(arch, ids[0], "entry.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"schema": "benchnote.archive-entry/v2"`, `"series": {
          "max_num_seqs": "256"
        },`} {
		if !strings.Contains(string(entry), want) {
			t.Errorf("entry.json does not hold %q:\n%.2000s", want, entry)
		}
	}
}

package ingest

import (
	"regexp"
	"strconv"
	"strings"
)

var (
	envSMIHeaderRe = regexp.MustCompile(`NVIDIA-SMI\s+(\S+)\s+Driver Version:\s*(\S+)(?:\s+CUDA Version:\s*(\S+))?`)
	envSMIGPURe    = regexp.MustCompile(`^\|\s*(\d+)\s+(.*?)\s+(?:On|Off|N/A|WDDM|TCC)\s*\|\s*[0-9A-Fa-f]+:[0-9A-Fa-f]+:[0-9A-Fa-f]+\.[0-9A-Fa-f]`)
	envSMIMemRe    = regexp.MustCompile(`\|\s*\d+MiB\s*/\s*(\d+MiB)\s*\|`)
)

// nvidiaSMI reads lines as the plain nvidia-smi table (format 5 of
// ParseEnvFile) and reports whether they are one.
func (p *envParse) nvidiaSMI(lines []string) bool {
	header := -1
	for i, l := range lines {
		if envSMIHeaderRe.MatchString(l) {
			header = i
			break
		}
	}
	if header < 0 {
		return false
	}
	m := envSMIHeaderRe.FindStringSubmatch(lines[header])
	p.add("NVIDIA-SMI version", m[1])
	p.add("Driver Version", m[2])
	if m[3] != "" {
		p.add("CUDA Version", m[3])
	}
	var names []string
	seen := map[string]bool{}
	count := 0
	for i := header + 1; i < len(lines); i++ {
		g := envSMIGPURe.FindStringSubmatch(lines[i])
		if g == nil {
			continue
		}
		count++
		p.add("GPU "+g[1], g[2])
		if i+1 < len(lines) {
			if mem := envSMIMemRe.FindStringSubmatch(lines[i+1]); mem != nil {
				p.add("GPU "+g[1]+" memory total", mem[1])
			}
		}
		if name, ok := envCanonicalValue("gpu", g[2]); ok && !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	p.set("driver", m[2])
	p.set("cuda", m[3])
	if count > 0 {
		p.set("gpu", strings.Join(names, ", "))
		p.set("gpu_count", strconv.Itoa(count))
	}
	return true
}

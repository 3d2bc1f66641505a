package ingest

import (
	"regexp"
	"strconv"
	"strings"
)

// envCollectEnvMarkers are keys only collect_env output has.
var envCollectEnvMarkers = map[string]bool{
	"PyTorch version": true, "Is debug build": true, "CUDA used to build PyTorch": true,
	"ROCM used to build PyTorch": true, "Is CUDA available": true, "GPU models and configuration": true,
	"Nvidia driver version": true, "vLLM Version": true, "cuDNN version": true,
	"HIP runtime version": true, "MIOpen runtime version": true, "Is XNNPACK available": true,
}

var (
	envEnvVarRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)
	envPipRe    = regexp.MustCompile(`^\[([A-Za-z0-9_]+)\]\s*(.*)$`)
	envGPULine  = regexp.MustCompile(`^GPU (\d+)$`)
)

// envHasRule reports whether the text has a "=====" rule line.
func envHasRule(lines []string) bool {
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if len(t) >= 10 && strings.Trim(t, "=") == "" {
			return true
		}
	}
	return false
}

// envColonKV splits "Key: value" (also "Key   : value" and "Key:") at the
// first colon.
func envColonKV(line string) (key, value string, ok bool) {
	i := strings.IndexByte(line, ':')
	if i <= 0 {
		return "", "", false
	}
	key = strings.TrimSpace(line[:i])
	if key == "" || len(key) > 80 {
		return "", "", false
	}
	return key, strings.TrimSpace(line[i+1:]), true
}

// collectEnv reads lines as collect_env output, boxed in sections or not
// (formats 2 and 3 of ParseEnvFile), and reports whether they are.
func (p *envParse) collectEnv(lines []string) bool {
	markers := map[string]bool{}
	for _, l := range lines {
		if k, _, ok := envColonKV(l); ok && envCollectEnvMarkers[k] {
			markers[k] = true
		}
	}
	if len(markers) < 3 {
		return false
	}
	for _, raw := range lines {
		t := strings.TrimSpace(raw)
		switch {
		case t == "", strings.Trim(t, "=") == "", strings.ContainsRune(raw, '\t'):
			// blank, rule, or the tab-separated GPU topology matrix
		case envEnvVarRe.MatchString(t):
			i := strings.IndexByte(t, '=')
			p.add(t[:i], t[i+1:])
		case envPipRe.MatchString(t):
			m := envPipRe.FindStringSubmatch(t)
			if i := strings.Index(m[2], "=="); i > 0 {
				p.add("["+m[1]+"] "+m[2][:i], m[2][i+2:])
			} else {
				p.add("["+m[1]+"]", m[2])
			}
		default:
			if k, v, ok := envColonKV(t); ok {
				p.add(k, v)
			}
		}
	}

	f := p.first()
	var names []string
	seen := map[string]bool{}
	count := 0
	for _, kv := range p.keys {
		if !envGPULine.MatchString(kv.Key) {
			continue
		}
		count++
		if name, ok := envCanonicalValue("gpu", kv.Value); ok && !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	if count > 0 {
		p.set("gpu", strings.Join(names, ", "))
		p.set("gpu_count", strconv.Itoa(count))
	} else if one := f["GPU models and configuration"]; one != "" {
		// A single GPU is printed on the key's own line:
		// "GPU models and configuration: GPU 0: NVIDIA L40S".
		if k, v, ok := strings.Cut(one, ":"); ok && envGPULine.MatchString(strings.TrimSpace(k)) {
			if name, ok := envCanonicalValue("gpu", strings.TrimSpace(v)); ok {
				p.set("gpu", name)
				p.set("gpu_count", "1")
			}
		} else {
			p.set("gpu", one)
		}
	}
	p.set("driver", f["Nvidia driver version"])
	p.setFirst("cuda", f["CUDA used to build PyTorch"], f["CUDA runtime version"])
	if p.set("engine_version", f["vLLM Version"]) {
		p.set("engine", "vllm")
	}
	p.set("pytorch", f["PyTorch version"])
	p.set("python", f["Python version"])
	return true
}

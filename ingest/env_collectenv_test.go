package ingest

import "testing"

// TestCollectEnvSingleGPUOnOneLine: collect_env naming its one GPU on the
// "GPU models and configuration" line, without "GPU n:" lines.
func TestCollectEnvSingleGPUOnOneLine(t *testing.T) {
	text := "PyTorch version: 2.5.1+cu124\nIs CUDA available: True\nCUDA used to build PyTorch: 12.4\nGPU models and configuration: GPU 0: NVIDIA L40S\nNvidia driver version: 550.90.07\n"
	src := ParseEnvFile([]byte(text), "env.txt")
	if src.Format != "collect_env" || src.Canonical["gpu"] != "NVIDIA L40S" || src.Canonical["gpu_count"] != "1" {
		t.Errorf("format %q, gpu %q, gpu_count %q; want collect_env, NVIDIA L40S, 1", src.Format, src.Canonical["gpu"], src.Canonical["gpu_count"])
	}
}

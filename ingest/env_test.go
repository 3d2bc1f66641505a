package ingest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// envSharedDir holds the real logs whose source has no licence file; they
// are read in place and the tests skip when the directory is absent.
const envSharedDir = "../../shared/realdata/envlogs"

// readEnvLog reads a real environment log from testdata (Apache-2.0 copies)
// or from the shared directory, skipping the test when it is absent.
func readEnvLog(t *testing.T, name string) []byte {
	t.Helper()
	for _, dir := range []string{filepath.Join("testdata", "envlogs"), envSharedDir} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err == nil {
			return data
		}
		if !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
	}
	t.Skipf("%s absent", name)
	return nil
}

// missingFields is CanonicalFields without the given fields, in order.
func missingFields(have map[string]string) []string {
	out := []string{}
	for _, f := range CanonicalFields {
		if _, ok := have[f]; !ok {
			out = append(out, f)
		}
	}
	return out
}

// keyValue returns the first value of key and whether it is present.
func keyValue(keys []KV, key string) (string, bool) {
	for _, kv := range keys {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return "", false
}

func TestParseEnvFileRealLogs(t *testing.T) {
	tests := []struct {
		file      string
		format    string
		canonical map[string]string
		nKeys     int
		// keys are spot checks of Keys (exact values read from the file).
		keys map[string]string
		// absentKeys must not appear in Keys.
		absentKeys []string
	}{
		{
			file:   "vllm0.16.0-collect-env-l40s-x4.txt",
			format: "collect_env_sectioned",
			// The file lists only "GPU 0" and "GPU 1" (the host has four
			// L40S, as the nvidia-smi table from the same repo shows).
			canonical: map[string]string{
				"gpu": "NVIDIA L40S", "gpu_count": "2", "driver": "580.119.02", "cuda": "12.9",
				"engine": "vllm", "engine_version": "0.16.0", "pytorch": "2.9.1+cu129", "python": "3.12.12",
			},
			nKeys: 113,
			keys: map[string]string{
				"CUDA runtime version": "12.9.86", "Clang version": "Could not collect",
				"CUDA_MODULE_LOADING set to": "", "GPU 1": "NVIDIA L40S", "[pip3] torch": "2.9.1+cu129",
				"CUDA Archs": "7.0 7.5 8.0 8.9 9.0 10.0 12.0; ROCm: Disabled", "CUDA_VERSION": "12.9.1",
				"VLLM_WORKER_MULTIPROC_METHOD": "spawn", "Model name": "INTEL(R) XEON(R) PLATINUM 8562Y+",
			},
			absentKeys: []string{"GPU0", "X", "System Info"},
		},
		{
			file:   "vllm0.6.3.post2-collect-env-8xh100-sxm5-dstack.txt",
			format: "collect_env",
			// "CUDA used to build PyTorch: 12.4" wins over the container's
			// "CUDA runtime version: 12.2.140".
			canonical: map[string]string{
				"gpu": "NVIDIA H100 80GB HBM3", "gpu_count": "8", "driver": "550.90.12", "cuda": "12.4",
				"engine": "vllm", "engine_version": "0.6.3.post2.dev308+gb489fc3c",
				"pytorch": "2.5.1+cu124", "python": "3.10.12",
			},
			nKeys: 130,
			keys: map[string]string{
				"CUDA runtime version": "12.2.140", "GPU 7": "NVIDIA H100 80GB HBM3",
				"cuDNN version": "Probably one of the following:", "PYTORCH_VERSION": "2.1.0a0+32f93b1",
				"[conda]": "Could not collect", "NIC0": "mlx5_0", "CUDA_DRIVER_VERSION": "535.104.05",
			},
			absentKeys: []string{"GPU0", "/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.5"},
		},
		{
			file:   "vllm0.6.3dev-collect-env-mi300x-rocm6.1-dstack.txt",
			format: "collect_env",
			// ROCm: no CUDA, "Nvidia driver version: Could not collect", and
			// one device name without a GPU list, so no gpu_count.
			canonical: map[string]string{
				"gpu": "AMD Instinct MI300X", "engine": "vllm", "engine_version": "0.6.3.dev116+g151ef4ef",
				"pytorch": "2.4.1+rocm6.1", "python": "3.10.14",
			},
			nKeys: 37,
			keys: map[string]string{
				"GPU models and configuration": "AMD Instinct MI300X (gfx942:sramecc+:xnack-)",
				"Nvidia driver version":        "Could not collect", "HIP runtime version": "6.1.40093",
				"ROCM Version": "6.1.40091-a8dbc0c19", "[conda]": "No relevant packages",
			},
		},
		{
			file:   "nvidia-smi-550.90-8xh100-llama405b-loaded-dstack.txt",
			format: "nvidia-smi",
			canonical: map[string]string{
				"gpu": "NVIDIA H100 80GB HBM3", "gpu_count": "8", "driver": "550.90.12", "cuda": "12.4",
			},
			nKeys: 19,
			keys: map[string]string{
				"NVIDIA-SMI version": "550.90.12", "Driver Version": "550.90.12", "CUDA Version": "12.4",
				"GPU 0": "NVIDIA H100 80GB HBM3", "GPU 7 memory total": "81559MiB",
			},
		},
		{
			file:   "nvidia-smi-580.119-l40s-x4-vllm-tp2.txt",
			format: "nvidia-smi",
			canonical: map[string]string{
				"gpu": "NVIDIA L40S", "gpu_count": "4", "driver": "580.119.02", "cuda": "13.0",
			},
			nKeys: 11,
			keys:  map[string]string{"GPU 3": "NVIDIA L40S", "GPU 3 memory total": "46068MiB"},
		},
		{
			file:   "bsc-vllm0.5.2dev-server-log-llama-2-13b.log",
			format: "vllm-log",
			// args dtype='auto' and max_num_batched_tokens=None: precision
			// comes from the engine config (torch.float16) and the token
			// budget from the chunked-prefill line.
			canonical: map[string]string{
				"engine": "vllm", "engine_version": "0.5.2.dev1210+g6f078ea3c",
				"model":     "/gpfs/scratch/bsc98/bsc098069/llm_benchmarking/models/llama/llama-2-13b",
				"precision": "float16", "max_num_seqs": "128", "max_num_batched_tokens": "512",
				"kv_cache_dtype": "auto", "block_size": "16", "prefix_caching": "false",
			},
			nKeys: 149,
			keys: map[string]string{
				"vllm_version": "0.5.2.dev1210+g6f078ea3c", "host": "None", "port": "19569",
				"allowed_origins": "*", "middleware": "", "config_format": "<ConfigFormat.AUTO: 'auto'>",
				"dtype": "auto", "gpu_memory_utilization": "0.9", "enable_chunked_prefill": "True",
				"chunked_prefill.max_num_batched_tokens": "512", "engine_config.dtype": "torch.float16",
				"engine_config.decoding_config":     "DecodingConfig(guided_decoding_backend='outlines')",
				"engine_config.mm_processor_kwargs": "None",
			},
			absentKeys: []string{"Avg prompt throughput", "INFO"},
		},
		{
			file:   "intel-xpu-vllm0.1dev-server-log-gpt-oss-20b-ansi.log",
			format: "vllm-log",
			// quantization=mxfp4 (engine config) wins over dtype 'bfloat16';
			// max_num_seqs is neither an argument nor in the engine config.
			canonical: map[string]string{
				"engine": "vllm", "engine_version": "0.1.dev12986+gfa99ccebd", "model": "openai/gpt-oss-20b",
				"precision": "mxfp4", "max_num_batched_tokens": "8192", "kv_cache_dtype": "auto",
				"block_size": "64", "prefix_caching": "false",
			},
			nKeys: 43,
			keys: map[string]string{
				"vllm_version": "0.1.dev12986+gfa99ccebd", "model_tag": "openai/gpt-oss-20b", "dtype": "bfloat16",
				"tensor_parallel_size": "4", "trust_remote_code": "True", "engine_config.device_config": "xpu",
				"engine_config.quantization": "mxfp4",
			},
		},
		{
			file:   "vllm0.11.0-server-startup-log-bettervllmlog.log",
			format: "vllm-log",
			canonical: map[string]string{
				"engine": "vllm", "engine_version": "0.11.0",
				"model":     "/vast/projects/liuv/pennnetworks/hf_models/Qwen/Qwen3-VL-30B-A3B-Instruct",
				"precision": "bfloat16", "max_num_batched_tokens": "8192", "kv_cache_dtype": "auto",
				"prefix_caching": "true",
			},
			nKeys: 42,
			keys: map[string]string{
				"served_model_name": "Qwen3-VL-30B-A3B-Instruct", "max_model_len": "40960", "host": "0.0.0.0",
				"engine_config.served_model_name": "Qwen3-VL-30B-A3B-Instruct",
			},
		},
		{
			// Telemetry time series, not environment: unrecognised.
			file: "bsc-nvidia-smi-dmon-timeseries-llama-2-13b.csv", format: "unrecognised",
			canonical: map[string]string{},
		},
		{
			file: "bsc-nvidia-smi-query-gpu-timeseries-llama-2-13b.csv", format: "unrecognised",
			canonical: map[string]string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data := readEnvLog(t, tt.file)
			src := ParseEnvFile(data, "env/"+tt.file)
			if src.Path != "env/"+tt.file {
				t.Errorf("Path = %q", src.Path)
			}
			if src.Format != tt.format {
				t.Errorf("Format = %q, want %q", src.Format, tt.format)
			}
			if !reflect.DeepEqual(src.Canonical, tt.canonical) {
				t.Errorf("Canonical =\n%v\nwant\n%v", src.Canonical, tt.canonical)
			}
			if len(src.Keys) != tt.nKeys {
				t.Errorf("len(Keys) = %d, want %d", len(src.Keys), tt.nKeys)
			}
			for k, want := range tt.keys {
				if got, ok := keyValue(src.Keys, k); !ok || got != want {
					t.Errorf("key %q = %q (present %v), want %q", k, got, ok, want)
				}
			}
			for _, k := range tt.absentKeys {
				if _, ok := keyValue(src.Keys, k); ok {
					t.Errorf("key %q present, want absent", k)
				}
			}
			for _, kv := range src.Keys {
				if strings.ContainsAny(kv.Key+kv.Value, "\x1b\r\n") {
					t.Errorf("key %q = %q holds a control character", kv.Key, kv.Value)
				}
			}
			env := MergeEnv([]EnvSource{src})
			if want := missingFields(tt.canonical); !reflect.DeepEqual(env.Missing, want) {
				t.Errorf("Missing = %v, want %v", env.Missing, want)
			}
		})
	}
}

// TestParseEnvFileAllRealLogs makes sure every shared real log parses or is
// unrecognised, including files added after these tests were written.
func TestParseEnvFileAllRealLogs(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(envSharedDir, "*"))
	local, _ := filepath.Glob(filepath.Join("testdata", "envlogs", "*"))
	files = append(files, local...)
	if len(files) == 0 {
		t.Skip("real environment logs absent")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src := ParseEnvFile(data, filepath.Base(f))
		checkEnvSource(t, src)
	}
}

func TestParseEnvFileFormats(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		format    string
		canonical map[string]string
		keys      []KV // nil: not checked
	}{
		{
			name: "json canonical names",
			in: `{"gpu": "NVIDIA H100 80GB HBM3", "gpu_count": 8, "driver": "550.90.07", "cuda": "12.4",
			      "engine": "vLLM", "engine_version": "v0.16.0", "pytorch": "2.9.1", "python": "3.12.3",
			      "model": "meta-llama/Llama-3.1-8B-Instruct", "precision": "bf16", "dtype": "float16",
			      "max_num_seqs": 256, "max_num_batched_tokens": 8192, "kv_cache_dtype": "fp8",
			      "block_size": 16, "prefix_caching": true}`,
			format: "json",
			canonical: map[string]string{
				"gpu": "NVIDIA H100 80GB HBM3", "gpu_count": "8", "driver": "550.90.07", "cuda": "12.4",
				"engine": "vllm", "engine_version": "0.16.0", "pytorch": "2.9.1", "python": "3.12.3",
				"model": "meta-llama/Llama-3.1-8B-Instruct", "precision": "bf16", "max_num_seqs": "256",
				"max_num_batched_tokens": "8192", "kv_cache_dtype": "fp8", "block_size": "16", "prefix_caching": "true",
			},
		},
		{
			name: "json aliases, nesting and arrays",
			in: `{"vllm_version": "0.6.3", "torch_version": "2.5.1", "cuda_version": "12.4",
			      "driver_version": "550.90.07", "model_name": "Qwen/Qwen2.5-7B", "dtype": "bfloat16",
			      "quantization": "fp8", "python_version": "Python 3.11.9",
			      "gpus": ["NVIDIA H100", "NVIDIA H100"], "server": {"args": {"max_num_seqs": 64,
			      "enable_prefix_caching": false}}, "nested": {"a": [1, {"b": null}], "e": {}, "m": [[1, 2], [3]]}}`,
			format: "json",
			canonical: map[string]string{
				"engine": "vllm", "engine_version": "0.6.3", "pytorch": "2.5.1", "cuda": "12.4",
				"driver": "550.90.07", "model": "Qwen/Qwen2.5-7B", "precision": "fp8", "python": "3.11.9",
				"max_num_seqs": "64", "prefix_caching": "false",
			},
			keys: []KV{
				{"vllm_version", "0.6.3"}, {"torch_version", "2.5.1"}, {"cuda_version", "12.4"},
				{"driver_version", "550.90.07"}, {"model_name", "Qwen/Qwen2.5-7B"}, {"dtype", "bfloat16"},
				{"quantization", "fp8"}, {"python_version", "Python 3.11.9"}, {"gpus", "NVIDIA H100, NVIDIA H100"},
				{"server.args.max_num_seqs", "64"}, {"server.args.enable_prefix_caching", "false"},
				{"nested.a.0", "1"}, {"nested.a.1.b", "null"}, {"nested.e", ""},
				{"nested.m.0", "1, 2"}, {"nested.m.1", "3"},
			},
		},
		{
			name:   "json not-known values and dtype auto",
			in:     `{"gpu": "N/A", "driver_version": "Could not collect", "cuda": "", "quantization": null, "dtype": "auto", "engine": "none"}`,
			format: "json",
			canonical: map[string]string{
				"precision": "auto",
			},
		},
		{
			name:      "json explicit dtype beats auto",
			in:        `{"dtype": "auto", "torch_dtype": "torch.bfloat16"}`,
			format:    "json",
			canonical: map[string]string{"precision": "bfloat16"},
		},
		{
			name: "yaml with anchors and merge keys",
			in: `# benchnote env
gpu: NVIDIA L40S
gpu_count: 1
engine: vllm
engine_version: 0.16.0
cuda: "12.10"
python: 3.12.3 (main)
defaults: &d
  block_size: 16
server:
  <<: *d
  args:
    max_num_seqs: 256
    enable_prefix_caching: yes
  served: [a, b]
`,
			format: "yaml",
			canonical: map[string]string{
				"gpu": "NVIDIA L40S", "gpu_count": "1", "engine": "vllm", "engine_version": "0.16.0",
				"cuda": "12.10", "python": "3.12.3", "block_size": "16", "max_num_seqs": "256", "prefix_caching": "true",
			},
			keys: []KV{
				{"gpu", "NVIDIA L40S"}, {"gpu_count", "1"}, {"engine", "vllm"}, {"engine_version", "0.16.0"},
				{"cuda", "12.10"}, {"python", "3.12.3 (main)"}, {"defaults.block_size", "16"},
				{"server.block_size", "16"}, {"server.args.max_num_seqs", "256"},
				{"server.args.enable_prefix_caching", "yes"}, {"server.served", "a, b"},
			},
		},
		{
			name: "key-value text",
			in: `# captured by run.sh
export CUDA_VERSION=12.4.1
driver_version: 550.90.07
GPU: NVIDIA A100-SXM4-80GB
num_gpus=4
vllm_version = 0.8.5
MODEL="Qwen/Qwen2.5-7B-Instruct"
`,
			format: "key-value",
			canonical: map[string]string{
				"cuda": "12.4.1", "driver": "550.90.07", "gpu": "NVIDIA A100-SXM4-80GB", "gpu_count": "4",
				"engine": "vllm", "engine_version": "0.8.5", "model": "Qwen/Qwen2.5-7B-Instruct",
			},
			keys: []KV{
				{"CUDA_VERSION", "12.4.1"}, {"driver_version", "550.90.07"}, {"GPU", "NVIDIA A100-SXM4-80GB"},
				{"num_gpus", "4"}, {"vllm_version", "0.8.5"}, {"MODEL", "Qwen/Qwen2.5-7B-Instruct"},
			},
		},
		{
			name: "collect_env with UUIDs and mixed GPUs",
			in: `PyTorch version: 2.3.0+cu121
Is debug build: False
CUDA used to build PyTorch: N/A
Python version: 3.11.4 (main, Jul  5 2023) [GCC 11.2.0] (64-bit runtime)
Is CUDA available: True
CUDA runtime version: 12.1.105
GPU models and configuration:
GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-0000)
GPU 1: NVIDIA A10G
Nvidia driver version: 535.104.05
vLLM Version: N/A
`,
			format: "collect_env",
			canonical: map[string]string{
				"pytorch": "2.3.0+cu121", "python": "3.11.4", "cuda": "12.1.105", "gpu": "NVIDIA A100-SXM4-80GB, NVIDIA A10G",
				"gpu_count": "2", "driver": "535.104.05",
			},
		},
		{
			name: "vllm log with ANSI codes and odd args",
			in: "\x1b[0;36m(APIServer pid=123)\x1b[0;0m INFO 01-02 03:04:05 [api_server.py:1] vLLM API server version 0.10.1\r\n" +
				"\x1b[0;36m(APIServer pid=123)\x1b[0;0m INFO 01-02 03:04:05 [utils.py:2] non-default args: {'model': 'meta-llama/Llama-3.1-8B-Instruct', " +
				`'max_num_seqs': 256, 'quantization': 'fp8', 'kv_cache_dtype': 'fp8_e4m3', 'served_model_name': ['a', 'b'], ` +
				`'enable_prefix_caching': True, 'block_size': 32, 'note': 'it\'s, {odd}', "dq": "x", 'mode': <Mode.NONE: 0>, 'max_num_batched_tokens': 4096}` + "\n" +
				"INFO:     127.0.0.1:5000 - \"POST /v1/completions HTTP/1.1\" 200 OK\n",
			format: "vllm-log",
			canonical: map[string]string{
				"engine": "vllm", "engine_version": "0.10.1", "model": "meta-llama/Llama-3.1-8B-Instruct",
				"precision": "fp8", "max_num_seqs": "256", "max_num_batched_tokens": "4096",
				"kv_cache_dtype": "fp8_e4m3", "block_size": "32", "prefix_caching": "true",
			},
			keys: []KV{
				{"vllm_version", "0.10.1"}, {"model", "meta-llama/Llama-3.1-8B-Instruct"}, {"max_num_seqs", "256"},
				{"quantization", "fp8"}, {"kv_cache_dtype", "fp8_e4m3"}, {"served_model_name", "a, b"},
				{"enable_prefix_caching", "True"}, {"block_size", "32"}, {"note", "it's, {odd}"}, {"dq", "x"},
				{"mode", "<Mode.NONE: 0>"}, {"max_num_batched_tokens", "4096"},
			},
		},
		{
			name:      "vllm log with only an old Namespace line",
			in:        "INFO 05-01 10:00:00 api_server.py:1] args: Namespace(host=None, model='facebook/opt-125m', dtype='half', max_num_seqs=8)\n",
			format:    "vllm-log",
			canonical: map[string]string{"engine": "vllm", "model": "facebook/opt-125m", "precision": "half", "max_num_seqs": "8"},
			keys:      []KV{{"host", "None"}, {"model", "facebook/opt-125m"}, {"dtype", "half"}, {"max_num_seqs", "8"}},
		},
		{
			name: "nvidia-smi without processes, Windows driver model",
			in: `+-----------------------------------------------------------------------------+
| NVIDIA-SMI 531.14       Driver Version: 531.14       CUDA Version: 12.1     |
|-------------------------------+----------------------+----------------------+
|   0  NVIDIA GeForce ...  WDDM | 00000000:01:00.0  On |                  N/A |
|  0%   45C    P8    22W / 450W |   1234MiB / 24564MiB |      2%      Default |
`,
			format: "nvidia-smi",
			canonical: map[string]string{
				"gpu": "NVIDIA GeForce ...", "gpu_count": "1", "driver": "531.14", "cuda": "12.1",
			},
		},
		{name: "empty", in: "", format: "unrecognised", canonical: map[string]string{}},
		{name: "blank", in: " \n\t\n", format: "unrecognised", canonical: map[string]string{}},
		{name: "binary", in: "gpu: H100\x00\x01", format: "unrecognised", canonical: map[string]string{}},
		{name: "prose", in: "hello world\nthis is not an environment\n", format: "unrecognised", canonical: map[string]string{}},
		{name: "json array", in: `[{"gpu": "H100"}]`, format: "unrecognised", canonical: map[string]string{}},
		{name: "csv", in: "a,b,c\n1,2,3\n", format: "unrecognised", canonical: map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := ParseEnvFile([]byte(tt.in), "env.x")
			checkEnvSource(t, src)
			if src.Format != tt.format {
				t.Errorf("Format = %q, want %q", src.Format, tt.format)
			}
			if !reflect.DeepEqual(src.Canonical, tt.canonical) {
				t.Errorf("Canonical =\n%v\nwant\n%v", src.Canonical, tt.canonical)
			}
			if tt.keys != nil && !reflect.DeepEqual(src.Keys, tt.keys) {
				t.Errorf("Keys =\n%q\nwant\n%q", src.Keys, tt.keys)
			}
		})
	}
}

func TestEnvStripsANSI(t *testing.T) {
	in := "\x1b[1;36m(EngineCore_DP0 pid=7)\x1b[0;0m INFO x\r\n\x1b[2K\rLoading 50%\x1b[?25l"
	want := "(EngineCore_DP0 pid=7) INFO x\n\nLoading 50%"
	if got := envNormaliseText([]byte(in)); got != want {
		t.Errorf("envNormaliseText = %q, want %q", got, want)
	}
}

func TestMergeEnv(t *testing.T) {
	collect := EnvSource{Path: "env.txt", Format: "collect_env", Canonical: map[string]string{
		"gpu": "NVIDIA H100 80GB HBM3", "gpu_count": "8", "cuda": "12.4", "engine": "vllm", "engine_version": "0.6.3",
	}}
	smi := EnvSource{Path: "c8/env-smi.txt", Format: "nvidia-smi", Canonical: map[string]string{
		"gpu": "NVIDIA H100 80GB HBM3", "gpu_count": "4", "driver": "560.35.03", "cuda": "12.6",
	}}
	run := EnvSource{Path: "c8/env.json", Format: "json", Canonical: map[string]string{
		"engine_version": "0.6.4", "model": "m", "not_canonical": "x", "precision": "",
	}}
	smi2 := EnvSource{Path: "c8/r1/env-smi.txt", Format: "nvidia-smi", Canonical: map[string]string{"cuda": "12.8"}}
	json2 := EnvSource{Path: "c8/r1/env.json", Format: "json", Canonical: map[string]string{"cuda": "12.1"}}

	tests := []struct {
		name    string
		sources []EnvSource
		want    map[string]string
	}{
		{"nothing", nil, map[string]string{}},
		{
			"later overrides, nvidia-smi cuda does not", []EnvSource{collect, smi, run},
			map[string]string{
				"gpu": "NVIDIA H100 80GB HBM3", "gpu_count": "4", "driver": "560.35.03", "cuda": "12.4",
				"engine": "vllm", "engine_version": "0.6.4", "model": "m",
			},
		},
		{
			"nvidia-smi cuda fills, later collect_env overrides", []EnvSource{smi, collect},
			map[string]string{
				"gpu": "NVIDIA H100 80GB HBM3", "gpu_count": "8", "driver": "560.35.03", "cuda": "12.4",
				"engine": "vllm", "engine_version": "0.6.3",
			},
		},
		{"nvidia-smi over nvidia-smi", []EnvSource{smi, smi2}, map[string]string{
			"gpu": "NVIDIA H100 80GB HBM3", "gpu_count": "4", "driver": "560.35.03", "cuda": "12.8",
		}},
		{"json over nvidia-smi over json", []EnvSource{json2, smi2}, map[string]string{"cuda": "12.1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := MergeEnv(tt.sources)
			if !reflect.DeepEqual(env.Canonical, tt.want) {
				t.Errorf("Canonical =\n%v\nwant\n%v", env.Canonical, tt.want)
			}
			if want := missingFields(tt.want); !reflect.DeepEqual(env.Missing, want) {
				t.Errorf("Missing = %v, want %v", env.Missing, want)
			}
			if env.Sources == nil || len(env.Sources) != len(tt.sources) {
				t.Errorf("Sources = %v, want %d sources", env.Sources, len(tt.sources))
			}
			for i := range env.Sources {
				if env.Sources[i].Path != tt.sources[i].Path {
					t.Errorf("Sources[%d] = %q, want %q", i, env.Sources[i].Path, tt.sources[i].Path)
				}
			}
		})
	}
}

// TestMergeEnvRealLogs merges the sweep-level collect_env with a run-level
// nvidia-smi table and server log from the same kind of host.
func TestMergeEnvRealLogs(t *testing.T) {
	collect := ParseEnvFile(readEnvLog(t, "vllm0.6.3.post2-collect-env-8xh100-sxm5-dstack.txt"), "env.txt")
	smi := ParseEnvFile(readEnvLog(t, "nvidia-smi-550.90-8xh100-llama405b-loaded-dstack.txt"), "c16/env-smi.txt")
	log := ParseEnvFile(readEnvLog(t, "bsc-vllm0.5.2dev-server-log-llama-2-13b.log"), "c16/env.log")
	env := MergeEnv([]EnvSource{collect, smi, log})
	want := map[string]string{
		"gpu": "NVIDIA H100 80GB HBM3", "gpu_count": "8", "driver": "550.90.12", "cuda": "12.4",
		"engine": "vllm", "engine_version": "0.5.2.dev1210+g6f078ea3c", "pytorch": "2.5.1+cu124", "python": "3.10.12",
		"model":     "/gpfs/scratch/bsc98/bsc098069/llm_benchmarking/models/llama/llama-2-13b",
		"precision": "float16", "max_num_seqs": "128", "max_num_batched_tokens": "512",
		"kv_cache_dtype": "auto", "block_size": "16", "prefix_caching": "false",
	}
	if !reflect.DeepEqual(env.Canonical, want) {
		t.Errorf("Canonical =\n%v\nwant\n%v", env.Canonical, want)
	}
	if len(env.Missing) != 0 {
		t.Errorf("Missing = %v, want none", env.Missing)
	}
}

// checkEnvSource checks the invariants every parsed source keeps.
func checkEnvSource(t *testing.T, src EnvSource) {
	t.Helper()
	formats := map[string]bool{
		"json": true, "yaml": true, "collect_env": true, "collect_env_sectioned": true,
		"nvidia-smi": true, "vllm-log": true, "key-value": true, "unrecognised": true,
	}
	if !formats[src.Format] {
		t.Errorf("%s: Format = %q", src.Path, src.Format)
	}
	if src.Keys == nil || src.Canonical == nil {
		t.Errorf("%s: nil Keys or Canonical", src.Path)
	}
	if src.Format == "unrecognised" && (len(src.Keys) != 0 || len(src.Canonical) != 0) {
		t.Errorf("%s: unrecognised but %d keys, %d canonical", src.Path, len(src.Keys), len(src.Canonical))
	}
	canonical := map[string]bool{}
	for _, f := range CanonicalFields {
		canonical[f] = true
	}
	for f, v := range src.Canonical {
		if !canonical[f] {
			t.Errorf("%s: non-canonical field %q", src.Path, f)
		}
		if v == "" {
			t.Errorf("%s: canonical %q is empty", src.Path, f)
		}
	}
}

func FuzzParseEnvFile(f *testing.F) {
	for _, dir := range []string{filepath.Join("testdata", "envlogs"), envSharedDir} {
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, file := range files {
			// Heads only: large seeds make the fuzzer's minimisation slow.
			if data, err := os.ReadFile(file); err == nil {
				f.Add(data[:min(len(data), 8<<10)])
			}
		}
	}
	for _, s := range []string{
		`{"gpu": {"name": "x", "count": [1, [2, {"a": null}]]}, "vllm_version": "v1"}`,
		"a: &a [*a]\nb: *a\n<<: {c: 1}\n",
		"x: &x {y: *x}\n",
		"non-default args: {'a': [1, (2, {3: '}'})], 'b': 'it\\'s'",
		"args: Namespace(a=<X: 'y'>, b='))', c=[\n",
		"Initializing an LLM engine (v1) with config: model='m', dtype=torch.float16)",
		"| NVIDIA-SMI 1  Driver Version: 2 \n|   0  G  On | 0:0:0.0 |\n",
		"PyTorch version: 1\nIs CUDA available: 2\nvLLM Version: 3\nGPU 0:\n",
		"\x1b[0;36mvLLM API server version \x1b[",
		"\xef\xbb\xbfk=v\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var src EnvSource
		withinBudget(t, "ParseEnvFile", len(data), func() { src = ParseEnvFile(data, "env.fuzz") })
		checkEnvSource(t, src)
		MergeEnv([]EnvSource{src, src})
	})
}

func ExampleParseEnvFile() {
	src := ParseEnvFile([]byte(`{"gpu": "NVIDIA L40S", "gpu_count": 1, "vllm_version": "0.16.0", "dtype": "bfloat16"}`), "env.json")
	env := MergeEnv([]EnvSource{src})
	fmt.Println(src.Format)
	for _, f := range CanonicalFields {
		if v, ok := env.Canonical[f]; ok {
			fmt.Printf("%s: %s\n", f, v)
		}
	}
	fmt.Println("missing:", strings.Join(env.Missing, ", "))
	// Output:
	// json
	// gpu: NVIDIA L40S
	// gpu_count: 1
	// engine: vllm
	// engine_version: 0.16.0
	// precision: bfloat16
	// missing: driver, cuda, pytorch, python, model, max_num_seqs, max_num_batched_tokens, kv_cache_dtype, block_size, prefix_caching
}

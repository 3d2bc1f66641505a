package sim

import (
	"bytes"
	"math"
	"strconv"
	"time"
)

// The simulated GPU telemetry: one L40S sampled once a second, from two
// seconds before a run's window to two seconds after it, in benchnote's
// gpu.csv format. Nothing in it is measured: the power, utilisation and
// memory follow the number of requests in flight at each sample through
// the made-up curves below (docs/simulator.md), and the energy counter
// adds up the trapezoids between the samples' powers.
const (
	simGPUUUID     = "GPU-00000000-0000-4000-8000-0000000051a0" // synthetic
	simGPUName     = "NVIDIA L40S"
	simGPUHost     = "sim-node"
	simGPUMemTotal = 46068 // MiB, as nvidia-smi reports an L40S
	simIdleW       = 72.0
	simSpanW       = 238.0 // idle + span is the power with a full batch
	simEnergyBase  = 1.0e7 // J on the counter before the run's first sample
)

// inFlight counts the requests sent at or before t and not yet done (unix µs).
func (r *Run) inFlight(t int64) int {
	n := 0
	for i := range r.Requests {
		q := &r.Requests[i]
		if q.SentUs <= t && t < q.EndUs {
			n++
		}
	}
	return n
}

// gpuCSV is the run's simulated gpu.csv.
func (r *Run) gpuCSV() []byte {
	var b bytes.Buffer
	b.WriteString("timestamp,host,gpu_uuid,gpu_index,gpu_name,power_w,energy_j,util_percent,memory_used_mib,memory_total_mib,temperature_c\n")
	first := r.WindowStartUs/1_000_000 - 2
	last := (r.WindowEndUs+999_999)/1_000_000 + 2
	energy, prev := simEnergyBase, math.NaN()
	for s := first; s <= last; s++ {
		t := s * 1_000_000
		active := float64(r.inFlight(t))
		power := math.Round((simIdleW+simSpanW*(1-math.Exp(-active/5)))*100) / 100
		if !math.IsNaN(prev) {
			energy += (prev + power) / 2
		}
		prev = power
		util := 0.0
		if active > 0 {
			util = math.Round(100 * (1 - math.Exp(-active/2)))
		}
		mem := 40960 + 12*int(active)
		temp := math.Round(38 + power/10)
		b.WriteString(time.UnixMicro(t).UTC().Format("2006-01-02T15:04:05.000Z"))
		b.WriteString("," + simGPUHost + "," + simGPUUUID + ",0," + simGPUName + ",")
		b.WriteString(strconv.FormatFloat(power, 'f', 2, 64) + "," + strconv.FormatFloat(energy, 'f', 3, 64) + ",")
		b.WriteString(strconv.FormatFloat(util, 'f', 0, 64) + "," + strconv.Itoa(mem) + "," + strconv.Itoa(simGPUMemTotal) + ",")
		b.WriteString(strconv.FormatFloat(temp, 'f', 0, 64) + "\n")
	}
	return b.Bytes()
}

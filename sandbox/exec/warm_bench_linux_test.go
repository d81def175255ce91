package exec

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkExecTrueWarm measures the latency of one `true` through the
// whole sandbox as a server sees it with Options.Prestart: the helper for
// the call was started ahead, while the model was thinking (the wait for
// it is outside the timer, as model turns are seconds apart). Same layers
// as BenchmarkExecTrue; only the helper's process start and package init
// are off the critical path. Target: ≤ 10 ms.
func BenchmarkExecTrueWarm(b *testing.B) {
	if len(testRunner.Layers().Active) == 0 {
		b.Skip("no sandbox here")
	}
	opts := benchOptions(b)
	opts.Prestart = true
	warm := New(opts)
	defer warm.Close()
	ws := execWorkspace(b)
	var took []time.Duration
	var rss []int64
	for b.Loop() {
		b.StopTimer()
		warm.waitWarm()
		rss = append(rss, warmHelperRSS(b, warm))
		b.StartTimer()
		start := time.Now()
		r, err := warm.Run(b.Context(), &Spec{Command: "true", Dir: ws})
		if err != nil || r.ExitCode != 0 {
			b.Fatal(err, r)
		}
		took = append(took, time.Since(start))
	}
	reportLatencies(b, took)
	slices.Sort(rss)
	b.ReportMetric(float64(rss[len(rss)/2])/1024, "idle-helper-RSS-MiB")
}

// warmHelperRSS is the resident set of the runner's idle warm helper, in
// KiB.
func warmHelperRSS(b *testing.B, r *Runner) int64 {
	r.sys.warm.mu.Lock()
	w := r.sys.warm.slot
	r.sys.warm.mu.Unlock()
	if w == nil {
		b.Fatal("no warm helper")
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(w.h.pid) + "/status")
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
	b.Fatal("no VmRSS")
	return 0
}

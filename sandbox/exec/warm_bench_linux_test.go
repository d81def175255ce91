package exec

import (
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
	warm := New(&Options{Prestart: true})
	defer warm.Close()
	ws := execWorkspace(b)
	var took []time.Duration
	for b.Loop() {
		b.StopTimer()
		warm.waitWarm()
		b.StartTimer()
		start := time.Now()
		r, err := warm.Run(b.Context(), &Spec{Command: "true", Dir: ws})
		if err != nil || r.ExitCode != 0 {
			b.Fatal(err, r)
		}
		took = append(took, time.Since(start))
	}
	reportLatencies(b, took)
}

package stage

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// BenchmarkMerge1000_S9 merges a change set of 1,000 new files (a build
// output tree: 10 new directories of 100 files) into the workspace,
// reading the change set, classifying it and merging with a checkpoint.
// Target: ≤ 50 ms. The stage is written directly (as an overlay's upper
// layer would hold it), so the benchmark measures the merge alone.
func BenchmarkMerge1000_S9(b *testing.B) {
	var took []time.Duration
	for b.Loop() {
		b.StopTimer()
		ws := b.TempDir()
		st, err := New(b.TempDir(), ws)
		if err != nil {
			b.Fatal(err)
		}
		for d := range 10 {
			dir := filepath.Join(st.Upper, "out", fmt.Sprintf("pkg%d", d))
			os.MkdirAll(dir, 0o755)
			for f := range 100 {
				os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.o", f)), []byte("object code\n"), 0o644)
			}
		}
		cp := &memCheckpoint{before: map[string]string{}, after: map[string]string{}}
		b.StartTimer()
		start := time.Now()
		set, err := Read(st.Upper, ws, time.Time{})
		if err != nil {
			b.Fatal(err)
		}
		set.Classify(&Rules{})
		rep, err := Merge(set, set.Changes, cp)
		if err != nil || len(rep.Failed) > 0 || len(cp.after) != 1000 {
			b.Fatalf("%v %v %d", err, rep.Failed, len(cp.after))
		}
		took = append(took, time.Since(start))
		b.StopTimer()
		st.Remove()
		b.StartTimer()
	}
	b.ReportMetric(float64(medianOf(took))/float64(time.Millisecond), "p50-ms")
}

func medianOf(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

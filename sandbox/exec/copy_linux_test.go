package exec

import (
	"os"
	"runtime"
	"testing"
)

// TestCopyOut_Issue16_ReusesItsBuffer: copying a command's output
// allocates no buffer of its own once the pool is warm (the *os.File's
// WriteTo used to allocate 32 KiB per stream, next to ours).
func TestCopyOut_Issue16_ReusesItsBuffer(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w.Close() // at EOF at once: only the copy's own allocations count
	b := newCapBuffer(StdoutCap)
	copyOut(b, r) // warms the pool
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 20 {
		copyOut(b, r)
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / 20; per > 1024 {
		t.Errorf("copyOut allocates %d bytes per call, want no buffer (≤ 1 KiB)", per)
	}
}

package lspserver

import (
	"runtime"
	"testing"
)

var sink []byte

// S4 (issue 27 item 2): after a run that held a large heap, the server
// gives the memory back at once instead of keeping it while it idles.
func TestReleaseMemory_S4_ReturnsABigHeap(t *testing.T) {
	sink = make([]byte, 96<<20)
	for i := range sink {
		sink[i] = 1 // resident, not just reserved
	}
	sink = nil
	runtime.GC() // garbage now, but the pages stay with the process
	before := heapHeld()
	if !releaseMemory(32 << 20) {
		t.Fatalf("no release with %d MiB of heap held, over the 32 MiB kept", before>>20)
	}
	if after := heapHeld(); after > before-64<<20 {
		t.Errorf("the heap held %d MiB before and %d MiB after the release, want 64 MiB less", before>>20, after>>20)
	}
	if releaseMemory(1 << 40) {
		t.Error("released with a heap under the limit")
	}
}

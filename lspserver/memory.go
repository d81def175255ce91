package lspserver

import (
	"runtime/debug"
	"runtime/metrics"
)

// Memory after a run (S4, issue 27 item 2). An editor keeps `serve`
// running for days, mostly idle; a run that edited a 10 MiB file leaves
// its garbage in a heap that no allocation will collect while the server
// waits, and the runtime returns freed pages to the system only slowly.
// So when a run ends with the process holding more than keepBytes of
// heap, the heap is collected and its free pages are returned at once.
// A run that used little memory costs nothing: one metrics read.

// keepBytes is the heap a server may hold between runs: about twice what
// an idle server with its caches uses.
const keepBytes = 48 << 20

// heapHeld is the heap's memory taken from the system and not returned:
// what counts in the process's resident set.
func heapHeld() uint64 {
	s := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
	}
	metrics.Read(s)
	var n uint64
	for _, v := range s {
		if v.Value.Kind() == metrics.KindUint64 {
			n += v.Value.Uint64()
		}
	}
	return n
}

// releaseMemory returns the heap's free memory to the system when it
// holds more than keep bytes, and reports whether it did.
func releaseMemory(keep uint64) bool {
	if heapHeld() <= keep {
		return false
	}
	debug.FreeOSMemory()
	return true
}

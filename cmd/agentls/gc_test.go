package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
)

// TestTuneGC_Issue16: the server collects at GOGC=200 under a 96 MiB
// limit, unless the user set GOGC or GOMEMLIMIT.
func TestTuneGC_Issue16(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	for _, c := range []struct {
		env   map[string]string
		pct   int
		limit int64
	}{
		{map[string]string{}, 200, 96 << 20},
		{map[string]string{"GOGC": "50"}, 100, 96 << 20},
		{map[string]string{"GOMEMLIMIT": "1GiB"}, 200, math.MaxInt64},
	} {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
		tuneGC(func(k string) string { return c.env[k] })
		if pct := debug.SetGCPercent(100); pct != c.pct {
			t.Errorf("env %v: GOGC %d, want %d", c.env, pct, c.pct)
		}
		if limit := debug.SetMemoryLimit(-1); limit != c.limit {
			t.Errorf("env %v: memory limit %d, want %d", c.env, limit, c.limit)
		}
	}
}

// TestHeadlessProcs_Issue16: a headless run uses one P and gives the
// previous number back; a GOMAXPROCS the user set wins.
func TestHeadlessProcs_Issue16(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	restore := headlessProcs(func(string) string { return "" })
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Errorf("GOMAXPROCS in a headless run = %d, want 1", n)
	}
	restore()
	if n := runtime.GOMAXPROCS(0); n != 3 {
		t.Errorf("GOMAXPROCS after the run = %d, want 3 back", n)
	}
	headlessProcs(func(k string) string { return map[string]string{"GOMAXPROCS": "3"}[k] })()
	if n := runtime.GOMAXPROCS(0); n != 3 {
		t.Errorf("GOMAXPROCS=3 set by the user became %d", n)
	}
}

// TestHeadlessMemoryLimit_Issue27: a headless run collects under the
// lower soft limit of headlessMemoryLimit and gives the previous limit
// back; a GOMEMLIMIT the user set wins.
func TestHeadlessMemoryLimit_Issue27(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(memoryLimit))
	restore := headlessProcs(func(string) string { return "" })
	if limit := debug.SetMemoryLimit(-1); limit != headlessMemoryLimit {
		t.Errorf("memory limit in a headless run = %d, want %d", limit, headlessMemoryLimit)
	}
	restore()
	if limit := debug.SetMemoryLimit(-1); limit != memoryLimit {
		t.Errorf("memory limit after the run = %d, want %d back", limit, memoryLimit)
	}
	for _, env := range []map[string]string{{"GOMEMLIMIT": "1GiB"}, {"GOMEMLIMIT": "1GiB", "GOMAXPROCS": "3"}} {
		headlessProcs(func(k string) string { return env[k] })()
		if limit := debug.SetMemoryLimit(-1); limit != memoryLimit {
			t.Errorf("env %v: the headless run changed the memory limit to %d", env, limit)
		}
	}
	restore = headlessProcs(func(k string) string { return map[string]string{"GOMAXPROCS": "3"}[k] })
	if limit := debug.SetMemoryLimit(-1); limit != headlessMemoryLimit {
		t.Errorf("GOMAXPROCS set: memory limit %d, want %d", limit, headlessMemoryLimit)
	}
	restore()
	if limit := debug.SetMemoryLimit(-1); limit != memoryLimit {
		t.Errorf("GOMAXPROCS set: memory limit after the run = %d, want %d back", limit, memoryLimit)
	}
}

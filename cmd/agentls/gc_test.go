package main

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestTuneGC_Issue16: the server collects at GOGC=200 under a 256 MiB
// limit, unless the user set GOGC or GOMEMLIMIT.
func TestTuneGC_Issue16(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	for _, c := range []struct {
		env   map[string]string
		pct   int
		limit int64
	}{
		{map[string]string{}, 200, 256 << 20},
		{map[string]string{"GOGC": "50"}, 100, 256 << 20},
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

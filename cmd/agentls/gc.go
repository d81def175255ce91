package main

import (
	"runtime"
	"runtime/debug"
)

// tuneGC sets the collector for the server's small heap (issue 16). Its
// live heap is a few MiB, so with the default GOGC=100 a 10-turn session
// collects two or three times at the runtime's 4 MiB minimum goal: ≈ 6
// ms of a 33 ms server. GOGC=200 halves that for ≈ 0.5 MiB more peak
// RSS (testdata/bench/replay.sh: server CPU 33–35 → 27–28 ms, RSS 28.7
// → 29.1 MiB). The memory limit keeps a large heap (big documents) from
// growing to three times its live size: near 96 MiB the collector runs
// as often as it must. A one-line edit of a 10 MiB file holds ~100 MB
// live for a moment; under a 256 MiB limit it peaked at 180 MiB headless
// and 270 MiB in serve, under 96 MiB at 117 and 129 MiB (issue 27 item 2,
// BenchmarkBigEdit_I27, BenchmarkServeBigEdit_I27), while a session's own
// heap of a few MiB never comes near it. A GOGC or GOMEMLIMIT the user
// set wins.
func tuneGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(200)
	}
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
}

// headlessProcs runs a headless session on one P, unless the user set
// GOMAXPROCS, and returns the function that restores the previous value
// (issue 16). A headless run is one agent's loop: a model request, a tool
// call, the next request, with the work that costs CPU running in the
// commands' own processes. A second P only adds wake-ups: idle Ps woken
// for goroutines that run for microseconds, and a sysmon that polls every
// 20 µs while a P sits in a syscall, because another P is idle. Measured
// on the replay (testdata/bench/replay.sh): the server's CPU 28.5 → 25.5
// ms per session. `serve` keeps every P: editors send work concurrently.
func headlessProcs(getenv func(string) string) (restore func()) {
	if getenv("GOMAXPROCS") != "" {
		return func() {}
	}
	prev := runtime.GOMAXPROCS(1)
	return func() { runtime.GOMAXPROCS(prev) }
}

// memoryLimit is the soft limit of the heap (see tuneGC).
const memoryLimit = 96 << 20

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
// GOMAXPROCS, and under the lower soft memory limit of a headless run
// (headlessMemoryLimit), unless the user set GOMEMLIMIT; it returns the
// function that restores the previous values (issue 16, issue 27 item 2).
// A headless run is one agent's loop: a model request, a tool call, the
// next request, with the work that costs CPU running in the commands' own
// processes. A second P only adds wake-ups: idle Ps woken for goroutines
// that run for microseconds, and a sysmon that polls every 20 µs while a P
// sits in a syscall, because another P is idle. Measured on the replay
// (testdata/bench/replay.sh): the server's CPU 28.5 → 25.5 ms per session.
// `serve` keeps every P: editors send work concurrently.
func headlessProcs(getenv func(string) string) (restore func()) {
	restoreLimit := func() {}
	if getenv("GOMEMLIMIT") == "" {
		prev := debug.SetMemoryLimit(headlessMemoryLimit)
		restoreLimit = func() { debug.SetMemoryLimit(prev) }
	}
	if getenv("GOMAXPROCS") != "" {
		return restoreLimit
	}
	prev := runtime.GOMAXPROCS(1)
	return func() { runtime.GOMAXPROCS(prev); restoreLimit() }
}

// memoryLimit is the soft limit of the heap (see tuneGC).
const memoryLimit = 96 << 20

// headlessMemoryLimit is the soft limit of a headless run's heap. A
// one-line edit of a 10 MiB file holds ~32 MiB live at its peak, on a
// heap of ~4 MiB (issue 27 item 2): the tool's old and new text, which
// the proposal keeps, and the headless client's one copy of the file
// (lspserver/headless/apply.go). What the runtime keeps beyond that is
// freed 10 MiB spans it has not yet given back, up to the limit: peak RSS
// (BenchmarkBigEdit_I27, loaded machine, 2–3 runs each) 101–102 MiB under
// 96 MiB, 68.2–68.4 under 48 or 40, 60.1–60.2 under 36, 58.4–58.6 under
// 32 — about the limit plus the ~24 MiB the binary and runtime hold
// outside the heap. 36 MiB keeps the collector from running all the time
// near the edit's live heap; a session's own heap of a few MiB never comes
// near it. `serve` holds the editors' open documents as well and keeps
// memoryLimit.
const headlessMemoryLimit = 36 << 20

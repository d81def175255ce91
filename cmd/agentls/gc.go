package main

import "runtime/debug"

// tuneGC sets the collector for the server's small heap (issue 16). Its
// live heap is a few MiB, so with the default GOGC=100 a 10-turn session
// collects two or three times at the runtime's 4 MiB minimum goal: ≈ 6
// ms of a 33 ms server. GOGC=200 halves that for ≈ 0.5 MiB more peak
// RSS (testdata/bench/replay.sh: server CPU 33–35 → 27–28 ms, RSS 28.7
// → 29.1 MiB). The memory limit keeps a large heap (big documents) from
// growing to three times its live size: near 256 MiB the collector runs
// as often as it must. A GOGC or GOMEMLIMIT the user set wins.
func tuneGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(200)
	}
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(256 << 20)
	}
}

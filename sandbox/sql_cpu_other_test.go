//go:build !unix

package sandbox

import "time"

// cpuTime is unknown here; the benchmark then reports wall time only.
func cpuTime() time.Duration { return 0 }

package sandbox

import (
	"os"
	"testing"
)

// TestMain lets the test binary act as the sandbox helper: Exec
// re-executes /proc/self/exe, which is this binary (the gopls trick).
func TestMain(m *testing.M) {
	MaybeRunHelper()
	os.Exit(m.Run())
}

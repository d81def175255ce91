package exec

import (
	"os"
	"testing"
)

// testRunner runs the tests' commands; tests of prestart make their own.
var testRunner *Runner

// TestMain lets the test binary act as the sandbox helper: Run
// re-executes /proc/self/exe, which is this binary (the gopls trick).
func TestMain(m *testing.M) {
	MaybeRunHelper()
	testRunner = New(nil)
	code := m.Run()
	testRunner.Close()
	os.Exit(code)
}

package tools

import (
	"os"
	"testing"

	"github.com/agentls/agentls/sandbox"
)

// TestMain lets the test binary act as the sandbox helper, so that
// run_command really runs its command through sandbox.Exec in these tests
// (B2, T8): Exec re-executes /proc/self/exe, which is this binary.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	os.Exit(m.Run())
}
